//! [`to_tree`] must give exactly the tree that printing with `ron::to_string` and reading the
//! text back with [`parse`] gives: these tests compare the two on values of every shape, on
//! everything a battle emits, and on arbitrary primitives.

use super::*;
use crate::ai::Kind;
use crate::ai::sim::{self, Caps};
use crate::rules::battle::{
    Action, BattleState, Command, Decision, Event, Intent, Interrupt, Purpose, Reaction, SideId,
    Status, Trigger, UnitId,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::sides;
use crate::rules::scenario::test_support::{self, named, p, some, tuple};
use crate::rules::scenario::tree::parse;
use proptest::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// The old way: print with ron, read back with the parser.
fn via_ron<T: Serialize + ?Sized>(value: &T) -> Result<Node, String> {
    let text = ron::to_string(value).map_err(|e| format!("ron: {e}"))?;
    parse(&text).map_err(|e| format!("parse of {text}: {e}"))
}

/// `Debug` text of a tree: tells `Int(2)` from `Float(2.0)` and `-0.0` from `0.0`, and shows
/// NaN equal to NaN, which `PartialEq` does not.
fn exact(node: &Node) -> String {
    format!("{node:?}")
}

/// Asserts that both ways give the same tree, and returns it.
#[track_caller]
fn same<T: Serialize + ?Sized + fmt::Debug>(value: &T) -> Node {
    let old = via_ron(value).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    let new = to_tree(value).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    assert_eq!(exact(&new), exact(&old), "{value:?}");
    new
}

fn cell(x: i32, y: i32) -> Cell {
    Cell { x, y }
}

fn cell_node(x: i64, y: i64) -> Node {
    named("", vec![("x", Node::Int(x)), ("y", Node::Int(y))])
}

#[test]
fn commands() {
    let u = UnitId(2);
    let commands = [
        Command::Move {
            unit: u,
            to: cell(3, -4),
        },
        Command::Attack {
            unit: u,
            target: UnitId(0),
            ranged: true,
        },
        Command::Act {
            unit: u,
            action: Action::Cast {
                target: UnitId(1),
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
        Command::Act {
            unit: u,
            action: Action::StandUp,
        },
        Command::EndTurn { unit: u },
        Command::Declare {
            unit: u,
            intent: Intent::Spell {
                target: UnitId(5),
                spell: crate::rules::battle::Spell::MagicMissile,
            },
        },
        Command::React {
            unit: u,
            reaction: Reaction::Abort {
                action: Action::Charge {
                    target: UnitId(1),
                    to: cell(0, 0),
                },
            },
        },
    ];
    for c in &commands {
        same(c);
    }
    assert_eq!(
        same(&commands[0]),
        named(
            "Move",
            vec![("unit", Node::Int(2)), ("to", cell_node(3, -4))]
        )
    );
    assert_eq!(
        same(&commands[6]),
        p("React(unit:2,reaction:Abort(action:Charge(target:1,to:(x:0,y:0))))")
    );
}

#[test]
fn events_of_every_shape() {
    let unit_variant = Event::Resumed;
    let struct_variant = Event::Rolled {
        unit: Some(UnitId(3)),
        side: None,
        purpose: Purpose::Attack,
        expr: "2d6+1".into(),
        dice: vec![4, 2],
        total: 7,
        against: Some(-13),
        success: Some(true),
    };
    let newtype_of_newtype_variant =
        <sides::Sides as crate::rules::rulesets::Member>::event(sides::Ev::Disengaged {
            unit: UnitId(1),
            from: vec![UnitId(0), UnitId(3)],
        });
    let unit_in_newtype_variant =
        <sides::Sides as crate::rules::rulesets::Member>::event(sides::Ev::RoundReset);
    let newtype_of_struct = Event::Interrupted(Interrupt {
        trigger: Trigger::Opportunity {
            mover: UnitId(0),
            from: cell(1, 1),
            to: cell(1, 2),
        },
        reactors: vec![UnitId(4)],
        resume: <sides::Sides as crate::rules::rulesets::Member>::resume(sides::After::Deferred),
    });
    let decision_with_none = Decision::Over { winner: None };
    for e in [
        &unit_variant,
        &struct_variant,
        &newtype_of_newtype_variant,
        &unit_in_newtype_variant,
        &newtype_of_struct,
        &Event::Status {
            unit: UnitId(1),
            status: Status::Down,
        },
        &Event::Ended {
            winner: Some(SideId(1)),
            reason: "the \"Romans\"\nfled".into(),
        },
    ] {
        same(e);
    }
    assert_eq!(same(&unit_variant), Node::Ident("Resumed".into()));
    assert_eq!(
        same(&struct_variant),
        p(
            r#"Rolled(unit:Some(3),side:None,purpose:Attack,expr:"2d6+1",dice:[4,2],total:7,against:Some(-13),success:Some(true))"#
        )
    );
    assert_eq!(
        same(&newtype_of_newtype_variant),
        tuple(
            Some("Rules"),
            vec![tuple(
                Some("Sides"),
                vec![named(
                    "Disengaged",
                    vec![
                        ("unit", Node::Int(1)),
                        ("from", Node::List(vec![Node::Int(0), Node::Int(3)]))
                    ]
                )]
            )]
        )
    );
    assert_eq!(
        same(&newtype_of_struct),
        p(
            "Interrupted((trigger:Opportunity(mover:0,from:(x:1,y:1),to:(x:1,y:2)),reactors:[4],resume:Rules(Sides(Deferred))))"
        )
    );
    assert_eq!(
        same(&decision_with_none),
        named("Over", vec![("winner", Node::Ident("None".into()))])
    );
    same(&Decision::Pick {
        side: SideId(0),
        options: vec![],
    });
}

/// The sample events in `test_support` add what the battle's events lack: tuple variants,
/// `f32`, `()`, chars, newtype structs, maps.
#[test]
fn sample_events_with_tuple_variants_floats_chars_and_maps() {
    let events = test_support::real_events();
    for e in &events {
        let old = via_ron(e).expect("ron reads back");
        let new = to_tree(e).expect("a tree");
        assert_eq!(exact(&new), exact(&old));
    }
    assert_eq!(
        to_tree(&events[6]),
        Ok(tuple(
            Some("Scaled"),
            vec![Node::Int(3), Node::Float(-1.5), tuple(None, vec![])]
        ))
    );
}

#[test]
fn options_tuples_and_nesting() {
    assert_eq!(same(&None::<u8>), Node::Ident("None".into()));
    assert_eq!(same(&Some(3u8)), some(Node::Int(3)));
    assert_eq!(
        same(&Some(Some(None::<bool>))),
        some(some(Node::Ident("None".into())))
    );
    assert_eq!(same(&()), tuple(None, vec![]));
    assert_eq!(
        same(&(1u8, "a", 'c', -2.5f64)),
        tuple(
            None,
            vec![
                Node::Int(1),
                Node::Str("a".into()),
                Node::Str("c".into()),
                Node::Float(-2.5)
            ]
        )
    );
    assert_eq!(same(&(7i32,)), tuple(None, vec![Node::Int(7)]));
    assert_eq!(same(&[1u8, 2, 3]), p("(1,2,3)"));
    assert_eq!(same(&vec![[0u8; 0]]), p("[()]"));
    assert_eq!(same(&Vec::<u8>::new()), Node::List(vec![]));
    same(&vec![(Some(cell(1, 2)), vec![Some(Status::Dead), None])]);
    same(&BTreeMap::from([(1u8, Some("x")), (2, None)]));
    same(&BTreeMap::from([(cell(0, 1), vec![UnitId(3)])]));
    same(&BTreeMap::<String, u8>::new());
}

#[derive(Debug, Serialize)]
struct Unit;

#[derive(Debug, Serialize)]
struct Empty {}

#[derive(Debug, Serialize)]
struct Pair(u8, Option<Unit>);

#[derive(Debug, Serialize)]
struct Skipping {
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u8>,
    #[serde(skip)]
    #[allow(dead_code)]
    b: u8,
}

#[derive(Debug, Serialize)]
enum Shapes {
    Unit,
    Newtype(Empty),
    Tuple(Unit, Pair),
    EmptyTuple(),
    EmptyStruct {},
    Struct {
        #[serde(rename = "type")]
        kind: Box<Shapes>,
        skipped: Skipping,
    },
}

/// Empty and unit shapes: ron writes `()` / `Name()`, which read as tuples, not structs.
#[test]
fn empty_and_unit_shapes() {
    assert_eq!(same(&Unit), tuple(None, vec![]));
    assert_eq!(same(&Empty {}), tuple(None, vec![]));
    assert_eq!(same(&Pair(1, Some(Unit))), p("(1,Some(()))"));
    assert_eq!(same(&Skipping { a: None, b: 1 }), tuple(None, vec![]));
    assert_eq!(same(&Skipping { a: Some(2), b: 1 }), p("(a:Some(2))"));
    assert_eq!(same(&Shapes::Unit), Node::Ident("Unit".into()));
    assert_eq!(same(&Shapes::Newtype(Empty {})), p("Newtype(())"));
    assert_eq!(
        same(&Shapes::Tuple(Unit, Pair(0, None))),
        p("Tuple((),(0,None))")
    );
    assert_eq!(same(&Shapes::EmptyTuple()), p("EmptyTuple()"));
    assert_eq!(same(&Shapes::EmptyStruct {}), p("EmptyStruct()"));
    assert_eq!(
        same(&Shapes::Struct {
            kind: Box::new(Shapes::EmptyStruct {}),
            skipped: Skipping { a: Some(1), b: 0 },
        }),
        p("Struct(type:EmptyStruct(),skipped:(a:Some(1)))")
    );
}

struct Bytes<'a>(&'a [u8]);

impl fmt::Debug for Bytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({:?})", self.0)
    }
}

