//! Opcodes: one variant per operation, with its format and assembly name on each encoding
//! family. An operation whose encoding family lacks it has an empty name there.
//!
//! The hand-written entries below are the operations the first end-to-end kernels use, with
//! their meaning; `tables/opcodes.rs`, generated with the opcode tables
//! (`isa/scripts/gen_tables.py`), adds every other opcode that llvm-mc-19 accepts for gfx1100,
//! gfx942 and gfx90a in the formats gcnc handles. A generated variant covers one operation in
//! every family when the names agree or when GFX11 merely renamed GFX9's operation
//! (`global_load_b32`/`global_load_dword`); otherwise it exists in some families only. gfx90a
//! names an operation as gfx942 does unless its entry gives a third pair. Opcode
//! numbers, operand slots and modifiers live in the tables ([`crate::table`]), which
//! [`crate::encoding`] and [`crate::operands`] read, keyed by these variants.

use crate::processor::{Generation, Processor};

/// An instruction format (its encoding layout). A VOP1, VOP2 or VOPC operation may also be
/// encoded as VOP3 (its `_e64` form): see [`crate::mir::Inst::vop3`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Scalar, one source.
    Sop1,
    /// Scalar, two sources.
    Sop2,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar compare, writing SCC.
    Sopc,
    /// Scalar program control (branches, waits, end of program).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector, one source.
    Vop1,
    /// Vector, two sources.
    Vop2,
    /// Vector compare, writing a lane mask.
    Vopc,
    /// Vector, three-source encoding (also the `_e64` form of VOP1/VOP2/VOPC).
    Vop3,
    /// VOP3 with a scalar destination (carry out): GFX9's VOP3b, GFX10+'s VOP3SD.
    Vop3sd,
    /// Global memory (FLAT with the global segment).
    Global,
    /// A pseudo-instruction, removed before encoding.
    Pseudo,
    /// Vector with packed (two 16-bit halves) or mixed-precision sources, and on GFX9 the
    /// matrix instructions (MFMA, the MAI layout).
    Vop3p,
    /// Two VALU operations issued together (GFX11 dual issue).
    Vopd,
    /// Local and global data share (LDS/GDS).
    Ds,
    /// FLAT memory with the flat segment (an address in any aperture).
    Flat,
    /// FLAT memory with the scratch (private) segment.
    Scratch,
    /// Buffer instructions; gcnc handles only the cache-control ones without operands.
    Mubuf,
}

/// Which family of encodings a processor uses: the opcode table llvm-mc-19 gives for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// GFX9 names and encodings with the gfx940 instructions (gfx942's table).
    Gfx9,
    /// gfx90a's GFX9 names and encodings (its own table): gfx942's but for what gfx940 added
    /// or dropped, the cache-policy bits spelt `glc`/`slc` (gfx942's `sc0`/`nt`/`sc1`), and
    /// scratch addresses in a VGPR or an SGPR, not both nor neither.
    Gfx90a,
    /// GFX11 names and encodings.
    Gfx11,
}

impl Family {
    /// The family of a processor, where gcnc encodes it: gfx90a's own, gfx942's for the other
    /// GFX9 processors with the gfx940 instructions, gfx1100's for GFX11 (GFX10, GFX12 and
    /// the GFX9 processors before gfx90a come later).
    pub fn of(processor: &Processor) -> Option<Family> {
        match processor.generation {
            Generation::Gfx9 if processor.gfx940_insts => Some(Family::Gfx9),
            Generation::Gfx9 if processor.gfx90a_insts => Some(Family::Gfx90a),
            Generation::Gfx11 => Some(Family::Gfx11),
            Generation::Gfx9 | Generation::Gfx10 | Generation::Gfx12 => None,
        }
    }

    /// The generation whose encodings the family is.
    pub fn generation(self) -> Generation {
        match self {
            Family::Gfx9 | Family::Gfx90a => Generation::Gfx9,
            Family::Gfx11 => Generation::Gfx11,
        }
    }

    /// Whether the family is one of GFX9's (gfx942's or gfx90a's): the rules the two share,
    /// such as one counter for loads and stores and wave64 only.
    pub fn is_gfx9(self) -> bool {
        self.generation() == Generation::Gfx9
    }
}

