//! The field of view of a cell on a flat map, fast and still exact.
//!
//! [`super::field_of_view`] must agree with [`super::line_of_sight`] for every cell. Asking that
//! rule for every cell of the map is exact but slow: a cell out of sight costs every
//! sample-to-sample ray to refute. On square maps most cells are decided without it, in three
//! steps:
//!
//! 1. **Open rectangles** ([`Candidates::open_rectangles`]). If no cell of the rectangle
//!    spanned by the viewer's cell and the target's is solid (Opaque or Slit), apart from those
//!    two end cells, the centre-to-centre segment is clear, so the target is seen. Why it is
//!    exact: the segment between two cell centres lies in that rectangle, so every cell whose
//!    interior it crosses is in it (rules 1–2); it never runs along a grid line, since its
//!    ends are at cell centres (rule 3); and a grid vertex strictly between its ends has its
//!    four cells in the rectangle too (rule 4). In each quadrant these cells make a staircase
//!    (a rectangle only grows away from the viewer), found row by row from the viewer's
//!    column: the cost is the cells it settles plus one per row, not a pass over the map, and
//!    an open map is done here.
//! 2. **Shadowcasts** ([`Candidates`]) from each of the viewer's five sample points (centre
//!    first, then the corners), each over eight octants, in exact integer slopes. Each cell
//!    they reach is *marked* when a segment to one of its samples may be clear (a superset of
//!    the cells in sight) and *sure* when one provably is (a subset). Cells settled by step 1
//!    start both, and the casts only shape their light with them. The casts read a copy of
//!    the sight layer with a border of Opaque cells and the viewer's cell made Clear, so
//!    neither the map's edge nor the end cell needs a test of its own.
//! 3. **The exact rule** ([`super::line_of_sight`]) on the cells marked but never sure (the
//!    casts list them as they mark them, so this step too never walks the map).
//!
//! On the benchmark's maps with 20% walls every cell in sight is sure, and the marked cells
//! out of sight (about 3% of the cells in sight) are the only queries. Over its 16 viewers
//! of the 64×64 map, step 1 settles 625 of the 5131 cells seen, the centre casts prove 2202
//! and the corner casts the other 2198: a cell in a walled map is mostly seen corner to
//! corner, which is why all five casts are needed.
//!
//! On **hex maps** ([`super::hexfov`]) the first step has a counterpart: a cell whose *cube
//! box* with the viewer holds no solid cell but the two ends is seen (the proof is there; its
//! prefix sums are kept in the [`FovScratch`] while the map is unchanged). When those leave
//! many cells, casts over the lines of hexes (one cube coordinate fixed) refute most of the
//! cells out of sight, and the exact rule decides the rest; nothing there proves a cell seen
//! but the boxes. Maps with heights ask the exact rule cell by cell.
//!
//! Every step is exact on its own, so the buffers ([`FovScratch`]) that a caller may keep from
//! one field to the next change nothing but the allocations (and, on hex maps, the prefix
//! sums remade: they are kept only while the map's grid and sight layer are the same).
//!
//! # The octant and its lights
//! A shadowcast from a sample `p` works in local units of half a cell with `p` at the origin,
//! the octant's main axis `u` and its other axis `v` (`0 ≤ v ≤ u` along a segment in it).
//! Cells are numbered by column `i` along `u` and row `j` along `v`; column `i` spans
//! `u ∈ [2i − h, 2i − h + 2]` (`h` = 1 from a centre, 0 from a corner), clipped at `u ≥ 0`,
//! and rows likewise.
//!
//! - The slopes `v/u` of the points of a cell, inside the octant, make the closed interval
//!   `[max(v0, 0)/u1, v1/max(u0, 0)]` (its lowest-right and highest-left corners); the cells
//!   of a column whose interval meets the light are *visited*.
//! - A segment from `p` to a point beyond column `k` crosses all of it. It crosses the open
//!   interior of cell `(u0, u1) × (v0, v1)` of that column exactly when its slope is in the
//!   open interval `(v0/u1, v1/max(u0, 0))`, the cell's *shadow*.
//! - A *light* is a union of slope intervals whose ends may be open or closed ([`Bound`]),
//!   from `[0, 1]` minus, after each column: the shadows of its solid cells (not the
//!   viewer's), and single slopes blocked for every cell further on by rule 4 (a *pinch* at a
//!   grid vertex on the column's near edge, between columns `i − 1` and `i`) or rule 3 (from a
//!   corner, a *seam* along the axis, which is a grid line, beside column `i`). Cells of the
//!   pinch or the seam are in columns `i − 1` and `i` only, so they are never the end cell of
//!   a segment to a cell further on; the viewer's own cell counts as clear throughout.
//! - An interval whose lowest slope passes above the top of the octant's last row on the map
//!   at column `i` does so at every later column (the row's top slope `v1/u0` only falls):
//!   no cell on the map is ever visited on it again, so it is dropped.
//! - Two lights run side by side: the **permissive** one, where slits cast no shadow, and the
//!   **clear** one, where slits are walls. On a map without slits they are one.
//!
//! **Finding the pinches.** A pinch at vertex `V` on the near edge of column `k` (`u > 0`) has
//! one cell of its solid pair in column `k`, with `V` one of that cell's two near corners, and
//! the other diagonally behind it in column `k − 1`. If `V`'s slope is lit, the cell in column
//! `k` is visited (its slope interval holds that slope), so looking, at each visited solid
//! cell, at the two cells diagonally behind its near corners finds every lit pinch; the
//! slopes found are taken out of the light after the column (taking out a slope that is not
//! lit changes nothing). On a map without slits every solid cell is Opaque and casts its
//! shadow, so only one near corner needs the look: the slope `v0/u` of the lower one lies
//! inside the cell's open shadow (or is 0, the axis, below), and that of the upper one,
//! `v1/u`, is the shadow's upper end, which a pinch there closes. The pinches then ride in
//! the shadows, and a column costs one subtraction. Two pair cells escape the visit: one off the map past the octant's
//! last row (then `V`, and every point past it on its slope, lies beyond the map's last row,
//! so no target is on that slope), and from a corner one in row −1, below the axis: the axis
//! is tested on its own, with its seam, after every column.
//!
//! # Marked: never drops a cell in sight
//! A cell `b` in column `i` in sight has a clear segment from some sample `p` to a sample `q`
//! of `b`; its slope `s` is the slope of `q`. It crosses no Opaque interior in columns before
//! `i` (rule 1), passes no pinch on their near edges and runs along no seam beside them (the
//! cells of those are not end cells, as above), so `s` is in the permissive light when
//! column `i` is visited; `b`'s slope interval holds `s`, so `b` is visited and marked. A cell
//! that is not visited casts no shadow on the light (its shadow lies in its slope interval,
//! where there is no light); every visited solid cell casts its shadow, marked or not. Slits
//! are ignored by this light, and `b`'s own column is not looked at: both only block more.
//!
//! # Sure: every proved cell is in sight
//! `b` is sure when a sample `q` (slope `s`) is in the clear light when column `i` is visited
//! and the last stretch of the segment, from the near edge of column `i` to `q`, is clear:
//! - Over the columns before `i` the segment is clear: a slope in the clear light crosses no
//!   solid interior there (rules 1–2, slits counted as walls, which only blocks more), runs
//!   along no seam (within an octant only the axis from a corner runs along a grid line), and
//!   passes no pinch on the near edges of columns `1..i` (by the paragraph above, each was
//!   taken out of the light after its column).
//! - Entering column `i` the segment may pass a grid vertex: there `b` is an end cell, so the
//!   pinch test runs with `b` clear.
//! - Inside column `i` it rises from `v·us/u` to `v` (`us` the near edge): the rows below `b`
//!   whose open band meets that open range must be clear or the segment crosses their
//!   interior; rows above `b` are not reached, vertices inside a column do not exist, and an
//!   axis seam beside `b` has `b` as one of its cells.
//! - A sample on the near edge itself (`u = us`) ends the segment there; a sample at `p` itself
//!   (the cells share a corner) is always seen.
//!
//! Cells off the map are solid; a segment between points of the map meets them only along the
//! map's edge (the axis from a corner, where the seam test sees them) or at its own end points
//! (which never block).

