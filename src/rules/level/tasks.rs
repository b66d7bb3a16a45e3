//! Tasks a level gives its units to do in the middle of a fight (the `alternating` Short
//! Task, rule A-62): what a task is in the level format, and its checks.

use super::spans::Seg;
use super::{LevelFile, Problems, ruleset_data};
use crate::rules::map::{Door, Terrain};
use serde::{Deserialize, Serialize};

/// A task a unit next to `cell` may carry out as a Short Task: a test of `attribute` +
/// `skill` against `difficulty`; on a success `effect` happens. See `levels/README.md`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// What the task is called in the menu and the log ("pick the lock").
    pub name: String,
    /// `(x, y)`: the cell it is done at, by a unit standing next to it.
    pub cell: (i32, i32),
    /// What a success does.
    #[serde(default)]
    pub effect: TaskEffect,
    /// The stat whose die is the test's attribute die; left out, the ruleset's house rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// The stat whose die is the test's skill die; left out, the ruleset's house rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// The number the test must reach; left out, the ruleset's house rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<i64>,
}

/// What a task's success does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskEffect {
    /// The locked door on the task's cell becomes a shut door (which a unit may then open).
    #[default]
    Unlock,
}

/// The most tasks a level may give.
pub const MAX_TASKS: usize = 256;

/// The highest difficulty a task may have (no test of two dice reaches more).
pub const MAX_TASK_DIFFICULTY: i64 = 2_000;

/// The checks of `file.tasks`: the ruleset has Short Tasks, at most [`MAX_TASKS`], each task has a name, its cell is
/// inside the map with what its effect needs (a locked door and a shut door kind to become),
/// one task per cell, its stats are stats the ruleset's templates have, its difficulty is
/// from 1 to [`MAX_TASK_DIFFICULTY`].
pub(super) fn check(
    file: &LevelFile,
    legend: &[(char, Terrain)],
    in_bounds: &dyn Fn((i32, i32)) -> bool,
    terrain_at: &dyn Fn((i32, i32)) -> Option<Terrain>,
    out: &mut Problems,
) {
    use Seg::{Field as F, Index as I};
    if file.tasks.is_empty() {
        return;
    }
    if !file.ruleset.short_tasks() {
        out.push(
            vec![F("tasks")],
            format!(
                "the '{}' ruleset has no Short Task; only `alternating` gives units tasks \
                 (A-62): remove tasks",
                file.ruleset
            ),
        );
        return;
    }
    if file.tasks.len() > MAX_TASKS {
        out.push(
            vec![F("tasks"), I(MAX_TASKS)],
            format!(
                "this level has {} tasks; a battle has at most {MAX_TASKS}",
                file.tasks.len()
            ),
        );
        return;
    }
    let data = ruleset_data::builtin(file.ruleset);
    let known =
        |stat: &str| data.is_none_or(|d| d.templates.values().any(|t| t.stats.contains_key(stat)));
    let shut_kind = legend.iter().any(|(_, t)| t.door == Some(Door::Closed));
    for (i, task) in file.tasks.iter().enumerate() {
        let at = |f: &'static str| vec![F("tasks"), I(i), F(f)];
        if task.name.trim().is_empty() {
            out.push(at("name"), format!("task {i} has no name"));
        }
        let (x, y) = task.cell;
        if !in_bounds(task.cell) {
            out.push(
                at("cell"),
                format!("task '{}' is at ({x}, {y}), outside the map", task.name),
            );
        } else if let Some(j) = file.tasks[..i].iter().position(|t| t.cell == task.cell) {
            out.push(
                at("cell"),
                format!(
                    "tasks '{}' and '{}' are both at ({x}, {y}); one task per cell",
                    file.tasks[j].name, task.name
                ),
            );
        } else {
            match task.effect {
                TaskEffect::Unlock => {
                    let t = terrain_at(task.cell);
                    if t.as_ref().is_some_and(|t| t.door != Some(Door::Locked)) {
                        let name = t.map_or_else(String::new, |t| t.label());
                        out.push(
                            at("cell"),
                            format!(
                                "task '{}' unlocks the door at ({x}, {y}), but that cell is \
                                 {name}, not a locked door (glyph 'L')",
                                task.name
                            ),
                        );
                    } else if !shut_kind {
                        out.push(
                            at("effect"),
                            format!(
                                "task '{}' unlocks a door, but the legend has no shut door \
                                 (`door: Some(Closed)`, glyph 'D') for it to become",
                                task.name
                            ),
                        );
                    }
                }
            }
        }
        for (field, stat) in [("attribute", &task.attribute), ("skill", &task.skill)] {
            if let Some(stat) = stat
                && !known(stat)
            {
                out.push(
                    at(field),
                    format!(
                        "task '{}' tests '{stat}', a stat no template of '{}' has",
                        task.name, file.ruleset
                    ),
                );
            }
        }
        if let Some(d) = task.difficulty
            && !(1..=MAX_TASK_DIFFICULTY).contains(&d)
        {
            out.push(
                at("difficulty"),
                format!(
                    "task '{}' has difficulty {d}; it must be from 1 to {MAX_TASK_DIFFICULTY}",
                    task.name
                ),
            );
        }
    }
}
