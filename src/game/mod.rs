//! The Bevy game layer (feature `game`), one plugin per file in the bevy_new_2d style.
//!
//! Screens are [`Screen`] states: Title, Setup, Battle, Result. The battle is a [`battle::Battle`]
//! resource driven by commands from controllers (the player's input, the AI on the async
//! compute pool) and shown by animating the events the engine returns.
//!
//! - [`menu`]: the action menu as data (pure; no Bevy);
//! - [`battle`]: the battle, the command messages, undo, the event queue;
//! - [`ai_driver`]: AI sides thinking off the main thread;
//! - [`screens`]: Title, Setup, Result, a file each; [`hud`]: the battle's HUD, a file per panel
//!   (the pause menu is the [`hud::Pause`] sub-state); [`hotseat`]: hand-over;
//! - [`input`]: mouse and keyboard on the board; [`keys`]: the battle's keys, each declared
//!   once with its label and help; [`camera`]: fit, pan, zoom, follow;
//! - [`board`]: the terrain as a bevy_ecs_tilemap tilemap; [`units`]: tokens and animation;
//! - [`overlays`]: reach, path, threat, sight and cover, odds; [`labels`]: placing the text
//!   on the board clear of tokens and of each other;
//! - [`saves`]: autosave, quick save and load; [`levels`]: the level asset loader, hot reload
//!   and the catalog of `levels/`; [`level`]: loading one level file, its error screen;
//! - [`art`]: procedural art; [`ui`]: shared UI pieces; [`mod@shot`]: `fray shot`.
//!
//! Entry points: [`run`] (the `fray` command) and [`shot()`] (`fray shot`). [`core_plugin`] is
//! everything that needs no GPU, for headless tests.

pub mod ai_driver;
pub mod art;
pub mod battle;
pub mod board;
pub mod camera;
pub mod editor;
pub mod hotseat;
pub mod hud;
pub mod input;
pub mod keys;
pub mod labels;
pub mod level;
pub mod levels;
pub mod marks;
pub mod menu;
pub mod overlays;
pub mod replay;
pub mod saves;
pub mod screens;
pub mod shot;
pub mod ui;
pub mod units;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use bevy::winit::WinitSettings;
use bevy_ecs_tilemap::TilemapPlugin;

use battle::{Battle, BattleSetup, SideControl};
use level::LevelErrors;

/// The game's screens.
#[derive(States, Default, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Screen {
    #[default]
    Title,
    Setup,
    /// Every saved battle, newest first.
    Load,
    /// The level editor.
    Editor,
    Battle,
    Result,
    /// Window, UI scale, speeds, palette.
    Settings,
}

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

/// A battle to open at startup (`fray play LEVEL`, `fray shot`).
#[derive(Resource, Clone, Debug)]
pub struct StartBattle(pub BattleSetup);

/// Stay on the battle screen when the battle ends (`fray shot`).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct StayOnBattle;

/// Opens the game window: on the title screen, or straight into a battle on `level`. A level
/// that fails to load shows its errors in the window (and on stderr).
/// Opens the game straight into the level editor on `level` (`fray edit LEVEL`); its folder
/// is the one listed, so `[` and `]` step through its neighbours.
pub fn edit(level: PathBuf) -> ExitCode {
    let dir = level
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && d.is_dir())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let mut app = window_app_sized(&dir, settings_window_size());
    app.add_plugins(keep_settings);
    app.insert_resource(editor::OpenInEditor(level));
    exit_code(app.run())
}

pub fn run(level: Option<PathBuf>) -> ExitCode {
    // The open level's folder is the one listed and watched, so that a saved edit reloads it.
    let dir = level
        .as_deref()
        .and_then(Path::parent)
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .filter(|d| d.is_dir())
        .map_or_else(crate::rules::level::levels_dir, Path::to_path_buf);
    let mut app = window_app_sized(&dir, settings_window_size());
    app.add_plugins(keep_settings);
    if let Some(path) = level {
        match crate::rules::level::load_path(&path) {
            Ok(l) => {
                app.insert_resource(StartBattle(BattleSetup::new(l, Some(path))));
            }
            Err(d) => {
                let errors: Vec<String> = d.iter().map(|d| d.to_string()).collect();
                report(&errors);
                app.insert_resource(LevelErrors(errors));
            }
        }
    }
    exit_code(app.run())
}

/// The size the game's window opens at: the one the Settings keep (within sane bounds).
fn settings_window_size() -> (u32, u32) {
    let (w, h) = battle::Settings::load(&battle::Settings::path()).window_size;
    (w.clamp(640, 7680), h.clamp(400, 4320))
}

