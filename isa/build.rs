//! Compiles the opcode tables into static data, so that no program parses them when it starts
//! (issue 21): `src/tables/gfx1100.txt`, `gfx942.txt` and `gfx90a.txt` (generated from llvm-mc-19
//! by `scripts/gen_tables.py`; their headers give the syntax) become
//! `$OUT_DIR/opcode_tables.rs`, one `static` `Table` per family with its lines, its index by
//! opcode and its sorted indexes by (encoding, number) and by name, which `src/table.rs`
//! includes. A line's operation is found by its assembly name among the `Opcode` entries of
//! `src/opcode.rs` (written by hand) and `src/tables/opcodes.rs` (generated), read here as the
//! lines `Variant: (Format11, "name11"), (Format9, "name9");` of their macro input, in variant
//! order; the operand shapes of `src/operands.rs` (`$OUT_DIR/opcode_shapes.rs`) come from the
//! same lines. A malformed table fails the build with its file and line.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The tables: the family's variant name and the text file.
const FAMILIES: [(&str, &str); 3] = [("Gfx11", "gfx1100.txt"), ("Gfx9", "gfx942.txt"), ("Gfx90a", "gfx90a.txt")];

/// The encodings of the text (`Enc::parse` once), in the declaration order of `table::Enc`,
/// which the index by number is sorted by; each with its `Format`.
const ENCODINGS: [(&str, &str, &str); 19] = [
    ("sop1", "Sop1", "Sop1"),
    ("sop2", "Sop2", "Sop2"),
    ("sopk", "Sopk", "Sopk"),
    ("sopc", "Sopc", "Sopc"),
    ("sopp", "Sopp", "Sopp"),
    ("smem", "Smem", "Smem"),
    ("vop1", "Vop1", "Vop1"),
    ("vop2", "Vop2", "Vop2"),
    ("vopc", "Vopc", "Vopc"),
    ("vop3", "Vop3", "Vop3"),
    ("vop3sd", "Vop3sd", "Vop3sd"),
    ("vop3p", "Vop3p", "Vop3p"),
    ("mai", "Mai", "Vop3p"),
    ("vopd", "Vopd", "Vopd"),
    ("ds", "Ds", "Ds"),
    ("flat", "Flat", "Flat"),
    ("global", "Global", "Global"),
    ("scratch", "Scratch", "Scratch"),
    ("mubuf", "Mubuf", "Mubuf"),
];

/// The slot fields of the text and their `table::Field` variants.
const FIELDS: [(&str, &str); 18] = [
    ("sdst", "Sdst"),
    ("ssrc0", "Ssrc0"),
    ("ssrc1", "Ssrc1"),
    ("simm16", "Simm16"),
    ("sdata", "Sdata"),
    ("sbase", "Sbase"),
    ("soffset", "Soffset"),
    ("offset", "Offset"),
    ("vdst", "Vdst"),
    ("src0", "Src0"),
    ("src1", "Src1"),
    ("src2", "Src2"),
    ("lit", "Lit"),
    ("addr", "Addr"),
    ("data", "Data"),
    ("data0", "Data0"),
    ("data1", "Data1"),
    ("saddr", "Saddr"),
];

/// The register kinds of the text, their `table::Kind` variants and the `operands::Loc` of
/// an operand of that kind (immediates are `Ssrc`).
const KINDS: [(&str, &str, &str); 11] = [
    ("s", "S", "Sgpr"),
    ("v", "V", "Vgpr"),
    ("a", "A", "Vgpr"),
    ("av", "Av", "Vgpr"),
    ("ss", "Ss", "Ssrc"),
    ("vs", "Vs", "Vsrc"),
    ("vi", "Vi", "Vsrc"),
    ("avi", "Avi", "Vsrc"),
    ("l", "L", "Lane"),
    ("m", "M", "Mask"),
    ("k", "K", "Ssrc"),
];

/// The immediate print styles of the text and their `table::ImmStyle` variants.
const STYLES: [(&str, &str); 11] = [
    ("hex", "Hex"),
    ("dec", "Dec"),
    ("branch", "Branch"),
    ("opt", "Opt"),
    ("hwreg", "Hwreg"),
    ("sendmsg", "Sendmsg"),
    ("waitcnt", "Waitcnt"),
    ("delay", "Delay"),
    ("depctr", "Depctr"),
    ("gpridx", "Gpridx"),
    ("imm", "Plain"),
];

