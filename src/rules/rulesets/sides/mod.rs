//! Ruleset `sides` (seed 001): sides act as teams, one Main and one Move action each, d20 +
//! bonuses against AC, damage and Shock. The rules, row by row, are in `docs/rules/sides.md`;
//! what the seed leaves to the GM is written in `assets/rulesets/sides.ron` (`house_rules`).
//!
//! - **Initiative** (rule S-09..S-14): each side with a unit standing rolls 1d8 once; the Party
//!   (level `options.party`, default the first side) adds its highest DEX and wins ties. The
//!   order holds for the whole battle.
//! - **Surprise** (S-15): with `options.surprised`, round 1 is a free round for everyone not
//!   surprised, sides in level order; initiative is rolled when it ends.
//! - **Turns** (S-10, S-11): a side's controller picks its members one at a time
//!   ([`Decision::Pick`]); the picked unit takes all its actions, then ends its turn.
//! - **Actions** (S-19..S-48): per round a Main action and a Move action; the Main can be spent
//!   as a second Move. Free: Go Prone, Release. Instant: Total Defense, Snap Attack, a held
//!   action. Drag and Throw move a grappled foe for the Main action (S-153). See [`check_action`] for every action's conditions and [`Cost`] for what it spends.
//! - **Interrupts**: before any unit's action, units holding an action may take it and trained
//!   units may Snap Attack ([`Trigger::Ready`]); leaving an enemy's reach, standing up, first
//!   aid, and charging or screening from a square next to an enemy provoke attacks of
//!   opportunity ([`Trigger::Opportunity`], [`Trigger::Provoked`]); after an attack roll the
//!   target may take Total Defense and its allies may Snap Attack the attacker
//!   ([`Trigger::Attacked`]). A command waiting for such answers is kept in
//!   [`State::deferred`] and goes on (or is cancelled if no longer possible) afterwards.
//! - **Attacks** are in [`combat`]; the view's questions (clock, describe, odds) in [`hud`].

pub mod combat;
pub mod hud;
pub mod moves;

pub use hud::{clock, describe, log_line, odds};

use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, Purpose, Reaction,
    Rejected, Resume, SideId, Trigger, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::path::Path;
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

use combat::{Kind, Spec};

/// What `sides` does once the reactions to an interrupt it raised are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum After {
    /// Run the deferred command (see [`State::deferred`]).
    Deferred,
}

/// The `sides` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct Sides;

impl crate::rules::rulesets::Ruleset for Sides {
    type State = State;
    type Event = Ev;
    type Resume = After;
    type Note = combat::Note;
    const DATA: &'static str = include_str!("../../../../assets/rulesets/sides.ron");
    const STATS: &'static [&'static str] = &[
        "ac",
        "hp",
        "attack_bonus",
        "dex",
        "damage_dice",
        "damage_die",
        "damage_bonus",
        "shock",
        "shock_ac",
    ];
    const AI: crate::rules::rulesets::AiHints = crate::rules::rulesets::AiHints {
        underdog_holds_first_round: false,
        strikes_when_engaged: true,
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
}

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The Party: adds its best DEX to initiative and wins ties.
    pub party: Option<SideId>,
    /// Per unit, in unit order.
    pub per: Vec<Per>,
    /// Initiative order of the sides, highest first (empty until rolled).
    pub order: Vec<SideId>,
    /// Each side's initiative, in side order.
    pub scores: Vec<i64>,
    /// This round is the surprise round.
    pub surprise: bool,
    /// Index into this round's side order ([`round_sides`]) of the side whose turn it is.
    pub side_turn: usize,
    /// The unit taking its turn.
    pub acting: Option<UnitId>,
    /// Units taking a held action out of turn, innermost last, with the number of interrupts
    /// open when they began (the held action runs inside the interrupt that offered it).
    pub nested: Vec<(UnitId, usize)>,
    /// Units that chose to take their held action, waiting for the other reactors.
    pub queued: Vec<(UnitId, usize)>,
    /// Commands paused by an interrupt, innermost last.
    pub deferred: Vec<Deferred>,
    /// Swarm Attacks this round: the target and the allies who joined.
    pub swarms: Vec<(UnitId, Vec<UnitId>)>,
    /// Turns started this round (a guard against a round nobody can play).
    pub turns: u32,
}

/// One unit's round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Per {
    /// It has had its turn this round.
    pub acted: bool,
    /// Its Main action is unspent.
    pub main: bool,
    /// Its Move action is unspent.
    pub mv: bool,
    /// Enemies it disengaged from this round.
    pub disengaged_from: Vec<UnitId>,
    /// Its shield has ignored a Shock this round.
    pub shield_used: bool,
    /// Attackers it has screened against this round.
    pub screened: Vec<UnitId>,
    /// The unit it grapples.
    pub grappling: Option<UnitId>,
}

/// A command paused while reactions are asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deferred {
    /// The number of open interrupts once its interrupt was pushed.
    pub depth: usize,
    pub command: Command,
    /// 1: held actions and Snap Attacks have answered (check it again, pay, see what it
    /// provokes); 2: attacks of opportunity have answered (carry it out).
    pub stage: u8,
}

