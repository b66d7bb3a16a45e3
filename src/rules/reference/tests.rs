use super::*;
use crate::rules::battle::BattleState;
use crate::rules::testkit::load;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;

/// Every level of `levels/` with its ruleset.
fn levels() -> Vec<(String, crate::rules::level::Level)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/levels");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("levels/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    names.into_iter().map(|n| (n.clone(), load(&n))).collect()
}

/// What random play on the levels of `id` lists and puts on units: entry keys.
fn seen(id: RulesetId) -> BTreeSet<(EntryKind, String)> {
    let mut seen = BTreeSet::new();
    for (_, level) in levels()
        .into_iter()
        .filter(|(_, l)| l.ruleset.id == id.as_str())
    {
        for seed in 1..=12 {
            let (mut b, _) = BattleState::start(&level, seed);
            let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x7ef);
            for _ in 0..3_000 {
                if b.outcome.is_some() {
                    break;
                }
                for u in &b.units {
                    for c in &u.conditions {
                        seen.insert((EntryKind::Condition, condition_key(c).to_string()));
                    }
                }
                let legal = b.legal_commands();
                for c in &legal {
                    let (k, key) = key(c);
                    seen.insert((k, key.to_string()));
                }
                let cmd = legal[pick.random_range(0..legal.len())].clone();
                b.execute(&cmd).expect("a listed command");
            }
        }
    }
    seen
}

#[test]
fn every_command_and_condition_seen_in_play_has_an_entry() {
    let mut problems = Vec::new();
    for &id in RulesetId::ALL {
        let missing: Vec<_> = seen(id)
            .into_iter()
            .filter(|(k, key)| !reference(id).iter().any(|e| e.kind == *k && e.key == *key))
            .collect();
        if !missing.is_empty() {
            problems.push(format!("{id}: no reference entry for {missing:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn entries_are_unique_and_say_something() {
    for &id in RulesetId::ALL {
        let r = reference(id);
        assert!(!r.is_empty(), "{id}: no reference");
        let mut keys = BTreeSet::new();
        for e in r {
            assert!(
                keys.insert((e.kind, e.key.clone())),
                "{id}: {} twice",
                e.key
            );
            assert!(!e.text.is_empty(), "{id}: {} says nothing", e.key);
        }
    }
}

#[test]
fn a_command_finds_its_entry() {
    use crate::rules::battle::UnitId;
    let dodge = Command::React {
        unit: UnitId(0),
        reaction: Reaction::Dodge,
    };
    let e = for_command(RulesetId::ActionPoints, &dodge).expect("Dodge");
    assert_eq!(e.kind, EntryKind::Reaction);
    assert!(e.line().starts_with("Dodge (1 AP): "), "{}", e.line());
    let snap = Command::React {
        unit: UnitId(0),
        reaction: Reaction::Attack { target: UnitId(1) },
    };
    assert!(
        for_command(RulesetId::Sides, &snap)
            .expect("Snap Attack")
            .title()
            .starts_with("Snap Attack")
    );
    assert_eq!(
        for_condition(RulesetId::Phases, &Condition::Stunned).map(|e| e.title()),
        Some("Stunned")
    );
}
