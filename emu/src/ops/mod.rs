//! What each opcode does, as the executors see it: one [`Op`] per operation, found once per
//! instruction at load time from the opcode's mnemonic (its GFX11 name, or its GFX9 name where
//! GFX11 lacks it).
//!
//! Keying on the mnemonic keeps the meaning of `v_cmp_gt_u32` in one place for every compare
//! (a predicate and a type, parsed from the name) and lets the emulator follow the opcode
//! table as it grows: a new opcode whose mnemonic is listed here runs at once; one that is not
//! maps to no [`Op`] and executing it is [`crate::FaultKind::Unimplemented`], naming it and the
//! PC. The vector ALU operations are listed in [`valu`], the memory operations in [`mem`].

pub(crate) mod mem;
pub(crate) mod valu;

pub(crate) use mem::{AtomicOp, DsOp, MemKind, Segment, VmemOp};
pub(crate) use valu::{PkOp, VAlu};

use isa::opcode::{Family, Opcode};

/// A value type: of a compare, of a vector-ALU source or result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// Signed 16-bit.
    I16,
    /// Unsigned 16-bit (also any 16-bit bit pattern).
    U16,
    /// IEEE half.
    F16,
    /// Signed 32-bit.
    I32,
    /// Unsigned 32-bit (also any 32-bit bit pattern).
    U32,
    /// IEEE single.
    F32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 64-bit (also any 64-bit bit pattern).
    U64,
    /// IEEE double.
    F64,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "i16" => Ty::I16,
            "u16" | "b16" => Ty::U16,
            "f16" => Ty::F16,
            "i32" => Ty::I32,
            "u32" | "b32" => Ty::U32,
            "f32" => Ty::F32,
            "i64" => Ty::I64,
            "u64" | "b64" => Ty::U64,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    /// Dwords of a register operand of this type.
    pub(crate) fn dwords(self) -> u16 {
        match self {
            Ty::I64 | Ty::U64 | Ty::F64 => 2,
            _ => 1,
        }
    }

    /// Bits of a value of this type.
    pub(crate) fn bits(self) -> u32 {
        match self {
            Ty::I16 | Ty::U16 | Ty::F16 => 16,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            Ty::I64 | Ty::U64 | Ty::F64 => 64,
        }
    }

    /// Whether the type is a float (takes `neg`/`abs`, `clamp`, `omod`).
    pub(crate) fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }
}

/// A compare predicate. Float predicates starting with N are the negations (true on NaN).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    /// Always false.
    F,
    /// Less than.
    Lt,
    /// Equal.
    Eq,
    /// Less or equal.
    Le,
    /// Greater than.
    Gt,
    /// Not equal (`lg` for floats: ordered and not equal).
    Ne,
    /// Greater or equal.
    Ge,
    /// Always true.
    T,
    /// Both ordered (no NaN).
    O,
    /// Either is NaN.
    U,
    /// Not greater or equal.
    Nge,
    /// Not less or greater.
    Nlg,
    /// Not greater than.
    Ngt,
    /// Not less or equal.
    Nle,
    /// Not equal (floats: unordered or not equal).
    Neq,
    /// Not less than.
    Nlt,
}

impl Cmp {
    fn parse(s: &str) -> Option<Cmp> {
        Some(match s {
            "f" => Cmp::F,
            "lt" => Cmp::Lt,
            "eq" => Cmp::Eq,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "lg" | "ne" => Cmp::Ne,
            "ge" => Cmp::Ge,
            "t" | "tru" => Cmp::T,
            "o" => Cmp::O,
            "u" => Cmp::U,
            "nge" => Cmp::Nge,
            "nlg" => Cmp::Nlg,
            "ngt" => Cmp::Ngt,
            "nle" => Cmp::Nle,
            "neq" => Cmp::Neq,
            "nlt" => Cmp::Nlt,
            _ => return None,
        })
    }

