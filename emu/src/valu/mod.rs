//! The vector ALU: per-lane integer, f16, f32 and f64 arithmetic on the lanes EXEC enables,
//! lane-mask results (compares, carries) with inactive lanes' bits zero, `v_cmpx_*` writing
//! EXEC, the cross-lane operations (`v_readfirstlane`, `v_readlane`, `v_writelane`,
//! `v_mbcnt`, DPP), VOPD pairs and packed (VOP3P) operations. Semantics follow AMD's ISA
//! pseudocode; the per-lane functions live in [`int`], [`fp`] and [`packed`], the lane
//! arithmetic of DPP and SDWA in [`lanes`].
//!
//! One driver serves every operation of the [`crate::ops::valu`] table: it resolves each
//! source once (checking in-flight loads), checks the destinations (in-flight loads, hazards
//! are checked before), computes every lane into a buffer, and only then writes, so a faulting
//! instruction changes nothing and a VOPD pair reads both halves' sources before either
//! writes. Source modifiers: `op_sel` picks the high half of a 16-bit source, SDWA selects a
//! byte or word, DPP fetches the first source from another lane, then `abs` and `neg` apply
//! to floats (and to `v_cndmask`'s sign bits), then input denormals are flushed as the mode
//! says. Result modifiers: `omod`, `clamp` (NaN to 0 with DX10_CLAMP), output denormal
//! flushing; `clamp` saturates the integer operations that take it. A modifier an operation
//! does not take is an error rather than ignored.
//!
//! 16-bit results: GFX11 writes the low half (the high one with `op_sel[3]`) and keeps the
//! other; GFX9 zeroes the high half for the VOP1/VOP2 operations (their `_e64` forms too) and
//! keeps it for the VOP3-only ones, as LLVM's `zeroesHigh16BitsOfDest` says.

mod fp;
mod int;
pub(crate) mod lanes;
mod packed;

use crate::error::FaultKind;
use crate::ops::valu::{Shape, BITMODS, CI, CO, ICLAMP, TIED, VCCIN};
use crate::ops::{mnemonic, Cmp, Op, Ty, VAlu};
use crate::program::Decoded;
use crate::wave::{full_mask, lanes as lanes_of, FpMode, Src, Wave};
use isa::mir::{Def, Dpp, Fields, Inst, Operand};
use isa::opcode::{Family, Format};
use isa::reg::{PhysReg, RegClass, RegType};
use lanes::{dpp_fetch, sdwa_select, sdwa_write, Fetch};
use smallvec::SmallVec;

/// What a lane's operation sees besides its sources.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LaneCx {
    /// The lane's carry-in (or select, or VCC bit for `v_div_fmas`).
    pub(crate) cin: bool,
    /// `clamp` on an integer operation: saturate.
    pub(crate) clamp: bool,
    /// The FP mode.
    pub(crate) mode: FpMode,
}

