//! The level on show: loading it from a file, the [`BoardLevel`] resource the board and units
//! draw from, a built-in demo level, and the screen that lists a level's errors when it fails
//! to load (the game never panics on a bad level).

use std::path::Path;

use bevy::prelude::*;

use crate::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
use crate::rules::level::{self, Level};
use crate::rules::map::{Sight, Terrain, TerrainMap, kinds};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, show_errors.run_if(resource_exists::<LevelErrors>))
        .add_systems(
            Update,
            dismiss_errors.run_if(resource_exists::<LevelErrors>),
        );
}

/// The screen listing a level's errors.
#[derive(Component)]
pub struct ErrorScreen;

fn dismiss_errors(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    screens: Query<Entity, With<ErrorScreen>>,
    shot: Option<Res<super::shot::ShotRequest>>,
) {
    if shot.is_none() && keys.any_just_pressed([KeyCode::Escape, KeyCode::Enter]) {
        for e in &screens {
            commands.entity(e).despawn();
        }
        commands.remove_resource::<LevelErrors>();
    }
}

/// What the board and unit layers draw: a level's terrain and where its units stand.
#[derive(Resource, Debug, Clone)]
pub struct BoardLevel {
    pub name: String,
    pub terrain: TerrainMap,
    /// Side names, in the level's order (a unit's `side` indexes this).
    pub sides: Vec<String>,
    pub units: Vec<UnitMarker>,
}

/// A unit as the board shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitMarker {
    pub name: String,
    /// Index into [`BoardLevel::sides`]; `None` if the unit names no known side.
    pub side: Option<usize>,
    pub cell: Cell,
}

/// Why the level could not be loaded, one diagnostic per line (`file:line:col: error: ...`).
#[derive(Resource, Debug, Clone, Default)]
pub struct LevelErrors(pub Vec<String>);

/// Loads a level file. Never panics: every problem becomes a line of the error,
/// `file:line:col: error: message`.
pub fn load(path: &Path) -> Result<BoardLevel, Vec<String>> {
    level::load_path(path)
        .map(|l| BoardLevel::from_level(&l))
        .map_err(|diagnostics| diagnostics.iter().map(|d| d.to_string()).collect())
}

impl BoardLevel {
    /// What the board shows of a loaded level.
    pub fn from_level(level: &Level) -> Self {
        Self {
            name: level.name().to_string(),
            terrain: level.terrain.clone(),
            sides: level.file.sides.iter().map(|s| s.name.clone()).collect(),
            units: level
                .file
                .units
                .iter()
                .enumerate()
                .map(|(i, u)| UnitMarker {
                    name: u.name.clone(),
                    side: level.unit_side(i),
                    cell: Cell::new(u.cell.0, u.cell.1),
                })
                .collect(),
        }
    }
}

/// A built-in level showing every kind of tile, for `fray` without a level file.
pub fn demo(topology: Topology) -> BoardLevel {
    // Row 0 (top) has a gap at column 2 and the pillar sits top-left, so a mirrored
    // picture is easy to spot.
    const MAP: [&str; 9] = [
        "## #########",
        "#o....,,,..#",
        "#..~~..TT..|",
        "#..~~..TT..#",
        "|....::....#",
        "#..,,..o...#",
        "#..,,....TT#",
        "#......~~..#",
        "############",
    ];
    let t = |name: &str, cost: Option<u32>, sight: Sight, difficult: bool| Terrain {
        name: name.into(),
        cost,
        sight,
        difficult,
        door: None,
    };
    let legend = [
        ('.', kinds::floor()),
        (' ', kinds::floor()),
        (',', kinds::rough()),
        ('#', kinds::wall()),
        ('|', kinds::slit()),
        ('o', t("pillar", None, Sight::Opaque, false)),
        ('~', t("water", Some(3), Sight::Clear, true)),
        ('T', t("trees", Some(2), Sight::Opaque, true)),
        (':', t("rubble", Some(2), Sight::Clear, true)),
    ];
    let grid = Grid::new(topology, MAP[0].len() as u32, MAP.len() as u32);
    let cells = MAP
        .iter()
        .flat_map(|row| row.chars())
        .map(|g| legend.iter().position(|(k, _)| *k == g).unwrap_or(0) as u16)
        .collect();
    let kinds = legend.into_iter().map(|(_, t)| t).collect();
    let terrain = TerrainMap::new(grid, kinds, cells)
        .unwrap_or_else(|| TerrainMap::filled(grid, kinds::floor()));
    let unit = |name: &str, side, x, y| UnitMarker {
        name: name.into(),
        side: Some(side),
        cell: Cell::new(x, y),
    };
    BoardLevel {
        name: "Demo".into(),
        terrain,
        sides: vec!["Wardens".into(), "Raiders".into()],
        units: vec![
            unit("Aldric", 0, 2, 1),
            unit("Bryn", 0, 3, 5),
            unit("Cora", 0, 1, 4),
            unit("Drago", 1, 9, 1),
            unit("Esk", 1, 10, 4),
            unit("Fen", 1, 8, 7),
        ],
    }
}

/// The default topology of the demo level.
pub fn demo_topology() -> Topology {
    Topology::Square {
        diagonals: Diagonals::One,
    }
}

/// The demo on pointy hexes (used by tests and screenshots of hex drawing).
pub fn demo_hex(orientation: HexOrientation) -> BoardLevel {
    demo(Topology::Hex { orientation })
}

/// Fills the window with the level's errors.
fn show_errors(mut commands: Commands, errors: Res<LevelErrors>) {
    let font = |px: f32| TextFont {
        font_size: FontSize::Px(px),
        ..default()
    };
    commands
        .spawn((
            Name::new("Level errors"),
            ErrorScreen,
            GlobalZIndex(200),
            Node {
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                padding: UiRect::all(px(24)),
                row_gap: px(8),
                ..default()
            },
            BackgroundColor(Color::srgb(0.08, 0.07, 0.09)),
        ))
        .with_children(|parent| {
            parent.spawn((
                Text::new("This level cannot be loaded"),
                font(28.0),
                TextColor(Color::srgb(1.0, 0.55, 0.35)),
            ));
            for line in &errors.0 {
                parent.spawn((
                    Text::new(line.clone()),
                    font(16.0),
                    TextColor(Color::srgb(0.92, 0.9, 0.86)),
                ));
            }
            parent.spawn((
                Text::new("Press Esc to go on to the title screen."),
                font(16.0),
                TextColor(Color::srgb(0.6, 0.58, 0.56)),
            ));
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_uses_every_glyph_it_defines() {
        let level = demo(demo_topology());
        let grid = *level.terrain.grid();
        assert_eq!((grid.width, grid.height), (12, 9));
        for u in &level.units {
            assert!(grid.contains(u.cell), "{u:?}");
            assert!(level.terrain.passable(u.cell), "{u:?}");
        }
    }

    #[test]
    fn bad_files_give_errors_not_panics() {
        let dir = std::env::temp_dir().join(format!("fray-game-level-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let missing = dir.join("missing.ron");
        assert!(load(&missing).is_err());
        let garbage = dir.join("garbage.ron");
        std::fs::write(&garbage, "(name: \"x\", oops").expect("write");
        let errors = load(&garbage).expect_err("garbage");
        assert!(errors[0].contains("garbage.ron"), "{errors:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
