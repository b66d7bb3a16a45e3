//! Stepping through a finished battle's replay (Result, P): the battle starts again from its
//! level and seed, and N plays its next command, P goes one back (the battle replayed up to
//! the command before). Nobody decides meanwhile: no menu, no AI, no hand-over screen, no
//! autosave; the board, the log, the tooltips and F1 work as in play.

use bevy::prelude::*;

use super::Screen;
use super::battle::Battle;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(OnEnter(Screen::Title), stop).add_systems(
        Update,
        replay_keys.in_set(super::AppSystems::RecordInput).run_if(
            in_state(Screen::Battle)
                .and_then(resource_exists::<Battle>)
                .and_then(resource_exists::<Replay>),
        ),
    );
}

/// The battle being replayed: its commands, and how many are played.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct Replay {
    pub commands: Vec<crate::rules::battle::Command>,
    pub at: usize,
}

impl Replay {
    /// `Replay: command 3 of 41 - [N] next, [P] back`.
    pub fn headline(&self) -> String {
        format!(
            "Replay: command {} of {} - [N] next, [P] back",
            self.at,
            self.commands.len()
        )
    }
}

/// Starts the replay of `battle` from its first command (the Result screen's P).
pub fn start(commands: &mut Commands, battle: &Battle) {
    commands.insert_resource(Replay {
        commands: battle.commands.clone(),
        at: 0,
    });
    commands.insert_resource(Battle::new(battle.setup.clone()));
    // The AI players of the battle that was: nobody decides in a replay.
    commands.remove_resource::<super::ai_driver::AiPlayers>();
    commands.set_state(Screen::Battle);
}

fn stop(mut commands: Commands) {
    commands.remove_resource::<Replay>();
}

fn replay_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut replay: ResMut<Replay>,
    mut battle: ResMut<Battle>,
    pause: Option<Res<State<super::hud::Pause>>>,
    help: Res<super::hud::rules_help::RulesHelp>,
) {
    if super::hud::Pause::is_paused(pause.as_deref()) || help.open {
        return;
    }
    if keys.just_pressed(KeyCode::KeyN) && replay.at < replay.commands.len() {
        let cmd = replay.commands[replay.at].clone();
        if battle.submit(&cmd, false).is_ok() {
            replay.at += 1;
        }
    }
    if keys.just_pressed(KeyCode::KeyP)
        && replay.at > 0
        && let Ok(b) = Battle::replay(battle.setup.clone(), &replay.commands[..replay.at - 1])
    {
        *battle = b;
        replay.at -= 1;
    }
}
