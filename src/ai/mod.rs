//! The AI: answers any decision the engine poses, for every ruleset, using only
//! [`BattleState::legal_commands`] and look-ahead on cloned states. Pure Rust, no Bevy.
//!
//! Three players:
//! - [`Kind::Random`]: a uniformly random legal command (a baseline);
//! - [`Kind::Greedy`]: walk to the nearest enemy and attack it (a baseline);
//! - [`Kind::Utility`]: utility scoring in the spirit of XCOM and Wesnoth's candidate
//!   actions. Every legal command (moves pruned to the most promising cells) is tried on a clone
//!   of the battle; the unit's follow-up actions are played out greedily on the clone, enemy
//!   reactions by a default policy, and the resulting position is scored: damage dealt and
//!   taken weighted towards finishing wounded foes, units downed, victory; then position:
//!   distance to targets, enemies that can reach or shoot each unit next turn, cover against
//!   enemy shooters. Attacks are averaged over several dice samples.
//!
//! **No cheating.** Look-ahead clones get a fresh random generator seeded by the AI, so the
//! AI never sees the battle's own future dice; hidden information (the other side's
//! declarations in `segments`) is removed from the clone before the search
//! ([`crate::rules::rulesets::redact`]).
//!
//! **Budget and determinism.** Difficulty sets a node budget (commands executed on clones);
//! with the same seed and budget the AI makes the same choices on every machine. A wall-clock
//! limit (default 200 ms, [`Config::time_limit`]) is a safety net only: it stops the search
//! early on a machine too slow for the node budget, and then determinism across machines is
//! lost for that decision.

pub mod eval;
pub mod fit;
pub mod sim;

pub use eval::Weights;
#[cfg(test)]
mod tests;

use crate::rules::battle::{
    Action, BattleState, Command, Decision, Intent, Reaction, SideId, UnitId,
};
use crate::rules::dice::BattleRng;
use crate::rules::level::Victory;
use crate::rules::rulesets;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Which player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    Random,
    Greedy,
    Utility(Difficulty),
}

/// Utility AI strength: by budget and noise, never by cheating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Difficulty {
    Easy,
    Normal,
    Hard,
}

impl Kind {
    /// Parses `random`, `greedy`, `easy`, `normal`, `hard`.
    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "random" => Kind::Random,
            "greedy" => Kind::Greedy,
            "easy" => Kind::Utility(Difficulty::Easy),
            "normal" => Kind::Utility(Difficulty::Normal),
            "hard" => Kind::Utility(Difficulty::Hard),
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Random => "random",
            Kind::Greedy => "greedy",
            Kind::Utility(Difficulty::Easy) => "easy",
            Kind::Utility(Difficulty::Normal) => "normal",
            Kind::Utility(Difficulty::Hard) => "hard",
        }
    }

    /// What the player is up against, in a line (the setup screen).
    pub fn blurb(self) -> &'static str {
        match self {
            Kind::Random => "plays any legal command at random: a baseline with no plan",
            Kind::Greedy => "walks to the nearest enemy and attacks it, nothing more",
            Kind::Utility(Difficulty::Easy) => {
                "weighs a few moves one action ahead, with blunders mixed in"
            }
            Kind::Utility(Difficulty::Normal) => {
                "weighs many moves several actions ahead, without blunders"
            }
            Kind::Utility(Difficulty::Hard) => {
                "weighs 3 times as many positions as normal, more moves and actions ahead"
            }
        }
    }
}

/// An AI player's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub kind: Kind,
    /// Wall-clock safety net per decision. The node budget of the difficulty is the real
    /// limit (the same choices on every machine); this only stops a search on a machine far
    /// too slow or loaded for it ([`Ai::last_cut`] tells when it fired).
    pub time_limit: Duration,
    /// Seed of the AI's own random choices and dice samples.
    pub seed: u64,
    /// Weights of the position score in place of the difficulty's own (tuning runs only:
    /// `fray simulate --ai-weights`). `None`: the difficulty's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Weights>,
}

impl Config {
    pub fn new(kind: Kind, seed: u64) -> Self {
        Self {
            kind,
            time_limit: Duration::from_millis(200),
            seed,
            weights: None,
        }
    }
}

/// Search settings of a difficulty.
#[derive(Clone, Copy, Debug)]
struct Search {
    /// Commands executed on clones per decision.
    nodes: usize,
    /// Moves kept after the cheap positional pre-score.
    moves: usize,
    /// Dice samples per attack.
    samples: usize,
    /// Follow-up actions of the same unit played out on the clone.
    depth: usize,
    /// Commands of the other units (both sides) played out greedily after the unit's turn.
    /// Normal and hard use none: measured against greedy, a greedy enemy answer with our own
    /// units frozen judged every advance as a loss (units hung back), and it cost 3-4 times
    /// the time on `sides`; exposure in [`eval::score`] prices the answer instead.
    replies: usize,
    /// Random noise added to scores (blunders).
    noise: f64,
    /// The share of declarations (`segments`) made at random among the legal ones rather
    /// than by [`declaration`]: blunders where the search does not reach (its noise cannot).
    careless: f64,
    /// Cells per kind of move in the search of a picked unit's first action (0: a pick is
    /// judged by the play-out policy alone).
    pick_moves: usize,
    /// The position score's weights.
    weights: Weights,
}

