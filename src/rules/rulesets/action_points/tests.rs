use super::*;
use crate::rules::battle::tests::playouts_end_and_replay;
use crate::rules::battle::{Action, Condition, Event, Purpose, Reaction, Status, Trigger};
use crate::rules::grid::Cell;
use crate::rules::level::Level;
use crate::rules::rulesets::{Member, RulesetId};
use crate::rules::testkit::*;

/// A 6×3 open field, sides "Company" (Human) and "Cult" (Ai). `units` are RON unit entries;
/// `options` the level's options.
fn field(units: &str, options: &str) -> Level {
    Field::new(RulesetId::ActionPoints)
        .topology("Square(diagonals: One)")
        .map(&["......", "......", "......"])
        .sides(r#"(name: "Company", controller: Human), (name: "Cult", controller: Ai)"#)
        .units(units)
        .options(options)
        .level()
}

const DUEL: &str = r#"
    (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
    (name: "Shade", side: "Cult", cell: (2, 1), template: "scout"),
"#;

fn ap(b: &BattleState, u: u16) -> i64 {
    b.units[u as usize].pool("ap")
}

fn hp(b: &BattleState, u: u16) -> i64 {
    b.units[u as usize].pool("hp")
}

fn state(b: &BattleState) -> &State {
    ActionPoints::state(b)
}

#[test]
fn initiative_is_1d6_plus_rating_highest_first() {
    // Kestrel: 1d6 (5) + 2 = 7; Shade: 1d6 (2) + 4 = 6.
    let (b, events) = BattleState::start_with_tape(&field(DUEL, ""), 1, [5, 2]);
    assert_eq!(
        rolls(&events, Purpose::Initiative),
        vec![(5, None), (2, None)]
    );
    assert_eq!(state(&b).scores, PerUnit::from_vec(vec![7, 6]));
    assert_eq!(state(&b).order, vec![U0, U1]);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    // Every unit starts the round with its maximum AP.
    assert_eq!((ap(&b, 0), ap(&b, 1)), (3, 4));
}

#[test]
fn ties_go_to_rating_then_luck_then_player_characters_then_a_luck_roll() {
    // 4 + 2 = 6 against 2 + 4 = 6: Shade's rating 4 beats Kestrel's 2.
    let (b, _) = BattleState::start_with_tape(&field(DUEL, ""), 1, [4, 2]);
    assert_eq!(state(&b).order, vec![U1, U0]);
    // Same rating and score: luck decides (Shade 3 over Kestrel 1).
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
        (name: "Shade", side: "Cult", cell: (2, 1), template: "fighter", overrides: {"luck": 3}),
    "#;
    let (b, _) = BattleState::start_with_tape(&field(units, ""), 1, [3, 3]);
    assert_eq!(state(&b).order, vec![U1, U0]);
    // Same luck too: the player character (a Human side's unit) goes first.
    let units = r#"
        (name: "Shade", side: "Cult", cell: (2, 1), template: "fighter"),
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
    "#;
    let (b, events) = BattleState::start_with_tape(&field(units, ""), 1, [3, 3]);
    assert_eq!(state(&b).order, vec![U1, U0]);
    assert!(rolls(&events, Purpose::TieBreak).is_empty());
    // Two NPCs of different templates tied in everything: a contested luck roll, 1d20 + luck.
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (0, 0), template: "fighter"),
        (name: "Shade", side: "Cult", cell: (4, 1), template: "fighter"),
        (name: "Whisper", side: "Cult", cell: (5, 1), template: "fighter", overrides: {"hp": 9}),
    "#;
    let level = field(units, "");
    // Kestrel 6; the two cult fighters share one roll (one template, one side): 3.
    let (b, events) = BattleState::start_with_tape(&level, 1, [6, 3, 4, 15]);
    assert_eq!(
        rolls(&events, Purpose::Initiative).len(),
        2,
        "one roll per NPC group"
    );
    assert_eq!(state(&b).scores, PerUnit::from_vec(vec![8, 5, 5]));
    assert_eq!(
        rolls(&events, Purpose::TieBreak),
        vec![(5, None), (16, None)]
    );
    assert_eq!(state(&b).order, vec![U0, U2, U1]);
}

#[test]
fn surprised_units_use_their_rating_and_only_react_until_their_first_turn() {
    let level = field(DUEL, r#"surprised: ["Cult"]"#);
    // Only Kestrel rolls: 1 + 2 = 3 < Shade's rating 4, so Shade's turn comes first...
    let (mut b, events) = BattleState::start_with_tape(&level, 1, [1]);
    assert_eq!(rolls(&events, Purpose::Initiative).len(), 1);
    assert_eq!(state(&b).scores, PerUnit::from_vec(vec![3, 4]));
    // ...and is skipped: Shade may only react until it has passed.
    assert!(events.contains(&Event::TurnStarted { unit: U1 }));
    assert!(events.contains(&Event::TurnEnded { unit: U1 }));
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    assert!(!b.units[1].has(&Condition::Surprised));
    // Shade can still dodge Kestrel's attack (a reaction).
    run(&mut b, attack(U0, U1));
    assert!(matches!(b.pending(), Decision::React { unit: U1, .. }));
}

#[test]
fn attacks_hit_on_d20_plus_attack_against_10_plus_defense_and_armor_soaks() {
    // Init 5+2 vs 1+4: Kestrel first. Attack 1d20 (8) + 4 = 12 vs 10 + 5 = 15: miss.
    // Shade declines to dodge both times. Second attack: 11 + 4 = 15 hits; 1d8 (6) + 2 = 8
    // damage minus Shade's armor 1 = 7.
    let (mut b, _) = BattleState::start_with_tape(&field(DUEL, ""), 1, [5, 1, 8, 11, 6]);
    let atk = attack(U0, U1);
    let decline = decline(U1);
    run(&mut b, atk.clone());
    let e = run(&mut b, decline.clone());
    assert_eq!(rolls(&e, Purpose::Attack), vec![(12, Some(15))]);
    assert!(e.contains(&Event::Attacked {
        attacker: U0,
        target: U1,
        ranged: false,
        hit: false,
        crit: false,
        spell: None
    }));
    assert_eq!(hp(&b, 1), 10);
    run(&mut b, atk);
    let e = run(&mut b, decline);
    assert_eq!(rolls(&e, Purpose::Attack), vec![(15, Some(15))]);
    assert_eq!(rolls(&e, Purpose::Damage), vec![(8, None)]);
    assert_eq!(hp(&b, 1), 3);
    assert_eq!(ap(&b, 0), 1);
}

#[test]
fn dodge_is_a_reaction_for_one_ap_that_adds_its_bonus_to_that_attack_only() {
    // Attack 11 + 4 = 15 would hit defense 15, but Shade dodges: 15 + 3 = 18.
    let (mut b, _) = BattleState::start_with_tape(&field(DUEL, ""), 1, [5, 1, 11, 11, 6]);
    run(&mut b, attack(U0, U1));
    assert_eq!(
        b.pending(),
        Decision::React {
            unit: U1,
            trigger: Trigger::Targeted {
                attacker: U0,
                ranged: false
            }
        }
    );
    // Kestrel cannot act while the reaction is pending.
    assert!(b.check(&end(U0)).is_err());
    // The Dodge entry tells its bonus and what it does to the odds of this attack.
    let dodge = react(U1, Reaction::Dodge);
    let words = crate::rules::rulesets::describe(&b, &dodge).cost;
    let plain = crate::rules::rulesets::odds(&b, U0, U1, false).expect("odds");
    assert!(
        words.starts_with(&format!(
            "1 AP: +{} defense against this attack, {:.0}% -> ",
            b.units[1].stat("dodge"),
            plain.hit * 100.0
        )),
        "{words}"
    );
    let e = run(&mut b, react(U1, Reaction::Dodge));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(15, Some(18))]);
    assert_eq!(ap(&b, 1), 3, "dodging cost 1 AP");
    assert!(
        !b.units[1].has(&Condition::Dodging),
        "only against that attack"
    );
    // The next attack faces the plain defense again.
    run(&mut b, attack(U0, U1));
    let e = run(&mut b, decline(U1));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(15, Some(15))]);
}

