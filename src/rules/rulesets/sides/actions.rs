//! Actions in `sides` (S-19..S-48, S-89, S-143..S-158): what each costs, whether the acting
//! unit may take it now, the commands it may send, and carrying a command out through its
//! stages (held actions and Snap Attacks first, then attacks of opportunity, then the effect).

use super::combat::{self, Kind, Spec, react, reaction_options, ready_reactors};
use super::names;
use super::turns::{pending, settle, start_turn};
use super::{
    After, Ev, Per, Sides, State, active, grapplers_of, move_actions_left, moves, per, side_name,
};
use crate::rules::battle::Place;
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, Purpose, Reaction,
    Rejected, Status, Trigger, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::ruleset_data::ItemKind;
use crate::rules::rulesets::Member;

/// Whether a shot of `unit`'s bow is nocked again at no cost (S-94: a shooter with Shoot-1,
/// the `skill` stat of 1 or more): its shot then spends nothing.
pub fn nocks_free(s: &BattleState, unit: UnitId) -> bool {
    s.unit(unit).is_some_and(|u| {
        u.stat(names::SKILL) >= 1
            && u.shooter(s.ruleset())
                .is_some_and(|(_, d)| d.kind == ItemKind::Bow)
    })
}

/// The difficulty of first aid (house rule: 2d6 + heal against this).
pub const FIRST_AID_DIFFICULTY: i64 = 8;

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let who = s.unit_name(unit);
    match cmd {
        Command::React { reaction, .. } => {
            let Some(top) = s.interrupts.last() else {
                return Err(Rejected::new("nothing to react to now"));
            };
            let options = reaction_options(s, unit, top);
            if options.contains(reaction) {
                return Ok(());
            }
            let list: Vec<String> = options
                .iter()
                .map(|o| crate::rules::rulesets::view::label(s, &reaction_cmd(unit, o)))
                .collect();
            Err(Rejected::new(format!(
                "{who} cannot {} now; it may: {}",
                crate::rules::rulesets::view::label(s, cmd).to_lowercase(),
                list.join(", ")
            )))
        }
        Command::Declare { .. } => Err(Rejected::new(
            "the sides ruleset has no declarations; a side picks who acts next",
        )),
        Command::Pick { .. } => match pending(s, r) {
            Decision::Pick { side, options } => {
                if options.contains(&unit) {
                    return Ok(());
                }
                let u = &s.units[unit.index()];
                let why = if u.side != side {
                    format!(
                        "{who} is not of the {}, whose turn it is",
                        side_name(s, side)
                    )
                } else if !u.is_active() {
                    format!("{who} is out of the fight")
                } else if r.surprise && u.has(&Condition::Surprised) {
                    format!("{who} is surprised and cannot act in the surprise round")
                } else {
                    format!("{who} has already acted this round")
                };
                Err(Rejected::new(why))
            }
            Decision::Act { unit: cur } => Err(Rejected::new(format!(
                "{} is taking its turn; it must end it before another is picked",
                s.unit_name(cur)
            ))),
            _ => Err(Rejected::new("no one can be picked now")),
        },
        _ => {
            let cur = match pending(s, r) {
                Decision::Act { unit } => unit,
                Decision::Pick { side, .. } => {
                    return Err(Rejected::new(format!(
                        "the {} must first pick who acts next",
                        side_name(s, side)
                    )));
                }
                _ => return Err(Rejected::new("no one is acting")),
            };
            if cur != unit {
                return Err(Rejected::new(format!(
                    "it is {}'s turn, not {who}'s",
                    s.unit_name(cur)
                )));
            }
            match cmd {
                Command::EndTurn { .. } => Ok(()),
                _ => check_action(s, r, cmd).map_err(Rejected::new),
            }
        }
    }
}

fn reaction_cmd(unit: UnitId, reaction: &Reaction) -> Command {
    Command::React {
        unit,
        reaction: reaction.clone(),
    }
}

