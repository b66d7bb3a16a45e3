//! The game without a window: the GPU-free plugins on `MinimalPlugins`, driven by
//! `app.update()`.
#![cfg(feature = "game")]

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;

use fray::game::art::TileArt;
use fray::game::board::{Board, BoardCell, BoardLayout};
use fray::game::level::{self, BoardLevel, LevelErrors};
use fray::game::units::UnitToken;
use fray::rules::grid::{Cell, Diagonals, HexOrientation, Topology};

fn app_with(level: Option<BoardLevel>, errors: Option<LevelErrors>) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .init_asset::<Image>();
    if let Some(level) = level {
        app.insert_resource(level);
    }
    if let Some(errors) = errors {
        app.insert_resource(errors);
    }
    app.add_plugins(fray::game::core_plugin);
    for _ in 0..3 {
        app.update();
    }
    app
}

/// Texture index of every drawn cell.
fn drawn(app: &mut App) -> Vec<(Cell, TilePos, u32)> {
    let mut q = app
        .world_mut()
        .query::<(&BoardCell, &TilePos, &TileTextureIndex)>();
    let mut out: Vec<_> = q
        .iter(app.world())
        .map(|(c, p, t)| (c.0, *p, t.0))
        .collect();
    out.sort_by_key(|(c, _, _)| (c.y, c.x));
    out
}

fn index_at(tiles: &[(Cell, TilePos, u32)], x: i32, y: i32) -> u32 {
    tiles
        .iter()
        .find(|(c, _, _)| *c == Cell::new(x, y))
        .map(|(_, _, i)| *i)
        .unwrap_or_else(|| panic!("no tile for ({x}, {y})"))
}

fn check_demo(topology: Topology) {
    let level = level::demo(topology);
    let grid = *level.terrain.grid();
    let mut app = app_with(Some(level.clone()), None);

    // One board whose storage holds one tile per cell.
    let mut boards = app
        .world_mut()
        .query_filtered::<(&TileStorage, &TilemapSize, &TilemapTexture, &TilemapType), With<Board>>(
        );
    let (storage, size, texture, map_type) = boards.single(app.world()).expect("one board");
    assert_eq!((size.x, size.y), (grid.width, grid.height));
    assert_eq!(storage.iter().flatten().count(), grid.len());
    let handle = match texture {
        TilemapTexture::Single(h) => h.clone(),
        other => panic!("unexpected texture {other:?}"),
    };
    let map_type = *map_type;
    assert!(
        app.world()
            .resource::<Assets<Image>>()
            .get(&handle)
            .is_some(),
        "the atlas exists"
    );
    match topology {
        Topology::Square { .. } => assert_eq!(map_type, TilemapType::Square),
        // 9 rows: odd height keeps the odd-r parity after flipping rows.
        Topology::Hex {
            orientation: HexOrientation::Pointy,
        } => assert_eq!(map_type, TilemapType::Hexagon(HexCoordSystem::RowOdd)),
        Topology::Hex {
            orientation: HexOrientation::Flat,
        } => assert_eq!(map_type, TilemapType::Hexagon(HexCoordSystem::ColumnEven)),
    }

    let tiles = drawn(&mut app);
    assert_eq!(tiles.len(), grid.len());
    // Rows are flipped: row 0 (top of the map text) is the tilemap's top row.
    for (cell, pos, _) in &tiles {
        assert_eq!(
            (pos.x, pos.y),
            (cell.x as u32, grid.height - 1 - cell.y as u32)
        );
    }
    // Known cells of the demo map.
    assert_eq!(index_at(&tiles, 0, 0), TileArt::Wall.index());
    assert_eq!(index_at(&tiles, 2, 0), TileArt::Floor.index());
    assert_eq!(index_at(&tiles, 1, 1), TileArt::Pillar.index());
    assert_eq!(index_at(&tiles, 6, 1), TileArt::Rough.index());
    assert_eq!(index_at(&tiles, 3, 2), TileArt::Water.index());
    assert_eq!(index_at(&tiles, 7, 2), TileArt::Trees.index());
    assert_eq!(index_at(&tiles, 11, 2), TileArt::Slit.index());
    assert_eq!(index_at(&tiles, 0, 4), TileArt::Slit.index());
    assert_eq!(index_at(&tiles, 5, 4), TileArt::Rubble.index());

    // One token per unit, standing on its cell.
    let layout = BoardLayout::new(grid);
    let mut units = app.world_mut().query::<(&UnitToken, &Transform)>();
    let tokens: Vec<(usize, Vec2)> = units
        .iter(app.world())
        .map(|(u, t)| (u.0, t.translation.truncate()))
        .collect();
    assert_eq!(tokens.len(), level.units.len());
    for (i, at) in tokens {
        let cell = level.units[i].cell;
        let center = layout.cell_center(cell).expect("units stand on the map");
        assert!(
            at.distance(center) < 0.01,
            "unit {i} at {at}, cell {cell} at {center}"
        );
    }
    // The tile of the top-left cell is drawn above and left of the bottom-right one.
    let top_left = layout.cell_center(Cell::new(0, 0)).expect("in bounds");
    let w = grid.width as i32;
    let h = grid.height as i32;
    let bottom_right = layout
        .cell_center(Cell::new(w - 1, h - 1))
        .expect("in bounds");
    assert!(top_left.x < bottom_right.x && top_left.y > bottom_right.y);
}

