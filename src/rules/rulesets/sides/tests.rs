//! Tests of the `sides` ruleset, rule by rule (ids are rows of `docs/rules/sides.md`). Dice
//! tapes force the rolls; the comments say which die is which.

use super::combat::{Kind, Spec};
use super::*;
use crate::rules::battle::tests::{playouts_end_and_replay, random_play};
use crate::rules::battle::{
    Action, Event, Interrupt, Purpose, Reaction, Resume, SideId, Status, Trigger,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::RulesetId;
use crate::rules::testkit::{
    Field, U0, U1, U2, U3, act, attack, decline, load, mv, pool, reject, rolled_exprs, rolls, run,
    shoot,
};

/// The kit's field as this file's battles stand on it: 8 x 5 open squares unless `.map` says
/// otherwise, one square per diagonal step, sides Party (Human) and Foes (Ai).
fn field() -> Field {
    Field::new(RulesetId::Sides)
        .topology("Square(diagonals: One)")
        .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
}

fn hp(b: &BattleState, u: UnitId) -> i64 {
    pool(b, u, "hp")
}

fn state(b: &BattleState) -> &State {
    Sides::state(b)
}

fn sides_ev(events: &[Event]) -> Vec<&Ev> {
    events.iter().filter_map(Sides::event_of).collect()
}

// ---------------------------------------------------------------------------------------------
// Combat sequence (S-09..S-14)

#[test]
fn each_side_rolls_1d8_the_party_adds_its_best_dex_and_wins_ties() {
    // Aldric (DEX 0) and Mira (DEX 2) are the Party: 1d8 + 2. The Foes roll 1d8.
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 4), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (7, 2), template: "reaver"),
    "#;
    let (b, events) = BattleState::start_with_tape(&field().units(units).level(), 1, [3, 5]);
    assert_eq!(rolled_exprs(&events, Purpose::Initiative), ["1d8+2", "1d8"]);
    assert_eq!(state(&b).scores, vec![5, 5]);
    assert_eq!(
        state(&b).order,
        vec![SideId(0), SideId(1)],
        "the Party wins ties"
    );
    // The Foes win outright with a higher roll.
    let (b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [2, 6]);
    assert_eq!(state(&b).order, vec![SideId(1), SideId(0)]);
    assert_eq!(b.pending(), Decision::Act { unit: U2 }, "Hruk is alone");
    // options.party makes the Foes the Party: they add their DEX (0) and win the tie.
    let (b, events) = BattleState::start_with_tape(
        &field().units(units).options(r#"party: "Foes""#).level(),
        1,
        [4, 4],
    );
    assert_eq!(rolled_exprs(&events, Purpose::Initiative), ["1d8", "1d8"]);
    assert_eq!(state(&b).order, vec![SideId(1), SideId(0)]);
}

#[test]
fn a_side_picks_its_members_in_any_order_and_initiative_is_never_rerolled() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 4), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (7, 2), template: "reaver"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [6, 1]);
    assert_eq!(
        b.pending(),
        Decision::Pick {
            side: SideId(0),
            options: vec![U0, U1]
        }
    );
    reject(&mut b, Command::Pick { unit: U2 }, "not of the Party");
    reject(&mut b, Command::EndTurn { unit: U0 }, "must first pick");
    // Mira first: she takes all her actions before anyone else.
    run(&mut b, Command::Pick { unit: U1 });
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    reject(&mut b, Command::Pick { unit: U0 }, "must end it");
    reject(&mut b, mv(U0, 1, 0), "Mira's turn");
    run(&mut b, mv(U1, 1, 4));
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    // Then Aldric, picked by himself as the last one left; then the next side.
    let e = run(&mut b, Command::EndTurn { unit: U1 });
    assert!(e.contains(&Event::TurnStarted { unit: U0 }));
    let e = run(&mut b, Command::EndTurn { unit: U0 });
    assert!(e.contains(&Event::TurnStarted { unit: U2 }));
    reject(
        &mut b,
        Command::Pick { unit: U1 },
        "Hruk is taking its turn",
    );
    // Round 2 begins from the top in the same order, with no new roll.
    let e = run(&mut b, Command::EndTurn { unit: U2 });
    assert!(e.contains(&Event::RoundStarted { round: 2 }));
    assert!(rolls(&e, Purpose::Initiative).is_empty());
    assert_eq!(
        b.pending(),
        Decision::Pick {
            side: SideId(0),
            options: vec![U0, U1]
        }
    );
    reject(&mut b, Command::Pick { unit: U2 }, "not of the Party");
}

#[test]
fn surprise_gives_the_aware_a_free_round_and_then_initiative_is_rolled() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (1, 1), template: "reaver"),
        (name: "Fang", side: "Foes", cell: (7, 4), template: "wolf"),
    "#;
    let level = field()
        .units(units)
        .options(r#"surprised: ["Party"]"#)
        .level();
    let (mut b, events) = BattleState::start_with_tape(&level, 1, [20, 6, 2, 6]);
    assert!(rolls(&events, Purpose::Initiative).is_empty(), "not yet");
    assert!(b.units[0].has(&Condition::Surprised));
    assert!(state(&b).surprise);
    // The Foes pick; the surprised Aldric neither acts nor makes attacks of opportunity.
    assert_eq!(
        b.pending(),
        Decision::Pick {
            side: SideId(1),
            options: vec![U1, U2]
        }
    );
    run(&mut b, Command::Pick { unit: U1 });
    // Hruk hits (20 + 4 vs 16): 1d10+2 = 8. Aldric could not take Total Defense.
    let e = run(&mut b, attack(U1, U0));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(24, Some(16))]);
    assert_eq!(hp(&b, U0), 4);
    // Hruk walks away from Aldric: no attack of opportunity from the surprised.
    let e = run(&mut b, mv(U1, 3, 3));
    assert!(!e.iter().any(|e| matches!(e, Event::Interrupted(_))));
    run(&mut b, Command::EndTurn { unit: U1 });
    // Fang (auto-picked) ends; the surprise round is over: initiative, Party 2 + 0 vs 1d8 ...
    let e = run(&mut b, Command::EndTurn { unit: U2 });
    assert!(e.contains(&Event::RoundEnded { round: 1 }));
    assert!(!b.units[0].has(&Condition::Surprised));
    assert_eq!(rolls(&e, Purpose::Initiative), vec![(2, None), (6, None)]);
    assert!(e.contains(&Event::RoundStarted { round: 2 }));
    assert_eq!(state(&b).order, vec![SideId(1), SideId(0)]);
}

// ---------------------------------------------------------------------------------------------
// Actions (S-19..S-23)

#[test]
fn a_unit_has_a_main_and_a_move_action_and_may_trade_the_main_for_a_second_move() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 2), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (10, 4), template: "reaver"),
    "#;
    let map = ["...................."; 5];
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    // Six squares: the Move action.
    run(&mut b, mv(U0, 6, 2));
    assert_eq!(
        (per(state(&b), U0).main, per(state(&b), U0).mv),
        (true, false)
    );
    let info = crate::rules::rulesets::describe(&b, &mv(U0, 5, 2));
    assert_eq!(info.cost, "Main action (as a second Move)");
    assert!(!info.dear, "its only move left: nothing nearer is cheaper");
    // A second Move spends the Main action; then no attack is left.
    run(&mut b, mv(U0, 6, 1));
    assert!(!per(state(&b), U0).main);
    reject(&mut b, attack(U0, U1), "already spent its Main action");
    reject(&mut b, mv(U0, 6, 2), "no Move action left");
    // Next round: twelve squares at once spend both.
    run(&mut b, Command::EndTurn { unit: U0 });
    run(&mut b, Command::EndTurn { unit: U1 });
    let info = crate::rules::rulesets::describe(&b, &mv(U0, 15, 0));
    assert_eq!(info.cost, "Move + Main actions (two moves)");
    assert!(info.dear, "two moves: the far shade");
    assert!(!crate::rules::rulesets::describe(&b, &mv(U0, 6, 0)).dear);
    reject(&mut b, mv(U0, 19, 4), "cannot reach");
    run(&mut b, mv(U0, 15, 0));
    let p = per(state(&b), U0);
    assert_eq!((p.main, p.mv), (false, false));
    assert_eq!(b.units[0].cell, Cell::new(15, 0));
}

#[test]
fn go_prone_is_free_and_halves_movement_standing_up_is_a_move_action() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 2), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (7, 4), template: "reaver"),
    "#;
    let map = ["................"; 5];
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    run(&mut b, act(U0, Action::GoProne));
    assert!(b.units[0].is_prone());
    assert_eq!(
        (per(state(&b), U0).main, per(state(&b), U0).mv),
        (true, true)
    );
    reject(&mut b, act(U0, Action::GoProne), "already prone");
    // Crawling: 3 squares per Move action.
    reject(&mut b, mv(U0, 7, 2), "cannot reach");
    run(&mut b, mv(U0, 3, 2));
    run(&mut b, act(U0, Action::StandUp));
    assert!(!b.units[0].is_prone());
    assert!(
        !per(state(&b), U0).main,
        "the second Move action was the Main"
    );
}

// ---------------------------------------------------------------------------------------------
// Attack rolls and modifiers (S-107..S-126)

#[test]
fn an_attack_hits_when_d20_plus_bonus_reaches_ac() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver", overrides: {"ac": 16}),
    "#;
    // 13 + 3 = 16 vs AC 16: a hit; 1d8+1 = 6.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 13, 5]);
    let mut e = run(&mut b, attack(U0, U1));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(16, Some(16))]);
    // Hruk could still turn it into a miss with Total Defense; he lets it pass.
    e.extend(run(&mut b, decline(U1)));
    assert!(e.contains(&Event::Attacked {
        attacker: U0,
        target: U1,
        ranged: false,
        hit: true,
        crit: false,
        spell: None
    }));
    assert_eq!(rolls(&e, Purpose::Damage), vec![(6, None)]);
    assert_eq!(hp(&b, U1), 10);
}

