//! f64 arithmetic and compares, selects of 64-bit values, and the conversions that involve
//! f64 or a 64-bit integer on either side (f16 to and from f64 is `alu`'s, with the other f16
//! conversions).
//!
//! An f64 lives in a register pair: an SGPR pair when uniform, a VGPR pair when divergent.
//! The SALU has no f64 operations, so a uniform f64 result is computed by the VALU from the
//! scalar operands and read back with `v_readfirstlane_b32` per dword, as LLVM and ACO do.
//! The sign operations (`fneg`, `fabs`) are integer operations on the high dword, on
//! whichever unit holds the value, so NaN payloads stay as the reference interpreter keeps
//! them. An f64 constant other than +0.0 is moved into an SGPR pair where it is used (a
//! literal in a 64-bit float source is only its high dword, and GFX9's VOP3 has none).
//!
//! The operations that must be correctly rounded and have no single instruction are LLVM 19's
//! expansions for AMDGPU (what `llc-19 -mcpu=gfx1100` and `-mcpu=gfx942` emit):
//! - division: `v_div_scale_f64` of both operands, `v_rcp_f64` refined by two pairs of FMAs,
//!   the quotient and its residual, `v_div_fmas_f64` (scaled back per the numerator's VCC),
//!   and `v_div_fixup_f64` for zeros, infinities and NaNs;
//! - square root: inputs below 2^-767 scaled up by 2^256 (`v_ldexp_f64`), `v_rsq_f64`
//!   refined into the root and half-reciprocal by Goldschmidt-style FMA steps, two Newton
//!   corrections of the root, the scale undone, and ±0 and +inf passed through
//!   (`v_cmp_class_f64` with mask 0x260);
//! - `round` (ties away from zero): `trunc(x) + copysign(|x - trunc(x)| >= 0.5 ? 1 : 0, x)`;
//! - i64/u64 to f64: `ldexp(f64(hi), 32) + f64(lo)`, one rounding at the add;
//! - u64 to f32: normalized by the leading zeros of the high dword into 32 bits with a sticky
//!   bit, converted, and scaled back by `v_ldexp_f32`; an i64 goes through its magnitude;
//! - f64 to i64/u64: `t = trunc(x)`, `hi = floor(t * 2^-32)`, `lo = fma(hi, -2^32, t)`,
//!   each converted to a dword. LLVM leaves out-of-range inputs undefined; Rust's `as`, which
//!   the kernel language follows, saturates (and gives 0 for a NaN, which the conversions
//!   already do), so the low dword is forced to all ones at or above the top of the range and
//!   to 0 below its bottom (the high dword's conversion saturates by itself).

// The approximate functions (`rsqrt exp2 log2 sin cos`), built on this file's helpers.
#[path = "math64.rs"]
mod math64;

use super::alu::{finish, from_mask, halves_of, scalar, v32, wide_scalar};
use super::divide::{apply_sign64, Pair};
use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{BinaryOp, ConvOp, FloatCC, InstData, Type, UnaryOp, Value};
use isa::mir::{Def, Operand};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};

/// 2^63, -2^63, 2^64, -2^32, 0.5 and 2^-767 as f64 bits.
const TWO_63: u64 = 0x43e0_0000_0000_0000;
const NEG_TWO_63: u64 = 0xc3e0_0000_0000_0000;
const TWO_64: u64 = 0x43f0_0000_0000_0000;
const NEG_TWO_32: u64 = 0xc1f0_0000_0000_0000;
const HALF: u64 = 0x3fe0_0000_0000_0000;
const ONE: u64 = 0x3ff0_0000_0000_0000;
const TWO_NEG_767: u64 = 0x1000_0000_0000_0000;

