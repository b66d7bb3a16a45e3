//! The battle being played: the [`Battle`] resource (the engine's state, the replay log of
//! commands, who controls each side, the combat log), the [`Submit`] message every controller
//! sends its commands with, undo, and the queue of events waiting to be animated.
//!
//! Two copies of the state: `state` is the truth the engine executes commands on; `shown` is
//! what the board shows, and lags behind while events animate (each event is applied to it as
//! its animation starts, with the same [`BattleState::apply`] the engine uses). Input is taken
//! only when nothing is left to animate.

use std::collections::VecDeque;
use std::path::PathBuf;

use bevy::prelude::*;

use super::menu::{self, deciding_side};
use crate::rules::battle::{BattleState, Command, Event, SideId, UnitId, log};
use crate::rules::level::Level;
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Submit>()
        .add_message::<Toast>()
        .init_resource::<Settings>()
        .add_systems(
            Update,
            (apply_submissions, undo_key)
                .chain()
                .in_set(super::AppSystems::Update)
                .run_if(resource_exists::<Battle>),
        );
}

pub use crate::ai::SideControl;

/// What a new battle starts from.
#[derive(Resource, Clone, Debug)]
pub struct BattleSetup {
    pub level: Level,
    /// The level's file, for saves and hot reload (`None` for a level built in code).
    pub path: Option<PathBuf>,
    pub seed: u64,
    pub controls: Vec<SideControl>,
}

impl BattleSetup {
    /// The level's own controllers and seed.
    pub fn new(level: Level, path: Option<PathBuf>) -> Self {
        let controls = level
            .file
            .sides
            .iter()
            .map(|s| SideControl::of(s.controller))
            .collect();
        let seed = level.file.seed;
        Self {
            level,
            path,
            seed,
            controls,
        }
    }
}

/// A line of the combat log: `text` as a spectator reads it, and `others`: what a side whose
/// view [`rulesets::redact_event`] changes reads instead (another side's declaration in
/// `segments` before the reveal). An empty text is not shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub text: String,
    pub others: Vec<(SideId, String)>,
    /// For a move's line: who moves, from where, where it is now, and how many steps, so that
    /// the next step of the same move joins this line instead of adding one.
    pub walk: Option<Walk>,
}

/// A move told in one log line (see [`LogLine::walk`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walk {
    pub unit: crate::rules::battle::UnitId,
    pub from: crate::rules::grid::Cell,
    pub to: crate::rules::grid::Cell,
    pub steps: u32,
}

impl Walk {
    /// "Howl moves (3, 4) -> (9, 4), 6 squares".
    pub fn text(&self, state: &BattleState) -> String {
        format!(
            "{} moves {} -> {}, {} {}",
            state.unit_name(self.unit),
            self.from,
            self.to,
            self.steps,
            if self.steps == 1 { "step" } else { "steps" }
        )
    }
}

impl LogLine {
    /// The line for `event`, which has just been applied to `state`.
    pub fn of(state: &BattleState, event: &Event) -> Self {
        let text = log_text(state, event);
        let others = (0..state.sides.len())
            .map(|i| SideId(i as u8))
            .filter_map(|side| {
                // Under fog of war, what the side does not see is not told (an empty line is
                // not shown).
                if !crate::rules::fog::shows(state, event, side) {
                    return Some((side, String::new()));
                }
                let seen = rulesets::redact_event(state, event, side);
                (seen != *event).then(|| (side, log_text(state, &seen)))
            })
            .collect();
        let walk = match event {
            Event::Moved { unit, from, to } => Some(Walk {
                unit: *unit,
                from: *from,
                to: *to,
                steps: 1,
            }),
            _ => None,
        };
        Self { text, others, walk }
    }

    /// A line of plain text, the same for everyone.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            others: Vec::new(),
            walk: None,
        }
    }

    /// The text `viewer` reads (`None`: a spectator, who sees everything).
    pub fn text_for(&self, viewer: Option<SideId>) -> &str {
        viewer
            .and_then(|v| self.others.iter().find(|(s, _)| *s == v))
            .map_or(self.text.as_str(), |(_, t)| t.as_str())
    }
}

/// An event waiting to be animated.
#[derive(Clone, Debug)]
pub struct Queued {
    pub event: Event,
    /// The first event of its command (a move's steps join into one log line only within
    /// one command).
    pub first: bool,
    /// Why it changes a pool, when the log should say ("for Attack Fang", "new round"):
    /// see [`causes`].
    pub cause: Option<String>,
    /// Shown on the board but not told in the log: the pools a reinforcement arrives with
    /// ([`starting_pools`]).
    pub quiet: bool,
}

/// The state before an undoable move.
#[derive(Clone, Debug)]
struct Snapshot {
    state: BattleState,
    side: SideId,
    /// The unit that moved: its moves are taken back only while it still acts.
    unit: UnitId,
    commands: usize,
    log: usize,
}

