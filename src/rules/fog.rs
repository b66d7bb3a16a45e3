//! Fog of war: what each side sees, and where it last saw the others (a level option,
//! [`crate::rules::level::Options::fog`]).
//!
//! The rules, the same in every ruleset (house rules where a text is silent; `docs/engine.md`):
//! - A side sees its own units, and every unit one of its active units has a line of sight to
//!   ([`crate::rules::sight::line_of_sight`], heights and doors included) within the level's
//!   sight range, if it sets one (a dark place). Lines of sight are symmetric, so whoever
//!   shoots or strikes at a unit can be seen by it, unless the dark hides the shooter.
//! - Every side knows where the others deployed (the level shows it to the players).
//! - Knowledge ([`Knowledge`]) is kept on the battle and brought up to date when a unit moves,
//!   is placed, goes down or a door turns ([`update`]): who each side sees now, and the cell
//!   where it last saw each of the others.
//! - A side may not aim a command at a foe it does not see (it is not offered, and is
//!   rejected), and its moves are planned as if the cells of foes it does not see were empty:
//!   a move that runs into one stops on the step before it, and the hidden foe is seen.
//! - A side's view ([`redact`]) keeps a foe it does not see where it last saw it (a ghost),
//!   unless it sees that cell now; then the foe is unknown, guessed on the nearest cell the
//!   side does not see (the AI looks for it there; the game does not draw it). Either way it
//!   keeps the pools, status and conditions the side last saw it with ([`Looks`]). The AI plans
//!   on that view; the game draws it for the side whose turn it is in hot-seat, and for the
//!   human side against the AI.
//! - The log leaves out, for a side, the lines about units it does not see
//!   ([`shows`]).
//!
//! A view does not track: a side's AI plays thousands of imagined moves on its view, and the
//! knowledge it plans with is what it knew when it began (its ghosts stay put).

use crate::rules::battle::{BattleState, Command, Condition, Event, SideId, Status, Unit, UnitId};
use crate::rules::grid::{Cell, CellMap};
use crate::rules::map::TerrainMap;
use crate::rules::sight;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The level option: fog of war, with an optional sight range in steps (a dark place).
///
/// ```ron
/// options: (fog: (sight: 5)),
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Fog {
    /// How far a unit sees, in steps of the grid's distance; `None`: as far as its line of
    /// sight goes.
    pub sight: Option<u32>,
}

/// What each side knows of the units (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knowledge {
    pub sight: Option<u32>,
    /// `seen[side][unit]`: `side` sees `unit` now.
    seen: Vec<Vec<bool>>,
    /// `last[side][unit]`: where `side` last saw `unit`.
    last: Vec<Vec<Option<Cell>>>,
    /// `looks[side][unit]`: how `side` last saw `unit` of another side (its pools, whether it
    /// stood, its conditions). A view shows a foe out of sight so, not as it is now. Empty in
    /// a save written before it was kept; then a view shows foes as they are.
    #[serde(default)]
    looks: Vec<Vec<Option<Looks>>>,
    /// On a side's view: whose view it is. A view's knowledge is frozen.
    pub view_of: Option<SideId>,
    /// On a view: the units of other sides it does not know where to find. They are guessed
    /// on the nearest cell out of its sight from where they were last seen (where its AI
    /// looks for them; the game does not draw them).
    unknown: Vec<bool>,
    /// On a view: the units shown where they were last seen.
    ghost: Vec<bool>,
}

impl Knowledge {
    /// Where `side` last saw `unit` (now, if it sees it).
    pub fn last_seen(&self, side: SideId, unit: UnitId) -> Option<Cell> {
        self.last
            .get(side.index())
            .and_then(|l| l.get(unit.index()).copied().flatten())
    }

    /// On a view: whether `unit` is shown where it was last seen rather than where it is.
    pub fn is_ghost(&self, unit: UnitId) -> bool {
        self.ghost.get(unit.index()).copied().unwrap_or(false)
    }

    /// On a view: whether the viewer does not know where `unit` is (it is out of play there).
    pub fn is_unknown(&self, unit: UnitId) -> bool {
        self.unknown.get(unit.index()).copied().unwrap_or(false)
    }
}

/// What a side saw of a foe when it last saw it: what a view restores on a foe out of sight.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Looks {
    pub status: Status,
    pub pools: BTreeMap<Arc<str>, i64>,
    pub conditions: BTreeSet<Condition>,
}

impl Looks {
    fn of(u: &Unit) -> Looks {
        Looks {
            status: u.status,
            pools: u.pools.clone(),
            conditions: u.conditions.clone(),
        }
    }

    fn matches(&self, u: &Unit) -> bool {
        self.status == u.status && self.pools == u.pools && self.conditions == u.conditions
    }
}

/// Whether a unit on `from` sees `to`: within `sight` steps (if set) and with a line of sight.
pub fn sees(map: &TerrainMap, sight: Option<u32>, from: Cell, to: Cell) -> bool {
    sight.is_none_or(|r| map.grid().distance(from, to) <= r) && sight::line_of_sight(map, from, to)
}

