//! Levels: the RON schema designers write in `levels/*.ron`, loading and validation.
//!
//! - [`validate`] reports every problem of a level text at once, each as a [`Diagnostic`]
//!   with the 1-based line and column of the offending text (`file:line:col: error: ...`).
//! - [`load`], [`load_bytes`] and [`load_path`] give a ready [`Level`] (grid, terrain, ruleset)
//!   or those diagnostics.
//! - [`check`] runs the same semantic checks on an in-memory [`LevelFile`] (the editor), with
//!   each [`Problem`] located by a [`ValuePath`] instead of a line and column.
//!
//! None of these ever panics, whatever the input: syntax errors come from `ron` with its span,
//! semantic errors are placed by a small span indexer (`spans`) that records where each value
//! of the already-parsed text starts.

pub mod edit;
pub mod events;
mod items;
mod spans;
mod tasks;
#[cfg(test)]
mod tests;

pub use events::{Area, Effect, LevelEvent, When};
pub use items::{MAX_CARRIED, MAX_ITEMS};
pub use spans::Seg;
pub use tasks::{MAX_TASK_DIFFICULTY, MAX_TASKS, Task, TaskEffect};

use crate::rules::grid::{Cell, Grid, Topology};
use crate::rules::map::{Door, Terrain, TerrainMap, kinds};
use crate::rules::ruleset_data::{self, RulesetData, Template};
use crate::rules::rulesets::RulesetId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A level file exactly as written in RON. See `levels/README.md` for every field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Ruleset id: `phases`, `sides`, `segments`, `alternating` or `action-points` (an
    /// unknown id is an error at its line and column).
    pub ruleset: RulesetId,
    pub topology: Topology,
    /// `(width, height)` in cells; must match `map`.
    pub size: (u32, u32),
    /// Glyph → terrain, merged over the standard legend (a glyph here replaces the standard one).
    #[serde(default)]
    pub legend: BTreeMap<char, Terrain>,
    /// One string per row, one glyph per cell, top row first.
    pub map: Vec<String>,
    /// The ground's height of each cell in levels (a level is as high as a cell is wide): one
    /// string per row, one digit `0`-`9` per cell, like `map`. Left out: the map is flat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heights: Vec<String>,
    pub sides: Vec<SideDef>,
    pub units: Vec<UnitDef>,
    /// Any one condition met ends the battle. Empty means `[LastSideStanding]`.
    #[serde(default)]
    pub victory: Vec<Victory>,
    /// Default battle seed (the command line or the setup screen may override it).
    #[serde(default)]
    pub seed: u64,
    /// How the battle starts: surprise, who started it, ruleset options.
    #[serde(default)]
    pub options: Options,
    /// Tasks a unit may carry out during the battle (`alternating`: Short Task, A-62).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<Task>,
    /// Scripted events: when something happens (a round begins, a side enters an area, a side
    /// has lost units), reinforcements arrive, a message is shown, objectives change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<LevelEvent>,
    /// Items lying on cells when the battle starts, to be picked up (or, heavy ones, shifted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<PlacedItem>,
}

impl LevelFile {
    /// The ground's height of a cell as its `heights` row writes it, in levels: 0 off the
    /// map, on a flat map (no `heights`), or where the layer is short or not a digit (the
    /// validator reports those). The one reading of the layer outside the battle's map (the
    /// level editor shades and labels cells with it).
    ///
    /// ```
    /// let text = r#"(name: "H", ruleset: "sides", topology: Square(diagonals: One), size: (3, 1),
    ///     map: ["..."], heights: ["012"], sides: [], units: [])"#;
    /// let file: fray::rules::level::LevelFile = fray::rules::level::ron_options().from_str(text).unwrap();
    /// assert_eq!((file.height_at((2, 0)), file.height_at((3, 0)), file.max_height()), (2, 0, 2));
    /// ```
    pub fn height_at(&self, (x, y): (i32, i32)) -> u8 {
        let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
            return 0;
        };
        self.heights
            .get(y)
            .and_then(|r| r.chars().nth(x))
            .and_then(|c| c.to_digit(10))
            .map_or(0, |d| d as u8)
    }

    /// The highest ground of the `heights` layer (0 on a flat map).
    pub fn max_height(&self) -> u8 {
        self.heights
            .iter()
            .flat_map(|r| r.chars().filter_map(|c| c.to_digit(10)))
            .max()
            .map_or(0, |d| d as u8)
    }
}

/// How a battle starts, and the options a ruleset offers. Every field may be left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Sides or units (by name) caught unaware when the battle starts. What that means is the
    /// ruleset's: a Surprise Phase (`phases`), a free round for their foes (`sides`,
    /// `alternating`), reactions only until their first turn (`action-points`). Not allowed in
    /// `segments`, where every side rolls for surprise: there "surprises on 1-3" is a trait of
    /// the creature that does the surprising, its `surprises_on` stat.
    pub surprised: Vec<String>,
    /// The side whose member started the fight: it takes the first pick in `alternating`.
    /// Default: the first side.
    pub instigator: Option<String>,
    /// The Party in `sides`: it adds its highest DEX to initiative and wins ties.
    /// Default: the first side.
    pub party: Option<String>,
    /// Sides (by name) that were alerted and make no surprise roll (`segments`).
    pub alerted: Vec<String>,
    /// `action-points`: when Action Points refresh.
    pub ap_refresh: ApRefresh,
    /// `sides`: execution attacks (S-164..S-175). Each assassin spent the minute before the
    /// battle stalking its target unseen, so it may execute it in the surprise round; the
    /// target must start surprised (`surprised` names it or its side).
    pub executions: Vec<Execution>,
    /// Fog of war: each side sees only what its units see ([`crate::rules::fog`]), as far as
    /// `sight` steps if set (`fog: (sight: 5)`; `fog: ()` for no limit). Left out: everyone
    /// sees everything.
    pub fog: Option<crate::rules::fog::Fog>,
}

