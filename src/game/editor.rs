//! The level editor (Title → Level editor): paint terrain and move units on a level of
//! `levels/`, with undo and redo, live validation, save (atomic, only the touched lines change)
//! and playtest. The editing itself is [`crate::rules::level::edit`], the model `fray edit`
//! uses; this screen is its window.
//!
//! Keys: 1-9 pick a palette glyph, U switches between painting and units (click a unit to pick
//! it, or Tab and Shift+Tab to step through the level's units, then a cell to move it there;
//! C then a cell places a copy; Delete removes it), Ctrl+Z /
//! Ctrl+Y undo and redo, Ctrl+S saves, P playtests (the battle's "Back to editor" button, or
//! Q, comes back), `[` and `]` open the previous or next level,
//! Esc goes back (asking first when there are unsaved changes). B runs the balance meter:
//! the AI plays the level as it stands against itself on a background thread
//! ([`crate::balance::Meter`], the games `fray balance` plays) and the panel shows each side's
//! win rate as games finish; Shift+B reruns it after every edit. N starts a new level
//! (ruleset R, grid G, size with the arrow keys, Enter creates it in `levels/`). With the
//! units tool, a click on an empty cell with no unit picked places a new unit of the side (S)
//! and template (T) shown in the panel, with the template's numbers. F switches the paint
//! tool: brush (a cell), line and rectangle (two ends), fill (the region of the same terrain).
//! H switches the paint tools to ground heights (0-9 then pick the height; the board shows each
//! cell's height; fill takes the region of one height); H again, or a palette glyph, paints
//! terrain again.
//! In the units tool the panel lists how the level is won: click a condition to remove it,
//! or add the last side standing, the new units' side holding out some rounds (- and + set
//! them), or that side reaching a cell (the next click on the board picks it).
//! Under them, the level's events (`editor::events`): each in words, a click removes it; R makes each
//! empty cell clicked a reinforcement arriving on the round shown (- and +; drawn faint, picked,
//! moved and removed as units are), and Message... adds a message for that round.
//! The units tool also lists the level's name, description and seed and its sides, each a
//! button that opens a text field (Enter keeps, Esc drops), and each side's controller; a
//! picked unit can be renamed the same way, and its template's stats overridden (-, +, a typed
//! value, or cleared back to the template's), each an edit of the unit's line only.
//! O shows, for the picked unit, its reach, the cells its enemies threaten or its sight and
//! cover, computed by the battle's own functions on a battle started from the level.
//! Items (rulesets with items): I toggles the item brush of the units tool, with which a click
//! leaves the item the panel's chooser shows on the cell (Shift+I, or the chooser's button,
//! shows the next of the ruleset's items) and a click on a cell with items takes the last one
//! away; the board marks cells with items as the battle board does. The picked unit's row
//! lists what it carries, with buttons that give it the chosen item or take its last one.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::ui::{ComputedNode, RelativeCursorPosition, UiGlobalTransform};

mod board;
mod events;

use super::Screen;
use super::art::Art;
use super::battle::{Battle, BattleSetup};
use super::levels::{Catalog, LevelsDir};
use super::overlays::{ForcedOverlay, OverlayKind, forced_layers};
use super::screens::{SetupState, start_battle};
use super::ui::{self, UiAction, UiClick};
use crate::ai::sim::Caps;
use crate::ai::{Difficulty, Kind};
use crate::balance::Meter;
use crate::rules::grid::{Grid, Topology};
use crate::rules::level::edit::{Edit, LevelDoc, blank, free_unit_name, locate};
use crate::rules::level::{self, LevelFile, merged_legend};
use crate::rules::map::{Sight, Terrain};
use crate::rules::ruleset_data::{self, ItemDef, RulesetData};
use board::{BoardShape, CellParts, board_looks, spawn_board};
pub use board::{CellLook, EditorGeometry, ItemMark};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Editor>()
        .add_systems(OnEnter(Screen::Editor), open_selected)
        .add_systems(OnEnter(Screen::Title), back_from_playtest)
        .add_systems(OnEnter(Screen::Setup), back_from_playtest)
        .add_systems(
            Update,
            // The keys first: on the frame Esc or Enter ends typing they must still see the
            // field open and leave the key alone.
            (editor_keys, typing_keys)
                .chain()
                .run_if(in_state(Screen::Editor))
                .in_set(super::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (
                click_cells,
                editor_actions,
                rebuild,
                status_line,
                meter_panel,
                scroll_panel,
            )
                .chain()
                .run_if(in_state(Screen::Editor))
                .in_set(super::AppSystems::Update),
        );
}

/// What the editor's buttons and keys ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditorAction {
    /// Pick the palette's n-th glyph (and the paint tool).
    Palette(usize),
    /// Paint ground heights of this many levels (0-9) with the paint tool rather than terrain,
    /// or with `None` paint terrain again.
    Height(Option<u8>),
    /// Switch between painting and moving units.
    ToggleTool,
    /// Remove the picked unit.
    DeleteUnit,
    /// The next empty cell clicked gets a copy of the picked unit (same side, template and
    /// overrides, a new name).
    CopyUnit,
    Undo,
    Redo,
    Save,
    Playtest,
    /// Open the previous (-1) or next (+1) level of `levels/`.
    Cycle(i32),
    /// Start the balance meter on the level as it stands (or stop it).
    Balance,
    /// Rerun the balance meter after every edit (or not).
    BalanceAuto,
    /// Open the new-level form (or, in it, create the level).
    NewLevel,
    /// In the new-level form: the next ruleset, the next grid it allows, a size change.
    NewRuleset,
    NewGrid,
    NewSize(i32, i32),
    /// The next paint tool: brush, rectangle, fill.
    NextPaintTool,
    /// Show where the level's n-th problem is (its cell marked on the board).
    Problem(usize),
    /// The next overlay for the picked unit: none, reach, threat, sight.
    NextOverlay,
    /// Grow (+1) or shrink (-1) the map at one edge: (dx, dy) names the edge (-1, 0) left,
    /// (1, 0) right, (0, -1) top, (0, 1) bottom; every cell the level names keeps its ground
    /// (refused if one would fall off).
    ResizeEdge {
        edge: (i32, i32),
        by: i32,
    },
    /// Start typing a new value for a field.
    Type(Field),
    /// The painted glyph's terrain: cost up or down, impassable or not, the next kind of
    /// sight, difficult or not (a standard glyph gets the level's own legend entry).
    TerrainCost(i32),
    TerrainImpassable,
    TerrainSight,
    TerrainDifficult,
    /// A new glyph in the level's legend (a copy of the painted one's terrain), picked.
    NewTerrain,
    /// Switch the n-th side's default controller between human and AI.
    ToggleController(usize),
    /// Remove the n-th victory condition.
    RemoveVictory(usize),
    /// Add "the last side standing wins".
    AddLastStanding,
    /// Add "the new units' side wins by holding out `rounds` rounds".
    AddSurvive,
    /// Change the rounds of the next hold-out condition.
    Rounds(i32),
    /// The next click on the board adds "the new units' side wins by reaching that cell".
    AddReachCell,
    /// New units: the next side, the next template.
    NextSide,
    NextTemplate,
    /// Pick the next (+1) or previous (-1) unit of the level, in the file's order (and the
    /// units tool).
    NextUnit(i32),
    /// Change the picked unit's n-th stat (of its template's, in their order) by this much:
    /// an override on top of the template; back at the template's value the override goes.
    Override {
        stat: usize,
        by: i32,
    },
    /// Drop the picked unit's override of its n-th stat: the template's value again.
    ClearOverride(usize),
    /// Leave (asks first when there are unsaved changes).
    Leave,
    /// Remove the n-th scripted event.
    RemoveEvent(usize),
    /// Change the round new events fire on.
    EventRound(i32),
    /// Each empty cell clicked with the units tool gets a reinforcement arriving on that round
    /// (or not).
    Reinforce,
    /// The item chooser shows the ruleset's next item.
    NextItem,
    /// The picked unit carries the chosen item too (after its others).
    GiveItem,
    /// The picked unit's last item goes.
    TakeItem,
    /// The item brush on (or off): with the units tool, a click on a cell leaves the chosen
    /// item there, or takes the last item off a cell that has some.
    ItemBrush,
}

/// The level being edited.
#[derive(Resource, Default)]
pub struct Editor {
    pub path: Option<PathBuf>,
    pub doc: Option<LevelDoc>,
    /// The text as last saved (or opened).
    pub saved: String,
    /// The palette glyph painted.
    pub glyph: char,
    /// The paint tool paints ground heights of this many levels instead of the glyph.
    pub height: Option<u8>,
    /// Moving units rather than painting.
    pub moving: bool,
    /// The unit picked to move (by name).
    pub picked: Option<String>,
    /// The next empty cell clicked gets a copy of the picked unit rather than the unit itself.
    pub copying: bool,
    /// The last message (an edit refused, saved, a warning).
    pub message: String,
    /// Esc was pressed once with unsaved changes: the next Esc leaves.
    pub confirm_leave: bool,
    /// The window's close button was pressed once with unsaved changes: the next press closes.
    pub confirm_close: bool,
    /// A playtest battle is running: coming back to the title returns to the editor.
    pub playtesting: bool,
    /// The playtest's quick save (F5): the commands played when it was kept. In memory only.
    pub playtest_save: Option<Vec<crate::rules::battle::Command>>,
    /// The balance meter's run on the level as it stood when it started.
    pub meter: Option<Meter>,
    /// Rerun the meter after every edit.
    pub meter_auto: bool,
    /// The games the meter plays: those of `fray balance` with these options.
    pub meter_run: MeterRun,
    /// How a click paints.
    pub paint_tool: PaintTool,
    /// The rectangle tool's first corner, once clicked.
    pub rect_from: Option<(i32, i32)>,
    /// The cell of the problem last clicked, marked on the board.
    pub marked: Option<(i32, i32)>,
    /// The overlay shown for the picked unit.
    pub overlay: Option<OverlayKind>,
    /// The rounds of the next hold-out condition added.
    pub rounds: u32,
    /// A text field being typed in.
    pub typing: Option<Typing>,
    /// The next board click adds a reach-this-cell condition.
    pub placing_goal: bool,
    /// The round new events fire on (0: the default, 2).
    pub event_round: u32,
    /// Empty cells clicked with the units tool get reinforcements rather than units.
    pub reinforcing: bool,
    /// The item chooser's item (an index into the ruleset's items).
    pub item: usize,
    /// Cells clicked with the units tool get the chosen item, or lose their last one.
    pub item_brush: bool,
    /// The cell the item brush last clicked (the panel lists what lies there).
    pub item_cell: Option<(i32, i32)>,
    /// The new-level form, while it is open.
    pub new_level: Option<NewLevel>,
    /// New units' side and template (indices into the level's sides and the ruleset's
    /// templates).
    pub side: usize,
    pub template: usize,
    /// The screen must be redrawn.
    dirty: bool,
    /// The next redraw spawns every board cell again rather than repainting the changed ones
    /// (once; `benches/editor.rs` compares the two).
    pub respawn_board: bool,
}

