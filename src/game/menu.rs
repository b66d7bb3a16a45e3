//! The action menu as data, without Bevy: the legal commands of the pending decision grouped
//! the way a player chooses them, with labels, costs, "provokes" marks and hotkeys from the
//! ruleset's own [`rulesets::describe`], and where on the board each command points.
//!
//! Nothing here decides a rule: every entry is a command from
//! [`BattleState::legal_commands`]. Commands are grouped generically (by command kind and
//! [`Action::name`](crate::rules::battle::Action::name)), and where a command points on the
//! board (the unit it targets, the cell it goes to) is its [`Command::anchor`].

use crate::rules::battle::{
    Action, BattleState, Command, Decision, Reaction, ReadyTrigger, SideId, Trigger,
};
use crate::rules::grid::Cell;
use crate::rules::rulesets::{self, CommandInfo};

/// The group a command is listed under: "Move", "Attack", "Shoot", the action's name, "End
/// turn", "React", "Pick", "Declare".
pub fn group_of(cmd: &Command) -> String {
    match cmd {
        Command::Move { .. } => "Move".into(),
        Command::Attack { ranged: false, .. } => "Attack".into(),
        Command::Attack { ranged: true, .. } => "Shoot".into(),
        Command::Act { action, .. } => action.name().into(),
        Command::EndTurn { .. } => "End turn".into(),
        Command::Pick { .. } => "Pick".into(),
        Command::Declare { .. } => "Declare".into(),
        Command::React { .. } => "React".into(),
    }
}

/// Whether a command moves the acting unit (it has a path to show).
pub fn is_moving(s: &BattleState, cmd: &Command) -> bool {
    matches!(cmd, Command::Move { .. })
        || (matches!(cmd, Command::Act { .. })
            && cmd.anchor().cell.is_some()
            && rulesets::describe(s, cmd).path.is_some())
}

/// A key a menu entry answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hotkey {
    /// `1`..`9`, then `0` (as 10).
    Digit(u8),
    /// A letter key.
    Letter(char),
}

impl Hotkey {
    /// The `n`th hotkey (0-based) of a list: 1-9, 0, then letters that no other battle key
    /// uses. `None` past the end.
    pub fn nth(n: usize) -> Option<Hotkey> {
        const LETTERS: [char; 11] = ['R', 'F', 'G', 'C', 'V', 'B', 'N', 'M', 'J', 'K', 'L'];
        match n {
            0..=8 => Some(Hotkey::Digit(n as u8 + 1)),
            9 => Some(Hotkey::Digit(0)),
            _ => LETTERS.get(n - 10).map(|&c| Hotkey::Letter(c)),
        }
    }

    /// How the menu prints it.
    pub fn label(self) -> String {
        match self {
            Hotkey::Digit(d) => d.to_string(),
            Hotkey::Letter(c) => c.to_string(),
        }
    }
}

/// One line of the action menu.
#[derive(Clone, Debug, PartialEq)]
pub struct MenuEntry {
    /// The group (see [`group_of`]).
    pub group: String,
    /// "Attack Shade", "Move (choose a cell)", "Shoot (choose a target)", "End turn".
    pub label: String,
    /// The cost in the ruleset's terms; for a group of commands with different costs, the
    /// range of them.
    pub cost: String,
    /// Doing it provokes (for a group: some of its commands do).
    pub provokes: bool,
    /// Its key; `End turn` is always `E`.
    pub hotkey: Option<Hotkey>,
    /// The commands behind the entry: one means "do it"; more mean "choose one on the board
    /// or from the sub-list".
    pub commands: Vec<Command>,
}

impl MenuEntry {
    /// Whether choosing the entry asks for a target or cell rather than acting at once.
    pub fn needs_target(&self) -> bool {
        self.commands.len() > 1
    }
}

/// A command with how the ruleset describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Described {
    pub command: Command,
    pub info: CommandInfo,
}

/// Every legal command of the pending decision with its description, in the engine's order.
pub fn described(s: &BattleState) -> Vec<Described> {
    s.legal_commands()
        .into_iter()
        .map(|command| Described {
            info: rulesets::describe(s, &command),
            command,
        })
        .collect()
}

