//! Grid laws, checked against `hexx` as an independent oracle for hex maths.

use super::*;
use proptest::prelude::*;

const TOPOLOGIES: [Topology; 5] = Topology::ALL;

fn hexx_of(grid: &Grid, c: Cell) -> hexx::Hex {
    let orientation = match grid.topology {
        Topology::Hex {
            orientation: HexOrientation::Flat,
        } => hexx::HexOrientation::Flat,
        _ => hexx::HexOrientation::Pointy,
    };
    hexx::Hex::from_offset_coordinates([c.x, c.y], hexx::OffsetHexMode::Odd, orientation)
}

fn arb_topology() -> impl Strategy<Value = Topology> {
    (0..TOPOLOGIES.len()).prop_map(|i| TOPOLOGIES[i])
}

fn arb_case() -> impl Strategy<Value = (Grid, Cell, Cell)> {
    (arb_topology(), 1u32..20, 1u32..20).prop_flat_map(|(t, w, h)| {
        let cell = (0..w as i32, 0..h as i32).prop_map(|(x, y)| Cell::new(x, y));
        (Just(Grid::new(t, w, h)), cell.clone(), cell)
    })
}

/// Breadth-first step distance, the definition `distance_steps` must agree with.
fn bfs_steps(grid: &Grid, from: Cell, to: Cell) -> u32 {
    let mut dist = CellMap::new(grid, u32::MAX);
    let mut queue = std::collections::VecDeque::new();
    dist[from] = 0;
    queue.push_back(from);
    while let Some(c) = queue.pop_front() {
        for n in grid.neighbours(c) {
            if dist[n] == u32::MAX {
                dist[n] = dist[c] + 1;
                queue.push_back(n);
            }
        }
    }
    dist[to]
}

