//! Board input, by mouse and by keyboard alike. The [`CursorCell`] is the cell the player points
//! at: the mouse moves it (hovering), and so do the arrow keys or WASD (the camera follows).
//! Enter or a left click confirms there: a move to a highlighted cell, an attack on an enemy,
//! the unit to act next, or the chosen menu group's command. Esc cancels (then opens the
//! pause menu), Tab jumps to the next unit, E ends the turn, digits and letters press the menu
//! entries they are shown with.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::Screen;
use super::battle::{Battle, Submit, Toast};
use super::board::{BoardGrid, BoardLayout};
use super::camera::MainCamera;
use super::hud::{HudPanel, InputBlocked, Pause, Targeting, View};
use super::keys;
pub use super::keys::key_of;
use super::menu;
use super::ui::{UiAction, UiClick};
use crate::rules::battle::{Command, Decision, UnitId};
use crate::rules::grid::Cell;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CursorCell>()
        .init_resource::<MouseWorld>()
        .init_resource::<PointerOverUi>()
        .add_message::<CursorMoved>()
        .add_systems(OnEnter(Screen::Battle), reset_cursor)
        .add_systems(PreUpdate, latch_held_keys.after(bevy::input::InputSystems))
        .add_systems(
            Update,
            (
                (pointer_over_ui, mouse_world, hover_cell, clear_on_decision).chain(),
                keyboard,
                mouse_click,
            )
                .chain()
                .in_set(super::AppSystems::RecordInput)
                .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
        );
}

/// Keys that were held down when the screen or the battle's decision changed. Such a key
/// does not act again until it is released: a digit held after it picked a unit does not
/// also press the new action menu's entry, an Enter held from the "Battle over" banner does
/// not press a button of the Result screen. An X server without detectable autorepeat
/// reports a held key as a release and a press in one frame; that is not a new press either.
fn latch_held_keys(
    mut keys: ResMut<ButtonInput<KeyCode>>,
    screen: Option<Res<State<Screen>>>,
    battle: Option<Res<Battle>>,
    mut latched: Local<Vec<KeyCode>>,
    mut last: Local<Option<(Screen, usize, bool)>>,
) {
    let now = (
        screen.map_or_else(Screen::default, |s| *s.get()),
        battle.as_ref().map_or(0, |b| b.commands.len()),
        battle.as_ref().is_some_and(|b| b.finished()),
    );
    latched.retain(|k| keys.pressed(*k));
    if last.is_some_and(|l| l != now) {
        let held: Vec<KeyCode> = keys
            .get_pressed()
            .filter(|k| !keys.just_pressed(**k) || keys.just_released(**k))
            .copied()
            .collect();
        for k in held {
            if !latched.contains(&k) {
                latched.push(k);
            }
        }
    }
    *last = Some(now);
    for k in latched.iter() {
        if keys.just_pressed(*k) {
            keys.clear_just_pressed(*k);
        }
    }
}

/// The board cell the player points at (mouse or keyboard).
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct CursorCell(pub Option<Cell>);

/// The mouse's position in the world, when it is over the window. Set from the window and
/// camera; headless tests set it to "move the mouse".
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct MouseWorld(pub Option<Vec2>);

/// The mouse is over a HUD panel or button: the board ignores it.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct PointerOverUi(pub bool);

/// The keyboard moved the cursor: the camera brings the cell into view.
#[derive(Message, Debug, Clone, Copy)]
pub struct CursorMoved(pub Cell);

/// No cell is pointed at when the battle opens (the tooltip and path preview wait for the
/// pointer); the keyboard's cursor starts on the acting unit.
fn reset_cursor(mut cursor: ResMut<CursorCell>) {
    cursor.0 = None;
}

