//! The rules engine: pure Rust, deterministic, never imports Bevy.

pub mod battle;
pub mod dice;
pub mod fog;
pub mod grid;
pub mod level;
pub mod map;
pub mod path;
pub mod reference;
pub mod replay;
pub mod ruleset_data;
pub mod rulesets;
pub mod scenario;
pub mod sight;
pub mod threat;

#[cfg(test)]
pub(crate) mod testkit;
