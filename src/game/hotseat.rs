//! Hot-seat: when the decision passes from one human side to another, a hand-over screen hides
//! the board and the HUD until the next player clicks (or presses Enter). The [`HotSeat`]
//! viewer is whose eyes the HUD shows: with one human side always that side, with none
//! everyone's (a spectator of AI against AI).

use bevy::prelude::*;

use super::Screen;
use super::battle::Battle;
use super::ui::{self, UiAction, UiClick};
use crate::rules::battle::SideId;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<HotSeat>()
        .add_systems(OnEnter(Screen::Battle), reset)
        .add_systems(
            Update,
            (watch, hand_over_keys, accept, screen)
                .chain()
                .in_set(super::AppSystems::RecordInput)
                .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
        );
}

/// Whose player is looking at the screen, and whether the screen waits for the next one.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct HotSeat {
    pub viewer: Option<SideId>,
    /// The hand-over screen is up, waiting for the deciding side's player.
    pub waiting: bool,
}

/// The hand-over screen.
#[derive(Component)]
pub struct HandOverScreen;

/// A battle just opened from a menu (New battle, Continue, Load): the next entry to the
/// battle screen is its first.
#[derive(Resource)]
pub struct Opened;

/// On entering the battle screen. A hot-seat battle resumed (Continue, Load) opens on the
/// hand-over: whoever resumed it may not be the deciding side's player. Back from the
/// Settings screen, or in a new battle, the player at the screen goes on.
fn reset(
    mut commands: Commands,
    mut hotseat: ResMut<HotSeat>,
    battle: Res<Battle>,
    replay: Option<Res<super::replay::Replay>>,
    opened: Option<Res<Opened>>,
) {
    commands.remove_resource::<Opened>();
    let hand_over = opened.is_some()
        && !battle.commands.is_empty()
        && replay.is_none()
        && battle.human_sides().len() > 1
        && battle.deciding().is_some();
    // Waiting, no side's eyes yet: the hand-over names the side to take the seat.
    *hotseat = HotSeat {
        viewer: if hand_over {
            None
        } else {
            battle.default_viewer()
        },
        waiting: hand_over,
    };
}

fn watch(
    mut hotseat: ResMut<HotSeat>,
    battle: Res<Battle>,
    replay: Option<Res<super::replay::Replay>>,
) {
    if !battle.is_changed() && !battle.is_added() {
        return;
    }
    // A replay is watched by a spectator: nobody decides, nobody hands over.
    let humans = if replay.is_some() {
        Vec::new()
    } else {
        battle.human_sides()
    };
    let deciding = battle.deciding();
    let next = match humans.len() {
        0 => HotSeat {
            viewer: None,
            waiting: false,
        },
        1 => HotSeat {
            viewer: Some(humans[0]),
            waiting: false,
        },
        _ => {
            // Hand over once the board has shown everything before the decision.
            let to = deciding.filter(|s| humans.contains(s));
            match to {
                Some(side) if battle.queue.is_empty() && hotseat.viewer != Some(side) => HotSeat {
                    viewer: hotseat.viewer,
                    waiting: true,
                },
                _ => HotSeat {
                    viewer: hotseat.viewer.or(humans.first().copied()),
                    waiting: hotseat.waiting && to.is_some_and(|s| hotseat.viewer != Some(s)),
                },
            }
        }
    };
    if *hotseat != next {
        *hotseat = next;
    }
}

/// Enter, Space or a click anywhere hands over; not while the pause menu or the rules
/// reference (both open over the hand-over) takes the keys and clicks.
fn hand_over_keys(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    hotseat: Res<HotSeat>,
    pause: Option<Res<State<super::hud::Pause>>>,
    help: Res<super::hud::rules_help::RulesHelp>,
    mut clicks: MessageWriter<UiClick>,
) {
    if hotseat.waiting
        && !super::hud::Pause::is_paused(pause.as_deref())
        && !help.open
        && (keys.any_just_pressed([KeyCode::Enter, KeyCode::Space, KeyCode::NumpadEnter])
            || buttons.just_pressed(MouseButton::Left))
    {
        clicks.write(UiClick(UiAction::HandOver));
    }
}

fn accept(mut clicks: MessageReader<UiClick>, mut hotseat: ResMut<HotSeat>, battle: Res<Battle>) {
    for UiClick(a) in clicks.read() {
        if *a == UiAction::HandOver && hotseat.waiting {
            hotseat.viewer = battle.deciding();
            hotseat.waiting = false;
        }
    }
}

fn screen(
    mut commands: Commands,
    hotseat: Res<HotSeat>,
    battle: Res<Battle>,
    settings: Res<super::battle::Settings>,
    shown: Query<Entity, With<HandOverScreen>>,
) {
    if !hotseat.is_changed() {
        return;
    }
    for e in &shown {
        commands.entity(e).despawn();
    }
    if !hotseat.waiting {
        return;
    }
    let side = battle.deciding().and_then(|s| {
        battle
            .state
            .sides
            .get(s.index())
            .map(|x| (s, x.name.clone()))
    });
    let (id, name) = side.unwrap_or((SideId(0), "the next player".into()));
    commands
        .spawn((
            Name::new("Hand-over"),
            HandOverScreen,
            super::hud::HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            Node {
                position_type: PositionType::Absolute,
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                justify_content: JustifyContent::Center,
                row_gap: px(12),
                ..default()
            },
            // Opaque: the board must not show through.
            BackgroundColor(ui::BG),
            GlobalZIndex(100),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Hand over", 40.0, ui::ACCENT));
            p.spawn(ui::text(
                format!("Pass the screen to the {name} player."),
                22.0,
                super::units::side_colour(Some(id.index()), settings.colour_blind),
            ));
            p.spawn(ui::text(
                "The board stays hidden until they are ready.",
                16.0,
                ui::DIM,
            ));
            p.spawn(ui::button(
                format!("{name}: I am ready"),
                Some("Enter"),
                UiAction::HandOver,
            ));
            p.spawn(ui::text(
                format!(
                    "{}: menu (save, settings, leave) · {}: rules reference",
                    settings.keys.name(&super::keys::CANCEL),
                    settings.keys.name(&super::keys::RULES),
                ),
                14.0,
                ui::DIM,
            ));
        });
}
