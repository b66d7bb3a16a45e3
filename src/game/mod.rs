//! The Bevy game layer (feature `game`), one plugin per file in the bevy_new_2d style.
//!
//! - [`art`]: procedural terrain tiles and unit discs;
//! - [`level`]: the level on show ([`level::BoardLevel`]) and its error screen;
//! - [`board`]: the terrain as a bevy_ecs_tilemap tilemap, square or hex;
//! - [`units`]: unit tokens;
//! - [`camera`]: fit, pan, zoom;
//! - `shot`: the screenshot behind `fray shot`.
//!
//! Entry points: [`run`] (the `fray` command) and [`shot`] (`fray shot`). [`core_plugin`] is
//! everything that needs no GPU, for headless tests.

pub mod art;
pub mod board;
pub mod camera;
pub mod level;
mod shot;
pub mod units;

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy::winit::WinitSettings;
use bevy_ecs_tilemap::TilemapPlugin;

use level::{BoardLevel, LevelErrors};

/// The game's `Update` systems, in this order.
#[derive(SystemSet, Debug, Clone, Copy, Eq, PartialEq, Hash, PartialOrd, Ord)]
pub enum AppSystems {
    /// Tick timers.
    TickTimers,
    /// Record player input.
    RecordInput,
    /// Everything else.
    Update,
}

/// Opens the game window on a level file, or on the built-in demo level when `level` is
/// `None`. A level that fails to load shows its errors in the window (and on stderr).
pub fn run(level: Option<PathBuf>) -> ExitCode {
    let loaded = match &level {
        Some(path) => level::load(path),
        None => Ok(level::demo(level::demo_topology())),
    };
    report(&loaded);
    exit_code(window_app(loaded).run())
}

/// `fray shot LEVEL --out FILE.png`: opens the window on a level, saves a screenshot once the
/// board is drawn, and exits. Exits with 1 if the level fails to load (the screenshot then
/// shows its errors) or if no screenshot could be written.
pub fn shot(level: PathBuf, out: PathBuf) -> ExitCode {
    let loaded = level::load(&level);
    report(&loaded);
    let failed = loaded.is_err();
    // A stale file must not pass for a fresh screenshot.
    if out.exists()
        && let Err(e) = std::fs::remove_file(&out)
    {
        eprintln!("{}: error: cannot replace the file: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let mut app = window_app(loaded);
    // Keep updating even when the (virtual) window is unfocused.
    app.insert_resource(WinitSettings::continuous())
        .insert_resource(shot::ShotRequest { out, failed });
    exit_code(app.run())
}

/// Prints a level's errors to stderr.
fn report(loaded: &Result<BoardLevel, Vec<String>>) {
    if let Err(errors) = loaded {
        for line in errors {
            eprintln!("{line}");
        }
    }
}

fn exit_code(exit: AppExit) -> ExitCode {
    match exit {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// The windowed app showing a level, or its errors.
fn window_app(loaded: Result<BoardLevel, Vec<String>>) -> App {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "Fray".into(),
                    resolution: (1280, 800).into(),
                    ..default()
                }),
                ..default()
            })
            .set(ImagePlugin::default_nearest()),
    )
    .add_plugins(TilemapPlugin);
    match loaded {
        Ok(level) => app.insert_resource(level),
        Err(errors) => app.insert_resource(LevelErrors(errors)),
    };
    app.add_plugins((core_plugin, camera::plugin, shot::plugin));
    app
}

/// Everything of the game that runs without a window or GPU: the art (needs
/// `Assets<Image>`), the level error screen, the board and the units. Insert a
/// [`BoardLevel`] resource before the first update to show a level.
pub fn core_plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (
            AppSystems::TickTimers,
            AppSystems::RecordInput,
            AppSystems::Update,
        )
            .chain(),
    );
    app.add_plugins((art::plugin, level::plugin, board::plugin, units::plugin));
}
