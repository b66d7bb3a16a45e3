//! The combat log's lines for the `alternating` bookkeeping events: plain English, units and
//! teams by name.

use super::Ev;
use crate::rules::battle::{BattleState, SideId};
use crate::rules::rulesets::view;

fn team(s: &BattleState, side: SideId) -> &str {
    s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
}

/// One line for a ruleset event of `alternating`.
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    let r = super::st(s);
    match e {
        Ev::Order {
            teams,
            surprise_round,
            ..
        } => {
            let order: Vec<&str> = teams.iter().map(|&t| team(s, t)).collect();
            let mut line = format!("Teams pick in turn: {}", order.join(", then "));
            if *surprise_round {
                line.push_str("; round 1 is a surprise round");
            }
            line
        }
        Ev::NewRound => "Every unit may take a turn again".to_string(),
        Ev::SurpriseOver => "The surprise round is over".to_string(),
        Ev::Picking { team: t } => match r.teams.get(*t) {
            Some(&side) => {
                let name = team(s, side);
                format!(
                    "{name} {} who acts next",
                    crate::rules::battle::log::agree(name, "picks", "pick")
                )
            }
            None => "No team has anyone left to act".to_string(),
        },
        Ev::TurnOf { unit } => format!("{} takes a turn: 3 actions", s.unit_name(*unit)),
        Ev::TurnOver => "The turn is over".to_string(),
        Ev::MoveUsed => "The move of the turn is used".to_string(),
        Ev::StepUsed => "The free Step of the turn is used".to_string(),
        Ev::AttackMade { unit } => format!(
            "{} has made another attack this round (-2 to the next)",
            s.unit_name(*unit)
        ),
        Ev::ExtendedStarted {
            unit,
            command,
            remaining,
        } => format!(
            "{} starts {}: {remaining} more action{} due",
            s.unit_name(*unit),
            view::label(s, command),
            if *remaining == 1 { "" } else { "s" }
        ),
        Ev::ExtendedDone { unit, completed } => {
            if *completed {
                format!("{} completes its extended action", s.unit_name(*unit))
            } else {
                format!("{} abandons its extended action", s.unit_name(*unit))
            }
        }
        Ev::CommandGiven {
            commander, ally, ..
        } => format!(
            "{} commands {} to take one action",
            s.unit_name(*commander),
            s.unit_name(*ally)
        ),
        Ev::CommandDone => "The commanded action is done".to_string(),
        Ev::Defer(_) => "The action waits for the reactions".to_string(),
        Ev::Undefer => "The waiting action goes on".to_string(),
        Ev::Brandished { unit, melee } => format!(
            "{} takes up its {} weapon",
            s.unit_name(*unit),
            if *melee { "melee" } else { "ranged" }
        ),
        Ev::Damage {
            attacker,
            target,
            raw,
            reduction,
            parry,
            blocked,
            amount,
        } => {
            let why = if *blocked {
                format!("{reduction} blocked by the shield")
            } else if *parry > 0 {
                format!("{reduction} deflected, {parry} of it by the parry")
            } else {
                format!("{reduction} deflected")
            };
            format!(
                "{} deals {raw} (test + weapon) to {}, {why}: {amount} damage",
                s.unit_name(*attacker),
                s.unit_name(*target)
            )
        }
    }
}
