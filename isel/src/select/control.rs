//! The block structure: IR blocks into MIR blocks in linear order, with both CFGs, phis for
//! block parameters, scalar branches for uniform ifs and exec masking for divergent ones.
//!
//! Selection walks the IR as structured regions: from a block it follows jumps (a block
//! entered from one predecessor continues the same MIR block) until a branch; a branch's
//! arms are selected as regions that end at its immediate post-dominator (the join), where the
//! selection continues. The MIR blocks come out in the order a wave runs them:
//!
//! ```text
//!  uniform brif c, T, F          divergent brif c, T, F (join J)      divergent if-then
//!  ─────────────────────         ──────────────────────────────       (F = J, J without params)
//!  B:  s_cmp → scc               B:  saved = s_and_saveexec c          B:  saved = s_and_saveexec c
//!      p_cbranch_scc0 → F0           p_cbranch_execz → TL                  p_cbranch_execz → TL
//!  T0.. (then arm)               T0.. (then arm) p_branch → INV        T0.. p_branch → J
//!  F0.. (else arm)               TL: p_branch → INV                    TL: p_branch → J
//!  J:  phis                      INV: exec = saved & !exec             J:  exec |= saved
//!                                     p_cbranch_execz → EL
//!                                F0.. (else arm) p_branch → J
//!                                EL: p_branch → J
//!                                J:  phis, exec |= saved
//! ```
//!
//! As in ACO, the linear-only blocks TL, INV and EL (no logical part) make every edge of the
//! linear CFG non-critical, and an arm that is empty still gets a block, so phi copies always
//! have a block of their own. The compact if-then leaves the logical edge B → J critical;
//! that is only allowed when J has no parameters, so no copy lands on it. A conditional branch
//! jumps to its first linear successor and falls through to the next block.
//!
//! Not yet selected (each an [`IselError::ControlFlow`] naming the construct): loops, `switch`,
//! returns inside divergent control flow, arms that do not meet again, and divergent `i1` block
//! parameters (they need lane-mask phis).

use super::{class_for, Ctx, Val};
use crate::error::IselError;
use crate::exec_mask;
use frontend_ir::{Block, BlockCall, InstData, Value};
use isa::mir::{self, Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, RegType};
use smallvec::SmallVec;

/// An open end of a selected region: a MIR block whose control goes on to the region's join,
/// and the values it passes to the join's parameters.
struct Exit {
    block: u32,
    args: SmallVec<[Val; 4]>,
}

/// Selects the kernel's blocks, from the entry block (block 0, opened by the prologue).
pub(super) fn function_body(ctx: &mut Ctx<'_>) -> Result<(), IselError> {
    let entry = ctx.func.entry().ok_or_else(|| ctx.unsupported("a kernel without blocks"))?;
    let exits = region(ctx, entry, None)?;
    debug_assert!(exits.is_empty(), "a region without a join has no exits");
    Ok(())
}