/// The attack bonus against `target` as the engine computes it.
fn bonus(b: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> (i64, Vec<String>) {
    combat::attack_bonus(
        b,
        &Spec {
            attacker,
            target,
            ranged,
            kind: Kind::Normal,
            swarm: 0,
        },
    )
}

#[test]
fn situation_modifiers_follow_the_seeds_table() {
    let units = r#"
        (name: "Mira", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Pip", side: "Party", cell: (2, 2), template: "cutthroat"),
        (name: "Hruk", side: "Foes", cell: (3, 2), template: "reaver"),
        (name: "Osk", side: "Foes", cell: (30, 2), template: "archer"),
    "#;
    let map = ["................................"; 5];
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    // Dual wielding -1 always; Pip is in melee with Hruk: thrown -4 (S-122, S-163).
    assert_eq!(bonus(&b, U1, U2, false).0, 3 - 1);
    assert_eq!(bonus(&b, U1, U2, true).0, 3 - 1 - 4);
    // Osk is 30 squares from Mira: past the bow's 20, within 120: -2 (S-119).
    assert_eq!(bonus(&b, U0, UnitId(3), true).0, 3 - 2);
    // A prone target: +2 adjacent, -2 shot from afar (S-116, S-117); melee while prone -4 (S-118).
    run(&mut b, Command::Pick { unit: U1 });
    run(&mut b, act(U1, Action::GoProne));
    assert_eq!(bonus(&b, U2, U1, false).0, 4 + 2);
    assert_eq!(bonus(&b, UnitId(3), U1, true).0, 3 - 2 - 2);
    assert_eq!(bonus(&b, U1, U2, false).0, 3 - 1 - 4);
    let (_, notes) = bonus(&b, U1, U2, false);
    assert_eq!(notes, ["two weapons -1", "attacking while prone -4"]);
    // A bow cannot be fired at all with an enemy in melee range (S-56, S-124).
    run(&mut b, Command::EndTurn { unit: U1 });
    run(&mut b, mv(U0, 2, 1));
    reject(
        &mut b,
        shoot(U0, U2),
        "cannot shoot a bow with Hruk in melee range",
    );
    reject(&mut b, shoot(U0, UnitId(3)), "cannot shoot a bow");
    assert!(crate::rules::rulesets::odds(&b, U0, UnitId(3), true).is_none());
}

#[test]
fn cover_gives_minus_2_half_and_minus_4_full() {
    // The keep: Tobin right behind an arrow slit has full cover from Mira far off on his row;
    // Grell inside the breach, by the wall's corner, has half cover.
    let level = load("sides_keep_arrow_slits.ron");
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [5, 3]);
    let (mira, tobin, grell) = (UnitId(3), UnitId(5), UnitId(8));
    assert_eq!(b.cover(mira, tobin), crate::rules::sight::Cover::Full);
    assert_eq!(
        bonus(&b, mira, tobin, true),
        (3 - 4, vec!["full cover -4".to_string()])
    );
    run(&mut b, Command::Pick { unit: mira });
    run(&mut b, mv(mira, 3, 6));
    assert_eq!(b.cover(mira, grell), crate::rules::sight::Cover::Half);
    assert_eq!(
        bonus(&b, mira, grell, true),
        (3 - 2, vec!["half cover -2".to_string()])
    );
    // Out in the open, no cover: Aldric on the field seen from Mira.
    assert_eq!(bonus(&b, mira, UnitId(0), true).0, 3);
}

// ---------------------------------------------------------------------------------------------
// Damage and Shock (S-127..S-142)

#[test]
fn a_miss_deals_shock_to_a_target_whose_ac_is_at_or_under_the_shock_ac() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior", overrides: {"shock_ac": 15}),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (1, 2), template: "reaver", overrides: {"ac": 16}),
    "#;
    // "Shock 2/AC 15": a miss on Mira (AC 13) still does 2. Mira declines Total Defense.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 2]);
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(5, Some(13))]);
    assert!(matches!(b.pending(), Decision::React { unit: U1, .. }));
    let e = run(&mut b, decline(U1));
    assert!(sides_ev(&e).contains(&&Ev::Shock {
        attacker: U0,
        target: U1,
        amount: 2,
        negated: None
    }));
    assert_eq!(hp(&b, U1), 6);
    // Against AC 16 a miss does nothing.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 2]);
    let e = run(&mut b, attack(U0, U2));
    assert!(!e.iter().any(|e| matches!(e, Event::Interrupted(_))));
    assert_eq!(hp(&b, U2), 16);
    // Shock "-" (shock_ac 99) hits any AC.
    let units = units.replace(r#"{"shock_ac": 15}"#, r#"{"shock_ac": 99, "shock": 5}"#);
    let (mut b, _) = BattleState::start_with_tape(&field().units(&units).level(), 1, [8, 1, 2]);
    run(&mut b, attack(U0, U2));
    run(&mut b, decline(U2));
    assert_eq!(hp(&b, U2), 11);
}

#[test]
fn a_hit_never_does_less_than_the_shock() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
    "#;
    // Hruk hits (15 + 4 vs 13); 1d10+2 rolls 1 + 2 = 3, his Shock is 3... make it 5.
    let units = units.replace(
        r#"template: "reaver")"#,
        r#"template: "reaver", overrides: {"shock": 5})"#,
    );
    let (mut b, _) = BattleState::start_with_tape(&field().units(&units).level(), 1, [8, 1, 15, 1]);
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(rolls(&e, Purpose::Damage), vec![(3, None)]);
    assert!(sides_ev(&e).contains(&&Ev::ShockFloor {
        attacker: U0,
        target: U1,
        rolled: 3,
        shock: 5
    }));
    assert_eq!(hp(&b, U1), 3);
}

#[test]
fn a_shield_ignores_the_first_shock_each_round() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Fang", side: "Party", cell: (2, 2), template: "wolf"),
        (name: "Aldric", side: "Foes", cell: (2, 1), template: "warrior", overrides: {"ac": 13}),
    "#;
    // Hruk misses (2 + 4 vs 13): Shock 3/15 would apply, but the shield takes it. Fang misses
    // (1 + 2): Shock 1/13 now gets through.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 2, 1]);
    run(&mut b, Command::Pick { unit: U0 });
    let e = run(&mut b, attack(U0, U2));
    assert!(
        !e.iter().any(|e| matches!(e, Event::Interrupted(_))),
        "nothing to defend"
    );
    assert!(sides_ev(&e).contains(&&Ev::ShieldUsed { unit: U2 }));
    assert_eq!(hp(&b, U2), 12);
    run(&mut b, Command::EndTurn { unit: U0 });
    run(&mut b, attack(U1, U2));
    // Now Total Defense could stop the Shock; Aldric declines.
    let e = run(&mut b, decline(U2));
    assert!(sides_ev(&e).contains(&&Ev::Shock {
        attacker: U1,
        target: U2,
        amount: 1,
        negated: None
    }));
    assert_eq!(hp(&b, U2), 11);
}

// ---------------------------------------------------------------------------------------------
// Instant actions (S-47, S-48, S-57..S-60, S-80..S-83)

#[test]
fn total_defense_after_seeing_the_roll_turns_a_hit_into_a_miss_and_stops_shock() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
    "#;
    // Hruk rolls 10 + 4 = 14 vs AC 13: a hit. Mira takes Total Defense: AC 15, a miss, and no
    // Shock either.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 10]);
    run(&mut b, attack(U0, U1));
    assert_eq!(
        b.pending(),
        Decision::React {
            unit: U1,
            trigger: Trigger::Attacked {
                attacker: U0,
                target: U1,
                total: 14,
                needed: 13,
                hit: true
            }
        }
    );
    let td = Command::React {
        unit: U1,
        reaction: Reaction::TotalDefense,
    };
    let words = crate::rules::rulesets::describe(&b, &td).cost;
    assert!(
        words.ends_with(": this hit (14 vs AC 13) becomes a miss"),
        "{words}"
    );
    let e = run(&mut b, td);
    assert!(e.contains(&Event::Attacked {
        attacker: U0,
        target: U1,
        ranged: false,
        hit: false,
        crit: false,
        spell: None
    }));
    assert!(sides_ev(&e).contains(&&Ev::Shock {
        attacker: U0,
        target: U1,
        amount: 3,
        negated: Some("Total Defense".into())
    }));
    assert_eq!(hp(&b, U1), 8);
    assert!(!per(state(&b), U1).main, "it gave up the Main action");
    // It lasts until the start of Mira's next turn.
    run(&mut b, Command::EndTurn { unit: U0 });
    assert!(
        !b.units[1].has(&Condition::TotalDefense),
        "her turn has started"
    );
    reject(
        &mut b,
        act(U1, Action::TotalDefense),
        "already spent its Main action",
    );
}

