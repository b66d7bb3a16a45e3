//! Placing the text drawn on the board (the cursor's cover and odds, unit names, the cost of
//! each reachable cell) so that no label covers a unit's token or another label.
//!
//! [`place_labels`] is the pure rule: labels in order of importance, each at the first of its
//! candidate positions that is clear of every token and of the labels placed before it; a
//! label with no clear position is not shown. The `place` system feeds it every frame (after
//! `camera::keep_board_text_legible` has scaled the text for the zoom) and puts the labels
//! where it says. Every label has a dark backing ([`backing`]) so it reads over any terrain.

use bevy::prelude::*;

use super::Screen;
use super::board::{BoardGrid, BoardLayout};
use super::camera::BoardText;
use super::marks::CellMark;
use super::overlays::Overlay;
use super::units::UnitToken;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        PostUpdate,
        place
            .after(super::camera::LegibleText)
            .before(bevy::transform::TransformSystems::Propagate)
            .run_if(in_state(Screen::Battle)),
    );
}

/// A board label to be placed. `anchor` is the world rectangle of what it labels (a cell, a
/// token); `kind` says where it may go around it and how much it matters.
#[derive(Component, Debug, Clone, Copy)]
pub struct BoardLabel {
    pub anchor: Rect,
    pub kind: LabelKind,
}

/// The kinds of board labels, in the order they are placed. A cell's cost comes before the
/// names: it has one cell to go in, a name has the ring around its token, so a name never
/// takes a cost's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LabelKind {
    /// The cover and odds at the cursor: around the cursor's cell.
    Cursor,
    /// A cell's cost: in a corner of that (empty) cell.
    Cost,
    /// A unit's name: below its token, else above or beside it.
    Name,
}

/// One label to place: its size and the centres it may take, best first. A label that
/// belongs to a token (a name) gives the token's rectangle as `owner`: it only goes where its
/// own token is the nearest, so it never reads as another token's.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelRequest {
    pub size: Vec2,
    pub candidates: Vec<Vec2>,
    pub owner: Option<Rect>,
}

/// Where each label goes (its centre), or `None` when every candidate would cover a token
/// (`obstacles`) or a label placed before it, stick out of the board's visible `room` (the
/// window less the HUD panels, in world space: a label there would be drawn under a panel),
/// or (for a label with an owner) sit nearer another token than its own. Among the rest a
/// candidate that leaves the `marks` uncovered (the path's dots, the cells' marks)
/// is taken first; one over a mark only when there is no other. Labels are placed in the
/// order given.
pub fn place_labels(
    obstacles: &[Rect],
    marks: &[Rect],
    room: Option<Rect>,
    requests: &[LabelRequest],
) -> Vec<Option<Vec2>> {
    let mut placed: Vec<Rect> = Vec::new();
    let overlaps = |a: Rect, b: &Rect| {
        let i = a.intersect(*b);
        i.width() > 0.01 && i.height() > 0.01
    };
    // The distance from a label's rectangle to a token's (0 when they touch).
    let gap = |a: Rect, b: &Rect| {
        let dx = (b.min.x - a.max.x).max(a.min.x - b.max.x).max(0.0);
        let dy = (b.min.y - a.max.y).max(a.min.y - b.max.y).max(0.0);
        dx.hypot(dy)
    };
    requests
        .iter()
        .map(|r| {
            let allowed = |c: &Vec2| {
                let rect = Rect::from_center_size(*c, r.size);
                let nearest_is_own = r.owner.is_none_or(|own| {
                    let mine = gap(rect, &own);
                    obstacles
                        .iter()
                        .filter(|o| **o != own)
                        .all(|o| gap(rect, o) > mine)
                });
                let inside =
                    room.is_none_or(|room| room.contains(rect.min) && room.contains(rect.max));
                nearest_is_own
                    && inside
                    && !obstacles.iter().any(|o| overlaps(rect, o))
                    && !placed.iter().any(|p| overlaps(rect, p))
            };
            let clear = |c: &Vec2| {
                let rect = Rect::from_center_size(*c, r.size);
                !marks.iter().any(|m| overlaps(rect, m))
            };
            let at = r
                .candidates
                .iter()
                .copied()
                .find(|c| allowed(c) && clear(c))
                .or_else(|| r.candidates.iter().copied().find(allowed))?;
            placed.push(Rect::from_center_size(at, r.size));
            Some(at)
        })
        .collect()
}

