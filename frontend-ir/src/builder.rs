//! A function builder with variables: frontends describe control flow and assignments to
//! mutable [`Variable`]s, and the builder constructs SSA form (block parameters) on the fly.
//!
//! The IR has no mutable locals and no phi instructions: a value that differs by the path taken
//! to a block must arrive as a block parameter, with a branch argument on every incoming edge.
//! Writing those by hand is error-prone, so [`FunctionBuilder`] lets a frontend declare a
//! variable ([`FunctionBuilder::declare_var`]), assign it ([`FunctionBuilder::def_var`]) and read
//! it ([`FunctionBuilder::use_var`]) anywhere, and inserts the parameters and arguments itself.
//! It follows Braun et al., "Simple and Efficient Construction of Static Single Assignment
//! Form" (CC 2013), the algorithm cranelift-frontend also uses:
//!
//! - A read in the block that assigned the variable gives the assigned value.
//! - Otherwise, in a block whose predecessors are not all known yet (not *sealed*, see
//!   [`FunctionBuilder::seal_block`]), the read creates a block parameter and remembers it as
//!   incomplete; sealing the block appends the incoming value of every such parameter to the
//!   branch of each predecessor.
//! - In a sealed block with a single predecessor the read goes on in the predecessor, without a
//!   parameter; with several predecessors it creates a parameter and fills its arguments at once.
//! - A read that reaches a sealed block without predecessors (the entry block, or unreachable
//!   code) finds no assignment: it gives zero of the variable's type (a null pointer for
//!   pointers), so a variable read before any assignment is zero.
//!
//! Many of the parameters created this way are *trivial*: every incoming argument is one value
//! `v` or the parameter itself (a variable read in a loop but not assigned in it, say).
//! [`FunctionBuilder::finish`] removes those of the blocks reachable from the entry with a
//! worklist (in unreachable code definitions need not dominate uses, and removing them could
//! leave an instruction that uses its own result): a trivial parameter becomes an alias
//! ([`ValueDef::Alias`]) of `v`, its argument is dropped from every predecessor's branch, and the
//! parameters that received it as an argument are checked again, so chains and cycles of trivial
//! parameters disappear without rescanning the function. It then calls
//! [`Function::canonicalize`], which resolves the aliases and numbers blocks and values in layout
//! order, so the printed text is canonical.
//!
//! The builder works on a `&mut Function` that the frontend created (with its name, kind,
//! signature and, if it likes, slots) and has no blocks yet; a [`FunctionBuilderContext`] holds
//! the construction state and can be reused for many functions to avoid reallocations. Calls
//! need the callee's return type, which the function alone does not know: [`FunctionBuilder::call`]
//! takes it as a parameter (look it up in the [`Module`](crate::Module) signature of the callee).
//! Each instruction records the builder's current source location
//! ([`FunctionBuilder::set_srcloc`]) in [`Function::srclocs`](crate::Function::srclocs), and
//! canonicalization keeps it with the instruction; the zeros of variables read before any
//! assignment take the location of the read.
//! Misusing the API (inserting after a terminator, branching to a sealed block, assigning a value
//! of the wrong type) is a bug in the frontend and panics with a message saying what went wrong.
//!
//! # Example
//!
//! A bounds-checked vector add kernel and a helper that sums `0..n` with two variables:
//!
//! ```
//! use frontend_ir::builder::{FunctionBuilder, FunctionBuilderContext};
//! use frontend_ir::{
//!     AddrSpace, ConvOp, Dim, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module, Signature,
//!     Special, Type,
//! };
//!
//! let mut module = Module::default();
//! let mut ctx = FunctionBuilderContext::new();
//!
//! // kernel @vadd(a, b, c, n): i = group_id.x * group_size.x + local_id.x;
//! //                            if i < n { c[i] = a[i] + b[i] }
//! let global = Type::Ptr(AddrSpace::Global);
//! let sig = Signature { params: vec![global, global, global, Type::I32], ret: None };
//! let mut vadd = Function::new("vadd", FuncKind::Kernel(KernelAttrs::default()), sig);
//! let mut b = FunctionBuilder::new(&mut vadd, &mut ctx);
//! let entry = b.create_block();
//! let then = b.create_block();
//! let done = b.create_block();
//! b.switch_to_block(entry);
//! b.seal_block(entry); // the entry block has no predecessors
//! let params = b.append_entry_params();
//! let (a, bb, c, n) = (params[0], params[1], params[2], params[3]);
//! let group = b.special(Special::GroupId(Dim::X));
//! let size = b.special(Special::GroupSize(Dim::X));
//! let local = b.special(Special::LocalId(Dim::X));
//! let base = b.imul(group, size);
//! let i = b.iadd(base, local);
//! let in_bounds = b.icmp(IntCC::Ult, i, n);
//! b.brif(in_bounds, then, &[], done, &[]);
//! b.seal_block(then); // its only predecessor, entry, is known
//! b.switch_to_block(then);
//! let wide = b.convert(ConvOp::Zext, Type::I64, i);
//! let four = b.iconst(Type::I64, 4);
//! let offset = b.imul(wide, four);
//! let flags = MemFlags::aligned(4);
//! let pa = b.ptradd(a, offset);
//! let x = b.load(Type::F32, pa, flags);
//! let pb = b.ptradd(bb, offset);
//! let y = b.load(Type::F32, pb, flags);
//! let sum = b.fadd(x, y);
//! let pc = b.ptradd(c, offset);
//! b.store(pc, sum, flags);
//! b.jump(done, &[]);
//! b.seal_block(done);
//! b.switch_to_block(done);
//! b.ret(None);
//! b.finish();
//! let vadd_id = module.push(vadd);
//!
//! // func @sum(n: i32) -> i32 { var s = 0; var k = 0; while k < n { s += k; k += 1 } return s }
//! let sig = Signature { params: vec![Type::I32], ret: Some(Type::I32) };
//! let mut sum = Function::new("sum", FuncKind::Helper, sig);
//! let mut b = FunctionBuilder::new(&mut sum, &mut ctx);
//! let entry = b.create_block();
//! let header = b.create_block();
//! let body = b.create_block();
//! let exit = b.create_block();
//! b.switch_to_block(entry);
//! b.seal_block(entry);
//! let n = b.append_entry_params()[0];
//! let s = b.declare_var(Type::I32);
//! let k = b.declare_var(Type::I32);
//! let zero = b.iconst(Type::I32, 0);
//! b.def_var(s, zero);
//! b.def_var(k, zero);
//! b.jump(header, &[]);
//! // The header is not sealed yet: the back edge from the body is still to come.
//! b.switch_to_block(header);
//! let kv = b.use_var(k);
//! let more = b.icmp(IntCC::Slt, kv, n);
//! b.brif(more, body, &[], exit, &[]);
//! b.seal_block(body);
//! b.switch_to_block(body);
//! let (sv, kv) = (b.use_var(s), b.use_var(k));
//! let s1 = b.iadd(sv, kv);
//! b.def_var(s, s1);
//! let one = b.iconst(Type::I32, 1);
//! let k1 = b.iadd(kv, one);
//! b.def_var(k, k1);
//! b.jump(header, &[]);
//! b.seal_block(header); // both predecessors are known now
//! b.seal_block(exit);
//! b.switch_to_block(exit);
//! let result = b.use_var(s);
//! b.ret(Some(result));
//! b.finish();
//! module.push(sum);
//!
//! frontend_ir::verifier::verify_module(&module).unwrap();
//! let text = format!("{module}");
//! println!("{text}");
//! assert!(text.contains("kernel @vadd(ptr<global>, ptr<global>, ptr<global>, i32) {\n"));
//! assert!(text.contains("    %9 = icmp ult %8, %3\n    brif %9, block1, block2\n"));
//! assert!(text.contains("    store %18, %17\n    jump block2\n"));
//! // The loop header has a parameter per variable (k, then s, in the order of their first
//! // reads); the entry passes the initial values...
//! assert!(text.contains("    jump block1(%1, %1)\nblock1(%2: i32, %3: i32):\n"));
//! // ...and the back edge the updated ones; the exit reads `s` through the header's parameter.
//! assert!(text.contains("    jump block1(%7, %5)\nblock3:\n    ret %3\n"));
//! assert_eq!(module.functions[vadd_id].dfg.blocks.len(), 3);
//! ```

use crate::entities::{Block, FuncId, Inst, Slot, Value};
use crate::function::{DataFlowGraph, Function, ValueData, ValueDef};
use crate::instructions::{
    BinaryOp, BlockCall, ConvOp, FloatCC, InstData, IntCC, MemFlags, ReduceOp, RmwOp, Special, SyncInfo, UnaryOp,
};
use crate::srcloc::SourceLoc;
use crate::types::{f16_bits_from_f64, AddrSpace, Type};
use cranelift_entity::{entity_impl, EntitySet, PrimaryMap, SecondaryMap};
use foldhash::fast::FixedState;
use smallvec::SmallVec;
use std::collections::HashMap;

/// A mutable variable of the frontend's program, printed `varN`. Declared with
/// [`FunctionBuilder::declare_var`], it has one type and belongs to the function being built.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variable(u32);
entity_impl!(Variable, "var");

