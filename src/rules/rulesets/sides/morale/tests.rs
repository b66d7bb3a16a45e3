//! The morale house rule (S-176..S-180) beyond its scenarios: which checks are owed and when,
//! and what a unit that fled can no longer have.

use super::*;
use crate::rules::battle::Action;
use crate::rules::rulesets::RulesetId;
use crate::rules::testkit::{Field, U0, U1, U2, U3, act};

const U4: UnitId = UnitId(4);
const U5: UnitId = UnitId(5);

fn start() -> BattleState {
    // Party: Brann (a sergeant: a leader, heal 1) and Pell beside him. Foes: Sarge (a leader)
    // and three warriors.
    let units = r#"
        (name: "Brann", side: "Party", cell: (0, 2), template: "sergeant"),
        (name: "Pell", side: "Party", cell: (1, 2), template: "warrior"),
        (name: "Sarge", side: "Foes", cell: (5, 0), template: "sergeant"),
        (name: "Cole", side: "Foes", cell: (5, 1), template: "warrior"),
        (name: "Dunn", side: "Foes", cell: (5, 2), template: "warrior"),
        (name: "Ewan", side: "Foes", cell: (5, 3), template: "warrior"),
    "#;
    Field::new(RulesetId::Sides)
        .topology("Square(diagonals: One)")
        .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
        .units(units)
        .start(1)
        .0
}

fn fall(b: &mut BattleState, u: UnitId) {
    b.apply(&Event::Status {
        unit: u,
        status: Status::Down,
    });
}

fn flee_off(b: &mut BattleState, u: UnitId) {
    for e in [Ev::Breaks { unit: u }, Ev::Fled { unit: u }] {
        b.apply(&Sides::event(e));
    }
    fall(b, u);
}

fn owed(b: &BattleState, side: u8) -> Vec<Cause> {
    causes(b, Sides::state(b), SideId(side))
}

/// Half the side lost is one check a battle; each fallen leader is one check; nothing is owed
/// before either.
#[test]
fn the_half_check_is_made_once_and_each_fallen_leader_once() {
    let mut b = start();
    assert_eq!(owed(&b, 1), vec![]);
    fall(&mut b, U3);
    assert_eq!(owed(&b, 1), vec![], "one of four is not half");
    fall(&mut b, U4);
    assert_eq!(owed(&b, 1), vec![Cause::HalfLost]);
    b.apply(&Sides::event(Ev::MoraleCheck {
        side: SideId(1),
        cause: Cause::HalfLost,
    }));
    assert_eq!(owed(&b, 1), vec![], "checked once");
    fall(&mut b, U5);
    assert_eq!(owed(&b, 1), vec![], "not again for a third loss");
    fall(&mut b, U2);
    assert_eq!(owed(&b, 1), vec![Cause::LeaderFell { leader: U2 }]);
    assert_eq!(owed(&b, 0), vec![], "the Party lost no one");
}

/// A unit that fled the map is out of this battle: no first aid brings it back (S-179), and a
/// leader who fled is not a fallen leader.
#[test]
fn a_unit_that_fled_is_gone_for_this_battle() {
    let mut b = start();
    fall(&mut b, U1);
    let aid = act(U0, Action::FirstAid { target: U1 });
    let r = Sides::state(&b).clone();
    assert_eq!(super::super::actions::check_action(&b, &r, &aid), Ok(()));
    b.apply(&Event::Status {
        unit: U1,
        status: Status::Active,
    });
    flee_off(&mut b, U1);
    assert!(fled(Sides::state(&b), U1));
    assert!(
        !fleeing(Sides::state(&b), U1),
        "gone: no longer fleeing on the map"
    );
    let r = Sides::state(&b).clone();
    let why = super::super::actions::check_action(&b, &r, &aid).expect_err("refused");
    assert!(why.contains("fled"), "{why}");
    flee_off(&mut b, U2);
    assert_eq!(owed(&b, 1), vec![], "a leader who fled did not fall");
}

/// A unit caught unaware does not act in the surprise round (S-15), not even to run: it flees
/// once the surprise round is over.
#[test]
fn a_surprised_unit_that_broke_runs_only_after_the_surprise_round() {
    let units = r#"
        (name: "Brann", side: "Party", cell: (0, 2), template: "sergeant"),
        (name: "Cole", side: "Foes", cell: (5, 1), template: "warrior"),
        (name: "Dunn", side: "Foes", cell: (5, 2), template: "warrior"),
    "#;
    let (mut b, _) = Field::new(RulesetId::Sides)
        .topology("Square(diagonals: One)")
        .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
        .units(units)
        .options(r#"surprised: ["Foes"]"#)
        .start(1);
    assert!(Sides::state(&b).surprise);
    b.apply(&Sides::event(Ev::Breaks { unit: U1 }));
    assert_eq!(next_to_flee(&b, Sides::state(&b), SideId(1)), None);
    b.apply(&Sides::event(Ev::Initiative {
        order: vec![SideId(0), SideId(1)],
        scores: vec![1, 1],
    }));
    b.apply(&Event::Condition {
        unit: U1,
        condition: crate::rules::battle::Condition::Surprised,
        on: false,
    });
    assert_eq!(next_to_flee(&b, Sides::state(&b), SideId(1)), Some(U1));
}
