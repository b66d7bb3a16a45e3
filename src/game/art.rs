//! Procedural art, all drawn by this code at startup: terrain tile atlases (square, pointy hex,
//! flat hex), unit tokens (a base shape per side and a silhouette per template), status icons
//! and overlay patterns. Every terrain has its own *pattern* (flagstones,
//! pebbles, bricks, a dark slot, a round column, waves, canopies, chunks, hatching), not only its
//! own colour, so colour-blind players can tell them apart.
//!
//! The pixel functions are pure (see [`atlas_pixels`]); the plugin only turns them into Bevy
//! [`Image`]s held by the [`Art`] resource.

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use crate::rules::grid::{HexOrientation, Topology};
use crate::rules::map::{Door, Sight, Terrain};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Art>();
}

/// The generated images: one tile atlas per cell shape, unit tokens, icons and overlays.
#[derive(Resource, Debug, Clone)]
pub struct Art {
    pub square: Handle<Image>,
    pub pointy: Handle<Image>,
    pub flat: Handle<Image>,
    /// A white disc with a grey rim, to be tinted with a side's colour.
    pub unit_disc: Handle<Image>,
    /// Token bases by side (circle, square, diamond, octagon), white, to be tinted: sides
    /// differ in shape as well as colour.
    pub bases: Vec<Handle<Image>>,
    /// One silhouette per name of [`crate::rules::ruleset_data::SILHOUETTES`], same order.
    pub silhouettes: Vec<Handle<Image>>,
    /// Status icons by [`Icon`].
    pub icons: Vec<Handle<Image>>,
    /// Overlay patterns per cell shape, by [`Pattern`]: `[square, pointy, flat]`.
    pub patterns: Vec<[Handle<Image>; 3]>,
    /// A ring (outline of a circle), for the acting unit and targets.
    pub ring: Handle<Image>,
    /// A small round dot (paths).
    pub dot: Handle<Image>,
    /// A warning triangle with "!" (a step that provokes).
    pub warning: Handle<Image>,
    /// A white pixel, for bars and lines.
    pub pixel: Handle<Image>,
}

impl Art {
    /// The silhouette of a template's `silhouette` name (the soldier for an unknown one).
    pub fn silhouette(&self, name: &str) -> Handle<Image> {
        let i = crate::rules::ruleset_data::SILHOUETTES
            .iter()
            .position(|s| *s == name)
            .unwrap_or(0);
        self.silhouettes[i.min(self.silhouettes.len() - 1)].clone()
    }

    /// The token base of a side.
    pub fn base(&self, side: usize) -> Handle<Image> {
        self.bases[side % self.bases.len()].clone()
    }

    pub fn icon(&self, icon: Icon) -> Handle<Image> {
        self.icons[icon as usize].clone()
    }

    /// An overlay pattern for a cell shape.
    pub fn pattern(&self, p: Pattern, shape: TileShape) -> Handle<Image> {
        let i = match shape {
            TileShape::Square => 0,
            TileShape::PointyHex => 1,
            TileShape::FlatHex => 2,
        };
        self.patterns[p as usize][i].clone()
    }

    /// The atlas for a cell shape.
    pub fn atlas(&self, shape: TileShape) -> Handle<Image> {
        match shape {
            TileShape::Square => self.square.clone(),
            TileShape::PointyHex => self.pointy.clone(),
            TileShape::FlatHex => self.flat.clone(),
        }
    }
}

impl FromWorld for Art {
    fn from_world(world: &mut World) -> Self {
        let mut images = world.resource_mut::<Assets<Image>>();
        let mut atlas = |shape: TileShape| {
            let (w, h, pixels) = atlas_pixels(shape);
            images.add(rgba_image(w, h, pixels))
        };
        let square = atlas(TileShape::Square);
        let pointy = atlas(TileShape::PointyHex);
        let flat = atlas(TileShape::FlatHex);
        let unit_disc = images.add(rgba_image(DISC_SIZE, DISC_SIZE, disc_pixels(DISC_SIZE)));
        let bases = (0..4)
            .map(|i| images.add(rgba_image(DISC_SIZE, DISC_SIZE, base_pixels(i, DISC_SIZE))))
            .collect();
        let silhouettes = SILHOUETTE_ART
            .iter()
            .map(|rows| images.add(rgba_image(64, 64, bitmap_pixels(rows, 4, [250, 248, 240]))))
            .collect();
        let icons = Icon::ALL
            .iter()
            .map(|i| images.add(rgba_image(20, 20, icon_pixels(*i))))
            .collect();
        let patterns = Pattern::ALL
            .iter()
            .map(|p| {
                [TileShape::Square, TileShape::PointyHex, TileShape::FlatHex].map(|shape| {
                    let (w, h) = shape.tile_size();
                    images.add(rgba_image(w, h, pattern_pixels(*p, shape)))
                })
            })
            .collect();
        let ring = images.add(rgba_image(64, 64, ring_pixels(64)));
        let dot = images.add(rgba_image(16, 16, dot_pixels(16)));
        let warning = images.add(rgba_image(24, 24, warning_pixels(24)));
        let pixel = images.add(rgba_image(1, 1, vec![255, 255, 255, 255]));
        Self {
            square,
            pointy,
            flat,
            unit_disc,
            bases,
            silhouettes,
            icons,
            patterns,
            ring,
            dot,
            warning,
            pixel,
        }
    }
}

fn rgba_image(width: u32, height: u32, pixels: Vec<u8>) -> Image {
    Image::new(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        pixels,
        TextureFormat::Rgba8UnormSrgb,
        // The tilemap renderer copies tiles out of the atlas on the GPU and needs the image in
        // the main world too.
        RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD,
    )
}

