//! Doors in every ruleset: offered when next to one, blocking while shut, opened and shut at
//! each ruleset's price, refused with a reason (and nothing changed) when they cannot be.

use crate::rules::battle::{Action, Command, Decision, Event};
use crate::rules::grid::Cell;
use crate::rules::map::Door;
use crate::rules::rulesets::{Member, RulesetId, sides};
use crate::rules::testkit::{Field, U0, run, to_hero};

/// A wall down column 2 with a door at (2, 2); the hero at (1, 2), the foe far off at (6, 2).
fn field(ruleset: RulesetId, template: &str, door: char) -> Field {
    let row = |c: char| format!("..{c}.....");
    let map = [row('#'), row('#'), row(door), row('#'), row('#')];
    let rows: Vec<&str> = map.iter().map(String::as_str).collect();
    Field::new(ruleset).map(&rows).units(&format!(
        r#"(name: "Hero", side: "Heroes", cell: (1, 2), template: "{template}"),
           (name: "Foe", side: "Foes", cell: (6, 2), template: "{template}")"#
    ))
}

const DOOR: Cell = Cell::new(2, 2);

const RULESETS: [(RulesetId, &str); 5] = [
    (RulesetId::Phases, "swordsman"),
    (RulesetId::Sides, "warrior"),
    (RulesetId::Segments, "fighter"),
    (RulesetId::Alternating, "spear_warden"),
    (RulesetId::ActionPoints, "fighter"),
];

fn open() -> Command {
    Command::Act {
        unit: U0,
        action: Action::OpenDoor { cell: DOOR },
    }
}

fn shut() -> Command {
    Command::Act {
        unit: U0,
        action: Action::CloseDoor { cell: DOOR },
    }
}

#[test]
fn a_closed_door_blocks_until_opened_and_opens_in_every_ruleset() {
    for (ruleset, template) in RULESETS {
        let (mut b, _) = field(ruleset, template, 'D').start(1);
        to_hero(&mut b);
        let legal = b.legal_commands();
        assert!(legal.contains(&open()), "{ruleset}: {legal:?}");
        assert!(!legal.contains(&shut()), "{ruleset}");
        // Nothing beyond the wall can be reached while the door is shut.
        assert!(
            !legal
                .iter()
                .any(|c| matches!(c, Command::Move { to, .. } if to.x > 2)),
            "{ruleset}: {legal:?}"
        );
        assert!(
            !b.can_see(U0, crate::rules::testkit::U1),
            "{ruleset}: seen through a shut door"
        );
        let events = run(&mut b, open());
        assert!(
            events.contains(&Event::Door {
                unit: U0,
                cell: DOOR,
                open: true
            }),
            "{ruleset}: {events:?}"
        );
        assert_eq!(b.terrain.door(DOOR), Some(Door::Open), "{ruleset}");
        assert!(b.terrain.passable(DOOR), "{ruleset}");
        assert!(b.can_see(U0, crate::rules::testkit::U1), "{ruleset}");
        // The log says it in words.
        let line = crate::rules::battle::log::describe(&b, &events[events.len() - 1]);
        assert!(line.contains("opens the door at"), "{ruleset}: {line}");
    }
}

