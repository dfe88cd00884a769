//! `fuzz`: the differential program fuzzer's command line. Generates `--count` programs from
//! `--seed` on, checks each on the configurations of the `-mcpu`s (gfx1100, gfx942 and gfx90a
//! by default: wave32, wave64, CU mode, threadgroup split) at `-O`, prints the table of outcomes,
//! and writes each failure signature's first program, minimized, to `--out`. Exit status 0
//! when everything passed, 1 when something failed, 2 on a usage error.

use clap::Parser;
use fuzz::driver::{fuzz, Settings};
use fuzz::oracle::{configs, quiet_panics, RunOptions, DEFAULT_MCPUS};
use fuzz::reduce::Budget;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// gcnc's differential program fuzzer: random well-defined kernels, compiled and run on the
/// emulator against the reference interpreter.
#[derive(Debug, Parser)]
#[command(name = "fuzz", after_help = "Clang's spellings are accepted: -mcpu=gfx942, -O0 to -O3.")]
struct Cli {
    /// Programs to generate and check
    #[arg(long, value_name = "N")]
    count: u64,
    /// The first seed (program i has seed S + i)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Threads [default: the available parallelism]
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Where to write the minimized failing programs
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A processor to check on (repeatable; written -mcpu=... as in clang) [default: gfx1100,
    /// gfx942 and gfx90a]
    #[arg(long = "mcpu", value_name = "TARGET_ID")]
    mcpu: Vec<String>,
    /// Only the main configurations (gfx1100 wave32 and wave64, gfx942, gfx90a)
    #[arg(long)]
    main_configs: bool,
    /// Optimization level to compile at (repeatable: each configuration at each level;
    /// written -O0 to -O3) [default: 2]
    #[arg(long = "opt-level", value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: Vec<u8>,
    /// Do not minimize failing programs
    #[arg(long)]
    no_reduce: bool,
    /// Run the emulator with its round-robin interleaving only (not also seed 1)
    #[arg(long)]
    one_interleaving: bool,
    /// One seed in this many also gets an IR kernel with random control flow (0: none)
    #[arg(long, value_name = "K", default_value_t = 4)]
    ir_one_in: u64,
    /// One seed in this many is a high-pressure program: many 64-bit values, uniform and
    /// divergent, live at once across loops and divergent branches, so that registers spill
    /// (1: every program; 0: none)
    #[arg(long, value_name = "K", default_value_t = 0)]
    pressure_one_in: u64,
}

/// Clang's `-mcpu=X`, `-mcpu X` and `-ON` in clap's spelling.
fn normalize(args: impl Iterator<Item = String>) -> Vec<String> {
    args.map(|a| match a.as_str() {
        "-mcpu" => "--mcpu".to_string(),
        _ if a.starts_with("-mcpu=") => format!("-{a}"),
        "-O0" | "-O1" | "-O2" | "-O3" => format!("--opt-level={}", &a[2..]),
        _ => a,
    })
    .collect()
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(normalize(std::env::args()));
    let mcpus: Vec<String> =
        if cli.mcpu.is_empty() { DEFAULT_MCPUS.iter().map(|s| s.to_string()).collect() } else { cli.mcpu.clone() };
    let mut configs = match configs(&mcpus) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: -mcpu: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.main_configs {
        configs.retain(|c| !c.target.cumode && !c.target.tgsplit);
    }
    let levels = if cli.opt_level.is_empty() { vec![2] } else { cli.opt_level.clone() };
    let configs: Vec<_> = levels.iter().flat_map(|&level| configs.iter().map(move |c| c.at(level))).collect();
    let jobs = cli.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let settings = Settings {
        seed: cli.seed,
        count: cli.count,
        jobs,
        configs,
        run: RunOptions { second_interleaving: !cli.one_interleaving, ..RunOptions::default() },
        ir_one_in: cli.ir_one_in,
        pressure_one_in: cli.pressure_one_in,
        reduce: !cli.no_reduce,
        budget: Budget::default(),
    };
    quiet_panics();
    // indicatif draws on a terminal only, at most a few times a second.
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("[{bar:30}] {pos}/{len} programs checked, {eta} left")
            .map(|style| style.progress_chars("#>-"))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let summary = fuzz(&settings, &progress);
    bar.finish_and_clear();
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(summary.render().as_bytes());
    if let Some(dir) = &cli.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create '{}': {e}", dir.display());
            return ExitCode::from(1);
        }
        for f in &summary.found {
            let path = dir.join(&f.file);
            if let Err(e) = std::fs::write(&path, &f.text) {
                eprintln!("error: cannot write '{}': {e}", path.display());
                return ExitCode::from(1);
            }
        }
        let _ = writeln!(stdout, "\n{} reproducers written to {}", summary.found.len(), dir.display());
    }
    if summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
