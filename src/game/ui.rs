//! Shared UI pieces: colours, text and button bundles, and [`UiAction`]s. A button carries
//! the action it stands for; pressing it (mouse) and its hotkey (keyboard) both send the same
//! [`UiClick`] message, so every screen can be played with either, and tests can press
//! buttons by setting their [`Interaction`].

use bevy::prelude::*;

use crate::rules::battle::UnitId;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<UiClick>()
        .add_systems(
            Update,
            (press_buttons, hover_colours).in_set(super::AppSystems::RecordInput),
        )
        .add_systems(Update, place_more_lines.in_set(super::AppSystems::Update))
        .add_systems(
            PostUpdate,
            // After the clips are worked out (`UiSystems::PostLayout`), not only the layout:
            // a line spawned this frame has no clip before then and showed cut for a frame,
            // and the log, spawned anew at each event, showed a half line at its top nearly
            // all the time the AI played.
            hide_cut
                .after(bevy::ui::UiSystems::PostLayout)
                .before(bevy::camera::visibility::VisibilitySystems::VisibilityPropagate),
        );
}

/// A line of a clipped list (the combat log, a long action menu) that shows only whole: when
/// its panel's clip would cut it in half, it is hidden instead (its room stays, so nothing
/// moves), and shows again when the list scrolls or the panel grows. Its own visibility is
/// this marker's to set.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct WholeOnly;

