//! Exec-mask insertion: the EXEC sequences of divergent control flow and the lane masks that
//! the structure carries along the linear CFG, in the manner of ACO's
//! `aco_insert_exec_mask.cpp`, but done while selecting (the control-flow selection in
//! [`crate::select`] calls these functions at the points of the structure it builds).
//!
//! ```text
//!  divergent if:  saved = s_and_saveexec cond      EXEC &= cond, the if's lanes kept in `saved`
//!                 p_cbranch_execz → skip            no lane takes the then arm
//!  else:          exec = s_andn2 saved, exec       the if's lanes that did not take it
//!  endif:         exec = s_mov saved                every lane of the if that did not escape
//!  loop entry:    entry = s_mov exec                the lanes to restore at the exit
//!  break:         active = s_andn2 active, exec     these lanes stop iterating
//!  early break:   t = s_andn2 exec, cond            a divergent branch whose arm is a plain
//!                 active = s_andn2 active, t        break: its lanes stop iterating, the
//!                 exec = s_andn2 exec, t            others go on in the other arm, no if
//!                 p_cbranch_execz → restore point
//!  latch:         exec = s_mov active               the lanes still iterating (continued ones too)
//!                 p_cbranch_execz → exit
//!  loop exit:     exec = s_mov entry                every lane that entered
//! ```
//!
//! **Constructs and slots.** Each divergent if and each loop being selected is a [`Construct`]
//! on a stack, and owns *slots*: lane masks that change along the way, such as the if's saved
//! mask, the loop's active mask, per-target break masks, and the accumulators of lane-mask
//! (divergent `i1`) block parameters. The current value of every slot is in the [`Flow`]; a
//! block where linear paths meet gets a `p_linear_phi` for each slot whose values differ, so
//! the masks are SSA temporaries like everything else.
//!
//! **Escapes.** A `continue` or `break` leaves the divergent ifs between it and its loop (the
//! innermost one: a jump out of several loops is a break to the inner loop's exit, then a
//! jump from there); a `return` leaves every construct (it is never inside a loop, whose
//! blocks all reach a back edge). If no lane waits in what it leaves (no divergent if, no
//! loop whose lanes leave in different iterations or wait for the next one), every lane still
//! alive is in EXEC and a plain branch goes to the target ([`leave`] returns `true`; a return
//! then ends the wave). Otherwise the escaping lanes (EXEC) are removed from those ifs' saved
//! masks and, for a break, from the loop's active mask (`s_andn2`); a continue marks its loop
//! as having lanes waiting at the latch; and control branches to the innermost construct's
//! *restore point* (INV of an if, its join, or the loop latch), where EXEC is set from the
//! updated masks: at INV the saved lanes left minus those that reached the join through the
//! then arm, at the join the saved lanes left. (An arm that returns on its own does not move
//! its if's join, `frontend_ir::reconverge`, so an if with a join may contain escapes.)
//!
//! **Lane-mask phis.** A divergent boolean parameter at a divergent join is merged per lane:
//! each incoming edge, with EXEC the lanes taking it, updates an accumulator slot as
//! `acc = (acc & !exec) | (value & exec)`; the parameter is the accumulator where the edges
//! meet. Every sequence writes SCC.

use crate::select::Ctx;
use isa::mir::{Def, Inst, Operand};
use isa::opcode::Opcode;
use isa::reg::Temp;
use smallvec::SmallVec;

/// A lane mask the structure carries: its temporary, or undefined (any value will do).
pub(crate) type Carried = Option<Temp>;

/// What the structure carries at one point of the linear CFG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Flow {
    /// The current value of every slot, the outermost construct's first.
    pub slots: SmallVec<[Carried; 8]>,
    /// For each construct: lanes of it (a loop) wait at its latch for the next iteration.
    pub waiting: SmallVec<[bool; 4]>,
}

/// A branch to a construct's restore point, whose target is set when that block is made.
#[derive(Clone, Debug)]
pub(crate) struct Jump {
    /// The MIR block ending in the branch.
    pub block: u32,
    /// What the structure carries there.
    pub flow: Flow,
}

/// What a construct is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A divergent if, with the slot of its saved EXEC.
    If {
        /// The saved EXEC.
        saved: usize,
    },
    /// A loop, with the lanes that entered it (restored at its exit: a return is never
    /// inside a loop, whose blocks all reach its back edges, so they all leave by its exits)
    /// and the slot of the lanes still iterating.
    Loop {
        /// The lanes that entered.
        entry: Temp,
        /// The lanes still iterating.
        active: usize,
        /// The divergence analysis proved that all lanes leave it in the same iteration.
        quiet: bool,
    },
}

