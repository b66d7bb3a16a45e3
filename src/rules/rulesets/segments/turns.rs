//! Time in `segments`: surprise, declarations, initiative, the segments of a round and the
//! turns in them (whose turn it is, beginning, advancing and ending it), and what a unit's stats
//! and declaration say about when it acts.

use super::actions::turn_exhausted;
use super::names::{
    ATTACKS, HP, MISSILE_BONUS, MV, NEVER_SURPRISED, RANGE, SURPRISE_BONUS, SURPRISES_ON,
};
use super::spells::{self, castable, hasted, held, knows};
use super::{Ev, Phase, SEGMENTS, Segments, State, TurnKind, combat};
use crate::rules::battle::common::ndx;
use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    BattleState, Condition, Decision, Event, Exec, Intent, Purpose, SideId, Spell, UnitId,
};
use crate::rules::rulesets::Member;

// ---------------------------------------------------------------------------------------------
// Reading units and the clock

/// A unit's stat, 0 if it has none (or there is no such unit).
pub(crate) fn stat(s: &BattleState, u: UnitId, key: &str) -> i64 {
    s.unit(u).map_or(0, |x| x.stat(key))
}

pub(crate) fn side_of(s: &BattleState, u: UnitId) -> SideId {
    s.unit(u).map_or(SideId(0), |x| x.side)
}

/// Whether `u` is under a haste spell now (G-66).
fn is_hasted(s: &BattleState, u: UnitId) -> bool {
    hasted(Segments::state(s), u)
}

/// Attack routines per round (at least 1); a haste spell adds one (G-66).
pub(crate) fn attacks(s: &BattleState, u: UnitId) -> u32 {
    stat(s, u, ATTACKS).clamp(1, 10) as u32 + u32::from(is_hasted(s, u))
}

/// Squares a unit may move and still attack (twice as many when hasted).
pub(crate) fn walk_budget(s: &BattleState, u: UnitId) -> u32 {
    s.unit(u).map_or(0, |x| x.movement) * haste_factor(s, u)
}

fn haste_factor(s: &BattleState, u: UnitId) -> u32 {
    if is_hasted(s, u) { 2 } else { 1 }
}

/// Squares a unit may move when it does nothing else (its movement rate `mv`; twice it when
/// hasted).
pub(crate) fn run_budget(s: &BattleState, u: UnitId) -> u32 {
    let mv = stat(s, u, MV);
    if mv > 0 {
        mv.min(1000) as u32 * haste_factor(s, u)
    } else {
        walk_budget(s, u) * 2
    }
}

pub(crate) fn has_missile(s: &BattleState, u: UnitId) -> bool {
    stat(s, u, RANGE) > 0
}

/// Whether `u` knows a spell at all (it may have no casting left).
pub(crate) fn is_caster(s: &BattleState, u: UnitId) -> bool {
    Spell::ALL.into_iter().any(|sp| knows(s, u, sp))
}

/// Whether `u` can still cast a spell (a caster with a slot left).
pub(crate) fn can_still_cast(s: &BattleState, u: UnitId) -> bool {
    !castable(s, u).is_empty()
}

/// Segments `u` takes to cast `spell`.
pub(crate) fn casting_time(s: &BattleState, u: UnitId, spell: Spell) -> u32 {
    spells::casting_time_of(s, u, spell)
}

pub(crate) fn is_casting(r: &State, u: UnitId) -> bool {
    r.casting.iter().any(|c| c.caster == u)
}

/// Whether `u` is surprised in the current surprise segment.
pub(crate) fn surprised_now(r: &State, u: UnitId) -> bool {
    r.phase == Phase::Surprise && r.at(u).surprise >= r.segment
}

/// The segment in which `side` acts this round: the other side's roll (with more than two
/// sides, the highest roll among the others). 0 before initiative.
pub(crate) fn side_segment(s: &BattleState, r: &State, side: SideId) -> u32 {
    (0..s.sides.len())
        .filter(|&o| o != side.index())
        .filter_map(|o| r.initiative.get(o))
        .map(|&roll| roll.clamp(0, 6) as u32)
        .max()
        .unwrap_or(0)
}

/// The latest segment in which another side than `side` acts (its initiative segment).
pub(crate) fn other_segment(s: &BattleState, r: &State, side: SideId) -> u32 {
    (0..s.sides.len())
        .filter(|&o| o != side.index())
        .map(|o| side_segment(s, r, SideId(o as u8)))
        .max()
        .unwrap_or(0)
}

