//! Initiative, rounds and turns: the opening rolls, whose turn it is, the start and end of
//! turns and rounds, and extended actions paid at the start of a turn.

use super::{ActionPoints, Ev, State, actions, names};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{BattleState, Condition, Decision, Event, Exec, Purpose, UnitId};
use crate::rules::level::{ApRefresh, Controller};
use crate::rules::rulesets::Member;

pub(super) fn is_pc(s: &BattleState, u: UnitId) -> bool {
    s.units[u.index()].side.index() < s.sides.len()
        && s.sides[s.units[u.index()].side.index()].controller == Controller::Human
}

pub(super) fn start(x: &mut Exec) {
    init_pools(x);
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    // Surprise.
    for &u in &ids {
        if x.s().named_surprised(u) {
            x.set_condition(u, Condition::Surprised, true);
        }
    }
    // Initiative: 1d6 + rating; NPCs of one side and template share a roll.
    let mut scores = vec![0i64; ids.len()];
    let mut group_rolls: Vec<((u8, std::sync::Arc<str>), i64)> = Vec::new();
    for &u in &ids {
        let unit = x.s().units[u.index()].clone();
        let rating = unit.stat(names::INITIATIVE_RATING);
        if unit.has(&Condition::Surprised) {
            scores[u.index()] = rating;
            continue;
        }
        let key = (unit.side.0, unit.template.clone());
        let shared = if is_pc(x.s(), u) {
            None
        } else {
            group_rolls.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)
        };
        let die = match shared {
            Some(r) => r,
            None => {
                let r = x
                    .roll(Some(u), None, Purpose::Initiative, &ndx(1, 6, 0), None)
                    .total;
                if !is_pc(x.s(), u) {
                    group_rolls.push((key, r));
                }
                r
            }
        };
        scores[u.index()] = die + rating;
    }
    // Order: score, rating, luck, PCs first; then contested luck rolls among exact ties.
    let key = |s: &BattleState, u: UnitId| {
        let unit = &s.units[u.index()];
        (
            scores[u.index()],
            unit.stat(names::INITIATIVE_RATING),
            unit.stat(names::LUCK),
            is_pc(s, u),
        )
    };
    let mut order = ids.clone();
    order.sort_by(|&a, &b| key(x.s(), b).cmp(&key(x.s(), a)).then(a.cmp(&b)));
    let mut contested = vec![0i64; ids.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && key(x.s(), order[j]) == key(x.s(), order[i]) {
            j += 1;
        }
        if j - i > 1 {
            for &u in &order[i..j] {
                let luck = x.s().units[u.index()].stat(names::LUCK);
                contested[u.index()] = x
                    .roll(Some(u), None, Purpose::TieBreak, &ndx(1, 20, luck), None)
                    .total;
            }
            order[i..j].sort_by(|&a, &b| {
                contested[b.index()]
                    .cmp(&contested[a.index()])
                    .then(a.cmp(&b))
            });
        }
        i = j;
    }
    x.emit(ActionPoints::event(Ev::Initiative { order, scores }));
    begin_round(x);
    advance(x, 0);
}

/// a reinforcement rolls initiative (1d6 + rating, a roll of its own) and takes the
/// place its score gives it in the order, after those with the same score, Initiative Rating
/// and Luck. If that place comes at or before the turn under way, its first turn is in the next
/// round; otherwise it acts this round when its place comes. It arrives with its AP full.
pub(super) fn joined(x: &mut Exec, u: UnitId) {
    let hp = x.s().units[u.index()].stat(names::HP);
    x.set_pool(u, names::HP, hp);
    let ap = max_ap(x, u);
    x.set_pool(u, names::AP, ap);
    let rating = x.s().units[u.index()].stat(names::INITIATIVE_RATING);
    let die = x
        .roll(Some(u), None, Purpose::Initiative, &ndx(1, 6, 0), None)
        .total;
    let score = die + rating;
    let s = x.s();
    let r = ActionPoints::state(s);
    let key = |v: UnitId, score: i64| {
        let unit = &s.units[v.index()];
        (
            score,
            unit.stat(names::INITIATIVE_RATING),
            unit.stat(names::LUCK),
        )
    };
    let mine = key(u, score);
    let at = r
        .order
        .iter()
        .position(|&v| key(v, r.scores.get(v).copied().unwrap_or(0)) < mine)
        .unwrap_or(r.order.len());
    x.emit(ActionPoints::event(Ev::Joined { unit: u, score, at }));
}

pub(super) fn max_ap(x: &Exec, u: UnitId) -> i64 {
    x.s().units[u.index()].stat(names::AP)
}

