//! Fog of war: who sees whom, what a side's view keeps, and that nothing a side is offered or
//! told gives away a foe it does not see.

use super::*;
use crate::rules::battle::{Decision, Event, SideId};
use crate::rules::rulesets::{self, RulesetId};
use crate::rules::testkit::*;

const PARTY: SideId = SideId(0);
const FOES: SideId = SideId(1);

/// A wall down column 3, open on the bottom row; Aldric (Party) at (1, 4) sees along the
/// bottom row, Hruk (Foes) deploys at `hruk`.
fn walled(hruk: (i32, i32), options: &str) -> BattleState {
    let units = format!(
        r#"(name: "Aldric", side: "Party", cell: (1, 4), template: "warrior"),
           (name: "Hruk", side: "Foes", cell: ({}, {}), template: "reaver")"#,
        hruk.0, hruk.1
    );
    // Party first (5 against 2), so Aldric, alone, acts.
    BattleState::start_with_tape(
        &Field::new(RulesetId::Sides)
            .topology("Square(diagonals: One)")
            .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
            .map(&["...#....", "...#....", "...#....", "...#....", "........"])
            .units(&units)
            .options(options)
            .level(),
        1,
        [5, 2],
    )
    .0
}

fn place(b: &mut BattleState, unit: UnitId, x: i32, y: i32) {
    b.apply(&Event::Placed {
        unit,
        to: Cell::new(x, y),
    });
}

#[test]
fn a_side_sees_its_own_and_the_foes_in_its_units_sight_and_remembers_where() {
    let mut b = walled((6, 0), "fog: ()");
    assert!(hidden(&b, PARTY, U1), "behind the wall");
    assert!(!hidden(&b, FOES, U1), "a side always sees its own");
    let k = b.fog.clone().expect("fogged");
    assert_eq!(
        k.last_seen(PARTY, U1),
        Some(Cell::new(6, 0)),
        "deployment is known"
    );
    place(&mut b, U1, 6, 4);
    assert!(!hidden(&b, PARTY, U1), "in the open row");
    place(&mut b, U1, 6, 1);
    assert!(hidden(&b, PARTY, U1));
    let k = b.fog.clone().expect("fogged");
    assert_eq!(k.last_seen(PARTY, U1), Some(Cell::new(6, 4)), "last seen");
    // Without the option, everyone sees everyone.
    let b = walled((6, 0), "");
    assert!(b.fog.is_none());
    assert!(!hidden(&b, PARTY, U1));
}

#[test]
fn a_dark_place_limits_sight_to_its_range() {
    let mut b = walled((6, 4), "fog: (sight: 3)");
    assert!(hidden(&b, PARTY, U1), "5 steps in the dark");
    place(&mut b, U1, 4, 4);
    assert!(!hidden(&b, PARTY, U1), "3 steps");
    assert!(!hidden(&b, FOES, U0), "sight is mutual");
}

#[test]
fn a_view_keeps_a_hidden_foe_where_it_was_last_seen_unless_that_cell_is_seen_empty() {
    let mut b = walled((6, 0), "fog: ()");
    place(&mut b, U1, 6, 1);
    // Last seen at deployment, (6, 0), which Aldric does not see: a ghost there.
    let mut view = b.clone();
    rulesets::redact(&mut view, PARTY);
    let k = view.fog.clone().expect("fogged");
    assert!(k.is_ghost(U1) && !k.is_unknown(U1));
    assert_eq!(view.units[1].cell, Cell::new(6, 0));
    assert_eq!(view.victory_check(), None);
    // Seen on the open row, then gone behind the wall: its last cell is in sight and empty,
    // so the view does not know where it is, and guesses it on the nearest cell out of sight:
    // (4, 2), two steps from (6, 4) (its real cell, (6, 1), is three).
    place(&mut b, U1, 6, 4);
    place(&mut b, U1, 6, 1);
    let mut view = b.clone();
    rulesets::redact(&mut view, PARTY);
    let k = view.fog.clone().expect("fogged");
    assert!(k.is_unknown(U1) && !k.is_ghost(U1));
    assert!(!visible(&view, PARTY, U1), "the game does not draw a guess");
    assert_eq!(view.units[1].cell, Cell::new(4, 2));
    assert_eq!(view.units[1].status, Status::Active);
    assert_eq!(view.victory_check(), None);
    // The side's own view shows everything of its own.
    let mut own = b.clone();
    rulesets::redact(&mut own, FOES);
    assert_eq!(own.units[1].cell, Cell::new(6, 1));
    // A view does not track: moving a unit in it changes no knowledge.
    place(&mut view, U0, 5, 2);
    assert!(view.fog.as_ref().is_some_and(|k| k.is_unknown(U1)));
}

