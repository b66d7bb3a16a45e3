//! Attacks in `sides`: the attack roll with the seed's situation modifiers (S-107..S-126),
//! damage and Shock (S-127..S-142), screening (S-71..S-76), Swarm Attacks (S-61..S-64),
//! shoves and grapples (S-143..S-152), dual wielding (S-159..S-163); and the reactions:
//! who may answer an interrupt and how (attacks of opportunity, Snap Attacks, Total Defense,
//! held actions).

use super::actions::spend;
use super::names;
use super::{Ev, Sides, State, active, can_instant, grapplers_of, held, moves, per};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    BattleState, Condition, Event, Exec, Interrupt, PendingAttack, Purpose, Reaction, Resume,
    Status, Term, Trigger, Unit, UnitId,
};
use crate::rules::dice::DiceExpr;
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::sight::Cover;

/// What kind of attack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// Make a Melee or Ranged Attack.
    #[default]
    Normal,
    /// The attack at the end of a Charge: +2 (S-65).
    Charge,
    /// A Snap Attack: -4 (S-57).
    Snap,
    /// An attack of opportunity.
    Opportunity,
    /// A shove: knock prone, or push to `push` (S-143).
    Shove { prone: bool, push: Option<Cell> },
    /// A grapple (S-146).
    Grapple,
}

/// An attack about to be rolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub attacker: UnitId,
    pub target: UnitId,
    pub ranged: bool,
    pub kind: Kind,
    /// Swarm assailants helping (0 for an ordinary attack).
    pub swarm: i64,
}

/// What a paused attack notes of itself beyond attacker, target and range: its kind and its
/// swarm ([`crate::rules::rulesets::Ruleset::Note`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Note {
    pub kind: Kind,
    pub swarm: i64,
}

/// The attack a paused [`PendingAttack`] stands for.
pub fn decode(p: &PendingAttack) -> Spec {
    let note = Sides::note_of(&p.note);
    Spec {
        attacker: p.attacker,
        target: p.target,
        ranged: p.ranged,
        kind: note.kind,
        swarm: note.swarm,
    }
}

// ---------------------------------------------------------------------------------------------
// Who can attack whom

/// Whether an enemy that could strike `u` in melee stands next to it ("in melee", S-56).
pub fn in_melee(s: &BattleState, u: UnitId) -> bool {
    !s.enemies_in_reach_of(u).is_empty()
}

/// Whether `a` may attack `t` now, melee or ranged (S-52, S-54, S-56), and why not.
pub fn can_attack(s: &BattleState, a: UnitId, t: UnitId, ranged: bool) -> Result<(), String> {
    let Some(au) = s.unit(a) else {
        return Err(format!("there is no {a}"));
    };
    let Some(tu) = s.unit(t) else {
        return Err(format!("there is no {t}"));
    };
    if a == t || !s.are_enemies(a, t) {
        return Err(format!("{} is not an enemy of {}", tu.name, au.name));
    }
    if !tu.is_active() {
        return Err(format!("{} is already out of the fight", tu.name));
    }
    if !ranged {
        if !s.in_melee_reach(a, t) {
            return Err(format!("{} is not within {}'s reach", tu.name, au.name));
        }
        return Ok(());
    }
    let range = au.stat(names::RANGE);
    if range <= 0 {
        return Err(format!("{} has no bow or thrown weapon", au.name));
    }
    // S-38, S-93: a crossbow shoots once, then must be reloaded.
    s.loaded_check(a)?;
    if held(s, a) {
        return Err(format!(
            "{} is in a grapple and can fight only unarmed",
            au.name
        ));
    }
    let long = range.max(au.stat(names::LONG_RANGE));
    let d = i64::from(s.distance(a, t));
    if d > long {
        return Err(format!(
            "{} is {d} squares away; {}'s weapon reaches {long} at most",
            tu.name, au.name
        ));
    }
    if s.cover(a, t) == Cover::Blocked {
        return Err(format!("{} cannot see {}", au.name, tu.name));
    }
    if au.stat(names::TWO_HANDED_RANGED) > 0
        && let Some(&e) = s.enemies_in_reach_of(a).first()
    {
        return Err(format!(
            "{} cannot shoot a bow with {} in melee range",
            au.name,
            s.unit_name(e)
        ));
    }
    Ok(())
}

