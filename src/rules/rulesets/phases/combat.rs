//! Attacks, reactions and damage: attack rolls, attacks of opportunity on a walk or a
//! standing up, readied actions, aborting to Dodge, and the continuations after them.

use super::actions::{check_act, half, move_path, perform, reject, spend};
use super::manoeuvres::{self, Blow};
use super::names;
use super::turns::{after, budget};
use super::{After, Ev, Held, Phases, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Condition, Event, Exec, Interrupt, PendingAttack, Purpose, Reaction,
    ReadyTrigger, Rejected, Resume, Status, Term, Trigger, Unit, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;

/// The DCV penalty of units unaware during the Surprise Phase (seed: "-3 DCV").
const UNAWARE_DCV: i64 = 3;

/// Which attack `a` can make on `t` now: `Some(false)` melee, `Some(true)` ranged.
pub(super) fn attack_kind(
    s: &BattleState,
    a: UnitId,
    t: UnitId,
    ranged: bool,
) -> Result<(), Rejected> {
    let (Some(au), Some(tu)) = (s.unit(a), s.unit(t)) else {
        return Err(Rejected::new(format!("there is no {t}")));
    };
    if !s.are_enemies(a, t) {
        return Err(Rejected::new(format!(
            "{} is not an enemy of {}",
            tu.name, au.name
        )));
    }
    if !tu.is_active() {
        return Err(Rejected::new(format!(
            "{} is already out of the fight",
            tu.name
        )));
    }
    if !ranged {
        if !s.in_melee_reach(a, t) {
            return Err(Rejected::new(format!(
                "{} is not within {}'s reach ({} hex{})",
                tu.name,
                au.name,
                au.reach,
                if au.reach == 1 { "" } else { "es" }
            )));
        }
        return Ok(());
    }
    let range = au.stat(names::RANGE);
    if range <= 0 {
        return Err(Rejected::new(format!("{} has no ranged attack", au.name)));
    }
    // P-70: a gun's shots run out; it must be reloaded.
    s.loaded_check(a).map_err(Rejected::new)?;
    let d = s.distance(a, t) as i64;
    if d > range {
        return Err(Rejected::new(format!(
            "{} is {d} hexes from {}; the ranged attack reaches {range}",
            tu.name, au.name
        )));
    }
    if s.cover(a, t) == Cover::Blocked {
        return Err(Rejected::new(format!("{} cannot see {}", au.name, tu.name)));
    }
    Ok(())
}

/// The attack a readied unit makes on `t`: melee if in reach, else ranged if it can.
fn ready_attack(s: &BattleState, a: UnitId, t: UnitId) -> Option<bool> {
    if attack_kind(s, a, t, false).is_ok() {
        Some(false)
    } else if attack_kind(s, a, t, true).is_ok() {
        Some(true)
    } else {
        None
    }
}

/// Rule P-131: the hex a readied unit takes a 1-hex step to as part of its readied attack on
/// `t`, when `t` is out of its reach and range but within reach from a hex next to it. Only if
/// the unit has not moved any distance (nor stepped) this Phase and could take a 1-hex step at
/// all. The first such hex in the grid's order of neighbours (house rule).
pub(super) fn ready_step(s: &BattleState, h: UnitId, t: UnitId) -> Option<Cell> {
    let (hu, tu) = (s.unit(h)?, s.unit(t)?);
    let b = budget(Phases::state(s), h);
    if ready_attack(s, h, t).is_some()
        || b.moved
        || b.stepped
        || hu.is_prone()
        || hu.movement <= 1
        || s.terrain.difficult(hu.cell)
        || !s.are_enemies(h, t)
        || !tu.is_active()
    {
        return None;
    }
    let reach = s.reach_of(h, 1, None);
    s.grid().neighbours(hu.cell).into_iter().find(|&to| {
        let d = s.grid().distance_steps(to, tu.cell);
        !s.terrain.difficult(to)
            && reach.can_end(to)
            && d >= 1
            && d <= hu.reach
            && (d == 1 || crate::rules::sight::line_of_sight(&s.terrain, to, tu.cell))
    })
}

/// The path of `h`'s readied move now (up to half its movement, through open hexes), if it
/// holds one and may move: not prone, no 1-hex step taken this Phase.
pub(super) fn ready_move_path(s: &BattleState, h: UnitId) -> Option<Path> {
    let unit = s.unit(h)?;
    let Some(Some(Held::ReadyMove(_, to))) = Phases::state(s).held.get(h) else {
        return None;
    };
    if unit.is_prone()
        || budget(Phases::state(s), h).stepped
        || *to == unit.cell
        || manoeuvres::grabbed(s, h).is_some()
    {
        return None;
    }
    move_path(s, h, *to, half(unit))
}

/// Whether `h` can take its readied action against (or in answer to) `actor` now.
fn can_take_ready(s: &BattleState, h: UnitId, actor: UnitId) -> bool {
    match Phases::state(s).held.get(h) {
        Some(Some(Held::Ready(_))) => {
            ready_attack(s, h, actor).is_some() || ready_step(s, h, actor).is_some()
        }
        Some(Some(Held::ReadyMove(..))) => ready_move_path(s, h).is_some(),
        Some(Some(Held::ReadyProne(_))) => s.unit(h).is_some_and(|u| !u.is_prone()),
        _ => false,
    }
}

/// Whether `u` may abort to a defensive action now (rules P-135..P-138).
pub(super) fn can_abort(s: &BattleState, r: &State, u: UnitId) -> bool {
    let Some(unit) = s.unit(u) else { return false };
    unit.is_active()
        && !unit.has(&Condition::Stunned)
        && !unit.has(&Condition::Dodging)
        && r.phase != 0
        && r.acting != Some(u)
        && !r.lose_next.get(u).copied().unwrap_or(true)
}

pub(super) fn check_react(
    s: &BattleState,
    r: &State,
    u: UnitId,
    reaction: &Reaction,
) -> Result<(), Rejected> {
    let Some(top) = s.interrupts.last() else {
        return reject("nothing to react to now".into());
    };
    let n = s.unit_name(u);
    match (&top.trigger, reaction) {
        (_, Reaction::Decline) => Ok(()),
        (Trigger::Opportunity { mover: m, .. }, Reaction::Attack { target })
        | (Trigger::Provoked { actor: m, .. }, Reaction::Attack { target }) => {
            if target != m {
                reject(format!(
                    "{n}'s attack of opportunity can only be made on {}",
                    s.unit_name(*m)
                ))
            } else {
                attack_kind(s, u, *target, false)
            }
        }
        (Trigger::Ready { .. }, Reaction::Attack { .. })
            if !matches!(r.held.get(u), Some(Some(Held::Ready(_)))) =>
        {
            reject(format!(
                "{n} readied a move or a free action, not an attack"
            ))
        }
        (Trigger::Ready { .. }, Reaction::TakeHeld)
            if matches!(r.held.get(u), Some(Some(Held::ReadyProne(_)))) =>
        {
            if s.unit(u).is_some_and(|x| x.is_prone()) {
                reject(format!("{n} is already prone"))
            } else {
                Ok(())
            }
        }
        (Trigger::Ready { .. }, Reaction::TakeHeld) => {
            if !matches!(r.held.get(u), Some(Some(Held::ReadyMove(..)))) {
                reject(format!("{n} has no readied move"))
            } else if ready_move_path(s, u).is_none() {
                reject(format!("{n} cannot make its readied move now"))
            } else {
                Ok(())
            }
        }
        (Trigger::Ready { actor }, Reaction::Attack { target }) => {
            if target != actor {
                reject(format!(
                    "{n}'s readied attack can only be made on {}",
                    s.unit_name(*actor)
                ))
            } else if ready_attack(s, u, *target).is_none() && ready_step(s, u, *target).is_none() {
                reject(format!("{n} cannot reach {}", s.unit_name(*target)))
            } else {
                Ok(())
            }
        }
        (Trigger::Targeted { ranged, .. }, Reaction::Abort { action }) => {
            let fits = match action {
                Action::Dodge => true,
                Action::Block | Action::RollWithPunch => !ranged,
                Action::MissileDeflection => *ranged,
                _ => false,
            };
            if !fits {
                reject(format!(
                    "{n} cannot abort to {} against this attack (Dodge; Block or Roll With A \
                     Punch against melee; Missile Deflection against a shot)",
                    action.name()
                ))
            } else if can_abort(s, r, u) {
                Ok(())
            } else {
                reject(format!("{n} cannot abort now"))
            }
        }
        (_, other) => reject(format!(
            "{} is not an answer here in the phases ruleset",
            s.show(other)
        )),
    }
}

/// Units whose readied attack waits for `actor` to act and can reach it.
pub(super) fn readied_on(s: &BattleState, actor: UnitId) -> Vec<UnitId> {
    let r = Phases::state(s);
    r.order
        .iter()
        .copied()
        .filter(|&h| {
            matches!(r.held.get(h).and_then(|x| x.as_ref()).and_then(Held::trigger), Some(ReadyTrigger::UnitActs { unit }) if *unit == actor)
                && s.units[h.index()].is_active()
                && !s.units[h.index()].has(&Condition::Stunned)
                && can_take_ready(s, h, actor)
        })
        .collect()
}

/// Standing up from prone provokes from every enemy threatening the unit's hex that may still
/// make an attack of opportunity (a new opportunity each time); acrobatics negates it.
pub(super) fn stand_up(x: &mut Exec, u: UnitId) {
    if let Some(reactors) = provoked(x, u, true) {
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Provoked {
                actor: u,
                action: "Stand up".into(),
            },
            reactors,
            resume: Phases::resume(After::StandUp),
        }));
        return;
    }
    x.set_condition(u, Condition::Prone, false);
}

