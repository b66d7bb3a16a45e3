//! The five rulesets, one module per rules text, and the registry that is the engine's only
//! switch point between them.
//!
//! Each ruleset is a unit type implementing [`Ruleset`]: its state, events and continuations,
//! and the functions the engine, the view and the AI call (see the trait). The
//! `registry!` line at the bottom of this file lists the rulesets once; from it come
//! the closed enums ([`RulesetId`], [`RulesState`], [`RulesEvent`], [`RulesResume`],
//! [`RulesNote`]) that saves and the AI's clones need, each member's [`Member`] glue, and the
//! dispatch functions ([`start`], [`pending`], [`legal`], [`check`], [`execute`], [`apply`],
//! [`clock`], [`describe`], [`odds`], [`log_line`] and the hooks). Dispatch is static: the AI
//! clones a battle thousands of times a decision.
//!
//! Adding a ruleset: see "Adding a ruleset" in `docs/architecture.md`.

pub mod action_points;
pub mod alternating;
pub mod phases;
pub mod segments;
pub mod sides;
pub mod view;

#[cfg(test)]
mod doors_tests;
#[cfg(test)]
mod items_tests;

pub use view::{Answered, Clock, CommandInfo, Odds, OrderEntry};

use crate::rules::battle::{
    BattleState, Command, Condition, Decision, Event, Exec, Rejected, Resume, SideId, Trigger,
    UnitId,
};
use crate::rules::level::LevelFile;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// A continuation or note type for a ruleset that has none: it has no values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Never {}

/// A problem a ruleset finds in a level beyond what every level is checked for: where (the
/// field path, e.g. `["options", "surprised"]`) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelProblem {
    pub path: Vec<&'static str>,
    pub message: String,
}

/// How the AI plays a ruleset, where a measured habit helps only there (see `docs/ai.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AiHints {
    /// The outnumbered side holds its ground in the first round (`action-points`).
    pub underdog_holds_first_round: bool,
    /// A unit that can strike a foe in melee strikes rather than moving off (`sides`,
    /// `segments`).
    pub strikes_when_engaged: bool,
}

/// One ruleset: what the engine, the view and the AI ask of it. Every function is pure apart
/// from [`Ruleset::start`] and [`Ruleset::execute`], which only emit events through [`Exec`].
/// `r` is the ruleset's own state inside `s`.
pub trait Ruleset {
    /// The ruleset's bookkeeping (per unit, per round...).
    type State: Clone + Debug + Default + PartialEq + Eq + Serialize + DeserializeOwned;
    /// Its own events: the only way its state changes ([`Ruleset::apply`]).
    type Event: Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned;
    /// What it does after the reactions of an interrupt it raised ([`Resume::Rules`]);
    /// [`Never`] if it raises none of its own.
    type Resume: Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned;
    /// What it notes on an attack paused for reactions ([`crate::rules::battle::PendingAttack`]);
    /// `()` if nothing.
    type Note: Clone + Debug + Default + PartialEq + Eq + Serialize + DeserializeOwned;

