//! The `fray` command line: play, validate levels, run scenarios and replays, take
//! screenshots.
//!
//! Headless subcommands live here and never touch Bevy; the game ones call into
//! `crate::game` and exist only with the `game` feature.

pub mod balance;
pub mod fit;
pub mod simulate;
pub mod validate;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::rules::level::levels_dir;

/// Fray: tabletop-RPG combat on hex and square grids.
#[derive(Debug, Parser)]
#[command(name = "fray", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the game: the title screen, or with LEVEL straight into a battle on it (the
    /// level's own controllers and seed).
    Play {
        /// Level file to play at once.
        level: Option<PathBuf>,
    },
    /// Check level files; prints `file:line:col: error: message`, exits 1 on any error.
    Validate {
        /// Level files, or directories whose `*.ron` files are all checked.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Run scripted scenarios (files or folders of `*.ron`); exits 1 if any fails.
    Scenario {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Play AI against AI headless and report win rates, rounds and decision times.
    Simulate {
        /// The level to play.
        level: PathBuf,
        /// Number of games, at least 1 (sides swap every game).
        #[arg(long, default_value_t = 100, value_parser = parse_games)]
        games: usize,
        /// Seed of the first game; game g uses seed + g.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The AI measured: random, greedy, easy, normal or hard.
        #[arg(long, default_value = "normal", value_parser = parse_kind)]
        ai: crate::ai::Kind,
        /// Its opponent.
        #[arg(long, default_value = "greedy", value_parser = parse_kind)]
        vs: crate::ai::Kind,
        /// Games played in parallel (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Print one JSON object instead of text (no progress bar).
        #[arg(long)]
        json: bool,
        /// A battle still going after this many rounds is stopped as a draw.
        #[arg(long, default_value_t = 60)]
        rounds: u32,
        /// The AIs' wall-clock safety net per decision, in milliseconds (default 200). The
        /// node budget of the difficulty is the real limit; a decision the clock cuts is
        /// counted as `cut`, and it may differ on another machine.
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
        time_limit: Option<u64>,
        /// Tuning runs only (docs/ai.md): a RON file of position-score weights the `--ai`
        /// player judges with instead of its difficulty's.
        #[arg(long, hide = true, value_name = "FILE.ron")]
        ai_weights: Option<PathBuf>,
        /// Tuning runs only: the same for the `--vs` player.
        #[arg(long, hide = true, value_name = "FILE.ron")]
        vs_weights: Option<PathBuf>,
    },
    /// Is a level fair? The AI plays itself on it; prints each side's win rate with its 95%
    /// interval, draws, mean rounds and a verdict (fair when every side's interval reaches
    /// into 40-60%).
    Balance {
        /// The level to measure.
        level: PathBuf,
        /// Number of games, at least 1.
        #[arg(long, default_value_t = 100, value_parser = parse_games)]
        games: usize,
        /// Seed of the first game; game g uses seed + g.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The AI that plays every side: random, greedy, easy, normal or hard.
        #[arg(long, default_value = "normal", value_parser = parse_kind)]
        ai: crate::ai::Kind,
        /// Games played in parallel (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Print one JSON object instead of text (no progress bar).
        #[arg(long)]
        json: bool,
        /// A battle still going after this many rounds is stopped as a draw.
        #[arg(long, default_value_t = 60)]
        rounds: u32,
        /// The AI's wall-clock safety net per decision, in milliseconds (default 200).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
        time_limit: Option<u64>,
    },
    /// Tuning runs only (docs/ai.md): plays the AI against itself on LEVELS and fits the
    /// position score's weights to the games' results; writes them as RON to --out.
    #[command(hide = true)]
    FitWeights {
        #[arg(required = true)]
        levels: Vec<PathBuf>,
        /// Games per level, at least 1 (every fifth held out).
        #[arg(long, default_value_t = 200, value_parser = parse_games)]
        games: usize,
        #[arg(long, default_value_t = 500_000)]
        seed: u64,
        /// The AI that plays every side.
        #[arg(long, default_value = "normal", value_parser = parse_kind)]
        ai: crate::ai::Kind,
        #[arg(long)]
        jobs: Option<usize>,
        /// Sample the position before every Nth unit action.
        #[arg(long, default_value_t = 2)]
        every: usize,
        /// Linear fits, each around the last one's answer.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Pull of the log-weights towards the starting weights.
        #[arg(long, default_value_t = 0.0)]
        l2: f64,
        /// Starting weights (RON; default: the default weights); the games are played with them.
        #[arg(long, value_name = "FILE.ron")]
        start: Option<PathBuf>,
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
        time_limit: Option<u64>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Re-run a replay (level, seed, commands) and print its event log.
    Replay {
        file: PathBuf,
        /// Print the events as RON, one per line, instead of sentences.
        #[arg(long)]
        ron: bool,
    },
    /// Open the level editor on LEVEL; with --script and --out, apply a script of edits to it
    /// and save it instead (only the lines an edit touches change).
    Edit {
        /// The level to edit.
        level: PathBuf,
        /// A RON list of edits: `[Paint(cell: (3, 2), glyph: '#'), MoveUnit(unit: "Ada", to:
        /// (1, 1))]` (see levels/README.md).
        #[arg(long, requires = "out")]
        script: Option<PathBuf>,
        /// Where to save the result (`-`: print it); written atomically.
        #[arg(long, requires = "script")]
        out: Option<PathBuf>,
    },
    /// Render a level in battle view (or the level editor), save a PNG screenshot once the
    /// board is drawn, and exit.
    Shot {
        /// Level file to render.
        level: PathBuf,
        /// Where to write the PNG.
        #[arg(long)]
        out: PathBuf,
        /// An overlay to show: reach, threat or sight (needs --unit).
        #[arg(long, value_parser = ["reach", "threat", "sight"], requires = "unit")]
        overlay: Option<String>,
        /// The unit the overlay is for, by name.
        #[arg(long)]
        unit: Option<String>,
        /// The window's size in logical pixels, WIDTHxHEIGHT (default 1280x800).
        #[arg(long, value_name = "WxH", value_parser = parse_size)]
        size: Option<(u32, u32)>,
        /// Also write, as JSON, the screen rectangle of every HUD panel, button, text, board
        /// label and the tooltip, and the board's room.
        #[arg(long, value_name = "JSON")]
        layout: Option<PathBuf>,
        /// Show the level in the level editor instead of a battle.
        #[arg(long, conflicts_with = "overlay")]
        editor: bool,
        /// Keys to press, one after another, once the screen is drawn, by their key names
        /// (`KeyU`, `Digit2`, `PageDown`), separated by spaces or commas: `--keys "KeyU PageDown"`.
        #[arg(long, value_name = "KEYS")]
        keys: Option<String>,
    },
}

/// What `fray shot` is asked for (see [`Command::Shot`]).
#[derive(Clone, Debug, Default)]
pub struct ShotOptions {
    pub level: PathBuf,
    pub out: PathBuf,
    pub overlay: Option<String>,
    pub unit: Option<String>,
    pub size: Option<(u32, u32)>,
    pub layout: Option<PathBuf>,
    pub editor: bool,
    /// Key names to press once the screen is drawn, in order.
    pub keys: Vec<String>,
}

/// `WIDTHxHEIGHT`, each from 200 to 8000.
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (200..=8000).contains(n))
            .ok_or_else(|| format!("'{v}' is not a size from 200 to 8000"))
    };
    Ok((n(w)?, n(h)?))
}

