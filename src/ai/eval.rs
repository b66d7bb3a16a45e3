//! Position scoring for the utility AI, in the same terms for every ruleset.
//!
//! A unit's *vitality* is the fraction left of its health pools (whichever of `hp`, `body`,
//! `stun`, `endurance`, `health` its ruleset uses; each pool's maximum is the stat of the same
//! name). A side's score is material (enemy vitality lost, enemies down, weighted towards
//! finishing the wounded, a unit that broke and flees counting nearly as one down; minus the
//! same for its own units, weighted a little more) plus
//! position (closing on targets, shooters in range with sight, exposure to enemy attacks next
//! turn, cover against enemy shooters) plus the level's objectives.

use crate::rules::battle::{
    Action, BattleState, Carried, Command, Place, SideId, Status, Unit, UnitId,
};
use crate::rules::grid::{Cell, CellMap};
use crate::rules::level::Victory;
use crate::rules::rulesets;
use crate::rules::sight::{self, Cover};
use serde::{Deserialize, Serialize};

/// The weights of the position score: every number of [`score`] and [`cell_value`] that is a
/// judgement rather than a rule, gathered so a difficulty can carry its own set and a tuning
/// run can try others (`fray simulate --ai-weights FILE.ron`, hidden; docs/ai.md). A RON file
/// may name only the weights it changes: the rest keep [`Weights::DEFAULT`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    /// Per enemy: the share of its health lost.
    pub foe_lost: f64,
    /// Per enemy: the square of that share (finishing the wounded is worth more than spreading
    /// damage).
    pub foe_lost_sq: f64,
    /// Per enemy down (or [`Weights::broken`] of it for one that broke and flees).
    pub foe_down: f64,
    /// Per own unit: the share of its health lost (also the material price of a sure blow).
    pub own_lost: f64,
    /// Per own unit down (also the price of a sure blow that downs it).
    pub own_down: f64,
    /// How much of a unit that is down a unit that broke and flees counts for (it may still
    /// be struck before it leaves, which finishes the job).
    pub broken: f64,
    /// The share of a spell's expected damage counted before it goes off.
    pub spell_kept: f64,
    /// Per Action Point not spent.
    pub spare_ap: f64,
    /// Per point of stamina and focus left for reactions.
    pub spare_reaction: f64,
    /// How much of an enemy's sure blow counts as the unit going down, by the square of its
    /// expected damage over the health left.
    pub certain_down: f64,
    /// The weight of sure blows against the rest of the score: priced as damage already
    /// taken, four times over, since the unit can do nothing about them before they land (1,
    /// 2, 4, 8 and 16 measured on `segments` levels: 4 was best).
    pub certain_weight: f64,
    /// Per enemy shooter, half cover against it.
    pub half_cover: f64,
    /// Per enemy shooter, full cover against it.
    pub full_cover: f64,
    /// A shooter with a target in range and sight.
    pub shooter_in_range: f64,
    /// A shooter without one: per step to the nearest enemy.
    pub shooter_closing: f64,
    /// A shooter next to an enemy.
    pub shooter_in_melee: f64,
    /// Anyone else: per step to the nearest enemy.
    pub closing: f64,
    /// Per enemy able to reach or shoot the unit next turn: the base price.
    pub exposure: f64,
    /// ... plus this times the share of its health the unit has lost ...
    pub exposure_fragile: f64,
    /// ... plus this over its health points left (a 7 hp archer pays 0.43 per enemy, a 19 hp
    /// ogre 0.16).
    pub exposure_per_hp: f64,
    /// Per step of the runner nearest a cell to reach (a `ReachCell` victory).
    pub objective: f64,
    /// The search: per share of its target's health left, an attack's exact expected damage
    /// (the ruleset's odds), added to its sampled value (a tie-break for dodging targets).
    pub odds: f64,
    /// The search: opening a door that shortens the way to the nearest foe.
    pub door_way: f64,
}