#[test]
fn a_snap_attack_gives_up_the_main_action_at_minus_4_and_can_stop_a_hit_before_damage() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
        (name: "Brann", side: "Foes", cell: (2, 2), template: "sergeant"),
        (name: "Fang", side: "Party", cell: (7, 4), template: "wolf"),
    "#;
    // Before Hruk's attack, Brann may Snap Attack him; he waits. Hruk hits Mira (18 + 4).
    // Mira cannot defend (22 beats AC 15 anyway); Brann snaps: 1d20 + 5 - 4 = 19 + 1 = 20 vs
    // 13, 1d6 + 2 = 6 + 2 = 8; again... Hruk has 16 HP, so give him 4.
    let units = units.replace(
        r#"template: "reaver")"#,
        r#"template: "reaver", overrides: {"hp": 4})"#,
    );
    let (mut b, _) =
        BattleState::start_with_tape(&field().units(&units).level(), 1, [8, 1, 18, 19, 6]);
    run(&mut b, Command::Pick { unit: U0 });
    run(&mut b, attack(U0, U1));
    // Brann is asked first, before the roll: a Snap Attack may interrupt any enemy action.
    assert_eq!(
        b.pending(),
        Decision::React {
            unit: U2,
            trigger: Trigger::Ready { actor: U0 }
        }
    );
    // Its menu entry's odds are a Snap Attack's: 1d20 + 5 - 4 against AC 13, 20 points
    // under an ordinary attack's.
    let plain = crate::rules::rulesets::odds(&b, U2, U0, false).expect("plain odds");
    let snap = crate::rules::rulesets::reaction_attack_odds(&b, U2, U0).expect("snap odds");
    assert!((plain.hit - 0.65).abs() < 1e-9, "{plain:?}");
    assert!((snap.hit - 0.45).abs() < 1e-9, "{snap:?}");
    assert!(snap.formula.contains("snap attack -4"), "{}", snap.formula);
    let e = run(&mut b, decline(U2));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(22, Some(13))]);
    assert!(matches!(
        b.pending(),
        Decision::React {
            unit: U2,
            trigger: Trigger::Attacked { .. }
        }
    ));
    let e = run(
        &mut b,
        Command::React {
            unit: U2,
            reaction: Reaction::Attack { target: U0 },
        },
    );
    assert_eq!(rolled_exprs(&e, Purpose::Attack), ["1d20+1"]);
    assert_eq!(hp(&b, U0), 0);
    assert_eq!(b.units[0].status, Status::Down);
    // Hruk fell before his blow landed: Mira takes no damage.
    assert_eq!(rolls(&e, Purpose::Damage).len(), 1, "only Brann's");
    assert!(
        sides_ev(&e)
            .iter()
            .any(|e| matches!(e, Ev::Cancelled { unit, .. } if *unit == U0))
    );
    assert!(b.outcome.is_none());
    assert_eq!(hp(&b, U1), 8);
    assert!(!per(state(&b), U2).main);
}

#[test]
fn only_trained_units_with_their_main_action_may_snap_attack() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
        (name: "Nell", side: "Foes", cell: (2, 2), template: "cutthroat"),
    "#;
    // Nell has no snap_attack: no prompt before Hruk's attack; Hruk hits (9 + 4 vs 13), Mira
    // may only defend.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 9]);
    run(&mut b, attack(U0, U1));
    assert!(matches!(
        b.pending(),
        Decision::React {
            unit: U1,
            trigger: Trigger::Attacked { .. }
        }
    ));
    let legal = b.legal_commands();
    assert_eq!(
        legal,
        vec![
            decline(U1),
            Command::React {
                unit: U1,
                reaction: Reaction::TotalDefense
            }
        ]
    );
    reject(
        &mut b,
        Command::React {
            unit: U1,
            reaction: Reaction::Attack { target: U0 },
        },
        "Mira cannot",
    );
}

// ---------------------------------------------------------------------------------------------
// Attacks of opportunity and Disengage (S-31, S-32, S-36, S-41, S-42, S-44, S-85..S-90)

#[test]
fn leaving_an_armed_enemys_reach_provokes_unless_disengaged() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 3]);
    // Stepping around Hruk stays in his reach: no attack.
    let e = run(&mut b, mv(U0, 1, 2));
    assert!(!e.iter().any(|e| matches!(e, Event::Interrupted(_))));
    // Walking off: Hruk may attack as Aldric leaves (1, 2).
    let info = crate::rules::rulesets::describe(&b, &mv(U0, 0, 4));
    assert!(info.provokes, "{info:?}");
    let e = run(&mut b, mv(U0, 0, 4));
    assert!(e.contains(&Event::Interrupted(Interrupt {
        trigger: Trigger::Opportunity {
            mover: U0,
            from: Cell::new(1, 2),
            to: Cell::new(0, 3)
        },
        reactors: vec![U1],
        resume: Resume::Move {
            unit: U0,
            rest: vec![Cell::new(1, 2), Cell::new(0, 3), Cell::new(0, 4)]
        }
    })));
    // Its odds are an ordinary blow's (no -4 as for a Snap Attack).
    let o = crate::rules::rulesets::reaction_attack_odds(&b, U1, U0).expect("its odds");
    assert_eq!(
        Some(o.hit),
        crate::rules::rulesets::odds(&b, U1, U0, false).map(|p| p.hit)
    );
    assert!(!o.formula.contains("snap"), "{}", o.formula);
    // The attack of opportunity is a free attack: 3 + 4 misses AC 16 (no Shock: 16 > 15).
    let e = run(
        &mut b,
        Command::React {
            unit: U1,
            reaction: Reaction::Attack { target: U0 },
        },
    );
    assert_eq!(rolls(&e, Purpose::Attack), vec![(7, Some(16))]);
    assert_eq!(b.units[0].cell, Cell::new(0, 4), "the move went on");
    assert!(per(state(&b), U1).main, "it cost Hruk nothing");
    // Next round: Disengage first, then walk away freely.
    run(&mut b, Command::EndTurn { unit: U0 });
    run(&mut b, mv(U1, 1, 3));
    run(&mut b, Command::EndTurn { unit: U1 });
    run(&mut b, act(U0, Action::Disengage));
    assert!(!crate::rules::rulesets::describe(&b, &mv(U0, 5, 0)).provokes);
    let e = run(&mut b, mv(U0, 5, 0));
    assert!(!e.iter().any(|e| matches!(e, Event::Interrupted(_))));
    reject(&mut b, act(U0, Action::Disengage), "already spent");
}

#[test]
fn standing_up_first_aid_charging_and_screening_next_to_an_armed_enemy_provoke() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Bera", side: "Party", cell: (0, 1), template: "warrior", overrides: {"hp": 1}),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver"),
        (name: "Fang", side: "Foes", cell: (6, 3), template: "wolf"),
    "#;
    let level = field().units(units).level();
    let provoked = |e: &[Event], action: &str| {
        e.iter().any(|e| {
            matches!(e, Event::Interrupted(Interrupt { trigger: Trigger::Provoked { actor, action: a }, reactors, .. })
                if *actor == U0 && a == action && reactors == &vec![U2])
        })
    };
    // Stand Up.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    run(&mut b, Command::Pick { unit: U0 });
    run(&mut b, act(U0, Action::GoProne));
    assert!(crate::rules::rulesets::describe(&b, &act(U0, Action::StandUp)).provokes);
    let e = run(&mut b, act(U0, Action::StandUp));
    assert!(provoked(&e, "Stand Up"));
    run(&mut b, decline(U2));
    assert!(!b.units[0].is_prone(), "it stood up after the reaction");
    // A Charge from next to Hruk (at Fang).
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    run(&mut b, Command::Pick { unit: U0 });
    let charge = act(
        U0,
        Action::Charge {
            target: UnitId(3),
            to: Cell::new(5, 1),
        },
    );
    reject(&mut b, charge.clone(), "Hruk stands in the way");
    let charge = act(
        U0,
        Action::Charge {
            target: UnitId(3),
            to: Cell::new(5, 3),
        },
    );
    let e = run(&mut b, charge);
    assert!(provoked(&e, "Charge"));
    // A Screen that moves (to Bera's other side).
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    run(&mut b, Command::Pick { unit: U0 });
    let screen = act(
        U0,
        Action::Screen {
            ally: U1,
            to: Cell::new(0, 2),
        },
    );
    let e = run(&mut b, screen);
    assert!(provoked(&e, "Screen an Ally"));
    // Screening from where it stands does not move, so it does not provoke.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    run(&mut b, Command::Pick { unit: U0 });
    let e = run(
        &mut b,
        act(
            U0,
            Action::Screen {
                ally: U1,
                to: Cell::new(1, 1),
            },
        ),
    );
    assert!(!e.iter().any(|e| matches!(e, Event::Interrupted(_))));
    assert!(b.units[0].has(&Condition::Screening { ally: U1 }));
    // First aid (Use a Skill) on a downed Bera: Hruk downs her first.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [1, 8, 20, 1]);
    assert_eq!(state(&b).order, vec![SideId(1), SideId(0)]);
    run(&mut b, Command::Pick { unit: U2 });
    run(&mut b, mv(U2, 1, 0));
    run(&mut b, attack(U2, U1));
    assert_eq!(b.units[1].status, Status::Down);
    run(&mut b, Command::EndTurn { unit: U2 });
    run(&mut b, Command::EndTurn { unit: UnitId(3) });
    let aid = act(U0, Action::FirstAid { target: U1 });
    let e = run(&mut b, aid);
    assert!(provoked(&e, "Use a Skill (first aid)"));
}

