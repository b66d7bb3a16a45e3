//! Sight laws (symmetry, monotonicity, adjacency), the fast walker against a brute-force
//! reference, and hand-drawn maps.

use super::*;
use crate::rules::grid::Diagonals;
use crate::rules::map::{Terrain, kinds};
use proptest::prelude::*;

const SQUARE: Topology = Topology::Square {
    diagonals: Diagonals::One,
};
const POINTY: Topology = Topology::Hex {
    orientation: HexOrientation::Pointy,
};
const FLAT: Topology = Topology::Hex {
    orientation: HexOrientation::Flat,
};

const TOPOLOGIES: [Topology; 5] = [
    SQUARE,
    Topology::Square {
        diagonals: Diagonals::OneTwo,
    },
    Topology::Square {
        diagonals: Diagonals::Forbidden,
    },
    POINTY,
    FLAT,
];

/// Kind indices of the maps built here.
const FLOOR: u16 = 0;
const WALL: u16 = 1;
const SLIT: u16 = 2;

fn kinds3() -> Vec<Terrain> {
    vec![kinds::floor(), kinds::wall(), kinds::slit()]
}

/// A map drawn in ASCII: `.` floor, `#` wall, `+` arrow slit, any letter a floor cell the test
/// names. Whitespace is ignored (hex rows may be indented to show the offset layout).
struct Drawn {
    map: TerrainMap,
    marks: Vec<(char, Cell)>,
}

impl Drawn {
    fn new(topology: Topology, rows: &[&str]) -> Self {
        let rows: Vec<Vec<char>> = rows
            .iter()
            .map(|r| r.chars().filter(|c| !c.is_whitespace()).collect())
            .collect();
        let width = rows[0].len();
        assert!(rows.iter().all(|r| r.len() == width), "ragged map");
        let grid = Grid::new(topology, width as u32, rows.len() as u32);
        let mut cells = Vec::new();
        let mut marks = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, &ch) in row.iter().enumerate() {
                cells.push(match ch {
                    '#' => WALL,
                    '+' => SLIT,
                    '.' => FLOOR,
                    c if c.is_ascii_alphabetic() => {
                        marks.push((c, Cell::new(x as i32, y as i32)));
                        FLOOR
                    }
                    c => panic!("unknown glyph {c:?}"),
                });
            }
        }
        let map = TerrainMap::new(grid, kinds3(), cells).expect("valid drawn map");
        Self { map, marks }
    }

    fn at(&self, name: char) -> Cell {
        self.marks
            .iter()
            .find(|(c, _)| *c == name)
            .map(|&(_, cell)| cell)
            .expect("mark drawn on the map")
    }

    fn cover(&self, attacker: char, defender: char) -> Cover {
        cover(&self.map, self.at(attacker), self.at(defender))
    }

    fn sees(&self, a: char, b: char) -> bool {
        line_of_sight(&self.map, self.at(a), self.at(b))
    }
}

// ---------------------------------------------------------------------------------------------
// The reference: slow, direct, exact. It shares nothing with the walker but the geometry's
// definition (cell polygons at scale 6) and `samples`.

mod reference {
    use super::*;

    type R = i128;

    /// A rational `n / d`, `d > 0`.
    #[derive(Clone, Copy, Debug)]
    pub struct Frac {
        pub n: R,
        pub d: R,
    }

    impl Frac {
        pub fn new(n: R, d: R) -> Self {
            if d < 0 {
                Self { n: -n, d: -d }
            } else {
                Self { n, d }
            }
        }
        pub fn cmp(self, o: Frac) -> std::cmp::Ordering {
            (self.n * o.d).cmp(&(o.n * self.d))
        }
    }

    /// A point `(x / d, y / d)` in sight-plane units, `d > 0`.
    #[derive(Clone, Copy, Debug)]
    pub struct RPoint {
        pub x: R,
        pub y: R,
        pub d: R,
    }

    pub fn at(p: Point, q: Point, t: Frac) -> RPoint {
        let (px, py, qx, qy) = (p.x as R, p.y as R, q.x as R, q.y as R);
        RPoint {
            x: px * t.d + t.n * (qx - px),
            y: py * t.d + t.n * (qy - py),
            d: t.d,
        }
    }

    /// The cell's polygon (or its aperture, the cell shrunk by 1/3 about its centre), as
    /// corners in cyclic order.
    pub fn polygon(grid: &Grid, c: Cell, aperture: bool) -> Vec<(R, R)> {
        match grid.topology {
            Topology::Square { .. } => {
                let (x0, y0) = (6 * c.x as R, 6 * c.y as R);
                let (lo, hi) = if aperture { (2, 4) } else { (0, 6) };
                vec![
                    (x0 + lo, y0 + lo),
                    (x0 + hi, y0 + lo),
                    (x0 + hi, y0 + hi),
                    (x0 + lo, y0 + hi),
                ]
            }
            Topology::Hex { .. } => {
                let (q, r) = grid.to_axial(c);
                let (a, b) = (6 * (2 * q + r) as R, 6 * (q + 2 * r) as R);
                let k = if aperture { 2 } else { 6 };
                [(1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0), (0, 1)]
                    .iter()
                    .map(|&(u, v)| (a + k * u, b + k * v))
                    .collect()
            }
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Loc {
        In,
        On,
        Out,
    }

    pub fn locate(poly: &[(R, R)], pt: RPoint) -> Loc {
        let (mut pos, mut neg, mut zero) = (false, false, false);
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let o = (b.0 - a.0) * (pt.y - a.1 * pt.d) - (b.1 - a.1) * (pt.x - a.0 * pt.d);
            match o.signum() {
                1 => pos = true,
                -1 => neg = true,
                _ => zero = true,
            }
        }
        if pos && neg {
            Loc::Out
        } else if zero {
            Loc::On
        } else {
            Loc::In
        }
    }

    fn orient(a: (R, R), b: (R, R), c: (R, R)) -> R {
        ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).signum()
    }

    fn on_segment(a: (R, R), b: (R, R), c: (R, R)) -> bool {
        c.0 >= a.0.min(b.0) && c.0 <= a.0.max(b.0) && c.1 >= a.1.min(b.1) && c.1 <= a.1.max(b.1)
    }

    /// Closed segments `a`–`b` and `c`–`d` share a point.
    fn segments_meet(a: (R, R), b: (R, R), c: (R, R), d: (R, R)) -> bool {
        let (o1, o2, o3, o4) = (
            orient(a, b, c),
            orient(a, b, d),
            orient(c, d, a),
            orient(c, d, b),
        );
        if o1 * o2 < 0 && o3 * o4 < 0 {
            return true;
        }
        (o1 == 0 && on_segment(a, b, c))
            || (o2 == 0 && on_segment(a, b, d))
            || (o3 == 0 && on_segment(c, d, a))
            || (o4 == 0 && on_segment(c, d, b))
    }

    /// The closed segment `p`–`q` meets the closed convex polygon.
    fn meets_closed(poly: &[(R, R)], p: Point, q: Point) -> bool {
        let pt = |p: Point| RPoint {
            x: p.x as R,
            y: p.y as R,
            d: 1,
        };
        if locate(poly, pt(p)) != Loc::Out || locate(poly, pt(q)) != Loc::Out {
            return true;
        }
        let (p, q) = ((p.x as R, p.y as R), (q.x as R, q.y as R));
        (0..poly.len()).any(|i| segments_meet(p, q, poly[i], poly[(i + 1) % poly.len()]))
    }