impl Weights {
    /// The weights `easy` and `normal` play with.
    pub const DEFAULT: Weights = Weights {
        foe_lost: 10.0,
        foe_lost_sq: 8.0,
        foe_down: 25.0,
        own_lost: 11.0,
        own_down: 16.0,
        broken: 0.8,
        spell_kept: 0.7,
        spare_ap: 0.1,
        spare_reaction: 0.3,
        certain_down: 0.5,
        certain_weight: 4.0,
        half_cover: 0.4,
        full_cover: 0.8,
        shooter_in_range: 1.5,
        shooter_closing: 0.08,
        shooter_in_melee: 1.0,
        closing: 0.2,
        exposure: 0.05,
        exposure_fragile: 0.4,
        exposure_per_hp: 3.0,
        objective: 0.25,
        odds: 0.5,
        door_way: 0.5,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Self::DEFAULT
    }
}

const POOLS: [&str; 5] = ["hp", "body", "stun", "endurance", "health"];

/// Health points a unit has left over all its pools and their maxima summed, in one pass
/// over the pool names (`(0, max)` when down or dead; `(0, 0)` for a unit without pools).
fn health(u: &Unit) -> (i64, i64) {
    let (mut have, mut max) = (0i64, 0i64);
    for k in POOLS {
        let m = u.stat(k);
        if m > 0 {
            max += m;
            have += u.pools.get(k).copied().unwrap_or(m).clamp(0, m);
        }
    }
    if u.status != Status::Active {
        have = 0;
    }
    (have, max)
}

/// Fraction of its health pools a unit has left (0 when down or dead).
pub fn vitality(u: &Unit) -> f64 {
    vitality_of(u, health(u))
}

fn vitality_of(u: &Unit, (have, max): (i64, i64)) -> f64 {
    if u.status != Status::Active {
        0.0
    } else if max == 0 {
        1.0
    } else {
        have as f64 / max as f64
    }
}

/// Health points a unit has left over all its pools (0 when down or dead).
pub fn health_left(u: &Unit) -> f64 {
    health(u).0 as f64
}

/// How far a unit can attack at range (weapon or spell; 0 when it cannot). A caster whose
/// spells are counted (`spell_slots`, `segments`) has no spell range once they are spent.
pub fn ranged_reach(u: &Unit) -> i64 {
    let spells_spent = u.stat("spell_slots") > 0 && u.pool("spells") <= 0;
    let spell = if spells_spent {
        0
    } else {
        u.stat("spell_range")
    };
    u.stat("range").max(spell)
}

/// Whether `unit` standing at `at` could strike an enemy from there: one within its reach, or,
/// for a shooter, one in range and sight beyond arm's length.
pub fn can_strike_from(s: &BattleState, unit: UnitId, at: Cell) -> bool {
    let me = &s.units[unit.index()];
    let range = ranged_reach(me);
    s.units.iter().any(|e| {
        if e.side == me.side || !e.is_active() {
            return false;
        }
        let d = s.grid().distance(at, e.cell);
        d <= me.reach.max(1)
            || (range > 0
                && d > 1
                && d as i64 <= range
                && sight::line_of_sight(&s.terrain, at, e.cell))
    })
}

/// How many steps `unit` must walk to stand next to its nearest active enemy, around walls,
/// shut doors and cliffs (units do not block; terrain cost is ignored). `None`: no enemy can be
/// reached at all. Used where a door may open a way: [`walk_field`] to the foes, a door a way
/// only while it stands open.
pub fn walk_to_nearest_foe(s: &BattleState, unit: UnitId) -> Option<u32> {
    let me = s.units.get(unit.index())?;
    let shut = |c: Cell| s.terrain.door(c).is_some() && !s.terrain.passable(c);
    walk_field(s, foe_cells(s, me.side), shut)
        .get(me.cell)
        .copied()
        .filter(|&d| d != u32::MAX)
}

