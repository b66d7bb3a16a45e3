//! Replays: a level, a seed (and optionally a dice tape) and the commands sent. Re-running a
//! replay gives the same events, byte for byte, on every machine.
//!
//! ```ron
//! (
//!     level: File("levels/action_points_ruins.ron"),
//!     seed: 5001,
//!     commands: [
//!         Move(unit: "Kestrel", to: (3, 6)),
//!         Attack(unit: "Kestrel", target: "Shade", ranged: false),
//!         EndTurn(unit: "Kestrel"),
//!     ],
//! )
//! ```
//! Units and sides may be written by name or by number. A `File` path is read relative to the
//! current directory, or else to the replay file's own directory.

use crate::rules::battle::{BattleState, Command, Event, Names, log, with_names};
use crate::rules::level::{self, Diagnostic, Level, LevelFile};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where a replay's or scenario's level comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LevelSource {
    /// A level file.
    File(PathBuf),
    /// A whole level written inline (the `levels/*.ron` schema).
    Inline(Box<LevelFile>),
}

/// A recorded battle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replay {
    pub level: LevelSource,
    pub seed: u64,
    /// Forced dice, in roll order (tests and worked examples).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tape: Vec<u32>,
    pub commands: Vec<Command>,
}

/// Loads the level of a replay or scenario read from `origin`.
pub fn load_level(source: &LevelSource, origin: &Path) -> Result<Level, Vec<Diagnostic>> {
    match source {
        LevelSource::File(p) => {
            let candidates = [
                p.clone(),
                origin.parent().map(|d| d.join(p)).unwrap_or_default(),
            ];
            let found = candidates
                .iter()
                .find(|c| c.is_file())
                .unwrap_or(&candidates[0]);
            level::load_path(found)
        }
        LevelSource::Inline(file) => {
            let name = origin.display().to_string();
            level::Level::from_file((**file).clone()).map_err(|problems| {
                problems
                    .into_iter()
                    .map(|p| Diagnostic {
                        file: name.clone(),
                        line: 1,
                        col: 1,
                        message: format!("inline level: {}", p.message),
                    })
                    .collect()
            })
        }
    }
}

/// The unit and side names of a level (to read commands written with names).
pub fn level_names(level: &Level) -> Names {
    Names {
        units: level.file.units.iter().map(|u| u.name.clone()).collect(),
        sides: level.file.sides.iter().map(|s| s.name.clone()).collect(),
    }
}

/// An error reading or running a replay.
#[derive(Debug)]
pub struct ReplayError(pub String);

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses a replay file's text. Names in commands need the level, so the level is read first
/// (from a name-free first pass) and the commands second.
pub fn parse(path: &Path, text: &str) -> Result<(Replay, Level), ReplayError> {
    #[derive(Deserialize)]
    struct Head {
        level: LevelSource,
        #[allow(dead_code)]
        seed: u64,
        #[serde(default)]
        #[allow(dead_code)]
        tape: Vec<u32>,
        #[allow(dead_code)]
        commands: ron::Value,
    }
    let file = path.display();
    let head: Head = crate::rules::level::ron_options()
        .from_str(text)
        .map_err(|e| ReplayError(format!("{file}:{}", ron_error(&e))))?;
    let level = load_level(&head.level, path).map_err(|d| {
        ReplayError(
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })?;
    let replay: Replay = with_names(level_names(&level), || {
        crate::rules::level::ron_options().from_str(text)
    })
    .map_err(|e| ReplayError(format!("{file}:{}", ron_error(&e))))?;
    Ok((replay, level))
}

/// `line:col: message` for a RON error.
pub fn ron_error(e: &ron::error::SpannedError) -> String {
    format!(
        "{}:{}: error: {}",
        e.span.start.line, e.span.start.col, e.code
    )
}

/// Runs a replay: the opening events and then each command's. A rejected command stops it.
pub fn run(replay: &Replay, level: &Level) -> Result<(BattleState, Vec<Event>), ReplayError> {
    let (mut b, mut events) =
        BattleState::start_with_tape(level, replay.seed, replay.tape.iter().copied());
    for (i, c) in replay.commands.iter().enumerate() {
        match b.execute(c) {
            Ok(e) => events.extend(e),
            Err(r) => {
                let c = b.show(c);
                return Err(ReplayError(format!(
                    "command {} ({c}) was rejected: {r}",
                    i + 1
                )));
            }
        }
    }
    Ok((b, events))
}

/// The event log as text, one line per event.
pub fn render_log(b: &BattleState, events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        out.push_str(&log::describe(b, e));
        out.push('\n');
    }
    out
}

