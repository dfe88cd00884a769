//! Integer division and remainder (`udiv urem sdiv srem`) of 32 and 64 bits: the one home of
//! the division expansions, since the hardware has no integer divide.
//!
//! The semantics are the kernel language's (RISC-V's): `x / 0` is all ones (unsigned) or -1
//! (signed), `x % 0` is `x`, and `MIN / -1` is `MIN` with remainder 0. By a constant the
//! division folds (by 0), becomes a shift or mask (by a power of two, unsigned), or, for 32
//! bits, a multiply by the divisor's magic number. By a variable it follows LLVM's AMDGPU
//! expansions: an f32 reciprocal of the divisor scaled to a fixed-point estimate of `2^32 / y`
//! (or `2^64 / y`), refined by Newton-Raphson steps in integer arithmetic (one for 32 bits,
//! two for 64), the quotient's estimate as a high multiply, and two corrections by the
//! remainder. A signed division divides the magnitudes and puts the signs back. The
//! expansions run on the VALU (the SALU has no high multiply on GFX11); a uniform result is
//! read back with `v_readfirstlane_b32`, as ACO does.
//!
//! Where LLVM branches around the 64-bit expansion when both high dwords are 0 (to the 32-bit
//! one), this selection does not: it stays in one block, and the 64-bit sequence is exact for
//! every input on its own. A divisor of 0 is fixed up at the end (`v_cmp_eq_u64` and two
//! `v_cndmask_b32`), since the estimate is meaningless there.

use super::alu::{add64, finish, halves_of, mad_u64_u32, scalar, v32, vector};
use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{BinaryOp, Type, Value};
use isa::mir::{Def, Operand};
use isa::opcode::Opcode;
use isa::reg::RegClass;
use smallvec::SmallVec;

/// The two dwords of a 64-bit value, low first.
pub(super) type Pair = [Operand; 2];

/// Selects a division or remainder of 32 or 64 bits; `None` when `op` on the type of `r` is
/// not one.
pub(super) fn select(ctx: &mut Ctx<'_>, op: BinaryOp, a: Value, b: Value, r: Value) -> Result<Option<Val>, IselError> {
    let (signed, rem) = match op {
        BinaryOp::Udiv => (false, false),
        BinaryOp::Urem => (false, true),
        BinaryOp::Sdiv => (true, false),
        BinaryOp::Srem => (true, true),
        _ => return Ok(None),
    };
    match ctx.func.dfg.value_type(r) {
        Type::I32 if signed => sdivide(ctx, rem, a, b, r).map(Some),
        Type::I32 => divide(ctx, rem, a, b, r).map(Some),
        Type::I64 => divide64(ctx, signed, rem, a, b, r).map(Some),
        _ => Ok(None),
    }
}

/// `parts` where the divisor `y` (of `cmp`'s width, `v_cmp_eq_u32` or `v_cmp_eq_u64`) is
/// nonzero, `fill` where it is 0.
fn unless_zero(
    ctx: &mut Ctx<'_>,
    cmp: Opcode,
    y: Operand,
    parts: &[Operand],
    fill: &[Operand],
) -> SmallVec<[Operand; 2]> {
    let zero = ctx.temp(ctx.lm());
    ctx.valu(cmp, &[Def::temp(zero)], &[Operand::constant(0), y]);
    parts.iter().zip(fill).map(|(&p, &f)| v32(ctx, Opcode::VCndmaskB32, &[p, f, Operand::temp(zero)])).collect()
}

/// An unsigned 32-bit division or remainder. By a constant: a shift or mask for a power of
/// two, else a multiply by the divisor's magic number (Hacker's Delight, section 10-8). By a
/// variable, [`udivrem_var`]. The quotient is computed by the VALU (the SALU has no high
/// multiply) and read back when uniform.
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
            return finish(ctx, &[q], r);
        }
        let qd = v32(ctx, VMulLoU32, &[q, Operand::constant(d)]);
        return Ok(vector(ctx, VSubNcU32, &[x, qd], r));
    }
    let y = ctx.operand(b)?;
    let q = udivrem_var(ctx, rem, x, y);
    if rem {
        return finish(ctx, &[q], r);
    }
    let q = unless_zero(ctx, VCmpEqU32, y, &[q], &[Operand::constant(u32::MAX)]);
    finish(ctx, &q, r)
}