/// The battle on the Battle screen.
#[derive(Resource, Debug)]
pub struct Battle {
    pub setup: BattleSetup,
    /// The engine's state: commands execute on it.
    pub state: BattleState,
    /// What the board shows: `state` as of the last animated event.
    pub shown: BattleState,
    /// Every command executed, in order (the replay).
    pub commands: Vec<Command>,
    pub log: Vec<LogLine>,
    /// Events executed but not yet shown.
    pub queue: VecDeque<Queued>,
    undo: Vec<Snapshot>,
    /// The last round an autosave was written for.
    pub saved_round: u32,
    /// The battle's id: its save slots are named after it (see [`crate::saves`]). A new
    /// battle (a rematch too) gets a new one; a loaded battle keeps its own.
    pub id: String,
    /// How many commands the quick save last written or loaded held: any other number now
    /// is progress that loading the quick save would throw away.
    pub quick_saved: usize,
    /// The player pressed quick load once with unsaved progress: the next press loads.
    pub confirm_load: bool,
    /// Commands a player has chosen in this battle (not the AI's): the combat log goes back to
    /// its newest line when this grows, so a player reading back sees what their act did.
    pub human_commands: usize,
}

/// A combat log line: [`log::describe`], or nothing for the ruleset's bookkeeping (the event
/// is told by another line). An empty line is not shown.
pub fn log_text(state: &BattleState, event: &Event) -> String {
    if bookkeeping(event) {
        return String::new();
    }
    log::describe(state, event)
}

/// Appends `event`'s line to `log`, which it has just been applied to `state` for. A held
/// action's "X holds its action for a later segment" (`segments`) takes the place of the "X
/// ends its turn" the engine emits just before it, which would read as the opposite.
///
/// The steps of one move make one line: a step that goes on from where the last line's move
/// of the same unit ended (with nothing logged between, and told to the same sides under fog
/// of war) extends that line.
///
/// `cause` says why a pool changes ("for Attack Fang"): it goes in the line's brackets,
/// "Ida AP 2 (-1 for Attack Fang)".
fn push_line(
    log: &mut Vec<LogLine>,
    state: &BattleState,
    event: &Event,
    same_command: bool,
    cause: Option<&str>,
) {
    let mut line = LogLine::of(state, event);
    if let Some(cause) = cause {
        line.text = with_cause(&line.text, cause);
        for (_, t) in &mut line.others {
            *t = with_cause(t, cause);
        }
    }
    // The last line shown, past the empty ones.
    let shown = log.iter().rposition(|l| !l.text.is_empty());
    if same_command
        && let (Some(step), Some(i)) = (line.walk, shown)
        && let Some(last) = log.get_mut(i)
        && let Some(walk) = last.walk
        && walk.unit == step.unit
        && walk.to == step.from
        && hidden_only(&line.others)
        && line.others == last.others
    {
        let walk = Walk {
            to: step.to,
            steps: walk.steps + 1,
            ..walk
        };
        last.text = walk.text(state);
        last.walk = Some(walk);
        return;
    }
    if let Event::Rules(e) = event
        && let Some(last) = log.last_mut()
        && rulesets::replaces_previous_line(state, e, &last.text)
    {
        *last = line;
        return;
    }
    // A turn's note (what the turn is for, in `segments`) goes on the turn's line: "Tolly's
    // turn (a whole round's action...)", one line a turn.
    if let Event::Rules(e) = event
        && let Some(last) = log.last_mut()
        && rulesets::joins_previous_line(state, e, &last.text)
        && line.others.is_empty()
    {
        // Told to whoever is told of the turn.
        last.text = format!("{} {}", last.text, line.text);
        for (_, t) in &mut last.others {
            if !t.is_empty() {
                *t = format!("{t} {}", line.text);
            }
        }
        return;
    }
    log.push(line);
}

/// Whether a line's per-side texts only leave it out for some sides (under fog of war, those
/// that do not see the unit): a step hidden from the same sides as the move's line so far
/// joins it, and no side reads a text of its own that the joined line would lose.
fn hidden_only(others: &[(SideId, String)]) -> bool {
    others.iter().all(|(_, t)| t.is_empty())
}

/// The pools an action is paid from (the rest, hp and the like, are explained by their
/// damage lines).
const COST_POOLS: [&str; 7] = [
    "ap",
    "actions",
    "stamina",
    "focus",
    "reactions",
    "spells",
    "loaded",
];

/// Why each of a command's events changes a pool, for the log: "for Attack Fang" for what
/// the command's own unit pays from a `COST_POOLS` pool, "new turn" or "new round" for a
/// refill after the unit's turn or a round starts, "from Wait" for what the command itself
/// gives back, "during Pick Roland" for what another unit pays in the command, `None`
/// otherwise. A secret declaration (`segments`) names nothing.
pub fn causes(before: &BattleState, cmd: &Command, events: &[Event]) -> Vec<Option<String>> {
    let label = rulesets::describe(before, cmd).label;
    let secret = matches!(cmd, Command::Declare { .. });
    let mut new_round = false;
    let mut turns: Vec<crate::rules::battle::UnitId> = Vec::new();
    events
        .iter()
        .map(|e| {
            match e {
                Event::RoundStarted { .. } => new_round = true,
                Event::TurnStarted { unit } => turns.push(*unit),
                _ => {}
            }
            match e {
                Event::Pool {
                    unit, pool, delta, ..
                } if COST_POOLS.contains(&&**pool) => {
                    if *delta < 0 && *unit == cmd.unit() && !secret {
                        Some(format!("for {label}"))
                    } else if *delta > 0 && turns.contains(unit) {
                        Some("new turn".to_string())
                    } else if *delta > 0 && new_round {
                        Some("new round".to_string())
                    } else if *delta > 0 && *unit == cmd.unit() && !secret {
                        Some(format!("from {label}"))
                    } else if *delta < 0 && !secret {
                        // Paid by another unit in this command (an extended action going on
                        // as its turn starts, a reaction taken for it).
                        Some(format!("during {label}"))
                    } else {
                        None
                    }
                }
                _ => None,
            }
        })
        .collect()
}

