//! `fray shot`: waits until the battle's board and units (or the level's error screen) have
//! been drawn for a few frames, saves a screenshot of the window, then exits. Active only when
//! a [`ShotRequest`] resource exists.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::ui::{CalculatedClip, ComputedNode, UiGlobalTransform};

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
    /// Where to write the layout (`--layout`), see [`Layout`].
    pub layout: Option<PathBuf>,
    /// Keys pressed one after another once the screen is drawn (`--keys`), each given time to
    /// settle before the next, and the last before the screenshot.
    pub keys: Vec<KeyCode>,
}

/// A key for `--keys` by its `KeyCode` name: any key a player may bind, the digits, and Tab,
/// Enter, Space, Delete and Escape.
pub fn parse_key(name: &str) -> Option<KeyCode> {
    use KeyCode as K;
    const MORE: [KeyCode; 6] = [K::Digit0, K::Tab, K::Enter, K::Space, K::Delete, K::Escape];
    super::keys::BINDABLE
        .iter()
        .chain(&super::keys::DIGITS_1_TO_9)
        .chain(&MORE)
        .copied()
        .find(|k| format!("{k:?}") == name)
}

/// What `fray shot --layout` writes: the window's size, the board's room (what the HUD
/// leaves), the drawn board, and every visible box on the screen, in logical pixels with y
/// down, each `[left, top, right, bottom]`, clipped to what shows of it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Layout {
    pub window: [f32; 2],
    pub board: [f32; 4],
    pub board_drawn: Option<[f32; 4]>,
    pub boxes: Vec<LayoutBox>,
}

/// One box of a [`Layout`].
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct LayoutBox {
    /// `panel` (a HUD panel), `button`, `text` (a UI text), `tooltip`, `label` (text on the
    /// board), `token` (a unit on the board), or `node` (any other UI box).
    pub kind: String,
    pub name: String,
    pub rect: [f32; 4],
    /// A clip (a scrolled or full panel) hides part of its height: a text cut in half.
    #[serde(default)]
    pub cut: bool,
}

fn arr(r: Rect) -> [f32; 4] {
    [r.min.x, r.min.y, r.max.x, r.max.y]
}

type NodeItem<'a> = (
    &'a ComputedNode,
    &'a UiGlobalTransform,
    &'a InheritedVisibility,
    Option<&'a CalculatedClip>,
    Option<&'a Text>,
    Has<Button>,
    Has<super::hud::HudPanel>,
    Has<super::hud::Tooltip>,
    Option<&'a Name>,
);

type LabelItem<'a> = (
    &'a Text2d,
    &'a TextFont,
    &'a GlobalTransform,
    &'a InheritedVisibility,
);

