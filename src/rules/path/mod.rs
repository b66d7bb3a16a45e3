//! Movement: the cells a unit can reach with a movement budget, and the path to each.
//!
//! # Rules of movement
//! - Entering a cell costs its terrain's `cost` ([`TerrainMap::cost`]); impassable cells and
//!   cells off the map cannot be entered.
//! - Square grids with [`Diagonals::OneTwo`]: a diagonal step is 1 long, the next diagonal of the
//!   same move 2, then 1, ... ("every second diagonal counts double"); a step costs its terrain
//!   cost times its length. With [`Diagonals::One`] every step is 1 long; with
//!   [`Diagonals::Forbidden`] there are no diagonal steps.
//! - A diagonal step may not squeeze between two impassable cells that touch only at a corner
//!   (both orthogonal cells it passes between are impassable). Cutting past a single wall corner
//!   is allowed. Units never block a diagonal squeeze, only terrain.
//! - On a map with heights, climbing one level costs 1 more than the terrain; going down one
//!   level or staying level costs nothing more; a step between grounds two or more levels
//!   apart is a cliff and cannot be taken ([`TerrainMap::climb`], a house rule of every
//!   ruleset: the texts give none).
//! - Cells holding an **enemy** cannot be entered. Cells holding an **ally** may be passed
//!   through but not ended on.
//! - Among paths of equal cost, the one that leaves the fewest threatened cells is chosen (so
//!   a preview never provokes an attack of opportunity it could have avoided for free); among
//!   those, the one that keeps nearest the straight line between its ends ([`Reach::path_to`]:
//!   no zigzag between equal-cost diagonals); further ties are broken by the fixed neighbour
//!   order of [`Grid::steps`], so results are deterministic.
//!
//! # Algorithm
//! Dijkstra with a circular bucket queue (Dial's algorithm: step costs are small integers;
//! a binary heap instead when a map's step costs are large, so memory never grows with the
//! cost values), over dense arrays restricted to the window of cells the budget can possibly reach (every
//! step costs at least 1), with one state per cell, or two (diagonal parity) under
//! [`Diagonals::OneTwo`]. The window has a ring of padding that can never be entered, and
//! entry costs (terrain, enemies) are laid out once per query, so the inner loop is a table
//! of index offsets with no bounds checks and no hashing. Checking or walking one move uses
//! [`reach_to`], which stops as soon as the destination is settled (exact for it).
//!
//! # Examples
//!
//! ```
//! use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
//! use fray::rules::map::{TerrainMap, kinds};
//! use fray::rules::path::{MoveQuery, Occupant, reach};
//!
//! /// A square map drawn row by row: `.` floor, `#` wall.
//! fn map(diagonals: Diagonals, rows: &[&str]) -> TerrainMap {
//!     let grid = Grid::new(Topology::Square { diagonals }, rows[0].len() as u32, rows.len() as u32);
//!     let glyph = |c| if c == '#' { 1 } else { 0 };
//!     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
//!     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
//! }
//!
//! let rows = [".....", ".#...", "....."];
//! let terrain = map(Diagonals::One, &rows);
//! let occupants = CellMap::new(terrain.grid(), Occupant::Empty);
//! let query = MoveQuery {
//!     terrain: &terrain,
//!     occupants: &occupants,
//!     threatened: None,
//!     start: Cell::new(0, 0),
//!     budget: 4,
//! };
//! let range = reach(&query);
//! assert_eq!(range.cost(Cell::new(4, 2)), Some(4));
//! // The wall at (1, 1) forces a detour to (2, 2): 3 steps instead of 2.
//! assert_eq!(range.cost(Cell::new(2, 2)), Some(3));
//! let path = range.path_to(Cell::new(2, 2)).unwrap();
//! assert_eq!(path.cost(), 3);
//! assert_eq!(path.cells().len(), 4);
//! assert!(!path.cells().contains(&Cell::new(1, 1)));
//! assert_eq!(range.cost(Cell::new(1, 1)), None); // a wall
//!
//! // Under the 1-2 rule the second diagonal of a move costs 2.
//! let terrain = map(Diagonals::OneTwo, &rows);
//! let range = reach(&MoveQuery { terrain: &terrain, ..query });
//! assert_eq!(range.cost(Cell::new(3, 1)), Some(3)); // right, then two diagonals: 1 + 1 + 2
//! ```

