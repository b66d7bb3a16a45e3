//! Mechanics every ruleset calls instead of copying: who stands where, movement range and
//! walking with attacks of opportunity, reach and range, rolling dice as events, damage.

use super::{
    Action, BattleState, Event, Exec, Interrupt, Purpose, Resume, SideId, Status, Trigger, UnitId,
};
use crate::rules::dice::{DiceExpr, Roll};
use crate::rules::fog;
use crate::rules::grid::{Cell, CellMap};
use crate::rules::map::Door;
use crate::rules::path::{self, MoveQuery, Occupant, Path, Reach};
use crate::rules::sight::{self, Cover};
use crate::rules::threat;

impl BattleState {
    /// The unit, active or down, standing on `c` (on a side's view under fog, one it knows
    /// stands there: not a foe it only guesses there, [`fog::drawn`]).
    pub fn unit_at(&self, c: Cell) -> Option<UnitId> {
        self.units
            .iter()
            .enumerate()
            .position(|(i, u)| {
                u.cell == c && u.status != Status::Dead && fog::drawn(self, UnitId(i as u16))
            })
            .map(|i| UnitId(i as u16))
    }

    /// Whether `a` and `b` are on different sides.
    pub fn are_enemies(&self, a: UnitId, b: UnitId) -> bool {
        match (self.unit(a), self.unit(b)) {
            (Some(a), Some(b)) => a.side != b.side,
            _ => false,
        }
    }

    /// Active enemies of `unit`, in id order.
    pub fn enemies_of(&self, unit: UnitId) -> Vec<UnitId> {
        let Some(me) = self.unit(unit) else {
            return Vec::new();
        };
        self.unit_ids()
            .filter(|&o| {
                let u = &self.units[o.index()];
                u.side != me.side && u.is_active()
            })
            .collect()
    }

    /// Active allies of `unit` (not itself), in id order.
    pub fn allies_of(&self, unit: UnitId) -> Vec<UnitId> {
        let Some(me) = self.unit(unit) else {
            return Vec::new();
        };
        self.unit_ids()
            .filter(|&o| {
                let u = &self.units[o.index()];
                o != unit && u.side == me.side && u.is_active()
            })
            .collect()
    }

    /// Active units of `side`, in id order.
    pub fn members(&self, side: SideId) -> Vec<UnitId> {
        self.unit_ids()
            .filter(|&o| {
                let u = &self.units[o.index()];
                u.side == side && u.is_active()
            })
            .collect()
    }

    /// Who stands where, from `unit`'s point of view. Downed units do not block (they can be
    /// stepped over but not ended on); the dead are gone.
    pub fn occupants_for(&self, unit: UnitId) -> CellMap<Occupant> {
        let grid = self.grid();
        let mut m = CellMap::new(grid, Occupant::Empty);
        let side = self.unit(unit).map(|u| u.side);
        for (i, u) in self.units.iter().enumerate() {
            // Under fog, a foe the mover's side does not see is planned through as empty: the
            // walk stops when it runs into it ([`Exec::walk`]).
            if u.is_active() && side.is_some_and(|s| fog::hidden(self, s, UnitId(i as u16))) {
                continue;
            }
            let o = match u.status {
                Status::Dead => continue,
                Status::Down => Occupant::Ally,
                Status::Active if Some(u.side) == side => Occupant::Ally,
                Status::Active => Occupant::Enemy,
            };
            if let Some(slot) = m.get_mut(u.cell) {
                *slot = o;
            }
        }
        // A heavy object blocks its cell as a foe does (house rule, P-77).
        for cell in self.ground.keys() {
            if self.heavy_at(*cell)
                && let Some(slot) = m.get_mut(*cell)
            {
                *slot = Occupant::Enemy;
            }
        }
        m
    }

