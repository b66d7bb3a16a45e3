//! Saves in the game: every battle autosaves (its own slot) at the start of each round and when
//! the player leaves it; F5 writes the battle's quick save and F9 loads it back (asking first
//! when that would throw away moves made since the last save); the title screen's Continue
//! resumes the newest unfinished battle and Load lists every save.
//!
//! The format, the slots and the checks live in [`crate::saves`] (pure, shared with
//! `fray replay`): a save is the level, the seed, who played each side and every command; it
//! is rebuilt by replaying the commands, and a save that does not replay to the battle it says
//! it is, is refused with a message and left as it is.

use std::path::{Path, PathBuf};

use bevy::prelude::*;

use super::battle::{Battle, BattleSetup, Toast};
use crate::saves::{self as format, Saving, Slot};

pub use crate::saves::{VERSION, save_dir};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SaveStatus>().add_systems(
        Update,
        autosave_each_round
            .in_set(super::AppSystems::Update)
            .run_if(
                resource_exists::<Battle>
                    .and_then(in_state(super::Screen::Battle))
                    .and_then(not(resource_exists::<super::replay::Replay>)),
            ),
    );
}

/// The last save problem, shown on the title screen (empty when all is well).
#[derive(Resource, Debug, Default, Clone)]
pub struct SaveStatus {
    pub message: String,
}

/// The file of the battle's `slot`.
pub fn slot_path(battle: &Battle, slot: Slot) -> PathBuf {
    format::slot_path(&save_dir(), &battle.id, slot)
}

/// The save Continue resumes: the newest autosave of a battle still going.
pub fn continue_path() -> Option<PathBuf> {
    format::latest_unfinished(&save_dir())
}

/// Writes the battle's `slot` in `dir` atomically; returns the file.
pub fn save_in(battle: &Battle, dir: &Path, slot: Slot) -> Result<PathBuf, String> {
    Saving {
        battle: &battle.id,
        slot,
        level: &battle.setup.level,
        level_path: battle.setup.path.as_deref(),
        seed: battle.setup.seed,
        controls: &battle.setup.controls,
        commands: &battle.commands,
        state: &battle.state,
    }
    .write(dir)
}

/// The thumbnail picture of the save at `save`: beside it, `.png` for `.ron`.
pub fn thumbnail_path(save: &Path) -> PathBuf {
    save.with_extension("png")
}

/// Writes the thumbnail of `battle`'s board as it stands next to its save `save`, atomically
/// (a PNG of a few pixels a cell, for the Load screen), in the colour-blind-safe palette if
/// `colour_blind`.
pub fn write_thumbnail(
    battle: &Battle,
    save: &Path,
    colour_blind: bool,
) -> Result<PathBuf, String> {
    let (w, h, px) =
        super::levels::battle_thumbnail(&battle.setup.level, &battle.state, colour_blind);
    let picture = image::RgbaImage::from_raw(w, h, px).ok_or("the picture has no pixels")?;
    let mut bytes = std::io::Cursor::new(Vec::new());
    picture
        .write_to(&mut bytes, image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    let path = thumbnail_path(save);
    crate::rules::replay::write_atomic_bytes(&path, bytes.get_ref())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The most a thumbnail file may weigh.
const MAX_THUMBNAIL_BYTES: u64 = 1 << 20;

/// The thumbnail of the save at `save`, read for the Load screen: an error in words when it
/// is missing ("no picture") or cannot be read as one ("picture damaged"). Never panics.
pub fn read_thumbnail(save: &Path) -> Result<Image, String> {
    use std::io::Read;
    let path = thumbnail_path(save);
    let file = std::fs::File::open(&path).map_err(|_| "no picture".to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_THUMBNAIL_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| "picture damaged".to_string())?;
    if bytes.len() as u64 > MAX_THUMBNAIL_BYTES {
        return Err("picture damaged".into());
    }
    let picture = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map_err(|_| "picture damaged".to_string())?
        .to_rgba8();
    let (w, h) = picture.dimensions();
    if w == 0 || h == 0 || w > 4096 || h > 4096 {
        return Err("picture damaged".into());
    }
    Ok(super::levels::rgba_image(w, h, picture.into_raw()))
}

/// Writes the battle's `slot` in the save folder (a quick save notes how far it holds), and
/// its thumbnail beside it, in the palette of `colour_blind` (a thumbnail that cannot be
/// written leaves the save as it is).
pub fn save(battle: &mut Battle, slot: Slot, colour_blind: bool) -> Result<PathBuf, String> {
    let path = save_in(battle, &save_dir(), slot)?;
    if let Err(e) = write_thumbnail(battle, &path, colour_blind) {
        warn!("no thumbnail for {}: {e}", path.display());
    }
    if slot == Slot::Quick {
        battle.quick_saved = battle.commands.len();
    }
    Ok(path)
}

/// Reads a save and rebuilds its battle. Never panics; every problem is a message naming the
/// file, and the file is left as it is.
pub fn load(path: &Path) -> Result<Battle, String> {
    let resumed = format::load(path)?;
    let file = resumed.file;
    let setup = BattleSetup {
        level: resumed.level,
        path: file.level_path,
        seed: file.replay.seed,
        controls: file.controls,
    };
    // The commands replayed once already (checked); this builds the game's log from them.
    let mut battle = Battle::replay(setup, &file.replay.commands)
        .map_err(|e| format!("The save {} does not replay: {e}", path.display()))?;
    battle.id = file.battle;
    battle.quick_saved = battle.commands.len();
    Ok(battle)
}

/// Every round's autosave; not in a playtest (a battle started from the level editor on the
/// level as it stands, unsaved perhaps): Continue must not resume it.
fn autosave_each_round(
    mut battle: ResMut<Battle>,
    mut toasts: MessageWriter<Toast>,
    editor: Option<Res<super::editor::Editor>>,
    settings: Option<Res<super::battle::Settings>>,
) {
    if editor.is_some_and(|e| e.playtesting) {
        return;
    }
    let colour_blind = settings.is_some_and(|s| s.colour_blind);
    let round = battle.state.round;
    if round > battle.saved_round && battle.queue.is_empty() && battle.state.outcome.is_none() {
        battle.saved_round = round;
        if let Err(e) = save(&mut battle, Slot::Auto, colour_blind) {
            toasts.write(Toast::say(format!("Autosave failed: {e}")));
        }
    }
}

/// Autosaves the battle as the player leaves it, finished or not: a finished battle's save is
/// its replay (listed on the Load screen; Continue skips it). Its thumbnail is in the palette
/// of `colour_blind`.
pub fn save_on_quit(battle: &mut Battle, colour_blind: bool) -> Result<(), String> {
    save(battle, Slot::Auto, colour_blind).map(|_| ())
}