/// The enemies a provoking act of `u` on its hex gives an attack of opportunity: every one
/// threatening the hex that may still make one, unless `skill_negates` and `u`'s acrobatics
/// roll (3d6 under the skill) negates it. `None`: no one may attack.
fn provoked(x: &mut Exec, u: UnitId, skill_negates: bool) -> Option<Vec<UnitId>> {
    let r = Phases::state(x.s());
    let cell = x.s().units[u.index()].cell;
    let reactors: Vec<UnitId> = r
        .order
        .iter()
        .copied()
        .filter(|&e| {
            let eu = &x.s().units[e.index()];
            x.s().are_enemies(e, u) && may_make_aoo(eu, r, e) && threatens(x.s(), e, cell)
        })
        .collect();
    if reactors.is_empty() {
        return None;
    }
    let skill = x.s().units[u.index()].stat(names::ACROBATICS);
    let negated = skill_negates
        && skill > 0
        && x.roll_under(Some(u), Purpose::Skill, &ndx(3, 6, 0), skill)
            .total
            <= skill;
    (!negated).then_some(reactors)
}

/// An item action that provokes (P-67, P-70, P-77, P-78, P-82): every enemy threatening the
/// unit's hex that may still make an attack of opportunity is asked first; where the text
/// lets a skill check negate it (`skill_negates`: drawing a focus, reloading a gun), the
/// unit's acrobatics roll does, as for standing up (house rule). Then the action is done.
pub(super) fn provoking_item_action(x: &mut Exec, u: UnitId, action: &Action, skill_negates: bool) {
    if let Some(reactors) = provoked(x, u, skill_negates) {
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Provoked {
                actor: u,
                action: action.name().into(),
            },
            reactors,
            resume: Phases::resume(After::Item(action.clone())),
        }));
        return;
    }
    x.item_action(u, action);
}

