//! A level's scripted events: each trigger, each effect, reinforcements joining each ruleset's
//! turn order, and the level checks of `events`.

use super::tests::random_play;
use super::*;
use crate::rules::battle::script::{Scripted, free_cell_near};
use crate::rules::rulesets::{self, RulesetId};
use crate::rules::testkit::{Field, U0, U1, run};

/// The first template of a ruleset's data file.
fn template(id: RulesetId) -> String {
    crate::rules::ruleset_data::builtin(id)
        .and_then(|d| d.templates.keys().next().cloned())
        .expect("a template")
}

/// Heroes' A at (0, 0) and Foes' B at (7, 4) on the 8 × 5 field, with `events`.
fn field(id: RulesetId, events: &str) -> Field {
    let t = template(id);
    Field::new(id)
        .units(&format!(
            r#"(name: "A", side: "Heroes", template: "{t}", cell: (0, 0)),
               (name: "B", side: "Foes", template: "{t}", cell: (7, 4))"#
        ))
        .events(events)
}

/// A reinforcement entry named `name` of `side` wanting `cell`.
fn unit(id: RulesetId, name: &str, side: &str, cell: (i32, i32)) -> String {
    format!(
        r#"(name: "{name}", side: "{side}", template: "{}", cell: ({}, {}))"#,
        template(id),
        cell.0,
        cell.1
    )
}

/// The command a passive player answers `b`'s decision with: end the turn, pick the first
/// option, declare Hold, decline to react (or the first legal command).
fn passive(b: &BattleState) -> Option<Command> {
    let legal = b.legal_commands();
    let want = match b.pending() {
        Decision::Over { .. } => return None,
        Decision::Act { unit } => Command::EndTurn { unit },
        Decision::Pick { options, .. } => Command::Pick { unit: options[0] },
        Decision::Declare { unit, .. } => Command::Declare {
            unit,
            intent: Intent::Hold,
        },
        Decision::React { unit, .. } => Command::React {
            unit,
            reaction: Reaction::Decline,
        },
    };
    if legal.contains(&want) {
        Some(want)
    } else {
        legal.first().cloned()
    }
}

/// Plays passively until `stop` holds (at most 500 commands); the events on the way.
fn until(b: &mut BattleState, stop: impl Fn(&BattleState) -> bool) -> Vec<Event> {
    let mut out = Vec::new();
    for _ in 0..500 {
        if stop(b) {
            return out;
        }
        let Some(cmd) = passive(b) else { return out };
        out.extend(run(b, cmd));
    }
    panic!("never got there; at {:?}", b.pending());
}

fn fired(events: &[Event]) -> Vec<usize> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Scripted(Scripted::Fired { event }) => Some(*event),
            _ => None,
        })
        .collect()
}

