//! The field of view of a cell on a flat hex map: the open-box fast path, then the exact rule.
//!
//! The square maps' shadowcasts ([`super::fov`]) have no counterpart here yet; what carries
//! over is their first step, with the viewer's and the target's *cube box* in place of their
//! rectangle (see [`HexBoxes`] for why it is exact).

use super::fov::FovScratch;
use super::{Sight, TerrainMap, line_of_sight};
use crate::rules::grid::{Cell, CellMap, Grid};

/// The field of view of `from` (on the map) over a flat hex map: a cell whose *cube box* with
/// the viewer holds no solid cell but those two is seen (see [`hex_open`]); the exact rule
/// decides the others.
pub(super) fn hex_field(map: &TerrainMap, from: Cell, scratch: &mut FovScratch) -> CellMap<bool> {
    let grid = map.grid();
    scratch.hex.update(map);
    let open = HexBoxes::new(map, from, &scratch.hex);
    CellMap::from_fn(grid.width, grid.height, |c| {
        c == from || open.as_ref().is_some_and(|o| o.clear(c)) || line_of_sight(map, from, c)
    })
}

/// Which cells of a flat hex map the fast path of [`hex_field`] settles from `from` (for the
/// tests): `true` where the cube box holds no solid cell but the two ends.
#[cfg(test)]
pub(super) fn hex_open(map: &TerrainMap, from: Cell) -> Vec<bool> {
    let mut tables = HexTables::default();
    tables.update(map);
    let open = HexBoxes::new(map, from, &tables).expect("a test map is small");
    map.grid().cells().map(|c| open.clear(c)).collect()
}

/// The open-box test on hex maps. With cube coordinates `(q, r, s)` (`s = −q − r`, axial
/// `(q, r)` from [`Grid::to_axial`]), a point of the segment between the
/// centres of `a` and `b` has each cube coordinate between those of `a` and `b`, and a closed
/// hex holds only points within 2/3 of its centre's in each coordinate (its corners are at
/// `±(2/3, −1/3, −1/3)` and their permutations). So every hex the segment touches has each
/// cube coordinate between `a`'s and `b`'s: it lies in their *cube box*. If no cell of the box
/// but `a` and `b` is solid (Opaque, Slit or off the map), the segment crosses no solid
/// interior and runs along no seam of two solid hexes (rules 1–3; hexes have no rule 4), so
/// `a` sees `b`. Of the three deltas `(dq, dr, ds)`, which sum to 0, two have the same sign;
/// in those two coordinates the box is a parallelogram `[a0, a1] × [b0, b1]` (the third bound
/// follows), whose clear cells a table of prefix sums counts in O(1).
struct HexBoxes<'t> {
    grid: Grid,
    from: (i64, i64, i64),
    from_solid: i64,
    sight: &'t [Sight],
    table: &'t [u32],
    /// Per coordinate pair: the least `a` and `b`, the row length, and where its table starts.
    frames: [(i64, i64, i64, usize); 3],
}

/// The coordinate pairs (q, r), (q, s) and (r, s) of a cube position.
fn cube_pair(k: usize, (q, r, s): (i64, i64, i64)) -> (i64, i64) {
    match k {
        0 => (q, r),
        1 => (q, s),
        _ => (r, s),
    }
}

/// The cube coordinates of a cell.
fn cube(grid: &Grid, c: Cell) -> (i64, i64, i64) {
    let (q, r) = grid.to_axial(c);
    let (q, r) = (i64::from(q), i64::from(r));
    (q, r, -q - r)
}

/// The prefix sums of a hex map's clear cells over its three pairs of cube coordinates, for
/// [`HexBoxes`]. They depend on the map only, so a [`FovScratch`] keeps them from one field to
/// the next while the map's grid and sight layer are the same (checked at each field).
#[derive(Debug, Default)]
pub(crate) struct HexTables {
    /// The grid and sight layer the tables were made from.
    grid: Option<Grid>,
    source: Vec<Sight>,
    table: Vec<u32>,
    /// Per coordinate pair: the least `a` and `b`, the row length, and where its table starts.
    frames: [(i64, i64, i64, usize); 3],
    /// `false` if the map is so long and thin that the tables would hold more than 32 entries
    /// a cell (their frames are sheared) and 1024 more: then there are none.
    usable: bool,
}

