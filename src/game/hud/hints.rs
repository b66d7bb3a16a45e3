//! The hint line under the board (what the player may do now, or who is playing) and the
//! toasts above it.

use bevy::prelude::*;

use super::{DEFAULT_WINDOW, HudLayout, HudSystems, Targeting, View};
use crate::game::Screen;
use crate::game::battle::{Battle, Toast};
use crate::game::hotseat::HotSeat;
use crate::game::keys;
use crate::game::menu;
use crate::game::ui;
use crate::rules::battle::{BattleState, Command, Decision, UnitId};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (hints, (toasts, toast_layer).chain()).in_set(HudSystems::Panels),
    );
}

#[derive(Component)]
struct HintText;
/// The toast's line (a quick save's confirmation, "press F9 again to load it", ...).
#[derive(Component)]
pub struct ToastText;

/// The toast's layer while the pause menu is up: above the menu (`GlobalZIndex(120)`), under
/// the rules reference (130).
pub const TOAST_OVER_PAUSE: i32 = 125;

/// Spawns the (empty) hint line and toast.
/// The hint line and toasts at the bottom.
#[derive(Component)]
pub(super) struct Hints;

pub(super) fn spawn(commands: &mut Commands) {
    let (left, right, _, _) = HudLayout::for_window(DEFAULT_WINDOW).insets();
    commands
        .spawn((
            Name::new("Hints"),
            Hints,
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
            // On an opaque backing, hidden while it says nothing: over the pause menu it sits
            // on the menu's key help, which showed through a backing of 0.85.
            p.spawn((
                ToastText,
                ui::text("", 16.0, ui::ACCENT),
                BackgroundColor(Color::srgb(0.03, 0.03, 0.04)),
                Node {
                    padding: UiRect::axes(px(8), px(2)),
                    ..default()
                },
                Visibility::Hidden,
            ));
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
}

#[allow(clippy::too_many_arguments)]
fn hints(
    view: Res<View>,
    battle: Res<Battle>,
    targeting: Res<Targeting>,
    hotseat: Res<HotSeat>,
    replay: Option<Res<crate::game::replay::Replay>>,
    settings: Res<crate::game::battle::Settings>,
    mut text: Query<&mut Text, With<HintText>>,
) {
    let Ok(mut text) = text.single_mut() else {
        return;
    };
    let s = &battle.state;
    let hint = if replay.is_some() && !battle.finished() {
        "Replay: N plays the next command, P goes one back; Esc: menu.".to_string()
    } else if battle.finished() {
        "The battle is over.".to_string()
    } else if hotseat.waiting {
        String::new()
    } else if !view.can_act() {
        match battle.deciding() {
            Some(side) if !battle.control(side).is_human() => format!(
                "{}: {} is playing. {}: skip animations; {}: AI pace.",
                s.sides.get(side.index()).map_or("?", |x| x.name.as_str()),
                battle.control(side).label(),
                settings.keys.name(&keys::SHOW_NOW),
                settings.keys.name(&keys::AI_PACE),
            ),
            _ => String::new(),
        }
    } else if let Some(g) = &targeting.group {
        if menu::aimed_on_board(&view.sub) {
            format!(
                "{g}: click a highlighted cell or target (or arrows + Enter, or a number). Esc cancels."
            )
        } else {
            // `phases`' Ready waits for a trigger: nothing on the board to click.
            format!("{g}: choose from the list (a number or a click). Esc cancels.")
        }
    } else {
        match s.pending() {
            Decision::Act { unit } => {
                let far = view.legal.iter().any(|d| d.info.dear);
                act_hint(s, unit, battle.can_undo(), far, &settings.keys)
            }
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
/// legal command is Recover is not told to click cells or press E. `far`: some cells only a
/// full move reaches (drawn teal), which the hint names.
fn act_hint(
    s: &BattleState,
    unit: UnitId,
    can_undo: bool,
    far: bool,
    bound: &keys::KeyBindings,
) -> String {
    let legal = s.legal_commands();
    let moves = legal.iter().any(|c| c.destination().is_some());
    let attacks = legal.iter().any(|c| c.attack_target().is_some());
    let ends = legal.iter().any(|c| matches!(c, Command::EndTurn { .. }));
    let name = s.unit_name(unit);
    if let [only] = legal.as_slice() {
        let label = rulesets::describe(s, only).label;
        let key = if matches!(only, Command::EndTurn { .. }) {
            bound.name(&keys::END_TURN)
        } else {
            menu::Hotkey::nth(0).map_or(String::new(), |k| k.label())
        };
        return format!("{name} can only {label} now: press {key}.");
    }
    let mut click = Vec::new();
    if moves && far {
        click.push("a highlighted cell to move (teal: full move, no attack)");
    } else if moves {
        click.push("a highlighted cell to move");
    }
    if attacks {
        click.push("an enemy to attack");
    }
    let mut said = vec![format!("{}: actions", keys::ACTIONS.name)];
    if ends {
        said.push(format!("{}: end turn", bound.name(&keys::END_TURN)));
    }
    if can_undo {
        said.push(format!("{}: undo a move", bound.name(&keys::UNDO)));
    }
    if click.is_empty() {
        format!("{name} acts. {}.", said.join(", "))
    } else {
        format!(
            "{name} acts: click {}. {}.",
            click.join(", "),
            said.join(", ")
        )
    }
}

/// The moment a question is asked in: the decision waited for and the commands played.
fn moment(b: &Battle) -> (Decision, usize) {
    (b.state.pending(), b.commands.len())
}

/// What an asking toast was written under: the decision the battle waited for, the number of
/// commands played, and whether a quick load stood asking for a second F9.
#[derive(Default)]
struct Shown {
    until: f32,
    decision: Option<(Decision, usize)>,
    asked_load: bool,
}

/// How long a toast stays up; one that asks for a second press stays longer, and the question
/// lapses with it.
const TOAST_SECS: f32 = 4.0;
const ASK_SECS: f32 = 8.0;

/// Shows the last toast for 4 seconds. A toast that asks for a second press ("press E again
/// to end it", "press F9 again to load it") speaks of the moment it was written, so it goes as
/// soon as a command is played or the decision changes, and a quick load that stood asking says
/// it lapsed. It stays 8 seconds, and when it goes unanswered the question goes with it: a
/// later F9 asks again rather than loading at once. (Other toasts, such as an event announced
/// while the AI plays on, stay their 4 seconds.)
fn toasts(
    mut new: MessageReader<Toast>,
    time: Res<Time>,
    mut battle: Option<ResMut<Battle>>,
    mut text: Query<&mut Text, With<ToastText>>,
    mut shown: Local<Shown>,
) {
    let Ok(mut text) = text.single_mut() else {
        return;
    };
    let now = time.elapsed_secs();
    if let Some(toast) = new.read().last() {
        text.0 = menu::ascii(&toast.text);
        *shown = Shown {
            until: now + if toast.asks { ASK_SECS } else { TOAST_SECS },
            decision: toast.asks.then(|| battle.as_deref().map(moment)).flatten(),
            asked_load: toast.asks && battle.as_ref().is_some_and(|b| b.confirm_load),
        };
        return;
    }
    if text.0.is_empty() {
        return;
    }
    let moved_on = battle
        .as_deref()
        .is_some_and(|b| shown.decision.as_ref().is_some_and(|d| *d != moment(b)));
    if moved_on {
        if shown.asked_load && battle.as_ref().is_some_and(|b| !b.confirm_load) {
            text.0 = "The battle moved on before the second F9: nothing was loaded".into();
            *shown = Shown {
                until: now + TOAST_SECS,
                decision: None,
                asked_load: false,
            };
        } else {
            text.0.clear();
        }
    } else if now > shown.until {
        text.0.clear();
        // The question went unanswered: it lapses with its toast.
        if shown.asked_load
            && let Some(b) = battle.as_mut().filter(|b| b.confirm_load)
        {
            b.confirm_load = false;
        }
        shown.asked_load = false;
    }
}

/// Where the toast is drawn. While the pause menu is up, above it: F5 and F9 work there too,
/// and their toasts ("Quick saved: ...", "press F9 again to load it") were drawn under the
/// menu, so a quick load seemed to ignore the first F9. Otherwise among the HUD's panels, under
/// the hot-seat hand-over, which shows the next player nothing of the last one's battle.
fn toast_layer(
    mut commands: Commands,
    pause: Option<Res<State<super::Pause>>>,
    mut toast: Query<(Entity, &Text, &mut Visibility, Has<GlobalZIndex>), With<ToastText>>,
) {
    let paused = super::Pause::is_paused(pause.as_deref());
    for (e, text, mut vis, layered) in &mut toast {
        vis.set_if_neq(if text.0.is_empty() {
            Visibility::Hidden
        } else {
            Visibility::Inherited
        });
        if paused && !layered {
            commands.entity(e).insert(GlobalZIndex(TOAST_OVER_PAUSE));
        } else if !paused && layered {
            commands.entity(e).remove::<GlobalZIndex>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::battle::Condition;

    #[test]
    fn the_act_hint_names_only_what_the_unit_can_do() {
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let Decision::Act { unit } = b.pending() else {
            panic!("the battle opens on a unit to act: {:?}", b.pending());
        };
        let h = act_hint(&b, unit, false, false, &Default::default());
        assert!(h.contains("E: end turn") && h.contains("to move"), "{h}");
        assert!(!h.contains("undo"), "{h}");
        assert!(act_hint(&b, unit, true, false, &Default::default()).contains("U: undo a move"));
        // A Stunned unit's only action is to Recover: the hint says so and nothing else.
        b.units[unit.index()].conditions.insert(Condition::Stunned);
        assert_eq!(b.legal_commands().len(), 1, "{:?}", b.legal_commands());
        let h = act_hint(&b, unit, false, false, &Default::default());
        assert!(h.contains("can only") && h.contains("press 1"), "{h}");
        assert!(!h.contains("E: end turn") && !h.contains("click"), "{h}");
    }
}
