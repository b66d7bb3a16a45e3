//! The edits of a level's scripted events ([`super::Edit::AddEvent`],
//! [`super::Edit::RemoveEvent`], and the reinforcements the editor places on the board):
//! written as a designer writes them in `levels/`, one event a line, changing only the lines
//! they touch.

use super::{
    LevelFile, Seg, Spans, Splice, add_item_at, append_line, line_indent, quote, remove_item,
};
use super::{unit_text, victory_text};
use crate::rules::level::UnitDef;
use crate::rules::level::events::{Area, Effect, LevelEvent, When};

/// An event as a designer writes it, its effects a line each and reinforcements a unit a line,
/// for an item whose first line is indented by `base`:
/// ```text
/// (when: Round(2), then: [
///     Message("..."),
///     Reinforcements([
///         (name: "Mudge", side: "Raiders", cell: (0, 10), template: "goblin"),
///     ]),
/// ]),
/// ```
pub(super) fn event_text(ev: &LevelEvent, base: &str) -> String {
    let mut out = format!("(when: {}, then: [\n", when_text(&ev.when));
    for effect in &ev.then {
        out.push_str(&format!("{base}    {},\n", effect_text(effect, base)));
    }
    out.push_str(&format!("{base}])"));
    out
}

fn when_text(w: &When) -> String {
    match w {
        When::Round(n) => format!("Round({n})"),
        When::Enters { side, area } => {
            format!("Enters(side: {}, area: {})", quote(side), area_text(area))
        }
        When::Lost { side, units } => format!("Lost(side: {}, units: {units})", quote(side)),
    }
}

fn area_text(a: &Area) -> String {
    match a {
        Area::Cells(cells) => {
            let cells: Vec<String> = cells.iter().map(|(x, y)| format!("({x}, {y})")).collect();
            format!("Cells([{}])", cells.join(", "))
        }
        Area::Rect { from, to } => format!(
            "Rect(from: ({}, {}), to: ({}, {}))",
            from.0, from.1, to.0, to.1
        ),
    }
}

fn effect_text(e: &Effect, base: &str) -> String {
    match e {
        Effect::Message(m) => format!("Message({})", quote(m)),
        Effect::Reinforcements(units) => {
            let units: String = units
                .iter()
                .map(|u| format!("{base}        {},\n", unit_text(u)))
                .collect();
            format!("Reinforcements([\n{units}{base}    ])")
        }
        Effect::Objectives { side, victory } => {
            let v: Vec<String> = victory.iter().map(victory_text).collect();
            format!(
                "Objectives(side: {}, victory: [{}])",
                quote(side),
                v.join(", ")
            )
        }
    }
}

/// Adds `ev` at the end of `events` (the field is added, a list one event a line, if the level
/// has none).
pub(super) fn add_event(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    ev: &LevelEvent,
) -> Result<(), String> {
    if let Some(items) = spans.children(&[Seg::Field("events")]) {
        // Indented like the last event, or one step in from the field.
        let base = match items.last() {
            Some(&(at, _)) => line_indent(text, at),
            None => {
                let field = spans.span(&[Seg::Field("events")]).map_or(0, |s| s.0);
                format!("{}    ", line_indent(text, field))
            }
        };
        return add_item_at(
            out,
            text,
            spans,
            &[Seg::Field("events")],
            &event_text(ev, &base),
        );
    }
    // A level without events: the field goes on a line of its own after the last field.
    let last = spans
        .children(&[])
        .and_then(|f| f.last().copied())
        .ok_or("the level has no fields to add `events` after")?;
    let indent = line_indent(text, last.0);
    let item = event_text(ev, &format!("{indent}    "));
    append_line(
        out,
        text,
        last,
        &format!("events: [\n{indent}    {item},\n{indent}]"),
    );
    Ok(())
}

/// Every name a unit of the level has, placed or arriving later.
fn names(file: &LevelFile) -> impl Iterator<Item = &str> {
    file.units.iter().map(|u| u.name.as_str()).chain(
        crate::rules::level::events::reinforcements(file).map(|(_, _, _, u)| u.name.as_str()),
    )
}

