//! The battle HUD, one file per panel: [`top_bar`] (the ruleset's clock headline, settings),
//! [`turn_order`], [`action_menu`] (costs, "provokes" marks, hotkeys, the AI's "thinking"),
//! [`log`] (the combat log), [`tooltip`] (on units and cells), [`reaction_prompt`], [`pause`]
//! (the pause menu, a [`Pause`] sub-state), [`hints`] (the hint line and the toasts) and
//! [`battle_over`] (the banner once the battle is won).
//! Everything the HUD shows comes from the [`View`]: the shown battle, redacted for the side
//! whose player is looking, and the legal commands when that player may act. This file holds
//! the view, the HUD's button handling, and the layout every panel shares.

pub mod action_menu;
pub mod battle_over;
pub mod hints;
pub mod log;
pub mod pause;
pub mod reaction_prompt;
pub mod rules_help;
pub mod tooltip;
pub mod top_bar;
pub mod turn_order;

use bevy::prelude::*;

use crate::saves::Slot;

use super::Screen;
use super::battle::{Battle, Collapsed, Settings, Toast, play};
use super::hotseat::HotSeat;
use super::menu::{self, Described, MenuEntry, group_of};
use super::ui::{self, UiAction, UiClick};
use crate::rules::battle::{BattleState, Command, Decision, SideId, UnitId};
use crate::rules::rulesets;

pub use log::{LogPanel, LogScroll};
pub use pause::Pause;
pub use tooltip::{Tooltip, tooltip_lines};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<View>()
        .init_resource::<Targeting>()
        .init_resource::<InputBlocked>()
        .configure_sets(
            Update,
            (
                // After the battle takes this frame's commands: the view the player reads and
                // the menu a key presses are of the battle as it now stands.
                HudSystems::View
                    .in_set(super::AppSystems::Update)
                    .after(super::battle::apply_submissions)
                    .after(super::battle::undo_key)
                    .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
                HudSystems::Panels
                    .in_set(super::AppSystems::Update)
                    .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>))
                    .after(HudSystems::View),
            ),
        )
        .add_systems(
            OnEnter(Screen::Battle),
            (reset_battle_ui, spawn_hud).chain(),
        )
        .add_systems(
            Update,
            // The clicks and keys first, against the menu that was on screen when they were
            // pressed; then the view of what they did.
            (battle_actions, update_view)
                .chain()
                .in_set(HudSystems::View),
        )
        .add_systems(Update, apply_layout.in_set(HudSystems::Panels))
        .add_plugins((
            top_bar::plugin,
            turn_order::plugin,
            action_menu::plugin,
            log::plugin,
            reaction_prompt::plugin,
            pause::plugin,
            tooltip::plugin,
            hints::plugin,
            battle_over::plugin,
            rules_help::plugin,
        ));
}

/// The HUD's `Update` systems on the Battle screen, in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HudSystems {
    /// Work out the [`View`] and handle the HUD's buttons.
    View,
    /// Redraw the panels from the view.
    Panels,
}

/// What the player looking at the screen may see and do now.
#[derive(Resource, Default, Debug)]
pub struct View {
    /// The side whose player looks (`None`: a spectator of AI against AI, who sees all).
    pub viewer: Option<SideId>,
    /// The shown battle, without what the viewer may not know.
    pub state: Option<BattleState>,
    /// The legal commands with their descriptions, when the viewer may act now.
    pub legal: Vec<Described>,
    /// The action menu.
    pub menu: Vec<MenuEntry>,
    /// The sub-list of the chosen group.
    pub sub: Vec<MenuEntry>,
    /// The unit deciding now, if a unit decides.
    pub acting: Option<UnitId>,
    /// The battle the menu was built for: its command count and pending decision. A menu
    /// click or key is read against the menu that was on screen; if the battle has moved on
    /// since (another side's command came in that frame), it is not taken.
    pub menu_for: Option<(usize, Decision)>,
}

impl View {
    /// Whether the viewer's player may act now.
    pub fn can_act(&self) -> bool {
        !self.legal.is_empty()
    }

    /// The decision of the shown state.
    pub fn decision(&self) -> Option<Decision> {
        self.state.as_ref().map(|s| s.pending())
    }
}

/// A group chosen from the menu whose target or cell is still to be picked.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct Targeting {
    pub group: Option<String>,
}

/// Board input is ignored (a modal, the pause menu or the hand-over screen is up).
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct InputBlocked(pub bool);

