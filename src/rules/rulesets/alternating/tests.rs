use super::combat::deflection_against;
use super::view::test_chance;
use super::*;
use crate::rules::battle::tests::{load, playouts_end_and_replay, random_play};
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Purpose, Reaction, SideId, Status,
    UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::{Member, RulesetId};
use crate::rules::testkit::{
    Field, U0, U1, U2, U3, act, attack, decline, end, mv, pick, pool, react, reject, rolls, run,
    shoot,
};

/// The tests' field: the kit's 8×5 open field on the `OneTwo` square grid, the Wardens
/// (Human) against the Raiders (Ai).
fn field() -> Field {
    Field::new(RulesetId::Alternating)
        .topology("Square(diagonals: OneTwo)")
        .sides(r#"(name: "Wardens", controller: Human), (name: "Raiders", controller: Ai)"#)
}

const DUEL: &str = r#"
    (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
    (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
"#;

/// The totals of the rolls made for `purpose`.
fn totals(events: &[Event], purpose: Purpose) -> Vec<i64> {
    rolls(events, purpose).into_iter().map(|(t, _)| t).collect()
}

#[test]
fn teams_alternate_picks_and_the_instigator_picks_first() {
    let units = r#"
        (name: "Roland", side: "Wardens", cell: (0, 0), template: "spear_warden"),
        (name: "Clementine", side: "Wardens", cell: (0, 2), template: "duelist"),
        (name: "Petra", side: "Wardens", cell: (0, 4), template: "crossbowman"),
        (name: "Captain", side: "Raiders", cell: (7, 0), template: "duelist"),
    "#;
    let (mut b, _) = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .start(1);
    assert_eq!(
        b.pending(),
        Decision::Pick {
            side: SideId(1),
            options: vec![U3]
        }
    );
    run(&mut b, pick(U3));
    assert_eq!(b.pending(), Decision::Act { unit: U3 });
    assert_eq!(pool(&b, U3, "actions"), 3);
    run(&mut b, end(U3));
    // The Wardens pick; then, the Raiders having no one left, the Wardens keep picking.
    for u in [0u16, 1, 2] {
        let Decision::Pick { side, options } = b.pending() else {
            panic!("{:?}", b.pending())
        };
        assert_eq!(side, SideId(0));
        assert!(options.contains(&UnitId(u)));
        // Someone who has acted cannot be picked again this round.
        if u > 0 {
            assert!(
                b.check(&Command::Pick {
                    unit: UnitId(u - 1)
                })
                .is_err()
            );
        }
        run(&mut b, pick(UnitId(u)));
        run(&mut b, end(UnitId(u)));
    }
    assert_eq!(b.round, 2);
    assert!(matches!(
        b.pending(),
        Decision::Pick {
            side: SideId(1),
            ..
        }
    ));
}

#[test]
fn a_turn_is_three_actions_and_moving_is_once_then_sprint_for_stamina() {
    let (mut b, _) = field().units(DUEL).start(1);
    run(&mut b, pick(U0));
    run(&mut b, mv(U0, 2, 0));
    let again = mv(U0, 1, 0);
    assert!(
        b.check(&again)
            .unwrap_err()
            .reason
            .contains("already moved")
    );
    let step = act(
        U0,
        Action::Step {
            to: Cell::new(1, 0),
        },
    );
    assert!(b.check(&step).is_err(), "a Step is instead of a move");
    run(
        &mut b,
        act(
            U0,
            Action::Sprint {
                to: Cell::new(0, 0),
            },
        ),
    );
    assert_eq!(pool(&b, U0, "stamina"), 3);
    assert_eq!(pool(&b, U0, "actions"), 1);
    run(&mut b, act(U0, Action::SeekCover));
    // Out of actions: the turn passes to the Raiders.
    assert!(matches!(
        b.pending(),
        Decision::Pick {
            side: SideId(1),
            ..
        }
    ));
}

#[test]
fn a_free_step_then_no_move() {
    let (mut b, _) = field().units(DUEL).start(1);
    run(&mut b, pick(U0));
    run(
        &mut b,
        act(
            U0,
            Action::Step {
                to: Cell::new(1, 1),
            },
        ),
    );
    assert_eq!(pool(&b, U0, "actions"), 3, "Step is free");
    assert!(
        b.check(&Command::Move {
            unit: U0,
            to: Cell::new(0, 0)
        })
        .is_err()
    );
    // Two squares away is not a step.
    let far = act(
        U0,
        Action::Step {
            to: Cell::new(3, 1),
        },
    );
    assert!(b.check(&far).is_err());
}

#[test]
fn guard_and_wait_end_the_turn_with_their_bonus_until_the_next_turn() {
    let (mut b, _) = field().units(DUEL).start(1);
    run(&mut b, pick(U0));
    run(&mut b, act(U0, Action::Guard));
    assert!(b.units[0].has(&Condition::Guarding));
    run(&mut b, pick(U1));
    run(&mut b, act(U1, Action::Wait));
    assert_eq!(pool(&b, U1, "reactions"), 2);
    assert_eq!(b.round, 2);
    run(&mut b, pick(U0));
    assert!(!b.units[0].has(&Condition::Guarding), "until next turn");
}

#[test]
fn random_play_ends_and_replays() {
    playouts_end_and_replay("alternating_bridge.ron");
}

#[test]
fn random_play_on_small_fields_reaches_an_end() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (1, 1), template: "spear_warden"),
        (name: "Petra", side: "Wardens", cell: (0, 3), template: "crossbowman"),
        (name: "Agnessa", side: "Wardens", cell: (1, 4), template: "bowman"),
        (name: "Skarn", side: "Raiders", cell: (6, 2), template: "ogre"),
        (name: "Nix", side: "Raiders", cell: (5, 0), template: "goblin"),
        (name: "Vesna", side: "Raiders", cell: (6, 4), template: "duelist"),
    "#;
    // The same with psychic (mental, typeless) and fire weapons in play, so that Resist and
    // the damage types are listed and checked too.
    let mental = r#"
        (name: "Boudica", side: "Wardens", cell: (1, 1), template: "spear_warden",
         overrides: {"damage_type": 10}),
        (name: "Petra", side: "Wardens", cell: (0, 3), template: "crossbowman",
         overrides: {"ranged_damage_type": 10}),
        (name: "Agnessa", side: "Wardens", cell: (1, 4), template: "bowman",
         overrides: {"ranged_damage_type": 6}),
        (name: "Skarn", side: "Raiders", cell: (6, 2), template: "ogre",
         overrides: {"damage_type": 10}),
        (name: "Nix", side: "Raiders", cell: (5, 0), template: "goblin"),
        (name: "Vesna", side: "Raiders", cell: (6, 4), template: "duelist",
         overrides: {"damage_type": 10}),
    "#;
    let mut resisted = 0;
    let mut brandished = 0;
    for (units, opts) in [
        (units, ""),
        (units, r#"surprised: ["Raiders"]"#),
        (units, r#"instigator: "Raiders""#),
        (mental, ""),
        (mental, r#"instigator: "Raiders""#),
    ] {
        let level = field().units(units).options(opts).level();
        for seed in 1..=6 {
            let (b, commands, _) = random_play(&level, seed, 20_000);
            assert!(
                b.outcome.is_some(),
                "{opts} seed {seed}: no end after {} commands",
                commands.len()
            );
            for c in &commands {
                match c {
                    Command::React {
                        reaction: Reaction::Resist,
                        ..
                    } => resisted += 1,
                    Command::Act {
                        action: Action::Brandish,
                        ..
                    } => brandished += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(resisted > 0 && brandished > 0, "{resisted} {brandished}");
}

#[test]
fn rejections_say_why_and_change_nothing() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (0, 0), template: "spear_warden"),
        (name: "Petra", side: "Wardens", cell: (0, 2), template: "crossbowman"),
        (name: "Skarn", side: "Raiders", cell: (7, 4), template: "ogre"),
    "#;
    let (mut b, _) = field().units(units).start(1);
    let cases = [
        (Command::EndTurn { unit: U0 }, "must first pick"),
        (Command::Pick { unit: U2 }, "not one of the Wardens"),
    ];
    for (cmd, why) in cases {
        reject(&mut b, cmd, why);
    }
    run(&mut b, pick(U0));
    let cases = [
        (Command::EndTurn { unit: U1 }, "Boudica's turn"),
        (
            Command::Attack {
                unit: U0,
                target: U2,
                ranged: false,
            },
            "reach",
        ),
        (
            Command::Attack {
                unit: U0,
                target: U2,
                ranged: true,
            },
            "no ranged weapon",
        ),
        (
            Command::Attack {
                unit: U0,
                target: U1,
                ranged: false,
            },
            "not an enemy",
        ),
        (
            Command::Move {
                unit: U0,
                to: Cell::new(7, 0),
            },
            "cannot reach",
        ),
        (
            Command::Act {
                unit: U0,
                action: Action::StandUp,
            },
            "not prone",
        ),
        (
            Command::Act {
                unit: U0,
                action: Action::Reload,
            },
            "nothing to reload",
        ),
        (
            Command::Act {
                unit: U0,
                action: Action::Sprint {
                    to: Cell::new(1, 0),
                },
            },
            "must Move",
        ),
        (
            Command::Act {
                unit: U0,
                action: Action::Dodge,
            },
            "not an action",
        ),
        (Command::Pick { unit: U1 }, "no pick now"),
        (
            Command::React {
                unit: U0,
                reaction: Reaction::Dodge,
            },
            "nothing to react",
        ),
    ];
    for (cmd, why) in cases {
        reject(&mut b, cmd, why);
    }
}

#[test]
fn the_bridge_level_starts_with_the_wardens_picking() {
    let level = load("alternating_bridge.ron");
    let (b, _) = BattleState::start(&level, 4001);
    // Any of the four Wardens may be picked first, and nothing else may be done.
    assert!(
        matches!(b.pending(), Decision::Pick { side: SideId(0), ref options } if options.len() == 4)
    );
    let legal = b.legal_commands();
    assert_eq!(legal.len(), 4);
}

/// The preview's odds are the engine's: over many seeds, Skarn's attacks on Boudica hit and
/// wound as often as `odds` says (she declines to react).
#[test]
fn odds_agree_with_what_attacks_do() {
    for (units, ranged) in [
        (DUEL, false),
        (
            r#"(name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
               (name: "Petra", side: "Raiders", cell: (6, 2), template: "crossbowman"),"#,
            true,
        ),
        // Flanked by two raiders: advantage.
        (
            r#"(name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
               (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
               (name: "Nix", side: "Raiders", cell: (1, 2), template: "goblin"),"#,
            false,
        ),
        // A psychic (typeless) club: Boudica's deflection does not apply.
        (
            r#"(name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
               (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre",
                overrides: {"damage_type": 10}),"#,
            false,
        ),
    ] {
        let level = field()
            .units(units)
            .options(r#"instigator: "Raiders""#)
            .level();
        let (mut b, _) = BattleState::start(&level, 1);
        run(&mut b, pick(U1));
        let o = crate::rules::rulesets::odds(&b, U1, U0, ranged).expect("in reach");
        assert!(o.hit > 0.05 && o.hit < 0.99, "{o:?}");
        let (mut hits, mut damage) = (0usize, 0i64);
        let n = 4000u64;
        for seed in 0..n {
            let (mut b, _) = BattleState::start(&level, seed);
            run(&mut b, pick(U1));
            let vitality = |b: &BattleState| pool(b, U0, "endurance") + pool(b, U0, "health");
            let before = vitality(&b);
            run(
                &mut b,
                Command::Attack {
                    unit: U1,
                    target: U0,
                    ranged,
                },
            );
            while let Decision::React { unit, .. } = b.pending() {
                run(&mut b, decline(unit));
            }
            let dealt = before - vitality(&b);
            hits += usize::from(dealt > 0);
            damage += dealt;
        }
        let tally = crate::rules::testkit::Tally {
            hits: hits as f64,
            tries: n as f64,
            damage: damage as f64,
            battles: n as f64,
        };
        crate::rules::testkit::odds_agree(&o, tally, 0.001, (0.08, 0.05), "alternating");
    }
}

#[test]
fn advantage_keeps_the_best_of_two_rolls() {
    // Boudica flanked by Skarn and Nix: Skarn's test is rolled twice, the better kept.
    let units = r#"(name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
               (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
               (name: "Nix", side: "Raiders", cell: (1, 2), template: "goblin"),"#;
    let level = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .level();
    // First roll 1+1 = 2, second 3+2 = 5; luck 10. 5 vs evasion 6 + size 1 = 7: miss.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [1, 1, 3, 2, 10]);
    run(&mut b, pick(U1));
    let e = run(&mut b, attack(U1, U0));
    assert_eq!(totals(&e, Purpose::Attack), vec![2, 5]);
    assert!(e.contains(&Event::Attacked {
        attacker: U1,
        target: U0,
        ranged: false,
        hit: false,
        crit: false,
        spell: None
    }));
    let o = crate::rules::rulesets::odds(&b, U1, U0, false).expect("odds");
    assert!(
        o.formula.contains("advantage x1 (flanking)"),
        "{}",
        o.formula
    );
}

#[test]
fn the_clock_and_the_menu_speak_in_picks_and_actions() {
    let (mut b, _) = field().units(DUEL).start(1);
    let clock = crate::rules::rulesets::clock(&b);
    assert!(
        clock.headline.contains("Wardens pick next"),
        "{}",
        clock.headline
    );
    run(&mut b, pick(U0));
    let clock = crate::rules::rulesets::clock(&b);
    assert!(
        clock.headline.contains("Boudica's turn, 3/3 actions"),
        "{}",
        clock.headline
    );
    assert!(clock.order[0].current);
    let d = |c: Command| crate::rules::rulesets::describe(&b, &c);
    let attack = d(Command::Attack {
        unit: U0,
        target: U1,
        ranged: false,
    });
    assert_eq!(
        (attack.label.as_str(), attack.cost.as_str()),
        ("Attack Skarn", "1 action")
    );
    let mv = d(Command::Move {
        unit: U0,
        to: Cell::new(0, 0),
    });
    assert_eq!(
        mv.path.expect("path").cells().last(),
        Some(&Cell::new(0, 0))
    );
    assert_eq!(
        d(Command::Act {
            unit: U0,
            action: Action::Guard
        })
        .cost,
        "ends the turn"
    );
    assert_eq!(
        d(Command::Act {
            unit: U0,
            action: Action::GoProne
        })
        .cost,
        "free"
    );
}

#[test]
fn an_extended_action_may_be_abandoned_at_no_cost() {
    let units = r#"
        (name: "Petra", side: "Wardens", cell: (0, 1), template: "crossbowman"),
        (name: "Nix", side: "Raiders", cell: (7, 1), template: "goblin"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [1, 1, 10]);
    let p = U0;
    run(&mut b, pick(p));
    run(&mut b, shoot(p, U1));
    run(&mut b, mv(p, 0, 0));
    let reload = act(p, Action::Reload);
    let e = run(&mut b, reload.clone());
    assert!(e.contains(&Alternating::event(Ev::ExtendedStarted {
        unit: p,
        command: reload.clone(),
        remaining: 1
    })));
    run(&mut b, pick(U1));
    run(&mut b, end(U1));
    run(&mut b, pick(p));
    // The describe panel shows only what is still due.
    assert_eq!(
        crate::rules::rulesets::describe(&b, &reload).cost,
        "1 action"
    );
    // Seeking cover instead abandons the reload: nothing is refunded, nothing more is paid.
    let e = run(&mut b, act(p, Action::SeekCover));
    assert!(e.contains(&Alternating::event(Ev::ExtendedDone {
        unit: p,
        completed: false
    })));
    assert_eq!(pool(&b, p, "actions"), 2);
    assert_eq!(pool(&b, p, "loaded"), 0);
    // A fresh reload costs both actions again.
    run(&mut b, reload);
    assert_eq!(
        (pool(&b, p, "loaded"), b.pending()),
        (
            1,
            Decision::Pick {
                side: SideId(1),
                options: vec![U1]
            }
        )
    );
}

#[test]
fn prone_gives_melee_advantage_and_ranged_disadvantage_and_must_stand_up_to_move() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
        (name: "Petra", side: "Raiders", cell: (7, 2), template: "crossbowman"),
    "#;
    let (mut b, _) = field().units(units).start(1);
    run(&mut b, pick(U0));
    let before_melee = odds(&b, Alternating::state(&b), U1, U0, false)
        .expect("melee")
        .hit;
    let before_ranged = odds(&b, Alternating::state(&b), U2, U0, true)
        .expect("ranged")
        .hit;
    run(&mut b, act(U0, Action::GoProne));
    assert_eq!(pool(&b, U0, "actions"), 3, "Drop Prone is free");
    let melee = odds(&b, Alternating::state(&b), U1, U0, false).expect("melee");
    let ranged = odds(&b, Alternating::state(&b), U2, U0, true).expect("ranged");
    assert!(
        melee.hit > before_melee && melee.formula.contains("advantage"),
        "{melee:?}"
    );
    assert!(
        ranged.hit < before_ranged && ranged.formula.contains("disadvantage"),
        "{ranged:?}"
    );
    assert!(
        b.check(&Command::Move {
            unit: U0,
            to: Cell::new(1, 1)
        })
        .unwrap_err()
        .reason
        .contains("Stand Up")
    );
    run(&mut b, act(U0, Action::StandUp));
    assert!(!b.units[0].is_prone());
    assert_eq!(pool(&b, U0, "actions"), 2);
}

#[test]
fn a_killing_strike_takes_three_actions_and_kills_on_combat_die_with_advantage_vs_constitution() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Nix", side: "Raiders", cell: (3, 2), template: "goblin", overrides: {"endurance": 1, "health": 1}),
        (name: "Grub", side: "Raiders", cell: (7, 4), template: "goblin"),
    "#;
    // Attack 6 + 6 + 1 hits, luck 10; Nix declines to react; 1 + 1 + ... damage: health 0 with
    // excess: death test 15 (cheats death). Round 2: the killing strike rolls d6 twice: 1, 3
    // vs constitution 2: dead.
    let (mut b, _) =
        BattleState::start_with_tape(&field().units(units).level(), 1, [6, 6, 10, 15, 1, 3]);
    run(&mut b, pick(U0));
    run(&mut b, attack(U0, U1));
    run(&mut b, decline(U1));
    assert_eq!(b.units[1].status, Status::Down);
    assert_eq!(pool(&b, U1, "death"), 15, "cheated death: +5");
    let strike = attack(U0, U1);
    assert!(b.check(&strike).is_ok());
    assert!(
        crate::rules::rulesets::describe(&b, &strike)
            .cost
            .contains("extended")
    );
    run(&mut b, end(U0));
    run(&mut b, pick(U2));
    run(&mut b, end(U2));
    run(&mut b, pick(U0));
    let e = run(&mut b, strike);
    assert_eq!(totals(&e, Purpose::Attack), vec![1, 3]);
    assert_eq!(b.units[1].status, Status::Dead);
    assert_eq!(pool(&b, U0, "actions"), 0);
}

/// A-116, A-117: a killing strike is an attack: it counts towards the multiple attack penalty
/// (the next attack of the round takes -2) and takes it (after an earlier attack, -2).
#[test]
fn a_killing_strike_counts_towards_the_multiple_attack_penalty_and_takes_it() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Nix", side: "Raiders", cell: (3, 2), template: "goblin", overrides: {"endurance": 1, "health": 1}),
        (name: "Grub", side: "Raiders", cell: (1, 2), template: "goblin"),
    "#;
    // Round 1: Nix is hit and cheats death (6, 6, luck 10, death 15); the strike is begun.
    // Round 2: the strike completes first (1, 3 on the combat die against constitution 2:
    // dead), then Boudica attacks Grub: 3 + 3 + 1 proficiency - 2 for the strike = 5.
    let tape = [6, 6, 10, 15, 1, 3, 3, 3, 10];
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, tape);
    run(&mut b, pick(U0));
    run(&mut b, attack(U0, U1));
    run(&mut b, decline(U1));
    run(&mut b, attack(U0, U1));
    run(&mut b, pick(U2));
    run(&mut b, end(U2));
    run(&mut b, pick(U0));
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(totals(&e, Purpose::Attack), vec![1, 3]);
    assert_eq!(b.units[1].status, Status::Dead);
    let e = run(&mut b, attack(U0, U2));
    assert_eq!(totals(&e, Purpose::Attack), vec![5], "3 + 3 + 1 - 2");
    // The strike's own test takes the penalty: after one attack, 1d6 - 2.
    let units = units.replace("(1, 2)", "(7, 4)");
    let (mut b, _) =
        BattleState::start_with_tape(&field().units(&units).level(), 1, [6, 6, 10, 15, 3, 3]);
    run(&mut b, pick(U0));
    run(&mut b, attack(U0, U1));
    run(&mut b, decline(U1));
    run(&mut b, end(U0));
    run(&mut b, pick(U2));
    run(&mut b, end(U2));
    run(&mut b, pick(U0));
    b.apply(&Alternating::event(Ev::AttackMade { unit: U0 }));
    let e = run(&mut b, attack(U0, U1));
    // 3 would kill (constitution 2); 3 - 2 does not, and the sneak attack follows.
    assert_eq!(totals(&e, Purpose::Attack)[..2], [1, 1], "3 - 2 twice");
    assert!(
        rolls(&e, Purpose::Attack).len() > 2,
        "the sneak attack after the failure"
    );
}

#[test]
fn nonlethal_damage_to_zero_health_does_not_risk_death() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden", overrides: {"nonlethal": 1}),
        (name: "Nix", side: "Raiders", cell: (3, 2), template: "goblin", overrides: {"endurance": 1, "health": 1}),
        (name: "Grub", side: "Raiders", cell: (7, 4), template: "goblin"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [6, 6, 10]);
    run(&mut b, pick(U0));
    run(&mut b, attack(U0, U1));
    let e = run(&mut b, decline(U1));
    assert_eq!(b.units[1].status, Status::Down);
    assert!(rolls(&e, Purpose::Death).is_empty());
}

#[test]
fn seeking_cover_gives_ranged_attackers_disadvantage_only_behind_cover() {
    let level = field()
        .map(&["........", "........", "...###..", "........"])
        .units(
            r#"(name: "Boudica", side: "Wardens", cell: (4, 3), template: "spear_warden"),
               (name: "Petra", side: "Raiders", cell: (0, 0), template: "crossbowman"),
               (name: "Lark", side: "Raiders", cell: (7, 3), template: "crossbowman"),"#,
        )
        .level();
    let (mut b, _) = BattleState::start(&level, 1);
    run(&mut b, pick(U0));
    run(&mut b, act(U0, Action::SeekCover));
    let behind = odds(&b, Alternating::state(&b), U1, U0, true).expect("Petra sees her");
    let open = odds(&b, Alternating::state(&b), U2, U0, true).expect("Lark sees her");
    assert!(behind.formula.contains("seeking cover"), "{behind:?}");
    assert!(!open.formula.contains("seeking cover"), "{open:?}");
}

#[test]
fn a_surprised_and_flanked_target_gives_double_advantage() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Roland", side: "Wardens", cell: (4, 2), template: "spear_warden"),
        (name: "Nix", side: "Raiders", cell: (3, 2), template: "goblin"),
        (name: "Grub", side: "Raiders", cell: (7, 4), template: "goblin"),
    "#;
    let (mut b, _) = field()
        .units(units)
        .options(r#"surprised: ["Raiders"]"#)
        .start(1);
    run(&mut b, pick(U0));
    let o = odds(&b, Alternating::state(&b), U0, U2, false).expect("odds");
    assert!(
        o.formula.contains("advantage x2 (flanking, sneak attack)"),
        "{}",
        o.formula
    );
    // Three rolls, the best kept.
    let e = run(&mut b, attack(U0, U2));
    assert_eq!(rolls(&e, Purpose::Attack).len(), 3);
}

#[test]
fn a_block_beyond_the_shields_durability_reaches_the_unit_and_parry_adds_1_without_a_value() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden",
         overrides: {"block_durability": 3, "parry": 0}),
        (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre", overrides: {"size": 4}),
    "#;
    let level = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .level();
    // 5 + 3 = 8 hits, luck 5: 8 + 6 - block 4 = 10: 3 to the shield, 7 to Boudica.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [5, 3, 5]);
    run(&mut b, pick(U1));
    run(&mut b, attack(U1, U0));
    // The prompt's entries say what each defence does against this attack (total 8).
    let entry = |b: &BattleState, reaction: Reaction| {
        crate::rules::rulesets::describe(b, &Command::React { unit: U0, reaction }).cost
    };
    let boudica = &b.units[U0.index()];
    let (dex, ath) = (boudica.stat("dexterity"), boudica.stat("athletics"));
    assert_eq!(
        entry(&b, Reaction::Dodge),
        format!(
            "reaction, 1 stamina: 1d{dex}+1d{ath} against 8: {:.0}% to avoid the hit",
            test_chance(dex, ath, 0, 8) * 100.0
        )
    );
    assert_eq!(
        entry(&b, Reaction::Block),
        format!(
            "reaction, 1 stamina: damage -{}, the shield takes the rest first",
            boudica.stat("block")
        )
    );
    assert_eq!(
        entry(&b, Reaction::Parry),
        "reaction, 1 stamina: +1 deflection against this hit, the weapon wears"
    );
    let e = run(&mut b, react(U0, Reaction::Block));
    assert_eq!(pool(&b, U0, "shield"), 0);
    assert_eq!(pool(&b, U0, "endurance"), 5);
    assert_eq!(
        damage_lines(&b, &e),
        ["Boudica: damage 10 = 8 attack test + 6 weapon - 4 shield's block"]
    );
    // Parry with a weapon of no parry value adds 1: 8 + 6 - (4 + 1) = 9.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [5, 3, 5]);
    run(&mut b, pick(U1));
    run(&mut b, attack(U1, U0));
    let e = run(&mut b, react(U0, Reaction::Parry));
    assert_eq!(pool(&b, U0, "endurance"), 3);
    assert_eq!(pool(&b, U0, "weapon"), 9);
    // The log says where the hit went: the parry's share of the deflection is named.
    assert_eq!(
        damage_lines(&b, &e),
        ["Boudica: damage 9 = 8 attack test + 6 weapon - 4 deflection - 1 parry"]
    );
}

#[test]
fn a_defence_test_chance_counts_both_dice_and_the_luck_die() {
    // 2d6 never reaches 13; with the luck die's +4 it does from 9 up: 10 of 36, times 1 in 20.
    let p = test_chance(6, 6, 0, 13);
    assert!((p - 10.0 / 36.0 / 20.0).abs() < 1e-12, "{p}");
    assert_eq!(test_chance(6, 6, 0, 2), 1.0);
    // 7 or more on 2d6 is 21 of 36; of the other 15, those of 3 to 6 reach it with the luck
    // die (14 of them), once in 20.
    let p = test_chance(6, 6, 0, 7);
    assert!((p - (21.0 + 14.0 / 20.0) / 36.0).abs() < 1e-12, "{p}");
}

/// The combat-log lines that add up a hit's damage in `events`.
fn damage_lines(b: &BattleState, events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| matches!(e, Event::Reckoned { what, .. } if what == "damage"))
        .map(|e| crate::rules::battle::log::describe(b, e))
        .collect()
}

#[test]
fn a_failed_killing_strike_is_a_sneak_attack_and_damage_at_zero_health_risks_death() {
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Nix", side: "Raiders", cell: (3, 2), template: "goblin", overrides: {"endurance": 1, "health": 1}),
        (name: "Grub", side: "Raiders", cell: (7, 4), template: "goblin"),
    "#;
    let level = field().units(units).level();
    // Nix downed (death test 15: cheats). Round 2: killing strike d6 1, 1 vs constitution 2
    // fails; the sneak attack (advantage: two rolls) 2 + 2 + 1 and 6 + 6 + 1, luck 10, hits;
    // at zero health the damage risks death again: 16 vs 15 cheats; a second strike later...
    let (mut b, _) =
        BattleState::start_with_tape(&level, 1, [6, 6, 10, 15, 1, 1, 2, 2, 6, 6, 10, 16]);
    run(&mut b, pick(U0));
    run(&mut b, attack(U0, U1));
    run(&mut b, decline(U1));
    run(&mut b, end(U0));
    run(&mut b, pick(U2));
    run(&mut b, end(U2));
    run(&mut b, pick(U0));
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(totals(&e, Purpose::Attack), vec![1, 1, 5, 13]);
    assert!(e.contains(&Event::Attacked {
        attacker: U0,
        target: U1,
        ranged: false,
        hit: true,
        crit: false,
        spell: None
    }));
    assert_eq!(totals(&e, Purpose::Death), vec![16]);
    assert_eq!(pool(&b, U1, "death"), 20);
    assert_eq!(b.units[1].status, Status::Down);
}

#[test]
fn damage_types_follow_the_seeds_table_and_only_typeless_damage_ignores_deflection() {
    // The seed's Damage Types table, by the codes of house rule "damage types".
    let table = [
        (1, DamageKind::Physical),  // bludgeoning
        (2, DamageKind::Physical),  // slashing
        (3, DamageKind::Physical),  // piercing
        (4, DamageKind::Elemental), // arcane
        (5, DamageKind::Elemental), // cold
        (6, DamageKind::Elemental), // fire
        (7, DamageKind::Elemental), // radiant
        (8, DamageKind::Elemental), // shock
        (9, DamageKind::Elemental), // void
        (10, DamageKind::Typeless), // psychic
        (0, DamageKind::Typeless),  // not specified
        (-3, DamageKind::Typeless), // nonsense is not specified either
        (11, DamageKind::Typeless),
    ];
    let level = field().units(DUEL).level();
    let (b, _) = BattleState::start(&level, 1);
    for (code, kind) in table {
        let mut skarn = b.units[U1.index()].clone();
        std::sync::Arc::make_mut(&mut skarn.stats).insert("damage_type".into(), code);
        assert_eq!(damage_kind(&skarn, false), kind, "damage_type {code}");
        // Boudica's deflection 4 (-1 for the ogre's larger size) counts unless typeless.
        let expected = if kind == DamageKind::Typeless { 0 } else { 3 };
        assert_eq!(
            deflection_against(&skarn, &b.units[U0.index()], false, 0),
            expected,
            "damage_type {code}"
        );
    }
    // Every template names its weapons' types (none is typeless by omission).
    for u in &b.units {
        assert_eq!(damage_kind(u, false), DamageKind::Physical, "{}", u.name);
    }
}

#[test]
fn resist_needs_focus_and_a_failed_resist_is_still_hit_by_the_mental_effect() {
    // Skarn's club deals psychic damage (a mental effect); Boudica (will d6 + resolve d4).
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre",
         overrides: {"damage_type": 10}),
    "#;
    let level = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .level();
    // Skarn: strength d10 (9) + combat d6 (6) = 15 vs evasion 6 - 1 (size), luck 10: a hit.
    // Boudica resists: 1 + 1 = 2, luck 10: fails.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [9, 6, 10, 1, 1, 10]);
    run(&mut b, pick(U1));
    run(&mut b, attack(U1, U0));
    let resist = react(U0, Reaction::Resist);
    assert!(b.legal_commands().contains(&resist));
    // With no focus left Resist is refused, and the battle is unchanged.
    let mut drained = b.clone();
    drained.units[U0.index()].pools.insert("focus".into(), 0);
    reject(&mut drained, resist.clone(), "no focus left to resist");
    assert!(!drained.legal_commands().contains(&resist));
    // A failed Resist still spends the focus and the reaction; the full 15 + 6 lands on
    // endurance, deflection ignored.
    // Its entry says so before it is tried: 1d6+1d4 (+4 on a lucky 20) cannot reach 15.
    let info = crate::rules::rulesets::describe(&b, &resist);
    assert_eq!(
        info.cost,
        "reaction, 1 focus: 1d6+1d4 against 15: 0% to shrug it off"
    );
    let events = run(&mut b, resist);
    assert_eq!(totals(&events, Purpose::Resist), vec![2]);
    assert_eq!(pool(&b, U0, "focus"), 1);
    assert_eq!(pool(&b, U0, "reactions"), 0);
    assert_eq!(pool(&b, U0, "endurance"), 0);
    assert_eq!(pool(&b, U0, "health"), 12 - (21 - 12));
    // Guarding, the same Resist rolls 1 + 1 + 1: Guard's +1 counts for every defence test.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [9, 6, 10, 1, 1, 10]);
    b.units[U0.index()].conditions.insert(Condition::Guarding);
    run(&mut b, pick(U1));
    run(&mut b, attack(U1, U0));
    let info = crate::rules::rulesets::describe(&b, &react(U0, Reaction::Resist));
    assert!(
        info.cost
            .starts_with("reaction, 1 focus: 1d6+1d4+1 against"),
        "{}",
        info.cost
    );
    let events = run(&mut b, react(U0, Reaction::Resist));
    assert_eq!(totals(&events, Purpose::Resist), vec![3]);
}

#[test]
fn the_combat_log_names_units_and_teams_in_english() {
    let level = load("alternating_bridge.ron");
    let (b, commands, events) = random_play(&level, 3, 400);
    assert!(!commands.is_empty());
    let mut seen = 0;
    for e in &events {
        if let Some(ev) = Alternating::event_of(e) {
            seen += 1;
            let line = crate::rules::battle::log::describe(&b, e);
            assert_eq!(line, log_line(&b, ev));
            assert!(
                !line.contains("UnitId") && !line.contains('{') && !line.contains('?'),
                "{line}"
            );
        }
    }
    assert!(seen > 10, "{seen} ruleset events");
    let first = events
        .iter()
        .find_map(|e| match Alternating::event_of(e) {
            Some(ev @ Ev::Order { .. }) => Some(log_line(&b, ev)),
            _ => None,
        })
        .expect("the team order");
    assert_eq!(first, "Teams pick in turn: Wardens, then Raiders");
    let petra = b
        .units
        .iter()
        .position(|u| &*u.name == "Petra")
        .expect("Petra");
    assert_eq!(
        log_line(
            &b,
            &Ev::Brandished {
                unit: UnitId(petra as u16),
                melee: true
            }
        ),
        "Petra takes up its melee weapon"
    );
}

#[test]
fn brandish_is_described_as_the_weapon_it_takes_up_for_one_action() {
    let units = r#"
        (name: "Petra", side: "Wardens", cell: (0, 1), template: "crossbowman"),
        (name: "Nix", side: "Raiders", cell: (1, 1), template: "goblin"),
    "#;
    let (mut b, _) = field().units(units).start(1);
    let p = U0;
    run(&mut b, pick(p));
    let brandish = act(p, Action::Brandish);
    let info = crate::rules::rulesets::describe(&b, &brandish);
    assert_eq!(info.label, "Brandish (take up the melee weapon)");
    assert_eq!(info.cost, "1 action");
    // The crossbow in hand: no melee odds until the sword is drawn.
    assert!(odds(&b, Alternating::state(&b), p, U1, false).is_none());
    assert!(odds(&b, Alternating::state(&b), p, U1, true).is_some());
    run(&mut b, brandish.clone());
    assert_eq!(
        crate::rules::rulesets::describe(&b, &brandish).label,
        "Brandish (take up the ranged weapon)"
    );
    assert!(odds(&b, Alternating::state(&b), p, U1, false).is_some());
    assert!(odds(&b, Alternating::state(&b), p, U1, true).is_none());
}

/// House rule (reaction timing, A-66): one reaction from the start of a unit's turn to the
/// start of its next. Boudica, attacked before her turn, dodges with her reaction; it is spent
/// until her turn, which gives it back, so she may react again later in the same round.
#[test]
fn a_reaction_spent_before_the_units_turn_comes_back_at_its_turn() {
    let level = field()
        .units(DUEL)
        .options(r#"instigator: "Raiders""#)
        .level();
    // A seed on which Skarn's first attack would hit her, so she is asked.
    let (mut b, skarn_hits) = (0..200u64)
        .find_map(|seed| {
            let (mut b, _) = BattleState::start(&level, seed);
            run(&mut b, pick(U1));
            run(&mut b, attack(U1, U0));
            matches!(b.pending(), Decision::React { unit: U0, .. }).then_some((b, seed))
        })
        .expect("some seed lets Skarn's attack land");
    assert_eq!(pool(&b, U0, "reactions"), 1, "seed {skarn_hits}");
    run(&mut b, react(U0, Reaction::Dodge));
    assert_eq!(pool(&b, U0, "reactions"), 0);
    // Skarn's turn goes on and ends; hers has not come: still no reaction.
    if b.pending() == (Decision::Act { unit: U1 }) {
        run(&mut b, end(U1));
    }
    assert_eq!(pool(&b, U0, "reactions"), 0);
    // Her turn, in the same round: the reaction is back.
    assert_eq!(b.round, 1);
    if let Decision::Pick { .. } = b.pending() {
        run(&mut b, pick(U0));
    }
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    assert_eq!(pool(&b, U0, "reactions"), 1);
}

#[test]
fn the_odds_say_what_a_dodge_would_leave_and_the_dice_agree() {
    use crate::rules::rulesets::{answered_odds, odds};
    let level = field()
        .units(DUEL)
        .options(r#"instigator: "Raiders""#)
        .level();
    let (b, _) = BattleState::start(&level, 1);
    let mut ready = b.clone();
    run(&mut ready, pick(U1));
    let plain = odds(&ready, U1, U0, false).expect("odds");
    let answered = answered_odds(&ready, U1, U0, false)
        .into_iter()
        .next()
        .expect("Boudica may dodge");
    assert_eq!(answered.reaction, "dodges");
    assert!(answered.odds.hit < plain.hit, "{answered:?} vs {plain:?}");
    assert!(answered.odds.expected_damage < plain.expected_damage);
    // The dice agree: Boudica dodging every hit, Skarn hits about that often (and, not
    // reacting, about as often as the plain odds say).
    let n = 3000;
    let (mut dodged, mut taken) = (0, 0);
    for seed in 0..n {
        for dodge in [true, false] {
            let (mut b, _) = BattleState::start(&level, seed);
            run(&mut b, pick(U1));
            let mut e = run(&mut b, attack(U1, U0));
            if matches!(b.pending(), Decision::React { unit: U0, .. }) {
                let answer = if dodge {
                    Reaction::Dodge
                } else {
                    Reaction::Decline
                };
                e.extend(run(&mut b, react(U0, answer)));
            }
            let hit = e.iter().any(|e| {
                matches!(
                    e,
                    Event::Attacked {
                        hit: true,
                        target: U0,
                        ..
                    }
                )
            });
            match (hit, dodge) {
                (true, true) => dodged += 1,
                (true, false) => taken += 1,
                _ => {}
            }
        }
    }
    let (dodged, taken) = (dodged as f64 / n as f64, taken as f64 / n as f64);
    assert!(
        (dodged - answered.odds.hit).abs() < 0.03,
        "{dodged} hits dodging, {} predicted",
        answered.odds.hit
    );
    assert!(
        (taken - plain.hit).abs() < 0.03,
        "{taken} hits, {} predicted",
        plain.hit
    );
    // With no stamina, or no reaction left, Boudica cannot dodge and the odds say nothing more.
    for spent in ["stamina", "reactions"] {
        let mut b = ready.clone();
        b.units[0].pools.insert(spent.into(), 0);
        assert_eq!(answered_odds(&b, U1, U0, false), vec![], "{spent}");
    }
}

#[test]
fn against_a_psychic_attack_the_odds_count_a_resist_and_the_dice_agree() {
    use crate::rules::rulesets::answered_odds;
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre",
         overrides: {"damage_type": 10}),
    "#;
    let level = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .level();
    let (mut b, _) = BattleState::start(&level, 1);
    run(&mut b, pick(U1));
    // With stamina, Boudica may dodge, parry, block or resist: the odds name each.
    let all: Vec<String> = answered_odds(&b, U1, U0, false)
        .into_iter()
        .map(|a| a.reaction)
        .collect();
    assert_eq!(all, ["dodges", "parries", "blocks", "resists"]);
    // Without stamina, only a Resist (focus) is left.
    b.units[0].pools.insert("stamina".into(), 0);
    let answers = answered_odds(&b, U1, U0, false);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let resist = &answers[0];
    assert_eq!(resist.reaction, "resists");
    let n = 3000;
    let hits = (0..n)
        .filter(|&seed| {
            let (mut b, _) = BattleState::start(&level, seed);
            run(&mut b, pick(U1));
            b.units[0].pools.insert("stamina".into(), 0);
            let mut e = run(&mut b, attack(U1, U0));
            if matches!(b.pending(), Decision::React { unit: U0, .. }) {
                e.extend(run(&mut b, react(U0, Reaction::Resist)));
            }
            e.iter().any(|e| {
                matches!(
                    e,
                    Event::Attacked {
                        hit: true,
                        target: U0,
                        ..
                    }
                )
            })
        })
        .count();
    let seen = hits as f64 / n as f64;
    assert!(
        (seen - resist.odds.hit).abs() < 0.03,
        "{seen} hits resisting, {} predicted",
        resist.odds.hit
    );
    b.units[0].pools.insert("focus".into(), 0);
    assert_eq!(answered_odds(&b, U1, U0, false), vec![]);
}

/// The odds name every defensive reaction that could answer an attack (the target's Dodge,
/// Parry and Block, an ally's Intercept), and the dice agree with each: how often the blow
/// lands, and how much of the wardens' endurance and health it takes. Tam, easier to hit than
/// Boudica, is hit by totals that would have missed her: those are never intercepted.
#[test]
fn the_odds_name_every_defence_and_the_dice_agree() {
    use crate::rules::rulesets::{answered_odds, odds};
    let units = r#"
        (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
        (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
        (name: "Tam", side: "Wardens", cell: (2, 3), template: "duelist",
         overrides: {"evasion": 3}),
    "#;
    let level = field()
        .units(units)
        .options(r#"instigator: "Raiders""#)
        .level();
    let (mut ready, _) = BattleState::start(&level, 1);
    run(&mut ready, pick(U1));
    let plain = odds(&ready, U1, U0, false).expect("odds");
    let answers = answered_odds(&ready, U1, U0, false);
    let said: Vec<(UnitId, &str)> = answers
        .iter()
        .map(|a| (a.by, a.reaction.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            (U0, "dodges"),
            (U0, "parries"),
            (U0, "blocks"),
            (UnitId(2), "intercepts")
        ]
    );
    // A Parry and a Block change the damage, not the chance to hit.
    for a in &answers[1..3] {
        assert!((a.odds.hit - plain.hit).abs() < 1e-9, "{a:?}");
        assert!(a.odds.expected_damage < plain.expected_damage, "{a:?}");
    }
    let wounds = |b: &BattleState| -> i64 {
        [U0, UnitId(2)]
            .iter()
            .map(|&u| b.units[u.index()].pool("endurance") + b.units[u.index()].pool("health"))
            .sum()
    };
    let n = 3000;
    for (i, answer) in answers.iter().enumerate() {
        let reaction = [
            Reaction::Dodge,
            Reaction::Parry,
            Reaction::Block,
            Reaction::Intercept,
        ][i]
            .clone();
        let (mut hits, mut lost) = (0usize, 0i64);
        for seed in 0..n {
            let (mut b, _) = BattleState::start(&level, seed);
            run(&mut b, pick(U1));
            let before = wounds(&b);
            let mut e = run(&mut b, attack(U1, U0));
            let mut intercepted = false;
            while let Decision::React { unit, .. } = b.pending() {
                let r = if reaction == Reaction::Intercept && unit == answer.by && !intercepted {
                    intercepted = true;
                    Reaction::Intercept
                } else if reaction != Reaction::Intercept && unit == U0 {
                    reaction.clone()
                } else {
                    Reaction::Decline
                };
                e.extend(run(&mut b, react(unit, r)));
            }
            hits += usize::from(
                e.iter()
                    .any(|e| matches!(e, Event::Attacked { hit: true, .. })),
            );
            lost += before - wounds(&b);
        }
        let (rate, mean) = (hits as f64 / n as f64, lost as f64 / n as f64);
        let o = &answer.odds;
        assert!(
            (rate - o.hit).abs() < 0.03,
            "{reaction:?}: {rate} hits, {o:?}"
        );
        assert!(
            (mean - o.expected_damage).abs() < 0.1 * o.expected_damage + 0.05,
            "{reaction:?}: {mean} lost, {o:?}"
        );
    }
}
