//! Matching expected battle events against actual ones, both as [`Node`] trees.
//!
//! A scenario lists the events a battle must produce. Expected events are written by hand and
//! read by [`parse`](super::tree::parse); actual events are turned into trees by
//! [`to_tree`](super::to_tree::to_tree), which gives the tree that printing them with
//! `ron::to_string` (default options) and parsing the text gave. [`matches()`] decides whether an
//! expected node describes an actual one, and [`find_subsequence`] checks a whole list of
//! expected events against the actual log.
//!
//! # Matching rules
//! An expected event lists only the fields the writer cares about. [`matches()`] applies these
//! rules, recursively:
//! - **Names.** A named node (`Moved(..)`) matches only a node of the same name. A plain struct or
//!   an unnamed tuple carries no name (ron writes none), so on either side it is compatible with
//!   any name, except that `Some(..)` never stands in for an unnamed tuple.
//! - **Subset of fields.** Every field the expected node lists must be present in the actual node
//!   and match; fields the expected node leaves out are ignored. A bare name matches every node
//!   of that name whatever its fields: expected `Moved` or `Moved()` matches
//!   `Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))`.
//! - **Tuples** match item by item, by position. The expected tuple may list fewer items than the
//!   actual one (the rest are ignored) but not more.
//! - **Lists are exact:** same length, elements matched in order. `dice: [4, 2]` means exactly
//!   those two dice.
//! - **Maps are a subset:** every expected key must be present in the actual map, with a matching
//!   value.
//! - **Optional `Some`.** Expected `Some(x)` matches actual `Some(y)` when `x` matches `y`. A bare
//!   expected `x` also matches actual `Some(y)`, so writers may leave out `Some`:
//!   `target: 13` matches `target:Some(13)`. `None` matches only `None`. Newtypes are transparent
//!   the same way: expected `3` matches actual `(3)`.
//! - **Numbers.** An integer matches an equal integer. Floats compare exactly (no tolerance); an
//!   integer and a float match when they are numerically equal (`2` matches `2.0`); `NaN` matches
//!   `NaN`. Strings, booleans and bare names compare exactly.
//! - **Unit and side names.** Ids serialize as numbers, but a scenario may name them: an expected
//!   string `"Boudica"` matches an actual integer `n` when entry `n` of the name table is
//!   `"Boudica"`. The table is chosen by the name of the field the value sits in (looking through
//!   `Some`, lists, unnamed tuples and maps): a field whose name contains `side`, or is `winner`,
//!   uses [`Names::sides`]; every other field, and a value outside any field, uses
//!   [`Names::units`].
//! - **Cell shorthand.** A cell serializes as `(x:3,y:4)`; an expected unnamed pair `(3, 4)`
//!   matches any struct with fields `x` and `y`, as `(x: 3, y: 4)`.
//!
//! A failed match gives a [`Mismatch`]: the path to the first difference (`Rolled.dice[1]`,
//! `Moved.to.x`, `Sides.Spent.unit`) and a message (`expected 4, found 5`).
//!
//! # Event sequences
//! [`find_subsequence`] requires the expected events to appear in the actual log in the same
//! order, but not contiguously: other events may come between them. Each expected event is
//! matched against the first matching actual event after the previous match. When one cannot be
//! found, the [`SeqMismatch`] names it and, as the closest candidate, the first later actual event
//! with the same name together with the reason it did not match; it also points out an earlier
//! actual event that would have matched (the events were out of order).

use super::tree::{Node, quote, render, short};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/// Unit and side names, by index: `units[3]` is the name of unit 3.
pub use crate::rules::battle::Names;

/// Why an expected node does not match an actual one: where (`Rolled.dice[1]`; empty at the
/// top) and what (`expected 4, found 5`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Mismatch {}

/// Whether `expected` describes `actual`, by the rules in the module documentation.
pub fn matches(expected: &Node, actual: &Node, names: &Names) -> Result<(), Mismatch> {
    let path = match (expected.name(), actual.name()) {
        (Some(e), Some(a)) if e == a => e,
        _ => "",
    };
    Matcher { names }.node(expected, actual, path, None)
}

struct Matcher<'n> {
    names: &'n Names,
}

fn fail(path: &str, message: String) -> Result<(), Mismatch> {
    Err(Mismatch {
        path: path.to_string(),
        message,
    })
}

fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_string()
    } else {
        format!("{path}.{segment}")
    }
}

/// A name that stands for "any node of this name": `Victory`, `Moved()`.
fn name_only(node: &Node) -> Option<&str> {
    match node {
        Node::Ident(name) => Some(name),
        Node::Named { name, fields } if fields.is_empty() && !name.is_empty() => Some(name),
        Node::Tuple {
            name: Some(name),
            items,
        } if items.is_empty() => Some(name),
        _ => None,
    }
}

