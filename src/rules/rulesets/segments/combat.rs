//! Fighting in `segments`: moving (with fleeing attacks and spears set against a charge),
//! attack routines, damage (deferred deaths in simultaneous segments), spells and spoiling.

use super::names::{
    AC, DAMAGE_BONUS, DAMAGE_DICE, DAMAGE_DIE, HP, LONG_RANGE, MISSILE_BONUS, RANGE,
    RANGED_DAMAGE_BONUS, RANGED_DAMAGE_DICE, RANGED_DAMAGE_DIE, RATE_OF_FIRE, SET_VS_CHARGE,
    SPELL_DAMAGE_BONUS, SPELL_DAMAGE_DICE, SPELL_DAMAGE_DIE, SPELL_MISSILES, SPELL_RANGE, STRIKES,
    THAC0,
};
use super::spells::{self, armour_class, held, shielded};
use super::turns::{
    Mode, after_action, casting_time, finish_turn, is_casting, mode, stat, surprised_now,
};
use super::{Ev, Phase, Segments, State};
use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    BattleState, Condition, Event, Exec, Interrupt, Purpose, Reaction, Rejected, Resume, Spell,
    Status, Term, Trigger, UnitId,
};
use crate::rules::dice::DiceExpr;
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::sight::{self, Cover};

/// What an attack is made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Melee,
    Missile,
    Spell,
}

pub(crate) fn kind_of(ranged: bool) -> Kind {
    if ranged { Kind::Missile } else { Kind::Melee }
}

/// The action the set-spear prompt names (a [`Trigger::Provoked`]).
pub(crate) const CHARGE: &str = "charges into a spear set against it";

/// Whether `target` is a valid target of `unit`'s attack of `kind` from where both stand.
pub(crate) fn target_ok(
    s: &BattleState,
    unit: UnitId,
    target: UnitId,
    kind: Kind,
) -> Result<(), Rejected> {
    let Some(t) = s.unit(target) else {
        return Err(Rejected::new(format!("there is no {target}")));
    };
    let who = s.unit_name(unit);
    if !s.are_enemies(unit, target) {
        return Err(Rejected::new(format!(
            "{} is not an enemy of {who}",
            t.name
        )));
    }
    if !t.is_active() {
        return Err(Rejected::new(format!(
            "{} is already out of the fight",
            t.name
        )));
    }
    if t.pool(HP) <= 0 {
        return Err(Rejected::new(format!(
            "{} is already beaten: it falls when this segment ends",
            t.name
        )));
    }
    let (range, what) = match kind {
        Kind::Melee => {
            if !s.in_melee_reach(unit, target) {
                return Err(Rejected::new(format!(
                    "{} is not within {who}'s reach",
                    t.name
                )));
            }
            return Ok(());
        }
        Kind::Missile => (
            stat(s, unit, LONG_RANGE).max(stat(s, unit, RANGE)),
            "missile weapon",
        ),
        Kind::Spell => (stat(s, unit, SPELL_RANGE), "spell"),
    };
    if range <= 0 {
        return Err(Rejected::new(format!("{who} has no {what}")));
    }
    let d = i64::from(s.distance(unit, target));
    if d > range {
        return Err(Rejected::new(format!(
            "{} is {d} squares from {who}; its {what} reaches {range}",
            t.name
        )));
    }
    if s.cover(unit, target) == Cover::Blocked {
        return Err(Rejected::new(format!("{who} cannot see {}", t.name)));
    }
    Ok(())
}

/// The roll `attacker` makes to hit `target` with `kind`, what it needs, and the words for it.
pub(crate) fn to_hit(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    kind: Kind,
) -> (DiceExpr, i64, String) {
    let thac0 = stat(s, attacker, THAC0);
    let ac = armour_class(s, target, kind == Kind::Missile);
    let needed = thac0 - ac;
    let mut bonus = 0;
    let mut notes = format!("THAC0 {thac0} - AC {ac}");
    if ac != stat(s, target, AC) {
        notes.push_str(" (Shield)");
    }
    if held(Segments::state(s), target) {
        bonus += HELD_BONUS;
        notes.push_str(&format!(", held {HELD_BONUS:+}"));
    }
    if kind == Kind::Missile {
        let mb = stat(s, attacker, MISSILE_BONUS);
        bonus += mb;
        if mb != 0 {
            notes.push_str(&format!(", missile bonus {mb:+}"));
        }
        if i64::from(s.distance(attacker, target)) > stat(s, attacker, RANGE) {
            bonus -= 2;
            notes.push_str(", long range -2");
        }
    }
    (ndx(1, 20, bonus), needed, notes)
}

