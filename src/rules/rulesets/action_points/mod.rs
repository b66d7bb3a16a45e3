//! Ruleset `action-points` (seed 004): individual initiative, Action Points spent on actions.
//!
//! - Initiative: each unit rolls 1d6 + Initiative Rating once, when the battle starts; ties
//!   go to the higher rating, then the higher `luck`, then player characters (units of sides
//!   the level gives a Human controller) before NPCs, then a contested luck roll (1d20 +
//!   luck, house rule), then unit order. NPCs of one side and one template share one roll.
//! - Surprised units (level `options.surprised`) roll no die: their initiative is the rating.
//!   They may only react until their first turn has passed: that turn is skipped.
//! - Rounds: every unit replenishes its AP at round start (or, with `options.ap_refresh:
//!   Turn`, at the start of its own turn after the first round). Units take turns from the
//!   highest initiative down. At round end the "until end of round" effects (Guard) expire.
//! - Actions (house rules, see `assets/rulesets/action-points.ron`): Move (secondary, 1 AP),
//!   Attack (primary, `attack_ap` AP), Cast (primary, `spell_ap` AP), Guard (secondary, 1 AP:
//!   +2 defense until the end of the round), End Turn (free). An action costing more AP than
//!   the unit has left becomes an extended action: the remaining AP are spent at the start of
//!   its next turn, and then the action takes effect (if its target is still valid).
//! - Reactions: an attack declared against a unit with AP left asks it whether to Dodge (1 AP,
//!   +`dodge` defense against that attack). One reaction per threat; reactions resolve before
//!   the attacker declares anything else.
//! - A turn ends when the unit ends it or has no AP left.

use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, PendingAttack,
    Purpose, Reaction, Rejected, Resume, Status, Trigger, UnitId,
};
use crate::rules::level::{ApRefresh, Controller};
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};
use crate::rules::sight::Cover;
use serde::{Deserialize, Serialize};

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Initiative order, highest first, fixed for the battle.
    pub order: Vec<UnitId>,
    /// Each unit's initiative score, in unit order.
    pub scores: Vec<i64>,
    /// Index in `order` of the unit whose turn it is.
    pub turn: usize,
    /// An extended action waiting to complete, per unit.
    pub extended: Vec<Option<Extended>>,
}

/// An action started with too few AP: `remaining` AP are due at the unit's next turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extended {
    pub command: Command,
    pub remaining: i64,
}

/// The ruleset's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// Initiative is settled: `order` highest first, `scores` per unit.
    Initiative {
        order: Vec<UnitId>,
        scores: Vec<i64>,
    },
    /// It is the turn of `order[index]`.
    Turn { index: usize },
    /// `unit` started an extended action that needs `remaining` more AP.
    ExtendedStarted {
        unit: UnitId,
        command: Command,
        remaining: i64,
    },
    /// `unit`'s extended action is complete (or was lost).
    ExtendedDone { unit: UnitId, completed: bool },
}

/// Which of a unit's attacks: what an attack paused for a Dodge notes
/// ([`crate::rules::rulesets::Ruleset::Note`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttackKind {
    #[default]
    Melee,
    Ranged,
    Spell,
}

impl AttackKind {
    fn of(ranged: bool) -> Self {
        if ranged {
            AttackKind::Ranged
        } else {
            AttackKind::Melee
        }
    }
}

/// The `action-points` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct ActionPoints;

