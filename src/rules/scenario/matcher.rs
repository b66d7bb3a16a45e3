//! Matching expected battle events against actual ones, both written as RON text.
//!
//! A scenario lists the events a battle must produce. Actual events come from
//! `ron::to_string` (default options); expected events are written by hand. Both are parsed by
//! [`parse`] into a [`Node`] tree (a small, tolerant parser for the subset of RON that events
//! use), and [`matches()`] decides whether an expected node describes an actual one.
//! [`find_subsequence`] checks a whole list of expected events against the actual log, and
//! [`render`] prints a node back as compact RON for failure messages.
//!
//! # What the parser reads
//! - `Name(a: x, b: y)`: a struct-like enum variant ([`Node::Named`]); `(a: x, b: y)` is a plain
//!   struct (ron writes no struct names), a `Named` node with an empty name.
//! - `Name(x, y)`, `(x, y)`, `Some(x)`, `(x)` (a newtype), `()`: [`Node::Tuple`].
//! - `[a, b]`: [`Node::List`]; `{k: v}`: [`Node::Map`].
//! - `"text"`, `r#"raw"#`, `'c'`, `b"bytes"`: [`Node::Str`], with the usual escapes.
//! - `-12`, `0x1F`, `1_000`, `7u8`: [`Node::Int`] (an `i64`); `1.5`, `1e3`, `-inf`, `NaN`:
//!   [`Node::Float`]; `true`, `false`: [`Node::Bool`].
//! - Any other bare name (`Victory`, `None`, `Attack`): [`Node::Ident`]; `r#name` is read as
//!   `name`.
//!
//! Whitespace, trailing commas and `//` / `/* */` comments are allowed anywhere between tokens.
//! Nesting deeper than 128 levels is an error. [`parse`] never panics; a bad input gives a
//! [`ParseError`] with its byte offset, line and column.
//!
//! # Matching rules
//! An expected event lists only the fields the writer cares about. [`matches()`] applies these
//! rules, recursively:
//! - **Names.** A named node (`Moved(..)`) matches only a node of the same name. A plain struct or
//!   an unnamed tuple carries no name (ron writes none), so on either side it is compatible with
//!   any name, except that `Some(..)` never stands in for an unnamed tuple.
//! - **Subset of fields.** Every field the expected node lists must be present in the actual node
//!   and match; fields the expected node leaves out are ignored. A bare name matches every node
//!   of that name whatever its fields: expected `Moved` or `Moved()` matches
//!   `Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))`.
//! - **Tuples** match item by item, by position. The expected tuple may list fewer items than the
//!   actual one (the rest are ignored) but not more.
//! - **Lists are exact:** same length, elements matched in order. `dice: [4, 2]` means exactly
//!   those two dice.
//! - **Maps are a subset:** every expected key must be present in the actual map, with a matching
//!   value.
//! - **Optional `Some`.** Expected `Some(x)` matches actual `Some(y)` when `x` matches `y`. A bare
//!   expected `x` also matches actual `Some(y)`, so writers may leave out `Some`:
//!   `target: 13` matches `target:Some(13)`. `None` matches only `None`. Newtypes are transparent
//!   the same way: expected `3` matches actual `(3)`.
//! - **Numbers.** An integer matches an equal integer. Floats compare exactly (no tolerance); an
//!   integer and a float match when they are numerically equal (`2` matches `2.0`); `NaN` matches
//!   `NaN`. Strings, booleans and bare names compare exactly.
//! - **Unit and side names.** Ids serialize as numbers, but a scenario may name them: an expected
//!   string `"Boudica"` matches an actual integer `n` when entry `n` of the name table is
//!   `"Boudica"`. The table is chosen by the name of the field the value sits in (looking through
//!   `Some`, lists, unnamed tuples and maps): a field whose name contains `side`, or is `winner`,
//!   uses [`Names::sides`]; every other field, and a value outside any field, uses
//!   [`Names::units`].
//! - **Cell shorthand.** A cell serializes as `(x:3,y:4)`; an expected unnamed pair `(3, 4)`
//!   matches any struct with fields `x` and `y`, as `(x: 3, y: 4)`.
//!
//! A failed match gives a [`Mismatch`]: the path to the first difference (`Rolled.dice[1]`,
//! `Moved.to.x`, `Sides.Spent.unit`) and a message (`expected 4, found 5`).
//!
//! # Event sequences
//! [`find_subsequence`] requires the expected events to appear in the actual log in the same
//! order, but not contiguously: other events may come between them. Each expected event is
//! matched against the first matching actual event after the previous match. When one cannot be
//! found, the [`SeqMismatch`] names it and, as the closest candidate, the first later actual event
//! with the same name together with the reason it did not match; it also points out an earlier
//! actual event that would have matched (the events were out of order).

use std::fmt;

/// A parsed RON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `Name(a: x, b: y)`, or a plain struct `(a: x)` with an empty `name`.
    Named {
        name: String,
        fields: Vec<(String, Node)>,
    },
    /// `Name(x, y)`, `(x, y)`, `Some(x)`, `(x)`, `()`.
    Tuple {
        name: Option<String>,
        items: Vec<Node>,
    },
    /// `[a, b]`.
    List(Vec<Node>),
    /// `{k: v}`.
    Map(Vec<(Node, Node)>),
    /// A string or char literal.
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A unit variant (`Victory`) or `None`.
    Ident(String),
}

impl Node {
    /// The name of a named struct, a named tuple or a bare identifier; `None` for anything else
    /// (plain structs, unnamed tuples, literals, lists, maps).
    pub fn name(&self) -> Option<&str> {
        match self {
            Node::Named { name, .. } if !name.is_empty() => Some(name),
            Node::Tuple {
                name: Some(name), ..
            } => Some(name),
            Node::Ident(name) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(self))
    }
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Deepest nesting of brackets [`parse`] accepts.
const MAX_DEPTH: usize = 128;

/// Why a text could not be parsed: where (byte offset, 1-based line and column in characters)
/// and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses one RON value (surrounding whitespace and comments allowed). See the module
/// documentation for the accepted syntax. Never panics.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    let mut p = Parser {
        src: text,
        pos: 0,
        depth: 0,
    };
    p.skip_ws()?;
    let node = p.value()?;
    p.skip_ws()?;
    if p.pos < p.src.len() {
        return Err(p.error(format!("unexpected {} after the value", p.found())));
    }
    Ok(node)
}

