//! Natural loops and the reducibility check.
//!
//! A *back edge* is an edge whose target dominates its source; the target is a *loop header*
//! and its *natural loop* is the header plus every block that reaches one of its back edges
//! without going through the header. Natural loops with different headers are either disjoint
//! or nested, so they form a forest: [`LoopAnalysis`] finds every loop, its parent and depth,
//! its blocks, and the innermost loop of every block. Register allocation weighs spill costs
//! by loop depth, and the scheduler and code motion must know which blocks repeat.
//!
//! The compiler lowers structured control flow, so it expects every loop to have a single
//! entry: [`check_reducible`] rejects a function with a cycle that can be entered at two
//! blocks (an irreducible CFG), which natural-loop analysis would not see as a loop at all.

use crate::cfg::{depth_first, ControlFlowGraph};
use crate::dominator_tree::DominatorTree;
use crate::entities::Block;
use crate::function::Function;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};

/// A natural loop of a function, printed as `loopN`. Loops are numbered in reverse postorder
/// of their headers, so a loop's parent has a smaller number than the loop.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// What [`LoopAnalysis`] knows about one loop.
#[derive(Clone, Debug)]
struct LoopData {
    /// The header: the single entry of the loop, which dominates all its blocks.
    header: Block,
    /// The innermost loop that contains this one.
    parent: PackedOption<Loop>,
    /// 1 for an outermost loop, one more for each level of nesting.
    depth: u32,
    /// Where the loop's blocks are in `LoopAnalysis::loop_blocks`.
    start: u32,
    end: u32,
    /// The loop's number in a preorder of the loop forest, and the number of loops in its
    /// subtree (itself included): the loops nested in it, at any depth, are the ones numbered
    /// in `pre..pre + size`.
    pre: u32,
    size: u32,
}

/// The loop forest of a function: its natural loops, how they nest, and the innermost loop of
/// every block. Blocks unreachable from the entry belong to no loop.
#[derive(Clone, Debug, Default)]
pub struct LoopAnalysis {
    loops: PrimaryMap<Loop, LoopData>,
    /// The innermost loop of each block.
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    /// The blocks of every loop, back to back, each loop's in reverse postorder.
    loop_blocks: Vec<Block>,
}

