//! The approximate math functions of the kernel language on f64: `rsqrt exp2 log2 sin cos`.
//!
//! The hardware has no f64 transcendental functions (only the approximations `v_rsq_f64` and
//! `v_rcp_f64`, meant to be refined), and kernel-language.md's "Precision" (with `gcnc::check`'s bound: within
//! 2^-40 of the correctly rounded result, relatively above 1 and absolutely below) asks far
//! more, so each function is a full f64 expansion in the manner of AMD's OCML and LLVM:
//! reduce the argument exactly with the f64 helpers the hardware has (`v_rndne_f64`,
//! `v_ldexp_f64`, `v_frexp_*_f64`, `v_fma_f64`), evaluate a polynomial by FMA Horner steps,
//! and rebuild. The polynomials are plain Taylor series (coefficients below, each the exact
//! rational or transcendental value rounded once to f64, computed with mpmath at 400 bits);
//! truncated as here they are within a few ulp on their reduced ranges, which is far inside
//! the bound without minimax fitting.
//!
//! - `rsqrt x` is `1 / sqrt(x)` from the correctly rounded f64 square root and division of
//!   the parent module: within 1.5 ulp for every input, denormals included, and the IEEE
//!   specials fall out (+0 → +inf, -0 → -inf, negative → NaN, +inf → 0), as the reference
//!   interpreter's `1.0 / x.sqrt()` gives.
//! - `exp2 x`: `n = rndne(x)`, `f = x - n` (exact, |f| ≤ 1/2), `2^f = Σ (f ln 2)^k / k!` to
//!   k = 13 (the first term left out is below 2^-57), scaled by `v_ldexp_f64(p, n)`, which
//!   rounds once into the denormal range and overflows to +inf. `n` converts to an i32
//!   saturating, so any |x| beyond the f64 exponent range gives inf or 0; for ±inf (where
//!   `x - n` is a NaN) `f` is forced to 0 so the scaling alone gives +inf or +0.
//! - `log2 x`: `x = m 2^e` by `v_frexp_mant_f64`/`v_frexp_exp_i32_f64` (exact for
//!   denormals), `m` doubled below sqrt(1/2) so m ∈ [sqrt(1/2), sqrt(2)); then `s = (m-1)/(m+1)`
//!   (|s| ≤ 0.172, by the correctly rounded division) and `log2 m = 2 atanh(s) / ln 2 =
//!   Σ 2 s^(2k+1) / ((2k+1) ln 2)` to k = 10, plus `e`. The inputs outside (0, +inf), where the
//!   result is -inf (±0), NaN (negative, NaN) or +inf (+inf), take the f32 transcendental
//!   unit's `v_log_f32` of the mantissa narrowed to f32 (the mantissa keeps the input's
//!   class, where a tiny negative input itself would narrow to -0), which has exactly these
//!   IEEE results.
//! - `sin x`, `cos x`: the argument reduced by π/2 to `x = n π/2 + r`, |r| ≤ π/4 (a little
//!   more where rounding decides `n`), then `sin r = r + r^3 Σ` and `cos r = 1 + r^2 Σ` to the
//!   terms r^19 and r^18, swapped and negated per quadrant `n mod 4` (computed as
//!   `n - 4 floor(n/4)`, exact in f64), as OCML does. Below |x| = 2^30 the reduction is
//!   Cody–Waite's: `n = rndne(x · 2/π)`, `r = x - n π/2` with π/2 as three f64 parts
//!   (P1 + P2 + P3 carry it to 2^-160) subtracted by FMAs, each step exact or rounding a value
//!   below 2. From 2^30 up it is Payne–Hanek's as OCML builds it on `v_trig_preop_f64`: three
//!   53-bit segments of 2/π, the hardware skipping the leading bits whose products with `x`
//!   are multiples of 4 (and scaling the segments by 2^128 from |x| = 2^945, where `x` is
//!   scaled down to match); `x · s0` exactly as a sum of two f64 (FMA), its high part reduced
//!   modulo 4, the products with the other segments added, `n` and the fraction split off
//!   and multiplied by π/2. Both reductions leave `r` within 2^-48 absolutely for every
//!   finite `x`, so sin and cos are within about 2^-48 of the true value (the bound is
//!   absolute for them). ±inf and NaN give NaN through either reduction.
//!
//! Each expansion is checked against the interpreter by `tests/gir/e2e/f64_math_approx.gir`
//! on the three targets; the instruction sequences are shown by the filetest
//! `isel/tests/filetests/f64_math.mir`.

