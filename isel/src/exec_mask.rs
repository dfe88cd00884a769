//! The EXEC sequences of divergent control flow, as ACO's `aco_insert_exec_mask.cpp` emits
//! them and with the instructions LLVM uses (`SI_IF`/`SI_ELSE`/`SI_END_CF`):
//!
//! ```text
//!  if:      %saved = s_and_saveexec %cond     EXEC = EXEC & cond, the old EXEC kept
//!           p_cbranch_execz → skip            no lane takes the then arm: skip it
//!  else:    exec = s_andn2 %saved, exec       the lanes of the if that did not take it
//!           p_cbranch_execz → skip
//!  endif:   exec = s_or exec, %saved          every lane of the if again
//! ```
//!
//! `s_andn2 %saved, exec` works whether or not the then arm ran: skipped, EXEC is 0 and every
//! saved lane goes to the else arm. `s_or exec, %saved` likewise restores the saved lanes
//! from either arm (or from an arm skipped with EXEC 0). Each sequence writes SCC.
//!
//! Selection ([`crate::select`]) builds the blocks around them and calls these functions at
//! the points of the structure; once the MIR block kinds carry ACO's branch, invert and merge
//! flags, this can become a pass over selected MIR as in ACO.

use crate::select::Ctx;
use isa::mir::{Def, Inst, Operand};
use isa::opcode::Opcode;
use isa::reg::Temp;

/// Starts a divergent if in the current block: saves EXEC and keeps the lanes of `cond`.
/// Returns the saved mask.
pub(crate) fn begin_if(ctx: &mut Ctx<'_>, cond: Temp) -> Temp {
    let saved = ctx.temp(ctx.lm());
    let opcode = if ctx.wave == 64 { Opcode::SAndSaveexecB64 } else { Opcode::SAndSaveexecB32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[Def::temp(saved), exec_def, Ctx::scc_clobber()], &[Operand::temp(cond), exec]));
    saved
}

/// Starts the else arm in the current block: EXEC becomes the saved lanes not in EXEC.
pub(crate) fn invert(ctx: &mut Ctx<'_>, saved: Temp) {
    let opcode = if ctx.wave == 64 { Opcode::SAndn2B64 } else { Opcode::SAndn2B32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[exec_def, Ctx::scc_clobber()], &[Operand::temp(saved), exec]));
}

/// Ends a divergent if in the current block (the join): the saved lanes are active again.
pub(crate) fn end_if(ctx: &mut Ctx<'_>, saved: Temp) {
    let opcode = if ctx.wave == 64 { Opcode::SOrB64 } else { Opcode::SOrB32 };
    let (exec_def, exec) = (ctx.exec_def(), ctx.exec());
    ctx.emit(Inst::new(opcode, &[exec_def, Ctx::scc_clobber()], &[exec, Operand::temp(saved)]));
}

/// Ends the current block with a branch when EXEC is zero; its target is set once the
/// blocks it skips are laid out.
pub(crate) fn branch_if_no_lanes(ctx: &mut Ctx<'_>) {
    let exec = ctx.exec();
    ctx.emit(Inst::new(Opcode::PCbranchExecz, &[], &[exec]));
}
