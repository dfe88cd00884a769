//! Sinking: an instruction whose value only one successor of its block needs moves into that
//! successor, off the paths that do not need it (a value computed before `if i >= n { return; }`
//! and read only after it, or only in one arm of an `if`).
//!
//! The successor must be entered only by that branch (so it runs exactly when the branch goes
//! there, with the same values and memory as at the end of the block) and must dominate every
//! use of the value. What moves: instructions without effects that do not depend on the active
//! lanes (no wave operation: the successor of a divergent branch runs on fewer lanes), and
//! loads that no instruction with effects follows in their block (memory is then the same at
//! the start of the successor). The moved instructions keep their order and go first in the
//! successor. Since a successor entered by one edge is never a loop header, nothing moves into
//! a loop; it may move out of one into an exit.
//!
//! One pass over the blocks in reverse postorder, each block's instructions last to first (so
//! an instruction whose only readers moved follows them), with the users of each value listed
//! once; an instruction moves at most one level per run, so the pass is linear.

use crate::rewrite::{is_wave_op, resolve_operands};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::{Block, Function, Inst, InstData, Value};

/// Moves the instructions of `func` that one successor alone needs into it; true if any moved.
pub fn sink(func: &mut Function) -> bool {
    if func.entry().is_none() {
        return false;
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let users = Users::new(func);
    let mut block_of: SecondaryMap<Inst, PackedOption<Block>> = SecondaryMap::with_capacity(func.dfg.insts.len());
    for &b in &func.layout {
        for &i in &func.dfg.blocks[b].insts {
            block_of[i] = b.into();
        }
    }
    let mut moved: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(func.dfg.insts.len());
    let mut targets: Vec<Block> = Vec::new();
    let mut into: Vec<Vec<Inst>> = Vec::new();
    let mut changed = false;
    for &b in cfg.rpo() {
        let Some(term) = func.dfg.terminator(b) else { continue };
        // The successors that only this branch enters, by one edge.
        targets.clear();
        let calls = func.dfg.insts[term].block_calls();
        for call in calls {
            let s = call.block;
            if calls.iter().filter(|c| c.block == s).count() == 1 && cfg.preds(s) == [b] {
                targets.push(s);
            }
        }
        if targets.is_empty() {
            continue;
        }
        into.iter_mut().for_each(Vec::clear);
        into.resize_with(targets.len(), Vec::new);
        let insts = std::mem::take(&mut func.dfg.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        let mut effect_after = false;
        // The terminator stays, and its effect is not one a load would move past.
        kept.push(term);
        for &inst in insts[..insts.len() - 1].iter().rev() {
            let data = &func.dfg.insts[inst];
            let movable = !moved[inst]
                && !data.has_side_effects()
                && !is_wave_op(data)
                && (!effect_after || !matches!(data, InstData::Load { .. }));
            effect_after |= data.has_side_effects();
            let target = func.dfg.inst_result(inst).filter(|_| movable).and_then(|r| {
                let mut uses = users.of(r).iter().map(|&u| block_of[u].expand());
                let first = uses.next()??;
                let t = targets.iter().position(|&s| domtree.dominates(s, first))?;
                uses.all(|u| u.is_some_and(|u| domtree.dominates(targets[t], u))).then_some(t)
            });
            match target {
                Some(t) => {
                    block_of[inst] = targets[t].into();
                    moved[inst] = true;
                    into[t].push(inst);
                }
                None => kept.push(inst),
            }
        }
        kept.reverse();
        func.dfg.blocks[b].insts = kept;
        for (t, list) in into.iter_mut().enumerate() {
            if !list.is_empty() {
                list.reverse();
                let s = &mut func.dfg.blocks[targets[t]].insts;
                s.splice(0..0, list.drain(..));
                changed = true;
            }
        }
    }
    changed
}

/// The instructions that read each value (as an operand or a branch argument), listed once.
struct Users {
    /// Where each value's users start in `list` (indexed by value, one past the last at the end).
    start: Vec<u32>,
    list: Vec<Inst>,
}

impl Users {
    /// The users of every value of `func`'s layout, with aliases resolved.
    fn new(func: &mut Function) -> Users {
        let n = func.dfg.values.len();
        let mut start = vec![0u32; n + 1];
        let each = |func: &Function, f: &mut dyn FnMut(Value, Inst)| {
            for bi in 0..func.layout.len() {
                let b = func.layout[bi];
                for &inst in &func.dfg.blocks[b].insts {
                    let data = &func.dfg.insts[inst];
                    for &a in data.args().iter().chain(data.block_calls().iter().flat_map(|c| c.args.iter())) {
                        f(a, inst);
                    }
                }
            }
        };
        for bi in 0..func.layout.len() {
            let b = func.layout[bi];
            for i in 0..func.dfg.blocks[b].insts.len() {
                let inst = func.dfg.blocks[b].insts[i];
                resolve_operands(&mut func.dfg, inst);
            }
        }
        each(func, &mut |v, _| start[v.as_u32() as usize + 1] += 1);
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![Inst::from_u32(0); start[n] as usize];
        each(func, &mut |v, inst| {
            let at = &mut fill[v.as_u32() as usize];
            list[*at as usize] = inst;
            *at += 1;
        });
        Users { start, list }
    }

    /// The instructions that read `v`.
    fn of(&self, v: Value) -> &[Inst] {
        let i = v.as_u32() as usize;
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}
