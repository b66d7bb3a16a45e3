//! The editing model: edits change only their lines, keep comments, validate, and undo and
//! redo exactly.

use super::*;
use crate::rules::level;

fn shipped() -> Vec<(String, String)> {
    crate::shipped_levels()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a shipped level reads");
            (p.display().to_string(), text)
        })
        .collect()
}

/// The lines of `a` and `b` that differ, as (old, new) pairs, for texts with the same number
/// of lines.
fn changed_lines<'a>(a: &'a str, b: &'a str) -> Vec<(&'a str, &'a str)> {
    assert_eq!(a.lines().count(), b.lines().count(), "{b}");
    a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect()
}

fn file(text: &str) -> LevelFile {
    level::ron_options().from_str(text).expect("parses")
}

#[test]
fn an_unedited_level_is_saved_byte_for_byte() {
    for (_, text) in shipped() {
        let doc = LevelDoc::new(text.clone());
        assert_eq!(doc.text(), text);
    }
}

#[test]
fn painting_a_cell_changes_only_its_row_and_validates() {
    for (name, text) in shipped() {
        let f = file(&text);
        // The first cell of the middle row becomes a wall (`#` is in the standard legend).
        let y = f.map.len() as i32 / 2;
        let now = f.map[y as usize].chars().next();
        let glyph = if now == Some('#') { '.' } else { '#' };
        let mut doc = LevelDoc::new(text.clone());
        doc.apply(&Edit::Paint {
            cell: (0, y),
            glyph,
        })
        .expect("paints");
        let changed = changed_lines(&text, doc.text());
        assert_eq!(changed.len(), 1, "{name}: {changed:?}");
        assert_eq!(
            file(doc.text()).map[y as usize].chars().next(),
            Some(glyph),
            "{name}"
        );
        // Off the map: refused, nothing changes.
        let before = doc.text().to_string();
        let e = doc
            .apply(&Edit::Paint {
                cell: (999, 0),
                glyph: '#',
            })
            .expect_err("refused");
        assert!(e.contains("off the map"), "{e}");
        assert_eq!(doc.text(), before);
    }
}

#[test]
fn moving_adding_and_removing_units_touch_only_their_lines() {
    for (name, text) in shipped() {
        let f = file(&text);
        let first = f.units[0].clone();
        let mut doc = LevelDoc::new(text.clone());
        // Move: one line changes (or the line holding the cell).
        doc.apply(&Edit::MoveUnit {
            unit: first.name.clone(),
            to: (first.cell.0, first.cell.1),
        })
        .expect("moves");
        assert_eq!(
            doc.text(),
            text,
            "{name}: a move to the same cell changes nothing"
        );
        let free = (0..f.size.1 as i32)
            .flat_map(|y| (0..f.size.0 as i32).map(move |x| (x, y)))
            .find(|&c| {
                let row: Vec<char> = f.map[c.1 as usize].chars().collect();
                row[c.0 as usize] == '.' && f.units.iter().all(|u| u.cell != c)
            })
            .expect("a free floor cell");
        doc.apply(&Edit::MoveUnit {
            unit: first.name.clone(),
            to: free,
        })
        .expect("moves");
        assert_eq!(changed_lines(&text, doc.text()).len(), 1, "{name}");
        assert_eq!(file(doc.text()).units[0].cell, free);
        assert!(
            level::validate("x.ron", doc.text()).is_empty(),
            "{name}: {:?}",
            level::validate("x.ron", doc.text())
        );
        // Add a unit: one line more, after the last unit; it validates.
        let moved = doc.text().to_string();
        let spare = (0..f.size.1 as i32)
            .flat_map(|y| (0..f.size.0 as i32).map(move |x| (x, y)))
            .find(|&c| {
                let row: Vec<char> = f.map[c.1 as usize].chars().collect();
                row[c.0 as usize] == '.' && c != free && f.units.iter().all(|u| u.cell != c)
            })
            .expect("another free floor cell");
        doc.apply(&Edit::AddUnit {
            name: "Newcomer".into(),
            side: first.side.clone(),
            cell: spare,
            template: first.template.clone(),
            overrides: BTreeMap::from([("hp".to_string(), 7)]),
            items: Vec::new(),
        })
        .expect("adds");
        assert_eq!(
            doc.text().lines().count(),
            moved.lines().count() + 1,
            "{name}"
        );
        let added = file(doc.text());
        assert_eq!(added.units.len(), f.units.len() + 1);
        assert_eq!(
            added.units.last().map(|u| u.name.as_str()),
            Some("Newcomer")
        );
        let problems = level::validate("x.ron", doc.text());
        // Templates without an `hp` stat refuse the override: that is the validator's word.
        assert!(
            problems.iter().all(|p| p.message.contains("hp")),
            "{name}: {problems:?}"
        );
        // Remove it again: the text is what it was before the add.
        doc.apply(&Edit::RemoveUnit {
            unit: "Newcomer".into(),
        })
        .expect("removes");
        assert_eq!(doc.text(), moved, "{name}");
        // Undo and redo walk the same texts back and forth.
        assert!(doc.undo());
        assert_eq!(file(doc.text()).units.len(), f.units.len() + 1);
        assert!(doc.undo());
        assert_eq!(doc.text(), moved);
        assert!(doc.undo());
        assert_eq!(doc.text(), text);
        assert!(!doc.undo());
        assert!(doc.redo() && doc.redo());
        assert_eq!(file(doc.text()).units.len(), f.units.len() + 1);
        assert!(doc.redo());
        assert_eq!(doc.text(), moved);
        assert!(!doc.redo());
    }
}

const SMALL: &str = r#"// A small level.
(
    name: "Small", // the name
    ruleset: "sides",
    topology: Square(diagonals: One),
    size: (4, 2),
    map: [
        "....",
        ".#..", // a pillar
    ],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (3, 1), template: "warrior", overrides: {"hp": 9}),
    ],
)
"#;

