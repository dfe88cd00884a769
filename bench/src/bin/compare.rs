//! `compare`: gcnc against LLVM 19 on the conformance kernels with OpenCL C twins; see the
//! crate documentation and README.md's "Benchmark" section.
//!
//! `cargo run -p bench --bin compare -- [--out DIR] [--filter P] [--reps N] [--mcpu CPU]...`
//! prints a summary (the geometric means and the five worst kernels per target), then two
//! markdown tables per target, and writes `DIR/compare.md`, `DIR/compare.json` and an SVG chart
//! of the ratios per target, `DIR/compare-TARGET.svg`.
//! Run with `--measure-child PROG ARGS...` it is the measuring relay of `bench::measure`.

use anyhow::{Context, Result};
use bench::compare::{Config, TargetSpec};
use bench::measure::{relay_main, Measurer, RELAY_FLAG};
use bench::report::{chart, json, markdown, summary, TargetReport, LEGEND};
use bench::{build_gcnc, find_tool, run_all, suite, DEFAULT_TARGETS};
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Compile time, memory and code quality of gcnc against LLVM 19.
#[derive(Debug, Parser)]
#[command(name = "compare")]
struct Cli {
    /// Where to write compare.md, compare.json and the objects [default: target/bench]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Only the kernels whose name contains P
    #[arg(long, value_name = "P")]
    filter: Option<String>,
    /// Repetitions of each timed compile (the median is reported)
    #[arg(long, value_name = "N", default_value_t = 5)]
    reps: usize,
    /// A target processor (repeatable) [default: gfx1100 and gfx942]
    #[arg(long = "mcpu", value_name = "CPU")]
    mcpu: Vec<String>,
    /// Use this gcnc program instead of building it with cargo
    #[arg(long, value_name = "PATH")]
    gcnc: Option<PathBuf>,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let result = if argv.get(1).map(String::as_str) == Some(RELAY_FLAG) { relay_main(&argv[2..]) } else { run(&argv) };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(argv: &[String]) -> Result<()> {
    let cli = Cli::parse_from(argv);
    let root = suite::workspace_root();
    let out = cli.out.unwrap_or_else(|| root.join("target/bench"));
    let work_dir = out.join("objects");
    std::fs::create_dir_all(&work_dir).with_context(|| format!("cannot create '{}'", work_dir.display()))?;
    let me = std::env::current_exe().context("locating the benchmark executable")?;
    let gcnc = match cli.gcnc {
        Some(p) => p,
        None => build_gcnc(&me)?,
    };
    let config = Config {
        gcnc,
        clang: find_tool("clang-19")?,
        llc: find_tool("llc-19")?,
        measurer: Measurer { relay: me },
        reps: cli.reps.max(1),
        work_dir,
    };
    if cli.filter.as_deref() == Some("") {
        anyhow::bail!("--filter is empty: give part of a kernel's name");
    }
    let (kernels, orphans) =
        suite::discover(&root.join("tests/conformance"), &root.join("bench/cl"), cli.filter.as_deref())?;
    if kernels.is_empty() {
        anyhow::bail!("no bench kernel matches --filter {}", cli.filter.as_deref().unwrap_or_default());
    }
    if !orphans.is_empty() {
        eprintln!("note: no conformance kernel (tests/conformance/NAME.gk) yet for: {}", orphans.join(", "));
    }
    let mcpus: Vec<String> =
        if cli.mcpu.is_empty() { DEFAULT_TARGETS.iter().map(|s| s.to_string()).collect() } else { cli.mcpu };
    let targets: Vec<TargetSpec> = mcpus.into_iter().map(|mcpu| TargetSpec { mcpu }).collect();
    let results = run_all(&config, &kernels, &targets);
    let reports: Vec<TargetReport> = results.iter().map(|(mcpu, rows)| TargetReport { mcpu, rows }).collect();
    let mut text =
        format!("# gcnc vs LLVM 19: {} kernel(s), median of {} run(s) per compile\n\n", kernels.len(), config.reps);
    text.push_str(&summary(&reports));
    text.push_str(&format!("\n## Per kernel\n\n{LEGEND}\n\n"));
    let mut targets_json = Vec::new();
    for report in &reports {
        text.push_str(&markdown(report));
        text.push('\n');
        targets_json.push(json(report));
        let svg = chart(report).map_err(|e| anyhow::anyhow!("drawing the chart of {}: {e}", report.mcpu))?;
        let svg_path = out.join(format!("compare-{}.svg", report.mcpu.replace(':', "_")));
        std::fs::write(&svg_path, svg).with_context(|| format!("writing '{}'", svg_path.display()))?;
        eprintln!("wrote {}", svg_path.display());
    }
    print!("{text}");
    let doc = serde_json::json!({ "reps": config.reps, "legend": LEGEND, "targets": targets_json });
    let md_path = out.join("compare.md");
    let json_path = out.join("compare.json");
    std::fs::write(&md_path, &text).with_context(|| format!("writing '{}'", md_path.display()))?;
    let pretty = serde_json::to_string_pretty(&doc).context("rendering the JSON")?;
    std::fs::write(&json_path, pretty).with_context(|| format!("writing '{}'", json_path.display()))?;
    eprintln!("wrote {} and {}", md_path.display(), json_path.display());
    Ok(())
}
