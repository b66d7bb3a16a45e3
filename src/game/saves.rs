//! Saves: the battle autosaves at the start of each round and when the player leaves it; F5
//! writes a quick save and F9 loads it; Continue on the title screen resumes the autosave.
//!
//! A save is versioned RON: the level file as played, its path, the seed, who controlled each
//! side, the replay (every command) and the serialized [`BattleState`]. Loading replays the
//! commands on the level and checks the result against the saved state; if the rules changed
//! since (the replay no longer fits) the saved state is used as it is. Files are written
//! atomically (a temporary file, then a rename), so a crash never leaves half a save; a save
//! that cannot be read gives a message and is never overwritten by that failure.
//!
//! Saves live in `$FRAY_SAVE_DIR`, else `$XDG_DATA_HOME/fray`, else `~/.local/share/fray`.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::battle::{Battle, BattleSetup, SideControl, Toast};
use crate::rules::battle::{BattleState, Command, Names, with_names};
use crate::rules::level::{Level, LevelFile};
use crate::rules::replay::write_atomic;

/// The save format's version; older or newer files are refused with a message.
pub const VERSION: u32 = 2;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SaveStatus>().add_systems(
        Update,
        autosave_each_round
            .in_set(super::AppSystems::Update)
            .run_if(resource_exists::<Battle>.and_then(in_state(super::Screen::Battle))),
    );
}

/// The last save problem, shown on the title screen (empty when all is well).
#[derive(Resource, Debug, Default, Clone)]
pub struct SaveStatus {
    pub message: String,
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

pub fn autosave_path() -> PathBuf {
    save_dir().join("autosave.ron")
}

pub fn quicksave_path() -> PathBuf {
    save_dir().join("quicksave.ron")
}

/// Whether there is an autosave to continue.
pub fn autosave_exists() -> bool {
    autosave_path().is_file()
}

/// What a save file holds.
#[derive(Serialize, Deserialize)]
struct SaveFile {
    version: u32,
    /// Where the level was loaded from (informative; the level itself is in `state`).
    level_path: Option<PathBuf>,
    seed: u64,
    controls: Vec<SideControl>,
    commands: Vec<Command>,
    state: BattleState,
}

/// Only the version, read first so an outdated file gets a clear message.
#[derive(Deserialize)]
struct Head {
    version: u32,
}

/// Writes the battle to `path` atomically.
pub fn save(battle: &Battle, path: &Path) -> Result<(), String> {
    let file = SaveFile {
        version: VERSION,
        level_path: battle.setup.path.clone(),
        seed: battle.setup.seed,
        controls: battle.setup.controls.clone(),
        commands: battle.commands.clone(),
        state: battle.state.clone(),
    };
    let text = ron::ser::to_string_pretty(&file, ron::ser::PrettyConfig::default())
        .map_err(|e| format!("cannot write the save: {e}"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads a save and rebuilds its battle. Never panics; every problem is a message naming the
/// file.
pub fn load(path: &Path) -> Result<Battle, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("The save {name} cannot be read: {e}"))?;
    let head: Head = ron::from_str(&text).map_err(|e| {
        format!("The save {name} is damaged ({e}); it was left as it is. Start a new battle.")
    })?;
    if head.version != VERSION {
        return Err(format!(
            "The save {name} is from another version of Fray (save format {}, this one reads {VERSION}); it was left as it is.",
            head.version
        ));
    }
    // Commands may name units; ids are numbers in files we write, so no names are needed.
    let file: SaveFile = with_names(Names::default(), || ron::from_str(&text)).map_err(|e| {
        format!("The save {name} is damaged ({e}); it was left as it is. Start a new battle.")
    })?;
    let level_file: LevelFile = (*file.state.level).clone();
    let level = Level::from_file(level_file).map_err(|p| {
        format!(
            "The save {name} holds a level that no longer validates ({}); it was left as it is.",
            p.first().map_or(String::new(), |p| p.to_string())
        )
    })?;
    if file.controls.len() != level.file.sides.len() {
        return Err(format!(
            "The save {name} is damaged (it names {} controllers for {} sides); it was left as it is.",
            file.controls.len(),
            level.file.sides.len()
        ));
    }
    let setup = BattleSetup {
        level,
        path: file.level_path,
        seed: file.seed,
        controls: file.controls,
    };
    // Prefer the replay: it re-validates every command. Fall back on the saved state when the
    // rules have changed since.
    let saved = ron::to_string(&file.state).unwrap_or_default();
    match Battle::replay(setup.clone(), &file.commands) {
        Ok(b) if ron::to_string(&b.state).unwrap_or_default() == saved => Ok(b),
        _ => {
            let mut b = Battle::new(setup);
            b.state = file.state;
            b.shown = b.state.clone();
            b.commands = file.commands;
            b.saved_round = b.state.round;
            b.log.push(super::battle::LogLine::plain("(Loaded from the saved state: the rules changed since this save, so the log before it is not shown.)"));
            Ok(b)
        }
    }
}

fn autosave_each_round(mut battle: ResMut<Battle>, mut toasts: MessageWriter<Toast>) {
    let round = battle.state.round;
    if round > battle.saved_round && battle.queue.is_empty() && battle.state.outcome.is_none() {
        battle.saved_round = round;
        if let Err(e) = save(&battle, &autosave_path()) {
            toasts.write(Toast(format!("Autosave failed: {e}")));
        }
    }
}

/// Autosaves a battle still going (on quit); removes the autosave of a finished one.
pub fn save_on_quit(battle: &Battle) -> Result<(), String> {
    if battle.state.outcome.is_some() {
        let _ = std::fs::remove_file(autosave_path());
        return Ok(());
    }
    save(battle, &autosave_path())
}
