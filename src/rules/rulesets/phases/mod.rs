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
//! - Manoeuvres (P-41, P-56..P-62, P-73, P-84..P-87, P-91, P-94), house rules for what the
//!   source text leaves out: see `manoeuvres`. Take a Recovery may be started and completed
//!   with move actions (P-55, P-72): `actions::recovery_way`.

//!
//! The code: this file holds the state, the events and their `apply`, and the [`Ruleset`]
//! impl; `turns` the Initiative order, Phases and Turns and whose action it is; `actions` the
//! ordinary actions (costs, `check`, `legal`, `execute`); `manoeuvres` the manoeuvres and
//! their combined modifiers; `combat` attacks, reactions and damage; `view` the clock, the menu, the odds and the log lines.

mod actions;
mod combat;
mod manoeuvres;
mod turns;
mod view;

use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    Action, BattleState, Command, Decision, Exec, ReadyTrigger, Rejected, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::Ruleset;
use crate::rules::rulesets::view::{Answered, Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

/// The stat and pool names the ruleset reads (see `assets/rulesets/phases.ron`), in one place:
/// a misspelt name is a compile error rather than a stat silently read as 0.
pub(super) mod names {
    /// BODY: a stat, and the pool that starts at it (0 or below: dead).
    pub const BODY: &str = "body";
    /// STUN: a stat, and the pool that starts at it (0 or below: knocked out).
    pub const STUN: &str = "stun";
    /// Combat Value: the Initiative score with `lightning_reflexes`.
    pub const CV: &str = "cv";
    /// Initiative bonus.
    pub const LIGHTNING_REFLEXES: &str = "lightning_reflexes";
    /// Offensive Combat Value.
    pub const OCV: &str = "ocv";
    /// Defensive Combat Value.
    pub const DCV: &str = "dcv";
    /// Constitution: more STUN than this from one attack Stuns.
    pub const CON: &str = "con";
    /// Physical Defense: subtracts from STUN.
    pub const PD: &str = "pd";
    /// Resistant Physical Defense: subtracts from BODY.
    pub const RPD: &str = "rpd";
    /// Recovery: STUN regained by Taking a Recovery.
    pub const REC: &str = "rec";
    /// Melee damage: `damage_dice`d6 + `damage_bonus` BODY.
    pub const DAMAGE_DICE: &str = "damage_dice";
    pub const DAMAGE_BONUS: &str = "damage_bonus";
    /// Ranged attack: range in hexes (0: none) and damage.
    pub const RANGE: &str = "range";
    pub const RANGED_DAMAGE_DICE: &str = "ranged_damage_dice";
    pub const RANGED_DAMAGE_BONUS: &str = "ranged_damage_bonus";
    /// Skill roll that negates a move's attacks of opportunity.
    pub const ACROBATICS: &str = "acrobatics";
    /// 1: one attack of opportunity per opportunity instead of one per Phase.
    pub const COMBAT_REFLEXES: &str = "combat_reflexes";
    /// DCV added while Dodging.
    pub const DODGE_DCV: &str = "dodge_dcv";
    /// STUN dealt per BODY rolled.
    pub const STUN_MULTIPLIER: &str = "stun_multiplier";
    /// Presence Attack dice (0: the unit cannot make one).
    pub const PRESENCE: &str = "presence";
}

pub use manoeuvres::{Blow, Man};

/// What `phases` does once the reactions to an interrupt it raised are in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum After {
    /// Run the command a readied action interrupted before it started.
    Deferred,
    /// The unit whose standing up provoked now stands.
    StandUp,
    /// The unit whose item action provoked (P-67, P-70, P-77, P-78, P-82) now carries it out.
    Item(Action),
}

/// The `phases` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct Phases;

