//! What the view asks: the turn clock, how the action menu shows a command, the odds of an
//! attack, and the combat log's lines for the ruleset's events (plain English, units and
//! teams by name).

use super::actions::{cost, holds_melee, ready_reactors};
use super::combat::{
    DamageKind, PSYCHIC, advantage, attack_expr, crit_threshold, damage_kind, deflection_against,
    evasion_against, target_ok, test_expr, weapon,
};
use super::{ACTIONS, Alternating, Ev, LUCK_BONUS, MULTIPLE_ATTACK_PENALTY, State, names};
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Reaction, Resume, SideId, Status, UnitId,
};
use crate::rules::dice::Distribution;
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let surprise = if r.surprise_round {
        " (surprise round)"
    } else {
        ""
    };
    let headline = match (r.acting, r.teams.get(r.picking)) {
        (Some(u), _) if r.command.as_ref().is_some_and(|c| c.ally == u) => format!(
            "Round {}{surprise} \u{b7} {} takes one action on {}'s command",
            s.round,
            s.units[u.index()].name,
            r.command
                .as_ref()
                .map_or("?", |c| &*s.units[c.commander.index()].name)
        ),
        (Some(u), _) => {
            let unit = &s.units[u.index()];
            format!(
                "Round {}{surprise} \u{b7} {}'s turn, {}/{ACTIONS} actions",
                s.round,
                unit.name,
                unit.pool(names::ACTIONS)
            )
        }
        (None, Some(side)) => format!(
            "Round {}{surprise} \u{b7} {} pick next",
            s.round,
            s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
        ),
        _ => format!("Round {}", s.round),
    };
    let mut order = Vec::new();
    for &team in &r.teams {
        for u in s.unit_ids().filter(|&u| s.units[u.index()].side == team) {
            let unit = &s.units[u.index()];
            let label = match unit.status {
                Status::Dead => "Dead".to_string(),
                Status::Down => "Unconscious".to_string(),
                Status::Active if r.acting == Some(u) => {
                    format!(
                        "Acting \u{b7} {}/{ACTIONS} actions",
                        unit.pool(names::ACTIONS)
                    )
                }
                Status::Active if r.acted.contains(&u) => "Acted".to_string(),
                Status::Active if unit.has(&Condition::Surprised) => "Surprised".to_string(),
                Status::Active => "To act".to_string(),
            };
            order.push(OrderEntry {
                unit: u,
                label,
                current: r.acting == Some(u),
                done: r.acted.contains(&u) && r.acting != Some(u),
            });
        }
    }
    Clock { headline, order }
}

pub fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = view::generic(s, cmd);
    info.provokes = false;
    let path = |budget: u32, to: Cell| s.path_for(cmd.unit(), budget, None, to);
    let movement = s.unit(cmd.unit()).map_or(1, |u| u.movement);
    info.path = match cmd {
        Command::Move { to, .. }
        | Command::Act {
            action: Action::Sprint { to },
            ..
        } => path(movement, *to),
        Command::Act {
            action: Action::Step { to },
            ..
        } => path(1, *to),
        _ => None,
    };
    if let Some(p) = &info.path {
        info.provokes = p
            .steps
            .iter()
            .any(|st| !ready_reactors(s, cmd.unit(), st.from, st.to).is_empty());
    }
    let have = s.unit(cmd.unit()).map_or(0, |u| u.pool(names::ACTIONS));
    let continuing = r
        .extended
        .get(cmd.unit())
        .and_then(|e| e.as_ref())
        .filter(|e| e.command == *cmd)
        .map(|e| e.remaining);
    if let Command::Act {
        unit,
        action: Action::Brandish,
    } = cmd
    {
        let other = if holds_melee(s, *unit) {
            "ranged"
        } else {
            "melee"
        };
        info.label = format!("Brandish (take up the {other} weapon)");
    }
    if let Command::Act {
        unit,
        action: Action::ShortTask { cell },
    } = cmd
        && let (Some(task), Some(u)) = (s.task_at(*cell), s.unit(*unit))
    {
        let (attribute, skill, against) = super::combat::task_test(s, *cell);
        let (a, b) = (u.stat(&attribute).max(1), u.stat(&skill).max(1));
        info.label = format!(
            "Short Task: {} ({attribute} 1d{a} + {skill} 1d{b} against {against}: {:.0}%)",
            task.name,
            test_chance(a, b, 0, against) * 100.0
        );
    }
    info.cost = match cmd {
        Command::Pick { .. } | Command::Declare { .. } => String::new(),
        Command::React {
            reaction: Reaction::Decline,
            ..
        } => String::new(),
        Command::React {
            reaction: Reaction::Attack { .. },
            ..
        } => "reaction".to_string(),
        Command::React {
            reaction: Reaction::Resist,
            unit,
        } => format!(
            "reaction, 1 focus{}",
            defence_words(s, *unit, &Reaction::Resist)
        ),
        Command::React { reaction, unit } => {
            format!("reaction, 1 stamina{}", defence_words(s, *unit, reaction))
        }
        Command::EndTurn { .. } => "free".to_string(),
        Command::Act {
            action: Action::Guard | Action::Wait | Action::Ready { .. },
            ..
        } => "ends the turn".to_string(),
        _ => {
            let need = continuing.unwrap_or_else(|| cost(s, cmd));
            let stamina = match cmd {
                Command::Act {
                    action: Action::Sprint { .. },
                    ..
                } => ", 1 stamina",
                Command::Act {
                    action: Action::CommandAlly { .. },
                    ..
                } => ", 2 focus",
                _ => "",
            };
            let word = |n: i64| if n == 1 { "action" } else { "actions" };
            if need == 0 {
                "free".to_string()
            } else if need > have {
                format!(
                    "{need} {} (extended: {} more next turn){stamina}",
                    word(need),
                    need - have
                )
            } else {
                format!("{need} {}{stamina}", word(need))
            }
        }
    };
    info
}