/// What an action spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Free,
    Main,
    /// This many Move actions: the Move action first, then the Main action traded for one.
    Moves(u32),
    /// The Move action itself (Hold an Action).
    MoveAction,
    /// Both (Charge).
    MainAndMove,
}

/// What `cmd` costs `unit` (for a Move, `None` if it cannot get there).
pub fn cost_of(s: &BattleState, cmd: &Command) -> Cost {
    match cmd {
        Command::Move { unit, to } => {
            Cost::Moves(moves::move_actions_needed(s, *unit, *to).unwrap_or(1))
        }
        Command::Attack { .. } => Cost::Main,
        Command::Act { action, .. } => match action {
            Action::GoProne | Action::Release => Cost::Free,
            // House rule (the action list of S-19..S-48 has no door; "not exhaustive"): a
            // brief bodily action like Stand Up, so a Move action, and it draws no attack.
            Action::StandUp
            | Action::Screen { .. }
            | Action::OpenDoor { .. }
            | Action::CloseDoor { .. } => Cost::Moves(1),
            Action::Delay => Cost::MoveAction,
            Action::Charge { .. } => Cost::MainAndMove,
            // S-91: sheathing or drawing at the belt needs no action; readying from or
            // stowing into the pack is the Main action (S-39). Dropping is not an action in
            // the text's list (house rule (items): free).
            Action::Carry { item, to } => match s.carry_check(cmd.unit(), item, *to) {
                Ok(from) if from != Place::Pack && *to != Place::Pack => Cost::Free,
                _ => Cost::Main,
            },
            Action::DropItem { .. } => Cost::Free,
            // S-43: a Move action.
            Action::PickUp { .. } => Cost::Moves(1),
            // S-38: a Main action; S-94: nocking a bow without Shoot-1 is a Move action.
            Action::Reload => {
                let bow = s
                    .reload_check(cmd.unit())
                    .is_ok_and(|d| d.kind == ItemKind::Bow);
                if bow { Cost::Moves(1) } else { Cost::Main }
            }
            _ => Cost::Main,
        },
        _ => Cost::Free,
    }
}

fn need_main(s: &BattleState, p: &Per, u: UnitId) -> Result<(), String> {
    if p.main {
        Ok(())
    } else {
        Err(format!(
            "{} has already spent its Main action this round",
            s.unit_name(u)
        ))
    }
}

fn need_moves(s: &BattleState, p: &Per, u: UnitId, k: u32) -> Result<(), String> {
    let left = move_actions_left(p);
    if left >= k {
        return Ok(());
    }
    Err(if left == 0 {
        format!(
            "{} has no Move action left (nor a Main action to trade for one)",
            s.unit_name(u)
        )
    } else {
        format!("{} has only one Move action left", s.unit_name(u))
    })
}

fn not_held(s: &BattleState, u: UnitId) -> Result<(), String> {
    if let Some(t) = per(Sides::state(s), u).grappling {
        return Err(format!(
            "{} is grappling {} and cannot move",
            s.unit_name(u),
            s.unit_name(t)
        ));
    }
    if let Some(g) = grapplers_of(s, u).first() {
        return Err(format!(
            "{} is grappled by {} and cannot move",
            s.unit_name(u),
            s.unit_name(*g)
        ));
    }
    Ok(())
}

fn enemy_target(s: &BattleState, u: UnitId, t: UnitId) -> Result<(), String> {
    let Some(tu) = s.unit(t) else {
        return Err(format!("there is no {t}"));
    };
    if t == u || !s.are_enemies(u, t) {
        return Err(format!("{} is not an enemy of {}", tu.name, s.unit_name(u)));
    }
    if !tu.is_active() {
        return Err(format!("{} is already out of the fight", tu.name));
    }
    Ok(())
}

fn adjacent(s: &BattleState, a: UnitId, b: UnitId) -> bool {
    match (s.unit(a), s.unit(b)) {
        (Some(a), Some(b)) => s.grid().distance_steps(a.cell, b.cell) == 1,
        _ => false,
    }
}

