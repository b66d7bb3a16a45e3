//! The pause menu: a [`Pause`] sub-state of the Battle screen. Esc (or the top bar's Menu
//! button) opens it when no action is being targeted; Esc or Resume closes it. Its UI lives
//! only while paused ([`DespawnOnExit`]).

use bevy::prelude::*;

use super::{HudPanel, InputBlocked};
use crate::game::Screen;
use crate::game::hotseat::HotSeat;
use crate::game::keys;
use crate::game::ui::{self, UiAction};

pub(super) fn plugin(app: &mut App) {
    app.add_sub_state::<Pause>()
        .add_systems(OnEnter(Pause::Paused), (block_input, spawn_pause_menu))
        .add_systems(OnExit(Pause::Paused), unblock_input);
}

/// Whether the battle is paused (the pause menu is open). Exists only on the Battle screen,
/// which it enters running.
#[derive(SubStates, Default, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[source(Screen = Screen::Battle)]
pub enum Pause {
    #[default]
    Running,
    Paused,
}

impl Pause {
    /// Whether `state` (the sub-state's, if it exists now) is paused.
    pub fn is_paused(state: Option<&State<Pause>>) -> bool {
        state.is_some_and(|s| *s.get() == Pause::Paused)
    }
}

/// Board input stops as the menu opens (the [`View`](super::View) update says so too, but
/// only after this frame's input).
fn block_input(mut blocked: ResMut<InputBlocked>) {
    blocked.0 = true;
}

/// Board input comes back as the menu closes, unless the hand-over screen is up.
fn unblock_input(mut blocked: ResMut<InputBlocked>, hotseat: Res<HotSeat>) {
    blocked.0 = hotseat.waiting;
}

fn spawn_pause_menu(
    mut commands: Commands,
    settings: Res<crate::game::battle::Settings>,
    screen: Res<crate::game::screens::settings::ScreenSize>,
    editor: Option<Res<crate::game::editor::Editor>>,
) {
    let playtest = editor.is_some_and(|e| e.playtesting);
    commands
        .spawn((
            Name::new("Pause menu"),
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Pause::Paused),
            Node {
                position_type: PositionType::Absolute,
                width: percent(100),
                height: percent(100),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Center,
                justify_content: JustifyContent::Center,
                row_gap: px(8),
                ..default()
            },
            BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.7)),
            // Over the hot-seat hand-over too: Esc opens the menu while it waits.
            GlobalZIndex(120),
        ))
        .with_children(|p| {
            // The menu and the key help on an opaque panel of their own, inside the window.
            p.spawn((
                Name::new("Pause panel"),
                Node {
                    flex_direction: FlexDirection::Column,
                    align_items: AlignItems::Center,
                    row_gap: px(8),
                    padding: UiRect::all(px(16)),
                    max_width: percent(92),
                    max_height: percent(94),
                    overflow: Overflow::clip(),
                    border: UiRect::all(px(2)),
                    border_radius: BorderRadius::all(px(8)),
                    ..default()
                },
                BorderColor::all(ui::ACCENT),
                BackgroundColor(Color::srgb(0.07, 0.065, 0.085)),
            ))
            .with_children(|p| pause_panel(p, &settings, screen.0, playtest));
        });
}

/// The menu; in a playtest (a battle started from the level editor) its first entry goes back
/// to the editor, in place of saving and quitting to the title.
fn pause_panel(
    p: &mut ChildSpawnerCommands,
    settings: &crate::game::battle::Settings,
    screen: Option<(u32, u32)>,
    playtest: bool,
) {
    p.spawn(ui::text(
        if playtest {
            "Paused (playtest)"
        } else {
            "Paused"
        },
        36.0,
        ui::ACCENT,
    ));
    // The menu on the left, the Settings screen's rows on the right (a click or their number
    // key cycles each), so the panel stays short enough for a 640-pixel window.
    p.spawn(Node {
        flex_direction: FlexDirection::Row,
        flex_wrap: FlexWrap::Wrap,
        justify_content: JustifyContent::Center,
        column_gap: px(24),
        row_gap: px(8),
        ..default()
    })
    .with_children(|row| {
        row.spawn(Node {
            flex_direction: FlexDirection::Column,
            align_items: AlignItems::Stretch,
            ..default()
        })
        .with_children(|p| {
            if playtest {
                p.spawn(ui::button(
                    "Back to editor",
                    Some(&settings.keys.name(&keys::QUIT)),
                    UiAction::BackToEditor,
                ));
            }
            p.spawn(ui::button(
                "Resume",
                Some(&settings.keys.name(&keys::CANCEL)),
                UiAction::Resume,
            ));
            p.spawn(ui::button(
                "Quick save",
                Some(&settings.keys.name(&keys::QUICK_SAVE)),
                UiAction::QuickSave,
            ));
            p.spawn(ui::button(
                "Quick load",
                Some(&settings.keys.name(&keys::QUICK_LOAD)),
                UiAction::QuickLoad,
            ));
            p.spawn(ui::button(
                "Rules reference",
                Some(&settings.keys.name(&keys::RULES)),
                UiAction::RulesHelp,
            ));
            p.spawn(ui::button(
                "All settings and keys",
                Some("K"),
                UiAction::Settings,
            ));
            if !playtest {
                p.spawn(ui::button(
                    "Save and quit to title",
                    Some(&settings.keys.name(&keys::QUIT)),
                    UiAction::SaveAndQuit,
                ));
            }
        });
        row.spawn(Node {
            flex_direction: FlexDirection::Column,
            align_items: AlignItems::Stretch,
            ..default()
        })
        .with_children(|p| {
            p.spawn(ui::text("Settings", 18.0, ui::ACCENT));
            crate::game::screens::settings::spawn_rows(p, settings, screen);
        });
    });
    p.spawn(ui::text(settings.keys.help(), 14.0, ui::DIM));
}