/// gfx90a's entry of an opcode: the third pair of the entry where it gives one, else
/// gfx942's.
macro_rules! gfx90a_or_gfx942 {
    ($gfx942:expr; $gfx90a:expr) => {
        $gfx90a
    };
    ($gfx942:expr;) => {
        $gfx942
    };
}

include!("tables/opcodes.rs");

macro_rules! opcodes {
    ($($(#[$doc:meta])* $variant:ident: ($f11:ident, $n11:literal), ($f9:ident, $n9:literal)
       $(, ($f90a:ident, $n90a:literal))?;)*) => {
        /// An operation. Variants are named after the GFX11 mnemonic (or GFX9's, where GFX11
        /// lacks it); pseudo-instructions start with `P`.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $($(#[$doc])* $variant,)*
        }

        impl Opcode {
            /// Every opcode.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The assembly name in `family` (empty when the family has no such operation).
            pub fn name(self, family: Family) -> &'static str {
                // Tables indexed by the discriminant (the variants are numbered in order): a
                // load instead of a match over every opcode, since the passes ask often.
                const GFX11: &[&str] = &[$($n11,)*];
                const GFX9: &[&str] = &[$($n9,)*];
                const GFX90A: &[&str] = &[$(gfx90a_or_gfx942!($n9; $($n90a)?),)*];
                match family {
                    Family::Gfx11 => GFX11[self as usize],
                    Family::Gfx9 => GFX9[self as usize],
                    Family::Gfx90a => GFX90A[self as usize],
                }
            }

            /// The format in `family`.
            pub fn format(self, family: Family) -> Format {
                const GFX11: &[Format] = &[$(Format::$f11,)*];
                const GFX9: &[Format] = &[$(Format::$f9,)*];
                const GFX90A: &[Format] = &[$(gfx90a_or_gfx942!(Format::$f9; $(Format::$f90a)?),)*];
                match family {
                    Family::Gfx11 => GFX11[self as usize],
                    Family::Gfx9 => GFX9[self as usize],
                    Family::Gfx90a => GFX90A[self as usize],
                }
            }
        }
    };
}