use crate::rules::grid::{Cell, CellMap, Diagonals, Grid, StepKind, Topology};
use crate::rules::map::TerrainMap;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Who stands on a cell, from the moving unit's point of view.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::path::{MoveQuery, Occupant, reach};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let terrain = map(&["....."]);
/// let mut occupants = CellMap::new(terrain.grid(), Occupant::Empty);
/// occupants.set(Cell::new(1, 0), Occupant::Ally);
/// occupants.set(Cell::new(3, 0), Occupant::Enemy);
/// let query = MoveQuery {
///     terrain: &terrain,
///     occupants: &occupants,
///     threatened: None,
///     start: Cell::new(0, 0),
///     budget: 5,
/// };
/// let range = reach(&query);
/// // An ally can be passed but not ended on; an enemy blocks the corridor.
/// assert_eq!(range.cost(Cell::new(1, 0)), Some(1));
/// assert!(!range.can_end(Cell::new(1, 0)));
/// assert!(range.can_end(Cell::new(2, 0)));
/// assert_eq!(range.cost(Cell::new(3, 0)), None);
/// assert_eq!(range.cost(Cell::new(4, 0)), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Occupant {
    #[default]
    Empty,
    /// A unit of the mover's side (or the mover itself: its own cell is always fine).
    Ally,
    /// A unit of another side: blocks movement.
    Enemy,
}

/// One movement query.
#[derive(Clone, Copy, Debug)]
pub struct MoveQuery<'a> {
    pub terrain: &'a TerrainMap,
    /// Occupants of the map's cells, as the mover sees them.
    pub occupants: &'a CellMap<Occupant>,
    /// Cells threatened by an enemy of the mover (attacks of opportunity); `None` if unknown.
    pub threatened: Option<&'a CellMap<bool>>,
    pub start: Cell,
    /// Movement points available.
    pub budget: u32,
}

/// One step of a [`Path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub from: Cell,
    pub to: Cell,
    pub kind: StepKind,
    /// Movement points spent from the start of the path up to and including this step.
    pub cost_so_far: u32,
    /// This step leaves a cell threatened by an enemy: it may provoke an attack of opportunity.
    pub leaves_threat: bool,
}

/// A path from the query's start to a cell.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::path::{MoveQuery, Occupant, reach};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let terrain = map(&["...", "...", "..."]);
/// let occupants = CellMap::new(terrain.grid(), Occupant::Empty);
/// // An enemy threatens the middle cell: leaving it would provoke.
/// let mut threatened = CellMap::new(terrain.grid(), false);
/// threatened.set(Cell::new(1, 1), true);
/// let query = MoveQuery {
///     terrain: &terrain,
///     occupants: &occupants,
///     threatened: Some(&threatened),
///     start: Cell::new(0, 1),
///     budget: 2,
/// };
/// // Three paths of cost 2 lead to (2, 1); the chosen one goes around the threatened cell.
/// let path = reach(&query).path_to(Cell::new(2, 1)).unwrap();
/// assert_eq!(path.cost(), 2);
/// assert_eq!(path.provocations(), 0);
/// assert!(!path.cells().contains(&Cell::new(1, 1)));
/// assert_eq!(path.steps[0].from, Cell::new(0, 1));
/// assert_eq!(path.steps[1].cost_so_far, 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    /// Total movement points.
    pub fn cost(&self) -> u32 {
        self.steps.last().map_or(0, |s| s.cost_so_far)
    }

    /// Number of steps that leave a threatened cell.
    pub fn provocations(&self) -> usize {
        self.steps.iter().filter(|s| s.leaves_threat).count()
    }

    /// The cells visited, start first.
    pub fn cells(&self) -> Vec<Cell> {
        let mut out: Vec<Cell> = self.steps.first().map(|s| s.from).into_iter().collect();
        out.extend(self.steps.iter().map(|s| s.to));
        out
    }
}

const UNREACHED: u32 = u32::MAX;
const NO_PARENT: u32 = u32::MAX;

