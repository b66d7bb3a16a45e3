//! Engine tests that hold for every ruleset: random legal play reaches an end, every listed
//! command is accepted, rejected commands change nothing, replays are identical.

use super::*;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::rules::level;
pub(crate) use crate::rules::testkit::load;

/// Plays uniformly random legal commands; returns the commands and every event.
pub(crate) fn random_play(
    level: &Level,
    seed: u64,
    max_commands: usize,
) -> (BattleState, Vec<Command>, Vec<Event>) {
    let (mut b, mut events) = BattleState::start(level, seed);
    let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut commands = Vec::new();
    for _ in 0..max_commands {
        if b.outcome.is_some() {
            break;
        }
        let legal = b.legal_commands();
        assert!(
            !legal.is_empty(),
            "no legal command while waiting for {:?}",
            b.pending()
        );
        let cmd = legal[pick.random_range(0..legal.len())].clone();
        match b.execute(&cmd) {
            Ok(ev) => events.extend(ev),
            Err(r) => panic!("listed command {cmd:?} was rejected: {r}"),
        }
        commands.push(cmd);
    }
    (b, commands, events)
}

fn replay(level: &Level, seed: u64, commands: &[Command]) -> Vec<Event> {
    let (mut b, mut events) = BattleState::start(level, seed);
    for c in commands {
        match b.execute(c) {
            Ok(ev) => events.extend(ev),
            Err(r) => panic!("replayed command {c:?} was rejected: {r}"),
        }
    }
    events
}

pub(crate) fn playouts_end_and_replay(file: &str) {
    let level = load(file);
    for seed in 1..=4 {
        let (b, commands, events) = random_play(&level, seed, 20_000);
        assert!(
            b.outcome.is_some(),
            "{file} seed {seed}: no end after {} commands (round {})",
            commands.len(),
            b.round
        );
        assert_eq!(
            replay(&level, seed, &commands),
            events,
            "{file} seed {seed}"
        );
        // Serialization round-trips mid-stream state exactly.
        let text = ron::to_string(&b).expect("serialize");
        let back: BattleState = ron::from_str(&text).expect("deserialize");
        assert_eq!(ron::to_string(&back).expect("serialize"), text);
    }
}

#[test]
fn rejected_commands_change_nothing() {
    let level = load("action_points_ruins.ron");
    let (mut b, _) = BattleState::start(&level, 7);
    let before = ron::to_string(&b).expect("serialize");
    let Decision::Act { unit } = b.pending() else {
        panic!("expected a unit to act, got {:?}", b.pending());
    };
    let other = b.unit_ids().find(|&u| u != unit).expect("a second unit");
    let bad = [
        Command::EndTurn { unit: other },
        Command::Move {
            unit,
            to: Cell::new(-1, -1),
        },
        Command::Attack {
            unit,
            target: unit,
            ranged: false,
        },
        Command::Act {
            unit,
            action: Action::Sprint {
                to: Cell::new(0, 0),
            },
        },
        Command::React {
            unit,
            reaction: Reaction::Dodge,
        },
        Command::Pick { unit: UnitId(999) },
    ];
    for cmd in bad {
        let r = b.execute(&cmd);
        assert!(r.is_err(), "{cmd:?} was accepted");
        assert_eq!(ron::to_string(&b).expect("serialize"), before, "{cmd:?}");
    }
}

/// The combat log words every reaction in plain English: the unit's name and a verb, never
/// Rust's debug syntax.
#[test]
fn reactions_read_as_english_in_the_log() {
    let (b, _) = BattleState::start(&load("alternating_bridge.ron"), 1);
    let u = b.unit_ids().next().expect("a unit");
    let who = b.units[u.index()].name.clone();
    let reactions = [
        Reaction::Decline,
        Reaction::Attack { target: u },
        Reaction::Dodge,
        Reaction::Parry,
        Reaction::Block,
        Reaction::Fortify,
        Reaction::TotalDefense,
        Reaction::Abort {
            action: Action::Dodge,
        },
        Reaction::Intercept,
        Reaction::TakeHeld,
        Reaction::Resist,
    ];
    let n = reactions.len();
    let mut lines = Vec::new();
    for r in reactions {
        let line = log::describe(
            &b,
            &Event::Reacted {
                unit: u,
                reaction: r,
            },
        );
        assert!(line.starts_with(&*who), "{line}");
        assert!(!line.contains(['{', '}', ':']), "{line}");
        lines.push(line);
    }
    lines.sort();
    lines.dedup();
    assert_eq!(lines.len(), n, "two reactions read the same");
}