#[test]
fn a_charge_runs_a_straight_line_for_plus_2_to_hit_and_minus_2_ac() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (9, 3), template: "reaver"),
    "#;
    let map = ["............"; 5];
    // Charge to (8, 3): 8 squares, the line (0,0) (1,0) (2,1) ... Attack 10 + 3 + 2 = 15.
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1, 10, 4]);
    let far = act(
        U0,
        Action::Charge {
            target: U1,
            to: Cell::new(8, 2),
        },
    );
    let charge = act(
        U0,
        Action::Charge {
            target: U1,
            to: Cell::new(8, 3),
        },
    );
    let info = crate::rules::rulesets::describe(&b, &charge);
    assert_eq!(info.cost, "Main + Move actions");
    let path = info.path.expect("a charge shows its line");
    assert_eq!(path.cells().len(), 9);
    assert_eq!(
        moves::line(Cell::new(0, 0), Cell::new(8, 3)),
        path.cells(),
        "the line is straight"
    );
    let e = run(&mut b, charge);
    assert_eq!(rolls(&e, Purpose::Attack), vec![(15, Some(13))]);
    assert!(b.units[0].has(&Condition::Charging));
    assert_eq!(combat::ac_of(&b, U0), 14);
    reject(&mut b, far, "already spent");
    // The -2 AC lasts until the end of the round.
    run(&mut b, Command::EndTurn { unit: U0 });
    let e = run(&mut b, Command::EndTurn { unit: U1 });
    assert!(e.contains(&Event::RoundStarted { round: 2 }));
    assert_eq!(combat::ac_of(&b, U0), 16);
}

/// The Party is told by what it does (S-09, S-14), not by its name ("Party is the Party"), and
/// a unit whose turn is over reads as done in the turn order, never listing a Move it cannot
/// take (issue 22); an unspent Main is told as what it can still pay for, an Instant (S-28).
#[test]
fn the_party_line_says_what_it_means_and_a_done_unit_reads_as_done() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 4), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (14, 4), template: "reaver"),
    "#;
    let map = ["..............."; 5];
    let level = field().map(&map).units(units);
    let (mut b, events) = BattleState::start_with_tape(&level.level(), 1, [6, 1]);
    let lines: Vec<String> = events
        .iter()
        .map(|e| crate::rules::battle::log::describe(&b, e))
        .collect();
    assert!(
        lines.contains(&"Party adds its best DEX to its initiative roll and wins ties".into()),
        "{lines:?}"
    );
    let label = |b: &BattleState, u: UnitId| {
        let clock = crate::rules::rulesets::clock(b);
        let entry = clock.order.into_iter().find(|o| o.unit == u);
        entry.expect("every unit is in the turn order").label
    };
    assert_eq!(label(&b, U1), "Main, Move");
    // Mira moves (her Move action) and ends her turn: her Main is left for an Instant action
    // (a reaction).
    run(&mut b, Command::Pick { unit: U1 });
    run(&mut b, mv(U1, 1, 4));
    run(&mut b, Command::EndTurn { unit: U1 });
    assert_eq!(label(&b, U1), "Done \u{b7} can react");
    // Aldric runs ten squares (his Move and his Main as a second Move): nothing is left.
    assert_eq!(label(&b, U0), "Main, Move");
    run(&mut b, mv(U0, 10, 0));
    assert_eq!(label(&b, U0), "No actions left");
    run(&mut b, Command::EndTurn { unit: U0 });
    assert_eq!(label(&b, U0), "Done");
    // A side named in the plural gets verbs that agree.
    let (b, events) =
        BattleState::start_with_tape(&level.options(r#"party: "Foes""#).level(), 1, [6, 1]);
    let lines: Vec<String> = events
        .iter()
        .map(|e| crate::rules::battle::log::describe(&b, e))
        .collect();
    assert!(
        lines.contains(&"Foes add their best DEX to their initiative roll and win ties".into()),
        "{lines:?}"
    );
}

/// A charge may end in a thrown attack, and the rules text gives that the +2 too (S-65: "melee
/// or thrown", in our words): the log's sum says why it is there.
#[test]
fn a_charge_ending_in_a_thrown_attack_gets_the_plus_2_and_the_log_says_why() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "cutthroat"),
        (name: "Hruk", side: "Foes", cell: (5, 0), template: "reaver"),
    "#;
    let map = ["........"; 3];
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1, 10, 3]);
    let e = run(
        &mut b,
        act(
            U0,
            Action::Charge {
                target: U1,
                to: Cell::new(3, 0),
            },
        ),
    );
    // Two squares from Hruk, out of melee reach: the knife is thrown. 3 - 1 two weapons + 2.
    let bonus = e
        .iter()
        .find_map(|x| match x {
            Event::Reckoned {
                what, terms, total, ..
            } if what == "attack bonus" => Some((terms.clone(), *total)),
            _ => None,
        })
        .expect("the attack bonus is reckoned");
    assert_eq!(bonus.1, 4, "{bonus:?}");
    assert!(
        bonus
            .0
            .contains(&crate::rules::battle::Term::new(combat::CHARGE_THROWN, 2)),
        "{bonus:?}"
    );
    let line = e
        .iter()
        .map(|x| crate::rules::battle::log::describe(&b, x))
        .find(|l| l.contains("attack bonus 4"))
        .expect("a line for the attack bonus");
    assert!(
        line.contains("+ 2 charge (a thrown attack gets it too)"),
        "{line}"
    );
    // The d20's 10 + 4.
    assert_eq!(rolls(&e, Purpose::Attack)[0].0, 14);
}

/// The Charge's entry tells the odds of the attack it ends with, from the square it ends on
/// and with the charge's +2; the dice agree.
#[test]
fn a_charge_tells_the_odds_of_its_attack_and_the_dice_agree() {
    use crate::rules::rulesets::{action_odds, odds};
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (9, 3), template: "reaver"),
    "#;
    let map = ["............"; 5];
    let level = field().map(&map).units(units).level();
    let (b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    let charge = Action::Charge {
        target: U1,
        to: Cell::new(8, 3),
    };
    assert_eq!(
        odds(&b, U0, U1, false),
        None,
        "out of reach before the charge"
    );
    let (target, o) = action_odds(&b, U0, &charge).expect("a charge's odds");
    assert_eq!(target, U1);
    // 1d20 + 3 + 2 against AC 13: 65%, where a plain attack from there has 55%.
    assert!((o.hit - 0.65).abs() < 1e-9, "{o:?}");
    assert!(o.formula.contains("charge +2"), "{o:?}");
    let mut there = b.clone();
    there.units[0].cell = Cell::new(8, 3);
    let plain = odds(&there, U0, U1, false).expect("in reach");
    assert!((plain.hit - 0.55).abs() < 1e-9, "{plain:?}");
    // Not a moving attack, or a Charge that cannot be made: nothing.
    assert_eq!(action_odds(&b, U0, &Action::TotalDefense), None);
    let blocked = Action::Charge {
        target: U1,
        to: Cell::new(0, 1),
    };
    assert_eq!(action_odds(&b, U0, &blocked), None);
    let n = 3000;
    let hits = (0..n)
        .filter(|&seed| {
            let (mut b, _) = BattleState::start_with_tape(&level, seed, [8, 1]);
            let mut e = run(&mut b, act(U0, charge.clone()));
            while let Decision::React { unit, .. } = b.pending() {
                e.extend(run(&mut b, decline(unit)));
            }
            e.iter()
                .any(|e| matches!(e, Event::Attacked { hit: true, .. }))
        })
        .count();
    let seen = hits as f64 / n as f64;
    assert!((seen - o.hit).abs() < 0.03, "{seen} hits, {o:?}");
}

#[test]
fn a_charge_needs_room_a_clear_line_and_both_actions() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (0, 2), template: "warrior"),
        (name: "Hruk", side: "Foes", cell: (6, 2), template: "reaver"),
        (name: "Osk", side: "Foes", cell: (1, 0), template: "archer"),
    "#;
    let map = ["........", "........", "...#....", "........", "........"];
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    let charge = |x, y, t| {
        act(
            U0,
            Action::Charge {
                target: t,
                to: Cell::new(x, y),
            },
        )
    };
    reject(&mut b, charge(5, 2, U1), "blocked at (3, 2)");
    reject(&mut b, charge(0, 2, UnitId(2)), "at least 5 ft");
    reject(&mut b, charge(0, 1, U1), "would not be within");
    let e = run(&mut b, charge(0, 1, UnitId(2)));
    assert_eq!(
        rolled_exprs(&e, Purpose::Attack),
        ["1d20+5"],
        "+2 for the charge"
    );
    // Once moved, no second charge; a unit that has moved cannot charge.
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    run(&mut b, mv(U0, 1, 3));
    reject(&mut b, charge(5, 3, U1), "has used its Move");
}

// ---------------------------------------------------------------------------------------------
// Hold an Action (S-104..S-106)

#[test]
fn a_held_action_is_taken_before_another_units_action_and_lapses_at_round_end() {
    let units = r#"
        (name: "Mira", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (7, 2), template: "reaver"),
    "#;
    // Mira holds. Hruk's move waits while Mira takes her held action and shoots first
    // (1d20 = 15, + 3 vs 13; 1d8 + 2 = 8).
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 15, 6]);
    let info = crate::rules::rulesets::describe(&b, &act(U0, Action::Delay));
    assert_eq!(info.cost, "Move action (holds the Main action)");
    let e = run(&mut b, act(U0, Action::Delay));
    assert!(b.units[0].has(&Condition::Holding));
    assert!(e.contains(&Event::TurnStarted { unit: U1 }));
    run(&mut b, mv(U1, 5, 2));
    assert_eq!(
        b.pending(),
        Decision::React {
            unit: U0,
            trigger: Trigger::Ready { actor: U1 }
        }
    );
    assert_eq!(
        b.legal_commands(),
        vec![
            decline(U0),
            Command::React {
                unit: U0,
                reaction: Reaction::TakeHeld
            }
        ]
    );
    // Its entry says what Mira takes it with (the action is chosen once she acts).
    let take = Command::React {
        unit: U0,
        reaction: Reaction::TakeHeld,
    };
    assert_eq!(
        crate::rules::rulesets::describe(&b, &take).label,
        "Take the held action: act now with Main"
    );
    run(
        &mut b,
        Command::React {
            unit: U0,
            reaction: Reaction::TakeHeld,
        },
    );
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    assert_eq!(b.units[1].cell, Cell::new(7, 2), "Hruk has not moved yet");
    reject(&mut b, act(U0, Action::Delay), "cannot hold it again");
    reject(&mut b, Command::EndTurn { unit: U1 }, "Mira's turn");
    let e = run(&mut b, shoot(U0, U1));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(18, Some(13))]);
    assert_eq!(hp(&b, U1), 8);
    let info = crate::rules::rulesets::describe(&b, &Command::EndTurn { unit: U0 });
    assert_eq!(info.label, "End the held action");
    // Ending the held action lets Hruk's move go on.
    let e = run(&mut b, Command::EndTurn { unit: U0 });
    assert!(e.iter().any(|e| matches!(e, Event::Moved { unit: U1, .. })));
    assert_eq!(b.units[1].cell, Cell::new(5, 2));
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    // Round 2: Mira holds again, but no one acts after her: the held action is lost.
    run(&mut b, Command::EndTurn { unit: U1 });
    run(&mut b, act(U0, Action::Delay));
    let e = run(&mut b, Command::EndTurn { unit: U1 });
    assert!(e.contains(&Event::Condition {
        unit: U0,
        condition: Condition::Holding,
        on: false
    }));
    assert_eq!(b.round, 3);
    assert!(per(state(&b), U0).main);
}

