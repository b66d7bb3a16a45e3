//! Unit tests of the span indexer and of the checks on in-memory levels.

use super::spans::*;
use super::*;
use Seg::{Char as C, Field as F, Index as I};
use proptest::prelude::*;

/// `(line, col)` of a path in a text.
fn pos(src: &str, path: &[Seg]) -> Option<(usize, usize)> {
    let spans = Spans::index(src);
    spans.find(path).map(|at| line_cols(src, &[at])[0])
}

const TEXT: &str = r##"#![enable(implicit_some)]
// a comment with ( [ { " '
(
    name: "a \" ( [ {", /* block /* nested */ ( */ list: [1, -2.5e3, r#"raw "quoted" ]"#],
    map: {'x': (cost: Some(2)), '\'': (cost: None), "k\u{e9}y": []},
    tuple: ((1, 2), Variant(inner: b"bytes", other: 'é')),
    r#type: 3,
)
"##;

#[test]
fn records_fields_items_tuples_and_keys() {
    assert_eq!(pos(TEXT, &[]), Some((3, 1)));
    assert_eq!(pos(TEXT, &[F("name")]), Some((4, 11)));
    assert_eq!(pos(TEXT, &[F("list")]), Some((4, 58)));
    assert_eq!(pos(TEXT, &[F("list"), I(0)]), Some((4, 59)));
    assert_eq!(pos(TEXT, &[F("list"), I(1)]), Some((4, 62)));
    assert_eq!(pos(TEXT, &[F("list"), I(2)]), Some((4, 70)));
    assert_eq!(pos(TEXT, &[F("map"), C('x')]), Some((5, 11)));
    assert_eq!(pos(TEXT, &[F("map"), C('x'), F("cost")]), Some((5, 23)));
    assert_eq!(
        pos(TEXT, &[F("map"), C('x'), F("cost"), I(0)]),
        Some((5, 28))
    );
    assert_eq!(pos(TEXT, &[F("map"), C('\'')]), Some((5, 33)));
    assert_eq!(
        pos(TEXT, &[F("map"), Seg::Str("kéy".into())]),
        Some((5, 53))
    );
    assert_eq!(pos(TEXT, &[F("tuple"), I(0), I(1)]), Some((6, 17)));
    assert_eq!(pos(TEXT, &[F("tuple"), I(1), F("other")]), Some((6, 53)));
    assert_eq!(pos(TEXT, &[F("type")]), Some((7, 13)));
    assert_eq!(pos(TEXT, &[F("nope")]), None);
    assert_eq!(pos(TEXT, &[F("list"), I(3)]), None);
}

#[test]
fn locate_falls_back_to_the_deepest_ancestor() {
    let spans = Spans::index(TEXT);
    let list = spans.find(&[F("list")]);
    assert_eq!(Some(spans.locate(&[F("list"), I(9), F("x")])), list);
    assert_eq!(spans.locate(&[F("missing")]), spans.locate(&[]));
}

#[test]
fn glyphs_inside_strings() {
    let src = r##"["a\"\u{41}\x42é", r#"x"y"#, "short"]"##;
    let spans = Spans::index(src);
    let at = |i: usize| spans.find(&[I(i)]).unwrap_or(usize::MAX);
    let glyph = |item: usize, k: usize| char_in_string(src, at(item), k);
    assert_eq!(glyph(0, 0), Some(2));
    assert_eq!(glyph(0, 1), Some(3)); // \"
    assert_eq!(glyph(0, 2), Some(5)); // \u{41}
    assert_eq!(glyph(0, 3), Some(11)); // \x42
    assert_eq!(glyph(0, 4), Some(15)); // é
    assert_eq!(glyph(0, 5), None);
    assert_eq!(glyph(1, 1), Some(src.find("\"y").unwrap_or(0)));
    assert_eq!(glyph(2, 9), None);
    assert_eq!(char_in_string(src, 0, 0), None, "not at a string");
}

#[test]
fn line_and_column_count_characters() {
    let src = "ab\néé x\n\nz";
    let at_x = src.find('x').unwrap_or(0);
    let at_z = src.find('z').unwrap_or(0);
    assert_eq!(
        line_cols(src, &[at_z, 0, at_x, src.len()]),
        vec![(4, 1), (1, 1), (2, 4), (4, 2)]
    );
    assert_eq!(offset_of(src, 2, 4), at_x);
    assert_eq!(offset_of(src, 9, 9), src.len());
    assert_eq!(offset_of(src, 1, 99), 2, "past the end of a line: its end");
}

#[test]
fn deep_nesting_and_huge_lists_are_bounded() {
    let deep = format!("(a: {}1{})", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let spans = Spans::index(&deep);
    assert_eq!(spans.find(&[F("a")]), Some(4));
    let mut path = vec![F("a")];
    path.extend(std::iter::repeat_n(I(0), 200));
    // Deeper than MAX_DEPTH is not recorded: the deepest recorded ancestor answers.
    assert_eq!(spans.find(&path), None);
    assert_eq!(spans.locate(&path), 4 + MAX_DEPTH - 1);
    // Unclosed, too.
    let spans = Spans::index(&"{'x': ([".repeat(300_000));
    assert_eq!(spans.locate(&[C('x')]), 1);

    let many = format!("[{}]", "1,".repeat(MAX_NODES * 2));
    let spans = Spans::index(&many);
    assert_eq!(spans.find(&[I(10)]), Some(21));
    assert_eq!(spans.find(&[I(MAX_NODES + 10)]), None);
    assert_eq!(spans.locate(&[I(MAX_NODES + 10)]), 0);
}

#[test]
fn next_token_skips_whitespace_and_comments() {
    let src = "a   // c\n /* d */ b";
    assert_eq!(next_token(src, 1), src.find('b').unwrap_or(0));
    assert_eq!(next_token(src, 0), 0);
    assert_eq!(next_token("a   ", 1), 1, "nothing after: stay");
}

#[test]
fn check_works_on_in_memory_levels() {
    let mut file: LevelFile = ron::from_str(
        r#"(name: "t", ruleset: "sides", topology: Square(diagonals: One), size: (2, 1),
            map: [".."], sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
            units: [(name: "a", side: "A", cell: (0, 0), template: "wolf"),
                    (name: "b", side: "B", cell: (1, 0), template: "wolf")])"#,
    )
    .expect("parses");
    assert_eq!(check(&file), vec![]);
    let level = Level::from_file(file.clone()).expect("valid");
    assert_eq!(level.victory(), vec![Victory::LastSideStanding]);
    file.units[1].cell = (5, 0);
    let problems = check(&file);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path.to_string(), "units[1].cell");
    assert_eq!(
        problems[0].to_string(),
        "units[1].cell: unit 'b' stands at (5, 0), outside the 2x1 map (x runs 0 to 1, y 0 to 0)"
    );
    assert!(Level::from_file(file).is_err());
}

#[test]
fn merged_legend_keeps_standard_order_then_new_glyphs() {
    let mut own = BTreeMap::new();
    own.insert('z', kinds::water());
    own.insert('#', kinds::rough());
    own.insert('a', kinds::floor());
    let merged = merged_legend(&own);
    let glyphs: String = merged.iter().map(|(g, _)| *g).collect();
    assert_eq!(glyphs, ".,#O+~T:DdLaz");
    assert_eq!(merged[2].1, kinds::rough());
}

#[test]
fn an_unclosed_char_literal_of_wide_characters_stops_on_a_character_boundary() {
    // Found by the property below: the char-literal skipper gave up in the middle of a
    // three-byte character.
    let s = "[A'\u{ffc2}A\u{dcf}\u{11ee0}\u{2e80}";
    let at = Spans::index(s).locate(&[I(2)]);
    assert!(
        s.is_char_boundary(at),
        "offset {at} splits a character of {s:?}"
    );
    let escaped = "['\\\u{2e80}\u{2e80}\u{2e80}\u{2e80}\u{2e80}";
    let at = Spans::index(escaped).locate(&[I(1)]);
    assert!(escaped.is_char_boundary(at));
}

#[test]
fn a_long_char_literal_is_given_up_on_a_character_boundary() {
    // Found by the proptest below: the literal is abandoned inside a 4-byte character.
    let s = "(A'\u{a1}a  \u{1d2e0}A\u{c60}";
    let spans = Spans::index(s);
    let at = spans.locate(&[I(2)]);
    assert!(at <= s.len());
    assert!(s.is_char_boundary(at));
    let _ = char_in_string(s, at, 3);
    let _ = next_token(s, at);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn indexer_never_panics_and_stays_on_char_boundaries(s in any::<String>(), path in proptest::collection::vec(0usize..4, 0..4)) {
        let spans = Spans::index(&s);
        let segs: Vec<Seg> = path.iter().map(|&i| I(i)).collect();
        let at = spans.locate(&segs);
        prop_assert!(at <= s.len());
        prop_assert!(s.is_char_boundary(at));
        let _ = char_in_string(&s, at, 3);
        let _ = next_token(&s, at);
    }

    #[test]
    fn indexer_on_ron_like_text(s in "[\\[\\](){}:,'\"#r/*\\\\ a-z0-9é\n]{0,200}") {
        let spans = Spans::index(&s);
        let at = spans.locate(&[I(0), F("a"), C('x'), I(1)]);
        prop_assert!(s.is_char_boundary(at));
    }

    #[test]
    fn offset_and_line_col_are_inverse(s in "[a-zé\n\t ]{0,80}", pick in any::<prop::sample::Index>()) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[pick.index(bounds.len())];
        let (line, col) = line_cols(&s, &[at])[0];
        prop_assert_eq!(offset_of(&s, line, col), at);
    }
}

