//! Grids: square (with a diagonal rule) and hex (pointy- or flat-top).
//!
//! # Coordinates
//! Every map is a rectangle of `width × height` cells addressed by [`Cell`] `{ x, y }`:
//! column `x` from the left, row `y` from the top, both from 0. That is exactly where a glyph
//! stands in a level's `map` rows, so designers never convert anything.
//!
//! - **Square** maps use `(x, y)` directly.
//! - **Hex** maps store the rectangle in *offset* coordinates and do all maths in *axial*
//!   coordinates `(q, r)` (see [`Grid::to_axial`]):
//!   - pointy-top hexes use "odd-r" rows: odd rows are shoved half a hex to the right;
//!   - flat-top hexes use "odd-q" columns: odd columns are shoved half a hex down.
//!
//! # Determinism
//! Every function that yields several cells yields them in a fixed, documented order (the
//! direction order of [`Grid::steps`], or row-major for ranges), never from a hash map.

mod cellmap;

pub use cellmap::CellMap;

use serde::{Deserialize, Serialize};

/// A cell of a rectangular map: column `x`, row `y` (offset coordinates on hex maps).
///
/// # Examples
///
/// ```
/// use fray::rules::grid::Cell;
///
/// let c = Cell::new(2, 1);
/// assert_eq!((c.x, c.y), (2, 1));
/// assert_eq!(c.to_string(), "(2, 1)");
/// assert_ne!(c, Cell::new(1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cell {
    pub x: i32,
    pub y: i32,
}

impl Cell {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// How a square grid treats diagonal steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Diagonals {
    /// A diagonal step costs the same as an orthogonal one (`sides`: 5-ft squares).
    One,
    /// Every second diagonal step costs 2 (`alternating`: "treat every second diagonal space
    /// moved as 2m instead of 1m"). The first diagonal of a move costs 1, the second 2, ...
    OneTwo,
    /// No diagonal steps at all (four-way movement).
    Forbidden,
}

/// Which way hexes point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HexOrientation {
    /// A corner points up; rows are horizontal ("odd-r" offset layout).
    Pointy,
    /// An edge is on top; columns are vertical ("odd-q" offset layout).
    Flat,
}

/// The shape of a map's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Topology {
    Square { diagonals: Diagonals },
    Hex { orientation: HexOrientation },
}

impl Topology {
    /// Every topology, for tests and tools that must cover them all.
    pub const ALL: [Topology; 5] = [
        Topology::Square {
            diagonals: Diagonals::One,
        },
        Topology::Square {
            diagonals: Diagonals::OneTwo,
        },
        Topology::Square {
            diagonals: Diagonals::Forbidden,
        },
        Topology::Hex {
            orientation: HexOrientation::Pointy,
        },
        Topology::Hex {
            orientation: HexOrientation::Flat,
        },
    ];

    pub fn is_hex(self) -> bool {
        matches!(self, Topology::Hex { .. })
    }

    /// A short human name ("hex (pointy-top)", "square (diagonal 1-2)").
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Diagonals, HexOrientation, Topology};
    ///
    /// let hex = Topology::Hex { orientation: HexOrientation::Pointy };
    /// assert!(hex.is_hex());
    /// assert_eq!(hex.describe(), "hex (pointy-top)");
    /// let square = Topology::Square { diagonals: Diagonals::OneTwo };
    /// assert_eq!(square.describe(), "square (diagonal 1-2)");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Topology::Square {
                diagonals: Diagonals::One,
            } => "square (diagonal 1)",
            Topology::Square {
                diagonals: Diagonals::OneTwo,
            } => "square (diagonal 1-2)",
            Topology::Square {
                diagonals: Diagonals::Forbidden,
            } => "square (no diagonals)",
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            } => "hex (pointy-top)",
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => "hex (flat-top)",
        }
    }
}

/// Whether a step between neighbours is orthogonal or diagonal (hex steps are all `Straight`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StepKind {
    Straight,
    Diagonal,
}

