//! The tooltip on the pointed-at cell: the unit there (health, conditions, the acting unit's
//! odds against it), the terrain, and distance and cover from the acting unit.

use bevy::prelude::*;

use super::{HudSystems, INSETS, InputBlocked, View, odds_sentence};
use crate::game::Screen;
use crate::game::input::CursorCell;
use crate::game::ui;
use crate::game::units::health_text;
use crate::rules::battle::{BattleState, Status, UnitId};
use crate::rules::rulesets;
use crate::rules::sight::{self, Cover};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, tooltip.in_set(HudSystems::Panels));
}

/// The tooltip panel.
#[derive(Component)]
pub struct Tooltip;

/// Spawns the (hidden) tooltip.
pub(super) fn spawn(commands: &mut Commands) {
    let (left, _, _, bottom) = INSETS;
    commands.spawn((
        Name::new("Tooltip"),
        Tooltip,
        DespawnOnExit(Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            left: px(left + 8.0),
            bottom: px(bottom + 8.0),
            flex_direction: FlexDirection::Column,
            padding: UiRect::all(px(6)),
            max_width: px(340),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.05, 0.05, 0.07, 0.92)),
        Visibility::Hidden,
        ZIndex(5),
    ));
}

/// What the tooltip says about a cell and the unit on it.
pub fn tooltip_lines(
    s: &BattleState,
    acting: Option<UnitId>,
    cell: crate::rules::grid::Cell,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(terrain) = s.terrain.terrain(cell) else {
        return out;
    };
    if let Some(uid) = s
        .unit_at(cell)
        .or_else(|| s.unit_ids().find(|&u| s.units[u.index()].cell == cell))
        && let Some(u) = s.unit(uid)
    {
        let template = s
            .ruleset()
            .and_then(|r| r.template(&u.template))
            .map_or(u.template.to_string(), |t| t.name.clone());
        let side = s.sides.get(u.side.index()).map_or("?", |x| x.name.as_str());
        let fallen = match u.status {
            Status::Active => "",
            Status::Down => ", down",
            Status::Dead => ", dead",
        };
        out.push(format!("{} - {template} ({side}){fallen}", u.name));
        out.push(health_text(u));
        if !u.conditions.is_empty() {
            let c: Vec<String> = u
                .conditions
                .iter()
                .map(|c| crate::game::units::condition_name(s, c))
                .collect();
            out.push(format!("Conditions: {}", c.join(", ")));
        }
        if let Some(a) = acting
            && a != uid
            && s.are_enemies(a, uid)
        {
            for ranged in [false, true] {
                if let Some(o) = rulesets::odds(s, a, uid, ranged) {
                    out.push(format!(
                        "{} from {}: {}",
                        if ranged { "Shoot" } else { "Attack" },
                        s.unit_name(a),
                        odds_sentence(&o)
                    ));
                }
            }
        }
    }
    let cost = match terrain.cost {
        Some(c) => format!("entering costs {c}"),
        None => "impassable".into(),
    };
    out.push(format!(
        "{} {cell}: {cost}{}",
        terrain.name,
        if terrain.difficult { ", difficult" } else { "" }
    ));
    if let Some(a) = acting.and_then(|a| s.unit(a))
        && a.cell != cell
    {
        let cover = match sight::cover(&s.terrain, a.cell, cell) {
            Cover::None => "no cover",
            Cover::Half => "half cover",
            Cover::Full => "full cover",
            Cover::Blocked => "out of sight",
        };
        out.push(format!(
            "From {}: distance {}, {cover}",
            a.name,
            s.grid().distance(a.cell, cell)
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn tooltip(
    mut commands: Commands,
    view: Res<View>,
    cursor: Res<CursorCell>,
    blocked: Res<InputBlocked>,
    tip: Query<(Entity, &mut Node, &mut Visibility), With<Tooltip>>,
    cameras: Query<(&Camera, &GlobalTransform), With<crate::game::camera::MainCamera>>,
    boards: Query<&crate::game::board::BoardGrid>,
    mut last: Local<String>,
) {
    let Ok((entity, mut node, mut vis)) = tip.single_inner() else {
        return;
    };
    let (Some(state), Some(cell)) = (&view.state, cursor.0) else {
        *vis = Visibility::Hidden;
        return;
    };
    if blocked.0 {
        *vis = Visibility::Hidden;
        return;
    }
    let lines = tooltip_lines(state, view.acting, cell);
    if lines.is_empty() {
        *vis = Visibility::Hidden;
        return;
    }
    *vis = Visibility::Inherited;
    // Next to the cell when there is a camera to place it with.
    if let (Ok((camera, global)), Some(grid)) = (cameras.single(), boards.iter().next()) {
        let layout = crate::game::board::BoardLayout::new(grid.0);
        if let Some(c) = layout.cell_center(cell)
            && let Ok(screen) = camera.world_to_viewport(global, c.extend(0.0))
        {
            // On the cell's right, or on its left when that would cover the side panel.
            let width = camera.logical_viewport_size().map_or(f32::MAX, |v| v.x);
            if screen.x + 28.0 + 340.0 > width - INSETS.1 {
                node.left = Val::Auto;
                node.right = px((width - screen.x + 20.0).max(0.0));
            } else {
                node.left = px(screen.x + 28.0);
                node.right = Val::Auto;
            }
            node.top = px(screen.y + 12.0);
            node.bottom = Val::Auto;
        }
    }
    // A width the lines fit in: left to itself, a box placed by its right edge was sized for
    // unwrapped text and a wrapped last line fell out of it.
    let w = px(tooltip_width(&lines));
    if node.width != w {
        node.width = w;
    }
    let key = lines.join("\n");
    if *last == key {
        return;
    }
    *last = key;
    commands
        .entity(entity)
        .despawn_children()
        .with_children(|p| {
            for (i, l) in lines.iter().enumerate() {
                p.spawn(ui::text(
                    l,
                    13.0,
                    if i == 0 { ui::ACCENT } else { ui::TEXT },
                ));
            }
        });
}

/// The tooltip's width in logical pixels: its longest line in the HUD's monospace font at 13
/// px (0.6 em a character) and its padding, at most 340 (longer lines wrap).
fn tooltip_width(lines: &[String]) -> f32 {
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (longest as f32 * 13.0 * 0.6 + 16.0).clamp(40.0, 340.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tooltip_of_a_fallen_unit_says_it_has_fallen() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let wolf = b
            .unit_ids()
            .find(|&u| &*b.units[u.index()].name == "Fang")
            .expect("the crypt has Fang");
        let cell = b.units[wolf.index()].cell;
        let head = |b: &BattleState| tooltip_lines(b, None, cell)[0].clone();
        assert_eq!(head(&b), "Fang - Wolf (Monsters)");
        b.units[wolf.index()].status = Status::Dead;
        assert_eq!(head(&b), "Fang - Wolf (Monsters), dead");
    }
}
