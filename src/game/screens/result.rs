//! The Result screen: who won and why, each side's units, Board (back to the final board and
//! log), Rematch (a new seed) and Back.

use bevy::prelude::*;

use super::{random_seed, start_battle};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::ui::{self, UiAction, UiClick};
use crate::rules::battle::{BattleState, SideId, Status, UnitId};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(OnEnter(Screen::Result), spawn_result)
        .add_systems(
            Update,
            result_keys
                .run_if(in_state(Screen::Result))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            result_actions
                .run_if(in_state(Screen::Result))
                .in_set(crate::game::AppSystems::Update),
        );
}

fn spawn_result(
    mut commands: Commands,
    battle: Option<Res<Battle>>,
    editor: Option<Res<crate::game::editor::Editor>>,
    settings: Option<Res<crate::game::battle::Settings>>,
) {
    let colour_blind = settings.is_some_and(|s| s.colour_blind);
    // A playtest's Back returns to the level editor (through the setup screen's hook).
    let back = if editor.is_some_and(|e| e.playtesting) {
        "Back to editor"
    } else {
        "Back"
    };
    let Some(battle) = battle else {
        commands.set_state(Screen::Title);
        return;
    };
    let s = &battle.state;
    let (headline, reason) = match &s.outcome {
        Some(o) => (
            match o.winner {
                Some(w) => {
                    let name = s.sides.get(w.index()).map_or("?", |x| x.name.as_str());
                    format!(
                        "{name} {}",
                        crate::rules::battle::log::agree(name, "wins", "win")
                    )
                }
                None => "A draw".to_string(),
            },
            o.reason.clone(),
        ),
        None => ("The battle was left".to_string(), String::new()),
    };
    commands
        .spawn((
            Name::new("Result"),
            DespawnOnExit(Screen::Result),
            ui::screen_root(),
        ))
        .with_children(|p| {
            p.spawn(ui::text(headline, 48.0, ui::ACCENT));
            p.spawn(ui::text(reason, 18.0, ui::TEXT));
            p.spawn(ui::text(
                format!(
                    "{} - {} {}{} - {} moves and actions - seed {}",
                    battle.setup.level.name(),
                    s.round,
                    crate::rules::rulesets::round_word(s).to_lowercase(),
                    if s.round == 1 { "" } else { "s" },
                    battle.commands.len(),
                    battle.setup.seed
                ),
                16.0,
                ui::DIM,
            ));
            for i in 0..s.sides.len() {
                let id = SideId(i as u8);
                let (head, line) = side_summary(s, id, &battle.control(id).label());
                p.spawn((
                    ui::text(
                        head,
                        18.0,
                        crate::game::units::side_colour(Some(i), colour_blind),
                    ),
                    Node {
                        margin: UiRect::top(px(10)),
                        ..default()
                    },
                ));
                // One text per unit, wrapped as a row: a line breaks between units, never
                // inside one ("Long Osk (hp" / "3/8)" broke at 1024x640).
                p.spawn(Node {
                    flex_direction: FlexDirection::Row,
                    flex_wrap: FlexWrap::Wrap,
                    justify_content: JustifyContent::Center,
                    column_gap: px(6),
                    max_width: percent(90),
                    margin: UiRect::horizontal(px(24)),
                    ..default()
                })
                .with_children(|r| {
                    for (k, unit) in line.iter().enumerate() {
                        let comma = if k + 1 < line.len() { "," } else { "" };
                        r.spawn(ui::text(format!("{unit}{comma}"), 15.0, ui::TEXT));
                    }
                });
            }
            p.spawn(Node {
                flex_direction: FlexDirection::Row,
                column_gap: px(8),
                margin: UiRect::top(px(24)),
                ..default()
            })
            .with_children(|r| {
                r.spawn(ui::button("Board", Some("V"), UiAction::BackToBoard));
                r.spawn(ui::button("Replay", Some("P"), UiAction::Replay));
                r.spawn(ui::button("Rematch", Some("R"), UiAction::Rematch));
                r.spawn(ui::button(back, Some("B"), UiAction::Back));
            });
        });
}

