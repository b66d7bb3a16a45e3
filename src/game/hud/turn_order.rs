//! The turn-order panel: how the battle is won ([`victory_lines`]), then the ruleset's order
//! of play with the current unit marked.

use bevy::prelude::*;

use super::{DEFAULT_WINDOW, HudLayout, HudPanel, HudSystems, View, panel_node};
use crate::game::Screen;
use crate::game::ui;
use crate::game::units::side_colour;
use crate::rules::battle::{BattleState, log};
use crate::rules::level::Victory;
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (turn_order, scroll_order)
            .chain()
            .in_set(HudSystems::Panels),
    );
}

#[derive(Component)]
pub struct OrderPanel;

/// The panel's contents, which scroll when they are more than the panel holds.
#[derive(Component)]
pub struct OrderList;

/// The line under the list that says more units are below (a short window cut the last
/// ones off without a word).
#[derive(Component)]
struct OrderMore;

/// The mouse wheel over the turn order scrolls it; [`OrderMore`] shows while units are below
/// its edge.
fn scroll_order(
    wheel: Res<bevy::input::mouse::AccumulatedMouseScroll>,
    mut lists: Query<
        (
            &ComputedNode,
            &bevy::ui::RelativeCursorPosition,
            &mut ScrollPosition,
        ),
        With<OrderList>,
    >,
    mut more: Query<&mut Node, With<OrderMore>>,
) {
    let Ok((node, over, mut pos)) = lists.single_mut() else {
        return;
    };
    let max = ui::scroll_room(node);
    let mut y = pos.y;
    if over.cursor_over() {
        y -= ui::wheel_units(&wheel, 20.0);
    }
    let y = y.clamp(0.0, max);
    if pos.y != y {
        pos.y = y;
    }
    let want = if max > 1.0 && y < max - 1.0 {
        Display::Flex
    } else {
        Display::None
    };
    for mut n in &mut more {
        if n.display != want {
            n.display = want;
        }
    }
}

/// Spawns the (empty) turn-order panel.
pub(super) fn spawn(commands: &mut Commands) {
    let (left, _, top, _) = HudLayout::for_window(DEFAULT_WINDOW).insets();
    commands.spawn((
        Name::new("Turn order"),
        OrderPanel,
        HudPanel,
        Interaction::default(),
        DespawnOnExit(Screen::Battle),
        Node {
            left: px(6),
            top: px(top),
            width: px(left - 12.0),
            max_height: Val::Vh(80.0),
            ..panel_node()
        },
        BackgroundColor(ui::PANEL),
        children![
            (
                OrderList,
                Node {
                    flex_direction: FlexDirection::Column,
                    row_gap: px(3),
                    min_height: px(0),
                    flex_shrink: 1.0,
                    overflow: Overflow::scroll_y(),
                    ..default()
                },
                ScrollPosition::default(),
                bevy::ui::RelativeCursorPosition::default(),
            ),
            (
                OrderMore,
                ui::text("More below: wheel over the list", 12.0, ui::DIM),
                Node {
                    display: Display::None,
                    flex_shrink: 0.0,
                    ..default()
                },
            ),
        ],
    ));
}

