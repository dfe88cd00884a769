//! The float math functions of the kernel language on f32 and f16: `sqrt rsqrt exp2 log2 sin
//! cos floor ceil trunc round` (`fma min max abs clamp` are arithmetic, in `alu`).
//!
//! The exact ones are exact: f32 `sqrt` is LLVM 19's correctly rounded expansion for f32
//! denormals kept (`v_sqrt_f32` of the input scaled up when tiny, then the one-ulp neighbours
//! tested with FMAs), `round` is `trunc` plus a copysigned 0 or 1, and the rest are single
//! instructions. The approximate ones use the transcendental unit as LLVM 19 does for gfx1100
//! and gfx942 (`v_rsq`, `v_exp`, `v_log` with the denormal range scaled into the normal one,
//! `v_sin`/`v_cos` of the angle in revolutions); their bounds are kernel-language.md's. f16
//! `rsqrt exp2 log2 sin cos` go through f32 and round once at the end — LLVM uses the f16
//! instructions, but through f32 the f16 result is within an ulp of the true value (an f16
//! `1/(2*pi)` alone costs sin about 2^-12 relatively) and f16 inputs never need the scaling.

use super::alu::{finish, v32, vector};
use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{Type, UnaryOp, Value};
use isa::mir::{Def, Operand};
use isa::opcode::Opcode;
use isa::reg::RegClass;

/// 2^32, 2^-16, 2^24, 2^12, 2^-64 and the other f32 constants of the expansions, as bits.
const TWO_P32: u32 = 0x4f80_0000;
const TWO_M16: u32 = 0x3780_0000;
const TWO_M96: u32 = 0x0f80_0000;
const TWO_M126: u32 = 0x0080_0000;
const TWO_P24: u32 = 0x4b80_0000;
const TWO_P12: u32 = 0x4580_0000;
const TWO_M64: u32 = 0x1f80_0000;
const ONE: u32 = 0x3f80_0000;
const MINUS_126: u32 = 0xc2fc_0000;
const F32_64: u32 = 0x4280_0000;
const F32_32: u32 = 0x4200_0000;
/// 1 / (2 pi) rounded to f32 (an inline constant on gfx9 and later).
const INV_2PI: u32 = 0x3e22_f983;
/// `v_cmp_class` mask of -0, +0 and +inf (the inputs `sqrt` gives back unchanged).
const CLASS_ZERO_OR_INF: u32 = 0x260;

/// Selects the math function `op` of `arg` (f32 or f16) as the value `r`.
pub(super) fn unary(ctx: &mut Ctx<'_>, op: UnaryOp, arg: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let ty = ctx.func.dfg.value_type(r);
    let x = ctx.operand(arg)?;
    let single = |f32_op: Opcode, f16_op: Opcode| if ty == Type::F16 { f16_op } else { f32_op };
    let result = match (op, ty) {
        (UnaryOp::Floor, _) => return Ok(vector(ctx, single(VFloorF32, VFloorF16), &[x], r)),
        (UnaryOp::Ceil, _) => return Ok(vector(ctx, single(VCeilF32, VCeilF16), &[x], r)),
        (UnaryOp::Ftrunc, _) => return Ok(vector(ctx, single(VTruncF32, VTruncF16), &[x], r)),
        (UnaryOp::Round, _) => round(ctx, ty, x),
        (UnaryOp::Sqrt, Type::F32) => sqrt32(ctx, x),
        // LLVM 19 selects `v_sqrt_f16` for a correctly rounded f16 sqrt.
        (UnaryOp::Sqrt, _) => return Ok(vector(ctx, VSqrtF16, &[x], r)),
        (UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos, Type::F32) => {
            transcendental32(ctx, op, x, true)
        }
        (UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos, _) => {
            let wide = v32(ctx, VCvtF32F16, &[x]);
            let v = transcendental32(ctx, op, wide, false);
            return Ok(vector(ctx, VCvtF16F32, &[v], r));
        }
        _ => return Err(ctx.unsupported(format!("{op} on {ty}"))),
    };
    finish(ctx, &[result], r)
}

