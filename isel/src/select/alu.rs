//! Arithmetic, compares, selects, conversions and pointer arithmetic.
//!
//! A uniform result is computed by the SALU into SGPRs where the SALU has the operation; where
//! it has not (float arithmetic before GFX11.5, signed min/max, the high half of a product),
//! the VALU computes it from the scalar operands and `v_readfirstlane_b32` brings it back, as
//! ACO does. A divergent result is computed by the VALU. 64-bit integers live in register
//! pairs: an add or subtract is a low half with carry out and a high half with carry in
//! (`s_add_u32`/`s_addc_u32` through SCC, `v_add_co_u32`/`v_add_co_ci_u32` through VCC); a
//! multiply by a power of two is a shift; bitwise operations work on each half. Compares give
//! a lane mask (`v_cmp_*`) when divergent and a deferred `s_cmp_*` when uniform (a uniform
//! float compare is a VALU compare whose mask is tested with `s_cmp_lg`).

use super::control::{self, Cond};
use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{BinaryOp, ConvOp, FloatCC, InstData, IntCC, Type, UnaryOp, Value};
use isa::mir::{Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// Selects an arithmetic, compare, select, conversion or `ptradd` instruction.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, r: Value) -> Result<(), IselError> {
    if let Some(val) = super::f64::select(ctx, data, r)? {
        ctx.set(r, val);
        return Ok(());
    }
    let val = match *data {
        InstData::Binary { op, args: [a, b] } => binary(ctx, op, a, b, r)?,
        InstData::Unary { op, arg } => unary(ctx, op, arg, r)?,
        InstData::Fma { args } => {
            let opcode = match ctx.func.dfg.value_type(r) {
                Type::F32 => Opcode::VFmaF32,
                Type::F16 => Opcode::VFmaF16,
                _ => return Err(ctx.unsupported("fma of this type")),
            };
            let ops = [ctx.operand(args[0])?, ctx.operand(args[1])?, ctx.operand(args[2])?];
            vector(ctx, opcode, &ops, r)
        }
        InstData::Icmp { cc, args: [a, b] } => icmp(ctx, cc, a, b, r)?,
        InstData::Fcmp { cc, args: [a, b] } => fcmp(ctx, cc, a, b, r)?,
        InstData::Select { args: [c, t, f] } => select_value(ctx, c, t, f, r)?,
        InstData::Convert { op, ty, arg } => convert(ctx, op, ty, arg, r)?,
        InstData::PtrAdd { args: [p, offset] } => ptradd(ctx, p, offset, r)?,
        _ => return Err(ctx.unsupported("this instruction")),
    };
    ctx.set(r, val);
    Ok(())
}

/// A VALU operation with one 32-bit result; brought back to an SGPR when `r` is uniform.
pub(super) fn vector(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand], r: Value) -> Val {
    let v = ctx.temp(RegClass::V1);
    ctx.valu(opcode, &[Def::temp(v)], ops);
    if ctx.div.is_divergent(r) {
        Val::Temp(v)
    } else {
        Val::Temp(ctx.readfirstlane(v))
    }
}

/// VALU results (dwords in VGPRs, or constants) as the value `r`: a VGPR tuple when `r` is
/// divergent, else read back into SGPRs.
pub(super) fn finish(ctx: &mut Ctx<'_>, parts: &[Operand], r: Value) -> Result<Val, IselError> {
    let mut temps: SmallVec<[Operand; 2]> = SmallVec::new();
    for &p in parts {
        temps.push(Operand::temp(ctx.in_vgpr(p, 1)?));
    }
    let v = match temps.as_slice() {
        [one] => one.temp_of().expect("in_vgpr gives a temporary"),
        _ => ctx.create_vector(RegClass::vgpr(temps.len() as u8), &temps),
    };
    Ok(Val::Temp(if ctx.div.is_divergent(r) { v } else { ctx.readfirstlane(v) }))
}

/// The two dwords of a 64-bit temporary (an operand that is one).
pub(super) fn halves_of(ctx: &mut Ctx<'_>, v: Operand) -> [Operand; 2] {
    let parts = ctx.split(v.temp_of().expect("a 64-bit temporary"));
    [Operand::temp(parts[0]), Operand::temp(parts[1])]
}

/// A SALU operation with one 32-bit result (and SCC written when `writes_scc`).
pub(super) fn scalar(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand], writes_scc: bool) -> Temp {
    let s = ctx.temp(RegClass::S1);
    if writes_scc {
        ctx.salu(opcode, &[Def::temp(s), Ctx::scc_clobber()], ops);
    } else {
        ctx.salu(opcode, &[Def::temp(s)], ops);
    }
    s
}

/// The power of two a constant value is, if it is one.
fn log2_const(ctx: &Ctx<'_>, v: Value) -> Option<u32> {
    match ctx.vals[v] {
        Val::Const(c) if c.is_power_of_two() => Some(c.trailing_zeros()),
        _ => None,
    }
}

/// How a 32-bit binary operation is selected: its SALU opcode (and whether that writes SCC),
/// its VALU opcode, and whether the VALU form takes its operands reversed (the `*rev` shifts).
fn ops32(op: BinaryOp) -> (Option<(Opcode, bool)>, Option<Opcode>, bool) {
    use Opcode::*;
    match op {
        BinaryOp::Add => (Some((SAddU32, true)), Some(VAddNcU32), false),
        BinaryOp::Sub => (Some((SSubU32, true)), Some(VSubNcU32), false),
        BinaryOp::Mul => (Some((SMulI32, false)), Some(VMulLoU32), false),
        BinaryOp::UmulHi => (None, Some(VMulHiU32), false),
        BinaryOp::SmulHi => (None, Some(VMulHiI32), false),
        BinaryOp::And => (Some((SAndB32, true)), Some(VAndB32), false),
        BinaryOp::Or => (Some((SOrB32, true)), Some(VOrB32), false),
        BinaryOp::Xor => (Some((SXorB32, true)), Some(VXorB32), false),
        BinaryOp::Shl => (Some((SLshlB32, true)), Some(VLshlrevB32), true),
        BinaryOp::Lshr => (Some((SLshrB32, true)), Some(VLshrrevB32), true),
        BinaryOp::Ashr => (Some((SAshrI32, true)), Some(VAshrrevI32), true),
        BinaryOp::Umin => (Some((SMinU32, true)), Some(VMinU32), false),
        BinaryOp::Umax => (Some((SMaxU32, true)), Some(VMaxU32), false),
        BinaryOp::Smin => (None, Some(VMinI32), false),
        BinaryOp::Smax => (None, Some(VMaxI32), false),
        BinaryOp::Fadd => (None, Some(VAddF32), false),
        BinaryOp::Fsub => (None, Some(VSubF32), false),
        BinaryOp::Fmul => (None, Some(VMulF32), false),
        _ => (None, None, false),
    }
}

