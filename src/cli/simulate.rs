//! `fray simulate`: AI against AI, headless, with win rates and timings.

use crate::ai::sim::{self, Caps, Game};
use crate::ai::{Kind, Weights};
use crate::rules::battle::SideId;
use crate::rules::level;
use crate::rules::replay::{self, LevelSource, Replay};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The options of `fray simulate`.
#[derive(Clone, Debug)]
pub struct Options {
    pub level: PathBuf,
    pub games: usize,
    pub seed: u64,
    pub ai: Kind,
    pub vs: Kind,
    pub jobs: usize,
    pub json: bool,
    pub rounds: u32,
    /// The AIs' wall-clock safety net per decision (`None`: the AI's default).
    pub time_limit: Option<Duration>,
    /// Position-score weights for the `--ai` and the `--vs` player in place of their
    /// difficulty's (tuning runs only; `None`: the difficulty's).
    pub ai_weights: Option<Weights>,
    pub vs_weights: Option<Weights>,
}

#[derive(Serialize)]
struct Timing {
    decisions: usize,
    /// Decisions whose search the wall-clock safety net cut short.
    cut: usize,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

/// How the `--ai` player did on one side of the level (a lopsided level shows here).
#[derive(Serialize)]
struct SideRecord {
    side: String,
    games: usize,
    ai_wins: usize,
}

#[derive(Serialize)]
struct Summary {
    level: String,
    ruleset: String,
    games: usize,
    ai: String,
    vs: String,
    ai_wins: usize,
    vs_wins: usize,
    draws: usize,
    capped: usize,
    ai_win_rate: f64,
    ai_win_rate_95: (f64, f64),
    /// The `--ai` player's games and wins on each side.
    per_side: Vec<SideRecord>,
    mean_rounds: f64,
    ai_timing: Timing,
    vs_timing: Timing,
    battles_per_second: f64,
    engine_share: f64,
    failures: Vec<String>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn timing(mut d: Vec<Duration>, cut: usize) -> Timing {
    d.sort();
    Timing {
        decisions: d.len(),
        cut,
        p50_ms: ms(sim::quantile(&d, 0.5)),
        p99_ms: ms(sim::quantile(&d, 0.99)),
        max_ms: ms(d.last().copied().unwrap_or_default()),
    }
}

/// Which side the `--ai` player takes in game `g`: sides swap every game.
fn ai_side(g: usize, sides: usize) -> usize {
    g % sides.max(1)
}

/// Loads a level for a command that plays it, printing its errors on failure.
pub(crate) fn load(path: &Path) -> Option<level::Level> {
    match level::load_path(path) {
        Ok(l) => Some(l),
        Err(diags) => {
            for d in diags {
                eprintln!("{d}");
            }
            None
        }
    }
}

/// What to play: shared by `fray simulate` and `fray balance`.
pub(crate) struct Batch<'a> {
    pub level: &'a level::Level,
    pub games: usize,
    /// Game `g` uses seed `seed + g`.
    pub seed: u64,
    pub jobs: usize,
    pub caps: Caps,
    /// No progress bar (JSON output, or not a terminal).
    pub quiet: bool,
}

/// Game `g`'s seed.
pub(crate) fn game_seed(first: u64, g: usize) -> u64 {
    crate::balance::game_seed(first, g)
}

/// Plays `b.games` games on `b.jobs` threads, `players(g)` giving each side's player in game
/// `g` (and the weights it judges with, `None`: its difficulty's). Returns every game in order
/// of `g`; a game that panicked is its panic message.
pub(crate) fn play_batch(
    b: &Batch,
    players: impl Fn(usize) -> Vec<(Kind, Option<Weights>)> + Sync,
) -> Vec<(usize, Result<Game, String>)> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<Game, String>)>> = Mutex::new(Vec::new());
    let bar = if b.quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new(b.games as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games  {elapsed_precise} (eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    };
    std::thread::scope(|scope| {
        for _ in 0..b.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= b.games {
                        break;
                    }
                    let seed = game_seed(b.seed, g);
                    let (kinds, weights): (Vec<Kind>, Vec<Option<Weights>>) =
                        players(g).into_iter().unzip();
                    let r = std::panic::catch_unwind(|| {
                        sim::play_weighted(b.level, seed, &kinds, &weights, b.caps)
                    })
                    .map_err(|p| {
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "panic".into())
                    });
                    if let Ok(mut v) = results.lock() {
                        v.push((g, r));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(g, _)| *g);
    results
}

/// What went wrong in game `g`, if anything: a panic (with the command that reruns it,
/// `rerun`, given the game's seed) or an illegal command (saved as a replay).
pub(crate) fn failure(
    level: &Path,
    g: usize,
    seed: u64,
    r: &Result<Game, String>,
    rerun: impl Fn(u64) -> String,
) -> Option<String> {
    match r {
        Err(msg) => Some(format!(
            "game {g} (seed {seed}) panicked: {msg}; rerun it with `{}`",
            rerun(seed)
        )),
        Ok(game) => game.illegal.as_ref().map(|why| {
            let path = save_failure(level, game);
            format!(
                "game {g} (seed {seed}): an AI sent an illegal command: {why}; replay: {}",
                path.display()
            )
        }),
    }
}

pub fn run(o: &Options) -> ExitCode {
    let Some(lvl) = load(&o.level) else {
        return ExitCode::FAILURE;
    };
    let sides = lvl.file.sides.len();
    let caps = Caps {
        rounds: o.rounds,
        time_limit: o.time_limit,
        ..Caps::default()
    };
    let started = Instant::now();
    let batch = Batch {
        level: &lvl,
        games: o.games,
        seed: o.seed,
        jobs: o.jobs,
        caps,
        quiet: o.json,
    };
    let results = play_batch(&batch, |g| {
        let mut players = vec![(o.vs, o.vs_weights); sides];
        players[ai_side(g, sides)] = (o.ai, o.ai_weights);
        players
    });
    let wall = started.elapsed();

    let (mut ai_wins, mut vs_wins, mut draws, mut capped, mut rounds) = (0, 0, 0, 0, 0u64);
    let (mut ai_t, mut vs_t) = (Vec::new(), Vec::new());
    let (mut ai_cut, mut vs_cut) = (0, 0);
    let (mut engine, mut thinking) = (Duration::ZERO, Duration::ZERO);
    let mut failures = Vec::new();
    let mut per_side: Vec<SideRecord> = lvl
        .file
        .sides
        .iter()
        .map(|x| SideRecord {
            side: x.name.clone(),
            games: 0,
            ai_wins: 0,
        })
        .collect();
    for (g, r) in &results {
        let seed = game_seed(o.seed, *g);
        let me = SideId(ai_side(*g, sides) as u8);
        let first = ai_side(*g, sides) == 0;
        failures.extend(failure(&o.level, *g, seed, r, |seed| {
            format!(
                "fray simulate {} --games 1 --seed {seed} --ai {} --vs {}",
                o.level.display(),
                if first { o.ai.name() } else { o.vs.name() },
                if first { o.vs.name() } else { o.ai.name() },
            )
        }));
        if let Ok(game) = r {
            let record = per_side.get_mut(me.index());
            match game.winner {
                Some(w) if w == me => {
                    ai_wins += 1;
                    if let Some(r) = record {
                        r.games += 1;
                        r.ai_wins += 1;
                    }
                }
                Some(_) => {
                    vs_wins += 1;
                    if let Some(r) = record {
                        r.games += 1;
                    }
                }
                None => {
                    draws += 1;
                    if let Some(r) = record {
                        r.games += 1;
                    }
                }
            }
            if game.capped {
                capped += 1;
            }
            rounds += game.rounds as u64;
            for (side, &n) in game.cuts.iter().enumerate() {
                if side == me.index() {
                    ai_cut += n;
                } else {
                    vs_cut += n;
                }
            }
            engine += game.engine;
            for (side, d) in &game.decisions {
                thinking += *d;
                if *side == me {
                    ai_t.push(*d);
                } else {
                    vs_t.push(*d);
                }
            }
        }
    }
    let n = results.len().max(1);
    let summary = Summary {
        level: o.level.display().to_string(),
        ruleset: lvl.file.ruleset.to_string(),
        games: results.len(),
        ai: o.ai.name().into(),
        vs: o.vs.name().into(),
        ai_wins,
        vs_wins,
        draws,
        capped,
        ai_win_rate: ai_wins as f64 / n as f64,
        ai_win_rate_95: sim::wilson(ai_wins, n),
        per_side,
        mean_rounds: rounds as f64 / n as f64,
        ai_timing: timing(ai_t, ai_cut),
        vs_timing: timing(vs_t, vs_cut),
        battles_per_second: results.len() as f64 / wall.as_secs_f64().max(1e-9),
        engine_share: engine.as_secs_f64() / (engine + thinking).as_secs_f64().max(1e-9),
        failures,
    };
    report(o.json, &summary, &summary.failures, |s| {
        print_text(s, o.jobs)
    })
}

/// Prints a summary (one JSON object with `json`, else `text`) and exits with failure when
/// there are `failures` (panics, illegal commands): `simulate` and `balance` alike.
pub(super) fn report<S: Serialize>(
    json: bool,
    summary: &S,
    failures: &[String],
    text: impl FnOnce(&S),
) -> ExitCode {
    if json {
        match serde_json::to_string_pretty(summary) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("{e}"),
        }
    } else {
        text(summary);
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_text(s: &Summary, jobs: usize) {
    println!(
        "{} ({}), {} games, sides swapped every game",
        s.level, s.ruleset, s.games
    );
    println!(
        "  {:<8} wins {:>5}  {:5.1}%  (95% CI {:.1}-{:.1}%)",
        s.ai,
        s.ai_wins,
        100.0 * s.ai_win_rate,
        100.0 * s.ai_win_rate_95.0,
        100.0 * s.ai_win_rate_95.1
    );
    println!("  {:<8} wins {:>5}", s.vs, s.vs_wins);
    for r in s.per_side.iter().filter(|r| r.games > 0) {
        println!(
            "    {} as {}: {} of {} ({:.1}%)",
            s.ai,
            r.side,
            r.ai_wins,
            r.games,
            100.0 * r.ai_wins as f64 / r.games as f64
        );
    }
    println!(
        "  draws {} (of which {} stopped at the round cap)",
        s.draws, s.capped
    );
    println!("  mean rounds {:.1}", s.mean_rounds);
    for (name, t) in [(&s.ai, &s.ai_timing), (&s.vs, &s.vs_timing)] {
        println!(
            "  {name:<8} decision time p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms  ({} decisions, {} cut by the time limit)",
            t.p50_ms, t.p99_ms, t.max_ms, t.decisions, t.cut
        );
    }
    println!(
        "  {:.1} battles/s with {jobs} job(s); the engine alone takes {:.0}% of the time, the AI {:.0}%",
        s.battles_per_second,
        100.0 * s.engine_share,
        100.0 * (1.0 - s.engine_share)
    );
    for f in &s.failures {
        println!("  FAILURE: {f}");
    }
}

/// Writes a failing game as a replay next to the temp dir and returns its path.
fn save_failure(level: &Path, game: &Game) -> PathBuf {
    let path = std::env::temp_dir().join(format!("fray-failure-{}.ron", game.seed));
    let r = Replay {
        level: LevelSource::File(level.to_path_buf()),
        seed: game.seed,
        tape: Vec::new(),
        commands: game.commands.clone(),
    };
    if let Ok(text) = ron::ser::to_string_pretty(&r, Default::default()) {
        let _ = replay::write_atomic(&path, &text);
    }
    path
}
