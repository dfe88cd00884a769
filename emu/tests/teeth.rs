//! The checker has teeth: for every kernel of the corpus on every target, each `s_waitcnt` (and
//! `s_waitcnt_vscnt`) of clang's code is in turn removed (rewritten to `s_nop 0`, same size and
//! wait states) and, separately, each counter it waits for weakened by one; every mutant runs
//! under several interleaving seeds. A mutant is caught when the emulator reports it (a
//! register read or written while its load is in flight, a hazard, a bad access) or when its
//! results differ from the CPU reference. The test prints caught/total and every mutant it
//! lets pass with the reason it is safe, found by profiling which operations each wait
//! completes: in clang's code and in the mutant.

mod common;

use common::cases::{cases, Case, Shape};
use common::{Target, TARGETS};
use emu::{dispatch, load, Launch, Options, Program, WaitProfile};
use isa::asm::{waitcnt_decode, waitcnt_encode, waitcnt_max};
use isa::opcode::Family;
use std::collections::BTreeSet;

const SEEDS: [u64; 3] = [0, 1, 2];

/// `s_nop 0`, in both families.
const S_NOP_0: u32 = 0xbf80_0000;

/// A mutant of clang's code.
struct Mutant {
    /// What was changed.
    what: String,
    /// The PC of the changed wait.
    pc: u32,
    /// The patched code object.
    bytes: Vec<u8>,
}

/// The mutants of one kernel: each wait removed, and each counter it waits for weakened by one.
fn mutants(bytes: &[u8], program: &Program, name: &str, target: Target) -> Vec<Mutant> {
    let object = runtime_abi::read::read(bytes).unwrap();
    let code_offset = object.kernels.iter().find(|k| k.name == name).unwrap().code_offset as usize;
    let family = Family::of(isa::processor::Processor::find(target.cpu).unwrap()).unwrap();
    let (vm_max, _, lgkm_max) = waitcnt_max(family);
    let kernel = program.kernel(name).unwrap();
    let mut out = Vec::new();
    for (pc, text) in kernel.disassemble(program) {
        if !text.starts_with("s_waitcnt") || text.starts_with("s_waitcnt_depctr") {
            continue;
        }
        let at = code_offset + pc as usize;
        let word = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let patch = |word: u32| {
            let mut b = bytes.to_vec();
            b[at..at + 4].copy_from_slice(&word.to_le_bytes());
            b
        };
        out.push(Mutant { what: format!("`{text}` at {pc:#x} removed"), pc, bytes: patch(S_NOP_0) });
        if text.starts_with("s_waitcnt_vscnt") {
            let imm = word & 0xffff;
            if imm < 63 {
                let what = format!("`{text}` at {pc:#x} with vscnt weakened by one");
                out.push(Mutant { what, pc, bytes: patch(word & 0xffff_0000 | (imm + 1)) });
            }
            continue;
        }
        let (vm, exp, lgkm) = waitcnt_decode(family, word as u16);
        let weaker = [
            ("vmcnt", vm.filter(|&v| v < vm_max).map(|v| waitcnt_encode(family, Some(v + 1), exp, lgkm))),
            ("lgkmcnt", lgkm.filter(|&v| v < lgkm_max).map(|v| waitcnt_encode(family, vm, exp, Some(v + 1)))),
        ];
        for (counter, imm) in weaker {
            if let Some(imm) = imm {
                let what = format!("`{text}` at {pc:#x} with {counter} weakened by one");
                out.push(Mutant { what, pc, bytes: patch(word & 0xffff_0000 | imm as u32) });
            }
        }
    }
    out
}

/// How a mutant fared.
enum Verdict {
    /// The emulator reported it.
    Reported(String),
    /// Its results were wrong.
    WrongResult(String),
    /// It ran cleanly with the right results on every seed: the profile of its waits.
    Passed(WaitProfile),
}

