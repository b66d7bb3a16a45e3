//! Line of sight and cover against a bare line walk, per query.
//!
//! Each map (square 64×64 and 256×256 with `Diagonals::One`, hex 64×64; 0% or 20% random
//! walls, fixed seed) comes with 1000 fixed random pairs of distinct open cells. One
//! benchmark iteration answers all 1000 pairs (criterion reports the throughput in queries).
//!
//! - `baseline`: the bare walk of the cells on the centre-to-centre line, counting walls, over
//!   a flat `Vec<bool>`: an integer Amanatides–Woo DDA on squares, the usual cube-lerp line
//!   (floats, rounded) on hexes. It never stops early.
//! - `line_of_sight`, `cover`: `fray::rules::sight`.
//!
//! `heights/square32`: a 32×32 map with 10% walls, the size of a large level, flat and then
//! with a third of its cells raised one or two levels; the ratio of the two is the price of
//! sight in three dimensions (`sight::heights`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fray::rules::grid::{Cell, Diagonals, Grid, HexOrientation, Topology};
use fray::rules::map::{TerrainMap, kinds};
use fray::rules::sight::{Cover, cover, line_of_sight};
use std::hint::black_box;

/// xorshift64*: tiny, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Case {
    name: String,
    map: TerrainMap,
    walls: Vec<bool>,
    pairs: Vec<(Cell, Cell)>,
}

fn case(topology: Topology, size: u32, wall_percent: u64, seed: u64) -> Case {
    let grid = Grid::new(topology, size, size);
    let mut rng = Rng(seed);
    let walls: Vec<bool> = (0..grid.len())
        .map(|_| rng.below(100) < wall_percent)
        .collect();
    let cells = walls.iter().map(|&w| u16::from(w)).collect();
    let map = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells)
        .expect("two kinds, indices 0 and 1");
    let mut pairs = Vec::with_capacity(1000);
    while pairs.len() < 1000 {
        let a = grid.cell_at(rng.below(grid.len() as u64) as usize);
        let b = grid.cell_at(rng.below(grid.len() as u64) as usize);
        let open = |c: Cell| grid.index(c).is_some_and(|i| !walls[i]);
        if a != b && open(a) && open(b) {
            pairs.push((a, b));
        }
    }
    let shape = if topology.is_hex() { "hex" } else { "square" };
    Case {
        name: format!("los/{shape}{size}/walls{wall_percent}"),
        map,
        walls,
        pairs,
    }
}

/// Integer Amanatides–Woo walk of the cells on the line between two square centres: the next
/// x crossing is at `(ix + ½)/nx`, the next y crossing at `(iy + ½)/ny`; both are kept as
/// numerators over `2·nx·ny` and advanced by a constant.
fn square_walk(walls: &[bool], width: usize, a: Cell, b: Cell) -> u32 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (nx, ny) = (dx.unsigned_abs() as i64, dy.unsigned_abs() as i64);
    let (sx, sy) = (dx.signum(), dy.signum());
    let (mut x, mut y) = (a.x, a.y);
    let mut count = u32::from(walls[y as usize * width + x as usize]);
    let (mut tx, mut ty) = (ny, nx);
    for _ in 0..nx + ny {
        if tx < ty {
            x += sx;
            tx += 2 * ny;
        } else if ty < tx {
            y += sy;
            ty += 2 * nx;
        } else {
            // Through a corner: one diagonal step, and one loop turn fewer.
            x += sx;
            y += sy;
            tx += 2 * ny;
            ty += 2 * nx;
        }
        count += u32::from(walls[y as usize * width + x as usize]);
        if x == b.x && y == b.y {
            break;
        }
    }
    count
}

/// The cube-lerp hex line: one hex per step of the hex distance, rounded from floats.
fn hex_walk(walls: &[bool], grid: &Grid, a: Cell, b: Cell) -> u32 {
    let (aq, ar) = grid.to_axial(a);
    let (bq, br) = grid.to_axial(b);
    let n = grid.distance(a, b).max(1);
    let mut count = 0;
    for i in 0..=n {
        let t = i as f32 / n as f32;
        // Nudged off the ties, as usual.
        let q = aq as f32 + (bq - aq) as f32 * t + 1e-6;
        let r = ar as f32 + (br - ar) as f32 * t + 2e-6;
        let s = -q - r;
        let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
        let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
        if dq > dr && dq > ds {
            rq = -rr - rs;
        } else if dr > ds {
            rr = -rq - rs;
        }
        let c = grid.from_axial(rq as i32, rr as i32);
        if let Some(i) = grid.index(c) {
            count += u32::from(walls[i]);
        }
    }
    count
}

