//! No input makes the kernel-language front end panic: generated and mutated programs (from
//! the examples and the test kernels) go through `lang::compile`, which must either give a
//! module that verifies or diagnostics that render, never a panic or an internal error. The
//! generator is deterministic (a fixed seed) and the run is bounded to a few seconds.

mod lang_common;

use gcnc_tests::Rng;
use std::time::{Duration, Instant};

/// Fragments that make mutations reach deep into the grammar.
const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ":",
    "->",
    "..",
    ".",
    "#",
    "#[workgroup_size(",
    "&",
    "&mut ",
    "&&",
    "||",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "<",
    "<=",
    "==",
    "!=",
    "=",
    "+=",
    "<<=",
    " as ",
    " as f16",
    " as u64",
    "let ",
    "var ",
    "shared ",
    "if ",
    "else ",
    "while ",
    "for ",
    " in ",
    "loop ",
    "break;",
    "continue;",
    "return;",
    "return 1;",
    "fn ",
    "kernel ",
    "true",
    "false",
    "0",
    "1u",
    "2.5f64",
    "0x",
    "0b2",
    "1e99",
    "1e",
    "4294967296",
    "-2147483648",
    "9999999999999999999999999",
    "x",
    "n",
    "i",
    "global_id.x",
    "local_id",
    "lane_id",
    "wave_size",
    "barrier()",
    "fence(acquire, agent)",
    "atomic_add(&",
    "atomic_cas(&b[0], 1u, 2u)",
    "sqrt(",
    "min(",
    "ballot(",
    "shuffle(",
    "wave_sum(",
    "[f32; 4]",
    "[u32; n]",
    "/*",
    "*/",
    "//",
    "\n",
    "é",
    "\u{0}",
    "\"",
    "tile",
    "f",
    "escape(",
];

fn mutate(rng: &mut Rng, text: &str, corpus: &[String]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.index(len + 1);
        let span = (1 + rng.index(12)).min(len - at.min(len));
        match rng.below(7) {
            0 => {
                bytes.drain(at..at + span);
            }
            1 => {
                let piece = bytes[at..at + span].to_vec();
                bytes.splice(at..at, piece);
            }
            2 | 3 => {
                let frag = rng.pick(FRAGMENTS).as_bytes().to_vec();
                bytes.splice(at..at, frag);
            }
            4 => {
                const BYTES: &[u8] = b" azAZ09(){}[];,.:&|^!<>=+-*/%#_\n";
                if at < len {
                    bytes[at] = BYTES[rng.index(BYTES.len())];
                }
            }
            5 => {
                let other = rng.pick(corpus).as_bytes();
                let from = rng.index(other.len());
                let piece = other[from..(from + 1 + rng.index(80)).min(other.len())].to_vec();
                bytes.splice(at..at, piece);
            }
            _ => bytes.truncate(at),
        }
    }
    // Mutations work on bytes; the compiler takes text.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A random expression over the kernel's names, mostly of sensible shapes.
fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return rng
            .pick(&["n", "s", "1", "2u", "0.5", "x[n]", "b[s]", "global_id.x", "lane_id", "true", "-3", "7i64"])
            .to_string();
    }
    let a = expr(rng, depth - 1);
    let b = expr(rng, depth - 1);
    match rng.below(8) {
        0 => format!("({a} {} {b})", rng.pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])),
        1 => format!("({a} {} {b})", rng.pick(&["<", "<=", "==", "!=", "&&", "||"])),
        2 => format!("({a} as {})", rng.pick(&["u32", "i32", "u64", "i64", "f16", "f32", "f64", "bool"])),
        3 => format!("{}({a})", rng.pick(&["sqrt", "abs", "popcount", "wave_sum", "readfirstlane", "floor", "ballot"])),
        4 => format!("{}({a}, {b})", rng.pick(&["min", "max", "mul_hi", "shuffle"])),
        5 => format!("-{a}"),
        6 => format!("!{a}"),
        _ => format!("x[{a}]"),
    }
}