/// Whether the acting `unit` may do `cmd` now, leaving aside whose turn it is.
pub fn check_action(s: &BattleState, r: &State, cmd: &Command) -> Result<(), String> {
    let unit = cmd.unit();
    let Some(u) = s.unit(unit) else {
        return Err(format!("there is no {unit}"));
    };
    let who = u.name.clone();
    if !u.is_active() {
        return Err(format!("{who} is out of the fight"));
    }
    let p = per(r, unit);
    let in_held_action = r.nested.last().is_some_and(|n| n.0 == unit);
    match cmd {
        Command::Move { to, .. } => {
            need_moves(s, p, unit, 1)?;
            not_held(s, unit)?;
            if *to == u.cell {
                return Err(format!("{who} is already on {to}"));
            }
            // Under fog a foe the side does not see is not known to stand there: the move
            // is planned, and runs into it (`Exec::walk`).
            if let Some(o) = s.unit_at(*to)
                && !crate::rules::fog::hidden(s, u.side, o)
            {
                let down = if s.units[o.index()].is_active() {
                    ""
                } else {
                    " (down)"
                };
                return Err(format!("{to} is taken by {}{down}", s.unit_name(o)));
            }
            match moves::move_actions_needed(s, unit, *to) {
                Some(k) => need_moves(s, p, unit, k),
                None => Err(format!(
                    "{who} cannot reach {to} with two Move actions ({} squares each)",
                    moves::move_rate(u)
                )),
            }
        }
        Command::Attack { target, ranged, .. } => {
            need_main(s, p, unit)?;
            combat::can_attack(s, unit, *target, *ranged)
        }
        Command::Act { action, .. } => match action {
            Action::GoProne => {
                if u.is_prone() {
                    Err(format!("{who} is already prone"))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if !u.is_prone() {
                    return Err(format!("{who} is not prone"));
                }
                need_moves(s, p, unit, 1)
            }
            Action::OpenDoor { .. } | Action::CloseDoor { .. } => {
                need_moves(s, p, unit, 1)?;
                s.door_check(unit, action)
            }
            Action::Delay => {
                if in_held_action {
                    return Err(format!(
                        "{who} is taking a held action and cannot hold it again"
                    ));
                }
                if !p.mv {
                    return Err(format!(
                        "Hold an Action spends the Move action, which {who} has already used"
                    ));
                }
                need_main(s, p, unit)
            }
            Action::Disengage => {
                need_main(s, p, unit)?;
                let fresh: Vec<UnitId> = s
                    .enemies_in_reach_of(unit)
                    .into_iter()
                    .filter(|e| !p.disengaged_from.contains(e))
                    .collect();
                if fresh.is_empty() {
                    return Err(format!("no enemy is in melee with {who} to disengage from"));
                }
                Ok(())
            }
            Action::TotalDefense => {
                need_main(s, p, unit)?;
                if u.has(&Condition::TotalDefense) {
                    return Err(format!("{who} is already in Total Defense"));
                }
                Ok(())
            }
            Action::Charge { target, to } => {
                need_main(s, p, unit)?;
                if !p.mv {
                    return Err(format!(
                        "a Charge spends the Main and the Move action; {who} has used its Move"
                    ));
                }
                if u.is_prone() {
                    return Err(format!("{who} is prone and must stand up to charge"));
                }
                not_held(s, unit)?;
                enemy_target(s, unit, *target)?;
                moves::charge_plan(s, unit, *target, *to).map(|_| ())
            }
            Action::Swarm { target } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                combat::can_swarm(s, r, unit, *target)
            }
            Action::Screen { ally, to } => {
                need_moves(s, p, unit, 1)?;
                moves::screen_ok(s, unit, *ally, *to)
            }
            Action::Shove {
                target,
                prone,
                push,
            } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                combat::shove_ok(s, unit, *target, *prone, *push)
            }
            Action::Grapple { target } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                if !adjacent(s, unit, *target) {
                    return Err(format!("{} is not next to {who}", s.unit_name(*target)));
                }
                if let Some(t) = p.grappling {
                    return Err(format!(
                        "{who} is already grappling {} (one at a time)",
                        s.unit_name(t)
                    ));
                }
                Ok(())
            }
            Action::BreakFree => {
                need_main(s, p, unit)?;
                if grapplers_of(s, unit).is_empty() {
                    return Err(format!("{who} is not grappled"));
                }
                Ok(())
            }
            Action::Release => match p.grappling {
                Some(_) => Ok(()),
                None => Err(format!("{who} is not grappling anyone")),
            },
            Action::Drag { to } => {
                need_main(s, p, unit)?;
                moves::drag_plan(s, unit, *to).map(|_| ())
            }
            Action::Throw { to } => {
                need_main(s, p, unit)?;
                moves::throw_ok(s, unit, *to).map(|_| ())
            }
            Action::Execute { target } => {
                need_main(s, p, unit)?;
                super::execution::check(s, r, unit, *target)
            }
            Action::FirstAid { target } => {
                need_main(s, p, unit)?;
                let Some(t) = s.unit(*target) else {
                    return Err(format!("there is no {target}"));
                };
                if t.side != u.side || *target == unit {
                    return Err(format!("{} is not an ally of {who}", t.name));
                }
                if super::morale::fled(r, *target) {
                    return Err(format!("{} has fled the battle", t.name));
                }
                if t.status != crate::rules::battle::Status::Down {
                    return Err(format!("{} is not down", t.name));
                }
                if !adjacent(s, unit, *target) {
                    return Err(format!("{} is not next to {who}", t.name));
                }
                Ok(())
            }
            Action::Carry { item, to } => {
                let from = s.carry_check(unit, item, *to)?;
                if from == Place::Pack || *to == Place::Pack {
                    need_main(s, p, unit)?;
                }
                Ok(())
            }
            Action::DropItem { item } => s.drop_check(unit, item),
            Action::PickUp { cell, item } => {
                need_moves(s, p, unit, 1)?;
                s.pickup_check(unit, *cell, item)
            }
            Action::Reload => {
                let d = s.reload_check(unit)?;
                if d.kind == ItemKind::Bow {
                    need_moves(s, p, unit, 1)
                } else {
                    need_main(s, p, unit)
                }
            }
            other => Err(format!(
                "{} is not an action in the sides ruleset",
                other.name()
            )),
        },
        Command::EndTurn { .. } => Ok(()),
        Command::Pick { .. } | Command::Declare { .. } | Command::React { .. } => {
            Err("not an action".to_string())
        }
    }
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    match s.pending() {
        Decision::React { unit, .. } => match s.interrupts.last() {
            Some(top) => reaction_options(s, unit, top)
                .iter()
                .map(|o| reaction_cmd(unit, o))
                .collect(),
            None => Vec::new(),
        },
        Decision::Pick { options, .. } => options
            .into_iter()
            .map(|unit| Command::Pick { unit })
            .collect(),
        Decision::Act { unit } => act_commands(s, r, unit),
        _ => Vec::new(),
    }
}

