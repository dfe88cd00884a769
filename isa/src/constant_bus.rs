//! The constant bus: how many scalar values one VALU instruction may read, which reads take a
//! slot of it, and whether its VOP3 and VOP3P encodings may carry a literal. These are the one
//! home of those rules: instruction selection legalizes operands by them, the MIR verifier and
//! the encoder check them, the decoder reads literals by them.
//!
//! A scalar value is a distinct SGPR (a register read twice counts once; VCC read implicitly by
//! `v_div_fmas_*` counts too) or the literal (one per instruction, however many sources repeat
//! it). GFX9 takes one; GFX10 and later two, except the 64-bit shifts, which keep one (LLVM 19's
//! `GCNSubtarget::getConstantBusLimit`; llvm-mc-19 agrees, as `tests/llvm_mc.rs` checks for every
//! VALU opcode). Inline constants and `v_writelane_b32`'s M0 lane select take no slot.

use crate::opcode::Opcode;
use crate::processor::Generation;
use crate::reg::PhysReg;

/// How many scalar values (distinct SGPRs and the literal) one VALU instruction of `op` may
/// read on a processor of `generation`.
pub fn limit(generation: Generation, op: Opcode) -> usize {
    match generation {
        Generation::Gfx9 => 1,
        _ if matches!(op, Opcode::VLshlrevB64 | Opcode::VLshrrevB64 | Opcode::VAshrrevI64) => 1,
        Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12 => 2,
    }
}

/// Whether a VOP3 or VOP3P encoding may carry a literal on `generation` (GFX10 and later; GFX9
/// has literals in its 32-bit encodings only).
pub fn vop3_literal(generation: Generation) -> bool {
    generation >= Generation::Gfx10
}

/// The scalar register `op` reads without naming it in its `_e64` form, which takes a slot of
/// the constant bus: VCC for `v_div_fmas_*` (the lane mask of the wave's size).
pub fn implicit_read(op: Opcode) -> Option<PhysReg> {
    matches!(op, Opcode::VDivFmasF32 | Opcode::VDivFmasF64).then_some(PhysReg::VCC)
}

/// Whether `reg`, read as source `src` of `op`, takes a slot of the constant bus: every SGPR
/// does but `v_writelane_b32`'s lane select in M0.
pub fn takes_slot(op: Opcode, src: usize, reg: PhysReg) -> bool {
    !(op == Opcode::VWritelaneB32 && src == 1 && reg == PhysReg::M0)
}