/// An assassin and the target it has been stalking (see [`Options::executions`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Execution {
    pub assassin: String,
    pub target: String,
}

/// When Action Points refresh in `action-points`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApRefresh {
    /// At the start of every round (the seed's standard rule).
    #[default]
    Round,
    /// At the start of the unit's own turn (the seed's optional rule).
    Turn,
}

/// Who plays a side by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Controller {
    Human,
    Ai,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideDef {
    pub name: String,
    pub controller: Controller,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitDef {
    pub name: String,
    /// The name of one of the level's sides.
    pub side: String,
    /// `(x, y)`: column and row in `map`, from 0 at the top left.
    pub cell: (i32, i32),
    /// A template from `assets/rulesets/<ruleset>.ron`.
    pub template: String,
    /// Stat overrides on top of the template (`{"hp": 12}`).
    #[serde(default)]
    pub overrides: BTreeMap<String, i64>,
    /// Items the unit carries (keys of the ruleset's `items`), held while its hands allow,
    /// in order, the rest at the belt. Left out: its template's `items`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

/// An item a level leaves lying on a cell (see `levels/README.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedItem {
    /// A key of the ruleset's `items`.
    pub item: String,
    /// `(x, y)`: the cell it lies on.
    pub cell: (i32, i32),
}

/// How a battle can be won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Victory {
    /// The last side with a unit able to fight wins.
    LastSideStanding,
    /// `side` wins if it still has a unit able to fight after `rounds` rounds.
    SurviveRounds { side: String, rounds: u32 },
    /// `side` wins as soon as one of its units stands on `cell`.
    ReachCell { side: String, cell: (i32, i32) },
}

// ---------------------------------------------------------------------------------------------
// The standard legend

/// The standard legend every level starts from (a level's own `legend` adds glyphs or replaces
/// these). Documented in `levels/README.md`; a test keeps the two in step.
pub fn standard_legend() -> Vec<(char, Terrain)> {
    vec![
        ('.', kinds::floor()),
        (',', kinds::rough()),
        ('#', kinds::wall()),
        ('O', kinds::pillar()),
        ('+', kinds::slit()),
        ('~', kinds::water()),
        ('T', kinds::trees()),
        (':', kinds::rubble()),
        ('D', kinds::door_closed()),
        ('d', kinds::door_open()),
        ('L', kinds::door_locked()),
    ]
}