/// A pool line with its cause after the change in its brackets: "Ida AP 2 (-1)" -> "Ida AP
/// 2 (-1 for Attack Fang)", "Ida AP 0 (-1, all it had left)" -> "Ida AP 0 (-1 for Attack
/// Fang, all it had left)".
fn with_cause(text: &str, cause: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let Some(open) = text.rfind('(') else {
        return format!("{text} ({cause})");
    };
    let (head, inner) = text.split_at(open + 1);
    let end = inner.find([',', ')']).unwrap_or(inner.len());
    format!("{head}{} {cause}{}", &inner[..end], &inner[end..])
}

/// Ruleset events that only keep the engine's books ([`rulesets::bookkeeping`]: "(between
/// actions)" in `phases`, "Segment 7: no one acts" in `segments`...). `fray replay` prints
/// them, the player's log leaves them out.
fn bookkeeping(event: &Event) -> bool {
    matches!(event, Event::Rules(e) if rulesets::bookkeeping(e))
}

/// A command's events (with their [`causes`]) in the order the log tells them: a line the
/// ruleset tells after the action it pays for ([`rulesets::told_after_its_action`]: "Aldric
/// has left: Main") moves past that action's events, up to the next prompt, turn or another
/// such line, the battle's end (its line is the last), or the command's end. Only the telling moves: the state after the last event is
/// the same.
pub fn log_order<T>(events: Vec<Event>, why: Vec<T>) -> Vec<(Event, T)> {
    let after = |e: &Event| matches!(e, Event::Rules(r) if rulesets::told_after_its_action(r));
    let stops = |e: &Event| {
        after(e)
            || matches!(
                e,
                Event::Interrupted(_)
                    | Event::TurnStarted { .. }
                    | Event::TurnEnded { .. }
                    | Event::RoundStarted { .. }
                    | Event::Ended { .. }
            )
    };
    let mut out = Vec::with_capacity(events.len());
    let mut held: Option<(Event, T)> = None;
    for (e, cause) in events.into_iter().zip(why) {
        if stops(&e)
            && let Some(h) = held.take()
        {
            out.push(h);
        }
        if after(&e) {
            held = Some((e, cause));
        } else {
            out.push((e, cause));
        }
    }
    out.extend(held);
    out
}

/// For each event, whether it is a pool a reinforcement arrives with (a gain of a unit that
/// arrived earlier in the same events): its starting state, shown on the board and in its
/// tooltip, and left out of the log as the opening log leaves out every unit's (a line per
/// pool, internal stat names included, buried the arrival).
pub fn starting_pools(events: &[Event]) -> Vec<bool> {
    use crate::rules::battle::script::Scripted;
    let mut arrived = Vec::new();
    events
        .iter()
        .map(|e| match e {
            Event::Scripted(Scripted::Arrived { unit, .. }) => {
                arrived.push(*unit);
                false
            }
            Event::Pool { unit, delta, .. } => *delta > 0 && arrived.contains(unit),
            _ => false,
        })
        .collect()
}

/// The log lines of a battle's opening events, without the starting pools.
fn opening_log(state: &BattleState, events: &[Event]) -> Vec<LogLine> {
    let mut log = Vec::new();
    for e in events.iter().filter(|e| !matches!(e, Event::Pool { .. })) {
        push_line(&mut log, state, e, false, None);
    }
    log
}

impl Battle {
    /// Starts a battle. The opening events (initiative...) go straight to the log, except
    /// the pools every unit starts with (hp, stamina, AP... from its template): that is the
    /// starting state, shown on the units and in their tooltips, and one line per pool per
    /// unit buried the initiative rolls.
    pub fn new(setup: BattleSetup) -> Self {
        let (state, events) = BattleState::start(&setup.level, setup.seed);
        let log = opening_log(&state, &events);
        let setup_name = setup.level.name().to_string();
        Self {
            shown: state.clone(),
            state,
            setup,
            commands: Vec::new(),
            log,
            queue: VecDeque::new(),
            undo: Vec::new(),
            saved_round: 0,
            id: crate::saves::new_battle_id(&setup_name),
            quick_saved: 0,
            confirm_load: false,
            human_commands: 0,
        }
    }

    /// Rebuilds a battle from its replay: the level and seed of `setup`, then `commands`.
    /// Fails with the engine's reason if a command is rejected.
    pub fn replay(setup: BattleSetup, commands: &[Command]) -> Result<Self, String> {
        let mut b = Battle::new(setup);
        for (i, c) in commands.iter().enumerate() {
            let before = b.state.clone();
            let events = b
                .state
                .execute(c)
                .map_err(|r| format!("command {} of the replay was rejected: {r}", i + 1))?;
            let why = causes(&before, c, &events);
            let quiet = starting_pools(&events);
            let told = log_order(events, why.into_iter().zip(quiet).collect());
            for (k, (e, (cause, quiet))) in told.iter().enumerate() {
                if !quiet {
                    push_line(&mut b.log, &b.state, e, k > 0, cause.as_deref());
                }
            }
            b.commands.push(c.clone());
        }
        b.shown = b.state.clone();
        b.saved_round = b.state.round;
        Ok(b)
    }

    /// Who controls `side`.
    pub fn control(&self, side: SideId) -> SideControl {
        self.setup
            .controls
            .get(side.index())
            .copied()
            .unwrap_or(SideControl::Human)
    }

