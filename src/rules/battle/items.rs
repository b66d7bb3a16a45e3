//! Items: what units carry (in hand, at the belt, in the pack), what lies on cells, and the
//! checks and effects every ruleset with items shares. Each ruleset prices the actions itself
//! (its own action economy and attacks of opportunity) and asks these for the rest, as it does
//! for doors.
//!
//! A unit's stats are its template's ([`Unit::base`]) with, for a unit armed by its items, the
//! ruleset's `unarmed` stats laid over them, then the stats of each item in its hands, in
//! order ([`Unit::refit`]); rules read them through [`Unit::stat`] as before. A template's
//! fixed weapons stay in its stats: only the items a unit carries can be dropped.

use super::{Action, BattleState, Event, Exec, Status, Unit, UnitId};
use crate::rules::grid::Cell;
use crate::rules::ruleset_data::{HANDS, ItemDef, ItemKind, RulesetData};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a unit keeps an item.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Place {
    /// Readied in hand: its stats count.
    #[default]
    Hand,
    /// Sheathed or holstered, at hand (a focus put away).
    Belt,
    /// Stowed in the pack (a stored focus).
    Pack,
}

impl Place {
    pub fn name(self) -> &'static str {
        match self {
            Place::Hand => "hand",
            Place::Belt => "belt",
            Place::Pack => "pack",
        }
    }
}

/// One item a unit carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// The key in the ruleset's `items`.
    pub item: Arc<str>,
    pub at: Place,
    /// Shots left before it must be reloaded (items with `ammo`).
    pub loaded: u8,
}

/// Items lying on cells, in cell order (shared by copies of the battle until one changes).
pub type Ground = Arc<BTreeMap<Cell, Vec<String>>>;

impl Unit {
    /// Hands its held items take.
    pub fn hands_used(&self, data: Option<&RulesetData>) -> u8 {
        self.items
            .iter()
            .filter(|c| c.at == Place::Hand)
            .map(|c| {
                data.and_then(|d| d.items.get(&*c.item))
                    .map_or(1, |d| d.hands)
            })
            .sum()
    }

    /// The first item of key `item` it carries, and its index.
    pub fn carried(&self, item: &str) -> Option<(usize, &Carried)> {
        self.items
            .iter()
            .enumerate()
            .find(|(_, c)| &*c.item == item)
    }

    /// The held item a reload is for: the first in hand with shots to fill.
    pub fn to_reload<'a>(&self, data: Option<&'a RulesetData>) -> Option<(usize, &'a ItemDef)> {
        self.items.iter().enumerate().find_map(|(i, c)| {
            let d = data?.items.get(&*c.item)?;
            (c.at == Place::Hand && d.ammo > 0 && c.loaded < d.ammo).then_some((i, d))
        })
    }

    /// The held ranged item that shoots: the last in hand giving a `range`, whose stats are
    /// the ones laid last ([`Unit::refit`]).
    pub fn shooter<'a>(&self, data: Option<&'a RulesetData>) -> Option<(usize, &'a ItemDef)> {
        self.items.iter().enumerate().rev().find_map(|(i, c)| {
            let d = data?.items.get(&*c.item)?;
            (c.at == Place::Hand && d.stats.get("range").copied().unwrap_or(0) > 0)
                .then_some((i, d))
        })
    }

    /// Lays its stats out again: its own, the ruleset's `unarmed` if its items arm it, then
    /// each held item's, in order. Called when its items change.
    pub fn refit(&mut self, data: Option<&RulesetData>) {
        let Some(data) = data else { return };
        if self.items.is_empty() && !self.armed_by_items {
            self.stats = self.base.clone();
            return;
        }
        let mut stats = (*self.base).clone();
        if self.armed_by_items {
            stats.extend(data.unarmed.iter().map(|(k, v)| (k.clone(), *v)));
        }
        for c in self.items.iter().filter(|c| c.at == Place::Hand) {
            if let Some(d) = data.items.get(&*c.item) {
                stats.extend(d.stats.iter().map(|(k, v)| (k.clone(), *v)));
            }
        }
        if stats != *self.stats {
            self.stats = Arc::new(stats);
        }
    }
}

/// The items a unit enters battle with: `keys` held while its hands allow, the rest at the
/// belt, each loaded.
pub fn kit(keys: &[String], data: Option<&RulesetData>) -> Vec<Carried> {
    let mut hands = 0u8;
    keys.iter()
        .map(|k| {
            let d = data.and_then(|d| d.items.get(k));
            let need = d.map_or(1, |d| d.hands);
            let at = if hands + need <= HANDS {
                hands += need;
                Place::Hand
            } else {
                Place::Belt
            };
            Carried {
                item: k.as_str().into(),
                at,
                loaded: d.map_or(0, |d| d.ammo),
            }
        })
        .collect()
}