/// Executes a vector ALU instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: Op, family: Family) -> Result<(), FaultKind> {
    let inst = &d.inst;
    match op {
        Op::VAlu(v) => {
            let out = compute(wave, inst, v, family)?;
            commit(wave, out)
        }
        Op::Dual(x) => dual(wave, d, x, family),
        Op::Packed(pk) => packed::execute(wave, inst, pk),
        Op::VCmp { cmp, ty, x } => compare(wave, inst, Compare::Values(cmp), ty, x),
        Op::VCmpClass { ty, x } => compare(wave, inst, Compare::Class, ty, x),
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
        Op::AccMove => {
            // A source and a result each in the AGPRs or not (a VGPR, or for a write a
            // scalar or an inline constant).
            let op = source(inst, 0)?;
            let from_agpr = op.reg.filter(|r| r.reg_type() == RegType::Agpr && op.constant_value().is_none());
            let src = match from_agpr {
                Some(r) => Err(wave.agpr_index(r)?),
                None => Ok(wave.vector_operand(op, 1)?),
            };
            let to = dest(inst, 0)?;
            let lanes: Vec<(u32, u64)> = lanes_of(wave.exec())
                .map(|lane| (lane, src.map_or_else(|a| u64::from(wave.agpr(a, lane)), |s| wave.src(s, lane, 1))))
                .collect();
            if to.reg_type() == RegType::Agpr {
                let dst = wave.agpr_index(to)?;
                lanes.into_iter().for_each(|(lane, v)| wave.set_agpr(dst, lane, v as u32));
                return Ok(());
            }
            let dst = wave.check_vdef(to, 1)?;
            commit(wave, Results { dst, dwords: 1, values: lanes, carry: None })
        }
        Op::Permlane64 => {
            no_modifiers(inst)?;
            let src = wave.vector_operand(source(inst, 0)?, 1)?;
            let dst = wave.check_vdef(dest(inst, 0)?, 1)?;
            if wave.wave_size == 32 {
                return Ok(());
            }
            let values: Vec<(u32, u64)> =
                lanes_of(wave.exec()).map(|lane| (lane, wave.src(src, lane ^ 32, 1))).collect();
            commit(wave, Results { dst, dwords: 1, values, carry: None })
        }
        Op::Permlanex16 => {
            let f = &inst.fields;
            if f.neg != 0 || f.abs != 0 || f.clamp || f.omod != 0 || f.dpp.is_some() || f.sdwa.is_some() {
                return Err(unsupported(inst, "modifiers on v_permlanex16_b32"));
            }
            let (fetch_inactive, bound_ctrl) = (f.opsel & 1 != 0, f.opsel & 2 != 0);
            let src = wave.vector_operand(source(inst, 0)?, 1)?;
            let select = wave.scalar_operand(source(inst, 1)?, 1)? & 0xffff_ffff
                | (wave.scalar_operand(source(inst, 2)?, 1)? & 0xffff_ffff) << 32;
            let dst = wave.check_vdef(dest(inst, 0)?, 1)?;
            let exec = wave.exec();
            let values: Vec<(u32, u64)> = lanes_of(exec)
                .filter_map(|lane| {
                    let within = (select >> (4 * (lane & 15))) & 15;
                    let from = (lane & !31) | ((lane & 16) ^ 16) | within as u32;
                    if fetch_inactive || exec >> from & 1 != 0 {
                        Some((lane, wave.src(src, from, 1)))
                    } else {
                        bound_ctrl.then_some((lane, 0))
                    }
                })
                .collect();
            commit(wave, Results { dst, dwords: 1, values, carry: None })
        }
        Op::Mbcnt { hi } => {
            no_modifiers(inst)?;
            let mask = wave.typed_operand(source(inst, 0)?, Ty::U32)?;
            let add = wave.typed_operand(source(inst, 1)?, Ty::U32)?;
            let dst = wave.check_vdef(dest(inst, 0)?, 1)?;
            let values: Vec<(u32, u64)> = lanes_of(wave.exec())
                .map(|lane| {
                    let below = (1u64 << lane) - 1;
                    let part = if hi { below >> 32 } else { below & 0xffff_ffff };
                    let m = wave.src(mask, lane, 1) & part;
                    (lane, (wave.src(add, lane, 1) as u32).wrapping_add(m.count_ones()) as u64)
                })
                .collect();
            commit(wave, Results { dst, dwords: 1, values, carry: None })
        }
        Op::VNop => Ok(()),
        Op::Swap => {
            no_modifiers(inst)?;
            let a = wave.check_vdef(dest(inst, 0)?, 1)?;
            let src = source(inst, 0)?.reg.ok_or_else(|| malformed(inst, "the source is not a VGPR".into()))?;
            let b = wave.check_vdef(src, 1)?;
            wave.check_vuse(src, 1)?;
            for lane in lanes_of(wave.exec()) {
                let (x, y) = (wave.vgpr(a, lane), wave.vgpr(b, lane));
                wave.set_vgpr(a, lane, y);
                wave.set_vgpr(b, lane, x);
            }
            Ok(())
        }
        _ => unreachable!("not a vector ALU op: {op:?}"),
    }
}

