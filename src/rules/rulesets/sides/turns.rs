//! Whose turn it is in `sides`: the Party and initiative (S-09..S-14), the surprise round
//! (S-15), rounds and their end (S-105, S-152), the side whose turn it is and the member it
//! picks (S-10, S-11), and the loop that settles interrupts and runs the schedule on until a
//! decision is needed.

use super::actions::run_command;
use super::combat::reaction_options;
use super::names;
use super::{Ev, Sides, State, active, combat, moves, per};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    BattleState, Condition, Decision, Event, Exec, Purpose, Reaction, Resume, SideId, UnitId,
};
use crate::rules::rulesets::Member;

/// The Party: `options.party`, or the first side.
fn party_of(s: &BattleState) -> SideId {
    s.level
        .options
        .party
        .as_ref()
        .and_then(|n| s.sides.iter().position(|x| &x.name == n))
        .map_or(SideId(0), |i| SideId(i as u8))
}

// ---------------------------------------------------------------------------------------------
// Start, rounds, side turns

pub fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    let party = party_of(x.s());
    x.emit(Sides::event(Ev::Setup {
        party,
        units: ids.len(),
    }));
    for &u in &ids {
        let hp = x.s().units[u.index()].stat(names::HP);
        x.set_pool(u, names::HP, hp);
    }
    // Surprise (S-15): the level names who is caught unaware.
    let surprised: Vec<UnitId> = ids
        .iter()
        .copied()
        .filter(|&u| x.s().named_surprised(u))
        .collect();
    if !surprised.is_empty() && surprised.len() < ids.len() {
        for &u in &surprised {
            x.set_condition(u, Condition::Surprised, true);
        }
        x.emit(Sides::event(Ev::SurpriseRound));
    } else {
        roll_initiative(x);
    }
    begin_round(x);
    settle(x);
}

/// House rule (Reinforcements): initiative is the side's (S-09), so a reinforcement joins its
/// side's turn with its Main and Move actions and full hit points: if its side's turn this
/// round is under way or still to come, its side may pick it this round; if it has passed, it
/// acts from the next round.
pub(super) fn joined(x: &mut Exec, u: UnitId) {
    let hp = x.s().units[u.index()].stat(names::HP);
    x.set_pool(u, names::HP, hp);
    x.emit(Sides::event(Ev::Joined { unit: u }));
}

/// S-09, S-13, S-14: each side rolls 1d8 once, the Party adds its best DEX and wins ties.
fn roll_initiative(x: &mut Exec) {
    let party = Sides::state(x.s()).party.unwrap_or(SideId(0));
    let n = x.s().sides.len();
    let mut scores = vec![0i64; n];
    let mut order = Vec::new();
    for (i, score) in scores.iter_mut().enumerate() {
        let side = SideId(i as u8);
        let members = x.s().members(side);
        if members.is_empty() {
            continue;
        }
        let bonus = if side == party {
            members
                .iter()
                .map(|&u| x.s().units[u.index()].stat(names::DEX))
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let roll = x.roll(
            None,
            Some(side),
            Purpose::Initiative,
            &ndx(1, 8, bonus),
            None,
        );
        *score = roll.total;
        order.push(side);
    }
    order.sort_by(|&a, &b| {
        scores[b.index()]
            .cmp(&scores[a.index()])
            .then((b == party).cmp(&(a == party)))
            .then(a.cmp(&b))
    });
    x.emit(Sides::event(Ev::Initiative { order, scores }));
}

fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(Sides::event(Ev::RoundReset));
}

/// Ends the round: grapples hurt (S-152), held actions lapse (S-105), Disengage and Charge
/// wear off; after the surprise round, initiative is rolled. Then the next round begins.
fn end_round(x: &mut Exec) {
    for g in x.s().unit_ids().collect::<Vec<_>>() {
        let Some(t) = per(Sides::state(x.s()), g).grappling else {
            continue;
        };
        if active(x.s(), g) && active(x.s(), t) {
            combat::unarmed_damage(x, g, t);
        }
    }
    if x.over() {
        return;
    }
    let round = x.s().round;
    let (turns, surprise) = (Sides::state(x.s()).turns, Sides::state(x.s()).surprise);
    if turns == 0 && !surprise {
        x.emit(Event::Ended {
            winner: None,
            reason: format!("no one could act in round {round}"),
        });
        return;
    }
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Holding, false);
        x.set_condition(u, Condition::Disengaged, false);
        x.set_condition(u, Condition::Charging, false);
        if surprise {
            x.set_condition(u, Condition::Surprised, false);
        }
    }
    if surprise {
        roll_initiative(x);
    }
    begin_round(x);
}

/// The sides in the order they act this round: level order in the surprise round, else
/// initiative order.
pub fn round_sides(s: &BattleState) -> Vec<SideId> {
    let r = Sides::state(s);
    if r.surprise {
        (0..s.sides.len()).map(|i| SideId(i as u8)).collect()
    } else {
        r.order.clone()
    }
}

