//! The field of view of a cell on a flat hex map: casts that refute most cells out of sight,
//! the open-box test that proves many in sight, and the exact rule for the rest.
//!
//! # Refuting: the line casts ([`HexCasts`])
//! Take the viewer's cell at cube coordinates `f` and a target `c` at hex distance `d ≥ 3`,
//! and a cube coordinate `m` (sign `σ`) with `σ(c_m − f_m) = d` (the target's *sextant*). A
//! point of a hex lies within 2/3 of its centre in each cube coordinate, so every segment from
//! a point of the viewer's cell to one of the target's has `σ(x_m − f_m)` rising strictly from
//! at most 2/3 to at least `d − 2/3`: it crosses each *line* `σ(x_m − f_m) = k`, `1 ≤ k < d`,
//! once, at a point strictly between its ends. The hexes with centres on that line tile it in
//! unit steps, and the boundary between two of them is the midpoint of their shared edge (no
//! hex corner has a whole cube coordinate). So a segment is blocked where it crosses a line at
//! a point inside an Opaque hex (rule 1), or at the boundary of two Opaque hexes (it crosses
//! their shared edge, into both, or runs along it: rules 1 and 3). Cells off the map are
//! Opaque; the line's hexes are never end cells (those are on lines 0 and `d`).
//!
//! From each of the viewer's seven sample points `a`, and in each of the six sextants, a cast
//! keeps the *light*: the directions from `a` (as exact slopes, [`super::fov::Bound`]) that no
//! line crossed so far blocks in that way, within a range that holds every direction from `a`
//! to a sample of a cell of the sextant on that line or past it (and at distance 3 or more),
//! which narrows line by line towards the sextant's own. Line by line, it first
//! *marks* the line's cells of the sextant with a sample in the light, then takes the shadows
//! of the line's Opaque hexes out of the light. A target in sight has a clear segment from some
//! `a` to some sample `b`; no line before the target's blocks it, so its direction is still
//! lit when the target's line comes and the target is marked. So every cell at distance 3 or
//! more that no cast marks is out of sight. The light ignores slits, the hexes' parts off the
//! lines and the lines' hexes touched only at a boundary: it only marks more.
//!
//! Which cells a line visits: with the sextant's local coordinates (six times the cube ones)
//! `u = 6σ(x_m − f_m)` and `v = −6σ(x_n − f_n)`, `n = m + 1 (mod 3)`, the line's cell `j` (with
//! `v = 6j` at its centre) spans `v ∈ [6j − 3, 6j + 3]`, and a direction of slope `t = Δv/Δu`
//! from `a = (ua, va)` crosses line `k` at `v = va + t·(6k − ua)`. The shadows come from the
//! cells whose span meets the lit range; a target's sample `b` of slope `t_b` crosses its own
//! line within 14.4 of the target's centre (`|v_cross − vb| = |vb − va|·|6k − ub| / (ub − ua) ≤
//! 4·(6k + 8)/(6k − 8) ≤ 10.4` for `k ≥ 3`, and `|vb − 6j| ≤ 4`), so marking looks at the
//! sextant's cells (`0 ≤ j ≤ k`) within three cells of the lit range.
//!
//! # Proving
//! What carries over from the square maps' first step ([`super::fov`]), with the viewer's and
//! the target's *cube box* in place of their rectangle (see [`HexBoxes`] for why it is exact).
//! The exact rule decides the cells marked (or within distance 2) that no open box proves.

use super::fov::{Bound, FovScratch, Lit, Shade, Slope, push_shade, subtract};
use super::{Sight, TerrainMap, line_of_sight};
use crate::rules::grid::{Cell, CellMap, Grid};

