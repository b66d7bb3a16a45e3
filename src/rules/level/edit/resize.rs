//! [`super::Edit::Resize`]: the map's rows (and heights) rewritten, and every cell the level
//! names moved with the ground it names: units, items on cells, victory cells, tasks, events'
//! areas, reinforcements' arrival cells and the cells of new objectives. Each is one
//! replacement of its `(x, y)`, so comments and layout survive. A resize that would leave one
//! of them off the new map is refused, naming them.

use super::{LevelFile, Seg, Spans, Splice, in_row, line_indent, map_size, on_own_line};
use crate::rules::level::Victory;
use crate::rules::level::events::{Area, Effect, When};

/// A cell the level names: what it is in words, the cell, and where it is written.
struct Named {
    what: String,
    cell: (i32, i32),
    path: Vec<Seg>,
}

/// Every single cell the level names, in file order (an event's `Rect` area is two corners
/// that move together: [`rects`]).
fn named_cells(file: &LevelFile) -> Vec<Named> {
    use Seg::{Field as F, Index as I};
    let mut out = Vec::new();
    let mut add =
        |what: String, cell: (i32, i32), path: Vec<Seg>| out.push(Named { what, cell, path });
    let goal = |v: &Victory| match v {
        Victory::ReachCell { cell, .. } => Some(*cell),
        _ => None,
    };
    // The lists whose entries have a `cell` (a victory condition: if it is a cell to reach),
    // each entry's in words.
    type Cells = Vec<Option<(String, (i32, i32))>>;
    let lists: [(&'static str, Cells); 4] = [
        (
            "units",
            (file.units.iter())
                .map(|u| Some((format!("unit '{}'", u.name), u.cell)))
                .collect(),
        ),
        (
            "items",
            (file.items.iter())
                .map(|p| Some((format!("item '{}'", p.item), p.cell)))
                .collect(),
        ),
        (
            "victory",
            (file.victory.iter().enumerate())
                .map(|(i, v)| goal(v).map(|c| (format!("victory condition {i}'s goal"), c)))
                .collect(),
        ),
        (
            "tasks",
            (file.tasks.iter())
                .map(|t| Some((format!("task '{}'", t.name), t.cell)))
                .collect(),
        ),
    ];
    for (field, entries) in lists {
        for (i, entry) in entries.into_iter().enumerate() {
            if let Some((what, cell)) = entry {
                add(what, cell, vec![F(field), I(i), F("cell")]);
            }
        }
    }
    for (e, ev) in file.events.iter().enumerate() {
        if let When::Enters {
            area: Area::Cells(cells),
            ..
        } = &ev.when
        {
            for (k, c) in cells.iter().enumerate() {
                add(
                    format!("a cell of event {e}'s area"),
                    *c,
                    vec![F("events"), I(e), F("when"), F("area"), I(0), I(k)],
                );
            }
        }
        for (f, effect) in ev.then.iter().enumerate() {
            let at = |rest: &[Seg]| [&[F("events"), I(e), F("then"), I(f)][..], rest].concat();
            match effect {
                Effect::Message(_) => {}
                Effect::Reinforcements(units) => {
                    for (k, u) in units.iter().enumerate() {
                        add(
                            format!("reinforcement '{}'", u.name),
                            u.cell,
                            at(&[I(0), I(k), F("cell")]),
                        );
                    }
                }
                Effect::Objectives { side, victory } => {
                    for (v, cell) in victory.iter().map(goal).enumerate() {
                        if let Some(cell) = cell {
                            add(
                                format!("event {e}'s new goal for '{side}'"),
                                cell,
                                at(&[F("victory"), I(v), F("cell")]),
                            );
                        }
                    }
                }
            }
        }
    }
    out
}

/// The events' `Rect` areas: the event's index and the two corners.
fn rects(file: &LevelFile) -> impl Iterator<Item = (usize, (i32, i32), (i32, i32))> + '_ {
    file.events
        .iter()
        .enumerate()
        .filter_map(|(e, ev)| match &ev.when {
            When::Enters {
                area: Area::Rect { from, to },
                ..
            } => Some((e, *from, *to)),
            _ => None,
        })
}

/// Whether `(x, y)` is on a `w` x `h` map.
fn on((x, y): (i32, i32), (w, h): (u32, u32)) -> bool {
    x >= 0 && y >= 0 && i64::from(x) < i64::from(w) && i64::from(y) < i64::from(h)
}

/// Whether the rectangle between two corners has a cell on a `w` x `h` map.
fn overlaps(from: (i32, i32), to: (i32, i32), (w, h): (u32, u32)) -> bool {
    let (x0, x1) = (from.0.min(to.0), from.0.max(to.0));
    let (y0, y1) = (from.1.min(to.1), from.1.max(to.1));
    x1 >= 0 && y1 >= 0 && i64::from(x0) < i64::from(w) && i64::from(y0) < i64::from(h)
}

