//! The manoeuvres of the action table whose effects the source text leaves out (rules P-56..P-62,
//! P-84..P-87, P-91, P-94), built as house rules (`assets/rulesets/phases.ron`), and how the
//! OCV and DCV modifiers of several manoeuvres combine (P-41: only the lowest bonus counts,
//! every penalty adds up).
//!
//! A manoeuvre's modifiers hold from when it is taken until the start of the unit's next
//! action (`State::stance`), like Dodge. Block and Missile Deflection stop attacks with a roll
//! of 3d6 + the defender's OCV against 10 + the attacker's OCV; Roll With A Punch halves the
//! damage rolled by melee hits; Disarm and Grab hit for an effect instead of damage; a
//! Haymaker lands at the end of the Phase; Move By and Move Through strike on the way (their
//! blow waits in `State::blow` until the mover reaches its hex); Sweep and Rapid Fire strike
//! the nearest enemies in turn.

use super::actions::{reject, spend};
use super::combat::{attack_kind, declare_attack, strike, walk};
use super::names;
use super::turns::budget;
use super::{Ev, Phases, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    Action, BattleState, Condition, Exec, Purpose, Rejected, Term, Unit, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;
use serde::{Deserialize, Serialize};

/// OCV lost by a daunted unit (Presence Attack, house rule).
pub(super) const DAUNTED_OCV: i64 = 2;

/// A manoeuvre whose OCV and DCV modifiers last until the unit's next action begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Man {
    Block,
    Disarm,
    Grab,
    Haymaker,
    Deflect,
    Roll,
    MoveBy,
    MoveThrough,
    RapidFire(u8),
    Sweep(u8),
    Brace,
}

/// A DCV modifier: added, or the DCV halved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dcv {
    Add(i64),
    Half,
}

impl Man {
    pub fn name(self) -> &'static str {
        match self {
            Man::Block => "Block",
            Man::Disarm => "Disarm",
            Man::Grab => "Grab",
            Man::Haymaker => "Haymaker",
            Man::Deflect => "Missile Deflection",
            Man::Roll => "Roll With A Punch",
            Man::MoveBy => "Move By",
            Man::MoveThrough => "Move Through",
            Man::RapidFire(_) => "Rapid Fire",
            Man::Sweep(_) => "Sweep",
            Man::Brace => "Brace",
        }
    }

    /// The OCV modifier of an attack (ranged or not) made while it holds.
    pub fn ocv(self, ranged: bool) -> i64 {
        match self {
            Man::Disarm | Man::Roll | Man::MoveBy | Man::MoveThrough => -2,
            Man::Grab => -1,
            Man::RapidFire(n) | Man::Sweep(n) => -2 * (i64::from(n) - 1).max(0),
            Man::Brace if ranged => 2,
            _ => 0,
        }
    }

    /// The DCV modifier while it holds.
    pub fn dcv(self) -> Dcv {
        match self {
            Man::Block => Dcv::Add(2),
            Man::Grab | Man::Roll | Man::MoveBy => Dcv::Add(-2),
            Man::MoveThrough => Dcv::Add(-3),
            Man::Haymaker => Dcv::Add(-5),
            Man::RapidFire(_) | Man::Sweep(_) | Man::Brace => Dcv::Half,
            Man::Disarm | Man::Deflect => Dcv::Add(0),
        }
    }

    /// The manoeuvre an abort (or an action) of this kind puts in effect.
    pub fn of(action: &Action) -> Option<Man> {
        Some(match action {
            Action::Block => Man::Block,
            Action::MissileDeflection => Man::Deflect,
            Action::RollWithPunch => Man::Roll,
            Action::Brace => Man::Brace,
            Action::Disarm { .. } => Man::Disarm,
            Action::Grab { .. } => Man::Grab,
            Action::Haymaker { .. } => Man::Haymaker,
            Action::MoveBy { .. } => Man::MoveBy,
            Action::MoveThrough { .. } => Man::MoveThrough,
            Action::RapidFire { count } => Man::RapidFire(*count),
            Action::Sweep { count } => Man::Sweep(*count),
            _ => return None,
        })
    }
}

/// What an attack does when it hits (the note on an attack paused for an abort).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Blow {
    /// Damage (a Strike, a shot, a Sweep's or Rapid Fire's blow, a Move By).
    #[default]
    Strike,
    /// No damage: the target is disarmed.
    Disarm,
    /// No damage: the target is held.
    Grab,
    /// Damage with one more die.
    Haymaker,
    /// Damage with +1 per 2 hexes of movement spent (the path's cost).
    MoveThrough { moved: u32 },
}

