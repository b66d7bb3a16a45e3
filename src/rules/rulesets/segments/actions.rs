//! Ordinary actions in `segments`: what the turn under way allows, the declarations a unit may
//! make, and checking, listing and executing commands.

use super::names::{HP, LONG_RANGE, RANGE, SPELL_RANGE};
use super::turns::{
    Mode, advance, after_action, can_still_cast, finish_turn, has_missile, is_caster, mode,
    next_to_declare, run_budget, stat, walk_budget,
};
use super::{Ev, Phase, SEGMENTS, Segments, State, TurnKind, combat};
use crate::rules::battle::{
    Action, BattleState, Command, Decision, Exec, Intent, Reaction, Rejected, UnitId,
};
use crate::rules::rulesets::Member;

// ---------------------------------------------------------------------------------------------
// What the current turn allows

/// What the turn under way lets its unit do, and why not where it cannot.
pub(crate) struct Allowed {
    pub unit: UnitId,
    /// Squares it may move, or why it may not.
    pub move_budget: Result<u32, String>,
    pub melee: Result<(), String>,
    pub missile: Result<(), String>,
    /// The target it must cast at (`None`: any), or why it may not cast.
    pub cast: Result<Option<UnitId>, String>,
    pub delay: Result<(), String>,
}

pub(crate) fn allowed(s: &BattleState, r: &State) -> Option<Allowed> {
    let t = r.current.as_ref()?;
    let u = t.unit;
    let who = s.unit_name(u);
    let m = mode(r, u);
    let first_turn = matches!(t.kind, TurnKind::Surprise | TurnKind::Main | TurnKind::Held);
    let move_budget = if !first_turn {
        Err(format!(
            "{who} may only use its further attack routines now, not move"
        ))
    } else if t.moved.is_some() {
        Err(format!("{who} has already moved this turn"))
    } else if t.attacked {
        Err(format!(
            "{who} has attacked this round and may not move now"
        ))
    } else {
        match m {
            Mode::Melee | Mode::Missile => Ok(walk_budget(s, u)),
            Mode::Run | Mode::Free => Ok(run_budget(s, u)),
            Mode::Spell(_) => Err(format!(
                "{who} declared a spell: it may cast it or do nothing, not move"
            )),
            Mode::Hold => Err(format!("{who} declared Hold: it does nothing this round")),
        }
    };
    let routine = || -> Result<(), String> {
        if t.routines == 0 {
            return Err(format!("{who} has no attack routine left this turn"));
        }
        if m == Mode::Free
            && let Some(cost) = t.moved
            && cost > walk_budget(s, u)
        {
            return Err(format!(
                "{who} ran {cost} squares and may not attack (at most {} to attack)",
                walk_budget(s, u)
            ));
        }
        Ok(())
    };
    let melee = match m {
        Mode::Melee | Mode::Free => routine(),
        Mode::Missile => Err(format!(
            "{who} declared Missile: it may not fight in melee this round"
        )),
        _ => Err(format!("{who} did not declare an attack this round")),
    };
    let missile = match m {
        _ if !has_missile(s, u) => Err(format!("{who} has no missile weapon")),
        Mode::Missile | Mode::Free => routine(),
        Mode::Melee => Err(format!(
            "{who} declared Melee: it may not use a missile weapon this round"
        )),
        _ => Err(format!("{who} did not declare an attack this round")),
    };
    let cast = if !is_caster(s, u) {
        Err(format!("{who} knows no spell"))
    } else if !can_still_cast(s, u) {
        Err(format!("{who} has no spell left to cast"))
    } else if !first_turn || t.moved.is_some() || t.attacked {
        Err(format!("{who} has already acted and may not begin a spell"))
    } else {
        match m {
            Mode::Spell(target) => Ok(Some(target)),
            Mode::Free => Ok(None),
            _ => Err(format!(
                "{who} did not declare a spell this round and may not substitute one"
            )),
        }
    };
    let delay = if r.phase != Phase::Round || !first_turn {
        Err(format!("{who} may only hold its action in its own segment"))
    } else if t.moved.is_some() || t.attacked {
        Err(format!("{who} has already acted and may not hold now"))
    } else if r.segment >= SEGMENTS {
        Err(format!(
            "segment {SEGMENTS} is the last: {who} cannot hold any longer"
        ))
    } else {
        Ok(())
    };
    Some(Allowed {
        unit: u,
        move_budget,
        melee,
        missile,
        cast,
        delay,
    })
}