#[test]
fn the_turn_ends_when_ap_run_out_and_the_round_when_everyone_has_gone() {
    let (mut b, _) = BattleState::start_with_tape(&field(DUEL, ""), 1, [5, 1]);
    run(&mut b, act(U0, Action::Guard));
    assert!(b.check(&act(U0, Action::Guard)).is_err());
    // Moves cost 1 AP each; the third spends Kestrel's last AP and passes the turn.
    run(&mut b, mv(U0, 0, 0));
    run(&mut b, mv(U0, 0, 2));
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    assert_eq!(b.round, 1);
    let e = run(&mut b, end(U1));
    assert!(e.contains(&Event::RoundEnded { round: 1 }));
    assert!(e.contains(&Event::RoundStarted { round: 2 }));
    // "Until the end of the round" effects end; AP are replenished.
    assert!(!b.units[0].has(&Condition::Guarding));
    assert_eq!((ap(&b, 0), ap(&b, 1)), (3, 4));
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
}

#[test]
fn with_per_turn_refresh_ap_spent_reacting_stay_spent_until_the_units_own_turn() {
    let per_turn = field(DUEL, "ap_refresh: Turn");
    let per_round = field(DUEL, "");
    for (level, expect) in [(&per_turn, 3), (&per_round, 4)] {
        // Round 1: Kestrel attacks on its turn; Shade dodges (4 → 3 AP), Shade ends its turn
        // having spent nothing else... In round 2 Kestrel attacks again before Shade's turn.
        let (mut b, _) = BattleState::start_with_tape(level, 1, [5, 1, 2, 2, 2]);
        run(&mut b, attack(U0, U1));
        run(&mut b, react(U1, Reaction::Dodge));
        run(&mut b, end(U0));
        run(&mut b, end(U1));
        assert_eq!(b.round, 2);
        // Round 2, Kestrel's turn: Shade's AP before its own turn.
        assert_eq!(ap(&b, 1), expect);
        run(&mut b, end(U0));
        assert_eq!(ap(&b, 1), 4, "refreshed by its own turn at the latest");
    }
}

