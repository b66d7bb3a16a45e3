//! The vocabulary of a battle: commands the controllers send, events the engine emits, the
//! decision it waits for.
//!
//! One vocabulary serves all five rulesets. A ruleset accepts the commands and actions its seed
//! has and rejects the rest with a reason ("Sprint is not an action in the sides ruleset").
//! Ruleset bookkeeping that no other ruleset shares travels in [`Event::Rules`].

use super::ids::{SideId, UnitId};
use super::items::Place;
use crate::rules::grid::Cell;
use crate::rules::rulesets::{RulesEvent, RulesNote, RulesResume};
use serde::{Deserialize, Serialize};

/// What a controller sends to answer the pending [`Decision`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
// A misspelt field in a replay or a scenario is an error, never silently dropped.
#[serde(deny_unknown_fields)]
pub enum Command {
    /// Move `unit` to `to` along the path the engine finds (the cheapest, then the one that
    /// provokes least: the path the movement preview shows).
    Move { unit: UnitId, to: Cell },
    /// Attack `target`; `ranged` picks the unit's ranged attack instead of its melee one.
    Attack {
        unit: UnitId,
        target: UnitId,
        #[serde(default)]
        ranged: bool,
    },
    /// Any other action of the ruleset's action economy.
    Act { unit: UnitId, action: Action },
    /// The unit ends its turn (or its part of the current phase or segment).
    EndTurn { unit: UnitId },
    /// Choose which member of the deciding side acts next (`alternating`, `sides`).
    Pick { unit: UnitId },
    /// Declare what `unit` will do this round (`segments`).
    Declare { unit: UnitId, intent: Intent },
    /// Answer a reaction prompt ([`Decision::React`]).
    React { unit: UnitId, reaction: Reaction },
}

impl Command {
    /// The unit the command is for.
    pub fn unit(&self) -> UnitId {
        match self {
            Command::Move { unit, .. }
            | Command::Attack { unit, .. }
            | Command::Act { unit, .. }
            | Command::EndTurn { unit }
            | Command::Pick { unit }
            | Command::Declare { unit, .. }
            | Command::React { unit, .. } => *unit,
        }
    }

    /// The target and whether the attack is ranged, for melee, ranged and spell attacks.
    pub fn attack_target(&self) -> Option<(UnitId, bool)> {
        match self {
            Command::Attack { target, ranged, .. } => Some((*target, *ranged)),
            Command::Act {
                action:
                    Action::Cast {
                        target,
                        spell: Spell::MagicMissile,
                    },
                ..
            } => Some((*target, true)),
            _ => None,
        }
    }

    /// Every way `unit` might attack `target`: melee, ranged, and a spell. A ruleset lists the
    /// ones it allows; the AI's play-out checks each against the rules.
    pub fn attacks_on(unit: UnitId, target: UnitId) -> [Command; 3] {
        [
            Command::Attack {
                unit,
                target,
                ranged: false,
            },
            Command::Attack {
                unit,
                target,
                ranged: true,
            },
            Command::Act {
                unit,
                action: Action::Cast {
                    target,
                    spell: Spell::MagicMissile,
                },
            },
        ]
    }

    /// The unit and the cell the command takes it to, if it moves it (Move, Step, Withdraw,
    /// Sprint, Charge, Screen).
    pub fn destination(&self) -> Option<(UnitId, Cell)> {
        match self {
            Command::Move { unit, to } => Some((*unit, *to)),
            Command::Act {
                unit,
                action:
                    Action::Step { to }
                    | Action::Withdraw { to }
                    | Action::Sprint { to }
                    | Action::Charge { to, .. }
                    | Action::Screen { to, .. },
            } => Some((*unit, *to)),
            _ => None,
        }
    }