/// Writes `text` to `path` atomically: a temporary file of its own in the same folder (named
/// for this process and a counter, so two running copies never share one), flushed, renamed
/// over the target, and the folder synced so the rename itself survives a crash. A crash
/// leaves either the old file or the new one, never half; a failed write removes its
/// temporary file.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic_bytes(path, text.as_bytes())
}

/// [`write_atomic`] for bytes (a save's thumbnail picture).
pub fn write_atomic_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let unique = format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let tmp = match dir {
        Some(d) => d.join(unique),
        None => PathBuf::from(unique),
    };
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    // The rename is durable once the folder is synced (a no-op where folders cannot be opened).
    if let Ok(d) = std::fs::File::open(dir.unwrap_or(Path::new("."))) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads a text file the user named (a level, a replay, a scenario, a save), at most
/// `max_bytes` of it. Anything but a regular file (a folder, a FIFO, a device) is refused
/// before it is opened, so a pipe cannot block a command forever.
pub fn read_user_file(path: &Path, max_bytes: u64) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if meta.is_dir() {
        return Err("this is a folder, not a file".into());
    }
    if !meta.is_file() {
        return Err("this is not a regular file (a pipe or a device?); give a file".into());
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "the file is {} bytes; at most {max_bytes} are read",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max_bytes + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "the file grew past {max_bytes} bytes while it was read"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the file is not UTF-8 text (a bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::battle::tests::{load, random_play};

    #[test]
    fn a_replay_reproduces_the_same_log_every_time_and_survives_a_round_trip() {
        let level = load("action_points_ruins.ron");
        let (_, commands, events) = random_play(&level, 3, 400);
        let replay = Replay {
            level: LevelSource::File(PathBuf::from("levels/action_points_ruins.ron")),
            seed: 3,
            tape: Vec::new(),
            commands,
        };
        let text = ron::ser::to_string_pretty(&replay, Default::default()).expect("ron");
        let dir = std::env::temp_dir().join(format!("fray-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("r.ron");
        write_atomic(&path, &text).expect("write");
        let back = std::fs::read_to_string(&path).expect("read");
        let (parsed, level2) = parse(&path, &back).expect("parse");
        assert_eq!(parsed, replay);
        let (b1, e1) = run(&parsed, &level2).expect("run");
        let (b2, e2) = run(&parsed, &level2).expect("run");
        assert_eq!(e1, events);
        assert_eq!(render_log(&b1, &e1), render_log(&b2, &e2));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn commands_may_name_units() {
        let text = r#"(
            level: File("levels/action_points_ruins.ron"),
            seed: 1,
            commands: [EndTurn(unit: "Kestrel"), Attack(unit: 4, target: "Shade")],
        )"#;
        let (r, _) = parse(Path::new("x.ron"), text).expect("parse");
        assert_eq!(r.commands[0].unit().0, 0);
        let bad = text.replace("\"Shade\"", "\"Nobody\"");
        let err = parse(Path::new("x.ron"), &bad).expect_err("unknown name");
        assert!(err.0.contains("no unit is named 'Nobody'"), "{}", err.0);
        assert!(err.0.starts_with("x.ron:4:"), "{}", err.0);
    }
}
