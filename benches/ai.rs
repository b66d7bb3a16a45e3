//! The AI and headless simulation.
//!
//! - `ai_turn`: one whole round of decisions of a side with 8 units on a 32×32 map
//!   (`action-points`, 8 against 8), the other side answered by the greedy player; the same
//!   round played by the greedy player is the baseline measured in the same run.
//! - `battle`: one whole 4-against-4 battle (the first four units of each side of
//!   `levels/action_points_ruins.ron`), normal AI against greedy; the baseline is the same
//!   battle between two greedy players, which is almost all engine time.

use criterion::{Criterion, criterion_group, criterion_main};
use fray::ai::sim::{Caps, play};
use fray::ai::{Ai, Config, Difficulty, Kind, deciding_side, greedy};
use fray::rules::battle::{BattleState, SideId};
use fray::rules::level::{self, Level};
use std::hint::black_box;

fn arena() -> Level {
    let mut rows = Vec::new();
    for y in 0..32 {
        let row: String = (0..32)
            .map(|x| {
                if (x * 7 + y * 13) % 23 == 0 && (4..28).contains(&x) {
                    '#'
                } else if (x + y * 3) % 17 == 0 {
                    ','
                } else {
                    '.'
                }
            })
            .collect();
        rows.push(format!("\"{row}\""));
    }
    let templates = [
        "fighter", "archer", "scout", "mage", "brute", "fighter", "archer", "scout",
    ];
    let mut units = Vec::new();
    for (i, t) in templates.iter().enumerate() {
        units.push(format!(
            "(name: \"A{i}\", side: \"West\", cell: (1, {}), template: \"{t}\")",
            4 + 3 * i
        ));
        units.push(format!(
            "(name: \"B{i}\", side: \"East\", cell: (30, {}), template: \"{t}\")",
            4 + 3 * i
        ));
    }
    let src = format!(
        "(name: \"Arena\", ruleset: \"action-points\", topology: Square(diagonals: One), \
         size: (32, 32), map: [{}], sides: [(name: \"West\", controller: Ai), (name: \"East\", \
         controller: Ai)], units: [{}])",
        rows.join(","),
        units.join(",")
    );
    level::load("arena.ron", &src).expect("the bench arena is valid")
}

/// Plays side 0's decisions of round 1 with `kind`; side 1 answers greedily.
fn round_of(level: &Level, kind: Kind) -> usize {
    let (mut b, _) = BattleState::start(level, 7);
    let mut ai = Ai::new(Config::new(kind, 3));
    let mut decisions = 0;
    while b.round == 1 && b.outcome.is_none() {
        let cmd = if deciding_side(&b) == Some(SideId(0)) {
            decisions += 1;
            ai.decide(&b)
        } else {
            let legal = b.legal_commands();
            (!legal.is_empty()).then(|| greedy(&b, &legal))
        };
        let Some(cmd) = cmd else { break };
        if b.execute(&cmd).is_err() {
            break;
        }
    }
    decisions
}

fn ai_turn(c: &mut Criterion) {
    let level = arena();
    // The number of decisions in the round, so the figure can be read per decision.
    eprintln!(
        "ai_turn_8_units_32x32: normal takes {} decisions in the round, greedy {}",
        round_of(&level, Kind::Utility(Difficulty::Normal)),
        round_of(&level, Kind::Greedy)
    );
    let mut g = c.benchmark_group("ai_turn_8_units_32x32");
    g.sample_size(10);
    g.bench_function("normal", |b| {
        b.iter(|| black_box(round_of(&level, Kind::Utility(Difficulty::Normal))))
    });
    g.bench_function("greedy (baseline)", |b| {
        b.iter(|| black_box(round_of(&level, Kind::Greedy)))
    });
    g.finish();
}

fn four_v_four() -> Level {
    let mut lvl =
        level::load_path(std::path::Path::new("levels/action_points_ruins.ron")).expect("level");
    let mut file = lvl.file.clone();
    let mut kept = Vec::new();
    for side in ["Company", "Cult"] {
        kept.extend(
            file.units
                .iter()
                .filter(|u| u.side == side)
                .take(4)
                .cloned(),
        );
    }
    file.units = kept;
    lvl = Level::from_file(file).expect("still valid");
    lvl
}

fn battle(c: &mut Criterion) {
    let level = four_v_four();
    let mut g = c.benchmark_group("battle_4v4");
    g.sample_size(10);
    g.bench_function("normal vs greedy", |b| {
        b.iter(|| {
            black_box(play(
                &level,
                5,
                &[Kind::Utility(Difficulty::Normal), Kind::Greedy],
                Caps::default(),
            ))
        })
    });
    g.bench_function("greedy vs greedy (baseline)", |b| {
        b.iter(|| {
            black_box(play(
                &level,
                5,
                &[Kind::Greedy, Kind::Greedy],
                Caps::default(),
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, ai_turn, battle);
criterion_main!(benches);
