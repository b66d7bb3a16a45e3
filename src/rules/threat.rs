//! Threatened cells: where a unit can make a melee attack, and so where leaving a cell may
//! provoke an attack of opportunity (seed 000: "You threaten all hexes into which you can make a
//! melee attack"; seed 001: "adjacent foes armed with a melee weapon").
//!
//! A unit with melee `reach` threatens every other cell within `reach` steps
//! ([`Grid::distance_steps`](crate::rules::grid::Grid::distance_steps): diagonals count 1 where
//! the grid allows them) that it has line of sight to ([`crate::rules::sight::line_of_sight`]),
//! so a long reach does not strike through a wall. With reach 1 the sight test never fails
//! (neighbouring cells always see each other), so an adjacent enemy always threatens.
//! Reach 0 threatens nothing (an unarmed or ranged-only unit, where the ruleset says so).
//! Impassable cells are never listed: nobody can stand there to be attacked.
//!
//! On a map with heights a blow reaches only ground at most one level above or below the
//! striker's (a house rule of every ruleset, beside the climbing rule of
//! [`TerrainMap::climb`]): the foot of a cliff or a wall top two levels up is out of reach.

use crate::rules::grid::{Cell, CellMap};
use crate::rules::map::TerrainMap;
use crate::rules::sight::line_of_sight;

/// Whether a melee blow with `reach` from `from` reaches `to`: within `reach` steps, with line
/// of sight beyond one step, and ground at most one level apart (see the module docs).
pub fn melee_reaches(terrain: &TerrainMap, from: Cell, reach: u32, to: Cell) -> bool {
    let d = terrain.grid().distance_steps(from, to);
    d >= 1
        && d <= reach
        && terrain.height(from).abs_diff(terrain.height(to)) <= 1
        && (d == 1 || line_of_sight(terrain, from, to))
}

/// The cells a unit standing on `from` threatens with melee `reach`, row-major.
pub fn threatened_by(terrain: &TerrainMap, from: Cell, reach: u32) -> Vec<Cell> {
    let grid = terrain.grid();
    if reach == 0 || !grid.contains(from) {
        return Vec::new();
    }
    grid.range(from, reach)
        .into_iter()
        .filter(|&c| terrain.passable(c) && melee_reaches(terrain, from, reach, c))
        .collect()
}

/// The union of the cells threatened by several units, given as `(cell, reach)`; the layer
/// [`crate::rules::path::MoveQuery::threatened`] takes.
pub fn threat_map(terrain: &TerrainMap, threateners: &[(Cell, u32)]) -> CellMap<bool> {
    let mut map = CellMap::new(terrain.grid(), false);
    for &(from, reach) in threateners {
        for c in threatened_by(terrain, from, reach) {
            map.set(c, true);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::grid::{Diagonals, Grid, Topology};
    use crate::rules::map::kinds;

    fn map(topology: Topology, rows: &[&str]) -> TerrainMap {
        let grid = Grid::new(topology, rows[0].len() as u32, rows.len() as u32);
        let cells = rows
            .iter()
            .flat_map(|r| r.chars().map(|c| u16::from(c == '#')))
            .collect();
        TerrainMap::new(grid, vec![kinds::floor(), kinds::wall()], cells).expect("valid")
    }

    const SQUARE: Topology = Topology::Square {
        diagonals: Diagonals::One,
    };

    #[test]
    fn reach_one_is_the_neighbourhood_on_every_grid() {
        for topology in Topology::ALL {
            let t = map(topology, &["#....", ".#...", "..#..", "....."]);
            for from in t.grid().cells() {
                let mut want: Vec<Cell> = t
                    .grid()
                    .neighbours(from)
                    .filter(|&c| t.passable(c))
                    .collect();
                want.sort_by_key(|c| (c.y, c.x));
                assert_eq!(threatened_by(&t, from, 1), want, "{topology:?} from {from}");
            }
        }
    }

    #[test]
    fn a_long_reach_does_not_strike_through_a_wall() {
        // A single wall cell can be looked around (grazing its face is allowed); a wall two
        // cells long cannot, because sight may not run along the seam inside it.
        let t = map(SQUARE, &[".#.", ".#.", "..."]);
        let got = threatened_by(&t, Cell::new(0, 0), 2);
        assert!(!got.contains(&Cell::new(2, 0)), "behind the wall: {got:?}");
        assert!(
            !got.contains(&Cell::new(1, 0)),
            "walls are never threatened: {got:?}"
        );
        assert!(got.contains(&Cell::new(2, 2)));
        assert!(got.contains(&Cell::new(0, 2)));
        let thin = map(SQUARE, &[".#.", "...", "..."]);
        assert!(threatened_by(&thin, Cell::new(0, 0), 2).contains(&Cell::new(2, 0)));
        assert!(
            !got.contains(&Cell::new(0, 0)),
            "a unit does not threaten its own cell"
        );
    }

    #[test]
    fn reach_zero_and_off_map_threaten_nothing() {
        let t = map(SQUARE, &["..."]);
        assert!(threatened_by(&t, Cell::new(1, 0), 0).is_empty());
        assert!(threatened_by(&t, Cell::new(9, 0), 1).is_empty());
    }

    #[test]
    fn the_map_is_the_union() {
        let t = map(SQUARE, &["....."]);
        let m = threat_map(&t, &[(Cell::new(0, 0), 1), (Cell::new(4, 0), 1)]);
        let on: Vec<i32> = (0..5).filter(|&x| m[Cell::new(x, 0)]).collect();
        assert_eq!(on, vec![1, 3]);
    }

    /// A wall top two levels up is out of reach of the ground below, and the ground out of
    /// reach of it; a step one level up is not.
    #[test]
    fn a_blow_reaches_ground_at_most_a_level_apart() {
        let t = map(SQUARE, &["....."])
            .with_heights(vec![0, 2, 2, 1, 0])
            .expect("sized");
        let at = |x| Cell::new(x, 0);
        assert!(!melee_reaches(&t, at(0), 1, at(1)));
        assert!(!melee_reaches(&t, at(1), 1, at(0)));
        assert!(melee_reaches(&t, at(2), 1, at(3)));
        assert!(melee_reaches(&t, at(3), 1, at(4)));
        assert_eq!(threatened_by(&t, at(1), 1), vec![at(2)]);
        assert_eq!(threatened_by(&t, at(4), 1), vec![at(3)]);
    }
}