fn search_of(d: Difficulty) -> Search {
    match d {
        Difficulty::Easy => Search {
            nodes: 300,
            moves: 6,
            samples: 2,
            depth: 1,
            replies: 2,
            noise: 3.0,
            // Without it `normal` beat `easy` 56.5% on the dark crypt and 66% on the crypt
            // (200 games): both declared alike, and declaring is much of a `segments` turn.
            careless: 0.3,
            pick_moves: 0,
            weights: Weights::DEFAULT,
        },
        Difficulty::Normal => Search {
            nodes: 4000,
            moves: 14,
            // 8 rather than 4 since a move is executed once for all its samples (3577e71):
            // attacks are judged on less luck, and the node budget still bounds the tail.
            // Against greedy over 1000 games of the village, 74.9% -> 76.9% (docs/ai.md).
            samples: 8,
            depth: 4,
            replies: 0,
            noise: 0.0,
            careless: 0.0,
            pick_moves: 12,
            weights: Weights::DEFAULT,
        },
        Difficulty::Hard => Search {
            nodes: 12000,
            moves: 24,
            samples: 8,
            depth: 6,
            replies: 0,
            noise: 0.0,
            careless: 0.0,
            pick_moves: 16,
            // By the ruleset: [`hard_weights`], set in [`search_for`].
            weights: Weights::DEFAULT,
        },
    }
}

/// The weights tuned by self-play (`docs/tune.py`: SPSA, 75 iterations of 40 games of
/// `normal`'s search against itself on the seven ladder levels; docs/ai.md, "Tuned weights"):
/// material counts for more against position (a foe down 45.6 rather than 25, an own unit
/// down 34.3 rather than 16), the walk to the foe and exposure count for less.
pub const TUNED_WEIGHTS: Weights = Weights {
    foe_lost: 14.719556,
    foe_lost_sq: 12.646978,
    foe_down: 45.575923,
    own_lost: 15.915330,
    own_down: 34.289422,
    broken: 0.884174,
    spell_kept: 0.546319,
    spare_ap: 0.040563,
    spare_reaction: 0.392242,
    certain_down: 0.735170,
    certain_weight: 7.133688,
    half_cover: 0.267173,
    full_cover: 0.502659,
    shooter_in_range: 0.745782,
    shooter_closing: 0.031741,
    shooter_in_melee: 1.343830,
    closing: 0.514505,
    exposure: 0.021640,
    exposure_fragile: 0.498072,
    exposure_per_hp: 2.249191,
    objective: 0.559683,
    odds: 0.373454,
    door_way: 1.318914,
};

/// The weights `hard` judges with under `ruleset`: [`TUNED_WEIGHTS`] where they measured
/// stronger than the default against `normal` on held-out seeds (`phases`: `hard` 57.8% over
/// 600 games of the canyon, 53.7% over 600 of the hex skirmish), the default elsewhere (no
/// better on the ruins, the village, the crypt or the bridge; nor were the weights of a run per
/// ruleset in `hard`'s own search: docs/ai.md, "Tuned weights per ruleset").
pub fn hard_weights(ruleset: crate::rules::rulesets::RulesetId) -> Weights {
    match ruleset {
        crate::rules::rulesets::RulesetId::Phases => TUNED_WEIGHTS,
        _ => Weights::DEFAULT,
    }
}

/// `easy`'s noise in `phases`. There its usual ±3 made almost no blunders: it beat greedy
/// 92-94% on both `phases` levels, where elsewhere it wins 20-68%, as a first opponent should
/// (±6: 95.5%, ±12: 88.5%, ±25: 76.8%, ±50: 54.8% on the canyon, with no replies). With ±40
/// and no replies, 400 side-swapped games a level (seed 1): against greedy 63.2% (the canyon)
/// and 57.2% (the hex skirmish); against `random` 100% and 98.5%; `normal` beats it 95.8% and
/// 97.5% (docs/ai.md, "`easy` in `phases`").
pub const EASY_PHASES_NOISE: f64 = 40.0;