/// The unsigned quotient (or remainder, when `rem`) of `x / y` for a variable `y`, as LLVM
/// expands it for AMDGPU: an estimate of 2^32 / y from the f32 reciprocal, one Newton-Raphson
/// step, the quotient's estimate and two corrections. The remainder by 0 is `x`; the quotient
/// by 0 is not yet all ones ([`unless_zero`] makes it so).
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

/// A signed 32-bit division or remainder (`sdiv`/`srem`): the unsigned expansion of the
/// magnitudes ([`udivrem_var`]), then the sign put back with `(v ^ s) - s` — the quotient's
/// sign is the operands' signs xored, the remainder's is the dividend's. `MIN / -1` is `MIN`
/// with remainder 0, which the magnitudes give (|MIN| is 2^31 as an unsigned number).
fn sdivide(ctx: &mut Ctx<'_>, rem: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    if let Val::Const(d) = ctx.vals[b] {
        return sdivide_const(ctx, rem, a, d as u32 as i32, r);
    }
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
        return finish(ctx, &[v], r);
    }
    let s = v32(ctx, VXorB32, &[sx, sy]);
    let q = apply(ctx, mag, s);
    let q = unless_zero(ctx, VCmpEqU32, y, &[q], &[Operand::constant(u32::MAX)]);
    finish(ctx, &q, r)
}

/// The magic number, whether the add-and-halve fixup is needed, and the shift, of unsigned
/// 32-bit division by `d` (not 0 or a power of two): Hacker's Delight, 2nd edition, figure
/// 10-2 (`magicu2`).
/// A signed 32-bit division or remainder by the constant `d`, with the RISC-V results for 0,
/// -1 and `MIN`: by a power of two (or its negative), an arithmetic shift of `x` biased by
/// `2^k - 1` when negative (so it rounds toward zero); else a high multiply by `d`'s signed
/// magic number (Hacker's Delight, section 10-1), corrected by `x` when the magic number's
/// sign differs from `d`'s, shifted, plus one when negative. The remainder is `x - q * d`.
fn sdivide_const(ctx: &mut Ctx<'_>, rem: bool, a: Value, d: i32, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let k = |v: u32| Operand::constant(v);
    match d {
        0 if rem => return ctx.val(a),
        0 => return Ok(Val::Const(u32::MAX as u64)),
        1 if rem => return Ok(Val::Const(0)),
        1 => return ctx.val(a),
        -1 if rem => return Ok(Val::Const(0)),
        _ => {}
    }
    let x = ctx.operand(a)?;
    let ad = d.unsigned_abs();
    let q = if d == -1 {
        v32(ctx, VSubNcU32, &[k(0), x])
    } else if d == i32::MIN {
        // Only MIN itself divides to 1.
        let is_min = ctx.temp(ctx.lm());
        ctx.valu(VCmpEqU32, &[Def::temp(is_min)], &[k(0x8000_0000), x]);
        v32(ctx, VCndmaskB32, &[k(0), k(1), Operand::temp(is_min)])
    } else if ad.is_power_of_two() {
        let shift = ad.trailing_zeros();
        let sign = v32(ctx, VAshrrevI32, &[k(31), x]);
        let bias = v32(ctx, VLshrrevB32, &[k(32 - shift), sign]);
        let biased = v32(ctx, VAddNcU32, &[x, bias]);
        let q = v32(ctx, VAshrrevI32, &[k(shift), biased]);
        if d < 0 {
            v32(ctx, VSubNcU32, &[k(0), q])
        } else {
            q
        }
    } else {
        let (magic, shift) = magic_i32(d);
        let mut q = v32(ctx, VMulHiI32, &[x, k(magic as u32)]);
        if d > 0 && magic < 0 {
            q = v32(ctx, VAddNcU32, &[q, x]);
        } else if d < 0 && magic > 0 {
            q = v32(ctx, VSubNcU32, &[q, x]);
        }
        if shift > 0 {
            q = v32(ctx, VAshrrevI32, &[k(shift), q]);
        }
        let negative = v32(ctx, VLshrrevB32, &[k(31), q]);
        v32(ctx, VAddNcU32, &[q, negative])
    };
    if !rem {
        return finish(ctx, &[q], r);
    }
    let qd = v32(ctx, VMulLoU32, &[q, k(d as u32)]);
    let v = v32(ctx, VSubNcU32, &[x, qd]);
    finish(ctx, &[v], r)
}

