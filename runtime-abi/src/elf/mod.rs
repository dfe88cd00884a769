//! AMDGPU HSA ELF code objects (NEW:1599-2249): the header values (e_flags: [`crate::target`]),
//! the metadata note, and two writers. [`write_relocatable`] gives the ET_REL that clang -c
//! gives (ld.lld-19 links it); [`write_shared`] is our own linker's ET_DYN, the only kind the
//! HSA loader accepts (NEW:1689), and what the emulator loads.
//!
//! Both writers share one layout of the kernels: `.text` holds each kernel's code at a
//! 256-byte boundary (the code entry alignment, NEW:16049), padded with `s_nop 0`, and after
//! the last kernel the prefetch padding LLVM writes (see `code_end_padding`); `.rodata`
//! holds the 64-byte descriptors in the same order; `.note` holds the metadata.

mod relocatable;
mod shared;

use isa::processor::{Generation, Processor, TargetId};

pub use relocatable::{try_write_relocatable, write_relocatable};
pub use shared::{try_write_shared, write_shared};

pub use crate::target::{
    e_flags, target_from_e_flags, EF_AMDGPU_FEATURE_SRAMECC, EF_AMDGPU_FEATURE_XNACK, EF_AMDGPU_GENERIC_VERSION,
    EF_AMDGPU_MACH,
};

use crate::descriptor::KernelDescriptor;
use crate::kernarg::CodeObjectVersion;
use crate::metadata::{self, Metadata};
use crate::AbiError;

/// `e_machine` for AMD GPUs.
pub const EM_AMDGPU: u16 = 224;
/// `EI_OSABI` for HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// Relocation: `S + A - P`, 64 bits (the descriptor's code entry offset).
pub const R_AMDGPU_REL64: u32 = 5;
/// The note owner of V3+ code objects.
pub const NOTE_OWNER: &[u8] = b"AMDGPU";
/// The note type of the metadata.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// The section index of LDS symbols.
pub const SHN_AMDGPU_LDS: u16 = 0xff00;
/// The alignment of each kernel's code entry.
pub const CODE_ALIGN: u64 = 256;
/// The size and alignment of a kernel descriptor.
pub const DESCRIPTOR_SIZE: u64 = 64;
/// What fills `.text` between kernels: `s_nop 0` (0xbf800000 on GFX9-GFX12), as the LLVM
/// assembler fills code alignment.
const CODE_FILL: [u8; 4] = 0xbf80_0000u32.to_le_bytes();
/// `s_code_end` (0xbf9f0000 on GFX10-GFX12).
const S_CODE_END: [u8; 4] = 0xbf9f_0000u32.to_le_bytes();

/// What follows the last kernel in `.text`, as LLVM's `EmitCodeEnd` writes it (not in the
/// seeds; checked against clang-19's objects): instruction prefetch may read past the end of
/// the code, so on processors with gfx90a's instructions ([`Processor::gfx90a_insts`])
/// `s_nop 0` fills the instruction cache line ([`Processor::icache_line_bytes`]) and sixteen
/// more, and on GFX10+ `s_code_end` fills the line and three more. Other GFX9 processors get
/// nothing. Returns (fill word, line size, extra lines).
pub(crate) fn code_end_padding(proc: &Processor) -> Option<([u8; 4], usize, usize)> {
    let line = proc.icache_line_bytes as usize;
    if proc.gfx90a_insts {
        Some((CODE_FILL, line, 16))
    } else if proc.generation >= Generation::Gfx10 {
        Some((S_CODE_END, line, 3))
    } else {
        None
    }
}

/// One kernel to write.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCode {
    /// The symbol name (the descriptor is `NAME.kd`).
    pub name: String,
    /// This kernel's machine code, from the entry.
    pub code: Vec<u8>,
    /// Its descriptor; the writers fill `kernel_code_entry_byte_offset`.
    pub descriptor: KernelDescriptor,
    /// Its metadata; `.symbol` must be `NAME.kd`.
    pub metadata: metadata::Kernel,
}

/// A code object to write.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeObject {
    /// The target ID (processor, xnack, sramecc).
    pub target: TargetId,
    /// The code-object version.
    pub version: CodeObjectVersion,
    /// The kernels, in `.text` order.
    pub kernels: Vec<KernelCode>,
}

/// The whole metadata of `obj`.
pub fn metadata_of(obj: &CodeObject) -> Metadata {
    Metadata {
        kernels: obj.kernels.iter().map(|k| k.metadata.clone()).collect(),
        printf: None,
        target: Some(metadata::target_string(&obj.target)),
        version: obj.version.metadata_version(),
    }
}