/// The standard legend with the level's entries merged over it: standard glyphs first (in
/// [`standard_legend`] order, replaced where the level redefines them), then the level's new
/// glyphs in char order. A terrain kind's index in a [`Level`]'s map is its place here.
pub fn merged_legend(level_legend: &BTreeMap<char, Terrain>) -> Vec<(char, Terrain)> {
    let mut out = standard_legend();
    for (&glyph, terrain) in level_legend {
        match out.iter_mut().find(|(g, _)| *g == glyph) {
            Some(slot) => slot.1 = terrain.clone(),
            None => out.push((glyph, terrain.clone())),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Diagnostics and problems

/// One problem of a level file, at a 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// Where in a level a [`Problem`] is: a path of fields, indices and keys (`units[2].cell`),
/// and for map rows optionally the index of a glyph in the row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValuePath {
    pub segs: Vec<Seg>,
    /// The glyph's index (in characters) inside the string the path names.
    pub glyph: Option<usize>,
}

impl ValuePath {
    fn new(segs: Vec<Seg>) -> Self {
        Self { segs, glyph: None }
    }
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.segs.iter().enumerate() {
            match seg {
                Seg::Field(name) if i == 0 => write!(f, "{name}")?,
                Seg::Field(name) => write!(f, ".{name}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Char(c) => write!(f, "[{c:?}]")?,
                Seg::Str(s) => write!(f, "[{s:?}]")?,
            }
        }
        if let Some(g) = self.glyph {
            write!(f, "[{g}]")?;
        }
        Ok(())
    }
}

/// A semantic problem of a parsed level, located by value path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: ValuePath,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// At most this many problems are reported one by one; the rest are counted in a last one.
pub const MAX_PROBLEMS: usize = 200;

/// The most a cell may cost to enter: far above what any rule needs, and small enough that a
/// movement search's costs stay small numbers.
pub const MAX_TERRAIN_COST: u32 = 100;
/// The largest map side, in cells.
pub const MAX_MAP_SIDE: u32 = 256;
/// The most sides a level may have.
pub const MAX_SIDES: usize = 16;
/// The most units a level may have.
pub const MAX_UNITS: usize = 256;
/// The largest stat a unit may be given (in size: `-MAX_STAT..=MAX_STAT`). Dice counts and
/// die sizes have the smaller bounds of [`crate::rules::dice`].
pub const MAX_STAT: i64 = 10_000;

/// How deeply `ron` may nest while parsing a level (a valid level needs about 5).
const RON_RECURSION_LIMIT: usize = 32;

/// Level files larger than this are refused unread (a real level is a few kilobytes).
pub const MAX_LEVEL_BYTES: usize = 16 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The loaded level

/// A valid level, ready to play: the file as written, its grid, its terrain and its ruleset.
#[derive(Clone, Debug)]
pub struct Level {
    pub file: LevelFile,
    pub grid: Grid,
    pub terrain: TerrainMap,
    pub ruleset: &'static RulesetData,
}

impl Level {
    /// Checks a parsed level ([`check`]) and builds it.
    pub fn from_file(file: LevelFile) -> Result<Level, Vec<Problem>> {
        let problems = check(&file);
        if !problems.is_empty() {
            return Err(problems);
        }
        build(file).ok_or_else(|| {
            vec![Problem {
                path: ValuePath::default(),
                message: "the level could not be built".to_string(),
            }]
        })
    }

    pub fn name(&self) -> &str {
        &self.file.name
    }

    /// The cell unit `unit` starts on.
    pub fn unit_cell(&self, unit: usize) -> Option<Cell> {
        self.file
            .units
            .get(unit)
            .map(|u| Cell::new(u.cell.0, u.cell.1))
    }

    /// Every unit's starting cell, in unit order.
    pub fn unit_cells(&self) -> Vec<Cell> {
        self.file
            .units
            .iter()
            .map(|u| Cell::new(u.cell.0, u.cell.1))
            .collect()
    }

    /// The index in `file.sides` of a side name.
    pub fn side_index(&self, name: &str) -> Option<usize> {
        self.file.sides.iter().position(|s| s.name == name)
    }

    /// The side index of unit `unit`.
    pub fn unit_side(&self, unit: usize) -> Option<usize> {
        self.file
            .units
            .get(unit)
            .and_then(|u| self.side_index(&u.side))
    }

    /// The side index of every unit, in unit order (always valid in a loaded level).
    pub fn unit_sides(&self) -> Vec<usize> {
        (0..self.file.units.len())
            .map(|u| self.unit_side(u).unwrap_or(0))
            .collect()
    }

    /// The units of a side, in unit order.
    pub fn units_of_side(&self, side: usize) -> Vec<usize> {
        (0..self.file.units.len())
            .filter(|&u| self.unit_side(u) == Some(side))
            .collect()
    }

    /// The template unit `unit` is made from.
    pub fn template(&self, unit: usize) -> Option<&'static Template> {
        let u = self.file.units.get(unit)?;
        self.ruleset.templates.get(&u.template)
    }

    /// A unit's stats: its template's with the unit's overrides applied.
    pub fn unit_stats(&self, unit: usize) -> Option<BTreeMap<String, i64>> {
        let mut stats = self.template(unit)?.stats.clone();
        let u = self.file.units.get(unit)?;
        stats.extend(u.overrides.iter().map(|(k, v)| (k.clone(), *v)));
        Some(stats)
    }

    /// The victory conditions, with the empty list meaning `[LastSideStanding]`.
    pub fn victory(&self) -> Vec<Victory> {
        if self.file.victory.is_empty() {
            vec![Victory::LastSideStanding]
        } else {
            self.file.victory.clone()
        }
    }
}

/// Builds a checked level. `None` only if the checks missed something (never panics).
fn build(file: LevelFile) -> Option<Level> {
    let ruleset = ruleset_data::builtin(file.ruleset)?;
    let (width, height) = file.size;
    let grid = Grid::new(file.topology, width, height);
    let legend = merged_legend(&file.legend);
    let index: BTreeMap<char, u16> = legend
        .iter()
        .enumerate()
        .map(|(i, (g, _))| Some((*g, u16::try_from(i).ok()?)))
        .collect::<Option<_>>()?;
    let mut cells = Vec::with_capacity(grid.len());
    for row in &file.map {
        for glyph in row.chars() {
            cells.push(*index.get(&glyph)?);
        }
    }
    let kinds = legend.into_iter().map(|(_, t)| t).collect();
    let mut terrain = TerrainMap::new(grid, kinds, cells)?;
    if !file.heights.is_empty() {
        let heights = file
            .heights
            .iter()
            .flat_map(|row| row.chars().map(|c| c.to_digit(10).map(|d| d as u8)))
            .collect::<Option<Vec<u8>>>()?;
        terrain = terrain.with_heights(heights)?;
    }
    Some(Level {
        file,
        grid,
        terrain,
        ruleset,
    })
}

// ---------------------------------------------------------------------------------------------
// Loading

/// Checks a level text and returns every problem, in file order. Empty means valid.
pub fn validate(file_name: &str, source: &str) -> Vec<Diagnostic> {
    match load(file_name, source) {
        Ok(_) => vec![],
        Err(diagnostics) => diagnostics,
    }
}

/// `text` with each "\r" that is not followed by "\n" made a "\n" (the same length).
fn lone_cr_to_lf(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(if c == '\r' && chars.peek() != Some(&'\n') {
            '\n'
        } else {
            c
        });
    }
    out
}

