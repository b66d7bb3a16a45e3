//! Ordinary actions: what a command costs, whether it is legal now and why not, the list of
//! legal commands, and what a paid command does (movement included).

use super::combat::{
    attack, check_react, killing_strike, react, resuscitate, short_task, target_ok,
};
use super::turns::{begin_turn, end_command, end_turn, options_of, settle};
use super::{Alternating, Ev, State, names};
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, Reaction,
    ReadyTrigger, Rejected, Resume, Status, Trigger, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::sight;

/// Actions a command costs (0 for free actions and ending the turn).
pub(super) fn cost(s: &BattleState, cmd: &Command) -> i64 {
    let Some(u) = s.unit(cmd.unit()) else {
        return 0;
    };
    match cmd {
        Command::Attack { target, .. } => {
            if s.unit(*target).is_some_and(|t| t.status == Status::Down) {
                3
            } else {
                1
            }
        }
        Command::Move { .. } => 1,
        Command::Act { action, .. } => match action {
            Action::Sprint { .. }
            | Action::SeekCover
            | Action::StandUp
            | Action::CommandAlly { .. }
            | Action::Brandish
            // Interact (a door here) is one action.
            | Action::OpenDoor { .. }
            | Action::CloseDoor { .. } => 1,
            Action::Reload => u.stat(names::RELOAD_ACTIONS).max(1),
            Action::Resuscitate { .. } => 2,
            // a Short Task is three actions.
            Action::ShortTask { .. } => 3,
            // Interact with an item on the ground; A-54: Brandish to choose what is in
            // hand (house rule (items): putting one away is the same one action).
            Action::PickUp { .. } | Action::Carry { .. } => 1,
            // Drop Item is free.
            Action::DropItem { .. } => 0,
            _ => 0,
        },
        _ => 0,
    }
}

