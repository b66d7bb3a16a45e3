//! The combat log: one line of plain English per event, naming units by name, so every
//! outcome can be explained ("Kestrel rolls Attack 1d20+4: 11 = 15 vs 15, success").

use super::{BattleState, Condition, Decision, Event, Purpose, Reaction, Status, Trigger};

/// The verb that agrees with a side's name: `agree("Monsters", "wins", "win")` is "win",
/// `agree("Party", "wins", "win")` "wins". A name ending in a single "s" (Adventurers,
/// Wardens, Bandits) is taken as plural; unit names are singular and never pass here.
pub fn agree<'a>(side: &str, singular: &'a str, plural: &'a str) -> &'a str {
    if side.ends_with('s') && !side.ends_with("ss") {
        plural
    } else {
        singular
    }
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
            let (who, rolls) = match (unit, side) {
                (Some(u), _) => (s.unit_name(*u).to_string(), "rolls"),
                (None, Some(side)) => {
                    let name = s
                        .sides
                        .get(side.index())
                        .map_or("?".to_string(), |x| x.name.clone());
                    let rolls = agree(&name, "rolls", "roll");
                    (name, rolls)
                }
                _ => ("?".to_string(), "rolls"),
            };
            let dice: Vec<String> = dice.iter().map(u32::to_string).collect();
            if let (Purpose::Morale, Some(a), Some(ok)) = (purpose, against, success) {
                // Morale (`sides`): 2d6 over the unit's morale and it breaks.
                return format!(
                    "{who} {rolls} {expr} for morale: [{}] = {total}, {} its morale {a}: {}",
                    dice.join(" "),
                    if *ok { "not over" } else { "over" },
                    if *ok { "it holds" } else { "it breaks" }
                );
            }
            let mut line = format!(
                "{who} {rolls} {purpose:?} {expr}: [{}] = {total}",
                dice.join(" ")
            );
            if let Some(a) = against {
                line.push_str(&format!(" vs {a}"));
            }
            if let Some(ok) = success {
                line.push_str(match (purpose, *ok) {
                    // A surprise roll succeeds when the side is *not* caught unawares.
                    (Purpose::Surprise, true) => ", not surprised",
                    (Purpose::Surprise, false) => ", surprised",
                    (_, true) => ", success",
                    (_, false) => ", failure",
                });
            }
            line
        }
        Event::RoundStarted { round } => {
            format!("--- {} {round} ---", crate::rules::rulesets::round_word(s))
        }
        Event::RoundEnded { round } => {
            format!("{} {round} ends", crate::rules::rulesets::round_word(s))
        }
        Event::TurnStarted { unit } => format!("{}'s turn", s.unit_name(*unit)),
        Event::TurnEnded { unit } => format!("{} ends its turn", s.unit_name(*unit)),
        Event::Moved { unit, from, to } => format!("{} moves {from} -> {to}", s.unit_name(*unit)),
        Event::Placed { unit, to } => format!("{} is moved to {to}", s.unit_name(*unit)),
        Event::Blocked { unit, by, at } => format!(
            "{} runs into {} at {at}, unseen until now, and stops",
            s.unit_name(*unit),
            s.unit_name(*by)
        ),
        Event::Spotted { unit, foe, at } => format!(
            "{} spots {} at {at} and stops",
            s.unit_name(*unit),
            s.unit_name(*foe)
        ),
        Event::Door { unit, cell, open } => format!(
            "{} {} the door at {cell}",
            s.unit_name(*unit),
            if *open { "opens" } else { "shuts" }
        ),
        Event::Unlocked { unit, cell } => {
            let task = s.task_at(*cell).map_or("the door", |t| t.name.as_str());
            format!(
                "{}'s Short Task on {task} succeeds: the door at {cell} is unlocked",
                s.unit_name(*unit)
            )
        }
        Event::Scripted(e) => super::script::log_line(s, e),
        Event::Carried { unit, item, to, .. } => format!(
            "{} {} its {}",
            s.unit_name(*unit),
            match to {
                super::Place::Hand => "readies",
                super::Place::Belt => "puts away",
                super::Place::Pack => "stows",
            },
            s.item_name(item)
        ),
        Event::Dropped { unit, item, cell } => format!(
            "{} drops its {} on {cell}",
            s.unit_name(*unit),
            s.item_name(item)
        ),
        Event::PickedUp { unit, item, cell } => format!(
            "{} picks up the {} from {cell}",
            s.unit_name(*unit),
            s.item_name(item)
        ),
        Event::Loaded { unit, item, loaded } => {
            let name = s.item_name(item);
            match loaded {
                0 => format!("{}'s {name} is empty", s.unit_name(*unit)),
                n => format!(
                    "{}'s {name} holds {n} shot{}",
                    s.unit_name(*unit),
                    if *n == 1 { "" } else { "s" }
                ),
            }
        }
        Event::Shifted {
            unit,
            item,
            from,
            to,
        } => format!(
            "{} shifts the {} from {from} to {to}",
            s.unit_name(*unit),
            s.item_name(item)
        ),
        Event::Attacked {
            attacker,
            target,
            ranged,
            hit,
            crit,
            spell,
        } => {
            let result = if *hit { "hits" } else { "misses" };
            let crit = if *crit { ": critical!" } else { "" };
            match spell {
                // A spell reads as a spell, not as a shot: "Vex's bolt hits Orrin".
                Some(spell) => format!(
                    "{}'s {spell} {result} {}{crit}",
                    s.unit_name(*attacker),
                    s.unit_name(*target)
                ),
                None => format!(
                    "{} {result}{} {}{crit}",
                    s.unit_name(*attacker),
                    if *ranged { " (ranged)" } else { "" },
                    s.unit_name(*target)
                ),
            }
        }
        Event::Pool {
            unit,
            pool,
            delta,
            value,
        } => {
            // A pool that stops at 0 loses only what it had: say so, or the change would not
            // match the damage line before it.
            let all = if *value == 0 && *delta < 0 {
                ", all it had left".to_string()
            } else {
                String::new()
            };
            // Hit points below 0 show as 0 (the rules keep the true number): the bracket says
            // how far the blow went past what was left, so the numbers still add up.
            let shown = shown_value(pool, *value);
            let all = match (shown != *value, *delta < 0) {
                (true, true) => format!(", {} more than it had left", (-value).min(-delta)),
                (true, false) => ", still down".to_string(),
                (false, _) => all,
            };
            format!(
                "{} {} {shown} ({delta:+}{all})",
                s.unit_name(*unit),
                crate::rules::rulesets::pool_word(s, pool).unwrap_or_else(|| pool_word(pool))
            )
        }
        Event::Reckoned {
            unit,
            what,
            terms,
            total,
        } => format!("{}: {what} {total} = {}", s.unit_name(*unit), sum(terms)),
        Event::Status { unit, status } => match status {
            Status::Active => format!("{} is back in the fight", s.unit_name(*unit)),
            Status::Down => format!("{} goes down", s.unit_name(*unit)),
            Status::Dead => format!("{} dies", s.unit_name(*unit)),
        },
        Event::Condition {
            unit,
            condition: Condition::Grappled { by },
            on,
        } => format!(
            "{} {} grappled by {}",
            s.unit_name(*unit),
            if *on { "is now" } else { "is no longer" },
            s.unit_name(*by)
        ),
        Event::Condition {
            unit,
            condition: Condition::Screening { ally },
            on,
        } => format!(
            "{} {} screening {}",
            s.unit_name(*unit),
            if *on { "is now" } else { "is no longer" },
            s.unit_name(*ally)
        ),
        Event::Condition {
            unit,
            condition,
            on,
        } => format!(
            "{} {} {}",
            s.unit_name(*unit),
            if *on { "is now" } else { "is no longer" },
            condition_words(condition)
        ),
        Event::Interrupted(i) => {
            let who: Vec<_> = i.reactors.iter().map(|&u| s.unit_name(u)).collect();
            format!(
                "{} may react: {}",
                who.join(", "),
                interrupt_words(s, &i.trigger, &i.resume)
            )
        }
        Event::Reacted { unit, reaction } => match reaction {
            Reaction::Decline => format!("{} lets it pass", s.unit_name(*unit)),
            Reaction::Attack { target } => {
                format!("{} attacks {}", s.unit_name(*unit), s.unit_name(*target))
            }
            Reaction::TakeHeld => format!("{} takes its held action", s.unit_name(*unit)),
            Reaction::Dodge => format!("{} dodges", s.unit_name(*unit)),
            Reaction::Parry => format!("{} parries", s.unit_name(*unit)),
            Reaction::Block => format!("{} blocks", s.unit_name(*unit)),
            Reaction::Fortify => format!("{} fortifies", s.unit_name(*unit)),
            Reaction::Resist => format!("{} resists", s.unit_name(*unit)),
            Reaction::TotalDefense => format!("{} takes Total Defense", s.unit_name(*unit)),
            Reaction::Intercept => format!("{} steps in to intercept", s.unit_name(*unit)),
            Reaction::Abort { action } => {
                format!("{} aborts to {}", s.unit_name(*unit), action.name())
            }
        },
        Event::Resumed => "The action goes on".to_string(),
        Event::Rules(r) => crate::rules::rulesets::log_line(s, r),
        Event::Ended { winner, reason } => match winner {
            Some(w) => {
                let name = s.sides.get(w.index()).map_or("?", |x| x.name.as_str());
                format!(
                    "Battle over: {name} {} ({reason})",
                    agree(name, "wins", "win")
                )
            }
            None => format!("Battle over: a draw ({reason})"),
        },
    }
}