/// A divergent if or a loop being selected.
#[derive(Clone, Debug)]
pub(crate) struct Construct {
    /// What it is.
    pub kind: Kind,
    /// Its first slot (its slots are the ones from here to the next construct's).
    first_slot: usize,
    /// Branches to its restore point.
    pub jumps: Vec<Jump>,
}

/// The constructs being selected, the current flow, and the branches to the end of the
/// program.
#[derive(Clone, Debug, Default)]
pub(crate) struct Masks {
    /// What the structure carries at the current point.
    pub flow: Flow,
    /// The constructs, outermost first.
    pub stack: Vec<Construct>,
    /// Branches to the block that ends the program (from paths that have no lanes left).
    pub end_jumps: Vec<Jump>,
}

impl Masks {
    /// How many loops are being selected.
    pub(crate) fn loop_depth(&self) -> u32 {
        self.stack.iter().filter(|c| matches!(c.kind, Kind::Loop { .. })).count() as u32
    }
}

/// Where an escape goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Leave {
    /// The next iteration of the loop that is construct `n`.
    Continue(usize),
    /// The exit of the loop that is construct `n`.
    Break(usize),
    /// Out of the kernel.
    Return,
}

// ---- Constructs and slots ----

/// A new slot of the innermost construct, holding `value`.
pub(crate) fn new_slot(ctx: &mut Ctx<'_>, value: Carried) -> usize {
    ctx.masks.flow.slots.push(value);
    ctx.masks.flow.slots.len() - 1
}

fn push(ctx: &mut Ctx<'_>, kind: impl FnOnce(&mut Ctx<'_>) -> Kind) -> usize {
    let first_slot = ctx.masks.flow.slots.len();
    let kind = kind(ctx);
    ctx.masks.stack.push(Construct { kind, first_slot, jumps: Vec::new() });
    ctx.masks.flow.waiting.push(false);
    ctx.masks.stack.len() - 1
}

/// Opens a divergent if whose EXEC was saved in `saved`; returns its construct index.
pub(crate) fn push_if(ctx: &mut Ctx<'_>, saved: Temp) -> usize {
    push(ctx, |ctx| Kind::If { saved: new_slot(ctx, Some(saved)) })
}

/// Opens a loop entered with EXEC `entry`; returns its construct index.
pub(crate) fn push_loop(ctx: &mut Ctx<'_>, entry: Temp, quiet: bool) -> usize {
    push(ctx, |ctx| Kind::Loop { entry, active: new_slot(ctx, Some(entry)), quiet })
}

/// Closes the innermost construct, dropping its slots.
pub(crate) fn pop(ctx: &mut Ctx<'_>) -> Construct {
    let c = ctx.masks.stack.pop().expect("a construct to close");
    ctx.masks.flow.slots.truncate(c.first_slot);
    ctx.masks.flow.waiting.pop();
    c
}

/// The current value of slot `i`.
pub(crate) fn get(ctx: &Ctx<'_>, i: usize) -> Carried {
    ctx.masks.flow.slots[i]
}

// ---- Escapes ----

/// Records that the lanes of EXEC leave for `to`, at the end of the current block's logical
/// part. Returns `true` when a direct branch to the target is right (no lane waits in the
/// constructs left); otherwise updates their masks (see the module comment) and the caller
/// branches to the innermost construct's restore point with [`jump_to_restore`].
pub(crate) fn leave(ctx: &mut Ctx<'_>, to: Leave) -> bool {
    let from = match to {
        Leave::Continue(n) | Leave::Break(n) => n + 1,
        Leave::Return => 0,
    };
    let waits = |ctx: &Ctx<'_>, n: usize| ctx.masks.flow.waiting[n];
    let target_waits = matches!(to, Leave::Continue(n) | Leave::Break(n) if waits(ctx, n));
    let divergent = target_waits
        || (from..ctx.masks.stack.len()).any(|n| match ctx.masks.stack[n].kind {
            Kind::If { .. } => true,
            Kind::Loop { quiet, .. } => !quiet || waits(ctx, n),
        });
    if !divergent {
        return true;
    }
    remove_from_constructs(ctx, from..ctx.masks.stack.len(), ctx.exec());
    match to {
        Leave::Break(n) => remove_from_constructs(ctx, n..n + 1, ctx.exec()),
        Leave::Continue(n) => ctx.masks.flow.waiting[n] = true,
        Leave::Return => {}
    }
    false
}