/// A moving manoeuvre's blow, struck when `unit` stands on `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingBlow {
    pub unit: UnitId,
    pub target: UnitId,
    pub at: Cell,
    pub blow: Blow,
}

/// The manoeuvres' part of the ruleset's state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManState {
    /// Per unit: the manoeuvres whose OCV and DCV modifiers hold until its next action
    /// begins (rule P-41 combines them).
    #[serde(default)]
    pub stance: PerUnit<Vec<Man>>,
    /// Per unit: disarmed (bare-handed) until the end of its next action.
    #[serde(default)]
    pub disarmed: PerUnit<bool>,
    /// Per unit: daunted by a Presence Attack (-2 OCV) until the end of its next action.
    #[serde(default)]
    pub daunted: PerUnit<bool>,
    /// Per unit: the Turn it last made a Presence Attack (one a Turn).
    #[serde(default)]
    pub presence_turn: PerUnit<u32>,
    /// Haymakers winding up: (attacker, target), landing at the end of the Phase.
    #[serde(default)]
    pub haymakers: Vec<(UnitId, UnitId)>,
    /// A Move By's or Move Through's blow, struck when the mover reaches its hex.
    #[serde(default)]
    pub blow: Option<PendingBlow>,
    /// Per unit: the Phase (`phase_serial`) in which it started a Take a Recovery with a move
    /// action, to complete with a move action in its next Phase (P-55, P-72).
    #[serde(default)]
    pub started: PerUnit<Option<u32>>,
    /// Per unit: the enemy it has analysed (P-73), +1 OCV against it until its next action.
    #[serde(default)]
    pub analysed: PerUnit<Option<UnitId>>,
}

/// OCV gained against an analysed enemy (house rule, P-73).
pub(super) const ANALYSED_OCV: i64 = 1;

/// A number for the current Phase, growing through the battle.
pub(super) fn phase_serial(s: &BattleState) -> u32 {
    s.round * 5 + u32::from(Phases::state(s).phase)
}

/// Rule P-41 over named modifiers: the lowest bonus alone (if any), then every penalty.
fn combine(mods: Vec<(String, i64)>) -> Vec<Term> {
    let bonuses: Vec<&(String, i64)> = mods.iter().filter(|m| m.1 > 0).collect();
    let mut out = Vec::new();
    if let Some(low) = bonuses.iter().min_by_key(|m| m.1) {
        let label = if bonuses.len() > 1 {
            format!("{} (the lowest bonus of {})", low.0, bonuses.len())
        } else {
            low.0.clone()
        };
        out.push(Term::new(label, low.1));
    }
    out.extend(
        mods.iter()
            .filter(|m| m.1 < 0)
            .map(|m| Term::new(m.0.clone(), m.1)),
    );
    out
}

fn stance(r: &State, u: UnitId) -> &[Man] {
    r.man.stance.get(u).map_or(&[], |v| v.as_slice())
}

pub(super) fn holds(r: &State, u: UnitId, m: Man) -> bool {
    stance(r, u).contains(&m)
}

/// The OCV of `a`'s attack as terms: its OCV, the manoeuvres in effect (P-41), daunted.
pub(super) fn ocv_terms(s: &BattleState, a: UnitId, t: UnitId, ranged: bool) -> Vec<Term> {
    let r = Phases::state(s);
    let Some(au) = s.unit(a) else {
        return vec![Term::new("OCV", 0)];
    };
    let mut mods: Vec<(String, i64)> = stance(r, a)
        .iter()
        .map(|m| (m.name().to_string(), m.ocv(ranged)))
        .collect();
    if r.man.daunted.get(a).copied().unwrap_or(false) {
        mods.push(("daunted".into(), -DAUNTED_OCV));
    }
    let mut terms = vec![Term::new("OCV", au.stat(names::OCV))];
    terms.extend(combine(mods));
    if r.man.analysed.get(a).copied().flatten() == Some(t) {
        terms.push(Term::new("analysed", ANALYSED_OCV));
    }
    terms
}

