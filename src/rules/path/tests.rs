//! Movement checked against brute force over every simple path on small random maps.

use super::*;
use crate::rules::grid::HexOrientation;
use crate::rules::map::{Sight, Terrain};
use proptest::prelude::*;

const TOPOLOGIES: [Topology; 5] = Topology::ALL;

fn kinds() -> Vec<Terrain> {
    let k = |name: &str, cost| Terrain {
        name: name.into(),
        cost,
        sight: Sight::Clear,
        difficult: cost == Some(2),
        door: None,
    };
    vec![
        k("floor", Some(1)),
        k("rough", Some(2)),
        k("wall", None),
        k("swamp", Some(3)),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    terrain: TerrainMap,
    occupants: CellMap<Occupant>,
    threatened: CellMap<bool>,
    start: Cell,
    budget: u32,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (0..TOPOLOGIES.len(), 2u32..5, 2u32..5).prop_flat_map(|(t, w, h)| {
        let n = (w * h) as usize;
        (
            Just(Grid::new(TOPOLOGIES[t], w, h)),
            proptest::collection::vec(prop_oneof![4 => Just(0u16), 1 => Just(1u16), 1 => Just(2u16), 1 => Just(3u16)], n),
            proptest::collection::vec(prop_oneof![5 => Just(Occupant::Empty), 1 => Just(Occupant::Ally), 1 => Just(Occupant::Enemy)], n),
            proptest::collection::vec(any::<bool>(), n),
            0..n,
            0u32..9,
            // Ground heights: flat half the time, else cells one or two levels up.
            prop_oneof![
                1 => Just(vec![0u8; n]),
                1 => proptest::collection::vec(prop_oneof![3 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)], n),
            ],
        )
            .prop_map(|(grid, cells, occ, thr, start, budget, heights)| {
                let terrain = TerrainMap::new(grid, kinds(), cells)
                    .and_then(|t| t.with_heights(heights))
                    .expect("valid kinds and heights");
                let mut it = occ.into_iter();
                let mut occupants =
                    CellMap::from_fn(grid.width, grid.height, |_| it.next().unwrap_or_default());
                let start = grid.cell_at(start);
                occupants.set(start, Occupant::Ally);
                let mut it = thr.into_iter();
                let threatened = CellMap::from_fn(grid.width, grid.height, |_| it.next().unwrap_or(false));
                Case { terrain, occupants, threatened, start, budget }
            })
    })
}

/// Exhaustive search over every simple path: the least (cost, provocations) per cell.
fn brute(case: &Case) -> CellMap<Option<(u32, u32)>> {
    let grid = *case.terrain.grid();
    let mut best = CellMap::new(&grid, None);
    let mut visited = CellMap::new(&grid, false);
    fn dfs(
        case: &Case,
        grid: &Grid,
        cell: Cell,
        (cost, prov, diagonals): (u32, u32, u32),
        visited: &mut CellMap<bool>,
        best: &mut CellMap<Option<(u32, u32)>>,
    ) {
        if best[cell].is_none_or(|b| (cost, prov) < b) {
            best[cell] = Some((cost, prov));
        }
        visited[cell] = true;
        for (next, kind) in grid.steps(cell) {
            if visited[next] || case.occupants[next] == Occupant::Enemy {
                continue;
            }
            let Some(step) = step_cost(case, cell, next, kind, diagonals) else {
                continue;
            };
            let d = diagonals + u32::from(kind == StepKind::Diagonal);
            let c = cost + step;
            if c <= case.budget {
                let p = prov + u32::from(case.threatened[cell]);
                dfs(case, grid, next, (c, p, d), visited, best);
            }
        }
        visited[cell] = false;
    }
    dfs(case, &grid, case.start, (0, 0, 0), &mut visited, &mut best);
    best
}

