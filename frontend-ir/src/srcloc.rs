//! Source locations of instructions, the way Cranelift keeps them: a [`SourceLoc`] is a byte
//! range of the text a function came from, and each [`Function`](crate::Function) has a dense
//! side table from its instructions to their locations (`Function::srclocs`, empty and free
//! when nobody sets one). The kernel language's lowering sets the builder's current location
//! ([`FunctionBuilder::set_srcloc`](crate::builder::FunctionBuilder::set_srcloc)) from the spans
//! of its statements and expressions, and the `.gir` parser records the text of each
//! instruction, so one mechanism serves both inputs; passes that replace an instruction give
//! the new ones its location. The backend's errors about an instruction carry its location,
//! and whoever holds the text turns it into `file:line:col` ([`SourceLoc::line_col`],
//! [`SourceLoc::render`]). Locations are not part of the text format, and neither the
//! verifier nor the interpreter reads them.
//!
//! A byte range rather than a line and column: both front ends have it at hand without
//! counting lines, it is 8 bytes, and it gives the caret its width when rendered.

use std::ops::Range;

/// Where an instruction is written: the byte range `start..end` of the source text, or no
/// location ([`SourceLoc::NONE`], the default).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    start: u32,
    end: u32,
}

impl Default for SourceLoc {
    fn default() -> SourceLoc {
        SourceLoc::NONE
    }
}

impl SourceLoc {
    /// No location: an instruction a program built without one, or a text past 4 GiB.
    pub const NONE: SourceLoc = SourceLoc { start: u32::MAX, end: u32::MAX };

    /// The bytes `range` of the source (`end` is raised to `start` if below it); no location
    /// when the start does not fit in 32 bits.
    pub fn new(range: Range<usize>) -> SourceLoc {
        match u32::try_from(range.start) {
            Ok(start) if start != u32::MAX => {
                SourceLoc { start, end: u32::try_from(range.end).unwrap_or(u32::MAX - 1).max(start) }
            }
            _ => SourceLoc::NONE,
        }
    }

    /// Whether this is [`SourceLoc::NONE`].
    pub fn is_none(self) -> bool {
        self == SourceLoc::NONE
    }

    /// The byte range, unless this is no location.
    pub fn range(self) -> Option<Range<usize>> {
        (!self.is_none()).then_some(self.start as usize..self.end as usize)
    }

    /// The 1-based line and column (in characters) where the location starts in `src`.
    pub fn line_col(self, src: &str) -> Option<(u32, u32)> {
        let (line, col) = line_col(src, self.range()?.start);
        Some((u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(col).unwrap_or(u32::MAX)))
    }

    /// An error `message` at this location of `src`, named `filename`, rendered as the `.gir`
    /// parser renders its errors ([`render_at`](crate::parser::render_at)): the message,
    /// `filename:line:col`, the source line and carets under the location's first line.
    /// `None` for no location.
    pub fn render(self, src: &str, filename: &str, message: &str) -> Option<String> {
        let range = self.range()?;
        let at = self.line_col(src)?;
        let text = src.get(range.start..range.end.min(src.len())).unwrap_or("");
        let width = text.split('\n').next().unwrap_or("").chars().count();
        Some(crate::parser::render_at(src, filename, at, u32::try_from(width).unwrap_or(u32::MAX), message))
    }
}

/// The 1-based line and column (counted in characters) of byte `offset` of `src`; an offset
/// inside a character or past the end is moved back to a character boundary.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let src = "ab\ncé d\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 6), (2, 3)); // after the two-byte é
        assert_eq!(line_col(src, 5), (2, 2)); // inside é: moved back
        assert_eq!(line_col(src, 100), (3, 1));
    }

    #[test]
    fn none_is_the_default_and_has_no_range() {
        assert!(SourceLoc::default().is_none());
        assert_eq!(SourceLoc::NONE.range(), None);
        assert_eq!(SourceLoc::NONE.line_col("x"), None);
        assert!(SourceLoc::new(u32::MAX as usize..u32::MAX as usize + 5).is_none());
        let (start, end) = (7, 3);
        assert_eq!(SourceLoc::new(start..end).range(), Some(7..7));
    }

    #[test]
    fn render_points_at_the_first_line_of_the_range() {
        let src = "kernel @k() {\nblock0:\n    barrier\n    ret\n}\n";
        let start = src.find("barrier").unwrap();
        let loc = SourceLoc::new(start..start + "barrier".len());
        assert_eq!(loc.line_col(src), Some((3, 5)));
        let text = loc.render(src, "k.gir", "no barrier here").unwrap();
        assert_eq!(text, "error: no barrier here\n --> k.gir:3:5\n  |\n3 |     barrier\n  |     ^^^^^^^\n");
        // A range over several lines underlines the rest of its first line.
        let end = src.find("ret").unwrap() + 3;
        assert!(SourceLoc::new(start..end).render(src, "k.gir", "m").unwrap().ends_with("|     ^^^^^^^\n"));
    }
}
