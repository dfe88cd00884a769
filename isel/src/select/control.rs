//! The block structure: IR blocks into MIR blocks in linear order, with both CFGs, phis for
//! block parameters, scalar branches for uniform control flow, and the exec masking of
//! [`crate::exec_mask`] for divergent ifs and switches; [`super::loops`] does the loops.
//!
//! Selection walks the IR as structured regions. From a block it follows jumps (a block
//! reached by a jump goes on in the same MIR block) until a branch; the arms of a branch are
//! regions that end at the branch's *join* ([`frontend_ir::reconverge`]: where its lanes meet again
//! in the same loop iteration), where selection goes on. Arms without a join end in escapes
//! (continue, break, return). A `switch` is a chain of two-way branches, one per target block,
//! each target's arguments chosen per lane among its cases. A block reached along two paths
//! that only meet later is selected once on each (as the reference interpreter runs it once
//! for each group of lanes). The MIR blocks come out in the order a wave runs them:
//!
//! ```text
//!  uniform brif c, T, F          divergent brif c, T, F (join J)     divergent brif without join
//!  ─────────────────────         ──────────────────────────────      ───────────────────────────
//!  B:  s_cmp → scc               B:  saved = s_and_saveexec c        B:  saved = s_and_saveexec c
//!      p_cbranch_scc0 → F0           p_cbranch_execz → TL                p_cbranch_execz → TL
//!  T0.. (then arm)               T0.. (then arm) p_branch → INV      T0.. (then arm: escapes)
//!  F0.. (else arm)               TL: p_branch → INV                  TL: p_branch → INV
//!  J:  phis                      INV: exec = saved & !exec           INV: exec = saved minus the
//!                                     p_cbranch_execz → EL                lanes that escaped
//!                                F0.. (else arm) p_branch → J             p_cbranch_execz → EL
//!                                EL: p_branch → J                    F0.. (else arm: escapes)
//!                                J:  phis, exec = saved (left)       EL: p_branch → restore point
//! ```
//!
//! As in ACO, the linear-only blocks (TL, INV, EL) keep every edge of the linear CFG
//! non-critical, and an empty arm still gets a block, so phi copies always have a block of
//! their own. A divergent if-then whose join takes no parameters skips INV and EL (the logical
//! edge B → J is critical, harmless without parameters). The then arm of an if without a join
//! ends only in escapes, which branch to INV (its restore point, see [`crate::exec_mask`]);
//! its EL, taken when no lane is left, goes on to the enclosing restore point. At a join, a
//! VGPR parameter gets a `p_phi` over the logical predecessors; after a uniform branch an SGPR
//! or lane-mask parameter gets a `p_linear_phi`; after a divergent one a lane-mask parameter
//! is the per-lane accumulation of the arms' masks. A conditional branch jumps to its first
//! linear successor and falls through to the next block.

use super::{class_for, loops, Ctx, Val, MAX_NESTING};
use crate::error::IselError;
use crate::exec_mask::{self, Carried, Flow, Jump, Kind, Leave};
use frontend_ir::{Block, BlockCall, InstData, Type, Value};
use isa::mir::{self, Def, Operand, OperandKind};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// Values for a block's parameters.
pub(super) type Args = SmallVec<[Val; 4]>;
/// Phi operands for a block's parameters.
pub(super) type Ops = SmallVec<[Operand; 4]>;

/// An open end of a selected region: a MIR block whose control goes on to the region's stop,
/// the values it passes to the stop's parameters, and what the structure carries there.
pub(super) struct Exit {
    pub block: u32,
    pub args: Args,
    pub flow: Flow,
}

/// An edge to follow: its target and the arguments for the target's parameters (a lane mask
/// for a lane-mask parameter).
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub block: Block,
    pub args: Args,
}

/// How a region goes on after a terminator.
pub(super) enum Step {
    /// In this block, in the current MIR block.
    At(Block),
    /// It reached its stop.
    Exits(Vec<Exit>),
    /// Every path escaped.
    Done,
}

/// What a two-way branch decides on.
#[derive(Copy, Clone, Debug)]
pub(super) enum Cond {
    /// A uniform boolean (tested through SCC).
    Scalar(Val),
    /// A lane mask.
    Lanes(Temp),
}

/// What an arm of a branch runs: an edge, or the rest of a chain of branches.
enum Body {
    Edge(Edge),
    Chain(Vec<(Cond, Edge)>, Edge),
}

/// How a block parameter lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Param {
    /// In registers of this class (VGPRs when divergent, SGPRs when uniform).
    Reg(RegClass),
    /// A lane mask (a divergent boolean).
    Mask,
}