/// Whether a straight line misjudges the way on this map: it has doors or cliffs (ground
/// two levels above a neighbour). There the position terms measure a walk ([`walk_field`]):
/// on the gatehouse a stormer under the wall stood "one step" from the archer above it, out
/// of reach, and never went for the gate. Maps without either keep the straight line (and
/// their games as they were).
pub fn walled_ways(s: &BattleState) -> bool {
    let t = &s.terrain;
    t.max_height() >= 2 || s.grid().cells().any(|c| t.door(c).is_some())
}

/// Steps to walk from every cell to the nearest of `goals`, around walls, cliffs and the
/// cells `blocked` says are shut (foes standing in the way), a door of any state counted as a
/// way (it can be opened; terrain cost is ignored); `u32::MAX` where no goal can be reached.
/// A breadth-first search from the goals.
pub fn walk_field(
    s: &BattleState,
    goals: impl IntoIterator<Item = Cell>,
    blocked: impl Fn(Cell) -> bool,
) -> CellMap<u32> {
    let grid = s.grid();
    let t = &s.terrain;
    let way = |c: Cell| (t.passable(c) || t.door(c).is_some()) && !blocked(c);
    let mut steps = CellMap::from_fn(grid.width, grid.height, |_| u32::MAX);
    let mut frontier: Vec<Cell> = Vec::new();
    for g in goals {
        if way(g) && steps.get(g).is_some_and(|&d| d == u32::MAX) {
            steps.set(g, 0);
            frontier.push(g);
        }
    }
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for c in frontier {
            for n in grid.neighbours(c) {
                // A walker steps from `n` to `c`: the climb is taken that way.
                if way(n) && t.climb(n, c).is_some() && steps.get(n).is_some_and(|&x| x == u32::MAX)
                {
                    steps.set(n, d);
                    next.push(n);
                }
            }
        }
        frontier = next;
    }
    steps
}

/// [`walk_field`] to the cells from which a foe of `side` can be struck in melee (beside
/// it, at a height a blade reaches).
fn foes_field(s: &BattleState, side: SideId) -> CellMap<u32> {
    memo_walk(s, foe_cells(s, side), Vec::new())
}

/// The cells from which a foe of `side` can be struck in melee: beside it, at a height a
/// blade reaches.
fn foe_cells(s: &BattleState, side: SideId) -> Vec<Cell> {
    let grid = s.grid();
    s.units
        .iter()
        .filter(|e| e.side != side && e.is_active())
        .flat_map(|e| {
            grid.neighbours(e.cell)
                .filter(move |&c| s.terrain.height(c).abs_diff(s.terrain.height(e.cell)) <= 1)
        })
        .collect()
}

/// What a walk was found from: its goals and the cells shut to it. Nothing else changes it
/// within a battle: walls stand, and a door is a way in any state.
#[derive(PartialEq)]
struct WalkKey {
    goals: Vec<Cell>,
    blocked: Vec<Cell>,
}

/// The walks found so far in a decision, with what each was found from.
type Walks = Vec<(WalkKey, CellMap<u32>)>;

