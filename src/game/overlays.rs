//! Overlays on the board, from the same pure functions the engine uses: cells the acting unit
//! can reach with the cost to each (from the legal moving commands and the path
//! `rulesets::describe` gives them), the path to the cell under the cursor with the steps that
//! provoke marked by a warning sign, cells threatened by enemies (`threat_for`), line of sight
//! and cover from the acting unit to the cursor (`sight::sight_line`, `sight::cover`), and the
//! odds of attacking the unit under the cursor (`rulesets::odds`). Every layer has its own
//! pattern or icon as well as its colour (dots, hatching, brackets, a warning triangle), so
//! none relies on colour alone.

use bevy::prelude::*;
use bevy::sprite::Text2dShadow;

use super::Screen;
use super::art::{Art, Pattern, TileShape};
use super::battle::{Battle, Settings};
use super::board::{BoardLayout, Fogged, OnBoard};
use super::camera::BoardText;
use super::hud::{Targeting, View};
use super::input::CursorCell;
use super::labels::{BoardLabel, LabelKind, backing};
use super::menu::{self, group_of};
use crate::rules::battle::{BattleState, Command, UnitId};
use crate::rules::grid::{Cell, Topology};
use crate::rules::path::Path;
use crate::rules::rulesets;
use crate::rules::sight::{self, Cover};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        draw.in_set(super::AppSystems::Update)
            .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
    );
}

/// Which overlay `fray shot --overlay` forces, for which unit.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForcedOverlay {
    pub kind: OverlayKind,
    pub unit: UnitId,
}

/// The overlays `fray shot` can force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKind {
    /// Where the unit can move, with costs.
    Reach,
    /// Cells its enemies threaten.
    Threat,
    /// Its line of sight and the cover of every cell from it.
    Sight,
}

impl OverlayKind {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "reach" => OverlayKind::Reach,
            "threat" => OverlayKind::Threat,
            "sight" => OverlayKind::Sight,
            _ => return None,
        })
    }
}

/// An overlay entity (all are rebuilt when what they show changes).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    Reach,
    Threat,
    Target,
    Cursor,
    Path,
    Provokes,
    Sight,
    Label,
}

const REACH: Color = Color::srgba(0.35, 0.7, 1.0, 0.55);
/// The path preview's dots and the line between them.
const PATH: Color = Color::srgb(0.6, 0.85, 1.0);
/// Cells only a full move reaches ([`Layers::far`]): teal, a hue far from the threat's
/// orange. A violet (even a blue one) under the orange hatching read as one pink in play.
const REACH_FAR: Color = Color::srgba(0.15, 0.78, 0.68, 0.5);
const THREAT: Color = Color::srgba(0.95, 0.45, 0.1, 0.55);
const TARGET: Color = Color::srgba(1.0, 0.85, 0.25, 0.95);
const CURSOR: Color = Color::srgba(1.0, 1.0, 1.0, 0.9);

/// What the overlays show, computed from the view: everything is a pure function of it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Layers {
    /// Reachable cells and the cost to each.
    pub reach: Vec<(Cell, u32)>,
    /// What a reachable cell shows, when the move's cost in the ruleset's terms is a count of
    /// its own ("2AP" in `action-points`) rather than the path's movement cost.
    pub reach_text: Vec<(Cell, String)>,
    /// The cost labels drawn on reachable cells ([`cost_marks`]).
    pub cost_marks: Vec<(Cell, String)>,
    /// Reachable cells only a full move reaches, leaving the unit less to do than the nearer
    /// ones ([`crate::rules::rulesets::CommandInfo::dear`]): a full phase in `phases`, two moves
    /// in `sides`, a run in `segments`. Drawn in a second shade.
    pub far: Vec<Cell>,
    pub threat: Vec<Cell>,
    /// Cells of valid targets or destinations of the chosen group (or of attacks).
    pub targets: Vec<Cell>,
    /// The path to the cursor, if a move ends there.
    pub path: Option<Path>,
    /// Line of sight from the acting unit to the cursor: the segment in world space and the
    /// cover, or `None` when there is nothing to show.
    pub sight: Option<(Cell, Cell, Cover)>,
    /// Text near the cursor: cover, odds.
    pub label: Vec<String>,
    /// For `fray shot --overlay sight`: the cover of every cell from the unit.
    pub cover_map: Vec<(Cell, Cover)>,
}

