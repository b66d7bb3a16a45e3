//! The reaction prompt: a modal asking the reacting unit's player to answer, with the odds at
//! stake and each answer's key; Enter takes the default one.

use bevy::prelude::*;

use super::{HudPanel, HudSystems, View, odds_sentence};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::menu;
use crate::game::ui::{self, UiAction};
use crate::rules::battle::{BattleState, Decision, Trigger, UnitId, log};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, reaction_prompt.in_set(HudSystems::Panels));
}

/// The reaction dialog's full-window layer (while it is up, the menu's hover help is not shown).
#[derive(Component)]
pub struct Modal;

fn reaction_prompt(
    mut commands: Commands,
    view: Res<View>,
    battle: Res<Battle>,
    modals: Query<Entity, With<Modal>>,
    mut last: Local<String>,
) {
    let react = matches!(battle.state.pending(), Decision::React { .. }) && view.can_act();
    let key = if react {
        format!("{:?}", view.menu)
    } else {
        String::new()
    };
    // The same question still on screen: nothing to do. (Back from the Settings screen, the
    // battle's panels are new and the prompt must be put up again.)
    if *last == key && (!react || !modals.is_empty()) {
        return;
    }
    *last = key;
    for m in &modals {
        commands.entity(m).despawn();
    }
    if !react {
        return;
    }
    let question = menu::ascii(&log::decision(&battle.state, &battle.state.pending()));
    let odds = reaction_odds(&battle.state, &battle.state.pending()).map(|o| menu::ascii(&o));
    commands
        .spawn((
            Name::new("Reaction prompt"),
            Modal,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            ui::dialog(
                // Wide and high enough that a long prompt (several answers, each with its
                // odds) fits a 1024x640 window; it ran off the bottom from 30% down.
                Node {
                    position_type: PositionType::Absolute,
                    left: percent(24),
                    right: percent(24),
                    top: percent(14),
                    max_height: percent(80),
                    overflow: Overflow::clip(),
                    padding: UiRect::all(px(16)),
                    ..default()
                },
                10,
            ),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Reaction", 22.0, ui::ACCENT));
            p.spawn(ui::text(question, 16.0, ui::TEXT));
            if let Some(o) = odds {
                p.spawn(ui::text(o, 14.0, ui::DIM));
            }
            let default_answer = menu::default_answer(&battle.state.pending(), &view.menu);
            for (i, e) in view.menu.iter().enumerate() {
                let default = if i == default_answer {
                    format!(" (default: {})", keys::CONFIRM.name)
                } else {
                    String::new()
                };
                p.spawn(ui::button(
                    format!(
                        "{}{}{default}",
                        e.label,
                        if e.cost.is_empty() {
                            String::new()
                        } else {
                            format!(" - {}", e.cost)
                        }
                    ),
                    e.hotkey.map(|k| k.label()).as_deref(),
                    UiAction::Menu(i),
                ));
            }
            p.spawn(ui::text("No time limit: take your time.", 13.0, ui::DIM));
        });
}

/// The odds that bear on a reaction, when the engine can tell them: the attack coming at the
/// reacting unit (before any dodge), or the attack of opportunity it may make.
fn reaction_odds(s: &BattleState, d: &Decision) -> Option<String> {
    let Decision::React { unit, trigger } = d else {
        return None;
    };
    let words = |attacker: UnitId, target: UnitId, o: rulesets::Odds| {
        format!(
            "{} on {}: {}",
            s.unit_name(attacker),
            s.unit_name(target),
            odds_sentence(&o)
        )
    };
    // The odds of `a` on `t`, the given kind of attack first, else the other.
    let either = |a: UnitId, t: UnitId, ranged: bool| {
        rulesets::odds(s, a, t, ranged)
            .or_else(|| rulesets::odds(s, a, t, !ranged))
            .map(|o| words(a, t, o))
    };
    match trigger {
        // Before the roll: the odds, and what each answer would leave of them.
        Trigger::Targeted { attacker, ranged } => either(*attacker, *unit, *ranged).map(|w| {
            let ranged = if rulesets::odds(s, *attacker, *unit, *ranged).is_some() {
                *ranged
            } else {
                !*ranged
            };
            format!("{w}{}", super::if_answered(s, *attacker, *unit, ranged))
        }),
        Trigger::Opportunity { mover: foe, .. }
        | Trigger::Provoked { actor: foe, .. }
        | Trigger::Ready { actor: foe } => either(*unit, *foe, false),
        // The roll is known: say what it was and what stands to be dealt.
        Trigger::Attacked {
            attacker,
            target,
            total,
            needed,
            hit,
        } => {
            let roll = format!(
                "{} rolled {total} against {needed}: {}",
                s.unit_name(*attacker),
                if *hit { "a hit" } else { "a miss" }
            );
            let damage = [false, true]
                .into_iter()
                .find_map(|r| rulesets::odds(s, *attacker, *target, r))
                .filter(|o| o.hit > 0.0)
                .map(|o| {
                    format!(
                        ", about {:.1} damage if it lands",
                        o.expected_damage / o.hit
                    )
                });
            Some(format!("{roll}{}", damage.unwrap_or_default()))
        }
        Trigger::KeepConscious { difficulty } => Some(format!(
            "{} must reach {difficulty} to stay conscious",
            s.unit_name(*unit)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaction_prompt_tells_the_odds_of_the_attack_at_stake() {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let (b, _) = BattleState::start(&level, 3);
        let id = |name: &str| {
            b.unit_ids()
                .find(|&u| &*b.units[u.index()].name == name)
                .expect("a unit of the ruins")
        };
        let (thorn, orrin) = (id("Thorn"), id("Orrin"));
        let shot = Decision::React {
            unit: orrin,
            trigger: Trigger::Targeted {
                attacker: thorn,
                ranged: true,
            },
        };
        let line = reaction_odds(&b, &shot).expect("odds of a shot");
        let o = rulesets::odds(&b, thorn, orrin, true).expect("the engine's odds");
        assert!(line.starts_with("Thorn on Orrin: "), "{line}");
        assert!(
            line.contains(&format!("{:.0}% to hit", o.hit * 100.0)),
            "{line}"
        );
        // Nothing to tell for a decision that is not a reaction.
        assert_eq!(reaction_odds(&b, &Decision::Act { unit: orrin }), None);
        // A roll already made is told as it is.
        let rolled = Decision::React {
            unit: orrin,
            trigger: Trigger::Attacked {
                attacker: thorn,
                target: orrin,
                total: 17,
                needed: 13,
                hit: true,
            },
        };
        let line = reaction_odds(&b, &rolled).expect("the roll");
        assert!(
            line.starts_with("Thorn rolled 17 against 13: a hit"),
            "{line}"
        );
    }
}
