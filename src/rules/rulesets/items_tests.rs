//! Items in the rulesets that have them (issue 26): the stats a held item gives and takes
//! back, each ruleset's price for handling items, attacks of opportunity, and refusals that
//! change nothing. The scenarios `tests/scenarios/*/items_*.ron` walk through the rows.

use crate::rules::battle::{Action, Command, Decision, Event, Place};
use crate::rules::grid::Cell;
use crate::rules::rulesets::RulesetId;
use crate::rules::testkit::{Field, U0, U1, reject, run, to_hero};

fn act(action: Action) -> Command {
    Command::Act { unit: U0, action }
}

fn drop(item: &str) -> Command {
    act(Action::DropItem { item: item.into() })
}

fn pick_up(x: i32, y: i32, item: &str) -> Command {
    act(Action::PickUp {
        cell: Cell::new(x, y),
        item: item.into(),
    })
}

fn provoked(events: &[Event]) -> bool {
    events.iter().any(|e| matches!(e, Event::Interrupted(_)))
}

/// A held item's stats are laid over the unit's; without a weapon in hand a unit armed by its
/// items fights with the ruleset's `unarmed` stats; a template's fixed weapons never change.
#[test]
fn held_items_give_their_stats_and_take_them_back() {
    let (mut b, _) = Field::new(RulesetId::Sides)
        .units(
            r#"(name: "Ida", side: "Heroes", cell: (1, 1), template: "warrior", items: ["longsword"]),
               (name: "Tor", side: "Foes", cell: (6, 3), template: "warrior")"#,
        )
        .items(r#"(item: "dagger", cell: (2, 1))"#)
        .start(1);
    assert_eq!(b.units[1].items, vec![]);
    assert!(!b.units[1].armed_by_items);
    assert!(std::sync::Arc::ptr_eq(&b.units[1].stats, &b.units[1].base));
    to_hero(&mut b);
    assert_eq!(b.units[0].stat("damage_die"), 8);
    run(&mut b, drop("longsword"));
    assert_eq!(b.units[0].stat("damage_die"), 2);
    assert_eq!(b.units[0].stat("unarmed"), 1);
    assert_eq!(b.items_at(Cell::new(1, 1)), ["longsword".to_string()]);
    run(&mut b, pick_up(2, 1, "dagger"));
    assert_eq!(
        (b.units[0].stat("damage_die"), b.units[0].stat("unarmed")),
        (4, 0)
    );
    assert!(b.items_at(Cell::new(2, 1)).is_empty());
    assert!(!b.ground.contains_key(&Cell::new(2, 1)));
    // The unit's own stats are untouched.
    assert_eq!(b.units[0].base.get("damage_die"), Some(&8));
}

/// `sides` (S-97): picking up beside a foe who holds only a bow (no melee weapon in hand:
/// house rule (items)) draws no attack of opportunity; beside an armed one it does.
#[test]
fn sides_only_an_armed_foe_punishes_a_pick_up() {
    for (foe, attacks) in [("[\"shortbow\"]", false), ("[\"dagger\"]", true)] {
        let (mut b, _) = Field::new(RulesetId::Sides)
            .units(&format!(
                r#"(name: "Ida", side: "Heroes", cell: (1, 1), template: "warrior", items: ["dagger"]),
                   (name: "Tor", side: "Foes", cell: (2, 1), template: "archer", items: {foe})"#
            ))
            .items(r#"(item: "longsword", cell: (1, 2))"#)
            .start(1);
        to_hero(&mut b);
        let events = run(&mut b, pick_up(1, 2, "longsword"));
        assert_eq!(provoked(&events), attacks, "{foe}");
        if attacks {
            assert_eq!(
                b.pending(),
                Decision::React {
                    unit: U1,
                    trigger: crate::rules::battle::Trigger::Provoked {
                        actor: U0,
                        action: "Pick up an Item".into(),
                    },
                }
            );
        }
    }
}

/// Refusals name the reason and change nothing (`reject` checks the battle is untouched).
#[test]
fn item_actions_are_refused_with_a_reason() {
    let (mut b, _) = Field::new(RulesetId::Sides)
        .units(
            r#"(name: "Ida", side: "Heroes", cell: (1, 1), template: "warrior", items: ["greataxe", "dagger"]),
               (name: "Tor", side: "Foes", cell: (6, 3), template: "warrior")"#,
        )
        .items(r#"(item: "longsword", cell: (4, 4))"#)
        .start(1);
    to_hero(&mut b);
    reject(&mut b, drop("dagger"), "holds no dagger in hand");
    reject(&mut b, drop("bow"), "holds no bow");
    reject(&mut b, pick_up(4, 4, "longsword"), "out of");
    reject(&mut b, pick_up(1, 1, "longsword"), "no longsword lies");
    reject(
        &mut b,
        act(Action::Carry {
            item: "dagger".into(),
            to: Place::Hand,
        }),
        "hands are full",
    );
    reject(&mut b, act(Action::Reload), "nothing that needs reloading");
    reject(
        &mut b,
        act(Action::Shift {
            cell: Cell::new(2, 1),
            to: Cell::new(3, 1),
        }),
        "not an action in the sides ruleset",
    );
}

/// `segments` and `action-points` have no items: the actions are refused.
#[test]
fn rulesets_without_items_refuse_item_actions() {
    for (ruleset, template) in [
        (RulesetId::Segments, "fighter"),
        (RulesetId::ActionPoints, "fighter"),
    ] {
        let (b, _) = Field::new(ruleset)
            .units(&format!(
                r#"(name: "Hero", side: "Heroes", cell: (1, 1), template: "{template}"),
                   (name: "Foe", side: "Foes", cell: (6, 3), template: "{template}")"#
            ))
            .start(1);
        let unit = U0;
        let cmd = Command::Act {
            unit,
            action: Action::DropItem {
                item: "sword".into(),
            },
        };
        assert!(b.check(&cmd).is_err(), "{ruleset}");
        assert!(
            b.legal_commands()
                .iter()
                .all(|c| !matches!(c, Command::Act { action, .. } if crate::rules::battle::items::is_item_action(action) && *action != Action::Reload)),
            "{ruleset}"
        );
    }
}

/// `phases` prices: dropping is free (P-97); picking up, drawing, reloading and shifting are
/// move actions (P-67, P-70, P-77, P-78), the stored focus a full Phase (P-82). With no foe
/// threatening, nothing provokes.
#[test]
fn phases_item_actions_spend_the_phase_as_the_table_says() {
    let (mut b, _) = Field::new(RulesetId::Phases)
        .units(
            r#"(name: "Ada", side: "Heroes", cell: (1, 1), template: "swordsman", overrides: {"cv": 10}, items: ["sword", "pistol", "power_rod"]),
               (name: "Bo", side: "Foes", cell: (7, 4), template: "swordsman")"#,
        )
        .items(r#"(item: "crate", cell: (2, 1)), (item: "sword", cell: (0, 1))"#)
        .start(1);
    to_hero(&mut b);
    let stow = act(Action::Carry {
        item: "power_rod".into(),
        to: Place::Pack,
    });
    let events = run(&mut b, drop("sword"));
    assert!(!provoked(&events));
    // Dropping was free: a full-phase action is still open to her.
    assert!(b.check(&stow).is_ok());
    run(&mut b, pick_up(0, 1, "sword"));
    reject(&mut b, stow, "full-phase");
    run(
        &mut b,
        act(Action::Shift {
            cell: Cell::new(2, 1),
            to: Cell::new(3, 1),
        }),
    );
    assert!(b.heavy_at(Cell::new(3, 1)) && !b.heavy_at(Cell::new(2, 1)));
    // Two move actions: the Phase is spent (dropping is still free).
    run(&mut b, drop("pistol"));
    reject(
        &mut b,
        act(Action::Carry {
            item: "power_rod".into(),
            to: Place::Hand,
        }),
        "two actions",
    );
}

/// `phases` Rapid Fire with a gun fires one of its counted shots at each target (P-70): a
/// volley at more targets than the pistol holds shots is refused, and one at two empties it.
#[test]
fn phases_rapid_fire_spends_a_shot_a_target() {
    let (mut b, _) = Field::new(RulesetId::Phases)
        .units(
            r#"(name: "Ada", side: "Heroes", cell: (1, 2), template: "swordsman", overrides: {"cv": 10}, items: ["pistol"]),
               (name: "Bo", side: "Foes", cell: (6, 1), template: "swordsman", overrides: {"body": 40, "stun": 90}),
               (name: "Cy", side: "Foes", cell: (6, 2), template: "swordsman", overrides: {"body": 40, "stun": 90}),
               (name: "Di", side: "Foes", cell: (6, 3), template: "swordsman", overrides: {"body": 40, "stun": 90})"#,
        )
        .start(1);
    to_hero(&mut b);
    reject(
        &mut b,
        act(Action::RapidFire { count: 3 }),
        "pistol holds 2",
    );
    let events = run(&mut b, act(Action::RapidFire { count: 2 }));
    let loads: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::Loaded { loaded, .. } => Some(*loaded),
            _ => None,
        })
        .collect();
    assert_eq!(loads, [1, 0], "{events:?}");
    assert_eq!(b.units[0].items[0].loaded, 0);
    let attacks = events
        .iter()
        .filter(|e| matches!(e, Event::Attacked { ranged: true, .. }))
        .count();
    assert_eq!(attacks, 2, "{events:?}");
}
