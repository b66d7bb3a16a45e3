//! Terrain: what each cell of a map costs to enter and how it treats sight.

use crate::rules::grid::{Cell, CellMap, Grid};
use serde::{Deserialize, Serialize};

/// How a cell treats lines of sight (see [`crate::rules::sight`] for the exact geometry).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Sight {
    /// Sight passes freely (floor, water, rubble).
    #[default]
    Clear,
    /// A window or arrow slit: the cell is solid except a small central aperture (the middle
    /// third of the cell); a sight line crossing the cell must pass through the aperture.
    /// Defenders right behind a slit get *full* cover from distant attackers.
    Slit,
    /// Solid: walls, pillars, thick foliage. Blocks every line that enters its interior.
    Opaque,
}

/// A door's state. A door is a terrain kind like any other (its `cost` and `sight` say what
/// it is in that state: a closed door is impassable and opaque, an open one is not); opening
/// or closing it turns the cell into its *counterpart*, the kind of the same name in the other
/// state (see [`TerrainMap::door_counterpart`]). A locked door has none: no unit opens it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Door {
    Open,
    #[default]
    Closed,
    Locked,
}

/// One kind of terrain, as a level's legend defines it.
///
/// In RON every field but `name` may be left out: `(name: "floor")` is passable at cost 1,
/// clear to sight and not difficult.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    /// A name a designer and a tooltip can show ("floor", "wall", "arrow slit").
    pub name: String,
    /// Movement points to enter the cell; `None` means impassable.
    #[serde(default = "default_cost")]
    pub cost: Option<u32>,
    #[serde(default)]
    pub sight: Sight,
    /// Difficult terrain: forbids the `phases` 1-hex step. Other rulesets go by its `cost`
    /// alone (an `alternating` Step of 1 m cannot enter a cell that costs 2 or more).
    #[serde(default)]
    pub difficult: bool,
    /// A door, and in which state (`None`: not a door).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<Door>,
}

fn default_cost() -> Option<u32> {
    Some(1)
}

impl Terrain {
    pub fn passable(&self) -> bool {
        self.cost.is_some()
    }

    /// Its name, with a door's state ("door (shut)"), for lists where kinds of one name
    /// stand side by side (the editor's palette).
    ///
    /// ```
    /// use fray::rules::map::kinds;
    /// assert_eq!(kinds::door_closed().label(), "door (shut)");
    /// assert_eq!(kinds::door_locked().label(), "door (locked)");
    /// assert_eq!(kinds::wall().label(), "wall");
    /// ```
    pub fn label(&self) -> String {
        match self.door {
            Some(Door::Closed) => format!("{} (shut)", self.name),
            Some(Door::Open) => format!("{} (open)", self.name),
            Some(Door::Locked) => format!("{} (locked)", self.name),
            None => self.name.clone(),
        }
    }
}

/// A map's terrain: the grid, the terrain kinds, and one kind index per cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerrainMap {
    grid: Grid,
    kinds: Vec<Terrain>,
    cells: CellMap<u16>,
    /// Cached per-cell sight, for the hot loops of [`crate::rules::sight`].
    sight: CellMap<Sight>,
    /// Cached per-cell entry cost; 0 means impassable.
    cost: CellMap<u32>,
    /// For each kind, the kind an open or closed door becomes when shut or opened.
    counterpart: Vec<Option<u16>>,
    /// The ground's height of each cell, in levels (one level is as high as a cell is wide),
    /// row-major; empty when the map is flat (every cell at 0).
    #[serde(default)]
    heights: Vec<u8>,
}

impl TerrainMap {
    /// Builds a map from its kinds and a kind index per cell (row-major).
    ///
    /// Returns `None` if `cells` is not `grid.len()` long or names a kind that does not exist.
    pub fn new(grid: Grid, kinds: Vec<Terrain>, cells: Vec<u16>) -> Option<Self> {
        if cells.len() != grid.len() || cells.iter().any(|&k| k as usize >= kinds.len()) {
            return None;
        }
        let mut it = cells.iter();
        let cells = CellMap::from_fn(grid.width, grid.height, |_| *it.next().unwrap_or(&0));
        let sight = CellMap::from_fn(grid.width, grid.height, |c| kinds[cells[c] as usize].sight);
        let cost = CellMap::from_fn(grid.width, grid.height, |c| {
            kinds[cells[c] as usize].cost.unwrap_or(0)
        });
        let counterpart = (0..kinds.len())
            .map(|k| counterpart_of(&kinds, k))
            .collect();
        Some(Self {
            grid,
            kinds,
            cells,
            sight,
            cost,
            counterpart,
            heights: Vec::new(),
        })
    }

