//! Ordinary actions: what a unit's part of a Phase holds, whether a command is legal now and
//! why not, the legal commands, and carrying them out.

use super::combat::{
    attack_kind, check_react, declare_attack, provoking_item_action, react, readied_on, stand_up,
    walk,
};
use super::manoeuvres::{self, Blow, Room};
use super::names;
use super::turns::{advance, after, budget, cap, end_action, take_delayed};
use super::{After, Budget, Ev, Held, Phases, State};
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, Place, Reaction,
    ReadyTrigger, Rejected, Trigger, Unit, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::rulesets::Member;

/// Half of combat movement (rounded down, at least 1): what one move action covers.
pub(super) fn half(u: &Unit) -> u32 {
    (u.movement / 2).max(1)
}

/// The movement budget of a Move now: all of it as a full-phase action when the unit has
/// done nothing else (and it is not the Surprise Phase), else half. A prone unit crawls one
/// hex (a move action).
pub(super) fn move_budget(r: &State, unit: &Unit, b: Budget) -> u32 {
    if unit.is_prone() {
        unit.movement.min(1)
    } else if b.actions == 0 && !b.full && r.phase != 0 {
        unit.movement
    } else {
        half(unit)
    }
}

/// The path a Move walks: cheapest, then fewest threatened hexes left.
pub(super) fn move_path(s: &BattleState, u: UnitId, to: Cell, budget: u32) -> Option<Path> {
    let threat = s.threat_for(u, |_| true);
    let reach = s.reach_of(u, budget, Some(&threat));
    if !reach.can_end(to) {
        return None;
    }
    reach.path_to(to)
}

pub(super) fn reject(text: String) -> Result<(), Rejected> {
    Err(Rejected::new(text))
}