impl Serialize for Bytes<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[test]
fn strings_chars_and_bytes() {
    for s in [
        "",
        "plain",
        "q\"uote\\d",
        "tab\tnl\nnul\0",
        "é\u{301}\u{7}\u{200b}",
        "r#\"x\"#",
    ] {
        assert_eq!(same(s), Node::Str(s.into()));
    }
    for c in [
        'a',
        '\'',
        '\\',
        '"',
        '\n',
        '\0',
        'é',
        '\u{301}',
        '\u{10ffff}',
    ] {
        assert_eq!(same(&c), Node::Str(c.to_string()));
    }
    assert_eq!(
        same(&Bytes(b"by\"te\\s\n")),
        Node::Str("by\"te\\s\n".into())
    );
    assert_eq!(
        same(&Bytes(&[0, 0x7f, 0x80, 0xe9, 0xff])),
        Node::Str("\0\u{7f}\u{80}\u{e9}\u{ff}".into())
    );
}

#[test]
fn numbers() {
    assert_eq!(same(&i64::MIN), Node::Int(i64::MIN));
    assert_eq!(same(&(i64::MAX as u64)), Node::Int(i64::MAX));
    assert_eq!(same(&u8::MAX), Node::Int(255));
    assert_eq!(same(&-0.0f64), Node::Float(-0.0));
    assert_eq!(same(&0.1f32), Node::Float(0.1));
    assert_ne!(0.1f32 as f64, 0.1);
    for f in [
        1e-7f32,
        3.4e38,
        -1.5,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NAN,
    ] {
        same(&f);
    }
    for f in [1e300, 5e-324, f64::NEG_INFINITY, -f64::NAN, 2.0] {
        same(&f);
    }
    assert_eq!(same(&2.0f64), Node::Float(2.0));
    assert_eq!(to_tree(&i128::from(i64::MIN)), Ok(Node::Int(i64::MIN)));
    assert_eq!(to_tree(&5u128), Ok(Node::Int(5)));
}

