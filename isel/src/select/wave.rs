//! Wave-level operations: `reduce` over the active lanes, `shuffle`, `ballot` and
//! `readfirstlane`, for every type the IR allows them on (a 64-bit value is two dwords).
//!
//! `shuffle %v, %lane` of a dword is `ds_bpermute_b32` with the address `lane * 4`, which gives
//! 0 for a source lane EXEC disables; a `v_cmp`/`v_cndmask` gives 0 for a lane index at or past
//! the wave size, as the reference interpreter does. On GFX11 wave64 `ds_bpermute_b32` reaches
//! only the lanes of its own half (the ISA's "lane modulo 32"; LLVM 19 leaves
//! `llvm.amdgcn.ds.bpermute` so), so the source lanes of the other half take ACO's way
//! (`p_bpermute_permlane`): in whole-wave mode (`s_or_saveexec_b64 -1`) `v_permlane64_b32`
//! swaps the halves of the data into a linear VGPR and a second `ds_bpermute_b32` reads the
//! swapped copy, then EXEC comes back and `v_cndmask_b32` picks, per lane, the result of the
//! half its source lane is in. Unlike ACO, the data is first masked with the saved EXEC
//! (`v_cndmask_b32` in whole-wave mode), since in whole-wave mode the second bpermute would
//! otherwise read inactive lanes, which the IR defines as 0. Everything written in whole-wave
//! mode is a linear VGPR, so no value living in inactive lanes is clobbered.
//!
//! `ballot %c` is the lane mask of `c` and EXEC (a uniform `c` selects EXEC or 0 with
//! `s_cselect`), zero-extended to the `i64` result on wave32. `readfirstlane %v` of a
//! divergent value is `v_readfirstlane_b32` per dword; of a uniform one, the value itself.
//!
//! A 32-bit integer reduction or float minimum/maximum of a divergent value is selected with
//! DPP in whole-wave mode ([`flush_reductions`], ACO's `emit_reduction`); consecutive ones are
//! deferred into one whole-wave section. The others (float sums, whose lane order is part of
//! their result, f16 and 64-bit values) are a straight-line scalar loop unrolled over the lanes: for
//! each lane `i`, `v_readlane_b32` reads its dwords, `s_bitcmp1` tests bit `i` of EXEC, and
//! `s_cselect_b32` keeps the dwords or the operation's identity, which the operation folds into
//! the accumulator. It needs no control flow and no whole-wave mode (inactive lanes are read,
//! never written), and it combines the lanes in lane order, which a float sum needs to give the
//! reference interpreter's bits. Integer steps are SALU: `i32` ones directly, `i64` add as
//! `s_add_u32`/`s_addc_u32`, the bitwise ones dword by dword, and the 64-bit minimum and
//! maximum as an unsigned compare through the borrow of `s_sub_u32`/`s_subb_u32` and two
//! `s_cselect_b32` (signed ones on values whose sign bit is flipped, which orders them as
//! unsigned). Float steps are VALU (`v_add`, `v_min`, `v_max` of f16, f32, f64) on an
//! accumulator that every lane holds; `fmin`/`fmax` first canonicalize the lanes (`v_max x, x`)
//! so a signalling NaN loses to a number as in the interpreter, and their identity is a quiet
//! NaN; a sum's identity is -0. The result, the same for every lane, is in SGPRs, as the
//! divergence analysis expects of a `reduce`. A uniform integer needs no loop: its `and`, `or`,
//! `min` and `max` over the active lanes are itself, its sum is itself times the number of
//! active lanes (`s_bcnt1` of EXEC), and its `xor` itself times that number's parity; a
//! uniform float's `fmin`/`fmax` is itself canonicalized (`v_max x, x`, then
//! `v_readfirstlane_b32`), and its sum goes through the loop.

use super::alu::scalar;
use super::{Ctx, Val};
use crate::error::IselError;
use crate::exec_mask;
use frontend_ir::{ReduceOp, Type, Value};
use isa::mir::{self, Def, Dpp, Operand};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// The dwords of one value.
type Parts = SmallVec<[Operand; 2]>;

/// How a reduction folds one lane into the accumulator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    /// A 32-bit SALU operation.
    Salu(Opcode),
    /// A 64-bit add through SCC.
    Add64,
    /// A 64-bit bitwise operation, dword by dword.
    Bits64(Opcode),
    /// A 64-bit unsigned minimum or maximum.
    MinMax64 {
        /// The maximum.
        max: bool,
    },
    /// A VALU float operation.
    Float(Opcode),
}