/// `fray shot LEVEL --out FILE.png [--overlay KIND --unit NAME] [--size WxH] [--layout JSON]`:
/// opens the level in battle view in a window of that size, saves a screenshot once the board
/// is drawn (and, with `--layout`, the screen rectangles of the HUD, see `shot`), and exits. Exits with 1 if the level
/// fails to load (the screenshot then shows its errors), if the overlay or unit is unknown,
/// or if no screenshot could be written.
pub fn shot(options: crate::cli::ShotOptions) -> ExitCode {
    let crate::cli::ShotOptions {
        level,
        out,
        overlay,
        unit,
        size,
        layout,
        editor,
        keys,
    } = options;
    let mut pressed = Vec::new();
    for name in &keys {
        match shot::parse_key(name) {
            Some(k) => pressed.push(k),
            None => {
                eprintln!(
                    "fray shot: unknown key '{name}'; use key names such as KeyU, Digit2, PageDown"
                );
                return ExitCode::from(2);
            }
        }
    }
    let loaded = crate::rules::level::load_path(&level);
    // A stale file must not pass for a fresh screenshot.
    if out.exists()
        && let Err(e) = std::fs::remove_file(&out)
    {
        eprintln!("{}: error: cannot replace the file: {e}", out.display());
        return ExitCode::FAILURE;
    }
    if let Some(layout) = &layout
        && layout.exists()
        && let Err(e) = std::fs::remove_file(layout)
    {
        eprintln!("{}: error: cannot replace the file: {e}", layout.display());
        return ExitCode::FAILURE;
    }
    let mut app = window_app_sized(
        &crate::rules::level::levels_dir(),
        size.unwrap_or((1280, 800)),
    );
    // Keep updating even when the (virtual) window is unfocused.
    app.insert_resource(WinitSettings::continuous())
        .insert_resource(StayOnBattle);
    let failed = match loaded {
        // The level editor on the file, whatever its problems (the editor lists them).
        _ if editor => {
            app.insert_resource(editor::OpenInEditor(level.clone()));
            false
        }
        Ok(l) => {
            let mut setup = BattleSetup::new(l, Some(level.clone()));
            // A still picture: nobody plays.
            setup.controls = vec![SideControl::Human; setup.controls.len()];
            if let Some(kind) = overlay {
                let Some(kind) = overlays::OverlayKind::parse(&kind) else {
                    eprintln!("fray shot: unknown overlay '{kind}'; use reach, threat or sight");
                    return ExitCode::from(2);
                };
                let name = unit.unwrap_or_default();
                let Some(id) = setup.level.file.units.iter().position(|u| u.name == name) else {
                    eprintln!(
                        "fray shot: --overlay needs --unit NAME with a unit of the level (got '{name}')"
                    );
                    return ExitCode::from(2);
                };
                app.insert_resource(overlays::ForcedOverlay {
                    kind,
                    unit: crate::rules::battle::UnitId(id as u16),
                });
            }
            app.insert_resource(StartBattle(setup));
            false
        }
        Err(d) => {
            let errors: Vec<String> = d.iter().map(|d| d.to_string()).collect();
            report(&errors);
            app.insert_resource(LevelErrors(errors));
            true
        }
    };
    app.insert_resource(shot::ShotRequest {
        out,
        failed,
        layout,
        keys: pressed,
    });
    exit_code(app.run())
}

/// The player's settings, read at the start and written when they change (the game only:
/// never `fray shot` nor the tests).
fn keep_settings(app: &mut App) {
    let path = battle::Settings::path();
    app.insert_resource(battle::Settings::load(&path))
        .insert_resource(screens::settings::FitWindowToScreen);
    app.add_systems(Last, move |settings: Res<battle::Settings>| {
        if settings.is_changed()
            && !settings.is_added()
            && let Err(e) = settings.store(&path)
        {
            warn!("the settings could not be saved to {}: {e}", path.display());
        }
    });
}

/// Prints a level's errors to stderr.
fn report(errors: &[String]) {
    for line in errors {
        eprintln!("{line}");
    }
}

fn exit_code(exit: AppExit) -> ExitCode {
    match exit {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// Registers the `levels://` asset source on `dir`; call before adding `AssetPlugin`.
pub fn register_levels_source(app: &mut App, dir: &Path) {
    // Bevy resolves a relative source path against the executable's folder, not the working
    // directory: make it absolute first.
    let dir = &std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let path = dir.to_string_lossy().into_owned();
    app.register_asset_source(
        levels::SOURCE,
        AssetSourceBuilder::platform_default(&path, None),
    )
    .insert_resource(levels::LevelsDir(dir.to_path_buf()));
}

/// The windowed app, listing (and watching) the levels in `levels`, with a window of `size`
/// logical pixels.
fn window_app_sized(levels: &Path, size: (u32, u32)) -> App {
    let mut app = App::new();
    register_levels_source(&mut app, levels);
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "Fray".into(),
                    resolution: size.into(),
                    ..default()
                }),
                // The editor asks before a close drops unsaved changes (editor::guard_close).
                close_when_requested: false,
                ..default()
            })
            .set(ImagePlugin::default_nearest()),
    )
    .add_plugins(TilemapPlugin);
    app.add_plugins((core_plugin, camera::plugin, shot::plugin))
        .add_systems(Update, editor::guard_close);
    app
}