/// Every command the acting `unit` may send, in a fixed order: end turn, attacks, actions,
/// charges, screens, moves.
fn act_commands(s: &BattleState, r: &State, unit: UnitId) -> Vec<Command> {
    let mut out = vec![Command::EndTurn { unit }];
    let Some(u) = s.unit(unit) else {
        return out;
    };
    let p = per(r, unit);
    let mut candidates = Vec::new();
    let enemies = s.enemies_of(unit);
    if p.main {
        for &target in &enemies {
            for ranged in [false, true] {
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged,
                });
            }
        }
    }
    for action in [
        Action::GoProne,
        Action::StandUp,
        Action::Delay,
        Action::Disengage,
        Action::TotalDefense,
        Action::BreakFree,
        Action::Release,
    ] {
        candidates.push(Command::Act { unit, action });
    }
    if p.main {
        for &target in &enemies {
            candidates.push(Command::Act {
                unit,
                action: Action::Swarm { target },
            });
            candidates.push(Command::Act {
                unit,
                action: Action::Grapple { target },
            });
            candidates.push(Command::Act {
                unit,
                action: Action::Shove {
                    target,
                    prone: true,
                    push: None,
                },
            });
            if adjacent(s, unit, target) {
                let tc = s.units[target.index()].cell;
                for c in s.grid().neighbours(tc) {
                    candidates.push(Command::Act {
                        unit,
                        action: Action::Shove {
                            target,
                            prone: false,
                            push: Some(c),
                        },
                    });
                }
            }
        }
        if let Some(t) = p.grappling {
            let mut near: Vec<Cell> = Vec::new();
            for c in s.grid().neighbours(u.cell) {
                for d in std::iter::once(c).chain(s.grid().neighbours(c)) {
                    if !near.contains(&d) {
                        near.push(d);
                    }
                }
            }
            for to in near {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Drag { to },
                });
            }
            for to in s.grid().neighbours(s.units[t.index()].cell) {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Throw { to },
                });
            }
        }
        for t in s.unit_ids() {
            let tu = &s.units[t.index()];
            if t != unit && tu.side == u.side && tu.status == crate::rules::battle::Status::Down {
                candidates.push(Command::Act {
                    unit,
                    action: Action::FirstAid { target: t },
                });
            }
        }
    }
    for e in &s.level.options.executions {
        if *e.assassin == *u.name
            && let Some(t) = s
                .unit_ids()
                .find(|&t| *s.units[t.index()].name == *e.target)
        {
            candidates.push(Command::Act {
                unit,
                action: Action::Execute { target: t },
            });
        }
    }
    candidates.extend(
        s.all_item_actions(unit)
            .into_iter()
            .map(|action| Command::Act { unit, action }),
    );
    candidates.extend(
        s.door_actions(unit)
            .into_iter()
            .map(|action| Command::Act { unit, action }),
    );
    out.extend(
        candidates
            .into_iter()
            .filter(|c| check_action(s, r, c).is_ok()),
    );
    out.extend(moves::charge_commands(s, r, unit));
    out.extend(moves::screen_commands(s, r, unit));
    out.extend(moves::move_commands(s, r, unit));
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => react(x, *unit, reaction),
        Command::Pick { unit } => start_turn(x, *unit),
        Command::EndTurn { unit } => {
            let nested = Sides::state(x.s())
                .nested
                .last()
                .is_some_and(|n| n.0 == *unit);
            if nested {
                x.emit(Sides::event(Ev::HeldDone { unit: *unit }));
            } else {
                x.emit(Event::TurnEnded { unit: *unit });
                x.emit(Sides::event(Ev::TurnDone { unit: *unit }));
            }
        }
        Command::Declare { .. } => {}
        _ => run_command(x, cmd.clone(), 0),
    }
    settle(x);
}

