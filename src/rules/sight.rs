//! Line of sight and cover (being built).