/// A reduction's step, its identity, whether the values are biased by the sign bit (a signed
/// 64-bit minimum or maximum done unsigned), and its dwords; `None` where the IR does not
/// allow the operation on the type.
fn plan(op: ReduceOp, ty: Type) -> Option<(Step, u64, bool, u8)> {
    use Opcode::*;
    let float = |add, min, max, nan: u64, neg_zero: u64| match op {
        ReduceOp::Fadd => Some((Step::Float(add), neg_zero, false)),
        ReduceOp::Fmin => Some((Step::Float(min), nan, false)),
        ReduceOp::Fmax => Some((Step::Float(max), nan, false)),
        _ => None,
    };
    let (step, identity, bias) = match ty {
        Type::I32 => {
            let (opcode, identity) = match op {
                ReduceOp::Add => (SAddU32, 0),
                ReduceOp::Smin => (SMinI32, i32::MAX as u32),
                ReduceOp::Smax => (SMaxI32, i32::MIN as u32),
                ReduceOp::Umin => (SMinU32, u32::MAX),
                ReduceOp::Umax => (SMaxU32, 0),
                ReduceOp::And => (SAndB32, u32::MAX),
                ReduceOp::Or => (SOrB32, 0),
                ReduceOp::Xor => (SXorB32, 0),
                ReduceOp::Fadd | ReduceOp::Fmin | ReduceOp::Fmax => return None,
            };
            (Step::Salu(opcode), u64::from(identity), false)
        }
        Type::I64 => match op {
            ReduceOp::Add => (Step::Add64, 0, false),
            ReduceOp::And => (Step::Bits64(SAndB32), u64::MAX, false),
            ReduceOp::Or => (Step::Bits64(SOrB32), 0, false),
            ReduceOp::Xor => (Step::Bits64(SXorB32), 0, false),
            // Biased, i64::MAX is u64::MAX and i64::MIN is 0.
            ReduceOp::Umin | ReduceOp::Smin => (Step::MinMax64 { max: false }, u64::MAX, op == ReduceOp::Smin),
            ReduceOp::Umax | ReduceOp::Smax => (Step::MinMax64 { max: true }, 0, op == ReduceOp::Smax),
            ReduceOp::Fadd | ReduceOp::Fmin | ReduceOp::Fmax => return None,
        },
        Type::F16 => float(VAddF16, VMinF16, VMaxF16, 0x7e00, 0x8000)?,
        Type::F32 => float(VAddF32, VMinF32, VMaxF32, 0x7fc0_0000, 0x8000_0000)?,
        Type::F64 => float(VAddF64, VMinF64, VMaxF64, 0x7ff8 << 48, 1 << 63)?,
        _ => return None,
    };
    Some((step, identity, bias, if ty.bits() == 64 { 2 } else { 1 }))
}

