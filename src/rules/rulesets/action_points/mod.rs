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
//! - Advantage and Special Actions (X-36, X-37, house rule: the text's pages on them are not
//!   in it): a unit whose Combat Style has Press the Advantage (`press` > 0) gains Advantage
//!   when its attack beats the number needed by 5 or more, or when an attack on it misses
//!   while it dodges; it keeps it to the end of the round. Press the Advantage is then a
//!   primary action priced like an attack: a melee attack at +`press` to hit and to damage,
//!   open to Dodge like any attack, that spends the Advantage.

mod actions;
mod combat;
mod turns;
mod view;

use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    Action, BattleState, Command, Decision, Exec, PendingAttack, Rejected, UnitId,
};
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{Answered, Clock, CommandInfo, Odds};
use serde::{Deserialize, Serialize};

/// The pools and stats the ruleset reads (see `assets/rulesets/action-points.ron`), named once
/// so that a misspelling is a compile error rather than a silent 0.
pub(super) mod names {
    // Pools, which are also stats (their maxima).
    /// Hit points: the stat is the maximum, the pool what is left.
    pub const HP: &str = "hp";
    /// Action Points: the stat is the maximum, the pool what is left this turn.
    pub const AP: &str = "ap";
    // Stats.
    /// Added to the 1d6 initiative roll; breaks ties first.
    pub const INITIATIVE_RATING: &str = "initiative_rating";
    /// Breaks the remaining initiative ties; the contested luck roll adds it.
    pub const LUCK: &str = "luck";
    /// Added to the 1d20 attack roll.
    pub const ATTACK: &str = "attack";
    /// An attack must reach 10 + defense.
    pub const DEFENSE: &str = "defense";
    /// Defense the Dodge reaction adds against one attack.
    pub const DODGE: &str = "dodge";
    /// Subtracted from the damage of a melee or ranged hit.
    pub const ARMOR: &str = "armor";
    /// Melee damage: `damage_dice` d `damage_die` + `damage_bonus`.
    pub const DAMAGE_DICE: &str = "damage_dice";
    /// Melee damage die.
    pub const DAMAGE_DIE: &str = "damage_die";
    /// Melee damage bonus.
    pub const DAMAGE_BONUS: &str = "damage_bonus";
    /// AP an attack costs (at least 1).
    pub const ATTACK_AP: &str = "attack_ap";
    /// Reach of the ranged attack (none at 0).
    pub const RANGE: &str = "range";
    /// Ranged damage: `ranged_damage_dice` d `ranged_damage_die` + `ranged_damage_bonus`.
    pub const RANGED_DAMAGE_DICE: &str = "ranged_damage_dice";
    /// Ranged damage die.
    pub const RANGED_DAMAGE_DIE: &str = "ranged_damage_die";
    /// Ranged damage bonus.
    pub const RANGED_DAMAGE_BONUS: &str = "ranged_damage_bonus";
    /// Reach of the spell (none at 0).
    pub const SPELL_RANGE: &str = "spell_range";
    /// AP a spell costs (at least 1).
    pub const SPELL_AP: &str = "spell_ap";
    /// Spell damage: `spell_damage_dice` d `spell_damage_die`, ignoring armor.
    pub const SPELL_DAMAGE_DICE: &str = "spell_damage_dice";
    /// Spell damage die.
    pub const SPELL_DAMAGE_DIE: &str = "spell_damage_die";
    /// The Combat Style's Special Advantage, Press the Advantage: its bonus to hit and to
    /// damage (0: the style has none, and the unit never gains Advantage).
    pub const PRESS: &str = "press";
}

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Initiative order, highest first, fixed for the battle.
    pub order: Vec<UnitId>,
    /// Each unit's initiative score.
    pub scores: PerUnit<i64>,
    /// Index in `order` of the unit whose turn it is.
    pub turn: usize,
    /// An extended action waiting to complete, per unit.
    pub extended: PerUnit<Option<Extended>>,
    /// Units holding Advantage (house rule X-36), until they spend it or the round ends.
    #[serde(default)]
    pub advantage: Vec<UnitId>,
    /// The unit whose attack under way presses the Advantage.
    #[serde(default)]
    pub pressing: Option<UnitId>,
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
    /// `unit` gains (`on`) or spends or loses its Advantage.
    Advantage { unit: UnitId, on: bool },
    /// `unit`'s attack under way presses the Advantage (`on`), or has been resolved.
    Pressing { unit: UnitId, on: bool },
    /// Reinforcement `unit` rolled `score` for initiative and slots in at `at` in the order
    /// a slot at or before the current turn is taken from the next round.
    Joined { unit: UnitId, score: i64, at: usize },
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
    pub(super) fn of(ranged: bool) -> Self {
        if ranged {
            AttackKind::Ranged
        } else {
            AttackKind::Melee
        }
    }
}

