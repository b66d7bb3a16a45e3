//! The combat log: one line of plain English per event, naming units by name, so every
//! outcome can be explained ("Kestrel rolls Attack 1d20+4: 11 = 15 vs 15, success").

use super::{BattleState, Condition, Decision, Event, Reaction, Status, Trigger, UnitId};

fn name(s: &BattleState, u: UnitId) -> &str {
    s.unit(u).map_or("?", |u| &*u.name)
}

/// One line for `e`; `s` is the battle (any state: only names are read).
pub fn describe(s: &BattleState, e: &Event) -> String {
    match e {
        Event::Started { ruleset, seed } => format!("Battle begins ({ruleset}, seed {seed})"),
        Event::Rolled {
            unit,
            side,
            purpose,
            expr,
            dice,
            total,
            against,
            success,
        } => {
            let who = match (unit, side) {
                (Some(u), _) => name(s, *u).to_string(),
                (None, Some(side)) => s
                    .sides
                    .get(side.index())
                    .map_or("?".to_string(), |x| x.name.clone()),
                _ => "?".to_string(),
            };
            let dice: Vec<String> = dice.iter().map(u32::to_string).collect();
            let mut line = format!(
                "{who} rolls {purpose:?} {expr}: [{}] = {total}",
                dice.join(" ")
            );
            if let Some(a) = against {
                line.push_str(&format!(" vs {a}"));
            }
            if let Some(ok) = success {
                line.push_str(if *ok { ", success" } else { ", failure" });
            }
            line
        }
        Event::RoundStarted { round } => format!("--- Round {round} ---"),
        Event::RoundEnded { round } => format!("Round {round} ends"),
        Event::TurnStarted { unit } => format!("{}'s turn", name(s, *unit)),
        Event::TurnEnded { unit } => format!("{} ends its turn", name(s, *unit)),
        Event::Moved { unit, from, to } => format!("{} moves {from} -> {to}", name(s, *unit)),
        Event::Placed { unit, to } => format!("{} is moved to {to}", name(s, *unit)),
        Event::Attacked {
            attacker,
            target,
            ranged,
            hit,
            crit,
        } => format!(
            "{} {}{} {}{}",
            name(s, *attacker),
            if *hit { "hits" } else { "misses" },
            if *ranged { " (ranged)" } else { "" },
            name(s, *target),
            if *crit { ": critical!" } else { "" }
        ),
        Event::Pool {
            unit,
            pool,
            delta,
            value,
        } => format!("{} {pool} {} ({delta:+})", name(s, *unit), value),
        Event::Status { unit, status } => match status {
            Status::Active => format!("{} is back in the fight", name(s, *unit)),
            Status::Down => format!("{} goes down", name(s, *unit)),
            Status::Dead => format!("{} dies", name(s, *unit)),
        },
        Event::Condition {
            unit,
            condition: Condition::Grappled { by },
            on,
        } => format!(
            "{} {} grappled by {}",
            name(s, *unit),
            if *on { "is now" } else { "is no longer" },
            name(s, *by)
        ),
        Event::Condition {
            unit,
            condition: Condition::Screening { ally },
            on,
        } => format!(
            "{} {} screening {}",
            name(s, *unit),
            if *on { "is now" } else { "is no longer" },
            name(s, *ally)
        ),
        Event::Condition {
            unit,
            condition,
            on,
        } => format!(
            "{} {} {condition:?}",
            name(s, *unit),
            if *on { "is now" } else { "is no longer" }
        ),
        Event::Interrupted(i) => {
            let who: Vec<&str> = i.reactors.iter().map(|&u| name(s, u)).collect();
            format!("{} may react: {}", who.join(", "), trigger(s, &i.trigger))
        }
        Event::Reacted { unit, reaction } => match reaction {
            Reaction::Decline => format!("{} lets it pass", name(s, *unit)),
            Reaction::Attack { target } => {
                format!("{} attacks {}", name(s, *unit), name(s, *target))
            }
            Reaction::TakeHeld => format!("{} takes its held action", name(s, *unit)),
            Reaction::Dodge => format!("{} dodges", name(s, *unit)),
            Reaction::Parry => format!("{} parries", name(s, *unit)),
            Reaction::Block => format!("{} blocks", name(s, *unit)),
            Reaction::Fortify => format!("{} fortifies", name(s, *unit)),
            Reaction::Resist => format!("{} resists", name(s, *unit)),
            Reaction::TotalDefense => format!("{} takes Total Defense", name(s, *unit)),
            Reaction::Intercept => format!("{} steps in to intercept", name(s, *unit)),
            Reaction::Abort { action } => {
                format!("{} aborts to {action:?}", name(s, *unit))
            }
        },
        Event::Resumed => "The action goes on".to_string(),
        Event::Rules(crate::rules::rulesets::RulesEvent::Phases(r)) => {
            crate::rules::rulesets::phases::log_line(s, r)
        }
        Event::Rules(crate::rules::rulesets::RulesEvent::Sides(e)) => {
            crate::rules::rulesets::sides::log_line(s, e)
        }
        Event::Rules(crate::rules::rulesets::RulesEvent::Segments(e)) => {
            crate::rules::rulesets::segments::log_line(s, e)
        }
        Event::Rules(crate::rules::rulesets::RulesEvent::Alternating(e)) => {
            crate::rules::rulesets::alternating::log_line(s, e)
        }
        Event::Rules(r) => format!("{r:?}"),
        Event::Ended { winner, reason } => match winner {
            Some(w) => format!(
                "Battle over: {} wins ({reason})",
                s.sides.get(w.index()).map_or("?", |x| x.name.as_str())
            ),
            None => format!("Battle over: a draw ({reason})"),
        },
    }
}

/// A trigger in words.
pub fn trigger(s: &BattleState, t: &Trigger) -> String {
    match t {
        Trigger::Opportunity { mover, from, .. } => {
            format!("{} leaves {from}, which it threatens", name(s, *mover))
        }
        Trigger::Provoked { actor, action } => format!("{} provokes: {action}", name(s, *actor)),
        Trigger::Attacked {
            attacker,
            target,
            total,
            needed,
            hit,
        } => format!(
            "{} {} {} ({total} vs {needed})",
            name(s, *attacker),
            if *hit { "is hitting" } else { "is missing" },
            name(s, *target)
        ),
        Trigger::KeepConscious { difficulty } => {
            format!("stay conscious (difficulty {difficulty})")
        }
        Trigger::Ready { actor } => format!("{} acts", name(s, *actor)),
        Trigger::Targeted { attacker, ranged } => format!(
            "{} attacks{}",
            name(s, *attacker),
            if *ranged { " from range" } else { "" }
        ),
    }
}

/// The pending decision in words.
pub fn decision(s: &BattleState, d: &Decision) -> String {
    match d {
        Decision::Act { unit } => format!("{} to act", name(s, *unit)),
        Decision::Pick { side, .. } => format!(
            "{} to pick who acts next",
            s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
        ),
        Decision::Declare { unit, .. } => format!("declare for {}", name(s, *unit)),
        Decision::React { unit, trigger: t } => {
            format!("{} may react: {}", name(s, *unit), trigger(s, t))
        }
        Decision::Over { .. } => "the battle is over".to_string(),
    }
}
