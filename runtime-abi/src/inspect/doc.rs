//! A small document tree (maps keep their order) and its two renderings: block-style YAML in
//! the shape llvm-readobj-19 prints metadata (`key: value`, `- ` list items, nested blocks
//! indented by two), and pretty-printed JSON. Hand-written, so that no YAML library is needed.

use std::fmt::Write;

/// A value of the document.
#[derive(Clone, Debug, PartialEq)]
pub enum Doc {
    /// No value (`null`).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer too large for `i64`.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    List(Vec<Doc>),
    /// A mapping, in insertion order.
    Map(Vec<(String, Doc)>),
}

impl From<&str> for Doc {
    fn from(text: &str) -> Doc {
        Doc::Str(text.to_string())
    }
}

impl From<String> for Doc {
    fn from(text: String) -> Doc {
        Doc::Str(text)
    }
}

impl From<bool> for Doc {
    fn from(value: bool) -> Doc {
        Doc::Bool(value)
    }
}

impl From<i64> for Doc {
    fn from(value: i64) -> Doc {
        Doc::Int(value)
    }
}

impl From<u64> for Doc {
    fn from(value: u64) -> Doc {
        i64::try_from(value).map_or(Doc::UInt(value), Doc::Int)
    }
}

impl From<u32> for Doc {
    fn from(value: u32) -> Doc {
        Doc::Int(value.into())
    }
}

impl From<u8> for Doc {
    fn from(value: u8) -> Doc {
        Doc::Int(value.into())
    }
}

impl Doc {
    /// The value under `key` of a map (the first one), if this is a map that has it.
    pub fn get(&self, key: &str) -> Option<&Doc> {
        match self {
            Doc::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a scalar as YAML shows it unquoted (strings as they are), or None for a
    /// list or a map. Two documents agree field by field when their scalars have equal texts.
    pub fn scalar_text(&self) -> Option<String> {
        Some(match self {
            Doc::Null => "null".into(),
            Doc::Bool(value) => value.to_string(),
            Doc::Int(value) => value.to_string(),
            Doc::UInt(value) => value.to_string(),
            Doc::Float(value) => float_text(*value),
            Doc::Str(text) => text.clone(),
            Doc::List(_) | Doc::Map(_) => return None,
        })
    }

    /// The document as block-style YAML, ending with a newline.
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        match self {
            Doc::Map(entries) if !entries.is_empty() => yaml_map(entries, 0, &mut out),
            Doc::List(items) if !items.is_empty() => yaml_list(items, 0, &mut out),
            scalar => {
                out.push_str(&yaml_inline(scalar));
                out.push('\n');
            }
        }
        out
    }

    /// The document as pretty-printed JSON (two-space indentation), ending with a newline.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        json(self, 0, &mut out);
        out.push('\n');
        out
    }
}

