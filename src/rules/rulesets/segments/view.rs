//! What the view and the AI may ask `segments` without changing the battle, and what each side
//! may know: the clock in segments, the action menu, attack odds, redaction of hidden
//! declarations, and the combat log's words for the ruleset's events.
//!
//! Hidden information: a unit's declaration is known to its own side at once and to the other
//! sides only once its first turn of the round begins ([`Ev::Revealed`]). Everything that shows
//! a declaration (the clock's segments, the log) must be given a state passed through
//! [`redact`] and events passed through [`redact_event`] for the side looking.

use super::Segments;
use super::actions::allowed;
use super::combat::{self, Kind};
use super::names::{
    CURE_DIE, HASTE_ROUNDS, HOLD_ROUNDS, LONG_RANGE, MISSILE_BONUS, RANGE, SAVE, SET_VS_CHARGE,
    SHIELD_AC, SHIELD_MISSILE_AC, SHIELD_ROUNDS,
};
use super::spells;
use super::turns::{
    Mode, attacks, casting_time, mode, next_to_declare, side_segment, stat, unit_segment,
};
use super::{Ev, Phase, SEGMENTS, State, TurnKind};
use crate::rules::battle::{
    Action, BattleState, Command, Event, Intent, Reaction, SideId, Spell, Trigger, UnitId,
};
use crate::rules::dice::{BattleRng, DiceExpr};
use crate::rules::rulesets::Member;
use crate::rules::rulesets::view::{self, Clock, CommandInfo, Odds, OrderEntry};

/// Removes from `state` what `viewer`'s side cannot know: the other sides' declarations not
/// revealed yet, and the dice to come (the generator is replaced by one seeded from what every
/// side has seen).
pub fn redact(state: &mut BattleState, viewer: SideId) {
    let sides: Vec<SideId> = state.units.iter().map(|u| u.side).collect();
    let applied = state.applied;
    if let Some(r) = Segments::state_mut(state) {
        for (m, side) in r.units.values_mut().zip(sides) {
            if side != viewer && !m.revealed {
                m.intent = None;
            }
        }
        state.rng = BattleRng::new(applied ^ 0x5e67_3e47);
    }
}

/// The event as `viewer`'s side may see it: another side's declaration without its content.
pub fn redact_event(s: &BattleState, e: &Event, viewer: SideId) -> Event {
    match Segments::event_of(e) {
        Some(Ev::Declared { unit, .. }) if s.unit(*unit).is_some_and(|u| u.side != viewer) => {
            Segments::event(Ev::Declared {
                unit: *unit,
                intent: None,
            })
        }
        _ => e.clone(),
    }
}

fn side_name(s: &BattleState, side: SideId) -> String {
    s.sides
        .get(side.index())
        .map_or_else(|| side.to_string(), |x| x.name.clone())
}

fn intent_words(s: &BattleState, intent: &Option<Intent>) -> String {
    match intent {
        None => "(hidden)".to_string(),
        Some(Intent::Melee) => "fight in melee".to_string(),
        Some(Intent::Missile) => "use a missile weapon".to_string(),
        Some(Intent::Spell { target, spell }) if spell.is_magic_missile() => {
            format!("cast a spell at {}", s.unit_name(*target))
        }
        Some(Intent::Spell { target, spell }) => {
            format!("cast {} on {}", spell.name(), s.unit_name(*target))
        }
        Some(Intent::Run) => "run".to_string(),
        Some(Intent::Hold) => "hold (do nothing)".to_string(),
    }
}

/// Whether a foe of `unit` stands within `squares` of it now.
fn foe_within(s: &BattleState, unit: UnitId, squares: i64) -> bool {
    s.enemies_of(unit)
        .into_iter()
        .any(|e| i64::from(s.distance(unit, e)) <= squares)
}

