//! Is a level a fair fight when both sides play alike? The same AI plays every side and each
//! side's share of the wins is judged against 40–60%. Pure (no Bevy), shared by `fray
//! balance` and the level editor's balance meter, so both count the same games the same way:
//! game `g` is played with seed `seed + g` by [`sim::play`] and counted by [`Tally::add`].
//!
//! [`Meter`] plays the games on a background thread, one after the other, so a frame never
//! waits: the editor reads its [`Tally`] as games finish, and dropping it stops the thread
//! after the game in play.

use crate::ai::Kind;
use crate::ai::sim::{self, Caps, Game};
use crate::rules::level::Level;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A side is fairly placed when its 95% interval reaches into this band of win rates.
pub const FAIR: (f64, f64) = (0.40, 0.60);

/// One side's record: it plays in every game.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SideRecord {
    pub side: String,
    pub wins: usize,
    pub win_rate: f64,
    /// Wilson 95% interval of `win_rate`.
    pub win_rate_95: (f64, f64),
    /// The interval reaches into 40–60%.
    pub fair: bool,
}

/// What the counts say about the level.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind", content = "side")]
pub enum Verdict {
    /// Every side's interval reaches into 40–60%.
    Fair,
    /// Not fair, and this side wins most.
    Favours(String),
    /// Not fair, and no side wins most: sides tie for the most wins (draws take the rest).
    Even,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Fair => write!(
                f,
                "fair (every side's 95% interval reaches into {:.0}-{:.0}%)",
                100.0 * FAIR.0,
                100.0 * FAIR.1
            ),
            Verdict::Favours(side) => write!(f, "favours {side}"),
            Verdict::Even => write!(
                f,
                "not fair: no side wins most, and some side's interval misses {:.0}-{:.0}%",
                100.0 * FAIR.0,
                100.0 * FAIR.1
            ),
        }
    }
}

/// Each side's record and the verdict, from each side's wins over `games` games.
pub fn verdict(sides: &[(String, usize)], games: usize) -> (Vec<SideRecord>, Verdict) {
    let records: Vec<SideRecord> = sides
        .iter()
        .map(|(name, wins)| {
            let win_rate_95 = sim::wilson(*wins, games);
            SideRecord {
                side: name.clone(),
                wins: *wins,
                win_rate: *wins as f64 / games.max(1) as f64,
                win_rate_95,
                fair: win_rate_95.0 <= FAIR.1 && win_rate_95.1 >= FAIR.0,
            }
        })
        .collect();
    if records.iter().all(|r| r.fair) {
        return (records, Verdict::Fair);
    }
    let most = records.iter().map(|r| r.wins).max().unwrap_or(0);
    let top: Vec<&SideRecord> = records.iter().filter(|r| r.wins == most).collect();
    let v = match top.as_slice() {
        [one] => Verdict::Favours(one.side.clone()),
        _ => Verdict::Even,
    };
    (records, v)
}

/// The games counted so far: each side's wins, draws, rounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Games played to an end (a panicked game is in `failed`, not here).
    pub games: usize,
    pub wins: Vec<usize>,
    pub draws: usize,
    /// Draws that were battles stopped at the round cap.
    pub capped: usize,
    pub rounds: u64,
    /// Decisions whose search the wall-clock safety net cut short.
    pub cut: usize,
    /// Games that panicked.
    pub failed: usize,
}

impl Tally {
    pub fn new(sides: usize) -> Self {
        Self {
            wins: vec![0; sides],
            ..Self::default()
        }
    }

    /// Counts one finished game.
    pub fn add(&mut self, game: &Game) {
        self.games += 1;
        match game.winner.and_then(|w| self.wins.get_mut(w.index())) {
            Some(w) => *w += 1,
            None => self.draws += 1,
        }
        if game.capped {
            self.capped += 1;
        }
        self.rounds += u64::from(game.rounds);
        self.cut += game.cuts.iter().sum::<usize>();
    }

    pub fn mean_rounds(&self) -> f64 {
        self.rounds as f64 / self.games.max(1) as f64
    }

    /// Each side's record and the verdict; `names` are the sides' names in order.
    pub fn verdict(&self, names: &[String]) -> (Vec<SideRecord>, Verdict) {
        let counts: Vec<(String, usize)> = names
            .iter()
            .cloned()
            .zip(self.wins.iter().copied())
            .collect();
        verdict(&counts, self.games)
    }
}

/// Game `g`'s seed, when the first is `first`.
pub fn game_seed(first: u64, g: usize) -> u64 {
    first.wrapping_add(g as u64)
}

/// Plays game `g` of a balance run: `ai` on every side.
pub fn play_one(level: &Level, first_seed: u64, g: usize, ai: Kind, caps: Caps) -> Game {
    let sides = level.file.sides.len();
    sim::play(level, game_seed(first_seed, g), &vec![ai; sides], caps)
}

/// A balance run on a background thread: `games` games of `ai` against itself on a level,
/// counted as they finish.
pub struct Meter {
    tally: Arc<Mutex<Tally>>,
    stop: Arc<AtomicBool>,
    /// Set by the thread as it ends (every game played, or stopped).
    ended: Arc<AtomicBool>,
    total: usize,
    ai: Kind,
}