fn binary(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    if let Some(val) = super::divide::select(ctx, op, a, b, r)? {
        return Ok(val);
    }
    let ty = ctx.func.dfg.value_type(r);
    match ty {
        Type::I1 => return bool_binary(ctx, op, a, b, r),
        Type::I64 => return binary64(ctx, op, a, b, r),
        Type::F16 => return binary16(ctx, op, a, b, r),
        Type::I32 | Type::F32 => {}
        Type::Ptr(_) if ty.bits() == 32 => {}
        _ => return Err(ctx.unsupported(format!("{op} on {ty}"))),
    }
    if op == BinaryOp::Fdiv && ty == Type::F32 {
        let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
        let fmas = fdiv32(ctx, x, y);
        return Ok(vector(ctx, Opcode::VDivFixupF32, &[fmas, y, x], r));
    }
    if matches!(op, BinaryOp::Fmin | BinaryOp::Fmax) && ty == Type::F32 {
        return fminmax(ctx, ty, op == BinaryOp::Fmax, a, b, r);
    }
    // A multiply by a power of two is a shift.
    let (op, x, y) = match (op, log2_const(ctx, b), log2_const(ctx, a)) {
        (BinaryOp::Mul, Some(k), _) => (BinaryOp::Shl, ctx.operand(a)?, Operand::constant(k)),
        (BinaryOp::Mul, None, Some(k)) => (BinaryOp::Shl, ctx.operand(b)?, Operand::constant(k)),
        _ => (op, ctx.operand(a)?, ctx.operand(b)?),
    };
    let divergent = ctx.div.is_divergent(r);
    let (salu, valu, reversed) = ops32(op);
    match (divergent, salu, valu) {
        (false, Some((opcode, scc)), _) => Ok(Val::Temp(scalar(ctx, opcode, &[x, y], scc))),
        (_, _, Some(opcode)) => Ok(vector(ctx, opcode, &if reversed { [y, x] } else { [x, y] }, r)),
        _ => Err(ctx.unsupported(format!("{op} on {ty} (no opcode in the table yet)"))),
    }
}

/// f16 arithmetic. An f16 value lives in the low half of a 32-bit register; the upper half is
/// undefined and nothing reads it (every f16 operation, conversion and 2-byte store reads the
/// low half only). On gfx1100 these are the "fake16" forms (`v_add_f16_e32 v0, v0, v1`, with
/// 32-bit register names): what clang-19 emits for gfx1100 and what llvm-mc-19 accepts there,
/// since the true16 forms (`v0.l`) need the real-true16 feature LLVM 19 leaves off. Division is
/// the correctly rounded f32 quotient of the widened operands, rounded to f16: f32 carries more
/// than twice f16's precision plus two bits, so the double rounding is innocuous (LLVM 19
/// instead refines `v_rcp_f32` and finishes with `v_div_fixup_f16`).
fn binary16(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let opcode = match op {
        BinaryOp::Fadd => VAddF16,
        BinaryOp::Fsub => VSubF16,
        BinaryOp::Fmul => VMulF16,
        BinaryOp::Fmin | BinaryOp::Fmax => return fminmax(ctx, Type::F16, op == BinaryOp::Fmax, a, b, r),
        BinaryOp::Fdiv => {
            let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
            let (x, y) = (v32(ctx, VCvtF32F16, &[x]), v32(ctx, VCvtF32F16, &[y]));
            let fmas = fdiv32(ctx, x, y);
            let q = v32(ctx, VDivFixupF32, &[fmas, y, x]);
            return Ok(vector(ctx, VCvtF16F32, &[q], r));
        }
        _ => return Err(ctx.unsupported(format!("{op} on f16"))),
    };
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
    Ok(vector(ctx, opcode, &[x, y], r))
}

/// A correctly rounded f32 division `x / y`, as LLVM expands it for AMDGPU with f32 denormals
/// enabled (SIISelLowering's `LowerFDIV32`; what clang-19 emits for OpenCL's `a / b` under
/// `-cl-fp32-correctly-rounded-divide-sqrt`, the kernel descriptor keeping IEEE denormals, so
/// no `s_denorm_mode` switch): both operands scaled by `v_div_scale_f32` into a range where the
/// Newton-Raphson steps cannot overflow or underflow (the numerator's scale writes VCC, which
/// tells `v_div_fmas_f32` whether to scale the result back), the reciprocal `v_rcp_f32`
/// refined by two FMAs, the quotient refined by three, and `v_div_fixup_f32` handling the
/// special cases (zeros, infinities, NaNs) from the original operands. Gives the result of
/// `v_div_fmas_f32`; the caller applies `v_div_fixup_f32 fmas, y, x`.
fn fdiv32(ctx: &mut Ctx<'_>, x: Operand, y: Operand) -> Operand {
    use Opcode::*;
    let lm = ctx.lm();
    // Denominator scaled: div_scale(b, b, a); its flag is not needed.
    let den = ctx.temp(RegClass::V1);
    let unused = ctx.temp(lm);
    ctx.valu(VDivScaleF32, &[Def::temp(den), Def::temp(unused)], &[y, y, x]);
    // Numerator scaled: div_scale(a, b, a), its flag in VCC for v_div_fmas_f32.
    let num = ctx.temp(RegClass::V1);
    let flag = ctx.temp(lm);
    ctx.valu(VDivScaleF32, &[Def::temp(num), Def::fixed(flag, PhysReg::VCC)], &[x, y, x]);
    let (den, num) = (Operand::temp(den), Operand::temp(num));
    let rcp = v32(ctx, VRcpF32, &[den]);
    // fma(-den, p, q): the negation is the first source's neg modifier.
    let neg_fma = |ctx: &mut Ctx<'_>, p: Operand, q: Operand| {
        let t = v32(ctx, VFmaF32, &[den, p, q]);
        let block = &mut ctx.mir.blocks[ctx.cur as usize];
        block.insts.last_mut().expect("v32 emitted the fma").fields.neg = 1;
        t
    };
    let e0 = neg_fma(ctx, rcp, Operand::constant(1.0f32.to_bits()));
    let rcp1 = v32(ctx, VFmaF32, &[e0, rcp, rcp]);
    let q0 = v32(ctx, VMulF32, &[num, rcp1]);
    let e1 = neg_fma(ctx, q0, num);
    let q1 = v32(ctx, VFmaF32, &[e1, rcp1, q0]);
    let e2 = neg_fma(ctx, q1, num);
    let fmas = ctx.temp(RegClass::V1);
    ctx.valu(VDivFmasF32, &[Def::temp(fmas)], &[e2, rcp1, q1, Operand::fixed(flag, PhysReg::VCC)]);
    Operand::temp(fmas)
}

