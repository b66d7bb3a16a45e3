//! The field of view of one cell: Fray's exact one against two classic algorithms.
//!
//! Square maps (`Diagonals::One`) of 32×32 and 64×64 cells with 0% or 20% random walls (fixed
//! seed); 16 fixed open viewer cells per map. One iteration computes the field of view of all
//! 16 viewers; criterion reports the throughput in *visible cells* (Fray's count for that map),
//! so the figures compare the cost per cell seen.
//!
//! - `fray`: `fray::rules::sight::field_of_view_with`, exact: the same answer as
//!   `line_of_sight` for every cell (any point of one cell to any point of the other, corners
//!   included), with one `FovScratch` kept over the iterations (as the two others keep their
//!   map data); `fray_fresh` is `field_of_view`, which allocates its buffers for each field.
//! - `mrpas`: doryen-fov's `FovRestrictive` (Mingos' Restrictive Precise Angle Shadowcasting).
//! - `shadowcasting`: doryen-fov's `FovRecursiveShadowCasting`.
//!
//! The two doryen-fov algorithms answer a simpler question (centre-based, walls lit), so
//! their fields differ from Fray's at the edges; they are here as the speed to aim for.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use doryen_fov::{FovAlgorithm, FovRecursiveShadowCasting, FovRestrictive, MapData};
use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, HexOrientation, Topology};
use fray::rules::map::{TerrainMap, kinds};
use fray::rules::sight::{FovScratch, field_of_view, field_of_view_with, line_of_sight};
use std::hint::black_box;

/// xorshift64*: tiny, deterministic.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

struct Case {
    name: String,
    map: TerrainMap,
    data: MapData,
    viewers: Vec<Cell>,
    visible: u64,
}

fn case(size: u32, wall_percent: u64, seed: u64) -> Case {
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        size,
        size,
    );
    let mut rng = Rng(seed);
    let walls: Vec<bool> = (0..grid.len())
        .map(|_| rng.below(100) < wall_percent)
        .collect();
    let cells = walls.iter().map(|&w| u16::from(w)).collect();
    let map = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells)
        .expect("two kinds, indices 0 and 1");
    let mut data = MapData::new(size as usize, size as usize);
    for (i, &w) in walls.iter().enumerate() {
        data.set_transparent(i % size as usize, i / size as usize, !w);
    }
    let mut viewers = Vec::new();
    while viewers.len() < 16 {
        let c = grid.cell_at(rng.below(grid.len() as u64) as usize);
        if grid.index(c).is_some_and(|i| !walls[i]) {
            viewers.push(c);
        }
    }
    let visible = viewers
        .iter()
        .map(|&v| {
            let seen = field_of_view(&map, v);
            grid.cells().filter(|&c| seen.get(c) == Some(&true)).count() as u64
        })
        .sum();
    Case {
        name: format!("fov/square{size}/walls{wall_percent}"),
        map,
        data,
        viewers,
        visible,
    }
}

fn bench(c: &mut Criterion) {
    for case in [
        case(32, 0, 7),
        case(32, 20, 7),
        case(64, 0, 9),
        case(64, 20, 9),
    ] {
        let mut group = c.benchmark_group(&case.name);
        group.throughput(Throughput::Elements(case.visible));
        group.bench_function("fray", |b| {
            let mut scratch = FovScratch::new();
            b.iter(|| {
                for &v in &case.viewers {
                    black_box(field_of_view_with(&case.map, v, &mut scratch));
                }
            })
        });
        group.bench_function("fray_fresh", |b| {
            b.iter(|| {
                for &v in &case.viewers {
                    black_box(field_of_view(&case.map, v));
                }
            })
        });
        let mut data = MapData::new(case.data.width, case.data.height);
        data.transparent.clone_from(&case.data.transparent);
        group.bench_function("mrpas", |b| {
            let mut fov = FovRestrictive::new();
            b.iter(|| {
                for v in &case.viewers {
                    data.clear_fov();
                    fov.compute_fov(&mut data, v.x as usize, v.y as usize, 0, true);
                    black_box(&data.fov);
                }
            })
        });
        group.bench_function("shadowcasting", |b| {
            let mut fov = FovRecursiveShadowCasting::new();
            b.iter(|| {
                for v in &case.viewers {
                    data.clear_fov();
                    fov.compute_fov(&mut data, v.x as usize, v.y as usize, 0, true);
                    black_box(&data.fov);
                }
            })
        });
        group.finish();
    }
}

/// Hex maps (pointy tops), where the classic algorithms have no counterpart: Fray's field
/// (the open-box test, then the exact rule for the rest) against asking `line_of_sight` for
/// every cell, as `field_of_view` did before.
fn bench_hex(c: &mut Criterion) {
    for (size, wall_percent, seed) in [(32u32, 0u64, 11u64), (32, 20, 11)] {
        let hex = Topology::Hex {
            orientation: HexOrientation::Pointy,
        };
        let grid = Grid::new(hex, size, size);
        let mut rng = Rng(seed);
        let cells = (0..grid.len())
            .map(|_| u16::from(rng.below(100) < wall_percent))
            .collect();
        let map = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells)
            .expect("two kinds, indices 0 and 1");
        let mut viewers = Vec::new();
        while viewers.len() < 16 {
            let c = grid.cell_at(rng.below(grid.len() as u64) as usize);
            if map.sight(c) == fray::rules::map::Sight::Clear {
                viewers.push(c);
            }
        }
        let visible = viewers
            .iter()
            .map(|&v| {
                field_of_view(&map, v)
                    .as_slice()
                    .iter()
                    .filter(|&&s| s)
                    .count() as u64
            })
            .sum();
        let mut group = c.benchmark_group(format!("fov/hex{size}/walls{wall_percent}"));
        group.throughput(Throughput::Elements(visible));
        group.bench_function("fray", |b| {
            let mut scratch = FovScratch::new();
            b.iter(|| {
                for &v in &viewers {
                    black_box(field_of_view_with(&map, v, &mut scratch));
                }
            })
        });
        group.bench_function("per_cell", |b| {
            b.iter(|| {
                for &v in &viewers {
                    let g = map.grid();
                    black_box(CellMap::from_fn(g.width, g.height, |c| {
                        line_of_sight(&map, v, c)
                    }));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench, bench_hex);
criterion_main!(benches);