/// Selects the region starting at `block` (whose MIR block is open) until control reaches
/// `stop`, or leaves the kernel when `stop` is `None`; returns the blocks that go on to `stop`.
fn region(ctx: &mut Ctx<'_>, mut block: Block, stop: Option<Block>) -> Result<Vec<Exit>, IselError> {
    let func = ctx.func;
    loop {
        if std::mem::replace(&mut ctx.emitted[block], true) {
            return Err(
                ctx.control_flow(block, "a block reached along two structured paths (unstructured control flow)")
            );
        }
        ctx.select_body(block)?;
        let term = func.dfg.terminator(block).ok_or_else(|| ctx.control_flow(block, "a block without a terminator"))?;
        ctx.cur_inst = Some(term);
        let (cond, dests) = match &func.dfg.insts[term] {
            InstData::Return { .. } | InstData::Unreachable => {
                if ctx.divergent_depth > 0 {
                    return Err(ctx.control_flow(block, "a return inside divergent control flow"));
                }
                ctx.marker(Opcode::PLogicalEnd);
                ctx.marker(Opcode::SEndpgm);
                return Ok(Vec::new());
            }
            InstData::Jump { dest } => (None, [dest, dest]),
            InstData::Brif { dests, .. } if dests[0] == dests[1] => (None, [&dests[0], &dests[0]]),
            InstData::Brif { cond, dests } => (Some(*cond), [&dests[0], &dests[1]]),
            InstData::Switch { .. } => return Err(ctx.control_flow(block, "switch")),
            _ => return Err(ctx.control_flow(block, "this terminator")),
        };
        let Some(cond) = cond else {
            // A jump (or a brif with two equal targets).
            let dest = dests[0];
            if Some(dest.block) == stop {
                return Ok(vec![exit_here(ctx, dest)?]);
            }
            enter(ctx, block, dest)?;
            block = dest.block;
            continue;
        };
        if dests[0].block == dests[1].block {
            return Err(ctx.control_flow(block, "a brif whose targets are one block with different arguments"));
        }
        let join = ctx.postdom.ipdom(block);
        if ctx.div.is_branch_divergent(block) {
            let join =
                join.ok_or_else(|| ctx.control_flow(block, "a divergent branch whose arms do not meet again"))?;
            let exit = divergent_if(ctx, block, cond, dests, join)?;
            if Some(join) == stop {
                return Ok(vec![exit]);
            }
            continue_at(ctx, join, exit);
            block = join;
            continue;
        }
        let exits = uniform_if(ctx, block, cond, dests, join)?;
        match join {
            // Both arms left the kernel, or the join is the enclosing region's.
            None => return Ok(exits),
            Some(j) if Some(j) == stop => return Ok(exits),
            Some(j) => {
                let exit = merge(ctx, exits, j)?;
                continue_at(ctx, j, exit);
                block = j;
            }
        }
    }
}

/// Goes on selecting `join` in the exit's block, its parameters bound to the exit's values.
fn continue_at(ctx: &mut Ctx<'_>, join: Block, exit: Exit) {
    for (&param, &val) in ctx.func.dfg.blocks[join].params.iter().zip(&exit.args) {
        ctx.set(param, val);
    }
    ctx.cur = exit.block;
}

/// The current block as an exit through `dest`.
fn exit_here(ctx: &Ctx<'_>, dest: &BlockCall) -> Result<Exit, IselError> {
    let args = dest.args.iter().map(|&a| ctx.val(a)).collect::<Result<_, _>>()?;
    Ok(Exit { block: ctx.cur, args })
}

/// Continues from `from` into `dest` in the same MIR block: `dest` must be entered only from
/// `from`; its parameters become the arguments.
fn enter(ctx: &mut Ctx<'_>, from: Block, dest: &BlockCall) -> Result<(), IselError> {
    if ctx.cfg.preds(dest.block).iter().any(|&p| ctx.domtree.dominates(dest.block, p)) {
        return Err(ctx.control_flow(dest.block, format!("a loop (entered from {from})")));
    }
    if ctx.cfg.preds(dest.block).len() != 1 {
        return Err(ctx.control_flow(dest.block, "a block entered from several blocks that are not an if's arms"));
    }
    let params = &ctx.func.dfg.blocks[dest.block].params;
    for (&param, &arg) in params.iter().zip(&dest.args) {
        let val = ctx.val(arg)?;
        ctx.set(param, val);
    }
    Ok(())
}

/// Selects one arm of a branch from `from` through `call`, in a new block, until `stop`.
fn arm(ctx: &mut Ctx<'_>, from: Block, call: &BlockCall, stop: Option<Block>) -> Result<(u32, Vec<Exit>), IselError> {
    let first = ctx.new_block();
    ctx.cur = first;
    ctx.marker(Opcode::PLogicalStart);
    if Some(call.block) == stop {
        return Ok((first, vec![exit_here(ctx, call)?]));
    }
    enter(ctx, from, call)?;
    Ok((first, region(ctx, call.block, stop)?))
}