/// Integers the parser cannot hold fail both ways; the runner then shows the event as `?`.
#[test]
fn integers_beyond_64_bits_fail_as_in_the_parser() {
    let too_big = i64::MAX as u64 + 1;
    assert!(via_ron(&too_big).is_err());
    let e = to_tree(&too_big).expect_err("too big");
    assert!(e.to_string().contains("does not fit in 64 bits"), "{e}");
    assert!(to_tree(&Some(vec![u64::MAX])).is_err());
    assert!(to_tree(&u128::MAX).is_err());
    assert!(to_tree(&i128::MIN).is_err());
}

#[derive(Debug, Serialize)]
struct Deep(Option<Box<Deep>>);

fn deep(levels: usize) -> Deep {
    (0..levels).fold(Deep(None), |d, _| Deep(Some(Box::new(d))))
}

/// Nesting is limited as in the parser: a tree the parser would refuse is an error.
#[test]
fn nesting_deeper_than_the_parser_reads_is_an_error() {
    // `deep(n)` is `2n + 2` nodes deep (a newtype and a `Some` per level, then `(None)`): its
    // innermost `None` sits at depth `2n + 1`.
    let deepest = deep((MAX_DEPTH - 2) / 2);
    same(&deepest);
    let one_more = Some(deepest);
    assert!(via_ron(&one_more).is_err());
    let e = to_tree(&one_more).expect_err("too deep");
    assert_eq!(
        e.to_string(),
        format!("nesting deeper than {MAX_DEPTH} levels")
    );
    assert!(to_tree(&deep(10 * MAX_DEPTH)).is_err());
}

