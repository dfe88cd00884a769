//! The lexer: source text to tokens, by hand.
//!
//! Whitespace and comments (`// ...` to the end of the line, `/* ... */` nesting) are skipped.
//! Numbers keep their text (without `_`) and an optional type suffix (`1u`, `7i64`, `2.5f64`);
//! the checker gives them a value once their type is known. A character that starts no token,
//! an unterminated block comment or a malformed number is reported and lexing goes on, so the
//! parser always sees the whole file; the token list always ends with [`Tok::Eof`].

use crate::diagnostics::{Diagnostic, Span};
use crate::types::ScalarTy;

/// A token's kind and, for names and numbers, its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name or keyword-like identifier that is not a keyword.
    Ident(String),
    /// An integer literal: its digits (decimal, or with `0x`/`0b`/`0o` kept), and its suffix.
    Int(String, Option<ScalarTy>),
    /// A float literal: its text as Rust's `parse` reads it, and its suffix.
    Float(String, Option<ScalarTy>),
    /// A keyword.
    Kw(Kw),
    /// Punctuation or an operator.
    P(P),
    /// The end of the input.
    Eof,
}

/// Keywords.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Kw {
    Kernel,
    Fn,
    Let,
    Var,
    Shared,
    If,
    Else,
    While,
    For,
    In,
    Loop,
    Break,
    Continue,
    Return,
    As,
    True,
    False,
}

impl Kw {
    const ALL: [(&'static str, Kw); 17] = [
        ("kernel", Kw::Kernel),
        ("fn", Kw::Fn),
        ("let", Kw::Let),
        ("var", Kw::Var),
        ("shared", Kw::Shared),
        ("if", Kw::If),
        ("else", Kw::Else),
        ("while", Kw::While),
        ("for", Kw::For),
        ("in", Kw::In),
        ("loop", Kw::Loop),
        ("break", Kw::Break),
        ("continue", Kw::Continue),
        ("return", Kw::Return),
        ("as", Kw::As),
        ("true", Kw::True),
        ("false", Kw::False),
    ];

    /// The keyword's text.
    pub fn text(self) -> &'static str {
        Kw::ALL.iter().find(|(_, k)| *k == self).map_or("?", |(t, _)| t)
    }
}

/// Punctuation and operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum P {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Colon,
    Arrow,
    Dot,
    DotDot,
    Hash,
    Bang,
    Amp,
    AmpAmp,
    Pipe,
    PipePipe,
    Caret,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
}

/// Punctuation by text, longest first so that the lexer can take the first match.
const PUNCT: [(&str, P); 43] = [
    ("<<=", P::ShlEq),
    (">>=", P::ShrEq),
    ("->", P::Arrow),
    ("..", P::DotDot),
    ("&&", P::AmpAmp),
    ("||", P::PipePipe),
    ("<<", P::Shl),
    (">>", P::Shr),
    ("<=", P::Le),
    (">=", P::Ge),
    ("==", P::EqEq),
    ("!=", P::Ne),
    ("+=", P::PlusEq),
    ("-=", P::MinusEq),
    ("*=", P::StarEq),
    ("/=", P::SlashEq),
    ("%=", P::PercentEq),
    ("&=", P::AmpEq),
    ("|=", P::PipeEq),
    ("^=", P::CaretEq),
    ("(", P::LParen),
    (")", P::RParen),
    ("{", P::LBrace),
    ("}", P::RBrace),
    ("[", P::LBracket),
    ("]", P::RBracket),
    (",", P::Comma),
    (";", P::Semi),
    (":", P::Colon),
    (".", P::Dot),
    ("#", P::Hash),
    ("!", P::Bang),
    ("&", P::Amp),
    ("|", P::Pipe),
    ("^", P::Caret),
    ("+", P::Plus),
    ("-", P::Minus),
    ("*", P::Star),
    ("/", P::Slash),
    ("%", P::Percent),
    ("<", P::Lt),
    (">", P::Gt),
    ("=", P::Eq),
];

impl P {
    /// The punctuation's text.
    pub fn text(self) -> &'static str {
        PUNCT.iter().find(|(_, p)| *p == self).map_or("?", |(t, _)| t)
    }
}

