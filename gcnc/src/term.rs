//! Diagnostics on the terminal: colored as rustc and clang color theirs when stderr is a
//! terminal (or `--color=always`), plain when it is piped or a file (or `--color=never`,
//! or `NO_COLOR` is set). The diagnostics are rendered as plain text by the front ends
//! (`error: ...`, ` --> file:line:col`, the source line, a caret); [`paint`] styles the parts
//! of that layout, and the stream strips the styles again where color is off.

use std::io::Write;
use std::sync::OnceLock;

use anstyle::{AnsiColor, Style};
use clap::ValueEnum;

/// When diagnostics are colored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// When stderr is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The choice of the command line, set once before anything is printed.
static CHOICE: OnceLock<anstream::ColorChoice> = OnceLock::new();

/// Sets the color choice for the rest of the program (the first call wins).
pub fn set_color(when: ColorWhen) {
    let choice = match when {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    let _ = CHOICE.set(choice);
}

const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const NOTE: Style = AnsiColor::Cyan.on_default().bold();
const GUTTER: Style = AnsiColor::Blue.on_default().bold();
const BOLD: Style = Style::new().bold();

/// `text`, a rendered diagnostic, with styles: the severity label and the message after it,
/// the location arrow and the gutter, and the caret line.
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let label = ["error", "warning", "note", "help"]
            .into_iter()
            .find(|l| body.strip_prefix(l).is_some_and(|rest| rest.starts_with(':') || rest.starts_with('[')));
        if let Some(label) = label {
            let style = match label {
                "error" => ERROR,
                "warning" => WARNING,
                _ => NOTE,
            };
            let colon = body.find(':').unwrap_or(body.len());
            let (head, message) = body.split_at(colon);
            out.push_str(&format!("{style}{head}{style:#}{BOLD}{message}{BOLD:#}{end}"));
        } else if let Some(gutter_end) = gutter(body) {
            let (gutter, rest) = body.split_at(gutter_end);
            let rest = if rest.trim_start().starts_with(['^', '~']) && rest.trim().chars().all(|c| "^~- ".contains(c)) {
                format!("{ERROR}{rest}{ERROR:#}")
            } else {
                rest.to_string()
            };
            out.push_str(&format!("{GUTTER}{gutter}{GUTTER:#}{rest}{end}"));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Where the gutter of a source-snippet line ends: ` --> ` of the location line, or the `|`
/// after a line number or spaces, if `line` is one of those.
fn gutter(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("--> ") {
        return Some(line.len() - trimmed.len() + 4);
    }
    let bar = line.find('|')?;
    line[..bar].chars().all(|c| c.is_ascii_digit() || c == ' ').then_some(bar + 1)
}

/// Writes `text` (a rendered diagnostic or an `error: ...` line) to stderr, colored as
/// [`set_color`] chose. A failing stderr is ignored: there is nowhere left to report it.
pub fn eprint_diagnostic(text: &str) {
    let choice = CHOICE.get().copied().unwrap_or(anstream::ColorChoice::Auto);
    let mut err = anstream::AutoStream::new(std::io::stderr().lock(), choice);
    let _ = err.write_all(paint(text).as_bytes());
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of rustc's layout get styles, the text itself is kept, and stripping the
    /// styles gives the plain text back.
    #[test]
    fn paint_styles_the_layout_and_keeps_the_text() {
        let plain = "error: unknown name `y`\n  --> k.gk:2:12\n  |\n2 |     x[0] = y;\n  |            ^\n\nerror: could not compile\n";
        let painted = paint(plain);
        assert_ne!(painted, plain);
        let stripped: String = anstream::adapter::strip_str(&painted).to_string();
        assert_eq!(stripped, plain);
        assert!(painted.starts_with(&format!("{ERROR}error{ERROR:#}")), "{painted:?}");
        assert!(painted.contains(&format!("{ERROR}            ^{ERROR:#}")), "{painted:?}");
        assert!(painted.contains(&format!("{GUTTER}  --> {GUTTER:#}k.gk:2:12")), "{painted:?}");
        assert!(painted.contains(&format!("{GUTTER}2 |{GUTTER:#}     x[0] = y;")), "{painted:?}");
        // A line of the message that only looks like a gutter is left as it is.
        assert_eq!(paint("a | b\n"), "a | b\n");
    }
}
