//! The reaction prompt: a modal asking the reacting unit's player to answer, with the odds at
//! stake and each answer's key; Enter takes the default one.

use bevy::prelude::*;

use super::{HudPanel, HudSystems, View, odds_sentence};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::menu;
use crate::game::ui::{self, UiAction};
use crate::rules::battle::{BattleState, Command, Decision, Resume, Trigger, UnitId, log};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, reaction_prompt.in_set(HudSystems::Panels));
}

/// The reaction dialog's full-window layer (while it is up, the menu's hover help is not shown).
#[derive(Component)]
pub struct Modal;

#[allow(clippy::too_many_arguments)]
fn reaction_prompt(
    mut commands: Commands,
    view: Res<View>,
    battle: Res<Battle>,
    modals: Query<Entity, With<Modal>>,
    cameras: Query<(&Camera, &GlobalTransform), With<crate::game::camera::MainCamera>>,
    boards: Query<&crate::game::board::BoardGrid>,
    windows: Query<&Window, With<bevy::window::PrimaryWindow>>,
    settings: Res<crate::game::battle::Settings>,
    ui: Option<Res<UiScale>>,
    mut last: Local<String>,
) {
    let react = matches!(battle.state.pending(), Decision::React { .. }) && view.can_act();
    // The command count too: a second prompt just like the first (a second shot) is put up
    // anew, and says which it is.
    let key = if react {
        format!("{}|{:?}", battle.commands.len(), view.menu)
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
    // Where the units at stake stand on screen, so the dialog can leave them in view.
    let mut at_stake = Vec::new();
    let mut window = None;
    if let (Ok((camera, global)), Some(grid)) = (cameras.single(), boards.iter().next()) {
        let layout = crate::game::board::BoardLayout::new(grid.0);
        let half = Vec2::new(layout.tile_size.x, layout.tile_size.y) / 2.0;
        window = camera.logical_viewport_size();
        for u in units_at_stake(&battle.state.pending()) {
            let Some(centre) = view
                .state
                .as_ref()
                .and_then(|s| s.unit(u))
                .and_then(|u| layout.cell_center(u.cell))
            else {
                continue;
            };
            if let (Ok(a), Ok(b)) = (
                camera.world_to_viewport(global, (centre - half).extend(0.0)),
                camera.world_to_viewport(global, (centre + half).extend(0.0)),
            ) {
                at_stake.push(Rect::from_corners(a, b));
            }
        }
    }
    // Its type and padding size to the window: at 1024x640 the dialog at 1280x800's sizes
    // covered much of the board.
    let k = prompt_scale(
        super::HudLayout::of(windows.single().ok(), super::ui_scale(ui.as_deref())).window,
    );
    // Two short lines more: the count of questions in a row and what the unit has left.
    let estimate =
        k * (190.0 + 44.0 * view.menu.len() as f32 + if odds.is_some() { 40.0 } else { 0.0 });
    let place = window.map_or(Place::Top, |w| dialog_place(w, estimate, &at_stake));
    let (top, bottom) = match place {
        Place::Top => (percent(14), Val::Auto),
        Place::Bottom => (Val::Auto, percent(6)),
    };
    // A quarter of the window in from each side, and never over the side panels: at 1024x640
    // the right panel's menu showed under the dialog's right edge.
    let (left, right) = side_margins(
        super::HudLayout::of_panels(
            windows.single().ok(),
            settings.collapsed,
            super::ui_scale(ui.as_deref()),
        ),
        windows.single().ok().map(|w| w.width()),
    );
    let size = |px: f32| (px * k).max(12.0);
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
                // It stands high, or low when the units at stake are up there.
                Node {
                    position_type: PositionType::Absolute,
                    left,
                    right,
                    top,
                    bottom,
                    max_height: percent(80),
                    overflow: Overflow::clip(),
                    padding: UiRect::all(px(16.0 * k)),
                    ..default()
                },
                10,
            ),
        ))
        .with_children(|p| {
            p.spawn(ui::text("Reaction", size(22.0), ui::ACCENT));
            p.spawn(ui::text(question, size(16.0), ui::TEXT));
            if let Some(again) = asked_again(&battle.state, &battle.commands) {
                p.spawn(ui::text(again, size(14.0), ui::ACCENT));
            }
            // What the answering unit has left to pay with (its turn-order label: "Init 9 -
            // 2/4 AP", "Main, Move"): an answer costs AP, or the Main action.
            if let Some(left) = answerer_now(&battle.state) {
                p.spawn(ui::text(menu::ascii(&left), size(14.0), ui::DIM));
            }
            if let Some(o) = odds {
                p.spawn(ui::text(o, size(14.0), ui::DIM));
            }
            let default_answer = menu::default_answer(&battle.state.pending(), &view.menu);
            for (i, e) in view.menu.iter().enumerate() {
                let default = if i == default_answer {
                    format!(" (default: {})", keys::CONFIRM.name)
                } else {
                    String::new()
                };
                // An attack in answer tells its own odds (a Snap Attack's -4 included).
                let odds = match e.commands.as_slice() {
                    [cmd] => super::action_menu::odds_words(&battle.state, cmd)
                        .map_or(String::new(), |o| format!(" - {o}")),
                    _ => String::new(),
                };
                p.spawn(ui::button_sized(
                    format!(
                        "{}{}{odds}{default}",
                        e.label,
                        if e.cost.is_empty() {
                            String::new()
                        } else {
                            format!(" - {}", e.cost)
                        }
                    ),
                    e.hotkey.map(|k| k.label()).as_deref(),
                    UiAction::Menu(i),
                    k,
                ));
            }
            p.spawn(ui::text(
                "No time limit: take your time.",
                size(13.0),
                ui::DIM,
            ));
        });
}

