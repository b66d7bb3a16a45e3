//! The level editor's frame after an edit, on a 64×64 level: one cell painted, then the
//! frame that redraws the editor (headless: the game's GPU-free plugins, as `tests/game.rs`
//! runs them; Bevy's UI layout and rendering are not part of it), with every board cell
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
use fray::rules::grid::{Diagonals, Topology};
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
    let dir = std::env::temp_dir().join(format!("fray-bench-editor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let sides = fray::rules::ruleset_data::all()
        .find(|d| d.id == "sides")
        .expect("the sides ruleset");
    let path = dir.join("big.ron");
    let text = blank(
        sides,
        Topology::Square {
            diagonals: Diagonals::One,
        },
        (64, 64),
    );
    std::fs::write(&path, text).expect("writes");
    let mut app = editor_app(&dir, &path);
    let mut n = 0i32;
    let mut group = c.benchmark_group("editor: paint a cell and redraw, 64x64");
    // Every cell spawned again (as the editor drew before it repainted only what changed),
    // then only the changed cells repainted.
    for (name, respawn) in [
        ("respawn the board", true),
        ("repaint changed cells", false),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                n += 1;
                let cell = (n % 60 + 2, (n / 60) % 60 + 2);
                let glyph = if n % 2 == 0 { '#' } else { ',' };
                let mut editor = app.world_mut().resource_mut::<Editor>();
                editor.respawn_board = respawn;
                editor.apply(Edit::Paint { cell, glyph });
                app.update();
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(8));
    targets = paint_frame
}
criterion_main!(benches);