/// The field of view of `from` (on the map) over a flat hex map: a cell whose *cube box* with
/// the viewer holds no solid cell but those two is seen (see [`hex_open`]); if many cells are
/// left, a cell farther than 2 that no cast marks is out of sight; the exact rule decides the
/// others.
pub(super) fn hex_field(map: &TerrainMap, from: Cell, scratch: &mut FovScratch) -> CellMap<bool> {
    let grid = *map.grid();
    scratch.hex.update(map);
    let open = HexBoxes::new(map, from, &scratch.hex);
    let f = cube(&grid, from);
    let far = |c: Cell| {
        let t = cube(&grid, c);
        (t.0 - f.0)
            .abs()
            .max((t.1 - f.1).abs())
            .max((t.2 - f.2).abs())
            >= 3
    };
    let mut out = CellMap::new(&grid, false);
    let mut left = 0;
    for (c, seen) in grid.cells().zip(out.as_mut_slice()) {
        if c == from || open.as_ref().is_some_and(|o| o.clear(c)) {
            *seen = true;
        } else if far(c) {
            left += 1;
        }
    }
    // The casts cost about a pass over the lit part of the map per source and sextant: worth
    // it only when the open boxes leave many cells to the exact rule.
    let casts = &mut scratch.hex_casts;
    let cast = left > grid.len() / 4;
    if cast {
        casts.mark(map, from, Some(out.as_slice()));
    }
    for (c, seen) in grid.cells().zip(out.as_mut_slice()) {
        if !*seen && (!cast || !far(c) || casts.is_marked(c)) {
            *seen = line_of_sight(map, from, c);
        }
    }
    out
}

/// Which cells of a flat hex map the casts of [`hex_field`] mark from `from` (for the tests).
#[cfg(test)]
pub(super) fn hex_marked(map: &TerrainMap, from: Cell) -> Vec<bool> {
    let mut casts = HexCasts::default();
    casts.mark(map, from, None);
    map.grid().cells().map(|c| casts.is_marked(c)).collect()
}

/// The cube offsets, six times over, of a hex's sample points: its centre, then its corners.
const SAMPLES: [[i64; 3]; 7] = [
    [0, 0, 0],
    [4, -2, -2],
    [-2, 4, -2],
    [-2, -2, 4],
    [-4, 2, 2],
    [2, -4, 2],
    [2, 2, -4],
];

/// The line casts that refute cells out of sight (see the module docs), and their buffers,
/// kept in a [`FovScratch`] between fields. They work on a copy of the map in axial
/// coordinates (the box of the map's `(q, r)`, with a margin), where a cast's cells lie at
/// fixed index steps.
#[derive(Debug, Default)]
pub(crate) struct HexCasts {
    /// The grid the layer was made for, and the box: least `q` and `r`, and its sides.
    grid: Option<Grid>,
    q0: i64,
    r0: i64,
    nq: i64,
    nr: i64,
    /// Per place of the box: whether it is Opaque or off the map.
    opaque: Vec<bool>,
    /// Per place of the box: marked by some cast (every cell in sight at distance 3 or more
    /// is), or settled before.
    marked: Vec<bool>,
    light: Vec<Lit>,
    next: Vec<Lit>,
    shadows: Vec<Shade>,
}

/// One cast's frame: the sextant, the source point, and where its cells lie in the box.
struct Cast {
    /// The sextant's main coordinate and its sign, and the coordinate `v` follows.
    m: usize,
    sigma: i64,
    n: usize,
    /// The source point in local units.
    ua: i64,
    va: i64,
    /// The viewer's `(q, r)` less the box's corner, and the steps of `(q, r)` per line `k` and
    /// per place `j`.
    q: i64,
    r: i64,
    dk: (i64, i64),
    dj: (i64, i64),
}

impl HexCasts {
    /// The box index of the cell at line `k`, place `j` of the cast, if it is in the box.
    #[inline(always)]
    fn at(&self, c: &Cast, k: i64, j: i64) -> Option<usize> {
        let q = c.q + k * c.dk.0 + j * c.dj.0;
        let r = c.r + k * c.dk.1 + j * c.dj.1;
        ((0..self.nq).contains(&q) && (0..self.nr).contains(&r)).then(|| (r * self.nq + q) as usize)
    }

