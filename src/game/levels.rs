//! Levels as Bevy assets: a `.ron` loader that never fails (a broken level becomes a
//! [`LevelAsset`] holding its `file:line:col` errors), the [`Catalog`] of every level in
//! `levels/` the setup screen lists, with a map thumbnail each, and hot reload: with Bevy's
//! `file_watcher` feature a saved edit reloads the level on the Setup screen and restarts the
//! battle on it (or shows its errors on screen if the edit broke it).

use std::path::{Path, PathBuf};

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext, RenderAssetUsages};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use super::art::TileArt;
use super::units::side_colour;
use crate::rules::grid::{Cell, Topology};
use crate::rules::level::{self, Level};

/// The asset source the levels folder is registered as (`levels://name.ron`).
pub const SOURCE: &str = "levels";

pub(super) fn plugin(app: &mut App) {
    app.init_asset::<LevelAsset>()
        .init_asset_loader::<LevelLoader>()
        .init_resource::<Catalog>()
        .add_message::<LevelChanged>()
        .add_systems(Startup, load_catalog)
        .add_systems(
            Update,
            (track_assets, recolour_thumbnails)
                .chain()
                .in_set(super::AppSystems::RecordInput),
        );
}

/// A level file as loaded: the ready level, or every problem as `file:line:col: error: ...`.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct LevelAsset {
    pub file_name: String,
    pub level: Result<Level, Vec<String>>,
}

/// Loads `*.ron` levels; never fails, so broken levels can be listed with their errors.
#[derive(TypePath)]
pub struct LevelLoader {
    /// The folder of the `levels` source, to name files in messages.
    dir: PathBuf,
}

impl FromWorld for LevelLoader {
    fn from_world(world: &mut World) -> Self {
        let dir = world
            .get_resource::<LevelsDir>()
            .map_or_else(crate::rules::level::levels_dir, |d| d.0.clone());
        Self { dir }
    }
}

/// The loader cannot fail (its errors are part of the asset); this type is never built.
#[derive(Debug)]
pub struct NeverFails;

impl std::fmt::Display for NeverFails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unreachable")
    }
}

impl std::error::Error for NeverFails {}

impl AssetLoader for LevelLoader {
    type Asset = LevelAsset;
    type Settings = ();
    type Error = NeverFails;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<LevelAsset, NeverFails> {
        let path = load_context.path().path().to_path_buf();
        let file_name = display_name(&self.dir.join(&path));
        let mut bytes = Vec::new();
        let level = match reader.read_to_end(&mut bytes).await {
            Ok(_) => level::load_bytes(&file_name, &bytes)
                .map_err(|d| d.iter().map(|d| d.to_string()).collect()),
            Err(e) => Err(vec![format!("{file_name}:1:1: error: cannot read: {e}")]),
        };
        Ok(LevelAsset { file_name, level })
    }

    fn extensions(&self) -> &[&str] {
        &["ron"]
    }
}

/// How a level file is named in messages: relative to the working directory when it is
/// inside it (`levels/ruins.ron`), else in full.
fn display_name(path: &Path) -> String {
    let here = std::env::current_dir().ok();
    here.as_deref()
        .and_then(|h| path.strip_prefix(h).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// One level of the catalog.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The file on disk.
    pub path: PathBuf,
    pub handle: Handle<LevelAsset>,
    /// `None` until loaded.
    pub level: Option<Result<Level, Vec<String>>>,
    pub thumbnail: Option<Handle<Image>>,
}

impl Entry {
    /// The level's name, or its file name while loading or when broken.
    pub fn title(&self) -> String {
        match &self.level {
            Some(Ok(l)) => l.name().to_string(),
            _ => self
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        }
    }
}

/// Every level in the levels folder, in file-name order.
#[derive(Resource, Debug, Default)]
pub struct Catalog {
    pub entries: Vec<Entry>,
}

impl Catalog {
    /// The entry of a level file.
    pub fn find(&self, path: &Path) -> Option<&Entry> {
        let want = std::fs::canonicalize(path).ok();
        self.entries.iter().find(|e| {
            e.path == path || (want.is_some() && std::fs::canonicalize(&e.path).ok() == want)
        })
    }
}

/// A level of the catalog was loaded, or reloaded after its file changed.
#[derive(Message, Debug, Clone)]
pub struct LevelChanged {
    pub path: PathBuf,
    /// The file changed on disk (a hot reload), not its first load.
    pub modified: bool,
}

fn load_catalog(
    mut catalog: ResMut<Catalog>,
    server: Res<AssetServer>,
    dir: Option<Res<LevelsDir>>,
) {
    let dir = dir.map_or_else(crate::rules::level::levels_dir, |d| d.0.clone());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|r| {
            r.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    catalog.entries = files
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some(Entry {
                handle: server.load(format!("{SOURCE}://{name}")),
                path,
                level: None,
                thumbnail: None,
            })
        })
        .collect();
}

/// The folder the catalog lists (default: [`crate::rules::level::levels_dir`]); it must be
/// the folder the `levels` asset source reads.
#[derive(Resource, Debug, Clone)]
pub struct LevelsDir(pub PathBuf);

