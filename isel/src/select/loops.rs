//! Loops: the header with its phis, the iteration as a region whose paths all end in a
//! continue or a break (a return is never inside a loop: its block reaches no back edge, so it
//! is an exit target), the latch where the paths from divergent code meet, and the exit, where
//! EXEC is restored and control goes on at the exit target (or chooses among several).
//!
//! ```text
//!  P:   entry = s_mov exec                   the lanes to restore at the exit
//!       p_branch → H
//!  H:   phis (parameters, masks)             loop header
//!  H..  the iteration: a continue from uniform code branches to H, a break to X; from
//!       divergent code they leave the masks (exec_mask::leave) and branch to the innermost
//!       restore point, in the end LT
//!  LT:  exec = active                        the latch: the lanes still iterating
//!       p_cbranch_execz → BRK
//!  CB:  p_branch → H
//!  BRK: p_branch → X
//!  X:   phis, exec = entry                   the exit, then the exit target's code
//! ```
//!
//! The header's phis: `p_phi` over the logical predecessors (the entry and every continue)
//! for VGPR parameters, `p_linear_phi` over the linear ones (the entry, the continues that
//! branch straight to H, and CB) for SGPR parameters and the masks; a lane-mask parameter is
//! accumulated per lane at each continue. The exit's phis: `p_phi` over the breaks for the VGPR
//! parameters of the exit targets, accumulators for their lane-mask parameters and for the lane
//! masks defined in the loop and read after it (each lane keeps the value of the iteration it
//! left in). A loop with several exit targets keeps a mask of the lanes that left for each and
//! chooses after the exit, as a switch would; a value defined in the loop and read by the
//! code of one target gets a phi at the exit too, since the exit merges the ways to all of them (a break out of two loops is a break to the inner
//! loop's exit, then one to the outer loop's). Only the loop's own masks change in it; they get
//! header phis before the body is selected, and the trivial ones are removed after selection.