/// The picture a terrain kind is drawn with; the discriminant is the tile's index in the atlas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileArt {
    Floor = 0,
    Rough = 1,
    Wall = 2,
    Slit = 3,
    Pillar = 4,
    Water = 5,
    Trees = 6,
    Rubble = 7,
    Chasm = 8,
    /// Water no one can wade: darker than a ford, so the two read apart at a glance.
    DeepWater = 9,
    /// A shut door: planks in a stone frame.
    DoorClosed = 10,
    /// An open door: the doorway's floor with the leaf swung against the frame.
    DoorOpen = 11,
    /// A locked door: a shut door with iron bands and a lock plate.
    DoorLocked = 12,
}

impl TileArt {
    /// Every tile, in atlas order.
    pub const ALL: [TileArt; 13] = [
        TileArt::Floor,
        TileArt::Rough,
        TileArt::Wall,
        TileArt::Slit,
        TileArt::Pillar,
        TileArt::Water,
        TileArt::Trees,
        TileArt::Rubble,
        TileArt::Chasm,
        TileArt::DeepWater,
        TileArt::DoorClosed,
        TileArt::DoorOpen,
        TileArt::DoorLocked,
    ];

    /// The tile's index in the atlas (`TileTextureIndex`).
    pub fn index(self) -> u32 {
        self as u32
    }

    /// A typical colour of the tile (for map thumbnails), RGBA8.
    pub fn swatch(self) -> [u8; 4] {
        let c = match self {
            TileArt::Floor => FLOOR,
            TileArt::Rough => rgb(150, 124, 84),
            TileArt::Wall => BRICK,
            TileArt::Slit => rgb(140, 136, 126),
            TileArt::Pillar => rgb(120, 118, 128),
            TileArt::Water => rgb(52, 104, 166),
            TileArt::Trees => rgb(44, 112, 52),
            TileArt::Rubble => rgb(130, 120, 104),
            TileArt::Chasm => rgb(18, 16, 24),
            TileArt::DeepWater => rgb(26, 56, 112),
            TileArt::DoorClosed => WOOD,
            TileArt::DoorOpen => FLOOR,
            TileArt::DoorLocked => shade(WOOD, 0.7),
        };
        [c[0] as u8, c[1] as u8, c[2] as u8, 255]
    }

    /// Picks the picture for a terrain: first by words in its name, then by its properties
    /// (slit sight → slit, opaque → wall, impassable → chasm, difficult → rough), else floor.
    pub fn for_terrain(terrain: &Terrain) -> Self {
        match terrain.door {
            Some(Door::Closed) => return TileArt::DoorClosed,
            Some(Door::Open) => return TileArt::DoorOpen,
            Some(Door::Locked) => return TileArt::DoorLocked,
            None => {}
        }
        let name = terrain.name.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
        if has(&["water", "river", "pond", "lake", "stream", "swamp", "marsh"]) {
            if terrain.passable() {
                TileArt::Water
            } else {
                TileArt::DeepWater
            }
        } else if has(&[
            "tree", "forest", "wood", "bush", "foliage", "hedge", "thicket",
        ]) {
            TileArt::Trees
        } else if has(&["rubble", "debris", "ruin"]) {
            TileArt::Rubble
        } else if has(&["pillar", "column", "statue", "post"]) {
            TileArt::Pillar
        } else if has(&["slit", "window", "loophole", "embrasure"]) || terrain.sight == Sight::Slit
        {
            TileArt::Slit
        } else if has(&["chasm", "pit", "hole", "abyss", "void"]) {
            TileArt::Chasm
        } else if has(&["wall"]) || terrain.sight == Sight::Opaque {
            TileArt::Wall
        } else if !terrain.passable() {
            TileArt::Chasm
        } else if terrain.difficult || has(&["rough", "mud", "scree", "sand", "snow"]) {
            TileArt::Rough
        } else {
            TileArt::Floor
        }
    }
}

/// The shape of a map's cells, which fixes the tile size and mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileShape {
    Square,
    PointyHex,
    FlatHex,
}

impl TileShape {
    pub fn of(topology: Topology) -> Self {
        match topology {
            Topology::Square { .. } => TileShape::Square,
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            } => TileShape::PointyHex,
            Topology::Hex {
                orientation: HexOrientation::Flat,
            } => TileShape::FlatHex,
        }
    }

    /// Tile size in pixels `(width, height)`. Hexes are `width × height` with corners on the
    /// tile's edges, as bevy_ecs_tilemap's hex grids expect (pointy: corner at top and bottom,
    /// rows 3/4 of the height apart; flat: corner at left and right, columns 3/4 of the width
    /// apart). 56/64 is within 1% of a regular hexagon and keeps every offset a whole pixel.
    pub fn tile_size(self) -> (u32, u32) {
        match self {
            TileShape::Square => (64, 64),
            TileShape::PointyHex => (56, 64),
            TileShape::FlatHex => (64, 56),
        }
    }
}

/// One atlas for a shape: every [`TileArt`] side by side in one row, RGBA8 (sRGB).
/// Returns `(width, height, pixels)`.
pub fn atlas_pixels(shape: TileShape) -> (u32, u32, Vec<u8>) {
    let (tw, th) = shape.tile_size();
    let n = TileArt::ALL.len() as u32;
    let (w, h) = (tw * n, th);
    let mut pixels = vec![0u8; (w * h * 4) as usize];
    for art in TileArt::ALL {
        for y in 0..th {
            for x in 0..tw {
                let rgba = tile_pixel(art, shape, x, y);
                let i = ((y * w + art.index() * tw + x) * 4) as usize;
                pixels[i..i + 4].copy_from_slice(&rgba);
            }
        }
    }
    (w, h, pixels)
}

