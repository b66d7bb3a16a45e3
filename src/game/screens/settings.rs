//! The Settings screen (Title, S) and the same rows in the pause menu: window mode, UI scale,
//! animation speed, AI pace, a colour-blind-safe palette and the window's size. Each row is a
//! button that cycles its setting (its number key does too); the [`Settings`] resource is
//! saved to `settings.ron` when it changes (`game::keep_settings`), and `apply_settings` puts the window mode and size,
//! the UI scale and the palette into effect.

use bevy::prelude::*;
use bevy::window::{MonitorSelection, PrimaryWindow, WindowMode};

use crate::game::Screen;
use crate::game::battle::Settings;
use crate::game::keys::DIGITS_1_TO_9;
use crate::game::ui::{self, UiAction, UiClick};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(OnEnter(Screen::Settings), spawn_settings)
        .add_systems(
            Update,
            settings_keys
                .run_if(in_state(Screen::Settings))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (setting_clicks, apply_settings, refresh_rows)
                .chain()
                .in_set(crate::game::AppSystems::Update),
        );
}

/// One setting of the Settings screen, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingKind {
    Window,
    UiScale,
    Speed,
    AiPace,
    Palette,
    WindowSize,
}

impl SettingKind {
    pub const ALL: [SettingKind; 6] = [
        SettingKind::Window,
        SettingKind::UiScale,
        SettingKind::Speed,
        SettingKind::AiPace,
        SettingKind::Palette,
        SettingKind::WindowSize,
    ];

    /// The row's text for the settings `s`: "Window: windowed".
    pub fn label(self, s: &Settings) -> String {
        match self {
            SettingKind::Window => format!(
                "Window: {}",
                if s.fullscreen {
                    "fullscreen"
                } else {
                    "windowed"
                }
            ),
            SettingKind::UiScale => format!("UI scale: {:.0}%", s.ui_scale * 100.0),
            SettingKind::WindowSize => {
                format!("Window size: {}x{}", s.window_size.0, s.window_size.1)
            }
            SettingKind::Speed => format!("Animation speed: x{}", s.speed),
            SettingKind::AiPace => format!("AI pace: {} s between AI moves", s.ai_pace),
            SettingKind::Palette => format!(
                "Side colours: {}",
                if s.colour_blind {
                    "colour-blind safe (blue and orange)"
                } else {
                    "standard"
                }
            ),
        }
    }

    /// Moves the setting on to its next value.
    pub fn cycle(self, s: &mut Settings) {
        match self {
            SettingKind::Window => s.fullscreen = !s.fullscreen,
            SettingKind::UiScale => s.ui_scale = Settings::cycle(&Settings::UI_SCALES, s.ui_scale),
            SettingKind::Speed => s.speed = Settings::cycle(&Settings::SPEEDS, s.speed),
            SettingKind::AiPace => s.ai_pace = Settings::cycle(&Settings::PACES, s.ai_pace),
            SettingKind::Palette => s.colour_blind = !s.colour_blind,
            SettingKind::WindowSize => s.window_size = Settings::next_window_size(s.window_size),
        }
    }
}

/// A settings row's button; its text follows the setting.
#[derive(Component)]
struct SettingRow(SettingKind);

/// Spawns the rows, each a button with its number key.
pub fn spawn_rows(p: &mut ChildSpawnerCommands, s: &Settings) {
    for (i, kind) in SettingKind::ALL.into_iter().enumerate() {
        p.spawn((
            ui::button(
                kind.label(s),
                Some(&(i + 1).to_string()),
                UiAction::Setting(kind),
            ),
            SettingRow(kind),
        ));
    }
}

/// The number keys of the rows: which setting the key pressed this frame cycles.
pub fn row_key(keys: &ButtonInput<KeyCode>) -> Option<SettingKind> {
    SettingKind::ALL
        .into_iter()
        .zip(DIGITS_1_TO_9)
        .find(|(_, k)| keys.just_pressed(*k))
        .map(|(kind, _)| kind)
}

#[derive(Component)]
struct SettingsRoot;