/// A unit's number in a Pick decision: its place among its side's units (the same all round,
/// whoever has acted). `None` for any other command, or a side too large for the keys.
fn pick_number(s: &BattleState, cmd: &Command) -> Option<usize> {
    let Command::Pick { unit } = cmd else {
        return None;
    };
    let side = s.unit(*unit)?.side;
    s.unit_ids()
        .filter(|u| s.units[u.index()].side == side)
        .position(|u| u == *unit)
        .filter(|&i| i < 10)
}

/// The action menu of an `Act` decision: commands grouped (moves into one "Move" entry chosen
/// on the board, attacks on several targets into one entry), `End turn` last with key `E`.
/// For other decisions (reactions, picks, declarations) every legal command is its own entry.
pub fn menu(s: &BattleState, legal: &[Described]) -> Vec<MenuEntry> {
    let grouped = matches!(s.pending(), Decision::Act { .. });
    let mut groups: Vec<(String, Vec<&Described>)> = Vec::new();
    for d in legal {
        let key = if grouped {
            group_of(&d.command)
        } else {
            // One entry per command.
            format!("{}#{}", group_of(&d.command), groups.len())
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(d),
            None => groups.push((key, vec![d])),
        }
    }
    // Attacks first, then Move, then the ruleset's other actions in the engine's order, End
    // turn last (stable: the engine's order within each rank). Key 1 is the common choice,
    // not a rarely wanted one such as Go Prone.
    groups.sort_by_key(|(_, items)| rank(&items[0].command));
    let mut out = Vec::new();
    let mut n = 0;
    for (key, items) in groups {
        let group = key.split('#').next().unwrap_or_default().to_string();
        let single = items.len() == 1;
        let label = if single {
            items[0].info.label.clone()
        } else if items.iter().all(|d| d.command.anchor().cell.is_some()) {
            format!("{group} (choose a cell)")
        } else {
            format!("{group} (choose a target)")
        };
        let costs: Vec<&str> = items.iter().map(|d| d.info.cost.as_str()).collect();
        let cost = if costs.iter().all(|c| *c == costs[0]) {
            costs[0].to_string()
        } else {
            let mut distinct: Vec<&str> = Vec::new();
            for c in costs {
                if !distinct.contains(&c) {
                    distinct.push(c);
                }
            }
            // Two short costs read as a choice; long ones (a spell's whole timing) filled
            // the panel, and each target's own entry tells its cost.
            if distinct.len() <= 2 && distinct.iter().all(|c| c.len() <= MAX_JOINED_COST) {
                distinct.join(" or ")
            } else {
                "cost shown for each choice".to_string()
            }
        };
        let hotkey = if group == "End turn" {
            Some(Hotkey::Letter('E'))
        } else if let Some(i) = pick_number(s, &items[0].command).filter(|_| single) {
            // A unit to pick keeps its number for the round, however many have acted.
            Hotkey::nth(i)
        } else {
            let k = Hotkey::nth(n);
            n += 1;
            k
        };
        out.push(MenuEntry {
            group,
            label,
            cost,
            provokes: items.iter().any(|d| d.info.provokes),
            hotkey,
            commands: items.iter().map(|d| d.command.clone()).collect(),
        });
    }
    out
}

/// The longest cost a group's entry joins with another ("1 action or 2 actions"); a group
/// with a longer one says "cost shown for each choice".
const MAX_JOINED_COST: usize = 40;

/// Where a command's entry goes in the action menu: attacks (melee, ranged, spells) 0, plain
/// moves 1, other actions 2, End turn 3.
fn rank(cmd: &Command) -> u8 {
    match cmd {
        Command::EndTurn { .. } => 3,
        Command::Move { .. } => 1,
        c if c.attack_target().is_some() => 0,
        _ => 2,
    }
}