/// To hit a unit held by Hold Person (house rule (spells)).
pub(crate) const HELD_BONUS: i64 = 4;

/// The damage of one hit (before doubling) and of a spell.
pub(crate) fn damage_dice(s: &BattleState, attacker: UnitId, kind: Kind) -> DiceExpr {
    let g = |k: &str| stat(s, attacker, k);
    match kind {
        Kind::Melee => ndx(g(DAMAGE_DICE), g(DAMAGE_DIE), g(DAMAGE_BONUS)),
        Kind::Missile => ndx(
            g(RANGED_DAMAGE_DICE),
            g(RANGED_DAMAGE_DIE),
            g(RANGED_DAMAGE_BONUS),
        ),
        Kind::Spell => {
            let n = g(SPELL_MISSILES).max(1);
            ndx(
                n * g(SPELL_DAMAGE_DICE),
                g(SPELL_DAMAGE_DIE),
                n * g(SPELL_DAMAGE_BONUS),
            )
        }
    }
}

/// Attacks in one routine of `kind`.
pub(crate) fn strikes(s: &BattleState, u: UnitId, kind: Kind) -> i64 {
    match kind {
        Kind::Missile => stat(s, u, RATE_OF_FIRE),
        _ => stat(s, u, STRIKES),
    }
    .clamp(1, 10)
}

// ---------------------------------------------------------------------------------------------
// Moving

/// Whether `e` can strike at `cell` in melee (its reach, with sight beyond touching).
fn reaches(s: &BattleState, e: UnitId, cell: Cell) -> bool {
    let Some(u) = s.unit(e) else { return false };
    let d = s.grid().distance_steps(u.cell, cell);
    d >= 1 && d <= u.reach && (d == 1 || sight::line_of_sight(&s.terrain, u.cell, cell))
}

/// Whether `e` may react at all now: in the fight, not surprised, casting or held.
pub(crate) fn can_react(s: &BattleState, r: &State, e: UnitId) -> bool {
    s.unit(e).is_some_and(|u| u.is_active())
        && !surprised_now(r, e)
        && !is_casting(r, e)
        && !held(r, e)
}

/// Enemies `mover` leaves the reach of by stepping from `from` to `to`: each may take a
/// fleeing attack.
pub(crate) fn fleeing_reactors(
    s: &BattleState,
    r: &State,
    mover: UnitId,
    from: Cell,
    to: Cell,
) -> Vec<UnitId> {
    s.enemies_of(mover)
        .into_iter()
        .filter(|&e| can_react(s, r, e) && reaches(s, e, from) && !reaches(s, e, to))
        .collect()
}

/// Whether `e` stands with a spear set against a charge: it has one, declared Melee (or acts
/// freely in a surprise segment), and has neither moved nor attacked this round.
fn spear_set(s: &BattleState, r: &State, e: UnitId) -> bool {
    stat(s, e, SET_VS_CHARGE) > 0
        && matches!(mode(r, e), Mode::Melee | Mode::Free)
        && !r.at(e).moved
        && r.at(e).spent == 0
}

/// Enemies with a set spear whose reach `mover` enters by stepping from `from` to `to`.
pub(crate) fn spear_reactors(
    s: &BattleState,
    r: &State,
    mover: UnitId,
    from: Cell,
    to: Cell,
) -> Vec<UnitId> {
    s.enemies_of(mover)
        .into_iter()
        .filter(|&e| {
            can_react(s, r, e) && spear_set(s, r, e) && !reaches(s, e, from) && reaches(s, e, to)
        })
        .collect()
}

/// The mover a reaction prompt is about.
pub(crate) fn trigger_mover(t: &Trigger) -> Option<UnitId> {
    match t {
        Trigger::Opportunity { mover, .. } => Some(*mover),
        Trigger::Provoked { actor, .. } => Some(*actor),
        _ => None,
    }
}

