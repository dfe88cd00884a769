//! Our linker: the ET_DYN of a code object, written directly with
//! `object::write::elf::Writer` (no ET_REL in between), laid out as ld.lld-19 lays out a
//! kernel-only object:
//!
//! ```text
//!  file offset / address          segment
//!  ELF header, program headers    LOAD R   (PHDR)
//!  .note .dynsym .hash .dynstr    LOAD R   (NOTE covers .note)
//!  .rodata (descriptors)          LOAD R
//!  .text (256-aligned)            LOAD R+X   next page in memory, same page offset
//!  .dynamic                       LOAD R+W   next page in memory (DYNAMIC)
//!  .symtab .strtab .shstrtab, section headers (not loaded)
//! ```
//!
//! Every segment's address is congruent to its file offset modulo the 4 KiB page, so a loader
//! can map the file; each descriptor's KERNEL_CODE_ENTRY_BYTE_OFFSET is resolved to its
//! kernel's address minus the descriptor's. Unlike lld we write no `.gnu.hash` (the SysV
//! `.hash` is enough for a symbol lookup) and no GNU_RELRO/GNU_STACK headers.

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::Endianness;

use super::{CodeObject, Contents, CODE_ALIGN, DESCRIPTOR_SIZE, ELFOSABI_AMDGPU_HSA, EM_AMDGPU};
use crate::AbiError;

/// The page size segments are aligned to (lld's default max-page-size for AMDGPU).
const PAGE: u64 = 0x1000;
/// PHDR, three LOADs, DYNAMIC, NOTE.
const PROGRAM_HEADERS: u32 = 6;
/// DT_HASH, DT_SYMTAB, DT_SYMENT, DT_STRTAB, DT_STRSZ, DT_NULL.
const DYNAMIC_ENTRIES: usize = 6;

/// The ET_DYN of `obj`, ready for the HSA loader.
///
/// # Panics
/// If `obj` is not well formed (see [`try_write_shared`]).
pub fn write_shared(obj: &CodeObject) -> Vec<u8> {
    try_write_shared(obj).unwrap_or_else(|err| panic!("write_shared: {err}"))
}

/// The address a segment starting at file offset `offset` gets after a segment ending at
/// address `prev_end`: the next page, plus the offset's place in its page.
fn next_segment_address(prev_end: u64, offset: u64) -> u64 {
    prev_end.next_multiple_of(PAGE) + offset % PAGE
}

