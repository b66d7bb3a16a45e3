//! Line of sight and cover, in exact integer geometry on square and hex grids.
//!
//! # The rule (from the source rules text of `sides`)
//! In Fray's words: one unit sees another if a straight line can join some point of the
//! first's cell to some point of the second's without passing through anything solid (a
//! wall, never another character). A defender the attacker sees has *half cover* if the
//! attacker cannot see every corner of the defender's cell, and *full cover* if it can see
//! none of them.
//!
//! Units never block sight: only terrain does, through its [`Sight`] value.
//!
//! # Examples
//!
//! ```
//! use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
//! use fray::rules::map::{TerrainMap, kinds};
//! use fray::rules::sight::{Cover, cover, line_of_sight};
//!
//! /// A square map drawn row by row: `.` floor, `#` wall, `+` arrow slit.
//! fn map(rows: &[&str]) -> TerrainMap {
//!     let square = Topology::Square { diagonals: Diagonals::One };
//!     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
//!     let glyph = |c| match c {
//!         '#' => 1,
//!         '+' => 2,
//!         _ => 0,
//!     };
//!     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
//!     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall(), kinds::slit()], cells).unwrap()
//! }
//!
//! let keep = map(&[
//!     "......",
//!     "......",
//!     "...###",
//!     "......",
//! ]);
//! let (archer, target) = (Cell::new(0, 0), Cell::new(4, 3));
//! assert!(line_of_sight(&keep, archer, target));
//! // Only the target's lower-left corner can be seen past the end of the wall.
//! assert_eq!(cover(&keep, archer, target), Cover::Half);
//! // Sight is symmetric; here the archer, seen past the same wall end, has half cover too.
//! assert!(line_of_sight(&keep, target, archer));
//! assert_eq!(cover(&keep, target, archer), Cover::Half);
//! // In the open, nothing covers.
//! assert_eq!(cover(&keep, archer, Cell::new(5, 0)), Cover::None);
//! ```
//!
//! # Geometry
//! Everything is integer arithmetic; there is no float anywhere in the rules (the only float is
//! [`Point::to_grid_f32`], for drawing). Points are [`Point`]s at scale [`SCALE`] = 6, so cell
//! centres and the slit apertures (a third of a cell) fall on integers.
//!
//! - **Square** cell `(x, y)` is the closed square `[6x, 6x+6] × [6y, 6y+6]`; its centre is
//!   `(6x+3, 6y+3)`, its corners are the four corners of that square. Cell edges lie on the
//!   lines `x = 6k` and `y = 6k`.
//! - **Hex** cell: take its axial `(q, r)` ([`Grid::to_axial`]) and the affine map
//!   `(A, B) = (2q + r, q + 2r)`. The centre is `6·(A, B)` and the six corners are
//!   `centre + 6·{(1,1), (1,0), (0,-1), (-1,-1), (-1,0), (0,1)}`. In this plane every hex edge
//!   lies on one of the three line families `A = 6k`, `B = 6k`, `A − B = 6k`, and the same lines
//!   also cut each hex into six triangles along its three long diagonals ("spokes"). Every
//!   lattice triangle between those lines belongs to exactly one hex: of its three vertices
//!   exactly one has `A + B ≡ 0 (mod 3)` (in units of 6), and that vertex is the hex's centre,
//!   with `q = (2A − B)/3`, `r = (2B − A)/3`.
//!
//!   The `(A, B)` plane is an affine image of the drawn hex map (see [`Point::to_grid_f32`]).
//!   Affine maps preserve which cells a segment meets, whether it passes through a corner or
//!   runs along an edge, and whether it touches a convex polygon, so every answer here is the
//!   answer for the drawn map. Pointy- and flat-topped maps share this geometry: they differ
//!   only in the offset ↔ axial conversion, which [`Grid`] does.
//!
//! **Sample points** of a cell ([`samples`]): its centre and its corners (4 or 6).
//!
//! # Judging one segment ([`segment_clear`])
//! A segment is judged together with its two *end cells* (the viewer's and the target's own
//! cells). Each cell is classified:
//! - [`Sight::Clear`] never blocks;
//! - [`Sight::Opaque`] and [`Sight::Slit`] are *solid*;
//! - cells outside the map are [`Sight::Opaque`] (the map's edge is a wall);
//! - the two end cells are always treated as [`Sight::Clear`], whatever their terrain.
//!
//! The segment is **blocked** if and only if one of these holds:
//! 1. it passes through the open interior of an Opaque cell;
//! 2. it passes through the open interior of a Slit cell and does not meet (touch or cross) that
//!    cell's *aperture*: the closed central sub-cell, i.e. the cell scaled by 1/3 about its
//!    centre (`[6x+2, 6x+4] × [6y+2, 6y+4]` on squares; on hexes the hexagon with corners
//!    `centre + 2·{(1,1), (1,0), …}`);
//! 3. it runs (over a positive length) along an edge whose two cells are both solid: a seam
//!    inside a wall mass. Running along the outer face of a wall, with a clear cell on the other
//!    side, is **grazing** and does not block;
//! 4. squares only: it passes through a grid vertex strictly between its two endpoints where a
//!    diagonal pair of the four cells around that vertex are both solid (a **pinch**: two wall
//!    cells that touch only at a corner are watertight). Touching the corner of a lone wall, or
//!    of two walls side by side, does not block.
//!
//! Hex grids need no vertex rule: exactly three hexes meet at a corner and each two of them
//! share an edge, so no two solid hexes can touch at a corner only. A line through a corner
//! leaves two opposite rays; edges there are 120° apart, so at least one ray runs inside an
//! open hex (which must then be clear) and if the other runs along an edge, one of its two
//! hexes must be clear (rule 3). Either way all solid matter near the corner is a single hex on
//! one side of the line: exactly a lone-corner graze.
//!
//! A segment's own endpoints are never "passed through": a segment that ends exactly at a
//! wall's corner is judged by what it crosses on the way. A zero-length segment (a single
//! point: two cells that share a corner, looking through it) is blocked only if that point lies
//! inside a blocking cell (rules 1–2) or on a seam (rule 3).
//!
//! Every rule is a property of the *set of points* of the segment, never of its direction, so
//! the verdict is **identical in both directions**, and so are [`line_of_sight`] and the
//! "corner seen" relation below.
//!
//! # Line of sight ([`line_of_sight`])
//! "Any point of the cube" is read as "its centre or any of its corners": `a` sees `b` iff some
//! sample point of `a` is joined to some sample point of `b` by a clear segment (end cells
//! `a`, `b`). A cell sees itself. A cell outside the map sees nothing. Two cells that share an
//! edge or a corner always see each other (through the shared boundary).
//!
//! # Cover ([`cover`])
//! Rays start from **each** sample point of the attacker (centre and every corner). A corner of
//! the defender is *seen* if one of them reaches it with a clear segment. All corners seen:
//! [`Cover::None`]; some: [`Cover::Half`]; none, but the attacker still has line of sight:
//! [`Cover::Full`] (typically looking through an arrow slit); no line of sight:
//! [`Cover::Blocked`].
//!
//! # Cost
//! A segment is walked exactly by an integer DDA over the two (square) or three (hex) line
//! families: each family's next crossing parameter `t = (6k − f(P)) / Δf` is kept as an
//! integer numerator over a shared denominator and advanced by a constant, so the inner loop
//! has no division, no allocation and reads the map's sight layer as a flat slice.
//!
//! A query has up to 25 (square) or 49 (hex) rays. Line of sight walks centre to centre first
//! and stops at the first clear ray. When a walk is stopped inside a blocking cell, that cell
//! is tested at once against every ray still in doubt (an exact O(1) separating-axis test,
//! batched over all rays in `i32` lanes on maps up to 512 cells across), and the
//! rays it blocks are settled without a walk of their own. The short cut never changes a
//! verdict: the tests agree with the walker exactly, which the tests check against a
//! brute-force reference.
//!
//! A consequence of starting rays at corners: two cells that share an edge or a corner never
//! have cover from each other (from the shared corner every corner of the other cell is
//! reached along its edges or across it).

