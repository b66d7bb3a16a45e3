//! The editor's board: each cell of the map a button, laid out as the battle board lays out
//! its tiles ([`BoardLayout`]: squares, pointy hexes with odd rows half a cell right, flat
//! hexes with odd columns half a cell down), and a click picks the cell under the pointer as
//! the battle does ([`crate::game::input::cell_at`]: the nearest cell centre).

use bevy::prelude::*;
use bevy::ui::{ComputedNode, UiGlobalTransform};

use super::{Editor, EditorCell};
use crate::game::art::{Art, Pattern, TileArt, TileShape};
use crate::game::board::BoardLayout;
use crate::game::ui;
use crate::rules::grid::{Cell, Grid};
use crate::rules::level::{self, LevelFile, merged_legend};

/// The smallest and largest width of a cell on the editor's board, in logical pixels.
const CELL_MIN: f32 = 8.0;
const CELL_MAX: f32 = 48.0;

/// Where the editor draws a map's cells: the battle board's own layout, scaled so that a cell
/// is a whole number of pixels wide, in UI pixels from the board's top-left corner (y down).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct EditorGeometry {
    pub layout: BoardLayout,
    /// UI pixels per world unit of the battle board.
    pub scale: f32,
    /// The battle board's bounds (world units, y up).
    bounds: Rect,
}

impl EditorGeometry {
    /// The largest layout of `grid` that fits in `room` (logical pixels), its cells between
    /// 8 and 48 pixels wide.
    pub fn fit(grid: Grid, room: Vec2) -> Self {
        let layout = BoardLayout::new(grid);
        let bounds = layout.bounds();
        let tile = layout.tile_size.x;
        let size = bounds.size().max(Vec2::ONE);
        let fits = (room.x / size.x).min(room.y / size.y);
        let cell = (tile * fits).clamp(CELL_MIN, CELL_MAX).floor();
        Self {
            layout,
            scale: cell / tile,
            bounds,
        }
    }

    /// A cell's width in pixels (what the board was fitted to).
    pub fn cell_width(&self) -> f32 {
        self.layout.tile_size.x * self.scale
    }

    /// A cell's drawn size (a hex's is its bounding box).
    pub fn cell_size(&self) -> Vec2 {
        Vec2::new(self.layout.tile_size.x, self.layout.tile_size.y) * self.scale
    }

    /// The whole board's size.
    pub fn size(&self) -> Vec2 {
        self.bounds.size() * self.scale
    }

    /// The centre of an in-bounds cell: where the battle board puts it, scaled, y down.
    pub fn centre(&self, cell: Cell) -> Option<Vec2> {
        let w = self.layout.cell_center(cell)?;
        Some(Vec2::new(w.x - self.bounds.min.x, self.bounds.max.y - w.y) * self.scale)
    }

    /// The cell under a point of the board (pixels from its top-left corner), picked as the
    /// battle picks the cell under the mouse.
    pub fn cell_at(&self, p: Vec2) -> Option<Cell> {
        let world = Vec2::new(
            self.bounds.min.x + p.x / self.scale,
            self.bounds.max.y - p.y / self.scale,
        );
        crate::game::input::cell_at(&self.layout, world)
    }
}

/// The cell under the mouse on the editor's board, if the pointer is over it: the pressed
/// button's own rectangle is only right on squares (a hex's box overlaps its neighbours').
pub(super) fn pointed_cell(
    window: Option<&Window>,
    map: Option<(&EditorGeometry, &ComputedNode, &UiGlobalTransform)>,
) -> Option<Cell> {
    let cursor = window?.physical_cursor_position()?;
    let (geometry, node, at) = map?;
    let top_left = at.translation - node.size() / 2.0;
    geometry.cell_at((cursor - top_left) * node.inverse_scale_factor())
}

