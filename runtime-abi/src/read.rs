//! A reader for anyone's AMDGPU HSA code objects: ours, clang-19's ET_REL and ld.lld-19's
//! ET_DYN. It finds each kernel from its `NAME.kd` symbol, decodes the descriptor, follows the
//! code entry (the `R_AMDGPU_REL64` relocation in an ET_REL, the descriptor's offset in an
//! ET_DYN) to the kernel's code, and decodes the metadata note.
//!
//! It reads the ELF structures through `object::read::elf`: the section table, the symbol and
//! string tables, the relocations, the notes and each section's bytes, every offset checked
//! there. What is AMDGPU's is checked here: the header's class, data encoding, OS ABI, machine
//! and type, e_flags (the target ID), EI_ABIVERSION (the code-object version), and the kernels
//! (descriptor in its section, code entry in an executable one). Malformed input gives an
//! [`AbiError`] that says where (the section, symbol or relocation entry, with object's reason
//! where object refused it), never a panic.

use isa::processor::{Processor, TargetId};
use object::elf::{self, FileHeader64, SectionHeader64, Sym64};
use object::pod::bytes_of;
use object::read::elf::{FileHeader as _, Rela as _, SectionHeader as _, SectionTable, Sym as _, SymbolTable};
use object::read::StringTable;
use object::{LittleEndian as LE, SectionIndex, SymbolIndex};

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

type Header = FileHeader64<LE>;
type Section = SectionHeader64<LE>;
type Symbol = Sym64<LE>;

/// A position in a section's bytes (a symbol's, or a code entry's).
#[derive(Copy, Clone)]
struct Place<'a> {
    index: SectionIndex,
    header: &'a Section,
    /// The section's bytes (none for SHT_NOBITS).
    data: &'a [u8],
    position: usize,
    /// `data` from `position` on.
    rest: &'a [u8],
}

impl<'a> Place<'a> {
    /// `position` in section `index`, if inside its bytes or at their end.
    fn at(index: SectionIndex, header: &'a Section, data: &'a [u8], position: u64) -> Option<Place<'a>> {
        let position = usize::try_from(position).ok()?;
        Some(Place { index, header, data, position, rest: data.get(position..)? })
    }
}

/// The file as object reads it, with the file type and the symbol table the kernels are in.
struct Elf<'a> {
    bytes: &'a [u8],
    kind: ObjectKind,
    sections: SectionTable<'a, Header, &'a [u8]>,
    /// `.symtab`, else `.dynsym`, else an empty table.
    symbols: SymbolTable<'a, Header, &'a [u8]>,
}

impl<'a> Elf<'a> {
    /// Checks the header's AMDGPU fields and reads the section table and the symbol table.
    fn parse(bytes: &'a [u8]) -> Result<(Elf<'a>, &'a Header), AbiError> {
        let magic = bytes.get(..4).unwrap_or(bytes);
        if magic != elf::ELFMAG {
            return Err(AbiError::NotElf { magic: magic.to_vec() });
        }
        let (header, _) = object::pod::from_bytes::<Header>(bytes).map_err(|()| AbiError::Truncated {
            what: "ELF header",
            offset: 0,
            needed: size_of::<Header>() as u64,
            len: bytes.len() as u64,
        })?;
        let bad = |field, offset, value: u64, expected| AbiError::BadHeader { field, offset, value, expected };
        let check = |field, offset, value: u64, wanted: u64, expected| {
            if value == wanted {
                Ok(())
            } else {
                Err(bad(field, offset, value, expected))
            }
        };
        let ident = header.e_ident();
        check("EI_CLASS", 4, ident.class.0.into(), elf::ELFCLASS64.0.into(), "2 (ELFCLASS64)")?;
        check("EI_DATA", 5, ident.data.0.into(), elf::ELFDATA2LSB.0.into(), "1 (ELFDATA2LSB)")?;
        check("EI_OSABI", 7, ident.os_abi.0.into(), ELFOSABI_AMDGPU_HSA.into(), "64 (ELFOSABI_AMDGPU_HSA)")?;
        check("e_machine", 18, header.e_machine(LE).0.into(), EM_AMDGPU.into(), "224 (EM_AMDGPU)")?;
        let kind = match header.e_type(LE) {
            elf::ET_REL => ObjectKind::Relocatable,
            elf::ET_DYN => ObjectKind::Shared,
            other => return Err(bad("e_type", 16, other.0.into(), "1 (ET_REL) or 3 (ET_DYN)")),
        };
        let headers = header
            .section_headers(LE, bytes)
            .map_err(|error| AbiError::BadSectionTable { offset: header.e_shoff(LE), error })?;
        // No section names are needed, so none are read (e_shstrndx may be anything).
        let sections = SectionTable::new(headers, StringTable::default());
        let mut file = Elf { bytes, kind, sections, symbols: SymbolTable::default() };
        let table = [elf::SHT_SYMTAB, elf::SHT_DYNSYM]
            .into_iter()
            .find_map(|sh_type| file.sections.enumerate().find(|(_, section)| section.sh_type(LE) == sh_type));
        if let Some((index, section)) = table {
            file.symbols = SymbolTable::parse(LE, bytes, &file.sections, index, section)
                .map_err(|error| file.bad_section(index, section, error))?;
        }
        Ok((file, header))
    }