    /// The side that must answer now.
    pub fn deciding(&self) -> Option<SideId> {
        deciding_side(&self.state)
    }

    /// Whether a human answers now (and nothing is left to animate).
    pub fn human_to_decide(&self) -> bool {
        self.queue.is_empty() && self.deciding().is_some_and(|s| self.control(s).is_human())
    }

    /// Human sides, in order.
    pub fn human_sides(&self) -> Vec<SideId> {
        (0..self.state.sides.len())
            .map(|i| SideId(i as u8))
            .filter(|&s| self.control(s).is_human())
            .collect()
    }

    /// Whose eyes the screen shows: the human side deciding now, else the last human side
    /// that decided, else the only human side; `None` (everything) when no side is human.
    pub fn default_viewer(&self) -> Option<SideId> {
        let humans = self.human_sides();
        match self.deciding() {
            Some(s) if humans.contains(&s) => Some(s),
            _ => humans.first().copied(),
        }
    }

    /// Checks and executes a command, queueing its events for animation. `human` marks a
    /// command chosen by a player (only those can be undone).
    pub fn submit(&mut self, cmd: &Command, human: bool) -> Result<(), String> {
        let side = self.state.unit(cmd.unit()).map(|u| u.side);
        self.confirm_load = false;
        let before = (self.state.clone(), self.commands.len(), self.log.len());
        let events = self.state.execute(cmd).map_err(|r| r.reason)?;
        let why = causes(&before.0, cmd, &events);
        // Undo: only moves, only by the same human side, only while no die is rolled.
        let rolled = events.iter().any(|e| matches!(e, Event::Rolled { .. }));
        let moving = menu::is_moving(&before.0, cmd);
        let same_unit = self.undo.last().is_none_or(|s| s.unit == cmd.unit());
        if !human || rolled || !moving || !same_unit {
            self.undo.clear();
        }
        if human
            && moving
            && !rolled
            && let Some(side) = side
        {
            self.undo.push(Snapshot {
                state: before.0,
                side,
                unit: cmd.unit(),
                commands: before.1,
                log: before.2 + self.queue.len(),
            });
        }
        self.commands.push(cmd.clone());
        if human {
            self.human_commands += 1;
        }
        let quiet = starting_pools(&events);
        let told = log_order(events, why.into_iter().zip(quiet).collect());
        for (i, (event, (cause, quiet))) in told.into_iter().enumerate() {
            self.queue.push_back(Queued {
                event,
                first: i == 0,
                cause,
                quiet,
            });
        }
        Ok(())
    }

    /// Whether [`Battle::undo`] would do something now: the last move's unit still acts (a
    /// move in `phases` that ended its action, with the next unit up, is not taken back).
    pub fn can_undo(&self) -> bool {
        self.queue.is_empty()
            && self.undo.last().is_some_and(|s| {
                self.deciding() == Some(s.side) && self.state.pending().unit() == Some(s.unit)
            })
    }

    /// Takes back the last move: the state before it, the replay and log without it.
    pub fn undo(&mut self) -> bool {
        if !self.can_undo() {
            return false;
        }
        let Some(snap) = self.undo.pop() else {
            return false;
        };
        self.state = snap.state;
        self.shown = self.state.clone();
        self.commands.truncate(snap.commands);
        self.log.truncate(snap.log);
        true
    }

    /// Shows the next queued event: applies it to `shown` and logs it. Returns it.
    pub fn show_next(&mut self) -> Option<Event> {
        let q = self.queue.pop_front()?;
        self.shown.apply(&q.event);
        if !q.quiet {
            push_line(
                &mut self.log,
                &self.shown,
                &q.event,
                !q.first,
                q.cause.as_deref(),
            );
        }
        if self.queue.is_empty() {
            // In step with the truth (the random generator included).
            self.shown = self.state.clone();
        }
        Some(q.event)
    }

    /// Shows every queued event at once.
    pub fn show_all(&mut self) {
        while self.show_next().is_some() {}
    }

    /// The battle is over and everything has been shown.
    pub fn finished(&self) -> bool {
        self.queue.is_empty() && self.state.outcome.is_some()
    }
}

/// A command from a controller (the player's input, the AI, a test).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct Submit {
    pub command: Command,
    /// A player chose it (it may be undone).
    pub human: bool,
}

/// A short message shown at the bottom of the screen (a rejected command, "saved") for a few
/// seconds.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct Toast {
    pub text: String,
    /// It asks for a second press ("press F9 again to load it"): it goes, with what it
    /// offered, as soon as the battle moves on to another decision.
    pub asks: bool,
}

impl Toast {
    pub fn say(text: String) -> Self {
        Toast { text, asks: false }
    }

    pub fn ask(text: String) -> Self {
        Toast { text, asks: true }
    }
}

