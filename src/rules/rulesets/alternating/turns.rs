//! Team order, rounds, picks and turns: who picks, who acts, and what happens when a turn or
//! a round ends.

use super::actions::walk;
use super::combat::finish_attack;
use super::{
    ACTIONS, Alternating, Commanded, DEATH_DIFFICULTY, Ev, METAL_DURABILITY, State, names,
};
use crate::rules::battle::Reaction;
use crate::rules::battle::{BattleState, Condition, Decision, Event, Exec, Resume, SideId, UnitId};
use crate::rules::rulesets::Member;

/// A unit's pools as the battle starts (or as it arrives, a reinforcement).
fn init_pools(x: &mut Exec, u: UnitId) {
    let unit = x.s().units[u.index()].clone();
    for key in [
        names::ENDURANCE,
        names::HEALTH,
        names::STAMINA,
        names::FOCUS,
    ] {
        x.set_pool(u, key, unit.stat(key));
    }
    x.set_pool(u, names::DEATH, DEATH_DIFFICULTY);
    x.set_pool(u, names::WEAPON, METAL_DURABILITY);
    if unit.stat(names::BLOCK) > 0 {
        x.set_pool(u, names::SHIELD, unit.stat(names::BLOCK_DURABILITY).max(1));
    }
    if unit.stat(names::RANGE) > 0 && unit.stat(names::RELOAD_ACTIONS) > 0 {
        x.set_pool(u, names::LOADED, 1);
    }
}

/// House rule (Reinforcements): a reinforcement joins its team with its pools full and
/// the reaction of a fresh turn. It has not acted this round, so its team may pick it in the
/// round it arrives, like any member that has not had its turn.
pub(super) fn joined(x: &mut Exec, u: UnitId) {
    init_pools(x, u);
    x.set_pool(u, names::REACTIONS, 1);
    x.emit(Alternating::event(Ev::Joined { unit: u }));
}

pub fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    for &u in &ids {
        init_pools(x, u);
    }
    // Surprise: units that can be surprised (no danger sense) of the listed sides or names.
    let mut surprise = false;
    for &u in &ids {
        if x.s().named_surprised(u) {
            if x.s().units[u.index()].stat(names::DANGER_SENSE) > 0 {
                continue;
            }
            surprise = true;
            x.set_condition(u, Condition::Surprised, true);
        }
    }
    // Everyone else starts with the reaction of a fresh turn; the surprised have none until
    // their first turn.
    for &u in &ids {
        let r = i64::from(!x.s().units[u.index()].has(&Condition::Surprised));
        x.set_pool(u, names::REACTIONS, r);
    }
    let n = x.s().sides.len();
    let first = x
        .s()
        .level
        .options
        .instigator
        .as_ref()
        .and_then(|name| x.s().sides.iter().position(|s| &s.name == name))
        .unwrap_or(0);
    let teams: Vec<SideId> = (0..n).map(|i| SideId(((first + i) % n) as u8)).collect();
    x.emit(Alternating::event(Ev::Order {
        teams,
        surprise_round: surprise,
        units: ids.len(),
    }));
    begin_round(x);
}

pub(super) fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(Alternating::event(Ev::NewRound));
    next_pick(x, 0);
}

pub(super) fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    if Alternating::state(x.s()).surprise_round {
        x.emit(Alternating::event(Ev::SurpriseOver));
        for u in x.s().unit_ids().collect::<Vec<_>>() {
            x.set_condition(u, Condition::Surprised, false);
        }
    }
    begin_round(x);
}

/// Whether `u` may still be picked this round.
pub(super) fn can_take_turn(s: &BattleState, r: &State, u: UnitId) -> bool {
    let unit = &s.units[u.index()];
    unit.is_active() && !r.acted.contains(&u) && !unit.has(&Condition::Surprised)
}

/// The members `team` may pick now.
pub(super) fn options_of(s: &BattleState, r: &State, team: SideId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| s.units[u.index()].side == team && can_take_turn(s, r, u))
        .collect()
}

/// Hands the pick to the first team at or after `from` (in team order, wrapping) with a
/// member left to act; ends the round when no team has one.
pub(super) fn next_pick(x: &mut Exec, from: usize) {
    let r = Alternating::state(x.s());
    let n = r.teams.len();
    for i in 0..n {
        let idx = (from + i) % n;
        if !options_of(x.s(), r, r.teams[idx]).is_empty() {
            x.emit(Alternating::event(Ev::Picking { team: idx }));
            return;
        }
    }
    end_round(x);
}

pub(super) fn begin_turn(x: &mut Exec, u: UnitId) {
    x.emit(Alternating::event(Ev::TurnOf { unit: u }));
    x.emit(Event::TurnStarted { unit: u });
    x.set_pool(u, names::ACTIONS, ACTIONS);
    x.set_pool(u, names::REACTIONS, 1);
    // Effects that last "until next turn" end now.
    for c in [Condition::Guarding, Condition::InCover, Condition::Holding] {
        x.set_condition(u, c, false);
    }
}

pub(super) fn end_turn(x: &mut Exec, u: UnitId) {
    x.emit(Event::TurnEnded { unit: u });
    x.emit(Alternating::event(Ev::TurnOver));
    let r = Alternating::state(x.s());
    let side = x.s().units[u.index()].side;
    let idx = r.teams.iter().position(|&t| t == side).unwrap_or(0);
    next_pick(x, idx + 1);
}

/// After a command: run deferred continuations once no reaction is awaited, then end the
/// acting unit's turn if it has no action left or can no longer act.
pub(super) fn settle(x: &mut Exec) {
    loop {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        if let Some(c) = Alternating::state(x.s()).pending.last().cloned() {
            x.emit(Alternating::event(Ev::Undefer));
            run(x, c);
            continue;
        }
        break;
    }
    if let Some(c) = Alternating::state(x.s()).command.clone() {
        let ally = &x.s().units[c.ally.index()];
        if ally.is_active() && ally.pool(names::ACTIONS) > 0 {
            return;
        }
        end_command(x, &c);
    }
    let Some(u) = Alternating::state(x.s()).acting else {
        return;
    };
    let unit = &x.s().units[u.index()];
    if !unit.is_active() || unit.pool(names::ACTIONS) <= 0 {
        end_turn(x, u);
    }
}

/// The commanded ally's action is done: it gets its own actions back and the commander goes on.
pub(super) fn end_command(x: &mut Exec, c: &Commanded) {
    x.set_pool(c.ally, names::ACTIONS, c.ally_actions);
    x.emit(Alternating::event(Ev::CommandDone));
}

pub(super) fn run(x: &mut Exec, c: Resume) {
    match c {
        Resume::Move { unit, rest } => walk(x, unit, &rest),
        Resume::Attack(p) => finish_attack(x, &p, &Reaction::Decline),
        Resume::Nothing | Resume::Rules(_) => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions and commands

pub fn pending(s: &BattleState, r: &State) -> Decision {
    if let Some(unit) = r.acting {
        return Decision::Act { unit };
    }
    match r.teams.get(r.picking) {
        Some(&side) => Decision::Pick {
            side,
            options: options_of(s, r, side),
        },
        None => Decision::Over { winner: None },
    }
}
