//! A level's scripted events in battle (`events` in the level format, [`crate::rules::level::events`]):
//! which have fired, when a trigger is met, and what the effects emit.
//!
//! - The triggers are looked at by [`fire`], after the battle's opening and after every command
//!   that leaves no reaction waiting (never in the middle of a move or an attack), in the
//!   level's order; an event whose trigger is met fires once, its effects in order, and the
//!   look goes round again (an arrival may set off another event).
//! - Everything the script decides is an [`Event::Scripted`], so a replay of the same commands
//!   fires the same events at the same moments: nothing is read but the battle.
//! - A reinforcement is a new unit at the end of `units` (its id is the next free one); the
//!   ruleset slots it into its turn order through [`crate::rules::rulesets::joined`].

use super::{BattleState, Event, Exec, SideId, Unit, UnitId};
use crate::rules::grid::Cell;
use crate::rules::level::{Effect, LevelEvent, UnitDef, Victory, When, events};
use crate::rules::rulesets;
use serde::{Deserialize, Serialize};

/// What the battle remembers of the level's events, one entry per event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Script {
    /// The event has fired.
    pub fired: Vec<bool>,
    /// An `Enters` event's side has had a unit step into its area.
    pub entered: Vec<bool>,
}

/// What a scripted event does, as the battle's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scripted {
    /// The level's event `event` fired (bookkeeping: its effects follow).
    Fired { event: usize },
    /// A message for everyone.
    Message { text: String },
    /// Reinforcement `name` arrived on `cell` as `unit` (the next id); `wanted` is the cell
    /// the level gave it, taken by someone else when it differs.
    Arrived {
        unit: UnitId,
        name: String,
        cell: Cell,
        wanted: Cell,
    },
    /// Reinforcement `name` could not arrive: no free cell was left anywhere near `wanted`.
    NoRoom { name: String, wanted: Cell },
    /// `side`'s objectives are now `victory` (the other sides' conditions stay).
    Objectives { side: SideId, victory: Vec<Victory> },
}

impl Script {
    /// The empty record of a level with `n` events.
    pub fn new(n: usize) -> Self {
        Self {
            fired: vec![false; n],
            entered: vec![false; n],
        }
    }
}

/// The level's reinforcement named `name`.
pub fn reinforcement<'a>(
    level: &'a crate::rules::level::LevelFile,
    name: &str,
) -> Option<&'a UnitDef> {
    events::reinforcements(level)
        .map(|(_, _, _, u)| u)
        .find(|u| u.name == name)
}

/// Applies a scripted event to the battle (from [`BattleState::apply`]).
pub(super) fn apply(s: &mut BattleState, e: &Scripted) {
    let n = s.level.events.len();
    if s.script.fired.len() < n {
        s.script = Script::new(n);
    }
    match e {
        Scripted::Fired { event } => {
            if let Some(f) = s.script.fired.get_mut(*event) {
                *f = true;
            }
        }
        Scripted::Message { .. } | Scripted::NoRoom { .. } => {}
        Scripted::Arrived {
            unit, name, cell, ..
        } => {
            if unit.index() != s.units.len() {
                return;
            }
            let Some(def) = reinforcement(&s.level, name) else {
                return;
            };
            let side = s
                .sides
                .iter()
                .position(|x| x.name == def.side)
                .map_or(SideId(0), |i| SideId(i as u8));
            let mut u = Unit::from_def(def, side, s.ruleset());
            u.cell = *cell;
            s.units.push(u);
            entered(s, *unit, *cell);
        }
        Scripted::Objectives { side, victory } => {
            let Some(name) = s.sides.get(side.index()).map(|x| x.name.clone()) else {
                return;
            };
            let level = std::sync::Arc::make_mut(&mut s.level);
            if level.victory.is_empty() {
                level.victory = vec![Victory::LastSideStanding];
            }
            level.victory.retain(|v| match v {
                Victory::LastSideStanding => true,
                Victory::SurviveRounds { side, .. } | Victory::ReachCell { side, .. } => {
                    *side != name
                }
            });
            level.victory.extend(victory.iter().cloned());
        }
    }
}

