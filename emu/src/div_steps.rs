//! The steps of AMD's division macro, `v_div_scale`, `v_div_fmas` and `v_div_fixup`, on raw
//! bits of any float format they exist in, as the ISA pseudocode of the RDNA3 and CDNA3 guides
//! defines them case by case (`exponent()` is the raw biased field, `DENORM` a denormal of the
//! type named, `D0 = S0` where no case writes it). Each result is rounded once.
//!
//! The macro (clang's and ours): `d' = div_scale(d, d, n)`, `n' = div_scale(n, d, n)` (VCC),
//! `r = rcp(d')` refined by FMAs, `q = n' * r` refined by FMAs, `div_fmas` (undoing the scaling
//! when VCC is set), `div_fixup(q, d, n)`. The hardware runs it for correctly rounded
//! division, and the guides' text contradicts that in four places, where this module departs
//! from the letter (its tests run the whole macro against the CPU's quotient):
//!
//! - `v_div_scale`, "the reciprocal would be denormal": a denormal of the operation's type, as
//!   the f64 text says; the f32 text widens the operand first (`1.0 / 64'F(S1.f32) ==
//!   DENORM.f64`), which no f32 satisfies, and would leave the macro a denormal reciprocal
//!   for every |d| >= 2^126 and quotients 1 ulp off (2^64 / FLT_MAX), against the step's
//!   stated purpose of keeping denormal terms out of the Newton-Raphson iteration.
//! - `v_div_scale`, the case "reciprocal and quotient both denormal" scales the denominator by
//!   2^+64 (2^+128) in the text, which overflows every denominator the case selects
//!   (1 / FLT_MAX and 1 / DBL_MAX then come out NaN); it scales by 2^-64 (2^-128), as the
//!   next case does, and `v_div_fmas` scales the quotient back down.
//! - `v_div_fmas` with VCC set scales by the amount `v_div_scale` used, 2^64 (f32) or 2^128
//!   (f64), up when the quotient estimate `S2` has an exponent above the bias (|S2| >= 2:
//!   the denominator was scaled up) and down otherwise (the numerator, or the denominator down),
//!   rounding once; the text's fixed 2^32 and 2^64 undo nothing. (So documented for GCN by CLRX,
//!   and so tinygrad's hardware-checked emulator does.)
//! - `v_div_fixup`: a NaN quotient estimate with ordinary operands gives ±inf (as on the
//!   hardware, per the same two sources), not the text's ±|NaN|: it is what a denominator
//!   flushed to zero inside the macro leaves.
//!
//! The text leaves `v_div_fixup`'s `UNDERFLOW` and `OVERFLOW` undefined: they are ±0 and ±inf,
//! the round-to-nearest results of the quotients those cases select (below 2^-150 or 2^-1075).
//!
//! Everything else is the letter, including what differs from other emulators: VCC is 0 for
//! a zero operand, for a denormal denominator (unless the exponents are 96 or 768 apart) and
//! for a tiny numerator (both operands are scaled alike there, so the quotient needs no
//! post-scaling), and `v_div_fixup_f16` has no underflow or overflow case.

/// A binary float format, by the widths of its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Format {
    /// Bits of the fraction field.
    frac: u32,
    /// Bits of the exponent field.
    exp: u32,
}

/// IEEE binary16.
pub(crate) const F16: Format = Format { frac: 10, exp: 5 };
/// IEEE binary32.
pub(crate) const F32: Format = Format { frac: 23, exp: 8 };
/// IEEE binary64.
pub(crate) const F64: Format = Format { frac: 52, exp: 11 };

/// A finite value as `(-1)^neg * mag * 2^exp`.
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    mag: u128,
    exp: i32,
}

impl Format {
    fn sign(self) -> u64 {
        1 << (self.frac + self.exp)
    }

    /// The operand's bits of this format (a register holds more).
    fn bits(self, x: u64) -> u64 {
        x & (u64::MAX >> (63 - self.frac - self.exp))
    }