/// The DCV modifiers of `t` but the unaware's: its DCV, its bonuses and penalties (P-41,
/// Dodge counting as a bonus), then halved once if Stunned, prone or by a manoeuvre.
pub(super) fn dcv_mod_terms(r: &State, t: &Unit, id: UnitId) -> Vec<Term> {
    let mut mods: Vec<(String, i64)> = Vec::new();
    if t.has(&Condition::Dodging) {
        mods.push(("dodging".into(), t.stat(names::DODGE_DCV)));
    }
    let mut half: Option<&str> = None;
    for &m in stance(r, id) {
        match m.dcv() {
            Dcv::Add(v) => mods.push((m.name().to_string(), v)),
            Dcv::Half => half = Some(m.name()),
        }
    }
    let mut terms = vec![Term::new("DCV", t.stat(names::DCV))];
    terms.extend(combine(mods));
    let dcv: i64 = terms.iter().map(|t| t.value).sum();
    let why = if t.has(&Condition::Stunned) {
        Some("stunned")
    } else if t.is_prone() {
        Some("prone")
    } else {
        half
    };
    if let Some(why) = why {
        terms.push(Term::new(
            format!("halved: {}", why.to_lowercase()),
            dcv / 2 - dcv,
        ));
    }
    terms
}

/// The damage dice of `a`'s blow: `(count, bonus)` of d6.
pub(super) fn blow_dice(s: &BattleState, a: UnitId, ranged: bool, blow: Blow) -> (i64, i64) {
    let Some(au) = s.unit(a) else { return (0, 0) };
    let (mut n, mut bonus) = super::combat::damage_dice(au, ranged);
    if Phases::state(s)
        .man
        .disarmed
        .get(a)
        .copied()
        .unwrap_or(false)
    {
        (n, bonus) = (1, 0);
    }
    match blow {
        Blow::Haymaker => n += 1,
        Blow::MoveThrough { moved } => bonus += i64::from(moved / 2),
        _ => {}
    }
    (n, bonus)
}

/// A Block (melee) or Missile Deflection (ranged) that `t` has in effect against `a`'s
/// attack: rolls 3d6 + its OCV against 10 + the attacker's OCV. `true`: the attack is stopped.
pub(super) fn stopped(x: &mut Exec, a: UnitId, t: UnitId, ranged: bool) -> bool {
    let by = if ranged { Man::Deflect } else { Man::Block };
    if !holds(Phases::state(x.s()), t, by) {
        return false;
    }
    let (Some(au), Some(tu)) = (x.s().unit(a), x.s().unit(t)) else {
        return false;
    };
    if !tu.is_active() || tu.has(&Condition::Stunned) {
        return false;
    }
    let (aocv, tocv) = (au.stat(names::OCV), tu.stat(names::OCV));
    let needed = x.reckon(
        t,
        &format!("{} roll needed", by.name()),
        vec![Term::new("base", 10), Term::new("attacker's OCV", aocv)],
    );
    let roll = x.roll(
        Some(t),
        None,
        Purpose::Opposed,
        &ndx(3, 6, tocv),
        Some(needed),
    );
    if roll.total >= needed {
        x.emit(Phases::event(Ev::Stopped { unit: t, by }));
        true
    } else {
        false
    }
}

/// The chance that a Block (melee) or Missile Deflection (ranged) `t` holds stops `a`'s
/// attack, as [`stopped`] rolls it; 0 when it holds none that fits.
pub(super) fn stop_chance(s: &BattleState, a: UnitId, t: UnitId, ranged: bool) -> f64 {
    let by = if ranged { Man::Deflect } else { Man::Block };
    let (Some(au), Some(tu)) = (s.unit(a), s.unit(t)) else {
        return 0.0;
    };
    if !holds(Phases::state(s), t, by) || !tu.is_active() || tu.has(&Condition::Stunned) {
        return 0.0;
    }
    ndx(3, 6, tu.stat(names::OCV))
        .distribution()
        .at_least(10 + au.stat(names::OCV))
}

/// `u` holding the manoeuvre `m` as well (what an abort to it would leave), in a copy.
pub(super) fn with_stance(s: &BattleState, u: UnitId, m: Man) -> BattleState {
    let mut then = s.clone();
    if let Some(r) = Phases::state_mut(&mut then) {
        let mut stance = stance(r, u).to_vec();
        stance.push(m);
        r.man.stance.set(u, stance);
    }
    then
}