/// A move's cost as a reachable cell shows it, when the ruleset counts it in a unit of its
/// own: "2 AP" and "2 AP (extended: 1 AP next turn)" give "2AP"; "Move action" gives `None`
/// (the cell shows the path's movement cost).
pub fn cost_count(cost: &str) -> Option<String> {
    let mut words = cost.split_whitespace();
    let n: u32 = words.next()?.parse().ok()?;
    let unit = words.next()?;
    (unit.len() <= 3 && unit.chars().all(|c| c.is_ascii_uppercase())).then(|| format!("{n}{unit}"))
}

/// The cost labels worth drawing on the reachable cells. A cost the ruleset counts in a unit
/// of its own ("1AP", [`Layers::reach_text`]) shows only where it rises: on the cells of a
/// dearer band that touch a cheaper one. The cheapest band says nothing (its cost is on the
/// menu's Move entry), so a board where every cell costs 1 AP stays readable. A path's
/// movement cost (no unit), different on every ring, shows only on the cell `pointed` at
/// (the end of the path shown): a number on every cell buried the board.
pub fn cost_marks(
    grid: &crate::rules::grid::Grid,
    reach: &[(Cell, u32)],
    reach_text: &[(Cell, String)],
    pointed: Option<Cell>,
) -> Vec<(Cell, String)> {
    let count = |t: &str| -> u32 {
        t.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    };
    let counted = |c: Cell| {
        reach_text
            .iter()
            .find(|(x, _)| *x == c)
            .map(|(_, t)| (count(t), t))
    };
    let cheapest = reach_text.iter().map(|(_, t)| count(t)).min();
    reach
        .iter()
        .filter_map(|&(c, cost)| match counted(c) {
            None => (pointed == Some(c)).then(|| (c, cost.to_string())),
            Some((n, t)) => {
                let rises = Some(n) != cheapest
                    && grid
                        .neighbours(c)
                        .any(|o| counted(o).is_some_and(|(m, _)| m < n));
                rises.then(|| (c, t.clone()))
            }
        })
        .collect()
}

