//! Full unrolling: an innermost loop whose trip count the constants of the program decide is
//! replaced by that many copies of its body, so that the counter becomes a constant in each
//! copy and folds into the addresses and comparisons it feeds, and the loop's branch and
//! counter arithmetic disappear.
//!
//! The trip count is found by running the loop's control on the interpreter's arithmetic
//! (`crate::fold::evaluate`): the header's parameters start from the constants the preheader
//! passes, every instruction of the loop that has constant operands is evaluated, and the
//! header's branch must be decided in every iteration; the values that the back edge carries
//! start the next iteration. So `for k in 0..16`, `offset <<= 1` until 64, or a counter that
//! alternates between two constants all unroll, whatever the rest of the body computes.
//!
//! The loops taken: innermost, left only by the header's two-way branch (no other exit, no
//! return inside), entered from one preheader, with one back edge. Every lane of the wave then
//! runs the same iterations, so the copies keep where the lanes of a branch inside the body
//! rejoin (the end of that copy of the body) and what wave operations and barriers see.
//!
//! Copy 0 is the loop's own blocks; copies 1 to n are new blocks after them in the layout,
//! each header without parameters (its values are the previous copy's back-edge arguments),
//! and the last copy's header jumps to the exit. Uses of the header's values after the loop
//! read the last copy's. The size of an unrolled loop (in machine instructions, roughly: a wave
//! reduction counts as the lanes it visits) is bounded by a budget per `-O` level,
//! and what one run of the pass may add to a function by a multiple of it, so the pass stays
//! linear in the program; folding, CFG simplification and value numbering then clean up.
//! A loop that loads or stores private memory at an address its counter decides (`p[k]`) gets
//! `PRIVATE_BONUS` times the budget, as LLVM's AMDGPU unrolling threshold for private
//! arrays: unrolled, its addresses become constants and scalar replacement can keep the array
//! in registers instead of scratch memory.
//!
//! Partial unrolling ([`unroll_partially`], once after the rounds of `-O2`/`-O3`) takes the
//! same loops when the whole trip count does not fit the budget but a small body does: the
//! body is repeated `factor` times (2, 4 or 8, a divisor of the trip count) per iteration.
//! The header's test stays in copy 0 only: copy k runs iterations k, k + factor, ..., none of
//! which is the last (the trip count is a multiple of the factor), so the copies' headers jump
//! into their bodies, the last copy's back edge goes to the loop's header, and the loop is
//! still left from copy 0's header with its own values. What changes: one test, branch and
//! counter update per `factor` iterations, and the counter's constant steps fold into the
//! offsets of the copies' addresses. The trip count is found as for full unrolling, under a
//! bound on the iterations evaluated per loop and per run (linear in the function).

use crate::fold::evaluate;
use crate::rewrite::{constant, machine_size, may_loop};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{AddrSpace, Block, BlockCall, Function, InstData, Value};

/// At `-O2`: the most instructions a fully unrolled loop may have.
const BUDGET: usize = 320;
/// At `-O3`: the larger budget.
const BUDGET_O3: usize = 1280;
/// What one run of the pass may add to a function, in budgets.
const GROWTH: usize = 8;
/// How many budgets a loop gets whose counter decides a private address (LLVM's AMDGPU
/// threshold for such loops is 2,000 against its default 300).
const PRIVATE_BONUS: usize = 4;
/// The most instructions a partially unrolled loop's body may have (all its copies).
const PARTIAL_BUDGET: usize = 64;
/// The unrolling factors partial unrolling tries, largest first.
const FACTORS: [usize; 3] = [8, 4, 2];
/// The most instructions evaluated to find one loop's trip count for partial unrolling.
const EVALUATED_PER_LOOP: usize = 1 << 14;
/// What one run of partial unrolling may evaluate besides one loop's worth, per instruction of
/// the function.
const EVALUATED_PER_INST: usize = 64;

/// Unrolls the loops of `func` that fit `-O2`'s budget; true if any was.
pub fn unroll(func: &mut Function) -> bool {
    unroll_with(func, Mode::Full { budget: BUDGET })
}

/// Unrolls the loops of `func` that fit `-O3`'s larger budget; true if any was.
pub fn unroll_o3(func: &mut Function) -> bool {
    unroll_with(func, Mode::Full { budget: BUDGET_O3 })
}

/// Unrolls by a small factor the loops of `func` with a known trip count and a small body
/// (see the module comment); true if any was.
pub fn unroll_partially(func: &mut Function) -> bool {
    unroll_with(func, Mode::Partial)
}

