//! The vector ALU (VOP1, VOP2, VOP3, VOP3SD, VOPC): per-lane integer and f32 arithmetic on the
//! lanes EXEC enables, lane-mask results (compares, carries) with inactive lanes' bits zero,
//! `v_cmpx_*` writing EXEC, and `v_readfirstlane_b32`. Semantics follow AMD's ISA pseudocode.
//!
//! Each operation has a [`Shape`] (source widths, result width, carry in and out, which side
//! is float) and a per-lane function; one driver resolves the sources once, checks the
//! destinations (in-flight loads, hazards) before writing anything, and runs the lanes. VOP3
//! modifiers are honoured where the operation takes them: `neg`/`abs` on f32 sources,
//! `clamp`/`omod` on f32 results, `clamp` as saturation on the integer add and subtract; a
//! modifier on an operation that does not take it is an error rather than ignored.
//!
//! Operands: `defs[0]` the vector result, `defs[1]` the carry-out lane mask; `ops` the sources
//! in assembly order, then the carry-in or select mask (VCC when the encoding implies it).

use crate::error::FaultKind;
use crate::ops::{mnemonic, Cmp, Op, Ty, VAlu};
use crate::wave::{lanes, FpMode, Src, Wave};
use isa::mir::{Fields, Inst, Operand};
use isa::reg::{PhysReg, RegClass};

/// Executes a vector ALU instruction.
pub(crate) fn execute(wave: &mut Wave, inst: &Inst, op: Op) -> Result<(), FaultKind> {
    match op {
        Op::VAlu(v) => valu(wave, inst, v),
        Op::VCmp { cmp, ty, x } => compare(wave, inst, cmp, ty, x),
        Op::ReadFirstLane => {
            no_modifiers(inst)?;
            let src = wave.vector_operand(source(inst, 0)?, 1)?;
            let exec = wave.exec();
            let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
            let value = wave.src(src, lane, 1);
            wave.write_sregs(dest(inst, 0)?, 1, value)
        }
        Op::ReadLane => {
            no_modifiers(inst)?;
            let src = wave.vector_operand(source(inst, 0)?, 1)?;
            let lane = wave.scalar_operand(source(inst, 1)?, 1)? as u32 & (wave.wave_size - 1);
            let value = wave.src(src, lane, 1);
            wave.write_sregs(dest(inst, 0)?, 1, value)
        }
        Op::WriteLane => {
            no_modifiers(inst)?;
            let value = wave.scalar_operand(source(inst, 0)?, 1)? as u32;
            let lane = wave.scalar_operand(source(inst, 1)?, 1)? as u32 & (wave.wave_size - 1);
            let dst = wave.check_vdef(dest(inst, 0)?, 1)?;
            wave.set_vgpr(dst, lane, value);
            Ok(())
        }
        _ => unreachable!("not a vector ALU op: {op:?}"),
    }
}

/// The operand and result layout of an operation.
#[derive(Copy, Clone, Debug)]
struct Shape {
    /// Dwords of each source.
    srcs: &'static [u16],
    /// Dwords of the result.
    dst: u16,
    /// Writes a carry-out lane mask (`defs[1]`).
    carry_out: bool,
    /// Reads a lane mask after the sources (carry in, or the select of `v_cndmask`).
    mask_in: bool,
    /// The sources are f32 (take `neg`/`abs`).
    float_in: bool,
    /// The result is f32 (takes `clamp`/`omod`).
    float_out: bool,
    /// `clamp` saturates the integer result.
    int_clamp: bool,
}

const fn int(srcs: &'static [u16], dst: u16) -> Shape {
    Shape { srcs, dst, carry_out: false, mask_in: false, float_in: false, float_out: false, int_clamp: false }
}

const fn float(srcs: &'static [u16]) -> Shape {
    Shape { float_in: true, float_out: true, ..int(srcs, 1) }
}

