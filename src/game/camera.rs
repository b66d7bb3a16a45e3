//! The camera: fits the board to the window when it appears (and on `Home`), leaving room for
//! the HUD panels; pans with a right- or middle-button drag and with Shift + arrow keys or
//! WASD (the plain keys move the cell cursor, which the camera follows); zooms with the mouse
//! wheel (towards the cursor) or `+`/`-`.

use bevy::camera::ScalingMode;
use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::AppSystems;
use super::board::{Board, BoardGrid, BoardLayout};

/// Public so headless tests can drive it (it needs `InputPlugin`'s resources and `Time`;
/// without a primary window, drags and cursor-anchored zoom do nothing).
pub fn plugin(app: &mut App) {
    // Sent by the window plugin; registered here too so headless apps run the camera.
    app.add_message::<bevy::window::WindowResized>();
    app.add_systems(Startup, spawn_camera);
    app.add_systems(
        Update,
        (
            fit_new_board,
            refit,
            pan_with_keys,
            pan_with_drag,
            zoom,
            follow_cursor,
        )
            .chain()
            .in_set(AppSystems::Update),
    );
    // After Update's commands are applied (labels spawned this frame included), before
    // transforms propagate: no label is ever drawn at the unreadable size for a frame.
    app.add_systems(
        PostUpdate,
        keep_board_text_legible
            .in_set(LegibleText)
            .before(bevy::transform::TransformSystems::Propagate),
    );
}

/// The system that scales board text for the zoom (`PostUpdate`); board labels are placed
/// after it (`labels`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LegibleText;

/// Text drawn on the board in world space (cell costs, the cursor's cover and odds, unit
/// names, floating damage numbers). It is sized for the cell, so on a large map fitted to the
/// window it would shrink with the board to a few pixels; `keep_board_text_legible` scales
/// it up so it never shows smaller than [`MIN_TEXT_PX`], then by the UI scale
/// ([`board_text_scale`]).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct BoardText;

/// The smallest height, in logical pixels on screen, of board text.
pub const MIN_TEXT_PX: f32 = 12.0;

/// How much board text of `font_px` world units must be scaled to show at least
/// [`MIN_TEXT_PX`] high when the camera shows `world_per_px` world units per logical pixel.
/// Never below 1: zoomed in, text grows with the board.
pub fn legible_scale(font_px: f32, world_per_px: f32) -> f32 {
    if font_px <= 0.0 || !world_per_px.is_finite() {
        return 1.0;
    }
    (MIN_TEXT_PX * world_per_px / font_px).max(1.0)
}

/// The scale of board text of `font_px` world units with the UI scale `ui` (the setting
/// times the window's factor, Bevy's `UiScale`): [`legible_scale`] times `ui`, so board labels,
/// costs, names and floating numbers grow and shrink with the rest of the UI.
pub fn board_text_scale(font_px: f32, world_per_px: f32, ui: f32) -> f32 {
    let ui = if ui.is_finite() && ui > 0.0 { ui } else { 1.0 };
    legible_scale(font_px, world_per_px) * ui
}

fn keep_board_text_legible(
    camera: Query<&Projection, With<MainCamera>>,
    ui_scale: Option<Res<UiScale>>,
    mut texts: Query<
        (
            &TextFont,
            &mut Transform,
            Option<&crate::game::labels::BoardLabel>,
        ),
        With<BoardText>,
    >,
) {
    let Ok(Projection::Orthographic(ortho)) = camera.single() else {
        return;
    };
    // With a window the projection is in window pixels times `scale`; without one (headless
    // tests) there is no screen size to keep.
    if !matches!(ortho.scaling_mode, ScalingMode::WindowSize) {
        return;
    }
    let ui = ui_scale.as_ref().map_or(1.0, |s| s.0);
    for (font, mut transform, label) in &mut texts {
        let FontSize::Px(px) = font.font_size else {
            continue;
        };
        // A cell's movement cost sits in its corner and is sized for the cell: grown with the
        // UI it would spill into the next cells (and under the tooltip); it stays legible.
        let cost = label.is_some_and(|l| l.kind == crate::game::labels::LabelKind::Cost);
        let k = board_text_scale(px, ortho.scale, if cost { 1.0 } else { ui });
        if (transform.scale.x - k).abs() > 1e-3 {
            transform.scale = Vec3::new(k, k, 1.0);
        }
    }
}