impl Ruleset for Phases {
    type State = State;
    type Event = Ev;
    type Resume = After;
    type Note = Blow;
    const DATA: &'static str = include_str!("../../../../assets/rulesets/phases.ron");
    const ROUND_WORD: &'static str = "Turn";
    const STATS: &'static [&'static str] = &[
        names::CV,
        names::OCV,
        names::DCV,
        names::CON,
        names::BODY,
        names::STUN,
        names::PD,
        names::RPD,
        names::REC,
        names::DAMAGE_DICE,
        names::DAMAGE_BONUS,
    ];

    fn start(x: &mut Exec) {
        turns::start(x)
    }
    fn pending(s: &BattleState, r: &State) -> Decision {
        turns::pending(s, r)
    }
    fn legal(s: &BattleState, r: &State) -> Vec<Command> {
        actions::legal(s, r)
    }
    fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
        actions::check(s, r, cmd)
    }
    fn joined(x: &mut Exec, unit: UnitId) {
        turns::joined(x, unit)
    }
    fn execute(x: &mut Exec, cmd: &Command) {
        actions::execute(x, cmd)
    }
    fn apply(r: &mut State, e: &Ev) {
        apply(r, e)
    }
    fn log_line(s: &BattleState, e: &Ev) -> String {
        view::log_line(s, e)
    }
    fn clock(s: &BattleState, r: &State) -> Clock {
        view::clock(s, r)
    }
    fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
        view::describe(s, r, cmd)
    }
    fn odds(s: &BattleState, r: &State, a: UnitId, t: UnitId, ranged: bool) -> Option<Odds> {
        view::odds(s, r, a, t, ranged)
    }
    /// The mean of its d6 of damage, melee or (with a range) ranged, the better.
    fn armament(u: &crate::rules::battle::Unit) -> f64 {
        let mean = |(dice, bonus): (i64, i64)| dice as f64 * 3.5 + bonus as f64;
        let melee = mean(combat::damage_dice(u, false));
        let ranged = if u.stat(names::RANGE) > 0 {
            mean(combat::damage_dice(u, true))
        } else {
            0.0
        };
        melee.max(ranged).max(0.0)
    }
    fn action_odds(
        s: &BattleState,
        _: &State,
        unit: UnitId,
        action: &Action,
    ) -> Option<(UnitId, Odds)> {
        view::moving_odds(s, unit, action)
    }
    fn answered_odds(
        s: &BattleState,
        r: &State,
        a: UnitId,
        t: UnitId,
        ranged: bool,
    ) -> Vec<Answered> {
        view::answered_odds(s, r, a, t, ranged)
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
    /// A readied free action, dropping prone, taken when the trigger happens (P-139).
    ReadyProne(ReadyTrigger),
}

impl Held {
    /// The trigger of a readied action.
    pub(super) fn trigger(&self) -> Option<&ReadyTrigger> {
        match self {
            Held::Delay => None,
            Held::Ready(t) | Held::ReadyMove(t, _) | Held::ReadyProne(t) => Some(t),
        }
    }
}

