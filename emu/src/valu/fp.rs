//! The floating-point operations of the vector ALU, one lane at a time, on raw bits: f32 and
//! f64 arithmetic is IEEE round-to-nearest-even (Rust's, fused where the operation is);
//! f16 arithmetic is done exactly in f64 and rounded once (see [`crate::float`]). The AMD
//! operations (`frexp`, `ldexp`, the division steps, min/max, the transcendentals) follow the
//! ISA pseudocode as [`crate::float`] implements it. Results are raw bits of the result type;
//! the driver applies `omod`, `clamp` and denormal flushing.
//!
//! The division steps (`v_div_scale`, `v_div_fmas`, `v_div_fixup`) are
//! [`crate::div_steps`]'s, which says where and why they depart from the guides' text.

use super::LaneCx;
use crate::div_steps::{self, F16, F32, F64};
use crate::float::{self, f16_to_f64, f64_to_f16, to_int};
use crate::ops::VAlu;

/// One lane of float operation `v`, or None when `v` is not a float operation.
pub(super) fn eval(v: VAlu, s: &[u64; 3], cx: &LaneCx) -> Option<(u64, bool)> {
    use VAlu::*;
    let x = |i: usize| f32::from_bits(s[i] as u32);
    let y = |i: usize| f64::from_bits(s[i]);
    let h = |i: usize| f16_to_f64(s[i] as u16);
    // For a minimum or maximum, which in IEEE mode quiets a signalling NaN input (as for f32):
    // the f64 keeps the f16's signalling state, which `f16_to_f64` does not.
    let hm = |i: usize| {
        let bits = s[i] as u16;
        if float::is_snan(u64::from(bits), 16) {
            f64::from_bits(0x7ff0_0000_0000_0000 | (u64::from(bits) & 0x1ff) << 42 | (u64::from(bits) & 0x8000) << 48)
        } else {
            h(i)
        }
    };
    let ieee = cx.mode.ieee;
    // In IEEE mode a float operation never returns a signalling NaN: a signalling operand is
    // quieted whatever the operation (Rust's floor, ceil and trunc, done in software, would
    // pass one through), as the interpreter's arithmetic does.
    let r32 = |v: f32| Some((if ieee && v.is_nan() { float::quiet32(v) } else { v }.to_bits() as u64, false));
    let r64 = |v: f64| Some((if ieee && v.is_nan() { float::quiet64(v) } else { v }.to_bits(), false));
    let r16 = |v: f64| Some((f64_to_f16(v) as u64, false));
    let int = |v: i64| Some((v as u64 & 0xffff_ffff, false));
    let min32 = |a: f32, b: f32| float::minmax32(a, b, false, ieee);
    let max32 = |a: f32, b: f32| float::minmax32(a, b, true, ieee);
    let min64 = |a: f64, b: f64| float::minmax64(a, b, false, ieee);
    let max64 = |a: f64, b: f64| float::minmax64(a, b, true, ieee);
    let below_one32 = 1.0 - f32::EPSILON as f64 / 2.0;
    match v {
        AddF32 => r32(x(0) + x(1)),
        SubF32 => r32(x(0) - x(1)),
        SubrevF32 => r32(x(1) - x(0)),
        MulF32 => r32(x(0) * x(1)),
        MulLegacyF32 => r32(if x(0) == 0.0 || x(1) == 0.0 { 0.0 } else { x(0) * x(1) }),
        FmaF32 | FmacF32 => r32(x(0).mul_add(x(1), x(2))),
        MadF32 | MacF32 | MadLegacyF32 => {
            let flush = |v: f32| f32::from_bits(float::flush_denormal(u64::from(v.to_bits()), 32) as u32);
            let (a, b) = (flush(x(0)), flush(x(1)));
            let product = if v == MadLegacyF32 && (a == 0.0 || b == 0.0) { 0.0 } else { flush(a * b) };
            r32(flush(product + flush(x(2))))
        }
        FmaLegacyF32 | FmacLegacyF32 => {
            r32(if x(0) == 0.0 || x(1) == 0.0 { 0.0 + x(2) } else { x(0).mul_add(x(1), x(2)) })
        }
        MinF32 => r32(min32(x(0), x(1))),
        MaxF32 => r32(max32(x(0), x(1))),
        Min3F32 => r32(min32(min32(x(0), x(1)), x(2))),
        Max3F32 => r32(max32(max32(x(0), x(1)), x(2))),
        Med3F32 => {
            let m = float::med3(
                x(0) as f64,
                x(1) as f64,
                x(2) as f64,
                |a, b| min32(a as f32, b as f32) as f64,
                |a, b| max32(a as f32, b as f32) as f64,
            );
            r32(m as f32)
        }
        MaxminF32 => r32(min32(max32(x(0), x(1)), x(2))),
        MinmaxF32 => r32(max32(min32(x(0), x(1)), x(2))),
        LdexpF32 => r32(float::ldexp32(x(0), s[1] as u32 as i32)),
        FrexpMantF32 => r32(float::frexp_mant(x(0) as f64) as f32),
        FrexpExpF32 => int(float::frexp_exp(x(0) as f64) as i64),
        TruncF32 => r32(x(0).trunc()),
        CeilF32 => r32(x(0).ceil()),
        FloorF32 => r32(x(0).floor()),
        RndneF32 => r32(float::rndne(x(0) as f64) as f32),
        FractF32 => r32(float::fract(x(0) as f64, below_one32) as f32),
        RcpF32 | RcpIflagF32 => r32((1.0 / x(0) as f64) as f32),
        RsqF32 => r32((1.0 / (x(0) as f64).sqrt()) as f32),
        SqrtF32 => r32(((x(0) as f64).sqrt()) as f32),
        ExpF32 | ExpLegacyF32 => r32((x(0) as f64).exp2() as f32),
        LogF32 | LogLegacyF32 => r32((x(0) as f64).log2() as f32),
        SinF32 => r32(float::sin_cos_revolutions(x(0) as f64, false) as f32),
        CosF32 => r32(float::sin_cos_revolutions(x(0) as f64, true) as f32),
        DivScaleF32 => Some(div_steps::scale(F32, s[0], s[1], s[2])),
        DivFmasF32 => Some((div_steps::fmas(F32, s[0], s[1], s[2], cx.cin), false)),
        DivFixupF32 => Some((div_steps::fixup(F32, s[0], s[1], s[2]), false)),
        CvtF32U32 => r32(s[0] as u32 as f32),
        CvtF32I32 => r32(s[0] as u32 as i32 as f32),
        CvtU32F32 => int(to_int(x(0) as f64, 0.0, u32::MAX as f64)),
        CvtI32F32 => int(to_int(x(0) as f64, i32::MIN as f64, i32::MAX as f64)),
        CvtNearestI32F32 => int(to_int((x(0) as f64 + 0.5).floor(), i32::MIN as f64, i32::MAX as f64)),
        CvtFloorI32F32 => int(to_int((x(0) as f64).floor(), i32::MIN as f64, i32::MAX as f64)),
        CvtF32Ubyte0 => r32((s[0] & 0xff) as f32),
        CvtF32Ubyte1 => r32((s[0] >> 8 & 0xff) as f32),
        CvtF32Ubyte2 => r32((s[0] >> 16 & 0xff) as f32),
        CvtF32Ubyte3 => r32((s[0] >> 24 & 0xff) as f32),
        CvtF32F64 => r32(y(0) as f32),
        CvtF64F32 => r64(x(0) as f64),
        CvtI32F64 => int(to_int(y(0), i32::MIN as f64, i32::MAX as f64)),
        CvtU32F64 => int(to_int(y(0), 0.0, u32::MAX as f64)),
        CvtF64I32 => r64(s[0] as u32 as i32 as f64),
        CvtF64U32 => r64(s[0] as u32 as f64),
        CvtF16F32 => r16(x(0) as f64),
        CvtF32F16 => r32(h(0) as f32),
        CvtF16U16 => r16(s[0] as u16 as f64),
        CvtF16I16 => r16(s[0] as u16 as i16 as f64),
        CvtU16F16 => Some((to_int(h(0), 0.0, u16::MAX as f64) as u64 & 0xffff, false)),
        CvtI16F16 => Some((to_int(h(0), i16::MIN as f64, i16::MAX as f64) as u64 & 0xffff, false)),
        CvtPkRtzF16F32 => {
            let lo = float::f64_to_f16_rtz(x(0) as f64) as u64;
            let hi = float::f64_to_f16_rtz(x(1) as f64) as u64;
            Some((lo | hi << 16, false))
        }
        PackB32F16 => Some(((s[0] & 0xffff) | (s[1] & 0xffff) << 16, false)),
        AddF64 => r64(y(0) + y(1)),
        MulF64 => r64(y(0) * y(1)),
        FmaF64 | FmacF64 => r64(y(0).mul_add(y(1), y(2))),
        MinF64 => r64(min64(y(0), y(1))),
        MaxF64 => r64(max64(y(0), y(1))),
        LdexpF64 => r64(float::ldexp(y(0), s[1] as u32 as i32)),
        FrexpMantF64 => r64(float::frexp_mant(y(0))),
        FrexpExpF64 => int(float::frexp_exp(y(0)) as i64),
        TrigPreopF64 => r64(float::trig_preop(y(0), s[1] as u32)),
        TruncF64 => r64(y(0).trunc()),
        CeilF64 => r64(y(0).ceil()),
        FloorF64 => r64(y(0).floor()),
        RndneF64 => r64(float::rndne(y(0))),
        FractF64 => r64(float::fract(y(0), 1.0 - f64::EPSILON / 2.0)),
        RcpF64 => r64(1.0 / y(0)),
        RsqF64 => r64(1.0 / y(0).sqrt()),
        SqrtF64 => r64(y(0).sqrt()),
        DivScaleF64 => Some(div_steps::scale(F64, s[0], s[1], s[2])),
        DivFmasF64 => Some((div_steps::fmas(F64, s[0], s[1], s[2], cx.cin), false)),
        DivFixupF64 => Some((div_steps::fixup(F64, s[0], s[1], s[2]), false)),
        AddF16 => r16(h(0) + h(1)),
        SubF16 => r16(h(0) - h(1)),
        SubrevF16 => r16(h(1) - h(0)),
        MulF16 => r16(h(0) * h(1)),
        FmaF16 | FmacF16 => Some((float::fma_f16(s[0] as u16, s[1] as u16, s[2] as u16) as u64, false)),
        MinF16 => r16(min64(hm(0), hm(1))),
        MaxF16 => r16(max64(hm(0), hm(1))),
        Min3F16 => r16(min64(min64(hm(0), hm(1)), hm(2))),
        Max3F16 => r16(max64(max64(hm(0), hm(1)), hm(2))),
        Med3F16 => r16(float::med3(h(0), h(1), h(2), min64, max64)),
        LdexpF16 => Some((float::ldexp16(s[0] as u16, s[1] as u16 as i16 as i32) as u64, false)),
        FrexpMantF16 => r16(float::frexp_mant(h(0))),
        FrexpExpF16 => Some((float::frexp_exp(h(0)) as i16 as u16 as u64, false)),
        TruncF16 => r16(h(0).trunc()),
        CeilF16 => r16(h(0).ceil()),
        FloorF16 => r16(h(0).floor()),
        RndneF16 => r16(float::rndne(h(0))),
        FractF16 => r16(float::fract(h(0), 1.0 - 2f64.powi(-11))),
        RcpF16 => r16(1.0 / h(0)),
        RsqF16 => r16(1.0 / h(0).sqrt()),
        SqrtF16 => r16(h(0).sqrt()),
        ExpF16 => r16(h(0).exp2()),
        LogF16 => r16(h(0).log2()),
        SinF16 => r16(float::sin_cos_revolutions(h(0), false)),
        CosF16 => r16(float::sin_cos_revolutions(h(0), true)),
        DivFixupF16 => Some((div_steps::fixup(F16, s[0], s[1], s[2]), false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tests::mode;

    fn e(v: VAlu, s: [u64; 3]) -> u64 {
        eval(v, &s, &LaneCx { cin: false, clamp: false, mode: mode() }).unwrap().0
    }

    #[test]
    fn float_semantics() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(e(VAlu::FmaF32, [f(2.0), f(3.0), f(1.0)]), f(7.0));
        assert_eq!(e(VAlu::LdexpF32, [f(1.5), 4, 0]), f(24.0));
        assert_eq!(e(VAlu::FrexpExpF32, [f(24.0), 0, 0]), 5);
        assert_eq!(e(VAlu::FrexpMantF32, [f(24.0), 0, 0]), f(0.75));
        assert_eq!(e(VAlu::CvtU32F32, [f(-3.0), 0, 0]), 0);
        assert_eq!(e(VAlu::CvtU32F32, [f(5e9), 0, 0]), u32::MAX as u64);
        assert_eq!(e(VAlu::CvtI32F32, [f(f32::NAN), 0, 0]), 0);
        assert_eq!(e(VAlu::RcpF32, [f(4.0), 0, 0]), f(0.25));
        assert_eq!(e(VAlu::SqrtF32, [f(2.0), 0, 0]), f(2f32.sqrt()));
        assert_eq!(e(VAlu::AddF16, [0x3c00, 0x3c00, 0]), 0x4000);
        assert_eq!(e(VAlu::CvtF32F16, [0x3555, 0, 0]), f(f16_to_f64(0x3555) as f32));
        assert_eq!(e(VAlu::CvtF16F32, [f(1.0 / 3.0), 0, 0]), 0x3555);
        assert_eq!(e(VAlu::FmaF64, [2f64.to_bits(), 3f64.to_bits(), 1f64.to_bits()]), 7f64.to_bits());
        assert_eq!(e(VAlu::RsqF64, [4f64.to_bits(), 0, 0]), 0.5f64.to_bits());
        assert_eq!(e(VAlu::FrexpExpF64, [1024f64.to_bits(), 0, 0]), 11);
        assert_eq!(e(VAlu::CvtPkRtzF16F32, [f(1.0), f(-2.0), 0]), 0xc000_3c00);
    }
}
