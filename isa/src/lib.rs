//! The one description of the machine that every stage below instruction selection shares:
//! the processor table and target IDs ([`processor`]), the register model ([`reg`]), opcodes
//! ([`opcode`]), and the MIR data types ([`mir`]) that instruction selection produces, register
//! allocation and the wait and hazard passes transform, and the assembler encodes.
//!
//! The first end-to-end kernels settle these types; the ISA issue widens the opcode table to
//! every instruction llvm-mc-19 accepts and adds the encoder, decoder and assembly printer.
#![deny(missing_docs)]

pub mod mir;
pub mod opcode;
pub mod processor;
pub mod reg;