/// The ruleset's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// The battle's bookkeeping starts: the Party, and one [`Per`] per unit.
    Setup { party: SideId, units: usize },
    /// Round 1 is the surprise round.
    SurpriseRound,
    /// Initiative is settled: `order` highest first, `scores` per side.
    Initiative {
        order: Vec<SideId>,
        scores: Vec<i64>,
    },
    /// A new round: every unit has its Main and Move actions again.
    RoundReset,
    /// The side at `index` of the round's order takes its turn.
    SideTurn { index: usize },
    /// `unit` was picked and takes its turn.
    Picked { unit: UnitId },
    /// `unit` has had its turn this round.
    TurnDone { unit: UnitId },
    /// What `unit` has left this round.
    Actions { unit: UnitId, main: bool, mv: bool },
    /// `unit` disengaged from these enemies for the rest of the round.
    Disengaged { unit: UnitId, from: Vec<UnitId> },
    /// `unit`'s shield ignored a Shock: its one for the round.
    ShieldUsed { unit: UnitId },
    /// `screener` checked against `attacker` (one of its screens this round).
    ScreenUsed { screener: UnitId, attacker: UnitId },
    /// `attacker`'s attack on `ward` goes to `screener` instead.
    Redirected {
        attacker: UnitId,
        ward: UnitId,
        screener: UnitId,
    },
    /// `assailant` joined the swarm on `target`.
    Swarmed { target: UnitId, assailant: UnitId },
    /// The swarm on `target` strikes, with these assailants' help.
    SwarmStrike {
        target: UnitId,
        assailants: Vec<UnitId>,
    },
    /// `grappler` now grapples `target` (`None`: lets go).
    Grappling {
        grappler: UnitId,
        target: Option<UnitId>,
    },
    /// `unit` will take its held action once the other reactors have answered.
    Queued { unit: UnitId, depth: usize },
    /// `unit` takes its held action now, out of turn.
    HeldTaken { unit: UnitId, depth: usize },
    /// `unit` has finished its held action.
    HeldDone { unit: UnitId },
    /// A command waits for reactions.
    Deferred {
        depth: usize,
        command: Command,
        stage: u8,
    },
    /// The deferred command of that depth goes on.
    Undeferred { depth: usize },
    /// `unit`'s command could not go on after the reactions, and why.
    Cancelled { unit: UnitId, reason: String },
    /// Shock on a miss: `amount`, unless `negated` says what stopped it.
    Shock {
        attacker: UnitId,
        target: UnitId,
        amount: i64,
        negated: Option<String>,
    },
    /// A hit rolled `rolled` damage, less than the weapon's Shock, so it does `shock`.
    ShockFloor {
        attacker: UnitId,
        target: UnitId,
        rolled: i64,
        shock: i64,
    },
}

fn ev(e: Ev) -> Event {
    Sides::event(e)
}

static NO_PER: Per = Per {
    acted: true,
    main: false,
    mv: false,
    disengaged_from: Vec::new(),
    shield_used: false,
    screened: Vec::new(),
    grappling: None,
};

/// The ruleset's state inside a battle.
pub fn rs(s: &BattleState) -> &State {
    Sides::state(s)
}

/// A unit's round (a spent one for an unknown unit).
pub fn per(r: &State, u: UnitId) -> &Per {
    r.per.get(u.index()).unwrap_or(&NO_PER)
}

fn per_mut(s: &mut State, u: UnitId) -> Option<&mut Per> {
    s.per.get_mut(u.index())
}