/// How much the reaction dialog's type and padding are scaled in a window `window` UI units
/// wide and high: 1 from 1280x800 up, less in proportion below it (0.8 at 1024x640), never
/// under 0.75.
pub fn prompt_scale(window: Vec2) -> f32 {
    (window.x / 1280.0).min(window.y / 800.0).clamp(0.75, 1.0)
}

/// The reacting unit's turn-order label, with its name: what it has left to answer with.
fn answerer_now(s: &BattleState) -> Option<String> {
    let Decision::React { unit, .. } = s.pending() else {
        return None;
    };
    let clock = rulesets::clock(s);
    let e = clock.order.iter().find(|e| e.unit == unit)?;
    (!e.label.is_empty()).then(|| format!("{} now: {}", s.unit_name(unit), e.label))
}

/// "Asked of Quill for the 2nd time this turn", when the unit deciding a reaction has
/// answered others since its side last acted: prompts in a row that read the same (three
/// shots, three Dodge questions) would look like an ignored key.
fn asked_again(s: &BattleState, commands: &[Command]) -> Option<String> {
    let Decision::React { unit, .. } = s.pending() else {
        return None;
    };
    let side = s.unit(unit)?.side;
    let before = commands
        .iter()
        .rev()
        .take_while(|c| {
            matches!(c, Command::React { .. }) || s.unit(c.unit()).is_none_or(|u| u.side != side)
        })
        .filter(|c| matches!(c, Command::React { unit: u, .. } if *u == unit))
        .count();
    (before > 0).then(|| {
        let n = before + 1;
        let suffix = match (n % 10, n % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        format!(
            "Asked of {} for the {n}{suffix} time this turn",
            s.units[unit.index()].name
        )
    })
}

/// Where the reaction dialog stands: high on the window, or low.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Top,
    Bottom,
}

/// The units a reaction is about: the one who answers and the one it answers.
fn units_at_stake(d: &Decision) -> Vec<UnitId> {
    let Decision::React { unit, trigger } = d else {
        return Vec::new();
    };
    let other = match trigger {
        Trigger::Opportunity { mover, .. } => Some(*mover),
        Trigger::Provoked { actor, .. } | Trigger::Ready { actor } => Some(*actor),
        Trigger::Attacked {
            attacker, target, ..
        } => return vec![*unit, *attacker, *target],
        Trigger::Targeted { attacker, .. } => Some(*attacker),
        Trigger::KeepConscious { .. } => None,
    };
    std::iter::once(*unit).chain(other).collect()
}

