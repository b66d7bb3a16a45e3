//! The battle HUD: the top bar (the ruleset's clock headline, the AI's "thinking" indicator,
//! settings), the turn-order panel, the action menu with costs, "provokes" marks and hotkeys,
//! the combat log, tooltips on units and cells, the reaction prompt, the pause menu and the
//! toasts. Everything the HUD shows comes from the [`View`]: the shown battle, redacted for
//! the side whose player is looking, and the legal commands when that player may act.

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;

use super::Screen;
use super::battle::{Battle, Settings, Submit, Toast};
use super::hotseat::HotSeat;
use super::input::CursorCell;
use super::menu::{self, Described, MenuEntry, group_of};
use super::ui::{self, UiAction, UiClick};
use super::units::{health_text, side_colour};
use crate::rules::battle::{BattleState, Command, Decision, SideId, Status, Trigger, UnitId, log};
use crate::rules::rulesets;
use crate::rules::sight::{self, Cover};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<View>()
        .init_resource::<Targeting>()
        .init_resource::<Paused>()
        .init_resource::<InputBlocked>()
        .init_resource::<LogScroll>()
        .add_systems(
            OnEnter(Screen::Battle),
            (reset_battle_ui, spawn_hud).chain(),
        )
        .add_systems(
            Update,
            (
                update_view,
                battle_actions,
                update_view,
                (
                    top_bar,
                    turn_order,
                    action_menu,
                    combat_log,
                    reaction_prompt,
                    pause_menu,
                    tooltip,
                    hints,
                    toasts,
                ),
            )
                .chain()
                .in_set(super::AppSystems::Update)
                .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
        );
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

/// The pause menu is open.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct Paused(pub bool);

/// Board input is ignored (a modal, the pause menu or the hand-over screen is up).
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct InputBlocked(pub bool);

/// Lines scrolled back from the end of the combat log.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct LogScroll(pub usize);

/// The combat log panel (a mouse wheel over it scrolls it instead of zooming).
#[derive(Component)]
pub struct LogPanel;

/// A HUD panel; the board is not clicked through it.
#[derive(Component)]
pub struct HudPanel;

#[derive(Component)]
struct TopBar;
#[derive(Component)]
struct OrderPanel;
#[derive(Component)]
struct MenuPanel;
#[derive(Component)]
struct LogLines;
#[derive(Component)]
struct LogHeader;
#[derive(Component)]
struct Modal;
#[derive(Component)]
struct PauseMenu;
#[derive(Component)]
pub struct Tooltip;
#[derive(Component)]
struct HintText;
#[derive(Component)]
struct ToastText;

/// Room the HUD takes on each side of the window, in logical pixels (the camera frames the
/// board in what is left).
pub const INSETS: (f32, f32, f32, f32) = (246.0, 356.0, 40.0, 44.0);

fn reset_battle_ui(
    mut targeting: ResMut<Targeting>,
    mut paused: ResMut<Paused>,
    mut scroll: ResMut<LogScroll>,
) {
    *targeting = Targeting::default();
    *paused = Paused(false);
    *scroll = LogScroll(0);
}

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

fn spawn_hud(mut commands: Commands) {
    let (left, right, top, bottom) = INSETS;
    commands.spawn((
        Name::new("Top bar"),
        TopBar,
        HudPanel,
        Interaction::default(),
        DespawnOnExit(Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            left: px(0),
            right: px(0),
            top: px(0),
            height: px(top - 4.0),
            flex_direction: FlexDirection::Row,
            align_items: AlignItems::Center,
            padding: UiRect::horizontal(px(8)),
            column_gap: px(6),
            ..default()
        },
        BackgroundColor(ui::PANEL),
    ));
    commands.spawn((
        Name::new("Turn order"),
        OrderPanel,
        HudPanel,
        Interaction::default(),
        DespawnOnExit(Screen::Battle),
        Node {
            left: px(6),
            top: px(top),
            width: px(left - 12.0),
            max_height: Val::Vh(80.0),
            ..panel_node()
        },
        BackgroundColor(ui::PANEL),
    ));
    commands
        .spawn((
            Name::new("Right panel"),
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
            p.spawn((
                MenuPanel,
                Node {
                    flex_direction: FlexDirection::Column,
                    row_gap: px(2),
                    flex_shrink: 0.0,
                    ..default()
                },
            ));
            p.spawn((
                LogPanel,
                Interaction::default(),
                Node {
                    flex_direction: FlexDirection::Column,
                    flex_grow: 1.0,
                    min_height: px(0),
                    margin: UiRect::top(px(8)),
                    overflow: Overflow::clip(),
                    justify_content: JustifyContent::FlexEnd,
                    ..default()
                },
            ))
            .with_children(|l| {
                l.spawn((
                    LogHeader,
                    ui::text("Combat log (PgUp / wheel to scroll)", 14.0, ui::ACCENT),
                    Node {
                        flex_shrink: 0.0,
                        ..default()
                    },
                ));
                // The newest lines sit at the bottom; what does not fit is cut at the top.
                l.spawn(Node {
                    flex_direction: FlexDirection::Column,
                    flex_grow: 1.0,
                    min_height: px(0),
                    overflow: Overflow::clip(),
                    justify_content: JustifyContent::FlexEnd,
                    ..default()
                })
                .with_children(|c| {
                    c.spawn((
                        LogLines,
                        Node {
                            flex_direction: FlexDirection::Column,
                            flex_shrink: 0.0,
                            row_gap: px(1),
                            ..default()
                        },
                    ));
                });
            });
        });
    commands
        .spawn((
            Name::new("Hints"),
            DespawnOnExit(Screen::Battle),
            Node {
                position_type: PositionType::Absolute,
                left: px(left),
                right: px(right),
                bottom: px(4),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                ..default()
            },
        ))
        .with_children(|p| {
            p.spawn((ToastText, ui::text("", 16.0, ui::ACCENT)));
            p.spawn((
                HintText,
                ui::text("", 14.0, ui::TEXT),
                BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55)),
                Node {
                    padding: UiRect::axes(px(8), px(2)),
                    ..default()
                },
            ));
        });
    commands.spawn((
        Name::new("Tooltip"),
        Tooltip,
        DespawnOnExit(Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            left: px(left + 8.0),
            bottom: px(bottom + 8.0),
            flex_direction: FlexDirection::Column,
            padding: UiRect::all(px(6)),
            max_width: px(340),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.05, 0.05, 0.07, 0.92)),
        Visibility::Hidden,
        ZIndex(5),
    ));
}