/// What a declaration lets the unit do this round, for the declaration menu (the menu's hint
/// says that declarations are hidden from the other side).
fn declaration_effect(s: &BattleState, unit: UnitId, intent: &Intent) -> String {
    let walk = super::turns::walk_budget(s, unit);
    match intent {
        Intent::Melee => {
            let set = if stat(s, unit, SET_VS_CHARGE) > 0 {
                "; standing still, its spear is set against a charge"
            } else {
                ""
            };
            // Said, not forbidden: foes move before the unit's segment comes.
            let far = if foe_within(s, unit, walk as i64 + 1) {
                ""
            } else {
                "; no foe is within a move now"
            };
            format!("move up to {walk} squares, then strike{set}{far}")
        }
        Intent::Missile => {
            let early = stat(s, unit, MISSILE_BONUS);
            let n = combat::strikes(s, unit, Kind::Missile) as u32;
            let when = if early > 0 {
                format!("; acts {} before its side", plural(early as u32, "segment"))
            } else {
                String::new()
            };
            let range = stat(s, unit, LONG_RANGE).max(stat(s, unit, RANGE));
            let far = if foe_within(s, unit, walk as i64 + range) {
                ""
            } else {
                "; no foe is within a move and a shot now"
            };
            format!(
                "move up to {walk} squares, then shoot {}{when}{far}",
                plural(n, "missile")
            )
        }
        Intent::Spell { target, spell } => {
            let t = casting_time(s, unit, *spell);
            let left = s
                .unit(unit)
                .map_or(0, |u| u.pool(spells::stats_of(*spell).pool));
            let now = match super::actions::cast_target_ok(s, unit, *target, *spell) {
                Ok(()) => "in range and sight now".to_string(),
                Err(e) => e.reason,
            };
            let what = match spell {
                Spell::MagicMissile => "never misses".to_string(),
                Spell::Haste => format!(
                    "+1 attack routine and double movement for {} rounds",
                    stat(s, unit, HASTE_ROUNDS)
                ),
                Spell::CureLightWounds => format!("heals 1d{}", stat(s, unit, CURE_DIE)),
                Spell::HoldPerson => format!(
                    "held {} rounds unless it saves ({}+ on a d20)",
                    stat(s, unit, HOLD_ROUNDS),
                    stat(s, *target, SAVE)
                ),
                Spell::Shield => format!(
                    "AC {} ({} vs missiles) for {} rounds, Magic Missile cannot harm",
                    stat(s, unit, SHIELD_AC),
                    stat(s, unit, SHIELD_MISSILE_AC),
                    stat(s, unit, SHIELD_ROUNDS)
                ),
            };
            format!(
                "{} ({t}-segment spell), {what}, {left} left; {now}",
                spell.name()
            )
        }
        Intent::Run => format!(
            "move up to {} squares, no attack",
            super::turns::run_budget(s, unit)
        ),
        Intent::Hold => "do nothing this round".to_string(),
    }
}