/// The path a move of `unit` to `to` with `budget` walks: the cheapest, then the one leaving
/// fewest cells threatened by enemies that can react.
pub(crate) fn move_path(
    s: &BattleState,
    r: &State,
    unit: UnitId,
    to: Cell,
    budget: u32,
) -> Option<crate::rules::path::Path> {
    let threat = s.threat_for(unit, |e| can_react(s, r, e));
    s.path_for(unit, budget, Some(&threat), to)
}

pub(crate) fn do_move(x: &mut Exec, unit: UnitId, to: Cell) {
    let r = Segments::state(x.s());
    let budget = match super::actions::allowed(x.s(), r).map(|a| a.move_budget) {
        Some(Ok(b)) => b,
        _ => return,
    };
    let Some(path) = move_path(x.s(), r, unit, to, budget) else {
        return;
    };
    x.emit(Segments::event(Ev::MoveDone {
        unit,
        cost: path.cost(),
    }));
    let before = x.events.len();
    walk(x, unit, &path.cells(), false, false);
    charge_walked(x, unit, &path, before);
}

/// Under fog, a move cut short by a foe it runs into or spots counts only the squares walked
/// (what decides whether a runner may still attack). Events from `before` on are the walk's.
/// (A move cut short after a pause for a reaction keeps the squares it was planned with.)
fn charge_walked(x: &mut Exec, unit: UnitId, path: &crate::rules::path::Path, before: usize) {
    let cut = x.events.get(before..).is_some_and(|walked| {
        walked.iter().any(|e| {
            matches!(e, Event::Spotted { unit: u, .. } | Event::Blocked { unit: u, .. } if *u == unit)
        })
    });
    let Some(here) = x.s().unit(unit).map(|u| u.cell).filter(|_| cut) else {
        return;
    };
    let walked = path
        .steps
        .iter()
        .rev()
        .find(|s| s.to == here)
        .map_or(0, |s| s.cost_so_far);
    if walked > 0 && walked < path.cost() {
        x.emit(Segments::event(Ev::MoveDone { unit, cost: walked }));
    }
}

/// Walks `unit` along `cells` (its cell first). Before each step, enemies whose reach it leaves
/// are asked for a fleeing attack, then set spears whose reach it enters; the walk pauses at
/// the step with an interrupt. `skip_flee` / `skip_charge`: the first step has already asked.
/// Returns `true` when the walk is over.
pub(crate) fn walk(
    x: &mut Exec,
    unit: UnitId,
    cells: &[Cell],
    skip_flee: bool,
    skip_charge: bool,
) -> bool {
    for (i, pair) in cells.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        if x.over() || !x.s().unit(unit).is_some_and(|u| u.is_active()) {
            return true;
        }
        // Under fog: a foe its side did not see holds the way (see `Exec::walk`).
        if let Some(by) = x.hidden_in(unit, to) {
            x.emit(Event::Blocked { unit, by, at: to });
            return true;
        }
        let r = Segments::state(x.s());
        if !(skip_flee && i == 0) {
            let reactors = fleeing_reactors(x.s(), r, unit, from, to);
            if !reactors.is_empty() {
                x.emit(Event::Interrupted(Interrupt {
                    trigger: Trigger::Opportunity {
                        mover: unit,
                        from,
                        to,
                    },
                    reactors,
                    resume: Resume::Move {
                        unit,
                        rest: cells[i..].to_vec(),
                    },
                }));
                return false;
            }
        }
        if !(skip_charge && i == 0) {
            let reactors = spear_reactors(x.s(), r, unit, from, to);
            if !reactors.is_empty() {
                x.emit(Event::Interrupted(Interrupt {
                    trigger: Trigger::Provoked {
                        actor: unit,
                        action: CHARGE.to_string(),
                    },
                    reactors,
                    resume: Resume::Move {
                        unit,
                        rest: cells[i..].to_vec(),
                    },
                }));
                return false;
            }
        }
        let unseen = x.unseen_foes(unit);
        x.emit(Event::Moved { unit, from, to });
        // Under fog: a foe seen for the first time stops the walk after this step.
        if x.spots(unit, &unseen) {
            return true;
        }
    }
    true
}