    /// The ruleset's numbers: the text of `assets/rulesets/<id>.ron`.
    const DATA: &'static str;
    /// Stats every template of its data file must have, so its code can rely on them.
    const STATS: &'static [&'static str];
    /// What the ruleset calls its round in the log and the HUD.
    const ROUND_WORD: &'static str = "Round";
    /// The AI's ruleset-specific habits.
    const AI: AiHints = AiHints {
        underdog_holds_first_round: false,
        strikes_when_engaged: false,
    };
    /// Whether its units may carry out a level's `tasks` (the `alternating` Short Task).
    const SHORT_TASKS: bool = false;

    /// The opening events: initiative, surprise, the first turn.
    fn start(x: &mut Exec);
    /// The decision the battle waits for (interrupts are handled by the engine).
    fn pending(s: &BattleState, r: &Self::State) -> Decision;
    /// The commands that answer it, in a fixed order.
    fn legal(s: &BattleState, r: &Self::State) -> Vec<Command>;
    /// Whether a command is legal now, and why not.
    fn check(s: &BattleState, r: &Self::State, cmd: &Command) -> Result<(), Rejected>;
    /// What happens (only after `check` passed).
    fn execute(x: &mut Exec, cmd: &Command);
    /// Applies one of its own events to its state.
    fn apply(r: &mut Self::State, e: &Self::Event);
    /// One line of plain English for one of its events (the combat log, `fray replay`).
    fn log_line(s: &BattleState, e: &Self::Event) -> String;
    /// The turn clock and turn order, in the ruleset's own terms.
    fn clock(s: &BattleState, r: &Self::State) -> Clock;
    /// How the action menu shows `cmd`.
    fn describe(s: &BattleState, r: &Self::State, cmd: &Command) -> CommandInfo;
    /// Reinforcement `unit` has just arrived (the battle's last unit, placed, its pools
    /// empty): fill its pools and give it its place in the turn order as the rules, or the
    /// ruleset's house rule, say (see `docs/rules/<id>.md`).
    fn joined(x: &mut Exec, unit: UnitId);
    /// The odds of `attacker` attacking `target` now; `None` if it cannot.
    fn odds(
        s: &BattleState,
        r: &Self::State,
        attacker: UnitId,
        target: UnitId,
        ranged: bool,
    ) -> Option<Odds>;

    // --- Hooks with a default: most rulesets need nothing here.

    /// The odds of `attacker` attacking `target` for each defensive reaction that could
    /// answer the attack now and change its odds (the target's, or an ally's stepping in), in
    /// the order the reaction prompt offers them; empty if there is none.
    fn answered_odds(
        _s: &BattleState,
        _r: &Self::State,
        _attacker: UnitId,
        _target: UnitId,
        _ranged: bool,
    ) -> Vec<Answered> {
        Vec::new()
    }

    /// The attack that `unit`'s `action` makes (a spell) or ends with (a Charge, a Move
    /// By...): its target and its odds, from the cell it strikes from; `None` where the action
    /// is not one.
    fn action_odds(
        _s: &BattleState,
        _r: &Self::State,
        _unit: UnitId,
        _action: &crate::rules::battle::Action,
    ) -> Option<(UnitId, Odds)> {
        None
    }

    /// The odds of `attack`, an attack waiting on reactions, and what each defensive reaction
    /// that could answer it leaves of them, where [`Self::odds`] and [`Self::answered_odds`]
    /// of its attacker, target and `ranged` do not tell them (a spell); `None` where they do.
    fn pending_odds(
        _s: &BattleState,
        _r: &Self::State,
        _attack: &crate::rules::battle::PendingAttack,
    ) -> Option<(Odds, Vec<Answered>)> {
        None
    }

    /// The spell a paused attack is, by its name in lower case as after "a" ("bolt"), or
    /// `None` for a weapon's attack: the log tells a spell as one.
    fn spell_of(_note: &Self::Note) -> Option<&'static str> {
        None
    }

    /// The odds of `unit` answering with an attack on `target` now (an attack of
    /// opportunity, a Snap Attack), as the ruleset counts that attack; `None` where it does
    /// not say.
    fn reaction_attack_odds(
        _s: &BattleState,
        _r: &Self::State,
        _unit: UnitId,
        _target: UnitId,
    ) -> Option<Odds> {
        None
    }

    /// A pool's name in a log line where its key would read like a stat ("haste 0 (-1)"),
    /// or `None` to show the key.
    fn pool_word(_pool: &str) -> Option<&'static str> {
        None
    }

    /// Whether one of its events only keeps the engine's books: `fray replay` prints it, the
    /// player's log leaves it out.
    fn bookkeeping(_e: &Self::Event) -> bool {
        false
    }
    /// Whether the event's log line is told after the events of the action it pays for,
    /// though the engine emits it first (`sides`: "X has left: Main").
    fn told_after_its_action(_e: &Self::Event) -> bool {
        false
    }
    /// Whether the event's log line takes the place of the line just before it, when that
    /// line is `previous` (for `segments`: a held action's line replaces "X ends its turn").
    fn replaces_previous_line(_s: &BattleState, _e: &Self::Event, _previous: &str) -> bool {
        false
    }
    /// Whether the event's log line goes on the end of the line just before it, `previous`
    /// (for `segments`: what a turn is for, "(its initiative segment)", on "X's turn").
    fn joins_previous_line(_s: &BattleState, _e: &Self::Event, _previous: &str) -> bool {
        false
    }
    /// Problems with a level that only this ruleset has.
    fn validate(_file: &LevelFile) -> Vec<LevelProblem> {
        Vec::new()
    }
    /// Whether `enemy` surely acts before `unit`'s next turn (an AI hint).
    fn acts_before(_s: &BattleState, _r: &Self::State, _enemy: UnitId, _unit: UnitId) -> bool {
        false
    }
    /// Expected damage of one attack of `attacker` on `target` wherever they stand (an AI
    /// hint); `None` where the ruleset does not say.
    fn threat_damage(_s: &BattleState, _a: UnitId, _t: UnitId, _ranged: bool) -> Option<f64> {
        None
    }
    /// The expected damage of one blow of `u`'s best attack (melee, or ranged where it has a
    /// range), from its stats alone, before any target's defences: an AI hint that weighs the
    /// weapons a unit holds or could pick up. 0 where the ruleset does not say.
    fn armament(_u: &crate::rules::battle::Unit) -> f64 {
        0.0
    }
    /// Whether AP `unit` spends now come out of its own turn still to come this round.
    fn spends_from_coming_turn(_s: &BattleState, _r: &Self::State, _unit: UnitId) -> bool {
        false
    }
    /// Damage under way that lands later: (caster, target, expected damage).
    fn pending_damage(_s: &BattleState, _r: &Self::State) -> Vec<(UnitId, UnitId, f64)> {
        Vec::new()
    }
    /// Whether `unit`, still standing, has broken and flees (`sides` morale): lost to its side
    /// (an AI hint).
    fn broken(_s: &BattleState, _r: &Self::State, _unit: UnitId) -> bool {
        false
    }
    /// Whether `unit` fled: it left the map and is out of the battle, though not beaten down
    /// (`sides` morale).
    fn fled(_s: &BattleState, _r: &Self::State, _unit: UnitId) -> bool {
        false
    }
    /// Removes from `state` what `viewer` cannot know.
    fn redact(_state: &mut BattleState, _viewer: SideId) {}
    /// An event as `viewer`'s side may see it.
    fn redact_event(_s: &BattleState, e: &Event, _viewer: SideId) -> Event {
        e.clone()
    }
}