/// Whether `e` may make an attack of opportunity now (ignoring where and on whom).
pub(super) fn may_make_aoo(eu: &Unit, r: &State, e: UnitId) -> bool {
    eu.is_active()
        && !eu.has(&Condition::Stunned)
        && !eu.has(&Condition::Dodging)
        && !eu.has(&Condition::Surprised)
        && (eu.stat(names::COMBAT_REFLEXES) > 0 || r.aoo_made.get(e).copied().unwrap_or(0) == 0)
}

/// Enemies of `mover` whose attack of opportunity leaving `from` provokes.
pub(super) fn aoo_reactors(s: &BattleState, mover: UnitId, from: Cell) -> Vec<UnitId> {
    let r = Phases::state(s);
    r.order
        .iter()
        .copied()
        .filter(|&e| {
            let eu = &s.units[e.index()];
            s.are_enemies(e, mover)
                && may_make_aoo(eu, r, e)
                && threatens(s, e, from)
                && !r.offered.contains(&(e, mover))
        })
        .collect()
}

/// Whether `e` threatens `c`: within its reach, with sight beyond 1 hex.
pub(super) fn threatens(s: &BattleState, e: UnitId, c: Cell) -> bool {
    let eu = &s.units[e.index()];
    crate::rules::threat::melee_reaches(&s.terrain, eu.cell, eu.reach, c)
}

