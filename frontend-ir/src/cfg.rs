//! The control-flow graph of a function: the successors and predecessors of every block, the
//! reverse postorder of the blocks reachable from the entry, and the exit blocks.
//!
//! The IR keeps control flow only in the block terminators, so every analysis that walks the
//! CFG backwards (dominators, post-dominators, loops, liveness) needs the predecessor lists,
//! and most of them want to visit blocks in reverse postorder, where a block comes after all its
//! dominators. [`ControlFlowGraph`] computes both once, in time linear in the number of blocks
//! and edges, and keeps them in dense side tables indexed by [`Block`]. Parallel edges (a
//! `brif` or `switch` with the same target twice) are recorded once. It reflects the function
//! when it was built: recompute it after changing the control flow.

use crate::entities::Block;
use crate::function::Function;
use crate::instructions::InstData;
use cranelift_entity::SecondaryMap;

/// A slice `start..end` of one of the flat edge arrays.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn of(self, all: &[Block]) -> &[Block] {
        &all[self.start as usize..self.end as usize]
    }
}

/// The successors and predecessors of every block of a function, its reverse postorder and its
/// exit blocks.
///
/// Only blocks in the function's layout contribute edges; a block without a terminator has no
/// successors. Successors are listed in the order of the terminator's targets, predecessors in
/// layout order of the branching blocks.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    /// Every successor list, back to back; `succ_span[b]` is the part belonging to `b`.
    succ_edges: Vec<Block>,
    succ_span: SecondaryMap<Block, Span>,
    /// Every predecessor list, back to back; `pred_span[b]` is the part belonging to `b`.
    pred_edges: Vec<Block>,
    pred_span: SecondaryMap<Block, Span>,
    rpo: Vec<Block>,
    exits: Vec<Block>,
}

impl ControlFlowGraph {
    /// Computes the control-flow graph of `func`.
    pub fn new(func: &Function) -> ControlFlowGraph {
        let mut cfg = ControlFlowGraph::default();
        // Every table sized once for the function's blocks.
        let blocks = func.dfg.blocks.len();
        cfg.succ_span.resize(blocks);
        cfg.pred_span.resize(blocks);

        // Successors, deduplicated with a "last source that added this target" marker.
        let mut added_by: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        added_by.resize(blocks);
        let mut pred_count: SecondaryMap<Block, u32> = SecondaryMap::new();
        pred_count.resize(blocks);
        // Most blocks end in a jump or a two-way branch.
        cfg.succ_edges.reserve(2 * func.layout.len());
        for &b in &func.layout {
            let start = cfg.succ_edges.len() as u32;
            if let Some(term) = func.dfg.terminator(b) {
                for call in func.dfg.insts[term].block_calls() {
                    let target = call.block;
                    if added_by[target] != Some(b) {
                        added_by[target] = Some(b);
                        cfg.succ_edges.push(target);
                        pred_count[target] += 1;
                    }
                }
            }
            cfg.succ_span[b] = Span { start, end: cfg.succ_edges.len() as u32 };
        }

        // Predecessors, by counting sort on the targets: first the spans, then the edges.
        let mut next = 0;
        for (block, &count) in pred_count.iter() {
            cfg.pred_span[block] = Span { start: next, end: next };
            next += count;
        }
        cfg.pred_edges = vec![Block::from_u32(0); next as usize];
        for &b in &func.layout {
            for &target in cfg.succ_span[b].of(&cfg.succ_edges) {
                let span = &mut cfg.pred_span[target];
                cfg.pred_edges[span.end as usize] = b;
                span.end += 1;
            }
        }

        if let Some(entry) = func.entry() {
            let mut state = SecondaryMap::new();
            state.resize(blocks);
            let mut postorder = depth_first(&[entry], |b| cfg.succs(b), &mut state, |_, _| {});
            postorder.reverse();
            cfg.rpo = postorder;
        }
        cfg.exits = cfg
            .rpo
            .iter()
            .copied()
            .filter(|&b| {
                func.dfg
                    .terminator(b)
                    .is_some_and(|t| matches!(func.dfg.insts[t], InstData::Return { .. } | InstData::Unreachable))
            })
            .collect();
        cfg
    }

    /// The distinct successors of `block`, in the order its terminator names them.
    pub fn succs(&self, block: Block) -> &[Block] {
        self.succ_span[block].of(&self.succ_edges)
    }

    /// The distinct predecessors of `block` (reachable from the entry or not), in layout order.
    pub fn preds(&self, block: Block) -> &[Block] {
        self.pred_span[block].of(&self.pred_edges)
    }

    /// The blocks reachable from the entry block, in reverse postorder of a depth-first search
    /// that visits successors in order. The entry block comes first, and every block comes
    /// before its successors except along back edges.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The reachable blocks that leave the function (ending in `ret` or `unreachable`), in
    /// reverse postorder.
    pub fn exits(&self) -> &[Block] {
        &self.exits
    }
}

/// The state of a block during [`depth_first`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Not visited yet.
    #[default]
    New,
    /// On the search stack: its descendants are being visited.
    Active,
    /// Finished (or excluded from the search by the caller).
    Done,
}