fn messages(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Scripted(Scripted::Message { text }) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_round_event_fires_once_as_its_round_begins() {
    for &id in RulesetId::ALL {
        let f = field(
            id,
            r#"(when: Round(3), then: [Message("Horns on the hill")])"#,
        );
        let (mut b, opening) = f.start(1);
        assert!(fired(&opening).is_empty(), "{id}");
        let before = until(&mut b, |b| b.round >= 2);
        assert!(fired(&before).is_empty(), "{id}: fired before round 3");
        let mut events = until(&mut b, |b| b.round >= 3);
        assert_eq!(messages(&events), ["Horns on the hill"], "{id}");
        // It fired in the command that began round 3, after the round began.
        let start = events
            .iter()
            .position(|e| matches!(e, Event::RoundStarted { round: 3 }))
            .expect("round 3 began");
        let at = events
            .iter()
            .position(|e| matches!(e, Event::Scripted(Scripted::Fired { .. })))
            .expect("fired");
        assert!(start < at, "{id}");
        events.extend(until(&mut b, |b| b.round >= 5 || b.outcome.is_some()));
        assert_eq!(fired(&events), [0], "{id}: fires once");
        assert_eq!(b.script.fired, [true]);
        let line = log::describe(&b, &events[at]);
        assert!(line.contains("3 has begun"), "{line}");
    }
}

#[test]
fn an_enters_event_fires_when_its_side_steps_into_the_area_even_passing_through() {
    let id = RulesetId::ActionPoints;
    let column = "Rect(from: (3, 0), to: (3, 4))";
    let f = field(
        id,
        &format!(
            r#"(when: Enters(side: "Foes", area: {column}), then: [Message("foes")]),
               (when: Enters(side: "Heroes", area: {column}), then: [Message("heroes")])"#
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.pending() == Decision::Act { unit: U0 });
    let events = run(&mut b, crate::rules::testkit::mv(U0, 2, 0));
    assert!(fired(&events).is_empty(), "not there yet");
    // Through column 3 to column 4: it passed through the area.
    let events = run(&mut b, crate::rules::testkit::mv(U0, 4, 0));
    assert_eq!(b.units[0].cell, Cell::new(4, 0));
    assert_eq!(fired(&events), [1], "only the Heroes' event");
    assert_eq!(messages(&events), ["heroes"]);
    assert_eq!(b.script.fired, [false, true]);
}

#[test]
fn a_lost_event_counts_units_down_and_fires_once() {
    let id = RulesetId::Sides;
    let t = template(id);
    let f = Field::new(id)
        .units(&format!(
            r#"(name: "A", side: "Heroes", template: "{t}", cell: (0, 0)),
               (name: "B", side: "Foes", template: "{t}", cell: (7, 4)),
               (name: "C", side: "Foes", template: "{t}", cell: (7, 0)),
               (name: "D", side: "Foes", template: "{t}", cell: (7, 2))"#
        ))
        .events(r#"(when: Lost(side: "Foes", units: 2), then: [Message("They waver")])"#);
    let (mut b, _) = f.start(1);
    b.apply(&Event::Status {
        unit: U1,
        status: Status::Down,
    });
    let cmd = passive(&b).expect("a command");
    let events = run(&mut b, cmd);
    assert!(fired(&events).is_empty(), "one lost is not two");
    assert_eq!(script::lost(&b, SideId(1)), 1);
    b.apply(&Event::Status {
        unit: UnitId(2),
        status: Status::Dead,
    });
    let cmd = passive(&b).expect("a command");
    let events = run(&mut b, cmd);
    assert_eq!(messages(&events), ["They waver"]);
    let at = events
        .iter()
        .position(|e| matches!(e, Event::Scripted(Scripted::Fired { .. })))
        .expect("fired");
    let line = log::describe(&b, &events[at]);
    assert_eq!(line, "Event: Foes have lost 2 units");
    let cmd = passive(&b).expect("a command");
    assert!(fired(&run(&mut b, cmd)).is_empty(), "once only");
}

#[test]
fn new_objectives_replace_the_sides_own_and_the_win_check_uses_them() {
    let id = RulesetId::Sides;
    let f = field(
        id,
        r#"(when: Round(2), then: [Objectives(side: "Heroes", victory: [ReachCell(side: "Heroes", cell: (0, 0))])])"#,
    );
    let (mut b, _) = f.start(1);
    assert!(b.level.victory.is_empty());
    let events = until(&mut b, |b| b.outcome.is_some());
    let changed = events
        .iter()
        .find(|e| matches!(e, Event::Scripted(Scripted::Objectives { .. })))
        .expect("objectives changed");
    assert_eq!(
        log::describe(&b, changed),
        "Heroes's objectives change: now to reach (0, 0)"
    );
    // A already stands on (0, 0): the new objective is met at once.
    let o = b.outcome.clone().expect("over");
    assert_eq!(o.winner, Some(SideId(0)));
    assert!(o.reason.contains("reached"), "{}", o.reason);
    assert_eq!(
        b.level.victory,
        [
            Victory::LastSideStanding,
            Victory::ReachCell {
                side: "Heroes".into(),
                cell: (0, 0)
            }
        ]
    );
}

#[test]
fn objectives_of_one_side_leave_the_others_alone() {
    let id = RulesetId::Alternating;
    let f = field(
        id,
        r#"(when: Round(1), then: [Objectives(side: "Foes", victory: [SurviveRounds(side: "Foes", rounds: 9)])])"#,
    );
    let text = f.source().replace(
        "    events:",
        "    victory: [ReachCell(side: \"Heroes\", cell: (5, 2)), SurviveRounds(side: \"Foes\", rounds: 4)],\n    events:",
    );
    let level = crate::rules::level::load("f.ron", &text).expect("loads");
    let (b, _) = BattleState::start(&level, 1);
    assert_eq!(
        b.level.victory,
        [
            Victory::ReachCell {
                side: "Heroes".into(),
                cell: (5, 2)
            },
            Victory::SurviveRounds {
                side: "Foes".into(),
                rounds: 9
            }
        ]
    );
}

#[test]
fn a_reinforcement_on_a_taken_cell_arrives_on_the_nearest_free_one() {
    let id = RulesetId::Sides;
    let f = field(
        id,
        &format!(
            "(when: Round(1), then: [Reinforcements([{}, {}])])",
            unit(id, "R1", "Heroes", (0, 0)),
            unit(id, "R2", "Heroes", (1, 0))
        ),
    );
    let (b, opening) = f.start(1);
    let arrived: Vec<(UnitId, Cell, Cell)> = opening
        .iter()
        .filter_map(|e| match e {
            Event::Scripted(Scripted::Arrived {
                unit, cell, wanted, ..
            }) => Some((*unit, *cell, *wanted)),
            _ => None,
        })
        .collect();
    // (0, 0) is A's: R1 takes (1, 0), the nearest free cell (topmost, then leftmost, of
    // those one step away); then (1, 0) is R1's, so R2 takes (2, 0).
    assert_eq!(
        arrived,
        [
            (UnitId(2), Cell::new(1, 0), Cell::new(0, 0)),
            (UnitId(3), Cell::new(2, 0), Cell::new(1, 0))
        ]
    );
    assert_eq!(b.units.len(), 4);
    assert_eq!(&*b.units[2].name, "R1");
    assert_eq!(b.units[2].side, SideId(0));
    assert_eq!(b.units[2].pool("hp"), b.units[2].stat("hp"));
    let line = opening
        .iter()
        .find(|e| matches!(e, Event::Scripted(Scripted::Arrived { .. })))
        .map(|e| log::describe(&b, e))
        .expect("a line");
    assert_eq!(line, "R1 arrives at (1, 0) for Heroes ((0, 0) is taken)");
    assert_eq!(free_cell_near(&b, Cell::new(0, 0)), Some(Cell::new(0, 1)));
}

#[test]
fn the_nearest_free_cell_is_counted_around_walls_and_none_when_all_is_full() {
    let id = RulesetId::Sides;
    let t = template(id);
    let f = Field::new(id)
        .map(&["..#.", "..#.", "...."])
        .units(&format!(
            r#"(name: "A", side: "Heroes", template: "{t}", cell: (1, 0)),
               (name: "B", side: "Foes", template: "{t}", cell: (3, 0))"#
        ));
    let (b, _) = f.start(1);
    // (3, 0) is taken; (3, 1) is one step away; (1, 0) beyond the wall is not nearer.
    assert_eq!(free_cell_near(&b, Cell::new(3, 0)), Some(Cell::new(3, 1)));
    let tiny = Field::new(id)
        .map(&["..", "##"])
        .units(&format!(
            r#"(name: "A", side: "Heroes", template: "{t}", cell: (0, 0)),
               (name: "B", side: "Foes", template: "{t}", cell: (1, 0))"#
        ))
        .events(&format!(
            "(when: Round(1), then: [Reinforcements([{}])])",
            unit(id, "R", "Heroes", (0, 0))
        ));
    let (b, opening) = tiny.start(1);
    assert_eq!(b.units.len(), 2);
    let e = opening
        .iter()
        .find(|e| matches!(e, Event::Scripted(Scripted::NoRoom { .. })))
        .expect("no room");
    assert_eq!(
        log::describe(&b, e),
        "R cannot arrive: no free cell is left near (0, 0)"
    );
}

#[test]
fn an_arrival_in_an_area_sets_off_that_areas_event_in_the_same_look() {
    let id = RulesetId::Segments;
    let f = field(
        id,
        &format!(
            r#"(when: Enters(side: "Foes", area: Cells([(5, 2)])), then: [Message("they are here")]),
               (when: Round(1), then: [Reinforcements([{}])])"#,
            unit(id, "R", "Foes", (5, 2))
        ),
    );
    let (b, opening) = f.start(1);
    assert_eq!(fired(&opening), [1, 0]);
    assert_eq!(messages(&opening), ["they are here"]);
    assert_eq!(b.units.len(), 3);
}

// --- Each ruleset: a reinforcement joins the turn order as its rules (or house rule) say.

/// Units that started a turn in `events`.
fn turns(events: &[Event]) -> Vec<UnitId> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { unit } => Some(*unit),
            _ => None,
        })
        .collect()
}