fn hurt(b: &mut BattleState, unit: UnitId, hp: i64) {
    let was = b.units[unit.index()].pool("hp");
    b.apply(&Event::Pool {
        unit,
        pool: "hp".into(),
        delta: hp - was,
        value: hp,
    });
}

#[test]
fn a_view_shows_a_foe_out_of_sight_as_it_was_last_seen_not_as_it_is() {
    let mut b = walled((6, 0), "fog: ()");
    let full = b.units[1].pool("hp");
    assert!(full > 3, "the reaver starts with its hit points: {full}");
    let view_of = |b: &BattleState| {
        let mut v = b.clone();
        rulesets::redact(&mut v, PARTY);
        v
    };
    // Hurt out of sight (behind the wall): the Party's view keeps it whole.
    hurt(&mut b, U1, full - 1);
    assert_eq!(view_of(&b).units[1].pool("hp"), full, "as deployed");
    // Seen on the open row: as it is; hurt there: seen hurt.
    place(&mut b, U1, 6, 4);
    assert_eq!(view_of(&b).units[1].pool("hp"), full - 1);
    hurt(&mut b, U1, 2);
    assert_eq!(view_of(&b).units[1].pool("hp"), 2);
    // Gone behind the wall, then fallen there: the view keeps it standing with 2.
    place(&mut b, U1, 6, 1);
    hurt(&mut b, U1, 0);
    b.apply(&Event::Status {
        unit: U1,
        status: Status::Down,
    });
    b.apply(&Event::Condition {
        unit: U1,
        condition: Condition::Prone,
        on: true,
    });
    let v = view_of(&b);
    assert_eq!(v.units[1].pool("hp"), 2);
    assert_eq!(v.units[1].status, Status::Active);
    assert!(!v.units[1].is_prone());
    // Its own side sees it as it is.
    let mut own = b.clone();
    rulesets::redact(&mut own, FOES);
    assert_eq!(own.units[1].status, Status::Down);
    assert_eq!(own.units[1].pool("hp"), 0);
}

#[test]
fn the_commands_offered_are_the_same_wherever_a_hidden_foe_stands() {
    // Hruk hidden at two places behind the wall: Aldric is offered exactly the same moves.
    let mut a = walled((6, 0), "fog: ()");
    let mut b = walled((6, 0), "fog: ()");
    place(&mut a, U1, 5, 1);
    place(&mut b, U1, 4, 1);
    assert!(hidden(&a, PARTY, U1) && hidden(&b, PARTY, U1));
    assert_eq!(a.pending(), Decision::Act { unit: U0 });
    assert_eq!(a.legal_commands(), b.legal_commands());
    assert!(
        a.legal_commands().contains(&Command::Move {
            unit: U0,
            to: Cell::new(5, 1)
        }),
        "the hidden foe's cell is offered like any empty one"
    );
    // Without fog the foe's cell is not offered.
    let mut open = walled((6, 0), "");
    place(&mut open, U1, 5, 1);
    assert!(!open.legal_commands().contains(&Command::Move {
        unit: U0,
        to: Cell::new(5, 1)
    }));
}