/// Members of `side` that can still be picked this round.
pub fn pick_options(s: &BattleState, side: SideId) -> Vec<UnitId> {
    let r = Sides::state(s);
    s.unit_ids()
        .filter(|&u| {
            let unit = &s.units[u.index()];
            unit.side == side
                && unit.is_active()
                && !per(r, u).acted
                && !super::morale::fleeing(r, u)
                && !(r.surprise && unit.has(&Condition::Surprised))
        })
        .collect()
}

/// Runs the schedule until a decision is needed: ends the turn of a unit that fell, moves to
/// the next side, the next round; picks the last member of a side by itself.
fn advance(x: &mut Exec) {
    loop {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        super::morale::check(x);
        if x.over() {
            return;
        }
        let (acting, side_turn) = {
            let r = Sides::state(x.s());
            (r.acting, r.side_turn)
        };
        if let Some(u) = acting {
            if active(x.s(), u) {
                return;
            }
            x.emit(Event::TurnEnded { unit: u });
            x.emit(Sides::event(Ev::TurnDone { unit: u }));
            continue;
        }
        let sides = round_sides(x.s());
        let Some(&side) = sides.get(side_turn) else {
            end_round(x);
            continue;
        };
        if let Some(u) = super::morale::next_to_flee(x.s(), Sides::state(x.s()), side) {
            super::morale::flee(x, u);
            continue;
        }
        let options = pick_options(x.s(), side);
        match options.len() {
            0 => x.emit(Sides::event(Ev::SideTurn {
                index: side_turn + 1,
            })),
            1 => start_turn(x, options[0]),
            _ => return,
        }
    }
}

pub(super) fn start_turn(x: &mut Exec, u: UnitId) {
    x.emit(Sides::event(Ev::Picked { unit: u }));
    x.emit(Event::TurnStarted { unit: u });
    // "until the start of your next turn" (S-70, S-81).
    x.set_condition(u, Condition::TotalDefense, false);
    let screens: Vec<Condition> = x.s().units[u.index()]
        .conditions
        .iter()
        .filter(|c| matches!(c, Condition::Screening { .. }))
        .cloned()
        .collect();
    for c in screens {
        x.set_condition(u, c, false);
    }
}

/// Settles interrupts whose reactors have all answered: runs held actions, then each
/// interrupt's continuation; then the schedule goes on.
pub(super) fn settle(x: &mut Exec) {
    loop {
        if x.over() {
            return;
        }
        let depth = x.s().interrupts.len();
        if depth == 0 {
            advance(x);
            return;
        }
        let top = x.s().interrupts[depth - 1].clone();
        if let Some(&first) = top.reactors.first() {
            // A reactor left with nothing but Decline (its chance passed) is not asked.
            if reaction_options(x.s(), first, &top).len() <= 1 {
                x.emit(Event::Reacted {
                    unit: first,
                    reaction: Reaction::Decline,
                });
                continue;
            }
            return;
        }
        let (nested, queued) = {
            let r = Sides::state(x.s());
            (
                r.nested.last().copied(),
                r.queued.iter().find(|q| q.1 == depth).copied(),
            )
        };
        if let Some((u, d)) = nested
            && d == depth
        {
            if active(x.s(), u) {
                return;
            }
            x.emit(Sides::event(Ev::HeldDone { unit: u }));
            continue;
        }
        if let Some((u, _)) = queued {
            x.emit(Sides::event(Ev::HeldTaken { unit: u, depth }));
            x.set_condition(u, Condition::Holding, false);
            continue;
        }
        x.emit(Event::Resumed);
        match top.resume {
            Resume::Move { unit, rest } => moves::walk_run(x, unit, &rest, true),
            Resume::Attack(p) => combat::resolve(x, &p),
            Resume::Rules(_) if Sides::resume_of(&top.resume).is_some() => {
                let d = Sides::state(x.s())
                    .deferred
                    .iter()
                    .rev()
                    .find(|d| d.depth == depth)
                    .cloned();
                if let Some(d) = d {
                    x.emit(Sides::event(Ev::Undeferred { depth }));
                    run_command(x, d.command, d.stage);
                }
            }
            Resume::Rules(_) | Resume::Nothing => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions

pub fn pending(s: &BattleState, r: &State) -> Decision {
    if let Some(&(unit, d)) = r.nested.last()
        && d == s.interrupts.len()
    {
        return Decision::Act { unit };
    }
    if let Some(unit) = r.acting {
        return Decision::Act { unit };
    }
    if let Some(&side) = round_sides(s).get(r.side_turn) {
        let options = pick_options(s, side);
        if !options.is_empty() {
            return Decision::Pick { side, options };
        }
    }
    Decision::Over { winner: None }
}
