//! The battle screen's keys, each declared once: the keys that press it, how buttons and the
//! key help name it, what the pause menu's key help says it does, and the button it presses.
//! The input systems read their keys from here and the HUD its labels, so a key cannot be
//! shown as one thing and do another. The action menu's own keys (1-9, 0, letters; `E` for
//! End turn) are [`super::menu::Hotkey`]s, pressed through [`key_of`].

use bevy::prelude::KeyCode as K;
use bevy::prelude::*;

use super::menu::Hotkey;
use super::ui::UiAction;

/// The digit keys 1 to 9, in order: the menu screens' "n-th entry" keys (Load, the editor's
/// palette).
pub const DIGITS_1_TO_9: [KeyCode; 9] = [
    K::Digit1,
    K::Digit2,
    K::Digit3,
    K::Digit4,
    K::Digit5,
    K::Digit6,
    K::Digit7,
    K::Digit8,
    K::Digit9,
];

/// A key of the battle screen.
#[derive(Clone, Debug, PartialEq)]
pub struct BattleKey {
    /// The keys that press it, in groups: one group per way it goes (left, right, up, down;
    /// in, out; back, forward), a single group for a key with one effect. Any key of a group
    /// will do.
    pub codes: &'static [&'static [KeyCode]],
    /// How buttons and the key help name it: `F2`, `Esc`, `arrows/WASD`.
    pub name: &'static str,
    /// What the pause menu's key help says it does; `None`: not listed there (its button or
    /// the hints show it).
    pub help: Option<&'static str>,
    /// The button it presses anywhere on the battle screen, paused or not.
    pub button: Option<UiAction>,
}

impl BattleKey {
    /// Whether one of its keys went down this frame.
    pub fn just_pressed(&self, keys: &ButtonInput<KeyCode>) -> bool {
        self.codes
            .iter()
            .any(|g| keys.any_just_pressed(g.iter().copied()))
    }

    /// Whether a key of its `group` went down this frame.
    pub fn group_just_pressed(&self, keys: &ButtonInput<KeyCode>, group: usize) -> bool {
        self.codes
            .get(group)
            .is_some_and(|g| keys.any_just_pressed(g.iter().copied()))
    }

    /// Whether a key of its `group` is held.
    pub fn group_pressed(&self, keys: &ButtonInput<KeyCode>, group: usize) -> bool {
        self.codes
            .get(group)
            .is_some_and(|g| keys.any_pressed(g.iter().copied()))
    }

    /// Whether one of its keys is held (a modifier).
    pub fn pressed(&self, keys: &ButtonInput<KeyCode>) -> bool {
        (0..self.codes.len()).any(|g| self.group_pressed(keys, g))
    }
}

const fn key(
    codes: &'static [&'static [KeyCode]],
    name: &'static str,
    help: Option<&'static str>,
    button: Option<UiAction>,
) -> BattleKey {
    BattleKey {
        codes,
        name,
        help,
        button,
    }
}

/// The cell cursor: left, right, up, down (with [`PAN`] held, the camera).
pub const CURSOR: BattleKey = key(
    &[
        &[K::ArrowLeft, K::KeyA],
        &[K::ArrowRight, K::KeyD],
        &[K::ArrowUp, K::KeyW],
        &[K::ArrowDown, K::KeyS],
    ],
    "arrows/WASD",
    Some("cursor"),
    None,
);
/// Confirm at the cursor; in a reaction prompt, the default answer.
pub const CONFIRM: BattleKey = key(
    &[&[K::Enter, K::NumpadEnter]],
    "Enter",
    Some("confirm"),
    None,
);
/// Cancel the chosen action, else open the pause menu; in the pause menu, resume.
pub const CANCEL: BattleKey = key(&[&[K::Escape]], "Esc", Some("cancel"), None);
/// The cursor to the next unit (with [`PAN`]'s Shift, the previous one).
pub const NEXT_UNIT: BattleKey = key(&[&[K::Tab]], "Tab", Some("next unit"), None);
/// End the turn: the action menu's `E` ([`key_of`] presses it).
pub const END_TURN: BattleKey = key(&[&[K::KeyE]], "E", Some("end turn"), None);
/// Undo the last move (Ctrl+Z does too).
pub const UNDO: BattleKey = key(&[&[K::KeyU]], "U", Some("undo"), None);
/// The action menu's entries 1-9, then 0 (as 10); [`key_of`] presses them.
pub const ACTIONS: BattleKey = key(
    &[
        &[K::Digit1],
        &[K::Digit2],
        &[K::Digit3],
        &[K::Digit4],
        &[K::Digit5],
        &[K::Digit6],
        &[K::Digit7],
        &[K::Digit8],
        &[K::Digit9],
        &[K::Digit0],
    ],
    "1-9",
    Some("actions"),
    None,
);
/// Held with the cursor keys: pan the camera.
pub const PAN: BattleKey = key(
    &[&[K::ShiftLeft, K::ShiftRight]],
    "Shift+arrows",
    Some("pan"),
    None,
);
/// Zoom in, out (the mouse wheel too).
pub const ZOOM: BattleKey = key(
    &[&[K::Equal, K::NumpadAdd], &[K::Minus, K::NumpadSubtract]],
    "wheel or +/-",
    Some("zoom"),
    None,
);
/// Fit the board to the window.
pub const FIT: BattleKey = key(&[&[K::Home]], "Home", Some("fit"), None);
/// Show or hide the cells enemies threaten.
pub const THREAT: BattleKey = key(
    &[&[K::KeyT]],
    "T",
    Some("threat"),
    Some(UiAction::ToggleThreat),
);
/// Scroll the combat log back, forward.
pub const LOG: BattleKey = key(
    &[&[K::PageUp], &[K::PageDown]],
    "PgUp/PgDn",
    Some("log"),
    None,
);
/// The animation speed.
pub const SPEED: BattleKey = key(&[&[K::F2]], "F2", Some("speed"), Some(UiAction::Speed));
/// Skip animations on or off.
pub const SKIP_ANIMATIONS: BattleKey = key(
    &[&[K::F3]],
    "F3",
    Some("skip animations"),
    Some(UiAction::SkipAnimations),
);
/// The AI's pace (time between its moves).
pub const AI_PACE: BattleKey = key(&[&[K::F4]], "F4", Some("AI pace"), Some(UiAction::Pace));
/// Open or close the rules reference.
pub const RULES: BattleKey = key(&[&[K::F1]], "F1", Some("rules"), Some(UiAction::RulesHelp));
/// Quick save.
pub const QUICK_SAVE: BattleKey = key(&[&[K::F5]], "F5", None, Some(UiAction::QuickSave));
/// Quick load.
pub const QUICK_LOAD: BattleKey = key(&[&[K::F9]], "F9", None, Some(UiAction::QuickLoad));
/// In the pause menu: save and quit to the title.
pub const QUIT: BattleKey = key(&[&[K::KeyQ]], "Q", None, None);
/// Show the running animations at once.
pub const SHOW_NOW: BattleKey = key(&[&[K::Space]], "Space", None, None);