/// Selects `data` when it is an f64 operation, a select of 64 bits, or a conversion this file
/// owns; `None` otherwise.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, r: Value) -> Result<Option<Val>, IselError> {
    let ty = ctx.func.dfg.value_type(r);
    match *data {
        InstData::Binary { op, args: [a, b] } if ty == Type::F64 => binary(ctx, op, a, b, r).map(Some),
        InstData::Unary { op, arg } if ty == Type::F64 => unary(ctx, op, arg, r).map(Some),
        InstData::Fma { args } if ty == Type::F64 => {
            let ops = [operand(ctx, args[0])?, operand(ctx, args[1])?, operand(ctx, args[2])?];
            let v = v64(ctx, Opcode::VFmaF64, &ops);
            finish(ctx, &[v], r).map(Some)
        }
        InstData::Fcmp { cc, args: [a, b] } if ctx.func.dfg.value_type(a) == Type::F64 => {
            fcmp(ctx, cc, a, b, r).map(Some)
        }
        InstData::Select { args: [c, t, f] } if ty.bits() == 64 => select64(ctx, c, t, f, r).map(Some),
        InstData::Convert { op, ty, arg } => convert(ctx, op, ty, arg, r),
        _ => Ok(None),
    }
}

// ---- Operands and results ----

/// An f64 constant as a source: +0.0 inline, anything else in an SGPR pair.
fn constant(ctx: &mut Ctx<'_>, c: u64) -> Operand {
    if c == 0 {
        return Operand::constant(0);
    }
    Operand::temp(ctx.wide_const(c, RegType::Sgpr))
}

/// An f64 value as a source of a VALU operation.
fn operand(ctx: &mut Ctx<'_>, v: Value) -> Result<Operand, IselError> {
    match ctx.val(v)? {
        Val::Temp(t) => Ok(Operand::temp(t)),
        Val::Const(c) => Ok(constant(ctx, c)),
        _ => Err(ctx.unsupported(format!("{v} as an f64 operand"))),
    }
}

/// A VALU operation with a 64-bit result.
fn v64(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand]) -> Operand {
    let v = ctx.temp(RegClass::V2);
    ctx.valu(opcode, &[Def::temp(v)], ops);
    Operand::temp(v)
}

/// Sets the VOP3 `neg` and `abs` source bits of the instruction just emitted.
fn modifiers(ctx: &mut Ctx<'_>, neg: u8, abs: u8) {
    let block = &mut ctx.mir.blocks[ctx.cur as usize];
    let inst = block.insts.last_mut().expect("an instruction was just emitted");
    inst.fields.neg = neg;
    inst.fields.abs = abs;
    inst.vop3 = true;
}

/// Two dwords as a pair in VGPRs (`divergent`) or SGPRs, constants moved in.
fn pair_of(ctx: &mut Ctx<'_>, parts: Pair, divergent: bool) -> Result<Temp, IselError> {
    let mut regs = [Operand::constant(0); 2];
    for (reg, part) in regs.iter_mut().zip(parts) {
        *reg = match (divergent, part.constant_value()) {
            (true, _) => Operand::temp(ctx.in_vgpr(part, 1)?),
            (false, Some(_)) => {
                let t = ctx.temp(RegClass::S1);
                ctx.emit(isa::mir::Inst::new(Opcode::SMovB32, &[Def::temp(t)], &[part]));
                Operand::temp(t)
            }
            (false, None) => part,
        };
    }
    let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
    Ok(ctx.create_vector(rc, &regs))
}

// ---- Arithmetic ----

fn binary(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let (x, y) = (operand(ctx, a)?, operand(ctx, b)?);
    let v = match op {
        BinaryOp::Fadd => v64(ctx, VAddF64, &[x, y]),
        BinaryOp::Fsub => {
            let v = v64(ctx, VAddF64, &[x, y]);
            modifiers(ctx, 2, 0);
            v
        }
        BinaryOp::Fmul => v64(ctx, VMulF64, &[x, y]),
        BinaryOp::Fdiv => fdiv(ctx, x, y),
        // IEEE minNum/maxNum as the reference interpreter defines them: `v_min_f64` and
        // `v_max_f64` in IEEE mode order -0 below +0 but give a signalling NaN back quieted, so
        // each operand is canonicalized first (`v_max_f64 x, x`), as LLVM does for `fminnum`.
        // Reversed operands: where both are NaNs the hardware keeps its first and the
        // interpreter its second (not compared, but kept the same way as f32).
        BinaryOp::Fmin | BinaryOp::Fmax => {
            let canon = |ctx: &mut Ctx<'_>, v: Value, op: Operand| match ctx.vals[v] {
                Val::Const(c) if !f64::from_bits(c).is_nan() => op,
                _ => v64(ctx, VMaxF64, &[op, op]),
            };
            let (x, y) = (canon(ctx, a, x), canon(ctx, b, y));
            v64(ctx, if op == BinaryOp::Fmax { VMaxF64 } else { VMinF64 }, &[y, x])
        }
        _ => return Err(ctx.unsupported(format!("{op} on f64"))),
    };
    finish(ctx, &[v], r)
}

