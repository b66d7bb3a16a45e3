//! Unit tokens: each unit of the level as a disc in its side's colour with its initial, and its
//! name underneath. (Placeholder art until units get sprites.)

use bevy::prelude::*;
use bevy::sprite::Text2dShadow;

use super::art::Art;
use super::board::BoardLayout;
use super::level::{BoardLevel, UnitMarker};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_units);
}

/// A unit's token; the index is the unit's position in [`BoardLevel::units`].
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitToken(pub usize);

/// Units draw above the board.
pub const UNIT_Z: f32 = 10.0;

/// Side colours from the Okabe–Ito palette (distinguishable with the common colour-vision
/// deficiencies), in side order; unknown sides are grey.
pub fn side_colour(side: Option<usize>) -> Color {
    const PALETTE: [(u8, u8, u8); 7] = [
        (0, 114, 178),   // blue
        (213, 94, 0),    // vermillion
        (0, 158, 115),   // bluish green
        (204, 121, 167), // reddish purple
        (230, 159, 0),   // orange
        (86, 180, 233),  // sky blue
        (240, 228, 66),  // yellow
    ];
    match side {
        Some(i) => {
            let (r, g, b) = PALETTE[i % PALETTE.len()];
            Color::srgb_u8(r, g, b)
        }
        None => Color::srgb(0.5, 0.5, 0.5),
    }
}

fn spawn_units(mut commands: Commands, level: Option<Res<BoardLevel>>, art: Res<Art>) {
    let Some(level) = level else {
        return;
    };
    let layout = BoardLayout::new(*level.terrain.grid());
    let size = layout.tile_size.x.min(layout.tile_size.y);
    for (i, unit) in level.units.iter().enumerate() {
        // Units off the map are the level validator's business; the board just skips them.
        let Some(center) = layout.cell_center(unit.cell) else {
            warn!(
                "unit {:?} stands outside the map at {}",
                unit.name, unit.cell
            );
            continue;
        };
        commands.spawn(token(
            i,
            unit,
            center.extend(UNIT_Z + i as f32 * 0.01),
            size,
            &art,
        ));
    }
}

/// One unit's token: the tinted disc, the initial on it and the name below.
fn token(index: usize, unit: &UnitMarker, at: Vec3, cell: f32, art: &Art) -> impl Bundle {
    let initial: String = unit
        .name
        .chars()
        .find(|c| c.is_alphanumeric())
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_else(|| "?".into());
    let shadow = Text2dShadow {
        offset: Vec2::new(1.5, -1.5),
        color: Color::srgba(0.0, 0.0, 0.0, 0.8),
    };
    let font = |px: f32| TextFont {
        font_size: FontSize::Px(px),
        ..default()
    };
    (
        Name::new(format!("Unit {}", unit.name)),
        UnitToken(index),
        Sprite {
            image: art.unit_disc.clone(),
            color: side_colour(unit.side),
            custom_size: Some(Vec2::splat(cell * 0.72)),
            ..default()
        },
        Transform::from_translation(at),
        children![
            (
                Text2d::new(initial),
                font(cell * 0.4),
                TextColor(Color::WHITE),
                shadow,
                Transform::from_xyz(0.0, 0.0, 0.1),
            ),
            (
                Text2d::new(unit.name.clone()),
                font(cell * 0.22),
                TextColor(Color::srgb(1.0, 0.98, 0.9)),
                shadow,
                Transform::from_xyz(0.0, -cell * 0.44, 0.2),
            ),
        ],
    )
}