/// Units with an attack readied for an enemy coming within reach, that `mover` just came
/// within reach of by stepping from `from`.
fn readied_for_reach(s: &BattleState, mover: UnitId, from: Cell) -> Vec<UnitId> {
    let r = Phases::state(s);
    r.order
        .iter()
        .copied()
        .filter(|&h| {
            matches!(
                r.held
                    .get(h)
                    .and_then(|x| x.as_ref())
                    .and_then(Held::trigger),
                Some(ReadyTrigger::EnemyInReach)
            ) && s.are_enemies(h, mover)
                && s.units[h.index()].is_active()
                && !s.units[h.index()].has(&Condition::Stunned)
                && s.in_melee_reach(h, mover)
                && !threatens(s, h, from)
                && can_take_ready(s, h, mover)
        })
        .collect()
}

/// Walks `u` along `cells` (its cell first), asking for attacks of opportunity before each
/// step that leaves a threatened hex (when the walk provokes) and for readied attacks after
/// each step that brings it within an enemy's reach. Stops at the first interrupt.
pub(super) fn walk(x: &mut Exec, u: UnitId, cells: &[Cell]) {
    manoeuvres::blow_here(x, u);
    for i in 0..cells.len().saturating_sub(1) {
        let (from, to) = (cells[i], cells[i + 1]);
        let unit = &x.s().units[u.index()];
        if x.over() || !unit.is_active() || unit.has(&Condition::Stunned) || unit.cell != from {
            return;
        }
        // Under fog: a foe its side did not see holds the way (see `Exec::walk`).
        if let Some(by) = x.hidden_in(u, to) {
            x.emit(Event::Blocked {
                unit: u,
                by,
                at: to,
            });
            return;
        }
        if Phases::state(x.s()).walk_provokes {
            let reactors = aoo_reactors(x.s(), u, from);
            if !reactors.is_empty() {
                let negated = match Phases::state(x.s()).negated {
                    Some(n) => n,
                    None => {
                        let skill = x.s().units[u.index()].stat(names::ACROBATICS);
                        let ok = skill > 0
                            && x.roll_under(Some(u), Purpose::Skill, &ndx(3, 6, 0), skill)
                                .total
                                <= skill;
                        if skill > 0 {
                            x.emit(Phases::event(Ev::Negated { negated: Some(ok) }));
                        }
                        ok
                    }
                };
                if !negated {
                    x.emit(Phases::event(Ev::Offered {
                        mover: u,
                        reactors: reactors.clone(),
                    }));
                    x.emit(Event::Interrupted(Interrupt {
                        trigger: Trigger::Opportunity { mover: u, from, to },
                        reactors,
                        resume: Resume::Move {
                            unit: u,
                            rest: cells[i..].to_vec(),
                        },
                    }));
                    return;
                }
            }
        }
        let unseen = x.unseen_foes(u);
        x.emit(Event::Moved { unit: u, from, to });
        // Under fog: a foe seen for the first time stops the walk after this step.
        let spotted = x.spots(u, &unseen);
        manoeuvres::blow_here(x, u);
        if x.over() || !x.s().units[u.index()].is_active() {
            return;
        }
        let readiers = readied_for_reach(x.s(), u, from);
        if !readiers.is_empty() {
            // (A walk that spotted a foe has nothing left to resume.)
            let rest = if spotted { i + 2 } else { cells.len() };
            x.emit(Event::Interrupted(Interrupt {
                trigger: Trigger::Ready { actor: u },
                reactors: readiers,
                resume: Resume::Move {
                    unit: u,
                    rest: cells[i + 1..rest].to_vec(),
                },
            }));
            return;
        }
        if spotted {
            return;
        }
    }
}

