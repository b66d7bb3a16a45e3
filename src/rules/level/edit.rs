//! Editing a level's RON text as a designer would: each edit changes only the text it must
//! (a painted cell its row's glyph, a moved unit its `cell`), so comments, spacing and the
//! order of fields survive, and opening and saving an unedited level gives the same bytes.
//!
//! The editing model behind `fray edit LEVEL --script EDITS.ron` (and the level editor): a
//! [`LevelDoc`] holds the text, applies [`Edit`]s with undo and redo, and validates the result
//! with the same validator as `fray validate`. A level with problems can still be edited and
//! saved: it is the designer's file.
//!
//! ```
//! use fray::rules::level::edit::{Edit, LevelDoc};
//! let text = r#"(
//!     name: "Duel", ruleset: "sides", topology: Square(diagonals: One), size: (3, 2),
//!     // the arena
//!     map: ["...", ".#."],
//!     sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
//!     units: [
//!         (name: "a", side: "A", cell: (0, 0), template: "warrior"),
//!         (name: "b", side: "B", cell: (2, 1), template: "warrior"),
//!     ],
//! )"#;
//! let mut doc = LevelDoc::new(text);
//! doc.apply(&Edit::Paint { cell: (0, 1), glyph: '~' }).unwrap();
//! doc.apply(&Edit::MoveUnit { unit: "b".into(), to: (2, 0) }).unwrap();
//! assert!(doc.text().contains(r#"map: ["...", "~#."],"#));
//! assert!(doc.text().contains(r#"(name: "b", side: "B", cell: (2, 0), template: "warrior"),"#));
//! assert!(doc.text().contains("// the arena"));
//! doc.undo();
//! doc.undo();
//! assert_eq!(doc.text(), text);
//! ```

use super::spans::{Seg, Spans, char_in_string};
use super::{LevelFile, Victory};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One change to a level. Units are named by their `name`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Edit {
    /// Sets the glyph of one cell of the map.
    Paint { cell: (i32, i32), glyph: char },
    /// Paints every cell of the rectangle between two corners (inclusive).
    PaintRect {
        from: (i32, i32),
        to: (i32, i32),
        glyph: char,
    },
    /// Paints a straight line of cells between two ends (inclusive), a step at a time
    /// ([`crate::rules::grid::Grid::line`]).
    PaintLine {
        from: (i32, i32),
        to: (i32, i32),
        glyph: char,
    },
    /// Paints the region of `cell`: every cell reached from it through neighbours of the
    /// same glyph (sharing a side on squares, any of the six on hexes), as a paint bucket.
    Fill { cell: (i32, i32), glyph: char },
    /// Makes the map `size` cells; the old cell (x, y) moves to (x + dx, y + dy), and every
    /// cell the level names moves with it (units, items on cells, victory cells, tasks,
    /// events' areas, reinforcements' arrival cells, new objectives' cells); new cells are
    /// `fill`. Refused, naming them, if any of those would fall off the new map (an event's
    /// `Rect` area only if none of it is left: it loses the cells the map loses).
    Resize {
        size: (u32, u32),
        #[serde(default)]
        offset: (i32, i32),
        fill: char,
    },
    /// Sets the ground's height (0-9 levels) of every cell of the rectangle between two
    /// corners (inclusive). A level without a `heights` layer gets one, flat elsewhere.
    SetHeight {
        from: (i32, i32),
        to: (i32, i32),
        height: u8,
    },
    /// Sets the ground's height of a straight line of cells between two ends (inclusive), as
    /// [`Edit::PaintLine`] paints one.
    SetHeightLine {
        from: (i32, i32),
        to: (i32, i32),
        height: u8,
    },
    /// Sets the ground's height of `cell`'s region: every cell reached from it through
    /// neighbours of the same height (as [`Edit::Fill`] follows a glyph).
    FillHeight { cell: (i32, i32), height: u8 },
    /// Adds a unit (its line goes after the last unit's).
    AddUnit {
        name: String,
        side: String,
        cell: (i32, i32),
        template: String,
        #[serde(default)]
        overrides: BTreeMap<String, i64>,
        /// The items it carries (keys of the ruleset's `items`), as a unit's `items`.
        #[serde(default)]
        items: Vec<String>,
    },
    /// Moves a unit's starting cell.
    MoveUnit { unit: String, to: (i32, i32) },
    /// Removes a unit.
    RemoveUnit { unit: String },
    /// Sets (or with `None` removes) one stat override of a unit.
    SetOverride {
        unit: String,
        stat: String,
        value: Option<i64>,
    },
    /// Sets the items a unit carries (keys of the ruleset's `items`, in order): its line's
    /// `items`, added if it had none, removed when the list is empty.
    SetItems { unit: String, items: Vec<String> },
    /// Leaves an item on a cell: a line at the end of the level's `items` (the field is added
    /// after `units` if the level has none). Refused where the validator would reject it: off
    /// the map, on a wall or a door, a heavy object where a unit stands.
    AddItem { item: String, cell: (i32, i32) },
    /// Takes away the last item the level's `items` lists on `cell` (with the last item, the
    /// field).
    RemoveItem { cell: (i32, i32) },
    /// Renames a unit (its line's `name`).
    RenameUnit { unit: String, to: String },
    /// Renames a side, and with it every unit's `side` and every victory condition's `side`
    /// that named it.
    RenameSide { side: String, to: String },
    /// Sets who plays a side by default.
    SetController {
        side: String,
        controller: super::Controller,
    },
    /// Adds or replaces the level's legend entry for `glyph` (a standard glyph's entry replaces
    /// it for this level), or with `None` removes the level's entry.
    SetLegend {
        glyph: char,
        terrain: Option<crate::rules::map::Terrain>,
    },
    /// Sets the level's name.
    SetName(String),
    /// Sets the level's description.
    SetDescription(String),
    /// Sets the level's default seed.
    SetSeed(u64),
    /// Adds a victory condition.
    AddVictory(Victory),
    /// Removes the victory condition at this index.
    RemoveVictory(usize),
    /// Adds a scripted event (`levels/README.md`, "Events") on a line of its own at the end of
    /// `events`.
    AddEvent(super::events::LevelEvent),
    /// Removes the event at this index.
    RemoveEvent(usize),
    /// A unit that arrives at the start of round `round`: it joins the reinforcements of the
    /// first event that fires on that round, or comes with a new event of its own.
    AddReinforcement { round: u32, unit: super::UnitDef },
    /// Moves the arrival cell of the reinforcement named `unit`.
    MoveReinforcement { unit: String, to: (i32, i32) },
    /// Removes the reinforcement named `unit` (and its event, if it did nothing else).
    RemoveReinforcement { unit: String },
}

