//! Movement in `sides`: Move actions (Run, S-84), attacks of opportunity (S-31, S-85),
//! Charge's straight line (S-65), Screen an Ally's move (S-69), and what provokes (S-36,
//! S-41, S-44, S-90); dragging and throwing a grappled foe (S-153..S-155).

use super::combat::{opposed_str, release};
use super::names;
use super::{Ev, Sides, State, can_instant, grapplers_of, held, move_actions_left, per};
use crate::rules::battle::{Action, BattleState, Command, Condition, Event, Exec, Unit, UnitId};
use crate::rules::grid::{Cell, Diagonals, StepKind, Topology};
use crate::rules::path::{Path, Reach, Step};
use crate::rules::rulesets::Member;
use crate::rules::sight;
use std::collections::BTreeSet;

/// Squares per Move action: the unit's movement, halved while prone (S-103; rounded down, at
/// least 1).
pub fn move_rate(u: &Unit) -> u32 {
    if u.is_prone() {
        (u.movement / 2).max(1)
    } else {
        u.movement
    }
}

/// Whether enemy `e` gets an attack of opportunity on `mover` (if `mover` is in its reach):
/// it stands, is not caught in the surprise round, is armed with a melee weapon (not fighting
/// unarmed in a grapple or with empty hands, house rule (items)), and `mover` has not
/// disengaged from it this round (S-31, S-87).
pub fn aoo_eligible(s: &BattleState, e: UnitId, mover: UnitId) -> bool {
    can_instant(s, e)
        && s.are_enemies(e, mover)
        && s.unit(e)
            .is_some_and(|u| u.stat(names::DAMAGE_DICE) > 0 && u.stat(names::UNARMED) == 0)
        && !held(s, e)
        && !per(Sides::state(s), mover).disengaged_from.contains(&e)
}

/// Whether `c` is within `e`'s melee reach (steps, with sight beyond 1).
pub fn cell_in_reach(s: &BattleState, e: UnitId, c: Cell) -> bool {
    let Some(u) = s.unit(e) else {
        return false;
    };
    let d = s.grid().distance_steps(u.cell, c);
    d >= 1 && d <= u.reach && (d == 1 || sight::line_of_sight(&s.terrain, u.cell, c))
}

/// The enemies whose range `mover` leaves stepping from `from` to `to` (S-85): each may take
/// an attack of opportunity.
pub fn run_provokers(s: &BattleState, mover: UnitId, from: Cell, to: Cell) -> Vec<UnitId> {
    s.enemies_of(mover)
        .into_iter()
        .filter(|&e| {
            aoo_eligible(s, e, mover) && cell_in_reach(s, e, from) && !cell_in_reach(s, e, to)
        })
        .collect()
}

/// Enemies in reach of `actor` that get an attack of opportunity on it.
pub fn adjacent_provokers(s: &BattleState, actor: UnitId) -> Vec<UnitId> {
    s.enemies_of(actor)
        .into_iter()
        .filter(|&e| aoo_eligible(s, e, actor) && s.in_melee_reach(e, actor))
        .collect()
}

/// Who gets an attack of opportunity before `cmd` takes effect: Stand Up (S-100), Use a Skill
/// (S-90), a Charge (S-67) and a Screen that moves (S-77) started next to armed enemies. (A
/// Move provokes step by step as it leaves reach: [`walk_run`].)
pub fn provoked_by(s: &BattleState, cmd: &Command) -> Vec<UnitId> {
    let Command::Act { unit, action } = cmd else {
        return Vec::new();
    };
    let here = s.unit(*unit).map(|u| u.cell);
    match action {
        // S-97, S-98: picking something up next to an armed foe provokes unless disengaged.
        Action::StandUp
        | Action::FirstAid { .. }
        | Action::Charge { .. }
        | Action::PickUp { .. } => adjacent_provokers(s, *unit),
        Action::Screen { to, .. } if Some(*to) != here => adjacent_provokers(s, *unit),
        _ => Vec::new(),
    }
}

/// Walks `unit` along `cells`, pausing for attacks of opportunity as it leaves enemies' reach.
pub fn walk_run(x: &mut Exec, unit: UnitId, cells: &[Cell], first_free: bool) {
    x.walk(unit, cells, first_free, &mut |s, m, from, to| {
        run_provokers(s, m, from, to)
    });
}