/// Recomputes the [`View`] when the battle, the hot-seat or the targeting changes.
#[allow(clippy::too_many_arguments)]
fn update_view(
    battle: Res<Battle>,
    hotseat: Res<HotSeat>,
    mut targeting: ResMut<Targeting>,
    paused: Res<Paused>,
    mut view: ResMut<View>,
    mut blocked: ResMut<InputBlocked>,
) {
    if !battle.is_changed()
        && !hotseat.is_changed()
        && !targeting.is_changed()
        && !paused.is_changed()
        && view.state.is_some()
    {
        return;
    }
    let viewer = hotseat.viewer;
    let mut shown = battle.shown.clone();
    if let Some(v) = viewer {
        rulesets::redact(&mut shown, v);
    }
    let may_act = battle.human_to_decide()
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
        Some(g) if g != "Move" => menu::sub_menu(&legal, g),
        _ => Vec::new(),
    };
    view.acting = battle.state.pending().unit();
    view.viewer = viewer;
    view.state = Some(shown);
    view.legal = legal;
    view.menu = entries;
    view.sub = sub;
    blocked.0 = paused.0 || hotseat.waiting;
}

/// Handles the HUD's buttons and keys during a battle.
#[allow(clippy::too_many_arguments)]
fn battle_actions(
    mut clicks: MessageReader<UiClick>,
    mut view: ResMut<View>,
    mut targeting: ResMut<Targeting>,
    mut battle: ResMut<Battle>,
    mut settings: ResMut<Settings>,
    mut paused: ResMut<Paused>,
    mut submit: MessageWriter<Submit>,
    mut toasts: MessageWriter<Toast>,
    mut commands: Commands,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::Menu(i) => {
                let Some(entry) = view.menu.get(*i).cloned() else {
                    continue;
                };
                if entry.commands.len() == 1 {
                    targeting.group = None;
                    submit.write(Submit {
                        command: entry.commands[0].clone(),
                        human: true,
                    });
                    // Until the battle answers, the menu is spent.
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
                    submit.write(Submit {
                        command: c.clone(),
                        human: true,
                    });
                    view.legal.clear();
                    view.menu.clear();
                    view.sub.clear();
                }
            }
            UiAction::CancelTarget => targeting.group = None,
            UiAction::Pick(u) => {
                let cmd = Command::Pick { unit: *u };
                if view.legal.iter().any(|d| d.command == cmd) {
                    submit.write(Submit {
                        command: cmd,
                        human: true,
                    });
                    view.legal.clear();
                }
            }
            UiAction::Resume => paused.0 = false,
            UiAction::Pause => paused.0 = !paused.0,
            UiAction::SaveAndQuit => {
                if let Err(e) = super::saves::save_on_quit(&battle) {
                    toasts.write(Toast(e));
                }
                commands.set_state(Screen::Title);
            }
            UiAction::ToggleThreat => settings.show_threat = !settings.show_threat,
            UiAction::Speed => settings.speed = Settings::cycle(&Settings::SPEEDS, settings.speed),
            UiAction::SkipAnimations => settings.skip_animations = !settings.skip_animations,
            UiAction::Pace => {
                settings.ai_pace = Settings::cycle(&Settings::PACES, settings.ai_pace)
            }
            UiAction::Undo => {
                if battle.undo() {
                    toasts.write(Toast("Move undone".into()));
                } else {
                    toasts.write(Toast(
                        "Nothing to undo: only moves with no die rolled since can be taken back"
                            .into(),
                    ));
                }
            }
            UiAction::QuickSave => {
                let msg = match super::saves::save(&battle, &super::saves::quicksave_path()) {
                    Ok(()) => format!("Saved to {}", super::saves::quicksave_path().display()),
                    Err(e) => format!("Quick save failed: {e}"),
                };
                toasts.write(Toast(msg));
            }
            UiAction::QuickLoad => match super::saves::load(&super::saves::quicksave_path()) {
                Ok(b) => {
                    commands.insert_resource(super::ai_driver::AiPlayers::for_battle(&b));
                    *battle = b;
                    targeting.group = None;
                    toasts.write(Toast("Quick save loaded".into()));
                }
                Err(e) => {
                    toasts.write(Toast(e));
                }
            },
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

fn top_bar(
    mut commands: Commands,
    view: Res<View>,
    settings: Res<Settings>,
    bar: Query<Entity, With<TopBar>>,
    mut last: Local<String>,
) {
    let Some(state) = &view.state else {
        return;
    };
    let clock = rulesets::clock(state);
    let key = format!("{}|{settings:?}", clock.headline);
    if *last == key {
        return;
    }
    *last = key;
    let Ok(bar) = bar.single() else {
        return;
    };
    commands.entity(bar).despawn_children().with_children(|b| {
        b.spawn((
            ui::text(&clock.headline, 17.0, ui::ACCENT),
            Node {
                flex_grow: 1.0,
                flex_shrink: 1.0,
                min_width: px(0),
                ..default()
            },
        ));
        let small = |label: String, action: UiAction| {
            (
                Button,
                action,
                ui::ButtonColour(ui::BUTTON),
                Node {
                    padding: UiRect::axes(px(6), px(3)),
                    border_radius: BorderRadius::all(px(3)),
                    flex_shrink: 0.0,
                    ..default()
                },
                BackgroundColor(ui::BUTTON),
                children![ui::text(label, 13.0, ui::TEXT)],
            )
        };
        b.spawn(small(
            format!(
                "[T] Threat {}",
                if settings.show_threat { "on" } else { "off" }
            ),
            UiAction::ToggleThreat,
        ));
        b.spawn(small(
            format!("[F2] Speed x{}", settings.speed),
            UiAction::Speed,
        ));
        b.spawn(small(
            format!(
                "[F3] Anim {}",
                if settings.skip_animations {
                    "skip"
                } else {
                    "on"
                }
            ),
            UiAction::SkipAnimations,
        ));
        b.spawn(small(
            format!("[F4] AI pace {}s", settings.ai_pace),
            UiAction::Pace,
        ));
        b.spawn(small("[F5] Save".into(), UiAction::QuickSave));
        b.spawn(small("[F9] Load".into(), UiAction::QuickLoad));
        b.spawn(small("[Esc] Menu".into(), UiAction::Pause));
    });
}

fn turn_order(
    mut commands: Commands,
    view: Res<View>,
    panel: Query<Entity, With<OrderPanel>>,
    mut last: Local<String>,
) {
    let Some(state) = &view.state else {
        return;
    };
    let clock = rulesets::clock(state);
    let key = format!("{clock:?}");
    if *last == key {
        return;
    }
    *last = key;
    let Ok(panel) = panel.single() else {
        return;
    };
    commands
        .entity(panel)
        .despawn_children()
        .with_children(|p| {
            p.spawn(ui::text("Turn order", 17.0, ui::ACCENT));
            if clock.order.is_empty() {
                p.spawn(ui::text("(the ruleset lists no order now)", 13.0, ui::DIM));
            }
            for e in &clock.order {
                let Some(u) = state.unit(e.unit) else {
                    continue;
                };
                let colour = if e.current {
                    ui::TEXT
                } else if e.done || !u.is_active() {
                    ui::DIM
                } else {
                    Color::srgb(0.82, 0.8, 0.76)
                };
                p.spawn((
                    Node {
                        flex_direction: FlexDirection::Row,
                        align_items: AlignItems::Center,
                        column_gap: px(5),
                        padding: UiRect::axes(px(3), px(2)),
                        border_radius: BorderRadius::all(px(3)),
                        ..default()
                    },
                    BackgroundColor(if e.current {
                        ui::BUTTON_ON
                    } else {
                        Color::NONE
                    }),
                ))
                .with_children(|r| {
                    r.spawn((
                        Node {
                            width: px(10),
                            height: px(10),
                            ..default()
                        },
                        BackgroundColor(side_colour(Some(u.side.index()))),
                    ));
                    let mark = if e.current { "> " } else { "" };
                    r.spawn(ui::text(
                        format!("{mark}{}  {}", u.name, e.label),
                        13.0,
                        colour,
                    ));
                });
            }
        });
}

/// The odds in words for an attack command, if it is one.
fn odds_words(s: &BattleState, cmd: &Command) -> Option<String> {
    let (unit, target, ranged) = match cmd {
        Command::Attack {
            unit,
            target,
            ranged,
        } => (*unit, *target, *ranged),
        _ => return None,
    };
    let o = rulesets::odds(s, unit, target, ranged)?;
    Some(format!(
        "{:.0}% hit, {:.1} dmg",
        o.hit * 100.0,
        o.expected_damage
    ))
}

fn entry_line(s: &BattleState, e: &MenuEntry) -> String {
    let key = e
        .hotkey
        .map_or(String::new(), |k| format!("[{}] ", k.label()));
    let mut line = format!("{key}{}", e.label);
    if !e.cost.is_empty() {
        line.push_str(&format!(" - {}", e.cost));
    }
    if e.commands.len() == 1
        && let Some(o) = odds_words(s, &e.commands[0])
    {
        line.push_str(&format!(" - {o}"));
    }
    if e.provokes {
        line.push_str(if e.commands.len() > 1 {
            " (! may provoke)"
        } else {
            " (! provokes)"
        });
    }
    line
}

/// The right panel's title: what the player is asked, whom the battle waits for, or that it
/// is over. It reads the battle itself, not the animated view: between the events of a
/// round's end the view passes through states with no decision pending, which read as "over".
fn panel_title(battle: &Battle, can_act: bool, thinking: bool) -> String {
    if battle.finished() {
        return "The battle is over".to_string();
    }
    if can_act {
        return menu::ascii(&log::decision(&battle.state, &battle.state.pending()));
    }
    match battle.deciding() {
        // The AI's thinking is said here, not in the top bar, where the turn clock of
        // `segments` already takes two lines on a 1280-pixel window.
        Some(s) => format!(
            "Waiting for {}: {}{}",
            battle
                .state
                .sides
                .get(s.index())
                .map_or("?", |x| x.name.as_str()),
            battle.control(s).label(),
            if thinking { ", thinking..." } else { "" }
        ),
        None => String::new(),
    }
}

fn action_menu(
    mut commands: Commands,
    view: Res<View>,
    targeting: Res<Targeting>,
    battle: Res<Battle>,
    ai: Option<Res<super::ai_driver::AiPlayers>>,
    panel: Query<Entity, With<MenuPanel>>,
    mut last: Local<String>,
) {
    if view.state.is_none() {
        return;
    }
    let title = panel_title(&battle, view.can_act(), ai_thinking(ai.as_deref(), &battle));
    let lines: Vec<(String, UiAction, bool)> = if targeting.group.is_some() && !view.sub.is_empty()
    {
        view.sub
            .iter()
            .enumerate()
            .map(|(i, e)| (entry_line(&battle.state, e), UiAction::Sub(i), false))
            .collect()
    } else {
        view.menu
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    entry_line(&battle.state, e),
                    UiAction::Menu(i),
                    targeting.group.as_ref() == Some(&e.group),
                )
            })
            .collect()
    };
    let key = format!(
        "{title}|{lines:?}|{:?}|{}",
        targeting.group,
        battle.can_undo()
    );
    if *last == key {
        return;
    }
    *last = key;
    let Ok(panel) = panel.single() else {
        return;
    };
    let can_undo = battle.can_undo();
    let group = targeting.group.clone();
    commands
        .entity(panel)
        .despawn_children()
        .with_children(|p| {
            p.spawn((
                ui::text(&title, 17.0, ui::ACCENT),
                Node {
                    margin: UiRect::bottom(px(4)),
                    ..default()
                },
            ));
            if let Some(g) = &group {
                let what = if g == "Move" {
                    "Choose a highlighted cell on the board (click, or arrows + Enter)".to_string()
                } else {
                    format!("{g}: choose a target on the board or below")
                };
                p.spawn(ui::text(what, 13.0, ui::TEXT));
            }
            for (label, action, on) in lines {
                p.spawn((
                    Button,
                    action,
                    ui::ButtonColour(if on { ui::BUTTON_ON } else { ui::BUTTON }),
                    Node {
                        padding: UiRect::axes(px(6), px(3)),
                        border_radius: BorderRadius::all(px(3)),
                        ..default()
                    },
                    BackgroundColor(if on { ui::BUTTON_ON } else { ui::BUTTON }),
                    children![ui::text(label, 14.0, ui::TEXT)],
                ));
            }
            if group.is_some() {
                p.spawn(ui::button("Cancel", Some("Esc"), UiAction::CancelTarget));
            }
            if can_undo {
                p.spawn(ui::button("Undo move", Some("U"), UiAction::Undo));
            }
        });
}

