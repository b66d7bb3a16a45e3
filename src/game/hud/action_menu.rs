//! The action menu: what the player is asked (or whom the battle waits for), the menu entries
//! with their keys, costs, odds and "provokes" marks, the chosen group's sub-list, Cancel and
//! Undo.

use bevy::prelude::*;
use bevy::ui::{ComputedNode, UiGlobalTransform};

use super::{HudSystems, Targeting, View, ai_thinking};
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::menu::{self, MenuEntry};
use crate::game::ui::{self, UiAction};
use crate::rules::battle::{BattleState, Command, Reaction, log};
use crate::rules::rulesets;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (action_menu, scroll_menu, more_below, menu_hover_help)
            .chain()
            .in_set(HudSystems::Panels),
    );
}

#[derive(Component)]
struct MenuPanel;

/// The hover text of the action menu: the rules reference's entry of the hovered command,
/// beside the menu.
#[derive(Component)]
pub struct MenuHelp;

/// Spawns the (hidden) hover text of the menu.
pub(super) fn spawn_help(commands: &mut Commands) {
    commands.spawn((
        Name::new("Menu help"),
        MenuHelp,
        super::HudPanel,
        DespawnOnExit(crate::game::Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            right: px(super::HudLayout::for_window(super::DEFAULT_WINDOW).right),
            top: px(80),
            padding: UiRect::all(px(6)),
            max_width: px(320),
            border: UiRect::all(px(1)),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BorderColor::all(ui::DIM),
        BackgroundColor(Color::srgba(0.05, 0.05, 0.07, 0.95)),
        Visibility::Hidden,
        ZIndex(6),
        children![ui::text("", 13.0, ui::TEXT)],
    ));
}

/// The command a menu button stands for, if it stands for exactly one kind of command.
fn command_of<'a>(view: &'a View, action: &UiAction) -> Option<&'a Command> {
    let entry = match action {
        UiAction::Menu(i) => view.menu.get(*i)?,
        UiAction::Sub(i) => view.sub.get(*i)?,
        _ => return None,
    };
    entry.commands.first()
}

/// Shows the hovered menu entry's rules text beside the menu; hides it when no entry is
/// hovered.
#[allow(clippy::type_complexity)]
#[allow(clippy::too_many_arguments)]
fn menu_hover_help(
    view: Res<View>,
    battle: Res<Battle>,
    settings: Res<crate::game::battle::Settings>,
    ui: Option<Res<UiScale>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    buttons: Query<(
        &Interaction,
        &UiAction,
        Option<&ComputedNode>,
        Option<&UiGlobalTransform>,
    )>,
    mut help: Query<(&mut Node, &mut Visibility, &Children), With<MenuHelp>>,
    mut texts: Query<&mut Text>,
    dialog: Query<(), With<super::reaction_prompt::Modal>>,
) {
    let Ok((mut node, mut vis, children)) = help.single_mut() else {
        return;
    };
    // A dialog's buttons answer it: no menu help shows through it.
    let hovered = buttons
        .iter()
        .filter(|_| dialog.is_empty())
        .find_map(|(i, a, n, at)| {
            (*i != Interaction::None)
                .then(|| command_of(&view, a).map(|c| (c, n, at)))
                .flatten()
        });
    let text = hovered.and_then(|(c, n, at)| {
        let words = super::rules_help::hover_text(battle.state.rules.id(), c)?;
        let top = match (n, at) {
            (Some(n), Some(at)) => (at.translation.y - n.size().y / 2.0) * n.inverse_scale_factor(),
            _ => 80.0,
        };
        Some((words, top))
    });
    let Some((words, top)) = text else {
        if *vis != Visibility::Hidden {
            *vis = Visibility::Hidden;
        }
        return;
    };
    let layout = super::HudLayout::of(window.single().ok(), super::ui_scale(ui.as_deref()))
        .folded(settings.collapsed);
    // Beside the menu, never below the window's bottom (an estimate of its height: the
    // words wrap at about 48 characters a line).
    let lines = (words.len() / 48 + 1) as f32;
    let top = top
        .min(layout.window.y - layout.bottom - lines * 17.0 - 16.0)
        .max(layout.top);
    if node.top != px(top) || node.right != px(layout.right) {
        node.top = px(top);
        node.right = px(layout.right);
    }
    if *vis != Visibility::Inherited {
        *vis = Visibility::Inherited;
    }
    ui::set_first_text(children, &mut texts, &words);
}