    /// Where the command points on the board: the unit it targets (`target`, `ally`, a
    /// declared spell's or a reaction's target) and the cell it goes to (`to`, a shove's
    /// `push`). The acting unit itself is never the anchor.
    pub fn anchor(&self) -> Anchor {
        match self {
            Command::Move { to, .. } => Anchor::cell(*to),
            Command::Attack { target, .. } => Anchor::unit(*target),
            Command::Act { action, .. } => action.anchor(),
            Command::Declare {
                intent: Intent::Spell { target, .. },
                ..
            } => Anchor::unit(*target),
            Command::React { reaction, .. } => match reaction {
                Reaction::Attack { target } => Anchor::unit(*target),
                Reaction::Abort { action } => action.anchor(),
                _ => Anchor::default(),
            },
            Command::EndTurn { .. } | Command::Pick { .. } | Command::Declare { .. } => {
                Anchor::default()
            }
        }
    }
}

/// Where a command points on the board (see [`Command::anchor`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anchor {
    /// The unit it targets (an enemy to attack, an ally to help), if any.
    pub unit: Option<UnitId>,
    /// The cell it moves to (or pushes to), if any.
    pub cell: Option<Cell>,
}

impl Anchor {
    fn unit(unit: UnitId) -> Anchor {
        Anchor {
            unit: Some(unit),
            cell: None,
        }
    }

    fn cell(cell: Cell) -> Anchor {
        Anchor {
            unit: None,
            cell: Some(cell),
        }
    }

    /// The board cell to click for the command: where it moves to, else its target's cell.
    pub fn board_cell(&self, s: &super::BattleState) -> Option<Cell> {
        self.cell
            .or_else(|| self.unit.and_then(|u| s.unit(u).map(|u| u.cell)))
    }
}

