//! Where the lanes that leave a block by different edges meet again, as structured selection
//! needs it: the immediate post-dominator of every block in the *iteration graph*, the CFG with
//! each back edge replaced by edges to the exits of its loop.
//!
//! ```text
//!  CFG                      iteration graph            join(b)
//!  H ─► b ─► c ─► H (back)   H ─► b ─► c ─► X           b's arms meet at c: join(b) = c
//!       └──► c               │    └──► c                 H's arms only meet outside the loop
//!  H ─────────────► X        └────────────► X           (at X): join(H) = none
//! ```
//!
//! Within one iteration of a loop the lanes of a divergent branch meet again at its join, which
//! must be a block of the same loop; if every path out of the branch first leaves the
//! iteration (continues, breaks, returns), there is no join and the arms end in those jumps.
//! Seen from outside, a loop behaves like one node whose edges go to its exits, which is what
//! the rewritten back edges say, so the blocks around a loop get the joins they would get if
//! the loop were a single block. Returns and `unreachable` flow into a virtual end, as in
//! [`frontend_ir::dominator_tree::PostDominatorTree`]: a branch one of whose paths returns has
//! no join short of the end, the reconvergence the reference interpreter gives.
//!
//! The iteration graph is acyclic (the CFG is reducible and every back edge is gone), so one
//! pass in reverse topological order computes the post-dominator tree by intersecting the
//! successors' paths to the end. The exits of all loops are found once; with them the graph has
//! as many edges as the CFG plus the exits of each loop for each of its back edges.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::Block;

/// The joins of a function's branches and the exits of its loops.
#[derive(Clone, Debug, Default)]
pub(crate) struct Joins {
    /// The immediate post-dominator in the iteration graph; `None` is the virtual end.
    ipdom: SecondaryMap<Block, PackedOption<Block>>,
    /// The exit targets of each loop as its edges name them (an enclosing loop's header
    /// included), in the order of the loop's blocks (reverse postorder) and their terminators.
    exits: SecondaryMap<Loop, Vec<Block>>,
}