#[test]
fn overrides_fields_and_victory_conditions() {
    let mut doc = LevelDoc::new(SMALL);
    let set = |unit: &str, stat: &str, value| Edit::SetOverride {
        unit: unit.into(),
        stat: stat.into(),
        value,
    };
    doc.apply(&set("a", "hp", Some(12))).expect("adds the map");
    assert!(
        doc.text()
            .contains(r#"template: "warrior", overrides: {"hp": 12}),"#),
        "{}",
        doc.text()
    );
    doc.apply(&set("b", "hp", Some(10))).expect("replaces");
    doc.apply(&set("b", "defense", Some(2)))
        .expect("adds an entry");
    assert!(
        doc.text()
            .contains(r#"overrides: {"hp": 10, "defense": 2}),"#),
        "{}",
        doc.text()
    );
    doc.apply(&set("b", "hp", None)).expect("removes the first");
    assert!(
        doc.text().contains(r#"overrides: {"defense": 2}),"#),
        "{}",
        doc.text()
    );
    doc.apply(&set("b", "defense", None))
        .expect("removes the last");
    assert!(
        doc.text()
            .contains(r#"(name: "b", side: "B", cell: (3, 1), template: "warrior"),"#),
        "the last one takes the field with it: {}",
        doc.text()
    );
    doc.apply(&set("a", "hp", None))
        .expect("removes the only one");
    assert_eq!(
        doc.text(),
        SMALL
            .replace(r#""hp": 9"#, "")
            .replace(", overrides: {}", "")
    );
    doc.apply(&Edit::SetName("Smaller".into()))
        .expect("renames");
    assert!(
        doc.text().contains(r#"name: "Smaller", // the name"#),
        "{}",
        doc.text()
    );
    doc.apply(&Edit::SetSeed(42)).expect("adds a field");
    assert!(
        doc.text().contains("// the name\n    seed: 42,\n"),
        "{}",
        doc.text()
    );
    doc.apply(&Edit::AddVictory(Victory::ReachCell {
        side: "A".into(),
        cell: (3, 0),
    }))
    .expect("adds the list");
    doc.apply(&Edit::AddVictory(Victory::SurviveRounds {
        side: "B".into(),
        rounds: 5,
    }))
    .expect("adds to the list");
    let f = file(doc.text());
    assert_eq!(f.seed, 42);
    assert_eq!(f.victory.len(), 2);
    doc.apply(&Edit::RemoveVictory(0)).expect("removes");
    assert_eq!(
        file(doc.text()).victory,
        vec![Victory::SurviveRounds {
            side: "B".into(),
            rounds: 5
        }]
    );
    assert!(doc.apply(&Edit::RemoveVictory(3)).is_err());
    assert!(
        level::validate("x.ron", doc.text()).is_empty(),
        "{:?}",
        level::validate("x.ron", doc.text())
    );
    // Comments all survive.
    for c in ["// A small level.", "// the name", "// a pillar"] {
        assert!(doc.text().contains(c), "{c}");
    }
    // Unknown units are refused with the names there are.
    let e = doc.apply(&set("zed", "hp", Some(1))).expect_err("refused");
    assert!(e.contains("'a', 'b'"), "{e}");
}

#[test]
fn resizing_keeps_the_map_and_moves_units_with_it() {
    let mut doc = LevelDoc::new(SMALL);
    doc.apply(&Edit::Resize {
        size: (6, 3),
        offset: (1, 1),
        fill: '.',
    })
    .expect("resizes");
    let f = file(doc.text());
    assert_eq!(f.size, (6, 3));
    assert_eq!(f.map, ["......", "......", "..#..."]);
    assert_eq!(f.units[0].cell, (1, 1));
    assert_eq!(f.units[1].cell, (4, 2));
    assert!(
        level::validate("x.ron", doc.text()).is_empty(),
        "{:?}",
        level::validate("x.ron", doc.text())
    );
    // A rectangle of water in the new space.
    doc.apply(&Edit::PaintRect {
        from: (5, 0),
        to: (4, 1),
        glyph: '~',
    })
    .expect("paints");
    assert_eq!(file(doc.text()).map, ["....~~", "....~~", "..#..."]);
    assert!(
        doc.apply(&Edit::Resize {
            size: (0, 3),
            offset: (0, 0),
            fill: '.'
        })
        .is_err()
    );
}

#[test]
fn a_text_that_does_not_parse_is_not_edited() {
    let mut doc = LevelDoc::new("(name: \"broken\", ");
    let e = doc.apply(&Edit::SetSeed(1)).expect_err("refused");
    assert!(e.contains("does not parse"), "{e}");
    assert_eq!(doc.text(), "(name: \"broken\", ");
}

/// A new level of every ruleset on every grid it allows, at the smallest and a large size:
/// it validates, has the size asked for, and opens and saves unchanged.
#[test]
fn a_blank_level_of_every_ruleset_and_grid_is_valid() {
    use crate::rules::grid::Topology;
    let mut made = 0;
    for data in crate::rules::ruleset_data::all() {
        for topology in Topology::ALL {
            if !data.allows(topology) {
                continue;
            }
            for size in [(2, 1), (30, 20)] {
                let text = super::blank(data, topology, size);
                let level = crate::rules::level::load("new.ron", &text)
                    .unwrap_or_else(|d| panic!("{} {topology:?}: {d:?}\n{text}", data.id));
                assert_eq!(level.file.size, size);
                assert_eq!(level.file.topology, topology);
                assert_eq!(level.file.ruleset.to_string(), data.id);
                let mut doc = LevelDoc::new(text.clone());
                doc.apply(&Edit::Paint {
                    cell: (0, 0),
                    glyph: '#',
                })
                .expect("paint");
                assert!(doc.undo());
                assert_eq!(doc.text(), text);
                made += 1;
            }
        }
    }
    assert!(made >= 10, "{made}");
}

/// The paint bucket fills the region of same glyphs joined by sides (on squares) and stops
/// at other glyphs; on hexes it joins through the six neighbours. One undo takes it back.
#[test]
fn fill_paints_the_region_of_the_cell_and_nothing_else() {
    let level_text = |topology: &str, rows: [&str; 3]| {
        format!(
            r##"(
    name: "F", ruleset: "sides", topology: {topology}, size: (5, 3),
    map: ["{}", "{}", "{}"],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (4, 2), template: "warrior"),
    ],
)"##,
            rows[0], rows[1], rows[2]
        )
    };
    let text = level_text("Square(diagonals: One)", ["..#..", "..#..", "#.#.."]);
    let mut doc = LevelDoc::new(text.clone());
    doc.apply(&Edit::Fill {
        cell: (0, 0),
        glyph: '~',
    })
    .expect("fill");
    let map = level::load("f.ron", doc.text()).expect("valid").file.map;
    // (0, 2) is a wall; the column of walls keeps the right side dry; no diagonal leak.
    assert_eq!(map, ["~~#..", "~~#..", "#~#.."]);
    assert!(doc.undo());
    assert_eq!(doc.text(), text);
    assert!(
        doc.apply(&Edit::Fill {
            cell: (9, 0),
            glyph: '~'
        })
        .is_err()
    );
    // On hexes the region goes through the six neighbours.
    let hex = level_text("Hex(orientation: Pointy)", [".#...", "#.#..", "##..."]);
    let mut doc = LevelDoc::new(hex);
    doc.apply(&Edit::Fill {
        cell: (4, 0),
        glyph: '~',
    })
    .expect("fill");
    // (A `sides` level on hexes does not validate; the map is all that matters here.)
    let file: LevelFile = level::ron_options().from_str(doc.text()).expect("parses");
    let grid = crate::rules::grid::Grid::new(file.topology, 5, 3);
    let glyph = |x: i32, y: i32| file.map[y as usize].chars().nth(x as usize);
    // No floor cell is left next to a painted one, and the cut-off corner stays floor.
    for y in 0..3 {
        for x in 0..5 {
            if glyph(x, y) != Some('~') {
                continue;
            }
            for n in grid.neighbours(crate::rules::grid::Cell::new(x, y)) {
                assert_ne!(glyph(n.x, n.y), Some('.'), "({}, {}) was left", n.x, n.y);
            }
        }
    }
    assert_eq!(glyph(0, 0), Some('.'), "{:?}", file.map);
    assert_eq!(glyph(4, 2), Some('~'));
}

/// A problem's position leads to its cell: a bad glyph to the map cell, a unit's problem
/// (an unknown template) to the unit's starting cell; a problem elsewhere to none.
#[test]
fn a_problem_is_located_on_its_cell() {
    let text = r#"(
    name: "P", ruleset: "sides", topology: Square(diagonals: One), size: (4, 2),
    map: [
        "....",
        "..?.",
    ],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (3, 1), template: "no_such_thing"),
    ],
)"#;
    let problems = level::validate("p.ron", text);
    let cells: Vec<Option<(i32, i32)>> = problems
        .iter()
        .map(|d| super::locate(text, d.line, d.col))
        .collect();
    assert!(cells.contains(&Some((2, 1))), "{problems:?} {cells:?}");
    assert!(cells.contains(&Some((3, 1))), "{problems:?} {cells:?}");
    // The name's line is about no cell; a position past the end neither.
    assert_eq!(super::locate(text, 2, 12), None);
    assert_eq!(super::locate(text, 99, 1), None);
}

