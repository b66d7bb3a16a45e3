//! Tests of the RON reader and printer.

use super::*;
use crate::rules::scenario::matcher::{Names, matches};
use crate::rules::scenario::test_support::*;
use proptest::prelude::*;

// --- parsing -------------------------------------------------------------------------------

#[test]
fn parses_struct_variant() {
    assert_eq!(
        p(ROLLED),
        named(
            "Rolled",
            vec![
                ("unit", some(Node::Int(3))),
                ("purpose", ident("Attack")),
                (
                    "dice",
                    Node::List(vec![Node::Int(4), Node::Int(2), Node::Int(6)])
                ),
                ("total", Node::Int(15)),
                ("target", some(Node::Int(13))),
                ("success", some(Node::Bool(true))),
            ]
        )
    );
}

#[test]
fn parses_nested_structs_and_variants() {
    let cell = |x, y| named("", vec![("x", Node::Int(x)), ("y", Node::Int(y))]);
    assert_eq!(
        p("Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))"),
        named(
            "Moved",
            vec![
                ("unit", Node::Int(2)),
                ("from", cell(3, 4)),
                ("to", cell(4, 4))
            ]
        )
    );
    assert_eq!(
        p("Sides(Spent(unit:1,action:Main))"),
        tuple(
            Some("Sides"),
            vec![named(
                "Spent",
                vec![("unit", Node::Int(1)), ("action", ident("Main"))]
            )]
        )
    );
    assert_eq!(
        p("RoundStarted(round:2)"),
        named("RoundStarted", vec![("round", Node::Int(2))])
    );
}

#[test]
fn parses_unit_variants_and_none() {
    assert_eq!(p("Victory"), ident("Victory"));
    assert_eq!(p("None"), ident("None"));
    assert_eq!(p("  Victory  "), ident("Victory"));
    assert_eq!(p("r#type"), ident("type"));
}

#[test]
fn parses_tuples() {
    assert_eq!(p("(1, 2)"), tuple(None, vec![Node::Int(1), Node::Int(2)]));
    assert_eq!(
        p("Hit(1, -2)"),
        tuple(Some("Hit"), vec![Node::Int(1), Node::Int(-2)])
    );
    assert_eq!(p("Some(3)"), some(Node::Int(3)));
    assert_eq!(p("(3)"), tuple(None, vec![Node::Int(3)]));
    assert_eq!(p("()"), tuple(None, vec![]));
    assert_eq!(p("Foo()"), tuple(Some("Foo"), vec![]));
    assert_eq!(p("Foo (1,)"), tuple(Some("Foo"), vec![Node::Int(1)]));
    assert_eq!(p("((1,2),[3])").to_string(), "((1,2),[3])");
}