/// Every battle key, in the order of the pause menu's key help.
pub const HOTKEYS: &[BattleKey] = &[
    CURSOR,
    CONFIRM,
    CANCEL,
    NEXT_UNIT,
    END_TURN,
    UNDO,
    ACTIONS,
    PAN,
    ZOOM,
    FIT,
    THREAT,
    LOG,
    SPEED,
    SKIP_ANIMATIONS,
    AI_PACE,
    RULES,
    QUICK_SAVE,
    QUICK_LOAD,
    QUIT,
    SHOW_NOW,
];

/// The key help's line break comes before this key.
const HELP_BREAK: &str = PAN.name;

/// The pause menu's key help: every key with a help text, "name help", in [`HOTKEYS`] order.
pub fn help() -> String {
    let mut lines = vec![Vec::new()];
    for k in HOTKEYS {
        let Some(help) = k.help else {
            continue;
        };
        if k.name == HELP_BREAK {
            lines.push(Vec::new());
        }
        if let Some(line) = lines.last_mut() {
            line.push(format!("{} {help}", k.name));
        }
    }
    let lines: Vec<String> = lines.iter().map(|l| l.join(" - ")).collect();
    format!("Keys: {}", lines.join("\n"))
}

/// The key of an action menu entry.
pub fn key_of(h: Hotkey) -> Option<KeyCode> {
    let code = |k: &BattleKey, group: usize| k.codes.get(group).and_then(|g| g.first().copied());
    match h {
        Hotkey::Digit(0) => code(&ACTIONS, 9),
        Hotkey::Digit(d) => code(&ACTIONS, d as usize - 1),
        Hotkey::Letter('E') => code(&END_TURN, 0),
        Hotkey::Letter(c) => Some(match c {
            'R' => K::KeyR,
            'F' => K::KeyF,
            'G' => K::KeyG,
            'C' => K::KeyC,
            'V' => K::KeyV,
            'B' => K::KeyB,
            'N' => K::KeyN,
            'M' => K::KeyM,
            'J' => K::KeyJ,
            'K' => K::KeyK,
            'L' => K::KeyL,
            _ => return None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_help_is_the_one_the_pause_menu_always_showed() {
        assert_eq!(
            help(),
            "Keys: arrows/WASD cursor - Enter confirm - Esc cancel - Tab next unit - E end turn - U undo - 1-9 actions\nShift+arrows pan - wheel or +/- zoom - Home fit - T threat - PgUp/PgDn log - F2 speed - F3 skip animations - F4 AI pace - F1 rules"
        );
    }

    #[test]
    fn menu_keys_are_their_labels_and_clash_with_no_other_battle_key() {
        let others: Vec<KeyCode> = HOTKEYS
            .iter()
            .filter(|k| **k != ACTIONS && **k != END_TURN)
            .flat_map(|k| k.codes.iter().flat_map(|g| g.iter().copied()))
            .collect();
        for n in 0..30 {
            let Some(h) = Hotkey::nth(n) else {
                break;
            };
            let code = key_of(h).expect("every menu hotkey has a key");
            assert!(!others.contains(&code), "{h:?} is also another key");
            let label = h.label();
            assert!(format!("{code:?}").ends_with(&label), "{h:?} is {code:?}");
        }
        assert_eq!(Hotkey::Letter('E').label(), END_TURN.name);
        assert_eq!(key_of(Hotkey::Letter('E')), Some(K::KeyE));
    }
}