/// Whether `unit` holds its melee weapon (house rule "hands"): a unit without a ranged weapon
/// always does; one with a ranged weapon holds that until it brandishes the melee weapon.
pub(super) fn holds_melee(s: &BattleState, unit: UnitId) -> bool {
    s.unit(unit).is_some_and(|u| u.stat(names::RANGE) <= 0)
        || Alternating::state(s)
            .melee_drawn
            .get(unit)
            .copied()
            .unwrap_or(false)
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let u = &s.units[unit.index()];
    if let Command::React { reaction, .. } = cmd {
        return check_react(s, unit, reaction);
    }
    let Some(cur) = r.acting else {
        let Some(&side) = r.teams.get(r.picking) else {
            return Err(Rejected::new("no one is picking"));
        };
        let team = s.sides.get(side.index()).map_or("?", |x| x.name.as_str());
        let Command::Pick { unit } = cmd else {
            return Err(Rejected::new(format!(
                "the {team} must first pick who takes the next turn"
            )));
        };
        if u.side != side {
            return Err(Rejected::new(format!(
                "{} is not one of the {team}, who pick now",
                u.name
            )));
        }
        if !options_of(s, r, side).contains(unit) {
            let why = if !u.is_active() {
                "cannot act"
            } else if r.acted.contains(unit) {
                "has already taken a turn this round"
            } else {
                "is surprised"
            };
            return Err(Rejected::new(format!("{} {why}", u.name)));
        }
        return Ok(());
    };
    if let Command::Pick { .. } = cmd {
        return Err(Rejected::new(format!(
            "{} is taking a turn; no pick now",
            s.units[cur.index()].name
        )));
    }
    if unit != cur {
        return Err(Rejected::new(format!(
            "it is {}'s turn, not {}'s",
            s.units[cur.index()].name,
            u.name
        )));
    }
    let actions = u.pool(names::ACTIONS);
    let need = cost(s, cmd);
    if need > 0 && actions < 1 {
        return Err(Rejected::new(format!("{} has no action left", u.name)));
    }
    let prone = |what: &str| -> Result<(), Rejected> {
        if u.is_prone() {
            Err(Rejected::new(format!(
                "{} is prone: Stand Up before {what}",
                u.name
            )))
        } else {
            Ok(())
        }
    };
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Move { to, .. } => {
            prone("moving")?;
            if r.moved {
                return Err(Rejected::new(format!(
                    "{} has already moved this turn (Sprint moves again)",
                    u.name
                )));
            }
            if r.stepped {
                return Err(Rejected::new(format!(
                    "{} took a Step instead of a move this turn",
                    u.name
                )));
            }
            reachable(s, unit, *to, u.movement)
        }
        Command::Attack { target, ranged, .. } => target_ok(s, unit, *target, *ranged),
        Command::Act { action, .. } => match action {
            Action::Sprint { to } => {
                prone("sprinting")?;
                if !r.moved {
                    return Err(Rejected::new(format!(
                        "{} must Move before sprinting",
                        u.name
                    )));
                }
                if u.pool(names::STAMINA) < 1 {
                    return Err(Rejected::new(format!(
                        "{} has no stamina to sprint",
                        u.name
                    )));
                }
                reachable(s, unit, *to, u.movement)
            }
            Action::Step { to } => {
                prone("stepping")?;
                if r.stepped {
                    return Err(Rejected::new(format!(
                        "{} has already stepped this turn",
                        u.name
                    )));
                }
                if r.moved {
                    return Err(Rejected::new(format!(
                        "a Step is instead of a move, and {} has moved",
                        u.name
                    )));
                }
                reachable(s, unit, *to, 1)
            }
            Action::Guard | Action::Wait | Action::Ready { .. } if r.command.is_some() => {
                Err(Rejected::new(format!(
                    "{} is taking one commanded action and cannot end a turn with {}",
                    u.name,
                    action_name(action)
                )))
            }
            Action::Guard | Action::Wait => Ok(()),
            Action::Ready {
                trigger: ReadyTrigger::EnemyInReach,
            } => Ok(()),
            Action::CommandAlly { ally } => {
                if r.command.is_some() {
                    return Err(Rejected::new(format!(
                        "{} is acting on a Command and cannot give one",
                        u.name
                    )));
                }
                let Some(a) = s.unit(*ally) else {
                    return Err(Rejected::new(format!("there is no {ally}")));
                };
                if a.side != u.side || *ally == unit {
                    return Err(Rejected::new(format!(
                        "{} is not an ally of {}",
                        a.name, u.name
                    )));
                }
                if !a.is_active() {
                    return Err(Rejected::new(format!("{} cannot act", a.name)));
                }
                if r.commanded_this_turn.contains(ally) {
                    return Err(Rejected::new(format!(
                        "{} has already commanded {} this turn",
                        u.name, a.name
                    )));
                }
                if u.pool(names::FOCUS) < 2 {
                    return Err(Rejected::new(format!(
                        "{} needs 2 focus to command (has {})",
                        u.name,
                        u.pool(names::FOCUS)
                    )));
                }
                Ok(())
            }
            Action::Ready { .. } => Err(Rejected::new(
                "the readied action here is an attack on an enemy that comes within reach \
                 (EnemyInReach)",
            )),
            Action::Brandish => {
                if u.stat(names::RANGE) <= 0 {
                    Err(Rejected::new(format!(
                        "{} has only one weapon to hold",
                        u.name
                    )))
                } else {
                    Ok(())
                }
            }
            Action::SeekCover => {
                if u.has(&Condition::InCover) {
                    Err(Rejected::new(format!("{} is already in cover", u.name)))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if u.is_prone() {
                    Ok(())
                } else {
                    Err(Rejected::new(format!("{} is not prone", u.name)))
                }
            }
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => {
                s.door_check(unit, action).map_err(Rejected::new)
            }
            Action::ShortTask { cell } => s.task_check(unit, *cell).map_err(Rejected::new),
            Action::DropItem { item } => s.drop_check(unit, item).map_err(Rejected::new),
            Action::PickUp { cell, item } => {
                s.pickup_check(unit, *cell, item).map_err(Rejected::new)
            }
            Action::Carry { item, to } => s
                .carry_check(unit, item, *to)
                .map(|_| ())
                .map_err(Rejected::new),
            Action::GoProne => {
                if u.is_prone() {
                    Err(Rejected::new(format!("{} is already prone", u.name)))
                } else {
                    Ok(())
                }
            }
            Action::Reload => {
                if u.stat(names::RANGE) <= 0 || u.stat(names::RELOAD_ACTIONS) <= 0 {
                    return Err(Rejected::new(format!("{} has nothing to reload", u.name)));
                }
                if u.pool(names::LOADED) > 0 {
                    return Err(Rejected::new(format!("{}'s weapon is loaded", u.name)));
                }
                Ok(())
            }
            Action::Resuscitate { target } => {
                let Some(t) = s.unit(*target) else {
                    return Err(Rejected::new(format!("there is no {target}")));
                };
                if t.side != u.side || *target == unit {
                    return Err(Rejected::new(format!(
                        "{} is not an ally of {}",
                        t.name, u.name
                    )));
                }
                if t.status != Status::Down {
                    return Err(Rejected::new(format!("{} is not unconscious", t.name)));
                }
                if s.grid().distance_steps(u.cell, t.cell) != 1 {
                    return Err(Rejected::new(format!(
                        "{} is not next to {}",
                        t.name, u.name
                    )));
                }
                Ok(())
            }
            other => Err(Rejected::new(format!(
                "{} is not an action in the alternating ruleset (Move, Sprint, Step, Attack, \
                 Reload, Seek Cover, Stand Up, Go Prone, Resuscitate, Short Task, Guard, Wait, \
                 Ready, End Turn)",
                other.name()
            ))),
        },
        Command::Pick { .. } | Command::Declare { .. } => {
            Err(Rejected::new("no declarations in the alternating ruleset"))
        }
        Command::React { .. } => Ok(()),
    }
}