use super::hexfov::{HexCasts, HexTables};
use super::{SCALE, Sight, TerrainMap, line_of_sight};
use crate::rules::grid::{Cell, CellMap};

/// The widest map (in cells, either way) this fast path takes: its slopes' terms then fit in
/// `i32` and their cross products in `i64`. Wider maps ask the exact rule cell by cell.
pub(super) const MAX_SIDE: u32 = 1 << 20;

/// Buffers for fields of view, kept between calls by a caller that asks for many
/// ([`super::field_of_view_with`]): they save allocations (and, on a hex map that has not
/// changed, its prefix sums), never change an answer.
#[derive(Debug, Default)]
pub struct FovScratch {
    bufs: Buffers,
    /// The prefix sums of the hex fast path ([`super::hexfov`]), kept while the map is the
    /// same.
    pub(super) hex: HexTables,
    /// The buffers of the hex casts ([`super::hexfov`]).
    pub(super) hex_casts: HexCasts,
}

impl FovScratch {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The field of view of `from` (on the map) over a flat square map.
pub(super) fn square_field(
    map: &TerrainMap,
    from: Cell,
    scratch: &mut FovScratch,
) -> CellMap<bool> {
    let grid = map.grid();
    let (w, pw) = (grid.width as usize, grid.width as usize + 2);
    let mut marks = Candidates::with(map, from, std::mem::take(&mut scratch.bufs));
    // Step 1: open rectangles, straight into `sure` (and `marked`).
    if !marks.open_rectangles() {
        // It settled every cell.
        scratch.bufs = marks.into_buffers();
        return CellMap::new(grid, true);
    }
    // Steps 2 and 3.
    marks.run();
    let pending = std::mem::take(&mut marks.pending);
    for &i in &pending {
        let c = Cell::new((i % pw) as i32 - 1, (i / pw) as i32 - 1);
        if marks.flags[i] & SURE == 0 && line_of_sight(map, from, c) {
            marks.flags[i] = MARKED | SURE;
        }
    }
    marks.pending = pending;
    let mut out = CellMap::new(grid, false);
    for (y, row) in out.as_mut_slice().chunks_exact_mut(w).enumerate() {
        let start = (y + 1) * pw + 1;
        for (o, &f) in row.iter_mut().zip(&marks.flags[start..start + w]) {
            *o = f & SURE != 0;
        }
    }
    scratch.bufs = marks.into_buffers();
    out
}

/// A slope `n/d` (`d ≥ 0`), or `+∞` as `1/0`; compared by cross-multiplication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slope {
    pub(super) n: i32,
    pub(super) d: i32,
}

