//! The read-modify-write operations of atomics, shared by global (FLAT/GLOBAL) and LDS (DS)
//! instructions: what memory becomes given its old value and the data, per AMD's pseudocode.

use crate::ops::AtomicOp;

/// The new memory value of `op` on `old` with `data` (and `cmp`, the compared value of a
/// compare-and-swap, or the second operand of `mskor`), for 32- or 64-bit (`wide`) values,
/// integers or floats (the float operations are their own [`AtomicOp`]s).
pub(crate) fn apply(op: AtomicOp, wide: bool, old: u64, data: u64, cmp: u64) -> u64 {
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (old, data, cmp) = (old & mask, data & mask, cmp & mask);
    let signed = |v: u64| if wide { v as i64 } else { v as u32 as i32 as i64 };
    let fl = |v: u64| if wide { f64::from_bits(v) } else { f32::from_bits(v as u32) as f64 };
    let r = match op {
        AtomicOp::Swap => data,
        AtomicOp::CmpSwap => {
            if old == cmp {
                data
            } else {
                old
            }
        }
        AtomicOp::Add => old.wrapping_add(data),
        AtomicOp::Sub => old.wrapping_sub(data),
        AtomicOp::Rsub => data.wrapping_sub(old),
        AtomicOp::Csub => old.saturating_sub(data),
        AtomicOp::SMin => {
            if signed(data) < signed(old) {
                data
            } else {
                old
            }
        }
        AtomicOp::SMax => {
            if signed(data) > signed(old) {
                data
            } else {
                old
            }
        }
        AtomicOp::UMin => old.min(data),
        AtomicOp::UMax => old.max(data),
        AtomicOp::And => old & data,
        AtomicOp::Or => old | data,
        AtomicOp::Xor => old ^ data,
        AtomicOp::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        AtomicOp::MskOr => (old & !data) | cmp,
        AtomicOp::FAdd => {
            if wide {
                (fl(old) + fl(data)).to_bits()
            } else {
                (f32::from_bits(old as u32) + f32::from_bits(data as u32)).to_bits() as u64
            }
        }
        // IEEE mode's rules (a signalling NaN gives itself quieted): the memory atomics follow
        // IEEE 754-2008's minNum/maxNum (CDNA ISA, "floating-point atomics"). The f32 case
        // stays in f32, since widening a signalling NaN quiets it.
        AtomicOp::FMin | AtomicOp::FMax if wide => {
            crate::float::minmax64(fl(old), fl(data), op == AtomicOp::FMax, true).to_bits()
        }
        AtomicOp::FMin | AtomicOp::FMax => {
            let f = |v: u64| f32::from_bits(v as u32);
            crate::float::minmax32(f(old), f(data), op == AtomicOp::FMax, true).to_bits() as u64
        }
    };
    r & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_modify_write_follows_the_pseudocode() {
        assert_eq!(apply(AtomicOp::Add, false, 0xffff_ffff, 2, 0), 1);
        assert_eq!(apply(AtomicOp::CmpSwap, false, 5, 9, 5), 9);
        assert_eq!(apply(AtomicOp::CmpSwap, false, 5, 9, 4), 5);
        assert_eq!(apply(AtomicOp::SMax, false, 3, (-1i32) as u32 as u64, 0), 3);
        assert_eq!(apply(AtomicOp::UMax, false, 3, (-1i32) as u32 as u64, 0), 0xffff_ffff);
        assert_eq!(apply(AtomicOp::Inc, false, 7, 7, 0), 0);
        assert_eq!(apply(AtomicOp::Dec, false, 0, 7, 0), 7);
        assert_eq!(apply(AtomicOp::Csub, false, 3, 5, 0), 0);
        assert_eq!(
            apply(AtomicOp::FAdd, false, 1.5f32.to_bits() as u64, 2.25f32.to_bits() as u64, 0),
            3.75f32.to_bits() as u64
        );
        assert_eq!(apply(AtomicOp::FAdd, true, 1.5f64.to_bits(), 2.0f64.to_bits(), 0), 3.5f64.to_bits());
        assert_eq!(apply(AtomicOp::Add, true, u64::MAX, 1, 0), 0);
    }

    #[test]
    fn float_min_max_quiet_a_signalling_nan_and_skip_a_quiet_one() {
        let one32 = u64::from(1.0f32.to_bits());
        let (snan32, qnan32) = (0x7f80_0001u64, 0x7fc0_0000u64);
        assert_eq!(apply(AtomicOp::FMin, false, snan32, one32, 0), snan32 | 0x40_0000);
        assert_eq!(apply(AtomicOp::FMax, false, one32, snan32, 0), snan32 | 0x40_0000);
        assert_eq!(apply(AtomicOp::FMin, false, qnan32, one32, 0), one32);
        let one64 = 1.0f64.to_bits();
        let (snan64, qnan64) = (0x7ff0_0000_0000_0001u64, 0x7ff8_0000_0000_0000u64);
        assert_eq!(apply(AtomicOp::FMax, true, snan64, one64, 0), snan64 | 1 << 51);
        assert_eq!(apply(AtomicOp::FMin, true, one64, qnan64, 0), one64);
        assert_eq!(apply(AtomicOp::FMin, true, 0, (-0.0f64).to_bits(), 0), (-0.0f64).to_bits());
    }
}