/// A value whose `Serialize` impl fails.
struct Refuses;

impl Serialize for Refuses {
    fn serialize<S: ser::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(ser::Error::custom("no tree for you"))
    }
}

#[test]
fn errors_of_the_value_come_through() {
    assert_eq!(
        to_tree(&vec![Some(Refuses)]),
        Err(Error("no tree for you".into()))
    );
}

/// Everything real games emit and wait for, and the whole battle state at their end, on every
/// shipped level: random players (fast), a few dozen commands each.
#[test]
fn every_event_decision_and_state_of_real_games() {
    let dir = crate::repo_dir().join("levels");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("levels/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut events = 0;
    for file in &files {
        let level = crate::rules::level::load_path(file)
            .unwrap_or_else(|d| panic!("{}: {d:?}", file.display()));
        let players = vec![Kind::Random; level.file.sides.len()];
        let caps = Caps {
            rounds: 6,
            commands: 80,
            time_limit: None,
        };
        let game = sim::play(&level, 7, &players, caps);
        let (mut b, start) = BattleState::start(&level, 7);
        let mut check = |e: &Event| {
            events += 1;
            same(e);
        };
        start.iter().for_each(&mut check);
        for c in &game.commands {
            same(&b.pending());
            same(c);
            b.execute(c)
                .unwrap_or_else(|r| panic!("{c:?}: {r}"))
                .iter()
                .for_each(&mut check);
        }
        same(&b.pending());
        let state_old = via_ron(&b).expect("the state reads back");
        let state_new = to_tree(&b).expect("the state has a tree");
        assert_eq!(exact(&state_new), exact(&state_old), "{}", file.display());
    }
    assert!(events > 100, "only {events} events");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn arbitrary_primitives(
        s in any::<String>(),
        c in any::<char>(),
        f in any::<f32>(),
        d in any::<f64>(),
        i in any::<i64>(),
        u in any::<u32>(),
        b in proptest::collection::vec(any::<u8>(), 0..16),
        o in proptest::option::of(any::<(bool, i16)>()),
    ) {
        let value = (s, c, f, d, i, u, Bytes(&b), o);
        let old = via_ron(&value).map_err(TestCaseError::fail)?;
        let new = to_tree(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(exact(&new), exact(&old));
    }
}
