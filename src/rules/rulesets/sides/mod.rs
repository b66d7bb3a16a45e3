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
//!   action. Drag and Throw move a grappled foe for the Main action (S-153). See
//!   [`actions::check_action`] for every action's conditions and [`actions::Cost`] for what it
//!   spends.
//! - **Interrupts**: before any unit's action, units holding an action may take it and trained
//!   units may Snap Attack ([`Trigger::Ready`]); leaving an enemy's reach, standing up, first
//!   aid, and charging or screening from a square next to an enemy provoke attacks of
//!   opportunity ([`Trigger::Opportunity`], [`Trigger::Provoked`]); after an attack roll the
//!   target may take Total Defense and its allies may Snap Attack the attacker
//!   ([`Trigger::Attacked`]). A command waiting for such answers is kept in
//!   [`State::deferred`] and goes on (or is cancelled if no longer possible) afterwards.
//! - **Morale** (house rule for S-176..S-180, [`morale`]): a side checks when it has lost half
//!   its units or a leader falls; 2d6 over a unit's `morale` breaks it; a fleeing unit runs by
//!   itself for the map's edge and leaves; a side whose every standing unit flees routs.
//!
//! The files: this one holds the state, the events and [`apply`], and the [`Ruleset`] impl;
//! [`turns`] the initiative, rounds and whose turn it is; [`actions`] what each action costs,
//! whether it is legal and what it does; [`moves`] movement, charges, screens and hauling a
//! grappled foe; [`combat`] attacks, reactions and damage; [`morale`] morale checks, flight and
//! rout; [`view`] the clock, the menu, the odds and the log lines.
//!
//! [`Ruleset`]: crate::rules::rulesets::Ruleset
//! [`Trigger::Ready`]: crate::rules::battle::Trigger::Ready
//! [`Trigger::Opportunity`]: crate::rules::battle::Trigger::Opportunity
//! [`Trigger::Provoked`]: crate::rules::battle::Trigger::Provoked
//! [`Trigger::Attacked`]: crate::rules::battle::Trigger::Attacked

pub mod actions;
pub mod combat;
pub mod execution;
pub mod morale;
pub mod moves;
pub mod turns;
pub mod view;

pub use actions::{Cost, check, check_action, cost_of, execute, legal};
pub use turns::{pending, pick_options, round_sides, start};
pub use view::{clock, describe, log_line, odds};