/// How many Move actions a Move of `unit` to `to` takes (1 or 2), `None` if even two cannot
/// get it there.
pub fn move_actions_needed(s: &BattleState, unit: UnitId, to: Cell) -> Option<u32> {
    let u = s.unit(unit)?;
    let rate = move_rate(u);
    if to == u.cell {
        return None;
    }
    let cost = s.end_move_cost(unit, rate * 2, to)?;
    Some(if cost <= rate { 1 } else { 2 })
}

/// The cells threatened by enemies that would take an attack of opportunity on `unit`.
fn threat(s: &BattleState, unit: UnitId) -> crate::rules::grid::CellMap<bool> {
    s.threat_for(unit, |e| aoo_eligible(s, e, unit))
}

/// The path a Move of `k` Move actions walks: the cheapest, then the one leaving fewest
/// threatened cells; its steps marked where they provoke.
pub fn move_path(s: &BattleState, unit: UnitId, to: Cell, k: u32) -> Option<Path> {
    let u = s.unit(unit)?;
    let t = threat(s, unit);
    let reach = s.reach_toward(unit, move_rate(u) * k, Some(&t), to);
    if !reach.can_end(to) {
        return None;
    }
    let mut path = reach.path_to(to)?;
    mark_provocations(s, unit, &mut path);
    Some(path)
}

/// A Move of `unit` to `to`: the Move actions it takes and the path it walks, as
/// [`move_actions_needed`] and [`move_path`] give them, from one search. (The search stopped
/// at `to` settles every cheaper state the same way whatever the budget, so the path under
/// the budget of two Moves is the one under the budget of the Moves it takes.)
pub fn move_plan(s: &BattleState, unit: UnitId, to: Cell) -> Option<(u32, Path)> {
    let rate = move_rate(s.unit(unit)?);
    if to == s.unit(unit)?.cell {
        return None;
    }
    let path = move_path(s, unit, to, 2)?;
    Some((if path.cost() <= rate { 1 } else { 2 }, path))
}

/// Marks each step that leaves an armed enemy's reach (what [`walk_run`] asks about).
pub fn mark_provocations(s: &BattleState, unit: UnitId, path: &mut Path) {
    for step in &mut path.steps {
        step.leaves_threat = !run_provokers(s, unit, step.from, step.to).is_empty();
    }
}

/// Every Move the acting unit may make, row-major.
pub fn move_commands(s: &BattleState, r: &State, unit: UnitId) -> Vec<Command> {
    let Some(u) = s.unit(unit) else {
        return Vec::new();
    };
    let left = move_actions_left(super::per(r, unit)).min(2);
    if left == 0 || held(s, unit) {
        return Vec::new();
    }
    let reach = s.reach_of(unit, move_rate(u) * left, None);
    reach
        .destinations()
        .into_iter()
        .filter(|&(c, _)| c != u.cell)
        .map(|(to, _)| Command::Move { unit, to })
        .collect()
}

/// A charge's line, and whether it ends in a thrown attack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChargePlan {
    /// The squares walked, the start first.
    pub cells: Vec<Cell>,
    /// Movement spent.
    pub cost: u32,
    /// The charge ends with a thrown attack (the target is out of melee reach).
    pub thrown: bool,
}

/// The grid's straight line from `a` to `b`: each step to the square nearest the exact line
/// (halves rounded up), so each step is one square, orthogonal or diagonal.
pub fn line(a: Cell, b: Cell) -> Vec<Cell> {
    let (dx, dy) = (i64::from(b.x - a.x), i64::from(b.y - a.y));
    let n = dx.abs().max(dy.abs());
    if n == 0 {
        return vec![a];
    }
    // round(i * d / n), halves up, in integers.
    let at = |i: i64, d: i64| (2 * i * d + n).div_euclid(2 * n);
    (0..=n)
        .map(|i| Cell::new(a.x + at(i, dx) as i32, a.y + at(i, dy) as i32))
        .collect()
}