proptest! {
    /// A painted line runs from one end to the other, a step at a time, inside the
    /// rectangle of its ends, with as many cells as the longest way across: on hexes its
    /// step distance plus one, on squares the longer axis plus one.
    #[test]
    fn a_line_joins_its_ends_a_step_at_a_time((grid, a, b) in arb_case()) {
        let line = grid.line(a, b);
        prop_assert_eq!(line.first().copied(), Some(a));
        prop_assert_eq!(line.last().copied(), Some(b));
        let n = if grid.topology.is_hex() {
            grid.distance_steps(a, b) as i32
        } else {
            (a.x - b.x).abs().max((a.y - b.y).abs())
        };
        prop_assert_eq!(line.len() as i32, n + 1);
        for w in line.windows(2) {
            let step = if grid.topology.is_hex() {
                grid.distance_steps(w[0], w[1]) as i32
            } else {
                (w[0].x - w[1].x).abs().max((w[0].y - w[1].y).abs())
            };
            prop_assert_eq!(step, 1, "{:?}", line);
        }
        for c in &line {
            prop_assert!(grid.contains(*c), "{:?} off the map", c);
        }
    }

    #[test]
    fn axial_round_trips((grid, a, _b) in arb_case()) {
        let (q, r) = grid.to_axial(a);
        prop_assert_eq!(grid.from_axial(q, r), a);
    }

    #[test]
    fn hex_axial_matches_hexx((grid, a, b) in arb_case()) {
        prop_assume!(grid.topology.is_hex());
        let (q, r) = grid.to_axial(a);
        let h = hexx_of(&grid, a);
        prop_assert_eq!((q, r), (h.x, h.y));
        prop_assert_eq!(grid.distance(a, b), h.unsigned_distance_to(hexx_of(&grid, b)));
    }

    #[test]
    fn hex_neighbours_match_hexx((grid, a, _b) in arb_case()) {
        prop_assume!(grid.topology.is_hex());
        let mut ours: Vec<Cell> = grid.neighbours(a).collect();
        let mut theirs: Vec<Cell> = hexx_of(&grid, a)
            .all_neighbors()
            .iter()
            .map(|h| grid.from_axial(h.x, h.y))
            .filter(|&c| grid.contains(c))
            .collect();
        ours.sort();
        theirs.sort();
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn distance_is_a_metric((grid, a, b) in arb_case(), cx in 0i32..20, cy in 0i32..20) {
        let c = Cell::new(cx % grid.width as i32, cy % grid.height as i32);
        prop_assert_eq!(grid.distance(a, b), grid.distance(b, a));
        prop_assert_eq!(grid.distance(a, a), 0);
        prop_assert!(a == b || grid.distance(a, b) > 0);
        prop_assert!(grid.distance(a, c) <= grid.distance(a, b) + grid.distance(b, c) + 1,
            "1-2 diagonals may exceed the triangle inequality by one at most");
        if !matches!(grid.topology, Topology::Square { diagonals: Diagonals::OneTwo }) {
            prop_assert!(grid.distance(a, c) <= grid.distance(a, b) + grid.distance(b, c));
        }
    }

    #[test]
    fn step_distance_equals_bfs((grid, a, b) in arb_case()) {
        prop_assert_eq!(grid.distance_steps(a, b), bfs_steps(&grid, a, b));
    }

    #[test]
    fn neighbours_are_adjacent_and_in_bounds((grid, a, _b) in arb_case()) {
        let ns: Vec<Cell> = grid.neighbours(a).collect();
        for &n in &ns {
            prop_assert!(grid.contains(n));
            prop_assert!(grid.is_adjacent(a, n));
            prop_assert!(grid.neighbours(n).any(|m| m == a), "neighbourhood is symmetric");
        }
        let mut dedup = ns.clone();
        dedup.sort();
        dedup.dedup();
        prop_assert_eq!(dedup.len(), ns.len());
    }

    #[test]
    fn rings_partition_ranges((grid, a, _b) in arb_case(), radius in 0u32..6) {
        let range = grid.range(a, radius);
        let mut from_rings: Vec<Cell> = (0..=radius).flat_map(|r| grid.ring(a, r)).collect();
        from_rings.sort_by_key(|c| (c.y, c.x));
        prop_assert_eq!(&range, &from_rings);
        // Complete: every in-bounds cell within the radius is listed.
        let brute: Vec<Cell> = grid.cells().filter(|&c| grid.distance_steps(a, c) <= radius).collect();
        prop_assert_eq!(range, brute);
    }
}

#[test]
fn one_two_diagonals_cost_as_the_seed_says() {
    let g = Grid::new(
        Topology::Square {
            diagonals: Diagonals::OneTwo,
        },
        10,
        10,
    );
    let o = Cell::new(0, 0);
    // First diagonal 1 m, second 2 m, third 1 m: 1, 3, 4, 6.
    assert_eq!(g.distance(o, Cell::new(1, 1)), 1);
    assert_eq!(g.distance(o, Cell::new(2, 2)), 3);
    assert_eq!(g.distance(o, Cell::new(3, 3)), 4);
    assert_eq!(g.distance(o, Cell::new(4, 4)), 6);
    assert_eq!(g.distance(o, Cell::new(5, 2)), 6);
}

#[test]
fn square_steps_follow_the_documented_order() {
    let g = Grid::new(
        Topology::Square {
            diagonals: Diagonals::One,
        },
        3,
        3,
    );
    let got: Vec<Cell> = g.neighbours(Cell::new(1, 1)).collect();
    let want = [
        (2, 1),
        (1, 2),
        (0, 1),
        (1, 0),
        (2, 2),
        (0, 2),
        (0, 0),
        (2, 0),
    ]
    .map(|(x, y)| Cell::new(x, y));
    assert_eq!(got, want);
    let corner: Vec<Cell> = g.neighbours(Cell::new(0, 0)).collect();
    assert_eq!(
        corner,
        [(1, 0), (0, 1), (1, 1)].map(|(x, y)| Cell::new(x, y))
    );
}

#[test]
fn cellmap_get_is_none_out_of_bounds() {
    let mut m: CellMap<u8> = CellMap::with_size(3, 2, 7);
    assert_eq!(m.get(Cell::new(2, 1)), Some(&7));
    assert_eq!(m.get(Cell::new(3, 0)), None);
    assert_eq!(m.get(Cell::new(0, -1)), None);
    assert!(!m.set(Cell::new(0, 2), 1));
    assert!(m.set(Cell::new(1, 1), 9));
    assert_eq!(
        m.iter()
            .filter(|(_, v)| **v == 9)
            .map(|(c, _)| c)
            .collect::<Vec<_>>(),
        [Cell::new(1, 1)]
    );
}

/// On a one-row map of flat hexes the straight line between (1, 0) and (3, 0) runs along the
/// edges between hexes; of its two equally straight ways it takes the one on the map.
#[test]
fn a_hex_line_along_edges_stays_on_the_map() {
    let grid = Grid::new(
        Topology::Hex {
            orientation: HexOrientation::Flat,
        },
        4,
        1,
    );
    let line = grid.line(Cell::new(1, 0), Cell::new(3, 0));
    assert_eq!(line, [(1, 0), (2, 0), (3, 0)].map(|(x, y)| Cell::new(x, y)));
}