/// Parses the process arguments and runs the command.
pub fn main() -> ExitCode {
    run(Cli::parse())
}

pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        None => play(None),
        Some(Command::Play { level }) => play(level),
        Some(Command::Validate { paths }) => validate::run(&paths),
        Some(Command::Shot {
            level,
            out,
            overlay,
            unit,
            size,
            layout,
            editor,
            keys,
        }) => shot(ShotOptions {
            level,
            out,
            overlay,
            unit,
            size,
            layout,
            editor,
            keys: keys
                .unwrap_or_default()
                .split([' ', ','])
                .filter(|k| !k.is_empty())
                .map(str::to_string)
                .collect(),
        }),
        Some(Command::Scenario { paths }) => scenario(&paths),
        Some(Command::Replay { file, ron }) => replay(&file, ron),
        Some(Command::Edit {
            level,
            script: Some(script),
            out: Some(out),
        }) => edit(&level, &script, &out),
        Some(Command::Edit { level, .. }) => edit_in_game(level),
        Some(Command::Simulate {
            level,
            games,
            seed,
            ai,
            vs,
            jobs,
            json,
            rounds,
            time_limit,
            ai_weights,
            vs_weights,
        }) => {
            let (ai_weights, vs_weights) = match (
                read_weights(ai_weights.as_deref()),
                read_weights(vs_weights.as_deref()),
            ) {
                (Ok(a), Ok(v)) => (a, v),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            simulate::run(&simulate::Options {
                level,
                games,
                seed,
                ai,
                vs,
                jobs: jobs.unwrap_or_else(default_jobs),
                json,
                rounds,
                time_limit: time_limit.map(std::time::Duration::from_millis),
                ai_weights,
                vs_weights,
            })
        }
        Some(Command::FitWeights {
            levels,
            games,
            seed,
            ai,
            jobs,
            every,
            rounds,
            l2,
            start,
            time_limit,
            out,
        }) => {
            let start = match read_weights(start.as_deref()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            fit::run(&fit::Options {
                levels,
                games,
                seed,
                ai,
                jobs: jobs.unwrap_or_else(default_jobs),
                every,
                rounds,
                l2,
                start,
                time_limit: time_limit.map(std::time::Duration::from_millis),
                out,
            })
        }
        Some(Command::Balance {
            level,
            games,
            seed,
            ai,
            jobs,
            json,
            rounds,
            time_limit,
        }) => balance::run(&balance::Options {
            level,
            games,
            seed,
            ai,
            jobs: jobs.unwrap_or_else(default_jobs),
            json,
            rounds,
            time_limit: time_limit.map(std::time::Duration::from_millis),
        }),
    }
}