/// `u` holding the manoeuvre `m` alone, its analysis ended (as the action taking `m`
/// begins), in a copy.
pub(super) fn with_only_stance(s: &BattleState, u: UnitId, m: Man) -> BattleState {
    let mut then = s.clone();
    if let Some(r) = Phases::state_mut(&mut then) {
        r.man.stance.set(u, vec![m]);
        r.man.analysed.set(u, None);
    }
    then
}

/// Whether `u` is held by a Grab.
pub(super) fn grabbed(s: &BattleState, u: UnitId) -> Option<UnitId> {
    s.unit(u)?.conditions.iter().find_map(|c| match c {
        Condition::Grappled { by } => Some(*by),
        _ => None,
    })
}

/// The units `u` holds.
fn holding(s: &BattleState, u: UnitId) -> Vec<UnitId> {
    s.unit_ids().filter(|&v| grabbed(s, v) == Some(u)).collect()
}

/// `u` lets go of everyone it holds (it moves, lets go, or cannot hold on).
pub(super) fn let_go(x: &mut Exec, u: UnitId) {
    for v in holding(x.s(), u) {
        x.set_condition(v, Condition::Grappled { by: u }, false);
    }
}

/// The enemies a Sweep (melee) or Rapid Fire (ranged) by `u` could strike, nearest first.
pub(super) fn volley_targets(s: &BattleState, u: UnitId, ranged: bool) -> Vec<UnitId> {
    let mut t: Vec<UnitId> = s
        .enemies_of(u)
        .into_iter()
        .filter(|&e| attack_kind(s, u, e, ranged).is_ok())
        .collect();
    t.sort_by_key(|&e| s.distance(u, e));
    t
}

/// A Move By's path to `to` (all of its movement) and the first hex on it from which
/// `target` is within melee reach.
pub(super) fn move_by_path(
    s: &BattleState,
    u: UnitId,
    target: UnitId,
    to: Cell,
) -> Option<(Path, Cell)> {
    let unit = s.unit(u)?;
    let tu = s.unit(target)?;
    let path = s.path_for(u, unit.movement, None, to)?;
    let at = path.cells().into_iter().find(|&c| {
        let d = s.grid().distance_steps(c, tu.cell);
        d >= 1
            && d <= unit.reach
            && (d == 1 || crate::rules::sight::line_of_sight(&s.terrain, c, tu.cell))
    })?;
    Some((path, at))
}

/// A Move Through's path to `to`, a hex next to `target` at least one hex away.
pub(super) fn move_through_path(
    s: &BattleState,
    u: UnitId,
    target: UnitId,
    to: Cell,
) -> Option<Path> {
    let unit = s.unit(u)?;
    let tu = s.unit(target)?;
    if s.grid().distance_steps(to, tu.cell) != 1 || to == unit.cell {
        return None;
    }
    s.path_for(u, unit.movement, None, to)
}

/// What the command's checks need to know of the unit's Phase.
pub(super) struct Room {
    pub actions_free: bool,
    pub attack_free: bool,
    pub fresh: bool,
    pub fresh_but_step: bool,
    pub surprise: bool,
}

