//! Where the lanes of a wave that leave a block by different edges meet again: the one
//! definition of reconvergence, which the reference interpreter runs and instruction selection
//! compiles (kernel-language.md, "Waves and divergence").
//!
//! The rule is stated on the *iteration graph*: the CFG with each back edge replaced by edges to
//! the exits of its loop, so that, seen from outside, a loop is one node whose edges go to its
//! exits. The graph is acyclic (the CFG is reducible). In it, the *join* of a branch is its
//! immediate post-dominator with one difference: an arm whose block has no other predecessor
//! in the CFG, and whose every path ends in a `ret` (or `unreachable`) that only that arm
//! reaches, does not count (a `ret` in a loop is reached through the loop's exit, which the
//! iteration graph's latches lead to as well: the CFG, not the iteration graph, says whether
//! the arm is entered by one edge only). Such an arm's lanes
//! leave the kernel on their own, so they never hold the others back: a `return` that no lane
//! takes changes nothing, and the lanes that do not return rejoin where they would have
//! without it.
//!
//! ```text
//!  if a { if b { return; } x } else { y }  z
//!
//!  B0 ─► B ─► R (ret)          join(B)  = x  (the arm into R is R's alone: it does not count)
//!  │     └──► x ─► z           join(B0) = z  (both arms reach z)
//!  └──► y ──────► z
//! ```
//!
//! Within one iteration of a loop the lanes of a divergent branch meet again at its join when
//! that is a block of the same loop; otherwise they meet only after leaving the iteration (by
//! continuing, breaking or returning). The lanes that continue a loop all start its next
//! iteration together, and those that leave it wait at its exit until no lane is left in it;
//! then they go on to the blocks their breaks named, and rejoin at [`Joins::join_after`].
//!
//! The computation is one pass over the iteration graph in reverse topological order. Each
//! node's parent in the (post-dominator-like) forest is the nearest common ancestor of its
//! successors that count. A successor does not count when it has one predecessor in the CFG
//! and it dominates, in the iteration graph, the root of its tree: a sink (a block without
//! successors, or a node none of whose arms counted) that no other arm can then reach. Arms in different trees
//! meet only at a virtual end. The exits of all loops are found once; with them the graph has
//! as many edges as the CFG plus the exits of each loop for each of its back edges.

use crate::cfg::ControlFlowGraph;
use crate::dominator_tree::{DominatorTree, Tree};
use crate::entities::Block;
use crate::loops::{Loop, LoopAnalysis};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

/// The joins of a function's branches and the exits of its loops.
#[derive(Clone, Debug, Default)]
pub struct Joins {
    /// The join of each block in the iteration graph, loops not considered; `None` if its
    /// arms never meet.
    ipdom: SecondaryMap<Block, PackedOption<Block>>,
    /// The exit targets of each loop as its edges name them (an enclosing loop's header
    /// included), in the order of the loop's blocks (reverse postorder) and their terminators.
    exits: SecondaryMap<Loop, Vec<Block>>,
}

/// Where a node's chain of joins ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Root {
    /// At this node, a sink: it has no successors, or none of its arms counted.
    Sink(usize),
    /// At the virtual end, where arms in different trees meet.
    End,
}

