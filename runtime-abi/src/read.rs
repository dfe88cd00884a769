//! A reader for anyone's AMDGPU HSA code objects: ours, clang-19's ET_REL and ld.lld-19's
//! ET_DYN. It finds each kernel from its `NAME.kd` symbol, decodes the descriptor, follows the
//! code entry (the `R_AMDGPU_REL64` relocation in an ET_REL, the descriptor's offset in an
//! ET_DYN) to the kernel's code, and decodes the metadata note.
//!
//! It parses the ELF structures itself, with every offset checked, so malformed input gives
//! an [`AbiError`] that says where, never a panic.

use isa::processor::{Processor, TargetId};

use crate::descriptor::KernelDescriptor;
use crate::elf::{target_from_e_flags, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, NOTE_OWNER, NT_AMDGPU_METADATA, R_AMDGPU_REL64};
use crate::kernarg::CodeObjectVersion;
use crate::metadata::{self, Metadata};
use crate::AbiError;

/// The ELF file type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// ET_REL: what a compiler emits.
    Relocatable,
    /// ET_DYN: what the loader accepts.
    Shared,
}

/// A code object as read.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadObject {
    /// The ELF file type.
    pub e_type: ObjectKind,
    /// e_flags.
    pub e_flags: u32,
    /// EI_ABIVERSION.
    pub abi_version: u8,
    /// The code-object version EI_ABIVERSION names, if V4-V6.
    pub version: Option<CodeObjectVersion>,
    /// The target ID e_flags name, if they name a known processor (specific or generic, see
    /// [`crate::target`]) consistently.
    pub target: Option<TargetId>,
    /// The kernels, in symbol-table order.
    pub kernels: Vec<ReadKernel>,
    /// The decoded metadata note.
    pub metadata: Option<Metadata>,
    /// The metadata note's msgpack bytes, as found.
    pub metadata_msgpack: Option<Vec<u8>>,
    /// The file offset of those msgpack bytes.
    pub metadata_offset: Option<u64>,
}

/// A kernel as read.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadKernel {
    /// The symbol name (the descriptor's without `.kd`).
    pub name: String,
    /// The descriptor, exactly as stored (its code entry offset is 0 in an ET_REL).
    pub descriptor: KernelDescriptor,
    /// The descriptor's file offset.
    pub descriptor_offset: u64,
    /// The file offset of the code entry.
    pub code_offset: u64,
    /// The bytes from the entry to the end of the kernel: the kernel symbol's size when a
    /// function symbol starts at the entry, else the end of the section.
    pub code: Vec<u8>,
    /// The kernel's entry in the metadata (matched by `.symbol`).
    pub metadata: Option<metadata::Kernel>,
}

const SHT_SYMTAB: u32 = 2;
const SHT_RELA: u32 = 4;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_DYNSYM: u32 = 11;
const SHF_EXECINSTR: u64 = 4;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const SHN_LORESERVE: u16 = 0xff00;
const SYM_SIZE: u64 = 24;
const RELA_SIZE: u64 = 24;

/// The input with checked little-endian reads.
#[derive(Copy, Clone)]
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn slice(self, offset: u64, len: u64, what: &'static str) -> Result<&'a [u8], AbiError> {
        let truncated = || AbiError::Truncated { what, offset, needed: len, len: self.0.len() as u64 };
        let end = offset.checked_add(len).ok_or_else(truncated)?;
        if end > self.0.len() as u64 {
            return Err(truncated());
        }
        Ok(&self.0[offset as usize..end as usize])
    }

    fn array<const N: usize>(self, offset: u64, what: &'static str) -> Result<[u8; N], AbiError> {
        Ok(self.slice(offset, N as u64, what)?.try_into().expect("slice of length N"))
    }

    fn u16(self, offset: u64, what: &'static str) -> Result<u16, AbiError> {
        Ok(u16::from_le_bytes(self.array(offset, what)?))
    }

    fn u32(self, offset: u64, what: &'static str) -> Result<u32, AbiError> {
        Ok(u32::from_le_bytes(self.array(offset, what)?))
    }

    fn u64(self, offset: u64, what: &'static str) -> Result<u64, AbiError> {
        Ok(u64::from_le_bytes(self.array(offset, what)?))
    }
}