/// Selects the kernel's blocks, from the entry block (block 0, opened by the prologue).
pub(super) fn function_body(ctx: &mut Ctx<'_>) -> Result<(), IselError> {
    let entry = ctx.func.entry().ok_or_else(|| ctx.unsupported("a kernel without blocks"))?;
    let exits = region(ctx, entry, None)?;
    if !exits.is_empty() {
        return Err(ctx.control_flow(entry, "a region that ends without a join (internal)"));
    }
    let jumps = std::mem::take(&mut ctx.masks.end_jumps);
    if !jumps.is_empty() {
        land(ctx, jumps);
        ctx.marker(Opcode::SEndpgm);
    }
    Ok(())
}

// ---- Regions ----

/// Selects the region starting at `block` (whose MIR block is open) until control reaches
/// `stop`, or escapes when `stop` is `None`; returns the blocks that go on to `stop`.
pub(super) fn region(ctx: &mut Ctx<'_>, block: Block, stop: Option<Block>) -> Result<Vec<Exit>, IselError> {
    if ctx.nesting >= MAX_NESTING {
        return Err(super::too_deep(ctx.func, block));
    }
    ctx.nesting += 1;
    // Room for one level's frames, else a new stack segment on the heap.
    let result = stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || region_at(ctx, block, stop));
    ctx.nesting -= 1;
    result
}

/// [`region`], one level deeper.
fn region_at(ctx: &mut Ctx<'_>, mut block: Block, stop: Option<Block>) -> Result<Vec<Exit>, IselError> {
    let func = ctx.func;
    loop {
        ctx.spend(block)?;
        ctx.ir_block = Some(block);
        ctx.select_body(block)?;
        let term = func.dfg.terminator(block).ok_or_else(|| ctx.control_flow(block, "a block without a terminator"))?;
        ctx.cur_inst = Some(term);
        let step = match &func.dfg.insts[term] {
            InstData::Return { .. } | InstData::Unreachable => {
                leave_kernel(ctx);
                Step::Done
            }
            InstData::Jump { dest } => {
                let e = edge(ctx, dest)?;
                arrive(ctx, e, stop)?
            }
            InstData::Brif { cond, dests } if dests[0].block == dests[1].block => {
                let e = same_target(ctx, block, *cond, dests)?;
                arrive(ctx, e, stop)?
            }
            InstData::Brif { cond, dests } => {
                let c = cond_of(ctx, block, *cond)?;
                let (t, f) = (edge(ctx, &dests[0])?, edge(ctx, &dests[1])?);
                let join = ctx.joins.join(block, &ctx.loops);
                let early = match c {
                    Cond::Lanes(m) if join.is_none() => loops::break_early(ctx, m, &t, &f, stop)?,
                    _ => None,
                };
                match early {
                    Some(step) => step,
                    None => {
                        let exits = two_way(ctx, c, Body::Edge(t), Body::Edge(f), join)?;
                        after_branch(ctx, block, exits, join, stop)?
                    }
                }
            }
            InstData::Switch { arg, cases, dests } => {
                let (arms, default) = switch_arms(ctx, block, *arg, cases, dests)?;
                let join = ctx.joins.join(block, &ctx.loops);
                let exits = chain(ctx, arms, default, join)?;
                after_branch(ctx, block, exits, join, stop)?
            }
            _ => return Err(ctx.control_flow(block, "this terminator")),
        };
        match step {
            Step::At(b) => block = b,
            Step::Exits(exits) => return Ok(exits),
            Step::Done => return Ok(Vec::new()),
        }
    }
}

/// Follows `edge` from the current MIR block: to the region's stop, out of the loop being
/// selected (a continue or a break), into a loop, or on to its block.
pub(super) fn arrive(ctx: &mut Ctx<'_>, edge: Edge, stop: Option<Block>) -> Result<Step, IselError> {
    if Some(edge.block) == stop {
        return Ok(Step::Exits(vec![Exit { block: ctx.cur, args: edge.args, flow: ctx.masks.flow.clone() }]));
    }
    if let Some(frame) = ctx.frames.last() {
        if edge.block == frame.header {
            loops::continue_loop(ctx, edge)?;
            return Ok(Step::Done);
        }
        if !ctx.loops.contains(frame.ir, edge.block) {
            loops::break_loop(ctx, edge)?;
            return Ok(Step::Done);
        }
    }
    if ctx.loops.is_loop_header(edge.block) {
        return loops::select_loop(ctx, edge, stop);
    }
    bind_params(ctx, edge.block, &edge.args)?;
    Ok(Step::At(edge.block))
}

/// Everything that `edge` leads to until `stop`.
fn arrive_all(ctx: &mut Ctx<'_>, edge: Edge, stop: Option<Block>) -> Result<Vec<Exit>, IselError> {
    match arrive(ctx, edge, stop)? {
        Step::At(b) => region(ctx, b, stop),
        Step::Exits(exits) => Ok(exits),
        Step::Done => Ok(Vec::new()),
    }
}

