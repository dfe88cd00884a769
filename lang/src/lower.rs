//! Lowering: a checked file to `frontend-ir`, through [`FunctionBuilder`] and its variables,
//! so that SSA form (block parameters) is built by the builder rather than by hand.
//!
//! Each kernel becomes one IR kernel; helper functions are inlined at every call (the checker
//! has ruled out recursion, so a helper is never active twice at once and one table of
//! bindings, keyed by declaration, serves every inlined body). Scalars live in builder
//! variables; a buffer is its global pointer; shared and private arrays are slots of the
//! kernel. An element address is the base plus the index times the element size: a 64-bit
//! byte offset into a buffer (a signed index is sign-extended), a 32-bit one into a slot.
//!
//! Control flow follows the source: `&&` and `||` branch (the right operand runs only when
//! needed), unless running it anyway cannot be told apart (no memory access, helper call or
//! wave operation in it), when both operands run and combine without a branch; `if`, `while`,
//! `for` and `loop` make the usual blocks; `break`, `continue` and `return` jump, and whatever
//! follows them in their block is unreachable and not lowered. Every `return` of a kernel jumps
//! to its one exit block, so all paths of a kernel meet again before the end.
//! A block whose predecessors never materialize (the join of an `if` whose arms both return,
//! the exit of a `loop` without `break`) is never laid out. Integer division and shifts map to
//! the IR's operations, which already have the contract's semantics (RISC-V division,
//! amounts modulo the width).
//!
//! Every instruction records where it comes from ([`FunctionBuilder::set_srcloc`]): an
//! expression's at its span, a statement's own (a store, a branch) at the statement or, for
//! `if`, `while`, `for` and `loop`, at its head, so that a backend error names the line. An
//! inlined helper's instructions are at the helper's own lines, as clang's are for inlined
//! code (the line of the operation that fails, not of a call that may be far from it); the
//! arguments and the jump back to the caller are at the call.

use crate::ast::*;
use crate::builtins::{AtomicOp, BuiltinFn, Geometry, MathFn, WaveFn};
use crate::check::{Callee, Res, Typed};
use crate::types::{ArrayKind, ScalarTy, Ty};
use foldhash::fast::FixedState;
use frontend_ir::builder::{FunctionBuilder, FunctionBuilderContext, Variable};
use frontend_ir::{
    AddrSpace, BinaryOp, Block as IrBlock, ConvOp, FloatCC, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module,
    ReduceOp, RmwOp, Signature, Slot, SourceLoc, Special, Type, UnaryOp, Value,
};
use std::collections::HashMap;

/// Lowers every kernel of a checked file (with no errors) to a module.
pub fn lower(file: &SourceFile, typed: &Typed) -> Module {
    let mut module = Module::default();
    let mut ctx = FunctionBuilderContext::new();
    for (index, item) in file.items.iter().enumerate().filter(|(_, item)| item.is_kernel) {
        let params = item.params.iter().map(|p| local_ir_type(typed, p.id)).collect();
        let attrs = KernelAttrs {
            reqd_workgroup_size: typed.workgroup_sizes.get(&index).copied(),
            waves_per_simd: typed.waves_per_simd.get(&index).copied(),
            ..KernelAttrs::default()
        };
        let mut func = Function::new(item.name.name.clone(), FuncKind::Kernel(attrs), Signature { params, ret: None });
        let mut b = FunctionBuilder::new(&mut func, &mut ctx);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.seal_block(entry);
        let values = b.append_entry_params();
        // Every `return` of the kernel jumps to one exit block, so that all paths meet again
        // there (a structured CFG for the backend) rather than at the function's end.
        let exit = b.create_block();
        let returns = vec![ReturnCtx { exit, result: None }];
        let mut lw = Lowerer { b, file, typed, bindings: HashMap::default(), loops: Vec::new(), returns };
        for (p, v) in item.params.iter().zip(values) {
            lw.bind_value(p.id, v);
        }
        lw.stmts(&item.body.stmts);
        if !lw.b.is_terminated() {
            lw.ret(None);
        }
        lw.b.seal_block(exit);
        lw.b.switch_to_block(exit);
        lw.b.ret(None);
        lw.b.finish();
        module.push(func);
    }
    module
}

/// The IR type of a declared scalar or buffer. A read-only buffer `&[T]` is constant memory
/// (`ptr<constant>`): by the language's reference rules nothing writes it while the kernel
/// runs, which is what the constant address space promises, so its uniform loads may go
/// through the scalar cache and be merged or moved like any other read of unchanging memory.
fn local_ir_type(typed: &Typed, id: NodeId) -> Type {
    match typed.locals.get(&id).map(|l| l.ty) {
        Some(Ty::Scalar(t)) => t.ir(),
        Some(Ty::Buffer { mutable: false, .. }) => Type::Ptr(AddrSpace::Constant),
        Some(Ty::Buffer { .. }) => Type::Ptr(AddrSpace::Global),
        _ => Type::I32,
    }
}