/// When the decision changes (a command was played, by anyone, or undone), the cell pointed at
/// is forgotten: the tooltip and the path preview were about the last decision. Once the
/// player may act again (the animations played, no dialog waits), the cell under a mouse that
/// has not moved is pointed at again, so a pointer resting on a foe shows the new odds without
/// a nudge.
#[allow(clippy::too_many_arguments)]
fn clear_on_decision(
    battle: Res<Battle>,
    view: Res<View>,
    world: Res<MouseWorld>,
    over: Res<PointerOverUi>,
    blocked: Res<InputBlocked>,
    boards: Query<&BoardGrid>,
    mut cursor: ResMut<CursorCell>,
    mut last: Local<Option<(usize, Decision)>>,
    mut repoint: Local<bool>,
) {
    let now = (battle.commands.len(), battle.state.pending());
    if last.as_ref() != Some(&now) {
        if last.is_some() {
            if cursor.0.is_some() {
                cursor.0 = None;
            }
            *repoint = true;
        }
        *last = Some(now);
        return;
    }
    if *repoint && view.can_act() && battle.queue.is_empty() && !blocked.0 {
        *repoint = false;
        if over.0 || cursor.0.is_some() {
            return;
        }
        let c = boards
            .iter()
            .next()
            .and_then(|g| world.0.and_then(|p| cell_at(&BoardLayout::new(g.0), p)));
        if c.is_some() {
            cursor.0 = c;
        }
    }
}

#[allow(clippy::type_complexity)]
fn pointer_over_ui(
    panels: Query<&Interaction, Or<(With<HudPanel>, With<Button>)>>,
    mut over: ResMut<PointerOverUi>,
) {
    let now = panels.iter().any(|i| *i != Interaction::None);
    if over.0 != now {
        over.0 = now;
    }
}

fn mouse_world(
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    mut world: ResMut<MouseWorld>,
) {
    // Headless (no window): leave it to whoever sets it.
    let Ok(window) = window.single() else {
        return;
    };
    let pos = window.cursor_position().and_then(|c| {
        let (camera, global) = camera.single().ok()?;
        camera.viewport_to_world_2d(global, c).ok()
    });
    if world.0 != pos {
        world.0 = pos;
    }
}