/// Goes on after a branch of `block` whose arms gave `exits`: at its join, or out of the
/// region.
pub(super) fn after_branch(
    ctx: &mut Ctx<'_>,
    block: Block,
    exits: Vec<Exit>,
    join: Option<Block>,
    stop: Option<Block>,
) -> Result<Step, IselError> {
    if exits.is_empty() {
        return Ok(Step::Done);
    }
    let Some(j) = join else {
        return Err(ctx.control_flow(block, "arms that meet without a join (internal)"));
    };
    if Some(j) == stop {
        return Ok(Step::Exits(exits));
    }
    let exit = one_exit(ctx, exits, j)?.expect("exits were given");
    let exit = to_last_block(ctx, exit);
    ctx.cur = exit.block;
    ctx.masks.flow = exit.flow;
    arrive(ctx, Edge { block: j, args: exit.args }, stop)
}

/// The exits of an arm as one (merged in a new block if there are several).
fn one_exit(ctx: &mut Ctx<'_>, mut exits: Vec<Exit>, join: Block) -> Result<Option<Exit>, IselError> {
    match exits.len() {
        0 => Ok(None),
        1 => Ok(exits.pop()),
        _ => merge(ctx, exits, join).map(Some),
    }
}

/// `exit`, moved by a branch into a new block when blocks were made after it (a then arm
/// whose else arm escapes: the else arm's blocks follow the then arm's end), so that the
/// code selected next, whose conditional branches fall through to the block made next, is in
/// the last block.
fn to_last_block(ctx: &mut Ctx<'_>, exit: Exit) -> Exit {
    if exit.block as usize + 1 == ctx.mir.blocks.len() {
        return exit;
    }
    let b = ctx.new_block();
    end_block(ctx, exit.block, true);
    link(ctx, exit.block, b);
    ctx.mir.add_logical_edge(exit.block, b);
    ctx.cur = b;
    ctx.marker(Opcode::PLogicalStart);
    Exit { block: b, ..exit }
}

/// Joins the exits of uniform control flow into a new block with phis for `join`'s
/// parameters: `p_phi` for VGPR values, `p_linear_phi` for SGPR values and lane masks (every
/// lane comes from the same exit, so whole masks are merged).
fn merge(ctx: &mut Ctx<'_>, mut exits: Vec<Exit>, join: Block) -> Result<Exit, IselError> {
    let params = param_kinds(ctx, join)?;
    let ops = exits.iter_mut().map(|e| exit_operands(ctx, e, &params, &[])).collect::<Result<Vec<_>, _>>()?;
    let m = ctx.new_block();
    for e in &exits {
        end_block(ctx, e.block, true);
        link(ctx, e.block, m);
        ctx.mir.add_logical_edge(e.block, m);
    }
    ctx.cur = m;
    let flows: Vec<&Flow> = exits.iter().map(|e| &e.flow).collect();
    ctx.masks.flow = exec_mask::merge(ctx, &flows);
    let args = params
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let (rc, opcode) = match p {
                Param::Reg(rc) if rc.ty == RegType::Vgpr => (rc, Opcode::PPhi),
                Param::Reg(rc) => (rc, Opcode::PLinearPhi),
                Param::Mask => (ctx.lm(), Opcode::PLinearPhi),
            };
            let srcs: Ops = ops.iter().map(|o| o[i]).collect();
            Val::Temp(phi(ctx, opcode, rc, &srcs))
        })
        .collect();
    ctx.marker(Opcode::PLogicalStart);
    Ok(Exit { block: m, args, flow: ctx.masks.flow.clone() })
}

// ---- Two-way branches and chains ----

/// A two-way branch from the current block; returns the exits at `join`.
fn two_way(ctx: &mut Ctx<'_>, c: Cond, then: Body, other: Body, join: Option<Block>) -> Result<Vec<Exit>, IselError> {
    match c {
        Cond::Scalar(v) => uniform_if(ctx, v, then, other, join),
        Cond::Lanes(m) => divergent_if(ctx, m, then, other, join),
    }
}

/// A chain of branches from the current block: the first arm whose condition holds, else
/// `default`.
pub(super) fn chain(
    ctx: &mut Ctx<'_>,
    mut arms: Vec<(Cond, Edge)>,
    default: Edge,
    join: Option<Block>,
) -> Result<Vec<Exit>, IselError> {
    if arms.is_empty() {
        return arrive_all(ctx, default, join);
    }
    let (c, e) = arms.remove(0);
    two_way(ctx, c, Body::Edge(e), Body::Chain(arms, default), join)
}

/// Selects one arm of a branch in a new block, until `stop`.
fn arm(ctx: &mut Ctx<'_>, body: Body, stop: Option<Block>) -> Result<(u32, Vec<Exit>), IselError> {
    let first = ctx.new_block();
    ctx.cur = first;
    ctx.marker(Opcode::PLogicalStart);
    let exits = match body {
        Body::Edge(e) => arrive_all(ctx, e, stop)?,
        Body::Chain(arms, default) => chain(ctx, arms, default, stop)?,
    };
    Ok((first, exits))
}