#[allow(clippy::too_many_arguments)]
fn combat_log(
    mut commands: Commands,
    battle: Res<Battle>,
    view: Res<View>,
    mut scroll: ResMut<LogScroll>,
    keys: Res<ButtonInput<KeyCode>>,
    wheel: Res<AccumulatedMouseScroll>,
    hovered: Query<&Interaction, With<LogPanel>>,
    lines: Query<Entity, With<LogLines>>,
    mut header: Query<&mut Text, With<LogHeader>>,
    mut last: Local<(usize, usize, Option<SideId>)>,
) {
    const SHOWN: usize = 40;
    let visible: Vec<&str> = battle
        .log
        .iter()
        .map(|l| l.text_for(view.viewer))
        .filter(|t| !t.is_empty())
        .collect();
    let max_back = visible.len().saturating_sub(SHOWN);
    if keys.just_pressed(KeyCode::PageUp) {
        scroll.0 = (scroll.0 + 10).min(max_back);
    }
    if keys.just_pressed(KeyCode::PageDown) {
        scroll.0 = scroll.0.saturating_sub(10);
    }
    if hovered.iter().any(|i| *i != Interaction::None) {
        let d = match wheel.unit {
            MouseScrollUnit::Line => wheel.delta.y,
            MouseScrollUnit::Pixel => wheel.delta.y / 20.0,
        };
        if d > 0.0 {
            scroll.0 = (scroll.0 + (d.ceil() as usize) * 3).min(max_back);
        } else if d < 0.0 {
            scroll.0 = scroll.0.saturating_sub(((-d).ceil() as usize) * 3);
        }
    }
    let key = (visible.len(), scroll.0, view.viewer);
    if *last == key {
        return;
    }
    *last = key;
    let Ok(lines) = lines.single() else {
        return;
    };
    let end = visible.len() - scroll.0.min(visible.len());
    let start = end.saturating_sub(SHOWN);
    if let Ok(mut header) = header.single_mut() {
        header.0 = if scroll.0 > 0 {
            format!("Combat log (scrolled back {}; PgDn)", scroll.0)
        } else {
            "Combat log (PgUp / wheel to scroll)".to_string()
        };
    }
    commands
        .entity(lines)
        .despawn_children()
        .with_children(|p| {
            for line in &visible[start..end] {
                let colour = if line.starts_with("---") || line.starts_with("Battle over") {
                    ui::ACCENT
                } else if line.contains(" rolls ") {
                    ui::DIM
                } else {
                    ui::TEXT
                };
                p.spawn(ui::text(*line, 13.0, colour));
            }
        });
}

