//! Movement range and paths (being built).
