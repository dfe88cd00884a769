//! The one description of the machine that every stage below instruction selection shares:
//! the processor table and target IDs ([`processor`]), the register model ([`reg`]), opcodes
//! ([`opcode`]), and the MIR data types ([`mir`]) that instruction selection produces, register
//! allocation and the wait and hazard passes transform, and the assembler encodes.
//!
//! Machine code goes both ways: [`encode`] turns an instruction into bytes and [`decode`] back,
//! [`asm`] prints it in llvm-objdump-19's syntax, all three driven by the same data: the opcode
//! tables ([`table`], generated from llvm-mc-19 by `scripts/gen_tables.py` and committed under
//! `src/tables/`), which give every opcode of gfx1100 and gfx942 in the formats gcnc handles
//! with its number, operand slots and modifiers, and the field layouts of each encoding family
//! ([`encoding`]); [`constant_bus`] holds the constant-bus and VOP3-literal rules, [`hazard`] the hazard rules the hazard pass and the emulator share, [`vopd`] GFX11's dual-issue pairs; [`operands`] is the per-opcode shape view that instruction selection uses.
//! `tests/llvm_mc.rs` checks every opcode in many forms against llvm-mc-19's assembler and
//! disassembler, `tests/completeness.rs` the tables against tinygrad's lists of AMD's ISA, and
//! `tests/decode_smoke.rs` that no input makes the decoder panic.
#![deny(missing_docs)]

pub mod asm;
pub mod constant_bus;
pub mod decode;
pub mod encode;
pub mod encoding;
pub mod hazard;
pub mod latency;
pub mod mir;
pub mod mir_parse;
pub mod opcode;
pub mod operands;
pub mod processor;
pub mod reg;
pub mod table;
pub mod vopd;