impl BattleState {
    /// The ruleset's item of key `item`.
    pub fn item_def(&self, item: &str) -> Option<&'static ItemDef> {
        self.ruleset().and_then(|d| d.items.get(item))
    }

    /// An item's display name (its key if the ruleset has no such item).
    pub fn item_name(&self, item: &str) -> String {
        self.item_def(item)
            .map_or_else(|| item.to_string(), |d| d.name.clone())
    }

    /// The items lying on `cell`, in the order they were left there.
    pub fn items_at(&self, cell: Cell) -> &[String] {
        self.ground.get(&cell).map_or(&[], |v| v.as_slice())
    }

    /// Whether a heavy object lies on `cell` (no one may enter it).
    pub fn heavy_at(&self, cell: Cell) -> bool {
        self.items_at(cell)
            .iter()
            .any(|i| self.item_def(i).is_some_and(|d| d.kind == ItemKind::Heavy))
    }

    fn item_actor(&self, unit: UnitId) -> Result<&Unit, String> {
        let u = self
            .unit(unit)
            .ok_or_else(|| format!("there is no {unit}"))?;
        if !u.is_active() {
            return Err(format!("{} is out of the fight", u.name));
        }
        if self.ruleset().is_none_or(|d| d.items.is_empty()) {
            return Err(format!("the {} ruleset has no items", self.level.ruleset));
        }
        Ok(u)
    }

    /// Whether `unit` may move its `item` to `to` (ready, sheathe or stow it), leaving the
    /// price aside: it carries one elsewhere, and readying it leaves it a free hand.
    pub fn carry_check(&self, unit: UnitId, item: &str, to: Place) -> Result<Place, String> {
        let u = self.item_actor(unit)?;
        let name = self.item_name(item);
        let from = u
            .items
            .iter()
            .filter(|c| &*c.item == item)
            .map(|c| c.at)
            .find(|&at| at != to);
        let Some(from) = from else {
            return Err(if u.carried(item).is_some() {
                format!("{}'s {name} is already in its {}", u.name, to.name())
            } else {
                format!("{} carries no {name}", u.name)
            });
        };
        if to == Place::Hand {
            let need = self.item_def(item).map_or(1, |d| d.hands);
            if u.hands_used(self.ruleset()) + need > HANDS {
                return Err(format!(
                    "{}'s hands are full; put something away to ready its {name}",
                    u.name
                ));
            }
        }
        Ok(from)
    }

    /// Whether `unit` may let go of the `item` in its hand.
    pub fn drop_check(&self, unit: UnitId, item: &str) -> Result<(), String> {
        let u = self.item_actor(unit)?;
        if u.items
            .iter()
            .any(|c| &*c.item == item && c.at == Place::Hand)
        {
            Ok(())
        } else {
            Err(format!(
                "{} holds no {} in hand",
                u.name,
                self.item_name(item)
            ))
        }
    }

    /// Whether `unit` may pick up `item` from `cell`, leaving the price aside: it lies there,
    /// within the unit's melee reach (or under it), it is not heavy, and a hand is free for it.
    pub fn pickup_check(&self, unit: UnitId, cell: Cell, item: &str) -> Result<(), String> {
        let u = self.item_actor(unit)?;
        let name = self.item_name(item);
        if !self.items_at(cell).iter().any(|i| i == item) {
            return Err(format!("no {name} lies on {cell}"));
        }
        let d = self.grid().distance_steps(u.cell, cell);
        if d > u.reach.max(1)
            || (d > 1 && !crate::rules::sight::line_of_sight(&self.terrain, u.cell, cell))
        {
            return Err(format!("the {name} on {cell} is out of {}'s reach", u.name));
        }
        let def = self.item_def(item);
        if def.is_some_and(|d| d.kind == ItemKind::Heavy) {
            return Err(format!(
                "the {name} is too heavy to carry; shift it instead"
            ));
        }
        if u.hands_used(self.ruleset()) + def.map_or(1, |d| d.hands) > HANDS {
            return Err(format!(
                "{}'s hands are full; put something away to pick up the {name}",
                u.name
            ));
        }
        Ok(())
    }

    /// Whether `unit` has a held item to reload; the item if so.
    pub fn reload_check(&self, unit: UnitId) -> Result<&'static ItemDef, String> {
        let u = self.item_actor(unit)?;
        match u.to_reload(self.ruleset()) {
            Some((i, _)) => self
                .item_def(&u.items[i].item)
                .ok_or_else(|| "no such item".to_string()),
            None => Err(format!("{} holds nothing that needs reloading", u.name)),
        }
    }

    /// Whether `unit`'s shot may go: a held weapon that needs loading is loaded. A unit
    /// without such a weapon passes.
    pub fn loaded_check(&self, unit: UnitId) -> Result<(), String> {
        let Some(u) = self.unit(unit) else {
            return Ok(());
        };
        match u.shooter(self.ruleset()) {
            Some((i, d)) if d.ammo > 0 && u.items[i].loaded == 0 => Err(format!(
                "{}'s {} is not loaded; Reload first",
                u.name, d.name
            )),
            _ => Ok(()),
        }
    }

    /// Whether `unit` may shift the heavy object on `cell` to `to`: `cell` is next to it
    /// and holds one, `to` is next to `cell`, not the unit's cell, open ground with no one on
    /// it and no other heavy object.
    pub fn shift_check(&self, unit: UnitId, cell: Cell, to: Cell) -> Result<String, String> {
        let u = self.item_actor(unit)?;
        let Some(item) = self
            .items_at(cell)
            .iter()
            .find(|i| self.item_def(i).is_some_and(|d| d.kind == ItemKind::Heavy))
        else {
            return Err(format!("nothing heavy lies on {cell}"));
        };
        let name = self.item_name(item);
        if self.grid().distance_steps(u.cell, cell) != 1 {
            return Err(format!("the {name} on {cell} is not next to {}", u.name));
        }
        if self.grid().distance_steps(cell, to) != 1 || to == u.cell {
            return Err(format!(
                "the {name} can be shifted one cell, to a cell other than {}'s",
                u.name
            ));
        }
        if !self.grid().contains(to)
            || !self.terrain.passable(to)
            || self.terrain.door(to).is_some()
        {
            return Err(format!("the {name} cannot be shifted onto {to}"));
        }
        if let Some(o) = self
            .units
            .iter()
            .find(|o| o.cell == to && o.status != Status::Dead)
        {
            return Err(format!("{} stands on {to}", o.name));
        }
        if self.heavy_at(to) {
            return Err(format!("something heavy already lies on {to}"));
        }
        Ok(item.clone())
    }

    /// The item actions `unit` could take now, leaving their price aside, in a fixed order:
    /// reload, pick up (cell order), ready from the belt or pack, drop. (Sheathing and
    /// stowing are left to the player: the AI never needs them.)
    pub fn item_actions(&self, unit: UnitId) -> Vec<Action> {
        let Some(u) = self.unit(unit) else {
            return Vec::new();
        };
        if self.ruleset().is_none_or(|d| d.items.is_empty()) {
            return Vec::new();
        }
        let mut out = Vec::new();
        if self.reload_check(unit).is_ok() {
            out.push(Action::Reload);
        }
        for (cell, items) in self.ground.iter() {
            let mut seen: Vec<&String> = Vec::new();
            for item in items {
                if !seen.contains(&item) && self.pickup_check(unit, *cell, item).is_ok() {
                    seen.push(item);
                    out.push(Action::PickUp {
                        cell: *cell,
                        item: item.clone(),
                    });
                }
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for c in &u.items {
            if c.at != Place::Hand
                && !seen.contains(&&*c.item)
                && self.carry_check(unit, &c.item, Place::Hand).is_ok()
            {
                seen.push(&c.item);
                out.push(Action::Carry {
                    item: c.item.to_string(),
                    to: Place::Hand,
                });
            }
        }
        out
    }

    /// Every item action `unit` could take, for a player's menu: [`BattleState::item_actions`],
    /// then sheathing, stowing and dropping what it holds, and shifting heavy objects.
    pub fn all_item_actions(&self, unit: UnitId) -> Vec<Action> {
        let mut out = self.item_actions(unit);
        let Some(u) = self.unit(unit) else {
            return out;
        };
        for c in &u.items {
            for to in [Place::Belt, Place::Pack] {
                let a = Action::Carry {
                    item: c.item.to_string(),
                    to,
                };
                if !out.contains(&a) && self.carry_check(unit, &c.item, to).is_ok() {
                    out.push(a);
                }
            }
            let a = Action::DropItem {
                item: c.item.to_string(),
            };
            if !out.contains(&a) && self.drop_check(unit, &c.item).is_ok() {
                out.push(a);
            }
        }
        for cell in self.grid().neighbours(u.cell) {
            if !self.heavy_at(cell) {
                continue;
            }
            for to in self.grid().neighbours(cell) {
                if self.shift_check(unit, cell, to).is_ok() {
                    out.push(Action::Shift { cell, to });
                }
            }
        }
        out
    }

    /// Applies an item event (from [`BattleState::apply`]).
    pub(super) fn apply_item(&mut self, e: &Event) {
        let data = self.ruleset();
        match e {
            Event::Carried {
                unit,
                item,
                from,
                to,
            } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    if let Some(c) = u
                        .items
                        .iter_mut()
                        .find(|c| &*c.item == item.as_str() && c.at == *from)
                    {
                        c.at = *to;
                    }
                    u.refit(data);
                }
            }
            Event::Dropped { unit, item, cell } => {
                if let Some(u) = self.units.get_mut(unit.index()) {
                    if let Some(i) = u
                        .items
                        .iter()
                        .position(|c| &*c.item == item.as_str() && c.at == Place::Hand)
                    {
                        u.items.remove(i);
                    }
                    u.refit(data);
                }
                Arc::make_mut(&mut self.ground)
                    .entry(*cell)
                    .or_default()
                    .push(item.clone());
            }
            Event::PickedUp { unit, item, cell } => {
                let ground = Arc::make_mut(&mut self.ground);
                if let Some(v) = ground.get_mut(cell) {
                    if let Some(i) = v.iter().position(|x| x == item) {
                        v.remove(i);
                    }
                    if v.is_empty() {
                        ground.remove(cell);
                    }
                }
                if let Some(u) = self.units.get_mut(unit.index()) {
                    u.items.push(Carried {
                        item: item.as_str().into(),
                        at: Place::Hand,
                        loaded: 0,
                    });
                    u.refit(data);
                }
            }
            Event::Loaded { unit, item, loaded } => {
                if let Some(u) = self.units.get_mut(unit.index())
                    && let Some(c) = u
                        .items
                        .iter_mut()
                        .find(|c| &*c.item == item.as_str() && c.at == Place::Hand)
                {
                    c.loaded = *loaded;
                }
            }
            Event::Shifted { item, from, to, .. } => {
                let ground = Arc::make_mut(&mut self.ground);
                if let Some(v) = ground.get_mut(from) {
                    if let Some(i) = v.iter().position(|x| x == item) {
                        v.remove(i);
                    }
                    if v.is_empty() {
                        ground.remove(from);
                    }
                }
                ground.entry(*to).or_default().push(item.clone());
            }
            _ => {}
        }
    }
}

