//! If-conversion: a two-way branch whose arms are cheap straight-line code that meets again
//! at one block becomes that code run unconditionally and a `select` of what each arm passes
//! on. A divergent branch costs a dozen exec-mask instructions on the GPU (save, skip, flip,
//! restore), more than a few speculated ones; a uniform one costs a compare and a branch.
//!
//! The shapes: `brif c, T, F` where each arm is either the join `J` itself or a block whose
//! only predecessor is the branch and which ends in a jump to `J`. The arms' instructions must
//! be safe to run on every path: no effect, no load (a guard may be what keeps it in bounds),
//! no wave operation (its lanes would change), and their cost (`cost`) within a budget.
//! Nothing else about the CFG changes, so where the lanes of other branches rejoin stays as it
//! was, and the arm's instructions compute the same values (integer division is defined for
//! every operand in the IR). A block taking part in one conversion waits for the next round
//! for another, since the CFG this pass read has changed around it.

use crate::rewrite::{is_wave_op, machine_size, make_at, replace, resolve_operands};
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::{Block, BlockCall, Function, InstData, Value};
use smallvec::SmallVec;

/// The most that both arms together may cost.
const BUDGET: u32 = 8;

/// Converts the cheap branches of `func` into selects; true if any was.
pub fn if_convert(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::new(func);
    let mut touched: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    let mut removed: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    let mut changed = false;
    for bi in 0..func.layout.len() {
        let block = func.layout[bi];
        if touched[block] {
            continue;
        }
        let Some(term) = func.dfg.terminator(block) else { continue };
        let InstData::Brif { cond, dests } = &func.dfg.insts[term] else { continue };
        let (cond, dests) = (*cond, (**dests).clone());
        let Some(arms) = dests.each_ref().map(|d| arm(func, &cfg, block, d)).into_iter().collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let join = arms[0].join;
        let arm_blocks = arms.iter().filter_map(|a| a.block);
        if arms[1].join != join
            || arms[0].block.is_some() && arms[0].block == arms[1].block
            || touched[join]
            || arm_blocks.clone().any(|b| touched[b])
            || arms.iter().map(|a| a.cost).sum::<u32>() > BUDGET
        {
            continue;
        }
        // The arms' code moves before the branch, their parameters being the branch's arguments.
        let mut moved = Vec::new();
        for (a, d) in arms.iter().zip(&dests) {
            let Some(b) = a.block else { continue };
            for (&p, &v) in func.dfg.blocks[b].params.clone().iter().zip(&d.args) {
                replace(&mut func.dfg, p, v);
            }
            let insts = &func.dfg.blocks[b].insts;
            moved.extend_from_slice(&insts[..insts.len() - 1]);
            removed[b] = true;
            touched[b] = true;
        }
        let mut args = SmallVec::new();
        let mut selects = Vec::new();
        for (&t, &f) in arms[0].args.iter().zip(&arms[1].args) {
            let (t, f) = (func.dfg.resolve_aliases(t), func.dfg.resolve_aliases(f));
            if t == f {
                args.push(t);
                continue;
            }
            let ty = func.dfg.value_type(t);
            let (select, result) = make_at(func, InstData::Select { args: [cond, t, f] }, ty, term);
            selects.push(select);
            args.push(result);
        }
        func.dfg.insts[term] = InstData::Jump { dest: BlockCall { block: join, args } };
        let insts = &mut func.dfg.blocks[block].insts;
        let at = insts.len() - 1;
        insts.splice(at..at, moved.into_iter().chain(selects));
        for k in 0..func.dfg.blocks[block].insts.len() {
            let inst = func.dfg.blocks[block].insts[k];
            resolve_operands(&mut func.dfg, inst);
        }
        touched[block] = true;
        touched[join] = true;
        changed = true;
    }
    func.layout.retain(|&b| !removed[b]);
    changed
}

/// One arm of a branch: the block it runs (none when it goes straight to the join), the join,
/// the arguments it passes the join, and the cost of its instructions.
struct Arm {
    block: Option<Block>,
    join: Block,
    args: SmallVec<[Value; 4]>,
    cost: u32,
}

/// The arm `dest` of the branch ending `from`, if it has a shape and code this pass takes.
fn arm(func: &Function, cfg: &ControlFlowGraph, from: Block, dest: &BlockCall) -> Option<Arm> {
    let b = dest.block;
    if cfg.preds(b) != [from] || b == from {
        return Some(Arm { block: None, join: b, args: dest.args.clone(), cost: 0 });
    }
    let insts = &func.dfg.blocks[b].insts;
    let (&last, body) = insts.split_last()?;
    let InstData::Jump { dest: next } = &func.dfg.insts[last] else {
        // A block of its own with more than a jump: not an arm this pass takes, and not the
        // join either (the join has the other arm as a predecessor too).
        return None;
    };
    if next.block == b || next.block == from {
        return None;
    }
    let mut cost = 0;
    for &i in body {
        cost += cost_of(&func.dfg.insts[i], func)?;
    }
    Some(Arm { block: Some(b), join: next.block, args: next.args.clone(), cost })
}

/// What running `data` unconditionally costs, roughly in machine instructions; `None` when it
/// must not run on a path that did not run it before.
fn cost_of(data: &InstData, func: &Function) -> Option<u32> {
    if data.has_side_effects() || is_wave_op(data) || data.is_terminator() {
        return None;
    }
    match data {
        InstData::Load { .. } | InstData::AtomicLoad { .. } | InstData::Call { .. } => None,
        _ => Some(machine_size(&func.dfg, data)),
    }
}