/// One ELF note record: header, name and descriptor, each padded to 4 bytes (NEW:1966).
pub fn note_record(owner: &[u8], note_type: u32, desc: &[u8]) -> Vec<u8> {
    let mut note = Vec::with_capacity(12 + owner.len() + desc.len() + 8);
    note.extend_from_slice(&(owner.len() as u32 + 1).to_le_bytes());
    note.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    note.extend_from_slice(&note_type.to_le_bytes());
    note.extend_from_slice(owner);
    note.push(0);
    note.resize(note.len().next_multiple_of(4), 0);
    note.extend_from_slice(desc);
    note.resize(note.len().next_multiple_of(4), 0);
    note
}

/// The contents both writers lay out the same way.
struct Contents {
    /// `.text`: every kernel's code at a 256-byte boundary.
    text: Vec<u8>,
    /// Each kernel's offset in `.text`.
    code_offsets: Vec<u64>,
    /// `.rodata`: the descriptors, each at `64 * index`, code entry offsets 0.
    rodata: Vec<u8>,
    /// `.note`: the metadata note.
    note: Vec<u8>,
    /// The header's e_flags.
    e_flags: u32,
}

impl Contents {
    fn new(obj: &CodeObject) -> Result<Contents, AbiError> {
        validate(obj)?;
        let e_flags = e_flags(&obj.target, obj.version)?;
        let proc = obj.target.processor;
        let mut text = Vec::new();
        let mut code_offsets = Vec::new();
        let mut rodata = Vec::new();
        for kernel in &obj.kernels {
            while !(text.len() as u64).is_multiple_of(CODE_ALIGN) {
                text.extend_from_slice(&CODE_FILL);
            }
            code_offsets.push(text.len() as u64);
            text.extend_from_slice(&kernel.code);
            let descriptor = KernelDescriptor { kernel_code_entry_byte_offset: 0, ..kernel.descriptor };
            rodata.extend_from_slice(&descriptor.encode(proc));
        }
        if let Some((fill, line, extra_lines)) = code_end_padding(proc) {
            let end = text.len().next_multiple_of(line) + extra_lines * line;
            while text.len() < end {
                text.extend_from_slice(&fill);
            }
        }
        let note = note_record(NOTE_OWNER, NT_AMDGPU_METADATA, &metadata_of(obj).to_msgpack());
        Ok(Contents { text, code_offsets, rodata, note, e_flags })
    }
}