/// An iterative depth-first search from each of `roots` in turn, following `succs`, that
/// returns the blocks it finished, in postorder.
///
/// Blocks already `Active` or `Done` in `state` are not entered, so a caller can exclude blocks
/// by marking them `Done` beforehand; `state` holds the final marks afterwards. `retreating`
/// is called with each edge `(from, to)` whose target is on the search stack (a retreating
/// edge, `from == to` included). Nothing is recursive, so deep graphs cannot overflow the stack.
pub(crate) fn depth_first<'a>(
    roots: &[Block],
    succs: impl Fn(Block) -> &'a [Block],
    state: &mut SecondaryMap<Block, Visit>,
    mut retreating: impl FnMut(Block, Block),
) -> Vec<Block> {
    let mut postorder = Vec::with_capacity(16);
    // Each frame is a block on the search stack and the index of its next successor.
    let mut stack: Vec<(Block, usize)> = Vec::with_capacity(16);
    for &root in roots {
        if state[root] != Visit::New {
            continue;
        }
        state[root] = Visit::Active;
        stack.push((root, 0));
        while let Some((block, next)) = stack.last_mut() {
            let block = *block;
            match succs(block).get(*next) {
                Some(&succ) => {
                    *next += 1;
                    match state[succ] {
                        Visit::New => {
                            state[succ] = Visit::Active;
                            stack.push((succ, 0));
                        }
                        Visit::Active => retreating(block, succ),
                        Visit::Done => {}
                    }
                }
                None => {
                    state[block] = Visit::Done;
                    postorder.push(block);
                    stack.pop();
                }
            }
        }
    }
    postorder
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FuncKind, Signature};
    use crate::instructions::BlockCall;
    use crate::types::Type;

    /// A function whose blocks `0..n` are in layout order and end as `term` says:
    /// `Some(targets)` branches to the targets (jump, brif or switch by their number), `None`
    /// returns.
    fn func(terms: &[Option<&[u32]>]) -> Function {
        let mut f = Function::new("f", FuncKind::Helper, Signature::default());
        let blocks: Vec<Block> = terms.iter().map(|_| f.dfg.make_block()).collect();
        f.layout = blocks.clone();
        let cond = f.dfg.make_inst(InstData::IntConst { ty: Type::I32, imm: 1 }, Some(Type::I32));
        f.dfg.blocks[blocks[0]].insts.push(cond);
        let cond = f.dfg.inst_result(cond).unwrap();
        for (i, term) in terms.iter().enumerate() {
            let call = |t: &u32| BlockCall::new(blocks[*t as usize], &[]);
            let data = match term {
                None => InstData::Return { arg: None },
                Some([t]) => InstData::Jump { dest: call(t) },
                Some(ts) => InstData::Switch {
                    arg: cond,
                    cases: (1..ts.len() as u64).collect(),
                    dests: ts.iter().map(call).collect(),
                },
            };
            let inst = f.dfg.make_inst(data, None);
            f.dfg.blocks[blocks[i]].insts.push(inst);
        }
        f
    }

    fn b(n: u32) -> Block {
        Block::from_u32(n)
    }

    #[test]
    fn edges_rpo_and_exits() {
        // 0 -> {1, 2, 1}; 1 -> 3; 2 -> {3, 2}; 3 ret; 4 (unreachable) -> 3.
        let f = func(&[Some(&[1, 2, 1]), Some(&[3]), Some(&[3, 2]), None, Some(&[3])]);
        let cfg = ControlFlowGraph::new(&f);
        assert_eq!(cfg.succs(b(0)), &[b(1), b(2)]);
        assert_eq!(cfg.succs(b(2)), &[b(3), b(2)]);
        assert_eq!(cfg.succs(b(3)), &[]);
        assert_eq!(cfg.preds(b(0)), &[]);
        assert_eq!(cfg.preds(b(2)), &[b(0), b(2)]);
        assert_eq!(cfg.preds(b(3)), &[b(1), b(2), b(4)]);
        assert_eq!(cfg.rpo(), &[b(0), b(2), b(1), b(3)]);
        assert_eq!(cfg.exits(), &[b(3)]);
        // A block that is not in the function at all has no edges.
        assert_eq!(cfg.succs(b(17)), &[]);
        assert_eq!(cfg.preds(b(17)), &[]);
    }

    #[test]
    fn block_without_terminator_and_empty_function() {
        let mut f = func(&[Some(&[1]), None]);
        f.dfg.blocks[b(1)].insts.clear();
        let cfg = ControlFlowGraph::new(&f);
        assert_eq!(cfg.rpo(), &[b(0), b(1)]);
        assert_eq!(cfg.succs(b(1)), &[]);
        assert_eq!(cfg.exits(), &[]);

        let empty = Function::new("g", FuncKind::Helper, Signature::default());
        let cfg = ControlFlowGraph::new(&empty);
        assert!(cfg.rpo().is_empty() && cfg.exits().is_empty());
    }

    #[test]
    fn retreating_edges() {
        // 0 -> 1; 1 -> {2, 1}; 2 -> {1, 3}; 3 ret.
        let f = func(&[Some(&[1]), Some(&[2, 1]), Some(&[1, 3]), None]);
        let cfg = ControlFlowGraph::new(&f);
        let mut state = SecondaryMap::new();
        let mut found = Vec::new();
        let post = depth_first(&[b(0)], |x| cfg.succs(x), &mut state, |from, to| found.push((from, to)));
        assert_eq!(post, &[b(3), b(2), b(1), b(0)]);
        assert_eq!(found, &[(b(2), b(1)), (b(1), b(1))]);
    }
}
