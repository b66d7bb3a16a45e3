//! `fray balance`: is a level a fair fight when both sides play alike? The same AI plays
//! every side, and each side's share of the wins is judged against 40–60%.
//!
//! The games are played by [`simulate`]'s runner and counted by [`crate::balance`] (pure,
//! shared with the level editor's balance meter).

use super::simulate::{self, Batch};
use crate::ai::Kind;
use crate::ai::sim::Caps;
use crate::balance::Tally;
pub use crate::balance::{FAIR, SideRecord, Verdict, verdict};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
    let results = simulate::play_batch(&batch, |_| vec![(o.ai, None); names.len()]);
    let mut tally = Tally::new(names.len());
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
        if let Ok(game) = r {
            tally.add(game);
        }
    }
    let (sides, verdict) = tally.verdict(&names);
    let summary = Summary {
        level: o.level.display().to_string(),
        ruleset: lvl.file.ruleset.to_string(),
        ai: o.ai.name().into(),
        games: tally.games,
        seed: o.seed,
        sides,
        draws: tally.draws,
        capped: tally.capped,
        mean_rounds: tally.mean_rounds(),
        cut: tally.cut,
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