use super::super::alu::{halves_of, v32};
use super::super::Ctx;
use super::{constant, fdiv, modifiers, sqrt, v64, ONE};
use isa::mir::{Def, Operand};
use isa::opcode::Opcode;
use isa::reg::RegClass;

/// ln(2)^k / k! for k = 0..=13 (the Taylor series of 2^f = e^(f ln 2)), as f64 bits.
const EXP2_TAYLOR: [u64; 14] = [
    0x3ff0_0000_0000_0000,
    0x3fe6_2e42_fefa_39ef,
    0x3fce_bfbd_ff82_c58f,
    0x3fac_6b08_d704_a0c0,
    0x3f83_b2ab_6fba_4e77,
    0x3f55_d87f_e78a_6731,
    0x3f24_3091_2f86_c787,
    0x3eef_fcbf_c588_b0c7,
    0x3eb6_2c02_23a5_c824,
    0x3e7b_5253_d395_e7c4,
    0x3e3e_4cf5_158b_8eca,
    0x3dfe_8cac_7351_bb25,
    0x3dbc_3bd6_50fc_2986,
    0x3d78_1619_3166_d0f9,
];

/// 2 / ((2k+1) ln 2) for k = 0..=10 (the series of log2(m) = 2 atanh(s) / ln 2 in s²), as
/// f64 bits.
const LOG2_ATANH: [u64; 11] = [
    0x4007_1547_652b_82fe,
    0x3fee_c709_dc3a_03fd,
    0x3fe2_776c_50ef_9bfe,
    0x3fda_6176_2a7a_ded9,
    0x3fd4_84b1_3d7c_02a9,
    0x3fd0_c9a8_4994_022d,
    0x3fcc_68f5_68d3_1760,
    0x3fc8_9f3b_1694_cffe,
    0x3fc5_b9ac_9b74_3f0d,
    0x3fc3_703c_1f4d_0ffe,
    0x3fc1_964e_c6fc_9491,
];

/// (-1)^k / (2k+1)! for k = 1..=9 (sin r = r + r^3 Σ s_k r^(2k-2)), as f64 bits.
const SIN_TAYLOR: [u64; 9] = [
    0xbfc5_5555_5555_5555,
    0x3f81_1111_1111_1111,
    0xbf2a_01a0_1a01_a01a,
    0x3ec7_1de3_a556_c734,
    0xbe5a_e645_67f5_44e4,
    0x3de6_1246_13a8_6d09,
    0xbd6a_e7f3_e733_b81f,
    0x3ce9_52c7_7030_ad4a,
    0xbc62_f49b_4681_4157,
];

/// (-1)^k / (2k)! for k = 1..=9 (cos r = 1 + r^2 Σ c_k r^(2k-2)), as f64 bits.
const COS_TAYLOR: [u64; 9] = [
    0xbfe0_0000_0000_0000,
    0x3fa5_5555_5555_5555,
    0xbf56_c16c_16c1_6c17,
    0x3efa_01a0_1a01_a01a,
    0xbe92_7e4f_b778_9f5c,
    0x3e21_eed8_eff8_d898,
    0xbda9_3974_a8c0_7c9d,
    0x3d2a_e7f3_e733_b81f,
    0xbca6_8278_63b9_7d97,
];

