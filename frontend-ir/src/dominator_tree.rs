//! Dominator and post-dominator trees.
//!
//! Block `a` *dominates* `b` when every path from the entry to `b` goes through `a`; `a`
//! *post-dominates* `b` when every path from `b` to a function exit goes through `a`. SSA
//! checks (a definition must dominate its uses), loop analysis and code motion need the first;
//! the reference interpreter needs the second: lanes of a wave that diverge at a branch
//! reconverge at the branching block's immediate post-dominator.
//!
//! Both trees come from one implementation of the iterative algorithm of Cooper, Harvey and
//! Kennedy ("A Simple, Fast Dominance Algorithm"), run over the reverse postorder of the CFG
//! for dominators and of the reversed CFG, rooted at a virtual exit node, for post-dominators.
//! Each tree is then numbered in preorder with subtree sizes, so that a dominance query is two
//! comparisons.

use crate::cfg::{depth_first, ControlFlowGraph, Visit};
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::SecondaryMap;

/// Marks a node whose immediate dominator is not known yet.
const UNDEF: u32 = u32::MAX;

/// A dominator tree over the nodes `0..n` of a graph, numbered in reverse postorder from the
/// root `0`: the shared core of [`DominatorTree`] and [`PostDominatorTree`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    /// The immediate dominator of each node; `idom[0] == 0`.
    idom: Vec<u32>,
    /// The preorder number of each node in the tree.
    pre: Vec<u32>,
    /// The number of nodes in the subtree of each node, itself included.
    size: Vec<u32>,
    /// The children of each node, in increasing order: `children[child_start[i]..child_start[i + 1]]`.
    children: Vec<u32>,
    child_start: Vec<u32>,
}

impl Tree {
    /// Computes the tree of `n` nodes, where `preds(i)` lists the predecessors of node `i` that
    /// are reachable from the root (as node numbers below `n`).
    pub(crate) fn new<I: Iterator<Item = u32>>(n: usize, preds: impl Fn(usize) -> I) -> Tree {
        let mut idom = vec![UNDEF; n];
        if n == 0 {
            return Tree { child_start: vec![0], ..Tree::default() };
        }
        idom[0] = 0;
        // Walks two nodes up to their nearest common dominator. Every processed node's idom has a
        // smaller number than the node, so the larger of the two can always move up.
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while a > b {
                    a = idom[a as usize];
                }
                while b > a {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..n {
                let mut new_idom = UNDEF;
                for p in preds(i) {
                    if idom[p as usize] == UNDEF {
                        continue; // not processed yet in this first pass
                    }
                    new_idom = if new_idom == UNDEF { p } else { intersect(&idom, new_idom, p) };
                }
                debug_assert_ne!(new_idom, UNDEF, "node {i} has no processed predecessor");
                if idom[i] != new_idom {
                    idom[i] = new_idom;
                    changed = true;
                }
            }
        }

        // Subtree sizes bottom-up, then preorder numbers top-down: each child gets the next free
        // range of its parent. Parents have smaller numbers than their children, so one pass in
        // each direction suffices.
        let mut size = vec![1u32; n];
        for i in (1..n).rev() {
            size[idom[i] as usize] += size[i];
        }
        let mut pre = vec![0u32; n];
        let mut next_free = vec![1u32; n];
        for i in 1..n {
            let parent = idom[i] as usize;
            pre[i] = next_free[parent];
            next_free[parent] += size[i];
            next_free[i] = pre[i] + 1;
        }

        // Children lists by counting sort on the parent.
        let mut child_start = vec![0u32; n + 1];
        for &parent in &idom[1..] {
            child_start[parent as usize + 1] += 1;
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; n - 1];
        for (i, &parent) in idom.iter().enumerate().skip(1) {
            children[fill[parent as usize] as usize] = i as u32;
            fill[parent as usize] += 1;
        }
        Tree { idom, pre, size, children, child_start }
    }

