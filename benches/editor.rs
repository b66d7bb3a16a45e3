//! The level editor's frame after an edit, on a 64×64 level of squares and one of pointy
//! hexes: one cell painted, then the frame that redraws the editor (headless: the game's
//! GPU-free plugins, as `tests/game.rs` runs them; Bevy's UI layout and rendering are not
//! part of it), with every board cell
//! spawned again (`Editor::respawn_board`, how the editor drew before) and with only the
//! changed cells repainted (how it draws now). The figure to report is their ratio.
//!
//! `cargo bench --bench editor` (add `--profile dev` for a quicker build that still optimises
//! the dependencies).

use std::path::Path;
use std::time::Duration;

use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use criterion::{Criterion, criterion_group, criterion_main};
use fray::game::Screen;
use fray::game::editor::{Editor, OpenInEditor};
use fray::rules::grid::{Diagonals, HexOrientation, Topology};
use fray::rules::level::edit::{Edit, blank};

/// A headless app with the editor open on `level`.
fn editor_app(dir: &Path, level: &Path) -> App {
    let mut app = App::new();
    fray::game::register_levels_source(&mut app, dir);
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            watch_for_changes_override: Some(false),
            ..default()
        },
        StatesPlugin,
        InputPlugin,
    ))
    .init_asset::<Image>()
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app.add_plugins(fray::game::core_plugin);
    app.insert_resource(OpenInEditor(level.to_path_buf()));
    app.update();
    app.world_mut()
        .resource_mut::<NextState<Screen>>()
        .set(Screen::Editor);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(
        *app.world().resource::<State<Screen>>().get(),
        Screen::Editor
    );
    app
}

fn paint_frame(c: &mut Criterion) {
    let sides = fray::rules::ruleset_data::all()
        .find(|d| d.id == "sides")
        .expect("the sides ruleset");
    let phases = fray::rules::ruleset_data::all()
        .find(|d| d.id == "phases")
        .expect("the phases ruleset");
    for (name, data, topology) in [
        (
            "square",
            sides,
            Topology::Square {
                diagonals: Diagonals::One,
            },
        ),
        (
            "pointy hex",
            phases,
            Topology::Hex {
                orientation: HexOrientation::Pointy,
            },
        ),
    ] {
        let dir = std::env::temp_dir().join(format!(
            "fray-bench-editor-{}-{}",
            std::process::id(),
            name.replace(' ', "-")
        ));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let path = dir.join("big.ron");
        std::fs::write(&path, blank(data, topology, (64, 64))).expect("writes");
        let mut app = editor_app(&dir, &path);
        let cells = app
            .world_mut()
            .query::<&fray::game::editor::EditorCell>()
            .iter(app.world())
            .count();
        assert_eq!(cells, 64 * 64, "every cell is on the board");
        let mut n = 0i32;
        let mut group = c.benchmark_group(format!("editor: paint a cell and redraw, 64x64 {name}"));
        // Every cell spawned again (as the editor drew before it repainted only what changed),
        // then only the changed cells repainted. Each iteration paints a cell the other
        // glyph, so every frame has a change to draw.
        for (what, respawn) in [
            ("respawn the board", true),
            ("repaint changed cells", false),
        ] {
            group.bench_function(what, |b| {
                b.iter(|| {
                    n += 1;
                    let cell = (n % 60 + 2, (n / 60) % 60 + 2);
                    let glyph = if n % 2 == 0 { '#' } else { ',' };
                    let mut editor = app.world_mut().resource_mut::<Editor>();
                    editor.respawn_board = respawn;
                    editor.apply(Edit::Paint { cell, glyph });
                    assert!(editor.message.is_empty(), "{}", editor.message);
                    app.update();
                })
            });
        }
        group.finish();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(8));
    targets = paint_frame
}
criterion_main!(benches);