/// A uniform branch: a scalar branch on SCC to the else arm, the then arm falling through.
/// Returns the exits of both arms.
fn uniform_if(ctx: &mut Ctx<'_>, c: Val, then: Body, other: Body, join: Option<Block>) -> Result<Vec<Exit>, IselError> {
    let scc = ctx.scc_of_val(c)?;
    ctx.marker(Opcode::PLogicalEnd);
    let branch = ctx.cur;
    ctx.emit(mir::Inst::new(Opcode::PCbranchScc0, &[], &[Operand::fixed(scc, PhysReg::SCC)]));
    let flow = ctx.masks.flow.clone();
    let (then_first, mut exits) = arm(ctx, then, join)?;
    ctx.masks.flow = flow;
    let (else_first, else_exits) = arm(ctx, other, join)?;
    exits.extend(else_exits);
    set_target(ctx, branch, else_first);
    for to in [else_first, then_first] {
        ctx.mir.add_linear_edge(branch, to);
        ctx.mir.add_logical_edge(branch, to);
    }
    Ok(exits)
}

/// A divergent branch (see the module comment for the blocks). Returns the exit at the join,
/// EXEC restored, with phis for the join's parameters; none without a join.
fn divergent_if(
    ctx: &mut Ctx<'_>,
    mask: Temp,
    then: Body,
    other: Body,
    join: Option<Block>,
) -> Result<Vec<Exit>, IselError> {
    let params = match join {
        Some(j) => param_kinds(ctx, j)?,
        None => SmallVec::new(),
    };
    if let Some(j) = join.filter(|_| params.iter().any(|p| matches!(p, Param::Reg(rc) if rc.is_sgpr()))) {
        return Err(ctx.control_flow(j, "a uniform parameter of a divergent join"));
    }
    let compact = params.is_empty() && join.is_some() && matches!(&other, Body::Edge(e) if Some(e.block) == join);
    let if_block = ctx.cur;
    ctx.marker(Opcode::PLogicalEnd);
    let saved = exec_mask::begin_if(ctx, mask);
    exec_mask::branch_if_no_lanes(ctx);
    let level = exec_mask::push_if(ctx, saved);
    ctx.divergent_depth += 1;
    let accs: SmallVec<[Option<usize>; 4]> =
        params.iter().map(|&p| (p == Param::Mask).then(|| exec_mask::new_slot(ctx, None))).collect();
    let if_flow = ctx.masks.flow.clone();

    let (then_first, then_exits) = arm(ctx, then, join)?;
    let mut then_exit = match join {
        Some(j) => one_exit(ctx, then_exits, j)?,
        None => None,
    };
    let then_ops = match then_exit.as_mut() {
        Some(e) => Some(exit_operands(ctx, e, &params, &accs)?),
        None => None,
    };
    let skip_then = ctx.new_block();
    set_target(ctx, if_block, skip_then);
    ctx.mir.add_linear_edge(if_block, skip_then);
    ctx.mir.add_linear_edge(if_block, then_first);
    ctx.mir.add_logical_edge(if_block, then_first);
    end_block(ctx, skip_then, false);
    let mut incoming: Vec<(u32, Flow)> = Vec::new();
    if let Some(e) = &then_exit {
        end_block(ctx, e.block, true);
        incoming.push((e.block, e.flow.clone()));
    }
    incoming.push((skip_then, if_flow));
    incoming.extend(std::mem::take(&mut ctx.masks.stack[level].jumps).into_iter().map(|j| (j.block, j.flow)));

    if compact {
        // If-then: the lanes that skip the then arm wait at the join.
        ctx.divergent_depth -= 1;
        let endif = land_from(ctx, incoming);
        if let Some(e) = &then_exit {
            ctx.mir.add_logical_edge(e.block, endif);
        }
        ctx.mir.add_logical_edge(if_block, endif);
        exec_mask::set_exec(ctx, saved_left(ctx, level));
        pop_at(ctx, endif);
        ctx.marker(Opcode::PLogicalStart);
        return Ok(vec![Exit { block: endif, args: SmallVec::new(), flow: ctx.masks.flow.clone() }]);
    }

    let invert = land_from(ctx, incoming);
    let left = saved_left(ctx, level);
    match join {
        Some(_) => exec_mask::invert(ctx, left),
        None => {
            // Every lane of the then arm escaped: the else lanes are the saved ones left.
            exec_mask::set_exec(ctx, left);
            exec_mask::pop(ctx);
        }
    }
    exec_mask::branch_if_no_lanes(ctx);
    let invert_flow = ctx.masks.flow.clone();
    let (else_first, else_exits) = arm(ctx, other, join)?;
    ctx.mir.add_logical_edge(if_block, else_first);
    let skip_else = ctx.new_block();
    set_target(ctx, invert, skip_else);
    ctx.mir.add_linear_edge(invert, skip_else);
    ctx.mir.add_linear_edge(invert, else_first);
    ctx.cur = skip_else;
    ctx.masks.flow = invert_flow.clone();
    let Some(j) = join else {
        // No lane of the else arm: on to the enclosing restore point.
        exec_mask::jump_to_restore(ctx);
        ctx.divergent_depth -= 1;
        return Ok(Vec::new());
    };
    ctx.marker(Opcode::PBranch);
    let mut else_exit = one_exit(ctx, else_exits, j)?;
    let else_ops = match else_exit.as_mut() {
        Some(e) => Some(exit_operands(ctx, e, &params, &accs)?),
        None => None,
    };
    let mut incoming: Vec<(u32, Flow)> = Vec::new();
    if let Some(e) = &else_exit {
        end_block(ctx, e.block, true);
        incoming.push((e.block, e.flow.clone()));
    }
    incoming.push((skip_else, invert_flow));
    incoming.extend(std::mem::take(&mut ctx.masks.stack[level].jumps).into_iter().map(|j| (j.block, j.flow)));
    ctx.divergent_depth -= 1;
    let endif = land_from(ctx, incoming);
    let exits: Vec<(u32, &Ops)> = [(&then_exit, &then_ops), (&else_exit, &else_ops)]
        .into_iter()
        .filter_map(|(e, o)| Some((e.as_ref()?.block, o.as_ref()?)))
        .collect();
    for &(b, _) in &exits {
        ctx.mir.add_logical_edge(b, endif);
    }
    let mut args: Args = params
        .iter()
        .enumerate()
        .map(|(i, &p)| match p {
            Param::Reg(rc) => {
                let srcs: Ops = exits.iter().map(|(_, o)| o[i]).collect();
                Val::Temp(phi(ctx, Opcode::PPhi, rc, &srcs))
            }
            Param::Mask => Val::None,
        })
        .collect();
    for (i, acc) in accs.iter().enumerate() {
        if let Some(slot) = *acc {
            args[i] = Val::Temp(carried_mask(ctx, exec_mask::get(ctx, slot)));
        }
    }
    exec_mask::set_exec(ctx, saved_left(ctx, level));
    pop_at(ctx, endif);
    ctx.marker(Opcode::PLogicalStart);
    Ok(vec![Exit { block: endif, args, flow: ctx.masks.flow.clone() }])
}

