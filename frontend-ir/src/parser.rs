//! The parser of the text format (`.gir`).
//!
//! [`parse_module`] reads the text that [`crate::write`] prints. For canonical text (values
//! numbered `%0, %1, ...` and blocks `block0, block1, ...` in layout order, as the printer writes
//! them), printing the parsed module gives back exactly the same text: `print(parse(x)) == x`.
//! Non-canonical text (other names, default flags spelled out, comments, other spacing) parses
//! to the same module as its canonical form.
//!
//! # Lexical structure
//!
//! `;` starts a comment that runs to the end of the line. Whitespace only separates tokens.
//! Tokens are words `[A-Za-z_][A-Za-z0-9_.]*` (an opcode with its suffix, `iconst.i32`, is one
//! word), values `%` followed by digits or a word, functions `@` followed by a word, numbers
//! (an optional `-`, then decimal, `0x` hexadecimal or Rust float syntax such as `1e-7`), and the
//! punctuation `( ) { } [ ] < > , : = - ->`.
//!
//! # Grammar
//!
//! ```text
//! module    = { function } ;
//! function  = ( "kernel" | "func" ) FUNC "(" [ type { "," type } ] ")" [ "->" type ]
//!             { kattr } "{" { slot } { block } "}" ;
//! kattr     = "reqd_workgroup_size" "(" UINT "," UINT "," UINT ")"     (kernels only,
//!           | "max_workgroup_size" "(" UINT ")" | "dynamic_shared"      any order, once each)
//!           | "waves_per_simd" "(" UINT ")" ;
//! slot      = NAME "=" ( "shared" | "private" ) UINT "align" UINT ;
//! block     = NAME [ "(" [ param { "," param } ] ")" ] ":" { inst } ;
//! param     = VALUE ":" type ;
//! inst      = [ VALUE "=" ] op ;
//! op        = "iconst." type INT | "fconst." type FLOAT
//!           | UNARYOP VALUE | BINARYOP VALUE "," VALUE
//!           | "fma" VALUE "," VALUE "," VALUE | "select" VALUE "," VALUE "," VALUE
//!           | "icmp" INTCC VALUE "," VALUE | "fcmp" FLOATCC VALUE "," VALUE
//!           | CONVOP "." type VALUE | "ptradd" VALUE "," VALUE | "addrspacecast." type VALUE
//!           | "slot_addr" NAME | "dyn_shared_addr"
//!           | ( "local_id" | "group_id" | "group_size" | "num_groups" ) "." DIM
//!           | "lane_id" | "wave_size"
//!           | "load." type VALUE { memflag } | "store" VALUE "," VALUE { memflag }
//!           | "atomic_rmw." RMWOP VALUE "," VALUE sync
//!           | "atomic_cas" VALUE "," VALUE "," VALUE sync
//!           | "atomic_load." type VALUE sync | "atomic_store" VALUE "," VALUE sync
//!           | "fence" sync | "barrier"
//!           | "ballot" VALUE | "readfirstlane" VALUE | "shuffle" VALUE "," VALUE
//!           | "reduce." REDUCEOP VALUE
//!           | "call" FUNC "(" [ VALUE { "," VALUE } ] ")"
//!           | "jump" target | "brif" VALUE "," target "," target
//!           | "switch" VALUE "," target "," "[" [ case { "," case } ] "]"
//!           | "ret" [ VALUE ] | "unreachable" ;
//! target    = NAME [ "(" [ VALUE { "," VALUE } ] ")" ] ;
//! case      = INT ":" target ;
//! memflag   = "align" UINT | "volatile" | "nontemporal"
//!           | "visible" "(" SCOPE ")"        (loads only)
//!           | "available" "(" SCOPE ")" ;    (stores only; flags in any order, once each)
//! sync      = ORDERING SCOPE [ "av_none" ] ;
//! type      = "i1" | "i8" | "i16" | "i32" | "i64" | "f16" | "f32" | "f64"
//!           | "ptr" "<" ( "global" | "shared" | "constant" | "private" | "flat" ) ">" ;
//! INT       = [ "-" ] ( DECIMAL | "0x" HEX ) | "true" | "false" ;   (true/false for i1)
//! FLOAT     = RUST_FLOAT | "inf" | "-inf" | "nan" [ ":" "0x" HEX ] ;
//! ```
//!
//! The opcode, condition, ordering and scope names are those of the instruction tables
//! ([`UnaryOp::from_name`](crate::UnaryOp::from_name) and so on). An integer constant must fit
//! its type's width as a signed or an unsigned number and is stored masked to the width. A float
//! constant is stored as bits: `f16` is read as an `f32` and rounded to `f16`; `nan:0xBITS`
//! gives the exact bits of a NaN. A load or store without `align` is aligned to the size of the
//! accessed type. Switch case values are masked to the switched value's type.
//!
//! # Names and types
//!
//! Values may be used before their definition (in loops, and wherever the layout does not
//! follow dominance); at the end of a function every used value must be defined. The parser
//! does not type-check: it computes each instruction's result type with
//! [`Function::result_type`] and leaves type errors to the [`crate::verifier`]. Function headers
//! are read before the bodies, so a call may name a function defined later in the file. Each
//! function is [canonicalized](Function::canonicalize) after parsing, so entity numbers follow
//! the layout order. Every error is a [`ParseError`] with the position of the offending token;
//! no input makes the parser panic, and it runs in time linear in the input.

use crate::entities::{Block, FuncId, Inst, Slot, Value};
use crate::function::{FuncKind, Function, KernelAttrs, Module, Signature, SlotData, ValueData, ValueDef};
use crate::instructions::{
    BinaryOp, BlockCall, ConvOp, Dim, FloatCC, InstData, IntCC, MemFlags, Ordering, ReduceOp, RmwOp, Scope, Special,
    SyncInfo, UnaryOp,
};
use crate::srcloc::SourceLoc;
use crate::types::{AddrSpace, Type};
use cranelift_entity::EntityRef;
use smallvec::SmallVec;
use std::collections::HashMap;

/// A syntax error in `.gir` text, with the position and length of the offending token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1, counted in characters.
    pub column: u32,
    /// The length of the offending text in characters (at least 1).
    pub len: u32,
    /// What was expected and what was found.
    pub message: String,
}

impl ParseError {
    /// The error as a compiler diagnostic: the message, the location, the source line and a
    /// caret under the offending text, ending with a newline:
    ///
    /// ```text
    /// error: expected a type, found `i33`
    ///  --> file.gir:3:17
    ///   |
    /// 3 |     %1 = iconst.i33 4
    ///   |                 ^^^
    /// ```
    pub fn render(&self, src: &str, filename: &str) -> String {
        render_at(src, filename, (self.line, self.column), self.len, &self.message)
    }
}

/// A diagnostic at `line:column` (from 1, in characters) of `src`, as [`ParseError::render`]
/// writes it: the message, the location, the source line and `len` carets. The verifier's
/// errors of a parsed module are rendered so too, at their [`Locations`].
pub fn render_at(src: &str, filename: &str, (line, column): (u32, u32), len: u32, message: &str) -> String {
    let index = (line.max(1) - 1) as usize;
    let text = src.split('\n').nth(index).unwrap_or("");
    let text = text.strip_suffix('\r').unwrap_or(text);
    let chars = text.chars().count();
    let col0 = ((column.max(1) - 1) as usize).min(chars);
    let mut marker: String = text.chars().take(col0).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    let carets = (len.max(1) as usize).min((chars - col0).max(1));
    marker.extend(std::iter::repeat_n('^', carets));
    let num = line.to_string();
    let pad = " ".repeat(num.len());
    let source_line = if text.is_empty() { format!("{num} |") } else { format!("{num} | {text}") };
    format!("error: {message}\n{pad}--> {filename}:{line}:{column}\n{pad} |\n{source_line}\n{pad} | {marker}\n")
}

/// Parses a module from `.gir` text.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    parse_module_located(src).map(|(module, _)| module)
}

/// Parses a module from `.gir` text, with where each of its functions and blocks is written.
/// Where each instruction is written goes to its function's [`srclocs`](Function::srclocs).
pub fn parse_module_located(src: &str) -> Result<(Module, Locations), ParseError> {
    let (toks, lex_err) = lex(src);
    let mut p = Parser { src, toks, lex_err, pos: 0, locations: Locations::default() };
    let module = p.parse_module()?;
    Ok((module, p.locations))
}

/// Where a parsed module's functions and blocks are written: the name of each function and
/// the label of each block, indexed as the canonical entities are (`funcs[f]` is function
/// `f`; its `blocks[k]` is `blockk`, in layout order, which is the text's). Each instruction's
/// location, from its first token to its last, is in its function's
/// [`srclocs`](Function::srclocs), as the kernel language's are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Locations {
    /// Per function, in module order.
    pub funcs: Vec<FuncLocations>,
}

/// Where one function's name and blocks are written (see [`Locations`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuncLocations {
    /// The function's name.
    pub name: SourceLoc,
    /// Each block's label.
    pub blocks: Vec<SourceLoc>,
}

impl Locations {
    /// Where the function named `name` is defined.
    pub fn function(&self, module: &Module, name: &str) -> Option<SourceLoc> {
        let (id, _) = module.functions.iter().find(|(_, f)| f.name == name)?;
        Some(self.funcs.get(id.index())?.name)
    }

    /// Where a verifier error is: its instruction, else its block, else its function.
    pub fn of_error(&self, module: &Module, e: &crate::verifier::VerifierError) -> Option<SourceLoc> {
        let (id, f) = module.functions.iter().find(|(_, f)| f.name == e.func)?;
        let func = self.funcs.get(id.index())?;
        let inst = e.inst.map(|i| f.srclocs[i]).filter(|l| !l.is_none());
        let block = e.block.and_then(|b| func.blocks.get(b.index()).copied());
        Some(inst.or(block).unwrap_or(func.name))
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Word,
    Value,
    Func,
    Number,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Comma,
    Colon,
    Equals,
    Minus,
    Arrow,
    /// A lexical error (kept in `Parser::lex_err`); always followed by `Eof`.
    Error,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    /// Byte range in the source (tokens other than `Error` and `Eof` are ASCII).
    start: usize,
    end: usize,
    line: u32,
    col: u32,
}

/// A position and length in the source, for errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Span {
    line: u32,
    col: u32,
    len: u32,
}

impl Span {
    fn err(self, message: impl Into<String>) -> ParseError {
        ParseError { line: self.line, column: self.col, len: self.len.max(1), message: message.into() }
    }
}

impl Token {
    /// The token's bytes, as a source location.
    fn loc(&self) -> SourceLoc {
        SourceLoc::new(self.start..self.end)
    }

    fn span(&self) -> Span {
        Span { line: self.line, col: self.col, len: sat_u32(self.end.saturating_sub(self.start)).max(1) }
    }
}