#[test]
fn action_points_a_reinforcement_rolls_initiative_and_slots_in_by_its_score_x11() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::action_points::{ActionPoints, Ev};
    let id = RulesetId::ActionPoints;
    let f = field(
        id,
        &format!(
            "(when: Round(2), then: [Reinforcements([{}])])",
            unit(id, "R", "Heroes", (0, 4))
        ),
    );
    let (mut b, _) = f.start(1);
    let order_before = ActionPoints::state(&b).order.clone();
    let events = until(&mut b, |b| b.units.len() == 3);
    let (score, at) = events
        .iter()
        .find_map(|e| match ActionPoints::event_of(e) {
            Some(Ev::Joined { score, at, .. }) => Some((*score, *at)),
            _ => None,
        })
        .expect("joined");
    let r = ActionPoints::state(&b);
    let new = UnitId(2);
    // Its score is 1d6 + its rating, rolled for it.
    let rating = b.units[2].stat("initiative_rating");
    assert!((rating + 1..=rating + 6).contains(&score), "{score}");
    assert_eq!(r.scores.get(new), Some(&score));
    // The order is the old one with R at the place its score gives it.
    let mut expect = order_before.clone();
    expect.insert(at, new);
    assert_eq!(r.order, expect);
    for (i, &v) in r.order.iter().enumerate() {
        let sv = r.scores.get(v).copied().unwrap_or(0);
        if i < at {
            assert!(sv >= score, "{v:?} before R scores {sv} < {score}");
        } else if i > at {
            assert!(sv <= score, "{v:?} after R scores {sv} > {score}");
        }
    }
    assert_eq!(b.units[2].pool("ap"), b.units[2].stat("ap"));
    // It gets its turn, by round 3 at the latest.
    let later = until(&mut b, |b| b.round >= 4 || b.outcome.is_some());
    assert!(turns(&later).contains(&new));
}

