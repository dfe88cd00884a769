//! What the passes share: reading constants, replacing a value by another, making a new
//! instruction where an old one stands, which instructions observe the active lanes of a wave,
//! which loads read memory that never changes, a function's loops and a loop's preheader, how
//! large an instruction becomes in machine code, and the dominator-tree walk with a scoped
//! table that value numbering uses.

use foldhash::fast::FixedState;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{AddrSpace, BinaryOp, Block, DataFlowGraph, Function, Inst, InstData, Type, Value, ValueDef};
use std::collections::HashMap;
use std::hash::Hash;

/// A table of values by key whose entries live while the walk is in the block that added them
/// or below it in the dominator tree ([`walk_dominator_tree`]).
pub(crate) type ScopedTable<K> = HashMap<K, Value, FixedState>;

/// Visits the blocks of `func` in a preorder of `domtree` from `entry`, on an explicit stack (so
/// linear, whatever the depth): `visit(func, block, table, added)` may read `table` and insert
/// keys, which it lists in `added`; they leave the table when the walk leaves the block.
/// Returns whether any visit changed something.
pub(crate) fn walk_dominator_tree<K: Hash + Eq>(
    func: &mut Function,
    domtree: &DominatorTree,
    entry: Block,
    mut visit: impl FnMut(&mut Function, Block, &mut ScopedTable<K>, &mut Vec<K>) -> bool,
) -> bool {
    let mut table = ScopedTable::default();
    // The keys each open block added, to remove when the walk leaves it.
    let mut added: Vec<K> = Vec::new();
    // (block, where its keys start in `added`, whether its children were pushed).
    let mut stack: Vec<(Block, usize, bool)> = vec![(entry, 0, false)];
    let mut changed = false;
    while let Some(top) = stack.last_mut() {
        let (block, start, expanded) = *top;
        if expanded {
            for key in added.drain(start..) {
                table.remove(&key);
            }
            stack.pop();
            continue;
        }
        top.2 = true;
        top.1 = added.len();
        changed |= visit(func, block, &mut table, &mut added);
        for &child in domtree.children(block).iter().rev() {
            stack.push((child, 0, false));
        }
    }
    changed
}

/// The bits of `v` when it is an integer or float constant (integers zero-extended).
pub(crate) fn constant(dfg: &DataFlowGraph, v: Value) -> Option<u64> {
    let ValueDef::Result(inst) = dfg.values[dfg.resolve_aliases(v)].def else { return None };
    match dfg.insts[inst] {
        InstData::IntConst { imm, .. } => Some(imm),
        InstData::FloatConst { bits, .. } => Some(bits),
        _ => None,
    }
}

/// Makes `v` another name for `with`: every use of `v` reads `with` once aliases are resolved
/// (each pass resolves them as it reads operands; canonicalization removes them).
pub(crate) fn replace(dfg: &mut DataFlowGraph, v: Value, with: Value) {
    let with = dfg.resolve_aliases(with);
    if with != v {
        dfg.values[v].def = ValueDef::Alias(with);
    }
}

/// A new instruction `data` with a result of type `ty`, at the source location of `at` (the
/// instruction it comes from); not yet placed in a block. Returns it and its result.
pub(crate) fn make_at(func: &mut Function, data: InstData, ty: Type, at: Inst) -> (Inst, Value) {
    let inst = func.dfg.make_inst(data, Some(ty));
    func.set_srcloc(inst, func.srclocs[at]);
    (inst, func.dfg.inst_result(inst).expect("made with a result"))
}

/// Resolves the aliases among the operands and branch arguments of `inst`.
pub(crate) fn resolve_operands(dfg: &mut DataFlowGraph, inst: frontend_ir::Inst) {
    // Most instructions read no alias (canonicalization removes them between passes): leave
    // those untouched rather than moving their data out and back.
    let is_alias = |v: &Value| matches!(dfg.values[*v].def, ValueDef::Alias(_));
    let data = &dfg.insts[inst];
    if !data.args().iter().any(is_alias) && !data.block_calls().iter().any(|c| c.args.iter().any(is_alias)) {
        return;
    }
    let mut data = std::mem::replace(&mut dfg.insts[inst], InstData::Unreachable);
    for a in data.args_mut() {
        *a = dfg.resolve_aliases(*a);
    }
    for call in data.block_calls_mut() {
        for a in call.args.iter_mut() {
            *a = dfg.resolve_aliases(*a);
        }
    }
    dfg.insts[inst] = data;
}

