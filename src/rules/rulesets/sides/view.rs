//! What the view asks `sides`: the turn order in its own terms (sides, Main and Move actions),
//! what each command costs and whether it provokes, the exact odds of an attack, and the
//! ruleset's events in words for the combat log.

use super::actions::{Cost, cost_of};
use super::combat::{self, Kind, Spec};
use super::names;
use super::turns::round_sides;
use super::{Ev, State, moves, per, side_name};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Reaction, Resume, Status, Trigger, UnitId,
};
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let sides = round_sides(s);
    let current = r.nested.last().map(|n| n.0).or(r.acting);
    let mut order = Vec::new();
    for &side in &sides {
        for u in s.unit_ids() {
            let unit = &s.units[u.index()];
            if unit.side != side {
                continue;
            }
            let p = per(r, u);
            let label = if super::morale::fled(r, u) {
                "Fled the map".to_string()
            } else if unit.status != Status::Active {
                "Down".to_string()
            } else if super::morale::fleeing(r, u) {
                "Fleeing".to_string()
            } else if r.surprise && unit.has(&Condition::Surprised) {
                "Surprised".to_string()
            } else if unit.has(&Condition::Holding) {
                "Holding".to_string()
            } else if p.acted && current != Some(u) {
                // Its turn is over: its Move is lost; an unspent Main can still pay for an
                // Instant action off its turn (Total Defense, a Snap Attack: S-28, S-57).
                // Short enough for the turn order's line at 1024x640 (18 characters):
                // "Main (Instant only)" was cut to "Main (In...".
                if p.main {
                    "Done \u{b7} can react".to_string()
                } else {
                    "Done".to_string()
                }
            } else {
                match (p.main, p.mv) {
                    (true, true) => "Main, Move".to_string(),
                    (true, false) => "Main".to_string(),
                    (false, true) => "Move".to_string(),
                    (false, false) => "No actions left".to_string(),
                }
            };
            order.push(OrderEntry {
                unit: u,
                label,
                current: current == Some(u),
                done: p.acted,
            });
        }
    }
    let turn = sides
        .get(r.side_turn)
        .map(|&side| match current {
            Some(u) => format!("{} acting", s.unit_name(u)),
            None => format!("{} to pick", side_name(s, side)),
        })
        .unwrap_or_default();
    let headline = if r.surprise {
        format!("Round {} \u{b7} Surprise round \u{b7} {turn}", s.round)
            .trim_end_matches(" \u{b7} ")
            .to_string()
    } else {
        let scores: Vec<String> = r
            .order
            .iter()
            .map(|&side| {
                format!(
                    "{} {}",
                    side_name(s, side),
                    r.scores.get(side.index()).copied().unwrap_or(0)
                )
            })
            .collect();
        // The side initiative rolls (S-02), not a score: said as such.
        format!("Round {} \u{b7} initiative {}", s.round, scores.join(", "))
    };
    // Between turns (a new round being set up) no one acts yet: no dangling separator.
    let headline = if turn.is_empty() || r.surprise {
        headline
    } else {
        format!("{headline} \u{b7} {turn}")
    };
    Clock { headline, order }
}

fn cost_text(s: &BattleState, r: &State, cmd: &Command) -> String {
    let p = per(r, cmd.unit());
    match cost_of(s, cmd) {
        Cost::Free => "free".to_string(),
        Cost::Main => "Main action".to_string(),
        Cost::MoveAction => "Move action (holds the Main action)".to_string(),
        Cost::MainAndMove => "Main + Move actions".to_string(),
        Cost::Moves(2) => "Move + Main actions (two moves)".to_string(),
        Cost::Moves(_) if p.mv => "Move action".to_string(),
        Cost::Moves(_) => "Main action (as a second Move)".to_string(),
    }
}

