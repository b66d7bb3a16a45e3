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

/// A pool's line names the action points' unit as players write it, "AP", and shows hit
/// points below 0 as 0, saying by how much the blow went past what was left, so the numbers
/// still add up (issue 22: "Thorn ap 2 (-1)", "Garrick hp -7 (-9)"). Other pools keep their
/// numbers, and the rules keep the true hp.
#[test]
fn pool_lines_say_ap_and_show_no_negative_hit_points() {
    let level = load("action_points_ruins.ron");
    let (b, _) = BattleState::start(&level, 1);
    let u = UnitId(0);
    let name = b.unit_name(u).into_owned();
    let line = |pool: &str, delta: i64, value: i64| {
        let e = Event::Pool {
            unit: u,
            pool: pool.to_string(),
            delta,
            value,
        };
        log::describe(&b, &e).replacen(&name, "X", 1)
    };
    assert_eq!(line("ap", -1, 2), "X AP 2 (-1)");
    assert_eq!(line("ap", -1, 0), "X AP 0 (-1, all it had left)");
    assert_eq!(line("hp", -9, -7), "X hp 0 (-9, 7 more than it had left)");
    assert_eq!(line("hp", -3, -5), "X hp 0 (-3, 3 more than it had left)");
    assert_eq!(line("hp", 2, -1), "X hp 0 (+2, still down)");
    assert_eq!(line("hp", -2, 0), "X hp 0 (-2, all it had left)");
    assert_eq!(line("hp", -2, 3), "X hp 3 (-2)");
    // Hero's BODY and STUN below 0 are rules in their own right: shown as they are.
    assert_eq!(line("stun", -6, -2), "X stun -2 (-6)");
}

/// Why a player-facing line (a log line, a prompt, a turn-order label) reads badly, if it does
/// (issue 22): it starts in lower case, has a "(s)" plural, writes the AP unit in lower case,
/// names a side "the" itself ("Party is the Party"), shows negative hit points, or says a unit
/// "used 0" of something.
pub(crate) fn badly_worded(line: &str) -> Option<&'static str> {
    let first = line.chars().find(|c| c.is_alphanumeric());
    if first.is_some_and(|c| !(c.is_uppercase() || c.is_ascii_digit())) {
        return Some("starts in lower case");
    }
    if line.contains("(s)") {
        return Some("a \"(s)\" plural");
    }
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| *w == "ap" || *w == "Ap") {
        return Some("the AP unit in lower case");
    }
    for pair in words.windows(2) {
        if pair[0].eq_ignore_ascii_case("hp")
            && pair[1].starts_with('-')
            && pair[1][1..].starts_with(|c: char| c.is_ascii_digit())
        {
            return Some("negative hit points");
        }
    }
    for (i, w) in words.iter().enumerate() {
        if *w == "is"
            && words.get(i + 1) == Some(&"the")
            && i > 0
            && words
                .get(i + 2)
                .is_some_and(|after| after.eq_ignore_ascii_case(words[i - 1]))
        {
            return Some("an \"X is the X\" tautology");
        }
    }
    if line.contains("used 0") {
        return Some("\"used 0\"");
    }
    None
}

/// A few battles of AI against AI on every shipped level: every line the player reads (each
/// log line but the ruleset's bookkeeping, each prompt, each turn-order label and headline)
/// passes [`badly_worded`]. Greedy players on both sides, and one `easy` battle a level so
/// spells, charges and reactions come up too.
#[test]
fn ai_battles_on_every_level_read_as_plain_english() {
    use crate::ai::{Ai, Config, Difficulty, Kind};
    use crate::rules::rulesets;
    let mut bad: Vec<String> = Vec::new();
    let (mut lines, mut bolts) = (0, 0);
    for name in crate::rules::testkit::shipped_levels() {
        let level = load(&name);
        for (seed, kind) in [
            (1, Kind::Greedy),
            (2, Kind::Greedy),
            (3, Kind::Utility(Difficulty::Easy)),
        ] {
            let config = Config {
                time_limit: std::time::Duration::from_secs(3600),
                ..Config::new(kind, seed)
            };
            let mut ai = Ai::new(config);
            let (mut b, mut events) = BattleState::start(&level, seed);
            let mut check = |b: &BattleState, events: &[Event], bad: &mut Vec<String>| {
                // The lines as the game's log shows them: bookkeeping left out, a turn's note
                // ("(its initiative segment)") on the end of the turn's line.
                let mut texts: Vec<String> = Vec::new();
                for e in events {
                    let line = log::describe(b, e);
                    match (e, texts.last_mut()) {
                        (Event::Rules(r), _) if rulesets::bookkeeping(r) => {}
                        (Event::Rules(r), Some(last))
                            if rulesets::joins_previous_line(b, r, last) =>
                        {
                            last.push_str(&format!(" {line}"));
                        }
                        _ => texts.push(line),
                    }
                }
                texts.push(log::decision(b, &b.pending()));
                let clock = rulesets::clock(b);
                texts.push(clock.headline);
                texts.extend(clock.order.into_iter().map(|o| o.label));
                for t in texts.iter().filter(|t| !t.is_empty()) {
                    lines += 1;
                    bolts += usize::from(t.contains("'s bolt "));
                    if let Some(why) = badly_worded(t) {
                        bad.push(format!("{name} seed {seed}: {why}: {t:?}"));
                    }
                }
            };
            check(&b, &events, &mut bad);
            for _ in 0..400 {
                let Some(cmd) = ai.decide(&b) else { break };
                events = b
                    .execute(&cmd)
                    .unwrap_or_else(|r| panic!("{name}: {cmd:?}: {r}"));
                check(&b, &events, &mut bad);
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(lines > 1000, "only {lines} lines were read");
    assert!(bolts > 0, "no bolt was cast: the spell lines went unread");
    assert!(
        bad.is_empty(),
        "{} badly worded:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