/// The segment of `u`'s turn this round, from its declaration as `r` knows it (an unknown
/// declaration counts as its side's segment); `None` if it does not act (Hold, nothing
/// declared) or before initiative.
pub(crate) fn unit_segment(s: &BattleState, r: &State, u: UnitId) -> Option<u32> {
    if r.initiative.is_empty() || !r.at(u).declared {
        return None;
    }
    let base = side_segment(s, r, side_of(s, u));
    match r.at(u).intent.clone() {
        Some(Intent::Hold) => None,
        Some(Intent::Missile) if has_missile(s, u) => {
            Some((base as i64 - stat(s, u, MISSILE_BONUS)).clamp(1, SEGMENTS as i64) as u32)
        }
        _ => Some(base),
    }
}

/// What a unit's declaration lets it do this turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Anything: a surprise segment, or a declaration this view cannot see.
    Free,
    Melee,
    Missile,
    Spell(UnitId, Spell),
    Run,
    Hold,
}

pub(crate) fn mode(r: &State, u: UnitId) -> Mode {
    if r.phase == Phase::Surprise {
        return Mode::Free;
    }
    match r.at(u).intent.clone() {
        None => Mode::Free,
        Some(Intent::Melee) => Mode::Melee,
        Some(Intent::Missile) => Mode::Missile,
        Some(Intent::Spell { target, spell }) => Mode::Spell(target, spell),
        Some(Intent::Run) => Mode::Run,
        Some(Intent::Hold) => Mode::Hold,
    }
}

/// Attack routines still to come for `u` after its first this round.
fn extra_routines(s: &BattleState, r: &State, u: UnitId) -> u32 {
    let spent = r.at(u).spent;
    attacks(s, u).saturating_sub(spent.max(1))
}

/// Whether `u`'s extra attack routines are due in round segment `n`.
fn extra_due(s: &BattleState, r: &State, u: UnitId, n: u32) -> bool {
    r.at(u).acted
        && !r.at(u).extra_done
        && !r.at(u).holding
        && matches!(mode(r, u), Mode::Melee | Mode::Missile | Mode::Free)
        && extra_routines(s, r, u) > 0
        && n == other_segment(s, r, side_of(s, u)) + 1
}

/// The units taking turns in round segment `n`, in unit order (a held unit takes none).
fn round_queue(s: &BattleState, r: &State, n: u32) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| s.units[u.index()].is_active() && !is_casting(r, u) && !held(r, u))
        .filter(|&u| {
            if r.at(u).holding {
                true
            } else if !r.at(u).acted {
                unit_segment(s, r, u) == Some(n)
            } else {
                extra_due(s, r, u, n)
            }
        })
        .collect()
}

fn spans_sides(s: &BattleState, queue: &[UnitId]) -> bool {
    queue
        .first()
        .is_some_and(|&a| queue.iter().any(|&b| side_of(s, b) != side_of(s, a)))
}

// ---------------------------------------------------------------------------------------------
// Start: surprise

/// A unit's hit points and spell slots, full.
fn init_pools(x: &mut Exec, u: UnitId) {
    let hp = stat(x.s(), u, HP);
    x.set_pool(u, HP, hp);
    for spell in Spell::ALL {
        if knows(x.s(), u, spell) {
            let st = spells::stats_of(spell);
            let slots = stat(x.s(), u, st.slots);
            x.set_pool(u, st.pool, slots);
        }
    }
}

/// House rule (Reinforcements): a reinforcement joins its side's initiative (sides roll, not
/// units). Arriving while declarations are made (a round has just begun), it declares and acts
/// in that round; arriving later in a round, it has declared nothing and waits for the next
/// round's declarations. It is never surprised. Its hit points and spell slots are full.
pub(super) fn joined(x: &mut Exec, u: UnitId) {
    init_pools(x, u);
    let ready = Segments::state(x.s()).phase == Phase::Declare;
    x.emit(Segments::event(Ev::Joined { unit: u, ready }));
}

pub fn start(x: &mut Exec) {
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        init_pools(x, u);
    }
    surprise(x);
    if x.over() {
        return;
    }
    if Segments::state(x.s()).surprise_segments == 0 {
        new_round(x);
    }
    advance(x);
}

