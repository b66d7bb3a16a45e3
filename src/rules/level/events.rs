//! Events a level scripts into its battle: a trigger (`when`) and what then happens (`then`):
//! reinforcements, a message to everyone, a side's new objectives. What they are in the level
//! format, and their checks. They fire in the battle through [`crate::rules::battle::script`].

use super::spans::Seg;
use super::{LevelFile, Problems, UnitDef, Victory, ruleset_data};
use crate::rules::map::Terrain;
use serde::{Deserialize, Serialize};

/// One scripted event: when it fires, and what happens then. Each fires at most once. See
/// `levels/README.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelEvent {
    pub when: When,
    /// What happens, in this order.
    pub then: Vec<Effect>,
}

/// What fires an event. The triggers are looked at after the battle's opening and after each
/// command that leaves no reaction waiting.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum When {
    /// Round (`phases`: Turn) `n` has begun.
    Round(u32),
    /// A unit of `side` stepped into `area` (or arrived in it).
    Enters { side: String, area: Area },
    /// `side` has lost `units` units: down, dead or fled.
    Lost { side: String, units: u32 },
}

/// Cells of the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Area {
    /// These cells.
    Cells(Vec<(i32, i32)>),
    /// Every cell from corner `from` to corner `to`, both included.
    Rect { from: (i32, i32), to: (i32, i32) },
}