/// The ruleset's bookkeeping. The per-unit fields are empty until Initiative; a reader of one
/// says what a unit that is not there counts as (`unwrap_or`), as the rules need it there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Initiative score (CV + Lightning Reflexes) per unit.
    pub scores: PerUnit<i64>,
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
    pub done: PerUnit<bool>,
    /// Per unit: what it used of this Phase.
    pub budget: PerUnit<Budget>,
    /// Per unit: a delayed or readied action.
    pub held: PerUnit<Option<Held>>,
    /// Per unit: it aborted after acting, giving up its action in the following Phase.
    pub lose_next: PerUnit<bool>,
    /// Per unit: attacks of opportunity made this Phase.
    pub aoo_made: PerUnit<u32>,
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
    /// The manoeuvres' bookkeeping (boxed: most battles use little of it).
    #[serde(default)]
    pub man: Box<manoeuvres::ManState>,
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
    /// Reinforcement `unit` takes its place `at` in the order with initiative `score`;
    /// `done`: its place in this Phase has already passed (house rule Reinforcements).
    Joined {
        unit: UnitId,
        score: i64,
        at: usize,
        done: bool,
    },
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
    /// The unit's manoeuvres in effect (until its next action begins) are now these.
    Stance { unit: UnitId, stance: Vec<Man> },
    /// The unit is disarmed (or no longer).
    Disarmed { unit: UnitId, on: bool },
    /// The unit is daunted by a Presence Attack (or no longer).
    Daunted { unit: UnitId, on: bool },
    /// The unit made its Presence Attack of this Turn.
    Presence { unit: UnitId, turn: u32 },
    /// A Haymaker winds up (Some) or the Phase's Haymakers are over (None).
    Haymaker { blow: Option<(UnitId, UnitId)> },
    /// A moving manoeuvre's blow waits for the mover to reach its hex (or is over).
    Blow {
        blow: Option<manoeuvres::PendingBlow>,
    },
    /// A defender's Block or Missile Deflection stopped the attack.
    Stopped { unit: UnitId, by: Man },
    /// The unit started a full-phase action with a move action in Phase `at` (or no longer
    /// has one started).
    Started { unit: UnitId, at: Option<u32> },
    /// The unit analysed this enemy (or its analysis is over).
    Analysed {
        unit: UnitId,
        target: Option<UnitId>,
    },
    /// A Haymaker found its target out of reach at the end of the Phase.
    Whiffed { unit: UnitId, target: UnitId },
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Initiative { scores, order } => {
            let n = scores.len();
            s.scores = PerUnit::from_vec(scores.clone());
            s.order = order.clone();
            s.done = PerUnit::filled(n, false);
            s.budget = PerUnit::filled(n, Budget::default());
            s.held = PerUnit::filled(n, None);
            s.lose_next = PerUnit::filled(n, false);
            s.aoo_made = PerUnit::filled(n, 0);
            s.man.stance = PerUnit::filled(n, Vec::new());
            s.man.disarmed = PerUnit::filled(n, false);
            s.man.daunted = PerUnit::filled(n, false);
            s.man.presence_turn = PerUnit::filled(n, 0);
            s.man.started = PerUnit::filled(n, None);
            s.man.analysed = PerUnit::filled(n, None);
        }
        Ev::Phase { phase } => {
            s.phase = *phase;
            s.done.values_mut().for_each(|d| *d = false);
            s.budget.values_mut().for_each(|b| *b = Budget::default());
            s.aoo_made.values_mut().for_each(|a| *a = 0);
            s.offered.clear();
            s.asked.clear();
        }
        Ev::PostTurn => {}
        Ev::Joined {
            unit,
            score,
            at,
            done,
        } => {
            let u = *unit;
            s.scores.put(u, *score);
            s.order.insert((*at).min(s.order.len()), u);
            s.done.put(u, *done);
            s.budget.put(u, Budget::default());
            s.held.put(u, None);
            s.lose_next.put(u, false);
            s.aoo_made.put(u, 0);
            s.man.stance.put(u, Vec::new());
            s.man.disarmed.put(u, false);
            s.man.daunted.put(u, false);
            s.man.presence_turn.put(u, 0);
            s.man.started.put(u, None);
            s.man.analysed.put(u, None);
        }
        Ev::Acting { unit } => {
            s.acting = *unit;
            s.asked.clear();
        }
        Ev::Asking { unit } => s.asking = *unit,
        Ev::KeepsWaiting { unit } => {
            s.asked.push(*unit);
            s.asking = None;
        }
        Ev::Done { unit } => s.done.set(*unit, true),
        Ev::Spent { unit, budget } => s.budget.set(*unit, *budget),
        Ev::Held { unit, held } => s.held.set(*unit, held.clone()),
        Ev::Lapsed { unit } => s.held.set(*unit, None),
        Ev::Order { order } => s.order = order.clone(),
        Ev::Aborted { unit, next_phase } => {
            if *next_phase {
                s.lose_next.set(*unit, true);
            } else {
                s.done.set(*unit, true);
            }
        }
        Ev::Forfeit { unit } => {
            s.done.set(*unit, true);
            s.lose_next.set(*unit, false);
        }
        Ev::Offered { mover, reactors } => {
            s.offered.extend(reactors.iter().map(|&r| (r, *mover)));
        }
        Ev::AooMade { unit } => {
            if let Some(a) = s.aoo_made.get_mut(*unit) {
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
        Ev::Stance { unit, stance } => s.man.stance.set(*unit, stance.clone()),
        Ev::Disarmed { unit, on } => s.man.disarmed.set(*unit, *on),
        Ev::Daunted { unit, on } => s.man.daunted.set(*unit, *on),
        Ev::Presence { unit, turn } => s.man.presence_turn.set(*unit, *turn),
        Ev::Haymaker { blow: Some(b) } => s.man.haymakers.push(*b),
        Ev::Haymaker { blow: None } => s.man.haymakers.clear(),
        Ev::Blow { blow } => s.man.blow = *blow,
        Ev::Started { unit, at } => s.man.started.set(*unit, *at),
        Ev::Analysed { unit, target } => s.man.analysed.set(*unit, *target),
        Ev::Stopped { .. } | Ev::Whiffed { .. } => {}
    }
}

#[cfg(test)]
mod tests;