/// Signed distance in pixels from a pixel centre to the edge of the tile's cell (positive
/// inside), for a tile of size `(w, h)`.
fn edge_distance(shape: TileShape, x: u32, y: u32) -> f32 {
    let (w, h) = shape.tile_size();
    let (w, h) = (w as f32, h as f32);
    let px = x as f32 + 0.5 - w / 2.0;
    let py = y as f32 + 0.5 - h / 2.0;
    match shape {
        TileShape::Square => (w / 2.0 - px.abs()).min(h / 2.0 - py.abs()),
        // Pointy: vertical sides at |x| = w/2, slanted sides from (0, ±h/2) to (±w/2, ±h/4).
        TileShape::PointyHex => hex_distance(px.abs(), py.abs(), w, h),
        // Flat: the same hexagon turned a quarter: horizontal sides at |y| = h/2.
        TileShape::FlatHex => hex_distance(py.abs(), px.abs(), h, w),
    }
}

/// Distance inside a pointy hexagon of width `w` (flat to flat) and height `h` (corner to
/// corner), for a point `(ax, ay)` in the first quadrant relative to the centre.
fn hex_distance(ax: f32, ay: f32, w: f32, h: f32) -> f32 {
    let side = w / 2.0 - ax;
    // Slanted edge: h·x + 2w·y = h·w.
    let slant = (h * w - h * ax - 2.0 * w * ay) / (h * h + 4.0 * w * w).sqrt();
    side.min(slant)
}

/// A deterministic hash of a lattice point, in `[0, 1)`.
fn noise(x: i32, y: i32, salt: u32) -> f32 {
    let mut v = (x as u32).wrapping_mul(0x27d4_eb2d)
        ^ (y as u32).wrapping_mul(0x1656_67b1)
        ^ salt.wrapping_mul(0x9e37_79b9);
    v ^= v >> 15;
    v = v.wrapping_mul(0x85eb_ca6b);
    v ^= v >> 13;
    v = v.wrapping_mul(0xc2b2_ae35);
    v ^= v >> 16;
    (v & 0xffff) as f32 / 65536.0
}

type Rgb = [f32; 3];

const fn rgb(r: u8, g: u8, b: u8) -> Rgb {
    [r as f32, g as f32, b as f32]
}

fn shade(c: Rgb, k: f32) -> Rgb {
    [c[0] * k, c[1] * k, c[2] * k]
}

fn jitter(c: Rgb, amount: f32, x: i32, y: i32, salt: u32) -> Rgb {
    let d = (noise(x, y, salt) - 0.5) * 2.0 * amount;
    [c[0] + d, c[1] + d, c[2] + d]
}

const FLOOR: Rgb = rgb(178, 166, 142);
const FLOOR_JOINT: Rgb = rgb(128, 118, 100);
const BRICK: Rgb = rgb(96, 96, 106);
const MORTAR: Rgb = rgb(44, 44, 52);
const WOOD: Rgb = rgb(132, 88, 48);
const FRAME: Rgb = rgb(150, 146, 136);

/// A door seen from above, whichever way its wall runs: a stone frame round the cell and the
/// leaf (wooden planks) filling it, or, open, folded against the left post so the doorway's
/// floor shows.
fn door(art: TileArt, px: f32, py: f32, x: i32, y: i32, w: f32, h: f32) -> Rgb {
    let inset = 5.0;
    if px.abs() > w / 2.0 - inset || py.abs() > h / 2.0 - inset {
        return FRAME;
    }
    let plank = |x: i32| {
        let seam = x.rem_euclid(8) == 0;
        let c = if seam { shade(WOOD, 0.6) } else { WOOD };
        jitter(c, 6.0, x, y, 9)
    };
    match art {
        TileArt::DoorOpen => {
            // The leaf folded against the left post; the doorway's floor shows.
            if px < -w / 2.0 + 6.0 {
                plank(x)
            } else {
                floor(x, y)
            }
        }
        TileArt::DoorLocked => {
            let plate = px.abs() < 4.0 && py.abs() < 5.0;
            let band_iron = (px + w / 4.0).abs() < 1.5 || (px - w / 4.0).abs() < 1.5;
            if plate {
                rgb(200, 170, 60)
            } else if band_iron {
                rgb(50, 50, 56)
            } else {
                shade(plank(x), 0.8)
            }
        }
        _ => plank(x),
    }
}

/// Flagstones: 16-pixel slabs in staggered rows with thin joints.
fn floor(x: i32, y: i32) -> Rgb {
    let row = y.div_euclid(16);
    let xs = x + if row % 2 == 0 { 0 } else { 8 };
    let joint = y.rem_euclid(16) == 0 || xs.rem_euclid(16) == 0;
    if joint {
        FLOOR_JOINT
    } else {
        let slab = (xs.div_euclid(16), row);
        let tone = 0.94 + 0.1 * noise(slab.0, slab.1, 7);
        jitter(shade(FLOOR, tone), 5.0, x, y, 1)
    }
}

/// Bricks: 16 × 8 in running bond, lit from the top left.
fn bricks(x: i32, y: i32) -> Rgb {
    let row = y.div_euclid(8);
    let xs = x + if row % 2 == 0 { 0 } else { 8 };
    let (bx, by) = (xs.rem_euclid(16), y.rem_euclid(8));
    if bx == 0 || by == 0 {
        MORTAR
    } else if bx == 1 || by == 1 {
        shade(BRICK, 1.3)
    } else if bx == 15 || by == 7 {
        shade(BRICK, 0.8)
    } else {
        let tone = 0.92 + 0.14 * noise(xs.div_euclid(16), row, 3);
        jitter(shade(BRICK, tone), 4.0, x, y, 2)
    }
}

