//! The top bar: the ruleset's clock headline and the settings buttons, each with its key.

use bevy::prelude::*;

use super::{DEFAULT_WINDOW, HudLayout, HudPanel, HudSystems, View};
use crate::game::Screen;
use crate::game::battle::Settings;
use crate::game::keys;
use crate::game::ui::{self, UiAction};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, top_bar.in_set(HudSystems::Panels));
}

#[derive(Component)]
pub(super) struct TopBar;

/// Spawns the (empty) top bar.
pub(super) fn spawn(commands: &mut Commands) {
    let (_, _, top, _) = HudLayout::for_window(DEFAULT_WINDOW).insets();
    commands.spawn((
        Name::new("Top bar"),
        TopBar,
        HudPanel,
        Interaction::default(),
        DespawnOnExit(Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            left: px(0),
            right: px(0),
            top: px(0),
            height: px(top - 4.0),
            flex_direction: FlexDirection::Row,
            flex_wrap: FlexWrap::Wrap,
            align_items: AlignItems::Center,
            align_content: AlignContent::SpaceEvenly,
            justify_content: JustifyContent::FlexEnd,
            padding: UiRect::horizontal(px(8)),
            column_gap: px(6),
            ..default()
        },
        BackgroundColor(ui::PANEL),
    ));
}

/// The type size of the top bar's buttons, their padding left and right and the gap between
/// them, in UI units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarSizes {
    pub font: f32,
    pub pad: f32,
    pub gap: f32,
}

impl BarSizes {
    /// Under 1000 UI units wide (800x600, below the 1024x640 the game is made for) the
    /// buttons are smaller, so they fit one row under the title: at their usual size they
    /// wrapped onto two, three rows in all.
    pub fn for_width(width: f32) -> Self {
        if width < 1000.0 {
            Self {
                font: 11.0,
                pad: 4.0,
                gap: 4.0,
            }
        } else {
            Self {
                font: 13.0,
                pad: 6.0,
                gap: 6.0,
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn top_bar(
    mut commands: Commands,
    view: Res<View>,
    settings: Res<Settings>,
    mut bar: Query<(Entity, &mut Node), With<TopBar>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    ui: Option<Res<UiScale>>,
    editor: Option<Res<crate::game::editor::Editor>>,
    mut last: Local<String>,
) {
    let playtest = editor.is_some_and(|e| e.playtesting);
    let Some(state) = &view.state else {
        return;
    };
    // A finished battle names its winner, not the last unit to act.
    let headline = super::battle_over::headline(state).map_or_else(
        || rulesets::clock(state).headline,
        |h| format!("Battle over: {h}"),
    );
    let layout = HudLayout::of(window.single().ok(), super::ui_scale(ui.as_deref()));
    let two_rows = layout.two_rows;
    let sizes = BarSizes::for_width(layout.window.x);
    // The bar's entity too: a battle loaded in the state just left has a new, empty bar.
    let key = format!(
        "{headline}|{settings:?}|{two_rows}|{sizes:?}|{playtest}|{:?}",
        bar.single().ok().map(|(e, _)| e)
    );
    if *last == key {
        return;
    }
    *last = key;
    let Ok((bar, mut node)) = bar.single_mut() else {
        return;
    };
    if node.column_gap != px(sizes.gap) {
        node.column_gap = px(sizes.gap);
    }
    // A button of the bar: under 1000 units wide its type and padding are smaller
    // (`BarSizes`).
    let small = |label: String, action: UiAction, colour: Color| {
        (
            Button,
            action,
            ui::ButtonColour(colour),
            Node {
                padding: UiRect::axes(px(sizes.pad), px(3)),
                border_radius: BorderRadius::all(px(3)),
                flex_shrink: 0.0,
                ..default()
            },
            BackgroundColor(colour),
            children![ui::text(label, sizes.font, ui::TEXT)],
        )
    };
    commands.entity(bar).despawn_children().with_children(|b| {
        // The title's row: a playtest's way back to the editor first, sized as the other
        // buttons, then the title. On a narrow window the row is a row of its own, so the title
        // never wraps into the buttons; the button shares it (alone on a row above the title,
        // the bar had three rows, too many for its height).
        b.spawn(Node {
            flex_grow: 1.0,
            flex_shrink: 1.0,
            min_width: px(0),
            width: if two_rows { percent(100) } else { Val::Auto },
            align_items: AlignItems::Center,
            column_gap: px(sizes.gap),
            ..default()
        })
        .with_children(|row| {
            if playtest {
                row.spawn(small(
                    format!("[{}] Back to editor", settings.keys.name(&keys::QUIT)),
                    UiAction::BackToEditor,
                    ui::BUTTON_ON,
                ));
            }
            row.spawn((
                ui::text(&headline, 17.0, ui::ACCENT),
                TextLayout::no_wrap(),
                Node {
                    flex_grow: 1.0,
                    flex_shrink: 1.0,
                    min_width: px(0),
                    overflow: Overflow::clip(),
                    ..default()
                },
            ));
        });
        b.spawn(small(
            format!(
                "[{}] Threat {}",
                settings.keys.name(&keys::THREAT),
                if settings.show_threat { "on" } else { "off" }
            ),
            UiAction::ToggleThreat,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!(
                "[{}] Speed x{}",
                settings.keys.name(&keys::SPEED),
                settings.speed
            ),
            UiAction::Speed,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!(
                "[{}] Anim {}",
                settings.keys.name(&keys::SKIP_ANIMATIONS),
                if settings.skip_animations {
                    "skip"
                } else {
                    "on"
                }
            ),
            UiAction::SkipAnimations,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!(
                "[{}] AI pace {}s",
                settings.keys.name(&keys::AI_PACE),
                settings.ai_pace
            ),
            UiAction::Pace,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!("[{}] Rules", settings.keys.name(&keys::RULES)),
            UiAction::RulesHelp,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!("[{}] Save", settings.keys.name(&keys::QUICK_SAVE)),
            UiAction::QuickSave,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!("[{}] Load", settings.keys.name(&keys::QUICK_LOAD)),
            UiAction::QuickLoad,
            ui::BUTTON,
        ));
        b.spawn(small(
            format!("[{}] Menu", keys::CANCEL.name),
            UiAction::Pause,
            ui::BUTTON,
        ));
    });
}