    /// Whether node `a` dominates node `b`.
    pub(crate) fn dominates(&self, a: u32, b: u32) -> bool {
        let (pre_a, pre_b) = (self.pre[a as usize], self.pre[b as usize]);
        pre_a <= pre_b && pre_b < pre_a + self.size[a as usize]
    }

    /// Where the children of node `i` are in `children` (and in any list parallel to it).
    fn child_range(&self, i: u32) -> core::ops::Range<usize> {
        self.child_start[i as usize] as usize..self.child_start[i as usize + 1] as usize
    }

    /// The children lists translated to blocks (parallel to `children`). The root is nobody's
    /// child, so `block_of` is only asked about nodes that are blocks.
    fn block_children(&self, block_of: impl Fn(u32) -> Block) -> Vec<Block> {
        self.children.iter().map(|&c| block_of(c)).collect()
    }
}

/// The dominator tree of a function's blocks reachable from the entry.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    tree: Tree,
    /// The block of each node (node numbers are reverse-postorder numbers).
    rpo: Vec<Block>,
    /// The node number of each reachable block.
    node: SecondaryMap<Block, Option<u32>>,
    /// The children of every node as blocks, parallel to `tree.children`.
    children: Vec<Block>,
}

impl DominatorTree {
    /// Computes the dominator tree of `func`, whose control-flow graph is `cfg`.
    pub fn new(func: &Function, cfg: &ControlFlowGraph) -> DominatorTree {
        debug_assert_eq!(cfg.rpo().first().copied(), func.entry(), "the CFG is not this function's");
        let rpo = cfg.rpo().to_vec();
        let mut node = SecondaryMap::new();
        for (i, &b) in rpo.iter().enumerate() {
            node[b] = Some(i as u32);
        }
        let tree = Tree::new(rpo.len(), |i| cfg.preds(rpo[i]).iter().filter_map(|&p| node[p]));
        let children = tree.block_children(|i| rpo[i as usize]);
        DominatorTree { tree, rpo, node, children }
    }

    /// The immediate dominator of `block`: `None` for the entry block and unreachable blocks.
    pub fn idom(&self, block: Block) -> Option<Block> {
        let i = self.node[block]?;
        (i != 0).then(|| self.rpo[self.tree.idom[i as usize] as usize])
    }

    /// Whether `block` is reachable from the entry block.
    pub fn is_reachable(&self, block: Block) -> bool {
        self.node[block].is_some()
    }

    /// Whether `a` dominates `b`, in constant time. A block dominates itself; otherwise both
    /// blocks must be reachable (an unreachable block dominates nothing and is dominated by
    /// nothing).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        match (self.node[a], self.node[b]) {
            _ if a == b => true,
            (Some(a), Some(b)) => self.tree.dominates(a, b),
            _ => false,
        }
    }

    /// Whether `a` dominates `b` and is a different block.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The blocks whose immediate dominator is `block`, in reverse postorder (empty for an
    /// unreachable block).
    pub fn children(&self, block: Block) -> &[Block] {
        match self.node[block] {
            Some(i) => &self.children[self.tree.child_range(i)],
            None => &[],
        }
    }

    /// The position of `block` in the CFG's reverse postorder (0 for the entry block), or
    /// `None` if it is unreachable. A block's dominators all have smaller numbers.
    pub fn rpo_number(&self, block: Block) -> Option<u32> {
        self.node[block]
    }

    /// The reachable blocks in the CFG's reverse postorder, in which every block comes after
    /// its dominators.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }
}

