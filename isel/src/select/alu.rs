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

use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{BinaryOp, ConvOp, FloatCC, InstData, IntCC, Type, UnaryOp, Value};
use isa::mir::{Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, RegType, Temp};

/// Selects an arithmetic, compare, select, conversion or `ptradd` instruction.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, r: Value) -> Result<(), IselError> {
    let val = match *data {
        InstData::Binary { op, args: [a, b] } => binary(ctx, op, a, b, r)?,
        InstData::Unary { op, arg } => unary(ctx, op, arg, r)?,
        InstData::Fma { args } => {
            if ctx.func.dfg.value_type(r) != Type::F32 {
                return Err(ctx.unsupported("fma of this type"));
            }
            let ops = [ctx.operand(args[0])?, ctx.operand(args[1])?, ctx.operand(args[2])?];
            vector(ctx, Opcode::VFmaF32, &ops, r)
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
fn vector(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand], r: Value) -> Val {
    let v = ctx.temp(RegClass::V1);
    ctx.valu(opcode, &[Def::temp(v)], ops);
    if ctx.div.is_divergent(r) {
        Val::Temp(v)
    } else {
        Val::Temp(ctx.readfirstlane(v))
    }
}

/// A SALU operation with one 32-bit result (and SCC written when `writes_scc`).
fn scalar(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand], writes_scc: bool) -> Temp {
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
    let ty = ctx.func.dfg.value_type(r);
    match ty {
        Type::I1 => return bool_binary(ctx, op, a, b, r),
        Type::I64 => return binary64(ctx, op, a, b, r),
        Type::I32 | Type::F32 => {}
        Type::Ptr(_) if ty.bits() == 32 => {}
        _ => return Err(ctx.unsupported(format!("{op} on {ty}"))),
    }
    if matches!(op, BinaryOp::Udiv | BinaryOp::Urem) && ty == Type::I32 {
        return divide(ctx, op == BinaryOp::Urem, a, b, r);
    }
    if matches!(op, BinaryOp::Sdiv | BinaryOp::Srem) && ty == Type::I32 {
        return sdivide(ctx, op == BinaryOp::Srem, a, b, r);
    }
    if op == BinaryOp::Fdiv && ty == Type::F32 {
        return fdiv32(ctx, a, b, r);
    }
    if matches!(op, BinaryOp::Fmin | BinaryOp::Fmax) && ty == Type::F32 {
        return fminmax32(ctx, op == BinaryOp::Fmax, a, b, r);
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

/// An unsigned 32-bit division or remainder. By a constant: a shift or mask for a power of
/// two, else a multiply by the divisor's magic number (Hacker's Delight, section 10-8). By a
/// variable, as LLVM expands it for AMDGPU: an estimate of 2^32 / y from the f32 reciprocal,
/// one Newton-Raphson step, the quotient's estimate and two corrections. As the reference
/// interpreter defines them, `x / 0` is all ones and `x % 0` is `x` (which the expansion gives).
/// The quotient is computed by the VALU (the SALU has no high multiply) and read back when
/// uniform.
fn divide(ctx: &mut Ctx<'_>, rem: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let x = ctx.operand(a)?;
    if let Val::Const(d) = ctx.vals[b] {
        let d = d as u32;
        match d {
            0 if rem => return ctx.val(a),
            0 => return Ok(Val::Const(u32::MAX as u64)),
            _ if d.is_power_of_two() => {
                let (vop, sop, k) = if rem {
                    (VAndB32, SAndB32, Operand::constant(d - 1))
                } else {
                    (VLshrrevB32, SLshrB32, Operand::constant(d.trailing_zeros()))
                };
                return Ok(if ctx.div.is_divergent(r) {
                    vector(ctx, vop, &[k, x], r)
                } else {
                    Val::Temp(scalar(ctx, sop, &[x, k], true))
                });
            }
            _ => {}
        }
        let (magic, add, shift) = magic_u32(d);
        let hi = v32(ctx, VMulHiU32, &[x, Operand::constant(magic)]);
        let q = if add {
            let diff = v32(ctx, VSubNcU32, &[x, hi]);
            let half = v32(ctx, VLshrrevB32, &[Operand::constant(1), diff]);
            let sum = v32(ctx, VAddNcU32, &[half, hi]);
            v32(ctx, VLshrrevB32, &[Operand::constant(shift - 1), sum])
        } else if shift > 0 {
            v32(ctx, VLshrrevB32, &[Operand::constant(shift), hi])
        } else {
            hi
        };
        if !rem {
            return Ok(vector(ctx, VMovB32, &[q], r));
        }
        let qd = v32(ctx, VMulLoU32, &[q, Operand::constant(d)]);
        return Ok(vector(ctx, VSubNcU32, &[x, qd], r));
    }
    let y = ctx.operand(b)?;
    let q = udivrem_var(ctx, rem, x, y);
    if rem {
        return Ok(vector(ctx, VMovB32, &[q], r));
    }
    Ok(divide_by_zero_fixup(ctx, q, y, r))
}

/// The unsigned quotient (or remainder, when `rem`) of `x / y` for a variable `y`, as LLVM
/// expands it for AMDGPU: an estimate of 2^32 / y from the f32 reciprocal, one Newton-Raphson
/// step, the quotient's estimate and two corrections. The remainder by 0 is `x`; the quotient
/// by 0 is not yet all ones ([`divide_by_zero_fixup`] makes it so).
fn udivrem_var(ctx: &mut Ctx<'_>, rem: bool, x: Operand, y: Operand) -> Operand {
    use Opcode::*;
    let fy = v32(ctx, VCvtF32U32, &[y]);
    let rcp = v32(ctx, VRcpF32, &[fy]);
    // 4294966784.0: just below 2^32, so the estimate never exceeds 2^32 / y.
    let scaled = v32(ctx, VMulF32, &[Operand::constant(0x4f7f_fffe), rcp]);
    let z0 = v32(ctx, VCvtU32F32, &[scaled]);
    let neg_y = v32(ctx, VSubNcU32, &[Operand::constant(0), y]);
    let err = v32(ctx, VMulLoU32, &[neg_y, z0]);
    let fix = v32(ctx, VMulHiU32, &[z0, err]);
    let z = v32(ctx, VAddNcU32, &[z0, fix]);
    let mut q = v32(ctx, VMulHiU32, &[x, z]);
    let qy = v32(ctx, VMulLoU32, &[q, y]);
    let mut rest = v32(ctx, VSubNcU32, &[x, qy]);
    for _ in 0..2 {
        let m = ctx.temp(ctx.lm());
        ctx.valu(VCmpGeU32, &[Def::temp(m)], &[rest, y]);
        if !rem {
            let q1 = v32(ctx, VAddNcU32, &[Operand::constant(1), q]);
            q = v32(ctx, VCndmaskB32, &[q, q1, Operand::temp(m)]);
        }
        let r1 = v32(ctx, VSubNcU32, &[rest, y]);
        rest = v32(ctx, VCndmaskB32, &[rest, r1, Operand::temp(m)]);
    }
    if rem {
        rest
    } else {
        q
    }
}

/// The quotient `q` of a division by `y`, all ones where `y` is 0 (the reference
/// interpreter's `x / 0`, signed or unsigned), as the value `r`.
fn divide_by_zero_fixup(ctx: &mut Ctx<'_>, q: Operand, y: Operand, r: Value) -> Val {
    let zero = ctx.temp(ctx.lm());
    ctx.valu(Opcode::VCmpEqU32, &[Def::temp(zero)], &[Operand::constant(0), y]);
    vector(ctx, Opcode::VCndmaskB32, &[q, Operand::constant(u32::MAX), Operand::temp(zero)], r)
}

/// A signed 32-bit division or remainder (`sdiv`/`srem`): the unsigned expansion of the
/// magnitudes ([`udivrem_var`]), then the sign put back with `(v ^ s) - s` — the quotient's
/// sign is the operands' signs xored, the remainder's is the dividend's. As the reference
/// interpreter defines them (RISC-V): `x / 0` is -1, `x % 0` is `x`, and `MIN / -1` is `MIN`
/// with remainder 0, which the magnitudes give (|MIN| is 2^31 as an unsigned number).
fn sdivide(ctx: &mut Ctx<'_>, rem: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
    let sign = |ctx: &mut Ctx<'_>, v: Operand| v32(ctx, VAshrrevI32, &[Operand::constant(31), v]);
    let apply = |ctx: &mut Ctx<'_>, v: Operand, s: Operand| {
        let flipped = v32(ctx, VXorB32, &[v, s]);
        v32(ctx, VSubNcU32, &[flipped, s])
    };
    let (sx, sy) = (sign(ctx, x), sign(ctx, y));
    let (ax, ay) = (apply(ctx, x, sx), apply(ctx, y, sy));
    let mag = udivrem_var(ctx, rem, ax, ay);
    if rem {
        let v = apply(ctx, mag, sx);
        return Ok(vector(ctx, VMovB32, &[v], r));
    }
    let s = v32(ctx, VXorB32, &[sx, sy]);
    let q = apply(ctx, mag, s);
    Ok(divide_by_zero_fixup(ctx, q, y, r))
}

/// A correctly rounded f32 division `a / b`, as LLVM expands it for AMDGPU with f32 denormals
/// enabled (SIISelLowering's `LowerFDIV32`; what clang-19 emits for OpenCL's `a / b` under
/// `-cl-fp32-correctly-rounded-divide-sqrt`, the kernel descriptor keeping IEEE denormals, so
/// no `s_denorm_mode` switch): both operands scaled by `v_div_scale_f32` into a range where the
/// Newton-Raphson steps cannot overflow or underflow (the numerator's scale writes VCC, which
/// tells `v_div_fmas_f32` whether to scale the result back), the reciprocal `v_rcp_f32`
/// refined by two FMAs, the quotient refined by three, and `v_div_fixup_f32` handling the
/// special cases (zeros, infinities, NaNs) from the original operands.
fn fdiv32(ctx: &mut Ctx<'_>, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
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
    Ok(vector(ctx, VDivFixupF32, &[Operand::temp(fmas), y, x], r))
}

/// A 32-bit VALU result as an operand.
/// An f32 `fmin`/`fmax` (IEEE 754-2008 minNum/maxNum, `-0 < +0`, a NaN losing to a number):
/// `v_min_f32`/`v_max_f32`, which in IEEE mode (the descriptor sets it) order the zeros so but
/// give a signalling NaN input back quieted, so each operand is first canonicalized by
/// `v_max_f32 x, x` (a quiet NaN stays, as LLVM does for `fminnum` in IEEE mode). The operands
/// go in reversed: where both are NaNs the hardware keeps its first and the reference
/// interpreter its second.
fn fminmax32(ctx: &mut Ctx<'_>, max: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    let (x, y) = (ctx.operand(a)?, ctx.operand(b)?);
    let canon = |ctx: &mut Ctx<'_>, v: Operand| match v.constant_value() {
        Some(c) if !f32::from_bits(c).is_nan() => v,
        _ => v32(ctx, Opcode::VMaxF32, &[v, v]),
    };
    let (x, y) = (canon(ctx, x), canon(ctx, y));
    let opcode = if max { Opcode::VMaxF32 } else { Opcode::VMinF32 };
    Ok(vector(ctx, opcode, &[y, x], r))
}