/// What a step from `from` to `to` costs by the rules, with `diagonals` diagonal steps taken
/// before it in the move, or `None` if it squeezes between corner walls, climbs a cliff or
/// enters an impassable cell.
fn step_cost(case: &Case, from: Cell, to: Cell, kind: StepKind, diagonals: u32) -> Option<u32> {
    let enter = case.terrain.cost(to)?;
    let mut length = 1;
    if kind == StepKind::Diagonal {
        let a = Cell::new(to.x, from.y);
        let b = Cell::new(from.x, to.y);
        if !case.terrain.passable(a) && !case.terrain.passable(b) {
            return None;
        }
        if matches!(
            case.terrain.grid().topology,
            Topology::Square {
                diagonals: Diagonals::OneTwo
            }
        ) {
            length = 1 + (diagonals % 2);
        }
    }
    // Climbing: one more a level up; two levels or more apart, no step.
    let rise = i32::from(case.terrain.height(to)) - i32::from(case.terrain.height(from));
    (rise.abs() <= 1).then(|| enter * length + u32::from(rise == 1))
}

/// The cost so far after each step of `path`, walked by the rules ([`step_cost`]), or `None`
/// if a step is not one the rules allow.
fn walked_costs(case: &Case, path: &Path) -> Option<Vec<u32>> {
    let (mut cost, mut diagonals, mut out) = (0u32, 0u32, Vec::new());
    for s in &path.steps {
        cost += step_cost(case, s.from, s.to, s.kind, diagonals)?;
        diagonals += u32::from(s.kind == StepKind::Diagonal);
        out.push(cost);
    }
    Some(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reach_is_optimal(case in arb_case()) {
        let q = MoveQuery {
            terrain: &case.terrain,
            occupants: &case.occupants,
            threatened: Some(&case.threatened),
            start: case.start,
            budget: case.budget,
        };
        let reach = reach(&q);
        let best = brute(&case);
        for (cell, want) in best.iter() {
            // The search stopped at one cell gives the same cost, path and end as the whole.
            prop_assert_eq!(cost_to(&q, cell), want.map(|w| w.0), "cost_to {}", cell);
            let to = reach_to(&q, cell);
            prop_assert_eq!(to.path_to(cell), reach.path_to(cell), "reach_to {}", cell);
            prop_assert_eq!(to.can_end(cell), reach.can_end(cell));
            // A larger budget does not change the path to a cell within the smaller one.
            if want.is_some() {
                let wider = reach_to(&MoveQuery { budget: case.budget + 3, ..q }, cell);
                prop_assert_eq!(wider.path_to(cell), reach.path_to(cell), "wider {}", cell);
            }
            let got = reach.best_state(cell).map(|s| (reach.cost[s], reach.provocations[s]));
            prop_assert_eq!(got, *want, "cell {}", cell);
            prop_assert_eq!(reach.can_end(cell), want.is_some() && case.occupants[cell] != Occupant::Ally || cell == case.start && want.is_some());
            if let Some((cost, prov)) = want {
                let path = reach.path_to(cell).expect("reachable cell has a path");
                prop_assert_eq!(path.cost(), *cost);
                prop_assert_eq!(path.provocations() as u32, *prov);
                // The path is legal step by step.
                let cells = path.cells();
                prop_assert_eq!(cells.first().copied().unwrap_or(case.start), case.start);
                prop_assert_eq!(cells.last().copied().unwrap_or(case.start), cell);
                for s in &path.steps {
                    prop_assert!(case.terrain.grid().is_adjacent(s.from, s.to));
                    prop_assert!(case.occupants[s.to] != Occupant::Enemy);
                    prop_assert!(case.terrain.passable(s.to));
                    prop_assert_eq!(s.leaves_threat, case.threatened[s.from]);
                }
                // Each step costs what the rules say, so far (no squeeze, no cliff).
                let so_far: Vec<u32> = path.steps.iter().map(|s| s.cost_so_far).collect();
                prop_assert_eq!(walked_costs(&case, &path), Some(so_far));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Step costs too large for the bucket queue (the heap takes over): still least cost.
    #[test]
    fn reach_is_optimal_with_huge_step_costs(case in arb_case()) {
        const SCALE: u32 = 1_000_000;
        let huge: Vec<Terrain> = kinds()
            .into_iter()
            .map(|k| Terrain { cost: k.cost.map(|c| c * SCALE), ..k })
            .collect();
        let grid = *case.terrain.grid();
        let cells = grid
            .cells()
            .map(|c| case.terrain.kind_index(c).expect("on the map"))
            .collect();
        let scaled = Case {
            terrain: TerrainMap::new(grid, huge, cells)
                .and_then(|t| t.with_heights(case.terrain.grid().cells().map(|c| case.terrain.height(c)).collect()))
                .expect("valid kinds"),
            budget: case.budget * SCALE,
            ..case.clone()
        };
        let q = MoveQuery {
            terrain: &scaled.terrain,
            occupants: &scaled.occupants,
            threatened: Some(&scaled.threatened),
            start: scaled.start,
            budget: scaled.budget,
        };
        let reach = reach(&q);
        for (cell, want) in brute(&scaled).iter() {
            let got = reach.best_state(cell).map(|s| (reach.cost[s], reach.provocations[s]));
            prop_assert_eq!(got, *want, "cell {}", cell);
            prop_assert_eq!(cost_to(&q, cell), want.map(|w| w.0), "cost_to {}", cell);
        }
    }
}

/// Runs `reach` from `start` with a budget, optionally with a threat layer.
fn reach_on(
    terrain: &TerrainMap,
    occ: &CellMap<Occupant>,
    threatened: Option<&CellMap<bool>>,
    start: Cell,
    budget: u32,
) -> Reach {
    reach(&MoveQuery {
        terrain,
        occupants: occ,
        threatened,
        start,
        budget,
    })
}

fn floor_map(grid: Grid, walls: &[(i32, i32)]) -> TerrainMap {
    let mut t = TerrainMap::new(grid, kinds(), vec![0; grid.len()]).expect("valid");
    for &(x, y) in walls {
        t.set_kind(Cell::new(x, y), 2);
    }
    t
}

#[test]
fn allies_are_passed_but_not_ended_on_and_enemies_block() {
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::Forbidden,
        },
        5,
        1,
    );
    let terrain = floor_map(grid, &[]);
    let mut occ = CellMap::new(&grid, Occupant::Empty);
    occ.set(Cell::new(1, 0), Occupant::Ally);
    occ.set(Cell::new(3, 0), Occupant::Enemy);
    let r = reach_on(&terrain, &occ, None, Cell::new(0, 0), 10);
    assert_eq!(r.cost(Cell::new(1, 0)), Some(1));
    assert!(!r.can_end(Cell::new(1, 0)));
    assert!(r.can_end(Cell::new(2, 0)));
    assert_eq!(r.cost(Cell::new(3, 0)), None);
    assert_eq!(r.cost(Cell::new(4, 0)), None);
    assert_eq!(
        r.destinations(),
        vec![(Cell::new(0, 0), 0), (Cell::new(2, 0), 2)]
    );
}

#[test]
fn diagonal_cannot_squeeze_between_walls_touching_at_a_corner() {
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        2,
        2,
    );
    let terrain = floor_map(grid, &[(1, 0), (0, 1)]);
    let occ = CellMap::new(&grid, Occupant::Empty);
    let r = reach_on(&terrain, &occ, None, Cell::new(0, 0), 5);
    assert_eq!(r.cost(Cell::new(1, 1)), None);
    // One wall corner alone can be cut past.
    let terrain = floor_map(grid, &[(1, 0)]);
    let r = reach_on(&terrain, &occ, None, Cell::new(0, 0), 5);
    assert_eq!(r.cost(Cell::new(1, 1)), Some(1));
}

#[test]
fn equal_cost_paths_prefer_fewer_provocations() {
    // Two equally short routes from (0,1) to (2,1) over a 3x3 room without diagonals... with
    // diagonals `One`, (0,1)->(1,0)->(2,1) and (0,1)->(1,2)->(2,1) cost 2 each, and so does the
    // straight (0,1)->(1,1)->(2,1). Threat on (1,1) and (1,0) leaves only the (1,2) route free.
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        3,
        3,
    );
    let terrain = floor_map(grid, &[]);
    let occ = CellMap::new(&grid, Occupant::Empty);
    let mut thr = CellMap::new(&grid, false);
    thr.set(Cell::new(1, 1), true);
    thr.set(Cell::new(1, 0), true);
    let r = reach_on(&terrain, &occ, Some(&thr), Cell::new(0, 1), 2);
    let p = r.path_to(Cell::new(2, 1)).expect("reachable");
    assert_eq!(p.cost(), 2);
    assert_eq!(p.provocations(), 0);
    assert_eq!(
        p.cells(),
        vec![Cell::new(0, 1), Cell::new(1, 2), Cell::new(2, 1)]
    );
}