    fn exp_max(self) -> i32 {
        (1 << self.exp) - 1
    }

    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }

    fn inf(self) -> u64 {
        (self.exp_max() as u64) << self.frac
    }

    fn quiet_bit(self) -> u64 {
        1 << (self.frac - 1)
    }

    /// The quiet NaN the hardware writes for an invalid operation.
    fn default_nan(self) -> u64 {
        self.inf() | self.quiet_bit()
    }

    /// The pseudocode's `exponent()`: the biased exponent field.
    fn exponent(self, x: u64) -> i32 {
        ((x >> self.frac) as i32) & self.exp_max()
    }

    fn fraction(self, x: u64) -> u64 {
        x & ((1 << self.frac) - 1)
    }

    fn is_nan(self, x: u64) -> bool {
        self.exponent(x) == self.exp_max() && self.fraction(x) != 0
    }

    fn is_inf(self, x: u64) -> bool {
        x & !self.sign() == self.inf()
    }

    fn is_zero(self, x: u64) -> bool {
        x & !self.sign() == 0
    }

    fn is_denormal(self, x: u64) -> bool {
        self.exponent(x) == 0 && self.fraction(x) != 0
    }

    /// A finite value, exactly.
    fn exact(self, x: u64) -> Exact {
        let (e, f) = (self.exponent(x), self.fraction(x));
        let neg = x & self.sign() != 0;
        let low = 1 - self.bias() - self.frac as i32;
        if e == 0 {
            Exact { neg, mag: f.into(), exp: low }
        } else {
            Exact { neg, mag: (f | 1 << self.frac).into(), exp: low + e - 1 }
        }
    }

    /// The value as an f64 (exact; a NaN stays a NaN), for comparisons and f64 arithmetic.
    fn value(self, x: u64) -> f64 {
        if self == F64 {
            return f64::from_bits(x);
        }
        if self.exponent(x) == self.exp_max() {
            let inf = if x & self.sign() != 0 { f64::NEG_INFINITY } else { f64::INFINITY };
            return if self.fraction(x) == 0 { inf } else { f64::NAN };
        }
        // At most 24 significant bits and exponents within f64's normal range: exact.
        let v = self.exact(x);
        let m = v.mag as f64 * 2f64.powi(v.exp);
        if v.neg {
            -m
        } else {
            m
        }
    }

    /// An exact value rounded once to this format, to nearest even (overflow gives ±inf).
    fn round(self, v: Exact) -> u64 {
        let sign = if v.neg { self.sign() } else { 0 };
        if v.mag == 0 {
            return sign;
        }
        let msb = 127 - v.mag.leading_zeros() as i32;
        let emin = 1 - self.bias();
        let scale = (msb + v.exp).max(emin);
        let shift = scale - self.frac as i32 - v.exp;
        let q = if shift <= 0 {
            v.mag << -shift
        } else if shift >= 128 {
            0 // below half the quantum: v.mag < 2^127
        } else {
            let (q, rem, half) = (v.mag >> shift, v.mag & ((1 << shift) - 1), 1u128 << (shift - 1));
            q + u128::from(rem > half || (rem == half && q & 1 == 1))
        };
        // q holds the hidden bit for a normal result; a carry out of the fraction moves the
        // exponent field up by itself, and a denormal that rounds up becomes the least normal.
        let bits = (((scale + self.bias() - 1) as u64) << self.frac) + q as u64;
        sign | bits.min(self.inf())
    }

    /// An f64 value rounded to this format (a NaN becomes the default NaN).
    fn rounded(self, x: f64) -> u64 {
        if x.is_nan() {
            return self.default_nan();
        }
        let sign = if x.is_sign_negative() { self.sign() } else { 0 };
        if x.is_infinite() {
            return sign | self.inf();
        }
        self.round(F64.exact(x.to_bits()))
    }

    /// `ldexp(x, n)`, rounded once; a NaN is quieted, infinities and zeros stay.
    fn ldexp(self, x: u64, n: i32) -> u64 {
        if self.is_nan(x) {
            return x | self.quiet_bit();
        }
        if self.is_inf(x) || self.is_zero(x) {
            return x;
        }
        let v = self.exact(x);
        self.round(Exact { exp: v.exp + n, ..v })
    }

    /// `v_div_scale`'s constants: the exponent gap of a huge quotient, the scaling exponent,
    /// and the largest exponent field of a tiny numerator.
    fn scale_constants(self) -> (i32, i32, i32) {
        if self == F64 {
            (768, 128, 53)
        } else {
            (96, 64, 23)
        }
    }
}