/// Whether the unit deciding now may take `cmd`.
pub(super) fn check_act(
    s: &BattleState,
    r: &State,
    u: UnitId,
    cmd: &Command,
) -> Result<(), Rejected> {
    let unit = &s.units[u.index()];
    let n = &unit.name;
    let b = budget(r, u);
    let surprise = r.phase == 0;
    let asking = r.asking == Some(u);
    let actions_free = !b.full && b.actions < cap(r);
    let attack_free = actions_free && !b.attack;
    let fresh = b.actions == 0 && !b.full && !b.moved && !b.stepped;
    // A full-phase action that moves no distance may follow the Phase's 1-hex step (P-33:
    // "before, during, or after" the other actions); so may a Delay, which is no action.
    let fresh_but_step = b.actions == 0 && !b.full && !b.moved;
    let stunned = unit.has(&Condition::Stunned);
    let no_action = |what: &str| {
        let why = if b.full {
            "has used its whole Phase on a full-phase action".to_string()
        } else if surprise {
            "may take only one attack or move action in the Surprise Phase".to_string()
        } else if b.actions >= 2 {
            "has taken two actions this Phase".to_string()
        } else {
            "has already taken its attack action this Phase".to_string()
        };
        reject(format!("{n} {why}; {what} is not possible"))
    };
    if stunned
        && !matches!(
            cmd,
            Command::Act {
                action: Action::Recover,
                ..
            }
        )
    {
        return reject(format!(
            "{n} is Stunned: its action must be Recover from being Stunned"
        ));
    }
    let moving = match cmd {
        Command::Move { .. } => Some("movement"),
        Command::Act { action, .. } => match action {
            Action::Step { .. } => Some("1-hex step"),
            Action::Withdraw { .. } => Some("Withdraw"),
            Action::ReadyMove { .. } => Some("readied move"),
            _ => None,
        },
        _ => None,
    };
    if let Some(what) = moving
        && let Some(why) = manoeuvres::held_reason(s, u, what)
    {
        return Err(why);
    }
    let room = Room {
        actions_free,
        attack_free,
        fresh,
        fresh_but_step,
        surprise,
    };
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Act { action, .. } if manoeuvres::check(s, r, u, action, &room).is_some() => {
            manoeuvres::check(s, r, u, action, &room).unwrap_or(Ok(()))
        }
        Command::Act { action, .. } => match action {
            Action::Delay => {
                if asking {
                    Ok(())
                } else if surprise {
                    reject("there is no delaying in the Surprise Phase".into())
                } else if !fresh_but_step {
                    reject(format!(
                        "{n} has already acted this Phase and cannot delay any more"
                    ))
                } else {
                    Ok(())
                }
            }
            Action::GoProne => {
                if unit.is_prone() {
                    reject(format!("{n} is already prone"))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if !unit.is_prone() {
                    reject(format!("{n} is not prone"))
                } else if !actions_free {
                    no_action("Stand up (a move action)")
                } else {
                    Ok(())
                }
            }
            // P-76: opening or shutting a door is a move action that does not provoke.
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => {
                if !actions_free {
                    no_action("Opening or shutting a door (a move action)")
                } else {
                    s.door_check(u, action).map_err(Rejected::new)
                }
            }
            // P-97: letting go of an item is free and never provokes.
            Action::DropItem { item } => s.drop_check(u, item).map_err(Rejected::new),
            Action::Carry { item, to } => {
                let from = s.carry_check(u, item, *to).map_err(Rejected::new)?;
                if from == Place::Pack || *to == Place::Pack {
                    // P-82: getting out or putting away a stored focus takes the whole Phase.
                    if !fresh_but_step || surprise {
                        return no_action(
                            "Getting out or stowing a stored item (a full-phase action)",
                        );
                    }
                } else if !actions_free {
                    // P-67: drawing or putting away a focus is a move action.
                    return no_action("Drawing or putting away an item (a move action)");
                }
                Ok(())
            }
            // P-70, P-77, P-78: a move action each.
            Action::PickUp { cell, item } => {
                if !actions_free {
                    return no_action("Picking up an item (a move action)");
                }
                s.pickup_check(u, *cell, item).map_err(Rejected::new)
            }
            Action::Reload => {
                if !actions_free {
                    return no_action("Reloading (a move action)");
                }
                s.reload_check(u).map(|_| ()).map_err(Rejected::new)
            }
            Action::Shift { cell, to } => {
                if !actions_free {
                    return no_action("Shifting a heavy object (a move action)");
                }
                s.shift_check(u, *cell, *to)
                    .map(|_| ())
                    .map_err(Rejected::new)
            }
            Action::TakeRecovery => recovery_way(s, r, u).map(|_| ()),
            Action::Recover => {
                if !stunned {
                    reject(format!("{n} is not Stunned"))
                } else if !fresh_but_step || surprise {
                    no_action("Recover from being Stunned (a full-phase action)")
                } else {
                    Ok(())
                }
            }
            Action::Dodge => {
                if !attack_free {
                    no_action("Dodge (an attack action)")
                } else if unit.has(&Condition::Dodging) {
                    reject(format!("{n} is already dodging"))
                } else {
                    Ok(())
                }
            }
            Action::Ready { trigger }
            | Action::ReadyMove { trigger, .. }
            | Action::ReadyProne { trigger } => {
                if !attack_free {
                    return no_action("Ready (an attack action)");
                }
                if matches!(action, Action::ReadyProne { .. }) && unit.is_prone() {
                    return reject(format!("{n} is already prone"));
                }
                if let Action::ReadyMove { to, .. } = action {
                    if unit.is_prone() {
                        return reject(format!(
                            "{n} is prone: it cannot ready a move (crawl or stand up instead)"
                        ));
                    }
                    if *to == unit.cell {
                        return reject(format!("{n} is already at {to}"));
                    }
                    if move_path(s, u, *to, half(unit)).is_none() {
                        return reject(format!(
                            "{n} cannot reach {to} with a move action ({} hexes)",
                            half(unit)
                        ));
                    }
                }
                if asking {
                    return reject(format!(
                        "{n} is taking a delayed action; it cannot ready another"
                    ));
                }
                match trigger {
                    ReadyTrigger::EnemyInReach => Ok(()),
                    ReadyTrigger::UnitActs { unit: t } => match s.unit(*t) {
                        Some(tu) if s.are_enemies(u, *t) && tu.is_active() => Ok(()),
                        Some(tu) => reject(format!("{} is not an enemy able to act", tu.name)),
                        None => reject(format!("there is no {t}")),
                    },
                }
            }
            Action::Step { .. } | Action::Withdraw { .. } if unit.is_prone() => reject(format!(
                "{n} is prone: it can crawl one hex (a move action) or stand up, not step or withdraw"
            )),
            Action::Step { to } => {
                if b.stepped {
                    return reject(format!("{n} has already taken its 1-hex step this Phase"));
                }
                if b.moved {
                    return reject(format!(
                        "{n} has moved this Phase and cannot take a 1-hex step too"
                    ));
                }
                if unit.movement <= 1 {
                    return reject(format!(
                        "{n} moves only {} hex a Phase and cannot take a 1-hex step",
                        unit.movement
                    ));
                }
                if s.grid().distance_steps(unit.cell, *to) != 1 {
                    return reject(format!("{to} is not next to {n}"));
                }
                if s.terrain.difficult(unit.cell) || s.terrain.difficult(*to) {
                    return reject(format!(
                        "difficult terrain hampers {n}: no 1-hex step from {} to {to}",
                        unit.cell
                    ));
                }
                let reach = s.reach_of(u, 1, None);
                if !reach.can_end(*to) {
                    return reject(format!("{n} cannot step to {to}"));
                }
                Ok(())
            }
            Action::Withdraw { to } => {
                if surprise {
                    return reject(
                        "Withdraw is a full-phase action: not in the Surprise Phase".into(),
                    );
                }
                if !fresh {
                    return reject(format!(
                        "{n} has already acted or moved this Phase; Withdraw takes the whole Phase"
                    ));
                }
                if *to == unit.cell {
                    return reject(format!("{n} is already there"));
                }
                if !s.can_end_move(u, half(unit), *to) {
                    return reject(format!(
                        "{n} cannot withdraw to {to}: Withdraw covers up to {} hexes",
                        half(unit)
                    ));
                }
                Ok(())
            }
            other => reject(format!(
                "{} is not an action in the phases ruleset (Move, Attack, Dodge, Ready, Delay, \
                 Withdraw, Step, Go Prone, Stand Up, Take a Recovery, Recover, the manoeuvres \
                 Block, Disarm, Grab, Haymaker, Missile Deflection, Roll With A Punch, Move By, \
                 Move Through, Rapid Fire, Sweep, Brace, Presence Attack, and Break Free, \
                 Release, End turn)",
                other.name()
            )),
        },
        Command::Attack { target, ranged, .. } => {
            if !attack_free {
                return no_action("an attack");
            }
            attack_kind(s, u, *target, *ranged)
        }
        Command::Move { to, .. } => {
            if !actions_free {
                return no_action(if unit.is_prone() {
                    "crawling (a move action)"
                } else {
                    "a move"
                });
            }
            if b.stepped {
                return reject(format!(
                    "{n} took a 1-hex step this Phase and cannot move any distance"
                ));
            }
            if *to == unit.cell {
                return reject(format!("{n} is already there"));
            }
            let budget = move_budget(r, unit, b);
            if unit.is_prone() && move_path(s, u, *to, budget).is_none() {
                return reject(format!(
                    "{n} is prone: it can only crawl one hex (to an open hex next to it) or stand up"
                ));
            }
            if move_path(s, u, *to, budget).is_none() {
                return reject(format!(
                    "{n} cannot reach {to} with {budget} hexes of movement"
                ));
            }
            Ok(())
        }
        Command::Pick { .. } | Command::Declare { .. } => reject(
            "the phases ruleset has no picks or declarations: units act in Initiative order".into(),
        ),
        Command::React { .. } => reject("nothing to react to now".into()),
    }
}