/// Whether the instruction's result depends on which lanes of the wave are active (a wave
/// operation): such an instruction is neither merged with another nor moved across control
/// flow.
pub(crate) fn is_wave_op(data: &InstData) -> bool {
    matches!(
        data,
        InstData::Ballot { .. } | InstData::ReadFirstLane { .. } | InstData::Shuffle { .. } | InstData::Reduce { .. }
    )
}

/// Whether `data` is a load of memory that nothing writes while the kernel runs: constant
/// memory (a `&[T]` buffer, by the kernel language's reference rules), read without
/// `volatile` or an availability/visibility request. Its result depends only on its address,
/// like arithmetic's on its operands.
pub(crate) fn is_invariant_load(dfg: &DataFlowGraph, data: &InstData) -> bool {
    match data {
        InstData::Load { ptr, flags, .. } => {
            !flags.volatile && flags.av.is_none() && dfg.value_type(*ptr).addr_space() == Some(AddrSpace::Constant)
        }
        _ => false,
    }
}

/// Roughly how many machine instructions `data` becomes, for the passes that trade code size
/// (unrolling, if-conversion): a wave reduction is unrolled over the lanes, a division is a
/// reciprocal and its corrections, a 64-bit operation is two; constants cost nothing.
pub(crate) fn machine_size(dfg: &DataFlowGraph, data: &InstData) -> u32 {
    let wide = |v: &Value| dfg.value_type(*v).bits() == 64;
    let wide_args = data.args().first().is_some_and(wide);
    match data {
        InstData::IntConst { .. } | InstData::FloatConst { .. } => 0,
        InstData::Reduce { .. } => 96,
        InstData::Shuffle { .. } => 8,
        InstData::Binary { op: BinaryOp::Udiv | BinaryOp::Sdiv | BinaryOp::Urem | BinaryOp::Srem, .. } => {
            if wide_args {
                48
            } else {
                8
            }
        }
        InstData::Binary { op: BinaryOp::Fdiv, .. } => {
            if wide_args {
                24
            } else {
                12
            }
        }
        _ => 1 + u32::from(wide_args),
    }
}

/// Whether the integer operation `a op b` is `b op a`, bit for bit. (No float operation is:
/// which NaN comes out of two depends on their order.)
pub(crate) fn is_commutative(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Add | Mul | And | Or | Xor | Smin | Smax | Umin | Umax | UmulHi | SmulHi)
}

/// Whether `func` may have a loop: some branch goes to a block that is not after it in the
/// layout. When every branch goes forward, the layout orders the CFG and nothing repeats, so
/// the loop passes skip their analyses (most kernels without loops are small, where those
/// analyses would be much of the time).
pub(crate) fn may_loop(func: &Function) -> bool {
    let mut position = vec![u32::MAX; func.dfg.blocks.len()];
    for (k, &b) in func.layout.iter().enumerate() {
        position[b.as_u32() as usize] = k as u32;
    }
    func.layout.iter().enumerate().any(|(k, &b)| {
        func.dfg.terminator(b).is_some_and(|t| {
            func.dfg.insts[t].block_calls().iter().any(|c| position[c.block.as_u32() as usize] <= k as u32)
        })
    })
}

/// The control-flow graph and the loops of `func`, when it has a loop (the loop passes have
/// nothing to do otherwise).
pub(crate) fn loops_of(func: &Function) -> Option<(ControlFlowGraph, LoopAnalysis)> {
    func.entry()?;
    if !may_loop(func) {
        return None;
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    if loops.loops().len() == 0 {
        return None;
    }
    Some((cfg, loops))
}

/// The preheader of `lp`: the header's only predecessor outside the loop, when it ends in a
/// jump to the header.
pub(crate) fn preheader(func: &Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis, lp: Loop) -> Option<Block> {
    let header = loops.header(lp);
    let mut outside = cfg.preds(header).iter().filter(|&&p| !loops.contains(lp, p));
    let p = *outside.next()?;
    if outside.any(|&q| q != p) {
        return None;
    }
    let term = func.dfg.terminator(p)?;
    matches!(&func.dfg.insts[term], InstData::Jump { dest } if dest.block == header).then_some(p)
}
