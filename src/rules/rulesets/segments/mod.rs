//! Ruleset `segments` (seed 002): rounds of ten six-second segments, side initiative on a d6.
//!
//! The order of a battle (rule ids are those of `docs/rules/segments.md`):
//! - **Surprise** (G-10..G-33), once, when the battle starts: every side not named in
//!   `options.alerted` rolls a d6. A side is surprised for as many segments as it rolled when
//!   the roll is at most the highest `surprises_on` (normally 2) of the sides it faces. Each
//!   unit's own surprise segments are that number minus its `surprise_bonus` (never below 0;
//!   a penalty adds, but never creates surprise); `never_surprised` units have none. The
//!   surprise segments run while any unit is still surprised; in each, every unit that is no
//!   longer surprised takes one turn, a whole round's action (move and attack, run, or begin a
//!   spell). When units of several sides act in one, it is simultaneous (see below).
//! - **Rounds** (G-01..G-09). Each round starts with **declarations** (G-34..G-37): every
//!   unit declares an [`Intent`] (Melee, Missile, Spell at a target, Run, Hold). A unit's
//!   declaration stays hidden from the other sides until its first turn of the round begins;
//!   [`redact`] removes it from a clone of the state for the other sides' eyes. Then each side
//!   rolls **initiative** on a d6 (G-38..G-41): a side acts in the segment the OTHER side
//!   rolled. A unit that declared Missile with a missile weapon acts `missile_bonus` segments
//!   before its side (G-43). Segments 1 to 10 are played in order: in each, the units whose
//!   segment it is take their turns in unit order.
//! - **Simultaneous segments** (G-44..G-49): when units of more than one side act in one
//!   segment (a tie), hit points drop as blows land but no one dies before the segment ends;
//!   then every unit at 0 hp or below dies at once, so two combatants can kill each other.
//!   In any other segment damage takes effect immediately.
//! - **Attack routines** (G-50..G-56): one routine is `strikes` melee attacks (or
//!   `rate_of_fire` missiles) at one target. A unit with `attacks` > 1 uses its first in its
//!   segment and the others in the segment after the other side's initiative segment (at once
//!   if its own segment is later).
//! - **Spells** (G-57..G-67): casting begins in the caster's segment `s` and occupies segments
//!   `s` to `s + t - 1`; the spell goes off at the start of segment `s + t` (Halvaine: 4 + 2 =
//!   6). Damage taken while casting spoils it. Five spells, each with its own casting time
//!   (Magic Missile, Haste (G-66), Cure Light Wounds, Hold Person, Shield): `spells.rs`.
//! - **Interrupts** (G-07): leaving an enemy's reach gives it a fleeing attack; moving into the
//!   reach of a spear set against a charge lets the spearman strike first, for double damage.
//!   Both are [`crate::rules::battle::Decision::React`] prompts.
//!
//! The numbers and every house rule are in `assets/rulesets/segments.ron`.

mod actions;
mod combat;
mod spells;
mod turns;
mod view;

#[cfg(test)]
mod spell_tests;
#[cfg(test)]
mod tests;

pub use actions::{check, execute, legal};
pub use turns::{pending, start};
pub use view::{
    acts_before, clock, describe, log_line, odds, pending_damage, redact, redact_event,
    threat_damage,
};

use crate::rules::battle::ids::PerUnit;
use crate::rules::battle::{
    BattleState, Command, Decision, Event, Exec, Intent, Rejected, SideId, Spell, UnitId,
};
use crate::rules::rulesets::view::{Clock, CommandInfo, Odds};
use crate::rules::rulesets::{LevelProblem, Never};
use serde::{Deserialize, Serialize};

/// The names of the pools and stats the ruleset reads (its data file and levels spell them so),
/// in one place: a misspelt name is a compile error instead of a stat silently read as 0.
pub(crate) mod names {
    // Pools.
    /// Hit points: a pool, filled from the stat of the same name when the battle starts.
    pub const HP: &str = "hp";
    /// Spells a caster has left to cast (filled from [`SPELL_SLOTS`]).
    pub const SPELLS: &str = "spells";

