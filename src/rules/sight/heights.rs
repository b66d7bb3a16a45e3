//! Line of sight and cover over heights: the rules of the parent module, in three dimensions.
//!
//! A map with a `heights` layer ([`TerrainMap::with_heights`]) gives each cell's ground a
//! height in *levels*; a level is as high as a cell is wide. Heights are counted here in
//! half-levels (`Z`), so every sample point is on an integer:
//!
//! - A unit on ground `h` fills the box (square) or prism (hex) from `Z = 2h` (its feet) to
//!   `Z = 2h + 2` (its head), the cube of the `sides` text (S-06, S-07). Its **sample points**
//!   are its centre at `Z = 2h + 1` and each of its plane corners at the feet and at the head:
//!   9 on squares, 13 on hexes. They project onto the plane's samples (centre and corners), so
//!   on a flat map the rules below give exactly the plane answer.
//! - **Walls** (opaque and slit cells, the map's edge) are as tall as the sky: a segment's
//!   plane projection is judged by the plane rules of the parent module, end cells clear.
//! - **Ground** is solid below its height: the ground of cell `c` fills the open interior of
//!   `c` below `Z = 2h(c)`. A segment is *under ground*, and blocked, if
//!   1. some point of it lies in the open interior of a cell, lower than that cell's ground
//!      (end cells included: no one sees through the floor they stand on);
//!   2. its projection runs, over a positive length, along the edge between two cells and
//!      somewhere there it is lower than both sides (a wall side counts as infinitely high):
//!      the seam inside a mass of ground, as rule 3 of the plane;
//!   3. squares: its projection passes through a grid vertex strictly between its ends, at a
//!      height below both cells of a diagonal pair there (the pinch, rule 4 of the plane);
//!   4. its projection is a single point (a vertical segment, from one unit's feet to a
//!      neighbour's head over a shared corner): judged by rules 1–3 at its lowest end, where
//!      a square vertex is pinched by a diagonal pair and a hex corner by two of its three hexes.
//!
//!   Ground exactly level with a segment only grazes it. Every rule is a property of the set of
//!   points, so sight stays symmetric.
//! - **Line of sight**: some 3-D sample of one cell is joined to some 3-D sample of the other by
//!   a segment clear of walls and ground. **Cover**: the defender's corners are its 8 (square)
//!   or 12 (hex) 3-D corners; all seen is no cover, some half, none (but in sight) full.
//!
//! Flat maps never come here: [`super::line_of_sight`] and [`super::cover`] keep the plane
//! code, and its speed, for them.

use super::{Ctx, HEX_OFFSETS, Point, S, SQUARE_OFFSETS, Walk, centre};
use crate::rules::grid::Cell;
use crate::rules::map::TerrainMap;
use crate::rules::sight::Cover;

/// Heights of walls, in half-levels: above any ground.
const SKY: i64 = i64::MAX / 4;

/// A sample point: its projection, its height in half-levels, and the index of its
/// projection among the cell's plane samples (0 the centre, then the corners).
#[derive(Clone, Copy, Debug)]
struct Sample {
    p: Point,
    z: i64,
    plane: usize,
}

/// A cell's 3-D samples: the centre at mid-height, then each corner at the feet, then each
/// corner at the head.
fn samples3(map: &TerrainMap, c: Cell) -> Vec<Sample> {
    let grid = map.grid();
    let ctr = centre(grid, c);
    let offsets: &[(i32, i32)] = if grid.topology.is_hex() {
        &HEX_OFFSETS
    } else {
        &SQUARE_OFFSETS
    };
    let feet = 2 * i64::from(map.height(c));
    let mut out = vec![Sample {
        p: ctr,
        z: feet + 1,
        plane: 0,
    }];
    for z in [feet, feet + 2] {
        for (k, (u, v)) in offsets.iter().enumerate().skip(1) {
            out.push(Sample {
                p: Point::new(ctr.x + u, ctr.y + v),
                z,
                plane: k,
            });
        }
    }
    out
}

