//! Redundant load elimination and store-to-load forwarding over writable memory: a plain load
//! that reads what a load of the same address and type in a dominating position already read,
//! or what a dominating store of the same address and type wrote, becomes that value, when no
//! write that may reach the address, and no synchronization, lies between them on any path
//! (the alias rules and what synchronizes are `crate::alias`'s).
//!
//! Memory is versioned per alias class, as SSA versions a variable: each write names the
//! classes it may change after itself, and a block whose predecessors disagree on a class's
//! version (a join, or a loop header whose loop may change the class) names it after itself.
//! One pass in reverse postorder finds each block's versions at entry; a back edge is
//! accounted for by what its loop may change, and any other retreating edge (irreducible
//! control flow) renames every class. A load is then numbered by its class, the class's
//! version, its address and its type, in the scoped table of a walk of the dominator tree on
//! an explicit stack, as `gvn`'s: equal numbers read equal memory, since the version's
//! definition dominates both loads and cannot run again between them. Linear in the function
//! times the classes, which are at most `crate::alias::MAX_CLASSES`.
//!
//! Loads of constant memory are `gvn`'s; volatile loads and stores, accesses with a
//! visibility scope, atomics and wave operations are never merged or forwarded.

use crate::alias::{ClassSet, MemoryClasses};
use crate::rewrite::{replace, resolve_operands, walk_dominator_tree, ScopedTable};
use cranelift_entity::EntityRef;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::loops::LoopAnalysis;
use frontend_ir::{Block, Function, Inst, InstData, Type, Value};

/// A load's number: its class, the class's version, the address and the type.
type Key = (usize, u32, Value, Type);

/// Replaces the loads of `func` that read a value already at hand; true if there were any.
pub fn load_elim(func: &mut Function) -> bool {
    let Some(entry) = func.entry() else { return false };
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    let classes = MemoryClasses::new(func);
    let versions = Versions::new(func, &cfg, &domtree, &loops, &classes);
    walk_dominator_tree(func, &domtree, entry, |func, block, table, added| {
        let mut ver = versions.at_entry(block).to_vec();
        number_block(func, block, &classes, &mut ver, table, added)
    })
}

/// Numbers the loads and stores of `block`, whose classes are at versions `ver` at its entry,
/// and removes the loads already in `table`.
fn number_block(
    func: &mut Function,
    block: Block,
    classes: &MemoryClasses,
    ver: &mut [u32],
    table: &mut ScopedTable<Key>,
    added: &mut Vec<Key>,
) -> bool {
    let mut insts = std::mem::take(&mut func.dfg.blocks[block].insts);
    let before = insts.len();
    insts.retain(|&inst| {
        resolve_operands(&mut func.dfg, inst);
        let dfg = &func.dfg;
        if let (&InstData::Load { ty, ptr, .. }, Some(class), Some(result)) =
            (&dfg.insts[inst], classes.load_class(dfg, inst), dfg.inst_result(inst))
        {
            let key = (class, ver[class], ptr, ty);
            if let Some(&earlier) = table.get(&key) {
                replace(&mut func.dfg, result, earlier);
                func.dfg.results[inst] = None.into();
                return false;
            }
            table.insert(key, result);
            added.push(key);
            return true;
        }
        renew(ver, classes.clobbers(dfg, inst), write_name(inst));
        if let (&InstData::Store { args: [ptr, value], .. }, Some(class)) =
            (&dfg.insts[inst], classes.store_class(dfg, inst))
        {
            let key = (class, ver[class], ptr, dfg.value_type(value));
            table.insert(key, value);
            added.push(key);
        }
        true
    });
    let changed = insts.len() != before;
    func.dfg.blocks[block].insts = insts;
    changed
}

/// The version of every class at the entry of every block.
struct Versions {
    classes: usize,
    /// Block by block, `classes` versions each.
    at_entry: Vec<u32>,
}

impl Versions {
    /// Finds the versions in one pass over the reachable blocks in reverse postorder.
    fn new(
        func: &Function,
        cfg: &ControlFlowGraph,
        domtree: &DominatorTree,
        loops: &LoopAnalysis,
        classes: &MemoryClasses,
    ) -> Versions {
        let n = classes.len();
        let blocks = func.dfg.blocks.len();
        let mut at_entry = vec![0; blocks * n];
        let mut at_exit = vec![0; blocks * n];
        let loop_clobbers = classes.loop_clobbers(func, loops);
        let mut ver = vec![0; n];
        for &block in domtree.rpo() {
            let here = domtree.rpo_number(block);
            let header = loops.loop_of(block).filter(|&lp| loops.header(lp) == block);
            // The classes that get this block's name: all at the entry block, and those that
            // predecessors disagree on or that a retreating edge may bring changed.
            let mut renamed: ClassSet = if Some(block) == func.entry() { !0 } else { 0 };
            let mut first = true;
            for &pred in cfg.preds(block) {
                let Some(there) = domtree.rpo_number(pred) else { continue };
                if Some(there) >= here {
                    renamed |= match header {
                        Some(lp) if loops.contains(lp, pred) => loop_clobbers[lp],
                        _ => !0,
                    };
                    continue;
                }
                let exit = &at_exit[pred.index() * n..][..n];
                if first {
                    ver.copy_from_slice(exit);
                    first = false;
                }
                for (k, &v) in exit.iter().enumerate() {
                    if ver[k] != v {
                        renamed |= 1 << k;
                    }
                }
            }
            if first {
                renamed = !0;
            }
            renew(&mut ver, renamed, phi_name(func, block));
            at_entry[block.index() * n..][..n].copy_from_slice(&ver);
            for &inst in &func.dfg.blocks[block].insts {
                renew(&mut ver, classes.clobbers(&func.dfg, inst), write_name(inst));
            }
            at_exit[block.index() * n..][..n].copy_from_slice(&ver);
        }
        Versions { classes: n, at_entry }
    }

    /// The versions at the entry of `block`.
    fn at_entry(&self, block: Block) -> &[u32] {
        &self.at_entry[block.index() * self.classes..][..self.classes]
    }
}

/// Gives the classes of `set` the version `name`.
fn renew(ver: &mut [u32], mut set: ClassSet, name: u32) {
    while set != 0 {
        if let Some(v) = ver.get_mut(set.trailing_zeros() as usize) {
            *v = name;
        }
        set &= set - 1;
    }
}

/// The version a write names after itself.
fn write_name(inst: Inst) -> u32 {
    inst.index() as u32 + 1
}

/// The version a block names after itself (after every instruction's).
fn phi_name(func: &Function, block: Block) -> u32 {
    (func.dfg.insts.len() + 1 + block.index()) as u32
}
