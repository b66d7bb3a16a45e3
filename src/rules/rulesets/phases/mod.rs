//! Ruleset `phases` (seed 000): everybody acts every 3-second Phase in Initiative order, four
//! Phases to a Turn, a Post-Turn recovery after Phase 4.
//!
//! - Initiative (rules P-08..P-12): CV + `lightning_reflexes`, highest first; tied units roll
//!   1d6 each (again among those still tied), once, when the battle starts. Units that cannot act
//!   keep their place. Delay and Ready move a unit in the order (`State::order`).
//! - Surprise (P-17..P-22): when the level's `options.surprised` names some but not all units, a
//!   Surprise Phase comes before Phase 1 of Turn 1: aware units act once (one attack or move
//!   action), unaware ones are `Surprised` (-3 DCV) and do not act.
//! - A unit's part of a Phase (P-49..P-55): an attack action and a move action, two move
//!   actions, or one full-phase action; a 1-hex step when it moves no other distance. Move
//!   (up to half of `movement`: a move action; more: full phase), Attack (melee within reach,
//!   or ranged within `range` and sight), Dodge, Ready (attack actions), Withdraw, Recover
//!   (full phase), Step, Delay (not actions). The part ends by itself when nothing but ending it
//!   is left.
//! - Attack roll (P-23..P-25): 3d6 + OCV >= 10 + DCV. Damage, knockout, Stunned and recovery are
//!   house rules (see `assets/rulesets/phases.ron`).
//! - Attacks of opportunity (P-29..P-46): leaving a hex an enemy threatens (its reach) during
//!   a Move asks that enemy; one per Phase, or one per opportunity with `combat_reflexes`; all
//!   the hexes one mover leaves in one Phase are one opportunity. Dodging units make none. The
//!   1-hex step and Withdraw never provoke. A mover with `acrobatics` rolls 3d6 <= acrobatics
//!   once per move action; success negates that move's attacks of opportunity.
//! - Delay, Ready and Abort with their initiative consequences (P-113..P-138): see `advance`,
//!   `take_delayed`, `fire_ready` and `abort`.

use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, PendingAttack,
    Purpose, Reaction, ReadyTrigger, Rejected, Resume, Status, Trigger, Unit, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};
use crate::rules::sight::Cover;
use serde::{Deserialize, Serialize};

/// The DCV penalty of units unaware during the Surprise Phase (seed: "-3 DCV").
const UNAWARE_DCV: i64 = 3;
/// What `phases` does once the reactions to an interrupt it raised are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum After {
    /// Run the command a readied action interrupted before it started.
    Deferred,
    /// The unit whose standing up provoked now stands.
    StandUp,
}

/// The `phases` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct Phases;

impl crate::rules::rulesets::Ruleset for Phases {
    type State = State;
    type Event = Ev;
    type Resume = After;
    type Note = ();
    const DATA: &'static str = include_str!("../../../../assets/rulesets/phases.ron");
    const ROUND_WORD: &'static str = "Turn";
    const STATS: &'static [&'static str] = &[
        "cv",
        "ocv",
        "dcv",
        "con",
        "body",
        "stun",
        "pd",
        "rpd",
        "rec",
        "damage_dice",
        "damage_bonus",
    ];

    fn start(x: &mut Exec) {
        start(x)
    }
    fn pending(s: &BattleState, r: &State) -> Decision {
        pending(s, r)
    }
    fn legal(s: &BattleState, r: &State) -> Vec<Command> {
        legal(s, r)
    }
    fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
        check(s, r, cmd)
    }
    fn execute(x: &mut Exec, cmd: &Command) {
        execute(x, cmd)
    }
    fn apply(r: &mut State, e: &Ev) {
        apply(r, e)
    }
    fn log_line(s: &BattleState, e: &Ev) -> String {
        log_line(s, e)
    }
    fn clock(s: &BattleState, r: &State) -> Clock {
        clock(s, r)
    }
    fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
        describe(s, r, cmd)
    }
    fn odds(s: &BattleState, r: &State, a: UnitId, t: UnitId, ranged: bool) -> Option<Odds> {
        odds(s, r, a, t, ranged)
    }
    /// "(between actions)", "(movement begins)" and "X acts" (always followed by the
    /// engine's "X's turn").
    fn bookkeeping(e: &Ev) -> bool {
        matches!(
            e,
            Ev::Acting { .. } | Ev::Negated { negated: None } | Ev::Walk { .. }
        )
    }
}

/// What a unit has used of its part of the current Phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Attack and move actions taken (at most 2; 1 in the Surprise Phase).
    pub actions: u8,
    /// One of them was an attack action.
    pub attack: bool,
    /// A full-phase action was taken.
    pub full: bool,
    /// The unit moved some distance (a Move or Withdraw): no 1-hex step.
    pub moved: bool,
    /// The unit took its 1-hex step: no other movement.
    pub stepped: bool,
}

/// An action held for later.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Held {
    /// Delaying: asked before each later action whether to act now.
    Delay,
    /// A readied attack, taken when the trigger happens.
    Ready(ReadyTrigger),
    /// A readied move action to a hex, taken when the trigger happens.
    ReadyMove(ReadyTrigger, Cell),
}

impl Held {
    /// The trigger of a readied action.
    fn trigger(&self) -> Option<&ReadyTrigger> {
        match self {
            Held::Delay => None,
            Held::Ready(t) | Held::ReadyMove(t, _) => Some(t),
        }
    }
}

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Initiative score (CV + Lightning Reflexes) per unit.
    pub scores: Vec<i64>,
    /// The order units act in, first first; Delay and Ready move units within it.
    pub order: Vec<UnitId>,
    /// 0 is the Surprise Phase, then 1..=4.
    pub phase: u8,
    /// The unit whose action it is.
    pub acting: Option<UnitId>,
    /// A delaying unit asked whether it acts now, before the next unit's action.
    pub asking: Option<UnitId>,
    /// Delaying units that chose to keep waiting at this point of the Phase.
    pub asked: Vec<UnitId>,
    /// Per unit: its place in this Phase has passed (acted, delayed or gave it up).
    pub done: Vec<bool>,
    /// Per unit: what it used of this Phase.
    pub budget: Vec<Budget>,
    /// Per unit: a delayed or readied action.
    pub held: Vec<Option<Held>>,
    /// Per unit: it aborted after acting, giving up its action in the following Phase.
    pub lose_next: Vec<bool>,
    /// Per unit: attacks of opportunity made this Phase.
    pub aoo_made: Vec<u32>,
    /// (reactor, mover): the mover's movement this Phase was already an opportunity for the
    /// reactor.
    pub offered: Vec<(UnitId, UnitId)>,
    /// The current move's acrobatics roll: `Some(true)` negates its attacks of opportunity.
    pub negated: Option<bool>,
    /// Whether the current walk provokes attacks of opportunity (a Move does; Step and
    /// Withdraw do not).
    pub walk_provokes: bool,
    /// A command a readied action interrupted before it started.
    pub deferred: Option<Command>,
    /// The interrupted movers' walk bookkeeping (mover, `walk_provokes`, `negated`) while a
    /// readied move walks inside their interrupt, innermost last; put back before the mover
    /// goes on.
    #[serde(default)]
    pub saved_walk: Vec<(UnitId, bool, Option<bool>)>,
}

