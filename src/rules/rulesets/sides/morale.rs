//! Morale (house rule for S-176..S-180: the text refers to a morale procedure it does not
//! contain). Most creatures flee rather than die; some never do.
//!
//! - **When**: a side checks when it has lost half of the units it started with (once a
//!   battle), and when one of its leaders (stat `leader` 1) falls (once per leader). A check
//!   runs as soon as the action that caused it is over (no reaction still open).
//! - **What**: each of the side's units still standing and not already fleeing rolls 2d6; above
//!   its `morale` it breaks and flees. A unit with `fearless` 1 never rolls and never flees.
//! - **Fleeing**: a fleeing unit is no longer picked; when its side's turn comes it runs by
//!   itself: it disengages (its Main action) and moves its full movement (its Move action)
//!   towards the nearest edge of the map, away from its foes, provoking nothing. A fleeing unit
//!   that stands on an edge cell leaves the map: it is out of the battle (shown as down) and does
//!   not come back in this battle (S-179: they are gone for now). Until then its foes may
//!   pursue it and strike it (S-180).
//! - **Rout**: when every unit a side has standing is fleeing, the side routs: they all leave
//!   at once, and the side has lost.

use super::{Ev, Sides, State, names, per};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{BattleState, Event, Exec, Purpose, SideId, Status, UnitId};
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use serde::{Deserialize, Serialize};

/// A unit's morale stat when its template has none: 2d6 above it breaks.
pub const DEFAULT_MORALE: i64 = 7;

/// Why a side checks morale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cause {
    /// It has lost half of the units it started with.
    HalfLost,
    /// Its leader `leader` has fallen.
    LeaderFell { leader: UnitId },
}

/// The morale bookkeeping of a battle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Morale {
    /// The checks made so far, so that none is made twice.
    pub checked: Vec<(SideId, Cause)>,
    /// Units that broke and flee, in the order they broke.
    pub fleeing: Vec<UnitId>,
    /// Units that left the map.
    pub fled: Vec<UnitId>,
}

/// Whether `u` is fleeing (broke, still on the map).
pub fn fleeing(r: &State, u: UnitId) -> bool {
    r.morale.fleeing.contains(&u) && !r.morale.fled.contains(&u)
}

/// Whether `u` left the map.
pub fn fled(r: &State, u: UnitId) -> bool {
    r.morale.fled.contains(&u)
}

/// The checks `side` owes now, in order: half its units lost, then each fallen leader.
fn causes(s: &BattleState, r: &State, side: SideId) -> Vec<Cause> {
    let units: Vec<UnitId> = s
        .unit_ids()
        .filter(|&u| s.units[u.index()].side == side)
        .collect();
    let lost = units
        .iter()
        .filter(|&&u| !s.units[u.index()].is_active())
        .count();
    let mut out = Vec::new();
    if !units.is_empty() && lost * 2 >= units.len() {
        out.push(Cause::HalfLost);
    }
    for &u in &units {
        let unit = &s.units[u.index()];
        if unit.stat(names::LEADER) > 0 && !unit.is_active() && !fled(r, u) {
            out.push(Cause::LeaderFell { leader: u });
        }
    }
    out.retain(|c| !r.morale.checked.contains(&(side, *c)));
    out
}

/// Runs the morale checks owed, then any rout. Call when no reaction is open.
pub fn check(x: &mut Exec) {
    for i in 0..x.s().sides.len() {
        let side = SideId(i as u8);
        for cause in causes(x.s(), Sides::state(x.s()), side) {
            if x.over() {
                return;
            }
            x.emit(Sides::event(Ev::MoraleCheck { side, cause }));
            let units: Vec<UnitId> = x
                .s()
                .unit_ids()
                .filter(|&u| {
                    let unit = &x.s().units[u.index()];
                    unit.side == side
                        && unit.is_active()
                        && unit.stat(names::FEARLESS) <= 0
                        && !fleeing(Sides::state(x.s()), u)
                })
                .collect();
            for u in units {
                let morale = morale_of(x.s(), u);
                let roll = x.roll_under(Some(u), Purpose::Morale, &ndx(2, 6, 0), morale);
                if roll.total > morale {
                    x.emit(Sides::event(Ev::Breaks { unit: u }));
                }
            }
        }
    }
    for i in 0..x.s().sides.len() {
        let side = SideId(i as u8);
        let standing: Vec<UnitId> = x
            .s()
            .unit_ids()
            .filter(|&u| x.s().units[u.index()].side == side && x.s().units[u.index()].is_active())
            .collect();
        if x.over()
            || standing.is_empty()
            || !standing.iter().all(|&u| fleeing(Sides::state(x.s()), u))
        {
            continue;
        }
        x.emit(Sides::event(Ev::Routed { side }));
        for u in standing {
            leave(x, u);
        }
    }
}