pub fn apply(s: &mut State, e: &Ev) {
    let per = per_mut;
    match e {
        Ev::Setup { party, units } => {
            s.party = Some(*party);
            s.per = vec![Per::default(); *units];
        }
        Ev::SurpriseRound => s.surprise = true,
        Ev::Initiative { order, scores } => {
            s.order = order.clone();
            s.scores = scores.clone();
            s.surprise = false;
        }
        Ev::RoundReset => {
            for p in &mut s.per {
                p.acted = false;
                p.main = true;
                p.mv = true;
                p.disengaged_from.clear();
                p.shield_used = false;
                p.screened.clear();
            }
            s.swarms.clear();
            s.side_turn = 0;
            s.acting = None;
            s.turns = 0;
        }
        Ev::SideTurn { index } => {
            s.side_turn = *index;
            s.acting = None;
        }
        Ev::Picked { unit } => {
            s.acting = Some(*unit);
            s.turns += 1;
        }
        Ev::TurnDone { unit } => {
            if let Some(p) = per(s, *unit) {
                p.acted = true;
            }
            if s.acting == Some(*unit) {
                s.acting = None;
            }
        }
        Ev::Actions { unit, main, mv } => {
            if let Some(p) = per(s, *unit) {
                p.main = *main;
                p.mv = *mv;
            }
        }
        Ev::Disengaged { unit, from } => {
            if let Some(p) = per(s, *unit) {
                for f in from {
                    if !p.disengaged_from.contains(f) {
                        p.disengaged_from.push(*f);
                    }
                }
            }
        }
        Ev::ShieldUsed { unit } => {
            if let Some(p) = per(s, *unit) {
                p.shield_used = true;
            }
        }
        Ev::ScreenUsed { screener, attacker } => {
            if let Some(p) = per(s, *screener)
                && !p.screened.contains(attacker)
            {
                p.screened.push(*attacker);
            }
        }
        Ev::Swarmed { target, assailant } => match s.swarms.iter_mut().find(|w| w.0 == *target) {
            Some(w) => w.1.push(*assailant),
            None => s.swarms.push((*target, vec![*assailant])),
        },
        Ev::SwarmStrike { target, .. } => s.swarms.retain(|w| w.0 != *target),
        Ev::Grappling { grappler, target } => {
            if let Some(p) = per(s, *grappler) {
                p.grappling = *target;
            }
        }
        Ev::Queued { unit, depth } => s.queued.push((*unit, *depth)),
        Ev::HeldTaken { unit, depth } => {
            s.queued.retain(|q| q.0 != *unit);
            s.nested.push((*unit, *depth));
        }
        Ev::HeldDone { unit } => {
            if s.nested.last().is_some_and(|n| n.0 == *unit) {
                s.nested.pop();
            }
        }
        Ev::Deferred {
            depth,
            command,
            stage,
        } => s.deferred.push(Deferred {
            depth: *depth,
            command: command.clone(),
            stage: *stage,
        }),
        Ev::Undeferred { depth } => {
            if let Some(i) = s.deferred.iter().rposition(|d| d.depth == *depth) {
                s.deferred.remove(i);
            }
        }
        Ev::Redirected { .. } | Ev::Cancelled { .. } | Ev::Shock { .. } | Ev::ShockFloor { .. } => {
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Small questions about units

fn active(s: &BattleState, u: UnitId) -> bool {
    s.unit(u).is_some_and(|u| u.is_active())
}

fn side_name(s: &BattleState, side: SideId) -> String {
    s.sides
        .get(side.index())
        .map_or_else(|| format!("{side}"), |x| x.name.clone())
}

/// Grappling or grappled: it cannot move and fights unarmed only (S-151).
pub fn held(s: &BattleState, u: UnitId) -> bool {
    per(rs(s), u).grappling.is_some()
        || s.unit(u).is_some_and(|x| {
            x.conditions
                .iter()
                .any(|c| matches!(c, Condition::Grappled { .. }))
        })
}

/// Who grapples `u`, in unit order.
pub fn grapplers_of(s: &BattleState, u: UnitId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&g| per(rs(s), g).grappling == Some(u) && active(s, g))
        .collect()
}

/// Whether `u` may use Instant actions and attacks of opportunity now: standing, and not
/// caught in the surprise round.
pub fn can_instant(s: &BattleState, u: UnitId) -> bool {
    s.unit(u)
        .is_some_and(|x| x.is_active() && !(rs(s).surprise && x.has(&Condition::Surprised)))
}

/// Move actions `u` can still spend: its Move action, and its Main action traded for one.
pub fn move_actions_left(p: &Per) -> u32 {
    u32::from(p.mv) + u32::from(p.main)
}

/// The Party: `options.party`, or the first side.
fn party_of(s: &BattleState) -> SideId {
    s.level
        .options
        .party
        .as_ref()
        .and_then(|n| s.sides.iter().position(|x| &x.name == n))
        .map_or(SideId(0), |i| SideId(i as u8))
}

// ---------------------------------------------------------------------------------------------
// Start, rounds, side turns

pub fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    let party = party_of(x.s());
    x.emit(ev(Ev::Setup {
        party,
        units: ids.len(),
    }));
    for &u in &ids {
        let hp = x.s().units[u.index()].stat("hp");
        x.set_pool(u, "hp", hp);
    }
    // Surprise (S-15): the level names who is caught unaware.
    let surprised: Vec<UnitId> = ids
        .iter()
        .copied()
        .filter(|&u| x.s().named_surprised(u))
        .collect();
    if !surprised.is_empty() && surprised.len() < ids.len() {
        for &u in &surprised {
            x.set_condition(u, Condition::Surprised, true);
        }
        x.emit(ev(Ev::SurpriseRound));
    } else {
        roll_initiative(x);
    }
    begin_round(x);
    settle(x);
}

/// S-09, S-13, S-14: each side rolls 1d8 once, the Party adds its best DEX and wins ties.
fn roll_initiative(x: &mut Exec) {
    let party = rs(x.s()).party.unwrap_or(SideId(0));
    let n = x.s().sides.len();
    let mut scores = vec![0i64; n];
    let mut order = Vec::new();
    for (i, score) in scores.iter_mut().enumerate() {
        let side = SideId(i as u8);
        let members = x.s().members(side);
        if members.is_empty() {
            continue;
        }
        let bonus = if side == party {
            members
                .iter()
                .map(|&u| x.s().units[u.index()].stat("dex"))
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let roll = x.roll(
            None,
            Some(side),
            Purpose::Initiative,
            &ndx(1, 8, bonus),
            None,
        );
        *score = roll.total;
        order.push(side);
    }
    order.sort_by(|&a, &b| {
        scores[b.index()]
            .cmp(&scores[a.index()])
            .then((b == party).cmp(&(a == party)))
            .then(a.cmp(&b))
    });
    x.emit(ev(Ev::Initiative { order, scores }));
}

fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(ev(Ev::RoundReset));
}

/// Ends the round: grapples hurt (S-152), held actions lapse (S-105), Disengage and Charge
/// wear off; after the surprise round, initiative is rolled. Then the next round begins.
fn end_round(x: &mut Exec) {
    for g in x.s().unit_ids().collect::<Vec<_>>() {
        let Some(t) = per(rs(x.s()), g).grappling else {
            continue;
        };
        if active(x.s(), g) && active(x.s(), t) {
            combat::unarmed_damage(x, g, t);
        }
    }
    if x.over() {
        return;
    }
    let round = x.s().round;
    let (turns, surprise) = (rs(x.s()).turns, rs(x.s()).surprise);
    if turns == 0 && !surprise {
        x.emit(Event::Ended {
            winner: None,
            reason: format!("no one could act in round {round}"),
        });
        return;
    }
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Holding, false);
        x.set_condition(u, Condition::Disengaged, false);
        x.set_condition(u, Condition::Charging, false);
        if surprise {
            x.set_condition(u, Condition::Surprised, false);
        }
    }
    if surprise {
        roll_initiative(x);
    }
    begin_round(x);
}

/// The sides in the order they act this round: level order in the surprise round, else
/// initiative order.
pub fn round_sides(s: &BattleState) -> Vec<SideId> {
    let r = rs(s);
    if r.surprise {
        (0..s.sides.len()).map(|i| SideId(i as u8)).collect()
    } else {
        r.order.clone()
    }
}

