//! Static code quality of one kernel of a code object, read the same way for gcnc's objects
//! and LLVM's: instructions and code bytes from decoding the kernel's code (`isa::decode`),
//! SGPRs, VGPRs and LDS from the metadata (runtime-abi's reader), waves per SIMD from the
//! descriptor's register blocks (runtime-abi's occupancy, the emulator's too), and the counts of
//! `s_waitcnt` and `s_nop` instructions.
//!
//! Definitions, applied to both compilers alike:
//! - The kernel's code runs from its entry to the end of its symbol; what follows the last
//!   `s_endpgm` (the section's `s_code_end` padding, or `s_nop` filler) is not counted.
//! - `s_waitcnt` counts every `s_waitcnt*` instruction but `s_waitcnt_depctr` (a hazard
//!   wait, not a memory-counter wait); `s_nop` counts `s_nop` instructions.
//! - SGPRs and VGPRs are the metadata's `.sgpr_count` (which includes VCC, FLAT_SCRATCH and
//!   XNACK_MASK where the code object reserves them) and `.vgpr_count`.
//! - Waves per SIMD are those the register counts allow; LDS use is reported beside it, not
//!   folded in (the processor table has no LDS-per-CU fact yet).

use anyhow::{anyhow, Context, Result};
use isa::asm::print_inst;
use isa::decode::decode_all;
use isa::opcode::Family;

/// The static measures of one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quality {
    /// Instructions up to the last `s_endpgm`.
    pub instructions: u64,
    /// Bytes of those instructions.
    pub code_bytes: u64,
    /// The metadata's `.sgpr_count`.
    pub sgprs: u64,
    /// The metadata's `.vgpr_count`.
    pub vgprs: u64,
    /// Waves per SIMD the registers allow.
    pub waves_per_simd: u64,
    /// `s_waitcnt*` instructions (`s_waitcnt_depctr` excluded).
    pub waitcnts: u64,
    /// `s_nop` instructions.
    pub nops: u64,
    /// Static LDS bytes per work-group.
    pub lds_bytes: u64,
    /// Scratch bytes per work-item.
    pub scratch_bytes: u64,
    /// The wave size of the kernel's descriptor.
    pub wave_size: u32,
}

/// The static measures of kernel `name` in the code object `bytes`.
pub fn measure(bytes: &[u8], name: &str) -> Result<Quality> {
    let obj = runtime_abi::read(bytes).map_err(|e| anyhow!("not a code object runtime-abi reads: {e}"))?;
    let target = obj.target.ok_or_else(|| anyhow!("the ELF header names no processor gcnc knows"))?;
    let proc = target.processor;
    let family = Family::of(proc).ok_or_else(|| anyhow!("{}: no decoder for its family", proc.name))?;
    let kernel = obj.kernels.iter().find(|k| k.name == name).ok_or_else(|| anyhow!("no kernel named {name}"))?;
    let meta = kernel.metadata.as_ref().ok_or_else(|| anyhow!("{name} has no metadata entry"))?;
    let wave_size = if proc.wave32 && kernel.descriptor.props.enable_wavefront_size32 { 32 } else { 64 };
    let insts = decode_all(&kernel.code, family, wave_size)
        .map_err(|e| anyhow!("{name}: code offset {:#x}: {}", e.offset, e.error))
        .context("decoding")?;
    let mnemonics: Vec<String> = insts
        .iter()
        .map(|(_, inst, _)| {
            let text = print_inst(inst, family, wave_size);
            text.split_whitespace().next().unwrap_or_default().to_string()
        })
        .collect();
    let end = mnemonics.iter().rposition(|m| m == "s_endpgm").map_or(insts.len(), |i| i + 1);
    let body = &mnemonics[..end];
    let code_bytes = insts[..end].last().map_or(0, |&(offset, _, len)| offset + len) as u64;
    let waitcnts = body.iter().filter(|m| m.starts_with("s_waitcnt") && *m != "s_waitcnt_depctr").count() as u64;
    let nops = body.iter().filter(|m| *m == "s_nop").count() as u64;
    let sgprs = meta.sgpr_count;
    // From the descriptor, as the hardware and the emulator take it (for both compilers alike).
    let occupancy = runtime_abi::occupancy::descriptor_occupancy(&kernel.descriptor, proc, wave_size);
    Ok(Quality {
        instructions: end as u64,
        code_bytes,
        sgprs: sgprs.into(),
        vgprs: meta.vgpr_count.into(),
        waves_per_simd: occupancy.waves_per_simd.into(),
        waitcnts,
        nops,
        lds_bytes: meta.group_segment_fixed_size.into(),
        scratch_bytes: meta.private_segment_fixed_size.into(),
        wave_size,
    })
}