impl crate::rules::rulesets::Ruleset for ActionPoints {
    type State = State;
    type Event = Ev;
    type Resume = crate::rules::rulesets::Never;
    type Note = AttackKind;
    const DATA: &'static str = include_str!("../../../../assets/rulesets/action-points.ron");
    const STATS: &'static [&'static str] = &[
        "initiative_rating",
        "luck",
        "ap",
        "hp",
        "attack",
        "defense",
        "armor",
        "damage_dice",
        "damage_die",
        "damage_bonus",
    ];
    const AI: crate::rules::rulesets::AiHints = crate::rules::rulesets::AiHints {
        underdog_holds_first_round: true,
        strikes_when_engaged: false,
    };

    fn start(x: &mut Exec) {
        start(x)
    }
    fn pending(s: &BattleState, r: &State) -> Decision {
        pending(s, r)
    }
    fn legal(s: &BattleState, r: &State) -> Vec<Command> {
        legal(s, r)
    }
    fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
        check(s, r, cmd)
    }
    fn execute(x: &mut Exec, cmd: &Command) {
        execute(x, cmd)
    }
    fn apply(r: &mut State, e: &Ev) {
        apply(r, e)
    }
    fn log_line(s: &BattleState, e: &Ev) -> String {
        log_line(s, e)
    }
    fn clock(s: &BattleState, r: &State) -> Clock {
        clock(s, r)
    }
    fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
        describe(s, r, cmd)
    }
    fn odds(s: &BattleState, r: &State, a: UnitId, t: UnitId, ranged: bool) -> Option<Odds> {
        odds(s, r, a, t, ranged)
    }
    /// "X's turn" comes from the engine's own event right after.
    fn bookkeeping(e: &Ev) -> bool {
        matches!(e, Ev::Turn { .. })
    }
    fn spends_from_coming_turn(s: &BattleState, r: &State, unit: UnitId) -> bool {
        spends_from_coming_turn(s, r, unit)
    }
}

fn ev(e: Ev) -> Event {
    ActionPoints::event(e)
}

fn st(s: &BattleState) -> Option<&State> {
    Some(ActionPoints::state(s))
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Initiative { order, scores } => {
            s.order = order.clone();
            s.scores = scores.clone();
            s.extended = vec![None; scores.len()];
        }
        Ev::Turn { index } => s.turn = *index,
        Ev::ExtendedStarted {
            unit,
            command,
            remaining,
        } => {
            if let Some(slot) = s.extended.get_mut(unit.index()) {
                *slot = Some(Extended {
                    command: command.clone(),
                    remaining: *remaining,
                });
            }
        }
        Ev::ExtendedDone { unit, .. } => {
            if let Some(slot) = s.extended.get_mut(unit.index()) {
                *slot = None;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Start, rounds, turns

fn is_pc(s: &BattleState, u: UnitId) -> bool {
    s.units[u.index()].side.index() < s.sides.len()
        && s.sides[s.units[u.index()].side.index()].controller == Controller::Human
}

pub fn start(x: &mut Exec) {
    init_pools(x);
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    // Surprise.
    for &u in &ids {
        if x.s().named_surprised(u) {
            x.set_condition(u, Condition::Surprised, true);
        }
    }
    // Initiative: 1d6 + rating; NPCs of one side and template share a roll.
    let mut scores = vec![0i64; ids.len()];
    let mut group_rolls: Vec<((u8, std::sync::Arc<str>), i64)> = Vec::new();
    for &u in &ids {
        let unit = x.s().units[u.index()].clone();
        let rating = unit.stat("initiative_rating");
        if unit.has(&Condition::Surprised) {
            scores[u.index()] = rating;
            continue;
        }
        let key = (unit.side.0, unit.template.clone());
        let shared = if is_pc(x.s(), u) {
            None
        } else {
            group_rolls.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)
        };
        let die = match shared {
            Some(r) => r,
            None => {
                let r = x
                    .roll(Some(u), None, Purpose::Initiative, &ndx(1, 6, 0), None)
                    .total;
                if !is_pc(x.s(), u) {
                    group_rolls.push((key, r));
                }
                r
            }
        };
        scores[u.index()] = die + rating;
    }
    // Order: score, rating, luck, PCs first; then contested luck rolls among exact ties.
    let key = |s: &BattleState, u: UnitId| {
        let unit = &s.units[u.index()];
        (
            scores[u.index()],
            unit.stat("initiative_rating"),
            unit.stat("luck"),
            is_pc(s, u),
        )
    };
    let mut order = ids.clone();
    order.sort_by(|&a, &b| key(x.s(), b).cmp(&key(x.s(), a)).then(a.cmp(&b)));
    let mut contested = vec![0i64; ids.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && key(x.s(), order[j]) == key(x.s(), order[i]) {
            j += 1;
        }
        if j - i > 1 {
            for &u in &order[i..j] {
                let luck = x.s().units[u.index()].stat("luck");
                contested[u.index()] = x
                    .roll(Some(u), None, Purpose::TieBreak, &ndx(1, 20, luck), None)
                    .total;
            }
            order[i..j].sort_by(|&a, &b| {
                contested[b.index()]
                    .cmp(&contested[a.index()])
                    .then(a.cmp(&b))
            });
        }
        i = j;
    }
    x.emit(ev(Ev::Initiative { order, scores }));
    begin_round(x);
}

fn max_ap(x: &Exec, u: UnitId) -> i64 {
    x.s().units[u.index()].stat("ap")
}

fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    let per_turn = x.s().level.options.ap_refresh == ApRefresh::Turn;
    if !per_turn || round == 1 {
        for u in x.s().unit_ids().collect::<Vec<_>>() {
            if x.s().units[u.index()].is_active() {
                let ap = max_ap(x, u);
                x.set_pool(u, "ap", ap);
            }
        }
    }
    advance(x, 0);
}

fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Guarding, false);
    }
    begin_round(x);
}