/// A section header.
#[derive(Copy, Clone, Debug)]
struct Section {
    index: usize,
    header_offset: u64,
    sh_type: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    entsize: u64,
}

/// A symbol-table entry.
#[derive(Clone, Debug)]
struct Symbol {
    index: usize,
    entry_offset: u64,
    name: String,
    st_type: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

/// A note record.
struct Note<'a> {
    name: &'a [u8],
    note_type: u32,
    desc: &'a [u8],
    /// The file offset of `desc`.
    desc_offset: u64,
}

struct Elf<'a> {
    input: Input<'a>,
    kind: ObjectKind,
    sections: Vec<Section>,
}

impl<'a> Elf<'a> {
    fn parse(bytes: &'a [u8]) -> Result<(Elf<'a>, u32, u8), AbiError> {
        let input = Input(bytes);
        let magic = input.slice(0, 4, "ELF magic").map_err(|_| AbiError::NotElf { magic: bytes.to_vec() })?;
        if magic != b"\x7fELF" {
            return Err(AbiError::NotElf { magic: magic.to_vec() });
        }
        input.slice(0, 64, "ELF header")?;
        let bad = |field, offset: u64, value: u64, expected| AbiError::BadHeader { field, offset, value, expected };
        let check = |field, offset, value: u64, wanted: u64, expected| {
            if value == wanted {
                Ok(())
            } else {
                Err(bad(field, offset, value, expected))
            }
        };
        check("EI_CLASS", 4, bytes[4].into(), 2, "2 (ELFCLASS64)")?;
        check("EI_DATA", 5, bytes[5].into(), 1, "1 (ELFDATA2LSB)")?;
        check("EI_OSABI", 7, bytes[7].into(), ELFOSABI_AMDGPU_HSA.into(), "64 (ELFOSABI_AMDGPU_HSA)")?;
        check("e_machine", 18, input.u16(18, "e_machine")?.into(), EM_AMDGPU.into(), "224 (EM_AMDGPU)")?;
        let kind = match input.u16(16, "e_type")? {
            1 => ObjectKind::Relocatable,
            3 => ObjectKind::Shared,
            other => return Err(bad("e_type", 16, other.into(), "1 (ET_REL) or 3 (ET_DYN)")),
        };
        let e_flags = input.u32(48, "e_flags")?;
        let shoff = input.u64(40, "e_shoff")?;
        let shnum = input.u16(60, "e_shnum")?;
        if shnum != 0 {
            check("e_shentsize", 58, input.u16(58, "e_shentsize")?.into(), 64, "64")?;
        }
        let mut sections = Vec::with_capacity(shnum.into());
        for index in 0..usize::from(shnum) {
            let at = shoff
                .checked_add(index as u64 * 64)
                .ok_or_else(|| bad("e_shoff", 40, shoff, "a section header table inside the file"))?;
            input.slice(at, 64, "section header")?;
            sections.push(Section {
                index,
                header_offset: at,
                sh_type: input.u32(at + 4, "sh_type")?,
                flags: input.u64(at + 8, "sh_flags")?,
                addr: input.u64(at + 16, "sh_addr")?,
                offset: input.u64(at + 24, "sh_offset")?,
                size: input.u64(at + 32, "sh_size")?,
                link: input.u32(at + 40, "sh_link")?,
                info: input.u32(at + 44, "sh_info")?,
                entsize: input.u64(at + 56, "sh_entsize")?,
            });
        }
        Ok((Elf { input, kind, sections }, e_flags, bytes[8]))
    }

    fn section(&self, index: usize, referrer: &Section, what: &str) -> Result<&Section, AbiError> {
        self.sections.get(index).ok_or_else(|| AbiError::BadSection {
            index: referrer.index,
            offset: referrer.header_offset,
            reason: format!("{what} {index} does not exist ({} sections)", self.sections.len()),
        })
    }

