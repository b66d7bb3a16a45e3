//! Ordinary actions: what they cost, whether they are legal, the legal list, and carrying
//! them out (an action costing more AP than are left becomes an extended action).

use super::{ActionPoints, AttackKind, Ev, State, combat, names, turns};
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Reaction, Rejected,
};
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;

pub(super) fn cost(s: &BattleState, cmd: &Command) -> i64 {
    let Some(u) = s.unit(cmd.unit()) else {
        return 0;
    };
    match cmd {
        Command::Attack { .. }
        | Command::Act {
            action: Action::PressAdvantage { .. },
            ..
        } => u.stat(names::ATTACK_AP).max(1),
        Command::Act {
            action: Action::Cast { .. },
            ..
        } => u.stat(names::SPELL_AP).max(1),
        // House rule: opening or shutting a door costs 1 AP, like a Move (the text prices
        // no such action).
        Command::Move { .. }
        | Command::Act {
            action: Action::Guard | Action::OpenDoor { .. } | Action::CloseDoor { .. },
            ..
        } => 1,
        _ => 0,
    }
}

/// Whether the target of an attack or spell is valid from where the attacker stands.
pub(super) fn target_ok(s: &BattleState, cmd: &Command) -> Result<(), Rejected> {
    let (unit, target, kind) = match cmd {
        Command::Attack {
            unit,
            target,
            ranged,
        } => (*unit, *target, if *ranged { 1 } else { 0 }),
        Command::Act {
            unit,
            action: Action::Cast { target, spell },
        } => {
            if !spell.is_magic_missile() {
                return Err(Rejected::new(format!(
                    "{} is a segments spell; a caster here knows only its one spell",
                    spell.name()
                )));
            }
            (*unit, *target, 2)
        }
        _ => return Ok(()),
    };
    let Some(t) = s.unit(target) else {
        return Err(Rejected::new(format!("there is no {target}")));
    };
    let u = &s.units[unit.index()];
    if !s.are_enemies(unit, target) {
        return Err(Rejected::new(format!("{} is not an enemy", t.name)));
    }
    if !t.is_active() {
        return Err(Rejected::new(format!(
            "{} is already out of the fight",
            t.name
        )));
    }
    match kind {
        0 => {
            if !s.in_melee_reach(unit, target) {
                return Err(Rejected::new(format!(
                    "{} is not within {}'s reach",
                    t.name, u.name
                )));
            }
        }
        _ => {
            let (range, what) = if kind == 1 {
                (u.stat(names::RANGE), "ranged attack")
            } else {
                (u.stat(names::SPELL_RANGE), "spell")
            };
            if range <= 0 {
                return Err(Rejected::new(format!("{} has no {what}", u.name)));
            }
            let d = s.distance(unit, target) as i64;
            if d > range {
                return Err(Rejected::new(format!(
                    "{} is {d} squares away; the {what} reaches {range}",
                    t.name
                )));
            }
            if s.cover(unit, target) == Cover::Blocked {
                return Err(Rejected::new(format!("{} cannot see {}", u.name, t.name)));
            }
        }
    }
    Ok(())
}

pub(super) fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let u = &s.units[unit.index()];
    if let Command::React { reaction, .. } = cmd {
        return match reaction {
            Reaction::Decline => Ok(()),
            Reaction::Dodge if u.pool(names::AP) >= 1 => Ok(()),
            Reaction::Dodge => Err(Rejected::new(format!(
                "{} has no Action Points left to dodge",
                u.name
            ))),
            other => Err(Rejected::new(format!(
                "{} is not a reaction in the action-points ruleset; Dodge or Decline",
                s.show(other)
            ))),
        };
    }
    let Some(cur) = turns::current(r) else {
        return Err(Rejected::new("no one is acting"));
    };
    if unit != cur {
        return Err(Rejected::new(format!(
            "it is {}'s turn, not {}'s",
            s.units[cur.index()].name,
            u.name
        )));
    }
    let ap = u.pool(names::AP);
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Move { to, .. } => {
            if ap < 1 {
                return Err(Rejected::new(format!("{} has no AP left to move", u.name)));
            }
            if *to == u.cell {
                return Err(Rejected::new(format!("{} is already there", u.name)));
            }
            if !s.can_end_move(unit, u.movement, *to) {
                return Err(Rejected::new(format!(
                    "{} cannot reach {to} with one Move ({} squares)",
                    u.name, u.movement
                )));
            }
            Ok(())
        }
        Command::Attack { .. }
        | Command::Act {
            action: Action::Cast { .. },
            ..
        } => {
            if ap < 1 {
                return Err(Rejected::new(format!("{} has no AP left", u.name)));
            }
            target_ok(s, cmd)
        }
        Command::Act {
            action: Action::PressAdvantage { target },
            ..
        } => {
            press_ok(s, r, cmd)?;
            target_ok(
                s,
                &Command::Attack {
                    unit,
                    target: *target,
                    ranged: false,
                },
            )
        }
        Command::Act {
            action: Action::Guard,
            ..
        } => {
            if ap < 1 {
                return Err(Rejected::new(format!("{} has no AP left", u.name)));
            }
            if u.has(&Condition::Guarding) {
                return Err(Rejected::new(format!("{} is already guarding", u.name)));
            }
            Ok(())
        }
        Command::Act {
            action: action @ (Action::OpenDoor { .. } | Action::CloseDoor { .. }),
            ..
        } => {
            if ap < 1 {
                return Err(Rejected::new(format!("{} has no AP left", u.name)));
            }
            s.door_check(unit, action).map_err(Rejected::new)
        }
        Command::Act { action, .. } => Err(Rejected::new(format!(
            "{} is not an action in the action-points ruleset (Move, Attack, Cast, Guard, Press \
             the Advantage, a door, End Turn)",
            action.name()
        ))),
        Command::Pick { .. } | Command::Declare { .. } => Err(Rejected::new(
            "the action-points ruleset has no picks or declarations; units act in initiative order",
        )),
        Command::React { .. } => Ok(()),
    }
}