/// The search `d` plays with under `ruleset`: [`search_of`], with `hard`'s weights chosen by
/// the ruleset ([`hard_weights`]) and, in `phases`, `easy`'s blunders made at the scale of
/// that ruleset's scores ([`EASY_PHASES_NOISE`]), its greedy replies dropped there: they made
/// its decisions 30-45 times slower (p99 195-313 ms against 6-7 ms) and it no weaker (against
/// greedy 91.8% with them, 95.8% without, at ±3 on the canyon).
fn search_for(d: Difficulty, ruleset: crate::rules::rulesets::RulesetId) -> Search {
    let mut search = search_of(d);
    match d {
        Difficulty::Hard => search.weights = hard_weights(ruleset),
        Difficulty::Easy if ruleset == crate::rules::rulesets::RulesetId::Phases => {
            search.noise = EASY_PHASES_NOISE;
            search.replies = 0;
        }
        _ => {}
    }
    search
}

/// An AI player. Keep one per side for a battle: its random stream advances per decision.
pub struct Ai {
    pub config: Config,
    rng: ChaCha8Rng,
    /// Nodes spent on the last decision, and whether the time limit cut it short.
    pub last_nodes: usize,
    pub last_cut: bool,
}

impl Ai {
    pub fn new(config: Config) -> Self {
        Self {
            config,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            last_nodes: 0,
            last_cut: false,
        }
    }

    /// The command to send for the pending decision; `None` when the battle is over.
    pub fn decide(&mut self, s: &BattleState) -> Option<Command> {
        let legal = s.legal_commands();
        if legal.is_empty() {
            return None;
        }
        if legal.len() == 1 {
            return legal.into_iter().next();
        }
        let choice = match self.config.kind {
            Kind::Random => {
                let i = self.rng.random_range(0..legal.len());
                legal[i].clone()
            }
            Kind::Greedy => match deciding_side(s) {
                // A view also hides the level's events to come (`rulesets::redact`).
                Some(side) if s.fog.is_some() || !s.level.events.is_empty() => {
                    let mut view = s.clone();
                    rulesets::redact(&mut view, side);
                    greedy(&view, &legal)
                }
                _ => greedy(s, &legal),
            },
            Kind::Utility(d) => {
                let mut search = search_for(d, s.level.ruleset);
                if let Some(w) = self.config.weights {
                    search.weights = w;
                }
                eval::remember_walks(|| self.utility(s, legal, search))
            }
        };
        Some(choice)
    }

    fn utility(&mut self, s: &BattleState, legal: Vec<Command>, search: Search) -> Command {
        let Some(side) = deciding_side(s) else {
            return legal[0].clone();
        };
        // Declarations (`segments`) take effect only after everyone has declared and
        // initiative is rolled, beyond any play-out the budget allows: the engine lists the
        // sensible declaration first (spell or missile at a foe in range, else melee).
        if matches!(s.pending(), Decision::Declare { .. }) {
            if search.careless > 0.0 && self.rng.random_range(0.0..1.0) < search.careless {
                let i = self.rng.random_range(0..legal.len());
                return legal[i].clone();
            }
            return declaration(&legal);
        }
        if let Some(cast) = declared_spell(&legal) {
            return cast;
        }
        let legal_first = legal[0].clone();
        let started = Instant::now();
        let mut view = s.clone();
        rulesets::redact(&mut view, side);
        let mut candidates = prune(
            &view,
            side,
            strikes_when_engaged(&view, legal),
            search.moves,
            &search.weights,
        );
        candidates.retain(|c| !eval::idle_item_action(c) || eval::makes_way(&view, c));
        if candidates.is_empty() {
            return legal_first;
        }
        if saves_ap_for_its_turn(&view) {
            candidates.retain(|c| {
                !matches!(
                    c,
                    Command::React {
                        reaction: Reaction::Dodge,
                        ..
                    }
                )
            });
            if candidates.len() == 1 {
                return candidates.remove(0);
            }
        }
        if holds_ground(&view, side) {
            let still: Vec<Command> = candidates
                .iter()
                .filter(|c| c.destination().is_none())
                .cloned()
                .collect();
            if !still.is_empty() {
                candidates = still;
            }
        }
        // Common random numbers: sample k of every candidate rolls the same dice, so
        // candidates are compared on equal luck rather than on who drew the better sample.
        let seeds: Vec<u64> = (0..search.samples).map(|_| self.rng.random()).collect();
        let actor = match view.pending() {
            Decision::Act { unit } => Some(unit),
            _ => None,
        };
        let mut nodes = 0usize;
        let mut best: Option<(f64, usize)> = None;
        self.last_cut = false;
        for (i, cmd) in candidates.iter().enumerate() {
            if i > 0 && nodes >= search.nodes {
                // The node budget: the intended limit, the same on every machine.
                break;
            }
            if i > 0 && started.elapsed() >= self.config.time_limit {
                // The clock: only on a machine far too slow or loaded for the budget.
                self.last_cut = true;
                break;
            }
            let mut v = if matches!(cmd, Command::Pick { .. }) && search.pick_moves > 0 {
                // A pick is judged by the best turn the picked unit could take: a smaller
                // search of its first action (the same play-out after it), not by the
                // play-out policy alone, which cannot move a unit into reach.
                let share = search.nodes / (4 * candidates.len().max(1));
                let (v, n) = pick_value(&view, side, cmd, &seeds, search, share);
                nodes += n;
                v
            } else {
                let (v, n) = judge(&view, side, actor, cmd, &seeds, search);
                nodes += n;
                v
            };
            // A few dice samples can all miss a hard target (a dodging scout): the exact
            // expected damage by the ruleset's odds breaks such ties in favour of attacking.
            if let Some((target, ranged)) = cmd.attack_target()
                && let (Some(o), Some(t)) = (
                    rulesets::odds(&view, cmd.unit(), target, ranged),
                    view.unit(target),
                )
            {
                v += search.weights.odds
                    * (o.expected_damage / eval::health_left(t).max(1.0)).min(1.0);
            }
            // A door that opens a shorter way to the foe (or the only one) is worth opening,
            // and its lock picking (a Short Task): the position score measures distance
            // through walls and cannot see the way.
            v += eval::door_way(&view, cmd, &search.weights);
            // Reloading an empty weapon, taking up a weapon with empty hands: worth it beyond
            // the turn the play-out sees.
            v += eval::item_worth(&view, cmd, &search.weights);
            // Holding an action (Delay) plays out as the same action later when no one acts
            // between (a lone `segments` caster): on a tie, act now. Same games on the
            // levels of the other rulesets (200 games each).
            if matches!(
                cmd,
                Command::Act {
                    action: Action::Delay,
                    ..
                }
            ) {
                v -= DELAY_TIE;
            }
            if search.noise > 0.0 {
                v += self.rng.random_range(-search.noise..=search.noise);
            }
            if std::env::var_os("FRAY_AI_TRACE_ALL").is_some() {
                eprintln!("   {:.2} {}", v, rulesets::view::label(&view, cmd));
            }
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, i));
            }
        }
        self.last_nodes = nodes;
        let i = best.map_or(0, |(_, i)| i);
        if std::env::var_os("FRAY_AI_TRACE").is_some() {
            let u = candidates[i].unit();
            let un = &view.units[u.index()];
            eprintln!(
                "r{} {} ({}hp {}ap @{}) -> {} [{:.2}] of {} cut={}",
                view.round,
                un.name,
                un.pool("hp"),
                un.pool("ap"),
                un.cell,
                rulesets::view::label(&view, &candidates[i]),
                best.map_or(0.0, |b| b.0),
                candidates.len(),
                self.last_cut
            );
        }
        candidates[i].clone()
    }
}