/// `v_div_scale(s0, s1 = denominator, s2 = numerator)` of `fmt` (f32 or f64): the scaled `s0`
/// and the lane's VCC bit.
pub(crate) fn scale(fmt: Format, s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (s0, den, num) = (fmt.bits(s0), fmt.bits(s1), fmt.bits(s2));
    let (gap, by, tiny) = fmt.scale_constants();
    let value = |x| fmt.value(x);
    let is = |x: u64| value(s0) == value(x);
    if value(num) == 0.0 || value(den) == 0.0 {
        return (fmt.default_nan(), false);
    }
    if fmt.exponent(num) - fmt.exponent(den) >= gap {
        // N/D near the largest float: only the denominator is scaled.
        return (if is(den) { fmt.ldexp(s0, by) } else { s0 }, true);
    }
    if fmt.is_denormal(den) {
        return (fmt.ldexp(s0, by), false);
    }
    // `x / den` rounded to the format is a denormal (f64 division rounds f32 quotients once).
    let denormal_over = |x: f64| fmt.is_denormal(fmt.rounded(x / value(den)));
    let recip_denormal = denormal_over(1.0);
    let quotient_denormal = denormal_over(value(num));
    if recip_denormal && quotient_denormal {
        // Only the denominator is scaled, down (see the module's notes).
        return (if is(den) { fmt.ldexp(s0, -by) } else { s0 }, true);
    }
    if recip_denormal {
        return (fmt.ldexp(s0, -by), false);
    }
    if quotient_denormal {
        // Only the numerator is scaled.
        return (if is(num) { fmt.ldexp(s0, by) } else { s0 }, true);
    }
    if fmt.exponent(num) <= tiny {
        // The numerator is tiny: both are scaled alike.
        return (fmt.ldexp(s0, by), false);
    }
    (s0, false)
}

/// `v_div_fmas(s0, s1, s2)` of `fmt` (f32 or f64): `s0 * s1 + s2`, scaled when `vcc` is set by
/// what `v_div_scale` applied (up when `s2`'s exponent is above the bias), rounded once.
pub(crate) fn fmas(fmt: Format, s0: u64, s1: u64, s2: u64, vcc: bool) -> u64 {
    let [a, b, c] = [s0, s1, s2].map(|x| fmt.bits(x));
    let (_, by, _) = fmt.scale_constants();
    let n = match vcc {
        false => 0,
        true if fmt.exponent(c) > fmt.bias() => by,
        true => -by,
    };
    if let Some(&nan) = [a, b, c].iter().find(|&&x| fmt.is_nan(x)) {
        return nan | fmt.quiet_bit();
    }
    if [a, b, c].iter().any(|&x| fmt.is_inf(x)) {
        // inf * 0 and inf - inf are invalid; otherwise the infinity decides.
        return fmt.rounded(fmt.value(a).mul_add(fmt.value(b), fmt.value(c)));
    }
    let (va, vb, vc) = (fmt.exact(a), fmt.exact(b), fmt.exact(c));
    let product = Exact { neg: va.neg != vb.neg, mag: va.mag * vb.mag, exp: va.exp + vb.exp };
    let terms = [product, vc];
    let top = terms.iter().filter(|t| t.mag != 0).map(|t| t.exp + 127 - t.mag.leading_zeros() as i32).max();
    // Both terms aligned to a common exponent 124 bits below the larger one's top bit: the
    // larger is exact, the smaller keeps what it loses below there as a sticky low bit, far
    // below where the sum is rounded (the terms cannot cancel that deep: the smaller is
    // then at least 19 bits below the larger).
    let sum = top.map_or(0i128, |top| {
        let base = top - 124;
        terms
            .iter()
            .map(|t| {
                let aligned = if t.mag == 0 {
                    0
                } else if t.exp >= base {
                    t.mag << (t.exp - base)
                } else {
                    let shift = (base - t.exp).min(127) as u32;
                    t.mag >> shift | u128::from(t.mag & ((1 << shift) - 1) != 0)
                };
                if t.neg {
                    -(aligned as i128)
                } else {
                    aligned as i128
                }
            })
            .sum()
    });
    match top {
        // An exact zero takes IEEE's sign rules, which the f64 FMA of the values follows.
        Some(top) if sum != 0 => fmt.round(Exact { neg: sum < 0, mag: sum.unsigned_abs(), exp: top - 124 + n }),
        _ => fmt.rounded(fmt.value(a).mul_add(fmt.value(b), fmt.value(c))),
    }
}

