//! The Load screen: every saved battle, newest first (level, sides, round, date, which slot,
//! and how it ended), each a button beside a thumbnail of its board (written with the save;
//! a missing or damaged picture says so); a damaged save is listed with its problem and left
//! alone. The list shows a page of [`PAGE`] saves at a time ("saves 10-18 of 21").
//! Keys: 1-9 load the page's saves, PgDn or Right the older page, PgUp or Left the newer one,
//! B or Esc go back.

use bevy::prelude::*;

use super::start_battle;
use crate::game::Screen;
use crate::game::saves::{self, SaveStatus};
use crate::game::ui::{self, UiAction, UiClick};
use crate::saves::{Listed, Slot};

/// The saves on a page: the nine with a number key, which fit with their thumbnails in a
/// 640-pixel-high window.
pub const PAGE: usize = 9;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SavePages>()
        .add_systems(OnEnter(Screen::Load), (read_saves, spawn_load).chain())
        .add_systems(
            Update,
            load_keys
                .run_if(in_state(Screen::Load))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (load_actions, respawn_on_page_change)
                .chain()
                .run_if(in_state(Screen::Load))
                .in_set(crate::game::AppSystems::Update),
        );
}

/// Every save listed, newest first, and the page shown.
#[derive(Resource, Default, Debug)]
pub struct SavePages {
    pub listed: Vec<Listed>,
    /// The page shown, 0 being the newest saves.
    pub page: usize,
}

impl SavePages {
    /// How many pages the list takes (at least one, empty or not).
    pub fn pages(&self) -> usize {
        self.listed.len().div_ceil(PAGE).max(1)
    }

    /// The indices in `listed` of the saves on the page shown.
    pub fn shown(&self) -> std::ops::Range<usize> {
        let start = (self.page * PAGE).min(self.listed.len());
        start..(start + PAGE).min(self.listed.len())
    }

    /// The files that 1, 2, ... load: the page's saves that can be read, in the order shown (a
    /// damaged one has no key).
    pub fn loadable(&self) -> Vec<&std::path::Path> {
        self.listed[self.shown()]
            .iter()
            .filter(|l| l.save.is_ok())
            .map(|l| l.path.as_path())
            .collect()
    }

    /// One page older (`true`) or newer, if there is one; whether the page changed.
    pub fn turn(&mut self, older: bool) -> bool {
        let to = if older {
            (self.page + 1 < self.pages()).then_some(self.page + 1)
        } else {
            self.page.checked_sub(1)
        };
        to.is_some_and(|p| {
            self.page = p;
            true
        })
    }

    /// "saves 10-18 of 21" for the page shown; `None` when every save fits on one page.
    pub fn label(&self) -> Option<String> {
        if self.pages() < 2 {
            return None;
        }
        let r = self.shown();
        Some(format!(
            "saves {}-{} of {}",
            r.start + 1,
            r.end,
            self.listed.len()
        ))
    }
}

/// The Load screen's root and the page it shows; spawned anew when the page turns.
#[derive(Component)]
struct LoadRoot(usize);

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

fn read_saves(mut pages: ResMut<SavePages>) {
    *pages = SavePages {
        listed: crate::saves::list(&saves::save_dir()),
        page: 0,
    };
}

fn spawn_load(
    mut commands: Commands,
    pages: Res<SavePages>,
    status: Res<SaveStatus>,
    mut images: ResMut<Assets<Image>>,
) {
    draw(&mut commands, &pages, &status, &mut images);
}

/// The page turned: the screen is drawn again with its saves.
fn respawn_on_page_change(
    mut commands: Commands,
    pages: Res<SavePages>,
    status: Res<SaveStatus>,
    mut images: ResMut<Assets<Image>>,
    roots: Query<(Entity, &LoadRoot)>,
) {
    if roots.iter().all(|(_, r)| r.0 == pages.page) {
        return;
    }
    for (root, _) in &roots {
        commands.entity(root).despawn();
    }
    draw(&mut commands, &pages, &status, &mut images);
}

