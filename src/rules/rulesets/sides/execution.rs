//! Execution attacks (S-164..S-175).
//!
//! The text's execution takes a whole minute of stalking (S-166, S-171) and any disturbance
//! spoils it (S-167): longer than a battle's rounds, so in Fray the minute is spent *before*
//! the battle. A level names each assassin and the target it has been stalking in
//! `options.executions`, and the target must start unaware (`options.surprised`). The
//! assassin may then make the execution as its Main action in the surprise round (house rule),
//! as long as the target is still wholly unaware (S-164, S-165): it is surprised, the assassin
//! has not yet moved or acted (the stalk is unspoilt), and no one of the target's side has yet
//! been hurt (the alarm; house rule).
//!
//! - **Ranged** (S-168, S-169, S-170): a DEX/Shoot check, 2d6 + DEX + skill against 8 (the
//!   house rule of every `sides` skill check), +4 within 10 ft (2 squares), +2 within the
//!   weapon's normal range; success hits, whatever the target's AC.
//! - **Melee** (S-172): the blow hits.
//! - **The save** (S-173..S-175): the victim rolls a Physical save at a penalty of the
//!   assassin's combat skill. House rule (the text gives no save numbers): 1d20 + STR − the
//!   assassin's skill against 15. Failed: the victim drops to 0 HP, Mortally Injured (out of
//!   the battle, as every unit at 0 HP in Fray). Passed: the hit does its maximum damage (the
//!   dice's maximum, and a dual-wielder's +2 in melee).

use super::combat::{self, Kind, Spec};
use super::{State, active, names, per};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{BattleState, Condition, Event, Exec, Purpose, UnitId};

/// The DEX/Shoot check's difficulty (house rule, as every `sides` skill check).
pub const CHECK_DIFFICULTY: i64 = 8;
/// The Physical save's target (house rule: the text gives no save numbers).
pub const SAVE_TARGET: i64 = 15;

/// Whether `unit` may execute `target` now (see the module docs); the reason if not.
pub fn check(s: &BattleState, r: &State, unit: UnitId, target: UnitId) -> Result<(), String> {
    let (Some(u), Some(t)) = (s.unit(unit), s.unit(target)) else {
        return Err(format!("there is no {target}"));
    };
    let stalked = s
        .level
        .options
        .executions
        .iter()
        .any(|e| *e.assassin == *u.name && *e.target == *t.name);
    if !stalked {
        return Err(format!(
            "{} has not spent the minute an execution takes stalking {} (the level's \
             options.executions)",
            u.name, t.name
        ));
    }
    if !t.is_active() {
        return Err(format!("{} is already out of the fight", t.name));
    }
    if !(r.surprise && t.has(&Condition::Surprised)) {
        return Err(format!(
            "{} is no longer unaware of danger: an execution is only made in the surprise \
             round on a surprised target (S-164, S-165)",
            t.name
        ));
    }
    let p = per(r, unit);
    if !(p.main && p.mv) {
        return Err(format!(
            "{} has moved or acted: the stalk is spoilt (S-167)",
            u.name
        ));
    }
    if alarm(s, target) {
        return Err(format!(
            "blood has been drawn among {}'s side: the alarm spoils the execution (S-167)",
            t.name
        ));
    }
    let ranged = !s.in_melee_reach(unit, target);
    combat::can_attack(s, unit, target, ranged)
}

/// Whether someone of `target`'s side has been hurt or has fallen: the alarm is raised.
fn alarm(s: &BattleState, target: UnitId) -> bool {
    let Some(side) = s.unit(target).map(|t| t.side) else {
        return true;
    };
    s.units
        .iter()
        .any(|o| o.side == side && (!o.is_active() || o.pool(names::HP) < o.stat(names::HP)))
}

/// The check's bonus for the range (S-169): +4 within 10 ft, +2 within normal range.
pub fn range_bonus(s: &BattleState, unit: UnitId, target: UnitId) -> i64 {
    let (Some(u), Some(t)) = (s.unit(unit), s.unit(target)) else {
        return 0;
    };
    let d = i64::from(s.grid().distance(u.cell, t.cell));
    if d <= 2 {
        4
    } else if d <= u.stat(names::RANGE) {
        2
    } else {
        0
    }
}

/// Carries out an execution already checked by [`check`].
pub fn execute(x: &mut Exec, unit: UnitId, target: UnitId) {
    let s = x.s();
    let ranged = !s.in_melee_reach(unit, target);
    let Some(u) = s.unit(unit) else {
        return;
    };
    let (dex, skill) = (u.stat(names::DEX), u.stat(names::SKILL));
    let spec = Spec {
        attacker: unit,
        target,
        ranged,
        kind: Kind::Normal,
        swarm: 0,
    };
    let hit = if ranged {
        let bonus = dex + skill + range_bonus(s, unit, target);
        let roll = x.roll(
            Some(unit),
            None,
            Purpose::Skill,
            &ndx(2, 6, bonus),
            Some(CHECK_DIFFICULTY),
        );
        roll.total >= CHECK_DIFFICULTY
    } else {
        true
    };
    x.emit(Event::Attacked {
        attacker: unit,
        target,
        ranged,
        hit,
        crit: false,
        spell: None,
    });
    if !hit || !active(x.s(), target) {
        return;
    }
    let strength = x.s().unit(target).map_or(0, |t| t.stat(names::STR));
    let save = x.roll(
        Some(target),
        None,
        Purpose::Save,
        &ndx(1, 20, strength - skill),
        Some(SAVE_TARGET),
    );
    if save.total < SAVE_TARGET {
        // S-174: straight to 0 HP, Mortally Injured.
        let hp = x.s().unit(target).map_or(0, |t| t.pool(names::HP));
        combat::hurt(x, target, hp);
    } else {
        // S-175: the hit's maximum damage: the dice's maximum, and what a hit of this weapon
        // adds to its roll (two weapons' +2 in melee, S-161).
        let top = combat::damage_dice(x.s(), &spec).range().1;
        let most = combat::hit_damage(x.s(), &spec, top);
        combat::hurt(x, target, most);
    }
}