/// The cell under a world position: the nearest cell centre, if the point is on that cell.
pub fn cell_at(layout: &BoardLayout, p: Vec2) -> Option<Cell> {
    let (w, h) = (layout.tile_size.x, layout.tile_size.y);
    let mut best: Option<(f32, Cell)> = None;
    for c in layout.grid.cells() {
        let Some(centre) = layout.cell_center(c) else {
            continue;
        };
        let d = centre.distance_squared(p);
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    let (_, c) = best?;
    let centre = layout.cell_center(c)?;
    let off = (p - centre).abs();
    (off.x <= w / 2.0 && off.y <= h / 2.0).then_some(c)
}

/// The mouse points at a cell: the cursor goes there. When it leaves the board (off the
/// map, onto a HUD panel, out of the window) nothing is pointed at any more.
fn hover_cell(
    world: Res<MouseWorld>,
    over: Res<PointerOverUi>,
    boards: Query<&BoardGrid>,
    mut cursor: ResMut<CursorCell>,
) {
    if over.0 {
        if over.is_changed() && cursor.0.is_some() {
            cursor.0 = None;
        }
        return;
    }
    if !world.is_changed() && !over.is_changed() {
        return;
    }
    let Some(grid) = boards.iter().next() else {
        return;
    };
    let layout = BoardLayout::new(grid.0);
    let c = world.0.and_then(|p| cell_at(&layout, p));
    if cursor.0 != c {
        cursor.0 = c;
    }
}

/// How long after a turn begins by itself (not by the player's own End turn) an End turn key
/// is taken as meant for the unit before, and asks to be pressed again.
const TURN_GRACE: f32 = 0.6;

/// Whose turn the player was last shown, since when, and whether it began by itself: an
/// action that left its unit nothing to do (a `segments` spell) or the enemy's turn ending. A
/// player who presses E twice, or E after such an action, does not end the next unit's turn
/// unseen.
#[derive(Default)]
struct TurnSeen {
    unit: Option<UnitId>,
    since: f32,
    implicit: bool,
    /// The units of the last pick menu the player saw, with their keys.
    picks: Vec<(UnitId, KeyCode)>,
    /// This turn's unit was in that pick menu but was not picked by the player (`sides`
    /// starts the last unit of a side by itself): its pick key, which the player may press
    /// from memory, is asked again once rather than pressing the unit's action on that key.
    pick_key: Option<KeyCode>,
    /// The last menu key sent: when, and for which menu ([`View::menu_for`]).
    menu_key: Option<(f32, Option<(usize, Decision)>)>,
}

/// How soon after a menu key a key on the next menu is taken as a double press meant for
/// the first, not a choice from a menu the player could not have read yet.
const MENU_GRACE: f32 = 0.35;

#[allow(clippy::too_many_arguments)]
fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    view: Res<View>,
    battle: Res<Battle>,
    blocked: Res<InputBlocked>,
    pause: Option<Res<State<Pause>>>,
    (help, hotseat): (
        Res<super::hud::rules_help::RulesHelp>,
        Res<super::hotseat::HotSeat>,
    ),
    settings: Res<super::battle::Settings>,
    mut targeting: ResMut<Targeting>,
    mut cursor: ResMut<CursorCell>,
    mut clicks: MessageWriter<UiClick>,
    mut moved: MessageWriter<CursorMoved>,
    mut submit: MessageWriter<Submit>,
    mut toasts: MessageWriter<Toast>,
    editor: Option<Res<super::editor::Editor>>,
    time: Res<Time>,
    mut turn: Local<TurnSeen>,
) {
    let click = |clicks: &mut MessageWriter<UiClick>, a: UiAction| {
        clicks.write(UiClick(a));
    };
    let now = time.elapsed_secs();
    if view.can_act() && turn.unit != view.acting {
        // The player's own End turn moved it on, or something else did (an action that left
        // nothing to do, the other side's turn).
        let ended = matches!(battle.commands.last(),
            Some(Command::EndTurn { unit }) if Some(*unit) == turn.unit);
        let picked = matches!(battle.commands.last(),
            Some(Command::Pick { unit }) if Some(*unit) == view.acting);
        let pick_key = turn
            .picks
            .iter()
            .find(|(u, _)| Some(*u) == view.acting && !picked)
            .map(|(_, k)| *k);
        let (picks, menu_key) = (std::mem::take(&mut turn.picks), turn.menu_key.take());
        *turn = TurnSeen {
            unit: view.acting,
            since: now,
            implicit: turn.unit.is_some() && !ended,
            picks,
            pick_key,
            menu_key,
        };
    }
    // The pick menu on screen, remembered for the turn it leads to.
    let picks: Vec<(UnitId, KeyCode)> = view
        .menu
        .iter()
        .filter_map(|e| match (e.commands.as_slice(), e.hotkey) {
            ([Command::Pick { unit }], Some(h)) => settings.keys.key_of(h).map(|k| (*unit, k)),
            _ => None,
        })
        .collect();
    if !picks.is_empty() {
        turn.picks = picks;
        turn.pick_key = None;
    }
    let bound = &settings.keys;
    // A playtest: the quit key goes back to the editor, paused or not.
    if editor.is_some_and(|e| e.playtesting) && bound.just_pressed(&keys::QUIT, &keys) {
        click(&mut clicks, UiAction::BackToEditor);
        return;
    }
    // Settings and saves work everywhere on the battle screen.
    for key in keys::HOTKEYS {
        if let Some(action) = &key.button
            && bound.just_pressed(key, &keys)
        {
            click(&mut clicks, action.clone());
        }
    }
    // The rules reference is over everything: Esc closes it (F1 did above).
    if help.open {
        if bound.just_pressed(&keys::CANCEL, &keys) {
            click(&mut clicks, UiAction::RulesHelp);
        }
        return;
    }
    if Pause::is_paused(pause.as_deref()) {
        if bound.just_pressed(&keys::CANCEL, &keys) {
            click(&mut clicks, UiAction::Resume);
        }
        // The pause menu's settings rows answer to their number keys.
        if let Some(kind) = super::screens::settings::row_key(&keys) {
            click(&mut clicks, UiAction::Setting(kind));
        }
        if bound.just_pressed(&keys::QUIT, &keys) {
            click(&mut clicks, UiAction::SaveAndQuit);
        }
        if keys.just_pressed(KeyCode::KeyK) {
            click(&mut clicks, UiAction::Settings);
        }
        return;
    }
    // The hot-seat hand-over waits for the next player, but its Esc opens the pause menu
    // (over the hand-over, which shows no board) to save or leave.
    if hotseat.waiting && bound.just_pressed(&keys::CANCEL, &keys) {
        click(&mut clicks, UiAction::Pause);
        return;
    }
    if blocked.0 {
        return;
    }
    if bound.just_pressed(&keys::CANCEL, &keys) {
        if targeting.group.is_some() {
            targeting.group = None;
        } else {
            click(&mut clicks, UiAction::Pause);
        }
    }
    let Some(state) = view.state.as_ref() else {
        return;
    };
    let grid = *state.grid();
    // The cursor: arrows or WASD (Shift pans the camera instead).
    let shift = bound.pressed(&keys::PAN, &keys);
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if !shift && !ctrl {
        let mut d = IVec2::ZERO;
        // Left, right, up, down.
        for (group, v) in [IVec2::NEG_X, IVec2::X, IVec2::NEG_Y, IVec2::Y]
            .into_iter()
            .enumerate()
        {
            if bound.group_just_pressed(&keys::CURSOR, &keys, group) {
                d += v;
            }
        }
        if d != IVec2::ZERO {
            let from = cursor.0.unwrap_or_else(|| {
                view.acting
                    .and_then(|u| state.unit(u))
                    .map_or(Cell::new(0, 0), |u| u.cell)
            });
            let to = Cell::new(
                (from.x + d.x).clamp(0, grid.width as i32 - 1),
                (from.y + d.y).clamp(0, grid.height as i32 - 1),
            );
            cursor.0 = Some(to);
            moved.write(CursorMoved(to));
        }
    }
    // Tab: the next unit (the ones the player may pick now, else every standing unit). The
    // picks are the player's legal commands, not the shown decision's options: while the
    // other side picks, or the board still shows a past decision, those are not the
    // player's to take.
    if bound.just_pressed(&keys::NEXT_UNIT, &keys) {
        let picks: Vec<Cell> = view
            .legal
            .iter()
            .filter_map(|d| match d.command {
                Command::Pick { unit } => state.unit(unit).map(|u| u.cell),
                _ => None,
            })
            .collect();
        let mut cells: Vec<Cell> = match state.pending() {
            Decision::Pick { .. } if !picks.is_empty() => picks,
            _ => {
                let clock = crate::rules::rulesets::clock(state);
                let mut v: Vec<Cell> = clock
                    .order
                    .iter()
                    .filter(|e| crate::rules::fog::drawn(state, e.unit))
                    .filter_map(|e| state.unit(e.unit))
                    .filter(|u| u.is_active())
                    .map(|u| u.cell)
                    .collect();
                for (i, u) in state.units.iter().enumerate() {
                    if !u.is_active() || !crate::rules::fog::drawn(state, UnitId(i as u16)) {
                        continue;
                    }
                    if !v.contains(&u.cell) {
                        v.push(u.cell);
                    }
                }
                v
            }
        };
        if shift {
            cells.reverse();
        }
        if !cells.is_empty() {
            let i = cursor
                .0
                .and_then(|c| cells.iter().position(|x| *x == c))
                .map_or(0, |i| (i + 1) % cells.len());
            cursor.0 = Some(cells[i]);
            moved.write(CursorMoved(cells[i]));
        }
    }
    if !view.can_act() {
        return;
    }
    // End turn while a target is chosen from a sub-list (the menu's End turn entry is not
    // what the player looks at then): say how. (Moving, the menu stays and E ends the turn.)
    if let Some(group) = &targeting.group
        && !view.sub.is_empty()
        && bound.just_pressed(&keys::END_TURN, &keys)
    {
        toasts.write(Toast::say(format!(
            "Choosing a target for {group}: Esc goes back to the menu, then {} ends the turn",
            bound.name(&keys::END_TURN)
        )));
        return;
    }
    // Menu hotkeys: the sub-list's when one is open, else the menu's.
    let react = matches!(battle.state.pending(), Decision::React { .. });
    let list = if targeting.group.is_some() && !view.sub.is_empty() {
        &view.sub
    } else {
        &view.menu
    };
    // The acting unit's name, for the questions below.
    let who = view
        .acting
        .and_then(|u| battle.shown.unit(u))
        .map_or("This unit", |u| &u.name);
    for (i, e) in list.iter().enumerate() {
        let Some(k) = e.hotkey.and_then(|h| bound.key_of(h)) else {
            continue;
        };
        if keys.just_pressed(k) && !ctrl {
            let ends_turn = matches!(e.commands.as_slice(), [Command::EndTurn { .. }]);
            if ends_turn && turn.implicit && now - turn.since < TURN_GRACE {
                // Meant for the unit whose turn just ended by itself, most likely.
                turn.implicit = false;
                toasts.write(Toast::ask(format!(
                    "{who}'s turn has just begun: press {} again to end it",
                    bound.name(&keys::END_TURN)
                )));
                return;
            }
            // A second press hard on the first, on the menu the first brought up: meant
            // for the first menu, most likely (a double-tapped pick digit took the picked
            // unit's action on that digit). End turn means the same on every menu, and E E
            // ends two turns.
            if let Some((t, menu)) = turn.menu_key.take()
                && !ends_turn
                && menu != view.menu_for
                && now - t < MENU_GRACE
            {
                toasts.write(Toast::ask(
                    "The menu has just changed: read it, then press again".into(),
                ));
                return;
            }
            // The pick key of a unit whose turn began by itself (the last of its side to act).
            if turn.pick_key.take() == Some(k) {
                toasts.write(Toast::ask(format!(
                    "{who} was the last to pick and acts now: press {} again for {}",
                    e.hotkey.map_or_else(String::new, |h| h.label()),
                    e.label
                )));
                return;
            }
            turn.menu_key = Some((now, view.menu_for.clone()));
            let action = if std::ptr::eq(list, &view.sub) {
                UiAction::Sub(i)
            } else {
                UiAction::Menu(i)
            };
            click(&mut clicks, action);
            return;
        }
    }
    // A pick's number for a unit of the side that is not on the list (it has acted, it is
    // down): the engine's reason, rather than nothing at all.
    if let Decision::Pick { side, .. } = battle.state.pending()
        && !ctrl
        && std::ptr::eq(list, &view.menu)
    {
        let s = &battle.state;
        // Picks are numbered by digit only (`menu::pick_number`).
        let units = s.unit_ids().filter(|u| s.units[u.index()].side == side);
        for (i, u) in units.enumerate().take(10) {
            let Some(k) = menu::Hotkey::nth(i).and_then(|h| bound.key_of(h)) else {
                break;
            };
            if keys.just_pressed(k) {
                if let Err(r) = s.check(&Command::Pick { unit: u }) {
                    toasts.write(Toast::say(format!("Not now: {}", r.reason)));
                }
                return;
            }
        }
    }
    if bound.just_pressed(&keys::CONFIRM, &keys) {
        if react {
            // The default answer.
            click(
                &mut clicks,
                UiAction::Menu(menu::default_answer(&battle.state.pending(), &view.menu)),
            );
        } else if let Some(c) = cursor.0 {
            confirm(
                c,
                &view,
                &mut targeting,
                &mut submit,
                &mut toasts,
                &mut clicks,
            );
        }
    }
}