fn reaction_prompt(
    mut commands: Commands,
    view: Res<View>,
    battle: Res<Battle>,
    modals: Query<Entity, With<Modal>>,
    mut last: Local<String>,
) {
    let react = matches!(battle.state.pending(), Decision::React { .. }) && view.can_act();
    let key = if react {
        format!("{:?}", view.menu)
    } else {
        String::new()
    };
    if *last == key {
        return;
    }
    *last = key;
    for m in &modals {
        commands.entity(m).despawn();
    }
    if !react {
        return;
    }
    let question = menu::ascii(&log::decision(&battle.state, &battle.state.pending()));
    let odds = reaction_odds(&battle.state, &battle.state.pending()).map(|o| menu::ascii(&o));
    commands
        .spawn((
            Name::new("Reaction prompt"),
            Modal,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            Node {
                position_type: PositionType::Absolute,
                left: percent(30),
                right: percent(30),
                top: percent(30),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                padding: UiRect::all(px(16)),
                row_gap: px(6),
                border: UiRect::all(px(2)),
                border_radius: BorderRadius::all(px(8)),
                ..default()
            },
            BorderColor::all(ui::ACCENT),
            BackgroundColor(Color::srgba(0.07, 0.06, 0.09, 0.97)),
            ZIndex(10),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Reaction", 22.0, ui::ACCENT));
            p.spawn(ui::text(question, 16.0, ui::TEXT));
            if let Some(o) = odds {
                p.spawn(ui::text(o, 14.0, ui::DIM));
            }
            let default_answer = menu::default_answer(&battle.state.pending(), &view.menu);
            for (i, e) in view.menu.iter().enumerate() {
                let default = if i == default_answer {
                    " (default: Enter)"
                } else {
                    ""
                };
                p.spawn(ui::button(
                    format!(
                        "{}{}{default}",
                        e.label,
                        if e.cost.is_empty() {
                            String::new()
                        } else {
                            format!(" - {}", e.cost)
                        }
                    ),
                    e.hotkey.map(|k| k.label()).as_deref(),
                    UiAction::Menu(i),
                ));
            }
            p.spawn(ui::text("No time limit: take your time.", 13.0, ui::DIM));
        });
}