/// Whether `u` may take the manoeuvre `action` now (`None`: not a manoeuvre).
pub(super) fn check(
    s: &BattleState,
    r: &State,
    u: UnitId,
    action: &Action,
    room: &Room,
) -> Option<Result<(), Rejected>> {
    let unit = s.unit(u)?;
    let n = &unit.name;
    let attack_action = |what: &str| {
        if room.attack_free {
            Ok(())
        } else {
            reject(format!(
                "{n} has no attack action left this Phase; {what} is an attack action"
            ))
        }
    };
    let full_phase = |what: &str, moves: bool| {
        if room.surprise {
            reject(format!(
                "{what} is a full-phase action: not in the Surprise Phase"
            ))
        } else if !(if moves {
            room.fresh
        } else {
            room.fresh_but_step
        }) {
            reject(format!(
                "{n} has already acted or moved this Phase; {what} takes the whole Phase"
            ))
        } else {
            Ok(())
        }
    };
    let again = |m: Man| {
        if holds(r, u, m) {
            reject(format!("{n} is already using {}", m.name()))
        } else {
            Ok(())
        }
    };
    let held = |what: &str| match grabbed(s, u) {
        Some(by) => reject(format!(
            "{n} is held by {}'s Grab: no {what} until it breaks free",
            s.unit_name(by)
        )),
        None if unit.is_prone() => reject(format!("{n} is prone: no {what}")),
        None => Ok(()),
    };
    Some(match action {
        Action::Block | Action::MissileDeflection | Action::RollWithPunch => {
            let m = Man::of(action)?;
            attack_action(m.name()).and_then(|_| again(m))
        }
        Action::Disarm { target } | Action::Grab { target } | Action::Haymaker { target } => {
            attack_action(action.name()).and_then(|_| attack_kind(s, u, *target, false))
        }
        Action::Brace => {
            if unit.stat(names::RANGE) <= 0 {
                reject(format!("{n} has no ranged attack to brace"))
            } else {
                again(Man::Brace)
            }
        }
        Action::PresenceAttack { target } => {
            let turn = r.man.presence_turn.get(u).copied().unwrap_or(0);
            match s.unit(*target) {
                _ if unit.stat(names::PRESENCE) <= 0 => {
                    reject(format!("{n} has no Presence Attack"))
                }
                _ if turn == s.round => {
                    reject(format!("{n} has made its Presence Attack this Turn"))
                }
                Some(t) if s.are_enemies(u, *target) && t.is_active() => {
                    if s.cover(u, *target) == Cover::Blocked {
                        reject(format!("{n} cannot see {}", t.name))
                    } else {
                        Ok(())
                    }
                }
                _ => reject(format!("{} is not an enemy able to act", s.unit_name(*target))),
            }
        }
        Action::Sweep { count } | Action::RapidFire { count } => {
            let ranged = matches!(action, Action::RapidFire { .. });
            let have = volley_targets(s, u, ranged).len();
            // P-70: a gun fires one of its shots at each target of the volley.
            let shots = unit
                .shooter(s.ruleset())
                .filter(|(_, d)| ranged && d.ammo > 0)
                .map(|(i, d)| (unit.items[i].loaded, d.name.clone()));
            full_phase(action.name(), false).and_then(|_| match shots {
                _ if *count < 2 || usize::from(*count) > have => reject(format!(
                    "{} needs {count} enemies within {} (2 or more); {n} has {have}",
                    action.name(),
                    if ranged { "range and sight" } else { "reach" }
                )),
                Some((loaded, gun)) if loaded < *count => reject(format!(
                    "Rapid Fire at {count} needs {count} shots; {n}'s {gun} holds {loaded}"
                )),
                _ => Ok(()),
            })
        }
        Action::MoveBy { target, to } => full_phase("Move By", true)
            .and_then(|_| held("Move By"))
            .and_then(|_| match s.unit(*target) {
                Some(t) if s.are_enemies(u, *target) && t.is_active() => {
                    if move_by_path(s, u, *target, *to).is_some() && *to != unit.cell {
                        Ok(())
                    } else {
                        reject(format!(
                            "{n} cannot reach {to} passing within reach of {}",
                            t.name
                        ))
                    }
                }
                _ => reject(format!("{} is not an enemy in the fight", s.unit_name(*target))),
            }),
        Action::MoveThrough { target, to } => full_phase("Move Through", true)
            .and_then(|_| held("Move Through"))
            .and_then(|_| match s.unit(*target) {
                Some(t) if s.are_enemies(u, *target) && t.is_active() => {
                    if move_through_path(s, u, *target, *to).is_some() {
                        Ok(())
                    } else {
                        reject(format!(
                            "{n} cannot charge to {to}: it must be a hex next to {} within {} hexes",
                            t.name, unit.movement
                        ))
                    }
                }
                _ => reject(format!("{} is not an enemy in the fight", s.unit_name(*target))),
            }),
        Action::Analyse { target } => match s.unit(*target) {
            _ if !room.actions_free => reject(format!(
                "{n} has no move action left this Phase; Analyse is a move action"
            )),
            _ if r.man.analysed.get(u).copied().flatten() == Some(*target) => reject(format!(
                "{n} has already analysed {}",
                s.unit_name(*target)
            )),
            Some(t) if s.are_enemies(u, *target) && t.is_active() => {
                if s.cover(u, *target) == Cover::Blocked {
                    reject(format!("{n} cannot see {}", t.name))
                } else {
                    Ok(())
                }
            }
            _ => reject(format!(
                "{} is not an enemy in the fight",
                s.unit_name(*target)
            )),
        },
        Action::BreakFree => match grabbed(s, u) {
            None => reject(format!("{n} is not held")),
            Some(_) => attack_action("Break Free"),
        },
        Action::Release => {
            if holding(s, u).is_empty() {
                reject(format!("{n} holds no one"))
            } else {
                Ok(())
            }
        }
        _ => return None,
    })
}

