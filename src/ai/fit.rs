//! Fitting the position score's weights to the results of games ("Texel tuning", as chess
//! engines tune their evaluation): every position of a set of finished games is a sample,
//! labelled 1 for a side that went on to win, 0 for one that lost, ½ for a draw, and the
//! weights are chosen so that `σ(k · score)` predicts that label as well as it can (least
//! log loss). Unlike a self-play search over the weights (`docs/tune.py`, SPSA), whose every
//! step is judged by the winner of a few dozen games, every position of every game counts
//! here, so a few hundred games pin the weights down.
//!
//! The score is linear in nearly every weight; the few products (a sure blow's
//! [`Weights::certain_weight`] times its material terms) are handled by fitting a linear
//! model around the current weights and fitting again around the answer ([`fit`]). Only
//! the weights [`score`] reads are fitted; the search's tie-breaks ([`Weights::odds`],
//! [`Weights::door_way`]) keep theirs. Each weight stays within a factor [`SPAN`] of its
//! start and keeps its sign. Pure and deterministic: no Bevy, no clock, no hashing.

use super::eval::{Weights, score};
use crate::rules::battle::{BattleState, Command, Decision, SideId};
use crate::rules::level::Level;

/// How far a weight may move from its starting value, as a factor either way.
pub const SPAN: f64 = 4.0;

/// The weights [`fit`] moves: every one [`score`] reads. (`odds` and `door_way` belong to the
/// search, not to the score.)
pub const FITTED: [&str; 21] = [
    "foe_lost",
    "foe_lost_sq",
    "foe_down",
    "own_lost",
    "own_down",
    "broken",
    "spell_kept",
    "spare_ap",
    "spare_reaction",
    "certain_down",
    "certain_weight",
    "half_cover",
    "full_cover",
    "shooter_in_range",
    "shooter_closing",
    "shooter_in_melee",
    "closing",
    "exposure",
    "exposure_fragile",
    "exposure_per_hp",
    "objective",
];

/// The weight called `name` in `w` (one of [`FITTED`]).
fn weight<'a>(w: &'a mut Weights, name: &str) -> Option<&'a mut f64> {
    Some(match name {
        "foe_lost" => &mut w.foe_lost,
        "foe_lost_sq" => &mut w.foe_lost_sq,
        "foe_down" => &mut w.foe_down,
        "own_lost" => &mut w.own_lost,
        "own_down" => &mut w.own_down,
        "broken" => &mut w.broken,
        "spell_kept" => &mut w.spell_kept,
        "spare_ap" => &mut w.spare_ap,
        "spare_reaction" => &mut w.spare_reaction,
        "certain_down" => &mut w.certain_down,
        "certain_weight" => &mut w.certain_weight,
        "half_cover" => &mut w.half_cover,
        "full_cover" => &mut w.full_cover,
        "shooter_in_range" => &mut w.shooter_in_range,
        "shooter_closing" => &mut w.shooter_closing,
        "shooter_in_melee" => &mut w.shooter_in_melee,
        "closing" => &mut w.closing,
        "exposure" => &mut w.exposure,
        "exposure_fragile" => &mut w.exposure_fragile,
        "exposure_per_hp" => &mut w.exposure_per_hp,
        "objective" => &mut w.objective,
        _ => return None,
    })
}

/// The weight called `name` in `w` (0 for a name not in [`FITTED`]).
pub fn value(w: &mut Weights, name: &str) -> f64 {
    weight(w, name).map_or(0.0, |x| *x)
}

fn get(w: &Weights, i: usize) -> f64 {
    let mut c = *w;
    weight(&mut c, FITTED[i]).map_or(0.0, |x| *x)
}

fn set(w: &mut Weights, i: usize, v: f64) {
    if let Some(x) = weight(w, FITTED[i]) {
        *x = v;
    }
}

/// One position of a finished game, seen by one side, with what became of that side.
#[derive(Clone)]
pub struct Sample {
    pub state: BattleState,
    pub side: SideId,
    /// 1 if `side` went on to win, 0 if it lost, ½ for a draw.
    pub result: f64,
}

