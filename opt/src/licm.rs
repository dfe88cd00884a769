//! Loop-invariant code motion: an instruction inside a loop whose operands are all defined
//! outside it (or are themselves hoisted) computes the same value in every iteration, and
//! moves to the loop's preheader, the one block outside the loop that jumps to its header.
//!
//! What moves: instructions without effects that cannot fault and do not depend on the
//! active lanes: arithmetic (division never traps in the IR), comparisons, conversions,
//! selects, address computations, constants and the dispatch's special values; and loads in
//! the loop's header, which runs whenever the preheader does, so the load is performed on the
//! same paths as before (never one that a guard in the loop keeps in bounds): loads from
//! constant memory, and plain loads of writable memory that nothing in the loop may change
//! (no write that may reach it, no synchronization; `crate::alias`). Wave operations never
//! move (their lanes differ inside and outside the loop). A loop without a preheader is left
//! alone (a later CFG pass may give it one).
//!
//! Loops are visited inner first, so a value hoisted out of an inner loop can leave the
//! outer one too; each loop's blocks are visited once, in reverse postorder.

use crate::alias::{ClassSet, MemoryClasses};
use crate::rewrite::{is_invariant_load, is_wave_op, may_loop, preheader, resolve_operands};
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::loops::LoopAnalysis;
use frontend_ir::{Block, Function, Inst, InstData, Value};

/// Hoists the loop-invariant instructions of `func`; true if any moved.
pub fn licm(func: &mut Function) -> bool {
    if !may_loop(func) {
        return false;
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    let classes = MemoryClasses::new(func);
    let loop_clobbers = classes.loop_clobbers(func, &loops);
    // Where each instruction's result is defined now: its block, updated as it moves.
    let mut block_of: SecondaryMap<Value, Option<Block>> = SecondaryMap::with_capacity(func.dfg.values.len());
    for &b in &func.layout {
        for &p in &func.dfg.blocks[b].params {
            block_of[p] = Some(b);
        }
        for &i in &func.dfg.blocks[b].insts {
            if let Some(r) = func.dfg.inst_result(i) {
                block_of[r] = Some(b);
            }
        }
    }
    let mut changed = false;
    for lp in loops.loops().rev() {
        let Some(preheader) = preheader(func, &cfg, &loops, lp) else { continue };
        for &block in loops.blocks(lp) {
            // In the header: the classes the loop does not change.
            let stable = (block == loops.header(lp)).then(|| !loop_clobbers[lp]);
            let mut kept = Vec::with_capacity(func.dfg.blocks[block].insts.len());
            let mut hoisted = Vec::new();
            for inst in std::mem::take(&mut func.dfg.blocks[block].insts) {
                resolve_operands(&mut func.dfg, inst);
                let data = &func.dfg.insts[inst];
                let invariant = data.args().iter().all(|&a| block_of[a].is_some_and(|b| !loops.contains(lp, b)));
                if invariant && movable(func, &classes, inst, stable) {
                    if let Some(r) = func.dfg.inst_result(inst) {
                        block_of[r] = Some(preheader);
                    }
                    hoisted.push(inst);
                } else {
                    kept.push(inst);
                }
            }
            func.dfg.blocks[block].insts = kept;
            if !hoisted.is_empty() {
                let insts = &mut func.dfg.blocks[preheader].insts;
                let at = insts.len() - 1;
                insts.splice(at..at, hoisted);
                changed = true;
            }
        }
    }
    changed
}

/// Whether `inst` may run once before the loop instead of in each iteration (its operands
/// being invariant): no effect, no fault, no dependence on the active lanes or on memory
/// that may change; a load only in the header (`stable` then holds the classes the loop does
/// not change), of constant memory or of those classes.
fn movable(func: &Function, classes: &MemoryClasses, inst: Inst, stable: Option<ClassSet>) -> bool {
    let data = &func.dfg.insts[inst];
    if data.has_side_effects() || is_wave_op(data) || data.is_terminator() {
        return false;
    }
    match data {
        InstData::Load { .. } => stable.is_some_and(|stable| {
            is_invariant_load(&func.dfg, data)
                || classes.load_class(&func.dfg, inst).is_some_and(|k| stable & 1 << k != 0)
        }),
        _ => true,
    }
}
