//! Floating-point helpers the vector ALU shares: f16 conversions with correct rounding, the
//! AMD-specific operations (`frexp`, `ldexp`, `cmp_class`, min/max with AMD's signed-zero and
//! NaN rules), and the transcendental approximations.
//!
//! Accuracy of the transcendental operations (the hardware documents 1 ulp): `rcp`, `sqrt`
//! (f32 and f64) and `rcp_f64` are correctly rounded; `rsq`, `exp`, `log`, `sin` and `cos` are
//! computed in f64 from the exact input and rounded once to the result type, so they are
//! within 0.5 ulp plus 2^-50 relative, hence within 1 ulp; `rsq_f64` is within 1 ulp (two f64
//! roundings). Every f16 operation is rounded once from an exact (or exactly sticky) value.

/// An f16 bit pattern as f64 (exact).
pub(crate) fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10 & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::from_bits(0x7ff8_0000_0000_0000 | ((h as u64 & 0x1ff) << 42) | ((h as u64 & 0x8000) << 48)),
        _ => sign * (1024.0 + frac) * 2f64.powi(exp - 25),
    }
}

/// The f16 nearest to `x` (ties to even), where a non-zero `sticky` says the exact value is a
/// little above (positive) or below (negative) `x`: it breaks a tie `x` alone would make.
pub(crate) fn f64_to_f16_sticky(x: f64, sticky: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00 | ((bits >> 42) & 0x1ff) as u16;
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Scale so that one f16 ulp at this magnitude is 1: ulp = 2^(max(e, -14) - 10).
    let e = if a == 0.0 { -14 } else { (a.log2().floor() as i32).max(-14) };
    let e = if a != 0.0 && a >= 2f64.powi(e + 1) {
        e + 1
    } else if e > -14 && a < 2f64.powi(e) {
        e - 1
    } else {
        e
    };
    let scaled = a * 2f64.powi(10 - e); // exact: a power-of-two scaling
    let floor = scaled.floor();
    let frac = scaled - floor;
    // The sticky part, in the direction of |x|.
    let s = if x < 0.0 { -sticky } else { sticky };
    let up = frac > 0.5 || (frac == 0.5 && (s > 0.0 || (s == 0.0 && floor % 2.0 == 1.0)));
    let m = floor + if up { 1.0 } else { 0.0 };
    let value = m * 2f64.powi(e - 10);
    if value >= 65520.0 {
        return sign | 0x7c00;
    }
    // Re-encode the now exactly representable value.
    let (exp_field, frac_field) = if value < 2f64.powi(-14) {
        (0u16, (value * 2f64.powi(24)) as u16)
    } else {
        let ev = value.log2().floor() as i32;
        let ev = if value >= 2f64.powi(ev + 1) {
            ev + 1
        } else if value < 2f64.powi(ev) {
            ev - 1
        } else {
            ev
        };
        ((ev + 15) as u16, ((value / 2f64.powi(ev) - 1.0) * 1024.0) as u16)
    };
    sign | exp_field << 10 | frac_field
}

/// The f16 nearest to `x` (ties to even).
pub(crate) fn f64_to_f16(x: f64) -> u16 {
    f64_to_f16_sticky(x, 0.0)
}

/// The f16 nearest to `x` rounding toward zero.
pub(crate) fn f64_to_f16_rtz(x: f64) -> u16 {
    let h = f64_to_f16(x);
    if x.is_nan() || x.is_infinite() {
        return h;
    }
    // Rounded away from zero: step back one ulp toward zero (infinity from overflow included).
    if f16_to_f64(h).abs() > x.abs() {
        h - 1
    } else {
        h
    }
}

/// `a * b + c` on f16 values, rounded once.
pub(crate) fn fma_f16(a: u16, b: u16, c: u16) -> u16 {
    let p = f16_to_f64(a) * f16_to_f64(b); // exact: 22 significant bits
    let c = f16_to_f64(c);
    let s = p + c;
    // TwoSum: the rounding error of p + c, exact.
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    f64_to_f16_sticky(s, if s.is_finite() { err } else { 0.0 })
}

/// Whether an f16 is a denormal.
pub(crate) fn f16_is_denormal(h: u16) -> bool {
    h & 0x7c00 == 0 && h & 0x3ff != 0
}

