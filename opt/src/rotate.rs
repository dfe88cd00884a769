//! Loop rotation: a `while` loop, whose header tests and then either enters the body or leaves,
//! becomes a guarded do-while loop, whose test is at the bottom. The header's instructions are
//! copied twice: into the preheader, as the guard (does the loop run at all?), and into the old
//! header's place at the end of the iteration, which branches back to the first block of the
//! body, now the header. An iteration then runs one branch instead of two (the test and the
//! jump back), for uniform loops as for divergent ones, whose latch takes the leaving lanes out
//! of EXEC where it stands (isel's plain break).
//!
//! ```text
//!  P: jump H(init)                      P: guard(init); brif c0, PH, M(guard values)
//!  H(p): test; brif c, B(a), E(b)       PH: jump B(a0, guard values)
//!  B(q) … latch: jump H(next)     ⇒     B(q, h…) … latch: jump H(next)
//!  E(r) …                               H(p): test; brif c, B(a, values), X
//!                                       X: jump M(values);  M(h…): jump E(b)
//! ```
//!
//! The header's values (its parameters and results) are read in the body through new
//! parameters of the body's first block and after the loop through those of `M`, which both
//! the guard and the loop's exit reach; the ones nothing reads are left to dead-code
//! elimination. The guard gets its own block `PH` into the loop, a preheader that runs only
//! when the loop does, and the loop's exit its own block `X`, which receives nothing, so that
//! isel sees its latch's exit as a plain break.
//!
//! Where lanes rejoin does not move. The guard's lanes that skip the loop wait at `M` for the
//! ones that run it, as they waited at the loop's exit before; the lanes that continue meet at
//! the old header as they met at the start of the next iteration; the leaving ones wait at `X`.
//! The header's instructions run on the same lanes as before (the guard's copy on those that
//! reach the loop, the latch's on those that continue it), and the loops taken have no wave
//! operation or effect in the header, so nothing can tell. But a `continue` (a back edge other
//! than the latch's) then reaches the old header inside the iteration: a divergent branch with
//! a continuing arm, whose join ignored that arm (its lanes left the iteration), gets the old
//! header as its join, so the blocks between run once for each group of lanes where they ran
//! once for all. Only a wave operation can tell (fuzz seed 79098329: a `wave_sum` after an `if`
//! holding a `continue`), so a loop with continues and a wave operation is not taken. Taken: a
//! loop entered from a preheader, left only by its header's two-way branch, whose other arm is
//! a block of the loop that only the header enters, with a header that is small
//! (`HEADER_BUDGET`), and with one back edge or no wave operation.
//!
//! The loop analysis is built once per run. A loop that contains a loop rotated in the same
//! run waits for the next run (the blocks the inner rotation added are not in the analysis);
//! the rotated loops of one run are therefore disjoint, and each block is visited a bounded
//! number of times: the pass is linear.

use crate::rewrite::{is_wave_op, loops_of, machine_size, preheader, resolve_operands};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{Block, BlockCall, Function, Inst, InstData, Value, ValueDef};

/// The largest header copied, in machine instructions ([`machine_size`]): two copies of it
/// replace the one, so a header larger than a test and its operands is left as it is.
const HEADER_BUDGET: u32 = 12;

/// Rotates the loops of `func` into guarded do-while form; true if any was.
pub fn rotate(func: &mut Function) -> bool {
    let Some((cfg, loops)) = loops_of(func) else { return false };
    let side_exits = side_exits(func, &cfg, &loops);
    let waves = wave_loops(func, &loops);
    let mut position: SecondaryMap<Block, usize> = SecondaryMap::with_capacity(func.dfg.blocks.len());
    for (i, &b) in func.layout.iter().enumerate() {
        position[b] = i;
    }
    // Whether a loop in this one was rotated in this run (then this one waits).
    let mut blocked: SecondaryMap<Loop, bool> = SecondaryMap::new();
    let mut rotation = Rotation {
        map: SecondaryMap::with_capacity(func.dfg.values.len()),
        in_body: SecondaryMap::with_capacity(func.dfg.values.len()),
        replaced: SecondaryMap::new(),
        after: SecondaryMap::new(),
    };
    let mut changed = false;
    // Inner loops first (their headers come later in reverse postorder).
    for lp in loops.loops().rev() {
        let continues = cfg.preds(loops.header(lp)).iter().filter(|&&p| loops.contains(lp, p)).count() > 1;
        let taken = !(blocked[lp] || side_exits[lp] || continues && waves[lp]);
        let rotated = taken && rotation.run(func, &cfg, &loops, &position, lp);
        changed |= rotated;
        if let Some(parent) = loops.parent(lp) {
            blocked[parent] |= blocked[lp] || rotated;
        }
    }
    if changed {
        let mut layout = Vec::with_capacity(func.layout.len() + 3 * rotation.after.keys().len());
        for &b in &func.layout {
            layout.push(rotation.replaced[b].expand().unwrap_or(b));
            layout.extend_from_slice(&rotation.after[b]);
        }
        func.layout = layout;
    }
    changed
}