const SIDE_COLOURS: [Color; 4] = [
    Color::srgb(0.35, 0.6, 1.0),
    Color::srgb(1.0, 0.4, 0.35),
    Color::srgb(0.45, 0.9, 0.45),
    Color::srgb(0.95, 0.85, 0.3),
];

/// The board cells a redraw repaints: each cell's look and the parts of it that show it (its
/// tile image; a square's border, a hex's marker, the second child).
pub(super) type CellParts<'a> = (
    Entity,
    &'a EditorCell,
    &'a mut CellLook,
    &'a mut BorderColor,
    &'a mut Node,
    &'a mut ImageNode,
    &'a Children,
);

/// A hex cell's outline shown when it is marked (a clicked problem).
#[derive(Component)]
pub(super) struct HexMarker;

/// A mark of the items lying on a cell, as the battle board marks them
/// ([`crate::game::marks`]): a small gold diamond in the cell's corner for items, a
/// crate-brown block for a heavy object. Children of the cell after its label (and a hex's
/// marker), spawned only on cells with items.
#[derive(Component)]
pub struct ItemMark;

/// Spawns the item marks `look` calls for inside its cell.
fn spawn_item_marks(cell: &mut ChildSpawnerCommands, look: &CellLook) {
    if look.heavy {
        // Under the label (a unit's mark stays readable).
        cell.spawn((
            ItemMark,
            ZIndex(-1),
            Node {
                position_type: PositionType::Absolute,
                left: percent(19),
                top: percent(19),
                width: percent(62),
                height: percent(62),
                ..default()
            },
            BackgroundColor(Color::srgb(0.45, 0.3, 0.16)),
        ));
    }
    if look.items {
        cell.spawn((
            ItemMark,
            // Up and right of the centre as on the battle board, inside a hex too.
            Node {
                position_type: PositionType::Absolute,
                left: percent(66),
                top: percent(16),
                width: percent(20),
                aspect_ratio: Some(1.0),
                ..default()
            },
            UiTransform::from_rotation(Rot2::FRAC_PI_4),
            BackgroundColor(Color::srgb(0.98, 0.78, 0.2)),
        ));
    }
}

/// Repaints the cells whose look changed (the same entities: only their colours and labels,
/// and the marks of their items spawned again when those changed).
#[allow(clippy::too_many_arguments)]
pub(super) fn repaint(
    looks: &[CellLook],
    width: usize,
    shape: TileShape,
    cells: &mut Query<CellParts, Without<super::EditorPanel>>,
    texts: &mut Query<(&mut Text, &mut TextColor)>,
    markers: &mut Query<&mut Visibility, With<HexMarker>>,
    item_marks: &Query<(), With<ItemMark>>,
    commands: &mut Commands,
) {
    for (entity, at, mut look, mut border, mut node, mut image, children) in cells {
        let Some(new) = looks.get(at.y as usize * width + at.x as usize) else {
            continue;
        };
        if *look == *new {
            continue;
        }
        if image.color != new.bg {
            image.color = new.bg;
        }
        if look.tile != new.tile {
            image.rect = Some(tile_rect(shape, new.tile));
        }
        if look.marked != new.marked {
            if let Some(&marker) = children.get(1)
                && let Ok(mut v) = markers.get_mut(marker)
            {
                *v = marker_visibility(new.marked);
            } else {
                *border = cell_border(new.marked);
                node.border = UiRect::all(px(if new.marked { 3 } else { 1 }));
            }
        }
        if (&look.label, look.fg) != (&new.label, new.fg)
            && let Some(&child) = children.first()
            && let Ok((mut text, mut colour)) = texts.get_mut(child)
        {
            text.0 = crate::game::menu::ascii(&new.label);
            colour.0 = new.fg;
        }
        if (look.items, look.heavy) != (new.items, new.heavy) {
            for &child in children {
                if item_marks.contains(child) {
                    commands.entity(child).despawn();
                }
            }
            commands
                .entity(entity)
                .with_children(|c| spawn_item_marks(c, new));
        }
        *look = new.clone();
    }
}

