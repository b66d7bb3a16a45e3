//! The battle engine: a [`BattleState`] built from a level, driven by [`Command`]s, changed only
//! by [`Event`]s.
//!
//! The flow (see `docs/architecture.md`):
//! - [`BattleState::pending`] is the one [`Decision`] the battle waits for;
//!   [`BattleState::legal_commands`] lists the commands that answer it.
//! - [`BattleState::check`] rejects a command with a reason and changes nothing.
//! - [`BattleState::execute`] checks the command, then decides what happens and returns the
//!   events; each event is applied through [`BattleState::apply`] the moment it is decided, so
//!   later steps of the same command see its effects.
//! - [`BattleState::apply`] is the only place that changes units, turn order or ruleset state.
//!   The one exception is the battle's random number generator, which `execute` advances as it
//!   rolls; every roll is reported as an [`Event::Rolled`].
//!
//! Interrupts are decisions: a step out of a threatened cell pushes an [`Interrupt`] and asks
//! each reactor in turn; when the last has answered, the ruleset runs the interrupt's
//! [`Resume`] continuation within the same `execute` call.
//!
//! Rulesets live in [`crate::rules::rulesets`]; this module holds what they share.

pub mod common;
pub mod ids;
pub mod items;
pub mod log;
pub mod script;
pub mod types;

pub use ids::{Names, PerUnit, SideId, UnitId, with_names};
pub use items::{Carried, Ground, Place};
pub use script::{Script, Scripted};
pub use types::*;

use crate::rules::dice::BattleRng;
use crate::rules::grid::{Cell, Grid};
use crate::rules::level::{Controller, Level, LevelFile, UnitDef, Victory};
use crate::rules::map::TerrainMap;
use crate::rules::ruleset_data::{self, RulesetData};
use crate::rules::rulesets::{self, RulesState};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One unit in battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// Shared text, as the pool keys: a clone of the battle copies no strings.
    pub name: Arc<str>,
    pub side: SideId,
    /// The template key in the ruleset file.
    pub template: Arc<str>,
    pub cell: Cell,
    /// The stats the rules read ([`Unit::stat`]): [`Unit::base`] with the stats of what it
    /// holds laid over them ([`Unit::refit`]). Shared by every copy of the state (the AI
    /// clones the battle thousands of times per decision) until its items change.
    pub stats: Arc<BTreeMap<String, i64>>,
    /// The template's stats with the level's overrides, fixed for the battle.
    #[serde(default)]
    pub base: Arc<BTreeMap<String, i64>>,
    /// The items it carries (in hand, at the belt, in the pack), in the order it got them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Carried>,
    /// Whether its weapons are its items: its template or level entry lists items, so with
    /// nothing in hand it fights with the ruleset's `unarmed` stats.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub armed_by_items: bool,
    /// Movement per move action (the template's `movement`).
    pub movement: u32,
    /// Melee reach in steps.
    pub reach: u32,
    pub status: Status,
    /// Current values of resource pools (hp, stamina, ap...), keyed by the ruleset's names.
    /// Keys share their text (`Arc<str>`): the AI clones the battle thousands of times per
    /// decision, and a `String` key was an allocation per pool per unit per clone.
    pub pools: BTreeMap<Arc<str>, i64>,
    pub conditions: BTreeSet<Condition>,
}

