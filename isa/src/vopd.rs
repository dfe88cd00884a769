//! GFX11 dual issue (VOPD): which VALU operations have a VOPD component and which of them may
//! take the X slot, and the rules a pair's registers and scalar operands follow, as llvm-mc-19
//! checks them (it refuses `v_dual_mov_b32 v0, v4 :: v_dual_mov_b32 v1, v4`: the first sources
//! "must use different VGPR banks" even when they are one register; AMD's RDNA3 guide allows
//! that case, and llvm-mc-19, which wins for encodings, does not). VOPD exists in wave32 only.
//! The encoder refuses a pair that breaks a rule, and the pairing pass (`sched::vopd`) forms
//! only pairs that keep them.

use crate::opcode::{Family, Opcode};
use crate::reg::PhysReg;
use crate::table;
use smallvec::SmallVec;

/// The VALU operations (their `_e32` forms) with a VOPD component, and that component.
/// `v_dual_fmaak_f32`, `v_dual_fmamk_f32` and `v_dual_dot2acc_f32_f16` (mandatory literals,
/// packed halves) have no counterpart gcnc selects. `v_fmac_f32`'s accumulator is its result
/// register in both forms, so the result rule covers it.
const COMPONENTS: [(Opcode, Opcode); 13] = [
    (Opcode::VFmacF32, Opcode::VDualFmacF32),
    (Opcode::VMulF32, Opcode::VDualMulF32),
    (Opcode::VAddF32, Opcode::VDualAddF32),
    (Opcode::VSubF32, Opcode::VDualSubF32),
    (Opcode::VSubrevF32, Opcode::VDualSubrevF32),
    (Opcode::VMulDx9ZeroF32, Opcode::VDualMulDx9ZeroF32),
    (Opcode::VMovB32, Opcode::VDualMovB32),
    (Opcode::VCndmaskB32, Opcode::VDualCndmaskB32),
    (Opcode::VMaxF32, Opcode::VDualMaxF32),
    (Opcode::VMinF32, Opcode::VDualMinF32),
    (Opcode::VAddNcU32, Opcode::VDualAddNcU32),
    (Opcode::VLshlrevB32, Opcode::VDualLshlrevB32),
    (Opcode::VAndB32, Opcode::VDualAndB32),
];

/// At most this many scalar values in a pair: distinct SGPRs, VCC (which `v_dual_cndmask_b32`
/// reads) and the literal.
pub const MAX_SCALARS: usize = 2;

/// How many scalar values a pair reads: the distinct registers of `sgprs` (VCC included when
/// a half is `v_dual_cndmask_b32`), and the literal if it has one.
pub fn scalar_values(sgprs: impl Iterator<Item = PhysReg>, literal: bool) -> usize {
    let mut seen: SmallVec<[PhysReg; 4]> = SmallVec::new();
    for r in sgprs {
        if !seen.contains(&r) {
            seen.push(r);
        }
    }
    seen.len() + usize::from(literal)
}

/// The VOPD component of an operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// The operation in a pair (`v_dual_*`).
    pub opcode: Opcode,
    /// Whether it may take the X slot (every component may take the Y slot).
    pub x: bool,
}

/// The VOPD component of `op` in `family`, if it has one.
pub fn component(op: Opcode, family: Family) -> Option<Component> {
    let &(_, dual) = COMPONENTS.iter().find(|&&(single, _)| single == op)?;
    let info = table::info(dual, family)?;
    Some(Component { opcode: dual, x: info.flags.x })
}

/// The VGPRs one half of a pair names (register numbers in the VGPR file).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Half {
    /// The result.
    pub dst: u16,
    /// The first source, when it is a VGPR.
    pub src0: Option<u16>,
    /// The second source (always a VGPR when the operation has one).
    pub src1: Option<u16>,
}

/// The register rules of a pair: the results are one even and one odd VGPR, and the first
/// sources, when both are VGPRs, lie in different banks (the register number modulo 4), as
/// do the second sources.
pub fn register_rule(x: Half, y: Half) -> Result<(), &'static str> {
    if x.dst % 2 == y.dst % 2 {
        return Err("the X and Y results are one even and one odd VGPR");
    }
    let same_bank = |a: Option<u16>, b: Option<u16>| a.zip(b).is_some_and(|(a, b)| a % 4 == b % 4);
    if same_bank(x.src0, y.src0) {
        return Err("the first sources use different VGPR banks");
    }
    if same_bank(x.src1, y.src1) {
        return Err("the second sources use different VGPR banks");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The components come from the opcode table: the three integer operations only in Y.
    #[test]
    fn components_and_their_slots() {
        let add = component(Opcode::VAddF32, Family::Gfx11).unwrap();
        assert_eq!(add, Component { opcode: Opcode::VDualAddF32, x: true });
        assert!(!component(Opcode::VAddNcU32, Family::Gfx11).unwrap().x);
        assert!(component(Opcode::VFmaF32, Family::Gfx11).is_none());
        assert!(component(Opcode::VAddF32, Family::Gfx9).is_none());
    }
}