/// Whether a unit at `from` with melee `reach` can strike `target` at `to`.
fn reaches_from(s: &BattleState, from: Cell, reach: u32, to: Cell) -> bool {
    crate::rules::threat::melee_reaches(&s.terrain, from, reach, to)
}

/// Checks a Charge of `unit` at `target` ending on `to` (S-65, S-66): a straight line of at
/// least one square, within twice its movement, ending with the target in melee reach (or, for
/// a thrown weapon, within its normal range and in sight).
pub fn charge_plan(
    s: &BattleState,
    unit: UnitId,
    target: UnitId,
    to: Cell,
) -> Result<ChargePlan, String> {
    let u = s.unit(unit).ok_or_else(|| format!("there is no {unit}"))?;
    let t = s
        .unit(target)
        .ok_or_else(|| format!("there is no {target}"))?;
    let grid = s.grid();
    let Topology::Square { diagonals } = grid.topology else {
        return Err("a Charge needs a square grid".to_string());
    };
    if !grid.contains(to) {
        return Err(format!("{to} is off the map"));
    }
    if to == u.cell {
        return Err(format!(
            "{} must charge at least 5 ft to build up momentum",
            u.name
        ));
    }
    let cells = line(u.cell, to);
    let mut cost = 0u32;
    let mut diagonals_taken = 0u32;
    for pair in cells.windows(2) {
        let (from, c) = (pair[0], pair[1]);
        let Some(terrain_cost) = s.terrain.cost(c) else {
            return Err(format!("the straight line to {to} is blocked at {c}"));
        };
        let Some(climb) = s.terrain.climb(from, c) else {
            return Err(format!(
                "the straight line to {to} runs up or down a cliff at {c}"
            ));
        };
        if let Some(o) = s.unit_at(c)
            && s.units[o.index()].is_active()
            && s.are_enemies(unit, o)
        {
            return Err(format!(
                "{} stands in the way at {c}",
                s.units[o.index()].name
            ));
        }
        let diagonal = from.x != c.x && from.y != c.y;
        let mut length = 1;
        if diagonal {
            if !s.terrain.passable(Cell::new(from.x, c.y))
                && !s.terrain.passable(Cell::new(c.x, from.y))
            {
                return Err(format!(
                    "the straight line to {to} squeezes between two walls at {c}"
                ));
            }
            match diagonals {
                Diagonals::Forbidden => {
                    return Err("this grid has no diagonal steps to charge along".to_string());
                }
                Diagonals::OneTwo => {
                    diagonals_taken += 1;
                    if diagonals_taken.is_multiple_of(2) {
                        length = 2;
                    }
                }
                Diagonals::One => {}
            }
        }
        cost += terrain_cost * length + climb;
    }
    let max = u.movement * 2;
    if cost > max {
        return Err(format!(
            "{to} is {cost} squares of movement away in a straight line; {} charges at most {max}",
            u.name
        ));
    }
    if s.unit_at(to).is_some() {
        return Err(format!("{to} is taken"));
    }
    let thrown = if reaches_from(s, to, u.reach, t.cell) {
        false
    } else if u.stat(names::THROWN) > 0
        && u.stat(names::RANGE) > 0
        && i64::from(grid.distance(to, t.cell)) <= u.stat(names::RANGE)
        && sight::cover(&s.terrain, to, t.cell) != sight::Cover::Blocked
    {
        true
    } else {
        return Err(format!(
            "{} would not be within {}'s reach from {to}",
            t.name, u.name
        ));
    };
    Ok(ChargePlan {
        cells,
        cost,
        thrown,
    })
}

/// The charge's line as a path, for the view.
pub fn charge_path(s: &BattleState, plan: &ChargePlan) -> Path {
    let mut cost = 0;
    let steps = plan
        .cells
        .windows(2)
        .map(|p| {
            cost += s.terrain.cost(p[1]).unwrap_or(1) + s.terrain.climb(p[0], p[1]).unwrap_or(0);
            Step {
                from: p[0],
                to: p[1],
                kind: if p[0].x != p[1].x && p[0].y != p[1].y {
                    StepKind::Diagonal
                } else {
                    StepKind::Straight
                },
                cost_so_far: cost,
                leaves_threat: false,
            }
        })
        .collect();
    Path { steps }
}

