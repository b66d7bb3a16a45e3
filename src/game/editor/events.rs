//! The editor's events panel: the level's scripted events in words, each a button that removes
//! it; reinforcements placed on the board for a round (R, then a click on an empty cell), and
//! a message for a round. The edits are [`crate::rules::level::edit`]'s, so the file gets the
//! lines a designer would write (`levels/README.md`, "Events").

use bevy::prelude::*;

use super::{Editor, EditorAction, Field, chosen_side, small_button};
use crate::game::ui::{self, UiAction};
use crate::rules::battle::log::agree;
use crate::rules::level::events::{Area, Effect, LevelEvent, When, reinforcements};
use crate::rules::level::{LevelFile, UnitDef};

/// The reinforcement named `name`, if the level has one, with the round it arrives on when its
/// event fires on a round.
pub fn reinforcement<'a>(f: &'a LevelFile, name: &str) -> Option<(&'a UnitDef, Option<u32>)> {
    reinforcements(f)
        .find(|(.., u)| u.name == name)
        .map(|(e, _, _, u)| {
            let round = match f.events[e].when {
                When::Round(n) => Some(n),
                _ => None,
            };
            (u, round)
        })
}

/// The reinforcement that arrives on `cell` (the first, if several do).
pub fn reinforcement_at(f: &LevelFile, cell: (i32, i32)) -> Option<&UnitDef> {
    reinforcements(f).map(|(.., u)| u).find(|u| u.cell == cell)
}

/// An event in words: "Round 2: Mudge, Slop arrive (Raiders); \"The bell rings...\"".
pub fn event_words(ev: &LevelEvent) -> String {
    let when = match &ev.when {
        When::Round(n) => format!("Round {n}"),
        When::Enters { side, area } => {
            format!(
                "{side} {} {}",
                agree(side, "enters", "enter"),
                area_words(area)
            )
        }
        When::Lost { side, units } => {
            format!("{side} {} lost {units}", agree(side, "has", "have"))
        }
    };
    let then: Vec<String> = ev
        .then
        .iter()
        .map(|e| match e {
            Effect::Message(m) => {
                let short: String = m.chars().take(28).collect();
                let more = if m.chars().count() > 28 { "..." } else { "" };
                format!("\"{short}{more}\"")
            }
            Effect::Reinforcements(units) => {
                let names: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
                let verb = if names.len() == 1 {
                    "arrives"
                } else {
                    "arrive"
                };
                format!("{} {verb}", names.join(", "))
            }
            Effect::Objectives { side, .. } => format!("{side}'s goals change"),
        })
        .collect();
    format!("{when}: {}", then.join("; "))
}

fn area_words(a: &Area) -> String {
    match a {
        Area::Cells(cells) if cells.len() == 1 => format!("({}, {})", cells[0].0, cells[0].1),
        Area::Cells(cells) => format!("{} cells", cells.len()),
        Area::Rect { from, to } => {
            format!("({}, {})-({}, {})", from.0, from.1, to.0, to.1)
        }
    }
}

/// The events panel, in the units tool under how the level is won.
pub(super) fn events_panel(p: &mut ChildSpawnerCommands, editor: &Editor, f: &LevelFile) {
    p.spawn(ui::text(
        "Events (click one to remove it):",
        14.0,
        ui::ACCENT,
    ));
    if f.events.is_empty() {
        p.spawn(ui::text("  (none)", 13.0, ui::DIM));
    }
    for (i, ev) in f.events.iter().enumerate() {
        p.spawn(ui::button(
            format!("x {}", event_words(ev)),
            None,
            UiAction::Editor(EditorAction::RemoveEvent(i)),
        ));
    }
    let side = chosen_side(editor, f).map_or("?".into(), |s| s.name.clone());
    let round = editor.event_round();
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        align_items: AlignItems::Center,
        ..default()
    })
    .with_children(|row| {
        row.spawn(ui::text(format!("On round {round}:"), 13.0, ui::TEXT));
        row.spawn(small_button("-", EditorAction::EventRound(-1)));
        row.spawn(small_button("+", EditorAction::EventRound(1)));
        row.spawn(super::choice_button(
            format!("{side} arrive... R"),
            EditorAction::Reinforce,
            editor.reinforcing,
        ));
        row.spawn(small_button(
            "Message...",
            EditorAction::Type(Field::Message),
        ));
    });
    if editor.reinforcing {
        p.spawn(ui::text(
            "Each empty cell clicked gets a reinforcement (drawn faint) arriving then",
            13.0,
            ui::DIM,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_told_in_a_line_each() {
        let file: LevelFile = crate::rules::level::ron_options()
            .from_str(
                r#"(name: "E", ruleset: "sides", topology: Square(diagonals: One), size: (3, 1),
                map: ["..."], sides: [(name: "A", controller: Human), (name: "B", controller: Ai)],
                units: [(name: "a", side: "A", cell: (0, 0), template: "warrior")],
                events: [
                    (when: Round(2), then: [Message("The bell rings in Harrow: the watch runs"),
                        Reinforcements([(name: "W", side: "A", cell: (1, 0), template: "warrior")])]),
                    (when: Enters(side: "B", area: Rect(from: (0, 0), to: (1, 0))), then: [
                        Objectives(side: "B", victory: [])]),
                ])"#,
            )
            .expect("parses");
        assert_eq!(
            event_words(&file.events[0]),
            "Round 2: \"The bell rings in Harrow: th...\"; W arrives"
        );
        assert_eq!(
            event_words(&file.events[1]),
            "B enters (0, 0)-(1, 0): B's goals change"
        );
        assert_eq!(
            reinforcement(&file, "W").map(|(u, r)| (u.cell, r)),
            Some(((1, 0), Some(2)))
        );
        assert_eq!(
            reinforcement_at(&file, (1, 0)).map(|u| u.name.as_str()),
            Some("W")
        );
        assert!(
            reinforcement(&file, "a").is_none(),
            "a placed unit is no reinforcement"
        );
    }
}