/// Renaming a side renames it everywhere it is named (its units, its victory conditions) and
/// nowhere else; renaming a unit changes its name only; a side's controller changes alone.
/// Names already taken are refused and change nothing.
#[test]
fn renames_reach_every_reference_and_refuse_taken_names() {
    let text = r#"(
    name: "R", ruleset: "sides", topology: Square(diagonals: One), size: (4, 2),
    map: ["....", "...."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (3, 1), template: "warrior"),
        (name: "c", side: "A", cell: (1, 0), template: "warrior"),
    ],
    victory: [ReachCell(side: "A", cell: (3, 0)), SurviveRounds(side: "B", rounds: 5)],
)"#;
    let mut doc = LevelDoc::new(text);
    doc.apply(&Edit::RenameSide {
        side: "A".into(),
        to: "Wardens".into(),
    })
    .expect("rename");
    let f = level::load("r.ron", doc.text()).expect("valid").file;
    assert_eq!(f.sides[0].name, "Wardens");
    assert_eq!(
        f.units.iter().map(|u| u.side.as_str()).collect::<Vec<_>>(),
        ["Wardens", "B", "Wardens"]
    );
    assert_eq!(
        f.victory,
        [
            Victory::ReachCell {
                side: "Wardens".into(),
                cell: (3, 0)
            },
            Victory::SurviveRounds {
                side: "B".into(),
                rounds: 5
            }
        ]
    );
    doc.apply(&Edit::RenameUnit {
        unit: "b".into(),
        to: "Brute".into(),
    })
    .expect("rename");
    doc.apply(&Edit::SetController {
        side: "B".into(),
        controller: super::super::Controller::Human,
    })
    .expect("controller");
    let f = level::load("r.ron", doc.text()).expect("valid").file;
    assert_eq!(f.units[1].name, "Brute");
    assert_eq!(f.sides[1].controller, super::super::Controller::Human);
    let before = doc.text().to_string();
    for bad in [
        Edit::RenameUnit {
            unit: "a".into(),
            to: "c".into(),
        },
        Edit::RenameSide {
            side: "B".into(),
            to: "Wardens".into(),
        },
        Edit::RenameSide {
            side: "Nobody".into(),
            to: "X".into(),
        },
        Edit::RenameUnit {
            unit: "a".into(),
            to: " ".into(),
        },
    ] {
        assert!(doc.apply(&bad).is_err(), "{bad:?}");
        assert_eq!(doc.text(), before);
    }
    for _ in 0..3 {
        assert!(doc.undo());
    }
    assert_eq!(doc.text(), text);
}

/// A painted line: both ends and the cells between, one edit (one undo).
#[test]
fn paint_line_paints_a_straight_line() {
    let text = r#"(
    name: "L", ruleset: "sides", topology: Square(diagonals: One), size: (5, 3),
    map: [".....", ".....", "....."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 2), template: "warrior"),
        (name: "b", side: "B", cell: (4, 0), template: "warrior"),
    ],
)"#;
    let mut doc = LevelDoc::new(text);
    doc.apply(&Edit::PaintLine {
        from: (0, 0),
        to: (4, 2),
        glyph: '#',
    })
    .expect("line");
    let map = level::load("l.ron", doc.text()).expect("valid").file.map;
    assert_eq!(map, ["#....", ".##..", "...##"]);
    assert!(doc.undo());
    assert_eq!(doc.text(), text);
    assert!(
        doc.apply(&Edit::PaintLine {
            from: (0, 0),
            to: (9, 0),
            glyph: '#'
        })
        .is_err()
    );
}

/// Legend entries: one added to a legend written one entry a line goes on its own line; an
/// entry is changed in place and removed with its line; a level without a legend gets one;
/// every step validates and undo returns the bytes.
#[test]
fn legend_entries_are_added_changed_and_removed_as_written() {
    use crate::rules::map::{Sight, Terrain};
    let text = std::fs::read_to_string(crate::repo_dir().join("levels/alternating_bridge.ron"))
        .expect("read");
    let mut doc = LevelDoc::new(text.clone());
    let bog = Terrain {
        name: "bog".into(),
        cost: Some(3),
        sight: Sight::Clear,
        difficult: true,
        door: None,
    };
    doc.apply(&Edit::SetLegend {
        glyph: 'b',
        terrain: Some(bog.clone()),
    })
    .expect("add");
    assert!(
        doc.text().contains(
            "\n        'b': (name: \"bog\", cost: Some(3), sight: Clear, difficult: true),\n"
        ),
        "{}",
        doc.text()
    );
    let f = level::load("b.ron", doc.text()).expect("valid").file;
    assert_eq!(f.legend.get(&'b'), Some(&bog));
    // Changed in place: deep water becomes passable.
    let mut water = f.legend[&'w'].clone();
    water.cost = Some(4);
    doc.apply(&Edit::SetLegend {
        glyph: 'w',
        terrain: Some(water.clone()),
    })
    .expect("change");
    let f = level::load("b.ron", doc.text()).expect("valid").file;
    assert_eq!(f.legend.get(&'w'), Some(&water));
    // Removed with its line.
    doc.apply(&Edit::SetLegend {
        glyph: 'b',
        terrain: None,
    })
    .expect("remove");
    assert!(!doc.text().contains("bog"));
    level::load("b.ron", doc.text()).expect("valid");
    for _ in 0..3 {
        assert!(doc.undo());
    }
    assert_eq!(doc.text(), text);
    // A level with no legend gets one.
    let text = super::blank(
        crate::rules::ruleset_data::builtin(crate::rules::rulesets::RulesetId::Sides)
            .expect("sides"),
        crate::rules::grid::Topology::Square {
            diagonals: crate::rules::grid::Diagonals::One,
        },
        (6, 4),
    );
    let mut doc = LevelDoc::new(text);
    doc.apply(&Edit::SetLegend {
        glyph: 'b',
        terrain: Some(bog.clone()),
    })
    .expect("add");
    let f = level::load("n.ron", doc.text()).expect("valid").file;
    assert_eq!(f.legend.get(&'b'), Some(&bog));
    assert!(
        doc.apply(&Edit::SetLegend {
            glyph: '"',
            terrain: None
        })
        .is_err()
    );
}