/// Selects `reduce.op arg`.
pub(super) fn reduce(ctx: &mut Ctx<'_>, op: ReduceOp, arg: Value, result: Value) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(arg);
    let Some((step, identity, bias, dwords)) = plan(op, ty) else {
        return Err(ctx.unsupported(format!("reduce.{} on {ty}", op.name())));
    };
    let val = ctx.val(arg)?;
    let divergent = ctx.div.is_divergent(arg);
    if !(divergent && dpp_combine(op, ty).is_some()) {
        // Another form reads its operand now, which may be a pending reduction's result.
        flush_reductions(ctx);
    }
    if !divergent && !matches!(step, Step::Float(_)) {
        let r = uniform_int(ctx, op, val, dwords)?;
        ctx.set(result, Val::Temp(r));
        return Ok(());
    }
    if !divergent && op != ReduceOp::Fadd {
        // The minimum or maximum of one value: the value, canonicalized (a quiet NaN for a
        // signalling one, as two NaNs give in the interpreter).
        let v = ctx.as_class(val, RegClass::vgpr(dwords))?;
        let c = prepare_lanes(ctx, step, v, false);
        let r = ctx.readfirstlane(c);
        ctx.set(result, Val::Temp(r));
        return Ok(());
    }
    let rc = if divergent { RegClass::vgpr(dwords) } else { RegClass::sgpr(dwords) };
    let mut v = ctx.as_class(val, rc)?;
    if divergent {
        v = prepare_lanes(ctx, step, v, bias);
        if let Some(combine) = dpp_combine(op, ty) {
            let r = ctx.temp(RegClass::sgpr(dwords));
            ctx.reductions.push(PendingReduction { combine, identity, bias, v, result: r });
            ctx.set(result, Val::Temp(r));
            // A result that lanes keep per lane is copied where it is defined: now.
            if ctx.div.is_divergent(result) {
                flush_reductions(ctx);
            }
            return Ok(());
        }
    }
    let parts: Parts = if dwords == 1 { [Operand::temp(v)].into_iter().collect() } else { dwords_of(ctx, v) };
    let ids: Parts = (0..dwords).map(|i| Operand::constant((identity >> (32 * i)) as u32)).collect();
    let bitcmp = if ctx.wave == 64 { Opcode::SBitcmp1B64 } else { Opcode::SBitcmp1B32 };
    let mut acc: Option<Parts> = None;
    for lane in 0..ctx.wave {
        let x: Parts = if divergent {
            parts
                .iter()
                .map(|&p| {
                    let s = ctx.temp(RegClass::S1);
                    ctx.emit(mir::Inst::new(Opcode::VReadlaneB32, &[Def::temp(s)], &[p, Operand::constant(lane)]));
                    Operand::temp(s)
                })
                .collect()
        } else {
            parts.clone()
        };
        let active = ctx.temp(RegClass::S1);
        let exec = ctx.exec();
        ctx.salu(bitcmp, &[Def::fixed(active, PhysReg::SCC)], &[exec, Operand::constant(lane)]);
        let mut kept: Parts = x.iter().zip(&ids).map(|(&x, &id)| cselect(ctx, active, x, id)).collect();
        if matches!(step, Step::Float(_)) && kept.len() == 2 {
            kept = [Operand::temp(ctx.create_vector(RegClass::S2, &kept))].into_iter().collect();
        }
        acc = Some(match acc {
            None => kept,
            Some(a) => fold(ctx, step, &a, &kept),
        });
    }
    let Some(mut acc) = acc else { unreachable!("a wave has lanes") };
    if bias {
        acc[1] = sign_flip_scalar(ctx, acc[1]);
    }
    let mut r = match acc.as_slice() {
        [one] => one.temp_of().expect("a folded value is a temporary"),
        many => ctx.create_vector(RegClass::sgpr(dwords), many),
    };
    if r.rc.ty == RegType::Vgpr {
        r = ctx.readfirstlane(r);
    }
    ctx.set(result, Val::Temp(r));
    Ok(())
}

/// How a DPP reduction combines a lane's value with its partner's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Combine {
    /// One dword: the VALU operation, fused with the DPP move.
    Dword(Opcode),
    /// Two dwords, each reduced on its own with the operation (64-bit and, or, xor).
    Dwords(Opcode),
    /// A 64-bit sum: `v_add_co_u32`, then `v_add_co_ci_u32` with its carry.
    Add64,
    /// A 64-bit unsigned minimum or maximum (a signed one biased by the sign bit): the 64-bit
    /// compare that holds where the partner's value wins, and a `v_cndmask_b32` per dword.
    Select64(Opcode),
    /// A 64-bit float minimum or maximum on the pair.
    Float64(Opcode),
}

/// How a reduction is done with DPP: an operation exact in any order (not a float sum, whose
/// lane order is part of its result).
fn dpp_combine(op: ReduceOp, ty: Type) -> Option<Combine> {
    use Opcode::*;
    Some(match (ty, op) {
        (Type::I32, ReduceOp::Add) => Combine::Dword(VAddNcU32),
        (Type::I32, ReduceOp::Smin) => Combine::Dword(VMinI32),
        (Type::I32, ReduceOp::Smax) => Combine::Dword(VMaxI32),
        (Type::I32, ReduceOp::Umin) => Combine::Dword(VMinU32),
        (Type::I32, ReduceOp::Umax) => Combine::Dword(VMaxU32),
        (Type::I32, ReduceOp::And) => Combine::Dword(VAndB32),
        (Type::I32, ReduceOp::Or) => Combine::Dword(VOrB32),
        (Type::I32, ReduceOp::Xor) => Combine::Dword(VXorB32),
        (Type::F32, ReduceOp::Fmin) => Combine::Dword(VMinF32),
        (Type::F32, ReduceOp::Fmax) => Combine::Dword(VMaxF32),
        (Type::I64, ReduceOp::Add) => Combine::Add64,
        (Type::I64, ReduceOp::And) => Combine::Dwords(VAndB32),
        (Type::I64, ReduceOp::Or) => Combine::Dwords(VOrB32),
        (Type::I64, ReduceOp::Xor) => Combine::Dwords(VXorB32),
        (Type::I64, ReduceOp::Umin | ReduceOp::Smin) => Combine::Select64(VCmpLtU64),
        (Type::I64, ReduceOp::Umax | ReduceOp::Smax) => Combine::Select64(VCmpGtU64),
        (Type::F64, ReduceOp::Fmin) => Combine::Float64(VMinF64),
        (Type::F64, ReduceOp::Fmax) => Combine::Float64(VMaxF64),
        _ => return None,
    })
}