impl Slope {
    const ZERO: Slope = Slope { n: 0, d: 1 };
    const ONE: Slope = Slope { n: 1, d: 1 };
    const INF: Slope = Slope { n: 1, d: 0 };

    pub(super) fn new(n: i64, d: i64) -> Self {
        // Slopes are of half-cell steps on a map at most `MAX_SIDE` across (see the callers).
        if d == 0 {
            Self::INF
        } else {
            Self {
                n: n as i32,
                d: d as i32,
            }
        }
    }

    #[inline(always)]
    fn wide(self) -> (i64, i64) {
        (i64::from(self.n), i64::from(self.d))
    }
}

/// An end of a lit interval: the slope `s` itself (`e` = 0), or just below (−1) or just above
/// (+1) it, so that open and closed ends compare in one order: `[at(a), below(b)]` is the
/// half-open `[a, b)`. An interval `[lo, hi]` holds the slopes `x` with `lo ≤ at(x) ≤ hi`, and
/// is empty exactly when `hi < lo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Bound {
    pub(super) s: Slope,
    e: i8,
}

impl Bound {
    pub(super) const fn at(s: Slope) -> Self {
        Self { s, e: 0 }
    }

    pub(super) const fn below(s: Slope) -> Self {
        Self { s, e: -1 }
    }

    const fn above(s: Slope) -> Self {
        Self { s, e: 1 }
    }

    #[inline(always)]
    pub(super) fn lt(self, o: Bound) -> bool {
        // The sign of `self.s − o.s`, by one cross-multiplication.
        let (a, b) = (self.s.wide(), o.s.wide());
        let c = a.0 * b.1 - b.0 * a.1;
        c < 0 || (c == 0 && self.e < o.e)
    }

    #[inline(always)]
    pub(super) fn le(self, o: Bound) -> bool {
        !o.lt(self)
    }
}

/// A lit interval `[lo, hi]` of slopes (see [`Bound`]).
pub(super) type Lit = (Bound, Bound);

/// A shadow `(l, r)`: the slopes `x` with `l < at(x) < r`, so `l` is the last end kept below it
/// and `r` the first kept above. The open shadow `(a, b)` is `(at(a), at(b))`, the closed
/// `[a, b]` is `(below(a), above(b))`, the single slope `a` is `(below(a), above(a))`.
pub(super) type Shade = (Bound, Bound);

#[inline(always)]
pub(super) fn lit(iv: &Lit, x: Slope) -> bool {
    let p = Bound::at(x);
    iv.0.le(p) && p.le(iv.1)
}

/// Adds a shadow to a list kept in rising order of `l`, merging it into the last one when the
/// two overlap (no slope lies between them).
pub(super) fn push_shade(list: &mut Vec<Shade>, sh: Shade) {
    match list.last_mut() {
        Some(prev) if sh.0.lt(prev.1) => {
            if prev.1.lt(sh.1) {
                prev.1 = sh.1;
            }
        }
        _ => list.push(sh),
    }
}

/// Adds the single slope `x` to a rising list of them, once.
fn push_point(list: &mut Vec<Shade>, x: Slope) {
    let p = (Bound::below(x), Bound::above(x));
    if list.last() != Some(&p) {
        list.push(p);
    }
}

