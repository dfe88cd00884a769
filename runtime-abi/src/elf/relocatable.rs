//! The ET_REL writer, through `object::build::elf::Builder`, shaped as clang-19's objects:
//! `.text` (256-aligned), `.rodata` (the descriptors, 64-aligned), `.rela.rodata` (one
//! `R_AMDGPU_REL64` per descriptor at `.kd+16`, against the kernel symbol, addend 0x10),
//! `.note` (SHF_ALLOC, 4-aligned), `.symtab`, `.strtab`, `.shstrtab`. Each kernel has
//! `NAME` (STT_FUNC, its code size) and `NAME.kd` (STT_OBJECT, 64 bytes), both GLOBAL and
//! PROTECTED, as clang-19 gives OpenCL kernels.

use object::build::elf::{Builder, Relocation, SectionData};
use object::elf;
use object::Endianness;

use super::{CodeObject, Contents, CODE_ALIGN, DESCRIPTOR_SIZE, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, R_AMDGPU_REL64};
use crate::AbiError;

/// The ET_REL of `obj`.
///
/// # Panics
/// If `obj` is not well formed (see [`try_write_relocatable`]).
pub fn write_relocatable(obj: &CodeObject) -> Vec<u8> {
    try_write_relocatable(obj).unwrap_or_else(|err| panic!("write_relocatable: {err}"))
}

/// The ET_REL of `obj`, or why it cannot be written: no kernels, a kernel name that is
/// empty, repeated or has a NUL, code that is empty or not whole dwords, metadata whose
/// `.symbol` is not `NAME.kd`, or a generic processor below code object V6.
pub fn try_write_relocatable(obj: &CodeObject) -> Result<Vec<u8>, AbiError> {
    let contents = Contents::new(obj)?;
    let mut builder = Builder::new(Endianness::Little, true);
    builder.header.os_abi = elf::OsAbi(ELFOSABI_AMDGPU_HSA);
    builder.header.abi_version = obj.version.abi_version();
    builder.header.e_type = elf::ET_REL;
    builder.header.e_machine = elf::Machine(EM_AMDGPU);
    builder.header.e_flags = elf::FileFlags(contents.e_flags);

    let text = add_section(&mut builder, ".text", elf::SHT_PROGBITS, elf::SHF_ALLOC | elf::SHF_EXECINSTR, CODE_ALIGN);
    builder.sections.get_mut(text).data = SectionData::Data(contents.text.into());
    let rodata = add_section(&mut builder, ".rodata", elf::SHT_PROGBITS, elf::SHF_ALLOC, DESCRIPTOR_SIZE);
    builder.sections.get_mut(rodata).data = SectionData::Data(contents.rodata.into());
    let rela = add_section(&mut builder, ".rela.rodata", elf::SHT_RELA, elf::SHF_INFO_LINK, 8);
    let note = add_section(&mut builder, ".note", elf::SHT_NOTE, elf::SHF_ALLOC, 4);
    builder.sections.get_mut(note).data = SectionData::Note(contents.note.into());
    let symtab = add_section(&mut builder, ".symtab", elf::SHT_SYMTAB, elf::SectionFlags(0), 8);
    builder.sections.get_mut(symtab).data = SectionData::Symbol;
    builder.sections.get_mut(symtab).sh_entsize = 24;
    let strtab = add_section(&mut builder, ".strtab", elf::SHT_STRTAB, elf::SectionFlags(0), 1);
    builder.sections.get_mut(strtab).data = SectionData::String;
    let shstrtab = add_section(&mut builder, ".shstrtab", elf::SHT_STRTAB, elf::SectionFlags(0), 1);
    builder.sections.get_mut(shstrtab).data = SectionData::SectionString;

    let mut relocations = Vec::new();
    for (index, (kernel, &code_offset)) in obj.kernels.iter().zip(&contents.code_offsets).enumerate() {
        let descriptor_offset = index as u64 * DESCRIPTOR_SIZE;
        let entry = add_symbol(&mut builder, kernel.name.clone(), elf::STT_FUNC, text, code_offset, kernel.code.len());
        add_symbol(&mut builder, format!("{}.kd", kernel.name), elf::STT_OBJECT, rodata, descriptor_offset, 64);
        // KERNEL_CODE_ENTRY_BYTE_OFFSET = entry - descriptor: S + A - P with P = .kd + 16
        // needs A = 16 (as clang-19 writes it; the seeds do not say).
        relocations.push(Relocation {
            r_offset: descriptor_offset + 16,
            symbol: Some(entry),
            r_type: elf::RelocationType(R_AMDGPU_REL64),
            r_addend: 16,
        });
    }
    let rela = builder.sections.get_mut(rela);
    rela.data = SectionData::Relocation(relocations);
    rela.sh_link_section = Some(symtab);
    rela.sh_info_section = Some(rodata);
    rela.sh_entsize = 24;

    let mut bytes = Vec::new();
    builder.write(&mut bytes).map_err(|err| AbiError::Write(err.to_string()))?;
    Ok(bytes)
}

fn add_section(
    builder: &mut Builder<'static>,
    name: &'static str,
    sh_type: elf::SectionType,
    sh_flags: elf::SectionFlags,
    align: u64,
) -> object::build::elf::SectionId {
    let section = builder.sections.add();
    section.name = name.into();
    section.sh_type = sh_type;
    section.sh_flags = sh_flags;
    section.sh_addralign = align;
    section.id()
}

fn add_symbol(
    builder: &mut Builder<'static>,
    name: String,
    st_type: elf::SymbolType,
    section: object::build::elf::SectionId,
    value: u64,
    size: usize,
) -> object::build::elf::SymbolId {
    let symbol = builder.symbols.add();
    symbol.name = name.into_bytes().into();
    symbol.set_st_info(elf::STB_GLOBAL, st_type);
    symbol.st_other = elf::SymbolOther(elf::STV_PROTECTED.0);
    symbol.section = Some(section);
    symbol.st_value = value;
    symbol.st_size = size as u64;
    symbol.id()
}