/// The one game camera.
#[derive(Component, Debug, Clone, Copy)]
pub struct MainCamera;

/// The board's extent in world space, kept for re-fitting.
#[derive(Resource, Debug, Clone, Copy)]
pub struct BoardView {
    pub bounds: Rect,
}

/// Room left around the board when it is fitted, as a fraction of its size.
const MARGIN: f32 = 0.03;
/// Zoom limits relative to the fitted view (`scale` of the projection).
const MIN_SCALE: f32 = 0.1;
const MAX_SCALE: f32 = 4.0;

fn spawn_camera(mut commands: Commands) {
    commands.spawn((
        Name::new("Camera"),
        MainCamera,
        Camera2d,
        Camera {
            clear_color: ClearColorConfig::Custom(Color::srgb(0.11, 0.1, 0.12)),
            ..default()
        },
    ));
}

/// Frames a rectangle: centre the camera on it and scale so all of it shows with a margin. With
/// a window, the board goes in the room the HUD leaves ([`super::hud::HudLayout`]); without one,
/// it fills the view whatever its shape.
fn frame(
    bounds: Rect,
    transform: &mut Transform,
    projection: &mut Projection,
    window: Option<&Window>,
    folded: super::battle::Collapsed,
    scale: f32,
) {
    if let Some(w) = window
        && w.width() > 0.0
        && w.height() > 0.0
        && let Projection::Orthographic(ortho) = projection
    {
        let (l, r, t, b) = super::hud::HudLayout::of_panels(Some(w), folded, scale).screen_insets();
        let free = Vec2::new(
            (w.width() - l - r).max(100.0),
            (w.height() - t - b).max(100.0),
        );
        let size = bounds.size() * (1.0 + 2.0 * MARGIN);
        let k = (size.x / free.x).max(size.y / free.y).max(0.01);
        ortho.scaling_mode = ScalingMode::WindowSize;
        ortho.scale = k;
        // Shift so the board's centre lands in the middle of the free room.
        transform.translation.x = bounds.center().x - (l - r) / 2.0 * k;
        transform.translation.y = bounds.center().y + (t - b) / 2.0 * k;
        return;
    }
    let size = bounds.size() * (1.0 + 2.0 * MARGIN);
    transform.translation.x = bounds.center().x;
    transform.translation.y = bounds.center().y;
    if let Projection::Orthographic(ortho) = projection {
        ortho.scaling_mode = ScalingMode::AutoMin {
            min_width: size.x.max(1.0),
            min_height: size.y.max(1.0),
        };
        ortho.scale = 1.0;
    }
}

/// The side panels folded on this screen: the battle's (the player's setting), none elsewhere.
fn folded_here(
    screen: Option<&State<super::Screen>>,
    settings: &super::battle::Settings,
) -> super::battle::Collapsed {
    match screen.map(|s| *s.get()) {
        Some(super::Screen::Battle) => settings.collapsed,
        _ => Default::default(),
    }
}

