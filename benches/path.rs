//! Movement range: `fray::rules::path::reach` against the `pathfinding` crate's Dijkstra on the
//! same map, the same start and the same successor rule (8-way moves at terrain cost, no
//! squeezing between walls touching at a corner).
//!
//! Maps: 64×64 and 256×256 squares with 0% and 20% random walls (fixed seed). Queries: a budget
//! of 12 (a typical move) and a whole-map flood. Baselines: `dijkstra_reach` cut at the budget
//! (and run to exhaustion for the flood) and `dijkstra_all`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
use fray::rules::map::{TerrainMap, kinds};
use fray::rules::path::{MoveQuery, Occupant, reach};
use std::hint::black_box;

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn make_map(size: u32, wall_percent: u64) -> (TerrainMap, Cell) {
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        size,
        size,
    );
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ size as u64 ^ (wall_percent << 32));
    let start = Cell::new(size as i32 / 2, size as i32 / 2);
    let cells: Vec<u16> = grid
        .cells()
        .map(|c| u16::from(c != start && rng.next() % 100 < wall_percent))
        .collect();
    let map = TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).expect("valid");
    (map, start)
}

/// The same successor rule as `reach`, for the `pathfinding` crate (no allocation per node).
fn successors(map: &TerrainMap, c: Cell) -> impl Iterator<Item = (Cell, u32)> + '_ {
    map.grid().steps(c).filter_map(move |(n, _)| {
        let cost = map.cost(n)?;
        let squeeze = n.x != c.x
            && n.y != c.y
            && !map.passable(Cell::new(n.x, c.y))
            && !map.passable(Cell::new(c.x, n.y));
        (!squeeze).then_some((n, cost))
    })
}

fn bench(c: &mut Criterion) {
    for size in [64u32, 256] {
        for walls in [0u64, 20] {
            let (map, start) = make_map(size, walls);
            let occupants = CellMap::new(map.grid(), Occupant::Empty);
            for (label, budget) in [("budget12", 12u32), ("flood", u32::MAX)] {
                let name = format!("move/square{size}/walls{walls}/{label}");
                let mut group = c.benchmark_group(&name);
                let q = MoveQuery {
                    terrain: &map,
                    occupants: &occupants,
                    threatened: None,
                    start,
                    budget,
                };
                let cells = reach(&q).destinations().len();
                eprintln!("{name}: {cells} reachable cells");
                group.bench_function(BenchmarkId::new("fray_reach", cells), |b| {
                    b.iter(|| black_box(reach(black_box(&q))))
                });
                group.bench_function(BenchmarkId::new("pathfinding_dijkstra_reach", cells), |b| {
                    b.iter(|| {
                        let n =
                            pathfinding::prelude::dijkstra_reach(&start, |&c| successors(&map, c))
                                .take_while(|item| item.total_cost <= budget)
                                .count();
                        black_box(n)
                    })
                });
                if budget == u32::MAX {
                    group.bench_function(
                        BenchmarkId::new("pathfinding_dijkstra_all", cells),
                        |b| {
                            b.iter(|| {
                                black_box(pathfinding::prelude::dijkstra_all(&start, |&c| {
                                    successors(&map, c)
                                }))
                            })
                        },
                    );
                }
                group.finish();
            }
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