fn v32(ctx: &mut Ctx<'_>, opcode: Opcode, ops: &[Operand]) -> Operand {
    let v = ctx.temp(RegClass::V1);
    ctx.valu(opcode, &[Def::temp(v)], ops);
    Operand::temp(v)
}

/// The magic number, whether the add-and-halve fixup is needed, and the shift, of unsigned
/// 32-bit division by `d` (not 0 or a power of two): Hacker's Delight, 2nd edition, figure
/// 10-2 (`magicu2`).
pub(super) fn magic_u32(d: u32) -> (u32, bool, u32) {
    let mut add = false;
    let nc = u32::MAX - d.wrapping_neg() % d;
    let mut p = 31u32;
    let (mut q1, mut q2) = (0x8000_0000u32 / nc, 0x7fff_ffffu32 / d);
    let (mut r1, mut r2) = (0x8000_0000u32 - q1 * nc, 0x7fff_ffffu32 - q2 * d);
    loop {
        p += 1;
        if r1 >= nc - r1 {
            q1 = q1.wrapping_mul(2).wrapping_add(1);
            r1 = r1.wrapping_mul(2).wrapping_sub(nc);
        } else {
            q1 = q1.wrapping_mul(2);
            r1 = r1.wrapping_mul(2);
        }
        if r2 + 1 >= d - r2 {
            add |= q2 >= 0x7fff_ffff;
            q2 = q2.wrapping_mul(2).wrapping_add(1);
            r2 = r2.wrapping_mul(2).wrapping_add(1).wrapping_sub(d);
        } else {
            add |= q2 >= 0x8000_0000;
            q2 = q2.wrapping_mul(2);
            r2 = r2.wrapping_mul(2).wrapping_add(1);
        }
        let delta = d - 1 - r2;
        if !(p < 64 && (q1 < delta || (q1 == delta && r1 == 0))) {
            break;
        }
    }
    (q2.wrapping_add(1), add, p - 32)
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
        _ => Err(ctx.unsupported(format!("{op} on i64 (no opcode in the table yet)"))),
    }
}

