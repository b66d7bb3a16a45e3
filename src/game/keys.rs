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
/// Fold the turn order panel to a strip, or open it again.
pub const LEFT_PANEL: BattleKey = key(
    &[&[K::BracketLeft]],
    "[",
    Some("left panel"),
    Some(UiAction::ToggleLeftPanel),
);
/// Fold the menu and log panel to a strip, or open it again.
pub const RIGHT_PANEL: BattleKey = key(
    &[&[K::BracketRight]],
    "]",
    Some("right panel"),
    Some(UiAction::ToggleRightPanel),
);
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
    LEFT_PANEL,
    RIGHT_PANEL,
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

/// A key the player may rebind: one group of a [`BattleKey`] ("cursor left", "undo"). Enter,
/// Esc, the digits and the action menu's letters stay as they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    /// The battle key.
    pub key: BattleKey,
    /// Its group (see [`BattleKey::codes`]).
    pub group: usize,
    /// Its name in the Settings screen's key table and in `settings.ron`.
    pub name: &'static str,
}

const fn slot(key: BattleKey, group: usize, name: &'static str) -> Slot {
    Slot { key, group, name }
}

/// Every key the player may rebind, in the Settings screen's order.
pub const SLOTS: &[Slot] = &[
    slot(CURSOR, 0, "cursor left"),
    slot(CURSOR, 1, "cursor right"),
    slot(CURSOR, 2, "cursor up"),
    slot(CURSOR, 3, "cursor down"),
    slot(NEXT_UNIT, 0, "next unit"),
    slot(END_TURN, 0, "end turn"),
    slot(UNDO, 0, "undo"),
    slot(PAN, 0, "pan (held)"),
    slot(ZOOM, 0, "zoom in"),
    slot(ZOOM, 1, "zoom out"),
    slot(FIT, 0, "fit"),
    slot(THREAT, 0, "threat"),
    slot(LOG, 0, "log back"),
    slot(LOG, 1, "log forward"),
    slot(SPEED, 0, "speed"),
    slot(SKIP_ANIMATIONS, 0, "skip animations"),
    slot(AI_PACE, 0, "AI pace"),
    slot(RULES, 0, "rules"),
    slot(LEFT_PANEL, 0, "left panel"),
    slot(RIGHT_PANEL, 0, "right panel"),
    slot(QUICK_SAVE, 0, "quick save"),
    slot(QUICK_LOAD, 0, "quick load"),
    slot(QUIT, 0, "quit (pause menu)"),
    slot(SHOW_NOW, 0, "show now"),
];

/// The keys a player may bind: letters, digits of the numpad, F-keys, the arrows and the keys
/// around them, punctuation, Shift and Alt. Saved by their `KeyCode` names (`KeyJ`, `F6`).
pub const BINDABLE: &[KeyCode] = &[
    K::KeyA,
    K::KeyB,
    K::KeyC,
    K::KeyD,
    K::KeyE,
    K::KeyF,
    K::KeyG,
    K::KeyH,
    K::KeyI,
    K::KeyJ,
    K::KeyK,
    K::KeyL,
    K::KeyM,
    K::KeyN,
    K::KeyO,
    K::KeyP,
    K::KeyQ,
    K::KeyR,
    K::KeyS,
    K::KeyT,
    K::KeyU,
    K::KeyV,
    K::KeyW,
    K::KeyX,
    K::KeyY,
    K::KeyZ,
    K::F1,
    K::F2,
    K::F3,
    K::F4,
    K::F5,
    K::F6,
    K::F7,
    K::F8,
    K::F9,
    K::F10,
    K::F11,
    K::F12,
    K::ArrowLeft,
    K::ArrowRight,
    K::ArrowUp,
    K::ArrowDown,
    K::Home,
    K::End,
    K::PageUp,
    K::PageDown,
    K::Insert,
    K::Delete,
    K::Space,
    K::Tab,
    K::Backspace,
    K::Minus,
    K::Equal,
    K::BracketLeft,
    K::BracketRight,
    K::Semicolon,
    K::Quote,
    K::Comma,
    K::Period,
    K::Slash,
    K::Backslash,
    K::Backquote,
    K::Numpad0,
    K::Numpad1,
    K::Numpad2,
    K::Numpad3,
    K::Numpad4,
    K::Numpad5,
    K::Numpad6,
    K::Numpad7,
    K::Numpad8,
    K::Numpad9,
    K::NumpadAdd,
    K::NumpadSubtract,
    K::NumpadMultiply,
    K::NumpadDivide,
    K::NumpadDecimal,
    K::ShiftLeft,
    K::ShiftRight,
    K::AltLeft,
    K::AltRight,
];

