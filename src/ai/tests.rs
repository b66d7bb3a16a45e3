//! Behaviour of the utility AI on small inline levels: assertions that fail when it plays badly.

use super::*;
use crate::rules::battle::{Action, Event};
use crate::rules::grid::Cell;
use crate::rules::level::{self, Level};

fn level(map: &[&str], units: &str) -> Level {
    let rows: Vec<String> = map.iter().map(|r| format!("\"{r}\",")).collect();
    let src = format!(
        "(name: \"t\", description: \"t\", ruleset: \"action-points\", topology: Square(diagonals: One),
          size: ({}, {}), map: [{}],
          sides: [(name: \"A\", controller: Human), (name: \"B\", controller: Ai)],
          units: [{units}], victory: [LastSideStanding], seed: 1)",
        map[0].len(),
        map.len(),
        rows.join("")
    );
    level::load("t.ron", &src).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A level of `ruleset` on an open `w`×`h` square map, both sides played by the AI; `options`
/// is the level's `options: (...),` entry, or empty.
fn open_level(ruleset: &str, (w, h): (usize, usize), units: &str, options: &str) -> Level {
    let row = format!("\"{}\",", ".".repeat(w));
    let src = format!(
        "(name: \"t\", description: \"t\", ruleset: \"{ruleset}\", topology: Square(diagonals: One),
          size: ({w}, {h}), map: [{}],
          sides: [(name: \"A\", controller: Ai), (name: \"B\", controller: Ai)],
          units: [{units}], {options} victory: [LastSideStanding], seed: 1)",
        row.repeat(h)
    );
    level::load("t.ron", &src).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Plays everyone else by ending turns (reactions declined) until `unit` is to act.
fn until_turn_of(b: &mut BattleState, unit: UnitId) {
    play_until(b, |d| matches!(d, Decision::Act { unit: u } if *u == unit));
}

/// Plays on until `stop` holds for the pending decision: every unit to act ends its turn,
/// every other decision takes the first legal command (the first unit of a pick, a declined
/// reaction).
fn play_until(b: &mut BattleState, stop: impl Fn(&Decision) -> bool) {
    for _ in 0..200 {
        match b.pending() {
            d if stop(&d) => return,
            Decision::Over { .. } => panic!("battle over before the decision awaited"),
            Decision::Act { unit: u } => {
                b.execute(&Command::EndTurn { unit: u }).unwrap();
            }
            _ => {
                let c = b.legal_commands()[0].clone();
                b.execute(&c).unwrap();
            }
        }
    }
    panic!("the decision awaited never came");
}

fn normal(seed: u64) -> Ai {
    Ai::new(Config::new(Kind::Utility(Difficulty::Normal), seed))
}

/// A fighter between two scouts, one at 2 hp: it strikes the wounded one first, and then
/// spends its remaining AP on the other rather than ending its turn.
#[test]
fn finishes_the_wounded_foe_and_uses_its_ap() {
    let l = level(
        &["........", "........", "........", "........"],
        "(name: \"F\", side: \"A\", cell: (3, 1), template: \"fighter\"),
         (name: \"S1\", side: \"B\", cell: (2, 1), template: \"scout\"),
         (name: \"S2\", side: \"B\", cell: (4, 1), template: \"scout\")",
    );
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        let f = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, f);
        let ids: Vec<UnitId> = b.unit_ids().collect();
        let (s1, s2) = (ids[1], ids[2]);
        // Full health for both scouts, then S2 badly wounded.
        for &s in &[s1, s2] {
            let m = b.units[s.index()].stat("hp");
            b.units[s.index()].pools.insert("hp".into(), m);
        }
        b.units[s2.index()].pools.insert("hp".into(), 2);
        let mut ai = normal(seed);
        let first = ai.decide(&b).unwrap();
        assert!(
            matches!(first, Command::Attack { target, .. } if target == s2),
            "seed {seed}: expected an attack on the wounded scout, got {first:?}"
        );
        b.execute(&first).unwrap();
        // Play the fighter's turn on: with AP left and a foe in reach, it keeps attacking.
        let mut attacks = 1;
        for _ in 0..6 {
            match b.pending() {
                Decision::Act { unit } if unit == f => {
                    let c = ai.decide(&b).unwrap();
                    if matches!(c, Command::Attack { .. }) {
                        attacks += 1;
                    }
                    if matches!(c, Command::EndTurn { .. }) {
                        break;
                    }
                    b.execute(&c).unwrap();
                }
                Decision::React { .. } => {
                    let c = ai.decide(&b).unwrap();
                    b.execute(&c).unwrap();
                }
                d => {
                    eprintln!("seed {seed}: then {d:?}");
                    break;
                }
            }
        }
        assert!(
            attacks >= 2,
            "seed {seed}: only {attacks} attack(s) with 3 AP"
        );
    }
}

/// A wounded archer with a shooter in range and a pillar next to it does not walk into the
/// middle of three brutes; it keeps its distance.
#[test]
fn a_fragile_unit_does_not_walk_into_several_foes() {
    let l = level(
        &[
            "..............",
            "..............",
            "..............",
            "..............",
            "..............",
        ],
        "(name: \"Arch\", side: \"A\", cell: (2, 2), template: \"archer\"),
         (name: \"B1\", side: \"B\", cell: (9, 1), template: \"brute\"),
         (name: \"B2\", side: \"B\", cell: (9, 2), template: \"brute\"),
         (name: \"B3\", side: \"B\", cell: (9, 3), template: \"brute\")",
    );
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        let a = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, a);
        b.units[a.index()].pools.insert("hp".into(), 4);
        let mut ai = normal(seed);
        for _ in 0..6 {
            let Decision::Act { unit } = b.pending() else {
                break;
            };
            if unit != a {
                break;
            }
            let c = ai.decide(&b).unwrap();
            if let Some((_, to)) = c.destination() {
                let near = b
                    .enemies_of(a)
                    .iter()
                    .filter(|&&e| b.grid().distance(to, b.units[e.index()].cell) <= 4)
                    .count();
                assert!(
                    near < 2,
                    "seed {seed}: archer walks to {to}, next to {near} brutes"
                );
            }
            if matches!(c, Command::EndTurn { .. }) {
                break;
            }
            b.execute(&c).unwrap();
        }
    }
}

#[test]
fn decisions_are_legal_and_deterministic() {
    let l = crate::rules::battle::tests::load("action_points_ruins.ron");
    let (b, _) = BattleState::start(&l, 9);
    let c1 = normal(5).decide(&b);
    let c2 = normal(5).decide(&b);
    assert_eq!(c1, c2);
    assert!(b.legal_commands().contains(&c1.unwrap()));
}

/// `sides`: an archer in the open, facing two enemy archers across a row of pillars, does not
/// end its turn in the open: it ends where both have to shoot through cover (-2 or -4 to hit
/// in `sides`), or engaged in melee with one of them (which spoils their shooting), and it
/// attacks on the way.
#[test]
fn a_shooter_under_fire_ends_its_turn_in_cover() {
    let src = r#"(name: "t", description: "t", ruleset: "sides", topology: Square(diagonals: One),
        size: (16, 7),
        map: [
            "................",
            "................",
            "....O.O.O.O.....",
            "................",
            "................",
            "................",
            "................",
        ],
        sides: [(name: "A", controller: Ai), (name: "B", controller: Ai)],
        units: [
            (name: "Bow", side: "A", cell: (5, 5), template: "archer"),
            (name: "Foe", side: "B", cell: (7, 0), template: "archer"),
            (name: "Foe2", side: "B", cell: (9, 0), template: "archer"),
        ],
        victory: [LastSideStanding], seed: 1)"#;
    let l = level::load("t.ron", src).unwrap_or_else(|e| panic!("{e:?}"));
    let mut attacked = 0;
    for seed in 1..9 {
        let (mut b, _) = BattleState::start(&l, seed);
        let bow = b.unit_ids().next().unwrap();
        let foes: Vec<UnitId> = b.enemies_of(bow);
        // Play until it is the archer's turn (the only unit of its side, so its side's picks
        // are it): the other side's archers just end their turns.
        until_turn_of(&mut b, bow);
        let start = b.units[bow.index()].cell;
        let covered = |b: &BattleState, c| {
            foes.iter().all(|&f| {
                crate::rules::sight::cover(&b.terrain, b.units[f.index()].cell, c)
                    != crate::rules::sight::Cover::None
            })
        };
        assert!(!covered(&b, start), "the archer starts in the open");
        let mut ai = normal(seed);
        let mut shots = 0;
        for _ in 0..8 {
            match b.pending() {
                Decision::Act { unit } if unit == bow => {}
                _ => break,
            }
            let c = ai.decide(&b).unwrap();
            if matches!(
                c,
                Command::Attack { .. }
                    | Command::Act {
                        action: Action::Charge { .. },
                        ..
                    }
            ) {
                shots += 1;
            }
            if matches!(c, Command::EndTurn { .. }) {
                break;
            }
            b.execute(&c).unwrap();
        }
        let end = b.units[bow.index()].cell;
        let engaged = foes
            .iter()
            .any(|&f| b.grid().distance(end, b.units[f.index()].cell) <= 1);
        assert!(
            covered(&b, end) || engaged,
            "seed {seed}: the archer ends its turn at {end}, in the open to a foe"
        );
        if shots > 0 {
            attacked += 1;
        }
    }
    // Known weakness: on one seed of eight it trades its Main action for a second move from
    // half into full cover instead of shooting.
    assert!(
        attacked >= 7,
        "the archer attacked on only {attacked} of 8 seeds"
    );
}

/// `sides`: a pick is judged by the best turn the picked unit could take. A warrior that can
/// reach a wounded wolf (by moving or charging) is picked before one that cannot reach any foe,
/// though the other comes first in the level's order.
#[test]
fn the_unit_that_can_reach_a_foe_is_picked_first() {
    let l = open_level(
        "sides",
        (24, 7),
        r#"
            (name: "Far", side: "A", cell: (0, 6), template: "warrior"),
            (name: "Near", side: "A", cell: (9, 3), template: "warrior"),
            (name: "Wolf", side: "B", cell: (14, 3), template: "wolf")"#,
        "",
    );
    let mut near_first = 0;
    for seed in 1..9 {
        let (mut b, _) = BattleState::start(&l, seed);
        let ids: Vec<UnitId> = b.unit_ids().collect();
        let (far, near, wolf) = (ids[0], ids[1], ids[2]);
        b.units[wolf.index()].pools.insert("hp".into(), 1);
        // The wolf just ends its turns until side A picks.
        play_until(
            &mut b,
            |d| matches!(d, Decision::Pick { options, .. } if options.contains(&far)),
        );
        assert!(
            matches!(b.pending(), Decision::Pick { ref options, .. } if options == &vec![far, near]),
            "seed {seed}: {:?}",
            b.pending()
        );
        let pick = normal(seed).decide(&b).unwrap();
        assert!(pick == Command::Pick { unit: far } || pick == Command::Pick { unit: near });
        if pick == (Command::Pick { unit: near }) {
            near_first += 1;
        }
    }
    // Judged by the play-out policy alone (attack from where it stands, else end the turn),
    // both picks scored the same and the first in order was taken on every seed. Now the near
    // warrior goes first unless all of the AI's dice samples of its attack miss (as on one
    // seed of the first four), when moving up next to the wolf looks like a mere exposure.
    assert!(
        near_first >= 6,
        "the warrior in reach went first on only {near_first} of 8 seeds"
    );
}

/// A badly wounded wolf pays dearly by the cheap positional value for every foe that can
/// reach it, so the cells out of everyone's reach rank above every cell it could strike from.
/// The candidates still include the nearest cells it could strike from, so the search
/// (which sees the blow) decides, not the pre-score. Without them a unit whose move and
/// attack share a turn walked away from a foe it could have hit (`segments_crypt`: the
/// wolves in the surprise segment).
#[test]
fn the_candidates_include_cells_to_strike_from_when_hiding_ranks_first() {
    let l = open_level(
        "segments",
        (32, 7),
        r#"
            (name: "Mage", side: "A", cell: (10, 3), template: "magic_user"),
            (name: "F1", side: "A", cell: (8, 1), template: "fighter"),
            (name: "F2", side: "A", cell: (8, 5), template: "fighter"),
            (name: "F3", side: "A", cell: (7, 3), template: "fighter"),
            (name: "Wolf", side: "B", cell: (18, 3), template: "wolf")"#,
        "options: (alerted: [\"A\", \"B\"]),",
    );
    let (mut b, _) = BattleState::start(&l, 1);
    let wolf = b.unit_ids().last().unwrap();
    b.units[wolf.index()].pools.insert("hp".into(), 2);
    until_turn_of(&mut b, wolf);
    let side = b.units[wolf.index()].side;
    let strikes = |c: &Command| {
        c.destination()
            .is_some_and(|(u, to)| eval::can_strike_from(&b, u, to))
    };
    let legal = b.legal_commands();
    assert!(legal.iter().any(strikes), "no cell to strike from in reach");
    let keep = 4;
    // The premise: by the cheap value alone, the best `keep` cells are all out of reach.
    let mut by_value: Vec<(f64, &Command)> = legal
        .iter()
        .filter_map(|c| {
            let (u, to) = c.destination()?;
            Some((eval::cell_value(&b, side, u, to, &Weights::DEFAULT), c))
        })
        .collect();
    by_value.sort_by(|a, b| b.0.total_cmp(&a.0));
    assert!(
        by_value.iter().take(keep).all(|(_, c)| !strikes(c)),
        "the test's premise fails: a cell to strike from ranks among the best"
    );
    let kept = prune(&b, side, legal.clone(), keep, &Weights::DEFAULT);
    assert!(
        kept.iter().any(strikes),
        "no cell to strike from among the candidates: {kept:?}"
    );
}

/// `segments`: a spell goes off segments after it is begun, beyond the play-out. A magic-user
/// with foes in spell range begins its spell rather than walking about: the spell under way
/// counts as damage in the bank (in the crypt it used to walk towards the monsters instead).
#[test]
fn a_caster_begins_its_spell_when_the_damage_lands_later() {
    let l = open_level(
        "segments",
        (20, 7),
        r#"
            (name: "Mage", side: "A", cell: (1, 3), template: "magic_user",
             overrides: {"haste_slots": 0, "shield_slots": 0}),
            (name: "Guard", side: "A", cell: (3, 3), template: "fighter"),
            (name: "Ogre", side: "B", cell: (12, 3), template: "ogre"),
            (name: "Wolf", side: "B", cell: (12, 5), template: "wolf")"#,
        "options: (alerted: [\"A\", \"B\"]),",
    );
    let mut cast = 0;
    for seed in 1..7 {
        let (mut b, _) = BattleState::start(&l, seed);
        let mage = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, mage);
        let legal = b.legal_commands();
        assert!(
            legal.iter().any(|c| matches!(
                c,
                Command::Act {
                    action: Action::Cast { .. },
                    ..
                }
            )),
            "seed {seed}: no spell to cast: {legal:?}"
        );
        let c = normal(seed).decide(&b).unwrap();
        if matches!(
            c,
            Command::Act {
                action: Action::Cast { .. },
                ..
            }
        ) {
            cast += 1;
        }
    }
    assert!(
        cast >= 5,
        "the magic-user began its spell on only {cast} of 6 seeds"
    );
}

/// `segments`: holding an action to a later segment in which no one else acts plays out as
/// taking it now, so the two tie. A lone magic-user with its spell in reach casts at once
/// rather than holding segment after segment (in the crypt it held from segment 2 to 10,
/// nine decisions and a log of holds for one spell).
#[test]
fn a_lone_caster_casts_now_rather_than_holding_on_a_tie() {
    let l = open_level(
        "segments",
        (24, 7),
        r#"
            (name: "Mage", side: "A", cell: (1, 3), template: "magic_user",
             overrides: {"haste_slots": 0, "shield_slots": 0}),
            (name: "Ogre", side: "B", cell: (11, 3), template: "ogre")"#,
        "options: (alerted: [\"A\", \"B\"]),",
    );
    let (mut held, mut could_hold) = (0, 0);
    for seed in 1..13 {
        let (mut b, _) = BattleState::start(&l, seed);
        let mage = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, mage);
        let legal = b.legal_commands();
        let can = |a: fn(&Action) -> bool| {
            legal
                .iter()
                .any(|c| matches!(c, Command::Act { action, .. } if a(action)))
        };
        assert!(
            can(|a| matches!(a, Action::Cast { .. })),
            "seed {seed}: no spell to cast: {legal:?}"
        );
        if can(|a| matches!(a, Action::Delay)) {
            could_hold += 1;
        }
        let c = normal(seed).decide(&b).unwrap();
        if matches!(
            c,
            Command::Act {
                action: Action::Delay,
                ..
            }
        ) {
            held += 1;
        }
    }
    assert!(could_hold >= 6, "only {could_hold} turns could hold");
    assert_eq!(
        held, 0,
        "the magic-user held its spell on {held} of 12 seeds"
    );
}

/// Plays a greedy game on every shipped level for each seed in `seeds` (at most `steps`
/// commands) and calls `at_action(file, seed, battle, unit, legal, step)` at every action
/// decision.
fn at_greedy_actions(
    seeds: std::ops::Range<u64>,
    steps: usize,
    mut at_action: impl FnMut(&std::path::Path, u64, &BattleState, UnitId, &[Command], usize),
) {
    let files = crate::shipped_levels();
    assert!(
        files.len() >= 5,
        "only {} shipped levels found",
        files.len()
    );
    for f in &files {
        let l = level::load_path(f).unwrap_or_else(|e| panic!("{e:?}"));
        for seed in seeds.clone() {
            let (mut b, _) = BattleState::start(&l, seed);
            for step in 0..steps {
                if b.outcome.is_some() {
                    break;
                }
                let legal = b.legal_commands();
                if legal.is_empty() {
                    break;
                }
                if let Decision::Act { unit } = b.pending() {
                    at_action(f, seed, &b, unit, &legal, step);
                }
                let c = greedy(&b, &legal);
                b.execute(&c).unwrap();
            }
        }
    }
}

/// The play-out lists a unit's attacks and End turn itself (`strikes_and_end`) rather than
/// asking for every legal command: on every shipped level, at every action decision of a
/// greedy game, it lists exactly the attacks and End turn that `legal_commands` lists.
#[test]
fn the_play_out_lists_the_same_attacks_as_the_engine() {
    let mut compared = 0;
    at_greedy_actions(1..3, 400, |f, seed, b, unit, legal, _| {
        let mut want: Vec<String> = legal
            .iter()
            .filter(|c| c.attack_target().is_some() || matches!(c, Command::EndTurn { .. }))
            .map(|c| format!("{c:?}"))
            .collect();
        let mut got: Vec<String> = strikes_and_end(b, unit)
            .iter()
            .map(|c| format!("{c:?}"))
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}: seed {seed}, round {}", f.display(), b.round);
        compared += 1;
    });
    assert!(compared > 100, "only {compared} decisions compared");
}

/// A candidate that rolls no dice (a move) is executed once and its result copied for every
/// dice sample (`judge`): on every shipped level, at action decisions of greedy games, every
/// kept candidate gets exactly the value of executing it afresh for each sample.
#[test]
fn a_candidate_that_rolls_no_dice_is_judged_as_if_executed_for_every_sample() {
    let search = search_of(Difficulty::Normal);
    let seeds = [11u64, 22, 33, 44];
    let afresh = |b: &BattleState, side: SideId, actor: UnitId, cmd: &Command| {
        let mut total = 0.0;
        for &seed in &seeds {
            let mut c = b.clone();
            c.rng = BattleRng::new(seed);
            if c.execute(cmd).is_err() {
                return f64::NEG_INFINITY;
            }
            play_out(&mut c, side, Some(actor), search.depth, search.replies);
            total += eval::score(&c, side, &search.weights);
        }
        total / seeds.len() as f64
    };
    let (mut copied, mut rolled) = (0, 0);
    at_greedy_actions(5..6, 150, |f, _, b, unit, legal, step| {
        if step % 4 != 0 {
            return;
        }
        let side = b.units[unit.index()].side;
        for cmd in prune(b, side, legal.to_vec(), 3, &Weights::DEFAULT) {
            let mut once = b.clone();
            once.rng = BattleRng::new(seeds[0]);
            if once.execute(&cmd).is_ok() {
                if once.rng.dice_rolled() == 0 {
                    copied += 1;
                } else {
                    rolled += 1;
                }
            }
            let (v, _) = judge(b, side, Some(unit), &cmd, &seeds, search);
            let want = afresh(b, side, unit, &cmd);
            assert!(
                v == want,
                "{}: {cmd:?} judged {v}, afresh {want}",
                f.display()
            );
        }
    });
    assert!(
        copied > 50 && rolled > 10,
        "copied {copied}, rolled {rolled}: both kinds must be compared"
    );
}

/// `action-points`: the outnumbered side holds its ground in the first round (the side that
/// crosses the map spends the AP its attacks need) and advances from the second; the
/// favourite advances at once.
#[test]
fn the_underdog_holds_its_ground_in_the_first_round_of_action_points() {
    let fighters = |xs: &[(&str, usize)]| {
        xs.iter()
            .enumerate()
            .map(|(i, (side, x))| {
                format!(
                    "(name: \"F{i}\", side: \"{side}\", cell: ({x}, {}), template: \"fighter\")",
                    1 + i % 4
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let underdog = open_level(
        "action-points",
        (16, 6),
        &fighters(&[("A", 1), ("A", 1), ("B", 14), ("B", 14), ("B", 14)]),
        "",
    );
    let favourite = open_level(
        "action-points",
        (16, 6),
        &fighters(&[("A", 1), ("A", 1), ("A", 1), ("B", 14), ("B", 14)]),
        "",
    );
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&underdog, seed);
        let f = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, f);
        assert_eq!(b.round, 1);
        let first = normal(seed).decide(&b).unwrap();
        assert!(
            first.destination().is_none(),
            "seed {seed}: the outnumbered fighter left its ground in round 1: {first:?}"
        );
        b.execute(&Command::EndTurn { unit: f }).unwrap();
        until_turn_of(&mut b, f);
        assert_eq!(b.round, 2);
        let second = normal(seed).decide(&b).unwrap();
        assert!(
            second.destination().is_some(),
            "seed {seed}: the outnumbered fighter still holds in round 2: {second:?}"
        );

        let (mut b, _) = BattleState::start(&favourite, seed);
        let f = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, f);
        let first = normal(seed).decide(&b).unwrap();
        assert!(
            first.destination().is_some(),
            "seed {seed}: the favourite held its ground: {first:?}"
        );
    }
}

/// A `sides` level on an open 14×7 map: a warrior of A in contact with a warrior of B, and
/// B's archer and cutthroat out in the open, within a charge; `victory` is the level's list.
fn engaged_level(victory: &str) -> Level {
    let row = format!("\"{}\",", ".".repeat(14));
    let src = format!(
        "(name: \"t\", description: \"t\", ruleset: \"sides\", topology: Square(diagonals: One),
          size: (14, 7), map: [{}],
          sides: [(name: \"A\", controller: Ai), (name: \"B\", controller: Ai)],
          units: [
            (name: \"Aldric\", side: \"A\", cell: (4, 3), template: \"warrior\"),
            (name: \"Grell\", side: \"B\", cell: (5, 3), template: \"warrior\"),
            (name: \"Osk\", side: \"B\", cell: (9, 1), template: \"archer\"),
            (name: \"Nell\", side: \"B\", cell: (9, 5), template: \"cutthroat\"),
          ], victory: {victory}, seed: 1)",
        row.repeat(7)
    );
    level::load("t.ron", &src).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A `sides` unit in contact with a foe strikes (its candidates are its attacks; without the
/// rule the warrior charges the archer), also when the other side has a cell to reach; when
/// its own side wins by reaching a cell, its candidates are left as they are.
#[test]
fn a_unit_in_contact_strikes_unless_its_side_runs_for_a_cell() {
    for seed in 1..6 {
        let (mut b, _) = BattleState::start(&engaged_level("[LastSideStanding]"), seed);
        let aldric = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, aldric);
        let legal = b.legal_commands();
        assert!(legal.iter().any(|c| c.attack_target().is_none()));
        let kept = strikes_when_engaged(&b, legal);
        assert!(
            !kept.is_empty() && kept.iter().all(|c| c.attack_target().is_some()),
            "seed {seed}: {kept:?}"
        );
        let choice = normal(seed).decide(&b).unwrap();
        assert!(
            choice.attack_target().is_some(),
            "seed {seed}: the engaged warrior did not strike: {choice:?}"
        );
    }
    let theirs = "[ReachCell(side: \"B\", cell: (0, 3)), LastSideStanding]";
    let (mut b, _) = BattleState::start(&engaged_level(theirs), 1);
    let aldric = b.unit_ids().next().unwrap();
    until_turn_of(&mut b, aldric);
    let kept = strikes_when_engaged(&b, b.legal_commands());
    assert!(
        !kept.is_empty() && kept.iter().all(|c| c.attack_target().is_some()),
        "{kept:?}"
    );
    let ours = "[ReachCell(side: \"A\", cell: (13, 3)), LastSideStanding]";
    let (mut b, _) = BattleState::start(&engaged_level(ours), 1);
    until_turn_of(&mut b, aldric);
    let legal = b.legal_commands();
    assert_eq!(strikes_when_engaged(&b, legal.clone()), legal);
}

/// In `action-points` (AP refreshed per round) a unit attacked before its own turn of the
/// round declines to Dodge: the AP would come out of that turn. Once its turn has passed,
/// Dodge is left to the search.
#[test]
fn a_unit_keeps_its_ap_for_its_coming_turn() {
    let duel = open_level(
        "action-points",
        (8, 4),
        "(name: \"F0\", side: \"A\", cell: (2, 1), template: \"fighter\"),
         (name: \"F1\", side: \"B\", cell: (3, 1), template: \"fighter\")",
        "",
    );
    let dodge = |b: &BattleState| {
        b.legal_commands().into_iter().find(|c| {
            matches!(
                c,
                Command::React {
                    reaction: Reaction::Dodge,
                    ..
                }
            )
        })
    };
    for seed in 1..6 {
        let (mut b, _) = BattleState::start(&duel, seed);
        let Decision::Act { unit: first } = b.pending() else {
            panic!("seed {seed}: no one to act: {:?}", b.pending());
        };
        let second = b.enemies_of(first)[0];
        let strike = |unit, target| Command::Attack {
            unit,
            target,
            ranged: false,
        };
        b.execute(&strike(first, second)).unwrap();
        assert!(dodge(&b).is_some(), "seed {seed}: no Dodge on offer");
        assert_eq!(
            normal(seed).decide(&b),
            Some(Command::React {
                unit: second,
                reaction: Reaction::Decline
            }),
            "seed {seed}: the unit whose turn is to come spent AP on a Dodge"
        );
        // The first unit's turn is over: struck back, it may dodge as the search decides.
        b.execute(&Command::React {
            unit: second,
            reaction: Reaction::Decline,
        })
        .unwrap();
        if b.outcome.is_some() {
            continue;
        }
        b.execute(&Command::EndTurn { unit: first }).unwrap();
        until_turn_of(&mut b, second);
        b.execute(&strike(second, first)).unwrap();
        assert!(dodge(&b).is_some());
        assert!(!saves_ap_for_its_turn(&b), "seed {seed}");
    }
}

/// `segments`: a fighter whose side acts first in the round stops out of the reach of a foe
/// whose segment is still to come (it would be struck before it could strike), and closes in
/// when the foe has had its turn (the next round's initiative decides who strikes first).
#[test]
fn a_unit_acting_first_stops_out_of_reach_of_a_foe_still_to_act() {
    let l = open_level(
        "segments",
        (20, 3),
        "(name: \"F0\", side: \"A\", cell: (1, 1), template: \"fighter\"),
         (name: \"F1\", side: \"B\", cell: (13, 1), template: \"fighter\")",
        "options: (alerted: [\"A\", \"B\"]),",
    );
    // Initiative dice (A's, B's): each side acts in the segment the other side rolled.
    for (dice, first) in [([5, 2], true), ([2, 5], false)] {
        for seed in 1..4 {
            let (mut b, _) = BattleState::start_with_tape(&l, seed, dice);
            let ids: Vec<UnitId> = b.unit_ids().collect();
            let (me, foe) = (ids[0], ids[1]);
            for u in [me, foe] {
                b.execute(&Command::Declare {
                    unit: u,
                    intent: crate::rules::battle::Intent::Melee,
                })
                .unwrap();
            }
            until_turn_of(&mut b, me);
            let mut ai = normal(seed);
            while let Decision::Act { unit } = b.pending() {
                if unit != me {
                    break;
                }
                let c = ai.decide(&b).unwrap();
                b.execute(&c).unwrap();
            }
            let d = b.distance(me, foe);
            // The foe walks 6 squares and strikes at 1.
            if first {
                assert!(
                    d > 7,
                    "seed {seed}: acting first, it stopped {d} squares away"
                );
            } else {
                assert!(
                    d <= 7,
                    "seed {seed}: acting last, it stayed {d} squares away"
                );
            }
        }
    }
}

/// `segments`: `easy` blunders in its declarations too (a share of them made at random among
/// the legal ones), where its score noise cannot reach; `normal` always declares by
/// [`declaration`].
#[test]
fn easy_declares_carelessly_now_and_then_normal_never() {
    let lvl = level::load_path(std::path::Path::new("levels/segments_crypt.ron"))
        .expect("the crypt loads");
    let (mut careless, mut declarations) = (0, 0);
    for seed in 0..30 {
        let (mut b, _) = BattleState::start(&lvl, seed);
        let mut easy = Ai::new(Config::new(Kind::Utility(Difficulty::Easy), seed));
        let mut norm = normal(seed);
        while let Decision::Declare { .. } = b.pending() {
            let legal = b.legal_commands();
            let sensible = declaration(&legal);
            assert_eq!(
                norm.decide(&b),
                Some(sensible.clone()),
                "normal declares sensibly"
            );
            let c = easy.decide(&b).expect("a declaration");
            assert!(legal.contains(&c), "{c:?}");
            declarations += 1;
            careless += usize::from(c != sensible);
            b.execute(&sensible).expect("legal");
        }
    }
    assert!(declarations >= 40, "{declarations} declarations");
    assert!(
        careless > 0 && careless * 2 < declarations,
        "{careless} of {declarations} careless"
    );
}

/// `segments`: with no foe in range, the engine's default declaration for an archer is Melee;
/// the AI declares Missile (it may then shoot whoever comes near during the round). A spell's
/// default stays the caster's choice, and a unit without a missile weapon declares Melee.
#[test]
fn an_archer_with_no_foe_in_range_declares_missile() {
    let l = open_level(
        "segments",
        (30, 3),
        "(name: \"Elowen\", side: \"A\", cell: (0, 1), template: \"archer\"),
         (name: \"Garrick\", side: \"A\", cell: (0, 0), template: \"fighter\"),
         (name: \"Halvaine\", side: \"A\", cell: (0, 2), template: \"magic_user\"),
         (name: \"Orc\", side: \"B\", cell: (29, 1), template: \"fighter\")",
        "options: (alerted: [\"A\", \"B\"]),",
    );
    let (mut b, _) = BattleState::start(&l, 1);
    let mut ai = normal(1);
    let mut declared = Vec::new();
    while let Decision::Declare { unit, .. } = b.pending() {
        let legal = b.legal_commands();
        let c = ai.decide(&b).unwrap();
        assert!(legal.contains(&c), "{c:?}");
        if let Command::Declare { intent, .. } = &c {
            declared.push((
                b.units[unit.index()].name.to_string(),
                intent.clone(),
                legal[0].clone(),
            ));
        }
        b.execute(&c).unwrap();
    }
    use crate::rules::battle::Intent;
    let of = |n: &str| declared.iter().find(|d| d.0 == n).cloned().unwrap();
    let (_, elowen, default) = of("Elowen");
    assert_eq!(elowen, Intent::Missile);
    assert!(
        matches!(
            default,
            Command::Declare {
                intent: Intent::Melee,
                ..
            }
        ),
        "{default:?}"
    );
    assert_eq!(of("Garrick").1, Intent::Melee);
    // No foe in spell range for Magic Missile, none next to Halvaine: Haste on the ally with
    // the strongest melee routine (Garrick's 1d8+1 over Elowen's 1d6).
    assert_eq!(
        of("Halvaine").1,
        Intent::Spell {
            target: of("Garrick").2.unit(),
            spell: crate::rules::battle::Spell::Haste
        },
        "no foe in spell range: Haste"
    );
}

/// A fighter shut in behind a door, its foe beyond the wall: it opens the door (the only way
/// to the foe) rather than pace along the wall, which is as near the foe as the crow flies.
#[test]
fn a_unit_opens_the_door_that_is_its_way_to_the_foe() {
    let l = level(
        &["..#.....", "..#.....", "..D.....", "..#.....", "..#....."],
        "(name: \"F\", side: \"A\", cell: (1, 2), template: \"fighter\"),
         (name: \"G\", side: \"B\", cell: (6, 1), template: \"fighter\")",
    );
    let mut opened = 0;
    for seed in 1..6 {
        let (mut b, _) = BattleState::start(&l, seed);
        let f = b.unit_ids().next().unwrap();
        until_turn_of(&mut b, f);
        let cmd = normal(seed).decide(&b).expect("a command");
        if cmd
            == (Command::Act {
                unit: f,
                action: Action::OpenDoor {
                    cell: Cell::new(2, 2),
                },
            })
        {
            opened += 1;
        }
    }
    assert_eq!(opened, 5, "opened the door in {opened} of 5 seeds");
}

/// A duelist shut in behind a locked door whose lock the level lets it pick (a Short Task,
/// A-62), its foe beyond the wall: it picks the lock, the only way to the foe.
#[test]
fn a_unit_picks_the_lock_that_is_its_way_to_the_foe() {
    let src = "(name: \"t\", ruleset: \"alternating\", topology: Square(diagonals: OneTwo),
        size: (8, 5), map: [\"..#.....\", \"..#.....\", \"..L.....\", \"..#.....\", \"..#.....\"],
        sides: [(name: \"A\", controller: Ai), (name: \"B\", controller: Ai)],
        units: [(name: \"F\", side: \"A\", cell: (1, 2), template: \"duelist\"),
                (name: \"G\", side: \"B\", cell: (6, 1), template: \"duelist\")],
        tasks: [(name: \"the lock\", cell: (2, 2))])";
    let l = level::load("t.ron", src).unwrap_or_else(|e| panic!("{e:?}"));
    let task = Command::Act {
        unit: UnitId(0),
        action: Action::ShortTask {
            cell: Cell::new(2, 2),
        },
    };
    let mut picked = 0;
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        until_turn_of(&mut b, UnitId(0));
        assert!(b.legal_commands().contains(&task));
        if normal(seed).decide(&b).expect("a command") == task {
            picked += 1;
        }
    }
    assert_eq!(picked, 3, "picked the lock in {picked} of 3 seeds");
}

/// The AI knows a unit that broke in a morale check (`sides`, house rule S-176..S-180) is all
/// but lost: its side's score drops nearly as if it were down, its foes' rises.
#[test]
fn a_broken_unit_counts_nearly_as_lost() {
    use crate::rules::rulesets::Member;
    use crate::rules::rulesets::sides::{Ev, Sides};
    let l = open_level(
        "sides",
        (8, 5),
        "(name: \"A1\", side: \"A\", cell: (0, 0), template: \"warrior\"),
         (name: \"B1\", side: \"B\", cell: (7, 4), template: \"warrior\"),
         (name: \"B2\", side: \"B\", cell: (7, 0), template: \"warrior\")",
        "",
    );
    let (b, _) = BattleState::start(&l, 1);
    let mut broke = b.clone();
    broke.apply(&Sides::event(Ev::Breaks { unit: UnitId(2) }));
    let mut down = b.clone();
    down.apply(&crate::rules::battle::Event::Status {
        unit: UnitId(2),
        status: crate::rules::battle::Status::Down,
    });
    let (a, bside) = (SideId(0), SideId(1));
    let (s0, s1, s2) = (
        eval::score(&b, bside, &Weights::DEFAULT),
        eval::score(&broke, bside, &Weights::DEFAULT),
        eval::score(&down, bside, &Weights::DEFAULT),
    );
    assert!(
        s1 < s0 - 10.0 && s1 > s2,
        "B: {s0} standing, {s1} broken, {s2} down"
    );
    assert!(
        eval::score(&broke, a, &Weights::DEFAULT) > eval::score(&b, a, &Weights::DEFAULT) + 10.0
    );
}
/// Fog of war: the AI plans on what its side sees. A foe that slipped out of sight after
/// deploying is believed where it was last seen, so wherever it really stands behind the wall
/// the AI decides the same, and it never aims at it; with the fog lifted, where it stands
/// changes the decision (so the test can tell).
#[test]
fn under_fog_the_ai_does_not_react_to_a_foe_it_cannot_see() {
    let src = |options: &str| {
        format!(
            "(name: \"t\", description: \"t\", ruleset: \"action-points\",
          topology: Square(diagonals: One), size: (10, 7),
          map: [\"..........\", \"....#.....\", \"....#.....\", \"....#.....\", \"....#.....\", \"....#.....\", \"..........\"],
          sides: [(name: \"A\", controller: Ai), (name: \"B\", controller: Ai)],
          units: [(name: \"F\", side: \"A\", cell: (1, 3), template: \"fighter\"),
                  (name: \"S\", side: \"B\", cell: (8, 3), template: \"scout\")],
          options: ({options}), victory: [LastSideStanding], seed: 1)"
        )
    };
    let f = UnitId(0);
    let scout = UnitId(1);
    let decide = |options: &str, hide: Cell| {
        let level = level::load("t.ron", &src(options)).unwrap_or_else(|e| panic!("{e:?}"));
        let (mut b, _) = BattleState::start(&level, 3);
        until_turn_of(&mut b, f);
        b.apply(&Event::Placed {
            unit: scout,
            to: hide,
        });
        if !options.is_empty() {
            assert!(crate::rules::fog::hidden(&b, SideId(0), scout), "{hide}");
        }
        normal(5).decide(&b).expect("a command")
    };
    let (up, down) = (Cell::new(5, 1), Cell::new(5, 5));
    let fogged = decide("fog: ()", up);
    assert_eq!(
        fogged,
        decide("fog: ()", down),
        "it decided on the hidden scout's cell"
    );
    assert_ne!(fogged.anchor().unit, Some(scout));
    assert_ne!(
        decide("", up),
        decide("", down),
        "seen, the scout's cell matters"
    );
}

/// `sides` execution attacks (S-164..S-175): in the surprise round, an assassin executes the
/// unaware mark it has stalked (a sure hit and a save against falling at 0 HP) rather than
/// striking or shooting it as usual, and it does so first: the first blood raises the alarm
/// and spoils every other stalk (S-167). Pip is next to Tobin; Mira shoots from afar at Hale.
#[test]
fn an_assassin_executes_its_unaware_mark_first() {
    let src = "(name: \"t\", ruleset: \"sides\", topology: Square(diagonals: One), size: (10, 4),
          map: [\"..........\", \"..........\", \"..........\", \"..........\"],
          sides: [(name: \"Party\", controller: Ai), (name: \"Garrison\", controller: Ai)],
          units: [(name: \"Pip\", side: \"Party\", cell: (7, 3), template: \"cutthroat\"),
                  (name: \"Mira\", side: \"Party\", cell: (0, 0), template: \"archer\"),
                  (name: \"Tobin\", side: \"Garrison\", cell: (8, 3), template: \"archer\"),
                  (name: \"Hale\", side: \"Garrison\", cell: (6, 0), template: \"archer\")],
          options: (surprised: [\"Garrison\"], executions: [(assassin: \"Pip\", target: \"Tobin\"),
                                                        (assassin: \"Mira\", target: \"Hale\")]))";
    let level = level::load("t.ron", src).unwrap_or_else(|e| panic!("{e:?}"));
    let marks = [(UnitId(0), UnitId(2)), (UnitId(1), UnitId(3))];
    for seed in 1..=6 {
        let (mut b, _) = BattleState::start(&level, seed);
        let mut ai = normal(seed);
        let first = loop {
            let cmd = ai.decide(&b).expect("a command");
            if !matches!(cmd, Command::Pick { .. }) {
                break cmd;
            }
            b.execute(&cmd).expect("legal");
        };
        let done = match first {
            Command::Act {
                unit,
                action: Action::Execute { target },
            } => (unit, target),
            other => panic!("seed {seed}: {}", b.show(&other)),
        };
        assert!(marks.contains(&done), "seed {seed}");
    }
}

/// Scores and cell values along greedy games on the shipped levels, summed every 15 commands,
/// under `w` (the trail of [`default_weights_score_as_before_the_refactor`]). The bridge, the
/// dark crypt, the gatehouse and the ruins are left out: their play or score changed after the
/// figures were printed (the bridge's reinforcements, a fogged move that stops when it spots a
/// foe, the gatehouse's walk through the gate: `eval::walled_ways`; the ruins' units got half
/// again their health, issue 23).
fn score_trail(w: &Weights) -> Vec<f64> {
    let mut out = Vec::new();
    for name in [
        "phases_flat_canyon",
        "phases_hex_skirmish",
        "segments_crypt",
        "sides_keep_arrow_slits",
        "sides_village_brawl",
    ] {
        let path = format!("levels/{name}.ron");
        let lvl = level::load_path(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e:?}"));
        let (mut b, _) = BattleState::start(&lvl, 7);
        for step in 0..120 {
            if b.outcome.is_some() {
                break;
            }
            let legal = b.legal_commands();
            if legal.is_empty() {
                break;
            }
            let c = greedy(&b, &legal);
            b.execute(&c).unwrap_or_else(|e| panic!("{e:?}"));
            if step % 15 == 14 {
                let mut t = 0.0;
                for s in 0..b.sides.len() {
                    t += eval::score(&b, SideId(s as u8), w);
                }
                for u in b.unit_ids() {
                    let (side, cell) = (b.units[u.index()].side, b.units[u.index()].cell);
                    t += eval::cell_value(&b, side, u, cell, w);
                }
                out.push(t);
            }
        }
    }
    out
}

/// The weights were scattered constants before [`Weights`]: its default must score every
/// position exactly as they did, so `easy` and `normal` play the same games. The figures were
/// printed by the code before the refactor (bit for bit: the same arithmetic in the same order),
/// those of the crypt and the village again when those levels changed (issue 23: a shaman in
/// the crypt, the Party two squares back), by code that still gave the other levels' figures.
#[test]
fn default_weights_score_as_before_the_refactor() {
    let before = [
        6.554460270522276,
        10.45827335406378,
        15.994797456163477,
        15.389098816235391,
        15.321167108648984,
        26.853879343880795,
        23.18028757081789,
        11.474429892736753,
        11.614835244046755,
        8.297579239926375,
        10.591788040386705,
        23.4193943006744,
        48.88916880200499,
        69.42987411423107,
        -31.380000000000003,
        -25.445404474649,
        -52.33301734264823,
        -22.836234030985622,
        -51.673374446125635,
        -38.32965525436747,
        -0.08820798864327806,
        -46.0044248465776,
        -14.299999999999997,
        -28.44920634920635,
        -61.92599647266315,
        -54.93631393298062,
        -23.940000000000005,
        5.049999999999988,
        0.5999999999999996,
        -1.4500000000000115,
        -22.678051948051944,
        -11.535353535353552,
        -16.65767778798084,
        -29.74230982261287,
        7.636923637529694,
        26.55955908289242,
    ];
    assert_eq!(score_trail(&Weights::default()), before);
    // And the trail sees the weights: doubling one changes it.
    let bolder = Weights {
        closing: 0.4,
        ..Weights::DEFAULT
    };
    assert_ne!(score_trail(&bolder), before);
}

/// `easy` and `normal` judge with the default weights, `hard` with the tuned ones in `phases`
/// and the default elsewhere.
#[test]
fn each_difficulty_searches_with_its_weights() {
    use crate::rules::rulesets::RulesetId;
    assert_eq!(search_of(Difficulty::Easy).weights, Weights::DEFAULT);
    assert_eq!(search_of(Difficulty::Normal).weights, Weights::DEFAULT);
    assert_ne!(TUNED_WEIGHTS, Weights::DEFAULT);
    for &r in RulesetId::ALL {
        let expected = if r == RulesetId::Phases {
            TUNED_WEIGHTS
        } else {
            Weights::DEFAULT
        };
        assert_eq!(hard_weights(r), expected, "{}", r.as_str());
        assert_eq!(search_for(Difficulty::Hard, r).weights, expected);
        assert_eq!(search_for(Difficulty::Normal, r).weights, Weights::DEFAULT);
    }
}

/// `easy` blunders at the scale of a ruleset's scores: in `phases`, whose scores run wide, its
/// noise is [`EASY_PHASES_NOISE`] and it plays no greedy replies; elsewhere its own ±3 and 2
/// replies. `normal` and `hard` never add noise.
#[test]
fn easy_blunders_at_the_scale_of_the_rulesets_scores() {
    use crate::rules::rulesets::RulesetId;
    for &r in RulesetId::ALL {
        let easy = search_for(Difficulty::Easy, r);
        if r == RulesetId::Phases {
            assert_eq!((easy.noise, easy.replies), (EASY_PHASES_NOISE, 0));
        } else {
            assert_eq!((easy.noise, easy.replies), (3.0, 2), "{}", r.as_str());
        }
        for d in [Difficulty::Normal, Difficulty::Hard] {
            assert_eq!(search_for(d, r).noise, 0.0);
        }
    }
}

/// On the canyon (`phases`), `easy` is a first opponent a newcomer can beat: greedy, the
/// plainest player, wins a good share of their games. At its old ±3 there (and greedy
/// replies), `easy` won 36 of these 40 games; at [`EASY_PHASES_NOISE`], 26.
#[test]
fn easy_in_phases_loses_a_share_of_games_to_greedy() {
    let lvl = level::load_path(std::path::Path::new("levels/phases_flat_canyon.ron"))
        .expect("the canyon loads");
    let caps = sim::Caps {
        time_limit: Some(std::time::Duration::from_secs(3600)),
        ..sim::Caps::default()
    };
    let easy = Kind::Utility(Difficulty::Easy);
    let mut won = 0;
    for g in 0..40u64 {
        let (players, side) = if g % 2 == 0 {
            ([easy, Kind::Greedy], 0)
        } else {
            ([Kind::Greedy, easy], 1)
        };
        let game = sim::play(&lvl, 100 + g, &players, caps);
        assert!(game.illegal.is_none(), "{:?}", game.illegal);
        won += usize::from(game.winner.map(|w| w.index()) == Some(side));
    }
    assert!(
        (20..=32).contains(&won),
        "easy won {won} of 40 against greedy"
    );
}

/// The decisions of `kind` under `weights` (`None`: the difficulty's own) at the first `n`
/// action decisions of a greedy game on the shipped level `name`.
fn decisions_on(name: &str, kind: Kind, weights: Option<Weights>, n: usize) -> Vec<Command> {
    let path = format!("levels/{name}.ron");
    let lvl = level::load_path(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e:?}"));
    let (mut b, _) = BattleState::start(&lvl, 3);
    let mut out = Vec::new();
    while out.len() < n && b.outcome.is_none() {
        let legal = b.legal_commands();
        if matches!(b.pending(), Decision::Act { .. }) && legal.len() > 1 {
            let config = Config {
                weights,
                time_limit: std::time::Duration::from_secs(3600),
                ..Config::new(kind, 9)
            };
            out.extend(Ai::new(config).decide(&b));
        }
        let c = greedy(&b, &legal);
        b.execute(&c).unwrap_or_else(|e| panic!("{e:?}"));
    }
    out
}

/// A config's weights are the ones its search judges with: a `normal` that sets no value on
/// harming a foe attacks less than `normal` on the ruins. `hard` judges with its own: on the
/// canyon (`phases`) as with [`TUNED_WEIGHTS`] given explicitly and otherwise than with the
/// default; on a level of each other ruleset as with the default and otherwise than with
/// [`TUNED_WEIGHTS`].
#[test]
fn the_search_judges_with_its_configs_weights() {
    let (ruins, canyon) = ("action_points_ruins", "phases_flat_canyon");
    let n = 10;
    let normal = Kind::Utility(Difficulty::Normal);
    let as_is = decisions_on(ruins, normal, None, n);
    let meek = Weights {
        foe_lost: 0.0,
        foe_lost_sq: 0.0,
        foe_down: 0.0,
        odds: 0.0,
        ..Weights::DEFAULT
    };
    let attacks = |cmds: &[Command]| cmds.iter().filter(|c| c.attack_target().is_some()).count();
    assert_eq!(as_is.len(), n);
    let meekly = decisions_on(ruins, normal, Some(meek), n);
    assert!(
        attacks(&meekly) < attacks(&as_is),
        "{meekly:?}\nagainst {as_is:?}"
    );
    let hard = Kind::Utility(Difficulty::Hard);
    let n = 30;
    let own = decisions_on(canyon, hard, None, n);
    assert_eq!(own.len(), n);
    assert_eq!(own, decisions_on(canyon, hard, Some(TUNED_WEIGHTS), n));
    assert_ne!(own, decisions_on(canyon, hard, Some(Weights::DEFAULT), n));
    // One level of every other ruleset (`action-points`, `sides`, `segments`, `alternating`):
    // `hard` decides as with the default weights there, and the tuned weights would decide
    // otherwise on the same level, so the check can tell the two sets apart.
    for level in [
        ruins,
        "sides_village_brawl",
        "segments_dark_crypt",
        "alternating_bridge",
    ] {
        let own = decisions_on(level, hard, None, n);
        assert_eq!(own.len(), n, "{level}");
        assert_eq!(
            own,
            decisions_on(level, hard, Some(Weights::DEFAULT), n),
            "{level}"
        );
        assert_ne!(
            own,
            decisions_on(level, hard, Some(TUNED_WEIGHTS), n),
            "{level}"
        );
    }
}

// Items (issue 26): the AI reloads an empty weapon, takes up a weapon when its hands are empty,
// and never drops, sheathes or stows (no loops of free actions).

fn item_commands(g: &sim::Game) -> Vec<&Command> {
    g.commands
        .iter()
        .filter(|c| {
            matches!(c, Command::Act { action, .. } if crate::rules::battle::items::is_item_action(action))
        })
        .collect()
}

#[test]
fn reloads_an_empty_crossbow() {
    let l = open_level(
        "sides",
        (12, 4),
        "(name: \"Cass\", side: \"A\", cell: (1, 1), template: \"archer\", items: [\"crossbow\"]),
         (name: \"Tor\", side: \"B\", cell: (9, 1), template: \"warrior\")",
        "",
    );
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        let cass = UnitId(0);
        until_turn_of(&mut b, cass);
        b.units[0].items[0].loaded = 0;
        let cmd = normal(seed).decide(&b).unwrap();
        assert_eq!(
            cmd,
            Command::Act {
                unit: cass,
                action: Action::Reload
            },
            "seed {seed}"
        );
    }
}

#[test]
fn picks_up_a_weapon_when_its_hands_are_empty() {
    let l = open_level(
        "sides",
        (12, 4),
        "(name: \"Ida\", side: \"A\", cell: (1, 1), template: \"warrior\", items: [\"dagger\"]),
         (name: \"Tor\", side: \"B\", cell: (9, 2), template: \"warrior\")",
        "items: [(item: \"longsword\", cell: (2, 1))],",
    );
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        let ida = UnitId(0);
        until_turn_of(&mut b, ida);
        b.execute(&Command::Act {
            unit: ida,
            action: Action::DropItem {
                item: "dagger".into(),
            },
        })
        .unwrap();
        assert_eq!(b.units[0].stat("unarmed"), 1);
        let mut ai = normal(seed);
        let mut picked = false;
        for _ in 0..6 {
            match b.pending() {
                Decision::Act { unit } if unit == ida => {}
                _ => break,
            }
            let cmd = ai.decide(&b).unwrap();
            picked |= matches!(
                &cmd,
                Command::Act {
                    action: Action::PickUp { .. },
                    ..
                }
            );
            b.execute(&cmd).unwrap();
        }
        assert!(picked, "seed {seed}: Ida never picked up a weapon");
        assert_eq!(
            b.units[0].stat("unarmed"),
            0,
            "seed {seed}: a weapon in hand"
        );
    }
}

#[test]
fn item_actions_do_not_loop_and_games_end() {
    let l = open_level(
        "sides",
        (10, 6),
        "(name: \"Cass\", side: \"A\", cell: (1, 1), template: \"archer\", items: [\"crossbow\", \"longsword\"]),
         (name: \"Ida\", side: \"A\", cell: (1, 3), template: \"warrior\", items: [\"longsword\"]),
         (name: \"Moss\", side: \"B\", cell: (8, 2), template: \"archer\", overrides: {\"skill\": 0}, items: [\"shortbow\", \"dagger\"]),
         (name: \"Tor\", side: \"B\", cell: (8, 4), template: \"reaver\", items: [\"greataxe\"])",
        "items: [(item: \"dagger\", cell: (4, 2)), (item: \"greataxe\", cell: (5, 3))],",
    );
    for seed in 1..3 {
        let g = sim::play(
            &l,
            seed,
            &[Kind::Utility(Difficulty::Normal); 2],
            sim::Caps::default(),
        );
        assert!(g.illegal.is_none(), "seed {seed}: {:?}", g.illegal);
        assert!(g.ended && !g.capped, "seed {seed}: the game did not end");
        let items = item_commands(&g);
        assert!(
            items.iter().all(|c| !eval::idle_item_action(c)
                || matches!(
                    c,
                    Command::Act {
                        action: Action::Carry { .. },
                        ..
                    }
                )),
            "seed {seed}: {items:?}"
        );
        // Each unit reloads at most once a round and picks up or readies a handful of times.
        assert!(
            items.len() <= 4 * g.rounds as usize + 8,
            "seed {seed}: {items:?}"
        );
    }
}

/// Plays `unit`'s turn with `ai` (everyone else ends its turns) and returns its commands.
fn one_turn_of(b: &mut BattleState, ai: &mut Ai, unit: UnitId) -> Vec<Command> {
    until_turn_of(b, unit);
    let mut out = Vec::new();
    for _ in 0..8 {
        match b.pending() {
            Decision::Act { unit: u } if u == unit => {}
            _ => break,
        }
        let cmd = ai.decide(b).unwrap();
        b.execute(&cmd).unwrap();
        out.push(cmd);
    }
    out
}

fn held(b: &BattleState, unit: UnitId) -> Vec<String> {
    b.units[unit.index()]
        .items
        .iter()
        .filter(|c| c.at == crate::rules::battle::Place::Hand)
        .map(|c| c.item.to_string())
        .collect()
}

/// A fighter with empty hands (its dagger dropped at its feet) and a longsword lying four
/// squares aside from its way to the foe walks to the sword and takes it up in the same turn (a
/// move judged with the pick-up that follows), rather than taking up the dagger or running at
/// the foe. With the longsword in hand, it never takes up a dagger lying at its feet, whose
/// stats would be laid over the sword's, though a hand is free and the Move action left after
/// its blow.
#[test]
fn walks_to_a_better_weapon_and_takes_it_up() {
    let l = open_level(
        "sides",
        (18, 8),
        "(name: \"Ida\", side: \"A\", cell: (1, 1), template: \"warrior\", items: [\"dagger\"]),
         (name: \"Tor\", side: \"B\", cell: (16, 1), template: \"warrior\")",
        "items: [(item: \"longsword\", cell: (2, 5))],",
    );
    let ida = UnitId(0);
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        until_turn_of(&mut b, ida);
        // Empty hands: the dagger lies at her feet (dropping is free).
        b.execute(&Command::Act {
            unit: ida,
            action: Action::DropItem {
                item: "dagger".into(),
            },
        })
        .unwrap();
        let mut ai = normal(seed);
        let cmds = one_turn_of(&mut b, &mut ai, ida);
        assert!(
            cmds.iter().any(|c| matches!(
                c,
                Command::Act {
                    action: Action::PickUp { .. },
                    ..
                }
            )),
            "seed {seed}: {cmds:?}"
        );
        assert_eq!(held(&b, ida), ["longsword"], "seed {seed}: {cmds:?}");
        assert_eq!(b.units[0].stat("damage_die"), 8, "seed {seed}");
    }
}

#[test]
fn keeps_a_better_weapon_and_leaves_a_worse_one() {
    let l = open_level(
        "sides",
        (18, 8),
        "(name: \"Ida\", side: \"A\", cell: (1, 1), template: \"warrior\", items: [\"longsword\"]),
         (name: \"Tor\", side: \"B\", cell: (3, 1), template: \"warrior\", overrides: {\"hp\": 40})",
        "items: [(item: \"dagger\", cell: (1, 1)), (item: \"dagger\", cell: (1, 2))],",
    );
    let ida = UnitId(0);
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        // The dagger is within reach, a hand is free: the pick-up is legal.
        until_turn_of(&mut b, ida);
        assert!(
            b.legal_commands().iter().any(|c| matches!(
                c,
                Command::Act {
                    action: Action::PickUp { .. },
                    ..
                }
            )),
            "seed {seed}"
        );
        let mut ai = normal(seed);
        for _ in 0..2 {
            let cmds = one_turn_of(&mut b, &mut ai, ida);
            assert!(
                cmds.iter()
                    .all(|c| !crate::rules::battle::items::is_item_action(match c {
                        Command::Act { action, .. } => action,
                        _ => &Action::Delay,
                    })),
                "seed {seed}: {cmds:?}"
            );
        }
        assert_eq!(held(&b, ida), ["longsword"], "seed {seed}");
    }
}

/// A fighter with a dagger in hand and a greataxe at its belt (two hands: it cannot ready it
/// beside the dagger) puts the dagger away and readies the greataxe (both free in `sides`),
/// then does not swap back.
#[test]
fn swaps_a_dagger_for_the_greataxe_it_carries() {
    let l = open_level(
        "sides",
        (18, 8),
        "(name: \"Ida\", side: \"A\", cell: (1, 1), template: \"warrior\", items: [\"dagger\", \"greataxe\"]),
         (name: \"Tor\", side: \"B\", cell: (16, 1), template: \"warrior\")",
        "",
    );
    let ida = UnitId(0);
    for seed in 1..4 {
        let (mut b, _) = BattleState::start(&l, seed);
        assert_eq!(held(&b, ida), ["dagger"]);
        let mut ai = normal(seed);
        let cmds = one_turn_of(&mut b, &mut ai, ida);
        assert_eq!(held(&b, ida), ["greataxe"], "seed {seed}: {cmds:?}");
        let again = one_turn_of(&mut b, &mut ai, ida);
        assert!(
            again.iter().all(|c| !matches!(
                c,
                Command::Act {
                    action: Action::Carry { .. },
                    ..
                }
            )),
            "seed {seed}: {again:?}"
        );
        assert_eq!(held(&b, ida), ["greataxe"], "seed {seed}");
    }
}

/// The shipped gatehouse as a battle, with `moves` applied to its units' cells (by name).
fn gatehouse_with(moves: &[(&str, Cell)]) -> BattleState {
    let lvl = level::load_path(std::path::Path::new("levels/sides_gatehouse.ron"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (mut b, _) = BattleState::start(&lvl, 1);
    for (name, cell) in moves {
        let u = b
            .units
            .iter_mut()
            .find(|u| &*u.name == *name)
            .unwrap_or_else(|| panic!("no {name}"));
        u.cell = *cell;
    }
    b
}

/// A walk goes around walls and cliffs and through doors, climbs one level at a time, and
/// stops at the cells a foe stands on.
#[test]
fn a_walk_goes_through_the_gate_not_through_the_wall() {
    let b = gatehouse_with(&[]);
    assert!(eval::walled_ways(&b), "a gate and a wall two levels high");
    let goal = Cell::new(8, 12);
    let open = eval::walk_field(&b, [goal], |_| false);
    let at = |f: &crate::rules::grid::CellMap<u32>, x, y| f.get(Cell::new(x, y)).copied();
    // Just outside the wall, above the goal: the straight line is 7, the walk through the
    // shut gate (a door is a way) at (8, 6) as well...
    assert_eq!(at(&open, 8, 5), Some(7));
    // ...but from under the archer at (4, 6) the walk goes to the gate first.
    assert_eq!(b.grid().distance(Cell::new(4, 5), goal), 7);
    assert!(at(&open, 4, 5) > Some(8), "{:?}", at(&open, 4, 5));
    // The wall-walk two levels up is reached by the stairs, never straight up the cliff.
    assert!(at(&open, 4, 6).is_some_and(|d| d != u32::MAX));
    // Foes standing in the gate passage shut the way.
    let held = |c: Cell| c == Cell::new(8, 7) || c == Cell::new(9, 7);
    let shut = eval::walk_field(&b, [goal], held);
    assert_eq!(at(&shut, 8, 5), Some(u32::MAX));
    // Open maps keep the straight line: no doors, no cliffs.
    let ruins = crate::rules::battle::tests::load("action_points_ruins.ron");
    assert!(!eval::walled_ways(&BattleState::start(&ruins, 1).0));
}

/// On the gatehouse the position score wants the stormers at the gate, not under the wall
/// they cannot climb, and the garrison in the gate passage, not out of it.
#[test]
fn the_stormers_want_the_gate_and_the_garrison_wants_to_hold_it() {
    let b = gatehouse_with(&[]);
    let w = Weights::DEFAULT;
    let stormers = SideId(0);
    let aldric = b
        .unit_ids()
        .find(|&u| &*b.units[u.index()].name == "Aldric")
        .expect("Aldric");
    // Under the archer on the wall the straight line says "one step from a foe"; the walk
    // says the foe is out of reach up there, and the way in is the gate.
    let at_gate = eval::cell_value(&b, stormers, aldric, Cell::new(7, 5), &w);
    let under_wall = eval::cell_value(&b, stormers, aldric, Cell::new(4, 5), &w);
    assert!(
        at_gate > under_wall,
        "gate {at_gate} under the wall {under_wall}"
    );
    // The garrison: Dunn in the passage beside Grell, or stepped back into the bailey.
    let garrison = SideId(1);
    let holding = eval::score(&gatehouse_with(&[]), garrison, &w);
    let gone = eval::score(
        &gatehouse_with(&[("Dunn", Cell::new(12, 10))]),
        garrison,
        &w,
    );
    assert!(holding > gone, "holding {holding} gone {gone}");
}

/// A decision remembers the walks it finds ([`eval::remember_walks`]): the scores are those
/// found afresh, for either side, asked in any order, with a foe moved between.
#[test]
fn remembered_walks_score_as_walks_found_afresh() {
    let w = Weights::DEFAULT;
    let b = gatehouse_with(&[]);
    let moved = gatehouse_with(&[("Dunn", Cell::new(12, 10))]);
    let fresh = |b: &BattleState, side| eval::score(b, SideId(side), &w);
    let want = [fresh(&b, 0), fresh(&b, 1), fresh(&moved, 1), fresh(&b, 1)];
    let remembered =
        eval::remember_walks(|| [fresh(&b, 0), fresh(&b, 1), fresh(&moved, 1), fresh(&b, 1)]);
    assert_eq!(remembered, want);
    assert_ne!(
        want[1], want[2],
        "moving Dunn out of the passage changes the score"
    );
}