    /// The map with its ground raised: one height per cell, row-major, in levels (a level is
    /// as high as a cell is wide). `None` if `heights` is not one per cell. All zeros is the
    /// flat map.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::grid::{Cell, Diagonals, Grid, Topology};
    /// use fray::rules::map::{TerrainMap, kinds};
    ///
    /// let grid = Grid::new(Topology::Square { diagonals: Diagonals::One }, 3, 1);
    /// let flat = TerrainMap::filled(grid, kinds::floor());
    /// let rampart = flat.clone().with_heights(vec![0, 1, 2]).unwrap();
    /// assert_eq!(rampart.height(Cell::new(2, 0)), 2);
    /// assert!(flat.is_flat() && !rampart.is_flat());
    /// // Climbing one level costs one more; two levels at once is a cliff.
    /// assert_eq!(rampart.climb(Cell::new(0, 0), Cell::new(1, 0)), Some(1));
    /// assert_eq!(rampart.climb(Cell::new(2, 0), Cell::new(1, 0)), Some(0));
    /// assert_eq!(rampart.climb(Cell::new(0, 0), Cell::new(2, 0)), None);
    /// assert!(flat.clone().with_heights(vec![0, 0]).is_none());
    /// ```
    pub fn with_heights(mut self, heights: Vec<u8>) -> Option<Self> {
        if heights.len() != self.grid.len() {
            return None;
        }
        self.heights = if heights.iter().all(|&h| h == 0) {
            Vec::new()
        } else {
            heights
        };
        Some(self)
    }

    /// Whether every cell's ground is at height 0 (the map has no `heights` layer).
    #[inline]
    pub fn is_flat(&self) -> bool {
        self.heights.is_empty()
    }