/// What a declaration is bound to in the function being built.
#[derive(Copy, Clone)]
enum Binding {
    /// A scalar, in a builder variable.
    Var(Variable),
    /// A buffer: its global-memory address.
    Buffer(Value),
    /// A shared or private array.
    Array(Slot),
}

/// A loop being lowered: where `continue` and `break` go, and whether they were used.
struct LoopCtx {
    continue_to: IrBlock,
    exit: IrBlock,
    continued: bool,
    exited: bool,
}

/// An inlined helper being lowered: where `return` goes and the variable of its value.
struct ReturnCtx {
    exit: IrBlock,
    result: Option<Variable>,
}

struct Lowerer<'a, 'f> {
    b: FunctionBuilder<'f>,
    file: &'a SourceFile,
    typed: &'a Typed,
    bindings: HashMap<NodeId, Binding, FixedState>,
    loops: Vec<LoopCtx>,
    /// The kernel's exit, then one entry per helper being inlined.
    returns: Vec<ReturnCtx>,
}

impl Lowerer<'_, '_> {
    // ---------------------------------------------------------------------------------------
    // Bindings

    /// Binds a parameter (or an argument of an inlined helper) to a value.
    fn bind_value(&mut self, id: NodeId, v: Value) {
        let binding = if self.b.value_type(v).is_ptr() {
            Binding::Buffer(v)
        } else {
            let var = self.b.declare_var(self.b.value_type(v));
            self.b.def_var(var, v);
            Binding::Var(var)
        };
        self.bindings.insert(id, binding);
    }

    fn binding(&self, e: &Expr) -> Option<Binding> {
        match self.typed.res.get(&e.id) {
            Some(Res::Local(decl)) => self.bindings.get(decl).copied(),
            _ => None,
        }
    }

    /// A constant of a scalar type from its bits.
    fn constant(&mut self, t: ScalarTy, bits: u64) -> Value {
        if t.is_float() {
            self.b.fconst_bits(t.ir(), bits)
        } else {
            self.b.iconst(t.ir(), bits as i64)
        }
    }

