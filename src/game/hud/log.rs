//! The combat log: the viewer's version of every line, newest at the bottom, scrolled with
//! PgUp / PgDn or the mouse wheel over it.

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;

use super::{HudSystems, View};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::ui;
use crate::rules::battle::SideId;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<LogScroll>()
        .add_systems(OnEnter(Screen::Battle), reset_scroll)
        .add_systems(Update, combat_log.in_set(HudSystems::Panels));
}

/// Lines scrolled back from the end of the combat log.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct LogScroll(pub usize);

/// The combat log panel (a mouse wheel over it scrolls it instead of zooming).
#[derive(Component)]
pub struct LogPanel;
#[derive(Component)]
struct LogLines;
#[derive(Component)]
struct LogHeader;

/// The header when the log shows its newest lines.
fn header_at_end(bound: &keys::KeyBindings) -> String {
    let back = bound.group_name(&keys::LOG, 0);
    format!("Combat log ({back} / wheel to scroll)")
}

fn reset_scroll(mut scroll: ResMut<LogScroll>) {
    *scroll = LogScroll(0);
}

/// What the log panel last drew: the visible lines' count, the scroll, the viewer, the
/// lines' entity and the last line's text.
type Drawn = (usize, usize, Option<SideId>, Option<Entity>, String);

/// The log's page (lines a PgUp or PgDn moves), kept while it is scrolled back, and the
/// players' commands it has seen ([`Battle::human_commands`]).
#[derive(Default)]
struct LogPaging {
    page: usize,
    human_commands: usize,
}

/// Spawns the (empty) log below the menu in the right panel.
pub(super) fn spawn(p: &mut ChildSpawnerCommands) {
    p.spawn((
        LogPanel,
        super::RightPanelPart,
        Interaction::default(),
        Node {
            flex_direction: FlexDirection::Column,
            // The room the menu leaves (a basis of 0: the log never pushes the menu), and
            // at least a third of the column: a long action menu scrolls rather than squeeze
            // the log to two lines (a newcomer could not follow what the AI did).
            flex_grow: 1.0,
            flex_basis: px(0),
            min_height: Val::Percent(34.0),
            margin: UiRect::top(px(8)),
            overflow: Overflow::clip(),
            justify_content: JustifyContent::FlexEnd,
            ..default()
        },
    ))
    .with_children(|l| {
        l.spawn((
            LogHeader,
            ui::text(header_at_end(&Default::default()), 14.0, ui::ACCENT),
            Node {
                flex_shrink: 0.0,
                ..default()
            },
        ));
        // The newest lines sit at the bottom; what does not fit is cut at the top.
        l.spawn(Node {
            flex_direction: FlexDirection::Column,
            flex_grow: 1.0,
            min_height: px(0),
            overflow: Overflow::clip(),
            justify_content: JustifyContent::FlexEnd,
            ..default()
        })
        .with_children(|c| {
            c.spawn((
                LogLines,
                Node {
                    flex_direction: FlexDirection::Column,
                    flex_shrink: 0.0,
                    row_gap: px(1),
                    ..default()
                },
            ));
        });
    });
}

#[allow(clippy::too_many_arguments)]
fn combat_log(
    mut commands: Commands,
    battle: Res<Battle>,
    view: Res<View>,
    mut scroll: ResMut<LogScroll>,
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<crate::game::battle::Settings>,
    wheel: Res<AccumulatedMouseScroll>,
    hovered: Query<&Interaction, With<LogPanel>>,
    lines: Query<Entity, With<LogLines>>,
    mut header: Query<&mut Text, With<LogHeader>>,
    shown: Query<(&Visibility, &ChildOf), With<ui::WholeOnly>>,
    mut last: Local<Drawn>,
    mut paging: Local<LogPaging>,
) {
    const SHOWN: usize = 40;
    let visible: Vec<&str> = battle
        .log
        .iter()
        .map(|l| l.text_for(view.viewer))
        .filter(|t| !t.is_empty())
        .collect();
    // Back until the first line sits at the bottom: the panel may show far fewer than
    // `SHOWN` lines (at 1024x640, about 18), so stopping `SHOWN` short of the start left the
    // oldest lines out of reach.
    let max_back = visible.len().saturating_sub(1);
    // A page is the whole lines the panel shows, less one kept for context; a wheel notch
    // at most 3 of them: no step skips lines the player never saw.
    let whole = lines.single().map_or(0, |l| {
        shown
            .iter()
            .filter(|(v, parent)| parent.parent() == l && **v != Visibility::Hidden)
            .count()
    });
    // The page is measured while the log shows its newest lines and kept while it is
    // scrolled back: measured on the older lines (which wrap differently) PgDn went back by
    // fewer lines than PgUp had, and as many presses did not come back to the newest.
    if scroll.0 == 0 || paging.page == 0 {
        paging.page = whole.saturating_sub(1).clamp(1, 10);
    }
    let page = paging.page;
    let notch = page.min(3);
    // A player's own command brings the log back to its newest line: reading back, they did
    // not see what their attack did.
    if battle.human_commands != paging.human_commands {
        paging.human_commands = battle.human_commands;
        scroll.0 = 0;
    }
    if settings.keys.group_just_pressed(&keys::LOG, &keys, 0) {
        scroll.0 = (scroll.0 + page).min(max_back);
    }
    if settings.keys.group_just_pressed(&keys::LOG, &keys, 1) {
        scroll.0 = scroll.0.saturating_sub(page);
    }
    if hovered.iter().any(|i| *i != Interaction::None) {
        let d = match wheel.unit {
            MouseScrollUnit::Line => wheel.delta.y,
            MouseScrollUnit::Pixel => wheel.delta.y / 20.0,
        };
        if d > 0.0 {
            scroll.0 = (scroll.0 + (d.ceil() as usize) * notch).min(max_back);
        } else if d < 0.0 {
            scroll.0 = scroll.0.saturating_sub(((-d).ceil() as usize) * notch);
        }
    }
    // The lines' entity too: a battle loaded in the state just left has new, empty panels.
    // And the last line's text: a move's steps extend one line in place (`push_line`).
    let key = (
        visible.len(),
        scroll.0,
        view.viewer,
        lines.single().ok(),
        visible.last().map_or_else(String::new, |l| l.to_string()),
    );
    if *last == key {
        return;
    }
    *last = key;
    let Ok(lines) = lines.single() else {
        return;
    };
    let end = visible.len() - scroll.0.min(visible.len());
    let start = end.saturating_sub(SHOWN);
    if let Ok(mut header) = header.single_mut() {
        header.0 = if scroll.0 > 0 {
            let forward = settings.keys.group_name(&keys::LOG, 1);
            format!("Combat log (scrolled back {}; {forward})", scroll.0)
        } else {
            header_at_end(&settings.keys)
        };
    }
    commands
        .entity(lines)
        .despawn_children()
        .with_children(|p| {
            for line in &visible[start..end] {
                let colour = if line.starts_with("---") || line.starts_with("Battle over") {
                    ui::ACCENT
                } else if line.contains(" rolls ") {
                    ui::DIM
                } else {
                    ui::TEXT
                };
                // The oldest line shows whole or not at all.
                p.spawn((ui::text(*line, 13.0, colour), ui::WholeOnly));
            }
        });
}