/// The construction state of one block.
#[derive(Clone, Default)]
struct BlockState {
    /// All predecessors are known: no branch to this block may be added.
    sealed: bool,
    /// The block has been appended to the layout (by its first `switch_to_block`).
    in_layout: bool,
    /// The branch instructions that target this block, with their blocks; one entry per
    /// instruction even when several of its targets are this block.
    preds: SmallVec<[(Block, Inst); 2]>,
    /// Parameters created by reads before sealing, whose arguments sealing adds.
    incomplete: Vec<(Variable, Value)>,
}

/// The state of SSA construction, kept apart from the [`FunctionBuilder`] so that its
/// allocations can be reused across functions. [`FunctionBuilder::new`] clears it.
#[derive(Default)]
pub struct FunctionBuilderContext {
    /// The type of each variable.
    vars: PrimaryMap<Variable, Type>,
    /// The value of each variable at the end of (or, in the current block, so far in) a block:
    /// sparse, since a program of many blocks and many variables defines few pairs of them (a
    /// dense table per variable would grow with blocks times variables).
    defs: HashMap<(Variable, Block), Value, FixedState>,
    /// Per-block construction state.
    blocks: SecondaryMap<Block, BlockState>,
    /// Every parameter created for a variable, in creation order.
    ssa_params: Vec<Value>,
    /// Parameters of sealed blocks whose arguments are still placeholders.
    fills: Vec<(Variable, Block, Value)>,
    /// The single-predecessor blocks crossed by the current read, and the same as a set.
    chain: Vec<Block>,
    visited: EntitySet<Block>,
    /// How many zero constants for unassigned variables start each block.
    zeros: SecondaryMap<Block, u32>,
    /// For each parameter, the parameters that receive it as a branch argument (`finish`).
    users: SecondaryMap<Value, Vec<Value>>,
    /// Parameters to check for triviality, and the blocks that lost parameters (`finish`).
    worklist: Vec<Value>,
    pruned_blocks: Vec<Block>,
}

impl FunctionBuilderContext {
    /// An empty context.
    pub fn new() -> FunctionBuilderContext {
        FunctionBuilderContext::default()
    }

    fn clear(&mut self) {
        self.vars.clear();
        self.defs.clear();
        self.blocks.clear();
        self.ssa_params.clear();
        self.fills.clear();
        self.chain.clear();
        self.visited.clear();
        self.zeros.clear();
        self.users.clear();
        self.worklist.clear();
        self.pruned_blocks.clear();
    }
}

/// Builds the body of a [`Function`]: blocks, instructions, and variables turned into SSA
/// values. See the [module documentation](self) for the algorithm and an example.
///
/// Instructions go to the end of the *current block* ([`FunctionBuilder::switch_to_block`]).
/// Constructors of instructions with a result return the result [`Value`]; the others return the
/// [`Inst`]. Call [`FunctionBuilder::finish`] when done: until then the function may hold
/// trivial parameters and aliases and is not in canonical form.
pub struct FunctionBuilder<'a> {
    func: &'a mut Function,
    ctx: &'a mut FunctionBuilderContext,
    current: Option<Block>,
    /// The source location every new instruction records ([`FunctionBuilder::set_srcloc`]).
    srcloc: SourceLoc,
}