/// A DPP reduction selected but not emitted yet: `result` will be the reduction of `v` (one
/// or two dwords) over the active lanes, combined as `combine` says, whose identity is
/// `identity`; with `bias`, the values' sign bits are flipped (a signed 64-bit minimum or
/// maximum done unsigned), and the result's is flipped back.
#[derive(Copy, Clone, Debug)]
pub(super) struct PendingReduction {
    combine: Combine,
    identity: u64,
    bias: bool,
    v: Temp,
    result: Temp,
}

/// The accumulator of one reduction: its dwords, linear VGPRs.
type Acc = SmallVec<[Temp; 2]>;

/// Combines `other` (the partner lanes' values) into `acc` for a 64-bit reduction.
fn combine_wide(ctx: &mut Ctx<'_>, combine: Combine, other: &[Temp], acc: &[Temp]) -> Acc {
    let lin = RegClass::linear_vgpr(1);
    let (o, a) = (|i: usize| Operand::temp(other[i]), |i: usize| Operand::temp(acc[i]));
    match combine {
        Combine::Add64 => {
            let (lo, hi) = (ctx.temp(lin), ctx.temp(lin));
            let (carry, out) = (ctx.temp(ctx.lm()), ctx.temp(ctx.lm()));
            ctx.valu(Opcode::VAddCoU32, &[Def::temp(lo), Def::temp(carry)], &[o(0), a(0)]);
            ctx.valu(Opcode::VAddCoCiU32, &[Def::temp(hi), Def::temp(out)], &[o(1), a(1), Operand::temp(carry)]);
            [lo, hi].into_iter().collect()
        }
        Combine::Select64(compare) => {
            let pair = RegClass::linear_vgpr(2);
            let (ov, av) = (ctx.create_vector(pair, &[o(0), o(1)]), ctx.create_vector(pair, &[a(0), a(1)]));
            let wins = ctx.temp(ctx.lm());
            ctx.valu(compare, &[Def::temp(wins)], &[Operand::temp(ov), Operand::temp(av)]);
            // The selects read the pairs' dwords split anew, not the parts they were built from
            // (no copies: see `Ctx::split_anew`).
            let (os, as_) = (ctx.split_anew(ov), ctx.split_anew(av));
            (0..2).map(|i| cndmask(ctx, lin, Operand::temp(as_[i]), Operand::temp(os[i]), wins)).collect()
        }
        Combine::Float64(op) => {
            let pair = RegClass::linear_vgpr(2);
            let (ov, av) = (ctx.create_vector(pair, &[o(0), o(1)]), ctx.create_vector(pair, &[a(0), a(1)]));
            let r = ctx.temp(pair);
            ctx.valu(op, &[Def::temp(r)], &[Operand::temp(ov), Operand::temp(av)]);
            ctx.split(r).into_iter().collect()
        }
        Combine::Dword(_) | Combine::Dwords(_) => unreachable!("dword reductions combine one dword at a time"),
    }
}

