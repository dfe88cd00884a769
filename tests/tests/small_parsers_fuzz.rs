//! A deterministic smoke fuzzer for the inputs gcnc parses besides `.gir` and `.gk` (those have
//! their own): MIR text (`isa::mir_parse`), the command line's launch syntax (`--arg`,
//! `--grid`, `--dump`), and code objects given to the emulator's loader and the disassembler.
//! Mutations start from real inputs: the MIR and the objects gcnc produces for the e2e kernels.
//! Nothing may panic; whatever MIR parses must print text that parses back to the same text.

use gcnc::launch::{parse_dims, parse_param_index, ArgSpec, DumpSpec};
use gcnc::{compile, Options, Target, TargetId};
use gcnc_tests::{gir_files, Rng};
use isa::mir_parse::parse_function;
use isa::opcode::Family;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// MIR fragments inserted at random places.
const MIR_TOKENS: &[&str] = &[
    "%",
    "%0",
    "%99999999",
    ":s1",
    ":v2",
    ":a4",
    ":s0",
    ":v99",
    "@",
    "@s[0:1]",
    "@v[4:3]",
    "@s999",
    "@vcc",
    "@exec",
    "BB",
    "BB0:",
    "BB9999:",
    "(kill)",
    "=",
    ",",
    "target:BB7",
    "target:",
    "offset:",
    "offset:99999999999",
    "vop3",
    "0x",
    "0xffffffffffffffffff",
    "-1",
    "s_mov_b32",
    "v_add_f32",
    "p_parallel_copy",
    "p_phi",
    "global_load_b32",
    "\n",
    " ",
    "\t",
    "é",
    "\u{0}",
    ";",
    "linear_preds:",
    "succs:",
];

fn mutate(rng: &mut Rng, text: &str, tokens: &[&str]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.index(s.len() + 1);
        match rng.below(4) {
            0 if !s.is_empty() => {
                let end = (at + 1 + rng.index(8)).min(s.len());
                s.drain(at.min(s.len())..end.max(at.min(s.len())));
            }
            1 => s.splice(at..at, rng.pick(tokens).chars()).for_each(drop),
            2 => s.truncate(at),
            _ => {
                if let Some(c) = s.get_mut(at) {
                    *c = char::from_u32(rng.below(0x80) as u32).unwrap_or('?');
                }
            }
        }
    }
    s.into_iter().collect()
}

/// MIR text and code objects of the e2e kernels, for gfx1100 and gfx942.
fn corpus() -> Vec<(Family, String, Vec<u8>)> {
    let mut out = Vec::new();
    for path in gir_files("e2e").into_iter().take(8) {
        let module = frontend_ir::parser::parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (id, family) in [("gfx1100", Family::Gfx11), ("gfx942", Family::Gfx9)] {
            let target = Target::new(TargetId::parse(id).unwrap());
            let compiled = compile(&module, &target, &Options { text: true, ..Options::default() }).unwrap();
            out.push((family, compiled.mir[0].1.clone(), compiled.shared()));
        }
    }
    out
}

fn no_panic<T>(what: &str, input: &dyn std::fmt::Debug, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| panic!("{what} panicked on {input:?}"))
}

#[test]
fn mir_parser_and_loader_survive_mutations() {
    let corpus = corpus();
    let mut rng = Rng::new(0x5eed_1234);
    let (mut parsed, mut loaded) = (0, 0);
    for round in 0..600 {
        let (family, mir, object) = &corpus[round % corpus.len()];
        let text = mutate(&mut rng, mir, MIR_TOKENS);
        if let Ok(func) = no_panic("parse_function", &text, || parse_function(&text, *family)) {
            parsed += 1;
            let printed = func.to_string();
            let again = parse_function(&printed, *family).unwrap_or_else(|e| panic!("{e}\n{printed}"));
            assert_eq!(again.to_string(), printed, "printing is not stable for\n{text}");
        }
        let mut bytes = object.clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.index(bytes.len());
            match rng.below(3) {
                0 => bytes[at] ^= 1 << rng.below(8),
                1 => bytes[at] = rng.below(256) as u8,
                _ => bytes.truncate(at),
            }
            if bytes.is_empty() {
                break;
            }
        }
        if no_panic("emu::load", &round, || gcnc::emu::load(&bytes)).is_ok() {
            loaded += 1;
        }
        let _ = no_panic("runtime_abi::read", &round, || runtime_abi::read::read(&bytes));
    }
    // The mutations are small: some inputs must still be accepted, or the test exercises
    // nothing but the first error.
    assert!(parsed > 0 && loaded > 0, "parsed {parsed}, loaded {loaded}");
}

#[test]
fn launch_syntax_survives_random_text() {
    let seeds = [
        "f32[1000]:iota",
        "u32[8]:fill=7",
        "f16[4]:rand=3",
        "i64[2]:zeros",
        "lds:4096",
        "2.5",
        "i32:-7",
        "f64:1e300",
        "u8[3]:file=/nonexistent",
        "1,2,3",
        "64",
        "0=out.bin",
        "3",
    ];
    let tokens = &["[", "]", ":", "=", ",", "-", "0x", "99999999999999999999", "f32", "u64", "nan", "inf", "é", ""];
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let seed = *rng.pick(&seeds);
        let text = mutate(&mut rng, seed, tokens);
        if let Ok(spec) = no_panic("ArgSpec::parse", &text, || ArgSpec::parse(&text)) {
            // Whatever parses prints back to something that parses to the same spec.
            assert_eq!(ArgSpec::parse(&spec.to_string()).ok(), Some(spec.clone()), "{text:?}");
            let _ = no_panic("scalar_bits", &text, || spec.scalar_bits(None));
            if let ArgSpec::Buffer { len, .. } = &spec {
                if *len < 1 << 16 {
                    let _ = no_panic("materialize", &text, || spec.materialize());
                }
            }
        }
        let _ = no_panic("parse_dims", &text, || parse_dims(&text));
        let _ = no_panic("parse_param_index", &text, || parse_param_index(&text));
        let _ = no_panic("DumpSpec::parse", &text, || DumpSpec::parse(&text));
    }
}
