//! Fray: tabletop-RPG combat on hex and square grids.
//!
//! The crate is layered as `docs/architecture.md` describes:
//! - [`rules`]: the pure, deterministic rules engine (no Bevy): grids, sight and cover,
//!   movement, levels.
//! - [`ai`]: the AI players (utility AI and two baselines), pure like the rules.
//! - [`cli`]: the headless commands behind the `fray` binary.
//! - [`balance`]: is a level fair? Counting AI-against-itself games, and the editor's
//!   background balance meter; pure.
//! - [`saves`]: saved battles (format, slots, the checks before one is resumed), pure.
//! - `game` (feature `game`): the Bevy front end.

pub mod ai;
pub mod balance;
pub mod cli;
pub mod rules;
pub mod saves;

#[cfg(feature = "game")]
pub mod game;

/// The repository folder, for the tests (unit and integration) that read `levels/` or
/// `tests/scenarios/`: the `CARGO_MANIFEST_DIR` cargo sets when it *runs* the test, else the one
/// it was compiled in. The run-time one stays right when a build cache shared between clones
/// reuses a test binary compiled in another clone (which then reads a folder that may be gone).
#[doc(hidden)]
pub fn repo_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The shipped levels, `levels/*.ron` of the repository, sorted by name (for tests).
#[cfg(test)]
pub(crate) fn shipped_levels() -> Vec<std::path::PathBuf> {
    let dir = repo_dir().join("levels");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "ron"));
    files.sort();
    files
}
