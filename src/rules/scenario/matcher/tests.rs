//! Tests of the matching rules and of event sequences.

use super::*;
use crate::rules::scenario::test_support::*;
use proptest::prelude::*;

// --- matching ------------------------------------------------------------------------------

#[test]
fn identical_events_match() {
    assert_eq!(m(ROLLED, ROLLED), Ok(()));
    assert_eq!(m("Victory", "Victory"), Ok(()));
}

#[test]
fn omitted_fields_are_ignored() {
    assert_eq!(m("Rolled(dice: [4, 2, 6])", ROLLED), Ok(()));
    assert_eq!(m("Rolled(total: 15, success: Some(true))", ROLLED), Ok(()));
    assert_eq!(m("Rolled()", ROLLED), Ok(()));
    assert_eq!(m("Rolled", ROLLED), Ok(()));
    assert_eq!(
        m(
            "Moved(to: (x: 4))",
            "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))"
        ),
        Ok(())
    );
}

#[test]
fn listed_fields_must_exist_and_match() {
    let e = mismatch("Rolled(bonus: 2)", ROLLED);
    assert_eq!(e.path, "Rolled");
    assert!(
        e.message
            .starts_with("field `bonus` is missing from Rolled("),
        "{e}"
    );

    let e = mismatch("Rolled(total: 14)", ROLLED);
    assert_eq!(e.to_string(), "Rolled.total: expected 14, found 15");

    let e = mismatch("Rolled(purpose: Damage)", ROLLED);
    assert_eq!(
        e.to_string(),
        "Rolled.purpose: expected Damage, found Attack"
    );

    let e = mismatch(
        "Moved(to: (x: 5))",
        "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))",
    );
    assert_eq!(e.to_string(), "Moved.to.x: expected 5, found 4");
}

#[test]
fn names_must_agree() {
    let e = mismatch("Moved(unit: 3)", ROLLED);
    assert_eq!(e.path, "");
    assert!(
        e.message.starts_with("expected `Moved(..)`, found Rolled("),
        "{e}"
    );
    assert!(m("Victory", "Defeat").is_err());
    assert!(m("Victory", "Victory(side: 1)").is_ok());
    assert!(m("Moved", "Victory").is_err());
    assert!(m("Hit(1)", "Miss(1)").is_err());
    // Plain structs carry no name, so a name on one side is not checked against them.
    assert!(m("(x: 1)", "Cell(x: 1, y: 2)").is_ok());
    assert!(m("Cell(x: 1)", "(x: 1, y: 2)").is_ok());
}

#[test]
fn lists_are_exact() {
    assert_eq!(m("Rolled(dice: [4, 2, 6])", ROLLED), Ok(()));
    let e = mismatch("Rolled(dice: [4, 5, 6])", ROLLED);
    assert_eq!(e.path, "Rolled.dice[1]");
    assert_eq!(e.message, "expected 5, found 2");
    let e = mismatch("Rolled(dice: [4, 2])", ROLLED);
    assert_eq!(
        e.to_string(),
        "Rolled.dice: expected 2 elements, found 3: [4,2,6]"
    );
    assert!(m("Rolled(dice: [4, 2, 6, 1])", ROLLED).is_err());
    assert!(m("Rolled(dice: [])", ROLLED).is_err());
    assert!(m("Rolled(dice: [6, 2, 4])", ROLLED).is_err());
}

#[test]
fn tuples_match_by_position_and_may_be_shorter() {
    let actual = "Hit(1, 2, 3)";
    assert_eq!(m("Hit(1, 2, 3)", actual), Ok(()));
    assert_eq!(m("Hit(1)", actual), Ok(()));
    let e = mismatch("Hit(1, 3)", actual);
    assert_eq!(e.to_string(), "Hit.1: expected 3, found 2");
    let e = mismatch("Hit(1, 2, 3, 4)", actual);
    assert_eq!(e.message, "expected 4 items, found only 3 in Hit(1,2,3)");
    assert_eq!(m("(1, Attack)", "(1, Attack, 9)"), Ok(()));
}

