//! The menu screens, a file each: [`title`] (New battle, Continue, Load, Quit), [`load`]
//! (every saved battle), [`setup`] (pick a
//! level, who plays each side, the seed), [`settings`] (window, UI scale, speeds, palette) and
//! [`result`] (who won; Board, Replay, Rematch, Back). The Battle
//! screen is the board and the HUD (see `hud`). Every button has a key.

pub mod load;
pub mod result;
pub mod settings;
pub mod setup;
pub mod title;

use bevy::prelude::*;

use super::Screen;
use super::ai_driver::AiPlayers;
use super::battle::Battle;

pub use setup::{SetupState, grid_words};

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((
        title::plugin,
        setup::plugin,
        load::plugin,
        result::plugin,
        settings::plugin,
    ));
}

/// Starts a battle: the resource, its AI players, and the Battle screen.
pub fn start_battle(commands: &mut Commands, battle: Battle) {
    commands.remove_resource::<crate::game::replay::Replay>();
    commands.insert_resource(AiPlayers::for_battle(&battle));
    commands.insert_resource(battle);
    commands.insert_resource(crate::game::hotseat::Opened);
    commands.set_state(Screen::Battle);
}

fn random_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Keep it short enough to read and type.
    (nanos ^ (nanos >> 17)).wrapping_mul(0x9e37_79b9_7f4a_7c15) % 1_000_000
}