/// What holding an action gives up against acting now on an equal play-out: only a tie-break.
const DELAY_TIE: f64 = 1e-6;

/// The value of a pick: the best first action of the picked unit, each judged as
/// [`Ai::utility`] judges a candidate (the same dice seeds, the unit's turn played out), over
/// at most `budget` nodes with `search.pick_moves` cells per kind of move. Returns the value
/// and the nodes spent.
fn pick_value(
    view: &BattleState,
    side: SideId,
    pick: &Command,
    seeds: &[u64],
    search: Search,
    budget: usize,
) -> (f64, usize) {
    let mut picked = view.clone();
    // Never the battle's own generator: a start of turn that rolls must not show its dice.
    picked.rng = BattleRng::new(seeds.first().copied().unwrap_or(0));
    if picked.execute(pick).is_err() {
        return (f64::NEG_INFINITY, 1);
    }
    let mut nodes = 1;
    let unit = match picked.pending() {
        Decision::Act { unit } if picked.unit(unit).is_some_and(|u| u.side == side) => unit,
        // Not our unit's action next (a reaction, the battle over): judge the state as it is.
        _ => return (eval::score(&picked, side, &search.weights), nodes),
    };
    let legal = strikes_when_engaged(&picked, picked.legal_commands());
    let mut candidates = prune(&picked, side, legal, search.pick_moves, &search.weights);
    candidates.retain(|c| !eval::idle_item_action(c) || eval::makes_way(&picked, c));
    let mut best = f64::NEG_INFINITY;
    for (i, cmd) in candidates.iter().enumerate() {
        if i > 0 && nodes >= budget {
            break;
        }
        let (v, n) = judge(&picked, side, Some(unit), cmd, seeds, search);
        nodes += n;
        best = best.max(v);
    }
    (best, nodes)
}