/// A uniform `brif`: a scalar branch on SCC to the else arm, the then arm falling through.
/// Returns the exits of both arms.
fn uniform_if(
    ctx: &mut Ctx<'_>,
    block: Block,
    cond: Value,
    [t, f]: [&BlockCall; 2],
    join: Option<Block>,
) -> Result<Vec<Exit>, IselError> {
    let scc = ctx.scc_of(cond)?;
    ctx.marker(Opcode::PLogicalEnd);
    let branch = ctx.cur;
    ctx.emit(mir::Inst::new(Opcode::PCbranchScc0, &[], &[Operand::fixed(scc, PhysReg::SCC)]));
    let (then_first, mut exits) = arm(ctx, block, t, join)?;
    let (else_first, else_exits) = arm(ctx, block, f, join)?;
    exits.extend(else_exits);
    set_target(ctx, branch, else_first);
    for to in [else_first, then_first] {
        ctx.mir.add_linear_edge(branch, to);
        ctx.mir.add_logical_edge(branch, to);
    }
    Ok(exits)
}

/// A divergent `brif` (see the module comment for the blocks). Returns the join's MIR block,
/// EXEC restored, with phis for the join's parameters.
fn divergent_if(
    ctx: &mut Ctx<'_>,
    block: Block,
    cond: Value,
    [t, f]: [&BlockCall; 2],
    join: Block,
) -> Result<Exit, IselError> {
    let mask = ctx.lane_mask_of(cond)?;
    let classes = param_classes(ctx, join)?;
    if classes.iter().any(|rc| rc.is_sgpr()) {
        return Err(ctx.control_flow(join, "a boolean parameter of a divergent join (needs lane-mask phis)"));
    }
    let if_block = ctx.cur;
    ctx.marker(Opcode::PLogicalEnd);
    let saved = exec_mask::begin_if(ctx, mask);
    exec_mask::branch_if_no_lanes(ctx);
    ctx.divergent_depth += 1;

    let (then_first, then_exit) = divergent_arm(ctx, block, t, join)?;
    let then_ops = phi_operands(ctx, &then_exit, &classes)?;
    let then_linear = ctx.new_block();
    set_target(ctx, if_block, then_linear);
    ctx.mir.add_linear_edge(if_block, then_linear);
    ctx.mir.add_linear_edge(if_block, then_first);
    ctx.mir.add_logical_edge(if_block, then_first);

    if f.block == join && classes.is_empty() {
        // If-then: the lanes that skip the then arm wait at the join.
        ctx.divergent_depth -= 1;
        let endif = ctx.new_block();
        close(ctx, then_exit.block, endif, true);
        ctx.mir.add_logical_edge(then_exit.block, endif);
        close(ctx, then_linear, endif, false);
        ctx.mir.add_logical_edge(if_block, endif);
        ctx.cur = endif;
        exec_mask::end_if(ctx, saved);
        ctx.marker(Opcode::PLogicalStart);
        return Ok(Exit { block: endif, args: SmallVec::new() });
    }

    let invert = ctx.new_block();
    close(ctx, then_exit.block, invert, true);
    close(ctx, then_linear, invert, false);
    ctx.cur = invert;
    exec_mask::invert(ctx, saved);
    exec_mask::branch_if_no_lanes(ctx);
    let (else_first, else_exit) = divergent_arm(ctx, block, f, join)?;
    ctx.mir.add_logical_edge(if_block, else_first);
    let else_ops = phi_operands(ctx, &else_exit, &classes)?;
    let else_linear = ctx.new_block();
    set_target(ctx, invert, else_linear);
    ctx.mir.add_linear_edge(invert, else_linear);
    ctx.mir.add_linear_edge(invert, else_first);

    ctx.divergent_depth -= 1;
    let endif = ctx.new_block();
    close(ctx, else_exit.block, endif, true);
    close(ctx, else_linear, endif, false);
    ctx.mir.add_logical_edge(then_exit.block, endif);
    ctx.mir.add_logical_edge(else_exit.block, endif);
    ctx.cur = endif;
    let args = phis(ctx, &classes, &[then_ops, else_ops]);
    exec_mask::end_if(ctx, saved);
    ctx.marker(Opcode::PLogicalStart);
    Ok(Exit { block: endif, args })
}

