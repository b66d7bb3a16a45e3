//! AI sides: when an AI side must decide, its [`Ai`] thinks on a clone of the battle on the
//! `AsyncComputeTaskPool`, so a frame never waits for it. The answer is sent once the board
//! has shown everything before it and at least [`Settings::ai_pace`] seconds have passed since
//! the decision came up, so AI turns (and AI-versus-AI battles) can be followed.

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};

use super::battle::{Battle, Settings, SideControl, Submit};
use crate::ai::{Ai, Config};
use crate::rules::battle::{Command, SideId};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        drive_ai
            .in_set(super::AppSystems::Update)
            .run_if(resource_exists::<Battle>.and_then(resource_exists::<AiPlayers>)),
    );
}

/// One AI per AI-controlled side (kept across decisions: its random stream goes on), and the
/// decision being thought about.
#[derive(Resource, Default)]
pub struct AiPlayers {
    ais: Vec<Option<Ai>>,
    thinking: Option<Thinking>,
    /// A finished answer waiting for its moment.
    ready: Option<Ready>,
    /// When the current decision came up (seconds of `Time`) and its fingerprint.
    since: Option<(f32, u64)>,
}

struct Thinking {
    side: SideId,
    /// `state.applied` when the thinking started: a stale answer is dropped.
    at: u64,
    task: Task<(Ai, Option<Command>)>,
}

struct Ready {
    at: u64,
    command: Option<Command>,
}

impl AiPlayers {
    /// One AI for each AI side of the battle, seeded from the battle's seed and the side.
    pub fn for_battle(battle: &Battle) -> Self {
        let seed = battle.setup.seed;
        let ais = battle
            .setup
            .controls
            .iter()
            .enumerate()
            .map(|(i, c)| match c {
                SideControl::Ai(kind) => Some(Ai::new(Config::new(
                    *kind,
                    seed.wrapping_mul(31).wrapping_add(i as u64 + 1),
                ))),
                SideControl::Human => None,
            })
            .collect();
        Self { ais, ..default() }
    }

    /// Whether an AI is thinking (or holding its answer for the pace): the HUD's indicator.
    pub fn busy(&self) -> bool {
        self.thinking.is_some() || self.ready.is_some()
    }
}

fn drive_ai(
    mut players: ResMut<AiPlayers>,
    battle: Res<Battle>,
    settings: Res<Settings>,
    time: Res<Time>,
    pause: Option<Res<State<super::hud::Pause>>>,
    mut submit: MessageWriter<Submit>,
) {
    let players = &mut *players;
    let now = time.elapsed_secs();
    let at = battle.state.applied;
    let side = battle.deciding().filter(|&s| !battle.control(s).is_human());
    // The pace counts from when the board has shown everything.
    if players.since.is_none_or(|(_, a)| a != at) || !battle.queue.is_empty() {
        players.since = Some((now, at));
    }
    // A finished thought comes back: keep the AI, hold the answer.
    if let Some(t) = players.thinking.as_mut()
        && let Some((ai, command)) = check_ready(&mut t.task)
    {
        let (side, started) = (t.side, t.at);
        players.thinking = None;
        if let Some(slot) = players.ais.get_mut(side.index()) {
            *slot = Some(ai);
        }
        if started == at {
            players.ready = Some(Ready {
                at: started,
                command,
            });
        }
    }
    if players.ready.as_ref().is_some_and(|r| r.at != at) {
        players.ready = None;
    }
    let Some(side) = side else {
        return;
    };
    if super::hud::Pause::is_paused(pause.as_deref()) {
        return;
    }
    // Send a held answer once the board has caught up and the pace allows.
    if let Some(r) = &players.ready {
        let waited = now - players.since.map_or(now, |(t, _)| t);
        if battle.queue.is_empty() && waited >= settings.ai_pace {
            if let Some(command) = r.command.clone() {
                submit.write(Submit {
                    command,
                    human: false,
                });
            }
            players.ready = None;
        }
        return;
    }
    if players.thinking.is_some() {
        return;
    }
    // Start thinking (while the board may still be animating the last events).
    let Some(mut ai) = players.ais.get_mut(side.index()).and_then(Option::take) else {
        return;
    };
    let view = battle.state.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        let command = ai.decide(&view);
        (ai, command)
    });
    players.thinking = Some(Thinking { side, at, task });
}