/// The ET_DYN of `obj`, or why it cannot be written (as [`super::try_write_relocatable`]).
pub fn try_write_shared(obj: &CodeObject) -> Result<Vec<u8>, AbiError> {
    let mut contents = Contents::new(obj)?;
    let descriptor_names: Vec<String> = obj.kernels.iter().map(|k| format!("{}.kd", k.name)).collect();
    let mut bytes = Vec::new();
    let mut writer = Writer::new(Endianness::Little, true, &mut bytes);

    // Section indices, in section-header order.
    writer.reserve_null_section_index();
    let note_name = writer.add_section_name(b".note");
    writer.reserve_section_index();
    writer.reserve_dynsym_section_index();
    writer.reserve_hash_section_index();
    writer.reserve_dynstr_section_index();
    let rodata_name = writer.add_section_name(b".rodata");
    let rodata_index = writer.reserve_section_index();
    let text_name = writer.add_section_name(b".text");
    let text_index = writer.reserve_section_index();
    writer.reserve_dynamic_section_index();
    writer.reserve_symtab_section_index();
    writer.reserve_strtab_section_index();
    writer.reserve_shstrtab_section_index();

    // Symbols: NAME then NAME.kd per kernel, the same in .dynsym and .symtab.
    let mut symbols = Vec::new();
    writer.reserve_null_dynamic_symbol_index();
    for (kernel, kd) in obj.kernels.iter().zip(&descriptor_names) {
        for (name, section) in [(kernel.name.as_bytes(), text_index), (kd.as_bytes(), rodata_index)] {
            let dynstr = writer.add_dynamic_string(name);
            let strtab = writer.add_string(name);
            writer.reserve_dynamic_symbol_index();
            writer.reserve_symbol_index(Some(section));
            symbols.push((name, dynstr, strtab));
        }
    }
    let dynsym_count = writer.dynamic_symbol_count();

    // File ranges.
    writer.reserve_file_header();
    writer.reserve_program_headers(PROGRAM_HEADERS);
    let note_offset = writer.reserve(contents.note.len() as u64, 4);
    let dynsym_offset = writer.reserve_dynsym();
    let hash_offset = writer.reserve_hash(dynsym_count, dynsym_count);
    let dynstr_offset = writer.reserve_dynstr()?;
    let rodata_offset = writer.reserve(contents.rodata.len() as u64, DESCRIPTOR_SIZE);
    let read_only_end = rodata_offset + contents.rodata.len() as u64;
    let text_offset = writer.reserve(contents.text.len() as u64, CODE_ALIGN);
    let text_address = next_segment_address(read_only_end, text_offset);
    let dynamic_offset = writer.reserve_dynamic(DYNAMIC_ENTRIES);
    let dynamic_size = writer.reserved_len() - dynamic_offset;
    let dynamic_address = next_segment_address(text_address + contents.text.len() as u64, dynamic_offset);
    writer.reserve_symtab();
    writer.reserve_strtab()?;
    writer.reserve_shstrtab()?;
    writer.reserve_section_headers();

    // The read-only segment is mapped at address 0, so its addresses are its offsets.
    for (index, &code_offset) in contents.code_offsets.iter().enumerate() {
        let descriptor_address = rodata_offset + index as u64 * DESCRIPTOR_SIZE;
        let entry = (text_address + code_offset) as i64 - descriptor_address as i64;
        let at = index * DESCRIPTOR_SIZE as usize + 16;
        contents.rodata[at..at + 8].copy_from_slice(&entry.to_le_bytes());
    }
    // Symbol `index` (NAME, NAME.kd, NAME, ...) with its name at `st_name`.
    let symbol = |index: usize, st_name: u32| {
        let kernel = index / 2;
        let (section, st_value, st_size, st_type) = if index.is_multiple_of(2) {
            let code = &obj.kernels[kernel].code;
            (text_index, text_address + contents.code_offsets[kernel], code.len() as u64, elf::STT_FUNC)
        } else {
            (rodata_index, rodata_offset + kernel as u64 * DESCRIPTOR_SIZE, DESCRIPTOR_SIZE, elf::STT_OBJECT)
        };
        Sym {
            section: Some(section.0),
            st_name,
            st_info: elf::SymbolInfo::new(elf::STB_GLOBAL, st_type),
            st_other: elf::STV_PROTECTED.into(),
            st_shndx: elf::SymbolSection(0),
            st_value,
            st_size,
        }
    };

    writer.write_file_header(&FileHeader {
        os_abi: elf::OsAbi(ELFOSABI_AMDGPU_HSA),
        abi_version: obj.version.abi_version(),
        e_type: elf::ET_DYN,
        e_machine: elf::Machine(EM_AMDGPU),
        e_entry: 0,
        e_flags: elf::FileFlags(contents.e_flags),
    })?;
    let headers_size = u64::from(PROGRAM_HEADERS) * 56;
    writer.write_align_program_headers();
    let segment = |p_type, p_flags, offset, address, size, align| ProgramHeader {
        p_type,
        p_flags,
        p_offset: offset,
        p_vaddr: address,
        p_paddr: address,
        p_filesz: size,
        p_memsz: size,
        p_align: align,
    };
    for header in [
        segment(elf::PT_PHDR, elf::PF_R, 64, 64, headers_size, 8),
        segment(elf::PT_LOAD, elf::PF_R, 0, 0, read_only_end, PAGE),
        segment(elf::PT_LOAD, elf::PF_R | elf::PF_X, text_offset, text_address, contents.text.len() as u64, PAGE),
        segment(elf::PT_LOAD, elf::PF_R | elf::PF_W, dynamic_offset, dynamic_address, dynamic_size, PAGE),
        segment(elf::PT_DYNAMIC, elf::PF_R | elf::PF_W, dynamic_offset, dynamic_address, dynamic_size, 8),
        segment(elf::PT_NOTE, elf::PF_R, note_offset, note_offset, contents.note.len() as u64, 4),
    ] {
        writer.write_program_header(&header);
    }

    writer.pad_until(note_offset);
    writer.write(&contents.note);
    writer.write_null_dynamic_symbol();
    for (index, &(_, dynstr, _)) in symbols.iter().enumerate() {
        writer.write_dynamic_symbol(&symbol(index, writer.dynamic_string_offset(Some(dynstr))));
    }
    writer
        .write_hash(dynsym_count, dynsym_count, |index| (index > 0).then(|| elf::hash(symbols[index as usize - 1].0)));
    writer.write_dynstr();
    writer.pad_until(rodata_offset);
    writer.write(&contents.rodata);
    writer.pad_until(text_offset);
    writer.write(&contents.text);
    writer.write_align_dynamic();
    for (tag, value) in [
        (elf::DT_HASH, hash_offset),
        (elf::DT_SYMTAB, dynsym_offset),
        (elf::DT_SYMENT, 24),
        (elf::DT_STRTAB, dynstr_offset),
        (elf::DT_STRSZ, writer.dynstr_len().into()),
        (elf::DT_NULL, 0),
    ] {
        writer.write_dynamic(tag, value)?;
    }
    writer.write_null_symbol();
    for (index, &(_, _, strtab)) in symbols.iter().enumerate() {
        writer.write_symbol(&symbol(index, writer.string_offset(Some(strtab))));
    }
    writer.write_strtab();
    writer.write_shstrtab();

    // A data section's header: (name, type, flags, file offset, address, size, alignment).
    let data_section =
        |writer: &Writer<'_>, (name, sh_type, sh_flags, sh_offset, sh_addr, sh_size, sh_addralign)| SectionHeader {
            sh_name: writer.section_name_offset(Some(name)),
            sh_type,
            sh_flags,
            sh_addr,
            sh_offset,
            sh_size,
            sh_link: 0,
            sh_info: 0,
            sh_addralign,
            sh_entsize: 0,
        };
    let (note_size, rodata_size, text_size) =
        (contents.note.len() as u64, contents.rodata.len() as u64, contents.text.len() as u64);
    writer.write_null_section_header();
    let note = (note_name, elf::SHT_NOTE, elf::SHF_ALLOC, note_offset, note_offset, note_size, 4);
    writer.write_section_header(&data_section(&writer, note));
    writer.write_dynsym_section_header(dynsym_offset, 1);
    writer.write_hash_section_header(hash_offset);
    writer.write_dynstr_section_header(dynstr_offset);
    let rodata =
        (rodata_name, elf::SHT_PROGBITS, elf::SHF_ALLOC, rodata_offset, rodata_offset, rodata_size, DESCRIPTOR_SIZE);
    writer.write_section_header(&data_section(&writer, rodata));
    let text_flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
    let text = (text_name, elf::SHT_PROGBITS, text_flags, text_offset, text_address, text_size, CODE_ALIGN);
    writer.write_section_header(&data_section(&writer, text));
    writer.write_dynamic_section_header(dynamic_address);
    writer.write_symtab_section_header(1);
    writer.write_strtab_section_header();
    writer.write_shstrtab_section_header();
    debug_assert_eq!(writer.reserved_len(), writer.len());
    Ok(bytes)
}

impl From<object::write::Error> for AbiError {
    fn from(err: object::write::Error) -> AbiError {
        AbiError::Write(err.to_string())
    }
}