/// One arm of a divergent if, ending in a single exit (several exits, from uniform branches
/// inside the arm, are merged first).
fn divergent_arm(ctx: &mut Ctx<'_>, from: Block, call: &BlockCall, join: Block) -> Result<(u32, Exit), IselError> {
    let (first, mut exits) = arm(ctx, from, call, Some(join))?;
    let exit = match exits.len() {
        0 => return Err(ctx.control_flow(call.block, "a divergent arm that never reaches its join")),
        1 => exits.pop().expect("one exit"),
        _ => merge(ctx, exits, join)?,
    };
    Ok((first, exit))
}

/// Joins the exits of uniform control flow into a new block with phis for `join`'s
/// parameters: `p_phi` for VGPR values, `p_linear_phi` for SGPR ones (the logical and linear
/// predecessors are the same blocks in the same order here).
fn merge(ctx: &mut Ctx<'_>, exits: Vec<Exit>, join: Block) -> Result<Exit, IselError> {
    let classes = param_classes(ctx, join)?;
    let ops = exits.iter().map(|e| phi_operands(ctx, e, &classes)).collect::<Result<Vec<_>, _>>()?;
    let m = ctx.new_block();
    for exit in &exits {
        close(ctx, exit.block, m, true);
        ctx.mir.add_logical_edge(exit.block, m);
    }
    ctx.cur = m;
    let args = phis(ctx, &classes, &ops);
    ctx.marker(Opcode::PLogicalStart);
    Ok(Exit { block: m, args })
}

/// The classes of `join`'s parameters.
fn param_classes(ctx: &Ctx<'_>, join: Block) -> Result<SmallVec<[RegClass; 4]>, IselError> {
    ctx.func.dfg.blocks[join]
        .params
        .iter()
        .map(|&p| {
            let divergent = ctx.div.is_divergent(p);
            let ty = ctx.func.dfg.value_type(p);
            match class_for(ty, divergent, ctx.wave) {
                Some(rc) if !(divergent && rc.is_sgpr()) => Ok(rc),
                _ => Err(ctx.control_flow(
                    join,
                    format!("a {} block parameter of type {ty}", if divergent { "divergent" } else { "uniform" }),
                )),
            }
        })
        .collect()
}

/// The exit's arguments in the classes of the join's parameters, converted at the end of the
/// exit block's logical part.
fn phi_operands(ctx: &mut Ctx<'_>, exit: &Exit, classes: &[RegClass]) -> Result<SmallVec<[Operand; 4]>, IselError> {
    let saved = ctx.cur;
    ctx.cur = exit.block;
    let ops = exit.args.iter().zip(classes).map(|(&val, &rc)| Ok(Operand::temp(ctx.as_class(val, rc)?))).collect();
    ctx.cur = saved;
    ops
}

/// One phi per class in the current block, with operand `i` of each from `ops[i]`.
fn phis(ctx: &mut Ctx<'_>, classes: &[RegClass], ops: &[SmallVec<[Operand; 4]>]) -> SmallVec<[Val; 4]> {
    classes
        .iter()
        .enumerate()
        .map(|(i, &rc)| {
            let t = ctx.temp(rc);
            let opcode = if rc.ty == RegType::Vgpr { Opcode::PPhi } else { Opcode::PLinearPhi };
            let srcs: SmallVec<[Operand; 4]> = ops.iter().map(|o| o[i]).collect();
            ctx.emit(mir::Inst::new(opcode, &[Def::temp(t)], &srcs));
            Val::Temp(t)
        })
        .collect()
}

/// Ends `block` with a branch to `to` (after its logical part, if `logical`), on the linear
/// CFG.
fn close(ctx: &mut Ctx<'_>, block: u32, to: u32, logical: bool) {
    let saved = ctx.cur;
    ctx.cur = block;
    if logical {
        ctx.marker(Opcode::PLogicalEnd);
    }
    ctx.emit(
        mir::Inst::new(Opcode::PBranch, &[], &[]).with_fields(mir::Fields { target: Some(to), ..Default::default() }),
    );
    ctx.mir.add_linear_edge(block, to);
    ctx.cur = saved;
}

/// Sets the target of the branch that ends `block`.
fn set_target(ctx: &mut Ctx<'_>, block: u32, target: u32) {
    if let Some(last) = ctx.mir.blocks[block as usize].insts.last_mut() {
        last.fields.target = Some(target);
    }
}
