//! Program assembly and code-object emission: [`assemble`] lowers the last pseudo-instructions,
//! resolves branch offsets (relaxing those out of reach into long jumps), encodes, and prints assembly text that llvm-mc reassembles to the
//! same bytes; the code and its kernel descriptor then go to `runtime-abi`'s writer.
#![deny(missing_docs)]

pub mod assemble;

use thiserror::Error;

/// Why assembly failed (each is an internal error of an earlier stage, reported with where).
#[derive(Debug, Error)]
pub enum EmitError {
    /// A pseudo-instruction that should have been lowered earlier.
    #[error("pseudo-instruction {name} reached the assembler")]
    PseudoLeft {
        /// Its name.
        name: &'static str,
    },
    /// A branch without a place to go.
    #[error("block {block}: {what}")]
    BadBranch {
        /// The block.
        block: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A branch offset that does not fit the 16-bit field.
    #[error("block {block}: branch offset {offset} words does not fit in 16 bits")]
    BranchTooFar {
        /// The block.
        block: usize,
        /// The offset in words.
        offset: i64,
    },
    /// A branch opcode without a long form (an inverse condition to skip the long jump).
    #[error("{name} has no long form: its target is out of reach")]
    NoLongForm {
        /// The branch.
        name: &'static str,
    },
    /// No SGPR pair is left above the kernel's SGPRs for a long branch.
    #[error("a branch needs a long jump, and no SGPR pair is free above s{used} for it")]
    NoLongBranchPair {
        /// The SGPRs the kernel uses (the next free one).
        used: u16,
    },
    /// The encoder refused an instruction.
    #[error("cannot encode `{inst}`: {source}")]
    Encode {
        /// The instruction, as MIR text.
        inst: String,
        /// The encoder's reason.
        source: isa::encode::EncodeError,
    },
}