/// A random kernel of assignments and control flow.
fn program(rng: &mut Rng) -> String {
    let mut body = String::new();
    for k in 0..1 + rng.below(6) {
        let e = expr(rng, 3);
        let line = match rng.below(6) {
            0 => format!("    var v{k} = {e};\n    v{k} += {};\n", expr(rng, 2)),
            1 => format!("    if {e} {{ b[n] = {}; }} else {{ return; }}\n", expr(rng, 2)),
            2 => format!("    for i in 0..{e} {{ if i > 3 {{ break; }} y[i] = {}; }}\n", expr(rng, 2)),
            3 => format!("    while {e} {{ b[0] = atomic_add(&b[1], {}); }}\n", expr(rng, 1)),
            4 => format!("    y[global_id.x] = {e};\n"),
            _ => format!("    let v{k} = {e};\n"),
        };
        body.push_str(&line);
    }
    format!("kernel k(x: &[f32], y: &mut [f32], b: &mut [u32], n: u32, s: i32) {{\n{body}}}\n")
}

#[test]
fn generated_and_mutated_inputs_never_panic() {
    let corpus: Vec<String> = lang_common::all_sources().into_iter().map(|(_, t)| t).collect();
    assert!(corpus.len() >= 18, "the corpus has the examples and the test kernels");
    let mut rng = Rng::new(0x9e3779b9);
    let start = Instant::now();
    let (mut compiled, mut rejected, mut runs) = (0, 0, 0);
    while runs < 20000 && start.elapsed() < Duration::from_secs(4) {
        runs += 1;
        let text = if rng.below(4) == 0 {
            program(&mut rng)
        } else {
            let base = rng.pick(&corpus).clone();
            mutate(&mut rng, &base, &corpus)
        };
        match lang::compile(&text, "fuzz.gk") {
            Ok(c) => {
                compiled += 1;
                frontend_ir::verifier::verify_module(&c.module).unwrap_or_else(|e| panic!("{e}\nfor:\n{text}"));
            }
            Err(d) => {
                rejected += 1;
                assert!(!d.list.is_empty());
                let rendered = d.render(&text);
                assert!(!rendered.contains("internal compiler error"), "{rendered}\nfor:\n{text}");
            }
        }
    }
    // Both outcomes are common, so both paths get exercised.
    assert!(compiled > runs / 20 && rejected > runs / 5, "{compiled} compiled, {rejected} rejected of {runs}");
}

#[test]
fn pathological_inputs_never_panic() {
    let deep_if = format!("kernel k() {{ {} }}", "if true { ".repeat(400) + &"}".repeat(400));
    let else_chain =
        format!("kernel k(n: u32) {{ var v = 0u; {} }}", "if n == 1 { v = 1u; } else ".repeat(300) + "{ }");
    let long_sum = format!("kernel k(b: &mut [u32]) {{ b[0] = 1u{}; }}", " + 1u".repeat(150));
    let inputs = [
        String::new(),
        "kernel".into(),
        "kernel k(".into(),
        "#[".into(),
        "#[workgroup_size(4294967296)] kernel k() {}".into(),
        "kernel k() { shared t: [f32; 99999999999999999999]; }".into(),
        "kernel k() { var a: [f32; 0]; }".into(),
        "kernel k() { let x = 0x; }".into(),
        "kernel k() { loop { } }".into(),
        "fn f() { loop { } } kernel k(b: &mut [u32]) { f(); b[0] = 1u; }".into(),
        "fn f() -> u32 { loop { } } kernel k(b: &mut [u32]) { b[0] = f(); }".into(),
        "kernel k(b: &mut [u32]) { if true { return; } else { return; } b[0] = 1u; }".into(),
        "kernel k(b: &mut [u32]) { loop { break; break; } while true { continue; } }".into(),
        "\u{feff}kernel k() { }".into(),
        "kernel k() { let é = 1; }".into(),
        deep_if,
        else_chain,
        long_sum,
        "(".repeat(100_000),
        "{".repeat(100_000),
        "kernel k() { let x = ".to_string() + &"-".repeat(100_000) + "1; }",
    ];
    for text in &inputs {
        if let Err(d) = lang::compile(text, "p.gk") {
            let rendered = d.render(text);
            assert!(!rendered.contains("internal compiler error"), "{rendered}");
        }
    }
}