/// Results computed but not yet written.
pub(crate) struct Results {
    /// The first destination VGPR (checked).
    pub(crate) dst: u16,
    /// Dwords written per lane.
    pub(crate) dwords: u16,
    /// Each written lane and its final register value.
    pub(crate) values: Vec<(u32, u64)>,
    /// A lane mask to write, and where.
    pub(crate) carry: Option<(PhysReg, u64)>,
}

/// Writes computed results.
pub(crate) fn commit(wave: &mut Wave, r: Results) -> Result<(), FaultKind> {
    for (lane, value) in r.values {
        wave.set_vgpr_wide(r.dst, lane, r.dwords, value);
    }
    if let Some((reg, mask)) = r.carry {
        wave.write_mask(reg, mask)?;
    }
    Ok(())
}

pub(crate) fn malformed(inst: &Inst, detail: String) -> FaultKind {
    FaultKind::Malformed { opcode: mnemonic(inst.opcode).to_string(), detail }
}

pub(crate) fn source(inst: &Inst, i: usize) -> Result<&Operand, FaultKind> {
    inst.ops.get(i).ok_or_else(|| malformed(inst, format!("operand {i} is missing")))
}

pub(crate) fn dest(inst: &Inst, i: usize) -> Result<PhysReg, FaultKind> {
    inst.defs.get(i).and_then(|d| d.reg).ok_or_else(|| malformed(inst, format!("result {i} is missing")))
}

/// The lane-mask operand at `i`, VCC when the encoding leaves it implicit.
fn mask_source(inst: &Inst, i: usize, wave: &Wave) -> Operand {
    inst.ops.get(i).copied().unwrap_or(Operand::phys(PhysReg::VCC, RegClass::lane_mask(wave.wave_size)))
}

fn unsupported(inst: &Inst, what: &str) -> FaultKind {
    FaultKind::Unimplemented {
        opcode: mnemonic(inst.opcode).to_string(),
        detail: format!(": the {what} modifier on this operation"),
    }
}

pub(crate) fn no_modifiers(inst: &Inst) -> Result<(), FaultKind> {
    let f = &inst.fields;
    for (set, what) in [
        (f.neg != 0 || f.abs != 0, "neg/abs"),
        (f.clamp, "clamp"),
        (f.omod != 0, "omod"),
        (f.opsel != 0, "op_sel"),
        (f.dpp.is_some(), "DPP"),
        (f.sdwa.is_some(), "SDWA"),
    ] {
        if set {
            return Err(unsupported(inst, what));
        }
    }
    Ok(())
}

/// How one source is fetched in every lane.
#[derive(Copy, Clone, Debug)]
struct Fetcher {
    src: Src,
    ty: Ty,
    /// `op_sel`: the high half of a 16-bit source.
    hi: bool,
    /// SDWA select and sign extension.
    sdwa: Option<(u8, bool)>,
    neg: bool,
    abs: bool,
    /// The sign-bit modifiers apply.
    mods: bool,
    /// Input denormals are flushed.
    flush: bool,
}

impl Fetcher {
    fn new(src: Src, ty: Ty, i: usize, f: &Fields, bitmods: bool, mode: FpMode) -> Fetcher {
        let sdwa = f.sdwa.and_then(|s| match i {
            0 => Some((s.src0_sel, s.sext & 1 != 0)),
            1 => Some((s.src1_sel, s.sext & 2 != 0)),
            _ => None,
        });
        Fetcher {
            src,
            ty,
            hi: ty.bits() == 16 && f.opsel >> i & 1 != 0,
            sdwa,
            neg: f.neg >> i & 1 != 0,
            abs: f.abs >> i & 1 != 0,
            mods: ty.is_float() || bitmods,
            flush: ty.is_float() && matches!(mode.denorm(ty), 0 | 2),
        }
    }