impl HexTables {
    /// Remakes the tables unless they were made from this map's grid and sight layer.
    fn update(&mut self, map: &TerrainMap) {
        let grid = *map.grid();
        let sight = map.sight_map().as_slice();
        if self.grid == Some(grid) && self.source == sight {
            return;
        }
        self.grid = Some(grid);
        self.source.clear();
        self.source.extend_from_slice(sight);
        self.usable = false;
        let table = &mut self.table;
        let cube = |c: Cell| cube(&grid, c);
        table.clear();
        // The cube coordinates' ranges over the map.
        let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
        for c in grid.cells() {
            let (q, r, s) = cube(c);
            for (k, v) in [q, r, s].into_iter().enumerate() {
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
            }
        }
        let coords = [(0, 1), (0, 2), (1, 2)];
        let size: i64 = coords
            .iter()
            .map(|&(x, y)| (hi[x] - lo[x] + 2) * (hi[y] - lo[y] + 2))
            .sum();
        if size > 32 * grid.len() as i64 + 1024 {
            return;
        }
        for (k, frame) in self.frames.iter_mut().enumerate() {
            let (x, y) = coords[k];
            let (lo, hi) = ((lo[x], lo[y]), (hi[x], hi[y]));
            // One guard row and column of zeros: entry (a − a0 + 1, b − b0 + 1) counts the
            // clear cells with coordinates up to (a, b).
            let (na, nb) = (hi.0 - lo.0 + 2, hi.1 - lo.1 + 2);
            let start = table.len();
            table.resize(start + (na * nb) as usize, 0);
            let t = &mut table[start..];
            for (i, c) in grid.cells().enumerate() {
                if sight[i] == Sight::Clear {
                    let (a, b) = cube_pair(k, cube(c));
                    t[((b - lo.1 + 1) * na + a - lo.0 + 1) as usize] = 1;
                }
            }
            for b in 1..nb {
                for a in 1..na {
                    let i = (b * na + a) as usize;
                    t[i] += t[i - 1] + t[i - na as usize] - t[i - na as usize - 1];
                }
            }
            *frame = (lo.0, lo.1, na, start);
        }
        self.usable = true;
    }
}

impl<'t> HexBoxes<'t> {
    /// The open-box test from `from`, or `None` if the map has no tables (see [`HexTables`]).
    /// `tables` must have been made from `map`.
    fn new(map: &'t TerrainMap, from: Cell, tables: &'t HexTables) -> Option<Self> {
        let grid = *map.grid();
        let sight = map.sight_map().as_slice();
        if !tables.usable || tables.grid != Some(grid) {
            return None;
        }
        let fi = grid.index(from)?;
        Some(Self {
            grid,
            from: cube(&grid, from),
            from_solid: i64::from(sight[fi] != Sight::Clear),
            sight,
            table: tables.table.as_slice(),
            frames: tables.frames,
        })
    }

    /// Whether the cube box of the viewer and `c` (on the map) holds no solid cell but those
    /// two.
    fn clear(&self, c: Cell) -> bool {
        let Some(i) = self.grid.index(c) else {
            return false;
        };
        let (q, r) = self.grid.to_axial(c);
        let (q, r) = (i64::from(q), i64::from(r));
        let to = (q, r, -q - r);
        let d = (to.0 - self.from.0, to.1 - self.from.1, to.2 - self.from.2);
        if d == (0, 0, 0) {
            return true;
        }
        // Two deltas of the same sign (or zero) name the pair.
        let k = if d.0 * d.1 >= 0 {
            0
        } else if d.0 * d.2 >= 0 {
            1
        } else {
            2
        };
        let (a0, b0, na, start) = self.frames[k];
        let ((fa, fb), (ta, tb)) = (cube_pair(k, self.from), cube_pair(k, to));
        let (x0, x1) = (fa.min(ta) - a0, fa.max(ta) - a0 + 1);
        let (y0, y1) = (fb.min(tb) - b0, fb.max(tb) - b0 + 1);
        let at = |x: i64, y: i64| i64::from(self.table[start + (y * na + x) as usize]);
        let clear = at(x1, y1) + at(x0, y0) - at(x1, y0) - at(x0, y1);
        let area = (x1 - x0) * (y1 - y0);
        let to_solid = i64::from(self.sight[i] != Sight::Clear);
        clear + self.from_solid + to_solid == area
    }
}