pub(super) fn resize(
    out: &mut Splice,
    spans: &Spans,
    file: &LevelFile,
    (w, h): (u32, u32),
    (dx, dy): (i32, i32),
    fill: char,
) -> Result<(), String> {
    use Seg::{Field as F, Index as I};
    let max = crate::rules::level::MAX_MAP_SIDE;
    if w == 0 || h == 0 || w > max || h > max {
        return Err(format!(
            "a map is 1 to {max} cells on each side, not {w} × {h}"
        ));
    }
    if fill.is_control() {
        return Err(format!("{fill:?} cannot be a map glyph"));
    }
    let old = map_size(file);
    let new = (w, h);
    let moved = |(x, y): (i32, i32)| (x.saturating_add(dx), y.saturating_add(dy));
    // What stands on the map now and would not: refused, naming each (a cell already off the
    // map is the validator's to report, and moves as the rest do).
    let named = named_cells(file);
    let mut lost: Vec<String> = named
        .iter()
        .filter(|n| on(n.cell, old) && !on(moved(n.cell), new))
        .map(|n| format!("{} at ({}, {})", n.what, n.cell.0, n.cell.1))
        .collect();
    for (e, from, to) in rects(file) {
        if overlaps(from, to, old) && !overlaps(moved(from), moved(to), new) {
            lost.push(format!(
                "event {e}'s area from ({}, {}) to ({}, {})",
                from.0, from.1, to.0, to.1
            ));
        }
    }
    if !lost.is_empty() {
        const SHOWN: usize = 8;
        let more = match lost.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        lost.truncate(SHOWN);
        return Err(format!(
            "a {w} × {h} map with offset ({dx}, {dy}) would leave off the map {}{more}; move or \
             remove {} first",
            lost.join(", "),
            if lost.len() == 1 && more.is_empty() {
                "it"
            } else {
                "them"
            }
        ));
    }
    rewrite_rows(out, spans, "map", &file.map, new, (dx, dy), fill)?;
    if !file.heights.is_empty() {
        // New cells are level ground.
        rewrite_rows(out, spans, "heights", &file.heights, new, (dx, dy), '0')?;
    }
    let size = spans
        .span(&[F("size")])
        .ok_or("the size was not found in the text")?;
    out.replace(size, format!("({w}, {h})"));
    let mut write = |path: &[Seg], was: (i32, i32), now: (i32, i32)| {
        if was != now {
            let span = spans
                .span(path)
                .ok_or("a cell the level names was not found in the text")?;
            out.replace(span, format!("({}, {})", now.0, now.1));
        }
        Ok::<(), String>(())
    };
    for n in &named {
        write(&n.path, n.cell, moved(n.cell))?;
    }
    // A rectangle moves, and loses the cells the map no longer has: each corner is kept on
    // the map, so the area keeps exactly the ground it had there.
    let clamp = |(x, y): (i32, i32)| (x.clamp(0, w as i32 - 1), y.clamp(0, h as i32 - 1));
    for (e, from, to) in rects(file) {
        let (a, b) = (moved(from), moved(to));
        let (a, b) = if overlaps(a, b, new) {
            (clamp(a), clamp(b))
        } else {
            (a, b)
        };
        let path = |corner| [F("events"), I(e), F("when"), F("area"), F(corner)];
        write(&path("from"), from, a)?;
        write(&path("to"), to, b)?;
    }
    Ok(())
}

/// Rewrites the rows of a map-shaped field (`map`, `heights`) for [`Edit::Resize`]: the old
/// cell (x, y) moves to (x + dx, y + dy), new cells get `fill`.
fn rewrite_rows(
    out: &mut Splice,
    spans: &Spans,
    field: &'static str,
    rows: &[String],
    (w, h): (u32, u32),
    (dx, dy): (i32, i32),
    fill: char,
) -> Result<(), String> {
    let old: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
    let rows: Vec<String> = (0..h as i32)
        .map(|y| {
            (0..w as i32)
                .map(|x| {
                    let (ox, oy) = (x - dx, y - dy);
                    usize::try_from(oy)
                        .ok()
                        .and_then(|oy| old.get(oy))
                        .and_then(|r| usize::try_from(ox).ok().and_then(|ox| r.get(ox)))
                        .copied()
                        .unwrap_or(fill)
                })
                .map(in_row)
                .collect()
        })
        .collect();
    let map = spans
        .span(&[Seg::Field(field)])
        .ok_or_else(|| format!("the {field} was not found in the text"))?;
    // One row a line, indented as the first row was (or as `map:` plus four spaces).
    let indent = spans
        .find(&[Seg::Field(field), Seg::Index(0)])
        .filter(|&at| on_own_line(out.text, at))
        .map(|at| line_indent(out.text, at))
        .unwrap_or_else(|| format!("{}    ", line_indent(out.text, map.0)));
    let close = line_indent(out.text, map.0);
    let body: Vec<String> = rows.iter().map(|r| format!("{indent}\"{r}\",\n")).collect();
    out.replace(map, format!("[\n{}{close}]", body.concat()));
    Ok(())
}
