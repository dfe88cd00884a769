//! The emulator on code it did not write: every kernel of the shared OpenCL corpus (and the
//! emulator's own `saxpy` and `fdiv_edges`), compiled by clang-19 for gfx1100 wave32, gfx1100
//! wave64, gfx942 and gfx90a, loaded both as clang's ET_REL and as ld.lld-19's ET_DYN, run on several
//! grid shapes (partial last work-groups, partial waves, bounds checks that cut inside a wave)
//! and interleaving seeds, and compared with CPU references (see `common/cases.rs`). clang's
//! unmodified code must raise no checker error: no missing wait, no hazard, no bad access.

mod common;

use common::cases::{cases, Case, Run, Shape};
use common::{Target, TARGETS};
use emu::{dispatch, load, EmuError, Launch, Options, Program, Stats};

/// Interleavings: the fixed round-robin (0) and two varied ones.
const SEEDS: [u64; 3] = [0, 1, 2];

/// Runs `case` on `program` with a shape and a seed; the run and what it did, or the error.
fn run_case(program: &Program, case: &Case, shape: Shape, seed: u64, wave: u32) -> Result<(Run, Stats), EmuError> {
    let launch = Launch { grid: shape.0, block: shape.1, dyn_shared_bytes: 0 };
    let mut run = (case.prepare)(&launch, wave, seed + 1);
    let options =
        Options { seed, max_resident_groups: if seed.is_multiple_of(2) { 16 } else { 2 }, ..Options::default() };
    let stats = dispatch(&mut run.device, program, case.kernel, &run.launch, &run.args, &options)?;
    Ok((run, stats))
}

fn check_target(target: Target) {
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in cases() {
        let compiled = case.compile(target);
        for (kind, bytes) in [("ET_REL", &compiled.object), ("ET_DYN", &compiled.shared)] {
            let label = format!("{} ({kind})", case.label(target));
            let program = match load(bytes) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            assert_eq!(program.kernel(case.kernel).unwrap().wave_size(), target.wave_size(), "{label}");
            // ET_REL and ET_DYN hold the same code: the ET_REL runs once, on the first shape.
            let shapes = if kind == "ET_REL" { &case.shapes[..1] } else { case.shapes };
            let seeds = if kind == "ET_REL" { &SEEDS[..1] } else { &SEEDS[..] };
            let mut ok = true;
            for &shape in shapes {
                for &seed in seeds {
                    match run_case(&program, &case, shape, seed, target.wave_size()) {
                        Err(e) => {
                            failures.push(format!("{label}, shape {shape:?}, seed {seed}: {e}"));
                            ok = false;
                        }
                        Ok((run, _)) => {
                            if let Err(e) = run.verify() {
                                failures.push(format!("{label}, shape {shape:?}, seed {seed}: wrong result: {e}"));
                                ok = false;
                            }
                        }
                    }
                }
            }
            passed += ok as usize;
        }
    }
    println!("{}: {passed} kernel objects passed", target.name());
    assert!(failures.is_empty(), "{} failures on {}:\n{}", failures.len(), target.name(), failures.join("\n"));
}

#[test]
fn corpus_on_gfx1100_wave32() {
    check_target(TARGETS[0]);
}

#[test]
fn corpus_on_gfx1100_wave64() {
    check_target(TARGETS[1]);
}

#[test]
fn corpus_on_gfx942() {
    check_target(TARGETS[2]);
}

#[test]
fn corpus_on_gfx90a() {
    check_target(TARGETS[3]);
}