    /// The segment `p`–`q` meets the open interior of the convex polygon: the part of the
    /// segment inside is an open interval, so it holds the midpoint of two consecutive
    /// parameters where the segment crosses an edge's line (or the point, if `p == q`).
    pub fn meets_open(poly: &[(R, R)], p: Point, q: Point) -> bool {
        let (px, py, qx, qy) = (p.x as R, p.y as R, q.x as R, q.y as R);
        let mut ts = vec![Frac::new(0, 1), Frac::new(1, 1)];
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let (ex, ey) = (b.0 - a.0, b.1 - a.1);
            let denom = ex * (qy - py) - ey * (qx - px);
            if denom != 0 {
                let t = Frac::new(ex * (a.1 - py) - ey * (a.0 - px), denom);
                if t.n > 0 && t.n < t.d {
                    ts.push(t);
                }
            }
        }
        ts.sort_by(|a, b| a.cmp(*b));
        ts.windows(2).any(|w| {
            let mid = Frac::new(w[0].n * w[1].d + w[1].n * w[0].d, 2 * w[0].d * w[1].d);
            locate(poly, at(p, q, mid)) == Loc::In
        })
    }

    /// The cells whose polygon might hold `pt`.
    pub fn candidates(grid: &Grid, pt: RPoint) -> Vec<Cell> {
        let fx = pt.x.div_euclid(6 * pt.d) as i32;
        let fy = pt.y.div_euclid(6 * pt.d) as i32;
        let mut out = Vec::new();
        match grid.topology {
            Topology::Square { .. } => {
                for y in fy - 1..=fy + 1 {
                    for x in fx - 1..=fx + 1 {
                        out.push(Cell::new(x, y));
                    }
                }
            }
            Topology::Hex { .. } => {
                for b in fy - 2..=fy + 3 {
                    for a in fx - 2..=fx + 3 {
                        if (a + b).rem_euclid(3) == 0 {
                            out.push(grid.from_axial((2 * a - b) / 3, (2 * b - a) / 3));
                        }
                    }
                }
            }
        }
        out
    }

    fn sight_of(map: &TerrainMap, ends: (Cell, Cell), c: Cell) -> Sight {
        if c == ends.0 || c == ends.1 {
            Sight::Clear
        } else {
            map.sight(c)
        }
    }

    /// Rules 1–3 at a point that is the midpoint of a piece (or the whole degenerate segment).
    fn blocked_at(map: &TerrainMap, ends: (Cell, Cell), p: Point, q: Point, m: RPoint) -> bool {
        let grid = map.grid();
        let mut inside = Vec::new();
        let mut on = Vec::new();
        for c in candidates(grid, m) {
            match locate(&polygon(grid, c, false), m) {
                Loc::In => inside.push(c),
                Loc::On => on.push(c),
                Loc::Out => {}
            }
        }
        match (inside.as_slice(), on.as_slice()) {
            ([c], []) => match sight_of(map, ends, *c) {
                Sight::Clear => false,
                Sight::Opaque => true,
                Sight::Slit => !meets_closed(&polygon(grid, *c, true), p, q),
            },
            ([], [c1, c2]) => {
                sight_of(map, ends, *c1) != Sight::Clear && sight_of(map, ends, *c2) != Sight::Clear
            }
            // A vertex (only for a degenerate segment): no rule.
            ([], on) if on.len() >= 3 => false,
            other => panic!("point {m:?} classified as {other:?}"),
        }
    }

    /// The parameters, sorted and distinct, where the segment `p`-`q` crosses a line of the
    /// grid (two families on squares, three on hexes), with its ends 0 and 1: between two
    /// neighbours the segment lies inside one cell or along one edge.
    pub fn crossings(hex: bool, p: Point, q: Point) -> Vec<Frac> {
        let f = |pt: Point| -> Vec<R> {
            let (x, y) = (pt.x as R, pt.y as R);
            if hex { vec![x, y, x - y] } else { vec![x, y] }
        };
        let (fp, fq) = (f(p), f(q));
        let mut ts = vec![Frac::new(0, 1), Frac::new(1, 1)];
        for (&a, &b) in fp.iter().zip(&fq) {
            if a == b {
                continue;
            }
            for k in a.min(b).div_euclid(6)..=a.max(b).div_euclid(6) + 1 {
                let line = 6 * k;
                if line >= a.min(b) && line <= a.max(b) {
                    ts.push(Frac::new(line - a, b - a));
                }
            }
        }
        ts.sort_by(|a, b| a.cmp(*b));
        ts.dedup_by(|a, b| a.cmp(*b) == std::cmp::Ordering::Equal);
        ts
    }

    pub fn segment_clear(map: &TerrainMap, p: Point, q: Point, ends: (Cell, Cell)) -> bool {
        let grid = map.grid();
        let hex = grid.topology.is_hex();
        let ts = crossings(hex, p, q);
        if p == q {
            return !blocked_at(map, ends, p, q, at(p, q, Frac::new(0, 1)));
        }
        for w in ts.windows(2) {
            let mid = Frac::new(w[0].n * w[1].d + w[1].n * w[0].d, 2 * w[0].d * w[1].d);
            if blocked_at(map, ends, p, q, at(p, q, mid)) {
                return false;
            }
        }
        // Rule 4: vertices strictly inside the segment.
        if !hex {
            for &t in &ts[1..ts.len() - 1] {
                let v = at(p, q, t);
                if v.x % (6 * v.d) == 0 && v.y % (6 * v.d) == 0 {
                    let (i, j) = ((v.x / (6 * v.d)) as i32, (v.y / (6 * v.d)) as i32);
                    let solid = |x, y| sight_of(map, ends, Cell::new(x, y)) != Sight::Clear;
                    if (solid(i - 1, j - 1) && solid(i, j)) || (solid(i, j - 1) && solid(i - 1, j))
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    pub fn line_of_sight(map: &TerrainMap, a: Cell, b: Cell) -> bool {
        let grid = map.grid();
        if !grid.contains(a) || !grid.contains(b) {
            return false;
        }
        let (sa, sb) = (samples(grid, a), samples(grid, b));
        a == b
            || sa
                .all()
                .iter()
                .any(|&p| sb.all().iter().any(|&q| segment_clear(map, p, q, (a, b))))
    }

    pub fn cover(map: &TerrainMap, attacker: Cell, defender: Cell) -> Cover {
        if !line_of_sight(map, attacker, defender) {
            return Cover::Blocked;
        }
        if attacker == defender {
            return Cover::None;
        }
        let grid = map.grid();
        let (sa, sd) = (samples(grid, attacker), samples(grid, defender));
        let seen = sd
            .corners()
            .iter()
            .filter(|&&c| {
                sa.all()
                    .iter()
                    .any(|&p| segment_clear(map, p, c, (attacker, defender)))
            })
            .count();
        if seen == sd.corners().len() {
            Cover::None
        } else if seen > 0 {
            Cover::Half
        } else {
            Cover::Full
        }
    }
}

/// The reference over heights: the plane reference for walls, then the ground rules of
/// `sight::heights`, checked piece by piece like the plane rules (the ground is solid below
/// twice its height, in half-levels; walls are as high as the sky).
mod reference3 {
    use super::reference::{
        Frac, Loc, RPoint, at, candidates, crossings, locate, polygon, segment_clear,
    };
    use super::*;

    type R = i128;
    const SKY: R = R::MAX / 8;

    fn top(map: &TerrainMap, ends: (Cell, Cell), c: Cell) -> R {
        let wall =
            !map.grid().contains(c) || (c != ends.0 && c != ends.1 && map.sight(c) != Sight::Clear);
        if wall { SKY } else { 2 * map.height(c) as R }
    }

    fn below(zp: R, zq: R, t: Frac, top: R) -> bool {
        top == SKY || zp * t.d + t.n * (zq - zp) < top * t.d
    }

    /// Where a point lies: inside one cell, on the edge of two, or at a corner of more.
    fn classify(grid: &Grid, m: RPoint) -> (Vec<Cell>, Vec<Cell>) {
        let (mut inside, mut on) = (Vec::new(), Vec::new());
        for c in candidates(grid, m) {
            match locate(&polygon(grid, c, false), m) {
                Loc::In => inside.push(c),
                Loc::On => on.push(c),
                Loc::Out => {}
            }
        }
        (inside, on)
    }

    fn vertex_of(m: RPoint) -> Option<(i32, i32)> {
        (m.x % (6 * m.d) == 0 && m.y % (6 * m.d) == 0)
            .then(|| ((m.x / (6 * m.d)) as i32, (m.y / (6 * m.d)) as i32))
    }

    pub fn segment_clear_3d(
        map: &TerrainMap,
        (p, zp): (Point, R),
        (q, zq): (Point, R),
        ends: (Cell, Cell),
    ) -> bool {
        if !segment_clear(map, p, q, ends) {
            return false;
        }
        let grid = map.grid();
        let hex = grid.topology.is_hex();
        let ground = |c: Cell| 2 * map.height(c) as R;
        let top = |c: Cell| top(map, ends, c);
        if p == q {
            let m = at(p, q, Frac::new(0, 1));
            let z = zp.min(zq);
            let (inside, on) = classify(grid, m);
            let t0 = Frac::new(0, 1);
            let under = |c: Cell| below(z, z, t0, top(c));
            return !match (inside.as_slice(), on.as_slice()) {
                ([c], []) => below(z, z, t0, ground(*c)),
                ([], [a, b]) => under(*a) && under(*b),
                ([], on) if zp != zq && !hex => {
                    let Some((i, j)) = vertex_of(m) else {
                        panic!("corner {m:?} is no vertex: {on:?}")
                    };
                    let u = |x, y| under(Cell::new(x, y));
                    (u(i - 1, j - 1) && u(i, j)) || (u(i, j - 1) && u(i - 1, j))
                }
                ([], on) if zp != zq => on.iter().filter(|&&c| under(c)).count() >= 2,
                _ => false,
            };
        }
        let ts = crossings(hex, p, q);
        for w in ts.windows(2) {
            let mid = Frac::new(w[0].n * w[1].d + w[1].n * w[0].d, 2 * w[0].d * w[1].d);
            let (inside, on) = classify(grid, at(p, q, mid));
            let low = match (inside.as_slice(), on.as_slice()) {
                ([c], []) => ground(*c),
                ([], [a, b]) => top(*a).min(top(*b)),
                other => panic!("piece classified as {other:?}"),
            };
            if below(zp, zq, w[0], low) || below(zp, zq, w[1], low) {
                return false;
            }
        }
        if !hex {
            for &t in &ts[1..ts.len() - 1] {
                if let Some((i, j)) = vertex_of(at(p, q, t)) {
                    let u = |x, y| below(zp, zq, t, top(Cell::new(x, y)));
                    if (u(i - 1, j - 1) && u(i, j)) || (u(i, j - 1) && u(i - 1, j)) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The 3-D samples: the centre at mid-height, each corner at the feet and at the head.
    pub fn samples3(map: &TerrainMap, c: Cell) -> Vec<(Point, R)> {
        let s = samples(map.grid(), c);
        let feet = 2 * map.height(c) as R;
        let mut out = vec![(s.centre(), feet + 1)];
        for &k in s.corners() {
            out.push((k, feet));
            out.push((k, feet + 2));
        }
        out
    }

    pub fn line_of_sight(map: &TerrainMap, a: Cell, b: Cell) -> bool {
        let grid = map.grid();
        if !grid.contains(a) || !grid.contains(b) {
            return false;
        }
        let (sa, sb) = (samples3(map, a), samples3(map, b));
        a == b
            || sa
                .iter()
                .any(|&p| sb.iter().any(|&q| segment_clear_3d(map, p, q, (a, b))))
    }

    pub fn cover(map: &TerrainMap, attacker: Cell, defender: Cell) -> Cover {
        if !line_of_sight(map, attacker, defender) {
            return Cover::Blocked;
        }
        if attacker == defender {
            return Cover::None;
        }
        let (sa, sd) = (samples3(map, attacker), samples3(map, defender));
        let corners = &sd[1..];
        let seen = corners
            .iter()
            .filter(|&&c| {
                sa.iter()
                    .any(|&p| segment_clear_3d(map, p, c, (attacker, defender)))
            })
            .count();
        if seen == corners.len() {
            Cover::None
        } else if seen > 0 {
            Cover::Half
        } else {
            Cover::Full
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies.

/// A random map up to 12×12: ~60% floor, ~25% wall, ~15% slit.
fn arb_map() -> impl Strategy<Value = TerrainMap> {
    arb_map_of(kinds3, |r| match r {
        0..=11 => FLOOR,
        12..=16 => WALL,
        _ => SLIT,
    })
}

/// A random map up to 12×12 of the terrain `kinds()`, each cell's kind `pick(r)` of a random
/// `r` in `0..20`.
fn arb_map_of(
    kinds: fn() -> Vec<Terrain>,
    pick: fn(u8) -> u16,
) -> impl Strategy<Value = TerrainMap> {
    (0..TOPOLOGIES.len(), 1u32..=12, 1u32..=12).prop_flat_map(move |(t, w, h)| {
        let grid = Grid::new(TOPOLOGIES[t], w, h);
        proptest::collection::vec(0u8..20, grid.len()).prop_map(move |raw| {
            let cells = raw.iter().map(|&r| pick(r)).collect();
            TerrainMap::new(grid, kinds(), cells).expect("valid random map")
        })
    })
}

/// A random map with two in-bounds cells (indices drawn uniformly).
fn arb_case() -> impl Strategy<Value = (TerrainMap, Cell, Cell)> {
    arb_map().prop_flat_map(|map| {
        let n = map.grid().len();
        (Just(map), 0..n, 0..n).prop_map(|(map, i, j)| {
            let g = *map.grid();
            (map, g.cell_at(i), g.cell_at(j))
        })
    })
}

fn upgrade(s: Sight) -> Option<u16> {
    match s {
        Sight::Clear => Some(SLIT),
        Sight::Slit => Some(WALL),
        Sight::Opaque => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn line_of_sight_is_symmetric((map, a, b) in arb_case()) {
        prop_assert_eq!(line_of_sight(&map, a, b), line_of_sight(&map, b, a));
    }

    #[test]
    fn segment_clear_is_symmetric((map, a, b) in arb_case(), i in 0usize..7, j in 0usize..7) {
        let g = *map.grid();
        let (sa, sb) = (samples(&g, a), samples(&g, b));
        let (p, q) = (sa.all()[i % sa.all().len()], sb.all()[j % sb.all().len()]);
        prop_assert_eq!(segment_clear(&map, p, q, (a, b)), segment_clear(&map, q, p, (b, a)));
    }

    #[test]
    fn walker_matches_reference_between_samples(
        (map, a, b) in arb_case(), i in 0usize..7, j in 0usize..7,
    ) {
        let g = *map.grid();
        let (sa, sb) = (samples(&g, a), samples(&g, b));
        let (p, q) = (sa.all()[i % sa.all().len()], sb.all()[j % sb.all().len()]);
        prop_assert_eq!(
            segment_clear(&map, p, q, (a, b)),
            reference::segment_clear(&map, p, q, (a, b)),
            "{:?} -> {:?}", p, q
        );
    }

    #[test]
    fn walker_matches_reference_on_any_segment(
        (map, a, b) in arb_case(),
        (px, py, qx, qy) in (-8i32..80, -8i32..80, -8i32..80, -8i32..80),
    ) {
        // Arbitrary lattice points (most are not sample points), near or off the map; small
        // offsets make collinear and vertex cases common.
        let (p, q) = (Point::new(px, py), Point::new(qx, qy));
        prop_assert_eq!(
            segment_clear(&map, p, q, (a, b)),
            reference::segment_clear(&map, p, q, (a, b)),
            "{:?} -> {:?}", p, q
        );
    }

    #[test]
    fn line_of_sight_and_cover_match_reference((map, a, b) in arb_case()) {
        prop_assert_eq!(line_of_sight(&map, a, b), reference::line_of_sight(&map, a, b));
        prop_assert_eq!(cover(&map, a, b), reference::cover(&map, a, b));
    }

    #[test]
    fn more_solid_never_helps((map, a, b) in arb_case(), k in any::<prop::sample::Index>()) {
        let g = *map.grid();
        let c = g.cell_at(k.index(g.len()));
        let Some(kind) = upgrade(map.sight(c)) else { return Ok(()) };
        let mut harder = map.clone();
        prop_assert!(harder.set_kind(c, kind));
        let (before, after) = (line_of_sight(&map, a, b), line_of_sight(&harder, a, b));
        prop_assert!(before || !after, "{c} made solid opened a line of sight");
        prop_assert!(cover(&harder, a, b) >= cover(&map, a, b));
        prop_assert!(cover(&harder, b, a) >= cover(&map, b, a));
    }

    #[test]
    fn adjacent_open_cells_see_each_other(map in arb_map()) {
        let g = *map.grid();
        for a in g.cells().filter(|&c| map.sight(c) == Sight::Clear) {
            for n in g.neighbours(a).filter(|&c| map.sight(c) == Sight::Clear) {
                prop_assert!(line_of_sight(&map, a, n), "{} and {}", a, n);
                prop_assert!(cover(&map, a, n) == Cover::None, "{} and {}", a, n);
            }
        }
    }

    #[test]
    fn sight_line_is_a_clear_sample_pair((map, a, b) in arb_case()) {
        let g = *map.grid();
        match sight_line(&map, a, b) {
            Some((p, q)) => {
                prop_assert!(samples(&g, a).all().contains(&p));
                prop_assert!(samples(&g, b).all().contains(&q));
                prop_assert!(reference::segment_clear(&map, p, q, (a, b)));
            }
            None => prop_assert!(a == b || !line_of_sight(&map, a, b)),
        }
    }

    /// The walker's hex lookup (lattice triangle → hex → offset cell) against the Euclidean
    /// definition: a point belongs to the hex whose centre is nearest in the drawn map.
    #[test]
    fn hex_triangles_belong_to_the_nearest_hex(
        flat in any::<bool>(), k in -16i32..16, m in -16i32..16, u in 1i32..=5, v in 1i32..=4,
    ) {
        // A point on no lattice line: off x = 6k, y = 6k and x − y = 6k.
        let (x, y) = (6 * k + u, 6 * m + v + i32::from(v >= u));
        let grid = Grid::new(if flat { FLAT } else { POINTY }, 1, 1);
        let map = TerrainMap::filled(grid, kinds::floor());
        let ctx = Ctx::new(&map, (Cell::new(0, 0), Cell::new(0, 0)));
        let (i, j, k) = ((x as i64).div_euclid(6), (y as i64).div_euclid(6), ((x - y) as i64).div_euclid(6));
        let (a, b) = hex_of_triangle(i, j, k == i - j);
        let (cx, cy) = ctx.hex_cell(a, b);
        let found = Cell::new(cx as i32, cy as i32);
        let [px, py] = Point::new(x, y).to_grid_f32(&grid);
        let dist = |c: Cell| {
            let [u, v] = centre(&grid, c).to_grid_f32(&grid);
            (u - px).powi(2) + (v - py).powi(2)
        };
        let best = (-30..30)
            .flat_map(|y| (-30..30).map(move |x| Cell::new(x, y)))
            .min_by(|&c, &d| dist(c).total_cmp(&dist(d)))
            .expect("candidates");
        prop_assert_eq!(found, best);
    }
}

// ---------------------------------------------------------------------------------------------
// Geometry of the sample points.

#[test]
fn neighbours_share_corners() {
    for topology in TOPOLOGIES {
        let grid = Grid::new(topology, 5, 5);
        let c = Cell::new(2, 2);
        let mine = samples(&grid, c);
        for (n, kind) in grid.steps(c) {
            let theirs = samples(&grid, n);
            let shared = mine
                .corners()
                .iter()
                .filter(|p| theirs.corners().contains(p))
                .count();
            let want = match kind {
                crate::rules::grid::StepKind::Straight => 2,
                crate::rules::grid::StepKind::Diagonal => 1,
            };
            assert_eq!(shared, want, "{topology:?} {c} {n}");
        }
    }
}

#[test]
fn drawing_coordinates_are_euclidean() {
    let square = Grid::new(SQUARE, 4, 4);
    assert_eq!(
        centre(&square, Cell::new(2, 1)).to_grid_f32(&square),
        [2.5, 1.5]
    );
    for topology in [POINTY, FLAT] {
        let grid = Grid::new(topology, 6, 6);
        for c in grid.cells() {
            let s = samples(&grid, c);
            let [cx, cy] = s.centre().to_grid_f32(&grid);
            for p in s.corners() {
                let [x, y] = p.to_grid_f32(&grid);
                assert!(
                    ((x - cx).hypot(y - cy) - 1.0).abs() < 1e-4,
                    "{topology:?} {c}"
                );
            }
            for n in grid.neighbours(c) {
                let [x, y] = centre(&grid, n).to_grid_f32(&grid);
                assert!(((x - cx).hypot(y - cy) - 3f32.sqrt()).abs() < 1e-4);
            }
        }
        assert_eq!(
            centre(&grid, Cell::new(0, 0)).to_grid_f32(&grid),
            [0.0, 0.0]
        );
    }
    // Pointy tops: a corner straight up; odd rows shoved right.
    let pointy = Grid::new(POINTY, 3, 3);
    let up = samples(&pointy, Cell::new(0, 0)).corners()[2].to_grid_f32(&pointy);
    assert!(up[0].abs() < 1e-6 && (up[1] + 1.0).abs() < 1e-6);
    assert!(centre(&pointy, Cell::new(0, 1)).to_grid_f32(&pointy)[0] > 0.0);
    // Flat tops: odd columns shoved down.
    let flat = Grid::new(FLAT, 3, 3);
    let [x, y] = centre(&flat, Cell::new(1, 0)).to_grid_f32(&flat);
    assert!((x - 1.5).abs() < 1e-6 && (y - 3f32.sqrt() / 2.0).abs() < 1e-6);
}

// ---------------------------------------------------------------------------------------------
// Hand-drawn cases (square).

#[test]
fn open_field_gives_no_cover() {
    let d = Drawn::new(
        SQUARE,
        &[
            ". . . . . .", //
            ". A . . . .",
            ". . . . . .",
            ". . . . D .",
        ],
    );
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::None);
    assert_eq!(d.cover('D', 'A'), Cover::None);
    assert_eq!(cover(&d.map, d.at('A'), d.at('A')), Cover::None);
}

#[test]
fn wall_corner_seen_at_an_angle_gives_half_cover() {
    // Only D's lower-left corner can be reached, past the wall's corner.
    let d = Drawn::new(
        SQUARE,
        &[
            "A . . . . .", //
            ". . . . . .",
            ". . . # # #",
            ". . . . D .",
        ],
    );
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::Half);
    let a = d.at('A');
    let dd = d.at('D');
    // The seen corner: (24, 24), past the wall corner (18, 18) without a pinch.
    assert!(segment_clear(
        &d.map,
        Point::new(6, 6),
        Point::new(24, 24),
        (a, dd)
    ));
    assert!(!segment_clear(
        &d.map,
        Point::new(6, 6),
        Point::new(30, 24),
        (a, dd)
    ));
}

#[test]
fn arrow_slit_gives_full_cover_from_straight_ahead() {
    let d = Drawn::new(
        SQUARE,
        &[
            ". . . . A . . . .", //
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            "B . . . . . . . .",
            "# # # # + # # # #",
            ". . . . D . . . .",
        ],
    );
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::Full);
    // The line goes centre to centre through the aperture.
    let (p, q) = sight_line(&d.map, d.at('A'), d.at('D')).expect("a line through the slit");
    assert_eq!((p, q), (Point::new(27, 3), Point::new(27, 63)));
    // From a steep angle the aperture cannot be threaded.
    assert!(!d.sees('B', 'D'));
    assert_eq!(d.cover('B', 'D'), Cover::Blocked);
    // A wall instead of the slit blocks everything.
    let mut walled = d.map.clone();
    assert!(walled.set_kind(Cell::new(4, 9), WALL));
    assert_eq!(cover(&walled, d.at('A'), d.at('D')), Cover::Blocked);
}

#[test]
fn walls_touching_at_a_corner_pinch_the_diagonal() {
    let d = Drawn::new(
        SQUARE,
        &[
            "A . . .", //
            ". . # .", ". # . .", ". . . B",
        ],
    );
    assert!(!d.sees('A', 'B'));
    assert_eq!(d.cover('A', 'B'), Cover::Blocked);
    // The centre line passes the pinch point (12, 12) exactly.
    let ends = (d.at('A'), d.at('B'));
    assert!(!segment_clear(
        &d.map,
        Point::new(3, 3),
        Point::new(21, 21),
        ends
    ));
    // One wall alone: the same line only touches its corner.
    let lone = Drawn::new(
        SQUARE,
        &[
            "A . . .", //
            ". . # .", ". . . .", ". . . B",
        ],
    );
    assert!(segment_clear(
        &lone.map,
        Point::new(3, 3),
        Point::new(21, 21),
        ends
    ));
    assert!(lone.sees('A', 'B'));
}

#[test]
fn looking_along_a_wall_face_is_clear() {
    let d = Drawn::new(
        SQUARE,
        &[
            ". . . . . . . . . .", //
            "A # # # # # # # # D",
            ". . . . . . . . . .",
        ],
    );
    let ends = (d.at('A'), d.at('D'));
    // The centre line is walled off; the faces above and below are grazed.
    assert!(!segment_clear(
        &d.map,
        Point::new(3, 9),
        Point::new(57, 9),
        ends
    ));
    assert!(segment_clear(
        &d.map,
        Point::new(6, 6),
        Point::new(54, 6),
        ends
    ));
    assert!(segment_clear(
        &d.map,
        Point::new(0, 12),
        Point::new(60, 12),
        ends
    ));
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::None);

    // Walls above too: the upper line now runs along a seam inside the wall mass.
    let seam = Drawn::new(
        SQUARE,
        &[
            "# # # # # # # # # #", //
            "A # # # # # # # # D",
            ". . . . . . . . . .",
        ],
    );
    assert!(!segment_clear(
        &seam.map,
        Point::new(6, 6),
        Point::new(54, 6),
        ends
    ));
    assert_eq!(seam.cover('A', 'D'), Cover::Half);

    // The map's edge is a wall too: a wall row along it is sealed.
    let edge = Drawn::new(SQUARE, &["A # # # # # # # # D", "# # # # # # # # # #"]);
    assert!(!edge.sees('A', 'D'));
}

#[test]
fn diagonal_neighbours_see_each_other_through_a_pinch() {
    // The only shared point is the corner; the zero-length line there is clear.
    let d = Drawn::new(SQUARE, &["A #", "# B"]);
    assert!(d.sees('A', 'B'));
    // From the shared corner every corner of B is reached along or across B itself, so
    // neighbours never have cover from each other.
    assert_eq!(d.cover('A', 'B'), Cover::None);
    assert!(segment_clear(
        &d.map,
        Point::new(6, 6),
        Point::new(6, 6),
        (d.at('A'), d.at('B'))
    ));
    assert!(!segment_clear(
        &d.map,
        Point::new(3, 3),
        Point::new(9, 9),
        (d.at('A'), d.at('B'))
    ));
}

#[test]
fn off_map_cells_see_nothing() {
    let d = Drawn::new(SQUARE, &["A . ."]);
    let out = Cell::new(5, 0);
    assert!(!line_of_sight(&d.map, d.at('A'), out));
    assert!(!line_of_sight(&d.map, out, out));
    assert_eq!(cover(&d.map, out, d.at('A')), Cover::Blocked);
    assert_eq!(sight_line(&d.map, d.at('A'), out), None);
}

// ---------------------------------------------------------------------------------------------
// Hand-drawn cases (hex).

#[test]
fn hex_wall_beside_the_defender_gives_half_cover() {
    // Pointy tops, odd rows shoved right (drawn indented). W is D's north-west neighbour.
    let d = Drawn::new(
        POINTY,
        &[
            ". . . . . . .", //
            " . . . . # . .",
            "A . . . . D .",
            " . . . . . . .",
        ],
    );
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::Half);
    let (a, dd) = (d.at('A'), d.at('D'));
    let (sa, sd) = (samples(d.map.grid(), a), samples(d.map.grid(), dd));
    // D's top corner hides behind the wall; its left-upper corner is seen along row 2.
    let top = sd.corners()[2];
    assert!(
        !sa.all()
            .iter()
            .any(|&p| segment_clear(&d.map, p, top, (a, dd)))
    );
    let open = Drawn::new(
        POINTY,
        &[
            ". . . . . . .", //
            " . . . . . . .",
            "A . . . . D .",
            " . . . . . . .",
        ],
    );
    assert_eq!(open.cover('A', 'D'), Cover::None);
}

/// Flat tops, odd columns shoved down: the zigzag row of `#` is a closed wall but for the slit.
/// `A` stands `rows` rows above the slit, `D` right behind it, `B` behind the wall to the side.
fn hex_slit_map(rows: usize) -> Drawn {
    let mut drawn = vec![". . A . ."];
    drawn.extend(std::iter::repeat_n(". . . . .", rows - 1));
    drawn.push("# # + # #");
    drawn.push(". . D . .");
    drawn.push("B . . . .");
    Drawn::new(FLAT, &drawn)
}

#[test]
fn hex_arrow_slit_gives_full_cover() {
    let d = hex_slit_map(16);
    assert!(d.sees('A', 'D'));
    assert_eq!(d.cover('A', 'D'), Cover::Full);
    // Remove the slit: no line at all. Open it: D's left and right corners still hide behind
    // the walls of the zigzag, which are shoved down beside D.
    let slit = Cell::new(2, 16);
    let mut walled = d.map.clone();
    assert!(walled.set_kind(slit, WALL));
    assert_eq!(cover(&walled, d.at('A'), d.at('D')), Cover::Blocked);
    let mut open = d.map.clone();
    assert!(open.set_kind(slit, FLOOR));
    assert_eq!(cover(&open, d.at('A'), d.at('D')), Cover::Half);
    // Behind the wall, off to the side: blocked.
    assert_eq!(d.cover('A', 'B'), Cover::Blocked);
}

#[test]
fn hex_slit_aperture_is_closed() {
    // From 12 rows the crossing rays from A's left/right corners to D's far corners exactly
    // touch the aperture's side corners (x = 2 + 1.5·12/13.5 = 3 + 1/3): touching counts.
    let d = hex_slit_map(12);
    let (a, dd) = (d.at('A'), d.at('D'));
    let (p, q) = (Point::new(12, 0), Point::new(102, 162));
    assert_eq!(samples(d.map.grid(), a).corners()[4], p);
    assert_eq!(samples(d.map.grid(), dd).corners()[0], q);
    assert!(segment_clear(&d.map, p, q, (a, dd)));
    assert_eq!(d.cover('A', 'D'), Cover::Half);
    // One row further and they miss it.
    assert_eq!(hex_slit_map(13).cover('A', 'D'), Cover::Full);
}

#[test]
fn hex_maps_agree_for_both_orientations_on_symmetric_cases() {
    for topology in [POINTY, FLAT] {
        let grid = Grid::new(topology, 8, 8);
        let map = TerrainMap::filled(grid, kinds::floor());
        for a in grid.cells() {
            assert!(line_of_sight(&map, Cell::new(3, 3), a));
            assert_eq!(cover(&map, Cell::new(3, 3), a), Cover::None);
        }
    }
}

/// Maps wider than `LANE_LIMIT` take the `i64` path of the bundle test.
fn arb_wide_case() -> impl Strategy<Value = (TerrainMap, Cell, Cell)> {
    let w = LANE_LIMIT + 8;
    (any::<bool>(), 0..w as i32, 0..3i32, 0..w as i32, 0..3i32).prop_map(
        move |(hex, ax, ay, bx, by)| {
            let topology = if hex { POINTY } else { SQUARE };
            let grid = Grid::new(topology, w, 3);
            // Walls and slits in a fixed sparse pattern.
            let cells = grid
                .cells()
                .map(|c| match (c.x * 7 + c.y * 3) % 11 {
                    0 => WALL,
                    5 => SLIT,
                    _ => FLOOR,
                })
                .collect();
            let map = TerrainMap::new(grid, kinds3(), cells).expect("valid wide map");
            (map, Cell::new(ax, ay), Cell::new(bx, by))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn wide_maps_match_reference((map, a, b) in arb_wide_case()) {
        prop_assert_eq!(line_of_sight(&map, a, b), reference::line_of_sight(&map, a, b));
        prop_assert_eq!(cover(&map, a, b), reference::cover(&map, a, b));
    }
}

/// The bundle's batched test (both the `i32` lanes and the `i64` path) against the reference,
/// for every ray of a pair and any cell.
fn check_bundle_test<const N: usize, const L: usize>(
    map: &TerrainMap,
    a: Cell,
    b: Cell,
    w: Cell,
) -> Result<(), TestCaseError> {
    let grid = *map.grid();
    let mut bundle = Bundle::<N, L>::new(map, a, b);
    let e = centre(&grid, w);
    let poly = reference::polygon(&grid, w, false);
    let want = (0..N * N).fold(0u64, |m, r| {
        let hit = reference::meets_open(&poly, bundle.src[r / N], bundle.dst[r % N]);
        m | u64::from(hit) << r
    });
    prop_assert_eq!(bundle.scalar_blocked_by(e), want, "i64, cell {}", w);
    prop_assert_eq!(bundle.lanes_blocked_by(e), want, "i32 lanes, cell {}", w);
    Ok(())
}

proptest! {
    #[test]
    fn bundle_test_matches_reference(
        (map, a, b) in arb_case(), dx in -2i32..=2, dy in -2i32..=2, near_b in any::<bool>(),
    ) {
        let base = if near_b { b } else { a };
        let w = Cell::new(base.x + dx, base.y + dy);
        if map.grid().topology.is_hex() {
            check_bundle_test::<7, 64>(&map, a, b, w)?;
        } else {
            check_bundle_test::<5, 32>(&map, a, b, w)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Field of view, with doors.

/// A random map up to 12×12 with doors: floor, wall, slit, and shut, open and locked doors.
fn arb_door_map() -> impl Strategy<Value = TerrainMap> {
    arb_map_of(door_kinds, |r| match r {
        0..=10 => 0,
        11..=14 => 1,
        15 => 2,
        16 | 17 => 3,
        18 => 4,
        _ => 5,
    })
}

fn door_kinds() -> Vec<Terrain> {
    vec![
        kinds::floor(),
        kinds::wall(),
        kinds::slit(),
        kinds::door_closed(),
        kinds::door_open(),
        kinds::door_locked(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The field of view is the brute-force reference's line of sight, cell by cell, before
    /// and after a door is opened or shut.
    #[test]
    fn field_of_view_is_line_of_sight_for_every_cell(
        map in arb_door_map(),
        i in any::<prop::sample::Index>(),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let from = g.cell_at(i.index(g.len()));
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        for m in [&map, &toggled] {
            let seen = field_of_view(m, from);
            for c in g.cells() {
                prop_assert_eq!(
                    seen.get(c).copied(),
                    Some(reference::line_of_sight(m, from, c)),
                    "from {} to {}", from, c
                );
            }
        }
    }
}

#[test]
fn a_shut_door_blocks_sight_and_an_open_one_does_not() {
    let d = Drawn::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        &["a.#..", "..#..", "..#b."],
    );
    let (a, b) = (d.at('a'), d.at('b'));
    let door = Cell::new(2, 1);
    let kinds = door_kinds();
    let cells: Vec<u16> = d
        .map
        .grid()
        .cells()
        .map(|c| {
            if c == door {
                3
            } else {
                d.map.kind_index(c).unwrap_or(0)
            }
        })
        .collect();
    let mut m = TerrainMap::new(*d.map.grid(), kinds, cells).expect("map");
    assert!(!line_of_sight(&m, a, b));
    assert!(m.toggle_door(door));
    assert!(line_of_sight(&m, a, b));
    assert_eq!(field_of_view(&m, a).get(b), Some(&true));
    assert!(m.toggle_door(door));
    assert_eq!(field_of_view(&m, a).get(b), Some(&false));
}

// ---------------------------------------------------------------------------------------------
// Heights.

/// A random map (as [`arb_map`]) with random ground heights 0-3, about half the cells raised.
fn arb_height_map() -> impl Strategy<Value = TerrainMap> {
    arb_map().prop_flat_map(|map| {
        let n = map.grid().len();
        proptest::collection::vec(0u8..8, n).prop_map(move |raw| {
            let heights = raw.iter().map(|&r| r.saturating_sub(4)).collect();
            map.clone()
                .with_heights(heights)
                .expect("one height per cell")
        })
    })
}

fn arb_height_case() -> impl Strategy<Value = (TerrainMap, Cell, Cell)> {
    arb_height_map().prop_flat_map(|map| {
        let n = map.grid().len();
        (Just(map), 0..n, 0..n).prop_map(|(map, i, j)| {
            let g = *map.grid();
            (map, g.cell_at(i), g.cell_at(j))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn over_heights_sight_and_cover_match_the_reference((map, a, b) in arb_height_case()) {
        prop_assert_eq!(line_of_sight(&map, a, b), reference3::line_of_sight(&map, a, b));
        prop_assert_eq!(cover(&map, a, b), reference3::cover(&map, a, b));
    }

    #[test]
    fn over_heights_sight_is_symmetric((map, a, b) in arb_height_case()) {
        prop_assert_eq!(line_of_sight(&map, a, b), line_of_sight(&map, b, a));
    }

    /// Ground raised evenly everywhere is the flat map lifted: nothing changes.
    #[test]
    fn an_evenly_raised_map_sees_as_the_flat_one((map, a, b) in arb_case(), h in 1u8..4) {
        let raised = map.clone().with_heights(vec![h; map.grid().len()]).expect("sized");
        prop_assert!(!raised.is_flat());
        prop_assert_eq!(line_of_sight(&raised, a, b), line_of_sight(&map, a, b));
        prop_assert_eq!(cover(&raised, a, b), cover(&map, a, b));
    }

    #[test]
    fn over_heights_field_of_view_is_line_of_sight(map in arb_height_map(), i in any::<prop::sample::Index>()) {
        let from = map.grid().cell_at(i.index(map.grid().len()));
        let seen = field_of_view(&map, from);
        for c in map.grid().cells() {
            prop_assert_eq!(seen.get(c).copied(), Some(reference3::line_of_sight(&map, from, c)));
        }
    }
}

/// A one-row square map drawn from glyphs (`.` floor, `#` wall, letters floor) and heights.
fn ridge(row: &str, heights: &[u8]) -> Drawn {
    let mut d = Drawn::new(SQUARE, &[row]);
    d.map = d
        .map
        .clone()
        .with_heights(heights.to_vec())
        .expect("one height a cell");
    d
}

/// S-07 in the vertical: Alice in a ditch behind an embankment one level high is half
/// covered from Bob on the plain: her head shows over it, her feet do not.
#[test]
fn an_embankment_half_covers_who_stands_behind_it() {
    let d = ridge("b...ia.", &[0, 0, 0, 0, 1, 0, 0]);
    assert!(d.sees('b', 'a'));
    assert_eq!(d.cover('b', 'a'), Cover::Half);
    // On the embankment itself nothing covers her; on flat ground neither.
    assert_eq!(d.cover('b', 'i'), Cover::None);
    let flat = Drawn::new(SQUARE, &["b...ia."]);
    assert_eq!(flat.cover('b', 'a'), Cover::None);
}

/// S-06 in the vertical: Bob on top of a tower looks down on Alice in the open: no cover.
/// Higher ground also sees over a ridge that hides her from the plain.
#[test]
fn high_ground_sees_over_a_ridge_that_hides_from_below() {
    let open = ridge("b.....a", &[3, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        open.cover('b', 'a'),
        Cover::None,
        "from the tower, Alice is in the open"
    );
    //              tower  ridge  hollow
    let d = ridge("b...r.a", &[3, 0, 0, 0, 2, 0, 0]);
    assert!(d.sees('b', 'a'), "from the tower one sees over the ridge");
    assert_eq!(d.cover('b', 'a'), Cover::Half, "but her feet are behind it");
    let low = ridge("b...r.a", &[0, 0, 0, 0, 2, 0, 0]);
    assert!(
        !low.sees('b', 'a'),
        "a ridge two levels high hides her from the plain"
    );
    assert_eq!(low.cover('b', 'a'), Cover::Blocked);
}

/// The ground one stands on is solid: from the edge of a cliff two levels high one sees
/// its foot in full; from a cell back, the edge hides the corners at the foot.
#[test]
fn a_cliff_hides_its_foot_from_who_stands_back() {
    let edge = ridge("ba..", &[2, 2, 0, 0]);
    let foot = Cell::new(2, 0);
    assert_eq!(cover(&edge.map, edge.at('a'), foot), Cover::None);
    assert!(edge.sees('b', 'a'));
    assert!(line_of_sight(&edge.map, edge.at('b'), foot));
    assert_eq!(cover(&edge.map, edge.at('b'), foot), Cover::Half);
}

/// Walls are as tall as the sky: no height sees over one.
#[test]
fn no_height_sees_over_a_wall() {
    let d = ridge("b..#..a", &[9, 0, 0, 0, 0, 0, 0]);
    assert!(!d.sees('b', 'a'));
}

// ---------------------------------------------------------------------------------------------
// The fast field of view on flat square maps (`fov.rs`).

/// A square map up to 28×28 with its own density of walls (0–60%), a few slits and doors,
/// so that the maps range from open halls to mazes.
fn arb_dense_square_map() -> impl Strategy<Value = TerrainMap> {
    (0usize..3, 1u32..=28, 1u32..=28, 0u32..=60).prop_flat_map(|(t, w, h, walls)| {
        let grid = Grid::new(TOPOLOGIES[t], w, h);
        proptest::collection::vec(0u32..100, grid.len()).prop_map(move |raw| {
            let cells = raw
                .iter()
                .map(|&r| match r {
                    _ if r < walls => 1,
                    _ if r < walls + 4 => 2,
                    _ if r < walls + 7 => 3,
                    _ if r < walls + 9 => 4,
                    _ => 0,
                })
                .collect();
            TerrainMap::new(grid, door_kinds(), cells).expect("valid random map")
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// On bigger square maps of every density: the shadowcasts mark every cell in sight (a
    /// superset), every cell they prove seen is in sight (a subset), and the field is
    /// `line_of_sight`, cell by cell, from four viewers a map (walls, slits and doors included).
    #[test]
    fn square_field_of_view_is_line_of_sight_on_bigger_maps(
        map in arb_dense_square_map(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 4),
    ) {
        let g = *map.grid();
        for pick in picks {
            let from = g.cell_at(pick.index(g.len()));
            let seen = field_of_view(&map, from);
            let mut marks = fov::Candidates::new(&map, from);
            marks.run();
            for c in g.cells() {
                let exact = line_of_sight(&map, from, c);
                prop_assert_eq!(seen.get(c).copied(), Some(exact), "from {} to {}", from, c);
                prop_assert!(!exact || c == from || marks.is_marked(c), "{} sees {} unmarked", from, c);
                prop_assert!(exact || !marks.is_sure(c), "{} proved to see {}", from, c);
            }
        }
    }
}

/// Every viewer of small seeded maps of rising density, against the brute-force reference.
#[test]
fn square_field_of_view_from_every_cell_matches_the_reference() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    };
    for round in 0..24u64 {
        let (w, h) = (3 + next(8) as u32, 3 + next(8) as u32);
        let walls = round * 3;
        let grid = Grid::new(SQUARE, w, h);
        let cells = (0..grid.len())
            .map(|_| match next(100) {
                r if r < walls => 1,
                r if r < walls + 5 => 2,
                _ => 0,
            })
            .collect();
        let map = TerrainMap::new(grid, door_kinds(), cells).expect("map");
        for from in grid.cells() {
            let seen = field_of_view(&map, from);
            for c in grid.cells() {
                assert_eq!(
                    seen.get(c).copied(),
                    Some(reference::line_of_sight(&map, from, c)),
                    "round {round}: from {from} to {c}"
                );
            }
        }
    }
}

/// A square map up to 24×24 with its own mix of walls, arrow slits and shut, open and locked
/// doors (each 0–40%), so that the slits' own light and the doors' states all get their turn.
fn arb_mixed_square_map() -> impl Strategy<Value = TerrainMap> {
    (
        1u32..=24,
        1u32..=24,
        proptest::collection::vec(0u32..=40, 5),
    )
        .prop_flat_map(|(w, h, mix)| {
            let grid = Grid::new(SQUARE, w, h);
            proptest::collection::vec(0u32..200, grid.len()).prop_map(move |raw| {
                let cells = raw
                    .iter()
                    .map(|&r| {
                        // Kinds 1..=5: wall, slit, shut, open and locked door; else floor.
                        let mut edge = 0;
                        for (k, share) in mix.iter().enumerate() {
                            edge += share;
                            if r < edge {
                                return k as u16 + 1;
                            }
                        }
                        0
                    })
                    .collect();
                TerrainMap::new(grid, door_kinds(), cells).expect("valid random map")
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The fast paths on mixed maps, before and after a door is toggled: every cell the
    /// shadowcasts prove seen is in sight, every cell in sight is marked, and the field is
    /// `line_of_sight` cell by cell.
    #[test]
    fn square_field_of_view_fast_paths_hold_with_slits_and_doors(
        map in arb_mixed_square_map(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 3),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        for m in [&map, &toggled] {
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                let seen = field_of_view(m, from);
                let mut marks = fov::Candidates::new(m, from);
                marks.run();
                for c in g.cells() {
                    let exact = line_of_sight(m, from, c);
                    prop_assert_eq!(seen.get(c).copied(), Some(exact), "from {} to {}", from, c);
                    prop_assert!(exact || !marks.is_sure(c), "{} proved to see {}", from, c);
                    prop_assert!(!exact || c == from || marks.is_marked(c), "{} sees {} unmarked", from, c);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Step 1 of the fast field of view: the cells it settles are exactly those whose
    /// rectangle with the viewer holds no solid cell but those two (counted cell by cell
    /// here), every one of them is in sight, and it reports a doubt exactly when some cell
    /// is left (walls, slits and doors, before and after a door is toggled).
    #[test]
    fn open_rectangles_settle_exactly_the_clear_rectangles(
        map in arb_dense_square_map(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 3),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        for m in [&map, &toggled] {
            let solid = |c: Cell| m.sight(c) != Sight::Clear;
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                let mut marks = fov::Candidates::new(m, from);
                let doubt = marks.open_rectangles();
                let mut left = false;
                for c in g.cells() {
                    let clear = (from.x.min(c.x)..=from.x.max(c.x)).all(|x| {
                        (from.y.min(c.y)..=from.y.max(c.y)).all(|y| {
                            let d = Cell::new(x, y);
                            d == from || d == c || !solid(d)
                        })
                    });
                    prop_assert_eq!(marks.is_sure(c), clear, "from {} to {}", from, c);
                    prop_assert_eq!(marks.is_marked(c), clear, "from {} to {}", from, c);
                    prop_assert!(!clear || line_of_sight(m, from, c), "{} settled {}", from, c);
                    left |= !clear;
                }
                prop_assert_eq!(doubt, left, "from {}", from);
            }
        }
    }
}

/// A hex map (either orientation) up to 20×20 with its own density of walls (0–60%), a few
/// slits and doors.
fn arb_dense_hex_map() -> impl Strategy<Value = TerrainMap> {
    (any::<bool>(), 1u32..=20, 1u32..=20, 0u32..=60).prop_flat_map(|(pointy, w, h, walls)| {
        let grid = Grid::new(if pointy { POINTY } else { FLAT }, w, h);
        proptest::collection::vec(0u32..100, grid.len()).prop_map(move |raw| {
            let cells = raw
                .iter()
                .map(|&r| match r {
                    _ if r < walls => 1,
                    _ if r < walls + 4 => 2,
                    _ if r < walls + 7 => 3,
                    _ if r < walls + 9 => 4,
                    _ if r < walls + 10 => 5,
                    _ => 0,
                })
                .collect();
            TerrainMap::new(grid, door_kinds(), cells).expect("valid random map")
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The hex fast path: it settles exactly the cells whose cube box with the viewer holds no
    /// solid or off-map cell but the two ends (listed hex by hex here), each of them is in
    /// sight, and the field is `line_of_sight` cell by cell, before and after a door is
    /// toggled.
    #[test]
    fn hex_field_of_view_fast_path_holds(
        map in arb_dense_hex_map(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 3),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        let cube = |c: Cell| {
            let (q, r) = g.to_axial(c);
            (q, r, -q - r)
        };
        for m in [&map, &toggled] {
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                let open = hexfov::hex_open(m, from);
                let seen = field_of_view(m, from);
                let f = cube(from);
                for c in g.cells() {
                    let t = cube(c);
                    let span = |a: i32, b: i32| a.min(b)..=a.max(b);
                    let mut clear = true;
                    for q in span(f.0, t.0) {
                        for r in span(f.1, t.1) {
                            let d = g.from_axial(q, r);
                            let inside = span(f.2, t.2).contains(&(-q - r));
                            if inside && d != from && d != c {
                                clear &= g.contains(d) && m.sight(d) == Sight::Clear;
                            }
                        }
                    }
                    let i = g.index(c).expect("on the map");
                    let exact = line_of_sight(m, from, c);
                    prop_assert_eq!(open[i], clear, "from {} to {}", from, c);
                    prop_assert!(!clear || exact, "{} settled {}", from, c);
                    prop_assert_eq!(seen.get(c).copied(), Some(exact), "from {} to {}", from, c);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The hex line casts never drop a cell in sight: every cell at hex distance 3 or more
    /// from the viewer that `line_of_sight` sees is marked, on random hex maps of every
    /// density with slits and doors, before and after a door is toggled.
    #[test]
    fn hex_casts_mark_every_cell_in_sight(
        map in arb_dense_hex_map(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 3),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        for m in [&map, &toggled] {
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                let marked = hexfov::hex_marked(m, from);
                for c in g.cells() {
                    let far = g.distance(from, c) >= 3;
                    let i = g.index(c).expect("on the map");
                    if far && line_of_sight(m, from, c) {
                        prop_assert!(marked[i], "from {} to {} in sight, unmarked", from, c);
                    }
                }
            }
        }
    }
}

/// The hex casts refute the cells straight behind a wall and mark those round its ends.
#[test]
fn hex_casts_refute_cells_behind_a_wall() {
    let grid = Grid::new(POINTY, 9, 9);
    let from = Cell::new(4, 8);
    // A wall across row 6, from column 1 to column 7.
    let cells = grid
        .cells()
        .map(|c| u16::from(c.y == 6 && (1..=7).contains(&c.x)))
        .collect();
    let map = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).expect("map");
    let marked = hexfov::hex_marked(&map, from);
    let at = |c: Cell| marked[grid.index(c).expect("on the map")];
    assert!(!at(Cell::new(4, 3)), "straight behind the wall");
    assert!(!line_of_sight(&map, from, Cell::new(4, 3)));
    assert!(at(Cell::new(0, 3)) || !line_of_sight(&map, from, Cell::new(0, 3)));
    assert!(line_of_sight(&map, from, Cell::new(8, 5)) && at(Cell::new(8, 5)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// One scratch kept over fields of maps of different sizes and kinds (squares and hexes,
    /// walls, slits and doors) changes no answer.
    #[test]
    fn a_kept_scratch_changes_no_field(
        maps in proptest::collection::vec(prop_oneof![arb_dense_square_map(), arb_dense_hex_map()], 1..5),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 3),
    ) {
        let mut scratch = FovScratch::new();
        for m in &maps {
            let g = m.grid();
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                prop_assert_eq!(field_of_view_with(m, from, &mut scratch), field_of_view(m, from));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// One scratch kept while a door of the same map is toggled back and forth (the hex
    /// tables are kept while the sight layer is unchanged and must be remade when it changes):
    /// every field is the brute-force reference's line of sight, cell by cell.
    #[test]
    fn a_kept_scratch_follows_a_toggled_door(
        map in prop_oneof![arb_dense_square_map(), arb_dense_hex_map()],
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 2),
        k in any::<prop::sample::Index>(),
    ) {
        let g = *map.grid();
        let mut toggled = map.clone();
        toggled.toggle_door(g.cell_at(k.index(g.len())));
        let mut scratch = FovScratch::new();
        for m in [&map, &toggled, &map, &toggled] {
            for pick in &picks {
                let from = g.cell_at(pick.index(g.len()));
                let seen = field_of_view_with(m, from, &mut scratch);
                for c in g.cells() {
                    prop_assert_eq!(
                        seen.get(c).copied(),
                        Some(reference::line_of_sight(m, from, c)),
                        "from {} to {}", from, c
                    );
                }
            }
        }
    }
}