/// Every Charge the acting unit may make.
pub fn charge_commands(s: &BattleState, r: &State, unit: UnitId) -> Vec<Command> {
    let Some(u) = s.unit(unit) else {
        return Vec::new();
    };
    let p = per(r, unit);
    if !(p.main && p.mv) || u.is_prone() || held(s, unit) {
        return Vec::new();
    }
    let grid = s.grid();
    let far = u.reach.max(if u.stat(names::THROWN) > 0 {
        u.stat(names::RANGE).clamp(0, 64) as u32
    } else {
        0
    });
    let mut out = Vec::new();
    for target in s.enemies_of(unit) {
        let tc = s.units[target.index()].cell;
        let cells: BTreeSet<(i32, i32)> = grid
            .range(tc, far)
            .into_iter()
            .filter(|&c| grid.distance(u.cell, c) <= u.movement * 2)
            .map(|c| (c.y, c.x))
            .collect();
        for (y, x) in cells {
            let cmd = Command::Act {
                unit,
                action: Action::Charge {
                    target,
                    to: Cell::new(x, y),
                },
            };
            if super::check_action(s, r, &cmd).is_ok() {
                out.push(cmd);
            }
        }
    }
    out
}

/// Checks Screen an Ally (S-69, S-74): an active ally, a square next to it within one Move
/// (or staying put next to it), and a combat skill of at least 1.
pub fn screen_ok(s: &BattleState, unit: UnitId, ally: UnitId, to: Cell) -> Result<(), String> {
    let Some(u) = s.unit(unit) else {
        return Err(format!("there is no {unit}"));
    };
    let reach = s.reach_of(unit, move_rate(u), None);
    screen_check(s, unit, ally, to, &reach)
}

fn screen_check(
    s: &BattleState,
    unit: UnitId,
    ally: UnitId,
    to: Cell,
    reach: &Reach,
) -> Result<(), String> {
    let Some(u) = s.unit(unit) else {
        return Err(format!("there is no {unit}"));
    };
    let Some(a) = s.unit(ally) else {
        return Err(format!("there is no {ally}"));
    };
    if ally == unit || a.side != u.side {
        return Err(format!("{} is not an ally of {}", a.name, u.name));
    }
    if !a.is_active() {
        return Err(format!("{} is out of the fight", a.name));
    }
    if u.stat(names::SKILL) < 1 {
        return Err(format!(
            "{} needs at least level 1 in a combat skill to screen",
            u.name
        ));
    }
    if !s.grid().contains(to) || s.grid().distance_steps(to, a.cell) != 1 {
        return Err(format!("{to} is not next to {}", a.name));
    }
    if to == u.cell {
        if u.has(&Condition::Screening { ally }) {
            return Err(format!("{} is already screening {}", u.name, a.name));
        }
        return Ok(());
    }
    if held(s, unit) {
        return Err(format!("{} is in a grapple and cannot move", u.name));
    }
    if !reach.can_end(to) {
        return Err(format!(
            "{} cannot reach {to} with one Move ({} squares)",
            u.name,
            move_rate(u)
        ));
    }
    Ok(())
}

