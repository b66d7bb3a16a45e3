//! The Title screen: New battle, Continue (the newest unfinished battle), Load (every save),
//! Quit.

use bevy::prelude::*;

use super::start_battle;
use crate::game::Screen;
use crate::game::saves::{self, SaveStatus};
use crate::game::ui::{self, UiAction, UiClick};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(OnEnter(Screen::Title), spawn_title)
        .add_systems(
            Update,
            title_keys
                .run_if(in_state(Screen::Title))
                .in_set(crate::game::AppSystems::RecordInput),
        )
        .add_systems(
            Update,
            (title_actions, refresh_title)
                .run_if(in_state(Screen::Title))
                .in_set(crate::game::AppSystems::Update),
        );
}

#[derive(Component)]
struct TitleRoot;

#[derive(Component)]
struct TitleMessage;

fn spawn_title(mut commands: Commands, status: Res<SaveStatus>) {
    let listed = crate::saves::list(&saves::save_dir());
    let has_any = !listed.is_empty();
    // Continue names the battle it opens.
    let resumes = saves::continue_path().map(|path| match listed.iter().find(|l| l.path == path) {
        Some(l) => super::load::describe(l),
        None => path.display().to_string(),
    });
    commands
        .spawn((
            Name::new("Title"),
            TitleRoot,
            DespawnOnExit(Screen::Title),
            ui::screen_root(),
        ))
        .with_children(|p| {
            p.spawn(ui::text("FRAY", 72.0, ui::ACCENT));
            p.spawn(ui::text(
                "Tabletop-RPG combat on hex and square grids",
                20.0,
                ui::DIM,
            ));
            p.spawn(Node {
                height: px(24),
                ..default()
            });
            p.spawn(ui::button("New battle", Some("N"), UiAction::NewBattle));
            if let Some(what) = resumes {
                p.spawn(ui::button("Continue", Some("C"), UiAction::Continue));
                p.spawn((
                    ui::text(what, 14.0, ui::DIM),
                    Node {
                        max_width: px(900),
                        margin: UiRect::bottom(px(6)),
                        ..default()
                    },
                ));
            }
            if has_any {
                p.spawn(ui::button("Load", Some("L"), UiAction::Load));
            }
            p.spawn(ui::button("Level editor", Some("E"), UiAction::OpenEditor));
            p.spawn(ui::button("Settings", Some("S"), UiAction::Settings));
            p.spawn(ui::button("Quit", Some("Q"), UiAction::Quit));
            p.spawn((
                TitleMessage,
                ui::text(status.message.clone(), 16.0, ui::BAD),
                Node {
                    max_width: px(900),
                    margin: UiRect::top(px(24)),
                    ..default()
                },
            ));
        });
}

fn refresh_title(status: Res<SaveStatus>, mut text: Query<&mut Text, With<TitleMessage>>) {
    if status.is_changed() {
        for mut t in &mut text {
            t.0 = crate::game::menu::ascii(&status.message);
        }
    }
}

fn title_keys(keys: Res<ButtonInput<KeyCode>>, mut clicks: MessageWriter<UiClick>) {
    if keys.just_pressed(KeyCode::KeyN) || keys.just_pressed(KeyCode::Enter) {
        clicks.write(UiClick(UiAction::NewBattle));
    }
    if keys.just_pressed(KeyCode::KeyC) {
        clicks.write(UiClick(UiAction::Continue));
    }
    if keys.just_pressed(KeyCode::KeyL) {
        clicks.write(UiClick(UiAction::Load));
    }
    if keys.just_pressed(KeyCode::KeyS) {
        clicks.write(UiClick(UiAction::Settings));
    }
    if keys.just_pressed(KeyCode::KeyE) {
        clicks.write(UiClick(UiAction::OpenEditor));
    }
    if keys.just_pressed(KeyCode::KeyQ) || keys.just_pressed(KeyCode::Escape) {
        clicks.write(UiClick(UiAction::Quit));
    }
}

fn title_actions(
    mut clicks: MessageReader<UiClick>,
    mut commands: Commands,
    mut status: ResMut<SaveStatus>,
    mut exit: MessageWriter<AppExit>,
) {
    for UiClick(action) in clicks.read() {
        match action {
            UiAction::NewBattle => commands.set_state(Screen::Setup),
            UiAction::Continue => match saves::continue_path() {
                Some(path) => match saves::load(&path) {
                    Ok(battle) => {
                        status.message.clear();
                        start_battle(&mut commands, battle);
                    }
                    Err(e) => status.message = e,
                },
                None => status.message = "No unfinished battle to continue.".into(),
            },
            UiAction::Load => commands.set_state(Screen::Load),
            UiAction::OpenEditor => commands.set_state(Screen::Editor),
            UiAction::Settings => commands.set_state(Screen::Settings),
            UiAction::Quit => {
                exit.write(AppExit::Success);
            }
            _ => {}
        }
    }
}