impl Editor {
    /// Opens a level file (its text as it is on disk).
    pub fn open(&mut self, path: PathBuf) {
        match crate::rules::replay::read_user_file(&path, 16 * 1024 * 1024) {
            Ok(text) => {
                self.saved = text.clone();
                self.doc = Some(LevelDoc::new(text));
                self.message = format!(
                    "Opened {}",
                    path.file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into())
                );
            }
            Err(e) => {
                self.doc = None;
                self.message = format!("{}: {e}", path.display());
            }
        }
        self.path = Some(path);
        self.picked = None;
        self.copying = false;
        self.item_brush = false;
        self.item_cell = None;
        self.meter = None;
        if self.meter_auto {
            self.start_meter();
        }
        self.confirm_leave = false;
        self.confirm_close = false;
        self.dirty = true;
        if self.glyph == '\0' {
            self.glyph = '#';
        }
    }

    /// The terrain `glyph` stands for in the open level (its legend over the standard one).
    fn terrain_of(&self, glyph: char) -> Option<Terrain> {
        let f = self.file()?;
        merged_legend(&f.legend)
            .into_iter()
            .find(|(k, _)| *k == glyph)
            .map(|(_, t)| t)
    }

    /// The rounds of the next hold-out condition (8 until changed).
    pub fn hold_rounds(&self) -> u32 {
        if self.rounds == 0 { 8 } else { self.rounds }
    }

    /// The round new events fire on.
    pub fn event_round(&self) -> u32 {
        if self.event_round == 0 {
            2
        } else {
            self.event_round
        }
    }

    /// Whether the text differs from the file as saved.
    pub fn unsaved(&self) -> bool {
        self.doc.as_ref().is_some_and(|d| d.text() != self.saved)
    }

    /// Applies an edit; a refused one leaves a message.
    pub fn apply(&mut self, edit: Edit) {
        if let Some(doc) = self.doc.as_mut() {
            match doc.apply(&edit) {
                Ok(()) => self.message.clear(),
                Err(e) => self.message = e,
            }
            self.confirm_leave = false;
            self.confirm_close = false;
            self.dirty = true;
            self.marked = None;
            self.level_changed();
        }
    }

    /// The level's text changed: a meter's figures are for the old level, so it starts
    /// again on the new one (when one was running or the meter follows every edit).
    fn level_changed(&mut self) {
        if self.meter.is_some() || self.meter_auto {
            self.start_meter();
        }
    }

    /// Starts the balance meter on the level as it stands (stopping any run), or says why not.
    pub fn start_meter(&mut self) {
        self.meter = None;
        let (Some(doc), Some(path)) = (&self.doc, &self.path) else {
            return;
        };
        match level::load(&path.display().to_string(), doc.text()) {
            Ok(l) => {
                self.message = "Balance meter: the AI plays the level against itself".into();
                let run = self.meter_run;
                self.meter = Some(Meter::start(
                    l,
                    run.games,
                    run.seed,
                    run.ai,
                    Caps::default(),
                ))
            }
            Err(d) => {
                self.message = format!(
                    "The balance meter waits until the level's {} problem(s) are fixed",
                    d.len()
                )
            }
        }
        self.dirty = true;
    }

    /// Saves atomically (even with problems: it is the designer's file).
    pub fn save(&mut self) {
        let (Some(doc), Some(path)) = (&self.doc, &self.path) else {
            return;
        };
        match crate::rules::replay::write_atomic(path, doc.text()) {
            Ok(()) => {
                self.saved = doc.text().to_string();
                let problems = level::validate(&path.display().to_string(), doc.text()).len();
                self.message = if problems == 0 {
                    format!("Saved {}", path.display())
                } else {
                    format!(
                        "Saved {} with {problems} problem(s): it will not play until they are fixed",
                        path.display()
                    )
                };
            }
            Err(e) => self.message = format!("Could not save {}: {e}", path.display()),
        }
        self.dirty = true;
    }

    fn file(&self) -> Option<LevelFile> {
        let doc = self.doc.as_ref()?;
        level::ron_options().from_str(doc.text()).ok()
    }

    /// Picks the unit `step` places after (or before) the picked one in the file's order,
    /// the first (or last) if none is picked; the units tool with it.
    pub fn next_unit(&mut self, step: i32) {
        let Some(f) = self.file() else { return };
        let n = f.units.len();
        self.dirty = true;
        if n == 0 {
            self.message = "The level has no unit yet: click an empty cell to place one".into();
            return;
        }
        let now = self
            .picked
            .as_ref()
            .and_then(|p| f.units.iter().position(|u| &u.name == p));
        let i = match now {
            Some(i) => (i as i64 + i64::from(step)).rem_euclid(n as i64) as usize,
            None if step < 0 => n - 1,
            None => 0,
        };
        let u = &f.units[i];
        self.moving = true;
        self.copying = false;
        self.picked = Some(u.name.clone());
        self.message = format!(
            "{} ({} of {}, {} at ({}, {})): click a cell to move it there",
            u.name,
            i + 1,
            n,
            u.side,
            u.cell.0,
            u.cell.1
        );
    }

    /// What a click on the board does now.
    pub fn mode(&self) -> ClickMode {
        match (self.moving, self.item_brush, self.reinforcing) {
            (false, ..) => ClickMode::Paint,
            (true, true, _) => ClickMode::ItemBrush,
            (true, false, true) => ClickMode::Reinforce,
            (true, false, false) => ClickMode::Units,
        }
    }

    /// Makes a click on the board do `mode`, dropping what the last mode was half-way
    /// through (a copy to place, a goal cell to pick).
    pub fn set_mode(&mut self, mode: ClickMode) {
        self.moving = mode != ClickMode::Paint;
        self.item_brush = mode == ClickMode::ItemBrush;
        self.reinforcing = mode == ClickMode::Reinforce;
        self.copying = false;
        self.placing_goal = false;
        self.dirty = true;
    }

    /// Turns a brush of the units tool on, or, when it is on, back to plain units; true if
    /// it is now on.
    fn toggle_mode(&mut self, brush: ClickMode) -> bool {
        let on = self.mode() != brush;
        self.set_mode(if on { brush } else { ClickMode::Units });
        on
    }

    /// The item chooser's item: its key and definition (`None` in a ruleset without items).
    pub fn chosen_item(&self, f: &LevelFile) -> Option<(&'static String, &'static ItemDef)> {
        let items = &ruleset_data::builtin(f.ruleset)?.items;
        items.iter().nth(self.item % items.len().max(1))
    }

    /// Why the ruleset of `f` offers no item to choose.
    fn no_items(f: &LevelFile) -> String {
        format!(
            "The '{}' ruleset has no items (only sides, phases and alternating do)",
            f.ruleset
        )
    }

    /// The item brush's click: the last item on `at` taken away, or the chosen item left
    /// there.
    fn brush_item(&mut self, at: (i32, i32)) {
        let Some(f) = self.file() else { return };
        self.item_cell = Some(at);
        self.dirty = true;
        let (x, y) = at;
        if let Some(last) = f.items.iter().rev().find(|p| p.cell == at) {
            let item = last.item.clone();
            self.apply(Edit::RemoveItem { cell: at });
            if self.message.is_empty() {
                let left = items_on(&f, at).len() - 1;
                self.message = format!(
                    "Took the {item} off ({x}, {y}); {} left there",
                    match left {
                        0 => "nothing".to_string(),
                        n => format!("{n} item(s)"),
                    }
                );
            }
            return;
        }
        let Some((key, _)) = self.chosen_item(&f) else {
            self.message = Self::no_items(&f);
            return;
        };
        self.apply(Edit::AddItem {
            item: key.clone(),
            cell: at,
        });
        if self.message.is_empty() {
            self.message =
                format!("Left a {key} on ({x}, {y}): click the cell again to take it away");
        }
    }

    /// Gives the picked unit the chosen item (`true`), or takes its last item (`false`): one
    /// edit of its line.
    fn change_items(&mut self, give: bool) {
        self.dirty = true;
        let Some(f) = self.file() else { return };
        let Some(name) = self.picked.clone() else {
            self.message = "Pick a unit first (Tab, or U then click it)".into();
            return;
        };
        let Some(u) = f.units.iter().find(|u| u.name == name) else {
            self.message = format!("{name} arrives later: its items are written in the file");
            return;
        };
        let mut items = u.items.clone();
        let done = if give {
            let Some((key, _)) = self.chosen_item(&f) else {
                self.message = Self::no_items(&f);
                return;
            };
            items.push(key.clone());
            format!("{name} carries a {key} too")
        } else {
            let Some(last) = items.pop() else {
                self.message = format!("{name} carries no items");
                return;
            };
            format!("{name} no longer carries the {last}")
        };
        self.apply(Edit::SetItems { unit: name, items });
        if self.message.is_empty() {
            self.message = done;
        }
    }

    /// The picked unit's `stat`-th stat (of its template's): its name, the template's value
    /// and the unit's override, if any.
    fn picked_stat(&self, stat: usize) -> Option<(String, i64, Option<i64>)> {
        let f = self.file()?;
        let name = self.picked.as_ref()?;
        let u = f.units.iter().find(|u| &u.name == name)?;
        let t = ruleset_data::builtin(f.ruleset)?
            .templates
            .get(&u.template)?;
        let (key, base) = t.stats.iter().nth(stat)?;
        Some((key.clone(), *base, u.overrides.get(key).copied()))
    }

    /// Sets the picked unit's `stat`-th stat to `value` (kept within the stat's bounds), or
    /// with `None` back to its template's: one edit, on the unit's line only. A value equal
    /// to the template's drops the override (the file says only what differs).
    pub fn set_stat(&mut self, stat: usize, value: Option<i64>) {
        self.dirty = true;
        let (Some(unit), Some((key, base, now))) = (self.picked.clone(), self.picked_stat(stat))
        else {
            self.message = "Pick a unit first (Tab, or U then click it)".into();
            return;
        };
        let (low, high) = level::stat_bounds(&key);
        let wanted = value;
        let value = value.map(|v| v.clamp(low, high)).filter(|v| *v != base);
        if value == now {
            self.message = match wanted {
                None => format!("{key} is the template's {base} already"),
                Some(w) if !(low..=high).contains(&w) => format!("{key} can be {low} to {high}"),
                Some(_) => format!("{key} is {} already", value.unwrap_or(base)),
            };
            return;
        }
        self.apply(Edit::SetOverride {
            unit: unit.clone(),
            stat: key.clone(),
            value,
        });
        if self.message.is_empty() {
            self.message = match value {
                Some(v) => format!("{unit}: {key} {v} (the template's is {base})"),
                None => format!("{unit}: {key} back to the template's {base}"),
            };
        }
    }
}

/// What a click on the board does: the editor's tool and, with the units tool, its brush.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClickMode {
    /// Paint terrain (or ground heights) with the paint tool.
    Paint,
    /// Pick, move and place units.
    Units,
    /// Leave the chosen item on a cell, or take the last one off.
    ItemBrush,
    /// Place reinforcements arriving on the events' round.
    Reinforce,
}

/// A text the editor can set by typing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    LevelName,
    Description,
    Seed,
    /// The n-th side's name (indices, not names: actions stay free of heap data, which the
    /// key table's constants need).
    Side(usize),
    /// The n-th unit's name.
    Unit(usize),
    /// The name of the terrain a glyph stands for.
    Terrain(char),
    /// The picked unit's n-th stat (of its template's), an override.
    Stat(usize),
    /// A message everyone reads when the round of new events begins.
    Message,
}

/// A text field being typed in: what it sets and the text so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typing {
    pub field: Field,
    pub text: String,
    /// The text is still the field's value as it was: the first key typed replaces it, a
    /// Backspace clears it (as a field whose text is all selected).
    pub replace: bool,
}

impl Typing {
    /// What the status line says while typing (in view whatever the panel's scroll).
    pub fn line(&self) -> String {
        format!(
            "Typing {}: {}_   ({}Enter keeps it, Esc drops it)",
            self.field.words(),
            self.text,
            if self.replace {
                "typing replaces it; "
            } else {
                ""
            }
        )
    }
}

impl Field {
    fn words(&self) -> String {
        match self {
            Field::LevelName => "the level's name".into(),
            Field::Description => "the description".into(),
            Field::Seed => "the seed".into(),
            Field::Side(_) => "the side's name".into(),
            Field::Unit(_) => "the unit's name".into(),
            Field::Terrain(g) => format!("the name of '{g}'"),
            Field::Stat(_) => "the stat (empty: the template's)".into(),
            Field::Message => "the message".into(),
        }
    }
}

/// How a click paints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaintTool {
    /// The clicked cell.
    #[default]
    Brush,
    /// The straight line between two clicked ends.
    Line,
    /// The rectangle between two clicked corners.
    Rect,
    /// The clicked cell's region of the same terrain.
    Fill,
}