/// Whether each loop is left by an edge from a block other than its header, found in one
/// pass over the edges: an edge `b -> s` leaves the loops around `b` that do not hold `s`, a
/// chain from the innermost; each edge marks the innermost loop of that chain it leaves from
/// elsewhere than the header, with the depth the chain stops at, and the marks go outwards in
/// one walk over the loops, inner first.
fn side_exits(func: &Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis) -> SecondaryMap<Loop, bool> {
    let depth = |lp: Option<Loop>| lp.map_or(0, |lp| loops.depth(lp));
    // The smallest depth down to which the loops of the chain from this one are left by a
    // side exit (`u32::MAX` when none is).
    let mut down_to: SecondaryMap<Loop, u32> = SecondaryMap::with_default(u32::MAX);
    for &b in cfg.rpo() {
        let Some(inner) = loops.loop_of(b) else { continue };
        let from = if loops.header(inner) == b { loops.parent(inner) } else { Some(inner) };
        let Some(from) = from else { continue };
        let Some(term) = func.dfg.terminator(b) else { continue };
        for call in func.dfg.insts[term].block_calls() {
            let s = call.block;
            // The innermost loop holding both `b` and `s`: `s`'s, unless `s` is the header of
            // a loop `b` enters.
            let target = loops.loop_of(s);
            let common = match target {
                Some(t) if !loops.contains(t, b) => depth(Some(t)) - 1,
                t => depth(t),
            };
            if common < loops.depth(from) {
                down_to[from] = down_to[from].min(common + 1);
            }
        }
    }
    let mut side: SecondaryMap<Loop, bool> = SecondaryMap::with_capacity(loops.loops().len());
    for lp in loops.loops().rev() {
        side[lp] = down_to[lp] <= loops.depth(lp);
        if let Some(parent) = loops.parent(lp) {
            if down_to[lp] <= loops.depth(parent) {
                down_to[parent] = down_to[parent].min(down_to[lp]);
            }
        }
    }
    side
}

/// Whether each loop holds a wave operation, in one walk over the blocks and one over the
/// loops (inner first, each passing its mark to its parent).
fn wave_loops(func: &Function, loops: &LoopAnalysis) -> SecondaryMap<Loop, bool> {
    let mut waves: SecondaryMap<Loop, bool> = SecondaryMap::with_capacity(loops.loops().len());
    for &b in &func.layout {
        if let Some(lp) = loops.loop_of(b) {
            waves[lp] |= func.dfg.blocks[b].insts.iter().any(|&i| is_wave_op(&func.dfg.insts[i]));
        }
    }
    for lp in loops.loops().rev() {
        if let Some(parent) = loops.parent(lp) {
            waves[parent] |= waves[lp];
        }
    }
    waves
}

/// What rotating the loops of one run shares: reused maps and the layout changes.
struct Rotation {
    /// The copy of each header value in the copy being made.
    map: SecondaryMap<Value, PackedOption<Value>>,
    /// What each header value becomes in the body: a parameter of its first block.
    in_body: SecondaryMap<Value, PackedOption<Value>>,
    /// The block that takes a rotated header's place in the layout (its preheader `PH`).
    replaced: SecondaryMap<Block, PackedOption<Block>>,
    /// The blocks placed after a loop's last block (its old header, `X` and `M`).
    after: SecondaryMap<Block, Vec<Block>>,
}