/// Whether `a` can strike `t` with some weapon now.
pub fn weapon_reaches(s: &BattleState, a: UnitId, t: UnitId) -> bool {
    can_attack(s, a, t, false).is_ok() || can_attack(s, a, t, true).is_ok()
}

/// Whether `u` may Make a Snap Attack on `victim` now (S-57..S-59): trained (`snap_attack`),
/// Main action unspent, and able to strike it.
pub fn snap_ok(s: &BattleState, u: UnitId, victim: UnitId) -> bool {
    s.unit(u).is_some_and(|x| x.stat(names::SNAP_ATTACK) > 0)
        && can_instant(s, u)
        && per(Sides::state(s), u).main
        && weapon_reaches(s, u, victim)
}

fn dual(u: &Unit) -> bool {
    u.stat(names::DUAL_WIELD) > 0 && u.stat(names::SKILL) >= 1
}

/// A melee attack made unarmed: fighting in a grapple (S-151), or with no melee weapon.
fn unarmed(s: &BattleState, spec: &Spec) -> bool {
    !spec.ranged
        && (held(s, spec.attacker)
            || s.unit(spec.attacker)
                .is_some_and(|u| u.stat(names::DAMAGE_DICE) <= 0))
}

/// Unarmed damage: 1d(unarmed_die) + STR + Brawl (S-129).
fn unarmed_dice(u: &Unit) -> DiceExpr {
    ndx(
        1,
        u.stat(names::UNARMED_DIE).max(1),
        u.stat(names::STR) + u.stat(names::SKILL),
    )
}

/// The damage dice of the attack (S-127).
pub(super) fn damage_dice(s: &BattleState, spec: &Spec) -> DiceExpr {
    let Some(u) = s.unit(spec.attacker) else {
        return ndx(0, 1, 0);
    };
    if unarmed(s, spec) {
        unarmed_dice(u)
    } else if spec.ranged {
        ndx(
            u.stat(names::RANGED_DAMAGE_DICE),
            u.stat(names::RANGED_DAMAGE_DIE),
            u.stat(names::RANGED_DAMAGE_BONUS),
        )
    } else {
        ndx(
            u.stat(names::DAMAGE_DICE),
            u.stat(names::DAMAGE_DIE),
            u.stat(names::DAMAGE_BONUS),
        )
    }
}

/// The target's AC now: +2 in Total Defense (S-81), -2 after charging (S-66).
pub fn ac_of(s: &BattleState, t: UnitId) -> i64 {
    ac_terms(s, t).iter().map(|t| t.value).sum()
}

/// [`ac_of`] as the terms it is made of, for the log.
pub fn ac_terms(s: &BattleState, t: UnitId) -> Vec<Term> {
    let Some(u) = s.unit(t) else {
        return vec![Term::new("AC", 0)];
    };
    let mut terms = vec![Term::new("AC", u.stat(names::AC))];
    if u.has(&Condition::TotalDefense) {
        terms.push(Term::new("Total Defense", 2));
    }
    if u.has(&Condition::Charging) {
        terms.push(Term::new("charging", -2));
    }
    terms
}

/// The Charge's +2 on a thrown attack, in words (S-65 gives it to melee and thrown alike).
pub const CHARGE_THROWN: &str = "charge (a thrown attack gets it too)";

/// The attack bonus with every situation modifier, and the modifiers in words.
pub fn attack_bonus(s: &BattleState, spec: &Spec) -> (i64, Vec<String>) {
    let terms = attack_terms(s, spec);
    let notes = terms
        .iter()
        .skip(1)
        .map(|t| format!("{} {:+}", t.label, t.value))
        .collect();
    (terms.iter().map(|t| t.value).sum(), notes)
}

