//! Ruleset data: the numbers of each ruleset, read from `assets/rulesets/<id>.ron`.
//!
//! Logic lives in code, numbers live in these files (see `docs/architecture.md`). A file names the
//! grids its ruleset plays on and the unit templates levels may use; a level's unit picks a
//! template by its key and may override single stats.
//!
//! The five built-in files are compiled into the binary with `include_str!` and parsed once, on
//! first use, by [`builtin`]. Nothing here touches the file system.
//!
//! # Stat conventions
//! `stats` keys are ruleset-specific (each file documents its own in its header comment), but a
//! few keys mean the same thing everywhere so that the AI and the view can read them without
//! knowing the ruleset:
//! - `range`: the normal range of the unit's ranged attack, in cells; absent or 0 means the
//!   unit has no ranged attack. `long_range`, where present, is the maximum range.
//! - `damage_dice`, `damage_die`, `damage_bonus`: the melee damage roll `NdS+B`;
//!   `ranged_damage_dice`, `ranged_damage_die`, `ranged_damage_bonus`: the ranged one.
//!
//! Where a seed is silent the file says what it assumed in `house_rules`.

use crate::rules::grid::{Diagonals, Topology};
use crate::rules::rulesets::RulesetId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The silhouettes the game has sprites for. A template's `silhouette` is one of these.
pub const SILHOUETTES: [&str; 6] = [
    "soldier",
    "archer",
    "brute",
    "caster",
    "skirmisher",
    "beast",
];

/// A family of grids, without the details a level picks (diagonal rule, hex orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TopologyKind {
    Square,
    Hex,
}

impl TopologyKind {
    /// The kind of a concrete topology.
    pub fn of(topology: Topology) -> Self {
        match topology {
            Topology::Square { .. } => TopologyKind::Square,
            Topology::Hex { .. } => TopologyKind::Hex,
        }
    }

    /// "square" or "hex".
    pub fn describe(self) -> &'static str {
        match self {
            TopologyKind::Square => "square",
            TopologyKind::Hex => "hex",
        }
    }
}

/// One ruleset's data file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesetData {
    /// The id levels name in `ruleset: "..."`; equals the file name.
    pub id: String,
    /// A display name.
    pub name: String,
    /// One or two sentences for the setup screen.
    #[serde(default)]
    pub description: String,
    /// The grid families this ruleset plays on; a level on any other grid is rejected.
    pub topologies: Vec<TopologyKind>,
    /// On square grids, the diagonal rules the ruleset allows. Empty means any.
    /// (`alternating` requires `OneTwo`: "treat every second diagonal space moved as 2m".)
    #[serde(default)]
    pub square_diagonals: Vec<Diagonals>,
    /// What the file assumes where the seed says nothing, each marked as a house rule.
    #[serde(default)]
    pub house_rules: Vec<String>,
    /// Unit templates by key (the key is what a level's `template:` names).
    pub templates: BTreeMap<String, Template>,
    /// The rules reference: every action, reaction and condition in Fray's words
    /// ([`crate::rules::reference`]).
    #[serde(default)]
    pub reference: Vec<crate::rules::reference::Entry>,
    /// Items units may carry, ready, drop and pick up, and levels may leave on cells, by key
    /// (what a level's `items:` and a unit's `items:` name). Empty: the ruleset has no items.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub items: BTreeMap<String, ItemDef>,
    /// The stats a unit armed by its items fights with when its hands hold no weapon (a unit
    /// whose template or level entry lists `items`): laid over its template's stats before
    /// the overlays of the items in its hands.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unarmed: BTreeMap<String, i64>,
}

/// What an item is, for the rules that price handling it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ItemKind {
    /// A hand weapon or anything else held (a sword, a shield, a torch).
    #[default]
    Weapon,
    /// A bow: an arrow is nocked after each shot (`sides` S-94).
    Bow,
    /// A crossbow: reloaded after each shot (`sides` S-38, S-93).
    Crossbow,
    /// A gun: reloaded after its shots (`phases` P-70).
    Gun,
    /// A focus: the object a power comes from (`phases` P-67, P-82).
    Focus,
    /// A heavy object lying on a cell: no one can carry it or walk through its cell, but it
    /// can be shifted (`phases` P-77).
    Heavy,
}

/// One kind of item (see [`RulesetData::items`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemDef {
    /// What the log, the tooltip and the menu call it ("crossbow").
    pub name: String,
    #[serde(default)]
    pub kind: ItemKind,
    /// Hands it takes when held (a unit has two).
    #[serde(default = "one_hand")]
    pub hands: u8,
    /// The stats it gives while held, laid over the unit's own (`{"damage_die": 8}`; a bow's
    /// `range`, `ranged_damage_die`...).
    #[serde(default)]
    pub stats: BTreeMap<String, i64>,
    /// Shots it holds when loaded; 0: it never needs reloading.
    #[serde(default)]
    pub ammo: u8,
}

fn one_hand() -> u8 {
    1
}

/// How many hands a unit has to hold items with.
pub const HANDS: u8 = 2;

impl RulesetData {
    /// Whether a level may use this topology with this ruleset.
    pub fn allows(&self, topology: Topology) -> bool {
        if !self.topologies.contains(&TopologyKind::of(topology)) {
            return false;
        }
        match topology {
            Topology::Square { diagonals } => {
                self.square_diagonals.is_empty() || self.square_diagonals.contains(&diagonals)
            }
            Topology::Hex { .. } => true,
        }
    }

    pub fn template(&self, key: &str) -> Option<&Template> {
        self.templates.get(key)
    }
}

