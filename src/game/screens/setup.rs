//! The Setup screen: the levels of the catalog (with their errors), who plays each side, the
//! seed; it follows edits of the level files.

use bevy::prelude::*;

use super::{random_seed, start_battle};
use crate::game::Screen;
use crate::game::battle::{Battle, BattleSetup, SideControl};
use crate::game::levels::{Catalog, LevelChanged};
use crate::game::ui::{self, UiAction, UiClick};
use crate::rules::grid::Topology;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SetupState>()
        .add_systems(OnEnter(Screen::Setup), enter_setup)
        .add_systems(
            Update,
            setup_keys
                .run_if(in_state(Screen::Setup))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (
                setup_actions,
                setup_follow_catalog,
                rebuild_setup,
                scroll_level_list,
            )
                .chain()
                .run_if(in_state(Screen::Setup))
                .in_set(crate::game::AppSystems::Update),
        );
}

/// The level list, which scrolls when the levels are more than the window shows.
#[derive(Component)]
pub struct LevelList;

/// The selected level's entry in the list.
#[derive(Component)]
pub struct SelectedLevel;

/// Keeps the selected level in view (Up and Down went past the list's edge at 1024x640, out
/// of sight) and scrolls the list with the mouse wheel over it.
///
/// The selection is brought into view when it moves, when the list is built anew, and when
/// the list's height changes (the "more below" line appearing under it took 18 px at
/// 1024x640, which cut the level just scrolled to, and a cut row is hidden). Scrolling down
/// stops at the top of a row, so the first row shows whole rather than cut and hidden (a gap
/// above the list).
#[allow(clippy::type_complexity)]
fn scroll_level_list(
    wheel: Res<bevy::input::mouse::AccumulatedMouseScroll>,
    mut lists: Query<
        (
            Entity,
            &ComputedNode,
            &bevy::ui::UiGlobalTransform,
            &bevy::ui::RelativeCursorPosition,
            &mut ScrollPosition,
            &Children,
        ),
        With<LevelList>,
    >,
    rows: Query<
        (
            &ComputedNode,
            &bevy::ui::UiGlobalTransform,
            Has<SelectedLevel>,
        ),
        With<ui::WholeOnly>,
    >,
    setup: Res<SetupState>,
    mut more: Query<&mut Node, With<LevelsMore>>,
    mut shown: Local<Option<(Entity, usize, u32)>>,
) {
    let Ok((id, list, at, over, mut pos, children)) = lists.single_mut() else {
        return;
    };
    if list.size().y <= 0.0 {
        // Not laid out yet (built this frame): nothing to measure, and clamping to a room of
        // 0 would lose where the list was scrolled to.
        return;
    }
    let k = list.inverse_scale_factor();
    let max = ui::scroll_room(list);
    let mut y = pos.y;
    if over.cursor_over() {
        y -= ui::wheel_units(&wheel, 30.0);
    }
    // Each row's top below the list's top as now scrolled, its height, whether selected
    // (physical pixels).
    let list_top = at.translation.y - list.size().y / 2.0;
    let laid: Vec<(f32, f32, bool)> = rows
        .iter_many(children.iter())
        .map(|(n, t, sel)| {
            (
                t.translation.y - n.size().y / 2.0 - list_top,
                n.size().y,
                sel,
            )
        })
        .collect();
    let key = (id, setup.selected, list.size().y.round() as u32);
    if *shown != Some(key)
        && let Some(&(top, height, _)) = laid.iter().find(|r| r.2)
        && height > 0.0
    {
        y += ui::scroll_to_show_whole(top, height, list.size().y, laid.iter().map(|r| r.0)) * k;
        *shown = Some(key);
    }
    let y = y.clamp(0.0, max);
    if pos.y != y {
        pos.y = y;
    }
    // The room after the last level is not a level below.
    ui::show_more_below(ui::runs_on_below(max - LIST_END_ROOM, y), more.iter_mut());
}

/// The empty room after the level list's last row, in UI units: as high as a two-line row
/// and its gap, the most a scroll stopped at a row's top goes past the least it needed.
const LIST_END_ROOM: f32 = 56.0;