#[test]
fn a_held_action_needs_the_move_action_and_something_left_to_hold() {
    let units = r#"
        (name: "Mira", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (7, 2), template: "reaver"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1]);
    run(&mut b, mv(U0, 1, 2));
    reject(&mut b, act(U0, Action::Delay), "spends the Move action");
}

// ---------------------------------------------------------------------------------------------
// Swarm Attack (S-61..S-64)

#[test]
fn a_swarm_strike_gets_plus_2_and_plus_1_per_assailant_and_always_shocks() {
    let units = r#"
        (name: "Fang", side: "Party", cell: (1, 1), template: "wolf"),
        (name: "Grey", side: "Party", cell: (1, 2), template: "wolf"),
        (name: "Ash", side: "Party", cell: (1, 3), template: "wolf"),
        (name: "Aldric", side: "Foes", cell: (2, 2), template: "warrior"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 3, 6]);
    let swarm = |u| act(u, Action::Swarm { target: U3 });
    run(&mut b, Command::Pick { unit: U0 });
    run(&mut b, swarm(U0));
    reject(&mut b, swarm(U0), "already spent");
    run(&mut b, Command::EndTurn { unit: U0 });
    run(&mut b, Command::Pick { unit: U1 });
    run(&mut b, swarm(U1));
    run(&mut b, Command::EndTurn { unit: U1 });
    // Ash strikes with two assailants: +4 to hit, +2 damage. 1d20 = 3: 3 + 2 + 4 = 9, a miss
    // against AC 16, yet Shock 1 applies despite the AC and the shield.
    let info = crate::rules::rulesets::describe(&b, &attack(U2, U3));
    assert!(
        info.cost.contains("swarm strike, 2 assailants"),
        "{}",
        info.cost
    );
    let o = crate::rules::rulesets::odds(&b, U2, U3, false).expect("in reach");
    assert!(o.formula.contains("swarm +4"), "{}", o.formula);
    let mut e = run(&mut b, attack(U2, U3));
    e.extend(run(&mut b, decline(U3)));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(9, Some(16))]);
    assert!(sides_ev(&e).contains(&&Ev::Shock {
        attacker: U2,
        target: U3,
        amount: 1,
        negated: None
    }));
    assert_eq!(hp(&b, U3), 11);
    assert!(state(&b).swarms.is_empty(), "the swarm is spent");
}

#[test]
fn swarm_bonus_damage_stops_at_the_weapons_maximum_and_total_defense_stops_its_shock() {
    let units = r#"
        (name: "Fang", side: "Party", cell: (1, 1), template: "wolf"),
        (name: "Grey", side: "Party", cell: (1, 2), template: "wolf"),
        (name: "Ash", side: "Party", cell: (1, 3), template: "wolf"),
        (name: "Aldric", side: "Foes", cell: (2, 2), template: "warrior", overrides: {"ac": 12}),
    "#;
    // Ash hits (15 + 2 + 4); 1d6 = 5, + 2 swarm = 7, capped at 6.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 15, 5]);
    for u in [U0, U1] {
        run(&mut b, Command::Pick { unit: u });
        run(&mut b, act(u, Action::Swarm { target: U3 }));
        run(&mut b, Command::EndTurn { unit: u });
    }
    let e = run(&mut b, attack(U2, U3));
    assert_eq!(rolls(&e, Purpose::Damage), vec![(5, None)]);
    assert_eq!(hp(&b, U3), 12 - 6);
    // Next round Aldric is in Total Defense: even a swarm's Shock is stopped (S-81).
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 2]);
    for u in [U0, U1] {
        run(&mut b, Command::Pick { unit: u });
        run(&mut b, act(u, Action::Swarm { target: U3 }));
        run(&mut b, Command::EndTurn { unit: u });
    }
    run(&mut b, attack(U2, U3));
    let td = Command::React {
        unit: U3,
        reaction: Reaction::TotalDefense,
    };
    let words = crate::rules::rulesets::describe(&b, &td).cost;
    assert!(words.ends_with(": this miss does no Shock"), "{words}");
    let e = run(&mut b, td);
    assert!(sides_ev(&e).contains(&&Ev::Shock {
        attacker: U2,
        target: U3,
        amount: 1,
        negated: Some("Total Defense".into())
    }));
    assert_eq!(hp(&b, U3), 12);
}

// ---------------------------------------------------------------------------------------------
// Screen an Ally (S-69..S-79)

#[test]
fn a_screen_redirects_attacks_to_the_worst_rolling_successful_screener() {
    let units = r#"
        (name: "Mira", side: "Party", cell: (1, 2), template: "archer"),
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Bera", side: "Party", cell: (1, 3), template: "warrior"),
        (name: "Osk", side: "Foes", cell: (7, 2), template: "archer"),
    "#;
    let level = field().units(units).level();
    let screens = |b: &mut BattleState| {
        for (u, x, y) in [(U1, 0, 1), (U2, 0, 3)] {
            run(b, Command::Pick { unit: u });
            let to = Cell::new(x, y);
            run(b, act(u, Action::Screen { ally: U0, to }));
            run(b, Command::EndTurn { unit: u });
        }
        run(b, Command::EndTurn { unit: U0 });
    };
    // Osk shoots Mira: opposed checks 2d6 + best of STR/DEX + skill. Osk 4 + 4 + 3 = 11;
    // Aldric 6 + 6 + 2 = 14 and Bera 5 + 5 + 2 = 12 both succeed: the worse, Bera, is shot
    // (1d20 = 19 + 3 = 22 vs 16; 1d8 + 2 = 3 + 2 = 5).
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1, 4, 4, 6, 6, 5, 5, 19, 3]);
    screens(&mut b);
    let o = crate::rules::rulesets::odds(&b, UnitId(3), U0, true).expect("in range");
    assert!(o.formula.contains("screened"), "{}", o.formula);
    let e = run(&mut b, shoot(UnitId(3), U0));
    assert_eq!(
        rolls(&e, Purpose::Opposed),
        vec![(11, None), (14, Some(11)), (12, Some(11))]
    );
    assert!(sides_ev(&e).contains(&&Ev::Redirected {
        attacker: UnitId(3),
        ward: U0,
        screener: U2
    }));
    assert_eq!((hp(&b, U0), hp(&b, U2)), (8, 7));
    // Had the attacker won both checks, the ward is shot: 6 + 6 + 3 = 15 beats 12 and 14.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1, 6, 6, 5, 5, 6, 4, 19, 3]);
    screens(&mut b);
    let e = run(&mut b, shoot(UnitId(3), U0));
    assert!(
        !sides_ev(&e)
            .iter()
            .any(|e| matches!(e, Ev::Redirected { .. }))
    );
    assert_eq!(hp(&b, U0), 3);
}

#[test]
fn a_screener_screens_as_many_attackers_a_round_as_its_combat_skill() {
    let units = r#"
        (name: "Mira", side: "Party", cell: (1, 2), template: "archer"),
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Osk", side: "Foes", cell: (7, 2), template: "archer"),
        (name: "Tam", side: "Foes", cell: (7, 3), template: "archer"),
    "#;
    // Aldric (skill 1) screens against Osk; Tam's shot gets no check at all.
    let (mut b, _) =
        BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 6, 6, 1, 1, 1]);
    run(&mut b, Command::Pick { unit: U1 });
    run(
        &mut b,
        act(
            U1,
            Action::Screen {
                ally: U0,
                to: Cell::new(1, 1),
            },
        ),
    );
    run(&mut b, Command::EndTurn { unit: U1 });
    run(&mut b, Command::EndTurn { unit: U0 });
    run(&mut b, Command::Pick { unit: U2 });
    let e = run(&mut b, shoot(U2, U0));
    assert_eq!(rolls(&e, Purpose::Opposed).len(), 2);
    run(&mut b, Command::EndTurn { unit: U2 });
    assert!(combat::screeners_of(&b, U3, U0).is_empty());
    assert_eq!(
        combat::screeners_of(&b, U2, U0),
        vec![U1],
        "Osk again is free"
    );
    // A unit without a combat skill cannot screen at all.
    let wolves = r#"
        (name: "Mira", side: "Party", cell: (1, 2), template: "archer"),
        (name: "Fang", side: "Party", cell: (1, 1), template: "wolf"),
        (name: "Osk", side: "Foes", cell: (7, 2), template: "archer"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(wolves).level(), 1, [8, 1]);
    run(&mut b, Command::Pick { unit: U1 });
    reject(
        &mut b,
        act(
            U1,
            Action::Screen {
                ally: U0,
                to: Cell::new(1, 1),
            },
        ),
        "at least level 1",
    );
}