with_generated_opcodes! { opcodes {
    /// Defines the kernel's inputs in their fixed registers at the entry.
    PStartPgm: (Pseudo, "p_startpgm"), (Pseudo, "p_startpgm");
    /// Copies several values at once (all reads before all writes).
    PParallelCopy: (Pseudo, "p_parallelcopy"), (Pseudo, "p_parallelcopy");
    /// An SSA phi on the logical CFG (one operand per logical predecessor).
    PPhi: (Pseudo, "p_phi"), (Pseudo, "p_phi");
    /// An SSA phi on the linear CFG (one operand per linear predecessor).
    PLinearPhi: (Pseudo, "p_linear_phi"), (Pseudo, "p_linear_phi");
    /// Splits a tuple into its parts.
    PSplitVector: (Pseudo, "p_split_vector"), (Pseudo, "p_split_vector");
    /// Builds a tuple from parts.
    PCreateVector: (Pseudo, "p_create_vector"), (Pseudo, "p_create_vector");
    /// Marks the start of the logical part of a block (after the exec-mask setup).
    PLogicalStart: (Pseudo, "p_logical_start"), (Pseudo, "p_logical_start");
    /// Marks the end of the logical part of a block (before the exec-mask update).
    PLogicalEnd: (Pseudo, "p_logical_end"), (Pseudo, "p_logical_end");
    /// An unconditional branch to the block's linear successor.
    PBranch: (Pseudo, "p_branch"), (Pseudo, "p_branch");
    /// A conditional branch on EXEC being zero (to the first linear successor) or not.
    PCbranchExecz: (Pseudo, "p_cbranch_execz"), (Pseudo, "p_cbranch_execz");
    /// A conditional branch on SCC being zero.
    PCbranchScc0: (Pseudo, "p_cbranch_scc0"), (Pseudo, "p_cbranch_scc0");
    /// Defines a linear VGPR whose lanes hold spilled SGPRs (its value is undefined until
    /// `p_spill` writes them); register allocation removes it.
    PStartLinearVgpr: (Pseudo, "p_start_linear_vgpr"), (Pseudo, "p_start_linear_vgpr");
    /// Stores a value in its spill slot: `p_spill %x, %lv, lane` (an SGPR value into lanes
    /// `lane..` of the linear VGPR `%lv`) or `p_spill %x, offset` (a VGPR value into the VGPR
    /// slots from byte `offset`, which register allocation puts in free AGPRs or scratch).
    /// Register allocation lowers it.
    PSpill: (Pseudo, "p_spill"), (Pseudo, "p_spill");
    /// Loads a value back from its spill slot (the operands of the matching `p_spill` after
    /// the value): `%y = p_reload %lv, lane` or `%y = p_reload offset`.
    PReload: (Pseudo, "p_reload"), (Pseudo, "p_reload");

    /// Scalar load of one dword.
    SLoadB32: (Smem, "s_load_b32"), (Smem, "s_load_dword");
    /// Scalar load of two dwords.
    SLoadB64: (Smem, "s_load_b64"), (Smem, "s_load_dwordx2");
    /// Scalar load of four dwords.
    SLoadB128: (Smem, "s_load_b128"), (Smem, "s_load_dwordx4");
    /// Scalar load of eight dwords.
    SLoadB256: (Smem, "s_load_b256"), (Smem, "s_load_dwordx8");

    /// Scalar move.
    SMovB32: (Sop1, "s_mov_b32"), (Sop1, "s_mov_b32");
    /// Scalar 64-bit move.
    SMovB64: (Sop1, "s_mov_b64"), (Sop1, "s_mov_b64");
    /// `sdst = exec; exec &= src; scc = exec != 0` (wave32).
    SAndSaveexecB32: (Sop1, "s_and_saveexec_b32"), (Sop1, "");
    /// `sdst = exec; exec &= src; scc = exec != 0` (wave64).
    SAndSaveexecB64: (Sop1, "s_and_saveexec_b64"), (Sop1, "s_and_saveexec_b64");
    /// `sdst = exec; exec |= src; scc = exec != 0` (wave32).
    SOrSaveexecB32: (Sop1, "s_or_saveexec_b32"), (Sop1, "");
    /// `sdst = exec; exec |= src; scc = exec != 0` (wave64).
    SOrSaveexecB64: (Sop1, "s_or_saveexec_b64"), (Sop1, "s_or_saveexec_b64");
    /// Scalar bitwise not (SCC = result != 0).
    SNotB32: (Sop1, "s_not_b32"), (Sop1, "s_not_b32");

    /// Scalar add, carry out to SCC.
    SAddU32: (Sop2, "s_add_u32"), (Sop2, "s_add_u32");
    /// Scalar add with carry in and out through SCC.
    SAddcU32: (Sop2, "s_addc_u32"), (Sop2, "s_addc_u32");
    /// Scalar signed add (SCC = overflow).
    SAddI32: (Sop2, "s_add_i32"), (Sop2, "s_add_i32");
    /// Scalar subtract, borrow out to SCC.
    SSubU32: (Sop2, "s_sub_u32"), (Sop2, "s_sub_u32");
    /// Scalar subtract with borrow in and out through SCC.
    SSubbU32: (Sop2, "s_subb_u32"), (Sop2, "s_subb_u32");
    /// Scalar signed subtract (SCC = overflow).
    SSubI32: (Sop2, "s_sub_i32"), (Sop2, "s_sub_i32");
    /// Scalar 32-bit multiply (low half).
    SMulI32: (Sop2, "s_mul_i32"), (Sop2, "s_mul_i32");
    /// Scalar unsigned minimum (SCC = src0 was chosen).
    SMinU32: (Sop2, "s_min_u32"), (Sop2, "s_min_u32");
    /// Scalar unsigned maximum (SCC = src0 was chosen).
    SMaxU32: (Sop2, "s_max_u32"), (Sop2, "s_max_u32");
    /// Scalar and (SCC = result != 0).
    SAndB32: (Sop2, "s_and_b32"), (Sop2, "s_and_b32");
    /// Scalar 64-bit and.
    SAndB64: (Sop2, "s_and_b64"), (Sop2, "s_and_b64");
    /// Scalar or.
    SOrB32: (Sop2, "s_or_b32"), (Sop2, "s_or_b32");
    /// Scalar 64-bit or.
    SOrB64: (Sop2, "s_or_b64"), (Sop2, "s_or_b64");
    /// Scalar exclusive or.
    SXorB32: (Sop2, "s_xor_b32"), (Sop2, "s_xor_b32");
    /// Scalar 64-bit exclusive or.
    SXorB64: (Sop2, "s_xor_b64"), (Sop2, "s_xor_b64");
    /// Scalar `a & !b`.
    SAndn2B32: (Sop2, "s_and_not1_b32"), (Sop2, "s_andn2_b32");
    /// Scalar 64-bit `a & !b`.
    SAndn2B64: (Sop2, "s_and_not1_b64"), (Sop2, "s_andn2_b64");
    /// Scalar shift left.
    SLshlB32: (Sop2, "s_lshl_b32"), (Sop2, "s_lshl_b32");
    /// Scalar 64-bit shift left (shift amount: a 32-bit operand).
    SLshlB64: (Sop2, "s_lshl_b64"), (Sop2, "s_lshl_b64");
    /// Scalar logical shift right.
    SLshrB32: (Sop2, "s_lshr_b32"), (Sop2, "s_lshr_b32");
    /// Scalar arithmetic shift right.
    SAshrI32: (Sop2, "s_ashr_i32"), (Sop2, "s_ashr_i32");
    /// Scalar select on SCC.
    SCselectB32: (Sop2, "s_cselect_b32"), (Sop2, "s_cselect_b32");
    /// Scalar 64-bit select on SCC.
    SCselectB64: (Sop2, "s_cselect_b64"), (Sop2, "s_cselect_b64");

    /// Scalar compare, equal.
    SCmpEqU32: (Sopc, "s_cmp_eq_u32"), (Sopc, "s_cmp_eq_u32");
    /// Scalar compare, not equal.
    SCmpLgU32: (Sopc, "s_cmp_lg_u32"), (Sopc, "s_cmp_lg_u32");
    /// Scalar compare, unsigned less than.
    SCmpLtU32: (Sopc, "s_cmp_lt_u32"), (Sopc, "s_cmp_lt_u32");
    /// Scalar compare, unsigned less or equal.
    SCmpLeU32: (Sopc, "s_cmp_le_u32"), (Sopc, "s_cmp_le_u32");
    /// Scalar compare, unsigned greater than.
    SCmpGtU32: (Sopc, "s_cmp_gt_u32"), (Sopc, "s_cmp_gt_u32");
    /// Scalar compare, unsigned greater or equal.
    SCmpGeU32: (Sopc, "s_cmp_ge_u32"), (Sopc, "s_cmp_ge_u32");
    /// Scalar compare, signed less than.
    SCmpLtI32: (Sopc, "s_cmp_lt_i32"), (Sopc, "s_cmp_lt_i32");
    /// Scalar compare, signed less or equal.
    SCmpLeI32: (Sopc, "s_cmp_le_i32"), (Sopc, "s_cmp_le_i32");
    /// Scalar compare, signed greater than.
    SCmpGtI32: (Sopc, "s_cmp_gt_i32"), (Sopc, "s_cmp_gt_i32");
    /// Scalar compare, signed greater or equal.
    SCmpGeI32: (Sopc, "s_cmp_ge_i32"), (Sopc, "s_cmp_ge_i32");
    /// Scalar 64-bit compare, equal.
    SCmpEqU64: (Sopc, "s_cmp_eq_u64"), (Sopc, "s_cmp_eq_u64");
    /// Scalar 64-bit compare, not equal.
    SCmpLgU64: (Sopc, "s_cmp_lg_u64"), (Sopc, "s_cmp_lg_u64");

    /// Scalar move of a sign-extended 16-bit immediate.
    SMovkI32: (Sopk, "s_movk_i32"), (Sopk, "s_movk_i32");
    /// Wait for the store counter (GFX10+).
    SWaitcntVscnt: (Sopk, "s_waitcnt_vscnt"), (Sopk, "");

    /// Wait states: `simm16 + 1` of them.
    SNop: (Sopp, "s_nop"), (Sopp, "s_nop");
    /// End of the program.
    SEndpgm: (Sopp, "s_endpgm"), (Sopp, "s_endpgm");
    /// Unconditional relative branch.
    SBranch: (Sopp, "s_branch"), (Sopp, "s_branch");
    /// Branch if SCC is 0.
    SCbranchScc0: (Sopp, "s_cbranch_scc0"), (Sopp, "s_cbranch_scc0");
    /// Branch if SCC is 1.
    SCbranchScc1: (Sopp, "s_cbranch_scc1"), (Sopp, "s_cbranch_scc1");
    /// Branch if VCC is zero.
    SCbranchVccz: (Sopp, "s_cbranch_vccz"), (Sopp, "s_cbranch_vccz");
    /// Branch if VCC is not zero.
    SCbranchVccnz: (Sopp, "s_cbranch_vccnz"), (Sopp, "s_cbranch_vccnz");
    /// Branch if EXEC is zero.
    SCbranchExecz: (Sopp, "s_cbranch_execz"), (Sopp, "s_cbranch_execz");
    /// Branch if EXEC is not zero.
    SCbranchExecnz: (Sopp, "s_cbranch_execnz"), (Sopp, "s_cbranch_execnz");
    /// Workgroup barrier.
    SBarrier: (Sopp, "s_barrier"), (Sopp, "s_barrier");
    /// Wait until counters drop to the encoded values.
    SWaitcnt: (Sopp, "s_waitcnt"), (Sopp, "s_waitcnt");
    /// Tells the hardware about VALU dependencies (GFX11).
    SDelayAlu: (Sopp, "s_delay_alu"), (Sopp, "");
    /// Sends a message (e.g. MSG_DEALLOC_VGPRS).
    SSendmsg: (Sopp, "s_sendmsg"), (Sopp, "s_sendmsg");
    /// The next `simm16 + 1` memory instructions form a clause (GFX11).
    SClause: (Sopp, "s_clause"), (Sopp, "");
    /// Padding after the end of the code (GFX10+; gfx942 pads with `s_nop 0`).
    SCodeEnd: (Sopp, "s_code_end"), (Sopp, "");

    /// Vector move.
    VMovB32: (Vop1, "v_mov_b32"), (Vop1, "v_mov_b32");
    /// The first active lane's value into an SGPR.
    VReadfirstlaneB32: (Vop1, "v_readfirstlane_b32"), (Vop1, "v_readfirstlane_b32");
    /// Vector bitwise not.
    VNotB32: (Vop1, "v_not_b32"), (Vop1, "v_not_b32");
    /// u32 to f32.
    VCvtF32U32: (Vop1, "v_cvt_f32_u32"), (Vop1, "v_cvt_f32_u32");
    /// i32 to f32.
    VCvtF32I32: (Vop1, "v_cvt_f32_i32"), (Vop1, "v_cvt_f32_i32");
    /// f32 to u32 (round toward zero, saturating).
    VCvtU32F32: (Vop1, "v_cvt_u32_f32"), (Vop1, "v_cvt_u32_f32");
    /// f32 to i32 (round toward zero, saturating).
    VCvtI32F32: (Vop1, "v_cvt_i32_f32"), (Vop1, "v_cvt_i32_f32");
    /// f32 reciprocal (approximate, 1 ULP).
    VRcpF32: (Vop1, "v_rcp_f32"), (Vop1, "v_rcp_f32");
    /// f32 square root (approximate, 1 ULP).
    VSqrtF32: (Vop1, "v_sqrt_f32"), (Vop1, "v_sqrt_f32");

    /// Vector add without carry.
    VAddNcU32: (Vop2, "v_add_nc_u32"), (Vop2, "v_add_u32");
    /// Vector subtract without carry.
    VSubNcU32: (Vop2, "v_sub_nc_u32"), (Vop2, "v_sub_u32");
    /// Vector add with carry in and out (VCC in VOP2).
    VAddCoCiU32: (Vop2, "v_add_co_ci_u32"), (Vop2, "v_addc_co_u32");
    /// Vector subtract with borrow in and out (VCC in VOP2).
    VSubCoCiU32: (Vop2, "v_sub_co_ci_u32"), (Vop2, "v_subb_co_u32");
    /// f32 add.
    VAddF32: (Vop2, "v_add_f32"), (Vop2, "v_add_f32");
    /// f32 subtract.
    VSubF32: (Vop2, "v_sub_f32"), (Vop2, "v_sub_f32");
    /// f32 multiply.
    VMulF32: (Vop2, "v_mul_f32"), (Vop2, "v_mul_f32");
    /// f32 maximum.
    VMaxF32: (Vop2, "v_max_f32"), (Vop2, "v_max_f32");
    /// f32 minimum.
    VMinF32: (Vop2, "v_min_f32"), (Vop2, "v_min_f32");
    /// Unsigned maximum.
    VMaxU32: (Vop2, "v_max_u32"), (Vop2, "v_max_u32");
    /// Unsigned minimum.
    VMinU32: (Vop2, "v_min_u32"), (Vop2, "v_min_u32");
    /// Signed maximum.
    VMaxI32: (Vop2, "v_max_i32"), (Vop2, "v_max_i32");
    /// Signed minimum.
    VMinI32: (Vop2, "v_min_i32"), (Vop2, "v_min_i32");
    /// 24-bit unsigned multiply, low 32 bits of the product.
    VMulU32U24: (Vop2, "v_mul_u32_u24"), (Vop2, "v_mul_u32_u24");
    /// Shift left, operands reversed (shift amount first).
    VLshlrevB32: (Vop2, "v_lshlrev_b32"), (Vop2, "v_lshlrev_b32");
    /// Logical shift right, operands reversed.
    VLshrrevB32: (Vop2, "v_lshrrev_b32"), (Vop2, "v_lshrrev_b32");
    /// Arithmetic shift right, operands reversed.
    VAshrrevI32: (Vop2, "v_ashrrev_i32"), (Vop2, "v_ashrrev_i32");
    /// Vector and.
    VAndB32: (Vop2, "v_and_b32"), (Vop2, "v_and_b32");
    /// Vector or.
    VOrB32: (Vop2, "v_or_b32"), (Vop2, "v_or_b32");
    /// Vector exclusive or.
    VXorB32: (Vop2, "v_xor_b32"), (Vop2, "v_xor_b32");
    /// Per-lane select on a lane mask.
    VCndmaskB32: (Vop2, "v_cndmask_b32"), (Vop2, "v_cndmask_b32");

    /// Vector add with carry out (to an SGPR lane mask).
    VAddCoU32: (Vop3sd, "v_add_co_u32"), (Vop2, "v_add_co_u32");
    /// Vector subtract with borrow out (to an SGPR lane mask).
    VSubCoU32: (Vop3sd, "v_sub_co_u32"), (Vop2, "v_sub_co_u32");
    /// 64-bit multiply-add of unsigned 32-bit factors, carry out.
    VMadU64U32: (Vop3sd, "v_mad_u64_u32"), (Vop3sd, "v_mad_u64_u32");
    /// 64-bit shift left, operands reversed.
    VLshlrevB64: (Vop3, "v_lshlrev_b64"), (Vop3, "v_lshlrev_b64");
    /// `(src0 << src1) + src2` on 64 bits (gfx940+ only: gfx942 has it, gfx900 does not).
    VLshlAddU64: (Vop3, ""), (Vop3, "v_lshl_add_u64"), (Vop3, "");
    /// f32 fused multiply-add.
    VFmaF32: (Vop3, "v_fma_f32"), (Vop3, "v_fma_f32");
    /// 32-bit multiply, low half.
    VMulLoU32: (Vop3, "v_mul_lo_u32"), (Vop3, "v_mul_lo_u32");
    /// 32-bit unsigned multiply, high half.
    VMulHiU32: (Vop3, "v_mul_hi_u32"), (Vop3, "v_mul_hi_u32");
    /// Unsigned bitfield extract: `(src0 >> src1[4:0]) & ((1 << src2[4:0]) - 1)`.
    VBfeU32: (Vop3, "v_bfe_u32"), (Vop3, "v_bfe_u32");
    /// `(src0 << src1) + src2`.
    VLshlAddU32: (Vop3, "v_lshl_add_u32"), (Vop3, "v_lshl_add_u32");
    /// Three-operand add.
    VAdd3U32: (Vop3, "v_add3_u32"), (Vop3, "v_add3_u32");
    /// One lane's value (lane select: SGPR, M0 or inline constant) into an SGPR.
    VReadlaneB32: (Vop3, "v_readlane_b32"), (Vop3, "v_readlane_b32");
    /// A scalar value into one lane of a VGPR (the other lanes keep theirs).
    VWritelaneB32: (Vop3, "v_writelane_b32"), (Vop3, "v_writelane_b32");

    /// Vector compare, unsigned: less than.
    VCmpLtU32: (Vopc, "v_cmp_lt_u32"), (Vopc, "v_cmp_lt_u32");
    /// Vector compare, unsigned: less or equal.
    VCmpLeU32: (Vopc, "v_cmp_le_u32"), (Vopc, "v_cmp_le_u32");
    /// Vector compare, unsigned: greater than.
    VCmpGtU32: (Vopc, "v_cmp_gt_u32"), (Vopc, "v_cmp_gt_u32");
    /// Vector compare, unsigned: greater or equal.
    VCmpGeU32: (Vopc, "v_cmp_ge_u32"), (Vopc, "v_cmp_ge_u32");
    /// Vector compare, unsigned: equal.
    VCmpEqU32: (Vopc, "v_cmp_eq_u32"), (Vopc, "v_cmp_eq_u32");
    /// Vector compare, unsigned: not equal.
    VCmpNeU32: (Vopc, "v_cmp_ne_u32"), (Vopc, "v_cmp_ne_u32");
    /// Vector compare, signed: less than.
    VCmpLtI32: (Vopc, "v_cmp_lt_i32"), (Vopc, "v_cmp_lt_i32");
    /// Vector compare, signed: less or equal.
    VCmpLeI32: (Vopc, "v_cmp_le_i32"), (Vopc, "v_cmp_le_i32");
    /// Vector compare, signed: greater than.
    VCmpGtI32: (Vopc, "v_cmp_gt_i32"), (Vopc, "v_cmp_gt_i32");
    /// Vector compare, signed: greater or equal.
    VCmpGeI32: (Vopc, "v_cmp_ge_i32"), (Vopc, "v_cmp_ge_i32");
    /// Vector compare, signed: equal.
    VCmpEqI32: (Vopc, "v_cmp_eq_i32"), (Vopc, "v_cmp_eq_i32");
    /// Vector compare, signed: not equal.
    VCmpNeI32: (Vopc, "v_cmp_ne_i32"), (Vopc, "v_cmp_ne_i32");
    /// Vector compare, f32: less than.
    VCmpLtF32: (Vopc, "v_cmp_lt_f32"), (Vopc, "v_cmp_lt_f32");
    /// Vector compare, f32: less or equal.
    VCmpLeF32: (Vopc, "v_cmp_le_f32"), (Vopc, "v_cmp_le_f32");
    /// Vector compare, f32: greater than.
    VCmpGtF32: (Vopc, "v_cmp_gt_f32"), (Vopc, "v_cmp_gt_f32");
    /// Vector compare, f32: greater or equal.
    VCmpGeF32: (Vopc, "v_cmp_ge_f32"), (Vopc, "v_cmp_ge_f32");
    /// Vector compare, f32: equal.
    VCmpEqF32: (Vopc, "v_cmp_eq_f32"), (Vopc, "v_cmp_eq_f32");
    /// Vector compare, f32: ordered and not equal.
    VCmpLgF32: (Vopc, "v_cmp_lg_f32"), (Vopc, "v_cmp_lg_f32");
    /// Vector compare, f32: unordered or not equal.
    VCmpNeqF32: (Vopc, "v_cmp_neq_f32"), (Vopc, "v_cmp_neq_f32");
    /// Vector compare into EXEC, unsigned less than (GFX9 also writes the mask in its SGPR destination).
    VCmpxLtU32: (Vopc, "v_cmpx_lt_u32"), (Vopc, "v_cmpx_lt_u32");
    /// Vector compare into EXEC, unsigned greater than (GFX9 also writes the mask in its SGPR destination).
    VCmpxGtU32: (Vopc, "v_cmpx_gt_u32"), (Vopc, "v_cmpx_gt_u32");
    /// Vector compare into EXEC, unsigned equal (GFX9 also writes the mask in its SGPR destination).
    VCmpxEqU32: (Vopc, "v_cmpx_eq_u32"), (Vopc, "v_cmpx_eq_u32");
    /// Vector compare into EXEC, unsigned not equal (GFX9 also writes the mask in its SGPR destination).
    VCmpxNeU32: (Vopc, "v_cmpx_ne_u32"), (Vopc, "v_cmpx_ne_u32");

    /// Global load of one dword.
    GlobalLoadB32: (Global, "global_load_b32"), (Global, "global_load_dword");
    /// Global load of two dwords.
    GlobalLoadB64: (Global, "global_load_b64"), (Global, "global_load_dwordx2");
    /// Global load of four dwords.
    GlobalLoadB128: (Global, "global_load_b128"), (Global, "global_load_dwordx4");
    /// Global store of one dword.
    GlobalStoreB32: (Global, "global_store_b32"), (Global, "global_store_dword");
    /// Global store of two dwords.
    GlobalStoreB64: (Global, "global_store_b64"), (Global, "global_store_dwordx2");
    /// Global store of four dwords.
    GlobalStoreB128: (Global, "global_store_b128"), (Global, "global_store_dwordx4");
} }