impl<'a> FunctionBuilder<'a> {
    /// A builder for `func`, which must have no blocks yet (its name, kind, signature and slots
    /// are kept). Clears `ctx`.
    pub fn new(func: &'a mut Function, ctx: &'a mut FunctionBuilderContext) -> FunctionBuilder<'a> {
        assert!(
            func.dfg.blocks.is_empty() && func.layout.is_empty(),
            "FunctionBuilder::new: @{} already has blocks; the builder needs a function with an empty body",
            func.name
        );
        ctx.clear();
        FunctionBuilder { func, ctx, current: None, srcloc: SourceLoc::NONE }
    }

    /// Sets the source location of the instructions made from now on (in the function's
    /// [`srclocs`](Function::srclocs) table), as Cranelift's `set_srcloc`: a frontend sets it
    /// before lowering each statement or expression. [`SourceLoc::NONE`] (the start) records
    /// nothing.
    pub fn set_srcloc(&mut self, loc: SourceLoc) {
        self.srcloc = loc;
    }

    /// The current source location (see [`FunctionBuilder::set_srcloc`]).
    pub fn srcloc(&self) -> SourceLoc {
        self.srcloc
    }

    /// The function being built (not canonical before [`FunctionBuilder::finish`]).
    pub fn func(&self) -> &Function {
        self.func
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    // ---------------------------------------------------------------------------------------
    // Blocks

    /// A new block. It joins the layout when it first becomes the current block.
    pub fn create_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    /// Makes `block` the current block, where instructions are appended. The first switch to a
    /// block appends it to the layout, so blocks are laid out in the order they are first
    /// switched to, and the first one is the entry block. Switching away from a block that has
    /// no terminator yet is allowed; the verifier reports a block left without one.
    pub fn switch_to_block(&mut self, block: Block) {
        assert!(
            self.func.dfg.blocks.is_valid(block),
            "FunctionBuilder::switch_to_block: {block} was not created by this builder"
        );
        let state = &mut self.ctx.blocks[block];
        if !state.in_layout {
            state.in_layout = true;
            self.func.layout.push(block);
        }
        self.current = Some(block);
    }

    /// The current block, if any.
    pub fn current_block(&self) -> Option<Block> {
        self.current
    }

    /// Whether the current block already ends with a terminator, so nothing more can be
    /// inserted into it (a frontend checks this after lowering a statement that may have
    /// returned or broken out of a loop).
    pub fn is_terminated(&self) -> bool {
        self.current.is_some_and(|b| self.func.dfg.terminator(b).is_some())
    }

    /// Declares that every predecessor of `block` is known: no branch to it will be added.
    /// Reads of variables in a sealed block look into its predecessors instead of creating
    /// parameters, so seal each block as early as possible (a loop header after its last back
    /// edge, most other blocks before switching to them). Sealing a sealed block does nothing.
    pub fn seal_block(&mut self, block: Block) {
        assert!(
            self.func.dfg.blocks.is_valid(block),
            "FunctionBuilder::seal_block: {block} was not created by this builder"
        );
        let state = &mut self.ctx.blocks[block];
        if state.sealed {
            return;
        }
        state.sealed = true;
        let incomplete = core::mem::take(&mut state.incomplete);
        // Every placeholder argument goes in before any is filled: filling may add parameters
        // to this (now sealed) block, whose arguments must come after these.
        for &(var, param) in &incomplete {
            self.push_placeholder_args(block, param);
            self.ctx.fills.push((var, block, param));
        }
        self.fill_params();
    }

    /// Seals every block created so far (see [`FunctionBuilder::seal_block`]).
    pub fn seal_all_blocks(&mut self) {
        for block in self.func.dfg.blocks.keys() {
            self.seal_block(block);
        }
    }

    /// Appends the signature's parameters to the current block, which must be the entry block
    /// (the first one switched to), and returns them.
    pub fn append_entry_params(&mut self) -> Vec<Value> {
        let block = self.current_or_panic("append_entry_params");
        assert_eq!(
            self.func.layout.first(),
            Some(&block),
            "FunctionBuilder::append_entry_params: the current block {block} is not the entry block"
        );
        assert!(
            self.func.dfg.blocks[block].params.is_empty(),
            "FunctionBuilder::append_entry_params: the entry block {block} already has parameters"
        );
        for i in 0..self.func.signature.params.len() {
            let ty = self.func.signature.params[i];
            self.func.dfg.append_block_param(block, ty);
        }
        self.func.dfg.blocks[block].params.clone()
    }

    /// Appends an explicit parameter of type `ty` to `block`, for frontends that pass values to
    /// blocks themselves (the `args` of [`FunctionBuilder::jump`] and the other branches). It
    /// must come before any branch to `block` and any read of a variable in it.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let state = &self.ctx.blocks[block];
        assert!(
            state.preds.is_empty() && state.incomplete.is_empty(),
            "FunctionBuilder::append_block_param: {block} already has predecessors or variable parameters; \
             append explicit parameters before branching to the block or reading variables in it"
        );
        self.func.dfg.append_block_param(block, ty)
    }

    /// The parameters of `block` (including, before [`FunctionBuilder::finish`], the ones
    /// created for variables).
    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.func.dfg.blocks[block].params
    }

    // ---------------------------------------------------------------------------------------
    // Variables

    /// Declares a variable of type `ty`. It has no value until [`FunctionBuilder::def_var`];
    /// reading it earlier gives zero.
    pub fn declare_var(&mut self, ty: Type) -> Variable {
        self.ctx.vars.push(ty)
    }

    /// The type of a variable.
    pub fn var_type(&self, var: Variable) -> Type {
        match self.ctx.vars.get(var) {
            Some(&ty) => ty,
            None => panic!("FunctionBuilder: {var} was not declared with declare_var"),
        }
    }

    /// Assigns `value` to `var` at the current point of the current block, which must not be
    /// terminated yet (its successors may already have read the variable's final value).
    pub fn def_var(&mut self, var: Variable, value: Value) {
        let block = self.current_or_panic("def_var");
        assert!(
            self.func.dfg.terminator(block).is_none(),
            "FunctionBuilder::def_var({var}, {value}): {block} is already terminated; switch to another block first"
        );
        let (var_ty, value_ty) = (self.var_type(var), self.value_type(value));
        assert_eq!(
            var_ty, value_ty,
            "FunctionBuilder::def_var({var}, {value}): the value has type {value_ty} but the variable was declared {var_ty}"
        );
        self.ctx.defs.insert((var, block), value);
    }

    /// The value of `var` at the current point of the current block, adding block parameters
    /// where control flow merges different values.
    pub fn use_var(&mut self, var: Variable) -> Value {
        let block = self.current_or_panic("use_var");
        let _ = self.var_type(var); // checks the declaration
        let v = self.read_var(var, block);
        self.fill_params();
        v
    }

    /// The value of `var` at the end of `block` (or so far, in the current block). Never
    /// recursive: a read walks up a chain of single-predecessor blocks to a block that has a
    /// definition, is not sealed (new incomplete parameter), has no predecessor (zero), or has
    /// several (new parameter whose arguments are filled later by `fill_params`). The result is
    /// cached as the definition in every block on the way.
    fn read_var(&mut self, var: Variable, block: Block) -> Value {
        let ctx = &mut *self.ctx;
        let Function { dfg, srclocs, .. } = &mut *self.func;
        let zero_loc = (srclocs, self.srcloc);
        let ty = ctx.vars[var];
        let mut b = block;
        let value = loop {
            if let Some(&v) = ctx.defs.get(&(var, b)) {
                break v;
            }
            let state = &mut ctx.blocks[b];
            if !state.sealed {
                let param = dfg.append_block_param(b, ty);
                state.incomplete.push((var, param));
                ctx.ssa_params.push(param);
                break param;
            }
            match state.preds.len() {
                0 => break zero_at_top(dfg, &mut ctx.zeros, b, ty, zero_loc),
                // A cycle of single-predecessor blocks (unreachable code) falls through to the
                // parameter case when it comes back to a block it crossed.
                1 if !ctx.visited.contains(b) => {
                    ctx.visited.insert(b);
                    ctx.chain.push(b);
                    b = state.preds[0].0;
                }
                _ => {
                    let param = dfg.append_block_param(b, ty);
                    ctx.ssa_params.push(param);
                    push_placeholder_args(dfg, &ctx.blocks[b], b, param);
                    ctx.fills.push((var, b, param));
                    break param;
                }
            }
        };
        ctx.defs.insert((var, b), value);
        for c in ctx.chain.drain(..) {
            ctx.defs.insert((var, c), value);
            ctx.visited.remove(c);
        }
        value
    }

    fn push_placeholder_args(&mut self, block: Block, param: Value) {
        push_placeholder_args(&mut self.func.dfg, &self.ctx.blocks[block], block, param);
    }

    /// Replaces the placeholder arguments of the pending parameters by the variable's value at
    /// the end of each predecessor, until no parameter is pending.
    fn fill_params(&mut self) {
        while let Some((var, block, param)) = self.ctx.fills.pop() {
            let index = param_index(&self.func.dfg, param);
            let mut i = 0;
            while i < self.ctx.blocks[block].preds.len() {
                let (pred, inst) = self.ctx.blocks[block].preds[i];
                let v = self.read_var(var, pred);
                for call in self.func.dfg.insts[inst].block_calls_mut() {
                    if call.block == block {
                        call.args[index] = v;
                    }
                }
                i += 1;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Finishing

    /// Finishes the function: seals the blocks that are not sealed yet, removes the trivial
    /// parameters created for variables (see the [module documentation](self)), and
    /// canonicalizes the function ([`Function::canonicalize`]). Blocks never switched to are
    /// dropped.
    pub fn finish(mut self) {
        self.seal_all_blocks();
        self.remove_trivial_params();
        self.func.canonicalize();
    }

    /// Turns every trivial variable parameter of a reachable block into an alias and drops it
    /// and its arguments.
    fn remove_trivial_params(&mut self) {
        if self.ctx.ssa_params.is_empty() {
            return;
        }
        let entry = self.func.layout[0];
        let ctx = &mut *self.ctx;
        let Function { dfg, srclocs, .. } = &mut *self.func;

        // The blocks reachable from the entry. Parameters of unreachable blocks are kept: there
        // definitions need not dominate uses, and removing a trivial parameter could leave an
        // instruction that uses its own result.
        let reachable = &mut ctx.visited;
        reachable.clear();
        reachable.insert(entry);
        ctx.chain.push(entry);
        while let Some(block) = ctx.chain.pop() {
            if let Some(term) = dfg.terminator(block) {
                for call in dfg.insts[term].block_calls() {
                    if !reachable.contains(call.block) {
                        reachable.insert(call.block);
                        ctx.chain.push(call.block);
                    }
                }
            }
        }

        // Who receives each parameter as an argument, to check them again when it goes away.
        for &param in &ctx.ssa_params {
            let (block, index) = param_pos(&dfg.values, param);
            for &(_, inst) in &ctx.blocks[block].preds {
                for call in dfg.insts[inst].block_calls().iter().filter(|call| call.block == block) {
                    let arg = call.args[index];
                    if arg != param && matches!(dfg.values[arg].def, ValueDef::Param(..)) {
                        ctx.users[arg].push(param);
                    }
                }
            }
        }

        ctx.worklist.extend(ctx.ssa_params.iter().rev());
        while let Some(param) = ctx.worklist.pop() {
            if matches!(dfg.values[param].def, ValueDef::Alias(_)) {
                continue;
            }
            let (block, index) = param_pos(&dfg.values, param);
            if !reachable.contains(block) {
                continue;
            }
            // The one value other than `param` itself that the arguments resolve to, if any.
            let mut same = None;
            let mut trivial = true;
            'preds: for &(_, inst) in &ctx.blocks[block].preds {
                for call in dfg.insts[inst].block_calls_mut() {
                    if call.block != block {
                        continue;
                    }
                    let arg = resolve_aliases(&dfg.values, call.args[index]);
                    call.args[index] = arg; // shortens later resolutions
                    if arg == param || same == Some(arg) {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break 'preds;
                    }
                    same = Some(arg);
                }
            }
            if !trivial {
                continue;
            }
            let target = match same {
                Some(v) => v,
                // Only the parameter itself flows in, which in a reachable block only happens in
                // the entry block when it was sealed late: the variable is unassigned, so zero.
                // No read is being lowered here: the zero has no source location.
                None => {
                    let ty = dfg.values[param].ty;
                    zero_at_top(dfg, &mut ctx.zeros, entry, ty, (&mut *srclocs, SourceLoc::NONE))
                }
            };
            dfg.values[param].def = ValueDef::Alias(target);
            ctx.pruned_blocks.push(block);
            let users = core::mem::take(&mut ctx.users[param]);
            ctx.worklist.extend(users.iter().copied());
            if matches!(dfg.values[target].def, ValueDef::Param(..)) {
                // Whoever received `param` now receives `target`.
                ctx.users[target].extend(users);
            }
        }

        ctx.pruned_blocks.sort_unstable();
        ctx.pruned_blocks.dedup();
        for &block in &ctx.pruned_blocks {
            let params = core::mem::take(&mut dfg.blocks[block].params);
            let keep: SmallVec<[bool; 16]> =
                params.iter().map(|&p| !matches!(dfg.values[p].def, ValueDef::Alias(_))).collect();
            let kept: Vec<Value> = params.iter().zip(&keep).filter(|(_, &k)| k).map(|(&p, _)| p).collect();
            for (i, &p) in kept.iter().enumerate() {
                dfg.values[p].def = ValueDef::Param(block, i as u32);
            }
            dfg.blocks[block].params = kept;
            for &(_, inst) in &ctx.blocks[block].preds {
                for call in dfg.insts[inst].block_calls_mut() {
                    if call.block == block {
                        debug_assert_eq!(call.args.len(), keep.len());
                        let mut i = 0;
                        call.args.retain(|_| {
                            i += 1;
                            keep[i - 1]
                        });
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Instructions

    fn current_or_panic(&self, what: &str) -> Block {
        match self.current {
            Some(b) => b,
            None => panic!("FunctionBuilder::{what}: there is no current block; call switch_to_block first"),
        }
    }

    /// Appends an instruction to the current block; a branch registers the current block as a
    /// predecessor of its targets.
    fn insert(&mut self, data: InstData, callee_ret: Option<Type>) -> Inst {
        let block = self.current_or_panic("insert");
        assert!(
            self.func.dfg.terminator(block).is_none(),
            "FunctionBuilder: cannot insert {data:?} into {block}: the block already ends with a terminator; \
             switch to another block first"
        );
        for call in data.block_calls() {
            let dest = call.block;
            assert!(
                self.func.dfg.blocks.is_valid(dest),
                "FunctionBuilder: {block} branches to {dest}, which was not created by this builder"
            );
            let state = &self.ctx.blocks[dest];
            assert!(
                !state.sealed,
                "FunctionBuilder: {block} branches to {dest}, which is sealed (all its predecessors were declared known)"
            );
            let explicit = self.func.dfg.blocks[dest].params.len() - state.incomplete.len();
            assert_eq!(
                call.args.len(),
                explicit,
                "FunctionBuilder: {block} passes {} argument(s) to {dest}, which has {explicit} explicit parameter(s)",
                call.args.len()
            );
        }
        let result = self.func.result_type(&data, |_| callee_ret);
        let inst = self.func.dfg.make_inst(data, result);
        self.func.dfg.blocks[block].insts.push(inst);
        self.func.set_srcloc(inst, self.srcloc);
        for call in self.func.dfg.insts[inst].block_calls() {
            let preds = &mut self.ctx.blocks[call.block].preds;
            if preds.last() != Some(&(block, inst)) {
                preds.push((block, inst));
            }
        }
        inst
    }

    /// Appends an instruction that has a result and returns the result.
    fn insert_value(&mut self, data: InstData) -> Value {
        let inst = self.insert(data, None);
        self.func.dfg.inst_result(inst).expect("the instruction has a result")
    }

    /// `iconst.T imm`: an integer constant of type `ty` (an integer type, or a pointer type for
    /// the null pointer), truncated to the type's width.
    pub fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        self.insert_value(InstData::IntConst { ty, imm: imm as u64 & ty.mask() })
    }

    /// `fconst.T`: a float constant of type `ty` given by its bits (for NaN payloads).
    pub fn fconst_bits(&mut self, ty: Type, bits: u64) -> Value {
        self.insert_value(InstData::FloatConst { ty, bits: bits & ty.mask() })
    }

    /// `fconst.T value`: `value` rounded to nearest even in the float type `ty`.
    pub fn fconst(&mut self, ty: Type, value: f64) -> Value {
        let bits = match ty {
            Type::F16 => u64::from(f16_bits_from_f64(value)),
            Type::F32 => u64::from((value as f32).to_bits()),
            Type::F64 => value.to_bits(),
            _ => panic!("FunctionBuilder::fconst: {ty} is not a float type"),
        };
        self.fconst_bits(ty, bits)
    }

    /// `fconst.f32 value`.
    pub fn fconst_f32(&mut self, value: f32) -> Value {
        self.fconst_bits(Type::F32, u64::from(value.to_bits()))
    }

    /// `fconst.f64 value`.
    pub fn fconst_f64(&mut self, value: f64) -> Value {
        self.fconst_bits(Type::F64, value.to_bits())
    }

    /// `op %v`: a unary operation.
    pub fn unary(&mut self, op: UnaryOp, v: Value) -> Value {
        self.insert_value(InstData::Unary { op, arg: v })
    }

    /// `op %a, %b`: a binary operation.
    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        self.insert_value(InstData::Binary { op, args: [a, b] })
    }

    /// `add %a, %b` (wrapping integer addition).
    pub fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Add, a, b)
    }

    /// `sub %a, %b` (wrapping integer subtraction).
    pub fn isub(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Sub, a, b)
    }

    /// `mul %a, %b` (wrapping integer multiplication).
    pub fn imul(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Mul, a, b)
    }

    /// `fadd %a, %b`.
    pub fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Fadd, a, b)
    }

    /// `fsub %a, %b`.
    pub fn fsub(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Fsub, a, b)
    }

    /// `fmul %a, %b`.
    pub fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinaryOp::Fmul, a, b)
    }

    /// `fma %a, %b, %c`: `a * b + c` with one rounding.
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.insert_value(InstData::Fma { args: [a, b, c] })
    }

    /// `select %cond, %if_true, %if_false`.
    pub fn select(&mut self, cond: Value, if_true: Value, if_false: Value) -> Value {
        self.insert_value(InstData::Select { args: [cond, if_true, if_false] })
    }

    /// `icmp cc %a, %b`, an `i1`.
    pub fn icmp(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        self.insert_value(InstData::Icmp { cc, args: [a, b] })
    }

    /// `fcmp cc %a, %b`, an `i1`.
    pub fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.insert_value(InstData::Fcmp { cc, args: [a, b] })
    }

    /// `op.T %v`: converts `v` to `ty`.
    pub fn convert(&mut self, op: ConvOp, ty: Type, v: Value) -> Value {
        self.insert_value(InstData::Convert { op, ty, arg: v })
    }

    /// `ptradd %ptr, %offset`: `ptr` plus a signed byte offset (`i32` or `i64`).
    pub fn ptradd(&mut self, ptr: Value, offset: Value) -> Value {
        self.insert_value(InstData::PtrAdd { args: [ptr, offset] })
    }

    /// `addrspacecast.T %ptr`: converts a pointer to the pointer type `ty`.
    pub fn addrspacecast(&mut self, ty: Type, ptr: Value) -> Value {
        self.insert_value(InstData::AddrSpaceCast { ty, arg: ptr })
    }

    /// Adds a shared or private memory slot of `size` bytes aligned to `align` to the function.
    pub fn create_slot(&mut self, space: AddrSpace, size: u32, align: u32) -> Slot {
        self.func.slots.push(crate::function::SlotData { space, size, align })
    }

    /// `slot_addr slotN`: the address of a slot of this function, a pointer into its space.
    pub fn slot_addr(&mut self, slot: Slot) -> Value {
        assert!(
            self.func.slots.is_valid(slot),
            "FunctionBuilder::slot_addr: {slot} is not a slot of @{}",
            self.func.name
        );
        self.insert_value(InstData::SlotAddr { slot })
    }

    /// `dyn_shared_addr`: the start of the dynamic shared memory, a `ptr<shared>`.
    pub fn dyn_shared_addr(&mut self) -> Value {
        self.insert_value(InstData::DynSharedAddr)
    }

    /// A value of the dispatch geometry (`local_id.x` and so on), an `i32`.
    pub fn special(&mut self, value: Special) -> Value {
        self.insert_value(InstData::Special { value })
    }

    /// `load.T %ptr flags`: loads a `ty` from `ptr`.
    pub fn load(&mut self, ty: Type, ptr: Value, flags: MemFlags) -> Value {
        self.insert_value(InstData::Load { ty, ptr, flags })
    }

    /// `store %ptr, %v flags`: stores `v` to `ptr`.
    pub fn store(&mut self, ptr: Value, v: Value, flags: MemFlags) -> Inst {
        self.insert(InstData::Store { args: [ptr, v], flags }, None)
    }

    /// `atomic_rmw.op %ptr, %v sync`: applies `op` with `v` to `*ptr` atomically and returns the
    /// old value.
    pub fn atomic_rmw(&mut self, op: RmwOp, ptr: Value, v: Value, sync: SyncInfo) -> Value {
        self.insert_value(InstData::AtomicRmw { op, args: [ptr, v], sync })
    }

    /// `atomic_cas %ptr, %expected, %new sync`: stores `new` if `*ptr` equals `expected`, and
    /// returns the old value.
    pub fn atomic_cas(&mut self, ptr: Value, expected: Value, new: Value, sync: SyncInfo) -> Value {
        self.insert_value(InstData::AtomicCas { args: [ptr, expected, new], sync })
    }

    /// `atomic_load.T %ptr sync`: loads a `ty` atomically.
    pub fn atomic_load(&mut self, ty: Type, ptr: Value, sync: SyncInfo) -> Value {
        self.insert_value(InstData::AtomicLoad { ty, ptr, sync })
    }

    /// `atomic_store %ptr, %v sync`: stores `v` atomically.
    pub fn atomic_store(&mut self, ptr: Value, v: Value, sync: SyncInfo) -> Inst {
        self.insert(InstData::AtomicStore { args: [ptr, v], sync }, None)
    }

    /// `fence sync`.
    pub fn fence(&mut self, sync: SyncInfo) -> Inst {
        self.insert(InstData::Fence { sync }, None)
    }

    /// `barrier`: the workgroup execution barrier.
    pub fn barrier(&mut self) -> Inst {
        self.insert(InstData::Barrier, None)
    }

    /// `ballot %c`: the `i64` mask of the active lanes where the `i1` `c` holds.
    pub fn ballot(&mut self, c: Value) -> Value {
        self.insert_value(InstData::Ballot { arg: c })
    }

    /// `readfirstlane %v`: `v` in the lowest active lane.
    pub fn readfirstlane(&mut self, v: Value) -> Value {
        self.insert_value(InstData::ReadFirstLane { arg: v })
    }

    /// `shuffle %v, %lane`: `v` in lane `lane`.
    pub fn shuffle(&mut self, v: Value, lane: Value) -> Value {
        self.insert_value(InstData::Shuffle { args: [v, lane] })
    }

    /// `reduce.op %v`: the reduction of `v` over the active lanes.
    pub fn reduce(&mut self, op: ReduceOp, v: Value) -> Value {
        self.insert_value(InstData::Reduce { op, arg: v })
    }

    /// `call @f(args)`: calls the helper `callee`, whose return type is `ret` (the
    /// [`Signature::ret`](crate::Signature::ret) of the callee in the module; the function alone
    /// does not know it). Returns the result when `ret` is a type.
    pub fn call(&mut self, callee: FuncId, ret: Option<Type>, args: &[Value]) -> Option<Value> {
        let inst = self.insert(InstData::Call { func: callee, args: SmallVec::from_slice(args) }, ret);
        self.func.dfg.inst_result(inst)
    }

    /// `jump block(args)`: `args` go to the explicit parameters of `block` (none unless
    /// [`FunctionBuilder::append_block_param`] added some); variables need no arguments.
    pub fn jump(&mut self, block: Block, args: &[Value]) -> Inst {
        self.insert(InstData::Jump { dest: BlockCall::new(block, args) }, None)
    }

    /// `brif %cond, then(then_args), else(else_args)`: branches on the `i1` `cond`.
    pub fn brif(
        &mut self,
        cond: Value,
        then_block: Block,
        then_args: &[Value],
        else_block: Block,
        else_args: &[Value],
    ) -> Inst {
        let dests = Box::new([BlockCall::new(then_block, then_args), BlockCall::new(else_block, else_args)]);
        self.insert(InstData::Brif { cond, dests }, None)
    }

    /// `switch %v, default, [k: block, ...]`: branches to the block of the case equal to `v`,
    /// or to `default`. Case values are truncated to the width of `v`'s type; the targets take no
    /// explicit arguments.
    pub fn switch(&mut self, v: Value, default: Block, cases: &[(u64, Block)]) -> Inst {
        let mask = self.value_type(v).mask();
        let case_values = cases.iter().map(|&(k, _)| k & mask).collect();
        let dests =
            core::iter::once(default).chain(cases.iter().map(|&(_, b)| b)).map(|b| BlockCall::new(b, &[])).collect();
        self.insert(InstData::Switch { arg: v, cases: case_values, dests }, None)
    }

    /// `ret` or `ret %v`.
    pub fn ret(&mut self, v: Option<Value>) -> Inst {
        self.insert(InstData::Return { arg: v }, None)
    }

    /// `unreachable`.
    pub fn unreachable(&mut self) -> Inst {
        self.insert(InstData::Unreachable, None)
    }
}