fn shape(v: VAlu) -> Shape {
    use VAlu::*;
    const ONE: &[u16] = &[1];
    const TWO: &[u16] = &[1, 1];
    const THREE: &[u16] = &[1, 1, 1];
    match v {
        Mov | Not => int(ONE, 1),
        Bit(_) | LshlrevB32 | LshrrevB32 | AshrrevI32 | MulLoU32 | MulHiU32 | MulHiI32 | MulU24 | MulI24 => int(TWO, 1),
        MinU32 | MaxU32 | MinI32 | MaxI32 => int(TWO, 1),
        Or3 | AndOr | LshlOr | Add3U32 | LshlAddU32 | AddLshlU32 | XadU32 | BfeU32 | BfeI32 | BfiB32 | AlignbitB32
        | MadU32U24 => int(THREE, 1),
        AddU32 | SubU32 | SubrevU32 => Shape { int_clamp: true, ..int(TWO, 1) },
        AddCoU32 | SubCoU32 | SubrevCoU32 => Shape { carry_out: true, ..int(TWO, 1) },
        AddCoCiU32 | SubCoCiU32 | SubrevCoCiU32 => Shape { carry_out: true, mask_in: true, ..int(TWO, 1) },
        CndmaskB32 => Shape { mask_in: true, ..int(TWO, 1) },
        MadU64U32 | MadI64I32 => Shape { carry_out: true, ..int(&[1, 1, 2], 2) },
        LshlrevB64 | LshrrevB64 | AshrrevI64 => int(&[1, 2], 2),
        LshlAddU64 => int(&[2, 1, 2], 2),
        AddF32 | SubF32 | SubrevF32 | MulF32 | MinF32 | MaxF32 => float(TWO),
        RcpF32 | SqrtF32 => float(ONE),
        FmaF32 | FmacF32 => float(THREE),
        CvtF32U32 | CvtF32I32 => Shape { float_out: true, ..int(ONE, 1) },
        CvtU32F32 | CvtI32F32 => Shape { float_in: true, ..int(ONE, 1) },
    }
}

fn malformed(inst: &Inst, detail: String) -> FaultKind {
    FaultKind::Malformed { opcode: mnemonic(inst.opcode).to_string(), detail }
}

fn source(inst: &Inst, i: usize) -> Result<&Operand, FaultKind> {
    inst.ops.get(i).ok_or_else(|| malformed(inst, format!("operand {i} is missing")))
}

fn dest(inst: &Inst, i: usize) -> Result<PhysReg, FaultKind> {
    inst.defs.get(i).and_then(|d| d.reg).ok_or_else(|| malformed(inst, format!("result {i} is missing")))
}

/// The lane-mask operand after the sources, VCC when the encoding leaves it implicit.
fn mask_source(inst: &Inst, i: usize, wave: &Wave) -> Operand {
    inst.ops.get(i).copied().unwrap_or(Operand::phys(PhysReg::VCC, RegClass::lane_mask(wave.wave_size)))
}

fn no_modifiers(inst: &Inst) -> Result<(), FaultKind> {
    check_modifiers(inst, false, false, false)
}