    /// Whether the cell at line `k`, place `j` is Opaque (or off the map).
    #[inline(always)]
    fn opaque_at(&self, c: &Cast, k: i64, j: i64) -> bool {
        self.at(c, k, j).is_none_or(|i| self.opaque[i])
    }

    /// Whether the cell `c` (on the map of the last [`HexCasts::mark`]) is marked.
    fn is_marked(&self, c: Cell) -> bool {
        let Some(grid) = self.grid else {
            return false;
        };
        let (q, r) = grid.to_axial(c);
        let (q, r) = (i64::from(q) - self.q0, i64::from(r) - self.r0);
        self.marked[(r * self.nq + q) as usize]
    }

    /// Remakes the box for this map (its layer of Opaque places) and clears the marks,
    /// marking the cells `settled` says (by map index) are.
    fn reset(&mut self, map: &TerrainMap, settled: Option<&[bool]>) {
        let grid = *map.grid();
        let sight = map.sight_map().as_slice();
        // A margin of two places round the map: the casts' reads past it count as Opaque.
        let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for c in grid.cells() {
            let (q, r) = grid.to_axial(c);
            let (q, r) = (i64::from(q), i64::from(r));
            lo = (lo.0.min(q), lo.1.min(r));
            hi = (hi.0.max(q), hi.1.max(r));
        }
        self.grid = Some(grid);
        (self.q0, self.r0) = (lo.0 - 2, lo.1 - 2);
        (self.nq, self.nr) = (hi.0 - lo.0 + 5, hi.1 - lo.1 + 5);
        let n = (self.nq * self.nr) as usize;
        self.opaque.clear();
        self.opaque.resize(n, true);
        self.marked.clear();
        self.marked.resize(n, false);
        for (i, c) in grid.cells().enumerate() {
            let (q, r) = grid.to_axial(c);
            let at = ((i64::from(r) - self.r0) * self.nq + i64::from(q) - self.q0) as usize;
            self.opaque[at] = sight[i] == Sight::Opaque;
            self.marked[at] = settled.is_some_and(|s| s[i]);
        }
    }

    /// Marks, from `from` (on the map), every cell at distance 3 or more that may be in sight
    /// (and the cells `settled` says, by map index, are).
    fn mark(&mut self, map: &TerrainMap, from: Cell, settled: Option<&[bool]>) {
        let grid = *map.grid();
        self.reset(map, settled);
        let (q, r) = grid.to_axial(from);
        let (q, r) = (i64::from(q) - self.q0, i64::from(r) - self.r0);
        // No line past this holds a cell of the map.
        let kmax = 2 * (i64::from(grid.width) + i64::from(grid.height)) + 4;
        for m in 0..3 {
            for sigma in [1, -1] {
                let n = (m + 1) % 3;
                // The cube steps of a line and of a place: d[m] = σk, d[n] = −σj, and the
                // third makes the sum 0; (q, r) are the first two.
                let step = |dm: i64, dn: i64| {
                    let mut d = [0i64; 3];
                    d[m] = dm;
                    d[n] = dn;
                    d[3 - m - n] = -dm - dn;
                    (d[0], d[1])
                };
                let (dk, dj) = (step(sigma, 0), step(0, -sigma));
                for a in SAMPLES {
                    let cast = Cast {
                        m,
                        sigma,
                        n,
                        ua: sigma * a[m],
                        va: -sigma * a[n],
                        q,
                        r,
                        dk,
                        dj,
                    };
                    self.cast(&cast, kmax);
                }
            }
        }
    }