/// The highest d6 result on which `side` is surprised: the most any unit of the sides it faces
/// surprises on (2 unless a creature "surprises on 1-3" or more).
pub(crate) fn surprise_threshold(s: &BattleState, side: SideId) -> i64 {
    s.units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| match u.stat(SURPRISES_ON) {
            n if n > 0 => n.min(6),
            _ => 2,
        })
        .max()
        .unwrap_or(2)
}

fn never_surprised(s: &BattleState, u: UnitId) -> bool {
    stat(s, u, NEVER_SURPRISED) > 0
}

fn surprise(x: &mut Exec) {
    let nsides = x.s().sides.len();
    let mut rolls = vec![None; nsides];
    let mut side_k = vec![0i64; nsides];
    for (side, k) in side_k.iter_mut().enumerate() {
        let sid = SideId(side as u8);
        let members = x.s().members(sid);
        let alerted = x
            .s()
            .level
            .options
            .alerted
            .contains(&x.s().sides[side].name);
        if alerted || members.iter().all(|&u| never_surprised(x.s(), u)) {
            continue;
        }
        let threshold = surprise_threshold(x.s(), sid);
        let roll = x
            .roll(
                None,
                Some(sid),
                Purpose::Surprise,
                &ndx(1, 6, 0),
                Some(threshold + 1),
            )
            .total;
        rolls[side] = Some(roll);
        if roll <= threshold {
            *k = roll;
        }
    }
    let segments: Vec<u32> = x
        .s()
        .unit_ids()
        .map(|u| {
            let k = side_k[side_of(x.s(), u).index()];
            if k == 0 || never_surprised(x.s(), u) {
                0
            } else {
                (k - stat(x.s(), u, SURPRISE_BONUS)).clamp(0, 60) as u32
            }
        })
        .collect();
    let count = segments.iter().copied().max().unwrap_or(0);
    x.emit(Segments::event(Ev::Surprise {
        rolls,
        segments,
        count,
    }));
}

// ---------------------------------------------------------------------------------------------
// Rounds, segments, turns

fn new_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(Segments::event(Ev::Declaring));
}

fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Holding, false);
    }
    new_round(x);
}

/// The next unit to declare: the first in unit order that is active, has not declared and is
/// not busy casting a spell begun earlier.
pub(crate) fn next_to_declare(s: &BattleState, r: &State) -> Option<UnitId> {
    s.unit_ids()
        .find(|&u| s.units[u.index()].is_active() && !r.at(u).declared && !is_casting(r, u))
}

fn roll_initiative(x: &mut Exec) {
    let mut rolls = Vec::new();
    for side in 0..x.s().sides.len() {
        let sid = SideId(side as u8);
        let roll = if x.s().members(sid).is_empty() {
            0
        } else {
            x.roll(None, Some(sid), Purpose::Initiative, &ndx(1, 6, 0), None)
                .total
        };
        rolls.push(roll);
    }
    x.emit(Segments::event(Ev::Initiative { rolls }));
}

/// Runs the battle forward until a decision is needed: declarations, initiative, segments,
/// turns that have nothing left to decide.
pub(crate) fn advance(x: &mut Exec) {
    // Every pass emits at least one event; the bound only guards against a bug looping.
    for _ in 0..100_000 {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let r = Segments::state(x.s());
        match r.phase {
            Phase::Start => return,
            Phase::Declare => {
                if next_to_declare(x.s(), r).is_some() {
                    return;
                }
                roll_initiative(x);
            }
            Phase::Surprise | Phase::Round => {
                if let Some(t) = &r.current {
                    let u = t.unit;
                    if x.s().units[u.index()].is_active() && !turn_exhausted(x.s(), r) {
                        return;
                    }
                    finish_turn(x, u, false);
                    continue;
                }
                let next = (r.turn..r.queue.len()).find(|&i| {
                    let u = r.queue[i];
                    x.s().units[u.index()].is_active() && !is_casting(r, u) && !held(r, u)
                });
                match next {
                    Some(i) => begin_turn(x, i),
                    None => {
                        if r.segment > 0 {
                            combat::end_segment(x);
                        }
                        if !x.over() {
                            next_segment(x);
                        }
                    }
                }
            }
        }
    }
}

