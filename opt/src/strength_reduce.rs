//! Strength reduction of induction variables: in a loop with a preheader, a value that is an
//! affine function `iv * s + b` of a basic induction variable (a header parameter that every
//! back edge advances by a loop-invariant `c`, as `iv + c` or `iv - c`), with `s` and `b`
//! loop-invariant and a multiplication or shift by the counter on the way, becomes a header
//! parameter of its own: initialized in the preheader to `init * s + b` and advanced on each
//! back edge by `c * s` (computed in the preheader). Addresses `ptradd(p, iv * s + b)` with `p`
//! invariant become pointer parameters advanced by `ptradd(q, c * s)` in the same way. The
//! multiplications and shifts by the counter leave the loop; the counter stays only where
//! something else reads it (the exit test, usually), and dead-code elimination removes the
//! rest.
//!
//! Exactness: integer arithmetic wraps, so `(iv + c) * s + b == (iv * s + b) + c * s` modulo
//! 2^n, and `x << k == x * (1 << k)` with the shift amount taken modulo the width on both
//! sides. Address offsets are followed only when as wide as the pointer (an offset sign-
//! extended to a wider pointer does not commute with the increment), and an extension of the
//! counter (`zext`/`sext` before scaling) ends a chain: it commutes with the increment only
//! where the counter provably does not wrap, which this pass does not try to prove. A
//! `ptradd` by a constant ends a chain too, so the constant stays an offset that instruction
//! selection folds into the memory instruction.
//!
//! What is reduced: the values at the end of a chain (those read by something other than the
//! next step of a chain: a load, a comparison, a branch argument, code after the loop) whose
//! chain multiplies or shifts by the counter; a chain of additions only (`iv + n`) costs one
//! addition per iteration either way and is left alone. Rotated (do-while) loops and loops
//! tested at the top are the same to the pass, which reads only the header, the preheader and
//! the back edges; a loop with several back edges is reduced when each advances the counter by
//! an invariant amount (each edge then advances the new parameter by its own step).
//!
//! The pass runs once after rotation (in `-O2`'s final list, [`crate::pipeline`]): unrolling
//! has then removed the loops with a constant trip count, whose counters it reads, and the
//! loops have their final shape. Loops are visited inner first, so the initial values an inner
//! loop's reduction computes in its preheader, affine in an outer counter, are reduced in
//! the outer loop in turn. Each loop's instructions are read once per loop that contains them.

use crate::rewrite::{constant, loops_of, make_at, preheader, replace, resolve_operands};
use cranelift_entity::SecondaryMap;
use foldhash::fast::FixedState;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::interp::eval;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{BinaryOp, Block, Function, Inst, InstData, Type, Value, ValueDef};
use std::collections::HashMap;

/// Reduces the strength of the induction-variable arithmetic of `func`'s loops; true if
/// anything changed.
pub fn strength_reduce(func: &mut Function) -> bool {
    let Some((cfg, loops)) = loops_of(func) else { return false };
    let mut r = Reducer {
        block_of: SecondaryMap::with_capacity(func.dfg.values.len()),
        uses: SecondaryMap::with_capacity(func.dfg.values.len()),
        form_of: SecondaryMap::with_capacity(func.dfg.values.len()),
        removed: SecondaryMap::with_capacity(func.dfg.insts.len()),
        forms: Vec::new(),
        ivs: Vec::new(),
        latches: Vec::new(),
        pending: Vec::new(),
        dirty: Vec::new(),
        is_dirty: SecondaryMap::new(),
        constants: HashMap::default(),
    };
    for &b in &func.layout {
        for &p in &func.dfg.blocks[b].params {
            r.block_of[p] = Some(b);
        }
        for ii in 0..func.dfg.blocks[b].insts.len() {
            let inst = func.dfg.blocks[b].insts[ii];
            resolve_operands(&mut func.dfg, inst);
            if let Some(v) = func.dfg.inst_result(inst) {
                r.block_of[v] = Some(b);
            }
            let data = &func.dfg.insts[inst];
            for &a in data.args().iter().chain(data.block_calls().iter().flat_map(|c| c.args.iter())) {
                r.uses[a] += 1;
            }
        }
    }
    let mut changed = false;
    for lp in loops.loops().rev() {
        changed |= r.reduce_loop(func, &cfg, &loops, lp);
    }
    // The reduced values' instructions leave their blocks (their results are aliases now).
    for &block in &r.dirty {
        let removed = &r.removed;
        func.dfg.blocks[block].insts.retain(|&i| !removed[i]);
    }
    changed
}