impl PaintTool {
    fn next(self) -> Self {
        match self {
            PaintTool::Brush => PaintTool::Line,
            PaintTool::Line => PaintTool::Rect,
            PaintTool::Rect => PaintTool::Fill,
            PaintTool::Fill => PaintTool::Brush,
        }
    }

    fn name(self) -> &'static str {
        match self {
            PaintTool::Brush => "brush",
            PaintTool::Line => "line",
            PaintTool::Rect => "rectangle",
            PaintTool::Fill => "fill",
        }
    }
}

/// The new-level form: a ruleset, a grid it allows and a size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLevel {
    pub ruleset: usize,
    pub grid: usize,
    pub size: (u32, u32),
}

impl NewLevel {
    pub fn data(&self) -> Option<&'static RulesetData> {
        ruleset_data::all().nth(self.ruleset)
    }

    /// The grids the ruleset allows.
    pub fn grids(&self) -> Vec<Topology> {
        self.data().map_or(Vec::new(), |d| {
            Topology::ALL.into_iter().filter(|t| d.allows(*t)).collect()
        })
    }

    pub fn topology(&self) -> Option<Topology> {
        let grids = self.grids();
        grids.get(self.grid % grids.len().max(1)).copied()
    }
}

/// A grid in words.
fn grid_name(t: Topology) -> String {
    match t {
        Topology::Square { diagonals } => format!("squares, diagonals {diagonals:?}"),
        Topology::Hex { orientation } => format!("{orientation:?} hexes"),
    }
}

