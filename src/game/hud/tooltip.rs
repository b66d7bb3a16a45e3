//! The tooltip on the pointed-at cell: the unit there (health, conditions, the acting unit's
//! odds against it), the terrain, and distance and cover from the acting unit.

use bevy::prelude::*;

use super::{DEFAULT_WINDOW, HudLayout, HudSystems, InputBlocked, View, if_answered};
use crate::game::Screen;
use crate::game::battle::Battle;
use crate::game::input::CursorCell;
use crate::game::menu::Described;
use crate::game::ui;
use crate::game::units::{health_text, pool_parts};
use crate::rules::battle::{BattleState, Command, Decision, Status, UnitId};
use crate::rules::fog;
use crate::rules::grid::Cell;
use crate::rules::rulesets;
use crate::rules::sight::{self, Cover};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, tooltip.in_set(HudSystems::Panels));
}

/// The tooltip panel.
#[derive(Component)]
pub struct Tooltip;

/// Spawns the (hidden) tooltip.
pub(super) fn spawn(commands: &mut Commands) {
    let (left, _, _, bottom) = HudLayout::for_window(DEFAULT_WINDOW).insets();
    commands.spawn((
        Name::new("Tooltip"),
        Tooltip,
        DespawnOnExit(Screen::Battle),
        Node {
            position_type: PositionType::Absolute,
            left: px(left + 8.0),
            bottom: px(bottom + 8.0),
            flex_direction: FlexDirection::Column,
            padding: UiRect::all(px(6)),
            max_width: px(340),
            border_radius: BorderRadius::all(px(4)),
            ..default()
        },
        BackgroundColor(Color::srgba(0.05, 0.05, 0.07, 0.92)),
        Visibility::Hidden,
        ZIndex(5),
    ));
}

/// What the tooltip says about a cell and the unit on it.
///
/// `legal` is the player's legal commands while they decide: then only the attacks open to the
/// acting unit now have odds, and the others say why not. `None` (not the player's decision):
/// the odds of every attack, for information.
pub fn tooltip_lines(
    s: &BattleState,
    acting: Option<UnitId>,
    cell: crate::rules::grid::Cell,
    legal: Option<&[Described]>,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(terrain) = s.terrain.terrain(cell) else {
        return out;
    };
    // A unit that fled left the map: the cell it left by does not hold it.
    let here = |u: UnitId| !rulesets::fled(s, u);
    if let Some(uid) = s.unit_at(cell).filter(|&u| here(u)).or_else(|| {
        s.unit_ids()
            .find(|&u| s.units[u.index()].cell == cell && fog::drawn(s, u) && here(u))
    }) && let Some(u) = s.unit(uid)
    {
        let template = s
            .ruleset()
            .and_then(|r| r.template(&u.template))
            .map_or(u.template.to_string(), |t| t.name.clone());
        let side = s.sides.get(u.side.index()).map_or("?", |x| x.name.as_str());
        if s.fog.as_ref().is_some_and(|k| k.is_ghost(uid)) {
            // A fogged view's foe out of sight: drawn where it was last seen, and nothing of
            // its state now is told (whether it still stands is not known).
            out.push(format!("{} - {template} ({side})", u.name));
            out.push("Out of sight: last seen here".to_string());
            return out;
        }
        let fallen = match u.status {
            Status::Active => "",
            Status::Down => ", down",
            Status::Dead => ", dead",
        };
        out.push(format!("{} - {template} ({side}){fallen}", u.name));
        // The gauges on a line, the counters ("reactions left 1") on the next.
        let (gauges, counters) = pool_parts(u);
        match (gauges.is_empty(), counters.is_empty()) {
            (true, true) => out.push(health_text(u)),
            (false, true) => out.push(gauges),
            (true, false) => out.push(counters),
            (false, false) => out.extend([gauges, counters]),
        }
        if rulesets::broken(s, uid) {
            out.push("Fleeing: it runs for the map's edge".to_string());
        } else if let Some(m) = morale_words(u) {
            out.push(m);
        }
        if !u.conditions.is_empty() {
            let c: Vec<String> = u
                .conditions
                .iter()
                .map(|c| crate::game::units::condition_name(s, c))
                .collect();
            out.push(format!("Conditions: {}", c.join(", ")));
            // What each does, from the rules reference (F1 shows the same words).
            for c in &u.conditions {
                if let Some(e) = crate::rules::reference::for_condition(s.rules.id(), c) {
                    out.push(format!("  {}: {}", e.title(), e.text));
                }
            }
        }
        if !u.items.is_empty() {
            out.push(format!("Carries: {}", carried_words(s, u)));
        }
        if let Some(a) = acting
            && a != uid
            && s.are_enemies(a, uid)
        {
            for ranged in [false, true] {
                let Some(o) = rulesets::odds(s, a, uid, ranged) else {
                    continue;
                };
                let verb = if ranged { "Shoot" } else { "Attack" };
                let cmd = Command::Attack {
                    unit: a,
                    target: uid,
                    ranged,
                };
                match legal {
                    Some(legal) if !legal.iter().any(|d| d.command == cmd) => {
                        let why = s.check(&cmd).err().map_or_else(
                            || "not open now".to_string(),
                            |r| format!("not now: {r}"),
                        );
                        out.push(format!("{verb} from {}: {why}", s.unit_name(a)));
                    }
                    _ => out.push(format!(
                        "{verb} from {}: {:.0}% to hit, {:.1} expected damage ({}){}",
                        s.unit_name(a),
                        o.hit * 100.0,
                        o.expected_damage,
                        o.formula,
                        if_answered(s, a, uid, ranged),
                    )),
                }
            }
        }
    }
    let cost = match terrain.cost {
        Some(c) => format!("entering costs {c}"),
        None => "impassable".into(),
    };
    let door = match terrain.door {
        Some(crate::rules::map::Door::Closed) => " (shut: a unit next to it may open it)",
        Some(crate::rules::map::Door::Open) => " (open: a unit next to it may shut it)",
        Some(crate::rules::map::Door::Locked) => " (locked)",
        None => "",
    };
    let height = match s.terrain.height(cell) {
        _ if s.terrain.is_flat() || terrain.cost.is_none() => String::new(),
        0 => ", ground level".to_string(),
        1 => ", 1 level up (climbing it costs 1 more)".to_string(),
        h => format!(", {h} levels up"),
    };
    out.push(format!(
        "{}{door} {cell}: {cost}{}{height}",
        terrain.name,
        if terrain.difficult { ", difficult" } else { "" }
    ));
    let lying = s.items_at(cell);
    if !lying.is_empty() {
        let names: Vec<String> = lying.iter().map(|i| s.item_name(i)).collect();
        out.push(format!(
            "On the ground: {}{}",
            names.join(", "),
            if s.heavy_at(cell) {
                " (heavy: no one may enter; shift it)"
            } else {
                ""
            }
        ));
    }
    if let (Some(a), Some(legal)) = (acting, legal) {
        out.extend(move_lines(s, a, cell, legal));
    }
    if let Some(a) = acting.and_then(|a| s.unit(a))
        && a.cell != cell
    {
        let cover = match sight::cover(&s.terrain, a.cell, cell) {
            Cover::None => "no cover",
            Cover::Half => "half cover",
            Cover::Full => "full cover",
            Cover::Blocked => "out of sight",
        };
        out.push(format!(
            "From {}: distance {}, {cover}",
            a.name,
            s.grid().distance(a.cell, cell)
        ));
    }
    out
}