/// Named actions beyond Move and Attack. Each ruleset accepts its own subset.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
// A misspelt field in a replay or a scenario is an error, never silently dropped.
#[serde(deny_unknown_fields)]
pub enum Action {
    // --- shared by several rulesets
    /// A short step that never provokes (`phases` 1-hex step, `alternating` Step).
    Step { to: Cell },
    /// Get up from prone.
    StandUp,
    /// Drop prone.
    GoProne,
    /// Do nothing more now but keep the option to act later (`phases` Delay, `sides` Hold an
    /// Action).
    Delay,
    /// Prepare an action to be taken when a trigger happens.
    Ready { trigger: ReadyTrigger },
    // --- phases
    /// Dodge manoeuvre (+DCV until the unit's next action; no attacks of opportunity).
    Dodge,
    /// Withdraw from combat to `to` (a full-phase move that does not provoke).
    Withdraw { to: Cell },
    /// Recover from being Stunned.
    Recover,
    // --- sides
    /// Disengage from all adjacent melee attackers for the rest of the round.
    Disengage,
    /// Total Defense: +2 AC and immune to Shock until the start of the next turn.
    TotalDefense,
    /// Charge in a straight line to `to` and attack `target` with +2 to hit.
    Charge { target: UnitId, to: Cell },
    /// Make a Swarm Attack on `target`.
    Swarm { target: UnitId },
    /// Screen `ally`, moving to `to` first.
    Screen { ally: UnitId, to: Cell },
    /// Shove `target`: `prone` knocks it down, otherwise it is pushed to `push`.
    Shove {
        target: UnitId,
        prone: bool,
        push: Option<Cell>,
    },
    /// Grapple `target`.
    Grapple { target: UnitId },
    /// Use a Skill: first aid on a downed ally.
    FirstAid { target: UnitId },
    /// An execution attack on a wholly unaware `target` the unit has been stalking (`sides`,
    /// S-164..S-175).
    Execute { target: UnitId },
    /// Try to break free of every grappler (`sides`: a Main action and an opposed check).
    BreakFree,
    /// Let go of the unit being grappled (`sides`).
    Release,
    /// Drag the unit being grappled along, 5 or 10 ft to `to` (`sides`: a Main action and an
    /// opposed check; the dragged unit ends in the last square the grappler left).
    Drag { to: Cell },
    /// Throw the unit being grappled 5 ft, to `to`, knocked prone (`sides`: a Main action and
    /// an opposed check; the grapple ends).
    Throw { to: Cell },
    // --- alternating
    /// Guard: end the turn with +1 to all defences until the next turn.
    Guard,
    /// Wait: end the turn with an extra reaction until the next turn.
    Wait,
    /// Seek Cover: ranged attackers have disadvantage until the next turn.
    SeekCover,
    /// Sprint: a second move for 1 stamina.
    Sprint { to: Cell },
    /// Resuscitate an unconscious ally (two actions).
    Resuscitate { target: UnitId },
    /// Command: give an ally one action (2 focus).
    CommandAlly { ally: UnitId },
    /// Reload a ranged weapon (may take several actions).
    Reload,
    // --- casters (segments, alternating, action-points house rules)
    /// Cast a spell at `target` (`segments` has several: `spell`, Magic Missile when left out;
    /// the other rulesets know one spell and take only that).
    Cast {
        target: UnitId,
        #[serde(default, skip_serializing_if = "Spell::is_magic_missile")]
        spell: Spell,
    },
    // --- phases (added)
    /// Take a Recovery: a full-phase action that regains STUN.
    TakeRecovery,
    /// Ready a move action (`phases`): move to `to` when `trigger` happens.
    ReadyMove { trigger: ReadyTrigger, to: Cell },
    /// Ready a free action (`phases`, P-139): drop prone when `trigger` happens.
    ReadyProne { trigger: ReadyTrigger },
    /// Take up the other weapon: a unit with a melee and a ranged weapon holds one of them
    /// (`alternating` Brandish).
    Brandish,
    // --- phases manoeuvres (house rules, rules P-56..P-62, P-84..P-87, P-91, P-94)
    /// Block: +2 DCV; the first melee hit on the unit before its next action may be blocked.
    Block,
    /// Disarm `target`: a melee roll at -2 OCV; a hit leaves it bare-handed for a while.
    Disarm { target: UnitId },
    /// Grab `target`: a melee roll at -1 OCV, -2 DCV; a hit holds it in place.
    Grab { target: UnitId },
    /// Haymaker on `target`: -5 DCV, an extra damage die; the blow lands at the Phase's end.
    Haymaker { target: UnitId },
    /// Missile Deflection: ranged hits on the unit may be deflected until its next action.
    MissileDeflection,
    /// Roll With A Punch: -2 OCV, -2 DCV; hits on the unit do half damage until its next action.
    RollWithPunch,
    /// Move By `target`: move to `to` without provoking, striking the target in passing.
    MoveBy { target: UnitId, to: Cell },
    /// Move Through `target`: charge to `to` (next to it) without provoking and slam into it.
    MoveThrough { target: UnitId, to: Cell },
    /// Rapid Fire: one shot at each of the `count` nearest enemies in range.
    RapidFire { count: u8 },
    /// Sweep: one blow at each of the `count` nearest enemies in reach.
    Sweep { count: u8 },
    /// Brace for Accuracy: +2 OCV with ranged attacks, DCV halved, until the next action.
    Brace,
    /// Presence Attack on `target`: daunt it (-2 OCV until the end of its next action).
    PresenceAttack { target: UnitId },
    /// Analyse `target` for weaknesses (`phases`: a move action, +1 OCV against it).
    Analyse { target: UnitId },
    /// Press the Advantage against `target` (`action-points` Special Action, house rule X-36):
    /// spend Advantage on a melee attack with the unit's `press` bonus to hit and to damage.
    PressAdvantage { target: UnitId },
    // --- doors (every ruleset, at its own price)
    /// Open the closed door on `cell`, next to the unit.
    OpenDoor { cell: Cell },
    /// Shut the open door on `cell`, next to the unit (no one may stand in the doorway).
    CloseDoor { cell: Cell },
    /// Carry out the level's task on `cell`, next to the unit (`alternating` Short Task, A-62).
    ShortTask { cell: Cell },
    // --- items (the rulesets with `items` in their data, each at its own price)
    /// Move a carried `item` to the hand (ready or draw it), the belt (sheathe it, put a focus
    /// away) or the pack (stow it).
    Carry { item: String, to: Place },
    /// Let go of the held `item`: it falls on the unit's cell.
    DropItem { item: String },
    /// Pick up `item` from `cell` (within melee reach) into a free hand.
    PickUp { cell: Cell, item: String },
    /// Shift the heavy object on `cell`, next to the unit, one cell to `to` (`phases` P-77).
    Shift { cell: Cell, to: Cell },
}