/// Carries `cmd` through its stages: held actions and Snap Attacks first (stage 0), then it
/// is checked again and paid and may provoke attacks of opportunity (stage 1), then it takes
/// effect (stage 2).
pub(super) fn run_command(x: &mut Exec, cmd: Command, stage: u8) {
    let actor = cmd.unit();
    if stage == 0 {
        let reactors = ready_reactors(x.s(), actor);
        if !reactors.is_empty() {
            defer(x, cmd, 1, Trigger::Ready { actor }, reactors);
            return;
        }
    } else if stage == 1
        && let Err(reason) = check_action(x.s(), Sides::state(x.s()), &cmd)
    {
        x.emit(Sides::event(Ev::Cancelled {
            unit: actor,
            reason,
        }));
        return;
    }
    // A Move's plan (the Move actions it takes and its path) from one search, for paying and
    // walking it: paying changes no cell, so the path found before paying is the one walked.
    let plan = match &cmd {
        Command::Move { unit, to } => moves::move_plan(x.s(), *unit, *to),
        _ => None,
    };
    if stage <= 1 {
        match &plan {
            Some((k, _)) => pay_cost(x, actor, Cost::Moves(*k)),
            None => pay(x, &cmd),
        }
        let reactors = moves::provoked_by(x.s(), &cmd);
        if !reactors.is_empty() {
            let action = provoking_name(&cmd);
            defer(x, cmd, 2, Trigger::Provoked { actor, action }, reactors);
            return;
        }
    }
    if active(x.s(), actor) {
        perform(x, &cmd, plan.map(|(_, path)| path));
    }
}