/// What moving `unit` to `cell` costs, if one of the `legal` commands moves it there (the
/// plain Move first): "Move here: 2 AP", "Move here: full phase (a full move)"; and where the
/// path leaves a foe's reach (the mark on the path), who may strike and at what odds.
fn move_lines(s: &BattleState, unit: UnitId, cell: Cell, legal: &[Described]) -> Vec<String> {
    let moves = |d: &&Described| d.command.destination() == Some((unit, cell));
    let Some(d) = legal
        .iter()
        .filter(moves)
        .find(|d| matches!(d.command, Command::Move { .. }))
        .or_else(|| legal.iter().find(moves))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let cost = if d.info.cost.is_empty() {
        d.info
            .path
            .as_ref()
            .map_or(String::new(), |p| format!("{} movement", p.cost()))
    } else {
        d.info.cost.clone()
    };
    let verb = d.info.label.split(" to ").next().unwrap_or("Move");
    // "full phase" says it already; "2 moves" does not.
    let full = d.info.dear && !cost.contains("full");
    out.push(format!(
        "{verb} here: {cost}{}",
        if full { " (a full move)" } else { "" }
    ));
    let Some(step) = d
        .info
        .path
        .as_ref()
        .and_then(|p| p.steps.iter().find(|st| st.leaves_threat))
    else {
        return out;
    };
    let foes: Vec<String> = s
        .unit_ids()
        .filter(|&f| {
            s.are_enemies(unit, f)
                && fog::drawn(s, f)
                && s.unit(f).is_some_and(|u| {
                    u.is_active()
                        && crate::rules::threat::melee_reaches(
                            &s.terrain, u.cell, u.reach, step.from,
                        )
                })
        })
        .map(|f| match rulesets::odds(s, f, unit, false) {
            Some(o) => format!("{} ({:.0}% to hit)", s.unit_name(f), o.hit * 100.0),
            None => s.unit_name(f).to_string(),
        })
        .collect();
    out.push(format!(
        "! Leaving {} may provoke an attack{}",
        step.from,
        if foes.is_empty() {
            String::new()
        } else {
            format!(" from {}", foes.join(", "))
        }
    ));
    out
}