/// Terms as a sum: "3 rolled + 2 two weapons - 1 armour".
pub fn sum(terms: &[super::Term]) -> String {
    let mut line = String::new();
    for (i, t) in terms.iter().enumerate() {
        let label = if t.label.is_empty() {
            String::new()
        } else {
            format!(" {}", t.label)
        };
        match (i, t.value < 0) {
            (0, _) => line.push_str(&format!("{}{label}", t.value)),
            (_, false) => line.push_str(&format!(" + {}{label}", t.value)),
            (_, true) => line.push_str(&format!(" - {}{label}", -t.value)),
        }
    }
    line
}

/// A trigger in words.
pub fn trigger(s: &BattleState, t: &Trigger) -> String {
    match t {
        Trigger::Opportunity { mover, from, .. } => {
            format!("{} moves off {from}, within reach", s.unit_name(*mover))
        }
        Trigger::Provoked { actor, action } => {
            format!("{} provokes: {action}", s.unit_name(*actor))
        }
        Trigger::Attacked {
            attacker,
            target,
            total,
            needed,
            hit,
        } => format!(
            "{} {} {} ({total} vs {needed})",
            s.unit_name(*attacker),
            if *hit { "is hitting" } else { "is missing" },
            s.unit_name(*target)
        ),
        Trigger::KeepConscious { difficulty } => {
            format!("stay conscious (difficulty {difficulty})")
        }
        Trigger::Ready { actor } => format!("{} acts", s.unit_name(*actor)),
        Trigger::Targeted { attacker, ranged } => format!(
            "{} attacks{}",
            s.unit_name(*attacker),
            if *ranged { " from range" } else { "" }
        ),
    }
}