    /// Evaluates the predicate on two operands of type `ty` (raw bits, zero-extended).
    pub(crate) fn eval(self, ty: Ty, a: u64, b: u64) -> bool {
        use std::cmp::Ordering::*;
        let ord = match ty {
            Ty::U16 => Some((a as u16).cmp(&(b as u16))),
            Ty::I16 => Some((a as i16).cmp(&(b as i16))),
            Ty::U32 => Some((a as u32).cmp(&(b as u32))),
            Ty::I32 => Some((a as i32).cmp(&(b as i32))),
            Ty::U64 => Some(a.cmp(&b)),
            Ty::I64 => Some((a as i64).cmp(&(b as i64))),
            Ty::F16 => crate::float::f16_to_f64(a as u16).partial_cmp(&crate::float::f16_to_f64(b as u16)),
            Ty::F32 => f32::from_bits(a as u32).partial_cmp(&f32::from_bits(b as u32)),
            Ty::F64 => f64::from_bits(a).partial_cmp(&f64::from_bits(b)),
        };
        match self {
            Cmp::F => false,
            Cmp::T => true,
            Cmp::Lt => ord == Some(Less),
            Cmp::Eq => ord == Some(Equal),
            Cmp::Le => matches!(ord, Some(Less | Equal)),
            Cmp::Gt => ord == Some(Greater),
            Cmp::Ne => matches!(ord, Some(Less | Greater)),
            Cmp::Ge => matches!(ord, Some(Greater | Equal)),
            Cmp::O => ord.is_some(),
            Cmp::U => ord.is_none(),
            Cmp::Nge => !matches!(ord, Some(Greater | Equal)),
            Cmp::Nlg => !matches!(ord, Some(Less | Greater)),
            Cmp::Ngt => ord != Some(Greater),
            Cmp::Nle => !matches!(ord, Some(Less | Equal)),
            Cmp::Neq => ord != Some(Equal),
            Cmp::Nlt => ord != Some(Less),
        }
    }
}

/// A branch condition of `s_cbranch_*`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    /// SCC is 0.
    Scc0,
    /// SCC is 1.
    Scc1,
    /// VCC is zero.
    Vccz,
    /// VCC is not zero.
    Vccnz,
    /// EXEC is zero.
    Execz,
    /// EXEC is not zero.
    Execnz,
}

/// A two-source bitwise operation (`s_and_b32`, the `*_saveexec` family, `v_and_b32`...).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bit {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a & !b` (GFX9 `andn2`, GFX11 `and_not1`).
    AndNot1,
    /// `a | !b` (GFX9 `orn2`, GFX11 `or_not1`).
    OrNot1,
    /// `!a & b` (`andn1` / `and_not0`).
    AndNot0,
    /// `!a | b` (`orn1` / `or_not0`).
    OrNot0,
    /// `!(a & b)`.
    Nand,
    /// `!(a | b)`.
    Nor,
    /// `!(a ^ b)`.
    Xnor,
}

impl Bit {
    pub(crate) fn parse(s: &str) -> Option<Bit> {
        Some(match s {
            "and" => Bit::And,
            "or" => Bit::Or,
            "xor" => Bit::Xor,
            "andn2" | "and_not1" => Bit::AndNot1,
            "orn2" | "or_not1" => Bit::OrNot1,
            "andn1" | "and_not0" => Bit::AndNot0,
            "orn1" | "or_not0" => Bit::OrNot0,
            "nand" => Bit::Nand,
            "nor" => Bit::Nor,
            "xnor" => Bit::Xnor,
            _ => return None,
        })
    }

    /// Applies the operation.
    pub(crate) fn eval(self, a: u64, b: u64) -> u64 {
        match self {
            Bit::And => a & b,
            Bit::Or => a | b,
            Bit::Xor => a ^ b,
            Bit::AndNot1 => a & !b,
            Bit::OrNot1 => a | !b,
            Bit::AndNot0 => !a & b,
            Bit::OrNot0 => !a | b,
            Bit::Nand => !(a & b),
            Bit::Nor => !(a | b),
            Bit::Xnor => !(a ^ b),
        }
    }
}

