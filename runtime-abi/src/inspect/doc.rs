//! A small document tree (maps keep their order) and its renderings: block-style YAML in the
//! shape llvm-readobj-19 prints metadata (`key: value`, `- ` list items, nested blocks
//! indented by two), for a YAML reader ([`Doc::to_yaml`]) or for LLVM's assembler
//! ([`Doc::to_llvm_yaml`]), and pretty-printed JSON. Hand-written, so that no YAML library is
//! needed.

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

    /// The document with every map's entries in key order, so that two documents compare
    /// equal whatever order their maps were written in.
    pub fn sorted(self) -> Doc {
        match self {
            Doc::Map(mut entries) => {
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Doc::Map(entries.into_iter().map(|(k, v)| (k, v.sorted())).collect())
            }
            Doc::List(items) => Doc::List(items.into_iter().map(Doc::sorted).collect()),
            scalar => scalar,
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
            Doc::Float(value) => float_text(*value, Reader::Standard),
            Doc::Str(text) => text.clone(),
            Doc::List(_) | Doc::Map(_) => return None,
        })
    }

    /// The document as block-style YAML, ending with a newline.
    pub fn to_yaml(&self) -> String {
        self.yaml(Reader::Standard)
    }

    /// The document as block-style YAML that LLVM's `msgpack::Document` reads back to the same
    /// values (the `.amdgpu_metadata` block of an assembly file): LLVM types every scalar by
    /// its text, quoted or not, so a string it would read as a number or a boolean carries the
    /// tag `!str`, a float `!float` and a null `!nil`; a string that is not plain is
    /// double-quoted with every character but printable ASCII escaped (inside double quotes
    /// the assembler's lexer sees no comment). Two values do not come back from llvm-mc-19,
    /// and a caller that needs them to refuses them first: a NUL character (written `\x00`;
    /// the assembler refuses the document) and a float (written as LLVM writes one; the
    /// assembler stores nil).
    pub fn to_llvm_yaml(&self) -> String {
        self.yaml(Reader::Llvm)
    }

    fn yaml(&self, reader: Reader) -> String {
        let mut out = String::new();
        match self {
            Doc::Map(entries) if !entries.is_empty() => yaml_map(entries, 0, reader, &mut out),
            Doc::List(items) if !items.is_empty() => yaml_list(items, 0, reader, &mut out),
            scalar => {
                out.push_str(&yaml_inline(scalar, reader));
                out.push('\n');
            }
        }
        out
    }

    /// The document as pretty-printed JSON (two-space indentation), ending with a newline.
    pub fn to_json(&self) -> String {
        // Writing a serde_json value into a String cannot fail.
        let mut out = serde_json::to_string_pretty(&json(self)).unwrap_or_default();
        out.push('\n');
        out
    }
}

/// A float's text: YAML's `.nan`, `.inf` and `-.inf` for a YAML reader, `strtod`'s `nan`,
/// `inf` and `-inf` for LLVM's; finite values in decimal, which both read.
fn float_text(value: f64, reader: Reader) -> String {
    let (nan, inf) = match reader {
        Reader::Standard => (".nan", ".inf"),
        Reader::Llvm => ("nan", "inf"),
    };
    if value.is_nan() {
        nan.into()
    } else if value.is_infinite() {
        if value > 0.0 {
            inf.into()
        } else {
            format!("-{inf}")
        }
    } else if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

fn indent(out: &mut String, level: usize) {
    out.extend(std::iter::repeat_n(' ', level));
}

/// The YAML reader a rendering is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Reader {
    /// A YAML reader: a quoted scalar is a string, a plain one typed by its text.
    Standard,
    /// LLVM's `msgpack::Document` (`DocNode::fromString`): every scalar typed by its text
    /// unless a tag says otherwise.
    Llvm,
}

/// A value that fits on its line: a scalar, or an empty list or map.
fn yaml_inline(value: &Doc, reader: Reader) -> String {
    match (value, reader) {
        (Doc::Str(text), Reader::Standard) => yaml_string(text),
        (Doc::Str(text), Reader::Llvm) if llvm_reads_as_other(text) => format!("!str {}", llvm_string(text)),
        (Doc::Str(text), Reader::Llvm) => llvm_string(text),
        (Doc::Float(value), Reader::Llvm) => format!("!float {}", float_text(*value, Reader::Llvm)),
        (Doc::Null, Reader::Llvm) => "!nil ''".into(),
        (Doc::List(_), _) => "[]".into(),
        (Doc::Map(_), _) => "{}".into(),
        (scalar, _) => scalar.scalar_text().unwrap_or_default(),
    }
}