pub fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = CommandInfo {
        label: view::label(s, cmd),
        ..CommandInfo::default()
    };
    let unit = cmd.unit();
    match cmd {
        Command::Move { to, .. } => {
            info.path = moves::move_plan(s, unit, *to).map(|(_, path)| path);
            info.provokes = info.path.as_ref().is_some_and(|p| p.provocations() > 0);
            info.cost = cost_text(s, r, cmd);
            info.dear = cost_of(s, cmd) == Cost::Moves(2);
        }
        Command::Attack { target, .. } => {
            info.cost = cost_text(s, r, cmd);
            let n = combat::swarm_assailants(s, unit, *target).len();
            if n > 0 {
                info.cost
                    .push_str(&format!(" (swarm strike, {n} assailants)"));
            }
        }
        Command::Act { action, .. } => {
            info.cost = cost_text(s, r, cmd);
            if let Action::TotalDefense = action {
                info.cost = "Instant (gives up the Main action)".to_string();
            }
            info.provokes = !moves::provoked_by(s, cmd).is_empty();
            match action {
                Action::Charge { target, to } => {
                    info.path = moves::charge_plan(s, unit, *target, *to)
                        .ok()
                        .map(|plan| moves::charge_path(s, &plan));
                }
                Action::Screen { to, .. } => {
                    let here = s.unit(unit).map(|u| u.cell);
                    if Some(*to) != here {
                        info.path = moves::move_path(s, unit, *to, 1).map(|mut p| {
                            // A screen's move provokes only at its start, not step by step.
                            for step in &mut p.steps {
                                step.leaves_threat = false;
                            }
                            p
                        });
                    }
                }
                _ => {}
            }
        }
        Command::EndTurn { .. } => {
            if r.nested.last().is_some_and(|n| n.0 == unit) {
                info.label = "End the held action".to_string();
            }
        }
        Command::React { reaction, .. } => {
            let trigger = s.interrupts.last().map(|i| &i.trigger);
            info.cost = match reaction {
                Reaction::Decline => String::new(),
                Reaction::TotalDefense => {
                    let base = "Instant (gives up the Main action): +2 AC, immune to Shock";
                    // What it does to the attack waiting on the answer (it is offered only
                    // when it changes something).
                    match s.interrupts.last().map(|i| &i.resume) {
                        Some(Resume::Attack(p)) => {
                            let ac = combat::ac_of(s, combat::decode(p).target);
                            if p.total >= ac {
                                format!("{base}: this hit ({} vs AC {ac}) becomes a miss", p.total)
                            } else {
                                format!("{base}: this miss does no Shock")
                            }
                        }
                        _ => base.to_string(),
                    }
                }
                Reaction::TakeHeld => {
                    // Which action is chosen once it acts: say what it has left to act with.
                    let p = per(r, unit);
                    let left: Vec<&str> = [(p.main, "Main"), (p.mv, "Move")]
                        .iter()
                        .filter(|(b, _)| *b)
                        .map(|(_, w)| *w)
                        .collect();
                    info.label = if left.is_empty() {
                        "Take the held action: act now".to_string()
                    } else {
                        format!("Take the held action: act now with {}", left.join(" + "))
                    };
                    "Instant (the held action)".to_string()
                }
                Reaction::Attack { .. } => match trigger {
                    Some(
                        crate::rules::battle::Trigger::Opportunity { .. }
                        | crate::rules::battle::Trigger::Provoked { .. },
                    ) => "free".to_string(),
                    // The label says it is a Snap Attack: the cost says what it costs.
                    _ => "Instant (gives up the Main action), -4 to hit".to_string(),
                },
                _ => String::new(),
            };
            if let Reaction::Attack { target } = reaction {
                info.label = match trigger {
                    Some(
                        crate::rules::battle::Trigger::Opportunity { .. }
                        | crate::rules::battle::Trigger::Provoked { .. },
                    ) => format!("Attack of opportunity on {}", s.unit_name(*target)),
                    _ => format!("Snap Attack on {}", s.unit_name(*target)),
                };
            }
        }
        Command::Pick { .. } | Command::Declare { .. } => {}
    }
    info
}

/// The odds of `attacker` attacking `target` now with an ordinary attack (a swarm strike if
/// allies have swarmed it), from the seed's formula. Screens, Total Defense and Snap Attacks
/// the defenders might still choose are not counted.
pub fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    odds_of(s, attacker, target, ranged, Kind::Normal)
}

/// The odds of `unit` answering the pending interrupt with an attack on `target`: an attack
/// of opportunity (S-80..S-83, melee), else a Snap Attack (S-57: -4; thrown or shot when the
/// target is out of reach), as `combat` makes them.
pub fn reaction_attack_odds(s: &BattleState, unit: UnitId, target: UnitId) -> Option<Odds> {
    let opportunity = matches!(
        s.interrupts.last().map(|i| &i.trigger),
        Some(Trigger::Opportunity { .. } | Trigger::Provoked { .. })
    );
    if opportunity {
        odds_of(s, unit, target, false, Kind::Opportunity)
    } else {
        let ranged = !s.in_melee_reach(unit, target);
        odds_of(s, unit, target, ranged, Kind::Snap)
    }
}