/// Members of `side` that can still be picked this round.
pub fn pick_options(s: &BattleState, side: SideId) -> Vec<UnitId> {
    let r = rs(s);
    s.unit_ids()
        .filter(|&u| {
            let unit = &s.units[u.index()];
            unit.side == side
                && unit.is_active()
                && !per(r, u).acted
                && !(r.surprise && unit.has(&Condition::Surprised))
        })
        .collect()
}

/// Runs the schedule until a decision is needed: ends the turn of a unit that fell, moves to
/// the next side, the next round; picks the last member of a side by itself.
fn advance(x: &mut Exec) {
    loop {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let (acting, side_turn) = {
            let r = rs(x.s());
            (r.acting, r.side_turn)
        };
        if let Some(u) = acting {
            if active(x.s(), u) {
                return;
            }
            x.emit(Event::TurnEnded { unit: u });
            x.emit(ev(Ev::TurnDone { unit: u }));
            continue;
        }
        let sides = round_sides(x.s());
        let Some(&side) = sides.get(side_turn) else {
            end_round(x);
            continue;
        };
        let options = pick_options(x.s(), side);
        match options.len() {
            0 => x.emit(ev(Ev::SideTurn {
                index: side_turn + 1,
            })),
            1 => start_turn(x, options[0]),
            _ => return,
        }
    }
}

fn start_turn(x: &mut Exec, u: UnitId) {
    x.emit(ev(Ev::Picked { unit: u }));
    x.emit(Event::TurnStarted { unit: u });
    // "until the start of your next turn" (S-70, S-81).
    x.set_condition(u, Condition::TotalDefense, false);
    let screens: Vec<Condition> = x.s().units[u.index()]
        .conditions
        .iter()
        .filter(|c| matches!(c, Condition::Screening { .. }))
        .cloned()
        .collect();
    for c in screens {
        x.set_condition(u, c, false);
    }
}

/// Settles interrupts whose reactors have all answered: runs held actions, then each
/// interrupt's continuation; then the schedule goes on.
fn settle(x: &mut Exec) {
    loop {
        if x.over() {
            return;
        }
        let depth = x.s().interrupts.len();
        if depth == 0 {
            advance(x);
            return;
        }
        let top = x.s().interrupts[depth - 1].clone();
        if let Some(&first) = top.reactors.first() {
            // A reactor left with nothing but Decline (its chance passed) is not asked.
            if reaction_options(x.s(), first, &top).len() <= 1 {
                x.emit(Event::Reacted {
                    unit: first,
                    reaction: Reaction::Decline,
                });
                continue;
            }
            return;
        }
        let (nested, queued) = {
            let r = rs(x.s());
            (
                r.nested.last().copied(),
                r.queued.iter().find(|q| q.1 == depth).copied(),
            )
        };
        if let Some((u, d)) = nested
            && d == depth
        {
            if active(x.s(), u) {
                return;
            }
            x.emit(ev(Ev::HeldDone { unit: u }));
            continue;
        }
        if let Some((u, _)) = queued {
            x.emit(ev(Ev::HeldTaken { unit: u, depth }));
            x.set_condition(u, Condition::Holding, false);
            continue;
        }
        x.emit(Event::Resumed);
        match top.resume {
            Resume::Move { unit, rest } => moves::walk_run(x, unit, &rest, true),
            Resume::Attack(p) => combat::resolve(x, &p),
            Resume::Rules(_) if Sides::resume_of(&top.resume).is_some() => {
                let d = rs(x.s())
                    .deferred
                    .iter()
                    .rev()
                    .find(|d| d.depth == depth)
                    .cloned();
                if let Some(d) = d {
                    x.emit(ev(Ev::Undeferred { depth }));
                    run_command(x, d.command, d.stage);
                }
            }
            Resume::Rules(_) | Resume::Nothing => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions

pub fn pending(s: &BattleState, r: &State) -> Decision {
    if let Some(&(unit, d)) = r.nested.last()
        && d == s.interrupts.len()
    {
        return Decision::Act { unit };
    }
    if let Some(unit) = r.acting {
        return Decision::Act { unit };
    }
    if let Some(&side) = round_sides(s).get(r.side_turn) {
        let options = pick_options(s, side);
        if !options.is_empty() {
            return Decision::Pick { side, options };
        }
    }
    Decision::Over { winner: None }
}

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
            if unit == *target && combat::total_defense_helps(s, p) {
                out.push(Reaction::TotalDefense);
            }
            let side_of = |u: UnitId| s.unit(u).map(|x| x.side);
            if side_of(unit) == side_of(*target)
                && combat::would_hurt(s, p)
                && combat::snap_ok(s, unit, *attacker)
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
            if combat::snap_ok(s, unit, *actor) {
                out.push(Reaction::Attack { target: *actor });
            }
        }
        _ => {}
    }
    out
}

