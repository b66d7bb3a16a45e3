//! Ruleset `phases`: not built yet. A battle of this ruleset starts and ends at once as a draw,
//! and every command is rejected with that reason.

use crate::rules::battle::{BattleState, Command, Decision, Event, Exec, Rejected, UnitId};
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {}

pub fn start(x: &mut Exec) {
    x.emit(Event::Ended {
        winner: None,
        reason: "the phases ruleset is not built yet".into(),
    });
}

pub fn pending(_: &BattleState, _: &State) -> Decision {
    Decision::Over { winner: None }
}

pub fn legal(_: &BattleState, _: &State) -> Vec<Command> {
    Vec::new()
}

pub fn check(_: &BattleState, _: &State, _: &Command) -> Result<(), Rejected> {
    Err(Rejected::new("the phases ruleset is not built yet"))
}

pub fn execute(_: &mut Exec, _: &Command) {}

pub fn apply(_: &mut State, e: &Ev) {
    match *e {}
}

pub fn clock(s: &BattleState, _: &State) -> Clock {
    Clock {
        headline: format!("Round {}", s.round),
        order: Vec::new(),
    }
}

pub fn describe(s: &BattleState, _: &State, cmd: &Command) -> CommandInfo {
    view::generic(s, cmd)
}

pub fn odds(_: &BattleState, _: &State, _: UnitId, _: UnitId, _: bool) -> Option<Odds> {
    None
}
