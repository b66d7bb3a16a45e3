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
//!
//! The code: this file holds the state, the events and [`apply`]; `turns.rs` the team order,
//! rounds, picks and turns; `actions.rs` what commands cost, their checks, the legal list and
//! their effects; `combat.rs` attacks, reactions, tests and damage; `view.rs` the clock, the
//! action menu, the odds and the log lines.

mod actions;
mod combat;
mod turns;
mod view;

pub use actions::{check, execute, legal};
pub use combat::{DamageKind, damage_kind, deal_damage, flanked};
pub use turns::{pending, start};
pub use view::{clock, describe, log_line, odds};

use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    BattleState, Command, Decision, Exec, Rejected, Resume, SideId, UnitId,
};
use crate::rules::rulesets::view::{Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

/// The pool and stat names the ruleset reads, in one place: a misspelt name is a compile
/// error instead of a silent 0. Several are both a stat (the most) and a pool (what is left):
/// endurance, health, stamina, focus.
pub mod names {
    // Pools.
    /// Actions left this turn.
    pub const ACTIONS: &str = "actions";
    /// The reaction of the turn (0 or 1; Wait adds one).
    pub const REACTIONS: &str = "reactions";
    pub const ENDURANCE: &str = "endurance";
    pub const HEALTH: &str = "health";
    pub const STAMINA: &str = "stamina";
    pub const FOCUS: &str = "focus";
    /// The difficulty of the next death test.
    pub const DEATH: &str = "death";
    /// The weapon's durability.
    pub const WEAPON: &str = "weapon";
    /// The shield's durability.
    pub const SHIELD: &str = "shield";
    /// 1 if the ranged weapon is loaded.
    pub const LOADED: &str = "loaded";

    // Stats: attributes and skills.
    pub const STRENGTH: &str = "strength";
    pub const DEXTERITY: &str = "dexterity";
    pub const CONSTITUTION: &str = "constitution";
    pub const WILL: &str = "will";
    pub const COMBAT: &str = "combat";
    pub const ATHLETICS: &str = "athletics";
    pub const RESOLVE: &str = "resolve";
    pub const FORTITUDE: &str = "fortitude";
    pub const PROFICIENCY: &str = "proficiency";
    pub const DANGER_SENSE: &str = "danger_sense";

    // Stats: defence.
    pub const EVASION: &str = "evasion";
    pub const DEFLECTION: &str = "deflection";
    pub const SIZE: &str = "size";
    pub const PARRY: &str = "parry";
    pub const BLOCK: &str = "block";
    pub const BLOCK_DURABILITY: &str = "block_durability";

    // Stats: weapons.
    pub const WEAPON_DAMAGE: &str = "weapon_damage";
    pub const CRIT_DAMAGE: &str = "crit_damage";
    pub const CRIT_THRESHOLD: &str = "crit_threshold";
    pub const DAMAGE_TYPE: &str = "damage_type";
    pub const NONLETHAL: &str = "nonlethal";
    pub const RANGE: &str = "range";
    pub const RANGED_DAMAGE: &str = "ranged_damage";
    pub const RANGED_CRIT_DAMAGE: &str = "ranged_crit_damage";
    pub const RANGED_CRIT_THRESHOLD: &str = "ranged_crit_threshold";
    pub const RANGED_DAMAGE_TYPE: &str = "ranged_damage_type";
    pub const RELOAD_ACTIONS: &str = "reload_actions";
}

/// Actions per turn (seed: "Each turn in combat, characters may take three actions").
pub const ACTIONS: i64 = 3;
/// The luck test that cheats death starts at this difficulty and rises by [`DEATH_STEP`].
pub const DEATH_DIFFICULTY: i64 = 10;
pub const DEATH_STEP: i64 = 5;
/// House rule: the difficulty of the Resuscitate test.
pub const RESUSCITATE_DIFFICULTY: i64 = 6;
/// House rule: the difficulty of a Short Task's test where the level names none.
pub const TASK_DIFFICULTY: i64 = 8;
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
    pub attacks: PerUnit<u32>,
    /// An extended action under way, per unit.
    pub extended: PerUnit<Option<Extended>>,
    /// Continuations waiting for the current chain of reactions to finish, innermost last.
    pub pending: Vec<Resume>,
    /// Allies the acting unit has commanded this turn.
    pub commanded_this_turn: Vec<UnitId>,
    /// An ally taking the one action a Command gave it.
    pub command: Option<Commanded>,
    /// Per unit: a unit with a ranged weapon holds it, unless it has brandished its melee
    /// weapon (true here). A unit with only a melee weapon always holds it.
    #[serde(default)]
    pub melee_drawn: PerUnit<bool>,
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
    /// Reinforcement `unit` joined its team (it may be picked this round).
    Joined { unit: UnitId },
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
        names::EVASION,
        names::ENDURANCE,
        names::HEALTH,
        names::CONSTITUTION,
        names::STAMINA,
        names::FOCUS,
        names::STRENGTH,
        names::DEXTERITY,
        names::COMBAT,
        names::SIZE,
        names::DEFLECTION,
        names::WEAPON_DAMAGE,
        names::CRIT_DAMAGE,
        names::CRIT_THRESHOLD,
    ];
    const SHORT_TASKS: bool = true;

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
    fn joined(x: &mut Exec, unit: UnitId) {
        turns::joined(x, unit)
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
    /// Its weapon's damage, melee or (with a range) ranged, the better.
    fn armament(u: &crate::rules::battle::Unit) -> f64 {
        let ranged = if u.stat(names::RANGE) > 0 {
            combat::weapon(u, true, false)
        } else {
            0
        };
        combat::weapon(u, false, false).max(ranged).max(0) as f64
    }
    fn answered_odds(
        s: &BattleState,
        r: &State,
        a: UnitId,
        t: UnitId,
        ranged: bool,
    ) -> Vec<crate::rules::rulesets::Answered> {
        view::answered_odds(s, r, a, t, ranged)
    }
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
            s.attacks = PerUnit::filled(*units, 0);
            s.extended = PerUnit::filled(*units, None);
            s.melee_drawn = PerUnit::filled(*units, false);
        }
        Ev::NewRound => {
            s.acted.clear();
            s.attacks.values_mut().for_each(|a| *a = 0);
            s.picking = 0;
        }
        Ev::SurpriseOver => s.surprise_round = false,
        Ev::Joined { unit } => {
            s.attacks.put(*unit, 0);
            s.extended.put(*unit, None);
            s.melee_drawn.put(*unit, false);
        }
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
        Ev::Brandished { unit, melee } => {
            s.melee_drawn.set(*unit, *melee);
        }
        Ev::StepUsed => s.stepped = true,
        Ev::AttackMade { unit } => {
            if let Some(a) = s.attacks.get_mut(*unit) {
                *a += 1;
            }
        }
        Ev::ExtendedStarted {
            unit,
            command,
            remaining,
        } => {
            s.extended.set(
                *unit,
                Some(Extended {
                    command: command.clone(),
                    remaining: *remaining,
                }),
            );
        }
        Ev::ExtendedDone { unit, .. } => {
            s.extended.set(*unit, None);
        }
        Ev::Defer(r) => s.pending.push(r.clone()),
        Ev::Undefer => {
            s.pending.pop();
        }
    }
}

#[cfg(test)]
mod tests;