/// An attack on `t`: a unit not acting now may first abort to Dodge.
pub(super) fn declare_attack(x: &mut Exec, a: UnitId, t: UnitId, ranged: bool, blow: Blow) {
    if ranged {
        x.spend_shot(a);
    }
    if can_abort(x.s(), Phases::state(x.s()), t) {
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Targeted {
                attacker: a,
                ranged,
            },
            reactors: vec![t],
            resume: Resume::Attack(Box::new(PendingAttack {
                attacker: a,
                target: t,
                ranged,
                total: 0,
                needed: 0,
                hit: false,
                crit: false,
                note: Phases::note(blow),
            })),
        }));
    } else {
        strike(x, a, t, ranged, blow);
    }
}

pub(super) fn react(x: &mut Exec, u: UnitId, reaction: &Reaction) {
    let Some(top) = x.s().interrupts.last().cloned() else {
        return;
    };
    x.emit(Event::Reacted {
        unit: u,
        reaction: reaction.clone(),
    });
    match (&top.trigger, reaction) {
        (Trigger::Opportunity { mover, .. }, Reaction::Attack { .. })
        | (Trigger::Provoked { actor: mover, .. }, Reaction::Attack { .. }) => {
            x.emit(Phases::event(Ev::AooMade { unit: u }));
            strike(x, u, *mover, false, Blow::Strike);
        }
        (Trigger::Ready { actor }, Reaction::Attack { .. } | Reaction::TakeHeld) => {
            fire_ready(x, u, *actor)
        }
        (Trigger::Targeted { .. }, Reaction::Abort { action }) => abort(x, u, action),
        _ => {}
    }
    let subject = match &top.trigger {
        Trigger::Opportunity { mover, .. } => Some(*mover),
        Trigger::Provoked { actor, .. } | Trigger::Ready { actor } => Some(*actor),
        _ => None,
    };
    let fell = subject.is_some_and(|m| !x.s().units[m.index()].is_active());
    let left = x.s().interrupts.last().map_or(0, |i| i.reactors.len());
    if left == 0 || fell {
        x.emit(Event::Resumed);
        resume(x, top.resume, &top.trigger);
        // A readied move walked inside the interrupt of the action that triggered it and was
        // itself interrupted: once it is over, the triggering action goes on.
        while let Some(outer) = x.s().interrupts.last().cloned()
            && outer.reactors.is_empty()
            && !x.over()
        {
            x.emit(Event::Resumed);
            resume(x, outer.resume, &outer.trigger);
        }
        after(x);
    }
}