/// A lane mask of the VALU compare `opcode a, b`.
fn compare(ctx: &mut Ctx<'_>, opcode: Opcode, a: Operand, b: Operand) -> Operand {
    let m = ctx.temp(ctx.lm());
    ctx.valu(opcode, &[Def::temp(m)], &[a, b]);
    Operand::temp(m)
}

/// `mask ? t : f` per lane.
fn pick(ctx: &mut Ctx<'_>, mask: Operand, t: Operand, f: Operand) -> Operand {
    v32(ctx, Opcode::VCndmaskB32, &[f, t, mask])
}

/// `fma(-a, b, c)` in f32 (the negation is the first source's neg modifier).
fn neg_fma(ctx: &mut Ctx<'_>, a: Operand, b: Operand, c: Operand) -> Operand {
    let v = ctx.temp(RegClass::V1);
    ctx.valu(Opcode::VFmaF32, &[Def::temp(v)], &[a, b, c]);
    let block = &mut ctx.mir.blocks[ctx.cur as usize];
    block.insts.last_mut().expect("the fma was just emitted").fields.neg = 1;
    Operand::temp(v)
}

/// The correctly rounded f32 square root with denormals kept, as LLVM 19 expands
/// `llvm.sqrt.f32` for gfx1100 and gfx942 (SIISelLowering's `lowerFSQRTF32`): an input below
/// 2^-96 is scaled by 2^32 (its root by 2^16, undone at the end) so `v_sqrt_f32` sees a normal
/// number; `s = v_sqrt_f32(x)` is within an ulp, so the root is one of `s - 1ulp`, `s`,
/// `s + 1ulp` (the integer neighbours of its bits): the residuals `x - s_dn * s` and
/// `x - s_up * s` by FMA pick it. Zeros and +inf are given back as they are (the residuals of
/// an infinite root are NaN); a negative input or NaN gives `v_sqrt_f32`'s NaN.
fn sqrt32(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    use Opcode::*;
    let tiny = compare(ctx, VCmpGtF32, Operand::constant(TWO_M96), x);
    let scaled = v32(ctx, VMulF32, &[Operand::constant(TWO_P32), x]);
    let x = pick(ctx, tiny, scaled, x);
    let s = v32(ctx, VSqrtF32, &[x]);
    let s_dn = v32(ctx, VAddNcU32, &[Operand::constant(-1i32 as u32), s]);
    let s_up = v32(ctx, VAddNcU32, &[Operand::constant(1), s]);
    let r_dn = neg_fma(ctx, s_dn, s, x);
    let r_up = neg_fma(ctx, s_up, s, x);
    let zero = Operand::constant(0);
    let below = compare(ctx, VCmpGeF32, zero, r_dn);
    let s = pick(ctx, below, s_dn, s);
    let above = compare(ctx, VCmpLtF32, zero, r_up);
    let s = pick(ctx, above, s_up, s);
    let unscaled = v32(ctx, VMulF32, &[Operand::constant(TWO_M16), s]);
    let s = pick(ctx, tiny, unscaled, s);
    let special = compare(ctx, VCmpClassF32, x, Operand::constant(CLASS_ZERO_OR_INF));
    pick(ctx, special, x, s)
}