    /// Object's refusal of section `index`, located by its header.
    fn bad_section(&self, index: SectionIndex, header: &Section, error: object::read::Error) -> AbiError {
        AbiError::BadSection { index: index.0, offset: file_offset(self.bytes, bytes_of(header)), error }
    }

    /// Symbol `index` of the symbol table is not what the reader needs, for `reason`.
    fn bad_symbol(&self, index: SymbolIndex, symbol: &Symbol, reason: String) -> AbiError {
        let (section, offset) = (self.symbols.section().0, file_offset(self.bytes, bytes_of(symbol)));
        AbiError::BadSymbol { index: index.0, section, offset, reason }
    }

    /// Symbol `index`'s name, which must be UTF-8.
    fn name(&self, index: SymbolIndex, symbol: &Symbol) -> Result<&'a str, AbiError> {
        let name =
            self.symbols.symbol_name(LE, symbol).map_err(|error| self.bad_symbol(index, symbol, error.to_string()))?;
        std::str::from_utf8(name).map_err(|_| self.bad_symbol(index, symbol, "name is not UTF-8".into()))
    }

    /// The symbol's position in its section `header`: the value in an ET_REL, the value minus
    /// the section address in an ET_DYN.
    fn position(&self, symbol: &Symbol, header: &Section) -> Option<u64> {
        match self.kind {
            ObjectKind::Relocatable => Some(symbol.st_value(LE)),
            ObjectKind::Shared => symbol.st_value(LE).checked_sub(header.sh_addr(LE)),
        }
    }

    /// Where symbol `index`, named `name`, points: inside its section's bytes or at their end.
    fn place(&self, index: SymbolIndex, symbol: &Symbol, name: &str) -> Result<Place<'a>, AbiError> {
        let bad = |reason: String| self.bad_symbol(index, symbol, reason);
        let section = self
            .symbols
            .symbol_section(LE, symbol, index)
            .map_err(|error| bad(format!("'{name}': {error}")))?
            .ok_or_else(|| bad(format!("'{name}' is not defined in a section (index {:#x})", symbol.st_shndx(LE).0)))?;
        let header = self
            .sections
            .section(section)
            .map_err(|_| bad(format!("'{name}' names section {}, which does not exist", section.0)))?;
        let data = header.data(LE, self.bytes).map_err(|error| self.bad_section(section, header, error))?;
        self.position(symbol, header)
            .and_then(|position| Place::at(section, header, data, position))
            .ok_or_else(|| bad(format!("'{name}' at {:#x} is outside its section", symbol.st_value(LE))))
    }

    /// The descs of the AMDGPU metadata notes, in file order.
    fn metadata_notes(&self) -> Result<Vec<&'a [u8]>, AbiError> {
        let mut found = Vec::new();
        for (index, header) in self.sections.enumerate() {
            let bad = |error| self.bad_section(index, header, error);
            let Some(mut notes) = header.notes(LE, self.bytes).map_err(bad)? else { continue };
            while let Some(note) = notes.next().map_err(bad)? {
                if note.name() == NOTE_OWNER && note.n_type(LE).0 == NT_AMDGPU_METADATA {
                    found.push(note.desc());
                }
            }
        }
        Ok(found)
    }
}