/// One query between two cells over heights.
struct Query<'a> {
    map: &'a TerrainMap,
    ctx: Ctx<'a>,
    src: Vec<Sample>,
    dst: Vec<Sample>,
    /// The plane verdict (walls only) of each pair of plane samples, once walked.
    walls: Vec<Option<bool>>,
    planes: usize,
    /// The raised cells a segment between the two cells can cross: centre and top (in
    /// half-levels), from the rectangle of offset cells between them, grown by one.
    raised: Vec<(i64, i64, i64)>,
    /// The raised cell that last blocked a segment: tried first, as the rays of one query
    /// are mostly stopped by the same rise.
    last: std::cell::Cell<usize>,
}

impl<'a> Query<'a> {
    fn new(map: &'a TerrainMap, a: Cell, b: Cell) -> Self {
        let grid = map.grid();
        let planes = if grid.topology.is_hex() { 7 } else { 5 };
        // Every point of a segment between the two cells' samples lies in a cell of this
        // rectangle: on squares the segment stays in the cells' bounding box; on hexes the
        // offset layout shifts a row by at most one column either way.
        let mut raised = Vec::new();
        for y in (a.y.min(b.y) - 1).max(0)..=(a.y.max(b.y) + 1).min(grid.height as i32 - 1) {
            for x in (a.x.min(b.x) - 1).max(0)..=(a.x.max(b.x) + 1).min(grid.width as i32 - 1) {
                let c = Cell::new(x, y);
                let h = map.height(c);
                if h > 0 {
                    let ctr = centre(grid, c);
                    raised.push((i64::from(ctr.x), i64::from(ctr.y), 2 * i64::from(h)));
                }
            }
        }
        Self {
            map,
            ctx: Ctx::new(map, (a, b)),
            src: samples3(map, a),
            dst: samples3(map, b),
            walls: vec![None; planes * planes],
            planes,
            raised,
            last: std::cell::Cell::new(0),
        }
    }

    fn clear(&mut self, s: Sample, d: Sample) -> bool {
        let k = s.plane * self.planes + d.plane;
        let walls = match self.walls[k] {
            Some(v) => v,
            None => {
                let v = self.ctx.walk(s.p, d.p) == Walk::Clear;
                self.walls[k] = Some(v);
                v
            }
        };
        walls && !self.under_ground(s, d)
    }

    /// A cell's height as the ground rules see it: walls (not the end cells) and the map's
    /// edge are as high as the sky.
    fn top(&self, x: i64, y: i64) -> i64 {
        if self.ctx.solid(x, y) {
            SKY
        } else {
            2 * i64::from(self.map.height(Cell::new(x as i32, y as i32)))
        }
    }

    fn top_of_hex(&self, a: i64, b: i64) -> i64 {
        let (x, y) = self.ctx.hex_cell(a, b);
        self.top(x, y)
    }

    /// Rules 1–4 of the module docs for the segment `s`–`d`.
    fn under_ground(&self, s: Sample, d: Sample) -> bool {
        let seg = Seg::new(s, d);
        let zmin = s.z.min(d.z);
        if self.raised.iter().all(|&(_, _, top)| top <= zmin) {
            return false;
        }
        if self.interiors(&seg, zmin) {
            return true;
        }
        if seg.dx == 0 && seg.dy == 0 {
            return self.point(&seg);
        }
        if self.ctx.is_hex() {
            self.along_hex(&seg)
        } else {
            self.along_square(&seg) || self.vertices_square(&seg)
        }
    }

    /// Rule 1: every raised cell's open interior, below its ground.
    fn interiors(&self, seg: &Seg, zmin: i64) -> bool {
        let n = self.raised.len();
        let first = self.last.get().min(n.saturating_sub(1));
        // The last blocker first, then the others in order.
        let order = std::iter::once(first).chain((0..n).filter(|&i| i != first));
        for i in order.take(n) {
            if self.blocks_inside(seg, zmin, self.raised[i]) {
                self.last.set(i);
                return true;
            }
        }
        false
    }

