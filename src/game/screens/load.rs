//! The Load screen: every saved battle, newest first (level, sides, round, date, which slot,
//! and how it ended), each a button beside a thumbnail of its board (written with the save;
//! a missing or damaged picture says so); a damaged save is listed with its problem and left
//! alone.
//! Keys: 1-9 load the first nine, B or Esc go back.

use bevy::prelude::*;

use super::start_battle;
use crate::game::Screen;
use crate::game::saves::{self, SaveStatus};
use crate::game::ui::{self, UiAction, UiClick};
use crate::saves::{Listed, Slot};

/// At most this many saves are listed (the newest): the nine with a number key, which fit
/// with their thumbnails in a 640-pixel-high window.
const SHOWN: usize = 9;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SaveList>()
        .add_systems(OnEnter(Screen::Load), spawn_load)
        .add_systems(
            Update,
            load_keys
                .run_if(in_state(Screen::Load))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            load_actions
                .run_if(in_state(Screen::Load))
                .in_set(crate::game::AppSystems::Update),
        );
}

/// The files listed, in the order shown.
#[derive(Resource, Default, Debug)]
pub struct SaveList(pub Vec<std::path::PathBuf>);

/// One save's line: "The Crypt - Party vs Orcs - round 3 - autosave - 2026-11-25 20:31 UTC".
pub fn describe(l: &Listed) -> String {
    match &l.save {
        Ok(s) => {
            let m = &s.summary;
            let state = match &m.outcome {
                Some(w) if w == "a draw" => "finished: a draw".to_string(),
                Some(w) => format!("finished: {w} won"),
                // In the ruleset's own word: `phases` counts Turns.
                None => format!(
                    "{} {}",
                    crate::rules::rulesets::RulesetId::parse(&m.ruleset)
                        .map_or("Round", |r| r.round_word())
                        .to_lowercase(),
                    m.round
                ),
            };
            // Two humans or more: a hot-seat game, which the next player would not know
            // from the names alone.
            let humans = s
                .controls
                .iter()
                .filter(|c| matches!(c, crate::ai::SideControl::Human))
                .count();
            let hot_seat = if humans > 1 { " (hot-seat)" } else { "" };
            format!(
                "{} ({}) - {}{hot_seat} - {state} - {} - {}",
                m.level,
                m.ruleset,
                m.sides.join(" vs "),
                match s.slot {
                    Slot::Auto => "autosave",
                    Slot::Quick => "quick save",
                },
                crate::saves::date(s.saved_at)
            )
        }
        Err(e) => format!("Damaged, left alone: {e}"),
    }
}

/// The thumbnail's box on the Load screen, in UI units.
const THUMB: Vec2 = Vec2::new(72.0, 44.0);

/// A save's thumbnail in the list: its picture fitted to [`THUMB`], or in words why there
/// is none ("no picture", "picture damaged").
fn spawn_thumbnail(
    row: &mut ChildSpawnerCommands,
    images: &mut Assets<Image>,
    save: &std::path::Path,
) {
    match saves::read_thumbnail(save) {
        Ok(image) => {
            let (w, h) = (image.width() as f32, image.height() as f32);
            let k = (THUMB.x / w).min(THUMB.y / h);
            row.spawn(Node {
                width: px(THUMB.x),
                height: px(THUMB.y),
                justify_content: JustifyContent::Center,
                align_items: AlignItems::Center,
                flex_shrink: 0.0,
                ..default()
            })
            .with_children(|b| {
                b.spawn((
                    ImageNode::new(images.add(image)),
                    Node {
                        width: px(w * k),
                        height: px(h * k),
                        ..default()
                    },
                ));
            });
        }
        Err(why) => {
            row.spawn((
                ui::text(why, 11.0, ui::DIM),
                Node {
                    width: px(THUMB.x),
                    flex_shrink: 0.0,
                    ..default()
                },
            ));
        }
    }
}