/// The scrolling list of a long menu's entries (a wheel over it scrolls it).
#[derive(Component)]
pub struct MenuList;

/// Spawns the (empty) menu at the top of the right panel. A menu too long for the panel
/// shrinks to the room the log leaves and its entries scroll; its title, End turn, Cancel
/// and Undo stay in view.
pub(super) fn spawn(p: &mut ChildSpawnerCommands) {
    p.spawn((
        MenuPanel,
        super::RightPanelPart,
        Node {
            flex_direction: FlexDirection::Column,
            row_gap: px(2),
            flex_shrink: 1.0,
            min_height: px(0),
            overflow: Overflow::clip(),
            ..default()
        },
    ));
}

/// The line under a long menu that says more entries are below.
#[derive(Component)]
struct MenuMore;

/// Shows [`MenuMore`] while the list has entries below its bottom edge (not scrolled to its
/// end): a list of whole entries does not show by itself that it runs on.
fn more_below(
    lists: Query<(&ComputedNode, &ScrollPosition), With<MenuList>>,
    mut more: Query<&mut Node, With<MenuMore>>,
) {
    let below = lists.iter().any(|(node, pos)| {
        let max = (node.content_size().y - node.size().y) * node.inverse_scale_factor();
        ui::runs_on_below(max, pos.y)
    });
    ui::show_more_below(below, more.iter_mut());
}

/// The mouse wheel over a long menu's entries scrolls them.
fn scroll_menu(
    wheel: Res<bevy::input::mouse::AccumulatedMouseScroll>,
    mut lists: Query<
        (
            &bevy::ui::RelativeCursorPosition,
            &mut ScrollPosition,
            &ComputedNode,
        ),
        With<MenuList>,
    >,
) {
    if wheel.delta.y == 0.0 {
        return;
    }
    let d = ui::wheel_units(&wheel, 20.0);
    // Over the list, its entries included (a button hides its parent's hover).
    for (over, mut pos, node) in &mut lists {
        if !over.cursor_over() {
            continue;
        }
        let y = (pos.y - d).clamp(0.0, ui::scroll_room(node));
        if pos.y != y {
            pos.y = y;
        }
    }
}

/// The odds in words for an attack command, if it is one, for the attack a moving action
/// ends with (a Charge: from the square the charge ends on), or for an attack that answers an
/// interrupt (a Snap Attack at its -4).
pub(super) fn odds_words(s: &BattleState, cmd: &Command) -> Option<String> {
    let (unit, target, ranged) = match cmd {
        Command::React {
            unit,
            reaction: Reaction::Attack { target },
        } => {
            let o = rulesets::reaction_attack_odds(s, *unit, *target)?;
            return Some(format!(
                "{:.0}% hit, {:.1} dmg",
                o.hit * 100.0,
                o.expected_damage
            ));
        }
        Command::Attack {
            unit,
            target,
            ranged,
        } => (*unit, *target, *ranged),
        Command::Act { unit, action } => {
            let (_, o) = rulesets::action_odds(s, *unit, action)?;
            // A Charge strikes from where it ends; a spell from where the caster stands.
            let there = if cmd.destination().is_some() {
                " there"
            } else {
                ""
            };
            return Some(format!(
                "{:.0}% hit{there}, {:.1} dmg",
                o.hit * 100.0,
                o.expected_damage
            ));
        }
        _ => return None,
    };
    // The plain odds whole first, then what an answer leaves: "70% hit, 4.4 dmg, or 60% for
    // 3.3 damage if Grey Fang takes Total Defense" (the damage after the answer read as the
    // answer's).
    let o = rulesets::odds(s, unit, target, ranged)?;
    Some(format!(
        "{:.0}% hit, {:.1} dmg{}",
        o.hit * 100.0,
        o.expected_damage,
        super::if_answered(s, unit, target, ranged),
    ))
}

