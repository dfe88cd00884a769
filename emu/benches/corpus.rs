//! The emulator's speed on the OpenCL corpus: every case of `tests/common/cases.rs` on every
//! shape and three interleaving seeds, for gfx1100 wave32, gfx1100 wave64 and gfx942. Reports
//! emulated wave-instructions and lane-operations per second per target, and the time of the
//! whole corpus (the best of several repetitions). clang-19 builds the objects first (not
//! timed; reused from the tests' folder when fresh).
//!
//! Run with `cargo bench -p emu --bench corpus`; `EMU_BENCH_REPS=N` sets the repetitions.

#[path = "../tests/common/mod.rs"]
mod common;

use common::cases::cases;
use common::TARGETS;
use emu::{dispatch, load, Launch, Options};
use std::time::{Duration, Instant};

/// What one pass over a target's cases did.
#[derive(Default, Clone, Copy)]
struct Totals {
    wave_instructions: u64,
    lane_operations: u64,
    dispatches: u64,
    time: Duration,
}

fn main() {
    let reps: usize = std::env::var("EMU_BENCH_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let mut programs = Vec::new();
    let load_start = Instant::now();
    for target in TARGETS {
        for case in cases() {
            let compiled = case.compile(target);
            programs.push((target, case, load(&compiled.shared).expect("the corpus loads")));
        }
    }
    let loading = load_start.elapsed();
    println!("compiled and loaded {} kernel objects in {:.2?}", programs.len(), loading);
    let mut best: Vec<Option<Totals>> = vec![None; TARGETS.len()];
    let mut corpus_best = Duration::MAX;
    for _ in 0..reps {
        let mut per_target = vec![Totals::default(); TARGETS.len()];
        let pass = Instant::now();
        for (target, case, program) in &programs {
            let t = TARGETS.iter().position(|x| x == target).unwrap();
            for &shape in case.shapes {
                for seed in 0..3u64 {
                    let launch = Launch { grid: shape.0, block: shape.1, dyn_shared_bytes: 0 };
                    let mut run = (case.prepare)(&launch, target.wave_size(), seed + 1);
                    let options = Options { seed, ..Options::default() };
                    let start = Instant::now();
                    let stats = dispatch(&mut run.device, program, case.kernel, &run.launch, &run.args, &options)
                        .unwrap_or_else(|e| panic!("{}: {e}", case.label(*target)));
                    let totals = &mut per_target[t];
                    totals.time += start.elapsed();
                    totals.wave_instructions += stats.wave_instructions;
                    totals.lane_operations += stats.lane_operations;
                    totals.dispatches += 1;
                }
            }
        }
        corpus_best = corpus_best.min(pass.elapsed());
        for (b, t) in best.iter_mut().zip(per_target) {
            if b.is_none_or(|b| t.time < b.time) {
                *b = Some(t);
            }
        }
    }
    println!(
        "{:<14} {:>10} {:>14} {:>14} {:>10} {:>16} {:>16}",
        "target", "dispatches", "wave-insts", "lane-ops", "time", "wave-insts/s", "lane-ops/s"
    );
    let mut all = Totals::default();
    for (target, totals) in TARGETS.iter().zip(best.iter().flatten()) {
        print_row(&target.name(), totals);
        all.wave_instructions += totals.wave_instructions;
        all.lane_operations += totals.lane_operations;
        all.dispatches += totals.dispatches;
        all.time += totals.time;
    }
    print_row("all", &all);
    println!("whole corpus (3 targets, every shape, 3 seeds, inputs included): {corpus_best:.2?} (best of {reps})");
}

fn print_row(name: &str, t: &Totals) {
    let secs = t.time.as_secs_f64().max(1e-9);
    println!(
        "{name:<14} {:>10} {:>14} {:>14} {:>10.2?} {:>14.2} M {:>14.2} M",
        t.dispatches,
        t.wave_instructions,
        t.lane_operations,
        t.time,
        t.wave_instructions as f64 / secs / 1e6,
        t.lane_operations as f64 / secs / 1e6
    );
}