/// The ruleset's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// Initiative is settled: `scores` per unit, `order` first first.
    Initiative {
        scores: Vec<i64>,
        order: Vec<UnitId>,
    },
    /// A Phase begins (0: the Surprise Phase): everyone's place and budget are fresh.
    Phase { phase: u8 },
    /// The Post-Turn after Phase 4: recoveries follow.
    PostTurn,
    /// Whose action it is now.
    Acting { unit: Option<UnitId> },
    /// A delaying unit is asked whether it acts before the next action.
    Asking { unit: Option<UnitId> },
    /// The delaying unit keeps waiting at this point.
    KeepsWaiting { unit: UnitId },
    /// The unit's place in this Phase has passed.
    Done { unit: UnitId },
    /// What the unit has used of this Phase.
    Spent { unit: UnitId, budget: Budget },
    /// The unit now holds this action (or none).
    Held { unit: UnitId, held: Option<Held> },
    /// The unit came to its next action with its delayed or readied action unused: it is lost.
    Lapsed { unit: UnitId },
    /// The acting order changed (a delayed or readied action was taken).
    Order { order: Vec<UnitId> },
    /// The unit aborted to a defensive action, giving up this Phase's action, or with
    /// `next_phase` the following Phase's.
    Aborted { unit: UnitId, next_phase: bool },
    /// The unit's place came up but it gave this action up when it aborted.
    Forfeit { unit: UnitId },
    /// The mover's movement this Phase is an opportunity for these reactors.
    Offered {
        mover: UnitId,
        reactors: Vec<UnitId>,
    },
    /// The unit made an attack of opportunity.
    AooMade { unit: UnitId },
    /// The acrobatics result for the current move.
    Negated { negated: Option<bool> },
    /// A walk interrupted by a readied move: its bookkeeping is put aside.
    WalkSaved {
        unit: UnitId,
        provokes: bool,
        negated: Option<bool>,
    },
    /// The innermost walk put aside goes on (its bookkeeping was put back).
    WalkRestored,
    /// Whether the walk that starts provokes.
    Walk { provokes: bool },
    /// A command waiting for a readied action to resolve.
    Deferred { command: Option<Command> },
}

fn ev(e: Ev) -> Event {
    Phases::event(e)
}

fn st(s: &BattleState) -> &State {
    Phases::state(s)
}

fn slot<T>(v: &mut [T], u: UnitId) -> Option<&mut T> {
    v.get_mut(u.index())
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Initiative { scores, order } => {
            let n = scores.len();
            s.scores = scores.clone();
            s.order = order.clone();
            s.done = vec![false; n];
            s.budget = vec![Budget::default(); n];
            s.held = vec![None; n];
            s.lose_next = vec![false; n];
            s.aoo_made = vec![0; n];
        }
        Ev::Phase { phase } => {
            s.phase = *phase;
            s.done.iter_mut().for_each(|d| *d = false);
            s.budget.iter_mut().for_each(|b| *b = Budget::default());
            s.aoo_made.iter_mut().for_each(|a| *a = 0);
            s.offered.clear();
            s.asked.clear();
        }
        Ev::PostTurn => {}
        Ev::Acting { unit } => {
            s.acting = *unit;
            s.asked.clear();
        }
        Ev::Asking { unit } => s.asking = *unit,
        Ev::KeepsWaiting { unit } => {
            s.asked.push(*unit);
            s.asking = None;
        }
        Ev::Done { unit } => {
            if let Some(d) = slot(&mut s.done, *unit) {
                *d = true;
            }
        }
        Ev::Spent { unit, budget } => {
            if let Some(b) = slot(&mut s.budget, *unit) {
                *b = *budget;
            }
        }
        Ev::Held { unit, held } => {
            if let Some(h) = slot(&mut s.held, *unit) {
                *h = held.clone();
            }
        }
        Ev::Lapsed { unit } => {
            if let Some(h) = slot(&mut s.held, *unit) {
                *h = None;
            }
        }
        Ev::Order { order } => s.order = order.clone(),
        Ev::Aborted { unit, next_phase } => {
            if *next_phase {
                if let Some(l) = slot(&mut s.lose_next, *unit) {
                    *l = true;
                }
            } else if let Some(d) = slot(&mut s.done, *unit) {
                *d = true;
            }
        }
        Ev::Forfeit { unit } => {
            if let Some(d) = slot(&mut s.done, *unit) {
                *d = true;
            }
            if let Some(l) = slot(&mut s.lose_next, *unit) {
                *l = false;
            }
        }
        Ev::Offered { mover, reactors } => {
            s.offered.extend(reactors.iter().map(|&r| (r, *mover)));
        }
        Ev::AooMade { unit } => {
            if let Some(a) = slot(&mut s.aoo_made, *unit) {
                *a += 1;
            }
        }
        Ev::Negated { negated } => s.negated = *negated,
        Ev::Walk { provokes } => s.walk_provokes = *provokes,
        Ev::WalkSaved {
            unit,
            provokes,
            negated,
        } => s.saved_walk.push((*unit, *provokes, *negated)),
        Ev::WalkRestored => {
            s.saved_walk.pop();
        }
        Ev::Deferred { command } => s.deferred = command.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Start, Phases, Turns

pub fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    for &u in &ids {
        for pool in ["body", "stun"] {
            let v = x.s().units[u.index()].stat(pool);
            x.set_pool(u, pool, v);
        }
    }
    // Initiative: CV + Lightning Reflexes; ties rolled off with 1d6 (again while tied).
    let scores: Vec<i64> = ids
        .iter()
        .map(|&u| {
            let unit = &x.s().units[u.index()];
            unit.stat("cv") + unit.stat("lightning_reflexes")
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
    x.emit(ev(Ev::Initiative { scores, order }));
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
        x.emit(ev(Ev::Phase { phase: 0 }));
    } else {
        x.emit(ev(Ev::Phase { phase: 1 }));
    }
    advance(x);
}

/// The next unit whose place in the Phase comes up: the first in the order whose place has
/// not passed, able to act (and aware, in the Surprise Phase).
fn next_actor(s: &BattleState, r: &State) -> Option<UnitId> {
    r.order.iter().copied().find(|&u| {
        !r.done.get(u.index()).copied().unwrap_or(true)
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
            matches!(r.held.get(u.index()), Some(Some(Held::Delay)))
                && s.units[u.index()].is_active()
                && !s.units[u.index()].has(&Condition::Stunned)
                && !r.asked.contains(&u)
        })
        .collect()
}

/// Moves the battle on to the next decision when no one is acting: asks delaying units,
/// starts the next unit's action, ends Phases and Turns.
fn advance(x: &mut Exec) {
    for _ in 0..10_000 {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let r = st(x.s());
        if r.acting.is_some() || r.asking.is_some() {
            return;
        }
        let next = next_actor(x.s(), r);
        if let Some(h) = waiting(x.s(), r).into_iter().find(|&h| Some(h) != next) {
            x.emit(ev(Ev::Asking { unit: Some(h) }));
            return;
        }
        let Some(u) = next else {
            end_phase(x);
            continue;
        };
        let r = st(x.s());
        if r.held.get(u.index()).is_some_and(|h| h.is_some()) {
            // Rules P-119, P-133: the held action is lost when the unit's next action comes.
            x.emit(ev(Ev::Lapsed { unit: u }));
        }
        if st(x.s()).lose_next.get(u.index()).copied().unwrap_or(false) {
            // Rule P-138: it gave this action up when it aborted.
            x.emit(ev(Ev::Forfeit { unit: u }));
            continue;
        }
        begin_action(x, u);
        return;
    }
}

fn begin_action(x: &mut Exec, u: UnitId) {
    if !st(x.s()).done.get(u.index()).copied().unwrap_or(true) {
        x.emit(ev(Ev::Done { unit: u }));
    }
    x.emit(ev(Ev::Acting { unit: Some(u) }));
    x.emit(Event::TurnStarted { unit: u });
    // House rule: Dodge lasts until the unit's next action.
    x.set_condition(u, Condition::Dodging, false);
}

fn end_phase(x: &mut Exec) {
    let phase = st(x.s()).phase;
    match phase {
        0 => {
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                x.set_condition(u, Condition::Surprised, false);
            }
            x.emit(ev(Ev::Phase { phase: 1 }));
        }
        1..=3 => x.emit(ev(Ev::Phase { phase: phase + 1 })),
        _ => {
            // The Post-Turn: conscious, unstunned units Take a Recovery (house rule).
            x.emit(ev(Ev::PostTurn));
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                let unit = &x.s().units[u.index()];
                if !unit.is_active() || unit.has(&Condition::Stunned) {
                    continue;
                }
                let (now, max, rec) = (unit.pool("stun"), unit.stat("stun"), unit.stat("rec"));
                if now < max {
                    x.set_pool(u, "stun", (now + rec.max(0)).min(max));
                }
            }
            let round = x.s().round;
            x.emit(Event::RoundEnded { round });
            x.emit(Event::RoundStarted { round: round + 1 });
            x.emit(ev(Ev::Phase { phase: 1 }));
        }
    }
}