#[test]
fn heights_are_added_set_row_by_row_resized_and_validated() {
    let mut doc = LevelDoc::new(SMALL);
    // A flat level gets a `heights` layer after its map.
    doc.apply(&Edit::SetHeight {
        from: (2, 0),
        to: (3, 0),
        height: 2,
    })
    .expect("raises");
    assert_eq!(file(doc.text()).heights, ["0022", "0000"]);
    assert!(level::validate("x.ron", doc.text()).is_empty());
    let built = level::load("x.ron", doc.text()).expect("loads");
    assert_eq!(built.terrain.height(crate::rules::grid::Cell::new(3, 0)), 2);
    // Then an edit changes only the rows it touches.
    let before = doc.text().to_string();
    doc.apply(&Edit::SetHeight {
        from: (0, 1),
        to: (0, 1),
        height: 1,
    })
    .expect("raises");
    let changed = changed_lines(&before, doc.text());
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(file(doc.text()).heights, ["0022", "1000"]);
    // Resizing keeps heights with their cells; new cells are level.
    doc.apply(&Edit::Resize {
        size: (5, 3),
        offset: (1, 0),
        fill: '.',
    })
    .expect("resizes");
    assert_eq!(file(doc.text()).heights, ["00022", "01000", "00000"]);
    assert!(level::validate("x.ron", doc.text()).is_empty());
    // Refusals change nothing.
    let before = doc.text().to_string();
    for bad in [
        Edit::SetHeight {
            from: (0, 0),
            to: (9, 9),
            height: 1,
        },
        Edit::SetHeight {
            from: (0, 0),
            to: (0, 0),
            height: 10,
        },
    ] {
        assert!(doc.apply(&bad).is_err());
        assert_eq!(doc.text(), before);
    }
    doc.undo();
    assert_eq!(file(doc.text()).heights, ["0022", "1000"]);
}

#[test]
fn heights_follow_a_line_and_fill_a_region_of_one_height() {
    let mut doc = LevelDoc::new(SMALL);
    // A line on a flat level adds the layer; its cells are the painted line's.
    doc.apply(&Edit::SetHeightLine {
        from: (0, 0),
        to: (3, 1),
        height: 3,
    })
    .expect("a line");
    let f = file(doc.text());
    let (w, h) = (f.size.0 as i32, f.size.1 as i32);
    let mut painted = LevelDoc::new(SMALL);
    painted
        .apply(&Edit::PaintLine {
            from: (0, 0),
            to: (3, 1),
            glyph: '#',
        })
        .expect("paints");
    let walls = file(painted.text());
    for y in 0..h {
        for x in 0..w {
            let on_line = walls.map[y as usize].chars().nth(x as usize) == Some('#')
                && file(SMALL).map[y as usize].chars().nth(x as usize) != Some('#');
            if on_line {
                assert_eq!(f.height_at((x, y)), 3, "({x}, {y})");
            }
        }
    }
    assert_eq!(f.max_height(), 3);
    // The fill takes the clicked cell's region of one height, nothing else.
    let before = file(doc.text());
    doc.apply(&Edit::FillHeight {
        cell: (3, 0),
        height: 1,
    })
    .expect("fills");
    let after = file(doc.text());
    assert_eq!((before.height_at((3, 0)), after.height_at((3, 0))), (0, 1));
    let changed = |c: (i32, i32)| before.height_at(c) != after.height_at(c);
    for y in 0..h {
        for x in 0..w {
            if changed((x, y)) {
                // Only flat cells change, and the region is closed: a flat cell beside a
                // changed one (sharing a side) changed too.
                assert_eq!((before.height_at((x, y)), after.height_at((x, y))), (0, 1));
                for n in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                    if (0..w).contains(&n.0) && (0..h).contains(&n.1) && before.height_at(n) == 0 {
                        assert!(changed(n), "{n:?} beside ({x}, {y})");
                    }
                }
            }
        }
    }
    assert!(level::validate("x.ron", doc.text()).is_empty());
    // Off the map: refused, nothing changes; undo and redo give the same texts.
    let text = doc.text().to_string();
    assert!(
        doc.apply(&Edit::FillHeight {
            cell: (9, 0),
            height: 1
        })
        .is_err()
    );
    assert_eq!(doc.text(), text);
    doc.undo();
    assert_eq!(file(doc.text()), before);
    doc.redo();
    assert_eq!(doc.text(), text);
}

#[test]
fn a_bad_heights_layer_is_reported_where_it_is() {
    let text = SMALL.replace(
        "    sides:",
        "    heights: [\n        \"0010\",\n        \"0x0\",\n    ],\n    sides:",
    );
    let problems = level::validate("x.ron", &text);
    let said: Vec<String> = problems.iter().map(|d| d.to_string()).collect();
    assert!(
        said.iter()
            .any(|d| d.contains("x.ron:13:9") && d.contains("3 digits wide")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|d| d.contains("x.ron:13:11") && d.contains("not a digit")),
        "{said:?}"
    );
}

#[test]
fn every_edit_kind_undone_and_redone_gives_the_same_text_and_model() {
    use crate::rules::map::{Sight, Terrain};
    let bog = Terrain {
        name: "bog".into(),
        cost: Some(3),
        sight: Sight::Clear,
        difficult: true,
        door: None,
    };
    let edits = vec![
        Edit::Paint {
            cell: (1, 0),
            glyph: '~',
        },
        Edit::PaintRect {
            from: (2, 0),
            to: (3, 0),
            glyph: ',',
        },
        Edit::PaintLine {
            from: (0, 1),
            to: (2, 1),
            glyph: '~',
        },
        Edit::Fill {
            cell: (0, 1),
            glyph: '.',
        },
        Edit::Resize {
            size: (5, 3),
            offset: (0, 0),
            fill: '.',
        },
        Edit::SetHeight {
            from: (0, 0),
            to: (1, 0),
            height: 2,
        },
        Edit::SetHeightLine {
            from: (0, 2),
            to: (4, 2),
            height: 1,
        },
        Edit::FillHeight {
            cell: (4, 0),
            height: 3,
        },
        Edit::AddUnit {
            name: "c".into(),
            side: "A".into(),
            cell: (4, 2),
            template: "warrior".into(),
            overrides: Default::default(),
            items: vec!["dagger".into()],
        },
        Edit::MoveUnit {
            unit: "c".into(),
            to: (4, 1),
        },
        Edit::SetItems {
            unit: "c".into(),
            items: vec!["dagger".into(), "longsword".into()],
        },
        Edit::AddItem {
            item: "longsword".into(),
            cell: (2, 2),
        },
        Edit::AddItem {
            item: "dagger".into(),
            cell: (2, 2),
        },
        Edit::RemoveItem { cell: (2, 2) },
        Edit::SetOverride {
            unit: "a".into(),
            stat: "hp".into(),
            value: Some(10),
        },
        Edit::RenameUnit {
            unit: "c".into(),
            to: "cee".into(),
        },
        Edit::RenameSide {
            side: "A".into(),
            to: "Alpha".into(),
        },
        Edit::SetController {
            side: "B".into(),
            controller: super::super::Controller::Human,
        },
        Edit::SetLegend {
            glyph: 'b',
            terrain: Some(bog),
        },
        Edit::SetName("N".into()),
        Edit::SetDescription("d".into()),
        Edit::SetSeed(9),
        Edit::AddVictory(Victory::LastSideStanding),
        Edit::RemoveVictory(0),
        Edit::AddReinforcement {
            round: 2,
            unit: reinforcement("r", "B", (0, 2)),
        },
        Edit::MoveReinforcement {
            unit: "r".into(),
            to: (1, 2),
        },
        Edit::AddEvent(message(3, "m")),
        Edit::RemoveEvent(1),
        Edit::RemoveReinforcement { unit: "r".into() },
        Edit::RemoveUnit { unit: "cee".into() },
    ];
    // Every kind is here: a new kind must be added to the list (the match will not compile
    // without it).
    let kind = |e: &Edit| match e {
        Edit::Paint { .. } => 0,
        Edit::PaintRect { .. } => 1,
        Edit::PaintLine { .. } => 2,
        Edit::Fill { .. } => 3,
        Edit::Resize { .. } => 4,
        Edit::SetHeight { .. } => 5,
        Edit::SetHeightLine { .. } => 6,
        Edit::FillHeight { .. } => 7,
        Edit::AddUnit { .. } => 8,
        Edit::MoveUnit { .. } => 9,
        Edit::SetOverride { .. } => 10,
        Edit::RenameUnit { .. } => 11,
        Edit::RenameSide { .. } => 12,
        Edit::SetController { .. } => 13,
        Edit::SetLegend { .. } => 14,
        Edit::SetName(_) => 15,
        Edit::SetDescription(_) => 16,
        Edit::SetSeed(_) => 17,
        Edit::AddVictory(_) => 18,
        Edit::RemoveVictory(_) => 19,
        Edit::RemoveUnit { .. } => 20,
        Edit::AddEvent(_) => 21,
        Edit::RemoveEvent(_) => 22,
        Edit::AddReinforcement { .. } => 23,
        Edit::MoveReinforcement { .. } => 24,
        Edit::RemoveReinforcement { .. } => 25,
        Edit::SetItems { .. } => 26,
        Edit::AddItem { .. } => 27,
        Edit::RemoveItem { .. } => 28,
    };
    let kinds: std::collections::BTreeSet<usize> = edits.iter().map(kind).collect();
    assert_eq!(kinds.len(), 29);
    let mut doc = LevelDoc::new(SMALL);
    for e in &edits {
        let before = doc.text().to_string();
        doc.apply(e).unwrap_or_else(|m| panic!("{e:?}: {m}"));
        let after = doc.text().to_string();
        assert_ne!(after, before, "{e:?} changed nothing");
        assert!(doc.undo());
        assert_eq!(doc.text(), before, "{e:?} undone");
        assert!(doc.redo());
        assert_eq!(doc.text(), after, "{e:?} redone");
        assert_eq!(file(doc.text()), file(&after));
    }
}