impl Action {
    /// A short name for logs and rejections.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Step { .. } => "Step",
            Action::StandUp => "Stand Up",
            Action::GoProne => "Go Prone",
            Action::Delay => "Delay",
            Action::Ready { .. } => "Ready",
            Action::ReadyMove { .. } => "Ready a Move",
            Action::ReadyProne { .. } => "Ready to Drop Prone",
            Action::Dodge => "Dodge",
            Action::Withdraw { .. } => "Withdraw",
            Action::Recover => "Recover",
            Action::Disengage => "Disengage",
            Action::TotalDefense => "Total Defense",
            Action::Charge { .. } => "Charge",
            Action::Swarm { .. } => "Swarm Attack",
            Action::Screen { .. } => "Screen an Ally",
            Action::Shove { .. } => "Shove",
            Action::Grapple { .. } => "Grapple",
            Action::FirstAid { .. } => "First Aid",
            Action::Execute { .. } => "Execution Attack",
            Action::BreakFree => "Break Free",
            Action::Release => "Release",
            Action::Drag { .. } => "Drag",
            Action::Throw { .. } => "Throw",
            Action::Guard => "Guard",
            Action::Wait => "Wait",
            Action::SeekCover => "Seek Cover",
            Action::Sprint { .. } => "Sprint",
            Action::Resuscitate { .. } => "Resuscitate",
            Action::CommandAlly { .. } => "Command",
            Action::Reload => "Reload",
            Action::Cast { .. } => "Cast",
            Action::TakeRecovery => "Take a Recovery",
            Action::Brandish => "Brandish",
            Action::Block => "Block",
            Action::Disarm { .. } => "Disarm",
            Action::Grab { .. } => "Grab",
            Action::Haymaker { .. } => "Haymaker",
            Action::MissileDeflection => "Missile Deflection",
            Action::RollWithPunch => "Roll With A Punch",
            Action::MoveBy { .. } => "Move By",
            Action::MoveThrough { .. } => "Move Through",
            Action::RapidFire { .. } => "Rapid Fire",
            Action::Sweep { .. } => "Sweep",
            Action::Brace => "Brace",
            Action::PresenceAttack { .. } => "Presence Attack",
            Action::Analyse { .. } => "Analyse",
            Action::PressAdvantage { .. } => "Press the Advantage",
            Action::OpenDoor { .. } => "Open a Door",
            Action::CloseDoor { .. } => "Close a Door",
            Action::ShortTask { .. } => "Short Task",
            Action::Carry {
                to: Place::Hand, ..
            } => "Ready an Item",
            Action::Carry {
                to: Place::Belt, ..
            } => "Sheathe an Item",
            Action::Carry {
                to: Place::Pack, ..
            } => "Stow an Item",
            Action::DropItem { .. } => "Drop an Item",
            Action::PickUp { .. } => "Pick up an Item",
            Action::Shift { .. } => "Shift a Heavy Object",
        }
    }

    /// The unit the action targets and the cell it goes to (see [`Command::anchor`]).
    fn anchor(&self) -> Anchor {
        match *self {
            Action::Step { to }
            | Action::Withdraw { to }
            | Action::Drag { to }
            | Action::Throw { to }
            | Action::Sprint { to }
            | Action::ReadyMove { to, .. }
            | Action::OpenDoor { cell: to }
            | Action::CloseDoor { cell: to }
            | Action::ShortTask { cell: to }
            | Action::PickUp { cell: to, .. }
            | Action::Shift { to, .. } => Anchor::cell(to),
            Action::Charge { target, to } => Anchor {
                unit: Some(target),
                cell: Some(to),
            },
            Action::MoveBy { target, to } | Action::MoveThrough { target, to } => Anchor {
                unit: Some(target),
                cell: Some(to),
            },
            Action::Screen { ally, to } => Anchor {
                unit: Some(ally),
                cell: Some(to),
            },
            Action::Shove { target, push, .. } => Anchor {
                unit: Some(target),
                cell: push,
            },
            Action::Swarm { target }
            | Action::Grapple { target }
            | Action::FirstAid { target }
            | Action::Execute { target }
            | Action::Resuscitate { target }
            | Action::Cast { target, .. }
            | Action::Disarm { target }
            | Action::Grab { target }
            | Action::Haymaker { target }
            | Action::PresenceAttack { target }
            | Action::Analyse { target }
            | Action::PressAdvantage { target }
            | Action::CommandAlly { ally: target } => Anchor::unit(target),
            Action::StandUp
            | Action::GoProne
            | Action::Delay
            | Action::Ready { .. }
            | Action::ReadyProne { .. }
            | Action::Dodge
            | Action::Recover
            | Action::Disengage
            | Action::TotalDefense
            | Action::BreakFree
            | Action::Release
            | Action::Guard
            | Action::Wait
            | Action::SeekCover
            | Action::Reload
            | Action::TakeRecovery
            | Action::Brandish
            | Action::Block
            | Action::MissileDeflection
            | Action::RollWithPunch
            | Action::RapidFire { .. }
            | Action::Sweep { .. }
            | Action::Brace
            | Action::Carry { .. }
            | Action::DropItem { .. } => Anchor::default(),
        }
    }
}