/// The entries of a group's sub-list (after choosing "Shoot (choose a target)"): one per
/// command, keys 1-9, 0, then letters. Entries the ruleset labels alike say what tells them
/// apart ([`which`]): `phases`' Ready listed "Ready" once per trigger, six lines the same.
pub fn sub_menu(s: &BattleState, legal: &[Described], group: &str) -> Vec<MenuEntry> {
    let items: Vec<&Described> = legal
        .iter()
        .filter(|d| group_of(&d.command) == group)
        .collect();
    items
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let alike = items
                .iter()
                .filter(|o| o.info.label == d.info.label)
                .count()
                > 1;
            let label = match which(s, &d.command, &d.info.label).filter(|_| alike) {
                Some(w) => format!("{}: {w}", d.info.label),
                None => d.info.label.clone(),
            };
            MenuEntry {
                group: group.to_string(),
                label,
                cost: d.info.cost.clone(),
                provokes: d.info.provokes,
                hotkey: Hotkey::nth(i),
                commands: vec![d.command.clone()],
            }
        })
        .collect()
}

/// Whether some entry of a sub-list is chosen on the board too: its command points at a unit
/// or a cell. `phases`' Ready points at neither (it waits for a trigger), so its list is the
/// only place to choose, and the hints say so rather than "click a highlighted cell".
pub fn aimed_on_board(entries: &[MenuEntry]) -> bool {
    entries.iter().flat_map(|e| &e.commands).any(|c| {
        let a = c.anchor();
        a.unit.is_some() || a.cell.is_some()
    })
}

/// What a command is aimed at, in words, less what its label `said` already: the item it
/// handles, the unit it targets, the cell it goes to ("to (3, 4)"), the trigger a readied
/// action waits for ("when Gorrum acts"). `None` when that leaves nothing.
pub fn which(s: &BattleState, cmd: &Command, said: &str) -> Option<String> {
    let mut parts = Vec::new();
    if let Command::Act {
        action: Action::Carry { item, .. } | Action::DropItem { item } | Action::PickUp { item, .. },
        ..
    } = cmd
    {
        parts.push(item.clone());
    }
    let anchor = cmd.anchor();
    if let Some(u) = anchor.unit {
        parts.push(s.unit_name(u).into_owned());
    }
    if let Some(c) = anchor.cell {
        parts.push(format!("to {c}"));
    }
    if let Command::Act {
        action:
            Action::Ready { trigger }
            | Action::ReadyMove { trigger, .. }
            | Action::ReadyProne { trigger },
        ..
    } = cmd
    {
        parts.push(match trigger {
            ReadyTrigger::EnemyInReach => "when an enemy comes within reach".to_string(),
            ReadyTrigger::UnitActs { unit } => format!("when {} acts", s.unit_name(*unit)),
        });
    }
    parts.retain(|p| !said.contains(p.as_str()));
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The command a click (or Enter) on `cell` sends, if any, when no group is chosen: a move
/// there, else an attack on the unit there (melee before ranged), else the only other command
/// pointing there. With `group`, only that group's commands count.
pub fn command_at(
    s: &BattleState,
    legal: &[Described],
    cell: Cell,
    group: Option<&str>,
) -> Vec<Command> {
    let here: Vec<&Described> = legal
        .iter()
        .filter(|d| group.is_none_or(|g| group_of(&d.command) == g))
        .filter(|d| d.command.anchor().board_cell(s) == Some(cell))
        .collect();
    if group.is_some() {
        return here.iter().map(|d| d.command.clone()).collect();
    }
    // Without a chosen group, prefer the plain move, then melee, then ranged.
    for preferred in ["Move", "Attack", "Shoot"] {
        if let Some(d) = here.iter().find(|d| group_of(&d.command) == preferred) {
            return vec![d.command.clone()];
        }
    }
    // Anything else aimed at a unit (Analyse, Grab, a Presence Attack...) is chosen from the
    // menu, never by a plain click on it: a click on a foe one cannot attack says why instead
    // of spending an action on something else.
    here.iter()
        .filter(|d| d.command.anchor().unit.is_none())
        .map(|d| d.command.clone())
        .collect()
}

/// The side whose player answers the pending decision (`None` once the battle is over).
pub fn deciding_side(s: &BattleState) -> Option<SideId> {
    match s.pending() {
        Decision::Act { unit } | Decision::React { unit, .. } => s.unit(unit).map(|u| u.side),
        Decision::Pick { side, .. } | Decision::Declare { side, .. } => Some(side),
        Decision::Over { .. } => None,
    }
}

/// Makes text safe for the game's font, which has only printable ASCII: common typographic
/// characters become their ASCII look-alikes, anything else a `?`.
pub fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ' '..='~' | '\n' => out.push(c),
            '\u{b7}' | '\u{2022}' => out.push('-'),
            '\u{d7}' => out.push('x'),
            '\u{2013}' | '\u{2014}' | '\u{2212}' => out.push('-'),
            '\u{2018}' | '\u{2019}' => out.push('\''),
            '\u{201c}' | '\u{201d}' => out.push('"'),
            '\u{2026}' => out.push_str("..."),
            '\u{bd}' => out.push_str("1/2"),
            '\u{2192}' => out.push_str("->"),
            '\u{2190}' => out.push_str("<-"),
            '\u{2264}' => out.push_str("<="),
            '\u{2265}' => out.push_str(">="),
            '\t' => out.push(' '),
            _ => out.push('?'),
        }
    }
    out
}