#[test]
fn a_move_into_a_hidden_foe_stops_before_it_and_reveals_it() {
    // Hruk stays where he deployed, which the Party knows: seeing him there on the way is no
    // news (no stop), so the move runs on into him.
    let mut b = walled((5, 1), "fog: ()");
    assert!(hidden(&b, PARTY, U1));
    // Around the wall's end and up to (5, 1): the last step is into Hruk.
    let events = run(&mut b, mv(U0, 5, 1));
    let blocked: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Blocked { .. }))
        .collect();
    assert_eq!(blocked.len(), 1, "{events:?}");
    assert!(matches!(
        blocked[0],
        Event::Blocked { unit: U0, by: U1, at } if *at == Cell::new(5, 1)
    ));
    assert_ne!(b.units[0].cell, b.units[1].cell, "never two on a cell");
    assert_eq!(b.grid().distance_steps(b.units[0].cell, b.units[1].cell), 1);
    assert!(!hidden(&b, PARTY, U1), "seen now");
    assert!(crate::rules::battle::log::describe(&b, blocked[0]).contains("runs into Hruk"));
}

#[test]
fn a_hidden_foe_cannot_be_aimed_at_and_the_refusal_changes_nothing() {
    let mut b = walled((6, 0), "fog: ()");
    place(&mut b, U1, 4, 1);
    assert!(hidden(&b, PARTY, U1));
    assert!(
        !b.legal_commands()
            .iter()
            .any(|c| c.anchor().unit == Some(U1))
    );
    reject(&mut b, shoot(U0, U1), "out of its side's sight");
}

#[test]
fn the_log_leaves_out_for_a_side_what_it_does_not_see() {
    let mut b = walled((6, 0), "fog: ()");
    let step = Event::Moved {
        unit: U1,
        from: Cell::new(6, 0),
        to: Cell::new(6, 1),
    };
    b.apply(&step);
    assert!(!shows(&b, &step, PARTY));
    assert!(shows(&b, &step, FOES));
    let seen = Event::Moved {
        unit: U1,
        from: Cell::new(6, 3),
        to: Cell::new(6, 4),
    };
    b.apply(&seen);
    assert!(shows(&b, &seen, PARTY));
}

#[test]
fn the_board_fogs_the_cells_no_unit_of_the_side_sees() {
    let b = walled((6, 0), "fog: (sight: 4)");
    let cells = seen_cells(&b, PARTY);
    assert_eq!(cells.get(Cell::new(5, 4)), Some(&true));
    assert_eq!(cells.get(Cell::new(6, 4)), Some(&false), "5 steps: too far");
    assert_eq!(cells.get(Cell::new(4, 0)), Some(&false), "behind the wall");
    for c in b.grid().cells() {
        let expected = sees(&b.terrain, Some(4), Cell::new(1, 4), c);
        assert_eq!(cells.get(c), Some(&expected), "{c}");
    }
}

#[test]
fn a_fog_sight_of_zero_is_an_error_where_it_stands() {
    let text = Field::new(RulesetId::Sides)
        .units(
            r#"(name: "A", side: "Heroes", template: "warrior", cell: (1, 1)),
               (name: "B", side: "Foes", template: "warrior", cell: (6, 3))"#,
        )
        .options("fog: (sight: 0)")
        .source();
    let err = crate::rules::level::load("dark.ron", &text).expect_err("sight 0");
    let shown = format!("{err:?}");
    assert!(shown.contains("options.fog.sight is 0"), "{shown}");
    let line = text
        .lines()
        .position(|l| l.contains("sight: 0"))
        .expect("the line")
        + 1;
    assert!(shown.contains(&format!("line: {line}")), "{shown}");
}