impl LoopAnalysis {
    /// Finds the natural loops of `func`, given its control-flow graph and dominator tree.
    pub fn new(func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> LoopAnalysis {
        debug_assert_eq!(cfg.rpo().first().copied(), func.entry(), "the CFG is not this function's");
        let mut la = LoopAnalysis::default();
        // The back-edge sources of `header`.
        let latches = |header: Block| cfg.preds(header).iter().copied().filter(move |&p| domtree.dominates(header, p));

        // One loop per header, in reverse postorder: outer loops before the loops they contain.
        for &b in cfg.rpo() {
            if latches(b).next().is_some() {
                la.loops.push(LoopData { header: b, parent: None.into(), depth: 0, start: 0, end: 0, pre: 0, size: 1 });
            }
        }

        // Walk each loop's body backwards from its latches, innermost loops first (later headers
        // first). A block already claimed belongs to a nested loop: its outermost enclosing loop
        // found so far becomes a child of this one, and the walk continues at that loop's header.
        let mut stack = Vec::new();
        for lp in la.loops.keys().rev() {
            let header = la.loops[lp].header;
            la.innermost[header] = lp.into();
            stack.extend(latches(header));
            while let Some(b) = stack.pop() {
                let next = match la.innermost[b].expand() {
                    None => {
                        la.innermost[b] = lp.into();
                        b
                    }
                    Some(inner) => {
                        let outer = la.outermost(inner);
                        if outer == lp {
                            continue;
                        }
                        la.loops[outer].parent = lp.into();
                        la.loops[outer].header
                    }
                };
                // The predecessors of a block that the header dominates, other than the header
                // itself, are dominated by the header too, unless unreachable.
                stack.extend(cfg.preds(next).iter().copied().filter(|&p| domtree.is_reachable(p)));
            }
        }

        // Parents come before their children, so one pass sets the depths; subtree sizes go
        // bottom-up, then each child takes the next free preorder range of its parent.
        for lp in la.loops.keys() {
            la.loops[lp].depth = la.loops[lp].parent.expand().map_or(1, |p| la.loops[p].depth + 1);
        }
        for lp in la.loops.keys().rev() {
            if let Some(p) = la.loops[lp].parent.expand() {
                la.loops[p].size += la.loops[lp].size;
            }
        }
        let mut next_free: SecondaryMap<Loop, u32> = SecondaryMap::new();
        let mut next_root = 0;
        for lp in la.loops.keys() {
            let pre = match la.loops[lp].parent.expand() {
                Some(p) => {
                    let pre = next_free[p];
                    next_free[p] += la.loops[lp].size;
                    pre
                }
                None => {
                    let pre = next_root;
                    next_root += la.loops[lp].size;
                    pre
                }
            };
            la.loops[lp].pre = pre;
            next_free[lp] = pre + 1;
        }

        // Every block is listed in its innermost loop and all the loops around it: count, lay
        // out the lists, then fill them in reverse postorder (so each list starts with its header).
        let mut count: SecondaryMap<Loop, u32> = SecondaryMap::new();
        for &b in cfg.rpo() {
            la.for_each_enclosing(b, |lp| count[lp] += 1);
        }
        let mut next = 0;
        for (lp, data) in la.loops.iter_mut() {
            data.start = next;
            data.end = next;
            next += count[lp];
        }
        la.loop_blocks = vec![Block::from_u32(0); next as usize];
        for &b in cfg.rpo() {
            let mut l = la.innermost[b].expand();
            while let Some(lp) = l {
                let data = &mut la.loops[lp];
                la.loop_blocks[data.end as usize] = b;
                data.end += 1;
                l = data.parent.expand();
            }
        }
        la
    }

    /// The outermost loop containing `lp` found so far (during construction).
    fn outermost(&self, mut lp: Loop) -> Loop {
        while let Some(parent) = self.loops[lp].parent.expand() {
            lp = parent;
        }
        lp
    }

    /// Calls `f` with every loop that contains `block`, innermost first.
    fn for_each_enclosing(&self, block: Block, mut f: impl FnMut(Loop)) {
        let mut l = self.innermost[block].expand();
        while let Some(lp) = l {
            f(lp);
            l = self.loops[lp].parent.expand();
        }
    }

    /// Every loop, in reverse postorder of the headers (so outer loops come before the loops
    /// nested in them).
    pub fn loops(&self) -> impl DoubleEndedIterator<Item = Loop> + ExactSizeIterator + '_ {
        self.loops.keys()
    }

    /// The header of `lp`: the only block of the loop entered from outside, which dominates
    /// every block of the loop.
    pub fn header(&self, lp: Loop) -> Block {
        self.loops[lp].header
    }

    /// The innermost loop that contains `lp`, if any.
    pub fn parent(&self, lp: Loop) -> Option<Loop> {
        self.loops[lp].parent.expand()
    }

    /// The nesting depth of `lp`: 1 for an outermost loop.
    pub fn depth(&self, lp: Loop) -> u32 {
        self.loops[lp].depth
    }

    /// The blocks of `lp`, those of nested loops included, in reverse postorder; the header
    /// comes first.
    pub fn blocks(&self, lp: Loop) -> &[Block] {
        let data = &self.loops[lp];
        &self.loop_blocks[data.start as usize..data.end as usize]
    }

    /// The innermost loop containing `block`, if any.
    pub fn loop_of(&self, block: Block) -> Option<Loop> {
        self.innermost[block].expand()
    }

    /// The loop depth of `block`: the depth of its innermost loop, 0 outside loops.
    pub fn block_depth(&self, block: Block) -> u32 {
        self.loop_of(block).map_or(0, |lp| self.depth(lp))
    }

    /// Whether `block` is the header of a loop (then [`LoopAnalysis::loop_of`] gives that loop).
    pub fn is_loop_header(&self, block: Block) -> bool {
        self.loop_of(block).is_some_and(|lp| self.header(lp) == block)
    }