/// The result of [`reach`]: every cell reachable within the budget, with its cost and path.
#[derive(Clone, Debug)]
pub struct Reach {
    grid: Grid,
    start: Cell,
    budget: u32,
    /// Window origin and size (map cells outside the window are unreachable).
    x0: i32,
    y0: i32,
    w: i32,
    h: i32,
    /// Number of states per cell (1, or 2 for diagonal parity).
    layers: usize,
    cost: Vec<u32>,
    provocations: Vec<u32>,
    parent: Vec<u32>,
    /// Whether the cell may be ended on (not an ally), per window cell.
    endable: Vec<bool>,
    threatened: Vec<bool>,
    /// The search's tables, per window cell, kept for walking paths back
    /// ([`Reach::path_to`]): the cost to enter (0: cannot be entered), whether the terrain is
    /// passable (the diagonal squeeze), and the ground's height on maps with heights.
    enter: Vec<u32>,
    passable: Vec<bool>,
    ground: Option<Vec<u8>>,
    /// The window cell whose cost alone is wanted ([`cost_to`]): the search stops when it is
    /// settled.
    target: Option<usize>,
}

/// Computes movement range and paths (see the module docs for the rules).
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::path::{MoveQuery, Occupant, reach};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// // Two walls touching only at a corner cannot be squeezed between.
/// let terrain = map(&["#..", ".#.", "..."]);
/// let occupants = CellMap::new(terrain.grid(), Occupant::Empty);
/// let query = MoveQuery {
///     terrain: &terrain,
///     occupants: &occupants,
///     threatened: None,
///     start: Cell::new(0, 1),
///     budget: 2,
/// };
/// let range = reach(&query);
/// // The squeeze would cost 1; the way round, 3, is over the budget.
/// assert_eq!(range.cost(Cell::new(1, 0)), None);
/// assert_eq!(reach(&MoveQuery { budget: 3, ..query }).cost(Cell::new(1, 0)), Some(3));
/// // Every cell the mover can stop on, row-major, the start included at cost 0.
/// assert_eq!(
///     range.destinations(),
///     [((0, 1), 0), ((2, 1), 2), ((0, 2), 1), ((1, 2), 1), ((2, 2), 2)]
///         .map(|((x, y), cost)| (Cell::new(x, y), cost))
/// );
/// ```
pub fn reach(q: &MoveQuery<'_>) -> Reach {
    let mut out = window(q);
    out.search(q);
    out
}

/// [`reach`] stopped as soon as `to` is settled: its cost, path and [`Reach::can_end`] are
/// exactly those of the whole search (every cheaper state is settled first, and the target's
/// predecessors all cost less), the other cells may be missing. What checking or executing
/// one move needs, where the whole range would be thrown away.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::path::{MoveQuery, Occupant, reach, reach_to};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let terrain = map(&["......", "..##..", "......"]);
/// let occupants = CellMap::new(terrain.grid(), Occupant::Empty);
/// let query = MoveQuery {
///     terrain: &terrain,
///     occupants: &occupants,
///     threatened: None,
///     start: Cell::new(0, 1),
///     budget: 10,
/// };
/// let to = Cell::new(5, 1);
/// let whole = reach(&query);
/// let one = reach_to(&query, to);
/// assert_eq!(one.cost(to), Some(5));
/// assert_eq!(one.path_to(to), whole.path_to(to));
/// ```
pub fn reach_to(q: &MoveQuery<'_>, to: Cell) -> Reach {
    let mut out = window(q);
    out.target = out.local(to);
    out.search(q);
    out
}

/// The least movement points from the query's start to `to` within the budget (passing
/// through is enough, as [`Reach::cost`]), or `None` if out of reach: `reach_to(q, to).cost(to)`.
///
/// # Examples
///
/// ```
/// # use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
/// # use fray::rules::map::{TerrainMap, kinds};
/// # fn map(rows: &[&str]) -> TerrainMap {
/// #     let square = Topology::Square { diagonals: Diagonals::One };
/// #     let grid = Grid::new(square, rows[0].len() as u32, rows.len() as u32);
/// #     let glyph = |c| if c == '#' { 1 } else { 0 };
/// #     let cells = rows.iter().flat_map(|r| r.chars()).map(glyph).collect();
/// #     TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).unwrap()
/// # }
/// use fray::rules::path::{MoveQuery, Occupant, cost_to};
///
/// // `map` draws a square map: `.` floor, `#` wall (see the module example).
/// let terrain = map(&[".....", ".....", "....."]);
/// let occupants = CellMap::new(terrain.grid(), Occupant::Empty);
/// let query = MoveQuery {
///     terrain: &terrain,
///     occupants: &occupants,
///     threatened: None,
///     start: Cell::new(0, 0),
///     budget: 3,
/// };
/// assert_eq!(cost_to(&query, Cell::new(3, 2)), Some(3));
/// assert_eq!(cost_to(&query, Cell::new(4, 0)), None); // 4 steps: over budget
/// ```
pub fn cost_to(q: &MoveQuery<'_>, to: Cell) -> Option<u32> {
    reach_to(q, to).cost(to)
}