use crate::rules::grid::{Cell, CellMap, Grid, HexOrientation, Topology};
use crate::rules::map::{Sight, TerrainMap};
use serde::{Deserialize, Serialize};

/// Points are in units of 1/6 of a cell (see the module docs).
pub const SCALE: i32 = 6;

const S: i64 = SCALE as i64;

/// A point of the sight plane, in integer units of 1/[`SCALE`] of a cell (square grids) or of
/// the `(A, B)` hex plane (hex grids); see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }

    /// Continuous grid coordinates **for drawing only** (never used by the rules).
    ///
    /// - Square grids: units of one cell, origin at the top-left corner of cell `(0, 0)`, so
    ///   cell `(x, y)` covers `[x, x+1] × [y, y+1]` and its centre is `(x + 0.5, y + 0.5)`.
    /// - Hex grids: units of the hex's circumradius (centre to corner), `y` pointing down,
    ///   origin at the centre of cell `(0, 0)`. The centre of axial `(q, r)` is at
    ///   `(√3·(q + r/2), 1.5·r)` for pointy tops and `(1.5·q, √3·(r + q/2))` for flat tops.
    pub fn to_grid_f32(self, grid: &Grid) -> [f32; 2] {
        let (x, y) = (self.x as f32 / SCALE as f32, self.y as f32 / SCALE as f32);
        match grid.topology {
            Topology::Square { .. } => [x, y],
            Topology::Hex { orientation } => {
                // (A, B) = (2q + r, q + 2r)  ⇒  q = (2A − B)/3, r = (2B − A)/3.
                let q = (2.0 * x - y) / 3.0;
                let r = (2.0 * y - x) / 3.0;
                // The axial origin is cell (0, 0) for both offset layouts.
                let sqrt3 = 3f32.sqrt();
                match orientation {
                    HexOrientation::Pointy => [sqrt3 * (q + r / 2.0), 1.5 * r],
                    HexOrientation::Flat => [1.5 * q, sqrt3 * (r + q / 2.0)],
                }
            }
        }
    }
}

/// How well a defender is covered from an attacker. Ordered from least to most protected.
///
/// # Examples
///
/// ```
/// use fray::rules::sight::Cover;
///
/// assert!(Cover::None < Cover::Half && Cover::Half < Cover::Full);
/// assert_eq!([Cover::Blocked, Cover::Half].iter().min(), Some(&Cover::Half));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Cover {
    /// The attacker sees every corner of the defender's cell.
    None,
    /// The attacker sees some but not all corners.
    Half,
    /// The attacker sees no corner but still has line of sight (e.g. through an arrow slit).
    Full,
    /// No line of sight at all.
    Blocked,
}

/// The sample points of a cell: its centre, then its corners (4 or 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Samples {
    points: [Point; 7],
    len: usize,
}

impl Samples {
    pub fn centre(&self) -> Point {
        self.points[0]
    }

    /// The corners: square `(0,0) (1,0) (1,1) (0,1)` relative to the cell; hex
    /// `centre + 6·{(1,1), (1,0), (0,-1), (-1,-1), (-1,0), (0,1)}`.
    pub fn corners(&self) -> &[Point] {
        &self.points[1..self.len]
    }

    /// The centre, then the corners.
    pub fn all(&self) -> &[Point] {
        &self.points[..self.len]
    }
}

/// The centre of a cell (any cell, on the map or not).
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
/// use fray::rules::sight::{Point, centre};
///
/// let square = Grid::new(Topology::Square { diagonals: Diagonals::One }, 4, 4);
/// assert_eq!(centre(&square, Cell::new(1, 2)), Point::new(9, 15));
/// // Hexes: axial (q, r) = (1, 1) lies at 6·(2q + r, q + 2r).
/// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 4, 4);
/// assert_eq!(centre(&hex, Cell::new(1, 1)), Point::new(18, 18));
/// ```
pub fn centre(grid: &Grid, c: Cell) -> Point {
    match grid.topology {
        Topology::Square { .. } => Point::new(SCALE * c.x + 3, SCALE * c.y + 3),
        Topology::Hex { .. } => {
            let (q, r) = grid.to_axial(c);
            Point::new(SCALE * (2 * q + r), SCALE * (q + 2 * r))
        }
    }
}

/// The sample points of a cell (see [`Samples`]).
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
/// use fray::rules::sight::{Point, samples};
///
/// let square = Grid::new(Topology::Square { diagonals: Diagonals::One }, 4, 4);
/// let s = samples(&square, Cell::new(1, 0));
/// assert_eq!(s.centre(), Point::new(9, 3));
/// assert_eq!(
///     s.corners(),
///     [Point::new(6, 0), Point::new(12, 0), Point::new(12, 6), Point::new(6, 6)]
/// );
/// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Flat }, 4, 4);
/// assert_eq!(samples(&hex, Cell::new(2, 2)).all().len(), 7);
/// ```
pub fn samples(grid: &Grid, c: Cell) -> Samples {
    let ctr = centre(grid, c);
    let offsets: &[(i32, i32)] = match grid.topology {
        Topology::Square { .. } => &SQUARE_OFFSETS,
        Topology::Hex { .. } => &HEX_OFFSETS,
    };
    let mut points = [ctr; 7];
    for (slot, (u, v)) in points.iter_mut().zip(offsets) {
        *slot = Point::new(ctr.x + u, ctr.y + v);
    }
    let len = offsets.len();
    Samples { points, len }
}