/// The colour of one pixel of a tile, before the cell mask; `(px, py)` is relative to the tile
/// centre in pixels (y down), `(x, y)` the pixel in the tile, `(w, h)` the tile size.
fn art_colour(art: TileArt, px: f32, py: f32, x: i32, y: i32, w: f32, h: f32) -> Rgb {
    let s = w.min(h);
    match art {
        TileArt::Floor => floor(x, y),
        TileArt::Rough => {
            // Earth with pebbles on a jittered 8-pixel lattice.
            let base = jitter(rgb(150, 124, 84), 12.0, x, y, 4);
            let (cx, cy) = (x.div_euclid(8), y.div_euclid(8));
            let ox = cx as f32 * 8.0 + 2.0 + 4.0 * noise(cx, cy, 5);
            let oy = cy as f32 * 8.0 + 2.0 + 4.0 * noise(cx, cy, 6);
            let d = ((x as f32 + 0.5 - ox).powi(2) + (y as f32 + 0.5 - oy).powi(2)).sqrt();
            if d < 1.6 {
                rgb(84, 66, 42)
            } else if d < 2.4 && y as f32 + 0.5 < oy {
                rgb(196, 176, 138)
            } else {
                base
            }
        }
        TileArt::Wall => bricks(x, y),
        TileArt::DoorClosed | TileArt::DoorOpen | TileArt::DoorLocked => {
            door(art, px, py, x, y, w, h)
        }
        TileArt::Slit => {
            // Brick with a dark vertical slot in the middle third, in a light stone frame.
            let slot_w = (w / 6.0).max(3.0);
            let slot_h = h * 0.6;
            if px.abs() < slot_w / 2.0 && py.abs() < slot_h / 2.0 {
                let glint = if px.abs() < 1.0 { 40.0 } else { 18.0 };
                [glint, glint, glint + 8.0]
            } else if px.abs() < slot_w / 2.0 + 3.0 && py.abs() < slot_h / 2.0 + 3.0 {
                rgb(190, 186, 176)
            } else {
                bricks(x, y)
            }
        }
        TileArt::Pillar => {
            // A round column on flagstones: shaded disc with a dark outline and a ring.
            let r = s * 0.34;
            let d = (px * px + py * py).sqrt();
            if d < r - 2.0 {
                let light = 1.0 - 0.35 * ((px + py) / (2.0 * r)).clamp(-1.0, 1.0);
                let ring = (d - r * 0.55).abs() < 1.0;
                if ring {
                    rgb(92, 90, 98)
                } else {
                    shade(rgb(150, 148, 158), light)
                }
            } else if d < r {
                rgb(38, 36, 44)
            } else if d < r + 3.0 && px + py > 0.0 {
                // A short shadow to the bottom right.
                shade(floor(x, y), 0.7)
            } else {
                floor(x, y)
            }
        }
        TileArt::Water => {
            // Blue with light wave crests every 8 pixels.
            let base = jitter(rgb(52, 104, 166), 6.0, x, y, 8);
            let band = (py + 4.0).rem_euclid(8.0);
            let crest = 4.0 + 1.6 * (px * 0.45 + (py / 8.0).floor() * 1.7).sin();
            if (band - crest).abs() < 0.9 {
                rgb(168, 204, 236)
            } else if (band - crest - 1.0).abs() < 0.6 {
                rgb(36, 80, 136)
            } else {
                base
            }
        }
        TileArt::Trees => {
            // Dark undergrowth with three round canopies, each outlined and lit.
            let canopies = [
                (-0.2 * s, -0.18 * s, 0.2 * s),
                (0.2 * s, -0.08 * s, 0.19 * s),
                (-0.02 * s, 0.2 * s, 0.2 * s),
            ];
            let mut colour = jitter(rgb(54, 84, 46), 10.0, x, y, 9);
            for (cx, cy, r) in canopies {
                let (dx, dy) = (px - cx, py - cy);
                let d = (dx * dx + dy * dy).sqrt();
                if d < r - 1.5 {
                    let light = 1.1 - 0.4 * ((dx + dy) / (2.0 * r)).clamp(-1.0, 1.0);
                    let leaf = noise(x.div_euclid(3), y.div_euclid(3), 10) * 20.0;
                    colour = shade(rgb(44, 132, 58), light);
                    colour[1] += leaf;
                } else if d < r {
                    colour = rgb(18, 52, 24);
                }
            }
            colour
        }
        TileArt::Rubble => {
            // Flagstones strewn with angular chunks on a jittered 12-pixel lattice.
            let (cx, cy) = (x.div_euclid(12), y.div_euclid(12));
            let ox = cx as f32 * 12.0 + 3.0 + 6.0 * noise(cx, cy, 11);
            let oy = cy as f32 * 12.0 + 3.0 + 6.0 * noise(cx, cy, 12);
            let r = 2.5 + 2.5 * noise(cx, cy, 13);
            let (dx, dy) = (x as f32 + 0.5 - ox, y as f32 + 0.5 - oy);
            let m = dx.abs() + dy.abs() * 1.3;
            if m < r - 1.0 {
                if dx + dy < 0.0 {
                    rgb(150, 146, 140)
                } else {
                    rgb(112, 108, 102)
                }
            } else if m < r + 0.5 {
                rgb(60, 56, 52)
            } else {
                shade(floor(x, y), 0.9)
            }
        }
        TileArt::DeepWater => {
            // Dark blue with sparse, short crests every 12 pixels: deeper than a ford.
            let base = jitter(rgb(26, 56, 112), 5.0, x, y, 15);
            let band = (py + 6.0).rem_euclid(12.0);
            let crest = 6.0 + 2.0 * (px * 0.3 + (py / 12.0).floor() * 2.3).sin();
            let short = (px * 0.2 + (py / 12.0).floor()).sin() > 0.2;
            if short && (band - crest).abs() < 0.8 {
                rgb(92, 132, 188)
            } else {
                base
            }
        }
        TileArt::Chasm => {
            // Near-black with diagonal hatching.
            if (x + y).rem_euclid(6) == 0 {
                rgb(70, 64, 82)
            } else {
                jitter(rgb(18, 16, 24), 4.0, x, y, 14)
            }
        }
    }
}