/// Flushes a denormal of a float type (given by its bits and width) to a signed zero.
pub(crate) fn flush_denormal(bits: u64, width: u32) -> u64 {
    match width {
        16 if f16_is_denormal(bits as u16) => bits & 0x8000,
        32 if f32::from_bits(bits as u32).is_subnormal() => bits & 0x8000_0000,
        64 if f64::from_bits(bits).is_subnormal() => bits & (1 << 63),
        _ => bits,
    }
}

/// A quiet NaN from any NaN.
pub(crate) fn quiet32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// A quiet NaN from any NaN.
pub(crate) fn quiet64(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | 0x0008_0000_0000_0000)
}

fn is_snan32(x: f32) -> bool {
    x.is_nan() && x.to_bits() & 0x0040_0000 == 0
}

fn is_snan64(x: f64) -> bool {
    x.is_nan() && x.to_bits() & 0x0008_0000_0000_0000 == 0
}

/// AMD's f32 minimum or maximum: `-0 < +0`; in IEEE mode a signalling NaN input gives its
/// quieted self, otherwise a NaN loses to a number.
pub(crate) fn minmax32(a: f32, b: f32, max: bool, ieee: bool) -> f32 {
    if ieee {
        if is_snan32(a) {
            return quiet32(a);
        }
        if is_snan32(b) {
            return quiet32(b);
        }
    }
    if b.is_nan() {
        return a;
    }
    if a.is_nan() {
        return b;
    }
    let a_first = if max { gt_signed_zero(a as f64, b as f64) } else { gt_signed_zero(b as f64, a as f64) };
    if a_first {
        a
    } else {
        b
    }
}

/// AMD's f64 minimum or maximum (see [`minmax32`]).
pub(crate) fn minmax64(a: f64, b: f64, max: bool, ieee: bool) -> f64 {
    if ieee {
        if is_snan64(a) {
            return quiet64(a);
        }
        if is_snan64(b) {
            return quiet64(b);
        }
    }
    if b.is_nan() {
        return a;
    }
    if a.is_nan() {
        return b;
    }
    let a_first = if max { gt_signed_zero(a, b) } else { gt_signed_zero(b, a) };
    if a_first {
        a
    } else {
        b
    }
}

/// `a > b` where `+0 > -0`.
fn gt_signed_zero(a: f64, b: f64) -> bool {
    a > b || (a == 0.0 && b == 0.0 && !a.is_sign_negative() && b.is_sign_negative())
}

/// The median of three (a NaN anywhere gives the minimum of the three, as the pseudocode
/// says).
pub(crate) fn med3(a: f64, b: f64, c: f64, min: impl Fn(f64, f64) -> f64, max: impl Fn(f64, f64) -> f64) -> f64 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return min(min(a, b), c);
    }
    let m = max(max(a, b), c);
    if m == a {
        max(b, c)
    } else if m == b {
        max(a, c)
    } else {
        max(a, b)
    }
}

/// `frexp` exponent: `x = mant * 2^exp` with `mant` in [0.5, 1); 0 for 0, infinities and NaN.
pub(crate) fn frexp_exp(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let (_, e) = frexp(x);
    e
}

/// `frexp` mantissa: in [0.5, 1) with the sign of `x`; infinities and NaN unchanged; 0 stays.
pub(crate) fn frexp_mant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    frexp(x).0
}

fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Denormal: normalize first.
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let mant = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (mant, exp - 1022)
}

/// `x * 2^n`, exactly rounded once (n saturated to a range where the result is decided).
pub(crate) fn ldexp(x: f64, n: i32) -> f64 {
    let n = n.clamp(-2200, 2200);
    // Split so that no intermediate overflows or underflows before the last step.
    let (a, b) = (n / 2, n - n / 2);
    x * 2f64.powi(a) * 2f64.powi(b)
}

/// `x * 2^n` for f32, rounded once to f32.
pub(crate) fn ldexp32(x: f32, n: i32) -> f32 {
    ldexp(x as f64, n.clamp(-400, 400)) as f32
}

/// `x * 2^n` for f16, rounded once to f16.
pub(crate) fn ldexp16(x: u16, n: i32) -> u16 {
    f64_to_f16(ldexp(f16_to_f64(x), n.clamp(-100, 100)))
}