/// Records that the lanes of `lanes`, a part of EXEC, break out of the loop that is construct
/// `n` while the others go on: they leave the masks of the constructs inside the loop and the
/// loop's active mask, as [`leave`] takes a break's lanes out (never a direct branch, since
/// other lanes stay). EXEC is left as it is.
pub(crate) fn break_lanes(ctx: &mut Ctx<'_>, n: usize, lanes: Temp) {
    remove_from_constructs(ctx, n..ctx.masks.stack.len(), Operand::temp(lanes));
}

/// The lanes of EXEC whose bit in `mask` is `set` (`mask` may have bits outside EXEC).
pub(crate) fn exec_lanes(ctx: &mut Ctx<'_>, mask: Temp, set: bool) -> Temp {
    let (op32, op64) = if set { (Opcode::SAndB32, Opcode::SAndB64) } else { (Opcode::SAndn2B32, Opcode::SAndn2B64) };
    binary(ctx, op32, op64, ctx.exec(), Operand::temp(mask))
}

/// EXEC loses the lanes of `lanes`.
pub(crate) fn remove_from_exec(ctx: &mut Ctx<'_>, lanes: Temp) {
    let opcode = if ctx.wave == 64 { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[exec_def, Ctx::scc_clobber()], &[exec, Operand::temp(lanes)]));
}

/// Ends the current block with a branch to the innermost construct's restore point (or to
/// the end of the program), set when that block is made.
pub(crate) fn jump_to_restore(ctx: &mut Ctx<'_>) {
    ctx.marker(Opcode::PBranch);
    record_jump(ctx);
}

/// Ends the current block with a branch to the innermost construct's restore point when EXEC
/// is zero (the lanes that remain go on in the next block).
pub(crate) fn jump_to_restore_if_no_lanes(ctx: &mut Ctx<'_>) {
    branch_if_no_lanes(ctx);
    record_jump(ctx);
}

/// Records the branch ending the current block as one to the innermost construct's restore
/// point, with what the structure carries there.
fn record_jump(ctx: &mut Ctx<'_>) {
    let jump = Jump { block: ctx.cur, flow: ctx.masks.flow.clone() };
    match ctx.masks.stack.last_mut() {
        Some(c) => c.jumps.push(jump),
        None => ctx.masks.end_jumps.push(jump),
    }
}

/// The lanes of `lanes` leave the constructs `constructs`: an if's saved mask, a loop's active
/// one (`slot &= !lanes`).
fn remove_from_constructs(ctx: &mut Ctx<'_>, constructs: std::ops::Range<usize>, lanes: Operand) {
    for c in constructs {
        let slot = match ctx.masks.stack[c].kind {
            Kind::If { saved } => saved,
            Kind::Loop { active, .. } => active,
        };
        if let Some(m) = get(ctx, slot) {
            let r = binary(ctx, Opcode::SAndn2B32, Opcode::SAndn2B64, Operand::temp(m), lanes);
            ctx.masks.flow.slots[slot] = Some(r);
        }
    }
}

/// `slot = (slot & !exec) | (mask & exec)`: the lanes of EXEC take their bit from `mask`.
pub(crate) fn accumulate(ctx: &mut Ctx<'_>, slot: usize, mask: Temp) {
    let exec = ctx.exec();
    let ours = binary(ctx, Opcode::SAndB32, Opcode::SAndB64, Operand::temp(mask), exec);
    let merged = match get(ctx, slot) {
        None => ours,
        Some(old) => {
            let others = binary(ctx, Opcode::SAndn2B32, Opcode::SAndn2B64, Operand::temp(old), exec);
            binary(ctx, Opcode::SOrB32, Opcode::SOrB64, Operand::temp(others), Operand::temp(ours))
        }
    };
    ctx.masks.flow.slots[slot] = Some(merged);
}

/// `slot |= exec`.
pub(crate) fn add_exec(ctx: &mut Ctx<'_>, slot: usize) {
    let old = get(ctx, slot).map_or(Operand::constant(0), Operand::temp);
    let r = binary(ctx, Opcode::SOrB32, Opcode::SOrB64, old, ctx.exec());
    ctx.masks.flow.slots[slot] = Some(r);
}

/// A SALU operation on lane masks (the 32- or 64-bit form by the wave size).
fn binary(ctx: &mut Ctx<'_>, op32: Opcode, op64: Opcode, a: Operand, b: Operand) -> Temp {
    let r = ctx.temp(ctx.lm());
    let op = if ctx.wave == 64 { op64 } else { op32 };
    ctx.emit(Inst::new(op, &[Def::temp(r), Ctx::scc_clobber()], &[a, b]));
    r
}