fn hide_cut(
    mut lines: Query<
        (
            &bevy::ui::ComputedNode,
            &bevy::ui::UiGlobalTransform,
            Option<&bevy::ui::CalculatedClip>,
            &mut Visibility,
        ),
        With<WholeOnly>,
    >,
) {
    for (node, at, clip, mut vis) in &mut lines {
        vis.set_if_neq(if shows_whole(node, at, clip) {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}

/// Whether a [`WholeOnly`] line shows: its clip (if any) does not cut it.
fn shows_whole(
    node: &bevy::ui::ComputedNode,
    at: &bevy::ui::UiGlobalTransform,
    clip: Option<&bevy::ui::CalculatedClip>,
) -> bool {
    let r = Rect::from_center_size(at.translation, node.size());
    clip.is_none_or(|k| r.min.y >= k.clip.min.y - 0.5 && r.max.y <= k.clip.max.y + 0.5)
}

/// The room, in UI units, between the bottom of the last [`WholeOnly`] line of `lines` that
/// shows and the bottom of their clip: what the line the clip's bottom cuts (hidden) leaves
/// empty. 0 when no line is cut there, none shows whole, or none is clipped.
fn room_under_whole<'a>(
    lines: impl IntoIterator<
        Item = (
            &'a bevy::ui::ComputedNode,
            &'a bevy::ui::UiGlobalTransform,
            Option<&'a bevy::ui::CalculatedClip>,
        ),
    >,
) -> f32 {
    let lines: Vec<_> = lines.into_iter().collect();
    let cut_at_bottom = lines.iter().any(|(node, at, clip)| {
        let r = Rect::from_center_size(at.translation, node.size());
        clip.is_some_and(|k| r.min.y < k.clip.max.y && r.max.y > k.clip.max.y + 0.5)
    });
    if !cut_at_bottom {
        return 0.0;
    }
    lines
        .into_iter()
        .filter(|(node, at, clip)| shows_whole(node, at, *clip))
        .filter_map(|(node, at, clip)| {
            let bottom = at.translation.y + node.size().y / 2.0;
            clip.map(|k| (k.clip.max.y - bottom) * node.inverse_scale_factor())
        })
        .min_by(f32::total_cmp)
        .map_or(0.0, |room| room.max(0.0))
}

/// The line under a clipped list of [`WholeOnly`] rows that says more are below (the Setup
/// screen's levels, the turn order, a long action menu): the list is the sibling just before
/// it. It is moved up by the room the row the list's edge cuts (hidden) leaves, so it sits
/// right under the last whole row rather than under a row-high gap (`place_more_lines`).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct MoreLine;

fn place_more_lines(
    mut more: Query<(Entity, &ChildOf, &mut Node), With<MoreLine>>,
    children: Query<&Children>,
    rows: Query<
        (
            &bevy::ui::ComputedNode,
            &bevy::ui::UiGlobalTransform,
            Option<&bevy::ui::CalculatedClip>,
        ),
        With<WholeOnly>,
    >,
) {
    for (me, parent, mut node) in &mut more {
        let Ok(siblings) = children.get(parent.parent()) else {
            continue;
        };
        let list = siblings
            .iter()
            .take_while(|&e| e != me)
            .last()
            .and_then(|l| children.get(l).ok());
        let gap = list.map_or(0.0, |l| room_under_whole(rows.iter_many(l.iter())));
        if node.top != Val::Px(-gap) {
            node.top = Val::Px(-gap);
        }
    }
}

/// How far to scroll a list `view` high so an entry `height` high whose top is `top` below
/// the list's top (as now scrolled) is wholly in view: up when it is above, down when below,
/// not at all when it shows.
pub fn scroll_to_show(top: f32, height: f32, view: f32) -> f32 {
    if top < 0.0 {
        top
    } else if top + height > view {
        (top + height - view).min(top)
    } else {
        0.0
    }
}

/// How far to scroll a list `view` high so an entry `height` high whose top is `top` below
/// the list's top is wholly in view ([`scroll_to_show`]), going down only as far as the top
/// of one of the list's lines (their `tops`, measured the same way: [`snap_to_row`]), so the
/// first line shown is whole.
pub fn scroll_to_show_whole(
    top: f32,
    height: f32,
    view: f32,
    tops: impl IntoIterator<Item = f32>,
) -> f32 {
    let by = scroll_to_show(top, height, view);
    if by > 0.0 { snap_to_row(by, tops) } else { by }
}

/// How far to scroll down, at least `by`, so the list's view starts at the top of a row:
/// the least of the rows' `tops` (below the view's top as now scrolled) that is `by` or more;
/// `by` itself when none is.
pub fn snap_to_row(by: f32, tops: impl IntoIterator<Item = f32>) -> f32 {
    tops.into_iter()
        .filter(|&t| t >= by - 0.5)
        .min_by(f32::total_cmp)
        .unwrap_or(by)
}

/// How far a scrolling node's contents run past its bottom, in UI units (0 when they fit).
pub fn scroll_room(node: &bevy::ui::ComputedNode) -> f32 {
    ((node.content_size().y - node.size().y) * node.inverse_scale_factor()).max(0.0)
}

/// This frame's mouse wheel in UI units, a line of the wheel being `line` of them (positive:
/// towards the top of a list).
pub fn wheel_units(wheel: &bevy::input::mouse::AccumulatedMouseScroll, line: f32) -> f32 {
    match wheel.unit {
        bevy::input::mouse::MouseScrollUnit::Line => wheel.delta.y * line,
        bevy::input::mouse::MouseScrollUnit::Pixel => wheel.delta.y,
    }
}

/// What a button does.
#[derive(Component, Clone, Debug, PartialEq)]
pub enum UiAction {
    // Title
    NewBattle,
    Continue,
    /// The Load screen (every save).
    Load,
    Quit,
    /// The level editor.
    OpenEditor,
    // Load
    /// A save of the Load screen's page shown (its index among the page's loadable saves).
    LoadSave(usize),
    /// The Load screen's next page of older saves.
    OlderSaves,
    /// The Load screen's page of newer saves.
    NewerSaves,
    // Editor
    Editor(super::editor::EditorAction),
    // Setup
    SelectLevel(usize),
    CycleSide(usize),
    RandomSeed,
    FocusSeed,
    Start,
    Back,
    // Result
    Rematch,
    /// Back from the Result screen to the final board and log.
    BackToBoard,
    /// Step through the finished battle's replay.
    Replay,
    // Battle
    /// An entry of the action menu (index into the menu shown).
    Menu(usize),
    /// An entry of the open sub-list.
    Sub(usize),
    /// Close the sub-list or targeting.
    CancelTarget,
    /// A unit to act next (a Pick decision).
    Pick(UnitId),
    Resume,
    Pause,
    SaveAndQuit,
    /// Leave a playtest (a battle started from the level editor) for the editor, as it was.
    BackToEditor,
    HandOver,
    ToggleThreat,
    /// Fold or open the turn order panel.
    ToggleLeftPanel,
    /// Fold or open the menu and log panel.
    ToggleRightPanel,
    Speed,
    SkipAnimations,
    Pace,
    Undo,
    QuickSave,
    QuickLoad,
    /// On from the finished battle to the Result screen.
    ShowResult,
    RulesHelp,
    // Settings (its screen and the pause menu)
    Settings,
    Setting(super::screens::settings::SettingKind),
    /// The Settings screen's key table: wait for the key to bind to `keys::SLOTS[i]`.
    Rebind(usize),
    /// Every battle key back to its default.
    ResetKeys,
}

/// A button was pressed (or its key).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct UiClick(pub UiAction);

pub const BG: Color = Color::srgb(0.08, 0.075, 0.09);
/// The HUD's panels (top bar, turn order, menu and log) and the editor's: opaque, since the
/// board runs under them when zoomed or panned, and at 0.94 its tiles and tokens showed
/// through the combat log's text (blending is linear: 6% of a bright tile is plain to see).
pub const PANEL: Color = Color::srgb(0.1, 0.095, 0.115);
pub const BUTTON: Color = Color::srgb(0.2, 0.19, 0.24);
pub const BUTTON_HOVER: Color = Color::srgb(0.3, 0.28, 0.36);
pub const BUTTON_ON: Color = Color::srgb(0.16, 0.36, 0.52);
/// A chosen button under the pointer: still blue (the choice), a little lighter.
pub const BUTTON_ON_HOVER: Color = Color::srgb(0.22, 0.45, 0.64);
pub const TEXT: Color = Color::srgb(0.93, 0.91, 0.86);
pub const DIM: Color = Color::srgb(0.6, 0.58, 0.56);
pub const ACCENT: Color = Color::srgb(0.98, 0.78, 0.35);
pub const BAD: Color = Color::srgb(1.0, 0.55, 0.4);
pub const GOOD: Color = Color::srgb(0.55, 0.85, 0.55);

/// A text font of `px` logical pixels (the default font).
pub fn font(px: f32) -> TextFont {
    TextFont {
        font_size: FontSize::Px(px),
        ..default()
    }
}

/// A line of UI text (made safe for the font's ASCII-only glyphs).
pub fn text(s: impl AsRef<str>, px: f32, colour: Color) -> impl Bundle {
    (
        Text::new(super::menu::ascii(s.as_ref())),
        font(px),
        TextColor(colour),
    )
}

/// The advance of one character of the default font (Fira Mono, monospaced), in ems: a line
/// of `n` characters at `px` pixels is `n * MONO_ADVANCE * px` wide.
pub const MONO_ADVANCE: f32 = 0.6;

/// How many characters of the default font at `px` pixels fit on a line `width` wide (at
/// least one).
pub fn chars_fitting(width: f32, px: f32) -> usize {
    (width / (MONO_ADVANCE * px.max(1.0))).floor().max(1.0) as usize
}

/// `s` (made ASCII, as [`text`] shows it) cut to at most `max` characters, ending in "..."
/// when cut; and whether it was cut.
pub fn cut_to(s: &str, max: usize) -> (String, bool) {
    let s = super::menu::ascii(s);
    if s.chars().count() <= max {
        return (s, false);
    }
    let keep = max.saturating_sub(3);
    let head: String = s.chars().take(keep).collect();
    (format!("{}...", head.trim_end()), true)
}

/// Whether a list that scrolls `max` UI units at most, scrolled to `y`, has entries below its
/// bottom edge (it is not scrolled to its end).
pub fn runs_on_below(max: f32, y: f32) -> bool {
    max > 1.0 && y < max - 1.0
}

/// Shows the lines that say a list runs on below (`hints`) while it does, else hides them: a
/// list of whole entries does not show by itself that it runs on.
pub fn show_more_below<'a>(below: bool, hints: impl IntoIterator<Item = Mut<'a, Node>>) {
    let want = if below { Display::Flex } else { Display::None };
    for mut n in hints {
        if n.display != want {
            n.display = want;
        }
    }
}

/// Sets the text of the first of `children` to `words` (made ASCII, as [`text`] shows it),
/// when it differs: a help box's words, changed in place.
pub fn set_first_text(children: &Children, texts: &mut Query<&mut Text>, words: &str) {
    if let Some(&child) = children.first()
        && let Ok(mut t) = texts.get_mut(child)
    {
        let words = super::menu::ascii(words);
        if t.0 != words {
            t.0 = words;
        }
    }
}

/// The normal colour of a button.
#[derive(Component, Clone, Copy, Debug)]
pub struct ButtonColour(pub Color);

/// A button with a label and (optionally) its key shown in brackets: `[N] New battle`.
pub fn button(label: impl AsRef<str>, key: Option<&str>, action: UiAction) -> impl Bundle {
    button_sized(label, key, action, 1.0)
}

/// A [`button`] whose type and padding are scaled by `k` (a dialog sized to the window).
pub fn button_sized(
    label: impl AsRef<str>,
    key: Option<&str>,
    action: UiAction,
    k: f32,
) -> impl Bundle {
    let label = match key {
        Some(key) => format!("[{key}] {}", label.as_ref()),
        None => label.as_ref().to_string(),
    };
    button_scaled(label, action, BUTTON, k)
}

/// A button with its own background colour (e.g. a selected choice).
pub fn button_coloured(label: impl AsRef<str>, action: UiAction, colour: Color) -> impl Bundle {
    button_scaled(label, action, colour, 1.0)
}

/// A button in `colour`, its type (16 px, never under 12) and padding scaled by `k`.
fn button_scaled(label: impl AsRef<str>, action: UiAction, colour: Color, k: f32) -> impl Bundle {
    (
        Button,
        action,
        ButtonColour(colour),
        Node {
            padding: UiRect::axes(px(12.0 * k), px(6.0 * k)),
            margin: UiRect::all(px(2)),
            border_radius: BorderRadius::all(px(4)),
            // A long label wraps inside its panel (a reaction prompt's entries) rather than
            // running past the panel's edge.
            max_width: percent(100),
            ..default()
        },
        BackgroundColor(colour),
        children![text(label, (16.0 * k).max(12.0), TEXT)],
    )
}

fn press_buttons(
    buttons: Query<(&Interaction, &UiAction), Changed<Interaction>>,
    mut clicks: MessageWriter<UiClick>,
) {
    for (interaction, action) in &buttons {
        if *interaction == Interaction::Pressed {
            clicks.write(UiClick(action.clone()));
        }
    }
}

#[allow(clippy::type_complexity)]
fn hover_colours(
    mut buttons: Query<
        (&Interaction, &ButtonColour, &mut BackgroundColor),
        Or<(Changed<Interaction>, Changed<ButtonColour>)>,
    >,
) {
    for (interaction, normal, mut bg) in &mut buttons {
        bg.0 = match interaction {
            Interaction::None => normal.0,
            // The hover keeps the chosen entry's colour, so a choice never looks unchosen.
            _ if normal.0 == BUTTON_ON => BUTTON_ON_HOVER,
            _ => BUTTON_HOVER,
        };
    }
}

/// A dialog over the board (the reaction prompt, the "Battle over" banner): a centred column
/// with an accent border on a dark background, in front at `z`. `place` gives its position and
/// size (`position_type`, `left`, `top`...) and its padding; the rest of the style is shared.
pub fn dialog(place: Node, z: i32) -> impl Bundle {
    (
        Node {
            flex_direction: FlexDirection::Column,
            align_items: AlignItems::Center,
            row_gap: px(6),
            border: UiRect::all(px(2)),
            border_radius: BorderRadius::all(px(8)),
            ..place
        },
        BorderColor::all(ACCENT),
        BackgroundColor(Color::srgba(0.07, 0.06, 0.09, 0.96)),
        ZIndex(z),
    )
}

/// A full-window column, centred, for menu screens.
pub fn screen_root() -> impl Bundle {
    (
        Node {
            width: percent(100),
            height: percent(100),
            flex_direction: FlexDirection::Column,
            align_items: AlignItems::Center,
            justify_content: JustifyContent::Center,
            row_gap: px(10),
            ..default()
        },
        BackgroundColor(BG),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::ecs::system::RunSystemOnce;
    use bevy::ui::{CalculatedClip, ComputedNode, UiGlobalTransform};

    /// A "more below" line sits right under its list's last whole row: the list is the
    /// sibling before it, whichever panel it is in (the turn order, an action menu, the level
    /// list), and the room the hidden cut row leaves is taken out; a line whose list shows no
    /// cut row stays where the layout puts it.
    #[test]
    fn a_more_line_sits_under_its_lists_last_whole_row() {
        let mut world = World::new();
        // Rows 30 high, 4 apart, from y = 100; the clip ends at 215, inside the fourth
        // (202 to 232): the third ends at 198, 17 above the clip.
        let clip = Rect::new(0.0, 100.0, 300.0, 215.0);
        let row = |i: usize| {
            let top = 100.0 + 34.0 * i as f32;
            (
                WholeOnly,
                ComputedNode {
                    size: Vec2::new(300.0, 30.0),
                    inverse_scale_factor: 1.0,
                    ..ComputedNode::DEFAULT
                },
                UiGlobalTransform::from_translation(Vec2::new(150.0, top + 15.0)),
                CalculatedClip { clip },
            )
        };
        let header = world.spawn(Node::default()).id();
        let list = world.spawn(Node::default()).id();
        for i in 0..6 {
            world.spawn((row(i), ChildOf(list)));
        }
        let panel = world.spawn(Node::default()).id();
        world.entity_mut(header).insert(ChildOf(panel));
        world.entity_mut(list).insert(ChildOf(panel));
        let more = world
            .spawn((MoreLine, Node::default(), ChildOf(panel)))
            .id();
        // A list whose rows all show: its line stays put.
        let short = world.spawn(Node::default()).id();
        for i in 0..2 {
            world.spawn((row(i), ChildOf(short)));
        }
        let other = world.spawn(Node::default()).id();
        world.entity_mut(short).insert(ChildOf(other));
        let stays = world
            .spawn((MoreLine, Node::default(), ChildOf(other)))
            .id();
        world
            .run_system_once(place_more_lines)
            .expect("the system runs");
        // The fourth row is hidden (cut): its room down to the clip, 215 - 198, is taken out.
        assert_eq!(world.get::<Node>(more).map(|n| n.top), Some(Val::Px(-17.0)));
        // Both rows show whole, none is cut at the clip's end: the line stays.
        assert_eq!(world.get::<Node>(stays).map(|n| n.top), Some(Val::Px(0.0)));
    }
}