/// High (from 14% down) unless that would cover a unit at stake and low (up from 6% above
/// the bottom) would not; `height` is the dialog's estimated height in logical pixels.
fn dialog_place(window: Vec2, height: f32, at_stake: &[Rect]) -> Place {
    let band = |top: f32| Rect::new(window.x * 0.24, top, window.x * 0.76, top + height);
    let covers = |r: Rect| at_stake.iter().any(|u| !r.intersect(*u).is_empty());
    let high = band(window.y * 0.14);
    let low = band(window.y * 0.94 - height);
    if covers(high) && !covers(low) {
        Place::Bottom
    } else {
        Place::Top
    }
}

/// The dialog's left and right margins: 24% of the window (in UI units), or the side panel's
/// room and a little more where that is wider.
fn side_margins(layout: super::HudLayout, window_px: Option<f32>) -> (Val, Val) {
    let Some(w) = window_px else {
        return (percent(24), percent(24));
    };
    let scale = if layout.scale > 0.0 {
        layout.scale
    } else {
        1.0
    };
    let quarter = 0.24 * w / scale;
    let (l, r, _, _) = layout.insets();
    (px(quarter.max(l + 8.0)), px(quarter.max(r + 8.0)))
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
        // A spell, say, whose odds are not its caster's weapon's: the ruleset tells them.
        Trigger::Targeted { .. }
            if let Some(Resume::Attack(p)) = s.interrupts.last().map(|i| &i.resume)
                && let Some((o, answers)) = rulesets::pending_odds(s, p) =>
        {
            Some(format!(
                "{}{}",
                words(p.attacker, p.target, o.clone()),
                super::answers_words(s, Some(&o), &answers)
            ))
        }
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
            // The damage that stands to be dealt, for a hit only: "a miss, about 10.0 damage if
            // it lands" read as if a miss might yet land (a `sides` Total Defense asked on a miss
            // says what it spares in its own entry).
            let damage = [false, true]
                .into_iter()
                .filter(|_| *hit)
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

    /// At 1024x640 the dialog stops short of the side panels (it ran over the right panel's
    /// menu); on a wide window it keeps to a quarter in from each side.
    #[test]
    fn the_reaction_dialog_keeps_off_the_side_panels() {
        let px_of = |v: Val| match v {
            Val::Px(p) => p,
            other => panic!("{other:?}"),
        };
        for (w, h) in [(1024.0, 640.0), (1280.0, 800.0), (1920.0, 1080.0)] {
            let layout = super::super::HudLayout::for_window(Vec2::new(w, h));
            let (l, r, _, _) = layout.insets();
            let (left, right) = side_margins(layout, Some(w));
            let (left, right) = (px_of(left), px_of(right));
            assert!(left >= l + 8.0 && right >= r + 8.0, "{w}: {left}, {right}");
            assert!(left >= 0.24 * w - 0.01 && right >= 0.24 * w - 0.01);
            assert!(w - left - right > 300.0, "{w}: room for the dialog");
        }
    }

    /// Orrin, a mage, and Shade, a scout, five cells apart on an `action-points` field.
    fn orrin_and_shade() -> crate::rules::level::Level {
        use crate::rules::testkit::Field;
        Field::new(rulesets::RulesetId::ActionPoints)
            .map(&["......", "......", "......"])
            .units(
                r#"(name: "Orrin", side: "Heroes", cell: (0, 1), template: "mage"),
                   (name: "Shade", side: "Foes", cell: (5, 1), template: "scout"),"#,
            )
            .level()
    }

    /// The second bolt's Dodge prompt says it is the second: two prompts that read the same
    /// looked like an ignored key. The first says nothing of the kind, nor does one after the
    /// asked unit's own side has acted since. (The history before the pending prompt is
    /// written out: only who answered and who acted counts.)
    #[test]
    fn a_second_reaction_prompt_in_a_turn_says_which_it_is() {
        use crate::rules::battle::{Action, Command, Reaction, Spell};
        use crate::rules::testkit::{U0, U1, run};
        let level = orrin_and_shade();
        let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
        let bolt = Command::Act {
            unit: U0,
            action: Action::Cast {
                target: U1,
                spell: Spell::MagicMissile,
            },
        };
        run(&mut b, bolt.clone());
        assert!(matches!(b.pending(), Decision::React { unit: U1, .. }));
        assert_eq!(asked_again(&b, std::slice::from_ref(&bolt)), None);
        // The prompt tells what Shade has left to pay a Dodge with.
        let now = answerer_now(&b).expect("Shade's label");
        assert!(
            now.starts_with("Shade now: ") && now.contains(" AP"),
            "{now}"
        );
        let declined = Command::React {
            unit: U1,
            reaction: Reaction::Decline,
        };
        let twice = [bolt.clone(), declined.clone(), bolt.clone()];
        assert_eq!(
            asked_again(&b, &twice).as_deref(),
            Some("Asked of Shade for the 2nd time this turn")
        );
        let thrice = [
            bolt.clone(),
            declined.clone(),
            bolt.clone(),
            declined,
            bolt.clone(),
        ];
        assert_eq!(
            asked_again(&b, &thrice).as_deref(),
            Some("Asked of Shade for the 3rd time this turn")
        );
        // Shade's side acted in between: a new turn of questions.
        let shade_acted = Command::EndTurn { unit: U1 };
        let after = [bolt.clone(), shade_acted, bolt];
        assert_eq!(asked_again(&b, &after), None);
    }

    /// A spell waiting on the target's Dodge is told with the spell's odds, and the Dodge's,
    /// not the caster's weapon's (the play-test found none at all).
    #[test]
    fn a_reaction_prompt_tells_the_odds_of_a_spell() {
        use crate::rules::battle::{Action, Command, Spell};
        use crate::rules::testkit::{U0, U1, run};
        let level = orrin_and_shade();
        // Initiative 6 + 2 against 1 + 4: Orrin first.
        let (mut b, _) = BattleState::start_with_tape(&level, 1, [6, 1]);
        let bolt = Action::Cast {
            target: U1,
            spell: Spell::MagicMissile,
        };
        let (_, o) = rulesets::action_odds(&b, U0, &bolt).expect("the bolt's odds");
        run(
            &mut b,
            Command::Act {
                unit: U0,
                action: bolt,
            },
        );
        let d = b.pending();
        assert!(matches!(d, Decision::React { unit: U1, .. }), "{d:?}");
        let line = reaction_odds(&b, &d).expect("odds of the bolt");
        assert!(line.starts_with("Orrin on Shade: "), "{line}");
        assert!(
            line.contains(&format!("{:.0}% to hit", o.hit * 100.0)),
            "{line}"
        );
        assert!(line.contains("if Shade dodges"), "{line}");
    }

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
        assert!(line.contains("damage if it lands"), "{line}");
        // A miss is told as a miss, with no damage "if it lands".
        let missed = Decision::React {
            unit: orrin,
            trigger: Trigger::Attacked {
                attacker: thorn,
                target: orrin,
                total: 9,
                needed: 13,
                hit: false,
            },
        };
        assert_eq!(
            reaction_odds(&b, &missed).as_deref(),
            Some("Thorn rolled 9 against 13: a miss")
        );
    }

    #[test]
    fn the_reaction_dialog_stands_clear_of_the_units_at_stake() {
        let window = Vec2::new(1280.0, 800.0);
        let token = |x: f32, y: f32| Rect::from_center_size(Vec2::new(x, y), Vec2::splat(40.0));
        // Units low on the board: the dialog stands high.
        assert_eq!(
            dialog_place(window, 300.0, &[token(640.0, 650.0)]),
            Place::Top
        );
        // An attacker under the high band: low instead.
        assert_eq!(
            dialog_place(window, 300.0, &[token(640.0, 200.0), token(300.0, 250.0)]),
            Place::Bottom
        );
        // Units beside the dialog's columns do not move it.
        assert_eq!(
            dialog_place(window, 300.0, &[token(100.0, 200.0)]),
            Place::Top
        );
        // Both bands would cover one: it stays high.
        assert_eq!(
            dialog_place(window, 300.0, &[token(640.0, 200.0), token(640.0, 600.0)]),
            Place::Top
        );
    }
}