    /// The ground's height of a cell in levels; 0 on a flat map or off the map.
    #[inline]
    pub fn height(&self, c: Cell) -> u8 {
        if self.heights.is_empty() || !self.grid.contains(c) {
            return 0;
        }
        self.heights
            .get(c.y as usize * self.grid.width as usize + c.x as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The heights layer, row-major (empty on a flat map).
    pub fn heights(&self) -> &[u8] {
        &self.heights
    }

    /// The highest ground on the map, in levels.
    pub fn max_height(&self) -> u8 {
        self.heights.iter().copied().max().unwrap_or(0)
    }

    /// What a step from `from` to the next cell `to` costs beyond `to`'s terrain, for its
    /// change of height (house rule, every ruleset: the texts give no climbing rule): 1 to
    /// climb one level, nothing to go down one or stay level, and `None` (no step) where the
    /// ground differs by two levels or more: a cliff no one climbs or jumps.
    #[inline]
    pub fn climb(&self, from: Cell, to: Cell) -> Option<u32> {
        let (a, b) = (self.height(from), self.height(to));
        match b as i32 - a as i32 {
            1 => Some(1),
            -1..=0 => Some(0),
            _ => None,
        }
    }

    /// A map where every cell is of one kind.
    pub fn filled(grid: Grid, terrain: Terrain) -> Self {
        let cells = vec![0; grid.len()];
        Self::new(grid, vec![terrain], cells).expect("one kind, every index 0")
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn kinds(&self) -> &[Terrain] {
        &self.kinds
    }

    /// The terrain of an in-bounds cell.
    pub fn terrain(&self, c: Cell) -> Option<&Terrain> {
        self.cells.get(c).map(|&k| &self.kinds[k as usize])
    }

    pub fn kind_index(&self, c: Cell) -> Option<u16> {
        self.cells.get(c).copied()
    }

    /// Changes a cell's kind (the editor and tests use this). Returns `false` and changes
    /// nothing if the cell is out of bounds or the kind does not exist.
    pub fn set_kind(&mut self, c: Cell, kind: u16) -> bool {
        let Some(t) = self.kinds.get(kind as usize) else {
            return false;
        };
        let (sight, cost) = (t.sight, t.cost.unwrap_or(0));
        if !self.cells.set(c, kind) {
            return false;
        }
        self.sight.set(c, sight);
        self.cost.set(c, cost);
        true
    }

    /// Sight of a cell; out of bounds is [`Sight::Opaque`] (the map's edge is a wall).
    #[inline]
    pub fn sight(&self, c: Cell) -> Sight {
        self.sight.get(c).copied().unwrap_or(Sight::Opaque)
    }

    /// The whole sight layer.
    pub fn sight_map(&self) -> &CellMap<Sight> {
        &self.sight
    }

    /// Cost to enter a cell; `None` if impassable or out of bounds.
    #[inline]
    pub fn cost(&self, c: Cell) -> Option<u32> {
        match self.cost.get(c) {
            Some(&0) | None => None,
            Some(&n) => Some(n),
        }
    }

    /// The whole cost layer (0 = impassable).
    pub fn cost_map(&self) -> &CellMap<u32> {
        &self.cost
    }

    pub fn passable(&self, c: Cell) -> bool {
        self.cost(c).is_some()
    }

    pub fn difficult(&self, c: Cell) -> bool {
        self.terrain(c).is_some_and(|t| t.difficult)
    }

    /// The door on a cell and its state (`None`: no door, or out of bounds).
    pub fn door(&self, c: Cell) -> Option<Door> {
        self.terrain(c).and_then(|t| t.door)
    }

    /// The kind a door of kind `kind` becomes when it is opened (if closed) or shut (if
    /// open): the kind of the same name in the other state, else the first kind in the other
    /// state. `None` for a locked door, a kind that is no door, or a door with no counterpart.
    pub fn door_counterpart(&self, kind: u16) -> Option<u16> {
        self.counterpart.get(kind as usize).copied().flatten()
    }

    /// Unlocks the locked door on cell `c`: it becomes a shut door ([`unlocked_kind`]).
    /// Returns `false` and changes nothing if there is no locked door there, or no shut door
    /// kind for it to become.
    pub fn unlock(&mut self, c: Cell) -> bool {
        match self
            .kind_index(c)
            .and_then(|k| unlocked_kind(&self.kinds, usize::from(k)))
        {
            Some(k) => self.set_kind(c, k),
            None => false,
        }
    }

    /// Opens a closed door or shuts an open one on cell `c`. Returns `false` and changes
    /// nothing if there is no such door (or it is locked, or has no counterpart).
    pub fn toggle_door(&mut self, c: Cell) -> bool {
        match self.kind_index(c).and_then(|k| self.door_counterpart(k)) {
            Some(k) => self.set_kind(c, k),
            None => false,
        }
    }
}

/// The kind a locked door of kind `kind` becomes when it is unlocked: the shut door of the
/// same name, else the first shut door of the legend. `None` if `kind` is no locked door or
/// the legend has no shut door.
pub fn unlocked_kind(kinds: &[Terrain], kind: usize) -> Option<u16> {
    if kinds.get(kind)?.door != Some(Door::Locked) {
        return None;
    }
    let shut = |same_name: bool| {
        kinds.iter().position(|t| {
            t.door == Some(Door::Closed) && (!same_name || t.name == kinds[kind].name)
        })
    };
    shut(true)
        .or_else(|| shut(false))
        .and_then(|i| u16::try_from(i).ok())
}

/// See [`TerrainMap::door_counterpart`].
fn counterpart_of(kinds: &[Terrain], k: usize) -> Option<u16> {
    let want = match kinds[k].door? {
        Door::Open => Door::Closed,
        Door::Closed => Door::Open,
        Door::Locked => return None,
    };
    let other = |same_name: bool| {
        kinds
            .iter()
            .position(|t| t.door == Some(want) && (!same_name || t.name == kinds[k].name))
    };
    other(true)
        .or_else(|| other(false))
        .and_then(|i| u16::try_from(i).ok())
}

/// The standard terrain kinds, used by the default legend of levels and by tests.
pub mod kinds {
    use super::{Door, Sight, Terrain};

    fn t(name: &str, cost: Option<u32>, sight: Sight, difficult: bool) -> Terrain {
        Terrain {
            name: name.to_string(),
            cost,
            sight,
            difficult,
            door: None,
        }
    }

    fn door(state: Door) -> Terrain {
        let open = state == Door::Open;
        Terrain {
            door: Some(state),
            ..t(
                "door",
                open.then_some(1),
                if open { Sight::Clear } else { Sight::Opaque },
                false,
            )
        }
    }

    pub fn floor() -> Terrain {
        t("floor", Some(1), Sight::Clear, false)
    }
    pub fn rough() -> Terrain {
        t("rough ground", Some(2), Sight::Clear, true)
    }
    pub fn wall() -> Terrain {
        t("wall", None, Sight::Opaque, false)
    }
    pub fn slit() -> Terrain {
        t("arrow slit", None, Sight::Slit, false)
    }
    pub fn pillar() -> Terrain {
        t("pillar", None, Sight::Opaque, false)
    }
    pub fn water() -> Terrain {
        t("shallow water", Some(2), Sight::Clear, true)
    }
    pub fn trees() -> Terrain {
        t("trees", Some(2), Sight::Opaque, true)
    }
    pub fn rubble() -> Terrain {
        t("rubble", Some(2), Sight::Clear, true)
    }
    /// A closed door: impassable and opaque until opened.
    pub fn door_closed() -> Terrain {
        door(Door::Closed)
    }
    /// An open door: a doorway, passable at cost 1 and clear to sight, that can be shut.
    pub fn door_open() -> Terrain {
        door(Door::Open)
    }
    /// A locked door: a closed door no unit can open.
    pub fn door_locked() -> Terrain {
        door(Door::Locked)
    }
}
