//! Dice: expressions (`3d6`, `1d20+4`, `2d6+1d4-1`), the battle's one seeded random number
//! generator, and a dice tape that forces results for scripted tests.
//!
//! # Determinism
//! All randomness of a battle comes from one [`BattleRng`]: ChaCha8 seeded from a `u64`, and
//! each die drawn with `random_range(1..=sides)` on `u32`, which rand documents as portable.
//! The same seed and the same sequence of rolls give the same results on every machine. The
//! generator serializes as its seed and stream position, so a saved battle resumes mid-stream.
//!
//! # Dice tape
//! [`BattleRng::with_tape`] queues forced die results: each die rolled takes the next tape value
//! instead of drawing from the generator. That is how a worked example from a rules text ("she
//! rolls a 19 on her luck die") is reproduced exactly. A tape value that cannot come up on the
//! die being rolled (a 7 on a d6) is clamped into range and counted in
//! [`BattleRng::tape_faults`], so a scenario with a wrong tape fails loudly instead of silently.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// Largest number of dice in one term, and of sides on one die: bounds that keep every total
/// far inside `i64` and stop a typo like `1000000d6` from stalling a battle.
pub const MAX_DICE: u32 = 100;
pub const MAX_SIDES: u32 = 1000;
const MAX_TERMS: usize = 16;
const MAX_FLAT: i64 = 1_000_000;

/// One term of a dice expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// `count` dice with `sides` sides each, added (`negative`: subtracted).
    Dice {
        count: u32,
        sides: u32,
        negative: bool,
    },
    /// A flat modifier.
    Flat(i64),
}

/// A sum of dice and flat modifiers, such as `3d6`, `1d20+4` or `2d6+1d4-1`.
///
/// Written and parsed as text (`"1d20+4"`), also in RON files.
///
/// # Examples
///
/// ```
/// use fray::rules::dice::{DiceExpr, Term};
///
/// let expr: DiceExpr = "2d6 + 1d4 - 1".parse().unwrap();
/// assert_eq!(expr.to_string(), "2d6+1d4-1");
/// assert_eq!(expr.range(), (2, 15));
/// assert_eq!(expr.terms()[2], Term::Flat(-1));
/// // Built in code, it is the same expression.
/// assert_eq!(DiceExpr::dice(3, 6).plus(2), "3d6+2".parse().unwrap());
///
/// // A mistake says where it is (1-based column) and what was expected.
/// let err = "3d6 2".parse::<DiceExpr>().unwrap_err();
/// assert_eq!(err.col, 5);
/// assert_eq!(err.to_string(), "column 5: expected + or - before '2'");
/// assert!("1d1".parse::<DiceExpr>().is_err()); // a die has at least 2 sides
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiceExpr {
    terms: Vec<Term>,
}

/// Why a dice expression did not parse: a message and the 1-based character column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceError {
    pub col: usize,
    pub message: String,
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.col, self.message)
    }
}

impl std::error::Error for DiceError {}

impl DiceExpr {
    /// `count` dice of `sides` sides (`DiceExpr::dice(3, 6)` is `3d6`).
    pub fn dice(count: u32, sides: u32) -> Self {
        Self {
            terms: vec![Term::Dice {
                count,
                sides,
                negative: false,
            }],
        }
    }

    /// The same expression with a flat modifier added.
    pub fn plus(mut self, modifier: i64) -> Self {
        if modifier != 0 {
            self.terms.push(Term::Flat(modifier));
        }
        self
    }

    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Least and greatest possible totals.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::dice::DiceExpr;
    ///
    /// assert_eq!(DiceExpr::dice(3, 6).range(), (3, 18));
    /// let expr: DiceExpr = "1d20-1d4+2".parse().unwrap();
    /// assert_eq!(expr.range(), (1 - 4 + 2, 20 - 1 + 2));
    /// ```
    pub fn range(&self) -> (i64, i64) {
        self.terms.iter().fold((0, 0), |(lo, hi), t| match *t {
            Term::Flat(n) => (lo + n, hi + n),
            Term::Dice {
                count,
                sides,
                negative,
            } => {
                let (a, b) = (count as i64, count as i64 * sides as i64);
                if negative {
                    (lo - b, hi - a)
                } else {
                    (lo + a, hi + b)
                }
            }
        })
    }
}