/// A correctly rounded f64 division `x / y`, as LLVM 19 expands it (see the module comment).
fn fdiv(ctx: &mut Ctx<'_>, x: Operand, y: Operand) -> Operand {
    use Opcode::*;
    let lm = ctx.lm();
    let den = ctx.temp(RegClass::V2);
    let unused = ctx.temp(lm);
    ctx.valu(VDivScaleF64, &[Def::temp(den), Def::temp(unused)], &[y, y, x]);
    let den = Operand::temp(den);
    let mut rcp = v64(ctx, VRcpF64, &[den]);
    let one = constant(ctx, ONE);
    for _ in 0..2 {
        let err = v64(ctx, VFmaF64, &[den, rcp, one]);
        modifiers(ctx, 1, 0);
        rcp = v64(ctx, VFmaF64, &[rcp, err, rcp]);
    }
    // The numerator scaled, its flag in VCC for v_div_fmas_f64 (nothing in between writes VCC).
    let num = ctx.temp(RegClass::V2);
    let flag = ctx.temp(lm);
    ctx.valu(VDivScaleF64, &[Def::temp(num), Def::fixed(flag, PhysReg::VCC)], &[x, y, x]);
    let num = Operand::temp(num);
    let q = v64(ctx, VMulF64, &[num, rcp]);
    let err = v64(ctx, VFmaF64, &[den, q, num]);
    modifiers(ctx, 1, 0);
    let fmas = ctx.temp(RegClass::V2);
    ctx.valu(VDivFmasF64, &[Def::temp(fmas)], &[err, rcp, q, Operand::fixed(flag, PhysReg::VCC)]);
    v64(ctx, VDivFixupF64, &[Operand::temp(fmas), y, x])
}

/// A correctly rounded f64 square root, as LLVM 19 lowers it (see the module comment).
fn sqrt(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    use Opcode::*;
    let k = Operand::constant;
    let tiny = constant(ctx, TWO_NEG_767);
    let small = ctx.temp(ctx.lm());
    ctx.valu(VCmpGtF64, &[Def::temp(small)], &[tiny, x]);
    let small = Operand::temp(small);
    let up = v32(ctx, VCndmaskB32, &[k(0), k(1), small]);
    let up = v32(ctx, VLshlrevB32, &[k(8), up]);
    let xs = v64(ctx, VLdexpF64, &[x, up]);
    let rsq = v64(ctx, VRsqF64, &[xs]);
    let mut g = v64(ctx, VMulF64, &[xs, rsq]);
    let half = constant(ctx, HALF);
    let mut h = v64(ctx, VMulF64, &[rsq, half]);
    let e = v64(ctx, VFmaF64, &[h, g, half]);
    modifiers(ctx, 1, 0);
    g = v64(ctx, VFmaF64, &[g, e, g]);
    h = v64(ctx, VFmaF64, &[h, e, h]);
    for _ in 0..2 {
        let d = v64(ctx, VFmaF64, &[g, g, xs]);
        modifiers(ctx, 1, 0);
        g = v64(ctx, VFmaF64, &[d, h, g]);
    }
    let down = v32(ctx, VCndmaskB32, &[k(0), k(-128i32 as u32), small]);
    let root = v64(ctx, VLdexpF64, &[g, down]);
    // ±0 and +inf are their own roots (class bits 5, 6 and 9).
    let special = ctx.temp(ctx.lm());
    ctx.valu(VCmpClassF64, &[Def::temp(special)], &[xs, k(0x260)]);
    let (root, xs) = (halves_of(ctx, root), halves_of(ctx, xs));
    let parts = [0, 1].map(|i| v32(ctx, VCndmaskB32, &[root[i], xs[i], Operand::temp(special)]));
    Operand::temp(ctx.create_vector(RegClass::V2, &parts))
}