fn provoking_name(cmd: &Command) -> String {
    match cmd {
        Command::Act {
            action: Action::FirstAid { .. },
            ..
        } => "Use a Skill (first aid)".to_string(),
        Command::Act { action, .. } => action.name().to_string(),
        _ => "an action".to_string(),
    }
}

fn defer(x: &mut Exec, command: Command, stage: u8, trigger: Trigger, reactors: Vec<UnitId>) {
    let depth = x.s().interrupts.len() + 1;
    x.emit(Sides::event(Ev::Deferred {
        depth,
        command,
        stage,
    }));
    x.emit(Event::Interrupted(Interrupt {
        trigger,
        reactors,
        resume: Sides::resume(After::Deferred),
    }));
}

/// Spends what `cmd` costs.
fn pay(x: &mut Exec, cmd: &Command) {
    let cost = cost_of(x.s(), cmd);
    pay_cost(x, cmd.unit(), cost);
}

/// Spends `cost` from `unit`'s actions.
fn pay_cost(x: &mut Exec, unit: UnitId, cost: Cost) {
    let p = per(Sides::state(x.s()), unit).clone();
    let (mut main, mut mv) = (p.main, p.mv);
    match cost {
        Cost::Free => {}
        Cost::Main => main = false,
        Cost::MoveAction => mv = false,
        Cost::MainAndMove => {
            main = false;
            mv = false;
        }
        Cost::Moves(k) => {
            for _ in 0..k {
                if mv {
                    mv = false;
                } else {
                    main = false;
                }
            }
        }
    }
    spend(x, unit, main, mv);
}

pub(super) fn spend(x: &mut Exec, unit: UnitId, main: bool, mv: bool) {
    let p = per(Sides::state(x.s()), unit);
    if p.main != main || p.mv != mv {
        x.emit(Sides::event(Ev::Actions { unit, main, mv }));
    }
}

/// The effect of a paid command; `path` is a Move's path, planned when it was paid (none if
/// the destination cannot be reached).
fn perform(x: &mut Exec, cmd: &Command, path: Option<Path>) {
    match cmd {
        Command::Move { unit, .. } => {
            if let Some(path) = path {
                moves::walk_run(x, *unit, &path.cells(), false);
            }
        }
        Command::Attack {
            unit,
            target,
            ranged,
        } => {
            let assailants = combat::swarm_assailants(x.s(), *unit, *target);
            if !assailants.is_empty() {
                x.emit(Sides::event(Ev::SwarmStrike {
                    target: *target,
                    assailants: assailants.clone(),
                }));
            }
            combat::begin(
                x,
                Spec {
                    attacker: *unit,
                    target: *target,
                    ranged: *ranged,
                    kind: Kind::Normal,
                    swarm: assailants.len() as i64,
                },
            );
        }
        Command::Act { unit, action } => act(x, *unit, action),
        _ => {}
    }
}