/// A HUD panel; the board is not clicked through it.
#[derive(Component)]
pub struct HudPanel;

/// Where the HUD's panels go in a window of a given size, in logical pixels: the turn order on
/// the left, the menu and log on the right, the top bar (one row on wide windows, the title
/// over the buttons on narrower ones) and the hint line at the bottom. The board takes the
/// room they leave ([`HudLayout::board`]); the camera frames it there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HudLayout {
    pub window: Vec2,
    /// Widths of the left and right panels, heights of the top bar and of the hint line.
    pub left: f32,
    pub right: f32,
    pub top: f32,
    pub bottom: f32,
    /// The top bar's title has a row of its own, above the buttons.
    pub two_rows: bool,
    /// The UI scale (`UiScale`): the sizes above are in UI units, this many window pixels
    /// each; the board's room ([`HudLayout::board`], [`HudLayout::screen_insets`]) is in
    /// window pixels.
    pub scale: f32,
}

/// The UI scale in effect: Bevy's `UiScale` (the setting times the window's factor, put there
/// by the Settings' `apply_settings`), or 1 without one. Every user of [`HudLayout::of`] passes
/// it, so the panels' room agrees with the UI's own scaling.
pub fn ui_scale(ui: Option<&UiScale>) -> f32 {
    ui.map_or(1.0, |s| s.0)
}

/// The window size the layout assumes without a window (headless tests).
pub const DEFAULT_WINDOW: Vec2 = Vec2::new(1280.0, 800.0);

impl HudLayout {
    /// The layout for a window of `size` (logical pixels).
    pub fn for_window(size: Vec2) -> Self {
        let w = size.x.max(1.0);
        let two_rows = w < 1600.0;
        Self {
            window: size,
            left: (w * 0.16).clamp(170.0, 300.0),
            right: (w * 0.25).clamp(280.0, 480.0),
            top: if two_rows { 62.0 } else { 40.0 },
            bottom: 40.0,
            two_rows,
            scale: 1.0,
        }
    }

    /// The layout for a window of `size` window pixels at UI scale `scale`: the panels are laid
    /// out for the window as the UI sees it (`size / scale` UI units).
    pub fn for_window_scaled(size: Vec2, scale: f32) -> Self {
        let scale = if scale > 0.0 { scale } else { 1.0 };
        Self {
            scale,
            ..Self::for_window(size / scale)
        }
    }

    /// The layout of the primary window, if there is one, else of [`DEFAULT_WINDOW`], at UI
    /// scale `scale` ([`ui_scale`]).
    pub fn of(window: Option<&Window>, scale: f32) -> Self {
        Self::for_window_scaled(
            window.map_or(DEFAULT_WINDOW, |w| Vec2::new(w.width(), w.height())),
            scale,
        )
    }

    /// The width, in UI units, of a side panel folded to a strip.
    pub const FOLDED: f32 = 60.0;

    /// The layout with the side panels `collapsed` folded to [`HudLayout::FOLDED`] strips:
    /// the board takes the room they leave.
    pub fn folded(self, collapsed: Collapsed) -> Self {
        Self {
            left: if collapsed.left {
                Self::FOLDED
            } else {
                self.left
            },
            right: if collapsed.right {
                Self::FOLDED
            } else {
                self.right
            },
            ..self
        }
    }

    /// The layout of the primary window (or [`DEFAULT_WINDOW`]) with the player's folded
    /// panels, at UI scale `scale`.
    pub fn of_panels(window: Option<&Window>, collapsed: Collapsed, scale: f32) -> Self {
        Self::of(window, scale).folded(collapsed)
    }

    /// Room on each side in UI units (for the panels' nodes): left, right, top, bottom.
    pub fn insets(&self) -> (f32, f32, f32, f32) {
        (self.left, self.right, self.top, self.bottom)
    }

    /// Room on each side in window pixels (for the camera): left, right, top, bottom.
    pub fn screen_insets(&self) -> (f32, f32, f32, f32) {
        let k = self.scale;
        (self.left * k, self.right * k, self.top * k, self.bottom * k)
    }

    /// The board's room on the screen, in window pixels (y down).
    pub fn board(&self) -> Rect {
        let k = self.scale;
        Rect::new(
            self.left * k,
            self.top * k,
            (self.window.x - self.right).max(self.left) * k,
            (self.window.y - self.bottom).max(self.top) * k,
        )
    }
}

/// The right panel (action menu and log).
#[derive(Component)]
pub struct RightPanel;