/// The line under the level list that says more levels are below its edge (right under its
/// last whole row: [`ui::MoreLine`]).
#[derive(Component)]
pub struct LevelsMore;

/// The choices on the Setup screen.
#[derive(Resource, Debug, Clone, Default)]
pub struct SetupState {
    /// Index into the catalog.
    pub selected: usize,
    /// Who plays each side of the selected level.
    pub controls: Vec<SideControl>,
    pub seed: u64,
    /// The seed field has the keyboard.
    pub seed_focused: bool,
    /// The level the controls were made for.
    controls_for: Option<std::path::PathBuf>,
    /// A message (why a battle could not start).
    pub message: String,
}

impl SetupState {
    /// Resets the side controls to the selected level's defaults when the level changes.
    fn sync_controls(&mut self, catalog: &Catalog) {
        let Some(entry) = catalog.entries.get(self.selected) else {
            return;
        };
        let same = self.controls_for.as_ref() == Some(&entry.path);
        if let Some(Ok(level)) = &entry.level {
            if !same || self.controls.len() != level.file.sides.len() {
                self.controls = level
                    .file
                    .sides
                    .iter()
                    .map(|s| SideControl::of(s.controller))
                    .collect();
                self.controls_for = Some(entry.path.clone());
            }
        } else if !same {
            self.controls.clear();
            self.controls_for = Some(entry.path.clone());
        }
    }
}

#[derive(Component)]
struct SetupRoot;

fn enter_setup(mut setup: ResMut<SetupState>, catalog: Res<Catalog>) {
    setup.seed = random_seed();
    setup.seed_focused = false;
    setup.message.clear();
    if setup.selected >= catalog.entries.len() {
        setup.selected = 0;
    }
    setup.sync_controls(&catalog);
    // Force a rebuild.
    setup.set_changed();
}

fn setup_follow_catalog(
    mut changed: MessageReader<LevelChanged>,
    catalog: Res<Catalog>,
    mut setup: ResMut<SetupState>,
) {
    if changed.read().count() > 0 {
        setup.sync_controls(&catalog);
        setup.set_changed();
    }
}

fn setup_keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut setup: ResMut<SetupState>,
    catalog: Res<Catalog>,
    mut clicks: MessageWriter<UiClick>,
) {
    let digits = [
        KeyCode::Digit0,
        KeyCode::Digit1,
        KeyCode::Digit2,
        KeyCode::Digit3,
        KeyCode::Digit4,
        KeyCode::Digit5,
        KeyCode::Digit6,
        KeyCode::Digit7,
        KeyCode::Digit8,
        KeyCode::Digit9,
    ];
    if setup.seed_focused {
        for (d, k) in digits.iter().enumerate() {
            if keys.just_pressed(*k) && setup.seed < 1_000_000_000_000 {
                setup.seed = setup.seed * 10 + d as u64;
            }
        }
        if keys.just_pressed(KeyCode::Backspace) {
            setup.seed /= 10;
        }
        if keys.just_pressed(KeyCode::Escape) || keys.just_pressed(KeyCode::Tab) {
            setup.seed_focused = false;
        }
        if keys.just_pressed(KeyCode::Enter) {
            clicks.write(UiClick(UiAction::Start));
        }
        return;
    }
    let n = catalog.entries.len();
    if n > 0 {
        if keys.any_just_pressed([KeyCode::ArrowDown, KeyCode::KeyS]) {
            clicks.write(UiClick(UiAction::SelectLevel((setup.selected + 1) % n)));
        }
        if keys.any_just_pressed([KeyCode::ArrowUp, KeyCode::KeyW]) {
            clicks.write(UiClick(UiAction::SelectLevel((setup.selected + n - 1) % n)));
        }
    }
    for (d, k) in digits.iter().enumerate().skip(1) {
        if keys.just_pressed(*k) && d <= setup.controls.len() {
            clicks.write(UiClick(UiAction::CycleSide(d - 1)));
        }
    }
    if keys.just_pressed(KeyCode::KeyR) {
        clicks.write(UiClick(UiAction::RandomSeed));
    }
    if keys.just_pressed(KeyCode::Tab) {
        clicks.write(UiClick(UiAction::FocusSeed));
    }
    if keys.just_pressed(KeyCode::Enter) {
        clicks.write(UiClick(UiAction::Start));
    }
    if keys.just_pressed(KeyCode::Escape) {
        clicks.write(UiClick(UiAction::Back));
    }
}