/// The entry Enter takes in a reaction prompt: the attack on a foe that provokes one (an
/// attack of opportunity; in `segments` a fleeing attack, or a set spear's double-damage strike,
/// which is the spearman's attack for the round): what a player nearly always wants, and what
/// the AI's default takes. Else the first entry (letting it pass): a Snap Attack (it gives up
/// the Main action), a dodge (stamina or AP), an abort, a readied attack are only taken when
/// chosen.
pub fn default_answer(decision: &Decision, entries: &[MenuEntry]) -> usize {
    let Decision::React {
        trigger: Trigger::Opportunity { .. } | Trigger::Provoked { .. },
        ..
    } = decision
    else {
        return 0;
    };
    entries
        .iter()
        .position(|e| {
            matches!(
                e.commands.as_slice(),
                [Command::React {
                    reaction: Reaction::Attack { .. },
                    ..
                }]
            )
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::battle::UnitId;

    fn ruins() -> BattleState {
        let level = crate::rules::battle::tests::load("action_points_ruins.ron");
        BattleState::start(&level, 7).0
    }

    /// A sub-list tells apart the entries the ruleset labels alike: `phases`' Ready read
    /// "Ready" once per trigger, identical lines; each now says what it waits for. Entries
    /// whose labels already differ (Step to a cell) keep the ruleset's words.
    #[test]
    fn a_sub_list_tells_apart_entries_labelled_alike() {
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let (s, _) = BattleState::start(&level, 3);
        let legal = described(&s);
        let ready = sub_menu(&s, &legal, "Ready");
        assert!(ready.len() > 2, "{ready:?}");
        let labels: Vec<&str> = ready.iter().map(|e| e.label.as_str()).collect();
        for (i, l) in labels.iter().enumerate() {
            assert!(!labels[..i].contains(l), "told apart: {labels:?}");
        }
        let mut named = 0;
        for e in &ready {
            match &e.commands[..] {
                [
                    Command::Act {
                        action: Action::Ready { trigger },
                        ..
                    },
                ] => {
                    let want = match trigger {
                        ReadyTrigger::UnitActs { unit } => {
                            named += 1;
                            format!("Ready: when {} acts", s.unit_name(*unit))
                        }
                        ReadyTrigger::EnemyInReach => {
                            "Ready: when an enemy comes within reach".to_string()
                        }
                    };
                    assert_eq!(e.label, want);
                }
                other => panic!("a Ready entry holds one Ready: {other:?}"),
            }
        }
        assert!(named > 1, "{labels:?}");
        // Nothing on the board to click for a Ready; a Step is chosen there too.
        assert!(!aimed_on_board(&ready));
        let steps = sub_menu(&s, &legal, "Step");
        assert!(!steps.is_empty());
        assert!(aimed_on_board(&steps));
        for e in &steps {
            let own = legal
                .iter()
                .find(|d| d.command == e.commands[0])
                .expect("listed");
            assert_eq!(e.label, own.info.label);
        }
    }

    /// A group's entry names two short costs ("1 AP or 2 AP") but not two long ones (the
    /// crypt's Cast joined two spells' whole timings and filled the panel): "cost shown for each choice".
    #[test]
    fn a_group_with_long_costs_says_they_vary() {
        let s = ruins();
        let cost_of = |short: bool| {
            let mut legal = described(&s);
            let mut k = 0;
            for d in legal.iter_mut().filter(|d| group_of(&d.command) == "Move") {
                k += 1;
                d.info.cost = match (short, k % 2) {
                    (true, 0) => "1 AP".into(),
                    (true, _) => "2 AP".into(),
                    (false, 0) => {
                        "begins a 3-segment spell: it goes off at the start of segment 2".into()
                    }
                    (false, _) => {
                        "begins a 1-segment spell: it goes off at the start of segment 9".into()
                    }
                };
            }
            assert!(k > 2, "moves to try");
            menu(&s, &legal)
                .into_iter()
                .find(|e| e.group == "Move")
                .map(|e| e.cost)
                .expect("a Move entry")
        };
        assert_eq!(cost_of(true), "2 AP or 1 AP");
        assert_eq!(cost_of(false), "cost shown for each choice");
    }

    #[test]
    fn a_unit_keeps_its_pick_number_for_the_round() {
        let level = crate::rules::battle::tests::load("sides_village_brawl.ron");
        let (mut s, _) = BattleState::start(&level, 2001);
        let round = s.round;
        let mut first: Vec<(UnitId, Hotkey)> = Vec::new();
        let mut checked = 0;
        while s.round == round && s.outcome.is_none() {
            let legal = described(&s);
            let cmd = match s.pending() {
                Decision::Pick {
                    side: SideId(0), ..
                } => {
                    let keys: Vec<(UnitId, Hotkey)> = menu(&s, &legal)
                        .iter()
                        .filter_map(|e| match e.commands.as_slice() {
                            [Command::Pick { unit }] => Some((*unit, e.hotkey?)),
                            _ => None,
                        })
                        .collect();
                    if first.is_empty() {
                        first = keys.clone();
                    } else {
                        checked += 1;
                    }
                    for k in &keys {
                        assert!(first.contains(k), "{k:?} renumbered; first {first:?}");
                    }
                    legal[0].command.clone()
                }
                _ => legal
                    .iter()
                    .find(|d| matches!(d.command, Command::EndTurn { .. }))
                    .unwrap_or(&legal[0])
                    .command
                    .clone(),
            };
            s.execute(&cmd).expect("legal");
        }
        assert!(checked >= 2, "{checked} later picks checked");
    }

    #[test]
    fn the_menu_groups_moves_and_puts_end_turn_last_on_e() {
        let s = ruins();
        let legal = described(&s);
        let entries = menu(&s, &legal);
        let moves = legal
            .iter()
            .filter(|d| matches!(d.command, Command::Move { .. }))
            .count();
        assert!(moves > 1);
        let mv = entries
            .iter()
            .find(|e| e.group == "Move")
            .expect("a move entry");
        assert_eq!(mv.commands.len(), moves);
        assert!(mv.needs_target());
        let last = entries.last().expect("entries");
        assert_eq!(last.group, "End turn");
        // Attacks, then Move, then the other actions: key 1 is never a rare action ahead of
        // moving or attacking.
        let ranks: Vec<u8> = entries.iter().map(|e| rank(&e.commands[0])).collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        assert_eq!(entries[0].group, "Move", "{:?}", entries[0].label);
        assert_eq!(last.hotkey, Some(Hotkey::Letter('E')));
        // Every legal command is behind exactly one entry.
        let total: usize = entries.iter().map(|e| e.commands.len()).sum();
        assert_eq!(total, legal.len());
        // Hotkeys are distinct.
        let mut keys: Vec<_> = entries.iter().filter_map(|e| e.hotkey).collect();
        keys.sort_by_key(|k| k.label());
        keys.dedup();
        assert_eq!(keys.len(), entries.len());
    }

    #[test]
    fn a_click_on_a_reachable_cell_moves_and_on_an_enemy_attacks() {
        let s = ruins();
        let legal = described(&s);
        let to = legal
            .iter()
            .find_map(|d| match d.command {
                Command::Move { to, .. } => Some(to),
                _ => None,
            })
            .expect("a move");
        let cmds = command_at(&s, &legal, to, None);
        assert!(matches!(cmds.as_slice(), [Command::Move { to: t, .. }] if *t == to));
        // An attack, if the acting unit has one, is found on its target's cell.
        if let Some(d) = legal
            .iter()
            .find(|d| matches!(d.command, Command::Attack { .. }))
        {
            let cell = d.command.anchor().board_cell(&s).expect("target cell");
            let cmds = command_at(&s, &legal, cell, None);
            assert_eq!(cmds.len(), 1);
            assert!(matches!(cmds[0], Command::Attack { .. }));
        }
        // A wall is nothing.
        assert!(command_at(&s, &legal, Cell::new(3, 2), None).is_empty());
    }

    /// A plain click on a foe attacks it, or (with no attack on it) takes no other action aimed
    /// at it: the phases hero's Analyse or Grab waits for the menu.
    #[test]
    fn a_click_on_a_foe_never_takes_an_action_other_than_an_attack() {
        let level = crate::rules::battle::tests::load("phases_hex_skirmish.ron");
        let s = BattleState::start(&level, 7).0;
        let legal: Vec<Described> = described(&s)
            .into_iter()
            .filter(|d| !matches!(d.command, Command::Attack { .. }))
            .collect();
        let aimed: Vec<&Described> = legal
            .iter()
            .filter(|d| d.command.anchor().unit.is_some())
            .collect();
        assert!(
            !aimed.is_empty(),
            "the acting unit has actions aimed at units"
        );
        for d in aimed {
            let cell = d
                .command
                .anchor()
                .board_cell(&s)
                .expect("its target's cell");
            let picked = command_at(&s, &legal, cell, None);
            assert!(
                picked.iter().all(|c| c.anchor().unit.is_none()),
                "{picked:?}"
            );
            // Chosen from the menu (its group), it is still there.
            let group = group_of(&d.command);
            assert!(command_at(&s, &legal, cell, Some(&group)).contains(&d.command));
        }
    }

    #[test]
    fn enter_takes_a_provoked_attack_else_lets_it_pass() {
        let u = UnitId(1);
        let foe = UnitId(4);
        let entry = |reaction: Reaction| MenuEntry {
            group: "React".into(),
            label: String::new(),
            cost: String::new(),
            provokes: false,
            hotkey: None,
            commands: vec![Command::React { unit: u, reaction }],
        };
        let react = |trigger: Trigger| Decision::React { unit: u, trigger };
        let provoked = react(Trigger::Provoked {
            actor: foe,
            action: "charges".into(),
        });
        let pass = entry(Reaction::Decline);
        let strike = entry(Reaction::Attack { target: foe });
        let dodge = entry(Reaction::Dodge);
        assert_eq!(
            default_answer(&provoked, &[pass.clone(), strike.clone()]),
            1
        );
        assert_eq!(
            default_answer(&provoked, &[pass.clone(), dodge.clone(), strike.clone()]),
            2
        );
        assert_eq!(default_answer(&provoked, &[pass.clone(), dodge.clone()]), 0);
        assert_eq!(default_answer(&provoked, &[]), 0);
        // A Snap Attack when an ally is attacked, or a readied attack: not by Enter alone.
        let ready = react(Trigger::Ready { actor: foe });
        assert_eq!(default_answer(&ready, &[pass.clone(), strike.clone()]), 0);
        let other = Decision::Act { unit: u };
        assert_eq!(default_answer(&other, &[pass, strike]), 0);
    }

    #[test]
    fn text_is_made_ascii() {
        assert_eq!(ascii("Round 1 \u{b7} 3\u{d7}4"), "Round 1 - 3x4");
        assert_eq!(ascii("caf\u{e9}"), "caf?");
    }
}