/// Rejects modifiers the operation does not take.
fn check_modifiers(inst: &Inst, float_in: bool, float_out: bool, int_clamp: bool) -> Result<(), FaultKind> {
    let f = &inst.fields;
    let unsupported = |what: &str| {
        Err(FaultKind::Unimplemented {
            opcode: mnemonic(inst.opcode).to_string(),
            detail: format!(": the {what} modifier on this operation"),
        })
    };
    if !float_in && (f.neg != 0 || f.abs != 0) {
        return unsupported("neg/abs");
    }
    if !float_out && f.omod != 0 {
        return unsupported("omod");
    }
    if !float_out && !int_clamp && f.clamp {
        return unsupported("clamp");
    }
    if f.opsel != 0 {
        return unsupported("op_sel");
    }
    Ok(())
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// An f32 source with its `abs` and `neg` modifiers, and input denormal flushing.
fn fp_in(bits: u64, i: usize, f: &Fields, mode: FpMode) -> f32 {
    let mut b = bits as u32;
    if f.abs >> i & 1 != 0 {
        b &= 0x7fff_ffff;
    }
    if f.neg >> i & 1 != 0 {
        b ^= 0x8000_0000;
    }
    let x = f32::from_bits(b);
    if matches!(mode.denorm32, 0 | 2) {
        flush(x)
    } else {
        x
    }
}

/// An f32 result with its `omod` and `clamp` modifiers, and output denormal flushing.
fn fp_out(x: f32, f: &Fields, mode: FpMode) -> u64 {
    let mut x = match f.omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if f.clamp {
        x = if x.is_nan() {
            if mode.dx10_clamp {
                0.0
            } else {
                x
            }
        } else {
            x.clamp(0.0, 1.0)
        };
    }
    if matches!(mode.denorm32, 0 | 1) {
        x = flush(x);
    }
    x.to_bits() as u64
}

fn valu(wave: &mut Wave, inst: &Inst, v: VAlu) -> Result<(), FaultKind> {
    let sh = shape(v);
    check_modifiers(inst, sh.float_in, sh.float_out, sh.int_clamp)?;
    let mut srcs = [Src::Uniform(0); 3];
    for (i, &dwords) in sh.srcs.iter().enumerate() {
        // v_fmac_f32's third source is its destination, in the operands or not.
        let tied;
        let op = if v == VAlu::FmacF32 && i == 2 && inst.ops.len() < 3 {
            tied = Operand::phys(dest(inst, 0)?, RegClass::V1);
            &tied
        } else {
            source(inst, i)?
        };
        srcs[i] = wave.vector_operand(op, dwords)?;
    }
    let mask_in = if sh.mask_in { wave.mask_operand(&mask_source(inst, sh.srcs.len(), wave))? } else { 0 };
    let dst = wave.check_vdef(dest(inst, 0)?, sh.dst)?;
    let carry_dst =
        if sh.carry_out { Some(inst.defs.get(1).and_then(|d| d.reg).unwrap_or(PhysReg::VCC)) } else { None };
    if let Some(reg) = carry_dst {
        wave.check_sdef(reg, wave.mask_dwords())?;
    }
    let (f, mode) = (inst.fields, wave.mode);
    let mut carry = 0u64;
    for lane in lanes(wave.exec()) {
        let mut s = [0u64; 3];
        for (i, &dwords) in sh.srcs.iter().enumerate() {
            s[i] = wave.src(srcs[i], lane, dwords);
        }
        let cin = mask_in >> lane & 1 != 0;
        let (value, c) = if sh.float_in || sh.float_out {
            let x = |i: usize| fp_in(s[i], i, &f, mode);
            (eval_float(v, &s, x, |r| fp_out(r, &f, mode)), false)
        } else {
            eval_int(v, &s, cin, f.clamp)
        };
        wave.set_vgpr_wide(dst, lane, sh.dst, value);
        carry |= (c as u64) << lane;
    }
    if let Some(reg) = carry_dst {
        wave.write_mask(reg, carry)?;
    }
    Ok(())
}

/// An integer operation on one lane: the result and the carry (or borrow) out.
fn eval_int(v: VAlu, s: &[u64; 3], cin: bool, clamp: bool) -> (u64, bool) {
    use VAlu::*;
    let (a, b, c) = (s[0] as u32, s[1] as u32, s[2] as u32);
    let ci = cin as u64;
    let v32 = |x: u32| (x as u64, false);
    match v {
        Mov => v32(a),
        Not => v32(!a),
        Bit(bit) => v32(bit.eval(a as u64, b as u64) as u32),
        Or3 => v32(a | b | c),
        AndOr => v32((a & b) | c),
        LshlOr => v32((a << (b & 31)) | c),
        AddU32 => v32(if clamp { a.saturating_add(b) } else { a.wrapping_add(b) }),
        SubU32 => v32(if clamp { a.saturating_sub(b) } else { a.wrapping_sub(b) }),
        SubrevU32 => v32(if clamp { b.saturating_sub(a) } else { b.wrapping_sub(a) }),
        Add3U32 => v32(a.wrapping_add(b).wrapping_add(c)),
        LshlAddU32 => v32((a << (b & 31)).wrapping_add(c)),
        AddLshlU32 => v32(a.wrapping_add(b) << (c & 31)),
        XadU32 => v32((a ^ b).wrapping_add(c)),
        AddCoU32 | AddCoCiU32 => {
            let t = a as u64 + b as u64 + if v == AddCoCiU32 { ci } else { 0 };
            (t & 0xffff_ffff, t >> 32 != 0)
        }
        SubCoU32 | SubCoCiU32 | SubrevCoU32 | SubrevCoCiU32 => {
            let (x, y) = if matches!(v, SubCoU32 | SubCoCiU32) { (a as u64, b as u64) } else { (b as u64, a as u64) };
            let borrow = if matches!(v, SubCoCiU32 | SubrevCoCiU32) { ci } else { 0 };
            (x.wrapping_sub(y).wrapping_sub(borrow) & 0xffff_ffff, y + borrow > x)
        }
        MulLoU32 => v32(a.wrapping_mul(b)),
        MulHiU32 => v32(((a as u64 * b as u64) >> 32) as u32),
        MulHiI32 => v32(((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
        MulU24 => v32((a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        MulI24 => v32((sext24(a) * sext24(b)) as u32),
        MadU32U24 => v32((a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)),
        MadU64U32 => {
            let t = a as u128 * b as u128 + s[2] as u128;
            (t as u64, t >> 64 != 0)
        }
        MadI64I32 => {
            let t = a as i32 as i128 * b as i32 as i128 + s[2] as i64 as i128;
            (t as u64, t != t as i64 as i128)
        }
        LshlrevB32 => v32(b << (a & 31)),
        LshrrevB32 => v32(b >> (a & 31)),
        AshrrevI32 => v32(((b as i32) >> (a & 31)) as u32),
        LshlrevB64 => (s[1] << (a & 63), false),
        LshrrevB64 => (s[1] >> (a & 63), false),
        AshrrevI64 => (((s[1] as i64) >> (a & 63)) as u64, false),
        LshlAddU64 => ((s[0] << (b & 7)).wrapping_add(s[2]), false),
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
        AlignbitB32 => v32(((((a as u64) << 32) | b as u64) >> (c & 31)) as u32),
        MinU32 => v32(a.min(b)),
        MaxU32 => v32(a.max(b)),
        MinI32 => v32((a as i32).min(b as i32) as u32),
        MaxI32 => v32((a as i32).max(b as i32) as u32),
        CndmaskB32 => v32(if cin { b } else { a }),
        _ => unreachable!("not an integer op: {v:?}"),
    }
}

fn sext24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

/// An operation with an f32 side on one lane: `x(i)` is source `i` as f32 with its modifiers,
/// `out` applies the result modifiers.
fn eval_float(v: VAlu, s: &[u64; 3], x: impl Fn(usize) -> f32, out: impl Fn(f32) -> u64) -> u64 {
    use VAlu::*;
    match v {
        AddF32 => out(x(0) + x(1)),
        SubF32 => out(x(0) - x(1)),
        SubrevF32 => out(x(1) - x(0)),
        MulF32 => out(x(0) * x(1)),
        FmaF32 | FmacF32 => out(x(0).mul_add(x(1), x(2))),
        MinF32 => out(x(0).min(x(1))),
        MaxF32 => out(x(0).max(x(1))),
        RcpF32 => out(1.0 / x(0)),
        SqrtF32 => out(x(0).sqrt()),
        CvtF32U32 => out(s[0] as u32 as f32),
        CvtF32I32 => out(s[0] as u32 as i32 as f32),
        CvtU32F32 => x(0) as u32 as u64,
        CvtI32F32 => x(0) as i32 as u32 as u64,
        _ => unreachable!("not a float op: {v:?}"),
    }
}

fn compare(wave: &mut Wave, inst: &Inst, cmp: Cmp, ty: Ty, x: bool) -> Result<(), FaultKind> {
    let is_float = ty == Ty::F32;
    check_modifiers(inst, is_float, false, false)?;
    let dwords = ty.dwords();
    let a = wave.vector_operand(source(inst, 0)?, dwords)?;
    let b = wave.vector_operand(source(inst, 1)?, dwords)?;
    // GFX9's v_cmpx also writes its SGPR destination; GFX10+'s writes only EXEC.
    let dst = match inst.defs.first().and_then(|d| d.reg) {
        Some(PhysReg::EXEC) => None,
        Some(reg) => Some(reg),
        None if x => None,
        None => Some(PhysReg::VCC),
    };
    if let Some(reg) = dst {
        wave.check_sdef(reg, wave.mask_dwords())?;
    }
    if x {
        wave.check_sdef(PhysReg::EXEC, wave.mask_dwords())?;
    }
    let (f, mode) = (inst.fields, wave.mode);
    let mut result = 0u64;
    for lane in lanes(wave.exec()) {
        let (mut va, mut vb) = (wave.src(a, lane, dwords), wave.src(b, lane, dwords));
        if is_float {
            va = fp_in(va, 0, &f, mode).to_bits() as u64;
            vb = fp_in(vb, 1, &f, mode).to_bits() as u64;
        }
        if cmp.eval(ty, va, vb) {
            result |= 1 << lane;
        }
    }
    if let Some(reg) = dst {
        wave.write_mask(reg, result)?;
    }
    if x {
        wave.set_exec(result);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Bit;

    #[test]
    fn integer_semantics_follow_the_pseudocode() {
        let e = |v, a: u64, b: u64, c: u64| eval_int(v, &[a, b, c], false, false);
        assert_eq!(e(VAlu::BfeU32, 0x0003_fc00, 10, 10), (0xff, false));
        assert_eq!(e(VAlu::BfeI32, 0x0000_0380, 7, 3), (0xffff_ffff, false));
        assert_eq!(e(VAlu::MadU64U32, 0xffff_ffff, 0xffff_ffff, u64::MAX), (0xffff_fffe_0000_0000, true));
        assert_eq!(e(VAlu::LshlAddU64, 0x1_0000_0000, 2, 5), (0x4_0000_0005, false));
        assert_eq!(e(VAlu::AddCoU32, 0xffff_ffff, 2, 0), (1, true));
        assert_eq!(e(VAlu::SubCoU32, 1, 2, 0), (0xffff_ffff, true));
        assert_eq!(e(VAlu::LshlrevB64, 2, 0x4000_0000_0000_0001, 0), (4, false));
        assert_eq!(e(VAlu::AlignbitB32, 0x1, 0x8000_0000, 31), (0x3, false));
        assert_eq!(e(VAlu::Bit(Bit::And), 0x3ff, 0x12345, 0), (0x345, false));
        assert_eq!(eval_int(VAlu::AddU32, &[u32::MAX as u64, 1, 0], false, true), (u32::MAX as u64, false));
        assert_eq!(eval_int(VAlu::AddCoCiU32, &[u32::MAX as u64, 0, 0], true, false), (0, true));
    }

    #[test]
    fn float_modifiers_apply_in_order() {
        let mode = FpMode { denorm32: 3, dx10_clamp: true };
        let f = Fields { neg: 0b01, abs: 0b10, clamp: true, ..Fields::default() };
        let a = (2.0f32).to_bits() as u64;
        let b = (-3.0f32).to_bits() as u64;
        // clamp(-2 + |-3|) = 1
        let s = [a, b, 0];
        let r = eval_float(VAlu::AddF32, &s, |i| fp_in(s[i], i, &f, mode), |r| fp_out(r, &f, mode));
        assert_eq!(f32::from_bits(r as u32), 1.0);
        let flush_mode = FpMode { denorm32: 0, dx10_clamp: true };
        let tiny = f32::from_bits(1);
        assert_eq!(fp_out(tiny, &Fields::default(), flush_mode), 0);
    }
}