fn bench(c: &mut Criterion) {
    let square = Topology::Square {
        diagonals: Diagonals::One,
    };
    let hex = Topology::Hex {
        orientation: HexOrientation::Pointy,
    };
    let cases = [
        case(square, 64, 0, 0x5eed_0001),
        case(square, 64, 20, 0x5eed_0002),
        case(square, 256, 0, 0x5eed_0003),
        case(square, 256, 20, 0x5eed_0004),
        case(hex, 64, 20, 0x5eed_0005),
    ];
    for case in &cases {
        let grid = *case.map.grid();
        let seen = case
            .pairs
            .iter()
            .filter(|&&(a, b)| line_of_sight(&case.map, a, b))
            .count();
        let mut covers = [0usize; 4];
        for &(a, b) in &case.pairs {
            covers[cover(&case.map, a, b) as usize] += 1;
        }
        eprintln!(
            "{}: {seen}/1000 pairs in sight; cover None/Half/Full/Blocked = {covers:?}",
            case.name
        );
        debug_assert_eq!(covers[Cover::Blocked as usize], 1000 - seen);

        let mut group = c.benchmark_group(&case.name);
        group.throughput(Throughput::Elements(case.pairs.len() as u64));
        group.bench_function("baseline", |bench| {
            bench.iter(|| {
                let mut walls = 0;
                for &(a, b) in &case.pairs {
                    walls += if grid.topology.is_hex() {
                        hex_walk(&case.walls, &grid, black_box(a), black_box(b))
                    } else {
                        square_walk(&case.walls, grid.width as usize, black_box(a), black_box(b))
                    };
                }
                walls
            })
        });
        group.bench_function("line_of_sight", |bench| {
            bench.iter(|| {
                case.pairs
                    .iter()
                    .filter(|&&(a, b)| line_of_sight(&case.map, black_box(a), black_box(b)))
                    .count()
            })
        });
        group.bench_function("cover", |bench| {
            bench.iter(|| {
                case.pairs
                    .iter()
                    .map(|&(a, b)| cover(&case.map, black_box(a), black_box(b)) as usize)
                    .sum::<usize>()
            })
        });
        group.finish();
    }
}

fn bench_heights(c: &mut Criterion) {
    let square = Topology::Square {
        diagonals: Diagonals::One,
    };
    let flat = case(square, 32, 10, 0x5eed_0006);
    let mut rng = Rng(0x5eed_0007);
    let heights = (0..flat.map.grid().len())
        .map(|_| match rng.below(6) {
            0 => 1,
            1 => 2,
            _ => 0,
        })
        .collect();
    let raised = flat
        .map
        .clone()
        .with_heights(heights)
        .expect("one per cell");
    let seen = |m: &TerrainMap| {
        flat.pairs
            .iter()
            .filter(|&&(a, b)| line_of_sight(m, a, b))
            .count()
    };
    eprintln!(
        "heights/square32: {}/1000 pairs in sight flat, {} with heights",
        seen(&flat.map),
        seen(&raised)
    );
    let mut group = c.benchmark_group("heights/square32");
    group.throughput(Throughput::Elements(flat.pairs.len() as u64));
    for (name, map) in [("flat", &flat.map), ("raised", &raised)] {
        group.bench_function(format!("line_of_sight/{name}"), |bench| {
            bench.iter(|| {
                flat.pairs
                    .iter()
                    .filter(|&&(a, b)| line_of_sight(map, black_box(a), black_box(b)))
                    .count()
            })
        });
        group.bench_function(format!("cover/{name}"), |bench| {
            bench.iter(|| {
                flat.pairs
                    .iter()
                    .map(|&(a, b)| cover(map, black_box(a), black_box(b)) as usize)
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_heights);
criterion_main!(benches);
