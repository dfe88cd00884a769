//! What each opcode does, as the executors see it: one [`Op`] per operation, found once per
//! instruction at load time from the opcode's mnemonic (its GFX11 name, or its GFX9 name where
//! GFX11 lacks it).
//!
//! Keying on the mnemonic keeps the meaning of `v_cmp_gt_u32` in one place for every compare
//! (a predicate and a type, parsed from the name) and lets the emulator follow the opcode
//! table as it grows: a new opcode whose mnemonic is listed here runs at once; one that is not
//! maps to no [`Op`] and executing it is [`crate::FaultKind::Unimplemented`], naming it and the
//! PC.

use isa::opcode::{Family, Opcode};

/// An integer or float type of a compare or conversion.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// Signed 32-bit.
    I32,
    /// Unsigned 32-bit.
    U32,
    /// Signed 64-bit.
    I64,
    /// Unsigned 64-bit.
    U64,
    /// IEEE single.
    F32,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "i32" => Ty::I32,
            "u32" => Ty::U32,
            "i64" => Ty::I64,
            "u64" => Ty::U64,
            "f32" => Ty::F32,
            _ => return None,
        })
    }

    /// Dwords of an operand of this type.
    pub(crate) fn dwords(self) -> u16 {
        match self {
            Ty::I64 | Ty::U64 => 2,
            _ => 1,
        }
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
            Ty::U32 => Some((a as u32).cmp(&(b as u32))),
            Ty::I32 => Some((a as i32).cmp(&(b as i32))),
            Ty::U64 => Some(a.cmp(&b)),
            Ty::I64 => Some((a as i64).cmp(&(b as i64))),
            Ty::F32 => f32::from_bits(a as u32).partial_cmp(&f32::from_bits(b as u32)),
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
    fn parse(s: &str) -> Option<Bit> {
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
    /// `s_movk_i32` (sign-extended 16-bit immediate).
    Movk,
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
    /// `s_bfm_b32`.
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
    /// `s_sext_i32_i8`.
    Sext8,
    /// `s_sext_i32_i16`.
    Sext16,
}

/// Vector ALU operations with a computed result (VOP1, VOP2, VOP3), apart from compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VAlu {
    /// `v_mov_b32`.
    Mov,
    /// `v_not_b32`.
    Not,
    /// A bitwise operation.
    Bit(Bit),
    /// `v_or3_b32`.
    Or3,
    /// `v_and_or_b32`: `(a & b) | c`.
    AndOr,
    /// `v_lshl_or_b32`: `(a << b) | c`.
    LshlOr,
    /// `v_add_nc_u32` / GFX9 `v_add_u32` (clamp saturates).
    AddU32,
    /// `v_sub_nc_u32` (clamp saturates).
    SubU32,
    /// `v_subrev_nc_u32`.
    SubrevU32,
    /// `v_add3_u32`.
    Add3U32,
    /// `v_lshl_add_u32`: `(a << b) + c`.
    LshlAddU32,
    /// `v_add_lshl_u32`: `(a + b) << c`.
    AddLshlU32,
    /// `v_xad_u32`: `(a ^ b) + c`.
    XadU32,
    /// `v_add_co_u32` (carry out).
    AddCoU32,
    /// `v_sub_co_u32` (borrow out).
    SubCoU32,
    /// `v_subrev_co_u32`.
    SubrevCoU32,
    /// `v_add_co_ci_u32` (carry in and out).
    AddCoCiU32,
    /// `v_sub_co_ci_u32` (borrow in and out).
    SubCoCiU32,
    /// `v_subrev_co_ci_u32`.
    SubrevCoCiU32,
    /// `v_mul_lo_u32`.
    MulLoU32,
    /// `v_mul_hi_u32`.
    MulHiU32,
    /// `v_mul_hi_i32`.
    MulHiI32,
    /// `v_mul_u32_u24`.
    MulU24,
    /// `v_mul_i32_i24`.
    MulI24,
    /// `v_mad_u64_u32`: 64-bit `a * b + c`, carry out.
    MadU64U32,
    /// `v_mad_i64_i32`.
    MadI64I32,
    /// `v_mad_u32_u24`.
    MadU32U24,
    /// `v_lshlrev_b32`.
    LshlrevB32,
    /// `v_lshrrev_b32`.
    LshrrevB32,
    /// `v_ashrrev_i32`.
    AshrrevI32,
    /// `v_lshlrev_b64`.
    LshlrevB64,
    /// `v_lshrrev_b64`.
    LshrrevB64,
    /// `v_ashrrev_i64`.
    AshrrevI64,
    /// `v_lshl_add_u64` (gfx942): `(a << b[2:0]) + c`, 64-bit.
    LshlAddU64,
    /// `v_bfe_u32`.
    BfeU32,
    /// `v_bfe_i32`.
    BfeI32,
    /// `v_bfi_b32`: `(a & b) | (!a & c)`.
    BfiB32,
    /// `v_alignbit_b32`: `({a, b} >> c[4:0])[31:0]`.
    AlignbitB32,
    /// `v_min_u32`.
    MinU32,
    /// `v_max_u32`.
    MaxU32,
    /// `v_min_i32`.
    MinI32,
    /// `v_max_i32`.
    MaxI32,
    /// `v_cndmask_b32`: `mask[lane] ? b : a`.
    CndmaskB32,
    /// `v_add_f32`.
    AddF32,
    /// `v_sub_f32`.
    SubF32,
    /// `v_subrev_f32`.
    SubrevF32,
    /// `v_mul_f32`.
    MulF32,
    /// `v_fma_f32`.
    FmaF32,
    /// `v_fmac_f32`: `d = a * b + d`, fused.
    FmacF32,
    /// `v_min_f32`.
    MinF32,
    /// `v_max_f32`.
    MaxF32,
    /// `v_rcp_f32` (the hardware's is within 1 ulp; this one is correctly rounded).
    RcpF32,
    /// `v_sqrt_f32` (the hardware's is within 1 ulp; this one is correctly rounded).
    SqrtF32,
    /// `v_cvt_f32_u32`.
    CvtF32U32,
    /// `v_cvt_f32_i32`.
    CvtF32I32,
    /// `v_cvt_u32_f32`.
    CvtU32F32,
    /// `v_cvt_i32_f32`.
    CvtI32F32,
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
    /// `s_waitcnt_vscnt`.
    WaitcntVscnt,
    /// `s_delay_alu` (a scheduling hint; its fields are checked).
    DelayAlu,
    /// `s_clause` (a scheduling hint; its length is checked).
    Clause,
    /// `s_sendmsg`.
    Sendmsg,
    /// `s_code_end` (padding after the code; executing it is an error).
    CodeEnd,
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
    /// `v_readfirstlane_b32`.
    ReadFirstLane,
    /// `v_readlane_b32`: one lane's value (the lane from a scalar source) into an SGPR.
    ReadLane,
    /// `v_writelane_b32`: a scalar value into one lane of a VGPR, whatever EXEC.
    WriteLane,
    /// A vector ALU operation.
    VAlu(VAlu),
    /// `v_cmp_*` (`x`: the `v_cmpx_*` form, which writes EXEC).
    VCmp {
        /// The predicate.
        cmp: Cmp,
        /// The operand type.
        ty: Ty,
        /// Writes EXEC.
        x: bool,
    },
    /// `s_load_*`: `dwords` dwords.
    SLoad {
        /// Dwords loaded.
        dwords: u16,
    },
    /// `global_load_*`.
    GlobalLoad {
        /// Bytes per lane.
        bytes: u8,
        /// Sign-extend a sub-dword value.
        signed: bool,
    },
    /// `global_store_*`.
    GlobalStore {
        /// Bytes per lane.
        bytes: u8,
    },
}