// ---------------------------------------------------------------------------------------------
// Shoving and grappling (S-143..S-158)

#[test]
fn a_shove_that_hits_and_wins_the_str_check_knocks_prone_or_pushes() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
    "#;
    let level = field().units(units).level();
    // Hit (15 + 4 vs 13, no damage); STR check 2d6 + 2 + 1 = 9 + 3 = 12 vs Mira 2d6 + 0 + 1 = 6.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1, 15, 4, 5, 2, 3]);
    let push = act(
        U0,
        Action::Shove {
            target: U1,
            prone: false,
            push: Some(Cell::new(3, 1)),
        },
    );
    let e = run(&mut b, push);
    assert_eq!(rolls(&e, Purpose::Opposed), vec![(12, None), (6, Some(12))]);
    assert!(rolls(&e, Purpose::Damage).is_empty());
    assert!(e.contains(&Event::Placed {
        unit: U1,
        to: Cell::new(3, 1)
    }));
    assert_eq!(hp(&b, U1), 8);
    // A tie goes to the one resisting: Mira stays on her feet.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1, 15, 2, 2, 4, 3]);
    let prone = act(
        U0,
        Action::Shove {
            target: U1,
            prone: true,
            push: None,
        },
    );
    run(&mut b, prone.clone());
    assert!(!b.units[1].is_prone());
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1, 15, 6, 6, 1, 1]);
    run(&mut b, prone);
    assert!(b.units[1].is_prone());
    let bad = act(
        U0,
        Action::Shove {
            target: U1,
            prone: false,
            push: Some(Cell::new(1, 1)),
        },
    );
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    reject(&mut b, bad, "taken");
}

#[test]
fn a_grapple_holds_both_in_place_hurts_each_round_end_and_can_be_broken() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Aldric", side: "Foes", cell: (2, 1), template: "warrior"),
    "#;
    // Grapple: unarmed attack roll 15 + 4 vs 16 hits; STR 2d6 + 3 = 10 + 3 vs Aldric 2d6 + 2 = 4.
    let tape = [
        8, 1, 15, 5, 5, 1, 1, /* end of round: 1d2 + 3 */ 2, /* break free */ 6, 6, 1, 1,
    ];
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, tape);
    run(&mut b, act(U0, Action::Grapple { target: U1 }));
    assert!(b.units[1].has(&Condition::Grappled { by: U0 }));
    assert_eq!(per(state(&b), U0).grappling, Some(U1));
    reject(&mut b, mv(U0, 0, 0), "is grappling Aldric and cannot move");
    run(&mut b, Command::EndTurn { unit: U0 });
    reject(&mut b, mv(U1, 3, 1), "is grappled by Hruk");
    // Aldric fights unarmed only: no AoO from him, no Shock.
    assert!(!moves::aoo_eligible(&b, U1, U0));
    let e = run(&mut b, Command::EndTurn { unit: U1 });
    // End of round: Hruk's unarmed damage 1d2 + STR 2 + Brawl 1 = 5.
    assert_eq!(rolled_exprs(&e, Purpose::Damage), ["1d2+3"]);
    assert_eq!(hp(&b, U1), 7);
    // Round 2: Aldric breaks free (Main action): 6 + 6 + 2 = 14 vs 1 + 1 + 3 = 5.
    run(&mut b, Command::EndTurn { unit: U0 });
    let e = run(&mut b, act(U1, Action::BreakFree));
    assert_eq!(rolls(&e, Purpose::Opposed), vec![(14, None), (5, Some(14))]);
    assert!(!b.units[1].has(&Condition::Grappled { by: U0 }));
    assert_eq!(per(state(&b), U0).grappling, None);
    run(&mut b, mv(U1, 4, 1));
}

// ---------------------------------------------------------------------------------------------
// Dual wielding (S-159..S-163)

#[test]
fn two_weapons_take_1_off_every_attack_and_add_2_to_melee_damage_but_not_to_shock() {
    let units = r#"
        (name: "Pip", side: "Party", cell: (1, 1), template: "cutthroat"),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver"),
    "#;
    // 15 + 3 - 1 = 17 vs 13: 1d4 + 2 = 1 + 2, + 2 = 5.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 15, 1]);
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(rolled_exprs(&e, Purpose::Attack), ["1d20+2"]);
    assert_eq!(hp(&b, U1), 11);
    // Without skill 1 there is no dual wielding: no -1, no +2.
    let units = units.replace(
        r#"template: "cutthroat")"#,
        r#"template: "cutthroat", overrides: {"skill": 0})"#,
    );
    let (mut b, _) = BattleState::start_with_tape(&field().units(&units).level(), 1, [8, 1, 15, 1]);
    let e = run(&mut b, attack(U0, U1));
    assert_eq!(rolled_exprs(&e, Purpose::Attack), ["1d20+3"]);
    assert_eq!(hp(&b, U1), 13);
}

// ---------------------------------------------------------------------------------------------
// Use a Skill: first aid (S-89, house rule)

#[test]
fn first_aid_gets_a_downed_ally_up_with_1_hp() {
    let units = r#"
        (name: "Brann", side: "Party", cell: (1, 1), template: "sergeant"),
        (name: "Bera", side: "Party", cell: (0, 1), template: "warrior", overrides: {"hp": 1}),
        (name: "Hruk", side: "Foes", cell: (0, 0), template: "reaver"),
        (name: "Fang", side: "Foes", cell: (7, 4), template: "wolf"),
    "#;
    // Foes first; Hruk downs Bera (20 + 4; Brann may snap before the attack and after: he
    // declines both). Brann's first aid: Hruk's attack of opportunity misses (1 + 4 vs 17), then
    // 2d6 + 1 = 4 + 3 + 1 = 8 vs 8.
    let tape = [1, 8, 20, 1, 1, 4, 3];
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, tape);
    run(&mut b, Command::Pick { unit: U2 });
    run(&mut b, attack(U2, U1));
    run(&mut b, decline(U0));
    run(&mut b, decline(U0));
    assert_eq!(b.units[1].status, Status::Down);
    run(&mut b, Command::EndTurn { unit: U2 });
    run(&mut b, Command::EndTurn { unit: U3 });
    run(&mut b, act(U0, Action::FirstAid { target: U1 }));
    let e = run(
        &mut b,
        Command::React {
            unit: U2,
            reaction: Reaction::Attack { target: U0 },
        },
    );
    assert_eq!(rolls(&e, Purpose::Skill), vec![(8, Some(8))]);
    assert_eq!(b.units[1].status, Status::Active);
    assert_eq!(hp(&b, U1), 1);
    assert!(b.units[1].is_prone());
}

// ---------------------------------------------------------------------------------------------
// Whole battles, the view, rejections

#[test]
fn random_play_ends_and_replays_on_the_village() {
    playouts_end_and_replay("sides_village_brawl.ron");
}

#[test]
fn random_play_ends_and_replays_on_the_keep() {
    playouts_end_and_replay("sides_keep_arrow_slits.ron");
}

/// Heights and a gate: every command random play is offered (climbs, cliffs, reach over a
/// level, the gate) is accepted, and battles end.
#[test]
fn random_play_ends_and_replays_on_the_gatehouse() {
    playouts_end_and_replay("sides_gatehouse.ron");
}

/// Random play on a crowded field with every template, more seeds: every listed command is
/// accepted (random_play asserts it), and battles end.
#[test]
fn random_play_on_a_crowded_field_lists_only_accepted_commands() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Pip", side: "Party", cell: (1, 3), template: "cutthroat"),
        (name: "Brann", side: "Party", cell: (2, 2), template: "sergeant"),
        (name: "Hruk", side: "Foes", cell: (5, 2), template: "reaver"),
        (name: "Fang", side: "Foes", cell: (5, 1), template: "wolf"),
        (name: "Nell", side: "Foes", cell: (6, 3), template: "cutthroat"),
        (name: "Voss", side: "Foes", cell: (7, 2), template: "sergeant"),
    "#;
    for options in [
        "",
        r#"surprised: ["Foes"]"#,
        r#"surprised: ["Aldric", "Voss"], party: "Foes""#,
    ] {
        let level = field().units(units).options(options).level();
        for seed in 1..=12 {
            let (b, cmds, _) = random_play(&level, seed, 20_000);
            assert!(
                b.outcome.is_some(),
                "{options} seed {seed}: {} commands",
                cmds.len()
            );
        }
    }
}

