//! What the view (and the AI) may ask a ruleset without changing the battle: the turn clock in
//! the ruleset's own terms, what a command costs and whether it provokes, and the odds of an
//! attack. The HUD, the overlays and the AI call these; they are pure functions of the state,
//! so a preview never disagrees with what `execute` then does.
//!
//! Each ruleset module has `clock(s, r)`, `describe(s, r, cmd)` and `odds(s, r, attacker,
//! target, ranged)`; [`super::clock`], [`super::describe`] and [`super::odds`] dispatch to them.
//! The generic helpers here ([`label`], [`move_path`]) are what a ruleset builds on.

use crate::rules::battle::{Action, BattleState, Command, Intent, Reaction, UnitId};
use crate::rules::path::Path;
use serde::{Deserialize, Serialize};

/// Where the battle stands, in the ruleset's own terms, for the turn-order panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// One line: "Turn 2 · Phase 3 of 4", "Round 2 · Company 7 vs Raiders 4",
    /// "Round 1 · Segment 4 of 10", "Round 3 · Wardens pick next", "Round 1 · Kestrel 3/4 AP".
    pub headline: String,
    /// Units in the order they act (this phase, round or segment), the acting one marked.
    pub order: Vec<OrderEntry>,
}

/// One line of the turn-order panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderEntry {
    pub unit: UnitId,
    /// What decides its place or what it has left: "CV 6", "Init 9", "AP 3/4", "Segment 4",
    /// "Picked", "Surprised".
    pub label: String,
    /// It is acting (or deciding) now.
    pub current: bool,
    /// It has already acted in this phase, round or segment.
    pub done: bool,
}

/// How the action menu shows a command.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandInfo {
    /// "Attack Gorrum", "Shoot Sly Tam", "Move to (3, 4)", "Dodge", "End turn".
    pub label: String,
    /// Its cost in the ruleset's terms: "attack action", "full phase", "2 AP",
    /// "1 action, 1 stamina", "Main action", "free". Empty when it costs nothing to mention.
    pub cost: String,
    /// Whether doing it now provokes an attack of opportunity (or a like reaction) from an
    /// enemy. For moves: whether some step of the path provokes.
    pub provokes: bool,
    /// For commands that move the unit: the path the engine will walk, with the steps that
    /// leave threatened cells marked (`Step::leaves_threat`).
    pub path: Option<Path>,
    /// For moves: it spends the unit's larger allowance, a full move where a shorter one
    /// would leave it more to do (`phases`' full phase, `sides`' two moves, `segments`' run with
    /// no attack after). The board shades such cells apart from the nearer ones.
    #[serde(default)]
    pub dear: bool,
}

/// The odds of an attack, from the ruleset's own formula, for the current state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Odds {
    /// Probability of a hit, 0 to 1.
    pub hit: f64,
    /// Expected damage of the attack, misses (and Shock on a miss, where it applies) counted.
    pub expected_damage: f64,
    /// The roll in words: "3d6 + 6 vs 15", "1d20 + 3 vs AC 16, half cover -2".
    pub formula: String,
}

/// The odds of an attack if its target answers it with a defensive reaction: what the tooltip
/// and the action menu add to the odds ("74%, or 38% if Quill dodges").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answered {
    /// Who answers: the target, or an ally who steps in (an Intercept).
    pub by: UnitId,
    /// The answer in words, after the name of `by`: "dodges", "aborts to Dodge", "takes
    /// Total Defense", "parries", "intercepts".
    pub reaction: String,
    /// The odds of the attack once it does.
    pub odds: Odds,
}

/// The odds of `attacker`'s attack on `target` with `condition` on the target: what a defensive
/// reaction that puts it on (Dodging, Total Defense) leaves of the attack, by the ruleset's own
/// [`super::odds`].
pub fn odds_with(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    condition: crate::rules::battle::Condition,
) -> Option<Odds> {
    let mut then = s.clone();
    then.units
        .get_mut(target.index())?
        .conditions
        .insert(condition);
    super::odds(&then, attacker, target, ranged)
}

/// What a defensive reaction (`reaction`, "dodges") that puts `condition` on the target leaves
/// of the attack: the tooltip's "or N% if X dodges", by [`odds_with`].
pub fn answered_with(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    reaction: &str,
    condition: crate::rules::battle::Condition,
) -> Option<super::Answered> {
    Some(super::Answered {
        by: target,
        reaction: reaction.to_string(),
        odds: odds_with(s, attacker, target, ranged, condition)?,
    })
}