/// What the registry gives each member: the way between its own types and the battle's
/// closed enums. Written by `registry!`, never by hand.
pub trait Member: Ruleset + Sized {
    /// The id levels name it by.
    const ID: RulesetId;
    /// Its state inside `s` (an empty one if the battle is another ruleset's, which the
    /// dispatch never lets happen).
    fn state(s: &BattleState) -> &Self::State;
    /// Its state inside `s`, to change (`None` if the battle is another ruleset's).
    fn state_mut(s: &mut BattleState) -> Option<&mut Self::State>;
    /// One of its events as a battle event.
    fn event(e: Self::Event) -> Event;
    /// One of its battle events, if `e` is one.
    fn event_of(e: &Event) -> Option<&Self::Event>;
    /// One of its continuations as the engine's.
    fn resume(r: Self::Resume) -> Resume;
    /// Its continuation, if `r` is one.
    fn resume_of(r: &Resume) -> Option<&Self::Resume>;
    /// Its note on a paused attack.
    fn note(n: Self::Note) -> RulesNote;
    /// Its note (the default note if `n` is another ruleset's).
    fn note_of(n: &RulesNote) -> Self::Note;
}

/// Lists the rulesets: `Variant = "id" => module::Type`. Generates the closed enums, the
/// [`Member`] glue and the dispatch functions.
macro_rules! registry {
    ($($v:ident = $id:literal => $m:ident :: $t:ident),+ $(,)?) => {
        /// A ruleset's id, as levels name it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RulesetId { $($v),+ }

        impl RulesetId {
            /// Every ruleset, in the order of their rules texts.
            pub const ALL: &'static [RulesetId] = &[$(RulesetId::$v),+];

            /// The id as levels write it: `"action-points"`.
            pub fn as_str(self) -> &'static str {
                match self { $(RulesetId::$v => $id),+ }
            }

            /// The ruleset with this id.
            pub fn parse(id: &str) -> Option<Self> {
                match id { $($id => Some(RulesetId::$v),)+ _ => None }
            }

            /// The text of its data file.
            pub fn data_source(self) -> &'static str {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::DATA),+ }
            }

            /// Stats every one of its templates must have.
            pub fn required_stats(self) -> &'static [&'static str] {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::STATS),+ }
            }

            /// What it calls its round.
            pub fn round_word(self) -> &'static str {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::ROUND_WORD),+ }
            }

            /// The AI's habits for it.
            pub fn ai_hints(self) -> AiHints {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::AI),+ }
            }

            /// Whether its units may carry out a level's `tasks`.
            pub fn short_tasks(self) -> bool {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::SHORT_TASKS),+ }
            }

            /// Its own level checks.
            pub fn validate(self, file: &LevelFile) -> Vec<LevelProblem> {
                match self { $(RulesetId::$v => <$m::$t as Ruleset>::validate(file)),+ }
            }

            /// The empty state a battle of this ruleset starts from.
            pub fn init(self) -> RulesState {
                match self { $(RulesetId::$v => RulesState::$v(Default::default())),+ }
            }
        }

        /// Each ruleset's own state.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum RulesState { $($v(<$m::$t as Ruleset>::State)),+ }

        /// Each ruleset's own bookkeeping events.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum RulesEvent { $($v(<$m::$t as Ruleset>::Event)),+ }

        /// Each ruleset's own continuations after an interrupt.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum RulesResume { $($v(<$m::$t as Ruleset>::Resume)),+ }

        /// Each ruleset's note on an attack paused for reactions.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum RulesNote { $($v(<$m::$t as Ruleset>::Note)),+ }

        impl RulesState {
            /// Which ruleset this is the state of.
            pub fn id(&self) -> RulesetId {
                match self { $(RulesState::$v(_) => RulesetId::$v),+ }
            }
        }

        $(
        impl Member for $m::$t {
            const ID: RulesetId = RulesetId::$v;
            fn state(s: &BattleState) -> &Self::State {
                static EMPTY: std::sync::LazyLock<<$m::$t as Ruleset>::State> =
                    std::sync::LazyLock::new(Default::default);
                match &s.rules {
                    RulesState::$v(r) => r,
                    #[allow(unreachable_patterns)]
                    _ => &EMPTY,
                }
            }
            fn state_mut(s: &mut BattleState) -> Option<&mut Self::State> {
                match &mut s.rules {
                    RulesState::$v(r) => Some(r),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            fn event(e: Self::Event) -> Event {
                Event::Rules(RulesEvent::$v(e))
            }
            fn event_of(e: &Event) -> Option<&Self::Event> {
                match e {
                    Event::Rules(RulesEvent::$v(e)) => Some(e),
                    _ => None,
                }
            }
            fn resume(r: Self::Resume) -> Resume {
                Resume::Rules(RulesResume::$v(r))
            }
            fn resume_of(r: &Resume) -> Option<&Self::Resume> {
                match r {
                    Resume::Rules(RulesResume::$v(r)) => Some(r),
                    _ => None,
                }
            }
            fn note(n: Self::Note) -> RulesNote {
                RulesNote::$v(n)
            }
            fn note_of(n: &RulesNote) -> Self::Note {
                match n {
                    RulesNote::$v(n) => n.clone(),
                    #[allow(unreachable_patterns)]
                    _ => Default::default(),
                }
            }
        }
        )+

        /// The opening events of the battle's ruleset.
        pub fn start(x: &mut Exec) {
            match x.state.rules { $(RulesState::$v(_) => <$m::$t as Ruleset>::start(x)),+ }
        }

        /// The decision the battle waits for.
        pub fn pending(s: &BattleState) -> Decision {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::pending(s, r)),+ }
        }

        /// The commands that answer the pending decision, in a fixed order.
        pub fn legal(s: &BattleState) -> Vec<Command> {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::legal(s, r)),+ }
        }

        /// Whether `cmd` is legal now, and why not.
        pub fn check(s: &BattleState, cmd: &Command) -> Result<(), Rejected> {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::check(s, r, cmd)),+ }
        }

        /// Reinforcement `unit` has just arrived: its ruleset fills its pools and slots it
        /// into the turn order.
        pub fn joined(x: &mut Exec, unit: UnitId) {
            match x.state.rules { $(RulesState::$v(_) => <$m::$t as Ruleset>::joined(x, unit)),+ }
        }

        /// What happens when `cmd` (checked) is carried out.
        pub fn execute(x: &mut Exec, cmd: &Command) {
            match x.state.rules { $(RulesState::$v(_) => <$m::$t as Ruleset>::execute(x, cmd)),+ }
        }

        /// Applies a ruleset event to the matching state (an event of another ruleset is
        /// ignored).
        pub fn apply(state: &mut RulesState, e: &RulesEvent) {
            match (state, e) {
                $((RulesState::$v(s), RulesEvent::$v(e)) => <$m::$t as Ruleset>::apply(s, e),)+
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }

        /// The log line of a ruleset event.
        pub fn log_line(s: &BattleState, e: &RulesEvent) -> String {
            match e { $(RulesEvent::$v(e) => <$m::$t as Ruleset>::log_line(s, e)),+ }
        }

        /// The spell a paused attack is, by its name ("bolt"), or `None` for a weapon's.
        pub fn spell_of(note: &RulesNote) -> Option<&'static str> {
            match note { $(RulesNote::$v(n) => <$m::$t as Ruleset>::spell_of(n)),+ }
        }

        /// Whether a ruleset event only keeps the engine's books (left out of the player's
        /// log; `fray replay` prints it).
        pub fn bookkeeping(e: &RulesEvent) -> bool {
            match e { $(RulesEvent::$v(e) => <$m::$t as Ruleset>::bookkeeping(e)),+ }
        }

        /// Whether `e`'s log line is told after the events of the action it pays for (what a
        /// unit has left once it has paid), though the engine emits it before them.
        pub fn told_after_its_action(e: &RulesEvent) -> bool {
            match e { $(RulesEvent::$v(e) => <$m::$t as Ruleset>::told_after_its_action(e)),+ }
        }

        /// Whether `e`'s log line takes the place of the line before it, `previous`.
        pub fn replaces_previous_line(s: &BattleState, e: &RulesEvent, previous: &str) -> bool {
            match e {
                $(RulesEvent::$v(e) => <$m::$t as Ruleset>::replaces_previous_line(s, e, previous)),+
            }
        }

        /// Whether `e`'s log line goes on the end of the line before it, `previous`.
        pub fn joins_previous_line(s: &BattleState, e: &RulesEvent, previous: &str) -> bool {
            match e {
                $(RulesEvent::$v(e) => <$m::$t as Ruleset>::joins_previous_line(s, e, previous)),+
            }
        }

        /// The turn clock and turn order, in the ruleset's own terms (the HUD's turn-order
        /// panel).
        pub fn clock(s: &BattleState) -> Clock {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::clock(s, r)),+ }
        }

        /// How the action menu shows `cmd`: label, cost, whether it provokes, and the path of
        /// a move. Meant for commands from [`BattleState::legal_commands`].
        pub fn describe(s: &BattleState, cmd: &Command) -> CommandInfo {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::describe(s, r, cmd)),+ }
        }

        /// The odds of `attacker` attacking `target` now (melee, or its ranged attack with
        /// `ranged`), from the ruleset's own formula; `None` if it cannot make that attack.
        pub fn odds(s: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> Option<Odds> {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::odds(s, r, attacker, target, ranged)),+
            }
        }

        /// The odds of that attack for each defensive reaction that could answer it now (a
        /// Dodge, a Parry, a Block, an ally's Intercept, an Abort, Total Defense), with who
        /// answers and the reaction in words; empty where none changes the odds.
        pub fn answered_odds(s: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> Vec<Answered> {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::answered_odds(s, r, attacker, target, ranged)),+
            }
        }

        /// The attack `unit`'s `action` would make (a spell) or end with (a Charge, a Move
        /// By, a Move Through): its target and the odds from the cell it strikes from, as the
        /// ruleset counts them; `None` where the action is not one or cannot be made.
        pub fn action_odds(s: &BattleState, unit: UnitId, action: &crate::rules::battle::Action) -> Option<(UnitId, Odds)> {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::action_odds(s, r, unit, action)),+
            }
        }

        /// The odds of `attack`, waiting on reactions, and what each defensive reaction that
        /// could answer it leaves of them: from [`odds`] and [`answered_odds`] of its
        /// attacker, target and kind, or the ruleset's own where those cannot tell (a spell).
        pub fn pending_odds(s: &BattleState, attack: &crate::rules::battle::PendingAttack) -> Option<(Odds, Vec<Answered>)> {
            let own = match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::pending_odds(s, r, attack)),+
            };
            own.or_else(|| {
                let (a, t, ranged) = (attack.attacker, attack.target, attack.ranged);
                Some((odds(s, a, t, ranged)?, answered_odds(s, a, t, ranged)))
            })
        }

        /// The odds of `unit` answering the pending interrupt with an attack on `target`, as
        /// the ruleset counts that attack (see `Ruleset::reaction_attack_odds`).
        pub fn reaction_attack_odds(s: &BattleState, unit: UnitId, target: UnitId) -> Option<Odds> {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::reaction_attack_odds(s, r, unit, target)),+
            }
        }

        /// A pool's name in a log line where the ruleset gives one (see `Ruleset::pool_word`).
        pub fn pool_word(s: &BattleState, pool: &str) -> Option<&'static str> {
            match &s.rules {
                $(RulesState::$v(_) => <$m::$t as Ruleset>::pool_word(pool)),+
            }
        }

        /// Whether `enemy` surely takes a turn before `unit`'s next one, once `unit` has had
        /// its turn. False where it is not known or the ruleset does not say.
        pub fn acts_before(s: &BattleState, enemy: UnitId, unit: UnitId) -> bool {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::acts_before(s, r, enemy, unit)),+
            }
        }

        /// Expected damage of one attack of `attacker` on `target` once it is where it can
        /// make it; `None` where the ruleset does not say or the attacker has no such attack.
        pub fn threat_damage(s: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> Option<f64> {
            match &s.rules {
                $(RulesState::$v(_) => <$m::$t as Ruleset>::threat_damage(s, attacker, target, ranged)),+
            }
        }

        /// The expected damage of one blow of `u`'s best attack, from its stats (its held
        /// items' included), before any target's defences; 0 where the ruleset does not say.
        pub fn armament(s: &BattleState, u: &crate::rules::battle::Unit) -> f64 {
            match &s.rules {
                $(RulesState::$v(_) => <$m::$t as Ruleset>::armament(u)),+
            }
        }

        /// Whether action points `unit` spends now come out of its own turn still to come
        /// this round. The rulesets without AP say no.
        pub fn spends_from_coming_turn(s: &BattleState, unit: UnitId) -> bool {
            match &s.rules {
                $(RulesState::$v(r) => <$m::$t as Ruleset>::spends_from_coming_turn(s, r, unit)),+
            }
        }

        /// Whether `unit`, still standing, has broken and flees for the map's edge.
        pub fn broken(s: &BattleState, unit: UnitId) -> bool {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::broken(s, r, unit)),+ }
        }

        /// Whether `unit` fled: it left the map (out of the battle, but not beaten down).
        pub fn fled(s: &BattleState, unit: UnitId) -> bool {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::fled(s, r, unit)),+ }
        }

        /// Damage under way that lands later, as (caster, target, expected damage).
        pub fn pending_damage(s: &BattleState) -> Vec<(UnitId, UnitId, f64)> {
            match &s.rules { $(RulesState::$v(r) => <$m::$t as Ruleset>::pending_damage(s, r)),+ }
        }

        /// Removes from `state` what `viewer` cannot know, so an AI searching a clone of it
        /// cannot cheat: the ruleset's secrets, then, under fog of war, the foes it does not
        /// see ([`crate::rules::fog::redact`]), and the level's scripted events to come.
        pub fn redact(state: &mut BattleState, viewer: SideId) {
            match state.rules { $(RulesState::$v(_) => <$m::$t as Ruleset>::redact(state, viewer)),+ }
            crate::rules::fog::redact(state, viewer);
            // The level's events to come are no side's to know: a search on the view never
            // sees reinforcements arrive or objectives change ahead of time.
            if !state.level.events.is_empty() {
                std::sync::Arc::make_mut(&mut state.level).events.clear();
            }
        }

        /// An event as `viewer`'s side may see it (the combat log of a hot-seat view).
        pub fn redact_event(state: &BattleState, event: &Event, viewer: SideId) -> Event {
            match state.rules {
                $(RulesState::$v(_) => <$m::$t as Ruleset>::redact_event(state, event, viewer)),+
            }
        }
    };
}