/// The lanes of the divergent if at construct `level` that have not escaped (returned, or
/// left a loop around it) by now: the saved EXEC, minus the lanes [`exec_mask::leave`] took
/// out of it on the paths that reach the current block. At the join they are EXEC: an arm
/// that ends in an escape arrives there with the escaping lanes still in EXEC.
fn saved_left(ctx: &Ctx<'_>, level: usize) -> Temp {
    let Kind::If { saved: slot } = ctx.masks.stack[level].kind else { unreachable!("an if construct") };
    exec_mask::get(ctx, slot).expect("the saved mask is defined")
}

// ---- Escapes ----

/// A `ret` (or `unreachable`): the lanes of EXEC are done.
fn leave_kernel(ctx: &mut Ctx<'_>) {
    ctx.marker(Opcode::PLogicalEnd);
    if exec_mask::leave(ctx, Leave::Return) {
        ctx.marker(Opcode::SEndpgm);
    } else {
        exec_mask::jump_to_restore(ctx);
    }
}

// ---- Switches and same-target branches ----

/// The arms of a `switch` as a chain: one per target block other than the default's (its
/// cases' compares or-ed), each with its arguments chosen per lane among its cases; the
/// default last, taking the cases that go to its block too.
fn switch_arms(
    ctx: &mut Ctx<'_>,
    block: Block,
    arg: Value,
    cases: &[u64],
    dests: &[BlockCall],
) -> Result<(Vec<(Cond, Edge)>, Edge), IselError> {
    let ty = ctx.func.dfg.value_type(arg);
    if ty.bits() != 32 {
        return Err(ctx.unsupported(format!("a switch on {ty} (only 32-bit values so far)")));
    }
    let divergent = ctx.div.is_branch_divergent(block);
    let v = ctx.operand(arg)?;
    let default = edge(ctx, &dests[0])?;
    // Per target: the (condition, edge) of each case, in case order.
    let mut groups: Vec<Vec<(Cond, Edge)>> = Vec::new();
    let mut to_default: Vec<(Cond, Edge)> = Vec::new();
    for (&k, call) in cases.iter().zip(&dests[1..]) {
        let k = Operand::constant((k & ty.mask()) as u32);
        let c = if divergent {
            let m = ctx.temp(ctx.lm());
            ctx.valu(Opcode::VCmpEqU32, &[Def::temp(m)], &[k, v]);
            Cond::Lanes(m)
        } else {
            Cond::Scalar(Val::Cmp { op: Opcode::SCmpEqU32, args: [v, k] })
        };
        let e = edge(ctx, call)?;
        if e.block == default.block {
            to_default.push((c, e));
        } else if let Some(g) = groups.iter_mut().find(|g| g[0].1.block == e.block) {
            g.push((c, e));
        } else {
            groups.push(vec![(c, e)]);
        }
    }
    let default = choose(ctx, to_default, default)?;
    let mut arms = Vec::with_capacity(groups.len());
    for mut g in groups {
        let conds: Vec<Cond> = g.iter().map(|(c, _)| *c).collect();
        let (_, last) = g.pop().expect("a group has a case");
        let e = choose(ctx, g, last)?;
        arms.push((any_of(ctx, &conds)?, e));
    }
    Ok((arms, default))
}