/// The attack bonus as terms: the unit's bonus first, then every situation modifier.
pub fn attack_terms(s: &BattleState, spec: &Spec) -> Vec<Term> {
    let (Some(a), Some(t)) = (s.unit(spec.attacker), s.unit(spec.target)) else {
        return vec![Term::new("attack bonus", 0)];
    };
    let mut b = vec![Term::new("attack bonus", a.stat(names::ATTACK_BONUS))];
    let add = |b: &mut Vec<Term>, m: i64, why: &str| b.push(Term::new(why, m));
    if dual(a) {
        add(&mut b, -1, "two weapons");
    }
    match spec.kind {
        // S-65: the +2 is for the attack a charge ends with, melee or thrown; the log says so
        // for a thrown one, which a player might not expect to get it.
        Kind::Charge if spec.ranged => add(&mut b, 2, CHARGE_THROWN),
        Kind::Charge => add(&mut b, 2, "charge"),
        Kind::Snap => add(&mut b, -4, "snap attack"),
        _ => {}
    }
    if spec.swarm > 0 {
        add(&mut b, 2 * spec.swarm.min(3), "swarm");
    }
    let adjacent = s.grid().distance_steps(a.cell, t.cell) == 1;
    if t.is_prone() {
        if !spec.ranged || adjacent {
            add(&mut b, 2, "prone target");
        } else {
            add(&mut b, -2, "distant prone target");
        }
    }
    if a.is_prone() && !spec.ranged {
        add(&mut b, -4, "attacking while prone");
    }
    if spec.ranged {
        if i64::from(s.distance(spec.attacker, spec.target)) > a.stat(names::RANGE) {
            add(&mut b, -2, "long range");
        }
        if in_melee(s, spec.attacker) {
            add(&mut b, -4, "thrown in melee");
        }
        // S-125: under fog, a target the shooter's side sees but the shooter does not (the
        // dark beyond its sight range) is fired at where it is known to be.
        if let Some(k) = &s.fog
            && !crate::rules::fog::sees(&s.terrain, k.sight, a.cell, t.cell)
        {
            add(&mut b, -4, "unseen target");
        }
    }
    match s.cover(spec.attacker, spec.target) {
        Cover::None => {}
        Cover::Half => add(&mut b, -2, "half cover"),
        Cover::Full | Cover::Blocked => add(&mut b, -4, "full cover"),
    }
    b
}

/// The Shock the attack inflicts on a miss before shields and Total Defense (S-131..S-139):
/// melee weapons only; when the target's AC is at or under the Shock's AC, or always for a
/// Swarm strike (S-64).
pub fn shock_base(s: &BattleState, spec: &Spec) -> i64 {
    if spec.ranged || matches!(spec.kind, Kind::Shove { .. } | Kind::Grapple) || unarmed(s, spec) {
        return 0;
    }
    let Some(a) = s.unit(spec.attacker) else {
        return 0;
    };
    let shock = a.stat(names::SHOCK);
    if shock <= 0 {
        return 0;
    }
    if spec.swarm > 0 || ac_of(s, spec.target) <= a.stat(names::SHOCK_AC) {
        shock
    } else {
        0
    }
}

/// What Shock a miss would do now, and what would stop it: Total Defense (S-81), or the
/// shield's one ignored Shock a round (S-140; not against a Swarm, S-64).
pub fn miss_shock(s: &BattleState, spec: &Spec) -> (i64, Option<&'static str>) {
    let base = shock_base(s, spec);
    if base <= 0 {
        return (0, None);
    }
    let Some(t) = s.unit(spec.target) else {
        return (0, None);
    };
    if t.has(&Condition::TotalDefense) {
        return (0, Some("Total Defense"));
    }
    if spec.swarm == 0
        && t.stat(names::SHIELD) > 0
        && !per(Sides::state(s), spec.target).shield_used
    {
        return (0, Some("shield"));
    }
    (base, None)
}

/// Whether the paused attack will do something to its target (damage, Shock, a shove or a
/// grapple) if nothing intervenes.
pub fn would_hurt(s: &BattleState, p: &PendingAttack) -> bool {
    let spec = decode(p);
    let hit = p.total >= ac_of(s, spec.target);
    match spec.kind {
        Kind::Shove { .. } | Kind::Grapple => hit,
        _ => hit || miss_shock(s, &spec).0 > 0,
    }
}

