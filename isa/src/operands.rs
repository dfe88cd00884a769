//! Operand shapes: for every opcode, what its results and operands are (how many, in which
//! register file, how many dwords) and which VOP3 modifiers it accepts.
//!
//! The shape is the contract between the MIR and the encodings: `Inst::defs` and `Inst::ops`
//! follow it in the order of the assembly syntax, the encoder places them in the fields of the
//! format, the decoder rebuilds them from the fields, and the printer walks them in order.
//! Registers that an `_e32` encoding reads or writes implicitly (VCC of a VOPC compare or of a
//! carry) are ordinary [`Loc::Mask`] operands in the MIR, as they are in the assembly syntax.
//!
//! Shapes are a view of the opcode tables ([`crate::table`]), which hold more: the encoding
//! field of each slot, AGPRs, constant types, and the optional slots the shape does not list:
//! - SMEM: an operand after `sbase`, an SGPR, is the `soffset` register added to the offset.
//! - GLOBAL: a trailing SGPR pair is `saddr`; the address operand is then a 32-bit VGPR
//!   offset instead of a 64-bit VGPR address. Without it, the assembly says `off`.
//! - SCRATCH: the VGPR address and the SGPR `saddr` are both optional.
//! - FLAT/GLOBAL atomics: the returned value is a result only with GLC (GFX11) or SC0 (gfx942).
//!
//! Facts checked against llvm-mc-19 (gfx1100 and gfx942): which operands accept SGPRs,
//! constants and literals, and which modifiers each opcode takes (see `isa/tests/llvm_mc.rs`).

use crate::mir::Fields;
use crate::opcode::{Family, Format, Opcode};
use crate::table::table;

/// Where an operand may live.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    /// Scalar registers only (special registers such as VCC, EXEC and M0 included).
    Sgpr,
    /// Vector registers only.
    Vgpr,
    /// A scalar source: an SGPR, an inline constant or a literal.
    Ssrc,
    /// A vector-ALU source: a VGPR, an SGPR, an inline constant or a literal (the `_e32`
    /// encodings restrict the second source to a VGPR and literals to the first source).
    Vsrc,
    /// A lane mask: one SGPR in wave32, an SGPR pair in wave64 (VCC in the `_e32` forms).
    Mask,
    /// A lane select of `v_readlane`/`v_writelane`: an SGPR, M0 or an inline constant.
    Lane,
}

/// One result or operand of a shape.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Where it may live.
    pub loc: Loc,
    /// Its size in dwords (a [`Loc::Mask`] says 1; its real size follows the wave size).
    pub size: u8,
}

impl Slot {
    /// Whether a constant may stand here.
    pub fn takes_constant(self) -> bool {
        matches!(self.loc, Loc::Ssrc | Loc::Vsrc | Loc::Lane)
    }
}

/// The VOP3 modifiers an operation accepts (checked against llvm-mc-19 per opcode: float
/// sources take `neg`/`abs`, float results `omod`, and `clamp` goes wherever the hardware
/// saturates, integer adds included).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    /// Source negate and absolute value (`-v1`, `|v1|`).
    pub neg_abs: bool,
    /// Result clamp.
    pub clamp: bool,
    /// Output modifier (`mul:2`, `mul:4`, `div:2`).
    pub omod: bool,
}

impl Mods {
    /// The first VOP3 modifier in `fields` that an operation with these modifiers and
    /// `sources` sources refuses (`neg`, `abs`, `clamp`, `omod` or `op_sel`), if any. The
    /// encoder refuses to encode such an instruction and the decoder to produce one.
    pub fn refused(self, fields: &Fields, sources: usize) -> Option<&'static str> {
        let f = fields;
        let checks = [
            ("neg", f.neg != 0 && (!self.neg_abs || f.neg >> sources != 0)),
            ("abs", f.abs != 0 && (!self.neg_abs || f.abs >> sources != 0)),
            ("clamp", f.clamp && !self.clamp),
            ("omod", f.omod != 0 && (!self.omod || f.omod > 3)),
            // No operation of the table has 16-bit operands to select halves of.
            ("op_sel", f.opsel != 0),
        ];
        checks.iter().find(|&&(_, refused)| refused).map(|&(name, _)| name)
    }
}