/// Every Screen an Ally the acting unit may take.
pub fn screen_commands(s: &BattleState, r: &State, unit: UnitId) -> Vec<Command> {
    let Some(u) = s.unit(unit) else {
        return Vec::new();
    };
    if move_actions_left(per(r, unit)) == 0 || u.stat(names::SKILL) < 1 {
        return Vec::new();
    }
    let reach = s.reach_of(unit, move_rate(u), None);
    let mut out = Vec::new();
    for ally in s.allies_of(unit) {
        let ac = s.units[ally.index()].cell;
        for to in s.grid().neighbours(ac) {
            if screen_check(s, unit, ally, to, &reach).is_ok() {
                out.push(Command::Act {
                    unit,
                    action: Action::Screen { ally, to },
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Hauling a grappled foe

/// A drag (S-153, S-154): where the grappler goes, the squares it crosses, the unit it drags
/// and where that unit ends (the last square the grappler left).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Haul {
    pub target: UnitId,
    pub path: Vec<Cell>,
    pub lands: Cell,
}

/// The unit `grappler` holds and may drag or throw: it must be held by `grappler` alone
/// (house rule), and `grappler` must not itself be held.
fn hauled(s: &BattleState, grappler: UnitId) -> Result<UnitId, String> {
    let who = s.unit_name(grappler);
    let Some(t) = per(Sides::state(s), grappler).grappling else {
        return Err(format!("{who} is not grappling anyone"));
    };
    if grapplers_of(s, t).len() > 1 {
        return Err(format!(
            "{} is held by others as well and cannot be hauled away",
            s.unit_name(t)
        ));
    }
    if let Some(&g) = grapplers_of(s, grappler).first() {
        return Err(format!(
            "{who} is grappled by {} and cannot move",
            s.unit_name(g)
        ));
    }
    Ok(t)
}

/// Checks a drag of the held unit by `grappler` to `to` (S-153, S-154; house rule): a straight
/// grid line of one or two squares (10 ft at most), every square on the map, passable and free.
pub fn drag_plan(s: &BattleState, grappler: UnitId, to: Cell) -> Result<Haul, String> {
    let target = hauled(s, grappler)?;
    let from = s.units[grappler.index()].cell;
    let steps = s.grid().distance_steps(from, to);
    if !s.grid().contains(to) || steps == 0 || steps > 2 {
        return Err(format!(
            "{to} is not 5 or 10 ft from {}",
            s.unit_name(grappler)
        ));
    }
    let line = line(from, to);
    let path: Vec<Cell> = line.iter().skip(1).copied().collect();
    let mut prev = from;
    for &c in &path {
        if !s.grid().contains(c) || s.grid().distance_steps(prev, c) != 1 {
            return Err(format!("{to} cannot be reached in a straight line"));
        }
        if !s.terrain.passable(c) {
            return Err(format!("{c} cannot be entered"));
        }
        if s.unit_at(c).is_some() {
            return Err(format!("{c} is taken"));
        }
        prev = c;
    }
    let lands = if path.len() >= 2 {
        path[path.len() - 2]
    } else {
        from
    };
    Ok(Haul {
        target,
        path,
        lands,
    })
}

/// Checks a throw of the held unit by `grappler` to `to` (S-154): a free, passable square next
/// to the thrown unit.
pub fn throw_ok(s: &BattleState, grappler: UnitId, to: Cell) -> Result<UnitId, String> {
    let target = hauled(s, grappler)?;
    let tc = s.units[target.index()].cell;
    if !s.grid().contains(to) || s.grid().distance_steps(tc, to) != 1 {
        return Err(format!("{to} is not next to {}", s.unit_name(target)));
    }
    if !s.terrain.passable(to) {
        return Err(format!("{to} cannot be entered"));
    }
    if s.unit_at(to).is_some() {
        return Err(format!("{to} is taken"));
    }
    Ok(target)
}

/// Drags the held unit (S-153..S-155): an opposed STR/Brawl check; on a win both move, the
/// grapple holds; on a loss the held unit breaks free.
pub fn drag(x: &mut Exec, grappler: UnitId, to: Cell) {
    let plan = match drag_plan(x.s(), grappler, to) {
        Ok(plan) => plan,
        Err(reason) => {
            x.emit(Sides::event(Ev::Cancelled {
                unit: grappler,
                reason,
            }));
            return;
        }
    };
    if !opposed_str(x, grappler, plan.target) {
        release(x, grappler);
        return;
    }
    x.emit(Event::Placed { unit: grappler, to });
    x.emit(Event::Placed {
        unit: plan.target,
        to: plan.lands,
    });
}

/// Throws the held unit 5 ft (S-153..S-155): an opposed STR/Brawl check; on a win it lands on
/// `to`, prone, and the grapple ends; on a loss it breaks free.
pub fn throw(x: &mut Exec, grappler: UnitId, to: Cell) {
    let target = match throw_ok(x.s(), grappler, to) {
        Ok(t) => t,
        Err(reason) => {
            x.emit(Sides::event(Ev::Cancelled {
                unit: grappler,
                reason,
            }));
            return;
        }
    };
    if opposed_str(x, grappler, target) {
        x.emit(Event::Placed { unit: target, to });
        x.set_condition(target, Condition::Prone, true);
    }
    release(x, grappler);
}