/// Which unrolling a run does.
#[derive(Copy, Clone)]
enum Mode {
    /// Full unrolling within a budget.
    Full { budget: usize },
    /// Partial unrolling.
    Partial,
}

/// A loop to unroll.
struct Plan {
    lp: Loop,
    /// Which destination of the header's branch leaves the loop.
    exit: usize,
    /// How many copies of the header are made: the trip count when unrolling fully, the
    /// factor less one when partially.
    copies: usize,
    /// Whether the loop is unrolled fully.
    full: bool,
    /// What the copies add, in machine instructions ([`loop_size`]).
    added: usize,
}

/// Unrolls every innermost loop that `mode` takes.
fn unroll_with(func: &mut Function, mode: Mode) -> bool {
    if !may_loop(func) {
        return false;
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    let mut has_inner: SecondaryMap<Loop, bool> = SecondaryMap::new();
    for lp in loops.loops() {
        if let Some(parent) = loops.parent(lp) {
            has_inner[parent] = true;
        }
    }
    let mut env: SecondaryMap<Value, Option<u64>> = SecondaryMap::with_capacity(func.dfg.values.len());
    // `indexes_private`'s marks, all false between loops.
    let mut varies: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut allowance = match mode {
        Mode::Full { budget } => budget * GROWTH,
        Mode::Partial => PARTIAL_BUDGET * GROWTH,
    };
    let mut evaluations = EVALUATED_PER_LOOP + EVALUATED_PER_INST * func.dfg.insts.len();
    let mut plans = Vec::new();
    for lp in loops.loops().filter(|&lp| !has_inner[lp]) {
        let limits = match mode {
            Mode::Full { budget } => {
                let private = indexes_private(func, loops.blocks(lp), &mut varies);
                let budget = if private { budget * PRIVATE_BONUS } else { budget };
                Limits { size: budget.min(allowance), evaluated: usize::MAX }
            }
            Mode::Partial => Limits { size: allowance, evaluated: evaluations.min(EVALUATED_PER_LOOP) },
        };
        let Some((plan, evaluated)) = plan(func, &cfg, &loops, lp, mode, limits, &mut env) else { continue };
        evaluations = evaluations.saturating_sub(evaluated);
        let Some(plan) = plan else { continue };
        allowance -= plan.added;
        plans.push(plan);
    }
    if plans.is_empty() {
        return false;
    }
    let mut copier = Copier {
        block_map: SecondaryMap::with_capacity(func.dfg.blocks.len()),
        map: SecondaryMap::with_capacity(func.dfg.values.len()),
        after_loop: SecondaryMap::with_capacity(func.dfg.values.len()),
        owner: SecondaryMap::with_capacity(func.dfg.values.len()),
    };
    // The new blocks of each loop, placed after its last block in the layout.
    let mut block_owner: SecondaryMap<Block, u32> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    let mut placed: SecondaryMap<Block, u32> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    let mut position: SecondaryMap<Block, usize> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    for (i, &b) in func.layout.iter().enumerate() {
        position[b] = i;
    }
    let mut copies: Vec<Vec<Block>> = Vec::with_capacity(plans.len());
    let mut dropped: SecondaryMap<Block, bool> = SecondaryMap::new();
    for (index, plan) in plans.iter().enumerate() {
        let id = index as u32 + 1;
        let blocks = loops.blocks(plan.lp);
        for &b in blocks {
            block_owner[b] = id;
        }
        let last = *blocks.iter().max_by_key(|&&b| position[b]).expect("a loop has blocks");
        placed[last] = id;
        let copy = copier.unroll(func, blocks, plan, id);
        for &b in &copy {
            block_owner[b] = id;
        }
        copies.push(copy);
        if plan.full && plan.copies == 0 {
            // The body never runs: only the header stays.
            for &b in &blocks[1..] {
                dropped[b] = true;
            }
        }
    }
    let mut layout = Vec::with_capacity(func.layout.len() + copies.iter().map(Vec::len).sum::<usize>());
    for &b in &func.layout {
        if !dropped[b] {
            layout.push(b);
        }
        if placed[b] != 0 {
            layout.extend_from_slice(&copies[placed[b] as usize - 1]);
        }
    }
    func.layout = layout;
    // After the loop, the header's values are the last copy's.
    for &b in &func.layout {
        for &inst in &func.dfg.blocks[b].insts {
            let mut data = std::mem::replace(&mut func.dfg.insts[inst], InstData::Unreachable);
            let outside = |v: &mut Value| {
                // The last copy's value may be another unrolled loop's header value (what a
                // back edge carried from before that loop), which is in turn that loop's last
                // copy's: a chain, one step per loop at most. A loop's own header value among
                // them is its first iteration's (copy 0 is the loop's own blocks) and stays.
                let mut from = block_owner[b];
                for _ in 0..=plans.len() {
                    match copier.after_loop[*v].expand() {
                        Some(n) if copier.owner[*v] != from => {
                            from = copier.owner[*v];
                            *v = n;
                        }
                        _ => break,
                    }
                }
            };
            data.args_mut().iter_mut().for_each(outside);
            for call in data.block_calls_mut() {
                call.args.iter_mut().for_each(outside);
            }
            func.dfg.insts[inst] = data;
        }
    }
    true
}

/// The size of `blocks` in machine instructions, roughly ([`machine_size`]).
fn loop_size(func: &Function, blocks: &[Block]) -> usize {
    let insts = blocks.iter().flat_map(|&b| &func.dfg.blocks[b].insts);
    insts.map(|&i| machine_size(&func.dfg, &func.dfg.insts[i]) as usize).sum()
}

/// Whether a private load or store in `blocks` (a loop, header first, in reverse postorder)
/// has an address that depends on a parameter of the header: what the iteration decides.
/// `varies` is all false on entry and is left so (one buffer serves every loop, so the work
/// is the loop's size, not the function's).
fn indexes_private(func: &Function, blocks: &[Block], varies: &mut SecondaryMap<Value, bool>) -> bool {
    let dfg = &func.dfg;
    let private = |v: Value| dfg.value_type(v).addr_space() == Some(AddrSpace::Private);
    if !blocks.iter().flat_map(|&b| &dfg.blocks[b].insts).any(|&i| match &dfg.insts[i] {
        InstData::Load { ptr, .. } => private(*ptr),
        InstData::Store { args, .. } => private(args[0]),
        _ => false,
    }) {
        return false;
    }
    for &p in &dfg.blocks[blocks[0]].params {
        varies[p] = true;
    }
    // One pass in reverse postorder: what depends on a header value only through the loop's
    // other block parameters is missed, which costs at most the bonus.
    let mut found = false;
    'scan: for &b in blocks {
        for &inst in &dfg.blocks[b].insts {
            let data = &dfg.insts[inst];
            let depends = data.args().iter().any(|&a| varies[dfg.resolve_aliases(a)]);
            found = match data {
                InstData::Load { ptr, .. } => depends && private(*ptr),
                InstData::Store { args, .. } => varies[dfg.resolve_aliases(args[0])] && private(args[0]),
                _ => false,
            };
            if found {
                break 'scan;
            }
            if depends {
                if let Some(r) = dfg.inst_result(inst) {
                    varies[r] = true;
                }
            }
        }
    }
    for &p in &dfg.blocks[blocks[0]].params {
        varies[p] = false;
    }
    for r in blocks.iter().flat_map(|&b| &dfg.blocks[b].insts).filter_map(|&i| dfg.inst_result(i)) {
        varies[r] = false;
    }
    found
}