/// The edge of the first of `cases` whose condition holds, else `last`: arguments chosen per
/// lane (all the edges go to one block).
fn choose(ctx: &mut Ctx<'_>, cases: Vec<(Cond, Edge)>, mut last: Edge) -> Result<Edge, IselError> {
    for (c, e) in cases.into_iter().rev() {
        let params = param_kinds(ctx, e.block)?;
        for (i, &p) in params.iter().enumerate() {
            if e.args[i] != last.args[i] {
                last.args[i] = select_val(ctx, c, e.args[i], last.args[i], p)?;
            }
        }
    }
    Ok(last)
}

/// Whether any of `conds` holds.
fn any_of(ctx: &mut Ctx<'_>, conds: &[Cond]) -> Result<Cond, IselError> {
    let mut acc = conds[0];
    for &c in &conds[1..] {
        acc = match (acc, c) {
            (Cond::Lanes(a), Cond::Lanes(b)) => {
                let m = ctx.temp(ctx.lm());
                let op = if ctx.wave == 64 { Opcode::SOrB64 } else { Opcode::SOrB32 };
                ctx.salu(op, &[Def::temp(m), Ctx::scc_clobber()], &[Operand::temp(a), Operand::temp(b)]);
                Cond::Lanes(m)
            }
            (Cond::Scalar(a), Cond::Scalar(b)) => {
                let (x, y) = (ctx.as_class(a, RegClass::S1)?, ctx.as_class(b, RegClass::S1)?);
                let s = ctx.temp(RegClass::S1);
                ctx.salu(Opcode::SOrB32, &[Def::temp(s), Ctx::scc_clobber()], &[Operand::temp(x), Operand::temp(y)]);
                Cond::Scalar(Val::Temp(s))
            }
            _ => unreachable!("a switch's conditions are all of one kind"),
        };
    }
    Ok(acc)
}

/// `brif c, b(x..), b(y..)`: one edge to `b` with the arguments chosen per lane.
fn same_target(ctx: &mut Ctx<'_>, block: Block, cond: Value, dests: &[BlockCall; 2]) -> Result<Edge, IselError> {
    let c = cond_of(ctx, block, cond)?;
    let (t, f) = (edge(ctx, &dests[0])?, edge(ctx, &dests[1])?);
    choose(ctx, vec![(c, t)], f)
}

