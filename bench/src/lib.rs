//! Benchmarks: compile time, memory and code quality of gcnc against LLVM 19, measured side by
//! side in one run.
//!
//! For each conformance kernel (`tests/conformance/NAME.gk`) with an OpenCL C twin
//! (`bench/cl/NAME.cl`, the same parameters in the same order) and each target, the `compare`
//! program measures: the compile time of gcnc (as a process and in process), of `llc-19 -O3`
//! on the IR `clang-19 -O3 -emit-llvm` made from the twin (the backend alone), and of
//! `clang-19 -O3 -c` end to end; the peak memory of gcnc and llc; the static code quality of
//! both objects; and the instructions each executes per work-item on the emulator. It prints
//! a markdown table per target and writes the same as JSON, with the geometric means of the
//! gcnc / LLVM ratios. Nothing is hard-coded: every number comes from this run.
//!
//! [`suite`] finds the kernels and their launches, [`measure`] runs and measures processes,
//! [`quality`] reads a code object's static measures, [`dynamic`] runs one on the emulator,
//! [`compare`] takes one kernel on one target through all of it, and [`report`] renders.

pub mod compare;
pub mod dynamic;
pub mod measure;
pub mod quality;
pub mod report;
pub mod scaling;
pub mod suite;

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The targets compared by default: gfx1100 (wave32, its default) and gfx942.
pub const DEFAULT_TARGETS: [&str; 2] = ["gfx1100", "gfx942"];

/// Builds the `gcnc` program with cargo, in the profile `beside` (the benchmark's own
/// executable) was built in (the dev profile, as everything in this workspace, unless its
/// directory says `release`), and returns its path: both live in the same target directory.
pub fn build_gcnc(beside: &Path) -> Result<PathBuf> {
    let dir = beside.parent().context("the benchmark executable has no directory")?;
    // Test executables live one level down, in deps/.
    let profile_dir = if dir.ends_with("deps") { dir.parent().unwrap_or(dir) } else { dir };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--quiet", "-p", "gcnc", "--bin", "gcnc"]).current_dir(suite::workspace_root());
    if profile_dir.ends_with("release") {
        command.arg("--release");
    }
    let status = command.status().context("running cargo build -p gcnc")?;
    if !status.success() {
        bail!("cargo build -p gcnc failed ({status})");
    }
    let gcnc = profile_dir.join("gcnc");
    if !gcnc.is_file() {
        bail!("the gcnc program is not at '{}', beside the benchmark executable", gcnc.display());
    }
    Ok(gcnc)
}

/// The path of `tool` on PATH, or an error naming it.
pub fn find_tool(tool: &str) -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
        .with_context(|| format!("{tool} is not on PATH (scripts/test.sh installs the LLVM 19 tools)"))
}

/// Runs every kernel on every target; progress goes to standard error.
pub fn run_all(
    config: &compare::Config,
    kernels: &[suite::Kernel],
    targets: &[compare::TargetSpec],
) -> Vec<(String, Vec<compare::Comparison>)> {
    targets
        .iter()
        .map(|target| {
            let rows = kernels
                .iter()
                .map(|k| {
                    eprint!("\r{:>8} {:<24}", target.mcpu, k.name);
                    compare::compare(config, k, target)
                })
                .collect();
            eprintln!();
            (target.mcpu.clone(), rows)
        })
        .collect()
}
