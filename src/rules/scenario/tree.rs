//! The value tree the scenario matcher works on, and its RON reader and printer.
//!
//! Expected events are written by hand in a scenario file; [`parse`] reads them into a [`Node`]
//! tree (a small, tolerant parser for the subset of RON that events use). Actual events are
//! turned into the same tree straight from their `Serialize` impl by
//! [`to_tree`](super::to_tree::to_tree). [`render`] prints a node back as compact RON for
//! failure messages. The matching rules live in [`matcher`](super::matcher).
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
pub const MAX_DEPTH: usize = 128;

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
pub(super) fn quote(s: &str) -> String {
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
pub(super) fn short(node: &Node) -> String {
    const MAX: usize = 100;
    let text = render(node);
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests;