/// The screen, showing the page `pages.page`.
fn draw(
    commands: &mut Commands,
    pages: &SavePages,
    status: &SaveStatus,
    images: &mut Assets<Image>,
) {
    commands
        .spawn((
            Name::new("Load"),
            LoadRoot(pages.page),
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
            if pages.listed.is_empty() {
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
                let mut n = 0;
                for l in &pages.listed[pages.shown()] {
                    let line = describe(l);
                    col.spawn(Node {
                        flex_direction: FlexDirection::Row,
                        align_items: AlignItems::Center,
                        column_gap: px(8),
                        max_width: percent(100),
                        ..default()
                    })
                    .with_children(|row| {
                        spawn_thumbnail(row, images, &l.path);
                        if l.save.is_ok() {
                            let key = (n + 1).to_string();
                            row.spawn(ui::button(line, Some(&key), UiAction::LoadSave(n)));
                            n += 1;
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
            p.spawn(ui::text(status.message.clone(), 16.0, ui::BAD));
            // Newer, which saves are shown, Older and Back: one line, under nine rows of two
            // lines each at 1024x640. The page's buttons keep their place (hidden on the first
            // and last page) so that the line moves little as the pages turn.
            p.spawn(Node {
                flex_direction: FlexDirection::Row,
                align_items: AlignItems::Center,
                column_gap: px(12),
                ..default()
            })
            .with_children(|row| {
                if let Some(label) = pages.label() {
                    let shown = |on: bool| {
                        if on {
                            Visibility::Inherited
                        } else {
                            Visibility::Hidden
                        }
                    };
                    row.spawn((
                        ui::button("Newer", Some("PgUp"), UiAction::NewerSaves),
                        shown(pages.page > 0),
                    ));
                    row.spawn(ui::text(label, 14.0, ui::DIM));
                    row.spawn((
                        ui::button("Older", Some("PgDn"), UiAction::OlderSaves),
                        shown(pages.page + 1 < pages.pages()),
                    ));
                }
                row.spawn(ui::button("Back", Some("B"), UiAction::Back));
            });
        });
}

fn load_keys(keys: Res<ButtonInput<KeyCode>>, mut clicks: MessageWriter<UiClick>) {
    for (i, k) in crate::game::keys::DIGITS_1_TO_9.iter().enumerate() {
        if keys.just_pressed(*k) {
            clicks.write(UiClick(UiAction::LoadSave(i)));
        }
    }
    if keys.any_just_pressed([KeyCode::PageDown, KeyCode::ArrowRight]) {
        clicks.write(UiClick(UiAction::OlderSaves));
    }
    if keys.any_just_pressed([KeyCode::PageUp, KeyCode::ArrowLeft]) {
        clicks.write(UiClick(UiAction::NewerSaves));
    }
    if keys.just_pressed(KeyCode::KeyB) || keys.just_pressed(KeyCode::Escape) {
        clicks.write(UiClick(UiAction::Back));
    }
}

fn load_actions(
    mut clicks: MessageReader<UiClick>,
    mut commands: Commands,
    mut pages: ResMut<SavePages>,
    mut status: ResMut<SaveStatus>,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::LoadSave(i) => {
                let Some(path) = pages.loadable().get(*i).map(|p| p.to_path_buf()) else {
                    continue;
                };
                match saves::load(&path) {
                    Ok(mut battle) => {
                        // An older quick save than its battle's autosave plays on in a slot
                        // of its own, beside the newer progress, not over it.
                        if crate::saves::read(&path)
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
            UiAction::OlderSaves => {
                pages.turn(true);
            }
            UiAction::NewerSaves => {
                pages.turn(false);
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

    /// A save file of a new battle on the shipped `level` played by `controls`.
    fn save_file(level: &str, controls: &[SideControl]) -> crate::saves::SaveFile {
        let path = crate::repo_dir().join("levels").join(level);
        let level = crate::rules::level::load_path(&path).expect("a shipped level loads");
        let (state, _) = BattleState::start(&level, 3);
        crate::saves::Saving {
            battle: "b",
            slot: Slot::Auto,
            level: &level,
            level_path: None,
            seed: 3,
            controls,
            commands: &[],
            state: &state,
        }
        .file()
    }

    /// The Load list's line for a new battle on the shipped `level` played by `controls`.
    fn line(level: &str, controls: &[SideControl]) -> String {
        describe(&Listed {
            path: "b.ron".into(),
            save: Ok(save_file(level, controls)),
        })
    }

    /// `n` saves, `save-0.ron` (the newest) to `save-{n-1}.ron`, none of them on disk; those
    /// at the indices `damaged` are listed as damaged.
    fn saves(n: usize, damaged: &[usize]) -> SavePages {
        let file = save_file("sides_village_brawl.ron", &[SideControl::Human; 2]);
        let listed = (0..n)
            .map(|i| Listed {
                path: format!("no-such-folder/save-{i}.ron").into(),
                save: if damaged.contains(&i) {
                    Err("damaged".to_string())
                } else {
                    Ok(file.clone())
                },
            })
            .collect();
        SavePages { listed, page: 0 }
    }

    fn names(paths: &[&std::path::Path]) -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    }

    /// 21 saves take three pages of nine, the last one of three; the pages turn one at a
    /// time and stop at either end; 1-9 are the shown page's loadable saves.
    #[test]
    fn the_load_list_shows_every_save_a_page_at_a_time() {
        let mut p = saves(21, &[10]);
        assert_eq!(p.pages(), 3);
        assert_eq!(
            (p.shown(), p.label().as_deref()),
            (0..9, Some("saves 1-9 of 21"))
        );
        assert_eq!(p.loadable().len(), 9);
        assert!(!p.turn(false), "no page newer than the first");
        assert_eq!(p.page, 0);
        assert!(p.turn(true));
        assert_eq!(
            (p.shown(), p.label().as_deref()),
            (9..18, Some("saves 10-18 of 21"))
        );
        // The damaged save-10 has no key: 2 loads save-11.
        let loadable = names(&p.loadable());
        assert_eq!(loadable.len(), 8);
        assert_eq!(loadable[0], "no-such-folder/save-9.ron");
        assert_eq!(loadable[1], "no-such-folder/save-11.ron");
        assert!(p.turn(true));
        assert_eq!(
            (p.shown(), p.label().as_deref()),
            (18..21, Some("saves 19-21 of 21"))
        );
        assert_eq!(
            names(&p.loadable()),
            ["save-18", "save-19", "save-20"].map(|n| format!("no-such-folder/{n}.ron"))
        );
        assert!(!p.turn(true), "no page older than the last");
        assert_eq!(p.page, 2);
        assert!(p.turn(false) && p.turn(false));
        assert_eq!(p.shown(), 0..9);
        // Nine fit on one page, which needs no label; none is an empty page.
        let mut nine = saves(9, &[]);
        assert_eq!((nine.pages(), nine.shown(), nine.label()), (1, 0..9, None));
        assert!(!nine.turn(true));
        let ten = saves(10, &[]);
        assert_eq!(ten.label().as_deref(), Some("saves 1-9 of 10"));
        let none = saves(0, &[]);
        assert_eq!((none.pages(), none.shown(), none.label()), (1, 0..0, None));
        assert!(none.loadable().is_empty());
    }

    /// PgDn and Right turn to older saves, PgUp and Left to newer ones, and a digit loads the
    /// save of the page shown (here a file that is not there, which the message names).
    #[test]
    fn the_load_keys_turn_the_pages_and_load_from_the_page_shown() {
        let mut app = App::new();
        app.add_message::<UiClick>()
            .init_resource::<ButtonInput<KeyCode>>()
            .init_resource::<SaveStatus>()
            .init_resource::<NextState<Screen>>()
            .insert_resource(saves(21, &[]))
            .add_systems(Update, (load_keys, load_actions).chain());
        let tap = |app: &mut App, k: KeyCode| {
            app.world_mut()
                .resource_mut::<ButtonInput<KeyCode>>()
                .press(k);
            app.update();
            let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
            keys.release(k);
            keys.clear();
            app.world().resource::<SavePages>().page
        };
        assert_eq!(tap(&mut app, KeyCode::PageDown), 1);
        assert_eq!(tap(&mut app, KeyCode::ArrowRight), 2);
        assert_eq!(tap(&mut app, KeyCode::PageDown), 2, "the last page stays");
        assert_eq!(tap(&mut app, KeyCode::Digit2), 2);
        let message = app.world().resource::<SaveStatus>().message.clone();
        assert!(message.contains("save-19.ron"), "{message}");
        assert_eq!(tap(&mut app, KeyCode::PageUp), 1);
        assert_eq!(tap(&mut app, KeyCode::ArrowLeft), 0);
        assert_eq!(tap(&mut app, KeyCode::ArrowLeft), 0, "the first page stays");
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