pub(super) fn action_name(a: &Action) -> &'static str {
    a.name()
}

pub(super) fn reachable(
    s: &BattleState,
    unit: UnitId,
    to: Cell,
    budget: u32,
) -> Result<(), Rejected> {
    let u = &s.units[unit.index()];
    if to == u.cell {
        return Err(Rejected::new(format!("{} is already at {to}", u.name)));
    }
    if !s.can_end_move(unit, budget, to) {
        return Err(Rejected::new(format!(
            "{} cannot reach {to} with {budget} m of movement",
            u.name
        )));
    }
    Ok(())
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::Pick { options, .. } => {
            out.extend(options.into_iter().map(|unit| Command::Pick { unit }));
        }
        Decision::React { unit, .. } => {
            let mut cands = vec![
                Reaction::Decline,
                Reaction::Dodge,
                Reaction::Parry,
                Reaction::Block,
                Reaction::Fortify,
                Reaction::Intercept,
                Reaction::Resist,
            ];
            if let Some(Trigger::Ready { actor }) = s.interrupts.last().map(|i| &i.trigger) {
                cands.push(Reaction::Attack { target: *actor });
            }
            for reaction in cands {
                if check_react(s, unit, &reaction).is_ok() {
                    out.push(Command::React { unit, reaction });
                }
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            let mut cands = vec![Command::EndTurn { unit }];
            if let Some(Some(e)) = r.extended.get(unit) {
                cands.push(e.command.clone());
            }
            for target in s.unit_ids() {
                for ranged in [false, true] {
                    cands.push(Command::Attack {
                        unit,
                        target,
                        ranged,
                    });
                }
                cands.push(Command::Act {
                    unit,
                    action: Action::Resuscitate { target },
                });
                cands.push(Command::Act {
                    unit,
                    action: Action::CommandAlly { ally: target },
                });
            }
            for action in [
                Action::Reload,
                Action::Brandish,
                Action::SeekCover,
                Action::StandUp,
                Action::GoProne,
                Action::Guard,
                Action::Wait,
                Action::Ready {
                    trigger: ReadyTrigger::EnemyInReach,
                },
            ]
            .into_iter()
            .chain(s.door_actions(unit))
            .chain(s.task_actions(unit))
            .chain(
                s.all_item_actions(unit)
                    .into_iter()
                    .filter(|a| !matches!(a, Action::Reload | Action::Shift { .. })),
            ) {
                cands.push(Command::Act { unit, action });
            }
            for c in cands {
                if !out.contains(&c) && check(s, r, &c).is_ok() {
                    out.push(c);
                }
            }
            if u.pool(names::ACTIONS) >= 1 && !u.is_prone() && !r.stepped {
                let reach = s.reach_of(unit, u.movement, None);
                for (to, _) in reach.destinations() {
                    if to == u.cell {
                        continue;
                    }
                    if !r.moved {
                        out.push(Command::Move { unit, to });
                    } else if u.pool(names::STAMINA) >= 1 {
                        out.push(Command::Act {
                            unit,
                            action: Action::Sprint { to },
                        });
                    }
                }
            }
            if !u.is_prone() && !r.stepped && !r.moved {
                let reach = s.reach_of(unit, 1, None);
                for (to, _) in reach.destinations() {
                    if to != u.cell {
                        out.push(Command::Act {
                            unit,
                            action: Action::Step { to },
                        });
                    }
                }
            }
        }
        Decision::Declare { .. } | Decision::Over { .. } => {}
    }
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => {
            react(x, *unit, reaction);
            settle(x);
        }
        Command::Pick { unit } => {
            begin_turn(x, *unit);
            settle(x);
        }
        _ => {
            let unit = cmd.unit();
            let ext = Alternating::state(x.s())
                .extended
                .get(unit)
                .cloned()
                .flatten();
            if let Some(e) = ext {
                if e.command == *cmd {
                    let have = x.s().units[unit.index()].pool(names::ACTIONS);
                    if have < e.remaining {
                        x.set_pool(unit, names::ACTIONS, 0);
                        x.emit(Alternating::event(Ev::ExtendedStarted {
                            unit,
                            command: e.command,
                            remaining: e.remaining - have,
                        }));
                    } else {
                        x.add_pool(unit, names::ACTIONS, -e.remaining);
                        x.emit(Alternating::event(Ev::ExtendedDone {
                            unit,
                            completed: true,
                        }));
                        perform(x, cmd);
                    }
                    settle(x);
                    return;
                }
                // Anything else abandons it, at no cost.
                x.emit(Alternating::event(Ev::ExtendedDone {
                    unit,
                    completed: false,
                }));
            }
            if let Command::EndTurn { unit } = cmd {
                match Alternating::state(x.s()).command.clone() {
                    Some(c) => {
                        end_command(x, &c);
                        settle(x);
                    }
                    None => end_turn(x, *unit),
                }
                return;
            }
            let need = cost(x.s(), cmd);
            let have = x.s().units[unit.index()].pool(names::ACTIONS);
            if need > have {
                x.set_pool(unit, names::ACTIONS, 0);
                x.emit(Alternating::event(Ev::ExtendedStarted {
                    unit,
                    command: cmd.clone(),
                    remaining: need - have,
                }));
            } else {
                x.add_pool(unit, names::ACTIONS, -need);
                perform(x, cmd);
            }
            settle(x);
        }
    }
}