pub(crate) fn check_reaction(
    s: &BattleState,
    unit: UnitId,
    reaction: &Reaction,
) -> Result<(), Rejected> {
    match reaction {
        Reaction::Decline => Ok(()),
        Reaction::Attack { target } => {
            let mover = s.interrupts.last().and_then(|i| trigger_mover(&i.trigger));
            if mover == Some(*target) && s.unit(*target).is_some_and(|t| t.pool(HP) > 0) {
                Ok(())
            } else {
                Err(Rejected::new(format!(
                    "{} may only strike at {}",
                    s.unit_name(unit),
                    mover.map_or_else(
                        || "the unit moving".to_string(),
                        |m| s.unit_name(m).into_owned()
                    )
                )))
            }
        }
        other => Err(Rejected::new(format!(
            "{} is not a reaction in the segments ruleset; strike (Attack) or Decline",
            s.show(other)
        ))),
    }
}

pub(crate) fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    let Some(top) = x.s().interrupts.last().cloned() else {
        return;
    };
    let charge = matches!(top.trigger, Trigger::Provoked { .. });
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    if let Reaction::Attack { target } = reaction {
        if charge {
            // The set spear's strike is the spearman's attack routine for the round.
            x.emit(Segments::event(Ev::Routine { unit }));
        }
        strike(x, unit, *target, Kind::Melee, charge);
    }
    if x.over() {
        return;
    }
    if x.s()
        .interrupts
        .last()
        .is_some_and(|i| i.reactors.is_empty())
    {
        x.emit(Event::Resumed);
        if let Resume::Move { unit: mover, rest } = top.resume {
            walk(x, mover, &rest, true, charge);
        }
    }
    after_action(x);
}

// ---------------------------------------------------------------------------------------------
// Attacks and damage

/// Whether damage now is dealt in a simultaneous segment (deaths wait for its end).
fn deferred(x: &Exec) -> bool {
    let r = Segments::state(x.s());
    r.simultaneous && matches!(r.phase, Phase::Surprise | Phase::Round) && r.segment > 0
}

/// One attack routine: `strikes` melee attacks or `rate_of_fire` missiles at `target`; the
/// rest of the routine is lost once the target is down to 0 hp.
pub(crate) fn routine(x: &mut Exec, unit: UnitId, target: UnitId, ranged: bool) {
    let kind = kind_of(ranged);
    x.emit(Segments::event(Ev::Routine { unit }));
    for _ in 0..strikes(x.s(), unit, kind) {
        let t = &x.s().units[target.index()];
        if x.over() || !t.is_active() || t.pool(HP) <= 0 {
            break;
        }
        strike(x, unit, target, kind, false);
    }
}

/// One attack roll and its damage (`double`: a set spear against a charge).
pub(crate) fn strike(x: &mut Exec, attacker: UnitId, target: UnitId, kind: Kind, double: bool) {
    let (a, t) = (&x.s().units[attacker.index()], &x.s().units[target.index()]);
    if !a.is_active() || !t.is_active() {
        return;
    }
    let (dice, needed, _) = to_hit(x.s(), attacker, target, kind);
    x.reckon(
        attacker,
        "roll needed to hit",
        vec![
            Term::new("THAC0", stat(x.s(), attacker, THAC0)),
            Term::new(
                "target's AC",
                -armour_class(x.s(), target, kind == Kind::Missile),
            ),
        ],
    );
    let roll = x.roll(Some(attacker), None, Purpose::Attack, &dice, Some(needed));
    let hit = roll.total >= needed;
    x.emit(Event::Attacked {
        attacker,
        target,
        ranged: kind == Kind::Missile,
        hit,
        crit: false,
        spell: None,
    });
    if !hit {
        return;
    }
    let dmg = damage_dice(x.s(), attacker, kind);
    let rolled = x
        .roll(Some(attacker), None, Purpose::Damage, &dmg, None)
        .total;
    let mut terms = at_least_one(rolled);
    if double {
        let once: i64 = terms.iter().map(|t| t.value).sum();
        terms.push(Term::new("doubled: a set spear against a charge", once));
    }
    let amount = x.reckon(target, "damage", terms);
    let defer = deferred(x);
    deal(x, target, amount, defer);
}

