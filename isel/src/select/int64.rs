//! The 64-bit integer operations that no single instruction does: minimum and maximum (a
//! 64-bit compare, then a select of both halves), the high half of a 64-bit multiply (the
//! unsigned 128-bit product's top, corrected for signs), bit counts (population count, leading
//! and trailing zeros from the 32-bit halves), bitwise not and absolute value. The reference
//! interpreter's definitions apply: `clz(0) = ctz(0) = 64` and `abs(MIN) = MIN`.
//!
//! Where the SALU has the operation on 64 bits (`s_not_b64`, `s_bcnt1_i32_b64`) a uniform
//! value stays scalar; otherwise the VALU computes it and a uniform result is read back, as
//! for the 32-bit high multiply.

use super::alu::{add64, finish, icmp, scalar, v32};
use super::divide::{add_v64, apply_sign64, mul_hi64};
use super::f64::select64_on;
use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{BinaryOp, IntCC, UnaryOp, Value};
use isa::mir::Operand;
use isa::opcode::{Family, Opcode};
use isa::reg::RegClass;

/// Selects a binary operation on 64-bit integers that is one of this module's; `None` for
/// the others.
pub(super) fn binary(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Option<Val>, IselError> {
    let cc = match op {
        BinaryOp::Smin => IntCC::Slt,
        BinaryOp::Smax => IntCC::Sgt,
        BinaryOp::Umin => IntCC::Ult,
        BinaryOp::Umax => IntCC::Ugt,
        BinaryOp::UmulHi | BinaryOp::SmulHi => return mul_hi(ctx, op == BinaryOp::SmulHi, a, b, r).map(Some),
        _ => return Ok(None),
    };
    // The compare's result has the divergence of `r`: both come from `a` and `b` alone.
    let cond = icmp(ctx, cc, a, b, r)?;
    select64_on(ctx, cond, a, b, r).map(Some)
}

/// The high 64 bits of `a * b`. Signed: the unsigned product's, minus `b` when `a` is
/// negative and minus `a` when `b` is (mod 2^64), since a negative `x` reads as `x + 2^64`.
fn mul_hi(ctx: &mut Ctx<'_>, signed: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let (x, y) = (ctx.halves(a)?, ctx.halves(b)?);
    let mut hi = mul_hi64(ctx, x, y);
    if signed {
        for (sign_of, other) in [(x, y), (y, x)] {
            let sign = v32(ctx, VAshrrevI32, &[Operand::constant(31), sign_of[1]]);
            let masked = other.map(|h| v32(ctx, VAndB32, &[sign, h]));
            hi = add_v64(ctx, hi, masked, true);
        }
    }
    finish(ctx, &hi, r)
}

/// Selects a unary operation on 64-bit integers that is one of this module's; `None` for the
/// others.
pub(super) fn unary(ctx: &mut Ctx<'_>, op: UnaryOp, arg: Value, r: Value) -> Result<Option<Val>, IselError> {
    use Opcode::*;
    let divergent = ctx.div.is_divergent(r);
    let zero = Operand::constant(0);
    let val = match op {
        UnaryOp::Not => {
            let x = ctx.halves(arg)?;
            let parts = x.map(|h| match divergent {
                true => v32(ctx, VNotB32, &[h]),
                false => Operand::temp(scalar(ctx, SNotB32, &[h], true)),
            });
            let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
            Val::Temp(ctx.create_vector(rc, &parts))
        }
        UnaryOp::Popcount if !divergent => {
            let x = super::alu::wide_scalar(ctx, arg)?;
            let count = Operand::temp(scalar(ctx, SBcnt1I32B64, &[x], true));
            let high = Operand::temp(scalar(ctx, SMovB32, &[zero], false));
            Val::Temp(ctx.create_vector(RegClass::S2, &[count, high]))
        }
        UnaryOp::Popcount => {
            let [lo, hi] = ctx.halves(arg)?;
            let count = v32(ctx, VBcntU32B32, &[lo, zero]);
            let count = v32(ctx, VBcntU32B32, &[hi, count]);
            finish(ctx, &[count, zero], r)?
        }
        // The first set bit from the top (clz) or bottom (ctz) of the half it counts from
        // first, else 32 plus that of the other half: `min(first(near), min(first(far), 32) +
        // 32)`, where `first` gives all ones for 0 (`v_clz_i32_u32`/`v_ctz_i32_b32`; gfx942:
        // `v_ffbh_u32`/`v_ffbl_b32`).
        UnaryOp::Clz | UnaryOp::Ctz => {
            let [lo, hi] = ctx.halves(arg)?;
            let gfx11 = ctx.family == Family::Gfx11;
            let (first, near, far) = match (op == UnaryOp::Clz, gfx11) {
                (true, true) => (VClzI32U32, hi, lo),
                (true, false) => (VFfbhU32, hi, lo),
                (false, true) => (VCtzI32B32, lo, hi),
                (false, false) => (VFfblB32, lo, hi),
            };
            let far = v32(ctx, first, &[far]);
            let far = v32(ctx, VMinU32, &[Operand::constant(32), far]);
            let far = v32(ctx, VAddNcU32, &[Operand::constant(32), far]);
            let near = v32(ctx, first, &[near]);
            let count = v32(ctx, VMinU32, &[near, far]);
            finish(ctx, &[count, zero], r)?
        }
        // (x ^ s) - s with s the sign spread over the word: x, or 0 - x when negative.
        UnaryOp::Iabs => {
            let x = ctx.halves(arg)?;
            let sign = v32(ctx, VAshrrevI32, &[Operand::constant(31), x[1]]);
            let abs = apply_sign64(ctx, x, sign);
            finish(ctx, &abs, r)?
        }
        UnaryOp::Neg => {
            let x = ctx.halves(arg)?;
            Val::Temp(add64(ctx, [zero; 2], x, true, divergent))
        }
        _ => return Ok(None),
    };
    Ok(Some(val))
}