/// The effect of a command whose actions are paid.
pub(super) fn perform(x: &mut Exec, cmd: &Command) {
    let unit = cmd.unit();
    match cmd {
        Command::Move { to, .. }
        | Command::Act {
            action: Action::Sprint { to },
            ..
        } => {
            x.emit(Alternating::event(Ev::MoveUsed));
            if matches!(cmd, Command::Act { .. }) {
                x.add_pool(unit, names::STAMINA, -1);
            }
            let u = &x.s().units[unit.index()];
            if let Some(path) = x.s().path_for(unit, u.movement, None, *to) {
                walk(x, unit, &path.cells());
            }
        }
        Command::Act {
            action: Action::Step { to },
            ..
        } => {
            x.emit(Alternating::event(Ev::StepUsed));
            if let Some(path) = x.s().path_for(unit, 1, None, *to) {
                walk(x, unit, &path.cells());
            }
        }
        Command::Attack { target, ranged, .. } => {
            let down = x
                .s()
                .unit(*target)
                .is_some_and(|t| t.status == Status::Down);
            if down {
                killing_strike(x, unit, *target);
            } else if x.s().unit(*target).is_some_and(|t| t.is_active()) {
                attack(x, unit, *target, *ranged, 0);
            }
        }
        Command::Act { action, .. } => match action {
            Action::Guard => {
                x.set_condition(unit, Condition::Guarding, true);
                end_turn(x, unit);
            }
            Action::Wait => {
                x.add_pool(unit, names::REACTIONS, 1);
                end_turn(x, unit);
            }
            Action::Ready { .. } => {
                x.set_condition(unit, Condition::Holding, true);
                end_turn(x, unit);
            }
            Action::SeekCover => x.set_condition(unit, Condition::InCover, true),
            Action::Brandish => {
                let melee = !holds_melee(x.s(), unit);
                x.emit(Alternating::event(Ev::Brandished { unit, melee }));
            }
            Action::StandUp => x.set_condition(unit, Condition::Prone, false),
            Action::GoProne => x.set_condition(unit, Condition::Prone, true),
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => x.door(unit, action),
            Action::DropItem { .. } | Action::PickUp { .. } | Action::Carry { .. } => {
                x.item_action(unit, action)
            }
            Action::Reload => x.set_pool(unit, names::LOADED, 1),
            Action::Resuscitate { target } => resuscitate(x, unit, *target),
            Action::ShortTask { cell } => short_task(x, unit, *cell),
            Action::CommandAlly { ally } => {
                x.add_pool(unit, names::FOCUS, -2);
                let ally_actions = x.s().units[ally.index()].pool(names::ACTIONS);
                x.emit(Alternating::event(Ev::CommandGiven {
                    commander: unit,
                    ally: *ally,
                    ally_actions,
                }));
                x.set_pool(*ally, names::ACTIONS, 1);
            }
            _ => {}
        },
        _ => {}
    }
}

