//! The board: draws the level's terrain as a bevy_ecs_tilemap tilemap (square, pointy hex or
//! flat hex), one tile per cell, each tagged with its [`BoardCell`].
//!
//! # Coordinates
//! Our [`Cell`] `{x, y}` counts rows from the *top*; bevy_ecs_tilemap's `TilePos` counts them
//! from the bottom (world y goes up). So a cell's tile is `(x, height - 1 - y)`, and the hex
//! offset layouts must be re-chosen after that flip (see [`BoardLayout::map_type`]).

use std::sync::Arc;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use super::Screen;
use super::art::{Art, TileArt, TileShape};
use super::battle::Battle;
use super::level::BoardLevel;
use crate::rules::fog;
use crate::rules::grid::{Cell, CellMap, Grid, HexOrientation, Topology};
use crate::rules::map::TerrainMap;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Fogged>();
    app.add_systems(Startup, spawn_board);
    app.add_systems(
        Update,
        (sync_board, hide_for_hand_over, fog_tint)
            .chain()
            .in_set(super::AppSystems::Update)
            .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
    );
}

/// Everything drawn in the world for a battle (board, tokens, overlays): hidden while the
/// hot-seat hand-over screen is up.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct OnBoard;

/// The terrain a board draws (a new battle's terrain rebuilds the board).
#[derive(Component, Debug, Clone)]
pub struct BoardTerrain(pub Arc<TerrainMap>);

/// Builds the battle's board when the battle (its terrain) changes.
fn sync_board(
    mut commands: Commands,
    battle: Res<Battle>,
    art: Res<Art>,
    boards: Query<(Entity, &BoardTerrain, &TileStorage)>,
) {
    let terrain = &battle.state.terrain;
    if boards.iter().any(|(_, t, _)| Arc::ptr_eq(&t.0, terrain)) {
        return;
    }
    for (e, _, storage) in &boards {
        for tile in storage.iter().flatten() {
            commands.entity(*tile).despawn();
        }
        commands.entity(e).despawn();
    }
    let board = spawn_tilemap(&mut commands, terrain, &art);
    commands.entity(board).insert((
        BoardTerrain(terrain.clone()),
        OnBoard,
        DespawnOnExit(Screen::Battle),
    ));
}

fn hide_for_hand_over(
    hotseat: Res<super::hotseat::HotSeat>,
    mut q: Query<&mut Visibility, With<OnBoard>>,
) {
    let want = if hotseat.waiting {
        Visibility::Hidden
    } else {
        Visibility::Inherited
    };
    for mut v in &mut q {
        if *v != want {
            *v = want;
        }
    }
}

/// The tilemap entity of the board.
#[derive(Component, Debug, Clone, Copy)]
pub struct Board;

/// The level cell a tile shows.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardCell(pub Cell);

/// The z of the board; everything on it draws above.
pub const BOARD_Z: f32 = 0.0;

/// How a grid is laid out as a tilemap: the pure geometry, usable without a running app.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardLayout {
    pub grid: Grid,
    pub shape: TileShape,
    pub map_type: TilemapType,
    pub map_size: TilemapSize,
    pub tile_size: TilemapTileSize,
    pub grid_size: TilemapGridSize,
    pub anchor: TilemapAnchor,
    /// Where the tilemap's transform sits so that the drawn board is centred on the world
    /// origin (bevy_ecs_tilemap's own `Center` anchor is off by part of a hex on hex maps).
    pub offset: Vec2,
}

impl BoardLayout {
    pub fn new(grid: Grid) -> Self {
        let shape = TileShape::of(grid.topology);
        let (w, h) = shape.tile_size();
        let tile_size = TilemapTileSize::new(w as f32, h as f32);
        let mut layout = Self {
            grid,
            shape,
            map_type: Self::map_type(grid),
            map_size: TilemapSize::new(grid.width.max(1), grid.height.max(1)),
            tile_size,
            grid_size: tile_size.into(),
            anchor: TilemapAnchor::None,
            offset: Vec2::ZERO,
        };
        layout.offset = -layout.bounds().center();
        layout
    }