#[test]
fn renaming_a_side_renames_it_in_the_levels_events_and_names_stay_unique() {
    let text = r#"(
    name: "R", ruleset: "sides", topology: Square(diagonals: One), size: (4, 2),
    map: ["....", "...."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (3, 1), template: "warrior"),
    ],
    events: [
        (when: Lost(side: "A", units: 1), then: [
            Reinforcements([(name: "r", side: "A", template: "warrior", cell: (0, 1))]),
            Objectives(side: "A", victory: [SurviveRounds(side: "A", rounds: 3)]),
        ]),
        (when: Enters(side: "A", area: Cells([(3, 0)])), then: [Message("in")]),
    ],
)"#;
    let mut doc = LevelDoc::new(text);
    doc.apply(&Edit::RenameSide {
        side: "A".into(),
        to: "Wardens".into(),
    })
    .expect("rename");
    let f = level::load("r.ron", doc.text()).expect("valid").file;
    assert_eq!(
        doc.text().matches("\"Wardens\"").count(),
        7,
        "{}",
        doc.text()
    );
    assert_eq!(f.events.len(), 2);
    let err = doc
        .apply(&Edit::RenameUnit {
            unit: "a".into(),
            to: "r".into(),
        })
        .expect_err("a reinforcement is named r");
    assert!(err.contains("already named 'r'"), "{err}");
}

fn reinforcement(name: &str, side: &str, cell: (i32, i32)) -> level::UnitDef {
    level::UnitDef {
        name: name.into(),
        side: side.into(),
        cell,
        template: "warrior".into(),
        overrides: Default::default(),
        items: Vec::new(),
    }
}

fn message(round: u32, text: &str) -> level::events::LevelEvent {
    level::events::LevelEvent {
        when: level::events::When::Round(round),
        then: vec![level::events::Effect::Message(text.into())],
    }
}

#[test]
fn reinforcements_and_messages_are_written_one_event_a_line_and_taken_back_whole() {
    use level::events::{Effect, When};
    let text = r#"(
    name: "E", ruleset: "sides", topology: Square(diagonals: One), size: (4, 3),
    map: ["....", "....", "...."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "warrior"),
        (name: "b", side: "B", cell: (3, 2), template: "warrior"),
    ],
    seed: 1, // the seed
)"#;
    let mut doc = LevelDoc::new(text);
    let add = |doc: &mut LevelDoc, round, name: &str, cell| {
        doc.apply(&Edit::AddReinforcement {
            round,
            unit: reinforcement(name, "B", cell),
        })
    };
    // A level without events gets the field, one event a line.
    add(&mut doc, 2, "r1", (3, 0)).expect("adds");
    let f = level::load("e.ron", doc.text()).expect("valid").file;
    assert_eq!(f.events.len(), 1);
    assert_eq!(f.events[0].when, When::Round(2));
    assert!(
        doc.text().contains("seed: 1, // the seed"),
        "{}",
        doc.text()
    );
    // The same round: the unit joins that event's reinforcements; another round: a new event.
    add(&mut doc, 2, "r2", (3, 1)).expect("joins");
    add(&mut doc, 3, "r3", (2, 2)).expect("adds");
    doc.apply(&Edit::AddEvent(message(3, "The gate falls.")))
        .expect("adds a message");
    let f = level::load("e.ron", doc.text()).expect("valid").file;
    assert_eq!(f.events.len(), 3, "{}", doc.text());
    assert!(
        matches!(&f.events[0].then[..], [Effect::Reinforcements(u)] if u.len() == 2),
        "{:?}",
        f.events[0]
    );
    assert_eq!(
        f.events[2].then,
        vec![Effect::Message("The gate falls.".into())]
    );
    let before = doc.text().to_string();
    for refused in [
        add(&mut doc, 2, "a", (1, 1)),
        add(&mut doc, 4, "r1", (1, 1)),
        add(&mut doc, 0, "z", (1, 1)),
        doc.apply(&Edit::RemoveEvent(3)),
        doc.apply(&Edit::RemoveReinforcement { unit: "a".into() }),
        doc.apply(&Edit::AddUnit {
            name: "r3".into(),
            side: "A".into(),
            cell: (1, 1),
            template: "warrior".into(),
            overrides: Default::default(),
            items: Vec::new(),
        }),
    ] {
        assert!(refused.is_err());
        assert_eq!(doc.text(), before, "a refused edit changes nothing");
    }
    // Moving a reinforcement changes only its line.
    doc.apply(&Edit::MoveReinforcement {
        unit: "r2".into(),
        to: (2, 1),
    })
    .expect("moves");
    let changed = changed_lines(&before, doc.text());
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.contains("\"r2\"") && changed[0].1.contains("(2, 1)"));
    // Removing: a unit from a list of two, then the last of its event takes the event.
    doc.apply(&Edit::RemoveReinforcement { unit: "r1".into() })
        .expect("removes");
    let f = level::load("e.ron", doc.text()).expect("valid").file;
    assert_eq!(f.events.len(), 3);
    doc.apply(&Edit::RemoveReinforcement { unit: "r2".into() })
        .expect("removes");
    doc.apply(&Edit::RemoveEvent(1))
        .expect("removes the message");
    let f = level::load("e.ron", doc.text()).expect("valid").file;
    assert_eq!(f.events.len(), 1, "{}", doc.text());
    assert_eq!(f.events[0].when, When::Round(3));
    doc.apply(&Edit::RemoveReinforcement { unit: "r3".into() })
        .expect("removes");
    assert!(
        level::load("e.ron", doc.text())
            .expect("valid")
            .file
            .events
            .is_empty()
    );
}