registry! {
    Phases = "phases" => phases::Phases,
    Sides = "sides" => sides::Sides,
    Segments = "segments" => segments::Segments,
    Alternating = "alternating" => alternating::Alternating,
    ActionPoints = "action-points" => action_points::ActionPoints,
}

impl std::fmt::Display for RulesetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RulesetId {
    type Err = String;
    fn from_str(id: &str) -> Result<Self, String> {
        RulesetId::parse(id).ok_or_else(|| {
            let known: Vec<String> = RulesetId::ALL.iter().map(|r| format!("'{r}'")).collect();
            format!(
                "unknown ruleset '{id}'; the rulesets are: {}",
                known.join(", ")
            )
        })
    }
}

impl Serialize for RulesetId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RulesetId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        id.parse().map_err(serde::de::Error::custom)
    }
}

/// The empty state of ruleset `id`.
pub fn init(id: RulesetId) -> RulesState {
    id.init()
}

/// What the battle's ruleset calls its round, for the log and the HUD: `phases` counts Turns
/// of four Phases (its rules text's own word); the others count Rounds.
pub fn round_word(s: &BattleState) -> &'static str {
    s.rules.id().round_word()
}

/// The AI's habits for the battle's ruleset.
pub fn ai_hints(s: &BattleState) -> AiHints {
    s.rules.id().ai_hints()
}

/// For a reaction prompt on an attack coming at `unit` ([`Trigger::Targeted`]): the chance
/// the attack hits as things stand and if `unit` were dodging ([`Condition::Dodging`], which
/// `action-points` and `phases` count in their odds), as `(now, dodging)`.
pub fn hit_chance_if_dodging(s: &BattleState, unit: UnitId) -> Option<(f64, f64)> {
    let Some(Trigger::Targeted { attacker, ranged }) = s.interrupts.last().map(|i| &i.trigger)
    else {
        return None;
    };
    let now = odds(s, *attacker, unit, *ranged)?;
    let mut dodging = s.clone();
    dodging
        .units
        .get_mut(unit.index())?
        .conditions
        .insert(Condition::Dodging);
    let then = odds(&dodging, *attacker, unit, *ranged)?;
    Some((now.hit, then.hit))
}