/// A weights file of `--ai-weights` / `--vs-weights` (RON, the fields of
/// [`crate::ai::Weights`]; a field left out keeps its default).
fn read_weights(path: Option<&std::path::Path>) -> Result<Option<crate::ai::Weights>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    ron::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Games played in parallel when `--jobs` is not given: the number of cores.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_games(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("play at least 1 game".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a number of games")),
    }
}

fn parse_kind(s: &str) -> Result<crate::ai::Kind, String> {
    crate::ai::Kind::parse(s)
        .ok_or_else(|| format!("unknown AI '{s}'; use random, greedy, easy, normal or hard"))
}

fn scenario(paths: &[PathBuf]) -> ExitCode {
    use crate::rules::scenario;
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(scenario::files_under(p));
        } else {
            files.push(p.clone());
        }
    }
    let mut failed = 0;
    for f in &files {
        let r = scenario::run_file(f);
        if r.passed {
            println!("ok   {}  {}", r.file, r.name);
        } else {
            failed += 1;
            println!("FAIL {}  {}\n{}", r.file, r.name, indent(&r.detail));
        }
    }
    println!(
        "{} scenario(s), {} passed, {failed} failed",
        files.len(),
        files.len() - failed
    );
    if failed == 0 && !files.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn replay(file: &Path, as_ron: bool) -> ExitCode {
    use crate::rules::replay;
    let text = match replay::read_user_file(file, 64 * 1024 * 1024) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    // A save (it has a `version`) replays like a replay file, with the game's checks.
    let ran = if crate::saves::is_save(&text) {
        crate::saves::parse(&file.display().to_string(), &text)
            .and_then(|f| crate::saves::resume(&file.display().to_string(), f))
            .map(|r| (r.state, r.events))
    } else {
        replay::parse(file, &text)
            .map_err(|e| e.to_string())
            .and_then(|(r, level)| {
                replay::run(&r, &level).map_err(|e| format!("{}: {e}", file.display()))
            })
    };
    let (b, events) = match ran {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if as_ron {
        for e in &events {
            println!("{}", ron::to_string(e).unwrap_or_default());
        }
    } else {
        print!("{}", replay::render_log(&b, &events));
    }
    ExitCode::SUCCESS
}

/// `fray edit`: applies the script's edits in order; on the first that fails nothing is
/// written. The result is saved even if it has problems (they are printed as warnings).
fn edit(level: &Path, script: &Path, out: &Path) -> ExitCode {
    use crate::rules::level::edit::{Edit, LevelDoc};
    use crate::rules::replay::read_user_file;
    let read =
        |p: &Path| read_user_file(p, 16 * 1024 * 1024).map_err(|e| format!("{}: {e}", p.display()));
    let (text, edits) = match read(level).and_then(|t| Ok((t, read(script)?))) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let edits: Vec<Edit> = match crate::rules::level::ron_options().from_str(&edits) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "{}:{}",
                script.display(),
                crate::rules::replay::ron_error(&e)
            );
            return ExitCode::FAILURE;
        }
    };
    let mut doc = LevelDoc::new(text);
    for (i, e) in edits.iter().enumerate() {
        if let Err(why) = doc.apply(e) {
            eprintln!(
                "{}: edit {} ({e:?}) failed: {why}; nothing was written",
                script.display(),
                i + 1
            );
            return ExitCode::FAILURE;
        }
    }
    let name = if out == Path::new("-") { level } else { out };
    for d in crate::rules::level::validate(&name.display().to_string(), doc.text()) {
        eprintln!("warning: {d}");
    }
    if out == Path::new("-") {
        print!("{}", doc.text());
    } else if let Err(e) = crate::rules::replay::write_atomic(out, doc.text()) {
        eprintln!("{}: cannot write: {e}", out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The level `fray` opens when none is named: the first `*.ron` in [`levels_dir`], by name.
pub fn default_level() -> Option<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(levels_dir())
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    files.into_iter().next()
}

#[cfg(feature = "game")]
fn play(level: Option<PathBuf>) -> ExitCode {
    crate::game::run(level)
}

#[cfg(feature = "game")]
fn shot(o: ShotOptions) -> ExitCode {
    crate::game::shot(o)
}

#[cfg(feature = "game")]
fn edit_in_game(level: PathBuf) -> ExitCode {
    crate::game::edit(level)
}

#[cfg(not(feature = "game"))]
fn edit_in_game(_level: PathBuf) -> ExitCode {
    no_game()
}

#[cfg(not(feature = "game"))]
fn play(_level: Option<PathBuf>) -> ExitCode {
    no_game()
}

#[cfg(not(feature = "game"))]
fn shot(_: ShotOptions) -> ExitCode {
    no_game()
}

#[cfg(not(feature = "game"))]
fn no_game() -> ExitCode {
    eprintln!(
        "fray: this binary was built without the `game` feature; rebuild with default features \
         to play (`cargo run --release`)"
    );
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// A tuning run's weights file names only what it changes; a misspelt weight is an error
    /// that names the file, not a silent default.
    #[test]
    fn a_weights_file_changes_only_the_weights_it_names() {
        let dir = std::env::temp_dir().join(format!("fray-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let good = dir.join("good.ron");
        let bad = dir.join("bad.ron");
        std::fs::write(&good, "(closing: 0.3, odds: 1.0)").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&bad, "(clozing: 0.3)").unwrap_or_else(|e| panic!("{e}"));
        let w = read_weights(Some(&good)).unwrap_or_else(|e| panic!("{e}"));
        let expected = crate::ai::Weights {
            closing: 0.3,
            odds: 1.0,
            ..crate::ai::Weights::DEFAULT
        };
        assert_eq!(w, Some(expected));
        assert_eq!(read_weights(None), Ok(None));
        let err = read_weights(Some(&bad)).expect_err("a misspelt weight");
        assert!(err.contains("bad.ron") && err.contains("clozing"), "{err}");
        assert!(read_weights(Some(&dir.join("none.ron"))).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_play() {
        let cli = Cli::try_parse_from(["fray"]).expect("parses");
        assert!(cli.command.is_none());
    }

    #[test]
    fn validate_needs_a_path() {
        assert!(Cli::try_parse_from(["fray", "validate"]).is_err());
        let cli = Cli::try_parse_from(["fray", "validate", "a.ron", "b.ron"]).expect("parses");
        match cli.command {
            Some(Command::Validate { paths }) => assert_eq!(paths.len(), 2),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn simulate_takes_a_time_limit_in_milliseconds() {
        let limit = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Some(Command::Simulate { time_limit, .. })) => Ok(time_limit),
            Ok(_) => Err("another command".to_string()),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(limit(&["fray", "simulate", "x.ron"]), Ok(None));
        assert_eq!(
            limit(&["fray", "simulate", "x.ron", "--time-limit", "50"]),
            Ok(Some(50))
        );
        // Zero would cut every search after its first candidate: refused, with the reason.
        let zero = limit(&["fray", "simulate", "x.ron", "--time-limit", "0"]);
        assert!(
            zero.as_ref().is_err_and(|e| e.contains("--time-limit")),
            "{zero:?}"
        );
        assert!(limit(&["fray", "simulate", "x.ron", "--time-limit", "fast"]).is_err());
    }

    #[test]
    fn edit_opens_the_editor_or_runs_a_script_with_both_script_and_out() {
        let parse = |args: &[&str]| Cli::try_parse_from(args.iter().copied());
        assert!(matches!(
            parse(&["fray", "edit", "a.ron"]).map(|c| c.command),
            Ok(Some(Command::Edit {
                script: None,
                out: None,
                ..
            }))
        ));
        assert!(parse(&["fray", "edit", "a.ron", "--script", "s.ron", "--out", "-"]).is_ok());
        // One without the other is a mistake, not an editor.
        assert!(parse(&["fray", "edit", "a.ron", "--script", "s.ron"]).is_err());
        assert!(parse(&["fray", "edit", "a.ron", "--out", "b.ron"]).is_err());
    }

    #[test]
    fn shot_needs_out() {
        assert!(Cli::try_parse_from(["fray", "shot", "x.ron"]).is_err());
        assert!(Cli::try_parse_from(["fray", "shot", "x.ron", "--out", "x.png"]).is_ok());
        assert!(
            Cli::try_parse_from(["fray", "shot", "x.ron", "--out", "x.png", "--editor"]).is_ok()
        );
        // The editor has no battle overlays.
        assert!(
            Cli::try_parse_from([
                "fray",
                "shot",
                "x.ron",
                "--out",
                "x.png",
                "--editor",
                "--overlay",
                "reach",
                "--unit",
                "A"
            ])
            .is_err()
        );
        // An overlay needs a unit, and only the three kinds exist.
        assert!(
            Cli::try_parse_from([
                "fray",
                "shot",
                "x.ron",
                "--out",
                "x.png",
                "--overlay",
                "reach"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from([
                "fray",
                "shot",
                "x.ron",
                "--out",
                "x.png",
                "--overlay",
                "fog",
                "--unit",
                "A"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from([
                "fray",
                "shot",
                "x.ron",
                "--out",
                "x.png",
                "--overlay",
                "sight",
                "--unit",
                "A"
            ])
            .is_ok()
        );
    }
}