impl DiceExpr {
    /// The exact probability of every total, for previews (hit chance, expected damage).
    /// Expressions too large to convolve exactly (hundreds of many-sided dice) use a normal
    /// approximation with the same mean and variance.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::dice::DiceExpr;
    ///
    /// let two_d6 = DiceExpr::dice(2, 6).distribution();
    /// assert_eq!(two_d6.min, 2);
    /// assert_eq!(two_d6.probs.len(), 11);
    /// assert!((two_d6.at_least(7) - 21.0 / 36.0).abs() < 1e-12);
    /// assert!((two_d6.expect(|t| t as f64) - 7.0).abs() < 1e-12);
    ///
    /// // 1d20+4 against 15: an 11 or better on the die.
    /// let attack: DiceExpr = "1d20+4".parse().unwrap();
    /// assert!((attack.distribution().at_least(15) - 0.5).abs() < 1e-12);
    /// ```
    pub fn distribution(&self) -> Distribution {
        let (lo, hi) = self.range();
        let width = (hi - lo + 1) as u128;
        let work: u128 = self
            .terms
            .iter()
            .map(|t| match *t {
                Term::Dice { count, sides, .. } => count as u128 * sides as u128,
                Term::Flat(_) => 0,
            })
            .sum::<u128>()
            * width;
        if work > 20_000_000 {
            return self.normal_approximation();
        }
        // probs[i] = P(total == lo + i), built term by term.
        let mut probs = vec![1.0f64];
        let mut min = 0i64;
        for t in &self.terms {
            match *t {
                Term::Flat(n) => min += n,
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    for _ in 0..count {
                        let mut next = vec![0.0; probs.len() + sides as usize - 1];
                        let p = 1.0 / sides as f64;
                        for (i, &q) in probs.iter().enumerate() {
                            if q == 0.0 {
                                continue;
                            }
                            for f in 0..sides as usize {
                                next[i + f] += q * p;
                            }
                        }
                        probs = next;
                        // A subtracted die's faces are -sides..=-1: the same offsets from a
                        // minimum `sides` lower.
                        if negative {
                            min -= sides as i64;
                        } else {
                            min += 1;
                        }
                    }
                }
            }
        }
        Distribution { min, probs }
    }

    fn normal_approximation(&self) -> Distribution {
        let (lo, hi) = self.range();
        let (mut mean, mut var) = (0.0f64, 0.0f64);
        for t in &self.terms {
            match *t {
                Term::Flat(n) => mean += n as f64,
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    let m = (sides as f64 + 1.0) / 2.0;
                    let v = (sides as f64 * sides as f64 - 1.0) / 12.0;
                    mean += if negative { -m } else { m } * count as f64;
                    var += v * count as f64;
                }
            }
        }
        let sd = var.sqrt().max(1e-9);
        let (a, b) = (
            (mean - 6.0 * sd).floor().max(lo as f64) as i64,
            (mean + 6.0 * sd).ceil().min(hi as f64) as i64,
        );
        let mut probs: Vec<f64> = (a..=b)
            .map(|x| {
                let z = (x as f64 - mean) / sd;
                (-0.5 * z * z).exp()
            })
            .collect();
        let sum: f64 = probs.iter().sum();
        probs.iter_mut().for_each(|p| *p /= sum);
        Distribution { min: a, probs }
    }
}