/// An f32 or f16 `fmin`/`fmax` (IEEE 754-2008 minNum/maxNum, `-0 < +0`, a NaN losing to a
/// number): `v_min_f32`/`v_max_f32` (`_f16`), which in IEEE mode (the descriptor sets it) order the zeros so but
/// give a signalling NaN input back quieted, so each operand is first canonicalized by
/// `v_max_f32 x, x` (a quiet NaN stays, as LLVM does for `fminnum` in IEEE mode). The operands
/// go in reversed: where both are NaNs the hardware keeps its first and the reference
/// interpreter its second.
fn fminmax(ctx: &mut Ctx<'_>, ty: Type, max: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
    let (vmax, vmin, is_nan): (_, _, fn(u32) -> bool) = if ty == Type::F16 {
        (Opcode::VMaxF16, Opcode::VMinF16, |c| c & 0x7c00 == 0x7c00 && c & 0x3ff != 0)
    } else {
        (Opcode::VMaxF32, Opcode::VMinF32, |c| f32::from_bits(c).is_nan())
    };
    let canon = |ctx: &mut Ctx<'_>, v: Operand| match v.constant_value() {
        Some(c) if !is_nan(c as u32) => v,
        _ => v32(ctx, vmax, &[v, v]),
    };
    let (x, y) = (canon(ctx, x), canon(ctx, y));
    Ok(vector(ctx, if max { vmax } else { vmin }, &[y, x], r))
}

/// A 32-bit VALU result as an operand.
pub(super) fn v32(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand]) -> Operand {
    let v = ctx.temp(RegClass::V1);
    ctx.valu(opcode, &[Def::temp(v)], ops);
    Operand::temp(v)
}

/// `and`/`or`/`xor` of booleans: of lane masks when divergent, of 0/1 SGPRs when uniform.
fn bool_binary(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    let (op32, op64) = match op {
        BinaryOp::And => (Opcode::SAndB32, Opcode::SAndB64),
        BinaryOp::Or => (Opcode::SOrB32, Opcode::SOrB64),
        BinaryOp::Xor => (Opcode::SXorB32, Opcode::SXorB64),
        _ => return Err(ctx.unsupported(format!("{op} on i1"))),
    };
    if ctx.div.is_divergent(r) {
        let (x, y) = (ctx.lane_mask_of(a)?, ctx.lane_mask_of(b)?);
        let m = ctx.temp(ctx.lm());
        let opcode = if ctx.wave == 64 { op64 } else { op32 };
        ctx.salu(opcode, &[Def::temp(m), Ctx::scc_clobber()], &[Operand::temp(x), Operand::temp(y)]);
        return Ok(Val::Temp(m));
    }
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
    Ok(Val::Temp(scalar(ctx, op32, &[x, y], true)))
}

/// 64-bit integer operations: add and subtract, bitwise operations, and shifts left (or
/// multiplies) by a constant.
fn binary64(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    let divergent = ctx.div.is_divergent(r);
    match op {
        BinaryOp::Add | BinaryOp::Sub => {
            let (x, y) = (ctx.halves(a)?, ctx.halves(b)?);
            Ok(Val::Temp(add64(ctx, x, y, op == BinaryOp::Sub, divergent)))
        }
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
            let (x, y) = (ctx.halves(a)?, ctx.halves(b)?);
            let (salu, valu, _) = ops32(op);
            let parts: Vec<Operand> = (0..2)
                .map(|i| match (divergent, salu, valu) {
                    (false, Some((opcode, scc)), _) => Operand::temp(scalar(ctx, opcode, &[x[i], y[i]], scc)),
                    (_, _, Some(opcode)) => {
                        let v = ctx.temp(RegClass::V1);
                        ctx.valu(opcode, &[Def::temp(v)], &[x[i], y[i]]);
                        Operand::temp(v)
                    }
                    _ => unreachable!("bitwise operations have both forms"),
                })
                .collect();
            let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
            Ok(Val::Temp(ctx.create_vector(rc, &parts)))
        }
        BinaryOp::Mul | BinaryOp::Shl => {
            let shift = match (op, ctx.vals[b], log2_const(ctx, b), log2_const(ctx, a)) {
                (BinaryOp::Shl, Val::Const(c), _, _) => Some((a, (c & 63) as u32)),
                (BinaryOp::Mul, _, Some(k), _) => Some((a, k)),
                (BinaryOp::Mul, _, None, Some(k)) => Some((b, k)),
                _ => None,
            };
            match shift {
                Some((x, k)) => shift64(ctx, BinaryOp::Shl, x, Operand::constant(k), divergent),
                None if op == BinaryOp::Mul => mul64(ctx, a, b, r),
                None => {
                    let amount = ctx.halves(b)?[0];
                    shift64(ctx, op, a, amount, divergent)
                }
            }
        }
        BinaryOp::Lshr | BinaryOp::Ashr => {
            let amount = ctx.halves(b)?[0];
            shift64(ctx, op, a, amount, divergent)
        }
        _ => match super::int64::binary(ctx, op, a, b, r)? {
            Some(val) => Ok(val),
            None => Err(ctx.unsupported(format!("{op} on i64"))),
        },
    }
}

/// A 64-bit shift of `x` by `amount` (a dword; the hardware reads its low 6 bits, the
/// reference interpreter takes it modulo 64): `s_lshl_b64`/`s_lshr_b64`/`s_ashr_i64`, or
/// `v_lshlrev_b64`/`v_lshrrev_b64`/`v_ashrrev_i64` (amount first).
/// The 32-bit value `x` zero-extends, if `x` is `zext.i64` of an `i32`.
fn zext_of_dword(ctx: &Ctx<'_>, x: Value) -> Option<Value> {
    let frontend_ir::ValueDef::Result(inst) = ctx.func.dfg.values[x].def else { return None };
    match ctx.func.dfg.insts[inst] {
        InstData::Convert { op: ConvOp::Zext, arg, .. }
            if ctx.func.dfg.value_type(arg) == Type::I32 && ctx.readable_here(arg) =>
        {
            Some(arg)
        }
        _ => None,
    }
}