/// 2/π rounded to f64.
const TWO_OVER_PI: u64 = 0x3fe4_5f30_6dc9_c883;
/// π/2 as P1 + P2 + P3: P1 = π/2 rounded to f64, P2 = (π/2 - P1) rounded, P3 = (π/2 - P1 -
/// P2) rounded (the remainder is 5.6e-50), the Cody–Waite split.
const HALF_PI: [u64; 3] = [0x3ff9_21fb_5444_2d18, 0x3c91_a626_3314_5c07, 0xb91f_1976_b7ed_8fbc];
/// 2^30, where sine and cosine switch to the Payne–Hanek reduction, and 2^945, from where
/// `v_trig_preop_f64` scales its segments up by 2^128.
const TWO_30: u64 = 0x41d0_0000_0000_0000;
const TWO_945: u64 = 0x7b00_0000_0000_0000;
/// sqrt(1/2) rounded to f64 (the mantissa below it is doubled for `log2`).
const SQRT_HALF: u64 = 0x3fe6_a09e_667f_3bcd;
/// -1.0 and 4.0 as f64 bits.
const MINUS_ONE: u64 = 0xbff0_0000_0000_0000;
const FOUR: u64 = 0x4010_0000_0000_0000;
/// `v_cmp_class_f64` masks: -inf and +inf; every class but +denormal and +normal.
const CLASS_INF: u32 = 0x204;
const CLASS_NOT_POSITIVE_FINITE: u32 = 0x27f;

/// `rsqrt x` as `1 / sqrt(x)`, both correctly rounded (see the module comment).
pub(super) fn rsqrt(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    let root = sqrt(ctx, x);
    let one = constant(ctx, ONE);
    fdiv(ctx, one, root)
}

/// `exp2 x` (see the module comment).
pub(super) fn exp2(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    use Opcode::*;
    let n = v64(ctx, VRndneF64, &[x]);
    let f = v64(ctx, VAddF64, &[x, n]);
    modifiers(ctx, 2, 0);
    let inf = class(ctx, x, CLASS_INF);
    let f = select_pair(ctx, f, [Operand::constant(0); 2], inf);
    let p = horner(ctx, &EXP2_TAYLOR, f);
    let n = v32(ctx, VCvtI32F64, &[n]);
    v64(ctx, VLdexpF64, &[p, n])
}

/// `log2 x` (see the module comment).
pub(super) fn log2(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    use Opcode::*;
    let k = Operand::constant;
    let mant = v64(ctx, VFrexpMantF64, &[x]);
    let e = v32(ctx, VFrexpExpI32F64, &[x]);
    let sqrt_half = constant(ctx, SQRT_HALF);
    let low = ctx.temp(ctx.lm());
    ctx.valu(VCmpGtF64, &[Def::temp(low)], &[sqrt_half, mant]);
    let low = v32(ctx, VCndmaskB32, &[k(0), k(1), Operand::temp(low)]);
    let m = v64(ctx, VLdexpF64, &[mant, low]);
    let e = v32(ctx, VSubNcU32, &[e, low]);
    let e = v64(ctx, VCvtF64I32, &[e]);
    // m - 1 is exact (Sterbenz); m + 1 rounds once.
    let minus_one = constant(ctx, MINUS_ONE);
    let num = v64(ctx, VAddF64, &[m, minus_one]);
    let one = constant(ctx, ONE);
    let den = v64(ctx, VAddF64, &[m, one]);
    let s = fdiv(ctx, num, den);
    let s2 = v64(ctx, VMulF64, &[s, s]);
    let p = horner(ctx, &LOG2_ATANH, s2);
    let y = v64(ctx, VFmaF64, &[s, p, e]);
    // ±0, negative, +inf and NaN: `v_log_f32` of the mantissa as f32 (±0, in (-1, -1/2],
    // +inf, NaN: the input's class, where narrowing the input itself would turn a tiny
    // negative into -0) gives -inf, NaN, +inf, NaN.
    let special = class(ctx, x, CLASS_NOT_POSITIVE_FINITE);
    let narrow = v32(ctx, VCvtF32F64, &[mant]);
    let log = v32(ctx, VLogF32, &[narrow]);
    let log = v64(ctx, VCvtF64F32, &[log]);
    let log = halves_of(ctx, log);
    select_pair(ctx, y, log, special)
}