/// Square directions, in the fixed order used everywhere: E, S, W, N, then SE, SW, NW, NE.
pub const SQUARE_DIRS: [(i32, i32); 8] = [
    (1, 0),
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
    (1, -1),
];

/// Axial hex directions, in the fixed order used everywhere (counter-clockwise from +q).
pub const AXIAL_DIRS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// The shape and size of a map. Cheap to copy; holds no terrain.
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
///
/// let grid = Grid::new(Topology::Square { diagonals: Diagonals::One }, 8, 5);
/// assert_eq!(grid.len(), 40);
/// assert!(grid.contains(Cell::new(7, 4)));
/// assert!(!grid.contains(Cell::new(8, 0)));
/// // Row-major indices, and back.
/// assert_eq!(grid.index(Cell::new(2, 1)), Some(10));
/// assert_eq!(grid.cell_at(10), Cell::new(2, 1));
/// assert_eq!(grid.index(Cell::new(-1, 0)), None);
/// assert_eq!(grid.cells().nth(9), Some(Cell::new(1, 1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grid {
    pub topology: Topology,
    pub width: u32,
    pub height: u32,
}

impl Grid {
    pub fn new(topology: Topology, width: u32, height: u32) -> Self {
        Self {
            topology,
            width,
            height,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.width as usize * self.height as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, c: Cell) -> bool {
        c.x >= 0 && c.y >= 0 && (c.x as u32) < self.width && (c.y as u32) < self.height
    }

    /// Row-major index of an in-bounds cell.
    pub fn index(&self, c: Cell) -> Option<usize> {
        self.contains(c)
            .then(|| c.y as usize * self.width as usize + c.x as usize)
    }

    /// The cell at a row-major index (no bounds check beyond debug assertions).
    pub fn cell_at(&self, index: usize) -> Cell {
        debug_assert!(index < self.len());
        let w = self.width as usize;
        Cell::new((index % w) as i32, (index / w) as i32)
    }

    /// All cells, row-major.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + use<> {
        let (w, h) = (self.width as i32, self.height as i32);
        (0..h).flat_map(move |y| (0..w).map(move |x| Cell::new(x, y)))
    }