/// Whether a field's values are side ids (else unit ids).
fn holds_sides(field: &str) -> bool {
    let field = field.to_ascii_lowercase();
    field.contains("side") || field == "winner"
}

fn tuple_names_compatible(expected: Option<&str>, actual: Option<&str>) -> bool {
    match (expected, actual) {
        (Some(e), Some(a)) => e == a,
        (Some(n), None) | (None, Some(n)) => n != "Some",
        (None, None) => true,
    }
}

fn field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a Node> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

impl Matcher<'_> {
    fn node(
        &self,
        e: &Node,
        a: &Node,
        path: &str,
        field_name: Option<&str>,
    ) -> Result<(), Mismatch> {
        if let Some(name) = name_only(e)
            && a.name() == Some(name)
        {
            return Ok(());
        }
        // `Some(y)` and newtypes `(y)` are transparent to an expected value that is not the same
        // kind of wrapper.
        if let Node::Tuple {
            name: an,
            items: ai,
        } = a
            && let [inner] = ai.as_slice()
            && matches!(an.as_deref(), None | Some("Some"))
        {
            let same_wrapper =
                matches!(e, Node::Tuple { name: en, items: ei } if en == an && ei.len() == 1);
            if !same_wrapper {
                let result = self.node(e, inner, path, field_name);
                if result.is_err() && matches!(e, Node::Ident(_)) {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                }
                return result;
            }
        }
        match (e, a) {
            (
                Node::Named {
                    name: en,
                    fields: ef,
                },
                Node::Named {
                    name: an,
                    fields: af,
                },
            ) => {
                if !en.is_empty() && !an.is_empty() && en != an {
                    return fail(path, format!("expected `{en}(..)`, found {}", short(a)));
                }
                for (f, ev) in ef {
                    let Some(av) = field(af, f) else {
                        return fail(path, format!("field `{f}` is missing from {}", short(a)));
                    };
                    self.node(ev, av, &join(path, f), Some(f))?;
                }
                Ok(())
            }
            (
                Node::Tuple {
                    name: en,
                    items: ei,
                },
                Node::Tuple {
                    name: an,
                    items: ai,
                },
            ) => {
                if !tuple_names_compatible(en.as_deref(), an.as_deref()) {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                }
                if ei.len() > ai.len() {
                    return fail(
                        path,
                        format!(
                            "expected {} items, found only {} in {}",
                            ei.len(),
                            ai.len(),
                            short(a)
                        ),
                    );
                }
                // Items of a named tuple variant start a new context; those of `Some` or an
                // unnamed tuple stay in the enclosing field.
                let named = [en, an]
                    .iter()
                    .any(|n| n.as_deref().is_some_and(|n| n != "Some"));
                let inner_field = if named { None } else { field_name };
                // `Some` adds nothing to the path; the item of a newtype variant is named after
                // its own variant (`Sides.Spent.unit`); other items by position (`Hit.1`).
                let is_some = en.as_deref() == Some("Some");
                for (i, (ev, av)) in ei.iter().zip(ai).enumerate() {
                    let item_path = match ev.name() {
                        _ if is_some => path.to_string(),
                        Some(n) if ei.len() == 1 && ai.len() == 1 => join(path, n),
                        _ => join(path, &i.to_string()),
                    };
                    self.node(ev, av, &item_path, inner_field)?;
                }
                Ok(())
            }
            (
                Node::Tuple {
                    name: None,
                    items: ei,
                },
                Node::Named { fields: af, .. },
            ) if ei.len() == 2 => {
                let (Some(x), Some(y)) = (field(af, "x"), field(af, "y")) else {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                };
                self.node(&ei[0], x, &join(path, "x"), field_name)?;
                self.node(&ei[1], y, &join(path, "y"), field_name)
            }
            (Node::List(el), Node::List(al)) => {
                if el.len() != al.len() {
                    return fail(
                        path,
                        format!(
                            "expected {} elements, found {}: {}",
                            el.len(),
                            al.len(),
                            short(a)
                        ),
                    );
                }
                for (i, (ev, av)) in el.iter().zip(al).enumerate() {
                    self.node(ev, av, &format!("{path}[{i}]"), field_name)?;
                }
                Ok(())
            }
            (Node::Map(em), Node::Map(am)) => {
                for (ek, ev) in em {
                    let found = am
                        .iter()
                        .find(|(ak, _)| self.node(ek, ak, path, field_name).is_ok());
                    let Some((_, av)) = found else {
                        return fail(
                            path,
                            format!("key {} is missing from {}", short(ek), short(a)),
                        );
                    };
                    self.node(ev, av, &format!("{path}[{}]", short(ek)), field_name)?;
                }
                Ok(())
            }
            (Node::Str(s), Node::Int(n)) => self.name_of(s, *n, path, field_name),
            (Node::Str(x), Node::Str(y)) if x == y => Ok(()),
            (Node::Bool(x), Node::Bool(y)) if x == y => Ok(()),
            (Node::Ident(x), Node::Ident(y)) if x == y => Ok(()),
            (Node::Int(x), Node::Int(y)) if x == y => Ok(()),
            (Node::Float(x), Node::Float(y)) if x == y || (x.is_nan() && y.is_nan()) => Ok(()),
            (Node::Int(x), Node::Float(y)) | (Node::Float(y), Node::Int(x)) if *x as f64 == *y => {
                Ok(())
            }
            _ => fail(path, format!("expected {}, found {}", short(e), short(a))),
        }
    }

    /// An expected name against an actual id.
    fn name_of(
        &self,
        expected: &str,
        id: i64,
        path: &str,
        field_name: Option<&str>,
    ) -> Result<(), Mismatch> {
        let (table, kind) = if field_name.is_some_and(holds_sides) {
            (&self.names.sides, "side")
        } else {
            (&self.names.units, "unit")
        };
        match usize::try_from(id).ok().and_then(|i| table.get(i)) {
            Some(name) if name == expected => Ok(()),
            Some(name) => fail(
                path,
                format!(
                    "expected {}, found {kind} {id} ({})",
                    quote(expected),
                    quote(name)
                ),
            ),
            None => fail(
                path,
                format!(
                    "expected {}, found {kind} {id}, which has no name ({} {kind} names known)",
                    quote(expected),
                    table.len()
                ),
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sequences
// ---------------------------------------------------------------------------------------------

/// The actual event that came closest to an expected one that was not found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Index in the actual events.
    pub index: usize,
    /// The actual event, rendered.
    pub actual: String,
    /// Why it does not match.
    pub mismatch: Mismatch,
}

/// An expected event that could not be found in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqMismatch {
    /// Index of the expected event that was not found.
    pub index: usize,
    /// That expected event, rendered.
    pub expected: String,
    /// Index of the actual event that matched the previous expected event; the search started
    /// right after it. `None` when the search started at the first actual event.
    pub after: Option<usize>,
    /// The first actual event after `after` with the same name as the expected one, and why it
    /// does not match; `None` when there is no such event. (Boxed to keep the error small.)
    pub candidate: Option<Box<Candidate>>,
    /// An actual event at or before `after` that does match: the events are out of order.
    pub earlier: Option<usize>,
}

impl fmt::Display for SeqMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected event #{} `{}` was not found",
            self.index, self.expected
        )?;
        match self.after {
            Some(after) => write!(f, " after actual event #{after} (the previous match)")?,
            None => write!(f, " among the actual events")?,
        }
        match &self.candidate {
            Some(c) => write!(
                f,
                "\n  closest: actual event #{} `{}`\n  differs at {}",
                c.index, c.actual, c.mismatch
            )?,
            None => write!(f, "\n  no later actual event has the same name")?,
        }
        if let Some(earlier) = self.earlier {
            write!(
                f,
                "\n  note: actual event #{earlier} matches, but comes too early (out of order)"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for SeqMismatch {}

/// Checks that the `expected` events occur in `actual` in order, not necessarily contiguously.
/// Each expected event takes the first matching actual event after the previous match.
pub fn find_subsequence(
    expected: &[Node],
    actual: &[Node],
    names: &Names,
) -> Result<(), SeqMismatch> {
    let mut start = 0;
    let mut after = None;
    for (index, e) in expected.iter().enumerate() {
        let found = actual
            .iter()
            .enumerate()
            .skip(start)
            .find(|(_, a)| matches(e, a, names).is_ok());
        if let Some((j, _)) = found {
            after = Some(j);
            start = j + 1;
            continue;
        }
        let candidate = e.name().and_then(|name| {
            let (j, a) = actual
                .iter()
                .enumerate()
                .skip(start)
                .find(|(_, a)| a.name() == Some(name))?;
            let mismatch = matches(e, a, names).err()?;
            Some(Box::new(Candidate {
                index: j,
                actual: render(a),
                mismatch,
            }))
        });
        let earlier = actual
            .iter()
            .take(start)
            .position(|a| matches(e, a, names).is_ok());
        return Err(SeqMismatch {
            index,
            expected: render(e),
            after,
            candidate,
            earlier,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