    /// The source's value in `lane` (read from `from`, which DPP may make another lane).
    fn get(&self, wave: &Wave, from: u32) -> u64 {
        let mut v = wave.src(self.src, from, self.ty.dwords());
        if let Some((sel, sext)) = self.sdwa {
            v = sdwa_select(v as u32, sel, sext) as u64;
        }
        let bits = self.ty.bits();
        if bits == 16 {
            v = (v >> (16 * self.hi as u32)) & 0xffff;
        } else if bits == 32 {
            v &= 0xffff_ffff;
        }
        if self.mods {
            let sign = 1u64 << (bits - 1);
            if self.abs {
                v &= !sign;
            }
            if self.neg {
                v ^= sign;
            }
        }
        if self.flush {
            v = crate::float::flush_denormal(v, bits);
        }
        v
    }
}

/// Checks the modifiers against what the operation takes.
fn check_modifiers(inst: &Inst, sh: &Shape, family: Family) -> Result<(), FaultKind> {
    let f = &inst.fields;
    let float_in = sh.srcs.iter().any(|t| t.is_float()) || sh.has(BITMODS);
    let float_out = sh.dst.is_float();
    let halves = sh.srcs.iter().any(|t| t.bits() == 16) || sh.dst.bits() == 16;
    if !float_in && (f.neg != 0 || f.abs != 0) {
        return Err(unsupported(inst, "neg/abs"));
    }
    if !float_out && f.omod != 0 {
        return Err(unsupported(inst, "omod"));
    }
    if !float_out && !sh.has(ICLAMP) && f.clamp {
        return Err(unsupported(inst, "clamp"));
    }
    if !halves && f.opsel != 0 {
        return Err(unsupported(inst, "op_sel"));
    }
    if let Some(Dpp::Dpp16 { ctrl, .. }) = f.dpp {
        if !lanes::dpp16_defined(ctrl, family.is_gfx9()) {
            return Err(malformed(inst, format!("DPP control {ctrl:#x} is not defined on this processor")));
        }
    }
    Ok(())
}

/// The sources of an operation, in order (a tied accumulator read from the destination when
/// the operands leave it out).
fn fetchers(wave: &Wave, inst: &Inst, sh: &Shape) -> Result<SmallVec<[Fetcher; 3]>, FaultKind> {
    let mut out = SmallVec::new();
    for (i, &ty) in sh.srcs.iter().enumerate() {
        let tied;
        let op = if sh.has(TIED) && i == sh.srcs.len() - 1 && inst.ops.len() < sh.srcs.len() {
            tied = Operand::phys(dest(inst, 0)?, RegClass::vgpr(ty.dwords() as u8));
            &tied
        } else {
            source(inst, i)?
        };
        let src = wave.typed_operand(op, ty)?;
        out.push(Fetcher::new(src, ty, i, &inst.fields, sh.has(BITMODS), wave.mode));
    }
    if inst.fields.dpp.is_some() && !matches!(out.first(), Some(Fetcher { src: Src::Vgpr(_), .. })) {
        return Err(malformed(inst, "the DPP source is not a VGPR".into()));
    }
    Ok(out)
}