/// Player preferences for the battle screen. The game (`fray play`) keeps them between runs
/// in `settings.ron` in the user's config folder ([`Settings::path`]); a missing or unreadable
/// file gives the defaults.
#[derive(Resource, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Animation speed factor (1 is normal).
    pub speed: f32,
    /// Show events at once, without animation.
    pub skip_animations: bool,
    /// The least time between two AI commands, in seconds, so AI turns can be followed.
    pub ai_pace: f32,
    /// Show the cells enemies threaten.
    pub show_threat: bool,
    /// Borderless fullscreen on the window's monitor instead of a window.
    pub fullscreen: bool,
    /// The window's size in logical pixels when windowed (one of [`Settings::WINDOW_SIZES`]
    /// from the Settings screen); the game opens its window at it.
    pub window_size: (u32, u32),
    /// The size of the whole UI (Bevy's `UiScale`); 1 is normal.
    pub ui_scale: f32,
    /// Side colours told apart with any colour vision: blue and orange for the first two
    /// sides ([`super::units::side_colour`]); the battle on screen takes it up at once.
    pub colour_blind: bool,
    /// The battle keys the player rebound (the Settings screen's key table).
    pub keys: super::keys::KeyBindings,
    /// The battle screen's side panels folded away, so the board takes their room.
    pub collapsed: Collapsed,
}

/// Which side panels of the battle screen are folded to a strip (`[` and `]`, or their
/// headers): the turn order on the left, the menu and log on the right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Collapsed {
    pub left: bool,
    pub right: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            speed: 1.0,
            skip_animations: false,
            ai_pace: 0.5,
            show_threat: true,
            fullscreen: false,
            window_size: (1280, 800),
            ui_scale: 1.0,
            colour_blind: false,
            keys: Default::default(),
            collapsed: Collapsed::default(),
        }
    }
}

impl Settings {
    /// Where the settings are kept: `$FRAY_CONFIG_DIR`, else `$XDG_CONFIG_HOME/fray`, else
    /// `~/.config/fray`, then `settings.ron`.
    pub fn path() -> std::path::PathBuf {
        let var = |k: &str| std::env::var_os(k).filter(|d| !d.is_empty());
        let dir = var("FRAY_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| var("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("fray")))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".config/fray")))
            .unwrap_or_else(|| PathBuf::from(".fray"));
        dir.join("settings.ron")
    }

    /// The settings in `path`, or the defaults if it is missing or unreadable.
    pub fn load(path: &std::path::Path) -> Self {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| ron::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Writes the settings to `path` (a temporary file renamed over it).
    pub fn store(&self, path: &std::path::Path) -> Result<(), String> {
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, text).map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, path).map_err(|e| e.to_string())
    }

    pub const SPEEDS: [f32; 4] = [0.5, 1.0, 2.0, 4.0];
    /// F4 steps from the default (0.5 s) to faster first: 0.25, 0, then back to slow (1 s).
    pub const PACES: [f32; 4] = [1.0, 0.5, 0.25, 0.0];
    pub const UI_SCALES: [f32; 4] = [0.75, 1.0, 1.25, 1.5];
    pub const WINDOW_SIZES: [(u32, u32); 5] = [
        (1024, 640),
        (1280, 800),
        (1600, 1000),
        (1920, 1080),
        (2560, 1440),
    ];

    /// The window size after `now`: the next larger of [`Settings::WINDOW_SIZES`] that fits
    /// in `screen` (logical pixels; `None`: any), from the smallest again after the largest,
    /// so the cycle always runs small to large whatever size it starts from.
    pub fn next_window_size(now: (u32, u32), screen: Option<(u32, u32)>) -> (u32, u32) {
        let fits: Vec<(u32, u32)> = Self::WINDOW_SIZES
            .iter()
            .copied()
            .filter(|&s| screen.is_none_or(|m| Self::fits(s, m)))
            .collect();
        let area = |s: (u32, u32)| u64::from(s.0) * u64::from(s.1);
        fits.iter()
            .copied()
            .find(|&s| area(s) > area(now))
            .or_else(|| fits.first().copied())
            .unwrap_or_else(|| Self::fit_window(Self::WINDOW_SIZES[0], screen))
    }

    /// Whether a window of `size` fits on a screen of `screen` (both logical pixels).
    pub fn fits(size: (u32, u32), screen: (u32, u32)) -> bool {
        size.0 <= screen.0 && size.1 <= screen.1
    }

    /// The window size to open at for a saved `size` on a screen of `screen` (logical
    /// pixels; `None` when it is not known): the saved size if it fits, else the largest of
    /// [`Settings::WINDOW_SIZES`] that does, else the screen itself.
    pub fn fit_window(size: (u32, u32), screen: Option<(u32, u32)>) -> (u32, u32) {
        let Some(m) = screen else {
            return size;
        };
        if Self::fits(size, m) {
            return size;
        }
        Self::WINDOW_SIZES
            .iter()
            .rev()
            .copied()
            .find(|&s| Self::fits(s, m))
            .unwrap_or((size.0.min(m.0).max(320), size.1.min(m.1).max(200)))
    }

    /// The next value of a cycling setting.
    pub fn cycle(values: &[f32], now: f32) -> f32 {
        let i = values.iter().position(|v| (*v - now).abs() < 1e-3);
        values[i.map_or(0, |i| (i + 1) % values.len())]
    }
}

pub(super) fn apply_submissions(
    mut submits: MessageReader<Submit>,
    mut battle: ResMut<Battle>,
    mut toasts: MessageWriter<Toast>,
) {
    for s in submits.read() {
        if let Err(reason) = battle.submit(&s.command, s.human) {
            toasts.write(Toast::say(format!("Not allowed: {reason}")));
        }
    }
}

/// A human's command from the menu, played at once (the menu it came from was of this
/// decision); a rejected one is told and changes nothing.
pub fn play(battle: &mut Battle, cmd: &Command, toasts: &mut MessageWriter<Toast>) {
    if let Err(reason) = battle.submit(cmd, true) {
        toasts.write(Toast::say(format!("Not allowed: {reason}")));
    }
}