/// A loop-invariant operand of the affine forms: a constant (its bits) or a value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Term {
    Const(u64),
    Val(Value),
}

/// A value of the loop as `base + (iv * s + b)`: `ivs[iv]` the counter, `ty` the integer
/// type of `iv * s + b`, `base` the invariant pointer of an address.
#[derive(Clone, Debug)]
struct Form {
    iv: usize,
    ty: Type,
    s: Term,
    b: Term,
    base: Option<Value>,
    /// Whether the chain multiplies or shifts the counter (reducing it then saves work).
    scaled: bool,
    /// How many operands of the loop's other forms read it.
    chain_uses: u32,
}

/// A basic induction variable (a header parameter, whose form is `iv * 1 + 0`): its value on
/// entry, and how much each back edge (in [`Reducer::latches`]' order) adds to it.
struct Iv {
    init: Value,
    steps: Vec<Term>,
}

/// The pass's state, kept across loops (side tables by entity, reused buffers).
struct Reducer {
    /// The block that defines each value (new values included).
    block_of: SecondaryMap<Value, Option<Block>>,
    /// How many operands and branch arguments read each value.
    uses: SecondaryMap<Value, u32>,
    /// The value's index in `forms`, during one loop's visit.
    form_of: SecondaryMap<Value, Option<u32>>,
    /// The instructions of reduced values, to take out of their blocks at the end.
    removed: SecondaryMap<Inst, bool>,
    /// The affine values of the loop and their forms, in the order the visit found them.
    forms: Vec<(Value, Form)>,
    /// The loop's basic induction variables.
    ivs: Vec<Iv>,
    /// The back edges of the loop: the block and the index of its branch's call to the header.
    latches: Vec<(Block, usize)>,
    /// The instructions made for the preheader, placed there once something is reduced.
    pending: Vec<Inst>,
    /// The blocks that hold instructions of `removed`, and whether a block is one of them.
    dirty: Vec<Block>,
    is_dirty: SecondaryMap<Block, bool>,
    /// The constants of `pending`, by type and bits.
    constants: HashMap<(Type, u64), Value, FixedState>,
}

impl Reducer {
    /// Reduces the affine values of `lp`; true if any was.
    fn reduce_loop(&mut self, func: &mut Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis, lp: Loop) -> bool {
        let Some(pre) = preheader(func, cfg, loops, lp) else { return false };
        let header = loops.header(lp);
        let mut preds: Vec<Block> = cfg.preds(header).iter().copied().filter(|&b| loops.contains(lp, b)).collect();
        preds.sort_unstable();
        preds.dedup();
        self.latches.clear();
        for pred in preds {
            let term = func.dfg.terminator(pred).expect("a predecessor ends in a branch");
            for (i, call) in func.dfg.insts[term].block_calls().iter().enumerate() {
                if call.block == header {
                    self.latches.push((pred, i));
                }
            }
        }
        self.forms.clear();
        self.ivs.clear();
        self.pending.clear();
        self.constants.clear();
        let entry_call = {
            let term = func.dfg.terminator(pre).expect("a preheader ends in a jump");
            func.dfg.insts[term].block_calls()[0].args.clone()
        };
        for (index, &p) in func.dfg.blocks[header].params.clone().iter().enumerate() {
            let ty = func.dfg.value_type(p);
            if !ty.is_int() || ty == Type::I1 {
                continue;
            }
            let Some(steps) = self.steps(func, loops, lp, header, index, p) else { continue };
            let iv = self.ivs.len();
            self.ivs.push(Iv { init: func.dfg.resolve_aliases(entry_call[index]), steps });
            let form = Form { iv, ty, s: Term::Const(1), b: Term::Const(0), base: None, scaled: false, chain_uses: 0 };
            self.add_form(p, form);
        }
        let mut any_root = false;
        if !self.ivs.is_empty() {
            for &block in loops.blocks(lp) {
                for ii in 0..func.dfg.blocks[block].insts.len() {
                    let inst = func.dfg.blocks[block].insts[ii];
                    if self.removed[inst] {
                        continue;
                    }
                    resolve_operands(&mut func.dfg, inst);
                    if let Some(form) = self.transfer(func, loops, lp, inst) {
                        any_root |= form.scaled;
                        let v = func.dfg.inst_result(inst).expect("an affine instruction has a result");
                        self.add_form(v, form);
                    }
                }
            }
        }
        let roots: Vec<usize> = if any_root {
            (0..self.forms.len())
                .filter(|&f| {
                    let (v, form) = &self.forms[f];
                    form.scaled && self.uses[*v] > form.chain_uses
                })
                .collect()
        } else {
            Vec::new()
        };
        for &f in &roots {
            self.reduce(func, pre, header, f);
        }
        if !roots.is_empty() {
            for &inst in &self.pending {
                if let Some(v) = func.dfg.inst_result(inst) {
                    self.block_of[v] = Some(pre);
                }
            }
            let insts = &mut func.dfg.blocks[pre].insts;
            let at = insts.len() - 1;
            insts.splice(at..at, self.pending.drain(..));
        }
        for (v, _) in self.forms.drain(..) {
            self.form_of[v] = None;
        }
        !roots.is_empty()
    }