/// The file offset of `part`, a slice of `bytes` as object hands them out (object's
/// structures and data are subslices of its input, so the offset is the difference of the
/// addresses; saturating, so that a slice from elsewhere could give a wrong offset but never
/// a panic).
fn file_offset(bytes: &[u8], part: &[u8]) -> u64 {
    part.as_ptr().addr().saturating_sub(bytes.as_ptr().addr()) as u64
}

/// Reads a code object: an ET_REL (the REL64 relocation of each descriptor is resolved to
/// find the code) or an ET_DYN, ours or clang's/lld's. Fails with the offending offset on
/// malformed input.
pub fn read(bytes: &[u8]) -> Result<ReadObject, AbiError> {
    let (file, header) = Elf::parse(bytes)?;
    let e_flags = header.e_flags(LE).0;
    let abi_version = header.e_ident().abi_version;
    let version = CodeObjectVersion::from_abi_version(abi_version);
    let target = target_from_e_flags(e_flags, version);

    let mut metadata = None;
    let mut metadata_msgpack = None;
    let mut metadata_offset = None;
    for desc in file.metadata_notes()? {
        let offset = file_offset(bytes, desc);
        metadata = Some(Metadata::from_msgpack(desc).map_err(|error| AbiError::Metadata { offset, error })?);
        metadata_msgpack = Some(desc.to_vec());
        metadata_offset = Some(offset);
    }

    let mut kernels = Vec::new();
    for (index, symbol) in file.symbols.enumerate().skip(1) {
        if symbol.st_type() != elf::STT_OBJECT {
            continue;
        }
        let Some(name) = file.name(index, symbol)?.strip_suffix(".kd") else { continue };
        // The descriptor's layout depends on the processor: e_flags must name one.
        let proc = target_from_e_flags(e_flags, version)?.processor;
        kernels.push(read_kernel(&file, index, symbol, name, proc, metadata.as_ref())?);
    }
    Ok(ReadObject {
        e_type: file.kind,
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
    file: &Elf<'_>,
    index: SymbolIndex,
    kd: &Symbol,
    name: &str,
    proc: &Processor,
    metadata: Option<&Metadata>,
) -> Result<ReadKernel, AbiError> {
    let kd_name = format!("{name}.kd");
    let kd_place = file.place(index, kd, &kd_name)?;
    let bytes = kd_place
        .rest
        .first_chunk::<64>()
        .ok_or_else(|| AbiError::DescriptorOutOfBounds { kernel: name.into(), location: kd.st_value(LE) })?;
    let descriptor_offset = file_offset(file.bytes, bytes);
    let descriptor = KernelDescriptor::decode(bytes, proc).map_err(|source| AbiError::BadDescriptor {
        kernel: name.into(),
        offset: descriptor_offset,
        error: Box::new(source),
    })?;
    let entry = match file.kind {
        ObjectKind::Relocatable => entry_from_relocation(file, &kd_place, name)?,
        ObjectKind::Shared => entry_from_address(file, kd, &descriptor, name)?,
    };
    // The kernel's length: a function symbol at the entry gives it, else the section end.
    let function = |(index, symbol): (SymbolIndex, &Symbol)| {
        let here = symbol.st_type() == elf::STT_FUNC
            && file.symbols.symbol_section(LE, symbol, index) == Ok(Some(entry.index))
            && file.position(symbol, entry.header) == Some(entry.position as u64);
        let len = usize::try_from(symbol.st_size(LE)).ok().filter(|&len| here && len > 0)?;
        entry.rest.get(..len)
    };
    let code = file.symbols.enumerate().skip(1).find_map(function).unwrap_or(entry.rest);
    Ok(ReadKernel {
        name: name.to_string(),
        descriptor,
        descriptor_offset,
        code_offset: file_offset(file.bytes, code),
        code: code.to_vec(),
        metadata: metadata.and_then(|m| m.kernels.iter().find(|k| k.symbol == kd_name).cloned()),
    })
}

/// The code entry an ET_REL's descriptor points at: the `R_AMDGPU_REL64` at `.kd+16`
/// against symbol S with addend A gives the entry S + A - 16 (KERNEL_CODE_ENTRY_BYTE_OFFSET =
/// S + A - P is the entry minus the descriptor).
fn entry_from_relocation<'a>(file: &Elf<'a>, descriptor: &Place<'a>, name: &str) -> Result<Place<'a>, AbiError> {
    let bad = |offset: u64, reason: String| AbiError::BadRelocation { kernel: name.into(), offset, reason };
    let field = descriptor.position as u64 + 16;
    for (index, header) in file.sections.enumerate() {
        if header.info_link(LE) != descriptor.index {
            continue;
        }
        let Some((relocations, link)) =
            header.rela(LE, file.bytes).map_err(|error| file.bad_section(index, header, error))?
        else {
            continue;
        };
        let Some(rela) = relocations.iter().find(|rela| rela.r_offset(LE) == field) else { continue };
        let offset = file_offset(file.bytes, bytes_of(rela));
        let r_type = rela.r_type(LE, false).0;
        if r_type != R_AMDGPU_REL64 {
            return Err(bad(offset, format!("type {r_type} is not R_AMDGPU_REL64 ({R_AMDGPU_REL64})")));
        }
        let table = file.symbols.section();
        if link != table {
            return Err(bad(offset, format!("links symbol table {}, not {}", link.0, table.0)));
        }
        let symbol_index = SymbolIndex(rela.r_sym(LE, false) as usize);
        let symbol = file
            .symbols
            .symbol(symbol_index)
            .map_err(|_| bad(offset, format!("symbol {} does not exist", symbol_index.0)))?;
        let symbol_name = file.name(symbol_index, symbol)?;
        let target = file.place(symbol_index, symbol, symbol_name)?;
        let addend = rela.r_addend(LE);
        return (target.position as u64)
            .checked_add_signed(addend)
            .and_then(|entry| entry.checked_sub(16))
            .filter(|&entry| entry < target.data.len() as u64)
            .and_then(|entry| Place::at(target.index, target.header, target.data, entry))
            .ok_or_else(|| bad(offset, format!("'{symbol_name}' + {addend} - 16 is outside its section")));
    }
    Err(bad(0, format!("no relocation at offset {field:#x} of section {}", descriptor.index.0)))
}

/// The code entry an ET_DYN's descriptor points at: the descriptor's address plus its
/// KERNEL_CODE_ENTRY_BYTE_OFFSET, inside an executable section.
fn entry_from_address<'a>(
    file: &Elf<'a>,
    kd: &Symbol,
    descriptor: &KernelDescriptor,
    name: &str,
) -> Result<Place<'a>, AbiError> {
    let address = kd.st_value(LE).checked_add_signed(descriptor.kernel_code_entry_byte_offset);
    let out_of_bounds = || AbiError::EntryOutOfBounds { kernel: name.into(), address: address.unwrap_or(0) };
    let address = address.ok_or_else(out_of_bounds)?;
    let (index, header, position) = file
        .sections
        .enumerate()
        .find_map(|(index, header)| {
            let code = header.sh_flags(LE).contains(elf::SHF_EXECINSTR) && header.sh_type(LE) != elf::SHT_NOBITS;
            let position = address.checked_sub(header.sh_addr(LE)).filter(|&p| code && p < header.sh_size(LE))?;
            Some((index, header, position))
        })
        .ok_or_else(out_of_bounds)?;
    let data = header.data(LE, file.bytes).map_err(|error| file.bad_section(index, header, error))?;
    Place::at(index, header, data, position).ok_or_else(out_of_bounds)
}