#[test]
fn an_action_costing_more_ap_than_left_is_paid_next_turn_and_then_takes_effect() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
        (name: "The Hammer", side: "Cult", cell: (2, 1), template: "brute"),
    "#;
    // Init: Kestrel 1+2=3, the Hammer 6+0=6: the Hammer first, with 3 AP; its attack costs 2.
    // Round 2: attack 15 + 3 = 18 vs 14 hits; 2d6 (4, 4) + 3 = 11 - armor 2 = 9.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [1, 6, 15, 4, 4]);
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    run(&mut b, act(U1, Action::Guard));
    run(&mut b, mv(U1, 2, 0));
    assert_eq!(ap(&b, 1), 1);
    let e = run(&mut b, attack(U1, U0));
    assert!(e.contains(&ActionPoints::event(Ev::ExtendedStarted {
        unit: U1,
        command: attack(U1, U0),
        remaining: 1,
    })));
    assert!(rolls(&e, Purpose::Attack).is_empty(), "no effect yet");
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    run(&mut b, end(U0));
    // Round 2: the first AP of the Hammer's turn finish the attack, which goes off.
    assert_eq!(b.round, 2);
    assert_eq!(ap(&b, 1), 2);
    assert!(matches!(b.pending(), Decision::React { unit: U0, .. }));
    let e = run(&mut b, decline(U0));
    assert_eq!(rolls(&e, Purpose::Attack), vec![(18, Some(14))]);
    assert_eq!(hp(&b, 0), 5);
    assert_eq!(
        b.pending(),
        Decision::Act { unit: U1 },
        "the rest of its turn"
    );
}

#[test]
fn an_extended_action_whose_target_is_gone_is_lost() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
        (name: "The Hammer", side: "Cult", cell: (2, 1), template: "brute"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [1, 6]);
    run(&mut b, act(U1, Action::Guard));
    run(&mut b, mv(U1, 2, 0));
    run(&mut b, attack(U1, U0));
    // Kestrel walks out of reach.
    run(&mut b, mv(U0, 4, 2));
    let e = run(&mut b, end(U0));
    let lost = ActionPoints::event(Ev::ExtendedDone {
        unit: U1,
        completed: false,
    });
    assert!(e.contains(&lost), "{e:?}");
    assert!(rolls(&e, Purpose::Attack).is_empty());
    assert_eq!((b.round, ap(&b, 1)), (2, 2));
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
}

#[test]
fn taking_a_unit_to_zero_hp_puts_it_out_and_the_last_side_standing_wins() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter"),
        (name: "Shade", side: "Cult", cell: (2, 1), template: "scout", overrides: {"hp": 2}),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [5, 1, 20, 1]);
    run(&mut b, attack(U0, U1));
    let e = run(&mut b, decline(U1));
    // 1d8 (1) + 2 - armor 1 = 2 damage: hp 0.
    assert_eq!(hp(&b, 1), 0);
    assert!(e.contains(&Event::Status {
        unit: U1,
        status: Status::Down
    }));
    assert!(matches!(e.last(), Some(Event::Ended { winner: Some(w), .. }) if w.0 == 0));
    assert_eq!(
        b.pending(),
        Decision::Over {
            winner: Some(crate::rules::battle::SideId(0))
        }
    );
    assert!(b.check(&end(U0)).is_err());
}