fn marker_visibility(marked: bool) -> Visibility {
    if marked {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    }
}

/// The board entity and what its cells were spawned for: the map's layout and scale (none
/// when the level does not parse), and the number of cells.
pub(super) type BoardShape = (Entity, Option<EditorGeometry>, usize);

/// How a board cell looks: its terrain's tile (the battle board's picture, an index into the
/// atlas, [`TileArt`]), the tile's tint (the ground's height, an overlay), its label (a unit's
/// initial, a goal's star, a height while heights are painted) and the label's colour,
/// whether it is marked (a clicked problem), and whether items lie on it (light ones, a heavy
/// object: [`ItemMark`]).
#[derive(Component, Clone, Debug, PartialEq)]
pub struct CellLook {
    pub tile: u32,
    pub bg: Color,
    pub label: String,
    pub fg: Color,
    pub marked: bool,
    pub items: bool,
    pub heavy: bool,
}

/// The look of every cell of the map, row by row.
pub(super) fn board_looks(
    editor: &Editor,
    f: &LevelFile,
    tints: &std::collections::BTreeMap<(i32, i32), Color>,
) -> Vec<CellLook> {
    let legend = merged_legend(&f.legend);
    // Cells a side wins by reaching, starred.
    let goals: Vec<(i32, i32)> = f
        .victory
        .iter()
        .filter_map(|v| match v {
            level::Victory::ReachCell { cell, .. } => Some(*cell),
            _ => None,
        })
        .collect();
    // Units, then reinforcements (drawn faint), each with a mark no other has.
    let arriving: Vec<&level::UnitDef> =
        level::events::reinforcements(f).map(|(.., u)| u).collect();
    let all: Vec<&level::UnitDef> = f.units.iter().chain(arriving.iter().copied()).collect();
    let names: Vec<&str> = all.iter().map(|u| u.name.as_str()).collect();
    let marks = unit_marks(&names);
    let mut units: std::collections::BTreeMap<(i32, i32), (&level::UnitDef, &String, bool)> =
        std::collections::BTreeMap::new();
    for (i, (u, m)) in all.iter().zip(&marks).enumerate() {
        // A placed unit wins its cell over a reinforcement arriving there.
        units.entry(u.cell).or_insert((u, m, i >= f.units.len()));
    }
    // Items on cells: whether light ones lie there, whether a heavy object does (an item the
    // ruleset does not know is marked as a light one).
    let defs = crate::rules::ruleset_data::builtin(f.ruleset).map(|d| &d.items);
    let mut items: std::collections::BTreeMap<(i32, i32), (bool, bool)> =
        std::collections::BTreeMap::new();
    for p in &f.items {
        let heavy = defs
            .and_then(|d| d.get(&p.item))
            .is_some_and(|d| d.kind == crate::rules::ruleset_data::ItemKind::Heavy);
        let at = items.entry(p.cell).or_default();
        if heavy {
            at.1 = true;
        } else {
            at.0 = true;
        }
    }
    // Ground heights, as the battle board shades them: lower ground darker.
    let top = f.max_height();
    let mut looks = Vec::with_capacity(f.size.0 as usize * f.size.1 as usize);
    for (y, row) in f.map.iter().enumerate() {
        let mut glyphs = row.chars();
        for x in 0..f.size.0 as i32 {
            let (x, y) = (x, y as i32);
            let g = glyphs.next().unwrap_or(' ');
            let terrain = legend.iter().find(|(k, _)| *k == g).map(|(_, t)| t);
            // The battle board's tile for the terrain (doors open, shut or locked included);
            // a glyph with no terrain is a floor tinted magenta, plainly wrong.
            let tile = terrain.map_or(TileArt::Floor, TileArt::for_terrain).index();
            let mut bg = if terrain.is_some() {
                Color::WHITE
            } else {
                Color::srgb(0.9, 0.2, 0.7)
            };
            if top > 0 {
                let k = 0.62 + 0.38 * f32::from(f.height_at((x, y))) / f32::from(top);
                let c = bg.to_srgba();
                bg = Color::srgb(c.red * k, c.green * k, c.blue * k);
            }
            if let Some(t) = tints.get(&(x, y)) {
                bg = bg.mix(t, 0.55);
            }
            let (label, fg) = match units.get(&(x, y)) {
                Some((u, mark, later)) => {
                    let side = f.sides.iter().position(|s| s.name == u.side).unwrap_or(0);
                    let picked = editor.picked.as_deref() == Some(&u.name);
                    let colour = if picked {
                        ui::ACCENT
                    } else {
                        SIDE_COLOURS[side % SIDE_COLOURS.len()]
                    };
                    (
                        (*mark).clone(),
                        if *later {
                            colour.with_alpha(0.5)
                        } else {
                            colour
                        },
                    )
                }
                None if goals.contains(&(x, y)) => ("*".into(), ui::ACCENT),
                // Painting heights: every cell says its own.
                None if editor.height.is_some() && !editor.moving => {
                    (f.height_at((x, y)).to_string(), ui::TEXT)
                }
                None => (String::new(), ui::TEXT),
            };
            let (items, heavy) = items.get(&(x, y)).copied().unwrap_or_default();
            looks.push(CellLook {
                tile,
                bg,
                label,
                fg,
                marked: editor.marked == Some((x, y)),
                items,
                heavy,
            });
        }
    }
    looks
}