impl Area {
    /// Whether `(x, y)` is in the area.
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        match self {
            Area::Cells(cells) => cells.contains(&(x, y)),
            Area::Rect { from, to } => {
                let (x0, x1) = (from.0.min(to.0), from.0.max(to.0));
                let (y0, y1) = (from.1.min(to.1), from.1.max(to.1));
                (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
            }
        }
    }
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Effect {
    /// Units that arrive, each on its `cell` (or the nearest free cell), written as the
    /// level's `units` are.
    Reinforcements(Vec<UnitDef>),
    /// A line everyone reads in the log.
    Message(String),
    /// `side`'s victory conditions become `victory` (each naming `side`); the other sides'
    /// and `LastSideStanding` stay.
    Objectives { side: String, victory: Vec<Victory> },
}

/// The most events a level may have.
pub const MAX_EVENTS: usize = 64;
/// The longest message, in characters.
pub const MAX_MESSAGE: usize = 500;
/// The most cells an area may list.
pub const MAX_AREA_CELLS: usize = 1024;

/// Every reinforcement of a level, in file order, with its event's and effect's index.
pub fn reinforcements(file: &LevelFile) -> impl Iterator<Item = (usize, usize, usize, &UnitDef)> {
    file.events.iter().enumerate().flat_map(|(e, ev)| {
        ev.then
            .iter()
            .enumerate()
            .flat_map(move |(f, effect)| match effect {
                Effect::Reinforcements(units) => units
                    .iter()
                    .enumerate()
                    .map(move |(k, u)| (e, f, k, u))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
    })
}

/// The checks of `file.events`: sides that exist, rounds from 1, areas and cells inside the
/// map, reinforcements written as valid units (template, stats, a cell one can stand on, a
/// name no other unit has), objectives that name their side.
pub(super) fn check(
    file: &LevelFile,
    in_bounds: &dyn Fn((i32, i32)) -> bool,
    terrain_at: &dyn Fn((i32, i32)) -> Option<Terrain>,
    out: &mut Problems,
) {
    use Seg::{Field as F, Index as I};
    if file.events.is_empty() {
        return;
    }
    if file.events.len() > MAX_EVENTS {
        out.push(
            vec![F("events"), I(MAX_EVENTS)],
            format!(
                "this level has {} events; a level has at most {MAX_EVENTS}",
                file.events.len()
            ),
        );
        return;
    }
    let is_side = |name: &str| file.sides.iter().any(|s| s.name == name);
    let sides = || {
        file.sides
            .iter()
            .map(|s| format!("'{}'", s.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let unknown = |who: String, side: &str| {
        format!(
            "{who} side '{side}', which the level does not define; its sides are {}",
            sides()
        )
    };
    let cell_problem = |what: &str, (x, y): (i32, i32)| -> Option<String> {
        if !in_bounds((x, y)) {
            return Some(format!(
                "{what} ({x}, {y}), outside the {}x{} map",
                file.size.0, file.size.1
            ));
        }
        terrain_at((x, y)).filter(|t| !t.passable()).map(|t| {
            format!(
                "{what} ({x}, {y}), which is {}: no unit can stand there",
                t.label()
            )
        })
    };
    let data = ruleset_data::builtin(file.ruleset);
    let total = file.units.len() + reinforcements(file).count();
    if total > super::MAX_UNITS {
        out.push(
            vec![F("events")],
            format!(
                "this level has {total} units with its reinforcements; a battle has at most {}",
                super::MAX_UNITS
            ),
        );
    }
    // Names: reinforcements' must differ from the level's units' and each other's.
    let mut names: Vec<&str> = file.units.iter().map(|u| u.name.as_str()).collect();
    for (e, event) in file.events.iter().enumerate() {
        let at = |segs: &[Seg]| {
            let mut v = vec![F("events"), I(e)];
            v.extend_from_slice(segs);
            v
        };
        match &event.when {
            When::Round(n) => {
                if *n == 0 {
                    out.push(
                        at(&[F("when"), I(0)]),
                        format!("event {e} fires on round 0; rounds count from 1"),
                    );
                }
            }
            When::Enters { side, area } => {
                if !is_side(side) {
                    out.push(
                        at(&[F("when"), F("side")]),
                        unknown(format!("event {e} waits for a unit of"), side),
                    );
                }
                match area {
                    Area::Cells(cells) => {
                        if cells.is_empty() {
                            out.push(
                                at(&[F("when"), F("area")]),
                                format!("event {e}'s area has no cells"),
                            );
                        }
                        if cells.len() > MAX_AREA_CELLS {
                            out.push(
                                at(&[F("when"), F("area")]),
                                format!("event {e}'s area lists more than {MAX_AREA_CELLS} cells; use Rect"),
                            );
                        }
                        for (k, &c) in cells.iter().enumerate().take(MAX_AREA_CELLS) {
                            if !in_bounds(c) {
                                out.push(
                                    at(&[F("when"), F("area"), I(0), I(k)]),
                                    format!(
                                        "event {e}'s area has the cell ({}, {}), outside the {}x{} map",
                                        c.0, c.1, file.size.0, file.size.1
                                    ),
                                );
                            }
                        }
                    }
                    Area::Rect { from, to } => {
                        for (field, c) in [("from", from), ("to", to)] {
                            if !in_bounds(*c) {
                                out.push(
                                    at(&[F("when"), F("area"), F(field)]),
                                    format!(
                                        "event {e}'s area has the corner ({}, {}), outside the {}x{} map",
                                        c.0, c.1, file.size.0, file.size.1
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            When::Lost { side, units } => {
                if !is_side(side) {
                    out.push(
                        at(&[F("when"), F("side")]),
                        unknown(format!("event {e} counts the losses of"), side),
                    );
                }
                if *units == 0 {
                    out.push(
                        at(&[F("when"), F("units")]),
                        format!("event {e} fires when 0 units are lost; use 1 or more"),
                    );
                }
            }
        }
        if event.then.is_empty() {
            out.push(
                at(&[F("then")]),
                format!("event {e} does nothing: give `then` at least one effect"),
            );
        }
        for (f, effect) in event.then.iter().enumerate() {
            let at = |segs: &[Seg]| {
                let mut v = vec![F("events"), I(e), F("then"), I(f)];
                v.extend_from_slice(segs);
                v
            };
            match effect {
                Effect::Message(text) => {
                    if text.trim().is_empty() {
                        out.push(at(&[I(0)]), format!("event {e}'s message is empty"));
                    } else if text.chars().count() > MAX_MESSAGE {
                        out.push(
                            at(&[I(0)]),
                            format!("event {e}'s message is longer than {MAX_MESSAGE} characters"),
                        );
                    }
                }
                Effect::Objectives { side, victory } => {
                    if !is_side(side) {
                        out.push(
                            at(&[F("side")]),
                            unknown(format!("event {e} changes the objectives of"), side),
                        );
                    }
                    for (v, cond) in victory.iter().enumerate() {
                        let vat = |field: &'static str| at(&[F("victory"), I(v), F(field)]);
                        // A side's own objective names that side.
                        if let Victory::SurviveRounds { side: s, .. }
                        | Victory::ReachCell { side: s, .. } = cond
                            && s != side
                        {
                            out.push(
                                vat("side"),
                                format!(
                                    "event {e} gives '{side}' an objective of '{s}'; each new \
                                     objective names '{side}'"
                                ),
                            );
                        }
                        match cond {
                            Victory::LastSideStanding => out.push(
                                at(&[F("victory"), I(v)]),
                                format!(
                                    "event {e}: LastSideStanding is every side's; a side's new \
                                     objectives are SurviveRounds or ReachCell"
                                ),
                            ),
                            Victory::SurviveRounds { rounds, .. } => {
                                if *rounds == 0 {
                                    out.push(
                                        vat("rounds"),
                                        format!(
                                            "event {e} asks to survive 0 rounds; use 1 or more"
                                        ),
                                    );
                                }
                            }
                            Victory::ReachCell { cell, .. } => {
                                if let Some(p) =
                                    cell_problem(&format!("event {e} asks to reach"), *cell)
                                {
                                    out.push(vat("cell"), p);
                                }
                            }
                        }
                    }
                }
                Effect::Reinforcements(units) => {
                    if units.is_empty() {
                        out.push(
                            at(&[I(0)]),
                            format!("event {e}'s reinforcements list no unit"),
                        );
                    }
                    let mut cells: Vec<(i32, i32)> = Vec::new();
                    for (k, unit) in units.iter().enumerate() {
                        let uat = |field: &'static str| at(&[I(0), I(k), F(field)]);
                        let who = format!("reinforcement '{}'", unit.name);
                        if unit.name.trim().is_empty() {
                            out.push(
                                uat("name"),
                                format!("event {e}'s reinforcement {k} has no name"),
                            );
                        } else if names.contains(&unit.name.as_str()) {
                            out.push(
                                uat("name"),
                                format!(
                                    "another unit is already named '{}'; unit names must differ",
                                    unit.name
                                ),
                            );
                        }
                        names.push(&unit.name);
                        if !is_side(&unit.side) {
                            out.push(uat("side"), unknown(format!("{who} is on"), &unit.side));
                        }
                        if let Some(p) = cell_problem(&format!("{who} arrives at"), unit.cell) {
                            out.push(uat("cell"), p);
                        } else if cells.contains(&unit.cell) {
                            out.push(
                                uat("cell"),
                                format!(
                                    "two reinforcements of event {e} arrive at ({}, {}); give each its own cell",
                                    unit.cell.0, unit.cell.1
                                ),
                            );
                        }
                        cells.push(unit.cell);
                        let Some(r) = data else { continue };
                        match r.templates.get(&unit.template) {
                            None => out.push(
                                uat("template"),
                                format!(
                                    "{who} uses template '{}', which the '{}' ruleset does not \
                                     have; its templates are {}",
                                    unit.template,
                                    r.id,
                                    super::quoted_list(r.templates.keys().map(String::as_str))
                                ),
                            ),
                            Some(t) => {
                                for (stat, &value) in &unit.overrides {
                                    let path =
                                        at(&[I(0), I(k), F("overrides"), Seg::Str(stat.clone())]);
                                    let (low, high) = super::stat_bounds(stat);
                                    if !t.stats.contains_key(stat) {
                                        out.push(
                                            path,
                                            format!(
                                                "{who} overrides '{stat}', which template '{}' \
                                                 does not have",
                                                unit.template
                                            ),
                                        );
                                    } else if !(low..=high).contains(&value) {
                                        out.push(
                                            path,
                                            format!("{who} sets '{stat}' to {value}; it must be {low} to {high}"),
                                        );
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