fn resume(x: &mut Exec, r: Resume, trigger: &Trigger) {
    if let Trigger::Ready { actor } = trigger
        && let Some(&(saved, provokes, negated)) = Phases::state(x.s()).saved_walk.last()
        && saved == *actor
    {
        x.emit(Phases::event(Ev::Walk { provokes }));
        x.emit(Phases::event(Ev::Negated { negated }));
        x.emit(Phases::event(Ev::WalkRestored));
    }
    let then = Phases::resume_of(&r).cloned();
    match r {
        Resume::Move { unit, rest } => walk(x, unit, &rest),
        Resume::Attack(p) => {
            let blow = Phases::note_of(&p.note);
            strike(x, p.attacker, p.target, p.ranged, blow)
        }
        _ if let Some(After::Item(action)) = &then => {
            if let Trigger::Provoked { actor, .. } = trigger
                && x.s().units[actor.index()].is_active()
            {
                x.item_action(*actor, action);
            }
        }
        _ if then == Some(After::StandUp) => {
            if let Trigger::Provoked { actor, .. } = trigger
                && x.s().units[actor.index()].is_active()
            {
                x.set_condition(*actor, Condition::Prone, false);
            }
        }
        _ if then == Some(After::Deferred) => {
            let Some(cmd) = Phases::state(x.s()).deferred.clone() else {
                return;
            };
            x.emit(Phases::event(Ev::Deferred { command: None }));
            let u = cmd.unit();
            let unit = &x.s().units[u.index()];
            if !unit.is_active() {
                return;
            }
            // The action goes on if it still can (its target may be gone).
            if check_act(x.s(), Phases::state(x.s()), u, &cmd).is_ok() {
                perform(x, &cmd);
            }
        }
        _ => {}
    }
}

/// Rules P-127..P-130, P-134: the readied attack happens now; the unit's place becomes just
/// ahead of the unit that triggered it; taken before its own place in a Phase, it uses that
/// Phase's action.
fn fire_ready(x: &mut Exec, h: UnitId, actor: UnitId) {
    let r = Phases::state(x.s());
    let is_move = matches!(r.held.get(h), Some(Some(Held::ReadyMove(..))));
    let is_prone = matches!(r.held.get(h), Some(Some(Held::ReadyProne(_))));
    let walk_path = ready_move_path(x.s(), h);
    let mut order: Vec<UnitId> = r.order.iter().copied().filter(|&o| o != h).collect();
    let at = order
        .iter()
        .position(|&o| o == actor)
        .unwrap_or(order.len());
    order.insert(at, h);
    let done = r.done.get(h).copied().unwrap_or(true);
    x.emit(Phases::event(Ev::Held {
        unit: h,
        held: None,
    }));
    x.emit(Phases::event(Ev::Order { order }));
    if !done {
        x.emit(Phases::event(Ev::Done { unit: h }));
    }
    x.set_condition(h, Condition::Dodging, false);
    if is_prone {
        // P-139: the readied free action, dropping prone; no step comes with it.
        x.set_condition(h, Condition::Prone, true);
        return;
    }
    if is_move {
        manoeuvres::let_go(x, h);
    }
    // Rule P-131: a 1-hex step as part of the readied action (it never provokes).
    if let Some(to) = ready_step(x.s(), h, actor) {
        let from = x.s().units[h.index()].cell;
        spend(x, h, |b| b.stepped = true);
        x.emit(Event::Moved { unit: h, from, to });
    }
    if is_move {
        let Some(path) = walk_path else { return };
        // Rule P-124: a readied move action; it provokes like any move. The interrupted
        // walk's bookkeeping is put aside until the triggering action goes on.
        let r = Phases::state(x.s());
        let already = r.saved_walk.last().is_some_and(|s| s.0 == actor);
        if !already {
            let (provokes, negated) = (r.walk_provokes, r.negated);
            x.emit(Phases::event(Ev::WalkSaved {
                unit: actor,
                provokes,
                negated,
            }));
        }
        spend(x, h, |b| b.moved = true);
        x.emit(Phases::event(Ev::Negated { negated: None }));
        x.emit(Phases::event(Ev::Walk { provokes: true }));
        walk(x, h, &path.cells());
        return;
    }
    if let Some(ranged) = ready_attack(x.s(), h, actor) {
        strike(x, h, actor, ranged, Blow::Strike);
    }
}