/// The probability of each total of a [`DiceExpr`].
///
/// # Examples
///
/// ```
/// use fray::rules::dice::DiceExpr;
///
/// let d = DiceExpr::dice(1, 4).plus(1).distribution();
/// let totals: Vec<(i64, f64)> = d.iter().collect();
/// assert_eq!(totals, [(2, 0.25), (3, 0.25), (4, 0.25), (5, 0.25)]);
/// assert_eq!(d.at_most(3), 0.5);
/// assert_eq!(d.at_least(6), 0.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// The least total with a probability entry.
    pub min: i64,
    /// `probs[i]` is the probability of the total `min + i`.
    pub probs: Vec<f64>,
}

impl Distribution {
    /// Probability that the total is at least `n`.
    pub fn at_least(&self, n: i64) -> f64 {
        self.iter().filter(|&(t, _)| t >= n).map(|(_, p)| p).sum()
    }

    /// Probability that the total is at most `n`.
    pub fn at_most(&self, n: i64) -> f64 {
        self.iter().filter(|&(t, _)| t <= n).map(|(_, p)| p).sum()
    }

    /// The expected value of `f(total)`.
    pub fn expect(&self, f: impl Fn(i64) -> f64) -> f64 {
        self.iter().map(|(t, p)| p * f(t)).sum()
    }

    /// Every total with its probability, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.probs
            .iter()
            .enumerate()
            .map(move |(i, &p)| (self.min + i as i64, p))
    }
}

impl fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            match *t {
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    if negative {
                        write!(f, "-")?;
                    } else if i > 0 {
                        write!(f, "+")?;
                    }
                    write!(f, "{count}d{sides}")?;
                }
                Term::Flat(n) if n < 0 => write!(f, "{n}")?,
                Term::Flat(n) if i > 0 => write!(f, "+{n}")?,
                Term::Flat(n) => write!(f, "{n}")?,
            }
        }
        Ok(())
    }
}

impl FromStr for DiceExpr {
    type Err = DiceError;

    /// Parses `[+|-] term { (+|-) term }` where a term is `NdS`, `dS` (one die) or a whole
    /// number. Spaces are allowed between terms; `D` may be written for `d`.
    fn from_str(text: &str) -> Result<Self, DiceError> {
        let chars: Vec<char> = text.chars().collect();
        let err = |col: usize, message: String| DiceError {
            col: col + 1,
            message,
        };
        let mut terms = Vec::new();
        let mut i = 0;
        let skip_spaces = |i: &mut usize| {
            while *i < chars.len() && chars[*i].is_whitespace() {
                *i += 1;
            }
        };
        let number = |i: &mut usize| -> Option<(u64, usize)> {
            let start = *i;
            let mut n: u64 = 0;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                n = n
                    .saturating_mul(10)
                    .saturating_add(chars[*i] as u64 - '0' as u64);
                *i += 1;
            }
            (*i > start).then_some((n, start))
        };
        skip_spaces(&mut i);
        if i == chars.len() {
            return Err(err(
                0,
                "empty dice expression; write e.g. 3d6 or 1d20+4".into(),
            ));
        }
        loop {
            skip_spaces(&mut i);
            let mut negative = false;
            if i < chars.len() && (chars[i] == '+' || chars[i] == '-') {
                negative = chars[i] == '-';
                i += 1;
                skip_spaces(&mut i);
            } else if !terms.is_empty() {
                return Err(err(i, format!("expected + or - before '{}'", chars[i])));
            }
            let at = i;
            let count = number(&mut i);
            if i < chars.len() && (chars[i] == 'd' || chars[i] == 'D') {
                i += 1;
                let count = count.map_or(1, |(n, _)| n);
                let Some((sides, _)) = number(&mut i) else {
                    return Err(err(i, "expected the number of sides after 'd'".into()));
                };
                if count == 0 || count > MAX_DICE as u64 {
                    return Err(err(at, format!("roll 1 to {MAX_DICE} dice, not {count}")));
                }
                if sides < 2 || sides > MAX_SIDES as u64 {
                    return Err(err(
                        at,
                        format!("a die has 2 to {MAX_SIDES} sides, not {sides}"),
                    ));
                }
                terms.push(Term::Dice {
                    count: count as u32,
                    sides: sides as u32,
                    negative,
                });
            } else if let Some((n, _)) = count {
                if n as i64 > MAX_FLAT || n > MAX_FLAT as u64 {
                    return Err(err(at, format!("a modifier is at most {MAX_FLAT}")));
                }
                terms.push(Term::Flat(if negative { -(n as i64) } else { n as i64 }));
            } else {
                let found = chars
                    .get(i)
                    .map_or("the end".to_string(), |c| format!("'{c}'"));
                return Err(err(
                    i,
                    format!("expected dice like 2d6 or a number, found {found}"),
                ));
            }
            if terms.len() > MAX_TERMS {
                return Err(err(at, format!("at most {MAX_TERMS} terms")));
            }
            skip_spaces(&mut i);
            if i == chars.len() {
                return Ok(Self { terms });
            }
        }
    }
}