/// Emits the pending reductions, as ACO's `emit_reduction` does, in one whole-wave section
/// with their steps interleaved (each step then reads a value written some instructions
/// before, which GFX9's DPP hazard and every generation's latency want). In whole-wave mode,
/// the inactive lanes take the operation's identity (`v_cndmask_b32` with the saved EXEC);
/// each lane combines with a partner by DPP (`quad_perm` swaps of neighbours and of pairs,
/// `row_half_mirror`, `row_mirror`), after which every lane holds its row's result. On GFX10+,
/// `v_permlanex16_b32` brings the other row of each 32 lanes and, in wave64,
/// `v_permlane64_b32` the other half, so every lane holds the result and `v_readlane_b32`
/// takes lane 0. GFX9 has no cross-row permute but DPP's row broadcasts: `row_bcast:15` into
/// rows 1 and 3 and `row_bcast:31` into rows 2 and 3 leave the result in the last lane (the
/// rows they do not write hold what nothing reads). A 64-bit reduction moves both dwords by DPP
/// (`v_mov_b32` with the control) and combines the pairs ([`Combine`]): bitwise operations
/// dword by dword, a sum with carry, a minimum or maximum by a 64-bit compare and two selects,
/// a float one by `v_min_f64`/`v_max_f64`. Everything written in whole-wave mode is a
/// linear VGPR; GFX9's DPP wait states are the hazard pass's.
pub(super) fn flush_reductions(ctx: &mut Ctx<'_>) {
    if ctx.reductions.is_empty() {
        return;
    }
    let pending = std::mem::take(&mut ctx.reductions);
    let lin = RegClass::linear_vgpr(1);
    let gfx9 = ctx.family.is_gfx9();
    // The dwords of each value, split before the whole-wave section.
    let values: Vec<Acc> = pending
        .iter()
        .map(|p| if p.v.rc.size == 1 { [p.v].into_iter().collect() } else { ctx.split(p.v).into_iter().collect() })
        .collect();
    let saved = exec_mask::whole_wave(ctx);
    let mut accs: Vec<Acc> = pending
        .iter()
        .zip(&values)
        .map(|(p, dwords)| {
            dwords
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    let identity = (p.identity >> (32 * i)) as u32;
                    let mut id = Operand::constant(identity);
                    if gfx9 && !crate::hw::is_inline(Opcode::VCndmaskB32, ctx.family, 0, identity.into()) {
                        // GFX9's VOP3 takes no literal: the identity in a VGPR, written in
                        // whole-wave mode.
                        let t = ctx.temp(lin);
                        ctx.valu(Opcode::VMovB32, &[Def::temp(t)], &[id]);
                        id = Operand::temp(t);
                    }
                    cndmask(ctx, lin, id, Operand::temp(d), saved)
                })
                .collect()
        })
        .collect();
    let step = |ctx: &mut Ctx<'_>, accs: &mut Vec<Acc>, ctrl: u16, row_mask: u8| {
        let dpp = Some(Dpp::Dpp16 { ctrl, row_mask, bank_mask: 0xf, bound_ctrl: false, fi: false });
        for (acc, p) in accs.iter_mut().zip(&pending) {
            match p.combine {
                Combine::Dword(opcode) | Combine::Dwords(opcode) => {
                    for a in acc.iter_mut() {
                        let r = ctx.temp(lin);
                        let mut inst = mir::Inst::new(opcode, &[Def::temp(r)], &[Operand::temp(*a), Operand::temp(*a)]);
                        inst.fields.dpp = dpp;
                        ctx.emit(inst);
                        *a = r;
                    }
                }
                wide => {
                    let moved: Acc = acc
                        .iter()
                        .map(|&a| {
                            let r = ctx.temp(lin);
                            let mut inst = mir::Inst::new(Opcode::VMovB32, &[Def::temp(r)], &[Operand::temp(a)]);
                            inst.fields.dpp = dpp;
                            ctx.emit(inst);
                            r
                        })
                        .collect();
                    *acc = combine_wide(ctx, wide, &moved, acc);
                }
            }
        }
    };
    // quad_perm [1,0,3,2] and [2,3,0,1], row_half_mirror, row_mirror.
    for ctrl in [0xb1, 0x4e, 0x141, 0x140] {
        step(ctx, &mut accs, ctrl, 0xf);
    }
    let zero = Operand::constant(0);
    let last_lane = if gfx9 {
        // row_bcast:15 and row_bcast:31.
        step(ctx, &mut accs, 0x142, 0xa);
        step(ctx, &mut accs, 0x143, 0xc);
        ctx.wave - 1
    } else {
        let cross = |ctx: &mut Ctx<'_>, accs: &mut Vec<Acc>, opcode: Opcode| {
            let others: Vec<Acc> = accs
                .iter()
                .map(|acc| {
                    acc.iter()
                        .map(|&a| {
                            let other = ctx.temp(lin);
                            let ops: &[Operand] = if opcode == Opcode::VPermlanex16B32 {
                                &[Operand::temp(a), zero, zero]
                            } else {
                                &[Operand::temp(a)]
                            };
                            ctx.emit(mir::Inst::new(opcode, &[Def::temp(other)], ops));
                            other
                        })
                        .collect()
                })
                .collect();
            for ((acc, other), p) in accs.iter_mut().zip(others).zip(&pending) {
                match p.combine {
                    Combine::Dword(op) | Combine::Dwords(op) => {
                        for (a, o) in acc.iter_mut().zip(other) {
                            let r = ctx.temp(lin);
                            ctx.emit(mir::Inst::new(op, &[Def::temp(r)], &[Operand::temp(o), Operand::temp(*a)]));
                            *a = r;
                        }
                    }
                    wide => *acc = combine_wide(ctx, wide, &other, acc),
                }
            }
        };
        cross(ctx, &mut accs, Opcode::VPermlanex16B32);
        if ctx.wave == 64 {
            cross(ctx, &mut accs, Opcode::VPermlane64B32);
        }
        0
    };
    exec_mask::set_exec(ctx, saved);
    for (acc, p) in accs.iter().zip(&pending) {
        let read = |ctx: &mut Ctx<'_>, a: Temp, into: Temp| {
            ctx.emit(mir::Inst::new(
                Opcode::VReadlaneB32,
                &[Def::temp(into)],
                &[Operand::temp(a), Operand::constant(last_lane)],
            ));
        };
        if acc.len() == 1 {
            read(ctx, acc[0], p.result);
            continue;
        }
        let mut parts: Parts = SmallVec::new();
        for &a in acc {
            let s = ctx.temp(RegClass::S1);
            read(ctx, a, s);
            parts.push(Operand::temp(s));
        }
        if p.bias {
            parts[1] = sign_flip_scalar(ctx, parts[1]);
        }
        ctx.emit(mir::Inst::new(Opcode::PCreateVector, &[Def::temp(p.result)], &parts));
    }
}