/// The search window of a query with its per-cell tables laid out, before the search.
fn window(q: &MoveQuery<'_>) -> Reach {
    let grid = *q.terrain.grid();
    let layers = match grid.topology {
        Topology::Square {
            diagonals: Diagonals::OneTwo,
        } => 2,
        _ => 1,
    };
    // Every step costs at least 1, so nothing beyond `budget` steps is reachable; on hex maps
    // the offset layout can shift a column by one more. One more ring of padding, never
    // enterable, lets the search look at neighbours without bounds checks.
    let r = q.budget.min(grid.width.max(grid.height)) as i64 + 1;
    let (sx, sy) = (q.start.x as i64, q.start.y as i64);
    let x0 = (sx - r).max(0) as i32 - 1;
    let y0 = (sy - r).max(0) as i32 - 1;
    let x1 = (sx + r).min(grid.width as i64 - 1) as i32 + 1;
    let y1 = (sy + r).min(grid.height as i64 - 1) as i32 + 1;
    let (w, h) = ((x1 - x0 + 1).max(0), (y1 - y0 + 1).max(0));
    let n = w as usize * h as usize;
    let mut out = Reach {
        grid,
        start: q.start,
        budget: q.budget,
        x0,
        y0,
        w,
        h,
        layers,
        cost: vec![UNREACHED; n * layers],
        provocations: vec![0; n * layers],
        parent: vec![NO_PARENT; n * layers],
        endable: vec![false; n],
        threatened: vec![false; n],
        enter: Vec::new(),
        passable: Vec::new(),
        ground: None,
        target: None,
    };
    if !grid.contains(q.start) || n == 0 {
        return out;
    }
    for y in y0..=y1 {
        for x in x0..=x1 {
            let c = Cell::new(x, y);
            let i = out.local(c).unwrap_or(0);
            out.endable[i] = q.occupants.get(c).copied().unwrap_or_default() != Occupant::Ally;
            out.threatened[i] = q
                .threatened
                .and_then(|t| t.get(c))
                .copied()
                .unwrap_or(false);
        }
    }
    if let Some(i) = out.local(q.start) {
        out.endable[i] = true;
    }
    out
}

/// One neighbour of a window cell as index offsets: the neighbour, and for diagonal steps
/// the two orthogonal cells the step passes between.
#[derive(Clone, Copy)]
struct Offset {
    to: isize,
    diagonal: bool,
    side_a: isize,
    side_b: isize,
}

/// Neighbour offsets in window indices for each parity class of cells (squares: one class,
/// listed twice; pointy hexes: row parity; flat hexes: column parity), in the order of
/// [`Grid::steps`].
fn offsets(grid: &Grid, w: i32) -> [Vec<Offset>; 2] {
    let class = |c: i32| -> Vec<Offset> {
        // A representative cell of the class, far enough from 0 for the deltas to be clean.
        let rep = match grid.topology {
            Topology::Hex {
                orientation: crate::rules::grid::HexOrientation::Flat,
            } => Cell::new(4 + c, 4),
            _ => Cell::new(4, 4 + c),
        };
        let idx = |dx: i32, dy: i32| (dy as isize) * w as isize + dx as isize;
        let mut v = Vec::new();
        match grid.topology {
            Topology::Square { diagonals } => {
                let count = if diagonals == Diagonals::Forbidden {
                    4
                } else {
                    8
                };
                for &(dx, dy) in &crate::rules::grid::SQUARE_DIRS[..count] {
                    v.push(Offset {
                        to: idx(dx, dy),
                        diagonal: dx != 0 && dy != 0,
                        side_a: idx(dx, 0),
                        side_b: idx(0, dy),
                    });
                }
            }
            Topology::Hex { .. } => {
                let (q, r) = grid.to_axial(rep);
                for (dq, dr) in crate::rules::grid::AXIAL_DIRS {
                    let nb = grid.from_axial(q + dq, r + dr);
                    v.push(Offset {
                        to: idx(nb.x - rep.x, nb.y - rep.y),
                        diagonal: false,
                        side_a: 0,
                        side_b: 0,
                    });
                }
            }
        }
        v
    };
    [class(0), class(1)]
}

