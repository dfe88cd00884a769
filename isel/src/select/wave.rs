//! Wave-level operations: `reduce` over the active lanes, `shuffle`, `ballot` and
//! `readfirstlane`.
//!
//! `shuffle %v, %lane` of a 32-bit value is `ds_bpermute_b32` with the address `lane * 4`,
//! which gives 0 for a source lane EXEC disables; a `v_cmp`/`v_cndmask` gives 0 for a lane
//! index at or past the wave size, as the reference interpreter does. On GFX11 wave64
//! `ds_bpermute_b32` reaches only the lanes of its own half, and the cross-half form (ACO's
//! `v_permlane64` and whole-wave mode) is not selected yet.
//!
//! `ballot %c` is the lane mask of `c` and EXEC (a uniform `c` selects EXEC or 0 with
//! `s_cselect`), zero-extended to the `i64` result on wave32. `readfirstlane %v` of a
//! divergent 32-bit value is `v_readfirstlane_b32`; of a uniform one, the value itself.
//!
//! A reduction is selected as a straight-line scalar loop unrolled over the lanes: for each
//! lane `i`, `v_readlane_b32` reads its value, `s_bitcmp1` tests bit `i` of EXEC, and
//! `s_cselect_b32` keeps the value or the operation's identity, which the SALU operation adds
//! into the accumulator. It needs no control flow and no whole-wave mode (inactive lanes are
//! read, never written), at the cost of four scalar instructions per lane; DPP row operations
//! (ACO's `emit_reduction`) are the faster form to come. The result, the same for every lane,
//! is in an SGPR, as the divergence analysis expects of a `reduce`. A uniform value needs no
//! loop: its `and`, `or`, `min` and `max` over the active lanes are itself, its sum is itself
//! times the number of active lanes (`s_bcnt1` of EXEC), and its `xor` itself times that
//! number's parity.

use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{ReduceOp, Type, Value};
use isa::mir::{self, Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, Temp};

/// The SALU operation and identity of an integer reduction; `None` for the float ones, not
/// selected yet.
fn salu_of(op: ReduceOp) -> Option<(Opcode, u32)> {
    Some(match op {
        ReduceOp::Add => (Opcode::SAddU32, 0),
        ReduceOp::Smin => (Opcode::SMinI32, i32::MAX as u32),
        ReduceOp::Smax => (Opcode::SMaxI32, i32::MIN as u32),
        ReduceOp::Umin => (Opcode::SMinU32, u32::MAX),
        ReduceOp::Umax => (Opcode::SMaxU32, 0),
        ReduceOp::And => (Opcode::SAndB32, u32::MAX),
        ReduceOp::Or => (Opcode::SOrB32, 0),
        ReduceOp::Xor => (Opcode::SXorB32, 0),
        ReduceOp::Fadd | ReduceOp::Fmin | ReduceOp::Fmax => return None,
    })
}