/// Parses, checks and builds a level from its text.
pub fn load(file_name: &str, source: &str) -> Result<Level, Vec<Diagnostic>> {
    let diag = |line, col, message: String| Diagnostic {
        file: file_name.to_string(),
        line,
        col,
        message,
    };
    if source.len() > MAX_LEVEL_BYTES {
        return Err(vec![diag(1, 1, too_big(source.len()))]);
    }
    // A byte-order mark is invisible in editors; columns are counted after it.
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    // Old Mac files end lines with a lone "\r", which `ron` does not take for a line end (a
    // `//` comment would run to the end of the file). "\r" to "\n" keeps every byte offset.
    let unix;
    let source = if source.contains('\r') {
        unix = lone_cr_to_lf(source);
        unix.as_str()
    } else {
        source
    };
    if source.trim().is_empty() {
        return Err(vec![diag(
            1,
            1,
            "the file is empty; a level is a RON struct `( name: ..., ruleset: ..., ... )`"
                .to_string(),
        )]);
    }
    let options = ron_options();
    let file: LevelFile = match options.from_str(source) {
        Ok(file) => file,
        Err(e) => {
            // ron's start may sit on the whitespace before the offending token.
            let at = spans::offset_of(source, e.span.start.line, e.span.start.col);
            let mut at = spans::next_token(source, at);
            // A value's own check (an unknown ruleset id) is reported inside its string:
            // point at the string's opening quote, as the other checks do.
            if matches!(e.code, ron::Error::Message(_))
                && at > 0
                && source.as_bytes()[at - 1] == b'"'
            {
                at -= 1;
            }
            let (line, col) = spans::line_cols(source, &[at])[0];
            return Err(vec![diag(line, col, ron_message(&e.code))]);
        }
    };
    let index = spans::Spans::index(source);
    let repeats = repeated_keys(&file, &index);
    let problems = check(&file);
    if problems.is_empty() && repeats.is_empty() {
        return build(file).ok_or_else(|| vec![diag(1, 1, "the level could not be built".into())]);
    }
    let mut offsets: Vec<usize> = problems
        .iter()
        .map(|p| {
            let at = index.locate(&p.path.segs);
            match (p.path.glyph, index.find(&p.path.segs)) {
                (Some(g), Some(string)) => spans::char_in_string(source, string, g).unwrap_or(at),
                _ => at,
            }
        })
        .collect();
    offsets.extend(repeats.iter().map(|(at, _)| *at));
    let positions = spans::line_cols(source, &offsets);
    // "N more problems are not shown" has no place in the file: it stays last.
    let (mut out, mut trailer) = (Vec::new(), Vec::new());
    let messages = problems
        .into_iter()
        .map(|p| (p.path.segs.is_empty(), p.message))
        .chain(repeats.into_iter().map(|(_, m)| (false, m)));
    for ((last, message), (line, col)) in messages.zip(positions) {
        let d = diag(line, col, message);
        if last {
            trailer.push(d);
        } else {
            out.push(d);
        }
    }
    out.sort_by_key(|d| (d.line, d.col));
    out.extend(trailer);
    Err(out)
}

/// Map keys written twice (a legend glyph, a unit's overridden stat): `ron` keeps the last one
/// silently, so each repeat is a problem at the repeated key.
fn repeated_keys(file: &LevelFile, index: &spans::Spans) -> Vec<(usize, String)> {
    use Seg::{Field as F, Index as I};
    let mut out: Vec<(usize, String)> = index
        .repeated_keys(&[F("legend")])
        .into_iter()
        .map(|(key, at)| {
            (
                at,
                format!("legend glyph {key} is given twice; give each glyph once"),
            )
        })
        .collect();
    for (i, unit) in file.units.iter().enumerate() {
        let path = [F("units"), I(i), F("overrides")];
        for (key, at) in index.repeated_keys(&path) {
            out.push((
                at,
                format!(
                    "unit '{}' overrides {key} twice; give each stat once",
                    unit.name
                ),
            ));
        }
    }
    out
}

/// The RON settings levels (and the scenarios and replays that inline them) are read with. A
/// level nests a handful of levels deep, so a low recursion limit keeps the parser's stack
/// small; `implicit_some` lets optional fields be written plainly (`party: "Company"`).
pub fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_recursion_limit(RON_RECURSION_LIMIT)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Like [`load`], from raw bytes: invalid UTF-8 is a diagnostic at the first bad byte.
pub fn load_bytes(file_name: &str, bytes: &[u8]) -> Result<Level, Vec<Diagnostic>> {
    if bytes.len() > MAX_LEVEL_BYTES {
        return Err(vec![Diagnostic {
            file: file_name.to_string(),
            line: 1,
            col: 1,
            message: too_big(bytes.len()),
        }]);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => load(file_name, text),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // The prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(good).unwrap_or("");
            let (line, col) = spans::line_cols(prefix, &[prefix.len()])[0];
            let bad = bytes.get(e.valid_up_to()).copied().unwrap_or(0);
            Err(vec![Diagnostic {
                file: file_name.to_string(),
                line,
                col,
                message: format!(
                    "the file is not UTF-8 text (byte 0x{bad:02X} here); save it as UTF-8"
                ),
            }])
        }
    }
}

/// The folder holding the designer levels: `./levels` when run from the repository (as
/// `cargo run` does), else the one next to the package manifest this binary was built from.
pub fn levels_dir() -> PathBuf {
    let here = Path::new("levels");
    if here.is_dir() {
        return here.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("levels")
}

/// Reads and loads a level file. An unreadable file is a diagnostic at 1:1.
pub fn load_path(path: &Path) -> Result<Level, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let at_start = |message: String| {
        vec![Diagnostic {
            file: name.clone(),
            line: 1,
            col: 1,
            message,
        }]
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(at_start("this is a directory, not a level file".into()));
        }
        // A FIFO or a device could block the read forever.
        Ok(meta) if !meta.is_file() => {
            return Err(at_start(
                "this is not a regular file (a pipe or a device?), not a level file".into(),
            ));
        }
        Ok(meta) if meta.len() > MAX_LEVEL_BYTES as u64 => {
            return Err(at_start(too_big(
                usize::try_from(meta.len()).unwrap_or(usize::MAX),
            )));
        }
        _ => {}
    }
    // Read at most one byte more than allowed: a device or a growing file cannot hang us.
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| {
        use std::io::Read;
        file.take(MAX_LEVEL_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => load_bytes(&name, &bytes),
        Err(e) => Err(at_start(format!("cannot read the file: {e}"))),
    }
}