#[test]
fn one_two_diagonals_alternate_within_a_move() {
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::OneTwo,
        },
        6,
        6,
    );
    let terrain = floor_map(grid, &[]);
    let occ = CellMap::new(&grid, Occupant::Empty);
    let r = reach_on(&terrain, &occ, None, Cell::new(0, 0), 100);
    assert_eq!(r.cost(Cell::new(1, 1)), Some(1));
    assert_eq!(r.cost(Cell::new(2, 2)), Some(3));
    assert_eq!(r.cost(Cell::new(3, 3)), Some(4));
    assert_eq!(r.cost(Cell::new(5, 2)), Some(6));
    for c in grid.cells() {
        assert_eq!(
            r.cost(c),
            Some(grid.distance(Cell::new(0, 0), c)),
            "open floor cost = distance at {c}"
        );
    }
}

#[test]
fn start_off_the_map_reaches_nothing() {
    let grid = Grid::new(
        Topology::Hex {
            orientation: HexOrientation::Pointy,
        },
        3,
        3,
    );
    let terrain = floor_map(grid, &[]);
    let occ = CellMap::new(&grid, Occupant::Empty);
    let r = reach_on(&terrain, &occ, None, Cell::new(7, 7), 5);
    assert!(r.destinations().is_empty());
    assert_eq!(r.path_to(Cell::new(0, 0)), None);
}

