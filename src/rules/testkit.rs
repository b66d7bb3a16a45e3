//! The shared test kit of the rules (`#[cfg(test)]` only): small battles from an inline map,
//! running and rejecting commands, rolls by purpose, and command shorthands. Every ruleset's
//! tests build on it instead of carrying their own copies.
//!
//! ```ignore
//! let level = Field::new(RulesetId::Sides).units(r#"(name: "A", side: "Party", ...)"#).level();
//! let (mut b, _) = BattleState::start(&level, 1);
//! let events = run(&mut b, attack(U0, U1));
//! reject(&mut b, mv(U0, 9, 9), "off the map");
//! ```

use crate::rules::battle::{
    Action, BattleState, Command, Decision, Event, Intent, Purpose, Reaction, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::level::{self, Level};
use crate::rules::rulesets::RulesetId;

/// Units by their place in a test level's `units` list.
pub const U0: UnitId = UnitId(0);
pub const U1: UnitId = UnitId(1);
pub const U2: UnitId = UnitId(2);
pub const U3: UnitId = UnitId(3);

/// A small test level, written as the RON a designer would write. By default an 8 × 5 open
/// field on the ruleset's first grid, sides "Heroes" (Human) and "Foes" (Ai).
#[derive(Clone, Debug)]
pub struct Field {
    ruleset: RulesetId,
    topology: String,
    map: Vec<String>,
    sides: String,
    units: String,
    options: String,
    events: String,
    items: String,
}

impl Field {
    pub fn new(ruleset: RulesetId) -> Self {
        let topology = crate::rules::ruleset_data::builtin(ruleset)
            .and_then(|d| d.topologies.first().copied())
            .map_or("Square(diagonals: One)", |k| match k {
                crate::rules::ruleset_data::TopologyKind::Hex => "Hex(orientation: Pointy)",
                crate::rules::ruleset_data::TopologyKind::Square => "",
            });
        let topology = if topology.is_empty() {
            // The square rule the ruleset plays with first.
            let d = crate::rules::ruleset_data::builtin(ruleset)
                .and_then(|d| d.square_diagonals.first().copied())
                .unwrap_or(crate::rules::grid::Diagonals::One);
            format!("Square(diagonals: {d:?})")
        } else {
            topology.to_string()
        };
        Self {
            ruleset,
            topology,
            map: vec!["........".to_string(); 5],
            sides: r#"(name: "Heroes", controller: Human), (name: "Foes", controller: Ai)"#
                .to_string(),
            units: String::new(),
            options: String::new(),
            events: String::new(),
            items: String::new(),
        }
    }

    /// The grid, as a level's `topology` (`"Hex(orientation: Flat)"`).
    pub fn topology(mut self, topology: &str) -> Self {
        self.topology = topology.to_string();
        self
    }

    /// The map rows (one glyph a cell).
    pub fn map(mut self, rows: &[&str]) -> Self {
        self.map = rows.iter().map(|r| r.to_string()).collect();
        self
    }

    /// The sides, as RON entries of the level's `sides` list.
    pub fn sides(mut self, sides: &str) -> Self {
        self.sides = sides.to_string();
        self
    }

    /// The units, as RON entries of the level's `units` list.
    pub fn units(mut self, units: &str) -> Self {
        self.units = units.to_string();
        self
    }

    /// The level's scripted `events`, as RON entries of its `events` list.
    pub fn events(mut self, events: &str) -> Self {
        self.events = events.to_string();
        self
    }

    /// The items the level leaves on cells, as RON entries of its `items` list.
    pub fn items(mut self, items: &str) -> Self {
        self.items = items.to_string();
        self
    }

    /// The level's `options` (the inside of its parentheses).
    pub fn options(mut self, options: &str) -> Self {
        self.options = options.to_string();
        self
    }

    /// The level's text.
    pub fn source(&self) -> String {
        let rows: Vec<String> = self.map.iter().map(|r| format!("\"{r}\"")).collect();
        format!(
            "(\n    name: \"Test field\",\n    ruleset: \"{}\",\n    topology: {},\n    \
             size: ({}, {}),\n    map: [{}],\n    sides: [{}],\n    units: [{}],\n    \
             options: ({}),\n    events: [{}],\n    items: [{}],\n)",
            self.ruleset,
            self.topology,
            self.map.first().map_or(0, |r| r.chars().count()),
            self.map.len(),
            rows.join(", "),
            self.sides,
            self.units,
            self.options,
            self.events,
            self.items
        )
    }

    /// The level; panics with the validator's problems if it does not load.
    pub fn level(&self) -> Level {
        match level::load("field.ron", &self.source()) {
            Ok(l) => l,
            Err(d) => panic!("{d:?}\n{}", self.source()),
        }
    }

    /// A battle on the level with `seed`, and its opening events.
    pub fn start(&self, seed: u64) -> (BattleState, Vec<Event>) {
        BattleState::start(&self.level(), seed)
    }
}

/// A shipped level of `levels/`.
pub fn load(name: &str) -> Level {
    let path = crate::repo_dir().join("levels").join(name);
    match level::load_path(&path) {
        Ok(l) => l,
        Err(d) => panic!("{name}: {d:?}"),
    }
}

/// The file names of every shipped level in `levels/`, sorted.
pub fn shipped_levels() -> Vec<String> {
    let dir = crate::repo_dir().join("levels");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    names
}

/// Executes `cmd`, which must be accepted; its events.
pub fn run(b: &mut BattleState, cmd: Command) -> Vec<Event> {
    match b.execute(&cmd) {
        Ok(e) => e,
        Err(r) => panic!("{cmd:?} rejected: {r}"),
    }
}

/// `cmd` must be rejected with a reason containing `why`, and leave the battle exactly as it
/// was (compared in full, serialized).
pub fn reject(b: &mut BattleState, cmd: Command, why: &str) {
    let before = ron::to_string(b).expect("ron");
    match b.execute(&cmd) {
        Ok(_) => panic!("{cmd:?} accepted"),
        Err(r) => assert!(r.reason.contains(why), "{cmd:?}: {}", r.reason),
    }
    assert_eq!(ron::to_string(b).expect("ron"), before, "{cmd:?}");
}

/// The rolls made for `purpose`, as (total, against).
pub fn rolls(events: &[Event], purpose: Purpose) -> Vec<(i64, Option<i64>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled {
                purpose: p,
                total,
                against,
                ..
            } if *p == purpose => Some((*total, *against)),
            _ => None,
        })
        .collect()
}