/// Whether the segment `p`–`q` is clear, with `ends` as its end cells (treated as clear).
/// See the module docs for the exact rule; the answer is the same for `q`–`p`.
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// use fray::rules::map::{TerrainMap, kinds};
/// use fray::rules::sight::{Point, segment_clear};
///
/// // A 3×3 room with a wall in the middle.
/// let grid = Grid::new(Topology::Square { diagonals: Diagonals::One }, 3, 3);
/// let kinds = vec![kinds::floor(), kinds::wall()];
/// let room = TerrainMap::new(grid, kinds, vec![0, 0, 0, 0, 1, 0, 0, 0, 0]).unwrap();
/// let ends = (Cell::new(0, 1), Cell::new(2, 1));
/// // Centre to centre goes through the wall...
/// assert!(!segment_clear(&room, Point::new(3, 9), Point::new(15, 9), ends));
/// // ...but along its top face it only grazes it, in either direction.
/// assert!(segment_clear(&room, Point::new(6, 6), Point::new(12, 6), ends));
/// assert!(segment_clear(&room, Point::new(12, 6), Point::new(6, 6), ends));
/// ```
pub fn segment_clear(map: &TerrainMap, p: Point, q: Point, ends: (Cell, Cell)) -> bool {
    Ctx::new(map, ends).walk(p, q) == Walk::Clear
}

/// Whether `a` and `b` see each other (symmetric). See the module docs.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::sight::line_of_sight;
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let (a, b) = (Cell::new(0, 1), Cell::new(4, 1));
/// // A lone wall cell can be seen past: the lines along its faces only graze it.
/// let pillar = map(&[".....", "..#..", "....."]);
/// assert!(line_of_sight(&pillar, a, b));
/// // A wall across the whole room cannot.
/// let wall = map(&["..#..", "..#..", "..#.."]);
/// assert!(!line_of_sight(&wall, a, b));
/// assert!(!line_of_sight(&wall, b, a));
/// // Nothing is seen off the map.
/// assert!(!line_of_sight(&pillar, a, Cell::new(9, 9)));
/// ```
pub fn line_of_sight(map: &TerrainMap, a: Cell, b: Cell) -> bool {
    let grid = map.grid();
    if !grid.contains(a) || !grid.contains(b) {
        return false;
    }
    a == b || sight_line(map, a, b).is_some()
}

/// Every cell `from` sees: a map of the grid with `true` exactly where [`line_of_sight`] from
/// `from` holds (so `from` itself, and nothing if `from` is off the map). Doors count as what
/// they are now: a shut one is opaque, an open one clear.
///
/// It never disagrees with an attack's line of sight or with the cover a target has: on flat
/// square maps, open rectangles and shadowcasts from the viewer's sample points prove most
/// cells seen or unseen with the rule of this module (the proofs are in the `fov` module's
/// docs) and the exact query decides the rest; on flat hex maps, cells whose cube box with the
/// viewer is clear are seen and the query decides the rest; with heights the query decides
/// each cell. Tests check it against the brute-force reference on random maps with doors,
/// squares and hexes. Its cost per cell is in `docs/benchmarks.md`, beside two classic
/// field-of-view algorithms.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::sight::field_of_view;
///
/// let room = map(&["..#..", "..#..", "....."]);
/// let seen = field_of_view(&room, Cell::new(0, 0));
/// assert_eq!(seen.get(Cell::new(4, 2)), Some(&true)); // round the end of the wall
/// assert_eq!(seen.get(Cell::new(4, 0)), Some(&false)); // straight behind it
/// assert_eq!(seen.get(Cell::new(2, 0)), Some(&true)); // the wall's own face
/// ```
pub fn field_of_view(map: &TerrainMap, from: Cell) -> CellMap<bool> {
    field_of_view_with(map, from, &mut FovScratch::new())
}

/// [`field_of_view`], with buffers that the caller keeps from one field to the next (to save
/// their allocations, and on hex maps the prefix sums while the map is unchanged, when it asks
/// for many fields); the answer is the same.
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// use fray::rules::map::{TerrainMap, kinds};
/// use fray::rules::sight::{FovScratch, field_of_view, field_of_view_with};
///
/// let grid = Grid::new(Topology::Square { diagonals: Diagonals::One }, 4, 3);
/// let cells = vec![0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0];
/// let room = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap();
/// let mut scratch = FovScratch::new();
/// for from in [Cell::new(0, 0), Cell::new(3, 2), Cell::new(0, 2)] {
///     assert_eq!(field_of_view_with(&room, from, &mut scratch), field_of_view(&room, from));
/// }
/// ```
pub fn field_of_view_with(map: &TerrainMap, from: Cell, scratch: &mut FovScratch) -> CellMap<bool> {
    let grid = map.grid();
    let small = grid.width.max(grid.height) <= fov::MAX_SIDE;
    if grid.contains(from) && map.is_flat() && small {
        return if grid.topology.is_hex() {
            hexfov::hex_field(map, from, scratch)
        } else {
            fov::square_field(map, from, scratch)
        };
    }
    CellMap::from_fn(grid.width, grid.height, |c| line_of_sight(map, from, c))
}

/// The first clear segment between a sample point of `a` and one of `b`, in this order: centre
/// to centre, then `a`'s samples (centre, corners) in the outer loop and `b`'s in the inner
/// loop. `None` if there is no line of sight, if `a == b`, or if a cell is off the map.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::sight::{Point, sight_line};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let (a, b) = (Cell::new(0, 1), Cell::new(4, 1));
/// let open = map(&[".....", ".....", "....."]);
/// assert_eq!(sight_line(&open, a, b), Some((Point::new(3, 9), Point::new(27, 9))));
/// // With a pillar in the way, the first clear line runs along its top face,
/// // from the viewer's top-right corner.
/// let pillar = map(&[".....", "..#..", "....."]);
/// let (p, q) = sight_line(&pillar, a, b).unwrap();
/// assert_eq!((p.y, q.y), (6, 6));
/// assert_eq!(sight_line(&open, a, a), None);
/// ```
pub fn sight_line(map: &TerrainMap, a: Cell, b: Cell) -> Option<(Point, Point)> {
    let grid = map.grid();
    if a == b || !grid.contains(a) || !grid.contains(b) {
        return None;
    }
    if !map.is_flat() {
        return heights::sight_line(map, a, b);
    }
    // The fast path: centre to centre, before setting up the other rays.
    let (ca, cb) = (centre(grid, a), centre(grid, b));
    let first = Ctx::new(map, (a, b)).walk(ca, cb);
    if first == Walk::Clear {
        return Some((ca, cb));
    }
    if grid.topology.is_hex() {
        Bundle::<7, 64>::new(map, a, b)
            .after_centre(first)
            .first_clear()
    } else {
        Bundle::<5, 32>::new(map, a, b)
            .after_centre(first)
            .first_clear()
    }
}