/// A unit added with items (the editor's C copies a unit's items with it) is written with
/// them on its line, and the level still validates.
#[test]
fn a_unit_is_added_with_the_items_it_carries() {
    let path = "levels/sides_sacked_armoury.ron";
    let text = std::fs::read_to_string(path).expect("the armoury reads");
    let f = file(&text);
    let dagna = f
        .units
        .iter()
        .find(|u| u.name == "Red Dagna")
        .expect("Red Dagna");
    assert_eq!(dagna.items, vec!["dagger".to_string()]);
    let mut doc = LevelDoc::new(text.clone());
    doc.apply(&Edit::AddUnit {
        name: "Red Dagna 2".into(),
        side: dagna.side.clone(),
        cell: (3, 4),
        template: dagna.template.clone(),
        overrides: dagna.overrides.clone(),
        items: dagna.items.clone(),
    })
    .expect("adds");
    let added = file(doc.text());
    let copy = added
        .units
        .iter()
        .find(|u| u.name == "Red Dagna 2")
        .expect("the copy");
    assert_eq!(copy.items, vec!["dagger".to_string()]);
    assert_eq!(copy.cell, (3, 4));
    assert!(
        level::validate(path, doc.text()).is_empty(),
        "{:?}",
        level::validate(path, doc.text())
    );
}