impl Unit {
    /// A unit as the level writes it (`def`), on `side`: its template's stats with its
    /// overrides, full of nothing yet (its ruleset fills its pools).
    pub fn from_def(def: &UnitDef, side: SideId, data: Option<&RulesetData>) -> Unit {
        let template = data.and_then(|d| d.templates.get(&def.template));
        let mut stats = template.map(|t| t.stats.clone()).unwrap_or_default();
        stats.extend(def.overrides.iter().map(|(k, v)| (k.clone(), *v)));
        let keys = match (&def.items, template) {
            (own, _) if !own.is_empty() => own.as_slice(),
            (_, Some(t)) => t.items.as_slice(),
            _ => &[],
        };
        let base = Arc::new(stats);
        let mut unit = Unit {
            name: def.name.as_str().into(),
            side,
            template: def.template.as_str().into(),
            cell: Cell::new(def.cell.0, def.cell.1),
            stats: base.clone(),
            base,
            items: items::kit(keys, data),
            armed_by_items: !keys.is_empty(),
            movement: template.map_or(1, |t| t.movement),
            reach: template.map_or(1, |t| t.reach.max(1)),
            status: Status::Active,
            pools: BTreeMap::new(),
            conditions: BTreeSet::new(),
        };
        unit.refit(data);
        unit
    }

    /// A stat, 0 if the unit has none of that name.
    pub fn stat(&self, key: &str) -> i64 {
        self.stats.get(key).copied().unwrap_or(0)
    }

    /// A pool's current value, 0 if the unit has no such pool.
    pub fn pool(&self, key: &str) -> i64 {
        self.pools.get(key).copied().unwrap_or(0)
    }

    pub fn is_active(&self) -> bool {
        self.status == Status::Active
    }

    pub fn has(&self, c: &Condition) -> bool {
        self.conditions.contains(c)
    }

    pub fn is_prone(&self) -> bool {
        self.has(&Condition::Prone)
    }
}

/// One side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub name: String,
    pub controller: Controller,
}

/// How the battle ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` is a draw.
    pub winner: Option<SideId>,
    pub reason: String,
}

/// The whole state of a battle. Cloning is cheap enough for AI look-ahead: the map and the
/// level are shared.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BattleState {
    pub level: Arc<LevelFile>,
    pub terrain: Arc<TerrainMap>,
    pub units: Vec<Unit>,
    pub sides: Vec<Side>,
    /// The round (turn, in `phases`) being played; 0 before the first starts.
    pub round: u32,
    pub rng: BattleRng,
    /// Reactions being asked for, innermost last.
    pub interrupts: Vec<Interrupt>,
    pub rules: RulesState,
    pub outcome: Option<Outcome>,
    /// Events applied so far.
    pub applied: u64,
    /// What each side knows, on a level with fog of war ([`crate::rules::fog`]); shared by
    /// copies until it changes.
    #[serde(default)]
    pub fog: Option<Arc<crate::rules::fog::Knowledge>>,
    /// Which of the level's scripted events have fired ([`script`]).
    #[serde(default)]
    pub script: Script,
    /// Items lying on cells ([`items`]); shared by copies until one is dropped, picked up or
    /// shifted.
    #[serde(default)]
    pub ground: Ground,
}

impl BattleState {
    /// Starts a battle on a valid level with its ruleset, seeded with `seed`. Returns the
    /// state and the opening events (initiative, surprise...).
    pub fn start(level: &Level, seed: u64) -> (BattleState, Vec<Event>) {
        Self::start_with_rng(level, BattleRng::new(seed))
    }

    /// Starts a battle whose first dice are forced by `tape` (tests and worked examples).
    pub fn start_with_tape(
        level: &Level,
        seed: u64,
        tape: impl IntoIterator<Item = u32>,
    ) -> (BattleState, Vec<Event>) {
        Self::start_with_rng(level, BattleRng::with_tape(seed, tape))
    }