    /// Cells threatened by the active enemies of `unit` that `threatens` accepts.
    pub fn threat_for(&self, unit: UnitId, threatens: impl Fn(UnitId) -> bool) -> CellMap<bool> {
        let side = self.unit(unit).map(|u| u.side);
        let from: Vec<(Cell, u32)> = self
            .enemies_of(unit)
            .into_iter()
            .filter(|&e| threatens(e) && !side.is_some_and(|s| fog::hidden(self, s, e)))
            .map(|e| {
                let u = &self.units[e.index()];
                (u.cell, u.reach)
            })
            .collect();
        threat::threat_map(&self.terrain, &from)
    }

    /// The path `unit` walks to `to` with `budget` movement points (the cheapest, then the
    /// one leaving fewest `threatened` cells): `reach_of(..).path_to(to)` without searching
    /// the whole range.
    pub fn path_for(
        &self,
        unit: UnitId,
        budget: u32,
        threatened: Option<&CellMap<bool>>,
        to: Cell,
    ) -> Option<Path> {
        self.reach_toward(unit, budget, threatened, to).path_to(to)
    }

    /// [`BattleState::reach_of`] stopped as soon as `to` is settled ([`path::reach_to`]): exact
    /// for `to`, other cells may be missing.
    pub fn reach_toward(
        &self,
        unit: UnitId,
        budget: u32,
        threatened: Option<&CellMap<bool>>,
        to: Cell,
    ) -> Reach {
        self.with_move_query(unit, budget, threatened, |q| path::reach_to(q, to))
    }

    /// Whether `unit` can end a move of at most `budget` movement points on `to` (reachable
    /// and not held by another unit, down or up): `reach_of(unit, budget, None).can_end(to)`
    /// without searching the whole range.
    pub fn can_end_move(&self, unit: UnitId, budget: u32, to: Cell) -> bool {
        self.end_move_cost(unit, budget, to).is_some()
    }

    /// The movement points of a move of `unit` ending on `to`, if it can end there within
    /// `budget` (see [`BattleState::can_end_move`]).
    pub fn end_move_cost(&self, unit: UnitId, budget: u32, to: Cell) -> Option<u32> {
        let reach = self.reach_toward(unit, budget, None, to);
        if reach.can_end(to) {
            reach.cost(to)
        } else {
            None
        }
    }

    /// Movement range of `unit` with `budget` movement points.
    pub fn reach_of(&self, unit: UnitId, budget: u32, threatened: Option<&CellMap<bool>>) -> Reach {
        self.with_move_query(unit, budget, threatened, path::reach)
    }