fn spawn_load(
    mut commands: Commands,
    mut list: ResMut<SaveList>,
    status: Res<SaveStatus>,
    mut images: ResMut<Assets<Image>>,
) {
    let listed = crate::saves::list(&saves::save_dir());
    list.0.clear();
    commands
        .spawn((
            Name::new("Load"),
            DespawnOnExit(Screen::Load),
            ui::screen_root(),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Saved battles", 40.0, ui::ACCENT));
            p.spawn(ui::text(
                format!("in {}", saves::save_dir().display()),
                14.0,
                ui::DIM,
            ));
            p.spawn(Node {
                height: px(12),
                ..default()
            });
            if listed.is_empty() {
                p.spawn(ui::text("No saves yet.", 18.0, ui::DIM));
            }
            // The rows line up on the left, the thumbnails in a column. The column keeps
            // inside the window, and a long row wraps its words: at 1024x640 the rows ran
            // off the right and pushed the thumbnails off the left.
            p.spawn(Node {
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::FlexStart,
                row_gap: px(4),
                max_width: percent(94),
                ..default()
            })
            .with_children(|col| {
                for l in listed.iter().take(SHOWN) {
                    let line = describe(l);
                    col.spawn(Node {
                        flex_direction: FlexDirection::Row,
                        align_items: AlignItems::Center,
                        column_gap: px(8),
                        max_width: percent(100),
                        ..default()
                    })
                    .with_children(|row| {
                        spawn_thumbnail(row, &mut images, &l.path);
                        if l.save.is_ok() {
                            let n = list.0.len();
                            let key = (n < 9).then(|| (n + 1).to_string());
                            row.spawn(ui::button(line, key.as_deref(), UiAction::LoadSave(n)));
                            list.0.push(l.path.clone());
                        } else {
                            row.spawn((
                                ui::text(line, 14.0, ui::BAD),
                                Node {
                                    max_width: px(900),
                                    margin: UiRect::all(px(4)),
                                    ..default()
                                },
                            ));
                        }
                    });
                }
            });
            if listed.len() > SHOWN {
                p.spawn(ui::text(
                    format!("{} older saves are not shown", listed.len() - SHOWN),
                    14.0,
                    ui::DIM,
                ));
            }
            p.spawn(ui::text(status.message.clone(), 16.0, ui::BAD));
            p.spawn(ui::button("Back", Some("B"), UiAction::Back));
        });
}

fn load_keys(keys: Res<ButtonInput<KeyCode>>, mut clicks: MessageWriter<UiClick>) {
    for (i, k) in crate::game::keys::DIGITS_1_TO_9.iter().enumerate() {
        if keys.just_pressed(*k) {
            clicks.write(UiClick(UiAction::LoadSave(i)));
        }
    }
    if keys.just_pressed(KeyCode::KeyB) || keys.just_pressed(KeyCode::Escape) {
        clicks.write(UiClick(UiAction::Back));
    }
}

fn load_actions(
    mut clicks: MessageReader<UiClick>,
    mut commands: Commands,
    list: Res<SaveList>,
    mut status: ResMut<SaveStatus>,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::LoadSave(i) => {
                let Some(path) = list.0.get(*i) else { continue };
                match saves::load(path) {
                    Ok(mut battle) => {
                        // An older quick save than its battle's autosave plays on in a slot
                        // of its own, beside the newer progress, not over it.
                        if crate::saves::read(path)
                            .is_ok_and(|f| crate::saves::forks(&saves::save_dir(), &f))
                        {
                            battle.id = crate::saves::new_battle_id(battle.setup.level.name());
                        }
                        status.message.clear();
                        start_battle(&mut commands, battle);
                    }
                    // Back to the title, which shows the message.
                    Err(e) => {
                        status.message = e;
                        commands.set_state(Screen::Title);
                    }
                }
            }
            UiAction::Back => commands.set_state(Screen::Title),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::SideControl;
    use crate::rules::battle::BattleState;

    /// The Load list's line for a new battle on the shipped `level` played by `controls`.
    fn line(level: &str, controls: &[SideControl]) -> String {
        let path = crate::repo_dir().join("levels").join(level);
        let level = crate::rules::level::load_path(&path).expect("a shipped level loads");
        let (state, _) = BattleState::start(&level, 3);
        let file = crate::saves::Saving {
            battle: "b",
            slot: Slot::Auto,
            level: &level,
            level_path: None,
            seed: 3,
            controls,
            commands: &[],
            state: &state,
        }
        .file();
        describe(&Listed {
            path: "b.ron".into(),
            save: Ok(file),
        })
    }

    /// A hot-seat game is marked as one in the Load list; a game against the AI is not.
    #[test]
    fn a_hot_seat_save_says_so_in_the_load_list() {
        let humans = [SideControl::Human, SideControl::Human];
        let solo = [
            SideControl::Human,
            SideControl::Ai(crate::ai::Kind::Utility(crate::ai::Difficulty::Normal)),
        ];
        let hot_seat = line("sides_village_brawl.ron", &humans);
        assert!(hot_seat.contains("(hot-seat)"), "{hot_seat}");
        assert!(hot_seat.contains(" - round 1 - "), "{hot_seat}");
        let against_ai = line("sides_village_brawl.ron", &solo);
        assert!(!against_ai.contains("hot-seat"), "{against_ai}");
    }

    /// A `phases` save counts its Turns, as the game does, not rounds.
    #[test]
    fn a_phases_save_is_listed_by_its_turn() {
        let l = line(
            "phases_flat_canyon.ron",
            &[SideControl::Human, SideControl::Human],
        );
        assert!(l.contains(" - turn 1 - "), "{l}");
    }
}