/// Whether the tooltip may show now: something is pointed at, no dialog, pause or hand-over
/// screen is up, and no event is being animated (the board is about to change under it).
pub fn tooltip_allowed(battle: &Battle, view: &View, blocked: bool, cursor: Option<Cell>) -> bool {
    let dialog = view.can_act() && matches!(battle.state.pending(), Decision::React { .. });
    cursor.is_some() && !blocked && !dialog && battle.queue.is_empty()
}

/// Where the tooltip's top-left corner goes, in window pixels (y down): beside the hovered
/// cell `cell` (right, left, below, above, then the corners, in that order of preference),
/// inside `bounds`, and over none of `avoid` (the acting unit's cell...) nor the hovered cell
/// itself. If every side is blocked, the side covering the least of them.
///
/// `rather_not` (other tokens, the labels on the board, the path preview: [`path_marks`]) are
/// avoided when a place clear of them exists, but never at the price of covering the cell or
/// `avoid`. Beside a crowd of tokens the sides slide along the cell (up and down on the right and left, sideways above and below)
/// and step one cell further out, and last come the four corners of `bounds`: a tooltip a
/// little off the pointer is better than one over a token the player is looking at.
pub fn place_tooltip(
    size: Vec2,
    cell: Rect,
    avoid: &[Rect],
    rather_not: &[Rect],
    bounds: Rect,
) -> Vec2 {
    const GAP: f32 = 6.0;
    let mid = cell.center();
    let beside = [
        Vec2::new(cell.max.x + GAP, mid.y - size.y / 2.0),
        Vec2::new(cell.min.x - GAP - size.x, mid.y - size.y / 2.0),
        Vec2::new(mid.x - size.x / 2.0, cell.max.y + GAP),
        Vec2::new(mid.x - size.x / 2.0, cell.min.y - GAP - size.y),
        Vec2::new(cell.max.x + GAP, cell.max.y + GAP),
        Vec2::new(cell.min.x - GAP - size.x, cell.max.y + GAP),
        Vec2::new(cell.max.x + GAP, cell.min.y - GAP - size.y),
        Vec2::new(cell.min.x - GAP - size.x, cell.min.y - GAP - size.y),
    ];
    // Slid along the cell and stepped a cell further out, nearest first.
    let (w, h) = (cell.width().max(1.0), cell.height().max(1.0));
    let mut slid = Vec::new();
    for out in [0.0, 1.0] {
        for k in [0.5, -0.5, 1.0, -1.0, 1.5, -1.5] {
            let (dx, dy) = (k * size.x / 2.0, k * size.y / 2.0);
            slid.extend([
                beside[0] + Vec2::new(out * w, dy),
                beside[1] + Vec2::new(-out * w, dy),
                beside[2] + Vec2::new(dx, out * h),
                beside[3] + Vec2::new(dx, -out * h),
            ]);
        }
    }
    let corners = [
        bounds.min,
        Vec2::new(bounds.max.x - size.x, bounds.min.y),
        Vec2::new(bounds.min.x, bounds.max.y - size.y),
        bounds.max - size,
    ];
    let candidates = beside.into_iter().chain(slid).chain(corners);
    let clamp = |p: Vec2| {
        let max = (bounds.max - size).max(bounds.min);
        p.clamp(bounds.min, max)
    };
    let area = |r: Rect, a: &Rect| {
        let i = r.intersect(*a);
        if i.is_empty() {
            0.0
        } else {
            i.width() * i.height()
        }
    };
    let covered = |p: Vec2| {
        let r = Rect::from_corners(p, p + size);
        let hard: f32 = std::iter::once(&cell)
            .chain(avoid)
            .map(|a| area(r, a))
            .sum();
        let soft: f32 = rather_not.iter().map(|a| area(r, a)).sum();
        hard * 1.0e4 + soft
    };
    let mut best: Option<(f32, Vec2)> = None;
    for c in candidates {
        let p = clamp(c);
        let k = covered(p);
        if k <= 0.0 {
            return p;
        }
        if best.is_none_or(|(b, _)| k < b) {
            best = Some((k, p));
        }
    }
    best.map_or(bounds.min, |(_, p)| p)
}

/// A unit's nerve where its ruleset checks morale (`sides`' house rule: the stats `morale`,
/// `fearless` and `leader`): "Leader; morale 8 (breaks on 2d6 over 8)". `None` where the
/// unit has none of them.
fn morale_words(u: &crate::rules::battle::Unit) -> Option<String> {
    let leader = u.stat("leader") > 0;
    let nerve = if u.stat("fearless") > 0 {
        "fearless: never flees".to_string()
    } else if u.stat("morale") > 0 {
        let m = u.stat("morale");
        format!("morale {m} (in a morale check, breaks on 2d6 over {m})")
    } else if leader {
        String::new()
    } else {
        return None;
    };
    Some(match (leader, nerve.is_empty()) {
        (true, true) => "Leader: its side checks morale if it falls".to_string(),
        (true, false) => format!("Leader: its side checks morale if it falls; {nerve}"),
        (false, _) => format!("{}{}", nerve[..1].to_uppercase(), &nerve[1..]),
    })
}

