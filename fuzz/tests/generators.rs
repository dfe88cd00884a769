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
        if let Err(e) = gcnc::kernel_file::KernelFile::parse(&name, &text) {
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

/// High-pressure programs are accepted by the front end, and they spill: compiled for
/// gfx1100 in wave64 and for gfx942, a third at least spill SGPRs (into VGPR lanes) and VGPRs
/// (to scratch, or to AGPRs on gfx942).
#[test]
fn pressure_programs_are_accepted_and_spill() {
    let configs = [("gfx1100", 64), ("gfx942", 64)];
    let (mut programs, mut sgprs, mut vgprs, mut agprs) = (0, 0, 0, 0);
    for seed in 0..24 {
        let name = format!("p{seed}");
        let text = kernel_file(&fuzz::gen_gk::generate_pressure(seed, &name), &[]);
        let case = gcnc::kernel_file::KernelFile::parse(&name, &text)
            .unwrap_or_else(|e| panic!("seed {seed}: the front end rejects a pressure program: {e}\n{text}"));
        for (mcpu, wave_size) in configs {
            let target = gcnc::Target { wave_size, ..gcnc::Target::new(gcnc::TargetId::parse(mcpu).unwrap()) };
            let compiled = gcnc::compile::compile(&case.module, &target, &Default::default())
                .unwrap_or_else(|e| panic!("seed {seed} on {mcpu}: {e}\n{text}"));
            let s = &compiled.stats[0].spills;
            programs += 1;
            sgprs += u32::from(s.sgpr_lanes > 0);
            vgprs += u32::from(s.scratch_bytes > 0 || s.agprs > 0);
            agprs += u32::from(s.agprs > 0);
        }
    }
    let counts = format!("of {programs}: {sgprs} spill SGPRs, {vgprs} VGPRs ({agprs} to AGPRs)");
    assert!(sgprs * 3 > programs && vgprs * 3 > programs && agprs > 0, "{counts}");
}

/// Some programs have loops that partial unrolling takes (a constant trip count too long to
/// unroll fully, and a small body), so the fuzzer checks it: among 1,000 programs, at -O2, at
/// least 8 are changed by `unroll_partial` (it adds blocks). (Loops that index a private array
/// with their counter are mostly unrolled fully, under unrolling's larger budget for them.)
#[test]
fn some_loops_are_unrolled_partially() {
    let mut unrolled = 0;
    for seed in 0..1000 {
        let name = format!("u{seed}");
        let text = kernel_file(&generate(seed, &name), &[]);
        let case = gcnc::kernel_file::KernelFile::parse(&name, &text).expect("accepted, as tested above");
        let mut func = case.module.functions[case.kernel].clone();
        let mut blocks_before = 0;
        let mut changed = false;
        opt::optimize(&mut func, 2, &mut |pass, f| {
            changed |= pass == "unroll_partial" && f.layout.len() > blocks_before;
            blocks_before = f.layout.len();
        });
        unrolled += u32::from(changed);
    }
    assert!(unrolled >= 8, "{unrolled} of 1000 programs unrolled partially");
}
