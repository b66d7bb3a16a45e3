//! Scripted scenarios: a level, a seed and a dice tape, commands, and the events they must
//! produce. `fray scenario FILE...` runs them; `cargo test` runs every file under
//! `tests/scenarios/`. The format is documented in `tests/scenarios/README.md`:
//!
//! ```ron
//! (
//!     name: "Short title",
//!     level: File("levels/alternating_bridge.ron"),   // or Inline(( ...a whole level... ))
//!     seed: 1,
//!     tape: [6, 2, 5],
//!     steps: [
//!         Do(Attack(unit: "Boudica", target: "Nix")),
//!         Expect([Rolled(unit: "Boudica", purpose: Attack, total: 6)]),
//!         Reject(Move(unit: "Nix", to: (1, 1)), "turn"),
//!         Pending(Act(unit: "Nix")),
//!     ],
//! )
//! ```
//! `Expect` matches the events since the previous `Expect` (or the start), in order, by subset
//! ([`matcher`], on [`tree::Node`] trees). `Reject` must be rejected with a reason containing
//! the text, and must leave the battle unchanged. `Pending` matches the decision the battle waits for.

pub mod matcher;
#[cfg(test)]
mod test_support;
pub mod to_tree;
pub mod tree;

use crate::rules::battle::{BattleState, Command, Event, with_names};
use crate::rules::level::Level;
use crate::rules::replay::{self, LevelSource};
use matcher::{find_subsequence, matches};
use serde::Deserialize;
use std::path::Path;
use to_tree::to_tree;
use tree::{Node, parse, render};

/// One step of a scenario.
#[derive(Clone, Debug)]
pub enum Step {
    Do(Command),
    Expect(Vec<Node>),
    Reject(Command, String),
    Pending(Node),
}

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub level: Level,
    pub seed: u64,
    pub tape: Vec<u32>,
    pub steps: Vec<Step>,
}

/// The result of running one scenario file.
#[derive(Clone, Debug)]
pub struct Report {
    pub file: String,
    pub name: String,
    pub passed: bool,
    /// What went wrong, with the expected and actual events; empty when passed.
    pub detail: String,
}

/// Rewrites unnamed `(x, y)` integer pairs as `(x: x, y: y)` so commands may write cells short.
fn cells_long(n: &Node) -> Node {
    match n {
        Node::Tuple { name: None, items }
            if items.len() == 2 && items.iter().all(|i| matches!(i, Node::Int(_))) =>
        {
            Node::Named {
                name: String::new(),
                fields: vec![
                    ("x".into(), items[0].clone()),
                    ("y".into(), items[1].clone()),
                ],
            }
        }
        Node::Tuple { name, items } => Node::Tuple {
            name: name.clone(),
            items: items.iter().map(cells_long).collect(),
        },
        Node::Named { name, fields } => Node::Named {
            name: name.clone(),
            fields: fields
                .iter()
                .map(|(k, v)| (k.clone(), cells_long(v)))
                .collect(),
        },
        Node::List(items) => Node::List(items.iter().map(cells_long).collect()),
        other => other.clone(),
    }
}

fn command(level: &Level, n: &Node) -> Result<Command, String> {
    let text = render(&cells_long(n));
    with_names(replay::level_names(level), || {
        ron::from_str::<Command>(&text)
    })
    .map_err(|e| format!("bad command `{text}`: {}", e.code))
}

/// Reads a scenario file's text.
pub fn load(path: &Path, text: &str) -> Result<Scenario, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Head {
        name: String,
        level: LevelSource,
        #[serde(default)]
        seed: u64,
        #[serde(default)]
        tape: Vec<u32>,
        #[allow(dead_code)]
        steps: ron::Value,
    }
    let file = path.display();
    let head: Head = crate::rules::level::ron_options()
        .from_str(text)
        .map_err(|e| format!("{file}:{}", replay::ron_error(&e)))?;
    let level = replay::load_level(&head.level, path).map_err(|d| {
        d.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let root = parse(text).map_err(|e| format!("{file}:{e}"))?;
    let Node::Named { fields, .. } = &root else {
        return Err(format!("{file}: a scenario is a `( ... )` struct"));
    };
    let Some((_, Node::List(items))) = fields.iter().find(|(k, _)| k == "steps") else {
        return Err(format!("{file}: `steps` must be a list"));
    };
    let mut steps = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = |m: String| format!("{file}: step {}: {m}", i + 1);
        let Node::Tuple {
            name: Some(kind),
            items: args,
        } = item
        else {
            return Err(at(format!(
                "expected Do(..), Expect([..]), Reject(.., \"reason\") or Pending(..), found `{}`",
                render(item)
            )));
        };
        let step = match (kind.as_str(), args.as_slice()) {
            ("Do", [c]) => Step::Do(command(&level, c).map_err(at)?),
            ("Expect", [Node::List(events)]) => Step::Expect(events.clone()),
            ("Reject", [c, Node::Str(why)]) => {
                Step::Reject(command(&level, c).map_err(at)?, why.clone())
            }
            ("Pending", [d]) => Step::Pending(d.clone()),
            _ => {
                return Err(at(format!(
                    "expected Do(command), Expect([events]), Reject(command, \"reason\") or \
                     Pending(decision), found `{}`",
                    render(item)
                )));
            }
        };
        steps.push(step);
    }
    Ok(Scenario {
        name: head.name,
        level,
        seed: head.seed,
        tape: head.tape,
        steps,
    })
}