/// The overlay layers for a state, its legal commands and the cursor.
pub fn layers(
    s: &BattleState,
    legal: &[menu::Described],
    acting: Option<UnitId>,
    cursor: Option<Cell>,
    group: Option<&str>,
    show_threat: bool,
) -> Layers {
    let mut out = Layers::default();
    let moving_group = |g: &str| g == group.unwrap_or("Move");
    for d in legal {
        let g = group_of(&d.command);
        if let Some(p) = &d.info.path
            && moving_group(&g)
            && let Some(c) = d.command.anchor().cell
            && !out.reach.iter().any(|(x, _)| *x == c)
        {
            out.reach.push((c, p.cost()));
            if d.info.dear {
                out.far.push(c);
            }
            if let Some(t) = cost_count(&d.info.cost) {
                out.reach_text.push((c, t));
            }
        }
        let is_target = match group {
            Some(gr) => g == gr && gr != "Move",
            None => matches!(d.command, Command::Attack { .. }),
        };
        if is_target
            && let Some(c) = d.command.anchor().board_cell(s)
            && !out.targets.contains(&c)
        {
            out.targets.push(c);
        }
    }
    if let Some(a) = acting
        && show_threat
    {
        let map = s.threat_for(a, |_| true);
        out.threat = s
            .grid()
            .cells()
            .filter(|c| map.get(*c) == Some(&true))
            .collect();
    }
    out.cost_marks = cost_marks(s.grid(), &out.reach, &out.reach_text, None);
    if let Some(c) = cursor {
        out.path = legal
            .iter()
            .filter(|d| moving_group(&group_of(&d.command)))
            .find(|d| d.command.anchor().cell == Some(c))
            .and_then(|d| d.info.path.clone());
        out.cost_marks = cost_marks(
            s.grid(),
            &out.reach,
            &out.reach_text,
            out.path.as_ref().map(|_| c),
        );
        if let Some(a) = acting.and_then(|a| s.unit(a).map(|u| (a, u)))
            && a.1.cell != c
            && s.grid().contains(c)
        {
            let cover = sight::cover(&s.terrain, a.1.cell, c);
            out.sight = Some((a.1.cell, c, cover));
            out.label.push(cover_words(cover).to_string());
            if let Some(t) = s.unit_at(c)
                && s.are_enemies(a.0, t)
            {
                for ranged in [false, true] {
                    let cmd = Command::Attack {
                        unit: a.0,
                        target: t,
                        ranged,
                    };
                    // While the player decides, only the attacks open to the unit now.
                    if !legal.is_empty() && !legal.iter().any(|d| d.command == cmd) {
                        continue;
                    }
                    if let Some(o) = rulesets::odds(s, a.0, t, ranged) {
                        out.label.push(format!(
                            "{} {:.0}% / {:.1} dmg",
                            if ranged { "Shoot" } else { "Hit" },
                            o.hit * 100.0,
                            o.expected_damage
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The layers `fray shot --overlay` shows for `unit`, whoever's turn it is: computed with the
/// engine's movement, threat and cover functions directly.
pub fn forced_layers(s: &BattleState, f: ForcedOverlay) -> Layers {
    let mut out = Layers::default();
    let Some(u) = s.unit(f.unit) else {
        return out;
    };
    match f.kind {
        OverlayKind::Reach => {
            let threat = s.threat_for(f.unit, |_| true);
            let reach = s.reach_of(f.unit, u.movement, Some(&threat));
            out.reach = reach
                .destinations()
                .into_iter()
                .filter(|(c, _)| *c != u.cell)
                .collect();
            // The path to the farthest cell, to show a preview too.
            out.path = out
                .reach
                .iter()
                .max_by_key(|(c, cost)| (*cost, c.x, c.y))
                .and_then(|(c, _)| reach.path_to(*c));
        }
        OverlayKind::Threat => {
            let map = s.threat_for(f.unit, |_| true);
            out.threat = s
                .grid()
                .cells()
                .filter(|c| map.get(*c) == Some(&true))
                .collect();
        }
        OverlayKind::Sight => {
            out.cover_map = s
                .grid()
                .cells()
                .filter(|c| *c != u.cell && s.terrain.passable(*c))
                .map(|c| (c, sight::cover(&s.terrain, u.cell, c)))
                .collect();
            // The line to the nearest enemy it sees.
            let enemy = s
                .enemies_of(f.unit)
                .into_iter()
                .filter_map(|e| s.unit(e))
                .filter(|e| sight::line_of_sight(&s.terrain, u.cell, e.cell))
                .min_by_key(|e| s.grid().distance(u.cell, e.cell));
            if let Some(e) = enemy {
                let cover = sight::cover(&s.terrain, u.cell, e.cell);
                out.sight = Some((u.cell, e.cell, cover));
            }
        }
    }
    out
}

/// Cover in words.
pub fn cover_words(c: Cover) -> &'static str {
    match c {
        Cover::None => "in sight, no cover",
        Cover::Half => "half cover",
        Cover::Full => "full cover",
        Cover::Blocked => "no line of sight",
    }
}

/// The world position of a sight point drawn on `cell`'s board.
fn sight_point(layout: &BoardLayout, cell: Cell, p: sight::Point) -> Option<Vec2> {
    let grid = layout.grid;
    let centre = layout.cell_center(cell)?;
    let c = sight::centre(&grid, cell).to_grid_f32(&grid);
    let q = p.to_grid_f32(&grid);
    let unit = match grid.topology {
        Topology::Square { .. } => layout.tile_size.x,
        Topology::Hex { .. } => layout.tile_size.x.max(layout.tile_size.y) / 2.0,
    };
    Some(centre + Vec2::new(q[0] - c[0], -(q[1] - c[1])) * unit)
}

#[allow(clippy::too_many_arguments)]
fn draw(
    mut commands: Commands,
    battle: Res<Battle>,
    view: Res<View>,
    cursor: Res<CursorCell>,
    targeting: Res<Targeting>,
    settings: Res<Settings>,
    forced: Option<Res<ForcedOverlay>>,
    art: Res<Art>,
    fogged: Res<Fogged>,
    existing: Query<Entity, With<Overlay>>,
    mut last: Local<Option<(Layers, Option<Cell>)>>,
) {
    let Some(state) = view.state.as_ref() else {
        return;
    };
    let animating = !battle.queue.is_empty();
    // Nothing about the pointed cell shows through the reaction dialog.
    let dialog = view.can_act()
        && matches!(
            battle.state.pending(),
            crate::rules::battle::Decision::React { .. }
        );
    let pointed = cursor.0.filter(|_| !dialog);
    let layers = match forced.as_deref() {
        Some(f) => forced_layers(state, *f),
        None if animating => Layers::default(),
        None => {
            let acting = view.acting.filter(|_| view.can_act()).or(view.acting);
            layers(
                state,
                &view.legal,
                acting,
                pointed,
                targeting.group.as_deref(),
                settings.show_threat,
            )
        }
    };
    let key = Some((layers.clone(), pointed));
    // Unchanged and still drawn (the battle screen built anew, back from Settings, has none).
    if *last == key && !existing.is_empty() && !fogged.is_changed() {
        return;
    }
    *last = key;
    for e in &existing {
        commands.entity(e).despawn();
    }
    let layout = BoardLayout::new(*state.grid());
    let shape = TileShape::of(state.grid().topology);
    let tile = Vec2::new(layout.tile_size.x, layout.tile_size.y);
    let size = tile.x.min(tile.y);
    let cell_sprite = |pattern: Pattern, colour: Color| Sprite {
        image: art.pattern(pattern, shape),
        color: colour,
        custom_size: Some(tile),
        ..default()
    };
    let spawn = |commands: &mut Commands, kind: Overlay, at: Vec2, z: f32, b: (Sprite,)| {
        commands.spawn((
            kind,
            OnBoard,
            DespawnOnExit(Screen::Battle),
            b.0,
            Transform::from_translation(at.extend(z)),
        ));
    };
    let half = tile / 2.0;
    let label = |commands: &mut Commands,
                 kind: Overlay,
                 anchor: Rect,
                 place: LabelKind,
                 z: f32,
                 t: String,
                 px: f32,
                 c: Color| {
        let t = menu::ascii(&t);
        commands
            .spawn((
                kind,
                OnBoard,
                BoardText,
                BoardLabel {
                    anchor,
                    kind: place,
                },
                DespawnOnExit(Screen::Battle),
                Text2d::new(t.clone()),
                TextFont {
                    font_size: FontSize::Px(px),
                    ..default()
                },
                TextColor(c),
                Text2dShadow {
                    offset: Vec2::new(1.0, -1.0),
                    color: Color::srgba(0.0, 0.0, 0.0, 0.95),
                },
                Transform::from_translation(anchor.center().extend(z)),
            ))
            .with_child(backing(art.pixel.clone(), &t, px))
            .id()
    };
    // The threat's hatching lies over the reach's fill: under it, the stripes took the fill's
    // tint, and a full-move cell a foe threatens read as one pink.
    for c in &layers.threat {
        if let Some(p) = layout.cell_center(*c) {
            spawn(
                &mut commands,
                Overlay::Threat,
                p,
                1.6,
                (cell_sprite(Pattern::Threat, fogged.shade(*c, THREAT)),),
            );
        }
    }
    for (c, _) in &layers.reach {
        if let Some(p) = layout.cell_center(*c) {
            let colour = if layers.far.contains(c) {
                REACH_FAR
            } else {
                REACH
            };
            spawn(
                &mut commands,
                Overlay::Reach,
                p,
                1.5,
                (cell_sprite(Pattern::Reach, fogged.shade(*c, colour)),),
            );
            if let Some((_, text)) = layers.cost_marks.iter().find(|(x, _)| x == c) {
                label(
                    &mut commands,
                    Overlay::Label,
                    Rect::from_center_half_size(p, half),
                    LabelKind::Cost,
                    3.0,
                    text.clone(),
                    size * 0.2,
                    Color::srgb(0.85, 0.95, 1.0),
                );
            }
        }
    }
    for (c, cover) in &layers.cover_map {
        if let Some(p) = layout.cell_center(*c) {
            let (pattern, colour, mark) = match cover {
                Cover::None => (Pattern::Reach, Color::srgba(0.3, 0.8, 0.4, 0.45), ""),
                Cover::Half => (Pattern::Threat, Color::srgba(0.95, 0.8, 0.2, 0.6), "1/2"),
                Cover::Full => (Pattern::Target, Color::srgba(0.95, 0.45, 0.1, 0.9), "F"),
                Cover::Blocked => (Pattern::Threat, Color::srgba(0.1, 0.1, 0.15, 0.7), "X"),
            };
            spawn(
                &mut commands,
                Overlay::Sight,
                p,
                1.2,
                (cell_sprite(pattern, colour),),
            );
            if !mark.is_empty() {
                label(
                    &mut commands,
                    Overlay::Label,
                    Rect::from_center_half_size(p, half),
                    LabelKind::Cost,
                    3.0,
                    mark.into(),
                    size * 0.22,
                    Color::WHITE,
                );
            }
        }
    }
    for c in &layers.targets {
        if let Some(p) = layout.cell_center(*c) {
            spawn(
                &mut commands,
                Overlay::Target,
                p,
                2.0,
                (cell_sprite(Pattern::Target, TARGET),),
            );
        }
    }
    if let Some(path) = &layers.path {
        for step in &path.steps {
            // A line from cell to cell with a dot on each cell entered: dots alone, a fifth
            // of a cell wide, were hard to follow at 1024x640.
            if let (Some(a), Some(b)) = (layout.cell_center(step.from), layout.cell_center(step.to))
                && a != b
            {
                let along = b - a;
                commands.spawn((
                    Overlay::Path,
                    OnBoard,
                    DespawnOnExit(Screen::Battle),
                    Sprite {
                        image: art.pixel.clone(),
                        color: PATH.with_alpha(0.8),
                        custom_size: Some(Vec2::new(along.length(), (size * 0.07).max(2.0))),
                        ..default()
                    },
                    Transform::from_translation(((a + b) / 2.0).extend(3.9))
                        .with_rotation(Quat::from_rotation_z(along.to_angle())),
                ));
            }
            if let Some(p) = layout.cell_center(step.to) {
                spawn(
                    &mut commands,
                    Overlay::Path,
                    p,
                    4.0,
                    (Sprite {
                        image: art.dot.clone(),
                        color: PATH,
                        custom_size: Some(Vec2::splat(size * 0.26)),
                        ..default()
                    },),
                );
            }
            if step.leaves_threat
                && let Some(p) = layout.cell_center(step.from)
            {
                spawn(
                    &mut commands,
                    Overlay::Provokes,
                    p + Vec2::new(size * 0.25, -size * 0.2),
                    4.5,
                    (Sprite {
                        image: art.warning.clone(),
                        color: Color::srgb(1.0, 0.6, 0.1),
                        custom_size: Some(Vec2::splat(size * 0.34)),
                        ..default()
                    },),
                );
            }
        }
    }
    if let Some((from, to, cover)) = layers.sight {
        let line = sight::sight_line(&state.terrain, from, to)
            .and_then(|(a, b)| Some((sight_point(&layout, from, a)?, sight_point(&layout, to, b)?)))
            .or_else(|| Some((layout.cell_center(from)?, layout.cell_center(to)?)));
        if let Some((a, b)) = line {
            let blocked = cover == Cover::Blocked;
            let colour = match cover {
                Cover::None => Color::srgba(0.6, 1.0, 0.6, 0.9),
                Cover::Half => Color::srgba(1.0, 0.9, 0.3, 0.9),
                Cover::Full => Color::srgba(1.0, 0.55, 0.2, 0.9),
                Cover::Blocked => Color::srgba(0.7, 0.7, 0.75, 0.7),
            };
            // Solid for a clear line, dashed when blocked.
            let len = a.distance(b);
            let dir = (b - a).normalize_or_zero();
            let angle = dir.y.atan2(dir.x);
            let pieces: Vec<(f32, f32)> = if blocked {
                let dash = size * 0.18;
                (0..((len / (2.0 * dash)) as usize + 1))
                    .map(|i| {
                        (
                            i as f32 * 2.0 * dash,
                            (i as f32 * 2.0 * dash + dash).min(len),
                        )
                    })
                    .filter(|(s, e)| e > s)
                    .collect()
            } else {
                vec![(0.0, len)]
            };
            for (s0, s1) in pieces {
                let mid = a + dir * (s0 + s1) / 2.0;
                commands.spawn((
                    Overlay::Sight,
                    OnBoard,
                    DespawnOnExit(Screen::Battle),
                    Sprite {
                        image: art.pixel.clone(),
                        color: colour,
                        custom_size: Some(Vec2::new(s1 - s0, 3.0)),
                        ..default()
                    },
                    Transform::from_translation(mid.extend(4.2))
                        .with_rotation(Quat::from_rotation_z(angle)),
                ));
            }
        }
    }
    if let Some(c) = pointed
        && forced.is_none()
        && let Some(p) = layout.cell_center(c)
    {
        spawn(
            &mut commands,
            Overlay::Cursor,
            p,
            5.0,
            (cell_sprite(Pattern::Cursor, CURSOR),),
        );
        if !layers.label.is_empty() {
            // Beside the cell, clear of tokens and other labels (`labels::place`).
            label(
                &mut commands,
                Overlay::Label,
                Rect::from_center_half_size(p, half),
                LabelKind::Cursor,
                20.0,
                layers.label.join("\n"),
                size * 0.2,
                Color::srgb(1.0, 0.95, 0.8),
            );
        }
    }
}