/// The mnemonic the semantics are keyed on: the GFX11 name, or the GFX9 name where GFX11 lacks
/// the operation.
pub(crate) fn mnemonic(opcode: Opcode) -> &'static str {
    let name = opcode.name(Family::Gfx11);
    if name.is_empty() {
        opcode.name(Family::Gfx9)
    } else {
        name
    }
}

/// What `opcode` does, or None when the emulator does not implement it.
pub(crate) fn classify(opcode: Opcode) -> Option<Op> {
    classify_name(mnemonic(opcode))
}

fn classify_name(name: &str) -> Option<Op> {
    if let Some(op) = control(name).or_else(|| memory(name)) {
        return Some(op);
    }
    if let Some(rest) = name.strip_prefix("v_cmpx_") {
        return compare(rest).map(|(cmp, ty)| Op::VCmp { cmp, ty, x: true });
    }
    if let Some(rest) = name.strip_prefix("v_cmp_") {
        return compare(rest).map(|(cmp, ty)| Op::VCmp { cmp, ty, x: false });
    }
    if let Some(rest) = name.strip_prefix("s_cmp_") {
        return compare(rest).map(|(cmp, ty)| Op::SCmp(cmp, ty));
    }
    if let Some(rest) = name.strip_prefix("s_") {
        return scalar(rest);
    }
    name.strip_prefix("v_").and_then(vector).map(Op::VAlu)
}

fn compare(rest: &str) -> Option<(Cmp, Ty)> {
    let (cmp, ty) = rest.rsplit_once('_')?;
    Some((Cmp::parse(cmp)?, Ty::parse(ty)?))
}

