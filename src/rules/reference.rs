//! The rules reference: every action, reaction and condition of a ruleset with what it does
//! and what it costs, in Fray's words.
//!
//! The text lives in one place, the `reference` list of each ruleset's data file
//! (`assets/rulesets/<id>.ron`); the game's F1 panel and the action menu's hover text both read
//! it from here. [`key`] says which entry answers a command, [`condition_key`] which one a
//! condition; a test plays every level at random and checks that every command the ruleset lists
//! and every condition a unit gets has its entry.

use crate::rules::battle::{Action, Command, Condition, Intent, Reaction, Spell};
use crate::rules::ruleset_data;
use crate::rules::rulesets::RulesetId;
use serde::{Deserialize, Serialize};

/// What an entry is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EntryKind {
    Action,
    Reaction,
    Condition,
}

impl EntryKind {
    /// The heading of its part of the reference: "Actions", "Reactions", "Conditions".
    pub fn heading(self) -> &'static str {
        match self {
            EntryKind::Action => "Actions",
            EntryKind::Reaction => "Reactions",
            EntryKind::Condition => "Conditions",
        }
    }
}

/// One entry of a ruleset's reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub kind: EntryKind,
    /// Which commands or condition it answers: [`key`] of a command, [`condition_key`] of a
    /// condition ("Move", "Shoot", "Dodge", "Prone").
    pub key: String,
    /// The name the ruleset's text gives it when that is not the key ("Snap Attack"); empty
    /// means the key.
    #[serde(default)]
    pub name: String,
    /// What it costs in the ruleset's terms ("1 AP", "full phase"); empty for conditions and
    /// for what is free.
    #[serde(default)]
    pub cost: String,
    /// What it does, in a sentence or three.
    pub text: String,
}

impl Entry {
    /// Its display name.
    pub fn title(&self) -> &str {
        if self.name.is_empty() {
            &self.key
        } else {
            &self.name
        }
    }

    /// "Dodge (1 AP): +2 defense ..." as one paragraph (the hover text).
    pub fn line(&self) -> String {
        if self.cost.is_empty() {
            format!("{}: {}", self.title(), self.text)
        } else {
            format!("{} ({}): {}", self.title(), self.cost, self.text)
        }
    }
}

/// The reference of ruleset `id`, in its file's order (empty if the file has none).
pub fn reference(id: RulesetId) -> &'static [Entry] {
    ruleset_data::builtin(id).map_or(&[], |d| d.reference.as_slice())
}

/// The entries of one kind, in order.
pub fn of_kind(id: RulesetId, kind: EntryKind) -> impl Iterator<Item = &'static Entry> {
    reference(id).iter().filter(move |e| e.kind == kind)
}

/// The entry that explains `cmd` in ruleset `id`.
pub fn for_command(id: RulesetId, cmd: &Command) -> Option<&'static Entry> {
    let (kind, key) = key(cmd);
    reference(id)
        .iter()
        .find(|e| e.kind == kind && e.key == key)
}

/// The entry that explains a condition in ruleset `id`.
pub fn for_condition(id: RulesetId, c: &Condition) -> Option<&'static Entry> {
    let key = condition_key(c);
    reference(id)
        .iter()
        .find(|e| e.kind == EntryKind::Condition && e.key == key)
}

/// Which entry answers a command: its kind and key.
pub fn key(cmd: &Command) -> (EntryKind, &'static str) {
    match cmd {
        Command::Move { .. } => (EntryKind::Action, "Move"),
        Command::Attack { ranged: false, .. } => (EntryKind::Action, "Attack"),
        Command::Attack { ranged: true, .. } => (EntryKind::Action, "Shoot"),
        Command::Act { action, .. } => (EntryKind::Action, action_key(action)),
        Command::EndTurn { .. } => (EntryKind::Action, "End Turn"),
        Command::Pick { .. } => (EntryKind::Action, "Pick"),
        Command::Declare { intent, .. } => (
            EntryKind::Action,
            match intent {
                Intent::Melee => "Declare Melee",
                Intent::Missile => "Declare Missile",
                Intent::Spell { spell, .. } => match spell {
                    Spell::MagicMissile => "Declare Spell",
                    Spell::Haste => "Declare Haste",
                    Spell::CureLightWounds => "Declare Cure Light Wounds",
                    Spell::HoldPerson => "Declare Hold Person",
                    Spell::Shield => "Declare Shield",
                },
                Intent::Run => "Declare Run",
                Intent::Hold => "Declare Hold",
            },
        ),
        Command::React { reaction, .. } => (
            EntryKind::Reaction,
            match reaction {
                Reaction::Decline => "Let It Pass",
                Reaction::Attack { .. } => "Attack",
                Reaction::Dodge => "Dodge",
                Reaction::Parry => "Parry",
                Reaction::Block => "Block",
                Reaction::Fortify => "Fortify",
                Reaction::TotalDefense => "Total Defense",
                Reaction::Abort { .. } => "Abort",
                Reaction::Intercept => "Intercept",
                Reaction::TakeHeld => "Take Held",
                Reaction::Resist => "Resist",
            },
        ),
    }
}

fn action_key(action: &Action) -> &'static str {
    match action {
        // A shove that knocks down reads differently from one that pushes.
        Action::Shove { prone: true, .. } => "Shove Prone",
        // Each `segments` spell has its own entry; Magic Missile (every ruleset's one spell)
        // is plain "Cast".
        Action::Cast { spell, .. } => match spell {
            Spell::MagicMissile => "Cast",
            Spell::Haste => "Cast Haste",
            Spell::CureLightWounds => "Cast Cure Light Wounds",
            Spell::HoldPerson => "Cast Hold Person",
            Spell::Shield => "Cast Shield",
        },
        other => other.name(),
    }
}

/// Which entry answers a condition.
pub fn condition_key(c: &Condition) -> &'static str {
    match c {
        Condition::Prone => "Prone",
        Condition::Surprised => "Surprised",
        Condition::Stunned => "Stunned",
        Condition::Grappled { .. } => "Grappled",
        Condition::Dodging => "Dodging",
        Condition::Guarding => "Guarding",
        Condition::TotalDefense => "Total Defense",
        Condition::Disengaged => "Disengaged",
        Condition::InCover => "In Cover",
        Condition::Screening { .. } => "Screening",
        Condition::Holding => "Holding",
        Condition::Casting => "Casting",
        Condition::Harmed => "Harmed",
        Condition::Bloodied => "Bloodied",
        Condition::Charging => "Charging",
    }
}

#[cfg(test)]
mod tests;