/// The first free `new_<ruleset>.ron` (then `_2`, `_3`...) in `dir`.
fn new_path(dir: &std::path::Path, id: &str) -> PathBuf {
    let stem = format!("new_{}", id.replace('-', "_"));
    (1..)
        .map(|n| match n {
            1 => dir.join(format!("{stem}.ron")),
            n => dir.join(format!("{stem}_{n}.ron")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.ron")))
}

/// The largest side of a new level in the form (the format allows more; a bigger map is a
/// resize away).
const NEW_MAX_SIDE: u32 = 64;

/// Games in a balance meter run: those of `fray balance LEVEL` (100 games of `normal`
/// against itself, seed 1).
pub const METER_GAMES: usize = 100;

/// What the balance meter plays: the games of `fray balance LEVEL --games {games} --seed
/// {seed} --ai {ai}` (by default `fray balance LEVEL`'s own: 100 games of `normal`, seed 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeterRun {
    pub games: usize,
    pub seed: u64,
    pub ai: Kind,
}

impl Default for MeterRun {
    fn default() -> Self {
        Self {
            games: METER_GAMES,
            seed: 1,
            ai: Kind::Utility(Difficulty::Normal),
        }
    }
}

/// The balance meter's text in the side panel, updated as games finish.
#[derive(Component)]
pub struct MeterText;

/// The filled part of the balance meter's progress bar.
#[derive(Component)]
struct MeterBar;

/// A map cell on screen (a button: clicking it paints, or picks or moves a unit).
#[derive(Component, Clone, Copy, Debug)]
pub struct EditorCell {
    pub x: i32,
    pub y: i32,
}

#[derive(Component)]
struct EditorRoot;

/// What holds the board's cells.
#[derive(Component)]
struct EditorBoard;

/// The side panel's contents, scrolled (the wheel over it, PgUp and PgDn) when they are
/// taller than the window.
#[derive(Component)]
pub struct EditorPanel;

/// The thumb of the side panel's scroll bar.
#[derive(Component)]
struct PanelThumb;

/// The editor's frame: the board on the left, the side panel with its scroll bar on the
/// right. Returns the board's and the panel's entities, whose children `rebuild` draws.
fn spawn_frame(commands: &mut Commands) -> (Entity, Entity) {
    let mut board = Entity::PLACEHOLDER;
    let mut panel = Entity::PLACEHOLDER;
    commands
        .spawn((
            Name::new("Editor"),
            EditorRoot,
            DespawnOnExit(Screen::Editor),
            Node {
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Row,
                padding: UiRect::all(px(12)),
                column_gap: px(16),
                ..default()
            },
            BackgroundColor(ui::BG),
        ))
        .with_children(|root| {
            // The board, and under it the status line: the last message (an edit refused,
            // saved, a question before unsaved changes are dropped), always in view.
            root.spawn(Node {
                flex_grow: 1.0,
                min_width: px(0),
                flex_direction: FlexDirection::Column,
                row_gap: px(6),
                ..default()
            })
            .with_children(|left| {
                board = left
                    .spawn((
                        EditorBoard,
                        Node {
                            flex_grow: 1.0,
                            flex_direction: FlexDirection::Column,
                            align_items: AlignItems::Center,
                            justify_content: JustifyContent::Center,
                            ..default()
                        },
                    ))
                    .id();
                left.spawn((
                    EditorStatus,
                    Node {
                        min_height: px(STATUS_HEIGHT),
                        padding: UiRect::axes(px(8), px(4)),
                        ..default()
                    },
                    BackgroundColor(ui::PANEL),
                    children![ui::text(String::new(), 15.0, ui::TEXT)],
                ));
                // The balance meter, in view whatever the panel's scroll: its text and bar
                // are filled in by `meter_panel`.
                left.spawn(Node {
                    width: percent(100),
                    height: px(6),
                    min_height: px(6),
                    flex_shrink: 0.0,
                    ..default()
                })
                .insert(BackgroundColor(ui::PANEL))
                .with_children(|bar| {
                    bar.spawn((
                        MeterBar,
                        Node {
                            width: percent(0),
                            height: percent(100),
                            ..default()
                        },
                        BackgroundColor(ui::ACCENT),
                    ));
                });
                left.spawn((
                    MeterText,
                    ui::text(String::new(), 13.0, ui::TEXT),
                    Node {
                        min_height: px(METER_HEIGHT),
                        ..default()
                    },
                ));
            });
            root.spawn((
                Node {
                    width: px(PANEL_WIDTH),
                    flex_shrink: 0.0,
                    flex_direction: FlexDirection::Row,
                    ..default()
                },
                BackgroundColor(ui::PANEL),
            ))
            .with_children(|outer| {
                panel = outer
                    .spawn((
                        EditorPanel,
                        ScrollPosition::default(),
                        RelativeCursorPosition::default(),
                        Node {
                            flex_grow: 1.0,
                            flex_direction: FlexDirection::Column,
                            row_gap: px(6),
                            padding: UiRect::all(px(10)),
                            overflow: Overflow::scroll_y(),
                            ..default()
                        },
                    ))
                    .id();
                outer
                    .spawn((
                        Node {
                            width: px(6),
                            height: percent(100),
                            ..default()
                        },
                        BackgroundColor(ui::BG),
                    ))
                    .with_child((
                        PanelThumb,
                        Node {
                            position_type: PositionType::Absolute,
                            width: percent(100),
                            top: percent(0),
                            height: percent(100),
                            ..default()
                        },
                        BackgroundColor(ui::DIM),
                    ));
            });
        });
    (board, panel)
}

/// The side panel's width in logical pixels (its scroll bar included).
const PANEL_WIDTH: f32 = 346.0;

/// The status line under the board: the editor's last message.
#[derive(Component)]
pub struct EditorStatus;

/// The status line's height (two lines of text).
const STATUS_HEIGHT: f32 = 44.0;

/// The balance meter's room under the status line (its bar and three lines).
const METER_HEIGHT: f32 = 54.0;

/// Shows the editor's last message in the status line, or the text field being typed in; a
/// question (unsaved changes about to be dropped) stands out.
fn status_line(
    editor: Res<Editor>,
    status: Query<&Children, With<EditorStatus>>,
    mut texts: Query<(&mut Text, &mut TextColor)>,
) {
    let colour = if editor.confirm_leave || editor.confirm_close {
        ui::BAD
    } else if editor.typing.is_some() {
        ui::ACCENT
    } else {
        ui::TEXT
    };
    // A text field being typed in is shown here, always in view.
    let line = editor
        .typing
        .as_ref()
        .map_or_else(|| editor.message.clone(), Typing::line);
    for children in &status {
        if let Some(&child) = children.first()
            && let Ok((mut text, mut c)) = texts.get_mut(child)
        {
            if text.0 != line {
                text.0 = line.clone();
            }
            if c.0 != colour {
                c.0 = colour;
            }
        }
    }
}

/// Scrolls the side panel: the mouse wheel over it, PgUp and PgDn anywhere (not while
/// typing); keeps the scroll inside the contents and sizes the scroll bar's thumb to the part
/// shown (the whole bar when everything fits).
fn scroll_panel(
    mut wheel: MessageReader<bevy::input::mouse::MouseWheel>,
    keys: Res<ButtonInput<KeyCode>>,
    editor: Res<Editor>,
    mut panel: Query<
        (&mut ScrollPosition, &ComputedNode, &RelativeCursorPosition),
        With<EditorPanel>,
    >,
    mut thumb: Query<&mut Node, With<PanelThumb>>,
) {
    use bevy::input::mouse::MouseScrollUnit;
    let Ok((mut scroll, computed, cursor)) = panel.single_mut() else {
        wheel.clear();
        return;
    };
    let k = computed.inverse_scale_factor();
    let shown = computed.size().y * k;
    let max = ((computed.content_size().y - computed.size().y) * k).max(0.0);
    let mut by = 0.0;
    for ev in wheel.read() {
        if cursor.cursor_over() {
            by -= match ev.unit {
                MouseScrollUnit::Line => ev.y * 40.0,
                MouseScrollUnit::Pixel => ev.y,
            };
        }
    }
    if editor.typing.is_none() {
        if keys.just_pressed(KeyCode::PageDown) {
            by += shown * 0.8;
        }
        if keys.just_pressed(KeyCode::PageUp) {
            by -= shown * 0.8;
        }
    }
    let y = (scroll.0.y + by).clamp(0.0, max);
    if y != scroll.0.y {
        scroll.0.y = y;
    }
    let total = shown + max;
    let (top, height) = if total > 0.0 {
        (100.0 * y / total, 100.0 * shown / total)
    } else {
        (0.0, 100.0)
    };
    for mut n in &mut thumb {
        if n.top != percent(top) || n.height != percent(height) {
            n.top = percent(top);
            n.height = percent(height);
        }
    }
}

/// Open this file when the editor opens (`fray shot --editor`) rather than the level selected
/// on the Setup screen.
#[derive(Resource, Debug, Clone)]
pub struct OpenInEditor(pub PathBuf);

fn open_selected(
    mut editor: ResMut<Editor>,
    setup: Res<SetupState>,
    catalog: Res<Catalog>,
    asked: Option<Res<OpenInEditor>>,
    mut commands: Commands,
) {
    if let Some(asked) = asked {
        editor.open(asked.0.clone());
        commands.remove_resource::<OpenInEditor>();
        return;
    }
    if editor.playtesting {
        editor.playtesting = false;
        editor.dirty = true;
        return;
    }
    let path = catalog
        .entries
        .get(setup.selected)
        .or(catalog.entries.first())
        .map(|e| e.path.clone());
    match path {
        Some(p) if editor.path.as_ref() != Some(&p) || editor.doc.is_none() => editor.open(p),
        Some(_) => editor.dirty = true,
        None => {
            editor.message = "There is no level in levels/ to edit.".into();
            editor.dirty = true;
        }
    }
}

/// F5 and F9 in a playtest. A designer presses F5 to come back to a moment of the fight (F9)
/// and try it another way; the level played is the editor's as it stands, perhaps unsaved or
/// with no file at all, so the quick save is kept here, in memory, for this playtest only:
/// nothing goes to the save folder, and Continue and the Load screen never offer a battle on
/// a level the file does not hold. F9 replays the kept commands on the playtest's level, asking
/// first (a second F9) when it would throw away what was played since. Returns what to say,
/// and whether the battle was replaced by the quick save's.
pub fn playtest_quick_save(editor: &mut Editor, battle: &mut Battle, load: bool) -> (String, bool) {
    if !load {
        editor.playtest_save = Some(battle.commands.clone());
        battle.quick_saved = battle.commands.len();
        battle.confirm_load = false;
        let said = "Playtest quick save kept (F9 comes back to it); a playtest writes no save file";
        return (said.into(), false);
    }
    let Some(kept) = editor.playtest_save.as_ref() else {
        return (
            "No quick save of this playtest yet: F5 keeps one".into(),
            false,
        );
    };
    if battle.commands != *kept && !battle.confirm_load {
        battle.confirm_load = true;
        let said = "Loading the quick save throws away what happened since it was kept: press F9 \
                    again to load it";
        return (said.into(), false);
    }
    battle.confirm_load = false;
    match Battle::replay(battle.setup.clone(), kept) {
        Ok(mut b) => {
            b.id = std::mem::take(&mut battle.id);
            b.quick_saved = b.commands.len();
            *battle = b;
            ("Playtest quick save loaded".into(), true)
        }
        Err(e) => (
            format!("The playtest's quick save does not replay: {e}"),
            false,
        ),
    }
}

/// After a playtest, leaving the battle (to the title, or Back from the result to the setup
/// screen) comes back to the editor.
fn back_from_playtest(editor: Res<Editor>, mut commands: Commands) {
    if editor.playtesting {
        commands.set_state(Screen::Editor);
    }
}

fn editor_keys(
    keys: Res<ButtonInput<KeyCode>>,
    editor: Res<Editor>,
    mut clicks: MessageWriter<UiClick>,
) {
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    let mut send = |a: EditorAction| {
        clicks.write(UiClick(UiAction::Editor(a)));
    };
    if editor.typing.is_some() {
        // The text field has the keyboard (typing_keys).
        return;
    }
    if editor.new_level.is_some() {
        // The new-level form has the keyboard.
        let sizes = [
            (KeyCode::ArrowLeft, (-1, 0)),
            (KeyCode::ArrowRight, (1, 0)),
            (KeyCode::ArrowUp, (0, -1)),
            (KeyCode::ArrowDown, (0, 1)),
        ];
        for (k, (dw, dh)) in sizes {
            if keys.just_pressed(k) {
                send(EditorAction::NewSize(dw, dh));
            }
        }
        if keys.just_pressed(KeyCode::KeyR) {
            send(EditorAction::NewRuleset);
        } else if keys.just_pressed(KeyCode::KeyG) {
            send(EditorAction::NewGrid);
        } else if keys.any_just_pressed([KeyCode::Enter, KeyCode::NumpadEnter]) {
            send(EditorAction::NewLevel);
        } else if keys.just_pressed(KeyCode::Escape) {
            send(EditorAction::Leave);
        }
        return;
    }
    // Painting heights, the digits 0-9 are heights; otherwise 1-9 pick the palette's glyphs.
    if editor.height.is_some() && !editor.moving {
        for (d, k) in std::iter::once(&KeyCode::Digit0)
            .chain(crate::game::keys::DIGITS_1_TO_9.iter())
            .enumerate()
        {
            if keys.just_pressed(*k) {
                send(EditorAction::Height(Some(d as u8)));
            }
        }
    } else {
        for (i, k) in crate::game::keys::DIGITS_1_TO_9.iter().enumerate() {
            if keys.just_pressed(*k) {
                send(EditorAction::Palette(i));
            }
        }
    }
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    if ctrl {
        for (k, edge) in [
            (KeyCode::ArrowLeft, (-1, 0)),
            (KeyCode::ArrowRight, (1, 0)),
            (KeyCode::ArrowUp, (0, -1)),
            (KeyCode::ArrowDown, (0, 1)),
        ] {
            if keys.just_pressed(k) {
                let by = if shift { -1 } else { 1 };
                send(EditorAction::ResizeEdge { edge, by });
            }
        }
    }
    if ctrl && keys.just_pressed(KeyCode::KeyZ) {
        send(EditorAction::Undo);
    } else if ctrl && keys.just_pressed(KeyCode::KeyY) {
        send(EditorAction::Redo);
    } else if ctrl && keys.just_pressed(KeyCode::KeyS) {
        send(EditorAction::Save);
    } else if keys.just_pressed(KeyCode::KeyU) {
        send(EditorAction::ToggleTool);
    } else if keys.just_pressed(KeyCode::Tab) {
        send(EditorAction::NextUnit(if shift { -1 } else { 1 }));
    } else if keys.any_just_pressed([KeyCode::Delete, KeyCode::Backspace]) {
        send(EditorAction::DeleteUnit);
    } else if keys.just_pressed(KeyCode::KeyC) {
        send(EditorAction::CopyUnit);
    } else if keys.just_pressed(KeyCode::KeyP) {
        send(EditorAction::Playtest);
    } else if keys.just_pressed(KeyCode::KeyN) {
        send(EditorAction::NewLevel);
    } else if keys.just_pressed(KeyCode::KeyS) && !ctrl {
        send(EditorAction::NextSide);
    } else if keys.just_pressed(KeyCode::KeyT) {
        send(EditorAction::NextTemplate);
    } else if keys.just_pressed(KeyCode::KeyF) {
        send(EditorAction::NextPaintTool);
    } else if keys.just_pressed(KeyCode::KeyO) {
        send(EditorAction::NextOverlay);
    } else if keys.just_pressed(KeyCode::KeyR) {
        send(EditorAction::Reinforce);
    } else if keys.just_pressed(KeyCode::KeyI) {
        send(if shift {
            EditorAction::NextItem
        } else {
            EditorAction::ItemBrush
        });
    } else if keys.just_pressed(KeyCode::KeyL) {
        send(EditorAction::NewTerrain);
    } else if keys.just_pressed(KeyCode::KeyH) {
        // The height brush on (at 1 level), or off again.
        send(EditorAction::Height(match editor.height {
            Some(_) if !editor.moving => None,
            Some(h) => Some(h),
            None => Some(1),
        }));
    } else if keys.just_pressed(KeyCode::KeyB) {
        let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
        send(if shift {
            EditorAction::BalanceAuto
        } else {
            EditorAction::Balance
        });
    } else if keys.just_pressed(KeyCode::BracketLeft) {
        send(EditorAction::Cycle(-1));
    } else if keys.just_pressed(KeyCode::BracketRight) {
        send(EditorAction::Cycle(1));
    } else if keys.just_pressed(KeyCode::Escape) {
        send(EditorAction::Leave);
    }
}

/// A pressed board cell: the cell under the pointer (on hexes a button's box overlaps its
/// neighbours', so the pointer decides, as on the battle board), else the button's own.
fn click_cells(
    pressed: Query<(&Interaction, &EditorCell), Changed<Interaction>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    map: Query<(&EditorGeometry, &ComputedNode, &UiGlobalTransform)>,
    mut editor: ResMut<Editor>,
) {
    for (interaction, cell) in &pressed {
        if *interaction == Interaction::Pressed {
            let at = board::pointed_cell(window.single().ok(), map.single().ok())
                .map_or((cell.x, cell.y), |c| (c.x, c.y));
            click_cell(&mut editor, at);
        }
    }
}

fn click_cell(editor: &mut Editor, at: (i32, i32)) {
    if editor.placing_goal {
        editor.placing_goal = false;
        if let Some(f) = editor.file()
            && let Some(side) = chosen_side(editor, &f)
        {
            editor.apply(Edit::AddVictory(level::Victory::ReachCell {
                side: side.name.clone(),
                cell: at,
            }));
        }
        return;
    }
    if !editor.moving {
        let glyph = editor.glyph;
        let height = editor.height;
        match (editor.paint_tool, editor.rect_from) {
            (PaintTool::Brush, _) => editor.apply(match height {
                Some(height) => Edit::SetHeight {
                    from: at,
                    to: at,
                    height,
                },
                None => Edit::Paint { cell: at, glyph },
            }),
            (PaintTool::Fill, _) => editor.apply(match height {
                Some(height) => Edit::FillHeight { cell: at, height },
                None => Edit::Fill { cell: at, glyph },
            }),
            (PaintTool::Rect | PaintTool::Line, None) => {
                editor.rect_from = Some(at);
                editor.message = format!(
                    "{} from ({}, {}): click the other end",
                    if editor.paint_tool == PaintTool::Line {
                        "Line"
                    } else {
                        "Rectangle"
                    },
                    at.0,
                    at.1
                );
                editor.dirty = true;
            }
            (PaintTool::Line, Some(from)) => {
                editor.rect_from = None;
                editor.apply(match height {
                    Some(height) => Edit::SetHeightLine {
                        from,
                        to: at,
                        height,
                    },
                    None => Edit::PaintLine {
                        from,
                        to: at,
                        glyph,
                    },
                });
            }
            (PaintTool::Rect, Some(from)) => {
                editor.rect_from = None;
                editor.apply(match height {
                    Some(height) => Edit::SetHeight {
                        from,
                        to: at,
                        height,
                    },
                    None => Edit::PaintRect {
                        from,
                        to: at,
                        glyph,
                    },
                });
            }
        }
        return;
    }
    if editor.item_brush {
        editor.brush_item(at);
        return;
    }
    // A unit on the cell, else a reinforcement arriving there.
    let on_cell = editor.file().and_then(|f| {
        f.units
            .iter()
            .find(|u| u.cell == at)
            .or_else(|| events::reinforcement_at(&f, at))
            .map(|u| u.name.clone())
    });
    match (on_cell, editor.picked.clone()) {
        (Some(name), _) => {
            editor.message = format!("{name} picked: click a cell to move it there");
            editor.picked = Some(name);
            editor.dirty = true;
        }
        (None, Some(name)) if editor.copying => {
            editor.copying = false;
            let Some(f) = editor.file() else { return };
            let Some(u) = f.units.iter().find(|u| u.name == name) else {
                return;
            };
            // "Orc" -> "Orc 2", "Orc 3"...: the first name no unit has.
            let base = name
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .trim_end();
            let copy = free_unit_name(&f, base, 2);
            editor.apply(Edit::AddUnit {
                name: copy.clone(),
                side: u.side.clone(),
                cell: at,
                template: u.template.clone(),
                overrides: u.overrides.clone(),
                items: u.items.clone(),
            });
            editor.picked = Some(copy);
        }
        (None, Some(name))
            if editor
                .file()
                .is_some_and(|f| events::reinforcement(&f, &name).is_some()) =>
        {
            editor.apply(Edit::MoveReinforcement { unit: name, to: at })
        }
        (None, Some(name)) => editor.apply(Edit::MoveUnit { unit: name, to: at }),
        (None, None) => {
            let Some(f) = editor.file() else { return };
            let Some(data) = ruleset_data::builtin(f.ruleset) else {
                return;
            };
            let (Some(side), Some((key, t))) = (
                chosen_side(editor, &f),
                data.templates
                    .iter()
                    .nth(editor.template % data.templates.len().max(1)),
            ) else {
                return;
            };
            // "Hammer Brute 1", "Hammer Brute 2"...: the template's name and the first free
            // number.
            let name = free_unit_name(&f, &t.name, 1);
            let unit = level::UnitDef {
                name: name.clone(),
                side: side.name.clone(),
                cell: at,
                template: key.clone(),
                overrides: Default::default(),
                items: Vec::new(),
            };
            // With R, a reinforcement arriving on the events' round; else a unit.
            let (edit, done) = if editor.reinforcing {
                let round = editor.event_round();
                (
                    Edit::AddReinforcement { round, unit },
                    format!("{name} arrives at ({}, {}) on round {round}", at.0, at.1),
                )
            } else {
                (
                    Edit::AddUnit {
                        name: unit.name,
                        side: unit.side,
                        cell: unit.cell,
                        template: unit.template,
                        overrides: unit.overrides,
                        items: unit.items,
                    },
                    format!("{name} placed: click it to pick it"),
                )
            };
            editor.apply(edit);
            if editor.message.is_empty() {
                editor.message = done;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn editor_actions(
    mut clicks: MessageReader<UiClick>,
    mut editor: ResMut<Editor>,
    mut setup: ResMut<SetupState>,
    catalog: Res<Catalog>,
    levels_dir: Option<Res<LevelsDir>>,
    mut commands: Commands,
) {
    for UiClick(action) in clicks.read() {
        let UiAction::Editor(a) = action else {
            continue;
        };
        match a {
            EditorAction::Palette(i) => {
                if let Some(f) = editor.file()
                    && let Some((g, t)) = merged_legend(&f.legend).get(*i)
                {
                    editor.glyph = *g;
                    editor.set_mode(ClickMode::Paint);
                    editor.height = None;
                    editor.message = format!("Painting '{g}' ({})", t.label());
                    editor.dirty = true;
                }
            }
            EditorAction::Height(h) => {
                editor.height = *h;
                editor.set_mode(ClickMode::Paint);
                editor.message = match h {
                    Some(h) => format!(
                        "Painting heights: {h} level(s) with the {} (0-9 pick the height, H paints terrain again)",
                        editor.paint_tool.name()
                    ),
                    None => format!("Painting '{}'", editor.glyph),
                };
                editor.dirty = true;
            }
            EditorAction::DeleteUnit => match editor.picked.take() {
                Some(unit)
                    if editor
                        .file()
                        .is_some_and(|f| events::reinforcement(&f, &unit).is_some()) =>
                {
                    editor.apply(Edit::RemoveReinforcement { unit })
                }
                Some(unit) => editor.apply(Edit::RemoveUnit { unit }),
                None => {
                    editor.message = "Pick a unit first (U, then click it)".into();
                    editor.dirty = true;
                }
            },
            EditorAction::CopyUnit => {
                if editor.picked.is_some() {
                    editor.copying = true;
                    editor.message = "Click an empty cell to place a copy".into();
                } else {
                    editor.message = "Pick a unit first (U, then click it)".into();
                }
                editor.dirty = true;
            }
            EditorAction::ToggleTool => {
                let to = match editor.mode() {
                    ClickMode::Paint => ClickMode::Units,
                    _ => ClickMode::Paint,
                };
                editor.set_mode(to);
                editor.picked = None;
            }
            EditorAction::NextItem => {
                let Some(f) = editor.file() else { continue };
                editor.item += 1;
                editor.message = match editor.chosen_item(&f) {
                    Some((key, d)) => format!(
                        "Item: {key}{}",
                        if d.kind == ruleset_data::ItemKind::Heavy {
                            " (a heavy object: it lies on a cell, no unit carries it)"
                        } else {
                            ""
                        }
                    ),
                    None => Editor::no_items(&f),
                };
                editor.dirty = true;
            }
            EditorAction::GiveItem => editor.change_items(true),
            EditorAction::TakeItem => editor.change_items(false),
            EditorAction::ItemBrush => {
                let Some(f) = editor.file() else { continue };
                editor.dirty = true;
                let Some((key, _)) = editor.chosen_item(&f) else {
                    editor.item_brush = false;
                    editor.message = Editor::no_items(&f);
                    continue;
                };
                editor.message = if editor.toggle_mode(ClickMode::ItemBrush) {
                    format!(
                        "Item brush: a click leaves a {key} on the cell (Shift+I picks another), or takes the last item off a cell that has some; I again: units"
                    )
                } else {
                    "Item brush off: clicks pick, move and place units".into()
                };
            }
            EditorAction::Undo => {
                let done = editor.doc.as_mut().is_some_and(LevelDoc::undo);
                editor.message = if done { "Undone" } else { "Nothing to undo" }.into();
                editor.dirty = true;
                if done {
                    editor.level_changed();
                }
            }
            EditorAction::Redo => {
                let done = editor.doc.as_mut().is_some_and(LevelDoc::redo);
                editor.message = if done { "Redone" } else { "Nothing to redo" }.into();
                editor.dirty = true;
                if done {
                    editor.level_changed();
                }
            }
            EditorAction::Save => editor.save(),
            EditorAction::Balance => {
                if editor.meter.take().is_some() {
                    editor.message = "Balance meter stopped".into();
                    editor.dirty = true;
                } else {
                    editor.start_meter();
                }
            }
            EditorAction::NewLevel => match editor.new_level.clone() {
                None => {
                    if editor.unsaved() && !editor.confirm_leave {
                        editor.confirm_leave = true;
                        editor.message =
                            "Unsaved changes: Ctrl+S saves them; N again drops them".into();
                    } else {
                        editor.confirm_leave = false;
                        editor.new_level = Some(NewLevel {
                            ruleset: 0,
                            grid: 0,
                            size: (16, 12),
                        });
                    }
                    editor.dirty = true;
                }
                Some(form) => {
                    let (Some(data), Some(topology)) = (form.data(), form.topology()) else {
                        continue;
                    };
                    let dir = levels_dir
                        .as_ref()
                        .map_or_else(level::levels_dir, |d| d.0.clone());
                    let path = new_path(&dir, &data.id);
                    let text = blank(data, topology, form.size);
                    editor.new_level = None;
                    match crate::rules::replay::write_atomic(&path, &text) {
                        Ok(()) => {
                            editor.open(path.clone());
                            editor.message = format!(
                                "Created {}: paint it, place units (U), playtest (P)",
                                path.display()
                            );
                        }
                        Err(e) => {
                            editor.message = format!("Could not create {}: {e}", path.display());
                            editor.dirty = true;
                        }
                    }
                }
            },
            EditorAction::NewRuleset => {
                if let Some(form) = editor.new_level.as_mut() {
                    form.ruleset = (form.ruleset + 1) % ruleset_data::all().count().max(1);
                    form.grid = 0;
                }
                editor.dirty = true;
            }
            EditorAction::NewGrid => {
                if let Some(form) = editor.new_level.as_mut() {
                    form.grid = (form.grid + 1) % form.grids().len().max(1);
                }
                editor.dirty = true;
            }
            EditorAction::NewSize(dw, dh) => {
                if let Some(form) = editor.new_level.as_mut() {
                    let step = |v: u32, d: i32| {
                        (i64::from(v) + i64::from(d)).clamp(2, i64::from(NEW_MAX_SIDE)) as u32
                    };
                    form.size = (step(form.size.0, *dw), step(form.size.1, *dh));
                }
                editor.dirty = true;
            }
            EditorAction::Problem(i) => {
                let (Some(doc), Some(path)) = (&editor.doc, &editor.path) else {
                    continue;
                };
                let problems = level::validate(&path.display().to_string(), doc.text());
                if let Some(d) = problems.get(*i) {
                    let cell = locate(doc.text(), d.line, d.col);
                    editor.marked = cell;
                    editor.message = match cell {
                        Some((x, y)) => format!("({x}, {y}), marked: {}", d.message),
                        None => format!("line {}, column {}: {}", d.line, d.col, d.message),
                    };
                    editor.dirty = true;
                }
            }
            EditorAction::ResizeEdge { edge, by } => {
                let Some(f) = editor.file() else { continue };
                let (w, h) = (i64::from(f.size.0), i64::from(f.size.1));
                let (dx, dy) = (i64::from(edge.0.abs()), i64::from(edge.1.abs()));
                let (nw, nh) = (w + dx * i64::from(*by), h + dy * i64::from(*by));
                if nw < 1 || nh < 1 {
                    editor.message = "The map cannot be smaller".into();
                    editor.dirty = true;
                    continue;
                }
                // Growing or shrinking the left or top edge shifts what is there.
                let shift = |e: i32| if e < 0 { *by } else { 0 };
                editor.apply(Edit::Resize {
                    size: (nw as u32, nh as u32),
                    offset: (shift(edge.0), shift(edge.1)),
                    fill: '.',
                });
            }
            EditorAction::Type(field) => {
                let Some(f) = editor.file() else { continue };
                let text = match field {
                    Field::LevelName => f.name.clone(),
                    Field::Description => f.description.clone(),
                    Field::Seed => f.seed.to_string(),
                    Field::Side(i) => f.sides.get(*i).map_or(String::new(), |s| s.name.clone()),
                    Field::Unit(i) => f.units.get(*i).map_or(String::new(), |u| u.name.clone()),
                    Field::Terrain(g) => editor.terrain_of(*g).map_or(String::new(), |t| t.name),
                    Field::Stat(i) => editor
                        .picked_stat(*i)
                        .map_or(String::new(), |(_, base, now)| {
                            now.unwrap_or(base).to_string()
                        }),
                    Field::Message => String::new(),
                };
                editor.typing = Some(Typing {
                    field: field.clone(),
                    text,
                    replace: true,
                });
                editor.dirty = true;
            }
            EditorAction::ToggleController(i) => {
                let Some(f) = editor.file() else { continue };
                let Some(now) = f.sides.get(*i) else {
                    continue;
                };
                let side = &now.name;
                let controller = match now.controller {
                    level::Controller::Human => level::Controller::Ai,
                    level::Controller::Ai => level::Controller::Human,
                };
                editor.apply(Edit::SetController {
                    side: side.clone(),
                    controller,
                });
            }
            EditorAction::TerrainCost(_)
            | EditorAction::TerrainImpassable
            | EditorAction::TerrainSight
            | EditorAction::TerrainDifficult => {
                let Some(f) = editor.file() else { continue };
                let glyph = editor.glyph;
                let Some((_, mut t)) = merged_legend(&f.legend)
                    .into_iter()
                    .find(|(k, _)| *k == glyph)
                else {
                    continue;
                };
                match a {
                    EditorAction::TerrainCost(d) => {
                        let now = i64::from(t.cost.unwrap_or(0));
                        t.cost = Some(
                            (now + i64::from(*d)).clamp(1, i64::from(level::MAX_TERRAIN_COST))
                                as u32,
                        );
                    }
                    EditorAction::TerrainImpassable => {
                        t.cost = if t.cost.is_some() { None } else { Some(1) };
                    }
                    EditorAction::TerrainSight => {
                        t.sight = match t.sight {
                            Sight::Clear => Sight::Slit,
                            Sight::Slit => Sight::Opaque,
                            Sight::Opaque => Sight::Clear,
                        };
                    }
                    _ => t.difficult = !t.difficult,
                }
                editor.apply(Edit::SetLegend {
                    glyph,
                    terrain: Some(t),
                });
            }
            EditorAction::NewTerrain => {
                let Some(f) = editor.file() else { continue };
                let legend = merged_legend(&f.legend);
                let free = ('a'..='z')
                    .chain('A'..='Z')
                    .find(|c| legend.iter().all(|(k, _)| k != c));
                let base = legend
                    .iter()
                    .find(|(k, _)| *k == editor.glyph)
                    .map(|(_, t)| t.clone());
                let (Some(glyph), Some(mut t)) = (free, base) else {
                    editor.message = "No free glyph is left for a new terrain".into();
                    editor.dirty = true;
                    continue;
                };
                t.name = format!("new {}", t.name);
                let name = t.name.clone();
                editor.apply(Edit::SetLegend {
                    glyph,
                    terrain: Some(t),
                });
                if editor.message.is_empty() {
                    editor.message =
                        format!("Added '{glyph}' {name} to the legend: Name... renames it");
                }
                editor.glyph = glyph;
                editor.height = None;
                editor.set_mode(ClickMode::Paint);
            }
            EditorAction::RemoveVictory(i) => editor.apply(Edit::RemoveVictory(*i)),
            EditorAction::RemoveEvent(i) => editor.apply(Edit::RemoveEvent(*i)),
            EditorAction::EventRound(d) => {
                editor.event_round =
                    (i64::from(editor.event_round()) + i64::from(*d)).clamp(1, 99) as u32;
                editor.dirty = true;
            }
            EditorAction::Reinforce => {
                // A click on an empty cell places a reinforcement, not the picked unit.
                editor.picked = None;
                editor.message = if editor.toggle_mode(ClickMode::Reinforce) {
                    format!(
                        "Click an empty cell: a reinforcement arrives there on round {} (R again: units)",
                        editor.event_round()
                    )
                } else {
                    "Units: an empty cell clicked gets a new unit".into()
                };
            }
            EditorAction::AddLastStanding => {
                editor.apply(Edit::AddVictory(level::Victory::LastSideStanding))
            }
            EditorAction::AddSurvive => {
                if let Some(f) = editor.file()
                    && let Some(side) = chosen_side(&editor, &f)
                {
                    let rounds = editor.hold_rounds();
                    editor.apply(Edit::AddVictory(level::Victory::SurviveRounds {
                        side: side.name.clone(),
                        rounds,
                    }));
                }
            }
            EditorAction::Rounds(d) => {
                editor.rounds =
                    (i64::from(editor.hold_rounds()) + i64::from(*d)).clamp(1, 99) as u32;
                editor.dirty = true;
            }
            EditorAction::AddReachCell => {
                editor.placing_goal = true;
                editor.message = "Click the cell the side must reach".into();
                editor.dirty = true;
            }
            EditorAction::NextOverlay => {
                editor.overlay = match editor.overlay {
                    None => Some(OverlayKind::Reach),
                    Some(OverlayKind::Reach) => Some(OverlayKind::Threat),
                    Some(OverlayKind::Threat) => Some(OverlayKind::Sight),
                    Some(OverlayKind::Sight) => None,
                };
                editor.message = match (editor.overlay, &editor.picked) {
                    (None, _) => "Overlay off".into(),
                    (Some(k), Some(u)) => format!("Overlay: {} for {u}", overlay_name(k)),
                    (Some(k), None) => format!(
                        "Overlay: {} - pick a unit (U, then click it) to see it",
                        overlay_name(k)
                    ),
                };
                editor.dirty = true;
            }
            EditorAction::NextPaintTool => {
                editor.paint_tool = editor.paint_tool.next();
                editor.rect_from = None;
                editor.set_mode(ClickMode::Paint);
                editor.message = format!("Paint tool: {}", editor.paint_tool.name());
                editor.dirty = true;
            }
            EditorAction::NextSide => {
                editor.side += 1;
                editor.moving = true;
                editor.dirty = true;
            }
            EditorAction::NextTemplate => {
                editor.template += 1;
                editor.moving = true;
                editor.dirty = true;
            }
            EditorAction::BalanceAuto => {
                editor.meter_auto = !editor.meter_auto;
                if editor.meter_auto && editor.meter.is_none() {
                    editor.start_meter();
                }
                editor.dirty = true;
            }
            EditorAction::Playtest => {
                let Some(doc) = editor.doc.as_ref() else {
                    continue;
                };
                let name = editor
                    .path
                    .as_ref()
                    .map_or("level".into(), |p| p.display().to_string());
                match level::load(&name, doc.text()) {
                    Ok(l) => {
                        let path = editor.path.clone();
                        editor.playtesting = true;
                        editor.playtest_save = None;
                        start_battle(&mut commands, Battle::new(BattleSetup::new(l, path)));
                    }
                    Err(d) => {
                        editor.message =
                            format!("Fix the level's {} problem(s) before a playtest", d.len());
                        editor.dirty = true;
                    }
                }
            }
            EditorAction::Cycle(step) => {
                let n = catalog.entries.len();
                if n == 0 {
                    continue;
                }
                if editor.unsaved() && !editor.confirm_leave {
                    editor.confirm_leave = true;
                    editor.message =
                        "Unsaved changes: Ctrl+S saves them; press again to drop them".into();
                    editor.dirty = true;
                    continue;
                }
                setup.selected =
                    (setup.selected as i64 + i64::from(*step)).rem_euclid(n as i64) as usize;
                let path = catalog.entries[setup.selected].path.clone();
                editor.open(path);
            }
            EditorAction::NextUnit(step) => editor.next_unit(*step),
            EditorAction::Override { stat, by } => {
                if let Some((_, base, now)) = editor.picked_stat(*stat) {
                    let v = now.unwrap_or(base).saturating_add(i64::from(*by));
                    editor.set_stat(*stat, Some(v));
                } else {
                    editor.set_stat(*stat, None);
                }
            }
            EditorAction::ClearOverride(stat) => editor.set_stat(*stat, None),
            EditorAction::Leave if editor.new_level.is_some() => {
                editor.new_level = None;
                editor.dirty = true;
            }
            EditorAction::Leave => {
                if editor.unsaved() && !editor.confirm_leave {
                    editor.confirm_leave = true;
                    editor.message =
                        "Unsaved changes: Ctrl+S saves them; Esc again leaves without saving"
                            .into();
                    editor.dirty = true;
                } else {
                    // Leaving drops the unsaved text: the next visit opens the file again.
                    editor.doc = None;
                    editor.meter = None;
                    editor.confirm_leave = false;
                    commands.set_state(Screen::Title);
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn rebuild(
    mut editor: ResMut<Editor>,
    mut commands: Commands,
    board: Query<Entity, With<EditorBoard>>,
    panel: Query<Entity, With<EditorPanel>>,
    windows: Query<&Window>,
    mut size_drawn: Local<Vec2>,
    mut board_drawn: Local<Option<BoardShape>>,
    mut cells: Query<CellParts, Without<EditorPanel>>,
    mut texts: Query<(&mut Text, &mut TextColor)>,
    mut markers: Query<&mut Visibility, With<board::HexMarker>>,
    item_marks: Query<(), With<board::ItemMark>>,
    art: Res<Art>,
) {
    let (win_w, win_h) = windows
        .iter()
        .next()
        .map_or((1280.0, 800.0), |w| (w.width(), w.height()));
    // A new window size fits the board again.
    if *size_drawn != Vec2::new(win_w, win_h) {
        *size_drawn = Vec2::new(win_w, win_h);
        editor.dirty = true;
    }
    if !editor.dirty {
        return;
    }
    editor.dirty = false;
    // The screen's frame stays; what is in the board and the panel is drawn again (the panel
    // keeps its scroll position).
    let (board, panel) = match (board.single(), panel.single()) {
        (Ok(b), Ok(p)) => (b, p),
        _ => spawn_frame(&mut commands),
    };
    let file = editor.file();
    let tints = overlay_tints(&editor);
    let problems = match (&editor.doc, &editor.path) {
        (Some(doc), Some(p)) => level::validate(&p.display().to_string(), doc.text()),
        _ => Vec::new(),
    };
    let board_w = (win_w - PANEL_WIDTH - 40.0).max(200.0);
    let board_h = (win_h - 80.0 - STATUS_HEIGHT - METER_HEIGHT).max(200.0);
    // The battle board's layout of the map (squares or hexes), fitted to the room.
    let geometry = file.as_ref().map(|f| {
        EditorGeometry::fit(
            Grid::new(f.topology, f.size.0, f.size.1),
            Vec2::new(board_w, board_h),
        )
    });
    // The board: its cells are spawned once for a map and cell size; after that an edit
    // repaints only the cells whose look changed (a painted cell, a moved unit...).
    let looks = file.as_ref().map(|f| board_looks(&editor, f, &tints));
    let shape = (board, geometry, looks.as_ref().map_or(0, Vec::len));
    if *board_drawn != Some(shape) || std::mem::take(&mut editor.respawn_board) {
        *board_drawn = Some(shape);
        commands
            .entity(board)
            .despawn_children()
            .with_children(|board| {
                spawn_board(
                    board,
                    file.as_ref(),
                    looks.as_deref(),
                    geometry.as_ref(),
                    &art,
                )
            });
    } else if let (Some(f), Some(looks)) = (&file, &looks) {
        board::repaint(
            looks,
            f.size.0.max(1) as usize,
            super::art::TileShape::of(f.topology),
            &mut cells,
            &mut texts,
            &mut markers,
            &item_marks,
            &mut commands,
        );
    }
    commands
        .entity(panel)
        .despawn_children()
        .with_children(|p| {
            if let Some(form) = &editor.new_level {
                new_level_form(p, form);
                return;
            }
            let title = match (&file, &editor.path) {
                (Some(f), Some(path)) => format!(
                    "{}{} ({})",
                    f.name,
                    if editor.unsaved() { " *" } else { "" },
                    path.file_name().map_or(String::new(), |n| n.to_string_lossy().into())
                ),
                _ => "Level editor".into(),
            };
            p.spawn(ui::text(title, 20.0, ui::ACCENT));
            if let Some(f) = &file {
                p.spawn(ui::text(
                    format!("{} - {} x {}", f.ruleset, f.size.0, f.size.1),
                    14.0,
                    ui::DIM,
                ));
                if problems.is_empty() {
                    p.spawn(ui::text("No problems: the level plays.", 14.0, ui::GOOD));
                } else {
                    p.spawn(ui::text(format!("{} problem(s):", problems.len()), 14.0, ui::BAD));
                    // Each a button: a click marks its cell on the board.
                    for (i, d) in problems.iter().enumerate().take(8) {
                        p.spawn((
                            Button,
                            UiAction::Editor(EditorAction::Problem(i)),
                            ui::ButtonColour(ui::PANEL),
                            Node {
                                padding: UiRect::axes(px(4), px(2)),
                                ..default()
                            },
                            BackgroundColor(ui::PANEL),
                            children![ui::text(
                                format!("{}:{}: {}", d.line, d.col, d.message),
                                13.0,
                                ui::BAD
                            )],
                        ));
                    }
                }

                p.spawn(ui::text(
                    if editor.moving && editor.item_brush {
                        "Tool: item brush - a click leaves the chosen item on a cell, or takes the last item off a cell that has some (I: units again)".to_string()
                    } else if editor.moving {
                        "Tool: units - click one (or Tab, Shift+Tab) to pick it, then a cell to move it; C copies, Del removes; an empty cell gets a new unit (U to paint)".to_string()
                    } else {
                        format!(
                            "Tool: paint {}, {} (F: brush / line / rectangle / fill; H: heights; Ctrl+arrow grows the map at that edge, with Shift shrinks it; U units; N new level)",
                            editor.height.map_or("terrain".to_string(), |h| format!("height {h}")),
                            editor.paint_tool.name()
                        )
                    },
                    15.0,
                    ui::TEXT,
                ));
                if editor.moving {
                    // The item chooser and brush first: in sight above a picked unit's stats.
                    items_panel(p, &editor, f);
                    unit_panel(p, &editor, f);
                    new_unit_panel(p, &editor, f);
                    level_panel(p, f);
                    victory_panel(p, &editor, f);
                    events::events_panel(p, &editor, f);
                }
                // Every glyph of the level's legend; the first nine also on the digit keys.
                let palette = if editor.moving { 0 } else { usize::MAX };
                if !editor.moving {
                    height_panel(p, &editor, f);
                    terrain_panel(p, &editor, f);
                }
                // Two glyphs a row: the panel keeps room for the problems and the meter.
                p.spawn(Node {
                    flex_direction: FlexDirection::Row,
                    flex_wrap: FlexWrap::Wrap,
                    ..default()
                })
                .with_children(|row| {
                    let legend = merged_legend(&f.legend);
                    for (i, (g, t)) in legend.iter().enumerate().take(palette) {
                        let on = !editor.moving && editor.height.is_none() && editor.glyph == *g;
                        let colour = if on { ui::BUTTON_ON } else { ui::BUTTON };
                        row.spawn((
                            Button,
                            UiAction::Editor(EditorAction::Palette(i)),
                            ui::ButtonColour(colour),
                            Node {
                                width: percent(48),
                                margin: UiRect::all(px(2)),
                                padding: UiRect::axes(px(6), px(3)),
                                border_radius: BorderRadius::all(px(4)),
                                ..default()
                            },
                            BackgroundColor(colour),
                            children![ui::text(
                                if i < 9 {
                                    format!("[{}] '{g}' {}", i + 1, t.label())
                                } else {
                                    format!("'{g}' {}", t.label())
                                },
                                14.0,
                                ui::TEXT
                            )],
                        ));
                    }
                });
            }
            p.spawn(Node {
                flex_direction: FlexDirection::Row,
                flex_wrap: FlexWrap::Wrap,
                ..default()
            })
            .with_children(|row| {
                for (label, a) in [
                    ("Undo ^Z", EditorAction::Undo),
                    ("Redo ^Y", EditorAction::Redo),
                    ("Save ^S", EditorAction::Save),
                    ("Playtest P", EditorAction::Playtest),
                    ("Balance B", EditorAction::Balance),
                    ("New level N", EditorAction::NewLevel),
                    ("< [", EditorAction::Cycle(-1)),
                    ("] >", EditorAction::Cycle(1)),
                    ("Back Esc", EditorAction::Leave),
                ] {
                    row.spawn(ui::button(label, None, UiAction::Editor(a)));
                }
            });
        });
}

/// The balance meter's lines: progress, each side's win rate with its 95% interval, draws,
/// mean rounds and the verdict once enough games are in.
pub fn meter_lines(editor: &Editor) -> String {
    let Some(meter) = &editor.meter else {
        return format!(
            "Balance: B plays the level, normal AI against itself; Shift+B after every edit ({})",
            if editor.meter_auto { "on" } else { "off" }
        );
    };
    let names: Vec<String> = editor
        .file()
        .map(|f| f.sides.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let t = meter.tally();
    let mut lines = vec![format!(
        "Balance ({} against itself{}): {}/{} games{}",
        meter.ai().name(),
        if editor.meter_auto {
            ", after every edit"
        } else {
            ""
        },
        t.games,
        meter.total(),
        if meter.finished() { "" } else { "..." }
    )];
    if t.games == 0 {
        return lines.join("\n");
    }
    let (records, verdict) = t.verdict(&names);
    let sides: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                "{} {:.0}% ({:.0}-{:.0}%)",
                r.side,
                100.0 * r.win_rate,
                100.0 * r.win_rate_95.0,
                100.0 * r.win_rate_95.1
            )
        })
        .collect();
    lines.push(sides.join(", "));
    lines.push(format!(
        "draws {}, mean rounds {:.1}: {verdict}",
        t.draws,
        t.mean_rounds()
    ));
    if t.failed > 0 {
        lines.push(format!(
            "{} game(s) failed: run fray balance to see why",
            t.failed
        ));
    }
    if t.cut > 0 {
        lines.push(format!(
            "{} decision(s) cut by the time limit: may differ on another machine",
            t.cut
        ));
    }
    lines.join("\n")
}

/// Fills in the balance meter's text and bar from its tally (every frame: reading the tally
/// takes a lock for a copy, never a wait for a game).
fn meter_panel(
    editor: Res<Editor>,
    mut text: Query<&mut Text, With<MeterText>>,
    mut bar: Query<&mut Node, With<MeterBar>>,
) {
    let lines = meter_lines(&editor);
    for mut t in &mut text {
        if t.0 != lines {
            t.0.clone_from(&lines);
        }
    }
    let done = editor.meter.as_ref().map_or(0.0, |m| {
        let t = m.tally();
        (t.games + t.failed) as f32 / m.total().max(1) as f32
    });
    for mut n in &mut bar {
        let w = percent(100.0 * done.min(1.0));
        if n.width != w {
            n.width = w;
        }
    }
}

/// The new-level form: ruleset, grid and size, with the keys that change them.
fn new_level_form(p: &mut ChildSpawnerCommands, form: &NewLevel) {
    p.spawn(ui::text("New level", 20.0, ui::ACCENT));
    let Some(data) = form.data() else {
        p.spawn(ui::text("No ruleset is available.", 14.0, ui::BAD));
        return;
    };
    p.spawn(ui::button(
        format!("Ruleset: {} ({})", data.id, data.name),
        Some("R"),
        UiAction::Editor(EditorAction::NewRuleset),
    ));
    if !data.description.is_empty() {
        p.spawn(ui::text(data.description.clone(), 13.0, ui::DIM));
    }
    p.spawn(ui::button(
        format!("Grid: {}", form.topology().map_or("none".into(), grid_name)),
        Some("G"),
        UiAction::Editor(EditorAction::NewGrid),
    ));
    p.spawn(ui::text(
        format!(
            "Size: {} x {} (Left/Right width, Up/Down height)",
            form.size.0, form.size.1
        ),
        15.0,
        ui::TEXT,
    ));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        for (label, a) in [
            ("W-", EditorAction::NewSize(-1, 0)),
            ("W+", EditorAction::NewSize(1, 0)),
            ("H-", EditorAction::NewSize(0, -1)),
            ("H+", EditorAction::NewSize(0, 1)),
        ] {
            row.spawn(ui::button(label, None, UiAction::Editor(a)));
        }
    });
    p.spawn(ui::text(
        "A field of floor, Blue (you) and Red (the AI) with a unit each, last side standing wins.",
        13.0,
        ui::DIM,
    ));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        ..default()
    })
    .with_children(|row| {
        row.spawn(ui::button(
            "Create",
            Some("Enter"),
            UiAction::Editor(EditorAction::NewLevel),
        ));
        row.spawn(ui::button(
            "Cancel",
            Some("Esc"),
            UiAction::Editor(EditorAction::Leave),
        ));
    });
}

/// The units tool's choice for new units: the side and the template, with its numbers.
fn new_unit_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    let side = chosen_side(editor, f).map_or("?".into(), |s| s.name.clone());
    p.spawn(ui::button(
        format!("New units' side: {side}"),
        Some("S"),
        UiAction::Editor(EditorAction::NextSide),
    ));
    let Some(data) = ruleset_data::builtin(f.ruleset) else {
        return;
    };
    let Some((key, t)) = data
        .templates
        .iter()
        .nth(editor.template % data.templates.len().max(1))
    else {
        return;
    };
    p.spawn(ui::button(
        format!("Template: {key} ({})", t.name),
        Some("T"),
        UiAction::Editor(EditorAction::NextTemplate),
    ));
    let stats: Vec<String> = t.stats.iter().map(|(k, v)| format!("{k} {v}")).collect();
    p.spawn(ui::text(
        format!(
            "movement {}, reach {}; {}",
            t.movement,
            t.reach,
            stats.join(", ")
        ),
        12.0,
        ui::DIM,
    ));
}

fn overlay_name(k: OverlayKind) -> &'static str {
    match k {
        OverlayKind::Reach => "reach",
        OverlayKind::Threat => "threatened cells",
        OverlayKind::Sight => "sight and cover",
    }
}

/// The overlay's colour for each cell it marks: the battle's own reach, threat and cover of
/// the picked unit, on a battle started from the level as it stands (none if it has problems).
pub fn overlay_tints(editor: &Editor) -> std::collections::BTreeMap<(i32, i32), Color> {
    use crate::rules::sight::Cover;
    let mut tints = std::collections::BTreeMap::new();
    let (Some(kind), Some(name), Some(doc)) = (editor.overlay, &editor.picked, &editor.doc) else {
        return tints;
    };
    let Ok(level) = level::load("editor", doc.text()) else {
        return tints;
    };
    let Some(index) = level.file.units.iter().position(|u| &u.name == name) else {
        return tints;
    };
    let seed = level.file.seed;
    let (state, _) = crate::rules::battle::BattleState::start(&level, seed);
    let layers = forced_layers(
        &state,
        ForcedOverlay {
            kind,
            unit: crate::rules::battle::UnitId(index as u16),
        },
    );
    for (c, _) in &layers.reach {
        tints.insert((c.x, c.y), Color::srgb(0.35, 0.7, 1.0));
    }
    for c in &layers.threat {
        tints.insert((c.x, c.y), Color::srgb(0.95, 0.45, 0.1));
    }
    for (c, cover) in &layers.cover_map {
        let tint = match cover {
            Cover::None => Color::srgb(0.95, 0.95, 0.6),
            Cover::Half => Color::srgb(0.95, 0.7, 0.2),
            Cover::Full => Color::srgb(0.8, 0.35, 0.1),
            Cover::Blocked => Color::srgb(0.1, 0.1, 0.12),
        };
        tints.insert((c.x, c.y), tint);
    }
    tints
}

/// How the level is won, each condition a button that removes it, and buttons that add one
/// (for the new units' side).
fn victory_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    let side = chosen_side(editor, f).map_or("?".into(), |s| s.name.clone());
    p.spawn(ui::text(
        "To win (click one to remove it):",
        14.0,
        ui::ACCENT,
    ));
    if f.victory.is_empty() {
        p.spawn(ui::text(
            "  (none: the last side standing wins)",
            13.0,
            ui::DIM,
        ));
    }
    for (i, v) in f.victory.iter().enumerate() {
        let words = match v {
            level::Victory::LastSideStanding => "the last side standing".to_string(),
            level::Victory::SurviveRounds { side, rounds } => {
                format!("{side} holds out {rounds} rounds")
            }
            level::Victory::ReachCell { side, cell } => {
                format!("{side} reaches ({}, {})", cell.0, cell.1)
            }
        };
        p.spawn(ui::button(
            format!("x {words}"),
            None,
            UiAction::Editor(EditorAction::RemoveVictory(i)),
        ));
    }
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        let rounds = editor.hold_rounds();
        for (label, a) in [
            ("+ last standing".to_string(), EditorAction::AddLastStanding),
            (format!("+ {side} holds {rounds}"), EditorAction::AddSurvive),
            ("-".to_string(), EditorAction::Rounds(-1)),
            ("+".to_string(), EditorAction::Rounds(1)),
            (format!("+ {side} reaches..."), EditorAction::AddReachCell),
        ] {
            row.spawn(ui::button(label, None, UiAction::Editor(a)));
        }
    });
}