    /// The tilemap type that draws `grid` with rows flipped (tile y = height − 1 − row).
    ///
    /// - **Pointy hexes** are "odd-r" in our top-down rows: odd rows sit half a hex right.
    ///   bevy_ecs_tilemap's `RowOdd` shifts odd *tile* rows right, `RowEven` shifts them left
    ///   (i.e. even rows sit right). Row `y` becomes tile row `height − 1 − y`, which has the
    ///   same parity when the height is odd and the opposite parity when it is even. So: odd
    ///   height → `RowOdd`, even height → `RowEven`.
    /// - **Flat hexes** are "odd-q": odd columns sit half a hex *down* (towards larger rows).
    ///   Columns keep their parity, but the flip turns "down" into "world −y"; `ColumnOdd`
    ///   raises odd columns (world +y) and `ColumnEven` lowers them. So always `ColumnEven`.
    pub fn map_type(grid: Grid) -> TilemapType {
        match grid.topology {
            Topology::Square { .. } => TilemapType::Square,
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            } => TilemapType::Hexagon(if grid.height % 2 == 1 {
                HexCoordSystem::RowOdd
            } else {
                HexCoordSystem::RowEven
            }),
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => TilemapType::Hexagon(HexCoordSystem::ColumnEven),
        }
    }

    /// The tile of an in-bounds cell.
    pub fn tile_pos(&self, cell: Cell) -> Option<TilePos> {
        self.grid.contains(cell).then(|| TilePos {
            x: cell.x as u32,
            y: self.grid.height - 1 - cell.y as u32,
        })
    }

    /// The cell a tile shows (the inverse of [`BoardLayout::tile_pos`]).
    pub fn cell(&self, pos: TilePos) -> Option<Cell> {
        (pos.x < self.grid.width && pos.y < self.grid.height)
            .then(|| Cell::new(pos.x as i32, (self.grid.height - 1 - pos.y) as i32))
    }

    /// The world position of the centre of an in-bounds cell, with the board's tilemap at
    /// [`BoardLayout::offset`] (as the board plugin spawns it).
    pub fn cell_center(&self, cell: Cell) -> Option<Vec2> {
        let pos = self.tile_pos(cell)?;
        Some(
            self.offset
                + pos.center_in_world(
                    &self.map_size,
                    &self.grid_size,
                    &self.tile_size,
                    &self.map_type,
                    &self.anchor,
                ),
        )
    }

    /// The world rectangle the drawn board covers (centred on the origin).
    pub fn bounds(&self) -> Rect {
        let half = Vec2::new(self.tile_size.x, self.tile_size.y) / 2.0;
        self.grid
            .cells()
            .filter_map(|cell| self.cell_center(cell))
            .map(|c| Rect::from_center_half_size(c, half))
            .reduce(|a, b| a.union(b))
            .unwrap_or_default()
    }

    /// The atlas index of each cell's tile, row-major (the order of [`Grid::cells`]).
    pub fn texture_indices(terrain: &TerrainMap) -> Vec<u32> {
        let art: Vec<u32> = terrain
            .kinds()
            .iter()
            .map(|t| TileArt::for_terrain(t).index())
            .collect();
        terrain
            .grid()
            .cells()
            .map(|c| {
                terrain
                    .kind_index(c)
                    .and_then(|k| art.get(k as usize).copied())
                    .unwrap_or(TileArt::Floor.index())
            })
            .collect()
    }
}

fn spawn_board(mut commands: Commands, level: Option<Res<BoardLevel>>, art: Res<Art>) {
    let Some(level) = level else {
        return;
    };
    spawn_tilemap(&mut commands, &level.terrain, &art);
}

