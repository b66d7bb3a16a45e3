//! `fray balance`: is a level a fair fight when both sides play alike? The same AI plays
//! every side, and each side's share of the wins is judged against 40–60%.
//!
//! The games are played by [`simulate`]'s runner; this module only counts
//! them by side and gives the verdict ([`verdict`], pure, so the level editor can call it).

use super::simulate::{self, Batch};
use crate::ai::Kind;
use crate::ai::sim::{self, Caps};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A side is fairly placed when its 95% interval reaches into this band of win rates.
pub const FAIR: (f64, f64) = (0.40, 0.60);

/// The options of `fray balance`.
#[derive(Clone, Debug)]
pub struct Options {
    pub level: PathBuf,
    pub games: usize,
    pub seed: u64,
    /// The AI that plays every side.
    pub ai: Kind,
    pub jobs: usize,
    pub json: bool,
    pub rounds: u32,
    pub time_limit: Option<Duration>,
}

/// One side's record: it plays in every game.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SideRecord {
    pub side: String,
    pub wins: usize,
    pub win_rate: f64,
    /// Wilson 95% interval of `win_rate`.
    pub win_rate_95: (f64, f64),
    /// The interval reaches into 40–60%.
    pub fair: bool,
}

/// What the counts say about the level.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind", content = "side")]
pub enum Verdict {
    /// Every side's interval reaches into 40–60%.
    Fair,
    /// Not fair, and this side wins most.
    Favours(String),
    /// Not fair, and no side wins most: sides tie for the most wins (draws take the rest).
    Even,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Fair => write!(
                f,
                "fair (every side's 95% interval reaches into {:.0}-{:.0}%)",
                100.0 * FAIR.0,
                100.0 * FAIR.1
            ),
            Verdict::Favours(side) => write!(f, "favours {side}"),
            Verdict::Even => write!(
                f,
                "not fair: no side wins most, and some side's interval misses {:.0}-{:.0}%",
                100.0 * FAIR.0,
                100.0 * FAIR.1
            ),
        }
    }
}

/// Each side's record and the verdict, from each side's wins over `games` games.
pub fn verdict(sides: &[(String, usize)], games: usize) -> (Vec<SideRecord>, Verdict) {
    let records: Vec<SideRecord> = sides
        .iter()
        .map(|(name, wins)| {
            let win_rate_95 = sim::wilson(*wins, games);
            SideRecord {
                side: name.clone(),
                wins: *wins,
                win_rate: *wins as f64 / games.max(1) as f64,
                win_rate_95,
                fair: win_rate_95.0 <= FAIR.1 && win_rate_95.1 >= FAIR.0,
            }
        })
        .collect();
    if records.iter().all(|r| r.fair) {
        return (records, Verdict::Fair);
    }
    let most = records.iter().map(|r| r.wins).max().unwrap_or(0);
    let top: Vec<&SideRecord> = records.iter().filter(|r| r.wins == most).collect();
    let v = match top.as_slice() {
        [one] => Verdict::Favours(one.side.clone()),
        _ => Verdict::Even,
    };
    (records, v)
}

#[derive(Serialize)]
struct Summary {
    level: String,
    ruleset: String,
    ai: String,
    games: usize,
    seed: u64,
    sides: Vec<SideRecord>,
    draws: usize,
    /// Draws that were battles stopped at the round cap.
    capped: usize,
    mean_rounds: f64,
    /// Decisions whose search the wall-clock safety net cut short (0: every game is the one
    /// its seed plays on any machine).
    cut: usize,
    verdict: Verdict,
    failures: Vec<String>,
}