/// The manoeuvre commands `u` might take now (the caller keeps those `check` allows).
pub(super) fn candidates(s: &BattleState, u: UnitId) -> Vec<Action> {
    let Some(unit) = s.unit(u) else {
        return Vec::new();
    };
    let mut out = vec![
        Action::Block,
        Action::MissileDeflection,
        Action::RollWithPunch,
        Action::Brace,
        Action::BreakFree,
        Action::Release,
    ];
    for count in 2..=3 {
        out.push(Action::Sweep { count });
        out.push(Action::RapidFire { count });
    }
    let r = Phases::state(s);
    let b = budget(r, u);
    let may_charge = !b.moved && !b.stepped && b.actions == 0 && !b.full && r.phase != 0;
    let dests: Vec<Cell> = if may_charge && grabbed(s, u).is_none() && !unit.is_prone() {
        s.reach_of(u, unit.movement, None)
            .destinations()
            .into_iter()
            .map(|(c, _)| c)
            .filter(|&c| c != unit.cell)
            .collect()
    } else {
        Vec::new()
    };
    for target in s.enemies_of(u) {
        out.push(Action::Disarm { target });
        out.push(Action::Grab { target });
        out.push(Action::Haymaker { target });
        out.push(Action::PresenceAttack { target });
        out.push(Action::Analyse { target });
        let Some(tu) = s.unit(target) else { continue };
        for &to in &dests {
            let d = s.grid().distance_steps(to, tu.cell);
            if d == 1 {
                out.push(Action::MoveThrough { target, to });
            } else if d > unit.reach && move_by_path(s, u, target, to).is_some() {
                // Listed only where the mover ends out of its reach: past the target.
                out.push(Action::MoveBy { target, to });
            }
        }
    }
    out
}

/// Carries out a manoeuvre the checks allowed. `false`: not a manoeuvre.
pub(super) fn perform(x: &mut Exec, u: UnitId, action: &Action) -> bool {
    if x.s().unit(u).is_none() {
        return false;
    }
    let attack = |b: &mut super::Budget| {
        b.actions += 1;
        b.attack = true;
    };
    match action {
        Action::Block | Action::MissileDeflection | Action::RollWithPunch => {
            spend(x, u, attack);
            take(x, u, action);
        }
        Action::Brace => take(x, u, action),
        Action::Disarm { target } | Action::Grab { target } => {
            spend(x, u, attack);
            take(x, u, action);
            let blow = if matches!(action, Action::Disarm { .. }) {
                Blow::Disarm
            } else {
                Blow::Grab
            };
            declare_attack(x, u, *target, false, blow);
        }
        Action::Haymaker { target } => {
            // The blow takes the rest of the Phase and lands at its end (house rule).
            spend(x, u, |b| {
                attack(b);
                b.full = true;
            });
            take(x, u, action);
            x.emit(Phases::event(Ev::Haymaker {
                blow: Some((u, *target)),
            }));
        }
        Action::PresenceAttack { target } => presence(x, u, *target),
        Action::Analyse { target } => {
            spend(x, u, |b| b.actions += 1);
            x.emit(Phases::event(Ev::Analysed {
                unit: u,
                target: Some(*target),
            }));
        }
        Action::Sweep { count } | Action::RapidFire { count } => {
            let ranged = matches!(action, Action::RapidFire { .. });
            spend(x, u, |b| b.full = true);
            take(x, u, action);
            let targets = volley_targets(x.s(), u, ranged);
            for t in targets.into_iter().take(usize::from(*count)) {
                if x.over() || !x.s().units[u.index()].is_active() {
                    break;
                }
                if ranged {
                    // A gun's shots are counted (P-70): one a target.
                    x.spend_shot(u);
                }
                strike(x, u, t, ranged, Blow::Strike);
            }
        }
        Action::MoveBy { target, to } | Action::MoveThrough { target, to } => {
            let (path, at, blow) = if let Action::MoveBy { .. } = action {
                let Some((p, at)) = move_by_path(x.s(), u, *target, *to) else {
                    return true;
                };
                (p, at, Blow::Strike)
            } else {
                let Some(p) = move_through_path(x.s(), u, *target, *to) else {
                    return true;
                };
                let moved = p.cost();
                (p, *to, Blow::MoveThrough { moved })
            };
            spend(x, u, |b| {
                b.moved = true;
                b.full = true;
            });
            take(x, u, action);
            let_go(x, u);
            x.emit(Phases::event(Ev::Blow {
                blow: Some(PendingBlow {
                    unit: u,
                    target: *target,
                    at,
                    blow,
                }),
            }));
            // Neither provokes (the table); readied actions may still cut in.
            x.emit(Phases::event(Ev::Walk { provokes: false }));
            walk(x, u, &path.cells());
        }
        Action::BreakFree => {
            spend(x, u, attack);
            break_free(x, u);
        }
        Action::Release => let_go(x, u),
        _ => return false,
    }
    true
}

