//! Ruleset `alternating` (seed 003): teams alternate picking one member to take a turn of three
//! actions; one reaction per turn; attribute die + skill die + proficiency against evasion.
//!
//! - Team order (rule ): the instigating side (`options.instigator`, default the
//!   first side) first, then the other sides in level order (house rule: the attacked side is
//!   the next side in level order). Each round the teams pick in that order, one member per
//!   pick, passing to the next team that still has a member able to act; a team with none left
//!   is passed over; when no team has one, the round ends.
//! - Surprise: if `options.surprised` names anyone, round 1 is a surprise round in which the
//!   surprised units (those without `danger_sense`) take no turn and have no reaction; anyone
//!   else alternates as normal.
//! - A turn: 3 actions (`actions` pool) and the reaction recovered (`reactions` pool).
//!   Move (once), Sprint (after moving, 1 stamina), Step (free, once, instead of a move),
//!   Attack, Reload, Brandish (take up the other weapon), Seek Cover, Stand Up, Drop Prone (free), Resuscitate (2 actions), Guard,
//!   Wait and Ready (each ends the turn), Command (1 action, 2 focus: an ally takes one action
//!   at once, once per turn per ally). An action costing more than the actions left is an
//!   extended action: it completes when the unit repeats the command on a later turn; any
//!   other command abandons it at no cost. The turn ends by itself when no action is left.
//! - Attacks: resolved by `attack` in this module; reactions Dodge, Parry and Block (1
//!   stamina + the reaction) are offered to a unit about to be hit; Fortify to stay
//!   conscious; a readied attack when an enemy enters the reach of a unit that readied
//!   (Ready); Resist (1 focus + the reaction) against a psychic attack, the one mental effect.
//! - Damage goes to endurance, then health; harmed, bloodied, unconscious (`Status::Down`),
//!   death tests (luck test 1d20 against 10, +5 for each cheat), killing strikes.
//!
//! House rules are listed in `assets/rulesets/alternating.ron` and `docs/rules/alternating.md`.

use crate::rules::battle::common::dice;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Interrupt, PendingAttack,
    Purpose, Reaction, ReadyTrigger, Rejected, Resume, SideId, Status, Trigger, Unit, UnitId,
};
use crate::rules::dice::{DiceExpr, Distribution};
use crate::rules::grid::Cell;
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};
use crate::rules::sight::{self, Cover};
use serde::{Deserialize, Serialize};

/// Actions per turn (seed: "Each turn in combat, characters may take three actions").
pub const ACTIONS: i64 = 3;
/// The luck test that cheats death starts at this difficulty and rises by [`DEATH_STEP`].
pub const DEATH_DIFFICULTY: i64 = 10;
pub const DEATH_STEP: i64 = 5;
/// House rule: the difficulty of the Resuscitate test.
pub const RESUSCITATE_DIFFICULTY: i64 = 6;
/// House rule: a test's luck die adds this on a 20 (seed: "adding a +4 when the luck die
/// rolls a 20 or greater").
pub const LUCK_BONUS: i64 = 4;
/// Multiple attack penalty per earlier attack in the round.
pub const MULTIPLE_ATTACK_PENALTY: i64 = 2;
/// Durability of an item with none listed that is made of metal (all weapons here).
pub const METAL_DURABILITY: i64 = 10;

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Team order, first picker first.
    pub teams: Vec<SideId>,
    /// Index in `teams` of the team that picks next (when no one is acting).
    pub picking: usize,
    /// The unit taking its turn.
    pub acting: Option<UnitId>,
    /// Units that have taken their turn this round.
    pub acted: Vec<UnitId>,
    /// Round 1 is a surprise round.
    pub surprise_round: bool,
    /// The acting unit has moved (Move or Sprint) this turn.
    pub moved: bool,
    /// The acting unit has taken its free Step this turn.
    pub stepped: bool,
    /// Attacks made this round, per unit.
    pub attacks: Vec<u32>,
    /// An extended action under way, per unit.
    pub extended: Vec<Option<Extended>>,
    /// Continuations waiting for the current chain of reactions to finish, innermost last.
    pub pending: Vec<Resume>,
    /// Allies the acting unit has commanded this turn.
    pub commanded_this_turn: Vec<UnitId>,
    /// An ally taking the one action a Command gave it.
    pub command: Option<Commanded>,
    /// Per unit: a unit with a ranged weapon holds it, unless it has brandished its melee
    /// weapon (true here). A unit with only a melee weapon always holds it.
    #[serde(default)]
    pub melee_drawn: Vec<bool>,
}

/// An ally acting on a Command: what to restore when its action is done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commanded {
    pub commander: UnitId,
    pub ally: UnitId,
    /// The ally's own actions, set aside while it takes the given one.
    pub ally_actions: i64,
    /// The commander's `moved` and `stepped`.
    pub moved: bool,
    pub stepped: bool,
}

/// An action started with too few actions left: `remaining` actions are still due.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extended {
    pub command: Command,
    pub remaining: i64,
}

/// The ruleset's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// The team order is settled; round 1 is a surprise round if `surprise_round`.
    Order {
        teams: Vec<SideId>,
        surprise_round: bool,
        units: usize,
    },
    /// A new round: nobody has acted or attacked yet.
    NewRound,
    /// The surprise round is over.
    SurpriseOver,
    /// `teams[team]` picks who acts next.
    Picking { team: usize },
    /// `unit` takes its turn.
    TurnOf { unit: UnitId },
    /// The acting unit's turn is over.
    TurnOver,
    /// The acting unit used its move (Move or Sprint).
    MoveUsed,
    /// The acting unit used its free Step.
    StepUsed,
    /// `unit` made an attack (counts towards the multiple attack penalty).
    AttackMade { unit: UnitId },
    /// `unit` started (or paid more of) an extended action; `remaining` actions are due.
    ExtendedStarted {
        unit: UnitId,
        command: Command,
        remaining: i64,
    },
    /// `unit`'s extended action is complete, or abandoned.
    ExtendedDone { unit: UnitId, completed: bool },
    /// `ally` takes one action on `commander`'s Command.
    CommandGiven {
        commander: UnitId,
        ally: UnitId,
        ally_actions: i64,
    },
    /// The commanded action is done; the commander's turn goes on.
    CommandDone,
    /// A continuation waits for the reactions now being asked for.
    Defer(Resume),
    /// The innermost deferred continuation runs.
    Undefer,
    /// `unit` brandished its melee weapon (`melee`) or its ranged weapon.
    Brandished { unit: UnitId, melee: bool },
    /// How a hit's damage came out (for the log; changes nothing): `raw` (the attack test +
    /// weapon), less `reduction` (deflection, of which `parry` from a Parry; or the shield's
    /// block), is `amount` (at least 1).
    Damage {
        attacker: UnitId,
        target: UnitId,
        raw: i64,
        reduction: i64,
        parry: i64,
        blocked: bool,
        amount: i64,
    },
}

