//! Scalar replacement of private arrays: a private slot whose address is only loaded from and
//! stored to (through `ptradd` chains; never stored itself, passed to a block or a call,
//! selected, compared or cast) becomes SSA values, one per element, and leaves the function's
//! slots, so it costs neither scratch memory nor memory instructions.
//!
//! The elements. Every access of a promoted slot has one size S, and each offset accessed at a
//! constant (as the interpreter's arithmetic computes it, `crate::fold::evaluate`, so the
//! counters that unrolling leaves unfolded count) is an element: a multiple of S inside the
//! slot. A slot also accessed at a dynamic offset is promoted only when it has at most
//! [`MAX_DYNAMIC_ELEMENTS`] elements and those accesses are aligned to S (an offset between two
//! elements then faults in the interpreter); every element is then a value, a dynamic load a
//! chain of selects on `offset == k·S`, and a dynamic store one select per element. An offset
//! outside the slot is outside the array, whose other bytes do not exist in the kernel
//! language (the interpreter reaches the frame's next slot there, or faults): what such an
//! access reads or writes is not kept. Accesses of one size and several types (an f32 stored,
//! its bits loaded as a u32) share an integer value through bitcasts, for the 32- and 64-bit
//! integers and floats whose bitcasts instruction selection takes; other mixes stay in memory.
//!
//! The SSA form is built as Braun et al.'s "Simple and Efficient Construction of Static Single
//! Assignment Form" (CC 2013) builds it on a complete CFG: each block's accesses are rewritten
//! in order with the values stored before them in the block; what a block reads before storing
//! it is looked up afterwards, one element at a time, through single predecessors up to a block
//! that stores it, and at a join becomes a block parameter whose arguments are looked up in
//! turn, on an explicit work list, each block's answer kept; a parameter that receives a single
//! value is then removed. The work is the number of blocks between the accesses of each element
//! and its stores, with no recursion. An element nothing stored reads what the interpreter's
//! unwritten private memory holds: zero. That is so in a kernel, whose private memory starts
//! zeroed, but a helper's frame holds what earlier calls left, so helpers are left alone, as
//! are functions that could reach a slot through a pointer the pass cannot trace (a call, or a
//! private or flat access through any other pointer).

use crate::fold::evaluate;
use crate::rewrite::{constant, make_at, replace, resolve_operands};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::interp::eval::sext;
use frontend_ir::{AddrSpace, Block, ConvOp, Function, Inst, InstData, IntCC, Slot, Type, Value, ValueDef};

/// The most elements an array accessed at a dynamic offset may have to live in registers: each
/// dynamic access becomes that many compares and selects, as LLVM's AMDGPU backend does for the
/// arrays it promotes to vectors. The bench's `private_array` (16 elements filled in a loop,
/// read at data-dependent indices) then needs no scratch memory, and, once unrolling has made
/// the fill loop's stores constant ([`crate::unroll`]'s bonus for private addresses), runs
/// about 1.1 times LLVM's dynamic instructions.
pub const MAX_DYNAMIC_ELEMENTS: u32 = 16;

/// Replaces the private arrays of `func` that only loads and stores use by SSA values, and
/// removes their slots; true if any slot was removed.
pub fn scalar_replace(func: &mut Function) -> bool {
    if !func.is_kernel() || !func.slots.values().any(|s| s.space == AddrSpace::Private) {
        return false;
    }
    let cfg = ControlFlowGraph::new(func);
    let Some(mut traced) = trace(func, &cfg) else { return false };
    let Some(vars) = plan(func, &mut traced) else { return false };
    let mut ssa = Ssa::new(vars);
    rewrite(func, &cfg, &traced, &mut ssa);
    ssa.resolve(func, &cfg, &traced.reachable);
    remove_slots(func, &traced.slots);
    true
}

/// An element of a promoted slot: one SSA variable.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Var(u32);
entity_impl!(Var);

/// Where a pointer derived from a private slot points: `slot + offset + dynamic`.
#[derive(Copy, Clone, Default)]
struct Origin {
    slot: PackedOption<Slot>,
    /// The constant part of the offset, modulo 2^32 (private addresses have 32 bits).
    offset: u32,
    /// The part known only at run time (an `i32` or `i64` value), if any.
    dynamic: PackedOption<Value>,
}

