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
        (turn_order, scroll_order, order_hover)
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

/// The entry of the unit acting now (or picked to act), which the order keeps in view.
#[derive(Component)]
pub struct OrderCurrent;

/// The mouse wheel over the turn order scrolls it; [`OrderMore`] shows while units are below
/// its edge. The acting unit's entry is brought into view when it changes (or the list is
/// built anew, or its height changes): at 1024x640 a long order kept it below the edge, out
/// of sight, while that unit acted.
fn scroll_order(
    wheel: Res<bevy::input::mouse::AccumulatedMouseScroll>,
    mut lists: Query<
        (
            &ComputedNode,
            &bevy::ui::UiGlobalTransform,
            &bevy::ui::RelativeCursorPosition,
            &mut ScrollPosition,
            &Children,
        ),
        With<OrderList>,
    >,
    current: Query<(Entity, &ComputedNode, &bevy::ui::UiGlobalTransform), With<OrderCurrent>>,
    parts: Query<(&ComputedNode, &bevy::ui::UiGlobalTransform)>,
    mut more: Query<&mut Node, With<OrderMore>>,
    mut shown: Local<Option<(Entity, u32)>>,
) {
    let Ok((node, at, over, mut pos, children)) = lists.single_mut() else {
        return;
    };
    if node.size().y <= 0.0 {
        return;
    }
    let max = ui::scroll_room(node);
    let mut y = pos.y;
    if over.cursor_over() {
        y -= ui::wheel_units(&wheel, 20.0);
    }
    if let Ok((entry, size, entry_at)) = current.single()
        && size.size().y > 0.0
    {
        let key = (entry, node.size().y.round() as u32);
        if *shown != Some(key) {
            let list_top = at.translation.y - node.size().y / 2.0;
            let top = (entry_at.translation.y - size.size().y / 2.0) - list_top;
            // Down only to a line's top, so the first line shown is whole (not the fold
            // button cut in half).
            let tops = parts
                .iter_many(children.iter())
                .map(|(n, t)| t.translation.y - n.size().y / 2.0 - list_top);
            y += ui::scroll_to_show_whole(top, size.size().y, node.size().y, tops)
                * node.inverse_scale_factor();
            *shown = Some(key);
        }
    }
    let y = y.clamp(0.0, max);
    if pos.y != y {
        pos.y = y;
    }
    ui::show_more_below(ui::runs_on_below(max, y), more.iter_mut());
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
                ui::MoreLine,
                ui::text("More below: wheel over the list", 12.0, ui::DIM),
                Node {
                    display: Display::None,
                    flex_shrink: 0.0,
                    ..default()
                },
            ),
        ],
    ));
    commands.spawn((
        Name::new("Turn order entry, whole"),
        OrderHelp,
        DespawnOnExit(Screen::Battle),
        Visibility::Hidden,
        Node {
            position_type: PositionType::Absolute,
            left: px(left + 4.0),
            top: px(top),
            max_width: px(420),
            padding: UiRect::axes(px(8), px(4)),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.05, 0.05, 0.07, 0.95)),
        ZIndex(5),
        children![ui::text("", 13.0, ui::TEXT)],
    ));
}