fn entry_line(s: &BattleState, e: &MenuEntry, bound: &keys::KeyBindings) -> String {
    let key = e
        .hotkey
        .map_or(String::new(), |k| format!("[{}] ", bound.hotkey_label(k)));
    let mut line = format!("{key}{}", e.label);
    if !e.cost.is_empty() {
        line.push_str(&format!(" - {}", e.cost));
    }
    if e.commands.len() == 1
        && let Some(o) = odds_words(s, &e.commands[0])
    {
        line.push_str(&format!(" - {o}"));
    }
    if e.provokes {
        line.push_str(if e.commands.len() > 1 {
            " (! may provoke)"
        } else {
            " (! provokes)"
        });
    }
    line
}

/// The right panel's title: what the player is asked, whom the battle waits for, or that it
/// is over. It reads the battle itself, not the animated view: between the events of a
/// round's end the view passes through states with no decision pending, which read as "over".
fn panel_title(battle: &Battle, can_act: bool, thinking: bool) -> String {
    if battle.finished() {
        return "The battle is over".to_string();
    }
    if can_act {
        return menu::ascii(&log::decision(&battle.state, &battle.state.pending()));
    }
    match battle.deciding() {
        // A player's decision the view has not reached yet (the round's end still playing):
        // what they will be asked, not "Waiting for" themselves.
        Some(s) if battle.control(s) == crate::ai::SideControl::Human => {
            menu::ascii(&log::decision(&battle.state, &battle.state.pending()))
        }
        // The AI's thinking is said here, not in the top bar, where the turn clock of
        // `segments` already takes two lines on a 1280-pixel window.
        Some(s) => format!(
            "Waiting for {}: {}{}",
            battle
                .state
                .sides
                .get(s.index())
                .map_or("?", |x| x.name.as_str()),
            battle.control(s).label(),
            if thinking { ", thinking..." } else { "" }
        ),
        None => String::new(),
    }
}