/// One RGBA pixel of a tile: the art, darkened along the cell's edge (the grid line) and
/// transparent outside the cell (hexes).
fn tile_pixel(art: TileArt, shape: TileShape, x: u32, y: u32) -> [u8; 4] {
    let (w, h) = shape.tile_size();
    let (wf, hf) = (w as f32, h as f32);
    let px = x as f32 + 0.5 - wf / 2.0;
    let py = y as f32 + 0.5 - hf / 2.0;
    let d = edge_distance(shape, x, y);
    // Half a pixel of tolerance: neighbouring hexes overlap by a pixel instead of leaving
    // a hairline gap along their slanted sides.
    if d < -0.5 {
        return [0, 0, 0, 0];
    }
    let mut c = art_colour(art, px, py, x as i32, y as i32, wf, hf);
    if d < 1.0 {
        c = shade(c, 0.55);
    } else if d < 2.0 {
        c = shade(c, 0.8);
    }
    let q = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    [q(c[0]), q(c[1]), q(c[2]), 255]
}

/// Side of the square unit-disc image, in pixels.
pub const DISC_SIZE: u32 = 64;

/// A white disc with a grey rim and soft edge, RGBA8, `size × size`.
pub fn disc_pixels(size: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    let r = size as f32 / 2.0 - 1.0;
    for y in 0..size {
        for x in 0..size {
            let px = x as f32 + 0.5 - size as f32 / 2.0;
            let py = y as f32 + 0.5 - size as f32 / 2.0;
            let d = (px * px + py * py).sqrt();
            let alpha = (r - d + 0.5).clamp(0.0, 1.0);
            let grey = if d > r - 4.0 {
                // The rim: tinted darker than the body.
                110.0
            } else {
                // A little light from the top left.
                255.0 - 30.0 * ((px + py) / (2.0 * r)).clamp(0.0, 1.0)
            };
            let g = grey as u8;
            out.extend_from_slice(&[g, g, g, (alpha * 255.0) as u8]);
        }
    }
    out
}

/// The silhouettes, 16x16, in the order of [`crate::rules::ruleset_data::SILHOUETTES`]:
/// soldier (sword and shield), archer (bow), brute (hammer), caster (hat and staff),
/// skirmisher (two daggers, crouching), beast (on four legs).
const SILHOUETTE_ART: [[&str; 16]; 6] = [
    [
        "................",
        ".......##.......",
        "......####......",
        "......####......",
        ".......##.....#.",
        ".##..######..#..",
        "####.######.#...",
        "####.######.....",
        "####.######.....",
        ".##..######.....",
        "......#..#......",
        "......#..#......",
        "......#..#......",
        ".....##..##.....",
        "................",
        "................",
    ],
    [
        "................",
        ".......##....#..",
        "......####....#.",
        "......####.....#",
        ".......##......#",
        ".....######....#",
        "....#######....#",
        "...##.####.#####",
        ".....######....#",
        ".....######....#",
        "......#..#.....#",
        "......#..#.....#",
        "......#..#....#.",
        ".....##..##..#..",
        "................",
        "................",
    ],
    [
        ".............###",
        "......###....###",
        ".....#####....#.",
        ".....#####...#..",
        "......###...#...",
        "...#########....",
        "..##########....",
        ".###########....",
        ".###.#####.##...",
        ".##..#####..##..",
        ".....#####......",
        ".....##.##......",
        "....###.###.....",
        "...####.####....",
        "................",
        "................",
    ],
    [
        ".......#........",
        "......###.......",
        ".....#####...#..",
        "....#######.###.",
        "......###....#..",
        "......###....#..",
        ".....#####...#..",
        "....#######.##..",
        "...#########.#..",
        "...#########.#..",
        "..###########...",
        "..###########...",
        ".#############..",
        ".#############..",
        "................",
        "................",
    ],
    [
        "................",
        "........##......",
        ".......####.....",
        ".......####.....",
        "..#.....##...#..",
        "...#..######.#..",
        "....########....",
        ".....######.....",
        ".....######.....",
        ".....#######....",
        "....##....##....",
        "...##......##...",
        "..##........##..",
        ".##..........#..",
        "................",
        "................",
    ],
    [
        "................",
        "................",
        "..##............",
        ".####...........",
        ".#####..........",
        "########........",
        ".#######.......#",
        "...###########.#",
        "...############.",
        "...############.",
        "...##.#....#.##.",
        "...#..#....#..#.",
        "..##..##..##..##",
        "................",
        "................",
        "................",
    ],
];