/// The post-dominator tree of a function's blocks reachable from the entry.
///
/// It is the dominator tree of the reversed CFG, rooted at a virtual exit node into which every
/// exit block (ending in `ret` or `unreachable`) flows. A block that cannot reach any exit (it
/// only leads into an infinite loop) has the virtual exit as its immediate post-dominator, and
/// no block but itself post-dominates it. Such blocks do not change the post-dominators of the
/// blocks that can reach an exit: only paths that end at an exit count, so a branch with one arm
/// into an infinite loop is post-dominated by the other arm (unlike LLVM, which adds fake exit
/// edges out of infinite loops). The immediate post-dominator of a branch is thus the first block
/// that every lane leaving the branch passes through again, if it finishes at all.
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    tree: Tree,
    /// The block of each node; node 0 is the virtual exit, then the blocks that reach an exit in
    /// reverse postorder of the reversed CFG.
    blocks: Vec<Option<Block>>,
    /// The node number of each block that can reach an exit.
    node: SecondaryMap<Block, Option<u32>>,
    /// The children of every node as blocks, parallel to `tree.children`.
    children: Vec<Block>,
    /// The blocks immediately post-dominated by the virtual exit: first those that can reach an
    /// exit, then those that cannot.
    roots: Vec<Block>,
}

impl PostDominatorTree {
    /// Computes the post-dominator tree of `func`, whose control-flow graph is `cfg`.
    pub fn new(func: &Function, cfg: &ControlFlowGraph) -> PostDominatorTree {
        // Search the reversed CFG from the exits, keeping out the blocks that are unreachable from
        // the entry: they are not part of the analysis.
        let mut state: SecondaryMap<Block, Visit> = SecondaryMap::new();
        let mut reachable: SecondaryMap<Block, bool> = SecondaryMap::new();
        for &b in cfg.rpo() {
            reachable[b] = true;
        }
        for &b in &func.layout {
            if !reachable[b] {
                state[b] = Visit::Done;
            }
        }
        let postorder = depth_first(cfg.exits(), |b| cfg.preds(b), &mut state, |_, _| {});
        let mut blocks = Vec::with_capacity(postorder.len() + 1);
        blocks.push(None);
        blocks.extend(postorder.iter().rev().map(|&b| Some(b)));
        let mut node: SecondaryMap<Block, Option<u32>> = SecondaryMap::new();
        let mut is_exit: SecondaryMap<Block, bool> = SecondaryMap::new();
        for (i, b) in blocks.iter().enumerate().skip(1) {
            node[b.unwrap()] = Some(i as u32);
        }
        for &b in cfg.exits() {
            is_exit[b] = true;
        }

        // In the reversed graph, a block's predecessors are its successors, plus the virtual exit
        // for an exit block.
        let tree = Tree::new(blocks.len(), |i| {
            let b = blocks[i].unwrap();
            cfg.succs(b).iter().filter_map(|&s| node[s]).chain(is_exit[b].then_some(0))
        });
        let children = tree.block_children(|i| blocks[i as usize].unwrap());
        let mut roots = children[tree.child_range(0)].to_vec();
        roots.extend(cfg.rpo().iter().copied().filter(|&b| node[b].is_none()));
        PostDominatorTree { tree, blocks, node, children, roots }
    }

    /// The immediate post-dominator of `block`; `None` means the virtual exit: for exit blocks,
    /// blocks whose paths to the exits share no block, blocks that cannot reach an exit, and
    /// blocks unreachable from the entry.
    pub fn ipdom(&self, block: Block) -> Option<Block> {
        let i = self.node[block]?;
        self.blocks[self.tree.idom[i as usize] as usize]
    }