impl Opcode {
    /// Whether this VALU operation is transcendental: issued to the separate TRANS unit of
    /// gfx11 and gfx940, whose results arrive later than other VALU results (`v_rcp`, `v_rsq`,
    /// `v_sqrt`, `v_exp`, `v_log`, `v_sin`, `v_cos`; the f64 `v_rcp`, `v_rsq` and `v_sqrt` too,
    /// which carry LLVM's TRANS flag: llc-19 puts `s_waitcnt_depctr 0xfff` between
    /// `v_rcp_f64` and its use on gfx1100).
    pub fn is_transcendental(self, family: Family) -> bool {
        let name = self.name(family);
        ["v_rcp_", "v_rsq_", "v_sqrt_", "v_exp_", "v_log_", "v_sin_", "v_cos_"].iter().any(|p| name.starts_with(p))
    }

    /// Whether this is a hardware branch (`s_branch`, `s_cbranch_*`): its 16-bit immediate is
    /// a word offset to a block.
    pub fn is_branch(self) -> bool {
        matches!(
            self,
            Opcode::SBranch
                | Opcode::SCbranchScc0
                | Opcode::SCbranchScc1
                | Opcode::SCbranchVccz
                | Opcode::SCbranchVccnz
                | Opcode::SCbranchExecz
                | Opcode::SCbranchExecnz
        )
    }