/// A bitmap (`#` set) scaled `k` times, in `colour` with a dark one-pixel outline, RGBA8.
fn bitmap_pixels(rows: &[&str], k: u32, colour: [u8; 3]) -> Vec<u8> {
    let h = rows.len() as u32;
    let w = rows.first().map_or(0, |r| r.len()) as u32;
    let set = |x: i32, y: i32| {
        x >= 0
            && y >= 0
            && (y as u32) < h
            && (x as u32) < w
            && rows[y as usize].as_bytes()[x as usize] == b'#'
    };
    let (pw, ph) = (w * k, h * k);
    let mut out = vec![0u8; (pw * ph * 4) as usize];
    for py in 0..ph {
        for px in 0..pw {
            let (x, y) = ((px / k) as i32, (py / k) as i32);
            let i = ((py * pw + px) * 4) as usize;
            if set(x, y) {
                out[i..i + 4].copy_from_slice(&[colour[0], colour[1], colour[2], 255]);
            } else {
                // Outline: a set pixel within one scaled pixel.
                let near = [(-1, 0), (1, 0), (0, -1), (0, 1)].iter().any(|(dx, dy)| {
                    let qx = (px as i32 + dx * (k as i32 / 2).max(1)).div_euclid(k as i32);
                    let qy = (py as i32 + dy * (k as i32 / 2).max(1)).div_euclid(k as i32);
                    set(qx, qy)
                });
                if near {
                    out[i..i + 4].copy_from_slice(&[20, 18, 24, 230]);
                }
            }
        }
    }
    out
}

/// Status icons shown over a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    Prone = 0,
    Surprised = 1,
    Stunned = 2,
    Grappled = 3,
    Dodging = 4,
    Guarding = 5,
    TotalDefense = 6,
    Disengaged = 7,
    InCover = 8,
    Screening = 9,
    Holding = 10,
    Casting = 11,
    Down = 12,
    Other = 13,
    /// Broke and runs for the map's edge (`sides` morale).
    Fleeing = 14,
    /// Left the map (`sides` morale).
    Fled = 15,
}

impl Icon {
    pub const ALL: [Icon; 16] = [
        Icon::Prone,
        Icon::Surprised,
        Icon::Stunned,
        Icon::Grappled,
        Icon::Dodging,
        Icon::Guarding,
        Icon::TotalDefense,
        Icon::Disengaged,
        Icon::InCover,
        Icon::Screening,
        Icon::Holding,
        Icon::Casting,
        Icon::Down,
        Icon::Other,
        Icon::Fleeing,
        Icon::Fled,
    ];

    fn bitmap(self) -> [&'static str; 8] {
        match self {
            Icon::Prone => [
                "...##...", "...##...", "...##...", ".######.", "..####..", "...##...", "........",
                "########",
            ],
            Icon::Surprised => [
                "...##...", "...##...", "...##...", "...##...", "...##...", "........", "...##...",
                "...##...",
            ],
            Icon::Stunned => [
                ".####...", "#....#..", "#.##..#.", "#.#.#.#.", "#.#..#..", "#..##...", ".#......",
                "..####..",
            ],
            Icon::Grappled => [
                ".##.....", "#..#....", "#..###..", ".##..#..", "..#..##.", "..###..#", ".....#.#",
                "......#.",
            ],
            Icon::Dodging => [
                "........", ".##...#.", "#..#.#..", "....#...", "........", ".##...#.", "#..#.#..",
                "....#...",
            ],
            Icon::Guarding => [
                "########", "#......#", "#.####.#", "#.####.#", "#.####.#", ".#.##.#.", "..#..#..",
                "...##...",
            ],
            Icon::TotalDefense => [
                "########", "########", "########", "########", ".######.", ".######.", "..####..",
                "...##...",
            ],
            Icon::Disengaged => [
                "........", "..#..#..", ".##..##.", "###..###", ".##..##.", "..#..#..", "........",
                "........",
            ],
            Icon::InCover => [
                "........", "########", "#..#..##", "########", "##..#..#", "########", "........",
                "........",
            ],
            Icon::Screening => [
                ".######.", "##....##", "##......", ".######.", "......##", "##....##", ".######.",
                "........",
            ],
            Icon::Holding => [
                "########", ".#....#.", "..#..#..", "...##...", "...##...", "..#..#..", ".#....#.",
                "########",
            ],
            Icon::Casting => [
                "...#....", "...#....", "..###...", "#######.", "..###...", "...#....", "...#....",
                "........",
            ],
            Icon::Down => [
                "#......#", ".#....#.", "..#..#..", "...##...", "...##...", "..#..#..", ".#....#.",
                "#......#",
            ],
            Icon::Fleeing => [
                "........", "#...#...", ".#...#..", "..#...#.", "..#...#.", ".#...#..", "#...#...",
                "........",
            ],
            Icon::Fled => [
                "####....", "#.......", "#...#...", "#.#####.", "#...#...", "#.......", "####....",
                "........",
            ],
            Icon::Other => [
                ".####...", "#....#..", ".....#..", "...##...", "...#....", "........", "...#....",
                "........",
            ],
        }
    }
}