/// A cell's centre in the plane, one cell spacing to the unit (for measuring lines).
fn centre(grid: &Grid, c: Cell) -> (f64, f64) {
    let (q, r) = grid.to_axial(c);
    let (q, r) = (f64::from(q), f64::from(r));
    let s3 = 3f64.sqrt();
    match grid.topology {
        Topology::Square { .. } => (q, r),
        Topology::Hex {
            orientation: HexOrientation::Pointy,
        } => (q + r / 2.0, 1.5 * r / s3),
        Topology::Hex { .. } => (1.5 * q / s3, r + q / 2.0),
    }
}

#[test]
fn paths_across_open_floor_keep_to_the_straight_line() {
    // Among the many least-cost paths across open floor, the one taken never strays a whole
    // cell from the line between its ends: no zigzag between equal-cost diagonals, no "all of
    // one direction, then all of the other" on hexes.
    for topology in TOPOLOGIES {
        let grid = Grid::new(topology, 11, 11);
        let terrain = floor_map(grid, &[]);
        let occ = CellMap::new(&grid, Occupant::Empty);
        let start = Cell::new(5, 5);
        let whole = reach_on(&terrain, &occ, None, start, 40);
        for to in grid.cells() {
            let path = whole.path_to(to).expect("open floor");
            assert_eq!(Some(path.cost()), whole.cost(to));
            let (a, b) = (centre(&grid, start), centre(&grid, to));
            let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt().max(1e-9);
            for c in path.cells() {
                let p = centre(&grid, c);
                let off = ((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)).abs() / len;
                assert!(
                    off < 0.99,
                    "{topology:?}: {c} is {off:.2} off the line {start} -> {to}: {:?}",
                    path.cells()
                );
            }
        }
    }
    // The zigzag this replaced: straight up a column, every step orthogonal.
    let grid = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        3,
        8,
    );
    let terrain = floor_map(grid, &[]);
    let occ = CellMap::new(&grid, Occupant::Empty);
    let path = reach_on(&terrain, &occ, None, Cell::new(1, 7), 7)
        .path_to(Cell::new(1, 0))
        .expect("open floor");
    assert!(path.cells().iter().all(|c| c.x == 1), "{:?}", path.cells());
}