/// Units that may answer `actor`'s next action: those holding an action, and enemies able to
/// Snap Attack it (S-48, S-58, S-105).
fn ready_reactors(s: &BattleState, actor: UnitId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| {
            u != actor
                && can_instant(s, u)
                && (s.units[u.index()].has(&Condition::Holding) || combat::snap_ok(s, u, actor))
        })
        .collect()
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let who = s.unit_name(unit);
    match cmd {
        Command::React { reaction, .. } => {
            let Some(top) = s.interrupts.last() else {
                return Err(Rejected::new("nothing to react to now"));
            };
            let options = reaction_options(s, unit, top);
            if options.contains(reaction) {
                return Ok(());
            }
            let list: Vec<String> = options
                .iter()
                .map(|o| crate::rules::rulesets::view::label(s, &reaction_cmd(unit, o)))
                .collect();
            Err(Rejected::new(format!(
                "{who} cannot {} now; it may: {}",
                crate::rules::rulesets::view::label(s, cmd).to_lowercase(),
                list.join(", ")
            )))
        }
        Command::Declare { .. } => Err(Rejected::new(
            "the sides ruleset has no declarations; a side picks who acts next",
        )),
        Command::Pick { .. } => match pending(s, r) {
            Decision::Pick { side, options } => {
                if options.contains(&unit) {
                    return Ok(());
                }
                let u = &s.units[unit.index()];
                let why = if u.side != side {
                    format!(
                        "{who} is not of the {}, whose turn it is",
                        side_name(s, side)
                    )
                } else if !u.is_active() {
                    format!("{who} is out of the fight")
                } else if r.surprise && u.has(&Condition::Surprised) {
                    format!("{who} is surprised and cannot act in the surprise round")
                } else {
                    format!("{who} has already acted this round")
                };
                Err(Rejected::new(why))
            }
            Decision::Act { unit: cur } => Err(Rejected::new(format!(
                "{} is taking its turn; it must end it before another is picked",
                s.unit_name(cur)
            ))),
            _ => Err(Rejected::new("no one can be picked now")),
        },
        _ => {
            let cur = match pending(s, r) {
                Decision::Act { unit } => unit,
                Decision::Pick { side, .. } => {
                    return Err(Rejected::new(format!(
                        "the {} must first pick who acts next",
                        side_name(s, side)
                    )));
                }
                _ => return Err(Rejected::new("no one is acting")),
            };
            if cur != unit {
                return Err(Rejected::new(format!(
                    "it is {}'s turn, not {who}'s",
                    s.unit_name(cur)
                )));
            }
            match cmd {
                Command::EndTurn { .. } => Ok(()),
                _ => check_action(s, r, cmd).map_err(Rejected::new),
            }
        }
    }
}

fn reaction_cmd(unit: UnitId, reaction: &Reaction) -> Command {
    Command::React {
        unit,
        reaction: reaction.clone(),
    }
}

/// What an action spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Free,
    Main,
    /// This many Move actions: the Move action first, then the Main action traded for one.
    Moves(u32),
    /// The Move action itself (Hold an Action).
    MoveAction,
    /// Both (Charge).
    MainAndMove,
}

/// What `cmd` costs `unit` (for a Move, `None` if it cannot get there).
pub fn cost_of(s: &BattleState, cmd: &Command) -> Cost {
    match cmd {
        Command::Move { unit, to } => {
            Cost::Moves(moves::move_actions_needed(s, *unit, *to).unwrap_or(1))
        }
        Command::Attack { .. } => Cost::Main,
        Command::Act { action, .. } => match action {
            Action::GoProne | Action::Release => Cost::Free,
            Action::StandUp | Action::Screen { .. } => Cost::Moves(1),
            Action::Delay => Cost::MoveAction,
            Action::Charge { .. } => Cost::MainAndMove,
            _ => Cost::Main,
        },
        _ => Cost::Free,
    }
}

fn need_main(s: &BattleState, p: &Per, u: UnitId) -> Result<(), String> {
    if p.main {
        Ok(())
    } else {
        Err(format!(
            "{} has already spent its Main action this round",
            s.unit_name(u)
        ))
    }
}

fn need_moves(s: &BattleState, p: &Per, u: UnitId, k: u32) -> Result<(), String> {
    let left = move_actions_left(p);
    if left >= k {
        return Ok(());
    }
    Err(if left == 0 {
        format!(
            "{} has no Move action left (nor a Main action to trade for one)",
            s.unit_name(u)
        )
    } else {
        format!("{} has only one Move action left", s.unit_name(u))
    })
}

fn not_held(s: &BattleState, u: UnitId) -> Result<(), String> {
    if let Some(t) = per(rs(s), u).grappling {
        return Err(format!(
            "{} is grappling {} and cannot move",
            s.unit_name(u),
            s.unit_name(t)
        ));
    }
    if let Some(g) = grapplers_of(s, u).first() {
        return Err(format!(
            "{} is grappled by {} and cannot move",
            s.unit_name(u),
            s.unit_name(*g)
        ));
    }
    Ok(())
}

fn enemy_target(s: &BattleState, u: UnitId, t: UnitId) -> Result<(), String> {
    let Some(tu) = s.unit(t) else {
        return Err(format!("there is no {t}"));
    };
    if t == u || !s.are_enemies(u, t) {
        return Err(format!("{} is not an enemy of {}", tu.name, s.unit_name(u)));
    }
    if !tu.is_active() {
        return Err(format!("{} is already out of the fight", tu.name));
    }
    Ok(())
}

fn adjacent(s: &BattleState, a: UnitId, b: UnitId) -> bool {
    match (s.unit(a), s.unit(b)) {
        (Some(a), Some(b)) => s.grid().distance_steps(a.cell, b.cell) == 1,
        _ => false,
    }
}