fn sat_u32(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// Splits `src` into tokens, ending with `Eof`. A lexical error ends the list with `Error`, `Eof`.
fn lex(src: &str) -> (Vec<Token>, Option<ParseError>) {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    let mut error = None;
    // Every byte before `i` on the current line is ASCII (comments run to the end of the line,
    // other non-ASCII characters are errors), so byte and character columns agree.
    while i < b.len() {
        let c = b[i];
        let col = sat_u32(i - line_start).saturating_add(1);
        let start = i;
        let kind = match c {
            b'\n' => {
                i += 1;
                line = line.saturating_add(1);
                line_start = i;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            c if is_word_start(c) => {
                while i < b.len() && is_word_char(b[i]) {
                    i += 1;
                }
                Kind::Word
            }
            b'%' | b'@' => {
                i += 1;
                while i < b.len() && is_word_char(b[i]) {
                    i += 1;
                }
                let name = &b[start + 1..i];
                let sigil = c as char;
                let what = if c == b'%' { "value" } else { "function" };
                let span = Span { line, col, len: sat_u32(i - start) };
                let valid = match name.first() {
                    None => {
                        error = Some(span.err(format!("expected a {what} name after `{sigil}`")));
                        break;
                    }
                    Some(&f) if f.is_ascii_digit() => c == b'%' && name.iter().all(u8::is_ascii_digit),
                    Some(&f) => is_word_start(f),
                };
                if !valid {
                    let shown = src.get(start..i).unwrap_or("");
                    let rule = if c == b'%' { "digits or an identifier" } else { "an identifier" };
                    error =
                        Some(span.err(format!("invalid {what} name `{shown}`: expected `{sigil}` followed by {rule}")));
                    break;
                }
                if c == b'%' {
                    Kind::Value
                } else {
                    Kind::Func
                }
            }
            b'-' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i += 1;
                lex_number(b, &mut i, start);
                Kind::Number
            }
            c if c.is_ascii_digit() => {
                lex_number(b, &mut i, start);
                Kind::Number
            }
            b'-' if b.get(i + 1) == Some(&b'>') => {
                i += 2;
                Kind::Arrow
            }
            _ => {
                i += 1;
                match c {
                    b'-' => Kind::Minus,
                    b'(' => Kind::LParen,
                    b')' => Kind::RParen,
                    b'{' => Kind::LBrace,
                    b'}' => Kind::RBrace,
                    b'[' => Kind::LBracket,
                    b']' => Kind::RBracket,
                    b'<' => Kind::Lt,
                    b'>' => Kind::Gt,
                    b',' => Kind::Comma,
                    b':' => Kind::Colon,
                    b'=' => Kind::Equals,
                    _ => {
                        let ch = src.get(start..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
                        let shown = if ch.is_control() || ch == '\u{fffd}' {
                            ch.escape_unicode().to_string()
                        } else {
                            ch.to_string()
                        };
                        let span = Span { line, col, len: 1 };
                        error = Some(span.err(format!("unexpected character `{shown}`")));
                        break;
                    }
                }
            }
        };
        toks.push(Token { kind, start, end: i, line, col });
    }
    if let Some(e) = &error {
        toks.push(Token { kind: Kind::Error, start: i, end: i, line: e.line, col: e.column });
    }
    let last_line = src.get(line_start..).unwrap_or("");
    let eof_col = if error.is_some() { 1 } else { sat_u32(last_line.chars().count()).saturating_add(1) };
    toks.push(Token { kind: Kind::Eof, start: b.len(), end: b.len(), line, col: eof_col });
    (toks, error)
}

/// Scans the rest of a number starting at `start` (digits, letters, dots, and a sign after
/// the exponent letter of a decimal float).
fn lex_number(b: &[u8], i: &mut usize, start: usize) {
    let digits = if b.get(start) == Some(&b'-') { start + 1 } else { start };
    let hex = b.get(digits) == Some(&b'0') && matches!(b.get(digits + 1), Some(b'x' | b'X'));
    while *i < b.len() {
        let c = b[*i];
        let sign_after_exp =
            (c == b'-' || c == b'+') && !hex && *i > start && matches!(b.get(*i - 1), Some(b'e' | b'E'));
        if c.is_ascii_alphanumeric() || c == b'.' || sign_after_exp {
            *i += 1;
        } else {
            break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

enum IntText {
    /// Sign and magnitude.
    Ok(bool, u64),
    /// Well formed but larger than 64 bits.
    TooLarge,
    /// Not an integer.
    Invalid,
}

/// Reads `[-](DECIMAL | 0x HEX)`.
fn int_text(text: &str) -> IntText {
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (radix, digits) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, body),
    };
    if digits.is_empty() {
        return IntText::Invalid;
    }
    let mut value = 0u64;
    let mut too_large = false;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { return IntText::Invalid };
        match value.checked_mul(u64::from(radix)).and_then(|v| v.checked_add(u64::from(d))) {
            Some(v) => value = v,
            None => too_large = true,
        }
    }
    if too_large {
        IntText::TooLarge
    } else {
        IntText::Ok(neg, value)
    }
}

/// The bits of `neg`/`mag` in a type of `bits` bits, if the number fits as signed or unsigned.
fn fit_int(neg: bool, mag: u64, bits: u32) -> Option<u64> {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    if neg {
        // The most negative value of the type is -2^(bits-1).
        let min_mag = 1u64 << (bits.clamp(1, 64) - 1);
        (mag <= min_mag).then(|| mag.wrapping_neg() & mask)
    } else {
        (mag <= mask).then_some(mag)
    }
}

/// Whether `bits` are a NaN of a float of `width` bits.
fn is_nan_bits(bits: u64, width: u32) -> bool {
    match width {
        16 => bits <= 0xffff && (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0,
        32 => u32::try_from(bits).is_ok_and(|b| f32::from_bits(b).is_nan()),
        _ => f64::from_bits(bits).is_nan(),
    }
}

fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&x| name(x)).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    lex_err: Option<ParseError>,
    pos: usize,
    locations: Locations,
}

/// A function header, read in the first pass.
struct Header<'a> {
    name: &'a str,
    kind: FuncKind,
    signature: Signature,
    /// The token index just after the `{`.
    body: usize,
    /// The line of the name.
    line: u32,
    /// Where the name is.
    loc: SourceLoc,
}

struct ValueInfo<'a> {
    name: &'a str,
    first_use: Option<Span>,
    def: Option<Span>,
}

struct BlockInfo<'a> {
    name: &'a str,
    first_use: Span,
    def: Option<Span>,
}

/// The state of the function body being parsed.
struct Body<'a> {
    func: Function,
    value_names: HashMap<&'a str, Value>,
    /// Indexed by value number.
    values: Vec<ValueInfo<'a>>,
    block_names: HashMap<&'a str, Block>,
    /// Indexed by block number.
    blocks: Vec<BlockInfo<'a>>,
    slot_names: HashMap<&'a str, Slot>,
    /// Stores written without `align`: their alignment waits for the stored value's type.
    default_align_stores: Vec<Inst>,
    /// Switches: their cases are masked once the switched value's type is known.
    switches: Vec<Inst>,
}

/// What the body parser needs to know about the module's functions.
struct Funcs<'a> {
    names: HashMap<&'a str, FuncId>,
    rets: Vec<Option<Type>>,
}

/// The error of a body, and whether it is a call of an unknown function.
struct BodyError {
    error: ParseError,
    unknown_function: bool,
}

impl From<ParseError> for BodyError {
    fn from(error: ParseError) -> BodyError {
        BodyError { error, unknown_function: false }
    }
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    fn tok(&self, ahead: usize) -> Token {
        let eof = Token { kind: Kind::Eof, start: self.src.len(), end: self.src.len(), line: 1, col: 1 };
        let i = self.pos.saturating_add(ahead);
        self.toks.get(i).or(self.toks.last()).copied().unwrap_or(eof)
    }