/// Scalar ALU operations on one or two sources (SOP1, SOP2, SOPK).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum SAlu {
    /// `s_mov`.
    Mov,
    /// `s_cmov` (moves when SCC is set).
    Cmov,
    /// `s_movk_i32` (sign-extended 16-bit immediate).
    Movk,
    /// `s_cmovk_i32`.
    Cmovk,
    /// `s_addk_i32` (SCC = signed overflow).
    Addk,
    /// `s_mulk_i32`.
    Mulk,
    /// `s_not` (SCC = result != 0).
    Not,
    /// A bitwise operation (SCC = result != 0).
    Bit(Bit),
    /// `s_add_u32` (SCC = carry).
    AddU32,
    /// `s_addc_u32` (carry in and out through SCC).
    AddcU32,
    /// `s_sub_u32` (SCC = borrow).
    SubU32,
    /// `s_subb_u32` (borrow in and out through SCC).
    SubbU32,
    /// `s_add_i32` (SCC = signed overflow).
    AddI32,
    /// `s_sub_i32` (SCC = signed overflow).
    SubI32,
    /// `s_mul_i32`.
    MulI32,
    /// `s_mul_hi_u32`.
    MulHiU32,
    /// `s_mul_hi_i32`.
    MulHiI32,
    /// `s_lshl` (SCC = result != 0).
    Lshl,
    /// `s_lshr` (SCC = result != 0).
    Lshr,
    /// `s_ashr` (SCC = result != 0).
    Ashr,
    /// `s_lshlN_add_u32` (SCC = carry).
    LshlAdd(u8),
    /// `s_bfe_u32` / `s_bfe_u64` (SCC = result != 0).
    BfeU,
    /// `s_bfe_i32` / `s_bfe_i64` (SCC = result != 0).
    BfeI,
    /// `s_bfm_b32` / `s_bfm_b64`.
    Bfm,
    /// `s_min_u32` (SCC = first is chosen).
    MinU,
    /// `s_max_u32`.
    MaxU,
    /// `s_min_i32`.
    MinI,
    /// `s_max_i32`.
    MaxI,
    /// `s_cselect` (SCC ? a : b).
    Cselect,
    /// `s_abs_i32` (SCC = result != 0).
    Abs,
    /// `s_absdiff_i32` (SCC = result != 0).
    AbsDiff,
    /// `s_sext_i32_i8`.
    Sext8,
    /// `s_sext_i32_i16`.
    Sext16,
    /// `s_bcnt0_i32` (SCC = result != 0).
    Bcnt0,
    /// `s_bcnt1_i32` (SCC = result != 0).
    Bcnt1,
    /// `s_brev`.
    Brev,
    /// `s_ff1_i32` / `s_ctz_i32` (-1 when zero).
    Ctz,
    /// `s_flbit_i32_b32` / `s_clz_i32_u32` (-1 when zero).
    Clz,
    /// `s_flbit_i32` / `s_cls_i32`: leading bits equal to the sign (-1 when 0 or -1).
    Cls,
    /// `s_bitset0`.
    Bitset0,
    /// `s_bitset1`.
    Bitset1,
    /// `s_pack_ll_b32_b16`.
    PackLl,
    /// `s_pack_lh_b32_b16`.
    PackLh,
    /// `s_pack_hh_b32_b16`.
    PackHh,
}

