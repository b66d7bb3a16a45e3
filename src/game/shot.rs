//! `fray shot`: waits until the battle's board and units (or the level's error screen) have
//! been drawn for a few frames, saves a screenshot of the window, then exits. Active only when
//! a [`ShotRequest`] resource exists.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

use super::AppSystems;
use super::board::Board;
use super::level::LevelErrors;
use super::units::UnitToken;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        take_screenshot
            .run_if(resource_exists::<ShotRequest>)
            .in_set(AppSystems::Update),
    );
    app.add_systems(Update, screenshot_key.in_set(AppSystems::Update));
}

/// F12 saves a screenshot of the window as `fray-screenshot-N.png` in the working directory
/// (or in `$FRAY_SCREENSHOT_DIR`), N counting up from the first free number.
fn screenshot_key(mut commands: Commands, keys: Res<ButtonInput<KeyCode>>) {
    if !keys.just_pressed(KeyCode::F12) {
        return;
    }
    let dir =
        std::env::var_os("FRAY_SCREENSHOT_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let Some(path) = (1..10_000)
        .map(|n| dir.join(format!("fray-screenshot-{n}.png")))
        .find(|p| !p.exists())
    else {
        return;
    };
    info!("screenshot to {}", path.display());
    commands
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(path));
}

/// Take one screenshot to `out`, then exit (with an error code if `failed`, or if the file
/// was not written).
#[derive(Resource, Debug, Clone)]
pub struct ShotRequest {
    pub out: PathBuf,
    /// The level failed to load: the screenshot shows its errors and the exit code is 1.
    pub failed: bool,
}

/// Frames to wait once there is something to show: the tilemap's texture array is built a
/// frame or two after the tilemap spawns, text needs a layout pass, the HUD a frame more.
const SETTLE_FRAMES: u32 = 12;
/// Give up if nothing shows after this many frames.
const TIMEOUT_FRAMES: u32 = 1200;

#[derive(Default)]
struct Progress {
    frames: u32,
    settled: u32,
    requested: bool,
}

fn take_screenshot(
    mut commands: Commands,
    request: Res<ShotRequest>,
    boards: Query<(), With<Board>>,
    tokens: Query<(), With<UnitToken>>,
    errors: Option<Res<LevelErrors>>,
    mut progress: Local<Progress>,
    mut exit: MessageWriter<AppExit>,
) {
    if progress.requested {
        return;
    }
    progress.frames += 1;
    if progress.frames > TIMEOUT_FRAMES {
        error!("no board after {TIMEOUT_FRAMES} frames; no screenshot");
        exit.write(AppExit::error());
        return;
    }
    let ready = (!boards.is_empty() && !tokens.is_empty()) || errors.is_some();
    if !ready {
        return;
    }
    progress.settled += 1;
    if progress.settled < SETTLE_FRAMES {
        return;
    }
    progress.requested = true;
    let out = request.out.clone();
    let failed = request.failed;
    let mut save = save_to_disk(out.clone());
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            save(captured);
            let written = out.is_file();
            if written {
                info!("screenshot saved to {}", out.display());
            } else {
                error!("the screenshot was not written to {}", out.display());
            }
            exit.write(if written && !failed {
                AppExit::Success
            } else {
                AppExit::error()
            });
        },
    );
}