/// The tooltip's size in logical pixels, as laid out: its width ([`tooltip_width`]) and a
/// line of 16 px for each line of text, wrapped lines counted.
pub fn tooltip_size(lines: &[String]) -> Vec2 {
    let w = tooltip_width(lines);
    let per_line = (((w - 16.0) / (13.0 * 0.6)).floor() as usize).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.chars().count().div_ceil(per_line).max(1))
        .sum();
    Vec2::new(w, rows as f32 * 16.0 + 12.0)
}

#[allow(clippy::too_many_arguments)]
fn tooltip(
    mut commands: Commands,
    view: Res<View>,
    battle: Res<Battle>,
    cursor: Res<CursorCell>,
    blocked: Res<InputBlocked>,
    settings: Res<crate::game::battle::Settings>,
    ui: Option<Res<UiScale>>,
    tip: Query<(Entity, &mut Node, &mut Visibility), With<Tooltip>>,
    cameras: Query<(&Camera, &GlobalTransform), With<crate::game::camera::MainCamera>>,
    boards: Query<&crate::game::board::BoardGrid>,
    tokens: Query<&GlobalTransform, With<crate::game::units::UnitToken>>,
    overlays: Query<(&crate::game::overlays::Overlay, &GlobalTransform)>,
    labels: Query<(
        &crate::game::labels::BoardLabel,
        &Text2d,
        &TextFont,
        &GlobalTransform,
    )>,
    mut last: Local<String>,
) {
    let Ok((entity, mut node, mut vis)) = tip.single_inner() else {
        return;
    };
    let hide = |vis: &mut Visibility| {
        if *vis != Visibility::Hidden {
            *vis = Visibility::Hidden;
        }
    };
    let (Some(state), Some(cell)) = (&view.state, cursor.0) else {
        hide(&mut vis);
        return;
    };
    if !tooltip_allowed(&battle, &view, blocked.0, cursor.0) {
        hide(&mut vis);
        return;
    }
    let lines = tooltip_lines_now(state, view.acting, cell, &view);
    if lines.is_empty() {
        hide(&mut vis);
        return;
    }
    *vis = Visibility::Inherited;
    // Beside the cell when there is a camera to place it with, covering neither the cell nor
    // the acting unit.
    if let (Ok((camera, global)), Some(grid)) = (cameras.single(), boards.iter().next()) {
        let layout = crate::game::board::BoardLayout::new(grid.0);
        let half = Vec2::new(layout.tile_size.x, layout.tile_size.y) / 2.0;
        let on_screen = |c: Cell| {
            let centre = layout.cell_center(c)?;
            let a = camera
                .world_to_viewport(global, (centre - half).extend(0.0))
                .ok()?;
            let b = camera
                .world_to_viewport(global, (centre + half).extend(0.0))
                .ok()?;
            Some(Rect::from_corners(a, b))
        };
        if let Some(rect) = on_screen(cell)
            && let Some(window) = camera.logical_viewport_size()
        {
            let mut avoid: Vec<Rect> = view
                .acting
                .and_then(|a| state.unit(a))
                .and_then(|u| on_screen(u.cell))
                .into_iter()
                .collect();
            let layout_here = HudLayout::for_window_scaled(window, super::ui_scale(ui.as_deref()))
                .folded(settings.collapsed);
            let board = layout_here.board();
            let to_screen = |world: Rect| {
                let a = camera
                    .world_to_viewport(global, world.min.extend(0.0))
                    .ok()?;
                let b = camera
                    .world_to_viewport(global, world.max.extend(0.0))
                    .ok()?;
                Some(Rect::from_corners(a, b))
            };
            let tile = Vec2::new(layout.tile_size.x, layout.tile_size.y);
            let path = overlays
                .iter()
                .filter(|(o, _)| **o == crate::game::overlays::Overlay::Path)
                .map(|(_, at)| at.translation().truncate());
            let rather_not: Vec<Rect> = tokens
                .iter()
                .filter_map(|t| to_screen(Rect::from_center_size(t.translation().truncate(), tile)))
                .chain(path_marks(path, tile).filter_map(to_screen))
                .chain(labels.iter().filter_map(|(l, text, font, at)| {
                    let FontSize::Px(px) = font.font_size else {
                        return None;
                    };
                    let scale = at.scale().x;
                    (l.kind != crate::game::labels::LabelKind::Cost && scale > 0.0).then_some(())?;
                    to_screen(Rect::from_center_size(
                        at.translation().truncate(),
                        crate::game::labels::text_size(&text.0, px) * scale,
                    ))
                }))
                .collect();
            // The cursor's own label ("in sight, no cover / Hit 38%") is never covered: it
            // says what the tooltip's pointer is about.
            avoid.extend(labels.iter().filter_map(|(l, text, font, at)| {
                let FontSize::Px(px) = font.font_size else {
                    return None;
                };
                let scale = at.scale().x;
                (l.kind == crate::game::labels::LabelKind::Cursor && scale > 0.0).then_some(())?;
                to_screen(Rect::from_center_size(
                    at.translation().truncate(),
                    crate::game::labels::text_size(&text.0, px) * scale,
                ))
            }));
            let bounds = if board.width() > 200.0 && board.height() > 120.0 {
                board
            } else {
                Rect::from_corners(Vec2::ZERO, window)
            };
            // Placed in window pixels; the node's position is in UI units.
            let k = layout_here.scale;
            let at = place_tooltip(tooltip_size(&lines) * k, rect, &avoid, &rather_not, bounds);
            node.left = px(at.x / k);
            node.top = px(at.y / k);
            node.right = Val::Auto;
            node.bottom = Val::Auto;
        }
    }
    // A width the lines fit in: left to itself, a box placed by its right edge was sized for
    // unwrapped text and a wrapped last line fell out of it.
    let w = px(tooltip_width(&lines));
    if node.width != w {
        node.width = w;
    }
    let key = lines.join("\n");
    if *last == key {
        return;
    }
    *last = key;
    commands
        .entity(entity)
        .despawn_children()
        .with_children(|p| {
            for (i, l) in lines.iter().enumerate() {
                p.spawn(ui::text(
                    l,
                    13.0,
                    if i == 0 { ui::ACCENT } else { ui::TEXT },
                ));
            }
        });
}