use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Exec, Rejected, SideId, UnitId,
};
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{Answered, Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

/// The stat and pool names `sides` reads, as its data file (`assets/rulesets/sides.ron`)
/// spells them, in one place: a misspelling is a compile error, not a stat silently read as 0.
pub mod names {
    /// Armor Class: a hit needs 1d20 + attack bonus + situation modifiers at least this.
    pub const AC: &str = "ac";
    /// Hit points: the stat is the unit's start, the pool what it has left.
    pub const HP: &str = "hp";
    /// Attack bonus, with the weapon's attribute and combat skill.
    pub const ATTACK_BONUS: &str = "attack_bonus";
    /// DEX modifier: the Party adds its highest to initiative.
    pub const DEX: &str = "dex";
    /// STR modifier: shove, grapple and break-free checks, unarmed damage.
    pub const STR: &str = "str";
    /// Highest combat skill level: screening, opposed checks, unarmed damage.
    pub const SKILL: &str = "skill";
    /// 1: a unit armed by its items with no weapon in hand (house rule (items)).
    pub const UNARMED: &str = "unarmed";
    /// Unarmed damage die: 1d(unarmed_die) + STR + skill.
    pub const UNARMED_DIE: &str = "unarmed_die";
    /// Heal skill level: first aid.
    pub const HEAL: &str = "heal";
    /// Melee weapon damage: dice (0: no melee weapon).
    pub const DAMAGE_DICE: &str = "damage_dice";
    /// Melee weapon damage: sides of each die.
    pub const DAMAGE_DIE: &str = "damage_die";
    /// Melee weapon damage: bonus.
    pub const DAMAGE_BONUS: &str = "damage_bonus";
    /// Shock dealt on a melee miss.
    pub const SHOCK: &str = "shock";
    /// The highest AC the Shock reaches.
    pub const SHOCK_AC: &str = "shock_ac";
    /// 1: a shield, ignores the first Shock each round.
    pub const SHIELD: &str = "shield";
    /// 1: trained to Make a Snap Attack.
    pub const SNAP_ATTACK: &str = "snap_attack";
    /// 1: fights with two weapons.
    pub const DUAL_WIELD: &str = "dual_wield";
    /// Bow or thrown weapon: normal range in squares (0: none).
    pub const RANGE: &str = "range";
    /// Bow or thrown weapon: maximum range in squares.
    pub const LONG_RANGE: &str = "long_range";
    /// Ranged weapon damage: dice.
    pub const RANGED_DAMAGE_DICE: &str = "ranged_damage_dice";
    /// Ranged weapon damage: sides of each die.
    pub const RANGED_DAMAGE_DIE: &str = "ranged_damage_die";
    /// Ranged weapon damage: bonus.
    pub const RANGED_DAMAGE_BONUS: &str = "ranged_damage_bonus";
    /// 1: a bow, which cannot shoot with an enemy in melee range.
    pub const TWO_HANDED_RANGED: &str = "two_handed_ranged";
    /// 1: a thrown weapon, which can end a Charge.
    pub const THROWN: &str = "thrown";
    /// Morale (house rule): 2d6 above it breaks the unit in a morale check.
    pub const MORALE: &str = "morale";
    /// 1: never checks morale, never flees (undead, constructs, zealots).
    pub const FEARLESS: &str = "fearless";
    /// 1: a leader; its side checks morale when it falls.
    pub const LEADER: &str = "leader";
}

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
        names::AC,
        names::HP,
        names::ATTACK_BONUS,
        names::DEX,
        names::DAMAGE_DICE,
        names::DAMAGE_DIE,
        names::DAMAGE_BONUS,
        names::SHOCK,
        names::SHOCK_AC,
        names::MORALE,
        names::FEARLESS,
        names::LEADER,
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
    /// The mean of its melee dice (`damage_*`), or of its ranged dice (`ranged_damage_*`)
    /// when it has a range and they are better.
    fn armament(u: &crate::rules::battle::Unit) -> f64 {
        let mean = |dice: &str, die: &str, bonus: &str| {
            u.stat(dice) as f64 * (u.stat(die) as f64 + 1.0) / 2.0 + u.stat(bonus) as f64
        };
        let melee = mean(names::DAMAGE_DICE, names::DAMAGE_DIE, names::DAMAGE_BONUS);
        let ranged = if u.stat(names::RANGE) > 0 {
            mean(
                names::RANGED_DAMAGE_DICE,
                names::RANGED_DAMAGE_DIE,
                names::RANGED_DAMAGE_BONUS,
            )
        } else {
            0.0
        };
        melee.max(ranged).max(0.0)
    }
    fn broken(_s: &BattleState, r: &State, unit: UnitId) -> bool {
        morale::fleeing(r, unit)
    }
    fn fled(_s: &BattleState, r: &State, unit: UnitId) -> bool {
        morale::fled(r, unit)
    }
    fn told_after_its_action(e: &Ev) -> bool {
        matches!(e, Ev::Actions { .. })
    }
    fn action_odds(
        s: &BattleState,
        _: &State,
        unit: UnitId,
        action: &Action,
    ) -> Option<(UnitId, Odds)> {
        view::charge_odds(s, unit, action)
    }
    fn reaction_attack_odds(s: &BattleState, _: &State, unit: UnitId, t: UnitId) -> Option<Odds> {
        view::reaction_attack_odds(s, unit, t)
    }
    fn answered_odds(
        s: &BattleState,
        r: &State,
        a: UnitId,
        t: UnitId,
        ranged: bool,
    ) -> Vec<Answered> {
        view::answered_odds(s, r, a, t, ranged)
            .into_iter()
            .collect()
    }
}

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The Party: adds its best DEX to initiative and wins ties.
    pub party: Option<SideId>,
    /// Per unit, in unit order.
    pub per: PerUnit<Per>,
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
    /// Morale checks made, units fleeing and fled (house rule, S-176..S-180).
    #[serde(default)]
    pub morale: morale::Morale,
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
    /// Reinforcement `unit` joined its side, with its Main and Move actions (house rule
    /// Reinforcements).
    Joined { unit: UnitId },
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
    /// `side` checks morale (house rule), for `cause`.
    MoraleCheck { side: SideId, cause: morale::Cause },
    /// `unit` broke in a morale check and flees.
    Breaks { unit: UnitId },
    /// Every unit `side` has standing flees: the side routs and has lost.
    Routed { side: SideId },
    /// `unit` fled off the map: out of the battle.
    Fled { unit: UnitId },
}