/// Whether the acting `unit` may do `cmd` now, leaving aside whose turn it is.
pub fn check_action(s: &BattleState, r: &State, cmd: &Command) -> Result<(), String> {
    let unit = cmd.unit();
    let Some(u) = s.unit(unit) else {
        return Err(format!("there is no {unit}"));
    };
    let who = u.name.clone();
    if !u.is_active() {
        return Err(format!("{who} is out of the fight"));
    }
    let p = per(r, unit);
    let in_held_action = r.nested.last().is_some_and(|n| n.0 == unit);
    match cmd {
        Command::Move { to, .. } => {
            need_moves(s, p, unit, 1)?;
            not_held(s, unit)?;
            if *to == u.cell {
                return Err(format!("{who} is already on {to}"));
            }
            if let Some(o) = s.unit_at(*to) {
                let down = if s.units[o.index()].is_active() {
                    ""
                } else {
                    " (down)"
                };
                return Err(format!("{to} is taken by {}{down}", s.unit_name(o)));
            }
            match moves::move_actions_needed(s, unit, *to) {
                Some(k) => need_moves(s, p, unit, k),
                None => Err(format!(
                    "{who} cannot reach {to} with two Move actions ({} squares each)",
                    moves::move_rate(u)
                )),
            }
        }
        Command::Attack { target, ranged, .. } => {
            need_main(s, p, unit)?;
            combat::can_attack(s, unit, *target, *ranged)
        }
        Command::Act { action, .. } => match action {
            Action::GoProne => {
                if u.is_prone() {
                    Err(format!("{who} is already prone"))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if !u.is_prone() {
                    return Err(format!("{who} is not prone"));
                }
                need_moves(s, p, unit, 1)
            }
            Action::Delay => {
                if in_held_action {
                    return Err(format!(
                        "{who} is taking a held action and cannot hold it again"
                    ));
                }
                if !p.mv {
                    return Err(format!(
                        "Hold an Action spends the Move action, which {who} has already used"
                    ));
                }
                need_main(s, p, unit)
            }
            Action::Disengage => {
                need_main(s, p, unit)?;
                let fresh: Vec<UnitId> = s
                    .enemies_in_reach_of(unit)
                    .into_iter()
                    .filter(|e| !p.disengaged_from.contains(e))
                    .collect();
                if fresh.is_empty() {
                    return Err(format!("no enemy is in melee with {who} to disengage from"));
                }
                Ok(())
            }
            Action::TotalDefense => {
                need_main(s, p, unit)?;
                if u.has(&Condition::TotalDefense) {
                    return Err(format!("{who} is already in Total Defense"));
                }
                Ok(())
            }
            Action::Charge { target, to } => {
                need_main(s, p, unit)?;
                if !p.mv {
                    return Err(format!(
                        "a Charge spends the Main and the Move action; {who} has used its Move"
                    ));
                }
                if u.is_prone() {
                    return Err(format!("{who} is prone and must stand up to charge"));
                }
                not_held(s, unit)?;
                enemy_target(s, unit, *target)?;
                moves::charge_plan(s, unit, *target, *to).map(|_| ())
            }
            Action::Swarm { target } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                combat::can_swarm(s, r, unit, *target)
            }
            Action::Screen { ally, to } => {
                need_moves(s, p, unit, 1)?;
                moves::screen_ok(s, unit, *ally, *to)
            }
            Action::Shove {
                target,
                prone,
                push,
            } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                combat::shove_ok(s, unit, *target, *prone, *push)
            }
            Action::Grapple { target } => {
                need_main(s, p, unit)?;
                enemy_target(s, unit, *target)?;
                if !adjacent(s, unit, *target) {
                    return Err(format!("{} is not next to {who}", s.unit_name(*target)));
                }
                if let Some(t) = p.grappling {
                    return Err(format!(
                        "{who} is already grappling {} (one at a time)",
                        s.unit_name(t)
                    ));
                }
                Ok(())
            }
            Action::BreakFree => {
                need_main(s, p, unit)?;
                if grapplers_of(s, unit).is_empty() {
                    return Err(format!("{who} is not grappled"));
                }
                Ok(())
            }
            Action::Release => match p.grappling {
                Some(_) => Ok(()),
                None => Err(format!("{who} is not grappling anyone")),
            },
            Action::Drag { to } => {
                need_main(s, p, unit)?;
                combat::drag_plan(s, unit, *to).map(|_| ())
            }
            Action::Throw { to } => {
                need_main(s, p, unit)?;
                combat::throw_ok(s, unit, *to).map(|_| ())
            }
            Action::FirstAid { target } => {
                need_main(s, p, unit)?;
                let Some(t) = s.unit(*target) else {
                    return Err(format!("there is no {target}"));
                };
                if t.side != u.side || *target == unit {
                    return Err(format!("{} is not an ally of {who}", t.name));
                }
                if t.status != crate::rules::battle::Status::Down {
                    return Err(format!("{} is not down", t.name));
                }
                if !adjacent(s, unit, *target) {
                    return Err(format!("{} is not next to {who}", t.name));
                }
                Ok(())
            }
            other => Err(format!(
                "{} is not an action in the sides ruleset",
                other.name()
            )),
        },
        Command::EndTurn { .. } => Ok(()),
        Command::Pick { .. } | Command::Declare { .. } | Command::React { .. } => {
            Err("not an action".to_string())
        }
    }
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    match s.pending() {
        Decision::React { unit, .. } => match s.interrupts.last() {
            Some(top) => reaction_options(s, unit, top)
                .iter()
                .map(|o| reaction_cmd(unit, o))
                .collect(),
            None => Vec::new(),
        },
        Decision::Pick { options, .. } => options
            .into_iter()
            .map(|unit| Command::Pick { unit })
            .collect(),
        Decision::Act { unit } => act_commands(s, r, unit),
        _ => Vec::new(),
    }
}