    // Fighting.
    /// Armour class: the lower, the harder to hit.
    pub const AC: &str = "ac";
    /// To hit armour class 0: a hit needs a d20 of at least THAC0 - AC.
    pub const THAC0: &str = "thac0";
    /// Attack routines per round.
    pub const ATTACKS: &str = "attacks";
    /// Melee attacks in one routine.
    pub const STRIKES: &str = "strikes";
    pub const DAMAGE_DICE: &str = "damage_dice";
    pub const DAMAGE_DIE: &str = "damage_die";
    pub const DAMAGE_BONUS: &str = "damage_bonus";
    /// Stands with a spear set against a charge (> 0).
    pub const SET_VS_CHARGE: &str = "set_vs_charge";

    // Missiles.
    /// Short range of its missile weapon (0: it has none).
    pub const RANGE: &str = "range";
    pub const LONG_RANGE: &str = "long_range";
    /// Missiles in one routine.
    pub const RATE_OF_FIRE: &str = "rate_of_fire";
    /// To hit with missiles, and segments it acts before its side when it declared Missile.
    pub const MISSILE_BONUS: &str = "missile_bonus";
    pub const RANGED_DAMAGE_DICE: &str = "ranged_damage_dice";
    pub const RANGED_DAMAGE_DIE: &str = "ranged_damage_die";
    pub const RANGED_DAMAGE_BONUS: &str = "ranged_damage_bonus";

    // Spells.
    pub const SPELL_RANGE: &str = "spell_range";
    pub const SPELL_SLOTS: &str = "spell_slots";
    /// Segments of casting.
    pub const SPELL_CASTING_TIME: &str = "spell_casting_time";
    pub const SPELL_MISSILES: &str = "spell_missiles";
    pub const SPELL_DAMAGE_DICE: &str = "spell_damage_dice";
    pub const SPELL_DAMAGE_DIE: &str = "spell_damage_die";
    pub const SPELL_DAMAGE_BONUS: &str = "spell_damage_bonus";
    /// Haste: slots, the pool of slots left, casting time, rounds it lasts.
    pub const HASTE_SLOTS: &str = "haste_slots";
    pub const HASTE: &str = "haste";
    pub const HASTE_CASTING_TIME: &str = "haste_casting_time";
    pub const HASTE_ROUNDS: &str = "haste_rounds";
    /// Cure Light Wounds: slots, pool, casting time, the die it heals.
    pub const CURE_SLOTS: &str = "cure_slots";
    pub const CURE: &str = "cure";
    pub const CURE_CASTING_TIME: &str = "cure_casting_time";
    pub const CURE_DIE: &str = "cure_die";
    /// Hold Person: slots, pool, casting time, rounds it lasts.
    pub const HOLD_SLOTS: &str = "hold_slots";
    pub const HOLD: &str = "hold";
    pub const HOLD_CASTING_TIME: &str = "hold_casting_time";
    pub const HOLD_ROUNDS: &str = "hold_rounds";
    /// Shield: slots, pool, casting time, rounds, the AC it gives (against missiles, and else).
    pub const SHIELD_SLOTS: &str = "shield_slots";
    pub const SHIELD: &str = "shield";
    pub const SHIELD_CASTING_TIME: &str = "shield_casting_time";
    pub const SHIELD_ROUNDS: &str = "shield_rounds";
    pub const SHIELD_AC: &str = "shield_ac";
    pub const SHIELD_MISSILE_AC: &str = "shield_missile_ac";
    /// Saving throw against spells: a d20 of at least this resists Hold Person.
    pub const SAVE: &str = "save";

    // Moving and surprise.
    /// Movement rate: squares it may run.
    pub const MV: &str = "mv";
    /// Taken off the surprise segments it suffers (a penalty adds).
    pub const SURPRISE_BONUS: &str = "surprise_bonus";
    /// The highest d6 on which its foes are surprised (0: the usual 2).
    pub const SURPRISES_ON: &str = "surprises_on";
    /// Never surprised (> 0).
    pub const NEVER_SURPRISED: &str = "never_surprised";
}