/// `v_div_fixup(s0 = quotient estimate, s1 = denominator, s2 = numerator)` of `fmt`: the
/// special cases of the division, else the estimate with the quotient's sign.
pub(crate) fn fixup(fmt: Format, s0: u64, s1: u64, s2: u64) -> u64 {
    let (q, den, num) = (fmt.bits(s0), fmt.bits(s1), fmt.bits(s2));
    let sign_out = (den ^ num) & fmt.sign();
    // The exponent gap below which the quotient rounds to zero (f16 has no such case).
    let underflow_gap = match fmt {
        F32 => Some(-150),
        F64 => Some(-1075),
        _ => None,
    };
    let signed = |magnitude: u64| sign_out | magnitude;
    let (zero, inf) = (0, fmt.inf());
    // The guides leave UNDERFLOW and OVERFLOW open: to nearest, they are zero and infinity.
    let (underflow, overflow) = (zero, inf);
    if fmt.is_nan(num) {
        num | fmt.quiet_bit()
    } else if fmt.is_nan(den) {
        den | fmt.quiet_bit()
    } else if (fmt.is_zero(den) && fmt.is_zero(num)) || (fmt.is_inf(den) && fmt.is_inf(num)) {
        fmt.sign() | fmt.default_nan()
    } else if fmt.is_zero(den) || fmt.is_inf(num) {
        signed(inf)
    } else if fmt.is_inf(den) || fmt.is_zero(num) {
        signed(zero)
    } else if underflow_gap.is_some_and(|gap| fmt.exponent(num) - fmt.exponent(den) < gap) {
        signed(underflow)
    } else if underflow_gap.is_some() && fmt.exponent(den) == fmt.exp_max() {
        signed(overflow) // (the cases above leave no operand this could apply to)
    } else if fmt.is_nan(q) {
        signed(inf)
    } else {
        signed(q & !fmt.sign())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        x.to_bits().into()
    }

    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    /// The negation of `x`.
    fn neg(fmt: Format, x: u64) -> u64 {
        x ^ fmt.sign()
    }

    /// `a * b` rounded once (an FMA adding -0 leaves every product as it is).
    fn mul(fmt: Format, a: u64, b: u64) -> u64 {
        fmas(fmt, a, b, fmt.sign(), false)
    }

    /// `fma(a, b, c)`, as `v_fma` computes it.
    fn fma(fmt: Format, a: u64, b: u64, c: u64) -> u64 {
        fmas(fmt, a, b, c, false)
    }

    /// `n / d` by the division macro clang-19 emits for `fmt` (gfx1100 and gfx942 alike), with
    /// a correctly rounded `v_rcp` as the emulator's.
    fn divide(fmt: Format, n: u64, d: u64) -> u64 {
        let one = fmt.rounded(1.0);
        let ds = scale(fmt, d, d, n).0;
        let mut r = fmt.rounded(1.0 / fmt.value(ds));
        let (ns, vcc) = scale(fmt, n, d, n);
        let t;
        let mut q;
        if fmt == F32 {
            let e = fma(fmt, neg(fmt, ds), r, one);
            r = fma(fmt, e, r, r);
            q = mul(fmt, ns, r);
            let t1 = fma(fmt, neg(fmt, ds), q, ns);
            q = fma(fmt, t1, r, q);
            t = fma(fmt, neg(fmt, ds), q, ns);
        } else {
            for _ in 0..2 {
                let e = fma(fmt, neg(fmt, ds), r, one);
                r = fma(fmt, r, e, r);
            }
            q = mul(fmt, ns, r);
            t = fma(fmt, neg(fmt, ds), q, ns);
        }
        fixup(fmt, fmas(fmt, t, r, q, vcc), d, n)
    }

    /// Edge values of a format: zeros, the extreme denormals and normals, near the largest,
    /// powers of two around the scaling thresholds, ordinary values, infinities and NaN, of
    /// both signs.
    fn edges(fmt: Format) -> Vec<u64> {
        let max = fmt.inf() - 1;
        let least_normal = 1 << fmt.frac;
        let (gap, by, _) = fmt.scale_constants();
        let mut v = vec![0, 1, 2, 3, least_normal - 1, least_normal, least_normal + 1, max, max - 1, fmt.inf()];
        v.push(fmt.default_nan());
        for x in [1.0, 2.0, 3.7, 1.5, 0.1, 7.0, 1.0 / 3.0, 1e-30, 1e30, 1e38, 3e38, 1e-38, 1e-300, 1e300, 1e308] {
            v.push(fmt.rounded(x));
        }
        let bias = fmt.bias();
        for e in [-bias + 1, -bias + 2, -by, -by - 1, by, by + 1, gap, gap - 1, bias - 1, bias, 1 - gap, -gap] {
            for m in [1.0, 1.75] {
                v.push(fmt.rounded(m * 2f64.powi(e)));
            }
        }
        v.retain(|&x| !fmt.is_inf(x) || x == fmt.inf());
        let negated: Vec<u64> = v.iter().map(|&x| neg(fmt, x)).collect();
        v.extend(negated);
        v.sort_unstable();
        v.dedup();
        v
    }

    /// xorshift64*: reproducible operands.
    fn randoms(mut s: u64, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                s.wrapping_mul(0x2545_f491_4f6c_dd1d)
            })
            .collect()
    }

    /// The macro's quotient against the CPU's correctly rounded one, over every pair of edge
    /// values and random pairs of any exponent; the failures, at most a few.
    fn macro_failures(fmt: Format, cpu: impl Fn(u64, u64) -> u64) -> Vec<String> {
        let e = edges(fmt);
        let mut pairs: Vec<(u64, u64)> = e.iter().flat_map(|&n| e.iter().map(move |&d| (n, d))).collect();
        let r = randoms(0x9e37_79b9_7f4a_7c15, 40_000);
        pairs.extend(r.chunks(2).map(|p| (fmt.bits(p[0]), fmt.bits(p[1]))));
        let mut bad = Vec::new();
        for (n, d) in pairs {
            let (got, want) = (divide(fmt, n, d), cpu(n, d));
            let same = got == want || (fmt.is_nan(got) && fmt.is_nan(want));
            if !same && bad.len() < 8 {
                bad.push(format!("{n:#x} / {d:#x}: got {got:#x}, want {want:#x}"));
            }
        }
        bad
    }

    #[test]
    fn the_f32_macro_rounds_every_edge_quotient_correctly() {
        let cpu = |n: u64, d: u64| f(f32::from_bits(n as u32) / f32::from_bits(d as u32));
        let bad = macro_failures(F32, cpu);
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn the_f64_macro_rounds_every_edge_quotient_correctly() {
        let bad = macro_failures(F64, |n, m| (f64::from_bits(n) / f64::from_bits(m)).to_bits());
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// Issue 14's reproducer 6: a tiny quotient of a huge denominator.
    #[test]
    fn a_huge_denominator_gives_the_denormal_quotient() {
        for y in [f32::MAX, 1e38, -f32::MAX] {
            for x in [1.0f32, 3.7, 2.0] {
                assert_eq!(divide(F32, f(x), f(y)), f(x / y), "{x} / {y}");
            }
        }
        for y in [f64::MAX, 1e308, -f64::MAX] {
            for x in [1.0, 3.7, 2.0] {
                assert_eq!(divide(F64, d(x), d(y)), d(x / y), "{x} / {y}");
            }
        }
    }

    fn p32(e: i32) -> u64 {
        f(2f32.powi(e))
    }

    fn p64(e: i32) -> u64 {
        d(2f64.powi(e))
    }

    /// Checks `v_div_scale` on `(numerator, denominator, what S0 = the denominator gives, what
    /// S0 = the numerator gives, VCC)`.
    fn check_scale(fmt: Format, cases: &[(u64, u64, u64, u64, bool)]) {
        for &(num, den, want_den, want_num, vcc) in cases {
            assert_eq!(scale(fmt, den, den, num), (want_den, vcc), "S0 = den, {num:#x} / {den:#x}");
            assert_eq!(scale(fmt, num, den, num), (want_num, vcc), "S0 = num, {num:#x} / {den:#x}");
        }
    }

    /// Each case of `v_div_scale_f32` in the pseudocode's order, for S0 = the denominator and
    /// S0 = the numerator: what it writes and the VCC bit.
    #[test]
    fn div_scale_f32_cases() {
        let nan = f(f32::NAN);
        let max = f(f32::MAX);
        let cases = [
            // A zero operand: NaN, VCC clear.
            (f(1.0), f(0.0), nan, nan, false),
            (f(-0.0), f(1e-40), nan, nan, false),
            // Exponents 96 or more apart: the denominator scaled up, VCC set.
            (p32(100), p32(-30), p32(34), p32(100), true),
            (f(1.0), p32(-140), p32(-76), f(1.0), true),
            (f(-3.0), f(-1e-45), f(-1e-45 * 2f32.powi(64)), f(-3.0), true),
            // A denormal denominator otherwise: both scaled up, VCC clear.
            (p32(-100), p32(-140), p32(-76), p32(-36), false),
            (f(-1e-40), f(3e-41), f(3e-41 * 2f32.powi(64)), f(-1e-40 * 2f32.powi(64)), false),
            // Reciprocal and quotient denormal: the denominator scaled down, VCC set.
            (f(1.0), max, f(f32::MAX * 2f32.powi(-64)), f(1.0), true),
            (f(-1.0), f(1e38), f(1e38 * 2f32.powi(-64)), f(-1.0), true),
            (f(-3.7), f(1e38), f(1e38 * 2f32.powi(-64)), f(-3.7 * 2f32.powi(-64)), false),
            // Reciprocal denormal: both scaled down, VCC clear.
            (p32(100), p32(127), p32(63), p32(36), false),
            (max, max, f(f32::MAX * 2f32.powi(-64)), f(f32::MAX * 2f32.powi(-64)), false),
            // Quotient denormal: the numerator scaled up, VCC set.
            (p32(-120), p32(10), p32(10), p32(-56), true),
            (f(1e-40), f(3.0), f(3.0), f(1e-40 * 2f32.powi(64)), true),
            // A tiny numerator (exponent field 23 or less): both scaled up, VCC clear.
            (p32(-110), p32(-20), p32(44), p32(-46), false),
            // (1e-45 / 3 rounds to zero, which is no denormal.)
            (f(1e-45), f(3.0), f(3.0 * 2f32.powi(64)), f(1e-45 * 2f32.powi(64)), false),
            (f(f32::MIN_POSITIVE), f(0.5), f(0.5 * 2f32.powi(64)), f(f32::MIN_POSITIVE * 2f32.powi(64)), false),
            // Nothing to do.
            (f(6.0), f(3.0), f(3.0), f(6.0), false),
            (f(1.0), f(f32::INFINITY), f(f32::INFINITY), f(1.0), false),
            // An infinite or NaN numerator has the largest exponent field: VCC set.
            (nan, f(1.0), p32(64), nan, true),
            (f(f32::NEG_INFINITY), f(2.0), p32(65), f(f32::NEG_INFINITY), true),
        ];
        check_scale(F32, &cases);
        // Only the low 32 bits of the registers are the operands.
        assert_eq!(scale(F32, 1 << 40 | f(3.0), f(3.0), f(6.0)), (f(3.0), false));
    }

    /// `v_div_scale_f64`: the same cases with 768, 2^128 and the numerator's field 53.
    #[test]
    fn div_scale_f64_cases() {
        let nan = d(f64::NAN);
        let max = d(f64::MAX);
        let cases = [
            (d(0.0), d(2.0), nan, nan, false),
            (p64(800), p64(20), p64(148), p64(800), true),
            (d(1.0), d(5e-324), d(5e-324 * 2f64.powi(128)), d(1.0), true),
            (p64(-1000), p64(-1030), p64(-902), p64(-872), false),
            (d(1.0), max, d(f64::MAX * 2f64.powi(-128)), d(1.0), true),
            (d(2.0), d(-1e308), d(-1e308 * 2f64.powi(-128)), d(2.0), true),
            (p64(1000), p64(1023), p64(895), p64(872), false),
            (p64(-1020), p64(10), p64(10), p64(-892), true),
            (p64(-970), p64(-20), p64(108), p64(-842), false),
            (d(6.0), d(3.0), d(3.0), d(6.0), false),
            (d(f64::INFINITY), d(1.0), p64(128), d(f64::INFINITY), true),
        ];
        check_scale(F64, &cases);
    }

    /// `v_div_fmas`: the fused result, scaled by 2^64 (2^128) up when S2's exponent field is
    /// above the bias and down otherwise, rounded once.
    #[test]
    fn div_fmas_scales_by_the_estimate_and_rounds_once() {
        assert_eq!(fmas(F32, f(2.0), f(3.0), f(1.0), false), f(7.0));
        assert_eq!(fmas(F32, f(2.0), f(3.0), f(1.0), true), f(7.0 * 2f32.powi(-64)));
        // S2 in [1, 2): exponent field 127, not above the bias: down.
        assert_eq!(fmas(F32, f(0.0), f(0.0), f(1.5), true), f(1.5 * 2f32.powi(-64)));
        assert_eq!(fmas(F32, f(0.0), f(0.0), f(-1.0), true), f(-(2f32.powi(-64))));
        assert_eq!(fmas(F32, f(0.0), f(0.0), f(2.0), true), p32(65));
        assert_eq!(fmas(F32, f(0.25), f(4.0), f(0.5), true), f(1.5 * 2f32.powi(-64)));
        assert_eq!(fmas(F32, f(0.0), f(0.0), f(3e38), true), f(f32::INFINITY));
        assert_eq!(fmas(F64, d(0.0), d(0.0), d(1.5), true), d(1.5 * 2f64.powi(-128)));
        assert_eq!(fmas(F64, d(1.0), d(1.0), d(3.0), true), p64(130));
        assert_eq!(fmas(F64, d(2.0), d(3.0), d(1.0), false), d(7.0));
        // 5 * 2^-86 + 2^-120 scaled down is 2.5 quanta of the denormals and a little more:
        // up to 3; rounding the fused result first would make it a tie, and even, 2.
        assert_eq!(fmas(F32, p32(-60), p32(-60), f(5.0 * 2f32.powi(-86)), true), 3);
        assert_eq!(fmas(F64, p64(-570), p64(-570), d(5.0 * 2f64.powi(-947)), true), 3);
        // Exact zeros follow IEEE's signs; NaNs are quieted; inf * 0 is invalid.
        assert_eq!(fmas(F32, f(-1.0), f(0.0), f(-0.0), true), f(-0.0));
        assert_eq!(fmas(F32, f(1.0), f(1.0), f(-1.0), false), f(0.0));
        assert_eq!(fmas(F32, 0x7f80_0001, f(1.0), f(1.0), false), 0x7fc0_0001);
        assert!(F32.is_nan(fmas(F32, f(f32::INFINITY), f(0.0), f(1.0), false)));
        assert_eq!(fmas(F64, d(f64::INFINITY), d(-2.0), d(1.0), true), d(f64::NEG_INFINITY));
    }

    /// `v_div_fixup`: every case of the pseudocode in order, for the three formats.
    #[test]
    fn div_fixup_cases() {
        let nan32 = f(f32::NAN);
        let cases32 = [
            // (estimate, denominator, numerator, result)
            (f(2.0), f(3.0), f(6.0), f(2.0)),
            (f(-2.0), f(-3.0), f(6.0), f(-2.0)),
            (f(2.0), f(3.0), f(-6.0), f(-2.0)),
            (f(1.0), f(3.0), 0x7f80_0001, 0x7fc0_0001),
            (f(1.0), 0xff80_0002, f(3.0), 0xffc0_0002),
            (f(1.0), 0x7fc0_0003, 0x7f80_0004, 0x7fc0_0004),
            (f(1.0), f(0.0), f(-0.0), 0xffc0_0000),
            (nan32, f(f32::INFINITY), f(f32::NEG_INFINITY), 0xffc0_0000),
            (f(1.0), f(-0.0), f(2.0), f(f32::NEG_INFINITY)),
            (f(1.0), f(2.0), f(f32::INFINITY), f(f32::INFINITY)),
            (f(1.0), f(f32::NEG_INFINITY), f(2.0), f(-0.0)),
            (f(1.0), f(2.0), f(-0.0), f(-0.0)),
            // Exponent fields 0 and 157: the quotient is below 2^-150 and rounds to zero.
            (f(1e-45), f(-2f32.powi(30)), f(1e-42), f(-0.0)),
            (f(7e-45), f(2f32.powi(23)), f(1e-42), f(7e-45)),
            // A NaN estimate of an ordinary quotient: infinity.
            (nan32, f(3.0), f(-1.0), f(f32::NEG_INFINITY)),
        ];
        for (q, den, num, want) in cases32 {
            assert_eq!(fixup(F32, q, den, num), want, "fixup({q:#x}, {den:#x}, {num:#x})");
        }
        let cases64 = [
            (d(0.5), d(4.0), d(-2.0), d(-0.5)),
            (d(1.0), d(0.0), d(0.0), 0xfff8_0000_0000_0000),
            (d(1.0), 0x7ff0_0000_0000_0001, d(1.0), 0x7ff8_0000_0000_0001),
            (d(1.0), d(-0.0), d(-5.0), d(f64::INFINITY)),
            (d(5e-324), p64(60), d(5e-324), d(0.0)),
            (d(5e-324), p64(50), d(5e-324), d(5e-324)),
            (d(f64::NAN), d(-3.0), d(1.0), d(f64::NEG_INFINITY)),
        ];
        for (q, den, num, want) in cases64 {
            assert_eq!(fixup(F64, q, den, num), want, "fixup({q:#x}, {den:#x}, {num:#x})");
        }
        // f16: no underflow case; 0/0 is 0xfe00.
        let cases16 = [
            (0x4000, 0x4200, 0x4600, 0x4000),
            (0x0001, 0x7bff, 0x0001, 0x0001),
            (0x3c00, 0x0000, 0x8000, 0xfe00),
            (0x3c00, 0x8000, 0x3c00, 0xfc00),
            (0x7e00, 0x4200, 0xbc00, 0xfc00),
            (0x3c00, 0x4200, 0x7c01, 0x7e01),
            (0x3c00, 1 << 16 | 0x4000, 0x4400, 0x3c00),
        ];
        for (q, den, num, want) in cases16 {
            assert_eq!(fixup(F16, q, den, num), want, "fixup({q:#x}, {den:#x}, {num:#x})");
        }
    }
}