/// `u`'s morale: its `morale` stat, [`DEFAULT_MORALE`] if it has none.
pub fn morale_of(s: &BattleState, u: UnitId) -> i64 {
    s.unit(u).map_or(DEFAULT_MORALE, |x| {
        if x.stats.contains_key(names::MORALE) {
            x.stat(names::MORALE)
        } else {
            DEFAULT_MORALE
        }
    })
}

/// The next fleeing unit of `side` to run this round, if any (not one caught unaware in the
/// surprise round: it does not act then).
pub fn next_to_flee(s: &BattleState, r: &State, side: SideId) -> Option<UnitId> {
    r.morale.fleeing.iter().copied().find(|&u| {
        s.unit(u).is_some_and(|x| {
            x.side == side
                && x.is_active()
                && !per(r, u).acted
                && !(r.surprise && x.has(&crate::rules::battle::Condition::Surprised))
        }) && !fled(r, u)
    })
}

/// Whether `c` is on the edge of the map.
fn on_edge(s: &BattleState, c: Cell) -> bool {
    let g = s.grid();
    c.x == 0 || c.y == 0 || c.x + 1 == g.width as i32 || c.y + 1 == g.height as i32
}

/// How far `c` is from the map's edge, in cells across.
fn edge_distance(s: &BattleState, c: Cell) -> i64 {
    let g = s.grid();
    let (w, h) = (g.width as i64, g.height as i64);
    let (x, y) = (i64::from(c.x), i64::from(c.y));
    x.min(y).min(w - 1 - x).min(h - 1 - y)
}

/// The fleeing unit `u` takes its turn: it disengages and runs its movement towards the
/// nearest edge (the cell nearest the edge it can reach, then the farthest from its foes,
/// then the cheapest); on an edge cell it leaves the map.
pub fn flee(x: &mut Exec, u: UnitId) {
    x.emit(Sides::event(Ev::Picked { unit: u }));
    x.emit(Event::TurnStarted { unit: u });
    let unit = x.s().units[u.index()].clone();
    if !on_edge(x.s(), unit.cell) && !super::held(x.s(), u) {
        let foes = x.s().enemies_of(u);
        let foe_distance = |s: &BattleState, c: Cell| -> i64 {
            foes.iter()
                .filter_map(|&f| s.unit(f))
                .filter(|f| f.is_active())
                .map(|f| i64::from(s.grid().distance_steps(c, f.cell)))
                .min()
                .unwrap_or(0)
        };
        let best = x
            .s()
            .reach_of(u, unit.movement, None)
            .destinations()
            .into_iter()
            .min_by_key(|&(c, cost)| {
                (
                    edge_distance(x.s(), c),
                    -foe_distance(x.s(), c),
                    cost,
                    c.y,
                    c.x,
                )
            })
            .map(|(c, _)| c);
        if let Some(to) = best.filter(|&to| to != unit.cell)
            && let Some(path) = x.s().path_for(u, unit.movement, None, to)
        {
            x.emit(Sides::event(Ev::Actions {
                unit: u,
                main: false,
                mv: false,
            }));
            let cells = path.cells();
            for pair in cells.windows(2) {
                if x.over() {
                    return;
                }
                x.emit(Event::Moved {
                    unit: u,
                    from: pair[0],
                    to: pair[1],
                });
            }
        }
    }
    if x.over() {
        return;
    }
    let cell = x.s().units[u.index()].cell;
    if on_edge(x.s(), cell) && x.s().units[u.index()].is_active() {
        leave(x, u);
    }
    if x.over() {
        return;
    }
    x.emit(Event::TurnEnded { unit: u });
    x.emit(Sides::event(Ev::TurnDone { unit: u }));
}

/// `u` leaves the map: out of the battle (down), never back in it.
fn leave(x: &mut Exec, u: UnitId) {
    x.emit(Sides::event(Ev::Fled { unit: u }));
    x.set_status(u, Status::Down);
}

/// Applies a morale event to the bookkeeping.
pub(super) fn apply(m: &mut Morale, e: &Ev) {
    match e {
        Ev::MoraleCheck { side, cause } => m.checked.push((*side, *cause)),
        Ev::Breaks { unit } if !m.fleeing.contains(unit) => m.fleeing.push(*unit),
        Ev::Fled { unit } if !m.fled.contains(unit) => m.fled.push(*unit),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