impl Joins {
    /// Computes the joins of `func`, whose CFG is reducible.
    pub(crate) fn new(cfg: &ControlFlowGraph, domtree: &DominatorTree, loops: &LoopAnalysis) -> Joins {
        let mut joins = Joins::default();
        // The loops' exits, and what each loop leads to in the iteration graph: its exits, an
        // enclosing loop's header standing for that loop's (outer loops come first, so those
        // are known).
        let mut leads_to: SecondaryMap<Loop, Vec<Block>> = SecondaryMap::new();
        let add = |list: &mut Vec<Block>, b: Block| {
            if !list.contains(&b) {
                list.push(b);
            }
        };
        for lp in loops.loops() {
            let (mut targets, mut leads) = (Vec::new(), Vec::new());
            for &b in loops.blocks(lp) {
                for &t in cfg.succs(b).iter().filter(|&&t| !loops.contains(lp, t)) {
                    add(&mut targets, t);
                    if loops.is_loop_header(t) && domtree.dominates(t, b) {
                        for &x in &leads_to[loops.loop_of(t).expect("a header has its loop")] {
                            add(&mut leads, x);
                        }
                    } else {
                        add(&mut leads, t);
                    }
                }
            }
            joins.exits[lp] = targets;
            leads_to[lp] = leads;
        }

        // The iteration graph's successors.
        let succs = |b: Block| -> Vec<Block> {
            let mut out = Vec::new();
            for &t in cfg.succs(b) {
                if loops.is_loop_header(t) && domtree.dominates(t, b) {
                    out.extend_from_slice(&leads_to[loops.loop_of(t).expect("a header has its loop")]);
                } else {
                    out.push(t);
                }
            }
            out
        };
        let graph: Vec<(Block, Vec<Block>)> = cfg.rpo().iter().map(|&b| (b, succs(b))).collect();

        // A topological order: depth-first postorder, sinks first.
        let mut index: SecondaryMap<Block, u32> = SecondaryMap::new();
        for (i, (b, _)) in graph.iter().enumerate() {
            index[*b] = i as u32;
        }
        let mut order = Vec::with_capacity(graph.len());
        let mut state = vec![0u8; graph.len()];
        for start in 0..graph.len() {
            if state[start] != 0 {
                continue;
            }
            let mut stack = vec![(start, 0usize)];
            state[start] = 1;
            while let Some(&mut (n, ref mut next)) = stack.last_mut() {
                if let Some(&s) = graph[n].1.get(*next) {
                    *next += 1;
                    let s = index[s] as usize;
                    if state[s] == 0 {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                } else {
                    state[n] = 2;
                    order.push(n);
                    stack.pop();
                }
            }
        }

        // Post-dominators: each node's paths to the end meet at the nearest common ancestor of
        // its successors in the tree built so far (depth 0 is the end).
        let mut depth: Vec<u32> = vec![0; graph.len()];
        let mut parent: Vec<Option<usize>> = vec![None; graph.len()];
        for &n in &order {
            let mut meet: Option<Option<usize>> = None;
            for &s in &graph[n].1 {
                let s = Some(index[s] as usize);
                meet = Some(match meet {
                    None => s,
                    Some(m) => common(m, s, &parent, &depth),
                });
            }
            let ipdom = meet.unwrap_or(None);
            parent[n] = ipdom;
            depth[n] = ipdom.map_or(1, |p| depth[p] + 1);
            joins.ipdom[graph[n].0] = ipdom.map(|p| graph[p].0).into();
        }
        joins
    }

    /// The block where the lanes leaving `block` by different edges meet again in the same
    /// iteration of `block`'s innermost loop (or anywhere, outside loops); `None` if they meet
    /// only after leaving the iteration, or never.
    pub(crate) fn join(&self, block: Block, loops: &LoopAnalysis) -> Option<Block> {
        let j = self.ipdom[block].expand()?;
        match loops.loop_of(block) {
            Some(lp) if !loops.contains(lp, j) => None,
            _ => Some(j),
        }
    }

    /// Where the lanes leaving `lp` by its different exits meet again, in the iteration of the
    /// enclosing loop: the first post-dominator of the header outside `lp`.
    pub(crate) fn join_after(&self, lp: Loop, loops: &LoopAnalysis) -> Option<Block> {
        let mut b = self.ipdom[loops.header(lp)].expand()?;
        while loops.contains(lp, b) {
            b = self.ipdom[b].expand()?;
        }
        match loops.parent(lp) {
            Some(outer) if !loops.contains(outer, b) => None,
            _ => Some(b),
        }
    }

    /// The exit targets of `lp`: the blocks outside it that its blocks branch to, an enclosing
    /// loop's header standing for that loop's exits.
    pub(crate) fn exits(&self, lp: Loop) -> &[Block] {
        &self.exits[lp]
    }
}

/// The nearest common ancestor of two nodes of the partial post-dominator tree (`None` is the
/// end, at depth 0).
fn common(mut a: Option<usize>, mut b: Option<usize>, parent: &[Option<usize>], depth: &[u32]) -> Option<usize> {
    let d = |n: Option<usize>| n.map_or(0, |n| depth[n]);
    while a != b {
        if d(a) >= d(b) {
            a = a.and_then(|n| parent[n]);
        } else {
            b = b.and_then(|n| parent[n]);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend_ir::parser::parse_module;

    /// The joins of the one function of `src`, by block name: `(block, join)` for every block.
    fn joins(src: &str) -> Vec<(String, Option<String>)> {
        let module = parse_module(src).expect("test IR parses");
        let func = module.functions.values().next().expect("a function");
        let cfg = ControlFlowGraph::new(func);
        let domtree = DominatorTree::new(func, &cfg);
        let loops = LoopAnalysis::new(func, &cfg, &domtree);
        let joins = Joins::new(&cfg, &domtree, &loops);
        // Blocks are numbered in the order the text defines them.
        let names: Vec<String> = src
            .lines()
            .map(str::trim)
            .filter_map(|l| l.strip_suffix(':'))
            .map(|l| l.split('(').next().unwrap().to_string())
            .collect();
        let name = |b: Block| names[b.as_u32() as usize].clone();
        func.layout.iter().map(|&b| (name(b), joins.join(b, &loops).map(name))).collect()
    }

    fn join_of<'a>(all: &'a [(String, Option<String>)], block: &str) -> Option<&'a str> {
        all.iter().find(|(b, _)| b == block).unwrap_or_else(|| panic!("no block {block}")).1.as_deref()
    }

    #[test]
    fn an_if_inside_a_loop_meets_at_its_join_and_the_loop_around_it_at_its_exit() {
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                brif %c, head, exit
            head:
                brif %c, a, b
            a:
                jump latch
            b:
                jump latch
            latch:
                brif %c, head, done
            done:
                jump exit
            exit:
                ret
            }",
        );
        assert_eq!(join_of(&all, "entry"), Some("exit"), "the loop counts as one node with its exit");
        assert_eq!(join_of(&all, "head"), Some("latch"));
        assert_eq!(join_of(&all, "latch"), None, "continue and break meet only outside the iteration");
    }

    #[test]
    fn continues_and_breaks_leave_no_join_in_the_iteration() {
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                jump head
            head:
                brif %c, body, done
            body:
                brif %c, head, check
            check:
                brif %c, done, acc
            acc:
                jump head
            done:
                ret
            }",
        );
        for b in ["head", "body", "check"] {
            assert_eq!(join_of(&all, b), None, "{b}");
        }
    }

    #[test]
    fn a_return_on_one_path_leaves_no_join_short_of_the_end() {
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                brif %c, a, tail
            a:
                brif %c, early, tail
            early:
                ret
            tail:
                ret
            }",
        );
        assert_eq!(join_of(&all, "entry"), None);
        assert_eq!(join_of(&all, "a"), None);
    }

    #[test]
    fn an_inner_loop_exiting_two_levels_has_both_exits_and_joins_after_the_outer_loop() {
        let src = "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                jump outer
            outer:
                brif %c, inner, fin
            inner:
                brif %c, ibody, next
            ibody:
                brif %c, fin, inner
            next:
                jump outer
            fin:
                ret
            }";
        let module = parse_module(src).unwrap();
        let func = module.functions.values().next().unwrap();
        let cfg = ControlFlowGraph::new(func);
        let domtree = DominatorTree::new(func, &cfg);
        let loops = LoopAnalysis::new(func, &cfg, &domtree);
        let joins = Joins::new(&cfg, &domtree, &loops);
        let inner = loops.loops().last().unwrap();
        let exits: Vec<String> = joins.exits(inner).iter().map(|b| b.to_string()).collect();
        assert_eq!(exits, ["block4", "block5"], "next, then fin");
        assert_eq!(joins.join_after(inner, &loops), None, "next continues the outer loop, fin leaves it");
        let all = self::joins(src);
        assert_eq!(join_of(&all, "outer"), None, "its arms meet only after the loop");
        assert_eq!(join_of(&all, "ibody"), None, "a break out of both loops, and a continue");
    }
}
