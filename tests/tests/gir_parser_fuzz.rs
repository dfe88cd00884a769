//! A deterministic smoke fuzzer for the `.gir` parser: mutations of every round-trip corpus
//! file (byte deletions and insertions, grammar tokens, huge numbers, non-ASCII characters,
//! truncations, line shuffles and duplications) and random byte strings. The parser must never
//! panic, every error must point inside the input and render, and whatever parses must print
//! text that parses back to the same text.

use frontend_ir::parser::{parse_module, ParseError};
use gcnc_tests::{gir_sources, Rng};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Fragments of the grammar and troublesome text, inserted at random places.
const TOKENS: &[&str] = &[
    "%",
    "%0",
    "%1",
    "%99999",
    "%x",
    "%1a",
    "@",
    "@f",
    "@1",
    "block0",
    "block1",
    "block99",
    "block1(",
    "(",
    ")",
    ":",
    ",",
    "=",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "->",
    "-",
    ";",
    "\n",
    "\t",
    "\r\n",
    " ",
    "iconst.i32",
    "iconst.i1",
    "iconst.i64",
    "iconst.",
    "fconst.f16",
    "fconst.f32",
    "fconst.f64",
    "load.ptr<",
    "ptr<",
    "ptr<global>",
    "ptr<bogus>",
    "i33",
    "f128",
    "kernel",
    "func",
    "kernel @k() {",
    "func @g(i32) -> i32 {",
    "ret",
    "ret %0",
    "unreachable",
    "jump block1",
    "brif %0, block1, block2",
    "switch %0, block1, [",
    "0: block1",
    "call @",
    "call @f(",
    "store",
    "load.f32",
    "align",
    "align 0",
    "align 4294967296",
    "volatile",
    "nontemporal",
    "visible(",
    "available(",
    "visible(agent)",
    "available(system)",
    "relaxed",
    "seq_cst",
    "agent",
    "av_none",
    "slot0",
    "slot_addr slot7",
    "slot0 = shared 4 align 4",
    "private",
    "shared",
    "reqd_workgroup_size(",
    "reqd_workgroup_size(1, 2, 3)",
    "max_workgroup_size(99999999999)",
    "dynamic_shared",
    "local_id.w",
    "lane_id.x",
    "99999999999999999999999",
    "18446744073709551616",
    "-9223372036854775809",
    "0x",
    "0xffffffffffffffffff",
    "-0x8000000000000000",
    "1e999",
    "1e-999",
    "1.5e",
    "-1.",
    "nan",
    "nan:",
    "nan:0x1",
    "nan:0x7fc00000",
    "inf",
    "-inf",
    "true",
    "false",
    "é",
    "日本",
    "\u{1F600}",
    "\u{0}",
    "\u{FEFF}",
    "\u{200B}",
    "ω.x",
    "%é",
    "@ü",
];

/// The number of lines (split on `\n`) and the length of each, in characters.
fn line_lengths(src: &str) -> Vec<usize> {
    src.split('\n').map(|l| l.chars().count()).collect()
}

/// Checks one error's position and rendering against its input.
fn check_error(src: &str, e: &ParseError, what: &str) {
    let lines = line_lengths(src);
    assert!(e.line >= 1 && e.column >= 1 && e.len >= 1, "{what}: bad position {e:?}");
    let line = e.line as usize;
    assert!(line <= lines.len(), "{what}: line {} of {} lines: {e:?}\ninput: {src:?}", e.line, lines.len());
    let max_col = lines[line - 1] + 1;
    assert!(
        e.column as usize <= max_col,
        "{what}: column {} beyond line length {}: {e:?}\ninput: {src:?}",
        e.column,
        max_col - 1
    );
    assert!(!e.message.is_empty(), "{what}: empty message");
    let rendered = e.render(src, "fuzz.gir");
    assert!(rendered.starts_with("error: "), "{what}: rendering {rendered:?}");
    assert!(rendered.contains(&format!("fuzz.gir:{}:{}", e.line, e.column)), "{what}: rendering {rendered:?}");
    assert!(rendered.contains('^'), "{what}: rendering without a caret {rendered:?}");
    let display = e.to_string();
    assert!(display.starts_with(&format!("{}:{}: ", e.line, e.column)), "{what}: display {display:?}");
}

/// Parses `src` and checks the outcome; returns whether it parsed.
fn run(src: &str, what: &str) -> bool {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let result = parse_module(src);
        // Whatever parses must print text that parses back and prints the same.
        let printed = result.as_ref().ok().map(|m| m.to_string());
        let reprinted = printed.as_ref().map(|p| parse_module(p).map(|m| m.to_string()));
        (result.err(), printed, reprinted)
    }));
    match outcome {
        Err(_) => panic!("{what}: the parser panicked on input {src:?}"),
        Ok((Some(e), _, _)) => {
            check_error(src, &e, what);
            false
        }
        Ok((None, Some(printed), Some(reprinted))) => {
            match reprinted {
                Ok(again) => assert_eq!(again, printed, "{what}: printing is not stable for input {src:?}"),
                Err(e) => panic!("{what}: printed text does not parse: {e}\nprinted:\n{printed}\ninput: {src:?}"),
            }
            true
        }
        Ok(_) => unreachable!("a parsed module is always printed"),
    }
}

