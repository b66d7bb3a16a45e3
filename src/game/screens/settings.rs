//! The Settings screen (Title, S) and the same rows in the pause menu: window mode, UI scale,
//! animation speed, AI pace, a colour-blind-safe palette and the window's size. Each row is a
//! button that cycles its setting (its number key does too); the [`Settings`] resource is
//! saved to `settings.ron` when it changes (`game::keep_settings`), and `apply_settings` puts the window mode and size,
//! the UI scale and the palette into effect.
//!
//! Beside the rows, the key table: every battle key the player may rebind ([`keys::SLOTS`])
//! with its key now. A click on one (or the arrows to choose it and Enter) waits for the next
//! key pressed, which replaces the old one unless another key has it (the table says why);
//! Esc stops waiting; 0 puts every key back.

use bevy::prelude::*;
use bevy::window::{
    Monitor, MonitorSelection, OnMonitor, PrimaryMonitor, PrimaryWindow, WindowMode, WindowPosition,
};

use crate::game::Screen;
use crate::game::battle::Settings;
use crate::game::keys::{self, DIGITS_1_TO_9};
use crate::game::ui::{self, UiAction, UiClick};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<KeyTable>()
        .init_resource::<ScreenSize>()
        .init_resource::<BackFromSettings>()
        .add_systems(
            Update,
            fit_to_screen.in_set(crate::game::AppSystems::TickTimers),
        )
        .add_systems(OnEnter(Screen::Settings), spawn_settings)
        .add_systems(
            Update,
            (settings_keys, scroll_settings)
                .run_if(in_state(Screen::Settings))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (
                setting_clicks,
                apply_settings,
                refresh_rows,
                refresh_key_table,
            )
                .chain()
                .in_set(crate::game::AppSystems::Update),
        );
}

/// Where the Settings screen's Back goes: the Title, or the battle it was opened from (the
/// pause menu's "All settings and keys").
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackFromSettings(pub Screen);

impl Default for BackFromSettings {
    fn default() -> Self {
        Self(Screen::Title)
    }
}

/// The logical size of the screen the game's window is on, once the windowing knows it
/// (`None` headless): the window size cycle offers only the sizes that fit on it.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct ScreenSize(pub Option<(u32, u32)>);

/// The game's own window (`fray`, `fray edit`, not `fray shot`) is kept on its screen: a
/// saved size larger than the screen is cut to the largest listed size that fits, centred.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct FitWindowToScreen;