fn next_segment(x: &mut Exec) {
    let r = Segments::state(x.s());
    let n = r.segment + 1;
    match r.phase {
        Phase::Surprise => {
            let count = r.surprise_segments;
            let surprise: PerUnit<u32> =
                PerUnit::from_vec(r.units.values().map(|m| m.surprise).collect());
            if n > count {
                for u in x.s().unit_ids().collect::<Vec<_>>() {
                    x.set_condition(u, Condition::Surprised, false);
                }
                new_round(x);
                return;
            }
            let queue: Vec<UnitId> = x
                .s()
                .unit_ids()
                .filter(|&u| {
                    x.s().units[u.index()].is_active()
                        && !is_casting(r, u)
                        && !held(r, u)
                        && surprise.get(u).is_some_and(|&k| k < n)
                })
                .collect();
            let simultaneous = spans_sides(x.s(), &queue);
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                let on =
                    x.s().units[u.index()].is_active() && surprise.get(u).is_some_and(|&k| k >= n);
                x.set_condition(u, Condition::Surprised, on);
            }
            x.emit(Segments::event(Ev::Segment {
                round: 0,
                n,
                tick: n,
                queue,
                simultaneous,
            }));
        }
        Phase::Round => {
            if n > SEGMENTS {
                end_round(x);
                return;
            }
            let queue = round_queue(x.s(), r, n);
            let simultaneous = spans_sides(x.s(), &queue);
            let tick = r.surprise_segments + SEGMENTS * x.s().round.saturating_sub(1) + n;
            let reveal: Vec<(UnitId, Option<Intent>)> = queue
                .iter()
                .filter(|&&u| !r.at(u).revealed)
                .map(|&u| (u, r.at(u).intent.clone()))
                .collect();
            x.emit(Segments::event(Ev::Segment {
                round: x.s().round,
                n,
                tick,
                queue,
                simultaneous,
            }));
            for (unit, intent) in reveal {
                x.emit(Segments::event(Ev::Revealed { unit, intent }));
            }
        }
        Phase::Start | Phase::Declare => {}
    }
}

fn begin_turn(x: &mut Exec, index: usize) {
    let r = Segments::state(x.s());
    let Some(&u) = r.queue.get(index) else {
        return;
    };
    let spent = r.at(u).spent;
    let kind = if r.phase == Phase::Surprise {
        TurnKind::Surprise
    } else if r.at(u).holding {
        TurnKind::Held
    } else if !r.at(u).acted {
        TurnKind::Main
    } else {
        TurnKind::Extra
    };
    let a = attacks(x.s(), u);
    let routines = match (kind, mode(r, u)) {
        (_, Mode::Spell(..) | Mode::Run | Mode::Hold) => 0,
        (TurnKind::Surprise, _) => a.saturating_sub(spent),
        (TurnKind::Extra, _) => extra_routines(x.s(), r, u),
        (TurnKind::Main | TurnKind::Held, _) => {
            if r.segment > other_segment(x.s(), r, side_of(x.s(), u)) {
                a.saturating_sub(spent)
            } else {
                1u32.saturating_sub(spent)
            }
        }
    };
    let attacked = spent > 0;
    x.emit(Event::TurnStarted { unit: u });
    x.emit(Segments::event(Ev::TurnBegun {
        index,
        kind,
        routines,
        attacked,
    }));
}

/// Ends the current turn of `u`; `held`: it holds its action for a later segment.
pub(crate) fn finish_turn(x: &mut Exec, u: UnitId, held: bool) {
    let r = Segments::state(x.s());
    let kind = r.current.as_ref().map_or(TurnKind::Main, |t| t.kind);
    let extra_done = match kind {
        TurnKind::Extra => true,
        TurnKind::Surprise => false,
        TurnKind::Main | TurnKind::Held => {
            !held
                && (r.segment > other_segment(x.s(), r, side_of(x.s(), u))
                    || attacks(x.s(), u) <= 1)
        }
    };
    x.emit(Event::TurnEnded { unit: u });
    x.emit(Segments::event(Ev::TurnDone {
        unit: u,
        held,
        extra_done,
    }));
    x.set_condition(u, Condition::Holding, held);
}

/// After an action: ends the turn if its unit has nothing left to do, then runs the battle on.
pub(crate) fn after_action(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    advance(x);
}

// ---------------------------------------------------------------------------------------------
// The decision waited for

pub fn pending(s: &BattleState, r: &State) -> Decision {
    match r.phase {
        Phase::Declare => match next_to_declare(s, r) {
            Some(unit) => Decision::Declare {
                side: side_of(s, unit),
                unit,
            },
            None => Decision::Over { winner: None },
        },
        Phase::Surprise | Phase::Round => match &r.current {
            Some(t) => Decision::Act { unit: t.unit },
            None => Decision::Over { winner: None },
        },
        Phase::Start => Decision::Over { winner: None },
    }
}