/// A level's text being edited, with its history.
#[derive(Clone, Debug)]
pub struct LevelDoc {
    text: String,
    undo: Vec<String>,
    redo: Vec<String>,
}

impl LevelDoc {
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// The level's text as it stands.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Applies an edit; on an error (a unit that does not exist, a cell off the map, a text
    /// that does not parse) nothing changes and the message says why.
    pub fn apply(&mut self, edit: &Edit) -> Result<(), String> {
        let next = edited(&self.text, edit)?;
        if next != self.text {
            self.undo.push(std::mem::replace(&mut self.text, next));
            self.redo.clear();
        }
        Ok(())
    }

    /// Takes the last edit back; false if there is none.
    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(prev) => {
                self.redo.push(std::mem::replace(&mut self.text, prev));
                true
            }
            None => false,
        }
    }

    /// Applies again the last edit taken back; false if there is none.
    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(next) => {
                self.undo.push(std::mem::replace(&mut self.text, next));
                true
            }
            None => false,
        }
    }
}

/// The text after `edit`.
fn edited(text: &str, edit: &Edit) -> Result<String, String> {
    let file: LevelFile = super::ron_options()
        .from_str(text)
        .map_err(|e| format!("the level does not parse ({e}); fix it by hand first"))?;
    let spans = Spans::index(text);
    let mut out = Splice::new(text);
    let unit_index = |name: &str| {
        file.units
            .iter()
            .position(|u| u.name == name)
            .ok_or_else(|| {
                format!(
                    "no unit is named '{name}'; the units are: {}",
                    file.units
                        .iter()
                        .map(|u| format!("'{}'", u.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    };
    match edit {
        Edit::Paint { cell, glyph } => paint(&mut out, &spans, &file, &[*cell], *glyph)?,
        Edit::PaintRect { from, to, glyph } => {
            let cells: Vec<(i32, i32)> = (from.1.min(to.1)..=from.1.max(to.1))
                .flat_map(|y| (from.0.min(to.0)..=from.0.max(to.0)).map(move |x| (x, y)))
                .collect();
            paint(&mut out, &spans, &file, &cells, *glyph)?;
        }
        Edit::PaintLine { from, to, glyph } => {
            let cells = line(&file, *from, *to);
            paint(&mut out, &spans, &file, &cells, *glyph)?;
        }
        Edit::Fill { cell, glyph } => {
            let rows: Vec<Vec<char>> = file.map.iter().map(|r| r.chars().collect()).collect();
            let cells = region(&file, *cell, |(x, y)| {
                let row = usize::try_from(y).ok().and_then(|y| rows.get(y))?;
                usize::try_from(x).ok().and_then(|x| row.get(x)).copied()
            })?;
            paint(&mut out, &spans, &file, &cells, *glyph)?;
        }
        Edit::Resize { size, offset, fill } => {
            resize::resize(&mut out, &spans, &file, *size, *offset, *fill)?
        }
        Edit::SetHeight { from, to, height } => {
            let cells: Vec<(i32, i32)> = (from.1.min(to.1)..=from.1.max(to.1))
                .flat_map(|y| (from.0.min(to.0)..=from.0.max(to.0)).map(move |x| (x, y)))
                .collect();
            set_height(&mut out, text, &spans, &file, &cells, *height)?
        }
        Edit::SetHeightLine { from, to, height } => {
            let cells = line(&file, *from, *to);
            set_height(&mut out, text, &spans, &file, &cells, *height)?
        }
        Edit::FillHeight { cell, height } => {
            // Off the map is no height at all, so the region stops at the edge.
            let (w, h) = (
                file.map.first().map_or(0, |r| r.chars().count()) as i32,
                file.map.len() as i32,
            );
            let cells = region(&file, *cell, |(x, y)| {
                (x >= 0 && y >= 0 && x < w && y < h).then(|| file.height_at((x, y)))
            })?;
            set_height(&mut out, text, &spans, &file, &cells, *height)?
        }
        Edit::AddUnit {
            name,
            side,
            cell,
            template,
            overrides,
            items,
        } => {
            if file.units.iter().any(|u| &u.name == name)
                || super::events::reinforcements(&file).any(|(_, _, _, u)| &u.name == name)
            {
                return Err(format!("a unit is already named '{name}'"));
            }
            let line = unit_text(&super::UnitDef {
                name: name.clone(),
                side: side.clone(),
                cell: *cell,
                template: template.clone(),
                overrides: overrides.clone(),
                items: items.clone(),
            });
            add_item(&mut out, text, &spans, "units", &line)?;
        }
        Edit::MoveUnit { unit, to } => {
            let i = unit_index(unit)?;
            let span = spans
                .span(&[Seg::Field("units"), Seg::Index(i), Seg::Field("cell")])
                .ok_or("the unit's cell was not found in the text")?;
            out.replace(span, format!("({}, {})", to.0, to.1));
        }
        Edit::RemoveUnit { unit } => {
            let i = unit_index(unit)?;
            let span = spans
                .span(&[Seg::Field("units"), Seg::Index(i)])
                .ok_or("the unit was not found in the text")?;
            remove_item(&mut out, text, span);
        }
        Edit::SetOverride { unit, stat, value } => {
            let i = unit_index(unit)?;
            set_override(&mut out, text, &spans, i, stat, *value)?;
        }
        Edit::SetItems { unit, items } => {
            let i = unit_index(unit)?;
            // Only what the unit gains is checked: a bad item written by hand can still go.
            let now = &file.units[i].items;
            check_items(&file, items.iter().filter(|k| !now.contains(k)), true)?;
            if items.len() > super::MAX_CARRIED {
                return Err(format!(
                    "a unit carries at most {} items, not {}",
                    super::MAX_CARRIED,
                    items.len()
                ));
            }
            set_items(&mut out, text, &spans, i, items)?;
        }
        Edit::AddItem { item, cell } => {
            let (w, h) = map_size(&file);
            let (x, y) = *cell;
            if x < 0 || y < 0 || x >= w as i32 || y >= h as i32 {
                return Err(format!(
                    "({x}, {y}) is off the map ({w} × {h}): an item lies on a cell of it"
                ));
            }
            check_items(&file, [item], false)?;
            // Where the validator would not have it: a wall, a door, a heavy object where a
            // unit stands.
            if let Some(data) = crate::rules::ruleset_data::builtin(file.ruleset) {
                let glyph = file
                    .map
                    .get(y as usize)
                    .and_then(|r| r.chars().nth(x as usize));
                let legend = super::merged_legend(&file.legend);
                let terrain = legend.iter().find(|(g, _)| Some(*g) == glyph).map(|e| &e.1);
                if let Some(why) =
                    super::items::placement_problem(&file, data, item, *cell, terrain, true)
                {
                    return Err(why);
                }
            }
            if file.items.len() >= super::MAX_ITEMS {
                return Err(format!(
                    "a level leaves at most {} items on its cells",
                    super::MAX_ITEMS
                ));
            }
            add_placed_item(&mut out, text, &spans, item, *cell)?;
        }
        Edit::RemoveItem { cell } => {
            let i = file
                .items
                .iter()
                .rposition(|p| p.cell == *cell)
                .ok_or_else(|| format!("no item lies on ({}, {})", cell.0, cell.1))?;
            if file.items.len() == 1 {
                // The last item: the whole field goes, as if never written.
                let span = spans
                    .span(&[Seg::Field("items")])
                    .ok_or("the level's items were not found in the text")?;
                remove_field(&mut out, text, span)?;
            } else {
                let span = spans
                    .span(&[Seg::Field("items"), Seg::Index(i)])
                    .ok_or("the item was not found in the text")?;
                remove_item(&mut out, text, span);
            }
        }
        Edit::RenameUnit { unit, to } => {
            let i = unit_index(unit)?;
            if to.trim().is_empty() {
                return Err("a unit's name cannot be empty".into());
            }
            if file.units.iter().any(|u| &u.name == to && &u.name != unit)
                || super::events::reinforcements(&file).any(|(.., u)| &u.name == to)
            {
                return Err(format!("a unit is already named '{to}'"));
            }
            let span = spans
                .span(&[Seg::Field("units"), Seg::Index(i), Seg::Field("name")])
                .ok_or("the unit's name was not found in the text")?;
            out.replace(span, quote(to));
        }
        Edit::RenameSide { side, to } => {
            let i = side_index(&file, side)?;
            if to.trim().is_empty() {
                return Err("a side's name cannot be empty".into());
            }
            if file.sides.iter().any(|s| &s.name == to && &s.name != side) {
                return Err(format!("a side is already named '{to}'"));
            }
            let at = |path: &[Seg]| spans.span(path).ok_or("a side's name was not found");
            out.replace(
                at(&[Seg::Field("sides"), Seg::Index(i), Seg::Field("name")])?,
                quote(to),
            );
            for (j, u) in file.units.iter().enumerate() {
                if &u.side == side {
                    out.replace(
                        at(&[Seg::Field("units"), Seg::Index(j), Seg::Field("side")])?,
                        quote(to),
                    );
                }
            }
            for (j, v) in file.victory.iter().enumerate() {
                let named = match v {
                    Victory::SurviveRounds { side: s, .. } | Victory::ReachCell { side: s, .. } => {
                        s == side
                    }
                    Victory::LastSideStanding => false,
                };
                if named {
                    out.replace(
                        at(&[Seg::Field("victory"), Seg::Index(j), Seg::Field("side")])?,
                        quote(to),
                    );
                }
            }
            // The level's events that name the side.
            use super::events::{Effect, When};
            use Seg::{Field as F, Index as I};
            for (e, event) in file.events.iter().enumerate() {
                if let When::Enters { side: s, .. } | When::Lost { side: s, .. } = &event.when
                    && s == side
                {
                    out.replace(at(&[F("events"), I(e), F("when"), F("side")])?, quote(to));
                }
                for (f, effect) in event.then.iter().enumerate() {
                    let base = [F("events"), I(e), F("then"), I(f)];
                    let path = |rest: &[Seg]| [&base[..], rest].concat();
                    match effect {
                        Effect::Message(_) => {}
                        Effect::Reinforcements(units) => {
                            for (k, u) in units.iter().enumerate() {
                                if &u.side == side {
                                    out.replace(at(&path(&[I(0), I(k), F("side")]))?, quote(to));
                                }
                            }
                        }
                        Effect::Objectives { side: s, victory } => {
                            if s == side {
                                out.replace(at(&path(&[F("side")]))?, quote(to));
                            }
                            for (v, cond) in victory.iter().enumerate() {
                                if let Victory::SurviveRounds { side: s, .. }
                                | Victory::ReachCell { side: s, .. } = cond
                                    && s == side
                                {
                                    out.replace(
                                        at(&path(&[F("victory"), I(v), F("side")]))?,
                                        quote(to),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        Edit::SetController { side, controller } => {
            let i = side_index(&file, side)?;
            let span = spans
                .span(&[Seg::Field("sides"), Seg::Index(i), Seg::Field("controller")])
                .ok_or("the side's controller was not found in the text")?;
            out.replace(span, format!("{controller:?}"));
        }
        Edit::SetLegend { glyph, terrain } => {
            if glyph.is_control() || *glyph == '"' || *glyph == '\\' {
                return Err(format!("{glyph:?} cannot be a map glyph"));
            }
            set_legend(&mut out, text, &spans, *glyph, terrain.as_ref())?;
        }
        Edit::SetName(name) => set_field(&mut out, text, &spans, "name", &quote(name))?,
        Edit::SetDescription(d) => set_field(&mut out, text, &spans, "description", &quote(d))?,
        Edit::SetSeed(seed) => set_field(&mut out, text, &spans, "seed", &seed.to_string())?,
        Edit::AddVictory(v) => {
            let line = victory_text(v);
            if spans.span(&[Seg::Field("victory")]).is_some() {
                add_item(&mut out, text, &spans, "victory", &line)?;
            } else {
                set_field(&mut out, text, &spans, "victory", &format!("[{line}]"))?;
            }
        }
        Edit::RemoveVictory(i) => {
            if *i >= file.victory.len() {
                return Err(format!(
                    "there is no victory condition {i}; the level has {}",
                    file.victory.len()
                ));
            }
            let span = spans
                .span(&[Seg::Field("victory"), Seg::Index(*i)])
                .ok_or("the victory condition was not found in the text")?;
            remove_item(&mut out, text, span);
        }
        Edit::AddEvent(ev) => script::add_event(&mut out, text, &spans, ev)?,
        Edit::RemoveEvent(i) => script::remove_event(&mut out, text, &spans, &file, *i)?,
        Edit::AddReinforcement { round, unit } => {
            script::add_reinforcement(&mut out, text, &spans, &file, *round, unit)?
        }
        Edit::MoveReinforcement { unit, to } => {
            script::move_reinforcement(&mut out, &spans, &file, unit, *to)?
        }
        Edit::RemoveReinforcement { unit } => {
            script::remove_reinforcement(&mut out, text, &spans, &file, unit)?
        }
    }
    Ok(out.finish())
}

/// Replacements of byte ranges of one text, applied at the end (they must not overlap).
struct Splice<'a> {
    text: &'a str,
    parts: Vec<((usize, usize), String)>,
}

impl<'a> Splice<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            parts: Vec::new(),
        }
    }

    fn replace(&mut self, span: (usize, usize), with: String) {
        self.parts.push((span, with));
    }

    fn finish(mut self) -> String {
        self.parts.sort_by_key(|(span, _)| *span);
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for ((start, end), with) in self.parts {
            if start < at {
                continue; // overlapping: cannot happen for the edits above
            }
            out.push_str(&self.text[at..start]);
            out.push_str(&with);
            at = end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// A RON string literal.
/// The index of the side named `name`, or why not.
fn side_index(file: &LevelFile, name: &str) -> Result<usize, String> {
    file.sides
        .iter()
        .position(|s| s.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = file.sides.iter().map(|s| s.name.as_str()).collect();
            format!(
                "no side is named '{name}'; the sides are: {}",
                names.join(", ")
            )
        })
}

fn quote(s: &str) -> String {
    format!("{s:?}")
}

/// `{"hp": 12, "ap": 3}`.
fn map_text(m: &BTreeMap<String, i64>) -> String {
    let entries: Vec<String> = m
        .iter()
        .map(|(k, v)| format!("{}: {v}", quote(k)))
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// A unit as the level writes it: `(name: "Ann", side: "Blue", cell: (1, 2), template: "x")`,
/// with its overrides if it has any.
fn unit_text(u: &super::UnitDef) -> String {
    let mut line = format!(
        "(name: {}, side: {}, cell: ({}, {}), template: {}",
        quote(&u.name),
        quote(&u.side),
        u.cell.0,
        u.cell.1,
        quote(&u.template)
    );
    if !u.overrides.is_empty() {
        line.push_str(&format!(", overrides: {}", map_text(&u.overrides)));
    }
    if !u.items.is_empty() {
        let items: Vec<String> = u.items.iter().map(|i| quote(i)).collect();
        line.push_str(&format!(", items: [{}]", items.join(", ")));
    }
    line.push(')');
    line
}

fn victory_text(v: &Victory) -> String {
    match v {
        Victory::LastSideStanding => "LastSideStanding".into(),
        Victory::SurviveRounds { side, rounds } => {
            format!("SurviveRounds(side: {}, rounds: {rounds})", quote(side))
        }
        Victory::ReachCell { side, cell } => format!(
            "ReachCell(side: {}, cell: ({}, {}))",
            quote(side),
            cell.0,
            cell.1
        ),
    }
}

/// The glyph as it is written inside a map row's string literal.
fn in_row(glyph: char) -> String {
    match glyph {
        '"' => "\\\"".into(),
        '\\' => "\\\\".into(),
        _ => glyph.to_string(),
    }
}

/// The cells of the straight line between two ends ([`Edit::PaintLine`],
/// [`Edit::SetHeightLine`]): [`crate::rules::grid::Grid::line`] on the map's grid.
fn line(file: &LevelFile, from: (i32, i32), to: (i32, i32)) -> Vec<(i32, i32)> {
    use crate::rules::grid::{Cell, Grid};
    let (w, h) = map_size(file);
    Grid::new(file.topology, w, h)
        .line(Cell::new(from.0, from.1), Cell::new(to.0, to.1))
        .into_iter()
        .map(|c| (c.x, c.y))
        .collect()
}

/// The map's size as its rows give it (the widest row).
fn map_size(file: &LevelFile) -> (u32, u32) {
    (
        file.map
            .iter()
            .map(|r| r.chars().count())
            .max()
            .unwrap_or(0) as u32,
        file.map.len() as u32,
    )
}

/// The cells of `start`'s region ([`Edit::Fill`], [`Edit::FillHeight`]): those reached from
/// it through neighbours with the same `key` (a glyph, a height; `None` off the map), in
/// order of discovery.
fn region<K: PartialEq>(
    file: &LevelFile,
    start: (i32, i32),
    key: impl Fn((i32, i32)) -> Option<K>,
) -> Result<Vec<(i32, i32)>, String> {
    use crate::rules::grid::{Cell, Diagonals, Grid, Topology};
    let glyph_at = key;
    let Some(glyph) = glyph_at(start) else {
        return Err(format!("({}, {}) is off the map", start.0, start.1));
    };
    let (w, h) = map_size(file);
    let topology = match file.topology {
        Topology::Square { .. } => Topology::Square {
            diagonals: Diagonals::Forbidden,
        },
        hex => hex,
    };
    let grid = Grid::new(topology, w, h);
    let mut seen = vec![false; (w as usize) * (h as usize)];
    let index = |(x, y): (i32, i32)| y as usize * w as usize + x as usize;
    seen[index(start)] = true;
    let mut cells = vec![start];
    let mut next = 0;
    while let Some(&c) = cells.get(next) {
        next += 1;
        for n in grid.neighbours(Cell::new(c.0, c.1)) {
            let n = (n.x, n.y);
            if glyph_at(n).as_ref() == Some(&glyph) && !seen[index(n)] {
                seen[index(n)] = true;
                cells.push(n);
            }
        }
    }
    Ok(cells)
}

fn paint(
    out: &mut Splice,
    spans: &Spans,
    file: &LevelFile,
    cells: &[(i32, i32)],
    glyph: char,
) -> Result<(), String> {
    if glyph.is_control() {
        return Err(format!("{glyph:?} cannot be a map glyph"));
    }
    for &(x, y) in cells {
        let row = usize::try_from(y).ok().and_then(|y| file.map.get(y));
        let width = row.map_or(0, |r| r.chars().count());
        let Some(col) = usize::try_from(x).ok().filter(|&x| x < width) else {
            return Err(format!(
                "({x}, {y}) is off the map ({} × {})",
                file.map.first().map_or(0, |r| r.chars().count()),
                file.map.len()
            ));
        };
        let at = spans
            .find(&[Seg::Field("map"), Seg::Index(y as usize)])
            .ok_or("the map row was not found in the text")?;
        let start = char_in_string(out.text, at, col).ok_or("the map cell was not found")?;
        let len =
            super::spans::decode_char(&out.text.as_bytes()[start..]).map_or(1, |(_, used)| used);
        out.replace((start, start + len), in_row(glyph));
    }
    Ok(())
}

/// [`Edit::SetHeight`]: only the rows it changes are rewritten; a level without heights gets
/// the layer after its `map`.
fn set_height(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    file: &LevelFile,
    cells: &[(i32, i32)],
    height: u8,
) -> Result<(), String> {
    if height > 9 {
        return Err(format!("a cell's height is 0 to 9 levels, not {height}"));
    }
    let (w, h) = (
        file.map.first().map_or(0, |r| r.chars().count()) as i32,
        file.map.len() as i32,
    );
    for &(x, y) in cells {
        if x < 0 || y < 0 || x >= w || y >= h {
            return Err(format!("({x}, {y}) is off the map ({w} × {h})"));
        }
    }
    let mut rows: Vec<Vec<char>> = if file.heights.is_empty() {
        vec![vec!['0'; w as usize]; h as usize]
    } else {
        file.heights.iter().map(|r| r.chars().collect()).collect()
    };
    let digit = char::from(b'0' + height);
    // The rows touched, each once, top to bottom.
    let ys: std::collections::BTreeSet<i32> = cells.iter().map(|c| c.1).collect();
    for &(x, y) in cells {
        let Some(row) = rows.get_mut(y as usize) else {
            return Err(format!(
                "heights row {y} is missing; fix `heights` by hand first"
            ));
        };
        match row.get_mut(x as usize) {
            Some(c) => *c = digit,
            None => {
                return Err(format!(
                    "heights row {y} is too short; fix it by hand first"
                ));
            }
        }
    }
    let quoted = |r: &Vec<char>| format!("\"{}\"", r.iter().collect::<String>());
    if file.heights.is_empty() {
        let map = spans
            .span(&[Seg::Field("map")])
            .ok_or("the map was not found in the text")?;
        let indent = format!("{}    ", line_indent(text, map.0));
        let body: Vec<String> = rows
            .iter()
            .map(|r| format!("{indent}{},\n", quoted(r)))
            .collect();
        let close = line_indent(text, map.0);
        append_line(
            out,
            text,
            map,
            &format!("heights: [\n{}{close}]", body.concat()),
        );
    } else {
        for y in ys {
            let span = spans
                .span(&[Seg::Field("heights"), Seg::Index(y as usize)])
                .ok_or("the heights row was not found in the text")?;
            out.replace(span, quoted(&rows[y as usize]));
        }
    }
    Ok(())
}

/// The whitespace the line holding byte `at` starts with.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Whether only whitespace stands before byte `at` on its line.
fn on_own_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at].trim().is_empty()
}

/// After `end`: spaces, then a comma if there is one; returns the offset past it, and whether
/// there was one.
fn past_comma(text: &str, end: usize) -> (usize, bool) {
    let rest = &text[end..];
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[spaces..].starts_with(',') {
        (end + spaces + 1, true)
    } else {
        (end, false)
    }
}

/// Puts `line` on a new line of its own after the value `at..end` (and its comma, and a
/// comment ending its line), indented like it; adds the comma the value lacked.
fn append_line(out: &mut Splice, text: &str, (at, end): (usize, usize), line: &str) {
    let (after, comma) = past_comma(text, end);
    if !comma {
        out.replace((end, end), ",".into());
    }
    let line_end = text[after..].find('\n').map_or(text.len(), |i| after + i);
    let rest = text[after..line_end].trim();
    let pos = if rest.is_empty() || rest.starts_with("//") {
        line_end
    } else {
        after
    };
    out.replace((pos, pos), format!("\n{}{line},", line_indent(text, at)));
}

/// Adds `item` at the end of the list field `field` ([`add_item_at`]).
fn add_item(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    field: &'static str,
    item: &str,
) -> Result<(), String> {
    add_item_at(out, text, spans, &[Seg::Field(field)], item)
}

/// Adds `item` at the end of the list at `path`: on a line of its own after the last item
/// when the items stand one a line, else after the last item on its line.
fn add_item_at(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    path: &[Seg],
    item: &str,
) -> Result<(), String> {
    let list = spans
        .span(path)
        .ok_or_else(|| format!("`{path:?}` was not found in the text"))?;
    let items = spans.children(path).unwrap_or_default();
    match items.last() {
        Some(&span) if on_own_line(text, span.0) => append_line(out, text, span, item),
        Some(&(_, end)) => {
            let (after, comma) = past_comma(text, end);
            let sep = if comma { " " } else { ", " };
            out.replace((after, after), format!("{sep}{item}"));
        }
        None => {
            // `[]` (or `[ ]`): the item goes inside.
            out.replace((list.0 + 1, list.1 - 1), item.to_string());
        }
    }
    Ok(())
}

/// Removes the list item at `at..end` with its comma (its whole line if it stands alone on it).
fn remove_item(out: &mut Splice, text: &str, (at, end): (usize, usize)) {
    let (after, _) = past_comma(text, end);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest_of_line = &text[after..];
    let line_end = rest_of_line
        .find('\n')
        .map_or(text.len(), |i| after + i + 1);
    let trailing = text[after..line_end].trim();
    if on_own_line(text, at) && (trailing.is_empty() || trailing.starts_with("//")) {
        out.replace((line_start, line_end), String::new());
    } else {
        out.replace((at, after), String::new());
    }
}

/// Sets a top-level field's value, or adds the field on a line after `name`.
fn set_field(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    field: &'static str,
    value: &str,
) -> Result<(), String> {
    if let Some(span) = spans.span(&[Seg::Field(field)]) {
        out.replace(span, value.to_string());
        return Ok(());
    }
    let name = spans
        .span(&[Seg::Field("name")])
        .ok_or("the level has no `name` to add the field after")?;
    // The field's span starts at its value; the line starts with `name:`.
    append_line(out, text, name, &format!("{field}: {value}"));
    Ok(())
}

/// A legend entry as a designer writes it: `'w': (name: "deep water", cost: None, sight: Clear)`.
fn legend_entry(glyph: char, t: &crate::rules::map::Terrain) -> String {
    let cost = t.cost.map_or("None".to_string(), |c| format!("Some({c})"));
    let difficult = if t.difficult { ", difficult: true" } else { "" };
    let door = t
        .door
        .map_or(String::new(), |d| format!(", door: Some({d:?})"));
    format!(
        "{glyph:?}: (name: {}, cost: {cost}, sight: {:?}{difficult}{door})",
        quote(&t.name),
        t.sight
    )
}

fn set_legend(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    glyph: char,
    terrain: Option<&crate::rules::map::Terrain>,
) -> Result<(), String> {
    let path = [Seg::Field("legend")];
    let entry_path = [Seg::Field("legend"), Seg::Char(glyph)];
    match (spans.span(&entry_path), terrain) {
        (Some(span), Some(t)) => out.replace(span, legend_entry(glyph, t)),
        (Some((at, end)), None) => {
            let (after, comma) = past_comma(text, end);
            if on_own_line(text, at) {
                // The whole line goes.
                let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let stop = text[after..]
                    .find('\n')
                    .map_or(text.len(), |i| after + i + 1);
                out.replace((start, stop), String::new());
            } else if comma {
                let rest = &text[after..];
                let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
                out.replace((at, after + spaces), String::new());
            } else {
                let before = text[..at].trim_end();
                if before.ends_with(',') {
                    out.replace((before.len() - 1, end), String::new());
                } else {
                    out.replace((at, end), String::new());
                }
            }
        }
        (None, None) => {}
        (None, Some(t)) => {
            let entry = legend_entry(glyph, t);
            match spans.span(&path) {
                Some((start, end)) => {
                    let entries = spans.children(&path).unwrap_or_default();
                    match entries.last() {
                        // One entry a line, as the shipped files write them.
                        Some(&(first, _)) if on_own_line(text, entries[0].0) => {
                            let last = entries.last().map_or(first, |e| e.1);
                            let indent = line_indent(text, entries[0].0);
                            let (after, comma) = past_comma(text, last);
                            if comma {
                                out.replace((after, after), format!("\n{indent}{entry},"));
                            } else {
                                out.replace((last, last), format!(",\n{indent}{entry},"));
                            }
                        }
                        Some(&(_, last)) => {
                            let (after, comma) = past_comma(text, last);
                            let sep = if comma { " " } else { ", " };
                            out.replace((after, after), format!("{sep}{entry}"));
                        }
                        None => out.replace((start, end), format!("{{{entry}}}")),
                    }
                }
                None => set_field(out, text, spans, "legend", &format!("{{{entry}}}"))?,
            }
        }
    }
    Ok(())
}

/// The text of a unit's `, overrides: {...}` field when it stands on one line after another
/// field (the usual `(name: ..., template: "x", overrides: {"hp": 9})`), to remove it whole.
fn override_field(text: &str, spans: &Spans, path: &[Seg]) -> Option<(usize, usize)> {
    let (start, end) = spans.span(path)?;
    let key = text[..start].trim_end().strip_suffix(':')?.trim_end();
    let key = key.strip_suffix("overrides")?;
    let before = key.trim_end();
    let comma = before.strip_suffix(',')?;
    if text[comma.len()..start].contains('\n') {
        return None;
    }
    Some((comma.len(), end))
}

fn set_override(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    unit: usize,
    stat: &str,
    value: Option<i64>,
) -> Result<(), String> {
    let unit_path = [Seg::Field("units"), Seg::Index(unit)];
    let mut path = unit_path.to_vec();
    path.push(Seg::Field("overrides"));
    let entry_path = {
        let mut p = path.clone();
        p.push(Seg::Str(stat.to_string()));
        p
    };
    match (spans.span(&entry_path), value) {
        (Some(span), Some(v)) => out.replace(span, format!("{}: {v}", quote(stat))),
        (Some((at, end)), None) => {
            let (after, comma) = past_comma(text, end);
            let before = text[..at].trim_end();
            if comma {
                // "a, b" -> "b": the entry, its comma and the spaces after it.
                let rest = &text[after..];
                let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
                out.replace((at, after + spaces), String::new());
            } else if before.ends_with(',') {
                // "a, b" -> "a": the last entry goes with the comma before it.
                out.replace((before.len() - 1, end), String::new());
            } else if let Some(field) = override_field(text, spans, &path) {
                // The only entry: the whole `, overrides: {...}` goes, as if never written.
                out.replace(field, String::new());
            } else {
                out.replace((at, end), String::new());
            }
        }
        (None, None) => {}
        (None, Some(v)) => {
            let entry = format!("{}: {v}", quote(stat));
            if let Some((start, end)) = spans.span(&path) {
                let entries = spans.children(&path).unwrap_or_default();
                match entries.last() {
                    Some(&(_, last)) => {
                        let (after, comma) = past_comma(text, last);
                        let sep = if comma { " " } else { ", " };
                        out.replace((after, after), format!("{sep}{entry}"));
                    }
                    None => out.replace((start, end), format!("{{{entry}}}")),
                }
            } else {
                let (_, end) = spans
                    .span(&unit_path)
                    .ok_or("the unit was not found in the text")?;
                // Before the unit's closing `)`, after its last field.
                let close = end - 1;
                let before = text[..close].trim_end();
                let sep = if before.ends_with(',') { " " } else { ", " };
                out.replace(
                    (before.len(), before.len()),
                    format!("{sep}overrides: {{{entry}}}"),
                );
            }
        }
    }
    Ok(())
}

/// Refuses items the level's ruleset does not have (all of them, in a ruleset without
/// items) and, for a unit to carry (`carried`), heavy objects.
fn check_items<'a>(
    file: &LevelFile,
    keys: impl IntoIterator<Item = &'a String>,
    carried: bool,
) -> Result<(), String> {
    use crate::rules::ruleset_data::{ItemKind, builtin};
    let Some(data) = builtin(file.ruleset) else {
        return Ok(());
    };
    for key in keys {
        if data.items.is_empty() {
            return Err(format!(
                "the '{}' ruleset has no items (only sides, phases and alternating do)",
                file.ruleset
            ));
        }
        match data.items.get(key) {
            None => {
                return Err(format!(
                    "there is no item '{key}' in the '{}' ruleset; its items are {}",
                    file.ruleset,
                    super::quoted_list(data.items.keys().map(String::as_str))
                ));
            }
            Some(d) if carried && d.kind == ItemKind::Heavy => {
                return Err(format!(
                    "a unit cannot carry the {}: it is a heavy object; leave it on a cell",
                    d.name
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// [`Edit::SetItems`]: the unit's `items` list replaced, added before its closing `)` or
/// removed with its name.
fn set_items(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    unit: usize,
    items: &[String],
) -> Result<(), String> {
    let unit_path = [Seg::Field("units"), Seg::Index(unit)];
    let path = [Seg::Field("units"), Seg::Index(unit), Seg::Field("items")];
    let list = format!(
        "[{}]",
        items
            .iter()
            .map(|i| quote(i))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match (spans.span(&path), items.is_empty()) {
        (Some(span), false) => out.replace(span, list),
        (Some(span), true) => remove_field(out, text, span)?,
        (None, true) => {}
        (None, false) => {
            let (_, end) = spans
                .span(&unit_path)
                .ok_or("the unit was not found in the text")?;
            // Before the unit's closing `)`, after its last field.
            let before = text[..end - 1].trim_end();
            let sep = if before.ends_with(',') { " " } else { ", " };
            out.replace((before.len(), before.len()), format!("{sep}items: {list}"));
        }
    }
    Ok(())
}

/// [`Edit::AddItem`]: a line at the end of the level's `items`, or the field written after
/// `units` (one item a line, as the shipped levels write it).
fn add_placed_item(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    item: &str,
    (x, y): (i32, i32),
) -> Result<(), String> {
    let line = format!("(item: {}, cell: ({x}, {y}))", quote(item));
    if spans.span(&[Seg::Field("items")]).is_some() {
        return add_item(out, text, spans, "items", &line);
    }
    match spans.span(&[Seg::Field("units")]) {
        Some(units) => {
            let indent = line_indent(text, units.0);
            append_line(
                out,
                text,
                units,
                &format!("items: [\n{indent}    {line},\n{indent}]"),
            );
            Ok(())
        }
        None => set_field(out, text, spans, "items", &format!("[{line}]")),
    }
}

/// Removes the field whose value is `at..end` with its name: its own line(s) when it starts
/// a line, else `, name: value` after another field (or `name: value, ` before one).
fn remove_field(out: &mut Splice, text: &str, (at, end): (usize, usize)) -> Result<(), String> {
    let key_end = text[..at]
        .trim_end()
        .strip_suffix(':')
        .map(str::trim_end)
        .ok_or("the field's name was not found in the text")?;
    let key_start = key_end
        .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
        .len();
    let before = text[..key_start].trim_end();
    if on_own_line(text, key_start) {
        remove_item(out, text, (key_start, end));
    } else if let Some(comma) = before.strip_suffix(',') {
        out.replace((comma.len(), end), String::new());
    } else {
        let (after, _) = past_comma(text, end);
        let rest = &text[after..];
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        out.replace((key_start, after + spaces), String::new());
    }
    Ok(())
}

/// The cell a problem at `line`:`col` (1-based, as diagnostics give them) is about: the
/// map cell under it, or the starting cell of the unit whose entry holds it. `None` for
/// anything else (a side, the legend, the name). The level editor marks that cell when the
/// problem is clicked.
pub fn locate(text: &str, line: usize, col: usize) -> Option<(i32, i32)> {
    let at = byte_at(text, line, col)?;
    let spans = Spans::index(text);
    let within = |path: &[Seg]| spans.span(path).is_some_and(|(a, b)| a <= at && at < b);
    let rows = spans.children(&[Seg::Field("map")]).unwrap_or_default();
    for (y, &(start, end)) in rows.iter().enumerate() {
        if start <= at && at < end {
            // Inside the quotes: the glyph's index in the row (the quote itself: the first).
            let x = text
                .get(start..at)
                .map_or(0, |s| s.chars().count().saturating_sub(1));
            let width = super::ron_options()
                .from_str::<LevelFile>(text)
                .ok()
                .and_then(|f| f.map.get(y).map(|r| r.chars().count()))
                .unwrap_or(0);
            return Some((x.min(width.saturating_sub(1)) as i32, y as i32));
        }
    }
    let units = spans.children(&[Seg::Field("units")]).unwrap_or_default();
    let index = (0..units.len()).find(|&i| within(&[Seg::Field("units"), Seg::Index(i)]))?;
    let file: LevelFile = super::ron_options().from_str(text).ok()?;
    file.units.get(index).map(|u| u.cell)
}

/// The byte offset of 1-based `line`:`col` (columns count characters).
fn byte_at(text: &str, line: usize, col: usize) -> Option<usize> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    let row = text.get(start..)?.split('\n').next()?;
    let offset = row
        .char_indices()
        .nth(col.checked_sub(1)?)
        .map_or(row.len(), |(i, _)| i);
    Some(start + offset)
}

/// The text of a new level, written as a designer would: a `width` x `height` field of
/// floor on `topology`, two sides (Blue, played by a human, and Red, by the AI) with one unit
/// each of the ruleset's first template, facing each other across the middle row, and the
/// last side standing winning. `ruleset` must allow `topology` (the validator says so if not).
///
/// ```
/// use fray::rules::grid::{Diagonals, Topology};
/// use fray::rules::level::edit::blank;
/// use fray::rules::ruleset_data::builtin;
/// use fray::rules::rulesets::RulesetId;
/// let sides = builtin(RulesetId::Sides).unwrap();
/// let text = blank(sides, Topology::Square { diagonals: Diagonals::One }, (12, 8));
/// let level = fray::rules::level::load("new.ron", &text).unwrap();
/// assert_eq!(level.file.map.len(), 8);
/// assert_eq!(level.file.units.len(), 2);
/// ```
pub fn blank(
    ruleset: &crate::rules::ruleset_data::RulesetData,
    topology: crate::rules::grid::Topology,
    size: (u32, u32),
) -> String {
    use crate::rules::grid::{Diagonals, HexOrientation, Topology};
    let (w, h) = (size.0.max(2), size.1.max(1));
    let topology = match topology {
        Topology::Square { diagonals } => format!(
            "Square(diagonals: {})",
            match diagonals {
                Diagonals::One => "One",
                Diagonals::OneTwo => "OneTwo",
                Diagonals::Forbidden => "Forbidden",
            }
        ),
        Topology::Hex { orientation } => format!(
            "Hex(orientation: {})",
            match orientation {
                HexOrientation::Pointy => "Pointy",
                HexOrientation::Flat => "Flat",
            }
        ),
    };
    let template = ruleset.templates.keys().next().cloned().unwrap_or_default();
    let row = format!("        \"{}\",\n", ".".repeat(w as usize));
    let (mid, left, right) = (h / 2, w.min(2) - 1, w - w.min(2));
    format!(
        "// A new `{id}` level made in Fray's level editor.\n\
         (\n    name: \"New level\",\n    description: \"\",\n    ruleset: \"{id}\",\n    \
         topology: {topology},\n    size: ({w}, {h}),\n    map: [\n{rows}    ],\n    \
         sides: [\n        (name: \"Blue\", controller: Human),\n        \
         (name: \"Red\", controller: Ai),\n    ],\n    units: [\n        \
         (name: \"Blue 1\", side: \"Blue\", cell: ({left}, {mid}), template: \"{template}\"),\n        \
         (name: \"Red 1\", side: \"Red\", cell: ({right}, {mid}), template: \"{template}\"),\n    \
         ],\n    victory: [LastSideStanding],\n    seed: 1,\n)\n",
        id = ruleset.id,
        rows = row.repeat(h as usize),
    )
}

/// A name for a new unit that no unit of the level has (placed or arriving later): `base` (trimmed; "Unit" if empty) and
/// the first free number from `first`, "Hammer Brute 1", "Hammer Brute 2"... The level
/// editor names new units after their template's name, and copies after the copied unit.
///
/// ```
/// use fray::rules::level::edit::free_unit_name;
/// let text = r#"(name: "N", ruleset: "sides", topology: Square(diagonals: One), size: (2, 1),
///     map: [".."], sides: [(name: "A", controller: Human)],
///     units: [(name: "Hammer Brute 1", side: "A", cell: (0, 0), template: "brute")])"#;
/// let file = fray::rules::level::ron_options().from_str(text).unwrap();
/// assert_eq!(free_unit_name(&file, "Hammer Brute", 1), "Hammer Brute 2");
/// assert_eq!(free_unit_name(&file, " ", 1), "Unit 1");
/// ```
pub fn free_unit_name(file: &LevelFile, base: &str, first: u32) -> String {
    let base = match base.trim() {
        "" => "Unit",
        b => b,
    };
    (first
        ..=first.saturating_add(
            file.units.len() as u32 + super::events::reinforcements(file).count() as u32 + 1,
        ))
        .map(|n| format!("{base} {n}"))
        .find(|n| {
            file.units.iter().all(|u| &u.name != n)
                && super::events::reinforcements(file).all(|(.., u)| &u.name != n)
        })
        .unwrap_or_else(|| format!("{base} new"))
}

mod resize;
mod script;

#[cfg(test)]
mod tests;