/// The block and index of a block parameter.
fn param_pos(values: &PrimaryMap<Value, ValueData>, param: Value) -> (Block, usize) {
    match values[param].def {
        ValueDef::Param(block, index) => (block, index as usize),
        def => unreachable!("{param} is not a block parameter: {def:?}"),
    }
}

fn param_index(dfg: &DataFlowGraph, param: Value) -> usize {
    param_pos(&dfg.values, param).1
}

fn resolve_aliases(values: &PrimaryMap<Value, ValueData>, mut v: Value) -> Value {
    while let ValueDef::Alias(target) = values[v].def {
        v = target;
    }
    v
}

/// Appends `param` itself as a placeholder argument for it to every branch into `block`; it is
/// replaced by the incoming value when the parameter is filled.
fn push_placeholder_args(dfg: &mut DataFlowGraph, state: &BlockState, block: Block, param: Value) {
    let index = param_index(dfg, param);
    for &(_, inst) in &state.preds {
        for call in dfg.insts[inst].block_calls_mut() {
            if call.block == block {
                debug_assert_eq!(call.args.len(), index);
                call.args.push(param);
            }
        }
    }
}

/// The zero of a type: `iconst 0` (the null pointer for pointers) or `fconst 0.0`.
fn zero_const(ty: Type) -> InstData {
    if ty.is_float() {
        InstData::FloatConst { ty, bits: 0 }
    } else {
        InstData::IntConst { ty, imm: 0 }
    }
}