fn float_text(value: f64) -> String {
    if value.is_nan() {
        ".nan".into()
    } else if value.is_infinite() {
        if value > 0.0 { ".inf" } else { "-.inf" }.into()
    } else if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

fn indent(out: &mut String, level: usize) {
    out.extend(std::iter::repeat_n(' ', level));
}

/// A value that fits on its line: a scalar, or an empty list or map.
fn yaml_inline(value: &Doc) -> String {
    match value {
        Doc::Str(text) => yaml_string(text),
        Doc::List(_) => "[]".into(),
        Doc::Map(_) => "{}".into(),
        scalar => scalar.scalar_text().expect("a scalar"),
    }
}

fn is_block(value: &Doc) -> bool {
    matches!(value, Doc::List(items) if !items.is_empty()) || matches!(value, Doc::Map(entries) if !entries.is_empty())
}

/// `key: value` lines at `level`, nested blocks two deeper.
fn yaml_map(entries: &[(String, Doc)], level: usize, out: &mut String) {
    for (index, (key, value)) in entries.iter().enumerate() {
        // The first entry of a map inside a list item continues the `- ` line.
        if index > 0 || !out.ends_with("- ") {
            indent(out, level);
        }
        out.push_str(&yaml_string(key));
        out.push(':');
        yaml_value(value, level + 2, out);
    }
}

/// `- item` lines at `level`.
fn yaml_list(items: &[Doc], level: usize, out: &mut String) {
    for (index, item) in items.iter().enumerate() {
        if index > 0 || !out.ends_with("- ") {
            indent(out, level);
        }
        out.push_str("- ");
        match item {
            Doc::Map(entries) if !entries.is_empty() => yaml_map(entries, level + 2, out),
            Doc::List(items) if !items.is_empty() => yaml_list(items, level + 2, out),
            scalar => {
                out.push_str(&yaml_inline(scalar));
                out.push('\n');
            }
        }
    }
}

/// What follows `key:`: ` scalar` on the line, or a block on the next lines.
fn yaml_value(value: &Doc, level: usize, out: &mut String) {
    if is_block(value) {
        out.push('\n');
        match value {
            Doc::Map(entries) => yaml_map(entries, level, out),
            Doc::List(items) => yaml_list(items, level, out),
            _ => unreachable!("blocks are lists and maps"),
        }
    } else {
        out.push(' ');
        out.push_str(&yaml_inline(value));
        out.push('\n');
    }
}

/// A string as a YAML scalar: plain when that reads back as the same string, single-quoted
/// when it would read as something else, double-quoted with escapes when it has control
/// characters.
fn yaml_string(text: &str) -> String {
    if text.chars().any(|c| c.is_control()) {
        let mut quoted = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => quoted.push_str("\\\""),
                '\\' => quoted.push_str("\\\\"),
                '\n' => quoted.push_str("\\n"),
                '\t' => quoted.push_str("\\t"),
                c if c.is_control() => {
                    let _ = write!(quoted, "\\u{:04x}", c as u32);
                }
                c => quoted.push(c),
            }
        }
        quoted.push('"');
        return quoted;
    }
    let plain_char = |c: char| c.is_alphanumeric() || " _.-/()+=<>$^".contains(c);
    let looks_special = matches!(
        text.to_ascii_lowercase().as_str(),
        "" | "~" | "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | ".nan" | ".inf" | "-.inf"
    );
    // A number, or text a YAML reader could take for one (`1e5`, `.5`, `-3`, `+x`).
    let numeric = text.parse::<f64>().is_ok()
        || text.starts_with(|c: char| c.is_ascii_digit() || c == '+')
        || (text.starts_with(['-', '.']) && text[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.'));
    let plain = !looks_special
        && !numeric
        && text.chars().all(plain_char)
        && !text.starts_with([' ', '-'])
        && !text.ends_with(' ');
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "''"))
    }
}

fn json(value: &Doc, level: usize, out: &mut String) {
    match value {
        Doc::Float(v) if !v.is_finite() => out.push_str("null"),
        Doc::Str(text) => json_string(text, out),
        Doc::List(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (index, item) in items.iter().enumerate() {
                indent(out, level + 2);
                json(item, level + 2, out);
                out.push_str(if index + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push(']');
        }
        Doc::Map(entries) if !entries.is_empty() => {
            out.push_str("{\n");
            for (index, (key, item)) in entries.iter().enumerate() {
                indent(out, level + 2);
                json_string(key, out);
                out.push_str(": ");
                json(item, level + 2, out);
                out.push_str(if index + 1 < entries.len() { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push('}');
        }
        Doc::List(_) => out.push_str("[]"),
        Doc::Map(_) => out.push_str("{}"),
        Doc::Float(v) => {
            let _ = write!(out, "{v:?}");
        }
        scalar => out.push_str(&scalar.scalar_text().expect("a scalar")),
    }
}

fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Doc {
        Doc::Map(vec![
            (
                "amdhsa.kernels".into(),
                Doc::List(vec![Doc::Map(vec![
                    (".args".into(), Doc::List(vec![Doc::Map(vec![(".offset".into(), Doc::Int(0))])])),
                    (".language".into(), "OpenCL C".into()),
                    (".language_version".into(), Doc::List(vec![Doc::Int(2), Doc::Int(0)])),
                    (".type_name".into(), "uint*".into()),
                    (".uses_dynamic_stack".into(), false.into()),
                ])]),
            ),
            ("empty".into(), Doc::List(vec![])),
            ("odd".into(), "it's \"x\"\n".into()),
            ("number".into(), "123".into()),
        ])
    }

    #[test]
    fn yaml_is_block_style_like_llvm_readobj() {
        let expected = "\
amdhsa.kernels:
  - .args:
      - .offset: 0
    .language: OpenCL C
    .language_version:
      - 2
      - 0
    .type_name: 'uint*'
    .uses_dynamic_stack: false
empty: []
odd: \"it's \\\"x\\\"\\n\"
number: '123'
";
        assert_eq!(sample().to_yaml(), expected);
    }

    #[test]
    fn json_is_escaped_and_nested() {
        let text = sample().to_json();
        assert!(text.starts_with("{\n  \"amdhsa.kernels\": [\n    {\n      \".args\": [\n"), "{text}");
        assert!(text.contains("\"odd\": \"it's \\\"x\\\"\\n\""));
        assert!(text.contains("\"empty\": []"));
        assert!(text.contains("\".language_version\": [\n        2,\n        0\n      ]"));
    }
}
