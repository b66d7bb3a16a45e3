//! Levels: the RON schema designers write in `levels/*.ron`, and its validation.
//!
//! (Schema types fixed here; loading and `validate()` are being built.)

use crate::rules::grid::Topology;
use crate::rules::map::Terrain;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A level file exactly as written in RON. See `levels/README.md` for every field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Ruleset id: `phases`, `sides`, `segments`, `alternating` or `action-points`.
    pub ruleset: String,
    pub topology: Topology,
    /// `(width, height)` in cells; must match `map`.
    pub size: (u32, u32),
    /// Glyph → terrain, merged over the standard legend (a glyph here replaces the standard one).
    #[serde(default)]
    pub legend: BTreeMap<char, Terrain>,
    /// One string per row, one glyph per cell, top row first.
    pub map: Vec<String>,
    pub sides: Vec<SideDef>,
    pub units: Vec<UnitDef>,
    /// Any one condition met ends the battle. Empty means `[LastSideStanding]`.
    #[serde(default)]
    pub victory: Vec<Victory>,
    /// Default battle seed (the command line or the setup screen may override it).
    #[serde(default)]
    pub seed: u64,
}

/// Who plays a side by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Controller {
    Human,
    Ai,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideDef {
    pub name: String,
    pub controller: Controller,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitDef {
    pub name: String,
    /// The name of one of the level's sides.
    pub side: String,
    /// `(x, y)`: column and row in `map`, from 0 at the top left.
    pub cell: (i32, i32),
    /// A template from `assets/rulesets/<ruleset>.ron`.
    pub template: String,
    /// Stat overrides on top of the template (`{"hp": 12}`).
    #[serde(default)]
    pub overrides: BTreeMap<String, i64>,
}

/// How a battle can be won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Victory {
    /// The last side with a unit able to fight wins.
    LastSideStanding,
    /// `side` wins if it still has a unit able to fight after `rounds` rounds.
    SurviveRounds { side: String, rounds: u32 },
    /// `side` wins as soon as one of its units stands on `cell`.
    ReachCell { side: String, cell: (i32, i32) },
}