/// A part of the right panel hidden while it is folded (the action menu, the log).
#[derive(Component)]
pub struct RightPanelPart;

/// The header button that folds a side panel or opens it again.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub enum FoldButton {
    Left,
    Right,
}

impl FoldButton {
    /// Its text: an open panel's says what it does and its key ("< Hide [" folds the turn
    /// order: "[ <" alone read as a stray bracket); a folded strip, too narrow for words,
    /// has the key and the arrow the panel opens by ("[ >").
    pub fn label(self, folded: Collapsed, bound: &super::keys::KeyBindings) -> String {
        let (left, right) = (
            bound.name(&super::keys::LEFT_PANEL),
            bound.name(&super::keys::RIGHT_PANEL),
        );
        match self {
            FoldButton::Left if folded.left => format!("{left} >"),
            FoldButton::Left => format!("< Hide {left}"),
            FoldButton::Right if folded.right => format!("< {right}"),
            FoldButton::Right => format!("Hide {right} >"),
        }
    }
}

/// A panel's fold button with its text (kept up to date by `apply_layout`).
pub fn fold_button(which: FoldButton, label: String) -> impl Bundle {
    (
        Button,
        which,
        match which {
            FoldButton::Left => UiAction::ToggleLeftPanel,
            FoldButton::Right => UiAction::ToggleRightPanel,
        },
        ui::ButtonColour(ui::BUTTON),
        Node {
            padding: UiRect::axes(px(4), px(2)),
            border_radius: BorderRadius::all(px(3)),
            align_self: match which {
                FoldButton::Left => AlignSelf::FlexStart,
                FoldButton::Right => AlignSelf::FlexEnd,
            },
            flex_shrink: 0.0,
            ..default()
        },
        BackgroundColor(ui::BUTTON),
        children![ui::text(label, 13.0, ui::TEXT)],
    )
}

/// Moves and sizes the panels for the window (on the first frame and when it is resized).
#[allow(clippy::type_complexity)]
fn apply_layout(
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    settings: Res<Settings>,
    ui: Option<Res<UiScale>>,
    mut nodes: ParamSet<(
        Query<&mut Node, With<top_bar::TopBar>>,
        Query<&mut Node, With<turn_order::OrderPanel>>,
        Query<&mut Node, With<RightPanel>>,
        Query<&mut Node, With<hints::Hints>>,
        Query<(&mut Node, &RightPanelPart)>,
        Query<(&FoldButton, &Children)>,
        Query<&mut Text>,
    )>,
) {
    let folded = settings.collapsed;
    let l = HudLayout::of_panels(window.single().ok(), folded, ui_scale(ui.as_deref()));
    // The right panel's menu and log are hidden while it is folded; its header says which
    // way it goes.
    for (mut n, _) in &mut nodes.p4() {
        let want = if folded.right {
            Display::None
        } else {
            Display::Flex
        };
        if n.display != want {
            n.display = want;
        }
    }
    let labels: Vec<(Entity, String)> = nodes
        .p5()
        .iter()
        .flat_map(|(b, children)| {
            let label = b.label(folded, &settings.keys);
            children.iter().map(move |c| (c, label.clone()))
        })
        .collect();
    for (c, label) in labels {
        if let Ok(mut t) = nodes.p6().get_mut(c)
            && t.0 != label
        {
            t.0 = label;
        }
    }
    for mut n in &mut nodes.p0() {
        let h = px(l.top - 4.0);
        if n.height != h {
            n.height = h;
        }
    }
    for mut n in &mut nodes.p1() {
        let (top, w) = (px(l.top), px(l.left - 12.0));
        if n.top != top || n.width != w {
            n.top = top;
            n.width = w;
        }
    }
    for mut n in &mut nodes.p2() {
        let (top, bottom, w) = (px(l.top), px(l.bottom), px(l.right - 12.0));
        if n.top != top || n.width != w || n.bottom != bottom {
            n.top = top;
            n.bottom = bottom;
            n.width = w;
        }
    }
    for mut n in &mut nodes.p3() {
        let (left, right) = (px(l.left), px(l.right));
        if n.left != left || n.right != right {
            n.left = left;
            n.right = right;
        }
    }
}

fn reset_battle_ui(mut targeting: ResMut<Targeting>) {
    *targeting = Targeting::default();
}