impl Meter {
    /// Starts playing at once. The games are those of `fray balance LEVEL --games {games}
    /// --seed {seed} --ai {ai}`, in order.
    pub fn start(level: Level, games: usize, seed: u64, ai: Kind, caps: Caps) -> Self {
        let tally = Arc::new(Mutex::new(Tally::new(level.file.sides.len())));
        let stop = Arc::new(AtomicBool::new(false));
        let ended = Arc::new(AtomicBool::new(false));
        let (t, s, e) = (Arc::clone(&tally), Arc::clone(&stop), Arc::clone(&ended));
        let worker = move || {
            for g in 0..games {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let game = std::panic::catch_unwind(|| play_one(&level, seed, g, ai, caps));
                let Ok(mut tally) = t.lock() else { break };
                match game {
                    Ok(game) => tally.add(&game),
                    Err(_) => tally.failed += 1,
                }
            }
            e.store(true, Ordering::Relaxed);
        };
        // If no thread can be had, the meter shows no games rather than taking the frame.
        let _ = std::thread::Builder::new()
            .name("balance meter".into())
            .spawn(worker);
        Self {
            tally,
            stop,
            ended,
            total: games,
            ai,
        }
    }

    /// What has been counted so far.
    pub fn tally(&self) -> Tally {
        self.tally.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// The games the run plays in all.
    pub fn total(&self) -> usize {
        self.total
    }

    pub fn ai(&self) -> Kind {
        self.ai
    }

    /// The thread is done: every game has been played (or failed).
    pub fn finished(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }
}

impl Drop for Meter {
    /// Stops the thread after the game in play; nothing waits for it.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(wins: &[usize]) -> Vec<(String, usize)> {
        wins.iter()
            .enumerate()
            .map(|(i, &w)| (format!("S{i}"), w))
            .collect()
    }

    fn level(name: &str) -> Level {
        crate::rules::level::load_path(&crate::repo_dir().join("levels").join(name))
            .expect("shipped level")
    }

    #[test]
    fn the_meter_counts_the_games_fray_balance_plays() {
        let lvl = level("alternating_bridge.ron");
        let caps = Caps {
            time_limit: Some(std::time::Duration::from_secs(600)),
            ..Caps::default()
        };
        let meter = Meter::start(lvl.clone(), 3, 5, Kind::Greedy, caps);
        // The games, played here one by one the way `fray balance` plays them.
        let mut expected = Tally::new(lvl.file.sides.len());
        for g in 0..3 {
            expected.add(&play_one(&lvl, 5, g, Kind::Greedy, caps));
        }
        while !meter.finished() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(meter.tally(), expected);
        assert_eq!(expected.games, 3);
        assert_eq!(expected.wins.iter().sum::<usize>() + expected.draws, 3);
    }

    #[test]
    fn a_dropped_meter_stops_after_the_game_in_play() {
        let lvl = level("sides_village_brawl.ron");
        let meter = Meter::start(lvl, 100_000, 1, Kind::Random, Caps::default());
        let (tally, ended) = (Arc::clone(&meter.tally), Arc::clone(&meter.ended));
        drop(meter);
        // The thread ends by itself (a generous wait: it only has the game in play to finish).
        for _ in 0..6000 {
            if ended.load(Ordering::Relaxed) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(ended.load(Ordering::Relaxed), "the thread did not stop");
        let games = tally.lock().map(|t| t.games).unwrap_or(0);
        assert!(games < 100_000, "{games}");
    }

    #[test]
    fn an_even_split_is_fair() {
        let (r, v) = verdict(&counts(&[50, 50]), 100);
        assert_eq!(v, Verdict::Fair);
        assert!(r.iter().all(|r| r.fair));
        assert_eq!(r[0].win_rate, 0.5);
    }

    #[test]
    fn a_small_sample_is_fair_until_it_is_not() {
        // 33 of 100: the interval (24.6-42.7%) still reaches 40%.
        let (r, v) = verdict(&counts(&[33, 67]), 100);
        assert!(r[0].win_rate_95.1 > 0.40, "{:?}", r[0]);
        assert_eq!(v, Verdict::Fair);
        // 132 of 400, the same rate: the interval (28.6-37.7%) misses it.
        let (r, v) = verdict(&counts(&[132, 268]), 400);
        assert!(!r[0].fair && !r[1].fair, "{r:?}");
        assert_eq!(v, Verdict::Favours("S1".into()));
    }

    #[test]
    fn the_side_that_wins_most_is_favoured() {
        let (_, v) = verdict(&counts(&[98, 2]), 100);
        assert_eq!(v, Verdict::Favours("S0".into()));
        let (_, v) = verdict(&counts(&[0, 100]), 100);
        assert_eq!(v, Verdict::Favours("S1".into()));
    }

    #[test]
    fn many_draws_leave_both_sides_short() {
        // 25% each, half drawn: neither side's interval reaches 40%, nor is either favoured.
        let (r, v) = verdict(&counts(&[100, 100]), 400);
        assert!(r.iter().all(|r| !r.fair), "{r:?}");
        assert_eq!(v, Verdict::Even);
        // One side short because of draws, the other fair: the other is favoured.
        let (r, v) = verdict(&counts(&[100, 200]), 400);
        assert!(!r[0].fair && r[1].fair, "{r:?}");
        assert_eq!(v, Verdict::Favours("S1".into()));
    }
}