/// Spawns the board's tilemap and one tile per cell; returns the tilemap entity.
fn spawn_tilemap(commands: &mut Commands, terrain: &TerrainMap, art: &Art) -> Entity {
    let layout = BoardLayout::new(*terrain.grid());
    let indices = BoardLayout::texture_indices(terrain);
    // The tiles need the tilemap's id, and the tilemap needs the tiles in its storage.
    let board = commands.spawn_empty().id();
    let mut storage = TileStorage::empty(layout.map_size);
    for (cell, index) in layout.grid.cells().zip(indices) {
        let Some(position) = layout.tile_pos(cell) else {
            continue;
        };
        let tile = commands
            .spawn((
                BoardCell(cell),
                DespawnOnExit(Screen::Battle),
                TileBundle {
                    position,
                    texture_index: TileTextureIndex(index),
                    tilemap_id: TilemapId(board),
                    color: TileColor(height_shade(terrain, cell)),
                    ..Default::default()
                },
            ))
            .id();
        storage.set(&position, tile);
    }
    commands.entity(board).insert((
        Name::new("Board"),
        Board,
        BoardGrid(layout.grid),
        TilemapBundle {
            grid_size: layout.grid_size,
            map_type: layout.map_type,
            size: layout.map_size,
            storage,
            texture: TilemapTexture::Single(art.atlas(layout.shape)),
            tile_size: layout.tile_size,
            anchor: layout.anchor,
            transform: Transform::from_translation(layout.offset.extend(BOARD_Z)),
            ..Default::default()
        },
    ));
    board
}

/// The tint of a cell's tile for its ground's height: the highest ground keeps its colours,
/// lower ground is drawn darker (a flat map is not tinted).
pub fn height_shade(terrain: &TerrainMap, cell: Cell) -> Color {
    let top = terrain.max_height();
    if top == 0 {
        return Color::WHITE;
    }
    let k = 0.62 + 0.38 * f32::from(terrain.height(cell)) / f32::from(top);
    Color::srgb(k, k, k)
}

/// How much darker a cell the viewer's side does not see is drawn, under fog of war.
pub const FOGGED: f32 = 0.42;

/// The cells the viewer's side sees under fog of war (`None`: no fog, or a spectator; every
/// cell is lit). Worked out once per change of the view, for the board's shade and the
/// overlays drawn over it.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct Fogged(pub Option<CellMap<bool>>);

impl Fogged {
    /// Whether `cell` is drawn lit (seen by the viewer's side).
    pub fn lit(&self, cell: Cell) -> bool {
        self.0
            .as_ref()
            .is_none_or(|m| m.get(cell).copied().unwrap_or(true))
    }

    /// `colour` as drawn on `cell`: darkened as the fog darkens the cell under it, so an
    /// overlay (reach, threat) never hides which cells are out of sight.
    pub fn shade(&self, cell: Cell, colour: Color) -> Color {
        if self.lit(cell) {
            return colour;
        }
        let c = colour.to_srgba();
        Color::srgba(c.red * FOGGED, c.green * FOGGED, c.blue * FOGGED, c.alpha)
    }
}

/// Fog of war: darkens the cells the viewer's units do not see ([`fog::seen_cells`]), over
/// the height shade, whenever the view changes. A spectator, or a battle without fog, sees
/// every cell lit.
fn fog_tint(
    view: Res<crate::game::hud::View>,
    mut fogged: ResMut<Fogged>,
    mut tiles: Query<(&BoardCell, &mut TileColor)>,
) {
    if !view.is_changed() {
        return;
    }
    let Some(s) = view.state.as_ref() else {
        return;
    };
    let seen = match view.viewer {
        Some(v) if s.fog.is_some() => Some(fog::seen_cells(s, v)),
        _ => None,
    };
    fogged.set_if_neq(Fogged(seen));
    for (cell, mut colour) in &mut tiles {
        let k = if fogged.lit(cell.0) { 1.0 } else { FOGGED };
        let base = height_shade(&s.terrain, cell.0).to_srgba();
        let tint = Color::srgb(base.red * k, base.green * k, base.blue * k);
        if colour.0 != tint {
            colour.0 = tint;
        }
    }
}