/// Closing the window (its close button) with unsaved changes in the editor asks first, as Esc
/// does: the first request only says so, the second closes. Otherwise the window closes as
/// Bevy's own `close_when_requested` would (the game turns that off and adds this instead).
pub fn guard_close(
    mut commands: Commands,
    mut requests: MessageReader<bevy::window::WindowCloseRequested>,
    closing: Query<Entity, With<bevy::window::ClosingWindow>>,
    editor: Option<ResMut<Editor>>,
    screen: Option<Res<State<Screen>>>,
) {
    for window in &closing {
        commands.entity(window).despawn();
    }
    let editing = screen.is_some_and(|s| *s.get() == Screen::Editor);
    let mut editor = editor;
    for request in requests.read() {
        if editing
            && let Some(editor) = editor.as_mut()
            && editor.unsaved()
            && !editor.confirm_close
        {
            editor.confirm_close = true;
            editor.message =
                "Unsaved changes: Ctrl+S saves them; close the window again to drop them".into();
            editor.dirty = true;
            continue;
        }
        commands
            .entity(request.window)
            .try_insert(bevy::window::ClosingWindow);
    }
}

/// The side new units, hold-out and reach conditions are for (S cycles it).
fn chosen_side<'a>(editor: &Editor, f: &'a LevelFile) -> Option<&'a level::SideDef> {
    f.sides.get(editor.side % f.sides.len().max(1))
}

