//! Hazard rules that the hazard pass (`sched::hazards`, which inserts the wait states) and
//! the emulator (which checks them as the waves run) must read alike, so that what one
//! resolves the other accepts.
//!
//! The VMEM store-data hazard (LLVM's `GCNHazardRecognizer::createsVALUHazard` and
//! `checkVALUHazardsHelper`): a FLAT, GLOBAL or SCRATCH instruction that writes memory — a
//! store, or an atomic, returning or not — whose data operand is wider than 64 bits sends its
//! data after issue, so a VALU must not overwrite those VGPRs for 1 wait state on GFX9, 2 with
//! the gfx940 instructions. GFX10 and later read the data at issue (LLVM's
//! `hasNoDataDepHazard`) and have no such hazard. A compare-and-swap's data holds both the
//! new and the compared value, so a 64-bit `cmpswap` has 128 bits of data.
//!
//! The DPP rule of GFX9 ([`DPP_VGPR_WAIT_STATES`], [`DPP_EXEC_WAIT_STATES`]): a DPP operation
//! reads its source lanes early, so it waits for recent writes of the VGPRs it reads and of
//! EXEC by a VALU.
//!
//! The SMEM soft-clause rule (LLVM's `checkSMEMSoftClauseHazards`): with XNACK on, a run of
//! consecutive scalar memory instructions may be replayed after a page fault, so no
//! instruction of the run may write a register that one of the run reads (a replayed load
//! would read the overwritten value); a non-SMEM instruction ends the run. It holds on GFX9
//! where XNACK may be on, i.e. unless the target says `xnack-` ([`smem_clauses_replay`]).
//!
//! gfx90a's 64-bit shift bug (LLVM's `fixShift64HighRegBug`, `hasShift64HighRegBug`: the
//! gfx90a instructions without gfx940's, i.e. [`Family::Gfx90a`]): `v_lshlrev_b64`,
//! `v_lshrrev_b64` and `v_ashrrev_i64` misread a shift amount held in the last VGPR of an
//! 8-register block (v7, v15, ...) when the VGPR after it is not allocated to the wave.
//! LLVM moves the amount; gcnc allocates the VGPR after it instead
//! ([`shift64_vgprs_needed`], which `regalloc`'s register count reads), and the emulator
//! refuses the shift when the wave lacks it.
//!
//! Hard clauses (GFX10+, `s_clause`, LLVM's `SIInsertHardClauses`): `s_clause N` makes the
//! next N + 1 instructions one clause, at most [`MAX_HARD_CLAUSE`] (GFX11's documented
//! limit), all of one [`ClauseKind`] but for `s_nop`s between them; GFX11 keeps loads, stores
//! and atomics of each memory path apart ([`clause_kind`]).

use crate::mir::Inst;
use crate::opcode::{Family, Format, Opcode};
use crate::processor::{FeatureSetting, Generation, Processor};
use crate::reg::{PhysReg, RegType};
use crate::table::{self, Field};

/// The VGPRs (first register, count) that `inst` writes to memory after issue, when that
/// data is wider than 64 bits: the data operand of a FLAT, GLOBAL or SCRATCH store or atomic.
/// `None` for every other instruction, and for an operand with no register assigned.
pub fn wide_store_data(inst: &Inst, family: Family) -> Option<(PhysReg, u8)> {
    if !matches!(inst.opcode.format(family), Format::Global | Format::Flat | Format::Scratch) {
        return None;
    }
    let info = table::info(inst.opcode, family)?;
    let uses: Vec<_> = info.uses().copied().collect();
    let k = uses.iter().position(|s| s.field == Field::Data)?;
    let bound = table::bind_uses(info.slots, &inst.ops)?;
    let op = inst.ops.get(bound[k]?)?;
    let size = op.rc().map_or(uses[k].size, |rc| rc.size);
    (size > 2).then_some((op.reg?, size))
}

/// The wait states a VALU write of [`wide_store_data`] needs after the store on `processor`.
pub fn store_data_wait_states(processor: &Processor) -> u32 {
    match processor.generation {
        Generation::Gfx9 if processor.gfx940_insts => 2,
        Generation::Gfx9 => 1,
        Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12 => 0,
    }
}