fn end_action(x: &mut Exec, u: UnitId) {
    x.emit(Event::TurnEnded { unit: u });
    x.emit(ev(Ev::Acting { unit: None }));
    advance(x);
}

/// How many attack and move actions a unit has this Phase.
fn cap(r: &State) -> u8 {
    if r.phase == 0 { 1 } else { 2 }
}

fn budget(r: &State, u: UnitId) -> Budget {
    r.budget.get(u.index()).copied().unwrap_or_default()
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
fn after(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    let r = st(x.s());
    match (r.acting, r.asking) {
        (Some(u), _) if !has_more(x.s(), r, u) => end_action(x, u),
        (None, None) => advance(x),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions and commands

pub fn pending(_: &BattleState, r: &State) -> Decision {
    match r.asking.or(r.acting) {
        Some(unit) => Decision::Act { unit },
        None => Decision::Over { winner: None },
    }
}

/// Half of combat movement (rounded down, at least 1): what one move action covers.
fn half(u: &Unit) -> u32 {
    (u.movement / 2).max(1)
}

/// The movement budget of a Move now: all of it as a full-phase action when the unit has
/// done nothing else (and it is not the Surprise Phase), else half. A prone unit crawls one
/// hex (a move action).
fn move_budget(r: &State, unit: &Unit, b: Budget) -> u32 {
    if unit.is_prone() {
        unit.movement.min(1)
    } else if b.actions == 0 && !b.full && r.phase != 0 {
        unit.movement
    } else {
        half(unit)
    }
}

/// The path a Move walks: cheapest, then fewest threatened hexes left.
fn move_path(s: &BattleState, u: UnitId, to: Cell, budget: u32) -> Option<Path> {
    let threat = s.threat_for(u, |_| true);
    let reach = s.reach_of(u, budget, Some(&threat));
    if !reach.can_end(to) {
        return None;
    }
    reach.path_to(to)
}

/// Which attack `a` can make on `t` now: `Some(false)` melee, `Some(true)` ranged.
fn attack_kind(s: &BattleState, a: UnitId, t: UnitId, ranged: bool) -> Result<(), Rejected> {
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
    let range = au.stat("range");
    if range <= 0 {
        return Err(Rejected::new(format!("{} has no ranged attack", au.name)));
    }
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
fn ready_step(s: &BattleState, h: UnitId, t: UnitId) -> Option<Cell> {
    let (hu, tu) = (s.unit(h)?, s.unit(t)?);
    let b = budget(st(s), h);
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
fn ready_move_path(s: &BattleState, h: UnitId) -> Option<Path> {
    let unit = s.unit(h)?;
    let Some(Some(Held::ReadyMove(_, to))) = st(s).held.get(h.index()) else {
        return None;
    };
    if unit.is_prone() || budget(st(s), h).stepped || *to == unit.cell {
        return None;
    }
    move_path(s, h, *to, half(unit))
}

/// Whether `h` can take its readied action against (or in answer to) `actor` now.
fn can_take_ready(s: &BattleState, h: UnitId, actor: UnitId) -> bool {
    match st(s).held.get(h.index()) {
        Some(Some(Held::Ready(_))) => {
            ready_attack(s, h, actor).is_some() || ready_step(s, h, actor).is_some()
        }
        Some(Some(Held::ReadyMove(..))) => ready_move_path(s, h).is_some(),
        _ => false,
    }
}

fn reject(text: String) -> Result<(), Rejected> {
    Err(Rejected::new(text))
}

/// Whether the unit deciding now may take `cmd`.
fn check_act(s: &BattleState, r: &State, u: UnitId, cmd: &Command) -> Result<(), Rejected> {
    let unit = &s.units[u.index()];
    let n = &unit.name;
    let b = budget(r, u);
    let surprise = r.phase == 0;
    let asking = r.asking == Some(u);
    let actions_free = !b.full && b.actions < cap(r);
    let attack_free = actions_free && !b.attack;
    let fresh = b.actions == 0 && !b.full && !b.moved && !b.stepped;
    let stunned = unit.has(&Condition::Stunned);
    let no_action = |what: &str| {
        let why = if b.full {
            "has used its whole Phase on a full-phase action".to_string()
        } else if surprise {
            "may take only one attack or move action in the Surprise Phase".to_string()
        } else if b.actions >= 2 {
            "has taken two actions this Phase".to_string()
        } else {
            "has already taken its attack action this Phase".to_string()
        };
        reject(format!("{n} {why}; {what} is not possible"))
    };
    if stunned
        && !matches!(
            cmd,
            Command::Act {
                action: Action::Recover,
                ..
            }
        )
    {
        return reject(format!(
            "{n} is Stunned: its action must be Recover from being Stunned"
        ));
    }
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Act { action, .. } => match action {
            Action::Delay => {
                if asking {
                    Ok(())
                } else if surprise {
                    reject("there is no delaying in the Surprise Phase".into())
                } else if !fresh {
                    reject(format!(
                        "{n} has already acted this Phase and cannot delay any more"
                    ))
                } else {
                    Ok(())
                }
            }
            Action::GoProne => {
                if unit.is_prone() {
                    reject(format!("{n} is already prone"))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if !unit.is_prone() {
                    reject(format!("{n} is not prone"))
                } else if !actions_free {
                    no_action("Stand up (a move action)")
                } else {
                    Ok(())
                }
            }
            Action::TakeRecovery => {
                if surprise {
                    reject(
                        "Take a Recovery is a full-phase action: not in the Surprise Phase".into(),
                    )
                } else if !fresh {
                    reject(format!(
                        "{n} has already acted or moved this Phase; Take a Recovery takes the whole Phase"
                    ))
                } else if unit.pool("stun") >= unit.stat("stun") {
                    reject(format!("{n} has all its STUN"))
                } else {
                    Ok(())
                }
            }
            Action::Recover => {
                if !stunned {
                    reject(format!("{n} is not Stunned"))
                } else if !fresh || surprise {
                    no_action("Recover from being Stunned (a full-phase action)")
                } else {
                    Ok(())
                }
            }
            Action::Dodge => {
                if !attack_free {
                    no_action("Dodge (an attack action)")
                } else if unit.has(&Condition::Dodging) {
                    reject(format!("{n} is already dodging"))
                } else {
                    Ok(())
                }
            }
            Action::Ready { trigger } | Action::ReadyMove { trigger, .. } => {
                if !attack_free {
                    return no_action("Ready (an attack action)");
                }
                if let Action::ReadyMove { to, .. } = action {
                    if unit.is_prone() {
                        return reject(format!(
                            "{n} is prone: it cannot ready a move (crawl or stand up instead)"
                        ));
                    }
                    if *to == unit.cell {
                        return reject(format!("{n} is already at {to}"));
                    }
                    if move_path(s, u, *to, half(unit)).is_none() {
                        return reject(format!(
                            "{n} cannot reach {to} with a move action ({} hexes)",
                            half(unit)
                        ));
                    }
                }
                if asking {
                    return reject(format!(
                        "{n} is taking a delayed action; it cannot ready another"
                    ));
                }
                match trigger {
                    ReadyTrigger::EnemyInReach => Ok(()),
                    ReadyTrigger::UnitActs { unit: t } => match s.unit(*t) {
                        Some(tu) if s.are_enemies(u, *t) && tu.is_active() => Ok(()),
                        Some(tu) => reject(format!("{} is not an enemy able to act", tu.name)),
                        None => reject(format!("there is no {t}")),
                    },
                }
            }
            Action::Step { .. } | Action::Withdraw { .. } if unit.is_prone() => reject(format!(
                "{n} is prone: it can crawl one hex (a move action) or stand up, not step or withdraw"
            )),
            Action::Step { to } => {
                if b.stepped {
                    return reject(format!("{n} has already taken its 1-hex step this Phase"));
                }
                if b.moved {
                    return reject(format!(
                        "{n} has moved this Phase and cannot take a 1-hex step too"
                    ));
                }
                if unit.movement <= 1 {
                    return reject(format!(
                        "{n} moves only {} hex a Phase and cannot take a 1-hex step",
                        unit.movement
                    ));
                }
                if s.grid().distance_steps(unit.cell, *to) != 1 {
                    return reject(format!("{to} is not next to {n}"));
                }
                if s.terrain.difficult(unit.cell) || s.terrain.difficult(*to) {
                    return reject(format!(
                        "difficult terrain hampers {n}: no 1-hex step from {} to {to}",
                        unit.cell
                    ));
                }
                let reach = s.reach_of(u, 1, None);
                if !reach.can_end(*to) {
                    return reject(format!("{n} cannot step to {to}"));
                }
                Ok(())
            }
            Action::Withdraw { to } => {
                if surprise {
                    return reject(
                        "Withdraw is a full-phase action: not in the Surprise Phase".into(),
                    );
                }
                if !fresh {
                    return reject(format!(
                        "{n} has already acted or moved this Phase; Withdraw takes the whole Phase"
                    ));
                }
                if *to == unit.cell {
                    return reject(format!("{n} is already there"));
                }
                if !s.can_end_move(u, half(unit), *to) {
                    return reject(format!(
                        "{n} cannot withdraw to {to}: Withdraw covers up to {} hexes",
                        half(unit)
                    ));
                }
                Ok(())
            }
            other => reject(format!(
                "{} is not an action in the phases ruleset (Move, Attack, Dodge, Ready, Delay, \
                 Withdraw, Step, Go Prone, Stand Up, Take a Recovery, Recover, End turn)",
                other.name()
            )),
        },
        Command::Attack { target, ranged, .. } => {
            if !attack_free {
                return no_action("an attack");
            }
            attack_kind(s, u, *target, *ranged)
        }
        Command::Move { to, .. } => {
            if !actions_free {
                return no_action(if unit.is_prone() {
                    "crawling (a move action)"
                } else {
                    "a move"
                });
            }
            if b.stepped {
                return reject(format!(
                    "{n} took a 1-hex step this Phase and cannot move any distance"
                ));
            }
            if *to == unit.cell {
                return reject(format!("{n} is already there"));
            }
            let budget = move_budget(r, unit, b);
            if unit.is_prone() && move_path(s, u, *to, budget).is_none() {
                return reject(format!(
                    "{n} is prone: it can only crawl one hex (to an open hex next to it) or stand up"
                ));
            }
            if move_path(s, u, *to, budget).is_none() {
                return reject(format!(
                    "{n} cannot reach {to} with {budget} hexes of movement"
                ));
            }
            Ok(())
        }
        Command::Pick { .. } | Command::Declare { .. } => reject(
            "the phases ruleset has no picks or declarations: units act in Initiative order".into(),
        ),
        Command::React { .. } => reject("nothing to react to now".into()),
    }
}

/// Whether `u` may abort to a defensive action now (rules P-135..P-138).
fn can_abort(s: &BattleState, r: &State, u: UnitId) -> bool {
    let Some(unit) = s.unit(u) else { return false };
    unit.is_active()
        && !unit.has(&Condition::Stunned)
        && !unit.has(&Condition::Dodging)
        && r.phase != 0
        && r.acting != Some(u)
        && !r.lose_next.get(u.index()).copied().unwrap_or(true)
}

fn check_react(s: &BattleState, r: &State, u: UnitId, reaction: &Reaction) -> Result<(), Rejected> {
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
            if !matches!(r.held.get(u.index()), Some(Some(Held::Ready(_)))) =>
        {
            reject(format!("{n} readied a move, not an attack"))
        }
        (Trigger::Ready { .. }, Reaction::TakeHeld) => {
            if !matches!(r.held.get(u.index()), Some(Some(Held::ReadyMove(..)))) {
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
        (
            Trigger::Targeted { .. },
            Reaction::Abort {
                action: Action::Dodge,
            },
        ) => {
            if can_abort(s, r, u) {
                Ok(())
            } else {
                reject(format!("{n} cannot abort now"))
            }
        }
        (_, other) => reject(format!(
            "{other:?} is not an answer here in the phases ruleset"
        )),
    }
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let u = cmd.unit();
    if let Command::React { reaction, .. } = cmd {
        return check_react(s, r, u, reaction);
    }
    let Some(cur) = r.asking.or(r.acting) else {
        return reject("no one is acting".into());
    };
    if u != cur {
        return reject(format!(
            "it is {}'s action, not {}'s",
            s.unit_name(cur),
            s.unit_name(u)
        ));
    }
    check_act(s, r, u, cmd)
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, trigger } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            let other = match trigger {
                Trigger::Opportunity { mover, .. } => Reaction::Attack { target: mover },
                Trigger::Provoked { actor, .. } | Trigger::Ready { actor } => {
                    Reaction::Attack { target: actor }
                }
                Trigger::Targeted { .. } => Reaction::Abort {
                    action: Action::Dodge,
                },
                _ => return out,
            };
            for reaction in [other, Reaction::TakeHeld] {
                if check_react(s, r, unit, &reaction).is_ok() {
                    out.push(Command::React { unit, reaction });
                }
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            let mut candidates = vec![
                Command::EndTurn { unit },
                Command::Act {
                    unit,
                    action: Action::Recover,
                },
                Command::Act {
                    unit,
                    action: Action::Delay,
                },
                Command::Act {
                    unit,
                    action: Action::Dodge,
                },
                Command::Act {
                    unit,
                    action: Action::Ready {
                        trigger: ReadyTrigger::EnemyInReach,
                    },
                },
                Command::Act {
                    unit,
                    action: Action::GoProne,
                },
                Command::Act {
                    unit,
                    action: Action::StandUp,
                },
                Command::Act {
                    unit,
                    action: Action::TakeRecovery,
                },
            ];
            for target in s.enemies_of(unit) {
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged: false,
                });
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged: true,
                });
                candidates.push(Command::Act {
                    unit,
                    action: Action::Ready {
                        trigger: ReadyTrigger::UnitActs { unit: target },
                    },
                });
            }
            for to in s.grid().neighbours(u.cell) {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Step { to },
                });
                // Readied moves are listed one hex away, triggered by an enemy coming within
                // reach; any hex within a move action and any trigger is accepted.
                candidates.push(Command::Act {
                    unit,
                    action: Action::ReadyMove {
                        trigger: ReadyTrigger::EnemyInReach,
                        to,
                    },
                });
            }
            out.extend(
                candidates
                    .into_iter()
                    .filter(|c| check_act(s, r, unit, c).is_ok()),
            );
            if u.has(&Condition::Stunned) {
                return out;
            }
            let b = budget(r, unit);
            // Withdraw: a full-phase action, up to half movement (not while prone).
            let fresh_ok = !u.is_prone()
                && r.phase != 0
                && b.actions == 0
                && !b.full
                && !b.moved
                && !b.stepped;
            if fresh_ok {
                for (to, _) in s.reach_of(unit, half(u), None).destinations() {
                    if to != u.cell {
                        out.push(Command::Act {
                            unit,
                            action: Action::Withdraw { to },
                        });
                    }
                }
            }
            if !b.full && b.actions < cap(r) && !b.stepped {
                let budget = move_budget(r, u, b);
                let threat = s.threat_for(unit, |_| true);
                for (to, _) in s.reach_of(unit, budget, Some(&threat)).destinations() {
                    if to != u.cell {
                        out.push(Command::Move { unit, to });
                    }
                }
            }
        }
        _ => {}
    }
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    if let Command::React { unit, reaction } = cmd {
        react(x, *unit, reaction);
        return;
    }
    let u = cmd.unit();
    let asking = st(x.s()).asking == Some(u);
    match cmd {
        Command::EndTurn { .. } if asking => {
            // Gives up waiting: the delayed action is not taken.
            x.emit(ev(Ev::Held {
                unit: u,
                held: None,
            }));
            x.emit(ev(Ev::Asking { unit: None }));
            advance(x);
            return;
        }
        Command::EndTurn { .. } => {
            end_action(x, u);
            return;
        }
        Command::Act {
            action: Action::Delay,
            ..
        } if asking => {
            x.emit(ev(Ev::KeepsWaiting { unit: u }));
            advance(x);
            return;
        }
        Command::Act {
            action: Action::Delay,
            ..
        } => {
            // Rule P-115: no action on its own Initiative; it waits.
            x.emit(ev(Ev::Held {
                unit: u,
                held: Some(Held::Delay),
            }));
            x.emit(ev(Ev::Done { unit: u }));
            x.emit(Event::TurnEnded { unit: u });
            x.emit(ev(Ev::Acting { unit: None }));
            // It has just chosen to wait past this point: not asked again here.
            x.emit(ev(Ev::KeepsWaiting { unit: u }));
            advance(x);
            return;
        }
        _ => {}
    }
    if asking {
        take_delayed(x, u);
    }
    // A readied action waiting for this unit to act goes first (rule P-127).
    let readiers: Vec<UnitId> = readied_on(x.s(), u);
    if !readiers.is_empty() {
        x.emit(ev(Ev::Deferred {
            command: Some(cmd.clone()),
        }));
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Ready { actor: u },
            reactors: readiers,
            resume: Phases::resume(After::Deferred),
        }));
        return;
    }
    perform(x, cmd);
    after(x);
}