/// The parity class of a cell's neighbour offsets ([`offsets`]).
fn class_of(grid: &Grid, c: Cell) -> usize {
    match grid.topology {
        Topology::Square { .. } => 0,
        Topology::Hex {
            orientation: crate::rules::grid::HexOrientation::Pointy,
        } => (c.y & 1) as usize,
        Topology::Hex { .. } => (c.x & 1) as usize,
    }
}

impl Reach {
    fn local(&self, c: Cell) -> Option<usize> {
        let (lx, ly) = (c.x - self.x0, c.y - self.y0);
        (lx >= 0 && ly >= 0 && lx < self.w && ly < self.h)
            .then(|| ly as usize * self.w as usize + lx as usize)
    }

    fn cell_of(&self, local: usize) -> Cell {
        let w = self.w as usize;
        Cell::new(self.x0 + (local % w) as i32, self.y0 + (local / w) as i32)
    }

    fn search(&mut self, q: &MoveQuery<'_>) {
        let terrain = q.terrain;
        let one_two = self.layers == 2;
        let n = self.w as usize * self.h as usize;
        // Per window cell: the cost to enter (0: impassable, an enemy, off the map or the
        // padding ring) and whether the terrain is passable (for the diagonal squeeze).
        let mut enter = vec![0u32; n];
        let mut passable = vec![false; n];
        for (i, (e, p)) in enter.iter_mut().zip(passable.iter_mut()).enumerate() {
            let c = self.cell_of(i);
            let (x, y) = (c.x - self.x0, c.y - self.y0);
            let ring = x == 0 || y == 0 || x == self.w - 1 || y == self.h - 1;
            if let Some(cost) = terrain.cost(c) {
                *p = true;
                let enemy = q.occupants.get(c).copied().unwrap_or_default() == Occupant::Enemy;
                if !ring && !enemy {
                    *e = cost;
                }
            }
        }
        // The ground's height per window cell, on maps with heights (climbing costs one more
        // a level; a step of two levels or more is a cliff: [`TerrainMap::climb`]).
        let ground: Option<Vec<u8>> =
            (!terrain.is_flat()).then(|| (0..n).map(|i| terrain.height(self.cell_of(i))).collect());
        let max_step = enter.iter().copied().max().unwrap_or(1).max(1) as usize
            * if one_two { 2 } else { 1 }
            + usize::from(ground.is_some());
        let offsets = offsets(&self.grid, self.w);
        let class_of = |c: Cell| class_of(&self.grid, c);
        let Some(start_local) = self.local(q.start) else {
            return;
        };
        self.cost[start_local] = 0;
        let mut open = Open::new(max_step);
        open.push(0, start_local as u32);
        let mut settled = vec![false; n * self.layers];
        while let Some((current, state)) = open.pop() {
            let state = state as usize;
            if settled[state] || self.cost[state] != current {
                continue; // a stale entry: the state was improved or settled since
            }
            settled[state] = true;
            let (local, parity) = (state % n, state / n);
            if self.target == Some(local) {
                // States come off the queue in order of cost: the target's least is known.
                break;
            }
            let new_prov = self.provocations[state] + u32::from(self.threatened[local]);
            let class = class_of(self.cell_of(local));
            for off in &offsets[class] {
                // In range: `local` is never on the padding ring (the ring cannot be entered),
                // so every neighbour offset stays inside the window.
                let next = (local as isize + off.to) as usize;
                let cost = enter[next];
                if cost == 0 {
                    continue;
                }
                if off.diagonal
                    && !passable[(local as isize + off.side_a) as usize]
                    && !passable[(local as isize + off.side_b) as usize]
                {
                    continue;
                }
                let (length, next_parity) = match (off.diagonal, one_two) {
                    (true, true) => (1 + parity as u32, 1 - parity),
                    _ => (1, parity),
                };
                let climb = match &ground {
                    None => 0,
                    Some(g) => match i32::from(g[next]) - i32::from(g[local]) {
                        1 => 1,
                        -1..=0 => 0,
                        _ => continue,
                    },
                };
                let new_cost = current
                    .saturating_add(cost.saturating_mul(length))
                    .saturating_add(climb);
                if new_cost > self.budget {
                    continue;
                }
                let ns = next_parity * n + next;
                if settled[ns] {
                    continue;
                }
                if (new_cost, new_prov) < (self.cost[ns], self.provocations[ns]) {
                    if new_cost != self.cost[ns] {
                        open.push(new_cost, ns as u32);
                    }
                    self.cost[ns] = new_cost;
                    self.provocations[ns] = new_prov;
                    self.parent[ns] = state as u32;
                }
            }
        }
        self.enter = enter;
        self.passable = passable;
        self.ground = ground;
    }