/// The turn under way has nothing left but ending it.
pub(super) fn turn_exhausted(s: &BattleState, r: &State) -> bool {
    allowed(s, r).is_some_and(|a| {
        a.move_budget.is_err() && a.melee.is_err() && a.missile.is_err() && a.cast.is_err()
    })
}

// ---------------------------------------------------------------------------------------------
// Commands

/// The declarations `unit` may make, the sensible default first: its spell at the nearest foe
/// in range, else its missile weapon if a foe is in range, else melee.
pub(crate) fn declarations(s: &BattleState, unit: UnitId) -> Vec<Intent> {
    let mut foes = s.enemies_of(unit);
    foes.sort_by_key(|&e| (s.distance(unit, e), e));
    let mut out = Vec::new();
    if can_still_cast(s, unit) {
        out.extend(foes.iter().map(|&target| Intent::Spell { target }));
    }
    if has_missile(s, unit) {
        out.push(Intent::Missile);
    }
    out.extend([Intent::Melee, Intent::Run, Intent::Hold]);
    let in_range = |range: i64| {
        foes.iter()
            .copied()
            .find(|&e| i64::from(s.distance(unit, e)) <= range && s.can_see(unit, e))
    };
    let default = if can_still_cast(s, unit)
        && let Some(target) = in_range(stat(s, unit, SPELL_RANGE))
    {
        Intent::Spell { target }
    } else if has_missile(s, unit)
        && in_range(stat(s, unit, LONG_RANGE).max(stat(s, unit, RANGE))).is_some()
    {
        Intent::Missile
    } else {
        Intent::Melee
    };
    if let Some(i) = out.iter().position(|x| *x == default) {
        let d = out.remove(i);
        out.insert(0, d);
    }
    out
}

