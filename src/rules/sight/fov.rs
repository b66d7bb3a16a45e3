//! The field of view of a cell on a flat square map, fast and still exact.
//!
//! [`super::field_of_view`] must agree with [`super::line_of_sight`] for every cell. Asking that
//! rule for every cell of the map is exact but slow: a cell out of sight costs every
//! sample-to-sample ray to refute. Here the exact rule is asked only where it can say yes, in
//! three steps:
//!
//! 1. **Open rectangles.** If no cell of the rectangle spanned by the viewer's cell and the
//!    target's is solid (Opaque or Slit), apart from those two end cells, the centre-to-centre
//!    segment is clear, so the target is seen. A table of prefix sums of solid cells answers
//!    this in O(1) per cell. Why it is exact: the segment between two cell centres lies in that
//!    rectangle, so every cell whose interior it crosses is in it (rules 1–2); it never runs
//!    along a grid line, since its ends are at cell centres (rule 3); and a grid vertex strictly
//!    between its ends has its four cells in the rectangle too (rule 4).
//! 2. **A permissive shadowcast** ([`Candidates`]) marks a *superset* of the cells in sight:
//!    every cell one of whose samples (centre or corners) some sample of the viewer reaches with
//!    a segment crossing the open interior of no Opaque cell of an earlier column (see below).
//!    Five point-source shadowcasts, one from each sample point, each over eight octants.
//! 3. **The exact rule** ([`super::line_of_sight`]) on the marked cells that step 1 did not settle.
//!
//! # Why step 2 never drops a cell in sight
//! A cell `b` in sight has a clear segment from a sample `p` of the viewer to a sample `q` of
//! `b`. Clear means, among others, that it crosses the open interior of no Opaque cell except
//! the end cells (rule 1). The shadowcast from `p` works in the octant holding the direction
//! `q − p`, in local units of half a cell with `p` at the origin, the octant's main axis `u` and
//! its other axis `v` (`0 ≤ v ≤ u` along the segment). Cells are numbered by column `i` along
//! `u` and row `j` along `v`; column `i` spans `u ∈ [2i − h, 2i − h + 2]` (`h` = 1 from a
//! centre, 0 from a corner), clipped at `u ≥ 0`, and rows likewise.
//!
//! - The slopes `v/u` of the points of a cell, inside the octant, make the closed interval
//!   `[max(v0, 0)/u1, v1/max(u0, 0)]` (its lowest-right and highest-left corners).
//! - The ray of slope `s` crosses the open interior of cell `(u0, u1) × (v0, v1)` of an
//!   earlier column (`u1 ≤` the target's `u0`, so the segment spans that column entirely)
//!   exactly when `s·u1 > v0` and `s·max(u0, 0) < v1`: the open slope interval
//!   `(v0/u1, v1/max(u0, 0))`, the cell's *shadow*.
//! - The *light* is the octant's slopes `[0, 1]` minus the shadows of every Opaque cell (not
//!   the viewer's) of the earlier columns, a union of closed intervals. The cells of a column
//!   whose slope interval meets the light are visited; one is marked when the slope of one of
//!   its samples in the octant is lit (a sample on the source itself counts as lit).
//!
//! The segment's slope `s` is the slope of `q`, so it lies in `b`'s slope interval (`b` is
//! visited) and in no earlier column's shadow (the segment crosses no Opaque interior), so `b`
//! is marked. Cells of `b`'s own column
//! are not subtracted before `b` is looked at (a loose bound: fewer cells dropped, never a
//! wrong one), and a cell that is not visited casts no shadow on the light (its shadow lies in
//! its slope interval, where there is no light); every visited Opaque cell casts its shadow,
//! marked or not. Slits, seams and pinches are ignored: they
//! only block more. Segments between two points of the map stay inside the map's rectangle, so
//! nothing off the map can block them and the scan stops at the map's edges.

use super::{SCALE, Sight, TerrainMap, line_of_sight};
use crate::rules::grid::{Cell, CellMap};