    /// Runs `search` on the movement query of `unit`: its cell, the map, who stands where
    /// as it sees them, the `threatened` cells and the `budget`.
    fn with_move_query<R>(
        &self,
        unit: UnitId,
        budget: u32,
        threatened: Option<&CellMap<bool>>,
        search: impl FnOnce(&MoveQuery<'_>) -> R,
    ) -> R {
        let occupants = self.occupants_for(unit);
        let start = self.unit(unit).map_or(Cell::new(0, 0), |u| u.cell);
        search(&MoveQuery {
            terrain: &self.terrain,
            occupants: &occupants,
            threatened,
            start,
            budget,
        })
    }

    /// Whether `attacker` can strike `target` in melee: within its reach in steps, with line
    /// of sight (always true between touching cells), on ground at most a level apart
    /// ([`crate::rules::threat::melee_reaches`]).
    pub fn in_melee_reach(&self, attacker: UnitId, target: UnitId) -> bool {
        let (Some(a), Some(t)) = (self.unit(attacker), self.unit(target)) else {
            return false;
        };
        crate::rules::threat::melee_reaches(&self.terrain, a.cell, a.reach, t.cell)
    }

    /// Distance in the ruleset's measure (1-2 diagonals where the grid says so).
    pub fn distance(&self, a: UnitId, b: UnitId) -> u32 {
        match (self.unit(a), self.unit(b)) {
            (Some(a), Some(b)) => self.grid().distance(a.cell, b.cell),
            _ => u32::MAX,
        }
    }

    pub fn can_see(&self, a: UnitId, b: UnitId) -> bool {
        match (self.unit(a), self.unit(b)) {
            (Some(a), Some(b)) => sight::line_of_sight(&self.terrain, a.cell, b.cell),
            _ => false,
        }
    }

    /// Cover of `defender` from `attacker` (seed 001's rule, used by every ruleset that has
    /// ranged attacks).
    pub fn cover(&self, attacker: UnitId, defender: UnitId) -> Cover {
        match (self.unit(attacker), self.unit(defender)) {
            (Some(a), Some(b)) => sight::cover(&self.terrain, a.cell, b.cell),
            _ => Cover::Blocked,
        }
    }

    /// Active enemies of `unit` whose melee reach covers `unit`'s cell.
    pub fn enemies_in_reach_of(&self, unit: UnitId) -> Vec<UnitId> {
        self.enemies_of(unit)
            .into_iter()
            .filter(|&e| self.in_melee_reach(e, unit))
            .collect()
    }
}

impl BattleState {
    /// The doors next to `unit` it could open or shut now, as the actions that would (a
    /// ruleset adds its own price and offers those it can pay for). In cell order.
    pub fn door_actions(&self, unit: UnitId) -> Vec<Action> {
        let Some(u) = self.unit(unit) else {
            return Vec::new();
        };
        let mut out: Vec<Action> = self
            .grid()
            .neighbours(u.cell)
            .filter_map(|cell| match self.terrain.door(cell)? {
                Door::Closed => Some(Action::OpenDoor { cell }),
                Door::Open if self.unit_at(cell).is_none() => Some(Action::CloseDoor { cell }),
                _ => None,
            })
            .filter(|a| self.door_check(unit, a).is_ok())
            .collect();
        out.sort_by_key(|a| match a {
            Action::OpenDoor { cell } | Action::CloseDoor { cell } => (cell.y, cell.x),
            _ => (0, 0),
        });
        out
    }

    /// Whether `unit` may open or shut the door `action` names, leaving its price aside: the
    /// door is next to it, in the right state, has a counterpart (not locked), and no one
    /// stands in a doorway being shut. `Err` says why not.
    pub fn door_check(&self, unit: UnitId, action: &Action) -> Result<(), String> {
        let (cell, open) = match action {
            Action::OpenDoor { cell } => (*cell, true),
            Action::CloseDoor { cell } => (*cell, false),
            _ => return Err("not a door action".into()),
        };
        let Some(u) = self.unit(unit) else {
            return Err(format!("there is no {unit}"));
        };
        let who = &u.name;
        if !u.is_active() {
            return Err(format!("{who} is out of the fight"));
        }
        let state = self.terrain.door(cell);
        let Some(state) = state else {
            return Err(format!("there is no door at {cell}"));
        };
        if self.grid().distance_steps(u.cell, cell) != 1 {
            return Err(format!("the door at {cell} is not next to {who}"));
        }
        match (state, open) {
            (Door::Locked, _) => Err(format!("the door at {cell} is locked")),
            (Door::Open, true) => Err(format!("the door at {cell} is already open")),
            (Door::Closed, false) => Err(format!("the door at {cell} is already shut")),
            _ => {
                let kind = self.terrain.kind_index(cell).unwrap_or(0);
                if self.terrain.door_counterpart(kind).is_none() {
                    return Err(format!(
                        "the door at {cell} cannot be {} (the level has no door to turn it into)",
                        if open { "opened" } else { "shut" }
                    ));
                }
                if !open && let Some(o) = self.unit_at(cell) {
                    return Err(format!(
                        "{} stands in the doorway at {cell}",
                        self.unit_name(o)
                    ));
                }
                Ok(())
            }
        }
    }
}

impl BattleState {
    /// The level's task on `cell`, if any.
    pub fn task_at(&self, cell: Cell) -> Option<&crate::rules::level::Task> {
        self.level.tasks.iter().find(|t| t.cell == (cell.x, cell.y))
    }