/// Walks `unit` along `cells` (its cell first). After each step into the reach of an enemy
/// that readied an action (and has its reaction), the walk pauses for that enemy's answer.
pub(super) fn walk(x: &mut Exec, unit: UnitId, cells: &[Cell]) {
    for (i, pair) in cells.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        if x.over() || !x.s().units[unit.index()].is_active() {
            return;
        }
        if x.s().units[unit.index()].cell != from {
            return;
        }
        // Under fog: a foe its side did not see holds the way (see `Exec::walk`).
        if let Some(by) = x.hidden_in(unit, to) {
            x.emit(Event::Blocked { unit, by, at: to });
            return;
        }
        let unseen = x.unseen_foes(unit);
        x.emit(Event::Moved { unit, from, to });
        // Under fog: a foe seen for the first time stops the walk after this step.
        let spotted = x.spots(unit, &unseen);
        let reactors = ready_reactors(x.s(), unit, from, to);
        if !reactors.is_empty() {
            // (A walk that spotted a foe has nothing left to resume.)
            let rest = if spotted { i + 2 } else { cells.len() };
            x.emit(Event::Interrupted(Interrupt {
                trigger: Trigger::Ready { actor: unit },
                reactors,
                resume: Resume::Move {
                    unit,
                    rest: cells[i + 1..rest].to_vec(),
                },
            }));
            return;
        }
        if spotted {
            return;
        }
    }
}

pub(super) fn covers(s: &BattleState, reactor: UnitId, c: Cell) -> bool {
    let r = &s.units[reactor.index()];
    let d = s.grid().distance_steps(r.cell, c);
    d >= 1 && d <= r.reach && (d == 1 || sight::line_of_sight(&s.terrain, r.cell, c))
}

/// Enemies of `mover` holding a readied action, with a reaction left, whose reach `mover`
/// enters by stepping from `from` to `to`.
pub(super) fn ready_reactors(s: &BattleState, mover: UnitId, from: Cell, to: Cell) -> Vec<UnitId> {
    s.enemies_of(mover)
        .into_iter()
        .filter(|&e| {
            let u = &s.units[e.index()];
            u.has(&Condition::Holding)
                && u.pool(names::REACTIONS) >= 1
                && covers(s, e, to)
                && !covers(s, e, from)
        })
        .collect()
}
