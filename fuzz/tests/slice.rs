//! The fuzzer's CI slice: a fixed range of seeds (440 `.gk` programs, one in 32 of them a
//! high-pressure one, and 110 IR kernels) on
//! the four main configurations (gfx1100 wave32 and wave64, gfx942, gfx90a) at -O2, and on gfx1100
//! wave32 at -O0 (no optimizer pass). Every program must
//! pass; a failure fails the test with each signature's minimized reproducer and the `gcnc
//! check` command that reproduces it, ready to become a `tests/regress/` kernel.

use fuzz::driver::{fuzz, Settings};
use fuzz::oracle::{main_configs, quiet_panics, RunOptions};
use fuzz::reduce::Budget;
use std::time::Duration;

#[test]
fn fixed_seeds_pass_on_the_main_configurations() {
    quiet_panics();
    let settings = Settings {
        seed: 0,
        count: 440,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        configs: main_configs().into_iter().chain(main_configs().first().map(|c| c.at(0))).collect(),
        run: RunOptions::default(),
        ir_one_in: 4,
        pressure_one_in: 32,
        reduce: true,
        budget: Budget { checks: 400, time: Duration::from_secs(30) },
    };
    let summary = fuzz(&settings, &|_, _| {});
    let table = summary.render();
    println!("{table}");
    if !summary.passed() {
        let mut message = format!("the fuzzer's slice found {} failure signature(s):\n{table}", summary.found.len());
        for f in &summary.found {
            message += &format!("\n==== {} ({} runs)\n{}\n{}", f.signature, f.count, f.command, f.text);
        }
        panic!("{message}");
    }
}