/// The signed magic number and shift of a divisor `d` with `2 <= |d| < 2^31` (Hacker's
/// Delight, figure 10-1): `q = (mulhi(M, x) [+ or - x]) >> s`, plus one when negative.
fn magic_i32(d: i32) -> (i32, u32) {
    const TWO31: u32 = 0x8000_0000;
    let ad = d.unsigned_abs();
    let t = TWO31 + ((d as u32) >> 31);
    let anc = t - 1 - t % ad;
    let mut p = 31u32;
    let (mut q1, mut r1) = (TWO31 / anc, TWO31 - (TWO31 / anc) * anc);
    let (mut q2, mut r2) = (TWO31 / ad, TWO31 - (TWO31 / ad) * ad);
    loop {
        p += 1;
        q1 = q1.wrapping_mul(2);
        r1 = r1.wrapping_mul(2);
        if r1 >= anc {
            q1 = q1.wrapping_add(1);
            r1 = r1.wrapping_sub(anc);
        }
        q2 = q2.wrapping_mul(2);
        r2 = r2.wrapping_mul(2);
        if r2 >= ad {
            q2 = q2.wrapping_add(1);
            r2 = r2.wrapping_sub(ad);
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
    }
    let magic = q2.wrapping_add(1) as i32;
    (if d < 0 { magic.wrapping_neg() } else { magic }, p - 32)
}

fn magic_u32(d: u32) -> (u32, bool, u32) {
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

// ---- 64 bits ----

/// Dwords as one 64-bit operand: a VGPR pair (constants and SGPRs copied in).
fn joined(ctx: &mut Ctx<'_>, [lo, hi]: Pair) -> Result<Operand, IselError> {
    let (lo, hi) = (ctx.in_vgpr(lo, 1)?, ctx.in_vgpr(hi, 1)?);
    Ok(Operand::temp(ctx.create_vector(RegClass::V2, &[Operand::temp(lo), Operand::temp(hi)])))
}

/// `a - b` (or `a + b`) of 64 bits on the VALU, as dwords.
pub(super) fn add_v64(ctx: &mut Ctx<'_>, a: Pair, b: Pair, sub: bool) -> Pair {
    let t = add64(ctx, a, b, sub, true);
    halves_of(ctx, Operand::temp(t))
}

/// `v_mad_u64_u32`: the 64-bit `a * b + c` of dwords `a`, `b` and a 64-bit `c`, as dwords.
fn mad64(ctx: &mut Ctx<'_>, a: Operand, b: Operand, c: Operand) -> Pair {
    let d = mad_u64_u32(ctx, a, b, c);
    halves_of(ctx, Operand::temp(d))
}

/// The low 64 bits of `a * b`: `lo(a0 * b0)`, and `hi(a0 * b0) + lo(a0 * b1) + lo(a1 * b0)`.
/// A cross product with a zero dword (a zero-extended or small constant factor) is left out.
pub(super) fn mul_lo64(ctx: &mut Ctx<'_>, [a0, a1]: Pair, [b0, b1]: Pair) -> Pair {
    use Opcode::*;
    let zero = |o: Operand| o.constant_value() == Some(0);
    let lo = v32(ctx, VMulLoU32, &[a0, b0]);
    let mut terms: SmallVec<[Operand; 3]> = SmallVec::new();
    terms.push(v32(ctx, VMulHiU32, &[a0, b0]));
    for (x, y) in [(a0, b1), (a1, b0)] {
        if !zero(x) && !zero(y) {
            terms.push(v32(ctx, VMulLoU32, &[x, y]));
        }
    }
    let hi = match terms.len() {
        1 => terms[0],
        2 => v32(ctx, VAddNcU32, &terms),
        _ => v32(ctx, VAdd3U32, &terms),
    };
    [lo, hi]
}

/// The high 64 bits of the unsigned 128-bit `a * b`, with `v_mad_u64_u32` carrying the
/// partial products: `t = hi(a0 b0)`, `s1 = a0 b1 + t`, `s2 = a1 b0 + lo(s1)`, then
/// `a1 b1 + hi(s1) + hi(s2)` (none of the sums overflows 64 bits).
pub(super) fn mul_hi64(ctx: &mut Ctx<'_>, [a0, a1]: Pair, [b0, b1]: Pair) -> Pair {
    use Opcode::*;
    let zero = v32(ctx, VMovB32, &[Operand::constant(0)]);
    let t = v32(ctx, VMulHiU32, &[a0, b0]);
    let t = Operand::temp(ctx.create_vector(RegClass::V2, &[t, zero]));
    let [s1lo, s1hi] = mad64(ctx, a0, b1, t);
    let s1lo = Operand::temp(ctx.create_vector(RegClass::V2, &[s1lo, zero]));
    let [_, s2hi] = mad64(ctx, a1, b0, s1lo);
    let carries = add64(ctx, [s1hi, zero], [s2hi, zero], false, true);
    mad64(ctx, a1, b1, Operand::temp(carries))
}

/// The unsigned quotient and remainder of 64-bit `x / y` (`y` not 0), as LLVM's
/// `LowerUDIVREM64` expands them: `2^64 / y` estimated in f32 (`y` converted by halves, the
/// reciprocal scaled by 2^64 - 2^42 so it stays below the true value, split into dwords by
/// `v_trunc_f32` and an FMA), two Newton-Raphson steps `z += mulhi(z, -y * z)`, the quotient
/// `mulhi(x, z)`, and two corrections while the remainder is at least `y`.
fn udivrem64(ctx: &mut Ctx<'_>, x: Pair, y: Pair) -> Result<(Pair, Pair), IselError> {
    use Opcode::*;
    let k = Operand::constant;
    let (fy0, fy1) = (v32(ctx, VCvtF32U32, &[y[0]]), v32(ctx, VCvtF32U32, &[y[1]]));
    // y as f32: y1 * 2^32 + y0.
    let fy = v32(ctx, VFmaF32, &[fy1, k(0x4f80_0000), fy0]);
    let rcp = v32(ctx, VRcpF32, &[fy]);
    // 2^64 / y, slightly low (0x5f7ffffc = 2^64 - 2^42), then its high dword (times 2^-32,
    // truncated) and the low one (what is left after subtracting high * 2^32).
    let scaled = v32(ctx, VMulF32, &[k(0x5f7f_fffc), rcp]);
    let high = v32(ctx, VMulF32, &[k(0x2f80_0000), scaled]);
    let high = v32(ctx, VTruncF32, &[high]);
    let low = v32(ctx, VFmaF32, &[high, k(0xcf80_0000), scaled]);
    let mut z = [v32(ctx, VCvtU32F32, &[low]), v32(ctx, VCvtU32F32, &[high])];
    let neg_y = add_v64(ctx, [k(0), k(0)], y, true);
    for _ in 0..2 {
        let err = mul_lo64(ctx, neg_y, z);
        let fix = mul_hi64(ctx, z, err);
        z = add_v64(ctx, z, fix, false);
    }
    let mut q = mul_hi64(ctx, x, z);
    let qy = mul_lo64(ctx, y, q);
    let mut rest = add_v64(ctx, x, qy, true);
    let y64 = joined(ctx, y)?;
    for _ in 0..2 {
        let m = ctx.temp(ctx.lm());
        let rest64 = joined(ctx, rest)?;
        ctx.valu(VCmpGeU64, &[Def::temp(m)], &[rest64, y64]);
        // Later readers take the remainder from its pair (see `Ctx::split_anew`).
        if let Some(t) = rest64.temp_of() {
            let halves = ctx.split_anew(t);
            rest = [Operand::temp(halves[0]), Operand::temp(halves[1])];
        }
        let q1 = add_v64(ctx, q, [k(1), k(0)], false);
        let r1 = add_v64(ctx, rest, y, true);
        let pick = |ctx: &mut Ctx<'_>, old: Pair, new: Pair| {
            [0, 1].map(|i| v32(ctx, VCndmaskB32, &[old[i], new[i], Operand::temp(m)]))
        };
        q = pick(ctx, q, q1);
        rest = pick(ctx, rest, r1);
    }
    Ok((q, rest))
}

/// `v` with the sign `s` (0 or all ones, a dword) put on it: `(v ^ s) - s`, 64 bits.
pub(super) fn apply_sign64(ctx: &mut Ctx<'_>, v: Pair, s: Operand) -> Pair {
    let flipped = v.map(|h| v32(ctx, Opcode::VXorB32, &[h, s]));
    add_v64(ctx, flipped, [s, s], true)
}

/// A 64-bit division or remainder, signed or not. By a constant 0 it folds, by a power of two
/// (unsigned) it is a shift or a mask; else [`udivrem64`] of the magnitudes, the sign put back
/// (the quotient's is the operands' signs xored, the remainder's the dividend's; `MIN / -1`
/// gives `MIN` remainder 0 since |MIN| is 2^63 unsigned), and the divisor 0 fixed up last.
fn divide64(ctx: &mut Ctx<'_>, signed: bool, rem: bool, a: Value, b: Value, r: Value) -> Result<Val, IselError> {
    use Opcode::*;
    let divergent = ctx.div.is_divergent(r);
    if let Val::Const(d) = ctx.vals[b] {
        if d == 0 {
            return if rem { ctx.val(a) } else { Ok(Val::Const(u64::MAX)) };
        }
        if !signed && d.is_power_of_two() && rem {
            let (x, m) = (ctx.halves(a)?, d - 1);
            let mask = [Operand::constant(m as u32), Operand::constant((m >> 32) as u32)];
            let parts: SmallVec<[Operand; 2]> = (0..2)
                .map(|i| match divergent {
                    true => v32(ctx, VAndB32, &[mask[i], x[i]]),
                    false => Operand::temp(scalar(ctx, SAndB32, &[x[i], mask[i]], true)),
                })
                .collect();
            let rc = if divergent { RegClass::V2 } else { RegClass::S2 };
            return Ok(Val::Temp(ctx.create_vector(rc, &parts)));
        }
        if !signed && d.is_power_of_two() {
            let x = match ctx.val(a)? {
                Val::Temp(t) => Operand::temp(t),
                Val::Const(c) => return Ok(Val::Const(c >> d.trailing_zeros())),
                _ => return Err(ctx.unsupported("this 64-bit operand")),
            };
            let k = Operand::constant(d.trailing_zeros());
            return Ok(Val::Temp(if divergent {
                let v = ctx.temp(RegClass::V2);
                let x = Operand::temp(ctx.in_vgpr(x, 2)?);
                ctx.valu(VLshrrevB64, &[Def::temp(v)], &[k, x]);
                v
            } else {
                let s = ctx.temp(RegClass::S2);
                ctx.salu(SLshrB64, &[Def::temp(s), Ctx::scc_clobber()], &[x, k]);
                s
            }));
        }
    }
    let (x, y) = (ctx.halves(a)?, ctx.halves(b)?);
    let sign = |ctx: &mut Ctx<'_>, v: Pair| v32(ctx, VAshrrevI32, &[Operand::constant(31), v[1]]);
    let (sx, sy) = if signed { (Some(sign(ctx, x)), Some(sign(ctx, y))) } else { (None, None) };
    let (ax, ay) = match (sx, sy) {
        (Some(sx), Some(sy)) => (apply_sign64(ctx, x, sx), apply_sign64(ctx, y, sy)),
        _ => (x, y),
    };
    let (q, rest) = udivrem64(ctx, ax, ay)?;
    let mut v = if rem { rest } else { q };
    if let (Some(sx), Some(sy)) = (sx, sy) {
        let s = if rem { sx } else { v32(ctx, VXorB32, &[sx, sy]) };
        v = apply_sign64(ctx, v, s);
    }
    let fill = if rem { x } else { [Operand::constant(u32::MAX); 2] };
    let y64 = match ctx.val(b)? {
        Val::Temp(t) => Operand::temp(t),
        _ => joined(ctx, y)?,
    };
    let v = unless_zero(ctx, VCmpEqU64, y64, &v, &fill);
    finish(ctx, &v, r)
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