/// The round of a unit that is not in the battle (a command naming an id past the last
/// unit): already acted, no actions left, nothing else. Every check that asks about it fails
/// on the action it lacks rather than panicking.
pub const SPENT: &Per = &Per {
    acted: true,
    main: false,
    mv: false,
    disengaged_from: Vec::new(),
    shield_used: false,
    screened: Vec::new(),
    grappling: None,
};

/// A unit's round ([`SPENT`] for a unit that is not there).
pub fn per(r: &State, u: UnitId) -> &Per {
    r.per.get(u).unwrap_or(SPENT)
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Setup { party, units } => {
            s.party = Some(*party);
            s.per = PerUnit::filled(*units, Per::default());
        }
        Ev::SurpriseRound => s.surprise = true,
        Ev::Initiative { order, scores } => {
            s.order = order.clone();
            s.scores = scores.clone();
            s.surprise = false;
        }
        Ev::Joined { unit } => s.per.put(
            *unit,
            Per {
                main: true,
                mv: true,
                ..Per::default()
            },
        ),
        Ev::RoundReset => {
            for p in s.per.values_mut() {
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
            if let Some(p) = s.per.get_mut(*unit) {
                p.acted = true;
            }
            if s.acting == Some(*unit) {
                s.acting = None;
            }
        }
        Ev::Actions { unit, main, mv } => {
            if let Some(p) = s.per.get_mut(*unit) {
                p.main = *main;
                p.mv = *mv;
            }
        }
        Ev::Disengaged { unit, from } => {
            if let Some(p) = s.per.get_mut(*unit) {
                for f in from {
                    if !p.disengaged_from.contains(f) {
                        p.disengaged_from.push(*f);
                    }
                }
            }
        }
        Ev::ShieldUsed { unit } => {
            if let Some(p) = s.per.get_mut(*unit) {
                p.shield_used = true;
            }
        }
        Ev::ScreenUsed { screener, attacker } => {
            if let Some(p) = s.per.get_mut(*screener)
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
            if let Some(p) = s.per.get_mut(*grappler) {
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
        Ev::MoraleCheck { .. } | Ev::Breaks { .. } | Ev::Fled { .. } => {
            morale::apply(&mut s.morale, e)
        }
        Ev::Redirected { .. }
        | Ev::Cancelled { .. }
        | Ev::Shock { .. }
        | Ev::ShockFloor { .. }
        | Ev::Routed { .. } => {}
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
    per(Sides::state(s), u).grappling.is_some()
        || s.unit(u).is_some_and(|x| {
            x.conditions
                .iter()
                .any(|c| matches!(c, Condition::Grappled { .. }))
        })
}

/// Who grapples `u`, in unit order.
pub fn grapplers_of(s: &BattleState, u: UnitId) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&g| per(Sides::state(s), g).grappling == Some(u) && active(s, g))
        .collect()
}

/// Whether `u` may use Instant actions and attacks of opportunity now: standing, and not
/// caught in the surprise round.
pub fn can_instant(s: &BattleState, u: UnitId) -> bool {
    s.unit(u).is_some_and(|x| {
        x.is_active() && !(Sides::state(s).surprise && x.has(&Condition::Surprised))
    })
}

/// Move actions `u` can still spend: its Move action, and its Main action traded for one.
pub fn move_actions_left(p: &Per) -> u32 {
    u32::from(p.mv) + u32::from(p.main)
}

#[cfg(test)]
mod tests;
