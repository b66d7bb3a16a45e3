//! The five rulesets, one module per seed. This module is the engine's only switch point:
//! each ruleset owns its turn scheduling, action economy, attack resolution and reactions,
//! and calls the shared mechanics in [`crate::rules::battle::common`].
//!
//! Every ruleset module has the same functions:
//! - `start(x)`: the opening events (initiative, surprise, the first turn);
//! - `pending(s)`: the decision the battle waits for (interrupts are handled by the engine);
//! - `legal(s)`: the commands that answer it, in a fixed order;
//! - `check(s, cmd)`: whether a command is legal now, and why not;
//! - `execute(x, cmd)`: what happens (only after `check` passed);
//! - `apply(state, event)`: its own bookkeeping events;
//! - `clock(s)`, `describe(s, cmd)`, `odds(s, attacker, target, ranged)`: what the HUD, the
//!   overlays and the AI may ask without changing anything (see [`view`]).

pub mod action_points;
pub mod alternating;
pub mod phases;
pub mod segments;
pub mod sides;
pub mod view;

pub use view::{Clock, CommandInfo, Odds, OrderEntry};

use crate::rules::battle::{
    BattleState, Command, Condition, Decision, Exec, Rejected, Trigger, UnitId,
};
use serde::{Deserialize, Serialize};

/// Each ruleset's own state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RulesState {
    Phases(phases::State),
    Sides(sides::State),
    Segments(segments::State),
    Alternating(alternating::State),
    ActionPoints(action_points::State),
}

/// Each ruleset's own bookkeeping events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RulesEvent {
    Phases(phases::Ev),
    Sides(sides::Ev),
    Segments(segments::Ev),
    Alternating(alternating::Ev),
    ActionPoints(action_points::Ev),
}

/// The empty state of ruleset `id` (levels are validated, so the id is known; an unknown id
/// falls back to `action-points`, whose start then finds nothing odd).
pub fn init(id: &str) -> RulesState {
    match id {
        "phases" => RulesState::Phases(phases::State::default()),
        "sides" => RulesState::Sides(sides::State::default()),
        "segments" => RulesState::Segments(segments::State::default()),
        "alternating" => RulesState::Alternating(alternating::State::default()),
        _ => RulesState::ActionPoints(action_points::State::default()),
    }
}

pub fn start(x: &mut Exec) {
    match x.state.rules {
        RulesState::Phases(_) => phases::start(x),
        RulesState::Sides(_) => sides::start(x),
        RulesState::Segments(_) => segments::start(x),
        RulesState::Alternating(_) => alternating::start(x),
        RulesState::ActionPoints(_) => action_points::start(x),
    }
}

pub fn pending(s: &BattleState) -> Decision {
    match &s.rules {
        RulesState::Phases(r) => phases::pending(s, r),
        RulesState::Sides(r) => sides::pending(s, r),
        RulesState::Segments(r) => segments::pending(s, r),
        RulesState::Alternating(r) => alternating::pending(s, r),
        RulesState::ActionPoints(r) => action_points::pending(s, r),
    }
}

pub fn legal(s: &BattleState) -> Vec<Command> {
    match &s.rules {
        RulesState::Phases(r) => phases::legal(s, r),
        RulesState::Sides(r) => sides::legal(s, r),
        RulesState::Segments(r) => segments::legal(s, r),
        RulesState::Alternating(r) => alternating::legal(s, r),
        RulesState::ActionPoints(r) => action_points::legal(s, r),
    }
}

pub fn check(s: &BattleState, cmd: &Command) -> Result<(), Rejected> {
    match &s.rules {
        RulesState::Phases(r) => phases::check(s, r, cmd),
        RulesState::Sides(r) => sides::check(s, r, cmd),
        RulesState::Segments(r) => segments::check(s, r, cmd),
        RulesState::Alternating(r) => alternating::check(s, r, cmd),
        RulesState::ActionPoints(r) => action_points::check(s, r, cmd),
    }
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match x.state.rules {
        RulesState::Phases(_) => phases::execute(x, cmd),
        RulesState::Sides(_) => sides::execute(x, cmd),
        RulesState::Segments(_) => segments::execute(x, cmd),
        RulesState::Alternating(_) => alternating::execute(x, cmd),
        RulesState::ActionPoints(_) => action_points::execute(x, cmd),
    }
}

/// Applies a ruleset event to the matching state (an event of another ruleset is ignored).
pub fn apply(state: &mut RulesState, e: &RulesEvent) {
    match (state, e) {
        (RulesState::Phases(s), RulesEvent::Phases(e)) => phases::apply(s, e),
        (RulesState::Sides(s), RulesEvent::Sides(e)) => sides::apply(s, e),
        (RulesState::Segments(s), RulesEvent::Segments(e)) => segments::apply(s, e),
        (RulesState::Alternating(s), RulesEvent::Alternating(e)) => alternating::apply(s, e),
        (RulesState::ActionPoints(s), RulesEvent::ActionPoints(e)) => action_points::apply(s, e),
        _ => {}
    }
}

/// The turn clock and turn order, in the ruleset's own terms (the HUD's turn-order panel).
pub fn clock(s: &BattleState) -> Clock {
    match &s.rules {
        RulesState::Phases(r) => phases::clock(s, r),
        RulesState::Sides(r) => sides::clock(s, r),
        RulesState::Segments(r) => segments::clock(s, r),
        RulesState::Alternating(r) => alternating::clock(s, r),
        RulesState::ActionPoints(r) => action_points::clock(s, r),
    }
}