thread_local! {
    /// The walks found during the decision under way on this thread ([`remember_walks`]);
    /// `None` outside one.
    static WALKS: std::cell::RefCell<Option<Walks>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (one decision of the AI) remembering the walks it finds: the positions a
/// decision scores differ by a unit or two, and most ask for the same walk to the same foes,
/// so each is searched once rather than for every position. The answers are the same as
/// without memory; only the time differs.
pub fn remember_walks<T>(f: impl FnOnce() -> T) -> T {
    struct Forget;
    impl Drop for Forget {
        fn drop(&mut self) {
            WALKS.with(|m| *m.borrow_mut() = None);
        }
    }
    WALKS.with(|m| *m.borrow_mut() = Some(Vec::new()));
    let _forget = Forget;
    f()
}

/// [`walk_field`] to `goals` past the `blocked` cells, from memory when the decision under
/// way has found it already ([`remember_walks`]).
fn memo_walk(s: &BattleState, goals: Vec<Cell>, blocked: Vec<Cell>) -> CellMap<u32> {
    let find = |goals: &[Cell], blocked: &[Cell]| {
        let grid = s.grid();
        let mut shut = CellMap::from_fn(grid.width, grid.height, |_| false);
        for &c in blocked {
            shut.set(c, true);
        }
        walk_field(s, goals.iter().copied(), |c| {
            shut.get(c).copied().unwrap_or(false)
        })
    };
    WALKS.with(|m| {
        let mut m = m.borrow_mut();
        let Some(known) = m.as_mut() else {
            return find(&goals, &blocked);
        };
        let key = WalkKey { goals, blocked };
        if let Some((_, f)) = known.iter().find(|(k, _)| *k == key) {
            return f.clone();
        }
        let f = find(&key.goals, &key.blocked);
        known.push((key, f.clone()));
        if known.len() > 32 {
            known.remove(0);
        }
        f
    })
}

/// [`Weights::door_way`] if `cmd` opens a door (or unlocks one, to open next) whose opening
/// shortens its unit's walk to its nearest foe (or opens the only way), else 0.
pub fn door_way(s: &BattleState, cmd: &Command, w: &Weights) -> f64 {
    let (unit, cell, unlock) = match cmd {
        Command::Act {
            unit,
            action: Action::OpenDoor { cell },
        } => (*unit, *cell, false),
        Command::Act {
            unit,
            action: Action::ShortTask { cell },
        } => (*unit, *cell, true),
        _ => return 0.0,
    };
    let before = walk_to_nearest_foe(s, unit);
    let mut opened = s.clone();
    let terrain = std::sync::Arc::make_mut(&mut opened.terrain);
    if unlock && !terrain.unlock(cell) {
        return 0.0;
    }
    terrain.toggle_door(cell);
    match (before, walk_to_nearest_foe(&opened, unit)) {
        (None, Some(_)) => w.door_way,
        (Some(b), Some(a)) if a < b => w.door_way,
        _ => 0.0,
    }
}

/// What a unit with empty hands (armed by its items, none in hand: it fights with the
/// ruleset's `unarmed` stats) costs its side in the score, more than a turn of closing in:
/// the play-out of one turn cannot see the blows it will not land later, so without it a
/// bare-handed unit would rather charge with its fists than take up the sword at its feet.
pub const EMPTY_HANDS: f64 = 2.5;

/// Whether `u` is armed by its items and holds none that gives it stats.
pub fn empty_handed(s: &BattleState, u: &Unit) -> bool {
    u.armed_by_items
        && !u.items.iter().any(|c| {
            c.at == crate::rules::battle::Place::Hand
                && s.item_def(&c.item).is_some_and(|d| !d.stats.is_empty())
        })
}

/// The weight of a unit's armament in the score: per share of its own health points that one
/// blow of its best attack takes on average ([`rulesets::armament`]), for units armed by their
/// items (the rest cannot change weapons, so it is left out for them). A `sides` warrior of 12
/// HP with a longsword (5.5) rather than a dagger (2.5) is 1.0 better off, five steps of
/// closing in: worth a few steps aside for a better weapon. Measured on
/// `sides_sacked_armoury` against the same AI without the term (200 games, docs/ai.md): 8
/// lost (39.5% on the first drawing of the level, 45.5% on the one that ships), 3.2 was even
/// (48.5%, 47.0%): a unit that spends its turn on a sword gives the other gang the first blow.
pub const ARMAMENT: f64 = 4.0;

/// [`ARMAMENT`] times the share of its health points `u`'s best blow takes (`max`: its health
/// points in all); 0 for a unit not armed by its items or not standing.
pub fn armament(s: &BattleState, u: &Unit, max: i64) -> f64 {
    if !u.armed_by_items || !u.is_active() {
        return 0.0;
    }
    ARMAMENT * rulesets::armament(s, u) / (max as f64).max(1.0)
}

/// What taking `item` into its hands would change in `unit`'s best blow (negative: a worse
/// weapon whose stats would be laid over a better one's). 0 for a unit not armed by its items.
pub fn pickup_gain(s: &BattleState, unit: UnitId, item: &str) -> f64 {
    let Some(u) = s.unit(unit).filter(|u| u.armed_by_items) else {
        return 0.0;
    };
    let mut after = u.clone();
    after.items.push(crate::rules::battle::items::Carried {
        item: item.into(),
        at: crate::rules::battle::Place::Hand,
        loaded: 0,
    });
    after.refit(s.ruleset());
    rulesets::armament(s, &after) - rulesets::armament(s, u)
}

/// The legal pick-up by `unit` that improves its best blow most, if any (none when nothing
/// lies on the ground: levels without items are played as before).
pub fn best_pickup(s: &BattleState, unit: UnitId) -> Option<Command> {
    if s.ground.is_empty() {
        return None;
    }
    let mut best: Option<(f64, Command)> = None;
    for action in s.item_actions(unit) {
        let Action::PickUp { item, .. } = &action else {
            continue;
        };
        let gain = pickup_gain(s, unit, item);
        if gain <= 0.0 || best.as_ref().is_some_and(|(g, _)| *g >= gain) {
            continue;
        }
        let cmd = Command::Act { unit, action };
        if s.check(&cmd).is_ok() {
            best = Some((gain, cmd));
        }
    }
    best.map(|(_, c)| c)
}

/// `u`'s best blow with its items where `at` puts them (index, item) rather than where they are.
fn armament_as(s: &BattleState, u: &Unit, at: impl Fn(usize, &Carried) -> Place) -> f64 {
    let mut after = u.clone();
    for (i, c) in after.items.iter_mut().enumerate() {
        c.at = at(i, c);
    }
    after.refit(s.ruleset());
    rulesets::armament(s, &after)
}

/// The item `unit` carries away from its hands that, readied alone (what it holds put away at
/// the belt), would give it a better blow than it has now, if any, the best first; `None` for
/// a unit not armed by its items.
pub fn better_carried(s: &BattleState, unit: UnitId) -> Option<usize> {
    let u = s.unit(unit).filter(|u| u.armed_by_items)?;
    let now = rulesets::armament(s, u);
    let mut best: Option<(f64, usize)> = None;
    for (i, c) in u.items.iter().enumerate() {
        if c.at == Place::Hand || u.items[..i].iter().any(|x| x.item == c.item) {
            continue;
        }
        let alone = armament_as(s, u, |j, x| {
            if j == i {
                Place::Hand
            } else if x.at == Place::Hand {
                Place::Belt
            } else {
                x.at
            }
        });
        if alone > now && best.is_none_or(|(b, _)| alone > b) {
            best = Some((alone, i));
        }
    }
    best.map(|(_, i)| i)
}

/// Whether `cmd` puts away a held item at the belt to free the hands for a better weapon the
/// unit carries ([`better_carried`]) that does not fit beside what it holds: the first half of a
/// swap, which [`idle_item_action`] would otherwise leave out.
pub fn makes_way(s: &BattleState, cmd: &Command) -> bool {
    let Command::Act {
        unit,
        action: Action::Carry {
            item,
            to: Place::Belt,
        },
    } = cmd
    else {
        return false;
    };
    let Some(u) = s.unit(*unit) else {
        return false;
    };
    let Some(i) = better_carried(s, *unit) else {
        return false;
    };
    let need = s.item_def(&u.items[i].item).map_or(1, |d| d.hands);
    u.hands_used(s.ruleset()) + need > crate::rules::ruleset_data::HANDS
        && u.items
            .iter()
            .any(|c| c.at == Place::Hand && &*c.item == item)
}

/// The legal readying of a carried item (from the belt or the pack) that improves `unit`'s best
/// blow most, if any.
pub fn best_ready(s: &BattleState, unit: UnitId) -> Option<Command> {
    let u = s
        .unit(unit)
        .filter(|u| u.armed_by_items && u.items.len() > 1)?;
    let now = rulesets::armament(s, u);
    let mut best: Option<(f64, Command)> = None;
    for (i, c) in u.items.iter().enumerate() {
        if c.at == Place::Hand {
            continue;
        }
        let then = armament_as(s, u, |j, x| if j == i { Place::Hand } else { x.at });
        if then <= now || best.as_ref().is_some_and(|(b, _)| *b >= then) {
            continue;
        }
        let cmd = Command::Act {
            unit,
            action: Action::Carry {
                item: c.item.to_string(),
                to: Place::Hand,
            },
        };
        if s.check(&cmd).is_ok() {
            best = Some((then, cmd));
        }
    }
    best.map(|(_, c)| c)
}

/// The cells on the ground where an item lies that would improve `unit`'s best blow.
pub fn better_items_at(s: &BattleState, unit: UnitId) -> Vec<Cell> {
    if s.ground.is_empty() || !s.unit(unit).is_some_and(|u| u.armed_by_items) {
        return Vec::new();
    }
    s.ground
        .iter()
        .filter(|(_, items)| {
            items.iter().any(|i| {
                s.item_def(i)
                    .is_some_and(|d| d.kind != crate::rules::ruleset_data::ItemKind::Heavy)
                    && pickup_gain(s, unit, i) > 0.0
            })
        })
        .map(|(c, _)| *c)
        .collect()
}

/// What an item action is worth beyond what the play-out of the turn shows, which cannot
/// see the next turn: [`Weights::door_way`] for reloading an empty item; 0 for the rest
/// (taking up a weapon with empty hands shows in the score: [`EMPTY_HANDS`]).
pub fn item_worth(s: &BattleState, cmd: &Command, w: &Weights) -> f64 {
    match cmd {
        // An item that needs loading; a template's own weapon (`alternating`'s crossbowman)
        // is judged as before items came.
        Command::Act {
            unit,
            action: Action::Reload,
        } if s.reload_check(*unit).is_ok() => w.door_way,
        _ => 0.0,
    }
}

/// Item actions the AI never takes: dropping, putting away and shifting never pay in its
/// reckoning, and a free one taken and undone would be a loop.
pub fn idle_item_action(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Act {
            action: Action::DropItem { .. }
                | Action::Shift { .. }
                | Action::Carry {
                    to: crate::rules::battle::Place::Belt | crate::rules::battle::Place::Pack,
                    ..
                },
            ..
        }
    )
}

