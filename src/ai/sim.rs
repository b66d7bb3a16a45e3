//! Headless AI-versus-AI games, for `fray simulate`, tests and benches.

use super::{Ai, Config, Kind, Weights};
use crate::rules::battle::{BattleState, Command, SideId};
use crate::rules::level::Level;
use std::time::{Duration, Instant};

/// Limits that turn a battle that does not end into a draw.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub rounds: u32,
    pub commands: usize,
    /// Overrides the AI's wall-clock safety limit per decision (`None`: the AI's default).
    /// Tests that compare two games give a huge one, so a loaded machine cannot cut one
    /// search shorter than the other and change a choice.
    pub time_limit: Option<Duration>,
}

impl Default for Caps {
    fn default() -> Self {
        Self {
            rounds: 60,
            commands: 50_000,
            time_limit: None,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct Game {
    pub seed: u64,
    /// The player kind of each side.
    pub players: Vec<Kind>,
    pub winner: Option<SideId>,
    /// The battle reached its end by the rules (a win or a draw).
    pub ended: bool,
    /// The battle hit a cap and was stopped: a draw.
    pub capped: bool,
    pub rounds: u32,
    pub commands: Vec<Command>,
    /// Time of each decision, with the side that took it.
    pub decisions: Vec<(SideId, Duration)>,
    /// Decisions of each side whose search the wall-clock safety net cut short.
    pub cuts: Vec<usize>,
    /// Time spent executing commands (the engine alone).
    pub engine: Duration,
    /// A command an AI sent that the engine rejected (a bug).
    pub illegal: Option<String>,
}

/// Plays one game; `players[i]` controls side `i`. Each AI is seeded from `seed` and its side.
pub fn play(level: &Level, seed: u64, players: &[Kind], caps: Caps) -> Game {
    play_weighted(level, seed, players, &[], caps)
}

/// [`play`], side `i`'s AI judging with `weights[i]` in place of its difficulty's own where
/// that is given (tuning runs: `fray simulate --ai-weights`).
pub fn play_weighted(
    level: &Level,
    seed: u64,
    players: &[Kind],
    weights: &[Option<Weights>],
    caps: Caps,
) -> Game {
    let (mut b, start) = BattleState::start(level, seed);
    // A debugging aid: the event log of every game on standard error (from the battle's start:
    // surprise rolls and the first segments come with it).
    let log = std::env::var_os("FRAY_SIM_LOG").is_some();
    if log {
        eprint!("{}", crate::rules::replay::render_log(&b, &start));
    }
    let mut ais: Vec<Ai> = players
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let mut config = Config::new(k, seed.wrapping_mul(31).wrapping_add(i as u64 + 1));
            if let Some(limit) = caps.time_limit {
                config.time_limit = limit;
            }
            config.weights = weights.get(i).copied().flatten();
            Ai::new(config)
        })
        .collect();
    let mut game = Game {
        seed,
        players: players.to_vec(),
        winner: None,
        ended: false,
        capped: false,
        rounds: 0,
        commands: Vec::new(),
        decisions: Vec::new(),
        cuts: vec![0; players.len()],
        engine: Duration::ZERO,
        illegal: None,
    };
    loop {
        if let Some(o) = &b.outcome {
            game.winner = o.winner;
            game.ended = true;
            break;
        }
        if b.round > caps.rounds || game.commands.len() >= caps.commands {
            game.capped = true;
            break;
        }
        let Some(side) = super::deciding_side(&b) else {
            break;
        };
        let Some(ai) = ais.get_mut(side.index()) else {
            break;
        };
        let t = Instant::now();
        let Some(cmd) = ai.decide(&b) else { break };
        game.decisions.push((side, t.elapsed()));
        if ai.last_cut {
            game.cuts[side.index()] += 1;
        }
        let t = Instant::now();
        let r = b.execute(&cmd);
        game.engine += t.elapsed();
        match r {
            Err(e) => {
                game.illegal = Some(format!("{cmd:?} was rejected: {e}"));
                break;
            }
            Ok(events) if log => {
                eprint!("{}", crate::rules::replay::render_log(&b, &events));
            }
            Ok(_) => {}
        }
        game.commands.push(cmd);
    }
    game.rounds = b.round;
    game
}

/// Wilson score interval (95%) for `wins` out of `n`.
pub fn wilson(wins: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let n_f = n as f64;
    let p = wins as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * ((p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)).sqrt()) / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The `q` quantile (0..=1) of sorted durations.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::Difficulty;

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(75, 100);
        assert!(lo < 0.75 && hi > 0.75);
        assert!(
            (lo - 0.657).abs() < 0.01 && (hi - 0.824).abs() < 0.01,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn quantiles_pick_from_the_sorted_list() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(quantile(&d, 0.5), Duration::from_millis(51));
        assert_eq!(quantile(&d, 0.99), Duration::from_millis(99));
        assert_eq!(quantile(&d, 1.0), Duration::from_millis(100));
    }

    #[test]
    fn games_are_deterministic_for_a_seed() {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let players = [Kind::Utility(Difficulty::Easy), Kind::Greedy];
        let caps = Caps {
            time_limit: Some(Duration::from_secs(3600)),
            ..Caps::default()
        };
        let a = play(&level, 5, &players, caps);
        let b = play(&level, 5, &players, caps);
        assert!(a.illegal.is_none(), "{:?}", a.illegal);
        assert_eq!(a.commands, b.commands);
        assert_eq!(a.winner, b.winner);
    }
}

/// Every level in `levels/` played to the end by the AI on all sides.
#[cfg(test)]
mod levels {
    use super::*;
    use crate::ai::Difficulty;
    use crate::rules::replay::{self, LevelSource, Replay};

    #[test]
    fn the_ai_plays_every_level_to_the_end_legally_and_replays_match() {
        let files = crate::shipped_levels();
        assert!(files.len() >= 6);
        for path in files {
            let level = crate::rules::level::load_path(&path).expect("valid level");
            let sides = level.file.sides.len();
            for seed in [11, 12] {
                let mut players = vec![Kind::Greedy; sides];
                players[(seed as usize) % sides] = Kind::Utility(Difficulty::Easy);
                let game = play(&level, seed, &players, Caps::default());
                let name = path.display();
                assert!(
                    game.illegal.is_none(),
                    "{name} seed {seed}: {:?}",
                    game.illegal
                );
                let r = Replay {
                    level: LevelSource::File(path.clone()),
                    seed,
                    tape: Vec::new(),
                    commands: game.commands.clone(),
                };
                let (b1, e1) = replay::run(&r, &level).expect("replay runs");
                let (_, e2) = replay::run(&r, &level).expect("replay runs");
                assert!(
                    b1.outcome.is_some() || game.capped,
                    "{name} seed {seed}: stopped without an outcome or a cap"
                );
                assert_eq!(e1, e2, "{name} seed {seed}: replays differ");
                assert_eq!(
                    b1.outcome.as_ref().and_then(|o| o.winner),
                    game.winner,
                    "{name} seed {seed}: the replay ends differently"
                );
            }
        }
    }
}
