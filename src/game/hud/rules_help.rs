//! The rules reference (F1): every action, reaction and condition of the battle's ruleset with
//! what it does and costs, from [`crate::rules::reference`] (the ruleset's data file holds the
//! text; nothing here adds any). A dialog over the board, in pages that fit the window; F1 or
//! Esc closes it, the arrow keys turn its pages. While it is open the board takes no input.
//!
//! The action menu's hover text ([`hover_text`]) reads the same entries.

use bevy::prelude::*;

use super::{HudPanel, HudSystems, View};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::keys;
use crate::game::ui;
use crate::rules::battle::Command;
use crate::rules::reference::{self, Entry, EntryKind};
use crate::rules::rulesets::RulesetId;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RulesHelp>()
        .add_systems(OnEnter(Screen::Battle), close)
        .add_systems(
            Update,
            (turn_pages, draw).chain().in_set(HudSystems::Panels),
        );
}

/// Whether the reference is open, and at which page.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct RulesHelp {
    pub open: bool,
    pub page: usize,
}

/// The reference's dialog.
#[derive(Component)]
pub struct RulesHelpPanel;

fn close(mut help: ResMut<RulesHelp>) {
    *help = RulesHelp::default();
}

/// The hover text of an action-menu command: its reference entry in one paragraph.
pub fn hover_text(id: RulesetId, cmd: &Command) -> Option<String> {
    reference::for_command(id, cmd).map(Entry::line)
}

/// The entries of ruleset `id` in the reference's order: actions, reactions, conditions.
fn entries(id: RulesetId) -> Vec<&'static Entry> {
    [EntryKind::Action, EntryKind::Reaction, EntryKind::Condition]
        .into_iter()
        .flat_map(|k| reference::of_kind(id, k))
        .collect()
}

/// Text sizes of the dialog.
const ENTRY_PX: f32 = 14.0;
const LINE_PX: f32 = ENTRY_PX * 1.3;

/// What the ids in the entries ("P-76: no attack of opportunity") are, for a player who has
/// never seen Fray's rules tables.
pub const IDS_NOTE: &str = "An id such as P-76 names the rule of the ruleset's rules text that an entry \
     follows; Fray's docs/rules/ lists each with its section, and marks its own house rules.";

/// Whether `text` cites a rule by its id: capitals, a hyphen and digits ("P-76", "X-36").
pub fn cites_rule_id(text: &str) -> bool {
    let b = text.as_bytes();
    (1..b.len().saturating_sub(1)).any(|i| {
        b[i] == b'-'
            && b[i - 1].is_ascii_uppercase()
            && b[i + 1].is_ascii_digit()
            && (i < 2 || !b[i - 2].is_ascii_alphanumeric() || b[i - 2].is_ascii_uppercase())
    })
}

/// The dialog's width in a window of `window` logical pixels.
fn panel_width(window: Vec2) -> f32 {
    (window.x - 48.0).clamp(200.0, 980.0)
}

/// The reference cut into pages that fit a window of `window` logical pixels: each page is a
/// run of entry indices (into `entries`, the actions, reactions and conditions in order). The height of an entry is estimated from its length
/// at the dialog's width, generously, so a page never runs past the dialog.
pub fn pages(entries: &[&Entry], window: Vec2) -> Vec<Vec<usize>> {
    // About 7.5 px a character at 14 px; the text column is the dialog less its padding.
    let per_line = ((panel_width(window) - 40.0) / (ENTRY_PX * 0.56)).max(20.0) as usize;
    // The dialog is at most 90% of the window; its title, page line, the ids' note, footer
    // and the key help take ~170 px.
    let room = ((window.y * 0.9 - 170.0) / LINE_PX).max(4.0) as usize;
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0;
    let mut kind = None;
    for (i, e) in entries.iter().enumerate() {
        let len = e.line().chars().count();
        let mut lines = len.div_ceil(per_line) + 1; // and the gap below it
        if kind != Some(e.kind) {
            lines += 2; // the heading
        }
        if used + lines > room && out.last().is_some_and(|p| !p.is_empty()) {
            out.push(Vec::new());
            used = 2; // the heading is repeated on the new page
        }
        kind = Some(e.kind);
        used += lines;
        if let Some(p) = out.last_mut() {
            p.push(i);
        }
    }
    out
}

/// Left/Right (and Up/Down) turn the pages while the reference is open.
fn turn_pages(
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<crate::game::battle::Settings>,
    mut help: ResMut<RulesHelp>,
) {
    if !help.open {
        return;
    }
    let back = settings.keys.group_just_pressed(&keys::CURSOR, &keys, 0)
        || settings.keys.group_just_pressed(&keys::CURSOR, &keys, 2);
    let forward = settings.keys.group_just_pressed(&keys::CURSOR, &keys, 1)
        || settings.keys.group_just_pressed(&keys::CURSOR, &keys, 3);
    if back && help.page > 0 {
        help.page -= 1;
    }
    if forward {
        // `draw` clamps it to the last page.
        help.page += 1;
    }
}