/// A load or store through a pointer derived from a private slot.
struct Access {
    inst: Inst,
    origin: Origin,
    /// The type loaded or stored.
    ty: Type,
    /// The alignment it promises.
    align: u32,
    /// The element it reads or writes; for a dynamic access, the slot's first.
    var: Var,
}

/// What the accesses of a slot allow.
#[derive(Copy, Clone, Default)]
struct SlotPlan {
    /// Something else than a plain load or store uses its address, or an access does not fit
    /// the slot's elements: the slot stays.
    kept: bool,
    /// The type of its elements: its accesses' type, or the integer of their size when they
    /// have several types.
    ty: Option<Type>,
    /// Some access has a dynamic offset.
    dynamic: bool,
    /// Its elements, from this variable on.
    first: u32,
    /// For a slot with dynamic accesses: how many elements it has.
    count: u32,
}

/// What [`trace`] finds.
struct Traced {
    origin: SecondaryMap<Value, Origin>,
    /// In the order [`rewrite`] visits them: blocks in reverse postorder, each in order.
    accesses: Vec<Access>,
    slots: SecondaryMap<Slot, SlotPlan>,
    reachable: SecondaryMap<Block, bool>,
}

/// Follows the addresses of the private slots of `func` to their uses; `None` when some access
/// may reach a slot through a pointer that does not come from it.
fn trace(func: &mut Function, cfg: &ControlFlowGraph) -> Option<Traced> {
    let mut traced = Traced {
        origin: SecondaryMap::with_capacity(func.dfg.values.len()),
        accesses: Vec::new(),
        slots: SecondaryMap::with_capacity(func.slots.len()),
        reachable: SecondaryMap::with_capacity(func.dfg.blocks.len()),
    };
    let mut known: SecondaryMap<Value, Option<u64>> = SecondaryMap::with_capacity(func.dfg.values.len());
    for &block in cfg.rpo() {
        traced.reachable[block] = true;
        for i in 0..func.dfg.blocks[block].insts.len() {
            let inst = func.dfg.blocks[block].insts[i];
            resolve_operands(&mut func.dfg, inst);
            let dfg = &func.dfg;
            let data = &dfg.insts[inst];
            let result = dfg.inst_result(inst);
            let Traced { origin, accesses, slots, .. } = &mut traced;
            let value_of = |known: &SecondaryMap<Value, Option<u64>>, v: Value| known[v].or_else(|| constant(dfg, v));
            if let Some(r) = result {
                known[r] = evaluate(dfg, data, dfg.value_type(r), |v| value_of(&known, v));
            }
            let traced_ptr = data.mem_ptr().filter(|&p| origin[p].slot.is_some());
            match *data {
                InstData::SlotAddr { slot } if func.slots[slot].space == AddrSpace::Private => {
                    origin[result?] = Origin { slot: slot.into(), offset: 0, dynamic: None.into() };
                }
                InstData::PtrAdd { args: [p, off] } if origin[p].slot.is_some() => {
                    let o = origin[p];
                    origin[result?] = match value_of(&known, off) {
                        Some(bits) => {
                            Origin { offset: o.offset.wrapping_add(sext(dfg.value_type(off), bits) as u32), ..o }
                        }
                        None => {
                            // A second dynamic part: not an element this pass tells apart.
                            if o.dynamic.is_some() {
                                slots[o.slot.unwrap()].kept = true;
                            }
                            Origin { dynamic: off.into(), ..o }
                        }
                    };
                }
                InstData::Load { ty, ptr, flags } if traced_ptr.is_some() => {
                    accesses.push(Access { inst, origin: origin[ptr], ty, align: flags.align, var: Var(0) });
                    if flags.volatile || flags.av.is_some() {
                        slots[origin[ptr].slot.unwrap()].kept = true;
                    }
                }
                InstData::Store { args: [ptr, v], flags } if traced_ptr.is_some() => {
                    let ty = dfg.value_type(v);
                    accesses.push(Access { inst, origin: origin[ptr], ty, align: flags.align, var: Var(0) });
                    if flags.volatile || flags.av.is_some() {
                        slots[origin[ptr].slot.unwrap()].kept = true;
                    }
                    // The address stored is not an access.
                    if let Some(s) = origin[v].slot.expand() {
                        slots[s].kept = true;
                    }
                }
                // A cast keeps the slot, and its accesses through the result stay traced.
                InstData::AddrSpaceCast { arg, .. } if origin[arg].slot.is_some() => {
                    slots[origin[arg].slot.unwrap()].kept = true;
                    origin[result?] = origin[arg];
                }
                InstData::Call { .. } => return None,
                _ => {
                    if data.mem_ptr().is_some_and(|p| {
                        origin[p].slot.is_none()
                            && matches!(dfg.value_type(p).addr_space(), Some(AddrSpace::Private | AddrSpace::Flat))
                    }) {
                        return None;
                    }
                    escape(data, origin, slots);
                }
            }
        }
    }
    // Code that never runs keeps the slots it names.
    for &block in &func.layout {
        if traced.reachable[block] {
            continue;
        }
        for &inst in &func.dfg.blocks[block].insts {
            let data = &func.dfg.insts[inst];
            if let InstData::SlotAddr { slot } = *data {
                traced.slots[slot].kept = true;
            }
            escape(data, &traced.origin, &mut traced.slots);
        }
    }
    Some(traced)
}

