//! Global value numbering over the dominator tree: an instruction that computes what an
//! instruction of a dominating block (or earlier in its own block) already computed, from the
//! same operands, is replaced by that earlier result.
//!
//! The candidates are the instructions without effects whose result depends only on their
//! operands: constants, arithmetic, comparisons, conversions, selects, address computations,
//! slot addresses and the dispatch's special values; and loads of constant memory (`&[T]`),
//! which nothing writes while the kernel runs. Loads of writable memory are `load_elim`'s,
//! which numbers them with the memory's version; wave operations are never merged: their
//! result depends on the lanes active where they run. Operands of commutative integer operations are ordered first, so `a + b`
//! and `b + a` get one number. The walk is a preorder of the dominator tree on an explicit
//! stack, with a scoped table whose entries are undone when the walk leaves their block:
//! linear in the function, whatever its depth.

use crate::rewrite::{
    is_commutative, is_invariant_load, is_wave_op, replace, resolve_operands, walk_dominator_tree, ScopedTable,
};
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::{Block, Function, InstData, IntCC};

/// Replaces the redundant instructions of `func`; true if there were any.
pub fn gvn(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let Some(entry) = func.entry() else { return false };
    walk_dominator_tree(func, &domtree, entry, number_block)
}

/// Numbers the instructions of `block`, removing those already in `table`.
fn number_block(
    func: &mut Function,
    block: Block,
    table: &mut ScopedTable<InstData>,
    added: &mut Vec<InstData>,
) -> bool {
    let mut insts = std::mem::take(&mut func.dfg.blocks[block].insts);
    let before = insts.len();
    insts.retain(|&inst| {
        resolve_operands(&mut func.dfg, inst);
        let Some(result) = func.dfg.inst_result(inst) else { return true };
        let data = &func.dfg.insts[inst];
        let load = matches!(data, InstData::Load { .. });
        if data.has_side_effects() || is_wave_op(data) || (load && !is_invariant_load(&func.dfg, data)) {
            return true;
        }
        let key = canonical(data.clone());
        if let Some(&earlier) = table.get(&key) {
            replace(&mut func.dfg, result, earlier);
            func.dfg.results[inst] = None.into();
            return false;
        }
        table.insert(key.clone(), result);
        added.push(key);
        true
    });
    let changed = insts.len() != before;
    func.dfg.blocks[block].insts = insts;
    changed
}

/// `data` with the operands of a commutative integer operation in a fixed order.
fn canonical(mut data: InstData) -> InstData {
    let commutative = match &data {
        InstData::Binary { op, .. } => is_commutative(*op),
        InstData::Icmp { cc, .. } => matches!(cc, IntCC::Eq | IntCC::Ne),
        _ => false,
    };
    if commutative {
        data.args_mut().sort_unstable();
    }
    data
}