/// A floating panel of the HUD.
fn panel_node() -> Node {
    Node {
        position_type: PositionType::Absolute,
        flex_direction: FlexDirection::Column,
        padding: UiRect::all(px(8)),
        row_gap: px(3),
        border_radius: BorderRadius::all(px(6)),
        overflow: Overflow::clip(),
        ..default()
    }
}

/// Spawns every panel, empty; their systems fill them.
fn spawn_hud(mut commands: Commands) {
    let (_, right, top, bottom) = HudLayout::for_window(DEFAULT_WINDOW).insets();
    top_bar::spawn(&mut commands);
    turn_order::spawn(&mut commands);
    commands
        .spawn((
            Name::new("Right panel"),
            RightPanel,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            Node {
                right: px(6),
                top: px(top),
                bottom: px(bottom),
                width: px(right - 12.0),
                ..panel_node()
            },
            BackgroundColor(ui::PANEL),
        ))
        .with_children(|p| {
            p.spawn(fold_button(FoldButton::Right, String::new()));
            action_menu::spawn(p);
            log::spawn(p);
        });
    hints::spawn(&mut commands);
    tooltip::spawn(&mut commands);
    action_menu::spawn_help(&mut commands);
}

/// Recomputes the [`View`] when the battle, the hot-seat or the targeting changes.
#[allow(clippy::too_many_arguments)]
fn update_view(
    battle: Res<Battle>,
    hotseat: Res<HotSeat>,
    mut targeting: ResMut<Targeting>,
    pause: Option<Res<State<Pause>>>,
    help: Res<rules_help::RulesHelp>,
    replay: Option<Res<super::replay::Replay>>,
    mut view: ResMut<View>,
    mut blocked: ResMut<InputBlocked>,
) {
    if !battle.is_changed()
        && !hotseat.is_changed()
        && !help.is_changed()
        && !replay.as_ref().is_some_and(|r| r.is_changed())
        && !targeting.is_changed()
        && !pause.as_ref().is_some_and(|p| p.is_changed())
        && view.state.is_some()
    {
        return;
    }
    let viewer = hotseat.viewer;
    let mut shown = battle.shown.clone();
    if let Some(v) = viewer {
        rulesets::redact(&mut shown, v);
    }
    let may_act = replay.is_none()
        && battle.human_to_decide()
        && !hotseat.waiting
        && (viewer.is_none() || battle.deciding() == viewer);
    let legal = if may_act {
        menu::described(&battle.state)
    } else {
        Vec::new()
    };
    let entries = menu::menu(&battle.state, &legal);
    // A chosen group that no longer exists is dropped.
    if let Some(g) = &targeting.group
        && !entries.iter().any(|e| &e.group == g && e.needs_target())
    {
        targeting.group = None;
    }
    let sub = match &targeting.group {
        Some(g) if g != "Move" => menu::sub_menu(&battle.state, &legal, g),
        _ => Vec::new(),
    };
    view.acting = battle.state.pending().unit();
    view.menu_for = Some((battle.commands.len(), battle.state.pending()));
    view.viewer = viewer;
    view.state = Some(shown);
    view.legal = legal;
    view.menu = entries;
    view.sub = sub;
    blocked.0 = Pause::is_paused(pause.as_deref()) || hotseat.waiting || help.open;
}