fn setup_actions(
    mut clicks: MessageReader<UiClick>,
    mut setup: ResMut<SetupState>,
    catalog: Res<Catalog>,
    mut commands: Commands,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::SelectLevel(i) if *i < catalog.entries.len() => {
                setup.selected = *i;
                setup.message.clear();
                setup.sync_controls(&catalog);
            }
            UiAction::CycleSide(i) => {
                if let Some(c) = setup.controls.get_mut(*i) {
                    *c = c.next();
                }
            }
            UiAction::RandomSeed => {
                setup.seed = random_seed();
                setup.seed_focused = false;
            }
            UiAction::FocusSeed => setup.seed_focused = !setup.seed_focused,
            UiAction::Back => commands.set_state(Screen::Title),
            UiAction::Start => {
                let Some(entry) = catalog.entries.get(setup.selected) else {
                    setup.message = "There is no level to play: add one to levels/".into();
                    continue;
                };
                match &entry.level {
                    Some(Ok(level)) => {
                        let mut s = BattleSetup::new(level.clone(), Some(entry.path.clone()));
                        s.seed = setup.seed;
                        if setup.controls.len() == s.controls.len() {
                            s.controls = setup.controls.clone();
                        }
                        start_battle(&mut commands, Battle::new(s));
                    }
                    Some(Err(_)) => {
                        setup.message =
                            "This level has errors (listed on the right); fix the file and it reloads"
                                .into();
                    }
                    None => setup.message = "The level is still loading".into(),
                }
            }
            _ => {}
        }
    }
}

/// A level's grid in words: "square, diagonal 1", "hex, pointy-top".
pub fn grid_words(t: Topology) -> &'static str {
    t.describe()
}

/// The selected level's facts, each shown whole: its ruleset, grid, size and number of units.
pub fn level_facts(level: &crate::rules::level::Level) -> Vec<String> {
    vec![
        format!("Ruleset: {} ({})", level.ruleset.name, level.file.ruleset),
        format!("Grid: {}", grid_words(level.grid.topology)),
        format!("Size: {}x{}", level.grid.width, level.grid.height),
        format!("Units: {}", level.file.units.len()),
    ]
}