    fn cast(&mut self, c: &Cast, kmax: i64) {
        let (ua, va) = (c.ua, c.va);
        // Every direction from a source to a sample of a cell at distance k ≥ 3 of the
        // sextant has a slope in [−0.8, 2.6] (module docs).
        self.light.clear();
        self.light
            .push((Bound::at(Slope::new(-1, 1)), Bound::at(Slope::new(3, 1))));
        for k in 1..=kmax {
            // Only the directions to samples of cells on this line or past it matter:
            // `vb − va ≥ −4 − va`, `vb − va ≤ 6k' + 4 − va` and `ub − ua ≥ 6k' − 4 − ua` on line
            // k', so their slopes lie in [min(0, −4 − va)/(6k − 4 − ua), (6k + 4 − va)/(6k − 4
            // − ua)] (the upper end falls as k' grows, as −8 − ua + va ≤ 0).
            let kk = k.max(3);
            let (tmin, tmax) = (
                Bound::at(Slope::new((-4 - va).min(0), 6 * kk - 4 - ua)),
                Bound::at(Slope::new(6 * kk + 4 - va, 6 * kk - 4 - ua)),
            );
            self.light.retain_mut(|iv| {
                if iv.0.lt(tmin) {
                    iv.0 = tmin;
                }
                if tmax.lt(iv.1) {
                    iv.1 = tmax;
                }
                iv.0.le(iv.1)
            });
            if self.light.is_empty() {
                return;
            }
            let dd = 6 * k - ua;
            self.shadows.clear();
            let (mut judged, mut shaded) = (-1i64, i64::MIN);
            for li in 0..self.light.len() {
                let (lo, hi) = (self.light[li].0.s, self.light[li].1.s);
                let (ln, ld) = (i64::from(lo.n), i64::from(lo.d));
                let (hn, hd) = (i64::from(hi.n), i64::from(hi.d));
                // The lit range on this line: v from (va·ld + ln·dd)/ld to (va·hd + hn·dd)/hd.
                let (vlo, vhi) = (va * ld + ln * dd, va * hd + hn * dd);
                if k >= 3 {
                    let j0 = (vlo - 18 * ld).div_euclid(6 * ld).max(judged + 1).max(0);
                    let j1 = (vhi + 18 * hd).div_euclid(6 * hd).min(k);
                    for j in j0..=j1 {
                        let Some(i) = self.at(c, k, j) else {
                            continue;
                        };
                        if self.marked[i] {
                            continue;
                        }
                        let light = &self.light[li..];
                        self.marked[i] = SAMPLES.iter().any(|b| {
                            let ub = 6 * k + c.sigma * b[c.m];
                            let vb = 6 * j - c.sigma * b[c.n];
                            let t = Bound::at(Slope::new(vb - va, ub - ua));
                            // The intervals before `li` end below the lit range's start.
                            for iv in light {
                                if t.lt(iv.0) {
                                    return false;
                                }
                                if t.le(iv.1) {
                                    return true;
                                }
                            }
                            false
                        });
                    }
                    judged = judged.max(j1);
                }
                // The cells whose span (6j − 3, 6j + 3) meets the lit range (a few more).
                let s0 = (vlo - 3 * ld).div_euclid(6 * ld).max(shaded + 1);
                let s1 = (vhi + 3 * hd).div_euclid(6 * hd);
                let mut below = self.opaque_at(c, k, s0 - 1);
                for j in s0..=s1 {
                    let here = self.opaque_at(c, k, j);
                    if here {
                        let l = Slope::new(6 * j - 3 - va, dd);
                        let r = Slope::new(6 * j + 3 - va, dd);
                        // The boundary with an Opaque cell below is blocked too.
                        let l = if below { Bound::below(l) } else { Bound::at(l) };
                        push_shade(&mut self.shadows, (l, Bound::at(r)));
                    }
                    below = here;
                }
                shaded = shaded.max(s1);
            }
            if !self.shadows.is_empty() {
                subtract(&self.light, &self.shadows, &mut self.next);
                std::mem::swap(&mut self.light, &mut self.next);
            }
        }
    }
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