/// How a Take a Recovery would be taken now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Recovery {
    /// As the Phase's full-phase action.
    Full,
    /// Started with a move action, to complete in the unit's next Phase (P-55, P-72).
    Start,
    /// Completed with a move action, having been started in an earlier Phase.
    Complete,
}

/// Rules P-55, P-72 (house rule for Take a Recovery): the full-phase action, or, when the unit
/// has a move action but not its whole Phase left (after another action, or in the Surprise
/// Phase), started with that move action and completed with a move action in its next Phase.
pub(super) fn recovery_way(s: &BattleState, r: &State, u: UnitId) -> Result<Recovery, Rejected> {
    let unit = &s.units[u.index()];
    let n = &unit.name;
    let b = budget(r, u);
    let move_left = !b.full && b.actions < cap(r);
    if unit.pool(names::STUN) >= unit.stat(names::STUN) {
        return Err(Rejected::new(format!("{n} has all its STUN")));
    }
    let now = manoeuvres::phase_serial(s);
    match r.man.started.get(u).copied().flatten() {
        Some(at) if at < now && move_left => return Ok(Recovery::Complete),
        Some(at) if at == now => {
            return Err(Rejected::new(format!(
                "{n} started its Take a Recovery this Phase: it completes it with a move action \
                 in its next Phase"
            )));
        }
        _ => {}
    }
    let fresh = b.actions == 0 && !b.full && !b.moved;
    if fresh && r.phase != 0 {
        Ok(Recovery::Full)
    } else if move_left {
        Ok(Recovery::Start)
    } else {
        Err(Rejected::new(format!(
            "{n} has no move action left this Phase to start or complete a Take a Recovery"
        )))
    }
}

