//! Bevy game layer.