/// Centres for a label of `size` around `anchor` (world space, y up), `gap` apart: below,
/// above, right, left, the four corners, then the same a step further out.
pub fn around(anchor: Rect, size: Vec2, gap: f32, below_first: bool) -> Vec<Vec2> {
    let c = anchor.center();
    let mut out = Vec::new();
    for ring in 0..3 {
        let g = gap + ring as f32 * (size.y + gap);
        let gx = gap + ring as f32 * (size.x / 2.0 + gap);
        let below = Vec2::new(c.x, anchor.min.y - g - size.y / 2.0);
        let above = Vec2::new(c.x, anchor.max.y + g + size.y / 2.0);
        let (first, second) = if below_first {
            (below, above)
        } else {
            (above, below)
        };
        out.extend([
            first,
            second,
            Vec2::new(anchor.max.x + gx + size.x / 2.0, c.y),
            Vec2::new(anchor.min.x - gx - size.x / 2.0, c.y),
            Vec2::new(anchor.max.x + gx + size.x / 2.0, above.y),
            Vec2::new(anchor.min.x - gx - size.x / 2.0, above.y),
            Vec2::new(anchor.max.x + gx + size.x / 2.0, below.y),
            Vec2::new(anchor.min.x - gx - size.x / 2.0, below.y),
        ]);
    }
    out
}

/// Centres for a label of `size` inside `cell`'s corners: bottom right first (y up), so a
/// cost keeps one place from cell to cell and leaves the cell's top free for the name of a
/// token above it.
pub fn corners(cell: Rect, size: Vec2) -> Vec<Vec2> {
    let h = size / 2.0;
    let (lo, hi) = (cell.min + h, cell.max - h);
    vec![
        Vec2::new(hi.x, lo.y),
        Vec2::new(lo.x, lo.y),
        Vec2::new(hi.x, hi.y),
        Vec2::new(lo.x, hi.y),
    ]
}

/// A label's size in its own (unscaled) units: the board font is monospace, 0.6 em a
/// character and 1.2 em a line, with a little padding for the backing.
pub fn text_size(text: &str, font_px: f32) -> Vec2 {
    let lines = text.lines().count().max(1);
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    Vec2::new(
        longest as f32 * 0.6 * font_px + 0.5 * font_px,
        lines as f32 * 1.2 * font_px + 0.2 * font_px,
    )
}

/// The dark backing of a label of `text` at `font_px`: a child of the text entity.
pub fn backing(pixel: Handle<Image>, text: &str, font_px: f32) -> impl Bundle + use<> {
    (
        Sprite {
            image: pixel,
            color: Color::srgba(0.04, 0.04, 0.06, 0.78),
            custom_size: Some(text_size(text, font_px)),
            ..default()
        },
        Transform::from_xyz(0.0, 0.0, -0.01),
    )
}

/// The share of a cell a token covers, with its health bar (see `units::token`).
const TOKEN_EXTENT: f32 = 0.9;

/// The board's visible room (the window less the HUD panels) in world space, for the main
/// camera as it is now; `None` without a window or a camera.
fn visible_room(
    window: &Window,
    camera: &Camera,
    global: &GlobalTransform,
    folded: super::battle::Collapsed,
    scale: f32,
) -> Option<Rect> {
    let room = super::hud::HudLayout::of_panels(Some(window), folded, scale).board();
    let a = camera.viewport_to_world_2d(global, room.min).ok()?;
    let b = camera.viewport_to_world_2d(global, room.max).ok()?;
    Some(Rect::from_corners(a, b))
}