#[test]
fn rejections_say_why_and_change_nothing() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (0, 0), template: "fighter"),
        (name: "Lark", side: "Company", cell: (0, 2), template: "archer"),
        (name: "Shade", side: "Cult", cell: (5, 1), template: "scout"),
    "#;
    let (b, _) = BattleState::start_with_tape(&field(units, ""), 1, [6, 1, 1]);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    let cases = [
        (end(U1), "Kestrel's turn"),
        (attack(U0, U2), "reach"),
        (shoot(U0, U2), "no ranged attack"),
        (attack(U0, U1), "not an enemy"),
        (mv(U0, 5, 2), "cannot reach"),
        (act(U0, Action::Dodge), "not an action"),
        (pick(U0), "initiative order"),
    ];
    let mut b = b;
    for (cmd, why) in cases {
        reject(&mut b, cmd, why);
    }
}

#[test]
fn random_play_ends_and_replays() {
    playouts_end_and_replay("action_points_ruins.ron");
}

/// The preview's odds are the engine's: over many seeds, Kestrel's attacks on Shade hit and
/// wound as often as `odds` says.
#[test]
fn odds_agree_with_what_attacks_do() {
    let level = field(DUEL, "");
    let (b, _) = BattleState::start_with_tape(&level, 1, [5, 2]);
    let o = crate::rules::rulesets::odds(&b, U0, U1, false).expect("Shade is in reach");
    assert!(o.hit > 0.05 && o.hit < 0.95, "{o:?}");
    odds_agree_over_seeds(&level, [5, 2], &attack(U0, U1), &o);
    // Out of reach there are no melee odds.
    let far = field(
        r#"(name: "Kestrel", side: "Company", cell: (0, 0), template: "fighter"),
           (name: "Shade", side: "Cult", cell: (5, 2), template: "scout"),"#,
        "",
    );
    let (b, _) = BattleState::start_with_tape(&far, 1, [5, 2]);
    assert!(crate::rules::rulesets::odds(&b, U0, U1, false).is_none());
}

#[test]
fn the_clock_and_the_menu_speak_in_action_points() {
    let (b, _) = BattleState::start_with_tape(&field(DUEL, ""), 1, [5, 2]);
    let clock = crate::rules::rulesets::clock(&b);
    assert!(clock.headline.contains("Kestrel"), "{}", clock.headline);
    assert_eq!(clock.order.len(), 2);
    assert!(clock.order[0].current && clock.order[0].unit == U0);
    let attack = crate::rules::rulesets::describe(&b, &attack(U0, U1));
    assert_eq!(attack.label, "Attack Shade");
    assert!(attack.cost.ends_with("AP"), "{}", attack.cost);
    assert!(!attack.provokes);
    let mv = crate::rules::rulesets::describe(&b, &mv(U0, 0, 0));
    let path = mv.path.expect("a move has a path");
    assert_eq!(path.cells().last(), Some(&Cell::new(0, 0)));
    // A fallen unit's entry says it is down, not the AP it cannot spend.
    assert!(
        clock.order[1].label.ends_with(" AP"),
        "{}",
        clock.order[1].label
    );
    let mut b = b;
    b.apply(&Event::Status {
        unit: U1,
        status: crate::rules::battle::Status::Down,
    });
    let clock = crate::rules::rulesets::clock(&b);
    assert!(
        clock.order[1].label.ends_with("down"),
        "{}",
        clock.order[1].label
    );
}

/// No unit ever has AP: every turn is skipped, round after round. The battle passes those
/// rounds in a loop (it used to recurse until the stack overflowed) and ends as a draw.
#[test]
fn a_battle_where_no_one_can_act_ends_as_a_draw() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter", overrides: {"ap": 0}),
        (name: "Shade", side: "Cult", cell: (4, 1), template: "scout", overrides: {"ap": -3}),
    "#;
    let (b, events) = BattleState::start(&field(units, ""), 7);
    let outcome = b.outcome.as_ref().expect("the battle ended");
    assert_eq!(outcome.winner, None);
    assert!(
        outcome.reason.contains("no one could act"),
        "{}",
        outcome.reason
    );
    assert_eq!(b.round, crate::rules::battle::STALL_ROUNDS + 1);
    assert!(matches!(
        events.last(),
        Some(Event::Ended { winner: None, .. })
    ));
}