/// Follows the screen the window is on ([`ScreenSize`]) and, with [`FitWindowToScreen`],
/// shrinks a window that does not fit on it (a size saved on a larger monitor).
fn fit_to_screen(
    mut windows: Query<(&mut Window, Option<&OnMonitor>), With<PrimaryWindow>>,
    monitors: Query<(&Monitor, Has<PrimaryMonitor>)>,
    fit: Option<Res<FitWindowToScreen>>,
    mut screen: ResMut<ScreenSize>,
) {
    let Ok((mut w, on)) = windows.single_mut() else {
        return;
    };
    let monitor = on
        .and_then(|o| monitors.get(o.0).ok())
        .or_else(|| monitors.iter().find(|(_, primary)| *primary))
        .or_else(|| monitors.iter().next());
    let Some((m, _)) = monitor else {
        return;
    };
    let scale = m.scale_factor.max(0.1);
    let size = (
        (f64::from(m.physical_width) / scale) as u32,
        (f64::from(m.physical_height) / scale) as u32,
    );
    if screen.0 != Some(size) {
        screen.0 = Some(size);
    }
    if fit.is_none() || w.mode != WindowMode::Windowed {
        return;
    }
    let now = (w.width().round() as u32, w.height().round() as u32);
    let fitted = Settings::fit_window(now, Some(size));
    if fitted != now {
        w.resolution.set(fitted.0 as f32, fitted.1 as f32);
        w.position = WindowPosition::Centered(MonitorSelection::Current);
    }
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

    /// The row's text for the settings `s`: "Window: windowed". The window size is the one
    /// the window has on `screen` (the screen's size, if known): a saved size larger than the
    /// screen is told as fitted, with the saved one after it.
    pub fn label(self, s: &Settings, screen: Option<(u32, u32)>) -> String {
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
                let (w, h) = Settings::fit_window(s.window_size, screen);
                if (w, h) == s.window_size {
                    format!("Window size: {w}x{h}")
                } else {
                    format!(
                        "Window size: {w}x{h} (to fit the screen; {}x{} saved)",
                        s.window_size.0, s.window_size.1
                    )
                }
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

    /// Moves the setting on to its next value (a window size: the next that fits on
    /// `screen`, see [`Settings::next_window_size`]).
    pub fn cycle(self, s: &mut Settings, screen: Option<(u32, u32)>) {
        match self {
            SettingKind::Window => s.fullscreen = !s.fullscreen,
            SettingKind::UiScale => s.ui_scale = Settings::cycle(&Settings::UI_SCALES, s.ui_scale),
            SettingKind::Speed => s.speed = Settings::cycle(&Settings::SPEEDS, s.speed),
            SettingKind::AiPace => s.ai_pace = Settings::cycle(&Settings::PACES, s.ai_pace),
            SettingKind::Palette => s.colour_blind = !s.colour_blind,
            SettingKind::WindowSize => {
                s.window_size = Settings::next_window_size(s.window_size, screen)
            }
        }
    }
}

/// A settings row's button; its text follows the setting.
#[derive(Component)]
struct SettingRow(SettingKind);

/// Spawns the rows, each a button with its number key.
pub fn spawn_rows(p: &mut ChildSpawnerCommands, s: &Settings, screen: Option<(u32, u32)>) {
    for (i, kind) in SettingKind::ALL.into_iter().enumerate() {
        p.spawn((
            ui::button(
                kind.label(s, screen),
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

/// The key table's state: the slot chosen (arrows), whether it waits for a key, and what the
/// last attempt said.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct KeyTable {
    pub selected: usize,
    pub waiting: bool,
    pub message: String,
}

/// A key table button: `keys::SLOTS[i]`.
#[derive(Component)]
struct KeySlotButton(usize);

/// The key table's message line.
#[derive(Component)]
struct KeyTableMessage;

/// What the key table says when nothing happened yet.
const KEY_TABLE_HELP: &str =
    "Click a key (or arrows and Enter), then press the new key. Esc stops; 0 resets all.";

fn spawn_settings(
    mut commands: Commands,
    settings: Res<Settings>,
    screen: Res<ScreenSize>,
    mut table: ResMut<KeyTable>,
) {
    *table = KeyTable::default();
    // A page that scrolls (wheel, PgUp / PgDn) when the window is too short for it (1024x640
    // at a 125% UI scale); centred when it fits (the auto margins).
    commands
        .spawn((
            Name::new("Settings"),
            SettingsRoot,
            DespawnOnExit(Screen::Settings),
            Node {
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                overflow: Overflow::scroll_y(),
                ..default()
            },
            ScrollPosition::default(),
            BackgroundColor(ui::BG),
        ))
        .with_children(|root| {
            root.spawn(Node {
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                row_gap: px(10),
                flex_shrink: 0.0,
                margin: UiRect::vertical(Val::Auto),
                padding: UiRect::vertical(px(8)),
                ..default()
            })
            .with_children(|p| settings_page(p, &settings, screen.0));
        });
}

/// The page of the Settings screen: the rows, the key table, where they are kept, Back.
fn settings_page(p: &mut ChildSpawnerCommands, settings: &Settings, screen: Option<(u32, u32)>) {
    p.spawn(ui::text("Settings", 36.0, ui::ACCENT));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        justify_content: JustifyContent::Center,
        column_gap: px(24),
        row_gap: px(8),
        max_width: percent(96),
        ..default()
    })
    .with_children(|row| {
        row.spawn(Node {
            flex_direction: FlexDirection::Column,
            align_items: AlignItems::Stretch,
            ..default()
        })
        .with_children(|p| spawn_rows(p, settings, screen));
        row.spawn((
            Name::new("Key table"),
            Node {
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Stretch,
                row_gap: px(2),
                max_width: px(560),
                ..default()
            },
        ))
        .with_children(|p| spawn_key_table(p, &settings.keys));
    });
    p.spawn(ui::text(
        format!("Kept in {}", Settings::path().display()),
        13.0,
        ui::DIM,
    ));
    p.spawn(ui::button("Back", Some("Esc"), UiAction::Back));
}

/// The wheel, PgUp and PgDn scroll the Settings page when it is taller than the window.
fn scroll_settings(
    wheel: Res<bevy::input::mouse::AccumulatedMouseScroll>,
    keys: Res<ButtonInput<KeyCode>>,
    mut roots: Query<(&mut ScrollPosition, &bevy::ui::ComputedNode), With<SettingsRoot>>,
) {
    let mut d = crate::game::ui::wheel_units(&wheel, 24.0);
    if keys.just_pressed(KeyCode::PageUp) {
        d += 200.0;
    }
    if keys.just_pressed(KeyCode::PageDown) {
        d -= 200.0;
    }
    if d == 0.0 {
        return;
    }
    for (mut pos, node) in &mut roots {
        let y = (pos.y - d).clamp(0.0, crate::game::ui::scroll_room(node));
        if pos.y != y {
            pos.y = y;
        }
    }
}

/// The key table: a heading, the slots in two columns, the message line and the reset button.
fn spawn_key_table(p: &mut ChildSpawnerCommands, bound: &keys::KeyBindings) {
    p.spawn(ui::text("Battle keys", 18.0, ui::ACCENT));
    p.spawn(Node {
        display: Display::Grid,
        grid_template_columns: RepeatedGridTrack::flex(2, 1.0),
        column_gap: px(4),
        row_gap: px(2),
        ..default()
    })
    .with_children(|g| {
        for i in 0..keys::SLOTS.len() {
            g.spawn((
                Button,
                UiAction::Rebind(i),
                KeySlotButton(i),
                ui::ButtonColour(ui::BUTTON),
                Node {
                    padding: UiRect::axes(px(8), px(3)),
                    border_radius: BorderRadius::all(px(3)),
                    ..default()
                },
                BackgroundColor(ui::BUTTON),
                children![ui::text(bound.slot_label(i), 13.0, ui::TEXT)],
            ));
        }
    });
    p.spawn((
        KeyTableMessage,
        ui::text(KEY_TABLE_HELP, 13.0, ui::DIM),
        Node {
            max_width: px(560),
            ..default()
        },
    ));
    p.spawn(ui::button(
        "Reset keys to defaults",
        Some("0"),
        UiAction::ResetKeys,
    ));
}

#[allow(clippy::too_many_arguments)]
fn settings_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut settings: ResMut<Settings>,
    mut table: ResMut<KeyTable>,
    mut clicks: MessageWriter<UiClick>,
    mut back: ResMut<BackFromSettings>,
    mut next: ResMut<NextState<Screen>>,
) {
    if table.waiting {
        // The first key pressed is the new key; Esc stops waiting.
        let Some(code) = keys.get_just_pressed().next().copied() else {
            return;
        };
        table.waiting = false;
        let slot = table.selected;
        let name = keys::SLOTS.get(slot).map_or("", |s| s.name);
        table.message = if code == KeyCode::Escape {
            format!("{name}: unchanged")
        } else {
            let mut bound = settings.keys.clone();
            match bound.bind(slot, code) {
                Ok(()) => {
                    settings.keys = bound;
                    format!("{name} is now {}", keys::key_name(code))
                }
                Err(why) => format!("Not bound: {why}"),
            }
        };
        return;
    }
    if let Some(kind) = row_key(&keys) {
        clicks.write(UiClick(UiAction::Setting(kind)));
    }
    if keys.just_pressed(KeyCode::Digit0) {
        clicks.write(UiClick(UiAction::ResetKeys));
    }
    // The arrows choose a key of the table (down the columns), Enter rebinds it.
    let n = keys::SLOTS.len();
    let step = |k: KeyCode, by: usize| keys.just_pressed(k).then_some(by);
    let moved = step(KeyCode::ArrowDown, 2)
        .or(step(KeyCode::ArrowUp, n - 2))
        .or(step(KeyCode::ArrowRight, 1))
        .or(step(KeyCode::ArrowLeft, n - 1));
    if let Some(by) = moved {
        table.selected = (table.selected + by) % n;
    }
    if keys.just_pressed(KeyCode::Enter) || keys.just_pressed(KeyCode::NumpadEnter) {
        clicks.write(UiClick(UiAction::Rebind(table.selected)));
    }
    if keys.just_pressed(KeyCode::Escape) || keys.just_pressed(KeyCode::KeyB) {
        next.set(std::mem::take(&mut *back).0);
    }
}

/// A row pressed, on any screen: its setting moves on. Back on the Settings screen returns to
/// the title.
fn setting_clicks(
    mut clicks: MessageReader<UiClick>,
    mut settings: ResMut<Settings>,
    mut table: ResMut<KeyTable>,
    screen: Res<State<Screen>>,
    monitor: Res<ScreenSize>,
    mut back: ResMut<BackFromSettings>,
    mut next: ResMut<NextState<Screen>>,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::Setting(kind) => kind.cycle(&mut settings, monitor.0),
            UiAction::Rebind(i) if *i < keys::SLOTS.len() => {
                table.selected = *i;
                table.waiting = true;
                table.message = format!(
                    "Press the new key for {} (Esc: keep {})",
                    keys::SLOTS[*i].name,
                    settings
                        .keys
                        .group_name(&keys::SLOTS[*i].key, keys::SLOTS[*i].group)
                );
            }
            UiAction::ResetKeys => {
                if settings.keys != keys::KeyBindings::default() {
                    settings.keys.reset();
                }
                table.waiting = false;
                table.message = "Every key is back to its default".into();
            }
            UiAction::Back if *screen.get() == Screen::Settings => {
                next.set(std::mem::take(&mut *back).0)
            }
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
    screen: Res<ScreenSize>,
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
    if let Ok(mut w) = window.single_mut() {
        let mode = if settings.fullscreen {
            WindowMode::BorderlessFullscreen(MonitorSelection::Current)
        } else {
            WindowMode::Windowed
        };
        if w.mode != mode {
            w.mode = mode;
        }
        // Never larger than the screen (a size saved on a larger monitor).
        let (width, height) = Settings::fit_window(settings.window_size, screen.0);
        let size = Vec2::new(width as f32, height as f32);
        if resize && !settings.fullscreen && Vec2::new(w.width(), w.height()) != size {
            w.resolution.set(size.x, size.y);
        }
    }
}

/// The rows' texts follow the settings.
fn refresh_rows(
    settings: Res<Settings>,
    screen: Res<ScreenSize>,
    rows: Query<(&SettingRow, &Children)>,
    mut texts: Query<&mut Text>,
) {
    if !settings.is_changed() && !screen.is_changed() {
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
                    row.0.label(&settings, screen.0)
                ));
                if t.0 != label {
                    t.0 = label;
                }
            }
        }
    }
}