fn shift64(ctx: &mut Ctx<'_>, op: BinaryOp, x: Value, amount: Operand, divergent: bool) -> Result<Val, IselError> {
    use Opcode::*;
    let (salu, valu) = match op {
        BinaryOp::Shl => (SLshlB64, VLshlrevB64),
        BinaryOp::Lshr => (SLshrB64, VLshrrevB64),
        _ => (SAshrI64, VAshrrevI64),
    };
    // A zero-extended dword shifted left by k (an address offset, `zext(i) * 4`) is its
    // halves shifted apart: `i << k` and `i >> (32 - k)`, no 64-bit pair to build first.
    if let (BinaryOp::Shl, Some(k @ 1..=31), Some(narrow)) = (op, amount.constant_value(), zext_of_dword(ctx, x)) {
        let k = k as u32;
        let y = ctx.operand(narrow)?;
        let (lo, hi) = if divergent {
            (v32(ctx, VLshlrevB32, &[Operand::constant(k), y]), v32(ctx, VLshrrevB32, &[Operand::constant(32 - k), y]))
        } else {
            (
                Operand::temp(scalar(ctx, SLshlB32, &[y, Operand::constant(k)], true)),
                Operand::temp(scalar(ctx, SLshrB32, &[y, Operand::constant(32 - k)], true)),
            )
        };
        let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
        return Ok(Val::Temp(ctx.create_vector(rc, &[lo, hi])));
    }
    let file = if divergent { RegType::Vgpr } else { RegType::Sgpr };
    let x = match ctx.val(x)? {
        Val::Temp(t) => Operand::temp(t),
        Val::Const(c) => Operand::temp(ctx.wide_const(c, file)),
        _ => return Err(ctx.unsupported("this 64-bit operand")),
    };
    if !divergent {
        let s = ctx.temp(RegClass::S2);
        ctx.salu(salu, &[Def::temp(s), Ctx::scc_clobber()], &[x, amount]);
        return Ok(Val::Temp(s));
    }
    let v = ctx.temp(RegClass::V2);
    ctx.valu(valu, &[Def::temp(v)], &[amount, x]);
    Ok(Val::Temp(v))
}

/// A 64-bit multiply (the low 64 bits of the product), on the VALU as LLVM expands it: the
/// low dword `lo(alo * blo)`, the high dword `hi(alo * blo) + lo(alo * bhi) + lo(ahi * blo)`;
/// read back into SGPRs when uniform (the SALU has no high multiply on gfx11).
fn mul64(ctx: &mut Ctx<'_>, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    let (x, y) = (ctx.halves(a)?, ctx.halves(b)?);
    let product = super::divide::mul_lo64(ctx, x, y);
    let v = ctx.create_vector(RegClass::V2, &product);
    Ok(Val::Temp(if ctx.div.is_divergent(r) { v } else { ctx.readfirstlane(v) }))
}

/// A 64-bit add (or subtract) of two pairs of dwords: SALU through SCC, or VALU through VCC.
pub(super) fn add64(
    ctx: &mut Ctx<'_>,
    [alo, ahi]: [Operand; 2],
    [blo, bhi]: [Operand; 2],
    sub: bool,
    divergent: bool,
) -> Temp {
    if !divergent {
        let (lo_op, hi_op) =
            if sub { (Opcode::SSubU32, Opcode::SSubbU32) } else { (Opcode::SAddU32, Opcode::SAddcU32) };
        let (lo, hi, carry) = (ctx.temp(RegClass::S1), ctx.temp(RegClass::S1), ctx.temp(RegClass::S1));
        ctx.salu(lo_op, &[Def::temp(lo), Def::fixed(carry, PhysReg::SCC)], &[alo, blo]);
        ctx.salu(hi_op, &[Def::temp(hi), Ctx::scc_clobber()], &[ahi, bhi, Operand::fixed(carry, PhysReg::SCC)]);
        return ctx.create_vector(RegClass::S2, &[Operand::temp(lo), Operand::temp(hi)]);
    }
    let (lo_op, hi_op) =
        if sub { (Opcode::VSubCoU32, Opcode::VSubCoCiU32) } else { (Opcode::VAddCoU32, Opcode::VAddCoCiU32) };
    let lm = ctx.lm();
    let (lo, hi, carry) = (ctx.temp(RegClass::V1), ctx.temp(RegClass::V1), ctx.temp(lm));
    ctx.valu(lo_op, &[Def::temp(lo), Def::fixed(carry, PhysReg::VCC)], &[alo, blo]);
    ctx.valu(hi_op, &[Def::temp(hi), Def::phys(PhysReg::VCC, lm)], &[ahi, bhi, Operand::fixed(carry, PhysReg::VCC)]);
    ctx.create_vector(RegClass::V2, &[Operand::temp(lo), Operand::temp(hi)])
}