/// One way to mark a unit: from its place in the list and its name.
type MarkKind<'a> = &'a dyn Fn(usize, &str) -> String;

/// Each unit's mark on the editor's board: its initial, or where two units share one, the
/// first of these that tells it from every other unit: its words' initials ("HS" for
/// Hobgoblin Sentry), its initial and number ("H2" for Hammer Brute 2), its first two
/// letters ("Hr", "Ha"), its initial and place in the list.
pub fn unit_marks(names: &[&str]) -> Vec<String> {
    let initial = |n: &str| n.chars().next().unwrap_or('?').to_string();
    let kinds: [MarkKind; 5] = [
        &|_, n| initial(n),
        &|_, n| {
            n.split_whitespace()
                .filter_map(|w| w.chars().next())
                .take(2)
                .collect()
        },
        &|_, n| {
            let digits: String = n.chars().rev().take_while(char::is_ascii_digit).collect();
            format!("{}{}", initial(n), digits.chars().rev().collect::<String>())
        },
        &|_, n| n.chars().take(2).collect(),
        &|i, n| format!("{}{}", initial(n), i + 1),
    ];
    let mut out: Vec<Option<String>> = vec![None; names.len()];
    for kind in kinds {
        let marks: Vec<String> = names.iter().enumerate().map(|(i, n)| kind(i, n)).collect();
        // Unique among the units still without a mark, and not one already given.
        let open: Vec<bool> = out.iter().map(Option::is_none).collect();
        for (i, m) in marks.iter().enumerate() {
            let taken = out.iter().flatten().any(|o| o == m);
            let shared = (0..names.len()).any(|j| j != i && open[j] && marks[j] == *m);
            if open[i] && !taken && !shared {
                out[i] = Some(m.clone());
            }
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, m)| m.unwrap_or_else(|| format!("{}{}", initial(names[i]), i + 1)))
        .collect()
}

fn cell_border(marked: bool) -> BorderColor {
    if marked {
        BorderColor::all(ui::BAD)
    } else {
        BorderColor::all(Color::srgba(0.0, 0.0, 0.0, 0.25))
    }
}