use super::control::{
    after_branch, arrive, carried_mask, chain, land, link, mask_temp, operands, param_kind, param_kinds, phi, pop_at,
    region, set_target, undef, Args, Cond, Edge, Ops, Param, Step,
};
use super::{Ctx, Val};
use crate::error::IselError;
use crate::exec_mask::{self, Flow, Kind, Leave};
use foldhash::fast::FixedState;
use frontend_ir::loops::Loop;
use frontend_ir::{Block, Value};
use isa::mir::{self, Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{RegClass, RegType, Temp};
use smallvec::SmallVec;
use std::collections::HashMap;

/// One way out of a loop, as its breaks name it.
#[derive(Clone, Debug)]
struct Target {
    block: Block,
    params: SmallVec<[Param; 4]>,
    /// The accumulator slot of each lane-mask parameter.
    masks: SmallVec<[Option<usize>; 4]>,
    /// The slot of the lanes that left for this target (all but the last of several).
    chosen: Option<usize>,
}

/// A continue or break taken: its block, the arguments it passes (and them as phi operands),
/// the flow there, and whether it branches straight to its target; for a break, the temporary
/// of each of the loop's [`LoopFrame::live_values`] when it is defined there.
#[derive(Clone, Debug)]
struct Taken {
    block: u32,
    args: Args,
    ops: Ops,
    flow: Flow,
    direct: bool,
    live: SmallVec<[Option<Temp>; 4]>,
}

/// A loop being selected.
#[derive(Clone, Debug)]
pub(super) struct LoopFrame {
    /// The IR loop.
    pub ir: Loop,
    /// Its header.
    pub header: Block,
    /// Its construct in [`crate::exec_mask::Masks`].
    level: usize,
    /// The MIR header.
    h: u32,
    params: SmallVec<[Param; 4]>,
    /// The accumulator slot of each lane-mask parameter for the next iteration.
    next: SmallVec<[Option<usize>; 4]>,
    targets: Vec<Target>,
    /// Lane masks defined in the loop and used after it, with their accumulator slots.
    live_masks: Vec<(Value, usize)>,
    /// Other values defined in the loop and used after it, when the loop has several exit
    /// targets: the exit merges the breaks to all of them, so such a value (defined on the
    /// way to one target) gets a phi there, undefined from the breaks that do not define it.
    live_values: Vec<Value>,
    continues: Vec<Taken>,
    /// The breaks, each with its target's index.
    breaks: Vec<(usize, Taken)>,
}

/// A continue of the loop being selected, from the current block.
pub(super) fn continue_loop(ctx: &mut Ctx<'_>, edge: Edge) -> Result<(), IselError> {
    let fi = ctx.frames.len() - 1;
    let (params, next, level, h) = {
        let f = &ctx.frames[fi];
        (f.params.clone(), f.next.clone(), f.level, f.h)
    };
    let ops = operands(ctx, &params, &edge.args, &next)?;
    ctx.marker(Opcode::PLogicalEnd);
    let direct = exec_mask::leave(ctx, Leave::Continue(level));
    let block = ctx.cur;
    ctx.mir.add_logical_edge(block, h);
    if direct {
        ctx.marker(Opcode::PBranch);
        link(ctx, block, h);
    } else {
        exec_mask::jump_to_restore(ctx);
    }
    let flow = ctx.masks.flow.clone();
    ctx.frames[fi].continues.push(Taken { block, args: edge.args, ops, flow, direct, live: SmallVec::new() });
    Ok(())
}

/// A break out of the loop being selected, from the current block.
pub(super) fn break_loop(ctx: &mut Ctx<'_>, edge: Edge) -> Result<(), IselError> {
    let fi = ctx.frames.len() - 1;
    let Some(ti) = ctx.frames[fi].targets.iter().position(|t| t.block == edge.block) else {
        return Err(ctx.control_flow(edge.block, "a loop exit that is not one (internal)"));
    };
    let (target, live, level) = {
        let f = &ctx.frames[fi];
        (f.targets[ti].clone(), f.live_masks.clone(), f.level)
    };
    // Each live value defined on the way, in its class (a constant made a temporary), so the
    // exit's phi has an operand from this break whatever the value is here.
    let mut values: SmallVec<[Option<Temp>; 4]> = SmallVec::new();
    for i in 0..ctx.frames[fi].live_values.len() {
        let v = ctx.frames[fi].live_values[i];
        let val = ctx.vals[v];
        values.push(if val != Val::None && ctx.defined_above(v, target.block) {
            Some(live_value_temp(ctx, v, val)?)
        } else {
            None
        });
    }
    let ops = operands(ctx, &target.params, &edge.args, &target.masks)?;
    // A value defined in the loop is defined on the way to a target when its definition
    // dominates the target (the IR block being selected may be another arm's by now).
    for (v, slot) in live {
        if ctx.vals[v] != Val::None && ctx.defined_above(v, target.block) {
            let m = ctx.lane_mask_of(v)?;
            exec_mask::accumulate(ctx, slot, m);
        }
    }
    if let Some(slot) = target.chosen {
        exec_mask::add_exec(ctx, slot);
    }
    ctx.marker(Opcode::PLogicalEnd);
    let direct = exec_mask::leave(ctx, Leave::Break(level));
    let block = ctx.cur;
    if direct {
        ctx.marker(Opcode::PBranch);
    } else {
        exec_mask::jump_to_restore(ctx);
    }
    let flow = ctx.masks.flow.clone();
    ctx.frames[fi].breaks.push((ti, Taken { block, args: edge.args, ops, flow, direct, live: values }));
    Ok(())
}

/// A divergent branch on `mask` (the lanes taking `then`) from the current block, one of whose
/// arms is a plain break out of the loop being selected: the breaking lanes leave the loop's
/// masks and EXEC in this block, and the others go on in the other arm with no divergent if
/// around it (the module comment of [`crate::exec_mask`], "early break"). This is the test of a
/// `while` loop's header. Taken when the loop has one exit target with no parameters and no
/// lane masks to carry out (the exit then needs no phi operand from this block, which also
/// goes on into the loop); returns `None` otherwise, for the general divergent if.
pub(super) fn break_early(
    ctx: &mut Ctx<'_>,
    mask: Temp,
    then: &Edge,
    other: &Edge,
    stop: Option<Block>,
) -> Result<Option<Step>, IselError> {
    let Some(frame) = ctx.frames.last() else { return Ok(None) };
    let leaves = |e: &Edge| e.block != frame.header && !ctx.loops.contains(frame.ir, e.block);
    let (brk, stay, set) = match (leaves(then), leaves(other)) {
        (true, false) => (then, other, true),
        (false, true) => (other, then, false),
        _ => return Ok(None),
    };
    let plain = frame.targets.len() == 1
        && frame.targets[0].block == brk.block
        && frame.targets[0].params.is_empty()
        && frame.live_masks.is_empty();
    if !plain {
        return Ok(None);
    }
    let level = frame.level;
    ctx.marker(Opcode::PLogicalEnd);
    let lanes = exec_mask::exec_lanes(ctx, mask, set);
    exec_mask::break_lanes(ctx, level, lanes);
    let block = ctx.cur;
    let taken = Taken {
        block,
        args: brk.args.clone(),
        ops: Ops::new(),
        flow: ctx.masks.flow.clone(),
        direct: false,
        live: SmallVec::new(),
    };
    ctx.frames.last_mut().expect("the loop's frame").breaks.push((0, taken));
    exec_mask::remove_from_exec(ctx, lanes);
    exec_mask::jump_to_restore_if_no_lanes(ctx);
    let next = ctx.new_block();
    ctx.mir.add_linear_edge(block, next);
    ctx.mir.add_logical_edge(block, next);
    ctx.cur = next;
    ctx.marker(Opcode::PLogicalStart);
    Ok(Some(arrive(ctx, stay.clone(), stop)?))
}

/// Selects the loop headed by `entry.block`, entered from the current block, and goes on at
/// its exit (see the module comment for the blocks).
pub(super) fn select_loop(ctx: &mut Ctx<'_>, entry: Edge, stop: Option<Block>) -> Result<Step, IselError> {
    let header = entry.block;
    let lp = ctx.loops.loop_of(header).expect("a loop header has its loop");
    let params = param_kinds(ctx, header)?;
    let quiet = !ctx.div.loop_exit_divergent(lp);

    // The entry (P): the header's operands and the masks the loop starts with.
    let pre = ctx.cur;
    let pre_ops = operands(ctx, &params, &entry.args, &[])?;
    ctx.marker(Opcode::PLogicalEnd);
    let outer_slots = ctx.masks.flow.slots.len();
    let entry_exec = exec_mask::read_exec(ctx);
    let level = exec_mask::push_loop(ctx, entry_exec, quiet);
    let exits = ctx.joins.exits(lp).to_vec();
    let mut targets = Vec::with_capacity(exits.len());
    for (i, &block) in exits.iter().enumerate() {
        let tparams = param_kinds(ctx, block)?;
        let masks = tparams.iter().map(|&p| (p == Param::Mask).then(|| exec_mask::new_slot(ctx, None))).collect();
        let chosen = (i + 1 < exits.len()).then(|| {
            let none = exec_mask::no_lanes(ctx);
            exec_mask::new_slot(ctx, Some(none))
        });
        targets.push(Target { block, params: tparams, masks, chosen });
    }
    let (masks, mut live_values) = ctx.live_out(lp);
    let live_masks: Vec<(Value, usize)> = if quiet {
        live_values.extend(masks);
        Vec::new()
    } else {
        masks.into_iter().map(|v| (v, exec_mask::new_slot(ctx, None))).collect()
    };
    if targets.len() < 2 {
        // Every break goes to the one target, which the values' definitions dominate.
        live_values.clear();
    }
    ctx.marker(Opcode::PBranch);
    let pre_flow = ctx.masks.flow.clone();

    // The header (H): phis for the parameters and for the masks that may change in the loop
    // (the outer ones that are defined, and all of the loop's).
    ctx.divergent_depth += u32::from(!quiet);
    let h = ctx.new_block();
    ctx.mir.blocks[h as usize].kind.loop_header = true;
    link(ctx, pre, h);
    ctx.mir.add_logical_edge(pre, h);
    ctx.cur = h;
    let mut phis = Vec::with_capacity(params.len());
    for &p in &params {
        let (rc, opcode) = match p {
            Param::Reg(rc) if rc.ty == RegType::Vgpr => (rc, Opcode::PPhi),
            Param::Reg(rc) => (rc, Opcode::PLinearPhi),
            Param::Mask => (ctx.lm(), Opcode::PLinearPhi),
        };
        phis.push(phi(ctx, opcode, rc, &[]));
    }
    // Only the loop's own masks change inside it: a continue or break of an outer loop, or a
    // return, leaves it by one of its exits first.
    let phi_slots: Vec<usize> = (outer_slots..ctx.masks.flow.slots.len()).collect();
    for &s in &phi_slots {
        let t = phi(ctx, Opcode::PLinearPhi, ctx.lm(), &[]);
        ctx.masks.flow.slots[s] = Some(t);
    }
    ctx.masks.flow.waiting[level] = false;
    let next = params.iter().map(|&p| (p == Param::Mask).then(|| exec_mask::new_slot(ctx, None))).collect();
    ctx.marker(Opcode::PLogicalStart);
    for (&param, &t) in ctx.func.dfg.blocks[header].params.iter().zip(&phis) {
        ctx.set(param, Val::Temp(t));
    }
    ctx.frames.push(LoopFrame {
        ir: lp,
        header,
        level,
        h,
        params: params.clone(),
        next,
        targets,
        live_masks,
        live_values,
        continues: Vec::new(),
        breaks: Vec::new(),
    });
    let body_exits = region(ctx, header, None)?;
    let frame = ctx.frames.pop().expect("the loop's frame");
    if !body_exits.is_empty() {
        return Err(ctx.control_flow(header, "a loop body with a join outside it (internal)"));
    }

    // The latch (LT, CB, BRK), where the branches from divergent code meet.
    let jumps = std::mem::take(&mut ctx.masks.stack[level].jumps);
    let latch = if jumps.is_empty() {
        None
    } else {
        let lt = land(ctx, jumps);
        let Kind::Loop { active, .. } = ctx.masks.stack[level].kind else { unreachable!("a loop construct") };
        exec_mask::set_exec(ctx, exec_mask::get(ctx, active).expect("the active mask is defined"));
        exec_mask::branch_if_no_lanes(ctx);
        let flow = ctx.masks.flow.clone();
        let cont = ctx.new_block();
        ctx.cur = cont;
        let ops = latch_operands(ctx, &frame)?;
        ctx.marker(Opcode::PBranch);
        link(ctx, cont, h);
        let brk = ctx.new_block();
        ctx.cur = brk;
        ctx.marker(Opcode::PBranch);
        set_target(ctx, lt, brk);
        ctx.mir.add_linear_edge(lt, brk);
        ctx.mir.add_linear_edge(lt, cont);
        Some(Latch { cont, brk, flow, ops })
    };
    seal_header(ctx, &frame, pre, &pre_ops, &pre_flow, latch.as_ref(), &phi_slots)?;

    // The exit (X).
    ctx.divergent_depth -= u32::from(!quiet);
    let x = ctx.new_block();
    let mut flows: Vec<Flow> = Vec::new();
    if let Some(l) = &latch {
        link(ctx, l.brk, x);
        flows.push(l.flow.clone());
    }
    for (_, b) in frame.breaks.iter().filter(|(_, b)| b.direct) {
        link(ctx, b.block, x);
        flows.push(b.flow.clone());
    }
    for (_, b) in &frame.breaks {
        ctx.mir.add_logical_edge(b.block, x);
    }
    ctx.cur = x;
    if flows.is_empty() {
        // The loop never ends: nothing follows it.
        ctx.marker(Opcode::SEndpgm);
        exec_mask::pop(ctx);
        return Ok(Step::Done);
    }
    let refs: Vec<&Flow> = flows.iter().collect();
    ctx.masks.flow = exec_mask::merge(ctx, &refs);
    let mut target_args = exit_phis(ctx, &frame, latch.is_some())?;
    live_value_phis(ctx, &frame, latch.is_some())?;
    for (t, args) in frame.targets.iter().zip(target_args.iter_mut()) {
        for (i, slot) in t.masks.iter().enumerate() {
            if let Some(s) = *slot {
                args[i] = Val::Temp(carried_mask(ctx, exec_mask::get(ctx, s)));
            }
        }
    }
    for &(v, slot) in &frame.live_masks {
        let m = carried_mask(ctx, exec_mask::get(ctx, slot));
        ctx.set(v, Val::Temp(m));
    }
    let chosen: Vec<Temp> =
        frame.targets.iter().filter_map(|t| t.chosen).map(|s| carried_mask(ctx, exec_mask::get(ctx, s))).collect();
    if latch.is_some() {
        exec_mask::set_exec(ctx, entry_exec);
    }
    pop_at(ctx, x);
    if frame.breaks.is_empty() {
        // No lane leaves by an exit: the loop never ends, nothing follows it.
        exec_mask::jump_to_restore(ctx);
        return Ok(Step::Done);
    }
    ctx.marker(Opcode::PLogicalStart);

    // Go on at the exit target, or choose among several.
    let mut edges: Vec<Edge> =
        frame.targets.iter().zip(target_args).map(|(t, args)| Edge { block: t.block, args }).collect();
    let last = edges.pop().expect("a loop with breaks has exit targets");
    if edges.is_empty() {
        return arrive(ctx, last, stop);
    }
    let wide = ctx.wave == 64;
    let arms = chosen
        .into_iter()
        .zip(edges)
        .map(|(m, e)| {
            let c = if quiet {
                let op = if wide { Opcode::SCmpLgU64 } else { Opcode::SCmpLgU32 };
                Cond::Scalar(Val::Cmp { op, args: [Operand::temp(m), Operand::constant(0)] })
            } else {
                Cond::Lanes(m)
            };
            (c, e)
        })
        .collect();
    let join = ctx.joins.join_after(lp, &ctx.loops);
    let exits = chain(ctx, arms, last, join)?;
    after_branch(ctx, header, exits, join, stop)
}

/// The latch blocks of a loop, the flow at the latch, and the operands it gives the header's
/// SGPR parameters.
struct Latch {
    cont: u32,
    brk: u32,
    flow: Flow,
    ops: Ops,
}

/// The operands the latch (in the current block) gives the header's SGPR parameters: the
/// value every divergent continue passes, since lanes go round through the latch only after
/// one (undefined if there is none). Continues on different uniform paths of the iteration
/// (a block the IR joins, selected once on each path) may pass different values; only one of
/// them runs in an iteration (a divergent choice between them would have made the parameter
/// divergent), so each writes one temporary that the latch passes on, and [`super::linear_ssa`]
/// gives it its phis. Other parameters get a placeholder.
fn latch_operands(ctx: &mut Ctx<'_>, frame: &LoopFrame) -> Result<Ops, IselError> {
    let mut ops = Ops::new();
    for (i, &p) in frame.params.iter().enumerate() {
        let Param::Reg(rc) = p else {
            ops.push(undef(ctx.lm()));
            continue;
        };
        let divergent = || frame.continues.iter().filter(|c| !c.direct);
        let first = divergent().next();
        if rc.ty == RegType::Vgpr {
            ops.push(undef(rc));
        } else if divergent().all(|c| Some(c.args[i]) == first.map(|f| f.args[i])) {
            ops.push(match first {
                Some(c) => Operand::temp(ctx.as_class(c.args[i], rc)?),
                None => undef(rc),
            });
        } else {
            // One temporary written on each path (a copy before each continue's branch),
            // made SSA by `linear_ssa` once the function is selected.
            let t = ctx.temp(rc);
            for c in divergent() {
                let insts = &mut ctx.mir.blocks[c.block as usize].insts;
                let at = insts.len() - usize::from(insts.last().is_some_and(|i| i.opcode.ends_block()));
                insts.insert(at, mir::Inst::new(Opcode::PParallelCopy, &[Def::temp(t)], &[c.ops[i]]));
            }
            ops.push(Operand::temp(t));
        }
    }
    Ok(ops)
}

/// Fills in the header's phis, now that its predecessors are known.
fn seal_header(
    ctx: &mut Ctx<'_>,
    frame: &LoopFrame,
    pre: u32,
    pre_ops: &Ops,
    pre_flow: &Flow,
    latch: Option<&Latch>,
    phi_slots: &[usize],
) -> Result<(), IselError> {
    let h = frame.h as usize;
    let linear = ctx.mir.blocks[h].linear_preds.clone();
    let logical = ctx.mir.blocks[h].logical_preds.clone();
    let by_block: HashMap<u32, &Taken, FixedState> = frame.continues.iter().map(|c| (c.block, c)).collect();
    let taken = |b: u32| by_block.get(&b).copied();
    let flow_of = |b: u32| -> &Flow {
        match (b == pre, latch.filter(|l| l.cont == b), taken(b)) {
            (true, _, _) => pre_flow,
            (_, Some(l), _) => &l.flow,
            (_, _, Some(c)) => &c.flow,
            _ => unreachable!("every predecessor of the header is known"),
        }
    };
    for (i, &p) in frame.params.iter().enumerate() {
        let ops: Ops =
            match p {
                Param::Reg(rc) if rc.ty == RegType::Vgpr => logical
                    .iter()
                    .map(|&b| if b == pre { pre_ops[i] } else { taken(b).map_or(undef(rc), |c| c.ops[i]) })
                    .collect(),
                Param::Reg(rc) => {
                    let mut ops = Ops::new();
                    for &b in &linear {
                        if b == pre {
                            ops.push(pre_ops[i]);
                        } else if let Some(c) = taken(b) {
                            ops.push(c.ops[i]);
                        } else {
                            ops.push(latch.map_or(undef(rc), |l| l.ops[i]));
                        }
                    }
                    ops
                }
                Param::Mask => {
                    let slot = frame.next[i].expect("a slot per mask parameter");
                    linear
                        .iter()
                        .map(|&b| {
                            if b == pre {
                                pre_ops[i]
                            } else {
                                exec_mask::carried_operand(ctx, flow_of(b).slots[slot])
                            }
                        })
                        .collect()
                }
            };
        ctx.mir.blocks[h].insts[i].ops = ops;
    }
    for (k, &s) in phi_slots.iter().enumerate() {
        let ops: Ops = linear.iter().map(|&b| exec_mask::carried_operand(ctx, flow_of(b).slots[s])).collect();
        ctx.mir.blocks[h].insts[frame.params.len() + k].ops = ops;
    }
    Ok(())
}

/// Phis in the exit block for the parameters of every exit target: `p_phi` over the breaks
/// for VGPR parameters (undefined from breaks to other targets); a uniform parameter is the
/// value every break passes, or a `p_linear_phi` when all breaks branch straight to the exit
/// (then no lane comes to the exit through the latch). Lane-mask parameters are left
/// `Val::None`, for the caller to read from their slots.
fn exit_phis(ctx: &mut Ctx<'_>, frame: &LoopFrame, latch: bool) -> Result<Vec<Args>, IselError> {
    let all_direct = frame.breaks.iter().all(|(_, b)| b.direct);
    let mut all = Vec::with_capacity(frame.targets.len());
    for (ti, t) in frame.targets.iter().enumerate() {
        let mut args = Args::new();
        for (i, &p) in t.params.iter().enumerate() {
            let of = |(to, b): &(usize, Taken)| if *to == ti { Some(b.ops[i]) } else { None };
            args.push(match p {
                Param::Mask => Val::None,
                Param::Reg(rc) if rc.ty == RegType::Vgpr => {
                    let ops: Ops = frame.breaks.iter().map(|b| of(b).unwrap_or(undef(rc))).collect();
                    Val::Temp(phi(ctx, Opcode::PPhi, rc, &ops))
                }
                Param::Reg(rc) => {
                    let mut passed = frame.breaks.iter().filter(|(to, _)| *to == ti).map(|(_, b)| b.args[i]);
                    let first = passed.next();
                    let same = passed.all(|v| Some(v) == first);
                    match first {
                        Some(v) if same => v,
                        _ if all_direct => {
                            let from_latch = latch.then_some(undef(rc));
                            let ops: Ops = from_latch
                                .into_iter()
                                .chain(frame.breaks.iter().map(|b| of(b).unwrap_or(undef(rc))))
                                .collect();
                            Val::Temp(phi(ctx, Opcode::PLinearPhi, rc, &ops))
                        }
                        _ => {
                            return Err(ctx.control_flow(
                                t.block,
                                "a uniform parameter passed different values by breaks from divergent code",
                            ))
                        }
                    }
                }
            });
        }
        all.push(args);
    }
    Ok(all)
}

/// The class a live value of the loop has at its exit phi: its parameter class, as if it were
/// a block parameter (a lane mask for a divergent `i1`).
fn live_value_class(ctx: &Ctx<'_>, v: Value) -> Result<RegClass, IselError> {
    Ok(match param_kind(ctx, v)? {
        Param::Reg(rc) => rc,
        Param::Mask => ctx.lm(),
    })
}

/// Live value `v`, now `val`, as a temporary of [`live_value_class`].
fn live_value_temp(ctx: &mut Ctx<'_>, v: Value, val: Val) -> Result<Temp, IselError> {
    match param_kind(ctx, v)? {
        Param::Reg(rc) => ctx.as_class(val, rc),
        Param::Mask => mask_temp(ctx, val),
    }
}

/// Phis in the exit block for the loop's [`LoopFrame::live_values`], which then stand for the
/// values in the code after the loop: `p_phi` over the breaks for a VGPR value, `p_linear_phi`
/// (the latch first, if any) for an SGPR one when every break branches straight to the exit.
fn live_value_phis(ctx: &mut Ctx<'_>, frame: &LoopFrame, latch: bool) -> Result<(), IselError> {
    let all_direct = frame.breaks.iter().all(|(_, b)| b.direct);
    for (i, &v) in frame.live_values.iter().enumerate() {
        if ctx.vals[v] == Val::None {
            continue;
        }
        let rc = live_value_class(ctx, v)?;
        let of = |b: &Taken| b.live[i].map_or(undef(rc), Operand::temp);
        let merged = if rc.ty == RegType::Vgpr {
            let ops: Ops = frame.breaks.iter().map(|(_, b)| of(b)).collect();
            phi(ctx, Opcode::PPhi, rc, &ops)
        } else if all_direct {
            let from_latch = latch.then_some(undef(rc));
            let ops: Ops = from_latch.into_iter().chain(frame.breaks.iter().map(|(_, b)| of(b))).collect();
            phi(ctx, Opcode::PLinearPhi, rc, &ops)
        } else {
            return Err(ctx.control_flow(frame.header, "a uniform value read after a loop left by divergent breaks"));
        };
        ctx.set(v, Val::Temp(merged));
    }
    Ok(())
}