/// What an instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `s_nop`.
    Nop,
    /// `s_endpgm`.
    Endpgm,
    /// `s_branch`.
    Branch,
    /// `s_cbranch_*`.
    CBranch(Cond),
    /// `s_barrier`.
    Barrier,
    /// `s_waitcnt`.
    Waitcnt,
    /// `s_waitcnt_vscnt`, `s_waitcnt_vmcnt`, `s_waitcnt_lgkmcnt`, `s_waitcnt_expcnt` (GFX10+
    /// forms with an SGPR and a 16-bit count).
    WaitcntOne(crate::waitcnt_check::Counter),
    /// `s_waitcnt_depctr` (GFX10+): waits on the ALU dependency counters; only its effect on
    /// hazards matters here.
    Depctr,
    /// `s_delay_alu` (a scheduling hint; its fields are checked).
    DelayAlu,
    /// `s_clause` (a scheduling hint; its length is checked).
    Clause,
    /// Scheduling and cache hints with no architectural effect: `s_set_inst_prefetch_distance`,
    /// `s_setprio`, `s_sleep`, `s_icache_inv`, `s_dcache_inv`, `s_ttracedata`...
    Hint,
    /// `s_sendmsg`.
    Sendmsg,
    /// `s_code_end` (padding after the code; executing it is an error).
    CodeEnd,
    /// `s_getpc_b64`: the address of the next instruction.
    Getpc,
    /// `s_setpc_b64`: a jump to the address in an SGPR pair.
    Setpc,
    /// A scalar ALU operation on `dwords`-dword values.
    SAlu {
        /// The operation.
        op: SAlu,
        /// 1 or 2.
        dwords: u16,
    },
    /// `s_*_saveexec`: `sdst = exec; exec = op(src, exec); scc = exec != 0`.
    Saveexec(Bit),
    /// `s_cmp_*`.
    SCmp(Cmp, Ty),
    /// `s_cmpk_*`: a compare with the 16-bit immediate (zero- or sign-extended by the type).
    SCmpk(Cmp, Ty),
    /// `s_bitcmp0` / `s_bitcmp1`: SCC = the selected bit equals the value.
    SBitcmp {
        /// The value compared with.
        one: bool,
        /// 1 or 2.
        dwords: u16,
    },
    /// `v_readfirstlane_b32`.
    ReadFirstLane,
    /// `v_readlane_b32`: one lane's value (the lane from a scalar source) into an SGPR.
    ReadLane,
    /// `v_writelane_b32`: a scalar value into one lane of a VGPR, whatever EXEC.
    WriteLane,
    /// `v_accvgpr_write_b32`, `v_accvgpr_read_b32`, `v_accvgpr_mov_b32`: a move into or out
    /// of the AGPRs (gfx90a, gfx942), in the active lanes.
    AccMove,
    /// `v_permlane64_b32` (GFX11): each active lane takes the source of the lane 32 away (the
    /// halves of a wave64 swapped), read whatever EXEC; nothing in wave32.
    Permlane64,
    /// `v_permlanex16_b32` (GFX10+): each active lane takes the source of a lane of the other
    /// row of its 32 lanes, the lane within that row selected by 4 bits of the 64-bit select
    /// `{src2, src1}`; op_sel[0] (FI) reads inactive lanes too, else an inactive source gives
    /// 0 with op_sel[1] (BOUND_CTRL) and leaves the lane unwritten without it.
    Permlanex16,
    /// `v_mbcnt_lo_u32_b32` / `v_mbcnt_hi_u32_b32`: bits of a mask below the lane, plus a
    /// source.
    Mbcnt {
        /// The high half of the lane mask.
        hi: bool,
    },
    /// `v_nop`.
    VNop,
    /// `v_swap_b32`: exchanges two VGPRs.
    Swap,
    /// A vector ALU operation.
    VAlu(VAlu),
    /// A VOPD pair (GFX11 dual issue): the X operation; the Y one is the instruction's
    /// `vopd_y`, classified with it.
    Dual(VAlu),
    /// A packed (two 16-bit or two 32-bit halves) vector operation (VOP3P).
    Packed(PkOp),
    /// `v_cmp_*` (`x`: the `v_cmpx_*` form, which writes EXEC).
    VCmp {
        /// The predicate.
        cmp: Cmp,
        /// The operand type.
        ty: Ty,
        /// Writes EXEC.
        x: bool,
    },
    /// `v_cmp_class_*`: the class of the first source is in the mask of the second.
    VCmpClass {
        /// The float type.
        ty: Ty,
        /// Writes EXEC.
        x: bool,
    },
    /// `s_load_*` / `s_buffer_load_*`: `dwords` dwords.
    SLoad {
        /// Dwords loaded.
        dwords: u16,
    },
    /// A FLAT, GLOBAL or SCRATCH instruction.
    Vmem(VmemOp),
    /// An LDS instruction.
    Ds(DsOp),
    /// A cache-control operation (`buffer_gl0_inv`, `buffer_gl1_inv`, `buffer_wbl2`,
    /// `buffer_inv`, `buffer_invl2`, `buffer_wbinvl1*`): the emulator's memory is coherent, so it only counts.
    CacheControl,
}