/// The defender's cover from the attacker (see the module docs). Not symmetric.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| match c { '#' => 1, '+' => 2, _ => 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     let kinds = vec![kinds::floor(), kinds::wall(), kinds::slit()];
/// #     TerrainMap::new(grid, kinds, cells).unwrap()
/// # }
/// use fray::rules::sight::{Cover, cover, line_of_sight};
///
/// // `map` draws a square map: `.` floor, `#` wall, `+` arrow slit (see the module example).
/// let keep = map(&[
///     "....a....",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     "####+####",
///     "....d....",
/// ]);
/// let (attacker, defender) = (Cell::new(4, 0), Cell::new(4, 10));
/// // Seen through the slit's aperture, but not one corner of the defender's cell is.
/// assert!(line_of_sight(&keep, attacker, defender));
/// assert_eq!(cover(&keep, attacker, defender), Cover::Full);
/// // Open ground: no cover; out of sight: blocked.
/// assert_eq!(cover(&keep, Cell::new(0, 0), Cell::new(8, 8)), Cover::None);
/// assert_eq!(cover(&keep, attacker, Cell::new(0, 10)), Cover::Blocked);
/// ```
pub fn cover(map: &TerrainMap, attacker: Cell, defender: Cell) -> Cover {
    let grid = map.grid();
    if !grid.contains(attacker) || !grid.contains(defender) {
        return Cover::Blocked;
    }
    if attacker == defender {
        return Cover::None;
    }
    if !map.is_flat() {
        return heights::cover(map, attacker, defender);
    }
    if grid.topology.is_hex() {
        Bundle::<7, 64>::new(map, attacker, defender).cover()
    } else {
        Bundle::<5, 32>::new(map, attacker, defender).cover()
    }
}

/// The cover verdict from `seen(j)`: whether any attacker sample reaches the defender's
/// sample `j` (0 its centre, 1..=`corners` its corners). Asked lazily, corners first: all
/// seen is no cover, some half, none but the centre full, nothing blocked. The plane and the
/// three-dimensional queries share it.
fn cover_verdict(corners: usize, mut seen: impl FnMut(usize) -> bool) -> Cover {
    let (mut any, mut missed) = (false, false);
    for j in 1..=corners {
        if seen(j) {
            any = true;
        } else {
            missed = true;
        }
        if any && missed {
            return Cover::Half;
        }
    }
    if any {
        Cover::None
    } else if seen(0) {
        // No corner is seen, but the centre is.
        Cover::Full
    } else {
        Cover::Blocked
    }
}

// ---------------------------------------------------------------------------------------------
// The walker.

/// The outcome of walking one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    Clear,
    /// Blocked by the open interior of this cell (rule 1 or 2).
    Inside(Cell),
    /// Blocked by a seam or a pinch (rule 3 or 4).
    Other,
}

/// One query's map view: the flat sight layer and the two end cells.
struct Ctx<'a> {
    sight: &'a [Sight],
    width: usize,
    w: u32,
    h: u32,
    grid: Grid,
    ends: [Cell; 2],
}

impl<'a> Ctx<'a> {
    fn new(map: &'a TerrainMap, ends: (Cell, Cell)) -> Self {
        let grid = *map.grid();
        Self {
            sight: map.sight_map().as_slice(),
            width: grid.width as usize,
            w: grid.width,
            h: grid.height,
            grid,
            ends: [ends.0, ends.1],
        }
    }

    /// The map's sight of an offset cell; off the map is Opaque. End cells are *not* cleared.
    #[inline(always)]
    fn raw(&self, x: i64, y: i64) -> Sight {
        if (x as u64) < self.w as u64 && (y as u64) < self.h as u64 {
            self.sight
                .get(y as usize * self.width + x as usize)
                .copied()
                .unwrap_or(Sight::Opaque)
        } else {
            Sight::Opaque
        }
    }

    #[inline(always)]
    fn is_end(&self, x: i64, y: i64) -> bool {
        self.ends.iter().any(|e| e.x as i64 == x && e.y as i64 == y)
    }

    /// The sight a segment meets in a cell: end cells are clear.
    #[inline(always)]
    fn eff(&self, x: i64, y: i64) -> Sight {
        let s = self.raw(x, y);
        if s != Sight::Clear && self.is_end(x, y) {
            Sight::Clear
        } else {
            s
        }
    }

    #[inline(always)]
    fn solid(&self, x: i64, y: i64) -> bool {
        self.eff(x, y) != Sight::Clear
    }

    fn is_hex(&self) -> bool {
        self.grid.topology.is_hex()
    }

    /// Whether a segment already known to cross the open interior of cell `(x, y)` (centre
    /// `ctr`) is blocked there (rules 1 and 2). Kept out of line: the walkers call it only for
    /// solid cells, and inlining it into their loops costs registers.
    #[inline(never)]
    fn interior_blocks(&self, x: i64, y: i64, ctr: (i64, i64), p: Point, q: Point) -> bool {
        match self.eff(x, y) {
            Sight::Clear => false,
            Sight::Opaque => true,
            Sight::Slit => !meets_polygon(self.is_hex(), ctr, Shape::Aperture, p, q),
        }
    }