/// The score of the battle for `side` under the weights `w`: higher is better.
pub fn score(s: &BattleState, side: SideId, w: &Weights) -> f64 {
    if let Some(o) = &s.outcome {
        return match o.winner {
            Some(w) if w == side => 1000.0 - s.round as f64,
            Some(_) => -1000.0,
            None => -200.0,
        };
    }
    let mut v = 0.0;
    let pending = crate::rules::rulesets::pending_damage(s);
    // Each unit's health, once: the material and the position terms both need it.
    let healths: Vec<(i64, i64)> = s.units.iter().map(health).collect();
    for (i, u) in s.units.iter().enumerate() {
        let mut lost = 1.0 - vitality_of(u, healths[i]);
        // A spell under way (`segments`) is damage in the bank, less the chance that a blow
        // on its caster spoils it.
        for &(_, target, damage) in &pending {
            if target.index() == i && u.is_active() {
                lost = (lost + w.spell_kept * damage / (healths[i].1 as f64).max(1.0)).min(1.0);
            }
        }
        // A unit that broke and flees (`sides` morale) is all but lost to its side.
        let down = if u.status != Status::Active {
            1.0
        } else if crate::rules::rulesets::broken(s, UnitId(i as u16)) {
            w.broken
        } else {
            0.0
        };
        // Actions in hand are worth something: AP not spent, stamina and focus for reactions.
        let spare = if u.is_active() {
            w.spare_ap * u.pool("ap") as f64
                + w.spare_reaction * (u.pool("stamina") + u.pool("focus")) as f64
        } else {
            0.0
        };
        // A unit armed by its items with none in hand fights with its fists.
        let bare = if u.is_active() && empty_handed(s, u) {
            EMPTY_HANDS
        } else {
            0.0
        };
        // The weapons in its hands, for a unit armed by its items.
        let arms = armament(s, u, healths[i].1);
        if u.side == side {
            v -= w.own_lost * lost + w.own_down * down + bare;
            v += spare + arms;
        } else {
            // Finishing the wounded is worth more than spreading damage.
            v += w.foe_lost * lost + w.foe_lost_sq * lost * lost + w.foe_down * down + bare;
            v -= spare + arms;
        }
    }
    let walk = walk_to_foes(s, side);
    for id in s.unit_ids() {
        let u = &s.units[id.index()];
        if u.side == side && u.is_active() && !crate::rules::rulesets::broken(s, id) {
            v += position_with(s, side, id, u.cell, healths[id.index()], walk.as_ref(), w);
        }
    }
    v + objectives(s, side, w)
}