#[test]
fn action_points_a_slot_already_passed_waits_for_the_next_round() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::action_points::ActionPoints;
    let id = RulesetId::ActionPoints;
    let f = field(
        id,
        &format!(
            // A huge rating: R's place is first, which has passed in round 1.
            r#"(when: Enters(side: "Heroes", area: Cells([(1, 0)])), then: [Reinforcements([(name: "R", side: "Heroes", template: "{}", cell: (0, 4), overrides: {{"initiative_rating": 50}})])])"#,
            template(id)
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.pending() == Decision::Act { unit: U0 });
    let turn = ActionPoints::state(&b).turn;
    let events = run(&mut b, crate::rules::testkit::mv(U0, 1, 0));
    assert_eq!(b.units.len(), 3);
    let r = ActionPoints::state(&b);
    assert_eq!(r.order[0], UnitId(2), "first by its score");
    assert_eq!(r.turn, turn + 1, "the turn under way stays A's");
    assert_eq!(r.order[r.turn], U0);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    assert!(!turns(&events).contains(&UnitId(2)));
    let rest = until(&mut b, |b| b.round >= 2);
    let round_2 = rest
        .iter()
        .position(|e| matches!(e, Event::RoundStarted { round: 2 }))
        .expect("round 2");
    assert!(
        !turns(&rest[..round_2]).contains(&UnitId(2)),
        "not in round 1"
    );
    assert_eq!(
        turns(&rest[round_2..]).first(),
        Some(&UnitId(2)),
        "first in round 2"
    );
}