/// `light` minus the shadows (in rising order of `l`), into `next` (cleared first).
pub(super) fn subtract(light: &[Lit], shades: &[Shade], next: &mut Vec<Lit>) {
    next.clear();
    let mut s = 0;
    for &(a, b) in light {
        // Skip shadows wholly below this interval (and so below the later ones).
        while s < shades.len() && shades[s].1.le(a) {
            s += 1;
        }
        let mut lo = a;
        let mut alive = true;
        for &(l, r) in &shades[s..] {
            if b.le(l) {
                break;
            }
            // The slopes of [lo, b] below this shadow, then on from its top.
            if lo.le(l) {
                next.push((lo, l));
            }
            if lo.lt(r) {
                lo = r;
            }
            if b.lt(lo) {
                alive = false;
                break;
            }
        }
        if alive {
            next.push((lo, b));
        }
    }
}

/// A cell's flag: some cast found a sample of it lit (it may be in sight).
const MARKED: u8 = 1;
/// A cell's flag: proved in sight.
const SURE: u8 = 2;

/// The buffers of [`Candidates`], kept in a [`FovScratch`] between fields.
#[derive(Debug, Default)]
struct Buffers {
    cells: Vec<Sight>,
    flags: Vec<u8>,
    pending: Vec<usize>,
    light: Vec<Lit>,
    clear: Vec<Lit>,
    next: Vec<Lit>,
    shadows: Vec<Shade>,
    clear_shadows: Vec<Shade>,
    points: Vec<Shade>,
}

/// Step 2: the shadowcasts from the viewer's five sample points, one pass each marking a
/// superset of the cells in sight ([`Candidates::is_marked`]) and a subset
/// ([`Candidates::is_sure`]).
pub(super) struct Candidates<'a> {
    /// The map's sight layer, row by row.
    sight: &'a [Sight],
    /// The same with a border of one Opaque cell all round (cells off the map are solid), row
    /// by row (`w + 2` a row), and the viewer's cell made Clear (it is an end cell of every
    /// segment): cell `(x, y)` is at `(y + 1)·(w + 2) + x + 1`. Steps 2 and 3 read their cells
    /// and neighbours here, with no bounds check. Filled by [`Candidates::run`].
    cells: Vec<Sight>,
    w: i64,
    h: i64,
    /// The padded row length, `w + 2`.
    pw: i64,
    from: (i64, i64),
    /// Whether the map has arrow slits (then the two lights differ).
    slits: bool,
    /// One byte per cell of the padded layer: [`MARKED`] by some shadowcast (every cell in
    /// sight is), [`SURE`] when proved in sight by a clear segment (see the module docs; a
    /// sure cell is marked too).
    flags: Vec<u8>,
    /// The cells (padded indices) marked while not sure, each once, for step 3.
    pending: Vec<usize>,
    /// The permissive light: slits let it through.
    light: Vec<Lit>,
    /// The clear light: slits stop it (only kept apart from `light` if the map has slits).
    clear: Vec<Lit>,
    next: Vec<Lit>,
    /// This column's Opaque cells, open shadows.
    shadows: Vec<Shade>,
    /// This column's Opaque and Slit cells, open shadows (only if the map has slits).
    clear_shadows: Vec<Shade>,
    points: Vec<Shade>,
}

/// One octant of one shadowcast: the source's kind, where its local cells lie in the padded
/// layer, and how many lie on the map.
#[derive(Clone, Copy)]
struct Octant {
    /// 1 from the viewer's centre, 0 from a corner.
    h: i64,
    /// The padded index of the cell at local column 0, row 0, and the index steps of one
    /// column and one row.
    origin: i64,
    di: i64,
    dj: i64,
    /// How many columns and rows lie on the map.
    cols: i64,
    rows: i64,
}

impl Octant {
    /// The padded index of the cell at local column `i`, row `j` (on the map or in the
    /// border: `-1 ≤ j ≤ rows`, `0 ≤ i < cols`).
    #[inline(always)]
    fn at(&self, i: i64, j: i64) -> usize {
        (self.origin + i * self.di + j * self.dj) as usize
    }
}

impl<'a> Candidates<'a> {
    #[cfg(test)]
    pub(super) fn new(map: &'a TerrainMap, from: Cell) -> Self {
        Self::with(map, from, Buffers::default())
    }

    /// Whether some cast marked the cell `c` (on the map).
    #[cfg(test)]
    pub(super) fn is_marked(&self, c: Cell) -> bool {
        self.flags[self.index(c.x as i64, c.y as i64)] & MARKED != 0
    }