    /// Whether the segment passes under the ground of the raised cell `(cx, cy, top)`.
    fn blocks_inside(&self, seg: &Seg, zmin: i64, (cx, cy, top): (i64, i64, i64)) -> bool {
        if top <= zmin {
            return false;
        }
        let hex = self.ctx.is_hex();
        let half = if hex { S } else { S / 2 };
        let (lo_x, hi_x) = (seg.px.min(seg.px + seg.dx), seg.px.max(seg.px + seg.dx));
        let (lo_y, hi_y) = (seg.py.min(seg.py + seg.dy), seg.py.max(seg.py + seg.dy));
        if hi_x <= cx - half || lo_x >= cx + half || hi_y <= cy - half || lo_y >= cy + half {
            return false;
        }
        let mut t = Interval::unit();
        t.slab(seg.px, seg.dx, cx, half);
        t.slab(seg.py, seg.dy, cy, half);
        if hex {
            t.slab(seg.px - seg.py, seg.dx - seg.dy, cx - cy, half);
        }
        t.below(seg.pz, seg.dz, top);
        t.nonempty()
    }

    /// Rule 2 on squares: a projection along the grid line `x = 6k` or `y = 6k`.
    fn along_square(&self, seg: &Seg) -> bool {
        let vertical = seg.dx == 0 && seg.px.rem_euclid(S) == 0;
        let horizontal = seg.dy == 0 && seg.py.rem_euclid(S) == 0;
        if !vertical && !horizontal {
            return false;
        }
        // `u`: the coordinate along the line; `k`: the line.
        let (k, pu, du) = if vertical {
            (seg.px / S, seg.py, seg.dy)
        } else {
            (seg.py / S, seg.px, seg.dx)
        };
        let side = |across: i64, j: i64| {
            if vertical {
                self.top(across, j)
            } else {
                self.top(j, across)
            }
        };
        let (lo, hi) = (pu.min(pu + du), pu.max(pu + du));
        (lo.div_euclid(S)..=(hi - 1).div_euclid(S)).any(|j| {
            let low = side(k - 1, j).min(side(k, j));
            let (u0, u1) = ((S * j).max(lo), (S * j + S).min(hi));
            seg.below_at(u0 - pu, du, low) || seg.below_at(u1 - pu, du, low)
        })
    }

    /// Rule 3 on squares: the grid vertices strictly inside the projection.
    fn vertices_square(&self, seg: &Seg) -> bool {
        let pinched = |i: i64, j: i64, num: i64, den: i64| {
            let below = |x: i64, y: i64| seg.below_t(num, den, self.top(x, y));
            (below(i - 1, j - 1) && below(i, j)) || (below(i, j - 1) && below(i - 1, j))
        };
        if seg.dx != 0 {
            let (lo, hi) = (seg.px.min(seg.px + seg.dx), seg.px.max(seg.px + seg.dx));
            let first = lo.div_euclid(S) + 1;
            (first..).take_while(|i| S * i < hi).any(|i| {
                // t = (6i − px) / dx; the crossing's y must be on a grid line.
                let (num, den) = signed(S * i - seg.px, seg.dx);
                let y_num = seg.py * den + seg.dy * num;
                y_num.rem_euclid(S * den) == 0 && pinched(i, y_num / (S * den), num, den)
            })
        } else if seg.px.rem_euclid(S) == 0 {
            let (lo, hi) = (seg.py.min(seg.py + seg.dy), seg.py.max(seg.py + seg.dy));
            let first = lo.div_euclid(S) + 1;
            (first..).take_while(|j| S * j < hi).any(|j| {
                let (num, den) = signed(S * j - seg.py, seg.dy);
                pinched(seg.px / S, j, num, den)
            })
        } else {
            false
        }
    }