/// An interrupt's trigger in words, told as a spell when the attack it pauses is one ("Vex
/// casts a bolt", not "Vex attacks from range").
fn interrupt_words(s: &BattleState, t: &Trigger, resume: &super::Resume) -> String {
    if let (Trigger::Targeted { attacker, .. }, super::Resume::Attack(p)) = (t, resume)
        && let Some(spell) = crate::rules::rulesets::spell_of(&p.note)
    {
        return format!("{} casts a {spell}", s.unit_name(*attacker));
    }
    trigger(s, t)
}

/// A pool's value as the player is shown it: hit points below 0 as 0 (the unit is down; the
/// rules keep the true number), any other pool as it is (Hero's BODY and STUN below 0 are
/// rules of their own).
pub fn shown_value(pool: &str, value: i64) -> i64 {
    if pool == "hp" { value.max(0) } else { value }
}

/// A pool's name in a log line: its key, but the action points' unit as players write it,
/// "AP" ("Kestrel AP 2 (-1)").
pub fn pool_word(pool: &str) -> &str {
    match pool {
        "ap" => "AP",
        other => other,
    }
}

/// The pending decision in words.
pub fn decision(s: &BattleState, d: &Decision) -> String {
    match d {
        Decision::Act { unit } => format!("{} to act", s.unit_name(*unit)),
        Decision::Pick { side, .. } => format!(
            "{} to pick who acts next",
            s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
        ),
        Decision::Declare { unit, .. } => format!("Declare for {}", s.unit_name(*unit)),
        Decision::React { unit, trigger: t } => {
            // The interrupt it answers is the battle's last (its continuation tells a spell).
            let words = match s.interrupts.last() {
                Some(i) if i.trigger == *t => interrupt_words(s, t, &i.resume),
                _ => trigger(s, t),
            };
            format!("{} may react: {words}", s.unit_name(*unit))
        }
        Decision::Over { .. } => "The battle is over".to_string(),
    }
}

/// A condition in words for the log: "in Total Defense", "in cover", else its name in lower
/// case with its words apart ("prone", "holding").
fn condition_words(c: &Condition) -> String {
    match c {
        Condition::TotalDefense => "in Total Defense".to_string(),
        Condition::InCover => "in cover".to_string(),
        other => {
            let name = format!("{other:?}");
            let name = name.split([' ', '{', '(']).next().unwrap_or_default();
            let mut out = String::new();
            for (i, ch) in name.chars().enumerate() {
                if ch.is_uppercase() && i > 0 {
                    out.push(' ');
                }
                out.extend(ch.to_lowercase());
            }
            out
        }
    }
}

#[cfg(test)]
mod condition_words_tests {
    use super::*;

    #[test]
    fn conditions_read_as_words_not_type_names() {
        assert_eq!(
            condition_words(&Condition::TotalDefense),
            "in Total Defense"
        );
        assert_eq!(condition_words(&Condition::InCover), "in cover");
        assert_eq!(condition_words(&Condition::Prone), "prone");
        assert_eq!(condition_words(&Condition::Holding), "holding");
    }
}