/// The board boxes of the path preview the tooltip keeps off when it can (its `rather_not`):
/// a box half a cell wide around each of the path's dots and joining lines (`at`, world
/// positions), so the way the unit will walk stays in sight beside the cell it leads to.
pub fn path_marks(at: impl Iterator<Item = Vec2>, tile: Vec2) -> impl Iterator<Item = Rect> {
    at.map(move |p| Rect::from_center_size(p, tile * 0.5))
}

/// The tooltip's lines for the player looking now: [`tooltip_lines`], with the acting unit's
/// odds only when the player may order that attack now.
fn tooltip_lines_now(
    s: &BattleState,
    acting: Option<UnitId>,
    cell: Cell,
    view: &View,
) -> Vec<String> {
    let legal = view.can_act().then_some(view.legal.as_slice());
    tooltip_lines(s, acting, cell, legal)
}

/// The tooltip's width in logical pixels: its longest line in the HUD's monospace font at 13
/// px (0.6 em a character) and its padding, at most 340 (longer lines wrap).
pub fn tooltip_width(lines: &[String]) -> f32 {
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (longest as f32 * 13.0 * 0.6 + 16.0).clamp(40.0, 340.0)
}

/// What a unit carries, in words: "crossbow (in hand, 0/1 loaded), dagger (at the belt)".
pub fn carried_words(s: &BattleState, u: &crate::rules::battle::Unit) -> String {
    u.items
        .iter()
        .map(|c| {
            let ammo = s.item_def(&c.item).map_or(0, |d| d.ammo);
            let loaded = if ammo > 0 {
                format!(", {}/{ammo} loaded", c.loaded)
            } else {
                String::new()
            };
            let at = match c.at {
                crate::rules::battle::Place::Hand => "in hand",
                crate::rules::battle::Place::Belt => "at the belt",
                crate::rules::battle::Place::Pack => "in the pack",
            };
            format!("{} ({at}{loaded})", s.item_name(&c.item))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Ada (CV 10) next to Bo, both swordsmen, on a `phases` hex field: an attack Bo may answer
/// by aborting to Dodge, Block or Roll With A Punch (the tests' example of answered odds).
#[cfg(test)]
pub(crate) fn ada_and_bo() -> crate::rules::level::Level {
    crate::rules::testkit::Field::new(crate::rules::rulesets::RulesetId::Phases)
        .topology("Hex(orientation: Pointy)")
        .sides(r#"(name: "Heroes", controller: Human), (name: "Blades", controller: Ai)"#)
        .units(
            r#"
            (name: "Ada", side: "Heroes", cell: (2, 2), template: "swordsman", overrides: {"cv": 10}),
            (name: "Bo", side: "Blades", cell: (3, 2), template: "swordsman"),
            "#,
        )
        .level()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit's conditions are explained with the rules reference's words.
    #[test]
    fn the_tooltip_explains_each_condition_as_the_rules_reference_does() {
        use crate::rules::battle::Condition;
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let (mut b, _) = BattleState::start(&level, 1);
        let u = b.unit_ids().next().expect("a unit");
        b.units[u.index()].conditions.insert(Condition::Prone);
        let lines = tooltip_lines(&b, None, b.units[u.index()].cell, None);
        let entry = crate::rules::reference::for_condition(b.rules.id(), &Condition::Prone)
            .expect("phases explains Prone");
        assert!(
            lines.contains(&format!("  Prone: {}", entry.text)),
            "{lines:?}"
        );
    }

    /// Under fog, a foe out of sight is told as last seen, and nothing of its state now: not
    /// even that it has fallen since.
    #[test]
    fn a_foe_out_of_sight_is_told_as_last_seen_and_no_more() {
        use crate::rules::battle::SideId;
        let level = crate::rules::battle::tests::load("segments_dark_crypt.ron");
        let (mut b, _) = BattleState::start(&level, 1);
        let fang = b
            .unit_ids()
            .find(|&u| &*b.units[u.index()].name == "Fang")
            .expect("Fang");
        b.units[fang.index()].status = Status::Down;
        let mut view = b.clone();
        crate::rules::rulesets::redact(&mut view, SideId(0));
        assert!(view.fog.as_ref().is_some_and(|k| k.is_ghost(fang)));
        let lines = tooltip_lines(&view, None, view.units[fang.index()].cell, None);
        assert!(lines[0].starts_with("Fang - "), "{lines:?}");
        assert!(!lines[0].contains("down"), "{lines:?}");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], "Out of sight: last seen here");
    }

    /// Where the target may still answer an attack with a defensive reaction, the odds say
    /// what it would leave: the issue's "74%, or 38% if Quill dodges", here in `phases`.
    #[test]
    fn the_odds_say_what_the_targets_reaction_would_leave() {
        use crate::rules::testkit::{Field, U0, U1};
        let (b, _) = BattleState::start(&ada_and_bo(), 1);
        let lines = tooltip_lines(&b, Some(U0), b.units[U1.index()].cell, None);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("Attack from Ada: 74% to hit, ")
                    && l.contains(
                        "), or 38% if Bo aborts to Dodge, 19% if Bo aborts to Block, 91% for "
                    )
                    && l.ends_with(" damage if Bo aborts to Roll With A Punch")),
            "{lines:?}"
        );
        // In `alternating` a Dodge is a test after the hit: the tooltip says what it leaves.
        let level = Field::new(crate::rules::rulesets::RulesetId::Alternating)
            .topology("Square(diagonals: OneTwo)")
            .sides(r#"(name: "Wardens", controller: Human), (name: "Raiders", controller: Ai)"#)
            .options(r#"instigator: "Raiders""#)
            .units(
                r#"
                (name: "Boudica", side: "Wardens", cell: (2, 2), template: "spear_warden"),
                (name: "Skarn", side: "Raiders", cell: (3, 2), template: "ogre"),
                "#,
            )
            .level();
        let (mut b, _) = BattleState::start(&level, 1);
        crate::rules::testkit::run(&mut b, crate::rules::testkit::pick(U1));
        let answers = crate::rules::rulesets::answered_odds(&b, U1, U0, false);
        let lines = tooltip_lines(&b, Some(U1), b.units[U0.index()].cell, None);
        // Every answer is named: a dodge by its chance, a parry and a block by the damage
        // they leave (their chance to hit is the same).
        let said = format!(
            ", or {:.0}% if Boudica dodges, {:.0}% for {:.1} damage if Boudica parries, \
             {:.0}% for {:.1} damage if Boudica blocks",
            answers[0].odds.hit * 100.0,
            answers[1].odds.hit * 100.0,
            answers[1].odds.expected_damage,
            answers[2].odds.hit * 100.0,
            answers[2].odds.expected_damage,
        );
        assert!(lines.iter().any(|l| l.ends_with(&said)), "{said} {lines:?}");
        // In a ruleset without such a reaction the odds stand alone.
        let crypt = crate::rules::battle::tests::load("segments_crypt.ron");
        let (c, _) = BattleState::start(&crypt, 3);
        for a in c.unit_ids() {
            for t in c.unit_ids() {
                assert_eq!(super::super::if_answered(&c, a, t, false), "");
            }
        }
    }

    #[test]
    fn the_tooltip_of_a_fallen_unit_says_it_has_fallen() {
        let level = crate::rules::battle::tests::load("segments_crypt.ron");
        let (mut b, _) = BattleState::start(&level, 3);
        let wolf = b
            .unit_ids()
            .find(|&u| &*b.units[u.index()].name == "Fang")
            .expect("the crypt has Fang");
        let cell = b.units[wolf.index()].cell;
        let head = |b: &BattleState| tooltip_lines(b, None, cell, None)[0].clone();
        assert_eq!(head(&b), "Fang - Wolf (Monsters)");
        b.units[wolf.index()].status = Status::Dead;
        assert_eq!(head(&b), "Fang - Wolf (Monsters), dead");
    }

    #[test]
    fn the_tooltip_goes_beside_the_cell_and_off_the_acting_unit() {
        let bounds = Rect::new(0.0, 0.0, 800.0, 600.0);
        let size = Vec2::new(200.0, 80.0);
        let cell = Rect::new(300.0, 300.0, 340.0, 340.0);
        let rect = |p: Vec2| Rect::from_corners(p, p + size);
        let clear = |p: Vec2, avoid: &[Rect]| {
            let r = rect(p);
            std::iter::once(&cell)
                .chain(avoid)
                .all(|a| r.intersect(*a).is_empty())
                && bounds.contains(r.min)
                && bounds.contains(r.max)
        };
        // Nothing in the way: on the right of the cell.
        let p = place_tooltip(size, cell, &[], &[], bounds);
        assert!(clear(p, &[]));
        assert!(p.x >= cell.max.x, "{p}");
        // The acting unit on the right: somewhere else, still clear of both.
        let acting = Rect::new(350.0, 260.0, 390.0, 380.0);
        let p = place_tooltip(size, cell, &[acting], &[], bounds);
        assert!(clear(p, &[acting]), "{p}");
        // At the right edge of the window: never out of it, never over the cell.
        let edge = Rect::new(760.0, 10.0, 800.0, 50.0);
        let p = place_tooltip(size, edge, &[], &[], bounds);
        assert!(
            rect(p).intersect(edge).is_empty() && bounds.contains(rect(p).max),
            "{p}"
        );
        // A token on the right: the tooltip goes elsewhere if it can...
        let token = Rect::new(346.0, 300.0, 386.0, 340.0);
        let p = place_tooltip(size, cell, &[], &[token], bounds);
        assert!(clear(p, &[token]), "{p}");
        // ...but never onto the acting unit to spare the rest of the board.
        let everywhere = Rect::new(0.0, 0.0, 800.0, 600.0);
        let p = place_tooltip(size, cell, &[acting], &[everywhere], bounds);
        assert!(clear(p, &[acting]), "{p}");
    }

    /// In a crowd (a token on each of the eight cells around the hovered one) every place
    /// right beside the cell covers a token: the tooltip steps further out instead.
    #[test]
    fn the_tooltip_steps_out_of_a_crowd_rather_than_cover_a_token() {
        let bounds = Rect::new(0.0, 0.0, 800.0, 600.0);
        let size = Vec2::new(200.0, 80.0);
        let cell = Rect::new(300.0, 300.0, 340.0, 340.0);
        let ring: Vec<Rect> = [-1.0, 0.0, 1.0]
            .into_iter()
            .flat_map(|dx| [-1.0, 0.0, 1.0].map(|dy| (dx, dy)))
            .filter(|&d| d != (0.0, 0.0))
            .map(|(dx, dy)| {
                let min = cell.min + Vec2::new(dx, dy) * 40.0;
                Rect::from_corners(min, min + Vec2::splat(40.0))
            })
            .collect();
        let p = place_tooltip(size, cell, &[], &ring, bounds);
        let r = Rect::from_corners(p, p + size);
        for t in ring.iter().chain([&cell]) {
            assert!(r.intersect(*t).is_empty(), "{r:?} covers {t:?}");
        }
        assert!(bounds.contains(r.min) && bounds.contains(r.max), "{r:?}");
        // Still near the pointer: a cell's width off the ring, not across the board.
        assert!(r.min.distance(cell.center()) < 200.0, "{r:?}");
    }

    /// The path preview runs into the hovered cell from its right: the tooltip, which would
    /// go on the right, goes where it covers none of the path's dots, and stays near.
    #[test]
    fn the_tooltip_keeps_off_the_path_it_points_along() {
        let bounds = Rect::new(0.0, 0.0, 800.0, 600.0);
        let size = Vec2::new(200.0, 80.0);
        let tile = Vec2::splat(40.0);
        let cell = Rect::new(300.0, 300.0, 340.0, 340.0);
        // Dots on the five cells to the right, and the lines between them.
        let dots: Vec<Vec2> = (1..=5)
            .map(|i| cell.center() + Vec2::new(40.0 * i as f32, 0.0))
            .collect();
        let lines: Vec<Vec2> = (0..5)
            .map(|i| cell.center() + Vec2::new(40.0 * i as f32 + 20.0, 0.0))
            .collect();
        let marks: Vec<Rect> = path_marks(dots.iter().chain(&lines).copied(), tile).collect();
        assert_eq!(marks.len(), 10);
        // Without the path the tooltip would sit on it.
        let p = place_tooltip(size, cell, &[], &[], bounds);
        let r = Rect::from_corners(p, p + size);
        assert!(marks.iter().any(|m| !r.intersect(*m).is_empty()), "{r:?}");
        // With it, clear of every mark and of the cell, beside the cell.
        let p = place_tooltip(size, cell, &[], &marks, bounds);
        let r = Rect::from_corners(p, p + size);
        for m in marks.iter().chain([&cell]) {
            assert!(r.intersect(*m).is_empty(), "{r:?} covers {m:?}");
        }
        assert!(r.min.distance(cell.center()) < 250.0, "{r:?}");
    }

    /// In `sides` the tooltip tells a unit's nerve: its morale, fearless, and a leader whose
    /// fall makes its side check morale; other rulesets say nothing of it.
    #[test]
    fn the_tooltip_tells_a_units_morale_and_whether_it_leads() {
        let level = crate::rules::battle::tests::load("sides_chiefs_raid.ron");
        let (b, _) = BattleState::start(&level, 3);
        let lines = |name: &str| {
            let u = b
                .unit_ids()
                .find(|&u| &*b.units[u.index()].name == name)
                .expect("the unit");
            tooltip_lines(&b, None, b.units[u.index()].cell, None)
        };
        let ulf = lines("Ulf the Red");
        assert!(
            ulf.iter()
                .any(|l| l.starts_with("Leader: its side checks morale")),
            "{ulf:?}"
        );
        let knife = lines("Knife Sal");
        assert!(
            knife
                .iter()
                .any(|l| l.starts_with("Morale ") && l.contains("2d6 over")),
            "{knife:?}"
        );
        assert!(!knife.iter().any(|l| l.starts_with("Leader")), "{knife:?}");
        let ruins = crate::rules::battle::tests::load("action_points_ruins.ron");
        let (r, _) = BattleState::start(&ruins, 3);
        for u in r.unit_ids() {
            let t = tooltip_lines(&r, None, r.units[u.index()].cell, None);
            assert!(!t.iter().any(|l| l.contains("orale")), "{t:?}");
        }
    }

    #[test]
    fn the_tooltip_size_counts_wrapped_lines() {
        let short = tooltip_size(&["a".repeat(10)]);
        let long = tooltip_size(&["a".repeat(100)]);
        assert!(long.x <= 340.0);
        assert!(long.y >= short.y + 2.0 * 16.0, "{short} {long}");
    }

    #[test]
    fn the_tooltip_gives_odds_only_for_an_attack_the_unit_can_make_now() {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        let (b, _) = BattleState::start(&level, 3);
        // Some attacker and target the engine has odds for.
        let (a, t) = b
            .unit_ids()
            .flat_map(|a| b.unit_ids().map(move |t| (a, t)))
            .find(|&(a, t)| {
                b.are_enemies(a, t)
                    && [false, true]
                        .iter()
                        .any(|&r| rulesets::odds(&b, a, t, r).is_some())
            })
            .expect("a pair with odds in the ruins");
        let cell = b.units[t.index()].cell;
        let odds_lines = |legal: Option<&[Described]>| -> Vec<String> {
            tooltip_lines(&b, Some(a), cell, legal)
                .into_iter()
                .filter(|l| l.contains(&format!(" from {}: ", b.unit_name(a))))
                .collect()
        };
        // Not the player's decision: the odds, for information.
        let info = odds_lines(None);
        assert!(
            !info.is_empty() && info.iter().all(|l| l.contains("% to hit")),
            "{info:?}"
        );
        // The player decides and the attack is not among the legal commands: why not, no odds.
        let closed = odds_lines(Some(&[]));
        assert_eq!(closed.len(), info.len());
        assert!(
            closed
                .iter()
                .all(|l| l.contains("not ") && !l.contains("% to hit")),
            "{closed:?}"
        );
    }

    /// A cell the acting unit may move to says what the move costs, and where its path leaves
    /// a foe's reach (the ⚠ on the path), who may strike and at what odds.
    #[test]
    fn a_move_cell_tells_its_cost_and_who_may_strike_on_the_way() {
        use crate::rules::rulesets::RulesetId;
        use crate::rules::testkit::{Field, U0};
        let mut told = Vec::new();
        for &id in RulesetId::ALL {
            let Some(t) = crate::rules::ruleset_data::builtin(id)
                .and_then(|d| d.templates.keys().next().cloned())
            else {
                continue;
            };
            let level = Field::new(id)
                .units(&format!(
                    r#"(name: "Ada", side: "Heroes", cell: (3, 2), template: "{t}"),
                       (name: "Bo", side: "Foes", cell: (4, 2), template: "{t}"),"#
                ))
                .level();
            let (b, _) = BattleState::start(&level, 1);
            if b.pending() != (Decision::Act { unit: U0 }) {
                continue;
            }
            let legal = crate::game::menu::described(&b);
            let moves: Vec<(Cell, bool)> = legal
                .iter()
                .filter_map(|d| {
                    let (_, to) = d.command.destination()?;
                    let leaves = d.info.path.as_ref()?.steps.iter().any(|s| s.leaves_threat);
                    Some((to, leaves))
                })
                .collect();
            let Some(&(to, provokes)) = moves.iter().find(|m| m.1).or(moves.first()) else {
                continue;
            };
            let lines = tooltip_lines(&b, Some(U0), to, Some(&legal));
            assert!(
                lines.iter().any(|l| l.contains(" here: ")),
                "{id:?}: {lines:?}"
            );
            if provokes {
                assert!(
                    lines
                        .iter()
                        .any(|l| l.starts_with("! Leaving ") && l.contains("from Bo")),
                    "{id:?}: {lines:?}"
                );
            }
            told.push((id, provokes));
        }
        assert!(told.len() >= 2, "{told:?}");
        assert!(
            told.iter().any(|(_, p)| *p),
            "no ruleset's move provoked: {told:?}"
        );
    }
}
