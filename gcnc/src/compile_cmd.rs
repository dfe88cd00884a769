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

/// Runs `gcnc compile`.
pub fn run(opts: &CompileOpts) -> Result<()> {
    let source = crate::source::load(&opts.input)?;
    let kind = opts.emit_kind();
    let output = opts.output.clone().unwrap_or_else(|| default_output(opts, kind));
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