impl Tok {
    /// How the token is named in "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(name) => format!("`{name}`"),
            Tok::Int(text, _) | Tok::Float(text, _) => format!("`{text}`"),
            Tok::Kw(k) => format!("keyword `{}`", k.text()),
            Tok::P(p) => format!("`{}`", p.text()),
            Tok::Eof => "the end of the file".to_string(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its bytes in the source.
    pub span: Span,
}

/// Splits `src` into tokens (ending with [`Tok::Eof`]) and the errors found on the way.
pub fn lex(src: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    // About a token per four bytes of source, reserved at once up to a million tokens (the
    // vector grows past that as it must).
    let toks = Vec::with_capacity((src.len() / 4 + 16).min(1 << 20));
    let mut lx = Lexer { src, bytes: src.as_bytes(), pos: 0, toks, errors: Vec::new() };
    lx.run();
    (lx.toks, lx.errors)
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    toks: Vec<Token>,
    errors: Vec<Diagnostic>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn push(&mut self, tok: Tok, start: usize) {
        self.toks.push(Token { tok, span: Span::new(start, self.pos) });
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) -> &mut Diagnostic {
        self.errors.push(Diagnostic::new(Span::new(start, end), message));
        self.errors.last_mut().expect("just pushed")
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            let start = self.pos;
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if b == b'/' && self.peek(1) == b'*' {
                self.block_comment();
            } else if is_ident_start(b) {
                while self.pos < self.bytes.len() && is_ident_char(self.bytes[self.pos]) {
                    self.pos += 1;
                }
                let word = &self.src[start..self.pos];
                let tok = match Kw::ALL.iter().find(|(t, _)| *t == word) {
                    Some(&(_, kw)) => Tok::Kw(kw),
                    None => Tok::Ident(word.to_string()),
                };
                self.push(tok, start);
            } else if b.is_ascii_digit() {
                self.number();
            } else if let Some(&(text, p)) =
                PUNCT.iter().find(|(t, _)| t.as_bytes()[0] == b && self.bytes[self.pos..].starts_with(t.as_bytes()))
            {
                self.pos += text.len();
                self.push(Tok::P(p), start);
            } else {
                let c = self.src[start..].chars().next().unwrap_or('?');
                self.pos += c.len_utf8();
                let end = self.pos;
                let e = self.error(start, end, format!("unexpected character `{}`", c.escape_debug()));
                if c == '"' || c == '\'' {
                    e.help = Some("the kernel language has no strings or characters".to_string());
                }
            }
        }
        self.toks.push(Token { tok: Tok::Eof, span: Span::new(self.pos, self.pos) });
    }

