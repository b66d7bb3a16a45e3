//! The rules as a whole, through the public API (pure: `fray::rules` and `fray::ai`, no Bevy).
//!
//! **Scenarios**: every scripted battle in `tests/scenarios/` (a level, a seed, a dice tape,
//! commands and the events they must give) passes.
//!
//! **Recorded games**: every shipped level's AI games (each AI strength against another, a fixed
//! seed) must play out event for event as it did when the recording was made. A refactor that changes
//! structure and not behaviour keeps these green; a deliberate change of play re-records them
//! with `FRAY_RECORD=1 cargo test --no-default-features --test rules`.
//!
//! An event is recorded as its `Debug` text, except that an interrupt's continuation (the
//! engine's private note of what to do after the reactions) is left out: it is bookkeeping,
//! not something that happens.

use fray::ai::sim::{self, Caps};
use fray::ai::{Difficulty, Kind};
use fray::rules::battle::{BattleState, Event};
use fray::rules::{level, scenario};
use std::path::{Path, PathBuf};
use std::time::Duration;

use fray::repo_dir as repo;

#[test]
fn every_scenario_in_tests_scenarios_passes() {
    let dir = repo().join("tests").join("scenarios");
    let files = scenario::files_under(&dir);
    assert!(
        files.len() >= 50,
        "{} scenarios in {}",
        files.len(),
        dir.display()
    );
    let failures: Vec<String> = files
        .iter()
        .map(|f| scenario::run_file(f))
        .filter(|r| !r.passed)
        .map(|r| format!("FAIL {}: {}\n{}", r.file, r.name, r.detail))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const SEED: u64 = 20_261_125;

fn line(e: &Event) -> String {
    match e {
        Event::Interrupted(i) => format!(
            "Interrupted {{ trigger: {:?}, reactors: {:?} }}",
            i.trigger, i.reactors
        ),
        e => format!("{e:?}"),
    }
}

/// The pairings recorded on every level: each AI strength, on both sides.
const PAIRINGS: [[Kind; 2]; 3] = [
    [Kind::Utility(Difficulty::Normal), Kind::Greedy],
    [Kind::Greedy, Kind::Utility(Difficulty::Hard)],
    [Kind::Utility(Difficulty::Easy), Kind::Random],
];

/// The games on `file` as text: for each pairing, the players, then one event a line.
fn record(file: &Path) -> String {
    PAIRINGS.iter().map(|p| record_game(file, p)).collect()
}

fn record_game(file: &Path, players: &[Kind; 2]) -> String {
    let level = level::load_path(file).unwrap_or_else(|d| panic!("{}: {d:?}", file.display()));
    let sides = level.file.sides.len();
    let players: Vec<Kind> = (0..sides).map(|i| players[i % 2]).collect();
    let caps = Caps {
        rounds: 12,
        commands: 2_000,
        time_limit: Some(Duration::from_secs(3600)),
    };
    let game = sim::play(&level, SEED, &players, caps);
    assert!(game.illegal.is_none(), "{:?}", game.illegal);
    let (mut b, start) = BattleState::start(&level, SEED);
    let mut out = format!(
        "# {} seed {SEED}, players {:?}, {} commands\n",
        file.file_name().unwrap_or_default().to_string_lossy(),
        players,
        game.commands.len()
    );
    let push = |out: &mut String, events: &[Event]| {
        for e in events {
            out.push_str(&line(e));
            out.push('\n');
        }
    };
    push(&mut out, &start);
    for cmd in &game.commands {
        out.push_str(&format!("> {cmd:?}\n"));
        let events = b
            .execute(cmd)
            .unwrap_or_else(|e| panic!("replaying {cmd:?}: {e}"));
        push(&mut out, &events);
    }
    out
}

#[test]
fn every_shipped_level_plays_its_recorded_game() {
    let dir = repo().join("levels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    let rec_dir = repo().join("tests").join("recordings");
    let recording = std::env::var_os("FRAY_RECORD").is_some();
    let mut differ = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap_or_default().to_string_lossy();
        let path = rec_dir.join(format!("{name}.txt"));
        let now = record(file);
        if recording {
            std::fs::write(&path, &now).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (record with FRAY_RECORD=1)", path.display()));
        if now != want {
            let at = now
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| now.lines().count().min(want.lines().count()));
            differ.push(format!(
                "{name}: line {}:\n  now:  {}\n  was:  {}",
                at + 1,
                now.lines().nth(at).unwrap_or("(end)"),
                want.lines().nth(at).unwrap_or("(end)")
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