fn unary(ctx: &mut Ctx<'_>, op: UnaryOp, arg: Value, r: Value) -> Result<Val, IselError> {
    let ty = ctx.func.dfg.value_type(r);
    match (op, ty) {
        // Wrapping: 0 - x.
        (UnaryOp::Neg, Type::I32) => {
            let x = ctx.operand(arg)?;
            Ok(if ctx.div.is_divergent(r) {
                vector(ctx, Opcode::VSubNcU32, &[Operand::constant(0), x], r)
            } else {
                Val::Temp(scalar(ctx, Opcode::SSubU32, &[Operand::constant(0), x], true))
            })
        }
        (_, Type::I64)
            if matches!(
                op,
                UnaryOp::Neg | UnaryOp::Not | UnaryOp::Popcount | UnaryOp::Clz | UnaryOp::Ctz | UnaryOp::Iabs
            ) =>
        {
            super::int64::unary(ctx, op, arg, r).map(|v| v.expect("one of int64's operations"))
        }
        (UnaryOp::Not, Type::I1) if ctx.div.is_divergent(r) => {
            // Only the active lanes: exec & !mask.
            let m = ctx.lane_mask_of(arg)?;
            let opcode = if ctx.wave == 64 { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
            let not = ctx.temp(ctx.lm());
            let exec = ctx.exec();
            ctx.salu(opcode, &[Def::temp(not), Ctx::scc_clobber()], &[exec, Operand::temp(m)]);
            Ok(Val::Temp(not))
        }
        (UnaryOp::Not, Type::I1) => {
            let b = ctx.operand(arg)?;
            Ok(Val::Cmp { op: Opcode::SCmpEqU32, args: [b, Operand::constant(0)] })
        }
        (UnaryOp::Not, Type::I32) => {
            let x = ctx.operand(arg)?;
            Ok(if ctx.div.is_divergent(r) {
                vector(ctx, Opcode::VNotB32, &[x], r)
            } else {
                Val::Temp(scalar(ctx, Opcode::SNotB32, &[x], true))
            })
        }
        // Wrapping, as the reference interpreter defines it (|MIN| is MIN): max(x, 0 - x).
        (UnaryOp::Iabs, Type::I32) => {
            let x = ctx.operand(arg)?;
            let neg = v32(ctx, Opcode::VSubNcU32, &[Operand::constant(0), x]);
            Ok(vector(ctx, Opcode::VMaxI32, &[neg, x], r))
        }
        (UnaryOp::Popcount, Type::I32) => {
            let x = ctx.operand(arg)?;
            Ok(if ctx.div.is_divergent(r) {
                vector(ctx, Opcode::VBcntU32B32, &[x, Operand::constant(0)], r)
            } else {
                Val::Temp(scalar(ctx, Opcode::SBcnt1I32B32, &[x], true))
            })
        }
        // The first set bit from the top (clz) or the bottom (ctz): `v_clz_i32_u32` /
        // `v_ctz_i32_b32` (gfx942: `v_ffbh_u32` / `v_ffbl_b32`), which give -1 for 0, and
        // `v_min_u32` with 32 for the reference interpreter's 32.
        (UnaryOp::Clz | UnaryOp::Ctz, Type::I32) => {
            let x = ctx.operand(arg)?;
            let gfx11 = ctx.family == isa::opcode::Family::Gfx11;
            let opcode = match (op == UnaryOp::Clz, gfx11) {
                (true, true) => Opcode::VClzI32U32,
                (true, false) => Opcode::VFfbhU32,
                (false, true) => Opcode::VCtzI32B32,
                (false, false) => Opcode::VFfblB32,
            };
            let first = v32(ctx, opcode, &[x]);
            Ok(vector(ctx, Opcode::VMinU32, &[Operand::constant(32), first], r))
        }
        // The sign bit flipped or cleared, as the reference interpreter defines them (a NaN's
        // payload kept): an integer xor or and, on whichever unit holds the value.
        (UnaryOp::Fneg | UnaryOp::Fabs, Type::F32 | Type::F16) => {
            let x = ctx.operand(arg)?;
            let sign = if ty == Type::F16 { 0x8000 } else { 0x8000_0000 };
            let (vop, sop, k) = if op == UnaryOp::Fneg {
                (Opcode::VXorB32, Opcode::SXorB32, sign)
            } else {
                (Opcode::VAndB32, Opcode::SAndB32, sign - 1)
            };
            Ok(if ctx.div.is_divergent(r) {
                vector(ctx, vop, &[Operand::constant(k), x], r)
            } else {
                Val::Temp(scalar(ctx, sop, &[x, Operand::constant(k)], true))
            })
        }
        (
            UnaryOp::Sqrt
            | UnaryOp::Rsqrt
            | UnaryOp::Exp2
            | UnaryOp::Log2
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Ftrunc
            | UnaryOp::Round,
            Type::F32 | Type::F16,
        ) => super::math::unary(ctx, op, arg, r),
        _ => Err(ctx.unsupported(format!("{op} on {ty}"))),
    }
}

/// A compare's result from a lane mask `m` of a VALU compare: itself when divergent, else
/// "some active lane is set", as a deferred scalar compare.
pub(super) fn from_mask(ctx: &Ctx<'_>, m: Temp, r: Value) -> Val {
    if ctx.div.is_divergent(r) {
        return Val::Temp(m);
    }
    let op = if ctx.wave == 64 { Opcode::SCmpLgU64 } else { Opcode::SCmpLgU32 };
    Val::Cmp { op, args: [Operand::temp(m), Operand::constant(0)] }
}

pub(super) fn icmp(ctx: &mut Ctx<'_>, cc: IntCC, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let ty = ctx.func.dfg.value_type(a);
    if ty.bits() == 64 && matches!(cc, IntCC::Eq | IntCC::Ne) && !ctx.div.is_divergent(r) {
        let op = if cc == IntCC::Eq { SCmpEqU64 } else { SCmpLgU64 };
        let args = [wide_scalar(ctx, a)?, wide_scalar(ctx, b)?];
        return Ok(Val::Cmp { op, args });
    }
    if ty.bits() == 64 {
        // Ordering compares, and divergent equality, of 64 bits on the VALU.
        let vop = match cc {
            IntCC::Eq => VCmpEqU64,
            IntCC::Ne => VCmpNeU64,
            IntCC::Ult => VCmpLtU64,
            IntCC::Ule => VCmpLeU64,
            IntCC::Ugt => VCmpGtU64,
            IntCC::Uge => VCmpGeU64,
            IntCC::Slt => VCmpLtI64,
            IntCC::Sle => VCmpLeI64,
            IntCC::Sgt => VCmpGtI64,
            IntCC::Sge => VCmpGeI64,
        };
        let args = [wide_scalar(ctx, a)?, wide_scalar(ctx, b)?];
        let m = ctx.temp(ctx.lm());
        ctx.valu(vop, &[Def::temp(m)], &args);
        return Ok(from_mask(ctx, m, r));
    }
    if ty == Type::I1 && matches!(cc, IntCC::Eq | IntCC::Ne) {
        return bool_equal(ctx, cc == IntCC::Eq, a, b, r);
    }
    if ty.bits() != 32 {
        return Err(ctx.unsupported(format!(
            "a {} compare of {ty}",
            if ctx.div.is_divergent(r) { "divergent" } else { "uniform" }
        )));
    }
    // The VALU compare (the builder swaps its operands to put a VGPR second: `ult a, b`
    // becomes `v_cmp_gt_u32 b, a`) and the SALU one.
    let (vop, sop) = match cc {
        IntCC::Eq => (VCmpEqU32, SCmpEqU32),
        IntCC::Ne => (VCmpNeU32, SCmpLgU32),
        IntCC::Ult => (VCmpLtU32, SCmpLtU32),
        IntCC::Ule => (VCmpLeU32, SCmpLeU32),
        IntCC::Ugt => (VCmpGtU32, SCmpGtU32),
        IntCC::Uge => (VCmpGeU32, SCmpGeU32),
        IntCC::Slt => (VCmpLtI32, SCmpLtI32),
        IntCC::Sle => (VCmpLeI32, SCmpLeI32),
        IntCC::Sgt => (VCmpGtI32, SCmpGtI32),
        IntCC::Sge => (VCmpGeI32, SCmpGeI32),
    };
    let args = [ctx.operand(a)?, ctx.operand(b)?];
    if !ctx.div.is_divergent(r) {
        return Ok(Val::Cmp { op: sop, args });
    }
    let m = ctx.temp(ctx.lm());
    ctx.valu(vop, &[Def::temp(m)], &args);
    Ok(Val::Temp(m))
}

/// Equality of two booleans. Divergent: the lanes where the masks differ (`s_xor`), or, for
/// equality, the active lanes where they do not (`exec & !(a ^ b)`, as `!` does). Uniform: a
/// compare of the two 0-or-1 values.
fn bool_equal(ctx: &mut Ctx<'_>, eq: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    if !ctx.div.is_divergent(r) {
        let args = [ctx.operand(a)?, ctx.operand(b)?];
        let op = if eq { Opcode::SCmpEqU32 } else { Opcode::SCmpLgU32 };
        return Ok(Val::Cmp { op, args });
    }
    let (x, y) = (ctx.lane_mask_of(a)?, ctx.lane_mask_of(b)?);
    let wide = ctx.wave == 64;
    let differ = ctx.temp(ctx.lm());
    let xor = if wide { Opcode::SXorB64 } else { Opcode::SXorB32 };
    ctx.salu(xor, &[Def::temp(differ), Ctx::scc_clobber()], &[Operand::temp(x), Operand::temp(y)]);
    if !eq {
        return Ok(Val::Temp(differ));
    }
    let same = ctx.temp(ctx.lm());
    let andn2 = if wide { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
    let exec = ctx.exec();
    ctx.salu(andn2, &[Def::temp(same), Ctx::scc_clobber()], &[exec, Operand::temp(differ)]);
    Ok(Val::Temp(same))
}

/// A 64-bit value as a scalar operand: its SGPR pair, or a constant (materialized unless it
/// is an inline constant).
pub(super) fn wide_scalar(ctx: &mut Ctx<'_>, v: Value) -> Result<Operand, IselError> {
    match ctx.val(v)? {
        Val::Temp(t) => Ok(Operand::temp(t)),
        Val::Const(c) if crate::hw::is_wide_inline(c) => Ok(Operand::constant64(c)),
        Val::Const(c) => Ok(Operand::temp(ctx.wide_const(c, RegType::Sgpr))),
        _ => Err(ctx.unsupported("this 64-bit operand")),
    }
}

fn fcmp(ctx: &mut Ctx<'_>, cc: FloatCC, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    // The unordered predicates are the negated ordered ones (`ult` is "not greater or equal").
    let (f32_op, f16_op) = match cc {
        FloatCC::Oeq => (VCmpEqF32, VCmpEqF16),
        FloatCC::One => (VCmpLgF32, VCmpLgF16),
        FloatCC::Olt => (VCmpLtF32, VCmpLtF16),
        FloatCC::Ole => (VCmpLeF32, VCmpLeF16),
        FloatCC::Ogt => (VCmpGtF32, VCmpGtF16),
        FloatCC::Oge => (VCmpGeF32, VCmpGeF16),
        FloatCC::Ord => (VCmpOF32, VCmpOF16),
        FloatCC::Uno => (VCmpUF32, VCmpUF16),
        FloatCC::Ueq => (VCmpNlgF32, VCmpNlgF16),
        FloatCC::Une => (VCmpNeqF32, VCmpNeqF16),
        FloatCC::Ult => (VCmpNgeF32, VCmpNgeF16),
        FloatCC::Ule => (VCmpNgtF32, VCmpNgtF16),
        FloatCC::Ugt => (VCmpNleF32, VCmpNleF16),
        FloatCC::Uge => (VCmpNltF32, VCmpNltF16),
    };
    let op = match ctx.func.dfg.value_type(a) {
        Type::F32 => f32_op,
        Type::F16 => f16_op,
        ty => return Err(ctx.unsupported(format!("a compare of {ty}"))),
    };
    let args = [ctx.operand(a)?, ctx.operand(b)?];
    let m = ctx.temp(ctx.lm());
    ctx.valu(op, &[Def::temp(m)], &args);
    Ok(from_mask(ctx, m, r))
}

fn select_value(ctx: &mut Ctx<'_>, c: Value, t: Value, f: Value, r: Value) -> Result<Val, IselError> {
    let ty = ctx.func.dfg.value_type(r);
    // An f16 is selected whole in its 32-bit register; booleans (lane masks when divergent)
    // and 64-bit values the way a branch's arguments are chosen.
    if ty == Type::I1 || !matches!(ty.bits(), 16 | 32) {
        let cond = if ctx.div.is_divergent(r) { Cond::Lanes(ctx.lane_mask_of(c)?) } else { Cond::Scalar(ctx.val(c)?) };
        let param = control::param_kind(ctx, r)?;
        // A lane-mask result chooses between lane masks (a uniform boolean made one).
        let val = |ctx: &mut Ctx<'_>, v: Value| match param {
            control::Param::Mask => Ok(Val::Temp(ctx.lane_mask_of(v)?)),
            _ => ctx.val(v),
        };
        let (t, f) = (val(ctx, t)?, val(ctx, f)?);
        return control::select_val(ctx, cond, t, f, param);
    }
    if ctx.div.is_divergent(r) {
        let mask = ctx.lane_mask_of(c)?;
        let (x, y) = (ctx.operand(f)?, ctx.operand(t)?);
        let v = ctx.temp(RegClass::V1);
        ctx.valu(Opcode::VCndmaskB32, &[Def::temp(v)], &[x, y, Operand::temp(mask)]);
        return Ok(Val::Temp(v));
    }
    let (x, y) = (ctx.operand(t)?, ctx.operand(f)?);
    let scc = ctx.scc_of(c)?;
    let s = ctx.temp(RegClass::S1);
    ctx.salu(Opcode::SCselectB32, &[Def::temp(s)], &[x, y, Operand::fixed(scc, PhysReg::SCC)]);
    Ok(Val::Temp(s))
}