// ---- Meeting paths ----

/// The flow where linear paths with `flows` meet, in the current block (whose linear
/// predecessors are those paths, in order): a `p_linear_phi` for each slot whose values
/// differ.
pub(crate) fn merge(ctx: &mut Ctx<'_>, flows: &[&Flow]) -> Flow {
    let Some(first) = flows.first() else { return ctx.masks.flow.clone() };
    let mut out = (*first).clone();
    for (i, slot) in out.slots.iter_mut().enumerate() {
        if flows.iter().all(|f| f.slots[i] == *slot) {
            continue;
        }
        let ops: SmallVec<[Operand; 4]> = flows.iter().map(|f| carried_operand(ctx, f.slots[i])).collect();
        let t = ctx.temp(ctx.lm());
        ctx.emit(Inst::new(Opcode::PLinearPhi, &[Def::temp(t)], &ops));
        *slot = Some(t);
    }
    for (i, w) in out.waiting.iter_mut().enumerate() {
        *w = flows.iter().any(|f| f.waiting[i]);
    }
    out
}

/// A carried mask as a phi operand.
pub(crate) fn carried_operand(ctx: &Ctx<'_>, c: Carried) -> Operand {
    match c {
        Some(t) => Operand::temp(t),
        None => Operand { kind: isa::mir::OperandKind::Undef(ctx.lm()), reg: None, kill: false },
    }
}

// ---- EXEC sequences ----

/// Starts a divergent if in the current block: saves EXEC and keeps the lanes of `cond`.
/// Returns the saved mask.
pub(crate) fn begin_if(ctx: &mut Ctx<'_>, cond: Temp) -> Temp {
    let saved = ctx.temp(ctx.lm());
    let opcode = if ctx.wave == 64 { Opcode::SAndSaveexecB64 } else { Opcode::SAndSaveexecB32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[Def::temp(saved), exec_def, Ctx::scc_clobber()], &[Operand::temp(cond), exec]));
    saved
}

/// Enters whole-wave mode: saves EXEC and turns every lane on. Returns the saved mask (what
/// [`set_exec`] restores). Everything written before the restore is a linear VGPR.
pub(crate) fn whole_wave(ctx: &mut Ctx<'_>) -> Temp {
    let saved = ctx.temp(ctx.lm());
    let (opcode, all) = if ctx.wave == 64 {
        (Opcode::SOrSaveexecB64, Operand::constant64(u64::MAX))
    } else {
        (Opcode::SOrSaveexecB32, Operand::constant(u32::MAX))
    };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[Def::temp(saved), exec_def, Ctx::scc_clobber()], &[all, exec]));
    saved
}

/// Starts the else arm in the current block: EXEC becomes the saved lanes not in EXEC.
pub(crate) fn invert(ctx: &mut Ctx<'_>, saved: Temp) {
    let opcode = if ctx.wave == 64 { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[exec_def, Ctx::scc_clobber()], &[Operand::temp(saved), exec]));
}

/// EXEC becomes `mask`.
pub(crate) fn set_exec(ctx: &mut Ctx<'_>, mask: Temp) {
    let opcode = if ctx.wave == 64 { Opcode::SMovB64 } else { Opcode::SMovB32 };
    ctx.emit(Inst::new(opcode, &[ctx.exec_def()], &[Operand::temp(mask)]));
}

/// A copy of EXEC.
pub(crate) fn read_exec(ctx: &mut Ctx<'_>) -> Temp {
    mask_move(ctx, ctx.exec())
}

/// A mask of no lanes.
pub(crate) fn no_lanes(ctx: &mut Ctx<'_>) -> Temp {
    mask_move(ctx, Operand::constant(0))
}

fn mask_move(ctx: &mut Ctx<'_>, src: Operand) -> Temp {
    let t = ctx.temp(ctx.lm());
    let opcode = if ctx.wave == 64 { Opcode::SMovB64 } else { Opcode::SMovB32 };
    ctx.emit(Inst::new(opcode, &[Def::temp(t)], &[src]));
    t
}

/// Ends the current block with a branch when EXEC is zero; its target is set once the
/// blocks it skips are laid out.
pub(crate) fn branch_if_no_lanes(ctx: &mut Ctx<'_>) {
    let exec = ctx.exec();
    ctx.emit(Inst::new(Opcode::PCbranchExecz, &[], &[exec]));
}
