//! The spells of `segments` (G-57..G-66): which a caster knows and has left, whom each may be
//! aimed at, and what each does when it goes off. Only the casting time (G-57..G-60) and the
//! haste spell's extra attack routine (G-66) come from the text; the spells themselves and
//! their effects are house rule (spells) in `assets/rulesets/segments.ron`, with their numbers
//! in the casters' stats.
//!
//! - **Magic Missile**: `spell_missiles` darts of damage at an enemy; they never miss.
//! - **Haste** (G-66): an ally (or the caster) gains one attack routine a round and twice its
//!   movement for `haste_rounds` rounds.
//! - **Cure Light Wounds**: heals an ally next to the caster (or the caster) by
//!   1d`cure_die`, never above its hit points.
//! - **Hold Person**: an enemy that fails its saving throw (a d20 under its `save`) takes no
//!   turns and makes no reactions for `hold_rounds` rounds, and is hit at +4; a spell it was
//!   casting is spoiled.
//! - **Shield**: for `shield_rounds` rounds the caster's AC is at worst `shield_ac` (at worst
//!   `shield_missile_ac` against missiles), and Magic Missile does it no harm.
//!
//! An effect lasts from the segment its spell goes off for its rounds of ten segments (counted
//! in ticks, so it runs on across rounds); [`Ev::Enchanted`] starts it, [`Ev::Expired`] ends it.

use super::names::{
    CURE_DIE, HASTE_ROUNDS, HOLD_ROUNDS, HP, SAVE, SHIELD_AC, SHIELD_MISSILE_AC, SHIELD_ROUNDS,
    SPELL_RANGE,
};
use super::turns::stat;
use super::{Ev, SEGMENTS, Segments, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{BattleState, Condition, Exec, Purpose, Rejected, Spell, Term, UnitId};
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;

/// The stats and pool of one spell: slots per battle, the pool of slots left, the casting
/// time in segments.
pub(crate) struct SpellStats {
    pub slots: &'static str,
    pub pool: &'static str,
    pub casting_time: &'static str,
}

pub(crate) fn stats_of(spell: Spell) -> SpellStats {
    use super::names::*;
    let (slots, pool, casting_time) = match spell {
        Spell::MagicMissile => (SPELL_SLOTS, SPELLS, SPELL_CASTING_TIME),
        Spell::Haste => (HASTE_SLOTS, HASTE, HASTE_CASTING_TIME),
        Spell::CureLightWounds => (CURE_SLOTS, CURE, CURE_CASTING_TIME),
        Spell::HoldPerson => (HOLD_SLOTS, HOLD, HOLD_CASTING_TIME),
        Spell::Shield => (SHIELD_SLOTS, SHIELD, SHIELD_CASTING_TIME),
    };
    SpellStats {
        slots,
        pool,
        casting_time,
    }
}

/// Whether `u` knows `spell` (it may have no casting of it left): a spell range and a slot.
pub(crate) fn knows(s: &BattleState, u: UnitId, spell: Spell) -> bool {
    stat(s, u, SPELL_RANGE) > 0 && stat(s, u, stats_of(spell).slots) > 0
}

/// Whether `u` can still cast `spell` (it knows it and has a slot of it left).
pub(crate) fn can_cast(s: &BattleState, u: UnitId, spell: Spell) -> bool {
    knows(s, u, spell) && s.unit(u).is_some_and(|x| x.pool(stats_of(spell).pool) > 0)
}

/// The spells `u` can still cast, in [`Spell::ALL`] order.
pub(crate) fn castable(s: &BattleState, u: UnitId) -> Vec<Spell> {
    Spell::ALL
        .into_iter()
        .filter(|&sp| can_cast(s, u, sp))
        .collect()
}

/// Segments of casting `spell` takes `u` (at least 1).
pub(crate) fn casting_time_of(s: &BattleState, u: UnitId, spell: Spell) -> u32 {
    stat(s, u, stats_of(spell).casting_time).clamp(1, 30) as u32
}

/// Whom `spell` is aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Aim {
    Enemy,
    /// An ally or the caster, within `spell_range`.
    Ally,
    /// An ally next to the caster, or the caster.
    Touch,
    /// The caster only.
    Caster,
}

pub(crate) fn aim(spell: Spell) -> Aim {
    match spell {
        Spell::MagicMissile | Spell::HoldPerson => Aim::Enemy,
        Spell::Haste => Aim::Ally,
        Spell::CureLightWounds => Aim::Touch,
        Spell::Shield => Aim::Caster,
    }
}

/// Whether `target` may be named for `caster`'s `spell` when it is declared (who, not where:
/// range and sight are checked when casting begins).
pub(crate) fn declarable(
    s: &BattleState,
    caster: UnitId,
    target: UnitId,
    spell: Spell,
) -> Result<(), Rejected> {
    let who = s.unit_name(caster);
    let Some(t) = s.unit(target) else {
        return Err(Rejected::new(format!("there is no {target}")));
    };
    if !t.is_active() {
        return Err(Rejected::new(format!(
            "{} is not in the fight; {who} must aim {} at someone who is",
            t.name,
            spell.name()
        )));
    }
    let ok = match aim(spell) {
        Aim::Enemy => s.are_enemies(caster, target),
        Aim::Ally | Aim::Touch => t.side == s.units[caster.index()].side,
        Aim::Caster => target == caster,
    };
    if ok {
        return Ok(());
    }
    let whom = match aim(spell) {
        Aim::Enemy => "an enemy",
        Aim::Ally => "an ally in range or itself",
        Aim::Touch => "an ally next to it or itself",
        Aim::Caster => "itself",
    };
    Err(Rejected::new(format!(
        "{} is aimed at {whom}, not at {}",
        spell.name(),
        t.name
    )))
}