/// A plain label for any command, naming units by name.
pub fn label(s: &BattleState, cmd: &Command) -> String {
    let name = |u: UnitId| s.unit(u).map_or("?".to_string(), |u| u.name.to_string());
    match cmd {
        Command::Move { to, .. } => format!("Move to {to}"),
        Command::Attack {
            target,
            ranged: false,
            ..
        } => format!("Attack {}", name(*target)),
        Command::Attack {
            target,
            ranged: true,
            ..
        } => format!("Shoot {}", name(*target)),
        Command::Act { action, .. } => match action {
            Action::Step { to } => format!("Step to {to}"),
            Action::Withdraw { to } => format!("Withdraw to {to}"),
            Action::Sprint { to } => format!("Sprint to {to}"),
            Action::Charge { target, to } => format!("Charge {} from {to}", name(*target)),
            Action::Screen { ally, to } => format!("Screen {} from {to}", name(*ally)),
            Action::Swarm { target } => format!("Swarm {}", name(*target)),
            Action::Shove {
                target,
                prone: true,
                ..
            } => format!("Shove {} prone", name(*target)),
            Action::Shove { target, push, .. } => match push {
                Some(c) => format!("Shove {} to {c}", name(*target)),
                None => format!("Shove {}", name(*target)),
            },
            Action::Grapple { target } => format!("Grapple {}", name(*target)),
            Action::FirstAid { target } => format!("First aid on {}", name(*target)),
            Action::Execute { target } => format!("Execute {}", name(*target)),
            Action::Drag { to } => format!("Drag the held foe to {to}"),
            Action::Throw { to } => format!("Throw the held foe to {to}"),
            Action::Resuscitate { target } => format!("Resuscitate {}", name(*target)),
            Action::CommandAlly { ally } => format!("Command {}", name(*ally)),
            Action::Cast { target, spell } if spell.is_magic_missile() => {
                format!("Cast at {}", name(*target))
            }
            Action::Cast { target, spell } => format!("Cast {} on {}", spell.name(), name(*target)),
            Action::PressAdvantage { target } => {
                format!("Press the Advantage on {}", name(*target))
            }
            Action::OpenDoor { cell } => format!("Open the door at {cell}"),
            Action::CloseDoor { cell } => format!("Shut the door at {cell}"),
            other => other.name().to_string(),
        },
        Command::EndTurn { .. } => "End turn".to_string(),
        Command::Pick { unit } => format!("{} acts next", name(*unit)),
        Command::Declare { unit, intent } => {
            let what = match intent {
                Intent::Melee => "fight in melee".to_string(),
                Intent::Missile => "shoot".to_string(),
                Intent::Spell { target, spell } if spell.is_magic_missile() => {
                    format!("cast at {}", name(*target))
                }
                Intent::Spell { target, spell } => {
                    format!("cast {} on {}", spell.name(), name(*target))
                }
                Intent::Run => "run".to_string(),
                Intent::Hold => "hold".to_string(),
            };
            format!("{}: {what}", name(*unit))
        }
        Command::React { reaction, .. } => match reaction {
            Reaction::Decline => "Let it pass".to_string(),
            Reaction::Attack { target } => format!("Attack {}", name(*target)),
            Reaction::Dodge => "Dodge".to_string(),
            Reaction::Parry => "Parry".to_string(),
            Reaction::Block => "Block".to_string(),
            Reaction::Fortify => "Fortify".to_string(),
            Reaction::TotalDefense => "Total Defense".to_string(),
            Reaction::Abort { action } => format!("Abort to {}", action.name()),
            Reaction::Intercept => "Intercept".to_string(),
            Reaction::Resist => "Resist".to_string(),
            Reaction::TakeHeld => "Take the held action".to_string(),
        },
    }
}

/// The path a plain `Move` of `unit` to `to` walks with `budget` movement points, steps that
/// leave cells threatened by its active enemies marked. `None` if it cannot end there.
pub fn move_path(
    s: &BattleState,
    unit: UnitId,
    to: crate::rules::grid::Cell,
    budget: u32,
) -> Option<Path> {
    let threat = s.threat_for(unit, |_| true);
    s.reach_of(unit, budget, Some(&threat)).path_to(to)
}

/// What a ruleset that has not described a command yet shows: its label, and for a `Move` the
/// path within the unit's movement.
pub fn generic(s: &BattleState, cmd: &Command) -> CommandInfo {
    let path = match cmd {
        Command::Move { unit, to } => s
            .unit(*unit)
            .and_then(|u| move_path(s, *unit, *to, u.movement)),
        _ => None,
    };
    CommandInfo {
        label: label(s, cmd),
        cost: String::new(),
        provokes: path.as_ref().is_some_and(|p| p.provocations() > 0),
        path,
        dear: false,
    }
}