/// Segments in a round.
pub const SEGMENTS: u32 = 10;

/// Where the battle is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Before the surprise roll.
    #[default]
    Start,
    /// The surprise segments are being played.
    Surprise,
    /// Units declare what they will do this round.
    Declare,
    /// The round's segments are being played.
    Round,
}

/// What kind of turn a unit is taking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TurnKind {
    /// In a surprise segment: a whole round's action, whatever it is (nothing was declared).
    Surprise,
    /// In the unit's initiative segment.
    Main,
    /// An action held from an earlier segment.
    Held,
    /// Further attack routines, after the other side's initiative segment.
    Extra,
}

/// The turn under way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub unit: UnitId,
    pub kind: TurnKind,
    /// Squares moved this turn, if the unit has moved.
    pub moved: Option<u32>,
    /// Attack routines the unit may still use this turn.
    pub routines: u32,
    /// The unit has attacked this round (it may no longer move).
    pub attacked: bool,
}

/// A spell being cast: it goes off when segment `last` (counted in ticks) has passed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Casting {
    pub caster: UnitId,
    pub target: UnitId,
    /// The spell (Magic Missile when left out).
    #[serde(default, skip_serializing_if = "Spell::is_magic_missile")]
    pub spell: Spell,
    /// The tick casting began in (its first segment).
    pub start: u32,
    /// The tick of its last segment.
    pub last: u32,
}

/// What the ruleset remembers of one unit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memo {
    /// Surprise segments (settled when the battle starts).
    pub surprise: u32,
    /// It has declared this round.
    pub declared: bool,
    /// Its declaration this round. `None` if it has not declared, or, in a clone redacted for
    /// another side, if it is not revealed yet.
    pub intent: Option<Intent>,
    /// Its declaration has been revealed (its first turn of the round began).
    pub revealed: bool,
    /// It has had its turn this round.
    pub acted: bool,
    /// It holds its action for a later segment.
    pub holding: bool,
    /// Attack routines spent this round (this segment, while surprise lasts).
    pub spent: u32,
    /// It has moved this round (this segment, while surprise lasts).
    pub moved: bool,
    /// It has had (or cannot have) its further attack routines this round.
    pub extra_done: bool,
    /// The tick in which it last took damage (0: never).
    pub hurt: u32,
    /// The last tick it is hasted, held, shielded (0: it is not). These last across rounds.
    #[serde(default)]
    pub hasted_until: u32,
    #[serde(default)]
    pub held_until: u32,
    #[serde(default)]
    pub shielded_until: u32,
}

/// The memo [`State::at`] gives for a unit the state has none for (before the surprise roll,
/// or an id past the last unit): it has declared, acted and moved, and has nothing left to do,
/// so no turn, declaration or reaction is ever waited for from it.
const NO_UNIT: Memo = Memo {
    surprise: 0,
    declared: true,
    intent: None,
    revealed: true,
    acted: true,
    holding: false,
    spent: 0,
    moved: true,
    extra_done: true,
    hurt: 0,
    hasted_until: 0,
    held_until: 0,
    shielded_until: 0,
};

/// The ruleset's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub phase: Phase,
    /// How many surprise segments the battle has (the most any unit is surprised for).
    pub surprise_segments: u32,
    /// The segment being played (of the surprise, or of the round); 0 between segments.
    pub segment: u32,
    /// Segments played since the battle began (surprise segments included); casting times run
    /// on it, so a spell may go on into the next round.
    pub tick: u32,
    /// Each side's initiative roll this round; empty before initiative.
    pub initiative: Vec<i64>,
    /// Each unit's memo, in unit order.
    pub units: PerUnit<Memo>,
    /// The current segment is simultaneous (units of several sides act in it).
    pub simultaneous: bool,
    /// The units taking turns in the current segment, in order.
    pub queue: Vec<UnitId>,
    /// Index in `queue` of the next turn to begin.
    pub turn: usize,
    /// The turn under way.
    pub current: Option<Turn>,
    /// Spells being cast.
    pub casting: Vec<Casting>,
}

