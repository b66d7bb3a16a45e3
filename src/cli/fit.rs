//! `fray fit-weights` (hidden, tuning runs only): plays the AI against itself on the given
//! levels and fits the position score's weights to the games' results ([`crate::ai::fit`]).
//! Every fifth game is held out: the fitted weights are judged on positions they were not
//! fitted to.

use super::simulate::{Batch, load, play_batch};
use crate::ai::fit::{self, Sample};
use crate::ai::sim::Caps;
use crate::ai::{Kind, Weights};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The options of `fray fit-weights`.
#[derive(Clone, Debug)]
pub struct Options {
    pub levels: Vec<PathBuf>,
    pub games: usize,
    pub seed: u64,
    pub ai: Kind,
    pub jobs: usize,
    /// Every how many unit actions a position is sampled.
    pub every: usize,
    /// Linear fits, each around the last one's answer.
    pub rounds: usize,
    /// Pull of the log-weights towards the start.
    pub l2: f64,
    pub start: Option<Weights>,
    pub time_limit: Option<Duration>,
    pub out: PathBuf,
}

pub fn run(o: &Options) -> ExitCode {
    let caps = Caps {
        time_limit: o.time_limit,
        ..Caps::default()
    };
    let (mut train, mut held): (Vec<Sample>, Vec<Sample>) = (Vec::new(), Vec::new());
    for path in &o.levels {
        let Some(level) = load(path) else {
            return ExitCode::FAILURE;
        };
        let sides = level.file.sides.len();
        let batch = Batch {
            level: &level,
            games: o.games,
            seed: o.seed,
            jobs: o.jobs,
            caps,
            quiet: true,
        };
        let results = play_batch(&batch, |_| vec![(o.ai, o.start); sides]);
        let (mut wins, mut n) = (vec![0usize; sides], 0usize);
        for (g, r) in &results {
            let Ok(game) = r else {
                eprintln!("{}: game {g} failed: {r:?}", path.display());
                continue;
            };
            n += 1;
            if let Some(w) = game.winner {
                wins[w.index()] += 1;
            }
            let s = fit::samples(&level, game.seed, &game.commands, game.winner, o.every);
            if g % 5 == 4 {
                held.extend(s);
            } else {
                train.extend(s);
            }
        }
        eprintln!(
            "{}: {n} games, wins by side {wins:?}; {} samples so far",
            path.display(),
            train.len() + held.len()
        );
    }
    if train.is_empty() {
        eprintln!("no positions to fit");
        return ExitCode::FAILURE;
    }
    let start = o.start.unwrap_or(Weights::DEFAULT);
    let f = fit::fit(&train, start, o.rounds, o.l2, o.jobs);
    let before = fit::scores(&held, &start, o.jobs);
    let after = fit::scores(&held, &f.weights, o.jobs);
    // The held-out games judged with each set's own best scale, so a set is not judged by the
    // other's k.
    let k_after = fit::best_k(&after, &held);
    println!(
        "k {:.5}; training log loss {:.4} -> {:.4} ({} samples); held out {:.4} -> {:.4} (k {:.5}; {} samples)",
        f.k,
        f.loss_before,
        f.loss_after,
        train.len(),
        fit::log_loss(&before, &held, f.k),
        fit::log_loss(&after, &held, k_after),
        k_after,
        held.len(),
    );
    for name in fit::FITTED {
        let mut a = start;
        let mut b = f.weights;
        println!(
            "{name:>18} {:>10.4} -> {:>10.4}",
            fit::value(&mut a, name),
            fit::value(&mut b, name)
        );
    }
    let text = match ron::ser::to_string_pretty(&f.weights, ron::ser::PrettyConfig::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = crate::rules::replay::write_atomic(&o.out, &text) {
        eprintln!("{}: {e}", o.out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::Difficulty;

    /// A short run writes weights `--ai-weights` reads back, each moved within its span.
    #[test]
    fn a_fit_writes_weights_the_simulator_reads() {
        let dir = std::env::temp_dir().join(format!("fray-fit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let out = dir.join("fitted.ron");
        let o = Options {
            levels: vec![crate::rules::level::levels_dir().join("action_points_ruins.ron")],
            games: 5,
            seed: 1,
            ai: Kind::Utility(Difficulty::Easy),
            jobs: 2,
            every: 3,
            rounds: 1,
            l2: 0.0,
            start: None,
            time_limit: Some(Duration::from_secs(60)),
            out: out.clone(),
        };
        assert_eq!(run(&o), ExitCode::SUCCESS);
        let w = super::super::read_weights(Some(&out))
            .unwrap_or_else(|e| panic!("{e}"))
            .expect("weights");
        for name in fit::FITTED {
            let (mut a, mut b) = (Weights::DEFAULT, w);
            let (a, b) = (fit::value(&mut a, name), fit::value(&mut b, name));
            assert!(
                b >= a / fit::SPAN * 0.999 && b <= a * fit::SPAN * 1.001,
                "{name}: {a} -> {b}"
            );
        }
        assert_eq!(w.odds, Weights::DEFAULT.odds);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