/// The bounds of one loop's plan.
#[derive(Copy, Clone)]
struct Limits {
    /// The most instructions the copies may add.
    size: usize,
    /// The most instructions to evaluate to find the trip count.
    evaluated: usize,
}

/// Whether `lp` has the shape this pass unrolls, and if so how `mode` unrolls it within
/// `limits` (or not at all), with the instructions evaluated to find that out.
fn plan(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    lp: Loop,
    mode: Mode,
    limits: Limits,
    env: &mut SecondaryMap<Value, Option<u64>>,
) -> Option<(Option<Plan>, usize)> {
    let dfg = &func.dfg;
    let header = loops.header(lp);
    let blocks = loops.blocks(lp);
    let InstData::Brif { cond, dests } = &dfg.insts[dfg.terminator(header)?] else { return None };
    let exit = match dests.each_ref().map(|d| loops.contains(lp, d.block)) {
        [true, false] => 1,
        [false, true] => 0,
        _ => return None,
    };
    // One back edge; no other way out (returns included).
    let mut back_edge = None;
    for &b in blocks {
        let data = &dfg.insts[dfg.terminator(b)?];
        if !matches!(data, InstData::Jump { .. } | InstData::Brif { .. } | InstData::Switch { .. }) {
            return None;
        }
        for call in data.block_calls() {
            if call.block == header {
                if back_edge.replace(call).is_some() {
                    return None;
                }
            } else if !loops.contains(lp, call.block) && b != header {
                return None;
            }
        }
    }
    let back_edge = back_edge?;
    // One way in, from the preheader.
    let mut outside = cfg.preds(header).iter().filter(|&&p| !loops.contains(lp, p));
    let preheader = *outside.next()?;
    if outside.next().is_some() {
        return None;
    }
    let mut entries = dfg.insts[dfg.terminator(preheader)?].block_calls().iter().filter(|c| c.block == header);
    let entry = entries.next()?;
    if entries.next().is_some() {
        return None;
    }
    let size = loop_size(func, blocks);
    let header_size = loop_size(func, &blocks[..1]);
    let lookup = |env: &SecondaryMap<Value, Option<u64>>, v: Value| {
        let v = dfg.resolve_aliases(v);
        env[v].or_else(|| constant(dfg, v))
    };
    let mut incoming: Vec<Option<u64>> = entry.args.iter().map(|&a| constant(dfg, a)).collect();
    let mut trip = None;
    let mut evaluated = 0;
    for t in 0.. {
        let over = match mode {
            Mode::Full { .. } => t * size + header_size > limits.size,
            Mode::Partial => evaluated + size > limits.evaluated,
        };
        if over {
            break;
        }
        evaluated += size;
        for (i, &b) in blocks.iter().enumerate() {
            for (k, &p) in dfg.blocks[b].params.iter().enumerate() {
                env[p] = if i == 0 { incoming[k] } else { None };
            }
            for &inst in &dfg.blocks[b].insts {
                if let Some(r) = dfg.inst_result(inst) {
                    let value = evaluate(dfg, &dfg.insts[inst], dfg.value_type(r), |v| lookup(env, v));
                    env[r] = value;
                }
            }
            if i == 0 {
                let Some(c) = lookup(env, *cond) else { break };
                let taken = if c & 1 == 1 { 0 } else { 1 };
                if taken == exit {
                    trip = Some(t);
                    break;
                }
            }
        }
        if trip.is_some() || lookup(env, *cond).is_none() {
            break;
        }
        incoming = back_edge.args.iter().map(|&a| lookup(env, a)).collect();
    }
    // The values of this loop are unknown to the next one.
    for &b in blocks {
        for &p in &dfg.blocks[b].params {
            env[p] = None;
        }
        for &inst in &dfg.blocks[b].insts {
            if let Some(r) = dfg.inst_result(inst) {
                env[r] = None;
            }
        }
    }
    let plan = trip.and_then(|trip| match mode {
        Mode::Full { .. } => (trip * size + header_size <= limits.size).then_some(Plan {
            lp,
            exit,
            copies: trip,
            full: true,
            added: trip * size,
        }),
        Mode::Partial => {
            // A factor that divides the trip count, leaves at least two iterations (else the
            // loop is one unrolled whole) and keeps the body small.
            let factor = FACTORS.into_iter().find(|&k| {
                trip % k == 0 && trip / k >= 2 && k * size <= PARTIAL_BUDGET && (k - 1) * size <= limits.size
            })?;
            Some(Plan { lp, exit, copies: factor - 1, full: false, added: (factor - 1) * size })
        }
    });
    Some((plan, evaluated))
}