/// Starts the turn of the first unit at or after `from` in the order that can act; skips
/// (with their events) the turns of units that cannot; ends the round when none is left.
fn advance(x: &mut Exec, from: usize) {
    let mut i = from;
    loop {
        if x.over() {
            return;
        }
        let Some(order) = st(x.s()).map(|r| r.order.clone()) else {
            return;
        };
        if i >= order.len() {
            end_round(x);
            return;
        }
        let u = order[i];
        if !x.s().units[u.index()].is_active() {
            i += 1;
            continue;
        }
        x.emit(ev(Ev::Turn { index: i }));
        x.emit(Event::TurnStarted { unit: u });
        if x.s().level.options.ap_refresh == ApRefresh::Turn && x.s().round > 1 {
            let ap = max_ap(x, u);
            x.set_pool(u, "ap", ap);
        }
        if x.s().units[u.index()].has(&Condition::Surprised) {
            // Only reactions until the first turn has passed: this turn is that turn.
            x.emit(Event::TurnEnded { unit: u });
            x.set_condition(u, Condition::Surprised, false);
            i += 1;
            continue;
        }
        finish_extended(x, u);
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        if x.s().units[u.index()].pool("ap") > 0 && x.s().units[u.index()].is_active() {
            return;
        }
        x.emit(Event::TurnEnded { unit: u });
        i += 1;
    }
}

/// Pays the rest of an extended action at the start of the unit's turn; when paid, the action
/// takes effect if it still can.
fn finish_extended(x: &mut Exec, u: UnitId) {
    let Some(ext) = st(x.s()).and_then(|r| r.extended.get(u.index()).cloned().flatten()) else {
        return;
    };
    let ap = x.s().units[u.index()].pool("ap");
    if ap < ext.remaining {
        x.set_pool(u, "ap", 0);
        x.emit(ev(Ev::ExtendedStarted {
            unit: u,
            command: ext.command,
            remaining: ext.remaining - ap,
        }));
        return;
    }
    x.add_pool(u, "ap", -ext.remaining);
    let still_valid = target_ok(x.s(), &ext.command).is_ok();
    x.emit(ev(Ev::ExtendedDone {
        unit: u,
        completed: still_valid,
    }));
    if still_valid {
        perform(x, &ext.command);
    }
}

fn current(r: &State) -> Option<UnitId> {
    r.order.get(r.turn).copied()
}

/// Whether AP that `unit` spends now (on a reaction) come out of its own turn this round: the
/// turn is still to come, and its AP are not refreshed when it starts (`ap_refresh: Round`, or
/// the first round).
pub fn spends_from_coming_turn(s: &BattleState, r: &State, unit: UnitId) -> bool {
    let refreshed_at_its_turn = s.level.options.ap_refresh == ApRefresh::Turn && s.round > 1;
    let to_come = r
        .order
        .iter()
        .position(|&u| u == unit)
        .is_some_and(|i| i > r.turn);
    to_come && !refreshed_at_its_turn
}

