//! CFG simplification: constant branches become jumps, blocks no path from the entry reaches
//! are dropped, and a block whose only predecessor jumps to it unconditionally is merged into
//! that predecessor (its parameters become the jump's arguments).
//!
//! Merging and dropping unreachable blocks leave every join of the function where it was:
//! a merged block is never a join, since its one predecessor is not a branch. Folding a
//! constant branch removes an edge, and a removed edge can move the post-dominator where the
//! lanes of a divergent branch elsewhere rejoin ([`frontend_ir::reconverge`]); so branches
//! are folded only in functions without wave operations, where no instruction can tell.

use crate::rewrite::{constant, is_wave_op, replace, resolve_operands};
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::{Block, BlockCall, Function, InstData};

/// Simplifies the CFG of `func`; true if it changed.
pub fn simplify_cfg(func: &mut Function) -> bool {
    let fold_branches = !func.insts_in_layout().any(|(_, i)| is_wave_op(&func.dfg.insts[i]));
    let mut changed = false;
    if fold_branches {
        for i in 0..func.layout.len() {
            changed |= fold_branch(func, func.layout[i]);
        }
    }
    changed |= drop_unreachable(func);
    changed | merge_chains(func)
}

/// Turns the terminator of `block` into a jump when its condition is a constant or both of
/// its targets are the same call.
fn fold_branch(func: &mut Function, block: Block) -> bool {
    let Some(term) = func.dfg.terminator(block) else { return false };
    resolve_operands(&mut func.dfg, term);
    let dfg = &func.dfg;
    let dest: BlockCall = match &dfg.insts[term] {
        InstData::Brif { cond, dests } => match constant(dfg, *cond) {
            Some(c) => dests[usize::from(c & 1 == 0)].clone(),
            None if dests[0] == dests[1] => dests[0].clone(),
            None => return false,
        },
        InstData::Switch { arg, cases, dests } => {
            let Some(c) = constant(dfg, *arg) else { return false };
            let mask = dfg.value_type(*arg).mask();
            let hit = cases.iter().position(|&k| k & mask == c & mask);
            dests[hit.map_or(0, |i| i + 1)].clone()
        }
        _ => return false,
    };
    func.dfg.insts[term] = InstData::Jump { dest };
    true
}

/// Removes from the layout the blocks the entry does not reach.
fn drop_unreachable(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::new(func);
    let mut reached: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    for &b in cfg.rpo() {
        reached[b] = true;
    }
    let before = func.layout.len();
    func.layout.retain(|&b| reached[b]);
    func.layout.len() != before
}

/// Merges each block whose only predecessor ends in a jump to it into that predecessor.
fn merge_chains(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::new(func);
    let entry = func.entry();
    // Predecessor edges per block (a branch with both targets the same block counts twice).
    let mut edges: SecondaryMap<Block, u32> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    for &b in cfg.rpo() {
        if let Some(term) = func.dfg.terminator(b) {
            for call in func.dfg.insts[term].block_calls() {
                edges[call.block] += 1;
            }
        }
    }
    let mut merged: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    let mut changed = false;
    for i in 0..func.layout.len() {
        let a = func.layout[i];
        if merged[a] {
            continue;
        }
        // `a` absorbs its successor as long as the successor qualifies; chains merge in one go.
        while let Some(term) = func.dfg.terminator(a) {
            let InstData::Jump { dest } = &func.dfg.insts[term] else { break };
            let b = dest.block;
            if b == a || Some(b) == entry || edges[b] != 1 {
                break;
            }
            resolve_operands(&mut func.dfg, term);
            let InstData::Jump { dest } = func.dfg.insts[term].clone() else { unreachable!("checked above") };
            let params = std::mem::take(&mut func.dfg.blocks[b].params);
            for (&p, &arg) in params.iter().zip(&dest.args) {
                replace(&mut func.dfg, p, arg);
            }
            let body = std::mem::take(&mut func.dfg.blocks[b].insts);
            let insts = &mut func.dfg.blocks[a].insts;
            insts.pop();
            insts.extend(body);
            merged[b] = true;
            changed = true;
        }
    }
    func.layout.retain(|&b| !merged[b]);
    changed
}
