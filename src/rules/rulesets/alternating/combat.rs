//! Attacks, reactions and damage: who may attack whom, the reactions and their checks, tests
//! with the luck die, advantage, intercepts, damage to endurance and health, death tests and
//! killing strikes.

use super::actions::holds_melee;
use super::{
    Alternating, AttackNote, DEATH_STEP, Ev, LUCK_BONUS, MULTIPLE_ATTACK_PENALTY,
    RESUSCITATE_DIFFICULTY, TASK_DIFFICULTY, names,
};
use crate::rules::battle::common::dice;
use crate::rules::battle::{
    BattleState, Condition, Event, Exec, Interrupt, PendingAttack, Purpose, Reaction, Rejected,
    Resume, Status, Term, Trigger, Unit, UnitId,
};
use crate::rules::dice::DiceExpr;
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;

/// Whether `attacker` may attack `target` (melee or ranged) from where it stands.
pub(super) fn target_ok(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Result<(), Rejected> {
    let Some(t) = s.unit(target) else {
        return Err(Rejected::new(format!("there is no {target}")));
    };
    let a = &s.units[attacker.index()];
    if !s.are_enemies(attacker, target) {
        return Err(Rejected::new(format!(
            "{} is not an enemy of {}",
            t.name, a.name
        )));
    }
    match t.status {
        Status::Dead => return Err(Rejected::new(format!("{} is dead", t.name))),
        Status::Down if ranged => {
            return Err(Rejected::new(format!(
                "a killing strike on {} is made in melee",
                t.name
            )));
        }
        _ => {}
    }
    if ranged {
        let range = a.stat(names::RANGE);
        if range <= 0 {
            return Err(Rejected::new(format!("{} has no ranged weapon", a.name)));
        }
        if a.stat(names::RELOAD_ACTIONS) > 0 && a.pool(names::LOADED) <= 0 {
            return Err(Rejected::new(format!(
                "{}'s weapon is not loaded; Reload first",
                a.name
            )));
        }
        if holds_melee(s, attacker) {
            return Err(Rejected::new(format!(
                "{} holds its melee weapon; Brandish to take up its ranged weapon",
                a.name
            )));
        }
        let d = s.distance(attacker, target) as i64;
        if d > range {
            return Err(Rejected::new(format!(
                "{} is {d} m away; {}'s weapon reaches {range} m",
                t.name, a.name
            )));
        }
        if s.cover(attacker, target) == Cover::Blocked {
            return Err(Rejected::new(format!("{} cannot see {}", a.name, t.name)));
        }
    } else if !holds_melee(s, attacker) {
        return Err(Rejected::new(format!(
            "{} holds its ranged weapon; Brandish to draw its melee weapon",
            a.name
        )));
    } else if !s.in_melee_reach(attacker, target) {
        return Err(Rejected::new(format!(
            "{} is not within {}'s reach",
            t.name, a.name
        )));
    }
    Ok(())
}

pub(super) fn check_react(
    s: &BattleState,
    unit: UnitId,
    reaction: &Reaction,
) -> Result<(), Rejected> {
    let Some(top) = s.interrupts.last() else {
        return Err(Rejected::new("nothing to react to now"));
    };
    check_react_in(s, top, unit, reaction)
}

/// Whether `unit` could answer `trigger` with `reaction` (before the interrupt is raised).
pub(super) fn check_react_with(
    s: &BattleState,
    trigger: &Trigger,
    unit: UnitId,
    reaction: &Reaction,
) -> Result<(), Rejected> {
    let probe = Interrupt {
        trigger: trigger.clone(),
        reactors: vec![unit],
        resume: Resume::Nothing,
    };
    check_react_in(s, &probe, unit, reaction)
}

pub(super) fn check_react_in(
    s: &BattleState,
    top: &Interrupt,
    unit: UnitId,
    reaction: &Reaction,
) -> Result<(), Rejected> {
    let u = &s.units[unit.index()];
    if *reaction == Reaction::Decline {
        return Ok(());
    }
    // After an Intercept the interceptor's defensive action is a free reaction.
    let free = matches!(&top.resume, Resume::Attack(p) if Alternating::note_of(&p.note).free);
    if let (
        Trigger::Attacked { target, .. },
        Reaction::Dodge | Reaction::Parry | Reaction::Block | Reaction::Resist,
    ) = (&top.trigger, reaction)
        && *target != unit
    {
        return Err(Rejected::new(format!(
            "only {} can {} this attack",
            s.units[target.index()].name,
            s.show(reaction)
        )));
    }
    let spend = |what: &str| -> Result<(), Rejected> {
        if u.pool(names::REACTIONS) < 1 && !free {
            return Err(Rejected::new(format!("{} has no reaction left", u.name)));
        }
        if u.pool(names::STAMINA) < 1 {
            return Err(Rejected::new(format!(
                "{} has no stamina left to {what}",
                u.name
            )));
        }
        Ok(())
    };
    match (&top.trigger, reaction) {
        (Trigger::Attacked { .. }, Reaction::Dodge) => spend("dodge"),
        (Trigger::Attacked { .. }, Reaction::Parry) => {
            spend("parry")?;
            if u.pool(names::WEAPON) <= 0 {
                return Err(Rejected::new(format!("{}'s weapon is broken", u.name)));
            }
            Ok(())
        }
        (Trigger::Attacked { .. }, Reaction::Block) => {
            spend("block")?;
            if u.stat(names::BLOCK) <= 0 {
                return Err(Rejected::new(format!("{} has no shield", u.name)));
            }
            if u.pool(names::SHIELD) <= 0 {
                return Err(Rejected::new(format!("{}'s shield is broken", u.name)));
            }
            Ok(())
        }
        (Trigger::KeepConscious { .. }, Reaction::Fortify) => spend("fortify"),
        (Trigger::Attacked { .. }, Reaction::Resist) => {
            let mental = matches!(&top.resume, Resume::Attack(p) if is_mental(s, p));
            if !mental {
                return Err(Rejected::new(format!(
                    "{} can only resist a mental effect (a psychic attack)",
                    u.name
                )));
            }
            if u.pool(names::REACTIONS) < 1 && !free {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            if u.pool(names::FOCUS) < 1 {
                return Err(Rejected::new(format!(
                    "{} has no focus left to resist",
                    u.name
                )));
            }
            Ok(())
        }
        (Trigger::Attacked { target, .. }, Reaction::Intercept) => {
            let t = &s.units[target.index()];
            if *target == unit || t.side != u.side {
                return Err(Rejected::new(format!(
                    "{} cannot intercept for {}",
                    u.name, t.name
                )));
            }
            if u.pool(names::REACTIONS) < 1 {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            if u.pool(names::STAMINA) < 1 {
                return Err(Rejected::new(format!(
                    "{} has no stamina left to intercept",
                    u.name
                )));
            }
            if u.is_prone() || s.grid().distance_steps(u.cell, t.cell) != 1 {
                return Err(Rejected::new(format!(
                    "{} is not standing next to {}",
                    u.name, t.name
                )));
            }
            Ok(())
        }
        (Trigger::Ready { actor }, Reaction::Attack { target }) if target == actor => {
            if u.pool(names::REACTIONS) < 1 {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            target_ok(s, unit, *target, false)
        }
        (_, other) => Err(Rejected::new(format!(
            "{} is not a reaction {} can take now",
            s.show(other),
            u.name
        ))),
    }
}

pub(super) fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    let Some(top) = x.s().interrupts.last().cloned() else {
        return;
    };
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    match &top.trigger {
        Trigger::Attacked { target, .. } => {
            let Resume::Attack(p) = &top.resume else {
                x.emit(Event::Resumed);
                return;
            };
            if *reaction == Reaction::Intercept {
                x.emit(Event::Resumed);
                intercept(x, p, unit);
                return;
            }
            let done = unit == *target
                || x.s()
                    .interrupts
                    .last()
                    .is_some_and(|i| i.reactors.is_empty());
            if done {
                x.emit(Event::Resumed);
                finish_attack(x, p, reaction);
            }
        }
        Trigger::KeepConscious { difficulty } => {
            x.emit(Event::Resumed);
            let stays = *reaction == Reaction::Fortify && fortify(x, unit, *difficulty);
            if !stays {
                x.set_status(unit, Status::Down);
            }
        }
        _ => {
            // A readied attack (or a refusal). When the last reactor has answered, the move
            // goes on after whatever the attack causes.
            let last = x
                .s()
                .interrupts
                .last()
                .is_some_and(|i| i.reactors.is_empty());
            if last {
                x.emit(Event::Resumed);
                x.emit(Alternating::event(Ev::Defer(top.resume.clone())));
            }
            if let Reaction::Attack { target } = reaction {
                x.add_pool(unit, names::REACTIONS, -1);
                x.set_condition(unit, Condition::Holding, false);
                attack(x, unit, *target, false, 0);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests, attacks and damage

/// A test's dice: two dice (an attribute and a skill) plus a bonus.
pub(super) fn test_expr(a: i64, b: i64, bonus: i64) -> DiceExpr {
    dice(&format!("1d{}+1d{}{:+}", a.max(1), b.max(1), bonus))
}

/// Rolls a test (not an attack): the dice, then the luck die, which adds +4 on a 20. Returns
/// whether it reached `against`.
pub(super) fn test(
    x: &mut Exec,
    unit: UnitId,
    purpose: Purpose,
    expr: &DiceExpr,
    against: i64,
) -> bool {
    let roll = x.roll(Some(unit), None, purpose.clone(), expr, Some(against));
    let luck = x.roll(Some(unit), None, Purpose::Luck, &dice("1d20"), Some(20));
    let total = roll.total + if luck.total >= 20 { LUCK_BONUS } else { 0 };
    total >= against
}

pub(super) fn fortify(x: &mut Exec, unit: UnitId, difficulty: i64) -> bool {
    x.add_pool(unit, names::STAMINA, -1);
    x.add_pool(unit, names::REACTIONS, -1);
    let u = x.s().units[unit.index()].clone();
    let bonus = u.stat(names::FORTITUDE) + i64::from(u.has(&Condition::Guarding));
    let expr = test_expr(u.stat(names::STRENGTH), u.stat(names::ATHLETICS), bonus);
    test(x, unit, Purpose::Fortify, &expr, difficulty)
}

pub(super) fn resuscitate(x: &mut Exec, unit: UnitId, target: UnitId) {
    x.set_condition(unit, Condition::Prone, true);
    if x.s().unit(target).is_none_or(|t| t.status != Status::Down) {
        return;
    }
    let u = x.s().units[unit.index()].clone();
    let expr = test_expr(u.stat(names::DEXTERITY), u.stat(names::ATHLETICS), 0);
    if test(x, unit, Purpose::Skill, &expr, RESUSCITATE_DIFFICULTY) {
        if x.s().units[target.index()].pool(names::HEALTH) < 1 {
            x.set_pool(target, names::HEALTH, 1);
        }
        x.set_status(target, Status::Active);
    }
}

/// The attribute, skill and difficulty of the test of the level's task on `cell` (house rule
/// "Short Task": where the level is silent, dexterity + athletics against 8).
pub fn task_test(s: &BattleState, cell: Cell) -> (String, String, i64) {
    let task = s.task_at(cell);
    let attribute = task.and_then(|t| t.attribute.clone());
    let skill = task.and_then(|t| t.skill.clone());
    (
        attribute.unwrap_or_else(|| names::DEXTERITY.to_string()),
        skill.unwrap_or_else(|| names::ATHLETICS.to_string()),
        task.and_then(|t| t.difficulty).unwrap_or(TASK_DIFFICULTY),
    )
}

/// A-62 Short Task (its three actions paid): the test of the task on `cell`; on a success the
/// task's effect happens (a locked door is unlocked); on a failure nothing, and the unit may
/// try again.
pub(super) fn short_task(x: &mut Exec, unit: UnitId, cell: Cell) {
    if x.s().task_check(unit, cell).is_err() {
        return;
    }
    let (attribute, skill, difficulty) = task_test(x.s(), cell);
    let u = &x.s().units[unit.index()];
    let expr = test_expr(u.stat(&attribute), u.stat(&skill), 0);
    if test(x, unit, Purpose::Skill, &expr, difficulty) {
        x.task_done(unit, cell);
    }
}

/// Advantage (positive) or disadvantage (negative) of `attacker` against `target`, with the
/// reasons: flanking and sneak attacks (+1 each), melee against a prone target (+1), ranged
/// against a prone target or one in cover that sought cover (-1 each).
pub(super) fn advantage(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> (i64, Vec<&'static str>) {
    let t = &s.units[target.index()];
    let mut adv = 0;
    let mut why = Vec::new();
    if flanked(s, target) {
        adv += 1;
        why.push("flanking");
    }
    if t.has(&Condition::Surprised) {
        adv += 1;
        why.push("sneak attack");
    }
    if t.is_prone() {
        if ranged {
            adv -= 1;
            why.push("prone vs ranged");
        } else {
            adv += 1;
            why.push("prone vs melee");
        }
    }
    if ranged && t.has(&Condition::InCover) && s.cover(attacker, target) != Cover::None {
        adv -= 1;
        why.push("seeking cover");
    }
    (adv, why)
}

/// Whether `target` has active enemies on two opposite sides (adjacent cells mirrored
/// through its cell).
pub fn flanked(s: &BattleState, target: UnitId) -> bool {
    let t = &s.units[target.index()];
    let foe_at = |c: Cell| {
        s.unit_at(c).is_some_and(|o| {
            let u = &s.units[o.index()];
            u.is_active() && u.side != t.side
        })
    };
    s.grid().neighbours(t.cell).any(|c| {
        let opposite = Cell::new(2 * t.cell.x - c.x, 2 * t.cell.y - c.y);
        foe_at(c) && foe_at(opposite)
    })
}

/// Size difference (attacker minus target): the target's evasion rises and its deflection
/// falls by it.
pub(super) fn size_diff(a: &Unit, t: &Unit) -> i64 {
    a.stat(names::SIZE) - t.stat(names::SIZE)
}

pub(super) fn evasion_against(a: &Unit, t: &Unit) -> i64 {
    t.stat(names::EVASION) + size_diff(a, t) + i64::from(t.has(&Condition::Guarding))
}

/// The seed's damage categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DamageKind {
    /// Bludgeoning, slashing, piercing: reduced by deflection.
    Physical,
    /// Arcane, cold, fire, radiant, shock, void: reduced by deflection.
    Elemental,
    /// Psychic, or a type not specified: not reduced by deflection.
    Typeless,
}

/// The damage type of `a`'s melee or ranged weapon (stat `damage_type` or
/// `ranged_damage_type`): 1 bludgeoning, 2 slashing, 3 piercing (physical); 4 arcane, 5 cold,
/// 6 fire, 7 radiant, 8 shock, 9 void (elemental); 10 psychic, 0 or absent (not specified)
/// typeless.
pub fn damage_kind(a: &Unit, ranged: bool) -> DamageKind {
    let key = if ranged {
        names::RANGED_DAMAGE_TYPE
    } else {
        names::DAMAGE_TYPE
    };
    match a.stat(key) {
        1..=3 => DamageKind::Physical,
        4..=9 => DamageKind::Elemental,
        _ => DamageKind::Typeless,
    }
}

/// Whether a pending attack is a mental effect: its weapon deals psychic damage (house rule
/// "Resist").
pub(super) fn is_mental(s: &BattleState, p: &PendingAttack) -> bool {
    let key = if p.ranged {
        names::RANGED_DAMAGE_TYPE
    } else {
        names::DAMAGE_TYPE
    };
    s.unit(p.attacker).is_some_and(|a| a.stat(key) == PSYCHIC)
}

/// The `damage_type` code of psychic damage, the one mental effect.
pub(super) const PSYCHIC: i64 = 10;

/// The target's deflection against `a`'s weapon, `parry` added: none against typeless damage.
pub(super) fn deflection_against(a: &Unit, t: &Unit, ranged: bool, parry: i64) -> i64 {
    deflection_terms(a, t, ranged, parry)
        .iter()
        .map(|t| t.value)
        .sum()
}

/// [`deflection_against`] as terms, each the negative of what it takes off a hit, for the
/// log: the target's deflection, the size difference and Guard (not below 0 together), then
/// the parry. Typeless damage is neither deflected nor parried: no terms.
pub(super) fn deflection_terms(a: &Unit, t: &Unit, ranged: bool, parry: i64) -> Vec<Term> {
    if damage_kind(a, ranged) == DamageKind::Typeless {
        return Vec::new();
    }
    let mut terms = vec![
        Term::new("deflection", t.stat(names::DEFLECTION)),
        Term::new("larger attacker", -size_diff(a, t)),
        Term::new("guarding", i64::from(t.has(&Condition::Guarding))),
    ];
    let sum: i64 = terms.iter().map(|t| t.value).sum();
    if sum < 0 {
        terms.push(Term::new("deflection no less than 0", -sum));
    }
    terms.push(Term::new("parry", parry));
    terms
}

/// The attack test of `a`: its better attribute die (strength or dexterity; dexterity for
/// ranged) + combat skill die + proficiency + `bonus`.
pub(super) fn attack_expr(a: &Unit, ranged: bool, bonus: i64) -> DiceExpr {
    let attr = if ranged {
        a.stat(names::DEXTERITY)
    } else {
        a.stat(names::STRENGTH).max(a.stat(names::DEXTERITY))
    };
    test_expr(
        attr,
        a.stat(names::COMBAT),
        a.stat(names::PROFICIENCY) + bonus,
    )
}

pub(super) fn weapon(a: &Unit, ranged: bool, crit: bool) -> i64 {
    match (ranged, crit) {
        (false, false) => a.stat(names::WEAPON_DAMAGE),
        (false, true) => a.stat(names::CRIT_DAMAGE),
        (true, false) => a.stat(names::RANGED_DAMAGE),
        (true, true) => a.stat(names::RANGED_CRIT_DAMAGE),
    }
}

pub(super) fn crit_threshold(a: &Unit, ranged: bool) -> i64 {
    let t = if ranged {
        a.stat(names::RANGED_CRIT_THRESHOLD)
    } else {
        a.stat(names::CRIT_THRESHOLD)
    };
    if t <= 0 { 20 } else { t }
}

/// Rolls a test with `adv` advantage: |adv| + 1 rolls, the best (or worst) kept.
pub(super) fn roll_with_advantage(
    x: &mut Exec,
    unit: UnitId,
    purpose: Purpose,
    expr: &DiceExpr,
    adv: i64,
    against: Option<i64>,
) -> i64 {
    let mut kept: Option<i64> = None;
    for _ in 0..=adv.unsigned_abs() {
        let t = x
            .roll(Some(unit), None, purpose.clone(), expr, against)
            .total;
        kept = Some(match kept {
            None => t,
            Some(k) if adv >= 0 => k.max(t),
            Some(k) => k.min(t),
        });
    }
    kept.unwrap_or(0)
}

/// An attack: counts for the multiple attack penalty; the test (with advantage), then the
/// luck die: at or above the weapon's critical threshold the attack cannot miss and deals
/// critical damage; a ranged attack's luck of 1 strikes a random other character within 1 m
/// of the target instead. A unit about to be hit may react (Dodge, Parry, Block).
pub(super) fn attack(x: &mut Exec, attacker: UnitId, target: UnitId, ranged: bool, extra_adv: i64) {
    let before = count_attack(x, attacker);
    attack_counted(x, attacker, target, ranged, extra_adv, before);
}

/// Counts an attack of `attacker` towards the multiple attack penalty; returns
/// how many it made before it this round.
fn count_attack(x: &mut Exec, attacker: UnitId) -> i64 {
    let before = Alternating::state(x.s())
        .attacks
        .get(attacker)
        .copied()
        .unwrap_or(0) as i64;
    x.emit(Alternating::event(Ev::AttackMade { unit: attacker }));
    before
}

/// [`attack`], already counted: `before` attacks came earlier this round.
fn attack_counted(
    x: &mut Exec,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
    extra_adv: i64,
    before: i64,
) {
    let a = x.s().units[attacker.index()].clone();
    if ranged && a.stat(names::RELOAD_ACTIONS) > 0 {
        x.set_pool(attacker, names::LOADED, 0);
    }
    let (adv, _) = advantage(x.s(), attacker, target, ranged);
    let t = x.s().units[target.index()].clone();
    let expr = attack_expr(&a, ranged, -MULTIPLE_ATTACK_PENALTY * before);
    let needed = evasion_against(&a, &t);
    let total = roll_with_advantage(
        x,
        attacker,
        Purpose::Attack,
        &expr,
        adv + extra_adv,
        Some(needed),
    );
    let threshold = crit_threshold(&a, ranged);
    let luck = x
        .roll(
            Some(attacker),
            None,
            Purpose::Luck,
            &dice("1d20"),
            Some(threshold),
        )
        .total;
    let crit = luck >= threshold;
    let mut target = target;
    if ranged && luck <= 1 {
        let t_cell = x.s().units[target.index()].cell;
        let others: Vec<UnitId> = x
            .s()
            .unit_ids()
            .filter(|&o| {
                let u = &x.s().units[o.index()];
                o != target
                    && o != attacker
                    && u.status != Status::Dead
                    && x.s().grid().distance(u.cell, t_cell) <= 1
            })
            .collect();
        if others.len() == 1 {
            target = others[0];
        } else if others.len() > 1 {
            let i = x
                .roll(
                    Some(attacker),
                    None,
                    Purpose::Luck,
                    &dice(&format!("1d{}", others.len())),
                    None,
                )
                .total;
            target = others[(i.max(1) as usize - 1).min(others.len() - 1)];
        }
    }
    let t = x.s().units[target.index()].clone();
    let needed = evasion_against(&a, &t);
    let hit = crit || total >= needed;
    let p = PendingAttack {
        attacker,
        target,
        ranged,
        total,
        needed,
        hit,
        crit,
        note: Alternating::note(AttackNote::default()),
    };
    ask_defenders(x, p);
}

/// Asks the allies who could intercept, then the target, about an attack that is about to hit;
/// finishes it at once if no one can react.
pub(super) fn ask_defenders(x: &mut Exec, p: PendingAttack) {
    let t = x.s().units[p.target.index()].clone();
    let free = Alternating::note_of(&p.note).free;
    let can_defend = t.is_active()
        && (free || t.pool(names::REACTIONS) >= 1)
        && (t.pool(names::STAMINA) >= 1 || (is_mental(x.s(), &p) && t.pool(names::FOCUS) >= 1));
    let trigger = Trigger::Attacked {
        attacker: p.attacker,
        target: p.target,
        total: p.total,
        needed: p.needed,
        hit: p.hit,
    };
    let mut reactors = Vec::new();
    if p.hit && t.is_active() && !free {
        reactors.extend(x.s().allies_of(p.target).into_iter().filter(|&a| {
            a != p.attacker && check_react_with(x.s(), &trigger, a, &Reaction::Intercept).is_ok()
        }));
    }
    if p.hit && can_defend {
        reactors.push(p.target);
    }
    if reactors.is_empty() {
        finish_attack(x, &p, &Reaction::Decline);
    } else {
        x.emit(Event::Interrupted(Interrupt {
            trigger,
            reactors,
            resume: Resume::Attack(Box::new(p)),
        }));
    }
}

/// `ally` steps into the target's place (they swap cells) and becomes the target; the attack's
/// test is compared with its evasion, and it may take a defensive action as a free reaction.
pub(super) fn intercept(x: &mut Exec, p: &PendingAttack, ally: UnitId) {
    x.add_pool(ally, names::STAMINA, -1);
    x.add_pool(ally, names::REACTIONS, -1);
    let (from, to) = (
        x.s().units[ally.index()].cell,
        x.s().units[p.target.index()].cell,
    );
    x.emit(Event::Placed {
        unit: p.target,
        to: from,
    });
    x.emit(Event::Placed { unit: ally, to });
    let a = x.s().units[p.attacker.index()].clone();
    let t = x.s().units[ally.index()].clone();
    let needed = evasion_against(&a, &t);
    let mut q = p.clone();
    q.target = ally;
    q.needed = needed;
    q.hit = p.crit || p.total >= needed;
    q.note = Alternating::note(AttackNote { free: true });
    ask_defenders(x, q);
}

/// The rest of an attack once the target has chosen its reaction.
pub(super) fn finish_attack(x: &mut Exec, p: &PendingAttack, reaction: &Reaction) {
    let a = x.s().units[p.attacker.index()].clone();
    let mut hit = p.hit;
    let mut parry = 0;
    let blocking = *reaction == Reaction::Block;
    let free = Alternating::note_of(&p.note).free;
    if matches!(
        reaction,
        Reaction::Dodge | Reaction::Parry | Reaction::Block
    ) {
        x.add_pool(p.target, names::STAMINA, -1);
        if !free {
            x.add_pool(p.target, names::REACTIONS, -1);
        }
    }
    let t = x.s().units[p.target.index()].clone();
    match reaction {
        Reaction::Dodge => {
            let bonus = i64::from(t.has(&Condition::Guarding));
            let expr = test_expr(t.stat(names::DEXTERITY), t.stat(names::ATHLETICS), bonus);
            if test(x, p.target, Purpose::Dodge, &expr, p.total) {
                hit = false;
            }
        }
        Reaction::Resist => {
            x.add_pool(p.target, names::FOCUS, -1);
            if !free {
                x.add_pool(p.target, names::REACTIONS, -1);
            }
            // Guard's +1 counts for every defence test, this one too.
            let bonus = i64::from(t.has(&Condition::Guarding));
            let expr = test_expr(t.stat(names::WILL), t.stat(names::RESOLVE), bonus);
            if test(x, p.target, Purpose::Resist, &expr, p.total) {
                hit = false;
            }
        }
        Reaction::Parry => {
            parry = if t.stat(names::PARRY) > 0 {
                t.stat(names::PARRY)
            } else {
                1
            };
            x.add_pool(p.target, names::WEAPON, -1);
        }
        _ => {}
    }
    x.emit(Event::Attacked {
        attacker: p.attacker,
        target: p.target,
        ranged: p.ranged,
        hit,
        crit: p.crit && hit,
        spell: None,
    });
    if !hit {
        return;
    }
    let weapon_label = if p.crit { "critical weapon" } else { "weapon" };
    let mut terms = vec![
        Term::new("attack test", p.total.max(0)),
        Term::new(weapon_label, weapon(&a, p.ranged, p.crit)),
    ];
    let lethal = a.stat(names::NONLETHAL) <= 0;
    if blocking {
        terms.push(Term::new("shield's block", -t.stat(names::BLOCK)));
    } else {
        let off = deflection_terms(&a, &t, p.ranged, parry);
        terms.extend(off.into_iter().map(|d| Term::new(d.label, -d.value)));
    }
    let raw: i64 = terms.iter().map(|t| t.value).sum();
    terms.push(Term::new("raised to the minimum, 1", (1 - raw).max(0)));
    let amount = x.reckon(p.target, "damage", terms);
    if blocking {
        // The shield takes the blow first; only what it cannot hold reaches the bearer.
        let shield = t.pool(names::SHIELD);
        x.set_pool(p.target, names::SHIELD, (shield - amount).max(0));
        if amount > shield {
            deal_damage(x, p.target, amount - shield, lethal);
        }
        return;
    }
    deal_damage(x, p.target, amount, lethal);
}

/// Damage to endurance, then health; harmed, bloodied, unconscious, Fortify and death.
pub fn deal_damage(x: &mut Exec, unit: UnitId, amount: i64, lethal: bool) {
    let u = x.s().units[unit.index()].clone();
    if u.status == Status::Dead || amount <= 0 {
        return;
    }
    let end = u.pool(names::ENDURANCE);
    let to_end = end.min(amount);
    x.set_pool(unit, names::ENDURANCE, end - to_end);
    if (end - to_end) * 2 <= u.stat(names::ENDURANCE) {
        x.set_condition(unit, Condition::Harmed, true);
    }
    let excess = amount - to_end;
    if excess <= 0 {
        return;
    }
    let hp = u.pool(names::HEALTH);
    let left = (hp - excess).max(0);
    x.set_pool(unit, names::HEALTH, left);
    x.set_condition(unit, Condition::Bloodied, true);
    if left == 0 {
        x.set_status(unit, Status::Down);
        // Damage beyond the health left risks death, unless it is nonlethal and the unit was
        // not already at zero.
        if excess > hp && (lethal || hp == 0) {
            death_test(x, unit);
        }
        return;
    }
    let missing = u.stat(names::HEALTH) - left;
    if u.status == Status::Active && missing > u.stat(names::CONSTITUTION) {
        let u = &x.s().units[unit.index()];
        if u.pool(names::REACTIONS) >= 1 && u.pool(names::STAMINA) >= 1 {
            x.emit(Event::Interrupted(Interrupt {
                trigger: Trigger::KeepConscious {
                    difficulty: missing,
                },
                reactors: vec![unit],
                resume: Resume::Nothing,
            }));
        } else {
            x.set_status(unit, Status::Down);
        }
    }
}

pub(super) fn death_test(x: &mut Exec, unit: UnitId) {
    let dc = x.s().units[unit.index()].pool(names::DEATH);
    let luck = x
        .roll(Some(unit), None, Purpose::Death, &dice("1d20"), Some(dc))
        .total;
    if luck >= dc {
        x.add_pool(unit, names::DEATH, DEATH_STEP);
    } else {
        x.set_status(unit, Status::Dead);
    }
}

/// A killing strike on an unconscious enemy: a combat-skill test with advantage against its
/// constitution kills it; a failure makes a sneak attack instead. It is an attack: it counts
/// towards the multiple attack penalty and takes it; the sneak attack after a
/// failure is the same attack, not counted twice.
pub(super) fn killing_strike(x: &mut Exec, attacker: UnitId, target: UnitId) {
    let a = x.s().units[attacker.index()].clone();
    let con = x.s().units[target.index()].stat(names::CONSTITUTION);
    let before = count_attack(x, attacker);
    let expr = dice(&format!(
        "1d{}{:+}",
        a.stat(names::COMBAT).max(1),
        -MULTIPLE_ATTACK_PENALTY * before
    ));
    let best = roll_with_advantage(x, attacker, Purpose::Attack, &expr, 1, Some(con));
    if best >= con {
        x.set_status(target, Status::Dead);
    } else {
        attack_counted(x, attacker, target, false, 1, before);
    }
}