fn result_keys(keys: Res<ButtonInput<KeyCode>>, mut clicks: MessageWriter<UiClick>) {
    // R only: an Enter pressed twice on the "Battle over" banner must not start a new battle
    // before the player has read this screen.
    if keys.just_pressed(KeyCode::KeyR) {
        clicks.write(UiClick(UiAction::Rematch));
    }
    if keys.just_pressed(KeyCode::KeyV) {
        clicks.write(UiClick(UiAction::BackToBoard));
    }
    if keys.just_pressed(KeyCode::KeyP) {
        clicks.write(UiClick(UiAction::Replay));
    }
    if keys.just_pressed(KeyCode::KeyB) || keys.just_pressed(KeyCode::Escape) {
        clicks.write(UiClick(UiAction::Back));
    }
}

fn result_actions(
    mut clicks: MessageReader<UiClick>,
    battle: Option<Res<Battle>>,
    mut commands: Commands,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::Rematch => {
                if let Some(b) = &battle {
                    let mut setup = b.setup.clone();
                    setup.seed = random_seed();
                    start_battle(&mut commands, Battle::new(setup));
                }
            }
            UiAction::Back => commands.set_state(Screen::Setup),
            UiAction::BackToBoard if battle.is_some() => commands.set_state(Screen::Battle),
            UiAction::Replay => {
                if let Some(b) = &battle {
                    crate::game::replay::start(&mut commands, b);
                }
            }
            _ => {}
        }
    }
}

/// A side's line on the Result screen ("Party - Human: 2 standing, 1 down, 0 dead, 1 fled")
/// and each of its units in words ("Aldric (hp 3/12)", "Mira (fled)"). A unit that broke
/// and left the map is out of the fight but not down, and is counted as fled.
pub fn side_summary(s: &BattleState, id: SideId, who: &str) -> (String, Vec<String>) {
    let units: Vec<_> = s
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.side == id)
        .map(|(i, u)| (u, crate::rules::rulesets::fled(s, UnitId(i as u16))))
        .collect();
    let count = |st: Status| {
        units
            .iter()
            .filter(|(u, fled)| u.status == st && !fled)
            .count()
    };
    let gone = units.iter().filter(|(_, fled)| *fled).count();
    let name = s
        .sides
        .get(id.index())
        .map_or("?", |side| side.name.as_str());
    let head = format!(
        "{name} - {who}: {} standing, {} down, {} dead{}",
        count(Status::Active),
        count(Status::Down),
        count(Status::Dead),
        if gone > 0 {
            format!(", {gone} fled")
        } else {
            String::new()
        }
    );
    let line = units
        .iter()
        .map(|&(u, fled)| {
            let state = match u.status {
                _ if fled => "fled".into(),
                Status::Active => crate::game::units::health_gauge(u),
                Status::Down => "down".into(),
                Status::Dead => "dead".into(),
            };
            format!("{} ({state})", u.name)
        })
        .collect();
    (head, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::rulesets::RulesState;

    #[test]
    fn the_result_tells_a_unit_that_fled_apart_from_the_fallen() {
        let level = crate::rules::battle::tests::load("sides_village_brawl.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let side = b.units[0].side;
        let (head, _) = side_summary(&b, side, "Human");
        assert!(head.contains(" 0 down") && !head.contains("fled"), "{head}");
        // The first unit broke and left the map: out of the fight, not down.
        b.units[0].status = Status::Down;
        if let RulesState::Sides(r) = &mut b.rules {
            r.morale.fled.push(UnitId(0));
        }
        let (head, line) = side_summary(&b, side, "Human");
        assert!(head.ends_with(", 0 down, 0 dead, 1 fled"), "{head}");
        assert_eq!(line[0], format!("{} (fled)", b.units[0].name));
    }
}