/// The 1-based (line, col) of the first `needle` in `text` (columns in characters).
fn find_at(text: &str, needle: &str) -> (usize, usize) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the text"));
    line_cols(text, &[at])[0]
}

#[test]
fn event_problems_are_reported_at_their_line_and_column() {
    let text = r#"(
    name: "Events", ruleset: "sides", topology: Square(diagonals: One), size: (4, 3),
    map: ["....", ".#..", "...."],
    sides: [(name: "Heroes", controller: Human), (name: "Foes", controller: Ai)],
    units: [
        (name: "A", side: "Heroes", template: "warrior", cell: (0, 0)),
        (name: "B", side: "Foes", template: "warrior", cell: (3, 2)),
    ],
    events: [
        (when: Round(0), then: [Message("dawn")]),
        (when: Enters(side: "Ghosts", area: Cells([(1, 0), (9, 9)])), then: [Message("boo")]),
        (when: Lost(side: "Foes", units: 0), then: []),
        (when: Round(2), then: [Reinforcements([
            (name: "A", side: "Heroes", template: "warrior", cell: (2, 0)),
            (name: "W", side: "Heroes", template: "warrior", cell: (1, 1)),
            (name: "X", side: "Elves", template: "warrior", cell: (5, 0)),
            (name: "Y", side: "Foes", template: "dragon", cell: (0, 2)),
            (name: "Z", side: "Foes", template: "warrior", cell: (3, 0), overrides: {"wings": 2}),
        ])]),
        (when: Round(3), then: [Objectives(side: "Foes", victory: [ReachCell(side: "Heroes", cell: (1, 1))])]),
    ],
)"#;
    let Err(diags) = load("ev.ron", text) else {
        panic!("accepted")
    };
    let got: Vec<(usize, usize, &str)> = diags
        .iter()
        .map(|d| (d.line, d.col, d.message.as_str()))
        .collect();
    let expect = [
        ("Round(0)", "0", "round 0"),
        (
            "\"Ghosts\"",
            "\"Ghosts\"",
            "side 'Ghosts', which the level does not define",
        ),
        ("(9, 9)", "(9, 9)", "outside the 4x3 map"),
        ("units: 0", "0", "0 units are lost"),
        ("then: []", "[]", "does nothing"),
        (
            "(name: \"A\", side: \"Heroes\", template: \"warrior\", cell: (2, 0))",
            "\"A\"",
            "already named 'A'",
        ),
        ("cell: (1, 1)),", "(1, 1)", "no unit can stand there"),
        ("\"Elves\"", "\"Elves\"", "side 'Elves'"),
        ("cell: (5, 0)", "(5, 0)", "outside the 4x3 map"),
        ("\"dragon\"", "\"dragon\"", "template 'dragon'"),
        ("\"wings\"", "\"wings\"", "overrides 'wings'"),
        (
            "side: \"Heroes\", cell: (1, 1)",
            "\"Heroes\"",
            "each new objective names 'Foes'",
        ),
        ("cell: (1, 1))])", "(1, 1)", "no unit can stand there"),
    ];
    assert_eq!(got.len(), expect.len(), "{diags:#?}");
    for (anchor, value, message) in expect {
        let base = text.find(anchor).unwrap_or_else(|| panic!("{anchor}"));
        let off = base + text[base..].find(value).expect("value in its anchor");
        let (line, col) = line_cols(text, &[off])[0];
        assert!(
            got.iter()
                .any(|&(l, c, m)| l == line && c == col && m.contains(message)),
            "no `{message}` at {line}:{col} ({anchor}); got {got:#?}"
        );
    }
}

