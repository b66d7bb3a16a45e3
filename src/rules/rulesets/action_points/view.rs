//! What the view asks: log lines, the turn clock, the action menu, and attack odds.

use super::{ActionPoints, AttackKind, Ev, State, actions, combat, names, turns};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Reaction, Spell, Status, UnitId,
};
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self as shared, Clock, CommandInfo, Odds, OrderEntry};

/// One line for one of the ruleset's events (the combat log, `fray replay`).
pub(super) fn log_line(s: &BattleState, e: &Ev) -> String {
    match e {
        // Each score with its terms: "Pip 10 = 6 rolled + 4 rating".
        Ev::Initiative { order, scores } => format!(
            "Initiative order: {}",
            order
                .iter()
                .map(|u| {
                    let name = s.unit_name(*u);
                    let Some(&score) = scores.get(u.index()) else {
                        return name.to_string();
                    };
                    let rating = s.units[u.index()].stat(names::INITIATIVE_RATING);
                    if s.units[u.index()].has(&Condition::Surprised) {
                        format!("{name} {score} = {rating} rating (surprised: no roll)")
                    } else {
                        format!(
                            "{name} {score} = {} rolled + {rating} rating",
                            score - rating
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ev::Joined { unit, score, .. } => {
            let rating = s
                .unit(*unit)
                .map_or(0, |u| u.stat(names::INITIATIVE_RATING));
            format!(
                "{} joins the initiative order with {score} = {} rolled + {rating} rating",
                s.unit_name(*unit),
                score - rating
            )
        }
        Ev::Turn { index } => {
            let who = ActionPoints::state(s)
                .order
                .get(*index)
                .map_or_else(|| "?".to_string(), |u| s.unit_name(*u).into_owned());
            format!("{who} is next in the initiative order")
        }
        Ev::ExtendedStarted {
            unit,
            command,
            remaining,
        } => format!(
            "{} starts {} ({remaining} AP still needed)",
            s.unit_name(*unit),
            describe(s, ActionPoints::state(s), command).label
        ),
        Ev::Advantage { unit, on: true } => format!(
            "{} gains the Advantage (Press the Advantage until the round ends)",
            s.unit_name(*unit)
        ),
        Ev::Advantage { unit, on: false } => {
            format!("{} no longer has the Advantage", s.unit_name(*unit))
        }
        Ev::Pressing { unit, on: true } => {
            format!("{} presses the Advantage", s.unit_name(*unit))
        }
        Ev::Pressing { .. } => String::new(),
        Ev::ExtendedDone { unit, completed } => {
            if *completed {
                format!("{} completes the extended action", s.unit_name(*unit))
            } else {
                format!("{} loses the extended action", s.unit_name(*unit))
            }
        }
    }
}

/// The initiative shown for a unit with no score (none before initiative is rolled).
const NO_SCORE: i64 = 0;

pub(super) fn clock(s: &BattleState, r: &State) -> Clock {
    let order = r
        .order
        .iter()
        .enumerate()
        .map(|(i, &u)| {
            let unit = &s.units[u.index()];
            let init = r.scores.get(u).copied().unwrap_or(NO_SCORE);
            // The fallen say so, as in the other rulesets, not their unspendable AP.
            let label = match unit.status {
                Status::Dead => format!("Init {init} \u{b7} dead"),
                Status::Down => format!("Init {init} \u{b7} down"),
                Status::Active => format!(
                    "Init {init} \u{b7} {}/{} AP",
                    unit.pool(names::AP),
                    unit.stat(names::AP)
                ),
            };
            OrderEntry {
                unit: u,
                label,
                current: i == r.turn,
                done: i < r.turn,
            }
        })
        .collect();
    let headline = match turns::current(r).and_then(|u| s.unit(u)) {
        Some(u) => format!(
            "Round {} \u{b7} {}'s turn, {}/{} AP",
            s.round,
            u.name,
            u.pool(names::AP),
            u.stat(names::AP)
        ),
        None => format!("Round {}", s.round),
    };
    Clock { headline, order }
}

pub(super) fn describe(s: &BattleState, _: &State, cmd: &Command) -> CommandInfo {
    let mut info = shared::generic(s, cmd);
    // No attacks of opportunity in this ruleset: nothing provokes.
    info.provokes = false;
    if let Command::Move { unit, to } = cmd
        && let Some(u) = s.unit(*unit)
    {
        info.path = s.path_for(*unit, u.movement, None, *to);
    }
    let ap = s.unit(cmd.unit()).map_or(0, |u| u.pool(names::AP));
    info.cost = match cmd {
        Command::EndTurn { .. } => "free".to_string(),
        Command::React {
            reaction: Reaction::Dodge,
            unit,
        } => dodge_words(s, *unit),
        Command::React { .. } | Command::Pick { .. } | Command::Declare { .. } => String::new(),
        _ => {
            let need = actions::cost(s, cmd);
            if need > ap {
                format!("{need} AP (extended: {} AP next turn)", need - ap)
            } else {
                format!("{need} AP")
            }
        }
    };
    info
}

/// The Dodge entry of a reaction prompt: its cost, its bonus, and what it does to the odds of
/// the attack at stake (Orrin at the ruins: "1 AP: +1 defense against this attack, 65% -> 60%
/// to hit").
pub(super) fn dodge_words(s: &BattleState, unit: UnitId) -> String {
    let bonus = s.unit(unit).map_or(0, |u| u.stat(names::DODGE));
    let mut words = format!("1 AP: +{bonus} defense against this attack");
    if let Some((now, dodging)) = crate::rules::rulesets::hit_chance_if_dodging(s, unit) {
        words.push_str(&format!(
            ", {:.0}% -> {:.0}% to hit",
            now * 100.0,
            dodging * 100.0
        ));
    }
    words
}

pub(super) fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    kind_odds(s, attacker, target, AttackKind::of(ranged))
}

/// The odds of `attacker`'s attack of `kind` on `target` now: a spell rolls as an attack does,
/// against the same defense, and deals its own dice through armor.
pub(super) fn kind_odds(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    kind: AttackKind,
) -> Option<Odds> {
    let cmd = match kind {
        AttackKind::Spell => Command::Act {
            unit: attacker,
            action: Action::Cast {
                target,
                spell: Spell::MagicMissile,
            },
        },
        _ => Command::Attack {
            unit: attacker,
            target,
            ranged: kind == AttackKind::Ranged,
        },
    };
    actions::target_ok(s, &cmd).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    let defense = combat::defense_of(t);
    let bonus = a.stat(names::ATTACK);
    let hit = ndx(1, 20, bonus).distribution().at_least(defense);
    let (dice, armor) = combat::damage_of(a, t, kind);
    let per_hit = dice.distribution().expect(|d| (d - armor).max(1) as f64);
    Some(Odds {
        hit,
        expected_damage: hit * per_hit,
        formula: format!("1d20{bonus:+} vs {defense}"),
    })
}

/// A spell's odds, and its odds if the target Dodges (the Dodge answers a spell as it answers
/// an attack): what the reaction prompt tells before a spell lands.
pub(super) fn spell_odds(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
) -> Option<(Odds, Vec<crate::rules::rulesets::Answered>)> {
    let plain = kind_odds(s, attacker, target, AttackKind::Spell)?;
    let t = s.unit(target)?;
    let mut answers = Vec::new();
    if t.is_active() && t.pool(names::AP) >= 1 && !t.has(&Condition::Dodging) {
        let mut then = s.clone();
        if let Some(u) = then.units.get_mut(target.index()) {
            u.conditions.insert(Condition::Dodging);
        }
        if let Some(o) = kind_odds(&then, attacker, target, AttackKind::Spell) {
            answers.push(crate::rules::rulesets::Answered {
                by: target,
                reaction: "dodges".into(),
                odds: o,
            });
        }
    }
    Some((plain, answers))
}

/// The odds if the target Dodges (a reaction for 1 AP, offered whenever an attack is declared
/// on a unit with an AP left): the attack's odds with the target dodging.
pub(super) fn answered_odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<crate::rules::rulesets::Answered> {
    let t = s.unit(target)?;
    if !t.is_active() || t.pool(names::AP) < 1 || t.has(&Condition::Dodging) {
        return None;
    }
    odds(s, r, attacker, target, ranged)?;
    crate::rules::rulesets::view::answered_with(
        s,
        attacker,
        target,
        ranged,
        "dodges",
        Condition::Dodging,
    )
}