fn turn_order(
    mut commands: Commands,
    view: Res<View>,
    settings: Res<crate::game::battle::Settings>,
    panel: Query<Entity, With<OrderList>>,
    mut last: Local<String>,
) {
    let Some(state) = &view.state else {
        return;
    };
    let clock = rulesets::clock(state);
    let folded = settings.collapsed;
    let unseen: Vec<(bool, bool)> = state
        .unit_ids()
        .map(|u| {
            state
                .fog
                .as_ref()
                .map_or((false, false), |k| (k.is_unknown(u), k.is_ghost(u)))
        })
        .collect();
    let key = format!(
        "{clock:?}|{unseen:?}|{}|{}|{folded:?}|{:?}|{:?}",
        state.round,
        settings.colour_blind,
        settings.keys,
        panel.single().ok()
    );
    if *last == key {
        return;
    }
    *last = key;
    let Ok(panel) = panel.single() else {
        return;
    };
    commands
        .entity(panel)
        .despawn_children()
        .with_children(|p| {
            // The header folds the panel to a strip (and opens it again).
            p.spawn(super::fold_button(
                super::FoldButton::Left,
                super::FoldButton::Left.label(folded, &settings.keys),
            ));
            if folded.left {
                return;
            }
            // How the battle is won, first: a long order runs on below the panel's room and
            // is cut (whole lines only), the goal never is.
            p.spawn(ui::text("To win", 15.0, ui::ACCENT));
            for line in victory_lines(state) {
                p.spawn(ui::text(line, 13.0, ui::TEXT));
            }
            p.spawn((
                ui::text("Turn order", 17.0, ui::ACCENT),
                Node {
                    margin: UiRect::top(px(6)),
                    ..default()
                },
            ));
            if clock.order.is_empty() {
                p.spawn(ui::text("(the ruleset lists no order now)", 13.0, ui::DIM));
            }
            // A finished battle has no one acting: no unit stays marked as the current one.
            let over = state.outcome.is_some();
            for e in &clock.order {
                let Some(u) = state.unit(e.unit) else {
                    continue;
                };
                let current = e.current && !over;
                let colour = if current {
                    ui::TEXT
                } else if e.done || !u.is_active() {
                    ui::DIM
                } else {
                    Color::srgb(0.82, 0.8, 0.76)
                };
                p.spawn((
                    ui::WholeOnly,
                    // A narrow panel wraps the label onto a line of its own, whole ("4 AP",
                    // never "AP" alone).
                    Node {
                        flex_direction: FlexDirection::Row,
                        flex_wrap: FlexWrap::Wrap,
                        align_items: AlignItems::Center,
                        column_gap: px(5),
                        padding: UiRect::axes(px(3), px(2)),
                        border_radius: BorderRadius::all(px(3)),
                        ..default()
                    },
                    BackgroundColor(if current { ui::BUTTON_ON } else { Color::NONE }),
                ))
                .with_children(|r| {
                    // The side's square and the name stay on one line, the name wrapping
                    // beside the square when long (it once jumped below, the square alone).
                    let mark = if current { "> " } else { "" };
                    // Fog of war: a foe out of the viewer's sight.
                    // What it is doing now (its label) is not known then.
                    let (label, unseen) = match &state.fog {
                        Some(k) if k.is_unknown(e.unit) => ("", "  (unseen)"),
                        Some(k) if k.is_ghost(e.unit) => ("", "  (last seen)"),
                        _ => (e.label.as_str(), ""),
                    };
                    r.spawn(Node {
                        align_items: AlignItems::Center,
                        column_gap: px(5),
                        flex_shrink: 1.0,
                        ..default()
                    })
                    .with_children(|n| {
                        n.spawn((
                            Node {
                                width: px(10),
                                height: px(10),
                                flex_shrink: 0.0,
                                ..default()
                            },
                            BackgroundColor(side_colour(
                                Some(u.side.index()),
                                settings.colour_blind,
                            )),
                        ));
                        n.spawn((
                            ui::text(format!("{mark}{}{unseen}", u.name), 13.0, colour),
                            Node {
                                flex_shrink: 1.0,
                                ..default()
                            },
                        ));
                    });
                    // The label goes beside the name when it fits whole, else on a line of
                    // its own, where a long one wraps rather than being cut ("acting -
                    // 3/3 actions", "surprised for 2 segments").
                    if !label.is_empty() {
                        r.spawn((
                            ui::text(label, 13.0, colour),
                            Node {
                                flex_shrink: 1.0,
                                ..default()
                            },
                        ));
                    }
                });
            }
        });
}

/// The battle's victory conditions in words, with where they stand: "Last side standing
/// wins", "Garrison wins by holding out 12 rounds (round 3 now)", "Raiders win by reaching
/// (21, 6)".
pub fn victory_lines(s: &BattleState) -> Vec<String> {
    victory_words(&s.level, rulesets::round_word(s), Some(s.round))
}

/// A level's victory conditions in words; with `now`, the round the battle is in.
pub fn victory_words(
    level: &crate::rules::level::LevelFile,
    round_word: &str,
    now: Option<u32>,
) -> Vec<String> {
    let conditions = if level.victory.is_empty() {
        vec![Victory::LastSideStanding]
    } else {
        level.victory.clone()
    };
    let round = round_word.to_lowercase();
    conditions
        .iter()
        .map(|v| match v {
            Victory::LastSideStanding => "The last side with a unit able to fight wins".into(),
            Victory::SurviveRounds { side, rounds } => format!(
                "{side} {} by holding out {rounds} {round}s{}",
                log::agree(side, "wins", "win"),
                now.map_or(String::new(), |n| format!(" ({round} {n} now)"))
            ),
            Victory::ReachCell { side, cell } => format!(
                "{side} {} by reaching ({}, {})",
                log::agree(side, "wins", "win"),
                cell.0,
                cell.1
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_victory_conditions_are_told_with_where_they_stand() {
        let level = crate::rules::battle::tests::load("sides_village_brawl.ron");
        let (mut s, _) = BattleState::start(&level, 1);
        std::sync::Arc::make_mut(&mut s.level).victory = vec![
            Victory::LastSideStanding,
            Victory::SurviveRounds {
                side: "Bandits".into(),
                rounds: 8,
            },
            Victory::ReachCell {
                side: "Party".into(),
                cell: (3, 4),
            },
        ];
        s.round = 3;
        assert_eq!(
            victory_lines(&s),
            [
                "The last side with a unit able to fight wins",
                "Bandits win by holding out 8 rounds (round 3 now)",
                "Party wins by reaching (3, 4)"
            ]
        );
    }
}