/// The action menu's letters after the digits ([`Hotkey::nth`]); they cannot be rebound or
/// taken by another key.
const MENU_LETTERS: [KeyCode; 11] = [
    K::KeyR,
    K::KeyF,
    K::KeyG,
    K::KeyC,
    K::KeyV,
    K::KeyB,
    K::KeyN,
    K::KeyM,
    K::KeyJ,
    K::KeyK,
    K::KeyL,
];

/// How the key tables and buttons name a key: `J`, `F6`, `Left`, `PgUp`, `LShift`.
pub fn key_name(code: KeyCode) -> String {
    let debug = format!("{code:?}");
    let fixed = match code {
        K::ArrowLeft => "Left",
        K::ArrowRight => "Right",
        K::ArrowUp => "Up",
        K::ArrowDown => "Down",
        K::PageUp => "PgUp",
        K::PageDown => "PgDn",
        K::Escape => "Esc",
        K::Equal => "=",
        K::Minus => "-",
        K::NumpadAdd => "Num+",
        K::NumpadSubtract => "Num-",
        K::ShiftLeft => "LShift",
        K::ShiftRight => "RShift",
        K::AltLeft => "LAlt",
        K::AltRight => "RAlt",
        K::ControlLeft => "LCtrl",
        K::ControlRight => "RCtrl",
        K::BracketLeft => "[",
        K::BracketRight => "]",
        K::Semicolon => ";",
        K::Quote => "'",
        K::Comma => ",",
        K::Period => ".",
        K::Slash => "Slash",
        K::Backslash => "\\",
        K::Backquote => "`",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
    }
    for prefix in ["Key", "Digit"] {
        if let Some(rest) = debug.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    debug
}

/// The key whose `KeyCode` name is `name` (`KeyJ`), if it may be bound.
fn parse_key(name: &str) -> Option<KeyCode> {
    BINDABLE.iter().copied().find(|k| format!("{k:?}") == name)
}

/// The player's own keys: for each rebound [`Slot`] (by name), the name of its key. Kept in
/// `settings.ron`; a slot not listed (or listed with a key that cannot be bound) has its
/// default keys. The battle's systems ask here which keys are pressed and how a key is named,
/// so a rebound key acts and is shown as bound everywhere.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct KeyBindings(pub std::collections::BTreeMap<String, String>);

impl KeyBindings {
    /// The slot of `key`'s `group`, with its index in [`SLOTS`].
    fn slot_of(key: &BattleKey, group: usize) -> Option<&'static Slot> {
        SLOTS.iter().find(|s| s.key == *key && s.group == group)
    }

    /// The key the player bound to `slot`, if any.
    fn bound(&self, slot: &Slot) -> Option<KeyCode> {
        self.0.get(slot.name).and_then(|n| parse_key(n))
    }

    /// The keys of `key`'s `group` now: the bound one, else the defaults.
    pub fn codes(&self, key: &BattleKey, group: usize) -> Vec<KeyCode> {
        if let Some(code) = Self::slot_of(key, group).and_then(|s| self.bound(s)) {
            return vec![code];
        }
        key.codes.get(group).map_or(Vec::new(), |g| g.to_vec())
    }

    /// The keys of every group of `key`.
    fn groups(&self, key: &BattleKey) -> Vec<Vec<KeyCode>> {
        (0..key.codes.len()).map(|g| self.codes(key, g)).collect()
    }

    /// Whether one of `key`'s keys went down this frame.
    pub fn just_pressed(&self, key: &BattleKey, keys: &ButtonInput<KeyCode>) -> bool {
        self.groups(key)
            .into_iter()
            .any(|g| keys.any_just_pressed(g))
    }

    /// Whether a key of `key`'s `group` went down this frame.
    pub fn group_just_pressed(
        &self,
        key: &BattleKey,
        keys: &ButtonInput<KeyCode>,
        group: usize,
    ) -> bool {
        keys.any_just_pressed(self.codes(key, group))
    }

    /// Whether a key of `key`'s `group` is held.
    pub fn group_pressed(
        &self,
        key: &BattleKey,
        keys: &ButtonInput<KeyCode>,
        group: usize,
    ) -> bool {
        keys.any_pressed(self.codes(key, group))
    }

    /// Whether one of `key`'s keys is held (a modifier).
    pub fn pressed(&self, key: &BattleKey, keys: &ButtonInput<KeyCode>) -> bool {
        self.groups(key).into_iter().any(|g| keys.any_pressed(g))
    }

    /// How buttons and the key help name `key`: its own name while none of its slots is
    /// rebound, else its keys now ("J/L/I/K", "wheel or I/O", "LAlt+cursor").
    pub fn name(&self, key: &BattleKey) -> String {
        let rebound = SLOTS
            .iter()
            .any(|s| s.key == *key && self.bound(s).is_some());
        if !rebound {
            return key.name.to_string();
        }
        let names: Vec<String> = self
            .groups(key)
            .iter()
            .map(|g| g.iter().map(|c| key_name(*c)).collect::<Vec<_>>().join("/"))
            .collect();
        let names = names.join("/");
        if *key == ZOOM {
            format!("wheel or {names}")
        } else if *key == PAN {
            format!("{names}+cursor")
        } else {
            names
        }
    }

    /// The name of the key `group` of `key` now ("PgUp", "J").
    pub fn group_name(&self, key: &BattleKey, group: usize) -> String {
        self.codes(key, group)
            .iter()
            .map(|c| key_name(*c))
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The key of an action menu entry now (`E` for End turn follows its binding).
    pub fn key_of(&self, h: Hotkey) -> Option<KeyCode> {
        match h {
            Hotkey::Letter('E') => self.codes(&END_TURN, 0).first().copied(),
            _ => key_of(h),
        }
    }

    /// How the action menu prints an entry's key now.
    pub fn hotkey_label(&self, h: Hotkey) -> String {
        match h {
            Hotkey::Letter('E') => self.name(&END_TURN),
            _ => h.label(),
        }
    }

    /// The pause menu's key help with the keys now bound: every key with a help text, "name
    /// help", in [`HOTKEYS`] order.
    pub fn help(&self) -> String {
        let mut lines = vec![Vec::new()];
        for k in HOTKEYS {
            let Some(help) = k.help else {
                continue;
            };
            if k.name == HELP_BREAK {
                lines.push(Vec::new());
            }
            if let Some(line) = lines.last_mut() {
                line.push(format!("{} {help}", self.name(k)));
            }
        }
        let lines: Vec<String> = lines.iter().map(|l| l.join(" - ")).collect();
        format!("Keys: {}", lines.join("\n"))
    }

    /// The Settings screen's line for `SLOTS[i]`: "undo: U" (marked when rebound).
    pub fn slot_label(&self, i: usize) -> String {
        let Some(s) = SLOTS.get(i) else {
            return String::new();
        };
        let mark = if self.bound(s).is_some() { " *" } else { "" };
        format!("{}: {}{mark}", s.name, self.group_name(&s.key, s.group))
    }

    /// Binds `code` to `SLOTS[i]`, in place of its keys. Refused, with the reason, when the
    /// key cannot be bound, is kept for the menu (Enter, Esc, digits, the menu's letters) or
    /// already belongs to another key; then nothing changes.
    pub fn bind(&mut self, i: usize, code: KeyCode) -> Result<(), String> {
        let Some(slot) = SLOTS.get(i) else {
            return Err("no such key".into());
        };
        let name = key_name(code);
        if MENU_LETTERS.contains(&code) {
            return Err(format!(
                "{name} is kept for the action menu's entries: choose another key"
            ));
        }
        if !BINDABLE.contains(&code) {
            return Err(format!(
                "{name} cannot be bound (Enter, Esc, Ctrl and the digits stay as they are)"
            ));
        }
        for (j, other) in SLOTS.iter().enumerate() {
            if j != i && self.codes(&other.key, other.group).contains(&code) {
                return Err(format!(
                    "{name} is already \"{}\": rebind that first",
                    other.name
                ));
            }
        }
        let default = slot.key.codes.get(slot.group).and_then(|g| g.first());
        if default == Some(&code) && slot.key.codes[slot.group].len() == 1 {
            self.0.remove(slot.name);
        } else {
            self.0.insert(slot.name.to_string(), format!("{code:?}"));
        }
        Ok(())
    }

    /// Every key back to its default.
    pub fn reset(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebound_key_replaces_its_defaults_and_a_clash_is_refused() {
        let mut b = KeyBindings::default();
        assert_eq!(b.help(), help());
        let undo = SLOTS.iter().position(|s| s.name == "undo").unwrap();
        let threat = SLOTS.iter().position(|s| s.name == "threat").unwrap();
        let left = SLOTS.iter().position(|s| s.name == "cursor left").unwrap();
        // A key another slot has, a menu letter, Enter: refused, nothing changes.
        assert_eq!(
            b.bind(undo, K::KeyT),
            Err("T is already \"threat\": rebind that first".into())
        );
        assert!(b.bind(undo, K::KeyA).is_err(), "A moves the cursor left");
        assert!(b.bind(undo, K::KeyR).unwrap_err().contains("action menu"));
        assert!(b.bind(undo, K::Enter).is_err());
        assert_eq!(b, KeyBindings::default());
        // A free key: it replaces U, the names follow.
        b.bind(undo, K::KeyY).unwrap();
        assert_eq!(b.codes(&UNDO, 0), vec![K::KeyY]);
        assert_eq!(b.name(&UNDO), "Y");
        assert!(b.help().contains("Y undo"), "{}", b.help());
        assert_eq!(b.slot_label(undo), "undo: Y *");
        // U is free now; the cursor's left group becomes one key.
        b.bind(threat, K::KeyU).unwrap();
        b.bind(left, K::KeyH).unwrap();
        assert_eq!(b.codes(&CURSOR, 0), vec![K::KeyH]);
        assert_eq!(b.name(&CURSOR), "H/Right/D/Up/W/Down/S");
        // Kept as KeyCode names, read back the same.
        let text = ron::to_string(&b).unwrap();
        assert!(text.contains("\"KeyY\""), "{text}");
        assert_eq!(ron::from_str::<KeyBindings>(&text).unwrap(), b);
        // Binding a key's own default again forgets the binding; reset forgets them all.
        b.bind(undo, K::KeyZ).unwrap();
        b.bind(threat, K::KeyT).unwrap();
        assert!(!b.0.contains_key("threat"));
        b.reset();
        assert_eq!(b, KeyBindings::default());
        // End turn's menu key follows its binding.
        let end = SLOTS.iter().position(|s| s.name == "end turn").unwrap();
        b.bind(end, K::KeyX).unwrap();
        assert_eq!(b.key_of(Hotkey::Letter('E')), Some(K::KeyX));
        assert_eq!(b.hotkey_label(Hotkey::Letter('E')), "X");
        assert_eq!(b.key_of(Hotkey::Digit(1)), Some(K::Digit1));
        // Punctuation is named as printed.
        assert_eq!(key_name(K::BracketLeft), "[");
        assert_eq!(
            b.slot_label(SLOTS.iter().position(|s| s.name == "left panel").unwrap()),
            "left panel: ["
        );
    }

    #[test]
    fn the_key_help_is_the_one_the_pause_menu_always_showed() {
        assert_eq!(
            help(),
            "Keys: arrows/WASD cursor - Enter confirm - Esc cancel - Tab next unit - E end turn - U undo - 1-9 actions\nShift+arrows pan - wheel or +/- zoom - Home fit - T threat - PgUp/PgDn log - F2 speed - F3 skip animations - F4 AI pace - F1 rules - [ left panel - ] right panel"
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
