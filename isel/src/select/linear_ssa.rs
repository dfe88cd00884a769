//! Linear SSA repair: makes every SGPR (and linear VGPR) temporary dominate its uses on the
//! linear CFG, where register allocation looks for them.
//!
//! Selection keeps the IR's SSA form, whose dominance is that of the logical CFG. The linear
//! CFG has paths the logical one lacks: the arm of a divergent branch that no lane takes is
//! skipped (`s_cbranch_execz`), and a loop's latch is reached from every divergent path of the
//! iteration. A uniform value the loop carries from one of those paths (a counter incremented
//! in the body of a loop whose exit is divergent) is then read on the way round from a block
//! that a skipping path also reaches. Those paths run only when no lane needs the value (EXEC
//! is empty on them, and an empty EXEC at the latch leaves the loop), so the value may be
//! anything there: the repair inserts `p_linear_phi`s at the iterated dominance frontier of
//! the definition, undefined from the paths that bypass it (Cytron et al.'s construction for
//! the one variable), and renames the uses along the linear dominator tree. The same
//! construction makes SSA of a temporary that selection writes on purpose on several paths
//! (a uniform loop parameter that continues on different uniform paths pass, see
//! `loops::latch_operands`): each write gets a temporary of its own. Temporaries that already
//! dominate their uses, nearly all, are left alone; the pass is linear in the function plus the
//! frontiers of the few it repairs.

use super::control::undef;
use isa::mir::{Def, Function, Inst, Operand, OperandKind};
use isa::opcode::Opcode;
use isa::reg::{RegClass, RegType, Temp};
use smallvec::SmallVec;

/// Whether register allocation places `rc` by linear-CFG liveness.
fn is_linear(rc: RegClass) -> bool {
    rc.ty == RegType::Sgpr || rc.linear
}

/// The linear CFG's dominator tree: immediate dominators (Cooper, Harvey and Kennedy over the
/// reverse postorder), and preorder intervals for constant-time dominance queries.
struct DomTree {
    idom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    children: Vec<Vec<u32>>,
    reachable: Vec<bool>,
}