/// Notes that `unit` came to `cell` (a step, a push, an arrival): the `Enters` events of its
/// side whose area holds the cell are met.
pub(super) fn entered(s: &mut BattleState, unit: UnitId, cell: Cell) {
    if s.level.events.is_empty() {
        return;
    }
    let Some(side) = s
        .unit(unit)
        .and_then(|u| s.sides.get(u.side.index()))
        .map(|x| x.name.clone())
    else {
        return;
    };
    let n = s.level.events.len();
    if s.script.entered.len() < n {
        s.script = Script::new(n);
    }
    for (i, ev) in s.level.events.iter().enumerate() {
        if let When::Enters { side: who, area } = &ev.when
            && *who == side
            && area.contains((cell.x, cell.y))
        {
            s.script.entered[i] = true;
        }
    }
}

/// How many units of `side` are out of the fight: down, dead or fled.
pub fn lost(s: &BattleState, side: SideId) -> usize {
    s.unit_ids()
        .filter(|&u| {
            let unit = &s.units[u.index()];
            unit.side == side && (!unit.is_active() || rulesets::fled(s, u))
        })
        .count()
}

/// Whether event `i`'s trigger is met now.
pub fn triggered(s: &BattleState, i: usize, event: &LevelEvent) -> bool {
    match &event.when {
        When::Round(n) => s.round >= *n,
        When::Enters { .. } => s.script.entered.get(i).copied().unwrap_or(false),
        When::Lost { side, units } => s
            .sides
            .iter()
            .position(|x| x.name == *side)
            .is_some_and(|k| lost(s, SideId(k as u8)) >= *units as usize),
    }
}

/// Fires every event whose trigger is met, in the level's order, until none is left to fire.
/// Does nothing while a reaction is awaited or once the battle is over.
pub fn fire(x: &mut Exec) {
    let n = x.s().level.events.len();
    for _ in 0..=n {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let s = x.s();
        let next = s.level.events.iter().enumerate().position(|(i, ev)| {
            !s.script.fired.get(i).copied().unwrap_or(false) && triggered(s, i, ev)
        });
        let Some(i) = next else { return };
        x.emit(Event::Scripted(Scripted::Fired { event: i }));
        let effects = x.s().level.events[i].then.clone();
        for effect in effects {
            if x.over() {
                return;
            }
            match effect {
                Effect::Message(text) => x.emit(Event::Scripted(Scripted::Message { text })),
                Effect::Objectives { side, victory } => {
                    if let Some(k) = x.s().sides.iter().position(|x| x.name == side) {
                        x.emit(Event::Scripted(Scripted::Objectives {
                            side: SideId(k as u8),
                            victory,
                        }));
                    }
                }
                Effect::Reinforcements(units) => {
                    for def in units {
                        if x.over() {
                            return;
                        }
                        arrive(x, &def);
                    }
                }
            }
        }
    }
}

/// One reinforcement arrives on its cell, or the nearest free one, and joins its ruleset's
/// turn order.
fn arrive(x: &mut Exec, def: &UnitDef) {
    let wanted = Cell::new(def.cell.0, def.cell.1);
    let name = def.name.clone();
    let Some(cell) = free_cell_near(x.s(), wanted) else {
        x.emit(Event::Scripted(Scripted::NoRoom { name, wanted }));
        return;
    };
    let unit = UnitId(x.s().units.len() as u16);
    x.emit(Event::Scripted(Scripted::Arrived {
        unit,
        name,
        cell,
        wanted,
    }));
    if x.s().unit(unit).is_some() && !x.over() {
        rulesets::joined(x, unit);
    }
}

