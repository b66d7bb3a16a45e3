//! Saved battles: the file format, the folder of slots, and the checks that make a save safe to
//! resume. Pure (no Bevy): the game's save and load screens and `fray replay` use the same code.
//!
//! A save holds a [`Replay`] with the level inline (the level as played, the seed, every
//! command), who controlled each side, and a [`Summary`] for the Load screen. **The level and
//! the commands are the truth**: loading validates the level, replays every command on it and
//! compares the result with the summary; a save that does not replay, or replays to another
//! battle than it says, is refused with a message and left as it is. No battle state is ever
//! read from a file, so a tampered file cannot put the game in a state the rules never made.
//!
//! Every battle has its own slots, named after its id (`<id>.auto.ron`, `<id>.quick.ron`); a
//! new battle never replaces another's save. Files are written atomically
//! ([`write_atomic`]: a fresh temporary file, fsync, rename, folder fsync).
//!
//! Saves live in `$FRAY_SAVE_DIR`, else `$XDG_DATA_HOME/fray`, else `~/.local/share/fray`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ai::SideControl;
use crate::rules::battle::{BattleState, Event, Names, SideId, with_names};
use crate::rules::level::{Level, LevelFile};
use crate::rules::replay::{self, LevelSource, Replay, read_user_file, write_atomic};

/// The save format's version; files of another are refused with a message.
/// 3: a replay with the level inline, the controls and a summary (no battle state).
/// 4: the same; the summary's event count includes the log's sums (`Event::Reckoned`), so a
/// format-3 file would not replay to its summary.
pub const VERSION: u32 = 4;

/// The largest save file read (a long battle is well under 1 MiB).
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Which slot of a battle a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Slot {
    /// Written at the start of each round and when the player leaves the battle.
    Auto,
    /// Written by the player (F5).
    Quick,
}

impl Slot {
    fn suffix(self) -> &'static str {
        match self {
            Slot::Auto => "auto",
            Slot::Quick => "quick",
        }
    }
}

/// What the Load screen shows without replaying anything. Checked against the replay on load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub level: String,
    pub ruleset: String,
    pub sides: Vec<String>,
    /// The round being played when saved.
    pub round: u32,
    /// Events applied when saved (a fingerprint of how far the battle went).
    pub events: u64,
    /// The winner's name, or "a draw"; `None` while the battle goes on.
    pub outcome: Option<String>,
}

impl Summary {
    /// The summary of a battle as it stands.
    pub fn of(state: &BattleState) -> Self {
        Self {
            level: state.level.name.clone(),
            ruleset: state.level.ruleset.to_string(),
            sides: state.sides.iter().map(|s| s.name.clone()).collect(),
            round: state.round,
            events: state.applied,
            outcome: state.outcome.as_ref().map(|o| match o.winner {
                Some(SideId(i)) => state
                    .sides
                    .get(i as usize)
                    .map_or_else(|| format!("side {i}"), |s| s.name.clone()),
                None => "a draw".into(),
            }),
        }
    }
}

/// A save file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveFile {
    pub version: u32,
    /// The battle's id: its slots' file names start with it.
    pub battle: String,
    pub slot: Slot,
    /// When it was written, seconds since 1970-01-01 UTC.
    pub saved_at: u64,
    /// Where the level was loaded from (for hot reload; the level itself is in `replay`).
    pub level_path: Option<PathBuf>,
    /// Who played each side.
    pub controls: Vec<SideControl>,
    pub summary: Summary,
    /// The level as played, the seed and every command.
    pub replay: Replay,
}

/// A save, resumed: the level, the battle rebuilt from the commands, and the events in order.
pub struct Resumed {
    pub file: SaveFile,
    pub level: Level,
    pub state: BattleState,
    /// Every event from the start (the opening ones first), for the log.
    pub events: Vec<Event>,
}

/// The folder saves live in.
pub fn save_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("FRAY_SAVE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("fray");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".local/share/fray"),
        None => PathBuf::from(".fray"),
    }
}

