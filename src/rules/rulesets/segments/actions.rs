//! Ordinary actions in `segments`: what the turn under way allows, the declarations a unit may
//! make, and checking, listing and executing commands.

use super::names::{HP, LONG_RANGE, RANGE, SPELL_RANGE};
use super::spells::{self, Aim, aim, can_cast, castable};
use super::turns::{
    Mode, advance, after_action, can_still_cast, finish_turn, has_missile, is_caster, mode,
    next_to_declare, run_budget, stat, walk_budget,
};
use super::{Ev, Phase, SEGMENTS, Segments, State, TurnKind, combat};
use crate::rules::battle::{
    Action, BattleState, Command, Decision, Exec, Intent, Reaction, Rejected, Spell, UnitId,
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
    /// The spell and target it must cast (`None`: any), or why it may not cast.
    pub cast: Result<Option<(UnitId, Spell)>, String>,
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
            Mode::Spell(..) => Err(format!(
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
            Mode::Spell(_, spell) if !can_cast(s, u, spell) => {
                Err(format!("{who} has no {} left to cast", spell.name()))
            }
            Mode::Spell(target, spell) => Ok(Some((target, spell))),
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

/// The declarations `unit` may make, the sensible default first (the AI declares it; see
/// [`default_declaration`]): a spell, else its missile weapon if a foe is in range, else melee.
pub(crate) fn declarations(s: &BattleState, unit: UnitId) -> Vec<Intent> {
    let mut foes = s.enemies_of(unit);
    foes.sort_by_key(|&e| (s.distance(unit, e), e));
    let mut friends: Vec<UnitId> = s
        .unit_ids()
        .filter(|&a| s.units[a.index()].is_active() && !s.are_enemies(unit, a))
        .filter(|&a| s.units[a.index()].side == s.units[unit.index()].side)
        .collect();
    friends.sort_by_key(|&a| (s.distance(unit, a), a));
    let mut out = Vec::new();
    for spell in castable(s, unit) {
        let targets: Vec<UnitId> = match aim(spell) {
            Aim::Enemy => foes.clone(),
            Aim::Ally | Aim::Touch => friends.clone(),
            Aim::Caster => vec![unit],
        };
        out.extend(
            targets
                .into_iter()
                .filter(|&target| spells::declarable(s, unit, target, spell).is_ok())
                .map(|target| Intent::Spell { target, spell }),
        );
    }
    if has_missile(s, unit) {
        out.push(Intent::Missile);
    }
    out.extend([Intent::Melee, Intent::Run, Intent::Hold]);
    let default = default_declaration(s, unit, &foes, &friends);
    if let Some(i) = out.iter().position(|x| *x == default) {
        let d = out.remove(i);
        out.insert(0, d);
    }
    out
}

/// The declaration the engine lists first, which the AI makes: Cure Light Wounds on the most
/// hurt of the caster and the allies next to it when one is at half its hit points or less;
/// Haste on the ally (or itself) with the strongest melee routine not yet hasted, when no foe
/// stands next to the caster; Hold Person on the foe in range with the most hit points, when
/// Magic Missile would not fell it; Magic Missile at the nearest foe in range; Shield when no
/// foe is in range but one has a missile weapon; else its missile weapon if a foe is in range,
/// else melee. `foes` and `friends` (itself included) are sorted nearest first.
fn default_declaration(
    s: &BattleState,
    unit: UnitId,
    foes: &[UnitId],
    friends: &[UnitId],
) -> Intent {
    let r = super::Segments::state(s);
    let hp = |u: UnitId| s.units[u.index()].pool(HP);
    let in_range = |range: i64| {
        foes.iter()
            .copied()
            .find(|&e| i64::from(s.distance(unit, e)) <= range && s.can_see(unit, e))
    };
    let spell_range = stat(s, unit, SPELL_RANGE);
    let reachable = |t: UnitId| {
        i64::from(s.distance(unit, t)) <= spell_range && (t == unit || s.can_see(unit, t))
    };
    if can_cast(s, unit, Spell::CureLightWounds)
        && let Some(target) = friends
            .iter()
            .copied()
            .filter(|&a| s.distance(unit, a) <= 1 && 2 * hp(a) <= stat(s, a, HP))
            .min_by_key(|&a| (hp(a) * 100 / stat(s, a, HP).max(1), a))
    {
        return Intent::Spell {
            target,
            spell: Spell::CureLightWounds,
        };
    }
    let beside = foes.first().is_some_and(|&e| s.distance(unit, e) <= 1);
    if can_cast(s, unit, Spell::Haste)
        && !beside
        && !foes.is_empty()
        && let Some(target) = friends
            .iter()
            .copied()
            .filter(|&a| reachable(a) && !spells::hasted(r, a))
            .max_by_key(|&a| {
                let melee = combat::damage_dice(s, a, combat::Kind::Melee)
                    .distribution()
                    .expect(|d| d as f64);
                (
                    (melee * combat::strikes(s, a, combat::Kind::Melee) as f64 * 100.0) as i64,
                    std::cmp::Reverse(a),
                )
            })
    {
        return Intent::Spell {
            target,
            spell: Spell::Haste,
        };
    }
    let missile_damage = combat::damage_dice(s, unit, combat::Kind::Spell)
        .distribution()
        .expect(|d| d.max(1) as f64);
    if can_cast(s, unit, Spell::HoldPerson)
        && let Some(target) = foes
            .iter()
            .copied()
            .filter(|&e| reachable(e) && !spells::held(r, e))
            .filter(|&e| !can_cast(s, unit, Spell::MagicMissile) || hp(e) as f64 > missile_damage)
            .max_by_key(|&e| (hp(e), std::cmp::Reverse(e)))
    {
        return Intent::Spell {
            target,
            spell: Spell::HoldPerson,
        };
    }
    if can_cast(s, unit, Spell::MagicMissile)
        && let Some(target) = in_range(spell_range)
    {
        return Intent::Spell {
            target,
            spell: Spell::MagicMissile,
        };
    }
    if can_cast(s, unit, Spell::Shield)
        && !spells::shielded(r, unit)
        && foes.iter().any(|&e| has_missile(s, e))
    {
        return Intent::Spell {
            target: unit,
            spell: Spell::Shield,
        };
    }
    if has_missile(s, unit)
        && in_range(stat(s, unit, LONG_RANGE).max(stat(s, unit, RANGE))).is_some()
    {
        Intent::Missile
    } else {
        Intent::Melee
    }
}

fn check_declaration(s: &BattleState, unit: UnitId, intent: &Intent) -> Result<(), Rejected> {
    let who = s.unit_name(unit);
    match intent {
        Intent::Spell { target, spell } => {
            if !is_caster(s, unit) {
                return Err(Rejected::new(format!("{who} knows no spell")));
            }
            if !spells::knows(s, unit, *spell) {
                return Err(Rejected::new(format!(
                    "{who} does not know {}",
                    spell.name()
                )));
            }
            if !can_cast(s, unit, *spell) {
                return Err(Rejected::new(format!(
                    "{who} has no {} left to cast",
                    spell.name()
                )));
            }
            spells::declarable(s, unit, *target, *spell)
        }
        Intent::Missile if !has_missile(s, unit) => {
            Err(Rejected::new(format!("{who} has no missile weapon")))
        }
        _ => Ok(()),
    }
}

/// Whether `caster` may begin `spell` at `target` from where both stand.
pub(crate) fn cast_target_ok(
    s: &BattleState,
    caster: UnitId,
    target: UnitId,
    spell: Spell,
) -> Result<(), Rejected> {
    if !can_cast(s, caster, spell) {
        return Err(Rejected::new(format!(
            "{} has no {} to cast",
            s.unit_name(caster),
            spell.name()
        )));
    }
    match aim(spell) {
        Aim::Enemy => combat::target_ok(s, caster, target, combat::Kind::Spell),
        _ => spells::ally_target_ok(s, caster, target, spell),
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
            action: Action::Cast { target, spell },
            ..
        } => {
            let must = a.cast.map_err(Rejected::new)?;
            if let Some((t, sp)) = must
                && (t != *target || sp != *spell)
            {
                return Err(Rejected::new(format!(
                    "{who} declared {} at {}: it may cast that or nothing",
                    sp.name(),
                    s.unit_name(t)
                )));
            }
            cast_target_ok(s, unit, *target, *spell)
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
            // Spells at an enemy come before the attacks on it; spells at allies after all.
            let casts = |target: UnitId, enemy: bool| -> Vec<Command> {
                let Ok(must) = a.cast else { return Vec::new() };
                castable(s, unit)
                    .into_iter()
                    .filter(|&spell| (aim(spell) == Aim::Enemy) == enemy)
                    .filter(|&spell| {
                        must.is_none_or(|m| m == (target, spell))
                            && cast_target_ok(s, unit, target, spell).is_ok()
                    })
                    .map(|spell| Command::Act {
                        unit,
                        action: Action::Cast { target, spell },
                    })
                    .collect()
            };
            for target in s.enemies_of(unit) {
                out.extend(casts(target, true));
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
            for target in s.unit_ids().filter(|&t| !s.are_enemies(unit, t)) {
                out.extend(casts(target, false));
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
            action: Action::Cast { target, spell },
        } => {
            combat::begin_cast(x, *unit, *target, *spell);
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