/// Keeps the slots whose addresses `data` uses as operands or branch arguments.
fn escape(data: &InstData, origin: &SecondaryMap<Value, Origin>, slots: &mut SecondaryMap<Slot, SlotPlan>) {
    let calls = data.block_calls().iter().flat_map(|c| c.args.iter());
    for &v in data.args().iter().chain(calls) {
        if let Some(s) = origin[v].slot.expand() {
            slots[s].kept = true;
        }
    }
}

/// Decides which private slots become values, and numbers their elements; `None` when none
/// does. Returns the type of each element.
fn plan(func: &Function, traced: &mut Traced) -> Option<PrimaryMap<Var, Type>> {
    let slots = &mut traced.slots;
    for a in &traced.accesses {
        let slot = a.origin.slot.unwrap();
        let (data, p) = (&func.slots[slot], &mut slots[slot]);
        let bytes = a.ty.bytes().unwrap_or(0);
        p.ty = match p.ty {
            None => Some(a.ty),
            Some(t) if t == a.ty => Some(t),
            Some(t) if t.bytes() == Some(bytes) && punnable(t) && punnable(a.ty) => Some(integer(bytes)),
            Some(t) => {
                p.kept = true;
                Some(t)
            }
        };
        let fits = if a.origin.dynamic.is_some() {
            p.dynamic = true;
            // An offset between two elements faults: it is misaligned for the access.
            a.align >= bytes && data.align >= bytes
        } else {
            a.origin.offset.is_multiple_of(bytes)
                && u64::from(a.origin.offset) + u64::from(bytes) <= u64::from(data.size)
        };
        p.kept |= !fits;
    }
    let mut vars = PrimaryMap::new();
    let mut promoted = false;
    for (slot, data) in func.slots.iter() {
        let p = &mut slots[slot];
        if data.space != AddrSpace::Private || p.kept {
            p.kept = true;
            continue;
        }
        if let (true, Some(ty)) = (p.dynamic, p.ty) {
            let count = data.size / ty.bytes().unwrap_or(1);
            if count == 0 || count > MAX_DYNAMIC_ELEMENTS {
                p.kept = true;
                continue;
            }
            p.first = vars.len() as u32;
            p.count = count;
            for _ in 0..count {
                vars.push(ty);
            }
        }
        promoted = true;
    }
    if !promoted {
        return None;
    }
    // A slot without dynamic accesses has an element per offset accessed.
    let accesses = &mut traced.accesses;
    let mut order: Vec<usize> =
        (0..accesses.len()).filter(|&i| !slots[accesses[i].origin.slot.unwrap()].kept).collect();
    order.sort_unstable_by_key(|&i| (accesses[i].origin.slot.unwrap(), accesses[i].origin.offset));
    let mut last = None;
    for i in order {
        let o = accesses[i].origin;
        let p = slots[o.slot.unwrap()];
        let ty = p.ty.expect("an accessed slot has a type");
        accesses[i].var = if p.dynamic {
            let k = if o.dynamic.is_some() { 0 } else { o.offset / ty.bytes().unwrap_or(1) };
            Var(p.first + k)
        } else {
            if last != Some((o.slot, o.offset)) {
                last = Some((o.slot, o.offset));
                vars.push(ty);
            }
            Var(vars.len() as u32 - 1)
        };
    }
    Some(vars)
}