/// Handles the HUD's buttons and keys during a battle.
#[allow(clippy::too_many_arguments)]
fn battle_actions(
    mut clicks: MessageReader<UiClick>,
    mut view: ResMut<View>,
    mut targeting: ResMut<Targeting>,
    mut battle: ResMut<Battle>,
    mut settings: ResMut<Settings>,
    pause: Option<Res<State<Pause>>>,
    mut next_pause: ResMut<NextState<Pause>>,
    mut help: ResMut<rules_help::RulesHelp>,
    replay: Option<Res<super::replay::Replay>>,
    mut toasts: MessageWriter<Toast>,
    mut commands: Commands,
    mut editor: Option<ResMut<super::editor::Editor>>,
) {
    for UiClick(action) in clicks.read() {
        // A playtest (the editor's level as it stands, unsaved perhaps) keeps its quick save
        // with the editor, not in the save folder: see `editor::playtest_quick_save`.
        let playtest = editor.as_deref_mut().filter(|e| e.playtesting);
        match action {
            UiAction::QuickSave | UiAction::QuickLoad if playtest.is_some() => {
                if let Some(editor) = playtest {
                    let load = *action == UiAction::QuickLoad;
                    let (msg, loaded) =
                        super::editor::playtest_quick_save(editor, &mut battle, load);
                    if loaded {
                        commands.insert_resource(super::ai_driver::AiPlayers::for_battle(&battle));
                        targeting.group = None;
                    }
                    toasts.write(if battle.confirm_load {
                        Toast::ask(msg)
                    } else {
                        Toast::say(msg)
                    });
                }
            }
            UiAction::Menu(_) | UiAction::Sub(_) | UiAction::Pick(_)
                if view.menu_for != Some((battle.commands.len(), battle.state.pending())) =>
            {
                // The menu on screen was of a decision that has passed: its entry's number
                // now names another entry (a digit meant to pick a unit would press the
                // picked unit's action), so nothing is done.
                toasts.write(Toast::say(
                    "The menu changed just before that; look at it and press again".into(),
                ));
            }
            UiAction::Menu(i) => {
                let Some(entry) = view.menu.get(*i).cloned() else {
                    continue;
                };
                if entry.commands.len() == 1 {
                    targeting.group = None;
                    play(&mut battle, &entry.commands[0], &mut toasts);
                    // The menu is spent: the view is rebuilt for the battle's next decision.
                    view.legal.clear();
                    view.menu.clear();
                } else if targeting.group.as_ref() == Some(&entry.group) {
                    targeting.group = None;
                } else {
                    targeting.group = Some(entry.group.clone());
                }
            }
            UiAction::Sub(i) => {
                if let Some(entry) = view.sub.get(*i).cloned()
                    && let Some(c) = entry.commands.first()
                {
                    targeting.group = None;
                    play(&mut battle, c, &mut toasts);
                    view.legal.clear();
                    view.menu.clear();
                    view.sub.clear();
                }
            }
            UiAction::CancelTarget => targeting.group = None,
            UiAction::Pick(u) => {
                let cmd = Command::Pick { unit: *u };
                if view.legal.iter().any(|d| d.command == cmd) {
                    play(&mut battle, &cmd, &mut toasts);
                    view.legal.clear();
                }
            }
            UiAction::Resume => (*next_pause).set_if_neq(Pause::Running),
            UiAction::Pause => (*next_pause).set_if_neq(if Pause::is_paused(pause.as_deref()) {
                Pause::Running
            } else {
                Pause::Paused
            }),
            UiAction::SaveAndQuit => {
                // A replay is not saved again: its battle already has its save; a playtest
                // is never saved.
                if replay.is_none()
                    && playtest.is_none()
                    && let Err(e) = super::saves::save_on_quit(&mut battle, settings.colour_blind)
                {
                    toasts.write(Toast::say(e));
                }
                commands.set_state(Screen::Title);
            }
            // A playtest is not saved: the level it plays is the editor's, as it stands.
            UiAction::BackToEditor => commands.set_state(Screen::Editor),
            UiAction::ShowResult if battle.finished() => {
                // The battle is over: nothing to continue (and a playtest is never saved).
                if replay.is_none() && playtest.is_none() {
                    let _ = super::saves::save_on_quit(&mut battle, settings.colour_blind);
                }
                commands.set_state(Screen::Result);
            }
            // The pause menu's "All settings and keys": the Settings screen, whose Back
            // comes back to this battle.
            UiAction::Settings if Pause::is_paused(pause.as_deref()) => {
                commands.insert_resource(crate::game::screens::settings::BackFromSettings(
                    Screen::Battle,
                ));
                commands.set_state(Screen::Settings);
            }
            UiAction::RulesHelp => {
                help.open = !help.open;
                help.page = 0;
            }
            UiAction::ToggleThreat => settings.show_threat = !settings.show_threat,
            UiAction::ToggleLeftPanel => settings.collapsed.left = !settings.collapsed.left,
            UiAction::ToggleRightPanel => settings.collapsed.right = !settings.collapsed.right,
            UiAction::Speed => settings.speed = Settings::cycle(&Settings::SPEEDS, settings.speed),
            UiAction::SkipAnimations => settings.skip_animations = !settings.skip_animations,
            UiAction::Pace => {
                settings.ai_pace = Settings::cycle(&Settings::PACES, settings.ai_pace)
            }
            UiAction::Undo => {
                if battle.undo() {
                    toasts.write(Toast::say("Move undone".into()));
                } else {
                    toasts.write(Toast::say(
                        "Nothing to undo: only the acting unit's moves, with no die rolled since, can be taken back"
                            .into(),
                    ));
                }
            }
            UiAction::QuickSave => {
                let msg = match super::saves::save(&mut battle, Slot::Quick, settings.colour_blind)
                {
                    // The file's name, not its whole path (the Load screen lists it).
                    Ok(path) => format!(
                        "Quick saved: {} ({} loads it)",
                        path.file_name().map_or_else(
                            || path.display().to_string(),
                            |n| n.to_string_lossy().into_owned()
                        ),
                        settings.keys.name(&crate::game::keys::QUICK_LOAD)
                    ),
                    Err(e) => format!("Quick save failed: {e}"),
                };
                toasts.write(Toast::say(msg));
            }
            UiAction::QuickLoad => {
                let path = super::saves::slot_path(&battle, Slot::Quick);
                if !path.exists() {
                    toasts.write(Toast::say(
                        "No quick save of this battle yet: F5 writes one".into(),
                    ));
                } else if battle.commands.len() != battle.quick_saved && !battle.confirm_load {
                    battle.confirm_load = true;
                    toasts.write(Toast::ask(
                        "Loading the quick save throws away what happened since it was written: \
                         press F9 again to load it"
                            .into(),
                    ));
                } else {
                    battle.confirm_load = false;
                    match super::saves::load(&path) {
                        Ok(b) => {
                            commands.insert_resource(super::ai_driver::AiPlayers::for_battle(&b));
                            *battle = b;
                            targeting.group = None;
                            toasts.write(Toast::say("Quick save loaded".into()));
                        }
                        Err(e) => {
                            toasts.write(Toast::say(e));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether an AI side is working out its next command now (not only animating the last).
fn ai_thinking(ai: Option<&super::ai_driver::AiPlayers>, battle: &Battle) -> bool {
    ai.is_some_and(|a| a.busy())
        && battle
            .deciding()
            .is_some_and(|s| !battle.control(s).is_human())
}

/// An attack's odds in full, as the tooltip and the reaction prompt tell them: "55% to hit,
/// 1.9 expected damage (1d20+3 vs 13)".
fn odds_sentence(o: &rulesets::Odds) -> String {
    format!(
        "{:.0}% to hit, {:.1} expected damage ({})",
        o.hit * 100.0,
        o.expected_damage,
        o.formula
    )
}

/// What each defensive reaction that could answer an attack leaves of it, as the odds add
/// it: ", or 38% if Quill dodges, 74% for 0.8 damage if Quill parries". The damage is named
/// when the answer takes some off each hit (a Parry, a Block, rolling with a punch).
/// Empty when there is no such answer.
pub fn if_answered(s: &BattleState, attacker: UnitId, target: UnitId, ranged: bool) -> String {
    answers_words(
        s,
        rulesets::odds(s, attacker, target, ranged).as_ref(),
        &rulesets::answered_odds(s, attacker, target, ranged),
    )
}

/// [`if_answered`]'s words for given odds and answers (a spell's, say, which the plain odds
/// do not tell).
pub fn answers_words(
    s: &BattleState,
    plain: Option<&rulesets::Odds>,
    answers: &[rulesets::Answered],
) -> String {
    let per_hit = |o: &rulesets::Odds| (o.hit > 0.0).then(|| o.expected_damage / o.hit);
    let plain = plain.and_then(per_hit);
    let answers: Vec<String> = answers
        .iter()
        .map(|a| {
            let softer = match (plain, per_hit(&a.odds)) {
                (Some(p), Some(q)) => q < p * 0.95,
                _ => false,
            };
            let what = if softer {
                format!(
                    "{:.0}% for {:.1} damage",
                    a.odds.hit * 100.0,
                    a.odds.expected_damage
                )
            } else {
                format!("{:.0}%", a.odds.hit * 100.0)
            };
            format!("{what} if {} {}", s.unit_name(a.by), a.reaction)
        })
        .collect();
    if answers.is_empty() {
        String::new()
    } else {
        format!(", or {}", answers.join(", "))
    }
}

/// Whether `group` commands exist at `cell` (for the hover highlight).
pub fn commands_at<'a>(
    s: &BattleState,
    legal: &'a [Described],
    cell: crate::rules::grid::Cell,
) -> impl Iterator<Item = &'a Described> {
    let s = s.clone();
    legal
        .iter()
        .filter(move |d| d.command.anchor().board_cell(&s) == Some(cell))
}

/// The label of a group, for tests and hints.
pub fn group_label(cmd: &Command) -> String {
    group_of(cmd)
}