/// Runs `program` on `case`'s first shape under every seed, merging the wait profiles.
fn judge(program: &Program, case: &Case, shape: Shape, wave: u32) -> Verdict {
    let mut profile = WaitProfile::new();
    for seed in SEEDS {
        let launch = Launch { grid: shape.0, block: shape.1, dyn_shared_bytes: 0 };
        let mut run = (case.prepare)(&launch, wave, seed + 1);
        let options = Options {
            seed,
            max_resident_groups: if seed.is_multiple_of(2) { 16 } else { 2 },
            profile_waits: true,
            step_limit: 5_000_000,
            ..Options::default()
        };
        match dispatch(&mut run.device, program, case.kernel, &run.launch, &run.args, &options) {
            Err(e) => return Verdict::Reported(e.to_string()),
            Ok(stats) => {
                if let Err(e) = run.verify() {
                    return Verdict::WrongResult(format!("seed {seed}: {e}"));
                }
                for (pc, ops) in stats.waits {
                    profile.entry(pc).or_default().extend(ops);
                }
            }
        }
    }
    Verdict::Passed(profile)
}

/// Why a mutant that passed is safe: what the wait completed in clang's code, and what
/// completes those operations in the mutant instead.
fn reason(program: &Program, name: &str, pc: u32, original: &WaitProfile, mutant: &WaitProfile) -> String {
    let text = |at: u32| {
        program
            .kernel(name)
            .unwrap()
            .disassemble(program)
            .into_iter()
            .find(|(p, _)| *p == at)
            .map_or_else(String::new, |(_, t)| t)
    };
    let ops: BTreeSet<u32> = original.get(&pc).cloned().unwrap_or_default();
    let still: BTreeSet<u32> = mutant.get(&pc).cloned().unwrap_or_default();
    let moved: BTreeSet<u32> = ops.difference(&still).copied().collect();
    if moved.is_empty() {
        return if ops.is_empty() {
            "in clang's code this wait never has an operation left to complete when it executes".into()
        } else {
            "the weakened wait still completes every operation the original one did in these runs".into()
        };
    }
    let list = |s: &BTreeSet<u32>| s.iter().map(|p| format!("{p:#x} `{}`", text(*p))).collect::<Vec<_>>().join(", ");
    let takers: Vec<String> = mutant
        .iter()
        .filter(|(q, done)| **q != pc && done.iter().any(|o| moved.contains(o)))
        .map(|(q, _)| format!("{q:#x} `{}`", text(*q)))
        .collect();
    let stores_only = moved.iter().all(|p| text(*p).contains("store") || text(*p).contains("write"));
    format!(
        "the operation(s) it completed ({}) are completed instead by {} before anything depends on them{}",
        list(&moved),
        if takers.is_empty() { "a later wait".to_string() } else { takers.join(" and ") },
        if stores_only {
            " (stores: no other wave reads that memory before then, and the wave sees its own stores in order)"
        } else {
            " (no read of their results in flight)"
        }
    )
}