    /// Whether `a` post-dominates `b`, in constant time: every path from `b` to an exit goes
    /// through `a`. A block post-dominates itself; otherwise both blocks must be reachable from
    /// the entry and able to reach an exit.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        match (self.node[a], self.node[b]) {
            _ if a == b => true,
            (Some(a), Some(b)) => self.tree.dominates(a, b),
            _ => false,
        }
    }

    /// Whether `block` is reachable from the entry and can reach an exit block.
    pub fn reaches_exit(&self, block: Block) -> bool {
        self.node[block].is_some()
    }

    /// The blocks whose immediate post-dominator is `block`.
    pub fn children(&self, block: Block) -> &[Block] {
        match self.node[block] {
            Some(i) => &self.children[self.tree.child_range(i)],
            None => &[],
        }
    }

    /// The blocks whose immediate post-dominator is the virtual exit: the roots of the
    /// post-dominator forest, followed by the reachable blocks that cannot reach an exit.
    pub fn exit_children(&self) -> &[Block] {
        &self.roots
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::instructions::{BlockCall, InstData};
    use crate::types::Type;
    use crate::{FuncKind, Signature};
    use cranelift_entity::EntityRef;
    use petgraph::algo::dominators::simple_fast;
    use petgraph::graph::{DiGraph, NodeIndex};
    use petgraph::visit::Bfs;

    /// A xorshift64 generator: deterministic, good enough for shaping test graphs.
    pub(crate) struct XorShift(u64);

    impl XorShift {
        pub(crate) fn new(seed: u64) -> XorShift {
            XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        }

        pub(crate) fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        /// A number in `0..n`.
        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// How a test block ends.
    #[derive(Clone, Debug)]
    pub(crate) enum Term {
        Jump(usize),
        Brif(usize, usize),
        Switch(Vec<usize>),
        Ret,
        Unreachable,
    }

    /// Builds a function whose block `i` (in layout order, numbered `i`) ends with `terms[i]`.
    pub(crate) fn build(terms: &[Term]) -> Function {
        let mut f = Function::new("f", FuncKind::Helper, Signature::default());
        let blocks: Vec<Block> = terms.iter().map(|_| f.dfg.make_block()).collect();
        f.layout = blocks.clone();
        let c1 = f.dfg.make_inst(InstData::IntConst { ty: Type::I1, imm: 1 }, Some(Type::I1));
        let c32 = f.dfg.make_inst(InstData::IntConst { ty: Type::I32, imm: 1 }, Some(Type::I32));
        f.dfg.blocks[blocks[0]].insts.extend([c1, c32]);
        let (c1, c32) = (f.dfg.inst_result(c1).unwrap(), f.dfg.inst_result(c32).unwrap());
        for (i, term) in terms.iter().enumerate() {
            let call = |t: usize| BlockCall::new(blocks[t], &[]);
            let data = match term {
                Term::Jump(t) => InstData::Jump { dest: call(*t) },
                Term::Brif(t, e) => InstData::Brif { cond: c1, dests: Box::new([call(*t), call(*e)]) },
                Term::Switch(ts) => InstData::Switch {
                    arg: c32,
                    cases: (0..ts.len() as u64 - 1).collect(),
                    dests: ts.iter().map(|&t| call(t)).collect(),
                },
                Term::Ret => InstData::Return { arg: None },
                Term::Unreachable => InstData::Unreachable,
            };
            let inst = f.dfg.make_inst(data, None);
            f.dfg.blocks[blocks[i]].insts.push(inst);
        }
        f
    }

    /// A random CFG of 2 to 39 blocks. Targets are mostly the next few blocks (forward edges) or
    /// the last few (loops), sometimes anywhere (including the entry), so that loops, nests,
    /// irreducible cycles, infinite loops and unreachable blocks are all common.
    pub(crate) fn random_terms(rng: &mut XorShift) -> Vec<Term> {
        let n = 2 + rng.below(38);
        let target = |rng: &mut XorShift, i: usize| match rng.below(4) {
            0 => rng.below(n),
            1 => i.saturating_sub(rng.below(4)),
            _ => (i + 1 + rng.below(3)).min(n - 1),
        };
        (0..n)
            .map(|i| match rng.below(12) {
                0..=2 => Term::Jump(target(rng, i)),
                3..=8 => Term::Brif(target(rng, i), target(rng, i)),
                9 => Term::Switch((0..1 + rng.below(4)).map(|_| target(rng, i)).collect()),
                10 => Term::Ret,
                _ if rng.below(2) == 0 => Term::Unreachable,
                _ => Term::Ret,
            })
            .collect()
    }

    fn b(n: usize) -> Block {
        Block::new(n)
    }

    /// The CFG as a petgraph graph whose node `i` is block `i`.
    fn petgraph_of(f: &Function, cfg: &ControlFlowGraph) -> DiGraph<(), ()> {
        let mut g = DiGraph::new();
        for _ in &f.layout {
            g.add_node(());
        }
        for &from in &f.layout {
            for &to in cfg.succs(from) {
                g.add_edge(NodeIndex::new(from.index()), NodeIndex::new(to.index()), ());
            }
        }
        g
    }

    /// The post-dominator oracle: petgraph's dominators of the reversed graph of the reachable
    /// blocks, rooted at a virtual exit node `n` with edges to the exits. Following the
    /// convention, a reachable block that cannot reach an exit (one petgraph finds unreachable
    /// from the virtual exit) gets the virtual exit, written `Some(None)`.
    fn oracle_ipdoms(f: &Function, cfg: &ControlFlowGraph) -> Vec<Option<Option<Block>>> {
        let n = f.layout.len();
        let dt = DominatorTree::new(f, cfg);
        let mut g: DiGraph<(), ()> = DiGraph::new();
        for _ in 0..=n {
            g.add_node(());
        }
        let exit = NodeIndex::new(n);
        for &from in cfg.rpo() {
            for &to in cfg.succs(from) {
                g.add_edge(NodeIndex::new(to.index()), NodeIndex::new(from.index()), ());
            }
        }
        for &e in cfg.exits() {
            g.add_edge(exit, NodeIndex::new(e.index()), ());
        }
        let mut reaches = vec![false; n + 1];
        let mut bfs = Bfs::new(&g, exit);
        while let Some(x) = bfs.next(&g) {
            reaches[x.index()] = true;
        }
        let doms = simple_fast(&g, exit);
        (0..n)
            .map(|i| {
                dt.is_reachable(b(i)).then(|| {
                    let d = doms.immediate_dominator(NodeIndex::new(i));
                    assert_eq!(d.is_some(), reaches[i]);
                    d.filter(|&d| d != exit).map(|d| b(d.index()))
                })
            })
            .collect()
    }

    #[test]
    fn idoms_and_ipdoms_match_petgraph() {
        let mut rng = XorShift::new(1);
        for round in 0..3000 {
            let terms = random_terms(&mut rng);
            let f = build(&terms);
            let cfg = ControlFlowGraph::new(&f);
            let dt = DominatorTree::new(&f, &cfg);
            let doms = simple_fast(&petgraph_of(&f, &cfg), NodeIndex::new(0));
            for i in 0..terms.len() {
                let want = doms.immediate_dominator(NodeIndex::new(i)).map(|d| b(d.index()));
                assert_eq!(dt.idom(b(i)), want, "round {round}, block{i}, {terms:?}");
                let reachable = i == 0 || want.is_some();
                assert_eq!(dt.is_reachable(b(i)), reachable, "round {round}, block{i}");
            }

            let pdt = PostDominatorTree::new(&f, &cfg);
            for (i, want) in oracle_ipdoms(&f, &cfg).into_iter().enumerate() {
                if let Some(want) = want {
                    assert_eq!(pdt.ipdom(b(i)), want, "round {round}, block{i}, {terms:?}");
                }
            }
        }
    }

    /// The blocks reachable from `from` (if given) without entering `removed`.
    pub(crate) fn reach_without(
        f: &Function,
        cfg: &ControlFlowGraph,
        from: &[Block],
        removed: Option<Block>,
    ) -> Vec<bool> {
        let mut seen = vec![false; f.layout.len()];
        let mut work: Vec<Block> = from.iter().copied().filter(|&x| Some(x) != removed).collect();
        for &x in &work {
            seen[x.index()] = true;
        }
        while let Some(x) = work.pop() {
            for &s in cfg.succs(x) {
                if Some(s) != removed && !seen[s.index()] {
                    seen[s.index()] = true;
                    work.push(s);
                }
            }
        }
        seen
    }

    #[test]
    fn dominates_and_post_dominates_match_brute_force() {
        let mut rng = XorShift::new(2);
        for round in 0..500 {
            let terms = random_terms(&mut rng);
            let f = build(&terms);
            let n = terms.len();
            let cfg = ControlFlowGraph::new(&f);
            let dt = DominatorTree::new(&f, &cfg);
            let pdt = PostDominatorTree::new(&f, &cfg);
            let reachable = reach_without(&f, &cfg, &[b(0)], None);
            let is_exit = |x: Block| cfg.exits().contains(&x);
            for a in 0..n {
                let without_a = reach_without(&f, &cfg, &[b(0)], Some(b(a)));
                for x in 0..n {
                    if !reachable[a] || !reachable[x] {
                        assert_eq!(dt.dominates(b(a), b(x)), a == x, "round {round}: {a} dom {x}");
                        continue;
                    }
                    let want = a == x || !without_a[x];
                    assert_eq!(dt.dominates(b(a), b(x)), want, "round {round}: {a} dom {x}, {terms:?}");
                    assert_eq!(dt.strictly_dominates(b(a), b(x)), want && a != x);
                }
            }
            // a post-dominates x iff x reaches an exit and cannot once a is removed.
            for x in (0..n).filter(|&x| reachable[x]) {
                let from_x = reach_without(&f, &cfg, &[b(x)], None);
                let reaches_exit = (0..n).any(|e| from_x[e] && is_exit(b(e)));
                assert_eq!(pdt.reaches_exit(b(x)), reaches_exit);
                for (a, &reachable_a) in reachable.iter().enumerate() {
                    let from_x_without_a = reach_without(&f, &cfg, &[b(x)], Some(b(a)));
                    let escapes = (0..n).any(|e| from_x_without_a[e] && is_exit(b(e)));
                    let want = a == x || (reachable_a && reaches_exit && !escapes);
                    assert_eq!(pdt.post_dominates(b(a), b(x)), want, "round {round}: {a} pdom {x}, {terms:?}");
                }
            }
        }
    }

    #[test]
    fn children_are_consistent_with_idoms() {
        let mut rng = XorShift::new(3);
        for _ in 0..300 {
            let f = build(&random_terms(&mut rng));
            let cfg = ControlFlowGraph::new(&f);
            let dt = DominatorTree::new(&f, &cfg);
            let pdt = PostDominatorTree::new(&f, &cfg);
            let mut seen_dom = 0;
            let mut seen_pdom = pdt.exit_children().len();
            for &x in &f.layout {
                for &c in dt.children(x) {
                    assert_eq!(dt.idom(c), Some(x));
                    assert!(dt.rpo_number(c) > dt.rpo_number(x));
                }
                for &c in pdt.children(x) {
                    assert_eq!(pdt.ipdom(c), Some(x));
                }
                seen_dom += dt.children(x).len();
                seen_pdom += pdt.children(x).len();
            }
            for &x in pdt.exit_children() {
                assert_eq!(pdt.ipdom(x), None);
            }
            // Every reachable block but the entry is somebody's child; every reachable block is
            // a child in the post-dominator tree (the virtual exit being the root).
            assert_eq!(seen_dom, cfg.rpo().len() - 1);
            assert_eq!(seen_pdom, cfg.rpo().len());
            assert_eq!(dt.rpo(), cfg.rpo());
        }
    }

    #[test]
    fn diamond() {
        use Term::*;
        // 0 -> {1, 2} -> 3 ret.
        let f = build(&[Brif(1, 2), Jump(3), Jump(3), Ret]);
        let cfg = ControlFlowGraph::new(&f);
        let dt = DominatorTree::new(&f, &cfg);
        assert_eq!([1, 2, 3].map(|i| dt.idom(b(i))), [Some(b(0)); 3]);
        assert_eq!(dt.idom(b(0)), None);
        assert_eq!(dt.children(b(0)), &[b(2), b(1), b(3)]);
        assert!(dt.dominates(b(0), b(3)) && !dt.dominates(b(1), b(3)));
        let pdt = PostDominatorTree::new(&f, &cfg);
        assert_eq!([0, 1, 2].map(|i| pdt.ipdom(b(i))), [Some(b(3)); 3]);
        assert_eq!(pdt.ipdom(b(3)), None);
        assert!(pdt.post_dominates(b(3), b(0)) && !pdt.post_dominates(b(1), b(0)));
        assert_eq!(pdt.exit_children(), &[b(3)]);
    }

    #[test]
    fn loop_with_break_and_continue() {
        use Term::*;
        // 0 -> 1 (header) -> {2, 5}; 2 -> {3 (continue), 4}; 3 -> 1; 4 -> {5 (break), 1}; 5 ret.
        let f = build(&[Jump(1), Brif(2, 5), Brif(3, 4), Jump(1), Brif(5, 1), Ret]);
        let cfg = ControlFlowGraph::new(&f);
        let dt = DominatorTree::new(&f, &cfg);
        let idoms: Vec<_> = (0..6).map(|i| dt.idom(b(i))).collect();
        assert_eq!(idoms, [None, Some(b(0)), Some(b(1)), Some(b(2)), Some(b(2)), Some(b(1))]);
        let pdt = PostDominatorTree::new(&f, &cfg);
        let ipdoms: Vec<_> = (0..6).map(|i| pdt.ipdom(b(i))).collect();
        assert_eq!(ipdoms, [Some(b(1)), Some(b(5)), Some(b(5)), Some(b(1)), Some(b(5)), None]);
    }

    #[test]
    fn infinite_loop_and_unreachable_blocks() {
        use Term::*;
        // 0 -> {1, 3}; 1 -> 2; 2 -> 1 (no exit); 3 ret; 4 (unreachable from the entry) -> 3.
        let f = build(&[Brif(1, 3), Jump(2), Jump(1), Ret, Jump(3)]);
        let cfg = ControlFlowGraph::new(&f);
        let dt = DominatorTree::new(&f, &cfg);
        assert!(!dt.is_reachable(b(4)));
        assert_eq!(dt.idom(b(4)), None);
        assert_eq!(dt.rpo_number(b(4)), None);
        assert!(dt.dominates(b(4), b(4)) && !dt.dominates(b(0), b(4)) && !dt.dominates(b(4), b(3)));
        let pdt = PostDominatorTree::new(&f, &cfg);
        // The branch only reaches an exit through block3; the loop blocks hang off the exit.
        assert_eq!(pdt.ipdom(b(0)), Some(b(3)));
        assert_eq!(pdt.ipdom(b(1)), None);
        assert_eq!(pdt.ipdom(b(2)), None);
        assert!(!pdt.reaches_exit(b(1)) && pdt.reaches_exit(b(0)));
        assert!(!pdt.post_dominates(b(2), b(1)) && pdt.post_dominates(b(1), b(1)));
        assert!(!pdt.post_dominates(b(3), b(4)) && pdt.post_dominates(b(4), b(4)));
        assert_eq!(pdt.exit_children(), &[b(3), b(1), b(2)]);
    }

    #[test]
    fn empty_function() {
        let f = Function::new("f", FuncKind::Helper, Signature::default());
        let cfg = ControlFlowGraph::new(&f);
        let dt = DominatorTree::new(&f, &cfg);
        let pdt = PostDominatorTree::new(&f, &cfg);
        assert!(!dt.is_reachable(b(0)) && dt.children(b(0)).is_empty());
        assert_eq!(pdt.ipdom(b(0)), None);
        assert!(pdt.exit_children().is_empty());
    }
}