/// A 64-bit shift of `x` by `amount` (a dword; the hardware reads its low 6 bits, the
/// reference interpreter takes it modulo 64): `s_lshl_b64`/`s_lshr_b64`/`s_ashr_i64`, or
/// `v_lshlrev_b64`/`v_lshrrev_b64`/`v_ashrrev_i64` (amount first).
fn shift64(ctx: &mut Ctx<'_>, op: BinaryOp, x: Value, amount: Operand, divergent: bool) -> Result<Val, IselError> {
    use Opcode::*;
    let (salu, valu) = match op {
        BinaryOp::Shl => (SLshlB64, VLshlrevB64),
        BinaryOp::Lshr => (SLshrB64, VLshrrevB64),
        _ => (SAshrI64, VAshrrevI64),
    };
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
    use Opcode::*;
    let ([alo, ahi], [blo, bhi]) = (ctx.halves(a)?, ctx.halves(b)?);
    let lo = v32(ctx, VMulLoU32, &[alo, blo]);
    let carry = v32(ctx, VMulHiU32, &[alo, blo]);
    let cross1 = v32(ctx, VMulLoU32, &[alo, bhi]);
    let cross2 = v32(ctx, VMulLoU32, &[ahi, blo]);
    let sum = v32(ctx, VAddNcU32, &[carry, cross1]);
    let hi = v32(ctx, VAddNcU32, &[sum, cross2]);
    let v = ctx.create_vector(RegClass::V2, &[lo, hi]);
    Ok(Val::Temp(if ctx.div.is_divergent(r) { v } else { ctx.readfirstlane(v) }))
}

