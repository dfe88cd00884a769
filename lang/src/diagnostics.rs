//! Diagnostics: what is wrong with a source file, where, and how to fix it.
//!
//! Every phase (lexer, parser, checker, lowering) reports a [`Diagnostic`]: a byte [`Span`] of
//! the source, a message that says what is wrong, and where one exists a help line with the
//! fix. [`Diagnostics`] collects them for one file and renders them the way rustc does, through
//! codespan-reporting with ASCII art and no colours: the file, line and column, the source line
//! with carets under the span, and the help line.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config};
use std::fmt;

/// A range of bytes `start..end` of the source text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte.
    pub start: u32,
    /// One past the last byte (equal to `start` for a point, such as the end of the input).
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    /// The span as a byte range.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One error in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the error is.
    pub span: Span,
    /// What is wrong.
    pub message: String,
    /// How to fix it, where the compiler knows.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span` saying `message`.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), help: None }
    }

    /// The same error with a help line saying how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// The 1-based line and column (in characters) of the start of the span in `src`.
    pub fn line_col(&self, src: &str) -> (usize, usize) {
        line_col(src, self.span.start as usize)
    }

    /// `line:column: message` — the short form that tests compare.
    pub fn short(&self, src: &str) -> String {
        let (line, col) = self.line_col(src);
        format!("{line}:{col}: {}", self.message)
    }
}

/// The 1-based line and column (counted in characters) of a byte offset: the IR's, which
/// also turns the backend's source locations into lines.
pub use frontend_ir::srcloc::line_col;

/// Every error of one source file, in source order, with the file's name for rendering.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} error(s) in {file_name}", list.len())]
pub struct Diagnostics {
    /// The file name shown in rendered diagnostics.
    pub file_name: String,
    /// The errors, sorted by position.
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// The errors of `file_name`, sorted by position (stable among equal positions).
    pub fn new(file_name: &str, mut list: Vec<Diagnostic>) -> Diagnostics {
        list.sort_by_key(|d| (d.span.start, d.span.end));
        Diagnostics { file_name: file_name.to_string(), list }
    }

    /// Renders every error as rustc would (ASCII, no colour), followed by a summary line.
    ///
    /// ```text
    /// error: mismatched types: expected `u32`, found `f32`
    ///   --> saxpy.gk:3:18
    ///   |
    /// 3 |     let x: u32 = 1.5;
    ///   |                  ^^^
    ///   |
    ///   = help: convert with `as`: `(1.5) as u32`
    /// ```
    pub fn render(&self, src: &str) -> String {
        let file = SimpleFile::new(self.file_name.as_str(), src);
        let config = Config { chars: Chars::ascii(), ..Config::default() };
        let mut out = NoColor::new(Vec::new());
        for d in &self.list {
            let range = clamp_range(src, d.span);
            let mut diag = CsDiagnostic::error().with_message(&d.message).with_labels(vec![Label::primary((), range)]);
            if let Some(help) = &d.help {
                diag = diag.with_notes(vec![format!("help: {help}")]);
            }
            if term::emit(&mut out, &config, &file, &diag).is_err() {
                // Rendering into memory cannot fail on I/O; fall back to the short form anyway.
                out.get_mut().extend_from_slice(format!("error: {}\n", d.short(src)).as_bytes());
            }
        }
        let mut text = String::from_utf8_lossy(&out.into_inner()).into_owned();
        let n = self.list.len();
        text.push_str(&format!("error: could not compile `{}` due to {n} error{}\n", self.file_name, plural(n)));
        text
    }

    /// The `line:column: message` form of every error, in order.
    pub fn short(&self, src: &str) -> Vec<String> {
        self.list.iter().map(|d| d.short(src)).collect()
    }
}

/// `"s"` unless `n` is 1.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The span as a range of `src` on character boundaries, within the text.
fn clamp_range(src: &str, span: Span) -> std::ops::Range<usize> {
    let fix = |mut i: usize| {
        i = i.min(src.len());
        while !src.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = fix(span.start as usize);
    start..fix(span.end as usize).max(start)
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_shows_the_line_caret_and_help() {
        let src = "kernel k() {\n    let x: u32 = 1.5;\n}\n";
        let d = Diagnostics::new(
            "t.gk",
            vec![Diagnostic::new(Span::new(30, 33), "expected `u32`, found `f32`").with_help("write an integer")],
        );
        let text = d.render(src);
        assert!(text.starts_with("error: expected `u32`, found `f32`\n  --> t.gk:2:18\n"), "{text}");
        assert!(text.contains("2 |     let x: u32 = 1.5;\n  |                  ^^^\n"), "{text}");
        assert!(text.contains("= help: write an integer\n"), "{text}");
        assert!(text.ends_with("error: could not compile `t.gk` due to 1 error\n"), "{text}");
    }

    #[test]
    fn render_survives_spans_past_the_end_and_inside_characters() {
        let src = "é";
        let d = Diagnostics::new("x.gk", vec![Diagnostic::new(Span::new(1, 9), "bad")]);
        assert!(d.render(src).contains("x.gk:1:1"));
        let d = Diagnostics::new("x.gk", vec![Diagnostic::new(Span::new(7, 9), "end")]);
        assert!(d.render(src).contains("x.gk:1:2"));
    }
}