    /// Whether `block` is in `lp` (directly or in a loop nested in it), in constant time.
    pub fn contains(&self, lp: Loop, block: Block) -> bool {
        let Some(inner) = self.innermost[block].expand() else { return false };
        let (outer, inner) = (&self.loops[lp], &self.loops[inner]);
        outer.pre <= inner.pre && inner.pre < outer.pre + outer.size
    }
}

/// The control flow of a function is irreducible: a cycle can be entered at more than one
/// block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("irreducible control flow: the edge from {from} to {to} closes a cycle, but {to} does not dominate {from}")]
pub struct Irreducible {
    /// The source of the offending retreating edge.
    pub from: Block,
    /// Its target, a block of the cycle that does not dominate `from`.
    pub to: Block,
}

/// Checks that the control flow of `func` is reducible: every retreating edge of a depth-first
/// search from the entry (an edge to a block on the search stack) is a back edge, whose target
/// dominates its source. Otherwise returns the first retreating edge that is not, in the order
/// of the search (successors in terminator order). Unreachable blocks are ignored. Linear time.
pub fn check_reducible(func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> Result<(), Irreducible> {
    let Some(entry) = func.entry() else { return Ok(()) };
    let mut found = None;
    let mut state = SecondaryMap::new();
    depth_first(
        &[entry],
        |b| cfg.succs(b),
        &mut state,
        |from, to| {
            if found.is_none() && !domtree.dominates(to, from) {
                found = Some(Irreducible { from, to });
            }
        },
    );
    found.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominator_tree::tests::{build, random_terms, reach_without, Term, XorShift};
    use cranelift_entity::EntityRef;
    use petgraph::graph::{DiGraph, NodeIndex};

    fn b(n: usize) -> Block {
        Block::new(n)
    }

    fn analyse(terms: &[Term]) -> (Function, ControlFlowGraph, DominatorTree, LoopAnalysis) {
        let f = build(terms);
        let cfg = ControlFlowGraph::new(&f);
        let dt = DominatorTree::new(&f, &cfg);
        let la = LoopAnalysis::new(&f, &cfg, &dt);
        (f, cfg, dt, la)
    }

    fn blocks(ns: &[usize]) -> Vec<Block> {
        ns.iter().map(|&n| b(n)).collect()
    }

    #[test]
    fn no_loops() {
        use Term::*;
        let (f, cfg, dt, la) = analyse(&[Brif(1, 2), Jump(3), Jump(3), Ret]);
        assert_eq!(la.loops().len(), 0);
        assert!((0..4).all(|i| la.loop_of(b(i)).is_none() && la.block_depth(b(i)) == 0));
        assert_eq!(check_reducible(&f, &cfg, &dt), Ok(()));
    }

    #[test]
    fn loop_with_break_and_continue() {
        use Term::*;
        // 0 -> 1 (header) -> {2, 5}; 2 -> {3 (continue), 4}; 3 -> 1; 4 -> {5 (break), 1}; 5 ret.
        let (f, cfg, dt, la) = analyse(&[Jump(1), Brif(2, 5), Brif(3, 4), Jump(1), Brif(5, 1), Ret]);
        assert_eq!(la.loops().len(), 1);
        let lp = la.loops().next().unwrap();
        assert_eq!(lp.to_string(), "loop0");
        assert_eq!(la.header(lp), b(1));
        assert_eq!(la.parent(lp), None);
        assert_eq!(la.depth(lp), 1);
        let mut body = la.blocks(lp).to_vec();
        assert_eq!(body[0], b(1));
        body.sort();
        assert_eq!(body, blocks(&[1, 2, 3, 4]));
        assert!(la.is_loop_header(b(1)) && !la.is_loop_header(b(2)));
        assert_eq!([0, 1, 2, 3, 4, 5].map(|i| la.loop_of(b(i))), [None, Some(lp), Some(lp), Some(lp), Some(lp), None]);
        assert_eq!(check_reducible(&f, &cfg, &dt), Ok(()));
    }

    #[test]
    fn nested_loops() {
        use Term::*;
        // 0 -> 1; 1 (outer header) -> {2, 6}; 2 (middle header) -> 3; 3 (inner self loop) -> {3, 4};
        // 4 -> {2, 5}; 5 -> 1; 6 ret.
        let (f, cfg, dt, la) = analyse(&[Jump(1), Brif(2, 6), Jump(3), Brif(3, 4), Brif(2, 5), Jump(1), Ret]);
        let ls: Vec<Loop> = la.loops().collect();
        assert_eq!(ls.len(), 3);
        assert_eq!(ls.iter().map(|&l| la.header(l)).collect::<Vec<_>>(), blocks(&[1, 2, 3]));
        assert_eq!(ls.iter().map(|&l| la.depth(l)).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(ls.iter().map(|&l| la.parent(l)).collect::<Vec<_>>(), [None, Some(ls[0]), Some(ls[1])]);
        assert_eq!(la.blocks(ls[0]), &blocks(&[1, 2, 3, 4, 5])[..]);
        assert_eq!(la.blocks(ls[1]), &blocks(&[2, 3, 4])[..]);
        assert_eq!(la.blocks(ls[2]), &blocks(&[3])[..]);
        let depths = (0..7).map(|i| la.block_depth(b(i))).collect::<Vec<_>>();
        assert_eq!(depths, [0, 1, 2, 3, 2, 1, 0]);
        assert!(la.contains(ls[0], b(3)) && la.contains(ls[1], b(4)) && !la.contains(ls[2], b(4)));
        assert!(!la.contains(ls[0], b(6)));
        assert_eq!(check_reducible(&f, &cfg, &dt), Ok(()));
    }

    #[test]
    fn sibling_loops() {
        use Term::*;
        // Two loops one after the other inside an outer loop: 1 { 2 <-> 3 ; 4 <-> 5 } -> 6.
        let (_, _, _, la) = analyse(&[Jump(1), Jump(2), Jump(3), Brif(2, 4), Jump(5), Brif(4, 6), Brif(1, 7), Ret]);
        let ls: Vec<Loop> = la.loops().collect();
        assert_eq!(ls.iter().map(|&l| la.header(l)).collect::<Vec<_>>(), blocks(&[1, 2, 4]));
        assert_eq!(ls.iter().map(|&l| la.parent(l)).collect::<Vec<_>>(), [None, Some(ls[0]), Some(ls[0])]);
        assert_eq!(la.blocks(ls[1]), &blocks(&[2, 3])[..]);
        assert_eq!(la.blocks(ls[2]), &blocks(&[4, 5])[..]);
        assert_eq!(la.blocks(ls[0]).len(), 6);
    }

    #[test]
    fn two_entry_loop_is_irreducible() {
        use Term::*;
        // 0 -> {1, 2}; 1 -> {2, 3}; 2 -> 1; 3 ret: the cycle 1 <-> 2 is entered at both blocks.
        let (f, cfg, dt, la) = analyse(&[Brif(1, 2), Brif(2, 3), Jump(1), Ret]);
        let err = check_reducible(&f, &cfg, &dt).unwrap_err();
        assert_eq!(err, Irreducible { from: b(2), to: b(1) });
        assert_eq!(
            err.to_string(),
            "irreducible control flow: the edge from block2 to block1 closes a cycle, but block1 does not dominate block2"
        );
        // Neither block dominates the other, so there is no natural loop.
        assert_eq!(la.loops().len(), 0);

        // Entering the same cycle through one block only makes it reducible.
        let (f, cfg, dt, la) = analyse(&[Jump(1), Brif(2, 3), Jump(1), Ret]);
        assert_eq!(check_reducible(&f, &cfg, &dt), Ok(()));
        assert_eq!(la.loops().len(), 1);
    }

    /// Reducibility oracle: a flow graph is reducible iff it is acyclic once the edges whose
    /// target dominates their source are removed (dominance by brute force).
    fn reducible_oracle(f: &Function, cfg: &ControlFlowGraph, dom: &dyn Fn(usize, usize) -> bool) -> bool {
        let mut g: DiGraph<(), ()> = DiGraph::new();
        for _ in &f.layout {
            g.add_node(());
        }
        for &from in cfg.rpo() {
            for &to in cfg.succs(from) {
                if !dom(to.index(), from.index()) {
                    g.add_edge(NodeIndex::new(from.index()), NodeIndex::new(to.index()), ());
                }
            }
        }
        !petgraph::algo::is_cyclic_directed(&g)
    }

    #[test]
    fn loops_and_reducibility_match_brute_force() {
        let mut rng = XorShift::new(4);
        let (mut reducible, mut irreducible, mut nested) = (0, 0, 0);
        for round in 0..1500 {
            let terms = random_terms(&mut rng);
            let n = terms.len();
            let (f, cfg, dt, la) = analyse(&terms);
            let reachable = reach_without(&f, &cfg, &[b(0)], None);
            let without: Vec<Vec<bool>> = (0..n).map(|a| reach_without(&f, &cfg, &[b(0)], Some(b(a)))).collect();
            let dom = |a: usize, x: usize| reachable[a] && reachable[x] && (a == x || !without[a][x]);

            // The natural loop of h: h and the blocks that reach a latch of h (a predecessor that h
            // dominates) without going through h.
            let latches = |h: usize| -> Vec<usize> {
                (0..n).filter(|&p| reachable[p] && cfg.succs(b(p)).contains(&b(h)) && dom(h, p)).collect()
            };
            let headers: Vec<usize> = (0..n).filter(|&h| !latches(h).is_empty()).collect();
            let bodies: Vec<Vec<Block>> = (0..n)
                .map(|h| {
                    let reaches_latch_avoiding_h = |x: usize| {
                        let from_x = reach_without(&f, &cfg, &[b(x)], Some(b(h)));
                        latches(h).iter().any(|&p| from_x[p])
                    };
                    (0..n).filter(|&x| x == h || (reachable[x] && reaches_latch_avoiding_h(x))).map(b).collect()
                })
                .collect();
            let body = |h: usize| &bodies[h];
            assert_eq!(la.loops().map(|l| la.header(l).index()).collect::<Vec<_>>().len(), headers.len());
            for lp in la.loops() {
                let h = la.header(lp).index();
                assert!(headers.contains(&h), "round {round}: {lp} header block{h}");
                let mut got = la.blocks(lp).to_vec();
                assert_eq!(got[0], b(h));
                got.sort();
                assert_eq!(&got, body(h), "round {round}: blocks of {lp}, {terms:?}");
                let enclosing = headers.iter().filter(|&&g| g != h && body(g).contains(&b(h))).count();
                assert_eq!(la.depth(lp) as usize, enclosing + 1, "round {round}: depth of {lp}");
                if let Some(p) = la.parent(lp) {
                    assert!(la.depth(p) + 1 == la.depth(lp) && la.contains(p, b(h)));
                    nested += 1;
                }
            }
            for x in 0..n {
                let mut got: Vec<usize> = Vec::new();
                la.for_each_enclosing(b(x), |l| got.push(la.header(l).index()));
                let mut want: Vec<usize> = headers.iter().copied().filter(|&h| body(h).contains(&b(x))).collect();
                got.sort();
                want.sort();
                assert_eq!(got, want, "round {round}: loops around block{x}, {terms:?}");
                assert_eq!(la.is_loop_header(b(x)), headers.contains(&x));
            }

            let result = check_reducible(&f, &cfg, &dt);
            assert_eq!(result.is_ok(), reducible_oracle(&f, &cfg, &dom), "round {round}: {terms:?}");
            match result {
                Ok(()) => reducible += 1,
                Err(Irreducible { from, to }) => {
                    irreducible += 1;
                    assert!(cfg.succs(from).contains(&to) && !dom(to.index(), from.index()));
                }
            }
        }
        // The generator must exercise both outcomes and nesting.
        assert!(reducible > 100 && irreducible > 100 && nested > 100, "{reducible} {irreducible} {nested}");
    }
}