/// Collects the [`Layout`] of the screen as drawn last frame.
fn collect_layout(
    window: &Window,
    nodes: &Query<NodeItem>,
    labels: &Query<LabelItem, With<super::camera::BoardText>>,
    tokens: &Query<&GlobalTransform, With<UnitToken>>,
    camera: Option<(&Camera, &GlobalTransform)>,
    grid: Option<&super::board::BoardGrid>,
) -> Layout {
    let size = Vec2::new(window.width(), window.height());
    let k = 1.0 / window.scale_factor();
    let mut boxes = Vec::new();
    for (node, at, vis, clip, text, button, panel, tooltip, name) in nodes {
        if !vis.get() || node.size().x <= 0.0 || node.size().y <= 0.0 {
            continue;
        }
        let centre = at.translation;
        let mut r = Rect::from_center_size(centre, node.size());
        // A text is cut when its panel clips its box, either way.
        let mut cut = false;
        if let Some(c) = clip {
            r = r.intersect(c.clip);
            if r.width() <= 0.5 || r.height() <= 0.5 {
                continue;
            }
            cut |= r.height() < node.size().y - 1.0 || r.width() < node.size().x - 1.0;
        }
        let r = Rect::from_corners(r.min * k, r.max * k);
        let kind = if tooltip {
            "tooltip"
        } else if text.is_some() {
            "text"
        } else if button {
            "button"
        } else if panel {
            "panel"
        } else {
            "node"
        };
        let name = text
            .map(|t| t.0.clone())
            .or_else(|| name.map(|n| n.to_string()))
            .unwrap_or_default();
        boxes.push(LayoutBox {
            kind: kind.into(),
            name,
            rect: arr(r),
            cut,
        });
    }
    let mut board_drawn = None;
    if let (Some((camera, cam_at)), Some(grid)) = (camera, grid) {
        let to_screen = |world: Rect| {
            let a = camera
                .world_to_viewport(cam_at, world.min.extend(0.0))
                .ok()?;
            let b = camera
                .world_to_viewport(cam_at, world.max.extend(0.0))
                .ok()?;
            Some(Rect::from_corners(a, b))
        };
        let layout = super::board::BoardLayout::new(grid.0);
        board_drawn = to_screen(layout.bounds()).map(arr);
        let cell = Vec2::new(layout.tile_size.x, layout.tile_size.y);
        for t in tokens {
            let world = Rect::from_center_size(t.translation().truncate(), cell * 0.78);
            if let Some(r) = to_screen(world) {
                boxes.push(LayoutBox {
                    kind: "token".into(),
                    name: String::new(),
                    rect: arr(r),
                    cut: false,
                });
            }
        }
        for (text, font, at, vis) in labels {
            let FontSize::Px(px) = font.font_size else {
                continue;
            };
            let (scale, _, pos) = at.to_scale_rotation_translation();
            if !vis.get() || scale.x <= 0.0 || text.0.is_empty() {
                continue;
            }
            let world = Rect::from_center_size(
                pos.truncate(),
                super::labels::text_size(&text.0, px) * scale.x,
            );
            if let Some(r) = to_screen(world) {
                boxes.push(LayoutBox {
                    kind: "label".into(),
                    name: text.0.clone(),
                    rect: arr(r),
                    cut: false,
                });
            }
        }
    }
    Layout {
        window: size.to_array(),
        board: arr(super::hud::HudLayout::for_window(size).board()),
        board_drawn,
        boxes,
    }
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
    /// Presses and releases of `--keys` sent so far (two a key).
    sent: usize,
}

#[allow(clippy::too_many_arguments)]
fn take_screenshot(
    mut commands: Commands,
    request: Res<ShotRequest>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    nodes: Query<NodeItem>,
    labels: Query<LabelItem, With<super::camera::BoardText>>,
    token_at: Query<&GlobalTransform, With<UnitToken>>,
    camera: Query<(&Camera, &GlobalTransform), With<super::camera::MainCamera>>,
    grids: Query<&super::board::BoardGrid>,
    boards: Query<(), With<Board>>,
    tokens: Query<(), With<UnitToken>>,
    editor_cells: Query<(), With<super::editor::EditorCell>>,
    errors: Option<Res<LevelErrors>>,
    mut progress: Local<Progress>,
    mut exit: MessageWriter<AppExit>,
    mut input: MessageWriter<bevy::input::keyboard::KeyboardInput>,
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
    let ready =
        (!boards.is_empty() && !tokens.is_empty()) || !editor_cells.is_empty() || errors.is_some();
    if !ready {
        return;
    }
    progress.settled += 1;
    if progress.settled < SETTLE_FRAMES {
        return;
    }
    // `--keys`: a press, a release the next frame, then time to settle before the next.
    if let Some(&key_code) = request.keys.get(progress.sent / 2) {
        let press = progress.sent.is_multiple_of(2);
        input.write(bevy::input::keyboard::KeyboardInput {
            key_code,
            logical_key: bevy::input::keyboard::Key::Unidentified(
                bevy::input::keyboard::NativeKey::Unidentified,
            ),
            state: if press {
                bevy::input::ButtonState::Pressed
            } else {
                bevy::input::ButtonState::Released
            },
            text: None,
            repeat: false,
            window: Entity::PLACEHOLDER,
        });
        progress.sent += 1;
        if !press {
            progress.settled = 0;
        }
        return;
    }
    progress.requested = true;
    if let Some(path) = &request.layout {
        let Ok(window) = window.single() else {
            error!("no window to measure; no layout");
            exit.write(AppExit::error());
            return;
        };
        let layout = collect_layout(
            window,
            &nodes,
            &labels,
            &token_at,
            camera.single().ok(),
            grids.iter().next(),
        );
        let written = serde_json::to_string_pretty(&layout)
            .map_err(|e| e.to_string())
            .and_then(|j| std::fs::write(path, j).map_err(|e| e.to_string()));
        if let Err(e) = written {
            error!("{}: cannot write the layout: {e}", path.display());
            exit.write(AppExit::error());
            return;
        }
    }
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
