//! Unit and side identifiers.
//!
//! Both serialize as plain numbers (their index in the battle). When reading a scenario or a
//! replay, a name may stand in for the number: `Attack(unit: "Boudica", target: "Orc 1")`.
//! Names resolve against the table installed by [`with_names`] for the duration of a parse.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::fmt;

/// A unit: its index in the level's `units` list. Its `Debug` form is `UnitId(3)`, or the
/// unit's quoted name while [`with_names`] has a table installed (messages about commands).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitId(pub u16);

/// A side: its index in the level's `sides` list. `Debug` as for [`UnitId`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SideId(pub u8);

/// The installed name of entry `i` (a unit's, or a side's), if any.
fn installed_name(i: usize, units: bool) -> Option<String> {
    NAMES.with(|n| {
        let n = n.try_borrow().ok()?;
        let names = n.as_ref()?;
        let list = if units { &names.units } else { &names.sides };
        list.get(i).cloned()
    })
}

impl fmt::Debug for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match installed_name(self.index(), true) {
            Some(name) => write!(f, "{name:?}"),
            None => write!(f, "UnitId({})", self.0),
        }
    }
}

impl fmt::Debug for SideId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match installed_name(self.index(), false) {
            Some(name) => write!(f, "{name:?}"),
            None => write!(f, "SideId({})", self.0),
        }
    }
}

impl UnitId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One value per unit, indexed by [`UnitId`]: a ruleset's per-unit bookkeeping. A unit that
/// is not there reads as `None` (never a panic); serializes as a plain list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PerUnit<T>(Vec<T>);

impl<T> Default for PerUnit<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> PerUnit<T> {
    /// No units yet.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// `value` for each of `n` units.
    pub fn filled(n: usize, value: T) -> Self
    where
        T: Clone,
    {
        Self(vec![value; n])
    }

    /// The values of units 0, 1, 2... in order.
    pub fn from_vec(values: Vec<T>) -> Self {
        Self(values)
    }

    /// The value of unit `u`.
    pub fn get(&self, u: UnitId) -> Option<&T> {
        self.0.get(u.index())
    }

    /// The value of unit `u`, to change.
    pub fn get_mut(&mut self, u: UnitId) -> Option<&mut T> {
        self.0.get_mut(u.index())
    }

    /// Sets unit `u`'s value (nothing happens for a unit that is not there).
    pub fn set(&mut self, u: UnitId, value: T) {
        if let Some(slot) = self.0.get_mut(u.index()) {
            *slot = value;
        }
    }

    /// Sets unit `u`'s value, making room for it first (a reinforcement that joined the
    /// battle: the units before it that had no value get `value` too).
    pub fn put(&mut self, u: UnitId, value: T)
    where
        T: Clone,
    {
        if self.0.len() <= u.index() {
            self.0.resize(u.index() + 1, value.clone());
        }
        self.0[u.index()] = value;
    }

    /// How many units.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each unit with its value, in unit order.
    pub fn iter(&self) -> impl Iterator<Item = (UnitId, &T)> {
        self.0
            .iter()
            .enumerate()
            .map(|(i, v)| (UnitId(i as u16), v))
    }

    /// The values in unit order.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// The values in unit order, to change.
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.0.iter_mut()
    }
}

impl SideId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unit {}", self.0)
    }
}

impl fmt::Display for SideId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "side {}", self.0)
    }
}

/// The names ids may be written as while parsing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    pub units: Vec<String>,
    pub sides: Vec<String>,
}

thread_local! {
    static NAMES: RefCell<Option<Names>> = const { RefCell::new(None) };
}

/// Runs `f` with `names` installed: a parse (`ron::from_str`) resolves written names with
/// them, and `{:?}` of a command inside `f` names its units (`Attack { unit: "Mira", ... }`).
pub fn with_names<T>(names: Names, f: impl FnOnce() -> T) -> T {
    let previous = NAMES.with(|n| n.replace(Some(names)));
    let out = f();
    NAMES.with(|n| *n.borrow_mut() = previous);
    out
}

fn lookup(name: &str, units: bool) -> Result<usize, String> {
    NAMES.with(|n| {
        let n = n.borrow();
        let Some(names) = n.as_ref() else {
            return Err(format!(
                "'{name}' is a name, but names cannot be used here; write the number"
            ));
        };
        let (list, what) = if units {
            (&names.units, "unit")
        } else {
            (&names.sides, "side")
        };
        list.iter().position(|u| u == name).ok_or_else(|| {
            format!(
                "no {what} is named '{name}'; the {what}s are: {}",
                list.iter()
                    .map(|s| format!("'{s}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    })
}

struct IdVisitor {
    units: bool,
}

impl Visitor<'_> for IdVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.units {
            "a unit number or name"
        } else {
            "a side number or name"
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<usize, E> {
        let max = if self.units {
            u16::MAX as u64
        } else {
            u8::MAX as u64
        };
        if v > max {
            return Err(E::custom(format!("{v} is too large an id")));
        }
        Ok(v as usize)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<usize, E> {
        if v < 0 {
            return Err(E::custom(format!("{v} is not an id (ids start at 0)")));
        }
        self.visit_u64(v as u64)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        lookup(v, self.units).map_err(E::custom)
    }
}

impl Serialize for UnitId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.0)
    }
}

impl<'de> Deserialize<'de> for UnitId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IdVisitor { units: true })
            .map(|i| UnitId(i as u16))
    }
}

impl Serialize for SideId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

impl<'de> Deserialize<'de> for SideId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IdVisitor { units: false })
            .map(|i| SideId(i as u8))
    }
}