/// `v_cmp_class`: whether the class of `x` (given as f64, with `snan` saying whether it was a
/// signalling NaN and `denormal` whether it was a denormal of its own type) is in `mask`.
pub(crate) fn class_of(x: f64, snan: bool, denormal: bool, mask: u32) -> bool {
    let neg = x.is_sign_negative();
    let bit = if x.is_nan() {
        if snan {
            0
        } else {
            1
        }
    } else if x.is_infinite() {
        if neg {
            2
        } else {
            9
        }
    } else if x == 0.0 {
        if neg {
            5
        } else {
            6
        }
    } else if denormal {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        3
    } else {
        8
    };
    mask >> bit & 1 != 0
}

/// Whether float bits of `width` are a signalling NaN.
pub(crate) fn is_snan(bits: u64, width: u32) -> bool {
    match width {
        16 => bits as u16 & 0x7c00 == 0x7c00 && bits as u16 & 0x3ff != 0 && bits & 0x200 == 0,
        32 => is_snan32(f32::from_bits(bits as u32)),
        _ => is_snan64(f64::from_bits(bits)),
    }
}

/// `sin(2 pi x)` or `cos(2 pi x)`, for the `v_sin`/`v_cos` operations (the argument is in
/// revolutions, reduced exactly before the f64 evaluation; the exact zeros stay exact).
pub(crate) fn sin_cos_revolutions(x: f64, cos: bool) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - x.round(); // exact for f32 and f16 inputs, in [-0.5, 0.5]
                           // cos(2 pi r) = sin(2 pi (r + 1/4)), reduced again.
    let r = if cos { (r + 0.25) - (r + 0.25).round() } else { r };
    if r == 0.0 || r.abs() == 0.5 {
        return 0.0;
    }
    (r * core::f64::consts::TAU).sin()
}

/// Float to integer conversion as the hardware does it: NaN gives 0, out-of-range values
/// saturate, the rest truncate toward zero.
pub(crate) fn to_int(x: f64, min: f64, max: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(min, max) as i64
    }
}

/// The first 1201 fraction bits of 2/π, most significant first, zero past them: the constant
/// `v_trig_preop_f64` holds (computed with mpmath at 1400 bits; its first 37 words are LLVM's
/// constant-folding table for the instruction).
const TWO_OVER_PI_BITS: [u32; 38] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a,
    0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf,
    0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
    0x56033046, 0xfc7b0000,
];

/// `v_trig_preop_f64`, as the ISA's pseudocode defines it: the 53 bits of 2/π from bit
/// `shift = 53 * (segment & 31)` (plus the exponent field of `x` past 1077), scaled by
/// 2^(-53 - shift) (2^128 more when the exponent field is 1968 or above); a NaN is quieted.
pub(crate) fn trig_preop(x: f64, segment: u32) -> f64 {
    if x.is_nan() {
        return f64::from_bits(x.to_bits() | 1 << 51);
    }
    let exponent = ((x.to_bits() >> 52) & 0x7ff) as i32;
    let shift = (segment & 31) as i32 * 53 + (exponent - 1077).max(0);
    let bits = (shift..shift + 53).fold(0u64, |acc, at| {
        let at = at as usize;
        let bit = TWO_OVER_PI_BITS.get(at / 32).map_or(0, |w| (w >> (31 - at % 32)) & 1);
        acc << 1 | bit as u64
    });
    let scale = -53 - shift + if exponent >= 1968 { 128 } else { 0 };
    ldexp(bits as f64, scale)
}