/// `sin x` (`cos` false) or `cos x` (`cos` true), see the module comment.
pub(super) fn sin_cos(ctx: &mut Ctx<'_>, x: Operand, cos: bool) -> Operand {
    use Opcode::*;
    let k = Operand::constant;
    let (r_small, n_small) = reduce_cody_waite(ctx, x);
    let (r_large, n_large) = reduce_payne_hanek(ctx, x);
    let threshold = constant(ctx, TWO_30);
    let large = ctx.temp(ctx.lm());
    ctx.valu(VCmpLeF64, &[Def::temp(large)], &[threshold, x]);
    modifiers(ctx, 0, 2);
    let large = Operand::temp(large);
    let (r_large, n_large) = (halves_of(ctx, r_large), halves_of(ctx, n_large));
    let r = select_pair(ctx, r_small, r_large, large);
    let n = select_pair(ctx, n_small, n_large, large);
    // The quadrant; cos is sin a quadrant later.
    let q = minus_multiple_of_4(ctx, n);
    let mut q = v32(ctx, VCvtI32F64, &[q]);
    if cos {
        q = v32(ctx, VAddNcU32, &[k(1), q]);
    }
    let z = v64(ctx, VMulF64, &[r, r]);
    let sin_poly = horner(ctx, &SIN_TAYLOR, z);
    let r3 = v64(ctx, VMulF64, &[r, z]);
    let sin_r = v64(ctx, VFmaF64, &[r3, sin_poly, r]);
    let cos_poly = horner(ctx, &COS_TAYLOR, z);
    let one = constant(ctx, ONE);
    let cos_r = v64(ctx, VFmaF64, &[z, cos_poly, one]);
    // Odd quadrants take the other function; quadrants 2 and 3 negate.
    let odd = v32(ctx, VAndB32, &[k(1), q]);
    let swap = ctx.temp(ctx.lm());
    ctx.valu(VCmpNeU32, &[Def::temp(swap)], &[k(0), odd]);
    let cos_r = halves_of(ctx, cos_r);
    let v = select_pair(ctx, sin_r, cos_r, Operand::temp(swap));
    let [lo, hi] = halves_of(ctx, v);
    let sign = v32(ctx, VLshlrevB32, &[k(30), q]);
    let sign = v32(ctx, VAndB32, &[k(0x8000_0000), sign]);
    let hi = v32(ctx, VXorB32, &[sign, hi]);
    Operand::temp(ctx.create_vector(RegClass::V2, &[lo, hi]))
}

/// Cody–Waite reduction for |x| below 2^30: `n = rndne(x 2/π)` and `r = x - n π/2` (see the
/// module comment), as `(r, n)`.
fn reduce_cody_waite(ctx: &mut Ctx<'_>, x: Operand) -> (Operand, Operand) {
    use Opcode::*;
    let two_over_pi = constant(ctx, TWO_OVER_PI);
    let t = v64(ctx, VMulF64, &[x, two_over_pi]);
    let n = v64(ctx, VRndneF64, &[t]);
    let mut r = x;
    for part in HALF_PI {
        let part = constant(ctx, part);
        r = v64(ctx, VFmaF64, &[n, part, r]);
        modifiers(ctx, 1, 0);
    }
    (r, n)
}