/// The knowledge a battle starts with, if its level is fogged.
pub fn start(state: &BattleState) -> Option<Arc<Knowledge>> {
    let fog = state.level.options.fog?;
    let (n, sides) = (state.units.len(), state.sides.len());
    let mut k = Knowledge {
        sight: fog.sight,
        seen: vec![vec![false; n]; sides],
        // Where each side deployed is known to all (the level shows it).
        last: vec![state.units.iter().map(|u| Some(u.cell)).collect(); sides],
        // Deployed as the level writes them, which every side knows too.
        looks: vec![state.units.iter().map(|u| Some(Looks::of(u))).collect(); sides],
        view_of: None,
        unknown: Vec::new(),
        ghost: Vec::new(),
    };
    refresh(state, &mut k);
    Some(Arc::new(k))
}

fn refresh(state: &BattleState, k: &mut Knowledge) {
    // Reinforcements join mid-battle: every side learns of them as it sees them.
    let n = state.units.len();
    for side in 0..k.seen.len() {
        k.seen[side].resize(n, false);
        k.last[side].resize(n, None);
    }
    if k.looks.len() == k.seen.len() {
        for looks in &mut k.looks {
            looks.resize(n, None);
        }
    }
    k.unknown.resize(n, false);
    k.ghost.resize(n, false);
    for side in 0..state.sides.len() {
        let side_id = SideId(side as u8);
        for (i, u) in state.units.iter().enumerate() {
            let seen = u.side == side_id
                || state.units.iter().any(|e| {
                    e.side == side_id
                        && e.is_active()
                        && sees(&state.terrain, k.sight, e.cell, u.cell)
                });
            k.seen[side][i] = seen;
            if seen {
                k.last[side][i] = Some(u.cell);
            }
            // Before the first round, units are as deployed (their pools being filled), which
            // every side knows.
            if (seen || state.round == 0)
                && u.side != side_id
                && let Some(l) = k.looks.get_mut(side).and_then(|l| l.get_mut(i))
                && l.as_ref().is_none_or(|l| !l.matches(u))
            {
                *l = Some(Looks::of(u));
            }
        }
    }
}

/// Whether `e` can change what a side sees, or what it sees of a unit in sight.
pub fn changes_knowledge(e: &Event) -> bool {
    matches!(
        e,
        Event::Moved { .. }
            | Event::Placed { .. }
            | Event::Door { .. }
            | Event::Status { .. }
            | Event::Pool { .. }
            | Event::Condition { .. }
            | Event::Scripted(crate::rules::battle::Scripted::Arrived { .. })
    )
}

/// Brings the battle's knowledge up to date after an event that [`changes_knowledge`] (not on a
/// view, whose knowledge is frozen).
pub fn update(state: &mut BattleState) {
    let Some(mut fog) = state.fog.take() else {
        return;
    };
    if fog.view_of.is_none() {
        refresh(state, Arc::make_mut(&mut fog));
    }
    state.fog = Some(fog);
}

/// Whether `side` sees `unit`. True without fog, and on a view for every unit it shows
/// (ghosts included: the view's owner believes them there).
pub fn visible(state: &BattleState, side: SideId, unit: UnitId) -> bool {
    match &state.fog {
        None => true,
        Some(k) if k.view_of.is_some() => !k.is_unknown(unit),
        Some(k) => k
            .seen
            .get(side.index())
            .and_then(|s| s.get(unit.index()))
            .copied()
            .unwrap_or(true),
    }
}

/// Whether the game draws `unit` on this state: not on a view that only guesses where it is.
pub fn drawn(state: &BattleState, unit: UnitId) -> bool {
    !state.fog.as_ref().is_some_and(|k| k.is_unknown(unit))
}

/// Whether the knowledge of a fogged battle (not a view) hides `unit` from `side`.
pub fn hidden(state: &BattleState, side: SideId, unit: UnitId) -> bool {
    state.fog.as_ref().is_some_and(|k| k.view_of.is_none()) && !visible(state, side, unit)
}

/// Why `cmd` may not be given under fog: it aims at a unit its side does not see.
pub fn check(state: &BattleState, cmd: &Command) -> Result<(), String> {
    let Some(side) = state.unit(cmd.unit()).map(|u| u.side) else {
        return Ok(());
    };
    match cmd.anchor().unit {
        Some(target) if hidden(state, side, target) => Err(format!(
            "{} sees no one there: {} is out of its side's sight",
            state.unit_name(cmd.unit()),
            state.unit_name(target)
        )),
        _ => Ok(()),
    }
}