    /// Rule 4 at the vertex shared by `(x0, y0)` and `(x1, y1)` (diagonal neighbours).
    #[inline(never)]
    fn pinch(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> bool {
        (self.solid(x0, y0) && self.solid(x1, y1)) || (self.solid(x1, y0) && self.solid(x0, y1))
    }

    fn walk(&self, p: Point, q: Point) -> Walk {
        if self.is_hex() {
            self.walk_hex(p, q)
        } else {
            self.walk_square(p, q)
        }
    }

    // --- Squares -------------------------------------------------------------------------

    fn walk_square(&self, p: Point, q: Point) -> Walk {
        let (px, py) = (p.x as i64, p.y as i64);
        let (dx, dy) = (q.x as i64 - px, q.y as i64 - py);
        if dx == 0 && dy == 0 {
            return self.point_square(px, py, p);
        }
        if dx == 0 && px.rem_euclid(S) == 0 {
            return self.along_square(px / S, py, q.y as i64, true);
        }
        if dy == 0 && py.rem_euclid(S) == 0 {
            return self.along_square(py / S, px, q.x as i64, false);
        }
        let (sx, adx) = (dx.signum(), dx.abs());
        let (sy, ady) = (dy.signum(), dy.abs());
        let (cx, nx) = first_cell(px, dx);
        let (cy, ny) = first_cell(py, dy);
        // Crossing parameters t = n / |Δ|, scaled by tmax = |Δx|·|Δy| (a zero Δ counts as 1).
        let (wx, wy) = (ady.max(1), adx.max(1));
        let tmax = wx * wy;
        let walk = SquareWalk {
            cx,
            cy,
            sx,
            sy,
            ex: if dx != 0 { nx * wx } else { i64::MAX },
            ey: if dy != 0 { ny * wy } else { i64::MAX },
            stepx: S * wx,
            stepy: S * wy,
            tmax,
        };
        // A segment inside the map's rectangle only crosses the interiors of cells on the map.
        let (w, h) = (S * self.w as i64, S * self.h as i64);
        let inside = |v: i64, hi: i64| (0..=hi).contains(&v);
        if inside(px, w) && inside(q.x as i64, w) && inside(py, h) && inside(q.y as i64, h) {
            self.square_loop::<true>(walk, p, q)
        } else {
            self.square_loop::<false>(walk, p, q)
        }
    }

    /// The DDA proper. `ON_MAP`: every crossed cell is known to be on the map.
    #[inline(always)]
    fn square_loop<const ON_MAP: bool>(&self, mut st: SquareWalk, p: Point, q: Point) -> Walk {
        let width = self.width as i64;
        loop {
            let s = if ON_MAP {
                self.sight
                    .get((st.cy * width + st.cx) as usize)
                    .copied()
                    .unwrap_or(Sight::Opaque)
            } else {
                self.raw(st.cx, st.cy)
            };
            if s != Sight::Clear && self.square_cell_blocks(st.cx, st.cy, p, q) {
                return Walk::Inside(Cell::new(st.cx as i32, st.cy as i32));
            }
            let m = st.ex.min(st.ey);
            if m >= st.tmax {
                return Walk::Clear;
            }
            let (tx, ty) = (st.ex == m, st.ey == m);
            // Through the vertex between this cell and its diagonal neighbour.
            if tx && ty && self.pinch(st.cx, st.cy, st.cx + st.sx, st.cy + st.sy) {
                return Walk::Other;
            }
            if tx {
                st.cx += st.sx;
                st.ex += st.stepx;
            }
            if ty {
                st.cy += st.sy;
                st.ey += st.stepy;
            }
        }
    }

    #[inline(never)]
    fn square_cell_blocks(&self, x: i64, y: i64, p: Point, q: Point) -> bool {
        self.interior_blocks(x, y, (S * x + 3, S * y + 3), p, q)
    }

    /// A segment lying on the grid line `x = 6k` (`vertical`) or `y = 6k`, from `lo` to `hi`
    /// along it (in either order).
    fn along_square(&self, k: i64, from: i64, to: i64, vertical: bool) -> Walk {
        let (lo, hi) = (from.min(to), from.max(to));
        // `(u, v)`: `u` across the line, `v` along it.
        let at = |u: i64, v: i64| if vertical { (u, v) } else { (v, u) };
        let solid = |u: i64, v: i64| {
            let (x, y) = at(u, v);
            self.solid(x, y)
        };
        for j in lo.div_euclid(S)..=(hi - 1).div_euclid(S) {
            // The piece (6j, 6j+6) runs between cells k-1 and k (rule 3).
            if solid(k - 1, j) && solid(k, j) {
                return Walk::Other;
            }
            // The vertex at 6j, if strictly inside (rule 4).
            if S * j > lo
                && ((solid(k - 1, j - 1) && solid(k, j)) || (solid(k, j - 1) && solid(k - 1, j)))
            {
                return Walk::Other;
            }
        }
        Walk::Clear
    }

    fn point_square(&self, x: i64, y: i64, p: Point) -> Walk {
        match (x.rem_euclid(S) == 0, y.rem_euclid(S) == 0) {
            (false, false) => {
                let (cx, cy) = (x.div_euclid(S), y.div_euclid(S));
                if self.interior_blocks(cx, cy, (S * cx + 3, S * cy + 3), p, p) {
                    Walk::Inside(Cell::new(cx as i32, cy as i32))
                } else {
                    Walk::Clear
                }
            }
            (true, false) => {
                let (k, j) = (x / S, y.div_euclid(S));
                if self.solid(k - 1, j) && self.solid(k, j) {
                    Walk::Other
                } else {
                    Walk::Clear
                }
            }
            (false, true) => {
                let (i, k) = (x.div_euclid(S), y / S);
                if self.solid(i, k - 1) && self.solid(i, k) {
                    Walk::Other
                } else {
                    Walk::Clear
                }
            }
            // A vertex at an endpoint never pinches.
            (true, true) => Walk::Clear,
        }
    }

    // --- Hexes ---------------------------------------------------------------------------

    /// The offset cell of the hex whose `(A, B)` centre (in lattice units) is `(a, b)`.
    #[inline(always)]
    fn hex_cell(&self, a: i64, b: i64) -> (i64, i64) {
        // Exact divisions by the constant 3 (a multiply, not a divide instruction).
        let q = (2 * a - b) / 3;
        let r = (2 * b - a) / 3;
        // Grid::from_axial, with `(n - (n & 1)) / 2 == n >> 1`.
        match self.grid.topology {
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => (q, r + (q >> 1)),
            _ => (q + (r >> 1), r),
        }
    }

    /// Rules 1–2 for the open interior of the hex centred at lattice `(a, b)`.
    #[inline(always)]
    fn hex_blocks(&self, a: i64, b: i64, p: Point, q: Point) -> Option<Cell> {
        let (x, y) = self.hex_cell(a, b);
        if self.raw(x, y) != Sight::Clear && self.interior_blocks(x, y, (S * a, S * b), p, q) {
            Some(Cell::new(x as i32, y as i32))
        } else {
            None
        }
    }

    fn walk_hex(&self, p: Point, q: Point) -> Walk {
        let (pa, pb) = (p.x as i64, p.y as i64);
        let pc = pa - pb;
        let (da, db) = (q.x as i64 - pa, q.y as i64 - pb);
        let dc = da - db;
        if da == 0 && db == 0 {
            return self.point_hex(pa, pb, p);
        }
        if da == 0 && pa.rem_euclid(S) == 0 {
            return self.along_hex(Family::A, pa / S, pb, q.y as i64, p, q);
        }
        if db == 0 && pb.rem_euclid(S) == 0 {
            return self.along_hex(Family::B, pb / S, pa, q.x as i64, p, q);
        }
        if dc == 0 && pc.rem_euclid(S) == 0 {
            return self.along_hex(Family::C, pc / S, pa, q.x as i64, p, q);
        }
        let (sa, sb, sc) = (da.signum(), db.signum(), dc.signum());
        let (aa, ab, ac) = (da.abs().max(1), db.abs().max(1), dc.abs().max(1));
        // The open lattice triangle of the current piece: i = ⌊A/6⌋, j = ⌊B/6⌋, k = ⌊(A−B)/6⌋.
        let (mut i, na) = first_cell(pa, da);
        let (mut j, nb) = first_cell(pb, db);
        let (mut k, nc) = first_cell(pc, dc);
        // Crossing parameters scaled by tmax = |ΔA|·|ΔB|·|ΔC| (zero Δs count as 1).
        let (wa, wb, wc) = (ab * ac, aa * ac, aa * ab);
        let tmax = aa * ab * ac;
        let mut ea = if da != 0 { na * wa } else { i64::MAX };
        let mut eb = if db != 0 { nb * wb } else { i64::MAX };
        let mut ec = if dc != 0 { nc * wc } else { i64::MAX };
        let (step_a, step_b, step_c) = (S * wa, S * wb, S * wc);
        let mut last = (i64::MIN, i64::MIN);
        loop {
            let ctr = hex_of_triangle(i, j, k == i - j);
            if ctr != last {
                last = ctr;
                if let Some(c) = self.hex_blocks(ctr.0, ctr.1, p, q) {
                    return Walk::Inside(c);
                }
            }
            let m = ea.min(eb).min(ec);
            if m >= tmax {
                return Walk::Clear;
            }
            // Ties are lattice points, where all non-parallel families cross at once; hex
            // corners need no rule (see the module docs).
            if ea == m {
                i += sa;
                ea += step_a;
            }
            if eb == m {
                j += sb;
                eb += step_b;
            }
            if ec == m {
                k += sc;
                ec += step_c;
            }
        }
    }

    /// The two hexes (lattice centres) on either side of the piece number `n` of lattice line
    /// `f = 6·line` (pieces are unit steps along the line, numbered by ⌊A/6⌋ for families B
    /// and C, by ⌊B/6⌋ for family A).
    fn line_sides(f: Family, line: i64, n: i64) -> ((i64, i64), (i64, i64)) {
        match f {
            // A = 6·line, B in (6n, 6n+6): upper triangle of square (line, n) on the right,
            // lower triangle of square (line-1, n) on the left.
            Family::A => (
                hex_of_triangle(line, n, false),
                hex_of_triangle(line - 1, n, true),
            ),
            // B = 6·line, A in (6n, 6n+6): lower triangle of square (n, line) above,
            // upper triangle of square (n, line-1) below.
            Family::B => (
                hex_of_triangle(n, line, true),
                hex_of_triangle(n, line - 1, false),
            ),
            // A − B = 6·line, A in (6n, 6n+6): the diagonal of square (n, n-line).
            Family::C => (
                hex_of_triangle(n, n - line, true),
                hex_of_triangle(n, n - line, false),
            ),
        }
    }

    /// A segment lying on a lattice line; `from`, `to` are its coordinate along the line (B for
    /// family A, A otherwise).
    fn along_hex(&self, f: Family, line: i64, from: i64, to: i64, p: Point, q: Point) -> Walk {
        let (lo, hi) = (from.min(to), from.max(to));
        for n in lo.div_euclid(S)..=(hi - 1).div_euclid(S) {
            if let Some(w) = self.hex_piece(f, line, n, p, q) {
                return w;
            }
        }
        Walk::Clear
    }

    /// Rules 1–3 for one piece of a lattice line: a spoke inside one hex or an edge between two.
    fn hex_piece(&self, f: Family, line: i64, n: i64, p: Point, q: Point) -> Option<Walk> {
        let (h1, h2) = Self::line_sides(f, line, n);
        if h1 == h2 {
            return self.hex_blocks(h1.0, h1.1, p, q).map(Walk::Inside);
        }
        let (x1, y1) = self.hex_cell(h1.0, h1.1);
        let (x2, y2) = self.hex_cell(h2.0, h2.1);
        (self.solid(x1, y1) && self.solid(x2, y2)).then_some(Walk::Other)
    }

    fn point_hex(&self, a: i64, b: i64, p: Point) -> Walk {
        let c = a - b;
        let (on_a, on_b, on_c) = (
            a.rem_euclid(S) == 0,
            b.rem_euclid(S) == 0,
            c.rem_euclid(S) == 0,
        );
        let piece = match (on_a, on_b, on_c) {
            (false, false, false) => {
                let (i, j) = (a.div_euclid(S), b.div_euclid(S));
                let ctr = hex_of_triangle(i, j, c.div_euclid(S) == i - j);
                self.hex_blocks(ctr.0, ctr.1, p, p).map(Walk::Inside)
            }
            (true, false, false) => self.hex_piece(Family::A, a / S, b.div_euclid(S), p, p),
            (false, true, false) => self.hex_piece(Family::B, b / S, a.div_euclid(S), p, p),
            (false, false, true) => self.hex_piece(Family::C, c / S, a.div_euclid(S), p, p),
            // A lattice point (on two lines means on all three): a hex centre or a corner.
            _ => {
                let (i, j) = (a / S, b / S);
                if (i + j).rem_euclid(3) == 0 {
                    self.hex_blocks(i, j, p, p).map(Walk::Inside)
                } else {
                    None
                }
            }
        };
        piece.unwrap_or(Walk::Clear)
    }
}

/// The state of a square DDA: the current cell, the direction, and each family's next
/// crossing parameter (scaled by `tmax`, where the segment ends) with its constant step.
#[derive(Clone, Copy, Debug)]
struct SquareWalk {
    cx: i64,
    cy: i64,
    sx: i64,
    sy: i64,
    ex: i64,
    ey: i64,
    stepx: i64,
    stepy: i64,
    tmax: i64,
}

/// The three hex line families: `A = 6k`, `B = 6k`, `A − B = 6k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    A,
    B,
    C,
}