#[allow(clippy::too_many_arguments)]
fn rebuild_setup(
    mut commands: Commands,
    setup: Res<SetupState>,
    catalog: Res<Catalog>,
    roots: Query<Entity, With<SetupRoot>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    lists: Query<&ScrollPosition, With<LevelList>>,
    more: Query<&Node, With<LevelsMore>>,
    settings: Option<Res<crate::game::battle::Settings>>,
    ui_scale: Option<Res<UiScale>>,
) {
    if !setup.is_changed() && !catalog.is_changed() {
        return;
    }
    let colour_blind = settings.is_some_and(|s| s.colour_blind);
    let scale = ui_scale.map_or(1.0, |s| s.0);
    // The list keeps where it was scrolled to when the screen is built again.
    let scrolled = lists.iter().next().map_or(0.0, |p| p.y);
    // So does the line under it that says more levels are below, and where it sat: built
    // hidden, the list was laid out a frame taller, then shrank under the level just chosen.
    let (more_display, more_top) = more
        .iter()
        .next()
        .map_or((Display::None, Val::Auto), |n| (n.display, n.top));
    // The map thumbnail takes the height the texts leave (none on a short window).
    let thumb_room = window
        .single()
        .map_or(260.0, |w| (w.height() / scale - 600.0).clamp(0.0, 260.0));
    for e in &roots {
        commands.entity(e).despawn();
    }
    let selected = catalog.entries.get(setup.selected);
    commands
        .spawn((
            Name::new("Setup"),
            SetupRoot,
            DespawnOnExit(Screen::Setup),
            Node {
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                padding: UiRect::all(px(20)),
                row_gap: px(8),
                ..default()
            },
            BackgroundColor(ui::BG),
        ))
        .with_children(|root| {
            root.spawn(ui::text("New battle", 32.0, ui::ACCENT));
            root.spawn(ui::text(
                "Up/Down: level   1-9: who plays side N   Tab: edit seed   R: random seed   Enter: start   Esc: back",
                14.0,
                ui::DIM,
            ));
            root.spawn(Node {
                flex_direction: FlexDirection::Row,
                column_gap: px(20),
                flex_grow: 1.0,
                min_height: px(0),
                ..default()
            })
            .with_children(|row| {
                // The level list, and under it the line that says more levels are below.
                // The same width whatever level is selected: the details never squeeze it.
                row.spawn(Node {
                    flex_direction: FlexDirection::Column,
                    width: px(430),
                    min_width: px(430),
                    flex_shrink: 0.0,
                    min_height: px(0),
                    row_gap: px(2),
                    ..default()
                })
                .with_children(|column| {
                column.spawn((
                    LevelList,
                    Node {
                        flex_direction: FlexDirection::Column,
                        flex_shrink: 1.0,
                        min_height: px(0),
                        row_gap: px(2),
                        overflow: Overflow::scroll_y(),
                        ..default()
                    },
                    ScrollPosition(Vec2::new(0.0, scrolled)),
                    bevy::ui::RelativeCursorPosition::default(),
                ))
                .with_children(|list| {
                    for (i, e) in catalog.entries.iter().enumerate() {
                        let line = match &e.level {
                            Some(Ok(l)) => format!(
                                "{}  ({}, {}, {}x{})",
                                l.name(),
                                l.file.ruleset,
                                kind_word(l.grid.topology),
                                l.grid.width,
                                l.grid.height
                            ),
                            Some(Err(errs)) => {
                                format!("{}  - {} error(s)", e.title(), errs.len())
                            }
                            None => format!("{}  (loading)", e.title()),
                        };
                        let colour = if i == setup.selected {
                            ui::BUTTON_ON
                        } else if matches!(e.level, Some(Err(_))) {
                            Color::srgb(0.35, 0.16, 0.14)
                        } else {
                            ui::BUTTON
                        };
                        // Whole rows only: at 1024x640 a sliver of the next level showed
                        // under the last whole one, cut by the list's edge.
                        let mut b = list.spawn((
                            ui::button_coloured(line, UiAction::SelectLevel(i), colour),
                            ui::WholeOnly,
                        ));
                        if i == setup.selected {
                            b.insert(SelectedLevel);
                        }
                    }
                    if catalog.entries.is_empty() {
                        list.spawn(ui::text("No levels found in levels/", 16.0, ui::BAD));
                    } else {
                        // Room after the last level, so a list scrolled to a row's top can
                        // reach its end (the first row whole, not a gap where a cut one hid).
                        list.spawn(Node {
                            height: px(LIST_END_ROOM),
                            flex_shrink: 0.0,
                            ..default()
                        });
                    }
                });
                column.spawn((
                    LevelsMore,
                    ui::MoreLine,
                    ui::text("More levels below: Down or the wheel", 13.0, ui::DIM),
                    Node {
                        display: more_display,
                        top: more_top,
                        flex_shrink: 0.0,
                        ..default()
                    },
                ));
                });
                // The details of the selected level.
                row.spawn(Node {
                    flex_direction: FlexDirection::Column,
                    flex_grow: 1.0,
                    row_gap: px(6),
                    min_width: px(0),
                    min_height: px(0),
                    overflow: Overflow::clip_y(),
                    ..default()
                })
                .with_children(|d| {
                    let Some(entry) = selected else {
                        return;
                    };
                    match &entry.level {
                        Some(Ok(level)) => {
                            d.spawn(ui::text(level.name(), 26.0, ui::TEXT));
                            // One text per fact, wrapped as a row: a line breaks between
                            // facts, never inside one ("Units:" / "10" at 1280x800).
                            d.spawn(Node {
                                flex_direction: FlexDirection::Row,
                                flex_wrap: FlexWrap::Wrap,
                                column_gap: px(24),
                                ..default()
                            })
                            .with_children(|r| {
                                for fact in level_facts(level) {
                                    r.spawn(ui::text(fact, 15.0, ui::DIM));
                                }
                            });
                            if let Some(thumb) = &entry.thumbnail
                                && thumb_room >= 60.0
                            {
                                let (w, h) = (level.grid.width as f32, level.grid.height as f32);
                                let scale = (420.0 / w).min(thumb_room / h).min(24.0);
                                d.spawn((
                                    ImageNode::new(thumb.clone()),
                                    Node {
                                        width: px(w * scale),
                                        height: px(h * scale),
                                        ..default()
                                    },
                                ));
                            }
                            // The level's story and the ruleset's summary. On a window with
                            // no room for the thumbnail they come after the choices: at
                            // 800x600 a long description pushed who plays each side and the
                            // seed past the bottom, out of sight.
                            let words = |d: &mut ChildSpawnerCommands| {
                                d.spawn((
                                    ui::text(&level.file.description, 15.0, ui::TEXT),
                                    Node {
                                        max_width: px(760),
                                        ..default()
                                    },
                                ));
                                d.spawn(ui::text(&level.ruleset.description, 14.0, ui::DIM));
                            };
                            let short = thumb_room < 60.0;
                            if !short {
                                words(d);
                            }
                            // How the battle is won, as the battle's "To win" panel says it.
                            let to_win = crate::game::hud::turn_order::victory_words(
                                &level.file,
                                level.file.ruleset.round_word(),
                                None,
                            );
                            d.spawn(ui::text(
                                format!("To win: {}", to_win.join("; ")),
                                15.0,
                                ui::GOOD,
                            ));
                            d.spawn(ui::text("Who plays each side:", 18.0, ui::ACCENT));
                            for (i, side) in level.file.sides.iter().enumerate() {
                                let control = setup
                                    .controls
                                    .get(i)
                                    .copied()
                                    .unwrap_or(SideControl::of(side.controller));
                                d.spawn(Node {
                                    flex_direction: FlexDirection::Row,
                                    align_items: AlignItems::Center,
                                    column_gap: px(8),
                                    ..default()
                                })
                                .with_children(|r| {
                                    r.spawn((
                                        Node {
                                            width: px(14),
                                            height: px(14),
                                            ..default()
                                        },
                                        BackgroundColor(crate::game::units::side_colour(
                                            Some(i),
                                            colour_blind,
                                        )),
                                    ));
                                    r.spawn((
                                        ui::text(&side.name, 16.0, ui::TEXT),
                                        Node {
                                            width: px(160),
                                            ..default()
                                        },
                                    ));
                                    r.spawn(ui::button(
                                        control.label(),
                                        Some(&(i + 1).to_string()),
                                        UiAction::CycleSide(i),
                                    ));
                                });
                                // What the choice means (each difficulty explained as it is
                                // cycled through), under the side's row.
                                d.spawn((
                                    ui::text(control.blurb(), 13.0, ui::DIM),
                                    Node {
                                        margin: UiRect {
                                            left: px(22),
                                            top: px(-4),
                                            ..default()
                                        },
                                        ..default()
                                    },
                                ));
                            }
                            d.spawn(Node {
                                flex_direction: FlexDirection::Row,
                                align_items: AlignItems::Center,
                                column_gap: px(8),
                                ..default()
                            })
                            .with_children(|r| {
                                r.spawn(ui::text("Seed:", 16.0, ui::TEXT));
                                let shown = if setup.seed_focused {
                                    format!("{}_", setup.seed)
                                } else {
                                    setup.seed.to_string()
                                };
                                r.spawn(ui::button_coloured(
                                    format!("[Tab] {shown}"),
                                    UiAction::FocusSeed,
                                    if setup.seed_focused {
                                        ui::BUTTON_ON
                                    } else {
                                        ui::BUTTON
                                    },
                                ));
                                r.spawn(ui::button("Random", Some("R"), UiAction::RandomSeed));
                            });
                            if short {
                                words(d);
                            }
                        }
                        Some(Err(errors)) => {
                            d.spawn(ui::text(entry.title(), 26.0, ui::TEXT));
                            d.spawn(ui::text(
                                "This level does not validate. Fix the file; the list updates when it is saved.",
                                15.0,
                                ui::BAD,
                            ));
                            for e in errors.iter().take(20) {
                                d.spawn((
                                    ui::text(e, 14.0, ui::TEXT),
                                    Node {
                                        max_width: px(780),
                                        ..default()
                                    },
                                ));
                            }
                            if errors.len() > 20 {
                                d.spawn(ui::text(
                                    format!("... and {} more", errors.len() - 20),
                                    14.0,
                                    ui::DIM,
                                ));
                            }
                        }
                        None => {
                            d.spawn(ui::text("Loading...", 18.0, ui::DIM));
                        }
                    }
                });
            });
            // Start and Back stay in one place at the bottom whatever level is selected.
            root.spawn(Node {
                flex_direction: FlexDirection::Row,
                align_items: AlignItems::Center,
                column_gap: px(8),
                flex_shrink: 0.0,
                ..default()
            })
            .with_children(|r| {
                r.spawn(ui::button("Start battle", Some("Enter"), UiAction::Start));
                r.spawn(ui::button("Back", Some("Esc"), UiAction::Back));
                if !setup.message.is_empty() {
                    r.spawn(ui::text(&setup.message, 16.0, ui::BAD));
                }
            });
        });
}