/// The tree of an actual event or decision; `?` for one that has none (an integer beyond 64
/// bits).
fn node_of<T: serde::Serialize>(v: &T) -> Node {
    to_tree(v).unwrap_or(Node::Ident("?".into()))
}

/// Runs a parsed scenario.
pub fn run(s: &Scenario) -> Result<(), String> {
    let (mut b, opening) = BattleState::start_with_tape(&s.level, s.seed, s.tape.iter().copied());
    let mut since: Vec<Event> = opening;
    for (i, step) in s.steps.iter().enumerate() {
        let at = |m: String| format!("step {}: {m}", i + 1);
        match step {
            Step::Do(c) => match b.execute(c) {
                Ok(e) => since.extend(e),
                Err(r) => return Err(at(format!("{} was rejected: {r}", b.show(c)))),
            },
            Step::Expect(expected) => {
                // The battle's names now: reinforcements that arrived may be named.
                let names = b.names();
                let actual: Vec<Node> = since.iter().map(node_of).collect();
                if let Err(m) = find_subsequence(expected, &actual, &names) {
                    let mut msg = format!("{m}\n  actual events since the previous Expect:");
                    for (k, a) in actual.iter().enumerate() {
                        msg.push_str(&format!("\n    #{k} {}", render(a)));
                    }
                    return Err(at(msg));
                }
                since.clear();
            }
            Step::Reject(c, why) => {
                let before = ron::to_string(&b).map_err(|e| e.to_string())?;
                match b.execute(c) {
                    Ok(_) => {
                        return Err(at(format!(
                            "{} was accepted; expected a rejection",
                            b.show(c)
                        )));
                    }
                    Err(r) if !r.reason.contains(why.as_str()) => {
                        return Err(at(format!(
                            "{} was rejected with \"{}\", which does not contain \"{why}\"",
                            b.show(c),
                            r.reason
                        )));
                    }
                    Err(_) => {}
                }
                if ron::to_string(&b).map_err(|e| e.to_string())? != before {
                    return Err(at(format!("rejecting {} changed the battle", b.show(c))));
                }
            }
            Step::Pending(d) => {
                let names = b.names();
                let actual = node_of(&b.pending());
                if let Err(m) = matches(d, &actual, &names) {
                    return Err(at(format!(
                        "pending decision `{}` does not match `{}`: {m}",
                        render(&actual),
                        render(d)
                    )));
                }
            }
        }
    }
    if b.rng.tape_faults() > 0 {
        return Err(format!(
            "{} tape value(s) did not fit the die they were used for",
            b.rng.tape_faults()
        ));
    }
    Ok(())
}

/// The largest scenario file read.
const MAX_SCENARIO_BYTES: u64 = 16 * 1024 * 1024;

/// Loads and runs one scenario file.
pub fn run_file(path: &Path) -> Report {
    let file = path.display().to_string();
    let text = match crate::rules::replay::read_user_file(path, MAX_SCENARIO_BYTES) {
        Ok(t) => t,
        Err(e) => {
            return Report {
                file,
                name: String::new(),
                passed: false,
                detail: e,
            };
        }
    };
    match load(path, &text) {
        Err(e) => Report {
            file,
            name: String::new(),
            passed: false,
            detail: e,
        },
        Ok(s) => {
            let result = run(&s);
            Report {
                file,
                name: s.name,
                passed: result.is_ok(),
                detail: result.err().unwrap_or_default(),
            }
        }
    }
}

/// Every `*.ron` file under `dir`, recursively, sorted.
///
/// Linked folders are not followed (a link to a parent folder would list every file again and
/// again); linked files are listed.
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let real_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if real_dir {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ron") && !p.is_dir() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = r#"(
        name: "Kestrel misses, then hits",
        level: File("levels/action_points_ruins.ron"),
        seed: 1,
        tape: [6, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        steps: [
            Pending(Act(unit: "Kestrel")),
            Expect([RoundStarted(round: 1), TurnStarted(unit: "Kestrel")]),
            Reject(EndTurn(unit: "Shade"), "Kestrel's turn"),
            Do(Move(unit: "Kestrel", to: (2, 6))),
            Expect([Pool(unit: "Kestrel", pool: "ap", value: 2), Moved(unit: "Kestrel", to: (2, 6))]),
        ],
    )"#;

    #[test]
    fn a_scenario_passes_and_a_wrong_expectation_fails_with_a_diff() {
        let path = crate::repo_dir().join("x.ron");
        let s = load(&path, SCENARIO).expect("loads");
        assert_eq!(s.steps.len(), 5);
        run(&s).expect("passes");
        let wrong = SCENARIO.replace("value: 2)", "value: 1)");
        let err = run(&load(&path, &wrong).expect("loads")).expect_err("fails");
        assert!(err.contains("step 5"), "{err}");
        assert!(err.contains("expected 1, found 2"), "{err}");
        assert!(
            err.contains("actual events since the previous Expect"),
            "{err}"
        );
        let wrong = SCENARIO.replace("\"Kestrel's turn\"", "\"nonsense\"");
        let err = run(&load(&path, &wrong).expect("loads")).expect_err("fails");
        assert!(err.contains("does not contain \"nonsense\""), "{err}");
    }

    #[test]
    fn bad_scenarios_are_reported_not_panicked() {
        let path = Path::new("bad.ron");
        for text in [
            "",
            "(",
            "(name: \"x\", level: File(\"nowhere.ron\"), steps: [])",
            &SCENARIO.replace("Do(Move", "Dance(Move"),
            &SCENARIO.replace("\"Shade\"", "\"Nobody\""),
        ] {
            assert!(load(path, text).is_err(), "{text}");
        }
    }
}