/// Whether `caster` may begin `spell` at `target` from where both stand (enemy spells: see
/// [`super::combat::target_ok`]).
pub(crate) fn ally_target_ok(
    s: &BattleState,
    caster: UnitId,
    target: UnitId,
    spell: Spell,
) -> Result<(), Rejected> {
    declarable(s, caster, target, spell)?;
    let who = s.unit_name(caster);
    let t = &s.units[target.index()];
    if t.pool(HP) <= 0 {
        return Err(Rejected::new(format!(
            "{} is already beaten: it falls when this segment ends",
            t.name
        )));
    }
    let d = i64::from(s.distance(caster, target));
    let reach = match aim(spell) {
        Aim::Touch => 1,
        Aim::Caster => 0,
        _ => stat(s, caster, SPELL_RANGE),
    };
    if d > reach {
        return Err(Rejected::new(if reach == 1 {
            format!(
                "{} is not next to {who}: {} is cast by touch",
                t.name,
                spell.name()
            )
        } else {
            format!(
                "{} is {d} squares from {who}; its spell reaches {reach}",
                t.name
            )
        }));
    }
    if d > 1 && s.cover(caster, target) == Cover::Blocked {
        return Err(Rejected::new(format!("{who} cannot see {}", t.name)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Effects under way

/// Whether `u` is hasted now.
pub(crate) fn hasted(r: &State, u: UnitId) -> bool {
    r.at(u).hasted_until >= r.tick.max(1)
}

/// Whether `u` is held now.
pub(crate) fn held(r: &State, u: UnitId) -> bool {
    r.at(u).held_until >= r.tick.max(1)
}

/// Whether `u` is shielded now.
pub(crate) fn shielded(r: &State, u: UnitId) -> bool {
    r.at(u).shielded_until >= r.tick.max(1)
}

/// `u`'s armour class against an attack (`missile`: a missile), with its Shield.
pub(crate) fn armour_class(s: &BattleState, u: UnitId, missile: bool) -> i64 {
    let ac = stat(s, u, super::names::AC);
    if !shielded(Segments::state(s), u) {
        return ac;
    }
    ac.min(stat(
        s,
        u,
        if missile {
            SHIELD_MISSILE_AC
        } else {
            SHIELD_AC
        },
    ))
}

/// Ticks an effect of `rounds` rounds lasts, from the segment after tick `now`.
fn until(now: u32, rounds: i64) -> u32 {
    now + SEGMENTS * rounds.clamp(1, 100) as u32
}

/// The spell of `caster` goes off at `target` (`tick`: its last casting segment). Magic
/// Missile's damage is dealt by the caller (it may spoil, kill and be deferred like a blow).
pub(crate) fn go_off(x: &mut Exec, caster: UnitId, target: UnitId, spell: Spell, tick: u32) {
    match spell {
        Spell::MagicMissile => {}
        Spell::Haste => {
            let rounds = stat(x.s(), caster, HASTE_ROUNDS);
            enchant(x, target, spell, until(tick, rounds));
        }
        Spell::Shield => {
            let rounds = stat(x.s(), caster, SHIELD_ROUNDS);
            enchant(x, target, spell, until(tick, rounds));
        }
        Spell::CureLightWounds => {
            let die = stat(x.s(), caster, CURE_DIE).max(1);
            let rolled = x
                .roll(Some(caster), None, Purpose::Spell, &ndx(1, die, 0), None)
                .total;
            let t = &x.s().units[target.index()];
            let wounds = (stat(x.s(), target, HP) - t.pool(HP)).max(0);
            let healed = x.reckon(
                target,
                "healing",
                vec![
                    Term::new("rolled", rolled),
                    Term::new("no more than its wounds", (wounds - rolled).min(0)),
                ],
            );
            if healed > 0 {
                x.add_pool(target, HP, healed);
            }
        }
        Spell::HoldPerson => {
            let save = stat(x.s(), target, SAVE);
            let roll = x.roll(
                Some(target),
                None,
                Purpose::Resist,
                &ndx(1, 20, 0),
                Some(save),
            );
            if roll.total >= save {
                x.emit(Segments::event(Ev::Resisted {
                    unit: target,
                    spell,
                }));
                return;
            }
            let rounds = stat(x.s(), caster, HOLD_ROUNDS);
            enchant(x, target, spell, until(tick, rounds));
            if super::turns::is_casting(Segments::state(x.s()), target) {
                super::combat::spoil(x, target);
            }
        }
    }
}

fn enchant(x: &mut Exec, unit: UnitId, spell: Spell, until: u32) {
    x.emit(Segments::event(Ev::Enchanted { unit, spell, until }));
    if spell == Spell::HoldPerson {
        x.set_condition(unit, Condition::Stunned, true);
    }
}

/// The end of segment `tick`: effects that last no longer end.
pub(crate) fn expire(x: &mut Exec, tick: u32) {
    let r = Segments::state(x.s());
    let mut ended = Vec::new();
    for u in x.s().unit_ids() {
        let m = r.at(u);
        for (spell, until) in [
            (Spell::Haste, m.hasted_until),
            (Spell::HoldPerson, m.held_until),
            (Spell::Shield, m.shielded_until),
        ] {
            if until == tick && x.s().units[u.index()].is_active() {
                ended.push((u, spell));
            }
        }
    }
    for (unit, spell) in ended {
        x.emit(Segments::event(Ev::Expired { unit, spell }));
        if spell == Spell::HoldPerson {
            x.set_condition(unit, Condition::Stunned, false);
        }
    }
}