struct Parser<'a> {
    src: &'a str,
    /// Byte offset, always on a char boundary.
    pos: usize,
    depth: usize,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_nth(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.src.get(from..to).unwrap_or("")
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> ParseError {
        let offset = offset.min(self.src.len());
        let before = self.src.get(..offset).unwrap_or(self.src);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        ParseError {
            offset,
            line,
            col,
            message: message.into(),
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    /// The next character, for error messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "end of input".to_string(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    fn skip_ws(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.peek_nth(1) == Some('/') => {
                    while let Some(c) = self.bump() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                Some('/') if self.peek_nth(1) == Some('*') => {
                    let start = self.pos;
                    self.pos += 2;
                    let mut open = 1usize;
                    while open > 0 {
                        match self.bump() {
                            None => return Err(self.error_at(start, "unterminated block comment")),
                            Some('*') if self.eat('/') => open -= 1,
                            Some('/') if self.eat('*') => open += 1,
                            Some(_) => {}
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let node = self.value_inner();
        self.depth -= 1;
        node
    }

    fn value_inner(&mut self) -> Result<Node, ParseError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input, expected a value")),
            Some('[') => self.list(),
            Some('{') => self.map(),
            Some('(') => self.parens(None),
            Some('"') => self.string().map(Node::Str),
            Some('\'') => self.char_lit().map(Node::Str),
            Some('b') if self.peek_nth(1) == Some('"') => {
                self.bump();
                self.string().map(Node::Str)
            }
            Some('b') if self.peek_nth(1) == Some('\'') => {
                self.bump();
                self.char_lit().map(Node::Str)
            }
            Some('r') if self.raw_string_ahead() => self.raw_string().map(Node::Str),
            Some(c) if c.is_ascii_digit() || matches!(c, '-' | '+' | '.') => self.number(),
            Some(c) if is_ident_start(c) => self.word(),
            Some(_) => Err(self.error(format!("unexpected {}, expected a value", self.found()))),
        }
    }

    /// Reads an identifier, `r#name` included (returned without the `r#`).
    fn ident(&mut self) -> Option<String> {
        let start = self.pos;
        if self.peek() == Some('r')
            && self.peek_nth(1) == Some('#')
            && self.peek_nth(2).is_some_and(is_ident_start)
        {
            self.pos += 2;
        }
        let name_start = self.pos;
        match self.peek() {
            Some(c) if is_ident_start(c) => {}
            _ => {
                self.pos = start;
                return None;
            }
        }
        while self.peek().is_some_and(is_ident_char) {
            self.bump();
        }
        Some(self.slice(name_start, self.pos).to_string())
    }

    /// A bare word: `true`, `false`, `inf`, `NaN`, a unit variant, or the name of a struct or
    /// tuple variant followed by its parentheses.
    fn word(&mut self) -> Result<Node, ParseError> {
        let Some(name) = self.ident() else {
            return Err(self.error(format!("unexpected {}, expected a value", self.found())));
        };
        match name.as_str() {
            "true" => return Ok(Node::Bool(true)),
            "false" => return Ok(Node::Bool(false)),
            "inf" => return Ok(Node::Float(f64::INFINITY)),
            "NaN" => return Ok(Node::Float(f64::NAN)),
            _ => {}
        }
        let after_name = self.pos;
        self.skip_ws()?;
        if self.peek() == Some('(') {
            self.parens(Some(name))
        } else {
            self.pos = after_name;
            Ok(Node::Ident(name))
        }
    }

    /// Whether the parentheses at the current position hold `field: value` pairs.
    fn struct_ahead(&mut self) -> bool {
        let start = self.pos;
        let is_struct = self.ident().is_some()
            && self.skip_ws().is_ok()
            && self.peek() == Some(':')
            && self.peek_nth(1) != Some(':');
        self.pos = start;
        is_struct
    }

    /// `( ... )`, after an optional name: a struct if it starts with `field:`, else a tuple.
    fn parens(&mut self, name: Option<String>) -> Result<Node, ParseError> {
        let open = self.pos;
        self.bump();
        self.skip_ws()?;
        if self.struct_ahead() {
            let mut fields = Vec::new();
            loop {
                self.skip_ws()?;
                if self.eat(')') {
                    break;
                }
                let Some(field) = self.ident() else {
                    return Err(
                        self.error(format!("expected a field name, found {}", self.found()))
                    );
                };
                self.skip_ws()?;
                if !self.eat(':') {
                    return Err(self.error(format!(
                        "expected `:` after field `{field}`, found {}",
                        self.found()
                    )));
                }
                self.skip_ws()?;
                let value = self.value()?;
                fields.push((field, value));
                self.skip_ws()?;
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.unclosed(open, ')', "a field"));
                }
            }
            Ok(Node::Named {
                name: name.unwrap_or_default(),
                fields,
            })
        } else {
            let items = self.sequence(open, ')')?;
            Ok(Node::Tuple { name, items })
        }
    }

    fn unclosed(&self, open: usize, close: char, what: &str) -> ParseError {
        if self.peek().is_none() {
            let opener = self.slice(open, open + 1);
            self.error_at(
                open,
                format!("unclosed `{opener}`: input ends before its `{close}`"),
            )
        } else {
            self.error(format!(
                "expected `,` or `{close}` after {what}, found {}",
                self.found()
            ))
        }
    }

    /// Comma-separated values up to `close`; the opening bracket is already consumed.
    fn sequence(&mut self, open: usize, close: char) -> Result<Vec<Node>, ParseError> {
        let mut items = Vec::new();
        loop {
            self.skip_ws()?;
            if self.eat(close) {
                return Ok(items);
            }
            if self.peek().is_none() {
                return Err(self.unclosed(open, close, "an item"));
            }
            items.push(self.value()?);
            self.skip_ws()?;
            if self.eat(close) {
                return Ok(items);
            }
            if !self.eat(',') {
                return Err(self.unclosed(open, close, "an item"));
            }
        }
    }

    fn list(&mut self) -> Result<Node, ParseError> {
        let open = self.pos;
        self.bump();
        self.sequence(open, ']').map(Node::List)
    }

    fn map(&mut self) -> Result<Node, ParseError> {
        let open = self.pos;
        self.bump();
        let mut entries = Vec::new();
        loop {
            self.skip_ws()?;
            if self.eat('}') {
                return Ok(Node::Map(entries));
            }
            if self.peek().is_none() {
                return Err(self.unclosed(open, '}', "an entry"));
            }
            let key = self.value()?;
            self.skip_ws()?;
            if !self.eat(':') {
                return Err(self.error(format!(
                    "expected `:` after a map key, found {}",
                    self.found()
                )));
            }
            self.skip_ws()?;
            let value = self.value()?;
            entries.push((key, value));
            self.skip_ws()?;
            if self.eat('}') {
                return Ok(Node::Map(entries));
            }
            if !self.eat(',') {
                return Err(self.unclosed(open, '}', "an entry"));
            }
        }
    }

    /// After a backslash: one escape sequence.
    fn escape(&mut self) -> Result<Option<char>, ParseError> {
        let at = self.pos.saturating_sub(1);
        let c = match self.bump() {
            None => return Err(self.error_at(at, "unterminated escape sequence")),
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('0') => '\0',
            Some('\\') => '\\',
            Some('"') => '"',
            Some('\'') => '\'',
            Some('x') => {
                let digits = self.slice(self.pos, (self.pos + 2).min(self.src.len()));
                let code = (digits.len() == 2)
                    .then(|| u32::from_str_radix(digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                let Some(c) = code else {
                    return Err(self.error_at(at, "`\\x` must be followed by two hex digits"));
                };
                self.pos += 2;
                c
            }
            Some('u') => {
                if !self.eat('{') {
                    return Err(self.error_at(at, "`\\u` must be followed by `{`"));
                }
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_hexdigit() || c == '_')
                {
                    self.bump();
                }
                let digits: String = self
                    .slice(start, self.pos)
                    .chars()
                    .filter(|&c| c != '_')
                    .collect();
                let code = (!digits.is_empty() && digits.len() <= 6)
                    .then(|| u32::from_str_radix(&digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                match code {
                    Some(c) if self.eat('}') => c,
                    _ => return Err(self.error_at(at, "invalid `\\u{...}` escape")),
                }
            }
            Some('\n') => {
                // Line continuation: skip the newline and the next line's indentation.
                while self.peek().is_some_and(char::is_whitespace) {
                    self.bump();
                }
                return Ok(None);
            }
            Some(c) => {
                return Err(self.error_at(at, format!("unknown escape `\\{}`", c.escape_debug())));
            }
        };
        Ok(Some(c))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error_at(start, "unterminated string")),
                Some('"') => return Ok(out),
                Some('\\') => out.extend(self.escape()?),
                Some(c) => out.push(c),
            }
        }
    }

    fn char_lit(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.bump();
        let c = match self.bump() {
            None => return Err(self.error_at(start, "unterminated char literal")),
            Some('\\') => self.escape()?,
            Some('\'') => None,
            Some(c) => Some(c),
        };
        match c {
            Some(c) if self.eat('\'') => Ok(c.to_string()),
            _ => Err(self.error_at(start, "a char literal holds exactly one character")),
        }
    }

    /// `r"..."` or `r#"..."#` (any number of `#`) at the current position.
    fn raw_string_ahead(&self) -> bool {
        let after_r = self.rest().get(1..).unwrap_or("");
        after_r.trim_start_matches('#').starts_with('"')
    }

    fn raw_string(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.bump();
        let mut hashes = 0usize;
        while self.eat('#') {
            hashes += 1;
        }
        self.bump(); // the opening quote, checked by `raw_string_ahead`
        let closing = format!("\"{}", "#".repeat(hashes));
        match self.rest().find(&closing) {
            Some(len) => {
                let text = self.slice(self.pos, self.pos + len).to_string();
                self.pos += len + closing.len();
                Ok(text)
            }
            None => Err(self.error_at(start, "unterminated raw string")),
        }
    }

    fn number(&mut self) -> Result<Node, ParseError> {
        let start = self.pos;
        let negative = match self.peek() {
            Some('-') => {
                self.bump();
                true
            }
            Some('+') => {
                self.bump();
                false
            }
            _ => false,
        };
        if self.peek().is_some_and(is_ident_start) {
            let word = self.ident().unwrap_or_default();
            return match word.as_str() {
                "inf" if negative => Ok(Node::Float(f64::NEG_INFINITY)),
                "inf" => Ok(Node::Float(f64::INFINITY)),
                "NaN" => Ok(Node::Float(f64::NAN)),
                _ => Err(self.error_at(
                    start,
                    format!("invalid number `{}`", self.slice(start, self.pos)),
                )),
            };
        }
        let body = self.pos;
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '.' => {
                    self.bump();
                }
                Some('+' | '-') => {
                    let token = self.slice(body, self.pos);
                    if !is_radix(token) && (token.ends_with('e') || token.ends_with('E')) {
                        self.bump();
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        let token = self.slice(body, self.pos);
        number_value(token, negative)
            .ok_or_else(|| {
                self.error_at(
                    start,
                    format!("invalid number `{}`", self.slice(start, self.pos)),
                )
            })?
            .map_err(|message| self.error_at(start, message))
    }
}

fn is_radix(token: &str) -> bool {
    ["0x", "0b", "0o"].iter().any(|p| token.starts_with(p))
}

const INT_SUFFIXES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// Interprets a number token (sign removed). `None`: not a number; `Some(Err)`: a number that
/// does not fit.
fn number_value(token: &str, negative: bool) -> Option<Result<Node, String>> {
    let sign: i128 = if negative { -1 } else { 1 };
    let to_int = |magnitude: i128| {
        i64::try_from(sign * magnitude).map(Node::Int).map_err(|_| {
            format!(
                "integer `{}{token}` does not fit in 64 bits",
                if negative { "-" } else { "" }
            )
        })
    };
    if is_radix(token) {
        let radix = match token.get(1..2) {
            Some("x") => 16,
            Some("b") => 2,
            _ => 8,
        };
        let digits = token.get(2..)?;
        let digits = match digits.find(['i', 'u']) {
            Some(at) if INT_SUFFIXES.contains(&digits.get(at..)?) => digits.get(..at)?,
            Some(_) => return None,
            None => digits,
        };
        let digits: String = digits.chars().filter(|&c| c != '_').collect();
        if digits.is_empty() || digits.starts_with(['+', '-']) {
            return None;
        }
        return match u128::from_str_radix(&digits, radix) {
            Ok(m) => Some(
                i128::try_from(m)
                    .map_err(|_| "integer too large".to_string())
                    .and_then(to_int),
            ),
            Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
                Some(Err(format!("integer `{token}` does not fit in 64 bits")))
            }
            Err(_) => None,
        };
    }
    let (digits, suffix) = match token.find(['i', 'u', 'f']) {
        Some(at) => (token.get(..at)?, token.get(at..)?),
        None => (token, ""),
    };
    let float_suffix = matches!(suffix, "f32" | "f64");
    if !suffix.is_empty() && !float_suffix && !INT_SUFFIXES.contains(&suffix) {
        return None;
    }
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    if float_suffix || digits.contains(['.', 'e', 'E']) {
        if !suffix.is_empty() && !float_suffix {
            return None;
        }
        let value: f64 = digits.parse().ok()?;
        return Some(Ok(Node::Float(if negative { -value } else { value })));
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match digits.parse::<i128>() {
        Ok(m) => Some(to_int(m)),
        Err(_) => Some(Err(format!("integer `{token}` does not fit in 64 bits"))),
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// Prints a node as compact RON, in the form `ron::to_string` uses:
/// `Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))`. [`parse`] reads the output back to an equal
/// node.
pub fn render(node: &Node) -> String {
    let mut out = String::new();
    write_node(&mut out, node);
    out
}

fn write_node(out: &mut String, node: &Node) {
    match node {
        Node::Named { name, fields } => {
            out.push_str(name);
            out.push('(');
            for (i, (field, value)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(field);
                out.push(':');
                write_node(out, value);
            }
            out.push(')');
        }
        Node::Tuple { name, items } => {
            if let Some(name) = name {
                out.push_str(name);
            }
            out.push('(');
            write_items(out, items);
            out.push(')');
        }
        Node::List(items) => {
            out.push('[');
            write_items(out, items);
            out.push(']');
        }
        Node::Map(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(out, key);
                out.push(':');
                write_node(out, value);
            }
            out.push('}');
        }
        Node::Str(s) => out.push_str(&quote(s)),
        Node::Int(n) => out.push_str(&n.to_string()),
        Node::Float(f) => out.push_str(&format!("{f:?}")),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Ident(name) => out.push_str(name),
    }
}

fn write_items(out: &mut String, items: &[Node]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_node(out, item);
    }
}

/// A string as a RON string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A node rendered for a message, cut short if long.
fn short(node: &Node) -> String {
    const MAX: usize = 100;
    let text = render(node);
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/// Unit and side names, by index: `units[3]` is the name of unit 3.
pub use crate::rules::battle::Names;

/// Why an expected node does not match an actual one: where (`Rolled.dice[1]`; empty at the
/// top) and what (`expected 4, found 5`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Mismatch {}

/// Whether `expected` describes `actual`, by the rules in the module documentation.
pub fn matches(expected: &Node, actual: &Node, names: &Names) -> Result<(), Mismatch> {
    let path = match (expected.name(), actual.name()) {
        (Some(e), Some(a)) if e == a => e,
        _ => "",
    };
    Matcher { names }.node(expected, actual, path, None)
}

struct Matcher<'n> {
    names: &'n Names,
}

fn fail(path: &str, message: String) -> Result<(), Mismatch> {
    Err(Mismatch {
        path: path.to_string(),
        message,
    })
}

fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_string()
    } else {
        format!("{path}.{segment}")
    }
}