/// The mutants of one target: (caught, total, escaped with reasons, lines of the report).
fn target_teeth(target: Target) -> (usize, usize, Vec<String>, Vec<String>) {
    let (mut caught, mut total) = (0, 0);
    let mut escaped = Vec::new();
    let mut report = Vec::new();
    for case in cases() {
        let compiled = case.compile(target);
        let program = load(&compiled.shared).unwrap_or_else(|e| panic!("{}: {e}", case.label(target)));
        let shape = case.shapes[0];
        let Verdict::Passed(original) = judge(&program, &case, shape, target.wave_size()) else {
            panic!("{}: clang's code does not pass", case.label(target));
        };
        for mutant in mutants(&compiled.shared, &program, case.kernel, target) {
            total += 1;
            let label = format!("{}: {}", case.label(target), mutant.what);
            let patched = load(&mutant.bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
            match judge(&patched, &case, shape, target.wave_size()) {
                Verdict::Reported(e) => {
                    caught += 1;
                    report.push(format!("caught   {label}\n         {e}"));
                }
                Verdict::WrongResult(e) => {
                    caught += 1;
                    report.push(format!("caught   {label} (wrong result)\n         {e}"));
                }
                Verdict::Passed(profile) => {
                    let why = reason(&program, case.kernel, mutant.pc, &original, &profile);
                    escaped.push(format!("{label}\n         safe: {why}"));
                }
            }
        }
    }
    (caught, total, escaped, report)
}

#[test]
fn every_unsafe_wait_mutant_is_reported() {
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = TARGETS.iter().map(|&t| s.spawn(move || (t, target_teeth(t)))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut caught, mut total) = (0, 0);
    let mut escaped = Vec::new();
    for (target, (c, t, e, report)) in results {
        for line in report {
            println!("{line}");
        }
        println!("{}: {c}/{t} wait mutants caught", target.name());
        caught += c;
        total += t;
        escaped.extend(e);
    }
    for e in &escaped {
        println!("PASSED   {e}");
    }
    println!("wait mutants caught: {caught}/{total}; {} passed as safe", escaped.len());
    assert!(total >= 200, "expected a few waits per kernel and target, found {total} mutants");
    assert_eq!(caught + escaped.len(), total);
    // The safe ones are few (redundant waits, LDS data a wave only reads back itself): many
    // more would mean the checker lost its teeth.
    assert!(escaped.len() * 20 <= total, "{} of {total} wait mutants passed", escaped.len());
}

/// The hazard mitigations of clang's code: each `s_nop N` shortened to `s_nop 0` (or, for
/// `s_nop 0`, kept as it is but the check still runs) and each `s_waitcnt_depctr` replaced by
/// `s_nop 0`. A mutant is caught when the emulator reports a hazard or the results change; the
/// others are listed with the instruction's role.
#[test]
fn hazard_mitigations_are_needed_where_the_checker_says() {
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = TARGETS.iter().map(|&t| s.spawn(move || (t, hazard_teeth(t)))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut caught, mut total) = (0, 0);
    for (target, (c, t, lines)) in results {
        for line in lines {
            println!("{line}");
        }
        println!("{}: {c}/{t} hazard-mitigation mutants caught", target.name());
        caught += c;
        total += t;
    }
    println!("hazard-mitigation mutants caught: {caught}/{total}");
    assert!(caught * 10 >= total * 9, "only {caught} of {total} hazard-mitigation mutants were caught");
}

fn hazard_teeth(target: Target) -> (usize, usize, Vec<String>) {
    let (mut caught, mut total) = (0, 0);
    let mut lines = Vec::new();
    for case in cases() {
        let compiled = case.compile(target);
        let program = load(&compiled.shared).unwrap();
        let object = runtime_abi::read::read(&compiled.shared).unwrap();
        let code_offset = object.kernels.iter().find(|k| k.name == case.kernel).unwrap().code_offset as usize;
        let listing = program.kernel(case.kernel).unwrap().disassemble(&program);
        let end = listing.iter().find(|(_, t)| t.starts_with("s_endpgm")).map_or(u32::MAX, |(p, _)| *p);
        for (i, (pc, text)) in listing.iter().enumerate() {
            let shortened = match text.as_str() {
                t if t.starts_with("s_waitcnt_depctr") => true,
                t if t.starts_with("s_nop") && t != "s_nop 0" => true,
                _ => false,
            };
            // Padding after the end of the program never runs.
            if !shortened || *pc > end {
                continue;
            }
            total += 1;
            let at = code_offset + *pc as usize;
            let mut bytes = compiled.shared.clone();
            bytes[at..at + 4].copy_from_slice(&S_NOP_0.to_le_bytes());
            let label = format!("{}: `{text}` at {pc:#x} made `s_nop 0`", case.label(target));
            let patched = load(&bytes).unwrap();
            match judge(&patched, &case, case.shapes[0], target.wave_size()) {
                Verdict::Reported(e) => {
                    caught += 1;
                    lines.push(format!("caught   {label}\n         {e}"));
                }
                Verdict::WrongResult(e) => {
                    caught += 1;
                    lines.push(format!("caught   {label} (wrong result)\n         {e}"));
                }
                Verdict::Passed(_) => {
                    let next = listing.get(i + 1).map_or(String::new(), |(_, t)| t.clone());
                    lines.push(format!(
                        "PASSED   {label}\n         not a hazard of this target in these runs (next: `{next}`)"
                    ));
                }
            }
        }
    }
    (caught, total, lines)
}