    // ---------------------------------------------------------------------------------------
    // Statements

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            if self.b.is_terminated() {
                return; // unreachable: after a break, continue or return
            }
            self.stmt(s);
        }
    }

    /// Opens a block, runs `body` in it, and jumps to `next` if the body falls through;
    /// returns whether it did.
    fn arm(&mut self, block: IrBlock, next: IrBlock, body: impl FnOnce(&mut Self)) -> bool {
        self.b.switch_to_block(block);
        body(self);
        let falls = !self.b.is_terminated();
        if falls {
            self.b.jump(next, &[]);
        }
        falls
    }

    fn stmt(&mut self, s: &Stmt) {
        // The statement's instructions are at its head; those of its expressions and inner
        // statements at their own spans (see `value_or_unit`), and the enclosing location
        // comes back after it. Saved here rather than in a wrapper: the lowering recurses
        // through here on the nesting of inlined helpers, thousands of levels on a thread's stack.
        let outer = self.b.srcloc();
        self.b.set_srcloc(head_loc(s));
        match &s.kind {
            StmtKind::Let { id, init, .. } => match (self.typed.locals.get(id).map(|l| l.ty), init) {
                (Some(Ty::Array { elem, len, kind: ArrayKind::Private }), _) => {
                    self.array(*id, elem, len, AddrSpace::Private)
                }
                (_, Some(init)) => {
                    let v = self.expr(init);
                    self.bind_value(*id, v);
                }
                _ => {}
            },
            StmtKind::Shared { id, .. } => {
                if let Some(Ty::Array { elem, len, .. }) = self.typed.locals.get(id).map(|l| l.ty) {
                    self.array(*id, elem, len, AddrSpace::Shared);
                }
            }
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value),
            StmtKind::Expr { expr, .. } if self.typed.tails.contains(&expr.id) => {
                let v = self.expr(expr);
                self.ret(Some(v));
            }
            StmtKind::Expr { expr, .. } => {
                self.value_or_unit(expr);
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                let (then_b, merge) = (self.b.create_block(), self.b.create_block());
                let else_b = if els.is_some() { self.b.create_block() } else { merge };
                self.b.brif(c, then_b, &[], else_b, &[]);
                self.b.seal_block(then_b);
                if els.is_some() {
                    self.b.seal_block(else_b);
                }
                let mut joined = self.arm(then_b, merge, |lw| lw.stmts(&then.stmts));
                match els {
                    Some(els) => joined |= self.arm(else_b, merge, |lw| lw.stmts(&els.stmts)),
                    None => joined = true,
                }
                self.b.seal_block(merge);
                if joined {
                    self.b.switch_to_block(merge);
                }
            }
            StmtKind::While { cond, body } => {
                let (header, body_b, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                self.b.jump(header, &[]);
                self.b.switch_to_block(header);
                let c = self.expr(cond);
                self.b.brif(c, body_b, &[], exit, &[]);
                self.b.seal_block(body_b);
                self.loop_body(body_b, header, exit, &body.stmts);
                self.b.seal_block(header);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
            }
            StmtKind::For { id, start, end, body, .. } => self.for_loop(*id, start, end, body),
            StmtKind::Loop { body } => {
                let (body_b, exit) = (self.b.create_block(), self.b.create_block());
                self.b.jump(body_b, &[]);
                let ctx = self.loop_body(body_b, body_b, exit, &body.stmts);
                self.b.seal_block(body_b);
                self.b.seal_block(exit);
                if ctx.exited {
                    self.b.switch_to_block(exit);
                }
            }
            StmtKind::Break | StmtKind::Continue => {
                let brk = matches!(s.kind, StmtKind::Break);
                if let Some(l) = self.loops.last_mut() {
                    let target = if brk { l.exit } else { l.continue_to };
                    if brk {
                        l.exited = true;
                    } else {
                        l.continued = true;
                    }
                    self.b.jump(target, &[]);
                }
            }
            StmtKind::Return(value) => {
                let v = value.as_ref().map(|v| self.expr(v));
                self.ret(v);
            }
            StmtKind::Block(b) => self.stmts(&b.stmts),
            StmtKind::Error => {}
        }
        self.b.set_srcloc(outer);
    }

    fn array(&mut self, id: NodeId, elem: ScalarTy, len: u32, space: AddrSpace) {
        let size = elem.bytes().unwrap_or(4);
        let slot = self.b.create_slot(space, len * size, size);
        self.bindings.insert(id, Binding::Array(slot));
    }

    /// Lowers a loop body into `body_b` (whose predecessors are known: the loop's entry), with
    /// `continue` going to `continue_to` and `break` to `exit`; a body that falls through
    /// continues. Returns the loop's context after the body.
    fn loop_body(&mut self, body_b: IrBlock, continue_to: IrBlock, exit: IrBlock, stmts: &[Stmt]) -> LoopCtx {
        self.loops.push(LoopCtx { continue_to, exit, continued: false, exited: false });
        let falls = self.arm(body_b, continue_to, |lw| lw.stmts(stmts));
        let mut ctx = self.loops.pop().expect("pushed above");
        ctx.continued |= falls;
        ctx
    }

    /// `for i in start..end`: `end` is evaluated once; `i` counts up by one while below it.
    fn for_loop(&mut self, id: NodeId, start: &Expr, end: &Expr, body: &Block) {
        let t = self.typed.scalar(start);
        let first = self.expr(start);
        let last = self.expr(end);
        let counter = self.b.declare_var(t.ir());
        self.b.def_var(counter, first);
        self.bindings.insert(id, Binding::Var(counter));
        let (header, body_b, latch, exit) =
            (self.b.create_block(), self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.jump(header, &[]);
        self.b.switch_to_block(header);
        let i = self.b.use_var(counter);
        let cc = if t.is_signed() { IntCC::Slt } else { IntCC::Ult };
        let more = self.b.icmp(cc, i, last);
        self.b.brif(more, body_b, &[], exit, &[]);
        self.b.seal_block(body_b);
        let ctx = self.loop_body(body_b, latch, exit, &body.stmts);
        self.b.seal_block(latch);
        if ctx.continued {
            self.b.switch_to_block(latch);
            let i = self.b.use_var(counter);
            let one = self.b.iconst(t.ir(), 1);
            let next = self.b.iadd(i, one);
            self.b.def_var(counter, next);
            self.b.jump(header, &[]);
        }
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
    }

    /// `return`: jumps to the kernel's exit block (ending the work-item), or in an inlined
    /// helper sets the result and jumps to the code after the call.
    fn ret(&mut self, v: Option<Value>) {
        let Some(r) = self.returns.last_mut() else { return };
        let (exit, result) = (r.exit, r.result);
        if let (Some(var), Some(v)) = (result, v) {
            self.b.def_var(var, v);
        }
        self.b.jump(exit, &[]);
    }

    fn assign(&mut self, target: &Expr, op: Option<BinOp>, value: &Expr) {
        let t = self.typed.scalar(target);
        // As in Rust, the assigned value is evaluated before the place.
        let v = self.expr(value);
        match &target.kind {
            ExprKind::Index(base, index) => {
                let addr = self.address(base, index);
                let v = match op {
                    Some(op) => {
                        let old = self.b.load(t.ir(), addr, mem_flags(t));
                        self.arith(op, t, old, v)
                    }
                    None => v,
                };
                self.b.store(addr, v, mem_flags(t));
            }
            _ => {
                if let Some(Binding::Var(var)) = self.binding(target) {
                    let v = match op {
                        Some(op) => {
                            let old = self.b.use_var(var);
                            self.arith(op, t, old, v)
                        }
                        None => v,
                    };
                    self.b.def_var(var, v);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Expressions

    /// The value of an expression the checker typed as a scalar.
    fn expr(&mut self, e: &Expr) -> Value {
        match self.value_or_unit(e) {
            Some(v) => v,
            // Only calls without a value give none, and the checker keeps them out of value
            // positions; a placeholder keeps the builder consistent regardless.
            None => self.b.iconst(Type::I32, 0),
        }
    }

    /// The value of an expression, `None` for a call without one; its instructions are at the
    /// expression's span, those of its operands at theirs.
    fn value_or_unit(&mut self, e: &Expr) -> Option<Value> {
        let t = self.typed.ty(e).scalar().unwrap_or(ScalarTy::I32);
        let outer = self.b.srcloc();
        self.b.set_srcloc(SourceLoc::new(e.span.range()));
        let value = 'value: {
            Some(match &e.kind {
                ExprKind::Int(..) | ExprKind::Float(..) => {
                    let bits = self.typed.consts.get(&e.id).copied().unwrap_or(0);
                    self.constant(t, bits)
                }
                ExprKind::Bool(v) => self.b.iconst(Type::I1, *v as i64),
                ExprKind::Name(_) | ExprKind::Field(..) => self.name(e),
                ExprKind::Paren(x) => break 'value self.value_or_unit(x),
                ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Int(..) | ExprKind::Float(..)) => {
                    // A negative literal is a constant, not a negation.
                    let bits = self.typed.consts.get(&x.id).copied().unwrap_or(0);
                    let negated = if t.is_float() { bits ^ 1 << (t.bits() - 1) } else { bits.wrapping_neg() };
                    self.constant(t, negated & t.ir().mask())
                }
                ExprKind::Unary(op, x) => {
                    let v = self.expr(x);
                    let op = match (op, t.is_float()) {
                        (UnOp::Neg, true) => UnaryOp::Fneg,
                        (UnOp::Neg, false) => UnaryOp::Neg,
                        (UnOp::Not, _) => UnaryOp::Not,
                    };
                    self.b.unary(op, v)
                }
                ExprKind::Binary(BinOp::LogicAnd, a, b) => self.short_circuit(a, b, true),
                ExprKind::Binary(BinOp::LogicOr, a, b) => self.short_circuit(a, b, false),
                ExprKind::Binary(op, a, b) => {
                    let operand = self.typed.scalar(a);
                    let (x, y) = (self.expr(a), self.expr(b));
                    if op.is_comparison() {
                        self.compare(*op, operand, x, y)
                    } else {
                        self.arith(*op, operand, x, y)
                    }
                }
                ExprKind::Cast(x, _) => {
                    let from = self.typed.scalar(x);
                    let v = self.expr(x);
                    self.convert(v, from, t)
                }
                ExprKind::Index(base, index) => {
                    let addr = self.address(base, index);
                    self.b.load(t.ir(), addr, mem_flags(t))
                }
                ExprKind::Call(_, args) => break 'value self.call(e, args),
                ExprKind::AddrOf(_) | ExprKind::Error => self.b.iconst(t.ir(), 0),
            })
        };
        self.b.set_srcloc(outer);
        value
    }

    fn name(&mut self, e: &Expr) -> Value {
        match self.typed.res.get(&e.id).copied() {
            Some(Res::Local(decl)) => match self.bindings.get(&decl).copied() {
                Some(Binding::Var(var)) => self.b.use_var(var),
                Some(Binding::Buffer(v)) => v,
                _ => self.b.iconst(Type::I32, 0),
            },
            Some(Res::Geometry(g, d)) => match g {
                Geometry::LocalId => self.b.special(Special::LocalId(d)),
                Geometry::GroupId => self.b.special(Special::GroupId(d)),
                Geometry::GroupSize => self.b.special(Special::GroupSize(d)),
                Geometry::NumGroups => self.b.special(Special::NumGroups(d)),
                Geometry::GlobalId => {
                    let group = self.b.special(Special::GroupId(d));
                    let size = self.b.special(Special::GroupSize(d));
                    let local = self.b.special(Special::LocalId(d));
                    let base = self.b.imul(group, size);
                    self.b.iadd(base, local)
                }
            },
            Some(Res::LaneId) => self.b.special(Special::LaneId),
            Some(Res::WaveSize) => self.b.special(Special::WaveSize),
            None => self.b.iconst(Type::I32, 0),
        }
    }

    /// `a && b` (`and`) or `a || b`: `b` runs only when `a` does not decide. When running `b`
    /// anyway can make no difference (it reads no memory, calls no helper and no wave
    /// operation, and nothing in it can fault), both run and are combined without a branch.
    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Value {
        if self.speculatable(b) {
            let (x, y) = (self.expr(a), self.expr(b));
            return self.b.binary(if and { BinaryOp::And } else { BinaryOp::Or }, x, y);
        }
        let result = self.b.declare_var(Type::I1);
        let x = self.expr(a);
        self.b.def_var(result, x);
        let (rhs, merge) = (self.b.create_block(), self.b.create_block());
        if and {
            self.b.brif(x, rhs, &[], merge, &[]);
        } else {
            self.b.brif(x, merge, &[], rhs, &[]);
        }
        self.b.seal_block(rhs);
        self.b.switch_to_block(rhs);
        let y = self.expr(b);
        self.b.def_var(result, y);
        self.b.jump(merge, &[]);
        self.b.seal_block(merge);
        self.b.switch_to_block(merge);
        self.b.use_var(result)
    }

    /// Whether evaluating `e` has no effect and cannot fault, so that it may run even where
    /// the program would skip it.
    fn speculatable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(..) | ExprKind::Float(..) | ExprKind::Bool(_) | ExprKind::Name(_) | ExprKind::Field(..) => {
                true
            }
            ExprKind::Paren(x) | ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => self.speculatable(x),
            ExprKind::Binary(_, x, y) => self.speculatable(x) && self.speculatable(y),
            ExprKind::Call(_, args) => {
                matches!(self.typed.callees.get(&e.id), Some(Callee::Builtin(BuiltinFn::Math(_))))
                    && args.iter().all(|a| self.speculatable(a))
            }
            ExprKind::Index(..) | ExprKind::AddrOf(_) | ExprKind::Error => false,
        }
    }

    fn compare(&mut self, op: BinOp, t: ScalarTy, x: Value, y: Value) -> Value {
        if t.is_float() {
            let cc = match op {
                BinOp::Eq => FloatCC::Oeq,
                BinOp::Ne => FloatCC::Une,
                BinOp::Lt => FloatCC::Olt,
                BinOp::Le => FloatCC::Ole,
                BinOp::Gt => FloatCC::Ogt,
                _ => FloatCC::Oge,
            };
            return self.b.fcmp(cc, x, y);
        }
        let s = t.is_signed();
        let cc = match op {
            BinOp::Eq => IntCC::Eq,
            BinOp::Ne => IntCC::Ne,
            BinOp::Lt if s => IntCC::Slt,
            BinOp::Lt => IntCC::Ult,
            BinOp::Le if s => IntCC::Sle,
            BinOp::Le => IntCC::Ule,
            BinOp::Gt if s => IntCC::Sgt,
            BinOp::Gt => IntCC::Ugt,
            _ if s => IntCC::Sge,
            _ => IntCC::Uge,
        };
        self.b.icmp(cc, x, y)
    }

    /// An arithmetic, bitwise or shift operator on operands of type `t` (a shift amount of
    /// another integer type is converted to `t` first).
    fn arith(&mut self, op: BinOp, t: ScalarTy, x: Value, y: Value) -> Value {
        let (f, s) = (t.is_float(), t.is_signed());
        let op = match op {
            BinOp::Add if f => BinaryOp::Fadd,
            BinOp::Add => BinaryOp::Add,
            BinOp::Sub if f => BinaryOp::Fsub,
            BinOp::Sub => BinaryOp::Sub,
            BinOp::Mul if f => BinaryOp::Fmul,
            BinOp::Mul => BinaryOp::Mul,
            BinOp::Div if f => BinaryOp::Fdiv,
            BinOp::Div if s => BinaryOp::Sdiv,
            BinOp::Div => BinaryOp::Udiv,
            BinOp::Rem if s => BinaryOp::Srem,
            BinOp::Rem => BinaryOp::Urem,
            BinOp::And => BinaryOp::And,
            BinOp::Or => BinaryOp::Or,
            BinOp::Xor => BinaryOp::Xor,
            BinOp::Shl | BinOp::Shr => {
                let amount = self.resize(y, t.ir());
                let op = match (op, s) {
                    (BinOp::Shl, _) => BinaryOp::Shl,
                    (_, true) => BinaryOp::Ashr,
                    (_, false) => BinaryOp::Lshr,
                };
                return self.b.binary(op, x, amount);
            }
            _ => BinaryOp::Add, // comparisons and logic operators do not come here
        };
        self.b.binary(op, x, y)
    }

    /// An integer value zero-extended or truncated to the integer type `to`.
    fn resize(&mut self, v: Value, to: Type) -> Value {
        let from = self.b.value_type(v);
        match from.bits().cmp(&to.bits()) {
            std::cmp::Ordering::Less => self.b.convert(ConvOp::Zext, to, v),
            std::cmp::Ordering::Greater => self.b.convert(ConvOp::Itrunc, to, v),
            std::cmp::Ordering::Equal => v,
        }
    }

    /// `v as to`, with Rust's rules: sign- or zero-extension by the source's signedness,
    /// truncation, rounding to nearest even, and saturating float-to-integer conversion.
    fn convert(&mut self, v: Value, from: ScalarTy, to: ScalarTy) -> Value {
        let (fi, ti) = (from.ir(), to.ir());
        let op = if fi == ti {
            return v;
        } else if from.is_float() && to.is_float() {
            if ti.bits() > fi.bits() {
                ConvOp::Fpext
            } else {
                ConvOp::Fptrunc
            }
        } else if from.is_float() {
            if to.is_signed() {
                ConvOp::Fptosi
            } else {
                ConvOp::Fptoui
            }
        } else if to.is_float() {
            if from.is_signed() {
                ConvOp::Sitofp
            } else {
                ConvOp::Uitofp
            }
        } else if ti.bits() < fi.bits() {
            ConvOp::Itrunc
        } else if from.is_signed() {
            ConvOp::Sext
        } else {
            ConvOp::Zext // also bool, to 0 or 1
        };
        self.b.convert(op, ti, v)
    }

    /// The address of `base[index]`.
    fn address(&mut self, base: &Expr, index: &Expr) -> Value {
        let elem = self.typed.ty(base).elem().unwrap_or(ScalarTy::I32);
        let size = elem.bytes().unwrap_or(4) as i64;
        let index_ty = self.typed.scalar(index);
        let i = self.expr(index);
        let (ptr, offset_ty) = match self.binding(base) {
            Some(Binding::Buffer(p)) => (p, Type::I64),
            Some(Binding::Array(slot)) => (self.b.slot_addr(slot), Type::I32),
            _ => {
                let null = self.b.iconst(Type::I64, 0);
                let p = self.b.convert(ConvOp::Bitcast, Type::Ptr(AddrSpace::Global), null);
                (p, Type::I64)
            }
        };
        let i = if index_ty.is_signed() && index_ty.ir().bits() < offset_ty.bits() {
            self.b.convert(ConvOp::Sext, offset_ty, i)
        } else {
            self.resize(i, offset_ty)
        };
        let scale = self.b.iconst(offset_ty, size);
        let offset = self.b.imul(i, scale);
        self.b.ptradd(ptr, offset)
    }

    // ---------------------------------------------------------------------------------------
    // Calls

    fn call(&mut self, e: &Expr, args: &[Expr]) -> Option<Value> {
        let t = self.typed.ty(e).scalar().unwrap_or(ScalarTy::I32);
        match self.typed.callees.get(&e.id).copied() {
            Some(Callee::Helper(index)) => self.inline(index, args),
            Some(Callee::Builtin(f)) => self.builtin(e, f, t, args),
            None => None,
        }
    }

    /// Inlines helper `index` with `args`; returns its result.
    fn inline(&mut self, index: usize, args: &[Expr]) -> Option<Value> {
        let file = self.file;
        let callee = &file.items[index];
        for (arg, p) in args.iter().zip(&callee.params) {
            match self.typed.locals.get(&p.id).map(|l| l.ty) {
                Some(Ty::Buffer { .. }) => {
                    if let Some(binding) = self.binding(arg) {
                        self.bindings.insert(p.id, binding);
                    }
                }
                _ => {
                    let v = self.expr(arg);
                    self.bind_value(p.id, v);
                }
            }
        }
        let exit = self.b.create_block();
        let result = match &callee.ret {
            Some(TypeExpr { kind: TypeExprKind::Scalar(t), .. }) => Some(self.b.declare_var(t.ir())),
            _ => None,
        };
        self.returns.push(ReturnCtx { exit, result });
        self.stmts(&callee.body.stmts);
        if !self.b.is_terminated() {
            self.ret(None);
        }
        self.returns.pop();
        // With no jump to it (the helper never returns), the exit is unreachable code, which
        // the IR allows; the caller goes on there.
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        result.map(|var| self.b.use_var(var))
    }

    fn builtin(&mut self, e: &Expr, f: BuiltinFn, t: ScalarTy, args: &[Expr]) -> Option<Value> {
        let sync = self.typed.syncs.get(&e.id).copied();
        match f {
            BuiltinFn::Barrier => {
                self.b.barrier();
                None
            }
            BuiltinFn::Fence => {
                if let Some(sync) = sync {
                    self.b.fence(sync);
                }
                None
            }
            BuiltinFn::Atomic(op) => {
                let sync = sync?;
                let ExprKind::AddrOf(place) = &args[0].kind else { return None };
                let ExprKind::Index(base, index) = &place.kind else { return None };
                let elem = self.typed.scalar(place);
                let values: Vec<Value> = args[1..1 + op.value_args()].iter().map(|a| self.expr(a)).collect();
                let addr = self.address(base, index);
                Some(match op {
                    AtomicOp::Load => self.b.atomic_load(elem.ir(), addr, sync),
                    AtomicOp::Store => {
                        self.b.atomic_store(addr, values[0], sync);
                        return None;
                    }
                    AtomicOp::Cas => self.b.atomic_cas(addr, values[0], values[1], sync),
                    _ => {
                        let rmw = rmw_op(op, elem);
                        self.b.atomic_rmw(rmw, addr, values[0], sync)
                    }
                })
            }
            BuiltinFn::Math(m) => {
                let arg_ty = self.typed.scalar(&args[0]);
                let v: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                Some(self.math(m, arg_ty, &v))
            }
            BuiltinFn::Wave(w) => {
                let v = self.expr(&args[0]);
                Some(self.wave(w, t, v, args))
            }
        }
    }

    fn math(&mut self, m: MathFn, t: ScalarTy, v: &[Value]) -> Value {
        let (f, s) = (t.is_float(), t.is_signed());
        let unary = match m {
            MathFn::Sqrt => UnaryOp::Sqrt,
            MathFn::Rsqrt => UnaryOp::Rsqrt,
            MathFn::Exp2 => UnaryOp::Exp2,
            MathFn::Log2 => UnaryOp::Log2,
            MathFn::Sin => UnaryOp::Sin,
            MathFn::Cos => UnaryOp::Cos,
            MathFn::Floor => UnaryOp::Floor,
            MathFn::Ceil => UnaryOp::Ceil,
            MathFn::Trunc => UnaryOp::Ftrunc,
            MathFn::Round => UnaryOp::Round,
            MathFn::Abs if f => UnaryOp::Fabs,
            MathFn::Abs if s => UnaryOp::Iabs,
            MathFn::Abs => return v[0], // an unsigned value is its own absolute value
            MathFn::Popcount | MathFn::Clz | MathFn::Ctz => {
                let op = match m {
                    MathFn::Popcount => UnaryOp::Popcount,
                    MathFn::Clz => UnaryOp::Clz,
                    _ => UnaryOp::Ctz,
                };
                let count = self.b.unary(op, v[0]);
                return self.resize(count, Type::I32);
            }
            MathFn::Fma => return self.b.fma(v[0], v[1], v[2]),
            MathFn::Min | MathFn::Max | MathFn::Clamp | MathFn::MulHi => {
                let (min, max) = match (f, s) {
                    (true, _) => (BinaryOp::Fmin, BinaryOp::Fmax),
                    (false, true) => (BinaryOp::Smin, BinaryOp::Smax),
                    (false, false) => (BinaryOp::Umin, BinaryOp::Umax),
                };
                return match m {
                    MathFn::Min => self.b.binary(min, v[0], v[1]),
                    MathFn::Max => self.b.binary(max, v[0], v[1]),
                    MathFn::MulHi => self.b.binary(if s { BinaryOp::SmulHi } else { BinaryOp::UmulHi }, v[0], v[1]),
                    _ => {
                        let low = self.b.binary(max, v[0], v[1]);
                        self.b.binary(min, low, v[2])
                    }
                };
            }
        };
        self.b.unary(unary, v[0])
    }

    fn wave(&mut self, w: WaveFn, t: ScalarTy, v: Value, args: &[Expr]) -> Value {
        match w {
            WaveFn::Ballot => self.b.ballot(v),
            WaveFn::Any | WaveFn::All => {
                let mask = self.b.ballot(v);
                let other = if w == WaveFn::Any {
                    self.b.iconst(Type::I64, 0)
                } else {
                    let yes = self.b.iconst(Type::I1, 1);
                    self.b.ballot(yes)
                };
                self.b.icmp(if w == WaveFn::Any { IntCC::Ne } else { IntCC::Eq }, mask, other)
            }
            WaveFn::ReadFirstLane | WaveFn::Shuffle => {
                // A bool travels between lanes as a 32-bit 0 or 1.
                let wide = if t == ScalarTy::Bool { self.b.convert(ConvOp::Zext, Type::I32, v) } else { v };
                let r = if w == WaveFn::Shuffle {
                    let lane = self.expr(&args[1]);
                    let lane = self.resize(lane, Type::I32);
                    self.b.shuffle(wide, lane)
                } else {
                    self.b.readfirstlane(wide)
                };
                if t == ScalarTy::Bool {
                    let zero = self.b.iconst(Type::I32, 0);
                    self.b.icmp(IntCC::Ne, r, zero)
                } else {
                    r
                }
            }
            WaveFn::Sum | WaveFn::Min | WaveFn::Max => {
                let op = match (w, t.is_float(), t.is_signed()) {
                    (WaveFn::Sum, true, _) => ReduceOp::Fadd,
                    (WaveFn::Sum, false, _) => ReduceOp::Add,
                    (WaveFn::Min, true, _) => ReduceOp::Fmin,
                    (WaveFn::Min, false, true) => ReduceOp::Smin,
                    (WaveFn::Min, false, false) => ReduceOp::Umin,
                    (_, true, _) => ReduceOp::Fmax,
                    (_, false, true) => ReduceOp::Smax,
                    (_, false, false) => ReduceOp::Umax,
                };
                self.b.reduce(op, v)
            }
        }
    }
}

