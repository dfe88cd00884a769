//! Packed operations (VOP3P): each lane computes two halves. For 16-bit operations the low
//! result takes each source's half chosen by `op_sel` (bit per source: 0 low, 1 high) and
//! negated by `neg_lo`, the high result the half chosen by `op_sel_hi`, negated by `neg_hi`;
//! `clamp` clamps floats to [0, 1] and saturates integers. gfx942's packed f32 operations
//! work the same way on the dwords of 64-bit operands. The mixed-precision `v_fma_mix*` take
//! each source as f32 (`op_sel_hi` 0) or as the f16 half `op_sel` picks (`op_sel_hi` 1), with
//! `neg_lo` negating and `neg_hi` taking the absolute value, and round once.

use super::{commit, dest, output_modifiers, source, Results};
use crate::error::FaultKind;
use crate::float::{self, f16_to_f64, f64_to_f16, fma_f16};
use crate::ops::{PkOp, Ty};
use crate::wave::{lanes, Wave};
use isa::mir::{Fields, Inst, Operand};
use isa::reg::RegClass;

/// Executes a packed operation.
pub(super) fn execute(wave: &mut Wave, inst: &Inst, op: PkOp) -> Result<(), FaultKind> {
    let f = inst.fields;
    if f.omod != 0 || f.dpp.is_some() || f.sdwa.is_some() {
        return Err(FaultKind::Unimplemented {
            opcode: crate::ops::mnemonic(inst.opcode).to_string(),
            detail: ": omod/DPP/SDWA on a packed operation".into(),
        });
    }
    let n = op.sources();
    let wide = op.is_f32_pair();
    let ty = if wide { Ty::U64 } else { Ty::U32 };
    let mut srcs = Vec::with_capacity(3);
    for i in 0..n {
        srcs.push(wave.typed_operand(source(inst, i)?, ty)?);
    }
    if op == PkOp::FmacF16 {
        let tied = Operand::phys(dest(inst, 0)?, RegClass::V1);
        srcs.push(wave.typed_operand(&tied, Ty::U32)?);
    }
    let dst = wave.check_vdef(dest(inst, 0)?, if wide { 2 } else { 1 })?;
    let mode = wave.mode;
    let mut values = Vec::new();
    for lane in lanes(wave.exec()) {
        let s: Vec<u64> = srcs.iter().map(|&src| wave.src(src, lane, if wide { 2 } else { 1 })).collect();
        let old = wave.vgpr(dst, lane) as u64;
        let value = if op.is_mix() {
            mix(op, &s, &f, old)
        } else if wide {
            let half = |hi_result: bool| {
                let pick = |i: usize| {
                    let sel = if hi_result { f.opsel_hi } else { f.opsel } >> i & 1 != 0;
                    let mut v = if sel { s[i] >> 32 } else { s[i] & 0xffff_ffff };
                    let neg = if hi_result { f.neg_hi } else { f.neg } >> i & 1 != 0;
                    if neg && op != PkOp::MovB32 {
                        v ^= 0x8000_0000;
                    }
                    f32::from_bits(v as u32)
                };
                let r = match op {
                    PkOp::FmaF32 => pick(0).mul_add(pick(1), pick(2)),
                    PkOp::MulF32 => pick(0) * pick(1),
                    PkOp::AddF32 => pick(0) + pick(1),
                    _ => {
                        // v_pk_mov_b32: the low result from src0, the high one from src1.
                        let i = hi_result as usize;
                        let sel = f.opsel >> i & 1 != 0;
                        return if sel { s[i] >> 32 } else { s[i] & 0xffff_ffff };
                    }
                };
                output_modifiers(r.to_bits() as u64, Ty::F32, &Fields { clamp: f.clamp, ..Fields::default() }, mode)
            };
            half(false) | half(true) << 32
        } else {
            let half = |hi_result: bool| {
                let pick = |i: usize| {
                    let sel = if op == PkOp::FmacF16 {
                        hi_result
                    } else {
                        (if hi_result { f.opsel_hi } else { f.opsel }) >> i & 1 != 0
                    };
                    let v = ((s[i] >> (16 * sel as u32)) & 0xffff) as u16;
                    let neg = if hi_result { f.neg_hi } else { f.neg } >> i & 1 != 0;
                    if neg {
                        v ^ 0x8000
                    } else {
                        v
                    }
                };
                half16(op, pick(0), pick(1), if n >= 3 || op == PkOp::FmacF16 { pick(2) } else { 0 }, f.clamp, mode)
            };
            (half(false) | half(true) << 16) as u64
        };
        values.push((lane, value));
    }
    commit(wave, Results { dst, dwords: if wide { 2 } else { 1 }, values, carry: None })
}