/// The preview's odds are the engine's: over many seeds, attacks hit and wound as often as
/// `odds` says, Shock on a miss (and a shield stopping it) included.
#[test]
fn odds_agree_with_what_attacks_do() {
    let wide = ["..............................."; 5];
    let cases = [
        // Melee, Shock 2/13 against AC 13 on every miss.
        (
            r#"(name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
               (name: "Mira", side: "Foes", cell: (2, 1), template: "archer", overrides: {"hp": 40}),"#,
            false,
        ),
        // A bow past its normal range: -2.
        (
            r#"(name: "Osk", side: "Party", cell: (28, 4), template: "archer"),
               (name: "Mira", side: "Foes", cell: (2, 1), template: "archer", overrides: {"hp": 40}),"#,
            true,
        ),
        // Shock 1/13 against a shield: the first Shock of the round is ignored.
        (
            r#"(name: "Fang", side: "Party", cell: (1, 1), template: "wolf"),
               (name: "Bera", side: "Foes", cell: (2, 1), template: "warrior", overrides: {"ac": 13, "hp": 40}),"#,
            false,
        ),
        // Two weapons: -1 to hit, +2 damage.
        (
            r#"(name: "Pip", side: "Party", cell: (1, 1), template: "cutthroat"),
               (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver", overrides: {"hp": 40}),"#,
            false,
        ),
    ];
    for (units, ranged) in cases {
        let level = field().map(&wide).units(units).level();
        let (b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
        let o = crate::rules::rulesets::odds(&b, U0, U1, ranged).expect("odds");
        assert!(o.hit > 0.05 && o.hit < 0.95, "{o:?}");
        let (mut hits, mut damage) = (0usize, 0i64);
        let n = 4000u64;
        for seed in 0..n {
            let (mut b, _) = BattleState::start_with_tape(&level, seed, [8, 1]);
            let before = hp(&b, U1);
            let mut e = run(
                &mut b,
                Command::Attack {
                    unit: U0,
                    target: U1,
                    ranged,
                },
            );
            while let Decision::React { unit, .. } = b.pending() {
                e.extend(run(&mut b, decline(unit)));
            }
            hits += e
                .iter()
                .filter(|e| matches!(e, Event::Attacked { hit: true, .. }))
                .count();
            damage += before - hp(&b, U1);
        }
        let tally = crate::rules::testkit::Tally {
            hits: hits as f64,
            tries: n as f64,
            damage: damage as f64,
            battles: n as f64,
        };
        crate::rules::testkit::odds_agree(&o, tally, 0.0, (0.05, 0.05), units);
    }
}

#[test]
fn the_clock_and_the_menu_speak_in_sides_and_actions() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 3), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [5, 3]);
    let clock = crate::rules::rulesets::clock(&b);
    assert_eq!(
        clock.headline,
        "Round 1 \u{b7} initiative Party 7, Foes 3 \u{b7} Party to pick"
    );
    assert_eq!(clock.order.len(), 3);
    assert_eq!(clock.order[0].label, "Main, Move");
    run(&mut b, Command::Pick { unit: U0 });
    run(&mut b, mv(U0, 1, 2));
    let clock = crate::rules::rulesets::clock(&b);
    assert!(
        clock.headline.ends_with("Aldric acting"),
        "{}",
        clock.headline
    );
    assert!(clock.order[0].current && clock.order[0].label == "Main");
    let a = crate::rules::rulesets::describe(&b, &attack(U0, U2));
    assert_eq!(
        (a.label.as_str(), a.cost.as_str(), a.provokes),
        ("Attack Hruk", "Main action", false)
    );
    let m = crate::rules::rulesets::describe(&b, &mv(U0, 0, 0));
    assert_eq!(m.cost, "Main action (as a second Move)");
    assert!(m.provokes);
    let path = m.path.expect("a path");
    assert_eq!(path.cells().last(), Some(&Cell::new(0, 0)));
    assert!(path.steps.iter().any(|s| s.leaves_threat));
    let prone = crate::rules::rulesets::describe(&b, &act(U0, Action::GoProne));
    assert_eq!(prone.cost, "free");
    let o = crate::rules::rulesets::odds(&b, U0, U2, false).expect("in reach");
    assert_eq!(o.formula, "1d20+3 vs AC 13; Shock 2 on a miss");
}

#[test]
fn rejections_say_why_and_change_nothing() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 3), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (6, 1), template: "reaver"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [5, 3]);
    run(&mut b, Command::Pick { unit: U0 });
    let cases = [
        (attack(U0, U2), "not within Aldric's reach"),
        (attack(U0, U1), "not an enemy"),
        (attack(U0, UnitId(99)), "there is no"),
        (shoot(U0, U2), "no bow or thrown weapon"),
        (mv(U0, -1, 0), "cannot reach"),
        (mv(U0, 1, 1), "already on"),
        (act(U0, Action::Dodge), "not an action in the sides ruleset"),
        (act(U0, Action::StandUp), "not prone"),
        (act(U0, Action::Disengage), "no enemy is in melee"),
        (act(U0, Action::BreakFree), "not grappled"),
        (act(U0, Action::Release), "not grappling"),
        (act(U0, Action::FirstAid { target: U1 }), "not down"),
        (act(U0, Action::Grapple { target: U2 }), "not next to"),
        (act(U0, Action::Swarm { target: U2 }), "not within range"),
        (
            act(
                U0,
                Action::Screen {
                    ally: U2,
                    to: Cell::new(5, 1),
                },
            ),
            "not an ally",
        ),
        (
            act(
                U0,
                Action::Screen {
                    ally: U1,
                    to: Cell::new(5, 1),
                },
            ),
            "not next to Mira",
        ),
        (Command::EndTurn { unit: U1 }, "Aldric's turn"),
        (Command::Pick { unit: U1 }, "must end it"),
        (
            Command::React {
                unit: U0,
                reaction: Reaction::Decline,
            },
            "nothing to react",
        ),
        (
            Command::Declare {
                unit: U0,
                intent: crate::rules::battle::Intent::Hold,
            },
            "no declarations",
        ),
    ];
    for (cmd, why) in cases {
        reject(&mut b, cmd, why);
    }
}

#[test]
fn a_target_out_of_sight_cannot_be_shot() {
    // S-126 (and S-125, not yet): a wall from edge to edge hides Osk from Mira entirely.
    let map = ["...#....", "...#....", "...#....", "...#....", "...#...."];
    let units = r#"
        (name: "Mira", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Osk", side: "Foes", cell: (7, 2), template: "archer"),
    "#;
    let (mut b, _) =
        BattleState::start_with_tape(&field().map(&map).units(units).level(), 1, [8, 1]);
    assert_eq!(b.cover(U0, U1), crate::rules::sight::Cover::Blocked);
    reject(&mut b, shoot(U0, U1), "Mira cannot see Osk");
    assert!(!b.legal_commands().contains(&shoot(U0, U1)));
}

#[test]
fn a_grappler_drags_its_foe_10_ft_or_throws_it_5_ft_prone_or_loses_it() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (2, 2), template: "reaver"),
        (name: "Aldric", side: "Foes", cell: (3, 2), template: "warrior"),
    "#;
    let level = field().units(units).level();
    // Grapple: 15 + 4 vs 16 hits; STR 5 + 5 + 3 = 13 vs 1 + 1 + 2 = 4. Round 2 (after the
    // grapple's 1d2 + 3 at the round's end): the haul's check, 6 + 6 + 3 = 15 vs 1 + 1 + 2 = 4.
    let tape = [8, 1, 15, 5, 5, 1, 1, 1, 6, 6, 1, 1];
    let grappled = |tape: &[u32]| {
        let (mut b, _) = BattleState::start_with_tape(&level, 1, tape.iter().copied());
        run(&mut b, act(U0, Action::Grapple { target: U1 }));
        run(&mut b, Command::EndTurn { unit: U0 });
        run(&mut b, Command::EndTurn { unit: U1 });
        assert_eq!(b.round, 2);
        b
    };
    // Drag 10 ft west: Hruk to (0, 2), Aldric into the last square Hruk left, (1, 2).
    let mut b = grappled(&tape);
    let drag = act(
        U0,
        Action::Drag {
            to: Cell::new(0, 2),
        },
    );
    assert!(b.legal_commands().contains(&drag));
    let e = run(&mut b, drag);
    assert_eq!(rolls(&e, Purpose::Opposed), vec![(15, None), (4, Some(15))]);
    assert_eq!(b.units[0].cell, Cell::new(0, 2));
    assert_eq!(b.units[1].cell, Cell::new(1, 2));
    assert!(b.units[1].has(&Condition::Grappled { by: U0 }));
    reject(
        &mut b,
        act(
            U0,
            Action::Drag {
                to: Cell::new(0, 1),
            },
        ),
        "Main action",
    );
    // Too far, or through a unit: rejected, nothing changes.
    let mut b = grappled(&tape);
    reject(
        &mut b,
        act(
            U0,
            Action::Drag {
                to: Cell::new(5, 2),
            },
        ),
        "not 5 or 10 ft",
    );
    reject(
        &mut b,
        act(
            U0,
            Action::Drag {
                to: Cell::new(4, 2),
            },
        ),
        "(3, 2) is taken",
    );
    // Throw 5 ft: Aldric lands on (4, 2), prone, and the grapple ends.
    let e = run(
        &mut b,
        act(
            U0,
            Action::Throw {
                to: Cell::new(4, 2),
            },
        ),
    );
    assert!(e.contains(&Event::Placed {
        unit: U1,
        to: Cell::new(4, 2)
    }));
    assert!(b.units[1].is_prone());
    assert!(!b.units[1].has(&Condition::Grappled { by: U0 }));
    assert_eq!(per(state(&b), U0).grappling, None);
    reject(
        &mut b,
        act(
            U0,
            Action::Throw {
                to: Cell::new(5, 2),
            },
        ),
        "Main action",
    );
    // Losing the check (a tie goes to the held unit): Aldric breaks free, nobody moves.
    let mut lose = tape;
    lose[8..12].copy_from_slice(&[1, 1, 1, 2]);
    let mut b = grappled(&lose);
    run(
        &mut b,
        act(
            U0,
            Action::Drag {
                to: Cell::new(1, 2),
            },
        ),
    );
    assert_eq!(b.units[0].cell, Cell::new(2, 2));
    assert_eq!(b.units[1].cell, Cell::new(3, 2));
    assert!(!b.units[1].has(&Condition::Grappled { by: U0 }));
    // The Main action is spent, and there is nobody left to haul.
    reject(
        &mut b,
        act(
            U0,
            Action::Throw {
                to: Cell::new(4, 2),
            },
        ),
        "Main action",
    );
    assert_eq!(
        moves::throw_ok(&b, U0, Cell::new(4, 2)),
        Err("Hruk is not grappling anyone".to_string())
    );
}

