//! The items of a level: those lying on cells (`items:`) and those its units carry (a unit's
//! `items:`), and their checks.

use super::spans::Seg;
use super::{LevelFile, Problems, quoted_list, ruleset_data};
use crate::rules::map::Terrain;

/// The most items a level may leave on its cells.
pub const MAX_ITEMS: usize = 1024;

/// The most items one unit may carry.
pub const MAX_CARRIED: usize = 16;

/// Why `item` cannot lie on `(x, y)`, a cell of the map whose terrain is `terrain` (if its
/// glyph is known), or `None`: items lie on open ground (not a wall, not a door), and a heavy
/// object not where a unit stands. The validator's check of each item on a cell, and the
/// refusal of [`super::edit::Edit::AddItem`] (`would`: said of an item not there yet).
pub(super) fn placement_problem(
    file: &LevelFile,
    data: &ruleset_data::RulesetData,
    item: &str,
    (x, y): (i32, i32),
    terrain: Option<&Terrain>,
    would: bool,
) -> Option<String> {
    let (lies, is) = if would {
        ("would lie", "would be")
    } else {
        ("lies", "is")
    };
    if let Some(t) = terrain
        && (!t.passable() || t.door.is_some())
    {
        return Some(format!(
            "item '{item}' {lies} at ({x}, {y}), on {}; items lie on open ground",
            t.label()
        ));
    }
    let heavy = data
        .items
        .get(item)
        .is_some_and(|d| d.kind == ruleset_data::ItemKind::Heavy);
    let unit = file.units.iter().find(|u| u.cell == (x, y));
    match unit {
        Some(u) if heavy => Some(format!(
            "the heavy '{item}' at ({x}, {y}) {is} where unit '{}' stands; no one stands on a \
             heavy object",
            u.name
        )),
        _ => None,
    }
}

/// The checks of `file.items` and of each unit's `items`: the ruleset has items, each names
/// one of them, lies inside the map on open ground (not a wall, not a door), and no more
/// than [`MAX_ITEMS`] (a unit: [`MAX_CARRIED`], no heavy object).
pub(super) fn check(
    file: &LevelFile,
    in_bounds: &dyn Fn((i32, i32)) -> bool,
    terrain_at: &dyn Fn((i32, i32)) -> Option<Terrain>,
    out: &mut Problems,
) {
    use Seg::{Field as F, Index as I};
    let carried = file.units.iter().any(|u| !u.items.is_empty())
        || file.events.iter().flat_map(|e| &e.then).any(|f| {
            matches!(f, super::Effect::Reinforcements(us) if us.iter().any(|u| !u.items.is_empty()))
        });
    if file.items.is_empty() && !carried {
        return;
    }
    let Some(data) = ruleset_data::builtin(file.ruleset) else {
        return;
    };
    if data.items.is_empty() {
        let path = if file.items.is_empty() {
            let i = file
                .units
                .iter()
                .position(|u| !u.items.is_empty())
                .unwrap_or(0);
            vec![F("units"), I(i), F("items")]
        } else {
            vec![F("items")]
        };
        out.push(
            path,
            format!(
                "the '{}' ruleset has no items (only sides, phases and alternating do): \
                 remove items",
                file.ruleset
            ),
        );
        return;
    }
    let unknown = |item: &str| {
        format!(
            "there is no item '{item}' in the '{}' ruleset; its items are {}",
            file.ruleset,
            quoted_list(data.items.keys().map(String::as_str))
        )
    };
    if file.items.len() > MAX_ITEMS {
        out.push(
            vec![F("items"), I(MAX_ITEMS)],
            format!(
                "this level leaves {} items on its cells; at most {MAX_ITEMS}",
                file.items.len()
            ),
        );
        return;
    }
    for (i, placed) in file.items.iter().enumerate() {
        let at = |f: &'static str| vec![F("items"), I(i), F(f)];
        if !data.items.contains_key(&placed.item) {
            out.push(at("item"), unknown(&placed.item));
        }
        let (x, y) = placed.cell;
        if !in_bounds(placed.cell) {
            out.push(
                at("cell"),
                format!("item '{}' lies at ({x}, {y}), outside the map", placed.item),
            );
        } else if let Some(p) = placement_problem(
            file,
            data,
            &placed.item,
            placed.cell,
            terrain_at(placed.cell).as_ref(),
            false,
        ) {
            out.push(at("cell"), p);
        }
    }
    // The units of the start and the reinforcements of the events, each with where its
    // `items` list is written.
    let mut carriers: Vec<(Vec<Seg>, &super::UnitDef)> = file
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (vec![F("units"), I(i), F("items")], u))
        .collect();
    for (e, ev) in file.events.iter().enumerate() {
        for (f, effect) in ev.then.iter().enumerate() {
            if let super::Effect::Reinforcements(units) = effect {
                for (k, u) in units.iter().enumerate() {
                    let path = vec![F("events"), I(e), F("then"), I(f), I(0), I(k), F("items")];
                    carriers.push((path, u));
                }
            }
        }
    }
    for (path, unit) in carriers {
        if unit.items.len() > MAX_CARRIED {
            out.push(
                path,
                format!(
                    "unit '{}' carries {} items; at most {MAX_CARRIED}",
                    unit.name,
                    unit.items.len()
                ),
            );
            continue;
        }
        for (j, item) in unit.items.iter().enumerate() {
            let mut at = path.clone();
            at.push(I(j));
            match data.items.get(item) {
                None => out.push(at, unknown(item)),
                Some(d) if d.kind == ruleset_data::ItemKind::Heavy => out.push(
                    at,
                    format!(
                        "unit '{}' cannot carry the {}: it is a heavy object; leave it on a cell",
                        unit.name, d.name
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}