/// A random position in `s` at a character boundary.
fn boundary(rng: &mut Rng, s: &str) -> usize {
    let mut i = rng.index(s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One random mutation of `s`.
fn mutate(rng: &mut Rng, s: &str) -> String {
    match rng.index(9) {
        // Delete a few bytes (possibly splitting a character: the result is converted lossily).
        0 => {
            let mut b = s.as_bytes().to_vec();
            if !b.is_empty() {
                let at = rng.index(b.len());
                let n = (1 + rng.index(8)).min(b.len() - at);
                b.drain(at..at + n);
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        // Insert random bytes.
        1 => {
            let mut b = s.as_bytes().to_vec();
            let at = rng.index(b.len() + 1);
            for k in 0..1 + rng.index(4) {
                b.insert(at + k, rng.next_u64() as u8);
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        // Insert a grammar token.
        2 | 3 => {
            let at = boundary(rng, s);
            let tok = rng.pick(TOKENS);
            format!("{}{}{}", &s[..at], tok, &s[at..])
        }
        // Replace a word-ish run with a token.
        4 => {
            let at = boundary(rng, s);
            let end = s[at..].find(|c: char| c.is_whitespace() || c == ',').map_or(s.len(), |e| at + e);
            format!("{}{}{}", &s[..at], rng.pick(TOKENS), &s[end..])
        }
        // Swap two lines.
        5 => {
            let mut lines: Vec<&str> = s.split('\n').collect();
            let (i, j) = (rng.index(lines.len()), rng.index(lines.len()));
            lines.swap(i, j);
            lines.join("\n")
        }
        // Duplicate a line.
        6 => {
            let mut lines: Vec<&str> = s.split('\n').collect();
            let i = rng.index(lines.len());
            let line = lines[i];
            lines.insert(i, line);
            lines.join("\n")
        }
        // Delete a line.
        7 => {
            let mut lines: Vec<&str> = s.split('\n').collect();
            if lines.len() > 1 {
                lines.remove(rng.index(lines.len()));
            }
            lines.join("\n")
        }
        // Replace a number with a huge or odd one.
        _ => {
            let at = boundary(rng, s);
            match s[at..].find(|c: char| c.is_ascii_digit()) {
                Some(d) => {
                    let start = at + d;
                    let end = s[start..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(s.len(), |e| start + e);
                    let big = *rng.pick(&[
                        "340282366920938463463374607431768211456",
                        "4294967296",
                        "-1",
                        "0",
                        "65536",
                        "0x1p3",
                    ]);
                    format!("{}{}{}", &s[..start], big, &s[end..])
                }
                None => s.to_string(),
            }
        }
    }
}

#[test]
fn corpus_mutations_never_panic() {
    let files = gir_sources("roundtrip");
    let mut rng = Rng::new(0x5EED_0001);
    let mut parsed = 0usize;
    let mut total = 0usize;
    for (name, text) in &files {
        for round in 0..1000 {
            let mut s = text.clone();
            for _ in 0..1 + rng.index(3) {
                s = mutate(&mut rng, &s);
            }
            parsed += usize::from(run(&s, &format!("{name} mutation {round}")));
            total += 1;
        }
    }
    // The mutations must not all be rejected trivially, nor all accepted.
    eprintln!("{parsed} of {total} mutated corpus files parsed");
    assert!(parsed > total / 50 && parsed < total, "{parsed} of {total} mutations parsed");
}

#[test]
fn truncations_never_panic() {
    for (name, text) in gir_sources("roundtrip") {
        let bytes = text.as_bytes();
        for at in (0..bytes.len()).step_by(7) {
            let s = String::from_utf8_lossy(&bytes[..at]);
            run(&s, &format!("{name} truncated at {at}"));
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(0x5EED_0002);
    // Bytes biased toward the grammar's characters, and fully random bytes.
    const ALPHABET: &[u8] = b"%@()[]{}<>,:=-;\n \t.0123456789xabcdefiklnoprstuvz_";
    for round in 0..10_000 {
        let len = rng.index(120);
        let biased = round % 2 == 0;
        let bytes: Vec<u8> =
            (0..len).map(|_| if biased { *rng.pick(ALPHABET) } else { rng.next_u64() as u8 }).collect();
        let s = String::from_utf8_lossy(&bytes);
        run(&s, &format!("random input {round}"));
    }
    // Random sequences of grammar tokens.
    for round in 0..5000 {
        let n = rng.index(40);
        let s: String = (0..n).map(|_| format!("{} ", rng.pick(TOKENS))).collect();
        run(&s, &format!("token soup {round}"));
    }
}

#[test]
fn edge_inputs_never_panic() {
    for s in [
        "",
        "\n",
        ";",
        "; only a comment",
        "\u{FEFF}",
        "kernel",
        "kernel @",
        "kernel @k(",
        "kernel @k() {",
        "}",
        "kernel @k() {\n}\n",
        "kernel @k() {\nblock0:\n",
        "%",
        "@",
        "-",
        "->",
        "\r\n\r\n",
        "é",
        "日本語",
    ] {
        run(s, &format!("edge input {s:?}"));
    }
}