/// The IR operation of an atomic read-modify-write on elements of type `t`.
fn rmw_op(op: AtomicOp, t: ScalarTy) -> RmwOp {
    let (f, s) = (t.is_float(), t.is_signed());
    match op {
        AtomicOp::Add if f => RmwOp::Fadd,
        AtomicOp::Add => RmwOp::Add,
        AtomicOp::Sub if f => RmwOp::Fsub,
        AtomicOp::Sub => RmwOp::Sub,
        AtomicOp::Min if f => RmwOp::Fmin,
        AtomicOp::Min if s => RmwOp::Smin,
        AtomicOp::Min => RmwOp::Umin,
        AtomicOp::Max if f => RmwOp::Fmax,
        AtomicOp::Max if s => RmwOp::Smax,
        AtomicOp::Max => RmwOp::Umax,
        AtomicOp::And => RmwOp::And,
        AtomicOp::Or => RmwOp::Or,
        AtomicOp::Xor => RmwOp::Xor,
        _ => RmwOp::Xchg,
    }
}

/// Where the instructions of statement `s` itself are: its head for a compound statement
/// (`if cond`, `while cond`, `for i in a..b`, `loop`), whose branches they are, else all of it.
fn head_loc(s: &Stmt) -> SourceLoc {
    let start = s.span.start as usize;
    SourceLoc::new(match &s.kind {
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => start..cond.span.end as usize,
        StmtKind::For { end, .. } => start..end.span.end as usize,
        StmtKind::Loop { .. } => start..start + "loop".len(),
        _ => s.span.range(),
    })
}

