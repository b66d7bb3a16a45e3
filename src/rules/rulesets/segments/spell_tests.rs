//! The spells of `segments` beyond Magic Missile (house rule (spells), G-66), one by one. The
//! scenarios `tests/scenarios/segments/{haste_second_routine, hold_person_held_then_free,
//! cure_light_wounds, long_casting_spoiled, shield_stops_magic_missile}.ron` play them out.

use super::turns::{attacks, run_budget, walk_budget};
use super::*;
use crate::rules::battle::{Action, Purpose, Spell, Trigger};
use crate::rules::level::Level;
use crate::rules::rulesets::{Member, RulesetId};
use crate::rules::testkit::{Field, U0, U1, U2, mv, reject, rolls, run};

const ALERTED: &str = r#"alerted: ["Party", "Orcs"]"#;

fn field(units: &str) -> Level {
    Field::new(RulesetId::Segments)
        .map(&["........"; 3])
        .sides(r#"(name: "Party", controller: Human), (name: "Orcs", controller: Ai)"#)
        .units(units)
        .options(ALERTED)
        .level()
}

fn declare(b: &mut BattleState, unit: UnitId, intent: Intent) {
    run(b, Command::Declare { unit, intent });
}

fn cast(unit: UnitId, target: UnitId, spell: Spell) -> Command {
    Command::Act {
        unit,
        action: Action::Cast { target, spell },
    }
}

fn ev(events: &[Event]) -> Vec<Ev> {
    events
        .iter()
        .filter_map(|e| Segments::event_of(e).cloned())
        .collect()
}

/// A cleric (the magic-user template with the cleric's slots), a fighter, an orc.
const CLERIC: &str = r#"
    (name: "Anselm", side: "Party", cell: (0, 1), template: "magic_user",
     overrides: {"spell_slots": 0, "haste_slots": 0, "shield_slots": 0,
                 "cure_slots": 1, "hold_slots": 1}),
    (name: "Garrick", side: "Party", cell: (1, 1), template: "fighter"),
    (name: "Orc", side: "Orcs", cell: (7, 1), template: "fighter"),
"#;

#[test]
fn haste_doubles_movement_adds_a_routine_and_ends_after_its_rounds() {
    let units = r#"
        (name: "Halvaine", side: "Party", cell: (0, 1), template: "magic_user",
         overrides: {"haste_casting_time": 1, "haste_rounds": 1}),
        (name: "Garrick", side: "Party", cell: (1, 1), template: "fighter"),
        (name: "Orc", side: "Orcs", cell: (7, 1), template: "fighter"),
    "#;
    // Initiative party 6, orcs 1: the party acts in segment 1.
    let (mut b, _) = BattleState::start_with_tape(&field(units), 1, [6, 1, 6, 1]);
    assert_eq!(
        (attacks(&b, U1), walk_budget(&b, U1), run_budget(&b, U1)),
        (1, 6, 12)
    );
    declare(
        &mut b,
        U0,
        Intent::Spell {
            target: U1,
            spell: Spell::Haste,
        },
    );
    declare(&mut b, U1, Intent::Hold);
    declare(&mut b, U2, Intent::Hold);
    let e = run(&mut b, cast(U0, U1, Spell::Haste));
    // The spell spent reads as one in the log, not as a stat ("Halvaine haste 0 (-1)").
    let log = crate::rules::replay::render_log(&b, &e);
    assert!(log.contains("Halvaine haste spells left 0 (-1, "), "{log}");
    // One segment of casting: it goes off as segment 1 ends, for one round (ticks 2 to 11).
    assert!(ev(&e).contains(&Ev::Enchanted {
        unit: U1,
        spell: Spell::Haste,
        until: 11
    }));
    assert_eq!(
        (attacks(&b, U1), walk_budget(&b, U1), run_budget(&b, U1)),
        (2, 12, 24)
    );
    // Round 2: it is still on through segment 1, and ends as that segment ends.
    assert_eq!(b.round, 2);
    declare(&mut b, U0, Intent::Hold);
    declare(&mut b, U1, Intent::Run);
    declare(&mut b, U2, Intent::Hold);
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    assert_eq!(run_budget(&b, U1), 24);
    let e = run(&mut b, mv(U1, 7, 0));
    assert!(
        ev(&e).contains(&Ev::Expired {
            unit: U1,
            spell: Spell::Haste
        }),
        "{e:?}"
    );
    assert_eq!(
        (attacks(&b, U1), walk_budget(&b, U1), run_budget(&b, U1)),
        (1, 6, 12)
    );
}

#[test]
fn a_saving_throw_resists_hold_person_and_a_held_unit_makes_no_fleeing_attack() {
    let level = field(CLERIC);
    // Initiative party 6, orcs 1; the orc saves on 17.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1, 17]);
    let hold = Intent::Spell {
        target: U2,
        spell: Spell::HoldPerson,
    };
    declare(&mut b, U0, hold.clone());
    declare(&mut b, U1, Intent::Hold);
    declare(&mut b, U2, Intent::Hold);
    let e = run(&mut b, cast(U0, U2, Spell::HoldPerson));
    assert_eq!(rolls(&e, Purpose::Resist), vec![(17, Some(17))]);
    assert!(ev(&e).contains(&Ev::Resisted {
        unit: U2,
        spell: Spell::HoldPerson
    }));
    assert!(!spells::held(Segments::state(&b), U2));
    // It fails on 16: held; the fighter then walks out of its reach unpunished.
    let units = CLERIC.replace("(7, 1)", "(2, 1)");
    let (mut b, _) = BattleState::start_with_tape(&field(&units), 1, [6, 1, 16, 6, 1]);
    declare(&mut b, U0, hold);
    declare(&mut b, U1, Intent::Hold);
    declare(&mut b, U2, Intent::Melee);
    run(&mut b, cast(U0, U2, Spell::HoldPerson));
    assert!(spells::held(Segments::state(&b), U2));
    assert!(b.units[2].has(&crate::rules::battle::Condition::Stunned));
    declare(&mut b, U0, Intent::Hold);
    declare(&mut b, U1, Intent::Run);
    declare(&mut b, U2, Intent::Melee);
    let e = run(&mut b, mv(U1, 1, 2));
    assert!(
        !e.iter().any(|e| matches!(
            e,
            Event::Interrupted(i) if matches!(i.trigger, Trigger::Opportunity { .. })
        )),
        "{e:?}"
    );
}

#[test]
fn spells_are_aimed_at_whom_they_may_be_and_a_declared_spell_is_binding() {
    let level = field(CLERIC);
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
    let decl = |target, spell| Command::Declare {
        unit: U0,
        intent: Intent::Spell { target, spell },
    };
    reject(
        &mut b,
        decl(U2, Spell::MagicMissile),
        "does not know Magic Missile",
    );
    reject(&mut b, decl(U1, Spell::HoldPerson), "aimed at an enemy");
    reject(&mut b, decl(U2, Spell::CureLightWounds), "aimed at an ally");
    // The engine's default for a cleric with no one hurt: Hold Person on the orc in range.
    let legal = b.legal_commands();
    assert_eq!(
        legal[0],
        Command::Declare {
            unit: U0,
            intent: Intent::Spell {
                target: U2,
                spell: Spell::HoldPerson
            }
        }
    );
    declare(
        &mut b,
        U0,
        Intent::Spell {
            target: U1,
            spell: Spell::CureLightWounds,
        },
    );
    declare(&mut b, U1, Intent::Run);
    declare(&mut b, U2, Intent::Hold);
    // Garrick runs off first: Cure Light Wounds is cast by touch.
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    reject(
        &mut b,
        cast(U0, U2, Spell::HoldPerson),
        "declared Cure Light Wounds at Garrick",
    );
    run(
        &mut b,
        Command::Act {
            unit: U0,
            action: Action::Delay,
        },
    );
    run(&mut b, mv(U1, 5, 1));
    reject(&mut b, cast(U0, U1, Spell::CureLightWounds), "by touch");
}

#[test]
fn the_default_declaration_cures_a_badly_hurt_ally_next_to_the_caster() {
    let level = field(CLERIC);
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
    // Garrick at 5 of 12 hp (less than half): cure him rather than hold the orc.
    b.units[1].pools.insert("hp".into(), 5);
    assert_eq!(
        b.legal_commands()[0],
        Command::Declare {
            unit: U0,
            intent: Intent::Spell {
                target: U1,
                spell: Spell::CureLightWounds
            }
        }
    );
}

#[test]
fn action_points_casters_know_only_their_one_spell() {
    let level = Field::new(RulesetId::ActionPoints)
        .map(&["........"; 3])
        .units(
            r#"(name: "Mage", side: "Heroes", cell: (0, 1), template: "mage"),
               (name: "Orc", side: "Foes", cell: (3, 1), template: "fighter")"#,
        )
        .level();
    let (mut b, _) = BattleState::start(&level, 1);
    let Decision::Act { unit } = b.pending() else {
        panic!("{:?}", b.pending())
    };
    let target = if unit == U0 { U1 } else { U0 };
    reject(&mut b, cast(unit, target, Spell::Haste), "a segments spell");
}