fn track_assets(
    mut events: MessageReader<AssetEvent<LevelAsset>>,
    assets: Res<Assets<LevelAsset>>,
    mut catalog: ResMut<Catalog>,
    mut images: ResMut<Assets<Image>>,
    mut changed: MessageWriter<LevelChanged>,
    settings: Option<Res<super::battle::Settings>>,
) {
    let colour_blind = settings.is_some_and(|s| s.colour_blind);
    for e in events.read() {
        let (AssetEvent::LoadedWithDependencies { id } | AssetEvent::Modified { id }) = e else {
            continue;
        };
        let Some(asset) = assets.get(*id) else {
            continue;
        };
        let Some(entry) = catalog.entries.iter_mut().find(|en| en.handle.id() == *id) else {
            continue;
        };
        entry.level = Some(asset.level.clone());
        entry.thumbnail = asset
            .level
            .as_ref()
            .ok()
            .map(|l| images.add(thumbnail(l, colour_blind)));
        changed.write(LevelChanged {
            path: entry.path.clone(),
            modified: matches!(e, AssetEvent::Modified { .. }),
        });
    }
}

/// Draws every level's thumbnail again when the side colours' palette changes (the setting),
/// so the setup screen's map dots keep to the colours of its side swatches.
fn recolour_thumbnails(
    settings: Option<Res<super::battle::Settings>>,
    mut catalog: ResMut<Catalog>,
    mut images: ResMut<Assets<Image>>,
    mut drawn: Local<Option<bool>>,
) {
    let colour_blind = settings.is_some_and(|s| s.colour_blind);
    if drawn.is_none() {
        *drawn = Some(colour_blind);
        return;
    }
    if *drawn == Some(colour_blind) {
        return;
    }
    *drawn = Some(colour_blind);
    for entry in &mut catalog.entries {
        if let Some(Ok(level)) = &entry.level {
            entry.thumbnail = Some(images.add(thumbnail(level, colour_blind)));
        }
    }
}

/// Pixels per cell of a thumbnail.
const THUMB_CELL: u32 = 6;

/// A small picture of a level's map: one colour per terrain picture, hex rows (or columns)
/// offset by half a cell, units as dots in their side's colour (in the colour-blind-safe
/// palette if `colour_blind`).
pub fn thumbnail(level: &Level, colour_blind: bool) -> Image {
    let units: Vec<(Cell, Option<usize>)> = level
        .file
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| (Cell::new(u.cell.0, u.cell.1), level.unit_side(i)))
        .collect();
    let (w, h, px) = thumbnail_pixels(level, &units, colour_blind);
    rgba_image(w, h, px)
}

/// A battle's board as it stands, in the same style: its level's map and its standing (or
/// fallen) units where they are now. RGBA8 rows, `(width, height, pixels)`.
pub fn battle_thumbnail(
    level: &Level,
    state: &crate::rules::battle::BattleState,
    colour_blind: bool,
) -> (u32, u32, Vec<u8>) {
    let units: Vec<(Cell, Option<usize>)> = state
        .units
        .iter()
        .filter(|u| u.status != crate::rules::battle::Status::Dead)
        .map(|u| (u.cell, Some(u.side.index())))
        .collect();
    thumbnail_pixels(level, &units, colour_blind)
}

/// An RGBA8 picture as a Bevy image.
pub fn rgba_image(w: u32, h: u32, px: Vec<u8>) -> Image {
    Image::new(
        Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        px,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD,
    )
}

fn thumbnail_pixels(
    level: &Level,
    units: &[(Cell, Option<usize>)],
    colour_blind: bool,
) -> (u32, u32, Vec<u8>) {
    let grid = level.grid;
    let hex = grid.topology.is_hex();
    let pointy = matches!(
        grid.topology,
        Topology::Hex {
            orientation: crate::rules::grid::HexOrientation::Pointy
        }
    );
    let k = THUMB_CELL;
    let (w, h) = (
        grid.width * k + if hex && pointy { k / 2 } else { 0 },
        grid.height * k + if hex && !pointy { k / 2 } else { 0 },
    );
    let mut px = vec![0u8; (w * h * 4) as usize];
    let mut put = |x: u32, y: u32, c: [u8; 4]| {
        if x < w && y < h {
            let i = ((y * w + x) * 4) as usize;
            px[i..i + 4].copy_from_slice(&c);
        }
    };
    let origin = |c: Cell| {
        let (mut x, mut y) = (c.x as u32 * k, c.y as u32 * k);
        if hex && pointy && c.y % 2 == 1 {
            x += k / 2;
        }
        if hex && !pointy && c.x % 2 == 1 {
            y += k / 2;
        }
        (x, y)
    };
    for c in grid.cells() {
        let art = level
            .terrain
            .terrain(c)
            .map_or(TileArt::Floor, TileArt::for_terrain);
        let colour = art.swatch();
        let (x0, y0) = origin(c);
        for dy in 0..k {
            for dx in 0..k {
                put(x0 + dx, y0 + dy, colour);
            }
        }
    }
    for &(c, side) in units {
        if !grid.contains(c) {
            continue;
        }
        let colour = side_colour(side, colour_blind).to_srgba();
        let rgba = [
            (colour.red * 255.0) as u8,
            (colour.green * 255.0) as u8,
            (colour.blue * 255.0) as u8,
            255,
        ];
        let (x0, y0) = origin(c);
        for dy in 1..k - 1 {
            for dx in 1..k - 1 {
                put(x0 + dx, y0 + dy, rgba);
            }
        }
    }
    (w, h, px)
}