/// Rules P-135..P-137: abort to Dodge. Before its place in this Phase the unit gives up this
/// Phase's action; after it, the following Phase's. The held action, if any, is dropped. A
/// delaying unit has not acted yet: its next Action is the delayed one, and that is what it
/// gives up (one action for one Abort, not the delayed one and the next Phase's too).
fn abort(x: &mut Exec, u: UnitId, action: &Action) {
    let r = Phases::state(x.s());
    let delaying = matches!(r.held.get(u), Some(Some(Held::Delay)));
    let next_phase = !delaying && r.done.get(u).copied().unwrap_or(true);
    if r.held.get(u).is_some_and(|h| h.is_some()) {
        x.emit(Phases::event(Ev::Held {
            unit: u,
            held: None,
        }));
    }
    x.emit(Phases::event(Ev::Aborted {
        unit: u,
        next_phase,
    }));
    if *action == Action::Dodge {
        x.set_condition(u, Condition::Dodging, true);
    } else {
        manoeuvres::abort_to(x, u, action);
    }
}

/// DCV of `t` now: + Dodge bonus and the manoeuvres in effect (P-41), halved while Stunned
/// or prone (house rule), -3 while unaware in the Surprise Phase.
pub(super) fn dcv_of(s: &BattleState, t: UnitId) -> i64 {
    dcv_terms(s, t).iter().map(|t| t.value).sum()
}

/// [`dcv_of`] as terms, for the log. Not floored at 0: the unaware's -3 (P-22) is taken
/// whole, and 10 + DCV (P-25) works as well below zero.
pub(super) fn dcv_terms(s: &BattleState, id: UnitId) -> Vec<Term> {
    let Some(t) = s.unit(id) else {
        return vec![Term::new("DCV", 0)];
    };
    let mut terms = manoeuvres::dcv_mod_terms(Phases::state(s), t, id);
    if t.has(&Condition::Surprised) {
        terms.push(Term::new("unaware", -UNAWARE_DCV));
    }
    terms
}

/// Damage dice of `a`'s attack: `(count, bonus)` of d6.
pub(super) fn damage_dice(a: &Unit, ranged: bool) -> (i64, i64) {
    if ranged {
        (
            a.stat(names::RANGED_DAMAGE_DICE),
            a.stat(names::RANGED_DAMAGE_BONUS),
        )
    } else {
        (a.stat(names::DAMAGE_DICE), a.stat(names::DAMAGE_BONUS))
    }
}

/// BODY and STUN a killing attack of `raw` BODY does to `t` (house rule).
pub(super) fn damage_taken(t: &Unit, raw: i64) -> (i64, i64) {
    let (body, stun) = damage_terms(t, raw);
    let sum = |v: &[Term]| v.iter().map(|t| t.value).sum();
    (sum(&body), sum(&stun))
}

/// [`damage_taken`] as the BODY and the STUN terms, for the log: BODY is the roll less
/// resistant PD, STUN the roll times the STUN multiplier less PD, neither below 0.
pub(super) fn damage_terms(t: &Unit, raw: i64) -> (Vec<Term>, Vec<Term>) {
    let raw = raw.max(0);
    let mult = t.stat(names::STUN_MULTIPLIER).max(1);
    let floor = |terms: &mut Vec<Term>| {
        let sum: i64 = terms.iter().map(|t| t.value).sum();
        terms.push(Term::new("raised to 0", (-sum).max(0)));
    };
    let mut body = vec![
        Term::new("rolled", raw),
        Term::new("resistant PD", -t.stat(names::RPD)),
    ];
    floor(&mut body);
    let mut stun = vec![
        Term::new(
            format!("(rolled {raw} x STUN multiplier {mult})"),
            raw * mult,
        ),
        Term::new("PD", -t.stat(names::PD)),
    ];
    floor(&mut stun);
    (body, stun)
}