/// Typing in a text field: printable keys add to it, Backspace takes the last character off,
/// Enter sets the field (an edit like any other, undone by Ctrl+Z), Esc drops it.
fn typing_keys(
    mut input: MessageReader<bevy::input::keyboard::KeyboardInput>,
    mut editor: ResMut<Editor>,
) {
    use bevy::input::keyboard::Key;
    if editor.typing.is_none() {
        input.clear();
        return;
    }
    let mut done: Option<bool> = None;
    for ev in input.read() {
        if !ev.state.is_pressed() {
            continue;
        }
        let Some(t) = editor.typing.as_mut() else {
            break;
        };
        match &ev.logical_key {
            Key::Enter => done = Some(true),
            Key::Escape => done = Some(false),
            Key::Backspace if t.replace => {
                t.text.clear();
                t.replace = false;
            }
            Key::Backspace => {
                t.text.pop();
            }
            _ => {
                if let Some(text) = &ev.text {
                    let typed: String = text.chars().filter(|c| !c.is_control()).collect();
                    if !typed.is_empty() && std::mem::take(&mut t.replace) {
                        t.text.clear();
                    }
                    t.text.push_str(&typed);
                }
            }
        }
        if done.is_some() {
            break;
        }
    }
    editor.dirty = true;
    match done {
        Some(true) => {
            if let Some(t) = editor.typing.take() {
                finish_typing(&mut editor, t);
            }
        }
        Some(false) => editor.typing = None,
        None => {}
    }
}

