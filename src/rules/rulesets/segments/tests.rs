use super::turns::*;
use super::*;
use crate::ai::{Ai, Config, Difficulty, Kind};
use crate::rules::battle::tests::{playouts_end_and_replay, random_play};
use crate::rules::battle::{Action, Condition, Purpose, Reaction, Status, Trigger};
use crate::rules::grid::Cell;
use crate::rules::level::{self, Level};
use crate::rules::rulesets;
use crate::rules::rulesets::Member;
use crate::rules::rulesets::RulesetId;
use crate::rules::testkit::{Field, U0, U1, U2, load, reject, rolls, run};

/// An 8×3 open field with sides "Party" (Human) and "Orcs" (Ai). `units` are RON unit
/// entries; `options` the level's options.
fn field(units: &str, options: &str) -> Level {
    field_sides(
        units,
        options,
        r#"(name: "Party", controller: Human), (name: "Orcs", controller: Ai)"#,
    )
}

/// An 8×3 open field with `sides` (the kit's square grid, `Square(diagonals: One)`).
fn field_sides(units: &str, options: &str, sides: &str) -> Level {
    Field::new(RulesetId::Segments)
        .map(&["........"; 3])
        .sides(sides)
        .units(units)
        .options(options)
        .level()
}

const ALERTED: &str = r#"alerted: ["Party", "Orcs"]"#;

fn state(b: &BattleState) -> &State {
    Segments::state(b)
}

fn declare(b: &mut BattleState, unit: u16, intent: Intent) -> Vec<Event> {
    run(
        b,
        Command::Declare {
            unit: UnitId(unit),
            intent,
        },
    )
}

fn rules(events: &[Event]) -> Vec<Ev> {
    events
        .iter()
        .filter_map(|e| Segments::event_of(e).cloned())
        .collect()
}

/// Unit `u`'s memo, which must be there.
fn memo(b: &BattleState, u: UnitId) -> &Memo {
    state(b).units.get(u).expect("a memo for the unit")
}

fn surprises(b: &BattleState) -> Vec<u32> {
    state(b).units.values().map(|m| m.surprise).collect()
}

fn intents(b: &BattleState) -> Vec<Option<Intent>> {
    state(b).units.values().map(|m| m.intent.clone()).collect()
}

fn hp(b: &BattleState, u: u16) -> i64 {
    b.units[u as usize].pool("hp")
}

// ---------------------------------------------------------------------------------------------
// Surprise

#[test]
fn a_surprise_penalty_adds_segments_but_never_creates_surprise() {
    let units = r#"
        (name: "Clumsy", side: "Party", cell: (0, 0), template: "fighter",
         overrides: {"surprise_bonus": -1}),
        (name: "Garrick", side: "Party", cell: (0, 2), template: "fighter"),
        (name: "Orc", side: "Orcs", cell: (7, 1), template: "fighter"),
    "#;
    let level = field(units, "");
    // The party rolls 2: two segments, three for the clumsy one.
    let (b, _) = BattleState::start_with_tape(&level, 1, [2, 4]);
    assert_eq!(surprises(&b), vec![3, 2, 0]);
    assert_eq!(state(&b).surprise_segments, 3);
    // The party rolls 3: not surprised, and the penalty does not make the clumsy one so.
    let (b, _) = BattleState::start_with_tape(&level, 1, [3, 4]);
    assert_eq!(surprises(&b), vec![0, 0, 0]);
    assert_eq!(
        b.pending(),
        Decision::Declare {
            side: SideId(0),
            unit: U0
        }
    );
}