#[test]
fn alternating_a_reinforcement_may_be_picked_in_the_round_it_arrives() {
    let id = RulesetId::Alternating;
    let f = field(
        id,
        &format!(
            "(when: Round(2), then: [Reinforcements([{}])])",
            unit(id, "R", "Heroes", (0, 4))
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.units.len() == 3);
    assert_eq!(b.round, 2);
    assert_eq!(b.units[2].pool("reactions"), 1);
    let events = until(&mut b, |b| b.round >= 3 || b.outcome.is_some());
    assert!(turns(&events).contains(&UnitId(2)), "R acted in round 2");
    use crate::rules::rulesets::Member;
    let r = crate::rules::rulesets::alternating::Alternating::state(&b);
    assert_eq!(r.attacks.len(), 3);
}

#[test]
fn phases_a_reinforcement_takes_its_place_by_cv_and_acts_when_its_place_comes() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::phases::{Ev, Phases};
    let id = RulesetId::Phases;
    // A strong newcomer (first in the order) arriving mid-Phase: its place has passed.
    let f = field(
        id,
        &format!(
            r#"(when: Enters(side: "Heroes", area: Cells([(1, 0)])), then: [Reinforcements([(name: "R", side: "Heroes", template: "{}", cell: (0, 4), overrides: {{"cv": 20}})])])"#,
            template(id)
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.pending() == Decision::Act { unit: U0 });
    let phase = Phases::state(&b).phase;
    let events = run(&mut b, crate::rules::testkit::mv(U0, 1, 0));
    let joined = events
        .iter()
        .find_map(|e| match Phases::event_of(e) {
            Some(Ev::Joined {
                at, done, score, ..
            }) => Some((*at, *done, *score)),
            _ => None,
        })
        .expect("joined");
    assert_eq!(joined.0, 0, "first in the order");
    assert!(joined.1, "its place in this Phase has passed");
    assert_eq!(joined.2, 20 + b.units[2].stat("lightning_reflexes"));
    let r = Phases::state(&b);
    assert_eq!(r.order[0], UnitId(2));
    assert_eq!(r.done.get(UnitId(2)), Some(&true));
    // It acts first in the next Phase.
    let next = until(&mut b, |b| Phases::state(b).phase != phase);
    let after = until(&mut b, |b| matches!(b.pending(), Decision::Act { .. }));
    let _ = next;
    assert_eq!(b.pending(), Decision::Act { unit: UnitId(2) }, "{after:?}");
}

#[test]
fn phases_a_reinforcement_whose_place_is_still_to_come_acts_this_phase() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::phases::{Ev, Phases};
    let id = RulesetId::Phases;
    let f = field(
        id,
        &format!(
            r#"(when: Enters(side: "Heroes", area: Cells([(1, 0)])), then: [Reinforcements([(name: "R", side: "Heroes", template: "{}", cell: (0, 4), overrides: {{"cv": 0}})])])"#,
            template(id)
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.pending() == Decision::Act { unit: U0 });
    let phase = Phases::state(&b).phase;
    let events = run(&mut b, crate::rules::testkit::mv(U0, 1, 0));
    let (at, done) = events
        .iter()
        .find_map(|e| match Phases::event_of(e) {
            Some(Ev::Joined { at, done, .. }) => Some((*at, *done)),
            _ => None,
        })
        .expect("joined");
    assert_eq!(at, 2, "last: the weakest");
    assert!(!done);
    let rest = until(&mut b, |b| Phases::state(b).phase != phase);
    assert!(
        turns(&rest).contains(&UnitId(2)),
        "R acted in the same Phase"
    );
}

#[test]
fn segments_a_reinforcement_arriving_as_a_round_begins_declares_and_acts_in_it() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::segments::{Ev, Segments};
    let id = RulesetId::Segments;
    let f = field(
        id,
        &format!(
            "(when: Round(2), then: [Reinforcements([{}])])",
            unit(id, "R", "Heroes", (0, 4))
        ),
    );
    let (mut b, _) = f.start(1);
    let events = until(&mut b, |b| b.units.len() == 3);
    let ready = events
        .iter()
        .find_map(|e| match Segments::event_of(e) {
            Some(Ev::Joined { ready, .. }) => Some(*ready),
            _ => None,
        })
        .expect("joined");
    assert!(ready, "declarations are under way");
    // The passive player declares Hold for everyone: R's declaration is asked for.
    let declared = |events: &[Event]| {
        events.iter().any(|e| {
            matches!(Segments::event_of(e), Some(Ev::Declared { unit, .. }) if *unit == UnitId(2))
        })
    };
    let rest = until(&mut b, |b| b.round >= 3 || b.outcome.is_some());
    assert!(declared(&rest), "R declared in round 2");
    // Mid-round, it waits for the next round's declarations: A and C both Run, A moves into
    // the area in its turn, and C's turn is still to come in the same segment.
    let t = template(id);
    let f = Field::new(id)
        .units(&format!(
            r#"(name: "A", side: "Heroes", template: "{t}", cell: (0, 0)),
               (name: "B", side: "Foes", template: "{t}", cell: (7, 4)),
               (name: "C", side: "Heroes", template: "{t}", cell: (0, 2))"#
        ))
        .events(&format!(
            r#"(when: Enters(side: "Heroes", area: Cells([(1, 0)])), then: [Reinforcements([{}])])"#,
            unit(id, "R", "Heroes", (0, 4))
        ));
    let (mut b, _) = f.start(1);
    let r = UnitId(3);
    for _ in 0..100 {
        match b.pending() {
            Decision::Act { unit: U0 } => break,
            Decision::Declare { unit, .. } if unit != U1 => {
                run(
                    &mut b,
                    Command::Declare {
                        unit,
                        intent: Intent::Run,
                    },
                );
            }
            _ => {
                let c = passive(&b).expect("a command");
                run(&mut b, c);
            }
        }
    }
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    let round = b.round;
    let events = run(&mut b, crate::rules::testkit::mv(U0, 1, 0));
    assert_eq!(b.units.len(), 4);
    assert!(
        events
            .iter()
            .any(|e| matches!(Segments::event_of(e), Some(Ev::Joined { ready: false, .. })))
    );
    assert_eq!(b.round, round);
    let rest = until(&mut b, |b| b.round > round);
    assert!(
        !turns(&rest).contains(&r),
        "no turn in the round it arrived"
    );
    let declared = |events: &[Event]| {
        events
            .iter()
            .any(|e| matches!(Segments::event_of(e), Some(Ev::Declared { unit, .. }) if *unit == r))
    };
    assert!(!declared(&rest));
    let next = until(&mut b, |b| b.round > round + 1 || b.outcome.is_some());
    assert!(declared(&next), "it declares in the next one");
}