/// A unit's items are set on its line only (the field added, changed, and gone with the last
/// item); refused items (unknown, heavy, too many, a ruleset without items) change nothing.
#[test]
fn a_units_items_are_set_on_its_line_and_go_with_the_last() {
    let mut doc = LevelDoc::new(SMALL);
    let set = |unit: &str, items: &[&str]| Edit::SetItems {
        unit: unit.into(),
        items: items.iter().map(|i| i.to_string()).collect(),
    };
    doc.apply(&set("a", &["dagger"])).expect("adds the field");
    assert_eq!(
        changed_lines(SMALL, doc.text()),
        [(
            r#"        (name: "a", side: "A", cell: (0, 0), template: "warrior"),"#,
            r#"        (name: "a", side: "A", cell: (0, 0), template: "warrior", items: ["dagger"]),"#
        )]
    );
    doc.apply(&set("a", &["dagger", "longsword"]))
        .expect("changes the list");
    doc.apply(&set("b", &["crossbow"]))
        .expect("after the overrides");
    assert!(
        doc.text()
            .contains(r#"template: "warrior", items: ["dagger", "longsword"]),"#),
        "{}",
        doc.text()
    );
    assert!(
        doc.text()
            .contains(r#"overrides: {"hp": 9}, items: ["crossbow"]),"#),
        "{}",
        doc.text()
    );
    assert!(
        level::validate("x.ron", doc.text()).is_empty(),
        "{:?}",
        level::validate("x.ron", doc.text())
    );
    let f = file(doc.text());
    assert_eq!(f.units[0].items, ["dagger", "longsword"]);
    assert_eq!(f.units[1].items, ["crossbow"]);
    // Refused: nothing changes, and the message says why.
    let before = doc.text().to_string();
    let e = doc.apply(&set("a", &["banana"])).expect_err("unknown");
    assert!(
        e.contains("no item 'banana'") && e.contains("'longsword'"),
        "{e}"
    );
    let e = doc.apply(&set("a", &["dagger"; 17])).expect_err("too many");
    assert!(e.contains("at most 16"), "{e}");
    let e = doc.apply(&set("zed", &["dagger"])).expect_err("no unit");
    assert!(e.contains("'a', 'b'"), "{e}");
    assert_eq!(doc.text(), before);
    // An item written by hand that the ruleset lacks can still be taken away.
    let hand = before.replace(r#"["crossbow"]"#, r#"["crossbow", "banana"]"#);
    let mut by_hand = LevelDoc::new(hand);
    by_hand
        .apply(&set("b", &["crossbow"]))
        .expect("drops the bad one");
    assert_eq!(by_hand.text(), before);
    // Emptied, the field goes: the lines read as before.
    doc.apply(&set("a", &[])).expect("empties a");
    doc.apply(&set("b", &[])).expect("empties b");
    assert_eq!(doc.text(), SMALL);
    doc.apply(&set("a", &[])).expect("nothing to empty");
    assert_eq!(doc.text(), SMALL);
    // A heavy object is left on a cell, never carried; a ruleset without items has none.
    let phases = SMALL
        .replace(r#""sides""#, r#""phases""#)
        .replace("warrior", "swordsman");
    let e = LevelDoc::new(phases)
        .apply(&set("a", &["crate"]))
        .expect_err("heavy");
    assert!(e.contains("heavy object"), "{e}");
    let segments = SMALL.replace(r#""sides""#, r#""segments""#);
    let mut doc = LevelDoc::new(segments.clone());
    let e = doc.apply(&set("a", &["dagger"])).expect_err("no items");
    assert!(e.contains("'segments' ruleset has no items"), "{e}");
    let e = doc
        .apply(&Edit::AddItem {
            item: "dagger".into(),
            cell: (0, 0),
        })
        .expect_err("no items");
    assert!(e.contains("'segments' ruleset has no items"), "{e}");
    assert_eq!(doc.text(), segments);
}

/// Items left on cells: the first adds the `items` field after `units`, one item a line; a
/// removal takes the last item of the cell (with the last item, the field); off the map and
/// unknown items are refused.
#[test]
fn items_are_left_on_cells_and_taken_away_a_line_at_a_time() {
    let mut doc = LevelDoc::new(SMALL);
    let add = |item: &str, cell| Edit::AddItem {
        item: item.into(),
        cell,
    };
    doc.apply(&add("longsword", (2, 0)))
        .expect("adds the field");
    assert!(
        doc.text().contains(
            "    ],\n    items: [\n        (item: \"longsword\", cell: (2, 0)),\n    ],\n)\n"
        ),
        "{}",
        doc.text()
    );
    doc.apply(&add("dagger", (2, 0)))
        .expect("a second, same cell");
    doc.apply(&add("greataxe", (3, 0))).expect("a third");
    assert_eq!(doc.text().lines().count(), SMALL.lines().count() + 5);
    let placed = |doc: &LevelDoc| -> Vec<(String, (i32, i32))> {
        file(doc.text())
            .items
            .into_iter()
            .map(|p| (p.item, p.cell))
            .collect()
    };
    assert_eq!(
        placed(&doc),
        [
            ("longsword".to_string(), (2, 0)),
            ("dagger".to_string(), (2, 0)),
            ("greataxe".to_string(), (3, 0))
        ]
    );
    assert!(
        level::validate("x.ron", doc.text()).is_empty(),
        "{:?}",
        level::validate("x.ron", doc.text())
    );
    // Refused: nothing changes.
    let before = doc.text().to_string();
    let e = doc.apply(&add("dagger", (4, 0))).expect_err("off the map");
    assert!(e.contains("(4, 0) is off the map (4 × 2)"), "{e}");
    let e = doc.apply(&add("dagger", (0, -1))).expect_err("off the map");
    assert!(e.contains("off the map"), "{e}");
    let e = doc.apply(&add("banana", (0, 0))).expect_err("unknown");
    assert!(e.contains("no item 'banana'"), "{e}");
    let e = doc
        .apply(&Edit::RemoveItem { cell: (0, 1) })
        .expect_err("none there");
    assert_eq!(e, "no item lies on (0, 1)");
    assert_eq!(doc.text(), before);
    // The last of the cell goes, a line at a time; the last of all takes the field.
    doc.apply(&Edit::RemoveItem { cell: (2, 0) })
        .expect("removes");
    assert_eq!(
        placed(&doc),
        [
            ("longsword".to_string(), (2, 0)),
            ("greataxe".to_string(), (3, 0))
        ]
    );
    assert_eq!(doc.text().lines().count(), SMALL.lines().count() + 4);
    doc.apply(&Edit::RemoveItem { cell: (2, 0) })
        .expect("removes");
    doc.apply(&Edit::RemoveItem { cell: (3, 0) })
        .expect("removes");
    assert_eq!(doc.text(), SMALL);
    // A level that lists items already: one line more, one line less.
    let path = "levels/sides_sacked_armoury.ron";
    let text = std::fs::read_to_string(path).expect("the armoury reads");
    let mut doc = LevelDoc::new(text.clone());
    doc.apply(&add("dagger", (5, 5))).expect("adds");
    let lines: Vec<&str> = doc.text().lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(r#"(item: "dagger", cell: (5, 5)),"#))
        .expect("the new line");
    assert!(lines[at - 1].contains(r#"(item: "longsword", cell: (12, 6)),"#));
    assert_eq!(lines[at].trim_start().len() + 8, lines[at].len());
    assert!(level::validate(path, doc.text()).is_empty());
    doc.apply(&Edit::RemoveItem { cell: (5, 5) })
        .expect("removes");
    assert_eq!(doc.text(), text);
    doc.apply(&Edit::RemoveItem { cell: (11, 5) })
        .expect("removes");
    assert_eq!(text.lines().count(), doc.text().lines().count() + 1);
    assert_eq!(file(doc.text()).items.len(), 3);
}

/// Resizes with floor in the new cells.
fn resize(size: (u32, u32), offset: (i32, i32)) -> Edit {
    Edit::Resize {
        size,
        offset,
        fill: '.',
    }
}

/// A resize with an offset moves the items on cells with the map.
#[test]
fn resizing_moves_items_on_cells_with_the_map() {
    let mut doc = LevelDoc::new(SMALL);
    doc.apply(&Edit::AddItem {
        item: "dagger".into(),
        cell: (2, 1),
    })
    .expect("adds");
    doc.apply(&resize((5, 3), (1, 1))).expect("resizes");
    let f = file(doc.text());
    assert_eq!(f.items[0].cell, (3, 2));
    assert_eq!(f.map[2], "..#..");
    assert!(level::validate("x.ron", doc.text()).is_empty());
}

/// A level that names cells everywhere it can: units, an item, a victory cell, a task, an
/// event's listed cells and another's rectangle, reinforcements and a new objective.
const NAMED: &str = r#"// Cells everywhere.
(
    name: "Named", ruleset: "alternating", topology: Square(diagonals: OneTwo), size: (5, 3),
    map: [
        ".....",
        ".L.D.",
        ".....",
    ],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "duelist"),
        (name: "b", side: "B", cell: (4, 2), template: "duelist"),
    ],
    // A reaches the north-east corner, or is the last side standing.
    victory: [ReachCell(side: "A", cell: (4, 0)), LastSideStanding],
    tasks: [(name: "the lock", cell: (1, 1))],
    events: [
        (when: Enters(side: "A", area: Cells([(2, 1), (2, 2)])), then: [
            Reinforcements([
                (name: "c", side: "B", cell: (4, 1), template: "duelist"), // from the east
            ]),
        ]),
        (when: Enters(side: "B", area: Rect(from: (0, 1), to: (4, 2))), then: [
            Objectives(side: "B", victory: [ReachCell(side: "B", cell: (0, 2))]),
        ]),
    ],
    items: [
        (item: "sword", cell: (2, 0)),
    ],
)
"#;

/// Every cell a level names, with what stands there: the validator's view of the ground
/// under each.
fn named_ground(text: &str) -> Vec<((i32, i32), char)> {
    use crate::rules::level::events::{Area, Effect, When};
    let f = file(text);
    let glyph = |(x, y): (i32, i32)| {
        let row = f
            .map
            .get(usize::try_from(y).expect("on the map"))
            .expect("a row");
        let glyph = row.chars().nth(usize::try_from(x).expect("on the map"));
        ((x, y), glyph.expect("a cell"))
    };
    let mut cells: Vec<(i32, i32)> = f.units.iter().map(|u| u.cell).collect();
    cells.extend(f.items.iter().map(|p| p.cell));
    cells.extend(f.tasks.iter().map(|t| t.cell));
    let goal = |v: &Victory| match v {
        Victory::ReachCell { cell, .. } => Some(*cell),
        _ => None,
    };
    cells.extend(f.victory.iter().filter_map(goal));
    for ev in &f.events {
        match &ev.when {
            When::Enters {
                area: Area::Cells(cs),
                ..
            } => cells.extend(cs),
            When::Enters {
                area: Area::Rect { from, to },
                ..
            } => cells.extend([*from, *to]),
            _ => {}
        }
        for effect in &ev.then {
            match effect {
                Effect::Reinforcements(us) => cells.extend(us.iter().map(|u| u.cell)),
                Effect::Objectives { victory, .. } => cells.extend(victory.iter().filter_map(goal)),
                Effect::Message(_) => {}
            }
        }
    }
    cells.into_iter().map(glyph).collect()
}

/// A resize with an offset moves every cell the level names with the map, each a change of
/// its `(x, y)` only; the level still validates, and undo gives the text back.
#[test]
fn resizing_moves_every_named_cell_with_the_map() {
    assert!(
        level::validate("n.ron", NAMED).is_empty(),
        "{:?}",
        level::validate("n.ron", NAMED)
    );
    let mut doc = LevelDoc::new(NAMED);
    doc.apply(&Edit::Resize {
        size: (7, 4),
        offset: (2, 1),
        fill: ',',
    })
    .expect("resizes");
    let text = doc.text().to_string();
    assert!(
        level::validate("n.ron", &text).is_empty(),
        "{:?}",
        level::validate("n.ron", &text)
    );
    let moved: Vec<_> = named_ground(NAMED)
        .into_iter()
        .map(|((x, y), g)| ((x + 2, y + 1), g))
        .collect();
    assert_eq!(named_ground(&text), moved, "{text}");
    // The map's rows are rewritten (as every resize does); after them, each line that
    // changes is one of these, and only its cell changes.
    let f = file(&text);
    assert_eq!(f.map[2], ",,.L.D.");
    let changes = [
        ("size: (5, 3)", "size: (7, 4)"),
        ("cell: (0, 0), template", "cell: (2, 1), template"),
        ("cell: (4, 2), template", "cell: (6, 3), template"),
        ("cell: (4, 0))", "cell: (6, 1))"),
        ("cell: (1, 1))", "cell: (3, 2))"),
        ("Cells([(2, 1), (2, 2)])", "Cells([(4, 2), (4, 3)])"),
        ("cell: (4, 1), template", "cell: (6, 2), template"),
        (
            "Rect(from: (0, 1), to: (4, 2))",
            "Rect(from: (2, 2), to: (6, 3))",
        ),
        ("cell: (0, 2))]", "cell: (2, 3))]"),
        ("cell: (2, 0))", "cell: (4, 1))"),
    ];
    let after_map = |t: &str| -> Vec<String> {
        let rows_end = t
            .find(
                "    ],
    sides",
            )
            .expect("the map's end");
        t[rows_end..].lines().map(str::to_string).collect()
    };
    let header = |t: &str| -> Vec<String> {
        t.lines()
            .take_while(|l| !l.contains("map: ["))
            .map(str::to_string)
            .collect()
    };
    let mut seen = 0;
    for (a, b) in header(NAMED)
        .into_iter()
        .zip(header(&text))
        .chain(after_map(NAMED).into_iter().zip(after_map(&text)))
    {
        if a != b {
            assert!(
                changes
                    .iter()
                    .any(|(old, new)| a.contains(old) && b == a.replace(old, new)),
                "{a:?} became {b:?}"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, changes.len(), "{text}");
    assert!(doc.undo());
    assert_eq!(doc.text(), NAMED);
    assert!(doc.redo());
    assert_eq!(doc.text(), text);
}

/// A resize that would leave a named cell off the new map is refused, naming each, and
/// changes nothing.
#[test]
fn a_resize_that_would_drop_a_named_cell_is_refused() {
    // The size, the offset, and what the refusal names.
    type Case = ((u32, u32), (i32, i32), &'static [&'static str]);
    let cases: [Case; 5] = [
        // The east column goes.
        (
            (4, 3),
            (0, 0),
            &[
                "unit 'b' at (4, 2)",
                "victory condition 0's goal at (4, 0)",
                "reinforcement 'c' at (4, 1)",
            ],
        ),
        // The west column goes.
        (
            (4, 3),
            (-1, 0),
            &["unit 'a' at (0, 0)", "event 1's new goal for 'B' at (0, 2)"],
        ),
        // The two west columns go.
        ((3, 3), (-2, 0), &["task 'the lock' at (1, 1)"]),
        // The bottom row goes.
        ((5, 2), (0, 0), &["a cell of event 0's area at (2, 2)"]),
        // All but the top row goes.
        ((5, 1), (0, 0), &["event 1's area from (0, 1) to (4, 2)"]),
    ];
    for (size, offset, named) in cases {
        let mut doc = LevelDoc::new(NAMED);
        let e = doc.apply(&resize(size, offset)).expect_err("refused");
        for n in named {
            assert!(e.contains(n), "{size:?} {offset:?}: {n} in {e}");
        }
        assert!(e.contains("move or remove them first"), "{e}");
        assert_eq!(doc.text(), NAMED);
        assert!(!doc.undo(), "nothing to undo");
    }
    // The item on the top row.
    let e = LevelDoc::new(NAMED)
        .apply(&resize((5, 2), (0, -1)))
        .expect_err("refused");
    assert!(e.contains("item 'sword' at (2, 0)"), "{e}");
    // A unit alone: "it".
    let e = LevelDoc::new(SMALL)
        .apply(&resize((3, 2), (0, 0)))
        .expect_err("refused");
    assert!(
        e.ends_with("would leave off the map unit 'b' at (3, 1); move or remove it first"),
        "{e}"
    );
}

/// An event's rectangle loses the cells the map loses, and keeps the rest: its corners stay
/// on the map.
#[test]
fn a_resize_clips_an_events_rectangle_to_the_map() {
    use crate::rules::level::events::{Area, Effect, LevelEvent, When};
    let mut doc = LevelDoc::new(SMALL);
    // The whole map, written corner to corner from the bottom right; the units out of the
    // way of the columns the resizes take.
    doc.apply(&Edit::AddEvent(LevelEvent {
        when: When::Enters {
            side: "A".into(),
            area: Area::Rect {
                from: (3, 1),
                to: (0, 0),
            },
        },
        then: vec![Effect::Message("In.".into())],
    }))
    .expect("adds");
    for (unit, to) in [("a", (1, 0)), ("b", (2, 0))] {
        doc.apply(&Edit::MoveUnit {
            unit: unit.into(),
            to,
        })
        .expect("moves");
    }
    // The east column goes: the corner on it comes in.
    doc.apply(&resize((3, 2), (0, 0))).expect("resizes");
    assert!(
        doc.text()
            .contains("area: Rect(from: (2, 1), to: (0, 0))), then: ["),
        "{}",
        doc.text()
    );
    assert!(level::validate("r.ron", doc.text()).is_empty());
    // The west column goes: both corners move west, and the one off the map comes back on.
    doc.apply(&resize((2, 2), (-1, 0))).expect("resizes");
    assert!(
        doc.text().contains("Rect(from: (1, 1), to: (0, 0))"),
        "{}",
        doc.text()
    );
    assert!(level::validate("r.ron", doc.text()).is_empty());
}

/// An item is refused where the validator would reject it: a wall, a door, a heavy object
/// where a unit stands. Nothing changes, and the level stays valid.
#[test]
fn an_item_is_refused_where_the_validator_would_reject_it() {
    let text = r#"(
    name: "Crates", ruleset: "phases", topology: Hex(orientation: Pointy), size: (6, 1),
    map: [".#D.L."],
    sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
    units: [
        (name: "a", side: "A", cell: (0, 0), template: "swordsman"),
        (name: "b", side: "B", cell: (3, 0), template: "swordsman"),
    ],
)"#;
    assert!(
        level::validate("c.ron", text).is_empty(),
        "{:?}",
        level::validate("c.ron", text)
    );
    let mut doc = LevelDoc::new(text);
    let add = |item: &str, cell| Edit::AddItem {
        item: item.into(),
        cell,
    };
    for (item, cell, why) in [
        (
            "sword",
            (1, 0),
            "item 'sword' would lie at (1, 0), on wall; items lie on open ground",
        ),
        (
            "crate",
            (2, 0),
            "item 'crate' would lie at (2, 0), on door (shut); items lie on open ground",
        ),
        (
            "sword",
            (4, 0),
            "item 'sword' would lie at (4, 0), on door (locked); items lie on open ground",
        ),
        (
            "crate",
            (3, 0),
            "the heavy 'crate' at (3, 0) would be where unit 'b' stands; no one stands on a heavy object",
        ),
    ] {
        let e = doc.apply(&add(item, cell)).expect_err("refused");
        assert_eq!(e, why);
        assert_eq!(doc.text(), text);
    }
    // A sword where a unit stands is fine (it picks it up), and so is a crate on open ground.
    doc.apply(&add("sword", (3, 0))).expect("adds");
    doc.apply(&add("crate", (5, 0))).expect("adds");
    assert!(level::validate("c.ron", doc.text()).is_empty());
}