/// The lanes of a divergent reduction as the loop reads them: canonicalized for a float
/// minimum or maximum, with the sign bit flipped for a signed 64-bit one.
fn prepare_lanes(ctx: &mut Ctx<'_>, step: Step, v: Temp, bias: bool) -> Temp {
    if let Some(max) = match step {
        Step::Float(op) => canonicalizer(op),
        _ => None,
    } {
        let c = ctx.temp(v.rc);
        ctx.valu(max, &[Def::temp(c)], &[Operand::temp(v), Operand::temp(v)]);
        return c;
    }
    if !bias {
        return v;
    }
    let [lo, hi] = [0, 1].map(|i| Operand::temp(ctx.split(v)[i]));
    let flipped = ctx.temp(RegClass::V1);
    ctx.valu(Opcode::VXorB32, &[Def::temp(flipped)], &[Operand::constant(0x8000_0000), hi]);
    ctx.create_vector(RegClass::V2, &[lo, Operand::temp(flipped)])
}

/// The `v_max` that canonicalizes the operands of a float minimum or maximum `op`.
fn canonicalizer(op: Opcode) -> Option<Opcode> {
    use Opcode::*;
    match op {
        VMinF16 | VMaxF16 => Some(VMaxF16),
        VMinF32 | VMaxF32 => Some(VMaxF32),
        VMinF64 | VMaxF64 => Some(VMaxF64),
        _ => None,
    }
}

/// The dwords of a tuple as operands.
fn dwords_of(ctx: &mut Ctx<'_>, t: Temp) -> Parts {
    ctx.split(t).iter().map(|&p| Operand::temp(p)).collect()
}

/// `s_cselect_b32`: `x` where `scc` holds, else `y`.
fn cselect(ctx: &mut Ctx<'_>, scc: Temp, x: Operand, y: Operand) -> Operand {
    let r = ctx.temp(RegClass::S1);
    ctx.salu(Opcode::SCselectB32, &[Def::temp(r)], &[x, y, Operand::fixed(scc, PhysReg::SCC)]);
    Operand::temp(r)
}

/// `x` with its sign bit flipped, in an SGPR.
fn sign_flip_scalar(ctx: &mut Ctx<'_>, x: Operand) -> Operand {
    Operand::temp(scalar(ctx, Opcode::SXorB32, &[x, Operand::constant(0x8000_0000)], true))
}

/// Folds the kept dwords of one lane into the accumulator `a`.
fn fold(ctx: &mut Ctx<'_>, step: Step, a: &[Operand], k: &[Operand]) -> Parts {
    match step {
        Step::Salu(opcode) => [Operand::temp(scalar(ctx, opcode, &[a[0], k[0]], true))].into_iter().collect(),
        Step::Bits64(opcode) => (0..2).map(|i| Operand::temp(scalar(ctx, opcode, &[a[i], k[i]], true))).collect(),
        Step::Add64 => {
            let (lo, hi, carry) = (ctx.temp(RegClass::S1), ctx.temp(RegClass::S1), ctx.temp(RegClass::S1));
            ctx.salu(Opcode::SAddU32, &[Def::temp(lo), Def::fixed(carry, PhysReg::SCC)], &[a[0], k[0]]);
            ctx.salu(
                Opcode::SAddcU32,
                &[Def::temp(hi), Ctx::scc_clobber()],
                &[a[1], k[1], Operand::fixed(carry, PhysReg::SCC)],
            );
            [Operand::temp(lo), Operand::temp(hi)].into_iter().collect()
        }
        Step::MinMax64 { max } => {
            // The borrow of a - k is a < k (unsigned).
            let (lo, hi, borrow, less) =
                (ctx.temp(RegClass::S1), ctx.temp(RegClass::S1), ctx.temp(RegClass::S1), ctx.temp(RegClass::S1));
            ctx.salu(Opcode::SSubU32, &[Def::temp(lo), Def::fixed(borrow, PhysReg::SCC)], &[a[0], k[0]]);
            ctx.salu(
                Opcode::SSubbU32,
                &[Def::temp(hi), Def::fixed(less, PhysReg::SCC)],
                &[a[1], k[1], Operand::fixed(borrow, PhysReg::SCC)],
            );
            let (x, y) = if max { (k, a) } else { (a, k) };
            (0..2).map(|i| cselect(ctx, less, x[i], y[i])).collect()
        }
        Step::Float(opcode) => {
            // The value whole: a float step reads and writes tuples.
            let r = ctx.temp(RegClass::vgpr(k[0].rc().map_or(1, |rc| rc.size)));
            ctx.valu(opcode, &[Def::temp(r)], &[k[0], a[0]]);
            [Operand::temp(r)].into_iter().collect()
        }
    }
}