fn kind_word(t: Topology) -> &'static str {
    if t.is_hex() { "hex" } else { "square" }
}

#[cfg(test)]
mod scroll_tests {
    use crate::game::ui::{scroll_to_show, snap_to_row};

    /// The selected level is brought into view from below and from above, and a list that
    /// shows it is left as it is.
    #[test]
    fn the_selected_level_is_scrolled_into_view() {
        // In view: no scroll.
        assert_eq!(scroll_to_show(40.0, 36.0, 400.0), 0.0);
        // Below the edge (Down past the last shown): down by what is hidden.
        assert_eq!(scroll_to_show(390.0, 36.0, 400.0), 26.0);
        // Above (Up past the first shown): up to its top.
        assert_eq!(scroll_to_show(-30.0, 36.0, 400.0), -30.0);
        // Taller than the view: its top shows.
        assert_eq!(scroll_to_show(100.0, 500.0, 400.0), 100.0);
    }

    /// Scrolling down stops at the top of a row, so the first row shown is whole (a cut row
    /// is hidden, and left a gap above the list): the nearest row top at or past the scroll
    /// needed, whatever order the rows come in.
    #[test]
    fn scrolling_down_stops_at_a_rows_top() {
        let tops = [0.0, 53.0, 106.0, 140.0, 174.0];
        // 5 px needed: the second row's top, so the first goes out whole.
        assert_eq!(snap_to_row(5.0, tops), 53.0);
        // Exactly a row's top (or within half a pixel): that row.
        assert_eq!(snap_to_row(106.0, tops), 106.0);
        assert_eq!(snap_to_row(106.3, tops), 106.0);
        assert_eq!(snap_to_row(120.0, [174.0, 140.0, 0.0]), 140.0);
        // Past the last row's top: as needed.
        assert_eq!(snap_to_row(200.0, tops), 200.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each fact of the Setup screen's level line keeps its label and value together: the
    /// line was one text, and at 1280x800 Harrow Bridge's wrapped between "Units:" and "10".
    #[test]
    fn the_level_facts_are_whole_label_and_value_each() {
        let level = crate::rules::battle::tests::load("alternating_bridge.ron");
        let facts = level_facts(&level);
        assert_eq!(
            facts,
            [
                format!("Ruleset: {} (alternating)", level.ruleset.name),
                format!("Grid: {}", grid_words(level.grid.topology)),
                format!("Size: {}x{}", level.grid.width, level.grid.height),
                format!("Units: {}", level.file.units.len()),
            ]
        );
        assert!(facts.iter().all(|f| !f.contains("   ")), "{facts:?}");
    }
}