/// The results and operands of an operation, in assembly order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Results.
    pub defs: &'static [Slot],
    /// Operands.
    pub ops: &'static [Slot],
    /// Accepted VOP3 modifiers.
    pub mods: Mods,
}

impl Shape {
    /// Whether the VOP3 form writes a second, scalar result (VOP3SD; GFX9's VOP3b).
    pub fn has_sdst(&self) -> bool {
        self.defs.len() == 2 && self.defs[1].loc == Loc::Mask
    }
}

// The shapes of each family's opcodes, `GFX11`, `GFX9` and `GFX90A`: static data that `build.rs` writes
// from the opcode tables (a slot kind's `Loc` is in its table of kinds).
include!(concat!(env!("OUT_DIR"), "/opcode_shapes.rs"));

/// The shape of `op` in `family`, or `None` for pseudo-instructions and operations the
/// family lacks. Optional slots (a GLOBAL `saddr`, an SMEM `soffset`, SCRATCH's addresses, an
/// atomic's returned value) are left out; [`crate::table::info`] describes every slot.
pub fn shape_of(op: Opcode, family: Family) -> Option<Shape> {
    let shapes = match family {
        Family::Gfx11 => GFX11,
        Family::Gfx9 => GFX9,
        Family::Gfx90a => GFX90A,
    };
    shapes.get(op as usize).copied().flatten()
}

/// Whether `op` reads its result register as well, an accumulator its syntax does not name
/// again (`v_fmac_f32 vD, a, b` computes `a * b + vD`; so does its VOPD component). Passes that
/// follow register reads (waits, hazards, issue hints, pairing) count it as read.
pub fn reads_result(op: Opcode) -> bool {
    matches!(op, Opcode::VFmacF32 | Opcode::VDualFmacF32)
}