fn plural(n: u32, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// When a spell whose last casting segment is tick `last` goes off, in words: at the start of
/// the next segment, or as the surprise segments or a round end (before the next round's
/// declarations).
pub(crate) fn goes_off_words(s: &BattleState, r: &State, last: u32) -> String {
    let ss = r.surprise_segments;
    if last < ss {
        return format!("at the start of surprise segment {}", last + 1);
    }
    if last == ss && ss > 0 {
        return "as the surprise segments end".to_string();
    }
    // Segments of rounds played by the end of the casting (at least 1: casting is begun in a turn).
    let into = (last - ss).max(1);
    let round = (into - 1) / SEGMENTS + 1;
    let n = (into - 1) % SEGMENTS + 1;
    let of_round = |round: u32| {
        if round == s.round && r.phase == Phase::Round {
            String::new()
        } else {
            format!(" of round {round}")
        }
    };
    if n == SEGMENTS {
        format!("as round {round} ends")
    } else {
        format!("at the start of segment {}{}", n + 1, of_round(round))
    }
}

/// Tick `tick` in words: "round 3, segment 4" (or a surprise segment).
pub(crate) fn tick_words(s: &BattleState, r: &State, tick: u32) -> String {
    let _ = s;
    let ss = r.surprise_segments;
    if tick <= ss {
        return format!("surprise segment {tick}");
    }
    let into = tick - ss;
    format!(
        "round {}, segment {}",
        (into - 1) / SEGMENTS + 1,
        (into - 1) % SEGMENTS + 1
    )
}

/// One line of the combat log for a ruleset event.
pub fn log_line(s: &BattleState, e: &Ev) -> String {
    match e {
        Ev::Surprise {
            rolls,
            segments,
            count,
        } => {
            let mut parts: Vec<String> = rolls
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let side = side_name(s, SideId(i as u8));
                    match r {
                        Some(r) => format!("{side} rolled {r}"),
                        None => format!("{side} made no roll"),
                    }
                })
                .collect();
            if *count == 0 {
                parts.push("no one is surprised".to_string());
            } else {
                let who: Vec<String> = segments
                    .iter()
                    .enumerate()
                    .filter(|&(_, &k)| k > 0)
                    .map(|(i, &k)| format!("{} {k}", s.unit_name(UnitId(i as u16))))
                    .collect();
                parts.push(format!(
                    "{}; surprised for: {}",
                    plural(*count, "surprise segment"),
                    who.join(", ")
                ));
            }
            format!("Surprise: {}", parts.join("; "))
        }
        Ev::Declaring => "Declare spells and general actions".to_string(),
        Ev::Joined { unit, ready } => format!(
            "{} joins its side{}",
            s.unit_name(*unit),
            if *ready {
                ": it declares and acts this round"
            } else {
                "; it declares and acts from the next round"
            }
        ),
        Ev::Declared { unit, intent } => match intent {
            Some(_) => format!(
                "{} declares: {}",
                s.unit_name(*unit),
                intent_words(s, intent)
            ),
            None => format!("{} declares", s.unit_name(*unit)),
        },
        Ev::Initiative { rolls } => {
            let parts: Vec<String> = rolls
                .iter()
                .enumerate()
                .map(|(i, roll)| {
                    let others = rolls
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, r)| *r)
                        .max()
                        .unwrap_or(0);
                    format!(
                        "{} rolled {roll}, acts in segment {others}",
                        side_name(s, SideId(i as u8))
                    )
                })
                .collect();
            format!("Initiative: {}", parts.join("; "))
        }
        Ev::Segment {
            round,
            n,
            queue,
            simultaneous,
            ..
        } => {
            let what = if *round == 0 {
                format!("Surprise segment {n}")
            } else {
                format!("Segment {n}")
            };
            if queue.is_empty() {
                format!("{what}: no one acts")
            } else {
                let who: Vec<String> = queue.iter().map(|&u| s.unit_name(u).into_owned()).collect();
                format!(
                    "{what}: {} {}{}",
                    who.join(", "),
                    if queue.len() == 1 { "acts" } else { "act" },
                    if *simultaneous {
                        " (simultaneous: no one falls before the segment ends)"
                    } else {
                        ""
                    }
                )
            }
        }
        Ev::Revealed { unit, intent } => format!(
            "{} had declared: {}",
            s.unit_name(*unit),
            intent_words(s, intent)
        ),
        Ev::TurnBegun { kind, routines, .. } => {
            let what = match kind {
                TurnKind::Surprise => "a whole round's action in a surprise segment",
                TurnKind::Main => "its initiative segment",
                TurnKind::Held => "its held action",
                TurnKind::Extra => "its further attack routines",
            };
            if *routines == 0 {
                // A caster that declared its spell, or a unit that declared Run or Hold.
                format!("({what})")
            } else {
                format!("({what}; {} left)", plural(*routines, "attack routine"))
            }
        }
        Ev::MoveDone { unit, cost: 0 } => {
            format!("{} spends its move on the door", s.unit_name(*unit))
        }
        Ev::MoveDone { unit, cost } => {
            format!("{} moves {}", s.unit_name(*unit), plural(*cost, "square"))
        }
        Ev::Routine { unit } => format!("{} makes an attack routine", s.unit_name(*unit)),
        Ev::TurnDone { unit, held, .. } => {
            if *held {
                format!(
                    "{} holds its action for a later segment",
                    s.unit_name(*unit)
                )
            } else {
                format!("{} is done", s.unit_name(*unit))
            }
        }
        Ev::Hurt { unit } => format!(
            "{} is hurt (if it falls, it falls when the segment ends)",
            s.unit_name(*unit)
        ),
        Ev::CastBegun {
            caster,
            target,
            start,
            last,
            spell,
        } => {
            let what = if spell.is_magic_missile() {
                format!("at {}", s.unit_name(*target))
            } else {
                format!("{} on {}", spell.name(), s.unit_name(*target))
            };
            format!(
                "{} begins casting {what} ({} of casting)",
                s.unit_name(*caster),
                plural(last + 1 - start, "segment")
            )
        }
        Ev::Spoiled { caster } => format!("{}'s spell is spoiled", s.unit_name(*caster)),
        Ev::Enchanted { unit, spell, until } => {
            let who = s.unit_name(*unit);
            let what = match spell {
                Spell::Haste => "is hasted: one more attack routine a round, twice the movement",
                Spell::HoldPerson => "is held: no turns and no reactions, and hit at +4",
                _ => "is shielded: a better AC, and Magic Missile cannot harm it",
            };
            format!(
                "{who} {what}, to the end of {}",
                tick_words(s, Segments::state(s), *until)
            )
        }
        Ev::Resisted { unit, spell } => match spell {
            Spell::MagicMissile => {
                format!("{}'s Shield stops the Magic Missile", s.unit_name(*unit))
            }
            _ => format!("{} resists {}", s.unit_name(*unit), spell.name()),
        },
        Ev::Expired { unit, spell } => format!(
            "{} is no longer {}",
            s.unit_name(*unit),
            match spell {
                Spell::Haste => "hasted",
                Spell::HoldPerson => "held",
                _ => "shielded",
            }
        ),
        Ev::SpellWentOff {
            caster,
            target,
            round,
            segment,
            spell,
        } => format!(
            "{}'s {} goes off {} {} ({})",
            s.unit_name(*caster),
            if spell.is_magic_missile() {
                "spell"
            } else {
                spell.name()
            },
            if spell.is_magic_missile() { "at" } else { "on" },
            s.unit_name(*target),
            if *round == 0 {
                format!("as surprise segment {} ends", segment - 1)
            } else if *segment > SEGMENTS {
                format!("as round {round} ends")
            } else {
                format!("round {round}, start of segment {segment}")
            }
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The clock

pub fn clock(s: &BattleState, r: &State) -> Clock {
    let headline = match r.phase {
        Phase::Start => format!("Round {}", s.round),
        Phase::Surprise => format!(
            "Surprise segment {} of {}{}",
            r.segment,
            r.surprise_segments,
            if r.simultaneous {
                " · simultaneous"
            } else {
                ""
            }
        ),
        Phase::Declare => {
            let active: Vec<UnitId> = s
                .unit_ids()
                .filter(|&u| s.units[u.index()].is_active())
                .collect();
            let done = active.iter().filter(|&&u| r.at(u).declared).count();
            format!(
                "Round {} · declarations ({done} of {} declared)",
                s.round,
                active.len()
            )
        }
        Phase::Round => {
            let sides: Vec<String> = (0..s.sides.len())
                .map(|i| {
                    let side = SideId(i as u8);
                    let name = side_name(s, side);
                    let act = crate::rules::battle::log::agree(&name, "acts", "act");
                    format!("{name} {act} in {}", side_segment(s, r, side))
                })
                .collect();
            format!(
                "Round {} · Segment {} of {SEGMENTS} · {}{}",
                s.round,
                r.segment,
                sides.join(", "),
                if r.simultaneous {
                    " · simultaneous"
                } else {
                    ""
                }
            )
        }
    };
    let current = match r.phase {
        Phase::Declare => next_to_declare(s, r),
        _ => r.current.as_ref().map(|t| t.unit),
    };
    let mut order: Vec<(u32, OrderEntry)> = s
        .unit_ids()
        .filter(|&u| s.units[u.index()].is_active())
        .map(|u| {
            let casting = r.casting.iter().find(|c| c.caster == u);
            let declared = r.at(u).declared;
            let acted = r.at(u).acted;
            let holding = r.at(u).holding;
            let (key, label, done) = if let Some(c) = casting {
                (
                    0,
                    format!("Casting: goes off {}", goes_off_words(s, r, c.last)),
                    true,
                )
            } else {
                match r.phase {
                    Phase::Surprise => {
                        let k = r.at(u).surprise;
                        if k >= r.segment {
                            (
                                k + 1,
                                // Short enough for the turn order's panel at 1024x640 (18
                                // characters); "Surprised for 2 segments" was cut there.
                                format!("Surprised ({k} seg.)"),
                                false,
                            )
                        } else if current != Some(u)
                            && r.queue[..r.turn.min(r.queue.len())].contains(&u)
                        {
                            // Its turn of this segment is over. Not `acted`: that memo is the
                            // round's, kept from the segment before (it is cleared only when
                            // the round's declarations begin).
                            (0, "Done".to_string(), true)
                        } else {
                            (0, "Acts".to_string(), false)
                        }
                    }
                    Phase::Declare | Phase::Start => (
                        0,
                        if declared { "Declared" } else { "To declare" }.to_string(),
                        declared,
                    ),
                    Phase::Round => {
                        if holding {
                            (r.segment, "Holding".to_string(), false)
                        } else {
                            match unit_segment(s, r, u) {
                                Some(seg) => (seg, format!("Segment {seg}"), acted),
                                None => (SEGMENTS + 1, "Hold".to_string(), true),
                            }
                        }
                    }
                }
            };
            (
                key,
                OrderEntry {
                    unit: u,
                    label,
                    current: current == Some(u),
                    done,
                },
            )
        })
        .collect();
    order.sort_by_key(|(k, e)| (*k, e.unit));
    Clock {
        headline,
        order: order.into_iter().map(|(_, e)| e).collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// The action menu

pub fn describe(s: &BattleState, r: &State, cmd: &Command) -> CommandInfo {
    let mut info = view::generic(s, cmd);
    info.provokes = false;
    info.path = None;
    let unit = cmd.unit();
    match cmd {
        Command::Move { to, .. } => {
            let a = allowed(s, r).filter(|a| a.unit == unit);
            let budget = match a.as_ref().map(|a| a.move_budget.clone()) {
                Some(Ok(b)) => b,
                _ => super::turns::walk_budget(s, unit),
            };
            let path = combat::move_path(s, r, unit, *to, budget);
            if let Some(p) = &path {
                info.provokes = p.steps.iter().any(|st| {
                    !combat::fleeing_reactors(s, r, unit, st.from, st.to).is_empty()
                        || !combat::spear_reactors(s, r, unit, st.from, st.to).is_empty()
                });
                let walk = super::turns::walk_budget(s, unit);
                let cost = p.cost();
                info.cost = match mode(r, unit) {
                    Mode::Run => format!("run {cost} of {budget} squares"),
                    Mode::Free if cost > walk => {
                        info.dear = true;
                        format!("run {cost} of {budget} squares (no attack after)")
                    }
                    _ => format!("move {cost} of {walk} squares, then attack"),
                };
            }
            info.path = path;
        }
        Command::Attack { target, ranged, .. } => {
            let kind = combat::kind_of(*ranged);
            let n = combat::strikes(s, unit, kind);
            let left = r.current.as_ref().map_or(0, |t| t.routines);
            info.cost = format!(
                "attack routine ({}{}), {} of {} this round left",
                plural(n as u32, if *ranged { "missile" } else { "strike" }),
                if *ranged { "" } else { " in melee" },
                left,
                attacks(s, unit)
            );
            let _ = target;
        }
        Command::Act {
            action: Action::Cast { spell, .. },
            ..
        } => {
            let t = casting_time(s, unit, *spell);
            info.cost = format!(
                "begins a {}-segment spell: it goes off {} unless damage spoils it",
                t,
                goes_off_words(s, r, r.tick + t - 1)
            );
        }
        Command::Act {
            action: Action::Delay,
            ..
        } => info.cost = "holds the declared action to a later segment".to_string(),
        Command::Act {
            action: Action::OpenDoor { .. } | Action::CloseDoor { .. },
            ..
        } => info.cost = "takes its move this turn (house rule)".to_string(),
        Command::EndTurn { .. } => info.cost = "free".to_string(),
        Command::Declare { intent, .. } => info.cost = declaration_effect(s, unit, intent),
        Command::React {
            reaction: Reaction::Attack { .. },
            ..
        } => {
            let charge = s
                .interrupts
                .last()
                .is_some_and(|i| matches!(i.trigger, Trigger::Provoked { .. }));
            info.cost = if charge {
                "set spear: strikes first for double damage; its attack routine this round"
            } else {
                "fleeing attack: one free strike"
            }
            .to_string();
        }
        Command::React { .. } | Command::Act { .. } | Command::Pick { .. } => {}
    }
    info
}

/// The spells being cast, as (caster, target, expected damage when it goes off): a spell
/// cannot miss, but a blow on the caster before it goes off spoils it.
pub fn pending_damage(s: &BattleState, r: &State) -> Vec<(UnitId, UnitId, f64)> {
    r.casting
        .iter()
        .filter(|c| c.spell == Spell::MagicMissile && !spells::shielded(r, c.target))
        .map(|c| {
            let dice = combat::damage_dice(s, c.caster, combat::Kind::Spell);
            let mean = dice.distribution().expect(|d| d.max(1) as f64);
            (c.caster, c.target, mean)
        })
        .collect()
}

/// The odds of one strike (`hit`) and the expected damage of a whole attack routine.
pub fn odds(
    s: &BattleState,
    _: &State,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<Odds> {
    let kind = attack_kind(s, attacker, ranged)?;
    combat::target_ok(s, attacker, target, kind).ok()?;
    Some(routine_odds(s, attacker, target, kind, ranged))
}

/// The kind of `attacker`'s melee or (with `ranged`) missile attack; `None` for a missile
/// attack without a missile weapon.
fn attack_kind(s: &BattleState, attacker: UnitId, ranged: bool) -> Option<Kind> {
    let kind = combat::kind_of(ranged);
    (kind != Kind::Missile || super::turns::has_missile(s, attacker)).then_some(kind)
}

/// Expected damage of `attacker`'s attack routine on `target` once it stands where it can
/// make it (its reach, or in range for `ranged`): what a threat costs before it closes.
/// `None` if it has no such attack.
pub fn threat_damage(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    ranged: bool,
) -> Option<f64> {
    let kind = attack_kind(s, attacker, ranged)?;
    let (dice, needed, _) = combat::to_hit(s, attacker, target, kind);
    Some(expectation(s, attacker, &dice, needed, kind).1)
}

/// Whether `enemy` surely takes a turn before `unit` takes its next one: `unit` has had its
/// turn this round and `enemy`'s is still to come (a later segment, later in this one, or
/// held), or, in a surprise segment, `enemy` comes after it in the segment's unit order. False
/// when the next round's initiative decides, and for a caster busy with its spell.
pub fn acts_before(s: &BattleState, r: &State, enemy: UnitId, unit: UnitId) -> bool {
    if super::turns::is_casting(r, enemy) {
        return false;
    }
    match r.phase {
        Phase::Surprise => {
            // Every unit no longer surprised takes one turn per surprise segment, unit order.
            let at = |u: UnitId| r.queue.iter().position(|&q| q == u);
            matches!((at(unit), at(enemy)), (Some(me), Some(them)) if them > me)
                && !super::turns::surprised_now(r, enemy)
        }
        Phase::Round => {
            let (me, them) = (r.at(unit), r.at(enemy));
            me.acted
                && !me.holding
                && (them.holding
                    || !them.acted && unit_segment(s, r, enemy).is_some_and(|n| n >= r.segment))
        }
        Phase::Start | Phase::Declare => false,
    }
}

/// [`odds`] without asking whether the attack can be made from where the two stand.
fn routine_odds(
    s: &BattleState,
    attacker: UnitId,
    target: UnitId,
    kind: Kind,
    ranged: bool,
) -> Odds {
    let (dice, needed, notes) = combat::to_hit(s, attacker, target, kind);
    let (hit, expected_damage, n) = expectation(s, attacker, &dice, needed, kind);
    Odds {
        hit,
        expected_damage,
        formula: format!(
            "{dice} vs {needed} ({notes}){}",
            if n > 1 {
                format!(", {n} {}", if ranged { "missiles" } else { "strikes" })
            } else {
                String::new()
            }
        ),
    }
}

/// The chance of one strike hitting, the expected damage of the whole routine and its number
/// of strikes (or missiles).
fn expectation(
    s: &BattleState,
    attacker: UnitId,
    dice: &DiceExpr,
    needed: i64,
    kind: Kind,
) -> (f64, f64, i64) {
    let hit = dice.distribution().at_least(needed);
    let per_hit = combat::damage_dice(s, attacker, kind)
        .distribution()
        .expect(|d| d.max(1) as f64);
    let n = combat::strikes(s, attacker, kind);
    (hit, n as f64 * hit * per_hit, n)
}