impl Serialize for DiceExpr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DiceExpr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The outcome of rolling a [`DiceExpr`]: every die as it came up, so a combat log can show it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Roll {
    /// The expression rolled, as text.
    pub expr: String,
    /// Each die's result, in order; dice of subtracted terms are listed too.
    pub dice: Vec<u32>,
    pub total: i64,
}

/// The battle's random number generator (see the module docs).
///
/// # Examples
///
/// The same seed rolls the same dice, on every machine:
///
/// ```
/// use fray::rules::dice::{BattleRng, DiceExpr};
///
/// let expr: DiceExpr = "3d6+1".parse().unwrap();
/// let mut rng = BattleRng::new(2001);
/// let first = rng.roll(&expr);
/// assert_eq!(first.expr, "3d6+1");
/// // ChaCha8 and a portable draw: seed 2001 starts 5, 4, 1 everywhere.
/// assert_eq!(first.dice, [5, 4, 1]);
/// assert_eq!(first.total, 11);
/// // A second generator with the same seed repeats the whole stream.
/// let mut again = BattleRng::new(2001);
/// assert_eq!(again.roll(&expr), first);
/// // A clone goes on from where the original stands.
/// let mut copy = rng.clone();
/// assert_eq!(copy.roll(&expr), rng.roll(&expr));
/// assert_eq!(rng.dice_rolled(), 6);
/// ```
///
/// A dice tape forces the next results, as a worked example of a rules text needs:
///
/// ```
/// use fray::rules::dice::{BattleRng, DiceExpr};
///
/// let mut rng = BattleRng::with_tape(1, [6, 6, 1]);
/// let roll = rng.roll(&DiceExpr::dice(3, 6));
/// assert_eq!((roll.dice, roll.total), (vec![6, 6, 1], 13));
/// assert_eq!(rng.tape_left(), 0);
///
/// // A value that cannot come up on the die is clamped, and counted as a fault.
/// let mut wrong = BattleRng::with_tape(1, [9]);
/// assert_eq!(wrong.die(6), 6);
/// assert_eq!(wrong.tape_faults(), 1);
/// ```
#[derive(Debug)]
pub struct BattleRng {
    seed: u64,
    rng: ChaCha8Rng,
    tape: VecDeque<u32>,
    tape_faults: u32,
    rolled: u64,
}