fn check_declaration(s: &BattleState, unit: UnitId, intent: &Intent) -> Result<(), Rejected> {
    let who = s.unit_name(unit);
    match intent {
        Intent::Spell { target } => {
            if !is_caster(s, unit) {
                return Err(Rejected::new(format!("{who} knows no spell")));
            }
            if !can_still_cast(s, unit) {
                return Err(Rejected::new(format!("{who} has no spell left to cast")));
            }
            let Some(t) = s.unit(*target) else {
                return Err(Rejected::new(format!("there is no {target}")));
            };
            if !s.are_enemies(unit, *target) || !t.is_active() {
                return Err(Rejected::new(format!(
                    "{} is not an enemy in the fight; {who} must aim its spell at one",
                    t.name
                )));
            }
            Ok(())
        }
        Intent::Missile if !has_missile(s, unit) => {
            Err(Rejected::new(format!("{who} has no missile weapon")))
        }
        _ => Ok(()),
    }
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let who = s.unit_name(unit);
    match cmd {
        Command::React { reaction, .. } => return combat::check_reaction(s, unit, reaction),
        Command::Pick { .. } => {
            return Err(Rejected::new(
                "the segments ruleset has no picks: units act in their segment, in unit order",
            ));
        }
        Command::Declare { intent, .. } => {
            if r.phase != Phase::Declare {
                return Err(Rejected::new(
                    "declarations are made at the start of a round, before initiative",
                ));
            }
            return match next_to_declare(s, r) {
                Some(d) if d == unit => check_declaration(s, unit, intent),
                Some(d) => Err(Rejected::new(format!(
                    "it is {}'s declaration now, not {who}'s",
                    s.unit_name(d)
                ))),
                None => Err(Rejected::new("no one is declaring")),
            };
        }
        _ => {}
    }
    if r.phase == Phase::Declare {
        let d = next_to_declare(s, r).map_or_else(String::new, |d| s.unit_name(d).into_owned());
        return Err(Rejected::new(format!(
            "the round has not begun: {d} must declare first"
        )));
    }
    let Some(a) = allowed(s, r) else {
        return Err(Rejected::new("no one is acting"));
    };
    if a.unit != unit {
        return Err(Rejected::new(format!(
            "it is {}'s turn in segment {}, not {who}'s",
            s.unit_name(a.unit),
            r.segment
        )));
    }
    let u = &s.units[unit.index()];
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Act {
            action: Action::Delay,
            ..
        } => a.delay.map_err(Rejected::new),
        Command::Move { to, .. } => {
            let budget = a.move_budget.map_err(Rejected::new)?;
            if *to == u.cell {
                return Err(Rejected::new(format!("{who} is already at {to}")));
            }
            if !s.can_end_move(unit, budget, *to) {
                return Err(Rejected::new(format!(
                    "{who} cannot reach {to} with a move of {budget} squares"
                )));
            }
            Ok(())
        }
        Command::Attack { target, ranged, .. } => {
            if *ranged {
                a.missile.map_err(Rejected::new)?;
            } else {
                a.melee.map_err(Rejected::new)?;
            }
            combat::target_ok(s, unit, *target, combat::kind_of(*ranged))
        }
        Command::Act {
            action: Action::Cast { target },
            ..
        } => {
            let must = a.cast.map_err(Rejected::new)?;
            if let Some(t) = must
                && t != *target
            {
                return Err(Rejected::new(format!(
                    "{who} declared its spell at {}: it may cast at {} or not at all",
                    s.unit_name(t),
                    s.unit_name(t)
                )));
            }
            combat::target_ok(s, unit, *target, combat::Kind::Spell)
        }
        // House rule: opening or shutting a door takes the unit's move of its turn.
        Command::Act {
            action: action @ (Action::OpenDoor { .. } | Action::CloseDoor { .. }),
            ..
        } => {
            a.move_budget
                .map_err(|why| Rejected::new(format!("{why} (a door takes the turn's move)")))?;
            s.door_check(unit, action).map_err(Rejected::new)
        }
        Command::Act { action, .. } => Err(Rejected::new(format!(
            "{} is not an action in the segments ruleset (Move, Attack, Cast, Delay, a door, End \
             Turn)",
            action.name()
        ))),
        Command::Declare { .. } | Command::Pick { .. } | Command::React { .. } => Ok(()),
    }
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, trigger } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            if let Some(target) = combat::trigger_mover(&trigger)
                && s.unit(target).is_some_and(|t| t.pool(HP) > 0)
            {
                out.push(Command::React {
                    unit,
                    reaction: Reaction::Attack { target },
                });
            }
        }
        Decision::Declare { unit, .. } => {
            for intent in declarations(s, unit) {
                out.push(Command::Declare { unit, intent });
            }
        }
        Decision::Act { unit } => {
            let Some(a) = allowed(s, r) else {
                return out;
            };
            out.push(Command::EndTurn { unit });
            if a.delay.is_ok() {
                out.push(Command::Act {
                    unit,
                    action: Action::Delay,
                });
            }
            for target in s.enemies_of(unit) {
                if let Ok(must) = a.cast
                    && must.is_none_or(|t| t == target)
                    && combat::target_ok(s, unit, target, combat::Kind::Spell).is_ok()
                {
                    out.push(Command::Act {
                        unit,
                        action: Action::Cast { target },
                    });
                }
                for (ranged, ok) in [(false, &a.melee), (true, &a.missile)] {
                    if ok.is_ok()
                        && combat::target_ok(s, unit, target, combat::kind_of(ranged)).is_ok()
                    {
                        out.push(Command::Attack {
                            unit,
                            target,
                            ranged,
                        });
                    }
                }
            }
            if let Ok(budget) = a.move_budget {
                out.extend(
                    s.door_actions(unit)
                        .into_iter()
                        .map(|action| Command::Act { unit, action }),
                );
                let here = s.units[unit.index()].cell;
                for (to, _) in s.reach_of(unit, budget, None).destinations() {
                    if to != here {
                        out.push(Command::Move { unit, to });
                    }
                }
            }
        }
        Decision::Pick { .. } | Decision::Over { .. } => {}
    }
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::Declare { unit, intent } => {
            x.emit(Segments::event(Ev::Declared {
                unit: *unit,
                intent: Some(intent.clone()),
            }));
            advance(x);
        }
        Command::React { unit, reaction } => combat::react(x, *unit, reaction),
        Command::EndTurn { unit } => {
            finish_turn(x, *unit, false);
            advance(x);
        }
        Command::Act {
            unit,
            action: Action::Delay,
        } => {
            finish_turn(x, *unit, true);
            advance(x);
        }
        Command::Move { unit, to } => {
            combat::do_move(x, *unit, *to);
            after_action(x);
        }
        Command::Attack {
            unit,
            target,
            ranged,
        } => {
            combat::routine(x, *unit, *target, *ranged);
            after_action(x);
        }
        Command::Act {
            unit,
            action: Action::Cast { target },
        } => {
            combat::begin_cast(x, *unit, *target);
            after_action(x);
        }
        Command::Act {
            unit,
            action: action @ (Action::OpenDoor { .. } | Action::CloseDoor { .. }),
        } => {
            // The door takes the turn's move (no square of it).
            x.emit(Segments::event(Ev::MoveDone {
                unit: *unit,
                cost: 0,
            }));
            x.door(*unit, action);
            after_action(x);
        }
        Command::Act { .. } | Command::Pick { .. } => {}
    }
}