#[test]
fn a_level_with_events_loads_and_an_unknown_trigger_is_named() {
    let base = r#"(
    name: "E", ruleset: "sides", topology: Square(diagonals: One), size: (3, 1),
    map: ["..."],
    sides: [(name: "H", controller: Human), (name: "F", controller: Ai)],
    units: [(name: "A", side: "H", template: "warrior", cell: (0, 0)),
            (name: "B", side: "F", template: "warrior", cell: (2, 0))],
    events: [(when: WHEN, then: [Message("hi")])],
)"#;
    for ok in [
        "Round(2)",
        "Lost(side: \"F\", units: 1)",
        "Enters(side: \"H\", area: Rect(from: (1, 0), to: (2, 0)))",
    ] {
        let level = load("e.ron", &base.replace("WHEN", ok)).expect(ok);
        assert_eq!(level.file.events.len(), 1);
    }
    let Err(d) = load("e.ron", &base.replace("WHEN", "Dawn(2)")) else {
        panic!("accepted")
    };
    assert_eq!(
        (d[0].line, d[0].col),
        find_at(&base.replace("WHEN", "Dawn(2)"), "Dawn")
    );
    assert!(
        d[0].message.contains("unknown trigger (`when`) `Dawn`"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].message.contains("`Round`, `Enters`, `Lost`"),
        "{}",
        d[0].message
    );
}