/// `round` (ties away from zero), as LLVM 19 expands it (see the module comment).
fn round(ctx: &mut Ctx<'_>, x: Operand, hi: Operand) -> Operand {
    use Opcode::*;
    let t = v64(ctx, VTruncF64, &[x]);
    let frac = v64(ctx, VAddF64, &[x, t]);
    modifiers(ctx, 2, 0);
    let half = constant(ctx, HALF);
    let away = ctx.temp(ctx.lm());
    ctx.valu(VCmpGeF64, &[Def::temp(away)], &[frac, half]);
    modifiers(ctx, 0, 1);
    let one_hi = v32(ctx, VCndmaskB32, &[Operand::constant(0), Operand::constant(0x3ff0_0000), Operand::temp(away)]);
    let signed = v32(ctx, VBfiB32, &[Operand::constant(0x7fff_ffff), one_hi, hi]);
    let zero = v32(ctx, VMovB32, &[Operand::constant(0)]);
    let offset = Operand::temp(ctx.create_vector(RegClass::V2, &[zero, signed]));
    v64(ctx, VAddF64, &[t, offset])
}

fn unary(ctx: &mut Ctx<'_>, op: UnaryOp, arg: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let divergent = ctx.div.is_divergent(r);
    if let UnaryOp::Fneg | UnaryOp::Fabs = op {
        // The sign bit flipped or cleared in the high dword.
        let [lo, hi] = ctx.halves(arg)?;
        let (vop, sop, k) =
            if op == UnaryOp::Fneg { (VXorB32, SXorB32, 0x8000_0000) } else { (VAndB32, SAndB32, 0x7fff_ffff) };
        let hi = if divergent {
            v32(ctx, vop, &[Operand::constant(k), hi])
        } else {
            Operand::temp(scalar(ctx, sop, &[hi, Operand::constant(k)], true))
        };
        return Ok(Val::Temp(pair_of(ctx, [lo, hi], divergent)?));
    }
    let x = operand(ctx, arg)?;
    let v = match op {
        UnaryOp::Sqrt => sqrt(ctx, x),
        UnaryOp::Floor => v64(ctx, VFloorF64, &[x]),
        UnaryOp::Ceil => v64(ctx, VCeilF64, &[x]),
        UnaryOp::Ftrunc => v64(ctx, VTruncF64, &[x]),
        UnaryOp::Round => {
            let hi = ctx.halves(arg)?[1];
            round(ctx, x, hi)
        }
        UnaryOp::Rsqrt => math64::rsqrt(ctx, x),
        UnaryOp::Exp2 => math64::exp2(ctx, x),
        UnaryOp::Log2 => math64::log2(ctx, x),
        UnaryOp::Sin => math64::sin_cos(ctx, x, false),
        UnaryOp::Cos => math64::sin_cos(ctx, x, true),
        _ => return Err(ctx.unsupported(format!("{op} on f64"))),
    };
    finish(ctx, &[v], r)
}

// ---- Compares and selects ----

fn fcmp(ctx: &mut Ctx<'_>, cc: FloatCC, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    // The unordered predicates are the negated ordered ones (`ult` is "not greater or equal").
    let op = match cc {
        FloatCC::Oeq => VCmpEqF64,
        FloatCC::One => VCmpLgF64,
        FloatCC::Olt => VCmpLtF64,
        FloatCC::Ole => VCmpLeF64,
        FloatCC::Ogt => VCmpGtF64,
        FloatCC::Oge => VCmpGeF64,
        FloatCC::Ord => VCmpOF64,
        FloatCC::Uno => VCmpUF64,
        FloatCC::Ueq => VCmpNlgF64,
        FloatCC::Une => VCmpNeqF64,
        FloatCC::Ult => VCmpNgeF64,
        FloatCC::Ule => VCmpNgtF64,
        FloatCC::Ugt => VCmpNleF64,
        FloatCC::Uge => VCmpNltF64,
    };
    let args = [operand(ctx, a)?, operand(ctx, b)?];
    let m = ctx.temp(ctx.lm());
    ctx.valu(op, &[Def::temp(m)], &args);
    Ok(from_mask(ctx, m, r))
}