impl Rotation {
    /// Rotates `lp` when it is taken (see the module comment); true if it was.
    fn run(
        &mut self,
        func: &mut Function,
        cfg: &ControlFlowGraph,
        loops: &LoopAnalysis,
        position: &SecondaryMap<Block, usize>,
        lp: Loop,
    ) -> bool {
        let header = loops.header(lp);
        let Some(pre) = preheader(func, cfg, loops, lp) else { return false };
        let Some(term) = func.dfg.terminator(header) else { return false };
        let InstData::Brif { cond, dests } = &func.dfg.insts[term] else { return false };
        let (cond, dests) = (*cond, dests.clone());
        let inside = usize::from(!loops.contains(lp, dests[0].block));
        let body = dests[inside].block;
        let exit = dests[1 - inside].block;
        if body == header || loops.contains(lp, exit) || cfg.preds(body) != [header] {
            return false;
        }
        let insts = &func.dfg.blocks[header].insts;
        let mut size = 0;
        for &inst in &insts[..insts.len() - 1] {
            let data = &func.dfg.insts[inst];
            if data.has_side_effects() || is_wave_op(data) {
                return false;
            }
            size += machine_size(&func.dfg, data);
        }
        if size > HEADER_BUDGET {
            return false;
        }

        // The header's values: its parameters, then its results.
        let old_params = std::mem::take(&mut func.dfg.blocks[header].params);
        let old_insts = std::mem::take(&mut func.dfg.blocks[header].insts);
        let body_insts = &old_insts[..old_insts.len() - 1];
        let values: Vec<Value> =
            old_params.iter().copied().chain(body_insts.iter().filter_map(|&i| func.dfg.inst_result(i))).collect();

        // The body's first block reads each header value through a parameter: the one the
        // header already passed it, or a new one.
        let args_in = dests[inside].args.clone();
        for (&arg, &param) in args_in.iter().zip(&func.dfg.blocks[body].params) {
            let arg = func.dfg.resolve_aliases(arg);
            if values.contains(&arg) && self.in_body[arg].is_none() {
                self.in_body[arg] = param.into();
            }
        }
        let mut extra = Vec::new();
        for &v in &values {
            if self.in_body[v].is_none() {
                let ty = func.dfg.value_type(v);
                self.in_body[v] = func.dfg.append_block_param(body, ty).into();
                extra.push(v);
            }
        }
        let merge = func.dfg.make_block();
        let after: Vec<Value> =
            values.iter().map(|&v| func.dfg.append_block_param(merge, func.dfg.value_type(v))).collect();

        // The guard, in the preheader: the header with the preheader's arguments.
        let pre_jump = func.dfg.terminator(pre).expect("a preheader ends in a jump");
        let InstData::Jump { dest: entry } = func.dfg.insts[pre_jump].clone() else {
            unreachable!("a preheader jumps")
        };
        for (&p, &a) in old_params.iter().zip(&entry.args) {
            self.map[p] = a.into();
        }
        let guard = self.copy(func, body_insts);
        func.dfg.blocks[pre].insts.pop();
        func.dfg.blocks[pre].insts.extend_from_slice(&guard);
        let into = func.dfg.make_block();
        let calls = self.calls(func, &values, &args_in, &extra, merge, body);
        let guard_branch =
            self.branch(func, cond, inside, BlockCall { block: into, args: Default::default() }, calls.0, term);
        func.dfg.blocks[pre].insts.push(guard_branch);
        let first = calls.1;
        let jump = func.dfg.make_inst(InstData::Jump { dest: first }, None);
        func.set_srcloc(jump, func.srclocs[term]);
        func.dfg.blocks[into].insts.push(jump);

        // The test at the bottom, in the old header with new parameters.
        for &p in &old_params {
            let ty = func.dfg.value_type(p);
            self.map[p] = func.dfg.append_block_param(header, ty).into();
        }
        let latch = self.copy(func, body_insts);
        let out = func.dfg.make_block();
        let calls = self.calls(func, &values, &args_in, &extra, merge, body);
        let back = self.branch(func, cond, inside, calls.1, BlockCall { block: out, args: Default::default() }, term);
        func.dfg.blocks[header].insts = latch;
        func.dfg.blocks[header].insts.push(back);
        let leave = func.dfg.make_inst(InstData::Jump { dest: calls.0 }, None);
        func.set_srcloc(leave, func.srclocs[term]);
        func.dfg.blocks[out].insts.push(leave);

        // After the loop, the header's values are `M`'s parameters.
        let mut to_exit = dests[1 - inside].clone();
        for a in to_exit.args.iter_mut() {
            let v = func.dfg.resolve_aliases(*a);
            if let Some(i) = values.iter().position(|&x| x == v) {
                *a = after[i];
            }
        }
        let on = func.dfg.make_inst(InstData::Jump { dest: to_exit }, None);
        func.set_srcloc(on, func.srclocs[term]);
        func.dfg.blocks[merge].insts.push(on);

        // In the body, the header's values are the first block's parameters; elsewhere `M`'s.
        for &b in loops.blocks(lp) {
            if b == header {
                continue;
            }
            for i in 0..func.dfg.blocks[b].insts.len() {
                let inst = func.dfg.blocks[b].insts[i];
                resolve_operands(&mut func.dfg, inst);
                let data = &mut func.dfg.insts[inst];
                let in_body = &self.in_body;
                let rename = |a: &mut Value| {
                    if let Some(v) = in_body[*a].expand() {
                        *a = v;
                    }
                };
                data.args_mut().iter_mut().for_each(rename);
                for call in data.block_calls_mut() {
                    call.args.iter_mut().for_each(rename);
                }
            }
        }
        for (&v, &a) in values.iter().zip(&after) {
            func.dfg.values[v].def = ValueDef::Alias(a);
            self.in_body[v] = None.into();
            self.map[v] = None.into();
        }

        let last = *loops.blocks(lp).iter().max_by_key(|&&b| position[b]).expect("a loop has blocks");
        self.replaced[header] = into.into();
        self.after[last].extend_from_slice(&[header, out, merge]);
        true
    }