#[allow(clippy::too_many_arguments)]
fn turn_order(
    mut commands: Commands,
    view: Res<View>,
    settings: Res<crate::game::battle::Settings>,
    panel: Query<Entity, With<OrderList>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    ui_scale: Option<Res<UiScale>>,
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
    // What an entry's lines hold, in the panel as wide as the window makes it.
    let room =
        entry_room(HudLayout::of(window.single().ok(), super::ui_scale(ui_scale.as_deref())).left);
    let key = format!(
        "{clock:?}|{unseen:?}|{}|{}|{folded:?}|{:?}|{:?}|{room:?}",
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
                // A fixed layout, the same for every unit: the side's square and the name
                // on the first line, what it is doing now (its label) on the second. Neither
                // wraps: a line too long for the panel is cut with "..."
                // (the whole of it shows on hover, `order_hover`). Names and labels wrapped
                // where they were long and not where short, and read unevenly.
                let mark = if current { "> " } else { "" };
                // Fog of war: a foe out of the viewer's sight. What it is doing now (its
                // label) is not known then.
                let label = match &state.fog {
                    Some(k) if k.is_unknown(e.unit) => "(unseen)",
                    Some(k) if k.is_ghost(e.unit) => "(last seen)",
                    _ => e.label.as_str(),
                };
                let (name, name_cut) = ui::cut_to(&format!("{mark}{}", u.name), room.name);
                let (label_line, label_cut) = ui::cut_to(label, room.label);
                let mut row = p.spawn((
                    ui::WholeOnly,
                    OrderEntry,
                    Node {
                        flex_direction: FlexDirection::Column,
                        padding: UiRect::axes(px(ENTRY_PAD), px(2)),
                        border_radius: BorderRadius::all(px(3)),
                        ..default()
                    },
                    BackgroundColor(if current { ui::BUTTON_ON } else { Color::NONE }),
                ));
                if current {
                    row.insert(OrderCurrent);
                }
                if name_cut || label_cut {
                    let full = if label.is_empty() {
                        u.name.to_string()
                    } else {
                        format!("{}: {label}", u.name)
                    };
                    row.insert((OrderFull(full), Interaction::default()));
                }
                row.with_children(|r| {
                    r.spawn(Node {
                        align_items: AlignItems::Center,
                        column_gap: px(MARK_GAP),
                        ..default()
                    })
                    .with_children(|n| {
                        n.spawn((
                            Node {
                                width: px(MARK),
                                height: px(MARK),
                                flex_shrink: 0.0,
                                ..default()
                            },
                            BackgroundColor(side_colour(
                                Some(u.side.index()),
                                settings.colour_blind,
                            )),
                        ));
                        n.spawn((ui::text(name, NAME_PX, colour), TextLayout::no_wrap()));
                    });
                    if !label_line.is_empty() {
                        r.spawn((
                            ui::text(label_line, LABEL_PX, colour),
                            TextLayout::no_wrap(),
                        ));
                    }
                });
            }
        });
}

/// The font sizes of a turn-order entry's name and label lines.
const NAME_PX: f32 = 13.0;
const LABEL_PX: f32 = 12.0;
/// The side's square, the gap after it, and an entry's padding left and right.
const MARK: f32 = 10.0;
const MARK_GAP: f32 = 5.0;
const ENTRY_PAD: f32 = 3.0;

/// An entry of the turn order (one unit).
#[derive(Component)]
pub struct OrderEntry;

/// The whole of an entry whose name or label was cut to fit the panel: shown on hover.
#[derive(Component, Clone, Debug)]
pub struct OrderFull(pub String);

/// How many characters an entry's name line and label line hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryRoom {
    pub name: usize,
    pub label: usize,
}

/// The room on an entry's lines in a left panel `panel_width` wide (UI units): the panel's
/// and the entry's padding come off, and on the name's line the side's square. The label's
/// line is not indented: at 1024x640 it holds 18 characters, 16 if it were, and the two
/// more keep a surprised unit's "Surprised (2 seg.)" whole (23 characters at 1280x800).
pub fn entry_room(panel_width: f32) -> EntryRoom {
    let line = panel_width - 12.0 - 2.0 * 8.0 - 2.0 * ENTRY_PAD;
    EntryRoom {
        name: ui::chars_fitting(line - (MARK + MARK_GAP), NAME_PX),
        label: ui::chars_fitting(line, LABEL_PX),
    }
}

/// The whole name and label of the hovered entry, when the panel cut them, beside the panel.
fn order_hover(
    entries: Query<(
        &Interaction,
        &OrderFull,
        &ComputedNode,
        &bevy::ui::UiGlobalTransform,
    )>,
    mut help: Query<(&mut Node, &mut Visibility, &Children), With<OrderHelp>>,
    mut texts: Query<&mut Text>,
    panel: Query<&Node, (With<OrderPanel>, Without<OrderHelp>)>,
) {
    let Ok((mut node, mut vis, children)) = help.single_mut() else {
        return;
    };
    let hovered =
        entries
            .iter()
            .find(|(i, ..)| **i != Interaction::None)
            .map(|(_, full, n, at)| {
                let k = n.inverse_scale_factor();
                (full.0.clone(), (at.translation.y - n.size().y / 2.0) * k)
            });
    let Some((words, top)) = hovered else {
        vis.set_if_neq(Visibility::Hidden);
        return;
    };
    let left = panel.single().map_or(px(180), |p| match p.width {
        Val::Px(w) => px(w + 10.0),
        _ => px(180),
    });
    if node.top != px(top) || node.left != left {
        node.top = px(top);
        node.left = left;
    }
    vis.set_if_neq(Visibility::Inherited);
    ui::set_first_text(children, &mut texts, &words);
}

/// The box [`order_hover`] fills.
#[derive(Component)]
struct OrderHelp;

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