/// The odds of the attack a Charge ends with (S-65, S-66): from the square it ends on, +2 for
/// the charge, the charger at -2 AC; a thrown weapon when the target is out of melee reach
/// there. `None` for any other action, or a Charge that cannot be made.
pub(super) fn charge_odds(
    s: &BattleState,
    unit: UnitId,
    action: &Action,
) -> Option<(UnitId, Odds)> {
    let Action::Charge { target, to } = action else {
        return None;
    };
    let plan = moves::charge_plan(s, unit, *target, *to).ok()?;
    let mut then = s.clone();
    let u = then.units.get_mut(unit.index())?;
    u.cell = plan.cells.last().copied().unwrap_or(*to);
    u.conditions.insert(Condition::Charging);
    let ranged = !then.in_melee_reach(unit, *target);
    Some((
        *target,
        odds_of(&then, unit, *target, ranged, Kind::Charge)?,
    ))
}

/// [`odds`] of an attack of the given kind (an ordinary one may be a swarm strike; a Charge's
/// is not).
fn odds_of(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    kind: Kind,
) -> Option<Odds> {
    combat::can_attack(s, attacker, target, ranged).ok()?;
    let swarm = if matches!(kind, Kind::Normal) {
        combat::swarm_assailants(s, attacker, target).len() as i64
    } else {
        0
    };
    let spec = Spec {
        attacker,
        target,
        ranged,
        kind,
        swarm,
    };
    let (bonus, notes) = combat::attack_bonus(s, &spec);
    let ac = combat::ac_of(s, target);
    let hit = ndx(1, 20, bonus).distribution().at_least(ac);
    let a = s.unit(attacker)?;
    let dice = if ranged {
        ndx(
            a.stat(names::RANGED_DAMAGE_DICE),
            a.stat(names::RANGED_DAMAGE_DIE),
            a.stat(names::RANGED_DAMAGE_BONUS),
        )
    } else if super::held(s, attacker) || a.stat(names::DAMAGE_DICE) <= 0 {
        ndx(
            1,
            a.stat(names::UNARMED_DIE).max(1),
            a.stat(names::STR) + a.stat(names::SKILL),
        )
    } else {
        ndx(
            a.stat(names::DAMAGE_DICE),
            a.stat(names::DAMAGE_DIE),
            a.stat(names::DAMAGE_BONUS),
        )
    };
    let floor = combat::shock_base(s, &spec);
    let per_hit = dice
        .distribution()
        .expect(|d| combat::hit_damage(s, &spec, d).max(floor).max(0) as f64);
    let (miss, negated) = combat::miss_shock(s, &spec);
    let mut formula = format!("1d20{bonus:+} vs AC {ac}");
    if !notes.is_empty() {
        formula.push_str(&format!(" ({})", notes.join(", ")));
    }
    if floor > 0 {
        formula.push_str(&match negated {
            Some(why) => format!("; Shock {floor} stopped by {why}"),
            None => format!("; Shock {floor} on a miss"),
        });
    }
    if !combat::screeners_of(s, attacker, target).is_empty() {
        formula.push_str("; screened: may go to a screener");
    }
    Some(Odds {
        hit,
        expected_damage: hit * per_hit + (1.0 - hit) * miss as f64,
        formula,
    })
}