#[test]
fn parses_lists_and_maps() {
    assert_eq!(p("[]"), Node::List(vec![]));
    assert_eq!(p("[1, 2, ]"), Node::List(vec![Node::Int(1), Node::Int(2)]));
    assert_eq!(p("{}"), Node::Map(vec![]));
    assert_eq!(
        p(r#"{"a": 1, Attack: [true], (x:1,y:2): None,}"#),
        Node::Map(vec![
            (Node::Str("a".into()), Node::Int(1)),
            (ident("Attack"), Node::List(vec![Node::Bool(true)])),
            (
                named("", vec![("x", Node::Int(1)), ("y", Node::Int(2))]),
                ident("None")
            ),
        ])
    );
}

#[test]
fn parses_strings_and_chars() {
    assert_eq!(p(r#""Orc 1""#), Node::Str("Orc 1".into()));
    assert_eq!(
        p(r#""a\"b\\c\n\t\u{e9}\x41""#),
        Node::Str("a\"b\\c\n\té\x41".into())
    );
    assert_eq!(
        p("\"line \\\n    continued\""),
        Node::Str("line continued".into())
    );
    assert_eq!(
        p(r####"r#"raw "quoted" \n"#"####),
        Node::Str("raw \"quoted\" \\n".into())
    );
    assert_eq!(p(r#"r"plain""#), Node::Str("plain".into()));
    assert_eq!(p("'x'"), Node::Str("x".into()));
    assert_eq!(p(r"'\''"), Node::Str("'".into()));
    assert_eq!(p(r#"b"by\x00""#), Node::Str("by\0".into()));
    assert_eq!(p("\"é ünï\""), Node::Str("é ünï".into()));
}

#[test]
fn parses_numbers_and_bools() {
    assert_eq!(p("0"), Node::Int(0));
    assert_eq!(p("-17"), Node::Int(-17));
    assert_eq!(p("+5"), Node::Int(5));
    assert_eq!(p("1_000"), Node::Int(1000));
    assert_eq!(p("0x1F"), Node::Int(31));
    assert_eq!(p("-0b101"), Node::Int(-5));
    assert_eq!(p("0o17"), Node::Int(15));
    assert_eq!(p("7u8"), Node::Int(7));
    assert_eq!(p("-9223372036854775808"), Node::Int(i64::MIN));
    assert_eq!(p("9223372036854775807"), Node::Int(i64::MAX));
    assert_eq!(p("1.5"), Node::Float(1.5));
    assert_eq!(p("-0.25"), Node::Float(-0.25));
    assert_eq!(p("1e3"), Node::Float(1000.0));
    assert_eq!(p("2.5E-1"), Node::Float(0.25));
    assert_eq!(p("3f32"), Node::Float(3.0));
    assert_eq!(p(".5"), Node::Float(0.5));
    assert_eq!(p("inf"), Node::Float(f64::INFINITY));
    assert_eq!(p("-inf"), Node::Float(f64::NEG_INFINITY));
    assert!(matches!(p("NaN"), Node::Float(f) if f.is_nan()));
    assert_eq!(p("true"), Node::Bool(true));
    assert_eq!(p("false"), Node::Bool(false));
    assert_eq!(p("[1,-2]"), Node::List(vec![Node::Int(1), Node::Int(-2)]));
}

#[test]
fn skips_whitespace_and_comments() {
    let text = "// the first attack\nRolled( /* who */ unit: Some(3), // trailing\n dice: [4, /* nested /* ok */ */ 2],\n)";
    assert_eq!(
        p(text),
        named(
            "Rolled",
            vec![
                ("unit", some(Node::Int(3))),
                ("dice", Node::List(vec![Node::Int(4), Node::Int(2)]))
            ]
        )
    );
}

fn err(text: &str) -> ParseError {
    match parse(text) {
        Ok(node) => panic!("{text:?} unexpectedly parsed as {node:?}"),
        Err(e) => e,
    }
}

#[test]
fn reports_errors_with_positions() {
    let e = err("Moved(unit:2,\n  from: (x:3 y:4))");
    assert_eq!((e.line, e.col), (2, 14), "{e}");
    assert!(e.message.contains("expected `,` or `)`"), "{e}");
    assert_eq!(e.offset, 27);

    let e = err("Said(text: \"unclosed)");
    assert_eq!((e.line, e.col, e.offset), (1, 12, 11));
    assert_eq!(e.message, "unterminated string");
    assert_eq!(e.to_string(), "1:12: unterminated string");

    let e = err("Victory Defeat");
    assert!(e.message.contains("after the value"), "{e}");
    assert_eq!(e.col, 9);

    let e = err("[1, 2");
    assert!(e.message.contains("unclosed `[`"), "{e}");
    assert_eq!(e.offset, 0);

    assert!(err("").message.contains("end of input"));
    assert!(err("   // only a comment").message.contains("end of input"));
    assert!(
        err("/* open")
            .message
            .contains("unterminated block comment")
    );
    assert!(err("99999999999999999999").message.contains("64 bits"));
    assert!(err("0xFFFFFFFFFFFFFFFF").message.contains("64 bits"));
    assert!(err("12abc").message.contains("invalid number"));
    assert!(err("1.2.3").message.contains("invalid number"));
    assert!(err("-").message.contains("invalid number"));
    assert!(err("-foo").message.contains("invalid number"));
    assert!(err(r#""\q""#).message.contains("unknown escape"));
    assert!(err(r#""\u{110000}""#).message.contains("\\u{"));
    assert!(err("''").message.contains("one character"));
    assert!(err("'ab'").message.contains("one character"));
    assert!(err("Foo(a: 1, 2)").message.contains("field name"));
    assert!(err("{1 2}").message.contains("map key"));
    assert!(err("@").message.contains("unexpected `@`"));
    assert!(err("r#\"raw").message.contains("raw string"));
    let e = err("[\"é\",\n \"èè\" @]");
    assert_eq!((e.line, e.col), (2, 7), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in ["[", "(", "Some(", "{", "(a:"] {
        let text = open.repeat(100_000);
        assert!(err(&text).message.contains("nesting deeper"), "{open}");
    }
    let ok = format!(
        "{}1{}",
        "[".repeat(MAX_DEPTH - 1),
        "]".repeat(MAX_DEPTH - 1)
    );
    assert!(parse(&ok).is_ok());
}
#[test]
fn reads_what_ron_writes() {
    let texts: Vec<String> = real_events()
        .iter()
        .map(|e| ron::to_string(e).expect("serializes"))
        .collect();
    assert_eq!(texts[0], "RoundStarted(round:2)");
    assert_eq!(texts[1], "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))");
    assert_eq!(texts[2], ROLLED);
    assert_eq!(texts[3], "Victory");
    assert_eq!(texts[4], "Sides(Spent(unit:1,action:Main))");
    for text in &texts {
        let node = p(text);
        assert_eq!(parse(&render(&node)), Ok(node.clone()), "{text}");
        assert_eq!(matches(&node, &node, &names()), Ok(()), "{text}");
    }
    // Texts without escapes render back exactly as ron wrote them.
    for text in [
        &texts[0], &texts[1], &texts[2], &texts[3], &texts[4], &texts[6], &texts[7],
    ] {
        assert_eq!(&render(&p(text)), text);
    }
    assert_eq!(
        p(&texts[5]),
        named(
            "Said",
            vec![
                ("unit", tuple(None, vec![Node::Int(0)])),
                ("text", Node::Str("He said \"charge\"\n".into())),
                ("mood", Node::Str("é".into())),
            ]
        )
    );
    assert_eq!(
        m(
            r#"Said(unit: "Boudica", text: "He said \"charge\"\n")"#,
            &texts[5]
        ),
        Ok(())
    );
    assert_eq!(m("Scaled(3, -1.5, ())", &texts[6]), Ok(()));
    assert_eq!(
        m(
            r#"Path(cells: [(0, -1), (1, 0)], by_kind: {"hits": 2})"#,
            &texts[7]
        ),
        Ok(())
    );
}

#[test]
fn render_is_compact_ron() {
    let text = r#"  Foo ( a : [ 1 , 2.5 , "x\"y" ] , b : { 'k' : ( ) } , c : Bar ( None , -inf , NaN ) )  "#;
    assert_eq!(
        render(&p(text)),
        r#"Foo(a:[1,2.5,"x\"y"],b:{"k":()},c:Bar(None,-inf,NaN))"#
    );
    assert_eq!(
        render(&Node::Str("tab\tbell\u{7}".into())),
        r#""tab\tbell\u{7}""#
    );
    assert_eq!(render(&Node::Float(1e20)), "1e20");
    assert_eq!(render(&Node::Float(2.0)), "2.0");
}

// --- robustness ----------------------------------------------------------------------------

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let texts = [
        ROLLED,
        "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))",
        r####"Said(text: "a\"b\u{e9}\x41", raw: r#"x"#, c: '\'', map: {"k": [1.5e3, -inf, 0x1F]}) // end"####,
        "/* c */ Sides(Spent(unit:1,action:Main))",
    ];
    for text in texts {
        assert!(parse(text).is_ok(), "{text}");
        for (end, _) in text.char_indices() {
            let prefix = &text[..end];
            if let Err(e) = parse(prefix) {
                assert!(e.offset <= prefix.len());
                assert!(e.line >= 1 && e.col >= 1);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parse_never_panics_on_any_string(s in any::<String>()) {
        if let Err(e) = parse(&s) {
            prop_assert!(e.offset <= s.len());
            prop_assert!(s.is_char_boundary(e.offset));
        }
    }

    #[test]
    fn parse_never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }

    #[test]
    fn parse_never_panics_on_ron_like_text(s in "[\\[\\](){}:,'\"#r/*\\\\ a-zA-Z0-9_.+\\-éxbuSomeN\n]{0,120}") {
        if let Ok(node) = parse(&s) {
            // Whatever parses renders to text that parses back to the same tree.
            let again = render(&node);
            prop_assert_eq!(render(&p(&again)), again);
        }
    }

    #[test]
    fn render_then_parse_is_identity(node in arb_node()) {
        let text = render(&node);
        prop_assert_eq!(parse(&text), Ok(node.clone()));
        prop_assert_eq!(matches(&node, &node, &Names::default()), Ok(()));
    }
}