/// A quick value of `unit` standing on `to` (used to pick which moves to look at).
pub fn cell_value(s: &BattleState, side: SideId, unit: UnitId, to: Cell, w: &Weights) -> f64 {
    cell_value_with(s, side, unit, to, walk_to_foes(s, side).as_ref(), w)
}

/// The walk to the foes of `side` that [`cell_value_with`] takes: on a map of doors or
/// cliffs ([`walled_ways`]) the steps from every cell to one beside a foe, else `None`. The
/// same for every cell a unit might move to, so it is found once for all of them.
pub fn walk_to_foes(s: &BattleState, side: SideId) -> Option<CellMap<u32>> {
    walled_ways(s).then(|| foes_field(s, side))
}

/// [`cell_value`] with the walk to the foes already found ([`walk_to_foes`]).
pub fn cell_value_with(
    s: &BattleState,
    side: SideId,
    unit: UnitId,
    to: Cell,
    walk: Option<&CellMap<u32>>,
    w: &Weights,
) -> f64 {
    let h = health(&s.units[unit.index()]);
    position_with(s, side, unit, to, h, walk, w) + objective_distance(s, side, Some((unit, to)), w)
}

/// The positional terms for one unit of `side` standing at `at`, with the unit's [`health`]
/// already known, and on a map of doors or cliffs the walk to the foes ([`walk_to_foes`]:
/// `None` elsewhere, where a straight line is the way).
fn position_with(
    s: &BattleState,
    side: SideId,
    unit: UnitId,
    at: Cell,
    h: (i64, i64),
    walk: Option<&CellMap<u32>>,
    w: &Weights,
) -> f64 {
    let me = &s.units[unit.index()];
    let grid = s.grid();
    let mine = ranged_reach(me);
    let mut nearest = u32::MAX;
    let mut can_shoot = false;
    let mut exposure = 0.0;
    let mut cover_bonus = 0.0;
    // Damage from enemies sure to act before this unit does again (`segments`: their segment
    // is still to come this round), in the material terms of `score`.
    let mut certain = 0.0;
    for (ei, e) in s.units.iter().enumerate() {
        if e.side == side || !e.is_active() {
            continue;
        }
        let d = grid.distance(at, e.cell);
        nearest = nearest.min(d);
        if mine > 0 && d as i64 <= mine && d > 1 && sight::line_of_sight(&s.terrain, at, e.cell) {
            can_shoot = true;
        }
        // Could this enemy hit me next turn: walk and strike, or shoot?
        let theirs = ranged_reach(e);
        let melee_threat = d <= e.movement + e.reach;
        let shot = theirs > 0 && d as i64 <= theirs;
        let enemy = UnitId(ei as u16);
        if (melee_threat || shot)
            && rulesets::acts_before(s, enemy, unit)
            && let Some(dmg) = rulesets::threat_damage(s, enemy, unit, !melee_threat)
        {
            // It strikes one of the units it can reach: this one's share.
            let reachable = s
                .units
                .iter()
                .enumerate()
                .filter(|&(i, u)| u.side == side && u.is_active() && i != unit.index())
                .filter(|(_, u)| {
                    let d = grid.distance(u.cell, e.cell);
                    d <= e.movement + e.reach || (theirs > 0 && d as i64 <= theirs)
                })
                .count();
            let left = (h.0 as f64).max(1.0);
            let max = (h.1 as f64).max(1.0);
            let down = (dmg / left).min(1.0);
            certain += (w.own_lost * dmg.min(left) / max
                + w.own_down * w.certain_down * down * down)
                / (1 + reachable) as f64;
        } else if melee_threat || shot {
            exposure += 1.0;
        }
        if shot {
            cover_bonus += match sight::cover(&s.terrain, e.cell, at) {
                Cover::None => 0.0,
                Cover::Half => w.half_cover,
                Cover::Full | Cover::Blocked => w.full_cover,
            };
        }
    }
    if nearest == u32::MAX {
        return 0.0;
    }
    let fragile = 1.0 - vitality_of(me, h);
    let mut v = 0.0;
    if mine > 0 {
        // Shooters: have a target in range and sight, keep out of melee.
        v += if can_shoot {
            w.shooter_in_range
        } else {
            -w.shooter_closing * nearest as f64
        };
        if nearest <= 1 {
            v -= w.shooter_in_melee;
        }
    } else {
        // The walk to a cell beside a foe where there is one; the straight line otherwise.
        let steps = walk
            .and_then(|f| f.get(at).copied())
            .filter(|&d| d != u32::MAX)
            .map_or(nearest, |d| d + 1);
        v -= w.closing * steps as f64;
    }
    // A unit few hits from down (the fragile: mages, archers, the wounded) pays more for
    // every enemy that can reach or shoot it next.
    let per_enemy =
        w.exposure + w.exposure_fragile * fragile + w.exposure_per_hp / (h.0 as f64).max(1.0);
    v - exposure * per_enemy - w.certain_weight * certain + cover_bonus
}