fn fit_new_board(
    mut commands: Commands,
    settings: Res<super::battle::Settings>,
    screen: Option<Res<State<super::Screen>>>,
    boards: Query<&BoardGrid, Added<Board>>,
    window: Query<&Window, With<PrimaryWindow>>,
    ui: Option<Res<UiScale>>,
    mut camera: Query<(&mut Transform, &mut Projection), With<MainCamera>>,
) {
    let Some(grid) = boards.iter().last() else {
        return;
    };
    let bounds = BoardLayout::new(grid.0).bounds();
    commands.insert_resource(BoardView { bounds });
    for (mut transform, mut projection) in &mut camera {
        frame(
            bounds,
            &mut transform,
            &mut projection,
            window.single().ok(),
            folded_here(screen.as_deref(), &settings),
            super::hud::ui_scale(ui.as_deref()),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn refit(
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<super::battle::Settings>,
    screen: Option<Res<State<super::Screen>>>,
    mut last_folded: Local<Option<super::battle::Collapsed>>,
    view: Option<Res<BoardView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut resized: MessageReader<bevy::window::WindowResized>,
    ui_scale: Option<Res<UiScale>>,
    mut camera: Query<(&mut Transform, &mut Projection), With<MainCamera>>,
) {
    let Some(view) = view else {
        return;
    };
    // A new UI scale changes the panels' room as a new window size does, and so does a panel
    // folded or opened.
    let rescaled = ui_scale
        .as_ref()
        .is_some_and(|s| s.is_changed() && !s.is_added());
    let folded = folded_here(screen.as_deref(), &settings);
    let refolded = *last_folded != Some(folded) && last_folded.is_some();
    *last_folded = Some(folded);
    let resized = resized.read().count() > 0 || rescaled || refolded;
    if settings.keys.just_pressed(&super::keys::FIT, &keys) || resized {
        for (mut transform, mut projection) in &mut camera {
            frame(
                view.bounds,
                &mut transform,
                &mut projection,
                window.single().ok(),
                folded,
                super::hud::ui_scale(ui_scale.as_deref()),
            );
        }
    }
}

/// Keeps the keyboard's cell cursor in view: when it leaves the room the HUD leaves, the
/// camera moves just enough to bring it back.
fn follow_cursor(
    mut moved: MessageReader<super::input::CursorMoved>,
    settings: Res<super::battle::Settings>,
    screen: Option<Res<State<super::Screen>>>,
    boards: Query<&BoardGrid>,
    window: Query<&Window, With<PrimaryWindow>>,
    ui: Option<Res<UiScale>>,
    mut camera: Query<(&Camera, &GlobalTransform, &mut Transform), With<MainCamera>>,
) {
    let Some(super::input::CursorMoved(cell)) = moved.read().last().copied() else {
        return;
    };
    let Some(grid) = boards.iter().next() else {
        return;
    };
    let Some(target) = BoardLayout::new(grid.0).cell_center(cell) else {
        return;
    };
    let Ok(window) = window.single() else {
        return;
    };
    let (l, r, t, b) = super::hud::HudLayout::of_panels(
        Some(window),
        folded_here(screen.as_deref(), &settings),
        super::hud::ui_scale(ui.as_deref()),
    )
    .screen_insets();
    for (camera, global, mut transform) in &mut camera {
        let Ok(screen) = camera.world_to_viewport(global, target.extend(0.0)) else {
            continue;
        };
        let margin = 48.0;
        let min = Vec2::new(l + margin, t + margin);
        let max = Vec2::new(window.width() - r - margin, window.height() - b - margin);
        let clamped = screen.clamp(min, max.max(min));
        let delta_px = screen - clamped;
        if delta_px == Vec2::ZERO {
            continue;
        }
        let (Ok(a), Ok(c)) = (
            camera.viewport_to_world_2d(global, clamped),
            camera.viewport_to_world_2d(global, screen),
        ) else {
            continue;
        };
        transform.translation += (c - a).extend(0.0);
    }
}

/// World units per logical pixel of the window, for a camera's current projection.
fn world_per_pixel(projection: &Projection, window: &Window) -> f32 {
    match projection {
        Projection::Orthographic(ortho) if window.width() > 0.0 => {
            ortho.area.width() / window.width()
        }
        _ => 1.0,
    }
}

fn pan_with_keys(
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<super::battle::Settings>,
    time: Res<Time>,
    battle: Option<Res<super::battle::Battle>>,
    mut camera: Query<(&mut Transform, &Projection), With<MainCamera>>,
) {
    // In a battle the plain keys move the cell cursor; Shift pans.
    let shift = settings.keys.pressed(&super::keys::PAN, &keys);
    if battle.is_some() && !shift {
        return;
    }
    let mut dir = Vec2::ZERO;
    // Left, right, up, down.
    for (group, d) in [Vec2::NEG_X, Vec2::X, Vec2::Y, Vec2::NEG_Y]
        .into_iter()
        .enumerate()
    {
        if settings
            .keys
            .group_pressed(&super::keys::CURSOR, &keys, group)
        {
            dir += d;
        }
    }
    if dir == Vec2::ZERO {
        return;
    }
    for (mut transform, projection) in &mut camera {
        // Half a screen per second, whatever the zoom.
        let Projection::Orthographic(ortho) = projection else {
            continue;
        };
        let speed = 0.5 * ortho.area.height();
        let step = dir.normalize() * speed * time.delta_secs();
        transform.translation += step.extend(0.0);
    }
}

fn pan_with_drag(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut camera: Query<(&mut Transform, &Projection), With<MainCamera>>,
    mut last: Local<Option<Vec2>>,
) {
    let dragging = buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Middle);
    let Ok(window) = window.single() else {
        return;
    };
    let cursor = window.cursor_position();
    if !dragging {
        *last = None;
        return;
    }
    if let (Some(prev), Some(now)) = (*last, cursor) {
        let delta = now - prev;
        for (mut transform, projection) in &mut camera {
            let k = world_per_pixel(projection, window);
            // The board follows the cursor: screen y grows down, world y up.
            transform.translation.x -= delta.x * k;
            transform.translation.y += delta.y * k;
        }
    }
    *last = cursor;
}

fn zoom(
    scroll: Res<AccumulatedMouseScroll>,
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<super::battle::Settings>,
    over_ui: Option<Res<super::input::PointerOverUi>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut camera: Query<
        (&Camera, &GlobalTransform, &mut Transform, &mut Projection),
        With<MainCamera>,
    >,
) {
    // Over a HUD panel the wheel scrolls the panel instead.
    let lines = match scroll.unit {
        _ if over_ui.is_some_and(|o| o.0) => 0.0,
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
    };
    let mut steps = lines;
    if settings
        .keys
        .group_just_pressed(&super::keys::ZOOM, &keys, 0)
    {
        steps += 1.0;
    }
    if settings
        .keys
        .group_just_pressed(&super::keys::ZOOM, &keys, 1)
    {
        steps -= 1.0;
    }
    if steps == 0.0 {
        return;
    }
    let cursor = window.single().ok().and_then(|w| w.cursor_position());
    for (camera, global, mut transform, mut projection) in &mut camera {
        let Projection::Orthographic(ortho) = &mut *projection else {
            continue;
        };
        let old = ortho.scale;
        let new = (old * 1.15f32.powf(-steps)).clamp(MIN_SCALE, MAX_SCALE);
        ortho.scale = new;
        // Keep the world point under the cursor where it is.
        if let Some(anchor) = cursor.and_then(|c| camera.viewport_to_world_2d(global, c).ok()) {
            let here = transform.translation.truncate();
            let moved = anchor + (here - anchor) * (new / old);
            transform.translation.x = moved.x;
            transform.translation.y = moved.y;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_text_is_scaled_up_only_when_it_would_show_below_the_minimum() {
        // A 12.8-unit label with the camera at 2.1 world units per pixel shows 6.1 px high:
        // scaled so it shows at the minimum.
        let k = legible_scale(12.8, 2.1);
        assert!((12.8 * k / 2.1 - MIN_TEXT_PX).abs() < 1e-3, "{k}");
        // Zoomed in (0.5 units per pixel) it shows 25.6 px: left alone, never shrunk.
        assert_eq!(legible_scale(12.8, 0.5), 1.0);
        // Degenerate inputs leave the text as it is.
        assert_eq!(legible_scale(0.0, 2.0), 1.0);
        assert_eq!(legible_scale(12.8, f32::NAN), 1.0);
        // The UI scale multiplies it: at 150% text is half as large again, at 75% smaller
        // than the 12-pixel floor, as the rest of the UI.
        assert_eq!(board_text_scale(12.8, 0.5, 1.5), 1.5);
        assert!((board_text_scale(12.8, 2.1, 1.25) - 1.25 * k).abs() < 1e-5);
        assert_eq!(board_text_scale(12.8, 0.5, 0.75), 0.75);
        assert_eq!(board_text_scale(12.8, 0.5, f32::NAN), 1.0);
    }
}
