//! A tolerant RON span indexer: where each value of a RON text starts, by path.
//!
//! `ron` reports positions for syntax errors but not for the values it parsed, and level
//! diagnostics must point at the offending value ("units[2].cell"). This is a small tokenizer
//! over the text that records the byte offset of every value under a path of struct fields,
//! list indices and map keys. It understands `//` and nested `/* */` comments, strings with
//! escapes, raw strings, byte strings, chars, `#![enable(...)]` attributes and nested
//! `()`/`[]`/`{}`.
//!
//! It is meant for text `ron` already accepted, but it never panics and always terminates on
//! any input: every loop consumes at least one byte per round, nesting deeper than
//! [`MAX_DEPTH`] is skipped without recursion, and at most [`MAX_NODES`] values are recorded
//! (lookups past that fall back to the deepest recorded ancestor).

/// Deeper nesting is skipped, not recursed into.
pub(crate) const MAX_DEPTH: usize = 64;
/// At most this many values are recorded.
pub(crate) const MAX_NODES: usize = 100_000;

/// One step of a path into a RON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A named struct field (`units`, `cell`).
    Field(&'static str),
    /// A list element, or a tuple element (`(3, 4)`: index 0 is `3`).
    Index(usize),
    /// A map entry with a char key (`legend['x']`); locates the key.
    Char(char),
    /// A map entry with a string key (`overrides["hp"]`); locates the key.
    Str(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Key {
    Name(String),
    Index(usize),
    Char(char),
    Str(String),
    Other,
}

impl Key {
    fn matches(&self, seg: &Seg) -> bool {
        match (self, seg) {
            (Key::Name(a), Seg::Field(b)) => a == b,
            (Key::Index(a), Seg::Index(b)) => a == b,
            (Key::Char(a), Seg::Char(b)) => a == b,
            (Key::Str(a), Seg::Str(b)) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Node {
    /// Byte offset where the value (for map entries: the key) starts.
    at: usize,
    /// Byte offset just past the value's end (for map entries: past the entry's value).
    end: usize,
    kids: Vec<(Key, Node)>,
}

/// The recorded value positions of one RON text.
#[derive(Clone, Debug)]
pub(crate) struct Spans {
    root: Node,
}

impl Spans {
    /// Indexes a text. Never panics.
    pub(crate) fn index(src: &str) -> Spans {
        let mut lx = Lexer {
            s: src.as_bytes(),
            pos: 0,
            nodes: 0,
        };
        lx.skip_trivia();
        // `#![enable(...)]` attributes.
        while lx.peek() == Some(b'#') {
            lx.pos += 1;
            if lx.peek() == Some(b'!') {
                lx.pos += 1;
            }
            lx.skip_trivia();
            if lx.peek() == Some(b'[') {
                lx.skip_balanced();
            }
            lx.skip_trivia();
        }
        let root = lx.value(0);
        Spans { root }
    }

    /// The byte offset of the value at `path`, if it was recorded.
    pub(crate) fn find(&self, path: &[Seg]) -> Option<usize> {
        let (depth, at) = self.walk(path);
        (depth == path.len()).then_some(at)
    }

    /// The bytes `start..end` of the value at `path` (for a map entry: its key and value), if
    /// it was recorded.
    pub(crate) fn span(&self, path: &[Seg]) -> Option<(usize, usize)> {
        let node = self.node(path)?;
        Some((node.at, node.end))
    }

    /// The spans of the elements (or fields, or entries) of the value at `path`, in order.
    pub(crate) fn children(&self, path: &[Seg]) -> Option<Vec<(usize, usize)>> {
        let node = self.node(path)?;
        Some(node.kids.iter().map(|(_, n)| (n.at, n.end)).collect())
    }

    fn node(&self, path: &[Seg]) -> Option<&Node> {
        let mut node = &self.root;
        for seg in path {
            node = &node.kids.iter().find(|(k, _)| k.matches(seg))?.1;
        }
        Some(node)
    }

    /// The byte offset of the value at `path`, or of its deepest recorded ancestor.
    pub(crate) fn locate(&self, path: &[Seg]) -> usize {
        self.walk(path).1
    }

    /// The map keys written more than once in the map at `path`: each repeat's key (as
    /// written, `'x'` or `"hp"`) and where it starts, in text order. `ron` keeps the last of
    /// equal keys without a word; a level must not.
    pub(crate) fn repeated_keys(&self, path: &[Seg]) -> Vec<(String, usize)> {
        let mut node = &self.root;
        for seg in path {
            match node.kids.iter().find(|(k, _)| k.matches(seg)) {
                Some((_, next)) => node = next,
                None => return Vec::new(),
            }
        }
        let mut out = Vec::new();
        for (i, (key, kid)) in node.kids.iter().enumerate() {
            let shown = match key {
                Key::Char(c) => format!("{c:?}"),
                Key::Str(s) => format!("{s:?}"),
                _ => continue,
            };
            if node.kids[..i].iter().any(|(k, _)| k == key) {
                out.push((shown, kid.at));
            }
        }
        out
    }

    fn walk(&self, path: &[Seg]) -> (usize, usize) {
        let mut node = &self.root;
        for (depth, seg) in path.iter().enumerate() {
            let fast = match seg {
                Seg::Index(i) => node.kids.get(*i).filter(|(k, _)| k.matches(seg)),
                _ => None,
            };
            match fast.or_else(|| node.kids.iter().find(|(k, _)| k.matches(seg))) {
                Some((_, next)) => node = next,
                None => return (depth, node.at),
            }
        }
        (path.len(), node.at)
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    nodes: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.pos.saturating_add(ahead)).copied()
    }

    fn full(&self) -> bool {
        self.nodes >= MAX_NODES
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    while let Some(b) = self.peek() {
                        self.pos += 1;
                        if b == b'\n' {
                            break;
                        }
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    self.pos += 2;
                    let mut depth = 1usize;
                    while depth > 0 {
                        match (self.peek(), self.peek_at(1)) {
                            (None, _) => break,
                            (Some(b'*'), Some(b'/')) => {
                                depth -= 1;
                                self.pos += 2;
                            }
                            (Some(b'/'), Some(b'*')) => {
                                depth += 1;
                                self.pos += 2;
                            }
                            _ => self.pos += 1,
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips one byte, or a whole UTF-8 character.
    fn bump(&mut self) {
        self.pos += 1;
        while matches!(self.peek(), Some(b) if (0x80..0xC0).contains(&b)) {
            self.pos += 1;
        }
    }

    /// Skips a `"..."` string starting at the quote.
    fn skip_string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => {
                    self.pos += 1;
                    if self.peek().is_some() {
                        self.bump();
                    }
                }
                b'"' => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.s.len());
    }

    /// Whether a raw string (`r"`, `r#"`, ...) starts at `pos + ahead`.
    fn raw_string_ahead(&self, ahead: usize) -> bool {
        if self.peek_at(ahead) != Some(b'r') {
            return false;
        }
        let mut i = ahead + 1;
        while self.peek_at(i) == Some(b'#') {
            i += 1;
        }
        self.peek_at(i) == Some(b'"')
    }

    /// Skips a raw string starting at its `r`.
    fn skip_raw_string(&mut self) {
        self.pos += 1;
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.pos += 1;
        }
        self.pos += 1; // the opening quote
        while self.pos < self.s.len() {
            if self.s[self.pos] == b'"' {
                let end = self.pos + 1 + hashes;
                if end <= self.s.len() && self.s[self.pos + 1..end].iter().all(|&b| b == b'#') {
                    self.pos = end;
                    return;
                }
            }
            self.pos += 1;
        }
        self.pos = self.pos.min(self.s.len());
    }

    /// Skips a `'c'` char literal starting at the quote (tolerant: gives up after a few bytes).
    fn skip_char(&mut self) {
        let start = self.pos;
        self.pos += 1;
        if self.peek() == Some(b'\\') {
            self.pos += 1;
        }
        if self.peek().is_some() {
            self.bump();
        }
        while let Some(b) = self.peek() {
            if b == b'\'' {
                self.pos += 1;
                return;
            }
            if self.pos - start > 12 || b == b'\n' {
                return;
            }
            // Whole characters only, so giving up never stops inside one.
            self.bump();
        }
        self.pos = self.pos.min(self.s.len());
    }

    /// Skips an identifier (`Some`, `r#type`).
    fn read_ident(&mut self) -> &str {
        if self.peek() == Some(b'r') && self.peek_at(1) == Some(b'#') {
            self.pos += 2;
        }
        let start = self.pos;
        while matches!(self.peek(), Some(b) if is_ident_char(b)) {
            self.pos += 1;
        }
        // Identifier bytes are ASCII, so this cannot fail; be tolerant anyway.
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("")
    }

    /// Skips a bracketed group starting at its opening bracket, without recursion.
    fn skip_balanced(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    self.pos += 1;
                }
                b')' | b']' | b'}' => {
                    self.pos += 1;
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                b'"' => self.skip_string(),
                b'\'' => self.skip_char(),
                b'r' if self.raw_string_ahead(0) => self.skip_raw_string(),
                b'/' if matches!(self.peek_at(1), Some(b'/' | b'*')) => self.skip_trivia(),
                _ => self.bump(),
            }
        }
    }

    /// One value at the cursor. Consumes nothing if the cursor is on a closing bracket, a
    /// comma or a colon (the callers make progress on those).
    fn value(&mut self, depth: usize) -> Node {
        self.skip_trivia();
        let at = self.pos;
        let mut node = Node {
            at,
            end: at,
            kids: vec![],
        };
        self.nodes += 1;
        let Some(b) = self.peek() else {
            return node;
        };
        match b {
            b'(' | b'[' | b'{' if depth >= MAX_DEPTH || self.full() => self.skip_balanced(),
            b'(' => {
                self.pos += 1;
                node.kids = self.fields(depth + 1);
            }
            b'[' => {
                self.pos += 1;
                node.kids = self.items(depth + 1);
            }
            b'{' => {
                self.pos += 1;
                node.kids = self.entries(depth + 1);
            }
            b'"' => self.skip_string(),
            b'\'' => self.skip_char(),
            b'b' if self.peek_at(1) == Some(b'"') => {
                self.pos += 1;
                self.skip_string();
            }
            b'b' if self.peek_at(1) == Some(b'\'') => {
                self.pos += 1;
                self.skip_char();
            }
            b'b' if self.raw_string_ahead(1) => {
                self.pos += 1;
                self.skip_raw_string();
            }
            b'r' if self.raw_string_ahead(0) => self.skip_raw_string(),
            b if is_ident_start(b) => {
                self.read_ident();
                let after = self.pos;
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    if depth >= MAX_DEPTH || self.full() {
                        self.skip_balanced();
                    } else {
                        self.pos += 1;
                        node.kids = self.fields(depth + 1);
                    }
                } else {
                    self.pos = after;
                }
            }
            b')' | b']' | b'}' | b',' | b':' => {}
            _ => {
                // A number or anything else: up to the next delimiter.
                while let Some(b) = self.peek() {
                    if b.is_ascii_whitespace()
                        || matches!(b, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':')
                        || matches!(b, b'"' | b'\'')
                    {
                        break;
                    }
                    self.bump();
                }
            }
        }
        node.end = self.pos;
        node
    }

    /// After `(`: named fields and/or positional elements up to `)`.
    fn fields(&mut self, depth: usize) -> Vec<(Key, Node)> {
        let mut kids = vec![];
        let mut index = 0;
        loop {
            self.skip_trivia();
            let start = self.pos;
            match self.peek() {
                None => break,
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => self.pos += 1,
                Some(b) => {
                    let mut named = None;
                    if is_ident_start(b) {
                        let name = self.read_ident().to_string();
                        self.skip_trivia();
                        if self.peek() == Some(b':') && self.peek_at(1) != Some(b':') {
                            self.pos += 1;
                            named = Some(name);
                        } else {
                            self.pos = start;
                        }
                    }
                    let node = self.value(depth);
                    let key = match named {
                        Some(name) => Key::Name(name),
                        None => {
                            index += 1;
                            Key::Index(index - 1)
                        }
                    };
                    if !self.full() {
                        kids.push((key, node));
                    }
                }
            }
            if self.full() {
                break;
            }
            if self.pos == start {
                self.bump();
            }
        }
        kids
    }

    /// After `[`: elements up to `]`.
    fn items(&mut self, depth: usize) -> Vec<(Key, Node)> {
        let mut kids = vec![];
        loop {
            self.skip_trivia();
            let start = self.pos;
            match self.peek() {
                None => break,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => self.pos += 1,
                Some(_) => {
                    let node = self.value(depth);
                    if !self.full() {
                        kids.push((Key::Index(kids.len()), node));
                    }
                }
            }
            if self.full() {
                break;
            }
            if self.pos == start {
                self.bump();
            }
        }
        kids
    }

    /// After `{`: `key: value` entries up to `}`.
    fn entries(&mut self, depth: usize) -> Vec<(Key, Node)> {
        let mut kids = vec![];
        loop {
            self.skip_trivia();
            let start = self.pos;
            match self.peek() {
                None => break,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => self.pos += 1,
                Some(_) => {
                    let key_node = self.value(depth);
                    let key = decode_key(&self.s[key_node.at..self.pos]);
                    self.skip_trivia();
                    let mut node = Node {
                        at: key_node.at,
                        end: key_node.end,
                        kids: vec![],
                    };
                    if self.peek() == Some(b':') {
                        self.pos += 1;
                        let value = self.value(depth);
                        node.kids = value.kids;
                        node.end = value.end;
                    }
                    if !self.full() {
                        kids.push((key, node));
                    }
                }
            }
            if self.full() {
                break;
            }
            if self.pos == start {
                self.bump();
            }
        }
        kids
    }
}

/// The key of a map entry from its source text: a char or string literal, or something else.
fn decode_key(text: &[u8]) -> Key {
    match text.first() {
        Some(b'\'') => {
            let Some((c, used)) = decode_char(&text[1..]) else {
                return Key::Other;
            };
            if text.get(1 + used) == Some(&b'\'') {
                Key::Char(c)
            } else {
                Key::Other
            }
        }
        Some(b'"') => {
            let mut out = String::new();
            let mut rest = &text[1..];
            loop {
                match rest.first() {
                    Some(b'"') => return Key::Str(out),
                    Some(_) => match decode_char(rest) {
                        Some((c, used)) => {
                            out.push(c);
                            rest = &rest[used..];
                        }
                        None => return Key::Other,
                    },
                    None => return Key::Other,
                }
            }
        }
        _ => Key::Other,
    }
}

/// Decodes one (possibly escaped) character of a string or char literal; returns it and how
/// many bytes it took. `None` on a malformed escape or invalid UTF-8.
pub(crate) fn decode_char(bytes: &[u8]) -> Option<(char, usize)> {
    let first = *bytes.first()?;
    if first != b'\\' {
        let len = match first {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        let s = std::str::from_utf8(bytes.get(..len)?).ok()?;
        return s.chars().next().map(|c| (c, len));
    }
    let esc = *bytes.get(1)?;
    let simple = match esc {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'0' => Some('\0'),
        b'\\' => Some('\\'),
        b'\'' => Some('\''),
        b'"' => Some('"'),
        _ => None,
    };
    if let Some(c) = simple {
        return Some((c, 2));
    }
    match esc {
        b'x' => {
            let hex = std::str::from_utf8(bytes.get(2..4)?).ok()?;
            let v = u8::from_str_radix(hex, 16).ok()?;
            Some((char::from(v), 4))
        }
        b'u' => {
            if bytes.get(2) != Some(&b'{') {
                return None;
            }
            let close = bytes.iter().take(12).position(|&b| b == b'}')?;
            let hex = std::str::from_utf8(bytes.get(3..close)?).ok()?;
            let v = u32::from_str_radix(&hex.replace('_', ""), 16).ok()?;
            Some((char::from_u32(v)?, close + 1))
        }
        _ => None,
    }
}

/// The byte offset of the `index`-th character (counting escapes as one) of the string
/// literal starting at `at`, if there is one.
pub(crate) fn char_in_string(src: &str, at: usize, index: usize) -> Option<usize> {
    let s = src.as_bytes();
    let rest = s.get(at..)?;
    match rest.first()? {
        b'"' => {
            let mut pos = at + 1;
            let mut k = 0;
            loop {
                let b = *s.get(pos)?;
                if b == b'"' {
                    return None;
                }
                if k == index {
                    return Some(pos);
                }
                let (_, used) = decode_char(&s[pos..])?;
                pos += used;
                k += 1;
            }
        }
        b'r' => {
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            let body = at + 2 + hashes;
            let text = src.get(body..)?;
            let closing = format!("\"{}", "#".repeat(hashes));
            let end = text.find(&closing)?;
            text[..end].char_indices().nth(index).map(|(i, _)| body + i)
        }
        _ => None,
    }
}

/// 1-based (line, column) of each byte offset, columns counted in characters as `ron` does.
/// One pass over the text, whatever the number of offsets.
pub(crate) fn line_cols(src: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    let bytes = src.as_bytes();
    let (mut line, mut col, mut pos) = (1usize, 1usize, 0usize);
    for i in order {
        let target = offsets[i].min(bytes.len());
        while pos < target {
            let b = bytes[pos];
            if b == b'\n' {
                line += 1;
                col = 1;
            } else if !(0x80..0xC0).contains(&b) {
                col += 1;
            }
            pos += 1;
        }
        out[i] = (line, col);
    }
    out
}

/// The byte offset of a 1-based (line, column) as `ron` reports it (clamped to the text).
pub(crate) fn offset_of(src: &str, line: usize, col: usize) -> usize {
    let mut pos = 0;
    for _ in 1..line {
        match src[pos..].find('\n') {
            Some(i) => pos += i + 1,
            None => return src.len(),
        }
    }
    let rest = &src[pos..];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    rest[..line_end]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(pos + line_end, |(i, _)| pos + i)
}

/// From `at`, skips whitespace and comments to the next token (or stays put at the end).
pub(crate) fn next_token(src: &str, at: usize) -> usize {
    let mut lx = Lexer {
        s: src.as_bytes(),
        pos: at.min(src.len()),
        nodes: 0,
    };
    lx.skip_trivia();
    if lx.pos >= src.len() {
        at.min(src.len())
    } else {
        lx.pos
    }
}