    /// When header parameter `index` (`p`) is a basic induction variable, what each back edge
    /// adds to it: every back edge passes `p + c` or `p - c` with `c` invariant.
    fn steps(
        &mut self,
        func: &mut Function,
        loops: &LoopAnalysis,
        lp: Loop,
        header: Block,
        index: usize,
        p: Value,
    ) -> Option<Vec<Term>> {
        let ty = func.dfg.value_type(p);
        let mut steps = Vec::with_capacity(self.latches.len());
        for li in 0..self.latches.len() {
            let (latch, call) = self.latches[li];
            let term = func.dfg.terminator(latch).expect("a latch ends in a branch");
            let arg = func.dfg.resolve_aliases(func.dfg.insts[term].block_calls()[call].args[index]);
            debug_assert_eq!(func.dfg.insts[term].block_calls()[call].block, header);
            let ValueDef::Result(inc) = func.dfg.values[arg].def else { return None };
            let InstData::Binary { op, args: [x, y] } = func.dfg.insts[inc] else { return None };
            let (x, y) = (func.dfg.resolve_aliases(x), func.dfg.resolve_aliases(y));
            let step = match op {
                BinaryOp::Add if x == p => self.invariant(func, loops, lp, y)?,
                BinaryOp::Add if y == p => self.invariant(func, loops, lp, x)?,
                BinaryOp::Sub if x == p => {
                    let c = self.invariant(func, loops, lp, y)?;
                    self.sub(func, ty, Term::Const(0), c, inc)
                }
                _ => return None,
            };
            steps.push(step);
        }
        Some(steps)
    }

    /// `v` as an invariant term of `lp`, when it is one: a constant, or defined outside.
    fn invariant(&self, func: &Function, loops: &LoopAnalysis, lp: Loop, v: Value) -> Option<Term> {
        if let Some(k) = constant(&func.dfg, v) {
            return Some(Term::Const(k));
        }
        self.block_of[v].is_some_and(|b| !loops.contains(lp, b)).then_some(Term::Val(v))
    }

    fn add_form(&mut self, v: Value, form: Form) {
        self.form_of[v] = Some(self.forms.len() as u32);
        self.forms.push((v, form));
    }

    /// The form of `v`'s index in `forms`, if `v` has one.
    fn form(&self, v: Value) -> Option<usize> {
        self.form_of[v].map(|f| f as usize)
    }