/// When a readied action fires.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
// A misspelt field in a replay or a scenario is an error, never silently dropped.
#[serde(deny_unknown_fields)]
pub enum ReadyTrigger {
    /// An enemy comes within reach: attack it.
    EnemyInReach,
    /// `unit` starts an action: attack it (if it is in reach or range).
    UnitActs { unit: UnitId },
}

/// A declaration for the round (`segments`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
// A misspelt field in a replay or a scenario is an error, never silently dropped.
#[serde(deny_unknown_fields)]
pub enum Intent {
    /// Fight in melee (move and attack).
    Melee,
    /// Use a missile weapon.
    Missile,
    /// Cast `spell` at `target` (Magic Missile when left out).
    Spell {
        target: UnitId,
        #[serde(default, skip_serializing_if = "Spell::is_magic_missile")]
        spell: Spell,
    },
    /// Move only (up to the full movement rate).
    Run,
    /// Do nothing this round.
    Hold,
}

/// A spell a `segments` caster may know (house rule (spells) in `assets/rulesets/segments.ron`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Spell {
    /// Darts of force at an enemy; they never miss.
    #[default]
    MagicMissile,
    /// An ally (or the caster) gains an attack routine and twice its movement for some rounds.
    Haste,
    /// Heals an ally next to the caster (or the caster).
    CureLightWounds,
    /// An enemy that fails its saving throw is held: it takes no turns for some rounds.
    HoldPerson,
    /// The caster's armour class improves for some rounds; Magic Missile cannot harm it.
    Shield,
}

impl Spell {
    /// Every spell, in the order the engine lists them.
    pub const ALL: [Spell; 5] = [
        Spell::MagicMissile,
        Spell::Haste,
        Spell::CureLightWounds,
        Spell::HoldPerson,
        Spell::Shield,
    ];

    /// Its name in logs, menus and rejections.
    pub fn name(self) -> &'static str {
        match self {
            Spell::MagicMissile => "Magic Missile",
            Spell::Haste => "Haste",
            Spell::CureLightWounds => "Cure Light Wounds",
            Spell::HoldPerson => "Hold Person",
            Spell::Shield => "Shield",
        }
    }

    /// Whether it is Magic Missile (the default, left out of saved commands).
    pub fn is_magic_missile(&self) -> bool {
        *self == Spell::MagicMissile
    }
}