/// Whether LLVM's `DocNode::fromString` may read `text` as something other than a string: an
/// integer (`getAsInteger` with radix prefixes), a boolean (`yaml::parseBool`'s words) or a
/// float (`strtod`, which skips leading white space and reads `inf`, `nan` and hex floats).
/// It errs towards yes, since a needless `!str` tag is harmless.
fn llvm_reads_as_other(text: &str) -> bool {
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\u{b}', '\u{c}', '\r']);
    let unsigned = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    let lower = unsigned.to_ascii_lowercase();
    let numeric = unsigned.starts_with(|c: char| c.is_ascii_digit())
        || unsigned.strip_prefix('.').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        || lower.starts_with("inf")
        || lower.starts_with("nan");
    let boolean =
        matches!(text.to_ascii_lowercase().as_str(), "y" | "yes" | "true" | "on" | "n" | "no" | "false" | "off");
    text.is_empty() || numeric || boolean
}

/// A string for LLVM's assembler: plain when it is letters, digits, `_`, `.` and `-` (not
/// first), else double-quoted, with every character but printable ASCII escaped (`\xNN`,
/// `\uNNNN`, `\UNNNNNNNN`). The assembler's lexer reads a double-quoted string as one token,
/// so a `;` or `//` inside it does not start a comment, as it may in a plain or single-quoted
/// scalar.
fn llvm_string(text: &str) -> String {
    let plain_char = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    if !text.is_empty() && text.chars().all(plain_char) && !text.starts_with('-') {
        return text.to_string();
    }
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            ' '..='~' => quoted.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(quoted, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(quoted, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(quoted, "\\U{:08x}", c as u32);
            }
        }
    }
    quoted.push('"');
    quoted
}

/// `key: value` lines at `level`, nested blocks two deeper. LLVM reads every key as a string,
/// so keys carry no tag.
fn yaml_map(entries: &[(String, Doc)], level: usize, reader: Reader, out: &mut String) {
    for (index, (key, value)) in entries.iter().enumerate() {
        // The first entry of a map inside a list item continues the `- ` line.
        if index > 0 || !out.ends_with("- ") {
            indent(out, level);
        }
        out.push_str(&match reader {
            Reader::Standard => yaml_string(key),
            Reader::Llvm => llvm_string(key),
        });
        out.push(':');
        yaml_value(value, level + 2, reader, out);
    }
}

/// `- item` lines at `level`.
fn yaml_list(items: &[Doc], level: usize, reader: Reader, out: &mut String) {
    for (index, item) in items.iter().enumerate() {
        if index > 0 || !out.ends_with("- ") {
            indent(out, level);
        }
        out.push_str("- ");
        match item {
            Doc::Map(entries) if !entries.is_empty() => yaml_map(entries, level + 2, reader, out),
            Doc::List(items) if !items.is_empty() => yaml_list(items, level + 2, reader, out),
            scalar => {
                out.push_str(&yaml_inline(scalar, reader));
                out.push('\n');
            }
        }
    }
}

/// What follows `key:`: ` scalar` on the line, or a block on the next lines.
fn yaml_value(value: &Doc, level: usize, reader: Reader, out: &mut String) {
    match value {
        Doc::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            yaml_map(entries, level, reader, out);
        }
        Doc::List(items) if !items.is_empty() => {
            out.push('\n');
            yaml_list(items, level, reader, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&yaml_inline(scalar, reader));
            out.push('\n');
        }
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

/// `value` as a JSON value (serde_json's, its maps in insertion order); a float that is not
/// finite, which JSON cannot write, is `null`.
fn json(value: &Doc) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Doc::Null => Value::Null,
        Doc::Bool(b) => Value::Bool(*b),
        Doc::Int(v) => Value::from(*v),
        Doc::UInt(v) => Value::from(*v),
        Doc::Float(v) => serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
        Doc::Str(text) => Value::String(text.clone()),
        Doc::List(items) => Value::Array(items.iter().map(json).collect()),
        Doc::Map(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), json(v))).collect()),
    }
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