/// The constant types of the text and their `table::ConstType` variants (none: `B32`).
const CTYPES: [(&str, &str); 8] = [
    ("f16", "F16"),
    ("i16", "I16"),
    ("bf16", "Bf16"),
    ("f64", "F64"),
    ("b64", "B64"),
    ("pf16", "Pf16"),
    ("pf32", "Pf32"),
    ("ic", "Ic"),
];

/// The flags that are set by being named (`table::Flags`' booleans).
const BOOL_FLAGS: [&str; 25] = [
    "e64",
    "sfx",
    "noe32",
    "clamp",
    "omod",
    "dpp",
    "dpp8",
    "sdwa",
    "e64dpp",
    "sdwaneg",
    "sdwaclamp",
    "sdwaomod",
    "sdwasgpr",
    "t16",
    "x",
    "ret",
    "gds",
    "gdsreq",
    "nooff",
    "even",
    "offset2",
    "oneaddr",
    "noscc",
    "wmma",
    "cpol",
];

/// The flags with a value (`name=N`), and the largest value each holds.
const VALUE_FLAGS: [(&str, u32); 11] = [
    ("neg", 255),
    ("abs", 255),
    ("opsel", 255),
    ("opselhi", 255),
    ("neglo", 255),
    ("neghi", 255),
    ("mai", 255),
    ("dppneg", 255),
    ("dppabs", 255),
    ("opselw", 255),
    ("lo128", 65535),
];

/// The variant mapped to `key` in `pairs`.
fn lookup<'a>(pairs: &[(&str, &'a str)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// One `Opcode` variant: its name, and its format and assembly name per column of its entry
/// (Gfx11's, Gfx9's and, where the entry gives a third pair, gfx90a's, which is otherwise
/// Gfx9's).
struct Variant {
    name: String,
    formats: [String; 3],
    names: [String; 3],
}

/// The `Opcode` entries of `text` (lines `Variant: (F11, "n11"), (F9, "n9")[, (F90a,
/// "n90a")];`), in order.
fn variants(text: &str, file: &str, out: &mut Vec<Variant>) {
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        let Some((name, rest)) = line.split_once(": (") else { continue };
        if !name.chars().all(|c| c.is_ascii_alphanumeric()) || !line.ends_with(");") {
            continue;
        }
        let pair = |p: &str| -> (String, String) {
            let (format, quoted) = p.split_once(", ").unwrap_or_else(|| panic!("{file}:{}: bad pair `{p}`", n + 1));
            (format.to_string(), quoted.trim_matches('"').to_string())
        };
        let pairs: Vec<(String, String)> = rest.trim_end_matches(");").split("), (").map(pair).collect();
        let (f11, n11) = pairs[0].clone();
        let (f9, n9) = pairs.get(1).cloned().unwrap_or_else(|| panic!("{file}:{}: a pair per family", n + 1));
        let (f90a, n90a) = pairs.get(2).cloned().unwrap_or_else(|| (f9.clone(), n9.clone()));
        if pairs.len() > 3 {
            panic!("{file}:{}: more pairs than families", n + 1);
        }
        out.push(Variant { name: name.to_string(), formats: [f11, f9, f90a], names: [n11, n9, n90a] });
    }
}

/// What the operand shapes (`operands::Shape`) keep of a slot: a required result or operand.
struct ShapeSlot {
    def: bool,
    loc: &'static str,
    size: u8,
}

/// The Rust expression of a slot token (`role:field:kind[size][/ctype][?]`), and what the
/// operand shape keeps of it.
fn slot(tok: &str) -> Result<(String, Option<ShapeSlot>), String> {
    let mut parts = tok.splitn(3, ':');
    let (Some(role), Some(field), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("bad slot `{tok}`"));
    };
    let role = match role {
        "d" => "Def",
        "u" => "Use",
        "i" => "Imm",
        _ => return Err(format!("bad role in `{tok}`")),
    };
    let field = lookup(&FIELDS, field).ok_or_else(|| format!("bad field in `{tok}`"))?;
    let (rest, optional) = match rest.strip_suffix('?') {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (kind_size, ctype) = match rest.split_once('/') {
        Some((k, c)) => (k, lookup(&CTYPES, c).ok_or_else(|| format!("bad constant type `{c}`"))?),
        None => (rest, "B32"),
    };
    let (kind, loc, size) = if role == "Imm" {
        let style = lookup(&STYLES, kind_size).ok_or_else(|| format!("bad immediate style `{kind_size}`"))?;
        (format!("Kind::Imm(ImmStyle::{style})"), "Ssrc", 0u8)
    } else {
        let split = kind_size.find(|c: char| c.is_ascii_digit()).unwrap_or(kind_size.len());
        let (k, n) = kind_size.split_at(split);
        let &(_, kind, loc) = KINDS.iter().find(|e| e.0 == k).ok_or_else(|| format!("bad kind in `{tok}`"))?;
        let size = if n.is_empty() { 1 } else { n.parse().map_err(|_| format!("bad size in `{tok}`"))? };
        (format!("Kind::{kind}"), loc, size)
    };
    let shape = (role != "Imm" && !optional).then_some(ShapeSlot { def: role == "Def", loc, size });
    Ok((format!("slot(Role::{role}, Field::{field}, {kind}, {size}, ConstType::{ctype}, {optional})"), shape))
}