/// Whether the elements of a slot accessed as `ty` and as another type of its size may be one
/// integer value, bitcast: 32- and 64-bit integers and floats, the bitcasts that keep the bits
/// in the same registers, which instruction selection takes (not f16 and i16, nor pointers).
fn punnable(ty: Type) -> bool {
    matches!(ty, Type::I32 | Type::F32 | Type::I64 | Type::F64)
}

/// The integer type of `bytes` bytes (4 or 8: see [`punnable`]).
fn integer(bytes: u32) -> Type {
    if bytes == 8 {
        Type::I64
    } else {
        Type::I32
    }
}

/// Rewrites the accesses of the promoted slots into values and selects, and drops their
/// address computations.
fn rewrite(func: &mut Function, cfg: &ControlFlowGraph, traced: &Traced, ssa: &mut Ssa) {
    let promoted = |v: Value| traced.origin[v].slot.expand().is_some_and(|s| !traced.slots[s].kept);
    let mut next = traced.accesses.iter().peekable();
    for &block in cfg.rpo() {
        let old = std::mem::take(&mut func.dfg.blocks[block].insts);
        let mut insts = Vec::with_capacity(old.len());
        for inst in old {
            let access = next.next_if(|a| a.inst == inst);
            if let Some(a) = access.filter(|a| !traced.slots[a.origin.slot.unwrap()].kept) {
                let plan = &traced.slots[a.origin.slot.unwrap()];
                ssa.access(func, &mut insts, block, a, plan);
            } else if !func.dfg.inst_result(inst).is_some_and(promoted) {
                insts.push(inst);
            }
        }
        func.dfg.blocks[block].insts = insts;
        ssa.finish_block(block);
    }
}

/// A block parameter the SSA construction adds: its block, its value (pending until it is
/// placed or found to be another value), and its argument from each predecessor in
/// [`ControlFlowGraph::preds`] order.
struct NewParam {
    block: Block,
    value: Value,
    args: Vec<Value>,
}

/// The SSA construction: the elements' values within the block being rewritten, and what is
/// left to look up across blocks.
struct Ssa {
    ty: PrimaryMap<Var, Type>,
    /// Each element's value at the current point of the block being rewritten.
    current: SecondaryMap<Var, PackedOption<Value>>,
    /// Whether the block being rewritten stores the element.
    stored: SecondaryMap<Var, bool>,
    /// The elements with a `current` value.
    touched: Vec<Var>,
    /// Values a block reads before storing them: (element, block, a pending value that
    /// becomes the element's value where the block starts).
    reads: Vec<(Var, Block, Value)>,
    /// The last value each block stores in each element it stores.
    stores: Vec<(Var, Block, Value)>,
    /// The zero of each element type, made on first use.
    zeros: Vec<(Type, Value)>,
    /// Their instructions, for the start of the entry block.
    zero_insts: Vec<Inst>,
}

impl Ssa {
    fn new(ty: PrimaryMap<Var, Type>) -> Ssa {
        Ssa {
            current: SecondaryMap::with_capacity(ty.len()),
            stored: SecondaryMap::with_capacity(ty.len()),
            ty,
            touched: Vec::new(),
            reads: Vec::new(),
            stores: Vec::new(),
            zeros: Vec::new(),
            zero_insts: Vec::new(),
        }
    }

    /// The value of `var` at this point of `block`.
    fn read(&mut self, func: &mut Function, var: Var, block: Block) -> Value {
        if let Some(v) = self.current[var].expand() {
            return v;
        }
        let v = func.dfg.make_pending_value(self.ty[var]);
        self.reads.push((var, block, v));
        self.current[var] = v.into();
        self.touched.push(var);
        v
    }

    /// Stores `v` in `var` at this point of the block.
    fn write(&mut self, var: Var, v: Value) {
        if self.current[var].is_none() {
            self.touched.push(var);
        }
        self.current[var] = v.into();
        self.stored[var] = true;
    }

    /// Records what `block` stores last in each element.
    fn finish_block(&mut self, block: Block) {
        for var in self.touched.drain(..) {
            if std::mem::take(&mut self.stored[var]) {
                self.stores.push((var, block, self.current[var].expect("touched")));
            }
            self.current[var] = None.into();
        }
    }

