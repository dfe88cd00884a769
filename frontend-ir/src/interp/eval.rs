//! The per-lane meaning of the IR's computational instructions (public, so that whatever
//! computes a value ahead of time, as the optimizer's constant folding, computes exactly this), on values held as bits in a
//! `u64` (integers zero-extended to 64 bits, floats as their IEEE bits, `i1` as 0 or 1).
//!
//! This is the arithmetic half of the reference interpreter's contract (kernel-language.md,
//! "Precision"): integer operations wrap; division is RISC-V's (never traps); float `+ - * /
//! fma sqrt`, conversions and rounding functions are correctly rounded to nearest-even with
//! denormals kept. `rsqrt exp2 log2 sin cos` are computed in f64 and rounded once, so they are
//! within an ulp of the true value; compiled code is compared to them within a documented bound.

use crate::instructions::{BinaryOp, ConvOp, FloatCC, IntCC, ReduceOp, RmwOp, UnaryOp};
use crate::types::{f16_bits_from_f64, Type};
use half::f16;

/// Sign-extends the low `ty.bits()` bits of `x`.
pub fn sext(ty: Type, x: u64) -> i64 {
    let shift = 64 - ty.bits();
    ((x << shift) as i64) >> shift
}

/// A float value of any float type, widened exactly to f64.
fn to_f64(ty: Type, bits: u64) -> f64 {
    match ty {
        Type::F16 => f16::from_bits(bits as u16).to_f64(),
        Type::F32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// Rounds an f64 to `ty` (once, to nearest-even) and returns its bits.
fn from_f64(ty: Type, x: f64) -> u64 {
    match ty {
        Type::F16 => f16_bits_from_f64(x) as u64,
        Type::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// Applies a correctly rounded binary operation. f32 and f64 use the host's IEEE arithmetic;
/// f16 computes in f32 and rounds, which is exact for `+ - * /` and sqrt because f32 carries
/// more than twice f16's precision plus two bits (so the double rounding is innocuous).
fn float_binop(ty: Type, a: u64, b: u64, op32: impl Fn(f32, f32) -> f32, op64: impl Fn(f64, f64) -> f64) -> u64 {
    match ty {
        Type::F64 => op64(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Type::F32 => op32(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        _ => {
            let r = op32(f16::from_bits(a as u16).to_f32(), f16::from_bits(b as u16).to_f32());
            f16::from_f32(r).to_bits() as u64
        }
    }
}

/// As [`float_binop`] for one operand.
fn float_unop(ty: Type, a: u64, op32: fn(f32) -> f32, op64: fn(f64) -> f64) -> u64 {
    float_binop(ty, a, 0, |x, _| op32(x), |x, _| op64(x))
}

/// A function computed in f64 and rounded once to `ty` (exact for the rounding functions).
fn float_via_f64(ty: Type, a: u64, f: fn(f64) -> f64) -> u64 {
    from_f64(ty, f(to_f64(ty, a)))
}

fn is_nan(ty: Type, bits: u64) -> bool {
    to_f64(ty, bits).is_nan()
}

/// IEEE 754-2019's minimumNumber/maximumNumber: a NaN operand, quiet or signalling, gives the
/// other operand, and two NaNs give a quiet NaN (the second, quieted); -0 orders below +0. The
/// hardware in IEEE mode computes this once each operand is canonicalized (`v_max x, x`,
/// which quiets a signalling NaN); what it gives for two NaNs is always quiet, which matters
/// when the result reaches a memory atomic ([`rmw`]), where a signalling NaN wins.
fn float_minmax(ty: Type, a: u64, b: u64, max: bool) -> u64 {
    if is_nan(ty, a) {
        return if is_nan(ty, b) { b | quiet_bit(ty) } else { b };
    }
    if is_nan(ty, b) {
        return a;
    }
    let (x, y) = (to_f64(ty, a), to_f64(ty, b));
    let a_first = if x == y {
        // Equal values: only the zeros differ, by sign. -0 is the minimum.
        let a_neg = x.is_sign_negative();
        if max {
            !a_neg
        } else {
            a_neg
        }
    } else if max {
        x > y
    } else {
        x < y
    };
    if a_first {
        a
    } else {
        b
    }
}

/// `a * b + c` rounded once. The product of two f16 or f32 values is exact in f64; the sum is
/// rounded to odd in f64 and then to the target, which is correct because f64 has more than
/// two bits beyond the target's precision.
fn float_fma(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        Type::F64 => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
        _ => {
            let p = to_f64(ty, a) * to_f64(ty, b);
            let c = to_f64(ty, c);
            let s = p + c;
            if !s.is_finite() {
                return from_f64(ty, s);
            }
            // TwoSum: the exact error of the addition.
            let bp = s - c;
            let err = (p - bp) + (c - (s - bp));
            let mut bits = s.to_bits();
            // A sum that rounds to zero is exact (x + y == 0 only when y == -x), so s != 0 here.
            if err != 0.0 && bits & 1 == 0 {
                // Round to odd: move one ulp toward the exact sum (sign-magnitude bits).
                if (err > 0.0) == (s > 0.0) {
                    bits += 1;
                } else {
                    bits -= 1;
                }
            }
            from_f64(ty, f64::from_bits(bits))
        }
    }
}

/// The result of a unary operation.
pub fn unary(op: UnaryOp, ty: Type, a: u64) -> u64 {
    let m = ty.mask();
    let bits = ty.bits() as u64;
    match op {
        UnaryOp::Neg => a.wrapping_neg() & m,
        UnaryOp::Not => !a & m,
        UnaryOp::Iabs => (sext(ty, a).wrapping_abs() as u64) & m,
        UnaryOp::Popcount => (a & m).count_ones() as u64,
        UnaryOp::Clz => ((a & m).leading_zeros() as u64).saturating_sub(64 - bits),
        UnaryOp::Ctz => ((a & m).trailing_zeros() as u64).min(bits),
        UnaryOp::Fneg => a ^ (1u64 << (bits - 1)),
        UnaryOp::Fabs => a & !(1u64 << (bits - 1)),
        UnaryOp::Sqrt => float_unop(ty, a, f32::sqrt, f64::sqrt),
        UnaryOp::Rsqrt => float_via_f64(ty, a, |x| 1.0 / x.sqrt()),
        UnaryOp::Exp2 => float_via_f64(ty, a, f64::exp2),
        UnaryOp::Log2 => float_via_f64(ty, a, f64::log2),
        UnaryOp::Sin => float_via_f64(ty, a, f64::sin),
        UnaryOp::Cos => float_via_f64(ty, a, f64::cos),
        UnaryOp::Floor => float_via_f64(ty, a, f64::floor),
        UnaryOp::Ceil => float_via_f64(ty, a, f64::ceil),
        UnaryOp::Ftrunc => float_via_f64(ty, a, f64::trunc),
        UnaryOp::Round => float_via_f64(ty, a, f64::round),
    }
}

/// The result of a binary operation.
pub fn binary(op: BinaryOp, ty: Type, a: u64, b: u64) -> u64 {
    let m = ty.mask();
    let bits = ty.bits();
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let (ua, ub) = (a & m, b & m);
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::UmulHi => ((ua as u128 * ub as u128) >> bits) as u64,
        BinaryOp::SmulHi => ((sa as i128 * sb as i128) >> bits) as u64,
        BinaryOp::Udiv => ua.checked_div(ub).unwrap_or(m),
        BinaryOp::Sdiv => {
            if sb == 0 {
                u64::MAX
            } else if sb == -1 {
                sa.wrapping_neg() as u64
            } else {
                (sa / sb) as u64
            }
        }
        BinaryOp::Urem => ua.checked_rem(ub).unwrap_or(ua),
        BinaryOp::Srem => {
            if sb == 0 {
                sa as u64
            } else if sb == -1 {
                0
            } else {
                (sa % sb) as u64
            }
        }
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl => ua << (ub % bits as u64),
        BinaryOp::Lshr => ua >> (ub % bits as u64),
        BinaryOp::Ashr => (sa >> (ub % bits as u64)) as u64,
        BinaryOp::Smin => sa.min(sb) as u64,
        BinaryOp::Smax => sa.max(sb) as u64,
        BinaryOp::Umin => ua.min(ub),
        BinaryOp::Umax => ua.max(ub),
        BinaryOp::Fadd => float_binop(ty, a, b, |x, y| x + y, |x, y| x + y),
        BinaryOp::Fsub => float_binop(ty, a, b, |x, y| x - y, |x, y| x - y),
        BinaryOp::Fmul => float_binop(ty, a, b, |x, y| x * y, |x, y| x * y),
        BinaryOp::Fdiv => float_binop(ty, a, b, |x, y| x / y, |x, y| x / y),
        BinaryOp::Fmin => float_minmax(ty, a, b, false),
        BinaryOp::Fmax => float_minmax(ty, a, b, true),
    };
    r & m
}

/// `a * b + c` with one rounding.
pub fn fma(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    float_fma(ty, a, b, c)
}

/// An integer or pointer comparison.
pub fn icmp(cc: IntCC, ty: Type, a: u64, b: u64) -> bool {
    let (ua, ub) = (a & ty.mask(), b & ty.mask());
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    match cc {
        IntCC::Eq => ua == ub,
        IntCC::Ne => ua != ub,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => ua < ub,
        IntCC::Ule => ua <= ub,
        IntCC::Ugt => ua > ub,
        IntCC::Uge => ua >= ub,
    }
}

/// A float comparison (ordered or unordered, as LLVM's fcmp).
pub fn fcmp(cc: FloatCC, ty: Type, a: u64, b: u64) -> bool {
    let (x, y) = (to_f64(ty, a), to_f64(ty, b));
    let uno = x.is_nan() || y.is_nan();
    match cc {
        FloatCC::Oeq => x == y,
        FloatCC::One => !uno && x != y,
        FloatCC::Olt => x < y,
        FloatCC::Ole => x <= y,
        FloatCC::Ogt => x > y,
        FloatCC::Oge => x >= y,
        FloatCC::Ord => !uno,
        FloatCC::Uno => uno,
        FloatCC::Ueq => uno || x == y,
        FloatCC::Une => uno || x != y,
        FloatCC::Ult => uno || x < y,
        FloatCC::Ule => uno || x <= y,
        FloatCC::Ugt => uno || x > y,
        FloatCC::Uge => uno || x >= y,
    }
}

/// A float converted to an integer of `to` toward zero, saturating, NaN to 0 (Rust's `as`).
fn float_to_int(x: f64, to: Type, signed: bool) -> u64 {
    let bits = to.bits();
    let r = if signed {
        let lo = -(2f64.powi(bits as i32 - 1));
        let hi = 2f64.powi(bits as i32 - 1);
        if x.is_nan() {
            0
        } else if x <= lo {
            lo as i64 as u64
        } else if x >= hi {
            (hi as i128 - 1) as u64
        } else {
            x.trunc() as i64 as u64
        }
    } else {
        let hi = 2f64.powi(bits as i32);
        if x.is_nan() || x <= 0.0 {
            0
        } else if x >= hi {
            to.mask()
        } else {
            x.trunc() as u64
        }
    };
    r & to.mask()
}

/// An integer converted to a float, rounded once to nearest-even.
fn int_to_float(from: Type, a: u64, to: Type, signed: bool) -> u64 {
    if signed {
        let v = sext(from, a);
        match to {
            Type::F64 => (v as f64).to_bits(),
            Type::F32 => (v as f32).to_bits() as u64,
            // |v| < 2^53 is exact in f64; larger values overflow f16 whatever the rounding.
            _ => from_f64(Type::F16, v as f64),
        }
    } else {
        let v = a & from.mask();
        match to {
            Type::F64 => (v as f64).to_bits(),
            Type::F32 => (v as f32).to_bits() as u64,
            _ => from_f64(Type::F16, v as f64),
        }
    }
}

/// A conversion of `a` (of type `from`) to `to`.
pub fn convert(op: ConvOp, from: Type, to: Type, a: u64) -> u64 {
    match op {
        ConvOp::Sext => (sext(from, a) as u64) & to.mask(),
        ConvOp::Zext | ConvOp::Itrunc | ConvOp::Bitcast => a & from.mask() & to.mask(),
        ConvOp::Fpext | ConvOp::Fptrunc => from_f64(to, to_f64(from, a)),
        ConvOp::Sitofp => int_to_float(from, a, to, true),
        ConvOp::Uitofp => int_to_float(from, a, to, false),
        ConvOp::Fptosi => float_to_int(to_f64(from, a), to, true),
        ConvOp::Fptoui => float_to_int(to_f64(from, a), to, false),
    }
}

/// The new memory value of an atomic read-modify-write, from the old one and the operand.
/// Float `fmin`/`fmax` are IEEE 754-2008's minNum/maxNum, as the memory atomics of the
/// hardware compute them (CDNA ISA, "floating-point atomics"): a signalling NaN operand,
/// in memory or in the register, gives that NaN quieted; otherwise as [`BinaryOp::Fmin`]. An
/// operation on registers can quiet its operands first; one on memory cannot.
pub(crate) fn rmw(op: RmwOp, ty: Type, old: u64, v: u64) -> u64 {
    let bin = |op| binary(op, ty, old, v);
    match op {
        RmwOp::Add => bin(BinaryOp::Add),
        RmwOp::Sub => bin(BinaryOp::Sub),
        RmwOp::And => bin(BinaryOp::And),
        RmwOp::Or => bin(BinaryOp::Or),
        RmwOp::Xor => bin(BinaryOp::Xor),
        RmwOp::Xchg => v & ty.mask(),
        RmwOp::Smin => bin(BinaryOp::Smin),
        RmwOp::Smax => bin(BinaryOp::Smax),
        RmwOp::Umin => bin(BinaryOp::Umin),
        RmwOp::Umax => bin(BinaryOp::Umax),
        RmwOp::Fadd => bin(BinaryOp::Fadd),
        RmwOp::Fsub => bin(BinaryOp::Fsub),
        RmwOp::Fmin | RmwOp::Fmax => match [old, v].into_iter().find(|&x| is_signalling_nan(ty, x)) {
            Some(snan) => snan | quiet_bit(ty),
            None => bin(if op == RmwOp::Fmin { BinaryOp::Fmin } else { BinaryOp::Fmax }),
        },
    }
}

/// The bit that makes a NaN of `ty` quiet: the mantissa's highest.
fn quiet_bit(ty: Type) -> u64 {
    match ty {
        Type::F64 => 1 << 51,
        Type::F32 => 1 << 22,
        _ => 1 << 9,
    }
}

/// Whether `bits` is a signalling NaN of `ty` (a NaN whose quiet bit is clear).
fn is_signalling_nan(ty: Type, bits: u64) -> bool {
    is_nan(ty, bits) && bits & quiet_bit(ty) == 0
}

/// A wave reduction's value over its first active lane alone: the lane's value, but a float
/// minimum or maximum of one NaN is a quiet NaN, as of two ([`float_minmax`]).
pub(crate) fn reduce_start(op: ReduceOp, ty: Type, v: u64) -> u64 {
    match op {
        ReduceOp::Fmin | ReduceOp::Fmax => reduce_step(op, ty, v, v),
        _ => v,
    }
}

/// Combines two lane values of a wave reduction.
pub(crate) fn reduce_step(op: ReduceOp, ty: Type, acc: u64, v: u64) -> u64 {
    let bin = |op| binary(op, ty, acc, v);
    match op {
        ReduceOp::Add => bin(BinaryOp::Add),
        ReduceOp::Smin => bin(BinaryOp::Smin),
        ReduceOp::Smax => bin(BinaryOp::Smax),
        ReduceOp::Umin => bin(BinaryOp::Umin),
        ReduceOp::Umax => bin(BinaryOp::Umax),
        ReduceOp::Fadd => bin(BinaryOp::Fadd),
        ReduceOp::Fmin => bin(BinaryOp::Fmin),
        ReduceOp::Fmax => bin(BinaryOp::Fmax),
        ReduceOp::And => bin(BinaryOp::And),
        ReduceOp::Or => bin(BinaryOp::Or),
        ReduceOp::Xor => bin(BinaryOp::Xor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn riscv_division() {
        let t = Type::I32;
        let min = 0x8000_0000u64;
        let m1 = 0xffff_ffffu64;
        assert_eq!(binary(BinaryOp::Udiv, t, 7, 0), m1);
        assert_eq!(binary(BinaryOp::Sdiv, t, 7, 0), m1);
        assert_eq!(binary(BinaryOp::Urem, t, 7, 0), 7);
        assert_eq!(binary(BinaryOp::Srem, t, (-7i32) as u32 as u64, 0), (-7i32) as u32 as u64);
        assert_eq!(binary(BinaryOp::Sdiv, t, min, m1), min);
        assert_eq!(binary(BinaryOp::Srem, t, min, m1), 0);
        assert_eq!(binary(BinaryOp::Sdiv, t, (-7i32) as u32 as u64, 2), (-3i32) as u32 as u64);
        assert_eq!(binary(BinaryOp::Srem, t, (-7i32) as u32 as u64, 2), (-1i32) as u32 as u64);
    }

    #[test]
    fn shifts_and_bit_counts() {
        let t = Type::I32;
        assert_eq!(binary(BinaryOp::Shl, t, 1, 33), 2);
        assert_eq!(binary(BinaryOp::Ashr, t, 0x8000_0000, 31), 0xffff_ffff);
        assert_eq!(binary(BinaryOp::Lshr, t, 0x8000_0000, 63), 1);
        assert_eq!(unary(UnaryOp::Clz, t, 0), 32);
        assert_eq!(unary(UnaryOp::Clz, t, 1), 31);
        assert_eq!(unary(UnaryOp::Ctz, Type::I64, 0), 64);
        assert_eq!(unary(UnaryOp::Ctz, t, 8), 3);
        assert_eq!(unary(UnaryOp::Popcount, Type::I8, 0xff), 8);
        assert_eq!(binary(BinaryOp::UmulHi, t, 0xffff_ffff, 0xffff_ffff), 0xffff_fffe);
        assert_eq!(binary(BinaryOp::SmulHi, t, 0xffff_ffff, 0xffff_ffff), 0);
    }

    #[test]
    fn float_min_max_zeros_and_nans() {
        let t = Type::F32;
        let (pz, nz) = (0.0f32.to_bits() as u64, (-0.0f32).to_bits() as u64);
        let nan = f32::NAN.to_bits() as u64;
        let one = 1.0f32.to_bits() as u64;
        assert_eq!(binary(BinaryOp::Fmin, t, pz, nz), nz);
        assert_eq!(binary(BinaryOp::Fmin, t, nz, pz), nz);
        assert_eq!(binary(BinaryOp::Fmax, t, nz, pz), pz);
        assert_eq!(binary(BinaryOp::Fmin, t, nan, one), one);
        assert_eq!(binary(BinaryOp::Fmax, t, one, nan), one);
        // A signalling NaN loses like any NaN in registers, and gives a quiet NaN in an atomic.
        let snan = 0x7f80_0001u64;
        assert_eq!(binary(BinaryOp::Fmin, t, snan, one), one);
        // Two NaNs give a quiet one, which an atomic then treats as any quiet NaN.
        assert_eq!(binary(BinaryOp::Fmax, t, snan, snan), snan | 0x40_0000);
        assert_eq!(rmw(RmwOp::Fmin, t, one, binary(BinaryOp::Fmax, t, snan, snan)), one);
        assert_eq!(rmw(RmwOp::Fmin, t, snan, one), snan | 0x40_0000);
        assert_eq!(rmw(RmwOp::Fmax, t, one, snan), snan | 0x40_0000);
        assert_eq!(rmw(RmwOp::Fmax, t, nan, one), one);
        let snan64 = 0x7ff0_0000_0000_0001u64;
        assert_eq!(rmw(RmwOp::Fmin, Type::F64, 1.0f64.to_bits(), snan64), snan64 | 1 << 51);
    }

    #[test]
    fn conversions_saturate_like_rust() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(convert(ConvOp::Fptosi, Type::F32, Type::I32, f(3.9e9)), i32::MAX as u64);
        assert_eq!(convert(ConvOp::Fptosi, Type::F32, Type::I32, f(-3.9e9)), i32::MIN as u32 as u64);
        assert_eq!(convert(ConvOp::Fptoui, Type::F32, Type::I32, f(-1.5)), 0);
        assert_eq!(convert(ConvOp::Fptoui, Type::F32, Type::I8, f(300.0)), 255);
        assert_eq!(convert(ConvOp::Fptosi, Type::F32, Type::I32, f(f32::NAN)), 0);
        assert_eq!(convert(ConvOp::Fptosi, Type::F32, Type::I32, f(-2.7)), (-2i32) as u32 as u64);
        assert_eq!(convert(ConvOp::Sitofp, Type::I32, Type::F32, u32::MAX as u64), f(-1.0));
        assert_eq!(convert(ConvOp::Uitofp, Type::I32, Type::F32, u32::MAX as u64), f(4294967296.0));
        assert_eq!(convert(ConvOp::Sext, Type::I1, Type::I32, 1), 0xffff_ffff);
        assert_eq!(convert(ConvOp::Zext, Type::I1, Type::I32, 1), 1);
    }

    /// The round-to-odd path (shared by f16 and f32) agrees with the host's fused `fmaf`.
    #[test]
    fn fma_is_correctly_rounded() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20000 {
            let (a, b, c) = (next() as u32, next() as u32, next() as u32);
            let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let want = fa.mul_add(fb, fc);
            let got = f32::from_bits(fma(Type::F32, a as u64, b as u64, c as u64) as u32);
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{fa} {fb} {fc}");
        }
    }

    /// Narrowing to f16 rounds once from the exact value: going through f32 first (as
    /// `half`'s F16C path does) turns a value just off an f16 midpoint into a tie.
    #[test]
    fn narrowing_to_f16_rounds_once() {
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(convert(ConvOp::Fptrunc, Type::F64, Type::F16, x.to_bits()), 0x3c01);
        let y = 1.0 + 2f64.powi(-10) + 2f64.powi(-11) - 2f64.powi(-31);
        assert_eq!(convert(ConvOp::Fptrunc, Type::F64, Type::F16, y.to_bits()), 0x3c01);
        // f16 fma: (1 + 2^-10) * (2^-11 - 2^-21) + (1 + 2^-10) is exactly y.
        let h = |x: f64| f16::from_f32(x as f32).to_bits() as u64;
        let (a, b) = (h(1.0 + 2f64.powi(-10)), h(2f64.powi(-11) - 2f64.powi(-21)));
        assert_eq!(fma(Type::F16, a, b, a), 0x3c01);
    }

    #[test]
    fn f16_arithmetic_rounds_once() {
        let h = |x: f32| f16::from_f32(x).to_bits() as u64;
        assert_eq!(binary(BinaryOp::Fadd, Type::F16, h(1.0), h(2.0)), h(3.0));
        // 2049 is not representable in f16: ties to even give 2048.
        assert_eq!(binary(BinaryOp::Fadd, Type::F16, h(2048.0), h(1.0)), h(2048.0));
        assert_eq!(unary(UnaryOp::Sqrt, Type::F16, h(4.0)), h(2.0));
        assert_eq!(unary(UnaryOp::Round, Type::F32, 2.5f32.to_bits() as u64), 3.0f32.to_bits() as u64);
        assert_eq!(unary(UnaryOp::Round, Type::F32, (-2.5f32).to_bits() as u64), (-3.0f32).to_bits() as u64);
    }
}
