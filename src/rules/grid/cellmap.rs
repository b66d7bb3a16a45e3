//! Dense per-cell storage: a flat `Vec` in row-major order, no hashing.

use super::{Cell, Grid};
use serde::{Deserialize, Serialize};

/// One `T` per cell of a `width × height` map, row-major in a flat `Vec`.
///
/// Iteration order is row-major and therefore deterministic.
///
/// # Examples
///
/// ```
/// use fray::rules::grid::{Cell, CellMap, Diagonals, Grid, Topology};
///
/// let grid = Grid::new(Topology::Square { diagonals: Diagonals::One }, 3, 2);
/// let mut seen = CellMap::new(&grid, false);
/// assert!(seen.set(Cell::new(2, 1), true));
/// assert!(!seen.set(Cell::new(3, 0), true)); // off the map: nothing changes
/// assert!(seen[Cell::new(2, 1)]);
/// assert_eq!(seen.get(Cell::new(0, 5)), None);
/// assert_eq!(seen.as_slice(), [false, false, false, false, false, true]);
///
/// // One value per cell, from a function of the cell; iterated row by row.
/// let sums = CellMap::from_fn(3, 2, |c| c.x + 10 * c.y);
/// assert_eq!(sums[Cell::new(1, 1)], 11);
/// let big: Vec<Cell> = sums.iter().filter(|&(_, &v)| v > 10).map(|(c, _)| c).collect();
/// assert_eq!(big, [Cell::new(1, 1), Cell::new(2, 1)]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CellMap<T> {
    width: u32,
    height: u32,
    data: Vec<T>,
}

impl<T: Clone> CellMap<T> {
    /// A map of the grid's size with every cell set to `fill`.
    pub fn new(grid: &Grid, fill: T) -> Self {
        Self::with_size(grid.width, grid.height, fill)
    }

    pub fn with_size(width: u32, height: u32, fill: T) -> Self {
        Self {
            width,
            height,
            data: vec![fill; width as usize * height as usize],
        }
    }

    /// Sets every cell to `value`, keeping the allocation.
    pub fn fill(&mut self, value: T) {
        self.data.fill(value);
    }
}

impl<T> CellMap<T> {
    /// Builds a map from a function of each cell (called in row-major order).
    pub fn from_fn(width: u32, height: u32, mut f: impl FnMut(Cell) -> T) -> Self {
        let mut data = Vec::with_capacity(width as usize * height as usize);
        for y in 0..height as i32 {
            for x in 0..width as i32 {
                data.push(f(Cell::new(x, y)));
            }
        }
        Self {
            width,
            height,
            data,
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    pub fn contains(&self, c: Cell) -> bool {
        c.x >= 0 && c.y >= 0 && (c.x as u32) < self.width && (c.y as u32) < self.height
    }

    #[inline]
    pub fn index(&self, c: Cell) -> Option<usize> {
        self.contains(c)
            .then(|| c.y as usize * self.width as usize + c.x as usize)
    }

    #[inline]
    pub fn get(&self, c: Cell) -> Option<&T> {
        self.index(c).map(|i| &self.data[i])
    }

    #[inline]
    pub fn get_mut(&mut self, c: Cell) -> Option<&mut T> {
        self.index(c).map(|i| &mut self.data[i])
    }

    /// Sets an in-bounds cell; returns `false` (and changes nothing) out of bounds.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, CellMap};
    ///
    /// let mut costs = CellMap::with_size(4, 3, 1u32);
    /// assert!(costs.set(Cell::new(3, 2), 5));
    /// assert!(!costs.set(Cell::new(-1, 0), 5));
    /// assert_eq!(costs.get(Cell::new(3, 2)), Some(&5));
    /// assert_eq!(costs.as_slice().iter().sum::<u32>(), 11 + 5);
    /// ```
    pub fn set(&mut self, c: Cell, value: T) -> bool {
        match self.get_mut(c) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }

    /// The raw row-major slice.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// `(cell, value)` pairs in row-major order.
    pub fn iter(&self) -> impl Iterator<Item = (Cell, &T)> {
        let w = self.width as usize;
        self.data
            .iter()
            .enumerate()
            .map(move |(i, v)| (Cell::new((i % w) as i32, (i / w) as i32), v))
    }
}

impl<T> std::ops::Index<Cell> for CellMap<T> {
    type Output = T;

    /// Panics on an out-of-bounds cell: use [`CellMap::get`] for cells that come from input.
    fn index(&self, c: Cell) -> &T {
        match self.index(c) {
            Some(i) => &self.data[i],
            None => panic!("cell {c} outside a {}x{} map", self.width, self.height),
        }
    }
}

impl<T> std::ops::IndexMut<Cell> for CellMap<T> {
    fn index_mut(&mut self, c: Cell) -> &mut T {
        match self.index(c) {
            Some(i) => &mut self.data[i],
            None => panic!("cell {c} outside a {}x{} map", self.width, self.height),
        }
    }
}