/// A boolean as 0 or 1 in 32 bits.
fn bool_to_int(ctx: &mut Ctx<'_>, arg: Value, divergent: bool) -> Result<Operand, IselError> {
    if divergent {
        let mask = ctx.lane_mask_of(arg)?;
        let v = ctx.temp(RegClass::V1);
        ctx.valu(
            Opcode::VCndmaskB32,
            &[Def::temp(v)],
            &[Operand::constant(0), Operand::constant(1), Operand::temp(mask)],
        );
        return Ok(Operand::temp(v));
    }
    ctx.operand(arg)
}

fn convert(ctx: &mut Ctx<'_>, op: ConvOp, ty: Type, arg: Value, r: Value) -> Result<Val, IselError> {
    let from = ctx.func.dfg.value_type(arg);
    let divergent = ctx.div.is_divergent(r);
    let as_val = |op: Operand| match (op.temp_of(), op.constant_value()) {
        (Some(t), _) => Val::Temp(t),
        (None, c) => Val::Const(c.unwrap_or(0)),
    };
    match (op, from, ty) {
        // Between integers and floats of 32 or 64 bits, the same bits in the same registers.
        (
            ConvOp::Bitcast,
            Type::I32 | Type::F32 | Type::I64 | Type::F64,
            Type::I32 | Type::F32 | Type::I64 | Type::F64,
        ) if from.bits() == ty.bits() => ctx.val(arg),
        (ConvOp::Zext, Type::I1, Type::I32) => Ok(as_val(bool_to_int(ctx, arg, divergent)?)),
        // An i8 or i16 lives in the low bits of a 32-bit register, the bits above undefined
        // (only conversions and stores read it): extending sign-extends or masks; truncating
        // to it keeps the low dword.
        (ConvOp::Sext | ConvOp::Zext, Type::I8 | Type::I16, Type::I32 | Type::I64) => {
            let x = ctx.operand(arg)?;
            let bits = from.bits();
            let wide = match (op == ConvOp::Sext, divergent) {
                (true, false) => {
                    let opcode = if bits == 8 { Opcode::SSextI32I8 } else { Opcode::SSextI32I16 };
                    Operand::temp(scalar(ctx, opcode, &[x], false))
                }
                (true, true) => v32(ctx, Opcode::VBfeI32, &[x, Operand::constant(0), Operand::constant(bits)]),
                (false, false) => {
                    Operand::temp(scalar(ctx, Opcode::SAndB32, &[x, Operand::constant((1 << bits) - 1)], true))
                }
                (false, true) => v32(ctx, Opcode::VAndB32, &[Operand::constant((1 << bits) - 1), x]),
            };
            if ty == Type::I32 {
                return Ok(as_val(wide));
            }
            let hi = match (op == ConvOp::Sext, divergent) {
                (true, false) => Operand::temp(scalar(ctx, Opcode::SAshrI32, &[wide, Operand::constant(31)], true)),
                (true, true) => v32(ctx, Opcode::VAshrrevI32, &[Operand::constant(31), wide]),
                (false, false) => Operand::temp(scalar(ctx, Opcode::SMovB32, &[Operand::constant(0)], false)),
                (false, true) => v32(ctx, Opcode::VMovB32, &[Operand::constant(0)]),
            };
            let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
            Ok(Val::Temp(ctx.create_vector(rc, &[wide, hi])))
        }
        (ConvOp::Itrunc, Type::I32, Type::I8 | Type::I16) => ctx.val(arg),
        (ConvOp::Itrunc, Type::I64, Type::I8 | Type::I16) => Ok(as_val(ctx.halves(arg)?[0])),
        (ConvOp::Zext, Type::I1 | Type::I32, Type::I64) | (ConvOp::Sext, Type::I32, Type::I64) => {
            let lo = if from == Type::I1 { bool_to_int(ctx, arg, divergent)? } else { ctx.operand(arg)? };
            let lo = if divergent { Operand::temp(ctx.in_vgpr(lo, 1)?) } else { lo };
            let hi = match (op == ConvOp::Sext, divergent) {
                (true, false) => scalar(ctx, Opcode::SAshrI32, &[lo, Operand::constant(31)], true),
                (true, true) => {
                    let v = ctx.temp(RegClass::V1);
                    ctx.valu(Opcode::VAshrrevI32, &[Def::temp(v)], &[Operand::constant(31), lo]);
                    v
                }
                (false, _) => {
                    let (rc, mov) =
                        if divergent { (RegClass::V1, Opcode::VMovB32) } else { (RegClass::S1, Opcode::SMovB32) };
                    let t = ctx.temp(rc);
                    ctx.emit(isa::mir::Inst::new(mov, &[Def::temp(t)], &[Operand::constant(0)]));
                    t
                }
            };
            let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
            Ok(Val::Temp(ctx.create_vector(rc, &[lo, Operand::temp(hi)])))
        }
        (ConvOp::Itrunc, Type::I64, Type::I32) => Ok(as_val(ctx.halves(arg)?[0])),
        (ConvOp::Uitofp | ConvOp::Sitofp, Type::I32, Type::F32) => {
            let x = ctx.operand(arg)?;
            let opcode = if op == ConvOp::Uitofp { Opcode::VCvtF32U32 } else { Opcode::VCvtF32I32 };
            Ok(vector(ctx, opcode, &[x], r))
        }
        // Rust's `as`, as the reference interpreter defines it: truncating toward zero,
        // saturating, a NaN giving 0 — what `v_cvt_i32_f32`/`v_cvt_u32_f32` do.
        (ConvOp::Fptosi | ConvOp::Fptoui, Type::F32, Type::I32) => {
            let x = ctx.operand(arg)?;
            let opcode = if op == ConvOp::Fptoui { Opcode::VCvtU32F32 } else { Opcode::VCvtI32F32 };
            Ok(vector(ctx, opcode, &[x], r))
        }
        _ if from == Type::F16 || ty == Type::F16 => convert16(ctx, op, from, ty, arg, r),
        _ => Err(ctx.unsupported(format!("{op} from {from} to {ty}"))),
    }
}