/// A kind of unit a level can place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// A display name ("Sword-and-board warrior").
    pub name: String,
    /// Which sprite the game draws: one of [`SILHOUETTES`].
    pub silhouette: String,
    /// Cells per turn (or per phase / per move action) as the ruleset measures movement.
    pub movement: u32,
    /// Melee reach in steps ([`crate::rules::grid::Grid::distance_steps`]); 1 is adjacent.
    #[serde(default = "default_reach")]
    pub reach: u32,
    /// Ruleset-specific numbers (see the file's header comment and the module docs).
    #[serde(default)]
    pub stats: BTreeMap<String, i64>,
    /// Items its units carry into battle (keys of the ruleset's `items`), held while its
    /// hands allow, in order, the rest at the belt. A level's unit may list its own instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

fn default_reach() -> u32 {
    1
}

impl Template {
    /// A stat, or `None` if the template does not have it.
    pub fn stat(&self, key: &str) -> Option<i64> {
        self.stats.get(key).copied()
    }
}

/// Parses a ruleset file.
pub fn parse(source: &str) -> Result<RulesetData, ron::error::SpannedError> {
    ron::from_str(source)
}

type Parsed = Vec<(RulesetId, Result<RulesetData, String>)>;

fn parsed() -> &'static Parsed {
    static DATA: OnceLock<Parsed> = OnceLock::new();
    DATA.get_or_init(|| {
        RulesetId::ALL
            .iter()
            .map(|&id| {
                let data = parse(id.data_source()).map_err(|e| format!("{id}.ron:{e}"));
                (id, data)
            })
            .collect()
    })
}

/// The built-in ruleset with this id, parsed once. `None` for an unknown id (and, should a
/// built-in file ever fail to parse, for that id too; [`builtin_errors`] says why).
pub fn builtin(id: RulesetId) -> Option<&'static RulesetData> {
    parsed()
        .iter()
        .find(|(key, _)| *key == id)
        .and_then(|(_, data)| data.as_ref().ok())
}

/// Every built-in ruleset that parsed, in [`RulesetId::ALL`] order.
pub fn all() -> impl Iterator<Item = &'static RulesetData> {
    parsed().iter().filter_map(|(_, data)| data.as_ref().ok())
}

/// Parse errors of the built-in files (empty when all is well; a test checks that).
pub fn builtin_errors() -> Vec<String> {
    parsed()
        .iter()
        .filter_map(|(_, data)| data.as_ref().err().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::grid::HexOrientation;

    #[test]
    fn all_five_parse() {
        assert_eq!(builtin_errors(), Vec::<String>::new());
        for &id in RulesetId::ALL {
            let data = builtin(id).unwrap_or_else(|| panic!("{id} did not load"));
            assert_eq!(data.id, id.as_str(), "the id inside {id}.ron");
        }
        assert_eq!(all().count(), RulesetId::ALL.len());
    }

    #[test]
    fn templates_are_sound() {
        for data in all() {
            assert!(
                !data.name.is_empty() && !data.description.is_empty(),
                "{}",
                data.id
            );
            assert!(!data.topologies.is_empty(), "{}", data.id);
            let n = data.templates.len();
            assert!((4..=6).contains(&n), "{} has {n} templates", data.id);
            for (key, t) in &data.templates {
                let here = format!("{}/{key}", data.id);
                assert!(
                    SILHOUETTES.contains(&t.silhouette.as_str()),
                    "{here}: silhouette"
                );
                assert!(t.movement >= 1, "{here}: movement");
                assert!(t.reach >= 1, "{here}: reach");
                for stat in RulesetId::parse(&data.id).map_or(&[][..], |id| id.required_stats()) {
                    assert!(t.stats.contains_key(*stat), "{here} lacks {stat}");
                }
                if let Some(range) = t.stat("range") {
                    assert!(range > 0, "{here}: range");
                    if let Some(long) = t.stat("long_range") {
                        assert!(long >= range, "{here}: long_range");
                    }
                }
            }
            // A roster of one shape would make a dull battle and a confusing board.
            let kinds: std::collections::BTreeSet<_> =
                data.templates.values().map(|t| &t.silhouette).collect();
            assert!(kinds.len() >= 4, "{} silhouettes: {kinds:?}", data.id);
        }
    }

    #[test]
    fn grids_follow_the_seeds() {
        let hex = Topology::Hex {
            orientation: HexOrientation::Pointy,
        };
        let flat = Topology::Hex {
            orientation: HexOrientation::Flat,
        };
        let sq = |diagonals| Topology::Square { diagonals };
        let get = |id| builtin(id).unwrap_or_else(|| panic!("{id}"));
        use RulesetId::*;
        assert!(get(Phases).allows(hex) && get(Phases).allows(flat));
        assert!(!get(Phases).allows(sq(Diagonals::One)));
        for id in [Sides, Segments, ActionPoints] {
            assert!(get(id).allows(sq(Diagonals::One)), "{id}");
            assert!(!get(id).allows(hex), "{id}");
        }
        assert!(get(Alternating).allows(sq(Diagonals::OneTwo)));
        assert!(!get(Alternating).allows(sq(Diagonals::One)));
        assert!(!get(Alternating).allows(hex));
    }

    #[test]
    fn seeds_silent_on_damage_say_so() {
        for id in [
            RulesetId::Phases,
            RulesetId::Segments,
            RulesetId::ActionPoints,
        ] {
            let data = builtin(id).unwrap_or_else(|| panic!("{id}"));
            assert!(
                data.house_rules.iter().any(|r| r.starts_with("House rule")),
                "{id} must document its house rules"
            );
        }
    }
}