/// Plain flags for a naturally aligned access of a `t`.
fn mem_flags(t: ScalarTy) -> MemFlags {
    MemFlags::aligned(t.bytes().unwrap_or(4))
}

#[cfg(test)]
mod tests {
    use frontend_ir::InstData;

    /// The instructions of the only kernel of `src` matching `pred`, counted.
    fn count(src: &str, pred: impl Fn(&InstData) -> bool) -> usize {
        let m = crate::compile_source(src, "t.gk").unwrap_or_else(|d| panic!("{}", d.render(src)));
        let f = m.functions.values().next().expect("a kernel");
        f.insts_in_layout().filter(|&(_, i)| pred(&f.dfg.insts[i])).count()
    }

    fn brifs(body: &str) -> usize {
        let src = format!("kernel k(b: &mut [u32], n: u32) {{\n{body}\n}}\n");
        count(&src, |d| matches!(d, InstData::Brif { .. }))
    }

    #[test]
    fn short_circuit_branches_only_when_it_matters() {
        // Both operands are plain arithmetic: no branch besides the `if`.
        assert_eq!(brifs("if n < 4 && n * 2 > 3 || n / 0 == 1 { b[0] = 1u; }"), 1);
        // A load (which may fault) or a wave operation (which sees the active lanes): the
        // right operand runs only when needed.
        assert_eq!(brifs("if n < 4 && b[n] > 3 { b[0] = 1u; }"), 2);
        assert_eq!(brifs("if n < 4 || any(n == 2) { b[0] = 1u; }"), 2);
    }

