//! What the view asks: the combat log's lines, the turn clock, the action menu and the odds.

use super::actions::{half, move_budget, move_path};
use super::combat::{
    aoo_reactors, attack_kind, damage_taken, dcv_of, may_make_aoo, ready_move_path, ready_step,
    threatens,
};
use super::manoeuvres;
use super::names;
use super::turns::budget;
use super::{Ev, Held, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Reaction, ReadyTrigger, Trigger, UnitId,
};
use crate::rules::rulesets::view::{self as shared, Clock, CommandInfo, Odds, OrderEntry};

/// What a unit has used of its Phase, as a list in plain English: "used 1 action and moved",
/// "used a full phase and moved", "taken its 1-hex step"; never "0 actions".
fn spent_words(b: &super::Budget) -> String {
    let mut nouns = Vec::new();
    match b.actions {
        0 => {}
        1 => nouns.push("1 action".to_string()),
        k => nouns.push(format!("{k} actions")),
    }
    if b.full {
        nouns.push("a full phase".to_string());
    }
    let mut clauses = Vec::new();
    if !nouns.is_empty() {
        clauses.push(format!("used {}", nouns.join(" and ")));
    }
    if b.moved {
        clauses.push("moved".to_string());
    }
    if b.stepped {
        clauses.push("taken its 1-hex step".to_string());
    }
    match clauses.as_slice() {
        [] => "used nothing yet".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A ruleset event in words, for the combat log.
pub(super) fn log_line(s: &BattleState, e: &Ev) -> String {
    let n = |u: &UnitId| s.unit_name(*u);
    let list = |v: &[UnitId]| v.iter().map(n).collect::<Vec<_>>().join(", ");
    match e {
        Ev::Initiative { order, .. } => format!("Initiative order: {}", list(order)),
        Ev::Phase { phase: 0 } => "--- Surprise Phase ---".to_string(),
        Ev::Phase { phase } => format!("--- Phase {phase} ---"),
        Ev::PostTurn => "Post-Turn: everyone able Takes a Recovery".to_string(),
        Ev::Joined {
            unit, score, done, ..
        } => format!(
            "{} takes its place in the order with initiative {score}{}",
            s.unit_name(*unit),
            if *done {
                "; its place in this Phase has passed, it acts from the next"
            } else {
                "; it acts this Phase when its place comes"
            }
        ),
        Ev::Acting { unit: Some(u) } => format!("{} acts", n(u)),
        Ev::Acting { unit: None } => "(between actions)".to_string(),
        Ev::Asking { unit: Some(u) } => format!("{} may take its delayed action now", n(u)),
        Ev::Asking { unit: None } => "(No delayed action asked)".to_string(),
        Ev::KeepsWaiting { unit } => format!("{} keeps waiting", n(unit)),
        Ev::Done { unit } => format!("{}'s place in this Phase has come", n(unit)),
        Ev::Spent { unit, budget } => format!("{} has {}", n(unit), spent_words(budget)),
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
            held: Some(Held::ReadyProne(t)),
        } => match t {
            ReadyTrigger::EnemyInReach => format!(
                "{} readies to drop prone when an enemy comes within reach",
                n(unit)
            ),
            ReadyTrigger::UnitActs { unit: t } => {
                format!("{} readies to drop prone when {} acts", n(unit), n(t))
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
        // The reaction's own line ("X aborts to Dodge") comes just before: say only the cost
        // ("for it": the defensive action it aborted to).
        Ev::Aborted { unit, next_phase } => format!(
            "{} gives up {} for it",
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
        Ev::Stance { unit, stance } if stance.is_empty() => {
            format!("{}'s manoeuvres are over", n(unit))
        }
        Ev::Stance { unit, stance } => format!(
            "{} is using {} until its next action",
            n(unit),
            stance
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ev::Disarmed { unit, on: true } => format!(
            "{} is disarmed: its attacks do 1d6 until the end of its next action",
            n(unit)
        ),
        Ev::Disarmed { unit, on: false } => format!("{} has its weapon again", n(unit)),
        Ev::Daunted { unit, on: true } => format!(
            "{} is daunted: -{} OCV until the end of its next action",
            n(unit),
            manoeuvres::DAUNTED_OCV
        ),
        Ev::Daunted { unit, on: false } => format!("{} is no longer daunted", n(unit)),
        Ev::Presence { unit, .. } => format!("{} makes a Presence Attack", n(unit)),
        Ev::Haymaker { blow: Some((a, t)) } => format!(
            "{} winds up a Haymaker at {}: it lands at the end of the Phase",
            n(a),
            n(t)
        ),
        Ev::Haymaker { blow: None } => "The Phase's Haymakers land".to_string(),
        Ev::Blow { blow: Some(b) } => {
            format!("{} will strike {} from {}", n(&b.unit), n(&b.target), b.at)
        }
        Ev::Blow { blow: None } => "(The blow falls or is off)".to_string(),
        Ev::Stopped { unit, by } => format!("{}'s {} stops the attack", n(unit), by.name()),
        Ev::Started { unit, at: Some(_) } => format!(
            "{} starts a Take a Recovery (a move action): it completes it in its next Phase",
            n(unit)
        ),
        Ev::Started { unit, at: None } => {
            format!("{} has no Take a Recovery started now", n(unit))
        }
        Ev::Analysed {
            unit,
            target: Some(t),
        } => format!(
            "{} studies {} for weaknesses: +{} OCV against it until its next action",
            n(unit),
            n(t),
            manoeuvres::ANALYSED_OCV
        ),
        Ev::Analysed { unit, target: None } => format!("{}'s analysis is over", n(unit)),
        Ev::Whiffed { unit, target } => format!(
            "{}'s Haymaker misses: {} is out of reach",
            n(unit),
            n(target)
        ),
    }
}

pub(super) fn clock(s: &BattleState, r: &State) -> Clock {
    let current = r.asking.or(r.acting);
    let order = r
        .order
        .iter()
        .map(|&u| {
            let unit = &s.units[u.index()];
            let mut label = format!("CV {}", r.scores.get(u).copied().unwrap_or(0));
            match r.held.get(u) {
                Some(Some(Held::Delay)) => label.push_str(" \u{b7} delaying"),
                Some(Some(Held::Ready(_) | Held::ReadyMove(..) | Held::ReadyProne(_))) => {
                    label.push_str(" \u{b7} readied")
                }
                _ => {}
            }
            if r.lose_next.get(u).copied().unwrap_or(false) {
                label.push_str(" \u{b7} aborted next action");
            }
            if unit.has(&Condition::Surprised) {
                label.push_str(" \u{b7} unaware");
            }
            if !unit.is_active() {
                label.push_str(" \u{b7} out");
            }
            // Who acts in this Phase: the units still to act, and those whose place has passed.
            let done = r.done.get(u).copied().unwrap_or(false);
            if unit.is_active() && current != Some(u) {
                if done {
                    label.push_str(" \u{b7} acted");
                } else if !(r.phase == 0 && unit.has(&Condition::Surprised)) {
                    label.push_str(" \u{b7} to act");
                }
            }
            OrderEntry {
                unit: u,
                label,
                current: current == Some(u),
                done: r.done.get(u).copied().unwrap_or(false) && current != Some(u),
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

pub(super) fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = shared::generic(s, cmd);
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
                Some(p) if p.cost() > half(unit) => {
                    info.dear = true;
                    "full phase".to_string()
                }
                _ => "move action".to_string(),
            }
        }
        Command::Attack { .. } => "attack action".to_string(),
        Command::Act { action, .. } => match action {
            Action::Step { to } => {
                info.path = s.path_for(u, 1, None, *to);
                "free: a 1-hex step, uses no action".to_string()
            }
            Action::Withdraw { to } => {
                info.path = s.path_for(u, half(unit), None, *to);
                "full phase".to_string()
            }
            Action::Delay => "free: waits, uses no action yet".to_string(),
            Action::Dodge | Action::Ready { .. } | Action::ReadyProne { .. } => {
                "attack action".to_string()
            }
            Action::ReadyMove { to, .. } => {
                info.path = move_path(s, u, *to, half(unit));
                "attack action (readies a move action)".to_string()
            }
            Action::TakeRecovery => match super::actions::recovery_way(s, r, u) {
                Ok(super::actions::Recovery::Start) => {
                    "move action (starts it; complete it next Phase)".to_string()
                }
                Ok(super::actions::Recovery::Complete) => {
                    "move action (completes the one started)".to_string()
                }
                _ => "full phase".to_string(),
            },
            Action::Recover => "full phase".to_string(),
            Action::Block
            | Action::MissileDeflection
            | Action::RollWithPunch
            | Action::Disarm { .. }
            | Action::Grab { .. }
            | Action::BreakFree => "attack action".to_string(),
            Action::Haymaker { .. } => "attack action (lands at the Phase's end)".to_string(),
            Action::Sweep { .. } | Action::RapidFire { .. } => "full phase".to_string(),
            Action::MoveBy { target, to } => {
                info.path = manoeuvres::move_by_path(s, u, *target, *to).map(|p| p.0);
                "full phase (never provokes)".to_string()
            }
            Action::MoveThrough { target, to } => {
                info.path = manoeuvres::move_through_path(s, u, *target, *to);
                "full phase (never provokes)".to_string()
            }
            Action::Analyse { .. } => "move action".to_string(),
            Action::Brace | Action::PresenceAttack { .. } | Action::Release => {
                "free action".to_string()
            }
            Action::GoProne => "free action".to_string(),
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => "move action".to_string(),
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
        } if matches!(r.held.get(u), Some(Some(Held::ReadyProne(_)))) => {
            info.label = "Take the held action: drop prone".to_string();
            "free (readied free action: drop prone)".to_string()
        }
        Command::React {
            reaction: Reaction::TakeHeld,
            ..
        } => {
            if let Some(Some(Held::ReadyMove(_, to))) = r.held.get(u) {
                info.label = format!("Take the held action: move to {to}");
            }
            info.path = ready_move_path(s, u);
            info.provokes = info.path.as_ref().is_some_and(|p| {
                p.steps
                    .iter()
                    .any(|st| !aoo_reactors(s, u, st.from).is_empty())
            });
            "free (readied move action)".to_string()
        }
        Command::React {
            reaction: Reaction::Abort { action },
            ..
        } => {
            let cost = if r.done.get(u).copied().unwrap_or(true) {
                "gives up the next Phase's action"
            } else {
                "gives up this Phase's action"
            };
            // What the Dodge buys against the attack at stake; the other manoeuvres in words.
            let other = match action {
                Action::Block => Some("+2 DCV and a Block roll against each melee attack"),
                Action::RollWithPunch => Some("-2 DCV, melee hits roll half damage"),
                Action::MissileDeflection => Some("a deflection roll against each shot"),
                _ => None,
            };
            if let Some(what) = other {
                return CommandInfo {
                    cost: format!("{cost}: {what}"),
                    ..info
                };
            }
            match crate::rules::rulesets::hit_chance_if_dodging(s, u) {
                Some((now, dodging)) => format!(
                    "{cost}: +{} DCV, {:.0}% -> {:.0}% to hit",
                    s.units[u.index()].stat(names::DODGE_DCV),
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

/// The odds of an attack now, from its roll and DCV (the manoeuvres' modifiers counted). A
/// Block's or Missile Deflection's stop roll and a Roll With A Punch's halving are left out
/// here (the AI weighs its attacks by these odds as they are); [`answered_odds`] counts them.
pub(super) fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    odds_counting(s, attacker, target, ranged, false, manoeuvres::Blow::Strike)
}

/// The odds of the blow a Move By or a Move Through ends with: from the hex it strikes from,
/// with the manoeuvre in effect for the mover (its OCV) and, for a Move Through, its damage
/// bonus for the hexes moved. `None` for any other action, or one that cannot be made.
pub(super) fn moving_odds(
    s: &BattleState,
    unit: UnitId,
    action: &Action,
) -> Option<(UnitId, Odds)> {
    use manoeuvres::{Blow, Man};
    let (target, at, man, blow) = match action {
        Action::MoveBy { target, to } => {
            let (_, at) = manoeuvres::move_by_path(s, unit, *target, *to)?;
            (*target, at, Man::MoveBy, Blow::Strike)
        }
        Action::MoveThrough { target, to } => {
            let path = manoeuvres::move_through_path(s, unit, *target, *to)?;
            let moved = path.cost();
            (*target, *to, Man::MoveThrough, Blow::MoveThrough { moved })
        }
        _ => return None,
    };
    // The mover's action begins: what it held ends (its stance, an analysis), this one holds.
    let mut then = manoeuvres::with_only_stance(s, unit, man);
    then.units.get_mut(unit.index())?.cell = at;
    let odds = odds_counting(&then, unit, target, false, false, blow)?;
    Some((target, odds))
}

/// [`odds`], with the target's defensive manoeuvres in effect counted in full when `stance`.
fn odds_counting(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    stance: bool,
    blow: manoeuvres::Blow,
) -> Option<Odds> {
    attack_kind(s, attacker, target, ranged).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    let dcv = dcv_of(s, target);
    let ocv: i64 = manoeuvres::ocv_terms(s, attacker, target, ranged)
        .iter()
        .map(|t| t.value)
        .sum();
    // A Block or Missile Deflection in effect may stop the attack before its roll.
    let stop = if stance {
        manoeuvres::stop_chance(s, attacker, target, ranged)
    } else {
        0.0
    };
    let hit = ndx(3, 6, ocv).distribution().at_least(10 + dcv) * (1.0 - stop);
    let _ = a;
    let (n, bonus) = manoeuvres::blow_dice(s, attacker, ranged, blow);
    let r = <super::Phases as crate::rules::rulesets::Member>::state(s);
    let per_hit = ndx(n, 6, bonus).distribution().expect(|raw| {
        let rolled: i64 = if stance {
            manoeuvres::rolled_terms(r, target, raw, ranged)
                .iter()
                .map(|t| t.value)
                .sum()
        } else {
            raw
        };
        damage_taken(t, rolled).1 as f64
    });
    let mut formula = format!("3d6 + OCV {ocv} vs 10 + DCV {dcv} (damage in STUN)");
    if stop > 0.0 {
        formula.push_str(&format!(", {:.0}% stopped first", stop * 100.0));
    }
    Some(Odds {
        hit,
        expected_damage: hit * per_hit,
        formula,
    })
}

/// The odds for each abort the target could answer the attack with (offered when an attack
/// is declared on a unit that is not acting and may abort, [`super::combat::can_abort`]):
/// Dodge, then Block and Roll With A Punch against melee or Missile Deflection against a
/// shot, each by the ruleset's own odds with the manoeuvre in effect and counted in full.
pub(super) fn answered_odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Vec<crate::rules::rulesets::Answered> {
    if !super::combat::can_abort(s, r, target) || odds(s, r, attacker, target, ranged).is_none() {
        return Vec::new();
    }
    let mut out: Vec<_> = shared::answered_with(
        s,
        attacker,
        target,
        ranged,
        "aborts to Dodge",
        Condition::Dodging,
    )
    .into_iter()
    .collect();
    let mans: &[manoeuvres::Man] = if ranged {
        &[manoeuvres::Man::Deflect]
    } else {
        &[manoeuvres::Man::Block, manoeuvres::Man::Roll]
    };
    for &m in mans {
        let then = manoeuvres::with_stance(s, target, m);
        if let Some(o) = odds_counting(
            &then,
            attacker,
            target,
            ranged,
            true,
            manoeuvres::Blow::Strike,
        ) {
            out.push(crate::rules::rulesets::Answered {
                by: target,
                reaction: format!("aborts to {}", m.name()),
                odds: o,
            });
        }
    }
    out
}