    fn start_with_rng(level: &Level, rng: BattleRng) -> (BattleState, Vec<Event>) {
        let file = &level.file;
        let sides: Vec<Side> = file
            .sides
            .iter()
            .map(|s| Side {
                name: s.name.clone(),
                controller: s.controller,
            })
            .collect();
        let units = file
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let side = SideId(level.unit_side(i).unwrap_or(0) as u8);
                Unit::from_def(u, side, Some(level.ruleset))
            })
            .collect();
        let seed = rng.seed();
        let mut state = BattleState {
            level: Arc::new(file.clone()),
            terrain: Arc::new(level.terrain.clone()),
            units,
            sides,
            round: 0,
            rng,
            interrupts: Vec::new(),
            rules: rulesets::init(file.ruleset),
            outcome: None,
            applied: 0,
            fog: None,
            script: Script::new(file.events.len()),
            ground: items::ground_of(file),
        };
        state.fog = crate::rules::fog::start(&state);
        let events = {
            let mut x = Exec::new(&mut state);
            x.emit(Event::Started {
                ruleset: file.ruleset.to_string(),
                seed,
            });
            rulesets::start(&mut x);
            script::fire(&mut x);
            x.events
        };
        (state, events)
    }

    /// The ruleset's data file.
    pub fn ruleset(&self) -> Option<&'static RulesetData> {
        ruleset_data::builtin(self.level.ruleset)
    }

    pub fn grid(&self) -> &Grid {
        self.terrain.grid()
    }

    pub fn unit(&self, id: UnitId) -> Option<&Unit> {
        self.units.get(id.index())
    }

    /// A unit's name, for log lines and views; an id not in this battle shows as the id.
    pub fn unit_name(&self, id: UnitId) -> Cow<'_, str> {
        self.unit(id)
            .map_or_else(|| Cow::Owned(id.to_string()), |u| Cow::Borrowed(&*u.name))
    }

    /// Whether the level's `options.surprised` names this unit, or its side.
    pub fn named_surprised(&self, id: UnitId) -> bool {
        let Some(unit) = self.unit(id) else {
            return false;
        };
        let side = self.sides.get(unit.side.index()).map(|x| x.name.as_str());
        self.level
            .options
            .surprised
            .iter()
            .any(|n| **n == *unit.name || Some(n.as_str()) == side)
    }

    /// Every unit id, in order.
    pub fn unit_ids(&self) -> impl Iterator<Item = UnitId> + use<> {
        (0..self.units.len()).map(|i| UnitId(i as u16))
    }

    /// The names ids may be written as (scenarios, replays).
    pub fn names(&self) -> Names {
        Names {
            units: self.units.iter().map(|u| u.name.to_string()).collect(),
            sides: self.sides.iter().map(|s| s.name.clone()).collect(),
        }
    }

    /// `{:?}` of a command, action or reaction with its units and sides by name, for messages:
    /// `Attack { unit: "Mira", target: "Tobin", .. }` rather than `UnitId(0)`.
    pub fn show(&self, value: &impl std::fmt::Debug) -> String {
        with_names(self.names(), || format!("{value:?}"))
    }

    /// The decision the battle waits for.
    pub fn pending(&self) -> Decision {
        if let Some(o) = &self.outcome {
            return Decision::Over { winner: o.winner };
        }
        if let Some(i) = self.interrupts.last()
            && let Some(&unit) = i.reactors.first()
        {
            return Decision::React {
                unit,
                trigger: i.trigger.clone(),
            };
        }
        rulesets::pending(self)
    }

    /// Every command that answers the pending decision. Moves are listed to every reachable
    /// cell; the list is in a fixed order.
    pub fn legal_commands(&self) -> Vec<Command> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut legal = rulesets::legal(self);
        if self.fog.is_some() {
            legal.retain(|c| crate::rules::fog::check(self, c).is_ok());
        }
        legal
    }

    /// Whether `cmd` may be executed now; the reason if not. Never changes anything.
    pub fn check(&self, cmd: &Command) -> Result<(), Rejected> {
        if let Some(o) = &self.outcome {
            return Err(Rejected::new(format!("the battle is over: {}", o.reason)));
        }
        let unit = cmd.unit();
        if self.unit(unit).is_none() {
            return Err(Rejected::new(format!("there is no {unit}")));
        }
        let decision = self.pending();
        match (&decision, cmd) {
            (Decision::React { unit: r, .. }, Command::React { unit, .. }) if r == unit => {}
            (Decision::React { unit: r, .. }, _) => {
                return Err(Rejected::new(format!(
                    "{} must first decide whether to react",
                    self.units[r.index()].name
                )));
            }
            (_, Command::React { .. }) => {
                return Err(Rejected::new("nothing to react to now"));
            }
            _ => {}
        }
        crate::rules::fog::check(self, cmd).map_err(Rejected::new)?;
        rulesets::check(self, cmd)
    }

    /// Checks and executes `cmd`; returns the events it caused, or the rejection (and then
    /// nothing changed).
    pub fn execute(&mut self, cmd: &Command) -> Result<Vec<Event>, Rejected> {
        self.check(cmd)?;
        let mut x = Exec::new(self);
        rulesets::execute(&mut x, cmd);
        script::fire(&mut x);
        Ok(x.events)
    }

    /// Applies one event: the only mutator of the battle.
    pub fn apply(&mut self, e: &Event) {
        self.apply_event(e);
        if self.fog.is_some() && crate::rules::fog::changes_knowledge(e) {
            crate::rules::fog::update(self);
        }
    }

    fn apply_event(&mut self, e: &Event) {
        self.applied += 1;
        match e {
            Event::Started { .. } => {}
            Event::Rolled { .. }
            | Event::Attacked { .. }
            | Event::Reckoned { .. }
            | Event::Blocked { .. }
            | Event::Spotted { .. } => {}
            Event::RoundStarted { round } => self.round = *round,
            Event::RoundEnded { .. } | Event::TurnStarted { .. } | Event::TurnEnded { .. } => {}
            Event::Moved { unit, to, .. } | Event::Placed { unit, to } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    u.cell = *to;
                }
                script::entered(self, *unit, *to);
            }
            Event::Scripted(e) => script::apply(self, e),
            Event::Door { cell, open, .. } => {
                let shut = self.terrain.door(*cell) != Some(crate::rules::map::Door::Open);
                if shut == *open {
                    Arc::make_mut(&mut self.terrain).toggle_door(*cell);
                }
            }
            Event::Unlocked { cell, .. } => {
                if self.terrain.door(*cell) == Some(crate::rules::map::Door::Locked) {
                    Arc::make_mut(&mut self.terrain).unlock(*cell);
                }
            }
            Event::Pool {
                unit, pool, value, ..
            } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    match u.pools.get_mut(pool.as_str()) {
                        Some(v) => *v = *value,
                        None => {
                            u.pools.insert(Arc::from(pool.as_str()), *value);
                        }
                    }
                }
            }
            Event::Status { unit, status } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    u.status = *status;
                }
            }
            Event::Condition {
                unit,
                condition,
                on,
            } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    if *on {
                        u.conditions.insert(condition.clone());
                    } else {
                        u.conditions.remove(condition);
                    }
                }
            }
            Event::Interrupted(i) => self.interrupts.push(i.clone()),
            Event::Reacted { unit, .. } => {
                if let Some(i) = self.interrupts.last_mut() {
                    i.reactors.retain(|r| r != unit);
                }
            }
            Event::Resumed => {
                self.interrupts.pop();
            }
            Event::Carried { .. }
            | Event::Dropped { .. }
            | Event::PickedUp { .. }
            | Event::Loaded { .. }
            | Event::Shifted { .. } => self.apply_item(e),
            Event::Rules(r) => rulesets::apply(&mut self.rules, r),
            Event::Ended { winner, reason } => {
                self.outcome = Some(Outcome {
                    winner: *winner,
                    reason: reason.clone(),
                })
            }
        }
    }

    /// Units of `side` still able to fight.
    pub fn standing(&self, side: SideId) -> impl Iterator<Item = &Unit> {
        self.units
            .iter()
            .filter(move |u| u.side == side && u.is_active())
    }

    /// The victory check run after every command and at every round start. Returns the
    /// outcome if a condition is met.
    pub fn victory_check(&self) -> Option<Outcome> {
        let conditions = if self.level.victory.is_empty() {
            vec![Victory::LastSideStanding]
        } else {
            self.level.victory.clone()
        };
        let side_of = |name: &str| {
            self.sides
                .iter()
                .position(|s| s.name == name)
                .map(|i| SideId(i as u8))
        };
        let alive: Vec<SideId> = (0..self.sides.len())
            .map(|i| SideId(i as u8))
            .filter(|&s| self.standing(s).next().is_some())
            .collect();
        if alive.is_empty() {
            return Some(Outcome {
                winner: None,
                reason: "no one is left standing".into(),
            });
        }
        for c in &conditions {
            match c {
                Victory::ReachCell { side, cell } => {
                    let Some(s) = side_of(side) else { continue };
                    let cell = Cell::new(cell.0, cell.1);
                    if let Some(u) = self.standing(s).find(|u| u.cell == cell) {
                        return Some(Outcome {
                            winner: Some(s),
                            reason: format!("{} reached {}", u.name, cell),
                        });
                    }
                }
                Victory::SurviveRounds { side, rounds } => {
                    let Some(s) = side_of(side) else { continue };
                    if self.round > *rounds && alive.contains(&s) {
                        return Some(Outcome {
                            winner: Some(s),
                            reason: format!("{} held out for {} rounds", side, rounds),
                        });
                    }
                }
                Victory::LastSideStanding => {}
            }
        }
        if alive.len() == 1 {
            let s = alive[0];
            return Some(Outcome {
                winner: Some(s),
                reason: {
                    let name = &self.sides[s.index()].name;
                    format!(
                        "{name} {} the last side standing",
                        log::agree(name, "is", "are")
                    )
                },
            });
        }
        None
    }
}