    /// Whether the instruction closes a block: a branch (pseudo or hardware) or the end of the
    /// program.
    pub fn ends_block(self) -> bool {
        self.is_branch()
            || matches!(self, Opcode::PBranch | Opcode::PCbranchExecz | Opcode::PCbranchScc0 | Opcode::SEndpgm)
    }

    /// The branch on the opposite condition to the same target, for a conditional branch
    /// (the pseudo-branches' inverses are real branches, which read the same implicit
    /// operand); `None` for any other instruction.
    pub fn inverted_branch(self) -> Option<Opcode> {
        use Opcode::*;
        Some(match self {
            SCbranchScc0 | PCbranchScc0 => SCbranchScc1,
            SCbranchScc1 => SCbranchScc0,
            SCbranchVccz => SCbranchVccnz,
            SCbranchVccnz => SCbranchVccz,
            SCbranchExecz | PCbranchExecz => SCbranchExecnz,
            SCbranchExecnz => SCbranchExecz,
            _ => return None,
        })
    }

    /// Whether this pseudo-instruction only marks a point of the program and becomes nothing
    /// in the code: `p_startpgm` (the inputs, in their registers already) and the bounds of a
    /// block's logical part. The last stages see no other pseudo-instructions but branches.
    pub fn is_marker(self) -> bool {
        matches!(self, Opcode::PStartPgm | Opcode::PLogicalStart | Opcode::PLogicalEnd)
    }

    /// Whether this is a pseudo-instruction (never encoded).
    pub fn is_pseudo(self) -> bool {
        self.format(Family::Gfx11) == Format::Pseudo
    }

    /// Whether the operation exists in `family`.
    pub fn exists_in(self, family: Family) -> bool {
        !self.name(family).is_empty()
    }
}