/// An answer to a reaction prompt.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
// A misspelt field in a replay or a scenario is an error, never silently dropped.
#[serde(deny_unknown_fields)]
pub enum Reaction {
    /// Let it pass.
    Decline,
    /// Attack `target` (an attack of opportunity, a Snap Attack, a readied attack).
    Attack { target: UnitId },
    /// Dodge (`alternating`: a test for 1 stamina; `action-points`: +dodge defense for AP).
    Dodge,
    /// Parry with the wielded item.
    Parry,
    /// Block with a shield.
    Block,
    /// Fortify against a physical effect (staying conscious).
    Fortify,
    /// Total Defense after seeing the attack roll (`sides`).
    TotalDefense,
    /// Abort to a defensive action (`phases`).
    Abort { action: Action },
    /// Step in front of the attacked ally and become the target (`alternating`).
    Intercept,
    /// Take the held action now, before the trigger resolves (`sides` Hold an Action): the
    /// unit acts with what it has left of its turn, then the triggering action goes on.
    TakeHeld,
    /// Resist a mental effect (`alternating`: a test for 1 focus).
    Resist,
}

/// One named part of a number the rules worked out ([`Event::Reckoned`]): "2 charge",
/// "-3 armour".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Term {
    pub label: String,
    pub value: i64,
}

impl Term {
    pub fn new(label: impl Into<String>, value: i64) -> Self {
        Self {
            label: label.into(),
            value,
        }
    }
}

/// Why a roll was made: the combat log's first word.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Purpose {
    Initiative,
    TieBreak,
    Surprise,
    Attack,
    Damage,
    Shock,
    Skill,
    Luck,
    Death,
    Fortify,
    Dodge,
    Opposed,
    Spell,
    /// A test to resist a mental effect (`alternating` Resist).
    Resist,
    /// A saving throw (`sides`: the Physical save against an execution, S-173).
    Save,
    /// A morale check (`sides`, house rule for S-176..S-180).
    Morale,
}

/// Why a unit is being asked to react.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Trigger {
    /// `mover` is leaving `from` (threatened by the reactor) for `to`.
    Opportunity { mover: UnitId, from: Cell, to: Cell },
    /// `actor` takes an action that provokes (standing up, using a skill...).
    Provoked { actor: UnitId, action: String },
    /// `attacker`'s attack on `target` rolled `total` against `needed`; the damage is not
    /// dealt yet.
    Attacked {
        attacker: UnitId,
        target: UnitId,
        total: i64,
        needed: i64,
        hit: bool,
    },
    /// The reactor must stay conscious: a test against `difficulty`.
    KeepConscious { difficulty: i64 },
    /// `actor` does something the reactor's readied or held action waits for.
    Ready { actor: UnitId },
    /// `attacker` has declared an attack on the reactor; nothing is rolled yet.
    Targeted { attacker: UnitId, ranged: bool },
}

/// What the engine waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// `unit` is acting: move, attack, act or end its turn.
    Act { unit: UnitId },
    /// `side` chooses which of `options` acts next.
    Pick { side: SideId, options: Vec<UnitId> },
    /// `side` declares an intent for `unit` (hidden from the other sides).
    Declare { side: SideId, unit: UnitId },
    /// `unit` may react to `trigger`.
    React { unit: UnitId, trigger: Trigger },
    /// The battle is over.
    Over { winner: Option<SideId> },
}

impl Decision {
    /// The unit that decides, if a unit does.
    pub fn unit(&self) -> Option<UnitId> {
        match self {
            Decision::Act { unit }
            | Decision::Declare { unit, .. }
            | Decision::React { unit, .. } => Some(*unit),
            Decision::Pick { .. } | Decision::Over { .. } => None,
        }
    }
}

/// A unit's state of health, as every ruleset sees it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Status {
    /// Can act (if its ruleset lets it).
    #[default]
    Active,
    /// Unconscious, knocked out or mortally wounded: out of the fight but not dead.
    Down,
    Dead,
}

/// Conditions the view shows as icons and rulesets test. Ruleset-private bookkeeping lives in
/// the ruleset's own state instead.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Condition {
    Prone,
    Surprised,
    Stunned,
    Grappled {
        by: UnitId,
    },
    Dodging,
    Guarding,
    TotalDefense,
    Disengaged,
    InCover,
    Screening {
        ally: UnitId,
    },
    /// Holding, delaying or readying an action.
    Holding,
    /// Casting a spell that has not gone off yet.
    Casting,
    /// At half of its endurance or less (`alternating`).
    Harmed,
    /// Below its maximum health (`alternating`).
    Bloodied,
    /// Charged this round (`sides`: -2 AC until the end of the round).
    Charging,
}