    /// Rule 2 on hexes: a projection along one of the three lattice line families.
    fn along_hex(&self, seg: &Seg) -> bool {
        use super::Family;
        let (pa, pb) = (seg.px, seg.py);
        let (da, db) = (seg.dx, seg.dy);
        let pc = pa - pb;
        let (family, line, pu, du) = if da == 0 && pa.rem_euclid(S) == 0 {
            (Family::A, pa / S, pb, db)
        } else if db == 0 && pb.rem_euclid(S) == 0 {
            (Family::B, pb / S, pa, da)
        } else if da == db && pc.rem_euclid(S) == 0 {
            (Family::C, pc / S, pa, da)
        } else {
            return false;
        };
        let (lo, hi) = (pu.min(pu + du), pu.max(pu + du));
        (lo.div_euclid(S)..=(hi - 1).div_euclid(S)).any(|n| {
            let (h1, h2) = Ctx::line_sides(family, line, n);
            if h1 == h2 {
                return false; // a spoke: inside one hex, rule 1's
            }
            let low = self.top_of_hex(h1.0, h1.1).min(self.top_of_hex(h2.0, h2.1));
            let (u0, u1) = ((S * n).max(lo), (S * n + S).min(hi));
            seg.below_at(u0 - pu, du, low) || seg.below_at(u1 - pu, du, low)
        })
    }

    /// Rule 4: a projection that is a single point, judged at its lowest end.
    fn point(&self, seg: &Seg) -> bool {
        let z = seg.pz.min(seg.pz + seg.dz);
        let vertical = seg.dz != 0;
        let (x, y) = (seg.px, seg.py);
        if self.ctx.is_hex() {
            let c = x - y;
            let on = (
                x.rem_euclid(S) == 0,
                y.rem_euclid(S) == 0,
                c.rem_euclid(S) == 0,
            );
            let edge = |f, line: i64, n: i64| {
                let (h1, h2) = Ctx::line_sides(f, line, n);
                h1 != h2 && z < self.top_of_hex(h1.0, h1.1).min(self.top_of_hex(h2.0, h2.1))
            };
            use super::Family;
            match on {
                (false, false, false) => false,
                (true, false, false) => edge(Family::A, x / S, y.div_euclid(S)),
                (false, true, false) => edge(Family::B, y / S, x.div_euclid(S)),
                (false, false, true) => edge(Family::C, c / S, x.div_euclid(S)),
                _ => {
                    let (i, j) = (x / S, y / S);
                    let around: [(i64, i64); 3] = match (i + j).rem_euclid(3) {
                        0 => return false, // a hex centre: rule 1's
                        2 => [(i + 1, j), (i, j + 1), (i - 1, j - 1)],
                        _ => [(i - 1, j), (i, j - 1), (i + 1, j + 1)],
                    };
                    vertical
                        && around
                            .iter()
                            .filter(|&&(a, b)| z < self.top_of_hex(a, b))
                            .count()
                            >= 2
                }
            }
        } else {
            match (x.rem_euclid(S) == 0, y.rem_euclid(S) == 0) {
                (false, false) => false,
                (true, false) => {
                    let (k, j) = (x / S, y.div_euclid(S));
                    z < self.top(k - 1, j).min(self.top(k, j))
                }
                (false, true) => {
                    let (i, k) = (x.div_euclid(S), y / S);
                    z < self.top(i, k - 1).min(self.top(i, k))
                }
                (true, true) => {
                    let (i, j) = (x / S, y / S);
                    let below = |x, y| z < self.top(x, y);
                    vertical
                        && ((below(i - 1, j - 1) && below(i, j))
                            || (below(i, j - 1) && below(i - 1, j)))
                }
            }
        }
    }
}

/// `(n, d)` with `d > 0` for the fraction `n / d` (`d != 0`).
fn signed(n: i64, d: i64) -> (i64, i64) {
    if d < 0 { (-n, -d) } else { (n, d) }
}

/// A segment from `(px, py, pz)` by `(dx, dy, dz)`.
struct Seg {
    px: i64,
    py: i64,
    pz: i64,
    dx: i64,
    dy: i64,
    dz: i64,
}