    /// The affine form of `inst`'s result, from its operands' (an affine operand and an
    /// invariant one), counting the chain use of the affine operand.
    fn transfer(&mut self, func: &mut Function, loops: &LoopAnalysis, lp: Loop, inst: Inst) -> Option<Form> {
        let (f, form) = match func.dfg.insts[inst] {
            InstData::Binary { op, args: [x, y] } => {
                let ty = func.dfg.value_type(x);
                if !ty.is_int() || ty == Type::I1 {
                    return None;
                }
                let (f, other, affine_first) = match (self.form(x), self.form(y)) {
                    (Some(f), None) => (f, y, true),
                    (None, Some(f)) if op != BinaryOp::Shl => (f, x, false),
                    _ => return None,
                };
                let k = self.invariant(func, loops, lp, other)?;
                let Form { s, b, .. } = self.forms[f].1;
                let mut form = self.forms[f].1.clone();
                form.chain_uses = 0;
                match op {
                    BinaryOp::Add => form.b = self.add(func, ty, b, k, inst),
                    BinaryOp::Sub if affine_first => form.b = self.sub(func, ty, b, k, inst),
                    BinaryOp::Sub => {
                        form.s = self.sub(func, ty, Term::Const(0), s, inst);
                        form.b = self.sub(func, ty, k, b, inst);
                    }
                    BinaryOp::Mul | BinaryOp::Shl => {
                        let m = match op {
                            BinaryOp::Shl => self.binary(func, op, ty, Term::Const(1), k, inst),
                            _ => k,
                        };
                        form.s = self.mul(func, ty, s, m, inst);
                        form.b = self.mul(func, ty, b, m, inst);
                        form.scaled = true;
                    }
                    _ => return None,
                }
                (f, form)
            }
            InstData::PtrAdd { args: [p, off] } => {
                let pointer_bits = func.dfg.value_type(p).bits();
                let off_ty = func.dfg.value_type(off);
                if off_ty.bits() != pointer_bits {
                    return None;
                }
                match (self.form(p), self.form(off)) {
                    // ptradd(p, iv * s + b) with p invariant.
                    (None, Some(f)) if self.forms[f].1.base.is_none() => {
                        self.invariant(func, loops, lp, p)?;
                        let mut form = self.forms[f].1.clone();
                        form.chain_uses = 0;
                        form.base = Some(p);
                        (f, form)
                    }
                    // ptradd(q, n) with q an address of the form and n invariant, not a
                    // constant (a constant offset stays in the memory instruction).
                    (Some(f), None) if constant(&func.dfg, off).is_none() => {
                        let k = self.invariant(func, loops, lp, off)?;
                        let mut form = self.forms[f].1.clone();
                        form.chain_uses = 0;
                        form.b = self.add(func, off_ty, form.b, k, inst);
                        (f, form)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        self.forms[f].1.chain_uses += 1;
        Some(form)
    }

    /// Replaces the value of `forms[f]` by a new parameter of `header`, initialized in the
    /// preheader `pre` and advanced on each back edge.
    fn reduce(&mut self, func: &mut Function, pre: Block, header: Block, f: usize) {
        let (v, form) = self.forms[f].clone();
        let ValueDef::Result(at) = func.dfg.values[v].def else { unreachable!("a reduced value is a result") };
        let ty = func.dfg.value_type(v);
        let init = self.ivs[form.iv].init;
        let init = constant(&func.dfg, init).map_or(Term::Val(init), Term::Const);
        let scaled = self.mul(func, form.ty, form.s, init, at);
        let offset = self.add(func, form.ty, scaled, form.b, at);
        let start = match form.base {
            Some(base) if offset == Term::Const(0) => base,
            Some(base) => {
                let offset = self.value(func, form.ty, offset, at);
                self.emit(func, InstData::PtrAdd { args: [base, offset] }, ty, at)
            }
            None => self.value(func, ty, offset, at),
        };
        let q = func.dfg.append_block_param(header, ty);
        self.block_of[q] = Some(header);
        let term = func.dfg.terminator(pre).expect("a preheader ends in a jump");
        func.dfg.insts[term].block_calls_mut()[0].args.push(start);
        self.uses[start] += 1;
        for li in 0..self.latches.len() {
            let (latch, call) = self.latches[li];
            let step = self.ivs[form.iv].steps[li];
            let step = self.mul(func, form.ty, form.s, step, at);
            let step = self.value(func, form.ty, step, at);
            let data = match form.base {
                Some(_) => InstData::PtrAdd { args: [q, step] },
                None => InstData::Binary { op: BinaryOp::Add, args: [q, step] },
            };
            let (next_inst, next) = make_at(func, data, ty, at);
            self.uses[q] += 1;
            self.uses[step] += 1;
            self.block_of[next] = Some(latch);
            let insts = &mut func.dfg.blocks[latch].insts;
            let end = insts.len() - 1;
            insts.insert(end, next_inst);
            let term = func.dfg.terminator(latch).expect("a latch ends in a branch");
            func.dfg.insts[term].block_calls_mut()[call].args.push(next);
            self.uses[next] += 1;
        }
        // The value is the parameter now; its instruction goes. (An operand reduced before it
        // is an alias of its own parameter now, which has its uses.)
        for &a in func.dfg.insts[at].args() {
            self.uses[func.dfg.resolve_aliases(a)] -= 1;
        }
        self.uses[q] += std::mem::take(&mut self.uses[v]);
        replace(&mut func.dfg, v, q);
        func.dfg.results[at] = None.into();
        self.removed[at] = true;
        let block = self.block_of[v].expect("a reduced value has a block");
        if !std::mem::replace(&mut self.is_dirty[block], true) {
            self.dirty.push(block);
        }
    }

    /// `a * b`, folded where the terms allow.
    fn mul(&mut self, func: &mut Function, ty: Type, a: Term, b: Term, at: Inst) -> Term {
        match (a, b) {
            (Term::Const(0), _) | (_, Term::Const(0)) => Term::Const(0),
            (Term::Const(1), t) | (t, Term::Const(1)) => t,
            _ => self.binary(func, BinaryOp::Mul, ty, a, b, at),
        }
    }

    /// `a + b`, folded where the terms allow.
    fn add(&mut self, func: &mut Function, ty: Type, a: Term, b: Term, at: Inst) -> Term {
        match (a, b) {
            (Term::Const(0), t) | (t, Term::Const(0)) => t,
            _ => self.binary(func, BinaryOp::Add, ty, a, b, at),
        }
    }

    /// `a - b`, folded where the terms allow.
    fn sub(&mut self, func: &mut Function, ty: Type, a: Term, b: Term, at: Inst) -> Term {
        match b {
            Term::Const(0) => a,
            _ => self.binary(func, BinaryOp::Sub, ty, a, b, at),
        }
    }

    /// `a op b` of type `ty`: a constant when both are (the interpreter's arithmetic),
    /// otherwise an instruction for the preheader.
    fn binary(&mut self, func: &mut Function, op: BinaryOp, ty: Type, a: Term, b: Term, at: Inst) -> Term {
        if let (Term::Const(x), Term::Const(y)) = (a, b) {
            return Term::Const(eval::binary(op, ty, x, y) & ty.mask());
        }
        // A constant operand of a commutative operation goes second, as `reassociate` puts it.
        let (a, b) = match (a, b) {
            (Term::Const(_), Term::Val(_)) if op != BinaryOp::Sub && op != BinaryOp::Shl => (b, a),
            _ => (a, b),
        };
        let a = self.value(func, ty, a, at);
        let b = self.value(func, ty, b, at);
        Term::Val(self.emit(func, InstData::Binary { op, args: [a, b] }, ty, at))
    }

    /// The term as a value of type `ty` (a constant made in the preheader).
    fn value(&mut self, func: &mut Function, ty: Type, t: Term, at: Inst) -> Value {
        match t {
            Term::Val(v) => v,
            Term::Const(k) => {
                let imm = k & ty.mask();
                if let Some(&v) = self.constants.get(&(ty, imm)) {
                    return v;
                }
                let v = self.emit(func, InstData::IntConst { ty, imm }, ty, at);
                self.constants.insert((ty, imm), v);
                v
            }
        }
    }

    /// A new instruction for the preheader.
    fn emit(&mut self, func: &mut Function, data: InstData, ty: Type, at: Inst) -> Value {
        for &a in data.args() {
            self.uses[a] += 1;
        }
        let (inst, v) = make_at(func, data, ty, at);
        self.pending.push(inst);
        v
    }
}