/// The cell index (in lattice units) of the piece that starts at coordinate `v` and moves by
/// `d` (`d == 0`: `v` is not on a line), and the distance from `v` to the next line, in `(0, 6]`.
#[inline(always)]
fn first_cell(v: i64, d: i64) -> (i64, i64) {
    if d < 0 {
        let c = (v - 1).div_euclid(S);
        (c, v - S * c)
    } else {
        let c = v.div_euclid(S);
        (c, S * (c + 1) - v)
    }
}

/// The lattice centre of the hex holding the open triangle of unit square `(i, j)` below
/// (`lower`: vertices `(i,j) (i+1,j) (i+1,j+1)`) or above (`(i,j) (i,j+1) (i+1,j+1)`) its
/// diagonal: the one vertex with `A + B ≡ 0 (mod 3)`.
#[inline(always)]
fn hex_of_triangle(i: i64, j: i64, lower: bool) -> (i64, i64) {
    match (i + j).rem_euclid(3) {
        0 => (i, j),
        1 => (i + 1, j + 1),
        _ if lower => (i + 1, j),
        _ => (i, j + 1),
    }
}

/// A cell-shaped convex polygon: the intersection of the slabs `|f − f(centre)| ≤ half` for
/// the families `x`, `y` (squares) or `A`, `B`, `A − B` (hexes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// The cell's open interior (`half` = 3 on squares, 6 on hexes).
    OpenCell,
    /// The closed aperture of a slit: the cell scaled by 1/3 (`half` = 1 or 2).
    Aperture,
}

