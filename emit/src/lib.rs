//! Program assembly and code-object emission: [`assemble`] lowers the last pseudo-instructions,
//! resolves branch offsets, encodes, and prints assembly text that llvm-mc reassembles to the
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
    /// The encoder refused an instruction.
    #[error("cannot encode `{inst}`: {source}")]
    Encode {
        /// The instruction, as MIR text.
        inst: String,
        /// The encoder's reason.
        source: isa::encode::EncodeError,
    },
}