/// The VGPRs a wave must have for `inst` to run right on `family` (gfx90a's 64-bit shift
/// bug): for a 64-bit shift whose amount is in v(8k+7), the count that reaches the VGPR after
/// it, 8k+9. `None` for every other instruction and family, and for an amount not in a VGPR.
pub fn shift64_vgprs_needed(inst: &Inst, family: Family) -> Option<u16> {
    if family != Family::Gfx90a
        || !matches!(inst.opcode, Opcode::VLshlrevB64 | Opcode::VLshrrevB64 | Opcode::VAshrrevI64)
    {
        return None;
    }
    let amount = inst.ops.first()?.reg?;
    (amount.reg_type() == RegType::Vgpr && amount.index() % 8 == 7).then_some(amount.index() + 2)
}

/// GFX9's DPP hazard (LLVM's `checkDPPHazards`; GFX10 and later interlock): wait states
/// between a write of a VGPR (by any instruction) and a DPP operation reading it.
pub const DPP_VGPR_WAIT_STATES: u32 = 2;

/// GFX9's DPP hazard: wait states between a VALU write of EXEC and a DPP operation.
pub const DPP_EXEC_WAIT_STATES: u32 = 5;

/// GFX9's VMEM hazard (LLVM's `checkVMEMHazards`, `hasVMEMReadSGPRVALUDefHazard`: GFX8 and
/// GFX9; GFX10 and later interlock): wait states between a VALU write of an SGPR (a
/// `v_readfirstlane`, a carry, a compare) and a FLAT, GLOBAL or SCRATCH instruction reading it
/// (`saddr`).
pub const VMEM_SGPR_WAIT_STATES: u32 = 5;

/// Whether runs of SMEM instructions on `processor` with the target's `xnack` setting may be
/// replayed, so that a run must not write what it reads (the SMEM soft-clause rule).
pub fn smem_clauses_replay(processor: &Processor, xnack: FeatureSetting) -> bool {
    processor.generation == Generation::Gfx9 && xnack != FeatureSetting::Off
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{Def, Operand};
    use crate::opcode::Opcode;
    use crate::reg::RegClass;

    fn v(n: u16, size: u8) -> Operand {
        Operand::phys(PhysReg::vgpr(n), RegClass::vgpr(size))
    }

    /// The data slot is found by its field, whatever other operands the instruction has: a
    /// returning 64-bit compare-and-swap has 128 bits of data, a 64-bit store has 64.
    #[test]
    fn the_data_operand_is_found_in_stores_and_atomics() {
        let f = Family::Gfx9;
        let mut cas = Inst::new(
            Opcode::GlobalAtomicCmpswapB64,
            &[Def::phys(PhysReg::vgpr(6), RegClass::V2)],
            &[v(4, 2), v(0, 4)],
        );
        cas.fields.cpol = crate::mir::CachePolicy(1);
        assert_eq!(wide_store_data(&cas, f), Some((PhysReg::vgpr(0), 4)));
        let saddr = Operand::phys(PhysReg::sgpr(4), RegClass::S2);
        let store = Inst::new(Opcode::GlobalStoreB128, &[], &[v(2, 1), v(8, 4), saddr]);
        assert_eq!(wide_store_data(&store, f), Some((PhysReg::vgpr(8), 4)));
        let narrow = Inst::new(Opcode::GlobalStoreB64, &[], &[v(2, 2), v(8, 2)]);
        assert_eq!(wide_store_data(&narrow, f), None);
        let add = Inst::new(Opcode::VAddNcU32, &[Def::phys(PhysReg::vgpr(0), RegClass::V1)], &[v(1, 1), v(2, 1)]);
        assert_eq!(wide_store_data(&add, f), None);
    }

    /// gfx90a's 64-bit shift with its amount in v(8k+7) needs v(8k+8) allocated; an amount
    /// elsewhere, an SGPR amount, another operation or gfx942 need nothing.
    #[test]
    fn gfx90a_shift64_amounts_at_a_block_end_need_the_next_vgpr() {
        let shift = |op: Opcode, amount: Operand| {
            Inst::new(op, &[Def::phys(PhysReg::vgpr(0), RegClass::V2)], &[amount, v(2, 2)])
        };
        for op in [Opcode::VLshlrevB64, Opcode::VLshrrevB64, Opcode::VAshrrevI64] {
            assert_eq!(shift64_vgprs_needed(&shift(op, v(7, 1)), Family::Gfx90a), Some(9));
            assert_eq!(shift64_vgprs_needed(&shift(op, v(255, 1)), Family::Gfx90a), Some(257));
            assert_eq!(shift64_vgprs_needed(&shift(op, v(6, 1)), Family::Gfx90a), None);
            assert_eq!(shift64_vgprs_needed(&shift(op, v(7, 1)), Family::Gfx9), None);
            let s7 = Operand::phys(PhysReg::sgpr(7), RegClass::S1);
            assert_eq!(shift64_vgprs_needed(&shift(op, s7), Family::Gfx90a), None);
        }
        assert_eq!(shift64_vgprs_needed(&shift(Opcode::VLshlrevB32, v(7, 1)), Family::Gfx90a), None);
    }
}