/// The reduction of a uniform integer: itself, or for a sum (an `xor`) itself times the number
/// of active lanes (its parity).
fn uniform_int(ctx: &mut Ctx<'_>, op: ReduceOp, val: Val, dwords: u8) -> Result<Temp, IselError> {
    let v = ctx.as_class(val, RegClass::sgpr(dwords))?;
    if !matches!(op, ReduceOp::Add | ReduceOp::Xor) {
        return Ok(v);
    }
    let bcnt = if ctx.wave == 64 { Opcode::SBcnt1I32B64 } else { Opcode::SBcnt1I32B32 };
    let exec = ctx.exec();
    let count = Operand::temp(scalar(ctx, bcnt, &[exec], true));
    let factor = if op == ReduceOp::Xor {
        Operand::temp(scalar(ctx, Opcode::SAndB32, &[count, Operand::constant(1)], true))
    } else {
        count
    };
    let mul = |ctx: &mut Ctx<'_>, opcode, x| {
        let r = ctx.temp(RegClass::S1);
        ctx.salu(opcode, &[Def::temp(r)], &[x, factor]);
        Operand::temp(r)
    };
    if dwords == 1 {
        return Ok(mul(ctx, Opcode::SMulI32, Operand::temp(v)).temp_of().expect("a product is a temporary"));
    }
    let [lo, hi] = [0, 1].map(|i| Operand::temp(ctx.split(v)[i]));
    let low = mul(ctx, Opcode::SMulI32, lo);
    let carry = mul(ctx, Opcode::SMulHiU32, lo);
    let cross = mul(ctx, Opcode::SMulI32, hi);
    let high = Operand::temp(scalar(ctx, Opcode::SAddU32, &[carry, cross], true));
    Ok(ctx.create_vector(RegClass::S2, &[low, high]))
}

/// The dwords a value of `ty` takes in registers (1 or 2).
fn dwords_for(ctx: &Ctx<'_>, ty: Type, what: &str) -> Result<u8, IselError> {
    match ty.bits() {
        2..=32 => Ok(1),
        64 => Ok(2),
        _ => Err(ctx.unsupported(format!("{what} of {ty}"))),
    }
}

/// Selects `ballot %arg`: an SGPR pair with bit i set for each active lane i where `arg` holds.
pub(super) fn ballot(ctx: &mut Ctx<'_>, arg: Value, result: Value) -> Result<(), IselError> {
    let wide = ctx.wave == 64;
    let exec = ctx.exec();
    let mask = ctx.temp(ctx.lm());
    if ctx.div.is_divergent(arg) {
        let m = ctx.lane_mask_of(arg)?;
        let and = if wide { Opcode::SAndB64 } else { Opcode::SAndB32 };
        ctx.salu(and, &[Def::temp(mask), Ctx::scc_clobber()], &[exec, Operand::temp(m)]);
    } else {
        let scc = ctx.scc_of(arg)?;
        let cselect = if wide { Opcode::SCselectB64 } else { Opcode::SCselectB32 };
        ctx.salu(cselect, &[Def::temp(mask)], &[exec, Operand::constant(0), Operand::fixed(scc, PhysReg::SCC)]);
    }
    let r = if wide { mask } else { ctx.create_vector(RegClass::S2, &[Operand::temp(mask), Operand::constant(0)]) };
    ctx.set(result, Val::Temp(r));
    Ok(())
}