/// Every command the acting `unit` may send, in a fixed order: end turn, attacks, actions,
/// charges, screens, moves.
fn act_commands(s: &BattleState, r: &State, unit: UnitId) -> Vec<Command> {
    let mut out = vec![Command::EndTurn { unit }];
    let Some(u) = s.unit(unit) else {
        return out;
    };
    let p = per(r, unit);
    let mut candidates = Vec::new();
    let enemies = s.enemies_of(unit);
    if p.main {
        for &target in &enemies {
            for ranged in [false, true] {
                candidates.push(Command::Attack {
                    unit,
                    target,
                    ranged,
                });
            }
        }
    }
    for action in [
        Action::GoProne,
        Action::StandUp,
        Action::Delay,
        Action::Disengage,
        Action::TotalDefense,
        Action::BreakFree,
        Action::Release,
    ] {
        candidates.push(Command::Act { unit, action });
    }
    if p.main {
        for &target in &enemies {
            candidates.push(Command::Act {
                unit,
                action: Action::Swarm { target },
            });
            candidates.push(Command::Act {
                unit,
                action: Action::Grapple { target },
            });
            candidates.push(Command::Act {
                unit,
                action: Action::Shove {
                    target,
                    prone: true,
                    push: None,
                },
            });
            if adjacent(s, unit, target) {
                let tc = s.units[target.index()].cell;
                for c in s.grid().neighbours(tc) {
                    candidates.push(Command::Act {
                        unit,
                        action: Action::Shove {
                            target,
                            prone: false,
                            push: Some(c),
                        },
                    });
                }
            }
        }
        if let Some(t) = p.grappling {
            let mut near: Vec<Cell> = Vec::new();
            for c in s.grid().neighbours(u.cell) {
                for d in std::iter::once(c).chain(s.grid().neighbours(c)) {
                    if !near.contains(&d) {
                        near.push(d);
                    }
                }
            }
            for to in near {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Drag { to },
                });
            }
            for to in s.grid().neighbours(s.units[t.index()].cell) {
                candidates.push(Command::Act {
                    unit,
                    action: Action::Throw { to },
                });
            }
        }
        for t in s.unit_ids() {
            let tu = &s.units[t.index()];
            if t != unit && tu.side == u.side && tu.status == crate::rules::battle::Status::Down {
                candidates.push(Command::Act {
                    unit,
                    action: Action::FirstAid { target: t },
                });
            }
        }
    }
    out.extend(
        candidates
            .into_iter()
            .filter(|c| check_action(s, r, c).is_ok()),
    );
    out.extend(moves::charge_commands(s, r, unit));
    out.extend(moves::screen_commands(s, r, unit));
    out.extend(moves::move_commands(s, r, unit));
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => react(x, *unit, reaction),
        Command::Pick { unit } => start_turn(x, *unit),
        Command::EndTurn { unit } => {
            let nested = rs(x.s()).nested.last().is_some_and(|n| n.0 == *unit);
            if nested {
                x.emit(ev(Ev::HeldDone { unit: *unit }));
            } else {
                x.emit(Event::TurnEnded { unit: *unit });
                x.emit(ev(Ev::TurnDone { unit: *unit }));
            }
        }
        Command::Declare { .. } => {}
        _ => run_command(x, cmd.clone(), 0),
    }
    settle(x);
}

/// Carries `cmd` through its stages: held actions and Snap Attacks first (stage 0), then it
/// is checked again and paid and may provoke attacks of opportunity (stage 1), then it takes
/// effect (stage 2).
fn run_command(x: &mut Exec, cmd: Command, stage: u8) {
    let actor = cmd.unit();
    if stage == 0 {
        let reactors = ready_reactors(x.s(), actor);
        if !reactors.is_empty() {
            defer(x, cmd, 1, Trigger::Ready { actor }, reactors);
            return;
        }
    } else if stage == 1
        && let Err(reason) = check_action(x.s(), rs(x.s()), &cmd)
    {
        x.emit(ev(Ev::Cancelled {
            unit: actor,
            reason,
        }));
        return;
    }
    // A Move's plan (the Move actions it takes and its path) from one search, for paying and
    // walking it: paying changes no cell, so the path found before paying is the one walked.
    let plan = match &cmd {
        Command::Move { unit, to } => moves::move_plan(x.s(), *unit, *to),
        _ => None,
    };
    if stage <= 1 {
        match &plan {
            Some((k, _)) => pay_cost(x, actor, Cost::Moves(*k)),
            None => pay(x, &cmd),
        }
        let reactors = moves::provoked_by(x.s(), &cmd);
        if !reactors.is_empty() {
            let action = provoking_name(&cmd);
            defer(x, cmd, 2, Trigger::Provoked { actor, action }, reactors);
            return;
        }
    }
    if active(x.s(), actor) {
        perform(x, &cmd, plan.map(|(_, path)| path));
    }
}

fn provoking_name(cmd: &Command) -> String {
    match cmd {
        Command::Act {
            action: Action::FirstAid { .. },
            ..
        } => "Use a Skill (first aid)".to_string(),
        Command::Act { action, .. } => action.name().to_string(),
        _ => "an action".to_string(),
    }
}

fn defer(x: &mut Exec, command: Command, stage: u8, trigger: Trigger, reactors: Vec<UnitId>) {
    let depth = x.s().interrupts.len() + 1;
    x.emit(ev(Ev::Deferred {
        depth,
        command,
        stage,
    }));
    x.emit(Event::Interrupted(Interrupt {
        trigger,
        reactors,
        resume: Sides::resume(After::Deferred),
    }));
}

/// Spends what `cmd` costs.
fn pay(x: &mut Exec, cmd: &Command) {
    let cost = cost_of(x.s(), cmd);
    pay_cost(x, cmd.unit(), cost);
}

/// Spends `cost` from `unit`'s actions.
fn pay_cost(x: &mut Exec, unit: UnitId, cost: Cost) {
    let p = per(rs(x.s()), unit).clone();
    let (mut main, mut mv) = (p.main, p.mv);
    match cost {
        Cost::Free => {}
        Cost::Main => main = false,
        Cost::MoveAction => mv = false,
        Cost::MainAndMove => {
            main = false;
            mv = false;
        }
        Cost::Moves(k) => {
            for _ in 0..k {
                if mv {
                    mv = false;
                } else {
                    main = false;
                }
            }
        }
    }
    spend(x, unit, main, mv);
}