/// One line of the combat log for a ruleset event.
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    let n = |u: &UnitId| s.unit_name(*u);
    match e {
        // The Party (S-09..S-14): the side whose best DEX goes on its initiative roll and
        // which wins a tied one. Said as what it does, not as a name ("Party is the Party").
        Ev::Setup { party, .. } => {
            let name = side_name(s, *party);
            let agree = |one, many| crate::rules::battle::log::agree(&name, one, many);
            format!(
                "{name} {} {} best DEX to {} initiative roll and {} ties",
                agree("adds", "add"),
                agree("its", "their"),
                agree("its", "their"),
                agree("wins", "win")
            )
        }
        Ev::SurpriseRound => "Surprise! The unaware lose the first round".to_string(),
        Ev::Initiative { order, scores } => {
            let list: Vec<String> = order
                .iter()
                .map(|side| {
                    format!(
                        "{} {}",
                        side_name(s, *side),
                        scores.get(side.index()).copied().unwrap_or(0)
                    )
                })
                .collect();
            format!("Initiative: {}", list.join(", then "))
        }
        Ev::RoundReset => "Everyone has a Main and a Move action again".to_string(),
        Ev::Joined { unit } => format!(
            "{} joins {}: it may be picked when its side's turn comes",
            s.unit_name(*unit),
            s.unit(*unit)
                .and_then(|u| s.sides.get(u.side.index()))
                .map_or("its side", |x| x.name.as_str())
        ),
        Ev::SideTurn { index } => match round_sides(s).get(*index) {
            Some(side) => format!("{} to act", side_name(s, *side)),
            None => "Every side has acted".to_string(),
        },
        Ev::Picked { unit } => format!("{} acts next", n(unit)),
        Ev::TurnDone { unit } => format!("{} is done for the round", n(unit)),
        Ev::Actions { unit, main, mv } => {
            let left: Vec<&str> = [(*main, "Main"), (*mv, "Move")]
                .iter()
                .filter(|(b, _)| *b)
                .map(|(_, w)| *w)
                .collect();
            if left.is_empty() {
                format!("{} has no actions left", n(unit))
            } else {
                format!("{} has left: {}", n(unit), left.join(", "))
            }
        }
        Ev::Disengaged { unit, from } => {
            let list: Vec<_> = from.iter().map(n).collect();
            format!("{} disengages from {}", n(unit), list.join(", "))
        }
        Ev::ShieldUsed { unit } => format!("{}'s shield takes the round's first Shock", n(unit)),
        Ev::ScreenUsed { screener, attacker } => {
            format!("{} screens against {}", n(screener), n(attacker))
        }
        Ev::Redirected {
            attacker,
            ward,
            screener,
        } => format!(
            "{} blocks: {}'s attack on {} goes to {}",
            n(screener),
            n(attacker),
            n(ward),
            n(screener)
        ),
        Ev::Swarmed { target, assailant } => {
            format!("{} joins the swarm on {}", n(assailant), n(target))
        }
        Ev::SwarmStrike { target, assailants } => format!(
            "The swarm on {} strikes, {} helping",
            n(target),
            assailants.len()
        ),
        Ev::Grappling { grappler, target } => match target {
            Some(t) => format!("{} grapples {}", n(grappler), n(t)),
            None => format!("{} lets go", n(grappler)),
        },
        Ev::Queued { unit, .. } => format!("{} acts once the others have answered", n(unit)),
        Ev::HeldTaken { unit, .. } => format!("{} acts out of turn", n(unit)),
        Ev::HeldDone { unit } => format!("{} has taken its held action", n(unit)),
        Ev::Deferred { command, .. } => format!("{} waits for reactions", view::label(s, command)),
        Ev::Undeferred { .. } => "The waiting action goes ahead".to_string(),
        Ev::Cancelled { unit, reason } => format!("{}'s action is lost: {reason}", n(unit)),
        Ev::Shock {
            attacker,
            target,
            amount,
            negated,
        } => match negated {
            Some(why) => format!(
                "{}'s Shock {amount} on {} is stopped by {why}",
                n(attacker),
                n(target)
            ),
            None => format!(
                "{}'s miss still deals Shock {amount} to {}",
                n(attacker),
                n(target)
            ),
        },
        Ev::ShockFloor {
            attacker,
            target,
            rolled,
            shock,
        } => format!(
            "{}'s hit on {} rolled {rolled}, less than its Shock: {shock} damage",
            n(attacker),
            n(target)
        ),
        Ev::MoraleCheck { side, cause } => match cause {
            super::morale::Cause::HalfLost => format!(
                "{} have lost half their number: morale check (each rolls 2d6; over its morale, it breaks)",
                side_name(s, *side)
            ),
            super::morale::Cause::LeaderFell { leader } => format!(
                "{} have lost their leader {}: morale check (each rolls 2d6; over its morale, it breaks)",
                side_name(s, *side),
                n(leader)
            ),
        },
        Ev::Breaks { unit } => format!(
            "{} breaks: it will run for the map's edge and leave the battle",
            n(unit)
        ),
        Ev::Routed { side } => format!(
            "{} rout: all of them still standing flee the map, and they lose",
            side_name(s, *side)
        ),
        Ev::Fled { unit } => format!("{} flees off the map: out of the battle", n(unit)),
    }
}

/// The odds if the target takes Total Defense (an Instant action giving up its Main action,
/// offered after the attack roll when it would change the outcome): +2 AC and no Shock, so the
/// attack hits only on a roll that beats the higher AC.
pub(super) fn answered_odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<crate::rules::rulesets::Answered> {
    let t = s.unit(target)?;
    if !super::can_instant(s, target) || !per(r, target).main || t.has(&Condition::TotalDefense) {
        return None;
    }
    odds(s, r, attacker, target, ranged)?;
    crate::rules::rulesets::view::answered_with(
        s,
        attacker,
        target,
        ranged,
        "takes Total Defense",
        Condition::TotalDefense,
    )
}
