//! Helpers shared by the scenario matcher's tests: short constructors for trees, a name table,
//! sample event types shaped like the battle's, and a proptest strategy for arbitrary trees.

use super::matcher::{Mismatch, Names, matches};
use super::tree::{Node, parse};
use proptest::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) fn p(text: &str) -> Node {
    match parse(text) {
        Ok(node) => node,
        Err(e) => panic!("parse of {text:?} failed: {e}"),
    }
}

pub(crate) fn named(name: &str, fields: Vec<(&str, Node)>) -> Node {
    Node::Named {
        name: name.to_string(),
        fields: fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

pub(crate) fn tuple(name: Option<&str>, items: Vec<Node>) -> Node {
    Node::Tuple {
        name: name.map(str::to_string),
        items,
    }
}

pub(crate) fn ident(s: &str) -> Node {
    Node::Ident(s.to_string())
}

pub(crate) fn some(n: Node) -> Node {
    tuple(Some("Some"), vec![n])
}

pub(crate) fn names() -> Names {
    Names {
        units: ["Boudica", "Caesar", "Orc 1", "Orc 2"]
            .map(String::from)
            .to_vec(),
        sides: ["Iceni", "Romans"].map(String::from).to_vec(),
    }
}

/// `matches` on two texts.
pub(crate) fn m(expected: &str, actual: &str) -> Result<(), Mismatch> {
    matches(&p(expected), &p(actual), &names())
}

pub(crate) fn mismatch(expected: &str, actual: &str) -> Mismatch {
    match m(expected, actual) {
        Ok(()) => panic!("{expected} unexpectedly matches {actual}"),
        Err(e) => e,
    }
}

pub(crate) const ROLLED: &str =
    "Rolled(unit:Some(3),purpose:Attack,dice:[4,2,6],total:15,target:Some(13),success:Some(true))";

#[derive(Serialize)]
pub(crate) struct Cell {
    x: i32,
    y: i32,
}

#[derive(Serialize)]
pub(crate) enum Purpose {
    Attack,
}

#[derive(Serialize)]
pub(crate) enum Action {
    Main,
}

#[derive(Serialize)]
pub(crate) enum SideEvent {
    Spent { unit: u16, action: Action },
}

#[derive(Serialize)]
pub(crate) struct Id(pub(crate) u16);

#[derive(Serialize)]
pub(crate) enum Event {
    RoundStarted {
        round: u32,
    },
    Moved {
        unit: u16,
        from: Cell,
        to: Cell,
    },
    Rolled {
        unit: Option<u16>,
        purpose: Purpose,
        dice: Vec<u8>,
        total: i32,
        target: Option<i32>,
        success: Option<bool>,
    },
    Victory,
    Sides(SideEvent),
    Said {
        unit: Id,
        text: String,
        mood: char,
    },
    Scaled(u8, f32, ()),
    Path {
        cells: Vec<Cell>,
        by_kind: BTreeMap<String, i64>,
        none: Option<u8>,
    },
}

pub(crate) fn real_events() -> Vec<Event> {
    vec![
        Event::RoundStarted { round: 2 },
        Event::Moved {
            unit: 2,
            from: Cell { x: 3, y: 4 },
            to: Cell { x: 4, y: 4 },
        },
        Event::Rolled {
            unit: Some(3),
            purpose: Purpose::Attack,
            dice: vec![4, 2, 6],
            total: 15,
            target: Some(13),
            success: Some(true),
        },
        Event::Victory,
        Event::Sides(SideEvent::Spent {
            unit: 1,
            action: Action::Main,
        }),
        Event::Said {
            unit: Id(0),
            text: "He said \"charge\"\n".into(),
            mood: 'é',
        },
        Event::Scaled(3, -1.5, ()),
        Event::Path {
            cells: vec![Cell { x: 0, y: -1 }, Cell { x: 1, y: 0 }],
            by_kind: BTreeMap::from([("hits".to_string(), 2), ("misses".to_string(), -1)]),
            none: None,
        },
    ]
}

pub(crate) fn arb_node() -> impl Strategy<Value = Node> {
    let name = "[A-Z][a-z]{0,6}";
    let leaf = prop_oneof![
        any::<i64>().prop_map(Node::Int),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
            .prop_map(Node::Float),
        any::<bool>().prop_map(Node::Bool),
        any::<String>().prop_map(Node::Str),
        name.prop_map(Node::Ident),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Node::List),
            (
                proptest::option::of(name),
                proptest::collection::vec(inner.clone(), 0..5)
            )
                .prop_map(|(name, items)| Node::Tuple { name, items }),
            (
                prop_oneof![Just(String::new()), name.prop_map(String::from)],
                proptest::collection::btree_map("[a-z_][a-z0-9_]{0,5}", inner.clone(), 1..5)
            )
                .prop_map(|(name, fields)| Node::Named {
                    name,
                    fields: fields.into_iter().collect()
                }),
            // At most one entry: with several, an expected key can match an earlier actual
            // key (`1` and `Some(1)`), so a map need not match itself.
            proptest::collection::vec((inner.clone(), inner), 0..2).prop_map(Node::Map),
        ]
    })
}