#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn place(
    settings: Res<super::battle::Settings>,
    ui: Option<Res<UiScale>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<super::camera::MainCamera>>,
    boards: Query<&BoardGrid>,
    tokens: Query<(&Transform, &Visibility), (With<UnitToken>, Without<BoardLabel>)>,
    dots: Query<(&Transform, &Sprite, &Overlay), Without<BoardText>>,
    cell_marks: Query<(&Transform, &Sprite), (With<CellMark>, Without<BoardText>)>,
    mut labels: Query<
        (
            Entity,
            &BoardLabel,
            &Text2d,
            &TextFont,
            &mut Transform,
            &Visibility,
            Option<&ChildOf>,
        ),
        (With<BoardText>, Without<UnitToken>),
    >,
) {
    let Some(grid) = boards.iter().next() else {
        return;
    };
    let layout = BoardLayout::new(grid.0);
    let cell = Vec2::new(layout.tile_size.x, layout.tile_size.y);
    let obstacles: Vec<Rect> = tokens
        .iter()
        .filter(|(_, v)| **v != Visibility::Hidden)
        .map(|(t, _)| Rect::from_center_size(t.translation.truncate(), cell * TOKEN_EXTENT))
        .collect();
    // The path's dots (not the lines between them: a diagonal's box would cover the cells
    // beside it) and the cells' marks (items on the ground, heavy objects, cells to reach):
    // a label keeps off them if it can.
    let marks: Vec<Rect> = dots
        .iter()
        .filter(|(t, _, o)| **o == Overlay::Path && t.rotation == Quat::IDENTITY)
        .map(|(t, s, _)| (t, s))
        .chain(cell_marks.iter())
        .filter_map(|(t, s)| {
            Some(Rect::from_center_size(
                t.translation.truncate(),
                s.custom_size?,
            ))
        })
        .collect();
    let mut items: Vec<(Entity, LabelKind, Vec2, LabelRequest)> = labels
        .iter()
        .filter(|(.., v, _)| **v != Visibility::Hidden)
        .filter_map(|(e, l, text, font, transform, _, child)| {
            let FontSize::Px(px) = font.font_size else {
                return None;
            };
            // A unit's name moves with its token (a child of it): around the token.
            let parent = child
                .and_then(|c| tokens.get(c.parent()).ok())
                .map(|(t, _)| t.translation.truncate());
            let anchor =
                parent.map_or(l.anchor, |p| Rect::from_center_size(p, cell * TOKEN_EXTENT));
            // The scale `keep_board_text_legible` gave it (1 when zoomed in).
            let k = transform.scale.x.max(1.0);
            let size = text_size(&text.0, px) * k;
            let gap = cell.y * 0.04;
            let candidates = match l.kind {
                LabelKind::Cursor => around(anchor, size, gap, false),
                LabelKind::Name => around(anchor, size, gap, true),
                LabelKind::Cost => corners(anchor, size),
            };
            let owner = (l.kind == LabelKind::Name).then_some(anchor);
            Some((
                e,
                l.kind,
                parent.unwrap_or(Vec2::ZERO),
                LabelRequest {
                    size,
                    candidates,
                    owner,
                },
            ))
        })
        .collect();
    // Most important first; the same order every frame.
    items.sort_by_key(|(e, kind, ..)| (*kind, *e));
    let requests: Vec<LabelRequest> = items.iter().map(|i| i.3.clone()).collect();
    let room = match (window.single(), camera.single()) {
        (Ok(w), Ok((c, g))) => visible_room(
            w,
            c,
            g,
            settings.collapsed,
            super::hud::ui_scale(ui.as_deref()),
        ),
        _ => None,
    };
    let spots = place_labels(&obstacles, &marks, room, &requests);
    for ((e, _, parent, _), spot) in items.iter().zip(spots) {
        let Ok((.., mut transform, _, _)) = labels.get_mut(*e) else {
            continue;
        };
        match spot {
            Some(p) => {
                let local = p - *parent;
                transform.translation.x = local.x;
                transform.translation.y = local.y;
                if transform.scale.x == 0.0 {
                    transform.scale = Vec3::ONE;
                }
            }
            // No room: not shown.
            None => transform.scale = Vec3::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(a: Rect, b: Rect) -> bool {
        let i = a.intersect(b);
        i.width() > 0.01 && i.height() > 0.01
    }

    #[test]
    fn labels_never_cover_a_token_or_each_other() {
        // A crowded corner: tokens on a 3 x 3 block of 64-unit cells with one gap, names for
        // all of them, the cursor's two-line label, and costs on every empty cell around.
        let cell = Vec2::splat(64.0);
        let rect =
            |x: i32, y: i32| Rect::from_center_size(Vec2::new(x as f32, y as f32) * cell, cell);
        let occupied: Vec<(i32, i32)> = (0..3)
            .flat_map(|x| (0..3).map(move |y| (x, y)))
            .filter(|&c| c != (1, 1))
            .collect();
        let tokens: Vec<Rect> = occupied
            .iter()
            .map(|&(x, y)| Rect::from_center_size(rect(x, y).center(), cell * TOKEN_EXTENT))
            .collect();
        let mut requests = vec![LabelRequest {
            size: text_size("in sight, no cover\nHit 38% / 3.2 dmg", 12.8),
            candidates: around(
                rect(1, 1),
                text_size("in sight, no cover\nHit 38% / 3.2 dmg", 12.8),
                2.0,
                false,
            ),
            owner: None,
        }];
        for token in &tokens {
            let size = text_size("Red Ida", 15.0);
            requests.push(LabelRequest {
                size,
                candidates: around(*token, size, 2.0, true),
                owner: Some(*token),
            });
        }
        for x in -2..5 {
            for y in -2..5 {
                if !occupied.contains(&(x, y)) {
                    let size = text_size("6", 12.8);
                    requests.push(LabelRequest {
                        size,
                        candidates: corners(rect(x, y), size),
                        owner: None,
                    });
                }
            }
        }
        let spots = place_labels(&tokens, &[], None, &requests);
        let placed: Vec<Rect> = spots
            .iter()
            .zip(&requests)
            .filter_map(|(s, r)| s.map(|p| Rect::from_center_size(p, r.size)))
            .collect();
        assert!(
            spots[0].is_some(),
            "the cursor's label always finds room here"
        );
        assert!(placed.len() > requests.len() / 2, "most labels are shown");
        // Each name sits nearer its own token than any other.
        for (r, spot) in requests.iter().zip(&spots) {
            let (Some(own), Some(p)) = (r.owner, spot) else {
                continue;
            };
            let label = Rect::from_center_size(*p, r.size);
            let d = |t: &Rect| {
                let dx = (t.min.x - label.max.x).max(label.min.x - t.max.x).max(0.0);
                let dy = (t.min.y - label.max.y).max(label.min.y - t.max.y).max(0.0);
                dx.hypot(dy)
            };
            for t in tokens.iter().filter(|t| **t != own) {
                assert!(
                    d(t) > d(&own),
                    "the name at {p:?} reads as {t:?}'s, not {own:?}'s"
                );
            }
        }
        for (i, a) in placed.iter().enumerate() {
            for t in &tokens {
                assert!(!overlap(*a, *t), "label {a:?} covers token {t:?}");
            }
            for b in &placed[i + 1..] {
                assert!(!overlap(*a, *b), "labels {a:?} and {b:?} overlap");
            }
        }
    }

    #[test]
    fn a_label_keeps_off_a_mark_if_it_can_and_covers_it_if_it_must() {
        let anchor = Rect::from_center_size(Vec2::ZERO, Vec2::splat(64.0));
        let size = Vec2::new(40.0, 16.0);
        let r = LabelRequest {
            size,
            candidates: around(anchor, size, 2.0, true),
            owner: Some(anchor),
        };
        // A path dot where the first choice would go: the next choice.
        let dot = Rect::from_center_size(r.candidates[0], Vec2::splat(8.0));
        assert_eq!(
            place_labels(&[anchor], &[dot], None, std::slice::from_ref(&r)),
            vec![Some(r.candidates[1])]
        );
        // Marks everywhere: the label is still shown, at its first choice (a mark is not a
        // token: it neither hides a label nor draws a unit's name to it).
        let everywhere = Rect::from_center_size(Vec2::ZERO, Vec2::splat(2000.0));
        assert_eq!(
            place_labels(&[anchor], &[everywhere], None, std::slice::from_ref(&r)),
            vec![Some(r.candidates[0])]
        );
    }

    #[test]
    fn a_label_with_room_goes_to_its_first_choice_and_one_without_is_hidden() {
        let anchor = Rect::from_center_size(Vec2::ZERO, Vec2::splat(64.0));
        let size = Vec2::new(40.0, 16.0);
        let r = LabelRequest {
            size,
            candidates: around(anchor, size, 2.0, true),
            owner: None,
        };
        assert_eq!(
            place_labels(&[], &[], None, std::slice::from_ref(&r)),
            vec![Some(r.candidates[0])]
        );
        // Below taken by a token: above.
        let below = Rect::from_center_size(r.candidates[0], size);
        assert_eq!(
            place_labels(&[below], &[], None, std::slice::from_ref(&r)),
            vec![Some(r.candidates[1])]
        );
        // Everything taken: not shown.
        let all = Rect::from_center_size(Vec2::ZERO, Vec2::splat(2000.0));
        assert_eq!(
            place_labels(&[all], &[], None, std::slice::from_ref(&r)),
            vec![None]
        );
        // The board's visible room ends just below the token (a panel below it): the label
        // goes above, inside the room; with no room anywhere, it is not shown (never drawn
        // under a panel).
        let room = Rect::new(-500.0, anchor.min.y, 500.0, 500.0);
        assert_eq!(
            place_labels(&[], &[], Some(room), std::slice::from_ref(&r)),
            vec![Some(r.candidates[1])]
        );
        let tiny = Rect::from_center_size(Vec2::ZERO, Vec2::splat(10.0));
        assert_eq!(place_labels(&[], &[], Some(tiny), &[r]), vec![None]);
    }
}