/// Whether Total Defense, taken now by the target, would change the paused attack's outcome
/// (S-83): turn a hit into a miss, or stop a miss's Shock.
pub fn total_defense_helps(s: &BattleState, p: &PendingAttack) -> bool {
    let spec = decode(p);
    let t = spec.target;
    let Some(tu) = s.unit(t) else {
        return false;
    };
    if !can_instant(s, t) || !per(Sides::state(s), t).main || tu.has(&Condition::TotalDefense) {
        return false;
    }
    let ac = ac_of(s, t);
    if p.total >= ac {
        p.total < ac + 2
    } else {
        !matches!(spec.kind, Kind::Shove { .. } | Kind::Grapple) && miss_shock(s, &spec).0 > 0
    }
}

/// The allies who swarmed `t` this round and still count for `a`'s strike: standing, on
/// `a`'s side, with `t` in their weapon's range (at most three, S-61, S-62).
pub fn swarm_assailants(s: &BattleState, a: UnitId, t: UnitId) -> Vec<UnitId> {
    let side = s.unit(a).map(|u| u.side);
    Sides::state(s)
        .swarms
        .iter()
        .find(|w| w.0 == t)
        .map(|w| {
            w.1.iter()
                .copied()
                .filter(|&x| {
                    x != a
                        && active(s, x)
                        && s.unit(x).map(|u| u.side) == side
                        && weapon_reaches(s, x, t)
                })
                .take(3)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `a` may join a swarm on `t` (S-61).
pub fn can_swarm(s: &BattleState, r: &State, a: UnitId, t: UnitId) -> Result<(), String> {
    if !weapon_reaches(s, a, t) {
        return Err(format!(
            "{} is not within range of {}'s weapon",
            s.unit_name(t),
            s.unit_name(a)
        ));
    }
    let joined: &[UnitId] = r
        .swarms
        .iter()
        .find(|w| w.0 == t)
        .map_or(&[], |w| w.1.as_slice());
    if joined.contains(&a) {
        return Err(format!(
            "{} has already joined the swarm on {}",
            s.unit_name(a),
            s.unit_name(t)
        ));
    }
    if joined.len() >= 3 {
        return Err(format!(
            "three allies already swarm {}; one of them strikes now",
            s.unit_name(t)
        ));
    }
    Ok(())
}

/// Whether `a` may shove `t` (S-143): next to it; knocked prone, or pushed to a free square
/// next to it.
pub fn shove_ok(
    s: &BattleState,
    a: UnitId,
    t: UnitId,
    prone: bool,
    push: Option<Cell>,
) -> Result<(), String> {
    let (Some(au), Some(tu)) = (s.unit(a), s.unit(t)) else {
        return Err(format!("there is no {t}"));
    };
    if s.grid().distance_steps(au.cell, tu.cell) != 1 {
        return Err(format!("{} is not next to {}", tu.name, au.name));
    }
    match (prone, push) {
        (true, None) if tu.is_prone() => Err(format!("{} is already prone", tu.name)),
        (true, None) => Ok(()),
        (true, Some(_)) => Err("a shove knocks prone or pushes, not both".to_string()),
        (false, None) => Err(format!("say where to push {}, or knock it prone", tu.name)),
        (false, Some(c)) => {
            if held(s, t) {
                return Err(format!("{} is in a grapple and cannot be pushed", tu.name));
            }
            if !s.grid().contains(c) || s.grid().distance_steps(c, tu.cell) != 1 {
                return Err(format!("{c} is not next to {}", tu.name));
            }
            if !s.terrain.passable(c) {
                return Err(format!("{c} cannot be entered"));
            }
            if s.unit_at(c).is_some() {
                return Err(format!("{c} is taken"));
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rolling and resolving

/// Makes an attack: screens first (S-71), then the roll; the target may answer with Total
/// Defense and its allies with Snap Attacks before the outcome is dealt ([`resolve`]).
pub fn begin(x: &mut Exec, spec: Spec) {
    if !active(x.s(), spec.attacker) || !active(x.s(), spec.target) {
        return;
    }
    let target = match spec.kind {
        Kind::Shove { .. } | Kind::Grapple => spec.target,
        _ => screen(x, spec.attacker, spec.target),
    };
    let spec = Spec { target, ..spec };
    if spec.ranged && !super::actions::nocks_free(x.s(), spec.attacker) {
        x.spend_shot(spec.attacker);
    }
    let bonus = x.reckon(spec.attacker, "attack bonus", attack_terms(x.s(), &spec));
    let needed = x.reckon(target, "AC", ac_terms(x.s(), target));
    let roll = x.roll(
        Some(spec.attacker),
        None,
        Purpose::Attack,
        &ndx(1, 20, bonus),
        Some(needed),
    );
    let p = PendingAttack {
        attacker: spec.attacker,
        target,
        ranged: spec.ranged,
        total: roll.total,
        needed,
        hit: roll.total >= needed,
        crit: false,
        note: Sides::note(Note {
            kind: spec.kind,
            swarm: spec.swarm,
        }),
    };
    let reactors = attacked_reactors(x.s(), &p);
    if reactors.is_empty() {
        resolve(x, &p);
    } else {
        x.emit(Event::Interrupted(Interrupt {
            trigger: Trigger::Attacked {
                attacker: p.attacker,
                target,
                total: p.total,
                needed,
                hit: p.hit,
            },
            reactors,
            resume: Resume::Attack(Box::new(p)),
        }));
    }
}

/// Who may answer an attack roll: the target with Total Defense, and the target and its
/// allies with a Snap Attack on the attacker if the attack is about to hurt (S-60, S-83).
fn attacked_reactors(s: &BattleState, p: &PendingAttack) -> Vec<UnitId> {
    let hurts = would_hurt(s, p);
    let side = s.unit(p.target).map(|u| u.side);
    s.unit_ids()
        .filter(|&u| {
            let snap = hurts && s.unit(u).map(|x| x.side) == side && snap_ok(s, u, p.attacker);
            snap || (u == p.target && total_defense_helps(s, p))
        })
        .collect()
}

/// Deals a rolled attack's outcome, once reactions are in.
pub fn resolve(x: &mut Exec, p: &PendingAttack) {
    let spec = decode(p);
    if !active(x.s(), spec.attacker) {
        let reason = format!(
            "{} fell before its attack on {} landed",
            x.s().unit_name(spec.attacker),
            x.s().unit_name(spec.target)
        );
        x.emit(Sides::event(Ev::Cancelled {
            unit: spec.attacker,
            reason,
        }));
        return;
    }
    if !active(x.s(), spec.target) {
        return;
    }
    // A reaction (Total Defense) may have changed the AC since the roll: say so.
    let ac = ac_of(x.s(), spec.target);
    if ac != p.needed {
        x.reckon(spec.target, "AC now", ac_terms(x.s(), spec.target));
    }
    let hit = p.total >= ac;
    x.emit(Event::Attacked {
        attacker: spec.attacker,
        target: spec.target,
        ranged: spec.ranged,
        hit,
        crit: false,
        spell: None,
    });
    match spec.kind {
        Kind::Shove { prone, push } => {
            if hit && opposed_str(x, spec.attacker, spec.target) {
                if prone {
                    x.set_condition(spec.target, Condition::Prone, true);
                } else if let Some(c) = push {
                    if x.s().unit_at(c).is_none() && x.s().terrain.passable(c) {
                        x.emit(Event::Placed {
                            unit: spec.target,
                            to: c,
                        });
                    } else {
                        x.emit(Sides::event(Ev::Cancelled {
                            unit: spec.attacker,
                            reason: format!("{c} is taken; the push goes nowhere"),
                        }));
                    }
                }
            }
        }
        Kind::Grapple => {
            if hit && opposed_str(x, spec.attacker, spec.target) {
                x.emit(Sides::event(Ev::Grappling {
                    grappler: spec.attacker,
                    target: Some(spec.target),
                }));
                x.set_condition(spec.target, Condition::Grappled { by: spec.attacker }, true);
            }
        }
        _ if hit => damage(x, &spec),
        _ => shock(x, &spec),
    }
}

/// Damage on a hit (S-127): the weapon's dice; +2 with two weapons in melee (S-161); +1 per
/// swarm assailant up to the dice's maximum (S-62, S-63); never less than the Shock (S-142).
fn damage(x: &mut Exec, spec: &Spec) {
    let dice = damage_dice(x.s(), spec);
    let roll = x.roll(Some(spec.attacker), None, Purpose::Damage, &dice, None);
    let dmg = x.reckon(spec.target, "damage", hit_terms(x.s(), spec, roll.total));
    let floor = shock_base(x.s(), spec);
    let mut amount = dmg;
    if dmg < floor {
        x.emit(Sides::event(Ev::ShockFloor {
            attacker: spec.attacker,
            target: spec.target,
            rolled: dmg,
            shock: floor,
        }));
        amount = floor;
    }
    hurt(x, spec.target, amount);
}

/// A hit's damage from a damage roll of `rolled`, before the Shock floor.
pub fn hit_damage(s: &BattleState, spec: &Spec, rolled: i64) -> i64 {
    hit_terms(s, spec, rolled).iter().map(|t| t.value).sum()
}

/// [`hit_damage`] as terms: the roll, the swarm's bonus (capped at the dice's maximum) and
/// two weapons' +2.
pub fn hit_terms(s: &BattleState, spec: &Spec, rolled: i64) -> Vec<Term> {
    let dice = damage_dice(s, spec);
    let max = dice.range().1;
    let mut terms = vec![Term::new("rolled", rolled)];
    if spec.swarm > 0 {
        let with = (rolled + spec.swarm.min(3)).min(max.max(rolled));
        terms.push(Term::new("swarm", with - rolled));
    }
    let melee_weapon = !spec.ranged && !unarmed(s, spec);
    if melee_weapon && s.unit(spec.attacker).is_some_and(dual) {
        terms.push(Term::new("two weapons", 2));
    }
    terms
}

/// Shock on a miss (S-133), unless a shield or Total Defense stops it.
fn shock(x: &mut Exec, spec: &Spec) {
    if shock_base(x.s(), spec) <= 0 {
        return;
    }
    let (amount, negated) = miss_shock(x.s(), spec);
    if negated == Some("shield") {
        x.emit(Sides::event(Ev::ShieldUsed { unit: spec.target }));
    }
    x.emit(Sides::event(Ev::Shock {
        attacker: spec.attacker,
        target: spec.target,
        amount: shock_base(x.s(), spec).max(amount),
        negated: negated.map(str::to_string),
    }));
    hurt(x, spec.target, amount);
}

/// Takes `amount` HP off `u` (never below 0); at 0 it is out of the fight.
pub fn hurt(x: &mut Exec, u: UnitId, amount: i64) {
    if amount <= 0 || !active(x.s(), u) {
        return;
    }
    let hp = x.s().units[u.index()].pool(names::HP);
    let left = (hp - amount).max(0);
    x.set_pool(u, names::HP, left);
    if left == 0 {
        fall(x, u);
    }
}

/// `u` is down: its grapples, screens, held action and Total Defense end.
pub fn fall(x: &mut Exec, u: UnitId) {
    x.set_status(u, Status::Down);
    release(x, u);
    for g in grapplers_of(x.s(), u) {
        x.emit(Sides::event(Ev::Grappling {
            grappler: g,
            target: None,
        }));
        x.set_condition(u, Condition::Grappled { by: g }, false);
    }
    let gone: Vec<Condition> = x.s().units[u.index()]
        .conditions
        .iter()
        .filter(|c| {
            matches!(
                c,
                Condition::Screening { .. } | Condition::Holding | Condition::TotalDefense
            )
        })
        .cloned()
        .collect();
    for c in gone {
        x.set_condition(u, c, false);
    }
}

/// The seed's opposed STR/Brawl check (S-144, S-147): 2d6 + STR + skill each; the actor wins
/// only by rolling higher.
pub(super) fn opposed_str(x: &mut Exec, actor: UnitId, other: UnitId) -> bool {
    let bonus = |u: UnitId| {
        x.s()
            .unit(u)
            .map_or(0, |u| u.stat(names::STR) + u.stat(names::SKILL))
    };
    let (ab, ob) = (bonus(actor), bonus(other));
    let a = x
        .roll(Some(actor), None, Purpose::Opposed, &ndx(2, 6, ab), None)
        .total;
    let o = x
        .roll(Some(other), None, Purpose::Opposed, &ndx(2, 6, ob), Some(a))
        .total;
    a > o
}

/// Screening (S-71..S-75): if allies screen `ward` against `attacker`, an opposed combat skill
/// check (2d6 + the better of STR and DEX + skill); the attack goes to the worst-rolling
/// screener who succeeded, else to the ward.
fn screen(x: &mut Exec, attacker: UnitId, ward: UnitId) -> UnitId {
    let screeners = screeners_of(x.s(), attacker, ward);
    if screeners.is_empty() {
        return ward;
    }
    let bonus = |s: &BattleState, u: UnitId| {
        s.unit(u).map_or(0, |u| {
            u.stat(names::STR).max(u.stat(names::DEX)) + u.stat(names::SKILL)
        })
    };
    let ab = bonus(x.s(), attacker);
    let a = x
        .roll(Some(attacker), None, Purpose::Opposed, &ndx(2, 6, ab), None)
        .total;
    let mut best: Option<(i64, UnitId)> = None;
    for sc in screeners {
        x.emit(Sides::event(Ev::ScreenUsed {
            screener: sc,
            attacker,
        }));
        let b = bonus(x.s(), sc);
        let t = x
            .roll(Some(sc), None, Purpose::Opposed, &ndx(2, 6, b), Some(a))
            .total;
        if t >= a && best.is_none_or(|(bt, _)| t < bt) {
            best = Some((t, sc));
        }
    }
    match best {
        Some((_, screener)) => {
            x.emit(Sides::event(Ev::Redirected {
                attacker,
                ward,
                screener,
            }));
            screener
        }
        None => ward,
    }
}

/// The units screening `ward` that can screen against `attacker` now: next to the ward, with
/// a screen left this round (one per level of combat skill; the same attacker again is free).
pub fn screeners_of(s: &BattleState, attacker: UnitId, ward: UnitId) -> Vec<UnitId> {
    let Some(w) = s.unit(ward) else {
        return Vec::new();
    };
    s.unit_ids()
        .filter(|&sc| {
            let Some(u) = s.unit(sc) else { return false };
            let p = per(Sides::state(s), sc);
            sc != attacker
                && sc != ward
                && u.is_active()
                && u.side == w.side
                && u.has(&Condition::Screening { ally: ward })
                && s.grid().distance_steps(u.cell, w.cell) == 1
                && u.stat(names::SKILL) >= 1
                && (p.screened.contains(&attacker)
                    || (p.screened.len() as i64) < u.stat(names::SKILL))
        })
        .collect()
}

/// Break free (S-148, S-150): one check against each grappler; beating one frees from it.
pub fn break_free(x: &mut Exec, unit: UnitId) {
    let grapplers = grapplers_of(x.s(), unit);
    if grapplers.is_empty() {
        return;
    }
    let bonus = |s: &BattleState, u: UnitId| {
        s.unit(u)
            .map_or(0, |u| u.stat(names::STR) + u.stat(names::SKILL))
    };
    let b = bonus(x.s(), unit);
    let a = x
        .roll(Some(unit), None, Purpose::Opposed, &ndx(2, 6, b), None)
        .total;
    for g in grapplers {
        let gb = bonus(x.s(), g);
        let o = x
            .roll(Some(g), None, Purpose::Opposed, &ndx(2, 6, gb), Some(a))
            .total;
        if a > o {
            x.emit(Sides::event(Ev::Grappling {
                grappler: g,
                target: None,
            }));
            x.set_condition(unit, Condition::Grappled { by: g }, false);
        }
    }
}

/// `grappler` lets go.
pub fn release(x: &mut Exec, grappler: UnitId) {
    let Some(t) = per(Sides::state(x.s()), grappler).grappling else {
        return;
    };
    x.emit(Sides::event(Ev::Grappling {
        grappler,
        target: None,
    }));
    x.set_condition(t, Condition::Grappled { by: grappler }, false);
}

/// End of round: `grappler` hurts the unit it holds as with an unarmed hit (S-152).
pub fn unarmed_damage(x: &mut Exec, grappler: UnitId, target: UnitId) {
    let Some(dice) = x.s().unit(grappler).map(unarmed_dice) else {
        return;
    };
    let roll = x.roll(Some(grappler), None, Purpose::Damage, &dice, None);
    hurt(x, target, roll.total);
}

// ---------------------------------------------------------------------------------------------
// Reactions

/// The reactions `unit` may choose for the interrupt `i` (Decline first).
pub fn reaction_options(s: &BattleState, unit: UnitId, i: &Interrupt) -> Vec<Reaction> {
    let mut out = vec![Reaction::Decline];
    match &i.trigger {
        Trigger::Opportunity { mover, .. } | Trigger::Provoked { actor: mover, .. }
            if active(s, *mover) && moves::aoo_eligible(s, unit, *mover) =>
        {
            out.push(Reaction::Attack { target: *mover });
        }
        Trigger::Attacked {
            attacker, target, ..
        } => {
            let Resume::Attack(p) = &i.resume else {
                return out;
            };
            if !active(s, *attacker) || !active(s, *target) {
                return out;
            }
            if unit == *target && total_defense_helps(s, p) {
                out.push(Reaction::TotalDefense);
            }
            let side_of = |u: UnitId| s.unit(u).map(|x| x.side);
            if side_of(unit) == side_of(*target) && would_hurt(s, p) && snap_ok(s, unit, *attacker)
            {
                out.push(Reaction::Attack { target: *attacker });
            }
        }
        Trigger::Ready { actor } => {
            if !active(s, *actor) {
                return out;
            }
            if can_instant(s, unit) && s.units[unit.index()].has(&Condition::Holding) {
                out.push(Reaction::TakeHeld);
            }
            if snap_ok(s, unit, *actor) {
                out.push(Reaction::Attack { target: *actor });
            }
        }
        _ => {}
    }
    out
}

/// Units that may answer `actor`'s next action: those holding an action, and enemies able to
/// Snap Attack it (S-48, S-58, S-105).
pub(super) fn ready_reactors(s: &BattleState, actor: UnitId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| {
            u != actor
                && can_instant(s, u)
                && (s.units[u.index()].has(&Condition::Holding) || snap_ok(s, u, actor))
        })
        .collect()
}

/// A reaction: an attack of opportunity, a Snap Attack, Total Defense or a held action.
pub(super) fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    let trigger = x.s().interrupts.last().map(|i| i.trigger.clone());
    let depth = x.s().interrupts.len();
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    match reaction {
        Reaction::TotalDefense => {
            spend(x, unit, false, per(Sides::state(x.s()), unit).mv);
            x.set_condition(unit, Condition::TotalDefense, true);
        }
        Reaction::TakeHeld => x.emit(Sides::event(Ev::Queued { unit, depth })),
        Reaction::Attack { target } => {
            let opportunity = matches!(
                trigger,
                Some(Trigger::Opportunity { .. } | Trigger::Provoked { .. })
            );
            if opportunity {
                begin(
                    x,
                    Spec {
                        attacker: unit,
                        target: *target,
                        ranged: false,
                        kind: Kind::Opportunity,
                        swarm: 0,
                    },
                );
            } else {
                // A Snap Attack gives up the Main action (S-57).
                spend(x, unit, false, per(Sides::state(x.s()), unit).mv);
                let ranged = !x.s().in_melee_reach(unit, *target);
                begin(
                    x,
                    Spec {
                        attacker: unit,
                        target: *target,
                        ranged,
                        kind: Kind::Snap,
                        swarm: 0,
                    },
                );
            }
        }
        _ => {}
    }
}