/// One 16-bit half of a packed operation.
fn half16(op: PkOp, a: u16, b: u16, c: u16, clamp: bool, mode: crate::wave::FpMode) -> u32 {
    let h = |x: u16| f16_to_f64(x);
    let ieee = mode.ieee;
    let fl = |r: f64| {
        let bits = f64_to_f16(r) as u64;
        output_modifiers(bits, Ty::F16, &Fields { clamp, ..Fields::default() }, mode) as u32
    };
    let sat_u = |t: i64| if clamp { t.clamp(0, 0xffff) as u32 } else { t as u16 as u32 };
    let sat_i = |t: i64| if clamp { t.clamp(i16::MIN as i64, i16::MAX as i64) as u16 as u32 } else { t as u16 as u32 };
    let (ai, bi, ci) = (a as i16 as i64, b as i16 as i64, c as i16 as i64);
    let (au, bu, cu) = (a as i64, b as i64, c as i64);
    match op {
        PkOp::AddF16 => fl(h(a) + h(b)),
        PkOp::MulF16 => fl(h(a) * h(b)),
        PkOp::FmaF16 | PkOp::FmacF16 => {
            let bits = fma_f16(a, b, c) as u64;
            output_modifiers(bits, Ty::F16, &Fields { clamp, ..Fields::default() }, mode) as u32
        }
        PkOp::MinF16 => fl(float::minmax64(h(a), h(b), false, ieee)),
        PkOp::MaxF16 => fl(float::minmax64(h(a), h(b), true, ieee)),
        PkOp::AddU16 => sat_u(au + bu),
        PkOp::SubU16 => sat_u(au - bu),
        PkOp::AddI16 => sat_i(ai + bi),
        PkOp::SubI16 => sat_i(ai - bi),
        PkOp::MulLoU16 => (au * bu) as u16 as u32,
        PkOp::MadU16 => sat_u(au * bu + cu),
        PkOp::MadI16 => sat_i(ai * bi + ci),
        PkOp::LshlrevB16 => (b << (a & 15)) as u32,
        PkOp::LshrrevB16 => (b >> (a & 15)) as u32,
        PkOp::AshrrevI16 => ((b as i16) >> (a & 15)) as u16 as u32,
        PkOp::MaxU16 => a.max(b) as u32,
        PkOp::MinU16 => a.min(b) as u32,
        PkOp::MaxI16 => (a as i16).max(b as i16) as u16 as u32,
        PkOp::MinI16 => (a as i16).min(b as i16) as u16 as u32,
        _ => unreachable!("not a 16-bit packed operation: {op:?}"),
    }
}

/// `v_fma_mix_f32`, `v_fma_mixlo_f16`, `v_fma_mixhi_f16`.
fn mix(op: PkOp, s: &[u64], f: &Fields, old: u64) -> u64 {
    let arg = |i: usize| {
        let v = s[i] as u32;
        let x = if f.opsel_hi >> i & 1 != 0 {
            f16_to_f64((v >> (16 * (f.opsel >> i & 1) as u32)) as u16)
        } else {
            f32::from_bits(v) as f64
        };
        let x = if f.neg_hi >> i & 1 != 0 { x.abs() } else { x };
        if f.neg >> i & 1 != 0 {
            -x
        } else {
            x
        }
    };
    let (a, b, c) = (arg(0), arg(1), arg(2));
    let p = a * b; // exact: both have at most 24 significant bits
    let sum = p + c;
    let bb = sum - p;
    let err = if sum.is_finite() { (p - (sum - bb)) + (c - bb) } else { 0.0 };
    let clamp = |x: f64| {
        if f.clamp {
            if x.is_nan() {
                0.0
            } else {
                x.clamp(0.0, 1.0)
            }
        } else {
            x
        }
    };
    match op {
        PkOp::FmaMixF32 => (clamp((a as f32).mul_add(b as f32, c as f32) as f64) as f32).to_bits() as u64,
        PkOp::FmaMixloF16 => (old & 0xffff_0000) | float::f64_to_f16_sticky(clamp(sum), err) as u64,
        _ => (old & 0xffff) | (float::f64_to_f16_sticky(clamp(sum), err) as u64) << 16,
    }
}