impl DomTree {
    fn new(func: &Function) -> DomTree {
        let n = func.blocks.len();
        // Reverse postorder from block 0.
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let succs = &func.blocks[b as usize].linear_succs;
            if *i < succs.len() {
                let s = succs[*i];
                *i += 1;
                if !std::mem::replace(&mut seen[s as usize], true) {
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
        order.reverse();
        let mut rpo = vec![u32::MAX; n];
        for (i, &b) in order.iter().enumerate() {
            rpo[b as usize] = i as u32;
        }
        let mut idom = vec![u32::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new = u32::MAX;
                for &p in &func.blocks[b as usize].linear_preds {
                    if idom[p as usize] == u32::MAX {
                        continue;
                    }
                    new = if new == u32::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while rpo[x as usize] > rpo[y as usize] {
                                x = idom[x as usize];
                            }
                            while rpo[y as usize] > rpo[x as usize] {
                                y = idom[y as usize];
                            }
                        }
                        x
                    };
                }
                if new != idom[b as usize] {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for &b in order.iter().skip(1) {
            children[idom[b as usize] as usize].push(b);
        }
        let (mut pre, mut post) = (vec![0; n], vec![0; n]);
        let mut clock = 0;
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        pre[0] = 0;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if *i < children[b as usize].len() {
                let c = children[b as usize][*i];
                *i += 1;
                clock += 1;
                pre[c as usize] = clock;
                stack.push((c, 0));
            } else {
                post[b as usize] = clock;
                stack.pop();
            }
        }
        DomTree { idom, pre, post, children, reachable: seen }
    }

    fn dominates(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

/// Where each use of a linear temporary is: the block it is read in (a phi's operand is read
/// at the end of the corresponding predecessor).
fn uses(func: &Function, mut each: impl FnMut(Temp, u32)) {
    for (b, block) in func.blocks.iter().enumerate() {
        for inst in &block.insts {
            let preds = match inst.opcode {
                Opcode::PLinearPhi => Some(&block.linear_preds),
                Opcode::PPhi => Some(&block.logical_preds),
                _ => None,
            };
            for (k, op) in inst.ops.iter().enumerate() {
                if let OperandKind::Temp(t) = op.kind {
                    if is_linear(t.rc) {
                        each(t, preds.map_or(b as u32, |p| p[k]));
                    }
                }
            }
        }
    }
}

/// Repairs `func` (see the module comment).
pub(super) fn run(func: &mut Function) {
    let dom = DomTree::new(func);
    // The blocks defining each temporary (one for SSA values; several for a temporary that
    // selection writes on several paths on purpose, see `loops::latch_operands`).
    let mut def_blocks: Vec<SmallVec<[u32; 1]>> = vec![SmallVec::new(); func.temps as usize];
    for (b, block) in func.blocks.iter().enumerate() {
        for d in block.insts.iter().flat_map(|i| &i.defs) {
            if let Some(t) = d.temp {
                def_blocks[t.id as usize].push(b as u32);
            }
        }
    }
    let mut broken: Vec<Temp> = Vec::new();
    let mut marked = vec![false; func.temps as usize];
    uses(func, |t, at| {
        let defs = &def_blocks[t.id as usize];
        let bad = match defs.as_slice() {
            [] => false,
            &[d] => dom.reachable[d as usize] && dom.reachable[at as usize] && !dom.dominates(d, at),
            _ => true,
        };
        if bad && !std::mem::replace(&mut marked[t.id as usize], true) {
            broken.push(t);
        }
    });
    if broken.is_empty() {
        return;
    }
    let frontiers = dominance_frontiers(func, &dom);
    for t in broken {
        let defs = std::mem::take(&mut def_blocks[t.id as usize]);
        repair(func, &dom, &frontiers, t, &defs);
    }
}

/// The dominance frontier of every block (Cooper, Harvey and Kennedy's walk from each join).
fn dominance_frontiers(func: &Function, dom: &DomTree) -> Vec<Vec<u32>> {
    let mut df: Vec<Vec<u32>> = vec![Vec::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        if block.linear_preds.len() < 2 || !dom.reachable[b] {
            continue;
        }
        for &p in &block.linear_preds {
            let mut runner = p;
            while dom.reachable[runner as usize] && runner != dom.idom[b] {
                let f = &mut df[runner as usize];
                if f.last() != Some(&(b as u32)) {
                    f.push(b as u32);
                }
                runner = dom.idom[runner as usize];
            }
        }
    }
    df
}

/// Places the phis of `t` (defined in the blocks `defs`) and renames its uses; when it has
/// several definitions, each gets a temporary of its own.
fn repair(func: &mut Function, dom: &DomTree, frontiers: &[Vec<u32>], t: Temp, defs: &[u32]) {
    let n = func.blocks.len();
    // The iterated frontier of the definitions: a phi of `t` at each.
    let mut phi_of: Vec<Option<Temp>> = vec![None; n];
    let mut work = defs.to_vec();
    while let Some(b) = work.pop() {
        for &f in &frontiers[b as usize] {
            if phi_of[f as usize].is_none() {
                let p = fresh(&mut func.temps, t.rc);
                let undefs: Vec<Operand> = func.blocks[f as usize].linear_preds.iter().map(|_| undef(t.rc)).collect();
                func.blocks[f as usize].insts.insert(0, Inst::new(Opcode::PLinearPhi, &[Def::temp(p)], &undefs));
                phi_of[f as usize] = Some(p);
                work.push(f);
            }
        }
    }
    // Renaming along the dominator tree: the definition reaching each point.
    let mut stack: Vec<(u32, Option<Temp>)> = vec![(0, None)];
    while let Some((b, reaching)) = stack.pop() {
        let mut cur = reaching;
        let bi = b as usize;
        for inst in &mut func.blocks[bi].insts {
            let inserted =
                inst.opcode == Opcode::PLinearPhi && inst.defs[0].temp.is_some_and(|d| Some(d) == phi_of[bi]);
            if inserted {
                cur = phi_of[bi];
                continue;
            }
            if !matches!(inst.opcode, Opcode::PLinearPhi | Opcode::PPhi) {
                for op in inst.ops.iter_mut().filter(|o| o.kind == OperandKind::Temp(t)) {
                    *op = cur.map_or(undef(t.rc), Operand::temp);
                }
            }
            if let Some(d) = inst.defs.iter_mut().find(|d| d.temp == Some(t)) {
                let version = if defs.len() > 1 { fresh(&mut func.temps, t.rc) } else { t };
                d.temp = Some(version);
                cur = Some(version);
            }
        }
        let reaching_out = cur.map_or(undef(t.rc), Operand::temp);
        // The phis of the successors on either CFG read their operand for `b` at its end.
        let mut succs = func.blocks[bi].linear_succs.clone();
        succs.extend(func.blocks[bi].logical_succs.iter().copied());
        succs.sort_unstable();
        succs.dedup();
        for s in succs {
            let block = &mut func.blocks[s as usize];
            let (lin, log) = (block.linear_preds.clone(), block.logical_preds.clone());
            for inst in &mut block.insts {
                let preds = match inst.opcode {
                    Opcode::PLinearPhi => &lin,
                    Opcode::PPhi => &log,
                    _ => break,
                };
                let inserted = inst.defs[0].temp.is_some_and(|d| Some(d) == phi_of[s as usize]);
                for (k, &p) in preds.iter().enumerate() {
                    if p == b && (inserted || inst.ops[k].kind == OperandKind::Temp(t)) {
                        inst.ops[k] = reaching_out;
                    }
                }
            }
        }
        for &c in dom.children[bi].iter().rev() {
            stack.push((c, cur));
        }
    }
}

/// A new temporary of class `rc` (the function's counter borrowed while its blocks are).
fn fresh(temps: &mut u32, rc: RegClass) -> Temp {
    let t = Temp { id: *temps, rc };
    *temps += 1;
    t
}