/// The edit a finished text field makes.
fn finish_typing(editor: &mut Editor, t: Typing) {
    let text = t.text.trim().to_string();
    let edit = match &t.field {
        Field::LevelName => Edit::SetName(text.clone()),
        Field::Description => Edit::SetDescription(text.clone()),
        Field::Seed => match text.parse::<u64>() {
            Ok(seed) => Edit::SetSeed(seed),
            Err(_) => {
                editor.message = format!("'{text}' is not a seed: a whole number, 0 or more");
                return;
            }
        },
        Field::Side(i) => {
            let Some(side) = editor
                .file()
                .and_then(|f| f.sides.get(*i).map(|s| s.name.clone()))
            else {
                return;
            };
            Edit::RenameSide {
                side,
                to: text.clone(),
            }
        }
        Field::Terrain(g) => {
            let Some(mut t) = editor.terrain_of(*g) else {
                return;
            };
            if text.is_empty() {
                editor.message = "A terrain needs a name".into();
                return;
            }
            t.name = text.clone();
            Edit::SetLegend {
                glyph: *g,
                terrain: Some(t),
            }
        }
        Field::Stat(i) => {
            if text.is_empty() {
                editor.set_stat(*i, None);
                return;
            }
            match text.parse::<i64>() {
                Ok(v) => editor.set_stat(*i, Some(v)),
                Err(_) => editor.message = format!("'{text}' is not a whole number"),
            }
            return;
        }
        Field::Unit(i) => {
            let Some(unit) = editor
                .file()
                .and_then(|f| f.units.get(*i).map(|u| u.name.clone()))
            else {
                return;
            };
            Edit::RenameUnit {
                unit,
                to: text.clone(),
            }
        }
        Field::Message => {
            if text.is_empty() {
                editor.message = "An empty message: nothing added".into();
                return;
            }
            Edit::AddEvent(level::events::LevelEvent {
                when: level::events::When::Round(editor.event_round()),
                then: vec![level::events::Effect::Message(text.clone())],
            })
        }
    };
    let old_unit = match &edit {
        Edit::RenameUnit { unit, .. } => Some(unit.clone()),
        _ => None,
    };
    editor.apply(edit);
    if editor.message.is_empty() && old_unit.is_some() && editor.picked == old_unit {
        editor.picked = Some(text);
    }
}