impl State {
    /// The memo of unit `u` (`NO_UNIT` if it has none).
    pub fn at(&self, u: UnitId) -> &Memo {
        self.units.get(u).unwrap_or(&NO_UNIT)
    }
}

/// The ruleset's events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ev {
    /// Surprise is settled: each side's roll (`None`: no roll), each unit's surprise segments,
    /// and how many surprise segments there are.
    Surprise {
        rolls: Vec<Option<i64>>,
        segments: Vec<u32>,
        count: u32,
    },
    /// Declarations for a new round begin (the round's bookkeeping is cleared).
    Declaring,
    /// Reinforcement `unit` joined its side; `ready`: it arrived while declarations are
    /// made, and declares and acts this round (house rule Reinforcements).
    Joined { unit: UnitId, ready: bool },
    /// `unit` declared `intent` (hidden from the other sides until revealed; `None` in a copy
    /// of the event redacted for them).
    Declared {
        unit: UnitId,
        intent: Option<Intent>,
    },
    /// Each side's initiative roll; the segments begin.
    Initiative { rolls: Vec<i64> },
    /// Segment `n` of round `round` (0: a surprise segment) begins: `queue` takes turns in it.
    Segment {
        round: u32,
        n: u32,
        tick: u32,
        queue: Vec<UnitId>,
        simultaneous: bool,
    },
    /// `unit`'s declaration becomes known to every side.
    Revealed {
        unit: UnitId,
        intent: Option<Intent>,
    },
    /// The turn of `queue[index]` begins.
    TurnBegun {
        index: usize,
        kind: TurnKind,
        routines: u32,
        attacked: bool,
    },
    /// `unit` moved `cost` squares (one move per turn).
    MoveDone { unit: UnitId, cost: u32 },
    /// `unit` used one attack routine.
    Routine { unit: UnitId },
    /// `unit`'s turn is over; `held`: it holds its action for a later segment; `extra_done`: no
    /// further attack routines remain for it this round.
    TurnDone {
        unit: UnitId,
        held: bool,
        extra_done: bool,
    },
    /// `unit` took damage in the current segment.
    Hurt { unit: UnitId },
    /// `caster` began casting at `target`; the spell goes off after tick `last`.
    CastBegun {
        caster: UnitId,
        target: UnitId,
        start: u32,
        last: u32,
        #[serde(default, skip_serializing_if = "Spell::is_magic_missile")]
        spell: Spell,
    },
    /// `caster`'s spell was spoiled (damage while casting, or the caster fell).
    Spoiled { caster: UnitId },
    /// `caster`'s spell goes off at the start of segment `segment` of round `round` (0: the
    /// surprise segments), that is, as its last casting segment ends.
    SpellWentOff {
        caster: UnitId,
        target: UnitId,
        round: u32,
        segment: u32,
        #[serde(default, skip_serializing_if = "Spell::is_magic_missile")]
        spell: Spell,
    },
    /// `unit` is under `spell` (Haste, Hold Person, Shield) up to tick `until`.
    Enchanted {
        unit: UnitId,
        spell: Spell,
        until: u32,
    },
    /// `unit` made its saving throw against `spell`.
    Resisted { unit: UnitId, spell: Spell },
    /// `spell`'s effect on `unit` is over.
    Expired { unit: UnitId, spell: Spell },
}

/// The `segments` ruleset (see [`crate::rules::rulesets::Ruleset`]).
pub struct Segments;