fn too_big(len: usize) -> String {
    format!("the file is {len} bytes; a level file may be at most {MAX_LEVEL_BYTES} bytes")
}

/// A designer-facing message for a RON parse error.
fn ron_message(code: &ron::Error) -> String {
    use ron::Error as E;
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match code {
        E::NoSuchStructField {
            expected,
            found,
            outer,
        } => format!(
            "unknown field `{found}` in {}; the fields are: {}",
            describe_outer(outer.as_deref()),
            list(expected)
        ),
        E::MissingStructField { field, outer } => format!(
            "{} is missing the field `{field}`",
            capitalize(&describe_outer(outer.as_deref()))
        ),
        E::DuplicateStructField { field, outer } => format!(
            "the field `{field}` appears twice in {}",
            describe_outer(outer.as_deref())
        ),
        E::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => format!(
            "unknown {} `{found}`; expected one of: {}",
            describe_enum(outer.as_deref()),
            list(expected)
        ),
        E::InvalidValueForType { expected, found } => {
            format!("expected {expected} but found {found}")
        }
        E::Eof => {
            "the file ends too early: a bracket, parenthesis or quote is not closed".to_string()
        }
        E::ExpectedComma => "expected a comma `,` between two entries".to_string(),
        E::TrailingCharacters => {
            "unexpected text after the end of the level's closing `)`".to_string()
        }
        E::IntegerOutOfBounds => {
            "this number is out of range here (negative, or too large)".to_string()
        }
        E::ExceededRecursionLimit => "brackets are nested too deeply".to_string(),
        other => {
            let text = other.to_string();
            let mut chars = text.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => "syntax error".to_string(),
            }
        }
    }
}

/// Plain words for the Rust type names `ron` reports.
fn describe_outer(outer: Option<&str>) -> String {
    match outer {
        Some("LevelFile") | None => "the level".to_string(),
        Some("SideDef") => "a side".to_string(),
        Some("UnitDef") => "a unit".to_string(),
        Some("Terrain") => "a legend entry".to_string(),
        Some("LevelEvent") => "an event".to_string(),
        Some("Square" | "Hex") => "the topology".to_string(),
        Some(other) => format!("`{other}`"),
    }
}

fn describe_enum(outer: Option<&str>) -> &'static str {
    match outer {
        Some("Topology") => "topology",
        Some("Diagonals") => "diagonal rule",
        Some("HexOrientation") => "hex orientation",
        Some("Controller") => "controller",
        Some("Victory") => "victory condition",
        Some("When") => "trigger (`when`)",
        Some("Effect") => "effect",
        Some("Area") => "area",
        Some("Sight") => "sight",
        _ => "name",
    }
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// Semantic checks

/// Collects problems, keeping at most [`MAX_PROBLEMS`].
#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
    dropped: usize,
}

impl Problems {
    fn push(&mut self, segs: Vec<Seg>, message: String) {
        self.push_at(ValuePath::new(segs), message);
    }

    fn push_at(&mut self, path: ValuePath, message: String) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(Problem { path, message });
        } else {
            self.dropped += 1;
        }
    }

    /// Like [`Problems::push_at`], but formats the message only if it will be kept.
    fn push_lazy(&mut self, path: ValuePath, message: impl FnOnce() -> String) {
        if self.list.len() < MAX_PROBLEMS {
            self.push_at(path, message());
        } else {
            self.dropped += 1;
        }
    }

    fn finish(mut self) -> Vec<Problem> {
        if self.dropped > 0 {
            self.list.push(Problem {
                path: ValuePath::default(),
                message: format!(
                    "{} more problems are not shown; fix these first",
                    self.dropped
                ),
            });
        }
        self.list
    }
}

/// The values a stat may take: a dice count (`damage_dice`...) 0 to [`dice::MAX_DICE`], a die
/// (`damage_die`...) 1 to [`dice::MAX_SIDES`], anything else `-MAX_STAT..=MAX_STAT`.
///
/// [`dice::MAX_DICE`]: crate::rules::dice::MAX_DICE
/// [`dice::MAX_SIDES`]: crate::rules::dice::MAX_SIDES
pub fn stat_bounds(stat: &str) -> (i64, i64) {
    use crate::rules::dice::{MAX_DICE, MAX_SIDES};
    if stat.ends_with("_dice") {
        (0, i64::from(MAX_DICE))
    } else if stat.ends_with("_die") {
        (1, i64::from(MAX_SIDES))
    } else {
        (-MAX_STAT, MAX_STAT)
    }
}

fn article(name: &str) -> &'static str {
    match name.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