/// The level's objectives: reaching a cell, surviving rounds.
fn objectives(s: &BattleState, side: SideId, w: &Weights) -> f64 {
    objective_distance(s, side, None, w)
}

fn objective_distance(
    s: &BattleState,
    side: SideId,
    moved: Option<(UnitId, Cell)>,
    weights: &Weights,
) -> f64 {
    let mut v = 0.0;
    for c in &s.level.victory {
        if let Victory::ReachCell { side: name, cell } = c {
            let goal = Cell::new(cell.0, cell.1);
            let owner = s.sides.iter().position(|x| &x.name == name);
            // On a map of doors or cliffs: the walk through the gate, not through the wall,
            // past the foes standing in it (a way they shut counts as the longest walk), so
            // the defenders hold the gateway and the runners break through it. Elsewhere the
            // straight line, as before.
            let walk = walled_ways(s).then(|| {
                let foes = s
                    .units
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| u.is_active() && Some(u.side.index()) != owner)
                    .map(|(i, u)| match moved {
                        Some((m, to)) if m.index() == i => to,
                        _ => u.cell,
                    })
                    .collect();
                memo_walk(s, vec![goal], foes)
            });
            let shut = s.grid().width + s.grid().height;
            let distance = |at: Cell| match &walk {
                Some(f) => f
                    .get(at)
                    .copied()
                    .filter(|&d| d != u32::MAX)
                    .unwrap_or(shut),
                None => s.grid().distance(at, goal),
            };
            let best = s
                .unit_ids()
                .filter(|&u| s.units[u.index()].is_active())
                .filter(|&u| Some(s.units[u.index()].side.index()) == owner)
                .map(|u| {
                    let at = match moved {
                        Some((m, to)) if m == u => to,
                        _ => s.units[u.index()].cell,
                    };
                    distance(at)
                })
                .min();
            if let Some(d) = best {
                // The runner wants to close the distance; everyone else wants it long.
                let w = weights.objective * d as f64;
                if owner == Some(side.index()) {
                    v -= w;
                } else {
                    v += w;
                }
            }
        }
    }
    v
}