impl Seg {
    fn new(s: Sample, d: Sample) -> Self {
        Self {
            px: i64::from(s.p.x),
            py: i64::from(s.p.y),
            pz: s.z,
            dx: i64::from(d.p.x - s.p.x),
            dy: i64::from(d.p.y - s.p.y),
            dz: d.z - s.z,
        }
    }

    /// Whether the segment at `t = num / den` (`den > 0`) is lower than `top`.
    fn below_t(&self, num: i64, den: i64, top: i64) -> bool {
        top == SKY
            || i128::from(self.pz) * i128::from(den) + i128::from(self.dz) * i128::from(num)
                < i128::from(top) * i128::from(den)
    }

    /// Whether the segment is lower than `top` where its coordinate along a line has moved
    /// `du_at` of its whole `du` (`du != 0`).
    fn below_at(&self, du_at: i64, du: i64, top: i64) -> bool {
        let (num, den) = signed(du_at, du);
        self.below_t(num, den, top)
    }
}

/// An interval of the segment's parameter `t`, each end a fraction with a positive
/// denominator; every bound but `[0, 1]`'s is open.
struct Interval {
    lo: (i64, i64),
    hi: (i64, i64),
    empty: bool,
}

impl Interval {
    fn unit() -> Self {
        Self {
            lo: (0, 1),
            hi: (1, 1),
            empty: false,
        }
    }

    fn raise(&mut self, n: i64, d: i64) {
        if less((self.lo.0, self.lo.1), (n, d)) {
            self.lo = (n, d);
        }
    }

    fn lower(&mut self, n: i64, d: i64) {
        if less((n, d), (self.hi.0, self.hi.1)) {
            self.hi = (n, d);
        }
    }

    /// `c − half < f(t) < c + half` for `f(t) = f0 + t·df`.
    fn slab(&mut self, f0: i64, df: i64, c: i64, half: i64) {
        match df.signum() {
            0 => self.empty |= !(c - half < f0 && f0 < c + half),
            1 => {
                self.raise(c - half - f0, df);
                self.lower(c + half - f0, df);
            }
            _ => {
                self.raise(f0 - c - half, -df);
                self.lower(f0 - c + half, -df);
            }
        }
    }

    /// `z0 + t·dz < top`.
    fn below(&mut self, z0: i64, dz: i64, top: i64) {
        match dz.signum() {
            0 => self.empty |= z0 >= top,
            1 => self.lower(top - z0, dz),
            _ => self.raise(z0 - top, -dz),
        }
    }

    fn nonempty(&self) -> bool {
        !self.empty && less(self.lo, self.hi)
    }
}

/// `a.0 / a.1 < b.0 / b.1` for positive denominators.
fn less(a: (i64, i64), b: (i64, i64)) -> bool {
    i128::from(a.0) * i128::from(b.1) < i128::from(b.0) * i128::from(a.1)
}

/// [`super::sight_line`] over heights (the returned points are the projections).
pub(super) fn sight_line(map: &TerrainMap, a: Cell, b: Cell) -> Option<(Point, Point)> {
    let mut q = Query::new(map, a, b);
    let (src, dst) = (q.src.clone(), q.dst.clone());
    if q.clear(src[0], dst[0]) {
        return Some((src[0].p, dst[0].p));
    }
    for &s in &src {
        for &d in &dst {
            if q.clear(s, d) {
                return Some((s.p, d.p));
            }
        }
    }
    None
}

/// [`super::cover`] over heights: the defender's corners are its 3-D corners.
pub(super) fn cover(map: &TerrainMap, attacker: Cell, defender: Cell) -> Cover {
    let mut q = Query::new(map, attacker, defender);
    let (src, dst) = (q.src.clone(), q.dst.clone());
    super::cover_verdict(dst.len() - 1, |j| src.iter().any(|&s| q.clear(s, dst[j])))
}
