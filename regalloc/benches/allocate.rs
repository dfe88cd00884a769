//! Time per instruction of the allocation stage (liveness, assignment, SSA elimination; no
//! validation in this profile) on generated functions of 100 to 100,000 instructions, to
//! show that it grows linearly. `cargo bench -p regalloc` prints a table.

use isa::mir::Function;
use isa::opcode::Family;
use isa::processor::Processor;
use regalloc::generate::{function, Config};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn instructions(f: &Function) -> usize {
    f.blocks.iter().map(|b| b.insts.len()).sum()
}

/// Runs `stage` on clones of `funcs` until `budget` has passed; seconds per instruction.
fn time_per_inst(funcs: &[Function], budget: Duration, mut stage: impl FnMut(&mut Function)) -> f64 {
    let total: usize = funcs.iter().map(instructions).sum();
    let (mut elapsed, mut rounds) = (Duration::ZERO, 0u32);
    while elapsed < budget || rounds < 3 {
        let mut copies: Vec<Function> = funcs.to_vec();
        let start = Instant::now();
        for f in copies.iter_mut() {
            stage(black_box(f));
        }
        elapsed += start.elapsed();
        rounds += 1;
    }
    elapsed.as_secs_f64() / f64::from(rounds) / total as f64
}

fn main() {
    let proc = Processor::find("gfx1100").unwrap();
    let family = Family::of(proc).unwrap();
    println!(
        "{:>9} {:>9} {:>12} {:>12} {:>12} {:>12}",
        "size", "functions", "ns/inst", "liveness", "assign", "ssa_elim"
    );
    for size in [100usize, 1_000, 10_000, 100_000] {
        // About 200,000 instructions at every size.
        let count = (200_000 / size).max(2);
        let funcs: Vec<Function> = (0..count as u64)
            .map(|seed| {
                let mut c = Config::new(32, size);
                c.linear_vgprs = false;
                function(seed, family, &c)
            })
            .collect();
        let budget = Duration::from_millis(600);
        let whole = time_per_inst(&funcs, budget, |f| {
            regalloc::allocate(f, proc).expect("generated functions allocate");
        });
        let liveness = time_per_inst(&funcs, budget / 3, |f| {
            regalloc::liveness::analyze(f, proc).unwrap();
        });
        // Assignment alone: liveness first (not timed separately here, subtracted).
        let with_assign = time_per_inst(&funcs, budget / 3, |f| {
            let live = regalloc::liveness::analyze(f, proc).unwrap();
            regalloc::assign::assign(f, &live, proc, regalloc::Spilling::new(proc).target).unwrap();
        });
        let ns = |s: f64| s * 1e9;
        println!(
            "{:>9} {:>9} {:>12.1} {:>12.1} {:>12.1} {:>12.1}",
            instructions(&funcs[0]),
            count,
            ns(whole),
            ns(liveness),
            ns(with_assign - liveness),
            ns(whole - with_assign)
        );
    }
}
