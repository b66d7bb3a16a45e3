//! The top bar: the ruleset's clock headline and the settings buttons, each with its key.

use bevy::prelude::*;

use super::{HudPanel, HudSystems, INSETS, View};
use crate::game::Screen;
use crate::game::battle::Settings;
use crate::game::keys;
use crate::game::ui::{self, UiAction};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, top_bar.in_set(HudSystems::Panels));
}

#[derive(Component)]
struct TopBar;

/// Spawns the (empty) top bar.
pub(super) fn spawn(commands: &mut Commands) {
    let (_, _, top, _) = INSETS;
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
            align_items: AlignItems::Center,
            padding: UiRect::horizontal(px(8)),
            column_gap: px(6),
            ..default()
        },
        BackgroundColor(ui::PANEL),
    ));
}

fn top_bar(
    mut commands: Commands,
    view: Res<View>,
    settings: Res<Settings>,
    bar: Query<Entity, With<TopBar>>,
    mut last: Local<String>,
) {
    let Some(state) = &view.state else {
        return;
    };
    let clock = rulesets::clock(state);
    let key = format!("{}|{settings:?}", clock.headline);
    if *last == key {
        return;
    }
    *last = key;
    let Ok(bar) = bar.single() else {
        return;
    };
    commands.entity(bar).despawn_children().with_children(|b| {
        b.spawn((
            ui::text(&clock.headline, 17.0, ui::ACCENT),
            Node {
                flex_grow: 1.0,
                flex_shrink: 1.0,
                min_width: px(0),
                ..default()
            },
        ));
        let small = |label: String, action: UiAction| {
            (
                Button,
                action,
                ui::ButtonColour(ui::BUTTON),
                Node {
                    padding: UiRect::axes(px(6), px(3)),
                    border_radius: BorderRadius::all(px(3)),
                    flex_shrink: 0.0,
                    ..default()
                },
                BackgroundColor(ui::BUTTON),
                children![ui::text(label, 13.0, ui::TEXT)],
            )
        };
        b.spawn(small(
            format!(
                "[{}] Threat {}",
                keys::THREAT.name,
                if settings.show_threat { "on" } else { "off" }
            ),
            UiAction::ToggleThreat,
        ));
        b.spawn(small(
            format!("[{}] Speed x{}", keys::SPEED.name, settings.speed),
            UiAction::Speed,
        ));
        b.spawn(small(
            format!(
                "[{}] Anim {}",
                keys::SKIP_ANIMATIONS.name,
                if settings.skip_animations {
                    "skip"
                } else {
                    "on"
                }
            ),
            UiAction::SkipAnimations,
        ));
        b.spawn(small(
            format!("[{}] AI pace {}s", keys::AI_PACE.name, settings.ai_pace),
            UiAction::Pace,
        ));
        b.spawn(small(
            format!("[{}] Save", keys::QUICK_SAVE.name),
            UiAction::QuickSave,
        ));
        b.spawn(small(
            format!("[{}] Load", keys::QUICK_LOAD.name),
            UiAction::QuickLoad,
        ));
        b.spawn(small(
            format!("[{}] Menu", keys::CANCEL.name),
            UiAction::Pause,
        ));
    });
}