/// A name that stands for "any node of this name": `Victory`, `Moved()`.
fn name_only(node: &Node) -> Option<&str> {
    match node {
        Node::Ident(name) => Some(name),
        Node::Named { name, fields } if fields.is_empty() && !name.is_empty() => Some(name),
        Node::Tuple {
            name: Some(name),
            items,
        } if items.is_empty() => Some(name),
        _ => None,
    }
}

/// Whether a field's values are side ids (else unit ids).
fn holds_sides(field: &str) -> bool {
    let field = field.to_ascii_lowercase();
    field.contains("side") || field == "winner"
}

fn tuple_names_compatible(expected: Option<&str>, actual: Option<&str>) -> bool {
    match (expected, actual) {
        (Some(e), Some(a)) => e == a,
        (Some(n), None) | (None, Some(n)) => n != "Some",
        (None, None) => true,
    }
}

fn field<'a>(fields: &'a [(String, Node)], name: &str) -> Option<&'a Node> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

impl Matcher<'_> {
    fn node(
        &self,
        e: &Node,
        a: &Node,
        path: &str,
        field_name: Option<&str>,
    ) -> Result<(), Mismatch> {
        if let Some(name) = name_only(e)
            && a.name() == Some(name)
        {
            return Ok(());
        }
        // `Some(y)` and newtypes `(y)` are transparent to an expected value that is not the same
        // kind of wrapper.
        if let Node::Tuple {
            name: an,
            items: ai,
        } = a
            && let [inner] = ai.as_slice()
            && matches!(an.as_deref(), None | Some("Some"))
        {
            let same_wrapper =
                matches!(e, Node::Tuple { name: en, items: ei } if en == an && ei.len() == 1);
            if !same_wrapper {
                let result = self.node(e, inner, path, field_name);
                if result.is_err() && matches!(e, Node::Ident(_)) {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                }
                return result;
            }
        }
        match (e, a) {
            (
                Node::Named {
                    name: en,
                    fields: ef,
                },
                Node::Named {
                    name: an,
                    fields: af,
                },
            ) => {
                if !en.is_empty() && !an.is_empty() && en != an {
                    return fail(path, format!("expected `{en}(..)`, found {}", short(a)));
                }
                for (f, ev) in ef {
                    let Some(av) = field(af, f) else {
                        return fail(path, format!("field `{f}` is missing from {}", short(a)));
                    };
                    self.node(ev, av, &join(path, f), Some(f))?;
                }
                Ok(())
            }
            (
                Node::Tuple {
                    name: en,
                    items: ei,
                },
                Node::Tuple {
                    name: an,
                    items: ai,
                },
            ) => {
                if !tuple_names_compatible(en.as_deref(), an.as_deref()) {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                }
                if ei.len() > ai.len() {
                    return fail(
                        path,
                        format!(
                            "expected {} items, found only {} in {}",
                            ei.len(),
                            ai.len(),
                            short(a)
                        ),
                    );
                }
                // Items of a named tuple variant start a new context; those of `Some` or an
                // unnamed tuple stay in the enclosing field.
                let named = [en, an]
                    .iter()
                    .any(|n| n.as_deref().is_some_and(|n| n != "Some"));
                let inner_field = if named { None } else { field_name };
                // `Some` adds nothing to the path; the item of a newtype variant is named after
                // its own variant (`Sides.Spent.unit`); other items by position (`Hit.1`).
                let is_some = en.as_deref() == Some("Some");
                for (i, (ev, av)) in ei.iter().zip(ai).enumerate() {
                    let item_path = match ev.name() {
                        _ if is_some => path.to_string(),
                        Some(n) if ei.len() == 1 && ai.len() == 1 => join(path, n),
                        _ => join(path, &i.to_string()),
                    };
                    self.node(ev, av, &item_path, inner_field)?;
                }
                Ok(())
            }
            (
                Node::Tuple {
                    name: None,
                    items: ei,
                },
                Node::Named { fields: af, .. },
            ) if ei.len() == 2 => {
                let (Some(x), Some(y)) = (field(af, "x"), field(af, "y")) else {
                    return fail(path, format!("expected {}, found {}", short(e), short(a)));
                };
                self.node(&ei[0], x, &join(path, "x"), field_name)?;
                self.node(&ei[1], y, &join(path, "y"), field_name)
            }
            (Node::List(el), Node::List(al)) => {
                if el.len() != al.len() {
                    return fail(
                        path,
                        format!(
                            "expected {} elements, found {}: {}",
                            el.len(),
                            al.len(),
                            short(a)
                        ),
                    );
                }
                for (i, (ev, av)) in el.iter().zip(al).enumerate() {
                    self.node(ev, av, &format!("{path}[{i}]"), field_name)?;
                }
                Ok(())
            }
            (Node::Map(em), Node::Map(am)) => {
                for (ek, ev) in em {
                    let found = am
                        .iter()
                        .find(|(ak, _)| self.node(ek, ak, path, field_name).is_ok());
                    let Some((_, av)) = found else {
                        return fail(
                            path,
                            format!("key {} is missing from {}", short(ek), short(a)),
                        );
                    };
                    self.node(ev, av, &format!("{path}[{}]", short(ek)), field_name)?;
                }
                Ok(())
            }
            (Node::Str(s), Node::Int(n)) => self.name_of(s, *n, path, field_name),
            (Node::Str(x), Node::Str(y)) if x == y => Ok(()),
            (Node::Bool(x), Node::Bool(y)) if x == y => Ok(()),
            (Node::Ident(x), Node::Ident(y)) if x == y => Ok(()),
            (Node::Int(x), Node::Int(y)) if x == y => Ok(()),
            (Node::Float(x), Node::Float(y)) if x == y || (x.is_nan() && y.is_nan()) => Ok(()),
            (Node::Int(x), Node::Float(y)) | (Node::Float(y), Node::Int(x)) if *x as f64 == *y => {
                Ok(())
            }
            _ => fail(path, format!("expected {}, found {}", short(e), short(a))),
        }
    }

    /// An expected name against an actual id.
    fn name_of(
        &self,
        expected: &str,
        id: i64,
        path: &str,
        field_name: Option<&str>,
    ) -> Result<(), Mismatch> {
        let (table, kind) = if field_name.is_some_and(holds_sides) {
            (&self.names.sides, "side")
        } else {
            (&self.names.units, "unit")
        };
        match usize::try_from(id).ok().and_then(|i| table.get(i)) {
            Some(name) if name == expected => Ok(()),
            Some(name) => fail(
                path,
                format!(
                    "expected {}, found {kind} {id} ({})",
                    quote(expected),
                    quote(name)
                ),
            ),
            None => fail(
                path,
                format!(
                    "expected {}, found {kind} {id}, which has no name ({} {kind} names known)",
                    quote(expected),
                    table.len()
                ),
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sequences
// ---------------------------------------------------------------------------------------------

/// The actual event that came closest to an expected one that was not found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Index in the actual events.
    pub index: usize,
    /// The actual event, rendered.
    pub actual: String,
    /// Why it does not match.
    pub mismatch: Mismatch,
}

/// An expected event that could not be found in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqMismatch {
    /// Index of the expected event that was not found.
    pub index: usize,
    /// That expected event, rendered.
    pub expected: String,
    /// Index of the actual event that matched the previous expected event; the search started
    /// right after it. `None` when the search started at the first actual event.
    pub after: Option<usize>,
    /// The first actual event after `after` with the same name as the expected one, and why it
    /// does not match; `None` when there is no such event. (Boxed to keep the error small.)
    pub candidate: Option<Box<Candidate>>,
    /// An actual event at or before `after` that does match: the events are out of order.
    pub earlier: Option<usize>,
}

impl fmt::Display for SeqMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected event #{} `{}` was not found",
            self.index, self.expected
        )?;
        match self.after {
            Some(after) => write!(f, " after actual event #{after} (the previous match)")?,
            None => write!(f, " among the actual events")?,
        }
        match &self.candidate {
            Some(c) => write!(
                f,
                "\n  closest: actual event #{} `{}`\n  differs at {}",
                c.index, c.actual, c.mismatch
            )?,
            None => write!(f, "\n  no later actual event has the same name")?,
        }
        if let Some(earlier) = self.earlier {
            write!(
                f,
                "\n  note: actual event #{earlier} matches, but comes too early (out of order)"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for SeqMismatch {}

/// Checks that the `expected` events occur in `actual` in order, not necessarily contiguously.
/// Each expected event takes the first matching actual event after the previous match.
pub fn find_subsequence(
    expected: &[Node],
    actual: &[Node],
    names: &Names,
) -> Result<(), SeqMismatch> {
    let mut start = 0;
    let mut after = None;
    for (index, e) in expected.iter().enumerate() {
        let found = actual
            .iter()
            .enumerate()
            .skip(start)
            .find(|(_, a)| matches(e, a, names).is_ok());
        if let Some((j, _)) = found {
            after = Some(j);
            start = j + 1;
            continue;
        }
        let candidate = e.name().and_then(|name| {
            let (j, a) = actual
                .iter()
                .enumerate()
                .skip(start)
                .find(|(_, a)| a.name() == Some(name))?;
            let mismatch = matches(e, a, names).err()?;
            Some(Box::new(Candidate {
                index: j,
                actual: render(a),
                mismatch,
            }))
        });
        let earlier = actual
            .iter()
            .take(start)
            .position(|a| matches(e, a, names).is_ok());
        return Err(SeqMismatch {
            index,
            expected: render(e),
            after,
            candidate,
            earlier,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    fn p(text: &str) -> Node {
        match parse(text) {
            Ok(node) => node,
            Err(e) => panic!("parse of {text:?} failed: {e}"),
        }
    }

    fn named(name: &str, fields: Vec<(&str, Node)>) -> Node {
        Node::Named {
            name: name.to_string(),
            fields: fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    fn tuple(name: Option<&str>, items: Vec<Node>) -> Node {
        Node::Tuple {
            name: name.map(str::to_string),
            items,
        }
    }

    fn ident(s: &str) -> Node {
        Node::Ident(s.to_string())
    }

    fn some(n: Node) -> Node {
        tuple(Some("Some"), vec![n])
    }

    fn names() -> Names {
        Names {
            units: ["Boudica", "Caesar", "Orc 1", "Orc 2"]
                .map(String::from)
                .to_vec(),
            sides: ["Iceni", "Romans"].map(String::from).to_vec(),
        }
    }

    /// `matches` on two texts.
    fn m(expected: &str, actual: &str) -> Result<(), Mismatch> {
        matches(&p(expected), &p(actual), &names())
    }

    fn mismatch(expected: &str, actual: &str) -> Mismatch {
        match m(expected, actual) {
            Ok(()) => panic!("{expected} unexpectedly matches {actual}"),
            Err(e) => e,
        }
    }

    const ROLLED: &str = "Rolled(unit:Some(3),purpose:Attack,dice:[4,2,6],total:15,target:Some(13),success:Some(true))";

    // --- parsing -------------------------------------------------------------------------------

    #[test]
    fn parses_struct_variant() {
        assert_eq!(
            p(ROLLED),
            named(
                "Rolled",
                vec![
                    ("unit", some(Node::Int(3))),
                    ("purpose", ident("Attack")),
                    (
                        "dice",
                        Node::List(vec![Node::Int(4), Node::Int(2), Node::Int(6)])
                    ),
                    ("total", Node::Int(15)),
                    ("target", some(Node::Int(13))),
                    ("success", some(Node::Bool(true))),
                ]
            )
        );
    }

    #[test]
    fn parses_nested_structs_and_variants() {
        let cell = |x, y| named("", vec![("x", Node::Int(x)), ("y", Node::Int(y))]);
        assert_eq!(
            p("Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))"),
            named(
                "Moved",
                vec![
                    ("unit", Node::Int(2)),
                    ("from", cell(3, 4)),
                    ("to", cell(4, 4))
                ]
            )
        );
        assert_eq!(
            p("Sides(Spent(unit:1,action:Main))"),
            tuple(
                Some("Sides"),
                vec![named(
                    "Spent",
                    vec![("unit", Node::Int(1)), ("action", ident("Main"))]
                )]
            )
        );
        assert_eq!(
            p("RoundStarted(round:2)"),
            named("RoundStarted", vec![("round", Node::Int(2))])
        );
    }

    #[test]
    fn parses_unit_variants_and_none() {
        assert_eq!(p("Victory"), ident("Victory"));
        assert_eq!(p("None"), ident("None"));
        assert_eq!(p("  Victory  "), ident("Victory"));
        assert_eq!(p("r#type"), ident("type"));
    }

    #[test]
    fn parses_tuples() {
        assert_eq!(p("(1, 2)"), tuple(None, vec![Node::Int(1), Node::Int(2)]));
        assert_eq!(
            p("Hit(1, -2)"),
            tuple(Some("Hit"), vec![Node::Int(1), Node::Int(-2)])
        );
        assert_eq!(p("Some(3)"), some(Node::Int(3)));
        assert_eq!(p("(3)"), tuple(None, vec![Node::Int(3)]));
        assert_eq!(p("()"), tuple(None, vec![]));
        assert_eq!(p("Foo()"), tuple(Some("Foo"), vec![]));
        assert_eq!(p("Foo (1,)"), tuple(Some("Foo"), vec![Node::Int(1)]));
        assert_eq!(p("((1,2),[3])").to_string(), "((1,2),[3])");
    }

    #[test]
    fn parses_lists_and_maps() {
        assert_eq!(p("[]"), Node::List(vec![]));
        assert_eq!(p("[1, 2, ]"), Node::List(vec![Node::Int(1), Node::Int(2)]));
        assert_eq!(p("{}"), Node::Map(vec![]));
        assert_eq!(
            p(r#"{"a": 1, Attack: [true], (x:1,y:2): None,}"#),
            Node::Map(vec![
                (Node::Str("a".into()), Node::Int(1)),
                (ident("Attack"), Node::List(vec![Node::Bool(true)])),
                (
                    named("", vec![("x", Node::Int(1)), ("y", Node::Int(2))]),
                    ident("None")
                ),
            ])
        );
    }

    #[test]
    fn parses_strings_and_chars() {
        assert_eq!(p(r#""Orc 1""#), Node::Str("Orc 1".into()));
        assert_eq!(
            p(r#""a\"b\\c\n\t\u{e9}\x41""#),
            Node::Str("a\"b\\c\n\té\x41".into())
        );
        assert_eq!(
            p("\"line \\\n    continued\""),
            Node::Str("line continued".into())
        );
        assert_eq!(
            p(r####"r#"raw "quoted" \n"#"####),
            Node::Str("raw \"quoted\" \\n".into())
        );
        assert_eq!(p(r#"r"plain""#), Node::Str("plain".into()));
        assert_eq!(p("'x'"), Node::Str("x".into()));
        assert_eq!(p(r"'\''"), Node::Str("'".into()));
        assert_eq!(p(r#"b"by\x00""#), Node::Str("by\0".into()));
        assert_eq!(p("\"é ünï\""), Node::Str("é ünï".into()));
    }

    #[test]
    fn parses_numbers_and_bools() {
        assert_eq!(p("0"), Node::Int(0));
        assert_eq!(p("-17"), Node::Int(-17));
        assert_eq!(p("+5"), Node::Int(5));
        assert_eq!(p("1_000"), Node::Int(1000));
        assert_eq!(p("0x1F"), Node::Int(31));
        assert_eq!(p("-0b101"), Node::Int(-5));
        assert_eq!(p("0o17"), Node::Int(15));
        assert_eq!(p("7u8"), Node::Int(7));
        assert_eq!(p("-9223372036854775808"), Node::Int(i64::MIN));
        assert_eq!(p("9223372036854775807"), Node::Int(i64::MAX));
        assert_eq!(p("1.5"), Node::Float(1.5));
        assert_eq!(p("-0.25"), Node::Float(-0.25));
        assert_eq!(p("1e3"), Node::Float(1000.0));
        assert_eq!(p("2.5E-1"), Node::Float(0.25));
        assert_eq!(p("3f32"), Node::Float(3.0));
        assert_eq!(p(".5"), Node::Float(0.5));
        assert_eq!(p("inf"), Node::Float(f64::INFINITY));
        assert_eq!(p("-inf"), Node::Float(f64::NEG_INFINITY));
        assert!(matches!(p("NaN"), Node::Float(f) if f.is_nan()));
        assert_eq!(p("true"), Node::Bool(true));
        assert_eq!(p("false"), Node::Bool(false));
        assert_eq!(p("[1,-2]"), Node::List(vec![Node::Int(1), Node::Int(-2)]));
    }

    #[test]
    fn skips_whitespace_and_comments() {
        let text = "// the first attack\nRolled( /* who */ unit: Some(3), // trailing\n dice: [4, /* nested /* ok */ */ 2],\n)";
        assert_eq!(
            p(text),
            named(
                "Rolled",
                vec![
                    ("unit", some(Node::Int(3))),
                    ("dice", Node::List(vec![Node::Int(4), Node::Int(2)]))
                ]
            )
        );
    }

    fn err(text: &str) -> ParseError {
        match parse(text) {
            Ok(node) => panic!("{text:?} unexpectedly parsed as {node:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn reports_errors_with_positions() {
        let e = err("Moved(unit:2,\n  from: (x:3 y:4))");
        assert_eq!((e.line, e.col), (2, 14), "{e}");
        assert!(e.message.contains("expected `,` or `)`"), "{e}");
        assert_eq!(e.offset, 27);

        let e = err("Said(text: \"unclosed)");
        assert_eq!((e.line, e.col, e.offset), (1, 12, 11));
        assert_eq!(e.message, "unterminated string");
        assert_eq!(e.to_string(), "1:12: unterminated string");

        let e = err("Victory Defeat");
        assert!(e.message.contains("after the value"), "{e}");
        assert_eq!(e.col, 9);

        let e = err("[1, 2");
        assert!(e.message.contains("unclosed `[`"), "{e}");
        assert_eq!(e.offset, 0);

        assert!(err("").message.contains("end of input"));
        assert!(err("   // only a comment").message.contains("end of input"));
        assert!(
            err("/* open")
                .message
                .contains("unterminated block comment")
        );
        assert!(err("99999999999999999999").message.contains("64 bits"));
        assert!(err("0xFFFFFFFFFFFFFFFF").message.contains("64 bits"));
        assert!(err("12abc").message.contains("invalid number"));
        assert!(err("1.2.3").message.contains("invalid number"));
        assert!(err("-").message.contains("invalid number"));
        assert!(err("-foo").message.contains("invalid number"));
        assert!(err(r#""\q""#).message.contains("unknown escape"));
        assert!(err(r#""\u{110000}""#).message.contains("\\u{"));
        assert!(err("''").message.contains("one character"));
        assert!(err("'ab'").message.contains("one character"));
        assert!(err("Foo(a: 1, 2)").message.contains("field name"));
        assert!(err("{1 2}").message.contains("map key"));
        assert!(err("@").message.contains("unexpected `@`"));
        assert!(err("r#\"raw").message.contains("raw string"));
        let e = err("[\"é\",\n \"èè\" @]");
        assert_eq!((e.line, e.col), (2, 7), "{e}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for open in ["[", "(", "Some(", "{", "(a:"] {
            let text = open.repeat(100_000);
            assert!(err(&text).message.contains("nesting deeper"), "{open}");
        }
        let ok = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&ok).is_ok());
    }

    #[derive(Serialize)]
    struct Cell {
        x: i32,
        y: i32,
    }

    #[derive(Serialize)]
    enum Purpose {
        Attack,
    }

    #[derive(Serialize)]
    enum Action {
        Main,
    }

    #[derive(Serialize)]
    enum SideEvent {
        Spent { unit: u16, action: Action },
    }

    #[derive(Serialize)]
    struct Id(u16);

    #[derive(Serialize)]
    enum Event {
        RoundStarted {
            round: u32,
        },
        Moved {
            unit: u16,
            from: Cell,
            to: Cell,
        },
        Rolled {
            unit: Option<u16>,
            purpose: Purpose,
            dice: Vec<u8>,
            total: i32,
            target: Option<i32>,
            success: Option<bool>,
        },
        Victory,
        Sides(SideEvent),
        Said {
            unit: Id,
            text: String,
            mood: char,
        },
        Scaled(u8, f32, ()),
        Path {
            cells: Vec<Cell>,
            by_kind: BTreeMap<String, i64>,
            none: Option<u8>,
        },
    }

    fn real_events() -> Vec<Event> {
        vec![
            Event::RoundStarted { round: 2 },
            Event::Moved {
                unit: 2,
                from: Cell { x: 3, y: 4 },
                to: Cell { x: 4, y: 4 },
            },
            Event::Rolled {
                unit: Some(3),
                purpose: Purpose::Attack,
                dice: vec![4, 2, 6],
                total: 15,
                target: Some(13),
                success: Some(true),
            },
            Event::Victory,
            Event::Sides(SideEvent::Spent {
                unit: 1,
                action: Action::Main,
            }),
            Event::Said {
                unit: Id(0),
                text: "He said \"charge\"\n".into(),
                mood: 'é',
            },
            Event::Scaled(3, -1.5, ()),
            Event::Path {
                cells: vec![Cell { x: 0, y: -1 }, Cell { x: 1, y: 0 }],
                by_kind: BTreeMap::from([("hits".to_string(), 2), ("misses".to_string(), -1)]),
                none: None,
            },
        ]
    }

    #[test]
    fn reads_what_ron_writes() {
        let texts: Vec<String> = real_events()
            .iter()
            .map(|e| ron::to_string(e).expect("serializes"))
            .collect();
        assert_eq!(texts[0], "RoundStarted(round:2)");
        assert_eq!(texts[1], "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))");
        assert_eq!(texts[2], ROLLED);
        assert_eq!(texts[3], "Victory");
        assert_eq!(texts[4], "Sides(Spent(unit:1,action:Main))");
        for text in &texts {
            let node = p(text);
            assert_eq!(parse(&render(&node)), Ok(node.clone()), "{text}");
            assert_eq!(matches(&node, &node, &names()), Ok(()), "{text}");
        }
        // Texts without escapes render back exactly as ron wrote them.
        for text in [
            &texts[0], &texts[1], &texts[2], &texts[3], &texts[4], &texts[6], &texts[7],
        ] {
            assert_eq!(&render(&p(text)), text);
        }
        assert_eq!(
            p(&texts[5]),
            named(
                "Said",
                vec![
                    ("unit", tuple(None, vec![Node::Int(0)])),
                    ("text", Node::Str("He said \"charge\"\n".into())),
                    ("mood", Node::Str("é".into())),
                ]
            )
        );
        assert_eq!(
            m(
                r#"Said(unit: "Boudica", text: "He said \"charge\"\n")"#,
                &texts[5]
            ),
            Ok(())
        );
        assert_eq!(m("Scaled(3, -1.5, ())", &texts[6]), Ok(()));
        assert_eq!(
            m(
                r#"Path(cells: [(0, -1), (1, 0)], by_kind: {"hits": 2})"#,
                &texts[7]
            ),
            Ok(())
        );
    }

    #[test]
    fn render_is_compact_ron() {
        let text = r#"  Foo ( a : [ 1 , 2.5 , "x\"y" ] , b : { 'k' : ( ) } , c : Bar ( None , -inf , NaN ) )  "#;
        assert_eq!(
            render(&p(text)),
            r#"Foo(a:[1,2.5,"x\"y"],b:{"k":()},c:Bar(None,-inf,NaN))"#
        );
        assert_eq!(
            render(&Node::Str("tab\tbell\u{7}".into())),
            r#""tab\tbell\u{7}""#
        );
        assert_eq!(render(&Node::Float(1e20)), "1e20");
        assert_eq!(render(&Node::Float(2.0)), "2.0");
    }

    // --- matching ------------------------------------------------------------------------------

    #[test]
    fn identical_events_match() {
        assert_eq!(m(ROLLED, ROLLED), Ok(()));
        assert_eq!(m("Victory", "Victory"), Ok(()));
    }

    #[test]
    fn omitted_fields_are_ignored() {
        assert_eq!(m("Rolled(dice: [4, 2, 6])", ROLLED), Ok(()));
        assert_eq!(m("Rolled(total: 15, success: Some(true))", ROLLED), Ok(()));
        assert_eq!(m("Rolled()", ROLLED), Ok(()));
        assert_eq!(m("Rolled", ROLLED), Ok(()));
        assert_eq!(
            m(
                "Moved(to: (x: 4))",
                "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))"
            ),
            Ok(())
        );
    }

    #[test]
    fn listed_fields_must_exist_and_match() {
        let e = mismatch("Rolled(bonus: 2)", ROLLED);
        assert_eq!(e.path, "Rolled");
        assert!(
            e.message
                .starts_with("field `bonus` is missing from Rolled("),
            "{e}"
        );

        let e = mismatch("Rolled(total: 14)", ROLLED);
        assert_eq!(e.to_string(), "Rolled.total: expected 14, found 15");

        let e = mismatch("Rolled(purpose: Damage)", ROLLED);
        assert_eq!(
            e.to_string(),
            "Rolled.purpose: expected Damage, found Attack"
        );

        let e = mismatch(
            "Moved(to: (x: 5))",
            "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))",
        );
        assert_eq!(e.to_string(), "Moved.to.x: expected 5, found 4");
    }

    #[test]
    fn names_must_agree() {
        let e = mismatch("Moved(unit: 3)", ROLLED);
        assert_eq!(e.path, "");
        assert!(
            e.message.starts_with("expected `Moved(..)`, found Rolled("),
            "{e}"
        );
        assert!(m("Victory", "Defeat").is_err());
        assert!(m("Victory", "Victory(side: 1)").is_ok());
        assert!(m("Moved", "Victory").is_err());
        assert!(m("Hit(1)", "Miss(1)").is_err());
        // Plain structs carry no name, so a name on one side is not checked against them.
        assert!(m("(x: 1)", "Cell(x: 1, y: 2)").is_ok());
        assert!(m("Cell(x: 1)", "(x: 1, y: 2)").is_ok());
    }

    #[test]
    fn lists_are_exact() {
        assert_eq!(m("Rolled(dice: [4, 2, 6])", ROLLED), Ok(()));
        let e = mismatch("Rolled(dice: [4, 5, 6])", ROLLED);
        assert_eq!(e.path, "Rolled.dice[1]");
        assert_eq!(e.message, "expected 5, found 2");
        let e = mismatch("Rolled(dice: [4, 2])", ROLLED);
        assert_eq!(
            e.to_string(),
            "Rolled.dice: expected 2 elements, found 3: [4,2,6]"
        );
        assert!(m("Rolled(dice: [4, 2, 6, 1])", ROLLED).is_err());
        assert!(m("Rolled(dice: [])", ROLLED).is_err());
        assert!(m("Rolled(dice: [6, 2, 4])", ROLLED).is_err());
    }

    #[test]
    fn tuples_match_by_position_and_may_be_shorter() {
        let actual = "Hit(1, 2, 3)";
        assert_eq!(m("Hit(1, 2, 3)", actual), Ok(()));
        assert_eq!(m("Hit(1)", actual), Ok(()));
        let e = mismatch("Hit(1, 3)", actual);
        assert_eq!(e.to_string(), "Hit.1: expected 3, found 2");
        let e = mismatch("Hit(1, 2, 3, 4)", actual);
        assert_eq!(e.message, "expected 4 items, found only 3 in Hit(1,2,3)");
        assert_eq!(m("(1, Attack)", "(1, Attack, 9)"), Ok(()));
    }

    #[test]
    fn nested_variants_get_readable_paths() {
        let actual = "Sides(Spent(unit:1,action:Main))";
        assert_eq!(m("Sides(Spent(action: Main))", actual), Ok(()));
        assert_eq!(m("Sides(Spent)", actual), Ok(()));
        assert_eq!(m(r#"Sides(Spent(unit: "Caesar"))"#, actual), Ok(()));
        let e = mismatch("Sides(Spent(unit: 2))", actual);
        assert_eq!(e.to_string(), "Sides.Spent.unit: expected 2, found 1");
        let e = mismatch("Sides(Gained(unit: 1))", actual);
        assert_eq!(e.path, "Sides.Gained");
        assert!(
            e.message.starts_with("expected `Gained(..)`, found Spent("),
            "{e}"
        );
    }

    #[test]
    fn some_may_be_written_or_left_out() {
        assert_eq!(m("Rolled(target: Some(13))", ROLLED), Ok(()));
        assert_eq!(m("Rolled(target: 13)", ROLLED), Ok(()));
        assert_eq!(m("Rolled(success: true)", ROLLED), Ok(()));
        assert_eq!(m("(a: Attack)", "(a: Some(Attack))"), Ok(()));
        assert_eq!(m("(a: Some(Some(1)))", "(a: Some(Some(1)))"), Ok(()));
        assert_eq!(m("(a: 1)", "(a: Some(Some(1)))"), Ok(()));
        assert_eq!(m("(a: None)", "(a: None)"), Ok(()));

        let e = mismatch("Rolled(target: 12)", ROLLED);
        assert_eq!(e.to_string(), "Rolled.target: expected 12, found 13");
        let e = mismatch("Rolled(target: None)", ROLLED);
        assert_eq!(
            e.to_string(),
            "Rolled.target: expected None, found Some(13)"
        );
        let e = mismatch("(a: Some(1))", "(a: None)");
        assert_eq!(e.to_string(), "a: expected Some(1), found None");
        let e = mismatch("(a: Some(1))", "(a: 1)");
        assert_eq!(e.to_string(), "a: expected Some(1), found 1");
        let e = mismatch("(a: Some(1))", "(a: (1))");
        assert_eq!(e.to_string(), "a: expected Some(1), found 1");
        assert!(m("(a: Attack)", "(a: Some(Damage))").is_err());
    }

    #[test]
    fn newtypes_are_transparent() {
        assert_eq!(m("(unit: 3)", "(unit: (3))"), Ok(()));
        assert_eq!(m("(unit: (3))", "(unit: (3))"), Ok(()));
        assert_eq!(m(r#"(unit: "Orc 2")"#, "(unit: (3))"), Ok(()));
        assert!(m("(unit: 4)", "(unit: (3))").is_err());
    }

    #[test]
    fn numbers_compare_exactly() {
        assert_eq!(m("2", "2"), Ok(()));
        assert_eq!(m("2", "2.0"), Ok(()));
        assert_eq!(m("2.0", "2"), Ok(()));
        assert_eq!(m("0.5", "0.5"), Ok(()));
        assert_eq!(m("NaN", "NaN"), Ok(()));
        assert_eq!(m("-inf", "-inf"), Ok(()));
        assert!(m("0.5", "0.50000001").is_err());
        assert!(m("2", "2.5").is_err());
        assert!(m("2", "-2").is_err());
        assert!(m("1", "true").is_err());
        assert!(m("\"1\"", "\"2\"").is_err());
        assert_eq!(mismatch("0.5", "0.25").message, "expected 0.5, found 0.25");
    }

    #[test]
    fn unit_names_resolve_by_index() {
        assert_eq!(m(r#"Moved(unit: "Orc 1")"#, "Moved(unit:2)"), Ok(()));
        assert_eq!(m(r#"Rolled(unit: "Orc 2")"#, ROLLED), Ok(()));
        assert_eq!(m(r#"Rolled(unit: Some("Orc 2"))"#, ROLLED), Ok(()));
        assert_eq!(
            m(
                r#"Hit(attacker: "Boudica", target: "Caesar")"#,
                "Hit(attacker:0,target:1)"
            ),
            Ok(())
        );
        assert_eq!(
            m(r#"Saw(units: ["Caesar", "Boudica"])"#, "Saw(units:[1,0])"),
            Ok(())
        );
        assert_eq!(
            m(
                r#"Paired(pair: ("Caesar", "Boudica"))"#,
                "Paired(pair:(1,0))"
            ),
            Ok(())
        );
        assert_eq!(m(r#""Caesar""#, "1"), Ok(()));

        let e = mismatch(r#"Moved(unit: "Boudica")"#, "Moved(unit:2)");
        assert_eq!(
            e.to_string(),
            r#"Moved.unit: expected "Boudica", found unit 2 ("Orc 1")"#
        );
        let e = mismatch(r#"Moved(unit: "Boudica")"#, "Moved(unit:9)");
        assert_eq!(
            e.to_string(),
            r#"Moved.unit: expected "Boudica", found unit 9, which has no name (4 unit names known)"#
        );
        assert!(m(r#"(unit: "Boudica")"#, "(unit: -1)").is_err());
        // A name never matches a string that happens to be equal to the index.
        assert!(m(r#"(unit: "2")"#, "(unit: 2)").is_err());
    }

    #[test]
    fn side_names_resolve_in_side_fields() {
        assert_eq!(
            m(r#"Victory(winner: "Romans")"#, "Victory(winner:1)"),
            Ok(())
        );
        assert_eq!(
            m(r#"Victory(winner: "Romans")"#, "Victory(winner:Some(1))"),
            Ok(())
        );
        assert_eq!(
            m(r#"TurnStarted(side: "Iceni")"#, "TurnStarted(side:0)"),
            Ok(())
        );
        assert_eq!(
            m(r#"Joined(acting_side: "Romans")"#, "Joined(acting_side:1)"),
            Ok(())
        );
        assert_eq!(
            m(r#"Met(Sides: ["Iceni", "Romans"])"#, "Met(Sides:[0,1])"),
            Ok(())
        );
        // Unit 1 is Caesar, side 1 is Romans: the field decides.
        assert!(m(r#"Victory(winner: "Caesar")"#, "Victory(winner:1)").is_err());
        assert!(m(r#"Moved(unit: "Romans")"#, "Moved(unit:1)").is_err());
        let e = mismatch(r#"TurnStarted(side: "Romans")"#, "TurnStarted(side:0)");
        assert_eq!(e.message, r#"expected "Romans", found side 0 ("Iceni")"#);
        let e = mismatch(r#"TurnStarted(side: "Romans")"#, "TurnStarted(side:5)");
        assert_eq!(
            e.message,
            r#"expected "Romans", found side 5, which has no name (2 side names known)"#
        );
        // Inside a named tuple variant the field context starts over.
        assert_eq!(
            m(r#"(side: Joined("Caesar"))"#, "(side: Joined(1))"),
            Ok(())
        );
    }

    #[test]
    fn cell_shorthand() {
        let moved = "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))";
        assert_eq!(m("Moved(from: (3, 4), to: (4, 4))", moved), Ok(()));
        assert_eq!(m("Moved(from: (x: 3, y: 4))", moved), Ok(()));
        let e = mismatch("Moved(to: (4, 5))", moved);
        assert_eq!(e.to_string(), "Moved.to.y: expected 5, found 4");
        assert_eq!(
            m(
                "Path(cells: [(0, 0), (1, 0)])",
                "Path(cells:[(x:0,y:0),(x:1,y:0)])"
            ),
            Ok(())
        );
        assert_eq!(m("(at: (3, 4))", "(at: Some((x:3,y:4)))"), Ok(()));
        assert_eq!(m("(3, 4)", "(3, 4)"), Ok(()));
        let e = mismatch("(at: (3, 4))", "(at: (q:3,r:4))");
        assert_eq!(e.to_string(), "at: expected (3,4), found (q:3,r:4)");
        assert!(m("(at: (3, 4, 5))", "(at: (x:3,y:4))").is_err());
    }

    #[test]
    fn maps_are_a_subset() {
        let actual = r#"Tally(by_kind: {"hits": 2, "misses": 1})"#;
        assert_eq!(m(r#"Tally(by_kind: {"misses": 1})"#, actual), Ok(()));
        assert_eq!(m("Tally(by_kind: {})", actual), Ok(()));
        let e = mismatch(r#"Tally(by_kind: {"hits": 3})"#, actual);
        assert_eq!(
            e.to_string(),
            r#"Tally.by_kind["hits"]: expected 3, found 2"#
        );
        let e = mismatch(r#"Tally(by_kind: {"crits": 0})"#, actual);
        assert!(e.message.starts_with(r#"key "crits" is missing"#), "{e}");
        assert_eq!(m(r#"(hp: {"Caesar": 3})"#, "(hp: {1: 3, 0: 5})"), Ok(()));
    }

    #[test]
    fn kinds_must_agree() {
        for (e, a) in [
            ("[1]", "(1, 2)"),
            ("(a: 1)", "[1]"),
            ("Foo(1)", "Foo(a: 1)"),
            ("Foo(a: 1)", "Foo(1)"),
            ("true", "Attack"),
            ("\"Attack\"", "Attack"),
            ("{1: 2}", "[(1, 2)]"),
        ] {
            assert!(m(e, a).is_err(), "{e} vs {a}");
        }
        assert_eq!(
            mismatch("[1]", "(1,2)").to_string(),
            "expected [1], found (1,2)"
        );
    }

    #[test]
    fn long_actuals_are_shortened_in_messages() {
        let long = format!("Big(list:[{}])", vec!["1"; 200].join(","));
        let e = mismatch("Big(other: 1)", &long);
        assert!(e.message.ends_with('…'), "{e}");
        assert!(e.message.chars().count() < 200);
    }

    // --- sequences -----------------------------------------------------------------------------

    fn seq(texts: &[&str]) -> Vec<Node> {
        texts.iter().map(|t| p(t)).collect()
    }

    fn log() -> Vec<Node> {
        seq(&[
            "RoundStarted(round:1)",
            "Moved(unit:0,from:(x:0,y:0),to:(x:1,y:0))",
            "Rolled(unit:Some(0),purpose:Attack,dice:[4],total:4,target:Some(10),success:Some(false))",
            "Moved(unit:1,from:(x:5,y:5),to:(x:4,y:5))",
            ROLLED,
            "Damaged(unit:0,amount:3)",
            "Victory(winner:1)",
        ])
    }

    #[test]
    fn subsequence_in_order_with_gaps() {
        let names = names();
        let expected = seq(&[
            r#"Moved(unit: "Caesar")"#,
            "Rolled(total: 15)",
            r#"Victory(winner: "Romans")"#,
        ]);
        assert_eq!(find_subsequence(&expected, &log(), &names), Ok(()));
        assert_eq!(find_subsequence(&[], &log(), &names), Ok(()));
        assert_eq!(find_subsequence(&log(), &log(), &names), Ok(()));
        // The same description twice needs two actual events.
        assert_eq!(
            find_subsequence(&seq(&["Moved", "Moved"]), &log(), &names),
            Ok(())
        );
        let e = find_subsequence(&seq(&["Moved", "Moved", "Moved"]), &log(), &names)
            .expect_err("only two moves");
        assert_eq!((e.index, e.after, e.candidate), (2, Some(3), None));
    }

    #[test]
    fn subsequence_reports_out_of_order_events() {
        let expected = seq(&["Rolled(total: 15)", r#"Moved(unit: "Boudica")"#]);
        let e = find_subsequence(&expected, &log(), &names()).expect_err("out of order");
        assert_eq!(e.index, 1);
        assert_eq!(e.expected, r#"Moved(unit:"Boudica")"#);
        assert_eq!(e.after, Some(4));
        assert_eq!(e.candidate, None);
        assert_eq!(e.earlier, Some(1));
        assert_eq!(
            e.to_string(),
            "expected event #1 `Moved(unit:\"Boudica\")` was not found after actual event #4 (the previous match)\n  \
             no later actual event has the same name\n  \
             note: actual event #1 matches, but comes too early (out of order)"
        );
    }

    #[test]
    fn subsequence_reports_the_closest_candidate() {
        let expected = seq(&["RoundStarted", "Rolled(dice: [4, 5, 6])"]);
        let e = find_subsequence(&expected, &log(), &names()).expect_err("no such roll");
        assert_eq!((e.index, e.after, e.earlier), (1, Some(0), None));
        let c = e.candidate.clone().expect("a candidate");
        assert_eq!(c.index, 2);
        assert!(c.actual.starts_with("Rolled(unit:Some(0)"));
        assert_eq!(
            c.mismatch.to_string(),
            "Rolled.dice: expected 3 elements, found 1: [4]"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "expected event #1 `Rolled(dice:[4,5,6])` was not found after actual event #0 (the previous match)\n  \
                 closest: actual event #2 `{}`\n  \
                 differs at Rolled.dice: expected 3 elements, found 1: [4]",
                c.actual
            )
        );
    }

    #[test]
    fn subsequence_failure_at_the_start() {
        let e = find_subsequence(&seq(&["Defeat"]), &log(), &names()).expect_err("no defeat");
        assert_eq!(
            (e.index, e.after, e.candidate.as_ref(), e.earlier),
            (0, None, None, None)
        );
        assert!(
            e.to_string()
                .starts_with("expected event #0 `Defeat` was not found among the actual events")
        );
        let e = find_subsequence(&seq(&["RoundStarted(round: 1)"]), &[], &names())
            .expect_err("empty log");
        assert_eq!(e.index, 0);
        let e = find_subsequence(&seq(&["Damaged(amount: 4)"]), &log(), &names())
            .expect_err("wrong amount");
        let c = e.candidate.expect("candidate");
        assert_eq!(
            (c.index, c.mismatch.to_string()),
            (5, "Damaged.amount: expected 4, found 3".to_string())
        );
    }

    // --- robustness ----------------------------------------------------------------------------

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let texts = [
            ROLLED,
            "Moved(unit:2,from:(x:3,y:4),to:(x:4,y:4))",
            r####"Said(text: "a\"b\u{e9}\x41", raw: r#"x"#, c: '\'', map: {"k": [1.5e3, -inf, 0x1F]}) // end"####,
            "/* c */ Sides(Spent(unit:1,action:Main))",
        ];
        for text in texts {
            assert!(parse(text).is_ok(), "{text}");
            for (end, _) in text.char_indices() {
                let prefix = &text[..end];
                if let Err(e) = parse(prefix) {
                    assert!(e.offset <= prefix.len());
                    assert!(e.line >= 1 && e.col >= 1);
                }
            }
        }
    }

    fn arb_node() -> impl Strategy<Value = Node> {
        let name = "[A-Z][a-z]{0,6}";
        let leaf = prop_oneof![
            any::<i64>().prop_map(Node::Int),
            any::<f64>()
                .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
                .prop_map(Node::Float),
            any::<bool>().prop_map(Node::Bool),
            any::<String>().prop_map(Node::Str),
            name.prop_map(Node::Ident),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Node::List),
                (
                    proptest::option::of(name),
                    proptest::collection::vec(inner.clone(), 0..5)
                )
                    .prop_map(|(name, items)| Node::Tuple { name, items }),
                (
                    prop_oneof![Just(String::new()), name.prop_map(String::from)],
                    proptest::collection::btree_map("[a-z_][a-z0-9_]{0,5}", inner.clone(), 1..5)
                )
                    .prop_map(|(name, fields)| Node::Named {
                        name,
                        fields: fields.into_iter().collect()
                    }),
                // At most one entry: with several, an expected key can match an earlier actual
                // key (`1` and `Some(1)`), so a map need not match itself.
                proptest::collection::vec((inner.clone(), inner), 0..2).prop_map(Node::Map),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn parse_never_panics_on_any_string(s in any::<String>()) {
            if let Err(e) = parse(&s) {
                prop_assert!(e.offset <= s.len());
                prop_assert!(s.is_char_boundary(e.offset));
            }
        }

        #[test]
        fn parse_never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse(&text);
        }

        #[test]
        fn parse_never_panics_on_ron_like_text(s in "[\\[\\](){}:,'\"#r/*\\\\ a-zA-Z0-9_.+\\-éxbuSomeN\n]{0,120}") {
            if let Ok(node) = parse(&s) {
                // Whatever parses renders to text that parses back to the same tree.
                let again = render(&node);
                prop_assert_eq!(render(&p(&again)), again);
            }
        }

        #[test]
        fn render_then_parse_is_identity(node in arb_node()) {
            let text = render(&node);
            prop_assert_eq!(parse(&text), Ok(node.clone()));
            prop_assert_eq!(matches(&node, &node, &Names::default()), Ok(()));
        }

        #[test]
        fn matching_never_panics(e in arb_node(), a in arb_node()) {
            let _ = matches(&e, &a, &names());
            let _ = find_subsequence(&[e.clone(), a.clone()], &[a, e], &names());
        }
    }
}