    /// The zero of `ty`, which unwritten private memory holds.
    fn zero(&mut self, func: &mut Function, ty: Type) -> Value {
        if let Some(&(_, v)) = self.zeros.iter().find(|z| z.0 == ty) {
            return v;
        }
        let data = if ty.is_float() { InstData::FloatConst { ty, bits: 0 } } else { InstData::IntConst { ty, imm: 0 } };
        let inst = func.dfg.make_inst(data, Some(ty));
        let v = func.dfg.inst_result(inst).expect("made with a result");
        self.zeros.push((ty, v));
        self.zero_insts.push(inst);
        v
    }

    /// Rewrites the access `a` (in `block`) of a slot of `plan`, appending what replaces it to
    /// `insts`.
    fn access(&mut self, func: &mut Function, insts: &mut Vec<Inst>, block: Block, a: &Access, plan: &SlotPlan) {
        let at = a.inst;
        let element = |k: u32| Var(a.var.0 + k);
        // A dynamic access: whether the dynamic part of the offset, as the 32 bits a private
        // address keeps, is that of element k (in an array of one element, it can only be
        // that one).
        let dynamic = a.origin.dynamic.expand().filter(|_| plan.count > 1).map(|d| {
            let index = match func.dfg.value_type(d) {
                Type::I32 => d,
                _ => emit(func, insts, at, InstData::Convert { op: ConvOp::Itrunc, ty: Type::I32, arg: d }, Type::I32),
            };
            let bytes = self.ty[a.var].bytes().unwrap_or(1);
            move |func: &mut Function, insts: &mut Vec<Inst>, k: u32| {
                let imm = u64::from(k.wrapping_mul(bytes).wrapping_sub(a.origin.offset));
                let c = emit(func, insts, at, InstData::IntConst { ty: Type::I32, imm }, Type::I32);
                emit(func, insts, at, InstData::Icmp { cc: IntCC::Eq, args: [index, c] }, Type::I1)
            }
        });
        let count = plan.count;
        match func.dfg.insts[at] {
            InstData::Load { ty, .. } => {
                let value = match dynamic {
                    None => self.read(func, a.var, block),
                    Some(is) => {
                        // Out of the array (no element matches), the last element is read.
                        let mut v = self.read(func, element(count - 1), block);
                        for k in (0..count - 1).rev() {
                            let cond = is(func, insts, k);
                            let e = self.read(func, element(k), block);
                            v = emit(func, insts, at, InstData::Select { args: [cond, e, v] }, self.ty[a.var]);
                        }
                        v
                    }
                };
                let value = bitcast(func, insts, at, value, ty);
                if let Some(result) = func.dfg.inst_result(at) {
                    replace(&mut func.dfg, result, value);
                    func.dfg.results[at] = None.into();
                }
            }
            InstData::Store { args: [_, v], .. } => {
                let v = bitcast(func, insts, at, v, self.ty[a.var]);
                match dynamic {
                    None => self.write(a.var, v),
                    Some(is) => {
                        for k in 0..count {
                            let cond = is(func, insts, k);
                            let e = self.read(func, element(k), block);
                            let s = emit(func, insts, at, InstData::Select { args: [cond, v, e] }, self.ty[a.var]);
                            self.write(element(k), s);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Gives each value read before its block stored it the element's value where the block
    /// starts, adding the block parameters that takes, and puts the zeros in the entry block.
    fn resolve(&mut self, func: &mut Function, cfg: &ControlFlowGraph, reachable: &SecondaryMap<Block, bool>) {
        let Some(entry) = func.entry() else { return };
        self.reads.sort_by_key(|r| r.0);
        self.stores.sort_by_key(|s| s.0);
        let mut lookup = Lookup {
            entry,
            cfg,
            reachable,
            end: SecondaryMap::with_capacity(func.dfg.blocks.len()),
            start: SecondaryMap::with_capacity(func.dfg.blocks.len()),
            visited: Vec::new(),
            params: Vec::new(),
            work: Vec::new(),
        };
        let (mut r, mut s) = (0, 0);
        while r < self.reads.len() {
            let var = self.reads[r].0;
            while s < self.stores.len() && self.stores[s].0 < var {
                s += 1;
            }
            let stores_from = s;
            while s < self.stores.len() && self.stores[s].0 == var {
                let (_, block, v) = self.stores[s];
                lookup.end[block] = v.into();
                s += 1;
            }
            while r < self.reads.len() && self.reads[r].0 == var {
                let (_, block, pending) = self.reads[r];
                let v = lookup.at_start(self, func, var, block);
                replace(&mut func.dfg, pending, v);
                r += 1;
            }
            while let Some(i) = lookup.work.pop() {
                let block = lookup.params[i].block;
                let mut args = Vec::with_capacity(cfg.preds(block).len());
                for &pred in cfg.preds(block) {
                    args.push(match reachable[pred] {
                        true => lookup.at_end(self, func, var, pred),
                        // A branch that never runs passes anything.
                        false => self.zero(func, self.ty[var]),
                    });
                }
                lookup.params[i].args = args;
            }
            for &(_, block, _) in &self.stores[stores_from..s] {
                lookup.end[block] = None.into();
            }
            for b in lookup.visited.drain(..) {
                lookup.start[b] = None.into();
            }
        }
        place_params(func, cfg, lookup.params);
        let insts = &mut func.dfg.blocks[entry].insts;
        insts.splice(0..0, self.zero_insts.drain(..));
    }
}

/// The lookup of one element's value across blocks.
struct Lookup<'a> {
    entry: Block,
    cfg: &'a ControlFlowGraph,
    reachable: &'a SecondaryMap<Block, bool>,
    /// The element's value where each block that stores it ends.
    end: SecondaryMap<Block, PackedOption<Value>>,
    /// The element's value where each block visited starts.
    start: SecondaryMap<Block, PackedOption<Value>>,
    /// The blocks with a `start` value.
    visited: Vec<Block>,
    /// Every parameter added, for all elements.
    params: Vec<NewParam>,
    /// The parameters of this element whose arguments are still to look up.
    work: Vec<usize>,
}

impl Lookup<'_> {
    /// The value of `var` where the reachable block `block` ends.
    fn at_end(&mut self, ssa: &mut Ssa, func: &mut Function, var: Var, block: Block) -> Value {
        match self.end[block].expand() {
            Some(v) => v,
            None => self.at_start(ssa, func, var, block),
        }
    }

    /// The value of `var` where the reachable block `block` starts: up through single
    /// predecessors to a store, the entry (zero) or a join (a new parameter).
    fn at_start(&mut self, ssa: &mut Ssa, func: &mut Function, var: Var, block: Block) -> Value {
        let first = self.visited.len();
        let mut b = block;
        let v = loop {
            if let Some(v) = self.start[b].expand() {
                break v;
            }
            if b == self.entry {
                break ssa.zero(func, ssa.ty[var]);
            }
            self.visited.push(b);
            // A reachable block other than the entry has a reachable predecessor; one that is
            // its only predecessor comes before it on every path.
            match self.cfg.preds(b) {
                &[p] if self.reachable[p] => match self.end[p].expand() {
                    Some(v) => break v,
                    None => b = p,
                },
                _ => {
                    let value = func.dfg.make_pending_value(ssa.ty[var]);
                    self.work.push(self.params.len());
                    self.params.push(NewParam { block: b, value, args: Vec::new() });
                    break value;
                }
            }
        };
        for &b in &self.visited[first..] {
            self.start[b] = v.into();
        }
        v
    }
}

/// Removes the new parameters that receive one value besides themselves (Braun et al.'s
/// trivial phis, on a work list: removing one may make its users trivial), and adds the others
/// to their blocks, with their arguments on every branch into them.
fn place_params(func: &mut Function, cfg: &ControlFlowGraph, params: Vec<NewParam>) {
    let dfg = &mut func.dfg;
    let mut number: SecondaryMap<Value, u32> = SecondaryMap::with_capacity(dfg.values.len());
    for (i, p) in params.iter().enumerate() {
        number[p.value] = i as u32 + 1;
    }
    // Which parameters pass each one on, as pairs (used, user) sorted.
    let mut users: Vec<(u32, u32)> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        for &a in &p.args {
            let n = number[dfg.resolve_aliases(a)];
            if n != 0 && n != i as u32 + 1 {
                users.push((n - 1, i as u32));
            }
        }
    }
    users.sort_unstable();
    users.dedup();
    let mut removed = vec![false; params.len()];
    let mut work: Vec<u32> = (0..params.len() as u32).rev().collect();
    while let Some(i) = work.pop() {
        let p = &params[i as usize];
        if removed[i as usize] {
            continue;
        }
        let mut one = None;
        let mut trivial = true;
        for &a in &p.args {
            let a = dfg.resolve_aliases(a);
            if a == p.value || Some(a) == one {
                continue;
            }
            if one.is_some() {
                trivial = false;
                break;
            }
            one = Some(a);
        }
        if let (true, Some(v)) = (trivial, one) {
            replace(dfg, p.value, v);
            removed[i as usize] = true;
            let from = users.partition_point(|u| u.0 < i);
            work.extend(users[from..].iter().take_while(|u| u.0 == i).map(|u| u.1));
        }
    }
    for (p, _) in params.iter().zip(&removed).filter(|(_, &r)| !r) {
        let index = dfg.blocks[p.block].params.len() as u32;
        dfg.values[p.value].def = ValueDef::Param(p.block, index);
        dfg.blocks[p.block].params.push(p.value);
        for (&pred, &arg) in cfg.preds(p.block).iter().zip(&p.args) {
            let arg = dfg.resolve_aliases(arg);
            let Some(term) = dfg.terminator(pred) else { continue };
            for call in dfg.insts[term].block_calls_mut().iter_mut().filter(|c| c.block == p.block) {
                call.args.push(arg);
            }
        }
    }
}

/// Appends to `insts` a new instruction at the source location of `at`; gives its result.
fn emit(func: &mut Function, insts: &mut Vec<Inst>, at: Inst, data: InstData, ty: Type) -> Value {
    let (inst, v) = make_at(func, data, ty, at);
    insts.push(inst);
    v
}

/// `v` as a value of `ty` (of the same size): itself, or its bits reinterpreted.
fn bitcast(func: &mut Function, insts: &mut Vec<Inst>, at: Inst, v: Value, ty: Type) -> Value {
    if func.dfg.value_type(v) == ty {
        return v;
    }
    emit(func, insts, at, InstData::Convert { op: ConvOp::Bitcast, ty, arg: v }, ty)
}

/// Removes the promoted slots from the function's table, renumbering the others.
fn remove_slots(func: &mut Function, plans: &SecondaryMap<Slot, SlotPlan>) {
    let mut renumber: SecondaryMap<Slot, PackedOption<Slot>> = SecondaryMap::with_capacity(func.slots.len());
    let mut slots: PrimaryMap<Slot, _> = PrimaryMap::new();
    for (slot, &data) in func.slots.iter() {
        if plans[slot].kept {
            renumber[slot] = slots.push(data).into();
        }
    }
    func.slots = slots;
    for &block in &func.layout {
        for &inst in &func.dfg.blocks[block].insts {
            if let InstData::SlotAddr { slot } = &mut func.dfg.insts[inst] {
                *slot = renumber[*slot].expand().unwrap_or(*slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first function of `text`, and whether the pass changed it.
    fn run(text: &str) -> (Function, bool) {
        let module = frontend_ir::parser::parse_module(text).expect("parses");
        let mut func = module.functions.values().next().expect("a function").clone();
        let changed = scalar_replace(&mut func);
        (func, changed)
    }

    #[test]
    fn a_slot_too_large_for_its_dynamic_access_is_no_change() {
        let (func, changed) = run("kernel @k(ptr<global>, i32) {
    slot0 = private 128 align 4
block0(%out: ptr<global>, %i: i32):
    %a = slot_addr slot0
    %p = ptradd %a, %i
    store %p, %i
    %r = load.i32 %a
    store %out, %r
    ret
}");
        assert!(!changed);
        assert_eq!(func.slots.len(), 1);
    }

    #[test]
    fn helpers_keep_their_slots() {
        // A helper's frame holds what earlier calls left: an unwritten element is not zero.
        let (func, changed) = run("func @h() -> i32 {
    slot0 = private 4 align 4
block0:
    %a = slot_addr slot0
    %r = load.i32 %a
    ret %r
}");
        assert!(!changed);
        assert_eq!(func.slots.len(), 1);
    }
}
