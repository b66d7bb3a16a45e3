//! Initiative, Phases and Turns, and whose action it is: the opening, moving on to the next
//! action, Delay's place in the order, the end of a Phase and the Post-Turn.

use super::names;
use super::{Budget, Ev, Held, Phases, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{BattleState, Condition, Decision, Event, Exec, Purpose, UnitId};
use crate::rules::rulesets::Member;

pub(super) fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    for &u in &ids {
        for pool in [names::BODY, names::STUN] {
            let v = x.s().units[u.index()].stat(pool);
            x.set_pool(u, pool, v);
        }
    }
    // Initiative: CV + Lightning Reflexes; ties rolled off with 1d6 (again while tied).
    let scores: Vec<i64> = ids
        .iter()
        .map(|&u| {
            let unit = &x.s().units[u.index()];
            unit.stat(names::CV) + unit.stat(names::LIGHTNING_REFLEXES)
        })
        .collect();
    let mut order = ids.clone();
    order.sort_by(|&a, &b| scores[b.index()].cmp(&scores[a.index()]).then(a.cmp(&b)));
    let mut tiebreak: Vec<Vec<i64>> = vec![Vec::new(); ids.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && scores[order[j].index()] == scores[order[i].index()] {
            j += 1;
        }
        // Roll among the tied until they differ (a few rounds at most; then unit order).
        let mut group: Vec<UnitId> = order[i..j].to_vec();
        for _ in 0..8 {
            let tied: Vec<UnitId> = group
                .iter()
                .copied()
                .filter(|&u| {
                    group
                        .iter()
                        .any(|&v| v != u && tiebreak[v.index()] == tiebreak[u.index()])
                })
                .collect();
            if tied.is_empty() {
                break;
            }
            for u in tied {
                let r = x
                    .roll(Some(u), None, Purpose::TieBreak, &ndx(1, 6, 0), None)
                    .total;
                tiebreak[u.index()].push(r);
            }
            group.sort_by(|&a, &b| {
                tiebreak[b.index()]
                    .cmp(&tiebreak[a.index()])
                    .then(a.cmp(&b))
            });
        }
        order[i..j].copy_from_slice(&group);
        i = j;
    }
    x.emit(Phases::event(Ev::Initiative { scores, order }));
    let unaware: Vec<UnitId> = ids
        .iter()
        .copied()
        .filter(|&u| x.s().named_surprised(u))
        .collect();
    let surprise = !unaware.is_empty() && unaware.len() < ids.len();
    x.emit(Event::RoundStarted { round: 1 });
    if surprise {
        for &u in &unaware {
            x.set_condition(u, Condition::Surprised, true);
        }
        x.emit(Phases::event(Ev::Phase { phase: 0 }));
    } else {
        x.emit(Phases::event(Ev::Phase { phase: 1 }));
    }
    advance(x);
}

/// House rule (Reinforcements): a reinforcement's initiative is its CV + Lightning Reflexes, as
/// at the start, with no roll: it takes its place after those with the same score. It acts in
/// the Phase it arrives in if its place there is still to come (no one after it has had their
/// place in this Phase yet), else from the next Phase. It arrives with BODY and STUN full.
pub(super) fn joined(x: &mut Exec, u: UnitId) {
    for pool in [names::BODY, names::STUN] {
        let v = x.s().units[u.index()].stat(pool);
        x.set_pool(u, pool, v);
    }
    let unit = &x.s().units[u.index()];
    let score = unit.stat(names::CV) + unit.stat(names::LIGHTNING_REFLEXES);
    let r = Phases::state(x.s());
    let at = r
        .order
        .iter()
        .position(|&v| r.scores.get(v).copied().unwrap_or(0) < score)
        .unwrap_or(r.order.len());
    let done = r.order[at..]
        .iter()
        .any(|&v| r.done.get(v).copied().unwrap_or(false));
    x.emit(Phases::event(Ev::Joined {
        unit: u,
        score,
        at,
        done,
    }));
}

/// The next unit whose place in the Phase comes up: the first in the order whose place has
/// not passed, able to act (and aware, in the Surprise Phase).
fn next_actor(s: &BattleState, r: &State) -> Option<UnitId> {
    r.order.iter().copied().find(|&u| {
        !r.done.get(u).copied().unwrap_or(true)
            && s.units[u.index()].is_active()
            && !(r.phase == 0 && s.units[u.index()].has(&Condition::Surprised))
    })
}

/// Delaying units that may be asked now (able to act, not asked at this point yet).
fn waiting(s: &BattleState, r: &State) -> Vec<UnitId> {
    r.order
        .iter()
        .copied()
        .filter(|&u| {
            matches!(r.held.get(u), Some(Some(Held::Delay)))
                && s.units[u.index()].is_active()
                && !s.units[u.index()].has(&Condition::Stunned)
                && !r.asked.contains(&u)
        })
        .collect()
}

/// Moves the battle on to the next decision when no one is acting: asks delaying units,
/// starts the next unit's action, ends Phases and Turns.
pub(super) fn advance(x: &mut Exec) {
    for _ in 0..10_000 {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let r = Phases::state(x.s());
        if r.acting.is_some() || r.asking.is_some() {
            return;
        }
        let next = next_actor(x.s(), r);
        if let Some(h) = waiting(x.s(), r).into_iter().find(|&h| Some(h) != next) {
            x.emit(Phases::event(Ev::Asking { unit: Some(h) }));
            return;
        }
        let Some(u) = next else {
            end_phase(x);
            continue;
        };
        let r = Phases::state(x.s());
        if r.held.get(u).is_some_and(|h| h.is_some()) {
            // Rules P-119, P-133: the held action is lost when the unit's next action comes.
            x.emit(Phases::event(Ev::Lapsed { unit: u }));
        }
        if Phases::state(x.s())
            .lose_next
            .get(u)
            .copied()
            .unwrap_or(false)
        {
            // Rule P-138: it gave this action up when it aborted.
            x.emit(Phases::event(Ev::Forfeit { unit: u }));
            continue;
        }
        begin_action(x, u);
        return;
    }
}