/// Rules P-116, P-118, P-120: a delaying unit acts now; its place in the order becomes this
/// point (just before the unit that would have acted next, or last), and its regular action
/// of this Phase is used.
fn take_delayed(x: &mut Exec, u: UnitId) {
    let r = st(x.s());
    let next = next_actor(x.s(), r).filter(|&n| n != u);
    let mut order: Vec<UnitId> = r.order.iter().copied().filter(|&o| o != u).collect();
    let at = next
        .and_then(|n| order.iter().position(|&o| o == n))
        .unwrap_or(order.len());
    order.insert(at, u);
    x.emit(ev(Ev::Asking { unit: None }));
    x.emit(ev(Ev::Held {
        unit: u,
        held: None,
    }));
    x.emit(ev(Ev::Order { order }));
    begin_action(x, u);
}

/// Units whose readied attack waits for `actor` to act and can reach it.
fn readied_on(s: &BattleState, actor: UnitId) -> Vec<UnitId> {
    let r = st(s);
    r.order
        .iter()
        .copied()
        .filter(|&h| {
            matches!(r.held.get(h.index()).and_then(|x| x.as_ref()).and_then(Held::trigger), Some(ReadyTrigger::UnitActs { unit }) if *unit == actor)
                && s.units[h.index()].is_active()
                && !s.units[h.index()].has(&Condition::Stunned)
                && can_take_ready(s, h, actor)
        })
        .collect()
}