impl Exec<'_> {
    /// `unit` carries out an item action (checked beforehand): ready, sheathe or stow, drop,
    /// pick up, reload, shift. Anything else does nothing.
    pub fn item_action(&mut self, unit: UnitId, action: &Action) {
        let s = self.s();
        match action {
            Action::Carry { item, to } => {
                if let Ok(from) = s.carry_check(unit, item, *to) {
                    self.emit(Event::Carried {
                        unit,
                        item: item.clone(),
                        from,
                        to: *to,
                    });
                }
            }
            Action::DropItem { item } if s.drop_check(unit, item).is_ok() => {
                let cell = s.units[unit.index()].cell;
                self.emit(Event::Dropped {
                    unit,
                    item: item.clone(),
                    cell,
                });
            }
            Action::PickUp { cell, item } if s.pickup_check(unit, *cell, item).is_ok() => {
                self.emit(Event::PickedUp {
                    unit,
                    item: item.clone(),
                    cell: *cell,
                });
            }
            Action::Reload => {
                let u = &s.units[unit.index()];
                if let Some((i, d)) = u.to_reload(s.ruleset()) {
                    let item = u.items[i].item.to_string();
                    let loaded = d.ammo;
                    self.emit(Event::Loaded { unit, item, loaded });
                }
            }
            Action::Shift { cell, to } => {
                if let Ok(item) = s.shift_check(unit, *cell, *to) {
                    self.emit(Event::Shifted {
                        unit,
                        item,
                        from: *cell,
                        to: *to,
                    });
                }
            }
            _ => {}
        }
    }

    /// A shot by `unit` spends one load of its held weapon that needs loading, if it has one.
    pub fn spend_shot(&mut self, unit: UnitId) {
        let s = self.s();
        let Some(u) = s.unit(unit) else { return };
        if let Some((i, d)) = u.shooter(s.ruleset())
            && d.ammo > 0
            && u.items[i].loaded > 0
        {
            let item = u.items[i].item.to_string();
            let loaded = u.items[i].loaded - 1;
            self.emit(Event::Loaded { unit, item, loaded });
        }
    }
}

/// Whether `action` is one of the item actions ([`Exec::item_action`]).
pub fn is_item_action(action: &Action) -> bool {
    matches!(
        action,
        Action::Carry { .. }
            | Action::DropItem { .. }
            | Action::PickUp { .. }
            | Action::Reload
            | Action::Shift { .. }
    )
}

/// The items a level leaves on cells, as the battle's ground.
pub fn ground_of(level: &crate::rules::level::LevelFile) -> Ground {
    let mut g: BTreeMap<Cell, Vec<String>> = BTreeMap::new();
    for p in &level.items {
        g.entry(Cell::new(p.cell.0, p.cell.1))
            .or_default()
            .push(p.item.clone());
    }
    Arc::new(g)
}