/// Resolves an attack roll and what its hit does (damage, or a Disarm's or Grab's effect).
pub(super) fn strike(x: &mut Exec, a: UnitId, t: UnitId, ranged: bool, blow: Blow) {
    let (Some(au), Some(tu)) = (x.s().unit(a).cloned(), x.s().unit(t).cloned()) else {
        return;
    };
    if !au.is_active() || !tu.is_active() {
        return;
    }
    if manoeuvres::stopped(x, a, t, ranged) {
        x.emit(Event::Attacked {
            attacker: a,
            target: t,
            ranged,
            hit: false,
            crit: false,
            spell: None,
        });
        return;
    }
    let mut terms = vec![Term::new("base", 10)];
    terms.extend(dcv_terms(x.s(), t));
    let needed = x.reckon(t, "roll needed to hit", terms);
    let ocv = x.reckon(a, "OCV", manoeuvres::ocv_terms(x.s(), a, t, ranged));
    let roll = x.roll(
        Some(a),
        None,
        Purpose::Attack,
        &ndx(3, 6, ocv),
        Some(needed),
    );
    let hit = roll.total >= needed;
    x.emit(Event::Attacked {
        attacker: a,
        target: t,
        ranged,
        hit,
        crit: false,
        spell: None,
    });
    if !hit || manoeuvres::effect_instead(x, a, t, blow) {
        return;
    }
    let (n, bonus) = manoeuvres::blow_dice(x.s(), a, ranged, blow);
    let rolled = x
        .roll(Some(a), None, Purpose::Damage, &ndx(n, 6, bonus), None)
        .total;
    let terms = manoeuvres::rolled_terms(Phases::state(x.s()), t, rolled, ranged);
    let raw = x.reckon(t, "damage rolled", terms);
    take_damage(x, t, &tu, raw);
    // House rule (Move Through): the mover takes half the blow it deals.
    if matches!(blow, Blow::MoveThrough { .. })
        && let Some(au) = x.s().unit(a).filter(|u| u.is_active()).cloned()
    {
        let back = x.reckon(
            a,
            "Move Through: the mover's half",
            vec![
                Term::new("the blow's damage", raw),
                Term::new("halved", -(raw - raw / 2)),
            ],
        );
        take_damage(x, a, &au, back);
    }
}

/// `t` takes `raw` damage: BODY after its rPD, STUN after its PD (each explained in the log),
/// and it dies, falls or is Stunned as its pools and CON say.
fn take_damage(x: &mut Exec, t: UnitId, tu: &Unit, raw: i64) {
    let (body, stun) = damage_terms(tu, raw);
    let body = x.reckon(t, "BODY damage", body);
    let stun = x.reckon(t, "STUN damage", stun);
    x.add_pool(t, names::BODY, -body);
    x.add_pool(t, names::STUN, -stun);
    let now = &x.s().units[t.index()];
    if now.pool(names::BODY) <= 0 {
        manoeuvres::let_go(x, t);
        x.set_status(t, Status::Dead);
    } else if now.pool(names::STUN) <= 0 {
        manoeuvres::let_go(x, t);
        x.set_status(t, Status::Down);
    } else if stun > now.stat(names::CON) {
        manoeuvres::let_go(x, t);
        x.set_condition(t, Condition::Stunned, true);
        if Phases::state(x.s())
            .held
            .get(t)
            .is_some_and(|h| h.is_some())
        {
            x.emit(Phases::event(Ev::Held {
                unit: t,
                held: None,
            }));
        }
    }
}