#[test]
fn sides_a_reinforcement_is_picked_with_its_side_this_round_or_the_next() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::sides::Sides;
    let id = RulesetId::Sides;
    let f = field(
        id,
        &format!(
            "(when: Round(2), then: [Reinforcements([{}])])",
            unit(id, "R", "Heroes", (0, 4))
        ),
    );
    let (mut b, _) = f.start(1);
    until(&mut b, |b| b.units.len() == 3);
    let per = crate::rules::rulesets::sides::per(Sides::state(&b), UnitId(2)).clone();
    assert!(per.main && per.mv && !per.acted);
    let heroes_turn_passed = {
        let r = Sides::state(&b);
        let sides = crate::rules::rulesets::sides::turns::round_sides(&b);
        sides.iter().position(|&s| s == SideId(0)) < Some(r.side_turn)
    };
    let events = until(&mut b, |b| b.round >= 3 || b.outcome.is_some());
    assert_eq!(
        turns(&events).contains(&UnitId(2)),
        !heroes_turn_passed,
        "picked in round 2 exactly when the Heroes' turn had not passed"
    );
    let next = until(&mut b, |b| b.round >= 4 || b.outcome.is_some());
    assert!(turns(&next).contains(&UnitId(2)));
}

// --- Whole battles

#[test]
fn random_play_with_reinforcements_in_every_ruleset_stays_legal_and_replays() {
    for &id in RulesetId::ALL {
        let f = field(
            id,
            &format!(
                r#"(when: Round(2), then: [Message("Round two"), Reinforcements([{}, {}])]),
                   (when: Lost(side: "Heroes", units: 1), then: [Reinforcements([{}])]),
                   (when: Enters(side: "Foes", area: Rect(from: (0, 0), to: (3, 4))), then: [Objectives(side: "Heroes", victory: [SurviveRounds(side: "Heroes", rounds: 6)])])"#,
                unit(id, "R1", "Heroes", (0, 2)),
                unit(id, "R2", "Foes", (7, 2)),
                unit(id, "R3", "Heroes", (0, 0))
            ),
        );
        let level = f.level();
        for seed in 1..=4 {
            let (b, commands, events) = random_play(&level, seed, 400);
            let (mut again, mut replayed) = BattleState::start(&level, seed);
            for c in &commands {
                replayed.extend(again.execute(c).expect("replays"));
            }
            assert_eq!(events, replayed, "{id} seed {seed}");
            assert_eq!(
                ron::to_string(&b).expect("ron"),
                ron::to_string(&again).expect("ron")
            );
            // Every unit that arrived has its ruleset's books.
            for u in b.unit_ids() {
                let _ = rulesets::clock(&b);
                let _ = rulesets::describe(&b, &Command::EndTurn { unit: u });
            }
        }
    }
}