    /// Whether the cell `c` (on the map) is proved in sight.
    #[cfg(test)]
    pub(super) fn is_sure(&self, c: Cell) -> bool {
        self.flags[self.index(c.x as i64, c.y as i64)] & SURE != 0
    }

    /// The padded index of map cell `(x, y)`.
    #[inline(always)]
    fn index(&self, x: i64, y: i64) -> usize {
        ((y + 1) * self.pw + x + 1) as usize
    }

    fn with(map: &'a TerrainMap, from: Cell, b: Buffers) -> Self {
        let grid = map.grid();
        let sight = map.sight_map().as_slice();
        let (w, h) = (grid.width as i64, grid.height as i64);
        let n = ((w + 2) * (h + 2)) as usize;
        let mut flags = b.flags;
        flags.clear();
        flags.resize(n, 0);
        let mut pending = b.pending;
        pending.clear();
        Self {
            sight,
            cells: b.cells,
            w,
            h,
            pw: w + 2,
            from: (from.x as i64, from.y as i64),
            // Looked at by `run` (only the casts need it).
            slits: false,
            flags,
            pending,
            light: b.light,
            clear: b.clear,
            next: b.next,
            shadows: b.shadows,
            clear_shadows: b.clear_shadows,
            points: b.points,
        }
    }

    fn into_buffers(self) -> Buffers {
        Buffers {
            cells: self.cells,
            flags: self.flags,
            pending: self.pending,
            light: self.light,
            clear: self.clear,
            next: self.next,
            shadows: self.shadows,
            clear_shadows: self.clear_shadows,
            points: self.points,
        }
    }

    /// Step 1: marks sure (and marked) every cell whose rectangle with the viewer holds no
    /// solid cell but those two, and tells whether any cell is left. In each quadrant, with
    /// `a` and `b` the steps from the viewer's column and row, those cells are, row by row,
    /// `0 ≤ a ≤ X(b)`: the rectangle up to `(a, b)` less its corner `(a, b)` is the rows
    /// before `b` up to `a` and row `b` up to `a − 1`. So `X(b) = min(P(b), R(b) + 1)`, where
    /// `R(b)` is the last step of row `b`'s clear run from the viewer's column and `P(b)` the
    /// least `R` of the rows before. `P` never grows, so a row is read only up to `P(b)`: the
    /// cost is the cells settled, not the map.
    pub(super) fn open_rectangles(&mut self) -> bool {
        let (w, hh) = (self.w, self.h);
        let (fx, fy) = self.from;
        let mut doubt = false;
        for (sx, sy) in [(1i64, 1i64), (1, -1), (-1, 1), (-1, -1)] {
            let amax = if sx > 0 { w - 1 - fx } else { fx };
            let bmax = if sy > 0 { hh - 1 - fy } else { fy };
            // P(b): the least clear run of the rows so far (`amax` before any).
            let mut p = amax;
            for b in 0..=bmax {
                if p < 0 {
                    doubt = true;
                    break;
                }
                let y = fy + sy * b;
                let row = (y * w) as usize;
                // R(b), read up to p: the last a whose cells 0..=a of the row are clear.
                let mut r = -1;
                while r < p {
                    let x = fx + sx * (r + 1);
                    let c = self.sight[row + x as usize];
                    if c != Sight::Clear && (x, y) != self.from {
                        break;
                    }
                    r += 1;
                }
                let x_end = p.min(r + 1);
                if x_end < amax {
                    doubt = true;
                }
                let (x0, x1) = if sx > 0 {
                    (fx, fx + x_end)
                } else {
                    (fx - x_end, fx)
                };
                let cells = self.index(x0, y)..=self.index(x1, y);
                self.flags[cells].fill(MARKED | SURE);
                p = p.min(r);
            }
        }
        doubt
    }