/// The samples of one finished game on `level` (its seed and commands, its winner): the
/// position before every `every`-th unit action (not reactions, picks or declarations), once
/// for each side. Positions replay the game's commands from the start; a game that does not
/// replay (a rejected command) gives the samples up to that point.
pub fn samples(
    level: &Level,
    seed: u64,
    commands: &[Command],
    winner: Option<SideId>,
    every: usize,
) -> Vec<Sample> {
    let (mut b, _) = BattleState::start(level, seed);
    let sides = b.sides.len();
    let mut out = Vec::new();
    let mut acts = 0usize;
    for cmd in commands {
        if b.outcome.is_none() && matches!(b.pending(), Decision::Act { .. }) {
            if acts.is_multiple_of(every.max(1)) {
                for side in 0..sides {
                    let side = SideId(side as u8);
                    let result = match winner {
                        Some(w) if w == side => 1.0,
                        Some(_) => 0.0,
                        None => 0.5,
                    };
                    out.push(Sample {
                        state: b.clone(),
                        side,
                        result,
                    });
                }
            }
            acts += 1;
        }
        if b.execute(cmd).is_err() {
            break;
        }
    }
    out
}

/// What [`fit`] found.
#[derive(Clone, Debug)]
pub struct Fit {
    pub weights: Weights,
    /// The scale of the score in the logistic model: P(win) = σ(k · score).
    pub k: f64,
    /// Mean log loss of the starting weights and of the fitted ones (on the samples fitted).
    pub loss_before: f64,
    pub loss_after: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean log loss of predicting each sample's result by σ(k · its score).
pub fn log_loss(scores: &[f64], samples: &[Sample], k: f64) -> f64 {
    let mut total = 0.0;
    for (s, x) in scores.iter().zip(samples) {
        let p = sigmoid(k * s).clamp(1e-9, 1.0 - 1e-9);
        total -= x.result * p.ln() + (1.0 - x.result) * (1.0 - p).ln();
    }
    total / samples.len().max(1) as f64
}

/// Each sample's score under `w`, on `jobs` threads.
pub fn scores(samples: &[Sample], w: &Weights, jobs: usize) -> Vec<f64> {
    let chunk = samples.len().div_ceil(jobs.max(1)).max(1);
    let mut out = vec![0.0; samples.len()];
    std::thread::scope(|scope| {
        for (part, dst) in samples.chunks(chunk).zip(out.chunks_mut(chunk)) {
            scope.spawn(move || {
                for (x, d) in part.iter().zip(dst.iter_mut()) {
                    *d = score(&x.state, x.side, w);
                }
            });
        }
    });
    out
}

/// The `k` that minimises the log loss of `scores` (a golden-section search on log k).
pub fn best_k(scores: &[f64], samples: &[Sample]) -> f64 {
    let f = |lk: f64| log_loss(scores, samples, lk.exp());
    let (mut a, mut b) = ((1e-5f64).ln(), 1.0f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0).exp()
}

/// Fits the weights to `samples`, starting from `start`: first the scale k for `start`, then
/// `rounds` times a linear model of the score around the current weights (its slope in each
/// weight by a small step) fitted by gradient descent on the log-weights, with k held, each
/// weight kept within a factor [`SPAN`] of `start`. `l2` pulls the log-weights towards
/// `start`'s (0: none).
pub fn fit(samples: &[Sample], start: Weights, rounds: usize, l2: f64, jobs: usize) -> Fit {
    let base = scores(samples, &start, jobs);
    let k = best_k(&base, samples);
    let loss_before = log_loss(&base, samples, k);
    let n = FITTED.len();
    let origin: Vec<f64> = (0..n).map(|i| get(&start, i)).collect();
    let mut w = start;
    for _ in 0..rounds {
        let now = scores(samples, &w, jobs);
        let at: Vec<f64> = (0..n).map(|i| get(&w, i)).collect();
        // The slope of every sample's score in each weight.
        let slopes: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let h = (at[i].abs() * 1e-3).max(1e-6);
                let mut up = w;
                set(&mut up, i, at[i] + h);
                scores(samples, &up, jobs)
                    .iter()
                    .zip(&now)
                    .map(|(a, b)| (a - b) / h)
                    .collect()
            })
            .collect();
        // Gradient descent (Adam) on θ = ln w, the model score = now + Σ slope·(w - at).
        let mut theta: Vec<f64> = at.iter().map(|x| x.max(1e-12).ln()).collect();
        let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
        let (lr, b1, b2) = (0.02, 0.9, 0.999);
        for step in 1..=600 {
            let wv: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
            let mut grad = vec![0.0; n];
            for (j, x) in samples.iter().enumerate() {
                let mut s = now[j];
                for i in 0..n {
                    s += slopes[i][j] * (wv[i] - at[i]);
                }
                // d(log loss)/ds = k (p - y)
                let e = k * (sigmoid(k * s) - x.result);
                for i in 0..n {
                    grad[i] += e * slopes[i][j] * wv[i];
                }
            }
            for i in 0..n {
                let g = grad[i] / samples.len().max(1) as f64
                    + 2.0 * l2 * (theta[i] - origin[i].max(1e-12).ln());
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                let mh = m[i] / (1.0 - b1.powi(step));
                let vh = v[i] / (1.0 - b2.powi(step));
                theta[i] -= lr * mh / (vh.sqrt() + 1e-12);
                let o = origin[i].max(1e-12).ln();
                theta[i] = theta[i].clamp(o - SPAN.ln(), o + SPAN.ln());
            }
        }
        for (i, t) in theta.iter().enumerate() {
            set(&mut w, i, t.exp());
        }
    }
    let after = scores(samples, &w, jobs);
    Fit {
        weights: w,
        k,
        loss_before,
        loss_after: log_loss(&after, samples, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::sim::{Caps, play};
    use crate::ai::{Difficulty, Kind};

    /// A few quick games on the ruins (`easy` against greedy, sides swapped), as samples.
    fn games(n: u64, every: usize) -> Vec<Sample> {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let mut out = Vec::new();
        for seed in 0..n {
            let mut players = vec![Kind::Greedy; 2];
            players[(seed % 2) as usize] = Kind::Utility(Difficulty::Easy);
            let g = play(&level, seed, &players, Caps::default());
            assert!(g.illegal.is_none(), "{:?}", g.illegal);
            out.extend(samples(&level, seed, &g.commands, g.winner, every));
        }
        out
    }

    #[test]
    fn every_position_is_seen_by_each_side_and_labelled_by_the_winner() {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let players = [Kind::Utility(Difficulty::Easy), Kind::Greedy];
        let g = play(&level, 3, &players, Caps::default());
        let winner = g.winner.expect("the ruins end with a winner");
        let all = samples(&level, 3, &g.commands, g.winner, 1);
        let half = samples(&level, 3, &g.commands, g.winner, 2);
        assert!(!all.is_empty());
        // Both sides see each position; every other action is every other position.
        assert_eq!(all.len() % 2, 0);
        assert_eq!(half.len() / 2, (all.len() / 2).div_ceil(2));
        for pair in all.chunks(2) {
            assert_eq!(pair[0].state.round, pair[1].state.round);
            for x in pair {
                assert!(x.state.outcome.is_none());
                assert!(matches!(x.state.pending(), Decision::Act { .. }));
                let expected = if x.side == winner { 1.0 } else { 0.0 };
                assert_eq!(x.result, expected);
            }
        }
        // A draw is half a win for both.
        let drawn = samples(&level, 3, &g.commands, None, 4);
        assert!(drawn.iter().all(|x| x.result == 0.5));
    }

    #[test]
    fn the_fit_lowers_the_log_loss_and_keeps_each_weight_in_its_span() {
        let data = games(4, 2);
        let start = Weights::DEFAULT;
        let f = fit(&data, start, 1, 0.0, 2);
        assert!(f.k > 0.0);
        assert!(
            f.loss_after <= f.loss_before + 1e-9,
            "{} -> {}",
            f.loss_before,
            f.loss_after
        );
        for (i, name) in FITTED.iter().enumerate() {
            let (a, b) = (get(&start, i), get(&f.weights, i));
            assert!(
                b >= a / SPAN * 0.999 && b <= a * SPAN * 1.001,
                "{name}: {a} -> {b}"
            );
        }
        // The search's own numbers are not the score's: they keep their start.
        assert_eq!(f.weights.odds, start.odds);
        assert_eq!(f.weights.door_way, start.door_way);
        // The scale k is the best for the starting weights: twice or half as much is worse.
        let s = scores(&data, &start, 1);
        let at = |k: f64| log_loss(&s, &data, k);
        assert!(at(f.k) <= at(f.k * 2.0) && at(f.k) <= at(f.k / 2.0));
    }

    #[test]
    fn every_fitted_name_is_a_weight() {
        let mut w = Weights::DEFAULT;
        for (i, name) in FITTED.iter().enumerate() {
            assert!(weight(&mut w, name).is_some(), "{name}");
            set(&mut w, i, 123.0);
            assert_eq!(value(&mut w, name), 123.0);
        }
        assert!(weight(&mut w, "odds").is_none());
    }
}