/// Enter or a click on `cell`.
fn confirm(
    cell: Cell,
    view: &View,
    targeting: &mut Targeting,
    submit: &mut MessageWriter<Submit>,
    toasts: &mut MessageWriter<Toast>,
    clicks: &mut MessageWriter<UiClick>,
) {
    let Some(state) = view.state.as_ref() else {
        return;
    };
    if let Decision::Pick { .. } = state.pending() {
        if let Some(u) = state.unit_at(cell)
            && view
                .legal
                .iter()
                .any(|d| d.command == Command::Pick { unit: u })
        {
            clicks.write(UiClick(UiAction::Pick(u)));
        } else {
            toasts.write(Toast::say(
                "Choose one of the units that may act next".into(),
            ));
        }
        return;
    }
    let cmds = menu::command_at(state, &view.legal, cell, targeting.group.as_deref());
    match cmds.first() {
        Some(c) => {
            targeting.group = None;
            submit.write(Submit {
                command: c.clone(),
                human: true,
            });
        }
        None if targeting.group.is_some() => {
            toasts.write(Toast::say(
                "Not a valid choice here: pick a highlighted cell".into(),
            ));
        }
        None => {
            if let Some(why) = why_not_attack(state, view.acting, cell) {
                toasts.write(Toast::say(why));
            }
        }
    }
}