fn control(name: &str) -> Option<Op> {
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
        "s_waitcnt_vscnt" => Op::WaitcntVscnt,
        "s_delay_alu" => Op::DelayAlu,
        "s_clause" => Op::Clause,
        "s_sendmsg" => Op::Sendmsg,
        "s_code_end" => Op::CodeEnd,
        "v_readfirstlane_b32" => Op::ReadFirstLane,
        "v_readlane_b32" => Op::ReadLane,
        "v_writelane_b32" => Op::WriteLane,
        _ => return None,
    })
}

fn memory(name: &str) -> Option<Op> {
    Some(match name {
        "s_load_b32" | "s_load_dword" => Op::SLoad { dwords: 1 },
        "s_load_b64" | "s_load_dwordx2" => Op::SLoad { dwords: 2 },
        "s_load_b128" | "s_load_dwordx4" => Op::SLoad { dwords: 4 },
        "s_load_b256" | "s_load_dwordx8" => Op::SLoad { dwords: 8 },
        "s_load_b512" | "s_load_dwordx16" => Op::SLoad { dwords: 16 },
        "global_load_u8" | "global_load_ubyte" => Op::GlobalLoad { bytes: 1, signed: false },
        "global_load_i8" | "global_load_sbyte" => Op::GlobalLoad { bytes: 1, signed: true },
        "global_load_u16" | "global_load_ushort" => Op::GlobalLoad { bytes: 2, signed: false },
        "global_load_i16" | "global_load_sshort" => Op::GlobalLoad { bytes: 2, signed: true },
        "global_load_b32" | "global_load_dword" => Op::GlobalLoad { bytes: 4, signed: false },
        "global_load_b64" | "global_load_dwordx2" => Op::GlobalLoad { bytes: 8, signed: false },
        "global_load_b96" | "global_load_dwordx3" => Op::GlobalLoad { bytes: 12, signed: false },
        "global_load_b128" | "global_load_dwordx4" => Op::GlobalLoad { bytes: 16, signed: false },
        "global_store_b8" | "global_store_byte" => Op::GlobalStore { bytes: 1 },
        "global_store_b16" | "global_store_short" => Op::GlobalStore { bytes: 2 },
        "global_store_b32" | "global_store_dword" => Op::GlobalStore { bytes: 4 },
        "global_store_b64" | "global_store_dwordx2" => Op::GlobalStore { bytes: 8 },
        "global_store_b96" | "global_store_dwordx3" => Op::GlobalStore { bytes: 12 },
        "global_store_b128" | "global_store_dwordx4" => Op::GlobalStore { bytes: 16 },
        _ => return None,
    })
}

/// `s_*` without the prefix: SOP1, SOP2 and SOPK arithmetic.
fn scalar(rest: &str) -> Option<Op> {
    if let Some(bit) = rest.strip_suffix("_saveexec_b32").or_else(|| rest.strip_suffix("_saveexec_b64")) {
        return Bit::parse(bit).map(Op::Saveexec);
    }
    let (base, ty) = rest.rsplit_once('_')?;
    let dwords = match ty {
        "b64" | "u64" | "i64" => 2,
        "b32" | "u32" | "i32" | "i8" | "i16" => 1,
        _ => return None,
    };
    let op = match (base, ty) {
        ("mov", "b32" | "b64") => SAlu::Mov,
        ("movk", "i32") => SAlu::Movk,
        ("not", _) => SAlu::Not,
        ("add", "u32") => SAlu::AddU32,
        ("addc", "u32") => SAlu::AddcU32,
        ("sub", "u32") => SAlu::SubU32,
        ("subb", "u32") => SAlu::SubbU32,
        ("add", "i32") => SAlu::AddI32,
        ("sub", "i32") => SAlu::SubI32,
        ("mul", "i32") => SAlu::MulI32,
        ("mul_hi", "u32") => SAlu::MulHiU32,
        ("lshl", _) => SAlu::Lshl,
        ("lshr", _) => SAlu::Lshr,
        ("ashr", _) => SAlu::Ashr,
        ("lshl1_add", "u32") => SAlu::LshlAdd(1),
        ("lshl2_add", "u32") => SAlu::LshlAdd(2),
        ("lshl3_add", "u32") => SAlu::LshlAdd(3),
        ("lshl4_add", "u32") => SAlu::LshlAdd(4),
        ("bfe", "u32" | "u64") => SAlu::BfeU,
        ("bfe", "i32" | "i64") => SAlu::BfeI,
        ("bfm", "b32") => SAlu::Bfm,
        ("min", "u32") => SAlu::MinU,
        ("max", "u32") => SAlu::MaxU,
        ("min", "i32") => SAlu::MinI,
        ("max", "i32") => SAlu::MaxI,
        ("cselect", _) => SAlu::Cselect,
        ("abs", "i32") => SAlu::Abs,
        ("sext_i32", "i8") => SAlu::Sext8,
        ("sext_i32", "i16") => SAlu::Sext16,
        (bit, "b32" | "b64") => SAlu::Bit(Bit::parse(bit)?),
        _ => return None,
    };
    Some(Op::SAlu { op, dwords })
}