/// A candidate's value: the mean score, over the dice `seeds`, of executing `cmd` on a clone
/// of `from` and playing the rest of `actor`'s turn out ([`play_out`]); minus infinity if the
/// command is rejected. Returns the value and the nodes spent.
fn judge(
    from: &BattleState,
    side: SideId,
    actor: Option<UnitId>,
    cmd: &Command,
    seeds: &[u64],
    search: Search,
) -> (f64, usize) {
    let mut nodes = 0;
    let mut total = 0.0;
    // The state after `cmd` when executing it rolled no dice (a move): the same for every
    // seed, so it is executed once and copied (a move's execution is two path searches).
    let mut rolled_nothing: Option<BattleState> = None;
    for &seed in seeds {
        nodes += 1;
        let mut c = match &rolled_nothing {
            Some(after) => {
                let mut c = after.clone();
                c.rng = BattleRng::new(seed);
                c
            }
            None => {
                let mut c = from.clone();
                c.rng = BattleRng::new(seed);
                if c.execute(cmd).is_err() {
                    return (f64::NEG_INFINITY, nodes);
                }
                if c.rng.dice_rolled() == 0 {
                    rolled_nothing = Some(c.clone());
                }
                c
            }
        };
        nodes += play_out(&mut c, side, actor, search.depth, search.replies);
        total += eval::score(&c, side, &search.weights);
    }
    (total / seeds.len() as f64, nodes)
}

/// Plays a clone forward by fixed policies, so every candidate is judged at the same point:
/// reactions by [`default_reaction`]; the rest of the acting unit's turn (`actor`: it attacks
/// the best target in reach while it can, else ends its turn: a move is judged with the
/// attacks it enables); then `replies` commands of everyone else as the greedy player would
/// play them, so the damage the enemy can do next prices a position. Returns the nodes spent.
fn play_out(
    c: &mut BattleState,
    side: SideId,
    actor: Option<UnitId>,
    depth: usize,
    replies: usize,
) -> usize {
    let mut nodes = 0;
    let mut own = 0;
    // A pick (`sides`, `alternating`) is judged by the turn of the unit picked.
    let mut actor = actor;
    let mut others = 0;
    for _ in 0..(depth + replies + 24) {
        if c.outcome.is_some() {
            break;
        }
        let pending = c.pending();
        let own_turn = match pending {
            Decision::Act { unit } => {
                (actor.is_none() && nodes == 0 && c.unit(unit).is_some_and(|u| u.side == side))
                    || (Some(unit) == actor && own < depth)
            }
            _ => false,
        };
        let cmd = match pending {
            Decision::Act { unit } if own_turn => {
                // The acting unit only attacks or ends its turn: list just those (every
                // legal move would be a path search per kind of move, a third of the time).
                actor = Some(unit);
                own += 1;
                let options = strikes_and_end(c, unit);
                // A better weapon it carries is readied first (after its hands were freed for
                // it); with no blow to strike, a weapon within reach better than the one in
                // hand is taken up (a move is judged with the pick-up it allows).
                eval::best_ready(c, unit)
                    .or_else(|| best_target_attack(c, &options))
                    .or_else(|| eval::best_pickup(c, unit))
                    .or_else(|| {
                        options
                            .iter()
                            .find(|x| matches!(x, Command::EndTurn { .. }))
                            .cloned()
                    })
            }
            // Another unit's turn or pick with no replies left: stop before listing its
            // commands (every legal move is a path search per kind of move).
            Decision::Act { .. } | Decision::Pick { .. } | Decision::Declare { .. }
                if others >= replies =>
            {
                break;
            }
            _ => {
                let legal = c.legal_commands();
                if legal.is_empty() {
                    break;
                }
                match pending {
                    Decision::React { .. } => default_reaction(&legal),
                    _ if others < replies => {
                        others += 1;
                        Some(greedy(c, &legal))
                    }
                    _ => None,
                }
            }
        };
        let Some(cmd) = cmd else { break };
        if c.execute(&cmd).is_err() {
            break;
        }
        nodes += 1;
    }
    nodes
}

/// The legal commands of `unit` that attack a foe (melee, ranged, spell), then ending its
/// turn: the part of [`BattleState::legal_commands`] the play-out policy chooses from.
fn strikes_and_end(s: &BattleState, unit: UnitId) -> Vec<Command> {
    let mut out = Vec::new();
    let Some(side) = s.unit(unit).map(|u| u.side) else {
        return out;
    };
    // Every unit of another side: some rulesets let a fallen foe be struck (`alternating`).
    for target in s.unit_ids().filter(|&t| s.units[t.index()].side != side) {
        for cmd in Command::attacks_on(unit, target) {
            if s.check(&cmd).is_ok() {
                out.push(cmd);
            }
        }
    }
    let end = Command::EndTurn { unit };
    if s.check(&end).is_ok() {
        out.push(end);
    }
    out
}

