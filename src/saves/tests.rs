//! Saves: written, listed and resumed; every damaged or inconsistent save refused with a
//! message and left as it is.

use super::*;
use crate::ai::{Ai, Config, Difficulty, Kind};
use crate::rules::battle::{Action, Command, UnitId};
use crate::rules::grid::Cell;

/// A battle on a shipped level after `moves` AI commands, and its commands.
fn played(level: &str, moves: usize) -> (Level, BattleState, Vec<Command>) {
    let path = crate::repo_dir().join("levels").join(level);
    let level = crate::rules::level::load_path(&path).expect("a shipped level loads");
    let (mut b, _) = BattleState::start(&level, 11);
    let mut ais: Vec<Ai> = (0..b.sides.len())
        .map(|i| Ai::new(Config::new(Kind::Greedy, i as u64)))
        .collect();
    let mut commands = Vec::new();
    while commands.len() < moves && b.outcome.is_none() {
        let side = crate::ai::deciding_side(&b).expect("someone decides");
        let c = ais[side.index()].decide(&b).expect("a command");
        b.execute(&c).expect("the AI's command is legal");
        commands.push(c);
    }
    (level, b, commands)
}

fn saving<'a>(
    level: &'a Level,
    state: &'a BattleState,
    commands: &'a [Command],
    controls: &'a [SideControl],
) -> Saving<'a> {
    Saving {
        battle: "test-battle",
        slot: Slot::Auto,
        level,
        level_path: None,
        seed: 11,
        controls,
        commands,
        state,
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fray-saves-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const CONTROLS: [SideControl; 2] = [
    SideControl::Human,
    SideControl::Ai(Kind::Utility(Difficulty::Normal)),
];

#[test]
fn a_save_resumes_to_the_same_battle() {
    for level in ["sides_village_brawl.ron", "segments_crypt.ron"] {
        let (lvl, b, commands) = played(level, 25);
        let dir = scratch("resume");
        let path = saving(&lvl, &b, &commands, &CONTROLS)
            .write(&dir)
            .expect("written");
        let r = load(&path).expect("resumes");
        assert_eq!(
            ron::to_string(&r.state).expect("serializes"),
            ron::to_string(&b).expect("serializes"),
            "{level}"
        );
        assert_eq!(r.file.replay.commands, commands);
        assert_eq!(r.file.controls, CONTROLS);
        assert_eq!(r.events.len() as u64, b.applied);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Each tampering of a good save is refused with the given words in the message, and the file
/// is left byte for byte as it was.
#[test]
fn damaged_and_inconsistent_saves_are_refused_and_left_alone() {
    let (lvl, b, commands) = played("sides_village_brawl.ron", 20);
    let good = ron::ser::to_string_pretty(
        &saving(&lvl, &b, &commands, &CONTROLS).file(),
        ron::ser::PrettyConfig::default(),
    )
    .expect("serializes");
    let round = format!("round: {},", b.round);
    let events = format!("events: {},", b.applied);
    let cases: Vec<(&str, String, &str)> = vec![
        ("truncated", good[..good.len() / 2].to_string(), "damaged"),
        ("not RON", "garbage \u{0}".into(), "damaged"),
        (
            "old version",
            good.replacen(&format!("version: {VERSION}"), "version: 2", 1),
            "another version",
        ),
        (
            "round",
            good.replacen(&round, "round: 50,", 1),
            "inconsistent",
        ),
        (
            "events",
            good.replacen(&events, "events: 3,", 1),
            "inconsistent",
        ),
        (
            "unknown unit",
            good.replacen("unit: 0", "unit: 99", 1),
            "does not replay",
        ),
        (
            "one command too many",
            good.replacen("commands: [", "commands: [EndTurn(unit: 0), ", 1),
            "does not replay",
        ),
        (
            "no units",
            {
                let mut f = saving(&lvl, &b, &commands, &CONTROLS).file();
                if let LevelSource::Inline(l) = &mut f.replay.level {
                    l.units.clear();
                }
                ron::to_string(&f).expect("serializes")
            },
            "does not validate",
        ),
        (
            "a unit off the map",
            {
                let mut f = saving(&lvl, &b, &commands, &CONTROLS).file();
                if let LevelSource::Inline(l) = &mut f.replay.level {
                    l.units[0].cell = (500, -3);
                }
                ron::to_string(&f).expect("serializes")
            },
            "does not validate",
        ),
        (
            "a missing controller",
            good.replacen("controls: [", "controls: [Human, ", 1),
            "players for",
        ),
        (
            "an unknown field",
            good.replacen("slot: Auto,", "slot: Auto, state: (),", 1),
            "damaged",
        ),
    ];
    let dir = scratch("damaged");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    for (what, text, words) in cases {
        assert_ne!(text, good, "{what}: the tampering did not apply");
        let path = dir.join(format!("{}.auto.ron", what.replace(' ', "-")));
        std::fs::write(&path, &text).expect("written");
        match load(&path) {
            Ok(_) => panic!("{what}: a damaged save was resumed"),
            Err(e) => {
                assert!(e.contains(words), "{what}: {e}");
                assert!(e.contains(&path.display().to_string()), "{what}: {e}");
            }
        }
        assert_eq!(
            std::fs::read_to_string(&path).expect("still there"),
            text,
            "{what}"
        );
    }
    // The listing shows every file; those that do not even parse carry their problem (the
    // others are refused when resumed, above).
    let listed = list(&dir);
    assert_eq!(listed.len(), 11);
    for l in &listed {
        let name = l.path.file_name().map(|n| n.to_string_lossy().to_string());
        let unreadable = ["truncated", "not-RON", "old-version", "an-unknown-field"]
            .iter()
            .any(|w| name.as_deref().is_some_and(|n| n.starts_with(w)));
        assert_eq!(l.save.is_err(), unreadable, "{name:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_battle_has_its_own_slots_and_continue_takes_the_newest_unfinished() {
    let dir = scratch("slots");
    let (lvl, b, commands) = played("sides_village_brawl.ron", 10);
    let first = Saving {
        battle: "first",
        ..saving(&lvl, &b, &commands, &CONTROLS)
    };
    let first_path = first.write(&dir).expect("written");
    let first_text = std::fs::read_to_string(&first_path).expect("reads");
    // A second battle's autosave and quick save touch nothing of the first's.
    let (lvl2, b2, commands2) = played("segments_crypt.ron", 10);
    let second = Saving {
        battle: "second",
        ..saving(&lvl2, &b2, &commands2, &CONTROLS)
    };
    let second_auto = second.write(&dir).expect("written");
    let quick = Saving {
        slot: Slot::Quick,
        ..second
    };
    quick.write(&dir).expect("written");
    assert_eq!(
        std::fs::read_to_string(&first_path).expect("reads"),
        first_text
    );
    assert_eq!(list(&dir).len(), 3);
    // Continue: the newest autosave of a battle still going (both were written this second:
    // make the first one older by hand, as an older file would be).
    let mut f = read(&first_path).expect("reads");
    f.saved_at -= 100;
    write_file(&first_path, &f).expect("written");
    assert_eq!(latest_unfinished(&dir), Some(second_auto.clone()));
    // A finished battle is kept (its replay) but not continued.
    let mut f = read(&second_auto).expect("reads");
    f.summary.outcome = Some("Party".into());
    write_file(&second_auto, &f).expect("written");
    assert_eq!(latest_unfinished(&dir), Some(first_path));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn battle_ids_are_file_name_safe() {
    let id = new_battle_id("The Crypt: Ümlauts / slashes");
    assert!(id.starts_with("the-crypt-mlauts-slashes-"), "{id}");
    assert!(
        id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
        "{id}"
    );
    assert!(new_battle_id("???").starts_with("battle-"));
}

#[test]
fn dates_read_as_a_calendar() {
    assert_eq!(date(0), "1970-01-01 00:00 UTC");
    assert_eq!(date(951_782_400), "2000-02-29 00:00 UTC");
    assert_eq!(date(1_795_638_660), "2026-11-25 20:31 UTC");
}

/// A battle whose units drop, pick up and shoot with items (issue 26) saves and resumes to the
/// same battle: the items on the ground and in hand, the shots left.
#[test]
fn a_save_with_items_resumes_to_the_same_battle() {
    let text = r#"(name: "Rack", ruleset: "sides", topology: Square(diagonals: One), size: (10, 4),
        map: ["..........", "..........", "..........", ".........."],
        sides: [(name: "Party", controller: Human), (name: "Foes", controller: Ai)],
        units: [
            (name: "Cass", side: "Party", cell: (1, 1), template: "archer", items: ["crossbow"]),
            (name: "Ida", side: "Party", cell: (1, 2), template: "warrior", items: ["dagger"]),
            (name: "Tor", side: "Foes", cell: (8, 1), template: "warrior", overrides: {"hp": 60}),
        ],
        items: [(item: "longsword", cell: (2, 2))])"#;
    let lvl = crate::rules::level::load("rack.ron", text).expect("valid");
    let (mut b, _) = BattleState::start(&lvl, 11);
    let (cass, ida, tor) = (UnitId(0), UnitId(1), UnitId(2));
    let mut commands = Vec::new();
    let mut run = |b: &mut BattleState, c: Command| {
        b.execute(&c).unwrap_or_else(|e| panic!("{c:?}: {e:?}"));
        commands.push(c);
    };
    // Whoever the Party picks first, both act: Cass shoots, Ida swaps her dagger for the sword.
    for _ in 0..2 {
        if let crate::rules::battle::Decision::Pick { options, .. } = b.pending() {
            run(&mut b, Command::Pick { unit: options[0] });
        }
        match b.pending() {
            crate::rules::battle::Decision::Act { unit } if unit == cass => {
                run(
                    &mut b,
                    Command::Attack {
                        unit: cass,
                        target: tor,
                        ranged: true,
                    },
                );
                run(&mut b, Command::EndTurn { unit: cass });
            }
            crate::rules::battle::Decision::Act { unit } if unit == ida => {
                let drop = Action::DropItem {
                    item: "dagger".into(),
                };
                run(
                    &mut b,
                    Command::Act {
                        unit: ida,
                        action: drop,
                    },
                );
                let up = Action::PickUp {
                    cell: Cell::new(2, 2),
                    item: "longsword".into(),
                };
                run(
                    &mut b,
                    Command::Act {
                        unit: ida,
                        action: up,
                    },
                );
                run(&mut b, Command::EndTurn { unit: ida });
            }
            d => panic!("{d:?}"),
        }
    }
    assert_eq!(b.units[0].items[0].loaded, 0);
    assert_eq!(b.items_at(Cell::new(1, 2)), ["dagger".to_string()]);
    assert_eq!(b.units[1].stat("damage_die"), 8);
    let dir = scratch("items");
    let path = saving(&lvl, &b, &commands, &CONTROLS)
        .write(&dir)
        .expect("written");
    let r = load(&path).expect("resumes");
    assert_eq!(
        ron::to_string(&r.state).expect("serializes"),
        ron::to_string(&b).expect("serializes")
    );
    assert_eq!(r.state.ground, b.ground);
    assert_eq!(r.state.units[1].items, b.units[1].items);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A quick save older than its battle's autosave forks: loaded, it would otherwise autosave
/// over the newer progress (a play-test lost a round that way). A quick save as new as the
/// autosave, or the autosave itself, keeps the battle's id.
#[test]
fn an_older_quick_save_forks_from_a_newer_autosave() {
    let (lvl, b, commands) = played("sides_village_brawl.ron", 30);
    let (_, early, early_commands) = played("sides_village_brawl.ron", 10);
    let dir = scratch("forks");
    let write = |state: &BattleState, commands: &[Command], slot: Slot| {
        let mut s = saving(&lvl, state, commands, &CONTROLS);
        s.slot = slot;
        s.write(&dir).expect("written")
    };
    let quick = write(&early, &early_commands, Slot::Quick);
    // No autosave yet: nothing to write over.
    assert!(!forks(&dir, &read(&quick).expect("reads")));
    let auto = write(&b, &commands, Slot::Auto);
    assert!(forks(&dir, &read(&quick).expect("reads")));
    assert!(!forks(&dir, &read(&auto).expect("reads")));
    // A quick save as far on as the autosave does not fork.
    let quick = write(&b, &commands, Slot::Quick);
    assert!(!forks(&dir, &read(&quick).expect("reads")));
    let _ = std::fs::remove_dir_all(&dir);
}