/// The level's name, description and seed and its sides (name and controller), each a button
/// that opens a text field or switches the controller.
fn level_panel(p: &mut ChildSpawnerCommands, f: &LevelFile) {
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        row.spawn(ui::button(
            "Name...",
            None,
            UiAction::Editor(EditorAction::Type(Field::LevelName)),
        ));
        row.spawn(ui::button(
            "Description...",
            None,
            UiAction::Editor(EditorAction::Type(Field::Description)),
        ));
        row.spawn(ui::button(
            format!("Seed {}...", f.seed),
            None,
            UiAction::Editor(EditorAction::Type(Field::Seed)),
        ));
    });
    // Each side on its own row: its name, then who plays it.
    for (i, side) in f.sides.iter().enumerate() {
        p.spawn(Node {
            flex_direction: FlexDirection::Row,
            flex_wrap: FlexWrap::Wrap,
            ..default()
        })
        .with_children(|row| {
            row.spawn(ui::button(
                format!("{}...", side.name),
                None,
                UiAction::Editor(EditorAction::Type(Field::Side(i))),
            ));
            row.spawn(ui::button(
                match side.controller {
                    level::Controller::Human => "played by a human",
                    level::Controller::Ai => "played by the AI",
                },
                None,
                UiAction::Editor(EditorAction::ToggleController(i)),
            ));
        });
    }
}

/// The painted glyph's terrain and the buttons that change it (the level's own legend entry).
fn terrain_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    let Some((g, t)) = merged_legend(&f.legend)
        .into_iter()
        .find(|(k, _)| *k == editor.glyph)
    else {
        return;
    };
    let cost = t
        .cost
        .map_or("impassable".to_string(), |c| format!("cost {c}"));
    p.spawn(ui::text(
        format!(
            "'{g}' {}: {cost}, sight {:?}{} (L: a new terrain)",
            t.name,
            t.sight,
            if t.difficult { ", difficult" } else { "" }
        ),
        13.0,
        ui::DIM,
    ));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        for (label, a) in [
            ("Name...", EditorAction::Type(Field::Terrain(g))),
            ("cost-", EditorAction::TerrainCost(-1)),
            ("cost+", EditorAction::TerrainCost(1)),
            ("wall?", EditorAction::TerrainImpassable),
            ("sight", EditorAction::TerrainSight),
            ("difficult?", EditorAction::TerrainDifficult),
        ] {
            row.spawn(small_button(label, a));
        }
    });
}

/// A compact button of the side panel.
fn small_button(label: impl AsRef<str>, a: EditorAction) -> impl Bundle {
    choice_button(label, a, false)
}

/// A compact button, lit when it is the choice in force.
fn choice_button(label: impl AsRef<str>, a: EditorAction, on: bool) -> impl Bundle {
    let colour = if on { ui::BUTTON_ON } else { ui::BUTTON };
    (
        Button,
        UiAction::Editor(a),
        ui::ButtonColour(colour),
        Node {
            margin: UiRect::all(px(2)),
            padding: UiRect::axes(px(5), px(2)),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BackgroundColor(colour),
        children![ui::text(label, 13.0, ui::TEXT)],
    )
}

/// The height brush: terrain or a ground height of 0 to 9 levels, painted with the paint
/// tool in force (each cell's height is shown on the board while it is on).
fn height_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    p.spawn(ui::text(
        format!(
            "Ground height (H; then 0-9): {}",
            if f.heights.is_empty() {
                "the map is flat".to_string()
            } else {
                format!("up to {} level(s)", f.max_height())
            }
        ),
        13.0,
        ui::DIM,
    ));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        row.spawn(choice_button(
            "terrain",
            EditorAction::Height(None),
            editor.height.is_none(),
        ));
        for h in 0..=9u8 {
            row.spawn(choice_button(
                h.to_string(),
                EditorAction::Height(Some(h)),
                editor.height == Some(h),
            ));
        }
    });
}

/// The units tool's items: the chooser (a button cycling the ruleset's items, Shift+I), the
/// item brush (I) and, once the brush has clicked a cell, what lies there.
fn items_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    let Some((key, d)) = editor.chosen_item(f) else {
        p.spawn(ui::text(
            format!("Item brush (I): the '{}' ruleset has no items", f.ruleset),
            13.0,
            ui::DIM,
        ));
        return;
    };
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        align_items: AlignItems::Center,
        ..default()
    })
    .with_children(|row| {
        let heavy = d.kind == ruleset_data::ItemKind::Heavy;
        row.spawn(small_button(
            format!("Item: {key}{} Shift+I", if heavy { " (heavy)" } else { "" }),
            EditorAction::NextItem,
        ));
        row.spawn(choice_button(
            if editor.item_brush {
                "Item brush I: on"
            } else {
                "Item brush I: off"
            },
            EditorAction::ItemBrush,
            editor.item_brush,
        ));
    });
    let lying = match editor.item_cell.filter(|_| editor.item_brush) {
        Some(at) => {
            let here = items_on(f, at);
            format!(
                "On ({}, {}): {}",
                at.0,
                at.1,
                if here.is_empty() {
                    "no items".to_string()
                } else {
                    here.join(", ")
                }
            )
        }
        None => format!("{} item(s) lie on cells", f.items.len()),
    };
    p.spawn(ui::text(lying, 12.0, ui::DIM));
}

/// The items the level leaves on `at`, in the file's order.
fn items_on(f: &LevelFile, at: (i32, i32)) -> Vec<&str> {
    f.items
        .iter()
        .filter(|p| p.cell == at)
        .map(|p| p.item.as_str())
        .collect()
}

/// The picked unit (Tab and Shift+Tab step through the level's units): its side and
/// template, buttons to rename, copy and delete it, and its template's stats with the unit's
/// overrides, each with buttons that change it (an edit of the unit's line), type it, or
/// clear it back to the template's value.
fn unit_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    let picked = editor
        .picked
        .as_ref()
        .and_then(|n| f.units.iter().enumerate().find(|(_, u)| &u.name == n));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        align_items: AlignItems::Center,
        ..default()
    })
    .with_children(|row| {
        row.spawn(ui::text(
            match picked {
                Some((i, u)) => format!("Unit {} of {}: {}", i + 1, f.units.len(), u.name),
                None => format!("{} unit(s), none picked", f.units.len()),
            },
            14.0,
            ui::ACCENT,
        ));
        row.spawn(small_button("< Shift+Tab", EditorAction::NextUnit(-1)));
        row.spawn(small_button("Tab >", EditorAction::NextUnit(1)));
    });
    let Some((i, u)) = picked else {
        // A picked reinforcement: where and when it arrives; it moves and goes as a unit does.
        if let Some((u, round)) = editor
            .picked
            .as_ref()
            .and_then(|n| events::reinforcement(f, n))
        {
            p.spawn(ui::text(
                format!(
                    "Reinforcement {} ({}, {}) arrives at ({}, {}){}",
                    u.name,
                    u.side,
                    u.template,
                    u.cell.0,
                    u.cell.1,
                    round.map_or(String::new(), |r| format!(" on round {r}"))
                ),
                13.0,
                ui::DIM,
            ));
            p.spawn(small_button("Delete Del", EditorAction::DeleteUnit));
        }
        return;
    };
    let template = ruleset_data::builtin(f.ruleset).and_then(|d| d.templates.get(&u.template));
    p.spawn(ui::text(
        format!(
            "{} at ({}, {}), template {}{}",
            u.side,
            u.cell.0,
            u.cell.1,
            u.template,
            template.map_or(String::new(), |t| format!(
                " ({}; movement {}, reach {})",
                t.name, t.movement, t.reach
            ))
        ),
        13.0,
        ui::DIM,
    ));
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        ..default()
    })
    .with_children(|row| {
        row.spawn(small_button(
            "Rename...",
            EditorAction::Type(Field::Unit(i)),
        ));
        row.spawn(small_button("Copy C", EditorAction::CopyUnit));
        row.spawn(small_button("Delete Del", EditorAction::DeleteUnit));
    });
    // What it carries, with buttons to give it the chosen item and take its last one.
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        align_items: AlignItems::Center,
        ..default()
    })
    .with_children(|row| {
        let carried = if u.items.is_empty() {
            "none".to_string()
        } else {
            u.items.join(", ")
        };
        match editor.chosen_item(f) {
            Some((key, _)) => {
                row.spawn(ui::text(format!("Items: {carried}"), 13.0, ui::TEXT));
                row.spawn(small_button(format!("+ {key}"), EditorAction::GiveItem));
                if !u.items.is_empty() {
                    row.spawn(small_button("- last", EditorAction::TakeItem));
                }
            }
            None => {
                row.spawn(ui::text(
                    format!("Items: {carried} (the '{}' ruleset has none)", f.ruleset),
                    13.0,
                    ui::DIM,
                ));
            }
        }
    });
    let Some(t) = template else {
        return;
    };
    for (n, (stat, base)) in t.stats.iter().enumerate() {
        let set = u.overrides.get(stat).copied();
        p.spawn(Node {
            flex_direction: FlexDirection::Row,
            align_items: AlignItems::Center,
            ..default()
        })
        .with_children(|row| {
            row.spawn((
                Node {
                    width: px(150),
                    ..default()
                },
                children![match set {
                    Some(v) => ui::text(format!("{stat} {v} (template {base})"), 13.0, ui::ACCENT),
                    None => ui::text(format!("{stat} {base}"), 13.0, ui::TEXT),
                }],
            ));
            row.spawn(small_button(
                "-",
                EditorAction::Override { stat: n, by: -1 },
            ));
            row.spawn(small_button("+", EditorAction::Override { stat: n, by: 1 }));
            row.spawn(small_button("set...", EditorAction::Type(Field::Stat(n))));
            if set.is_some() {
                row.spawn(small_button("clear", EditorAction::ClearOverride(n)));
            }
        });
    }
}