/// A 20x20 icon: a dark round badge with the white 8x8 bitmap scaled twice in the middle.
fn icon_pixels(icon: Icon) -> Vec<u8> {
    let rows = icon.bitmap();
    let mut out = vec![0u8; 20 * 20 * 4];
    for y in 0..20 {
        for x in 0..20 {
            let (fx, fy) = (x as f32 - 9.5, y as f32 - 9.5);
            let d = (fx * fx + fy * fy).sqrt();
            let i = (y * 20 + x) * 4;
            if d <= 9.8 {
                let rim = d > 8.6;
                let c = if rim { [230, 200, 120] } else { [30, 28, 40] };
                out[i..i + 4].copy_from_slice(&[c[0], c[1], c[2], 240]);
            }
            let (bx, by) = (x as i32 - 2, y as i32 - 2);
            if (0..16).contains(&bx)
                && (0..16).contains(&by)
                && rows[(by / 2) as usize].as_bytes()[(bx / 2) as usize] == b'#'
            {
                out[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
    }
    out
}

/// Overlay fills: each has its own pattern so they read without colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Reachable: a soft fill with a dot in the middle.
    Reach = 0,
    /// Threatened: diagonal hatching.
    Threat = 1,
    /// The cursor: a thick outline.
    Cursor = 2,
    /// A valid target or destination of the chosen action: corner brackets.
    Target = 3,
    /// The whole cell, opaque, with a darker rim: the level editor's hex cells, tinted with
    /// their terrain's colour.
    Cell = 4,
}

impl Pattern {
    pub const ALL: [Pattern; 5] = [
        Pattern::Reach,
        Pattern::Threat,
        Pattern::Cursor,
        Pattern::Target,
        Pattern::Cell,
    ];
}

/// A white overlay pattern masked to the cell shape (tinted when drawn).
fn pattern_pixels(p: Pattern, shape: TileShape) -> Vec<u8> {
    let (w, h) = shape.tile_size();
    let mut out = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            let d = edge_distance(shape, x, y);
            if d < 0.0 {
                continue;
            }
            let (px, py) = (
                x as f32 + 0.5 - w as f32 / 2.0,
                y as f32 + 0.5 - h as f32 / 2.0,
            );
            let a: u8 = match p {
                Pattern::Reach => {
                    let r = (px * px + py * py).sqrt();
                    if r < 4.0 {
                        230
                    } else if d < 2.5 {
                        200
                    } else {
                        70
                    }
                }
                Pattern::Threat => {
                    if (x + y) % 10 < 3 {
                        190
                    } else if d < 2.0 {
                        160
                    } else {
                        0
                    }
                }
                Pattern::Cursor => {
                    if d < 4.0 {
                        255
                    } else {
                        0
                    }
                }
                Pattern::Target => {
                    let corner = px.abs() > w as f32 * 0.22 && py.abs() > h as f32 * 0.18;
                    if d < 4.0 && corner {
                        255
                    } else if d < 2.0 {
                        120
                    } else {
                        0
                    }
                }
                Pattern::Cell => 255,
            };
            // The editor's cell: a rim a quarter as bright, so neighbours stay apart.
            let v = if p == Pattern::Cell && d < 1.5 {
                64
            } else {
                255
            };
            let i = ((y * w + x) * 4) as usize;
            out[i..i + 4].copy_from_slice(&[v, v, v, a]);
        }
    }
    out
}

/// The base of a token, white: 0 circle, 1 rounded square, 2 diamond, 3 octagon; a darker rim.
pub fn base_pixels(kind: usize, size: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    let r = size as f32 / 2.0 - 1.0;
    for y in 0..size {
        for x in 0..size {
            let px = x as f32 + 0.5 - size as f32 / 2.0;
            let py = y as f32 + 0.5 - size as f32 / 2.0;
            // Signed distance to the edge (positive inside).
            let d = match kind % 4 {
                0 => r - (px * px + py * py).sqrt(),
                1 => (r * 0.9 - px.abs()).min(r * 0.9 - py.abs()),
                2 => (r - (px.abs() + py.abs())) / std::f32::consts::SQRT_2,
                _ => {
                    let a = r * 0.93 - px.abs().max(py.abs());
                    let b = (r * 1.25 - (px.abs() + py.abs())) / std::f32::consts::SQRT_2;
                    a.min(b)
                }
            };
            let alpha = (d + 0.5).clamp(0.0, 1.0);
            let grey = if d < 4.0 {
                120.0
            } else {
                255.0 - 40.0 * ((px + py) / (2.0 * r)).clamp(0.0, 1.0)
            };
            let g = grey as u8;
            out.extend_from_slice(&[g, g, g, (alpha * 255.0) as u8]);
        }
    }
    out
}

fn ring_pixels(size: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    let r = size as f32 / 2.0 - 1.5;
    for y in 0..size {
        for x in 0..size {
            let px = x as f32 + 0.5 - size as f32 / 2.0;
            let py = y as f32 + 0.5 - size as f32 / 2.0;
            let d = (px * px + py * py).sqrt();
            let a = (3.0 - (d - (r - 3.0)).abs()).clamp(0.0, 1.0);
            out.extend_from_slice(&[255, 255, 255, (a * 255.0) as u8]);
        }
    }
    out
}

fn dot_pixels(size: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    let r = size as f32 / 2.0 - 0.5;
    for y in 0..size {
        for x in 0..size {
            let px = x as f32 + 0.5 - size as f32 / 2.0;
            let py = y as f32 + 0.5 - size as f32 / 2.0;
            let d = (px * px + py * py).sqrt();
            let a = (r - d).clamp(0.0, 1.0);
            let g = if d > r - 2.5 { 40 } else { 255 };
            out.extend_from_slice(&[g, g, g, (a * 255.0) as u8]);
        }
    }
    out
}