impl Joins {
    /// Computes the joins of a function whose CFG is reducible.
    pub fn new(cfg: &ControlFlowGraph, domtree: &DominatorTree, loops: &LoopAnalysis) -> Joins {
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

        // The iteration graph's successors, numbered by the CFG's reverse postorder.
        let rpo = cfg.rpo();
        let mut index: SecondaryMap<Block, u32> = SecondaryMap::new();
        for (i, &b) in rpo.iter().enumerate() {
            index[b] = i as u32;
        }
        let mut succs: Vec<Vec<usize>> = Vec::with_capacity(rpo.len());
        for &b in rpo {
            let mut out = Vec::new();
            for &t in cfg.succs(b) {
                if loops.is_loop_header(t) && domtree.dominates(t, b) {
                    let lp = loops.loop_of(t).expect("a header has its loop");
                    out.extend(leads_to[lp].iter().map(|&x| index[x] as usize));
                } else {
                    out.push(index[t] as usize);
                }
            }
            out.sort_unstable();
            out.dedup();
            succs.push(out);
        }
        let n = succs.len();

        // A topological order: depth-first postorder from the entry, sinks first (every block
        // is reachable from the entry without back edges, the CFG being reducible).
        let mut order = Vec::with_capacity(n);
        let mut state = vec![0u8; n];
        if n > 0 {
            let mut stack = vec![(0usize, 0usize)];
            state[0] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if let Some(&s) = succs[v].get(*next) {
                    *next += 1;
                    if state[s] == 0 {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                } else {
                    order.push(v);
                    stack.pop();
                }
            }
        }

        // Dominators of the iteration graph, over its nodes numbered topologically.
        let mut topo = vec![0u32; n];
        for (k, &v) in order.iter().rev().enumerate() {
            topo[v] = k as u32;
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (v, out) in succs.iter().enumerate() {
            for &s in out {
                preds[topo[s] as usize].push(topo[v]);
            }
        }
        let dom = Tree::new(n, |k| preds[k].iter().copied());
        let dominates = |a: usize, b: usize| dom.dominates(topo[a], topo[b]);

        // The forest of joins, sinks first.
        let mut parent: Vec<Option<usize>> = vec![None; n];
        let mut root: Vec<Root> = vec![Root::End; n];
        let mut depth: Vec<u32> = vec![0; n];
        for &v in &order {
            // An arm that only one edge of the CFG enters, and whose every path ends in a sink
            // that only it reaches, leaves on its own: it does not count.
            let counts = |s: &usize| match root[*s] {
                Root::Sink(r) => cfg.preds(rpo[*s]).len() > 1 || !dominates(*s, r),
                Root::End => true,
            };
            let mut meet: Option<Option<usize>> = None;
            for s in succs[v].iter().filter(|s| counts(s)) {
                meet = Some(match meet {
                    None => Some(*s),
                    Some(m) => common(m, Some(*s), &parent, &root, &depth),
                });
            }
            match meet {
                // No successor, or none that counts: a sink.
                None => root[v] = Root::Sink(v),
                // Arms in different trees.
                Some(None) => root[v] = Root::End,
                Some(Some(m)) => {
                    parent[v] = Some(m);
                    root[v] = root[m];
                    depth[v] = depth[m] + 1;
                }
            }
            joins.ipdom[rpo[v]] = parent[v].map(|p| rpo[p]).into();
        }
        joins
    }

    /// The block where the lanes leaving `block` by different edges meet again in the same
    /// iteration of `block`'s innermost loop (or anywhere, outside loops); `None` if they meet
    /// only after leaving the iteration, or never.
    pub fn join(&self, block: Block, loops: &LoopAnalysis) -> Option<Block> {
        let j = self.ipdom[block].expand()?;
        match loops.loop_of(block) {
            Some(lp) if !loops.contains(lp, j) => None,
            _ => Some(j),
        }
    }

    /// Where the lanes leaving `lp` by its different exits meet again, in the iteration of the
    /// enclosing loop: the first join on the header's chain outside `lp`.
    pub fn join_after(&self, lp: Loop, loops: &LoopAnalysis) -> Option<Block> {
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
    pub fn exits(&self, lp: Loop) -> &[Block] {
        &self.exits[lp]
    }
}

/// The nearest common ancestor of two nodes of the forest built so far (`None`: they are in
/// different trees, and meet only at the virtual end).
fn common(a: Option<usize>, b: Option<usize>, parent: &[Option<usize>], root: &[Root], depth: &[u32]) -> Option<usize> {
    let (mut a, mut b) = (a?, b?);
    if root[a] != root[b] {
        return None;
    }
    while a != b {
        if depth[a] >= depth[b] {
            a = parent[a]?;
        } else {
            b = parent[b]?;
        }
    }
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_module;

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
    fn an_arm_that_returns_on_its_own_holds_no_lane_back() {
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
        assert_eq!(join_of(&all, "a"), Some("tail"), "the lanes into `early` leave on their own");
        assert_eq!(join_of(&all, "entry"), Some("tail"));
    }

    #[test]
    fn a_return_nested_in_an_arm_does_not_move_the_join_of_the_branch_around_it() {
        // if c { if d { return } x } else { y }  z
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                brif %c, then, y
            then:
                brif %c, early, x
            early:
                ret
            x:
                jump z
            y:
                jump z
            z:
                ret
            }",
        );
        assert_eq!(join_of(&all, "then"), Some("x"));
        assert_eq!(join_of(&all, "entry"), Some("z"));
    }

    #[test]
    fn a_return_in_a_loop_body_leaves_the_iteration_join_in_the_loop() {
        // while c { if d { if e { return } } }  (the issue's example: lanes rejoin at the latch)
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                jump head
            head:
                brif %c, body, done
            body:
                brif %c, inner, latch
            inner:
                brif %c, early, latch
            early:
                ret
            latch:
                jump head
            done:
                ret
            }",
        );
        assert_eq!(join_of(&all, "inner"), Some("latch"));
        assert_eq!(join_of(&all, "body"), Some("latch"));
    }

    #[test]
    fn arms_that_end_in_different_returns_never_meet() {
        let all = joins(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %c = icmp ult %lid, %n
                brif %c, a, b
            a:
                ret
            b:
                ret
            }",
        );
        assert_eq!(join_of(&all, "entry"), None);
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