impl crate::rules::rulesets::Ruleset for Segments {
    type State = State;
    type Event = Ev;
    type Resume = Never;
    type Note = ();
    const DATA: &'static str = include_str!("../../../../assets/rulesets/segments.ron");
    const STATS: &'static [&'static str] = &[
        names::AC,
        names::HP,
        names::THAC0,
        names::MV,
        names::SURPRISE_BONUS,
        names::MISSILE_BONUS,
        names::DAMAGE_DICE,
        names::DAMAGE_DIE,
        names::DAMAGE_BONUS,
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
    /// The pools of spells a caster has left: "Halvaine haste spells left 0 (-1)", not a
    /// "haste 0" that reads like a stat.
    fn pool_word(pool: &str) -> Option<&'static str> {
        Some(match pool {
            names::SPELLS => "spells left",
            names::HASTE => "haste spells left",
            names::CURE => "cure spells left",
            names::HOLD => "hold spells left",
            names::SHIELD => "shield spells left",
            _ => return None,
        })
    }
    /// "Segment 7: no one acts" (up to nine a round; a spell going off or a held action
    /// still has its own line) and "X is done" (always right after the engine's "X ends its
    /// turn"; a held action keeps its "X holds its action").
    fn bookkeeping(e: &Ev) -> bool {
        match e {
            Ev::Segment { queue, .. } => queue.is_empty(),
            Ev::TurnDone { held, .. } => !held,
            // "X moves 2 squares" came just before "X moves (4, 11) -> (6, 10), 2 steps":
            // the walk's own line tells it (a move spent on a door is still told).
            Ev::MoveDone { cost, .. } => *cost > 0,
            _ => false,
        }
    }
    /// A held action's "X holds its action for a later segment" takes the place of the "X
    /// ends its turn" the engine emits just before it, which would read as the opposite.
    fn replaces_previous_line(s: &BattleState, e: &Ev, previous: &str) -> bool {
        matches!(e, Ev::TurnDone { unit, held: true, .. }
            if previous == crate::rules::battle::log::describe(s, &Event::TurnEnded { unit: *unit }))
    }
    /// What a turn is for ("(its initiative segment)") goes on the line of the turn it begins,
    /// "X's turn", one line a turn.
    fn joins_previous_line(s: &BattleState, e: &Ev, previous: &str) -> bool {
        matches!(e, Ev::TurnBegun { .. })
            && s.unit_ids().any(|unit| {
                previous == crate::rules::battle::log::describe(s, &Event::TurnStarted { unit })
            })
    }
    fn validate(file: &crate::rules::level::LevelFile) -> Vec<LevelProblem> {
        if file.options.surprised.is_empty() {
            return Vec::new();
        }
        vec![LevelProblem {
            path: vec!["options", "surprised"],
            message: "options.surprised has no meaning in segments: every side rolls a d6 for \
                      surprise (sides in options.alerted make no roll). A creature that \
                      surprises its foes on 1-3 says so in its stats: overrides: \
                      {\"surprises_on\": 3}"
                .to_string(),
        }]
    }
    fn acts_before(s: &BattleState, r: &State, enemy: UnitId, unit: UnitId) -> bool {
        acts_before(s, r, enemy, unit)
    }
    fn threat_damage(s: &BattleState, a: UnitId, t: UnitId, ranged: bool) -> Option<f64> {
        threat_damage(s, a, t, ranged)
    }
    fn pending_damage(s: &BattleState, r: &State) -> Vec<(UnitId, UnitId, f64)> {
        pending_damage(s, r)
    }
    fn redact(state: &mut BattleState, viewer: SideId) {
        redact(state, viewer)
    }
    fn redact_event(s: &BattleState, e: &Event, viewer: SideId) -> Event {
        redact_event(s, e, viewer)
    }
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Surprise {
            segments, count, ..
        } => {
            s.units = PerUnit::from_vec(
                segments
                    .iter()
                    .map(|&surprise| Memo {
                        surprise,
                        ..Memo::default()
                    })
                    .collect(),
            );
            s.surprise_segments = *count;
            s.phase = Phase::Surprise;
            s.segment = 0;
        }
        Ev::Joined { unit, ready } => {
            let memo = if *ready {
                Memo::default()
            } else {
                NO_UNIT.clone()
            };
            s.units.put(*unit, memo);
        }
        Ev::Declaring => {
            s.phase = Phase::Declare;
            s.segment = 0;
            s.initiative.clear();
            for m in s.units.values_mut() {
                *m = Memo {
                    surprise: m.surprise,
                    hurt: m.hurt,
                    hasted_until: m.hasted_until,
                    held_until: m.held_until,
                    shielded_until: m.shielded_until,
                    ..Memo::default()
                };
            }
            s.simultaneous = false;
            s.queue.clear();
            s.turn = 0;
            s.current = None;
        }
        Ev::Declared { unit, intent } => {
            if let Some(m) = s.units.get_mut(*unit) {
                m.declared = true;
                m.intent = intent.clone();
            }
        }
        Ev::Initiative { rolls } => {
            s.initiative = rolls.clone();
            s.phase = Phase::Round;
            s.segment = 0;
        }
        Ev::Segment {
            round,
            n,
            tick,
            queue,
            simultaneous,
        } => {
            s.segment = *n;
            s.tick = *tick;
            s.queue = queue.clone();
            s.turn = 0;
            s.current = None;
            s.simultaneous = *simultaneous;
            if *round == 0 {
                // Every surprise segment is a whole round's action for those who act in it.
                for m in s.units.values_mut() {
                    m.spent = 0;
                    m.moved = false;
                }
            }
        }
        Ev::Revealed { unit, intent } => {
            if let Some(m) = s.units.get_mut(*unit) {
                m.revealed = true;
                m.intent = intent.clone();
            }
        }
        Ev::TurnBegun {
            index,
            kind,
            routines,
            attacked,
        } => {
            if let Some(&unit) = s.queue.get(*index) {
                s.current = Some(Turn {
                    unit,
                    kind: *kind,
                    moved: None,
                    routines: *routines,
                    attacked: *attacked,
                });
            }
            s.turn = index + 1;
        }
        Ev::MoveDone { unit, cost } => {
            if let Some(m) = s.units.get_mut(*unit) {
                m.moved = true;
            }
            if let Some(t) = s.current.as_mut().filter(|t| t.unit == *unit) {
                t.moved = Some(*cost);
            }
        }
        Ev::Routine { unit } => {
            if let Some(m) = s.units.get_mut(*unit) {
                m.spent += 1;
            }
            if let Some(t) = s.current.as_mut().filter(|t| t.unit == *unit) {
                t.routines = t.routines.saturating_sub(1);
                t.attacked = true;
            }
        }
        Ev::TurnDone {
            unit,
            held,
            extra_done,
        } => {
            if s.current.as_ref().is_some_and(|t| t.unit == *unit) {
                s.current = None;
            }
            if let Some(m) = s.units.get_mut(*unit) {
                m.acted = true;
                m.holding = *held;
                m.extra_done |= *extra_done;
            }
        }
        Ev::Hurt { unit } => {
            let tick = s.tick;
            if let Some(m) = s.units.get_mut(*unit) {
                m.hurt = tick;
            }
        }
        Ev::CastBegun {
            caster,
            target,
            start,
            last,
            spell,
        } => s.casting.push(Casting {
            caster: *caster,
            target: *target,
            spell: *spell,
            start: *start,
            last: *last,
        }),
        Ev::Enchanted { unit, spell, until } => {
            if let Some(e) = s.units.get_mut(*unit).and_then(|m| effect(m, *spell)) {
                *e = *until;
            }
        }
        Ev::Expired { unit, spell } => {
            if let Some(e) = s.units.get_mut(*unit).and_then(|m| effect(m, *spell)) {
                *e = 0;
            }
        }
        Ev::Resisted { .. } => {}
        Ev::Spoiled { caster } | Ev::SpellWentOff { caster, .. } => {
            s.casting.retain(|c| c.caster != *caster)
        }
    }
}

/// The last tick of `spell`'s effect on the unit of `m` (`None`: Magic Missile and Cure Light
/// Wounds last no time).
fn effect(m: &mut Memo, spell: Spell) -> Option<&mut u32> {
    match spell {
        Spell::Haste => Some(&mut m.hasted_until),
        Spell::HoldPerson => Some(&mut m.held_until),
        Spell::Shield => Some(&mut m.shielded_until),
        Spell::MagicMissile | Spell::CureLightWounds => None,
    }
}