pub(super) fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, .. } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            if s.units[unit.index()].pool(names::AP) >= 1 {
                out.push(Command::React {
                    unit,
                    reaction: Reaction::Dodge,
                });
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            out.push(Command::EndTurn { unit });
            if u.pool(names::AP) >= 1 {
                for target in s.enemies_of(unit) {
                    for cmd in Command::attacks_on(unit, target) {
                        if target_ok(s, &cmd).is_ok() {
                            out.push(cmd);
                        }
                    }
                }
                for target in s.enemies_of(unit) {
                    let press = Command::Act {
                        unit,
                        action: Action::PressAdvantage { target },
                    };
                    if press_ok(s, r, &press).is_ok()
                        && target_ok(
                            s,
                            &Command::Attack {
                                unit,
                                target,
                                ranged: false,
                            },
                        )
                        .is_ok()
                    {
                        out.push(press);
                    }
                }
                if !u.has(&Condition::Guarding) {
                    out.push(Command::Act {
                        unit,
                        action: Action::Guard,
                    });
                }
                out.extend(
                    s.door_actions(unit)
                        .into_iter()
                        .map(|action| Command::Act { unit, action }),
                );
                let reach = s.reach_of(unit, u.movement, None);
                for (to, _) in reach.destinations() {
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

/// Whether the unit of `cmd` (a Press the Advantage) may press now: its Combat Style has the
/// Special Advantage, it holds Advantage, and it has the AP (a Special Action is never
/// extended over two turns: house rule X-36).
fn press_ok(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let u = &s.units[cmd.unit().index()];
    if u.stat(names::PRESS) <= 0 {
        return Err(Rejected::new(format!(
            "{}'s combat style has no Special Advantage (Press the Advantage)",
            u.name
        )));
    }
    if !r.advantage.contains(&cmd.unit()) {
        return Err(Rejected::new(format!(
            "{} has no Advantage to press (gain it with an attack that beats the number by 5, or \
             a dodge that makes an attack miss)",
            u.name
        )));
    }
    let need = cost(s, cmd);
    if u.pool(names::AP) < need {
        return Err(Rejected::new(format!(
            "{} needs {need} AP to press the Advantage (a Special Action is not extended)",
            u.name
        )));
    }
    Ok(())
}

pub(super) fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => combat::react(x, *unit, reaction),
        Command::EndTurn { unit } => {
            let turn = ActionPoints::state(x.s()).turn;
            x.emit(Event::TurnEnded { unit: *unit });
            turns::advance(x, turn + 1);
        }
        _ => {
            let unit = cmd.unit();
            let need = cost(x.s(), cmd);
            let ap = x.s().units[unit.index()].pool(names::AP);
            if need > ap {
                // An extended action: spend what is left now, the rest next turn.
                x.set_pool(unit, names::AP, 0);
                x.emit(ActionPoints::event(Ev::ExtendedStarted {
                    unit,
                    command: cmd.clone(),
                    remaining: need - ap,
                }));
                turns::after_action(x);
                return;
            }
            x.add_pool(unit, names::AP, -need);
            perform(x, cmd);
            turns::after_action(x);
        }
    }
}

/// The effect of an action whose AP are paid.
pub(super) fn perform(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::Move { unit, to } => {
            let u = &x.s().units[unit.index()];
            if let Some(path) = x.s().path_for(*unit, u.movement, None, *to) {
                x.walk(*unit, &path.cells(), false, &mut |_, _, _, _| Vec::new());
            }
        }
        Command::Act {
            unit,
            action: Action::Guard,
        } => x.set_condition(*unit, Condition::Guarding, true),
        Command::Act {
            unit,
            action: action @ (Action::OpenDoor { .. } | Action::CloseDoor { .. }),
        } => x.door(*unit, action),
        Command::Attack {
            unit,
            target,
            ranged,
        } => combat::declare_attack(x, *unit, *target, AttackKind::of(*ranged)),
        Command::Act {
            unit,
            action: Action::Cast { target, .. },
        } => combat::declare_attack(x, *unit, *target, AttackKind::Spell),
        Command::Act {
            unit,
            action: Action::PressAdvantage { target },
        } => {
            x.emit(ActionPoints::event(Ev::Advantage {
                unit: *unit,
                on: false,
            }));
            x.emit(ActionPoints::event(Ev::Pressing {
                unit: *unit,
                on: true,
            }));
            combat::declare_attack(x, *unit, *target, AttackKind::Melee);
        }
        _ => {}
    }
}