/// The most instructions one `s_clause` covers (GFX11's documented limit; LLVM's
/// `maxHardClauseLength`).
pub const MAX_HARD_CLAUSE: usize = 63;

/// Whether the processor has hard clauses (`s_clause`): GFX10 and later.
pub fn has_hard_clauses(proc: &Processor) -> bool {
    proc.generation >= Generation::Gfx10
}

/// What an instruction is to a hard clause: the kind of memory access that clauses with its
/// own kind only, an instruction allowed between them (`s_nop`), or one that may not be in a
/// clause.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClauseKind {
    /// A global, scratch or buffer load.
    VmemLoad,
    /// A global, scratch or buffer store.
    VmemStore,
    /// A global, scratch or buffer atomic.
    VmemAtomic,
    /// A flat load.
    FlatLoad,
    /// A flat store.
    FlatStore,
    /// A flat atomic.
    FlatAtomic,
    /// An LDS access.
    Lds,
    /// A scalar memory instruction.
    Smem,
    /// `s_nop`: allowed between the instructions of a clause.
    Internal,
    /// Anything else: ends a clause.
    Illegal,
}

/// The clause kind of `inst` on GFX11 (the clause types of LLVM's `getHardClauseType`).
pub fn clause_kind(inst: &Inst, family: Family) -> ClauseKind {
    let format = inst.opcode.format(family);
    // Most instructions are neither memory accesses nor `s_nop`: no name to read.
    match format {
        Format::Global | Format::Scratch | Format::Flat | Format::Smem => {}
        Format::Ds if !inst.fields.gds => return ClauseKind::Lds,
        Format::Sopp if inst.opcode == Opcode::SNop => return ClauseKind::Internal,
        _ => return ClauseKind::Illegal,
    }
    let name = inst.opcode.name(family);
    let (load, store, atomic) = (
        name.contains("_load") && !name.contains("atomic"),
        name.contains("_store") && !name.contains("atomic"),
        name.contains("atomic"),
    );
    let pick = |kinds: [ClauseKind; 3]| {
        if atomic {
            kinds[2]
        } else if load {
            kinds[0]
        } else if store {
            kinds[1]
        } else {
            ClauseKind::Illegal
        }
    };
    match format {
        // LDS DMA (`global_load_lds_*`) writes LDS as well: no clause.
        Format::Global | Format::Scratch if !name.contains("lds") => {
            pick([ClauseKind::VmemLoad, ClauseKind::VmemStore, ClauseKind::VmemAtomic])
        }
        Format::Flat => pick([ClauseKind::FlatLoad, ClauseKind::FlatStore, ClauseKind::FlatAtomic]),
        Format::Smem if load => ClauseKind::Smem,
        _ => ClauseKind::Illegal,
    }
}