/// Selects `shuffle %v, %lane`.
pub(super) fn shuffle(ctx: &mut Ctx<'_>, v: Value, lane: Value, result: Value) -> Result<(), IselError> {
    let dwords = dwords_for(ctx, ctx.func.dfg.value_type(v), "shuffle")?;
    let data = ctx.val(v)?;
    let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
    let parts: SmallVec<[Temp; 4]> = if dwords == 1 { [data].into_iter().collect() } else { ctx.split(data) };
    let l = ctx.operand(lane)?;
    let addr = ctx.temp(RegClass::V1);
    ctx.valu(Opcode::VLshlrevB32, &[Def::temp(addr)], &[Operand::constant(2), l]);
    let mut moved: SmallVec<[Temp; 2]> =
        parts.iter().map(|&p| bpermute(ctx, RegClass::V1, addr, Operand::temp(p))).collect();
    if ctx.wave == 64 && ctx.family == Family::Gfx11 {
        moved = cross_half(ctx, l, addr, &parts, &moved);
    }
    let in_range = ctx.temp(ctx.lm());
    ctx.valu(Opcode::VCmpGtU32, &[Def::temp(in_range)], &[Operand::constant(ctx.wave), l]);
    let results: SmallVec<[Operand; 2]> = moved
        .iter()
        .map(|&m| Operand::temp(cndmask(ctx, RegClass::V1, Operand::constant(0), Operand::temp(m), in_range)))
        .collect();
    let r = match results.as_slice() {
        [one] => one.temp_of().expect("a selected dword"),
        two => ctx.create_vector(RegClass::V2, two),
    };
    ctx.set(result, Val::Temp(r));
    Ok(())
}

/// `ds_bpermute_b32` of `data` from the lanes `addr / 4` names, into a temporary of class `rc`.
fn bpermute(ctx: &mut Ctx<'_>, rc: RegClass, addr: Temp, data: Operand) -> Temp {
    let r = ctx.temp(rc);
    ctx.emit(mir::Inst::new(Opcode::DsBpermuteB32, &[Def::temp(r)], &[Operand::temp(addr), data]));
    r
}

/// `v_cndmask_b32`: `t` in the lanes of `mask`, `f` in the others, into class `rc`.
fn cndmask(ctx: &mut Ctx<'_>, rc: RegClass, f: Operand, t: Operand, mask: Temp) -> Temp {
    let r = ctx.temp(rc);
    ctx.valu(Opcode::VCndmaskB32, &[Def::temp(r)], &[f, t, Operand::temp(mask)]);
    r
}

/// GFX11 wave64: the dwords `parts` shuffled by lane index `l` across the halves, given `own`,
/// their bpermutes within each half (see the module's paragraph).
fn cross_half(ctx: &mut Ctx<'_>, l: Operand, addr: Temp, parts: &[Temp], own: &[Temp]) -> SmallVec<[Temp; 2]> {
    // The lanes whose source is in the other half: bit 5 of the index differs from the lane's.
    let bit5 = ctx.temp(RegClass::V1);
    ctx.valu(Opcode::VAndB32, &[Def::temp(bit5)], &[Operand::constant(32), l]);
    let high_source = ctx.temp(RegClass::S2);
    ctx.valu(Opcode::VCmpNeU32, &[Def::temp(high_source)], &[Operand::constant(0), Operand::temp(bit5)]);
    let [lo, hi] = [0, 1].map(|i| Operand::temp(ctx.split(high_source)[i]));
    let low_source = Operand::temp(scalar(ctx, Opcode::SNotB32, &[hi], true));
    let other_half = ctx.create_vector(RegClass::S2, &[lo, low_source]);
    // Whole-wave mode: everything written is a linear VGPR.
    let saved = exec_mask::whole_wave(ctx);
    let lin = RegClass::linear_vgpr(1);
    let far: SmallVec<[Temp; 2]> = parts
        .iter()
        .map(|&p| {
            let masked = cndmask(ctx, lin, Operand::constant(0), Operand::temp(p), saved);
            let swapped = ctx.temp(lin);
            ctx.emit(mir::Inst::new(Opcode::VPermlane64B32, &[Def::temp(swapped)], &[Operand::temp(masked)]));
            bpermute(ctx, lin, addr, Operand::temp(swapped))
        })
        .collect();
    exec_mask::set_exec(ctx, saved);
    own.iter()
        .zip(&far)
        .map(|(&o, &f)| cndmask(ctx, RegClass::V1, Operand::temp(o), Operand::temp(f), other_half))
        .collect()
}

/// Selects `readfirstlane %arg`.
pub(super) fn readfirstlane(ctx: &mut Ctx<'_>, arg: Value, result: Value) -> Result<(), IselError> {
    let dwords = dwords_for(ctx, ctx.func.dfg.value_type(arg), "readfirstlane")?;
    let val = ctx.val(arg)?;
    if !ctx.div.is_divergent(arg) {
        ctx.set(result, val);
        return Ok(());
    }
    let v = ctx.as_class(val, RegClass::vgpr(dwords))?;
    let s = ctx.readfirstlane(v);
    ctx.set(result, Val::Temp(s));
    Ok(())
}