fn act(x: &mut Exec, unit: UnitId, action: &Action) {
    match action {
        Action::GoProne => x.set_condition(unit, Condition::Prone, true),
        Action::StandUp => x.set_condition(unit, Condition::Prone, false),
        Action::OpenDoor { .. } | Action::CloseDoor { .. } => x.door(unit, action),
        a if crate::rules::battle::items::is_item_action(a) => x.item_action(unit, a),
        Action::Delay => {
            x.set_condition(unit, Condition::Holding, true);
            x.emit(Event::TurnEnded { unit });
            x.emit(Sides::event(Ev::TurnDone { unit }));
        }
        Action::Disengage => {
            let from = x.s().enemies_in_reach_of(unit);
            x.emit(Sides::event(Ev::Disengaged { unit, from }));
            x.set_condition(unit, Condition::Disengaged, true);
        }
        Action::TotalDefense => x.set_condition(unit, Condition::TotalDefense, true),
        Action::Charge { target, to } => {
            let plan = match moves::charge_plan(x.s(), unit, *target, *to) {
                Ok(plan) => plan,
                Err(reason) => {
                    x.emit(Sides::event(Ev::Cancelled { unit, reason }));
                    return;
                }
            };
            x.set_condition(unit, Condition::Charging, true);
            x.walk(unit, &plan.cells, false, &mut |_, _, _, _| Vec::new());
            if active(x.s(), unit) && active(x.s(), *target) {
                let ranged = !x.s().in_melee_reach(unit, *target);
                if combat::can_attack(x.s(), unit, *target, ranged).is_ok() {
                    combat::begin(
                        x,
                        Spec {
                            attacker: unit,
                            target: *target,
                            ranged,
                            kind: Kind::Charge,
                            swarm: 0,
                        },
                    );
                }
            }
        }
        Action::Swarm { target } => x.emit(Sides::event(Ev::Swarmed {
            target: *target,
            assailant: unit,
        })),
        Action::Screen { ally, to } => {
            let here = x.s().units[unit.index()].cell;
            if *to != here {
                let Some(path) = moves::move_path(x.s(), unit, *to, 1) else {
                    let reason = format!("{to} can no longer be reached");
                    x.emit(Sides::event(Ev::Cancelled { unit, reason }));
                    return;
                };
                x.walk(unit, &path.cells(), false, &mut |_, _, _, _| Vec::new());
            }
            let old: Vec<Condition> = x.s().units[unit.index()]
                .conditions
                .iter()
                .filter(|c| matches!(c, Condition::Screening { .. }))
                .cloned()
                .collect();
            for c in old {
                x.set_condition(unit, c, false);
            }
            if active(x.s(), unit) {
                x.set_condition(unit, Condition::Screening { ally: *ally }, true);
            }
        }
        Action::Shove {
            target,
            prone,
            push,
        } => combat::begin(
            x,
            Spec {
                attacker: unit,
                target: *target,
                ranged: false,
                kind: Kind::Shove {
                    prone: *prone,
                    push: *push,
                },
                swarm: 0,
            },
        ),
        Action::Grapple { target } => combat::begin(
            x,
            Spec {
                attacker: unit,
                target: *target,
                ranged: false,
                kind: Kind::Grapple,
                swarm: 0,
            },
        ),
        Action::BreakFree => combat::break_free(x, unit),
        Action::Release => combat::release(x, unit),
        Action::Drag { to } => moves::drag(x, unit, *to),
        Action::Throw { to } => moves::throw(x, unit, *to),
        Action::FirstAid { target } => first_aid(x, unit, *target),
        Action::Execute { target } => super::execution::execute(x, unit, *target),
        _ => {}
    }
}

/// First aid (Use a Skill, S-89; house rule): 2d6 + heal against 8 gets a downed ally up with
/// 1 HP, prone.
pub fn first_aid(x: &mut Exec, medic: UnitId, target: UnitId) {
    let heal = x.s().unit(medic).map_or(0, |u| u.stat(names::HEAL));
    let roll = x.roll(
        Some(medic),
        None,
        Purpose::Skill,
        &ndx(2, 6, heal),
        Some(FIRST_AID_DIFFICULTY),
    );
    if roll.total >= FIRST_AID_DIFFICULTY
        && x.s().unit(target).is_some_and(|u| u.status == Status::Down)
    {
        x.set_pool(target, names::HP, 1);
        x.set_status(target, Status::Active);
        x.set_condition(target, Condition::Prone, true);
    }
}