impl BattleRng {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            tape: VecDeque::new(),
            tape_faults: 0,
            rolled: 0,
        }
    }

    /// A generator whose next dice are forced, in order, by `tape`; after the tape runs out,
    /// dice come from the seeded generator again.
    pub fn with_tape(seed: u64, tape: impl IntoIterator<Item = u32>) -> Self {
        let mut rng = Self::new(seed);
        rng.tape = tape.into_iter().collect();
        rng
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Dice rolled since the generator was made or loaded (forced by the tape or drawn): when
    /// none were, what happened since depended on no dice. Not saved.
    pub fn dice_rolled(&self) -> u64 {
        self.rolled
    }

    /// Forced results not used yet.
    pub fn tape_left(&self) -> usize {
        self.tape.len()
    }

    /// How many tape values did not fit the die they were used for (see the module docs).
    pub fn tape_faults(&self) -> u32 {
        self.tape_faults
    }

    /// One die with `sides` sides (at least 1): 1 to `sides`.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::dice::BattleRng;
    ///
    /// let mut rng = BattleRng::new(7);
    /// let rolls: Vec<u32> = (0..1000).map(|_| rng.die(20)).collect();
    /// assert!(rolls.iter().all(|r| (1..=20).contains(r)));
    /// assert!(rolls.contains(&1) && rolls.contains(&20));
    /// assert_eq!(rng.die(1), 1);
    /// ```
    pub fn die(&mut self, sides: u32) -> u32 {
        let sides = sides.max(1);
        self.rolled += 1;
        match self.tape.pop_front() {
            Some(v) if (1..=sides).contains(&v) => v,
            Some(v) => {
                self.tape_faults += 1;
                v.clamp(1, sides)
            }
            None => self.rng.random_range(1..=sides),
        }
    }

    /// Rolls an expression: every die in order (those of subtracted terms too), and the total.
    ///
    /// # Examples
    ///
    /// ```
    /// use fray::rules::dice::{BattleRng, DiceExpr};
    ///
    /// let mut rng = BattleRng::with_tape(5, [4, 3]);
    /// let roll = rng.roll(&"1d8-1d6+2".parse::<DiceExpr>().unwrap());
    /// assert_eq!(roll.dice, [4, 3]);
    /// assert_eq!(roll.total, 4 - 3 + 2);
    /// ```
    pub fn roll(&mut self, expr: &DiceExpr) -> Roll {
        let mut dice = Vec::new();
        let mut total = 0i64;
        for term in expr.terms() {
            match *term {
                Term::Flat(n) => total += n,
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    for _ in 0..count {
                        let v = self.die(sides);
                        dice.push(v);
                        total += if negative { -(v as i64) } else { v as i64 };
                    }
                }
            }
        }
        Roll {
            expr: expr.to_string(),
            dice,
            total,
        }
    }
}

/// Rebuilds the generator at the same stream position (ChaCha8Rng is not `Clone` in
/// chacha20 0.10). A battle is cloned for every AI look-ahead, so this is a real path.
impl Clone for BattleRng {
    fn clone(&self) -> Self {
        Self {
            seed: self.seed,
            rng: rng_at(self.seed, self.rng.get_word_pos()),
            tape: self.tape.clone(),
            tape_faults: self.tape_faults,
            rolled: self.rolled,
        }
    }
}

fn rng_at(seed: u64, word_pos: u128) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_word_pos(word_pos);
    rng
}

/// The serialized form: seed, stream position (as two `u64` halves: RON has no `u128`), and
/// the unused tape.
#[derive(Serialize, Deserialize)]
struct RngState {
    seed: u64,
    word_pos: (u64, u64),
    tape: Vec<u32>,
    tape_faults: u32,
}

impl Serialize for BattleRng {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pos = self.rng.get_word_pos();
        RngState {
            seed: self.seed,
            word_pos: ((pos >> 64) as u64, pos as u64),
            tape: self.tape.iter().copied().collect(),
            tape_faults: self.tape_faults,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for BattleRng {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let state = RngState::deserialize(d)?;
        let word_pos = ((state.word_pos.0 as u128) << 64) | state.word_pos.1 as u128;
        Ok(Self {
            seed: state.seed,
            rng: rng_at(state.seed, word_pos),
            tape: state.tape.into(),
            tape_faults: state.tape_faults,
            rolled: 0,
        })
    }
}

#[cfg(test)]
mod tests;