/// What a defence does against the attack waiting on `unit`'s answer, for the prompt: the
/// chance of a Dodge or Resist test (two dice and the luck die) to beat the attack's total,
/// what a Parry or a Block takes off. Empty when no attack on `unit` is waiting.
pub(super) fn defence_words(s: &BattleState, unit: UnitId, reaction: &Reaction) -> String {
    let Some(Resume::Attack(p)) = s.interrupts.last().map(|i| &i.resume) else {
        return String::new();
    };
    let Some(t) = s.unit(unit).filter(|_| p.target == unit) else {
        return String::new();
    };
    let chance = |a: &str, b: &str, bonus: i64, what: &str| {
        let (x, y) = (t.stat(a).max(1), t.stat(b).max(1));
        format!(
            ": 1d{x}+1d{y}{} against {}: {:.0}% to {what}",
            if bonus == 0 {
                String::new()
            } else {
                format!("{bonus:+}")
            },
            p.total,
            test_chance(x, y, bonus, p.total) * 100.0
        )
    };
    match reaction {
        Reaction::Dodge => chance(
            names::DEXTERITY,
            names::ATHLETICS,
            i64::from(t.has(&Condition::Guarding)),
            "avoid the hit",
        ),
        Reaction::Resist => chance(
            names::WILL,
            names::RESOLVE,
            i64::from(t.has(&Condition::Guarding)),
            "shrug it off",
        ),
        Reaction::Parry => format!(
            ": +{} deflection against this hit, the weapon wears",
            t.stat(names::PARRY).max(1)
        ),
        Reaction::Block => format!(
            ": damage -{}, the shield takes the rest first",
            t.stat(names::BLOCK)
        ),
        _ => String::new(),
    }
}

/// The chance that a test of 1d`a` + 1d`b` + `bonus` reaches `against`, the luck die (a 20 adds
/// [`LUCK_BONUS`]) counted, as [`test`](super::combat::test) rolls it.
pub(super) fn test_chance(a: i64, b: i64, bonus: i64, against: i64) -> f64 {
    let d = test_expr(a, b, bonus).distribution();
    let plain = d.at_least(against);
    (plain + (d.at_least(against - LUCK_BONUS) - plain) / 20.0).clamp(0.0, 1.0)
}

/// The distribution of the best (adv > 0) or worst (adv < 0) of |adv| + 1 rolls.
pub(super) fn with_advantage(d: &Distribution, adv: i64) -> Vec<(i64, f64)> {
    let k = adv.unsigned_abs() as i32 + 1;
    let mut out = Vec::new();
    let mut below = 0.0; // P(X < t)
    for (t, p) in d.iter() {
        let at_most = below + p;
        let q = if adv >= 0 {
            at_most.powi(k) - below.powi(k)
        } else {
            (1.0 - below).powi(k) - (1.0 - at_most).powi(k)
        };
        out.push((t, q));
        below = at_most;
    }
    out
}