/// A conversion from or to f16, exact or rounded once as the reference interpreter defines it.
/// Widening is exact through f32 (`v_cvt_f32_f16`, then `v_cvt_f64_f32` for f64). Between f16
/// and i32/u32 the way is through f32 too: every f16 is an f32 whose integer conversion
/// saturates as Rust's `as` does, and an integer is exact in f32 below 2^24 while any larger
/// one overflows f16 to infinity from either side of the f32 rounding. Narrowing f64 to f16
/// must round once (f64 to f32 to f16 rounds twice, and wrongly near an f16 midpoint), so the
/// f32 step rounds to odd — the nearest f32, moved one ulp toward zero where it lies beyond
/// the input, with the lowest bit set when inexact — which leaves the f16 rounding correct
/// (f32 holds f16's 11 bits plus two).
fn convert16(ctx: &mut Ctx<'_>, op: ConvOp, from: Type, ty: Type, arg: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let unsupported = |ctx: &Ctx<'_>| Err(ctx.unsupported(format!("{op} from {from} to {ty}")));
    let x = ctx.operand(arg)?;
    match (op, from, ty) {
        (ConvOp::Fpext, Type::F16, Type::F32) => Ok(vector(ctx, VCvtF32F16, &[x], r)),
        (ConvOp::Fpext, Type::F16, Type::F64) => {
            let wide = v32(ctx, VCvtF32F16, &[x]);
            let v = ctx.temp(RegClass::V2);
            ctx.valu(VCvtF64F32, &[Def::temp(v)], &[wide]);
            Ok(Val::Temp(if ctx.div.is_divergent(r) { v } else { ctx.readfirstlane(v) }))
        }
        (ConvOp::Fptrunc, Type::F32, Type::F16) => Ok(vector(ctx, VCvtF16F32, &[x], r)),
        (ConvOp::Fptrunc, Type::F64, Type::F16) => {
            let x = match ctx.val(arg)? {
                Val::Temp(t) => Operand::temp(t),
                Val::Const(c) => Operand::temp(ctx.wide_const(c, RegType::Vgpr)),
                _ => return unsupported(ctx),
            };
            let near = v32(ctx, VCvtF32F64, &[x]);
            let back = ctx.temp(RegClass::V2);
            ctx.valu(VCvtF64F32, &[Def::temp(back)], &[near]);
            let back = Operand::temp(back);
            // Beyond the input in magnitude: |back| > |x| (never for a NaN).
            let beyond = ctx.temp(ctx.lm());
            ctx.valu(VCmpGtF64, &[Def::temp(beyond)], &[back, x]);
            let block = &mut ctx.mir.blocks[ctx.cur as usize];
            let cmp = block.insts.last_mut().expect("the compare was just emitted");
            cmp.fields.abs = 3;
            cmp.vop3 = true;
            let toward_zero = v32(ctx, VAddNcU32, &[Operand::constant(-1i32 as u32), near]);
            let truncated = v32(ctx, VCndmaskB32, &[near, toward_zero, Operand::temp(beyond)]);
            let odd = v32(ctx, VOrB32, &[Operand::constant(1), truncated]);
            // Inexact: the round trip differs (ordered, so a NaN stays as it is).
            let inexact = ctx.temp(ctx.lm());
            ctx.valu(VCmpLgF64, &[Def::temp(inexact)], &[back, x]);
            let f = v32(ctx, VCndmaskB32, &[near, odd, Operand::temp(inexact)]);
            Ok(vector(ctx, VCvtF16F32, &[f], r))
        }
        (ConvOp::Sitofp | ConvOp::Uitofp, Type::I32, Type::F16) => {
            let f = v32(ctx, if op == ConvOp::Sitofp { VCvtF32I32 } else { VCvtF32U32 }, &[x]);
            Ok(vector(ctx, VCvtF16F32, &[f], r))
        }
        (ConvOp::Fptosi | ConvOp::Fptoui, Type::F16, Type::I32) => {
            let f = v32(ctx, VCvtF32F16, &[x]);
            Ok(vector(ctx, if op == ConvOp::Fptosi { VCvtI32F32 } else { VCvtU32F32 }, &[f], r))
        }
        _ => unsupported(ctx),
    }
}