/// A rejected command: the battle is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    pub reason: String,
}

impl Rejected {
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Rejected {}

/// A pending continuation after reactions resolve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Resume {
    /// Nothing to continue.
    Nothing,
    /// Continue `unit`'s move along `rest` (its current cell first). The first step already
    /// provoked and does not provoke again.
    Move { unit: UnitId, rest: Vec<Cell> },
    /// Finish an attack whose roll is known: deal its damage (or not) after the defender's
    /// reaction.
    Attack(Box<PendingAttack>),
    /// The ruleset's own continuation ([`crate::rules::rulesets::Ruleset::Resume`]).
    Rules(RulesResume),
}

/// An attack paused between its roll and its damage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAttack {
    pub attacker: UnitId,
    pub target: UnitId,
    pub ranged: bool,
    pub total: i64,
    pub needed: i64,
    pub hit: bool,
    pub crit: bool,
    /// What the ruleset noted for the rest of the attack
    /// ([`crate::rules::rulesets::Ruleset::Note`]: damage bonus, Shock, a free attack...).
    pub note: RulesNote,
}

/// The reactions the engine waits for, and what happens after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupt {
    pub trigger: Trigger,
    /// Who still has to answer, in order.
    pub reactors: Vec<UnitId>,
    pub resume: Resume,
}