/// The grid a board entity draws.
#[derive(Component, Debug, Clone, Copy)]
pub struct BoardGrid(pub Grid);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::grid::Diagonals;

    fn layouts() -> Vec<BoardLayout> {
        let mut out = vec![];
        for (w, h) in [(5, 4), (5, 5), (6, 7), (7, 6), (1, 1), (2, 3)] {
            for topology in [
                Topology::Square {
                    diagonals: Diagonals::One,
                },
                Topology::Hex {
                    orientation: HexOrientation::Pointy,
                },
                Topology::Hex {
                    orientation: HexOrientation::Flat,
                },
            ] {
                out.push(BoardLayout::new(Grid::new(topology, w, h)));
            }
        }
        out
    }

    #[test]
    fn tiles_round_trip_and_rows_are_flipped() {
        for layout in layouts() {
            let h = layout.grid.height;
            for cell in layout.grid.cells() {
                let pos = layout.tile_pos(cell).expect("in bounds");
                assert_eq!(pos.y, h - 1 - cell.y as u32);
                assert_eq!(layout.cell(pos), Some(cell));
            }
            assert_eq!(layout.tile_pos(Cell::new(-1, 0)), None);
            assert_eq!(layout.tile_pos(Cell::new(0, h as i32)), None);
        }
    }

    #[test]
    fn row_zero_is_at_the_top_and_column_zero_at_the_left() {
        for layout in layouts() {
            let (w, h) = (layout.grid.width as i32, layout.grid.height as i32);
            if h > 1 {
                let top = layout.cell_center(Cell::new(0, 0)).unwrap();
                let below = layout.cell_center(Cell::new(0, h - 1)).unwrap();
                assert!(top.y > below.y, "{layout:?}");
            }
            if w > 1 {
                let left = layout.cell_center(Cell::new(0, 0)).unwrap();
                let right = layout.cell_center(Cell::new(w - 1, 0)).unwrap();
                assert!(left.x < right.x, "{layout:?}");
            }
        }
    }

    /// The drawn centres must agree with the rules' neighbourhood: two cells are drawn side
    /// by side exactly when the grid calls them adjacent. This is what catches a wrong
    /// odd/even offset choice after the row flip.
    #[test]
    fn drawn_neighbours_are_grid_neighbours() {
        for layout in layouts() {
            let grid = layout.grid;
            let step = layout.tile_size.x.min(layout.tile_size.y);
            for a in grid.cells() {
                for b in grid.cells() {
                    if a == b {
                        continue;
                    }
                    let d = layout
                        .cell_center(a)
                        .unwrap()
                        .distance(layout.cell_center(b).unwrap());
                    let touching = if grid.topology.is_hex() {
                        d < step * 1.1
                    } else {
                        // Diagonal squares count too (Diagonals::One).
                        d < step * 1.5
                    };
                    assert_eq!(
                        touching,
                        grid.is_adjacent(a, b),
                        "{:?} {a} {b} at distance {d}",
                        grid.topology
                    );
                }
            }
        }
    }

    #[test]
    fn odd_rows_shift_right_on_pointy_and_odd_columns_down_on_flat() {
        for h in [4, 5] {
            let pointy = BoardLayout::new(Grid::new(
                Topology::Hex {
                    orientation: HexOrientation::Pointy,
                },
                4,
                h,
            ));
            let even = pointy.cell_center(Cell::new(0, 0)).unwrap();
            let odd = pointy.cell_center(Cell::new(0, 1)).unwrap();
            assert!(odd.x > even.x, "height {h}");
            let flat = BoardLayout::new(Grid::new(
                Topology::Hex {
                    orientation: HexOrientation::Flat,
                },
                4,
                h,
            ));
            let even = flat.cell_center(Cell::new(0, 0)).unwrap();
            let odd = flat.cell_center(Cell::new(1, 0)).unwrap();
            assert!(odd.y < even.y, "height {h}");
        }
    }

    #[test]
    fn bounds_hold_every_centre() {
        for layout in layouts() {
            let b = layout.bounds();
            for cell in layout.grid.cells() {
                assert!(b.contains(layout.cell_center(cell).unwrap()));
            }
            // Centred on the origin.
            assert!(b.center().length() < 0.01, "{layout:?} {b:?}");
        }
    }
}