/// A zero of type `ty` defined at the start of `block`, after the zeros already there, at the
/// source location `loc.1` (the read that needed it), recorded in the table `loc.0`.
fn zero_at_top(
    dfg: &mut DataFlowGraph,
    zeros: &mut SecondaryMap<Block, u32>,
    block: Block,
    ty: Type,
    (srclocs, loc): (&mut SecondaryMap<Inst, SourceLoc>, SourceLoc),
) -> Value {
    let inst = dfg.make_inst(zero_const(ty), Some(ty));
    if !loc.is_none() {
        srclocs[inst] = loc;
    }
    dfg.blocks[block].insts.insert(zeros[block] as usize, inst);
    zeros[block] += 1;
    dfg.inst_result(inst).expect("a constant has a result")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dim, FuncKind, IntCC, KernelAttrs, Module, Ordering, Scope, Signature};

    /// Builds `@f` with `body` (given the builder and the entry parameters, with the sealed
    /// entry block current), finishes it, and returns the text of a module holding it.
    fn build(
        kind: FuncKind,
        params: &[Type],
        ret: Option<Type>,
        body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]),
    ) -> String {
        build_with_callees(kind, params, ret, Vec::new(), body)
    }

    /// [`build`], with `callees` following `@f` in the module (`fn1`, `fn2`, ...).
    fn build_with_callees(
        kind: FuncKind,
        params: &[Type],
        ret: Option<Type>,
        callees: Vec<Function>,
        body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]),
    ) -> String {
        let sig = Signature { params: params.to_vec(), ret };
        let mut func = Function::new("f", kind, sig);
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.seal_block(entry);
        let args = b.append_entry_params();
        body(&mut b, &args);
        b.finish();
        let mut module = Module::default();
        module.push(func);
        for callee in callees {
            module.push(callee);
        }
        let text = format!("{module}");
        if let Err(errors) = crate::verifier::verify_module(&module) {
            panic!("the built module does not verify:\n{errors}\n{text}");
        }
        text
    }

    /// A helper function `@f(i32) -> i32`.
    fn helper(body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value])) -> String {
        build(FuncKind::Helper, &[Type::I32], Some(Type::I32), body)
    }

    /// Checks the printed text, showing both texts on a mismatch.
    #[track_caller]
    fn check(text: &str, expected: &str) {
        assert!(text == expected, "printed:\n{text}\nexpected:\n{expected}");
    }

    /// Each instruction records the location current when it was made, through `finish`'s
    /// renumbering (a block laid out before one created earlier); the zero of a variable read
    /// before any assignment takes the read's. A function built without locations keeps an
    /// empty table.
    #[test]
    fn instructions_record_the_current_source_location() {
        let mut func = Function::new("f", FuncKind::Helper, Signature { params: vec![Type::I32], ret: None });
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let entry = b.create_block();
        let (late, early) = (b.create_block(), b.create_block());
        b.switch_to_block(entry);
        b.seal_block(entry);
        let p = b.append_entry_params()[0];
        let unset = b.iconst(Type::I32, 7);
        b.set_srcloc(SourceLoc::new(10..14));
        let x = b.declare_var(Type::I32);
        let zero = b.use_var(x);
        let sum = b.iadd(p, zero);
        b.set_srcloc(SourceLoc::new(20..21));
        assert_eq!(b.srcloc(), SourceLoc::new(20..21));
        b.jump(early, &[]);
        b.seal_block(early);
        b.switch_to_block(early);
        b.set_srcloc(SourceLoc::new(30..35));
        let c = b.icmp(IntCC::Eq, sum, unset);
        b.brif(c, late, &[], late, &[]);
        b.seal_block(late);
        b.switch_to_block(late);
        b.set_srcloc(SourceLoc::NONE);
        b.ret(None);
        b.finish();
        assert_eq!(func.layout.len(), 3);
        let mut module = Module::default();
        module.push(func);
        let func = module.functions.values().next().expect("pushed");
        let located: Vec<(String, Option<std::ops::Range<usize>>)> = func
            .insts_in_layout()
            .map(|(_, i)| (crate::write::inst_to_string(&module, func, i), func.srclocs[i].range()))
            .collect();
        let expected = [
            ("%1 = iconst.i32 0", Some(10..14)),
            ("%2 = iconst.i32 7", None),
            ("%3 = add %0, %1", Some(10..14)),
            ("jump block1", Some(20..21)),
            ("%4 = icmp eq %3, %2", Some(30..35)),
            ("brif %4, block2, block2", Some(30..35)),
            ("ret", None),
        ];
        let expected: Vec<(String, Option<std::ops::Range<usize>>)> =
            expected.into_iter().map(|(t, r)| (t.to_string(), r)).collect();
        assert_eq!(located, expected);
        assert_eq!(func.block_srcloc(func.layout[2]), SourceLoc::NONE);
        assert_eq!(func.block_srcloc(func.layout[1]), SourceLoc::new(30..35));

        let mut plain = Function::new("g", FuncKind::Helper, Signature::default());
        let mut b = FunctionBuilder::new(&mut plain, &mut ctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let x = b.declare_var(Type::I32);
        let v = b.use_var(x);
        b.unary(UnaryOp::Neg, v);
        b.ret(None);
        b.finish();
        assert_eq!(plain.dfg.insts.len(), 3);
        assert!(plain.srclocs.is_empty());
    }

    #[test]
    fn straight_line_creates_no_params() {
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            b.def_var(x, p[0]);
            let v = b.use_var(x);
            let one = b.iconst(Type::I32, 1);
            let v = b.iadd(v, one);
            b.def_var(x, v);
            // Two more blocks, each sealed with a single predecessor: reads go through.
            let b1 = b.create_block();
            b.jump(b1, &[]);
            b.seal_block(b1);
            b.switch_to_block(b1);
            let v = b.use_var(x);
            let v = b.imul(v, v);
            b.def_var(x, v);
            let b2 = b.create_block();
            b.jump(b2, &[]);
            b.seal_block(b2);
            b.switch_to_block(b2);
            let v = b.use_var(x);
            b.ret(Some(v));
            assert!(b.block_params(b1).is_empty() && b.block_params(b2).is_empty());
            assert!(b.ctx.ssa_params.is_empty());
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 1
    %2 = add %0, %1
    jump block1
block1:
    %3 = mul %2, %2
    jump block2
block2:
    ret %3
}
",
        );
    }

    /// `fconst` rounds an f64 to f16 once, whatever the host: 1 + 2^-11 + 2^-40 lies just
    /// above the midpoint between 1 and the next f16, so it rounds up.
    #[test]
    fn f16_constants_round_once() {
        let text = helper(|b, p| {
            b.fconst(Type::F16, 1.0 + 2f64.powi(-11) + 2f64.powi(-40));
            b.fconst(Type::F16, -(1.0 + 2f64.powi(-10) + 2f64.powi(-11) - 2f64.powi(-31)));
            b.ret(Some(p[0]));
        });
        assert!(text.contains("fconst.f16 1.0009766\n"), "{text}");
        assert!(text.contains("fconst.f16 -1.0009766\n"), "{text}");
    }

    #[test]
    fn if_else_merge_has_one_param() {
        // var x = 0; let y = p * 2; if p < 10 { x = 1 } else { x = 2 }; return x + y
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            let y = b.declare_var(Type::I32);
            let zero = b.iconst(Type::I32, 0);
            b.def_var(x, zero);
            let two = b.iconst(Type::I32, 2);
            let doubled = b.imul(p[0], two);
            b.def_var(y, doubled);
            let ten = b.iconst(Type::I32, 10);
            let c = b.icmp(IntCC::Slt, p[0], ten);
            let (then, els, join) = (b.create_block(), b.create_block(), b.create_block());
            b.brif(c, then, &[], els, &[]);
            b.seal_block(then);
            b.seal_block(els);
            b.switch_to_block(then);
            let one = b.iconst(Type::I32, 1);
            b.def_var(x, one);
            b.jump(join, &[]);
            b.switch_to_block(els);
            let two = b.iconst(Type::I32, 2);
            b.def_var(x, two);
            b.jump(join, &[]);
            b.seal_block(join);
            b.switch_to_block(join);
            let (xv, yv) = (b.use_var(x), b.use_var(y));
            let sum = b.iadd(xv, yv);
            b.ret(Some(sum));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 0
    %2 = iconst.i32 2
    %3 = mul %0, %2
    %4 = iconst.i32 10
    %5 = icmp slt %0, %4
    brif %5, block1, block2
block1:
    %6 = iconst.i32 1
    jump block3(%6)
block2:
    %7 = iconst.i32 2
    jump block3(%7)
block3(%8: i32):
    %9 = add %8, %3
    ret %9
}
",
        );
    }

    #[test]
    fn while_loop_has_header_param_and_latch_arg() {
        // var i = 0; while i < n { i += 3 }; return i
        let text = helper(|b, p| {
            let i = b.declare_var(Type::I32);
            let zero = b.iconst(Type::I32, 0);
            b.def_var(i, zero);
            let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(header, &[]);
            b.switch_to_block(header);
            let iv = b.use_var(i);
            let c = b.icmp(IntCC::Slt, iv, p[0]);
            b.brif(c, body, &[], exit, &[]);
            b.seal_block(body);
            b.seal_block(exit);
            b.switch_to_block(body);
            let iv = b.use_var(i);
            let three = b.iconst(Type::I32, 3);
            let next = b.iadd(iv, three);
            b.def_var(i, next);
            b.jump(header, &[]);
            b.seal_block(header);
            b.switch_to_block(exit);
            let iv = b.use_var(i);
            b.ret(Some(iv));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 0
    jump block1(%1)
block1(%2: i32):
    %3 = icmp slt %2, %0
    brif %3, block2, block3
block2:
    %4 = iconst.i32 3
    %5 = add %2, %4
    jump block1(%5)
block3:
    ret %2
}
",
        );
    }

    #[test]
    fn nested_loops_with_break_and_continue() {
        // var s = 0; var i = 0;
        // while i < n {
        //     var j = 0;
        //     while j < n {
        //         if j == 5 { break }
        //         if (i + j) & 1 == 0 { j += 1; continue }
        //         s += j; j += 1;
        //     }
        //     i += 1;
        // }
        // return s
        let text = helper(|b, p| {
            let n = p[0];
            let s = b.declare_var(Type::I32);
            let i = b.declare_var(Type::I32);
            let zero = b.iconst(Type::I32, 0);
            b.def_var(s, zero);
            b.def_var(i, zero);
            let outer = b.create_block();
            let outer_body = b.create_block();
            let inner = b.create_block();
            let inner_body = b.create_block();
            let check_parity = b.create_block();
            let cont = b.create_block();
            let acc = b.create_block();
            let inner_exit = b.create_block();
            let exit = b.create_block();
            b.jump(outer, &[]);

            b.switch_to_block(outer);
            let iv = b.use_var(i);
            let c = b.icmp(IntCC::Slt, iv, n);
            b.brif(c, outer_body, &[], exit, &[]);
            b.seal_block(outer_body);
            b.seal_block(exit);

            b.switch_to_block(outer_body);
            let j = b.declare_var(Type::I32);
            let zero = b.iconst(Type::I32, 0);
            b.def_var(j, zero);
            b.jump(inner, &[]);

            b.switch_to_block(inner);
            let jv = b.use_var(j);
            let c = b.icmp(IntCC::Slt, jv, n);
            b.brif(c, inner_body, &[], inner_exit, &[]);
            b.seal_block(inner_body);

            b.switch_to_block(inner_body);
            let jv = b.use_var(j);
            let five = b.iconst(Type::I32, 5);
            let c = b.icmp(IntCC::Eq, jv, five);
            b.brif(c, inner_exit, &[], check_parity, &[]); // break
            b.seal_block(check_parity);
            b.seal_block(inner_exit);

            b.switch_to_block(check_parity);
            let (iv, jv) = (b.use_var(i), b.use_var(j));
            let sum = b.iadd(iv, jv);
            let one = b.iconst(Type::I32, 1);
            let bit = b.binary(BinaryOp::And, sum, one);
            let zero = b.iconst(Type::I32, 0);
            let even = b.icmp(IntCC::Eq, bit, zero);
            b.brif(even, cont, &[], acc, &[]);
            b.seal_block(cont);
            b.seal_block(acc);

            b.switch_to_block(cont);
            let jv = b.use_var(j);
            let one = b.iconst(Type::I32, 1);
            let next = b.iadd(jv, one);
            b.def_var(j, next);
            b.jump(inner, &[]); // continue

            b.switch_to_block(acc);
            let (sv, jv) = (b.use_var(s), b.use_var(j));
            let next = b.iadd(sv, jv);
            b.def_var(s, next);
            let one = b.iconst(Type::I32, 1);
            let next = b.iadd(jv, one);
            b.def_var(j, next);
            b.jump(inner, &[]);
            b.seal_block(inner);

            b.switch_to_block(inner_exit);
            let iv = b.use_var(i);
            let one = b.iconst(Type::I32, 1);
            let next = b.iadd(iv, one);
            b.def_var(i, next);
            b.jump(outer, &[]);
            b.seal_block(outer);

            b.switch_to_block(exit);
            let sv = b.use_var(s);
            b.ret(Some(sv));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 0
    jump block1(%1, %1)
block1(%2: i32, %3: i32):
    %4 = icmp slt %2, %0
    brif %4, block2, block9
block2:
    %5 = iconst.i32 0
    jump block3(%5, %3)
block3(%6: i32, %7: i32):
    %8 = icmp slt %6, %0
    brif %8, block4, block8
block4:
    %9 = iconst.i32 5
    %10 = icmp eq %6, %9
    brif %10, block8, block5
block5:
    %11 = add %2, %6
    %12 = iconst.i32 1
    %13 = and %11, %12
    %14 = iconst.i32 0
    %15 = icmp eq %13, %14
    brif %15, block6, block7
block6:
    %16 = iconst.i32 1
    %17 = add %6, %16
    jump block3(%17, %7)
block7:
    %18 = add %7, %6
    %19 = iconst.i32 1
    %20 = add %6, %19
    jump block3(%20, %18)
block8:
    %21 = iconst.i32 1
    %22 = add %2, %21
    jump block1(%22, %7)
block9:
    ret %3
}
",
        );
    }

    #[test]
    fn loop_invariant_variable_gets_no_param() {
        // var c = p * 3; var i = 0; while i < 100 { i += c }; return i + c
        let text = helper(|b, p| {
            let c = b.declare_var(Type::I32);
            let i = b.declare_var(Type::I32);
            let three = b.iconst(Type::I32, 3);
            let cv = b.imul(p[0], three);
            b.def_var(c, cv);
            let zero = b.iconst(Type::I32, 0);
            b.def_var(i, zero);
            let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(header, &[]);
            b.switch_to_block(header);
            // Both reads happen before the back edge exists: each creates a parameter.
            let (iv, _) = (b.use_var(i), b.use_var(c));
            let limit = b.iconst(Type::I32, 100);
            let more = b.icmp(IntCC::Slt, iv, limit);
            b.brif(more, body, &[], exit, &[]);
            b.seal_block(body);
            b.seal_block(exit);
            b.switch_to_block(body);
            let (iv, cv) = (b.use_var(i), b.use_var(c));
            let next = b.iadd(iv, cv);
            b.def_var(i, next);
            b.jump(header, &[]);
            b.seal_block(header);
            assert_eq!(b.block_params(header).len(), 2);
            b.switch_to_block(exit);
            let (iv, cv) = (b.use_var(i), b.use_var(c));
            let r = b.iadd(iv, cv);
            b.ret(Some(r));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 3
    %2 = mul %0, %1
    %3 = iconst.i32 0
    jump block1(%3)
block1(%4: i32):
    %5 = iconst.i32 100
    %6 = icmp slt %4, %5
    brif %6, block2, block3
block2:
    %7 = add %4, %2
    jump block1(%7)
block3:
    %8 = add %4, %2
    ret %8
}
",
        );
    }

    #[test]
    fn mutually_dependent_trivial_params_are_removed() {
        // A frontend that seals nothing early: x is only read in a two-block loop and after it,
        // so the parameters created for it in `a`, `b` and `exit` are all trivial, and the one
        // in `a` only becomes so once the one in `b` is gone.
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            b.def_var(x, p[0]);
            let (ba, bb, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(ba, &[]);
            b.switch_to_block(ba);
            let xv = b.use_var(x);
            let ten = b.iconst(Type::I32, 10);
            let c = b.icmp(IntCC::Slt, xv, ten);
            b.brif(c, bb, &[], exit, &[]);
            b.switch_to_block(bb);
            let xv = b.use_var(x);
            let y = b.iadd(xv, xv);
            let slot = b.create_slot(AddrSpace::Private, 4, 4);
            let ptr = b.slot_addr(slot);
            b.store(ptr, y, MemFlags::aligned(4));
            b.jump(ba, &[]);
            b.switch_to_block(exit);
            let xv = b.use_var(x);
            b.ret(Some(xv));
            assert_eq!(b.ctx.ssa_params.len(), 3);
        });
        check(
            &text,
            "func @f(i32) -> i32 {
    slot0 = private 4 align 4
block0(%0: i32):
    jump block1
block1:
    %1 = iconst.i32 10
    %2 = icmp slt %0, %1
    brif %2, block2, block3
block2:
    %3 = add %0, %0
    %4 = slot_addr slot0
    store %4, %3
    jump block1
block3:
    ret %0
}
",
        );
    }

    #[test]
    fn switch_merges_values() {
        // var r = 7; switch p { 0 => r = 10, 1 | 2 => r += 13, 3 | _ => {} }; return r
        let text = helper(|b, p| {
            let r = b.declare_var(Type::I32);
            let seven = b.iconst(Type::I32, 7);
            b.def_var(r, seven);
            let (case0, case12, join) = (b.create_block(), b.create_block(), b.create_block());
            // `case12` is the target of two cases (one predecessor edge to read through), and
            // `join` of the default and a case (both get the argument).
            b.switch(p[0], join, &[(0, case0), (1, case12), (2, case12), (3, join)]);
            b.seal_block(case0);
            b.seal_block(case12);
            b.switch_to_block(case0);
            let ten = b.iconst(Type::I32, 10);
            b.def_var(r, ten);
            b.jump(join, &[]);
            b.switch_to_block(case12);
            let rv = b.use_var(r);
            let thirteen = b.iconst(Type::I32, 13);
            let sum = b.iadd(rv, thirteen);
            b.def_var(r, sum);
            b.jump(join, &[]);
            assert!(b.block_params(case12).is_empty());
            b.seal_block(join);
            b.switch_to_block(join);
            let rv = b.use_var(r);
            b.ret(Some(rv));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 7
    switch %0, block3(%1), [0: block1, 1: block2, 2: block2, 3: block3(%1)]
block1:
    %2 = iconst.i32 10
    jump block3(%2)
block2:
    %3 = iconst.i32 13
    %4 = add %1, %3
    jump block3(%4)
block3(%5: i32):
    ret %5
}
",
        );
    }

    #[test]
    fn variable_without_definition_reads_zero() {
        // var x; var f: f32; if p < 0 { x = 5; f = 1.5 }; return x + (f as i32)
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            let f = b.declare_var(Type::F32);
            let zero = b.iconst(Type::I32, 0);
            let c = b.icmp(IntCC::Slt, p[0], zero);
            let (then, join) = (b.create_block(), b.create_block());
            b.brif(c, then, &[], join, &[]);
            b.seal_block(then);
            b.switch_to_block(then);
            let five = b.iconst(Type::I32, 5);
            b.def_var(x, five);
            let half = b.fconst_f32(1.5);
            b.def_var(f, half);
            b.jump(join, &[]);
            b.seal_block(join);
            b.switch_to_block(join);
            let (xv, fv) = (b.use_var(x), b.use_var(f));
            let fi = b.convert(ConvOp::Fptosi, Type::I32, fv);
            let r = b.iadd(xv, fi);
            b.ret(Some(r));
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 0
    %2 = fconst.f32 0.0
    %3 = iconst.i32 0
    %4 = icmp slt %0, %3
    brif %4, block1, block2(%1, %2)
block1:
    %5 = iconst.i32 5
    %6 = fconst.f32 1.5
    jump block2(%5, %6)
block2(%7: i32, %8: f32):
    %9 = fptosi.i32 %8
    %10 = add %7, %9
    ret %10
}
",
        );
    }

    #[test]
    fn unreachable_cycle_keeps_its_params() {
        // Two blocks that only branch to each other, unreachable from the entry. Their
        // parameters for `x` are trivial (nothing from outside flows in), but removing them
        // would make `ptradd` use its own result, so parameters of unreachable blocks stay.
        let text = helper(|b, p| {
            let x = b.declare_var(Type::Ptr(AddrSpace::Global));
            b.ret(Some(p[0]));
            let (ba, bb) = (b.create_block(), b.create_block());
            b.switch_to_block(ba);
            let xa = b.use_var(x);
            b.jump(bb, &[]);
            b.switch_to_block(bb);
            let xb = b.use_var(x);
            let one = b.iconst(Type::I32, 1);
            let p = b.ptradd(xb, one);
            b.def_var(x, p);
            let c = b.icmp(IntCC::Eq, xa, xb);
            b.brif(c, ba, &[], bb, &[]);
            b.seal_all_blocks();
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    ret %0
block1(%1: ptr<global>):
    jump block2(%1)
block2(%2: ptr<global>):
    %3 = iconst.i32 1
    %4 = ptradd %2, %3
    %5 = icmp eq %1, %2
    brif %5, block1(%4), block2(%4)
}
",
        );
    }

    #[test]
    fn explicit_params_come_before_variable_params() {
        // The frontend passes `m` to `join` itself; the variable `x` gets a parameter after it.
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            b.def_var(x, p[0]);
            let (then, join) = (b.create_block(), b.create_block());
            let m = b.append_block_param(join, Type::I32);
            let zero = b.iconst(Type::I32, 0);
            let c = b.icmp(IntCC::Ne, p[0], zero);
            b.brif(c, then, &[], join, &[zero]);
            b.switch_to_block(join); // read before sealing: an incomplete parameter
            let xv = b.use_var(x);
            let r = b.iadd(xv, m);
            b.ret(Some(r));
            b.seal_block(then);
            b.switch_to_block(then);
            let nine = b.iconst(Type::I32, 9);
            b.def_var(x, nine);
            b.jump(join, &[nine]);
            b.seal_block(join);
        });
        check(
            &text,
            "func @f(i32) -> i32 {
block0(%0: i32):
    %1 = iconst.i32 0
    %2 = icmp ne %0, %1
    brif %2, block2, block1(%1, %0)
block1(%3: i32, %4: i32):
    %5 = add %4, %3
    ret %5
block2:
    %6 = iconst.i32 9
    jump block1(%6, %6)
}
",
        );
    }

    #[test]
    fn every_instruction() {
        let sync = SyncInfo { ordering: Ordering::AcqRel, scope: Scope::Agent, av_none: false };
        let attrs = KernelAttrs { dynamic_shared: true, ..KernelAttrs::default() };
        let global = Type::Ptr(AddrSpace::Global);
        // Two helpers to call: `@g(i32)` and `@h() -> i32`.
        let mut ctx = FunctionBuilderContext::new();
        let mut g = Function::new("g", FuncKind::Helper, Signature { params: vec![Type::I32], ret: None });
        let mut b = FunctionBuilder::new(&mut g, &mut ctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.append_entry_params();
        b.ret(None);
        b.finish();
        let mut h = Function::new("h", FuncKind::Helper, Signature { params: vec![], ret: Some(Type::I32) });
        let mut b = FunctionBuilder::new(&mut h, &mut ctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let seven = b.iconst(Type::I32, 7);
        b.ret(Some(seven));
        b.finish();
        let callees = vec![g, h];
        let text = build_with_callees(FuncKind::Kernel(attrs), &[global, Type::I32], None, callees, |b, p| {
            let (ptr, n) = (p[0], p[1]);
            let c = b.iconst(Type::I64, -1);
            let h = b.fconst(Type::F16, 0.1);
            let f = b.fconst_f32(2.5);
            let d = b.fconst_f64(-0.0);
            let nan = b.fconst_bits(Type::F32, 0x7fc0_0001);
            let _ = (c, d, nan);
            let neg = b.unary(UnaryOp::Neg, n);
            let sqrt = b.unary(UnaryOp::Sqrt, f);
            let sub = b.isub(n, neg);
            let mul = b.imul(sub, n);
            let fs = b.fsub(sqrt, f);
            let fm = b.fmul(fs, sqrt);
            let fma = b.fma(fm, f, sqrt);
            let cmp = b.fcmp(FloatCC::Olt, fma, f);
            let sel = b.select(cmp, mul, n);
            let wide = b.convert(ConvOp::Fpext, Type::F32, h);
            let _ = wide;
            let q = b.ptradd(ptr, sel);
            let flat = b.addrspacecast(Type::Ptr(AddrSpace::Flat), q);
            let slot = b.create_slot(AddrSpace::Shared, 256, 16);
            let sa = b.slot_addr(slot);
            let dyn_shared = b.dyn_shared_addr();
            let lane = b.special(Special::LaneId);
            let gid = b.special(Special::NumGroups(Dim::Z));
            let v = b.load(Type::I32, flat, MemFlags { align: 2, volatile: true, nontemporal: false, av: None });
            b.store(sa, v, MemFlags::aligned(4));
            let old = b.atomic_rmw(RmwOp::Add, q, v, sync);
            let prev = b.atomic_cas(dyn_shared, old, gid, sync);
            let acq = SyncInfo { ordering: Ordering::Acquire, ..sync };
            let al = b.atomic_load(Type::I32, q, acq);
            let rel = SyncInfo { ordering: Ordering::Release, av_none: true, ..sync };
            b.atomic_store(q, prev, rel);
            b.fence(SyncInfo { scope: Scope::Workgroup, ..sync });
            b.barrier();
            let lt = b.icmp(IntCC::Ult, lane, al);
            let mask = b.ballot(lt);
            let _ = mask;
            let first = b.readfirstlane(al);
            let sh = b.shuffle(first, lane);
            let red = b.reduce(ReduceOp::Umax, sh);
            let none = b.call(FuncId::from_u32(1), None, &[red]);
            assert!(none.is_none());
            let some = b.call(FuncId::from_u32(2), Some(Type::I32), &[]).unwrap();
            let (x, y) = (b.create_block(), b.create_block());
            b.switch(some, x, &[(u64::MAX, y)]);
            b.seal_block(x);
            b.seal_block(y);
            b.switch_to_block(x);
            b.unreachable();
            b.switch_to_block(y);
            b.ret(None);
        });
        check(
            &text,
            "kernel @f(ptr<global>, i32) dynamic_shared {
    slot0 = shared 256 align 16
block0(%0: ptr<global>, %1: i32):
    %2 = iconst.i64 -1
    %3 = fconst.f16 0.099975586
    %4 = fconst.f32 2.5
    %5 = fconst.f64 -0.0
    %6 = fconst.f32 nan:0x7fc00001
    %7 = neg %1
    %8 = sqrt %4
    %9 = sub %1, %7
    %10 = mul %9, %1
    %11 = fsub %8, %4
    %12 = fmul %11, %8
    %13 = fma %12, %4, %8
    %14 = fcmp olt %13, %4
    %15 = select %14, %10, %1
    %16 = fpext.f32 %3
    %17 = ptradd %0, %15
    %18 = addrspacecast.ptr<flat> %17
    %19 = slot_addr slot0
    %20 = dyn_shared_addr
    %21 = lane_id
    %22 = num_groups.z
    %23 = load.i32 %18 align 2 volatile
    store %19, %23
    %24 = atomic_rmw.add %17, %23 acq_rel agent
    %25 = atomic_cas %20, %24, %22 acq_rel agent
    %26 = atomic_load.i32 %17 acquire agent
    atomic_store %17, %25 release agent av_none
    fence acq_rel workgroup
    barrier
    %27 = icmp ult %21, %26
    %28 = ballot %27
    %29 = readfirstlane %26
    %30 = shuffle %29, %21
    %31 = reduce.umax %30
    call @g(%31)
    %32 = call @h()
    switch %32, block1, [-1: block2]
block1:
    unreachable
block2:
    ret
}

func @g(i32) {
block0(%0: i32):
    ret
}

func @h() -> i32 {
block0:
    %0 = iconst.i32 7
    ret %0
}
",
        );
    }

    #[test]
    fn context_is_reusable() {
        let mut ctx = FunctionBuilderContext::new();
        let mut texts = Vec::new();
        for _ in 0..2 {
            let sig = Signature { params: vec![Type::I32], ret: Some(Type::I32) };
            let mut func = Function::new("g", FuncKind::Helper, sig);
            let mut b = FunctionBuilder::new(&mut func, &mut ctx);
            let (entry, header, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.switch_to_block(entry);
            let n = b.append_entry_params()[0];
            let x = b.declare_var(Type::I32);
            b.def_var(x, n);
            b.jump(header, &[]);
            b.switch_to_block(header);
            let xv = b.use_var(x);
            let one = b.iconst(Type::I32, 1);
            let next = b.isub(xv, one);
            b.def_var(x, next);
            let zero = b.iconst(Type::I32, 0);
            let more = b.icmp(IntCC::Ne, next, zero);
            b.brif(more, header, &[], exit, &[]);
            b.switch_to_block(exit);
            let xv = b.use_var(x);
            b.ret(Some(xv));
            b.finish(); // seals what is left
            let mut module = Module::default();
            module.push(func);
            texts.push(format!("{module}"));
        }
        assert_eq!(texts[0], texts[1]);
        check(
            &texts[0],
            "func @g(i32) -> i32 {
block0(%0: i32):
    jump block1(%0)
block1(%1: i32):
    %2 = iconst.i32 1
    %3 = sub %1, %2
    %4 = iconst.i32 0
    %5 = icmp ne %3, %4
    brif %5, block1(%3), block2
block2:
    ret %3
}
",
        );
    }

    /// Builds a function that branches from the entry to a block and then runs `misuse`.
    fn misuse(misuse: impl FnOnce(&mut FunctionBuilder<'_>, Block)) {
        let mut func = Function::new("f", FuncKind::Helper, Signature::default());
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let (entry, next) = (b.create_block(), b.create_block());
        b.switch_to_block(entry);
        b.jump(next, &[]);
        misuse(&mut b, next);
    }

    #[test]
    #[should_panic(expected = "cannot insert")]
    fn inserting_after_a_terminator_panics() {
        misuse(|b, _| {
            b.ret(None);
        });
    }

    #[test]
    #[should_panic(expected = "which is sealed")]
    fn branching_to_a_sealed_block_panics() {
        misuse(|b, next| {
            b.seal_block(next);
            let other = b.create_block();
            b.switch_to_block(other);
            b.jump(next, &[]);
        });
    }

    #[test]
    #[should_panic(expected = "passes 1 argument(s) to block1, which has 0 explicit parameter(s)")]
    fn wrong_argument_count_panics() {
        misuse(|b, next| {
            let other = b.create_block();
            b.switch_to_block(other);
            let v = b.iconst(Type::I32, 0);
            b.jump(next, &[v]);
        });
    }

    #[test]
    #[should_panic(expected = "the value has type i64 but the variable was declared i32")]
    fn def_var_with_the_wrong_type_panics() {
        misuse(|b, next| {
            b.switch_to_block(next);
            let x = b.declare_var(Type::I32);
            let v = b.iconst(Type::I64, 0);
            b.def_var(x, v);
        });
    }

    #[test]
    fn long_chains_do_not_recurse() {
        // 50 000 blocks in a row, read at the end through single predecessors, and a loop whose
        // header reads 200 variables before its back edge exists (all trivial but one).
        let text = helper(|b, p| {
            let x = b.declare_var(Type::I32);
            b.def_var(x, p[0]);
            for _ in 0..50_000 {
                let next = b.create_block();
                b.jump(next, &[]);
                b.seal_block(next);
                b.switch_to_block(next);
            }
            let vars: Vec<Variable> = (0..200).map(|_| b.declare_var(Type::I32)).collect();
            for &v in &vars {
                let xv = b.use_var(x);
                b.def_var(v, xv);
            }
            let header = b.create_block();
            b.jump(header, &[]);
            b.switch_to_block(header);
            let mut acc = b.use_var(x);
            for &v in &vars {
                let vv = b.use_var(v);
                acc = b.iadd(acc, vv);
            }
            b.def_var(vars[0], acc);
            let c = b.icmp(IntCC::Ne, acc, p[0]);
            let exit = b.create_block();
            b.brif(c, header, &[], exit, &[]);
            b.seal_block(header);
            b.seal_block(exit);
            b.switch_to_block(exit);
            let r = b.use_var(vars[0]);
            b.ret(Some(r));
        });
        let header = text.lines().find(|l| l.starts_with("block50001")).unwrap();
        assert_eq!(header, "block50001(%1: i32):");
    }
}