/// A select of a 64-bit value: `v_cndmask_b32` per dword when divergent, `s_cselect_b64` on
/// SCC when uniform.
fn select64(ctx: &mut Ctx<'_>, c: Value, t: Value, f: Value, r: Value) -> Result<Val, IselError> {
    let cond = if ctx.div.is_divergent(r) { Val::Temp(ctx.lane_mask_of(c)?) } else { ctx.val(c)? };
    select64_on(ctx, cond, t, f, r)
}

/// [`select64`] on a condition already selected: a lane mask when `r` is divergent, else a
/// uniform boolean.
pub(super) fn select64_on(ctx: &mut Ctx<'_>, cond: Val, t: Value, f: Value, r: Value) -> Result<Val, IselError> {
    if ctx.div.is_divergent(r) {
        let Val::Temp(mask) = cond else { return Err(ctx.unsupported("a select on this condition")) };
        let (x, y) = (ctx.halves(f)?, ctx.halves(t)?);
        let parts = [0, 1].map(|i| v32(ctx, Opcode::VCndmaskB32, &[x[i], y[i], Operand::temp(mask)]));
        return Ok(Val::Temp(ctx.create_vector(RegClass::V2, &parts)));
    }
    let (x, y) = (wide_scalar(ctx, t)?, wide_scalar(ctx, f)?);
    let scc = ctx.scc_of_val(cond)?;
    let s = ctx.temp(RegClass::S2);
    ctx.salu(Opcode::SCselectB64, &[Def::temp(s)], &[x, y, Operand::fixed(scc, PhysReg::SCC)]);
    Ok(Val::Temp(s))
}

// ---- Conversions ----

/// The conversions that involve f64 or a 64-bit integer and a float; `None` for the others.
fn convert(ctx: &mut Ctx<'_>, op: ConvOp, ty: Type, arg: Value, r: Value) -> Result<Option<Val>, IselError> {
    use Opcode::*;
    let from = ctx.func.dfg.value_type(arg);
    let signed = matches!(op, ConvOp::Sitofp | ConvOp::Fptosi);
    let v = match (op, from, ty) {
        (ConvOp::Fpext, Type::F32, Type::F64) => {
            let x = ctx.operand(arg)?;
            v64(ctx, VCvtF64F32, &[x])
        }
        (ConvOp::Fptrunc, Type::F64, Type::F32) => {
            let x = operand(ctx, arg)?;
            v32(ctx, VCvtF32F64, &[x])
        }
        (ConvOp::Sitofp | ConvOp::Uitofp, Type::I32, Type::F64) => {
            let x = ctx.operand(arg)?;
            v64(ctx, if signed { VCvtF64I32 } else { VCvtF64U32 }, &[x])
        }
        // Rust's `as`: truncating, saturating, a NaN giving 0 — what the conversions do.
        (ConvOp::Fptosi | ConvOp::Fptoui, Type::F64, Type::I32) => {
            let x = operand(ctx, arg)?;
            v32(ctx, if signed { VCvtI32F64 } else { VCvtU32F64 }, &[x])
        }
        (ConvOp::Sitofp | ConvOp::Uitofp, Type::I64, Type::F64) => {
            let [lo, hi] = ctx.halves(arg)?;
            let hi = v64(ctx, if signed { VCvtF64I32 } else { VCvtF64U32 }, &[hi]);
            let lo = v64(ctx, VCvtF64U32, &[lo]);
            let hi = v64(ctx, VLdexpF64, &[hi, Operand::constant(32)]);
            v64(ctx, VAddF64, &[hi, lo])
        }
        // To f16 through f32: exact below 2^24, and any larger magnitude overflows f16 to
        // infinity from either side of the f32 rounding.
        (ConvOp::Sitofp | ConvOp::Uitofp, Type::I64, Type::F32 | Type::F16) => {
            let x = ctx.halves(arg)?;
            let f = if signed {
                let s = v32(ctx, VAshrrevI32, &[Operand::constant(31), x[1]]);
                let magnitude = apply_sign64(ctx, x, s);
                let f = u64_to_f32(ctx, magnitude)?;
                let sign = v32(ctx, VAndB32, &[Operand::constant(0x8000_0000), s]);
                v32(ctx, VXorB32, &[f, sign])
            } else {
                u64_to_f32(ctx, x)?
            };
            if ty == Type::F16 {
                v32(ctx, VCvtF16F32, &[f])
            } else {
                f
            }
        }
        (ConvOp::Fptosi | ConvOp::Fptoui, Type::F64 | Type::F32 | Type::F16, Type::I64) => {
            // Widening to f64 is exact.
            let x = match from {
                Type::F64 => operand(ctx, arg)?,
                Type::F32 => {
                    let x = ctx.operand(arg)?;
                    v64(ctx, VCvtF64F32, &[x])
                }
                _ => {
                    let x = ctx.operand(arg)?;
                    let x = v32(ctx, VCvtF32F16, &[x]);
                    v64(ctx, VCvtF64F32, &[x])
                }
            };
            f64_to_int64(ctx, x, signed)
        }
        _ => return Ok(None),
    };
    finish(ctx, &[v], r).map(Some)
}