/// The part of a shape's tile atlas ([`crate::game::art::atlas_pixels`]: every tile side by
/// side in one row) that is tile `index`.
fn tile_rect(shape: TileShape, index: u32) -> Rect {
    let (w, h) = shape.tile_size();
    Rect::new((index * w) as f32, 0.0, ((index + 1) * w) as f32, h as f32)
}

/// Spawns the board's cells (a button each, where the battle board puts that cell), or says
/// the level does not parse. Each cell shows its terrain's tile from the battle board's atlas
/// (so a door is drawn open, shut or locked as in battle), tinted for the ground's height
/// and overlays; squares have a thin border (thick and red when marked), hexes a marker.
pub(super) fn spawn_board(
    board: &mut ChildSpawnerCommands,
    file: Option<&LevelFile>,
    looks: Option<&[CellLook]>,
    geometry: Option<&EditorGeometry>,
    art: &Art,
) {
    let (Some(f), Some(looks), Some(geometry)) = (file, looks, geometry) else {
        board.spawn(ui::text(
            "The level does not parse: fix it in a text editor (fray validate shows where).",
            16.0,
            ui::BAD,
        ));
        return;
    };
    let width = f.size.0.max(1) as usize;
    let size = geometry.size();
    let cell = geometry.cell_size();
    let shape = TileShape::of(f.topology);
    let hex = shape != TileShape::Square;
    let font = (geometry.cell_width() * 0.6).max(10.0);
    board
        .spawn((
            *geometry,
            Node {
                width: px(size.x),
                height: px(size.y),
                flex_shrink: 0.0,
                ..default()
            },
        ))
        .with_children(|map| {
            for (i, look) in looks.iter().enumerate() {
                let at = Cell::new((i % width) as i32, (i / width) as i32);
                let Some(centre) = geometry.centre(at) else {
                    continue;
                };
                let tile = ImageNode::new(art.atlas(shape))
                    .with_rect(tile_rect(shape, look.tile))
                    .with_color(look.bg);
                let mut e = map.spawn((
                    Button,
                    EditorCell { x: at.x, y: at.y },
                    tile,
                    BackgroundColor(Color::NONE),
                    Node {
                        position_type: PositionType::Absolute,
                        left: px(centre.x - cell.x / 2.0),
                        top: px(centre.y - cell.y / 2.0),
                        width: px(cell.x),
                        height: px(cell.y),
                        border: UiRect::all(px(if hex || !look.marked { 1 } else { 3 })),
                        justify_content: JustifyContent::Center,
                        align_items: AlignItems::Center,
                        ..default()
                    },
                    look.clone(),
                ));
                if hex {
                    e.insert(BorderColor::all(Color::NONE)).with_children(|c| {
                        c.spawn(ui::text(&look.label, font, look.fg));
                        c.spawn((
                            HexMarker,
                            marker_visibility(look.marked),
                            Node {
                                position_type: PositionType::Absolute,
                                left: px(0),
                                top: px(0),
                                width: percent(100),
                                height: percent(100),
                                ..default()
                            },
                            ImageNode::new(art.pattern(Pattern::Cursor, shape)).with_color(ui::BAD),
                        ));
                    });
                } else {
                    e.insert(cell_border(look.marked)).with_child(ui::text(
                        &look.label,
                        font,
                        look.fg,
                    ));
                }
                if look.items || look.heavy {
                    e.with_children(|c| spawn_item_marks(c, look));
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::unit_marks;

    #[test]
    fn each_unit_has_a_mark_no_other_unit_has() {
        let names = [
            "Hruk",
            "Hale",
            "Hobgoblin Sentry",
            "Hobgoblin Guard",
            "Hammer Brute 1",
            "Hammer Brute 2",
            "Ida",
        ];
        let marks = unit_marks(&names);
        assert_eq!(marks, ["Hr", "Ha", "HS", "HG", "H1", "H2", "I"]);
        let same = unit_marks(&["Ann", "Ann"]);
        assert_ne!(same[0], same[1], "{same:?}");
    }
}