pub(super) fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let u = cmd.unit();
    if let Command::React { reaction, .. } = cmd {
        return check_react(s, r, u, reaction);
    }
    let Some(cur) = r.asking.or(r.acting) else {
        return reject("no one is acting".into());
    };
    if u != cur {
        return reject(format!(
            "it is {}'s action, not {}'s",
            s.unit_name(cur),
            s.unit_name(u)
        ));
    }
    check_act(s, r, u, cmd)
}

pub(super) fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, trigger } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            let other = match trigger {
                Trigger::Opportunity { mover, .. } => Reaction::Attack { target: mover },
                Trigger::Provoked { actor, .. } | Trigger::Ready { actor } => {
                    Reaction::Attack { target: actor }
                }
                Trigger::Targeted { .. } => Reaction::Abort {
                    action: Action::Dodge,
                },
                _ => return out,
            };
            let mut answers = vec![other, Reaction::TakeHeld];
            if matches!(trigger, Trigger::Targeted { .. }) {
                answers.extend(
                    [
                        Action::Block,
                        Action::RollWithPunch,
                        Action::MissileDeflection,
                    ]
                    .map(|action| Reaction::Abort { action }),
                );
            }
            for reaction in answers {
                if check_react(s, r, unit, &reaction).is_ok() {
                    out.push(Command::React { unit, reaction });
                }
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            let mut candidates = vec![
                Command::EndTurn { unit },
                Command::Act {
                    unit,
                    action: Action::Recover,
                },
                Command::Act {
                    unit,
                    action: Action::Delay,
                },
                Command::Act {
                    unit,
                    action: Action::Dodge,
                },
                Command::Act {
                    unit,
                    action: Action::Ready {
                        trigger: ReadyTrigger::EnemyInReach,
                    },
                },
                Command::Act {
                    unit,
                    action: Action::GoProne,
                },
                Command::Act {
                    unit,
                    action: Action::StandUp,
                },
                Command::Act {
                    unit,
                    action: Action::TakeRecovery,
                },
            ];
            for target in s.enemies_of(unit) {
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged: false,
                });
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged: true,
                });
                candidates.push(Command::Act {
                    unit,
                    action: Action::Ready {
                        trigger: ReadyTrigger::UnitActs { unit: target },
                    },
                });
            }
            for to in s.grid().neighbours(u.cell) {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Step { to },
                });
                // Readied moves are listed one hex away, triggered by an enemy coming within
                // reach; any hex within a move action and any trigger is accepted.
                candidates.push(Command::Act {
                    unit,
                    action: Action::ReadyMove {
                        trigger: ReadyTrigger::EnemyInReach,
                        to,
                    },
                });
            }
            // P-139: the free action readied (dropping prone), listed for an enemy coming
            // within reach; any trigger is accepted.
            candidates.push(Command::Act {
                unit,
                action: Action::ReadyProne {
                    trigger: ReadyTrigger::EnemyInReach,
                },
            });
            candidates.extend(
                manoeuvres::candidates(s, unit)
                    .into_iter()
                    .chain(s.door_actions(unit))
                    .chain(s.all_item_actions(unit))
                    .map(|action| Command::Act { unit, action }),
            );
            out.extend(
                candidates
                    .into_iter()
                    .filter(|c| check_act(s, r, unit, c).is_ok()),
            );
            if u.has(&Condition::Stunned) {
                return out;
            }
            let b = budget(r, unit);
            // Withdraw: a full-phase action, up to half movement (not while prone).
            let held = manoeuvres::grabbed(s, unit).is_some();
            let fresh_ok = !u.is_prone()
                && !held
                && r.phase != 0
                && b.actions == 0
                && !b.full
                && !b.moved
                && !b.stepped;
            if fresh_ok {
                for (to, _) in s.reach_of(unit, half(u), None).destinations() {
                    if to != u.cell {
                        out.push(Command::Act {
                            unit,
                            action: Action::Withdraw { to },
                        });
                    }
                }
            }
            if !b.full && b.actions < cap(r) && !b.stepped && !held {
                let budget = move_budget(r, u, b);
                let threat = s.threat_for(unit, |_| true);
                for (to, _) in s.reach_of(unit, budget, Some(&threat)).destinations() {
                    if to != u.cell {
                        out.push(Command::Move { unit, to });
                    }
                }
            }
        }
        _ => {}
    }
    out
}