/// A 64-bit add (or subtract) of two pairs of dwords: SALU through SCC, or VALU through VCC.
fn add64(ctx: &mut Ctx<'_>, [alo, ahi]: [Operand; 2], [blo, bhi]: [Operand; 2], sub: bool, divergent: bool) -> Temp {
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
        (UnaryOp::Fneg | UnaryOp::Fabs, Type::F32) => {
            let x = ctx.operand(arg)?;
            let (vop, sop, k) = if op == UnaryOp::Fneg {
                (Opcode::VXorB32, Opcode::SXorB32, 0x8000_0000)
            } else {
                (Opcode::VAndB32, Opcode::SAndB32, 0x7fff_ffff)
            };
            Ok(if ctx.div.is_divergent(r) {
                vector(ctx, vop, &[Operand::constant(k), x], r)
            } else {
                Val::Temp(scalar(ctx, sop, &[x, Operand::constant(k)], true))
            })
        }
        _ => Err(ctx.unsupported(format!("{op} on {ty}"))),
    }
}

/// A compare's result from a lane mask `m` of a VALU compare: itself when divergent, else
/// "some active lane is set", as a deferred scalar compare.
fn from_mask(ctx: &Ctx<'_>, m: Temp, r: Value) -> Val {
    if ctx.div.is_divergent(r) {
        return Val::Temp(m);
    }
    let op = if ctx.wave == 64 { Opcode::SCmpLgU64 } else { Opcode::SCmpLgU32 };
    Val::Cmp { op, args: [Operand::temp(m), Operand::constant(0)] }
}