/// Exact odds of an attack, assuming the target does not react (Dodge, Parry, Block are its
/// choice) and, for a ranged attack, that a luck of 1 always strikes someone else when anyone
/// stands within 1 m of the target.
pub fn odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    odds_escaping(s, r, attacker, target, ranged, &Answer::NONE)
}

/// The defence tests a target may still roll against an attack that hits (Dodge, and Resist
/// against a psychic attack), as `finish_attack` rolls them: the reaction's words and the
/// test's two stats. Each needs a reaction left (an attack made now is never a free one) and
/// a stamina (Dodge) or a focus (Resist).
fn defence_tests(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Vec<(&'static str, &'static str, &'static str)> {
    let (Some(a), Some(t)) = (s.unit(attacker), s.unit(target)) else {
        return Vec::new();
    };
    if !t.is_active() || t.pool(names::REACTIONS) < 1 {
        return Vec::new();
    }
    let mut out = Vec::new();
    if t.pool(names::STAMINA) >= 1 {
        out.push(("dodges", names::DEXTERITY, names::ATHLETICS));
    }
    let key = if ranged {
        names::RANGED_DAMAGE_TYPE
    } else {
        names::DAMAGE_TYPE
    };
    if a.stat(key) == PSYCHIC && t.pool(names::FOCUS) >= 1 {
        out.push(("resists", names::WILL, names::RESOLVE));
    }
    out
}

/// The odds for each defensive reaction that could answer the attack once it hits, in the
/// prompt's order: the target's Dodge, Parry, Block and Resist (against a psychic attack),
/// then each ally's Intercept. A defence test (Dodge, Resist) is rolled after the hit against
/// the attack's total, so its chance is the sum over every total of P(total) x P(the hit
/// lands) x P(the test fails against that total); a Parry adds the parry to the deflection; a
/// Block takes the shield's block off the hit and the shield takes the rest first. An
/// intercepting ally takes the target's place and the attack's total is held against its own
/// evasion; the free defence it may add after that is not counted.
pub(super) fn answered_odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Vec<crate::rules::rulesets::Answered> {
    let Some(t) = s.unit(target) else {
        return Vec::new();
    };
    let answer = |by: UnitId, words: &str, odds: Option<Odds>| {
        odds.map(|odds| crate::rules::rulesets::Answered {
            by,
            reaction: words.to_string(),
            odds,
        })
    };
    let guard = i64::from(t.has(&Condition::Guarding));
    let test = |x: &str, y: &str| {
        let (x, y) = (t.stat(x).max(1), t.stat(y).max(1));
        move |total: i64, _crit: bool| test_chance(x, y, guard, total)
    };
    let mut out = Vec::new();
    // The odds left if the target answers so.
    let mut say = |words: &'static str, a: &Answer| {
        out.extend(answer(
            target,
            words,
            odds_escaping(s, r, attacker, target, ranged, a),
        ));
    };
    let tests = defence_tests(s, attacker, target, ranged);
    let can = |words: &str| tests.iter().any(|d| d.0 == words);
    if can("dodges") {
        let escape = test(names::DEXTERITY, names::ATHLETICS);
        let hit = Answer {
            escape: &escape,
            ..Answer::NONE
        };
        say("dodges", &hit);
        let parry = t.stat(names::PARRY).max(1);
        if t.pool(names::WEAPON) > 0 {
            let parried = Answer {
                parry,
                ..Answer::NONE
            };
            say("parries", &parried);
        }
        if t.stat(names::BLOCK) > 0 && t.pool(names::SHIELD) > 0 {
            let blocked = Answer {
                block: Some((t.stat(names::BLOCK), t.pool(names::SHIELD))),
                ..Answer::NONE
            };
            say("blocks", &blocked);
        }
    }
    if can("resists") {
        let escape = test(names::WILL, names::RESOLVE);
        let resisted = Answer {
            escape: &escape,
            ..Answer::NONE
        };
        say("resists", &resisted);
    }
    if odds(s, r, attacker, target, ranged).is_none() {
        return out;
    }
    let (Some(a), true) = (s.unit(attacker), t.is_active()) else {
        return out;
    };
    let needed = evasion_against(a, t);
    let trigger = crate::rules::battle::Trigger::Attacked {
        attacker,
        target,
        total: needed,
        needed,
        hit: true,
    };
    for ally in s.allies_of(target) {
        if ally == attacker
            || super::combat::check_react_with(s, &trigger, ally, &Reaction::Intercept).is_err()
        {
            continue;
        }
        // The ally steps into the target's cell; only a hit on the target is intercepted.
        let mut then = s.clone();
        let (from, to) = (then.units[ally.index()].cell, t.cell);
        then.units[ally.index()].cell = to;
        then.units[target.index()].cell = from;
        let only_hits =
            move |total: i64, crit: bool| if crit || total >= needed { 0.0 } else { 1.0 };
        let stepped_in = Answer {
            escape: &only_hits,
            ..Answer::NONE
        };
        out.extend(answer(
            ally,
            "intercepts",
            odds_escaping(&then, r, attacker, ally, ranged, &stepped_in),
        ));
    }
    out
}