fn spawn_settings(mut commands: Commands, settings: Res<Settings>) {
    commands
        .spawn((
            Name::new("Settings"),
            SettingsRoot,
            DespawnOnExit(Screen::Settings),
            ui::screen_root(),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Settings", 40.0, ui::ACCENT));
            spawn_rows(p, &settings);
            p.spawn(ui::text(
                format!("Kept in {}", Settings::path().display()),
                13.0,
                ui::DIM,
            ));
            p.spawn(ui::button("Back", Some("Esc"), UiAction::Back));
        });
}

fn settings_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut clicks: MessageWriter<UiClick>,
    mut next: ResMut<NextState<Screen>>,
) {
    if let Some(kind) = row_key(&keys) {
        clicks.write(UiClick(UiAction::Setting(kind)));
    }
    if keys.just_pressed(KeyCode::Escape) || keys.just_pressed(KeyCode::KeyB) {
        next.set(Screen::Title);
    }
}

/// A row pressed, on any screen: its setting moves on. Back on the Settings screen returns to
/// the title.
fn setting_clicks(
    mut clicks: MessageReader<UiClick>,
    mut settings: ResMut<Settings>,
    screen: Res<State<Screen>>,
    mut next: ResMut<NextState<Screen>>,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::Setting(kind) => kind.cycle(&mut settings),
            UiAction::Back if *screen.get() == Screen::Settings => next.set(Screen::Title),
            _ => {}
        }
    }
}

/// How much larger than the UI scale setting the UI is drawn in a window of `size` (logical
/// pixels): 1 up to 1920x1080, then as the window grows past it (x1.33 at 2560x1440), up to
/// x2, so text and panels keep their share of a large window instead of shrinking in it.
pub fn window_factor(size: Vec2) -> f32 {
    (size.x / 1920.0).min(size.y / 1080.0).clamp(1.0, 2.0)
}

/// Puts the window mode, the UI scale (the setting times [`window_factor`]) and the palette
/// into effect (at the start, whenever they change and whenever the window's size changes the
/// factor).
fn apply_settings(
    settings: Res<Settings>,
    mut window: Query<&mut Window, With<PrimaryWindow>>,
    ui_scale: Option<ResMut<UiScale>>,
    mut commands: Commands,
    mut first: Local<bool>,
    mut last_factor: Local<f32>,
) {
    let factor = window
        .single()
        .map_or(1.0, |w| window_factor(Vec2::new(w.width(), w.height())));
    if !settings.is_changed() && *first && factor == *last_factor {
        return;
    }
    // The window size is put into effect when the setting changes, not at the start: the
    // game opens its window at it already, and `fray shot --size` keeps its own.
    let resize = *first && settings.is_changed();
    *first = true;
    *last_factor = factor;
    let scale = settings.ui_scale.clamp(0.5, 3.0) * factor;
    match ui_scale {
        Some(mut s) if s.0 != scale => s.0 = scale,
        Some(_) => {}
        None => commands.insert_resource(UiScale(scale)),
    }
    crate::game::units::set_colour_blind(settings.colour_blind);
    crate::game::hud::set_ui_scale(scale);
    if let Ok(mut w) = window.single_mut() {
        let mode = if settings.fullscreen {
            WindowMode::BorderlessFullscreen(MonitorSelection::Current)
        } else {
            WindowMode::Windowed
        };
        if w.mode != mode {
            w.mode = mode;
        }
        let (width, height) = settings.window_size;
        let size = Vec2::new(width as f32, height as f32);
        if resize && !settings.fullscreen && Vec2::new(w.width(), w.height()) != size {
            w.resolution.set(size.x, size.y);
        }
    }
}

/// The rows' texts follow the settings.
fn refresh_rows(
    settings: Res<Settings>,
    rows: Query<(&SettingRow, &Children)>,
    mut texts: Query<&mut Text>,
) {
    if !settings.is_changed() {
        return;
    }
    for (row, children) in &rows {
        for c in children {
            if let Ok(mut t) = texts.get_mut(*c) {
                let label = crate::game::menu::ascii(&format!(
                    "[{}] {}",
                    SettingKind::ALL
                        .iter()
                        .position(|k| *k == row.0)
                        .map_or(0, |i| i + 1),
                    row.0.label(&settings)
                ));
                if t.0 != label {
                    t.0 = label;
                }
            }
        }
    }
}