/// The mnemonic the semantics are keyed on: the GFX11 name, or gfx942's where GFX11 lacks
/// the operation, or gfx90a's where both lack it.
pub(crate) fn mnemonic(opcode: Opcode) -> &'static str {
    [Family::Gfx11, Family::Gfx9, Family::Gfx90a]
        .into_iter()
        .map(|f| opcode.name(f))
        .find(|n| !n.is_empty())
        .unwrap_or("")
}

/// What `opcode` does, or None when the emulator does not implement it.
pub(crate) fn classify(opcode: Opcode) -> Option<Op> {
    classify_name(mnemonic(opcode))
}

pub(crate) fn classify_name(name: &str) -> Option<Op> {
    if let Some(op) = control(name).or_else(|| mem::classify(name)) {
        return Some(op);
    }
    if let Some(rest) = name.strip_prefix("v_cmpx_") {
        return vector_compare(rest, true);
    }
    if let Some(rest) = name.strip_prefix("v_cmp_") {
        return vector_compare(rest, false);
    }
    if let Some(rest) = name.strip_prefix("s_cmpk_") {
        return compare(rest).map(|(cmp, ty)| Op::SCmpk(cmp, ty));
    }
    if let Some(rest) = name.strip_prefix("s_cmp_") {
        return compare(rest).map(|(cmp, ty)| Op::SCmp(cmp, ty));
    }
    if let Some(rest) = name.strip_prefix("s_") {
        return scalar(rest);
    }
    if let Some(rest) = name.strip_prefix("v_dual_") {
        return VAlu::parse(rest).map(Op::Dual);
    }
    let rest = name.strip_prefix("v_")?;
    if let Some(pk) = PkOp::parse(rest) {
        return Some(Op::Packed(pk));
    }
    VAlu::parse(rest).map(Op::VAlu)
}

fn compare(rest: &str) -> Option<(Cmp, Ty)> {
    let (cmp, ty) = rest.rsplit_once('_')?;
    Some((Cmp::parse(cmp)?, Ty::parse(ty)?))
}

fn vector_compare(rest: &str, x: bool) -> Option<Op> {
    if let Some(ty) = rest.strip_prefix("class_") {
        let ty = Ty::parse(ty).filter(|t| t.is_float())?;
        return Some(Op::VCmpClass { ty, x });
    }
    compare(rest).map(|(cmp, ty)| Op::VCmp { cmp, ty, x })
}

fn control(name: &str) -> Option<Op> {
    use crate::waitcnt_check::Counter;
    Some(match name {
        "s_nop" => Op::Nop,
        "s_endpgm" => Op::Endpgm,
        "s_branch" => Op::Branch,
        "s_cbranch_scc0" => Op::CBranch(Cond::Scc0),
        "s_cbranch_scc1" => Op::CBranch(Cond::Scc1),
        "s_cbranch_vccz" => Op::CBranch(Cond::Vccz),
        "s_cbranch_vccnz" => Op::CBranch(Cond::Vccnz),
        "s_cbranch_execz" => Op::CBranch(Cond::Execz),
        "s_cbranch_execnz" => Op::CBranch(Cond::Execnz),
        "s_barrier" => Op::Barrier,
        "s_waitcnt" => Op::Waitcnt,
        "s_waitcnt_vscnt" => Op::WaitcntOne(Counter::Vs),
        "s_waitcnt_vmcnt" => Op::WaitcntOne(Counter::Vm),
        "s_waitcnt_lgkmcnt" => Op::WaitcntOne(Counter::Lgkm),
        "s_waitcnt_expcnt" => Op::WaitcntOne(Counter::Exp),
        "s_waitcnt_depctr" => Op::Depctr,
        "s_delay_alu" => Op::DelayAlu,
        "s_clause" => Op::Clause,
        "s_set_inst_prefetch_distance"
        | "s_setprio"
        | "s_sleep"
        | "s_icache_inv"
        | "s_dcache_inv"
        | "s_dcache_wb"
        | "s_ttracedata"
        | "s_nop_stub" => Op::Hint,
        "s_sendmsg" => Op::Sendmsg,
        "s_code_end" => Op::CodeEnd,
        "s_getpc_b64" => Op::Getpc,
        "s_setpc_b64" => Op::Setpc,
        "v_readfirstlane_b32" => Op::ReadFirstLane,
        "v_readlane_b32" => Op::ReadLane,
        "v_writelane_b32" => Op::WriteLane,
        "v_accvgpr_write_b32" | "v_accvgpr_read_b32" | "v_accvgpr_mov_b32" => Op::AccMove,
        "v_permlane64_b32" => Op::Permlane64,
        "v_permlanex16_b32" => Op::Permlanex16,
        "v_mbcnt_lo_u32_b32" => Op::Mbcnt { hi: false },
        "v_mbcnt_hi_u32_b32" => Op::Mbcnt { hi: true },
        "v_nop" => Op::VNop,
        "v_swap_b32" => Op::Swap,
        "buffer_gl0_inv" | "buffer_gl1_inv" | "buffer_wbl2" | "buffer_inv" | "buffer_invl2" | "buffer_wbinvl1"
        | "buffer_wbinvl1_vol" => Op::CacheControl,
        _ => return None,
    })
}