/// Whether the log shows `e` to `viewer` (after it was applied): always without fog; else
/// unless it is about a unit of another side that `viewer` does not see.
pub fn shows(state: &BattleState, e: &Event, viewer: SideId) -> bool {
    if state.fog.is_none() {
        return true;
    }
    let about = match e {
        Event::Rolled { unit, .. } => *unit,
        Event::TurnStarted { unit }
        | Event::TurnEnded { unit }
        | Event::Moved { unit, .. }
        | Event::Placed { unit, .. }
        | Event::Door { unit, .. }
        | Event::Pool { unit, .. }
        | Event::Status { unit, .. }
        | Event::Condition { unit, .. }
        | Event::Reacted { unit, .. }
        | Event::Reckoned { unit, .. }
        | Event::Blocked { unit, .. }
        | Event::Spotted { unit, .. } => Some(*unit),
        Event::Attacked {
            attacker, target, ..
        } => {
            // An attack on one of the viewer's units is felt, whoever made it.
            if state.unit(*target).is_some_and(|t| t.side == viewer) {
                return true;
            }
            Some(*attacker)
        }
        // A ruleset's own events name their units in their own ways: their line is left out
        // if it names a unit the viewer does not see.
        Event::Rules(r) => {
            let line = crate::rules::rulesets::log_line(state, r);
            return !state
                .unit_ids()
                .any(|u| !visible(state, viewer, u) && names(&line, &state.unit_name(u)));
        }
        _ => None,
    };
    about.is_none_or(|u| visible(state, viewer, u))
}

/// Whether `line` names `name` as a word (not inside a longer word).
fn names(line: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    line.match_indices(name).any(|(i, _)| {
        !word(line[..i].chars().next_back()) && !word(line[i + name.len()..].chars().next())
    })
}

/// Every cell `viewer`'s active units see (what the board leaves unfogged). Without fog, the
/// whole map.
pub fn seen_cells(state: &BattleState, viewer: SideId) -> CellMap<bool> {
    let grid = state.grid();
    let Some(k) = &state.fog else {
        return CellMap::new(grid, true);
    };
    let eyes: Vec<Cell> = state
        .units
        .iter()
        .filter(|u| u.side == viewer && u.is_active())
        .map(|u| u.cell)
        .collect();
    // One field of view per eye ([`sight::field_of_view`] is `line_of_sight` for every cell,
    // and much cheaper than asking it cell by cell), cut to the sight range. One scratch for
    // all: on hex maps it keeps the map's prefix sums from one eye to the next.
    let mut out = CellMap::new(grid, false);
    let mut scratch = sight::FovScratch::new();
    for e in eyes {
        let field = sight::field_of_view_with(&state.terrain, e, &mut scratch);
        for (i, &seen) in field.as_slice().iter().enumerate() {
            let c = grid.cell_at(i);
            if seen && k.sight.is_none_or(|r| grid.distance(e, c) <= r) {
                out.set(c, true);
            }
        }
    }
    out
}

/// Turns `state` into what `viewer`'s side knows of it (see the module docs). Nothing changes
/// without fog, or on a view already.
pub fn redact(state: &mut BattleState, viewer: SideId) {
    let Some(k) = state.fog.clone() else {
        return;
    };
    if k.view_of.is_some() {
        return;
    }
    let n = state.units.len();
    let mut ghost = vec![false; n];
    let mut unknown = vec![false; n];
    let seen: Vec<bool> = (0..n)
        .map(|i| visible(state, viewer, UnitId(i as u16)))
        .collect();
    let in_sight = seen_cells(state, viewer);
    let lit = |c: Cell| in_sight.get(c).copied().unwrap_or(false);
    let mut taken: Vec<Cell> = state
        .units
        .iter()
        .zip(&seen)
        .filter(|(u, s)| **s && u.status != Status::Dead)
        .map(|(u, _)| u.cell)
        .collect();
    let grid = *state.grid();
    for i in 0..n {
        if seen[i] {
            continue;
        }
        let last = k.last_seen(viewer, UnitId(i as u16));
        let looks = k
            .looks
            .get(viewer.index())
            .and_then(|l| l.get(i))
            .cloned()
            .flatten();
        let place = last.filter(|&c| !taken.contains(&c) && !lit(c));
        // Its last cell is seen empty: it went out of sight from there, so it is guessed on
        // the nearest cell the side does not see (the AI then looks for it there).
        let guess = last.and_then(|from| {
            grid.cells()
                .filter(|&c| !lit(c) && !taken.contains(&c) && state.terrain.passable(c))
                .min_by_key(|&c| (grid.distance(from, c), c.y, c.x))
        });
        let u = &mut state.units[i];
        // As it was last seen, not as it is now.
        if let Some(l) = looks {
            u.status = l.status;
            u.pools = l.pools;
            u.conditions = l.conditions;
        }
        if let Some(c) = place {
            u.cell = c;
            ghost[i] = true;
            taken.push(c);
            continue;
        }
        // (A foe stands on a cell out of sight, so there is always one to guess.)
        if let Some(c) = guess.or(last) {
            u.cell = c;
            taken.push(c);
        }
        unknown[i] = true;
    }
    state.fog = Some(Arc::new(Knowledge {
        view_of: Some(viewer),
        ghost,
        unknown,
        ..(*k).clone()
    }));
}

#[cfg(test)]
mod tests;