/// The maps the copies are made with, shared by the loops of one run of the pass.
struct Copier {
    /// In the copy being made: the copy of each block of the loop.
    block_map: SecondaryMap<Block, PackedOption<Block>>,
    /// In the copy being made: the copy of each value of the loop.
    map: SecondaryMap<Value, PackedOption<Value>>,
    /// For a header's value: what replaces it after the loop (the last copy's).
    after_loop: SecondaryMap<Value, PackedOption<Value>>,
    /// For a header's value: the number of its loop (1-based), whose blocks and copies keep
    /// reading it (copy 1 reads what copy 0's back edge carried).
    owner: SecondaryMap<Value, u32>,
}

impl Copier {
    /// Unrolls the loop `blocks` (header first, in reverse postorder) of `plan`, numbered
    /// `id`; returns the new blocks in layout order.
    fn unroll(&mut self, func: &mut Function, blocks: &[Block], plan: &Plan, id: u32) -> Vec<Block> {
        let header = blocks[0];
        let mut headers = vec![header];
        headers.extend((0..plan.copies).map(|_| func.dfg.make_block()));
        let mut new_blocks = Vec::with_capacity(plan.copies * blocks.len());
        // Copy 0 is the loop's own blocks, rewritten last, as the copies are made from them.
        let mut back_args = back_edge_args(func, blocks, header);
        for k in 1..=plan.copies {
            // The last copy of a full unrolling is its header alone, which leaves.
            let copied = if k < plan.copies || !plan.full { blocks } else { &blocks[..1] };
            self.block_map[header] = headers[k].into();
            for (&p, &a) in func.dfg.blocks[header].params.clone().iter().zip(&back_args) {
                self.map[p] = a.into();
            }
            new_blocks.push(headers[k]);
            for &b in &copied[1..] {
                let nb = func.dfg.make_block();
                self.block_map[b] = nb.into();
                new_blocks.push(nb);
                for p in func.dfg.blocks[b].params.clone() {
                    let ty = func.dfg.value_type(p);
                    self.map[p] = func.dfg.append_block_param(nb, ty).into();
                }
            }
            for &b in copied {
                let nb = self.block_map[b].unwrap();
                for i in 0..func.dfg.blocks[b].insts.len() {
                    let inst = func.dfg.blocks[b].insts[i];
                    let mut data = func.dfg.insts[inst].clone();
                    let map = |v: &mut Value| *v = self.map[*v].expand().unwrap_or(*v);
                    data.args_mut().iter_mut().for_each(map);
                    for call in data.block_calls_mut() {
                        call.args.iter_mut().for_each(map);
                        if call.block != header {
                            call.block = self.block_map[call.block].expand().unwrap_or(call.block);
                        }
                    }
                    let result = func.dfg.inst_result(inst).map(|r| func.dfg.value_type(r));
                    let ni = func.dfg.make_inst(data, result);
                    func.srclocs[ni] = func.srclocs[inst];
                    if let (Some(r), Some(nr)) = (func.dfg.inst_result(inst), func.dfg.inst_result(ni)) {
                        self.map[r] = nr.into();
                    }
                    func.dfg.blocks[nb].insts.push(ni);
                }
            }
            let copy: Vec<Block> = copied.iter().map(|&b| self.block_map[b].unwrap()).collect();
            back_args = back_edge_args(func, &copy, header);
            rewrite_copy(func, &copy, plan, &headers, k);
        }
        rewrite_copy(func, blocks, plan, &headers, 0);
        // The next loop's exits may be this loop's blocks: they map to themselves.
        for &b in blocks {
            self.block_map[b] = None.into();
        }
        // After a fully unrolled loop, the header's values are the last copy's (a partially
        // unrolled one is left from its own header).
        if plan.full && plan.copies > 0 {
            let header_values = func.dfg.blocks[header]
                .params
                .iter()
                .copied()
                .chain(func.dfg.blocks[header].insts.iter().filter_map(|&i| func.dfg.inst_result(i)));
            for v in header_values.collect::<Vec<_>>() {
                self.after_loop[v] = self.map[v];
                self.owner[v] = id;
            }
        }
        new_blocks
    }
}