#[allow(clippy::too_many_arguments)]
fn action_menu(
    mut commands: Commands,
    view: Res<View>,
    targeting: Res<Targeting>,
    battle: Res<Battle>,
    settings: Res<crate::game::battle::Settings>,
    ai: Option<Res<crate::game::ai_driver::AiPlayers>>,
    replay: Option<Res<crate::game::replay::Replay>>,
    panel: Query<Entity, With<MenuPanel>>,
    mut last: Local<String>,
) {
    if view.state.is_none() {
        return;
    }
    let title = match &replay {
        Some(r) => r.headline(),
        None => panel_title(&battle, view.can_act(), ai_thinking(ai.as_deref(), &battle)),
    };
    let lines: Vec<(String, UiAction, bool)> = if targeting.group.is_some() && !view.sub.is_empty()
    {
        view.sub
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    entry_line(&battle.state, e, &settings.keys),
                    UiAction::Sub(i),
                    false,
                )
            })
            .collect()
    } else {
        view.menu
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    entry_line(&battle.state, e, &settings.keys),
                    UiAction::Menu(i),
                    targeting.group.as_ref() == Some(&e.group),
                )
            })
            .collect()
    };
    let key = format!(
        "{title}|{lines:?}|{:?}|{}|{:?}|{:?}",
        targeting.group,
        battle.can_undo(),
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
    let can_undo = battle.can_undo();
    let group = targeting.group.clone();
    let on_board = menu::aimed_on_board(&view.sub);
    let end_turn = view
        .menu
        .iter()
        .position(|e| matches!(e.commands.as_slice(), [Command::EndTurn { .. }]))
        .filter(|_| group.is_none() || view.sub.is_empty())
        .map_or(UiAction::CancelTarget, UiAction::Menu);
    let (cancel, undo) = (
        settings.keys.name(&keys::CANCEL),
        settings.keys.name(&keys::UNDO),
    );
    commands
        .entity(panel)
        .despawn_children()
        .with_children(|p| {
            p.spawn((
                ui::text(&title, 17.0, ui::ACCENT),
                Node {
                    margin: UiRect::bottom(px(4)),
                    ..default()
                },
            ));
            if let Some(g) = &group {
                let what = if g == "Move" {
                    "Choose a highlighted cell on the board (click, or arrows + Enter)".to_string()
                } else if on_board {
                    format!("{g}: choose a target on the board or below")
                } else {
                    format!("{g}: choose one below")
                };
                p.spawn(ui::text(what, 13.0, ui::TEXT));
            }
            let entry = |(label, action, on): (String, UiAction, bool)| {
                (
                    Button,
                    action,
                    ui::ButtonColour(if on { ui::BUTTON_ON } else { ui::BUTTON }),
                    Node {
                        padding: UiRect::axes(px(6), px(3)),
                        border_radius: BorderRadius::all(px(3)),
                        flex_shrink: 0.0,
                        ..default()
                    },
                    BackgroundColor(if on { ui::BUTTON_ON } else { ui::BUTTON }),
                    children![ui::text(label, 14.0, ui::TEXT)],
                )
            };
            // End turn stays below the list, in view however long the list is.
            let (last, lines): (Vec<_>, Vec<_>) =
                lines.into_iter().partition(|(_, a, _)| *a == end_turn);
            p.spawn((
                MenuList,
                Interaction::default(),
                bevy::ui::RelativeCursorPosition::default(),
                ScrollPosition::default(),
                Node {
                    flex_direction: FlexDirection::Column,
                    row_gap: px(2),
                    flex_shrink: 1.0,
                    min_height: px(0),
                    overflow: Overflow::scroll_y(),
                    ..default()
                },
            ))
            .with_children(|list| {
                for line in lines {
                    list.spawn((entry(line), ui::WholeOnly));
                }
            });
            // Said when the list runs on below (`more_below`).
            p.spawn((
                MenuMore,
                ui::MoreLine,
                ui::text("More below: wheel over the list", 12.0, ui::DIM),
                Node {
                    display: Display::None,
                    flex_shrink: 0.0,
                    ..default()
                },
            ));
            for line in last {
                p.spawn(entry(line));
            }
            if group.is_some() {
                p.spawn(ui::button("Cancel", Some(&cancel), UiAction::CancelTarget));
            }
            if can_undo {
                p.spawn(ui::button("Undo move", Some(&undo), UiAction::Undo));
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The panel's title comes from the battle, not from the animated view: at a round's end
    /// in `segments` the view passed through states with no decision, and the panel said "The
    /// battle is over" at the start of every round's declarations.
    #[test]
    fn the_panel_says_the_battle_is_over_only_when_it_is() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let mut b = Battle::new(crate::game::battle::BattleSetup::new(level, None));
        b.show_all();
        let over = "The battle is over";
        let asked = panel_title(&b, true, false);
        assert!(!asked.is_empty() && asked != over, "{asked}");
        let side = b.deciding().expect("a side decides");
        b.setup.controls =
            vec![crate::ai::SideControl::Ai(crate::ai::Kind::Greedy); b.state.sides.len()];
        let waiting = panel_title(&b, false, true);
        assert!(waiting.starts_with("Waiting for "), "{waiting}");
        // A player's own decision, while the view still plays the events before it, is told
        // as what they will be asked: the player does not wait for themselves.
        b.setup.controls[side.index()] = crate::ai::SideControl::Human;
        assert_eq!(panel_title(&b, false, false), asked);
        b.state.outcome = Some(crate::rules::battle::Outcome {
            winner: None,
            reason: "test".into(),
        });
        assert_eq!(panel_title(&b, false, false), over);
    }

    /// A Charge's entry in the sub-list tells the odds of its attack from the square it ends
    /// on (out of reach where it starts, so a plain attack has no odds there).
    #[test]
    fn a_charges_entry_tells_the_odds_from_where_it_ends() {
        use crate::rules::battle::Action;
        use crate::rules::grid::Cell;
        let level = crate::rules::testkit::Field::new(crate::rules::rulesets::RulesetId::Sides)
            .topology("Square(diagonals: One)")
            .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Ai)"#)
            .map(&["............"; 5])
            .units(
                r#"
                (name: "Aldric", side: "Party", cell: (0, 0), template: "warrior"),
                (name: "Hruk", side: "Foes", cell: (9, 3), template: "reaver"),
                "#,
            )
            .level();
        let (b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
        let (u0, u1) = (
            crate::rules::battle::UnitId(0),
            crate::rules::battle::UnitId(1),
        );
        let legal = crate::game::menu::described(&b);
        let entries = crate::game::menu::sub_menu(&b, &legal, "Charge");
        let to = Cell::new(8, 3);
        let entry = entries
            .iter()
            .find(|e| {
                e.commands
                    == [Command::Act {
                        unit: u0,
                        action: Action::Charge { target: u1, to },
                    }]
            })
            .expect("the charge to (8, 3) is listed");
        let line = entry_line(&b, entry, &keys::KeyBindings::default());
        assert!(line.contains(" - 65% hit there, "), "{line}");
    }

    /// An attack's entry gives its own odds whole, then what each answer leaves: the damage
    /// once stood after the answers and read as the last answer's.
    #[test]
    fn an_attacks_entry_tells_its_damage_before_the_answers() {
        use crate::rules::testkit::{U0, U1};
        let (b, _) = BattleState::start(&crate::game::hud::tooltip::ada_and_bo(), 1);
        let attack = Command::Attack {
            unit: U0,
            target: U1,
            ranged: false,
        };
        let o = rulesets::odds(&b, U0, U1, false).expect("odds");
        let words = odds_words(&b, &attack).expect("an attack has odds");
        assert!(
            words.starts_with(&format!(
                "{:.0}% hit, {:.1} dmg, or 38% if Bo aborts to Dodge",
                o.hit * 100.0,
                o.expected_damage
            )),
            "{words}"
        );
    }

    /// A Snap Attack offered in answer tells its own odds, its -4 counted, and its cost says
    /// what it costs without saying "Snap Attack" again.
    #[test]
    fn a_snap_attacks_entry_tells_its_odds_at_minus_4() {
        use crate::rules::testkit::{U0, U1, U2};
        let level = crate::rules::testkit::Field::new(crate::rules::rulesets::RulesetId::Sides)
            .topology("Square(diagonals: One)")
            .sides(r#"(name: "Party", controller: Human), (name: "Foes", controller: Human)"#)
            .map(&["........"; 5])
            .units(
                r#"
                (name: "Hruk", side: "Party", cell: (1, 1), template: "reaver"),
                (name: "Mira", side: "Foes", cell: (2, 1), template: "archer"),
                (name: "Brann", side: "Foes", cell: (2, 2), template: "sergeant"),
                (name: "Fang", side: "Party", cell: (7, 4), template: "wolf"),
                "#,
            )
            .level();
        let (mut b, _) = BattleState::start_with_tape(&level, 1, [8, 1]);
        b.execute(&Command::Pick { unit: U0 })
            .expect("Hruk is picked");
        b.execute(&Command::Attack {
            unit: U0,
            target: U1,
            ranged: false,
        })
        .expect("Hruk attacks Mira");
        let snap = Command::React {
            unit: U2,
            reaction: Reaction::Attack { target: U0 },
        };
        let legal = crate::game::menu::described(&b);
        let entry = crate::game::menu::menu(&b, &legal)
            .into_iter()
            .find(|e| e.commands == [snap.clone()])
            .expect("Brann may Snap Attack");
        let line = entry_line(&b, &entry, &keys::KeyBindings::default());
        // 1d20 + 5 - 4 against AC 13.
        assert!(
            line.contains(
                "Snap Attack on Hruk - Instant (gives up the Main action), -4 to hit - 45% hit, "
            ),
            "{line}"
        );
    }
}