/// Payne–Hanek reduction for |x| from 2^30 (see the module comment): `x 2/π` modulo 4 from
/// three 53-bit segments of 2/π (`v_trig_preop_f64`, which skips the leading bits whose
/// products with `x` are multiples of 4), as `(r, n)` with `n` in [-8, 12] and |r| ≤ π/4 +
/// 2^-48.
fn reduce_payne_hanek(ctx: &mut Ctx<'_>, x: Operand) -> (Operand, Operand) {
    use Opcode::*;
    let k = Operand::constant;
    // From 2^945 (exponent field 1968) the segments come scaled up by 2^128: x down by as much.
    let huge = constant(ctx, TWO_945);
    let scaled = ctx.temp(ctx.lm());
    ctx.valu(VCmpLeF64, &[Def::temp(scaled)], &[huge, x]);
    modifiers(ctx, 0, 2);
    let down = v32(ctx, VCndmaskB32, &[k(0), k(-128i32 as u32), Operand::temp(scaled)]);
    let xs = v64(ctx, VLdexpF64, &[x, down]);
    let [s0, s1, s2] = [0, 1, 2].map(|i| v64(ctx, VTrigPreopF64, &[x, k(i)]));
    // x s0 exactly as a_hi + a_lo (a_hi below 2^55, its lowest bit 2^-51 at the finest), a_hi
    // reduced modulo 4 exactly; x s1 as b_hi + b_lo (below 4); x s2 below 2^-51.
    let a_hi = v64(ctx, VMulF64, &[xs, s0]);
    let a_lo = v64(ctx, VFmaF64, &[xs, s0, a_hi]);
    modifiers(ctx, 4, 0);
    let a_hi = minus_multiple_of_4(ctx, a_hi);
    let b_hi = v64(ctx, VMulF64, &[xs, s1]);
    let b_lo = v64(ctx, VFmaF64, &[xs, s1, b_hi]);
    modifiers(ctx, 4, 0);
    let c = v64(ctx, VMulF64, &[xs, s2]);
    // Below 12, so each sum rounds by at most 2^-50; n and the fraction split exactly.
    let sum = v64(ctx, VAddF64, &[a_hi, a_lo]);
    let sum = v64(ctx, VAddF64, &[sum, b_hi]);
    let n = v64(ctx, VRndneF64, &[sum]);
    let f = v64(ctx, VAddF64, &[sum, n]);
    modifiers(ctx, 2, 0);
    let tail = v64(ctx, VAddF64, &[b_lo, c]);
    let f = v64(ctx, VAddF64, &[f, tail]);
    let half_pi = constant(ctx, HALF_PI[0]);
    (v64(ctx, VMulF64, &[f, half_pi]), n)
}

/// `v - 4 floor(v / 4)`, exact for any f64 `v` (in [0, 4)).
fn minus_multiple_of_4(ctx: &mut Ctx<'_>, v: Operand) -> Operand {
    use Opcode::*;
    let quarter = v64(ctx, VLdexpF64, &[v, Operand::constant(-2i32 as u32)]);
    let floor = v64(ctx, VFloorF64, &[quarter]);
    let four = constant(ctx, FOUR);
    let m = v64(ctx, VFmaF64, &[floor, four, v]);
    modifiers(ctx, 1, 0);
    m
}

/// Horner's rule by FMAs: `c[0] + z (c[1] + z (c[2] + ...))` with f64 coefficient bits `c`.
fn horner(ctx: &mut Ctx<'_>, c: &[u64], z: Operand) -> Operand {
    let (&last, rest) = c.split_last().expect("a polynomial has coefficients");
    let mut p = constant(ctx, last);
    for &coefficient in rest.iter().rev() {
        let coefficient = constant(ctx, coefficient);
        p = v64(ctx, Opcode::VFmaF64, &[p, z, coefficient]);
    }
    p
}

/// A lane mask of the lanes where `x` is in one of the classes of `mask` (`v_cmp_class_f64`).
fn class(ctx: &mut Ctx<'_>, x: Operand, mask: u32) -> Operand {
    let m = ctx.temp(ctx.lm());
    ctx.valu(Opcode::VCmpClassF64, &[Def::temp(m)], &[x, Operand::constant(mask)]);
    Operand::temp(m)
}

/// The VGPR pair `v` where `mask` is clear, the dwords `other` where it is set.
fn select_pair(ctx: &mut Ctx<'_>, v: Operand, other: [Operand; 2], mask: Operand) -> Operand {
    let v = halves_of(ctx, v);
    let parts = [0, 1].map(|i| v32(ctx, Opcode::VCndmaskB32, &[v[i], other[i], mask]));
    Operand::temp(ctx.create_vector(RegClass::V2, &parts))
}