    /// Axial `(q, r)` of a cell. Square grids return `(x, y)` unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Grid, HexOrientation, Topology};
    ///
    /// // Pointy tops, "odd-r": each pair of rows shifts the axial q by one.
    /// let pointy = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 8, 8);
    /// assert_eq!(pointy.to_axial(Cell::new(3, 2)), (2, 2));
    /// assert_eq!(pointy.to_axial(Cell::new(3, 3)), (2, 3));
    /// assert_eq!(pointy.from_axial(2, 3), Cell::new(3, 3));
    /// // Flat tops, "odd-q": the same along columns.
    /// let flat = Grid::new(Topology::Hex { orientation: HexOrientation::Flat }, 8, 8);
    /// assert_eq!(flat.to_axial(Cell::new(3, 2)), (3, 1));
    /// assert_eq!(flat.from_axial(3, 1), Cell::new(3, 2));
    /// ```
    pub fn to_axial(&self, c: Cell) -> (i32, i32) {
        match self.topology {
            Topology::Square { .. } => (c.x, c.y),
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            } => (c.x - (c.y - (c.y & 1)) / 2, c.y),
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => (c.x, c.y - (c.x - (c.x & 1)) / 2),
        }
    }

    /// The cells of a straight line from `a` to `b`, both included, each a step from the last:
    /// on hexes the cells the centre line passes through (cube interpolation, nudged off
    /// ties), on squares the nearest cell at each step of the longer axis (a diagonal step
    /// where the line turns). For painting lines in the level editor; sight has its own exact
    /// geometry ([`crate::rules::sight`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
    ///
    /// let square = Grid::new(Topology::Square { diagonals: Diagonals::One }, 8, 8);
    /// let line = square.line(Cell::new(0, 0), Cell::new(4, 2));
    /// assert_eq!(line.len(), 5);
    /// assert_eq!((line[0], line[4]), (Cell::new(0, 0), Cell::new(4, 2)));
    /// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 8, 8);
    /// assert_eq!(hex.line(Cell::new(0, 0), Cell::new(3, 0)).len(), 4);
    /// ```
    pub fn line(&self, a: Cell, b: Cell) -> Vec<Cell> {
        if self.topology.is_hex() {
            let (aq, ar) = self.to_axial(a);
            let (bq, br) = self.to_axial(b);
            let n = self.hex_distance(a, b) as i32;
            if n == 0 {
                return vec![a];
            }
            // A tiny nudge keeps the interpolation off the edges between two hexes; where the
            // line runs along such edges either side is as straight, and the side that stays
            // on the map is taken.
            let along = |nudge: f64| -> Vec<Cell> {
                let (aq, ar) = (f64::from(aq) + nudge, f64::from(ar) + nudge);
                let (bq, br) = (f64::from(bq) + nudge, f64::from(br) + nudge);
                (0..=n)
                    .map(|i| {
                        let t = f64::from(i) / f64::from(n);
                        let q = aq + (bq - aq) * t;
                        let r = ar + (br - ar) * t;
                        let s = -q - r;
                        let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
                        let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
                        if dq > dr && dq > ds {
                            rq = -rr - rs;
                        } else if dr > ds {
                            rr = -rq - rs;
                        }
                        self.from_axial(rq as i32, rr as i32)
                    })
                    .collect()
            };
            let one = along(1e-6);
            if one.iter().all(|c| self.contains(*c)) {
                one
            } else {
                along(-1e-6)
            }
        } else {
            let (dx, dy) = (b.x - a.x, b.y - a.y);
            let n = dx.abs().max(dy.abs());
            if n == 0 {
                return vec![a];
            }
            (0..=n)
                .map(|i| {
                    let t = f64::from(i) / f64::from(n);
                    Cell::new(
                        (f64::from(a.x) + f64::from(dx) * t).round() as i32,
                        (f64::from(a.y) + f64::from(dy) * t).round() as i32,
                    )
                })
                .collect()
        }
    }

    /// The inverse of [`Grid::to_axial`].
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Grid, HexOrientation, Topology};
    ///
    /// let grid = Grid::new(Topology::Hex { orientation: HexOrientation::Flat }, 6, 6);
    /// for c in grid.cells() {
    ///     let (q, r) = grid.to_axial(c);
    ///     assert_eq!(grid.from_axial(q, r), c);
    /// }
    /// ```
    pub fn from_axial(&self, q: i32, r: i32) -> Cell {
        match self.topology {
            Topology::Square { .. } => Cell::new(q, r),
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            } => Cell::new(q + (r - (r & 1)) / 2, r),
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => Cell::new(q, r + (q - (q & 1)) / 2),
        }
    }

    /// The in-bounds neighbours of a cell with the kind of step to each, in the fixed order:
    /// square E, S, W, N, SE, SW, NW, NE (diagonals only where the rule allows them);
    /// hex in [`AXIAL_DIRS`] order.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, StepKind, Topology};
    ///
    /// let grid = Grid::new(Topology::Square { diagonals: Diagonals::OneTwo }, 4, 4);
    /// let steps: Vec<_> = grid.steps(Cell::new(0, 0)).collect();
    /// assert_eq!(
    ///     steps,
    ///     [
    ///         (Cell::new(1, 0), StepKind::Straight),
    ///         (Cell::new(0, 1), StepKind::Straight),
    ///         (Cell::new(1, 1), StepKind::Diagonal),
    ///     ]
    /// );
    /// ```
    pub fn steps(&self, c: Cell) -> impl Iterator<Item = (Cell, StepKind)> + use<> {
        let grid = *self;
        let mut out = [(Cell::new(0, 0), StepKind::Straight); 8];
        let mut n = 0;
        match self.topology {
            Topology::Square { diagonals } => {
                let count = if diagonals == Diagonals::Forbidden {
                    4
                } else {
                    8
                };
                for (i, (dx, dy)) in SQUARE_DIRS.iter().take(count).enumerate() {
                    let kind = if i < 4 {
                        StepKind::Straight
                    } else {
                        StepKind::Diagonal
                    };
                    out[n] = (Cell::new(c.x + dx, c.y + dy), kind);
                    n += 1;
                }
            }
            Topology::Hex { .. } => {
                let (q, r) = self.to_axial(c);
                for (dq, dr) in AXIAL_DIRS {
                    out[n] = (self.from_axial(q + dq, r + dr), StepKind::Straight);
                    n += 1;
                }
            }
        }
        out.into_iter()
            .take(n)
            .filter(move |(cell, _)| grid.contains(*cell))
    }

    /// The in-bounds neighbours of a cell (see [`Grid::steps`] for the order).
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
    ///
    /// let square = Grid::new(Topology::Square { diagonals: Diagonals::One }, 8, 5);
    /// assert_eq!(square.neighbours(Cell::new(1, 1)).count(), 8);
    /// assert_eq!(square.neighbours(Cell::new(0, 0)).count(), 3); // a corner of the map
    /// let four_way = Grid::new(Topology::Square { diagonals: Diagonals::Forbidden }, 8, 5);
    /// assert_eq!(four_way.neighbours(Cell::new(1, 1)).count(), 4);
    ///
    /// // Pointy hexes: odd rows sit half a hex to the right, so (1, 1) touches (1, 0) and (2, 0).
    /// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 8, 5);
    /// let around: Vec<Cell> = hex.neighbours(Cell::new(1, 1)).collect();
    /// assert_eq!(
    ///     around,
    ///     [(2, 1), (2, 0), (1, 0), (0, 1), (1, 2), (2, 2)].map(|(x, y)| Cell::new(x, y))
    /// );
    /// ```
    pub fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + use<> {
        self.steps(c).map(|(cell, _)| cell)
    }

    /// Whether two distinct cells are neighbours under this grid's movement rule.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
    ///
    /// let (a, b) = (Cell::new(0, 0), Cell::new(1, 1));
    /// let square = |diagonals| Grid::new(Topology::Square { diagonals }, 4, 4);
    /// assert!(square(Diagonals::One).is_adjacent(a, b));
    /// assert!(!square(Diagonals::Forbidden).is_adjacent(a, b));
    /// assert!(!square(Diagonals::One).is_adjacent(a, a));
    /// ```
    pub fn is_adjacent(&self, a: Cell, b: Cell) -> bool {
        a != b && self.distance_steps(a, b) == 1
    }

    /// The least number of steps between two cells, ignoring terrain (every step counts 1,
    /// including diagonals where they are allowed). This is the "reach" measure: a melee reach
    /// of 1 threatens every cell at step distance 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
    ///
    /// let grid = Grid::new(Topology::Square { diagonals: Diagonals::OneTwo }, 10, 10);
    /// let (a, b) = (Cell::new(0, 0), Cell::new(3, 2));
    /// assert_eq!(grid.distance_steps(a, b), 3); // every diagonal step counts 1 here
    /// assert_eq!(grid.distance(a, b), 4); // the second diagonal costs 2
    /// ```
    pub fn distance_steps(&self, a: Cell, b: Cell) -> u32 {
        match self.topology {
            Topology::Square { diagonals } => {
                let dx = (a.x - b.x).unsigned_abs();
                let dy = (a.y - b.y).unsigned_abs();
                match diagonals {
                    Diagonals::Forbidden => dx + dy,
                    Diagonals::One | Diagonals::OneTwo => dx.max(dy),
                }
            }
            Topology::Hex { .. } => self.hex_distance(a, b),
        }
    }

    /// The distance in grid units as the ruleset measures it, ignoring terrain: Chebyshev for
    /// diagonal 1, Manhattan without diagonals, `max + min / 2` for the 1-2 diagonal rule
    /// (every second diagonal counts 2), hex distance on hexes. This is the cost of the
    /// cheapest move over open floor, and the measure for weapon ranges.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
    ///
    /// let (a, b) = (Cell::new(0, 0), Cell::new(3, 2));
    /// let square = |diagonals| Grid::new(Topology::Square { diagonals }, 10, 10);
    /// assert_eq!(square(Diagonals::One).distance(a, b), 3); // Chebyshev
    /// assert_eq!(square(Diagonals::OneTwo).distance(a, b), 4); // 3 + 2 / 2
    /// assert_eq!(square(Diagonals::Forbidden).distance(a, b), 5); // Manhattan
    /// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 10, 10);
    /// assert_eq!(hex.distance(a, b), 4);
    /// assert_eq!(hex.distance(b, a), 4);
    /// ```
    pub fn distance(&self, a: Cell, b: Cell) -> u32 {
        match self.topology {
            Topology::Square {
                diagonals: Diagonals::OneTwo,
            } => {
                let dx = (a.x - b.x).unsigned_abs();
                let dy = (a.y - b.y).unsigned_abs();
                let (lo, hi) = (dx.min(dy), dx.max(dy));
                hi + lo / 2
            }
            _ => self.distance_steps(a, b),
        }
    }

    fn hex_distance(&self, a: Cell, b: Cell) -> u32 {
        let (aq, ar) = self.to_axial(a);
        let (bq, br) = self.to_axial(b);
        let dq = aq - bq;
        let dr = ar - br;
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// The in-bounds cells at exactly `radius` steps ([`Grid::distance_steps`]) from `center`,
    /// in row-major order. `radius == 0` gives the centre itself.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
    ///
    /// let square = Grid::new(Topology::Square { diagonals: Diagonals::One }, 8, 5);
    /// assert_eq!(square.ring(Cell::new(0, 0), 0), [Cell::new(0, 0)]);
    /// assert_eq!(
    ///     square.ring(Cell::new(0, 0), 1),
    ///     [Cell::new(1, 0), Cell::new(0, 1), Cell::new(1, 1)]
    /// );
    /// assert_eq!(square.ring(Cell::new(4, 2), 2).len(), 16);
    /// assert_eq!(square.ring(Cell::new(1, 2), 2).len(), 11); // the map's edge cuts 5 cells
    /// // A hex ring of radius r holds 6·r cells.
    /// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Flat }, 10, 10);
    /// assert_eq!(hex.ring(Cell::new(4, 4), 3).len(), 18);
    /// ```
    pub fn ring(&self, center: Cell, radius: u32) -> Vec<Cell> {
        self.window(center, radius)
            .filter(|&c| self.distance_steps(center, c) == radius)
            .collect()
    }

    /// The in-bounds cells within `radius` steps of `center` (inclusive), row-major.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
    ///
    /// let square = Grid::new(Topology::Square { diagonals: Diagonals::Forbidden }, 9, 9);
    /// assert_eq!(square.range(Cell::new(4, 4), 2).len(), 13); // a diamond
    /// let hex = Grid::new(Topology::Hex { orientation: HexOrientation::Pointy }, 9, 9);
    /// let near = hex.range(Cell::new(4, 4), 2);
    /// assert_eq!(near.len(), 19); // 1 + 6 + 12
    /// assert!(near.iter().all(|&c| hex.distance(Cell::new(4, 4), c) <= 2));
    /// ```
    pub fn range(&self, center: Cell, radius: u32) -> Vec<Cell> {
        self.window(center, radius)
            .filter(|&c| self.distance_steps(center, c) <= radius)
            .collect()
    }

    /// The in-bounds cells of a rectangle guaranteed to hold every cell within `radius` steps.
    fn window(&self, center: Cell, radius: u32) -> impl Iterator<Item = Cell> + use<> {
        let r = radius.min(self.width.max(self.height)) as i32;
        // On hex maps the offset layout's half-cell shifts are absorbed by one extra row and
        // column each side, which keeps the window a superset (the callers filter by distance).
        let pad = if self.topology.is_hex() { 1 } else { 0 };
        let x0 = (center.x - r - pad).max(0);
        let x1 = (center.x + r + pad).min(self.width as i32 - 1);
        let y0 = (center.y - r - pad).max(0);
        let y1 = (center.y + r + pad).min(self.height as i32 - 1);
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| Cell::new(x, y)))
    }
}

#[cfg(test)]
mod tests;