pub(super) fn undo_key(
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<Settings>,
    mut battle: ResMut<Battle>,
    mut toasts: MessageWriter<Toast>,
    blocked: Option<Res<super::hud::InputBlocked>>,
) {
    if blocked.is_some_and(|b| b.0) {
        return;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if settings.keys.just_pressed(&super::keys::UNDO, &keys)
        || (ctrl && keys.just_pressed(KeyCode::KeyZ))
    {
        if battle.undo() {
            toasts.write(Toast::say("Move undone".into()));
        } else if battle.human_to_decide() {
            toasts.write(Toast::say(
                "Nothing to undo: only moves with no die rolled since can be taken back".into(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Undo takes back the acting unit's moves while it still acts; once a move has ended its
    /// action (a `phases` full-phase move) and another unit is up, it is not offered.
    #[test]
    fn undo_takes_back_moves_only_while_their_unit_acts() {
        let level = crate::rules::battle::tests::load("phases_flat_canyon.ron");
        let mut setup = BattleSetup::new(level, None);
        setup.controls = vec![crate::ai::SideControl::Human; 2];
        let mut b = Battle::new(setup);
        b.show_all();
        let unit = b.state.pending().unit().expect("a unit acts first");
        let moves: Vec<menu::Described> = menu::described(&b.state)
            .into_iter()
            .filter(|d| menu::is_moving(&b.state, &d.command))
            .collect();
        // A half move leaves the unit acting: undo is offered, and takes it back.
        let near = moves.iter().find(|d| !d.info.dear).expect("a half move");
        b.submit(&near.command, true).expect("legal");
        b.show_all();
        assert_eq!(b.state.pending().unit(), Some(unit));
        assert!(b.can_undo());
        assert!(b.undo());
        // A full-phase move ends the unit's action: the next unit is up, and no undo.
        let far = moves
            .iter()
            .find(|d| d.info.dear)
            .expect("a full-phase move");
        b.submit(&far.command, true).expect("legal");
        b.show_all();
        assert_ne!(b.state.pending().unit(), Some(unit));
        assert!(!b.can_undo());
        assert!(!b.undo());
    }

    /// A line told after its action ("Aldric has left: Main") waits for the action's events,
    /// but not past the end of the battle: "Battle over" is the last line.
    #[test]
    fn the_battle_over_line_comes_last() {
        use crate::rules::rulesets::Member;
        use crate::rules::rulesets::sides::{Ev, Sides};
        use crate::rules::testkit::{U0, U1};
        let left = Sides::event(Ev::Actions {
            unit: U0,
            main: false,
            mv: true,
        });
        let blow = Event::Status {
            unit: U1,
            status: crate::rules::battle::Status::Down,
        };
        let end = Event::Ended {
            winner: None,
            reason: "the last foe fell".into(),
        };
        let told = log_order(vec![left.clone(), blow.clone(), end.clone()], vec![0, 1, 2]);
        let order: Vec<Event> = told.into_iter().map(|(e, _)| e).collect();
        assert_eq!(order, vec![blow, left, end]);
    }

    #[test]
    fn the_opening_log_shows_initiative_not_starting_pools() {
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let (state, events) = BattleState::start(&level, 3);
        assert!(events.iter().any(|e| matches!(e, Event::Pool { .. })));
        let log = opening_log(&state, &events);
        let rolls = events
            .iter()
            .filter(|e| matches!(e, Event::Rolled { .. }))
            .count();
        assert!(rolls > 0, "the phases opening rolls tie-breaks");
        assert_eq!(
            log.len(),
            events.len()
                - events
                    .iter()
                    .filter(|e| matches!(e, Event::Pool { .. }))
                    .count()
        );
        assert!(log.iter().any(|l| l.text.contains("Initiative order")));
        for l in &log {
            assert!(
                !l.text.contains("(+"),
                "a starting pool was logged: {}",
                l.text
            );
        }
    }

    /// What a unit has left once it has paid for an action ("Thorn has no actions left") is
    /// told after that action, not before its moves and rolls; the battle ends the same.
    #[test]
    fn what_a_unit_has_left_is_told_after_the_action_that_spent_it() {
        use crate::rules::battle::{Action, UnitId};
        use crate::rules::grid::Cell;
        use crate::rules::testkit::{act, pick};
        let level = crate::rules::battle::tests::load("sides_village_brawl.ron");
        let mut setup = BattleSetup::new(level, None);
        setup.seed = 20261125;
        let charge = act(
            UnitId(3),
            Action::Charge {
                target: UnitId(5),
                to: Cell::new(14, 5),
            },
        );
        let mut b = Battle::new(setup.clone());
        let start = b.log.len();
        for c in [pick(UnitId(3)), charge.clone()] {
            b.submit(&c, true).expect("legal");
            b.show_all();
        }
        let lines: Vec<&str> = b.log[start..].iter().map(|l| l.text.as_str()).collect();
        let at = |what: &str| {
            lines
                .iter()
                .position(|l| l.contains(what))
                .unwrap_or_else(|| panic!("{what} in {lines:#?}"))
        };
        let left = at("has no actions left");
        assert!(left > at(" moves "), "{lines:#?}");
        assert!(left > at("rolls Attack"), "{lines:#?}");
        assert_eq!(left, lines.len() - 1, "{lines:#?}");
        // The replay tells it in the same order.
        let r = Battle::replay(setup, &[pick(UnitId(3)), charge]).expect("replays");
        let texts: Vec<&str> = r.log[start..].iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, lines);
    }

    /// "X ends its turn" then "X holds its action for a later segment" read as the opposite of
    /// each other: a hold's line takes the place of the turn's end; an ordinary end keeps it.
    #[test]
    fn a_held_action_is_one_line_in_the_players_log() {
        use crate::rules::rulesets::Member;
        use crate::rules::rulesets::segments::{Ev, Segments};
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let (state, _) = BattleState::start(&level, 1);
        let u = crate::rules::battle::UnitId(0);
        let done = |held| {
            Segments::event(Ev::TurnDone {
                unit: u,
                held,
                extra_done: false,
            })
        };
        let mut log = vec![LogLine::plain("before")];
        for e in [Event::TurnEnded { unit: u }, done(true)] {
            push_line(&mut log, &state, &e, true, None);
        }
        let texts: Vec<&str> = log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            ["before", "Garrick holds its action for a later segment"]
        );
        let mut log = Vec::new();
        for e in [Event::TurnEnded { unit: u }, done(false)] {
            push_line(&mut log, &state, &e, true, None);
        }
        let texts: Vec<&str> = log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["Garrick ends its turn", ""]);
    }

    #[test]
    fn the_players_log_leaves_out_the_bookkeeping() {
        for file in ["phases_hex_skirmish.ron", "segments_crypt.ron"] {
            let level = crate::rules::battle::tests::load(file);
            let (state, _, events) = crate::rules::battle::tests::random_play(&level, 5, 400);
            let books: Vec<&Event> = events.iter().filter(|e| bookkeeping(e)).collect();
            assert!(!books.is_empty(), "{file}: some bookkeeping");
            for e in books {
                // `fray replay` still tells it; the player's log does not.
                assert!(!log::describe(&state, e).is_empty(), "{file}");
                assert_eq!(log_text(&state, e), "");
            }
        }
    }

    /// A `segments` move is one line: its "X moves 2 squares" (the move's bookkeeping) is
    /// left out, the walk's "X moves (4, 11) -> (6, 10), 2 steps" tells it.
    #[test]
    fn a_segments_move_is_told_once() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let mut b = Battle::new(BattleSetup::new(level, None));
        b.show_all();
        let mv = b
            .state
            .legal_commands()
            .into_iter()
            .find(|c| matches!(c, Command::Move { .. }))
            .expect("a move");
        let start = b.log.len();
        b.submit(&mv, true).expect("legal");
        b.show_all();
        let moves: Vec<&str> = b.log[start..]
            .iter()
            .map(|l| l.text.as_str())
            .filter(|t| t.contains(" moves "))
            .collect();
        assert_eq!(moves.len(), 1, "{moves:?}");
        assert!(moves[0].contains(") -> ("), "{moves:?}");
    }

    /// A reinforcement's arrival is one line, not a line per pool it arrives with (its
    /// starting state, as the opening log leaves out every unit's), in play and in a replay.
    #[test]
    fn an_arrival_is_told_without_its_starting_pools() {
        let level = crate::rules::battle::tests::load("alternating_bridge.ron");
        let setup = BattleSetup::new(level, None);
        let mut b = Battle::new(setup.clone());
        b.show_all();
        for _ in 0..400 {
            if b.log
                .iter()
                .filter(|l| l.text.contains(" arrives at "))
                .count()
                >= 2
                || b.state.outcome.is_some()
            {
                break;
            }
            let Some(c) = b.state.legal_commands().into_iter().next() else {
                break;
            };
            b.submit(&c, true).expect("legal");
            b.show_all();
        }
        let arrivals: Vec<&str> = b
            .log
            .iter()
            .map(|l| l.text.as_str())
            .filter(|t| t.contains(" arrives at "))
            .collect();
        assert!(!arrivals.is_empty(), "someone arrives");
        let replayed = Battle::replay(setup, &b.commands).expect("replays");
        for log in [&b.log, &replayed.log] {
            for a in &arrivals {
                let name = a.split(" arrives at ").next().expect("a name");
                let pools: Vec<&str> = log
                    .iter()
                    .map(|l| l.text.as_str())
                    .filter(|t| t.starts_with(&format!("{name} ")) && t.contains(" (+"))
                    .collect();
                assert!(pools.is_empty(), "{pools:?}");
            }
        }
    }

    /// A `segments` turn is one line with its note: "Tolly's turn (a whole round's action in
    /// a surprise segment; 1 attack routine left)", not the note repeated on its own line at
    /// every turn's start.
    #[test]
    fn a_turn_and_its_note_are_one_line() {
        let level = crate::rules::battle::tests::load("segments_dark_crypt.ron");
        let mut b = Battle::new(BattleSetup::new(level, None));
        b.show_all();
        for _ in 0..3 {
            let end = b
                .state
                .legal_commands()
                .into_iter()
                .find(|c| matches!(c, Command::EndTurn { .. }))
                .expect("an end turn");
            b.submit(&end, true).expect("legal");
            b.show_all();
        }
        let texts: Vec<&str> = b.log.iter().map(|l| l.text.as_str()).collect();
        let turns: Vec<&&str> = texts.iter().filter(|t| t.contains("'s turn")).collect();
        assert!(turns.len() >= 3, "{texts:?}");
        for t in turns {
            assert!(
                t.contains("'s turn (a whole round's action"),
                "{t}: {texts:?}"
            );
        }
        assert!(!texts.iter().any(|t| t.starts_with('(')), "{texts:?}");
    }

    /// Under fog of war too: a move the enemy does not see is one line, and still hidden from
    /// the enemy's side.
    #[test]
    fn a_move_under_fog_is_told_once_and_only_to_those_who_see_it() {
        use crate::rules::battle::SideId;
        let level = crate::rules::battle::tests::load("segments_dark_crypt.ron");
        let mut b = Battle::new(BattleSetup::new(level, None));
        b.show_all();
        let mover = b.state.pending().unit().expect("a unit to act");
        let (side, at) = (
            b.state.units[mover.index()].side,
            b.state.units[mover.index()].cell,
        );
        let mv = b
            .state
            .legal_commands()
            .into_iter()
            .find(
                |c| matches!(c, Command::Move { to, .. } if b.state.grid().distance(at, *to) >= 3),
            )
            .expect("a move of three steps or more");
        let start = b.log.len();
        b.submit(&mv, true).expect("legal");
        b.show_all();
        let moves: Vec<&LogLine> = b.log[start..]
            .iter()
            .filter(|l| l.text.contains(" moves "))
            .collect();
        assert_eq!(moves.len(), 1, "{:?}", b.log[start..].to_vec());
        assert!(moves[0].text.contains("steps"), "{}", moves[0].text);
        assert_eq!(moves[0].text_for(Some(side)), moves[0].text);
        let enemy = SideId(1 - side.0);
        assert_eq!(
            moves[0].text_for(Some(enemy)),
            "",
            "the enemy does not see it"
        );
    }

    #[test]
    fn the_steps_of_one_move_make_one_log_line() {
        use crate::rules::grid::Cell;
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let (state, _) = BattleState::start(&level, 1);
        let u = crate::rules::battle::UnitId(0);
        let step = |x: i32, y: i32, to: (i32, i32)| Event::Moved {
            unit: u,
            from: Cell::new(x, y),
            to: Cell::new(to.0, to.1),
        };
        let mut log = vec![LogLine::plain("before")];
        // One move of three steps, then a second move (another command) of one.
        push_line(&mut log, &state, &step(1, 1, (2, 1)), false, None);
        push_line(&mut log, &state, &step(2, 1, (3, 1)), true, None);
        push_line(&mut log, &state, &step(3, 1, (3, 2)), true, None);
        push_line(&mut log, &state, &step(3, 2, (3, 3)), false, None);
        let texts: Vec<&str> = log.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "before",
                "Garrick moves (1, 1) -> (3, 2), 3 steps",
                "Garrick moves (3, 2) -> (3, 3)"
            ]
        );
    }

    #[test]
    fn a_cost_line_names_its_cause_after_the_change() {
        assert_eq!(
            with_cause("Ida AP 2 (-1)", "for Attack Fang"),
            "Ida AP 2 (-1 for Attack Fang)"
        );
        assert_eq!(
            with_cause("Ida AP 0 (-1, all it had left)", "for Attack Fang"),
            "Ida AP 0 (-1 for Attack Fang, all it had left)"
        );
        assert_eq!(with_cause("", "for X"), "");
    }

    #[test]
    fn settings_are_kept_between_runs() {
        let dir = std::env::temp_dir().join(format!("fray-settings-{}", std::process::id()));
        let path = dir.join("settings.ron");
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            Settings::load(&path),
            Settings::default(),
            "no file: defaults"
        );
        let s = Settings {
            show_threat: false,
            speed: 2.0,
            ..Settings::default()
        };
        s.store(&path).expect("stored");
        assert_eq!(Settings::load(&path), s);
        std::fs::write(&path, "not ron").expect("written");
        assert_eq!(
            Settings::load(&path),
            Settings::default(),
            "unreadable: defaults"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_saved_window_larger_than_the_screen_is_fitted_and_the_size_cycle_runs_small_to_large() {
        // The play-test's case: 1280x800 saved, a 1024x640 screen.
        assert_eq!(
            Settings::fit_window((1280, 800), Some((1024, 640))),
            (1024, 640)
        );
        assert_eq!(
            Settings::fit_window((1920, 1080), Some((1600, 1000))),
            (1600, 1000)
        );
        // A size that fits, or an unknown screen: kept.
        assert_eq!(
            Settings::fit_window((1280, 800), Some((1920, 1080))),
            (1280, 800)
        );
        assert_eq!(Settings::fit_window((1280, 800), None), (1280, 800));
        // A screen smaller than every listed size: the screen.
        assert_eq!(
            Settings::fit_window((1280, 800), Some((800, 600))),
            (800, 600)
        );
        // The cycle offers only what fits, small to large, then wraps.
        let screen = Some((1920, 1080));
        let mut seen = vec![(1024, 640)];
        for _ in 0..4 {
            let next = Settings::next_window_size(*seen.last().unwrap_or(&(0, 0)), screen);
            seen.push(next);
        }
        assert_eq!(
            seen,
            [
                (1024, 640),
                (1280, 800),
                (1600, 1000),
                (1920, 1080),
                (1024, 640)
            ]
        );
        // From a size not in the list: the next larger one, not the first.
        assert_eq!(
            Settings::next_window_size((1366, 768), screen),
            (1600, 1000)
        );
        assert_eq!(
            Settings::next_window_size((1024, 640), Some((1024, 640))),
            (1024, 640)
        );
    }
}