/// The odds that bear on a reaction, when the engine can tell them: the attack coming at the
/// reacting unit (before any dodge), or the attack of opportunity it may make.
fn reaction_odds(s: &BattleState, d: &Decision) -> Option<String> {
    let Decision::React { unit, trigger } = d else {
        return None;
    };
    let words = |attacker: UnitId, target: UnitId, o: rulesets::Odds| {
        format!(
            "{} on {}: {}",
            s.unit_name(attacker),
            s.unit_name(target),
            odds_sentence(&o)
        )
    };
    match trigger {
        Trigger::Targeted { attacker, ranged } => {
            rulesets::odds(s, *attacker, *unit, *ranged).map(|o| words(*attacker, *unit, o))
        }
        Trigger::Opportunity { mover: foe, .. } | Trigger::Provoked { actor: foe, .. } => {
            rulesets::odds(s, *unit, *foe, false).map(|o| words(*unit, *foe, o))
        }
        _ => None,
    }
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

fn pause_menu(mut commands: Commands, paused: Res<Paused>, menus: Query<Entity, With<PauseMenu>>) {
    if !paused.is_changed() {
        return;
    }
    for m in &menus {
        commands.entity(m).despawn();
    }
    if !paused.0 {
        return;
    }
    commands
        .spawn((
            Name::new("Pause menu"),
            PauseMenu,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            Node {
                position_type: PositionType::Absolute,
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                justify_content: JustifyContent::Center,
                row_gap: px(8),
                ..default()
            },
            BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.7)),
            ZIndex(20),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Paused", 36.0, ui::ACCENT));
            p.spawn(ui::button("Resume", Some("Esc"), UiAction::Resume));
            p.spawn(ui::button("Quick save", Some("F5"), UiAction::QuickSave));
            p.spawn(ui::button("Quick load", Some("F9"), UiAction::QuickLoad));
            p.spawn(ui::button(
                "Save and quit to title",
                Some("Q"),
                UiAction::SaveAndQuit,
            ));
            p.spawn(ui::text(
                "Keys: arrows/WASD cursor - Enter confirm - Esc cancel - Tab next unit - E end turn - U undo - 1-9 actions\nShift+arrows pan - wheel or +/- zoom - Home fit - T threat - PgUp/PgDn log - F2 speed - F3 skip animations - F4 AI pace",
                14.0,
                ui::DIM,
            ));
        });
}

