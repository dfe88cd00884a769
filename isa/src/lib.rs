//! The one description of the machine that every stage below instruction selection shares:
//! the processor table and target IDs ([`processor`]), the register model ([`reg`]), opcodes
//! ([`opcode`]), and the MIR data types ([`mir`]) that instruction selection produces, register
//! allocation and the wait and hazard passes transform, and the assembler encodes.
//!
//! Machine code goes both ways: [`encode`] turns an instruction into bytes and [`decode`] back,
//! [`asm`] prints it in LLVM's syntax, all three driven by the same data: the operand shapes
//! ([`operands`]) and the opcode numbers and field layouts ([`encoding`]) of each encoding
//! family, checked against llvm-mc-19 by `tests/llvm_mc.rs`.
#![deny(missing_docs)]

pub mod asm;
pub mod decode;
pub mod encode;
pub mod encoding;
pub mod mir;
pub mod opcode;
pub mod operands;
pub mod processor;
pub mod reg;