fn icmp(ctx: &mut Ctx<'_>, cc: IntCC, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let ty = ctx.func.dfg.value_type(a);
    if ty.bits() == 64 && matches!(cc, IntCC::Eq | IntCC::Ne) && !ctx.div.is_divergent(r) {
        let op = if cc == IntCC::Eq { SCmpEqU64 } else { SCmpLgU64 };
        let args = [wide_scalar(ctx, a)?, wide_scalar(ctx, b)?];
        return Ok(Val::Cmp { op, args });
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

/// A 64-bit value as a scalar operand: its SGPR pair, or a constant (materialized unless it
/// is an inline constant).
fn wide_scalar(ctx: &mut Ctx<'_>, v: Value) -> Result<Operand, IselError> {
    match ctx.val(v)? {
        Val::Temp(t) => Ok(Operand::temp(t)),
        Val::Const(c) if isa::encoding::inline_field(c as u32, 2).is_some() && c as u32 as i32 as i64 as u64 == c => {
            Ok(Operand::constant(c as u32))
        }
        Val::Const(c) => Ok(Operand::temp(ctx.wide_const(c, RegType::Sgpr))),
        _ => Err(ctx.unsupported("this 64-bit operand")),
    }
}

fn fcmp(ctx: &mut Ctx<'_>, cc: FloatCC, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    if ctx.func.dfg.value_type(a) != Type::F32 {
        return Err(ctx.unsupported("a compare of this float type"));
    }
    let op = match cc {
        FloatCC::Oeq => VCmpEqF32,
        FloatCC::One => VCmpLgF32,
        FloatCC::Olt => VCmpLtF32,
        FloatCC::Ole => VCmpLeF32,
        FloatCC::Ogt => VCmpGtF32,
        FloatCC::Oge => VCmpGeF32,
        FloatCC::Une => VCmpNeqF32,
        _ => return Err(ctx.unsupported(format!("fcmp {cc} (no opcode in the table yet)"))),
    };
    let args = [ctx.operand(a)?, ctx.operand(b)?];
    let m = ctx.temp(ctx.lm());
    ctx.valu(op, &[Def::temp(m)], &args);
    Ok(from_mask(ctx, m, r))
}

fn select_value(ctx: &mut Ctx<'_>, c: Value, t: Value, f: Value, r: Value) -> Result<Val, IselError> {
    let ty = ctx.func.dfg.value_type(r);
    if ty.bits() != 32 {
        return Err(ctx.unsupported(format!("a select of {ty} (only 32-bit values so far)")));
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
        (None, c) => Val::Const(c.unwrap_or(0).into()),
    };
    match (op, from, ty) {
        // Between integers and floats of 32 or 64 bits, the same bits in the same registers.
        (
            ConvOp::Bitcast,
            Type::I32 | Type::F32 | Type::I64 | Type::F64,
            Type::I32 | Type::F32 | Type::I64 | Type::F64,
        ) if from.bits() == ty.bits() => ctx.val(arg),
        (ConvOp::Zext, Type::I1, Type::I32) => Ok(as_val(bool_to_int(ctx, arg, divergent)?)),
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
        _ => Err(ctx.unsupported(format!("{op} from {from} to {ty}"))),
    }
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

#[cfg(test)]
mod tests {
    use super::magic_u32;

    /// The quotient by the magic number, as `divide` computes it.
    fn by_magic(x: u32, d: u32) -> u32 {
        let (m, add, s) = magic_u32(d);
        let hi = ((x as u64 * m as u64) >> 32) as u32;
        if add {
            (((x - hi) >> 1) + hi) >> (s - 1)
        } else {
            hi >> s
        }
    }

    #[test]
    fn magic_numbers_divide_exactly() {
        assert_eq!(magic_u32(3), (0xaaaa_aaab, false, 1));
        assert_eq!(magic_u32(7), (0x2492_4925, true, 3));
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        let divisors = (3..3000u32).chain([641, 65_535, 65_537, 0x7fff_ffff, 0x8000_0001, u32::MAX - 1, u32::MAX]);
        for d in divisors.filter(|d| !d.is_power_of_two()) {
            for x in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1, next(), next(), next(), next()] {
                assert_eq!(by_magic(x, d), x / d, "{x} / {d}");
            }
        }
    }
}
