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
//! - **Spells** (G-57..G-65): casting begins in the caster's segment `s` and occupies segments
//!   `s` to `s + t - 1`; the spell goes off at the start of segment `s + t` (Halvaine: 4 + 2 =
//!   6). Damage taken while casting spoils it.
//! - **Interrupts** (G-07): leaving an enemy's reach gives it a fleeing attack; moving into the
//!   reach of a spear set against a charge lets the spearman strike first, for double damage.
//!   Both are [`crate::rules::battle::Decision::React`] prompts.
//!
//! The numbers and every house rule are in `assets/rulesets/segments.ron`.

mod combat;
mod view;

#[cfg(test)]
mod tests;

pub use view::{
    acts_before, clock, describe, log_line, odds, pending_damage, redact, redact_event,
    threat_damage,
};

use crate::rules::battle::common::ndx;
use crate::rules::battle::{
    Action, BattleState, Command, Condition, Decision, Event, Exec, Intent, Purpose, Reaction,
    Rejected, SideId, UnitId,
};
use crate::rules::rulesets::view::{Clock, CommandInfo, Odds};
use crate::rules::rulesets::{LevelProblem, Member, Never};
use serde::{Deserialize, Serialize};

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
}

/// What an unknown unit looks like: nothing left to do.
static NO_UNIT: Memo = Memo {
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
    pub units: Vec<Memo>,
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
    /// The memo of the unit with index `i`.
    pub fn at(&self, i: usize) -> &Memo {
        self.units.get(i).unwrap_or(&NO_UNIT)
    }

    fn memo(&mut self, u: UnitId) -> Option<&mut Memo> {
        self.units.get_mut(u.index())
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
    },
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
        "ac",
        "hp",
        "thac0",
        "mv",
        "surprise_bonus",
        "missile_bonus",
        "damage_dice",
        "damage_die",
        "damage_bonus",
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
    /// "Segment 7: no one acts" (up to nine a round; a spell going off or a held action
    /// still has its own line) and "X is done" (always right after the engine's "X ends its
    /// turn"; a held action keeps its "X holds its action").
    fn bookkeeping(e: &Ev) -> bool {
        match e {
            Ev::Segment { queue, .. } => queue.is_empty(),
            Ev::TurnDone { held, .. } => !held,
            _ => false,
        }
    }
    /// A held action's "X holds its action for a later segment" takes the place of the "X
    /// ends its turn" the engine emits just before it, which would read as the opposite.
    fn replaces_previous_line(s: &BattleState, e: &Ev, previous: &str) -> bool {
        matches!(e, Ev::TurnDone { unit, held: true, .. }
            if previous == crate::rules::battle::log::describe(s, &Event::TurnEnded { unit: *unit }))
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

fn ev(e: Ev) -> Event {
    Segments::event(e)
}

/// The ruleset state of a battle of this ruleset.
pub(crate) fn st(s: &BattleState) -> Option<&State> {
    Some(Segments::state(s))
}

pub fn apply(s: &mut State, e: &Ev) {
    match e {
        Ev::Surprise {
            segments, count, ..
        } => {
            s.units = segments
                .iter()
                .map(|&surprise| Memo {
                    surprise,
                    ..Memo::default()
                })
                .collect();
            s.surprise_segments = *count;
            s.phase = Phase::Surprise;
            s.segment = 0;
        }
        Ev::Declaring => {
            s.phase = Phase::Declare;
            s.segment = 0;
            s.initiative.clear();
            for m in &mut s.units {
                *m = Memo {
                    surprise: m.surprise,
                    hurt: m.hurt,
                    ..Memo::default()
                };
            }
            s.simultaneous = false;
            s.queue.clear();
            s.turn = 0;
            s.current = None;
        }
        Ev::Declared { unit, intent } => {
            if let Some(m) = s.memo(*unit) {
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
                for m in &mut s.units {
                    m.spent = 0;
                    m.moved = false;
                }
            }
        }
        Ev::Revealed { unit, intent } => {
            if let Some(m) = s.memo(*unit) {
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
            if let Some(m) = s.memo(*unit) {
                m.moved = true;
            }
            if let Some(t) = s.current.as_mut().filter(|t| t.unit == *unit) {
                t.moved = Some(*cost);
            }
        }
        Ev::Routine { unit } => {
            if let Some(m) = s.memo(*unit) {
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
            if let Some(m) = s.memo(*unit) {
                m.acted = true;
                m.holding = *held;
                m.extra_done |= *extra_done;
            }
        }
        Ev::Hurt { unit } => {
            let tick = s.tick;
            if let Some(m) = s.memo(*unit) {
                m.hurt = tick;
            }
        }
        Ev::CastBegun {
            caster,
            target,
            start,
            last,
        } => s.casting.push(Casting {
            caster: *caster,
            target: *target,
            start: *start,
            last: *last,
        }),
        Ev::Spoiled { caster } | Ev::SpellWentOff { caster, .. } => {
            s.casting.retain(|c| c.caster != *caster)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading units and the clock

/// A unit's stat, 0 if it has none (or there is no such unit).
pub(crate) fn stat(s: &BattleState, u: UnitId, key: &str) -> i64 {
    s.unit(u).map_or(0, |x| x.stat(key))
}

fn side_of(s: &BattleState, u: UnitId) -> SideId {
    s.unit(u).map_or(SideId(0), |x| x.side)
}

/// Attack routines per round (at least 1).
pub(crate) fn attacks(s: &BattleState, u: UnitId) -> u32 {
    stat(s, u, "attacks").clamp(1, 10) as u32
}

/// Squares a unit may move and still attack.
pub(crate) fn walk_budget(s: &BattleState, u: UnitId) -> u32 {
    s.unit(u).map_or(0, |x| x.movement)
}

/// Squares a unit may move when it does nothing else (its movement rate `mv`).
pub(crate) fn run_budget(s: &BattleState, u: UnitId) -> u32 {
    let mv = stat(s, u, "mv");
    if mv > 0 {
        mv.min(1000) as u32
    } else {
        walk_budget(s, u) * 2
    }
}

pub(crate) fn has_missile(s: &BattleState, u: UnitId) -> bool {
    stat(s, u, "range") > 0
}

/// Whether `u` knows a spell at all (it may have no casting left).
pub(crate) fn is_caster(s: &BattleState, u: UnitId) -> bool {
    stat(s, u, "spell_range") > 0 && stat(s, u, "spell_slots") > 0
}

/// Whether `u` can still cast its spell (a caster with a slot left).
pub(crate) fn can_still_cast(s: &BattleState, u: UnitId) -> bool {
    is_caster(s, u) && s.unit(u).is_some_and(|x| x.pool("spells") > 0)
}

pub(crate) fn casting_time(s: &BattleState, u: UnitId) -> u32 {
    stat(s, u, "spell_casting_time").clamp(1, 30) as u32
}

pub(crate) fn is_casting(r: &State, u: UnitId) -> bool {
    r.casting.iter().any(|c| c.caster == u)
}

/// Whether `u` is surprised in the current surprise segment.
pub(crate) fn surprised_now(r: &State, u: UnitId) -> bool {
    r.phase == Phase::Surprise && r.at(u.index()).surprise >= r.segment
}

/// The segment in which `side` acts this round: the other side's roll (with more than two
/// sides, the highest roll among the others). 0 before initiative.
pub(crate) fn side_segment(s: &BattleState, r: &State, side: SideId) -> u32 {
    (0..s.sides.len())
        .filter(|&o| o != side.index())
        .filter_map(|o| r.initiative.get(o))
        .map(|&roll| roll.clamp(0, 6) as u32)
        .max()
        .unwrap_or(0)
}

/// The latest segment in which another side than `side` acts (its initiative segment).
pub(crate) fn other_segment(s: &BattleState, r: &State, side: SideId) -> u32 {
    (0..s.sides.len())
        .filter(|&o| o != side.index())
        .map(|o| side_segment(s, r, SideId(o as u8)))
        .max()
        .unwrap_or(0)
}

/// The segment of `u`'s turn this round, from its declaration as `r` knows it (an unknown
/// declaration counts as its side's segment); `None` if it does not act (Hold, nothing
/// declared) or before initiative.
pub(crate) fn unit_segment(s: &BattleState, r: &State, u: UnitId) -> Option<u32> {
    if r.initiative.is_empty() || !r.at(u.index()).declared {
        return None;
    }
    let base = side_segment(s, r, side_of(s, u));
    match r.at(u.index()).intent.clone() {
        Some(Intent::Hold) => None,
        Some(Intent::Missile) if has_missile(s, u) => {
            Some((base as i64 - stat(s, u, "missile_bonus")).clamp(1, SEGMENTS as i64) as u32)
        }
        _ => Some(base),
    }
}

/// What a unit's declaration lets it do this turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Anything: a surprise segment, or a declaration this view cannot see.
    Free,
    Melee,
    Missile,
    Spell(UnitId),
    Run,
    Hold,
}

pub(crate) fn mode(r: &State, u: UnitId) -> Mode {
    if r.phase == Phase::Surprise {
        return Mode::Free;
    }
    match r.at(u.index()).intent.clone() {
        None => Mode::Free,
        Some(Intent::Melee) => Mode::Melee,
        Some(Intent::Missile) => Mode::Missile,
        Some(Intent::Spell { target }) => Mode::Spell(target),
        Some(Intent::Run) => Mode::Run,
        Some(Intent::Hold) => Mode::Hold,
    }
}

/// Attack routines still to come for `u` after its first this round.
fn extra_routines(s: &BattleState, r: &State, u: UnitId) -> u32 {
    let spent = r.at(u.index()).spent;
    attacks(s, u).saturating_sub(spent.max(1))
}

/// Whether `u`'s extra attack routines are due in round segment `n`.
fn extra_due(s: &BattleState, r: &State, u: UnitId, n: u32) -> bool {
    let i = u.index();
    r.at(i).acted
        && !r.at(i).extra_done
        && !r.at(i).holding
        && matches!(mode(r, u), Mode::Melee | Mode::Missile | Mode::Free)
        && extra_routines(s, r, u) > 0
        && n == other_segment(s, r, side_of(s, u)) + 1
}

/// The units taking turns in round segment `n`, in unit order.
fn round_queue(s: &BattleState, r: &State, n: u32) -> Vec<UnitId> {
    s.unit_ids()
        .filter(|&u| s.units[u.index()].is_active() && !is_casting(r, u))
        .filter(|&u| {
            let i = u.index();
            if r.at(i).holding {
                true
            } else if !r.at(i).acted {
                unit_segment(s, r, u) == Some(n)
            } else {
                extra_due(s, r, u, n)
            }
        })
        .collect()
}

fn spans_sides(s: &BattleState, queue: &[UnitId]) -> bool {
    queue
        .first()
        .is_some_and(|&a| queue.iter().any(|&b| side_of(s, b) != side_of(s, a)))
}

// ---------------------------------------------------------------------------------------------
// Start: surprise

pub fn start(x: &mut Exec) {
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        let hp = stat(x.s(), u, "hp");
        x.set_pool(u, "hp", hp);
        if is_caster(x.s(), u) {
            let slots = stat(x.s(), u, "spell_slots");
            x.set_pool(u, "spells", slots);
        }
    }
    surprise(x);
    if x.over() {
        return;
    }
    if st(x.s()).is_some_and(|r| r.surprise_segments == 0) {
        new_round(x);
    }
    advance(x);
}

/// The highest d6 result on which `side` is surprised: the most any unit of the sides it faces
/// surprises on (2 unless a creature "surprises on 1-3" or more).
pub(crate) fn surprise_threshold(s: &BattleState, side: SideId) -> i64 {
    s.units
        .iter()
        .filter(|u| u.side != side)
        .map(|u| match u.stat("surprises_on") {
            n if n > 0 => n.min(6),
            _ => 2,
        })
        .max()
        .unwrap_or(2)
}

fn never_surprised(s: &BattleState, u: UnitId) -> bool {
    stat(s, u, "never_surprised") > 0
}

fn surprise(x: &mut Exec) {
    let nsides = x.s().sides.len();
    let mut rolls = vec![None; nsides];
    let mut side_k = vec![0i64; nsides];
    for (side, k) in side_k.iter_mut().enumerate() {
        let sid = SideId(side as u8);
        let members = x.s().members(sid);
        let alerted = x
            .s()
            .level
            .options
            .alerted
            .contains(&x.s().sides[side].name);
        if alerted || members.iter().all(|&u| never_surprised(x.s(), u)) {
            continue;
        }
        let threshold = surprise_threshold(x.s(), sid);
        let roll = x
            .roll(
                None,
                Some(sid),
                Purpose::Surprise,
                &ndx(1, 6, 0),
                Some(threshold + 1),
            )
            .total;
        rolls[side] = Some(roll);
        if roll <= threshold {
            *k = roll;
        }
    }
    let segments: Vec<u32> = x
        .s()
        .unit_ids()
        .map(|u| {
            let k = side_k[side_of(x.s(), u).index()];
            if k == 0 || never_surprised(x.s(), u) {
                0
            } else {
                (k - stat(x.s(), u, "surprise_bonus")).clamp(0, 60) as u32
            }
        })
        .collect();
    let count = segments.iter().copied().max().unwrap_or(0);
    x.emit(ev(Ev::Surprise {
        rolls,
        segments,
        count,
    }));
}

// ---------------------------------------------------------------------------------------------
// Rounds, segments, turns

fn new_round(x: &mut Exec) {
    let round = x.s().round + 1;
    x.emit(Event::RoundStarted { round });
    if x.over() {
        return;
    }
    x.emit(ev(Ev::Declaring));
}

fn end_round(x: &mut Exec) {
    let round = x.s().round;
    x.emit(Event::RoundEnded { round });
    for u in x.s().unit_ids().collect::<Vec<_>>() {
        x.set_condition(u, Condition::Holding, false);
    }
    new_round(x);
}

/// The next unit to declare: the first in unit order that is active, has not declared and is
/// not busy casting a spell begun earlier.
pub(crate) fn next_to_declare(s: &BattleState, r: &State) -> Option<UnitId> {
    s.unit_ids()
        .find(|&u| s.units[u.index()].is_active() && !r.at(u.index()).declared && !is_casting(r, u))
}

fn roll_initiative(x: &mut Exec) {
    let mut rolls = Vec::new();
    for side in 0..x.s().sides.len() {
        let sid = SideId(side as u8);
        let roll = if x.s().members(sid).is_empty() {
            0
        } else {
            x.roll(None, Some(sid), Purpose::Initiative, &ndx(1, 6, 0), None)
                .total
        };
        rolls.push(roll);
    }
    x.emit(ev(Ev::Initiative { rolls }));
}

/// Runs the battle forward until a decision is needed: declarations, initiative, segments,
/// turns that have nothing left to decide.
pub(crate) fn advance(x: &mut Exec) {
    // Every pass emits at least one event; the bound only guards against a bug looping.
    for _ in 0..100_000 {
        if x.over() || !x.s().interrupts.is_empty() {
            return;
        }
        let Some(r) = st(x.s()) else { return };
        match r.phase {
            Phase::Start => return,
            Phase::Declare => {
                if next_to_declare(x.s(), r).is_some() {
                    return;
                }
                roll_initiative(x);
            }
            Phase::Surprise | Phase::Round => {
                if let Some(t) = &r.current {
                    let u = t.unit;
                    if x.s().units[u.index()].is_active() && !turn_exhausted(x.s(), r) {
                        return;
                    }
                    finish_turn(x, u, false);
                    continue;
                }
                let next = (r.turn..r.queue.len()).find(|&i| {
                    let u = r.queue[i];
                    x.s().units[u.index()].is_active() && !is_casting(r, u)
                });
                match next {
                    Some(i) => begin_turn(x, i),
                    None => {
                        if r.segment > 0 {
                            combat::end_segment(x);
                        }
                        if !x.over() {
                            next_segment(x);
                        }
                    }
                }
            }
        }
    }
}

fn next_segment(x: &mut Exec) {
    let Some(r) = st(x.s()) else { return };
    let n = r.segment + 1;
    match r.phase {
        Phase::Surprise => {
            let count = r.surprise_segments;
            let surprise: Vec<u32> = r.units.iter().map(|m| m.surprise).collect();
            if n > count {
                for u in x.s().unit_ids().collect::<Vec<_>>() {
                    x.set_condition(u, Condition::Surprised, false);
                }
                new_round(x);
                return;
            }
            let queue: Vec<UnitId> = x
                .s()
                .unit_ids()
                .filter(|&u| {
                    x.s().units[u.index()].is_active()
                        && !is_casting(r, u)
                        && surprise.get(u.index()).is_some_and(|&k| k < n)
                })
                .collect();
            let simultaneous = spans_sides(x.s(), &queue);
            for u in x.s().unit_ids().collect::<Vec<_>>() {
                let on = x.s().units[u.index()].is_active()
                    && surprise.get(u.index()).is_some_and(|&k| k >= n);
                x.set_condition(u, Condition::Surprised, on);
            }
            x.emit(ev(Ev::Segment {
                round: 0,
                n,
                tick: n,
                queue,
                simultaneous,
            }));
        }
        Phase::Round => {
            if n > SEGMENTS {
                end_round(x);
                return;
            }
            let queue = round_queue(x.s(), r, n);
            let simultaneous = spans_sides(x.s(), &queue);
            let tick = r.surprise_segments + SEGMENTS * x.s().round.saturating_sub(1) + n;
            let reveal: Vec<(UnitId, Option<Intent>)> = queue
                .iter()
                .filter(|u| !r.at(u.index()).revealed)
                .map(|&u| (u, r.at(u.index()).intent.clone()))
                .collect();
            x.emit(ev(Ev::Segment {
                round: x.s().round,
                n,
                tick,
                queue,
                simultaneous,
            }));
            for (unit, intent) in reveal {
                x.emit(ev(Ev::Revealed { unit, intent }));
            }
        }
        Phase::Start | Phase::Declare => {}
    }
}

fn begin_turn(x: &mut Exec, index: usize) {
    let Some(r) = st(x.s()) else { return };
    let Some(&u) = r.queue.get(index) else {
        return;
    };
    let i = u.index();
    let spent = r.at(i).spent;
    let kind = if r.phase == Phase::Surprise {
        TurnKind::Surprise
    } else if r.at(i).holding {
        TurnKind::Held
    } else if !r.at(i).acted {
        TurnKind::Main
    } else {
        TurnKind::Extra
    };
    let a = attacks(x.s(), u);
    let routines = match (kind, mode(r, u)) {
        (_, Mode::Spell(_) | Mode::Run | Mode::Hold) => 0,
        (TurnKind::Surprise, _) => a.saturating_sub(spent),
        (TurnKind::Extra, _) => extra_routines(x.s(), r, u),
        (TurnKind::Main | TurnKind::Held, _) => {
            if r.segment > other_segment(x.s(), r, side_of(x.s(), u)) {
                a.saturating_sub(spent)
            } else {
                1u32.saturating_sub(spent)
            }
        }
    };
    let attacked = spent > 0;
    x.emit(Event::TurnStarted { unit: u });
    x.emit(ev(Ev::TurnBegun {
        index,
        kind,
        routines,
        attacked,
    }));
}

/// Ends the current turn of `u`; `held`: it holds its action for a later segment.
pub(crate) fn finish_turn(x: &mut Exec, u: UnitId, held: bool) {
    let Some(r) = st(x.s()) else { return };
    let kind = r.current.as_ref().map_or(TurnKind::Main, |t| t.kind);
    let extra_done = match kind {
        TurnKind::Extra => true,
        TurnKind::Surprise => false,
        TurnKind::Main | TurnKind::Held => {
            !held
                && (r.segment > other_segment(x.s(), r, side_of(x.s(), u))
                    || attacks(x.s(), u) <= 1)
        }
    };
    x.emit(Event::TurnEnded { unit: u });
    x.emit(ev(Ev::TurnDone {
        unit: u,
        held,
        extra_done,
    }));
    x.set_condition(u, Condition::Holding, held);
}

/// After an action: ends the turn if its unit has nothing left to do, then runs the battle on.
pub(crate) fn after_action(x: &mut Exec) {
    if x.over() || !x.s().interrupts.is_empty() {
        return;
    }
    advance(x);
}

// ---------------------------------------------------------------------------------------------
// What the current turn allows

/// What the turn under way lets its unit do, and why not where it cannot.
pub(crate) struct Allowed {
    pub unit: UnitId,
    /// Squares it may move, or why it may not.
    pub move_budget: Result<u32, String>,
    pub melee: Result<(), String>,
    pub missile: Result<(), String>,
    /// The target it must cast at (`None`: any), or why it may not cast.
    pub cast: Result<Option<UnitId>, String>,
    pub delay: Result<(), String>,
}

pub(crate) fn allowed(s: &BattleState, r: &State) -> Option<Allowed> {
    let t = r.current.as_ref()?;
    let u = t.unit;
    let who = s.unit_name(u);
    let m = mode(r, u);
    let first_turn = matches!(t.kind, TurnKind::Surprise | TurnKind::Main | TurnKind::Held);
    let move_budget = if !first_turn {
        Err(format!(
            "{who} may only use its further attack routines now, not move"
        ))
    } else if t.moved.is_some() {
        Err(format!("{who} has already moved this turn"))
    } else if t.attacked {
        Err(format!(
            "{who} has attacked this round and may not move now"
        ))
    } else {
        match m {
            Mode::Melee | Mode::Missile => Ok(walk_budget(s, u)),
            Mode::Run | Mode::Free => Ok(run_budget(s, u)),
            Mode::Spell(_) => Err(format!(
                "{who} declared a spell: it may cast it or do nothing, not move"
            )),
            Mode::Hold => Err(format!("{who} declared Hold: it does nothing this round")),
        }
    };
    let routine = || -> Result<(), String> {
        if t.routines == 0 {
            return Err(format!("{who} has no attack routine left this turn"));
        }
        if m == Mode::Free
            && let Some(cost) = t.moved
            && cost > walk_budget(s, u)
        {
            return Err(format!(
                "{who} ran {cost} squares and may not attack (at most {} to attack)",
                walk_budget(s, u)
            ));
        }
        Ok(())
    };
    let melee = match m {
        Mode::Melee | Mode::Free => routine(),
        Mode::Missile => Err(format!(
            "{who} declared Missile: it may not fight in melee this round"
        )),
        _ => Err(format!("{who} did not declare an attack this round")),
    };
    let missile = match m {
        _ if !has_missile(s, u) => Err(format!("{who} has no missile weapon")),
        Mode::Missile | Mode::Free => routine(),
        Mode::Melee => Err(format!(
            "{who} declared Melee: it may not use a missile weapon this round"
        )),
        _ => Err(format!("{who} did not declare an attack this round")),
    };
    let cast = if !is_caster(s, u) {
        Err(format!("{who} knows no spell"))
    } else if !can_still_cast(s, u) {
        Err(format!("{who} has no spell left to cast"))
    } else if !first_turn || t.moved.is_some() || t.attacked {
        Err(format!("{who} has already acted and may not begin a spell"))
    } else {
        match m {
            Mode::Spell(target) => Ok(Some(target)),
            Mode::Free => Ok(None),
            _ => Err(format!(
                "{who} did not declare a spell this round and may not substitute one"
            )),
        }
    };
    let delay = if r.phase != Phase::Round || !first_turn {
        Err(format!("{who} may only hold its action in its own segment"))
    } else if t.moved.is_some() || t.attacked {
        Err(format!("{who} has already acted and may not hold now"))
    } else if r.segment >= SEGMENTS {
        Err(format!(
            "segment {SEGMENTS} is the last: {who} cannot hold any longer"
        ))
    } else {
        Ok(())
    };
    Some(Allowed {
        unit: u,
        move_budget,
        melee,
        missile,
        cast,
        delay,
    })
}

/// The turn under way has nothing left but ending it.
fn turn_exhausted(s: &BattleState, r: &State) -> bool {
    allowed(s, r).is_some_and(|a| {
        a.move_budget.is_err() && a.melee.is_err() && a.missile.is_err() && a.cast.is_err()
    })
}

// ---------------------------------------------------------------------------------------------
// Decisions and commands

pub fn pending(s: &BattleState, r: &State) -> Decision {
    match r.phase {
        Phase::Declare => match next_to_declare(s, r) {
            Some(unit) => Decision::Declare {
                side: side_of(s, unit),
                unit,
            },
            None => Decision::Over { winner: None },
        },
        Phase::Surprise | Phase::Round => match &r.current {
            Some(t) => Decision::Act { unit: t.unit },
            None => Decision::Over { winner: None },
        },
        Phase::Start => Decision::Over { winner: None },
    }
}

/// The declarations `unit` may make, the sensible default first: its spell at the nearest foe
/// in range, else its missile weapon if a foe is in range, else melee.
pub(crate) fn declarations(s: &BattleState, unit: UnitId) -> Vec<Intent> {
    let mut foes = s.enemies_of(unit);
    foes.sort_by_key(|&e| (s.distance(unit, e), e));
    let mut out = Vec::new();
    if can_still_cast(s, unit) {
        out.extend(foes.iter().map(|&target| Intent::Spell { target }));
    }
    if has_missile(s, unit) {
        out.push(Intent::Missile);
    }
    out.extend([Intent::Melee, Intent::Run, Intent::Hold]);
    let in_range = |range: i64| {
        foes.iter()
            .copied()
            .find(|&e| i64::from(s.distance(unit, e)) <= range && s.can_see(unit, e))
    };
    let default = if can_still_cast(s, unit)
        && let Some(target) = in_range(stat(s, unit, "spell_range"))
    {
        Intent::Spell { target }
    } else if has_missile(s, unit)
        && in_range(stat(s, unit, "long_range").max(stat(s, unit, "range"))).is_some()
    {
        Intent::Missile
    } else {
        Intent::Melee
    };
    if let Some(i) = out.iter().position(|x| *x == default) {
        let d = out.remove(i);
        out.insert(0, d);
    }
    out
}

fn check_declaration(s: &BattleState, unit: UnitId, intent: &Intent) -> Result<(), Rejected> {
    let who = s.unit_name(unit);
    match intent {
        Intent::Spell { target } => {
            if !is_caster(s, unit) {
                return Err(Rejected::new(format!("{who} knows no spell")));
            }
            if !can_still_cast(s, unit) {
                return Err(Rejected::new(format!("{who} has no spell left to cast")));
            }
            let Some(t) = s.unit(*target) else {
                return Err(Rejected::new(format!("there is no {target}")));
            };
            if !s.are_enemies(unit, *target) || !t.is_active() {
                return Err(Rejected::new(format!(
                    "{} is not an enemy in the fight; {who} must aim its spell at one",
                    t.name
                )));
            }
            Ok(())
        }
        Intent::Missile if !has_missile(s, unit) => {
            Err(Rejected::new(format!("{who} has no missile weapon")))
        }
        _ => Ok(()),
    }
}

pub fn check(s: &BattleState, r: &State, cmd: &Command) -> Result<(), Rejected> {
    let unit = cmd.unit();
    let who = s.unit_name(unit);
    match cmd {
        Command::React { reaction, .. } => return combat::check_reaction(s, unit, reaction),
        Command::Pick { .. } => {
            return Err(Rejected::new(
                "the segments ruleset has no picks: units act in their segment, in unit order",
            ));
        }
        Command::Declare { intent, .. } => {
            if r.phase != Phase::Declare {
                return Err(Rejected::new(
                    "declarations are made at the start of a round, before initiative",
                ));
            }
            return match next_to_declare(s, r) {
                Some(d) if d == unit => check_declaration(s, unit, intent),
                Some(d) => Err(Rejected::new(format!(
                    "it is {}'s declaration now, not {who}'s",
                    s.unit_name(d)
                ))),
                None => Err(Rejected::new("no one is declaring")),
            };
        }
        _ => {}
    }
    if r.phase == Phase::Declare {
        let d = next_to_declare(s, r).map_or_else(String::new, |d| s.unit_name(d).into_owned());
        return Err(Rejected::new(format!(
            "the round has not begun: {d} must declare first"
        )));
    }
    let Some(a) = allowed(s, r) else {
        return Err(Rejected::new("no one is acting"));
    };
    if a.unit != unit {
        return Err(Rejected::new(format!(
            "it is {}'s turn in segment {}, not {who}'s",
            s.unit_name(a.unit),
            r.segment
        )));
    }
    let u = &s.units[unit.index()];
    match cmd {
        Command::EndTurn { .. } => Ok(()),
        Command::Act {
            action: Action::Delay,
            ..
        } => a.delay.map_err(Rejected::new),
        Command::Move { to, .. } => {
            let budget = a.move_budget.map_err(Rejected::new)?;
            if *to == u.cell {
                return Err(Rejected::new(format!("{who} is already at {to}")));
            }
            if !s.can_end_move(unit, budget, *to) {
                return Err(Rejected::new(format!(
                    "{who} cannot reach {to} with a move of {budget} squares"
                )));
            }
            Ok(())
        }
        Command::Attack { target, ranged, .. } => {
            if *ranged {
                a.missile.map_err(Rejected::new)?;
            } else {
                a.melee.map_err(Rejected::new)?;
            }
            combat::target_ok(s, unit, *target, combat::kind_of(*ranged))
        }
        Command::Act {
            action: Action::Cast { target },
            ..
        } => {
            let must = a.cast.map_err(Rejected::new)?;
            if let Some(t) = must
                && t != *target
            {
                return Err(Rejected::new(format!(
                    "{who} declared its spell at {}: it may cast at {} or not at all",
                    s.unit_name(t),
                    s.unit_name(t)
                )));
            }
            combat::target_ok(s, unit, *target, combat::Kind::Spell)
        }
        Command::Act { action, .. } => Err(Rejected::new(format!(
            "{} is not an action in the segments ruleset (Move, Attack, Cast, Delay, End Turn)",
            action.name()
        ))),
        Command::Declare { .. } | Command::Pick { .. } | Command::React { .. } => Ok(()),
    }
}

pub fn legal(s: &BattleState, r: &State) -> Vec<Command> {
    let mut out = Vec::new();
    match s.pending() {
        Decision::React { unit, trigger } => {
            out.push(Command::React {
                unit,
                reaction: Reaction::Decline,
            });
            if let Some(target) = combat::trigger_mover(&trigger)
                && s.unit(target).is_some_and(|t| t.pool("hp") > 0)
            {
                out.push(Command::React {
                    unit,
                    reaction: Reaction::Attack { target },
                });
            }
        }
        Decision::Declare { unit, .. } => {
            for intent in declarations(s, unit) {
                out.push(Command::Declare { unit, intent });
            }
        }
        Decision::Act { unit } => {
            let Some(a) = allowed(s, r) else {
                return out;
            };
            out.push(Command::EndTurn { unit });
            if a.delay.is_ok() {
                out.push(Command::Act {
                    unit,
                    action: Action::Delay,
                });
            }
            for target in s.enemies_of(unit) {
                if let Ok(must) = a.cast
                    && must.is_none_or(|t| t == target)
                    && combat::target_ok(s, unit, target, combat::Kind::Spell).is_ok()
                {
                    out.push(Command::Act {
                        unit,
                        action: Action::Cast { target },
                    });
                }
                for (ranged, ok) in [(false, &a.melee), (true, &a.missile)] {
                    if ok.is_ok()
                        && combat::target_ok(s, unit, target, combat::kind_of(ranged)).is_ok()
                    {
                        out.push(Command::Attack {
                            unit,
                            target,
                            ranged,
                        });
                    }
                }
            }
            if let Ok(budget) = a.move_budget {
                let here = s.units[unit.index()].cell;
                for (to, _) in s.reach_of(unit, budget, None).destinations() {
                    if to != here {
                        out.push(Command::Move { unit, to });
                    }
                }
            }
        }
        Decision::Pick { .. } | Decision::Over { .. } => {}
    }
    out
}

pub fn execute(x: &mut Exec, cmd: &Command) {
    match cmd {
        Command::Declare { unit, intent } => {
            x.emit(ev(Ev::Declared {
                unit: *unit,
                intent: Some(intent.clone()),
            }));
            advance(x);
        }
        Command::React { unit, reaction } => combat::react(x, *unit, reaction),
        Command::EndTurn { unit } => {
            finish_turn(x, *unit, false);
            advance(x);
        }
        Command::Act {
            unit,
            action: Action::Delay,
        } => {
            finish_turn(x, *unit, true);
            advance(x);
        }
        Command::Move { unit, to } => {
            combat::do_move(x, *unit, *to);
            after_action(x);
        }
        Command::Attack {
            unit,
            target,
            ranged,
        } => {
            combat::routine(x, *unit, *target, *ranged);
            after_action(x);
        }
        Command::Act {
            unit,
            action: Action::Cast { target },
        } => {
            combat::begin_cast(x, *unit, *target);
            after_action(x);
        }
        Command::Act { .. } | Command::Pick { .. } => {}
    }
}