#[test]
fn fog_of_war_learns_of_reinforcements() {
    let id = RulesetId::Sides;
    let f = field(
        id,
        &format!(
            "(when: Round(1), then: [Reinforcements([{}])])",
            unit(id, "R", "Foes", (7, 0))
        ),
    )
    .options("fog: (sight: 3)");
    let (b, _) = f.start(1);
    assert_eq!(b.units.len(), 3);
    // Far from A: the Heroes do not see R; the Foes do.
    assert!(!crate::rules::fog::visible(&b, SideId(0), UnitId(2)));
    assert!(crate::rules::fog::visible(&b, SideId(1), UnitId(2)));
    let mut view = b.clone();
    rulesets::redact(&mut view, SideId(0));
    let _ = view.legal_commands();
}

#[test]
fn a_sides_view_knows_nothing_of_events_to_come() {
    let id = RulesetId::Sides;
    let f = field(
        id,
        &format!(
            "(when: Round(2), then: [Reinforcements([{}])])",
            unit(id, "R", "Foes", (7, 0))
        ),
    );
    let (b, _) = f.start(1);
    let mut view = b.clone();
    rulesets::redact(&mut view, SideId(0));
    assert!(view.level.events.is_empty());
    assert_eq!(b.level.events.len(), 1, "the battle itself keeps them");
    // Played on to round 2, the view brings no one; the battle does.
    let mut real = b.clone();
    until(&mut view, |b| b.round >= 2 || b.outcome.is_some());
    until(&mut real, |b| b.round >= 2 || b.outcome.is_some());
    assert_eq!(view.units.len(), 2);
    assert_eq!(real.units.len(), 3);
}
