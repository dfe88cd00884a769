//! The one error type of the crate. Every variant that comes from reading bytes says where:
//! a file offset, a descriptor byte, or the name of the kernel concerned.

use thiserror::Error;

/// What went wrong reading or writing a code object.
#[derive(Debug, Error)]
pub enum AbiError {
    /// The input ends before a structure it declares.
    #[error("truncated {what}: {needed} bytes needed at offset {offset:#x}, but the input has {len}")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Its file offset.
        offset: u64,
        /// Its size.
        needed: u64,
        /// The input's size.
        len: u64,
    },
    /// The first four bytes are not `\x7fELF`.
    #[error("not an ELF file (magic {magic:02x?} at offset 0)")]
    NotElf {
        /// The bytes found.
        magic: Vec<u8>,
    },
    /// An ELF header field has a value this format does not allow.
    #[error("ELF header field {field} (offset {offset:#x}) is {value:#x}, expected {expected}")]
    BadHeader {
        /// The field's name.
        field: &'static str,
        /// Its file offset.
        offset: u64,
        /// The value found.
        value: u64,
        /// What was expected.
        expected: &'static str,
    },
    /// e_flags name no known processor, or contradict it (a feature field, the generic
    /// version, reserved bits).
    #[error("e_flags {flags:#x} (ELF header offset 0x30): {reason}")]
    BadEFlags {
        /// The value found.
        flags: u32,
        /// What is wrong.
        reason: String,
    },
    /// The section header table does not read (entry size, offset or count).
    #[error("section header table (e_shoff {offset:#x}): {error}")]
    BadSectionTable {
        /// e_shoff.
        offset: u64,
        /// The object crate's reason (in the message, so not also a `source`).
        error: object::read::Error,
    },
    /// A section's contents do not read as its type says (data outside the file, symbol
    /// table or linked string table, relocations, notes...).
    #[error("section {index} (header at offset {offset:#x}): {error}")]
    BadSection {
        /// The section index.
        index: usize,
        /// The file offset of its header.
        offset: u64,
        /// The object crate's reason (in the message, so not also a `source`).
        error: object::read::Error,
    },
    /// A symbol is inconsistent (section index, value, name).
    #[error("symbol {index} of section {section} (entry at offset {offset:#x}): {reason}")]
    BadSymbol {
        /// The symbol index.
        index: usize,
        /// The symbol table's section index.
        section: usize,
        /// The file offset of the entry.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The descriptor's code-entry relocation is missing or not the one LLVM writes.
    #[error("kernel '{kernel}': relocation at offset {offset:#x}: {reason}")]
    BadRelocation {
        /// The kernel.
        kernel: String,
        /// The file offset of the relocation entry (0 when it is missing).
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A kernel descriptor's 64 bytes are not all inside its section's bytes.
    #[error("kernel '{kernel}': descriptor at {location:#x} (64 bytes) is outside its section")]
    DescriptorOutOfBounds {
        /// The kernel.
        kernel: String,
        /// The descriptor symbol's value (its section offset in an ET_REL, its address in an
        /// ET_DYN).
        location: u64,
    },
    /// The code entry a descriptor points at is outside every executable section.
    #[error("kernel '{kernel}': code entry {address:#x} is not inside an executable section")]
    EntryOutOfBounds {
        /// The kernel.
        kernel: String,
        /// The entry's address (or section offset in a relocatable object).
        address: u64,
    },
    /// A descriptor has bits set that the processor's layout reserves.
    #[error("descriptor {field} (byte {byte}) has reserved bits {bits:#x} set for {processor}")]
    ReservedDescriptorBits {
        /// The field (`COMPUTE_PGM_RSRC1`, `reserved`...).
        field: &'static str,
        /// Its byte offset inside the 64-byte descriptor.
        byte: usize,
        /// The offending bits.
        bits: u64,
        /// The processor whose layout was used.
        processor: &'static str,
    },
    /// A kernel descriptor in a file does not decode (reserved bits set, ...).
    #[error("kernel '{kernel}': descriptor at offset {offset:#x}: {error}")]
    BadDescriptor {
        /// The kernel.
        kernel: String,
        /// The descriptor's file offset.
        offset: u64,
        /// What is wrong with it (in the message, so not also a `source`).
        error: Box<AbiError>,
    },
    /// The NT_AMDGPU_METADATA msgpack does not decode as code-object metadata.
    #[error("metadata note at offset {offset:#x}: {error}")]
    Metadata {
        /// The file offset of the note's descriptor (the msgpack bytes).
        offset: u64,
        /// The decoder's error (in the message, so not also a `source`).
        error: rmp_serde::decode::Error,
    },
    /// The metadata note's msgpack is malformed (seen when showing it as stored).
    #[error("metadata msgpack at offset {offset:#x}: {reason}")]
    BadMsgpack {
        /// The file offset of the offending byte.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// Metadata could not be serialized.
    #[error("metadata serialization failed: {0}")]
    MetadataEncode(#[from] rmp_serde::encode::Error),
    /// A code object to be written is not well formed.
    #[error("cannot write the code object: {reason}")]
    InvalidCodeObject {
        /// What is wrong.
        reason: String,
    },
    /// The object crate refused to write the ELF file.
    #[error("ELF writer: {0}")]
    Write(String),
}
