//! The generators: deterministic, accepted by the front end, and covering what they promise.

use fuzz::gen_gk::generate;
use fuzz::print::kernel_file;

/// The same seed gives the same program; different seeds, different ones.
#[test]
fn programs_depend_on_the_seed_alone() {
    let text = |s| kernel_file(&generate(s, "k"), &[]);
    assert_eq!(text(7), text(7));
    assert_ne!(text(7), text(8));
}

/// Every generated program is accepted by the front end (a rejection is a generator bug),
/// and the programs reach the constructs the generator promises.
#[test]
fn every_program_is_accepted_and_the_constructs_are_reached() {
    let mut seen = std::collections::BTreeMap::new();
    let constructs = [
        "while ",
        "for ",
        "loop {",
        "break;",
        "continue;",
        "return;",
        "barrier();",
        "ballot(",
        "readfirstlane(",
        "shuffle(",
        "wave_sum(",
        "wave_min(",
        "wave_max(",
        "any(",
        "all(",
        "atomic_",
        "#[workgroup_size",
        "fn h",
        ": bool =",
        " as f16",
        " as u64",
        "<<",
        ">>",
        "&&",
        "||",
        "else if",
        "sqrt(",
        "exp2(",
        "sin(",
        "mul_hi(",
        "popcount(",
        "var r",
        "shared t",
        ": f16",
        ": i64",
        "seq_cst",
        "= (o0[ob + ",
    ];
    for seed in 0..400 {
        let name = format!("g{seed}");
        let text = kernel_file(&generate(seed, &name), &[]);
        if let Err(e) = gcnc::conformance::Case::parse(&name, &text) {
            panic!("seed {seed}: the front end rejects a generated program: {e}\n{text}");
        }
        for c in constructs {
            if text.contains(c) {
                *seen.entry(c).or_insert(0) += 1;
            }
        }
    }
    let missing: Vec<&&str> = constructs.iter().filter(|c| !seen.contains_key(*c)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// The IR generator gives valid modules, both reducible and irreducible ones.
#[test]
fn ir_kernels_verify_and_some_are_irreducible() {
    let (mut reducible, mut irreducible) = (0, 0);
    for seed in 0..200 {
        let p = fuzz::gen_ir::generate(seed, "k");
        gcnc::ir::verifier::verify_module(&p.module).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if p.irreducible {
            irreducible += 1;
        } else {
            reducible += 1;
        }
    }
    assert!(reducible > 100 && irreducible > 10, "{reducible} reducible, {irreducible} irreducible");
}