/// `unit` arrives at the start of round `round`: it joins the first reinforcements of an event
/// that fires on that round, or comes with a new event of its own.
pub(super) fn add_reinforcement(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    file: &LevelFile,
    round: u32,
    unit: &UnitDef,
) -> Result<(), String> {
    use Seg::{Field as F, Index as I};
    if round == 0 {
        return Err("reinforcements arrive from round 1".into());
    }
    if unit.name.trim().is_empty() {
        return Err("a unit's name cannot be empty".into());
    }
    if names(file).any(|n| n == unit.name) {
        return Err(format!("a unit is already named '{}'", unit.name));
    }
    let joined = file.events.iter().enumerate().find_map(|(e, ev)| {
        (ev.when == When::Round(round))
            .then(|| {
                ev.then
                    .iter()
                    .position(|f| matches!(f, Effect::Reinforcements(_)))
                    .map(|f| (e, f))
            })
            .flatten()
    });
    match joined {
        Some((e, f)) => add_item_at(
            out,
            text,
            spans,
            &[F("events"), I(e), F("then"), I(f), I(0)],
            &unit_text(unit),
        ),
        None => add_event(
            out,
            text,
            spans,
            &LevelEvent {
                when: When::Round(round),
                then: vec![Effect::Reinforcements(vec![unit.clone()])],
            },
        ),
    }
}

/// Where the reinforcement named `name` is written: its event, effect and place in the list.
fn reinforcement(file: &LevelFile, name: &str) -> Result<(usize, usize, usize), String> {
    crate::rules::level::events::reinforcements(file)
        .find(|(_, _, _, u)| u.name == name)
        .map(|(e, f, k, _)| (e, f, k))
        .ok_or_else(|| format!("no reinforcement is named '{name}'"))
}

/// Removes the reinforcement named `name`; an effect (and an event) left with nothing to do
/// goes with it.
pub(super) fn remove_reinforcement(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    file: &LevelFile,
    name: &str,
) -> Result<(), String> {
    use Seg::{Field as F, Index as I};
    let (e, f, k) = reinforcement(file, name)?;
    let ev = &file.events[e];
    let alone = matches!(&ev.then[f], Effect::Reinforcements(u) if u.len() == 1);
    let path: Vec<Seg> = if !alone {
        vec![F("events"), I(e), F("then"), I(f), I(0), I(k)]
    } else if ev.then.len() > 1 {
        vec![F("events"), I(e), F("then"), I(f)]
    } else {
        vec![F("events"), I(e)]
    };
    let span = spans
        .span(&path)
        .ok_or("the reinforcement was not found in the text")?;
    remove_item(out, text, span);
    Ok(())
}

/// Moves the arrival cell of the reinforcement named `name`.
pub(super) fn move_reinforcement(
    out: &mut Splice,
    spans: &Spans,
    file: &LevelFile,
    name: &str,
    to: (i32, i32),
) -> Result<(), String> {
    use Seg::{Field as F, Index as I};
    let (e, f, k) = reinforcement(file, name)?;
    let span = spans
        .span(&[F("events"), I(e), F("then"), I(f), I(0), I(k), F("cell")])
        .ok_or("the reinforcement's cell was not found in the text")?;
    out.replace(span, format!("({}, {})", to.0, to.1));
    Ok(())
}

/// Removes the event at index `i`.
pub(super) fn remove_event(
    out: &mut Splice,
    text: &str,
    spans: &Spans,
    file: &LevelFile,
    i: usize,
) -> Result<(), String> {
    if i >= file.events.len() {
        return Err(format!(
            "there is no event {i}; the level has {}",
            file.events.len()
        ));
    }
    let span = spans
        .span(&[Seg::Field("events"), Seg::Index(i)])
        .ok_or("the event was not found in the text")?;
    remove_item(out, text, span);
    Ok(())
}