/// The file of `battle`'s `slot` in `dir`.
pub fn slot_path(dir: &Path, battle: &str, slot: Slot) -> PathBuf {
    dir.join(format!("{battle}.{}.ron", slot.suffix()))
}

/// Seconds since 1970-01-01 UTC (0 if the clock is before it).
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A new battle's id: the level's name in file-name-safe letters, the time in milliseconds and
/// a count of the battles this run started, e.g. `the-crypt-1764100000123-0`: two battles
/// never share one, even started in the same millisecond.
pub fn new_battle_id(level_name: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STARTED: AtomicU64 = AtomicU64::new(0);
    let n = STARTED.fetch_add(1, Ordering::Relaxed);
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let millis = format!("{millis}-{n}");
    let mut slug: String = level_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    let slug = slug.trim_matches('-');
    let slug: String = slug.chars().take(40).collect();
    if slug.is_empty() {
        format!("battle-{millis}")
    } else {
        format!("{slug}-{millis}")
    }
}

/// The save of a battle: `state` must be the battle `commands` make on `level` from `seed`.
pub struct Saving<'a> {
    pub battle: &'a str,
    pub slot: Slot,
    pub level: &'a Level,
    pub level_path: Option<&'a Path>,
    pub seed: u64,
    pub controls: &'a [SideControl],
    pub commands: &'a [crate::rules::battle::Command],
    pub state: &'a BattleState,
}

impl Saving<'_> {
    /// The file's contents.
    pub fn file(&self) -> SaveFile {
        SaveFile {
            version: VERSION,
            battle: self.battle.to_string(),
            slot: self.slot,
            saved_at: now(),
            level_path: self.level_path.map(Path::to_path_buf),
            controls: self.controls.to_vec(),
            summary: Summary::of(self.state),
            replay: Replay {
                level: LevelSource::Inline(Box::new(self.level.file.clone())),
                seed: self.seed,
                tape: Vec::new(),
                commands: self.commands.to_vec(),
            },
        }
    }

    /// Writes the save into `dir` (created if missing) atomically; returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, String> {
        let path = slot_path(dir, self.battle, self.slot);
        write_file(&path, &self.file())?;
        Ok(path)
    }
}

/// Writes `file` to `path` atomically, creating the folder.
pub fn write_file(path: &Path, file: &SaveFile) -> Result<(), String> {
    let text = ron::ser::to_string_pretty(file, ron::ser::PrettyConfig::default())
        .map_err(|e| format!("cannot write the save: {e}"))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads a save's file without replaying it (the Load screen's listing). Every problem is a
/// sentence naming the file.
pub fn read(path: &Path) -> Result<SaveFile, String> {
    let name = path.display();
    let text = read_user_file(path, MAX_BYTES)
        .map_err(|e| format!("The save {name} cannot be read: {e}"))?;
    parse(&name.to_string(), &text)
}