    fn data(&self, section: &Section) -> Result<&'a [u8], AbiError> {
        if section.sh_type == SHT_NOBITS {
            return Ok(&[]);
        }
        self.input.slice(section.offset, section.size, "section data")
    }

    /// The symbols of the first table of type `sh_type`.
    fn symbols(&self, sh_type: u32) -> Result<Option<(usize, Vec<Symbol>)>, AbiError> {
        let Some(table) = self.sections.iter().find(|s| s.sh_type == sh_type) else {
            return Ok(None);
        };
        let bad = |reason: String| AbiError::BadSection { index: table.index, offset: table.header_offset, reason };
        if table.entsize != SYM_SIZE {
            return Err(bad(format!("symbol entry size {} is not {SYM_SIZE}", table.entsize)));
        }
        let strings = self.data(self.section(table.link as usize, table, "string table")?)?;
        let data = self.data(table)?;
        let mut symbols = Vec::new();
        for (index, entry) in data.chunks_exact(SYM_SIZE as usize).enumerate().skip(1) {
            let entry_offset = table.offset + index as u64 * SYM_SIZE;
            let entry = Input(entry);
            let name_offset = entry.u32(0, "st_name")? as usize;
            let bad_symbol = |reason: &str| AbiError::BadSymbol {
                index,
                section: table.index,
                offset: entry_offset,
                reason: reason.to_string(),
            };
            let name_bytes = strings.get(name_offset..).ok_or_else(|| bad_symbol("name outside the string table"))?;
            let end = name_bytes.iter().position(|&b| b == 0).ok_or_else(|| bad_symbol("name not terminated"))?;
            let name = std::str::from_utf8(&name_bytes[..end]).map_err(|_| bad_symbol("name is not UTF-8"))?;
            symbols.push(Symbol {
                index,
                entry_offset,
                name: name.to_string(),
                st_type: entry.0[4] & 0xf,
                shndx: entry.u16(6, "st_shndx")?,
                value: entry.u64(8, "st_value")?,
                size: entry.u64(16, "st_size")?,
            });
        }
        Ok(Some((table.index, symbols)))
    }

    /// The symbol's section and its position in that section (the value in an ET_REL, the
    /// value minus the section address in an ET_DYN), checked to leave `len` bytes.
    fn place(&self, symbol: &Symbol, table: usize, len: u64) -> Result<(&Section, u64), AbiError> {
        let bad = |reason: String| AbiError::BadSymbol {
            index: symbol.index,
            section: table,
            offset: symbol.entry_offset,
            reason,
        };
        if symbol.shndx == 0 || symbol.shndx >= SHN_LORESERVE {
            return Err(bad(format!("'{}' is not defined in a section (index {:#x})", symbol.name, symbol.shndx)));
        }
        let section = self
            .sections
            .get(usize::from(symbol.shndx))
            .ok_or_else(|| bad(format!("'{}' names section {}, which does not exist", symbol.name, symbol.shndx)))?;
        let position = match self.kind {
            ObjectKind::Relocatable => Some(symbol.value),
            ObjectKind::Shared => symbol.value.checked_sub(section.addr),
        };
        match position {
            Some(position) if position.checked_add(len).is_some_and(|end| end <= section.size) => {
                Ok((section, position))
            }
            _ => Err(bad(format!("'{}' at {:#x} (+{len}) is outside its section", symbol.name, symbol.value))),
        }
    }

    /// The notes of every SHT_NOTE section.
    fn notes(&self) -> Result<Vec<Note<'a>>, AbiError> {
        let mut notes = Vec::new();
        for section in self.sections.iter().filter(|s| s.sh_type == SHT_NOTE) {
            let data = Input(self.data(section)?);
            let mut at = 0u64;
            while at < data.0.len() as u64 {
                let offset = section.offset + at;
                let bad = |reason: &str| AbiError::BadNote { offset, reason: reason.to_string() };
                let header = |field: u64| data.u32(at + field, "note header").map_err(|_| bad("truncated header"));
                let (namesz, descsz, note_type) = (u64::from(header(0)?), u64::from(header(4)?), header(8)?);
                let name_at = at + 12;
                let desc_at = name_at + namesz.next_multiple_of(4);
                let name = data.slice(name_at, namesz, "note name").map_err(|_| bad("name runs past the section"))?;
                let desc = data.slice(desc_at, descsz, "note desc").map_err(|_| bad("desc runs past the section"))?;
                notes.push(Note { name, note_type, desc, desc_offset: section.offset + desc_at });
                at = desc_at + descsz.next_multiple_of(4);
            }
        }
        Ok(notes)
    }
}