    /// Each instruction is at the source of the expression or statement it comes from, an
    /// inlined helper's at the helper's own lines.
    #[test]
    fn instructions_are_at_their_source() {
        let src = "fn put(b: &mut [u32], i: u32) {\n    b[i] = i * 3u;\n}\n\
                   kernel k(b: &mut [u32], n: u32) {\n    if n > 2u {\n        put(b, n);\n    }\n    barrier();\n}\n";
        let m = crate::compile_source(src, "t.gk").unwrap_or_else(|d| panic!("{}", d.render(src)));
        let f = m.functions.values().next().expect("a kernel");
        let at = |pred: &dyn Fn(&InstData) -> bool| -> Vec<(usize, &str)> {
            f.insts_in_layout()
                .filter(|&(_, i)| pred(&f.dfg.insts[i]))
                .map(|(_, i)| {
                    let range = f.srclocs[i].range().expect("located");
                    (crate::diagnostics::line_col(src, range.start).0, &src[range])
                })
                .collect()
        };
        assert_eq!(at(&|d| matches!(d, InstData::Brif { .. })), [(5, "if n > 2u")]);
        assert_eq!(at(&|d| matches!(d, InstData::Icmp { .. })), [(5, "n > 2u")]);
        assert_eq!(at(&|d| matches!(d, InstData::Store { .. })), [(2, "b[i] = i * 3u;")]);
        let muls = at(&|d| matches!(d, InstData::Binary { op: frontend_ir::BinaryOp::Mul, .. }));
        // The product, then the element offset of the place assigned, which is the statement's.
        assert_eq!(muls, [(2, "i * 3u"), (2, "b[i] = i * 3u;")]);
        assert_eq!(at(&|d| matches!(d, InstData::Barrier)), [(8, "barrier()")]);
    }

    #[test]
    fn kernel_returns_meet_in_one_exit() {
        let src = "kernel k(b: &mut [u32], n: u32) {\n    if n > 3 { return; }\n    for i in 0..n { if i == 2u { return; } b[i] = i; }\n}\n";
        assert_eq!(count(src, |d| matches!(d, InstData::Return { .. })), 1);
    }

    #[test]
    fn negative_literals_are_constants() {
        let src = "kernel k(b: &mut [f32], c: &mut [i32]) { b[0] = -2.5; c[0] = -2147483648; }\n";
        assert_eq!(count(src, |d| matches!(d, InstData::Unary { .. })), 0);
    }
}