/// An attack that costs far more AP than a turn gives is paid over the following turns, but
/// one command never plays more than the engine's stall limit of rounds.
#[test]
fn an_endless_extended_action_stops_at_the_stall_limit() {
    let units = r#"
        (name: "Kestrel", side: "Company", cell: (1, 1), template: "fighter", overrides: {"attack_ap": 10000}),
        (name: "Shade", side: "Cult", cell: (2, 1), template: "scout", overrides: {"ap": 0}),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [6, 1]);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    let before = b.round;
    run(&mut b, attack(U0, U1));
    assert!(b.round - before <= crate::rules::battle::STALL_ROUNDS + 1);
    assert_eq!(b.outcome.as_ref().map(|o| o.winner), Some(None));
}

#[test]
fn the_odds_say_what_a_dodge_would_leave_and_match_the_prompt_and_the_dice() {
    use crate::rules::rulesets::{answered_odds, hit_chance_if_dodging, odds};
    let level = field(DUEL, "");
    let (b, _) = BattleState::start_with_tape(&level, 1, [5, 1]);
    let plain = odds(&b, U0, U1, false).expect("odds");
    let answers = answered_odds(&b, U0, U1, false);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let answered = answers.into_iter().next().expect("Shade may dodge");
    assert_eq!(answered.by, U1);
    assert_eq!(answered.reaction, "dodges");
    assert!(answered.odds.hit < plain.hit, "{answered:?} vs {plain:?}");
    // The reaction prompt, once the attack is declared, tells the same two numbers.
    let mut declared = b.clone();
    run(&mut declared, attack(U0, U1));
    assert_eq!(
        hit_chance_if_dodging(&declared, U1),
        Some((plain.hit, answered.odds.hit))
    );
    // And the dice agree: dodging every time, the attack hits about that often.
    let n = 3000;
    let hits = (0..n)
        .filter(|&seed| {
            let (mut b, _) = BattleState::start_with_tape(&level, seed, [5, 1]);
            run(&mut b, attack(U0, U1));
            run(&mut b, react(U1, Reaction::Dodge))
                .iter()
                .any(|e| matches!(e, Event::Attacked { hit: true, .. }))
        })
        .count();
    let seen = hits as f64 / n as f64;
    assert!(
        (seen - answered.odds.hit).abs() < 0.03,
        "{seen} hits dodging, {} predicted",
        answered.odds.hit
    );
    // With no AP left, Shade cannot dodge and the odds say nothing more.
    let mut spent = b.clone();
    spent.units[1].pools.insert("ap".into(), 0);
    assert_eq!(answered_odds(&spent, U0, U1, false), vec![]);
}

/// House rule X-36: only a Combat Style with a Special Advantage (`press` > 0) gains and
/// presses the Advantage; the scenario `advantage_press.ron` shows a fighter doing both.
#[test]
fn a_style_without_a_special_advantage_never_gains_advantage() {
    let units = r#"
        (name: "Archer", side: "Company", cell: (1, 1), template: "archer"),
        (name: "Scout", side: "Cult", cell: (2, 1), template: "scout", overrides: {"hp": 30}),
    "#;
    // Initiative 6 + 3 and 1 + 4: the archer first; her blow: 20 + 4 = 24 against 15.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [6, 1, 20, 3]);
    run(&mut b, attack(U0, U1));
    run(&mut b, decline(U1));
    assert!(state(&b).advantage.is_empty());
    reject(
        &mut b,
        act(U0, Action::PressAdvantage { target: U1 }),
        "no Special Advantage",
    );
    assert!(
        !b.legal_commands().iter().any(|c| matches!(
            c,
            Command::Act {
                action: Action::PressAdvantage { .. },
                ..
            }
        )),
        "{:?}",
        b.legal_commands()
    );
}