    /// The best state of a cell: least cost, then fewest provocations, then lower parity.
    fn best_state(&self, c: Cell) -> Option<usize> {
        let local = self.local(c)?;
        let n = self.w as usize * self.h as usize;
        (0..self.layers)
            .map(|p| p * n + local)
            .filter(|&s| self.cost[s] != UNREACHED)
            .min_by_key(|&s| (self.cost[s], self.provocations[s]))
    }

    pub fn start(&self) -> Cell {
        self.start
    }

    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// Least movement points to reach a cell (passing through is enough), if within budget.
    pub fn cost(&self, c: Cell) -> Option<u32> {
        self.best_state(c).map(|s| self.cost[s])
    }

    /// Fewest threatened cells left on a least-cost path to the cell.
    pub fn provocations(&self, c: Cell) -> Option<u32> {
        self.best_state(c).map(|s| self.provocations[s])
    }

    /// Whether the mover can end its move on the cell (reachable and not held by an ally).
    pub fn can_end(&self, c: Cell) -> bool {
        self.cost(c).is_some() && self.local(c).is_some_and(|i| self.endable[i])
    }

    /// Every cell the mover can end on, with its cost, row-major (the start included, at 0).
    pub fn destinations(&self) -> Vec<(Cell, u32)> {
        let mut out = Vec::new();
        for y in self.y0..self.y0 + self.h {
            for x in self.x0..self.x0 + self.w {
                let c = Cell::new(x, y);
                if let (true, Some(cost)) = (self.can_end(c), self.cost(c)) {
                    out.push((c, cost));
                }
            }
        }
        out
    }

    /// The chosen path to a cell, or `None` if it cannot be reached. A path to a cell held by an
    /// ally is returned (it is a valid route through) but [`Reach::can_end`] says it is no end.
    ///
    /// Of the paths with the least cost and, among those, the fewest provocations, the one
    /// that keeps closest to the straight line from the start to the cell: walking back from
    /// the cell, each step comes from the predecessor on such a path whose centre lies
    /// nearest the line (ties: the search's own parent, then the neighbour order). So a
    /// walk across open floor goes straight rather than zigzagging between equal-cost
    /// diagonals, on hexes as on squares.
    pub fn path_to(&self, c: Cell) -> Option<Path> {
        let mut state = self.best_state(c)?;
        let n = self.w as usize * self.h as usize;
        let offsets = offsets(&self.grid, self.w);
        let (ox, oy) = self.grid.to_axial(self.start);
        let (gx, gy) = self.grid.to_axial(c);
        // Twice the area of the triangle start, cell, point: the point's distance from the
        // line times a constant. Axial coordinates are a linear image of the plane, which
        // scales every area alike, so the ranking is the true one, in integers.
        let off_line = |p: Cell| {
            let (px, py) = self.grid.to_axial(p);
            (i64::from(gx - ox) * i64::from(py - oy) - i64::from(gy - oy) * i64::from(px - ox))
                .abs()
        };
        let mut rev = Vec::new();
        while self.parent[state] != NO_PARENT {
            let parent = self.straightest_predecessor(state, &offsets, &off_line);
            let from = self.cell_of(parent % n);
            let to = self.cell_of(state % n);
            let kind = if self.grid.topology.is_hex() || from.x == to.x || from.y == to.y {
                StepKind::Straight
            } else {
                StepKind::Diagonal
            };
            rev.push(Step {
                from,
                to,
                kind,
                cost_so_far: self.cost[state],
                leaves_threat: self.threatened[parent % n],
            });
            state = parent;
        }
        rev.reverse();
        Some(Path { steps: rev })
    }

