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

/// A folder of its own under the system's temporary folder, for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fray-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

#[test]
fn a_pipe_given_as_a_file_is_refused_at_once_not_waited_on() {
    let dir = scratch("fifo");
    let fifo = dir.join("level.ron");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Nothing ever writes to the pipe: a read would block forever.
    let e = level::load_path(&fifo).expect_err("refused");
    assert!(e[0].message.contains("not a regular file"), "{e:?}");
    let e = fray::rules::replay::read_user_file(&fifo, 1024).expect_err("refused");
    assert!(e.contains("not a regular file"), "{e}");
    let r = scenario::run_file(&fifo);
    assert!(
        !r.passed && r.detail.contains("not a regular file"),
        "{}",
        r.detail
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn linked_folders_are_not_followed_when_listing_scenarios() {
    let dir = scratch("links");
    std::fs::write(dir.join("a.ron"), "()").expect("write");
    std::fs::create_dir(dir.join("sub")).expect("mkdir");
    std::fs::write(dir.join("sub").join("b.ron"), "()").expect("write");
    // A link back to the top: followed, it would list the files forever.
    std::os::unix::fs::symlink(&dir, dir.join("sub").join("loop")).expect("symlink");
    std::os::unix::fs::symlink(dir.join("a.ron"), dir.join("link.ron")).expect("symlink");
    let files = scenario::files_under(&dir);
    let names: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(&dir).ok())
        .map(|f| f.display().to_string())
        .collect();
    assert_eq!(names, ["a.ron", "link.ron", "sub/b.ron"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn atomic_writes_leave_no_temporary_file_and_never_share_one() {
    use fray::rules::replay::write_atomic;
    let dir = scratch("atomic");
    let target = dir.join("save.ron");
    std::thread::scope(|s| {
        for i in 0..8 {
            let target = &target;
            s.spawn(move || {
                for _ in 0..20 {
                    write_atomic(target, &format!("writer {i}\n").repeat(200)).expect("write");
                }
            });
        }
    });
    // The file is one writer's whole text, never a mix of two.
    let text = std::fs::read_to_string(&target).expect("read");
    let first = text.lines().next().expect("a line").to_string();
    assert!(text.lines().all(|l| l == first) && text.lines().count() == 200);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["save.ron"]);
    // A write that fails (its folder is gone) leaves nothing behind and says why.
    assert!(write_atomic(&dir.join("missing").join("x.ron"), "x").is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_misspelt_field_in_a_command_is_an_error_not_dropped() {
    let path = repo().join("tests").join("x.ron");
    let replay = |attack: &str| {
        format!(r#"(level: File("levels/sides_village_brawl.ron"), seed: 1, commands: [{attack}])"#)
    };
    // Spelt right, it reads.
    let good = replay(r#"Attack(unit: 0, target: 5, ranged: true)"#);
    fray::rules::replay::parse(&path, &good).expect("a good replay reads");
    // "ranegd" would have become a melee attack.
    let bad = replay(r#"Attack(unit: 0, target: 5, ranegd: true)"#);
    let e = fray::rules::replay::parse(&path, &bad).expect_err("refused");
    assert!(e.0.contains("ranegd"), "{}", e.0);
    // The same in a scenario step, and in an action's own fields.
    let scenario = r#"(name: "x", level: File("levels/sides_village_brawl.ron"), seed: 1,
        steps: [Do(Act(unit: 0, action: Shove(target: 5, prone: true, push: None, far: 2)))])"#;
    let e = scenario::load(&path, scenario).expect_err("refused");
    assert!(e.contains("far"), "{e}");
}

#[test]
fn a_rejected_command_is_reported_with_its_units_names() {
    let path = repo().join("tests").join("x.ron");
    // Unit 5 is on the other side, far away: the attack is refused.
    let text = r#"(level: File("levels/sides_village_brawl.ron"), seed: 1,
        commands: [Attack(unit: 0, target: 5, ranged: false)])"#;
    let (replay, level) = fray::rules::replay::parse(&path, text).expect("reads");
    let e = fray::rules::replay::run(&replay, &level).expect_err("refused");
    let names: Vec<&str> = level.file.units.iter().map(|u| u.name.as_str()).collect();
    assert!(e.0.contains(&format!("unit: {:?}", names[0])), "{}", e.0);
    assert!(e.0.contains(&format!("target: {:?}", names[5])), "{}", e.0);
    assert!(!e.0.contains("UnitId"), "{}", e.0);
}

/// `fray replay` reads a save as it reads a replay, with the game's checks: a good one prints
/// its log; a damaged or inconsistent one is refused with a message and exit status 1.
#[test]
fn fray_replay_reads_saves_and_refuses_damaged_ones() {
    use fray::saves::{Saving, Slot};
    let level = level::load_path(&repo().join("levels/sides_village_brawl.ron")).expect("loads");
    let game = sim::play(&level, 4, &[Kind::Greedy, Kind::Greedy], Caps::default());
    let commands = &game.commands[..game.commands.len().min(30)];
    let (mut b, _) = BattleState::start(&level, 4);
    for c in commands {
        b.execute(c).expect("replays");
    }
    let controls = [fray::ai::SideControl::Human, fray::ai::SideControl::Human];
    let dir = scratch("replay-saves");
    let path = Saving {
        battle: "brawl",
        slot: Slot::Quick,
        level: &level,
        level_path: None,
        seed: 4,
        controls: &controls,
        commands,
        state: &b,
    }
    .write(&dir)
    .expect("written");
    let run = |p: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_fray"))
            .arg("replay")
            .arg(p)
            .output()
            .expect("fray runs")
    };
    let out = run(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(log.contains(&level.file.units[0].name), "{log}");
    // Tampered: the round it claims is not the one its commands reach.
    let text = std::fs::read_to_string(&path).expect("reads");
    let bad = dir.join("bad.quick.ron");
    let claim = format!("round: {},", b.round);
    std::fs::write(&bad, text.replacen(&claim, "round: 99,", 1)).expect("written");
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("inconsistent"), "{err}");
    // Cut short: damaged, said so (not a replay's "missing field").
    std::fs::write(&bad, &text[..text.len() / 3]).expect("written");
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is damaged"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small level of `ruleset` with three events: a message and a reinforcement for each side as
/// round 2 begins, one more for the Heroes when they have lost a unit, and new objectives when
/// a Foe comes near the Heroes' edge.
fn level_with_events(ruleset: &str, topology: &str, template: &str) -> level::Level {
    let text = format!(
        r#"(
    name: "Events", ruleset: "{ruleset}", topology: {topology}, size: (8, 5),
    map: ["........", "........", "...##...", "........", "........"],
    sides: [(name: "Heroes", controller: Human), (name: "Foes", controller: Ai)],
    units: [
        (name: "A", side: "Heroes", template: "{template}", cell: (0, 0)),
        (name: "B", side: "Heroes", template: "{template}", cell: (0, 4)),
        (name: "C", side: "Foes", template: "{template}", cell: (7, 4)),
        (name: "D", side: "Foes", template: "{template}", cell: (7, 0)),
    ],
    events: [
        (when: Round(2), then: [Message("More come"), Reinforcements([
            (name: "H1", side: "Heroes", template: "{template}", cell: (0, 0)),
            (name: "F1", side: "Foes", template: "{template}", cell: (7, 2)),
        ])]),
        (when: Lost(side: "Heroes", units: 1), then: [Reinforcements([
            (name: "H2", side: "Heroes", template: "{template}", cell: (0, 2)),
        ])]),
        (when: Enters(side: "Foes", area: Rect(from: (0, 0), to: (2, 4))), then: [
            Objectives(side: "Heroes", victory: [SurviveRounds(side: "Heroes", rounds: 9)]),
        ]),
    ],
)"#
    );
    level::load("events.ron", &text).unwrap_or_else(|d| panic!("{d:?}"))
}

#[test]
fn a_battle_with_level_events_replays_and_resumes_event_for_event() {
    use fray::rules::battle::Scripted;
    let dir = scratch("events-saves");
    let levels = [
        level_with_events("phases", "Hex(orientation: Pointy)", "swordsman"),
        level_with_events("sides", "Square(diagonals: One)", "warrior"),
        level_with_events("segments", "Square(diagonals: One)", "fighter"),
        level_with_events("alternating", "Square(diagonals: OneTwo)", "spear_warden"),
        level_with_events("action-points", "Square(diagonals: One)", "fighter"),
    ];
    for level in &levels {
        let id = level.file.ruleset;
        let caps = Caps {
            rounds: 10,
            commands: 600,
            time_limit: Some(Duration::from_secs(3600)),
        };
        let game = sim::play(level, 7, &[Kind::Greedy, Kind::Greedy], caps);
        assert!(game.illegal.is_none(), "{id}: {:?}", game.illegal);
        let replay = |commands: &[fray::rules::battle::Command]| {
            let (mut b, mut events) = BattleState::start(level, 7);
            for c in commands {
                events.extend(b.execute(c).unwrap_or_else(|e| panic!("{id}: {c:?}: {e}")));
            }
            (b, events)
        };
        let (b, events) = replay(&game.commands);
        let (again, events_again) = replay(&game.commands);
        assert_eq!(events, events_again, "{id}");
        assert_eq!(
            b.outcome.as_ref().map(|o| o.winner),
            game.ended.then_some(game.winner)
        );
        let arrived = events
            .iter()
            .filter(|e| matches!(e, Event::Scripted(Scripted::Arrived { .. })))
            .count();
        assert!(arrived >= 2, "{id}: {arrived} arrivals");
        assert_eq!(again.units.len(), 4 + arrived);
        // The reinforcements took part: one of them was given a command.
        assert!(
            game.commands.iter().any(|c| c.unit().index() >= 4),
            "{id}: no reinforcement acted"
        );
        // A save of the battle halfway is rebuilt from its commands to the same state.
        let half = &game.commands[..game.commands.len() / 2];
        let (mid, _) = replay(half);
        let controls = [fray::ai::SideControl::Human, fray::ai::SideControl::Human];
        let file = fray::saves::Saving {
            battle: "events",
            slot: fray::saves::Slot::Quick,
            level,
            level_path: None,
            seed: 7,
            controls: &controls,
            commands: half,
            state: &mid,
        }
        .write(&dir)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{id}: {e}"));
        let parsed = fray::saves::parse("events", &text).unwrap_or_else(|e| panic!("{id}: {e}"));
        let resumed = fray::saves::resume("events", parsed).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(resumed.state.units, mid.units, "{id}");
        assert_eq!(resumed.state.script, mid.script, "{id}");
        assert_eq!(resumed.state.level.victory, mid.level.victory, "{id}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