#[test]
fn side_names_get_a_verb_that_agrees() {
    use super::log::agree;
    assert_eq!(agree("Monsters", "wins", "win"), "win");
    assert_eq!(agree("Canyon Wardens", "picks", "pick"), "pick");
    assert_eq!(agree("Party", "wins", "win"), "wins");
    assert_eq!(agree("Garrison", "is", "are"), "is");
    assert_eq!(agree("Moss", "is", "are"), "is");
    // The crypt played to its end: the winning side's line agrees with its name.
    let level = load("segments_crypt.ron");
    let (b, _, events) = random_play(&level, 2, 20_000);
    let end = events
        .iter()
        .find(|e| matches!(e, Event::Ended { .. }))
        .expect("the battle ends");
    let line = super::log::describe(&b, end);
    assert!(
        line.contains("Monsters win (Monsters are")
            || line.contains("Adventurers win (Adventurers are")
            || line.contains("a draw"),
        "{line}"
    );
}

/// Every event of random battles on every shipped level reads as words: units by their names,
/// never as data (`UnitId(3)`), whichever ruleset wrote the line.
#[test]
fn every_log_line_names_units_by_name() {
    for path in crate::shipped_levels() {
        let level = match level::load_path(&path) {
            Ok(l) => l,
            Err(d) => panic!("{d:?}"),
        };
        for seed in 1..=3 {
            let (state, _, events) = random_play(&level, seed, 600);
            for e in &events {
                let line = log::describe(&state, e);
                assert!(
                    !line.contains("UnitId") && !line.contains("Some(") && !line.is_empty(),
                    "{}: {e:?} reads {line:?}",
                    path.display()
                );
            }
        }
    }
}

/// Pools that damage takes from, in any ruleset.
const HURT_POOLS: [&str; 6] = ["hp", "body", "stun", "endurance", "health", "shield"];

/// Every loss of a damage pool in the log is explained by a number shown before it, since the
/// attack roll: a damage roll (a plain roll needs no more), the sum of a [`Event::Reckoned`]
/// for that unit (whose terms add up to it), or a ruleset line (Shock, the Shock floor).
/// A pool that stops at 0 says "all it had left"; a hit spread over consecutive pools
/// (endurance then health, a shield then its bearer) adds up to the figure. Played on every
/// shipped level with random legal commands.
#[test]
fn every_damage_in_the_log_adds_up_from_terms_it_names() {
    let mut checked = 0;
    for entry in crate::rules::testkit::shipped_levels() {
        let level = load(&entry);
        for seed in 1..=6 {
            let (b, _, events) = random_play(&level, seed, 3_000);
            let mut figures: Vec<i64> = Vec::new();
            let mut run: Option<(UnitId, i64)> = None;
            for e in &events {
                let line = log::describe(&b, e);
                match e {
                    Event::Rolled {
                        purpose: Purpose::Attack,
                        ..
                    } => figures.clear(),
                    Event::Rolled {
                        purpose: Purpose::Damage | Purpose::Spell,
                        total,
                        ..
                    } => figures.push(*total),
                    Event::Reckoned { terms, total, .. } => {
                        assert_eq!(terms.iter().map(|t| t.value).sum::<i64>(), *total, "{line}");
                        assert!(terms.len() > 1, "a lone term needs no line: {line}");
                        figures.push(*total);
                    }
                    Event::Rules(_) => figures.extend(numbers(&line)),
                    _ => {}
                }
                let Event::Pool {
                    unit,
                    pool,
                    delta,
                    value,
                } = e
                else {
                    if !matches!(e, Event::Condition { .. } | Event::Status { .. }) {
                        run = None;
                    }
                    continue;
                };
                if *delta >= 0 || !HURT_POOLS.contains(&pool.as_str()) {
                    continue;
                }
                let sum = match run {
                    Some((u, s)) if u == *unit => s - delta,
                    _ => -delta,
                };
                run = Some((*unit, sum));
                let explained = (*value == 0 && line.contains("all it had left"))
                    || figures.contains(&-delta)
                    || figures.contains(&sum);
                assert!(
                    explained,
                    "{entry} seed {seed}: `{line}` is not explained by {figures:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} damage lines were checked");
}

/// The integers in a line of text.
fn numbers(line: &str) -> Vec<i64> {
    line.split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}