pub(super) fn execute(x: &mut Exec, cmd: &Command) {
    if let Command::React { unit, reaction } = cmd {
        react(x, *unit, reaction);
        return;
    }
    let u = cmd.unit();
    let asking = Phases::state(x.s()).asking == Some(u);
    match cmd {
        Command::EndTurn { .. } if asking => {
            // Gives up waiting: the delayed action is not taken.
            x.emit(Phases::event(Ev::Held {
                unit: u,
                held: None,
            }));
            x.emit(Phases::event(Ev::Asking { unit: None }));
            advance(x);
            return;
        }
        Command::EndTurn { .. } => {
            end_action(x, u);
            return;
        }
        Command::Act {
            action: Action::Delay,
            ..
        } if asking => {
            x.emit(Phases::event(Ev::KeepsWaiting { unit: u }));
            advance(x);
            return;
        }
        Command::Act {
            action: Action::Delay,
            ..
        } => {
            // Rule P-115: no action on its own Initiative; it waits.
            x.emit(Phases::event(Ev::Held {
                unit: u,
                held: Some(Held::Delay),
            }));
            x.emit(Phases::event(Ev::Done { unit: u }));
            x.emit(Event::TurnEnded { unit: u });
            x.emit(Phases::event(Ev::Acting { unit: None }));
            // It has just chosen to wait past this point: not asked again here.
            x.emit(Phases::event(Ev::KeepsWaiting { unit: u }));
            advance(x);
            return;
        }
        _ => {}
    }
    if asking {
        take_delayed(x, u);
    }
    // A readied action waiting for this unit to act goes first (rule P-127).
    let readiers: Vec<UnitId> = readied_on(x.s(), u);
    if !readiers.is_empty() {
        x.emit(Phases::event(Ev::Deferred {
            command: Some(cmd.clone()),
        }));
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Ready { actor: u },
            reactors: readiers,
            resume: Phases::resume(After::Deferred),
        }));
        return;
    }
    perform(x, cmd);
    after(x);
}

pub(super) fn spend(x: &mut Exec, u: UnitId, f: impl FnOnce(&mut Budget)) {
    let mut b = budget(Phases::state(x.s()), u);
    f(&mut b);
    x.emit(Phases::event(Ev::Spent { unit: u, budget: b }));
}