/// Whether a unit may arrive on `c`: ground one can stand on, and no one there (a downed unit
/// still lies there; the dead and the fled are gone).
fn free(s: &BattleState, c: Cell) -> bool {
    s.terrain.passable(c)
        && !s.unit_ids().any(|u| {
            let unit = &s.units[u.index()];
            unit.cell == c && unit.status != super::Status::Dead && !rulesets::fled(s, u)
        })
}

/// The cell a reinforcement arrives on: `wanted` if it is free, else the free cell fewest
/// steps away over ground one can stand on (units do not stop the count), the topmost then
/// leftmost of those at that distance. `None` if no free cell can be reached.
pub fn free_cell_near(s: &BattleState, wanted: Cell) -> Option<Cell> {
    let grid = s.grid();
    if !grid.contains(wanted) {
        return None;
    }
    if free(s, wanted) {
        return Some(wanted);
    }
    let mut seen = crate::rules::grid::CellMap::new(grid, false);
    seen.set(wanted, true);
    let mut ring = vec![wanted];
    while !ring.is_empty() {
        let mut next = Vec::new();
        for &c in &ring {
            for nb in grid.neighbours(c) {
                if seen.get(nb).copied().unwrap_or(true) || !s.terrain.passable(nb) {
                    continue;
                }
                seen.set(nb, true);
                next.push(nb);
            }
        }
        if let Some(best) = next
            .iter()
            .copied()
            .filter(|&c| free(s, c))
            .min_by_key(|c| (c.y, c.x))
        {
            return Some(best);
        }
        ring = next;
    }
    None
}

/// A victory condition in a few words ("hold out for 6 rounds", "reach (3, 4)").
pub fn victory_words(s: &BattleState, v: &Victory) -> String {
    let round = rulesets::round_word(s).to_lowercase();
    match v {
        Victory::LastSideStanding => "be the last side standing".to_string(),
        Victory::SurviveRounds { rounds, .. } => format!("hold out for {rounds} {round}s"),
        Victory::ReachCell { cell, .. } => format!("reach ({}, {})", cell.0, cell.1),
    }
}

/// The log line of a scripted event: what set it off, the message, who arrived where, the new
/// objectives.
pub fn log_line(s: &BattleState, e: &Scripted) -> String {
    match e {
        Scripted::Fired { event } => match s.level.events.get(*event).map(|ev| &ev.when) {
            Some(When::Round(n)) => format!("Event: {} {n} has begun", rulesets::round_word(s)),
            Some(When::Enters { side, .. }) => {
                format!(
                    "Event: {side} {} the area",
                    super::log::agree(side, "enters", "enter")
                )
            }
            Some(When::Lost { side, units }) => format!(
                "Event: {side} {} lost {units} unit{}",
                super::log::agree(side, "has", "have"),
                if *units == 1 { "" } else { "s" }
            ),
            None => "Event".to_string(),
        },
        Scripted::Message { text } => text.clone(),
        Scripted::Arrived {
            unit,
            name,
            cell,
            wanted,
        } => {
            let side = s
                .unit(*unit)
                .and_then(|u| s.sides.get(u.side.index()))
                .map_or(String::new(), |x| format!(" for {}", x.name));
            if cell == wanted {
                format!("{name} arrives at {cell}{side}")
            } else {
                format!("{name} arrives at {cell}{side} ({wanted} is taken)")
            }
        }
        Scripted::NoRoom { name, wanted } => {
            format!("{name} cannot arrive: no free cell is left near {wanted}")
        }
        Scripted::Objectives { side, victory } => {
            let name = s.sides.get(side.index()).map_or("?", |x| x.name.as_str());
            let goals: Vec<String> = victory.iter().map(|v| victory_words(s, v)).collect();
            if goals.is_empty() {
                format!("{name}'s objectives change: now only to be the last side standing")
            } else {
                format!("{name}'s objectives change: now to {}", goals.join(", or "))
            }
        }
    }
}
