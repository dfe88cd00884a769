//! The integer and bitwise operations of the vector ALU, one lane at a time: the result (the
//! low bits of the `u64` hold it) and the carry, borrow or overflow out. Semantics follow AMD's
//! ISA pseudocode; `v_sad_u32` is the unsigned distance (the ACO errata), `v_bcnt_u32_b32`
//! adds its second source.

use super::LaneCx;
use crate::ops::VAlu;

/// One lane of integer operation `v`, or None when `v` is not an integer operation.
pub(super) fn eval(v: VAlu, s: &[u64; 3], cx: &LaneCx) -> Option<(u64, bool)> {
    use VAlu::*;
    let (a, b, c) = (s[0] as u32, s[1] as u32, s[2] as u32);
    let ci = cx.cin as u64;
    let clamp = cx.clamp;
    let v32 = |x: u32| Some((x as u64, false));
    let v16 = |x: u16| Some((x as u64, false));
    let (a16, b16, c16) = (a as u16, b as u16, c as u16);
    let sat_u32 = |t: u64| if clamp { t.min(u32::MAX as u64) as u32 } else { t as u32 };
    let sat_i32 = |t: i64| if clamp { t.clamp(i32::MIN as i64, i32::MAX as i64) as i32 } else { t as i32 };
    let sat_u16 = |t: i64| if clamp { t.clamp(0, u16::MAX as i64) as u16 } else { t as u16 };
    let sat_i16 = |t: i64| if clamp { t.clamp(i16::MIN as i64, i16::MAX as i64) as i16 } else { t as i16 };
    match v {
        Mov => v32(a),
        MovB64 => Some((s[0], false)),
        Not => v32(!a),
        Bfrev => v32(a.reverse_bits()),
        Clz => v32(if a == 0 { u32::MAX } else { a.leading_zeros() }),
        Ctz => v32(if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        Cls => {
            let same = if (a as i32) < 0 { (!a).leading_zeros() } else { a.leading_zeros() };
            v32(if same >= 32 { u32::MAX } else { same })
        }
        And => v32(a & b),
        Or => v32(a | b),
        Xor => v32(a ^ b),
        Xnor => v32(!(a ^ b)),
        Or3 => v32(a | b | c),
        Xor3 => v32(a ^ b ^ c),
        AndOr => v32((a & b) | c),
        LshlOr => v32((a << (b & 31)) | c),
        AddU32 => v32(sat_u32(a as u64 + b as u64)),
        SubU32 => v32(if clamp { a.saturating_sub(b) } else { a.wrapping_sub(b) }),
        SubrevU32 => v32(if clamp { b.saturating_sub(a) } else { b.wrapping_sub(a) }),
        AddI32 => v32(sat_i32(a as i32 as i64 + b as i32 as i64) as u32),
        SubI32 => v32(sat_i32(a as i32 as i64 - b as i32 as i64) as u32),
        Add3U32 => v32(a.wrapping_add(b).wrapping_add(c)),
        LshlAddU32 => v32((a << (b & 31)).wrapping_add(c)),
        AddLshlU32 => v32(a.wrapping_add(b) << (c & 31)),
        XadU32 => v32((a ^ b).wrapping_add(c)),
        AddCoU32 | AddCoCiU32 => {
            let t = a as u64 + b as u64 + if v == AddCoCiU32 { ci } else { 0 };
            Some((sat_u32(t) as u64, t >> 32 != 0))
        }
        SubCoU32 | SubCoCiU32 | SubrevCoU32 | SubrevCoCiU32 => {
            let (x, y) = if matches!(v, SubCoU32 | SubCoCiU32) { (a as u64, b as u64) } else { (b as u64, a as u64) };
            let borrow = if matches!(v, SubCoCiU32 | SubrevCoCiU32) { ci } else { 0 };
            let under = y + borrow > x;
            let r = if under && clamp { 0 } else { x.wrapping_sub(y).wrapping_sub(borrow) & 0xffff_ffff };
            Some((r, under))
        }
        MulLoU32 => v32(a.wrapping_mul(b)),
        MulHiU32 => v32(((a as u64 * b as u64) >> 32) as u32),
        MulHiI32 => v32(((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
        MulU24 => v32((a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        MulI24 => v32((sext24(a) * sext24(b)) as u32),
        MulHiU24 => v32(((((a & 0xff_ffff) as u64) * ((b & 0xff_ffff) as u64)) >> 32) as u32),
        MulHiI24 => v32(((sext24(a) as i64 * sext24(b) as i64) >> 32) as u32),
        MadU32U24 => v32(sat_u32(((a & 0xff_ffff) as u64) * ((b & 0xff_ffff) as u64) + c as u64)),
        MadI32I24 => v32(sat_i32(sext24(a) as i64 * sext24(b) as i64 + c as i32 as i64) as u32),
        MadU32U16 => v32(sat_u32(a16 as u64 * b16 as u64 + c as u64)),
        MadI32I16 => v32(sat_i32(a16 as i16 as i64 * b16 as i16 as i64 + c as i32 as i64) as u32),
        MadU64U32 => {
            let t = a as u128 * b as u128 + s[2] as u128;
            let over = t >> 64 != 0;
            Some((if over && clamp { u64::MAX } else { t as u64 }, over))
        }
        MadI64I32 => {
            let t = a as i32 as i128 * b as i32 as i128 + s[2] as i64 as i128;
            let over = t != t as i64 as i128;
            let r = if over && clamp {
                if t < 0 {
                    i64::MIN
                } else {
                    i64::MAX
                }
            } else {
                t as i64
            };
            Some((r as u64, over))
        }
        LshlrevB32 => v32(b << (a & 31)),
        LshrrevB32 => v32(b >> (a & 31)),
        AshrrevI32 => v32(((b as i32) >> (a & 31)) as u32),
        LshlrevB64 => Some((s[1] << (a & 63), false)),
        LshrrevB64 => Some((s[1] >> (a & 63), false)),
        AshrrevI64 => Some((((s[1] as i64) >> (a & 63)) as u64, false)),
        LshlAddU64 => Some(((s[0] << (b & 7)).wrapping_add(s[2]), false)),
        BfeU32 | BfeI32 => {
            let width = c & 31;
            let field = if width == 0 { 0 } else { (a >> (b & 31)) & (u32::MAX >> (32 - width)) };
            if v == BfeI32 && width > 0 {
                v32((((field << (32 - width)) as i32) >> (32 - width)) as u32)
            } else {
                v32(field)
            }
        }
        BfiB32 => v32((a & b) | (!a & c)),
        BfmB32 => v32((((1u64 << (a & 31)) - 1) << (b & 31)) as u32),
        AlignbitB32 => v32(((((a as u64) << 32) | b as u64) >> (c & 31)) as u32),
        AlignbyteB32 => v32(((((a as u64) << 32) | b as u64) >> (8 * (c & 3))) as u32),
        PermB32 => {
            let data = (a as u64) << 32 | b as u64;
            let byte = |sel: u32| -> u32 {
                let byte_of = |i: u32| (data >> (8 * i)) as u8 as u32;
                match sel {
                    13.. => 0xff,
                    12 => 0,
                    8..=11 => {
                        let i = 2 * (sel - 8) + 1;
                        if byte_of(i) & 0x80 != 0 {
                            0xff
                        } else {
                            0
                        }
                    }
                    _ => byte_of(sel),
                }
            };
            v32((0..4).fold(0, |acc, k| acc | byte(c >> (8 * k) & 0xff) << (8 * k)))
        }
        BcntU32 => v32(a.count_ones().wrapping_add(b)),
        MinU32 => v32(a.min(b)),
        MaxU32 => v32(a.max(b)),
        MinI32 => v32((a as i32).min(b as i32) as u32),
        MaxI32 => v32((a as i32).max(b as i32) as u32),
        Min3U32 => v32(a.min(b).min(c)),
        Max3U32 => v32(a.max(b).max(c)),
        Med3U32 => v32(a.max(b).min(a.min(b).max(c))),
        Min3I32 => v32((a as i32).min(b as i32).min(c as i32) as u32),
        Max3I32 => v32((a as i32).max(b as i32).max(c as i32) as u32),
        Med3I32 => {
            let (x, y, z) = (a as i32, b as i32, c as i32);
            v32(x.max(y).min(x.min(y).max(z)) as u32)
        }
        MaxminU32 => v32(a.max(b).min(c)),
        MinmaxU32 => v32(a.min(b).max(c)),
        MaxminI32 => v32((a as i32).max(b as i32).min(c as i32) as u32),
        MinmaxI32 => v32((a as i32).min(b as i32).max(c as i32) as u32),
        SadU32 => v32(sat_u32(a.abs_diff(b) as u64 + c as u64)),
        CndmaskB32 => v32(if cx.cin { b } else { a }),
        CndmaskB16 => v16(if cx.cin { b16 } else { a16 }),
        AddU16 => v16(sat_u16(a16 as i64 + b16 as i64)),
        SubU16 => v16(sat_u16(a16 as i64 - b16 as i64)),
        SubrevU16 => v16(sat_u16(b16 as i64 - a16 as i64)),
        AddI16 => v16(sat_i16(a16 as i16 as i64 + b16 as i16 as i64) as u16),
        SubI16 => v16(sat_i16(a16 as i16 as i64 - b16 as i16 as i64) as u16),
        MulLoU16 => v16(sat_u16(a16 as i64 * b16 as i64)),
        MadU16 => v16(sat_u16(a16 as i64 * b16 as i64 + c16 as i64)),
        MadI16 => v16(sat_i16(a16 as i16 as i64 * b16 as i16 as i64 + c16 as i16 as i64) as u16),
        LshlrevB16 => v16(b16 << (a16 & 15)),
        LshrrevB16 => v16(b16 >> (a16 & 15)),
        AshrrevI16 => v16(((b16 as i16) >> (a16 & 15)) as u16),
        MaxU16 => v16(a16.max(b16)),
        MaxI16 => v16((a16 as i16).max(b16 as i16) as u16),
        MinU16 => v16(a16.min(b16)),
        MinI16 => v16((a16 as i16).min(b16 as i16) as u16),
        MovB16 => v16(a16),
        NotB16 => v16(!a16),
        AndB16 => v16(a16 & b16),
        OrB16 => v16(a16 | b16),
        XorB16 => v16(a16 ^ b16),
        CvtI32I16 => v32(a16 as i16 as i32 as u32),
        CvtU32U16 => v32(a16 as u32),
        _ => None,
    }
}

fn sext24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tests::mode;

    fn e(v: VAlu, a: u64, b: u64, c: u64) -> (u64, bool) {
        eval(v, &[a, b, c], &LaneCx { cin: false, clamp: false, mode: mode() }).unwrap()
    }

    #[test]
    fn integer_semantics_follow_the_pseudocode() {
        assert_eq!(e(VAlu::BfeU32, 0x0003_fc00, 10, 10), (0xff, false));
        assert_eq!(e(VAlu::BfeI32, 0x0000_0380, 7, 3), (0xffff_ffff, false));
        assert_eq!(e(VAlu::MadU64U32, 0xffff_ffff, 0xffff_ffff, u64::MAX), (0xffff_fffe_0000_0000, true));
        assert_eq!(e(VAlu::LshlAddU64, 0x1_0000_0000, 2, 5), (0x4_0000_0005, false));
        assert_eq!(e(VAlu::AddCoU32, 0xffff_ffff, 2, 0), (1, true));
        assert_eq!(e(VAlu::SubCoU32, 1, 2, 0), (0xffff_ffff, true));
        assert_eq!(e(VAlu::LshlrevB64, 2, 0x4000_0000_0000_0001, 0), (4, false));
        assert_eq!(e(VAlu::AlignbitB32, 0x1, 0x8000_0000, 31), (0x3, false));
        assert_eq!(e(VAlu::And, 0x3ff, 0x12345, 0), (0x345, false));
        assert_eq!(e(VAlu::SadU32, (-5i32) as u32 as u64, 0, 0), (4294967291, false), "unsigned distance");
        assert_eq!(e(VAlu::BcntU32, 0xff, 3, 0), (11, false));
        assert_eq!(e(VAlu::PermB32, 0x0102_0304, 0x0506_0708, 0x0c_04_00_08), (0x0004_0800, false));
        assert_eq!(e(VAlu::Cls, 1, 0, 0), (31, false));
        assert_eq!(e(VAlu::Cls, 0x4000_0000, 0, 0), (1, false));
        assert_eq!(e(VAlu::Med3I32, 5, (-1i32) as u32 as u64, 3), (3, false));
        let clamped = LaneCx { cin: true, clamp: true, mode: mode() };
        assert_eq!(eval(VAlu::AddU32, &[u32::MAX as u64, 1, 0], &clamped), Some((u32::MAX as u64, false)));
        assert_eq!(
            eval(VAlu::AddCoCiU32, &[u32::MAX as u64, 0, 0], &LaneCx { clamp: false, ..clamped }),
            Some((0, true))
        );
        assert_eq!(eval(VAlu::AddF32, &[0, 0, 0], &clamped), None);
    }
}