/// Why the acting unit cannot attack the enemy on `cell` now, in the rules' words: "Cannot
/// attack Fang: out of reach (distance 4, reach 1)". `None` if there is no enemy there.
pub fn why_not_attack(
    state: &crate::rules::battle::BattleState,
    acting: Option<crate::rules::battle::UnitId>,
    cell: Cell,
) -> Option<String> {
    let unit = acting?;
    let target = state.unit_at(cell)?;
    if !state.are_enemies(unit, target) {
        return None;
    }
    let reasons: Vec<String> = [false, true]
        .into_iter()
        .filter_map(|ranged| {
            state
                .check(&Command::Attack {
                    unit,
                    target,
                    ranged,
                })
                .err()
                .map(|r| r.to_string())
        })
        .collect();
    let mut reasons = reasons;
    reasons.dedup();
    let name = state.unit_name(target);
    Some(if reasons.is_empty() {
        format!("{name} cannot be attacked from here now")
    } else {
        format!("Cannot attack {name}: {}", reasons.join("; "))
    })
}

#[allow(clippy::too_many_arguments)]
fn mouse_click(
    buttons: Res<ButtonInput<MouseButton>>,
    over: Res<PointerOverUi>,
    blocked: Res<InputBlocked>,
    view: Res<View>,
    cursor: Res<CursorCell>,
    world: Res<MouseWorld>,
    boards: Query<&BoardGrid>,
    mut targeting: ResMut<Targeting>,
    mut submit: MessageWriter<Submit>,
    mut toasts: MessageWriter<Toast>,
    mut clicks: MessageWriter<UiClick>,
) {
    if !buttons.just_pressed(MouseButton::Left) || over.0 || blocked.0 || !view.can_act() {
        return;
    }
    // The cell pointed at, even when a new decision (a quick load, the AI's move) has made
    // the cursor forget it and the pointer has not moved since: a click still means it.
    let pointed = || {
        let grid = boards.iter().next()?;
        cell_at(&BoardLayout::new(grid.0), world.0?)
    };
    if let Some(c) = cursor.0.or_else(pointed) {
        confirm(
            c,
            &view,
            &mut targeting,
            &mut submit,
            &mut toasts,
            &mut clicks,
        );
    }
}