    /// Copies the header's instructions `insts` under `self.map` (each result's copy recorded
    /// there), at their source locations; returns the copies.
    fn copy(&mut self, func: &mut Function, insts: &[Inst]) -> Vec<Inst> {
        let mut copies = Vec::with_capacity(insts.len() + 1);
        for &inst in insts {
            let mut data = func.dfg.insts[inst].clone();
            for a in data.args_mut() {
                let v = func.dfg.resolve_aliases(*a);
                *a = self.map[v].expand().unwrap_or(v);
            }
            let copy = func.dfg.make_inst(data, func.dfg.inst_result(inst).map(|r| func.dfg.value_type(r)));
            func.set_srcloc(copy, func.srclocs[inst]);
            if let Some(r) = func.dfg.inst_result(inst) {
                self.map[r] = func.dfg.inst_result(copy).into();
            }
            copies.push(copy);
        }
        copies
    }

    /// The calls of the copy under `self.map`: to `M` with every header value, and to the
    /// body's first block with the header's arguments, then the `extra` header values.
    fn calls(
        &self,
        func: &Function,
        values: &[Value],
        args_in: &[Value],
        extra: &[Value],
        merge: Block,
        body: Block,
    ) -> (BlockCall, BlockCall) {
        let mapped = |v: &Value| {
            let v = func.dfg.resolve_aliases(*v);
            self.map[v].expand().unwrap_or(v)
        };
        let to_merge = BlockCall { block: merge, args: values.iter().map(mapped).collect() };
        let to_body = BlockCall { block: body, args: args_in.iter().chain(extra).map(mapped).collect() };
        (to_merge, to_body)
    }

    /// The copy under `self.map` of the header's branch `at` on `cond`: to `inside` into the
    /// body, the other way out.
    fn branch(
        &self,
        func: &mut Function,
        cond: Value,
        inside: usize,
        into: BlockCall,
        out: BlockCall,
        at: Inst,
    ) -> Inst {
        let cond = func.dfg.resolve_aliases(cond);
        let cond = self.map[cond].expand().unwrap_or(cond);
        let dests = if inside == 0 { [into, out] } else { [out, into] };
        let inst = func.dfg.make_inst(InstData::Brif { cond, dests: Box::new(dests) }, None);
        func.set_srcloc(inst, func.srclocs[at]);
        inst
    }
}