#[test]
fn a_door_costs_each_rulesets_price() {
    // sides: a Move action (house rule) — the Main action is left.
    let (mut b, _) = field(RulesetId::Sides, "warrior", 'D').start(1);
    to_hero(&mut b);
    run(&mut b, open());
    let p = sides::per(sides::Sides::state(&b), U0);
    assert_eq!(
        (p.main, p.mv),
        (true, false),
        "sides: main, move after a door"
    );
    // alternating: one action (A-56 Interact).
    let (mut b, _) = field(RulesetId::Alternating, "spear_warden", 'D').start(1);
    to_hero(&mut b);
    let before = b.units[0].pool("actions");
    run(&mut b, open());
    assert_eq!(b.units[0].pool("actions"), before - 1, "alternating");
    // action-points: 1 AP (house rule).
    let (mut b, _) = field(RulesetId::ActionPoints, "fighter", 'D').start(1);
    to_hero(&mut b);
    let before = b.units[0].pool("ap");
    run(&mut b, open());
    assert_eq!(b.units[0].pool("ap"), before - 1, "action-points");
    // phases: a move action (P-76): one of the Phase's two half-phase actions is left, so
    // the hero may still walk through, but no more than half its move.
    let (mut b, _) = field(RulesetId::Phases, "swordsman", 'D').start(1);
    to_hero(&mut b);
    run(&mut b, open());
    assert_eq!(b.pending(), Decision::Act { unit: U0 }, "phases");
    assert!(
        b.legal_commands()
            .iter()
            .any(|c| matches!(c, Command::Move { to, .. } if to.x > 2)),
        "phases: walks through after opening"
    );
    assert!(b.legal_commands().contains(&shut()), "phases");
    // segments: the turn's move (house rule): no walking through this turn.
    let (mut b, _) = field(RulesetId::Segments, "fighter", 'D').start(1);
    to_hero(&mut b);
    run(&mut b, open());
    let moves = b
        .legal_commands()
        .iter()
        .any(|c| matches!(c, Command::Move { unit, .. } if *unit == U0));
    assert!(!moves, "segments: a door takes the turn's move");
}

#[test]
fn a_locked_door_is_never_offered_and_refused_with_a_reason() {
    for (ruleset, template) in RULESETS {
        let (mut b, _) = field(ruleset, template, 'L').start(1);
        to_hero(&mut b);
        assert!(!b.legal_commands().contains(&open()), "{ruleset}");
        let before = format!("{b:?}");
        let err = b.execute(&open()).expect_err("locked");
        assert!(err.to_string().contains("locked"), "{ruleset}: {err}");
        assert_eq!(
            format!("{b:?}"),
            before,
            "{ruleset}: a refusal changed the battle"
        );
    }
}

#[test]
fn an_open_door_is_shut_unless_someone_stands_in_it() {
    for (ruleset, template) in RULESETS {
        let (mut b, _) = field(ruleset, template, 'd').start(1);
        to_hero(&mut b);
        assert!(b.terrain.passable(DOOR), "{ruleset}");
        assert!(b.legal_commands().contains(&shut()), "{ruleset}");
        run(&mut b, shut());
        assert_eq!(b.terrain.door(DOOR), Some(Door::Closed), "{ruleset}");
        assert!(!b.terrain.passable(DOOR), "{ruleset}");
    }
    // Someone in the doorway: refused, and why.
    let f = Field::new(RulesetId::Alternating)
        .map(&["..#.....", "..d.....", "..#....."])
        .units(
            r#"(name: "Hero", side: "Heroes", cell: (1, 1), template: "spear_warden"),
               (name: "Foe", side: "Foes", cell: (2, 1), template: "spear_warden")"#,
        );
    let (mut b, _) = f.start(1);
    to_hero(&mut b);
    let cmd = Command::Act {
        unit: U0,
        action: Action::CloseDoor {
            cell: Cell::new(2, 1),
        },
    };
    let err = b.execute(&cmd).expect_err("occupied");
    assert!(err.to_string().contains("stands in the doorway"), "{err}");
}

#[test]
fn a_legend_door_without_a_counterpart_is_a_level_error() {
    let source = field(RulesetId::Sides, "warrior", 'g').source().replace(
        "options: ()",
        "options: (),\n    legend: {'g': (name: \"gate\", cost: None, sight: Opaque, \
             door: Some(Closed))}",
    );
    // The standard legend has an open door, so the gate has a counterpart: it loads, and
    // opening it turns it into the standard open door.
    crate::rules::level::load("gate.ron", &source).expect("the standard open door serves");
    // With the standard open door replaced by a plain floor, it has none.
    let broken = source.replace(
        "door: Some(Closed))}",
        "door: Some(Closed)), 'd': (name: \"floor\")}",
    );
    let err = crate::rules::level::load("gate.ron", &broken).expect_err("no counterpart");
    let text = format!("{}", err[0]);
    assert!(
        text.contains("no glyph of the legend is a door Open"),
        "{text}"
    );
    assert!(text.starts_with("gate.ron:"), "{text}");
}