/// The field of view of `from` (on the map) over a flat square map.
pub(super) fn square_field(map: &TerrainMap, from: Cell) -> CellMap<bool> {
    let grid = map.grid();
    let (w, h) = (grid.width as usize, grid.height as usize);
    let sight = map.sight_map().as_slice();
    let solid = |i: usize| u32::from(sight.get(i).is_some_and(|&s| s != Sight::Clear));
    // prefix[(y) * (w + 1) + x]: solid cells in columns < x of rows < y.
    let stride = w + 1;
    let mut prefix = vec![0u32; stride * (h + 1)];
    for y in 0..h {
        let mut row = 0;
        for x in 0..w {
            row += solid(y * w + x);
            prefix[(y + 1) * stride + x + 1] = prefix[y * stride + x + 1] + row;
        }
    }
    let (fx, fy) = (from.x as usize, from.y as usize);
    let from_solid = solid(fy * w + fx);
    let mut seen = vec![false; w * h];
    seen[fy * w + fx] = true;
    // Step 1: open rectangles. The others wait for the exact rule.
    let mut doubt = Vec::new();
    for y in 0..h {
        let (y0, y1) = (y.min(fy), y.max(fy) + 1);
        for x in 0..w {
            let i = y * w + x;
            if i == fy * w + fx {
                continue;
            }
            let (x0, x1) = (x.min(fx), x.max(fx) + 1);
            let inside = prefix[y1 * stride + x1] + prefix[y0 * stride + x0]
                - prefix[y0 * stride + x1]
                - prefix[y1 * stride + x0];
            if inside == from_solid + solid(i) {
                seen[i] = true;
            } else {
                doubt.push(i);
            }
        }
    }
    if !doubt.is_empty() {
        // Steps 2 and 3.
        let mut marks = Candidates::new(map, from);
        marks.run();
        for i in doubt {
            if marks.marked[i] && line_of_sight(map, from, grid.cell_at(i)) {
                seen[i] = true;
            }
        }
    }
    let mut out = CellMap::new(grid, false);
    out.as_mut_slice().copy_from_slice(&seen);
    out
}

/// A non-negative slope `n/d` (`d > 0`), or `+∞` as `1/0`; compared by cross-multiplication.
#[derive(Clone, Copy, Debug)]
struct Slope {
    n: i64,
    d: i64,
}

impl Slope {
    const INF: Slope = Slope { n: 1, d: 0 };

    fn new(n: i64, d: i64) -> Self {
        if d == 0 { Self::INF } else { Self { n, d } }
    }

    #[inline(always)]
    fn le(self, o: Slope) -> bool {
        self.n * o.d <= o.n * self.d
    }

    #[inline(always)]
    fn lt(self, o: Slope) -> bool {
        self.n * o.d < o.n * self.d
    }
}

/// Step 2: the permissive shadowcasts from the viewer's five sample points.
pub(super) struct Candidates<'a> {
    sight: &'a [Sight],
    w: i64,
    h: i64,
    from: (i64, i64),
    /// One flag per cell, row by row: marked by some shadowcast.
    pub(super) marked: Vec<bool>,
    light: Vec<(Slope, Slope)>,
    next: Vec<(Slope, Slope)>,
    shadows: Vec<(Slope, Slope)>,
}

impl<'a> Candidates<'a> {
    pub(super) fn new(map: &'a TerrainMap, from: Cell) -> Self {
        let grid = map.grid();
        Self {
            sight: map.sight_map().as_slice(),
            w: grid.width as i64,
            h: grid.height as i64,
            from: (from.x as i64, from.y as i64),
            marked: vec![false; grid.len()],
            light: Vec::new(),
            next: Vec::new(),
            shadows: Vec::new(),
        }
    }