/// What the tooltip says about a cell and the unit on it.
pub fn tooltip_lines(
    s: &BattleState,
    acting: Option<UnitId>,
    cell: crate::rules::grid::Cell,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(terrain) = s.terrain.terrain(cell) else {
        return out;
    };
    if let Some(uid) = s
        .unit_at(cell)
        .or_else(|| s.unit_ids().find(|&u| s.units[u.index()].cell == cell))
        && let Some(u) = s.unit(uid)
    {
        let template = s
            .ruleset()
            .and_then(|r| r.template(&u.template))
            .map_or(u.template.to_string(), |t| t.name.clone());
        let side = s.sides.get(u.side.index()).map_or("?", |x| x.name.as_str());
        let fallen = match u.status {
            Status::Active => "",
            Status::Down => ", down",
            Status::Dead => ", dead",
        };
        out.push(format!("{} - {template} ({side}){fallen}", u.name));
        out.push(health_text(u));
        if !u.conditions.is_empty() {
            let c: Vec<String> = u
                .conditions
                .iter()
                .map(|c| super::units::condition_name(s, c))
                .collect();
            out.push(format!("Conditions: {}", c.join(", ")));
        }
        if let Some(a) = acting
            && a != uid
            && s.are_enemies(a, uid)
        {
            for ranged in [false, true] {
                if let Some(o) = rulesets::odds(s, a, uid, ranged) {
                    out.push(format!(
                        "{} from {}: {}",
                        if ranged { "Shoot" } else { "Attack" },
                        s.unit_name(a),
                        odds_sentence(&o)
                    ));
                }
            }
        }
    }
    let cost = match terrain.cost {
        Some(c) => format!("entering costs {c}"),
        None => "impassable".into(),
    };
    out.push(format!(
        "{} {cell}: {cost}{}",
        terrain.name,
        if terrain.difficult { ", difficult" } else { "" }
    ));
    if let Some(a) = acting.and_then(|a| s.unit(a))
        && a.cell != cell
    {
        let cover = match sight::cover(&s.terrain, a.cell, cell) {
            Cover::None => "no cover",
            Cover::Half => "half cover",
            Cover::Full => "full cover",
            Cover::Blocked => "out of sight",
        };
        out.push(format!(
            "From {}: distance {}, {cover}",
            a.name,
            s.grid().distance(a.cell, cell)
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn tooltip(
    mut commands: Commands,
    view: Res<View>,
    cursor: Res<CursorCell>,
    blocked: Res<InputBlocked>,
    tip: Query<(Entity, &mut Node, &mut Visibility), With<Tooltip>>,
    cameras: Query<(&Camera, &GlobalTransform), With<super::camera::MainCamera>>,
    boards: Query<&super::board::BoardGrid>,
    mut last: Local<String>,
) {
    let Ok((entity, mut node, mut vis)) = tip.single_inner() else {
        return;
    };
    let (Some(state), Some(cell)) = (&view.state, cursor.0) else {
        *vis = Visibility::Hidden;
        return;
    };
    if blocked.0 {
        *vis = Visibility::Hidden;
        return;
    }
    let lines = tooltip_lines(state, view.acting, cell);
    if lines.is_empty() {
        *vis = Visibility::Hidden;
        return;
    }
    *vis = Visibility::Inherited;
    // Next to the cell when there is a camera to place it with.
    if let (Ok((camera, global)), Some(grid)) = (cameras.single(), boards.iter().next()) {
        let layout = super::board::BoardLayout::new(grid.0);
        if let Some(c) = layout.cell_center(cell)
            && let Ok(screen) = camera.world_to_viewport(global, c.extend(0.0))
        {
            // On the cell's right, or on its left when that would cover the side panel.
            let width = camera.logical_viewport_size().map_or(f32::MAX, |v| v.x);
            if screen.x + 28.0 + 340.0 > width - INSETS.1 {
                node.left = Val::Auto;
                node.right = px((width - screen.x + 20.0).max(0.0));
            } else {
                node.left = px(screen.x + 28.0);
                node.right = Val::Auto;
            }
            node.top = px(screen.y + 12.0);
            node.bottom = Val::Auto;
        }
    }
    // A width the lines fit in: left to itself, a box placed by its right edge was sized for
    // unwrapped text and a wrapped last line fell out of it.
    let w = px(tooltip_width(&lines));
    if node.width != w {
        node.width = w;
    }
    let key = lines.join("\n");
    if *last == key {
        return;
    }
    *last = key;
    commands
        .entity(entity)
        .despawn_children()
        .with_children(|p| {
            for (i, l) in lines.iter().enumerate() {
                p.spawn(ui::text(
                    l,
                    13.0,
                    if i == 0 { ui::ACCENT } else { ui::TEXT },
                ));
            }
        });
}

/// The tooltip's width in logical pixels: its longest line in the HUD's monospace font at 13
/// px (0.6 em a character) and its padding, at most 340 (longer lines wrap).
fn tooltip_width(lines: &[String]) -> f32 {
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (longest as f32 * 13.0 * 0.6 + 16.0).clamp(40.0, 340.0)
}

#[allow(clippy::too_many_arguments)]
fn hints(
    view: Res<View>,
    battle: Res<Battle>,
    targeting: Res<Targeting>,
    hotseat: Res<HotSeat>,
    mut text: Query<&mut Text, With<HintText>>,
) {
    let Ok(mut text) = text.single_mut() else {
        return;
    };
    let s = &battle.state;
    let hint = if battle.finished() {
        "The battle is over.".to_string()
    } else if hotseat.waiting {
        String::new()
    } else if !view.can_act() {
        match battle.deciding() {
            Some(side) if !battle.control(side).is_human() => format!(
                "{}: {} is playing. Space: skip animations; F4: AI pace.",
                s.sides.get(side.index()).map_or("?", |x| x.name.as_str()),
                battle.control(side).label()
            ),
            _ => String::new(),
        }
    } else if let Some(g) = &targeting.group {
        format!(
            "{g}: click a highlighted cell or target (or arrows + Enter, or a number). Esc cancels."
        )
    } else {
        match s.pending() {
            Decision::Act { unit } => act_hint(s, unit, battle.can_undo()),
            Decision::Pick { .. } => {
                "Choose who acts next: click one of your units, Tab + Enter, or a number.".into()
            }
            Decision::Declare { unit, .. } => format!(
                "Declare what {} will do this round (the other side cannot see it): pick from the menu.",
                s.unit_name(unit)
            ),
            Decision::React { .. } => {
                "Answer the prompt: a number, or Enter for the default.".into()
            }
            Decision::Over { .. } => String::new(),
        }
    };
    let hint = menu::ascii(&hint);
    if text.0 != hint {
        text.0 = hint;
    }
}

/// The hint for a unit to act, naming only what it can do now: a stunned unit whose one
/// legal command is Recover is not told to click cells or press E.
fn act_hint(s: &BattleState, unit: UnitId, can_undo: bool) -> String {
    let legal = s.legal_commands();
    let moves = legal.iter().any(|c| c.destination().is_some());
    let attacks = legal.iter().any(|c| c.attack_target().is_some());
    let ends = legal.iter().any(|c| matches!(c, Command::EndTurn { .. }));
    let name = s.unit_name(unit);
    if let [only] = legal.as_slice() {
        let label = rulesets::describe(s, only).label;
        let key = if matches!(only, Command::EndTurn { .. }) {
            "E"
        } else {
            "1"
        };
        return format!("{name} can only {label} now: press {key}.");
    }
    let mut click = Vec::new();
    if moves {
        click.push("a highlighted cell to move");
    }
    if attacks {
        click.push("an enemy to attack");
    }
    let mut keys = vec!["1-9: actions"];
    if ends {
        keys.push("E: end turn");
    }
    if can_undo {
        keys.push("U: undo a move");
    }
    if click.is_empty() {
        format!("{name} acts. {}.", keys.join(", "))
    } else {
        format!(
            "{name} acts: click {}. {}.",
            click.join(", "),
            keys.join(", ")
        )
    }
}

fn toasts(
    mut new: MessageReader<Toast>,
    time: Res<Time>,
    mut text: Query<&mut Text, With<ToastText>>,
    mut until: Local<f32>,
) {
    let Ok(mut text) = text.single_mut() else {
        return;
    };
    if let Some(Toast(msg)) = new.read().last() {
        text.0 = menu::ascii(msg);
        *until = time.elapsed_secs() + 4.0;
    } else if !text.0.is_empty() && time.elapsed_secs() > *until {
        text.0.clear();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::battle::Condition;

    /// The panel's title comes from the battle, not from the animated view: at a round's end
    /// in `segments` the view passed through states with no decision, and the panel said "The
    /// battle is over" at the start of every round's declarations.
    #[test]
    fn the_panel_says_the_battle_is_over_only_when_it_is() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let mut b = Battle::new(super::super::battle::BattleSetup::new(level, None));
        b.show_all();
        let over = "The battle is over";
        let asked = panel_title(&b, true, false);
        assert!(!asked.is_empty() && asked != over, "{asked}");
        let waiting = panel_title(&b, false, true);
        assert!(waiting.starts_with("Waiting for "), "{waiting}");
        b.state.outcome = Some(crate::rules::battle::Outcome {
            winner: None,
            reason: "test".into(),
        });
        assert_eq!(panel_title(&b, false, false), over);
    }

    #[test]
    fn the_act_hint_names_only_what_the_unit_can_do() {
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let Decision::Act { unit } = b.pending() else {
            panic!("the battle opens on a unit to act: {:?}", b.pending());
        };
        let h = act_hint(&b, unit, false);
        assert!(h.contains("E: end turn") && h.contains("to move"), "{h}");
        assert!(!h.contains("undo"), "{h}");
        assert!(act_hint(&b, unit, true).contains("U: undo a move"));
        // A Stunned unit's only action is to Recover: the hint says so and nothing else.
        b.units[unit.index()].conditions.insert(Condition::Stunned);
        assert_eq!(b.legal_commands().len(), 1, "{:?}", b.legal_commands());
        let h = act_hint(&b, unit, false);
        assert!(h.contains("can only") && h.contains("press 1"), "{h}");
        assert!(!h.contains("E: end turn") && !h.contains("click"), "{h}");
    }

    #[test]
    fn a_reaction_prompt_tells_the_odds_of_the_attack_at_stake() {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let (b, _) = BattleState::start(&level, 3);
        let id = |name: &str| {
            b.unit_ids()
                .find(|&u| &*b.units[u.index()].name == name)
                .expect("a unit of the ruins")
        };
        let (thorn, orrin) = (id("Thorn"), id("Orrin"));
        let shot = Decision::React {
            unit: orrin,
            trigger: Trigger::Targeted {
                attacker: thorn,
                ranged: true,
            },
        };
        let line = reaction_odds(&b, &shot).expect("odds of a shot");
        let o = rulesets::odds(&b, thorn, orrin, true).expect("the engine's odds");
        assert!(line.starts_with("Thorn on Orrin: "), "{line}");
        assert!(
            line.contains(&format!("{:.0}% to hit", o.hit * 100.0)),
            "{line}"
        );
        // Nothing to tell for a decision that is not a reaction.
        assert_eq!(reaction_odds(&b, &Decision::Act { unit: orrin }), None);
    }

    #[test]
    fn the_tooltip_of_a_fallen_unit_says_it_has_fallen() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let wolf = b
            .unit_ids()
            .find(|&u| &*b.units[u.index()].name == "Fang")
            .expect("the crypt has Fang");
        let cell = b.units[wolf.index()].cell;
        let head = |b: &BattleState| tooltip_lines(b, None, cell)[0].clone();
        assert_eq!(head(&b), "Fang - Wolf (Monsters)");
        b.units[wolf.index()].status = Status::Dead;
        assert_eq!(head(&b), "Fang - Wolf (Monsters), dead");
    }
}