/// `offset` as `zext(index) * scale` (a multiplication or a left shift of a zero-extended
/// `i32` by a constant below 2^32), the shape of an indexed address.
fn scaled_index(ctx: &Ctx<'_>, offset: Value) -> Option<(Value, u32)> {
    let dfg = &ctx.func.dfg;
    let def = |v: Value| match dfg.values[v].def {
        frontend_ir::ValueDef::Result(i) => Some(&dfg.insts[i]),
        _ => None,
    };
    let constant = |v: Value| match def(v)? {
        InstData::IntConst { imm, .. } => Some(*imm),
        _ => None,
    };
    let zext = |v: Value| match def(v)? {
        &InstData::Convert { op: ConvOp::Zext, arg, .. }
            if dfg.value_type(arg) == Type::I32 && ctx.readable_here(arg) =>
        {
            Some(arg)
        }
        _ => None,
    };
    let (index, scale) = match *def(offset)? {
        InstData::Binary { op: BinaryOp::Mul, args: [a, b] } => match (zext(a), zext(b)) {
            (Some(x), _) => (x, constant(b)?),
            (_, Some(x)) => (x, constant(a)?),
            _ => return None,
        },
        InstData::Binary { op: BinaryOp::Shl, args: [a, b] } => (zext(a)?, 1u64.checked_shl(constant(b)? as u32)?),
        _ => return None,
    };
    Some((index, u32::try_from(scale).ok()?))
}

/// `v_mad_u64_u32`: the 64-bit `a * b + c` of dwords `a`, `b` and a 64-bit `c`, in a VGPR pair.
pub(super) fn mad_u64_u32(ctx: &mut Ctx<'_>, a: Operand, b: Operand, c: Operand) -> Temp {
    let (d, carry) = (ctx.temp(RegClass::V2), ctx.temp(ctx.lm()));
    ctx.valu(Opcode::VMadU64U32, &[Def::temp(d), Def::temp(carry)], &[a, b, c]);
    d
}

fn ptradd(ctx: &mut Ctx<'_>, p: Value, offset: Value, r: Value) -> Result<Val, IselError> {
    let ptr_bits = ctx.func.dfg.value_type(p).bits();
    let off_ty = ctx.func.dfg.value_type(offset);
    let divergent = ctx.div.is_divergent(r);
    if ptr_bits == 32 {
        if off_ty != Type::I32 {
            return Err(ctx.unsupported("a 32-bit pointer plus a 64-bit offset"));
        }
        return binary(ctx, BinaryOp::Add, p, offset, r);
    }
    if let (true, Some((index, scale)), Val::Temp(base)) = (divergent, scaled_index(ctx, offset), ctx.val(p)?) {
        // `p + zext(index) * scale` in one multiply-add, exact in 64 bits since both factors
        // are below 2^32 (as LLVM selects addresses).
        let index = ctx.operand(index)?;
        return Ok(Val::Temp(mad_u64_u32(ctx, index, Operand::constant(scale), Operand::temp(base))));
    }
    let y = match (off_ty, ctx.val(offset)?) {
        (Type::I64, _) => ctx.halves(offset)?,
        (_, Val::Const(c)) => {
            let c = c as u32 as i32 as i64 as u64;
            [Operand::constant(c as u32), Operand::constant((c >> 32) as u32)]
        }
        _ => {
            // The i32 offset is signed: sign-extend it first.
            let x = ctx.operand(offset)?;
            let (lo, hi) = if ctx.div.is_divergent(offset) {
                let hi = ctx.temp(RegClass::V1);
                ctx.valu(Opcode::VAshrrevI32, &[Def::temp(hi)], &[Operand::constant(31), x]);
                (x, hi)
            } else {
                (x, scalar(ctx, Opcode::SAshrI32, &[x, Operand::constant(31)], true))
            };
            [lo, Operand::temp(hi)]
        }
    };
    let x = ctx.halves(p)?;
    Ok(Val::Temp(add64(ctx, x, y, false, divergent)))
}