fn spend(x: &mut Exec, u: UnitId, f: impl FnOnce(&mut Budget)) {
    let mut b = budget(st(x.s()), u);
    f(&mut b);
    x.emit(ev(Ev::Spent { unit: u, budget: b }));
}

/// The effect of an accepted action command.
fn perform(x: &mut Exec, cmd: &Command) {
    let u = cmd.unit();
    let Some(unit) = x.s().unit(u).cloned() else {
        return;
    };
    match cmd {
        Command::Move { to, .. } => {
            let r = st(x.s());
            let b = budget(r, u);
            let budget = move_budget(r, &unit, b);
            let Some(path) = move_path(x.s(), u, *to, budget) else {
                return;
            };
            let full = path.cost() > half(&unit);
            spend(x, u, |b| {
                b.moved = true;
                if full {
                    b.full = true;
                } else {
                    b.actions += 1;
                }
            });
            x.emit(ev(Ev::Negated { negated: None }));
            x.emit(ev(Ev::Walk { provokes: true }));
            walk(x, u, &path.cells());
        }
        Command::Attack { target, ranged, .. } => {
            spend(x, u, |b| {
                b.actions += 1;
                b.attack = true;
            });
            declare_attack(x, u, *target, *ranged);
        }
        Command::Act { action, .. } => match action {
            Action::Step { to } => {
                spend(x, u, |b| b.stepped = true);
                x.emit(ev(Ev::Walk { provokes: false }));
                walk(x, u, &[unit.cell, *to]);
            }
            Action::Withdraw { to } => {
                let Some(path) = x.s().path_for(u, half(&unit), None, *to) else {
                    return;
                };
                spend(x, u, |b| {
                    b.moved = true;
                    b.full = true;
                });
                x.emit(ev(Ev::Walk { provokes: false }));
                walk(x, u, &path.cells());
            }
            Action::Dodge => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.set_condition(u, Condition::Dodging, true);
            }
            Action::Ready { trigger } => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.emit(ev(Ev::Held {
                    unit: u,
                    held: Some(Held::Ready(trigger.clone())),
                }));
            }
            Action::ReadyMove { trigger, to } => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.emit(ev(Ev::Held {
                    unit: u,
                    held: Some(Held::ReadyMove(trigger.clone(), *to)),
                }));
            }
            Action::Recover => {
                spend(x, u, |b| b.full = true);
                x.set_condition(u, Condition::Stunned, false);
            }
            Action::TakeRecovery => {
                spend(x, u, |b| b.full = true);
                let (now, max) = (unit.pool("stun"), unit.stat("stun"));
                x.set_pool(u, "stun", (now + unit.stat("rec").max(0)).min(max));
            }
            // Drop prone: a free action.
            Action::GoProne => x.set_condition(u, Condition::Prone, true),
            Action::StandUp => {
                spend(x, u, |b| b.actions += 1);
                stand_up(x, u);
            }
            _ => {}
        },
        _ => {}
    }
}

