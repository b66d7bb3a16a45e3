//! Attacks, the Dodge reaction, and damage.

use super::{ActionPoints, AttackKind, Ev, names, turns};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Condition, Event, Exec, Interrupt, PendingAttack, Purpose, Reaction, Resume, Status, Term,
    Trigger, Unit, UnitId,
};
use crate::rules::dice::DiceExpr;
use crate::rules::rulesets::Member;

pub(super) fn declare_attack(x: &mut Exec, attacker: UnitId, target: UnitId, kind: AttackKind) {
    let pending = PendingAttack {
        attacker,
        target,
        ranged: kind != AttackKind::Melee,
        total: 0,
        needed: 0,
        hit: false,
        crit: false,
        note: ActionPoints::note(kind),
    };
    let t = &x.s().units[target.index()];
    if t.is_active() && t.pool(names::AP) >= 1 && t.stat(names::DODGE) > 0 {
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Targeted {
                attacker,
                ranged: kind != AttackKind::Melee,
            },
            reactors: vec![target],
            resume: Resume::Attack(Box::new(pending)),
        }));
    } else {
        resolve_attack(x, &pending);
    }
}

pub(super) fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    if *reaction == Reaction::Dodge {
        x.add_pool(unit, names::AP, -1);
        x.set_condition(unit, Condition::Dodging, true);
    }
    let Some(top) = x.s().interrupts.last().cloned() else {
        return;
    };
    if !top.reactors.is_empty() {
        return;
    }
    x.emit(Event::Resumed);
    if let Resume::Attack(p) = top.resume {
        resolve_attack(x, &p);
        x.set_condition(p.target, Condition::Dodging, false);
    }
    turns::after_action(x);
}

pub(super) fn resolve_attack(x: &mut Exec, p: &PendingAttack) {
    let kind = ActionPoints::note_of(&p.note);
    let a = x.s().units[p.attacker.index()].clone();
    let t = x.s().units[p.target.index()].clone();
    let pressing = ActionPoints::state(x.s()).pressing == Some(p.attacker);
    if pressing {
        x.emit(ActionPoints::event(Ev::Pressing {
            unit: p.attacker,
            on: false,
        }));
    }
    if !a.is_active() || !t.is_active() {
        return;
    }
    let press = if pressing { a.stat(names::PRESS) } else { 0 };
    let defense = x.reckon(p.target, "defense", defense_terms(&t));
    let roll = x.roll(
        Some(p.attacker),
        None,
        Purpose::Attack,
        &ndx(1, 20, a.stat(names::ATTACK) + press),
        Some(defense),
    );
    let hit = roll.total >= defense;
    // House rule X-36: a telling blow, or an attack dodged, gives Advantage to a unit whose
    // Combat Style can use it.
    if hit && !pressing && roll.total >= defense + 5 {
        gain_advantage(x, p.attacker);
    } else if !hit && t.has(&Condition::Dodging) {
        gain_advantage(x, p.target);
    }
    x.emit(Event::Attacked {
        attacker: p.attacker,
        target: p.target,
        ranged: kind != AttackKind::Melee,
        hit,
        crit: false,
        spell: (kind == AttackKind::Spell).then(|| super::SPELL.to_string()),
    });
    if !hit {
        return;
    }
    let (dice, armor) = damage_of(&a, &t, kind);
    let dmg = x.roll(Some(p.attacker), None, Purpose::Damage, &dice, None);
    let raw = dmg.total - armor;
    // House rule: a hit deals at least 1, whatever the armor.
    let amount = x.reckon(
        p.target,
        "damage",
        vec![
            Term::new("rolled", dmg.total),
            Term::new("armor", -armor),
            Term::new("pressing the Advantage", press),
            Term::new("raised to the minimum, 1", (1 - raw - press).max(0)),
        ],
    );
    x.add_pool(p.target, names::HP, -amount);
    if x.s().units[p.target.index()].pool(names::HP) <= 0 {
        x.set_status(p.target, Status::Down);
    }
}

/// `unit` gains Advantage (house rule X-36) if its Combat Style can use it and it has none.
fn gain_advantage(x: &mut Exec, unit: UnitId) {
    let has = ActionPoints::state(x.s()).advantage.contains(&unit);
    if !has && x.s().units[unit.index()].stat(names::PRESS) > 0 {
        x.emit(ActionPoints::event(Ev::Advantage { unit, on: true }));
    }
}

/// The number an attack on `t` must reach: 10 + defense, + dodge while dodging, +2 guarding.
pub(super) fn defense_of(t: &Unit) -> i64 {
    defense_terms(t).iter().map(|t| t.value).sum()
}

/// [`defense_of`] as terms, for the log.
pub(super) fn defense_terms(t: &Unit) -> Vec<Term> {
    let mut terms = vec![
        Term::new("base", 10),
        Term::new("defense", t.stat(names::DEFENSE)),
    ];
    if t.has(&Condition::Dodging) {
        terms.push(Term::new("dodging", t.stat(names::DODGE)));
    }
    if t.has(&Condition::Guarding) {
        terms.push(Term::new("guarding", 2));
    }
    terms
}

/// Damage dice of `a`'s attack of `kind` and the armor of `t` that it subtracts.
pub(super) fn damage_of(a: &Unit, t: &Unit, kind: AttackKind) -> (DiceExpr, i64) {
    match kind {
        AttackKind::Melee => (
            ndx(
                a.stat(names::DAMAGE_DICE),
                a.stat(names::DAMAGE_DIE),
                a.stat(names::DAMAGE_BONUS),
            ),
            t.stat(names::ARMOR),
        ),
        AttackKind::Ranged => (
            ndx(
                a.stat(names::RANGED_DAMAGE_DICE),
                a.stat(names::RANGED_DAMAGE_DIE),
                a.stat(names::RANGED_DAMAGE_BONUS),
            ),
            t.stat(names::ARMOR),
        ),
        AttackKind::Spell => (
            ndx(
                a.stat(names::SPELL_DAMAGE_DICE),
                a.stat(names::SPELL_DAMAGE_DIE),
                0,
            ),
            0,
        ),
    }
}
