//! Marks on the board's cells that are not units: items lying on a cell (a small gold diamond
//! in its corner; hover the cell for their names), a heavy object (a crate-brown block that
//! fills the cell: no one may enter it), and the cells a side wins by reaching (a pale gold
//! diamond under any token). Drawn from the viewer's view, redrawn only when they change.

use bevy::prelude::*;

use super::Screen;
use super::board::{BoardLayout, OnBoard};
use super::hud::View;
use crate::rules::battle::BattleState;
use crate::rules::grid::Cell;
use crate::rules::level::Victory;
use crate::rules::ruleset_data::ItemKind;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        draw_marks
            .in_set(super::AppSystems::Update)
            .run_if(in_state(Screen::Battle)),
    );
}

/// One mark on the board.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMark {
    /// Items lie here.
    Items,
    /// A heavy object stands here.
    Heavy,
    /// A side wins by reaching this cell.
    Goal,
}

/// Between the tiles (and overlays) and the tokens.
const MARK_Z: f32 = 6.0;

/// Every mark `s` calls for, in cell order: what and where.
pub fn marks(s: &BattleState) -> Vec<(CellMark, Cell)> {
    let mut out: Vec<(CellMark, Cell)> = s
        .level
        .victory
        .iter()
        .filter_map(|v| match v {
            Victory::ReachCell { cell, .. } => Some((CellMark::Goal, Cell::new(cell.0, cell.1))),
            _ => None,
        })
        .collect();
    for cell in s.ground.keys() {
        if s.heavy_at(*cell) {
            out.push((CellMark::Heavy, *cell));
        }
        if s.items_at(*cell)
            .iter()
            .any(|i| s.item_def(i).is_none_or(|d| d.kind != ItemKind::Heavy))
        {
            out.push((CellMark::Items, *cell));
        }
    }
    out
}

fn draw_marks(
    mut commands: Commands,
    view: Res<View>,
    existing: Query<Entity, With<CellMark>>,
    mut last: Local<Vec<(CellMark, Cell)>>,
) {
    let Some(s) = &view.state else {
        return;
    };
    let now = marks(s);
    if *last == now && existing.is_empty() == now.is_empty() {
        return;
    }
    for e in &existing {
        commands.entity(e).despawn();
    }
    let layout = BoardLayout::new(*s.grid());
    let tile = Vec2::new(layout.tile_size.x, layout.tile_size.y);
    let side = tile.x.min(tile.y);
    for &(mark, cell) in &now {
        let Some(centre) = layout.cell_center(cell) else {
            continue;
        };
        let (colour, size, at, turn) = match mark {
            CellMark::Goal => (
                Color::srgba(1.0, 0.84, 0.35, 0.45),
                Vec2::splat(side * 0.5),
                centre,
                true,
            ),
            CellMark::Heavy => (
                Color::srgb(0.45, 0.3, 0.16),
                Vec2::splat(side * 0.62),
                centre,
                false,
            ),
            CellMark::Items => (
                Color::srgb(0.98, 0.78, 0.2),
                Vec2::splat(side * 0.2),
                centre + Vec2::new(side * 0.28, side * 0.28),
                true,
            ),
        };
        let rotation = if turn {
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4)
        } else {
            Quat::IDENTITY
        };
        commands.spawn((
            mark,
            OnBoard,
            DespawnOnExit(Screen::Battle),
            Sprite {
                color: colour,
                custom_size: Some(size),
                ..default()
            },
            Transform::from_translation(at.extend(MARK_Z)).with_rotation(rotation),
        ));
    }
    *last = now;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::rulesets::RulesetId;
    use crate::rules::testkit::Field;

    /// Items on a cell get a mark, a crate a block of its own, and a goal cell its diamond;
    /// a picked-up item's mark goes with it.
    #[test]
    fn items_heavy_objects_and_goal_cells_are_marked() {
        let (s, _) = Field::new(RulesetId::Phases)
            .map(&["......", "......"])
            .units(
                r#"(name: "Ada", side: "Heroes", cell: (0, 0), template: "swordsman"),
                   (name: "Bo", side: "Foes", cell: (5, 1), template: "swordsman")"#,
            )
            .items(r#"(item: "pistol", cell: (2, 0)), (item: "crate", cell: (3, 1))"#)
            .start(1);
        let mut s = s;
        assert_eq!(
            marks(&s),
            [
                (CellMark::Items, Cell::new(2, 0)),
                (CellMark::Heavy, Cell::new(3, 1)),
            ]
        );
        std::sync::Arc::make_mut(&mut s.level).victory = vec![Victory::ReachCell {
            side: "Heroes".into(),
            cell: (4, 0),
        }];
        std::sync::Arc::make_mut(&mut s.ground).remove(&Cell::new(2, 0));
        assert_eq!(
            marks(&s),
            [
                (CellMark::Goal, Cell::new(4, 0)),
                (CellMark::Heavy, Cell::new(3, 1)),
            ]
        );
    }
}