/// For a reaction prompt on an attack coming at `unit` ([`Trigger::Targeted`]): the chance
/// the attack hits as things stand and if `unit` were dodging ([`Condition::Dodging`], which
/// `action-points` and `phases` count in their odds), as `(now, dodging)`.
pub fn hit_chance_if_dodging(s: &BattleState, unit: UnitId) -> Option<(f64, f64)> {
    let Some(Trigger::Targeted { attacker, ranged }) = s.interrupts.last().map(|i| &i.trigger)
    else {
        return None;
    };
    let now = odds(s, *attacker, unit, *ranged)?;
    let mut dodging = s.clone();
    dodging
        .units
        .get_mut(unit.index())?
        .conditions
        .insert(Condition::Dodging);
    let then = odds(&dodging, *attacker, unit, *ranged)?;
    Some((now.hit, then.hit))
}

/// What the ruleset calls its round, for the log and the HUD: `phases` counts Turns of four
/// Phases (its seed's own word); the others count Rounds.
pub fn round_word(s: &BattleState) -> &'static str {
    match &s.rules {
        RulesState::Phases(_) => "Turn",
        _ => "Round",
    }
}

/// How the action menu shows `cmd`: label, cost, whether it provokes, and the path of a move.
/// Meant for commands from [`BattleState::legal_commands`].
pub fn describe(s: &BattleState, cmd: &Command) -> CommandInfo {
    match &s.rules {
        RulesState::Phases(r) => phases::describe(s, r, cmd),
        RulesState::Sides(r) => sides::describe(s, r, cmd),
        RulesState::Segments(r) => segments::describe(s, r, cmd),
        RulesState::Alternating(r) => alternating::describe(s, r, cmd),
        RulesState::ActionPoints(r) => action_points::describe(s, r, cmd),
    }
}

/// The odds of `attacker` attacking `target` now (melee, or its ranged attack with `ranged`),
/// from the ruleset's own formula; `None` if it cannot make that attack.
pub fn odds(s: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> Option<Odds> {
    match &s.rules {
        RulesState::Phases(r) => phases::odds(s, r, attacker, target, ranged),
        RulesState::Sides(r) => sides::odds(s, r, attacker, target, ranged),
        RulesState::Segments(r) => segments::odds(s, r, attacker, target, ranged),
        RulesState::Alternating(r) => alternating::odds(s, r, attacker, target, ranged),
        RulesState::ActionPoints(r) => action_points::odds(s, r, attacker, target, ranged),
    }
}

/// Whether `enemy` surely takes a turn before `unit`'s next one, once `unit` has had its turn
/// (`segments`: `enemy`'s segment is still to come this round). False when it is not known
/// (the next round's initiative decides) and in the rulesets that do not say. (`sides` could say
/// yes for every enemy, its side order being fixed; priced as sure blows, that made the AI
/// hang back: 41% against greedy on the village instead of 73%, so it does not.)
pub fn acts_before(s: &BattleState, enemy: UnitId, unit: UnitId) -> bool {
    match &s.rules {
        RulesState::Segments(r) => segments::acts_before(s, r, enemy, unit),
        _ => false,
    }
}

/// Expected damage of one attack of `attacker` on `target` once it is where it can make it
/// (its reach, or its range with `ranged`), ignoring where the two stand now; `None` where the
/// ruleset does not say or the attacker has no such attack.
pub fn threat_damage(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<f64> {
    match &s.rules {
        RulesState::Segments(_) => segments::threat_damage(s, attacker, target, ranged),
        _ => None,
    }
}

/// Whether action points `unit` spends now come out of its own turn still to come this round
/// (`action-points`, AP refreshed per round). The rulesets without AP say no.
pub fn spends_from_coming_turn(s: &BattleState, unit: UnitId) -> bool {
    match &s.rules {
        RulesState::ActionPoints(r) => action_points::spends_from_coming_turn(s, r, unit),
        _ => false,
    }
}

/// Damage under way that lands later, as (caster, target, expected damage): the spells being
/// cast in `segments` go off when their casting time ends. The other rulesets resolve every
/// attack at once and have none.
pub fn pending_damage(s: &BattleState) -> Vec<(UnitId, UnitId, f64)> {
    match &s.rules {
        RulesState::Segments(r) => segments::pending_damage(s, r),
        _ => Vec::new(),
    }
}

/// Removes from `state` what `viewer` cannot know (the other sides' undeclared intents in
/// `segments`), so an AI searching a clone of it cannot cheat. The rulesets without hidden
/// information leave the state as it is.
pub fn redact(state: &mut BattleState, viewer: crate::rules::battle::SideId) {
    if let RulesState::Segments(_) = state.rules {
        segments::redact(state, viewer);
    }
}

/// An event as `viewer`'s side may see it (the combat log of a hot-seat view): another side's
/// hidden declaration loses its content in `segments`. Other events are returned as they are.
pub fn redact_event(
    state: &BattleState,
    event: &crate::rules::battle::Event,
    viewer: crate::rules::battle::SideId,
) -> crate::rules::battle::Event {
    match state.rules {
        RulesState::Segments(_) => segments::redact_event(state, event, viewer),
        _ => event.clone(),
    }
}