#[test]
fn square_board_has_one_tile_per_cell() {
    check_demo(Topology::Square {
        diagonals: Diagonals::One,
    });
}

#[test]
fn pointy_hex_board_has_one_tile_per_cell() {
    check_demo(Topology::Hex {
        orientation: HexOrientation::Pointy,
    });
}

#[test]
fn flat_hex_board_has_one_tile_per_cell() {
    check_demo(Topology::Hex {
        orientation: HexOrientation::Flat,
    });
}

#[test]
fn every_level_in_the_levels_folder_is_drawn() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("levels/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let level = level::load(&path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let cells = level.terrain.grid().len();
        let units = level.units.len();
        let mut app = app_with(Some(level), None);
        assert_eq!(drawn(&mut app).len(), cells, "{}", path.display());
        let mut tokens = app.world_mut().query::<&UnitToken>();
        assert_eq!(
            tokens.iter(app.world()).count(),
            units,
            "{}",
            path.display()
        );
    }
}

#[test]
fn a_level_that_fails_to_load_shows_its_errors_and_no_board() {
    let dir = std::env::temp_dir().join(format!("fray-game-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.ron");
    std::fs::write(&path, "(name: \"broken\", size: (3, oops").expect("write");
    let errors = level::load(&path).expect_err("a broken level does not load");
    assert!(!errors.is_empty());
    let mut app = app_with(None, Some(LevelErrors(errors.clone())));
    let mut boards = app.world_mut().query_filtered::<(), With<Board>>();
    assert_eq!(boards.iter(app.world()).count(), 0);
    let mut texts = app.world_mut().query::<&Text>();
    let shown: Vec<String> = texts.iter(app.world()).map(|t| t.0.clone()).collect();
    for line in &errors {
        assert!(shown.contains(line), "{line:?} not in {shown:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends a key press or release the way winit would.
fn key(app: &mut App, code: KeyCode, pressed: bool) {
    use bevy::input::ButtonState;
    use bevy::input::keyboard::{Key, KeyboardInput};
    app.world_mut().write_message(KeyboardInput {
        key_code: code,
        logical_key: Key::Unidentified(bevy::input::keyboard::NativeKey::Unidentified),
        state: if pressed {
            ButtonState::Pressed
        } else {
            ButtonState::Released
        },
        text: None,
        repeat: false,
        window: Entity::PLACEHOLDER,
    });
}

#[test]
fn camera_fits_the_board_then_pans_and_zooms() {
    use bevy::camera::ScalingMode;
    use bevy::input::InputPlugin;
    use bevy::input::mouse::{MouseScrollUnit, MouseWheel};
    use bevy::input::touch::TouchPhase;
    use bevy::time::TimeUpdateStrategy;
    use fray::game::camera::{self, BoardView, MainCamera};
    use std::time::Duration;

    let level = level::demo(Topology::Square {
        diagonals: Diagonals::One,
    });
    let bounds = BoardLayout::new(*level.terrain.grid()).bounds();
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), InputPlugin))
        .init_asset::<Image>()
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            100,
        )))
        .insert_resource(level)
        .add_plugins((fray::game::core_plugin, camera::plugin));
    app.update();
    app.update();

    let view = *app.world().resource::<BoardView>();
    assert_eq!(view.bounds, bounds);
    let camera = |app: &mut App| {
        let mut q = app
            .world_mut()
            .query_filtered::<(&Transform, &Projection), With<MainCamera>>();
        let (t, p) = q.single(app.world()).expect("one camera");
        let Projection::Orthographic(o) = p else {
            panic!("2d camera")
        };
        (t.translation.truncate(), o.scale, o.scaling_mode)
    };
    // Fitted: centred on the board, everything in view.
    let (at, scale, mode) = camera(&mut app);
    assert!(at.distance(bounds.center()) < 0.01);
    assert_eq!(scale, 1.0);
    match mode {
        ScalingMode::AutoMin {
            min_width,
            min_height,
        } => assert!(min_width >= bounds.width() && min_height >= bounds.height()),
        other => panic!("unexpected scaling {other:?}"),
    }

    // Holding D pans right.
    key(&mut app, KeyCode::KeyD, true);
    app.update();
    key(&mut app, KeyCode::KeyD, false);
    app.update();
    let (moved, _, _) = camera(&mut app);
    assert!(
        moved.x > at.x && (moved.y - at.y).abs() < 0.01,
        "{at} -> {moved}"
    );

    // Wheel up zooms in (a smaller scale).
    app.world_mut().write_message(MouseWheel {
        unit: MouseScrollUnit::Line,
        x: 0.0,
        y: 2.0,
        window: Entity::PLACEHOLDER,
        phase: TouchPhase::Moved,
    });
    app.update();
    let (_, zoomed, _) = camera(&mut app);
    assert!(zoomed < 1.0, "{zoomed}");

    // Home fits again.
    key(&mut app, KeyCode::Home, true);
    app.update();
    let (back, scale, _) = camera(&mut app);
    assert!(back.distance(bounds.center()) < 0.01);
    assert_eq!(scale, 1.0);
}