#[test]
fn alerted_sides_and_creatures_that_cannot_be_surprised_make_no_roll() {
    let units = r#"
        (name: "Garrick", side: "Party", cell: (0, 0), template: "fighter"),
        (name: "Ghoul", side: "Orcs", cell: (7, 1), template: "fighter",
         overrides: {"never_surprised": 1}),
        (name: "Orc", side: "Orcs", cell: (7, 2), template: "fighter"),
    "#;
    // The orcs are alerted: only the party rolls.
    let (b, events) = BattleState::start_with_tape(&field(units, r#"alerted: ["Orcs"]"#), 1, [1]);
    assert_eq!(rolls(&events, Purpose::Surprise), vec![(1, Some(3))]);
    assert_eq!(surprises(&b), vec![1, 0, 0]);
    // Not alerted: the orcs roll a 1 too, but the ghoul cannot be surprised.
    let (b, events) = BattleState::start_with_tape(&field(units, ""), 1, [5, 1]);
    assert_eq!(rolls(&events, Purpose::Surprise).len(), 2);
    assert_eq!(surprises(&b), vec![0, 0, 1]);
    // A side whose every unit cannot be surprised makes no roll at all.
    let ghouls = r#"
        (name: "Garrick", side: "Party", cell: (0, 0), template: "fighter"),
        (name: "Ghoul", side: "Orcs", cell: (7, 1), template: "fighter",
         overrides: {"never_surprised": 1}),
    "#;
    let (_, events) = BattleState::start_with_tape(&field(ghouls, ""), 1, [5]);
    assert_eq!(rolls(&events, Purpose::Surprise), vec![(5, Some(3))]);
}

#[test]
fn surprised_units_can_neither_act_nor_strike_at_a_fleeing_foe() {
    let units = r#"
        (name: "Garrick", side: "Party", cell: (2, 1), template: "fighter"),
        (name: "Orc", side: "Orcs", cell: (3, 1), template: "fighter"),
    "#;
    // The party rolls 1 (one segment), the orc 6.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ""), 1, [1, 6]);
    assert!(b.units[0].has(&Condition::Surprised));
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    // The orc walks out of Garrick's reach: no fleeing attack from a surprised man.
    let e = run(
        &mut b,
        Command::Move {
            unit: U1,
            to: Cell::new(6, 1),
        },
    );
    assert!(
        !e.iter().any(|e| matches!(e, Event::Interrupted(_))),
        "{e:?}"
    );
    assert_eq!(b.units[1].cell, Cell::new(6, 1));
}

/// G-22, G-23: in a surprise segment a unit may begin a spell, but only a one-segment spell is
/// fully cast in it; a longer one goes on in the segments after.
#[test]
fn only_a_one_segment_spell_is_fully_cast_in_a_surprise_segment() {
    for (time, went_off_after) in [(1u32, 1u32), (2, 2)] {
        let units = format!(
            r#"
            (name: "Halvaine", side: "Party", cell: (0, 1), template: "magic_user",
             overrides: {{"spell_casting_time": {time}}}),
            (name: "Orc", side: "Orcs", cell: (6, 1), template: "fighter", overrides: {{"hp": 30}}),
        "#
        );
        // The party rolls 5 (not surprised), the orcs 2: two surprise segments for Halvaine.
        // Spell: 2d4+2 = 2+2+2.
        let (mut b, _) = BattleState::start_with_tape(&field(&units, ""), 1, [5, 2, 2, 2]);
        assert_eq!(state(&b).phase, Phase::Surprise);
        assert_eq!(state(&b).surprise_segments, 2);
        assert_eq!(b.pending(), Decision::Act { unit: U0 });
        let cast = Command::Act {
            unit: U0,
            action: Action::Cast {
                target: U1,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        };
        let words = rulesets::describe(&b, &cast).cost;
        let when = if time == 1 {
            "goes off at the start of surprise segment 2"
        } else {
            "goes off as the surprise segments end"
        };
        assert!(words.contains(when), "{words}");
        let e = run(&mut b, cast);
        let evs = rules(&e);
        assert!(
            evs.contains(&Ev::CastBegun {
                caster: U0,
                target: U1,
                start: 1,
                last: time,
                spell: crate::rules::battle::Spell::MagicMissile,
            }),
            "{evs:?}"
        );
        // It goes off as surprise segment `went_off_after` ends, and not before.
        let went: Vec<&Ev> = evs
            .iter()
            .filter(|e| matches!(e, Ev::SpellWentOff { .. }))
            .collect();
        assert_eq!(
            went,
            vec![&Ev::SpellWentOff {
                caster: U0,
                target: U1,
                round: 0,
                segment: went_off_after + 1,
                spell: crate::rules::battle::Spell::MagicMissile,
            }],
            "casting time {time}"
        );
        let went_at = evs
            .iter()
            .position(|e| matches!(e, Ev::SpellWentOff { .. }))
            .unwrap_or(usize::MAX);
        let segment_2 = evs
            .iter()
            .position(|e| matches!(e, Ev::Segment { round: 0, n: 2, .. }))
            .unwrap_or(usize::MAX);
        if time == 1 {
            assert!(went_at < segment_2, "{evs:?}");
        } else {
            assert!(segment_2 < went_at, "{evs:?}");
        }
        assert_eq!(hp(&b, 1), 24);
    }
}

/// G-11: surprise is checked once per combat, when it begins; later rounds roll only initiative.
#[test]
fn surprise_is_checked_only_once_per_battle() {
    let level = load("segments_crypt.ron");
    for seed in 1..=3 {
        let (b, _, events) = random_play(&level, seed, 20_000);
        assert!(
            b.round > 1,
            "seed {seed}: the battle should last some rounds"
        );
        let settled = rules(&events)
            .iter()
            .filter(|e| matches!(e, Ev::Surprise { .. }))
            .count();
        assert_eq!(settled, 1, "seed {seed}");
        assert_eq!(rolls(&events, Purpose::Surprise).len(), 2, "seed {seed}");
        // The log says who was caught unawares, not "success" or "failure".
        for e in &events {
            if let Event::Rolled {
                purpose: Purpose::Surprise,
                success: Some(ok),
                ..
            } = e
            {
                let line = crate::rules::battle::log::describe(&b, e);
                let end = if *ok {
                    ", not surprised"
                } else {
                    ", surprised"
                };
                assert!(line.ends_with(end), "seed {seed}: {line}");
            }
        }
        let first_round = events
            .iter()
            .position(|e| matches!(e, Event::RoundStarted { .. }))
            .unwrap_or(0);
        assert!(
            !events[first_round..].iter().any(|e| matches!(
                e,
                Event::Rolled {
                    purpose: Purpose::Surprise,
                    ..
                }
            )),
            "seed {seed}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Declarations and hidden information

const SKIRMISH: &str = r#"
    (name: "Garrick", side: "Party", cell: (1, 0), template: "fighter"),
    (name: "Halvaine", side: "Party", cell: (0, 2), template: "magic_user"),
    (name: "Orc", side: "Orcs", cell: (5, 0), template: "fighter"),
    (name: "Orc Archer", side: "Orcs", cell: (7, 2), template: "archer"),
"#;

#[test]
fn declarations_stay_hidden_from_the_other_side_until_revealed() {
    let (mut b, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 1, [1, 6]);
    declare(&mut b, 0, Intent::Melee);
    let e = declare(
        &mut b,
        1,
        Intent::Spell {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    // The party's own view keeps its declarations; the orcs' view has none of them.
    let mut orcs = b.clone();
    rulesets::redact(&mut orcs, SideId(1));
    assert_eq!(intents(&orcs)[..2], [None, None]);
    assert_eq!(
        [memo(&orcs, U0).declared, memo(&orcs, U1).declared],
        [true, true],
        "that they declared is no secret"
    );
    let mut party = b.clone();
    rulesets::redact(&mut party, SideId(0));
    assert_eq!(
        intents(&party)[1],
        Some(Intent::Spell {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile
        })
    );
    // The event that carried the declaration is redacted too.
    let shown = rulesets::redact_event(&b, &e[0], SideId(1));
    assert_eq!(
        shown,
        Segments::event(Ev::Declared {
            unit: U1,
            intent: None
        })
    );
    assert_eq!(rulesets::redact_event(&b, &e[0], SideId(0)), e[0]);
    // The orcs declare; the orcs (rolled 6) act in segment 1, the party in segment 6.
    declare(&mut b, 2, Intent::Melee);
    let e = declare(&mut b, 3, Intent::Missile);
    assert!(e.contains(&Segments::event(Ev::Revealed {
        unit: U2,
        intent: Some(Intent::Melee)
    })));
    let mut party = b.clone();
    rulesets::redact(&mut party, SideId(0));
    // The orc acting now is revealed; the party's view of the orc archer (segment 1 with its
    // bow: missile bonus 2 below 1 is 1) is revealed too; nothing else of the orcs'.
    assert_eq!(intents(&party)[2], Some(Intent::Melee));
    let mut orcs = b.clone();
    rulesets::redact(&mut orcs, SideId(1));
    assert_eq!(
        intents(&orcs)[..2],
        [None, None],
        "the party acts in segment 6"
    );
    // The dice to come are not in a redacted copy: two battles on different seeds redact to
    // the same generator.
    let (mut other, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 99, [1, 6]);
    for (u, i) in [
        (0, Intent::Melee),
        (
            1,
            Intent::Spell {
                target: U2,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        ),
        (2, Intent::Melee),
        (3, Intent::Missile),
    ] {
        declare(&mut other, u, i);
    }
    rulesets::redact(&mut other, SideId(1));
    assert_eq!(orcs.rng.die(20), other.rng.die(20));
    assert_eq!(orcs.rng.tape_left(), 0);
}

/// The utility AI (with a generous time limit, so that only its node budget bounds it).
fn ai(seed: u64) -> Ai {
    let mut c = Config::new(Kind::Utility(Difficulty::Normal), seed);
    c.time_limit = std::time::Duration::from_secs(60);
    Ai::new(c)
}

#[test]
fn an_ai_decides_the_same_whatever_the_other_side_declared() {
    let level = field(SKIRMISH, ALERTED);
    let variants = [
        [
            Intent::Melee,
            Intent::Spell {
                target: U2,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        ],
        [Intent::Run, Intent::Hold],
        [
            Intent::Hold,
            Intent::Spell {
                target: UnitId(3),
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        ],
    ];
    let mut views = Vec::new();
    let mut declarations = Vec::new();
    let mut turns = Vec::new();
    for party in &variants {
        // The orcs roll 6: they act in segment 1, before anything of the party is revealed.
        let (mut b, _) = BattleState::start_with_tape(&level, 5, [1, 6]);
        declare(&mut b, 0, party[0].clone());
        declare(&mut b, 1, party[1].clone());
        let mut view = b.clone();
        rulesets::redact(&mut view, SideId(1));
        views.push(ron::to_string(&view).expect("ron"));
        assert_eq!(
            b.pending(),
            Decision::Declare {
                side: SideId(1),
                unit: U2
            }
        );
        declarations.push(ai(3).decide(&b));
        declare(&mut b, 2, Intent::Melee);
        declare(&mut b, 3, Intent::Missile);
        assert!(
            matches!(b.pending(), Decision::Act { unit } if b.units[unit.index()].side == SideId(1))
        );
        turns.push(ai(3).decide(&b));
    }
    assert!(
        views.windows(2).all(|w| w[0] == w[1]),
        "the orcs' views differ"
    );
    assert!(declarations[0].is_some() && turns[0].is_some());
    assert!(
        declarations.windows(2).all(|w| w[0] == w[1]),
        "{declarations:?}"
    );
    assert!(turns.windows(2).all(|w| w[0] == w[1]), "{turns:?}");
}

#[test]
fn declarations_are_binding_in_kind() {
    let (mut b, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 1, [6, 1]);
    declare(&mut b, 0, Intent::Run);
    declare(
        &mut b,
        1,
        Intent::Spell {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    declare(&mut b, 2, Intent::Hold);
    declare(&mut b, 3, Intent::Hold);
    // Segment 1: the party. Garrick declared Run: he may move up to his mv (12), not attack.
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    assert!(
        b.check(&Command::Move {
            unit: U0,
            to: Cell::new(4, 0)
        })
        .is_ok()
    );
    run(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(4, 1),
        },
    );
    // Running used his turn: Halvaine's now. He may cast at the orc, or not at all.
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    let r = b
        .check(&Command::Act {
            unit: U1,
            action: Action::Cast {
                target: UnitId(3),
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        })
        .expect_err("another target");
    assert!(
        r.reason.contains("declared Magic Missile at Orc"),
        "{}",
        r.reason
    );
    let r = b
        .check(&Command::Move {
            unit: U1,
            to: Cell::new(1, 2),
        })
        .expect_err("a caster does not move");
    assert!(r.reason.contains("declared a spell"), "{}", r.reason);
    let legal = b.legal_commands();
    assert!(legal.contains(&Command::Act {
        unit: U1,
        action: Action::Cast {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile
        }
    }));
    assert!(legal.contains(&Command::EndTurn { unit: U1 }));
    // Electing not to cast keeps the spell slot.
    run(&mut b, Command::EndTurn { unit: U1 });
    assert_eq!(b.units[1].pool("spells"), 2);
    assert!(!b.units[1].has(&Condition::Casting));
}

// ---------------------------------------------------------------------------------------------
// Initiative

#[test]
fn with_three_sides_each_acts_in_the_segment_of_the_highest_roll_among_the_others() {
    let units = r#"
        (name: "A", side: "Party", cell: (0, 0), template: "fighter"),
        (name: "B", side: "Orcs", cell: (7, 0), template: "fighter"),
        (name: "C", side: "Wolves", cell: (7, 2), template: "fighter"),
    "#;
    let sides = r#"(name: "Party", controller: Human), (name: "Orcs", controller: Ai),
        (name: "Wolves", controller: Ai)"#;
    let level = field_sides(units, r#"alerted: ["Party", "Orcs", "Wolves"]"#, sides);
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [2, 5, 3]);
    for u in 0..3 {
        declare(&mut b, u, Intent::Melee);
    }
    let r = state(&b);
    assert_eq!(r.initiative, vec![2, 5, 3]);
    let segs: Vec<Option<u32>> = (0..3).map(|u| unit_segment(&b, r, UnitId(u))).collect();
    assert_eq!(segs, vec![Some(5), Some(3), Some(5)]);
    // B acts first, in segment 3.
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    assert_eq!(r.segment, 3);
}

#[test]
fn the_surprise_bonus_is_not_added_to_initiative_and_the_missile_bonus_is_with_a_bow() {
    let units = r#"
        (name: "Elowen", side: "Party", cell: (0, 0), template: "archer"),
        (name: "Orc", side: "Orcs", cell: (7, 2), template: "fighter"),
    "#;
    let level = field(units, ALERTED);
    for (intent, expect) in [(Intent::Melee, 5), (Intent::Missile, 3), (Intent::Run, 5)] {
        let (mut b, _) = BattleState::start_with_tape(&level, 1, [2, 5]);
        declare(&mut b, 0, intent.clone());
        declare(&mut b, 1, Intent::Hold);
        assert_eq!(unit_segment(&b, state(&b), U0), Some(expect), "{intent:?}");
        assert_eq!(state(&b).segment, expect, "{intent:?}");
    }
    // Never before segment 1.
    let (mut b, _) = BattleState::start_with_tape(&level, 1, [2, 1]);
    declare(&mut b, 0, Intent::Missile);
    declare(&mut b, 1, Intent::Hold);
    assert_eq!(state(&b).segment, 1);
}

// ---------------------------------------------------------------------------------------------
// Spells

#[test]
fn a_spell_begun_late_goes_on_into_the_next_round() {
    let units = r#"
        (name: "Halvaine", side: "Party", cell: (0, 1), template: "magic_user",
         overrides: {"spell_casting_time": 2}),
        (name: "Orc", side: "Orcs", cell: (6, 1), template: "fighter", overrides: {"hp": 30}),
    "#;
    // Round 1: party 1, orcs 4 (the party acts in 4). Round 2: 3, 3. Spell: 2d4+2 = 2+2+2.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ALERTED), 1, [1, 4, 3, 3, 2, 2]);
    declare(
        &mut b,
        0,
        Intent::Spell {
            target: U1,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    declare(&mut b, 1, Intent::Hold);
    // Halvaine holds his spell from segment 4 to 10, then begins it.
    for _ in 4..10 {
        run(
            &mut b,
            Command::Act {
                unit: U0,
                action: Action::Delay,
            },
        );
    }
    assert_eq!(state(&b).segment, 10);
    assert!(
        b.check(&Command::Act {
            unit: U0,
            action: Action::Delay
        })
        .is_err()
    );
    let words = rulesets::describe(
        &b,
        &Command::Act {
            unit: U0,
            action: Action::Cast {
                target: U1,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
    )
    .cost;
    assert!(
        words.contains("goes off at the start of segment 2 of round 2"),
        "{words}"
    );
    let e = run(
        &mut b,
        Command::Act {
            unit: U0,
            action: Action::Cast {
                target: U1,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
    );
    assert!(rules(&e).contains(&Ev::CastBegun {
        caster: U0,
        target: U1,
        start: 10,
        last: 11,
        spell: crate::rules::battle::Spell::MagicMissile,
    }));
    // Round 2: Halvaine, still casting, declares nothing; the turn-order panel says when his
    // spell goes off.
    assert_eq!(b.round, 2);
    let panel = rulesets::clock(&b);
    let halvaine = panel
        .order
        .iter()
        .find(|e| e.unit == U0)
        .map(|e| e.label.clone());
    assert_eq!(
        halvaine.as_deref(),
        Some("Casting: goes off at the start of segment 2 of round 2")
    );
    assert_eq!(
        b.pending(),
        Decision::Declare {
            side: SideId(1),
            unit: U1
        }
    );
    let e = declare(&mut b, 1, Intent::Hold);
    let evs = rules(&e);
    assert!(
        evs.contains(&Ev::SpellWentOff {
            caster: U0,
            target: U1,
            round: 2,
            segment: 2,
            spell: crate::rules::battle::Spell::MagicMissile,
        }),
        "{evs:?}"
    );
    assert_eq!(hp(&b, 1), 24);
    // Its declaration was skipped: it does not act this round.
    assert!(!memo(&b, U0).declared);
}

#[test]
fn in_a_simultaneous_segment_damage_before_the_casting_began_spoils_it_too() {
    // The orc is first in unit order: it strikes before Halvaine begins, in the same segment.
    let units = r#"
        (name: "Orc", side: "Orcs", cell: (3, 1), template: "fighter"),
        (name: "Halvaine", side: "Party", cell: (2, 1), template: "magic_user"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field(units, ALERTED), 1, [3, 3, 15, 1]);
    declare(&mut b, 0, Intent::Melee);
    declare(
        &mut b,
        1,
        Intent::Spell {
            target: U0,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    assert!(state(&b).simultaneous);
    run(
        &mut b,
        Command::Attack {
            unit: U0,
            target: U1,
            ranged: false,
        },
    );
    assert_eq!(hp(&b, 1), 5);
    let e = run(
        &mut b,
        Command::Act {
            unit: U1,
            action: Action::Cast {
                target: U0,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
    );
    let evs = rules(&e);
    assert!(evs.contains(&Ev::Spoiled { caster: U1 }), "{evs:?}");
    assert!(!evs.iter().any(|e| matches!(e, Ev::SpellWentOff { .. })));
    assert_eq!(b.units[1].pool("spells"), 1, "the slot is used");
}

// ---------------------------------------------------------------------------------------------
// Rejections, odds, view

#[test]
fn rejections_say_why_and_change_nothing() {
    let (mut b, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 1, [6, 1]);
    // Declarations.
    reject(
        &mut b,
        Command::Declare {
            unit: U1,
            intent: Intent::Melee,
        },
        "Garrick's declaration",
    );
    reject(
        &mut b,
        Command::Declare {
            unit: U0,
            intent: Intent::Spell {
                target: U2,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
        "knows no spell",
    );
    reject(
        &mut b,
        Command::Declare {
            unit: U0,
            intent: Intent::Missile,
        },
        "no missile weapon",
    );
    reject(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(2, 0),
        },
        "must declare first",
    );
    reject(&mut b, Command::Pick { unit: U0 }, "no picks");
    reject(&mut b, Command::EndTurn { unit: UnitId(77) }, "there is no");
    declare(&mut b, 0, Intent::Melee);
    reject(
        &mut b,
        Command::Declare {
            unit: U1,
            intent: Intent::Spell {
                target: U0,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
        "aimed at an enemy",
    );
    declare(
        &mut b,
        1,
        Intent::Spell {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    declare(&mut b, 2, Intent::Melee);
    declare(&mut b, 3, Intent::Missile);
    // Segment 1: Garrick (Melee).
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    reject(
        &mut b,
        Command::Declare {
            unit: U0,
            intent: Intent::Run,
        },
        "start of a round",
    );
    reject(
        &mut b,
        Command::EndTurn { unit: U1 },
        "Garrick's turn in segment 1",
    );
    reject(
        &mut b,
        Command::Attack {
            unit: U0,
            target: U2,
            ranged: false,
        },
        "not within Garrick's reach",
    );
    reject(
        &mut b,
        Command::Attack {
            unit: U0,
            target: U2,
            ranged: true,
        },
        "no missile weapon",
    );
    reject(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(5, 0),
        },
        "move of 6 squares",
    );
    reject(
        &mut b,
        Command::Act {
            unit: U0,
            action: Action::Cast {
                target: U2,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
        "knows no spell",
    );
    reject(
        &mut b,
        Command::Act {
            unit: U0,
            action: Action::Dodge,
        },
        "not an action",
    );
    reject(
        &mut b,
        Command::React {
            unit: U0,
            reaction: Reaction::Decline,
        },
        "nothing to react to",
    );
    run(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(4, 0),
        },
    );
    reject(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(4, 1),
        },
        "already moved",
    );
    reject(
        &mut b,
        Command::Act {
            unit: U0,
            action: Action::Delay,
        },
        "already acted",
    );
    reject(
        &mut b,
        Command::Attack {
            unit: U0,
            target: U1,
            ranged: false,
        },
        "not an enemy",
    );
}

#[test]
fn legal_commands_are_all_accepted_and_random_battles_end() {
    playouts_end_and_replay("segments_crypt.ron");
    // A small field with every feature: surprise rolls, spears, bows, a spell, two routines,
    // a wolf that surprises on 1-3, and a third side.
    let units = r#"
        (name: "Garrick", side: "Party", cell: (0, 0), template: "fighter", overrides: {"attacks": 2}),
        (name: "Tolly", side: "Party", cell: (1, 1), template: "spearman"),
        (name: "Elowen", side: "Party", cell: (0, 2), template: "archer"),
        (name: "Halvaine", side: "Party", cell: (1, 2), template: "magic_user"),
        (name: "Grumblegut", side: "Orcs", cell: (7, 0), template: "ogre"),
        (name: "Orc", side: "Orcs", cell: (6, 1), template: "spearman", overrides: {"strikes": 2}),
        (name: "Fang", side: "Wolves", cell: (4, 2), template: "wolf"),
    "#;
    let sides = r#"(name: "Party", controller: Human), (name: "Orcs", controller: Ai),
        (name: "Wolves", controller: Ai)"#;
    let level = field_sides(units, "", sides);
    for seed in 1..=12 {
        let (b, commands, _) = random_play(&level, seed, 20_000);
        assert!(
            b.outcome.is_some(),
            "seed {seed}: no end after {} commands",
            commands.len()
        );
    }
}

/// The preview's odds are the engine's: over many seeds, Elowen's arrows at long range hit
/// and wound as often as `odds` says.
#[test]
fn odds_agree_with_what_attacks_do() {
    let units = r#"
        (name: "Elowen", side: "Party", cell: (0, 1), template: "archer"),
        (name: "Garrick", side: "Party", cell: (5, 0), template: "fighter", overrides: {"strikes": 2}),
        (name: "Orc", side: "Orcs", cell: (6, 1), template: "fighter", overrides: {"hp": 500}),
    "#;
    let level = field(units, ALERTED);
    let setup = |seed: u64, archer: bool| {
        let (mut b, _) = BattleState::start_with_tape(&level, seed, [3, 3]);
        declare(
            &mut b,
            0,
            if archer {
                Intent::Missile
            } else {
                Intent::Hold
            },
        );
        declare(&mut b, 1, if archer { Intent::Hold } else { Intent::Melee });
        declare(&mut b, 2, Intent::Hold);
        b
    };
    for (archer, attacker) in [(true, U0), (false, U1)] {
        let b = setup(1, archer);
        assert_eq!(b.pending(), Decision::Act { unit: attacker });
        let o = rulesets::odds(&b, attacker, U2, archer).expect("the orc is a target");
        assert!(o.hit > 0.05 && o.hit < 0.95, "{o:?}");
        if archer {
            // Six squares is within range 7: 1d20+2 vs 20 - 4.
            assert_eq!(
                o.formula,
                "1d20+2 vs 16 (THAC0 20 - AC 4, missile bonus +2), 2 missiles"
            );
        }
        let (mut strikes, mut hits, mut damage) = (0usize, 0usize, 0i64);
        let n = 3000;
        for seed in 0..n {
            let mut b = setup(seed, archer);
            let e = run(
                &mut b,
                Command::Attack {
                    unit: attacker,
                    target: U2,
                    ranged: archer,
                },
            );
            let r = rolls(&e, Purpose::Attack);
            strikes += r.len();
            hits += r.iter().filter(|(t, a)| Some(*t) >= *a).count();
            damage += 500 - hp(&b, 2);
        }
        let tally = crate::rules::testkit::Tally {
            hits: hits as f64,
            tries: strikes as f64,
            damage: damage as f64,
            battles: n as f64,
        };
        crate::rules::testkit::odds_agree(&o, tally, 0.0, (0.08, 0.0), "segments");
    }
    // At long range the archer is at -2; out of reach there are no melee odds.
    let far = field(
        r#"(name: "Elowen", side: "Party", cell: (0, 0), template: "archer", overrides: {"range": 3}),
           (name: "Orc", side: "Orcs", cell: (7, 2), template: "fighter"),"#,
        ALERTED,
    );
    let (b, _) = BattleState::start_with_tape(&far, 1, [3, 3]);
    let o = rulesets::odds(&b, U0, U1, true).expect("in long range");
    assert!(o.formula.contains("long range -2"), "{}", o.formula);
    assert!(rulesets::odds(&b, U0, U1, false).is_none());
}

#[test]
fn the_clock_and_the_menu_speak_in_segments() {
    let (mut b, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 1, [2, 4]);
    let c = rulesets::clock(&b);
    assert!(
        c.headline.contains("declarations (0 of 4"),
        "{}",
        c.headline
    );
    assert!(c.order[0].current && c.order[0].label == "To declare");
    declare(&mut b, 0, Intent::Melee);
    declare(
        &mut b,
        1,
        Intent::Spell {
            target: U2,
            spell: crate::rules::battle::Spell::MagicMissile,
        },
    );
    declare(&mut b, 2, Intent::Melee);
    declare(&mut b, 3, Intent::Missile);
    // The orc archer shoots in segment 1 (2 - 2 would be 0), the orc in 2, the party in 4.
    let c = rulesets::clock(&b);
    assert!(c.headline.contains("Segment 1 of 10"), "{}", c.headline);
    assert!(c.headline.contains("Party acts in 4"), "{}", c.headline);
    let labels: Vec<(UnitId, String)> = c.order.iter().map(|e| (e.unit, e.label.clone())).collect();
    assert_eq!(labels[0], (UnitId(3), "Segment 1".to_string()));
    assert_eq!(labels[1], (U2, "Segment 2".to_string()));
    // The party's own view of the clock does not know the archer's bow: it shows its side's 2.
    let mut view = b.clone();
    rulesets::redact(&mut view, SideId(0));
    let c = rulesets::clock(&view);
    assert!(
        c.order
            .iter()
            .any(|e| e.unit == UnitId(3) && e.label == "Segment 1"),
        "revealed now"
    );
    run(&mut b, Command::EndTurn { unit: UnitId(3) });
    // Segment 2, the orc: moving next to Garrick and the menu.
    let mv = rulesets::describe(
        &b,
        &Command::Move {
            unit: U2,
            to: Cell::new(2, 0),
        },
    );
    assert_eq!(mv.cost, "move 3 of 6 squares, then attack");
    assert!(!mv.provokes);
    assert_eq!(
        mv.path.expect("a path").cells().last(),
        Some(&Cell::new(2, 0))
    );
    run(
        &mut b,
        Command::Move {
            unit: U2,
            to: Cell::new(2, 0),
        },
    );
    let atk = rulesets::describe(
        &b,
        &Command::Attack {
            unit: U2,
            target: U0,
            ranged: false,
        },
    );
    assert_eq!(atk.label, "Attack Garrick");
    assert!(
        atk.cost.starts_with("attack routine (1 strike in melee)"),
        "{}",
        atk.cost
    );
    run(&mut b, Command::EndTurn { unit: U2 });
    // Segment 4, Garrick: leaving the orc's reach provokes; Halvaine's spell says when it
    // goes off.
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    let away = rulesets::describe(
        &b,
        &Command::Move {
            unit: U0,
            to: Cell::new(0, 0),
        },
    );
    assert!(away.provokes);
    run(&mut b, Command::EndTurn { unit: U0 });
    let cast = rulesets::describe(
        &b,
        &Command::Act {
            unit: U1,
            action: Action::Cast {
                target: U2,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
    );
    assert!(cast.cost.contains("start of segment 5"), "{}", cast.cost);
    let decl = rulesets::describe(
        &b,
        &Command::Declare {
            unit: U0,
            intent: Intent::Run,
        },
    );
    // A declaration's entry says what it lets the unit do this round, in its own numbers.
    let run = run_budget(&b, U0);
    let walk = walk_budget(&b, U0);
    assert_ne!(run, walk);
    assert_eq!(
        decl.cost,
        format!("move up to {run} squares, no attack"),
        "{}",
        decl.cost
    );
    let melee = rulesets::describe(
        &b,
        &Command::Declare {
            unit: U0,
            intent: Intent::Melee,
        },
    );
    assert!(
        melee
            .cost
            .starts_with(&format!("move up to {walk} squares, then strike")),
        "{}",
        melee.cost
    );
    // A spell's entry says whether its target could be struck from where both stand now.
    let spell = |b: &BattleState| {
        rulesets::describe(
            b,
            &Command::Declare {
                unit: U1,
                intent: Intent::Spell {
                    target: U2,
                    spell: crate::rules::battle::Spell::MagicMissile,
                },
            },
        )
        .cost
    };
    let near = spell(&b);
    assert!(near.ends_with("in range and sight now"), "{near}");
    let mut far = b.clone();
    far.units[2].cell = Cell::new(40, 0);
    let far = spell(&far);
    assert!(far.contains("squares from"), "{far}");
}

#[test]
fn a_fleeing_attack_that_kills_stops_the_move() {
    let units = r#"
        (name: "Tolly", side: "Party", cell: (2, 1), template: "fighter", overrides: {"hp": 2}),
        (name: "Garrick", side: "Party", cell: (0, 0), template: "fighter"),
        (name: "Orc", side: "Orcs", cell: (3, 1), template: "fighter"),
    "#;
    let (mut b, _) = BattleState::start_with_tape(&field(units, ALERTED), 1, [6, 1, 20, 5]);
    declare(&mut b, 0, Intent::Run);
    declare(&mut b, 1, Intent::Hold);
    declare(&mut b, 2, Intent::Melee);
    run(
        &mut b,
        Command::Move {
            unit: U0,
            to: Cell::new(0, 2),
        },
    );
    assert!(matches!(
        b.pending(),
        Decision::React {
            unit: U2,
            trigger: Trigger::Opportunity { mover: U0, .. }
        }
    ));
    let legal = b.legal_commands();
    assert_eq!(legal.len(), 2);
    let e = run(
        &mut b,
        Command::React {
            unit: U2,
            reaction: Reaction::Attack { target: U0 },
        },
    );
    assert!(e.contains(&Event::Status {
        unit: U0,
        status: Status::Dead
    }));
    assert!(!e.iter().any(|e| matches!(e, Event::Moved { .. })), "{e:?}");
    assert_eq!(b.units[0].cell, Cell::new(2, 1));
    // The segment goes on without him.
    assert!(!matches!(b.pending(), Decision::Act { unit: U0 }));
}

#[test]
fn options_surprised_is_refused_in_a_segments_level() {
    let src = r#"(
    name: "Ambush",
    ruleset: "segments",
    topology: Square(diagonals: One),
    size: (3, 1),
    map: ["..."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "fighter"),
        (name: "b", side: "B", cell: (2, 0), template: "wolf"),
    ],
    options: (surprised: ["A"]),
)"#;
    let errs = level::validate("a.ron", src);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].message.contains("surprises_on"),
        "{}",
        errs[0].message
    );
    assert!(
        level::validate(
            "a.ron",
            &src.replace("surprised: [\"A\"]", "alerted: [\"B\"]")
        )
        .is_empty()
    );
}

/// No input panics: at every state of random battles on the crypt, arbitrary commands (units
/// and targets out of range, cells off the map, actions of other rulesets, declarations at
/// the wrong time) are either accepted or rejected with a reason, and a rejection changes
/// nothing.
#[test]
fn arbitrary_commands_never_panic_and_rejections_change_nothing() {
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};
    let level = load("segments_crypt.ron");
    let mut pick = ChaCha8Rng::seed_from_u64(99);
    let (mut accepted, mut rejected) = (0, 0);
    for seed in 1..=3 {
        let (_, commands, _) = random_play(&level, seed, 20_000);
        let (mut b, _) = BattleState::start(&level, seed);
        for (i, legal) in commands.iter().enumerate() {
            // Probe every fifth state with a handful of arbitrary commands.
            if i % 5 == 0 {
                for _ in 0..6 {
                    let unit = UnitId(pick.random_range(0..12u16));
                    let target = UnitId(pick.random_range(0..12u16));
                    let cell = Cell::new(pick.random_range(-2..22), pick.random_range(-2..16));
                    let cmd = match pick.random_range(0..10) {
                        0 => Command::Move { unit, to: cell },
                        1 => Command::Attack {
                            unit,
                            target,
                            ranged: pick.random_range(0..2) == 1,
                        },
                        2 => Command::EndTurn { unit },
                        3 => Command::Act {
                            unit,
                            action: Action::Delay,
                        },
                        4 => Command::Act {
                            unit,
                            action: Action::Cast {
                                target,
                                spell: crate::rules::battle::Spell::MagicMissile,
                            },
                        },
                        5 => Command::Act {
                            unit,
                            action: Action::Dodge,
                        },
                        6 => Command::Declare {
                            unit,
                            intent: Intent::Spell {
                                target,
                                spell: crate::rules::battle::Spell::MagicMissile,
                            },
                        },
                        7 => Command::Declare {
                            unit,
                            intent: Intent::Missile,
                        },
                        8 => Command::React {
                            unit,
                            reaction: Reaction::Attack { target },
                        },
                        _ => Command::Pick { unit },
                    };
                    // The view's questions never panic either, whatever they are asked.
                    let _ = rulesets::describe(&b, &cmd);
                    let _ = rulesets::odds(&b, cmd.unit(), target, true);
                    let _ = rulesets::odds(&b, cmd.unit(), target, false);
                    let mut probe = b.clone();
                    let before = ron::to_string(&probe).expect("ron");
                    let listed = probe.legal_commands().contains(&cmd);
                    match probe.execute(&cmd) {
                        Ok(events) => {
                            accepted += 1;
                            // What check accepts is what legal_commands lists, and it does
                            // something.
                            assert!(listed, "{cmd:?} accepted but not listed");
                            assert!(!events.is_empty(), "{cmd:?} accepted but did nothing");
                        }
                        Err(r) => {
                            rejected += 1;
                            assert!(!r.to_string().is_empty(), "{cmd:?}");
                            assert!(!listed, "{cmd:?} listed but rejected: {r}");
                            assert_eq!(ron::to_string(&probe).expect("ron"), before, "{cmd:?}");
                        }
                    }
                }
            }
            let _ = rulesets::clock(&b);
            run(&mut b, legal.clone());
        }
    }
    assert!(accepted > 0 && rejected > 0, "{accepted} {rejected}");
}

#[test]
fn a_turn_with_no_attack_routine_is_logged_without_one() {
    let (b, _) = BattleState::start_with_tape(&field(SKIRMISH, ALERTED), 1, [2, 4]);
    let line = |routines: u32| {
        crate::rules::battle::log::describe(
            &b,
            &Segments::event(Ev::TurnBegun {
                index: 0,
                kind: TurnKind::Main,
                routines,
                attacked: false,
            }),
        )
    };
    // A caster that declared its spell has no routine: no "0 attack routines left".
    assert_eq!(line(0), "(its initiative segment)");
    assert_eq!(line(1), "(its initiative segment; 1 attack routine left)");
}

/// What the AI may know of who strikes first: a foe whose segment is still to come surely acts
/// before a unit that has had its turn; once both have, the next round's initiative decides.
/// The threat of a foe's routine is its odds from wherever it will stand.
#[test]
fn a_foe_whose_segment_is_still_to_come_surely_acts_first() {
    let units = r#"
        (name: "Garrick", side: "Party", cell: (0, 1), template: "fighter"),
        (name: "Orc", side: "Orcs", cell: (7, 1), template: "fighter"),
    "#;
    // The party rolls 5, the orcs 2: the party acts in segment 2, the orcs in segment 5.
    let (mut b, _) = BattleState::start_with_tape(&field(units, ALERTED), 1, [5, 2]);
    declare(&mut b, 0, Intent::Melee);
    declare(&mut b, 1, Intent::Melee);
    assert_eq!(state(&b).segment, 2);
    assert!(
        !acts_before(&b, state(&b), U1, U0),
        "Garrick's own turn is under way"
    );
    run(&mut b, Command::EndTurn { unit: U0 });
    assert_eq!(state(&b).segment, 5);
    assert!(
        acts_before(&b, state(&b), U1, U0),
        "the orc's turn is still to come"
    );
    assert!(
        !acts_before(&b, state(&b), U0, U1),
        "the orc has not had its turn"
    );
    run(&mut b, Command::EndTurn { unit: U1 });
    assert!(
        !acts_before(&b, state(&b), U1, U0),
        "a new round: initiative decides"
    );
    // THAC0 19 - AC 4: 15 or more on a d20 (30%), 1d8+1 (5.5 on average); 7 squares apart.
    let threat = threat_damage(&b, U1, U0, false).expect("a melee threat");
    assert!((threat - 0.3 * 5.5).abs() < 1e-9, "{threat}");
    assert_eq!(odds(&b, state(&b), U1, U0, false), None, "out of reach now");
    assert_eq!(threat_damage(&b, U1, U0, true), None, "no missile weapon");
}

/// Elowen and Garrick of the Party against an orc; the party rolls 2 for surprise: two
/// segments for Garrick, none for Elowen (surprise bonus 2); the orc rolls 6, not surprised.
fn party_surprised() -> BattleState {
    let units = r#"
        (name: "Elowen", side: "Party", cell: (0, 1), template: "archer"),
        (name: "Orc", side: "Orcs", cell: (7, 1), template: "fighter"),
        (name: "Garrick", side: "Party", cell: (0, 2), template: "fighter"),
    "#;
    BattleState::start_with_tape(&field(units, ""), 1, [2, 6]).0
}

/// In a surprise segment every unit no longer surprised takes a turn, in unit order: a foe
/// after a unit in that order surely acts before the unit's next turn; a surprised one does
/// not act at all.
#[test]
fn in_a_surprise_segment_a_foe_later_in_unit_order_surely_acts_first() {
    let mut b = party_surprised();
    assert_eq!(state(&b).phase, Phase::Surprise);
    assert_eq!(b.pending(), Decision::Act { unit: U0 });
    run(&mut b, Command::EndTurn { unit: U0 });
    assert_eq!(b.pending(), Decision::Act { unit: U1 });
    assert!(
        acts_before(&b, state(&b), U1, U0),
        "the orc comes after Elowen"
    );
    run(&mut b, Command::EndTurn { unit: U1 });
    assert!(
        !acts_before(&b, state(&b), U0, U1),
        "Elowen comes before the orc"
    );
    assert!(!acts_before(&b, state(&b), U2, U1), "Garrick is surprised");
}

/// In a surprise segment's turn order a unit whose turn of the segment is over reads "Done",
/// and "Acts" again in the next surprise segment, though the round's `acted` memo, set in
/// the first, still says it acted.
#[test]
fn in_a_surprise_segment_a_unit_that_has_acted_reads_as_done() {
    let mut b = party_surprised();
    let order = |b: &BattleState| -> Vec<(UnitId, String, bool, bool)> {
        rulesets::clock(b)
            .order
            .into_iter()
            .map(|e| (e.unit, e.label, e.done, e.current))
            .collect()
    };
    let entry = |b: &BattleState, u: UnitId| {
        order(b)
            .into_iter()
            .find(|e| e.0 == u)
            .map(|(_, label, done, current)| (label, done, current))
            .expect("the unit is in the turn order")
    };
    let acts = |current| ("Acts".to_string(), false, current);
    let done = ("Done".to_string(), true, false);
    assert_eq!((state(&b).phase, state(&b).segment), (Phase::Surprise, 1));
    assert_eq!(entry(&b, U0), acts(true));
    assert_eq!(entry(&b, U1), acts(false));
    assert_eq!(
        entry(&b, U2),
        ("Surprised (2 seg.)".to_string(), false, false)
    );
    run(&mut b, Command::EndTurn { unit: U0 });
    assert_eq!(entry(&b, U0), done, "Elowen has had her turn");
    assert_eq!(entry(&b, U1), acts(true));
    // Hot-seat: each side's own view says so too.
    for side in [SideId(0), SideId(1)] {
        let mut view = b.clone();
        rulesets::redact(&mut view, side);
        assert_eq!(entry(&view, U0), done, "{side:?}'s view");
    }
    let e = run(
        &mut b,
        Command::Move {
            unit: U1,
            to: Cell::new(6, 1),
        },
    );
    assert!(!e.is_empty(), "the orc moves");
    assert_eq!(entry(&b, U1), acts(true), "a move is not the whole turn");
    run(&mut b, Command::EndTurn { unit: U1 });
    // The second surprise segment: both act again.
    assert_eq!((state(&b).phase, state(&b).segment), (Phase::Surprise, 2));
    assert!(
        memo(&b, U0).acted,
        "the round's memo still says Elowen acted"
    );
    assert_eq!(entry(&b, U0), acts(true));
    assert_eq!(entry(&b, U1), acts(false));
    run(&mut b, Command::EndTurn { unit: U0 });
    assert_eq!(entry(&b, U0), done);
    assert_eq!(entry(&b, U1), acts(true));
}

/// The player's log leaves out "X is done" ([`Ruleset::bookkeeping`]) because it always
/// follows the engine's "X ends its turn", and "Segment N: no one acts"; a segment in which
/// someone acts keeps its line.
#[test]
fn the_lines_left_out_of_the_log_are_told_by_another() {
    use crate::rules::rulesets::{Member, Ruleset};
    let level = load("segments_crypt.ron");
    let (_, _, events) = crate::rules::battle::tests::random_play(&level, 5, 400);
    let (mut done, mut busy) = (0, 0);
    for (i, e) in events.iter().enumerate() {
        match Segments::event_of(e) {
            Some(
                ev @ Ev::TurnDone {
                    unit, held: false, ..
                },
            ) => {
                done += 1;
                assert!(Segments::bookkeeping(ev));
                assert!(
                    i > 0 && events[i - 1] == Event::TurnEnded { unit: *unit },
                    "{e:?} after {:?}",
                    events.get(i.wrapping_sub(1))
                );
            }
            Some(ev @ Ev::Segment { queue, .. }) => {
                assert_eq!(Segments::bookkeeping(ev), queue.is_empty());
                busy += usize::from(!queue.is_empty());
            }
            _ => {}
        }
    }
    assert!(
        done > 0 && busy > 0,
        "{done} turns done, {busy} busy segments"
    );
}

/// A melee declaration says when no foe stands within a move (and a strike) now: it may
/// still be made, since foes move before the unit's segment, but it does not look like any
/// other then.
#[test]
fn a_declaration_says_when_no_foe_is_near_enough_now() {
    let at = |x: i32| {
        Field::new(RulesetId::Segments)
            .map(&["...................."; 3])
            .units(&format!(
                r#"(name: "Garrick", side: "Heroes", cell: (0, 1), template: "fighter"),
                   (name: "Orc", side: "Foes", cell: ({x}, 1), template: "fighter"),"#
            ))
            .options(r#"alerted: ["Heroes", "Foes"]"#)
            .level()
    };
    let melee = |x: i32| {
        let (b, _) = BattleState::start(&at(x), 1);
        let cmd = Command::Declare {
            unit: U0,
            intent: Intent::Melee,
        };
        rulesets::describe(&b, &cmd).cost
    };
    let walk = 6;
    assert!(!melee(walk + 1).contains("no foe"), "{}", melee(walk + 1));
    assert!(
        melee(walk + 2).contains("no foe is within a move now"),
        "{}",
        melee(walk + 2)
    );
}