    fn peek(&self) -> Token {
        self.tok(0)
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if !matches!(t.kind, Kind::Eof | Kind::Error) {
            self.pos += 1;
        }
        t
    }

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start..t.end).unwrap_or("")
    }

    fn is_word(&self, t: Token, word: &str) -> bool {
        t.kind == Kind::Word && self.text(t) == word
    }

    fn found(&self, t: Token) -> String {
        match t.kind {
            Kind::Eof => "end of input".to_string(),
            _ => format!("`{}`", self.text(t)),
        }
    }

    /// "expected X, found Y" at `t` (or the lexical error, when `t` is one).
    fn unexpected(&self, t: Token, expected: &str) -> ParseError {
        if t.kind == Kind::Error {
            if let Some(e) = &self.lex_err {
                return e.clone();
            }
        }
        t.span().err(format!("expected {expected}, found {}", self.found(t)))
    }

    fn expect(&mut self, kind: Kind, expected: &str) -> PResult<Token> {
        let t = self.peek();
        if t.kind == kind {
            self.bump();
            Ok(t)
        } else {
            Err(self.unexpected(t, expected))
        }
    }

    fn eat(&mut self, kind: Kind) -> bool {
        if self.peek().kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Whether a block label starts here, after an instruction's optional flags: a word
    /// followed by `:`, or by `(` and a parameter (`visible(agent)` is a flag).
    fn at_label(&self) -> bool {
        self.peek().kind == Kind::Word
            && match self.tok(1).kind {
                Kind::Colon => true,
                Kind::LParen => matches!(self.tok(2).kind, Kind::Value | Kind::RParen),
                _ => false,
            }
    }

    /// An optional flag word (not the label of the next block).
    fn at_flag(&self, word: &str) -> bool {
        self.is_word(self.peek(), word) && !self.at_label()
    }

    // --- module --------------------------------------------------------------------------

    fn parse_module(&mut self) -> PResult<Module> {
        // First pass: every function header, so that calls can name later functions.
        let mut headers: Vec<Header<'a>> = Vec::new();
        let mut funcs = Funcs { names: HashMap::new(), rets: Vec::new() };
        let mut header_error = None;
        while self.peek().kind != Kind::Eof {
            let name_tok = self.tok(1);
            let header = match self.parse_header() {
                Ok(h) => h,
                Err(e) => {
                    header_error = Some(e);
                    break;
                }
            };
            if let Some(&prev) = funcs.names.get(header.name) {
                let first = headers.get(prev.index()).map_or(0, |h| h.line);
                header_error = Some(
                    name_tok
                        .span()
                        .err(format!("redefinition of function `@{}` (first defined at line {first})", header.name)),
                );
                break;
            }
            funcs.names.insert(header.name, FuncId::new(headers.len()));
            funcs.rets.push(header.signature.ret);
            headers.push(header);
            // Skip the body: it cannot contain braces.
            while !matches!(self.peek().kind, Kind::RBrace | Kind::Eof | Kind::Error) {
                self.bump();
            }
            if !self.eat(Kind::RBrace) {
                break;
            }
        }
        // Second pass: the bodies, in order.
        let mut module = Module::default();
        for header in headers {
            match self.parse_body(header, &funcs) {
                Ok(func) => {
                    module.push(func);
                }
                Err(e) => {
                    // A call of a function whose header failed to parse: report the header.
                    return Err(match header_error {
                        Some(h) if e.unknown_function => h,
                        _ => e.error,
                    });
                }
            }
        }
        match header_error {
            Some(e) => Err(e),
            None => Ok(module),
        }
    }

    fn parse_header(&mut self) -> PResult<Header<'a>> {
        let kw = self.peek();
        let kernel = match (kw.kind, self.text(kw)) {
            (Kind::Word, "kernel") => true,
            (Kind::Word, "func") => false,
            _ => return Err(self.unexpected(kw, "`kernel` or `func`")),
        };
        self.bump();
        let name_tok = self.expect(Kind::Func, "a function name (`@name`)")?;
        let name = self.text(name_tok).get(1..).unwrap_or("");
        self.expect(Kind::LParen, "`(`")?;
        let mut signature = Signature::default();
        if !self.eat(Kind::RParen) {
            loop {
                signature.params.push(self.parse_type()?);
                if !self.eat(Kind::Comma) {
                    self.expect(Kind::RParen, "`,` or `)`")?;
                    break;
                }
            }
        }
        if self.eat(Kind::Arrow) {
            signature.ret = Some(self.parse_type()?);
        }
        let mut attrs = KernelAttrs::default();
        let mut seen = [false; 4];
        loop {
            let t = self.peek();
            let which = match (t.kind, self.text(t)) {
                (Kind::Word, "reqd_workgroup_size") => 0,
                (Kind::Word, "max_workgroup_size") => 1,
                (Kind::Word, "dynamic_shared") => 2,
                (Kind::Word, "waves_per_simd") => 3,
                _ => break,
            };
            let word = self.text(t);
            if !kernel {
                return Err(t.span().err(format!(
                    "kernel attribute `{word}` on helper function `@{name}`: only kernels take attributes"
                )));
            }
            if seen[which] {
                return Err(t.span().err(format!("duplicate kernel attribute `{word}`")));
            }
            seen[which] = true;
            self.bump();
            match which {
                0 => {
                    self.expect(Kind::LParen, "`(`")?;
                    let x = self.parse_u32("a workgroup size")?;
                    self.expect(Kind::Comma, "`,`")?;
                    let y = self.parse_u32("a workgroup size")?;
                    self.expect(Kind::Comma, "`,`")?;
                    let z = self.parse_u32("a workgroup size")?;
                    self.expect(Kind::RParen, "`)`")?;
                    attrs.reqd_workgroup_size = Some([x, y, z]);
                }
                1 => {
                    self.expect(Kind::LParen, "`(`")?;
                    attrs.max_workgroup_size = Some(self.parse_u32("a workgroup size")?);
                    self.expect(Kind::RParen, "`)`")?;
                }
                2 => attrs.dynamic_shared = true,
                _ => {
                    self.expect(Kind::LParen, "`(`")?;
                    attrs.waves_per_simd = Some(self.parse_u32("a number of waves")?);
                    self.expect(Kind::RParen, "`)`")?;
                }
            }
        }
        let t = self.peek();
        if t.kind != Kind::LBrace {
            let expected = match (kernel, signature.ret.is_some()) {
                (true, false) => "`->`, a kernel attribute or `{`",
                (true, true) => "a kernel attribute or `{`",
                (false, false) => "`->` or `{`",
                (false, true) => "`{`",
            };
            return Err(self.unexpected(t, expected));
        }
        self.bump();
        let kind = if kernel { FuncKind::Kernel(attrs) } else { FuncKind::Helper };
        Ok(Header { name, kind, signature, body: self.pos, line: name_tok.line, loc: name_tok.loc() })
    }

    // --- types and numbers ---------------------------------------------------------------

    fn parse_type(&mut self) -> PResult<Type> {
        let t = self.peek();
        if t.kind != Kind::Word {
            return Err(self.unexpected(t, "a type"));
        }
        self.bump();
        self.type_named(self.text(t), t.span())
    }

    /// The type spelled `text` at `span`; `ptr` reads its `<space>` from the following tokens.
    fn type_named(&mut self, text: &str, span: Span) -> PResult<Type> {
        Ok(match text {
            "i1" => Type::I1,
            "i8" => Type::I8,
            "i16" => Type::I16,
            "i32" => Type::I32,
            "i64" => Type::I64,
            "f16" => Type::F16,
            "f32" => Type::F32,
            "f64" => Type::F64,
            "ptr" => {
                self.expect(Kind::Lt, "`<` after `ptr`")?;
                let t = self.peek();
                let space = match t.kind {
                    Kind::Word => AddrSpace::from_name(self.text(t)),
                    _ => None,
                };
                let Some(space) = space else {
                    let all = names(&AddrSpace::ALL, AddrSpace::name);
                    return Err(self.unexpected(t, &format!("an address space ({all})")));
                };
                self.bump();
                self.expect(Kind::Gt, "`>`")?;
                Type::Ptr(space)
            }
            _ => return Err(span.err(format!("expected a type, found `{text}`"))),
        })
    }

    fn parse_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.peek();
        if t.kind != Kind::Number {
            return Err(self.unexpected(t, what));
        }
        let text = self.text(t);
        let value = match int_text(text) {
            IntText::Ok(false, v) => u32::try_from(v).ok(),
            IntText::Ok(true, _) | IntText::Invalid => return Err(self.unexpected(t, what)),
            IntText::TooLarge => None,
        };
        let Some(value) = value else {
            return Err(t.span().err(format!("expected {what}, found `{text}`, which does not fit in 32 bits")));
        };
        self.bump();
        Ok(value)
    }

    fn parse_int_const(&mut self, ty: Type) -> PResult<u64> {
        let t = self.peek();
        let text = self.text(t);
        if ty == Type::I1 && t.kind == Kind::Word && (text == "true" || text == "false") {
            self.bump();
            return Ok(u64::from(text == "true"));
        }
        if t.kind != Kind::Number {
            return Err(self.unexpected(t, &format!("an integer constant of type {ty}")));
        }
        match int_text(text) {
            IntText::Ok(neg, mag) => match fit_int(neg, mag, ty.bits()) {
                Some(v) => {
                    self.bump();
                    Ok(v)
                }
                None => Err(t.span().err(format!("integer `{text}` does not fit in type {ty}"))),
            },
            IntText::TooLarge => Err(t.span().err(format!("integer `{text}` does not fit in type {ty}"))),
            IntText::Invalid => Err(self.unexpected(t, &format!("an integer constant of type {ty}"))),
        }
    }

    /// A float constant of type `ty`, as bits. Types other than `f16` and `f32` are read as
    /// `f64` (a non-float `fconst` is left to the verifier), as the printer writes them.
    fn parse_float_const(&mut self, ty: Type) -> PResult<u64> {
        let width = match ty {
            Type::F16 => 16,
            Type::F32 => 32,
            _ => 64,
        };
        let from_f64 = |x: f64| -> u64 {
            match width {
                16 => u64::from(half::f16::from_f64(x).to_bits()),
                32 => u64::from((x as f32).to_bits()),
                _ => x.to_bits(),
            }
        };
        let expected = format!("a float constant of type {ty}");
        let t = self.peek();
        let text = self.text(t);
        match t.kind {
            Kind::Number => {
                let bits = match width {
                    16 => text.parse::<f32>().ok().map(|x| u64::from(half::f16::from_f32(x).to_bits())),
                    32 => text.parse::<f32>().ok().map(|x| u64::from(x.to_bits())),
                    _ => text.parse::<f64>().ok().map(f64::to_bits),
                };
                let Some(bits) = bits else { return Err(self.unexpected(t, &expected)) };
                self.bump();
                Ok(bits)
            }
            Kind::Word if text == "inf" => {
                self.bump();
                Ok(from_f64(f64::INFINITY))
            }
            Kind::Minus if self.is_word(self.tok(1), "inf") => {
                self.bump();
                self.bump();
                Ok(from_f64(f64::NEG_INFINITY))
            }
            Kind::Word if text == "nan" => {
                self.bump();
                if !self.eat(Kind::Colon) {
                    return Ok(from_f64(f64::NAN));
                }
                let b = self.peek();
                let btext = self.text(b);
                let bits = match (b.kind, int_text(btext)) {
                    (Kind::Number, IntText::Ok(false, v)) if btext.starts_with("0x") || btext.starts_with("0X") => v,
                    _ => return Err(self.unexpected(b, "the bits of a NaN (`nan:0x7fc00000`)")),
                };
                // The printer masks NaN bits to the type's width: they must survive that.
                if !is_nan_bits(bits, width) || bits & ty.mask() != bits {
                    return Err(b.span().err(format!("expected the bits of a NaN of type {ty}, found `{btext}`")));
                }
                self.bump();
                Ok(bits)
            }
            _ => Err(self.unexpected(t, &expected)),
        }
    }

    // --- function bodies -----------------------------------------------------------------

    /// The locations of the function being parsed.
    fn function_locations(&mut self) -> &mut FuncLocations {
        self.locations.funcs.last_mut().expect("parse_body pushes the function's locations first")
    }

    fn parse_body(&mut self, header: Header<'a>, funcs: &Funcs<'a>) -> Result<Function, BodyError> {
        self.pos = header.body;
        self.locations.funcs.push(FuncLocations { name: header.loc, blocks: Vec::new() });
        let mut body = Body {
            func: Function::new(header.name, header.kind, header.signature),
            value_names: HashMap::new(),
            values: Vec::new(),
            block_names: HashMap::new(),
            blocks: Vec::new(),
            slot_names: HashMap::new(),
            default_align_stores: Vec::new(),
            switches: Vec::new(),
        };
        // Slots.
        while self.peek().kind == Kind::Word && self.tok(1).kind == Kind::Equals {
            self.parse_slot(&mut body)?;
        }
        // Blocks.
        let mut current: Option<Block> = None;
        loop {
            let t = self.peek();
            if t.kind == Kind::RBrace {
                self.bump();
                break;
            }
            // Between instructions, a word followed by `:` or `(` can only be a label.
            if t.kind == Kind::Word && matches!(self.tok(1).kind, Kind::Colon | Kind::LParen) {
                current = Some(self.parse_block_header(&mut body)?);
                continue;
            }
            let Some(block) = current else {
                return Err(self.unexpected(t, "a block label (`block0:`)").into());
            };
            if t.kind == Kind::Word && self.tok(1).kind == Kind::Equals {
                return Err(t.span().err("slot declarations must come before the first block").into());
            }
            if t.kind == Kind::Eof {
                return Err(self.unexpected(t, "an instruction, a block label or `}`").into());
            }
            let inst = self.parse_inst(&mut body, funcs)?;
            body.func.dfg.blocks[block].insts.push(inst);
            // From the first token to the last one the instruction took.
            let end = self.toks[self.pos.saturating_sub(1)].end;
            body.func.set_srcloc(inst, SourceLoc::new(t.start..end));
        }
        self.finish(body, funcs).map_err(BodyError::from)
    }

    fn parse_slot(&mut self, body: &mut Body<'a>) -> PResult<()> {
        let name_tok = self.bump();
        let name = self.text(name_tok);
        if body.slot_names.contains_key(name) {
            return Err(name_tok.span().err(format!("duplicate slot `{name}`")));
        }
        self.bump(); // `=`
        let t = self.peek();
        let space = match (t.kind, self.text(t)) {
            (Kind::Word, "shared") => AddrSpace::Shared,
            (Kind::Word, "private") => AddrSpace::Private,
            _ => return Err(self.unexpected(t, "`shared` or `private`")),
        };
        self.bump();
        let size = self.parse_u32("a slot size in bytes")?;
        let t = self.peek();
        if !self.is_word(t, "align") {
            return Err(self.unexpected(t, "`align`"));
        }
        self.bump();
        let align = self.parse_u32("an alignment")?;
        let slot = body.func.slots.push(SlotData { space, size, align });
        body.slot_names.insert(name, slot);
        Ok(())
    }

    /// `label[(params)]:`, which starts a block in the layout.
    fn parse_block_header(&mut self, body: &mut Body<'a>) -> PResult<Block> {
        let t = self.bump();
        let name = self.text(t);
        let span = t.span();
        let block = match body.block_names.get(name) {
            Some(&b) => {
                if let Some(def) = body.blocks[b.index()].def {
                    return Err(
                        span.err(format!("duplicate block label `{name}` (first defined at line {})", def.line))
                    );
                }
                b
            }
            None => new_block(body, name, span),
        };
        body.blocks[block.index()].def = Some(span);
        body.func.layout.push(block);
        self.function_locations().blocks.push(t.loc());
        if self.eat(Kind::LParen) && !self.eat(Kind::RParen) {
            loop {
                let vt = self.peek();
                if vt.kind != Kind::Value {
                    return Err(self.unexpected(vt, "a block parameter (`%name: type`)"));
                }
                let v = self.define_value(body, vt)?;
                self.expect(Kind::Colon, "`:`")?;
                let ty = self.parse_type()?;
                let index = sat_u32(body.func.dfg.blocks[block].params.len());
                body.func.dfg.values[v] = ValueData { ty, def: ValueDef::Param(block, index) };
                body.func.dfg.blocks[block].params.push(v);
                if !self.eat(Kind::Comma) {
                    self.expect(Kind::RParen, "`,` or `)`")?;
                    break;
                }
            }
        }
        self.expect(Kind::Colon, "`:`")?;
        Ok(block)
    }

    /// Claims the value named by token `t` as defined here.
    fn define_value(&mut self, body: &mut Body<'a>, t: Token) -> PResult<Value> {
        self.bump();
        let name = self.text(t);
        let span = t.span();
        if let Some(&v) = body.value_names.get(name) {
            let info = &mut body.values[v.index()];
            if let Some(def) = info.def {
                return Err(
                    span.err(format!("redefinition of value `{name}` (first defined at {}:{})", def.line, def.col))
                );
            }
            info.def = Some(span);
            return Ok(v);
        }
        let v = body.func.dfg.make_pending_value(Type::I32);
        body.values.push(ValueInfo { name, first_use: None, def: Some(span) });
        body.value_names.insert(name, v);
        Ok(v)
    }

    /// A value operand.
    fn use_value(&mut self, body: &mut Body<'a>) -> PResult<Value> {
        let t = self.peek();
        if t.kind != Kind::Value {
            return Err(self.unexpected(t, "a value (`%name`)"));
        }
        self.bump();
        let name = self.text(t);
        if let Some(&v) = body.value_names.get(name) {
            let info = &mut body.values[v.index()];
            if info.first_use.is_none() {
                info.first_use = Some(t.span());
            }
            return Ok(v);
        }
        let v = body.func.dfg.make_pending_value(Type::I32);
        body.values.push(ValueInfo { name, first_use: Some(t.span()), def: None });
        body.value_names.insert(name, v);
        Ok(v)
    }

    fn comma(&mut self) -> PResult<()> {
        self.expect(Kind::Comma, "`,`").map(|_| ())
    }

    fn use_values<const N: usize>(&mut self, body: &mut Body<'a>) -> PResult<[Value; N]> {
        let mut out = [Value::new(0); N];
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 {
                self.comma()?;
            }
            *slot = self.use_value(body)?;
        }
        Ok(out)
    }

    /// `( [%v {, %v}] )`, the opening parenthesis already read.
    fn value_list(&mut self, body: &mut Body<'a>) -> PResult<SmallVec<[Value; 4]>> {
        let mut args = SmallVec::new();
        if self.eat(Kind::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.use_value(body)?);
            if !self.eat(Kind::Comma) {
                self.expect(Kind::RParen, "`,` or `)`")?;
                return Ok(args);
            }
        }
    }

    /// A branch target: `label[(args)]`.
    fn block_call(&mut self, body: &mut Body<'a>) -> PResult<BlockCall> {
        let t = self.peek();
        if t.kind != Kind::Word {
            return Err(self.unexpected(t, "a block label"));
        }
        self.bump();
        let name = self.text(t);
        let block = match body.block_names.get(name) {
            Some(&b) => b,
            None => new_block(body, name, t.span()),
        };
        let args = if self.eat(Kind::LParen) { self.value_list(body)? } else { SmallVec::new() };
        Ok(BlockCall { block, args })
    }

    fn parse_sync(&mut self) -> PResult<SyncInfo> {
        let t = self.peek();
        let Some(ordering) = (t.kind == Kind::Word).then(|| Ordering::from_name(self.text(t))).flatten() else {
            let all = names(Ordering::ALL, Ordering::name);
            return Err(self.unexpected(t, &format!("an ordering ({all})")));
        };
        self.bump();
        let scope = self.parse_scope()?;
        let av_none = self.at_flag("av_none");
        if av_none {
            self.bump();
        }
        Ok(SyncInfo { ordering, scope, av_none })
    }

    fn parse_scope(&mut self) -> PResult<Scope> {
        let t = self.peek();
        let Some(scope) = (t.kind == Kind::Word).then(|| Scope::from_name(self.text(t))).flatten() else {
            let all = names(Scope::ALL, Scope::name);
            return Err(self.unexpected(t, &format!("a scope ({all})")));
        };
        self.bump();
        Ok(scope)
    }

    /// Memory flags in any order; `align` is `None` when not written.
    fn parse_mem_flags(&mut self, load: bool) -> PResult<(Option<u32>, MemFlags)> {
        let mut flags = MemFlags::aligned(1);
        let mut align = None;
        let mut seen = [false; 4];
        loop {
            let t = self.peek();
            if t.kind != Kind::Word || self.at_label() {
                break;
            }
            let word = self.text(t);
            let which = match word {
                "align" => 0,
                "volatile" => 1,
                "nontemporal" => 2,
                "visible" | "available" => {
                    if (word == "visible") != load {
                        let (this, other) = if load { ("load", "visible") } else { ("store", "available") };
                        return Err(t
                            .span()
                            .err(format!("`{word}` is not a {this} flag: a {this} takes `{other}(SCOPE)`")));
                    }
                    3
                }
                _ => break,
            };
            if seen[which] {
                return Err(t.span().err(format!("duplicate memory flag `{word}`")));
            }
            seen[which] = true;
            self.bump();
            match which {
                0 => align = Some(self.parse_u32("an alignment")?),
                1 => flags.volatile = true,
                2 => flags.nontemporal = true,
                _ => {
                    self.expect(Kind::LParen, "`(`")?;
                    flags.av = Some(self.parse_scope()?);
                    self.expect(Kind::RParen, "`)`")?;
                }
            }
        }
        Ok((align, flags))
    }

    /// One instruction, added to the function (not yet to a block).
    fn parse_inst(&mut self, body: &mut Body<'a>, funcs: &Funcs<'a>) -> Result<Inst, BodyError> {
        // The result name.
        let mut result = None;
        if self.peek().kind == Kind::Value && self.tok(1).kind == Kind::Equals {
            let t = self.peek();
            let v = self.define_value(body, t)?;
            self.bump(); // `=`
            result = Some((v, t));
        }
        let op_tok = self.peek();
        if op_tok.kind != Kind::Word {
            return Err(self.unexpected(op_tok, "an instruction").into());
        }
        self.bump();
        let word = self.text(op_tok);
        let (base, suffix) = match word.split_once('.') {
            Some((b, s)) => (b, Some(s)),
            None => (word, None),
        };
        // The suffix's span (after the dot); words are ASCII, so bytes are characters.
        let suffix_span = Span {
            line: op_tok.line,
            col: op_tok.col.saturating_add(sat_u32(base.len())).saturating_add(1),
            len: sat_u32(suffix.map_or(0, str::len)).max(1),
        };
        let need_suffix = |what: &str| -> PResult<&'a str> {
            match suffix {
                Some(s) if !s.is_empty() => Ok(s),
                _ => Err(op_tok.span().err(format!("expected `{base}.{what}`, found `{word}`"))),
            }
        };
        let no_suffix = || -> PResult<()> {
            match suffix {
                None => Ok(()),
                Some(s) => Err(Span {
                    col: suffix_span.col.saturating_sub(1),
                    len: suffix_span.len.saturating_add(1),
                    ..suffix_span
                }
                .err(format!("unexpected suffix `.{s}`: `{base}` takes none"))),
            }
        };
        let mut default_align_store = false;
        let mut is_switch = false;
        let data = match base {
            "iconst" => {
                let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                let imm = self.parse_int_const(ty)?;
                InstData::IntConst { ty, imm }
            }
            "fconst" => {
                let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                let bits = self.parse_float_const(ty)?;
                InstData::FloatConst { ty, bits }
            }
            "fma" => {
                no_suffix()?;
                InstData::Fma { args: self.use_values(body)? }
            }
            "select" => {
                no_suffix()?;
                InstData::Select { args: self.use_values(body)? }
            }
            "icmp" | "fcmp" => {
                no_suffix()?;
                let t = self.peek();
                let text = if t.kind == Kind::Word { self.text(t) } else { "" };
                let data = if base == "icmp" {
                    match IntCC::from_name(text) {
                        Some(cc) => {
                            self.bump();
                            InstData::Icmp { cc, args: self.use_values(body)? }
                        }
                        None => {
                            let all = names(IntCC::ALL, IntCC::name);
                            return Err(self.unexpected(t, &format!("an integer condition ({all})")).into());
                        }
                    }
                } else {
                    match FloatCC::from_name(text) {
                        Some(cc) => {
                            self.bump();
                            InstData::Fcmp { cc, args: self.use_values(body)? }
                        }
                        None => {
                            let all = names(FloatCC::ALL, FloatCC::name);
                            return Err(self.unexpected(t, &format!("a float condition ({all})")).into());
                        }
                    }
                };
                data
            }
            "ptradd" => {
                no_suffix()?;
                InstData::PtrAdd { args: self.use_values(body)? }
            }
            "addrspacecast" => {
                let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                InstData::AddrSpaceCast { ty, arg: self.use_value(body)? }
            }
            "slot_addr" => {
                no_suffix()?;
                let t = self.peek();
                if t.kind != Kind::Word {
                    return Err(self.unexpected(t, "a slot name").into());
                }
                let name = self.text(t);
                let Some(&slot) = body.slot_names.get(name) else {
                    return Err(t.span().err(format!("unknown slot `{name}`")).into());
                };
                self.bump();
                InstData::SlotAddr { slot }
            }
            "dyn_shared_addr" => {
                no_suffix()?;
                InstData::DynSharedAddr
            }
            "load" => {
                let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                let ptr = self.use_value(body)?;
                let (align, mut flags) = self.parse_mem_flags(true)?;
                flags.align = align.unwrap_or(ty.bytes().unwrap_or(1));
                InstData::Load { ty, ptr, flags }
            }
            "store" => {
                no_suffix()?;
                let args = self.use_values(body)?;
                let (align, mut flags) = self.parse_mem_flags(false)?;
                match align {
                    Some(a) => flags.align = a,
                    None => default_align_store = true,
                }
                InstData::Store { args, flags }
            }
            "atomic_rmw" => {
                let s = need_suffix("OP")?;
                let Some(op) = RmwOp::from_name(s) else {
                    let all = names(RmwOp::ALL, RmwOp::name);
                    return Err(suffix_span.err(format!("expected an atomic operation ({all}), found `{s}`")).into());
                };
                let args = self.use_values(body)?;
                InstData::AtomicRmw { op, args, sync: self.parse_sync()? }
            }
            "atomic_cas" => {
                no_suffix()?;
                let args = self.use_values(body)?;
                InstData::AtomicCas { args, sync: self.parse_sync()? }
            }
            "atomic_load" => {
                let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                let ptr = self.use_value(body)?;
                InstData::AtomicLoad { ty, ptr, sync: self.parse_sync()? }
            }
            "atomic_store" => {
                no_suffix()?;
                let args = self.use_values(body)?;
                InstData::AtomicStore { args, sync: self.parse_sync()? }
            }
            "fence" => {
                no_suffix()?;
                InstData::Fence { sync: self.parse_sync()? }
            }
            "barrier" => {
                no_suffix()?;
                InstData::Barrier
            }
            "ballot" => {
                no_suffix()?;
                InstData::Ballot { arg: self.use_value(body)? }
            }
            "readfirstlane" => {
                no_suffix()?;
                InstData::ReadFirstLane { arg: self.use_value(body)? }
            }
            "shuffle" => {
                no_suffix()?;
                InstData::Shuffle { args: self.use_values(body)? }
            }
            "reduce" => {
                let s = need_suffix("OP")?;
                let Some(op) = ReduceOp::from_name(s) else {
                    let all = names(ReduceOp::ALL, ReduceOp::name);
                    return Err(suffix_span.err(format!("expected a reduction ({all}), found `{s}`")).into());
                };
                InstData::Reduce { op, arg: self.use_value(body)? }
            }
            "call" => {
                no_suffix()?;
                let t = self.peek();
                if t.kind != Kind::Func {
                    return Err(self.unexpected(t, "a function name (`@name`)").into());
                }
                let name = self.text(t).get(1..).unwrap_or("");
                let Some(&func) = funcs.names.get(name) else {
                    let error = t.span().err(format!("unknown function `@{name}`"));
                    return Err(BodyError { error, unknown_function: true });
                };
                self.bump();
                self.expect(Kind::LParen, "`(`")?;
                InstData::Call { func, args: self.value_list(body)? }
            }
            "jump" => {
                no_suffix()?;
                InstData::Jump { dest: self.block_call(body)? }
            }
            "brif" => {
                no_suffix()?;
                let cond = self.use_value(body)?;
                self.comma()?;
                let then = self.block_call(body)?;
                self.comma()?;
                let otherwise = self.block_call(body)?;
                InstData::Brif { cond, dests: Box::new([then, otherwise]) }
            }
            "switch" => {
                no_suffix()?;
                is_switch = true;
                let arg = self.use_value(body)?;
                self.comma()?;
                let mut dests = vec![self.block_call(body)?];
                self.comma()?;
                self.expect(Kind::LBracket, "`[`")?;
                let mut cases = Vec::new();
                if !self.eat(Kind::RBracket) {
                    loop {
                        cases.push(self.parse_case()?);
                        self.expect(Kind::Colon, "`:`")?;
                        dests.push(self.block_call(body)?);
                        if !self.eat(Kind::Comma) {
                            self.expect(Kind::RBracket, "`,` or `]`")?;
                            break;
                        }
                    }
                }
                InstData::Switch { arg, cases: cases.into_boxed_slice(), dests: dests.into_boxed_slice() }
            }
            "ret" => {
                no_suffix()?;
                let arg = if self.peek().kind == Kind::Value && self.tok(1).kind != Kind::Equals {
                    Some(self.use_value(body)?)
                } else {
                    None
                };
                InstData::Return { arg }
            }
            "unreachable" => {
                no_suffix()?;
                InstData::Unreachable
            }
            _ => {
                if let Some(op) = UnaryOp::from_name(base) {
                    no_suffix()?;
                    InstData::Unary { op, arg: self.use_value(body)? }
                } else if let Some(op) = BinaryOp::from_name(base) {
                    no_suffix()?;
                    InstData::Binary { op, args: self.use_values(body)? }
                } else if let Some(op) = ConvOp::from_name(base) {
                    let ty = self.type_named(need_suffix("TYPE")?, suffix_span)?;
                    InstData::Convert { op, ty, arg: self.use_value(body)? }
                } else if Special::from_parts(base, None).is_some() {
                    no_suffix()?;
                    InstData::Special { value: Special::from_parts(base, None).unwrap_or(Special::LaneId) }
                } else if Special::from_parts(base, Some(Dim::X)).is_some() {
                    let s = need_suffix("x")?;
                    let value = Dim::from_name(s).and_then(|d| Special::from_parts(base, Some(d)));
                    let Some(value) = value else {
                        let all = names(Dim::ALL, Dim::name);
                        return Err(suffix_span.err(format!("expected a dimension ({all}), found `{s}`")).into());
                    };
                    InstData::Special { value }
                } else {
                    return Err(op_tok.span().err(format!("expected an instruction, found `{word}`")).into());
                }
            }
        };
        let callee_ret = |f: FuncId| funcs.rets.get(f.index()).copied().flatten();
        // Whether there is a result does not depend on operand types, which may not be known yet.
        let has_result = body.func.result_type(&data, callee_ret).is_some();
        let inst = body.func.dfg.make_inst(data, None);
        if has_result {
            let v = match result {
                Some((v, _)) => v,
                None => {
                    let v = body.func.dfg.make_pending_value(Type::I32);
                    body.values.push(ValueInfo { name: "", first_use: None, def: Some(op_tok.span()) });
                    v
                }
            };
            body.func.dfg.values[v].def = ValueDef::Result(inst);
            body.func.dfg.results[inst] = v.into();
        } else if let Some((_, t)) = result {
            let name = self.text(t);
            let detail = if base == "call" {
                "the callee returns nothing".to_string()
            } else {
                format!("`{base}` defines no value")
            };
            return Err(t
                .span()
                .err(format!("instruction has no result: {detail}, so `{name} =` is not allowed"))
                .into());
        }
        if default_align_store {
            body.default_align_stores.push(inst);
        }
        if is_switch {
            body.switches.push(inst);
        }
        Ok(inst)
    }

    /// A switch case value: `[-]` decimal or hex, kept as 64-bit two's complement.
    fn parse_case(&mut self) -> PResult<u64> {
        let t = self.peek();
        if t.kind != Kind::Number {
            return Err(self.unexpected(t, "a case value"));
        }
        let text = self.text(t);
        match int_text(text) {
            IntText::Ok(neg, mag) => match fit_int(neg, mag, 64) {
                Some(v) => {
                    self.bump();
                    Ok(v)
                }
                None => Err(t.span().err(format!("case value `{text}` does not fit in 64 bits"))),
            },
            IntText::TooLarge => Err(t.span().err(format!("case value `{text}` does not fit in 64 bits"))),
            IntText::Invalid => Err(self.unexpected(t, "a case value (an integer)")),
        }
    }

    /// Checks that every name is defined, computes the result types, and canonicalizes.
    fn finish(&self, body: Body<'a>, funcs: &Funcs<'a>) -> PResult<Function> {
        let Body { mut func, values, blocks, default_align_stores, switches, .. } = body;
        let undefined_value = values
            .iter()
            .find_map(|v| if v.def.is_none() { v.first_use.map(|s| (s, v.name)) } else { None })
            .map(|(s, name)| (s, format!("use of undefined value `{name}`")));
        let undefined_block =
            blocks.iter().find(|b| b.def.is_none()).map(|b| (b.first_use, format!("unknown block `{}`", b.name)));
        let first = match (undefined_value, undefined_block) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        if let Some((span, message)) = first {
            return Err(span.err(message));
        }
        resolve_types(&mut func, &funcs.rets);
        for inst in default_align_stores {
            let ty = match &func.dfg.insts[inst] {
                InstData::Store { args, .. } => func.dfg.value_type(args[1]),
                _ => continue,
            };
            if let InstData::Store { flags, .. } = &mut func.dfg.insts[inst] {
                flags.align = ty.bytes().unwrap_or(1);
            }
        }
        for inst in switches {
            let mask = match &func.dfg.insts[inst] {
                InstData::Switch { arg, .. } => func.dfg.value_type(*arg).mask(),
                _ => continue,
            };
            if let InstData::Switch { cases, .. } = &mut func.dfg.insts[inst] {
                for c in cases.iter_mut() {
                    *c &= mask;
                }
            }
        }
        func.canonicalize();
        Ok(func)
    }
}