/// What an attack paused for reactions notes ([`crate::rules::rulesets::Ruleset::Note`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttackNote {
    /// The attack was intercepted: the interceptor's defence against it is a free reaction.
    pub free: bool,
}

/// The `alternating` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct Alternating;

impl crate::rules::rulesets::Ruleset for Alternating {
    type State = State;
    type Event = Ev;
    type Resume = crate::rules::rulesets::Never;
    type Note = AttackNote;
    const DATA: &'static str = include_str!("../../../../assets/rulesets/alternating.ron");
    const STATS: &'static [&'static str] = &[
        "evasion",
        "endurance",
        "health",
        "constitution",
        "stamina",
        "focus",
        "strength",
        "dexterity",
        "combat",
        "size",
        "deflection",
        "weapon_damage",
        "crit_damage",
        "crit_threshold",
    ];

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

fn ev(e: Ev) -> Event {
    Alternating::event(e)
}

fn st(s: &BattleState) -> &State {
    Alternating::state(s)
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Order {
            teams,
            surprise_round,
            units,
        } => {
            s.teams = teams.clone();
            s.surprise_round = *surprise_round;
            s.attacks = vec![0; *units];
            s.extended = vec![None; *units];
            s.melee_drawn = vec![false; *units];
        }
        Ev::NewRound => {
            s.acted.clear();
            s.attacks.iter_mut().for_each(|a| *a = 0);
            s.picking = 0;
        }
        Ev::SurpriseOver => s.surprise_round = false,
        Ev::Picking { team } => s.picking = *team,
        Ev::TurnOf { unit } => {
            s.acting = Some(*unit);
            s.acted.push(*unit);
            s.moved = false;
            s.stepped = false;
            s.commanded_this_turn.clear();
            s.command = None;
        }
        Ev::TurnOver => s.acting = None,
        Ev::CommandGiven {
            commander,
            ally,
            ally_actions,
        } => {
            s.command = Some(Commanded {
                commander: *commander,
                ally: *ally,
                ally_actions: *ally_actions,
                moved: s.moved,
                stepped: s.stepped,
            });
            s.commanded_this_turn.push(*ally);
            s.acting = Some(*ally);
            s.moved = false;
            s.stepped = false;
        }
        Ev::CommandDone => {
            if let Some(c) = s.command.take() {
                s.acting = Some(c.commander);
                s.moved = c.moved;
                s.stepped = c.stepped;
            }
        }
        Ev::MoveUsed => s.moved = true,
        Ev::Damage { .. } => {}
        Ev::Brandished { unit, melee } => {
            if let Some(d) = s.melee_drawn.get_mut(unit.index()) {
                *d = *melee;
            }
        }
        Ev::StepUsed => s.stepped = true,
        Ev::AttackMade { unit } => {
            if let Some(a) = s.attacks.get_mut(unit.index()) {
                *a += 1;
            }
        }
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
        Ev::Defer(r) => s.pending.push(r.clone()),
        Ev::Undefer => {
            s.pending.pop();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Start, rounds, picks and turns

pub fn start(x: &mut Exec) {
    let ids: Vec<UnitId> = x.s().unit_ids().collect();
    for &u in &ids {
        let unit = x.s().units[u.index()].clone();
        for key in ["endurance", "health", "stamina", "focus"] {
            x.set_pool(u, key, unit.stat(key));
        }
        x.set_pool(u, "death", DEATH_DIFFICULTY);
        x.set_pool(u, "weapon", METAL_DURABILITY);
        if unit.stat("block") > 0 {
            x.set_pool(u, "shield", unit.stat("block_durability").max(1));
        }
        if unit.stat("range") > 0 && unit.stat("reload_actions") > 0 {
            x.set_pool(u, "loaded", 1);
        }
    }
    // Surprise: units that can be surprised (no danger sense) of the listed sides or names.
    let mut surprise = false;
    for &u in &ids {
        if x.s().named_surprised(u) {
            if x.s().units[u.index()].stat("danger_sense") > 0 {
                continue;
            }
            surprise = true;
            x.set_condition(u, Condition::Surprised, true);
        }
    }
    // Everyone else starts with the reaction of a fresh turn; the surprised have none until
    // their first turn.
    for &u in &ids {
        let r = i64::from(!x.s().units[u.index()].has(&Condition::Surprised));
        x.set_pool(u, "reactions", r);
    }
    let n = x.s().sides.len();
    let first = x
        .s()
        .level
        .options
        .instigator
        .as_ref()
        .and_then(|name| x.s().sides.iter().position(|s| &s.name == name))
        .unwrap_or(0);
    let teams: Vec<SideId> = (0..n).map(|i| SideId(((first + i) % n) as u8)).collect();
    x.emit(ev(Ev::Order {
        teams,
        surprise_round: surprise,
        units: ids.len(),
    }));
    begin_round(x);
}

fn begin_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(ev(Ev::NewRound));
    next_pick(x, 0);
}

fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    if st(x.s()).surprise_round {
        x.emit(ev(Ev::SurpriseOver));
        for u in x.s().unit_ids().collect::<Vec<_>>() {
            x.set_condition(u, Condition::Surprised, false);
        }
    }
    begin_round(x);
}

/// Whether `u` may still be picked this round.
fn can_take_turn(s: &BattleState, r: &State, u: UnitId) -> bool {
    let unit = &s.units[u.index()];
    unit.is_active() && !r.acted.contains(&u) && !unit.has(&Condition::Surprised)
}

/// The members `team` may pick now.
fn options_of(s: &BattleState, r: &State, team: SideId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| s.units[u.index()].side == team && can_take_turn(s, r, u))
        .collect()
}

/// Hands the pick to the first team at or after `from` (in team order, wrapping) with a
/// member left to act; ends the round when no team has one.
fn next_pick(x: &mut Exec, from: usize) {
    let r = st(x.s());
    let n = r.teams.len();
    for i in 0..n {
        let idx = (from + i) % n;
        if !options_of(x.s(), r, r.teams[idx]).is_empty() {
            x.emit(ev(Ev::Picking { team: idx }));
            return;
        }
    }
    end_round(x);
}

fn begin_turn(x: &mut Exec, u: UnitId) {
    x.emit(ev(Ev::TurnOf { unit: u }));
    x.emit(Event::TurnStarted { unit: u });
    x.set_pool(u, "actions", ACTIONS);
    x.set_pool(u, "reactions", 1);
    // Effects that last "until next turn" end now.
    for c in [Condition::Guarding, Condition::InCover, Condition::Holding] {
        x.set_condition(u, c, false);
    }
}

fn end_turn(x: &mut Exec, u: UnitId) {
    x.emit(Event::TurnEnded { unit: u });
    x.emit(ev(Ev::TurnOver));
    let r = st(x.s());
    let side = x.s().units[u.index()].side;
    let idx = r.teams.iter().position(|&t| t == side).unwrap_or(0);
    next_pick(x, idx + 1);
}

