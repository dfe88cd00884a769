//! Three-source VALU combining (ACO's `combine_three_valu_op`): a 32-bit vector add, or or
//! xor whose operand is the only use of another such operation, of a left shift or (under an
//! or) of an and in the same block becomes one instruction, and the inner one goes:
//! `v_add3_u32`, `v_lshl_add_u32`, `v_or3_b32`, `v_lshl_or_b32`, `v_and_or_b32`, and on GFX10+
//! `v_xor3_b32`. The result is the same in every lane: the fused forms compute the same
//! wrapping sums and bitwise results, and take the shift amount modulo 32 as the shift does.
//!
//! A combination happens only where the three-source form can encode its operands: no more
//! scalar values (distinct SGPRs and the literal) than the constant bus takes
//! ([`isa::constant_bus`]), a literal only where VOP3 carries one, and no modifier on either
//! instruction. Linear VGPRs (live in inactive lanes) are left alone. One walk over each block,
//! with use counts and definitions in dense tables: linear in the function.

use crate::hw;
use crate::mir_opt::{use_counts, BlockDefs};
use isa::mir::{Fields, Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Opcode};
use isa::processor::Generation;
use isa::reg::RegType;
use smallvec::SmallVec;

/// Combines the adds, ors and xors of `func` with the operation that feeds them.
pub(super) fn run(func: &mut Function) {
    let family = func.family;
    let uses = use_counts(func);
    let mut defs = BlockDefs::new(func.temps as usize);
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let b = b as u32;
        let mut gone = vec![false; block.insts.len()];
        for i in 0..block.insts.len() {
            if let Some((j, fused)) = fuse(&block.insts, i, &uses, &defs, b, family) {
                block.insts[i] = fused;
                gone[j] = true;
            }
            defs.record(&block.insts[i], i, b);
        }
        let mut k = 0;
        block.insts.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    }
}

/// The three-source instruction replacing `insts[i]`, and the index of the instruction it
/// absorbs, if `insts[i]` is an add, or or xor one of whose operands qualifies.
fn fuse(insts: &[Inst], i: usize, uses: &[u32], defs: &BlockDefs, block: u32, family: Family) -> Option<(usize, Inst)> {
    let outer = &insts[i];
    if !matches!(outer.opcode, Opcode::VAddNcU32 | Opcode::VOrB32 | Opcode::VXorB32)
        || outer.fields != Fields::default()
        || !plain(outer)
    {
        return None;
    }
    (0..2).find_map(|side| {
        let t = outer.ops[side].temp_of()?;
        if uses[t.id as usize] != 1 {
            return None;
        }
        let j = defs.in_block(t, block)?;
        let inner = &insts[j];
        if inner.fields != Fields::default() || !plain(inner) || inner.defs.len() != 1 {
            return None;
        }
        let other = outer.ops[1 - side];
        let &[a, b] = inner.ops.as_slice() else { return None };
        let (opcode, ops): (Opcode, SmallVec<[Operand; 4]>) = match (outer.opcode, inner.opcode) {
            (Opcode::VAddNcU32, Opcode::VAddNcU32) => (Opcode::VAdd3U32, [a, b, other].into_iter().collect()),
            // v_lshlrev_b32 takes the shift first.
            (Opcode::VAddNcU32, Opcode::VLshlrevB32) => (Opcode::VLshlAddU32, [b, a, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VOrB32) => (Opcode::VOr3B32, [a, b, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VLshlrevB32) => (Opcode::VLshlOrB32, [b, a, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VAndB32) => (Opcode::VAndOrB32, [a, b, other].into_iter().collect()),
            (Opcode::VXorB32, Opcode::VXorB32) if family.generation() >= Generation::Gfx10 => {
                (Opcode::VXor3B32, [a, b, other].into_iter().collect())
            }
            _ => return None,
        };
        if !hw::fits_constant_bus(opcode, family, &ops, true) {
            return None;
        }
        let mut fused = Inst::new(opcode, &outer.defs, &ops);
        fused.vop3 = true;
        Some((j, fused))
    })
}

/// Whether `inst` reads and writes only temporaries and constants, none of them a linear VGPR.
fn plain(inst: &Inst) -> bool {
    inst.ops.iter().all(|op| match op.kind {
        OperandKind::Temp(t) => op.reg.is_none() && !(t.rc.ty == RegType::Vgpr && t.rc.linear),
        OperandKind::Const(_) => true,
        _ => false,
    }) && inst.defs.iter().all(|d| d.reg.is_none() && d.temp.is_some_and(|t| !t.rc.linear))
}