/// What the target's answer does to an attack, for [`odds_escaping`].
struct Answer<'a> {
    /// The chance that a hit of attack total `total` (a critical one or not) is then avoided.
    escape: &'a dyn Fn(i64, bool) -> f64,
    /// A parry added to the deflection.
    parry: i64,
    /// A Block: the shield's block and what the shield can still take.
    block: Option<(i64, i64)>,
}

impl Answer<'_> {
    /// No answer: the attack as it comes.
    const NONE: Answer<'static> = Answer {
        escape: &|_, _| 0.0,
        parry: 0,
        block: None,
    };
}

/// [`odds`] with the target's `answer`.
fn odds_escaping(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    answer: &Answer,
) -> Option<Odds> {
    target_ok(s, attacker, target, ranged).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    if !t.is_active() {
        return None;
    }
    let before = r.attacks.get(attacker).copied().unwrap_or(0) as i64;
    let bonus = -MULTIPLE_ATTACK_PENALTY * before;
    let expr = attack_expr(a, ranged, bonus);
    let (adv, why) = advantage(s, attacker, target, ranged);
    let dist = with_advantage(&expr.distribution(), adv);
    let needed = evasion_against(a, t);
    let threshold = crit_threshold(a, ranged);
    let p_crit = ((21 - threshold).clamp(0, 20)) as f64 / 20.0;
    let crowded = ranged
        && s.unit_ids().any(|o| {
            let u = &s.units[o.index()];
            o != target
                && o != attacker
                && u.status != Status::Dead
                && s.grid().distance(u.cell, t.cell) <= 1
        });
    let p_astray = if crowded && threshold > 1 {
        1.0 / 20.0
    } else {
        0.0
    };
    let p_plain = 1.0 - p_crit - p_astray;
    let defl = deflection_against(a, t, ranged, answer.parry);
    let dmg = |test: i64, crit: bool| {
        let base = test.max(0) + weapon(a, ranged, crit);
        match answer.block {
            // A Block replaces the deflection; the shield takes the blow first.
            Some((block, shield)) => ((base - block).max(1) - shield).max(0) as f64,
            None => (base - defl).max(1) as f64,
        }
    };
    let mut hit = 0.0;
    let mut expected = 0.0;
    for &(test, p) in &dist {
        let crit = p * p_crit * (1.0 - (answer.escape)(test, true));
        hit += crit;
        expected += crit * dmg(test, true);
        if test >= needed {
            let plain = p * p_plain * (1.0 - (answer.escape)(test, false));
            hit += plain;
            expected += plain * dmg(test, false);
        }
    }
    let mut formula = format!("{expr} vs evasion {needed}, crit on luck {threshold}+");
    if damage_kind(a, ranged) == DamageKind::Typeless {
        formula.push_str(", typeless damage (no deflection)");
    }
    if adv != 0 {
        let word = if adv > 0 { "advantage" } else { "disadvantage" };
        formula.push_str(&format!(", {word} x{} ({})", adv.abs(), why.join(", ")));
    }
    Some(Odds {
        hit,
        expected_damage: expected,
        formula,
    })
}

fn team(s: &BattleState, side: SideId) -> &str {
    s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
}

/// One line for a ruleset event of `alternating`.
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    let r = Alternating::state(s);
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
        Ev::Joined { unit } => format!(
            "{} joins {}: its team may pick it this round",
            s.unit_name(*unit),
            s.unit(*unit)
                .and_then(|u| s.sides.get(u.side.index()))
                .map_or("its team", |x| x.name.as_str())
        ),
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
    }
}