/// `c ? t : f` for a parameter of kind `p`.
pub(super) fn select_val(ctx: &mut Ctx<'_>, c: Cond, t: Val, f: Val, p: Param) -> Result<Val, IselError> {
    let mask = |ctx: &mut Ctx<'_>| match c {
        Cond::Lanes(m) => Ok(m),
        Cond::Scalar(v) => ctx.mask_of_val(v),
    };
    match p {
        Param::Mask => {
            let (m, a, b) = (mask(ctx)?, mask_temp(ctx, t)?, mask_temp(ctx, f)?);
            let (and, andn2, or) = if ctx.wave == 64 {
                (Opcode::SAndB64, Opcode::SAndn2B64, Opcode::SOrB64)
            } else {
                (Opcode::SAndB32, Opcode::SAndn2B32, Opcode::SOrB32)
            };
            let lm = ctx.lm();
            let (x, y, r) = (ctx.temp(lm), ctx.temp(lm), ctx.temp(lm));
            ctx.salu(and, &[Def::temp(x), Ctx::scc_clobber()], &[Operand::temp(a), Operand::temp(m)]);
            ctx.salu(andn2, &[Def::temp(y), Ctx::scc_clobber()], &[Operand::temp(b), Operand::temp(m)]);
            ctx.salu(or, &[Def::temp(r), Ctx::scc_clobber()], &[Operand::temp(x), Operand::temp(y)]);
            Ok(Val::Temp(r))
        }
        Param::Reg(rc) if rc.ty == RegType::Vgpr => {
            let m = mask(ctx)?;
            let (a, b) = (ctx.as_class(t, rc)?, ctx.as_class(f, rc)?);
            let dwords =
                |ctx: &mut Ctx<'_>, x: Temp| if x.rc.size == 1 { SmallVec::from_elem(x, 1) } else { ctx.split(x) };
            let (a, b) = (dwords(ctx, a), dwords(ctx, b));
            let parts: SmallVec<[Operand; 4]> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    let v = ctx.temp(RegClass::V1);
                    ctx.valu(
                        Opcode::VCndmaskB32,
                        &[Def::temp(v)],
                        &[Operand::temp(y), Operand::temp(x), Operand::temp(m)],
                    );
                    Operand::temp(v)
                })
                .collect();
            Ok(Val::Temp(if rc.size == 1 {
                parts[0].temp_of().expect("a temporary")
            } else {
                ctx.create_vector(rc, &parts)
            }))
        }
        Param::Reg(rc) => {
            let Cond::Scalar(v) = c else {
                return Err(ctx.unsupported("a uniform value chosen by a divergent condition"));
            };
            let scc = ctx.scc_of_val(v)?;
            let (a, b) = (ctx.as_class(t, rc)?, ctx.as_class(f, rc)?);
            let op = if rc.size == 2 { Opcode::SCselectB64 } else { Opcode::SCselectB32 };
            let r = ctx.temp(rc);
            ctx.emit(mir::Inst::new(
                op,
                &[Def::temp(r)],
                &[Operand::temp(a), Operand::temp(b), Operand::fixed(scc, PhysReg::SCC)],
            ));
            Ok(Val::Temp(r))
        }
    }
}

// ---- Values at block boundaries ----

/// The edge of a branch target, its arguments selected (lane masks for lane-mask parameters).
fn edge(ctx: &mut Ctx<'_>, call: &BlockCall) -> Result<Edge, IselError> {
    let params = &ctx.func.dfg.blocks[call.block].params;
    let mut args = Args::new();
    for (&p, &a) in params.iter().zip(&call.args) {
        args.push(if param_kind(ctx, p)? == Param::Mask { Val::Temp(ctx.lane_mask_of(a)?) } else { ctx.val(a)? });
    }
    Ok(Edge { block: call.block, args })
}

/// What a branch of `block` on `cond` decides on.
fn cond_of(ctx: &mut Ctx<'_>, block: Block, cond: Value) -> Result<Cond, IselError> {
    Ok(if ctx.div.is_branch_divergent(block) {
        Cond::Lanes(ctx.lane_mask_of(cond)?)
    } else {
        Cond::Scalar(ctx.val(cond)?)
    })
}

/// Binds `block`'s parameters to `args` (entered from one edge): a divergent parameter given
/// a uniform value gets it in VGPRs.
fn bind_params(ctx: &mut Ctx<'_>, block: Block, args: &[Val]) -> Result<(), IselError> {
    let params = ctx.func.dfg.blocks[block].params.clone();
    for (&p, &val) in params.iter().zip(args) {
        let val = match (param_kind(ctx, p)?, val) {
            (Param::Reg(rc), Val::Temp(t)) if rc.ty == RegType::Vgpr && t.rc.is_sgpr() => {
                Val::Temp(ctx.as_class(val, rc)?)
            }
            _ => val,
        };
        ctx.set(p, val);
    }
    Ok(())
}

/// How parameter `p` lives.
pub(super) fn param_kind(ctx: &Ctx<'_>, p: Value) -> Result<Param, IselError> {
    let divergent = ctx.div.is_divergent(p);
    let ty = ctx.func.dfg.value_type(p);
    if divergent && ty == Type::I1 {
        return Ok(Param::Mask);
    }
    class_for(ty, divergent, ctx.wave).map(Param::Reg).ok_or_else(|| {
        let what = format!("a {} block parameter of type {ty}", if divergent { "divergent" } else { "uniform" });
        match ctx.func.dfg.values[p].def {
            frontend_ir::ValueDef::Param(b, _) => ctx.control_flow(b, what),
            _ => IselError::ControlFlow {
                func: ctx.func.name.clone(),
                block: String::new(),
                what,
                loc: frontend_ir::SourceLoc::NONE,
            },
        }
    })
}

/// How the parameters of `block` live.
pub(super) fn param_kinds(ctx: &Ctx<'_>, block: Block) -> Result<SmallVec<[Param; 4]>, IselError> {
    ctx.func.dfg.blocks[block].params.iter().map(|&p| param_kind(ctx, p)).collect()
}