/// A damage roll as terms: what was rolled, raised to 1 if less (house rule: a hit always
/// hurts).
fn at_least_one(rolled: i64) -> Vec<Term> {
    vec![
        Term::new("rolled", rolled),
        Term::new("raised to the minimum, 1", (1 - rolled).max(0)),
    ]
}

/// Deals `amount` damage. A spell being cast is spoiled. Unless `defer` (a simultaneous
/// segment), a unit at 0 hp or below dies at once.
pub(crate) fn deal(x: &mut Exec, target: UnitId, amount: i64, defer: bool) {
    x.add_pool(target, HP, -amount);
    let casting = is_casting(Segments::state(x.s()), target);
    if casting {
        spoil(x, target);
    } else if defer {
        x.emit(Segments::event(Ev::Hurt { unit: target }));
    }
    if !defer && x.s().units[target.index()].pool(HP) <= 0 {
        x.set_status(target, Status::Dead);
    }
}

pub(crate) fn spoil(x: &mut Exec, caster: UnitId) {
    x.emit(Segments::event(Ev::Spoiled { caster }));
    x.set_condition(caster, Condition::Casting, false);
}

// ---------------------------------------------------------------------------------------------
// Spells

/// Begins casting: the slot is used now; the spell goes off when its casting time has passed.
/// In a simultaneous segment, damage already taken in it spoils the spell at once.
pub(crate) fn begin_cast(x: &mut Exec, caster: UnitId, target: UnitId, spell: Spell) {
    let r = Segments::state(x.s());
    let tick = r.tick;
    let hurt_now = r.simultaneous && r.at(caster).hurt == tick;
    let t = casting_time(x.s(), caster, spell);
    x.add_pool(caster, spells::stats_of(spell).pool, -1);
    x.emit(Segments::event(Ev::CastBegun {
        caster,
        target,
        start: tick,
        last: tick + t - 1,
        spell,
    }));
    x.set_condition(caster, Condition::Casting, true);
    if hurt_now {
        spoil(x, caster);
    }
    finish_turn(x, caster, false);
}

/// The end of a segment: in a simultaneous one, everyone at 0 hp or below dies now, all at
/// once; then the spells whose last casting segment this was go off.
pub(crate) fn end_segment(x: &mut Exec) {
    let r = Segments::state(x.s());
    let tick = r.tick;
    let segment = r.segment;
    let round = if r.phase == Phase::Surprise {
        0
    } else {
        x.s().round
    };
    if r.simultaneous {
        let deaths: Vec<Event> = x
            .s()
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.is_active() && u.pool(HP) <= 0)
            .map(|(i, _)| Event::Status {
                unit: UnitId(i as u16),
                status: Status::Dead,
            })
            .collect();
        x.emit_together(deaths);
        if x.over() {
            return;
        }
    }
    let r = Segments::state(x.s());
    let lost: Vec<UnitId> = r
        .casting
        .iter()
        .filter(|c| !x.s().units[c.caster.index()].is_active())
        .map(|c| c.caster)
        .collect();
    for caster in lost {
        spoil(x, caster);
    }
    let r = Segments::state(x.s());
    let due: Vec<(UnitId, UnitId, Spell)> = r
        .casting
        .iter()
        .filter(|c| c.last <= tick)
        .map(|c| (c.caster, c.target, c.spell))
        .collect();
    spells::expire(x, tick);
    for (caster, target, spell) in due {
        if x.over() {
            return;
        }
        x.emit(Segments::event(Ev::SpellWentOff {
            caster,
            target,
            round,
            segment: segment + 1,
            spell,
        }));
        x.set_condition(caster, Condition::Casting, false);
        if !x.s().units[target.index()].is_active() {
            continue;
        }
        if spell != Spell::MagicMissile {
            spells::go_off(x, caster, target, spell, tick);
        } else if shielded(Segments::state(x.s()), target) {
            x.emit(Segments::event(Ev::Resisted {
                unit: target,
                spell,
            }));
        } else {
            let dice = damage_dice(x.s(), caster, Kind::Spell);
            let rolled = x
                .roll(Some(caster), None, Purpose::Spell, &dice, None)
                .total;
            let amount = x.reckon(target, "damage", at_least_one(rolled));
            deal(x, target, amount, false);
        }
    }
}