/// Round to nearest, ties to even.
pub(crate) fn rndne(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// `x - floor(x)`, below 1 (the hardware clamps to the largest value under 1).
pub(crate) fn fract(x: f64, below_one: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    (x - x.floor()).min(below_one)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments of 2/π: for |x| below 2^55 the first is 2/π truncated to 53 bits and the three
    /// add up to 2/π within 2^-159; past that the exponent drops leading bits (2^56 drops two,
    /// whose product with x is a multiple of 4); from exponent field 1968 the scale gains 2^128.
    #[test]
    fn trig_preop_segments_of_two_over_pi() {
        let two_over_pi = std::f64::consts::FRAC_2_PI;
        let s = |x: f64, i: u32| trig_preop(x, i);
        assert!(s(1.0, 0) <= two_over_pi && two_over_pi - s(1.0, 0) <= 2f64.powi(-53));
        assert_eq!(s(1.0, 0).to_bits(), s(-3.0, 0).to_bits());
        assert!((s(1.0, 0) + s(1.0, 1) - two_over_pi).abs() <= 2f64.powi(-54));
        assert!(s(1.0, 2) < 2f64.powi(-105) && s(1.0, 2) >= 2f64.powi(-107));
        // 0.101000101111...: 2^56 (field 1079) skips the first two bits, 1/2 and 1/8 with the
        // next ones, so the segment is what is left below 2^-2.
        let skipped = s(1.0, 0) - 0.5;
        assert!((s(2f64.powi(56), 0) - skipped).abs() <= 2f64.powi(-53));
        // Field 1967 starts at bit 891 (weight 2^-891), field 1968 a bit later and 2^128 up.
        let (before, big) = (s(f64::from_bits(1967u64 << 52), 0), s(f64::from_bits(1968u64 << 52), 0));
        let top = 2f64.powi(-891);
        let rest = if before >= top { before - top } else { before };
        assert!(big > 2f64.powi(-900) && (ldexp(big, -128) - rest).abs() <= 2f64.powi(-944));
        assert!(s(f64::NAN, 0).is_nan());
    }

    #[test]
    fn f16_round_trips_and_rounds_to_even() {
        for h in [0u16, 0x8000, 0x3c00, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0x3555] {
            assert_eq!(f64_to_f16(f16_to_f64(h)), h, "{h:#x}");
        }
        // 1 + 2^-11 is halfway between 1 and the next f16: ties to even (1.0).
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        // A little above the tie rounds up.
        assert_eq!(f64_to_f16_sticky(1.0 + 2f64.powi(-11), 1e-30), 0x3c01);
        assert_eq!(f64_to_f16(65520.0), 0x7c00);
        assert_eq!(f64_to_f16(65519.0), 0x7bff);
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0, "the tie at half the smallest denormal goes to even");
        assert_eq!(f64_to_f16(3.0 * 2f64.powi(-26)), 1);
        assert_eq!(f64_to_f16_rtz(1.0 + 3.0 * 2f64.powi(-11)), 0x3c01);
        assert_eq!(f64_to_f16_rtz(1e9), 0x7bff);
    }

    #[test]
    fn f16_fma_rounds_once() {
        // 1 * (1 + 2^-10) + 2^-11 * (1 + tiny): the exact sum is just above a tie.
        let a = 0x3c00;
        let b = 0x3c01;
        let c = f64_to_f16(2f64.powi(-11));
        assert_eq!(fma_f16(a, b, c), f64_to_f16(f16_to_f64(b) + 2f64.powi(-11)));
        let big = f64_to_f16(2048.0);
        let tiny = f64_to_f16(2f64.powi(-20));
        // 2048 + 1 is a tie between 2048 and 2050: even is 2048; a tiny extra rounds up.
        assert_eq!(fma_f16(big, 0x3c00, f64_to_f16(1.0)), big);
        let one_plus = fma_f16(0x3c00, f64_to_f16(1.0), tiny);
        assert_eq!(one_plus, 0x3c00);
        assert_eq!(fma_f16(f64_to_f16(1.0 + 2f64.powi(-10)), f64_to_f16(2048.0), f64_to_f16(-1.0)), f64_to_f16(2049.0));
    }

    #[test]
    fn amd_operations_follow_the_pseudocode() {
        assert_eq!(frexp_exp(8.0), 4);
        assert_eq!(frexp_mant(-8.0), -0.5);
        assert_eq!(frexp_exp(f64::from_bits(1)), -1073);
        assert!(class_of(-0.0, false, false, 1 << 5));
        assert!(class_of(1e-310, false, true, 1 << 7));
        assert_eq!(minmax32(-0.0, 0.0, true, true).to_bits(), 0.0f32.to_bits());
        assert_eq!(minmax32(f32::NAN, 1.0, false, true), 1.0);
        assert_eq!(rndne(2.5), 2.0);
        assert_eq!(rndne(-3.5), -4.0);
        assert!((sin_cos_revolutions(0.25, false) - 1.0).abs() < 1e-15);
    }
}