    /// Runs the shadowcasts from the centre and the four corners.
    pub(super) fn run(&mut self) {
        let (fx, fy) = self.from;
        debug_assert_eq!(SCALE % 2, 0, "sample points are on half cells");
        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            // From the centre: column 0 is the viewer's own column, on both sides.
            self.octants(1, (fx, fy), (sx, sy));
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
    fn octants(&mut self, h: i64, base: (i64, i64), signs: (i64, i64)) {
        self.octant(h, base, signs, false);
        self.octant(h, base, signs, true);
    }

    fn octant(&mut self, h: i64, (bx, by): (i64, i64), (sx, sy): (i64, i64), steep: bool) {
        let (w, hh) = (self.w, self.h);
        // How many columns and rows lie on the map in each local direction.
        let span = |b: i64, s: i64, n: i64| if s > 0 { n - b } else { b + 1 };
        let (cols, rows) = if steep {
            (span(by, sy, hh), span(bx, sx, w))
        } else {
            (span(bx, sx, w), span(by, sy, hh))
        };
        if cols <= 0 || rows <= 0 {
            return;
        }
        self.light.clear();
        self.light.push((Slope::new(0, 1), Slope::new(1, 1)));
        for i in 0..cols {
            if self.light.is_empty() {
                return;
            }
            let u0 = (2 * i - h).max(0);
            let u1 = 2 * i - h + 2;
            self.shadows.clear();
            let mut last = -1i64;
            for k in 0..self.light.len() {
                let (a, b) = self.light[k];
                // Rows whose slope interval [max(v0,0)/u1, v1/u0] meets [a, b], with
                // v0 = 2j − h, v1 = 2j − h + 2.
                let lo = if u0 == 0 {
                    0
                } else {
                    // v1 ≥ a·u0  ⇔  2j ≥ a·u0 + h − 2.
                    let num = a.n * u0 + (h - 2) * a.d;
                    div_ceil(num, 2 * a.d).max(0)
                };
                // v0 ≤ b·u1  ⇔  2j ≤ b·u1 + h (row 0 always qualifies).
                let hi = (b.n * u1 + h * b.d).div_euclid(2 * b.d).min(rows - 1);
                for j in lo.max(last + 1)..=hi {
                    let (x, y) = if steep {
                        (bx + sx * j, by + sy * i)
                    } else {
                        (bx + sx * i, by + sy * j)
                    };
                    let idx = (y * w + x) as usize;
                    if self.marked.get(idx) == Some(&false) && self.sample_lit(k, i, j, h) {
                        self.marked[idx] = true;
                    }
                    let opaque = self.sight.get(idx) == Some(&Sight::Opaque);
                    if opaque && (x, y) != self.from {
                        let v0 = 2 * j - h;
                        let v1 = v0 + 2;
                        let shadow = (Slope::new(v0, u1), Slope::new(v1, u0));
                        // Shadows come in rising order; merge those that overlap.
                        match self.shadows.last_mut() {
                            Some(prev) if shadow.0.lt(prev.1) => {
                                if prev.1.lt(shadow.1) {
                                    prev.1 = shadow.1;
                                }
                            }
                            _ => self.shadows.push(shadow),
                        }
                    }
                }
                last = last.max(hi);
            }
            if !self.shadows.is_empty() {
                self.subtract();
            }
        }
    }

    /// Whether a sample point of the cell at column `i`, row `j` (its centre or a corner) lies
    /// on a lit slope of this octant, looking from light interval `k` on (the earlier ones
    /// end below the cell). The sample at the source itself counts as lit.
    fn sample_lit(&self, k: usize, i: i64, j: i64, h: i64) -> bool {
        let (u0, v0) = (2 * i - h, 2 * j - h);
        let points = [
            (u0 + 1, v0 + 1),
            (u0, v0),
            (u0 + 2, v0),
            (u0, v0 + 2),
            (u0 + 2, v0 + 2),
        ];
        points.iter().any(|&(u, v)| {
            if u == 0 && v == 0 {
                return true;
            }
            if u <= 0 || v < 0 || v > u {
                return false;
            }
            let s = Slope::new(v, u);
            for &(a, b) in &self.light[k..] {
                if s.lt(a) {
                    return false;
                }
                if s.le(b) {
                    return true;
                }
            }
            false
        })
    }

    /// Light minus the (open, rising, disjoint) shadows of this column.
    fn subtract(&mut self) {
        self.next.clear();
        let mut s = 0;
        for &(a0, b) in &self.light {
            let mut a = a0;
            let mut alive = true;
            // Skip shadows wholly below this interval.
            while s < self.shadows.len() && self.shadows[s].1.le(a) {
                s += 1;
            }
            let mut t = s;
            while alive && t < self.shadows.len() {
                let (lo, hi) = self.shadows[t];
                if b.le(lo) {
                    break;
                }
                // The shadow (lo, hi) meets [a, b].
                if a.le(lo) {
                    self.next.push((a, lo));
                }
                if b.lt(hi) {
                    alive = false;
                } else {
                    a = if a.lt(hi) { hi } else { a };
                    t += 1;
                }
            }
            if alive {
                self.next.push((a, b));
            }
        }
        std::mem::swap(&mut self.light, &mut self.next);
    }
}

fn div_ceil(n: i64, d: i64) -> i64 {
    -((-n).div_euclid(d))
}