/// A u64 (as dwords) to f32, correctly rounded: shifted left by the leading zeros of the high
/// dword (at most 32), the low dword's bits folded into a sticky bit of the high one (below
/// its rounding position), converted, and scaled back by `v_ldexp_f32`.
fn u64_to_f32(ctx: &mut Ctx<'_>, x: Pair) -> Result<Operand, IselError> {
    use Opcode::*;
    let k = Operand::constant;
    let clz = if ctx.family == Family::Gfx11 { VClzI32U32 } else { VFfbhU32 };
    let zeros = v32(ctx, clz, &[x[1]]);
    let shift = v32(ctx, VMinU32, &[k(32), zeros]);
    let wide = Operand::temp(pair_of(ctx, x, true)?);
    let normal = v64(ctx, VLshlrevB64, &[shift, wide]);
    let [lo, hi] = halves_of(ctx, normal);
    let sticky = v32(ctx, VMinU32, &[k(1), lo]);
    let bits = v32(ctx, VOrB32, &[hi, sticky]);
    let f = v32(ctx, VCvtF32U32, &[bits]);
    let scale = v32(ctx, VSubNcU32, &[k(32), shift]);
    Ok(v32(ctx, VLdexpF32, &[f, scale]))
}

/// An f64 to i64 or u64, saturating as Rust's `as` (see the module comment).
fn f64_to_int64(ctx: &mut Ctx<'_>, x: Operand, signed: bool) -> Operand {
    use Opcode::*;
    let k = Operand::constant;
    let t = v64(ctx, VTruncF64, &[x]);
    let high = v64(ctx, VLdexpF64, &[t, k(-32i32 as u32)]);
    let high = v64(ctx, VFloorF64, &[high]);
    let neg_two_32 = constant(ctx, NEG_TWO_32);
    let low = v64(ctx, VFmaF64, &[high, neg_two_32, t]);
    let lo = v32(ctx, VCvtU32F64, &[low]);
    let hi = v32(ctx, if signed { VCvtI32F64 } else { VCvtU32F64 }, &[high]);
    let (top, bottom) = if signed { (TWO_63, NEG_TWO_63) } else { (TWO_64, 0) };
    let (top, bottom) = (constant(ctx, top), constant(ctx, bottom));
    let (above, below) = (ctx.temp(ctx.lm()), ctx.temp(ctx.lm()));
    ctx.valu(VCmpGeF64, &[Def::temp(above)], &[x, top]);
    ctx.valu(VCmpLtF64, &[Def::temp(below)], &[x, bottom]);
    let lo = v32(ctx, VCndmaskB32, &[lo, k(u32::MAX), Operand::temp(above)]);
    let lo = v32(ctx, VCndmaskB32, &[lo, k(0), Operand::temp(below)]);
    Operand::temp(ctx.create_vector(RegClass::V2, &[lo, hi]))
}
