//! Fray: tabletop-RPG combat on hex and square grids.
//!
//! The crate is layered as `../shared/ARCHITECTURE.md` describes:
//! - [`rules`]: the pure, deterministic rules engine (no Bevy): grids, sight and cover,
//!   movement, levels.
//! - [`ai`]: the AI players (utility AI and two baselines), pure like the rules.
//! - [`cli`]: the headless commands behind the `fray` binary.
//! - `game` (feature `game`): the Bevy front end.

pub mod ai;
pub mod cli;
pub mod rules;

#[cfg(feature = "game")]
pub mod game;