/// Rounds that may start within one command (or the battle's start) before the battle ends as
/// a draw: each round after the first passed whole without anyone able to decide anything (every
/// unit out of AP, skipped, or paying an endless extended action). A guard of the engine: no
/// level, however built, can make a command run forever.
pub const STALL_ROUNDS: u32 = 10;

/// Executes a command: emits events, applying each at once.
pub struct Exec<'a> {
    pub state: &'a mut BattleState,
    pub events: Vec<Event>,
    /// Rounds started during this execution (see [`STALL_ROUNDS`]).
    rounds_started: u32,
}

impl<'a> Exec<'a> {
    pub fn new(state: &'a mut BattleState) -> Self {
        Self {
            state,
            events: Vec::new(),
            rounds_started: 0,
        }
    }

    /// Read access to the battle as it is now.
    pub fn s(&self) -> &BattleState {
        self.state
    }

    /// Applies and records an event. Once the battle has ended nothing more happens.
    pub fn emit(&mut self, e: Event) {
        if self.state.outcome.is_some() {
            return;
        }
        let may_end = matches!(
            e,
            Event::Moved { .. }
                | Event::Placed { .. }
                | Event::Status { .. }
                | Event::RoundStarted { .. }
                | Event::Scripted(Scripted::Arrived { .. } | Scripted::Objectives { .. })
        );
        let round_started = matches!(e, Event::RoundStarted { .. });
        self.state.apply(&e);
        self.events.push(e);
        if may_end && let Some(o) = self.state.victory_check() {
            self.end(o.winner, o.reason);
        } else if round_started {
            self.rounds_started += 1;
            if self.rounds_started > STALL_ROUNDS {
                self.end(
                    None,
                    format!("no one could act for {STALL_ROUNDS} rounds: a draw"),
                );
            }
        }
    }

    fn end(&mut self, winner: Option<SideId>, reason: String) {
        let end = Event::Ended { winner, reason };
        self.state.apply(&end);
        self.events.push(end);
    }

    /// Whether the battle has ended (rulesets stop their loops on it).
    pub fn over(&self) -> bool {
        self.state.outcome.is_some()
    }
}

#[cfg(test)]
mod script_tests;
#[cfg(test)]
pub(crate) mod tests;