/// The attack (melee, ranged or spell) that takes the largest share of what its target has
/// left, by the ruleset's exact odds where it gives them (finishing the wounded first).
fn best_target_attack(s: &BattleState, legal: &[Command]) -> Option<Command> {
    legal
        .iter()
        .filter_map(|c| {
            let (target, ranged) = c.attack_target()?;
            let t = s.unit(target)?;
            let left = eval::vitality(t).max(0.01);
            let v = match rulesets::odds(s, c.unit(), target, ranged) {
                Some(o) => {
                    let hp = eval::health_left(t).max(1.0);
                    (o.expected_damage / hp).min(1.0) + 0.01 * o.hit
                }
                None => 0.5 / left,
            };
            Some((v, c))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c.clone())
}

/// The side the pending decision belongs to.
pub fn deciding_side(s: &BattleState) -> Option<SideId> {
    match s.pending() {
        Decision::Act { unit } | Decision::Declare { unit, .. } | Decision::React { unit, .. } => {
            s.unit(unit).map(|u| u.side)
        }
        Decision::Pick { side, .. } => Some(side),
        Decision::Over { .. } => None,
    }
}

/// All commands that do not move a unit, plus, for each kind of moving command, the `keep`
/// with the best cheap positional score of their destination. If none of those lets the unit
/// strike a foe (within reach, or in range and sight for a shooter), the `keep / 2` nearest
/// destinations that do are added: the positional score prices exposure, so every cell beside
/// a foe can rank below the hiding places, and a unit whose move and attack share a turn
/// (`segments`: half its move, then the attack) walked away from a foe it could have hit.
fn prune(
    s: &BattleState,
    side: SideId,
    legal: Vec<Command>,
    keep: usize,
    w: &Weights,
) -> Vec<Command> {
    let mut rest = Vec::new();
    // (kind, value, steps from the unit's cell, strikes from there, reaches a better weapon
    // from there, command)
    let mut moving: Vec<(String, f64, u32, bool, bool, Command)> = Vec::new();
    // The cells where a weapon lies that would arm the moving unit better (none on a level
    // without items on the ground), for the last unit asked about.
    let mut better: Option<(UnitId, Vec<crate::rules::grid::Cell>)> = None;
    // On a map of doors or cliffs, the walk to the foes: the same for every destination.
    let walk = eval::walk_to_foes(s, side);
    for c in legal {
        match c.destination() {
            Some((unit, to)) => {
                let kind = match &c {
                    Command::Act { action, .. } => action.name().to_string(),
                    _ => "Move".to_string(),
                };
                let v = eval::cell_value_with(s, side, unit, to, walk.as_ref(), w);
                let u = &s.units[unit.index()];
                let steps = s.grid().distance(u.cell, to);
                if better.as_ref().is_none_or(|(b, _)| *b != unit) {
                    better = Some((unit, eval::better_items_at(s, unit)));
                }
                let arms = better.as_ref().is_some_and(|(_, cells)| {
                    cells
                        .iter()
                        .any(|&cell| s.grid().distance_steps(to, cell) <= u.reach.max(1))
                });
                moving.push((kind, v, steps, eval::can_strike_from(s, unit, to), arms, c));
            }
            None => rest.push(c),
        }
    }
    // Stable: by kind, then best value first (ties keep the engine's order).
    moving.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut i = 0;
    while i < moving.len() {
        let kind = moving[i].0.clone();
        let end = i + moving[i..].iter().take_while(|m| m.0 == kind).count();
        let group = &moving[i..end];
        let mut chosen: Vec<usize> = (0..group.len().min(keep)).collect();
        let mut strikes: Vec<usize> = (0..group.len()).filter(|&k| group[k].3).collect();
        strikes.sort_by_key(|&k| group[k].2);
        let none_strikes = chosen.iter().all(|&k| !group[k].3);
        let take = if none_strikes { keep / 2 } else { 0 };
        for k in strikes.into_iter().take(take) {
            if !chosen.contains(&k) {
                chosen.push(k);
            }
        }
        // The best two destinations (by the positional value) from which a better weapon
        // lying on the ground is within reach: the pick-up that follows in the play-out
        // shows what it is worth.
        for k in (0..group.len()).filter(|&k| group[k].4).take(2) {
            if !chosen.contains(&k) {
                chosen.push(k);
            }
        }
        chosen.sort_unstable();
        rest.extend(chosen.into_iter().map(|k| group[k].5.clone()));
        i = end;
    }
    rest
}

/// The default policy for reactions: take an offered attack; else the first defence offered
/// (dodge, parry, block...) that costs no later action; else decline. Aborting (`phases`)
/// gives up a whole action, so it is not taken by default.
pub fn default_reaction(legal: &[Command]) -> Option<Command> {
    let attack = legal.iter().find(|c| {
        matches!(
            c,
            Command::React {
                reaction: Reaction::Attack { .. },
                ..
            }
        )
    });
    let defend = legal.iter().find(|c| {
        matches!(c, Command::React { reaction, .. } if *reaction != Reaction::Decline && !matches!(reaction, Reaction::Attack { .. } | Reaction::Abort { .. }))
    });
    attack.or(defend).or(legal.first()).cloned()
}

/// The greedy baseline: attack the nearest enemy if possible; else move to the reachable cell
/// nearest to the nearest enemy; else end the turn. Reactions: take attacks, decline the rest.
pub fn greedy(s: &BattleState, legal: &[Command]) -> Command {
    let first = legal[0].clone();
    match s.pending() {
        Decision::React { .. } => legal
            .iter()
            .find(|c| {
                matches!(
                    c,
                    Command::React {
                        reaction: Reaction::Attack { .. },
                        ..
                    }
                )
            })
            .or_else(|| {
                legal.iter().find(|c| {
                    matches!(
                        c,
                        Command::React {
                            reaction: Reaction::Decline,
                            ..
                        }
                    )
                })
            })
            .cloned()
            .unwrap_or(first),
        Decision::Act { unit } => {
            let nearest = |from: UnitId| {
                s.enemies_of(from)
                    .into_iter()
                    .min_by_key(|&e| (s.distance(from, e), e))
            };
            let Some(target) = nearest(unit) else {
                return first;
            };
            // Attack: the nearest enemy first, melee before ranged; else any attack.
            let attacks: Vec<&Command> = legal
                .iter()
                .filter(|c| matches!(c, Command::Attack { .. }))
                .collect();
            if let Some(c) = attacks
                .iter()
                .find(|c| matches!(c, Command::Attack { target: t, ranged: false, .. } if *t == target))
                .or_else(|| attacks.iter().find(|c| matches!(c, Command::Attack { target: t, .. } if *t == target)))
                .or_else(|| attacks.first())
            {
                return (*c).clone();
            }
            let goal = s.units[target.index()].cell;
            let here = s.grid().distance(s.units[unit.index()].cell, goal);
            let best_move = legal
                .iter()
                .filter_map(|c| match c {
                    Command::Move { to, .. } => Some((s.grid().distance(*to, goal), c)),
                    _ => None,
                })
                .min_by_key(|(d, _)| *d);
            if let Some((d, c)) = best_move
                && d < here
            {
                return c.clone();
            }
            legal
                .iter()
                .find(|c| matches!(c, Command::EndTurn { .. }))
                .cloned()
                .unwrap_or(first)
        }
        // Picks, declarations: the engine lists the sensible default first.
        _ => first,
    }
}

/// The underdog holds its ground in the first round of `action-points`: its units strike
/// what they can from where they stand, guard or end their turns, and let the stronger side
/// spend its Action Points crossing the map; from the second round on they move as the
/// search decides. A Move costs the AP an attack needs, so the side that closes the distance
/// arrives with one attack left and meets the other's full turn; the one-unit search cannot
/// see that (it ends at the unit's own turn). Measured against greedy, 200 games on
/// `action_points_ruins` (docs/ai.md): 64.0% -> 76.0%, the outnumbered Company 35% -> 58%;
/// holding as the favourite as well cost it 3 points, and holding on the levels of the
/// other rulesets lost 8-20 points.
fn holds_ground(s: &BattleState, side: SideId) -> bool {
    rulesets::ai_hints(s).underdog_holds_first_round
        && s.round == 1
        && matches!(s.pending(), Decision::Act { .. })
        && underdog(s, side)
}

/// In `sides` and `segments`, a unit whose side has no cell to reach, and that can strike a
/// foe in melee, strikes: its candidates are then its attacks (melee, missile or spell, at any
/// target), not a charge at another foe, a move, a defensive action or the end of its turn.
/// In `sides` it may still move after striking. The one-unit search ends with the unit's own
/// turn and prices the other side's answer by exposure alone, so stepping out of a fight to
/// charge or to reposition looked as good as the blow it gives up (traced on
/// `sides_village_brawl`: the favoured Party charged across the stream from one fight into
/// the next). Measured against greedy, 400 games each (docs/ai.md): the village 66.0% ->
/// 74.8%, the crypt 54.3% -> 58.5%, the keep 85.8% -> 90.3% (its Garrison, which must
/// survive, 83% -> 92%). Not for a side that wins by reaching a cell (the keep's Stormers slip
/// past the line to the gate: 89% -> 73% with the rule), nor in `action-points` (the ruins
/// lost 7 points) or `phases` (no change).
fn strikes_when_engaged(s: &BattleState, legal: Vec<Command>) -> Vec<Command> {
    let Decision::Act { unit } = s.pending() else {
        return legal;
    };
    let runs_for_a_cell = s.unit(unit).is_some_and(|u| {
        let name = &s.sides[u.side.index()].name;
        s.level
            .victory
            .iter()
            .any(|v| matches!(v, Victory::ReachCell { side, .. } if side == name))
    });
    let applies = rulesets::ai_hints(s).strikes_when_engaged
        && !runs_for_a_cell
        && legal
            .iter()
            .any(|c| matches!(c, Command::Attack { ranged: false, .. }));
    if !applies {
        return legal;
    }
    // An execution (`sides`, S-164) is a strike too: a sure hit on an unaware mark.
    legal
        .into_iter()
        .filter(|c| {
            c.attack_target().is_some()
                || matches!(
                    c,
                    Command::Act {
                        action: Action::Execute { .. },
                        ..
                    }
                )
        })
        .collect()
}

/// In `action-points` a unit asked to Dodge before its own turn of the round, whose AP are not
/// refreshed when that turn starts (refresh per round, or the first round), would pay the
/// Dodge's AP out of that turn: it declines. After its turn (or with refresh per turn) the
/// search decides as for any reaction. The search judges a reaction by the attack it answers
/// and values AP in hand a little, not by the turn the AP would have bought. Measured against
/// greedy on `action_points_ruins`, 1000 games (docs/ai.md): 73.2% -> 76.7%, the outnumbered
/// Company 53.0% -> 60.4%.
fn saves_ap_for_its_turn(s: &BattleState) -> bool {
    match s.pending() {
        Decision::React { unit, .. } => rulesets::spends_from_coming_turn(s, unit),
        _ => false,
    }
}

/// The declaration the AI makes (`segments`): the engine's default (listed first), but Missile
/// rather than Melee for a unit with a missile weapon and no foe in range yet. Declared, the
/// bow may be shot at a foe that comes near during the round (after half a move, adjacent or
/// not), and acts `missile_bonus` segments earlier; declared Melee, the archer could only
/// strike with its knife. Measured against greedy, 400 games a row on ten seed pairs of the
/// crypt and a symmetric copy of it (docs/ai.md): +1.1 points on average, the crypt +2.
fn declaration(legal: &[Command]) -> Command {
    let intent = |c: &Command| match c {
        Command::Declare { intent, .. } => Some(intent.clone()),
        _ => None,
    };
    let missile = legal.iter().find(|c| intent(c) == Some(Intent::Missile));
    match (intent(&legal[0]), missile) {
        (Some(Intent::Melee), Some(m)) => m.clone(),
        _ => legal[0].clone(),
    }
}

/// The cast of a declared spell that is not Magic Missile (`segments`: Haste, Cure Light
/// Wounds, Hold Person, Shield), when it is the unit's only way to act this turn: the spell was
/// declared for a reason, and its worth (an ally hasted or healed, a foe held for rounds) lies
/// beyond what the play-out and the position score can see, so the search would end the turn
/// instead. Magic Missile's damage is in the score ([`rulesets::pending_damage`]): the search
/// judges it.
fn declared_spell(legal: &[Command]) -> Option<Command> {
    let acts = legal
        .iter()
        .any(|c| matches!(c, Command::Move { .. } | Command::Attack { .. }));
    let mut casts = legal.iter().filter(|c| {
        matches!(c, Command::Act { action: Action::Cast { spell, .. }, .. } if !spell.is_magic_missile())
    });
    match (acts, casts.next(), casts.next()) {
        (false, Some(cast), None) => Some(cast.clone()),
        _ => None,
    }
}

/// Whether `side` has fewer active units than its foes, or as many with less health left.
fn underdog(s: &BattleState, side: SideId) -> bool {
    let (mut us, mut them) = ((0usize, 0.0f64), (0usize, 0.0f64));
    for u in s.units.iter().filter(|u| u.is_active()) {
        let t = if u.side == side { &mut us } else { &mut them };
        t.0 += 1;
        t.1 += eval::health_left(u);
    }
    us.0 < them.0 || (us.0 == them.0 && us.1 < them.1)
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SideControl {
    Human,
    Ai(Kind),
}

impl SideControl {
    /// The level's default: its controller, with the AI at normal difficulty.
    pub fn of(c: crate::rules::level::Controller) -> Self {
        match c {
            crate::rules::level::Controller::Human => SideControl::Human,
            crate::rules::level::Controller::Ai => {
                SideControl::Ai(Kind::Utility(Difficulty::Normal))
            }
        }
    }

    pub fn is_human(self) -> bool {
        self == SideControl::Human
    }

    /// What this choice means, in a line (the setup screen).
    pub fn blurb(self) -> &'static str {
        match self {
            SideControl::Human => "you play it (several humans take turns at one screen)",
            SideControl::Ai(k) => k.blurb(),
        }
    }

    /// "Human", "AI (normal)".
    pub fn label(self) -> String {
        match self {
            SideControl::Human => "Human".into(),
            SideControl::Ai(k) => format!("AI ({})", k.name()),
        }
    }

    /// The next choice on the setup screen: Human, AI easy, normal, hard, Human...
    pub fn next(self) -> Self {
        match self {
            SideControl::Human => SideControl::Ai(Kind::Utility(Difficulty::Easy)),
            SideControl::Ai(Kind::Utility(Difficulty::Easy)) => {
                SideControl::Ai(Kind::Utility(Difficulty::Normal))
            }
            SideControl::Ai(Kind::Utility(Difficulty::Normal)) => {
                SideControl::Ai(Kind::Utility(Difficulty::Hard))
            }
            SideControl::Ai(_) => SideControl::Human,
        }
    }
}