/// The key table's buttons and message follow the bindings and the table's state: the chosen
/// key is lit, the one waiting says so.
#[allow(clippy::type_complexity)]
fn refresh_key_table(
    settings: Res<Settings>,
    table: Res<KeyTable>,
    mut buttons: Query<(&KeySlotButton, &Children, &mut ui::ButtonColour)>,
    mut message: Query<&mut Text, (With<KeyTableMessage>, Without<KeySlotButton>)>,
    mut texts: Query<&mut Text, Without<KeyTableMessage>>,
) {
    if !settings.is_changed() && !table.is_changed() {
        return;
    }
    for (b, children, mut colour) in &mut buttons {
        let label = if table.waiting && table.selected == b.0 {
            format!("{}: press a key...", keys::SLOTS[b.0].name)
        } else {
            settings.keys.slot_label(b.0)
        };
        let label = crate::game::menu::ascii(&label);
        for c in children {
            if let Ok(mut t) = texts.get_mut(*c)
                && t.0 != label
            {
                t.0 = label.clone();
            }
        }
        let want = if table.selected == b.0 {
            ui::BUTTON_ON
        } else {
            ui::BUTTON
        };
        if colour.0 != want {
            colour.0 = want;
        }
    }
    if let Ok(mut t) = message.single_mut() {
        let m = if table.message.is_empty() {
            KEY_TABLE_HELP.to_string()
        } else {
            crate::game::menu::ascii(&table.message)
        };
        if t.0 != m {
            t.0 = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved window size larger than the screen is told as the window has it, fitted, with
    /// the saved size after it (a 1024x640 screen said "1280x800" while the window was fitted).
    #[test]
    fn the_window_size_row_tells_the_size_the_window_has() {
        let s = Settings {
            window_size: (1280, 800),
            ..Settings::default()
        };
        let row = |screen| SettingKind::WindowSize.label(&s, screen);
        assert_eq!(row(None), "Window size: 1280x800");
        assert_eq!(row(Some((1920, 1080))), "Window size: 1280x800");
        let (w, h) = Settings::fit_window(s.window_size, Some((1024, 640)));
        assert!(w <= 1024 && h <= 640, "{w}x{h}");
        assert_eq!(
            row(Some((1024, 640))),
            format!("Window size: {w}x{h} (to fit the screen; 1280x800 saved)")
        );
    }
}
