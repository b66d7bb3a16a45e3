//! Fray: tabletop-RPG combat on hex and square grids.
//!
//! The crate is layered as `../shared/ARCHITECTURE.md` describes:
//! - [`rules`]: the pure, deterministic rules engine (no Bevy): grids, sight and cover,
//!   movement, levels.
//! - [`cli`]: the headless commands behind the `fray` binary.
//! - `game` (feature `game`): the Bevy front end.

pub mod cli;
pub mod rules;

#[cfg(feature = "game")]
pub mod game;