/// Standing up from prone provokes from every enemy threatening the unit's hex that may still
/// make an attack of opportunity (a new opportunity each time); acrobatics negates it.
fn stand_up(x: &mut Exec, u: UnitId) {
    let r = st(x.s());
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
    if !reactors.is_empty() {
        let skill = x.s().units[u.index()].stat("acrobatics");
        let negated = skill > 0
            && x.roll_under(Some(u), Purpose::Skill, &ndx(3, 6, 0), skill)
                .total
                <= skill;
        if !negated {
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
    }
    x.set_condition(u, Condition::Prone, false);
}

/// Whether `e` may make an attack of opportunity now (ignoring where and on whom).
fn may_make_aoo(eu: &Unit, r: &State, e: UnitId) -> bool {
    eu.is_active()
        && !eu.has(&Condition::Stunned)
        && !eu.has(&Condition::Dodging)
        && !eu.has(&Condition::Surprised)
        && (eu.stat("combat_reflexes") > 0 || r.aoo_made.get(e.index()).copied().unwrap_or(0) == 0)
}

/// Enemies of `mover` whose attack of opportunity leaving `from` provokes.
fn aoo_reactors(s: &BattleState, mover: UnitId, from: Cell) -> Vec<UnitId> {
    let r = st(s);
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
fn threatens(s: &BattleState, e: UnitId, c: Cell) -> bool {
    let eu = &s.units[e.index()];
    let d = s.grid().distance_steps(eu.cell, c);
    d >= 1
        && d <= eu.reach
        && (d == 1 || crate::rules::sight::line_of_sight(&s.terrain, eu.cell, c))
}

/// Units with an attack readied for an enemy coming within reach, that `mover` just came
/// within reach of by stepping from `from`.
fn readied_for_reach(s: &BattleState, mover: UnitId, from: Cell) -> Vec<UnitId> {
    let r = st(s);
    r.order
        .iter()
        .copied()
        .filter(|&h| {
            matches!(
                r.held
                    .get(h.index())
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
fn walk(x: &mut Exec, u: UnitId, cells: &[Cell]) {
    for i in 0..cells.len().saturating_sub(1) {
        let (from, to) = (cells[i], cells[i + 1]);
        let unit = &x.s().units[u.index()];
        if x.over() || !unit.is_active() || unit.has(&Condition::Stunned) || unit.cell != from {
            return;
        }
        if st(x.s()).walk_provokes {
            let reactors = aoo_reactors(x.s(), u, from);
            if !reactors.is_empty() {
                let negated = match st(x.s()).negated {
                    Some(n) => n,
                    None => {
                        let skill = x.s().units[u.index()].stat("acrobatics");
                        let ok = skill > 0
                            && x.roll_under(Some(u), Purpose::Skill, &ndx(3, 6, 0), skill)
                                .total
                                <= skill;
                        if skill > 0 {
                            x.emit(ev(Ev::Negated { negated: Some(ok) }));
                        }
                        ok
                    }
                };
                if !negated {
                    x.emit(ev(Ev::Offered {
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
        x.emit(Event::Moved { unit: u, from, to });
        let readiers = readied_for_reach(x.s(), u, from);
        if !readiers.is_empty() {
            x.emit(Event::Interrupted(Interrupt {
                trigger: Trigger::Ready { actor: u },
                reactors: readiers,
                resume: Resume::Move {
                    unit: u,
                    rest: cells[i + 1..].to_vec(),
                },
            }));
            return;
        }
    }
}

/// An attack on `t`: a unit not acting now may first abort to Dodge.
fn declare_attack(x: &mut Exec, a: UnitId, t: UnitId, ranged: bool) {
    if can_abort(x.s(), st(x.s()), t) {
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
                note: Phases::note(()),
            })),
        }));
    } else {
        strike(x, a, t, ranged);
    }
}

fn react(x: &mut Exec, u: UnitId, reaction: &Reaction) {
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
            x.emit(ev(Ev::AooMade { unit: u }));
            strike(x, u, *mover, false);
        }
        (Trigger::Ready { actor }, Reaction::Attack { .. } | Reaction::TakeHeld) => {
            fire_ready(x, u, *actor)
        }
        (Trigger::Targeted { .. }, Reaction::Abort { .. }) => abort(x, u),
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
        && let Some(&(saved, provokes, negated)) = st(x.s()).saved_walk.last()
        && saved == *actor
    {
        x.emit(ev(Ev::Walk { provokes }));
        x.emit(ev(Ev::Negated { negated }));
        x.emit(ev(Ev::WalkRestored));
    }
    let then = Phases::resume_of(&r).copied();
    match r {
        Resume::Move { unit, rest } => walk(x, unit, &rest),
        Resume::Attack(p) => strike(x, p.attacker, p.target, p.ranged),
        _ if then == Some(After::StandUp) => {
            if let Trigger::Provoked { actor, .. } = trigger
                && x.s().units[actor.index()].is_active()
            {
                x.set_condition(*actor, Condition::Prone, false);
            }
        }
        _ if then == Some(After::Deferred) => {
            let Some(cmd) = st(x.s()).deferred.clone() else {
                return;
            };
            x.emit(ev(Ev::Deferred { command: None }));
            let u = cmd.unit();
            let unit = &x.s().units[u.index()];
            if !unit.is_active() {
                return;
            }
            // The action goes on if it still can (its target may be gone).
            if check_act(x.s(), st(x.s()), u, &cmd).is_ok() {
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
    let r = st(x.s());
    let is_move = matches!(r.held.get(h.index()), Some(Some(Held::ReadyMove(..))));
    let walk_path = ready_move_path(x.s(), h);
    let mut order: Vec<UnitId> = r.order.iter().copied().filter(|&o| o != h).collect();
    let at = order
        .iter()
        .position(|&o| o == actor)
        .unwrap_or(order.len());
    order.insert(at, h);
    let done = r.done.get(h.index()).copied().unwrap_or(true);
    x.emit(ev(Ev::Held {
        unit: h,
        held: None,
    }));
    x.emit(ev(Ev::Order { order }));
    if !done {
        x.emit(ev(Ev::Done { unit: h }));
    }
    x.set_condition(h, Condition::Dodging, false);
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
        let r = st(x.s());
        let already = r.saved_walk.last().is_some_and(|s| s.0 == actor);
        if !already {
            let (provokes, negated) = (r.walk_provokes, r.negated);
            x.emit(ev(Ev::WalkSaved {
                unit: actor,
                provokes,
                negated,
            }));
        }
        spend(x, h, |b| b.moved = true);
        x.emit(ev(Ev::Negated { negated: None }));
        x.emit(ev(Ev::Walk { provokes: true }));
        walk(x, h, &path.cells());
        return;
    }
    if let Some(ranged) = ready_attack(x.s(), h, actor) {
        strike(x, h, actor, ranged);
    }
}

/// Rules P-135..P-137: abort to Dodge. Before its place in this Phase the unit gives up this
/// Phase's action; after it, the following Phase's. The held action, if any, is dropped.
fn abort(x: &mut Exec, u: UnitId) {
    let r = st(x.s());
    let next_phase = r.done.get(u.index()).copied().unwrap_or(true);
    if r.held.get(u.index()).is_some_and(|h| h.is_some()) {
        x.emit(ev(Ev::Held {
            unit: u,
            held: None,
        }));
    }
    x.emit(ev(Ev::Aborted {
        unit: u,
        next_phase,
    }));
    x.set_condition(u, Condition::Dodging, true);
}

/// DCV of `t` now: + Dodge bonus, halved while Stunned (house rule), -3 while unaware in the
/// Surprise Phase.
fn dcv_of(t: &Unit) -> i64 {
    let mut dcv = t.stat("dcv");
    if t.has(&Condition::Dodging) {
        dcv += t.stat("dodge_dcv");
    }
    if t.has(&Condition::Stunned) || t.is_prone() {
        dcv /= 2;
    }
    if t.has(&Condition::Surprised) {
        dcv -= UNAWARE_DCV;
    }
    dcv.max(0)
}

/// Damage dice of `a`'s attack: `(count, bonus)` of d6.
fn damage_dice(a: &Unit, ranged: bool) -> (i64, i64) {
    if ranged {
        (a.stat("ranged_damage_dice"), a.stat("ranged_damage_bonus"))
    } else {
        (a.stat("damage_dice"), a.stat("damage_bonus"))
    }
}

/// BODY and STUN a killing attack of `raw` BODY does to `t` (house rule).
fn damage_taken(t: &Unit, raw: i64) -> (i64, i64) {
    let raw = raw.max(0);
    let mult = t.stat("stun_multiplier").max(1);
    (
        (raw - t.stat("rpd")).max(0),
        (raw * mult - t.stat("pd")).max(0),
    )
}

/// Resolves an attack roll and its damage.
fn strike(x: &mut Exec, a: UnitId, t: UnitId, ranged: bool) {
    let (Some(au), Some(tu)) = (x.s().unit(a).cloned(), x.s().unit(t).cloned()) else {
        return;
    };
    if !au.is_active() || !tu.is_active() {
        return;
    }
    let needed = 10 + dcv_of(&tu);
    let roll = x.roll(
        Some(a),
        None,
        Purpose::Attack,
        &ndx(3, 6, au.stat("ocv")),
        Some(needed),
    );
    let hit = roll.total >= needed;
    x.emit(Event::Attacked {
        attacker: a,
        target: t,
        ranged,
        hit,
        crit: false,
    });
    if !hit {
        return;
    }
    let (n, bonus) = damage_dice(&au, ranged);
    let raw = x
        .roll(Some(a), None, Purpose::Damage, &ndx(n, 6, bonus), None)
        .total;
    let (body, stun) = damage_taken(&tu, raw);
    x.add_pool(t, "body", -body);
    x.add_pool(t, "stun", -stun);
    let now = &x.s().units[t.index()];
    if now.pool("body") <= 0 {
        x.set_status(t, Status::Dead);
    } else if now.pool("stun") <= 0 {
        x.set_status(t, Status::Down);
    } else if stun > now.stat("con") {
        x.set_condition(t, Condition::Stunned, true);
        if st(x.s()).held.get(t.index()).is_some_and(|h| h.is_some()) {
            x.emit(ev(Ev::Held {
                unit: t,
                held: None,
            }));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the view asks

/// A ruleset event in words, for the combat log.
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    let n = |u: &UnitId| s.unit_name(*u);
    let list = |v: &[UnitId]| v.iter().map(n).collect::<Vec<_>>().join(", ");
    match e {
        Ev::Initiative { order, .. } => format!("Initiative order: {}", list(order)),
        Ev::Phase { phase: 0 } => "--- Surprise Phase ---".to_string(),
        Ev::Phase { phase } => format!("--- Phase {phase} ---"),
        Ev::PostTurn => "Post-Turn: everyone able Takes a Recovery".to_string(),
        Ev::Acting { unit: Some(u) } => format!("{} acts", n(u)),
        Ev::Acting { unit: None } => "(between actions)".to_string(),
        Ev::Asking { unit: Some(u) } => format!("{} may take its delayed action now", n(u)),
        Ev::Asking { unit: None } => "(no delayed action asked)".to_string(),
        Ev::KeepsWaiting { unit } => format!("{} keeps waiting", n(unit)),
        Ev::Done { unit } => format!("{}'s place in this Phase has come", n(unit)),
        Ev::Spent { unit, budget } => format!(
            "{} has used {} action(s){}{}{}",
            n(unit),
            budget.actions,
            if budget.full { ", a full phase" } else { "" },
            if budget.moved { ", moved" } else { "" },
            if budget.stepped { ", stepped" } else { "" }
        ),
        Ev::Held {
            unit,
            held: Some(Held::Delay),
        } => format!("{} delays", n(unit)),
        Ev::Held {
            unit,
            held: Some(Held::Ready(t)),
        } => match t {
            ReadyTrigger::EnemyInReach => {
                format!(
                    "{} readies an attack on the first enemy within reach",
                    n(unit)
                )
            }
            ReadyTrigger::UnitActs { unit: t } => {
                format!("{} readies an attack for when {} acts", n(unit), n(t))
            }
        },
        Ev::Held {
            unit,
            held: Some(Held::ReadyMove(t, to)),
        } => match t {
            ReadyTrigger::EnemyInReach => format!(
                "{} readies a move to {to} for when an enemy comes within reach",
                n(unit)
            ),
            ReadyTrigger::UnitActs { unit: t } => {
                format!("{} readies a move to {to} for when {} acts", n(unit), n(t))
            }
        },
        Ev::WalkSaved { .. } => "(the interrupted movement waits)".to_string(),
        Ev::WalkRestored => "(the interrupted movement goes on)".to_string(),
        Ev::Held { unit, held: None } => format!("{} holds no action now", n(unit)),
        Ev::Lapsed { unit } => format!(
            "{}'s next action has come: its held action is lost",
            n(unit)
        ),
        Ev::Order { order } => format!("Initiative order is now: {}", list(order)),
        // The reaction's own line ("X aborts to Dodge") comes just before: say only the cost.
        Ev::Aborted { unit, next_phase } => format!(
            "{} gives up {} to dodge",
            n(unit),
            if *next_phase {
                "its action in the next Phase"
            } else {
                "its action this Phase"
            }
        ),
        Ev::Forfeit { unit } => format!("{} gave this action up when it aborted", n(unit)),
        Ev::Offered { mover, reactors } => format!(
            "{}'s movement is an opportunity for {}",
            n(mover),
            list(reactors)
        ),
        Ev::AooMade { unit } => format!("{} makes an attack of opportunity", n(unit)),
        Ev::Negated {
            negated: Some(true),
        } => "The acrobatics roll negates this move's attacks of opportunity".to_string(),
        Ev::Negated {
            negated: Some(false),
        } => "The acrobatics roll fails".to_string(),
        Ev::Negated { negated: None } | Ev::Walk { .. } => "(movement begins)".to_string(),
        Ev::Deferred { command: Some(_) } => "A readied action goes first".to_string(),
        Ev::Deferred { command: None } => "The interrupted action goes on".to_string(),
    }
}

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let current = r.asking.or(r.acting);
    let order = r
        .order
        .iter()
        .map(|&u| {
            let unit = &s.units[u.index()];
            let mut label = format!("CV {}", r.scores.get(u.index()).copied().unwrap_or(0));
            match r.held.get(u.index()) {
                Some(Some(Held::Delay)) => label.push_str(" \u{b7} delaying"),
                Some(Some(Held::Ready(_) | Held::ReadyMove(..))) => {
                    label.push_str(" \u{b7} readied")
                }
                _ => {}
            }
            if r.lose_next.get(u.index()).copied().unwrap_or(false) {
                label.push_str(" \u{b7} aborted next action");
            }
            if unit.has(&Condition::Surprised) {
                label.push_str(" \u{b7} unaware");
            }
            if !unit.is_active() {
                label.push_str(" \u{b7} out");
            }
            OrderEntry {
                unit: u,
                label,
                current: current == Some(u),
                done: r.done.get(u.index()).copied().unwrap_or(false) && current != Some(u),
            }
        })
        .collect();
    let phase = if r.phase == 0 {
        "Surprise Phase".to_string()
    } else {
        format!("Phase {} of 4", r.phase)
    };
    let headline = match current.and_then(|u| s.unit(u)) {
        Some(u) if r.asking.is_some() => format!(
            "Turn {} \u{b7} {phase} \u{b7} {} may take its delayed action",
            s.round, u.name
        ),
        Some(u) => format!("Turn {} \u{b7} {phase} \u{b7} {} acts", s.round, u.name),
        None => format!("Turn {} \u{b7} {phase}", s.round),
    };
    Clock { headline, order }
}

pub fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = view::generic(s, cmd);
    info.provokes = false;
    info.path = None;
    let u = cmd.unit();
    let Some(unit) = s.unit(u) else {
        return info;
    };
    let b = budget(r, u);
    info.cost = match cmd {
        Command::Move { to, .. } => {
            let budget = move_budget(r, unit, b);
            info.path = move_path(s, u, *to, budget);
            info.provokes = info.path.as_ref().is_some_and(|p| {
                p.steps
                    .iter()
                    .any(|st| !aoo_reactors(s, u, st.from).is_empty())
            });
            match &info.path {
                _ if unit.is_prone() => "move action (crawl one hex)".to_string(),
                Some(p) if p.cost() > half(unit) => "full phase".to_string(),
                _ => "move action".to_string(),
            }
        }
        Command::Attack { .. } => "attack action".to_string(),
        Command::Act { action, .. } => match action {
            Action::Step { to } => {
                info.path = s.path_for(u, 1, None, *to);
                "not an action (1-hex step)".to_string()
            }
            Action::Withdraw { to } => {
                info.path = s.path_for(u, half(unit), None, *to);
                "full phase".to_string()
            }
            Action::Delay => "not an action".to_string(),
            Action::Dodge | Action::Ready { .. } => "attack action".to_string(),
            Action::ReadyMove { to, .. } => {
                info.path = move_path(s, u, *to, half(unit));
                "attack action (readies a move action)".to_string()
            }
            Action::Recover | Action::TakeRecovery => "full phase".to_string(),
            Action::GoProne => "free action".to_string(),
            Action::StandUp => {
                let cell = unit.cell;
                info.provokes = s
                    .enemies_of(u)
                    .into_iter()
                    .any(|e| may_make_aoo(&s.units[e.index()], r, e) && threatens(s, e, cell));
                "move action".to_string()
            }
            _ => String::new(),
        },
        Command::React {
            reaction: Reaction::Attack { target },
            ..
        } => match ready_step(s, u, *target) {
            Some(to)
                if matches!(
                    s.interrupts.last().map(|i| &i.trigger),
                    Some(Trigger::Ready { .. })
                ) =>
            {
                info.path = s.path_for(u, 1, None, to);
                "free (readied attack, with a 1-hex step)".to_string()
            }
            _ => "free (attack of opportunity or readied attack)".to_string(),
        },
        Command::React {
            reaction: Reaction::TakeHeld,
            ..
        } => {
            info.path = ready_move_path(s, u);
            info.provokes = info.path.as_ref().is_some_and(|p| {
                p.steps
                    .iter()
                    .any(|st| !aoo_reactors(s, u, st.from).is_empty())
            });
            "free (readied move action)".to_string()
        }
        Command::React {
            reaction: Reaction::Abort { .. },
            ..
        } => {
            let cost = if r.done.get(u.index()).copied().unwrap_or(true) {
                "gives up the next Phase's action"
            } else {
                "gives up this Phase's action"
            };
            // What the Dodge buys against the attack at stake.
            match crate::rules::rulesets::hit_chance_if_dodging(s, u) {
                Some((now, dodging)) => format!(
                    "{cost}: +{} DCV, {:.0}% -> {:.0}% to hit",
                    s.units[u.index()].stat("dodge_dcv"),
                    now * 100.0,
                    dodging * 100.0
                ),
                None => cost.to_string(),
            }
        }
        _ => String::new(),
    };
    info
}

pub fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    attack_kind(s, attacker, target, ranged).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    let dcv = dcv_of(t);
    let ocv = a.stat("ocv");
    let hit = ndx(3, 6, ocv).distribution().at_least(10 + dcv);
    let (n, bonus) = damage_dice(a, ranged);
    let per_hit = ndx(n, 6, bonus)
        .distribution()
        .expect(|raw| damage_taken(t, raw).1 as f64);
    Some(Odds {
        hit,
        expected_damage: hit * per_hit,
        formula: format!("3d6 + OCV {ocv} vs 10 + DCV {dcv} (damage in STUN)"),
    })
}

#[cfg(test)]
mod tests;