/// The values the back edge of a copy of the loop (`copy`) passes to `header`.
fn back_edge_args(func: &Function, copy: &[Block], header: Block) -> Vec<Value> {
    let calls = copy.iter().filter_map(|&b| func.dfg.terminator(b)).flat_map(|t| func.dfg.insts[t].block_calls());
    calls.filter(|c| c.block == header).flat_map(|c| c.args.iter().copied()).collect()
}

/// Turns the header's branch of copy `k` (`copy`, header first) into a jump (into the
/// body, or out of the loop after the last copy of a full unrolling; copy 0 of a partial one
/// keeps its test) and the back edge into a jump to the next copy's header (the last copy
/// of a partial unrolling keeps its back edge).
fn rewrite_copy(func: &mut Function, copy: &[Block], plan: &Plan, headers: &[Block], k: usize) {
    let header = headers[0];
    if plan.full || k > 0 {
        let term = func.dfg.terminator(copy[0]).expect("the header ends in its branch");
        let InstData::Brif { dests, .. } = &func.dfg.insts[term] else { unreachable!("checked by plan") };
        let taken = if plan.full && k == plan.copies { plan.exit } else { 1 - plan.exit };
        let dest: BlockCall = dests[taken].clone();
        func.dfg.insts[term] = InstData::Jump { dest };
    }
    if k == plan.copies {
        return;
    }
    for &b in copy {
        let term = func.dfg.terminator(b).expect("loop blocks end in a branch");
        for call in func.dfg.insts[term].block_calls_mut() {
            if call.block == header {
                call.args.clear();
                call.block = headers[k + 1];
            }
        }
    }
}