/// S-125: in the dark, an archer may shoot a foe its side sees (through an ally's eyes) but it
/// does not, at -4; a foe no one of its side sees cannot be shot at all (S-126).
#[test]
fn an_archer_shoots_at_minus_4_a_foe_only_an_ally_sees_in_the_dark() {
    let level = |options: &str| {
        Field::new(RulesetId::Sides)
            .topology("Square(diagonals: One)")
            .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
            .map(&["............"; 3])
            .units(
                r#"(name: "Mira", side: "Party", cell: (0, 1), template: "archer"),
                   (name: "Aldric", side: "Party", cell: (5, 1), template: "warrior"),
                   (name: "Hruk", side: "Foes", cell: (8, 1), template: "reaver")"#,
            )
            .options(options)
            .level()
    };
    let unseen = |events: &[Event]| {
        events.iter().any(|e| match e {
            Event::Reckoned { terms, .. } => terms
                .iter()
                .any(|t| t.label == "unseen target" && t.value == -4),
            _ => false,
        })
    };
    let shot = |options: &str| {
        let (mut b, _) = BattleState::start_with_tape(&level(options), 1, [5, 2]);
        run(&mut b, pick(U0));
        (b.execute(&shoot(U0, U2)), b)
    };
    // Sight 4: Aldric sees Hruk (3 steps), Mira (8 steps) does not.
    let (events, b) = shot("fog: (sight: 4)");
    assert!(!hidden(&b, PARTY, U2));
    assert!(unseen(&events.expect("the shot is allowed")));
    // No fog, or fog without a sight range: Mira sees Hruk, no penalty.
    assert!(!unseen(&shot("").0.expect("shot")));
    assert!(!unseen(&shot("fog: ()").0.expect("shot")));
    // Sight 2: no one of the Party sees Hruk: no shot.
    let (refused, _) = shot("fog: (sight: 2)");
    assert!(refused.is_err_and(|r| r.reason.contains("out of its side's sight")));
}

/// The steps of `events`, and whether one is a [`Event::Spotted`].
fn steps_and_spots(events: &[Event]) -> (usize, Vec<&Event>) {
    let steps = events
        .iter()
        .filter(|e| matches!(e, Event::Moved { .. }))
        .count();
    let spots = events
        .iter()
        .filter(|e| matches!(e, Event::Spotted { .. }))
        .collect();
    (steps, spots)
}

#[test]
fn a_move_that_first_sees_a_foe_stops_on_that_step_and_says_so() {
    // Hruk slipped from where he deployed to (5, 1), behind the wall: the Party does not know.
    let mut b = walled((6, 0), "fog: ()");
    place(&mut b, U1, 5, 1);
    assert!(hidden(&b, PARTY, U1));
    let events = run(&mut b, mv(U0, 6, 4));
    let (steps, spots) = steps_and_spots(&events);
    assert_eq!(
        spots,
        [&Event::Spotted {
            unit: U0,
            foe: U1,
            at: Cell::new(5, 1)
        }],
        "{events:?}"
    );
    // The first cell of the way (straight along the bottom row) from which Hruk is in sight,
    // past the wall's end, and not one step further.
    let here = b.units[0].cell;
    assert_eq!((steps, here), (1, Cell::new(2, 4)), "{events:?}");
    assert!(sees(&b.terrain, None, here, Cell::new(5, 1)));
    assert!(!sees(&b.terrain, None, Cell::new(1, 4), Cell::new(5, 1)));
    assert!(!hidden(&b, PARTY, U1), "seen now");
    assert_eq!(
        crate::rules::battle::log::describe(&b, spots[0]),
        "Aldric spots Hruk at (5, 1) and stops"
    );
    assert!(shows(&b, spots[0], PARTY) && shows(&b, spots[0], FOES));
    // The move is paid as a whole, as one that runs into a hidden foe: the same Move action
    // as the whole walk costs where no foe stands in the way; the main action is left.
    let mut clear = walled((6, 0), "fog: ()");
    let whole = run(&mut clear, mv(U0, 6, 4));
    assert_eq!(clear.units[0].cell, Cell::new(6, 4));
    let paid = |e: &[Event]| e.first().cloned();
    assert_eq!(paid(&events), paid(&whole));
    assert_eq!(
        b.pending(),
        Decision::Act { unit: U0 },
        "Aldric may still act"
    );
}