/// Whether segment `p`–`q` meets `shape` around the cell centre `ctr` (in points).
///
/// Exact separating-axis test: the polygon's slab normals and the segment's normal. For the
/// open interior, touching the boundary does not count; for the closed aperture it does.
#[inline]
fn meets_polygon(hex: bool, ctr: (i64, i64), shape: Shape, p: Point, q: Point) -> bool {
    let open = shape == Shape::OpenCell;
    let half = match (shape, hex) {
        (Shape::OpenCell, false) => S / 2,
        (Shape::OpenCell, true) => S,
        (Shape::Aperture, false) => S / 6,
        (Shape::Aperture, true) => S / 3,
    };
    let (px, py, qx, qy) = (p.x as i64, p.y as i64, q.x as i64, q.y as i64);
    let slab = |fp: i64, fq: i64, fc: i64| {
        let (lo, hi) = (fp.min(fq), fp.max(fq));
        if open {
            hi > fc - half && lo < fc + half
        } else {
            hi >= fc - half && lo <= fc + half
        }
    };
    if !slab(px, qx, ctr.0) || !slab(py, qy, ctr.1) {
        return false;
    }
    if hex && !slab(px - py, qx - qy, ctr.0 - ctr.1) {
        return false;
    }
    let (dx, dy) = (qx - px, qy - py);
    // The polygon's corners against the segment's line: corner `ctr + half·(u, v)` has
    // orientation `base + half·(dx·v − dy·u)`. Over the square corners (±1, ±1) the second term
    // ranges over ±(|dx| + |dy|); over the hex corners over ±{dx, dy, dx − dy}.
    let base = dx * (ctr.1 - py) - dy * (ctr.0 - px);
    let reach = half
        * if hex {
            dx.abs().max(dy.abs()).max((dx - dy).abs())
        } else {
            dx.abs() + dy.abs()
        };
    // (A point, dx = dy = 0, passes: the slabs decided.)
    if open {
        base.abs() < reach || reach == 0
    } else {
        base.abs() <= reach
    }
}

// ---------------------------------------------------------------------------------------------
// Per-query memory of blocking cells.

/// All the rays of one query: from each of the `N` sample points of `a` (index `i`: centre,
/// corners) to each of `b`'s (index `j`), bit `N·i + j` of a mask of the rays not yet known
/// to be blocked. `N` is 5 on squares, 7 on hexes.
///
/// When a walk finds a cell that blocks its ray (rules 1–2), that cell is tested at once
/// against every other live ray with the exact O(1) separating-axis test of
/// [`meets_polygon`], and the rays it blocks are dropped without a walk of their own. This is
/// only a short cut: the verdict on each ray is the walker's.
struct Bundle<'a, const N: usize, const L: usize> {
    ctx: Ctx<'a>,
    src: [Point; N],
    dst: [Point; N],
    alive: u64,
    /// The rays as `i32` lanes for the batched test, filled at the first blocking cell (only
    /// on maps small enough for `i32` to be exact, see [`LANE_LIMIT`]).
    lanes: Lanes<L>,
    lanes_ready: bool,
}

/// Maps at most this many cells across (width and height) use `i32` lanes: every coordinate is then below
/// 2^14 in magnitude, so the orientation `dx·(ey − py) − dy·(ex − px)` stays below 2^31.
const LANE_LIMIT: u32 = 512;

/// Per-ray constants, one lane per ray `N·i + j`, padded to `L` lanes that never hit.
struct Lanes<const L: usize> {
    px: [i32; L],
    py: [i32; L],
    dx: [i32; L],
    dy: [i32; L],
    /// The half-size of a cell times the spread of its corners' orientations per unit of
    /// half-size (`|dx| + |dy|` on squares, `max(|dA|, |dB|, |dA − dB|)` on hexes); at least 1
    /// so that a zero-length ray is judged by the slabs alone. 0 in padding lanes.
    reach: [i32; L],
}

impl<const L: usize> Lanes<L> {
    fn zero() -> Self {
        Self {
            px: [0; L],
            py: [0; L],
            dx: [0; L],
            dy: [0; L],
            reach: [0; L],
        }
    }

    /// Fills the lanes for rays between the sample points of cells centred at `a` and `b`.
    fn fill<const N: usize>(&mut self, a: Point, b: Point) {
        let hex = N == 7;
        let half = if hex { SCALE } else { SCALE / 2 };
        let t: &[[i32; 64]; 5] = if hex { &HEX_LANES } else { &SQUARE_LANES };
        let (ddx, ddy) = (b.x - a.x, b.y - a.y);
        // One index over ten parallel arrays reads best as a range loop.
        #[allow(clippy::needless_range_loop)]
        for r in 0..L {
            let (dx, dy) = (ddx + t[2][r], ddy + t[3][r]);
            let unit = if hex {
                dx.abs().max(dy.abs()).max((dx - dy).abs())
            } else {
                dx.abs() + dy.abs()
            };
            self.px[r] = a.x + t[0][r];
            self.py[r] = a.y + t[1][r];
            self.dx[r] = dx;
            self.dy[r] = dy;
            self.reach[r] = (half * unit).max(1) * t[4][r];
        }
    }
}

/// Lane tables for [`Lanes::fill`]: for ray `N·i + j`, the offsets from the cell centres of
/// source sample `i` (x, y) and of target sample `j` minus source sample `i` (x, y), and 1
/// for a real ray (0 for padding).
const fn lane_tables<const N: usize>(offsets: [(i32, i32); N]) -> [[i32; 64]; 5] {
    let mut t = [[0; 64]; 5];
    let mut r = 0;
    while r < N * N {
        let (i, j) = (offsets[r / N], offsets[r % N]);
        t[0][r] = i.0;
        t[1][r] = i.1;
        t[2][r] = j.0 - i.0;
        t[3][r] = j.1 - i.1;
        t[4][r] = 1;
        r += 1;
    }
    t
}