fn begin_action(x: &mut Exec, u: UnitId) {
    if !Phases::state(x.s()).done.get(u).copied().unwrap_or(true) {
        x.emit(Phases::event(Ev::Done { unit: u }));
    }
    x.emit(Phases::event(Ev::Acting { unit: Some(u) }));
    x.emit(Event::TurnStarted { unit: u });
    // House rule: Dodge and the other manoeuvres last until the unit's next action.
    x.set_condition(u, Condition::Dodging, false);
    super::manoeuvres::at_action_start(x, u);
}

fn end_phase(x: &mut Exec) {
    super::manoeuvres::land_haymakers(x);
    if x.over() {
        return;
    }
    // House rule (Take a Recovery, P-55, P-72): one started in an earlier Phase and not
    // completed in this one, the unit's next, is lost, whether the unit acted in it or not
    // (it may have delayed and given the delay up, or aborted its action away).
    let now = super::manoeuvres::phase_serial(x.s());
    let lapsed: Vec<UnitId> = x
        .s()
        .unit_ids()
        .filter(|&u| {
            Phases::state(x.s())
                .man
                .started
                .get(u)
                .copied()
                .flatten()
                .is_some_and(|at| at < now)
        })
        .collect();
    for unit in lapsed {
        x.emit(Phases::event(Ev::Started { unit, at: None }));
    }
    let phase = Phases::state(x.s()).phase;
    match phase {
        0 => {
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                x.set_condition(u, Condition::Surprised, false);
            }
            x.emit(Phases::event(Ev::Phase { phase: 1 }));
        }
        1..=3 => x.emit(Phases::event(Ev::Phase { phase: phase + 1 })),
        _ => {
            // The Post-Turn: conscious, unstunned units Take a Recovery (house rule).
            x.emit(Phases::event(Ev::PostTurn));
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                let unit = &x.s().units[u.index()];
                if !unit.is_active() || unit.has(&Condition::Stunned) {
                    continue;
                }
                let (now, max, rec) = (
                    unit.pool(names::STUN),
                    unit.stat(names::STUN),
                    unit.stat(names::REC),
                );
                if now < max {
                    x.set_pool(u, names::STUN, (now + rec.max(0)).min(max));
                }
            }
            let round = x.s().round;
            x.emit(Event::RoundEnded { round });
            x.emit(Event::RoundStarted { round: round + 1 });
            x.emit(Phases::event(Ev::Phase { phase: 1 }));
        }
    }
}

pub(super) fn end_action(x: &mut Exec, u: UnitId) {
    super::manoeuvres::at_action_end(x, u);
    x.emit(Event::TurnEnded { unit: u });
    x.emit(Phases::event(Ev::Acting { unit: None }));
    advance(x);
}

/// How many attack and move actions a unit has this Phase.
pub(super) fn cap(r: &State) -> u8 {
    if r.phase == 0 { 1 } else { 2 }
}

pub(super) fn budget(r: &State, u: UnitId) -> Budget {
    r.budget.get(u).copied().unwrap_or_default()
}

/// Whether the acting unit has anything left to do but end its part of the Phase.
fn has_more(s: &BattleState, r: &State, u: UnitId) -> bool {
    let unit = &s.units[u.index()];
    if !unit.is_active() || unit.has(&Condition::Stunned) {
        return false;
    }
    let b = budget(r, u);
    let actions_left = !b.full && b.actions < cap(r);
    let step_left = !b.moved && !b.stepped && unit.movement > 1;
    actions_left || step_left
}

/// After a command or a continuation: end the action when nothing is left, or move on.
pub(super) fn after(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    let r = Phases::state(x.s());
    match (r.acting, r.asking) {
        (Some(u), _) if !has_more(x.s(), r, u) => end_action(x, u),
        (None, None) => advance(x),
        _ => {}
    }
}

pub(super) fn pending(_: &BattleState, r: &State) -> Decision {
    match r.asking.or(r.acting) {
        Some(unit) => Decision::Act { unit },
        None => Decision::Over { winner: None },
    }
}

/// Rules P-116, P-118, P-120: a delaying unit acts now; its place in the order becomes this
/// point (just before the unit that would have acted next, or last), and its regular action
/// of this Phase is used.
pub(super) fn take_delayed(x: &mut Exec, u: UnitId) {
    let r = Phases::state(x.s());
    let next = next_actor(x.s(), r).filter(|&n| n != u);
    let mut order: Vec<UnitId> = r.order.iter().copied().filter(|&o| o != u).collect();
    let at = next
        .and_then(|n| order.iter().position(|&o| o == n))
        .unwrap_or(order.len());
    order.insert(at, u);
    x.emit(Phases::event(Ev::Asking { unit: None }));
    x.emit(Phases::event(Ev::Held {
        unit: u,
        held: None,
    }));
    x.emit(Phases::event(Ev::Order { order }));
    begin_action(x, u);
}