    /// The Short Tasks `unit` could carry out now, leaving their price aside, in cell order.
    pub fn task_actions(&self, unit: UnitId) -> Vec<Action> {
        let mut cells: Vec<Cell> = self
            .level
            .tasks
            .iter()
            .map(|t| Cell::new(t.cell.0, t.cell.1))
            .filter(|&cell| self.task_check(unit, cell).is_ok())
            .collect();
        cells.sort_by_key(|c| (c.y, c.x));
        cells
            .into_iter()
            .map(|cell| Action::ShortTask { cell })
            .collect()
    }

    /// Whether `unit` may carry out the task on `cell`, leaving its price aside: there is one,
    /// it is next to the unit, and it is still to do (its door is still locked). `Err` says
    /// why not.
    pub fn task_check(&self, unit: UnitId, cell: Cell) -> Result<(), String> {
        let Some(u) = self.unit(unit) else {
            return Err(format!("there is no {unit}"));
        };
        let who = &u.name;
        if !u.is_active() {
            return Err(format!("{who} is out of the fight"));
        }
        let Some(task) = self.task_at(cell) else {
            return Err(format!("the level gives no task at {cell}"));
        };
        if self.grid().distance_steps(u.cell, cell) != 1 {
            return Err(format!("{} at {cell} is not next to {who}", task.name));
        }
        match task.effect {
            crate::rules::level::TaskEffect::Unlock => {
                if self.terrain.door(cell) != Some(Door::Locked) {
                    return Err(format!(
                        "{} at {cell} is done: the door is no longer locked",
                        task.name
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Exec<'_> {
    /// `unit` succeeded at the task on `cell` (checked beforehand): its effect happens.
    pub fn task_done(&mut self, unit: UnitId, cell: Cell) {
        let Some(task) = self.s().task_at(cell) else {
            return;
        };
        match task.effect {
            crate::rules::level::TaskEffect::Unlock => {
                self.emit(Event::Unlocked { unit, cell });
            }
        }
    }
}

impl Exec<'_> {
    /// `unit` opens or shuts the door of a door action (checked beforehand).
    pub fn door(&mut self, unit: UnitId, action: &Action) {
        let (cell, open) = match action {
            Action::OpenDoor { cell } => (*cell, true),
            Action::CloseDoor { cell } => (*cell, false),
            _ => return,
        };
        self.emit(Event::Door { unit, cell, open });
    }
}

impl Exec<'_> {
    /// Rolls `expr` for `unit` (or `side`) and reports it. `against` is the number to reach
    /// (at or above) when there is one; `success` is then `total >= against`.
    pub fn roll(
        &mut self,
        unit: Option<UnitId>,
        side: Option<SideId>,
        purpose: Purpose,
        expr: &DiceExpr,
        against: Option<i64>,
    ) -> Roll {
        let roll = self.state.rng.roll(expr);
        self.emit(Event::Rolled {
            unit,
            side,
            purpose,
            expr: roll.expr.clone(),
            dice: roll.dice.clone(),
            total: roll.total,
            against,
            success: against.map(|a| roll.total >= a),
        });
        roll
    }

    /// Rolls `expr` where success means rolling at or under `target` (3d6 skill rolls).
    pub fn roll_under(
        &mut self,
        unit: Option<UnitId>,
        purpose: Purpose,
        expr: &DiceExpr,
        target: i64,
    ) -> Roll {
        let roll = self.state.rng.roll(expr);
        self.emit(Event::Rolled {
            unit,
            side: None,
            purpose,
            expr: roll.expr.clone(),
            dice: roll.dice.clone(),
            total: roll.total,
            against: Some(target),
            success: Some(roll.total <= target),
        });
        roll
    }

    /// Adds up `terms` (zero terms after the first are left out) and returns the sum. When
    /// more than one term is left the sum is explained in the log: an [`Event::Reckoned`]
    /// naming `unit` (whose number it is) and `what` the number is. A lone term is the plain
    /// number and needs no line.
    pub fn reckon(&mut self, unit: UnitId, what: &str, terms: Vec<super::Term>) -> i64 {
        let terms: Vec<super::Term> = terms
            .into_iter()
            .enumerate()
            .filter(|(i, t)| *i == 0 || t.value != 0)
            .map(|(_, t)| t)
            .collect();
        let total = terms.iter().map(|t| t.value).sum();
        if terms.len() > 1 {
            self.emit(Event::Reckoned {
                unit,
                what: what.to_string(),
                terms,
                total,
            });
        }
        total
    }

    /// Sets a pool to `value`, reporting the change (no event when nothing changes).
    pub fn set_pool(&mut self, unit: UnitId, pool: &str, value: i64) {
        let old = self.s().unit(unit).map_or(0, |u| u.pool(pool));
        if old != value {
            self.emit(Event::Pool {
                unit,
                pool: pool.to_string(),
                delta: value - old,
                value,
            });
        }
    }

    /// Adds `delta` to a pool.
    pub fn add_pool(&mut self, unit: UnitId, pool: &str, delta: i64) {
        let old = self.s().unit(unit).map_or(0, |u| u.pool(pool));
        self.set_pool(unit, pool, old + delta);
    }

    pub fn set_status(&mut self, unit: UnitId, status: Status) {
        if self.s().unit(unit).is_some_and(|u| u.status != status) {
            self.emit(Event::Status { unit, status });
        }
    }

    pub fn set_condition(&mut self, unit: UnitId, condition: super::Condition, on: bool) {
        let has = self.s().unit(unit).is_some_and(|u| u.has(&condition));
        if has != on {
            self.emit(Event::Condition {
                unit,
                condition,
                on,
            });
        }
    }

    /// Walks `unit` along `cells` (its current cell first). Before each step, `provokers`
    /// names the units that may react to it (attacks of opportunity); if any, the walk stops
    /// there with an [`Interrupt`] whose continuation is the rest of the walk, and this
    /// returns `false`. Returns `true` when the walk is complete. With `first_free`, the first
    /// step does not ask (it already did, before the interrupt).
    pub fn walk(
        &mut self,
        unit: UnitId,
        cells: &[Cell],
        first_free: bool,
        provokers: &mut dyn FnMut(&BattleState, UnitId, Cell, Cell) -> Vec<UnitId>,
    ) -> bool {
        for (i, pair) in cells.windows(2).enumerate() {
            let (from, to) = (pair[0], pair[1]);
            if self.over() || !self.s().unit(unit).is_some_and(|u| u.is_active()) {
                return true;
            }
            if let Some(by) = self.hidden_in(unit, to) {
                // Under fog: the way is held by a foe the mover's side did not see.
                self.emit(Event::Blocked { unit, by, at: to });
                return true;
            }
            if !(first_free && i == 0) {
                let reactors = provokers(self.s(), unit, from, to);
                if !reactors.is_empty() {
                    self.emit(Event::Interrupted(Interrupt {
                        trigger: Trigger::Opportunity {
                            mover: unit,
                            from,
                            to,
                        },
                        reactors,
                        resume: Resume::Move {
                            unit,
                            rest: cells[i..].to_vec(),
                        },
                    }));
                    return false;
                }
            }
            let unseen = self.unseen_foes(unit);
            self.emit(Event::Moved { unit, from, to });
            if self.spots(unit, &unseen) {
                return true;
            }
        }
        true
    }
}

impl Exec<'_> {
    /// Under fog: the active foes of `unit` that its side would be surprised to see where they
    /// stand: not seen now, and not last seen on the cell they hold (a ghost in its place is
    /// no news). Empty without fog. Asked before each step of a walk, for [`Exec::spots`].
    pub fn unseen_foes(&self, unit: UnitId) -> Vec<UnitId> {
        let s = self.s();
        let (Some(k), Some(side)) = (s.fog.as_ref(), s.unit(unit).map(|u| u.side)) else {
            return Vec::new();
        };
        s.unit_ids()
            .filter(|&o| {
                let u = &s.units[o.index()];
                u.side != side
                    && u.is_active()
                    && crate::rules::fog::hidden(s, side, o)
                    && k.last_seen(side, o) != Some(u.cell)
            })
            .collect()
    }

    /// Under fog, after a step of `unit`'s walk: if its side now sees one of `unseen` (what
    /// [`Exec::unseen_foes`] gave before the step), emits [`Event::Spotted`] for the first and
    /// returns `true`: the walk stops there.
    pub fn spots(&mut self, unit: UnitId, unseen: &[UnitId]) -> bool {
        let s = self.s();
        let Some(side) = s.unit(unit).map(|u| u.side) else {
            return false;
        };
        let Some(foe) = unseen
            .iter()
            .copied()
            .find(|&o| !crate::rules::fog::hidden(s, side, o))
        else {
            return false;
        };
        let at = s.units[foe.index()].cell;
        self.emit(Event::Spotted { unit, foe, at });
        true
    }

    /// Under fog: the active unit of another side standing on `cell`, the next step of
    /// `unit`'s walk. The walk was planned without the foes its side did not see, so one may
    /// stand in the way (seen now, or still hidden).
    pub fn hidden_in(&self, unit: UnitId, cell: Cell) -> Option<UnitId> {
        let s = self.s();
        s.fog.as_ref()?;
        let side = s.unit(unit)?.side;
        s.unit_ids().find(|&o| {
            let u = &s.units[o.index()];
            u.cell == cell && u.is_active() && u.side != side
        })
    }
}

/// Parses a dice expression built in code (`"3d6"`, `"1d20+4"`); a malformed one (a bug, not
/// user data) rolls as a flat 0 rather than panicking.
pub fn dice(text: &str) -> DiceExpr {
    text.parse().unwrap_or_else(|_| DiceExpr::dice(0, 1))
}

/// The largest flat bonus a stat adds to a roll.
const MAX_FLAT_BONUS: i64 = 1_000_000;

/// `count`d`sides` + `bonus`.
pub fn ndx(count: i64, sides: i64, bonus: i64) -> DiceExpr {
    use crate::rules::dice::{MAX_DICE, MAX_SIDES};
    // Levels bound stats (`level::stat_bounds`); the clamp keeps any other source in range
    // too, never wrapping a huge count around to a small one.
    let count = count.clamp(0, i64::from(MAX_DICE)) as u32;
    let sides = sides.clamp(1, i64::from(MAX_SIDES)) as u32;
    DiceExpr::dice(count, sides).plus(bonus.clamp(-MAX_FLAT_BONUS, MAX_FLAT_BONUS))
}

impl Exec<'_> {
    /// Applies and records `batch` as one instant: the victory check runs once, after the last
    /// event, instead of after each. Two combatants who kill each other at the same moment
    /// (`segments`' simultaneous initiative) then end the battle in a draw, not in a win for
    /// whichever was reported dead second.
    pub fn emit_together(&mut self, batch: Vec<Event>) {
        if self.state.outcome.is_some() || batch.is_empty() {
            return;
        }
        let may_end = batch.iter().any(|e| {
            matches!(
                e,
                Event::Moved { .. }
                    | Event::Placed { .. }
                    | Event::Status { .. }
                    | Event::RoundStarted { .. }
            )
        });
        for e in batch {
            self.state.apply(&e);
            self.events.push(e);
        }
        if may_end && let Some(o) = self.state.victory_check() {
            let end = Event::Ended {
                winner: o.winner,
                reason: o.reason,
            };
            self.state.apply(&end);
            self.events.push(end);
        }
    }
}