#[test]
fn moving_onto_a_taken_square_says_who_is_there() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Fang", side: "Foes", cell: (2, 1), template: "wolf", overrides: {"hp": 1}),
        (name: "Hruk", side: "Foes", cell: (6, 3), template: "reaver"),
    "#;
    // Aldric fells Fang (1d20 = 20; 1d8 = 8) and may not step onto its body.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1, 20, 8]);
    reject(&mut b, mv(U0, 6, 3), "(6, 3) is taken by Hruk");
    run(&mut b, attack(U0, U1));
    assert_eq!(b.units[1].status, Status::Down);
    reject(&mut b, mv(U0, 2, 1), "(2, 1) is taken by Fang (down)");
}

#[test]
fn commands_naming_units_that_do_not_exist_are_rejected_not_panicked() {
    let units = r#"
        (name: "Aldric", side: "Party", cell: (1, 1), template: "warrior"),
        (name: "Mira", side: "Party", cell: (0, 3), template: "archer"),
        (name: "Hruk", side: "Foes", cell: (2, 1), template: "reaver"),
    "#;
    let ghost = UnitId(99);
    let cell = Cell::new(3, 3);
    let cmds = |u: UnitId, t: UnitId| {
        let mut v = vec![
            attack(u, t),
            shoot(u, t),
            Command::React {
                unit: u,
                reaction: Reaction::Attack { target: t },
            },
            act(u, Action::Grapple { target: t }),
            act(u, Action::Swarm { target: t }),
            act(u, Action::FirstAid { target: t }),
            act(
                u,
                Action::Charge {
                    target: t,
                    to: cell,
                },
            ),
            act(u, Action::Screen { ally: t, to: cell }),
            act(
                u,
                Action::Shove {
                    target: t,
                    prone: false,
                    push: Some(cell),
                },
            ),
            act(
                u,
                Action::Drag {
                    to: Cell::new(-500, 7),
                },
            ),
            act(
                u,
                Action::Throw {
                    to: Cell::new(i32::MAX, i32::MIN),
                },
            ),
        ];
        if u == ghost {
            v.push(Command::Pick { unit: u });
            v.push(Command::EndTurn { unit: u });
            v.push(mv(u, 3, 3));
            v.push(act(u, Action::TotalDefense));
        }
        v
    };
    // At a Pick decision, at a unit's turn, and at an interrupt.
    let (mut b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [5, 3, 2]);
    for cmd in cmds(ghost, U2).into_iter().chain(cmds(U0, ghost)) {
        assert!(b.check(&cmd).is_err(), "{cmd:?}");
        reject(&mut b, cmd, "");
    }
    run(&mut b, Command::Pick { unit: U0 });
    for cmd in cmds(ghost, U2).into_iter().chain(cmds(U0, ghost)) {
        reject(&mut b, cmd, "");
    }
    run(&mut b, attack(U0, U2));
    assert!(matches!(b.pending(), Decision::React { .. }));
    for cmd in cmds(ghost, U2).into_iter().chain(cmds(U2, ghost)) {
        reject(&mut b, cmd.clone(), "");
        // The view answers too, without panicking.
        let _ = crate::rules::rulesets::describe(&b, &cmd);
    }
    for (a, t) in [(U0, ghost), (ghost, U2), (ghost, ghost)] {
        for ranged in [false, true] {
            assert!(crate::rules::rulesets::odds(&b, a, t, ranged).is_none());
        }
    }
}

#[test]
fn the_log_names_the_grappler_and_the_ward() {
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Aldric", side: "Foes", cell: (2, 1), template: "warrior"),
    "#;
    let (b, _) = BattleState::start_with_tape(&field().units(units).level(), 1, [8, 1]);
    let line = |condition, on| {
        crate::rules::battle::log::describe(
            &b,
            &Event::Condition {
                unit: U1,
                condition,
                on,
            },
        )
    };
    assert_eq!(
        line(Condition::Grappled { by: U0 }, true),
        "Aldric is now grappled by Hruk"
    );
    assert_eq!(
        line(Condition::Screening { ally: U0 }, false),
        "Aldric is no longer screening Hruk"
    );
    assert_eq!(line(Condition::Prone, true), "Aldric is now prone");
}

#[test]
fn the_odds_say_what_total_defense_would_leave_and_the_dice_agree() {
    use crate::rules::rulesets::{answered_odds, odds};
    let units = r#"
        (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
        (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
    "#;
    let level = field().units(units).level();
    let (b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
    let plain = odds(&b, U0, U1, false).expect("odds");
    let answers = answered_odds(&b, U0, U1, false);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let answered = answers
        .into_iter()
        .next()
        .expect("Mira has her Main action");
    assert_eq!(answered.by, U1);
    assert_eq!(answered.reaction, "takes Total Defense");
    assert!(answered.odds.hit < plain.hit);
    // Mira takes Total Defense whenever it is offered (when it would turn the hit into a miss
    // or stop Shock): the attack hits about as often as the odds said.
    let n = 3000;
    let hits = (0..n)
        .filter(|&seed| {
            let (mut b, _) = BattleState::start_with_tape(&level, seed, [8, 1]);
            let mut e = run(&mut b, attack(U0, U1));
            while let Decision::React { unit, .. } = b.pending() {
                let td = Command::React {
                    unit,
                    reaction: Reaction::TotalDefense,
                };
                let answer = if b.check(&td).is_ok() {
                    td
                } else {
                    decline(unit)
                };
                e.extend(run(&mut b, answer));
            }
            e.iter()
                .any(|e| matches!(e, Event::Attacked { hit: true, .. }))
        })
        .count();
    let seen = hits as f64 / n as f64;
    assert!(
        (seen - answered.odds.hit).abs() < 0.03,
        "{seen} hits, {} predicted",
        answered.odds.hit
    );
    // Once Mira has spent her Main action on Total Defense, she has no answer left.
    let mut b = b;
    b.units[1].conditions.insert(Condition::TotalDefense);
    assert_eq!(answered_odds(&b, U0, U1, false), vec![]);
}

// ---------------------------------------------------------------------------------------------
// Execution attacks (S-164..S-175)

/// A melee execution hits without a roll (S-172); a passed save still takes the hit's maximum
/// damage (S-175); the stalk is spoilt once the assassin has moved.
#[test]
fn a_melee_execution_hits_and_a_passed_save_takes_the_maximum() {
    let units = r#"
        (name: "Pip", side: "Party", cell: (3, 2), template: "cutthroat"),
        (name: "Hruk", side: "Foes", cell: (4, 2), template: "reaver"),
        (name: "Tobin", side: "Foes", cell: (7, 4), template: "archer"),
    "#;
    let options = r#"surprised: ["Foes"], executions: [(assassin: "Pip", target: "Hruk")]"#;
    let level = field().units(units).options(options).level();
    // The save: 1d20 = 17, + STR 2 - Pip's skill 1 = 18 against 15, passed.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [17]);
    let before = hp(&b, U1);
    let events = run(&mut b, act(U0, Action::Execute { target: U1 }));
    assert_eq!(
        rolls(&events, Purpose::Attack),
        vec![],
        "no attack roll in melee"
    );
    assert_eq!(rolls(&events, Purpose::Save), vec![(18, Some(15))]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Attacked {
            hit: true,
            ranged: false,
            ..
        }
    )));
    // The cutthroat's knife: the dice's maximum (1d4+2: 6), and the +2 of its two weapons
    // that every melee hit of it does (S-161): 8.
    let dice = combat::damage_dice(
        &b,
        &Spec {
            attacker: U0,
            target: U1,
            ranged: false,
            kind: Kind::Normal,
            swarm: 0,
        },
    )
    .range()
    .1;
    assert_eq!(dice, 6);
    assert_eq!(hp(&b, U1), before - 8);
    // Moving first spoils the stalk (S-167).
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [17]);
    run(&mut b, mv(U0, 3, 1));
    reject(&mut b, act(U0, Action::Execute { target: U1 }), "spoilt");
}

/// A level's executions are checked: only in `sides`, on enemies that start surprised, naming
/// units that exist, each at its own line.
#[test]
fn a_levels_executions_are_validated() {
    let text = |options: &str| {
        format!(
            r#"(name: "E", ruleset: "sides", topology: Square(diagonals: One), size: (4, 1),
                map: ["...."],
                sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
                units: [
                    (name: "a", side: "A", cell: (0, 0), template: "warrior"),
                    (name: "b", side: "B", cell: (3, 0), template: "warrior"),
                    (name: "c", side: "B", cell: (2, 0), template: "warrior"),
                ],
                options: ({options}))"#
        )
    };
    let said = |options: &str| -> Vec<String> {
        crate::rules::level::validate("e.ron", &text(options))
            .iter()
            .map(|d| d.to_string())
            .collect()
    };
    assert!(said(r#"surprised: ["B"], executions: [(assassin: "a", target: "b")]"#).is_empty());
    let unaware = said(r#"executions: [(assassin: "a", target: "b")]"#);
    assert!(
        unaware.iter().any(|d| d.contains("must start unaware")),
        "{unaware:?}"
    );
    let same = said(r#"surprised: ["B"], executions: [(assassin: "c", target: "b")]"#);
    assert!(same.iter().any(|d| d.contains("both of B")), "{same:?}");
    let ghost = said(r#"surprised: ["B"], executions: [(assassin: "z", target: "b")]"#);
    assert!(
        ghost
            .iter()
            .any(|d| d.starts_with("e.ron:9:") && d.contains("'z'")),
        "{ghost:?}"
    );
}