/// Starts the next round: refreshes AP. The caller then looks for the first turn ([`advance`]).
fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    let per_turn = x.s().level.options.ap_refresh == ApRefresh::Turn;
    if !per_turn || round == 1 {
        for u in x.s().unit_ids().collect::<Vec<_>>() {
            if x.s().units[u.index()].is_active() {
                let ap = max_ap(x, u);
                x.set_pool(u, names::AP, ap);
            }
        }
    }
}

fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Guarding, false);
    }
    // Advantage lasts to the end of the round (house rule X-36).
    for unit in ActionPoints::state(x.s()).advantage.clone() {
        x.emit(ActionPoints::event(Ev::Advantage { unit, on: false }));
    }
}

/// Starts the turn of the first unit at or after `from` in the order that can act; skips
/// (with their events) the turns of units that cannot; when none is left, ends the round and
/// goes on in the next (a loop, not recursion: a round in which no one can act is passed in
/// constant stack, and the engine ends a battle that stalls, see `STALL_ROUNDS`).
pub(super) fn advance(x: &mut Exec, from: usize) {
    let mut i = from;
    loop {
        if x.over() {
            return;
        }
        let order = ActionPoints::state(x.s()).order.clone();
        if i >= order.len() {
            end_round(x);
            begin_round(x);
            i = 0;
            continue;
        }
        let u = order[i];
        if !x.s().units[u.index()].is_active() {
            i += 1;
            continue;
        }
        x.emit(ActionPoints::event(Ev::Turn { index: i }));
        x.emit(Event::TurnStarted { unit: u });
        if x.s().level.options.ap_refresh == ApRefresh::Turn && x.s().round > 1 {
            let ap = max_ap(x, u);
            x.set_pool(u, names::AP, ap);
        }
        if x.s().units[u.index()].has(&Condition::Surprised) {
            // Only reactions until the first turn has passed: this turn is that turn.
            x.emit(Event::TurnEnded { unit: u });
            x.set_condition(u, Condition::Surprised, false);
            i += 1;
            continue;
        }
        finish_extended(x, u);
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        if x.s().units[u.index()].pool(names::AP) > 0 && x.s().units[u.index()].is_active() {
            return;
        }
        x.emit(Event::TurnEnded { unit: u });
        i += 1;
    }
}

/// Pays the rest of an extended action at the start of the unit's turn; when paid, the action
/// takes effect if it still can.
pub(super) fn finish_extended(x: &mut Exec, u: UnitId) {
    let Some(ext) = ActionPoints::state(x.s())
        .extended
        .get(u)
        .cloned()
        .flatten()
    else {
        return;
    };
    let ap = x.s().units[u.index()].pool(names::AP);
    if ap < ext.remaining {
        x.set_pool(u, names::AP, 0);
        x.emit(ActionPoints::event(Ev::ExtendedStarted {
            unit: u,
            command: ext.command,
            remaining: ext.remaining - ap,
        }));
        return;
    }
    x.add_pool(u, names::AP, -ext.remaining);
    let still_valid = actions::target_ok(x.s(), &ext.command).is_ok();
    x.emit(ActionPoints::event(Ev::ExtendedDone {
        unit: u,
        completed: still_valid,
    }));
    if still_valid {
        actions::perform(x, &ext.command);
    }
}

pub(super) fn current(r: &State) -> Option<UnitId> {
    r.order.get(r.turn).copied()
}

/// Whether AP that `unit` spends now (on a reaction) come out of its own turn this round: the
/// turn is still to come, and its AP are not refreshed when it starts (`ap_refresh: Round`, or
/// the first round).
pub(super) fn spends_from_coming_turn(s: &BattleState, r: &State, unit: UnitId) -> bool {
    let refreshed_at_its_turn = s.level.options.ap_refresh == ApRefresh::Turn && s.round > 1;
    let to_come = r
        .order
        .iter()
        .position(|&u| u == unit)
        .is_some_and(|i| i > r.turn);
    to_come && !refreshed_at_its_turn
}

/// After an action: the turn ends by itself when the unit has no AP left (or fell).
pub(super) fn after_action(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    let r = ActionPoints::state(x.s());
    let turn = r.turn;
    let Some(u) = current(r) else { return };
    let unit = &x.s().units[u.index()];
    if !unit.is_active() || unit.pool(names::AP) <= 0 {
        x.emit(Event::TurnEnded { unit: u });
        advance(x, turn + 1);
    }
}

pub(super) fn pending(_: &BattleState, r: &State) -> Decision {
    match current(r) {
        Some(unit) => Decision::Act { unit },
        None => Decision::Over { winner: None },
    }
}

/// Pools every unit starts with.
pub(super) fn init_pools(x: &mut Exec) {
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        let hp = x.s().units[u.index()].stat(names::HP);
        x.set_pool(u, names::HP, hp);
    }
}