/// Computes a VOP1/VOP2/VOP3 operation's results without writing them.
pub(crate) fn compute(wave: &Wave, inst: &Inst, v: VAlu, family: Family) -> Result<Results, FaultKind> {
    let sh = v.shape();
    check_modifiers(inst, &sh, family)?;
    let srcs = fetchers(wave, inst, &sh)?;
    let mask_in = if sh.has(CI) {
        wave.mask_operand(&mask_source(inst, sh.srcs.len(), wave))?
    } else if sh.has(VCCIN) {
        wave.mask_operand(&Operand::phys(PhysReg::VCC, RegClass::lane_mask(wave.wave_size)))?
    } else {
        0
    };
    let dst_reg = dest(inst, 0)?;
    let dwords = sh.dst.dwords();
    let dst = wave.check_vdef(dst_reg, dwords)?;
    let carry_dst = if sh.has(CO) { Some(inst.defs.get(1).and_then(|d| d.reg).unwrap_or(PhysReg::VCC)) } else { None };
    if let Some(reg) = carry_dst {
        wave.check_sdef(reg, wave.mask_dwords())?;
    }
    let f = inst.fields;
    let exec = wave.exec();
    let gfx9 = family.is_gfx9();
    let zero_high = gfx9 && matches!(inst.opcode.format(family), Format::Vop1 | Format::Vop2);
    let mut values = Vec::with_capacity(exec.count_ones() as usize);
    let mut carry = 0u64;
    for lane in lanes_of(exec) {
        let fetch0 = match &f.dpp {
            Some(dpp) => dpp_fetch(dpp, lane, exec, wave.wave_size, gfx9),
            None => Fetch::Lane(lane),
        };
        let mut s = [0u64; 3];
        for (i, fetcher) in srcs.iter().enumerate() {
            s[i] = match (i, fetch0) {
                (0, Fetch::Skip) => 0,
                (0, Fetch::Zero) => 0,
                (0, Fetch::Lane(from)) => fetcher.get(wave, from),
                _ => fetcher.get(wave, lane),
            };
        }
        if fetch0 == Fetch::Skip {
            continue;
        }
        let cx = LaneCx { cin: mask_in >> lane & 1 != 0, clamp: f.clamp, mode: wave.mode };
        let (raw, c) = int::eval(v, &s, &cx)
            .or_else(|| fp::eval(v, &s, &cx))
            .unwrap_or_else(|| unreachable!("{v:?} has no semantics"));
        let result = if sh.dst.is_float() { output_modifiers(raw, sh.dst, &f, wave.mode) } else { raw };
        let old = if dwords == 1 { wave.vgpr(dst, lane) as u64 } else { 0 };
        let value = if let Some(sdwa) = &f.sdwa {
            sdwa_write(old as u32, result as u32, sdwa) as u64
        } else if sh.dst.bits() == 16 {
            let r = result & 0xffff;
            if f.opsel & 8 != 0 {
                (old & 0xffff) | r << 16
            } else if zero_high {
                r
            } else {
                (old & 0xffff_0000) | r
            }
        } else {
            result
        };
        values.push((lane, value));
        carry |= (c as u64) << lane;
    }
    Ok(Results { dst, dwords, values, carry: carry_dst.map(|reg| (reg, carry)) })
}

/// `omod`, `clamp` and output denormal flushing on a float result of type `ty`.
pub(crate) fn output_modifiers(bits: u64, ty: Ty, f: &Fields, mode: FpMode) -> u64 {
    use crate::float::{f16_to_f64, f64_to_f16};
    let factor = match f.omod {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => 1.0,
    };
    let mut v = bits;
    if factor != 1.0 || f.clamp {
        let (x, to): (f64, fn(f64) -> u64) = match ty {
            Ty::F16 => (f16_to_f64(v as u16), |x| f64_to_f16(x) as u64),
            Ty::F32 => (f32::from_bits(v as u32) as f64, |x| (x as f32).to_bits() as u64),
            _ => (f64::from_bits(v), f64::to_bits),
        };
        // The scaling of an f32 or f16 result is exact in f64, then rounded once.
        let mut x = x * factor;
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
        v = to(x);
    }
    if matches!(mode.denorm(ty), 0 | 1) {
        v = crate::float::flush_denormal(v, ty.bits());
    }
    v
}

/// A VOPD pair: both halves read their sources before either writes.
fn dual(wave: &mut Wave, d: &Decoded, x: VAlu, family: Family) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let y = match d.op_y {
        Some(Op::Dual(y)) => y,
        _ => {
            let name = inst.fields.vopd_y.map_or("(none)", mnemonic);
            return Err(FaultKind::Unimplemented {
                opcode: name.to_string(),
                detail: ": as the Y half of a VOPD pair".into(),
            });
        }
    };
    let explicit = |v: VAlu| {
        let sh = v.shape();
        sh.srcs.len() - sh.has(TIED) as usize
    };
    let nx = explicit(x);
    if inst.defs.len() < 2 || inst.ops.len() < nx {
        return Err(malformed(inst, "a VOPD pair needs two results and both halves' operands".into()));
    }
    let half = |def: Def, ops: &[Operand]| Inst::new(inst.opcode, &[def], ops);
    let ix = half(inst.defs[0], &inst.ops[..nx]);
    let iy = half(inst.defs[1], &inst.ops[nx..]);
    let rx = compute(wave, &ix, x, family)?;
    let ry = compute(wave, &iy, y, family)?;
    commit(wave, rx)?;
    commit(wave, ry)
}