/// Puts the manoeuvre of `action` in effect for `u` until its next action.
fn take(x: &mut Exec, u: UnitId, action: &Action) {
    let Some(m) = Man::of(action) else { return };
    let mut stance = stance(Phases::state(x.s()), u).to_vec();
    stance.push(m);
    x.emit(Phases::event(Ev::Stance { unit: u, stance }));
}

/// Aborting to a defensive manoeuvre (Block, Missile Deflection, Roll With A Punch).
pub(super) fn abort_to(x: &mut Exec, u: UnitId, action: &Action) {
    take(x, u, action);
}

/// The stance of `u` ends (its next action begins); so do a pending blow of its and its
/// hold on anyone it can no longer reach.
pub(super) fn at_action_start(x: &mut Exec, u: UnitId) {
    let r = Phases::state(x.s());
    let (had, blow) = (
        !stance(r, u).is_empty(),
        r.man.blow.is_some_and(|b| b.unit == u),
    );
    if had {
        x.emit(Phases::event(Ev::Stance {
            unit: u,
            stance: Vec::new(),
        }));
    }
    if blow {
        x.emit(Phases::event(Ev::Blow { blow: None }));
    }
    let analysed = Phases::state(x.s()).man.analysed.get(u).copied().flatten();
    if analysed.is_some() {
        x.emit(Phases::event(Ev::Analysed {
            unit: u,
            target: None,
        }));
    }
}

/// The end of `u`'s action: a disarm or a daunting on it is over.
pub(super) fn at_action_end(x: &mut Exec, u: UnitId) {
    let r = Phases::state(x.s());
    let (disarmed, daunted) = (
        r.man.disarmed.get(u).copied().unwrap_or(false),
        r.man.daunted.get(u).copied().unwrap_or(false),
    );
    if disarmed {
        x.emit(Phases::event(Ev::Disarmed { unit: u, on: false }));
    }
    // A started full-phase action not completed in the unit's next Phase is lost.
    let now = phase_serial(x.s());
    if Phases::state(x.s())
        .man
        .started
        .get(u)
        .copied()
        .flatten()
        .is_some_and(|at| at < now)
    {
        x.emit(Phases::event(Ev::Started { unit: u, at: None }));
    }
    if daunted {
        x.emit(Phases::event(Ev::Daunted { unit: u, on: false }));
    }
}

/// A moving manoeuvre's blow, if `u` now stands where it falls.
pub(super) fn blow_here(x: &mut Exec, u: UnitId) {
    let Some(b) = Phases::state(x.s()).man.blow else {
        return;
    };
    if b.unit != u || x.s().units[u.index()].cell != b.at {
        return;
    }
    x.emit(Phases::event(Ev::Blow { blow: None }));
    if attack_kind(x.s(), u, b.target, false).is_ok() {
        strike(x, u, b.target, false, b.blow);
    }
}

/// The Phase's Haymakers land, in the order they were thrown, on targets still in reach.
pub(super) fn land_haymakers(x: &mut Exec) {
    let blows = Phases::state(x.s()).man.haymakers.clone();
    if blows.is_empty() {
        return;
    }
    x.emit(Phases::event(Ev::Haymaker { blow: None }));
    for (a, t) in blows {
        if x.over() {
            return;
        }
        let able = x
            .s()
            .unit(a)
            .is_some_and(|au| au.is_active() && !au.has(&Condition::Stunned));
        if !able {
            continue;
        }
        if attack_kind(x.s(), a, t, false).is_ok() {
            strike(x, a, t, false, Blow::Haymaker);
        } else {
            x.emit(Phases::event(Ev::Whiffed { unit: a, target: t }));
        }
    }
}