fn new_block<'a>(body: &mut Body<'a>, name: &'a str, first_use: Span) -> Block {
    let b = body.func.dfg.make_block();
    body.blocks.push(BlockInfo { name, first_use, def: None });
    body.block_names.insert(name, b);
    b
}

/// Gives every instruction result its type, operands first (an operand may be defined later
/// in the text). Linear: each value is visited once, with an explicit stack. A dependency cycle
/// (only possible in invalid SSA) is cut, leaving a placeholder type for the verifier to reject.
fn resolve_types(func: &mut Function, rets: &[Option<Type>]) {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let n = func.dfg.values.len();
    let mut state = vec![NEW; n];
    let mut stack: Vec<(Value, bool)> = Vec::new();
    let callee_ret = |f: FuncId| rets.get(f.index()).copied().flatten();
    for root in 0..n {
        if state[root] != NEW {
            continue;
        }
        stack.push((Value::new(root), false));
        while let Some((v, expanded)) = stack.pop() {
            let ValueDef::Result(inst) = func.dfg.values[v].def else {
                state[v.index()] = DONE;
                continue;
            };
            if expanded {
                if let Some(ty) = func.result_type(&func.dfg.insts[inst], callee_ret) {
                    func.dfg.values[v].ty = ty;
                }
                state[v.index()] = DONE;
            } else if state[v.index()] == NEW {
                state[v.index()] = ACTIVE;
                stack.push((v, true));
                for &a in func.dfg.insts[inst].args() {
                    if state.get(a.index()) == Some(&NEW) {
                        stack.push((a, false));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses text that must be valid.
    fn parse(src: &str) -> Module {
        match parse_module(src) {
            Ok(m) => m,
            Err(e) => panic!("unexpected parse error:\n{}", e.render(src, "test.gir")),
        }
    }

    /// Checks that canonical text prints back unchanged.
    fn roundtrip(src: &str) -> Module {
        let m = parse(src);
        assert_eq!(m.to_string(), src);
        m
    }

    /// The line and column (in characters, from 1) of the `nth` occurrence of `needle`.
    fn pos_of(src: &str, needle: &str, nth: usize) -> (u32, u32) {
        let (at, _) = src.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("`{needle}` not in the source"));
        let before = &src[..at];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = src[line_start..at].chars().count() as u32 + 1;
        (line, col)
    }

    /// Checks the error of `src`: its message, and its position at the `nth` occurrence of
    /// `at`. `at` may carry context after the offending token: the expected span is its leading
    /// token (a run of `[A-Za-z0-9_.%@-]`, or else one character).
    #[track_caller]
    fn check_err_nth(src: &str, at: &str, nth: usize, message: &str) {
        let e = parse_module(src).expect_err("the text should not parse");
        let (line, column) = pos_of(src, at, nth);
        let token_char = |c: char| c.is_ascii_alphanumeric() || "_.%@-".contains(c);
        let run = at.chars().take_while(|&c| token_char(c)).count();
        let len = run.max(1) as u32;
        assert_eq!(e, ParseError { line, column, len, message: message.to_string() }, "\n{}", e.render(src, "t.gir"));
    }

    #[track_caller]
    fn check_err(src: &str, at: &str, message: &str) {
        check_err_nth(src, at, 0, message)
    }

    /// A kernel with one block around `body` (instruction lines, indented).
    fn kernel(body: &str) -> String {
        format!("kernel @k(ptr<global>, i32, f32) {{\nblock0(%0: ptr<global>, %1: i32, %2: f32):\n{body}    ret\n}}\n")
    }

    /// The instructions of the only (or last) function, in layout order.
    fn insts(m: &Module) -> Vec<InstData> {
        let f = m.functions.values().last().expect("a function");
        f.insts_in_layout().map(|(_, i)| f.dfg.insts[i].clone()).collect()
    }

    // --- rendering ---------------------------------------------------------------------------

    #[test]
    fn render_matches_the_documented_format() {
        let src = "kernel @k() {\nblock0:\n    %1 = iconst.i33 4\n    ret\n}\n";
        let e = parse_module(src).unwrap_err();
        assert_eq!(e, ParseError { line: 3, column: 17, len: 3, message: "expected a type, found `i33`".into() });
        assert_eq!(e.to_string(), "3:17: expected a type, found `i33`");
        assert_eq!(
            e.render(src, "file.gir"),
            "error: expected a type, found `i33`\n --> file.gir:3:17\n  |\n3 |     %1 = iconst.i33 4\n  |                 ^^^\n"
        );
    }

    #[test]
    fn render_handles_tabs_wide_gutters_and_the_end_of_input() {
        let mut src = "kernel @k() {\nblock0:\n".to_string();
        for _ in 0..8 {
            src.push_str("    barrier\n");
        }
        src.push_str("\t%1 = frob\n");
        let e = parse_module(&src).unwrap_err();
        assert_eq!((e.line, e.column, e.len), (11, 7, 4));
        assert_eq!(
            e.render(&src, "x.gir"),
            "error: expected an instruction, found `frob`\n  --> x.gir:11:7\n   |\n11 | \t%1 = frob\n   | \t     ^^^^\n"
        );
        // At the end of the input, the caret follows the last character.
        let src = "kernel @k() {\nblock0:\n    ret";
        let e = parse_module(src).unwrap_err();
        assert_eq!(
            e,
            ParseError {
                line: 3,
                column: 8,
                len: 1,
                message: "expected an instruction, a block label or `}`, found end of input".into()
            }
        );
        assert!(e.render(src, "y.gir").ends_with("3 |     ret\n  |        ^\n"));
        // A position beyond the text (from a hand-made error) still renders.
        let odd = ParseError { line: 99, column: 500, len: 0, message: "m".into() };
        assert_eq!(odd.render("a\n", "z.gir"), "error: m\n  --> z.gir:99:500\n   |\n99 |\n   | ^\n");
    }

    // --- lexical errors ----------------------------------------------------------------------

    #[test]
    fn lexical_errors() {
        check_err(&kernel("    %3 = add %1, $1\n"), "$", "unexpected character `$`");
        check_err_nth(
            &kernel("    %3 = add %1, %1 ; é ok in a comment\n    %4 = é\n"),
            "é",
            1,
            "unexpected character `é`",
        );
        check_err(
            &kernel("    %1a = add %1, %1\n"),
            "%1a",
            "invalid value name `%1a`: expected `%` followed by digits or an identifier",
        );
        check_err(&kernel("    % = add %1, %1\n"), "% =", "expected a value name after `%`");
        check_err("kernel @1k() {\n}\n", "@1k", "invalid function name `@1k`: expected `@` followed by an identifier");
        check_err("kernel @ () {\n}\n", "@", "expected a function name after `@`");
        // Lexical errors are reported where the parser reaches them, after earlier errors.
        check_err("kernal @k() {\n}\n$", "kernal", "expected `kernel` or `func`, found `kernal`");
    }

    // --- module and header errors -------------------------------------------------------------

    #[test]
    fn header_errors() {
        check_err("kernel k() {\n}\n", "k(", "expected a function name (`@name`), found `k`");
        check_err("kernel @k(i32 i32) {\n}\n", "i32)", "expected `,` or `)`, found `i32`");
        check_err("kernel @k(i33) {\n}\n", "i33", "expected a type, found `i33`");
        check_err(
            "kernel @k(ptr<heap>) {\n}\n",
            "heap",
            "expected an address space (global, shared, constant, private, flat), found `heap`",
        );
        check_err("kernel @k(ptr) {\n}\n", ")", "expected `<` after `ptr`, found `)`");
        check_err("kernel @k() -> {\n}\n", "{", "expected a type, found `{`");
        check_err("kernel @k() block0:\n}\n", "block0", "expected `->`, a kernel attribute or `{`, found `block0`");
        check_err("func @f() -> i32 x {\n}\n", "x", "expected `{`, found `x`");
        check_err("kernel @k() reqd_workgroup_size(1, 2) {\n}\n", ") {", "expected `,`, found `)`");
        check_err(
            "kernel @k() max_workgroup_size(4294967296) {\n}\n",
            "4294967296",
            "expected a workgroup size, found `4294967296`, which does not fit in 32 bits",
        );
        check_err("kernel @k() max_workgroup_size(-1) {\n}\n", "-1", "expected a workgroup size, found `-1`");
        check_err(
            "func @f() dynamic_shared {\n}\n",
            "dynamic_shared",
            "kernel attribute `dynamic_shared` on helper function `@f`: only kernels take attributes",
        );
        check_err(
            "kernel @k() dynamic_shared max_workgroup_size(8) dynamic_shared {\n}\n",
            "dynamic_shared {",
            "duplicate kernel attribute `dynamic_shared`",
        );
        check_err_nth(
            "kernel @k() {\n}\n\nfunc @k() {\n}\n",
            "@k() {\n}\n",
            1,
            "redefinition of function `@k` (first defined at line 1)",
        );
        // The span of the redefinition is the name only.
        let e = parse_module("kernel @k() {\n}\nfunc @k() {\n}\n").unwrap_err();
        assert_eq!((e.line, e.column, e.len), (3, 6, 2));
        check_err("block0:\n    ret\n", "block0", "expected `kernel` or `func`, found `block0`");
        // The end of the input is just after the last character (here, on the empty last line).
        let e = parse_module("kernel @k() {\nblock0:\n    ret\n").unwrap_err();
        let message = "expected an instruction, a block label or `}`, found end of input".to_string();
        assert_eq!(e, ParseError { line: 4, column: 1, len: 1, message });
    }

    #[test]
    fn an_error_in_an_earlier_body_comes_before_a_later_header_error() {
        let src = "kernel @a() {\nblock0:\n    frob\n}\n\nkernel @b(i33) {\n}\n";
        check_err(src, "frob", "expected an instruction, found `frob`");
        // A call of a function whose header is broken reports the header.
        let src = "kernel @a() {\nblock0:\n    call @b()\n    ret\n}\n\nfunc @b(i33) {\n}\n";
        check_err(src, "i33", "expected a type, found `i33`");
    }

    // --- slots and blocks ---------------------------------------------------------------------

    #[test]
    fn slot_errors() {
        check_err(
            "kernel @k() {\n    slot0 = global 4 align 4\nblock0:\n    ret\n}\n",
            "global",
            "expected `shared` or `private`, found `global`",
        );
        check_err("kernel @k() {\n    slot0 = shared 4 4\nblock0:\n    ret\n}\n", "4\n", "expected `align`, found `4`");
        check_err(
            "kernel @k() {\n    buf = shared 4 align 4\n    buf = private 4 align 4\nblock0:\n    ret\n}\n",
            "buf = private",
            "duplicate slot `buf`",
        );
        let e =
            parse_module("kernel @k() {\n    buf = shared 4 align 4\n    buf = private 4 align 4\n}\n").unwrap_err();
        assert_eq!((e.line, e.column, e.len), (3, 5, 3));
        check_err(
            "kernel @k() {\nblock0:\n    slot0 = shared 4 align 4\n    ret\n}\n",
            "slot0",
            "slot declarations must come before the first block",
        );
        check_err(&kernel("    %3 = slot_addr slot0\n"), "slot0", "unknown slot `slot0`");
        check_err(&kernel("    %3 = slot_addr %1\n"), "%1\n", "expected a slot name, found `%1`");
    }

    #[test]
    fn block_errors() {
        check_err("kernel @k() {\n    ret\n}\n", "ret", "expected a block label (`block0:`), found `ret`");
        check_err(
            "kernel @k() {\nblock0:\n    jump block1\nblock1:\n    ret\nblock1:\n    ret\n}\n",
            "block1:\n    ret\n}",
            "duplicate block label `block1` (first defined at line 4)",
        );
        // The duplicate is reported at the second label.
        let e = parse_module("kernel @k() {\nblock0:\n    jump block1\nblock1:\n    ret\nblock1:\n    ret\n}\n")
            .unwrap_err();
        assert_eq!((e.line, e.column, e.len), (6, 1, 6));
        check_err(&kernel("    jump block7\nblock1:\n"), "block7", "unknown block `block7`");
        check_err("kernel @k() {\nblock0(%0 i32):\n    ret\n}\n", "i32", "expected `:`, found `i32`");
        check_err(
            "kernel @k() {\nblock0(i32):\n    ret\n}\n",
            "i32",
            "expected a block parameter (`%name: type`), found `i32`",
        );
        check_err("kernel @k() {\nblock0(%0: i32 %1: i32):\n    ret\n}\n", "%1", "expected `,` or `)`, found `%1`");
        check_err(&kernel("    jump %1\n"), "%1\n", "expected a block label, found `%1`");
        check_err(&kernel("    jump block0(%1 %2)\n"), "%2)", "expected `,` or `)`, found `%2`");
    }

    // --- values --------------------------------------------------------------------------------

    #[test]
    fn value_errors() {
        check_err(&kernel("    %3 = add %1, %9\n    %4 = add %9, %9\n"), "%9", "use of undefined value `%9`");
        check_err_nth(
            &kernel("    %3 = add %1, %1\n    %3 = add %1, %1\n"),
            "%3",
            1,
            "redefinition of value `%3` (first defined at 3:5)",
        );
        let e = parse_module(&kernel("    %3 = add %1, %1\n    %3 = add %1, %1\n")).unwrap_err();
        assert_eq!((e.line, e.column, e.len), (4, 5, 2));
        check_err(
            "kernel @k() {\nblock0(%a: i32):\n    jump block1(%a)\nblock1(%a: i32):\n    ret\n}\n",
            "%a: i32):\n    ret",
            "redefinition of value `%a` (first defined at 2:8)",
        );
        check_err(&kernel("    %3 = add %1\n"), "ret", "expected `,`, found `ret`");
        let e = parse_module(&kernel("    %3 = add %1\n")).unwrap_err();
        assert_eq!((e.line, e.column, e.len), (4, 5, 3));
        check_err(&kernel("    %3 = add 1, %1\n"), "1,", "expected a value (`%name`), found `1`");
        // The first undefined name in the text is reported, value or block.
        check_err(&kernel("    jump block5(%8)\n"), "block5", "unknown block `block5`");
        check_err(&kernel("    %3 = add %1, %8\n    jump block5\n"), "%8", "use of undefined value `%8`");
    }

    #[test]
    fn results_must_match_the_instruction() {
        check_err(
            &kernel("    %3 = store %0, %1\n"),
            "%3",
            "instruction has no result: `store` defines no value, so `%3 =` is not allowed",
        );
        check_err(
            "func @f() {\nblock0:\n    ret\n}\n\nkernel @k() {\nblock0:\n    %0 = call @f()\n    ret\n}\n",
            "%0",
            "instruction has no result: the callee returns nothing, so `%0 =` is not allowed",
        );
        check_err(
            &kernel("    %3 = ret\n"),
            "%3",
            "instruction has no result: `ret` defines no value, so `%3 =` is not allowed",
        );
        // An instruction with a result written without `%r =` still defines an (unnamed) value.
        let m = parse("kernel @k(i32) {\nblock0(%x: i32):\n    add %x, %x\n    %y = mul %x, %x\n    ret\n}\n");
        assert_eq!(
            m.to_string(),
            "kernel @k(i32) {\nblock0(%0: i32):\n    %1 = add %0, %0\n    %2 = mul %0, %0\n    ret\n}\n"
        );
    }

    #[test]
    fn function_errors() {
        check_err(&kernel("    %3 = call @nope(%1)\n"), "@nope", "unknown function `@nope`");
        check_err(&kernel("    %3 = call nope(%1)\n"), "nope", "expected a function name (`@name`), found `nope`");
        check_err(&kernel("    %3 = call @k %1\n"), "%1\n", "expected `(`, found `%1`");
    }

    // --- opcodes and operands -----------------------------------------------------------------

    #[test]
    fn opcode_errors() {
        check_err(&kernel("    %3 = frob %1\n"), "frob", "expected an instruction, found `frob`");
        check_err(&kernel("    %3 = frob.i32 %1\n"), "frob.i32", "expected an instruction, found `frob.i32`");
        check_err(&kernel("    %3 = add.i32 %1, %1\n"), ".i32", "unexpected suffix `.i32`: `add` takes none");
        check_err(&kernel("    %3 = iconst 1\n"), "iconst", "expected `iconst.TYPE`, found `iconst`");
        check_err(&kernel("    %3 = iconst. 1\n"), "iconst.", "expected `iconst.TYPE`, found `iconst.`");
        check_err(&kernel("    %3 = sext.i128 %1\n"), "i128", "expected a type, found `i128`");
        check_err(
            &kernel("    %3 = load.ptr<x> %0\n"),
            "x>",
            "expected an address space (global, shared, constant, private, flat), found `x`",
        );
        check_err(
            &kernel("    %3 = atomic_rmw.nand %0, %1 relaxed agent\n"),
            "nand",
            "expected an atomic operation (add, sub, and, or, xor, xchg, smin, smax, umin, umax, fadd, fsub, fmin, fmax), found `nand`",
        );
        check_err(
            &kernel("    %3 = atomic_rmw %0, %1 relaxed agent\n"),
            "atomic_rmw",
            "expected `atomic_rmw.OP`, found `atomic_rmw`",
        );
        check_err(
            &kernel("    %3 = reduce.mul %1\n"),
            "mul",
            "expected a reduction (add, smin, smax, umin, umax, fadd, fmin, fmax, and, or, xor), found `mul`",
        );
        check_err(&kernel("    %3 = local_id.w\n"), "w", "expected a dimension (x, y, z), found `w`");
        check_err(&kernel("    %3 = local_id\n"), "local_id", "expected `local_id.x`, found `local_id`");
        check_err(&kernel("    %3 = lane_id.x\n"), ".x", "unexpected suffix `.x`: `lane_id` takes none");
        check_err(
            &kernel("    %3 = icmp lt %1, %1\n"),
            "lt",
            "expected an integer condition (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge), found `lt`",
        );
        check_err(
            &kernel("    %3 = fcmp eq %2, %2\n"),
            "eq",
            "expected a float condition (oeq, one, olt, ole, ogt, oge, ord, uno, ueq, une, ult, ule, ugt, uge), found `eq`",
        );
        check_err(&kernel("    %3 = = %1\n"), "= %1", "expected an instruction, found `=`");
    }

    #[test]
    fn sync_and_flag_errors() {
        check_err(
            &kernel("    fence strong agent\n"),
            "strong",
            "expected an ordering (relaxed, acquire, release, acq_rel, seq_cst), found `strong`",
        );
        check_err(
            &kernel("    fence acquire device\n"),
            "device",
            "expected a scope (singlethread, wavefront, workgroup, cluster, agent, system), found `device`",
        );
        check_err(
            &kernel("    fence\n"),
            "ret",
            "expected an ordering (relaxed, acquire, release, acq_rel, seq_cst), found `ret`",
        );
        check_err(
            &kernel("    store %0, %1 volatile align 4 volatile\n"),
            "volatile\n",
            "duplicate memory flag `volatile`",
        );
        check_err(
            &kernel("    store %0, %1 visible(agent)\n"),
            "visible",
            "`visible` is not a store flag: a store takes `available(SCOPE)`",
        );
        check_err(
            &kernel("    %3 = load.i32 %0 available(agent)\n"),
            "available",
            "`available` is not a load flag: a load takes `visible(SCOPE)`",
        );
        check_err(&kernel("    %3 = load.i32 %0 visible agent\n"), "agent", "expected `(`, found `agent`");
        check_err(&kernel("    %3 = load.i32 %0 align\n"), "ret", "expected an alignment, found `ret`");
    }

    #[test]
    fn integer_constant_errors() {
        check_err(&kernel("    %3 = iconst.i8 256\n"), "256", "integer `256` does not fit in type i8");
        check_err(&kernel("    %3 = iconst.i8 -129\n"), "-129", "integer `-129` does not fit in type i8");
        check_err(&kernel("    %3 = iconst.i1 2\n"), "2\n", "integer `2` does not fit in type i1");
        check_err(
            &kernel("    %3 = iconst.i64 18446744073709551616\n"),
            "18446744073709551616",
            "integer `18446744073709551616` does not fit in type i64",
        );
        check_err(
            &kernel("    %3 = iconst.i64 -9223372036854775809\n"),
            "-9223372036854775809",
            "integer `-9223372036854775809` does not fit in type i64",
        );
        check_err(&kernel("    %3 = iconst.i32 1.5\n"), "1.5", "expected an integer constant of type i32, found `1.5`");
        check_err(&kernel("    %3 = iconst.i32 0xg\n"), "0xg", "expected an integer constant of type i32, found `0xg`");
        check_err(
            &kernel("    %3 = iconst.i32 true\n"),
            "true",
            "expected an integer constant of type i32, found `true`",
        );
        check_err(&kernel("    %3 = iconst.i32 %1\n"), "%1\n", "expected an integer constant of type i32, found `%1`");
        check_err(&kernel("    switch %1, block0, [x: block0]\n"), "x:", "expected a case value, found `x`");
        check_err(
            &kernel("    switch %1, block0, [18446744073709551616: block0]\n"),
            "18446744073709551616",
            "case value `18446744073709551616` does not fit in 64 bits",
        );
        check_err(
            &kernel("    switch %1, block0, [1: block0 2: block0]\n"),
            "2: block0]",
            "expected `,` or `]`, found `2`",
        );
        check_err(&kernel("    switch %1, block0, 1: block0\n"), "1: block0\n", "expected `[`, found `1`");
    }

    #[test]
    fn float_constant_errors() {
        check_err(&kernel("    %3 = fconst.f32 one\n"), "one", "expected a float constant of type f32, found `one`");
        check_err(&kernel("    %3 = fconst.f32 0x10\n"), "0x10", "expected a float constant of type f32, found `0x10`");
        check_err(
            &kernel("    %3 = fconst.f32 1.5.5\n"),
            "1.5.5",
            "expected a float constant of type f32, found `1.5.5`",
        );
        check_err(
            &kernel("    %3 = fconst.f32 nan:0x0\n"),
            "0x0",
            "expected the bits of a NaN of type f32, found `0x0`",
        );
        check_err(
            &kernel("    %3 = fconst.f16 nan:0x7fc00000\n"),
            "0x7fc00000",
            "expected the bits of a NaN of type f16, found `0x7fc00000`",
        );
        check_err(
            &kernel("    %3 = fconst.f32 nan:123\n"),
            "123",
            "expected the bits of a NaN (`nan:0x7fc00000`), found `123`",
        );
        check_err(&kernel("    %3 = fconst.f32 - 1\n"), "-", "expected a float constant of type f32, found `-`");
    }

    // --- instruction forms ---------------------------------------------------------------------

    /// Canonical text with every instruction form.
    const ALL_FORMS: &str = "func @h(i32) -> i32 {
block0(%0: i32):
    ret %0
}

func @v() {
block0:
    ret
}

kernel @all(ptr<global>, i32, f32, i1, ptr<flat>) reqd_workgroup_size(64, 1, 1) max_workgroup_size(64) dynamic_shared waves_per_simd(4) {
    slot0 = shared 64 align 16
    slot1 = private 8 align 8
block0(%0: ptr<global>, %1: i32, %2: f32, %3: i1, %4: ptr<flat>):
    %5 = iconst.i32 -7
    %6 = fconst.f32 0.5
    %7 = neg %1
    %8 = add %1, %5
    %9 = fma %2, %6, %2
    %10 = select %3, %1, %8
    %11 = icmp sge %1, %5
    %12 = fcmp uno %2, %6
    %13 = sext.i64 %1
    %14 = ptradd %0, %13
    %15 = addrspacecast.ptr<flat> %0
    %16 = slot_addr slot0
    %17 = slot_addr slot1
    %18 = dyn_shared_addr
    %19 = local_id.z
    %20 = wave_size
    %21 = load.i32 %14 align 2 volatile nontemporal visible(agent)
    store %4, %21 align 8 volatile nontemporal available(system)
    %22 = atomic_rmw.umax %0, %1 acq_rel agent av_none
    %23 = atomic_cas %0, %1, %8 seq_cst system
    %24 = atomic_load.i32 %16 acquire workgroup
    atomic_store %16, %24 release workgroup
    fence acq_rel cluster av_none
    barrier
    %25 = ballot %11
    %26 = readfirstlane %1
    %27 = shuffle %2, %1
    %28 = reduce.fmax %2
    %29 = call @h(%1)
    call @v()
    jump block1(%1)
block1(%30: i32):
    brif %3, block2, block3(%30, %2)
block2:
    switch %30, block3(%1, %6), [0: block4, -1: block3(%30, %2)]
block3(%31: i32, %32: f32):
    ret
block4:
    unreachable
}
";

    #[test]
    fn every_instruction_form_parses_and_round_trips() {
        let m = roundtrip(ALL_FORMS);
        assert_eq!(m.functions.len(), 3);
        let k = &m.functions[FuncId::new(2)];
        assert_eq!(
            k.kind,
            FuncKind::Kernel(KernelAttrs {
                reqd_workgroup_size: Some([64, 1, 1]),
                max_workgroup_size: Some(64),
                dynamic_shared: true,
                waves_per_simd: Some(4),
            })
        );
        assert_eq!(k.slots[Slot::new(0)], SlotData { space: AddrSpace::Shared, size: 64, align: 16 });
        assert_eq!(k.slots[Slot::new(1)], SlotData { space: AddrSpace::Private, size: 8, align: 8 });
        assert_eq!(m.functions[FuncId::new(0)].kind, FuncKind::Helper);
        assert_eq!(m.functions[FuncId::new(0)].signature, Signature { params: vec![Type::I32], ret: Some(Type::I32) });
        let v = Value::new;
        let b = Block::new;
        let sync = |ordering, scope, av_none| SyncInfo { ordering, scope, av_none };
        let expected = vec![
            InstData::IntConst { ty: Type::I32, imm: (-7i32) as u32 as u64 },
            InstData::FloatConst { ty: Type::F32, bits: u64::from(0.5f32.to_bits()) },
            InstData::Unary { op: UnaryOp::Neg, arg: v(1) },
            InstData::Binary { op: BinaryOp::Add, args: [v(1), v(5)] },
            InstData::Fma { args: [v(2), v(6), v(2)] },
            InstData::Select { args: [v(3), v(1), v(8)] },
            InstData::Icmp { cc: IntCC::Sge, args: [v(1), v(5)] },
            InstData::Fcmp { cc: FloatCC::Uno, args: [v(2), v(6)] },
            InstData::Convert { op: ConvOp::Sext, ty: Type::I64, arg: v(1) },
            InstData::PtrAdd { args: [v(0), v(13)] },
            InstData::AddrSpaceCast { ty: Type::Ptr(AddrSpace::Flat), arg: v(0) },
            InstData::SlotAddr { slot: Slot::new(0) },
            InstData::SlotAddr { slot: Slot::new(1) },
            InstData::DynSharedAddr,
            InstData::Special { value: Special::LocalId(Dim::Z) },
            InstData::Special { value: Special::WaveSize },
            InstData::Load {
                ty: Type::I32,
                ptr: v(14),
                flags: MemFlags { align: 2, volatile: true, nontemporal: true, av: Some(Scope::Agent) },
            },
            InstData::Store {
                args: [v(4), v(21)],
                flags: MemFlags { align: 8, volatile: true, nontemporal: true, av: Some(Scope::System) },
            },
            InstData::AtomicRmw {
                op: RmwOp::Umax,
                args: [v(0), v(1)],
                sync: sync(Ordering::AcqRel, Scope::Agent, true),
            },
            InstData::AtomicCas { args: [v(0), v(1), v(8)], sync: sync(Ordering::SeqCst, Scope::System, false) },
            InstData::AtomicLoad { ty: Type::I32, ptr: v(16), sync: sync(Ordering::Acquire, Scope::Workgroup, false) },
            InstData::AtomicStore { args: [v(16), v(24)], sync: sync(Ordering::Release, Scope::Workgroup, false) },
            InstData::Fence { sync: sync(Ordering::AcqRel, Scope::Cluster, true) },
            InstData::Barrier,
            InstData::Ballot { arg: v(11) },
            InstData::ReadFirstLane { arg: v(1) },
            InstData::Shuffle { args: [v(2), v(1)] },
            InstData::Reduce { op: ReduceOp::Fmax, arg: v(2) },
            InstData::Call { func: FuncId::new(0), args: SmallVec::from_slice(&[v(1)]) },
            InstData::Call { func: FuncId::new(1), args: SmallVec::new() },
            InstData::Jump { dest: BlockCall::new(b(1), &[v(1)]) },
            InstData::Brif {
                cond: v(3),
                dests: Box::new([BlockCall::new(b(2), &[]), BlockCall::new(b(3), &[v(30), v(2)])]),
            },
            InstData::Switch {
                arg: v(30),
                cases: vec![0, 0xffff_ffff].into_boxed_slice(),
                dests: vec![
                    BlockCall::new(b(3), &[v(1), v(6)]),
                    BlockCall::new(b(4), &[]),
                    BlockCall::new(b(3), &[v(30), v(2)]),
                ]
                .into_boxed_slice(),
            },
            InstData::Return { arg: None },
            InstData::Unreachable,
        ];
        assert_eq!(insts(&m), expected);
        // Result types come from Function::result_type.
        let ty = |n: usize| k.dfg.value_type(v(n));
        assert_eq!(ty(10), Type::I32);
        assert_eq!(ty(11), Type::I1);
        assert_eq!(ty(14), Type::Ptr(AddrSpace::Global));
        assert_eq!(ty(15), Type::Ptr(AddrSpace::Flat));
        assert_eq!(ty(16), Type::Ptr(AddrSpace::Shared));
        assert_eq!(ty(17), Type::Ptr(AddrSpace::Private));
        assert_eq!(ty(18), Type::Ptr(AddrSpace::Shared));
        assert_eq!(ty(22), Type::I32);
        assert_eq!(ty(25), Type::I64);
        assert_eq!(ty(27), Type::F32);
        assert_eq!(ty(29), Type::I32);
        assert_eq!(ty(32), Type::F32);
        assert_eq!(k.dfg.blocks[b(3)].params, vec![v(31), v(32)]);
        assert_eq!(k.layout, (0..5).map(b).collect::<Vec<_>>());
    }

    #[test]
    fn every_opcode_name_parses() {
        for &op in UnaryOp::ALL {
            let m = parse(&kernel(&format!("    %3 = {op} %1\n")));
            assert_eq!(insts(&m)[0], InstData::Unary { op, arg: Value::new(1) });
        }
        for &op in BinaryOp::ALL {
            let m = parse(&kernel(&format!("    %3 = {op} %1, %1\n")));
            assert_eq!(insts(&m)[0], InstData::Binary { op, args: [Value::new(1); 2] });
        }
        for &cc in IntCC::ALL {
            let m = parse(&kernel(&format!("    %3 = icmp {cc} %1, %1\n")));
            assert_eq!(insts(&m)[0], InstData::Icmp { cc, args: [Value::new(1); 2] });
        }
        for &cc in FloatCC::ALL {
            let m = parse(&kernel(&format!("    %3 = fcmp {cc} %2, %2\n")));
            assert_eq!(insts(&m)[0], InstData::Fcmp { cc, args: [Value::new(2); 2] });
        }
        for &op in ConvOp::ALL {
            for ty in Type::SCALARS.into_iter().chain(AddrSpace::ALL.map(Type::Ptr)) {
                let m = roundtrip(&kernel(&format!("    %3 = {op}.{ty} %1\n")));
                assert_eq!(insts(&m)[0], InstData::Convert { op, ty, arg: Value::new(1) });
            }
        }
        for &op in RmwOp::ALL {
            let m = roundtrip(&kernel(&format!("    %3 = atomic_rmw.{op} %0, %1 relaxed agent\n")));
            assert!(matches!(insts(&m)[0], InstData::AtomicRmw { op: o, .. } if o == op));
        }
        for &op in ReduceOp::ALL {
            let m = roundtrip(&kernel(&format!("    %3 = reduce.{op} %1\n")));
            assert_eq!(insts(&m)[0], InstData::Reduce { op, arg: Value::new(1) });
        }
        for &ordering in Ordering::ALL {
            for &scope in Scope::ALL {
                for av_none in [false, true] {
                    let av = if av_none { " av_none" } else { "" };
                    let m = roundtrip(&kernel(&format!("    fence {ordering} {scope}{av}\n")));
                    assert_eq!(insts(&m)[0], InstData::Fence { sync: SyncInfo { ordering, scope, av_none } });
                }
            }
        }
        for base in ["local_id", "group_id", "group_size", "num_groups"] {
            for &d in Dim::ALL {
                let m = roundtrip(&kernel(&format!("    %3 = {base}.{d}\n")));
                assert_eq!(insts(&m)[0], InstData::Special { value: Special::from_parts(base, Some(d)).unwrap() });
            }
        }
        for (text, value) in [("lane_id", Special::LaneId), ("wave_size", Special::WaveSize)] {
            let m = roundtrip(&kernel(&format!("    %3 = {text}\n")));
            assert_eq!(insts(&m)[0], InstData::Special { value });
        }
    }

    #[test]
    fn every_type_parses() {
        for ty in Type::SCALARS.into_iter().chain(AddrSpace::ALL.map(Type::Ptr)) {
            let align = if ty.bytes() == Some(1) { "" } else { " align 1" };
            let src =
                format!("func @f({ty}) -> {ty} {{\nblock0(%0: {ty}):\n    %1 = load.{ty} %0{align}\n    ret %0\n}}\n");
            let m = roundtrip(&src);
            let f = &m.functions[FuncId::new(0)];
            assert_eq!(f.signature, Signature { params: vec![ty], ret: Some(ty) });
            assert_eq!(f.dfg.value_type(Value::new(1)), ty);
        }
        // Whitespace inside a pointer type is allowed.
        let m = parse("func @f(ptr < shared >) {\nblock0(%0: ptr<shared>):\n    ret\n}\n");
        assert_eq!(m.functions[FuncId::new(0)].signature.params, vec![Type::Ptr(AddrSpace::Shared)]);
    }

    #[test]
    fn integer_constants() {
        let cases: &[(&str, &str, u64, &str)] = &[
            ("i1", "1", 1, "1"),
            ("i1", "true", 1, "1"),
            ("i1", "false", 0, "0"),
            ("i1", "-1", 1, "1"),
            ("i8", "255", 0xff, "-1"),
            ("i8", "-128", 0x80, "-128"),
            ("i8", "0x7f", 0x7f, "127"),
            ("i16", "0xFFFF", 0xffff, "-1"),
            ("i32", "-2147483648", 0x8000_0000, "-2147483648"),
            ("i32", "4294967295", 0xffff_ffff, "-1"),
            ("i32", "-0x10", 0xffff_fff0, "-16"),
            ("i64", "18446744073709551615", u64::MAX, "-1"),
            ("i64", "-9223372036854775808", 1 << 63, "-9223372036854775808"),
            ("i64", "0x0123456789abcdef", 0x0123_4567_89ab_cdef, "81985529216486895"),
            ("ptr<global>", "0", 0, "0"),
            ("ptr<shared>", "0xffffffff", 0xffff_ffff, "-1"),
        ];
        for &(ty, text, imm, printed) in cases {
            let m = parse(&kernel(&format!("    %3 = iconst.{ty} {text}\n")));
            let InstData::IntConst { imm: got, .. } = insts(&m)[0] else { panic!("not an iconst") };
            assert_eq!(got, imm, "iconst.{ty} {text}");
            assert_eq!(m.to_string(), kernel(&format!("    %3 = iconst.{ty} {printed}\n")));
        }
    }

    #[test]
    fn float_constants() {
        let f32_bits = |x: f32| u64::from(x.to_bits());
        let f16_bits = |x: f32| u64::from(half::f16::from_f32(x).to_bits());
        let cases: &[(&str, &str, u64, &str)] = &[
            ("f32", "1.5", f32_bits(1.5), "1.5"),
            ("f32", "2", f32_bits(2.0), "2.0"),
            ("f32", "-0.0", f32_bits(-0.0), "-0.0"),
            ("f32", "1e-7", f32_bits(1e-7), "1e-7"),
            ("f32", "1E+3", f32_bits(1000.0), "1000.0"),
            ("f32", "0.1", f32_bits(0.1), "0.1"),
            ("f32", "inf", f32_bits(f32::INFINITY), "inf"),
            ("f32", "-inf", f32_bits(f32::NEG_INFINITY), "-inf"),
            ("f32", "nan:0x7fc00001", 0x7fc0_0001, "nan:0x7fc00001"),
            ("f32", "nan", 0x7fc0_0000, "nan:0x7fc00000"),
            ("f32", "1e39", f32_bits(f32::INFINITY), "inf"),
            ("f64", "0.1", 0.1f64.to_bits(), "0.1"),
            ("f64", "-2.5e-300", (-2.5e-300f64).to_bits(), "-2.5e-300"),
            ("f64", "nan:0xfff8000000000001", 0xfff8_0000_0000_0001, "nan:0xfff8000000000001"),
            ("f16", "1.5", f16_bits(1.5), "1.5"),
            ("f16", "0.1", f16_bits(0.1), "0.099975586"),
            ("f16", "65504", 0x7bff, "65504.0"),
            ("f16", "1e6", 0x7c00, "inf"),
            ("f16", "nan:0x7e01", 0x7e01, "nan:0x7e01"),
            ("f16", "-inf", 0xfc00, "-inf"),
        ];
        for &(ty, text, bits, printed) in cases {
            let m = parse(&kernel(&format!("    %3 = fconst.{ty} {text}\n")));
            let InstData::FloatConst { bits: got, .. } = insts(&m)[0] else { panic!("not an fconst") };
            assert_eq!(got, bits, "fconst.{ty} {text}");
            assert_eq!(m.to_string(), kernel(&format!("    %3 = fconst.{ty} {printed}\n")));
        }
        // A non-float fconst is the verifier's business; it reads as f64 and prints back.
        roundtrip(&kernel("    %3 = fconst.i64 1.5\n"));
        check_err(
            &kernel("    %3 = fconst.i32 nan:0x7ff8000000000000\n"),
            "0x7ff8000000000000",
            "expected the bits of a NaN of type i32, found `0x7ff8000000000000`",
        );
    }

    #[test]
    fn memory_flags_in_any_order_with_natural_default_alignment() {
        let m = parse(&kernel(
            "    %3 = load.f64 %0\n    %4 = load.i16 %0 visible(system) align 2 nontemporal\n    store %0, %3 align 8\n    store %0, %4 available(agent) volatile align 4\n    %5 = load.i1 %0\n",
        ));
        let i = insts(&m);
        assert_eq!(i[0], InstData::Load { ty: Type::F64, ptr: Value::new(0), flags: MemFlags::aligned(8) });
        let flags = MemFlags { align: 2, volatile: false, nontemporal: true, av: Some(Scope::System) };
        assert_eq!(i[1], InstData::Load { ty: Type::I16, ptr: Value::new(0), flags });
        assert_eq!(i[2], InstData::Store { args: [Value::new(0), Value::new(3)], flags: MemFlags::aligned(8) });
        let flags = MemFlags { align: 4, volatile: true, nontemporal: false, av: Some(Scope::Agent) };
        assert_eq!(i[3], InstData::Store { args: [Value::new(0), Value::new(4)], flags });
        // `i1` has no size: its accesses default to align 1 (the verifier rejects them).
        assert_eq!(i[4], InstData::Load { ty: Type::I1, ptr: Value::new(0), flags: MemFlags::aligned(1) });
        assert_eq!(
            m.to_string(),
            kernel("    %3 = load.f64 %0\n    %4 = load.i16 %0 nontemporal visible(system)\n    store %0, %3\n    store %0, %4 align 4 volatile available(agent)\n    %5 = load.i1 %0 align 1\n")
        );
    }

    #[test]
    fn store_alignment_waits_for_a_forward_value_type() {
        // The stored value is defined after the store in the text (in a dominating block).
        let src = "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    jump block2\nblock1:\n    store %0, %2\n    ret\nblock2:\n    %2 = iconst.i16 3\n    jump block1\n}\n";
        let m = parse(src);
        let InstData::Store { flags, .. } = insts(&m)[1] else { panic!("not a store") };
        assert_eq!(flags.align, 2);
        assert_eq!(m.to_string(), src.replace("%2", "%1"));
    }

    #[test]
    fn switch_cases_are_masked_to_the_selector_type() {
        let m =
            parse(&kernel("    %3 = itrunc.i8 %1\n    switch %3, block0, [-1: block0, 0x7f: block0, -0x80: block0]\n"));
        let InstData::Switch { cases, .. } = &insts(&m)[1] else { panic!("not a switch") };
        assert_eq!(&cases[..], &[0xff, 0x7f, 0x80]);
        assert!(m.to_string().contains("switch %3, block0, [-1: block0, 127: block0, -128: block0]"));
    }

    #[test]
    fn names_comments_and_spacing_are_free() {
        let src = "; a comment\n  func @twice(i32)->i32{\n entry ( %x : i32 ) : ; params\n %y=add %x,%x\n ret %y }\n\n\
                   kernel @k.v2(ptr<global>) dynamic_shared reqd_workgroup_size(2,2,2) {\n  tile = shared 16 align 4\n\
                   start(%p: ptr<global>):\n  %t = slot_addr tile\n  %n = call @twice(%c)\n  jump loop_head(%n)\n\
                   loop_head(%i: i32):\n  %c = iconst.i32 0x10\n  store %t, %i align 4\n  brif %done, exit, loop_head(%i)\n\
                   exit:\n  ret\n}";
        // `%done` is undefined.
        check_err(src, "%done", "use of undefined value `%done`");
        let src =
            src.replace("%done", "%f").replace("%c = iconst.i32 0x10", "%c = iconst.i32 0x10\n %f = icmp eq %i, %c");
        let m = parse(&src);
        assert_eq!(
            m.to_string(),
            "func @twice(i32) -> i32 {\nblock0(%0: i32):\n    %1 = add %0, %0\n    ret %1\n}\n\n\
             kernel @k.v2(ptr<global>) reqd_workgroup_size(2, 2, 2) dynamic_shared {\n    slot0 = shared 16 align 4\n\
             block0(%0: ptr<global>):\n    %1 = slot_addr slot0\n    %2 = call @twice(%4)\n    jump block1(%2)\n\
             block1(%3: i32):\n    %4 = iconst.i32 16\n    %5 = icmp eq %3, %4\n    store %1, %3\n    brif %5, block2, block1(%3)\n\
             block2:\n    ret\n}\n"
        );
    }

    #[test]
    fn calls_may_name_later_functions() {
        let src = "kernel @k(i32) {\nblock0(%0: i32):\n    %1 = call @f(%0)\n    %2 = add %1, %1\n    ret\n}\n\nfunc @f(i32) -> i64 {\nblock0(%0: i32):\n    %1 = zext.i64 %0\n    ret %1\n}\n";
        let m = roundtrip(src);
        let k = &m.functions[FuncId::new(0)];
        assert_eq!(k.dfg.value_type(Value::new(1)), Type::I64);
        assert_eq!(k.dfg.value_type(Value::new(2)), Type::I64);
        assert_eq!(insts(&roundtrip("kernel @k() {\n}\n")), vec![]);
        assert_eq!(parse("").functions.len(), 0);
        assert_eq!(parse("; nothing\n\n").functions.len(), 0);
    }

    #[test]
    fn forward_references_get_their_types() {
        let src = "kernel @k(ptr<global>, i32) {\nblock0(%0: ptr<global>, %1: i32):\n    jump block3\nblock1:\n    %2 = add %6, %1\n    %3 = fmul %7, %7\n    %4 = sitofp.f32 %2\n    %5 = fadd %3, %4\n    store %0, %5\n    jump block2\nblock2:\n    ret\nblock3:\n    %6 = iconst.i32 7\n    %7 = fconst.f32 1.5\n    %8 = icmp slt %6, %1\n    brif %8, block1, block2\n}\n";
        let m = roundtrip(src);
        let k = &m.functions[FuncId::new(0)];
        let types: Vec<Type> = (2..9).map(|n| k.dfg.value_type(Value::new(n))).collect();
        assert_eq!(types, [Type::I32, Type::F32, Type::F32, Type::F32, Type::I32, Type::F32, Type::I1]);
    }

    #[test]
    fn ret_does_not_swallow_the_next_definition() {
        let m = parse("func @f(i32) -> i32 {\nblock0(%0: i32):\n    ret\n    %1 = add %0, %0\n}\n");
        assert_eq!(
            insts(&m),
            vec![InstData::Return { arg: None }, InstData::Binary { op: BinaryOp::Add, args: [Value::new(0); 2] }]
        );
        // Labels named like opcodes or flags are still labels.
        let src = "kernel @k(ptr<global>) {\nstore:\n    %v = load.i32 %p\n    jump align\nalign:\n    ret\n}\n";
        check_err(src, "%p", "use of undefined value `%p`");
        let m = parse(&src.replace("store:", "store(%p: ptr<global>):"));
        assert_eq!(m.functions[FuncId::new(0)].layout.len(), 2);
    }

    /// Each instruction's location is its text, from its first token to its last, whatever
    /// the layout's order of the blocks; blocks and functions are at their labels and names.
    #[test]
    fn instructions_are_located_at_their_text() {
        let src = "; c\nfunc @f(i32) -> i32 {\nentry(%a: i32):\n    jump two\none:\n    ret %b ; done\n\
                   two:\n    %b = add %a,\n         %a\n    jump one\n}\n";
        let (m, locations) = parse_module_located(src).unwrap();
        let f = &m.functions[FuncId::new(0)];
        let texts: Vec<&str> = f.insts_in_layout().map(|(_, i)| &src[f.srclocs[i].range().unwrap()]).collect();
        assert_eq!(texts, ["jump two", "ret %b", "%b = add %a,\n         %a", "jump one"]);
        let at = |loc: SourceLoc| &src[loc.range().unwrap()];
        assert_eq!(at(locations.funcs[0].name), "@f");
        assert_eq!(locations.funcs[0].blocks.iter().map(|&l| at(l)).collect::<Vec<_>>(), ["entry", "one", "two"]);
        assert_eq!(locations.function(&m, "f"), Some(locations.funcs[0].name));
    }

    #[test]
    fn long_forward_chains_do_not_recurse() {
        // %v0 = add %v1, %v1; %v1 = add %v2, %v2; ... in a block printed before the block that
        // defines the last one: type resolution walks a 20000-deep chain.
        let n = 20_000;
        let mut src =
            String::from("func @f(i64) -> i64 {\nblock0(%p: i64):\n    jump block2\nblock1:\n    ret %v0\nblock2:\n");
        for i in 0..n {
            src.push_str(&format!("    %v{i} = add %v{}, %v{}\n", i + 1, i + 1));
        }
        src.push_str(&format!("    %v{n} = add %p, %p\n    jump block1\n}}\n"));
        let m = parse(&src);
        let f = &m.functions[FuncId::new(0)];
        assert!(f.dfg.values.values().all(|v| v.ty == Type::I64));
        // A cycle (invalid SSA, left to the verifier) does not hang or panic.
        parse("func @f() {\nblock0:\n    %a = add %b, %b\n    %b = add %a, %a\n    ret\n}\n");
    }
}