#[test]
fn nested_variants_get_readable_paths() {
    let actual = "Sides(Spent(unit:1,action:Main))";
    assert_eq!(m("Sides(Spent(action: Main))", actual), Ok(()));
    assert_eq!(m("Sides(Spent)", actual), Ok(()));
    assert_eq!(m(r#"Sides(Spent(unit: "Caesar"))"#, actual), Ok(()));
    let e = mismatch("Sides(Spent(unit: 2))", actual);
    assert_eq!(e.to_string(), "Sides.Spent.unit: expected 2, found 1");
    let e = mismatch("Sides(Gained(unit: 1))", actual);
    assert_eq!(e.path, "Sides.Gained");
    assert!(
        e.message.starts_with("expected `Gained(..)`, found Spent("),
        "{e}"
    );
}

#[test]
fn some_may_be_written_or_left_out() {
    assert_eq!(m("Rolled(target: Some(13))", ROLLED), Ok(()));
    assert_eq!(m("Rolled(target: 13)", ROLLED), Ok(()));
    assert_eq!(m("Rolled(success: true)", ROLLED), Ok(()));
    assert_eq!(m("(a: Attack)", "(a: Some(Attack))"), Ok(()));
    assert_eq!(m("(a: Some(Some(1)))", "(a: Some(Some(1)))"), Ok(()));
    assert_eq!(m("(a: 1)", "(a: Some(Some(1)))"), Ok(()));
    assert_eq!(m("(a: None)", "(a: None)"), Ok(()));

    let e = mismatch("Rolled(target: 12)", ROLLED);
    assert_eq!(e.to_string(), "Rolled.target: expected 12, found 13");
    let e = mismatch("Rolled(target: None)", ROLLED);
    assert_eq!(
        e.to_string(),
        "Rolled.target: expected None, found Some(13)"
    );
    let e = mismatch("(a: Some(1))", "(a: None)");
    assert_eq!(e.to_string(), "a: expected Some(1), found None");
    let e = mismatch("(a: Some(1))", "(a: 1)");
    assert_eq!(e.to_string(), "a: expected Some(1), found 1");
    let e = mismatch("(a: Some(1))", "(a: (1))");
    assert_eq!(e.to_string(), "a: expected Some(1), found 1");
    assert!(m("(a: Attack)", "(a: Some(Damage))").is_err());
}

#[test]
fn newtypes_are_transparent() {
    assert_eq!(m("(unit: 3)", "(unit: (3))"), Ok(()));
    assert_eq!(m("(unit: (3))", "(unit: (3))"), Ok(()));
    assert_eq!(m(r#"(unit: "Orc 2")"#, "(unit: (3))"), Ok(()));
    assert!(m("(unit: 4)", "(unit: (3))").is_err());
}

#[test]
fn numbers_compare_exactly() {
    assert_eq!(m("2", "2"), Ok(()));
    assert_eq!(m("2", "2.0"), Ok(()));
    assert_eq!(m("2.0", "2"), Ok(()));
    assert_eq!(m("0.5", "0.5"), Ok(()));
    assert_eq!(m("NaN", "NaN"), Ok(()));
    assert_eq!(m("-inf", "-inf"), Ok(()));
    assert!(m("0.5", "0.50000001").is_err());
    assert!(m("2", "2.5").is_err());
    assert!(m("2", "-2").is_err());
    assert!(m("1", "true").is_err());
    assert!(m("\"1\"", "\"2\"").is_err());
    assert_eq!(mismatch("0.5", "0.25").message, "expected 0.5, found 0.25");
}

#[test]
fn unit_names_resolve_by_index() {
    assert_eq!(m(r#"Moved(unit: "Orc 1")"#, "Moved(unit:2)"), Ok(()));
    assert_eq!(m(r#"Rolled(unit: "Orc 2")"#, ROLLED), Ok(()));
    assert_eq!(m(r#"Rolled(unit: Some("Orc 2"))"#, ROLLED), Ok(()));
    assert_eq!(
        m(
            r#"Hit(attacker: "Boudica", target: "Caesar")"#,
            "Hit(attacker:0,target:1)"
        ),
        Ok(())
    );
    assert_eq!(
        m(r#"Saw(units: ["Caesar", "Boudica"])"#, "Saw(units:[1,0])"),
        Ok(())
    );
    assert_eq!(
        m(
            r#"Paired(pair: ("Caesar", "Boudica"))"#,
            "Paired(pair:(1,0))"
        ),
        Ok(())
    );
    assert_eq!(m(r#""Caesar""#, "1"), Ok(()));

    let e = mismatch(r#"Moved(unit: "Boudica")"#, "Moved(unit:2)");
    assert_eq!(
        e.to_string(),
        r#"Moved.unit: expected "Boudica", found unit 2 ("Orc 1")"#
    );
    let e = mismatch(r#"Moved(unit: "Boudica")"#, "Moved(unit:9)");
    assert_eq!(
        e.to_string(),
        r#"Moved.unit: expected "Boudica", found unit 9, which has no name (4 unit names known)"#
    );
    assert!(m(r#"(unit: "Boudica")"#, "(unit: -1)").is_err());
    // A name never matches a string that happens to be equal to the index.
    assert!(m(r#"(unit: "2")"#, "(unit: 2)").is_err());
}

#[test]
fn side_names_resolve_in_side_fields() {
    assert_eq!(
        m(r#"Victory(winner: "Romans")"#, "Victory(winner:1)"),
        Ok(())
    );
    assert_eq!(
        m(r#"Victory(winner: "Romans")"#, "Victory(winner:Some(1))"),
        Ok(())
    );
    assert_eq!(
        m(r#"TurnStarted(side: "Iceni")"#, "TurnStarted(side:0)"),
        Ok(())
    );
    assert_eq!(
        m(r#"Joined(acting_side: "Romans")"#, "Joined(acting_side:1)"),
        Ok(())
    );
    assert_eq!(
        m(r#"Met(Sides: ["Iceni", "Romans"])"#, "Met(Sides:[0,1])"),
        Ok(())
    );
    // Unit 1 is Caesar, side 1 is Romans: the field decides.
    assert!(m(r#"Victory(winner: "Caesar")"#, "Victory(winner:1)").is_err());
    assert!(m(r#"Moved(unit: "Romans")"#, "Moved(unit:1)").is_err());
    let e = mismatch(r#"TurnStarted(side: "Romans")"#, "TurnStarted(side:0)");
    assert_eq!(e.message, r#"expected "Romans", found side 0 ("Iceni")"#);
    let e = mismatch(r#"TurnStarted(side: "Romans")"#, "TurnStarted(side:5)");
    assert_eq!(
        e.message,
        r#"expected "Romans", found side 5, which has no name (2 side names known)"#
    );
    // Inside a named tuple variant the field context starts over.
    assert_eq!(
        m(r#"(side: Joined("Caesar"))"#, "(side: Joined(1))"),
        Ok(())
    );
}

#[test]
fn cell_shorthand() {
    let moved = "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))";
    assert_eq!(m("Moved(from: (3, 4), to: (4, 4))", moved), Ok(()));
    assert_eq!(m("Moved(from: (x: 3, y: 4))", moved), Ok(()));
    let e = mismatch("Moved(to: (4, 5))", moved);
    assert_eq!(e.to_string(), "Moved.to.y: expected 5, found 4");
    assert_eq!(
        m(
            "Path(cells: [(0, 0), (1, 0)])",
            "Path(cells:[(x:0,y:0),(x:1,y:0)])"
        ),
        Ok(())
    );
    assert_eq!(m("(at: (3, 4))", "(at: Some((x:3,y:4)))"), Ok(()));
    assert_eq!(m("(3, 4)", "(3, 4)"), Ok(()));
    let e = mismatch("(at: (3, 4))", "(at: (q:3,r:4))");
    assert_eq!(e.to_string(), "at: expected (3,4), found (q:3,r:4)");
    assert!(m("(at: (3, 4, 5))", "(at: (x:3,y:4))").is_err());
}

#[test]
fn maps_are_a_subset() {
    let actual = r#"Tally(by_kind: {"hits": 2, "misses": 1})"#;
    assert_eq!(m(r#"Tally(by_kind: {"misses": 1})"#, actual), Ok(()));
    assert_eq!(m("Tally(by_kind: {})", actual), Ok(()));
    let e = mismatch(r#"Tally(by_kind: {"hits": 3})"#, actual);
    assert_eq!(
        e.to_string(),
        r#"Tally.by_kind["hits"]: expected 3, found 2"#
    );
    let e = mismatch(r#"Tally(by_kind: {"crits": 0})"#, actual);
    assert!(e.message.starts_with(r#"key "crits" is missing"#), "{e}");
    assert_eq!(m(r#"(hp: {"Caesar": 3})"#, "(hp: {1: 3, 0: 5})"), Ok(()));
}

#[test]
fn kinds_must_agree() {
    for (e, a) in [
        ("[1]", "(1, 2)"),
        ("(a: 1)", "[1]"),
        ("Foo(1)", "Foo(a: 1)"),
        ("Foo(a: 1)", "Foo(1)"),
        ("true", "Attack"),
        ("\"Attack\"", "Attack"),
        ("{1: 2}", "[(1, 2)]"),
    ] {
        assert!(m(e, a).is_err(), "{e} vs {a}");
    }
    assert_eq!(
        mismatch("[1]", "(1,2)").to_string(),
        "expected [1], found (1,2)"
    );
}

#[test]
fn long_actuals_are_shortened_in_messages() {
    let long = format!("Big(list:[{}])", vec!["1"; 200].join(","));
    let e = mismatch("Big(other: 1)", &long);
    assert!(e.message.ends_with('…'), "{e}");
    assert!(e.message.chars().count() < 200);
}

// --- sequences -----------------------------------------------------------------------------

fn seq(texts: &[&str]) -> Vec<Node> {
    texts.iter().map(|t| p(t)).collect()
}

fn log() -> Vec<Node> {
    seq(&[
        "RoundStarted(round:1)",
        "Moved(unit:0,from:(x:0,y:0),to:(x:1,y:0))",
        "Rolled(unit:Some(0),purpose:Attack,dice:[4],total:4,target:Some(10),success:Some(false))",
        "Moved(unit:1,from:(x:5,y:5),to:(x:4,y:5))",
        ROLLED,
        "Damaged(unit:0,amount:3)",
        "Victory(winner:1)",
    ])
}

#[test]
fn subsequence_in_order_with_gaps() {
    let names = names();
    let expected = seq(&[
        r#"Moved(unit: "Caesar")"#,
        "Rolled(total: 15)",
        r#"Victory(winner: "Romans")"#,
    ]);
    assert_eq!(find_subsequence(&expected, &log(), &names), Ok(()));
    assert_eq!(find_subsequence(&[], &log(), &names), Ok(()));
    assert_eq!(find_subsequence(&log(), &log(), &names), Ok(()));
    // The same description twice needs two actual events.
    assert_eq!(
        find_subsequence(&seq(&["Moved", "Moved"]), &log(), &names),
        Ok(())
    );
    let e = find_subsequence(&seq(&["Moved", "Moved", "Moved"]), &log(), &names)
        .expect_err("only two moves");
    assert_eq!((e.index, e.after, e.candidate), (2, Some(3), None));
}

#[test]
fn subsequence_reports_out_of_order_events() {
    let expected = seq(&["Rolled(total: 15)", r#"Moved(unit: "Boudica")"#]);
    let e = find_subsequence(&expected, &log(), &names()).expect_err("out of order");
    assert_eq!(e.index, 1);
    assert_eq!(e.expected, r#"Moved(unit:"Boudica")"#);
    assert_eq!(e.after, Some(4));
    assert_eq!(e.candidate, None);
    assert_eq!(e.earlier, Some(1));
    assert_eq!(
        e.to_string(),
        "expected event #1 `Moved(unit:\"Boudica\")` was not found after actual event #4 (the previous match)\n  \
         no later actual event has the same name\n  \
         note: actual event #1 matches, but comes too early (out of order)"
    );
}

#[test]
fn subsequence_reports_the_closest_candidate() {
    let expected = seq(&["RoundStarted", "Rolled(dice: [4, 5, 6])"]);
    let e = find_subsequence(&expected, &log(), &names()).expect_err("no such roll");
    assert_eq!((e.index, e.after, e.earlier), (1, Some(0), None));
    let c = e.candidate.clone().expect("a candidate");
    assert_eq!(c.index, 2);
    assert!(c.actual.starts_with("Rolled(unit:Some(0)"));
    assert_eq!(
        c.mismatch.to_string(),
        "Rolled.dice: expected 3 elements, found 1: [4]"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "expected event #1 `Rolled(dice:[4,5,6])` was not found after actual event #0 (the previous match)\n  \
             closest: actual event #2 `{}`\n  \
             differs at Rolled.dice: expected 3 elements, found 1: [4]",
            c.actual
        )
    );
}

#[test]
fn subsequence_failure_at_the_start() {
    let e = find_subsequence(&seq(&["Defeat"]), &log(), &names()).expect_err("no defeat");
    assert_eq!(
        (e.index, e.after, e.candidate.as_ref(), e.earlier),
        (0, None, None, None)
    );
    assert!(
        e.to_string()
            .starts_with("expected event #0 `Defeat` was not found among the actual events")
    );
    let e =
        find_subsequence(&seq(&["RoundStarted(round: 1)"]), &[], &names()).expect_err("empty log");
    assert_eq!(e.index, 0);
    let e = find_subsequence(&seq(&["Damaged(amount: 4)"]), &log(), &names())
        .expect_err("wrong amount");
    let c = e.candidate.expect("candidate");
    assert_eq!(
        (c.index, c.mismatch.to_string()),
        (5, "Damaged.amount: expected 4, found 3".to_string())
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn matching_never_panics(e in arb_node(), a in arb_node()) {
        let _ = matches(&e, &a, &names());
        let _ = find_subsequence(&[e.clone(), a.clone()], &[a, e], &names());
    }
}