/// After a command: run deferred continuations once no reaction is awaited, then end the
/// acting unit's turn if it has no action left or can no longer act.
fn settle(x: &mut Exec) {
    loop {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        if let Some(c) = st(x.s()).pending.last().cloned() {
            x.emit(ev(Ev::Undefer));
            run(x, c);
            continue;
        }
        break;
    }
    if let Some(c) = st(x.s()).command.clone() {
        let ally = &x.s().units[c.ally.index()];
        if ally.is_active() && ally.pool("actions") > 0 {
            return;
        }
        end_command(x, &c);
    }
    let Some(u) = st(x.s()).acting else { return };
    let unit = &x.s().units[u.index()];
    if !unit.is_active() || unit.pool("actions") <= 0 {
        end_turn(x, u);
    }
}

/// The commanded ally's action is done: it gets its own actions back and the commander goes on.
fn end_command(x: &mut Exec, c: &Commanded) {
    x.set_pool(c.ally, "actions", c.ally_actions);
    x.emit(ev(Ev::CommandDone));
}

fn run(x: &mut Exec, c: Resume) {
    match c {
        Resume::Move { unit, rest } => walk(x, unit, &rest),
        Resume::Attack(p) => finish_attack(x, &p, &Reaction::Decline),
        Resume::Nothing | Resume::Rules(_) => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions and commands

pub fn pending(s: &BattleState, r: &State) -> Decision {
    if let Some(unit) = r.acting {
        return Decision::Act { unit };
    }
    match r.teams.get(r.picking) {
        Some(&side) => Decision::Pick {
            side,
            options: options_of(s, r, side),
        },
        None => Decision::Over { winner: None },
    }
}

/// Actions a command costs (0 for free actions and ending the turn).
fn cost(s: &BattleState, cmd: &Command) -> i64 {
    let Some(u) = s.unit(cmd.unit()) else {
        return 0;
    };
    match cmd {
        Command::Attack { target, .. } => {
            if s.unit(*target).is_some_and(|t| t.status == Status::Down) {
                3
            } else {
                1
            }
        }
        Command::Move { .. } => 1,
        Command::Act { action, .. } => match action {
            Action::Sprint { .. }
            | Action::SeekCover
            | Action::StandUp
            | Action::CommandAlly { .. }
            | Action::Brandish => 1,
            Action::Reload => u.stat("reload_actions").max(1),
            Action::Resuscitate { .. } => 2,
            _ => 0,
        },
        _ => 0,
    }
}

/// Whether `unit` holds its melee weapon (house rule "hands"): a unit without a ranged weapon
/// always does; one with a ranged weapon holds that until it brandishes the melee weapon.
fn holds_melee(s: &BattleState, unit: UnitId) -> bool {
    s.unit(unit).is_some_and(|u| u.stat("range") <= 0)
        || st(s)
            .melee_drawn
            .get(unit.index())
            .copied()
            .unwrap_or(false)
}

/// Whether `attacker` may attack `target` (melee or ranged) from where it stands.
fn target_ok(
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
        let range = a.stat("range");
        if range <= 0 {
            return Err(Rejected::new(format!("{} has no ranged weapon", a.name)));
        }
        if a.stat("reload_actions") > 0 && a.pool("loaded") <= 0 {
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

fn check_react(s: &BattleState, unit: UnitId, reaction: &Reaction) -> Result<(), Rejected> {
    let Some(top) = s.interrupts.last() else {
        return Err(Rejected::new("nothing to react to now"));
    };
    check_react_in(s, top, unit, reaction)
}

/// Whether `unit` could answer `trigger` with `reaction` (before the interrupt is raised).
fn check_react_with(
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

fn check_react_in(
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
            "only {} can {reaction:?} this attack",
            s.units[target.index()].name
        )));
    }
    let spend = |what: &str| -> Result<(), Rejected> {
        if u.pool("reactions") < 1 && !free {
            return Err(Rejected::new(format!("{} has no reaction left", u.name)));
        }
        if u.pool("stamina") < 1 {
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
            if u.pool("weapon") <= 0 {
                return Err(Rejected::new(format!("{}'s weapon is broken", u.name)));
            }
            Ok(())
        }
        (Trigger::Attacked { .. }, Reaction::Block) => {
            spend("block")?;
            if u.stat("block") <= 0 {
                return Err(Rejected::new(format!("{} has no shield", u.name)));
            }
            if u.pool("shield") <= 0 {
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
            if u.pool("reactions") < 1 && !free {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            if u.pool("focus") < 1 {
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
            if u.pool("reactions") < 1 {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            if u.pool("stamina") < 1 {
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
            if u.pool("reactions") < 1 {
                return Err(Rejected::new(format!("{} has no reaction left", u.name)));
            }
            target_ok(s, unit, *target, false)
        }
        (_, other) => Err(Rejected::new(format!(
            "{other:?} is not a reaction {} can take now",
            u.name
        ))),
    }
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let u = &s.units[unit.index()];
    if let Command::React { reaction, .. } = cmd {
        return check_react(s, unit, reaction);
    }
    let Some(cur) = r.acting else {
        let Some(&side) = r.teams.get(r.picking) else {
            return Err(Rejected::new("no one is picking"));
        };
        let team = s.sides.get(side.index()).map_or("?", |x| x.name.as_str());
        let Command::Pick { unit } = cmd else {
            return Err(Rejected::new(format!(
                "the {team} must first pick who takes the next turn"
            )));
        };
        if u.side != side {
            return Err(Rejected::new(format!(
                "{} is not one of the {team}, who pick now",
                u.name
            )));
        }
        if !options_of(s, r, side).contains(unit) {
            let why = if !u.is_active() {
                "cannot act"
            } else if r.acted.contains(unit) {
                "has already taken a turn this round"
            } else {
                "is surprised"
            };
            return Err(Rejected::new(format!("{} {why}", u.name)));
        }
        return Ok(());
    };
    if let Command::Pick { .. } = cmd {
        return Err(Rejected::new(format!(
            "{} is taking a turn; no pick now",
            s.units[cur.index()].name
        )));
    }
    if unit != cur {
        return Err(Rejected::new(format!(
            "it is {}'s turn, not {}'s",
            s.units[cur.index()].name,
            u.name
        )));
    }
    let actions = u.pool("actions");
    let need = cost(s, cmd);
    if need > 0 && actions < 1 {
        return Err(Rejected::new(format!("{} has no action left", u.name)));
    }
    let prone = |what: &str| -> Result<(), Rejected> {
        if u.is_prone() {
            Err(Rejected::new(format!(
                "{} is prone: Stand Up before {what}",
                u.name
            )))
        } else {
            Ok(())
        }
    };
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Move { to, .. } => {
            prone("moving")?;
            if r.moved {
                return Err(Rejected::new(format!(
                    "{} has already moved this turn (Sprint moves again)",
                    u.name
                )));
            }
            if r.stepped {
                return Err(Rejected::new(format!(
                    "{} took a Step instead of a move this turn",
                    u.name
                )));
            }
            reachable(s, unit, *to, u.movement)
        }
        Command::Attack { target, ranged, .. } => target_ok(s, unit, *target, *ranged),
        Command::Act { action, .. } => match action {
            Action::Sprint { to } => {
                prone("sprinting")?;
                if !r.moved {
                    return Err(Rejected::new(format!(
                        "{} must Move before sprinting",
                        u.name
                    )));
                }
                if u.pool("stamina") < 1 {
                    return Err(Rejected::new(format!(
                        "{} has no stamina to sprint",
                        u.name
                    )));
                }
                reachable(s, unit, *to, u.movement)
            }
            Action::Step { to } => {
                prone("stepping")?;
                if r.stepped {
                    return Err(Rejected::new(format!(
                        "{} has already stepped this turn",
                        u.name
                    )));
                }
                if r.moved {
                    return Err(Rejected::new(format!(
                        "a Step is instead of a move, and {} has moved",
                        u.name
                    )));
                }
                reachable(s, unit, *to, 1)
            }
            Action::Guard | Action::Wait | Action::Ready { .. } if r.command.is_some() => {
                Err(Rejected::new(format!(
                    "{} is taking one commanded action and cannot end a turn with {}",
                    u.name,
                    action_name(action)
                )))
            }
            Action::Guard | Action::Wait => Ok(()),
            Action::Ready {
                trigger: ReadyTrigger::EnemyInReach,
            } => Ok(()),
            Action::CommandAlly { ally } => {
                if r.command.is_some() {
                    return Err(Rejected::new(format!(
                        "{} is acting on a Command and cannot give one",
                        u.name
                    )));
                }
                let Some(a) = s.unit(*ally) else {
                    return Err(Rejected::new(format!("there is no {ally}")));
                };
                if a.side != u.side || *ally == unit {
                    return Err(Rejected::new(format!(
                        "{} is not an ally of {}",
                        a.name, u.name
                    )));
                }
                if !a.is_active() {
                    return Err(Rejected::new(format!("{} cannot act", a.name)));
                }
                if r.commanded_this_turn.contains(ally) {
                    return Err(Rejected::new(format!(
                        "{} has already commanded {} this turn",
                        u.name, a.name
                    )));
                }
                if u.pool("focus") < 2 {
                    return Err(Rejected::new(format!(
                        "{} needs 2 focus to command (has {})",
                        u.name,
                        u.pool("focus")
                    )));
                }
                Ok(())
            }
            Action::Ready { .. } => Err(Rejected::new(
                "the readied action here is an attack on an enemy that comes within reach \
                 (EnemyInReach)",
            )),
            Action::Brandish => {
                if u.stat("range") <= 0 {
                    Err(Rejected::new(format!(
                        "{} has only one weapon to hold",
                        u.name
                    )))
                } else {
                    Ok(())
                }
            }
            Action::SeekCover => {
                if u.has(&Condition::InCover) {
                    Err(Rejected::new(format!("{} is already in cover", u.name)))
                } else {
                    Ok(())
                }
            }
            Action::StandUp => {
                if u.is_prone() {
                    Ok(())
                } else {
                    Err(Rejected::new(format!("{} is not prone", u.name)))
                }
            }
            Action::GoProne => {
                if u.is_prone() {
                    Err(Rejected::new(format!("{} is already prone", u.name)))
                } else {
                    Ok(())
                }
            }
            Action::Reload => {
                if u.stat("range") <= 0 || u.stat("reload_actions") <= 0 {
                    return Err(Rejected::new(format!("{} has nothing to reload", u.name)));
                }
                if u.pool("loaded") > 0 {
                    return Err(Rejected::new(format!("{}'s weapon is loaded", u.name)));
                }
                Ok(())
            }
            Action::Resuscitate { target } => {
                let Some(t) = s.unit(*target) else {
                    return Err(Rejected::new(format!("there is no {target}")));
                };
                if t.side != u.side || *target == unit {
                    return Err(Rejected::new(format!(
                        "{} is not an ally of {}",
                        t.name, u.name
                    )));
                }
                if t.status != Status::Down {
                    return Err(Rejected::new(format!("{} is not unconscious", t.name)));
                }
                if s.grid().distance_steps(u.cell, t.cell) != 1 {
                    return Err(Rejected::new(format!(
                        "{} is not next to {}",
                        t.name, u.name
                    )));
                }
                Ok(())
            }
            other => Err(Rejected::new(format!(
                "{} is not an action in the alternating ruleset (Move, Sprint, Step, Attack, \
                 Reload, Seek Cover, Stand Up, Go Prone, Resuscitate, Guard, Wait, Ready, End \
                 Turn)",
                other.name()
            ))),
        },
        Command::Pick { .. } | Command::Declare { .. } => {
            Err(Rejected::new("no declarations in the alternating ruleset"))
        }
        Command::React { .. } => Ok(()),
    }
}

fn action_name(a: &Action) -> &'static str {
    a.name()
}

fn reachable(s: &BattleState, unit: UnitId, to: Cell, budget: u32) -> Result<(), Rejected> {
    let u = &s.units[unit.index()];
    if to == u.cell {
        return Err(Rejected::new(format!("{} is already at {to}", u.name)));
    }
    if !s.can_end_move(unit, budget, to) {
        return Err(Rejected::new(format!(
            "{} cannot reach {to} with {budget} m of movement",
            u.name
        )));
    }
    Ok(())
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::Pick { options, .. } => {
            out.extend(options.into_iter().map(|unit| Command::Pick { unit }));
        }
        Decision::React { unit, .. } => {
            let mut cands = vec![
                Reaction::Decline,
                Reaction::Dodge,
                Reaction::Parry,
                Reaction::Block,
                Reaction::Fortify,
                Reaction::Intercept,
                Reaction::Resist,
            ];
            if let Some(Trigger::Ready { actor }) = s.interrupts.last().map(|i| &i.trigger) {
                cands.push(Reaction::Attack { target: *actor });
            }
            for reaction in cands {
                if check_react(s, unit, &reaction).is_ok() {
                    out.push(Command::React { unit, reaction });
                }
            }
        }
        Decision::Act { unit } => {
            let u = &s.units[unit.index()];
            let mut cands = vec![Command::EndTurn { unit }];
            if let Some(Some(e)) = r.extended.get(unit.index()) {
                cands.push(e.command.clone());
            }
            for target in s.unit_ids() {
                for ranged in [false, true] {
                    cands.push(Command::Attack {
                        unit,
                        target,
                        ranged,
                    });
                }
                cands.push(Command::Act {
                    unit,
                    action: Action::Resuscitate { target },
                });
                cands.push(Command::Act {
                    unit,
                    action: Action::CommandAlly { ally: target },
                });
            }
            for action in [
                Action::Reload,
                Action::Brandish,
                Action::SeekCover,
                Action::StandUp,
                Action::GoProne,
                Action::Guard,
                Action::Wait,
                Action::Ready {
                    trigger: ReadyTrigger::EnemyInReach,
                },
            ] {
                cands.push(Command::Act { unit, action });
            }
            for c in cands {
                if !out.contains(&c) && check(s, r, &c).is_ok() {
                    out.push(c);
                }
            }
            if u.pool("actions") >= 1 && !u.is_prone() && !r.stepped {
                let reach = s.reach_of(unit, u.movement, None);
                for (to, _) in reach.destinations() {
                    if to == u.cell {
                        continue;
                    }
                    if !r.moved {
                        out.push(Command::Move { unit, to });
                    } else if u.pool("stamina") >= 1 {
                        out.push(Command::Act {
                            unit,
                            action: Action::Sprint { to },
                        });
                    }
                }
            }
            if !u.is_prone() && !r.stepped && !r.moved {
                let reach = s.reach_of(unit, 1, None);
                for (to, _) in reach.destinations() {
                    if to != u.cell {
                        out.push(Command::Act {
                            unit,
                            action: Action::Step { to },
                        });
                    }
                }
            }
        }
        Decision::Declare { .. } | Decision::Over { .. } => {}
    }
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::React { unit, reaction } => {
            react(x, *unit, reaction);
            settle(x);
        }
        Command::Pick { unit } => {
            begin_turn(x, *unit);
            settle(x);
        }
        _ => {
            let unit = cmd.unit();
            let ext = st(x.s()).extended.get(unit.index()).cloned().flatten();
            if let Some(e) = ext {
                if e.command == *cmd {
                    let have = x.s().units[unit.index()].pool("actions");
                    if have < e.remaining {
                        x.set_pool(unit, "actions", 0);
                        x.emit(ev(Ev::ExtendedStarted {
                            unit,
                            command: e.command,
                            remaining: e.remaining - have,
                        }));
                    } else {
                        x.add_pool(unit, "actions", -e.remaining);
                        x.emit(ev(Ev::ExtendedDone {
                            unit,
                            completed: true,
                        }));
                        perform(x, cmd);
                    }
                    settle(x);
                    return;
                }
                // Anything else abandons it, at no cost.
                x.emit(ev(Ev::ExtendedDone {
                    unit,
                    completed: false,
                }));
            }
            if let Command::EndTurn { unit } = cmd {
                match st(x.s()).command.clone() {
                    Some(c) => {
                        end_command(x, &c);
                        settle(x);
                    }
                    None => end_turn(x, *unit),
                }
                return;
            }
            let need = cost(x.s(), cmd);
            let have = x.s().units[unit.index()].pool("actions");
            if need > have {
                x.set_pool(unit, "actions", 0);
                x.emit(ev(Ev::ExtendedStarted {
                    unit,
                    command: cmd.clone(),
                    remaining: need - have,
                }));
            } else {
                x.add_pool(unit, "actions", -need);
                perform(x, cmd);
            }
            settle(x);
        }
    }
}

/// The effect of a command whose actions are paid.
fn perform(x: &mut Exec, cmd: &Command) {
    let unit = cmd.unit();
    match cmd {
        Command::Move { to, .. }
        | Command::Act {
            action: Action::Sprint { to },
            ..
        } => {
            x.emit(ev(Ev::MoveUsed));
            if matches!(cmd, Command::Act { .. }) {
                x.add_pool(unit, "stamina", -1);
            }
            let u = &x.s().units[unit.index()];
            if let Some(path) = x.s().path_for(unit, u.movement, None, *to) {
                walk(x, unit, &path.cells());
            }
        }
        Command::Act {
            action: Action::Step { to },
            ..
        } => {
            x.emit(ev(Ev::StepUsed));
            if let Some(path) = x.s().path_for(unit, 1, None, *to) {
                walk(x, unit, &path.cells());
            }
        }
        Command::Attack { target, ranged, .. } => {
            let down = x
                .s()
                .unit(*target)
                .is_some_and(|t| t.status == Status::Down);
            if down {
                killing_strike(x, unit, *target);
            } else if x.s().unit(*target).is_some_and(|t| t.is_active()) {
                attack(x, unit, *target, *ranged, 0);
            }
        }
        Command::Act { action, .. } => match action {
            Action::Guard => {
                x.set_condition(unit, Condition::Guarding, true);
                end_turn(x, unit);
            }
            Action::Wait => {
                x.add_pool(unit, "reactions", 1);
                end_turn(x, unit);
            }
            Action::Ready { .. } => {
                x.set_condition(unit, Condition::Holding, true);
                end_turn(x, unit);
            }
            Action::SeekCover => x.set_condition(unit, Condition::InCover, true),
            Action::Brandish => {
                let melee = !holds_melee(x.s(), unit);
                x.emit(ev(Ev::Brandished { unit, melee }));
            }
            Action::StandUp => x.set_condition(unit, Condition::Prone, false),
            Action::GoProne => x.set_condition(unit, Condition::Prone, true),
            Action::Reload => x.set_pool(unit, "loaded", 1),
            Action::Resuscitate { target } => resuscitate(x, unit, *target),
            Action::CommandAlly { ally } => {
                x.add_pool(unit, "focus", -2);
                let ally_actions = x.s().units[ally.index()].pool("actions");
                x.emit(ev(Ev::CommandGiven {
                    commander: unit,
                    ally: *ally,
                    ally_actions,
                }));
                x.set_pool(*ally, "actions", 1);
            }
            _ => {}
        },
        _ => {}
    }
}

/// Walks `unit` along `cells` (its cell first). After each step into the reach of an enemy
/// that readied an action (and has its reaction), the walk pauses for that enemy's answer.
fn walk(x: &mut Exec, unit: UnitId, cells: &[Cell]) {
    for (i, pair) in cells.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        if x.over() || !x.s().units[unit.index()].is_active() {
            return;
        }
        if x.s().units[unit.index()].cell != from {
            return;
        }
        x.emit(Event::Moved { unit, from, to });
        let reactors = ready_reactors(x.s(), unit, from, to);
        if !reactors.is_empty() {
            x.emit(Event::Interrupted(Interrupt {
                trigger: Trigger::Ready { actor: unit },
                reactors,
                resume: Resume::Move {
                    unit,
                    rest: cells[i + 1..].to_vec(),
                },
            }));
            return;
        }
    }
}

fn covers(s: &BattleState, reactor: UnitId, c: Cell) -> bool {
    let r = &s.units[reactor.index()];
    let d = s.grid().distance_steps(r.cell, c);
    d >= 1 && d <= r.reach && (d == 1 || sight::line_of_sight(&s.terrain, r.cell, c))
}

/// Enemies of `mover` holding a readied action, with a reaction left, whose reach `mover`
/// enters by stepping from `from` to `to`.
fn ready_reactors(s: &BattleState, mover: UnitId, from: Cell, to: Cell) -> Vec<UnitId> {
    s.enemies_of(mover)
        .into_iter()
        .filter(|&e| {
            let u = &s.units[e.index()];
            u.has(&Condition::Holding)
                && u.pool("reactions") >= 1
                && covers(s, e, to)
                && !covers(s, e, from)
        })
        .collect()
}

fn react(x: &mut Exec, unit: UnitId, reaction: &Reaction) {
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
                x.emit(ev(Ev::Defer(top.resume.clone())));
            }
            if let Reaction::Attack { target } = reaction {
                x.add_pool(unit, "reactions", -1);
                x.set_condition(unit, Condition::Holding, false);
                attack(x, unit, *target, false, 0);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests, attacks and damage

/// A test's dice: two dice (an attribute and a skill) plus a bonus.
fn test_expr(a: i64, b: i64, bonus: i64) -> DiceExpr {
    dice(&format!("1d{}+1d{}{:+}", a.max(1), b.max(1), bonus))
}

/// Rolls a test (not an attack): the dice, then the luck die, which adds +4 on a 20. Returns
/// whether it reached `against`.
fn test(x: &mut Exec, unit: UnitId, purpose: Purpose, expr: &DiceExpr, against: i64) -> bool {
    let roll = x.roll(Some(unit), None, purpose.clone(), expr, Some(against));
    let luck = x.roll(Some(unit), None, Purpose::Luck, &dice("1d20"), Some(20));
    let total = roll.total + if luck.total >= 20 { LUCK_BONUS } else { 0 };
    total >= against
}

fn fortify(x: &mut Exec, unit: UnitId, difficulty: i64) -> bool {
    x.add_pool(unit, "stamina", -1);
    x.add_pool(unit, "reactions", -1);
    let u = x.s().units[unit.index()].clone();
    let bonus = u.stat("fortitude") + i64::from(u.has(&Condition::Guarding));
    let expr = test_expr(u.stat("strength"), u.stat("athletics"), bonus);
    test(x, unit, Purpose::Fortify, &expr, difficulty)
}

fn resuscitate(x: &mut Exec, unit: UnitId, target: UnitId) {
    x.set_condition(unit, Condition::Prone, true);
    if x.s().unit(target).is_none_or(|t| t.status != Status::Down) {
        return;
    }
    let u = x.s().units[unit.index()].clone();
    let expr = test_expr(u.stat("dexterity"), u.stat("athletics"), 0);
    if test(x, unit, Purpose::Skill, &expr, RESUSCITATE_DIFFICULTY) {
        if x.s().units[target.index()].pool("health") < 1 {
            x.set_pool(target, "health", 1);
        }
        x.set_status(target, Status::Active);
    }
}

/// Advantage (positive) or disadvantage (negative) of `attacker` against `target`, with the
/// reasons: flanking and sneak attacks (+1 each), melee against a prone target (+1), ranged
/// against a prone target or one in cover that sought cover (-1 each).
fn advantage(
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
fn size_diff(a: &Unit, t: &Unit) -> i64 {
    a.stat("size") - t.stat("size")
}

fn evasion_against(a: &Unit, t: &Unit) -> i64 {
    t.stat("evasion") + size_diff(a, t) + i64::from(t.has(&Condition::Guarding))
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
        "ranged_damage_type"
    } else {
        "damage_type"
    };
    match a.stat(key) {
        1..=3 => DamageKind::Physical,
        4..=9 => DamageKind::Elemental,
        _ => DamageKind::Typeless,
    }
}

/// Whether a pending attack is a mental effect: its weapon deals psychic damage (house rule
/// "Resist").
fn is_mental(s: &BattleState, p: &PendingAttack) -> bool {
    let key = if p.ranged {
        "ranged_damage_type"
    } else {
        "damage_type"
    };
    s.unit(p.attacker).is_some_and(|a| a.stat(key) == PSYCHIC)
}

/// The `damage_type` code of psychic damage, the one mental effect.
const PSYCHIC: i64 = 10;

/// The target's deflection against `a`'s weapon, `parry` added: none against typeless damage.
fn deflection_against(a: &Unit, t: &Unit, ranged: bool, parry: i64) -> i64 {
    if damage_kind(a, ranged) == DamageKind::Typeless {
        return 0;
    }
    (t.stat("deflection") - size_diff(a, t) + i64::from(t.has(&Condition::Guarding))).max(0) + parry
}

/// The attack test of `a`: its better attribute die (strength or dexterity; dexterity for
/// ranged) + combat skill die + proficiency + `bonus`.
fn attack_expr(a: &Unit, ranged: bool, bonus: i64) -> DiceExpr {
    let attr = if ranged {
        a.stat("dexterity")
    } else {
        a.stat("strength").max(a.stat("dexterity"))
    };
    test_expr(attr, a.stat("combat"), a.stat("proficiency") + bonus)
}

fn weapon(a: &Unit, ranged: bool, crit: bool) -> i64 {
    match (ranged, crit) {
        (false, false) => a.stat("weapon_damage"),
        (false, true) => a.stat("crit_damage"),
        (true, false) => a.stat("ranged_damage"),
        (true, true) => a.stat("ranged_crit_damage"),
    }
}

fn crit_threshold(a: &Unit, ranged: bool) -> i64 {
    let t = if ranged {
        a.stat("ranged_crit_threshold")
    } else {
        a.stat("crit_threshold")
    };
    if t <= 0 { 20 } else { t }
}

/// Rolls a test with `adv` advantage: |adv| + 1 rolls, the best (or worst) kept.
fn roll_with_advantage(
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
fn attack(x: &mut Exec, attacker: UnitId, target: UnitId, ranged: bool, extra_adv: i64) {
    let a = x.s().units[attacker.index()].clone();
    let before = st(x.s())
        .attacks
        .get(attacker.index())
        .copied()
        .unwrap_or(0) as i64;
    x.emit(ev(Ev::AttackMade { unit: attacker }));
    if ranged && a.stat("reload_actions") > 0 {
        x.set_pool(attacker, "loaded", 0);
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
fn ask_defenders(x: &mut Exec, p: PendingAttack) {
    let t = x.s().units[p.target.index()].clone();
    let free = Alternating::note_of(&p.note).free;
    let can_defend = t.is_active()
        && (free || t.pool("reactions") >= 1)
        && (t.pool("stamina") >= 1 || (is_mental(x.s(), &p) && t.pool("focus") >= 1));
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
fn intercept(x: &mut Exec, p: &PendingAttack, ally: UnitId) {
    x.add_pool(ally, "stamina", -1);
    x.add_pool(ally, "reactions", -1);
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
fn finish_attack(x: &mut Exec, p: &PendingAttack, reaction: &Reaction) {
    let a = x.s().units[p.attacker.index()].clone();
    let mut hit = p.hit;
    let mut parry = 0;
    let blocking = *reaction == Reaction::Block;
    let free = Alternating::note_of(&p.note).free;
    if matches!(
        reaction,
        Reaction::Dodge | Reaction::Parry | Reaction::Block
    ) {
        x.add_pool(p.target, "stamina", -1);
        if !free {
            x.add_pool(p.target, "reactions", -1);
        }
    }
    let t = x.s().units[p.target.index()].clone();
    match reaction {
        Reaction::Dodge => {
            let bonus = i64::from(t.has(&Condition::Guarding));
            let expr = test_expr(t.stat("dexterity"), t.stat("athletics"), bonus);
            if test(x, p.target, Purpose::Dodge, &expr, p.total) {
                hit = false;
            }
        }
        Reaction::Resist => {
            x.add_pool(p.target, "focus", -1);
            if !free {
                x.add_pool(p.target, "reactions", -1);
            }
            let expr = test_expr(t.stat("will"), t.stat("resolve"), 0);
            if test(x, p.target, Purpose::Resist, &expr, p.total) {
                hit = false;
            }
        }
        Reaction::Parry => {
            parry = if t.stat("parry") > 0 {
                t.stat("parry")
            } else {
                1
            };
            x.add_pool(p.target, "weapon", -1);
        }
        _ => {}
    }
    x.emit(Event::Attacked {
        attacker: p.attacker,
        target: p.target,
        ranged: p.ranged,
        hit,
        crit: p.crit && hit,
    });
    if !hit {
        return;
    }
    let raw = p.total.max(0) + weapon(&a, p.ranged, p.crit);
    let lethal = a.stat("nonlethal") <= 0;
    if blocking {
        let amount = (raw - t.stat("block")).max(1);
        x.emit(ev(Ev::Damage {
            attacker: p.attacker,
            target: p.target,
            raw,
            reduction: t.stat("block"),
            parry: 0,
            blocked: true,
            amount,
        }));
        let shield = t.pool("shield");
        x.set_pool(p.target, "shield", (shield - amount).max(0));
        if amount > shield {
            deal_damage(x, p.target, amount - shield, lethal);
        }
        return;
    }
    let reduction = deflection_against(&a, &t, p.ranged, parry);
    let amount = (raw - reduction).max(1);
    x.emit(ev(Ev::Damage {
        attacker: p.attacker,
        target: p.target,
        raw,
        reduction,
        parry,
        blocked: false,
        amount,
    }));
    deal_damage(x, p.target, amount, lethal);
}

/// Damage to endurance, then health; harmed, bloodied, unconscious, Fortify and death.
pub fn deal_damage(x: &mut Exec, unit: UnitId, amount: i64, lethal: bool) {
    let u = x.s().units[unit.index()].clone();
    if u.status == Status::Dead || amount <= 0 {
        return;
    }
    let end = u.pool("endurance");
    let to_end = end.min(amount);
    x.set_pool(unit, "endurance", end - to_end);
    if (end - to_end) * 2 <= u.stat("endurance") {
        x.set_condition(unit, Condition::Harmed, true);
    }
    let excess = amount - to_end;
    if excess <= 0 {
        return;
    }
    let hp = u.pool("health");
    let left = (hp - excess).max(0);
    x.set_pool(unit, "health", left);
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
    let missing = u.stat("health") - left;
    if u.status == Status::Active && missing > u.stat("constitution") {
        let u = &x.s().units[unit.index()];
        if u.pool("reactions") >= 1 && u.pool("stamina") >= 1 {
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

fn death_test(x: &mut Exec, unit: UnitId) {
    let dc = x.s().units[unit.index()].pool("death");
    let luck = x
        .roll(Some(unit), None, Purpose::Death, &dice("1d20"), Some(dc))
        .total;
    if luck >= dc {
        x.add_pool(unit, "death", DEATH_STEP);
    } else {
        x.set_status(unit, Status::Dead);
    }
}

/// A killing strike on an unconscious enemy: a combat-skill test with advantage against its
/// constitution kills it; a failure makes a sneak attack instead.
fn killing_strike(x: &mut Exec, attacker: UnitId, target: UnitId) {
    let a = x.s().units[attacker.index()].clone();
    let con = x.s().units[target.index()].stat("constitution");
    let expr = dice(&format!("1d{}", a.stat("combat").max(1)));
    let best = roll_with_advantage(x, attacker, Purpose::Attack, &expr, 1, Some(con));
    if best >= con {
        x.set_status(target, Status::Dead);
    } else {
        attack(x, attacker, target, false, 1);
    }
}

// ---------------------------------------------------------------------------------------------
// What the view asks

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let surprise = if r.surprise_round {
        " (surprise round)"
    } else {
        ""
    };
    let headline = match (r.acting, r.teams.get(r.picking)) {
        (Some(u), _) if r.command.as_ref().is_some_and(|c| c.ally == u) => format!(
            "Round {}{surprise} \u{b7} {} takes one action on {}'s command",
            s.round,
            s.units[u.index()].name,
            r.command
                .as_ref()
                .map_or("?", |c| &*s.units[c.commander.index()].name)
        ),
        (Some(u), _) => {
            let unit = &s.units[u.index()];
            format!(
                "Round {}{surprise} \u{b7} {}'s turn, {}/{ACTIONS} actions",
                s.round,
                unit.name,
                unit.pool("actions")
            )
        }
        (None, Some(side)) => format!(
            "Round {}{surprise} \u{b7} {} pick next",
            s.round,
            s.sides.get(side.index()).map_or("?", |x| x.name.as_str())
        ),
        _ => format!("Round {}", s.round),
    };
    let mut order = Vec::new();
    for &team in &r.teams {
        for u in s.unit_ids().filter(|&u| s.units[u.index()].side == team) {
            let unit = &s.units[u.index()];
            let label = match unit.status {
                Status::Dead => "dead".to_string(),
                Status::Down => "unconscious".to_string(),
                Status::Active if r.acting == Some(u) => {
                    format!("acting \u{b7} {}/{ACTIONS} actions", unit.pool("actions"))
                }
                Status::Active if r.acted.contains(&u) => "acted".to_string(),
                Status::Active if unit.has(&Condition::Surprised) => "surprised".to_string(),
                Status::Active => "to act".to_string(),
            };
            order.push(OrderEntry {
                unit: u,
                label,
                current: r.acting == Some(u),
                done: r.acted.contains(&u) && r.acting != Some(u),
            });
        }
    }
    Clock { headline, order }
}

pub fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = view::generic(s, cmd);
    info.provokes = false;
    let path = |budget: u32, to: Cell| s.path_for(cmd.unit(), budget, None, to);
    let movement = s.unit(cmd.unit()).map_or(1, |u| u.movement);
    info.path = match cmd {
        Command::Move { to, .. }
        | Command::Act {
            action: Action::Sprint { to },
            ..
        } => path(movement, *to),
        Command::Act {
            action: Action::Step { to },
            ..
        } => path(1, *to),
        _ => None,
    };
    if let Some(p) = &info.path {
        info.provokes = p
            .steps
            .iter()
            .any(|st| !ready_reactors(s, cmd.unit(), st.from, st.to).is_empty());
    }
    let have = s.unit(cmd.unit()).map_or(0, |u| u.pool("actions"));
    let continuing = r
        .extended
        .get(cmd.unit().index())
        .and_then(|e| e.as_ref())
        .filter(|e| e.command == *cmd)
        .map(|e| e.remaining);
    if let Command::Act {
        unit,
        action: Action::Brandish,
    } = cmd
    {
        let other = if holds_melee(s, *unit) {
            "ranged"
        } else {
            "melee"
        };
        info.label = format!("Brandish (take up the {other} weapon)");
    }
    info.cost = match cmd {
        Command::Pick { .. } | Command::Declare { .. } => String::new(),
        Command::React {
            reaction: Reaction::Decline,
            ..
        } => String::new(),
        Command::React {
            reaction: Reaction::Attack { .. },
            ..
        } => "reaction".to_string(),
        Command::React {
            reaction: Reaction::Resist,
            unit,
        } => format!(
            "reaction, 1 focus{}",
            defence_words(s, *unit, &Reaction::Resist)
        ),
        Command::React { reaction, unit } => {
            format!("reaction, 1 stamina{}", defence_words(s, *unit, reaction))
        }
        Command::EndTurn { .. } => "free".to_string(),
        Command::Act {
            action: Action::Guard | Action::Wait | Action::Ready { .. },
            ..
        } => "ends the turn".to_string(),
        _ => {
            let need = continuing.unwrap_or_else(|| cost(s, cmd));
            let stamina = match cmd {
                Command::Act {
                    action: Action::Sprint { .. },
                    ..
                } => ", 1 stamina",
                Command::Act {
                    action: Action::CommandAlly { .. },
                    ..
                } => ", 2 focus",
                _ => "",
            };
            let word = |n: i64| if n == 1 { "action" } else { "actions" };
            if need == 0 {
                "free".to_string()
            } else if need > have {
                format!(
                    "{need} {} (extended: {} more next turn){stamina}",
                    word(need),
                    need - have
                )
            } else {
                format!("{need} {}{stamina}", word(need))
            }
        }
    };
    info
}

/// What a defence does against the attack waiting on `unit`'s answer, for the prompt: the
/// chance of a Dodge or Resist test (two dice and the luck die) to beat the attack's total,
/// what a Parry or a Block takes off. Empty when no attack on `unit` is waiting.
fn defence_words(s: &BattleState, unit: UnitId, reaction: &Reaction) -> String {
    let Some(Resume::Attack(p)) = s.interrupts.last().map(|i| &i.resume) else {
        return String::new();
    };
    let Some(t) = s.unit(unit).filter(|_| p.target == unit) else {
        return String::new();
    };
    let chance = |a: &str, b: &str, bonus: i64, what: &str| {
        let (x, y) = (t.stat(a).max(1), t.stat(b).max(1));
        format!(
            ": 1d{x}+1d{y}{} against {}: {:.0}% to {what}",
            if bonus == 0 {
                String::new()
            } else {
                format!("{bonus:+}")
            },
            p.total,
            test_chance(x, y, bonus, p.total) * 100.0
        )
    };
    match reaction {
        Reaction::Dodge => chance(
            "dexterity",
            "athletics",
            i64::from(t.has(&Condition::Guarding)),
            "avoid the hit",
        ),
        Reaction::Resist => chance("will", "resolve", 0, "shrug it off"),
        Reaction::Parry => format!(
            ": +{} deflection against this hit, the weapon wears",
            t.stat("parry").max(1)
        ),
        Reaction::Block => format!(
            ": damage -{}, the shield takes the rest first",
            t.stat("block")
        ),
        _ => String::new(),
    }
}

/// The chance that a test of 1d`a` + 1d`b` + `bonus` reaches `against`, the luck die (a 20 adds
/// [`LUCK_BONUS`]) counted, as [`test`] rolls it.
fn test_chance(a: i64, b: i64, bonus: i64, against: i64) -> f64 {
    let d = test_expr(a, b, bonus).distribution();
    let plain = d.at_least(against);
    (plain + (d.at_least(against - LUCK_BONUS) - plain) / 20.0).clamp(0.0, 1.0)
}

/// The distribution of the best (adv > 0) or worst (adv < 0) of |adv| + 1 rolls.
fn with_advantage(d: &Distribution, adv: i64) -> Vec<(i64, f64)> {
    let k = adv.unsigned_abs() as i32 + 1;
    let mut out = Vec::new();
    let mut below = 0.0; // P(X < t)
    for (t, p) in d.iter() {
        let at_most = below + p;
        let q = if adv >= 0 {
            at_most.powi(k) - below.powi(k)
        } else {
            (1.0 - below).powi(k) - (1.0 - at_most).powi(k)
        };
        out.push((t, q));
        below = at_most;
    }
    out
}

/// Exact odds of an attack, assuming the target does not react (Dodge, Parry, Block are its
/// choice) and, for a ranged attack, that a luck of 1 always strikes someone else when anyone
/// stands within 1 m of the target.
pub fn odds(
    s: &BattleState,
    r: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    target_ok(s, attacker, target, ranged).ok()?;
    let (a, t) = (s.unit(attacker)?, s.unit(target)?);
    if !t.is_active() {
        return None;
    }
    let before = r.attacks.get(attacker.index()).copied().unwrap_or(0) as i64;
    let bonus = -MULTIPLE_ATTACK_PENALTY * before;
    let expr = attack_expr(a, ranged, bonus);
    let (adv, why) = advantage(s, attacker, target, ranged);
    let dist = with_advantage(&expr.distribution(), adv);
    let needed = evasion_against(a, t);
    let threshold = crit_threshold(a, ranged);
    let p_crit = ((21 - threshold).clamp(0, 20)) as f64 / 20.0;
    let crowded = ranged
        && s.unit_ids().any(|o| {
            let u = &s.units[o.index()];
            o != target
                && o != attacker
                && u.status != Status::Dead
                && s.grid().distance(u.cell, t.cell) <= 1
        });
    let p_astray = if crowded && threshold > 1 {
        1.0 / 20.0
    } else {
        0.0
    };
    let p_plain = 1.0 - p_crit - p_astray;
    let defl = deflection_against(a, t, ranged, 0);
    let dmg = |test: i64, crit: bool| (test.max(0) + weapon(a, ranged, crit) - defl).max(1) as f64;
    let mut hit = 0.0;
    let mut expected = 0.0;
    for &(test, p) in &dist {
        hit += p * (p_crit + if test >= needed { p_plain } else { 0.0 });
        expected += p * p_crit * dmg(test, true);
        if test >= needed {
            expected += p * p_plain * dmg(test, false);
        }
    }
    let mut formula = format!("{expr} vs evasion {needed}, crit on luck {threshold}+");
    if damage_kind(a, ranged) == DamageKind::Typeless {
        formula.push_str(", typeless damage (no deflection)");
    }
    if adv != 0 {
        let word = if adv > 0 { "advantage" } else { "disadvantage" };
        formula.push_str(&format!(", {word} x{} ({})", adv.abs(), why.join(", ")));
    }
    Some(Odds {
        hit,
        expected_damage: expected,
        formula,
    })
}

mod log;
pub use log::log_line;

#[cfg(test)]
mod tests;