/// The Rust expressions of a line's flags and of the VOP3 modifiers its operand shape
/// accepts (`operands::Mods`: `neg`/`abs` on any source, `clamp`, `omod`).
fn flags(toks: &[&str]) -> Result<(String, String), String> {
    let mut set = String::new();
    let (mut neg_abs, mut clamp, mut omod) = (false, false, false);
    for tok in toks {
        match tok.split_once('=') {
            Some((key, value)) => {
                let &(key, max) =
                    VALUE_FLAGS.iter().find(|(k, _)| *k == key).ok_or_else(|| format!("unknown flag `{tok}`"))?;
                let v: u32 =
                    value.parse().ok().filter(|v| *v <= max).ok_or_else(|| format!("bad flag value `{tok}`"))?;
                let _ = write!(set, "{key}: {v}, ");
                neg_abs |= (key == "neg" || key == "abs") && v != 0;
            }
            None if BOOL_FLAGS.contains(tok) => {
                let _ = write!(set, "{tok}: true, ");
                clamp |= *tok == "clamp";
                omod |= *tok == "omod";
            }
            None => return Err(format!("unknown flag `{tok}`")),
        }
    }
    let mods = format!("Mods {{ neg_abs: {neg_abs}, clamp: {clamp}, omod: {omod} }}");
    Ok((format!("Flags {{ {set}..Flags::NONE }}"), mods))
}