/// Sample offsets from the centre, in [`samples`] order: the centre, then the corners (squares
/// `(0,0) (1,0) (1,1) (0,1)` of the cell; hexes `6·{(1,1), (1,0), (0,-1), (-1,-1), (-1,0),
/// (0,1)}` in the `(A, B)` plane).
const SQUARE_OFFSETS: [(i32, i32); 5] = [(0, 0), (-3, -3), (3, -3), (3, 3), (-3, 3)];
const HEX_OFFSETS: [(i32, i32); 7] = [(0, 0), (6, 6), (6, 0), (0, -6), (-6, -6), (-6, 0), (0, 6)];
const SQUARE_LANES: [[i32; 64]; 5] = lane_tables(SQUARE_OFFSETS);
const HEX_LANES: [[i32; 64]; 5] = lane_tables(HEX_OFFSETS);

impl<'a, const N: usize, const L: usize> Bundle<'a, N, L> {
    fn new(map: &'a TerrainMap, a: Cell, b: Cell) -> Self {
        let grid = map.grid();
        let (sa, sb) = (samples(grid, a), samples(grid, b));
        debug_assert_eq!(sa.len, N);
        let pick = |s: &Samples| std::array::from_fn(|i| s.points[i]);
        Self {
            ctx: Ctx::new(map, (a, b)),
            src: pick(&sa),
            dst: pick(&sb),
            alive: u64::MAX >> (64 - N * N),
            lanes: Lanes::zero(),
            lanes_ready: false,
        }
    }

    /// Records the verdict of an earlier walk of ray 0 (centre to centre), which was blocked.
    fn after_centre(mut self, walk: Walk) -> Self {
        self.alive &= !1;
        if let Walk::Inside(c) = walk {
            self.drop_blocked_by(c);
        }
        self
    }

    /// Whether the ray from source sample `i` to target sample `j` is clear.
    fn clear(&mut self, i: usize, j: usize) -> bool {
        let bit = 1u64 << (N * i + j);
        if self.alive & bit == 0 {
            return false;
        }
        self.alive &= !bit;
        match self.ctx.walk(self.src[i], self.dst[j]) {
            Walk::Clear => true,
            Walk::Inside(c) => {
                self.drop_blocked_by(c);
                false
            }
            Walk::Other => false,
        }
    }

    /// The first clear ray in index order (`N·i + j`), if any.
    fn first_clear(&mut self) -> Option<(Point, Point)> {
        while self.alive != 0 {
            let r = self.alive.trailing_zeros() as usize;
            let (i, j) = (r / N, r % N);
            if self.clear(i, j) {
                return Some((self.src[i], self.dst[j]));
            }
        }
        None
    }

    /// The cover of `b` from `a` (see [`cover`]).
    fn cover(mut self) -> Cover {
        cover_verdict(N - 1, |j| (0..N).any(|i| self.clear(i, j)))
    }

    /// Drops every live ray that the cell `c` blocks by rules 1–2.
    fn drop_blocked_by(&mut self, c: Cell) {
        let hex = N == 7;
        let e = centre(&self.ctx.grid, c);
        let opaque = self.ctx.eff(c.x as i64, c.y as i64) == Sight::Opaque;
        let (ex, ey) = (e.x as i64, e.y as i64);
        let mut blocked = if self.ctx.w.max(self.ctx.h) <= LANE_LIMIT {
            self.lanes_blocked_by(e)
        } else {
            self.scalar_blocked_by(e)
        };
        if !opaque {
            // A slit: spare the rays that pass its aperture.
            let mut live = blocked;
            while live != 0 {
                let r = live.trailing_zeros() as usize;
                live &= live - 1;
                let ctr = (ex, ey);
                if meets_polygon(hex, ctr, Shape::Aperture, self.src[r / N], self.dst[r % N]) {
                    blocked &= !(1u64 << r);
                }
            }
        }
        self.alive &= !blocked;
    }

    /// The live rays that cross the open interior of the cell centred at `e`: the
    /// `meets_polygon(OpenCell)` test on every lane at once.
    fn lanes_blocked_by(&mut self, e: Point) -> u64 {
        let hex = N == 7;
        let half = if hex { SCALE } else { SCALE / 2 };
        if !self.lanes_ready {
            self.lanes.fill::<N>(self.src[0], self.dst[0]);
            self.lanes_ready = true;
        }
        let lanes = &self.lanes;
        let (ex, ey, ec) = (e.x, e.y, e.x - e.y);
        let mut hits = [0u8; L];
        for (r, hit) in hits.iter_mut().enumerate() {
            let (px, py, dx, dy) = (lanes.px[r], lanes.py[r], lanes.dx[r], lanes.dy[r]);
            let base = dx * (ey - py) - dy * (ex - px);
            let (x0, x1) = (px + dx.min(0), px + dx.max(0));
            let (y0, y1) = (py + dy.min(0), py + dy.max(0));
            let mut h = (base.abs() < lanes.reach[r])
                & (x1 > ex - half)
                & (x0 < ex + half)
                & (y1 > ey - half)
                & (y0 < ey + half);
            if hex {
                let (pc, dc) = (px - py, dx - dy);
                h &= (pc + dc.max(0) > ec - half) & (pc + dc.min(0) < ec + half);
            }
            *hit = u8::from(h);
        }
        // Eight 0/1 bytes to eight bits at a time: (Σ b_k·2^8k · 0x0102040810204080) >> 56
        // is Σ b_k·2^k (the partial products never collide).
        let mut packed = 0u64;
        for (k, chunk) in hits.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes);
            packed |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        packed & self.alive
    }

    /// [`Bundle::lanes_blocked_by`] in `i64`, ray by ray, for big maps.
    fn scalar_blocked_by(&self, e: Point) -> u64 {
        let hex = N == 7;
        let half = if hex { S } else { S / 2 };
        let (ex, ey) = (e.x as i64, e.y as i64);
        let mut blocked = 0u64;
        let mut live = self.alive;
        while live != 0 {
            let r = live.trailing_zeros() as usize;
            live &= live - 1;
            let (p, q) = (self.src[r / N], self.dst[r % N]);
            let (px, py) = (p.x as i64, p.y as i64);
            let (qx, qy) = (q.x as i64, q.y as i64);
            let (dx, dy) = (qx - px, qy - py);
            let base = dx * (ey - py) - dy * (ex - px);
            let unit = if hex {
                dx.abs().max(dy.abs()).max((dx - dy).abs())
            } else {
                dx.abs() + dy.abs()
            };
            let reach = half * unit;
            let mut hit = (base.abs() < reach || reach == 0)
                & (px.max(qx) > ex - half)
                & (px.min(qx) < ex + half)
                & (py.max(qy) > ey - half)
                & (py.min(qy) < ey + half);
            if hex {
                let (pc, qc, ec) = (px - py, qx - qy, ex - ey);
                hit &= (pc.max(qc) > ec - half) & (pc.min(qc) < ec + half);
            }
            blocked |= u64::from(hit) << r;
        }
        blocked
    }
}

mod fov;
pub use fov::FovScratch;
mod heights;
mod hexfov;

#[cfg(test)]
mod tests;