/// Selects `reduce.op arg`.
pub(super) fn reduce(ctx: &mut Ctx<'_>, op: ReduceOp, arg: Value, result: Value) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(arg);
    let Some((opcode, identity)) = salu_of(op).filter(|_| ty == Type::I32) else {
        return Err(ctx.unsupported(format!("reduce.{} on {ty} (only integer reductions on i32 so far)", op.name())));
    };
    let val = ctx.val(arg)?;
    if !ctx.div.is_divergent(arg) {
        let v = ctx.as_class(val, RegClass::S1)?;
        let r = match op {
            ReduceOp::Add | ReduceOp::Xor => uniform_times_active(ctx, v, op == ReduceOp::Xor),
            _ => v,
        };
        ctx.set(result, Val::Temp(r));
        return Ok(());
    }
    let v = ctx.as_class(val, RegClass::V1)?;
    let bitcmp = if ctx.wave == 64 { Opcode::SBitcmp1B64 } else { Opcode::SBitcmp1B32 };
    let mut acc = Operand::constant(identity);
    for lane in 0..ctx.wave {
        let x = ctx.temp(RegClass::S1);
        ctx.emit(mir::Inst::new(Opcode::VReadlaneB32, &[Def::temp(x)], &[Operand::temp(v), Operand::constant(lane)]));
        let scc = ctx.temp(RegClass::S1);
        let exec = ctx.exec();
        ctx.salu(bitcmp, &[Def::fixed(scc, PhysReg::SCC)], &[exec, Operand::constant(lane)]);
        let kept = ctx.temp(RegClass::S1);
        ctx.salu(
            Opcode::SCselectB32,
            &[Def::temp(kept)],
            &[Operand::temp(x), Operand::constant(identity), Operand::fixed(scc, PhysReg::SCC)],
        );
        let next = ctx.temp(RegClass::S1);
        ctx.salu(opcode, &[Def::temp(next), Ctx::scc_clobber()], &[acc, Operand::temp(kept)]);
        acc = Operand::temp(next);
    }
    let Some(t) = acc.temp_of() else { unreachable!("a wave has lanes") };
    ctx.set(result, Val::Temp(t));
    Ok(())
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

/// Selects `shuffle %v, %lane` of a 32-bit value.
pub(super) fn shuffle(ctx: &mut Ctx<'_>, v: Value, lane: Value, result: Value) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(v);
    if ty.bits() != 32 {
        return Err(ctx.unsupported(format!("shuffle of {ty} (only 32-bit values so far)")));
    }
    if ctx.wave == 64 && ctx.family == isa::opcode::Family::Gfx11 {
        return Err(ctx.unsupported("shuffle on GFX11 wave64 (ds_bpermute_b32 stays within each half)"));
    }
    let data = ctx.val(v)?;
    let data = ctx.as_class(data, RegClass::V1)?;
    let l = ctx.operand(lane)?;
    let addr = ctx.temp(RegClass::V1);
    ctx.valu(Opcode::VLshlrevB32, &[Def::temp(addr)], &[Operand::constant(2), l]);
    let moved = ctx.temp(RegClass::V1);
    ctx.emit(mir::Inst::new(Opcode::DsBpermuteB32, &[Def::temp(moved)], &[Operand::temp(addr), Operand::temp(data)]));
    let in_range = ctx.temp(ctx.lm());
    ctx.valu(Opcode::VCmpGtU32, &[Def::temp(in_range)], &[Operand::constant(ctx.wave), l]);
    let r = ctx.temp(RegClass::V1);
    ctx.valu(
        Opcode::VCndmaskB32,
        &[Def::temp(r)],
        &[Operand::constant(0), Operand::temp(moved), Operand::temp(in_range)],
    );
    ctx.set(result, Val::Temp(r));
    Ok(())
}

/// Selects `readfirstlane %arg` of a 32-bit value.
pub(super) fn readfirstlane(ctx: &mut Ctx<'_>, arg: Value, result: Value) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(arg);
    if ty.bits() != 32 {
        return Err(ctx.unsupported(format!("readfirstlane of {ty} (only 32-bit values so far)")));
    }
    let val = ctx.val(arg)?;
    if !ctx.div.is_divergent(arg) {
        ctx.set(result, val);
        return Ok(());
    }
    let v = ctx.as_class(val, RegClass::V1)?;
    let s = ctx.readfirstlane(v);
    ctx.set(result, Val::Temp(s));
    Ok(())
}

/// `v` times the number of active lanes, or times its parity when `parity`.
fn uniform_times_active(ctx: &mut Ctx<'_>, v: Temp, parity: bool) -> Temp {
    let bcnt = if ctx.wave == 64 { Opcode::SBcnt1I32B64 } else { Opcode::SBcnt1I32B32 };
    let count = ctx.temp(RegClass::S1);
    let exec = ctx.exec();
    ctx.salu(bcnt, &[Def::temp(count), Ctx::scc_clobber()], &[exec]);
    let factor = if parity {
        let odd = ctx.temp(RegClass::S1);
        ctx.salu(Opcode::SAndB32, &[Def::temp(odd), Ctx::scc_clobber()], &[Operand::temp(count), Operand::constant(1)]);
        odd
    } else {
        count
    };
    let r = ctx.temp(RegClass::S1);
    ctx.salu(Opcode::SMulI32, &[Def::temp(r)], &[Operand::temp(v), Operand::temp(factor)]);
    r
}