pub fn run(o: &Options) -> ExitCode {
    let Some(lvl) = simulate::load(&o.level) else {
        return ExitCode::FAILURE;
    };
    let names: Vec<String> = lvl.file.sides.iter().map(|s| s.name.clone()).collect();
    let batch = Batch {
        level: &lvl,
        games: o.games,
        seed: o.seed,
        jobs: o.jobs,
        caps: Caps {
            rounds: o.rounds,
            time_limit: o.time_limit,
            ..Caps::default()
        },
        quiet: o.json,
    };
    // The same AI on every side; each game still gives each side an AI seeded by the game
    // and the side, so swapping which seed plays which side is what the games vary.
    let results = simulate::play_batch(&batch, |_| vec![o.ai; names.len()]);
    let mut wins = vec![0usize; names.len()];
    let (mut draws, mut capped, mut rounds, mut played, mut cut) = (0, 0, 0u64, 0, 0);
    let mut failures = Vec::new();
    for (g, r) in &results {
        let seed = simulate::game_seed(o.seed, *g);
        failures.extend(simulate::failure(&o.level, *g, seed, r, |seed| {
            format!(
                "fray balance {} --games 1 --seed {seed} --ai {}",
                o.level.display(),
                o.ai.name()
            )
        }));
        let Ok(game) = r else { continue };
        played += 1;
        match game.winner.and_then(|w| wins.get_mut(w.index())) {
            Some(w) => *w += 1,
            None => draws += 1,
        }
        if game.capped {
            capped += 1;
        }
        rounds += u64::from(game.rounds);
        cut += game.cuts.iter().sum::<usize>();
    }
    let counts: Vec<(String, usize)> = names.into_iter().zip(wins).collect();
    let (sides, verdict) = verdict(&counts, played);
    let summary = Summary {
        level: o.level.display().to_string(),
        ruleset: lvl.file.ruleset.to_string(),
        ai: o.ai.name().into(),
        games: played,
        seed: o.seed,
        sides,
        draws,
        capped,
        mean_rounds: rounds as f64 / played.max(1) as f64,
        cut,
        verdict,
        failures,
    };
    simulate::report(o.json, &summary, &summary.failures, print_text)
}

fn print_text(s: &Summary) {
    println!(
        "{} ({}), {} games of {} against itself, seeds {}-{}",
        s.level,
        s.ruleset,
        s.games,
        s.ai,
        s.seed,
        simulate::game_seed(s.seed, s.games.saturating_sub(1))
    );
    let width = s.sides.iter().map(|r| r.side.chars().count()).max();
    let width = width.unwrap_or(0);
    for r in &s.sides {
        println!(
            "  {:<width$}  wins {:>5}  {:5.1}%  (95% CI {:.1}-{:.1}%){}",
            r.side,
            r.wins,
            100.0 * r.win_rate,
            100.0 * r.win_rate_95.0,
            100.0 * r.win_rate_95.1,
            if r.fair { "" } else { "  outside 40-60%" },
        );
    }
    println!(
        "  draws {} (of which {} stopped at the round cap)",
        s.draws, s.capped
    );
    println!("  mean rounds {:.1}", s.mean_rounds);
    if s.cut > 0 {
        println!(
            "  {} decisions cut by the time limit: those games may differ on another machine",
            s.cut
        );
    }
    println!("  verdict: {}", s.verdict);
    for f in &s.failures {
        println!("  FAILURE: {f}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(wins: &[usize]) -> Vec<(String, usize)> {
        wins.iter()
            .enumerate()
            .map(|(i, &w)| (format!("S{i}"), w))
            .collect()
    }

    #[test]
    fn an_even_split_is_fair() {
        let (r, v) = verdict(&counts(&[50, 50]), 100);
        assert_eq!(v, Verdict::Fair);
        assert!(r.iter().all(|r| r.fair));
        assert_eq!(r[0].win_rate, 0.5);
    }

    #[test]
    fn a_small_sample_is_fair_until_it_is_not() {
        // 33 of 100: the interval (24.6-42.7%) still reaches 40%.
        let (r, v) = verdict(&counts(&[33, 67]), 100);
        assert!(r[0].win_rate_95.1 > 0.40, "{:?}", r[0]);
        assert_eq!(v, Verdict::Fair);
        // 132 of 400, the same rate: the interval (28.6-37.7%) misses it.
        let (r, v) = verdict(&counts(&[132, 268]), 400);
        assert!(!r[0].fair && !r[1].fair, "{r:?}");
        assert_eq!(v, Verdict::Favours("S1".into()));
    }

    #[test]
    fn the_side_that_wins_most_is_favoured() {
        let (_, v) = verdict(&counts(&[98, 2]), 100);
        assert_eq!(v, Verdict::Favours("S0".into()));
        let (_, v) = verdict(&counts(&[0, 100]), 100);
        assert_eq!(v, Verdict::Favours("S1".into()));
    }

    #[test]
    fn many_draws_leave_both_sides_short() {
        // 25% each, half drawn: neither side's interval reaches 40%, nor is either favoured.
        let (r, v) = verdict(&counts(&[100, 100]), 400);
        assert!(r.iter().all(|r| !r.fair), "{r:?}");
        assert_eq!(v, Verdict::Even);
        // One side short because of draws, the other fair: the other is favoured.
        let (r, v) = verdict(&counts(&[100, 200]), 400);
        assert!(!r[0].fair && r[1].fair, "{r:?}");
        assert_eq!(v, Verdict::Favours("S1".into()));
    }
}