/// What a hit of `blow` does instead of damage (Disarm, Grab). `true`: done, no damage.
pub(super) fn effect_instead(x: &mut Exec, a: UnitId, t: UnitId, blow: Blow) -> bool {
    match blow {
        Blow::Disarm => {
            x.emit(Phases::event(Ev::Disarmed { unit: t, on: true }));
            true
        }
        Blow::Grab => {
            if let Some(old) = grabbed(x.s(), t) {
                x.set_condition(t, Condition::Grappled { by: old }, false);
            }
            x.set_condition(t, Condition::Grappled { by: a }, true);
            true
        }
        _ => false,
    }
}

/// Break Free: 3d6 + OCV against 10 + the holder's OCV.
fn break_free(x: &mut Exec, u: UnitId) {
    let Some(by) = grabbed(x.s(), u) else { return };
    let ocv = x.s().units[u.index()].stat(names::OCV);
    let needed = x.reckon(
        u,
        "roll needed to break free",
        vec![
            Term::new("base", 10),
            Term::new("holder's OCV", x.s().units[by.index()].stat(names::OCV)),
        ],
    );
    let roll = x.roll(
        Some(u),
        None,
        Purpose::Opposed,
        &ndx(3, 6, ocv),
        Some(needed),
    );
    if roll.total >= needed {
        x.set_condition(u, Condition::Grappled { by }, false);
    }
}

/// A Presence Attack: (presence)d6 against the target's CON; at or over it, the target is
/// daunted (-2 OCV until the end of its next action).
fn presence(x: &mut Exec, u: UnitId, t: UnitId) {
    let turn = x.s().round;
    x.emit(Phases::event(Ev::Presence { unit: u, turn }));
    let dice = x.s().units[u.index()].stat(names::PRESENCE);
    let con = x.s().units[t.index()].stat(names::CON);
    let roll = x.roll(Some(u), None, Purpose::Opposed, &ndx(dice, 6, 0), Some(con));
    if roll.total >= con {
        x.emit(Phases::event(Ev::Daunted { unit: t, on: true }));
    }
}

/// A grabbed unit cannot move: the reason, if `u` is held.
pub(super) fn held_reason(s: &BattleState, u: UnitId, what: &str) -> Option<Rejected> {
    let by = grabbed(s, u)?;
    Some(Rejected::new(format!(
        "{} is held by {}'s Grab: no {what} until it breaks free",
        s.unit_name(u),
        s.unit_name(by)
    )))
}

/// The hit's damage roll after Roll With A Punch (halved, melee only) as terms.
pub(super) fn rolled_terms(r: &State, t: UnitId, raw: i64, ranged: bool) -> Vec<Term> {
    let mut terms = vec![Term::new("rolled", raw)];
    if !ranged && holds(r, t, Man::Roll) {
        terms.push(Term::new("halved: rolls with the punch", raw / 2 - raw));
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(mods: &[(&str, i64)]) -> Vec<(String, i64)> {
        combine(mods.iter().map(|(n, v)| (n.to_string(), *v)).collect())
            .into_iter()
            .map(|t| (t.label, t.value))
            .collect()
    }

    /// P-41 as Fray reads it: the lowest *bonus* counts, and +0 is no bonus, so a manoeuvre
    /// with +0 (Missile Deflection's DCV, Disarm's DCV) leaves the others' lowest bonus
    /// standing; every penalty still adds up.
    #[test]
    fn a_plus_0_manoeuvre_is_no_bonus_and_leaves_the_lowest_bonus_standing() {
        assert_eq!(
            terms(&[("Block", 2), ("Missile Deflection", 0)]),
            vec![("Block".to_string(), 2)]
        );
        assert_eq!(
            terms(&[("Disarm", 0), ("dodging", 3)]),
            vec![("dodging".to_string(), 3)]
        );
        // Two bonuses: the lower alone; penalties after it, each counted.
        assert_eq!(
            terms(&[
                ("dodging", 3),
                ("Grab", -2),
                ("Block", 2),
                ("Roll With A Punch", -2)
            ]),
            vec![
                ("Block (the lowest bonus of 2)".to_string(), 2),
                ("Grab".to_string(), -2),
                ("Roll With A Punch".to_string(), -2),
            ]
        );
        // Nothing but +0: no term at all.
        assert!(terms(&[("Disarm", 0), ("Missile Deflection", 0)]).is_empty());
    }
}