/// `rsqrt exp2 log2 sin cos` of an f32 on the transcendental unit, as LLVM 19 lowers
/// `llvm.exp2.f32`, `llvm.log2.f32`, `llvm.sin.f32` and `llvm.cos.f32` (and `v_rsq_f32` as its
/// approximate-function `1/sqrt`) when f32 denormals are kept: `v_rsq_f32` and `v_log_f32`
/// flush a denormal input, so one below 2^-126 is scaled up first (by 2^24, the root by 2^12;
/// by 2^32, the logarithm by 32); `v_exp_f32` flushes a denormal result, so an input below
/// -126 is raised by 64 and the result scaled by 2^-64. `v_sin_f32`/`v_cos_f32` take the angle
/// in revolutions. Without `denormals` (an f16 widened, never an f32 denormal, and rounded to
/// f16 afterwards, where f32's denormal results are 0) the scaling is left out.
fn transcendental32(ctx: &mut Ctx<'_>, op: UnaryOp, x: Operand, denormals: bool) -> Operand {
    use Opcode::*;
    let k = Operand::constant;
    match op {
        UnaryOp::Sin | UnaryOp::Cos => {
            let turns = v32(ctx, VMulF32, &[k(INV_2PI), x]);
            v32(ctx, if op == UnaryOp::Sin { VSinF32 } else { VCosF32 }, &[turns])
        }
        _ if !denormals => {
            let opcode = match op {
                UnaryOp::Rsqrt => VRsqF32,
                UnaryOp::Exp2 => VExpF32,
                _ => VLogF32,
            };
            v32(ctx, opcode, &[x])
        }
        UnaryOp::Rsqrt => {
            let tiny = compare(ctx, VCmpGtF32, k(TWO_M126), x);
            let scale = pick(ctx, tiny, k(TWO_P24), k(ONE));
            let xs = v32(ctx, VMulF32, &[scale, x]);
            let root = v32(ctx, VRsqF32, &[xs]);
            let unscale = pick(ctx, tiny, k(TWO_P12), k(ONE));
            v32(ctx, VMulF32, &[unscale, root])
        }
        UnaryOp::Exp2 => {
            let tiny = compare(ctx, VCmpGtF32, k(MINUS_126), x);
            let bias = pick(ctx, tiny, k(F32_64), k(0));
            let raised = v32(ctx, VAddF32, &[bias, x]);
            let e = v32(ctx, VExpF32, &[raised]);
            let unscale = pick(ctx, tiny, k(TWO_M64), k(ONE));
            v32(ctx, VMulF32, &[unscale, e])
        }
        _ => {
            let tiny = compare(ctx, VCmpGtF32, k(TWO_M126), x);
            let scale = pick(ctx, tiny, k(TWO_P32), k(ONE));
            let xs = v32(ctx, VMulF32, &[scale, x]);
            let l = v32(ctx, VLogF32, &[xs]);
            let bias = pick(ctx, tiny, k(F32_32), k(0));
            v32(ctx, VSubF32, &[l, bias])
        }
    }
}

/// Round to nearest, ties away from zero, as LLVM 19 expands `llvm.round` for f32 and f16:
/// `t = trunc(x)`, then `t + copysign(|x - t| >= 0.5 ? 1 : 0, x)` (`v_bfi_b32` puts x's sign
/// on the 0 or 1, so -0.3 rounds to -0). The difference is exact, so no double rounding.
fn round(ctx: &mut Ctx<'_>, ty: Type, x: Operand) -> Operand {
    use Opcode::*;
    let (trunc, sub, cmp_ge, add, magnitude, half, one) = if ty == Type::F16 {
        (VTruncF16, VSubF16, VCmpGeF16, VAddF16, 0x7fffu32, 0x3800u32, 0x3c00u32)
    } else {
        (VTruncF32, VSubF32, VCmpGeF32, VAddF32, 0x7fff_ffff, 0x3f00_0000, ONE)
    };
    let t = v32(ctx, trunc, &[x]);
    let d = v32(ctx, sub, &[x, t]);
    let abs = v32(ctx, VAndB32, &[Operand::constant(magnitude), d]);
    let up = compare(ctx, cmp_ge, abs, Operand::constant(half));
    let step = pick(ctx, up, Operand::constant(one), Operand::constant(0));
    let signed = v32(ctx, VBfiB32, &[Operand::constant(magnitude), step, x]);
    v32(ctx, add, &[t, signed])
}
