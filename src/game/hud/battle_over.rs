//! The "Battle over" banner: when the last blow has been shown, the board and the log stay up
//! with a banner saying who won, and Continue (Enter) goes on to the Result screen, whose
//! "Board" button comes back here.

use bevy::prelude::*;

use super::{HudPanel, HudSystems};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::ui::{self, UiAction, UiClick};
use crate::rules::battle::BattleState;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, banner.in_set(HudSystems::Panels));
}

/// The banner.
#[derive(Component)]
pub struct BattleOverBanner;

/// Who won, in words: "Party wins", "A draw".
pub fn headline(s: &BattleState) -> Option<String> {
    let o = s.outcome.as_ref()?;
    Some(match o.winner {
        Some(w) => {
            let name = s.sides.get(w.index()).map_or("?", |x| x.name.as_str());
            format!(
                "{name} {}",
                crate::rules::battle::log::agree(name, "wins", "win")
            )
        }
        None => "A draw".to_string(),
    })
}

fn banner(
    mut commands: Commands,
    battle: Res<Battle>,
    stay: Option<Res<crate::game::StayOnBattle>>,
    keys_in: Res<ButtonInput<KeyCode>>,
    banners: Query<Entity, With<BattleOverBanner>>,
    mut clicks: MessageWriter<UiClick>,
) {
    // Up once the battle is over and its last events have been shown.
    let over = battle.finished() && battle.queue.is_empty() && stay.is_none();
    if !over {
        for b in &banners {
            commands.entity(b).despawn();
        }
        return;
    }
    if !banners.is_empty() {
        // Only a key pressed while the banner is up goes on: the Enter that dealt the
        // winning blow (its events all shown in the same frame) must not skip the banner.
        if keys::CONFIRM.just_pressed(&keys_in) {
            clicks.write(UiClick(UiAction::ShowResult));
        }
        return;
    }
    let head = headline(&battle.state).unwrap_or_else(|| "The battle is over".into());
    let reason = battle
        .state
        .outcome
        .as_ref()
        .map(|o| o.reason.clone())
        .unwrap_or_default();
    commands
        .spawn((
            Name::new("Battle over"),
            BattleOverBanner,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            ui::dialog(
                Node {
                    position_type: PositionType::Absolute,
                    left: percent(30),
                    right: percent(30),
                    bottom: px(48),
                    padding: UiRect::all(px(10)),
                    ..default()
                },
                12,
            ),
        ))
        .with_children(|p| {
            p.spawn(ui::text(format!("Battle over: {head}"), 20.0, ui::ACCENT));
            if !reason.is_empty() {
                p.spawn(ui::text(reason, 14.0, ui::TEXT));
            }
            p.spawn(ui::button(
                "Continue",
                Some(keys::CONFIRM.name),
                UiAction::ShowResult,
            ));
        });
}