/// What a compare tests.
#[derive(Copy, Clone, Debug)]
enum Compare {
    /// A predicate on the two sources.
    Values(Cmp),
    /// The class of the first source against the mask in the second.
    Class,
}

fn compare(wave: &mut Wave, inst: &Inst, what: Compare, ty: Ty, x: bool) -> Result<(), FaultKind> {
    let f = inst.fields;
    if (!ty.is_float() && (f.neg != 0 || f.abs != 0)) || f.clamp || f.omod != 0 || f.dpp.is_some() {
        return Err(unsupported(inst, "neg/abs/clamp/omod/DPP"));
    }
    if ty.bits() != 16 && f.opsel != 0 {
        return Err(unsupported(inst, "op_sel"));
    }
    let (ty0, ty1) = match what {
        Compare::Values(_) => (ty, ty),
        Compare::Class => (ty, Ty::U32),
    };
    let a = Fetcher {
        flush: false,
        ..Fetcher::new(wave.typed_operand(source(inst, 0)?, ty0)?, ty0, 0, &f, false, wave.mode)
    };
    let b = Fetcher {
        flush: false,
        ..Fetcher::new(wave.typed_operand(source(inst, 1)?, ty1)?, ty1, 1, &f, false, wave.mode)
    };
    let flush = |v: u64, t: Ty| {
        if t.is_float() && matches!(wave.mode.denorm(t), 0 | 2) {
            crate::float::flush_denormal(v, t.bits())
        } else {
            v
        }
    };
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
    let mut result = 0u64;
    for lane in lanes_of(wave.exec()) {
        let (va, vb) = (a.get(wave, lane), b.get(wave, lane));
        let bit = match what {
            Compare::Values(cmp) => cmp.eval(ty, flush(va, ty), flush(vb, ty)),
            Compare::Class => {
                let bits = ty.bits();
                let value = match ty {
                    Ty::F16 => crate::float::f16_to_f64(va as u16),
                    Ty::F32 => f32::from_bits(va as u32) as f64,
                    _ => f64::from_bits(va),
                };
                let denormal = match ty {
                    Ty::F16 => crate::float::f16_is_denormal(va as u16),
                    Ty::F32 => f32::from_bits(va as u32).is_subnormal(),
                    _ => value.is_subnormal(),
                };
                crate::float::class_of(value, crate::float::is_snan(va, bits), denormal, vb as u32)
            }
        };
        result |= (bit as u64) << lane;
    }
    result &= full_mask(wave.wave_size);
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

    #[test]
    fn float_modifiers_apply_in_order() {
        let mode = FpMode { denorm32: 3, denorm16_64: 3, dx10_clamp: true, ieee: true };
        let f = Fields { clamp: true, ..Fields::default() };
        assert_eq!(output_modifiers(1.5f32.to_bits() as u64, Ty::F32, &f, mode), 1.0f32.to_bits() as u64);
        let f = Fields { omod: 3, ..Fields::default() };
        assert_eq!(output_modifiers(3.0f64.to_bits(), Ty::F64, &f, mode), 1.5f64.to_bits());
        let flush_mode = FpMode { denorm32: 0, ..mode };
        assert_eq!(output_modifiers(1, Ty::F32, &Fields::default(), flush_mode), 0);
        let fetch = Fetcher::new(
            Src::Uniform(0x4000_3c00),
            Ty::F16,
            0,
            &Fields { opsel: 1, neg: 1, ..Fields::default() },
            false,
            mode,
        );
        let wave = Wave::new(32, 1, 8, mode);
        assert_eq!(fetch.get(&wave, 0), 0xc000, "the high half, negated");
    }
}