/// Reads a code object: an ET_REL (the REL64 relocation of each descriptor is resolved to
/// find the code) or an ET_DYN, ours or clang's/lld's. Fails with the offending offset on
/// malformed input.
pub fn read(bytes: &[u8]) -> Result<ReadObject, AbiError> {
    let (elf, e_flags, abi_version) = Elf::parse(bytes)?;
    let version = CodeObjectVersion::from_abi_version(abi_version);
    let target = target_from_e_flags(e_flags, version);

    let mut metadata = None;
    let mut metadata_msgpack = None;
    let mut metadata_offset = None;
    for note in elf.notes()? {
        if note.name.strip_suffix(b"\0") == Some(NOTE_OWNER) && note.note_type == NT_AMDGPU_METADATA {
            let decoded = Metadata::from_msgpack(note.desc)
                .map_err(|error| AbiError::Metadata { offset: note.desc_offset, error })?;
            metadata = Some(decoded);
            metadata_msgpack = Some(note.desc.to_vec());
            metadata_offset = Some(note.desc_offset);
        }
    }

    let symbols = match elf.symbols(SHT_SYMTAB)? {
        Some(found) => Some(found),
        None => elf.symbols(SHT_DYNSYM)?,
    };
    let mut kernels = Vec::new();
    if let Some((table, symbols)) = &symbols {
        for symbol in symbols.iter().filter(|s| s.st_type == STT_OBJECT) {
            let Some(name) = symbol.name.strip_suffix(".kd") else { continue };
            // The descriptor's layout depends on the processor: e_flags must name one.
            let proc = target_from_e_flags(e_flags, version)?.processor;
            kernels.push(read_kernel(&elf, *table, symbols, symbol, name, proc, metadata.as_ref())?);
        }
    }
    Ok(ReadObject {
        e_type: elf.kind,
        e_flags,
        abi_version,
        version,
        target: target.ok(),
        kernels,
        metadata,
        metadata_msgpack,
        metadata_offset,
    })
}

