//! `scaling`: compile time and peak memory per statement of gcnc from 1,000 to 50,000
//! statements, for straight-line code, ifs and loop nests, in process (see `bench::scaling`).
//!
//! `cargo run --release -p bench --bin scaling -- [--sizes N,N,...] [--reps N] [--mcpu CPU]`
//! prints a markdown table and exits with status 1 when a shape's per-statement figures spread
//! more than 2×.

use anyhow::{Context, Result};
use bench::scaling::{report, PeakAlloc, DEFAULT_SIZES};
use bench::suite;
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// Compile time and memory per statement across program sizes.
#[derive(Debug, Parser)]
#[command(name = "scaling")]
struct Cli {
    /// Program sizes in statements, comma-separated [default: 1000,5000,20000,50000]
    #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Repetitions of each compile (the median time is reported)
    #[arg(long, value_name = "N", default_value_t = 3)]
    reps: usize,
    /// The target processor
    #[arg(long, value_name = "CPU", default_value = "gfx1100")]
    mcpu: String,
    /// Where to write scaling.md [default: target/bench]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool> {
    let cli = Cli::parse();
    let out = cli.out.unwrap_or_else(|| suite::workspace_root().join("target/bench"));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create '{}'", out.display()))?;
    let sizes = if cli.sizes.is_empty() { DEFAULT_SIZES.to_vec() } else { cli.sizes };
    let results = bench::scaling::run(&cli.mcpu, &sizes, cli.reps)?;
    let (text, ok) = report(&cli.mcpu, &results);
    print!("{text}");
    let path = out.join("scaling.md");
    std::fs::write(&path, &text).with_context(|| format!("writing '{}'", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(ok)
}