/// The dice expressions rolled for `purpose` ("1d20+3").
pub fn rolled_exprs(events: &[Event], purpose: Purpose) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled {
                purpose: p, expr, ..
            } if *p == purpose => Some(expr.clone()),
            _ => None,
        })
        .collect()
}

/// A unit's pool (`"hp"`, `"ap"`...), 0 if it has none.
pub fn pool(b: &BattleState, u: UnitId, name: &str) -> i64 {
    b.units[u.index()].pool(name)
}

// --- Command shorthands

pub fn attack(unit: UnitId, target: UnitId) -> Command {
    Command::Attack {
        unit,
        target,
        ranged: false,
    }
}

pub fn shoot(unit: UnitId, target: UnitId) -> Command {
    Command::Attack {
        unit,
        target,
        ranged: true,
    }
}

pub fn mv(unit: UnitId, x: i32, y: i32) -> Command {
    Command::Move {
        unit,
        to: Cell::new(x, y),
    }
}

pub fn act(unit: UnitId, action: Action) -> Command {
    Command::Act { unit, action }
}

pub fn end(unit: UnitId) -> Command {
    Command::EndTurn { unit }
}

pub fn pick(unit: UnitId) -> Command {
    Command::Pick { unit }
}

pub fn react(unit: UnitId, reaction: Reaction) -> Command {
    Command::React { unit, reaction }
}

pub fn decline(unit: UnitId) -> Command {
    react(unit, Reaction::Decline)
}

#[test]
fn a_field_is_a_valid_level_of_its_ruleset() {
    for &id in RulesetId::ALL {
        let unit = crate::rules::ruleset_data::builtin(id)
            .and_then(|d| d.templates.keys().next().cloned())
            .expect("a template");
        let level = Field::new(id)
            .units(&format!(
                r#"(name: "A", side: "Heroes", template: "{unit}", cell: (1, 1)),
                   (name: "B", side: "Foes", template: "{unit}", cell: (6, 3))"#
            ))
            .level();
        assert_eq!(level.file.ruleset, id);
        assert_eq!(level.file.units.len(), 2);
    }
}

/// Plays the battle until the hero (unit 0) must act: the foe ends its turns, the hero is picked
/// first and declares Melee, reactions are declined.
pub fn to_hero(b: &mut BattleState) {
    for _ in 0..50 {
        let cmd = match b.pending() {
            Decision::Act { unit } if unit == U0 => return,
            Decision::Act { unit } => Command::EndTurn { unit },
            Decision::Pick { options, .. } => Command::Pick {
                unit: if options.contains(&U0) {
                    U0
                } else {
                    options[0]
                },
            },
            Decision::Declare { unit, .. } => Command::Declare {
                unit,
                intent: Intent::Melee,
            },
            Decision::React { unit, .. } => Command::React {
                unit,
                reaction: Reaction::Decline,
            },
            Decision::Over { .. } => panic!("the battle ended"),
        };
        run(b, cmd);
    }
    panic!("the hero never got to act: {:?}", b.pending());
}

/// What dice rolled over many tries gave, to check a ruleset's odds against
/// ([`odds_agree`]).
pub struct Tally {
    /// Attacks that hit, of `tries` attacks rolled.
    pub hits: f64,
    pub tries: f64,
    /// Damage dealt in all, over `battles` battles.
    pub damage: f64,
    pub battles: f64,
}

/// Checks the odds `o` against dice: the hit rate within four standard errors of `o.hit`
/// (plus `hit_slack`), the mean damage a battle within `rel` of `o.expected_damage` plus
/// `abs`. `what` names the case in a failure.
pub fn odds_agree(
    o: &crate::rules::rulesets::Odds,
    t: Tally,
    hit_slack: f64,
    (rel, abs): (f64, f64),
    what: &str,
) {
    let rate = t.hits / t.tries;
    let mean = t.damage / t.battles;
    let tol = 4.0 * (o.hit * (1.0 - o.hit) / t.tries).sqrt() + hit_slack;
    assert!(
        (rate - o.hit).abs() < tol,
        "{what}: hit rate {rate} vs odds {}",
        o.hit
    );
    assert!(
        (mean - o.expected_damage).abs() < rel * o.expected_damage + abs,
        "{what}: mean damage {mean} vs odds {} ({})",
        o.expected_damage,
        o.formula
    );
}