pub(crate) fn validate(obj: &CodeObject) -> Result<(), AbiError> {
    let invalid = |reason: String| Err(AbiError::InvalidCodeObject { reason });
    if obj.kernels.is_empty() {
        return invalid("no kernels".into());
    }
    for (index, kernel) in obj.kernels.iter().enumerate() {
        let name = &kernel.name;
        if name.is_empty() || name.contains('\0') {
            return invalid(format!("kernel {index} has the name {name:?}, which cannot be a symbol"));
        }
        if obj.kernels[..index].iter().any(|k| k.name == *name) {
            return invalid(format!("two kernels are named '{name}'"));
        }
        if kernel.code.is_empty() || kernel.code.len() % 4 != 0 {
            return invalid(format!(
                "kernel '{name}' has {} code bytes, not a positive multiple of 4",
                kernel.code.len()
            ));
        }
        if kernel.metadata.symbol != format!("{name}.kd") {
            return invalid(format!(
                "kernel '{name}' has metadata .symbol '{}', not '{name}.kd'",
                kernel.metadata.symbol
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(names: &[&str]) -> CodeObject {
        use crate::descriptor::{set_register_counts, RegisterUse};
        use crate::initial_state::{enable_inputs, KernelInputs};
        use crate::kernarg::KernargLayout;
        let target = TargetId::parse("gfx1100").unwrap();
        let proc = target.processor;
        let version = CodeObjectVersion::V5;
        let kernels = names
            .iter()
            .map(|&name| {
                let mut descriptor = KernelDescriptor::new(proc);
                enable_inputs(&mut descriptor, proc, &KernelInputs::default(), 32);
                let regs = RegisterUse {
                    vgprs: 1,
                    agprs: 0,
                    sgprs: 16,
                    uses_vcc: false,
                    xnack_mask: true,
                    flat_scratch: false,
                    wave_size: 32,
                };
                set_register_counts(&mut descriptor, proc, &regs);
                let layout = KernargLayout::new(&[], version);
                descriptor.kernarg_size = layout.size;
                let metadata = metadata::Kernel::new(name, version, proc, &descriptor, &[], &layout, &regs);
                // s_endpgm, after a few s_nop 0 so the kernels differ in length
                let mut code = [0, 0, 0x80, 0xbf].repeat(name.len());
                code.extend_from_slice(&0xbfb0_0000u32.to_le_bytes());
                KernelCode { name: name.to_string(), code, descriptor, metadata }
            })
            .collect();
        CodeObject { target, version, kernels }
    }

    #[test]
    fn written_objects_read_back() {
        let obj = tiny(&["first", "second_kernel"]);
        for (bytes, kind) in [
            (write_relocatable(&obj), crate::read::ObjectKind::Relocatable),
            (write_shared(&obj), crate::read::ObjectKind::Shared),
        ] {
            let back = crate::read(&bytes).unwrap();
            assert_eq!(back.e_type, kind);
            assert_eq!((back.e_flags, back.abi_version), (0x41, 3));
            assert_eq!(back.metadata.as_ref(), Some(&metadata_of(&obj)));
            for (read, written) in back.kernels.iter().zip(&obj.kernels) {
                assert_eq!(read.name, written.name);
                assert_eq!(read.code, written.code);
                assert_eq!(read.code_offset % CODE_ALIGN, 0);
                assert_eq!(read.descriptor_offset % DESCRIPTOR_SIZE, 0);
                let entry = read.descriptor_offset as i64 + read.descriptor.kernel_code_entry_byte_offset;
                match kind {
                    crate::read::ObjectKind::Relocatable => {
                        assert_eq!(read.descriptor.kernel_code_entry_byte_offset, 0)
                    }
                    // The loadable segments keep file offsets modulo the page, and .rodata is
                    // in the first segment at address = offset, so this holds in the file too.
                    crate::read::ObjectKind::Shared => assert_eq!(entry as u64 % 0x1000, read.code_offset % 0x1000),
                }
                let proc = obj.target.processor;
                assert_eq!(read.descriptor.rsrc2, written.descriptor.rsrc2);
                assert_eq!(read.descriptor.encode(proc)[..16], written.descriptor.encode(proc)[..16]);
            }
        }
    }

    #[test]
    fn malformed_code_objects_are_refused() {
        let reason = |obj: &CodeObject| match try_write_relocatable(obj) {
            Err(AbiError::InvalidCodeObject { reason }) => reason,
            other => panic!("{other:?}"),
        };
        assert!(reason(&tiny(&["a", "a"])).contains("two kernels are named 'a'"));
        assert!(reason(&tiny(&[])).contains("no kernels"));
        let mut obj = tiny(&["k"]);
        obj.kernels[0].code.pop();
        assert!(reason(&obj).contains("not a positive multiple of 4"));
        let mut obj = tiny(&["k"]);
        obj.kernels[0].metadata.symbol = "k".into();
        assert!(reason(&obj).contains("not 'k.kd'"));
        assert!(try_write_shared(&tiny(&["bad\0name"])).is_err());
    }

    /// The reader says where: the section header table or the section object refused, the
    /// descriptor that runs past its section.
    #[test]
    fn damaged_objects_are_refused_with_the_place() {
        use object::elf::{FileHeader64, SHT_SYMTAB};
        use object::read::elf::{FileHeader as _, SectionHeader as _};
        use object::LittleEndian as LE;
        let bytes = write_relocatable(&tiny(&["k"]));
        let header = FileHeader64::<LE>::parse(&*bytes).unwrap();
        let sections = header.sections(LE, &*bytes).unwrap();
        let (symtab, table) = sections.enumerate().find(|(_, s)| s.sh_type(LE) == SHT_SYMTAB).unwrap();
        let damaged = |at: usize, value: u64| {
            let mut bytes = bytes.clone();
            bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
            crate::read(&bytes).unwrap_err().to_string()
        };
        let end = bytes.len() as u64;
        let message =
            format!("section header table (e_shoff {end:#x}): Invalid ELF section header offset/size/alignment");
        assert_eq!(damaged(0x28, end), message);
        let table_header = header.e_shoff(LE) as usize + symtab.0 * 64;
        let message =
            format!("section {} (header at offset {table_header:#x}): Invalid ELF symbol table data", symtab.0);
        assert_eq!(damaged(table_header + 0x18, end), message);
        // k.kd's value (its offset in .rodata) 32 bytes on: half the descriptor is past the end.
        let symbols = sections.symbols(LE, &*bytes, SHT_SYMTAB).unwrap();
        let kd = symbols.iter().position(|s| symbols.symbol_name(LE, s).is_ok_and(|name| name == b"k.kd")).unwrap();
        let value = table.sh_offset(LE) as usize + kd * 24 + 8;
        assert_eq!(damaged(value, 32), "kernel 'k': descriptor at 0x20 (64 bytes) is outside its section");
    }

    #[test]
    fn notes_are_padded() {
        let note = note_record(NOTE_OWNER, NT_AMDGPU_METADATA, &[1, 2, 3, 4, 5]);
        assert_eq!(note.len(), 12 + 8 + 8);
        assert_eq!(&note[..12], &[7, 0, 0, 0, 5, 0, 0, 0, 32, 0, 0, 0]);
        assert_eq!(&note[12..20], b"AMDGPU\0\0");
    }
}