/// The number after the first `version:` field of `text`, read leniently (the rest may be
/// damaged), if there is one.
fn written_version(text: &str) -> Option<Option<u32>> {
    text.match_indices("version").find_map(|(i, w)| {
        let before_ok = !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let rest = text[i + w.len()..].trim_start().strip_prefix(':')?;
        before_ok.then(|| {
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
    })
}

/// Whether `text` is meant as a save rather than a replay: it has a `version:` field (a replay
/// has none and refuses unknown fields), even if the rest is damaged.
pub fn is_save(text: &str) -> bool {
    written_version(text).is_some()
}

/// Parses a save's text (`name` for messages).
pub fn parse(name: &str, text: &str) -> Result<SaveFile, String> {
    if let Some(Some(v)) = written_version(text)
        && v != VERSION
    {
        return Err(format!(
            "The save {name} is from another version of Fray (save format {v}, this one reads \
             {VERSION}); it was left as it is."
        ));
    }
    // Files we write hold numbers for units; no names are installed.
    with_names(Names::default(), || {
        crate::rules::level::ron_options().from_str(text)
    })
    .map_err(|e| {
        format!(
            "The save {name} is damaged ({}); it was left as it is.",
            replay::ron_error(&e)
        )
    })
}

/// Rebuilds a save's battle from its level and commands, and checks it is the battle the file
/// says it is. Every problem is a sentence naming the file; nothing is half loaded.
pub fn resume(name: &str, file: SaveFile) -> Result<Resumed, String> {
    let level_file: LevelFile = match &file.replay.level {
        LevelSource::Inline(l) => (**l).clone(),
        LevelSource::File(p) => {
            return Err(format!(
                "The save {name} is damaged (its level is a reference to {}, not the level \
                 itself); it was left as it is.",
                p.display()
            ));
        }
    };
    let level = Level::from_file(level_file).map_err(|p| {
        format!(
            "The save {name} holds a level that does not validate ({}); it was left as it is.",
            p.first().map_or(String::new(), |p| p.to_string())
        )
    })?;
    if file.controls.len() != level.file.sides.len() {
        return Err(format!(
            "The save {name} is damaged (it names {} players for {} sides); it was left as it is.",
            file.controls.len(),
            level.file.sides.len()
        ));
    }
    if !file.replay.tape.is_empty() {
        return Err(format!(
            "The save {name} is damaged (it forces dice); it was left as it is."
        ));
    }
    let (state, events) = replay::run(&file.replay, &level).map_err(|e| {
        format!(
            "The save {name} does not replay: {e}. The rules may have changed since it was \
             written, or the file was edited; it was left as it is."
        )
    })?;
    let got = Summary::of(&state);
    if got != file.summary {
        return Err(format!(
            "The save {name} is inconsistent: its commands make {}, the file says {}; it was \
             left as it is.",
            describe(&got),
            describe(&file.summary)
        ));
    }
    Ok(Resumed {
        file,
        level,
        state,
        events,
    })
}

/// Reads and resumes the save at `path`.
/// Whether a battle resumed from `file` (read from `dir`) must take a new id, so that its
/// autosaves start a slot of their own: it is not the battle's autosave, and that autosave
/// holds more commands than it does. Loading an older quick save from the Load list then
/// plays on beside the newer progress instead of writing over it at the next round.
pub fn forks(dir: &Path, file: &SaveFile) -> bool {
    file.slot != Slot::Auto
        && read(&slot_path(dir, &file.battle, Slot::Auto))
            .is_ok_and(|auto| auto.replay.commands.len() > file.replay.commands.len())
}

pub fn load(path: &Path) -> Result<Resumed, String> {
    let file = read(path)?;
    resume(&path.display().to_string(), file)
}

fn describe(s: &Summary) -> String {
    let end = match &s.outcome {
        Some(w) => format!(", ended ({w})"),
        None => String::new(),
    };
    format!(
        "{} ({}) at round {} after {} events{end}",
        s.level, s.ruleset, s.round, s.events
    )
}

/// One file of the save folder, for the Load screen: its summary, or why it cannot be read.
#[derive(Clone, Debug)]
pub struct Listed {
    pub path: PathBuf,
    pub save: Result<SaveFile, String>,
}

impl Listed {
    /// When it was written (0 for a damaged file: listed last).
    pub fn saved_at(&self) -> u64 {
        self.save.as_ref().map_or(0, |s| s.saved_at)
    }
}

/// Every `*.ron` save in `dir`, newest first; damaged ones are listed with their problem (and
/// left alone). Linked folders and anything that is not a regular file are skipped.
pub fn list(dir: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Listed> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .map(|path| Listed {
            save: read(&path),
            path,
        })
        .collect();
    out.sort_by(|a, b| {
        b.saved_at()
            .cmp(&a.saved_at())
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// The save Continue resumes: the newest readable autosave of a battle still going.
pub fn latest_unfinished(dir: &Path) -> Option<PathBuf> {
    list(dir)
        .into_iter()
        .find(|l| {
            l.save
                .as_ref()
                .is_ok_and(|s| s.slot == Slot::Auto && s.summary.outcome.is_none())
        })
        .map(|l| l.path)
}

/// "2026-11-25 20:31 UTC" for `secs` since 1970 (the Load screen's date; no time-zone data).
pub fn date(secs: u64) -> String {
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests;