    /// Skips a (nesting) block comment starting at `/*`.
    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        let mut depth = 1;
        while depth > 0 {
            if self.pos >= self.bytes.len() {
                self.error(start, start + 2, "unterminated block comment").help =
                    Some("close it with `*/`".to_string());
                return;
            }
            if self.bytes[self.pos..].starts_with(b"*/") {
                depth -= 1;
                self.pos += 2;
            } else if self.bytes[self.pos..].starts_with(b"/*") {
                depth += 1;
                self.pos += 2;
            } else {
                self.pos += 1;
            }
        }
    }

    /// A number: decimal, `0x` hex, `0b` binary or `0o` octal integers; decimal floats with a
    /// fraction (`1.5`, not `1.`, so that `0..n` is a range) and/or an exponent; then an
    /// optional suffix.
    fn number(&mut self) {
        let start = self.pos;
        let radix_prefix = match (self.peek(0), self.peek(1)) {
            (b'0', b'x' | b'X') => Some(16),
            (b'0', b'b' | b'B') => Some(2),
            (b'0', b'o' | b'O') => Some(8),
            _ => None,
        };
        let mut text = String::new();
        let mut is_float = false;
        if let Some(radix) = radix_prefix {
            text.push_str(&self.src[start..start + 2].to_ascii_lowercase());
            self.pos += 2;
            while self.pos < self.bytes.len() {
                let c = self.bytes[self.pos];
                if c == b'_' {
                    self.pos += 1;
                } else if (c as char).is_digit(radix) {
                    text.push(c as char);
                    self.pos += 1;
                } else {
                    break;
                }
            }
        } else {
            self.digits(&mut text);
            if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
                is_float = true;
                text.push('.');
                self.pos += 1;
                self.digits(&mut text);
            }
            let sign = matches!(self.peek(1), b'+' | b'-') as usize;
            if matches!(self.peek(0), b'e' | b'E') && self.peek(1 + sign).is_ascii_digit() {
                is_float = true;
                text.push('e');
                if sign == 1 {
                    text.push(self.peek(1) as char);
                }
                self.pos += 1 + sign;
                self.digits(&mut text);
            }
        }
        let suffix_start = self.pos;
        while self.pos < self.bytes.len() && is_ident_char(self.bytes[self.pos]) {
            self.pos += 1;
        }
        let suffix = self.src[suffix_start..self.pos].trim_start_matches('_');
        let suffix_ty = match suffix {
            "" => None,
            "u" => Some(ScalarTy::U32),
            s => ScalarTy::from_name(s).filter(|t| *t != ScalarTy::Bool),
        };
        let end = self.pos;
        if !suffix.is_empty() && suffix_ty.is_none() {
            self.error(suffix_start, end, format!("invalid suffix `{suffix}` on a number")).help =
                Some("valid suffixes: u (u32), i32, u32, i64, u64, f16, f32, f64".to_string());
        }
        if radix_prefix.is_some() && text.len() == 2 {
            self.error(start, end, "a number needs at least one digit after its base prefix");
            text.push('0');
        }
        let tok = match suffix_ty {
            Some(t) if t.is_float() && radix_prefix.is_some() => {
                self.error(start, end, "a hexadecimal, binary or octal number cannot have a float suffix");
                Tok::Int(text, None)
            }
            Some(t) if t.is_float() => Tok::Float(text, Some(t)),
            Some(_) if is_float => {
                self.error(suffix_start, end, format!("a float literal cannot have the integer suffix `{suffix}`"));
                Tok::Float(text, None)
            }
            suffix_ty if is_float => Tok::Float(text, suffix_ty),
            suffix_ty => Tok::Int(text, suffix_ty),
        };
        self.push(tok, start);
    }

    fn digits(&mut self, text: &mut String) {
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            if c.is_ascii_digit() {
                text.push(c as char);
            } else if c != b'_' {
                break;
            }
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        let (toks, errors) = lex(src);
        assert!(errors.is_empty(), "{errors:?}");
        toks.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn ranges_numbers_and_suffixes() {
        assert_eq!(
            toks("0..n 1u 2.5f64 1_000 0xffu 3e2 7f32"),
            vec![
                Tok::Int("0".into(), None),
                Tok::P(P::DotDot),
                Tok::Ident("n".into()),
                Tok::Int("1".into(), Some(ScalarTy::U32)),
                Tok::Float("2.5".into(), Some(ScalarTy::F64)),
                Tok::Int("1000".into(), None),
                Tok::Int("0xff".into(), Some(ScalarTy::U32)),
                Tok::Float("3e2".into(), None),
                Tok::Float("7".into(), Some(ScalarTy::F32)),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn operators_take_the_longest_match() {
        assert_eq!(
            toks("a<<=b>>c->d /* x /* y */ */ // z\n&&"),
            vec![
                Tok::Ident("a".into()),
                Tok::P(P::ShlEq),
                Tok::Ident("b".into()),
                Tok::P(P::Shr),
                Tok::Ident("c".into()),
                Tok::P(P::Arrow),
                Tok::Ident("d".into()),
                Tok::P(P::AmpAmp),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn errors_are_reported_and_lexing_goes_on() {
        let (toks, errors) = lex("a $ 1.5u32 \"s\" /* open");
        assert_eq!(toks.len(), 4); // a, 1.5, s, EOF
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unexpected character `$`",
                "a float literal cannot have the integer suffix `u32`",
                "unexpected character `\\\"`",
                "unexpected character `\\\"`",
                "unterminated block comment"
            ]
        );
    }
}