/// What the log calls a caster's spell ("Vex casts a bolt", "Vex's bolt hits Orrin").
pub const SPELL: &str = "bolt";

/// The `action-points` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct ActionPoints;

impl crate::rules::rulesets::Ruleset for ActionPoints {
    type State = State;
    type Event = Ev;
    type Resume = crate::rules::rulesets::Never;
    type Note = AttackKind;
    const DATA: &'static str = include_str!("../../../../assets/rulesets/action-points.ron");
    const STATS: &'static [&'static str] = &[
        names::INITIATIVE_RATING,
        names::LUCK,
        names::AP,
        names::HP,
        names::ATTACK,
        names::DEFENSE,
        names::ARMOR,
        names::DAMAGE_DICE,
        names::DAMAGE_DIE,
        names::DAMAGE_BONUS,
    ];
    const AI: crate::rules::rulesets::AiHints = crate::rules::rulesets::AiHints {
        underdog_holds_first_round: true,
        strikes_when_engaged: false,
    };

    fn start(x: &mut Exec) {
        turns::start(x)
    }
    fn pending(s: &BattleState, r: &State) -> Decision {
        turns::pending(s, r)
    }
    fn legal(s: &BattleState, r: &State) -> Vec<Command> {
        actions::legal(s, r)
    }
    fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
        actions::check(s, r, cmd)
    }
    fn execute(x: &mut Exec, cmd: &Command) {
        actions::execute(x, cmd)
    }
    fn joined(x: &mut Exec, unit: UnitId) {
        turns::joined(x, unit)
    }
    fn apply(r: &mut State, e: &Ev) {
        apply(r, e)
    }
    fn log_line(s: &BattleState, e: &Ev) -> String {
        view::log_line(s, e)
    }
    fn clock(s: &BattleState, r: &State) -> Clock {
        view::clock(s, r)
    }
    fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
        view::describe(s, r, cmd)
    }
    fn odds(s: &BattleState, r: &State, a: UnitId, t: UnitId, ranged: bool) -> Option<Odds> {
        view::odds(s, r, a, t, ranged)
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
    /// A Cast is an attack with the spell's dice.
    fn action_odds(
        s: &BattleState,
        _: &State,
        unit: UnitId,
        action: &Action,
    ) -> Option<(UnitId, Odds)> {
        let Action::Cast { target, .. } = action else {
            return None;
        };
        Some((
            *target,
            view::kind_odds(s, unit, *target, AttackKind::Spell)?,
        ))
    }
    /// A spell waiting on the target's Dodge: the plain odds would be a weapon's.
    fn pending_odds(
        s: &BattleState,
        _: &State,
        p: &PendingAttack,
    ) -> Option<(Odds, Vec<Answered>)> {
        (Self::note_of(&p.note) == AttackKind::Spell)
            .then(|| view::spell_odds(s, p.attacker, p.target))
            .flatten()
    }
    /// A Cast is a caster's bolt (the data file's house rule on spells).
    fn spell_of(note: &AttackKind) -> Option<&'static str> {
        (*note == AttackKind::Spell).then_some(SPELL)
    }
    /// "X's turn" comes from the engine's own event right after.
    fn bookkeeping(e: &Ev) -> bool {
        matches!(e, Ev::Turn { .. } | Ev::Pressing { on: false, .. })
    }
    fn spends_from_coming_turn(s: &BattleState, r: &State, unit: UnitId) -> bool {
        turns::spends_from_coming_turn(s, r, unit)
    }
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Initiative { order, scores } => {
            s.order = order.clone();
            s.scores = PerUnit::from_vec(scores.clone());
            s.extended = PerUnit::filled(scores.len(), None);
        }
        Ev::Turn { index } => s.turn = *index,
        Ev::Joined { unit, score, at } => {
            s.scores.put(*unit, *score);
            s.extended.put(*unit, None);
            let at = (*at).min(s.order.len());
            s.order.insert(at, *unit);
            if at <= s.turn && s.order.len() > 1 {
                s.turn += 1;
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
        Ev::Advantage { unit, on } => {
            s.advantage.retain(|u| u != unit);
            if *on {
                s.advantage.push(*unit);
            }
        }
        Ev::Pressing { unit, on } => s.pressing = on.then_some(*unit),
    }
}

#[cfg(test)]
mod tests;