    /// Runs the shadowcasts from the centre and the four corners.
    pub(super) fn run(&mut self) {
        let (w, pw) = (self.w as usize, self.pw as usize);
        self.cells.clear();
        self.cells.resize(self.flags.len(), Sight::Opaque);
        for (y, row) in self.sight.chunks_exact(w).enumerate() {
            let start = (y + 1) * pw + 1;
            self.cells[start..start + w].copy_from_slice(row);
        }
        let fi = self.index(self.from.0, self.from.1);
        self.cells[fi] = Sight::Clear;
        // A fold with no early exit, which the compiler vectorises (`contains` went cell by
        // cell, about 5 instructions each, a tenth of a walled field's cost).
        self.slits = self
            .sight
            .iter()
            .fold(false, |any, &s| any | (s == Sight::Slit));
        let (fx, fy) = self.from;
        debug_assert_eq!(SCALE % 2, 0, "sample points are on half cells");
        let quadrants = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        // From the centre first: it proves most cells sure, which the corners then skip.
        for (sx, sy) in quadrants {
            // Column 0 is the viewer's own column, on both sides.
            self.octants(1, (fx, fy), (sx, sy));
        }
        for (sx, sy) in quadrants {
            // From each corner: the corner at (fx + cx, fy + cy), in cell units.
            for (cx, cy) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
                // The first column on the `sx` side of the corner line x = fx + cx.
                let bx = if sx > 0 { fx + cx } else { fx + cx - 1 };
                let by = if sy > 0 { fy + cy } else { fy + cy - 1 };
                self.octants(0, (bx, by), (sx, sy));
            }
        }
    }

    /// Both octants of one quadrant: cell `(x, y)` of local column `i`, row `j` is
    /// `(bx + sx·i, by + sy·j)` (shallow) or `(bx + sx·j, by + sy·i)` (steep).
    fn octants(&mut self, h: i64, (bx, by): (i64, i64), (sx, sy): (i64, i64)) {
        let (w, hh, pw) = (self.w, self.h, self.pw);
        // How many columns and rows lie on the map in each local direction.
        let span = |b: i64, s: i64, n: i64| if s > 0 { n - b } else { b + 1 };
        for steep in [false, true] {
            let (cols, rows) = if steep {
                (span(by, sy, hh), span(bx, sx, w))
            } else {
                (span(bx, sx, w), span(by, sy, hh))
            };
            if cols <= 0 || rows <= 0 {
                continue;
            }
            let (di, dj) = if steep { (sy * pw, sx) } else { (sx, sy * pw) };
            let o = Octant {
                h,
                origin: (by + 1) * pw + bx + 1,
                di,
                dj,
                cols,
                rows,
            };
            // The loop made twice: without slits it keeps one light and is leaner.
            if self.slits {
                self.octant::<true>(o);
            } else {
                self.octant::<false>(o);
            }
        }
    }

    /// Whether the cell at padded index `at` is solid for a segment: Opaque or Slit, or off
    /// the map, and not the viewer's (an end cell, Clear in the padded layer).
    #[inline(always)]
    fn solid(&self, at: usize) -> bool {
        self.cells[at] != Sight::Clear
    }

    fn octant<const SLITS: bool>(&mut self, o: Octant) {
        let (h, cols, rows) = (o.h, o.cols, o.rows);
        let whole = (Bound::at(Slope::ZERO), Bound::at(Slope::ONE));
        self.light.clear();
        self.light.push(whole);
        self.clear.clear();
        self.clear.push(whole);
        for i in 0..cols {
            if self.light.is_empty() {
                return;
            }
            let u0 = (2 * i - h).max(0);
            let u1 = 2 * i - h + 2;
            self.shadows.clear();
            self.clear_shadows.clear();
            self.points.clear();
            let u = 2 * i - h;
            let column = o.origin + i * o.di;
            let mut last = -1i64;
            let mut cut = self.light.len();
            for k in 0..self.light.len() {
                let (a, b) = (self.light[k].0.s.wide(), self.light[k].1.s.wide());
                // Rows whose slope interval [max(v0,0)/u1, v1/u0] meets [a, b], with
                // v0 = 2j − h, v1 = 2j − h + 2.
                // (Every term is at least 0 but `h − 2`, so `/` is the floor.)
                let lo = if u0 == 0 {
                    0
                } else {
                    // v1 ≥ a·u0  ⇔  2j ≥ a·u0 + h − 2.
                    let num = a.0 * u0 + (h - 2) * a.1;
                    if num <= 0 {
                        0
                    } else {
                        (num + 2 * a.1 - 1) / (2 * a.1)
                    }
                };
                if lo >= rows {
                    // No row of this column or any further one reaches slope `a`: this
                    // interval and the ones above it never meet the map again.
                    cut = k;
                    break;
                }
                // v0 ≤ b·u1  ⇔  2j ≤ b·u1 + h (row 0 always qualifies).
                let hi = ((b.0 * u1 + h * b.1) / (2 * b.1)).min(rows - 1);
                for j in lo.max(last + 1)..=hi {
                    let at = column + j * o.dj;
                    let idx = at as usize;
                    let f = self.flags[idx];
                    if f & SURE == 0 {
                        if SLITS {
                            let mut f = f;
                            if f & MARKED == 0 && self.sample_lit(k, i, j, h) {
                                f = MARKED;
                                self.pending.push(idx);
                            }
                            if f & MARKED != 0 && self.judge(&o, i, j, &self.clear) == Judged::Sure
                            {
                                f = MARKED | SURE;
                            }
                            self.flags[idx] = f;
                        } else {
                            // One light: a sample lit in it is marked, and maybe sure.
                            match self.judge(&o, i, j, &self.light[k..]) {
                                Judged::Dark => {}
                                Judged::Lit => {
                                    if f & MARKED == 0 {
                                        self.flags[idx] = MARKED;
                                        self.pending.push(idx);
                                    }
                                }
                                Judged::Sure => self.flags[idx] = MARKED | SURE,
                            }
                        }
                    }
                    let s = self.cells[idx];
                    if s != Sight::Clear && !SLITS {
                        // Opaque: its open shadow, closed at the top if a pinch at its upper
                        // near corner blocks that slope too. The pinch at its lower near
                        // corner needs nothing: its slope `v0/u` lies inside the shadow, or
                        // is 0 and then `axis_point` finds it.
                        let v0 = 2 * j - h;
                        let v1 = v0 + 2;
                        let (lo_s, hi_s) = (Slope::new(v0, u1), Slope::new(v1, u0));
                        let pinch = u > 0 && v1 <= u && self.solid(o.at(i - 1, j + 1));
                        let r = if pinch {
                            Bound::above(hi_s)
                        } else {
                            Bound::at(hi_s)
                        };
                        push_shade(&mut self.shadows, (Bound::at(lo_s), r));
                    } else if s != Sight::Clear {
                        let v0 = 2 * j - h;
                        let v1 = v0 + 2;
                        let (lo_s, hi_s) = (Slope::new(v0, u1), Slope::new(v1, u0));
                        // Shadows come in rising order; overlapping ones merge.
                        let open = (Bound::at(lo_s), Bound::at(hi_s));
                        if s == Sight::Opaque {
                            push_shade(&mut self.shadows, open);
                        }
                        if SLITS {
                            push_shade(&mut self.clear_shadows, open);
                        }
                        // Pinches at this cell's near corners, with the cell diagonally
                        // behind it (rule 4; see the module docs).
                        if u > 0 {
                            if v0 >= 0 && self.solid(o.at(i - 1, j - 1)) {
                                push_point(&mut self.points, Slope::new(v0, u));
                            }
                            if v1 <= u && self.solid(o.at(i - 1, j + 1)) {
                                push_point(&mut self.points, Slope::new(v1, u));
                            }
                        }
                    }
                }
                last = last.max(hi);
            }
            self.light.truncate(cut);
            if !SLITS {
                // One subtraction: the pinches are in the shadows already, the axis goes
                // first.
                let mut shadows = std::mem::take(&mut self.shadows);
                self.axis_point(&o, i, &mut shadows);
                if !shadows.is_empty() {
                    subtract(&self.light, &shadows, &mut self.next);
                    std::mem::swap(&mut self.light, &mut self.next);
                }
                self.shadows = shadows;
                continue;
            }
            if !self.shadows.is_empty() {
                subtract(&self.light, &self.shadows, &mut self.next);
                std::mem::swap(&mut self.light, &mut self.next);
            }
            let mut points = std::mem::take(&mut self.points);
            self.axis_point(&o, i, &mut points);
            let mut light = std::mem::take(&mut self.light);
            self.block_points(&points, &mut light);
            self.light = light;
            if SLITS {
                if !self.clear_shadows.is_empty() {
                    subtract(&self.clear, &self.clear_shadows, &mut self.next);
                    std::mem::swap(&mut self.clear, &mut self.next);
                }
                let mut clear = std::mem::take(&mut self.clear);
                self.block_points(&points, &mut clear);
                self.clear = clear;
            }
            self.points = points;
        }
    }

    /// The single slopes that rules 3 and 4 block for every cell past column `i`, into
    /// `points` (rising; the pinches of the column's solid cells are there already, see
    /// [`Candidates::octant`], as single slopes or, without slits, in the shadows): from a
    /// corner, the axis if it runs along a seam beside the column or through a pinch at the
    /// column's near edge (either diagonal pair).
    #[inline(always)]
    fn axis_point(&self, o: &Octant, i: i64, points: &mut Vec<Shade>) {
        if o.h != 0 {
            return;
        }
        let c = |ii, jj| self.solid(o.at(ii, jj));
        let seam = c(i, 0) && c(i, -1);
        let pinch = i > 0 && ((c(i - 1, -1) && c(i, 0)) || (c(i, -1) && c(i - 1, 0)));
        let zero = (Bound::below(Slope::ZERO), Bound::above(Slope::ZERO));
        // Unless the first shadow takes out slope 0 already.
        let z = Bound::at(Slope::ZERO);
        if (seam || pinch) && points.first().is_none_or(|p| !(p.0.lt(z) && z.lt(p.1))) {
            points.insert(0, zero);
        }
    }

    /// `light` less the single slopes `points` (rising).
    fn block_points(&mut self, points: &[Shade], light: &mut Vec<Lit>) {
        if !points.is_empty() {
            subtract(light, points, &mut self.next);
            std::mem::swap(light, &mut self.next);
        }
    }

    /// Whether a sample point of the cell at column `i`, row `j` (its centre or a corner) lies
    /// on a lit slope of this octant, looking from light interval `k` on (the earlier ones
    /// end below the cell). The sample at the source itself counts as lit.
    fn sample_lit(&self, k: usize, i: i64, j: i64, h: i64) -> bool {
        sample_points(i, j, h).iter().any(|&(u, v)| {
            if u == 0 && v == 0 {
                return true;
            }
            if u <= 0 || v < 0 || v > u {
                return false;
            }
            let s = Slope::new(v, u);
            for iv in &self.light[k..] {
                if Bound::at(s).lt(iv.0) {
                    return false;
                }
                if lit(iv, s) {
                    return true;
                }
            }
            false
        })
    }

    /// Whether the source joins a sample of the cell `b` at column `i`, row `j` by a clear
    /// segment that this octant can prove so ([`Judged::Sure`]): its slope is in the light
    /// `clear` (the segment is clear over columns `0..i`) and its last stretch, from the near
    /// edge of column `i` to the sample, crosses no solid cell of that column but `b` and
    /// enters it through no pinch. Else whether some sample is in that light ([`Judged::Lit`]).
    /// `clear` may start at the first interval that reaches the cell.
    fn judge(&self, o: &Octant, i: i64, j: i64, clear: &[Lit]) -> Judged {
        let h = o.h;
        let us = (2 * i - h).max(0);
        // Whether the cell at column `ii`, row `jj` is solid for a segment to b (column i,
        // row j), an end cell and so clear.
        let solid = |ii: i64, jj: i64| (ii != i || jj != j) && self.solid(o.at(ii, jj));
        let mut verdict = Judged::Dark;
        for (u, v) in sample_points(i, j, h) {
            if u == 0 && v == 0 {
                // The cells share a corner.
                return Judged::Sure;
            }
            if u <= 0 || v < 0 || v > u {
                continue;
            }
            let x = Slope::new(v, u);
            let at = Bound::at(x);
            let mut lit = false;
            for iv in clear {
                if at.lt(iv.0) {
                    break;
                }
                if at.le(iv.1) {
                    lit = true;
                    break;
                }
            }
            if !lit {
                continue;
            }
            verdict = Judged::Lit;
            if u == us {
                // A sample on the column's near edge: the segment does not enter it.
                return Judged::Sure;
            }
            // Entering column i at (us, v·us/u): through a vertex, no pinch (b is an end
            // cell, so clear). With u − us = δ (1 or 2, as us = u0 > 0 here) and 0 ≤ v ≤ u,
            // v·us/u = v − v·δ/u is whole exactly when v·δ is 0, u or 2u.
            if us > 0 {
                let vd = v * (u - us);
                let m = if vd == 0 {
                    Some(0)
                } else if vd == u {
                    Some(1)
                } else if vd == 2 * u {
                    Some(2)
                } else {
                    None
                };
                if let Some(m) = m
                    && (v - m + h) % 2 == 0
                {
                    let jv = (v - m + h) / 2;
                    if (solid(i - 1, jv - 1) && solid(i, jv))
                        || (solid(i, jv - 1) && solid(i - 1, jv))
                    {
                        continue;
                    }
                }
            }
            // Then up to v inside the column: rows below b whose open band (2j' − h,
            // 2j' − h + 2) meets the open range (v·us/u, v) must be clear.
            if ((j - 2).max(0)..j)
                .all(|jj| 2 * jj - h >= v || (2 * jj - h + 2) * u <= v * us || !solid(i, jj))
            {
                return Judged::Sure;
            }
        }
        verdict
    }
}

/// What one octant makes of a cell's samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Judged {
    /// No sample is lit.
    Dark,
    /// Some sample is lit: the cell may be in sight.
    Lit,
    /// Some sample is joined to the source by a segment proved clear: the cell is in sight.
    Sure,
}

/// The sample points of the cell at column `i`, row `j`, in local half-cell units: its centre,
/// then its corners.
#[inline(always)]
fn sample_points(i: i64, j: i64, h: i64) -> [(i64, i64); 5] {
    let (u0, v0) = (2 * i - h, 2 * j - h);
    [
        (u0 + 1, v0 + 1),
        (u0, v0),
        (u0 + 2, v0),
        (u0, v0 + 2),
        (u0 + 2, v0 + 2),
    ]
}