/// The effect of an accepted action command.
pub(super) fn perform(x: &mut Exec, cmd: &Command) {
    let u = cmd.unit();
    let Some(unit) = x.s().unit(u).cloned() else {
        return;
    };
    match cmd {
        Command::Move { to, .. } => {
            let r = Phases::state(x.s());
            let b = budget(r, u);
            let budget = move_budget(r, &unit, b);
            let Some(path) = move_path(x.s(), u, *to, budget) else {
                return;
            };
            let full = path.cost() > half(&unit);
            spend(x, u, |b| {
                b.moved = true;
                if full {
                    b.full = true;
                } else {
                    b.actions += 1;
                }
            });
            x.emit(Phases::event(Ev::Negated { negated: None }));
            x.emit(Phases::event(Ev::Walk { provokes: true }));
            manoeuvres::let_go(x, u);
            walk(x, u, &path.cells());
        }
        Command::Attack { target, ranged, .. } => {
            spend(x, u, |b| {
                b.actions += 1;
                b.attack = true;
            });
            declare_attack(x, u, *target, *ranged, Blow::Strike);
        }
        Command::Act { action, .. } if manoeuvres::perform(x, u, action) => {}
        Command::Act { action, .. } => match action {
            Action::Step { to } => {
                spend(x, u, |b| b.stepped = true);
                manoeuvres::let_go(x, u);
                x.emit(Phases::event(Ev::Walk { provokes: false }));
                walk(x, u, &[unit.cell, *to]);
            }
            Action::Withdraw { to } => {
                let Some(path) = x.s().path_for(u, half(&unit), None, *to) else {
                    return;
                };
                spend(x, u, |b| {
                    b.moved = true;
                    b.full = true;
                });
                x.emit(Phases::event(Ev::Walk { provokes: false }));
                manoeuvres::let_go(x, u);
                walk(x, u, &path.cells());
            }
            Action::Dodge => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.set_condition(u, Condition::Dodging, true);
            }
            Action::Ready { trigger } => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.emit(Phases::event(Ev::Held {
                    unit: u,
                    held: Some(Held::Ready(trigger.clone())),
                }));
            }
            Action::ReadyMove { trigger, to } => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.emit(Phases::event(Ev::Held {
                    unit: u,
                    held: Some(Held::ReadyMove(trigger.clone(), *to)),
                }));
            }
            Action::ReadyProne { trigger } => {
                spend(x, u, |b| {
                    b.actions += 1;
                    b.attack = true;
                });
                x.emit(Phases::event(Ev::Held {
                    unit: u,
                    held: Some(Held::ReadyProne(trigger.clone())),
                }));
            }
            Action::Recover => {
                spend(x, u, |b| b.full = true);
                x.set_condition(u, Condition::Stunned, false);
            }
            Action::TakeRecovery => {
                let Ok(way) = recovery_way(x.s(), Phases::state(x.s()), u) else {
                    return;
                };
                let at = manoeuvres::phase_serial(x.s());
                match way {
                    Recovery::Full => spend(x, u, |b| b.full = true),
                    Recovery::Start => {
                        spend(x, u, |b| b.actions += 1);
                        x.emit(Phases::event(Ev::Started {
                            unit: u,
                            at: Some(at),
                        }));
                        return;
                    }
                    Recovery::Complete => {
                        spend(x, u, |b| b.actions += 1);
                        x.emit(Phases::event(Ev::Started { unit: u, at: None }));
                    }
                }
                let (now, max) = (unit.pool(names::STUN), unit.stat(names::STUN));
                x.set_pool(
                    u,
                    names::STUN,
                    (now + unit.stat(names::REC).max(0)).min(max),
                );
            }
            // Drop prone: a free action.
            Action::GoProne => x.set_condition(u, Condition::Prone, true),
            Action::StandUp => {
                spend(x, u, |b| b.actions += 1);
                stand_up(x, u);
            }
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => {
                spend(x, u, |b| b.actions += 1);
                x.door(u, action);
            }
            Action::DropItem { .. } => x.item_action(u, action),
            Action::Carry { item, to } => {
                let from = x.s().carry_check(u, item, *to).ok();
                let stored = from == Some(Place::Pack) || *to == Place::Pack;
                if stored {
                    spend(x, u, |b| b.full = true);
                } else {
                    spend(x, u, |b| b.actions += 1);
                }
                provoking_item_action(x, u, action, !stored);
            }
            Action::PickUp { .. } | Action::Shift { .. } => {
                spend(x, u, |b| b.actions += 1);
                provoking_item_action(x, u, action, false);
            }
            Action::Reload => {
                spend(x, u, |b| b.actions += 1);
                provoking_item_action(x, u, action, true);
            }
            _ => {}
        },
        _ => {}
    }
}