fn read_kernel(
    elf: &Elf<'_>,
    table: usize,
    symbols: &[Symbol],
    kd: &Symbol,
    name: &str,
    proc: &Processor,
    metadata: Option<&Metadata>,
) -> Result<ReadKernel, AbiError> {
    let (kd_section, kd_position) = elf.place(kd, table, 64)?;
    let descriptor_offset = kd_section.offset.checked_add(kd_position).ok_or(AbiError::DescriptorOutOfBounds {
        kernel: name.into(),
        location: kd.value,
        what: "the file",
    })?;
    let bytes: [u8; 64] = elf.input.array(descriptor_offset, "kernel descriptor")?;
    let descriptor = KernelDescriptor::decode(&bytes, proc).map_err(|source| AbiError::BadDescriptor {
        kernel: name.into(),
        offset: descriptor_offset,
        error: Box::new(source),
    })?;

    let (code_section, entry) = match elf.kind {
        ObjectKind::Relocatable => entry_from_relocation(elf, table, symbols, kd_section, kd_position, name)?,
        ObjectKind::Shared => {
            let address = kd.value.checked_add_signed(descriptor.kernel_code_entry_byte_offset);
            let out_of_bounds = || AbiError::EntryOutOfBounds { kernel: name.into(), address: address.unwrap_or(0) };
            let address = address.ok_or_else(out_of_bounds)?;
            let section = elf
                .sections
                .iter()
                .find(|s| {
                    s.flags & SHF_EXECINSTR != 0
                        && s.sh_type != SHT_NOBITS
                        && address >= s.addr
                        && address - s.addr < s.size
                })
                .ok_or_else(out_of_bounds)?;
            (section, address - section.addr)
        }
    };
    // The kernel's length: a function symbol at the entry gives it, else the section end.
    let function = symbols.iter().find(|s| {
        s.st_type == STT_FUNC
            && usize::from(s.shndx) == code_section.index
            && s.size > 0
            && elf.place(s, table, s.size).is_ok_and(|(_, position)| position == entry)
    });
    let len = function.map_or(code_section.size - entry, |f| f.size);
    let code_offset = code_section.offset.checked_add(entry).ok_or(AbiError::Truncated {
        what: "kernel code",
        offset: code_section.offset,
        needed: entry,
        len: elf.input.0.len() as u64,
    })?;
    let code = elf.input.slice(code_offset, len, "kernel code")?.to_vec();
    let kd_name = format!("{name}.kd");
    Ok(ReadKernel {
        name: name.to_string(),
        descriptor,
        descriptor_offset,
        code_offset,
        code,
        metadata: metadata.and_then(|m| m.kernels.iter().find(|k| k.symbol == kd_name).cloned()),
    })
}

/// The code section and entry position an ET_REL's descriptor points at: the
/// `R_AMDGPU_REL64` at `.kd+16` against symbol S with addend A gives the entry S + A - 16
/// (KERNEL_CODE_ENTRY_BYTE_OFFSET = S + A - P is the entry minus the descriptor).
fn entry_from_relocation<'e>(
    elf: &'e Elf<'_>,
    table: usize,
    symbols: &[Symbol],
    kd_section: &Section,
    kd_position: u64,
    name: &str,
) -> Result<(&'e Section, u64), AbiError> {
    let bad = |offset: u64, reason: String| AbiError::BadRelocation { kernel: name.into(), offset, reason };
    let field = kd_position + 16;
    for rela in elf.sections.iter().filter(|s| s.sh_type == SHT_RELA && s.info as usize == kd_section.index) {
        if rela.entsize != RELA_SIZE {
            return Err(AbiError::BadSection {
                index: rela.index,
                offset: rela.header_offset,
                reason: format!("relocation entry size {} is not {RELA_SIZE}", rela.entsize),
            });
        }
        let data = elf.data(rela)?;
        for (index, entry) in data.chunks_exact(RELA_SIZE as usize).enumerate() {
            let entry = Input(entry);
            if entry.u64(0, "r_offset")? != field {
                continue;
            }
            let offset = rela.offset + index as u64 * RELA_SIZE;
            let info = entry.u64(8, "r_info")?;
            let addend = entry.u64(16, "r_addend")? as i64;
            if info as u32 != R_AMDGPU_REL64 {
                return Err(bad(offset, format!("type {} is not R_AMDGPU_REL64 ({R_AMDGPU_REL64})", info as u32)));
            }
            if rela.link as usize != table {
                return Err(bad(offset, format!("links symbol table {}, not {table}", rela.link)));
            }
            let symbol_index = (info >> 32) as usize;
            let symbol = symbols
                .iter()
                .find(|s| s.index == symbol_index)
                .ok_or_else(|| bad(offset, format!("symbol {symbol_index} does not exist")))?;
            let (section, position) = elf.place(symbol, table, 0)?;
            let entry = position
                .checked_add_signed(addend)
                .and_then(|e| e.checked_sub(16))
                .filter(|&e| e < section.size)
                .ok_or_else(|| bad(offset, format!("'{}' + {addend} - 16 is outside its section", symbol.name)))?;
            return Ok((section, entry));
        }
    }
    Err(bad(0, format!("no relocation at offset {field:#x} of section {}", kd_section.index)))
}
