//! `gcnc disasm FILE`: every instruction of every kernel of a code object (ours or anyone's,
//! ET_REL or ET_DYN), one line each, in llvm-objdump-19's syntax.
//!
//! The file is read by runtime-abi's reader, which finds each kernel's code from its
//! descriptor symbol; the descriptor gives the kernel's wave size (its ENABLE_WAVEFRONT_SIZE32
//! bit), so wave64 code prints `vcc` where wave32 code prints `vcc_lo`. The instructions are
//! decoded by `isa::decode` and printed by `isa::asm`, the same code the compiler encodes and
//! lists with. Bytes that do not decode stop the listing with an error naming the file
//! offset. The comment after each instruction gives its file offset and its dwords, as
//! llvm-objdump gives its address and dwords.
//!
//! Like llvm-objdump, the listing covers the whole code section: a kernel runs to the next
//! kernel or to the end of its section, so the padding after the last one (`s_code_end`,
//! `s_nop 0`) is listed too. runtime-abi's reader gives each kernel's entry but not the
//! section's extent, so [`code_sections`] reads the section headers for that, with `object`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use isa::asm::print_inst;
use isa::decode::decode_all;
use isa::opcode::Family;

/// Prints the disassembly of the code object at `path` on stdout.
pub fn run(path: &Path) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let text = disassemble(&bytes).with_context(|| format!("'{}'", path.display()))?;
    crate::cli::write_stdout(text)
}

/// The disassembly of a code object: a `<kernel>:` header per kernel, then one tab-indented
/// line per instruction, `text  // offset: dwords`.
pub fn disassemble(bytes: &[u8]) -> Result<String> {
    let obj = runtime_abi::read(bytes).map_err(|e| anyhow!("not a code object gcnc can read: {e}"))?;
    let target = obj.target.ok_or_else(|| anyhow!("the ELF header names no processor gcnc knows"))?;
    let processor = target.processor;
    let Some(family) = Family::of(processor) else {
        bail!("{}: gcnc disassembles the GFX9 (gfx942) and GFX11 (gfx1100) families only", processor.name);
    };
    let mut kernels: Vec<&runtime_abi::ReadKernel> = obj.kernels.iter().collect();
    kernels.sort_by_key(|k| k.code_offset);
    let sections = code_sections(bytes);
    let mut out = String::new();
    for (n, kernel) in kernels.iter().enumerate() {
        let wave = if processor.wave32 && kernel.descriptor.props.enable_wavefront_size32 { 32 } else { 64 };
        // To the next kernel or the end of the section, whichever comes first.
        let start = kernel.code_offset;
        let section_end = sections.iter().find(|&&(lo, hi)| lo <= start && start < hi).map(|&(_, hi)| hi);
        let next = kernels.get(n + 1).map(|k| k.code_offset);
        let end = match (section_end, next) {
            (Some(s), Some(k)) => s.min(k),
            (Some(s), None) => s,
            (None, _) => start + kernel.code.len() as u64,
        };
        let code = bytes.get(start as usize..end as usize).unwrap_or(&kernel.code);
        let _ = writeln!(out, "\n{:016x} <{}>:", kernel.code_offset, kernel.name);
        let insts = decode_all(code, family, wave).map_err(|e| {
            anyhow!("kernel {}: file offset {:#x}: {}", kernel.name, kernel.code_offset + e.offset as u64, e.error)
        })?;
        for (offset, inst, len) in insts {
            let words: Vec<String> = code[offset..offset + len]
                .chunks(4)
                .map(|w| format!("{:08X}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .collect();
            let text = print_inst(&inst, family, wave);
            let _ = writeln!(out, "\t{text:<58} // {:012X}: {}", kernel.code_offset + offset as u64, words.join(" "));
        }
    }
    Ok(out)
}

/// The file extents `[start, end)` of the executable sections (SHF_EXECINSTR) of an ELF64
/// file, read with `object`; empty when the section headers do not read.
fn code_sections(bytes: &[u8]) -> Vec<(u64, u64)> {
    use object::elf::{FileHeader64, SHF_EXECINSTR};
    use object::read::elf::{FileHeader, SectionHeader};
    use object::LittleEndian as LE;
    let Ok(header) = FileHeader64::<LE>::parse(bytes) else { return Vec::new() };
    let Ok(sections) = header.sections(LE, bytes) else { return Vec::new() };
    sections
        .iter()
        .filter(|s| s.sh_flags(LE).contains(SHF_EXECINSTR))
        .filter_map(|s| {
            let (offset, size) = s.file_range(LE)?;
            let end = offset.checked_add(size).filter(|&e| e <= bytes.len() as u64)?;
            Some((offset, end))
        })
        .collect()
}