fn quoted_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks a parsed level: every semantic problem, each at the value it concerns.
pub fn check(file: &LevelFile) -> Vec<Problem> {
    use Seg::{Char as C, Field as F, Index as I};
    let mut out = Problems::default();

    if file.name.trim().is_empty() {
        out.push(vec![F("name")], "the level has no name".into());
    }

    // Ruleset and topology.
    let ruleset = ruleset_data::builtin(file.ruleset);
    match ruleset {
        None => out.push(
            vec![F("ruleset")],
            format!(
                "the '{}' ruleset's data file did not load: {}",
                file.ruleset,
                ruleset_data::builtin_errors().join("; ")
            ),
        ),
        Some(r) if !r.allows(file.topology) => {
            let kinds: Vec<&str> = r.topologies.iter().map(|k| k.describe()).collect();
            let message = if r
                .topologies
                .contains(&ruleset_data::TopologyKind::of(file.topology))
            {
                let allowed: Vec<String> = r
                    .square_diagonals
                    .iter()
                    .map(|d| format!("Square(diagonals: {d:?})"))
                    .collect();
                format!(
                    "the '{}' ruleset does not play on a {} grid; use {}",
                    r.id,
                    file.topology.describe(),
                    allowed.join(" or ")
                )
            } else {
                format!(
                    "the '{}' ruleset plays on {} grids, not on a {} grid",
                    r.id,
                    kinds.join(" or "),
                    file.topology.describe()
                )
            };
            out.push(vec![F("topology")], message);
        }
        Some(_) => {}
    }

    // Legend.
    let legend = merged_legend(&file.legend);
    if legend.len() > usize::from(u16::MAX) {
        out.push(
            vec![F("legend")],
            format!(
                "the legend has {} glyphs; at most {} are allowed",
                legend.len(),
                u16::MAX
            ),
        );
    }
    for (&glyph, terrain) in &file.legend {
        if let Some(cost) = terrain.cost.filter(|&c| c > MAX_TERRAIN_COST) {
            out.push(
                vec![F("legend"), C(glyph)],
                format!(
                    "legend glyph {glyph:?} ({}) costs {cost} to enter; a cell costs at most \
                     {MAX_TERRAIN_COST} (write `cost: None` for impassable terrain)",
                    terrain.name
                ),
            );
        }
        if terrain.cost == Some(0) {
            out.push(
                vec![F("legend"), C(glyph)],
                format!(
                    "legend glyph {glyph:?} ({}) has cost 0; a passable cell costs at least 1 \
                     (write `cost: None` for impassable terrain)",
                    terrain.name
                ),
            );
        }
        let other = match terrain.door {
            Some(Door::Open) => Some(Door::Closed),
            Some(Door::Closed) => Some(Door::Open),
            _ => None,
        };
        if let Some(other) = other
            && !legend.iter().any(|(_, t)| t.door == Some(other))
        {
            out.push(
                vec![F("legend"), C(glyph)],
                format!(
                    "legend glyph {glyph:?} ({}) is a door ({:?}) but no glyph of the legend is \
                     a door {:?} for it to become when a unit opens or shuts it (add one, e.g. \
                     `door: Some({other:?})`, or make this one `door: Some(Locked)`)",
                    terrain.name,
                    terrain.door.unwrap_or_default(),
                    other
                ),
            );
        }
    }
    let terrain_of: BTreeMap<char, &Terrain> = legend.iter().map(|(g, t)| (*g, t)).collect();
    let known_glyphs = || {
        legend
            .iter()
            .map(|(g, t)| format!("{g:?} {}", t.name))
            .collect::<Vec<_>>()
            .join(", ")
    };

    // Size and map.
    let (width, height) = file.size;
    let sized = width > 0 && height > 0 && width <= MAX_MAP_SIDE && height <= MAX_MAP_SIDE;
    if width == 0 || height == 0 {
        out.push(
            vec![F("size")],
            format!("the map size is {width}x{height}; width and height must be at least 1"),
        );
    } else if !sized {
        out.push(
            vec![F("size")],
            format!(
                "the map size is {width}x{height}; width and height may be at most \
                 {MAX_MAP_SIDE}"
            ),
        );
    }
    let row_widths: Vec<usize> = file.map.iter().map(|r| r.chars().count()).collect();
    if file.map.is_empty() {
        out.push(vec![F("map")], "the map has no rows".into());
    } else if sized {
        if file.map.len() != height as usize {
            out.push(
                vec![F("size")],
                format!(
                    "size says the map is {height} rows high, but `map` has {} rows",
                    file.map.len()
                ),
            );
        }
        let first = row_widths[0];
        if first != width as usize && row_widths.iter().all(|&w| w == first) {
            out.push(
                vec![F("size")],
                format!(
                    "size says the map is {width} glyphs wide, but every map row is {first} \
                     glyphs wide"
                ),
            );
        } else {
            for (y, &w) in row_widths.iter().enumerate() {
                if w != width as usize {
                    out.push(
                        vec![F("map"), I(y)],
                        format!(
                            "map row {y} is {w} glyphs wide, but size says {width} (rows must \
                             all be as wide as the map)"
                        ),
                    );
                }
            }
        }
    }
    for (y, row) in file.map.iter().enumerate() {
        for (x, glyph) in row.chars().enumerate() {
            if !terrain_of.contains_key(&glyph) {
                let path = ValuePath {
                    segs: vec![F("map"), I(y)],
                    glyph: Some(x),
                };
                out.push_lazy(path, || {
                    format!(
                        "unknown glyph {glyph:?} at ({x}, {y}); the known glyphs are {} \
                         (add others to `legend`)",
                        known_glyphs()
                    )
                });
            }
        }
    }
    if !file.heights.is_empty() && sized {
        if file.heights.len() != height as usize {
            out.push(
                vec![F("heights")],
                format!(
                    "`heights` has {} rows but the map has {height}; give one row of digits \
                     per map row (or leave `heights` out for a flat map)",
                    file.heights.len()
                ),
            );
        }
        for (y, row) in file.heights.iter().enumerate() {
            let w = row.chars().count();
            if w != width as usize {
                out.push(
                    vec![F("heights"), I(y)],
                    format!(
                        "heights row {y} is {w} digits wide, but the map is {width} wide (one \
                         digit per cell)"
                    ),
                );
            }
            for (x, ch) in row.chars().enumerate() {
                if !ch.is_ascii_digit() {
                    let path = ValuePath {
                        segs: vec![F("heights"), I(y)],
                        glyph: Some(x),
                    };
                    out.push_lazy(path, || {
                        format!(
                            "height {ch:?} at ({x}, {y}) is not a digit; a cell's height is 0 \
                             to 9 levels"
                        )
                    });
                }
            }
        }
    }
    let in_bounds = |(x, y): (i32, i32)| {
        sized && Grid::new(file.topology, width, height).contains(Cell::new(x, y))
    };
    // The terrain of an in-bounds cell, if its row and glyph exist and are known.
    let terrain_at = |(x, y): (i32, i32)| -> Option<&Terrain> {
        let row = file.map.get(usize::try_from(y).ok()?)?;
        let glyph = row.chars().nth(usize::try_from(x).ok()?)?;
        terrain_of.get(&glyph).copied()
    };
    let outside = |what: String, (x, y): (i32, i32)| {
        format!(
            "{what} ({x}, {y}), outside the {width}x{height} map (x runs 0 to {}, y 0 to {})",
            width.saturating_sub(1),
            height.saturating_sub(1)
        )
    };

    // Sides.
    let mut side_index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, side) in file.sides.iter().enumerate() {
        if side.name.trim().is_empty() {
            out.push(
                vec![F("sides"), I(i), F("name")],
                format!("side {i} has no name"),
            );
        }
        if let Some(&first) = side_index.get(side.name.as_str()) {
            out.push(
                vec![F("sides"), I(i), F("name")],
                format!(
                    "two sides are named '{}' (sides {first} and {i}); side names must differ",
                    side.name
                ),
            );
        } else {
            side_index.insert(&side.name, i);
        }
    }
    if file.sides.len() > MAX_SIDES {
        out.push(
            vec![F("sides"), I(MAX_SIDES)],
            format!(
                "this level has {} sides; a battle has at most {MAX_SIDES}",
                file.sides.len()
            ),
        );
    }
    if file.sides.len() < 2 {
        out.push(
            vec![F("sides")],
            format!(
                "a battle needs at least two sides; this level has {}",
                file.sides.len()
            ),
        );
    }
    let side_names = || quoted_list(file.sides.iter().map(|s| s.name.as_str()));
    let unknown_side = |who: String, side: &str| {
        if file.sides.is_empty() {
            format!("{who} side '{side}', but the level defines no sides")
        } else {
            format!(
                "{who} side '{side}', which the level does not define; its sides are {}",
                side_names()
            )
        }
    };

    // Units.
    if file.units.len() > MAX_UNITS {
        out.push(
            vec![F("units"), I(MAX_UNITS)],
            format!(
                "this level has {} units; a battle has at most {MAX_UNITS}",
                file.units.len()
            ),
        );
    }
    let mut unit_names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut occupied: BTreeMap<(i32, i32), usize> = BTreeMap::new();
    let mut side_units = vec![0usize; file.sides.len()];
    for (i, unit) in file.units.iter().enumerate() {
        let at = |field: &'static str| vec![F("units"), I(i), F(field)];
        let who = if unit.name.trim().is_empty() {
            out.push(at("name"), format!("unit {i} has no name"));
            format!("unit {i}")
        } else {
            format!("unit '{}'", unit.name)
        };
        if let Some(&first) = unit_names.get(unit.name.as_str()) {
            if !unit.name.trim().is_empty() {
                out.push(
                    at("name"),
                    format!(
                        "two units are named '{}' (units {first} and {i}); unit names must differ",
                        unit.name
                    ),
                );
            }
        } else {
            unit_names.insert(&unit.name, i);
        }
        match side_index.get(unit.side.as_str()) {
            Some(&s) => side_units[s] += 1,
            None => out.push(at("side"), unknown_side(format!("{who} is on"), &unit.side)),
        }
        if let Some(r) = ruleset {
            match r.templates.get(&unit.template) {
                None => out.push(
                    at("template"),
                    format!(
                        "{who} uses template '{}', which the '{}' ruleset does not have; its \
                         templates are {}",
                        unit.template,
                        r.id,
                        quoted_list(r.templates.keys().map(String::as_str))
                    ),
                ),
                Some(t) => {
                    for (stat, &value) in &unit.overrides {
                        let (low, high) = stat_bounds(stat);
                        if !(low..=high).contains(&value) {
                            out.push(
                                vec![F("units"), I(i), F("overrides"), Seg::Str(stat.clone())],
                                format!(
                                    "{who} sets '{stat}' to {value}; it must be {low} to {high}"
                                ),
                            );
                        }
                    }
                    for stat in unit.overrides.keys() {
                        if !t.stats.contains_key(stat) {
                            out.push(
                                vec![F("units"), I(i), F("overrides"), Seg::Str(stat.clone())],
                                format!(
                                    "{who} overrides '{stat}', which template '{}' does not \
                                     have; its stats are {}",
                                    unit.template,
                                    quoted_list(t.stats.keys().map(String::as_str))
                                ),
                            );
                        }
                    }
                }
            }
        }
        if sized && !in_bounds(unit.cell) {
            out.push(at("cell"), outside(format!("{who} stands at"), unit.cell));
        } else if sized {
            let (x, y) = unit.cell;
            if let Some(t) = terrain_at(unit.cell).filter(|t| !t.passable()) {
                out.push(
                    at("cell"),
                    format!(
                        "{who} stands on {} {} at ({x}, {y})",
                        article(&t.name),
                        t.name
                    ),
                );
            }
            if let Some(&other) = occupied.get(&unit.cell) {
                out.push(
                    at("cell"),
                    format!(
                        "units '{}' and '{}' both stand on ({x}, {y}); one unit per cell",
                        file.units[other].name, unit.name
                    ),
                );
            } else {
                occupied.insert(unit.cell, i);
            }
        }
    }
    for (s, side) in file.sides.iter().enumerate() {
        let first = side_index.get(side.name.as_str()) == Some(&s);
        if first && side_units[s] == 0 {
            out.push(
                vec![F("sides"), I(s), F("name")],
                format!("side '{}' has no units", side.name),
            );
        }
    }

    // Victory conditions.
    for (i, victory) in file.victory.iter().enumerate() {
        let at = |field: &'static str| vec![F("victory"), I(i), F(field)];
        match victory {
            Victory::LastSideStanding => {}
            Victory::SurviveRounds { side, rounds } => {
                if !side_index.contains_key(side.as_str()) {
                    out.push(
                        at("side"),
                        unknown_side(format!("victory condition {i} names"), side),
                    );
                }
                if *rounds == 0 {
                    out.push(
                        at("rounds"),
                        format!("victory condition {i} asks to survive 0 rounds; use 1 or more"),
                    );
                }
            }
            Victory::ReachCell { side, cell } => {
                if !side_index.contains_key(side.as_str()) {
                    out.push(
                        at("side"),
                        unknown_side(format!("victory condition {i} names"), side),
                    );
                }
                if sized && !in_bounds(*cell) {
                    out.push(
                        at("cell"),
                        outside(format!("victory condition {i} asks to reach"), *cell),
                    );
                } else if let Some(t) = terrain_at(*cell).filter(|t| !t.passable()) {
                    out.push(
                        at("cell"),
                        format!(
                            "victory condition {i} asks to reach ({}, {}), which is {} {}; no \
                             unit can stand there",
                            cell.0,
                            cell.1,
                            article(&t.name),
                            t.name
                        ),
                    );
                }
            }
        }
    }

    tasks::check(
        file,
        &legend,
        &in_bounds,
        &|c| terrain_at(c).cloned(),
        &mut out,
    );
    events::check(file, &in_bounds, &|c| terrain_at(c).cloned(), &mut out);
    items::check(file, &in_bounds, &|c| terrain_at(c).cloned(), &mut out);

    // Options.
    let o = &file.options;
    let is_unit = |name: &str| file.units.iter().any(|u| u.name == name);
    for (i, name) in o.surprised.iter().enumerate() {
        if !side_index.contains_key(name.as_str()) && !is_unit(name) {
            out.push(
                vec![F("options"), F("surprised"), I(i)],
                format!(
                    "options.surprised names '{name}', which is neither a side nor a unit; \
                     the sides are {}",
                    quoted_list(file.sides.iter().map(|s| s.name.as_str()))
                ),
            );
        }
    }
    let side_of = |name: &str| {
        file.units
            .iter()
            .find(|u| u.name == name)
            .map(|u| u.side.as_str())
    };
    if o.fog.is_some_and(|f| f.sight == Some(0)) {
        out.push(
            vec![F("options"), F("fog"), F("sight")],
            "options.fog.sight is 0: no unit would see even its neighbours; give 1 or more, \
             or leave sight out for no limit"
                .to_string(),
        );
    }
    for (i, e) in o.executions.iter().enumerate() {
        let at = |f: &'static str| vec![F("options"), F("executions"), I(i), F(f)];
        if file.ruleset != RulesetId::Sides {
            out.push(
                vec![F("options"), F("executions"), I(i)],
                "only `sides` has execution attacks; remove options.executions".to_string(),
            );
            continue;
        }
        for (field, name) in [("assassin", &e.assassin), ("target", &e.target)] {
            if !is_unit(name) {
                out.push(
                    at(field),
                    format!("options.executions {i} names '{name}' as its {field}, but no unit has that name"),
                );
            }
        }
        let (a, t) = (side_of(&e.assassin), side_of(&e.target));
        if a.is_some() && a == t {
            out.push(
                at("target"),
                format!(
                    "{} and {} are both of {}: an assassin stalks an enemy",
                    e.assassin,
                    e.target,
                    a.unwrap_or_default()
                ),
            );
        }
        let surprised = o
            .surprised
            .iter()
            .any(|n| *n == e.target || Some(n.as_str()) == t);
        if t.is_some() && !surprised {
            out.push(
                at("target"),
                format!(
                    "{} must start unaware to be executed (S-164): add it or its side to \
                     options.surprised",
                    e.target
                ),
            );
        }
    }
    for p in file.ruleset.validate(file) {
        out.push(p.path.into_iter().map(F).collect(), p.message);
    }
    for (i, name) in o.alerted.iter().enumerate() {
        if !side_index.contains_key(name.as_str()) {
            out.push(
                vec![F("options"), F("alerted"), I(i)],
                unknown_side("options.alerted names".to_string(), name),
            );
        }
    }
    for (field, name) in [("instigator", &o.instigator), ("party", &o.party)] {
        if let Some(name) = name
            && !side_index.contains_key(name.as_str())
        {
            out.push(
                vec![F("options"), F(field)],
                unknown_side(format!("options.{field} names"), name),
            );
        }
    }
    out.finish()
}