/// Whether an operation of a VOP1, VOP2 or VOPC format also has a VOP3 (`_e64`) encoding.
/// `v_readfirstlane_b32` has none (llvm-mc-19: "e64 variant of this instruction is not
/// supported"), so it prints without a suffix.
pub fn has_vop3_form(op: Opcode, family: Family) -> bool {
    matches!(op.format(family), Format::Vop1 | Format::Vop2 | Format::Vopc)
        && table(family).get(op).is_some_and(|i| i.flags.e64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encodable_opcode_has_a_shape() {
        for family in [Family::Gfx9, Family::Gfx11] {
            for &op in Opcode::ALL {
                let encodable = !op.is_pseudo() && op.exists_in(family);
                assert_eq!(shape_of(op, family).is_some(), encodable, "{op:?} in {family:?}");
            }
        }
    }

    const fn slot(loc: Loc, size: u8) -> Slot {
        Slot { loc, size }
    }
    const S1: Slot = slot(Loc::Sgpr, 1);
    const S2: Slot = slot(Loc::Sgpr, 2);
    const S4: Slot = slot(Loc::Sgpr, 4);
    const S8: Slot = slot(Loc::Sgpr, 8);
    const SS1: Slot = slot(Loc::Ssrc, 1);
    const SS2: Slot = slot(Loc::Ssrc, 2);
    const V1: Slot = slot(Loc::Vgpr, 1);
    const V2: Slot = slot(Loc::Vgpr, 2);
    const V4: Slot = slot(Loc::Vgpr, 4);
    const VS1: Slot = slot(Loc::Vsrc, 1);
    const VS2: Slot = slot(Loc::Vsrc, 2);
    const MASK: Slot = slot(Loc::Mask, 1);
    const LANE: Slot = slot(Loc::Lane, 1);
    const NONE: Mods = Mods { neg_abs: false, clamp: false, omod: false };
    const CLAMP: Mods = Mods { neg_abs: false, clamp: true, omod: false };
    const INT_TO_FLOAT: Mods = Mods { neg_abs: false, clamp: true, omod: true };
    const FLOAT: Mods = Mods { neg_abs: true, clamp: true, omod: true };
    const FLOAT_CMP: Mods = Mods { neg_abs: true, clamp: true, omod: false };
    const SELECT: Mods = Mods { neg_abs: true, clamp: false, omod: false };
    const fn shape(defs: &'static [Slot], ops: &'static [Slot], mods: Mods) -> Shape {
        Shape { defs, ops, mods }
    }

    /// The shapes written by hand for the first kernels (instruction selection relies on
    /// them), before the tables were generated: the tables must agree.
    fn first_shape(op: Opcode, family: Family) -> Option<Shape> {
        use Opcode::*;
        if op.is_pseudo() || !op.exists_in(family) {
            return None;
        }
        let s = match op {
            SLoadB32 => shape(&[S1], &[S2], NONE),
            SLoadB64 => shape(&[S2], &[S2], NONE),
            SLoadB128 => shape(&[S4], &[S2], NONE),
            SLoadB256 => shape(&[S8], &[S2], NONE),

            SMovB32 | SNotB32 | SAndSaveexecB32 | SOrSaveexecB32 => shape(&[S1], &[SS1], NONE),
            SMovB64 | SAndSaveexecB64 | SOrSaveexecB64 => shape(&[S2], &[SS2], NONE),

            SAddU32 | SAddcU32 | SAddI32 | SSubU32 | SSubbU32 | SSubI32 | SMulI32 | SMinU32 | SMaxU32 | SAndB32
            | SOrB32 | SXorB32 | SAndn2B32 | SLshlB32 | SLshrB32 | SAshrI32 | SCselectB32 => {
                shape(&[S1], &[SS1, SS1], NONE)
            }
            SAndB64 | SOrB64 | SXorB64 | SAndn2B64 | SCselectB64 => shape(&[S2], &[SS2, SS2], NONE),
            SLshlB64 => shape(&[S2], &[SS2, SS1], NONE),

            SCmpEqU32 | SCmpLgU32 | SCmpLtU32 | SCmpLeU32 | SCmpGtU32 | SCmpGeU32 | SCmpLtI32 | SCmpLeI32
            | SCmpGtI32 | SCmpGeI32 => shape(&[], &[SS1, SS1], NONE),
            SCmpEqU64 | SCmpLgU64 => shape(&[], &[SS2, SS2], NONE),

            SMovkI32 => shape(&[S1], &[], NONE),
            // The SGPR field of s_waitcnt_vscnt is read; llvm-mc-19 accepts only `null` there.
            SWaitcntVscnt => shape(&[], &[S1], NONE),

            SNop | SEndpgm | SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
            | SCbranchExecnz | SBarrier | SWaitcnt | SDelayAlu | SSendmsg | SClause | SCodeEnd => shape(&[], &[], NONE),

            VMovB32 | VNotB32 => shape(&[V1], &[VS1], NONE),
            VReadfirstlaneB32 => shape(&[S1], &[V1], NONE),
            VCvtF32U32 | VCvtF32I32 => shape(&[V1], &[VS1], INT_TO_FLOAT),
            VCvtU32F32 | VCvtI32F32 | VRcpF32 | VSqrtF32 => shape(&[V1], &[VS1], FLOAT),

            VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 => shape(&[V1], &[VS1, VS1], FLOAT),
            VAddNcU32 | VSubNcU32 | VMulU32U24 => shape(&[V1], &[VS1, VS1], CLAMP),
            VMaxU32 | VMinU32 | VMaxI32 | VMinI32 | VLshlrevB32 | VLshrrevB32 | VAshrrevI32 | VAndB32 | VOrB32
            | VXorB32 => shape(&[V1], &[VS1, VS1], NONE),
            VCndmaskB32 => shape(&[V1], &[VS1, VS1, MASK], SELECT),
            VAddCoCiU32 | VSubCoCiU32 => shape(&[V1, MASK], &[VS1, VS1, MASK], CLAMP),
            VAddCoU32 | VSubCoU32 => shape(&[V1, MASK], &[VS1, VS1], CLAMP),

            VMadU64U32 => shape(&[V2, MASK], &[VS1, VS1, VS2], CLAMP),
            VLshlrevB64 => shape(&[V2], &[VS1, VS2], NONE),
            VLshlAddU64 => shape(&[V2], &[VS2, VS1, VS2], NONE),
            VFmaF32 => shape(&[V1], &[VS1, VS1, VS1], FLOAT),
            VMulLoU32 | VMulHiU32 => shape(&[V1], &[VS1, VS1], NONE),
            VBfeU32 | VLshlAddU32 | VAdd3U32 => shape(&[V1], &[VS1, VS1, VS1], NONE),
            VReadlaneB32 => shape(&[S1], &[V1, LANE], NONE),
            VWritelaneB32 => shape(&[V1], &[SS1, LANE], NONE),

            VCmpLtU32 | VCmpLeU32 | VCmpGtU32 | VCmpGeU32 | VCmpEqU32 | VCmpNeU32 | VCmpLtI32 | VCmpLeI32
            | VCmpGtI32 | VCmpGeI32 | VCmpEqI32 | VCmpNeI32 => shape(&[MASK], &[VS1, VS1], NONE),
            VCmpLtF32 | VCmpLeF32 | VCmpGtF32 | VCmpGeF32 | VCmpEqF32 | VCmpLgF32 | VCmpNeqF32 => {
                shape(&[MASK], &[VS1, VS1], FLOAT_CMP)
            }
            // GFX10+ `v_cmpx` writes EXEC only; GFX9's also writes its SGPR (or VCC) destination.
            VCmpxLtU32 | VCmpxGtU32 | VCmpxEqU32 | VCmpxNeU32 => match family {
                Family::Gfx11 => shape(&[], &[VS1, VS1], NONE),
                Family::Gfx9 | Family::Gfx90a => shape(&[MASK], &[VS1, VS1], NONE),
            },

            GlobalLoadB32 => shape(&[V1], &[V2], NONE),
            GlobalLoadB64 => shape(&[V2], &[V2], NONE),
            GlobalLoadB128 => shape(&[V4], &[V2], NONE),
            GlobalStoreB32 => shape(&[], &[V2, V1], NONE),
            GlobalStoreB64 => shape(&[], &[V2, V2], NONE),
            GlobalStoreB128 => shape(&[], &[V2, V4], NONE),

            PStartPgm | PParallelCopy | PPhi | PLinearPhi | PSplitVector | PCreateVector | PLogicalStart
            | PLogicalEnd | PBranch | PCbranchExecz | PCbranchScc0 => return None,
            _ => return None,
        };
        Some(s)
    }

    #[test]
    fn first_shapes_are_kept() {
        for family in [Family::Gfx9, Family::Gfx11] {
            let mut checked = 0;
            for &op in Opcode::ALL {
                let Some(expected) = first_shape(op, family) else { continue };
                assert_eq!(shape_of(op, family), Some(expected), "{op:?} in {family:?}");
                checked += 1;
            }
            assert!(checked > 120, "{checked}");
        }
    }

    #[test]
    fn carry_outs_use_the_sdst_layout() {
        assert!(shape_of(Opcode::VMadU64U32, Family::Gfx11).unwrap().has_sdst());
        assert!(shape_of(Opcode::VAddCoCiU32, Family::Gfx9).unwrap().has_sdst());
        assert!(!shape_of(Opcode::VCmpGtU32, Family::Gfx11).unwrap().has_sdst());
    }
}