    /// Of the states a step into `state` can come from on a best path (the least cost, then
    /// the fewest provocations: exactly the step the search would have taken), the one whose
    /// cell is least `off_line`; the search's parent on a tie, else the first in neighbour
    /// order. Every cheaper state is settled, so each such predecessor's cost and provocations
    /// are final, in [`reach_to`]'s shortened search as in the whole one.
    fn straightest_predecessor(
        &self,
        state: usize,
        offsets: &[Vec<Offset>; 2],
        off_line: &impl Fn(Cell) -> i64,
    ) -> usize {
        let n = self.w as usize * self.h as usize;
        let (local, parity) = (state % n, state / n);
        let parent = self.parent[state] as usize;
        let one_two = self.layers == 2;
        let here = self.cell_of(local);
        let mut best = (off_line(self.cell_of(parent % n)), parent);
        for off in &offsets[class_of(&self.grid, here)] {
            // Adjacency is symmetric and `local` is inside the ring, so the neighbour is in the
            // window; the step from it into `local` passes between the same two side cells.
            let from = (local as isize + off.to) as usize;
            if off.diagonal
                && !self.passable[(local as isize + off.side_a) as usize]
                && !self.passable[(local as isize + off.side_b) as usize]
            {
                continue;
            }
            let (length, from_parity) = match (off.diagonal, one_two) {
                (true, true) => (2 - parity as u32, 1 - parity),
                _ => (1, parity),
            };
            let climb = match &self.ground {
                None => 0,
                Some(g) => match i32::from(g[local]) - i32::from(g[from]) {
                    1 => 1,
                    -1..=0 => 0,
                    _ => continue,
                },
            };
            let fs = from_parity * n + from;
            if self.cost[fs] == UNREACHED || fs == parent {
                continue;
            }
            let step = self.enter[local]
                .saturating_mul(length)
                .saturating_add(climb);
            let best_path = self.cost[fs].saturating_add(step) == self.cost[state]
                && self.provocations[fs] + u32::from(self.threatened[from])
                    == self.provocations[state];
            if best_path {
                let key = off_line(self.cell_of(from));
                if key < best.0 {
                    best = (key, fs);
                }
            }
        }
        best.1
    }
}

/// The largest step cost the bucket queue takes; above it the search uses a heap. Levels that
/// pass validation stay far below (terrain costs are at most 100, doubled on a 1-2 diagonal).
const MAX_BUCKETS: usize = 256;

/// The search's open states by cost.
enum Open {
    /// Circular buckets: a state of cost c lives in bucket c % lap. Every push is at most the
    /// largest step ahead of the bucket being drained, so one lap never aliases two costs.
    Buckets {
        buckets: Vec<Vec<u32>>,
        current: u32,
        pending: usize,
    },
    /// Least (cost, state) first: for step costs too large for buckets.
    Heap(BinaryHeap<Reverse<(u32, u32)>>),
}

impl Open {
    fn new(max_step: usize) -> Self {
        if max_step <= MAX_BUCKETS {
            Open::Buckets {
                buckets: vec![Vec::new(); max_step + 1],
                current: 0,
                pending: 0,
            }
        } else {
            Open::Heap(BinaryHeap::new())
        }
    }

    fn push(&mut self, cost: u32, state: u32) {
        match self {
            Open::Buckets {
                buckets, pending, ..
            } => {
                let lap = buckets.len();
                buckets[cost as usize % lap].push(state);
                *pending += 1;
            }
            Open::Heap(heap) => heap.push(Reverse((cost, state))),
        }
    }

    /// The next state in order of cost, with its cost.
    fn pop(&mut self) -> Option<(u32, u32)> {
        match self {
            Open::Buckets {
                buckets,
                current,
                pending,
            } => {
                let lap = buckets.len();
                while *pending > 0 {
                    if let Some(state) = buckets[*current as usize % lap].pop() {
                        *pending -= 1;
                        return Some((*current, state));
                    }
                    *current += 1;
                }
                None
            }
            Open::Heap(heap) => heap.pop().map(|Reverse(entry)| entry),
        }
    }
}

#[cfg(test)]
mod tests;