/// `v_*` without the prefix, apart from compares.
fn vector(rest: &str) -> Option<VAlu> {
    use VAlu::*;
    Some(match rest {
        "mov_b32" => Mov,
        "not_b32" => Not,
        "and_b32" => Bit(self::Bit::And),
        "or_b32" => Bit(self::Bit::Or),
        "xor_b32" => Bit(self::Bit::Xor),
        "or3_b32" => Or3,
        "and_or_b32" => AndOr,
        "lshl_or_b32" => LshlOr,
        "add_nc_u32" | "add_u32" => AddU32,
        "sub_nc_u32" | "sub_u32" => SubU32,
        "subrev_nc_u32" | "subrev_u32" => SubrevU32,
        "add3_u32" => Add3U32,
        "lshl_add_u32" => LshlAddU32,
        "add_lshl_u32" => AddLshlU32,
        "xad_u32" => XadU32,
        "add_co_u32" => AddCoU32,
        "sub_co_u32" => SubCoU32,
        "subrev_co_u32" => SubrevCoU32,
        "add_co_ci_u32" | "addc_co_u32" => AddCoCiU32,
        "sub_co_ci_u32" | "subb_co_u32" => SubCoCiU32,
        "subrev_co_ci_u32" | "subbrev_co_u32" => SubrevCoCiU32,
        "mul_lo_u32" => MulLoU32,
        "mul_hi_u32" => MulHiU32,
        "mul_hi_i32" => MulHiI32,
        "mul_u32_u24" => MulU24,
        "mul_i32_i24" => MulI24,
        "mad_u64_u32" => MadU64U32,
        "mad_i64_i32" => MadI64I32,
        "mad_u32_u24" => MadU32U24,
        "lshlrev_b32" => LshlrevB32,
        "lshrrev_b32" => LshrrevB32,
        "ashrrev_i32" => AshrrevI32,
        "lshlrev_b64" => LshlrevB64,
        "lshrrev_b64" => LshrrevB64,
        "ashrrev_i64" => AshrrevI64,
        "lshl_add_u64" => LshlAddU64,
        "bfe_u32" => BfeU32,
        "bfe_i32" => BfeI32,
        "bfi_b32" => BfiB32,
        "alignbit_b32" => AlignbitB32,
        "min_u32" => MinU32,
        "max_u32" => MaxU32,
        "min_i32" => MinI32,
        "max_i32" => MaxI32,
        "cndmask_b32" => CndmaskB32,
        "add_f32" => AddF32,
        "sub_f32" => SubF32,
        "subrev_f32" => SubrevF32,
        "mul_f32" => MulF32,
        "fma_f32" => FmaF32,
        "fmac_f32" => FmacF32,
        "min_f32" => MinF32,
        "max_f32" => MaxF32,
        "rcp_f32" => RcpF32,
        "sqrt_f32" => SqrtF32,
        "cvt_f32_u32" => CvtF32U32,
        "cvt_f32_i32" => CvtF32I32,
        "cvt_u32_f32" => CvtU32F32,
        "cvt_i32_f32" => CvtI32F32,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_of_the_table_has_semantics() {
        let missing: Vec<_> = Opcode::ALL
            .iter()
            .filter(|op| !op.is_pseudo() && classify(**op).is_none())
            .map(|op| mnemonic(*op))
            .collect();
        assert!(missing.is_empty(), "opcodes without semantics: {missing:?}");
    }

    #[test]
    fn compares_are_parsed_from_their_names() {
        assert_eq!(classify_name("v_cmpx_gt_u32"), Some(Op::VCmp { cmp: Cmp::Gt, ty: Ty::U32, x: true }));
        assert_eq!(classify_name("v_cmp_lg_f32"), Some(Op::VCmp { cmp: Cmp::Ne, ty: Ty::F32, x: false }));
        assert_eq!(classify_name("s_cmp_lg_u64"), Some(Op::SCmp(Cmp::Ne, Ty::U64)));
        assert_eq!(classify_name("s_andn2_saveexec_b64"), Some(Op::Saveexec(Bit::AndNot1)));
        assert_eq!(classify_name("s_and_not1_b32"), Some(Op::SAlu { op: SAlu::Bit(Bit::AndNot1), dwords: 1 }));
        assert_eq!(classify_name("v_cmp_gt_q99"), None);
        assert!(Cmp::Nlt.eval(Ty::F32, f32::NAN.to_bits() as u64, 0));
        assert!(!Cmp::Lt.eval(Ty::I32, 5, (-3i32) as u32 as u64));
    }
}