/// After an action: the turn ends by itself when the unit has no AP left (or fell).
fn after_action(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    let Some(r) = st(x.s()) else { return };
    let turn = r.turn;
    let Some(u) = current(r) else { return };
    let unit = &x.s().units[u.index()];
    if !unit.is_active() || unit.pool("ap") <= 0 {
        x.emit(Event::TurnEnded { unit: u });
        advance(x, turn + 1);
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions and commands

pub fn pending(_: &BattleState, r: &State) -> Decision {
    match current(r) {
        Some(unit) => Decision::Act { unit },
        None => Decision::Over { winner: None },
    }
}

fn cost(s: &BattleState, cmd: &Command) -> i64 {
    let Some(u) = s.unit(cmd.unit()) else {
        return 0;
    };
    match cmd {
        Command::Attack { .. } => u.stat("attack_ap").max(1),
        Command::Act {
            action: Action::Cast { .. },
            ..
        } => u.stat("spell_ap").max(1),
        Command::Move { .. }
        | Command::Act {
            action: Action::Guard,
            ..
        } => 1,
        _ => 0,
    }
}

/// Whether the target of an attack or spell is valid from where the attacker stands.
fn target_ok(s: &BattleState, cmd: &Command) -> Result<(), Rejected> {
    let (unit, target, kind) = match cmd {
        Command::Attack {
            unit,
            target,
            ranged,
        } => (*unit, *target, if *ranged { 1 } else { 0 }),
        Command::Act {
            unit,
            action: Action::Cast { target },
        } => (*unit, *target, 2),
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
                (u.stat("range"), "ranged attack")
            } else {
                (u.stat("spell_range"), "spell")
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

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let u = &s.units[unit.index()];
    if let Command::React { reaction, .. } = cmd {
        return match reaction {
            Reaction::Decline => Ok(()),
            Reaction::Dodge if u.pool("ap") >= 1 => Ok(()),
            Reaction::Dodge => Err(Rejected::new(format!(
                "{} has no Action Points left to dodge",
                u.name
            ))),
            other => Err(Rejected::new(format!(
                "{other:?} is not a reaction in the action-points ruleset; Dodge or Decline"
            ))),
        };
    }
    let Some(cur) = current(r) else {
        return Err(Rejected::new("no one is acting"));
    };
    if unit != cur {
        return Err(Rejected::new(format!(
            "it is {}'s turn, not {}'s",
            s.units[cur.index()].name,
            u.name
        )));
    }
    let ap = u.pool("ap");
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
        Command::Act { action, .. } => Err(Rejected::new(format!(
            "{} is not an action in the action-points ruleset (Move, Attack, Cast, Guard, End \
             Turn)",
            action.name()
        ))),
        Command::Pick { .. } | Command::Declare { .. } => Err(Rejected::new(
            "the action-points ruleset has no picks or declarations; units act in initiative order",
        )),
        Command::React { .. } => Ok(()),
    }
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, .. } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            if s.units[unit.index()].pool("ap") >= 1 {
                out.push(Command::React {
                    unit,
                    reaction: Reaction::Dodge,
                });
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            out.push(Command::EndTurn { unit });
            if u.pool("ap") >= 1 {
                for target in s.enemies_of(unit) {
                    for cmd in Command::attacks_on(unit, target) {
                        if target_ok(s, &cmd).is_ok() {
                            out.push(cmd);
                        }
                    }
                }
                if !u.has(&Condition::Guarding) {
                    out.push(Command::Act {
                        unit,
                        action: Action::Guard,
                    });
                }
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
    let _ = r;
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => react(x, *unit, reaction),
        Command::EndTurn { unit } => {
            let turn = st(x.s()).map_or(0, |r| r.turn);
            x.emit(Event::TurnEnded { unit: *unit });
            advance(x, turn + 1);
        }
        _ => {
            let unit = cmd.unit();
            let need = cost(x.s(), cmd);
            let ap = x.s().units[unit.index()].pool("ap");
            if need > ap {
                // An extended action: spend what is left now, the rest next turn.
                x.set_pool(unit, "ap", 0);
                x.emit(ev(Ev::ExtendedStarted {
                    unit,
                    command: cmd.clone(),
                    remaining: need - ap,
                }));
                after_action(x);
                return;
            }
            x.add_pool(unit, "ap", -need);
            perform(x, cmd);
            after_action(x);
        }
    }
}

/// The effect of an action whose AP are paid.
fn perform(x: &mut Exec, cmd: &Command) {
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
        Command::Attack {
            unit,
            target,
            ranged,
        } => declare_attack(x, *unit, *target, AttackKind::of(*ranged)),
        Command::Act {
            unit,
            action: Action::Cast { target },
        } => declare_attack(x, *unit, *target, AttackKind::Spell),
        _ => {}
    }
}

fn declare_attack(x: &mut Exec, attacker: UnitId, target: UnitId, kind: AttackKind) {
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
    if t.is_active() && t.pool("ap") >= 1 && t.stat("dodge") > 0 {
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

fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    if *reaction == Reaction::Dodge {
        x.add_pool(unit, "ap", -1);
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
    after_action(x);
}

fn resolve_attack(x: &mut Exec, p: &PendingAttack) {
    let kind = ActionPoints::note_of(&p.note);
    let a = x.s().units[p.attacker.index()].clone();
    let t = x.s().units[p.target.index()].clone();
    if !a.is_active() || !t.is_active() {
        return;
    }
    let defense = defense_of(&t);
    let roll = x.roll(
        Some(p.attacker),
        None,
        Purpose::Attack,
        &ndx(1, 20, a.stat("attack")),
        Some(defense),
    );
    let hit = roll.total >= defense;
    x.emit(Event::Attacked {
        attacker: p.attacker,
        target: p.target,
        ranged: kind != AttackKind::Melee,
        hit,
        crit: false,
    });
    if !hit {
        return;
    }
    let (dice, armor) = damage_of(&a, &t, kind);
    let dmg = x.roll(Some(p.attacker), None, Purpose::Damage, &dice, None);
    let amount = (dmg.total - armor).max(1);
    x.add_pool(p.target, "hp", -amount);
    if x.s().units[p.target.index()].pool("hp") <= 0 {
        x.set_status(p.target, Status::Down);
    }
}

/// The number an attack on `t` must reach: 10 + defense, + dodge while dodging, +2 guarding.
fn defense_of(t: &crate::rules::battle::Unit) -> i64 {
    let mut defense = 10 + t.stat("defense");
    if t.has(&Condition::Dodging) {
        defense += t.stat("dodge");
    }
    if t.has(&Condition::Guarding) {
        defense += 2;
    }
    defense
}

/// Damage dice of `a`'s attack of `kind` and the armor of `t` that it subtracts.
fn damage_of(
    a: &crate::rules::battle::Unit,
    t: &crate::rules::battle::Unit,
    kind: AttackKind,
) -> (crate::rules::dice::DiceExpr, i64) {
    match kind {
        AttackKind::Melee => (
            ndx(
                a.stat("damage_dice"),
                a.stat("damage_die"),
                a.stat("damage_bonus"),
            ),
            t.stat("armor"),
        ),
        AttackKind::Ranged => (
            ndx(
                a.stat("ranged_damage_dice"),
                a.stat("ranged_damage_die"),
                a.stat("ranged_damage_bonus"),
            ),
            t.stat("armor"),
        ),
        AttackKind::Spell => (
            ndx(a.stat("spell_damage_dice"), a.stat("spell_damage_die"), 0),
            0,
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// What the view asks

/// One line for one of the ruleset's events (the combat log, `fray replay`).
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    match e {
        Ev::Initiative { order, .. } => format!(
            "Initiative order: {}",
            order
                .iter()
                .map(|u| s.unit_name(*u).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ev::Turn { index } => {
            let who = st(s)
                .and_then(|r| r.order.get(*index))
                .map_or_else(|| "?".to_string(), |u| s.unit_name(*u).into_owned());
            format!("{who} is next in the initiative order")
        }
        Ev::ExtendedStarted {
            unit,
            command,
            remaining,
        } => format!(
            "{} starts {} ({remaining} AP still needed)",
            s.unit_name(*unit),
            describe(s, ActionPoints::state(s), command).label
        ),
        Ev::ExtendedDone { unit, completed } => {
            if *completed {
                format!("{} completes the extended action", s.unit_name(*unit))
            } else {
                format!("{} loses the extended action", s.unit_name(*unit))
            }
        }
    }
}

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let order = r
        .order
        .iter()
        .enumerate()
        .map(|(i, &u)| {
            let unit = &s.units[u.index()];
            OrderEntry {
                unit: u,
                label: format!(
                    "init {} \u{b7} {}/{} AP",
                    r.scores.get(u.index()).copied().unwrap_or(0),
                    unit.pool("ap"),
                    unit.stat("ap")
                ),
                current: i == r.turn,
                done: i < r.turn,
            }
        })
        .collect();
    let headline = match current(r).and_then(|u| s.unit(u)) {
        Some(u) => format!(
            "Round {} \u{b7} {}'s turn, {}/{} AP",
            s.round,
            u.name,
            u.pool("ap"),
            u.stat("ap")
        ),
        None => format!("Round {}", s.round),
    };
    Clock { headline, order }
}

pub fn describe(s: &BattleState, _: &State, cmd: &Command) -> CommandInfo {
    let mut info = view::generic(s, cmd);
    // No attacks of opportunity in this ruleset: nothing provokes.
    info.provokes = false;
    if let Command::Move { unit, to } = cmd
        && let Some(u) = s.unit(*unit)
    {
        info.path = s.path_for(*unit, u.movement, None, *to);
    }
    let ap = s.unit(cmd.unit()).map_or(0, |u| u.pool("ap"));
    info.cost = match cmd {
        Command::EndTurn { .. } => "free".to_string(),
        Command::React {
            reaction: Reaction::Dodge,
            unit,
        } => dodge_words(s, *unit),
        Command::React { .. } | Command::Pick { .. } | Command::Declare { .. } => String::new(),
        _ => {
            let need = cost(s, cmd);
            if need > ap {
                format!("{need} AP (extended: {} AP next turn)", need - ap)
            } else {
                format!("{need} AP")
            }
        }
    };
    info
}

/// The Dodge entry of a reaction prompt: its cost, its bonus, and what it does to the odds of
/// the attack at stake (Orrin at the ruins: "1 AP: +1 defense against this attack, 65% -> 60%
/// to hit").
fn dodge_words(s: &BattleState, unit: UnitId) -> String {
    let bonus = s.unit(unit).map_or(0, |u| u.stat("dodge"));
    let mut words = format!("1 AP: +{bonus} defense against this attack");
    if let Some((now, dodging)) = crate::rules::rulesets::hit_chance_if_dodging(s, unit) {
        words.push_str(&format!(
            ", {:.0}% -> {:.0}% to hit",
            now * 100.0,
            dodging * 100.0
        ));
    }
    words
}

pub fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    let cmd = Command::Attack {
        unit: attacker,
        target,
        ranged,
    };
    target_ok(s, &cmd).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    let defense = defense_of(t);
    let bonus = a.stat("attack");
    let hit = ndx(1, 20, bonus).distribution().at_least(defense);
    let (dice, armor) = damage_of(a, t, AttackKind::of(ranged));
    let per_hit = dice.distribution().expect(|d| (d - armor).max(1) as f64);
    Some(Odds {
        hit,
        expected_damage: hit * per_hit,
        formula: format!("1d20{bonus:+} vs {defense}"),
    })
}

/// Pools every unit starts with.
fn init_pools(x: &mut Exec) {
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        let hp = x.s().units[u.index()].stat("hp");
        x.set_pool(u, "hp", hp);
    }
}

#[cfg(test)]
mod tests;