/// The `static` table of one family, `family` being its index in the variants' columns, and
/// the `static` operand shapes of its opcodes (`operands::Shape`, indexed by opcode).
fn table(family: usize, family_name: &str, file: &str, text: &str, variants: &[Variant]) -> (String, String) {
    let by_asm: HashMap<&str, usize> = variants
        .iter()
        .enumerate()
        .filter(|(_, v)| v.formats[0] != "Pseudo" && !v.names[family].is_empty())
        .map(|(i, v)| (v.names[family].as_str(), i))
        .collect();
    let mut ops = String::new();
    let mut shapes = vec![None; variants.len()];
    let mut lines: Vec<(usize, &str, usize, u16)> = Vec::new(); // (variant, name, encoding, number)
    let mut aliases: Vec<(&str, &str, usize)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let fail = |what: String| -> ! { panic!("isa/src/tables/{file}:{}: {what}", n + 1) };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(alias) = line.strip_prefix("= ") {
            let (alias, target) = alias.split_once(' ').unwrap_or_else(|| fail(format!("bad alias `{line}`")));
            aliases.push((alias, target, n + 1));
            continue;
        }
        let toks: Vec<&str> = line.split_ascii_whitespace().collect();
        if toks.len() < 4 {
            fail(format!("too few fields in `{line}`"));
        }
        let &variant = by_asm.get(toks[0]).unwrap_or_else(|| fail(format!("no Opcode named {}", toks[0])));
        let enc =
            ENCODINGS.iter().position(|e| e.0 == toks[1]).unwrap_or_else(|| fail(format!("bad encoding {}", toks[1])));
        let number = u16::from_str_radix(toks[2].trim_start_matches("0x"), 16).unwrap_or_else(|e| fail(e.to_string()));
        let (mut slots, mut defs, mut uses) = (Vec::new(), Vec::new(), Vec::new());
        let mut k = 3;
        while k < toks.len() && (toks[k] == "-" || toks[k].contains(':')) {
            if toks[k] != "-" {
                let (text, shape) = slot(toks[k]).unwrap_or_else(|e| fail(e));
                slots.push(text);
                if let Some(s) = shape {
                    let text = format!("Slot {{ loc: Loc::{}, size: {} }}", s.loc, s.size);
                    if s.def {
                        defs.push(text)
                    } else {
                        uses.push(text)
                    }
                }
            }
            k += 1;
        }
        let (flags, mods) = flags(&toks[k..]).unwrap_or_else(|e| fail(e));
        shapes[variant] =
            Some(format!("Shape {{ defs: &[{}], ops: &[{}], mods: {mods} }}", defs.join(", "), uses.join(", ")));
        let v = &variants[variant];
        if v.formats[family] != ENCODINGS[enc].2 {
            fail(format!("{}: the table says {}, the Opcode says {}", toks[0], ENCODINGS[enc].1, v.formats[family]));
        }
        let _ = writeln!(
            ops,
            "        OpInfo {{ opcode: Opcode::{}, name: {:?}, enc: Enc::{}, number: {number:#x}, slots: &[{}], flags: {flags} }},",
            v.name,
            toks[0],
            ENCODINGS[enc].1,
            slots.join(", ")
        );
        lines.push((variant, toks[0], enc, number));
    }
    let mut by_opcode = vec![u16::MAX; variants.len()];
    let mut by_number: Vec<(usize, u16, usize)> = Vec::new();
    for (i, &(variant, name, enc, number)) in lines.iter().enumerate() {
        if std::mem::replace(&mut by_opcode[variant], i as u16) != u16::MAX {
            panic!("isa/src/tables/{file}: {name} appears twice");
        }
        by_number.push((enc, number, i));
    }
    by_number.sort_unstable();
    if let Some(w) = by_number.windows(2).find(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1) {
        panic!("isa/src/tables/{file}: {} shares its opcode number", lines[w[1].2].1);
    }
    let mut by_name: Vec<(&str, usize)> = lines.iter().enumerate().map(|(i, l)| (l.1, i)).collect();
    for (alias, target, line) in aliases {
        let i = lines.iter().position(|l| l.1 == target);
        let i = i.unwrap_or_else(|| panic!("isa/src/tables/{file}:{line}: alias of unknown {target}"));
        by_name.push((alias, i));
    }
    by_name.sort_unstable();
    let list = |items: Vec<String>| items.join(", ");
    let mut out = String::new();
    let _ = writeln!(out, "/// The {family_name} opcode table, from `tables/{file}`.");
    let _ = writeln!(out, "static {}: Table = Table {{", family_name.to_uppercase());
    let _ = writeln!(out, "    family: Family::{family_name},");
    let _ = writeln!(out, "    ops: &[\n{ops}    ],");
    let _ = writeln!(out, "    by_opcode: &[{}],", list(by_opcode.iter().map(u16::to_string).collect()));
    let number = by_number.iter().map(|(e, n, i)| format!("(Enc::{}, {n:#x}, {i})", ENCODINGS[*e].1));
    let _ = writeln!(out, "    by_number: &[{}],", list(number.collect()));
    let _ = writeln!(out, "    by_name: &[{}],", list(by_name.iter().map(|(n, i)| format!("({n:?}, {i})")).collect()));
    out.push_str("};\n");
    let mut shape_table = format!("/// The operand shapes of the {family_name} opcodes, from `tables/{file}`.\n");
    let _ = writeln!(shape_table, "static {}: &[Option<Shape>] = &[", family_name.to_uppercase());
    for shape in shapes {
        let _ = writeln!(shape_table, "    {},", shape.map_or("None".to_string(), |s| format!("Some({s})")));
    }
    shape_table.push_str("];\n");
    (out, shape_table)
}

fn main() {
    let src = Path::new("src");
    let read = |path: &Path| {
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    };
    let mut all = Vec::new();
    let hand = read(&src.join("opcode.rs"));
    let entries = hand.find("with_generated_opcodes! { opcodes {").expect("src/opcode.rs invokes the opcode macro");
    variants(&hand[entries..], "isa/src/opcode.rs", &mut all);
    variants(&read(&src.join("tables/opcodes.rs")), "isa/src/tables/opcodes.rs", &mut all);
    let header = "// Generated by isa/build.rs from isa/src/tables/*.txt; do not edit.\n\n";
    let (mut tables, mut shapes) = (header.to_string(), header.to_string());
    for (family, (name, file)) in FAMILIES.iter().enumerate() {
        let (t, s) = table(family, name, file, &read(&src.join("tables").join(file)), &all);
        tables.push_str(&t);
        shapes.push_str(&s);
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for (name, text) in [("opcode_tables.rs", tables), ("opcode_shapes.rs", shapes)] {
        let dest = Path::new(&out).join(name);
        std::fs::write(&dest, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
    }
}