/// Everything that happens. [`super::BattleState::apply`] is the only place state changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// The battle begins.
    Started {
        ruleset: String,
        seed: u64,
    },
    /// Dice were rolled: by whom, for what, what came up, against what.
    Rolled {
        unit: Option<UnitId>,
        side: Option<SideId>,
        purpose: Purpose,
        expr: String,
        dice: Vec<u32>,
        total: i64,
        against: Option<i64>,
        success: Option<bool>,
    },
    RoundStarted {
        round: u32,
    },
    RoundEnded {
        round: u32,
    },
    TurnStarted {
        unit: UnitId,
    },
    TurnEnded {
        unit: UnitId,
    },
    /// One step of movement.
    Moved {
        unit: UnitId,
        from: Cell,
        to: Cell,
    },
    /// Fog of war: `unit`'s move stopped before `at`, held by `by`, a foe its side had not
    /// seen when the move was planned.
    Blocked {
        unit: UnitId,
        by: UnitId,
        at: Cell,
    },
    /// Fog of war: `unit`'s move stopped after the step on which its side first saw `foe`,
    /// standing on `at`, a foe it had not seen there before (not seen, and not last seen on
    /// that cell).
    Spotted {
        unit: UnitId,
        foe: UnitId,
        at: Cell,
    },
    /// A unit was pushed or placed without moving itself.
    Placed {
        unit: UnitId,
        to: Cell,
    },
    /// `unit` opened (`open`) or shut the door on `cell`: the cell becomes its door's
    /// counterpart kind ([`crate::rules::map::TerrainMap::toggle_door`]).
    Door {
        unit: UnitId,
        cell: Cell,
        open: bool,
    },
    /// `unit` carried out the level's task on `cell` and unlocked the door there: the cell
    /// becomes a shut door ([`crate::rules::map::TerrainMap::unlock`]).
    Unlocked {
        unit: UnitId,
        cell: Cell,
    },
    /// An attack's outcome (the rolls come before it as [`Event::Rolled`]).
    Attacked {
        attacker: UnitId,
        target: UnitId,
        ranged: bool,
        hit: bool,
        crit: bool,
        /// The spell it was, by its name in lower case ("bolt"), or `None` for a weapon's
        /// attack: the log tells a spell as one ("Vex's bolt hits Orrin").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spell: Option<String>,
    },
    /// A resource pool changed: hp, body, stun, endurance, health, stamina, focus, ap...
    Pool {
        unit: UnitId,
        pool: String,
        delta: i64,
        value: i64,
    },
    Status {
        unit: UnitId,
        status: Status,
    },
    Condition {
        unit: UnitId,
        condition: Condition,
        on: bool,
    },
    /// Reactions are asked for before the battle goes on.
    Interrupted(Interrupt),
    /// `unit` answered the current reaction prompt.
    Reacted {
        unit: UnitId,
        reaction: Reaction,
    },
    /// The current interrupt is done; its continuation runs next.
    Resumed,
    /// A number the rules worked out, as the sum of the named terms it is made of, so that
    /// the log can say where every number comes from ("Ida: damage 5 = 3 rolled + 2 two
    /// weapons"). `total` is always the sum of `terms`. Changes nothing.
    Reckoned {
        unit: UnitId,
        what: String,
        terms: Vec<Term>,
        total: i64,
    },
    /// `unit` moved its `item` from `from` to `to` (readied, sheathed or stowed it).
    Carried {
        unit: UnitId,
        item: String,
        from: Place,
        to: Place,
    },
    /// `unit` let go of its held `item`; it lies on `cell`.
    Dropped {
        unit: UnitId,
        item: String,
        cell: Cell,
    },
    /// `unit` picked `item` up from `cell`; it is in its hand.
    PickedUp {
        unit: UnitId,
        item: String,
        cell: Cell,
    },
    /// `unit`'s held `item` now holds `loaded` shots (a shot spends one, a reload fills it).
    Loaded {
        unit: UnitId,
        item: String,
        loaded: u8,
    },
    /// `unit` shifted the heavy `item` from `from` to `to`.
    Shifted {
        unit: UnitId,
        item: String,
        from: Cell,
        to: Cell,
    },
    /// Ruleset bookkeeping.
    Rules(RulesEvent),
    /// A level's scripted event fired, or one of its effects: a message, a reinforcement
    /// arriving, a side's new objectives ([`super::script`]).
    Scripted(super::script::Scripted),
    /// The battle is over.
    Ended {
        winner: Option<SideId>,
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_the_target_unit_and_the_destination_cell() {
        let (u, t) = (UnitId(0), UnitId(4));
        let c = Cell::new(3, 4);
        assert_eq!(Command::Move { unit: u, to: c }.anchor(), Anchor::cell(c));
        let shot = Command::Attack {
            unit: u,
            target: t,
            ranged: true,
        };
        assert_eq!(shot.anchor(), Anchor::unit(t));
        let act = |action| Command::Act { unit: u, action };
        let both = Anchor {
            unit: Some(t),
            cell: Some(c),
        };
        assert_eq!(act(Action::Charge { target: t, to: c }).anchor(), both);
        assert_eq!(act(Action::Screen { ally: t, to: c }).anchor(), both);
        let shove = |push| Action::Shove {
            target: t,
            prone: false,
            push,
        };
        assert_eq!(act(shove(Some(c))).anchor(), both);
        assert_eq!(act(shove(None)).anchor(), Anchor::unit(t));
        assert_eq!(
            act(Action::CommandAlly { ally: t }).anchor(),
            Anchor::unit(t)
        );
        let ready = Action::ReadyMove {
            trigger: ReadyTrigger::UnitActs { unit: t },
            to: c,
        };
        assert_eq!(act(ready).anchor(), Anchor::cell(c));
        assert_eq!(act(Action::Guard).anchor(), Anchor::default());
        // Declarations and reactions point at their target, an abort at its action's.
        let spell = Command::Declare {
            unit: u,
            intent: Intent::Spell {
                target: t,
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        };
        assert_eq!(spell.anchor(), Anchor::unit(t));
        let react = |reaction| Command::React { unit: u, reaction };
        assert_eq!(
            react(Reaction::Attack { target: t }).anchor(),
            Anchor::unit(t)
        );
        let abort = Reaction::Abort {
            action: Action::Withdraw { to: c },
        };
        assert_eq!(react(abort).anchor(), Anchor::cell(c));
        assert_eq!(react(Reaction::Dodge).anchor(), Anchor::default());
        // The acting unit itself is never the anchor.
        assert_eq!(Command::EndTurn { unit: u }.anchor(), Anchor::default());
        assert_eq!(Command::Pick { unit: u }.anchor(), Anchor::default());
    }
}