/// A spell's odds (the action menu's, and the reaction prompt's while the target may Dodge)
/// are the engine's: a bolt is not the caster's weapon, so the plain attack odds cannot tell
/// them. Over many seeds, bolts hit and wound as often as the odds say.
#[test]
fn a_spells_odds_agree_with_what_bolts_do() {
    use crate::rules::battle::{Interrupt, Resume, Spell};
    use crate::rules::rulesets::{action_odds, odds, pending_odds};
    const BOLT: &str = r#"
        (name: "Orrin", side: "Company", cell: (0, 1), template: "mage"),
        (name: "Shade", side: "Cult", cell: (5, 1), template: "scout"),
    "#;
    let level = field(BOLT, "");
    let bolt = Action::Cast {
        target: U1,
        spell: Spell::MagicMissile,
    };
    let cast = Command::Act {
        unit: U0,
        action: bolt.clone(),
    };
    // Initiative 6 + 2 against 1 + 4: Orrin first.
    let (b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    let (target, o) = action_odds(&b, U0, &bolt).expect("Shade is in the bolt's range");
    assert_eq!(target, U1);
    assert!(o.hit > 0.05 && o.hit < 0.95, "{o:?}");
    // The mage has no bow: no weapon's odds to stand in for the bolt's.
    assert_eq!(odds(&b, U0, U1, true), None);
    // Paused for Shade's Dodge, the attack waiting is the bolt, and its odds are the bolt's;
    // dodging lowers the chance to hit, not what a hit deals.
    let mut paused = b.clone();
    run(&mut paused, cast.clone());
    let Some(Interrupt {
        resume: Resume::Attack(p),
        ..
    }) = paused.interrupts.last()
    else {
        panic!("the bolt waits on Shade's Dodge: {:?}", paused.pending());
    };
    let (now, answers) = pending_odds(&paused, p).expect("the bolt's odds");
    assert_eq!(now, o);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        (answers[0].by, answers[0].reaction.as_str()),
        (U1, "dodges")
    );
    assert!(answers[0].odds.hit < o.hit, "{answers:?}");
    let per_hit = |o: &Odds| o.expected_damage / o.hit;
    assert!((per_hit(&answers[0].odds) - per_hit(&o)).abs() < 1e-9);
    odds_agree_over_seeds(&level, [6, 1], &cast, &o);
}

/// A bolt reads as a spell, in the log and in the Dodge prompt, not as a shot (issue 22: it
/// read "attacks from range" and "hits (ranged)"); a bow's shot still reads as one.
#[test]
fn a_bolt_reads_as_a_spell_in_the_log_and_the_prompt() {
    use crate::rules::battle::Spell;
    use crate::rules::battle::log::{decision, describe};
    let units = r#"
        (name: "Orrin", side: "Company", cell: (0, 1), template: "mage"),
        (name: "Shade", side: "Cult", cell: (5, 1), template: "scout"),
    "#;
    // Initiative 6 + 2 against 1 + 4: Orrin first. The bolt rolls 20: a hit.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [6, 1, 20, 3, 3]);
    let cast = act(
        U0,
        Action::Cast {
            target: U1,
            spell: Spell::MagicMissile,
        },
    );
    let mut lines: Vec<String> = run(&mut b, cast).iter().map(|e| describe(&b, e)).collect();
    assert_eq!(
        decision(&b, &b.pending()),
        "Shade may react: Orrin casts a bolt"
    );
    lines.extend(run(&mut b, decline(U1)).iter().map(|e| describe(&b, e)));
    for want in [
        "Shade may react: Orrin casts a bolt",
        "Orrin's bolt hits Shade",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:?}");
    }
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("(ranged)") || l.contains("from range")),
        "{lines:?}"
    );
    // A shot from a bow is still a ranged attack in words.
    let shot = Event::Attacked {
        attacker: U1,
        target: U0,
        ranged: true,
        hit: false,
        crit: false,
        spell: None,
    };
    assert_eq!(describe(&b, &shot), "Shade misses (ranged) Orrin");
}

/// Over 4,000 seeds (the initiative forced by `tape`), U0's `cmd` on U1, the Dodge declined,
/// hits and wounds as often as `o` says: the hit rate within four standard errors, the mean
/// damage within a tenth.
fn odds_agree_over_seeds(level: &Level, tape: [u32; 2], cmd: &Command, o: &Odds) {
    let (mut hits, mut damage) = (0usize, 0i64);
    let n = 4000;
    for seed in 0..n {
        let (mut b, _) = BattleState::start_with_tape(level, seed, tape);
        let before = hp(&b, 1);
        run(&mut b, cmd.clone());
        if matches!(b.pending(), Decision::React { .. }) {
            run(&mut b, decline(U1));
        }
        let dealt = before - hp(&b, 1);
        hits += usize::from(dealt > 0);
        damage += dealt;
    }
    let tally = crate::rules::testkit::Tally {
        hits: hits as f64,
        tries: n as f64,
        damage: damage as f64,
        battles: n as f64,
    };
    crate::rules::testkit::odds_agree(o, tally, 0.0, (0.1, 0.05), "action-points");
}