/// Everything of the game that runs without a window or GPU: screens, the battle and its
/// controllers, the HUD, input, overlays, board and units, saves, levels. Needs `AssetPlugin`
/// (with the `levels://` source, see [`register_levels_source`]), `StatesPlugin`,
/// `InputPlugin` and `Assets<Image>`.
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
    app.init_state::<Screen>();
    app.add_plugins((
        art::plugin,
        ui::plugin,
        level::plugin,
        levels::plugin,
        board::plugin,
        battle::plugin,
        ai_driver::plugin,
        screens::plugin,
    ));
    app.add_plugins((
        hud::plugin,
        input::plugin,
        overlays::plugin,
        units::plugin,
        hotseat::plugin,
        saves::plugin,
        replay::plugin,
        labels::plugin,
        editor::plugin,
        marks::plugin,
    ));
    app.add_systems(Startup, open_requested_battle)
        .add_systems(
            Update,
            reload_open_level
                .in_set(AppSystems::Update)
                .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
        )
        .add_systems(Last, save_on_exit);
}

fn open_requested_battle(
    mut commands: Commands,
    start: Option<Res<StartBattle>>,
    edit: Option<Res<editor::OpenInEditor>>,
) {
    if let Some(start) = start {
        screens::start_battle(&mut commands, Battle::new(start.0.clone()));
        commands.remove_resource::<StartBattle>();
    } else if edit.is_some() {
        commands.set_state(Screen::Editor);
    }
}

/// A saved edit of the open level's file: a fresh battle on it, or its errors on screen.
/// A playtest is left alone: it plays the editor's text, saved or not, and a file's first
/// load arriving late (or an edit saved elsewhere) must not swap it for what the file holds.
fn reload_open_level(
    mut changed: MessageReader<levels::LevelChanged>,
    catalog: Res<levels::Catalog>,
    battle: Res<Battle>,
    editor: Option<Res<editor::Editor>>,
    mut commands: Commands,
    mut toasts: MessageWriter<battle::Toast>,
    errors: Query<Entity, With<ReloadErrors>>,
) {
    let playtest = editor.is_some_and(|e| e.playtesting);
    let Some(open) = battle.setup.path.clone().filter(|_| !playtest) else {
        changed.clear();
        return;
    };
    for c in changed.read().filter(|c| c.modified) {
        let same = c.path == open
            || (std::fs::canonicalize(&c.path).ok() == std::fs::canonicalize(&open).ok());
        if !same {
            continue;
        }
        let Some(entry) = catalog.find(&c.path) else {
            continue;
        };
        for e in &errors {
            commands.entity(e).despawn();
        }
        match &entry.level {
            Some(Ok(level)) => {
                // A save that changed nothing (or only touched the file) changes nothing.
                if ron::to_string(&level.file).ok() == ron::to_string(&battle.setup.level.file).ok()
                {
                    continue;
                }
                let mut setup = battle.setup.clone();
                setup.level = level.clone();
                if setup.controls.len() != level.file.sides.len() {
                    setup.controls = BattleSetup::new(level.clone(), None).controls;
                }
                let b = Battle::new(setup);
                commands.insert_resource(ai_driver::AiPlayers::for_battle(&b));
                commands.insert_resource(b);
                toasts.write(battle::Toast::say(
                    "The level was edited: a fresh battle on it".into(),
                ));
            }
            Some(Err(lines)) => {
                commands
                    .spawn((
                        Name::new("Level errors"),
                        ReloadErrors,
                        hud::HudPanel,
                        Interaction::default(),
                        DespawnOnExit(Screen::Battle),
                        Node {
                            position_type: PositionType::Absolute,
                            left: px(260),
                            right: px(370),
                            top: px(50),
                            flex_direction: FlexDirection::Column,
                            padding: UiRect::all(px(10)),
                            row_gap: px(4),
                            ..default()
                        },
                        BackgroundColor(Color::srgba(0.25, 0.06, 0.05, 0.95)),
                        ZIndex(30),
                    ))
                    .with_children(|p| {
                        p.spawn(ui::text(
                            "The edited level does not validate; the battle goes on with the last good version. Fix and save the file:",
                            15.0,
                            ui::ACCENT,
                        ));
                        for l in lines.iter().take(12) {
                            p.spawn(ui::text(l, 14.0, ui::TEXT));
                        }
                    });
            }
            None => {}
        }
    }
}

/// The error panel of a broken edit of the open level.
#[derive(Component)]
pub struct ReloadErrors;

/// Autosaves a battle in progress when the app exits.
fn save_on_exit(
    mut exits: MessageReader<AppExit>,
    battle: Option<ResMut<Battle>>,
    state: Option<Res<State<Screen>>>,
    stay: Option<Res<StayOnBattle>>,
    editor: Option<Res<editor::Editor>>,
    settings: Option<Res<battle::Settings>>,
) {
    if exits.read().count() == 0 || stay.is_some() || editor.is_some_and(|e| e.playtesting) {
        return;
    }
    if let (Some(mut b), Some(s)) = (battle, state)
        && *s.get() == Screen::Battle
        && let Err(e) = saves::save_on_quit(&mut b, settings.is_some_and(|s| s.colour_blind))
    {
        eprintln!("autosave on quit failed: {e}");
    }
}