/// The exit's arguments as phi operands, converted at the end of the exit block's logical
/// part (see [`operands`]).
fn exit_operands(
    ctx: &mut Ctx<'_>,
    exit: &mut Exit,
    params: &[Param],
    accs: &[Option<usize>],
) -> Result<Ops, IselError> {
    let (cur, flow) = (ctx.cur, std::mem::replace(&mut ctx.masks.flow, exit.flow.clone()));
    ctx.cur = exit.block;
    let result = operands(ctx, params, &exit.args, accs);
    exit.flow = std::mem::replace(&mut ctx.masks.flow, flow);
    ctx.cur = cur;
    result
}

/// The arguments `args` of parameters `params` as phi operands, in the current block: values
/// in their parameter's class, lane masks as masks, each also accumulated into its slot in
/// `accs` if it has one (EXEC being the lanes that pass them).
pub(super) fn operands(
    ctx: &mut Ctx<'_>,
    params: &[Param],
    args: &[Val],
    accs: &[Option<usize>],
) -> Result<Ops, IselError> {
    let mut ops = Ops::new();
    for (i, (&p, &val)) in params.iter().zip(args).enumerate() {
        ops.push(match p {
            Param::Reg(rc) => Operand::temp(ctx.as_class(val, rc)?),
            Param::Mask => {
                let m = mask_temp(ctx, val)?;
                if let Some(slot) = accs.get(i).copied().flatten() {
                    exec_mask::accumulate(ctx, slot, m);
                }
                Operand::temp(m)
            }
        });
    }
    Ok(ops)
}

/// A value known to be a lane mask (or a uniform boolean, made one).
pub(super) fn mask_temp(ctx: &mut Ctx<'_>, val: Val) -> Result<Temp, IselError> {
    match val {
        Val::Temp(t) if t.rc == ctx.lm() => Ok(t),
        _ => ctx.mask_of_val(val),
    }
}

/// A carried mask as a temporary (no lanes if undefined: no edge set it).
pub(super) fn carried_mask(ctx: &mut Ctx<'_>, c: Carried) -> Temp {
    c.unwrap_or_else(|| exec_mask::no_lanes(ctx))
}

/// An undefined operand of class `rc`.
pub(super) fn undef(rc: RegClass) -> Operand {
    Operand { kind: OperandKind::Undef(rc), reg: None, kill: false }
}

/// A phi of class `rc` in the current block.
pub(super) fn phi(ctx: &mut Ctx<'_>, opcode: Opcode, rc: RegClass, ops: &[Operand]) -> Temp {
    let t = ctx.temp(rc);
    ctx.emit(mir::Inst::new(opcode, &[Def::temp(t)], ops));
    t
}

// ---- Blocks ----

/// Ends `block` with a branch whose target is set later (after its logical part, if
/// `logical`).
fn end_block(ctx: &mut Ctx<'_>, block: u32, logical: bool) {
    let saved = ctx.cur;
    ctx.cur = block;
    if logical {
        ctx.marker(Opcode::PLogicalEnd);
    }
    ctx.marker(Opcode::PBranch);
    ctx.cur = saved;
}

/// Points the branch ending `from` at `to`, on the linear CFG. The target is the block's first
/// linear successor: a conditional branch whose fallthrough is known first (an early break's,
/// [`loops::break_early`]) gets its target in front of it.
pub(super) fn link(ctx: &mut Ctx<'_>, from: u32, to: u32) {
    set_target(ctx, from, to);
    ctx.mir.add_linear_edge(from, to);
    let succs = &mut ctx.mir.blocks[from as usize].linear_succs;
    succs.rotate_right(1);
}

/// A new block where the branches `jumps` go, the current one, with their flows merged.
pub(super) fn land(ctx: &mut Ctx<'_>, jumps: Vec<Jump>) -> u32 {
    land_from(ctx, jumps.into_iter().map(|j| (j.block, j.flow)).collect())
}

/// A new block where the branches ending the blocks of `incoming` go, the current one, with
/// their flows merged.
fn land_from(ctx: &mut Ctx<'_>, incoming: Vec<(u32, Flow)>) -> u32 {
    let b = ctx.new_block();
    for (from, _) in &incoming {
        link(ctx, *from, b);
    }
    ctx.cur = b;
    let flows: Vec<&Flow> = incoming.iter().map(|(_, f)| f).collect();
    ctx.masks.flow = exec_mask::merge(ctx, &flows);
    b
}

/// Closes the innermost construct at its join `block`, which is outside it.
pub(super) fn pop_at(ctx: &mut Ctx<'_>, block: u32) {
    exec_mask::pop(ctx);
    ctx.mir.blocks[block as usize].loop_depth = ctx.masks.loop_depth();
}

/// Sets the target of the branch that ends `block`.
pub(super) fn set_target(ctx: &mut Ctx<'_>, block: u32, target: u32) {
    if let Some(last) = ctx.mir.blocks[block as usize].insts.last_mut() {
        last.fields.target = Some(target);
    }
}