fn spend(x: &mut Exec, unit: UnitId, main: bool, mv: bool) {
    let p = per(rs(x.s()), unit);
    if p.main != main || p.mv != mv {
        x.emit(ev(Ev::Actions { unit, main, mv }));
    }
}

/// The effect of a paid command; `path` is a Move's path, planned when it was paid (none if
/// the destination cannot be reached).
fn perform(x: &mut Exec, cmd: &Command, path: Option<Path>) {
    match cmd {
        Command::Move { unit, .. } => {
            if let Some(path) = path {
                moves::walk_run(x, *unit, &path.cells(), false);
            }
        }
        Command::Attack {
            unit,
            target,
            ranged,
        } => {
            let assailants = combat::swarm_assailants(x.s(), *unit, *target);
            if !assailants.is_empty() {
                x.emit(ev(Ev::SwarmStrike {
                    target: *target,
                    assailants: assailants.clone(),
                }));
            }
            combat::begin(
                x,
                Spec {
                    attacker: *unit,
                    target: *target,
                    ranged: *ranged,
                    kind: Kind::Normal,
                    swarm: assailants.len() as i64,
                },
            );
        }
        Command::Act { unit, action } => act(x, *unit, action),
        _ => {}
    }
}

fn act(x: &mut Exec, unit: UnitId, action: &Action) {
    match action {
        Action::GoProne => x.set_condition(unit, Condition::Prone, true),
        Action::StandUp => x.set_condition(unit, Condition::Prone, false),
        Action::Delay => {
            x.set_condition(unit, Condition::Holding, true);
            x.emit(Event::TurnEnded { unit });
            x.emit(ev(Ev::TurnDone { unit }));
        }
        Action::Disengage => {
            let from = x.s().enemies_in_reach_of(unit);
            x.emit(ev(Ev::Disengaged { unit, from }));
            x.set_condition(unit, Condition::Disengaged, true);
        }
        Action::TotalDefense => x.set_condition(unit, Condition::TotalDefense, true),
        Action::Charge { target, to } => {
            let plan = match moves::charge_plan(x.s(), unit, *target, *to) {
                Ok(plan) => plan,
                Err(reason) => {
                    x.emit(ev(Ev::Cancelled { unit, reason }));
                    return;
                }
            };
            x.set_condition(unit, Condition::Charging, true);
            x.walk(unit, &plan.cells, false, &mut |_, _, _, _| Vec::new());
            if active(x.s(), unit) && active(x.s(), *target) {
                let ranged = !x.s().in_melee_reach(unit, *target);
                if combat::can_attack(x.s(), unit, *target, ranged).is_ok() {
                    combat::begin(
                        x,
                        Spec {
                            attacker: unit,
                            target: *target,
                            ranged,
                            kind: Kind::Charge,
                            swarm: 0,
                        },
                    );
                }
            }
        }
        Action::Swarm { target } => x.emit(ev(Ev::Swarmed {
            target: *target,
            assailant: unit,
        })),
        Action::Screen { ally, to } => {
            let here = x.s().units[unit.index()].cell;
            if *to != here {
                let Some(path) = moves::move_path(x.s(), unit, *to, 1) else {
                    let reason = format!("{to} can no longer be reached");
                    x.emit(ev(Ev::Cancelled { unit, reason }));
                    return;
                };
                x.walk(unit, &path.cells(), false, &mut |_, _, _, _| Vec::new());
            }
            let old: Vec<Condition> = x.s().units[unit.index()]
                .conditions
                .iter()
                .filter(|c| matches!(c, Condition::Screening { .. }))
                .cloned()
                .collect();
            for c in old {
                x.set_condition(unit, c, false);
            }
            if active(x.s(), unit) {
                x.set_condition(unit, Condition::Screening { ally: *ally }, true);
            }
        }
        Action::Shove {
            target,
            prone,
            push,
        } => combat::begin(
            x,
            Spec {
                attacker: unit,
                target: *target,
                ranged: false,
                kind: Kind::Shove {
                    prone: *prone,
                    push: *push,
                },
                swarm: 0,
            },
        ),
        Action::Grapple { target } => combat::begin(
            x,
            Spec {
                attacker: unit,
                target: *target,
                ranged: false,
                kind: Kind::Grapple,
                swarm: 0,
            },
        ),
        Action::BreakFree => combat::break_free(x, unit),
        Action::Release => combat::release(x, unit),
        Action::Drag { to } => combat::drag(x, unit, *to),
        Action::Throw { to } => combat::throw(x, unit, *to),
        Action::FirstAid { target } => combat::first_aid(x, unit, *target),
        _ => {}
    }
}

/// A reaction: an attack of opportunity, a Snap Attack, Total Defense or a held action.
fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
    let trigger = x.s().interrupts.last().map(|i| i.trigger.clone());
    let depth = x.s().interrupts.len();
    x.emit(Event::Reacted {
        unit,
        reaction: reaction.clone(),
    });
    match reaction {
        Reaction::TotalDefense => {
            spend(x, unit, false, per(rs(x.s()), unit).mv);
            x.set_condition(unit, Condition::TotalDefense, true);
        }
        Reaction::TakeHeld => x.emit(ev(Ev::Queued { unit, depth })),
        Reaction::Attack { target } => {
            let opportunity = matches!(
                trigger,
                Some(Trigger::Opportunity { .. } | Trigger::Provoked { .. })
            );
            if opportunity {
                combat::begin(
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
                spend(x, unit, false, per(rs(x.s()), unit).mv);
                let ranged = !x.s().in_melee_reach(unit, *target);
                combat::begin(
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

#[cfg(test)]
mod tests;