/// A warning triangle: orange-ready white with a black "!" and outline.
fn warning_pixels(size: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    let s = size as f32;
    for y in 0..size {
        for x in 0..size {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            // Apex at the top centre, base at the bottom.
            let half = (fy / s) * (s / 2.0);
            let inside = (fx - s / 2.0).abs() <= half && fy <= s - 1.0;
            let edge = inside && ((fx - s / 2.0).abs() > half - 2.0 || fy > s - 3.0);
            let bang = (fx - s / 2.0).abs() < 1.5
                && ((fy > s * 0.35 && fy < s * 0.7) || (fy > s * 0.76 && fy < s * 0.86));
            let c: [u8; 4] = if !inside {
                [0, 0, 0, 0]
            } else if edge || bang {
                [10, 10, 10, 255]
            } else {
                [255, 255, 255, 255]
            };
            out.extend_from_slice(&c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::map::kinds;

    #[test]
    fn standard_kinds_get_distinct_tiles() {
        assert_eq!(TileArt::for_terrain(&kinds::floor()), TileArt::Floor);
        assert_eq!(TileArt::for_terrain(&kinds::rough()), TileArt::Rough);
        assert_eq!(TileArt::for_terrain(&kinds::wall()), TileArt::Wall);
        assert_eq!(TileArt::for_terrain(&kinds::slit()), TileArt::Slit);
    }

    #[test]
    fn names_and_properties_pick_tiles() {
        let t = |name: &str, cost: Option<u32>, sight: Sight, difficult: bool| Terrain {
            name: name.into(),
            cost,
            sight,
            difficult,
            door: None,
        };
        assert_eq!(
            TileArt::for_terrain(&t("shallow water", Some(2), Sight::Clear, true)),
            TileArt::Water
        );
        assert_eq!(
            TileArt::for_terrain(&t("deep water", None, Sight::Clear, false)),
            TileArt::DeepWater
        );
        assert_eq!(
            TileArt::for_terrain(&t("thick trees", Some(3), Sight::Opaque, true)),
            TileArt::Trees
        );
        assert_eq!(
            TileArt::for_terrain(&t("Stone Pillar", None, Sight::Opaque, false)),
            TileArt::Pillar
        );
        assert_eq!(
            TileArt::for_terrain(&t("window", None, Sight::Slit, false)),
            TileArt::Slit
        );
        assert_eq!(
            TileArt::for_terrain(&t("hedge of thorns", None, Sight::Opaque, false)),
            TileArt::Trees
        );
        // Properties decide when the name says nothing.
        assert_eq!(
            TileArt::for_terrain(&t("xyz", None, Sight::Opaque, false)),
            TileArt::Wall
        );
        assert_eq!(
            TileArt::for_terrain(&t("xyz", None, Sight::Slit, false)),
            TileArt::Slit
        );
        assert_eq!(
            TileArt::for_terrain(&t("xyz", None, Sight::Clear, false)),
            TileArt::Chasm
        );
        assert_eq!(
            TileArt::for_terrain(&t("xyz", Some(2), Sight::Clear, true)),
            TileArt::Rough
        );
        assert_eq!(
            TileArt::for_terrain(&t("xyz", Some(1), Sight::Clear, false)),
            TileArt::Floor
        );
    }

    #[test]
    fn silhouettes_are_16_by_16_and_distinct() {
        assert_eq!(
            SILHOUETTE_ART.len(),
            crate::rules::ruleset_data::SILHOUETTES.len()
        );
        for (i, a) in SILHOUETTE_ART.iter().enumerate() {
            for row in a {
                assert_eq!(row.len(), 16, "silhouette {i}");
            }
            for b in &SILHOUETTE_ART[i + 1..] {
                assert_ne!(a, b);
            }
        }
        for icon in Icon::ALL {
            let rows = icon.bitmap();
            assert!(rows.iter().all(|r| r.len() == 8), "{icon:?}");
        }
    }

    #[test]
    fn atlases_have_one_tile_per_art() {
        for shape in [TileShape::Square, TileShape::PointyHex, TileShape::FlatHex] {
            let (tw, th) = shape.tile_size();
            let (w, h, px) = atlas_pixels(shape);
            assert_eq!((w, h), (tw * TileArt::ALL.len() as u32, th));
            assert_eq!(px.len(), (w * h * 4) as usize);
        }
    }

    #[test]
    fn hex_tiles_are_masked_to_a_hexagon() {
        // Pointy: the corners of the tile rectangle are outside, the centre and the middle of
        // the left and right edges inside.
        let (w, h) = TileShape::PointyHex.tile_size();
        let alpha = |x, y| tile_pixel(TileArt::Floor, TileShape::PointyHex, x, y)[3];
        assert_eq!(alpha(0, 0), 0);
        assert_eq!(alpha(w - 1, h - 1), 0);
        assert_eq!(alpha(w / 2, h / 2), 255);
        assert_eq!(alpha(0, h / 2), 255);
        assert_eq!(alpha(w / 2, 0), 255);
        // Flat: the middle of the top and bottom edges inside, the tile corners outside.
        let (w, h) = TileShape::FlatHex.tile_size();
        let alpha = |x, y| tile_pixel(TileArt::Floor, TileShape::FlatHex, x, y)[3];
        assert_eq!(alpha(0, 0), 0);
        assert_eq!(alpha(w / 2, 0), 255);
        assert_eq!(alpha(0, h / 2), 255);
        // Square tiles are opaque everywhere.
        let alpha = |x, y| tile_pixel(TileArt::Floor, TileShape::Square, x, y)[3];
        assert_eq!(alpha(0, 0), 255);
    }

    #[test]
    fn hex_masks_tile_the_plane_without_gaps() {
        // Pointy hexes of a RowOdd layout: rows 3/4 h apart, odd rows shifted w/2. Every pixel
        // of the plane near the origin must be covered by some hex.
        let (w, h) = TileShape::PointyHex.tile_size();
        let covered = |wx: i32, wy: i32| {
            (-2..=2).any(|row: i32| {
                (-2..=2).any(|col: i32| {
                    let cx = col * w as i32
                        + if row.rem_euclid(2) == 1 {
                            w as i32 / 2
                        } else {
                            0
                        };
                    let cy = row * (h as i32 * 3 / 4);
                    let x = wx - cx + w as i32 / 2;
                    let y = wy - cy + h as i32 / 2;
                    (0..w as i32).contains(&x)
                        && (0..h as i32).contains(&y)
                        && edge_distance(TileShape::PointyHex, x as u32, y as u32) >= -0.5
                })
            })
        };
        for wy in -40..40 {
            for wx in -60..60 {
                assert!(covered(wx, wy), "gap at ({wx}, {wy})");
            }
        }
    }
}