/// `s_*` without the prefix: SOP1, SOP2 and SOPK arithmetic.
fn scalar(rest: &str) -> Option<Op> {
    if let Some(bit) = rest.strip_suffix("_saveexec_b32").or_else(|| rest.strip_suffix("_saveexec_b64")) {
        return Bit::parse(bit).map(Op::Saveexec);
    }
    if let Some(rest) = rest.strip_prefix("bitcmp") {
        let (value, ty) = rest.split_once('_')?;
        let dwords = if ty == "b64" { 2 } else { 1 };
        return match value {
            "0" => Some(Op::SBitcmp { one: false, dwords }),
            "1" => Some(Op::SBitcmp { one: true, dwords }),
            _ => None,
        };
    }
    let (base, ty) = rest.rsplit_once('_')?;
    // The result size: some operations read 64 bits and write 32 (bcnt, ff1, flbit).
    let dwords = match (base, ty) {
        ("bcnt0_i32" | "bcnt1_i32" | "ff1_i32" | "flbit_i32" | "ctz_i32" | "clz_i32" | "cls_i32", "b64" | "u64") => 2,
        ("cls_i32", "i64") | ("flbit_i32", "i64") => 2,
        (_, "b64" | "u64" | "i64") => 2,
        (_, "b32" | "u32" | "i32" | "i8" | "i16" | "b16") => 1,
        _ => return None,
    };
    let op = match (base, ty) {
        ("mov", "b32" | "b64") => SAlu::Mov,
        ("cmov", "b32" | "b64") => SAlu::Cmov,
        ("movk", "i32") => SAlu::Movk,
        ("cmovk", "i32") => SAlu::Cmovk,
        ("addk", "i32") => SAlu::Addk,
        ("mulk", "i32") => SAlu::Mulk,
        ("not", _) => SAlu::Not,
        ("add", "u32") => SAlu::AddU32,
        ("addc", "u32") => SAlu::AddcU32,
        ("sub", "u32") => SAlu::SubU32,
        ("subb", "u32") => SAlu::SubbU32,
        ("add", "i32") => SAlu::AddI32,
        ("sub", "i32") => SAlu::SubI32,
        ("mul", "i32") => SAlu::MulI32,
        ("mul_hi", "u32") => SAlu::MulHiU32,
        ("mul_hi", "i32") => SAlu::MulHiI32,
        ("lshl", _) => SAlu::Lshl,
        ("lshr", _) => SAlu::Lshr,
        ("ashr", _) => SAlu::Ashr,
        ("lshl1_add", "u32") => SAlu::LshlAdd(1),
        ("lshl2_add", "u32") => SAlu::LshlAdd(2),
        ("lshl3_add", "u32") => SAlu::LshlAdd(3),
        ("lshl4_add", "u32") => SAlu::LshlAdd(4),
        ("bfe", "u32" | "u64") => SAlu::BfeU,
        ("bfe", "i32" | "i64") => SAlu::BfeI,
        ("bfm", "b32" | "b64") => SAlu::Bfm,
        ("min", "u32") => SAlu::MinU,
        ("max", "u32") => SAlu::MaxU,
        ("min", "i32") => SAlu::MinI,
        ("max", "i32") => SAlu::MaxI,
        ("cselect", _) => SAlu::Cselect,
        ("abs", "i32") => SAlu::Abs,
        ("absdiff", "i32") => SAlu::AbsDiff,
        ("sext_i32", "i8") => SAlu::Sext8,
        ("sext_i32", "i16") => SAlu::Sext16,
        ("bcnt0_i32", _) => SAlu::Bcnt0,
        ("bcnt1_i32", _) => SAlu::Bcnt1,
        ("brev", _) => SAlu::Brev,
        ("ff1_i32" | "ctz_i32", _) => SAlu::Ctz,
        ("flbit_i32", "b32" | "b64") | ("clz_i32", _) => SAlu::Clz,
        ("flbit_i32", _) | ("cls_i32", _) => SAlu::Cls,
        ("bitset0", _) => SAlu::Bitset0,
        ("bitset1", _) => SAlu::Bitset1,
        ("pack_ll_b32", "b16") => SAlu::PackLl,
        ("pack_lh_b32", "b16") => SAlu::PackLh,
        ("pack_hh_b32", "b16") => SAlu::PackHh,
        (bit, "b32" | "b64") => SAlu::Bit(Bit::parse(bit)?),
        _ => return None,
    };
    Some(Op::SAlu { op, dwords })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_into_operations() {
        assert_eq!(classify_name("v_cmpx_gt_u32"), Some(Op::VCmp { cmp: Cmp::Gt, ty: Ty::U32, x: true }));
        assert_eq!(classify_name("v_cmp_lg_f32"), Some(Op::VCmp { cmp: Cmp::Ne, ty: Ty::F32, x: false }));
        assert_eq!(classify_name("v_cmp_class_f64"), Some(Op::VCmpClass { ty: Ty::F64, x: false }));
        assert_eq!(classify_name("s_cmp_lg_u64"), Some(Op::SCmp(Cmp::Ne, Ty::U64)));
        assert_eq!(classify_name("s_andn2_saveexec_b64"), Some(Op::Saveexec(Bit::AndNot1)));
        assert_eq!(classify_name("s_and_not1_b32"), Some(Op::SAlu { op: SAlu::Bit(Bit::AndNot1), dwords: 1 }));
        assert_eq!(classify_name("s_bcnt1_i32_b64"), Some(Op::SAlu { op: SAlu::Bcnt1, dwords: 2 }));
        assert_eq!(classify_name("s_waitcnt_depctr"), Some(Op::Depctr));
        assert_eq!(classify_name("v_cmp_gt_q99"), None);
        assert_eq!(classify_name("v_dual_cndmask_b32"), Some(Op::Dual(VAlu::CndmaskB32)));
        assert!(Cmp::Nlt.eval(Ty::F32, f32::NAN.to_bits() as u64, 0));
        assert!(!Cmp::Lt.eval(Ty::I32, 5, (-3i32) as u32 as u64));
        assert!(Cmp::Lt.eval(Ty::F64, (-1.0f64).to_bits(), 0));
        assert!(Cmp::Gt.eval(Ty::F16, 0x3c00, 0x3800));
    }

    /// Every operation clang-19 emits for the OpenCL corpus on gfx1100 and gfx942.
    #[test]
    fn the_corpus_operations_have_semantics() {
        let used = "buffer_gl0_inv ds_add_u32 ds_bpermute_b32 ds_load_b32 ds_store_b32 ds_read_b32 ds_write2_b32
            ds_write_b32 global_atomic_add_u32 global_atomic_cmpswap_b32 global_atomic_add global_atomic_cmpswap
            global_load_b32 global_load_b64 global_load_u16 global_store_b128 global_store_b16 global_store_b32
            global_store_b64 global_load_dword global_load_dwordx2 global_load_ushort global_store_dword
            global_store_dwordx2 global_store_dwordx4 global_store_short scratch_load_b32 scratch_store_b128
            scratch_load_dword scratch_store_dwordx4 s_add_i32 s_add_u32 s_addc_u32 s_and_b32 s_and_b64
            s_and_not1_b32 s_and_not1_b64 s_and_not1_saveexec_b32 s_and_not1_saveexec_b64 s_and_saveexec_b32
            s_and_saveexec_b64 s_andn2_b64 s_andn2_saveexec_b64 s_barrier s_bcnt1_i32_b32 s_bcnt1_i32_b64
            s_branch s_brev_b32 s_cbranch_execnz s_cbranch_execz s_cbranch_scc0 s_cbranch_scc1 s_clause
            s_cmp_eq_u32 s_cmp_ge_u32 s_cmp_lt_u32 s_cselect_b32 s_cselect_b64 s_delay_alu s_endpgm
            s_load_b128 s_load_b256 s_load_b32 s_load_b64 s_load_dword s_load_dwordx2 s_load_dwordx4
            s_load_dwordx8 s_lshl_b32 s_lshl_b64 s_lshr_b32 s_mov_b32 s_mov_b64 s_movk_i32 s_mul_i32 s_nop
            s_or_b32 s_or_b64 s_or_saveexec_b32 s_or_saveexec_b64 s_orn2_b64 s_sendmsg
            s_set_inst_prefetch_distance s_sext_i32_i8 s_sub_i32 s_waitcnt s_waitcnt_depctr s_xor_b32 s_xor_b64
            v_add3_u32 v_add_co_ci_u32 v_add_co_u32 v_add_f16 v_add_f32 v_add_f64 v_add_nc_u32 v_add_lshl_u32
            v_add_u32 v_addc_co_u32 v_and_b32 v_and_or_b32 v_ashrrev_i32 v_bfe_u32 v_cmp_class_f64
            v_cmp_eq_u32 v_cmp_ge_u32 v_cmp_gt_f32 v_cmp_gt_f64 v_cmp_gt_u32 v_cmp_le_u32 v_cmp_lt_i32
            v_cmp_lt_u32 v_cmp_ne_u32 v_cmp_ge_f32 v_cmp_ge_i32 v_cmp_lt_f64 v_cmp_ne_u64 v_cmpx_eq_u32
            v_cmpx_ge_i32 v_cmpx_gt_u32 v_cmpx_le_u32 v_cmpx_lt_i32 v_cmpx_ne_u32 v_cmpx_ne_u64 v_cndmask_b32
            v_cvt_f32_f16 v_cvt_f32_i32 v_cvt_f32_u32 v_cvt_u32_f32 v_div_fixup_f64 v_div_fmas_f64
            v_div_scale_f64 v_fma_f32 v_fma_f64 v_fmac_f64 v_fmamk_f32 v_frexp_exp_i32_f32 v_frexp_mant_f32
            v_ldexp_f32 v_ldexp_f64 v_lshl_add_u32 v_lshl_add_u64 v_lshlrev_b32 v_lshlrev_b64 v_lshrrev_b32
            v_lshrrev_b64 v_mad_u32_u24 v_mad_u64_u32 v_max_i32 v_max_u32 v_mov_b32 v_mul_f16 v_mul_f32
            v_mul_f64 v_mul_hi_u32 v_mul_lo_u32 v_not_b32 v_or_b32 v_rcp_f32 v_rcp_f64 v_rcp_iflag_f32
            v_readfirstlane_b32 v_rsq_f64 v_sqrt_f32 v_sub_co_ci_u32 v_sub_co_u32 v_sub_nc_u32 v_sub_u32
            v_subb_co_u32 v_subbrev_co_u32 v_subrev_co_ci_u32 v_subrev_nc_u32 v_subrev_u32 v_trunc_f32
            v_xad_u32 v_xor_b32";
        let missing: Vec<&str> = used.split_whitespace().filter(|n| classify_name(n).is_none()).collect();
        assert!(missing.is_empty(), "corpus operations without semantics: {missing:?}");
    }

    /// Every mnemonic of isa's tables that the emulator executes maps to one operation, and
    /// the share it covers is reported (the rest are errors naming them when executed).
    #[test]
    fn coverage_of_the_opcode_tables() {
        let real: Vec<Opcode> = Opcode::ALL.iter().copied().filter(|op| !op.is_pseudo()).collect();
        let covered = real.iter().filter(|op| classify(**op).is_some()).count();
        println!("{covered} of {} opcodes of the tables have semantics", real.len());
        assert!(covered * 3 > real.len(), "{covered} of {}", real.len());
    }
}