#[allow(clippy::too_many_arguments)]
fn draw(
    mut commands: Commands,
    mut help: ResMut<RulesHelp>,
    battle: Res<Battle>,
    view: Res<View>,
    settings: Res<crate::game::battle::Settings>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    ui_scale: Option<Res<UiScale>>,
    shown: Query<Entity, With<RulesHelpPanel>>,
    mut last: Local<String>,
) {
    let scale = ui_scale.map_or(1.0, |s| s.0.max(0.1));
    let size = window
        .single()
        .map_or(super::DEFAULT_WINDOW, |w| Vec2::new(w.width(), w.height()))
        / scale;
    let id = battle.state.rules.id();
    let all = entries(id);
    let pages = pages(&all, size);
    if help.page >= pages.len() {
        let last_page = pages.len().saturating_sub(1);
        if help.page != last_page {
            help.page = last_page;
        }
    }
    let bound = &settings.keys;
    let key = format!("{:?}|{id}|{size}|{:?}", *help, bound);
    if *last == key {
        return;
    }
    *last = key;
    for e in &shown {
        commands.entity(e).despawn();
    }
    if !help.open || view.state.is_none() {
        return;
    }
    let name = battle
        .state
        .ruleset()
        .map_or(id.as_str().to_string(), |d| d.name.clone());
    let page = pages.get(help.page).cloned().unwrap_or_default();
    let n_pages = pages.len().max(1);
    let width = panel_width(size);
    commands
        .spawn((
            Name::new("Rules reference"),
            RulesHelpPanel,
            HudPanel,
            Interaction::default(),
            DespawnOnExit(Screen::Battle),
            Node {
                position_type: PositionType::Absolute,
                width: percent(100),
                height: percent(100),
                align_items: AlignItems::Center,
                justify_content: JustifyContent::Center,
                ..default()
            },
            BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.7)),
            // Over the pause menu and the hot-seat hand-over (it shows no board).
            GlobalZIndex(130),
        ))
        .with_children(|p| {
            p.spawn((
                Name::new("Rules reference panel"),
                Node {
                    flex_direction: FlexDirection::Column,
                    row_gap: px(3),
                    padding: UiRect::all(px(16)),
                    width: px(width),
                    max_height: percent(90),
                    overflow: Overflow::clip(),
                    border: UiRect::all(px(2)),
                    border_radius: BorderRadius::all(px(8)),
                    ..default()
                },
                BorderColor::all(ui::ACCENT),
                BackgroundColor(Color::srgb(0.07, 0.065, 0.085)),
            ))
            .with_children(|p| {
                p.spawn(ui::text(
                    format!("Rules reference: {name}"),
                    22.0,
                    ui::ACCENT,
                ));
                let mut kind = None;
                for &i in &page {
                    let e = all[i];
                    if kind != Some(e.kind) {
                        kind = Some(e.kind);
                        p.spawn((
                            ui::text(e.kind.heading(), 17.0, ui::ACCENT),
                            Node {
                                margin: UiRect::top(px(6)),
                                ..default()
                            },
                        ));
                    }
                    p.spawn((
                        Text::new(""),
                        ui::font(ENTRY_PX),
                        TextColor(ui::TEXT),
                        children![
                            (
                                TextSpan::new(menu_ascii(&if e.cost.is_empty() {
                                    e.title().to_string()
                                } else {
                                    format!("{} ({})", e.title(), e.cost)
                                })),
                                ui::font(ENTRY_PX),
                                TextColor(ui::GOOD),
                            ),
                            (
                                TextSpan::new(menu_ascii(&format!(": {}", e.text))),
                                ui::font(ENTRY_PX),
                                TextColor(ui::TEXT),
                            ),
                        ],
                    ));
                }
                p.spawn((
                    ui::text(
                        format!(
                            "Page {} of {n_pages} - {} turn the page - {} or {} closes",
                            help.page + 1,
                            "arrows",
                            bound.name(&keys::RULES),
                            bound.name(&keys::CANCEL)
                        ),
                        13.0,
                        ui::DIM,
                    ),
                    Node {
                        margin: UiRect::top(px(8)),
                        ..default()
                    },
                ));
                // Only a page whose entries cite a rule by its id explains the ids.
                if page.iter().any(|&i| cites_rule_id(&all[i].text)) {
                    p.spawn(ui::text(IDS_NOTE, 12.0, ui::DIM));
                }
                // The battle's keys as the player bound them (Settings, key table).
                p.spawn(ui::text(bound.help(), 12.0, ui::DIM));
            });
        });
}

fn menu_ascii(s: &str) -> String {
    crate::game::menu::ascii(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_id_is_told_apart_from_other_hyphens() {
        assert!(cites_rule_id("P-76: no attack of opportunity"));
        assert!(cites_rule_id("as house rule X-36 says"));
        assert!(!cites_rule_id("a 1-hex step, uses no action"));
        assert!(!cites_rule_id("Page 1 of 3 - arrows turn the page"));
        assert!(!cites_rule_id("a well-aimed blow"));
        assert!(!cites_rule_id("1-9 actions"));
    }

    #[test]
    fn every_entry_is_on_exactly_one_page_and_pages_fit() {
        for &id in RulesetId::ALL {
            let all = entries(id);
            for size in [Vec2::new(1024.0, 640.0), Vec2::new(1920.0, 1080.0)] {
                let pages = pages(&all, size);
                let flat: Vec<usize> = pages.iter().flatten().copied().collect();
                assert_eq!(flat, (0..all.len()).collect::<Vec<_>>(), "{id} at {size}");
                assert!(pages.iter().all(|p| !p.is_empty()), "{id}: an empty page");
            }
            // A small window needs more pages than a large one.
            assert!(
                pages(&all, Vec2::new(1024.0, 640.0)).len()
                    >= pages(&all, Vec2::new(1920.0, 1080.0)).len()
            );
        }
    }
}