#[test]
fn a_move_that_sees_only_foes_it_knows_of_goes_on() {
    // A foe in sight already: the open bottom row.
    let mut b = walled((6, 0), "fog: ()");
    place(&mut b, U1, 7, 3);
    assert!(!hidden(&b, PARTY, U1));
    let events = run(&mut b, mv(U0, 6, 4));
    assert_eq!(steps_and_spots(&events), (5, vec![]), "{events:?}");
    assert_eq!(b.units[0].cell, Cell::new(6, 4));
    // A foe out of sight where its side last saw it (where it deployed): a ghost in place.
    let mut b = walled((5, 1), "fog: ()");
    assert!(hidden(&b, PARTY, U1));
    let events = run(&mut b, mv(U0, 6, 4));
    assert_eq!(steps_and_spots(&events), (5, vec![]), "{events:?}");
    assert!(!hidden(&b, PARTY, U1), "seen on the way");
    // Without fog nothing stops the move.
    let mut b = walled((6, 0), "");
    place(&mut b, U1, 5, 1);
    let events = run(&mut b, mv(U0, 6, 4));
    assert_eq!(steps_and_spots(&events), (5, vec![]), "{events:?}");
}

/// `segments` counts the squares a move walked (a runner that ran too far may not attack): a
/// move cut short by a foe it spots counts only the squares up to there.
#[test]
fn in_segments_a_move_cut_short_by_a_spotted_foe_counts_only_the_squares_walked() {
    use crate::rules::battle::Intent;
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::segments::Segments;
    let level = Field::new(RulesetId::Segments)
        .topology("Square(diagonals: One)")
        .sides(r#"(name: "Party", controller: Human), (name: "Orcs", controller: Ai)"#)
        .map(&["...#....", "...#....", "...#....", "...#....", "........"])
        .units(
            r#"(name: "Garrick", side: "Party", cell: (1, 4), template: "fighter"),
               (name: "Orc", side: "Orcs", cell: (6, 0), template: "fighter")"#,
        )
        .options(r#"fog: (), alerted: ["Party", "Orcs"]"#)
        .level();
    let moved = |b: &BattleState| Segments::state(b).current.as_ref().and_then(|t| t.moved);
    let start = || {
        let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
        for (u, intent) in [(U0, Intent::Run), (U1, Intent::Hold)] {
            run(&mut b, Command::Declare { unit: u, intent });
        }
        assert_eq!(b.pending(), Decision::Act { unit: U0 });
        b
    };
    let mut b = start();
    place(&mut b, U1, 5, 1);
    let events = run(&mut b, mv(U0, 7, 4));
    let (steps, spots) = steps_and_spots(&events);
    assert_eq!((steps, spots.len()), (1, 1), "{events:?}");
    assert_eq!(b.units[0].cell, Cell::new(2, 4));
    // (The turn may have passed on; the Party's memo keeps the move.)
    let memo_moved = moved(&b);
    assert!(memo_moved.is_none_or(|m| m == 1), "{memo_moved:?}");
    assert!(
        events.iter().any(|e| Segments::event_of(e)
            == Some(&crate::rules::rulesets::segments::Ev::MoveDone { unit: U0, cost: 1 })),
        "{events:?}"
    );
    // The whole run, with no one in the way, counts its 6 squares.
    let mut b = start();
    let events = run(&mut b, mv(U0, 7, 4));
    assert!(
        events.iter().any(|e| Segments::event_of(e)
            == Some(&crate::rules::rulesets::segments::Ev::MoveDone { unit: U0, cost: 6 })),
        "{events:?}"
    );
}
