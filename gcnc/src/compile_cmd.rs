//! `gcnc compile`: reads a module, compiles it for the target of the command line, and writes
//! what `-c`, `-S` or `--emit` ask for (a linked code object by default; `-S` the assembly file
//! of `gcnc::Compiled::assembly`, which llvm-mc-19 assembles into the `-c` object), whole or
//! not at all (written through to a device or FIFO).

use crate::cli::write_file;
use anyhow::{Context, Result};
use gcnc::compile::{Options, Stages};
use runtime_abi::kernarg::CodeObjectVersion;
use std::path::PathBuf;

use crate::cli::{CompileOpts, EmitKind};

/// The default output path: the input with the extension of what is written.
fn default_output(opts: &CompileOpts, kind: EmitKind) -> PathBuf {
    let ext = match kind {
        EmitKind::Hsaco => "hsaco",
        EmitKind::Obj => "o",
        EmitKind::Asm => "s",
        EmitKind::Ir => "ir.gir",
        EmitKind::Mir => "mir",
    };
    opts.input.with_extension(ext)
}

/// Writes the output (see [`write_file`]); `-o -` writes to standard output.
fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        return crate::cli::write_stdout(bytes);
    }
    write_file(path, bytes)
}

/// What `-v` and `-###` print before compiling: the version, the target, the input, the
/// stages at the `-O` level and the output.
fn plan(opts: &CompileOpts, kind: EmitKind, output: &std::path::Path) -> String {
    let target = match opts.target.target() {
        Ok(t) => {
            let mode = if t.cumode { ", CU mode" } else { "" };
            let split = if t.tgsplit { ", tgsplit" } else { "" };
            format!("{} (wave{}{mode}{split})", runtime_abi::metadata::target_string(&t.id), t.wave_size)
        }
        Err(e) => format!("{e:#}"),
    };
    let level = opts.opt.opt_level;
    let front = if opts.input.extension().is_some_and(|e| e == "gk") { "the kernel language" } else { "textual IR" };
    let stages = match kind {
        EmitKind::Ir => "the front end only".to_string(),
        _ => gcnc::compile::describe_stages(level),
    };
    let what = match kind {
        EmitKind::Hsaco => "a linked code object",
        EmitKind::Obj => "a relocatable object",
        EmitKind::Asm => "assembly",
        EmitKind::Ir => "textual IR",
        EmitKind::Mir => "machine IR",
    };
    format!(
        "gcnc {}\ntarget: {target}\ninput: {} ({front})\nstages at -O{level}: {stages}\noutput: {} ({what})\n",
        crate::cli::VERSION,
        opts.input.display(),
        output.display()
    )
}

/// Runs `gcnc compile`.
pub fn run(opts: &CompileOpts) -> Result<()> {
    let kind = opts.emit_kind();
    let output = opts.output.clone().unwrap_or_else(|| default_output(opts, kind));
    if opts.verbose || opts.dry_run {
        eprint!("{}", plan(opts, kind, &output));
        if opts.dry_run {
            return Ok(());
        }
    }
    let source = crate::source::load(&opts.input)?;
    if kind == EmitKind::Ir {
        return write_output(&output, source.module.to_string().as_bytes());
    }
    let target = opts.target.target()?;
    let version = match opts.code_object_version {
        4 => CodeObjectVersion::V4,
        6 => CodeObjectVersion::V6,
        _ => CodeObjectVersion::V5,
    };
    let threads = opts.jobs.map_or(1, std::num::NonZeroUsize::get);
    let text = matches!(kind, EmitKind::Asm | EmitKind::Mir);
    let print_after = if opts.print_after_all {
        Stages::ALL
    } else {
        // clap has checked the names against the same list.
        opts.print_after.iter().fold(Stages::NONE, |set, name| set.with(name).unwrap_or(set))
    };
    let options =
        Options { code_object_version: version, threads, text, print_after, verify: opts.verify, ..opts.opt.options() };
    let mut compiled = source.compile(&target, &options)?;
    crate::source::print_dumps(&compiled.printed);
    compiled.describe_params(&source.signatures);
    let bytes = match kind {
        EmitKind::Hsaco => compiled.shared(),
        EmitKind::Obj => compiled.relocatable(),
        EmitKind::Asm => compiled.assembly().context("cannot write the assembly file")?.into_bytes(),
        EmitKind::Mir => compiled.mir.iter().map(|(_, text)| text.as_str()).collect::<String>().into_bytes(),
        EmitKind::Ir => unreachable!("handled above"),
    };
    write_output(&output, &bytes)?;
    if opts.verbose {
        for s in &compiled.stats {
            let ran: Vec<&str> = s.pass_times.iter().map(|(stage, _)| *stage).collect();
            eprintln!("@{}: {}", s.name, ran.join(" "));
        }
    }
    if opts.stats {
        for s in &compiled.stats {
            eprintln!(
                "@{}: {} instructions, {} bytes, {} SGPRs, {} VGPRs, {} waves per SIMD (target {}), {} spills ({} SGPR lanes, {} AGPRs, {} scratch bytes), {} reloads, {} rematerialized, {} waits, {} nops, {} s_delay_alu",
                s.name,
                s.instructions,
                s.bytes,
                s.sgprs,
                s.vgprs,
                s.waves_per_simd,
                s.wave_target,
                s.spills.spills,
                s.spills.sgpr_lanes,
                s.spills.agprs,
                s.spills.scratch_bytes,
                s.spills.reloads,
                s.spills.remats,
                s.waits,
                s.nops,
                s.delays
            );
            for (pass, time) in &s.pass_times {
                eprintln!("  {pass:<10} {:>9.3} ms", time.as_secs_f64() * 1e3);
            }
        }
    }
    Ok(())
}
