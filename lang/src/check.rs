//! The type checker: resolves names, types every expression, and enforces the rules of the
//! language, recording what it finds in side tables ([`Typed`]) that the lowering reads.
//!
//! Types are checked bidirectionally: an expression is checked against the type its context
//! expects, when there is one. That is how literals get their types: an unsuffixed integer
//! literal takes the integer type its context needs (default `i32`), a float literal the float
//! type (default `f32`), and an operator whose one operand is such a literal types it from the
//! other operand (`x + 1` with `x: u64` makes `1` a `u64`). Nothing converts implicitly: every
//! other mismatch is an error that proposes the `as` that fixes it.
//!
//! An expression with an error gets the type [`Ty::Error`], which every later check accepts,
//! so one mistake gives one diagnostic. The checker also rejects what the lowering could not
//! give a meaning to: writes through `&[T]` or to a `let`, `break` outside a loop, arrays of
//! non-constant size, recursion among the (inlined) helper functions, and so on.

use crate::ast::*;
use crate::builtins::{ordering_from_name, scope_from_name, AtomicOp, BuiltinFn, Geometry, MathFn, MathKind, WaveFn};
use crate::diagnostics::{Diagnostic, Span};
use crate::types::{ArrayKind, ScalarTy, Ty};
use foldhash::fast::FixedState;
use frontend_ir::{Dim, Ordering, Scope, SyncInfo};
use std::collections::{HashMap, HashSet};

/// The most shared memory a kernel may declare, in bytes.
pub const MAX_SHARED_BYTES: u64 = 65536;
/// The largest single array, in bytes.
pub const MAX_ARRAY_BYTES: u64 = 65536;
/// The largest workgroup, in work-items.
pub const MAX_WORKGROUP_SIZE: u64 = 1024;

/// The most waves per SIMD any processor holds (gfx10+ hold 16 or 20 of wave32; a request
/// above what the target holds is reduced to it when compiling).
pub const MAX_WAVES_PER_SIMD: u64 = 20;

/// What a name (or a geometry field) refers to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Res {
    /// A parameter, variable, loop variable or array: the id of its declaration.
    Local(NodeId),
    /// A component of a geometry value (`global_id.x`).
    Geometry(Geometry, Dim),
    /// `lane_id`.
    LaneId,
    /// `wave_size`.
    WaveSize,
}

/// What a call calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// The helper function at this index of the file's items.
    Helper(usize),
    /// A built-in function.
    Builtin(BuiltinFn),
}

/// How a name was declared.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LocalKind {
    /// A function or kernel parameter.
    Param,
    /// `let`.
    Let,
    /// `var` (a scalar or a private array).
    Var,
    /// The variable of a `for` loop.
    ForVar,
    /// `shared`.
    Shared,
}

/// A declared name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Local {
    /// Its type.
    pub ty: Ty,
    /// How it was declared.
    pub kind: LocalKind,
}

/// What the checker found, keyed by node id; the lowering reads it.
#[derive(Clone, Debug, Default)]
pub struct Typed {
    /// Each call of a helper function: the calling item, the called item (indices into the
    /// file's items) and the call's span.
    pub calls: Vec<(usize, usize, Span)>,
    /// The type of each expression (indexed by node id; [`Ty::Error`] for other nodes).
    pub expr_ty: Vec<Ty>,
    /// What each name expression (and each geometry field) refers to.
    pub res: HashMap<NodeId, Res, FixedState>,
    /// What each call calls.
    pub callees: HashMap<NodeId, Callee, FixedState>,
    /// Every declaration.
    pub locals: HashMap<NodeId, Local, FixedState>,
    /// The bits of each literal in its type (for `-lit`, of the literal before negation).
    pub consts: HashMap<NodeId, u64, FixedState>,
    /// The ordering and scope of each atomic call and fence.
    pub syncs: HashMap<NodeId, SyncInfo, FixedState>,
    /// The final expressions that are a helper's return value.
    pub tails: HashSet<NodeId, FixedState>,
    /// The required workgroup size of each kernel, by item index.
    pub workgroup_sizes: HashMap<usize, [u32; 3], FixedState>,
    /// The occupancy each kernel asks for (`#[waves_per_simd(N)]`), by item index.
    pub waves_per_simd: HashMap<usize, u32, FixedState>,
}

impl Typed {
    /// The type of an expression.
    pub fn ty(&self, e: &Expr) -> Ty {
        self.expr_ty.get(e.id.0 as usize).copied().unwrap_or(Ty::Error)
    }

    /// The scalar type of an expression the checker accepted as a scalar.
    pub fn scalar(&self, e: &Expr) -> ScalarTy {
        self.ty(e).scalar().unwrap_or(ScalarTy::I32)
    }
}

/// Checks a parsed file; returns the tables and the errors found.
pub fn check(src: &str, file: &SourceFile) -> (Typed, Vec<Diagnostic>) {
    let mut c = Checker {
        src,
        file,
        errors: Vec::new(),
        out: Typed { expr_ty: vec![Ty::Error; file.node_count as usize], ..Typed::default() },
        fns: HashMap::default(),
        scopes: Vec::new(),
        current: 0,
        loop_depth: 0,
        shared_bytes: 0,
    };
    c.run();
    (c.out, c.errors)
}

struct Checker<'a> {
    src: &'a str,
    file: &'a SourceFile,
    errors: Vec<Diagnostic>,
    out: Typed,
    /// Item index by name (the first of a name).
    fns: HashMap<&'a str, usize, FixedState>,
    scopes: Vec<HashMap<&'a str, NodeId, FixedState>>,
    /// The item being checked.
    current: usize,
    loop_depth: u32,
    /// Shared bytes declared so far in the current kernel.
    shared_bytes: u64,
}

/// Whether an expression's type comes from its context: an unsuffixed literal, or an
/// operator over such literals (`-1`, `(2 * 3)`, `1 << k`).
fn is_flexible(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_, None) | ExprKind::Float(_, None) => true,
        ExprKind::Paren(x) | ExprKind::Unary(_, x) => is_flexible(x),
        ExprKind::Binary(op, a, b) => {
            !op.is_comparison()
                && !matches!(op, BinOp::LogicAnd | BinOp::LogicOr)
                && is_flexible(a)
                && (op.is_shift() || is_flexible(b))
        }
        _ => false,
    }
}

/// Whether a block always ends by returning (or never ends), so that no path falls off it.
fn diverges(block: &Block) -> bool {
    block.stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { then, els: Some(els), .. } => diverges(then) && diverges(els),
        StmtKind::Block(b) => diverges(b),
        StmtKind::Loop { body } => !breaks(body),
        _ => false,
    })
}

/// Whether a loop body has a `break` that leaves this loop (not an inner one).
fn breaks(block: &Block) -> bool {
    block.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If { then, els, .. } => breaks(then) || els.as_ref().is_some_and(breaks),
        StmtKind::Block(b) => breaks(b),
        _ => false,
    })
}

/// The edit distance between two short names (for "did you mean").
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j])).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest of `candidates` to `name`, if close enough to be a typo.
fn suggest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    candidates
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|&(d, c)| d <= 2 && d < c.len().max(name.len()))
        .min()
        .map(|(_, c)| c)
}

/// The names of the built-in values, for suggestions.
const VALUE_NAMES: [&str; 7] =
    ["local_id", "group_id", "group_size", "global_id", "num_groups", "lane_id", "wave_size"];

/// The ordering names in messages.
const ORDERINGS: &str = "`relaxed`, `acquire`, `release`, `acq_rel` or `seq_cst`";
/// The scope names in messages.
const SCOPES: &str = "`wavefront`, `workgroup`, `cluster`, `agent` or `system`";

impl<'a> Checker<'a> {
    // ---------------------------------------------------------------------------------------
    // Reporting

    fn error(&mut self, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.errors.push(Diagnostic::new(span, message));
        self.errors.last_mut().expect("just pushed")
    }

    fn error_help(&mut self, span: Span, message: impl Into<String>, help: impl Into<String>) {
        self.error(span, message).help = Some(help.into());
    }

    /// The source text of an expression, parenthesized unless it is a single term.
    fn snippet(&self, e: &Expr) -> String {
        let text = self.src.get(e.span.range()).unwrap_or("x");
        match e.kind {
            ExprKind::Name(_)
            | ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Bool(_)
            | ExprKind::Index(..)
            | ExprKind::Field(..)
            | ExprKind::Call(..)
            | ExprKind::Paren(_) => text.to_string(),
            _ => format!("({text})"),
        }
    }

    /// Reports that `e` has type `found` where `want` is needed.
    fn mismatch(&mut self, e: &Expr, want: ScalarTy, found: Ty, context: Option<&str>) {
        let message = format!("mismatched types: expected `{want}`, found `{found}`");
        let help = match found {
            Ty::Scalar(f) if f.is_numeric() && want.is_numeric() => {
                Some(format!("convert with `as`: `{} as {want}`", self.snippet(e)))
            }
            Ty::Scalar(f) if f.is_int() && want == ScalarTy::Bool => {
                Some(format!("compare it instead: `{} != 0`", self.snippet(e)))
            }
            Ty::Scalar(ScalarTy::Bool) if want.is_int() => {
                Some(format!("convert with `as`: `{} as {want}` gives 1 or 0", self.snippet(e)))
            }
            _ => None,
        };
        let help = match (context, help) {
            (Some(c), Some(h)) => Some(format!("{c} must have one type; {h}")),
            (Some(c), None) => Some(format!("{c} must have one type")),
            (None, h) => h,
        };
        let d = self.error(e.span, message);
        d.help = help;
    }

    // ---------------------------------------------------------------------------------------
    // Names

    fn lookup(&self, name: &str) -> Option<NodeId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn declare(&mut self, id: NodeId, name: &'a Ident, ty: Ty, kind: LocalKind) {
        self.out.locals.insert(id, Local { ty, kind });
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.name.as_str(), id);
        }
    }

    fn visible_names(&self) -> Vec<&'a str> {
        let mut names: Vec<&'a str> = self.scopes.iter().flat_map(|s| s.keys().copied()).collect();
        names.extend(VALUE_NAMES);
        names
    }

    // ---------------------------------------------------------------------------------------
    // Items

    fn run(&mut self) {
        let file = self.file;
        for (i, item) in file.items.iter().enumerate() {
            let name = item.name.name.as_str();
            if BuiltinFn::from_name(name).is_some() {
                self.error_help(
                    item.name.span,
                    format!("`{name}` is the name of a built-in function"),
                    "choose another name",
                );
            } else if self.fns.contains_key(name) {
                self.error_help(item.name.span, format!("`{name}` is defined twice"), "rename one of them");
            } else {
                self.fns.insert(name, i);
            }
        }
        for (i, item) in file.items.iter().enumerate() {
            self.current = i;
            self.item(i, item);
        }
        self.check_recursion();
    }

    fn item(&mut self, index: usize, item: &'a FnDecl) {
        self.attrs(index, item);
        self.scopes.push(HashMap::default());
        self.loop_depth = 0;
        self.shared_bytes = 0;
        for p in &item.params {
            let ty = self.param_type(item, p);
            if self.scopes.last().is_some_and(|s| s.contains_key(p.name.name.as_str())) {
                self.error_help(p.name.span, format!("parameter `{}` is declared twice", p.name.name), "rename one");
            }
            self.declare(p.id, &p.name, ty, LocalKind::Param);
        }
        let ret = match (&item.ret, item.is_kernel) {
            (Some(t), true) => {
                self.error_help(
                    t.span,
                    "kernels return nothing",
                    "remove the return type and write results to a `&mut` buffer",
                );
                None
            }
            (Some(t), false) => self.scalar_type(t, "a function's return type"),
            (None, _) => None,
        };
        let body = &item.body;
        let last = body.stmts.len().checked_sub(1);
        self.scopes.push(HashMap::default());
        for (i, s) in body.stmts.iter().enumerate() {
            match (&s.kind, ret) {
                (StmtKind::Expr { expr, semi: false }, Some(ret)) if Some(i) == last => {
                    self.expect_ty(expr, ret, None);
                    self.out.tails.insert(expr.id);
                }
                _ => self.stmt(s, ret),
            }
        }
        self.scopes.pop();
        self.scopes.pop();
        let has_tail = body.stmts.last().is_some_and(|s| matches!(s.kind, StmtKind::Expr { semi: false, .. }));
        if let (Some(ret), Some(t)) = (ret, &item.ret) {
            if !has_tail && !diverges(body) {
                self.error_help(
                    t.span,
                    format!("function `{}` may reach its end without returning a `{ret}`", item.name.name),
                    "end every path with `return VALUE;`, or end the body with the value (no `;`)",
                );
            }
        }
    }

    fn attrs(&mut self, index: usize, item: &'a FnDecl) {
        for attr in &item.attrs {
            if !item.is_kernel {
                self.error_help(attr.span, "attributes are only allowed on kernels", "remove the attribute");
                continue;
            }
            match attr.name.name.as_str() {
                "workgroup_size" => self.workgroup_size(index, attr),
                "waves_per_simd" => self.waves_per_simd(index, attr),
                other => self.error_help(
                    attr.name.span,
                    format!("unknown attribute `{other}`"),
                    "the kernel attributes are `#[workgroup_size(X)]` (or `(X, Y)`, `(X, Y, Z)`) and \
                     `#[waves_per_simd(N)]`",
                ),
            }
        }
    }

    /// `#[workgroup_size(X, Y, Z)]`: the size every dispatch uses.
    fn workgroup_size(&mut self, index: usize, attr: &Attr) {
        if self.out.workgroup_sizes.contains_key(&index) {
            self.error_help(attr.span, "`workgroup_size` is given twice", "keep one");
            return;
        }
        if attr.args.is_empty() || attr.args.len() > 3 {
            self.error_help(
                attr.span,
                format!("`workgroup_size` takes 1 to 3 sizes, {} given", attr.args.len()),
                "write `#[workgroup_size(X)]`, `(X, Y)` or `(X, Y, Z)`",
            );
            return;
        }
        let mut size = [1u32; 3];
        let mut ok = true;
        for (d, arg) in attr.args.iter().enumerate() {
            match self.const_int(arg, "a workgroup size") {
                Some(v) if (1..=MAX_WORKGROUP_SIZE).contains(&v) => size[d] = v as u32,
                Some(v) => {
                    self.error(arg.span, format!("workgroup size {v} is out of range (1 to {MAX_WORKGROUP_SIZE})"));
                    ok = false;
                }
                None => ok = false,
            }
        }
        let total: u64 = size.iter().map(|&s| s as u64).product();
        if ok && total > MAX_WORKGROUP_SIZE {
            self.error(
                attr.span,
                format!("a workgroup of {total} work-items is larger than the limit of {MAX_WORKGROUP_SIZE}"),
            );
        } else if ok {
            self.out.workgroup_sizes.insert(index, size);
        }
    }

    /// `#[waves_per_simd(N)]`: the occupancy the kernel's register use must allow.
    fn waves_per_simd(&mut self, index: usize, attr: &Attr) {
        if self.out.waves_per_simd.contains_key(&index) {
            self.error_help(attr.span, "`waves_per_simd` is given twice", "keep one");
            return;
        }
        let [arg] = attr.args.as_slice() else {
            self.error_help(
                attr.span,
                format!("`waves_per_simd` takes one number, {} given", attr.args.len()),
                "write `#[waves_per_simd(N)]`",
            );
            return;
        };
        match self.const_int(arg, "a number of waves") {
            Some(v) if (1..=MAX_WAVES_PER_SIMD).contains(&v) => {
                self.out.waves_per_simd.insert(index, v as u32);
            }
            Some(v) => {
                self.error(arg.span, format!("{v} waves per SIMD is out of range (1 to {MAX_WAVES_PER_SIMD})"));
            }
            None => {}
        }
    }

    fn param_type(&mut self, item: &FnDecl, p: &Param) -> Ty {
        match &p.ty.kind {
            TypeExprKind::Scalar(ScalarTy::Bool) if item.is_kernel => {
                self.error_help(p.ty.span, "a kernel parameter cannot be `bool`", "pass a `u32` and compare it with 0");
                Ty::Error
            }
            TypeExprKind::Scalar(t) => Ty::Scalar(*t),
            TypeExprKind::Buffer { elem, mutable } => match self.elem_type(elem) {
                Some(elem) => Ty::Buffer { elem, mutable: *mutable },
                None => Ty::Error,
            },
            TypeExprKind::Array { .. } => {
                self.error_help(
                    p.ty.span,
                    "an array cannot be a parameter",
                    "pass a buffer, `&[T]` or `&mut [T]`, instead",
                );
                Ty::Error
            }
            TypeExprKind::Error => Ty::Error,
        }
    }

    /// The element type of a buffer or array: a scalar with a memory representation.
    fn elem_type(&mut self, t: &TypeExpr) -> Option<ScalarTy> {
        match &t.kind {
            TypeExprKind::Scalar(ScalarTy::Bool) => {
                self.error_help(t.span, "`bool` cannot be stored in memory", "store a `u32` (0 or 1) instead");
                None
            }
            TypeExprKind::Scalar(s) => Some(*s),
            TypeExprKind::Error => None,
            _ => {
                self.error(t.span, "the element type must be a scalar type");
                None
            }
        }
    }

    /// A type that must be a scalar.
    fn scalar_type(&mut self, t: &TypeExpr, what: &str) -> Option<ScalarTy> {
        match &t.kind {
            TypeExprKind::Scalar(s) => Some(*s),
            TypeExprKind::Error => None,
            _ => {
                self.error(t.span, format!("{what} must be a scalar type"));
                None
            }
        }
    }

    /// Reports each cycle of helper calls once, at the call that closes it.
    fn check_recursion(&mut self) {
        let n = self.file.items.len();
        let mut edges: Vec<Vec<(usize, Span)>> = vec![Vec::new(); n];
        for &(from, to, span) in &self.out.calls {
            edges[from].push((to, span));
        }
        // 0 = unvisited, 1 = on the stack, 2 = done. Iterative depth-first search.
        let mut state = vec![0u8; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            state[root] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&(to, span)) = edges[node].get(*next) {
                    *next += 1;
                    match state[to] {
                        0 => {
                            state[to] = 1;
                            stack.push((to, 0));
                        }
                        1 => {
                            let name = &self.file.items[to].name.name;
                            self.error_help(
                                span,
                                format!(
                                    "recursive call of `{name}`: helper functions are inlined, so they cannot recurse"
                                ),
                                "rewrite the recursion as a loop",
                            );
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Statements

    fn block(&mut self, block: &'a Block, ret: Option<ScalarTy>) {
        self.scopes.push(HashMap::default());
        for s in &block.stmts {
            self.stmt(s, ret);
        }
        self.scopes.pop();
    }

    fn in_loop(&mut self, body: &'a Block, ret: Option<ScalarTy>) {
        self.loop_depth += 1;
        self.block(body, ret);
        self.loop_depth -= 1;
    }

    fn condition(&mut self, cond: &Expr) {
        self.expect_ty(cond, ScalarTy::Bool, None);
    }

    fn stmt(&mut self, s: &'a Stmt, ret: Option<ScalarTy>) {
        match &s.kind {
            StmtKind::Let { id, mutable, name, ty, init } => {
                self.let_stmt(s, *id, *mutable, name, ty.as_ref(), init.as_ref())
            }
            StmtKind::Shared { id, name, ty } => {
                let item = &self.file.items[self.current];
                if !item.is_kernel {
                    self.error_help(
                        s.span,
                        "shared arrays can only be declared in kernels",
                        "declare it in the kernel and pass values to the function",
                    );
                    return;
                }
                let Some(array) = self.array_type(ty, ArrayKind::Shared) else { return };
                if let Ty::Array { elem, len, .. } = array {
                    let bytes = len as u64 * elem.bytes().unwrap_or(4) as u64;
                    self.shared_bytes += bytes;
                    if self.shared_bytes > MAX_SHARED_BYTES && self.shared_bytes - bytes <= MAX_SHARED_BYTES {
                        self.error(
                            s.span,
                            format!(
                                "the shared arrays of kernel `{}` need {} bytes, more than the {MAX_SHARED_BYTES} available",
                                item.name.name, self.shared_bytes
                            ),
                        );
                    }
                }
                self.declare(*id, name, array, LocalKind::Shared);
            }
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value),
            StmtKind::Expr { expr, semi } => {
                let ty = self.expr(expr, None);
                if !semi && !matches!(ty, Ty::Unit | Ty::Error) {
                    self.error_help(
                        expr.span,
                        format!("unused value of type `{ty}`"),
                        "end the statement with `;`, or use the value",
                    );
                }
            }
            StmtKind::If { cond, then, els } => {
                self.condition(cond);
                self.block(then, ret);
                if let Some(els) = els {
                    self.block(els, ret);
                }
            }
            StmtKind::While { cond, body } => {
                self.condition(cond);
                self.in_loop(body, ret);
            }
            StmtKind::For { id, var, start, end, body } => {
                let ty = self.same_type(&[start, end], None, "the bounds of a range");
                let ty = match ty {
                    Some(t) if t.is_int() => Ty::Scalar(t),
                    Some(t) => {
                        self.error_help(
                            start.span.to(end.span),
                            format!("a `for` range needs integer bounds, found `{t}`"),
                            "loop over integers and convert inside the loop",
                        );
                        Ty::Error
                    }
                    None => Ty::Error,
                };
                self.scopes.push(HashMap::default());
                self.declare(*id, var, ty, LocalKind::ForVar);
                self.in_loop(body, ret);
                self.scopes.pop();
            }
            StmtKind::Loop { body } => self.in_loop(body, ret),
            StmtKind::Break | StmtKind::Continue => {
                if self.loop_depth == 0 {
                    let word = if matches!(s.kind, StmtKind::Break) { "break" } else { "continue" };
                    self.error_help(
                        s.span,
                        format!("`{word}` outside of a loop"),
                        "`break` and `continue` belong inside `while`, `for` or `loop`; use `return` to end the work-item",
                    );
                }
            }
            StmtKind::Return(value) => self.return_stmt(s, ret, value.as_ref()),
            StmtKind::Block(b) => self.block(b, ret),
            StmtKind::Error => {}
        }
    }

    fn return_stmt(&mut self, s: &Stmt, ret: Option<ScalarTy>, value: Option<&Expr>) {
        let item = &self.file.items[self.current];
        match (ret, value) {
            (Some(t), Some(v)) => self.expect_ty(v, t, None),
            (None, None) => {}
            (Some(t), None) => self.error_help(
                s.span,
                format!("this function returns a `{t}`"),
                format!("write `return VALUE;` with a `{t}`"),
            ),
            (None, Some(v)) => {
                self.expr(v, None);
                if item.is_kernel {
                    self.error_help(
                        v.span,
                        "kernels return nothing",
                        "write the result to a `&mut` buffer, then `return;`",
                    );
                } else if item.ret.is_none() {
                    self.error_help(
                        v.span,
                        format!("function `{}` has no return type", item.name.name),
                        "declare one, as in `fn f(...) -> f32`, or remove the value",
                    );
                }
            }
        }
    }

    fn let_stmt(
        &mut self,
        s: &Stmt,
        id: NodeId,
        mutable: bool,
        name: &'a Ident,
        ty: Option<&TypeExpr>,
        init: Option<&Expr>,
    ) {
        let keyword = if mutable { "var" } else { "let" };
        if let Some(t @ TypeExpr { kind: TypeExprKind::Array { .. }, .. }) = ty {
            if !mutable {
                self.error_help(
                    t.span,
                    "a private array must be declared with `var`",
                    format!("write `var {}: ...;`", name.name),
                );
            }
            if let Some(init) = init {
                self.expr(init, None);
                self.error_help(
                    init.span,
                    "an array cannot be initialized in its declaration",
                    "declare it without a value and assign the elements",
                );
            }
            let array = self.array_type(t, ArrayKind::Private).unwrap_or(Ty::Error);
            self.declare(id, name, array, LocalKind::Var);
            return;
        }
        let declared = match ty {
            Some(t @ TypeExpr { kind: TypeExprKind::Buffer { .. }, .. }) => {
                self.error_help(
                    t.span,
                    "a variable cannot be a buffer",
                    "buffers are kernel or function parameters; index them instead",
                );
                Some(Ty::Error)
            }
            Some(TypeExpr { kind: TypeExprKind::Scalar(t), .. }) => Some(Ty::Scalar(*t)),
            Some(_) => Some(Ty::Error),
            None => None,
        };
        let ty = match (declared, init) {
            (Some(Ty::Scalar(t)), Some(init)) => {
                self.expect_ty(init, t, None);
                Ty::Scalar(t)
            }
            (Some(declared), Some(init)) => {
                self.expr(init, None);
                declared
            }
            (None, Some(init)) => match self.expr(init, None) {
                t @ (Ty::Scalar(_) | Ty::Error) => t,
                Ty::Unit => {
                    self.error(init.span, format!("`{}` has no value to store in `{}`", self.snippet(init), name.name));
                    Ty::Error
                }
                _ => Ty::Error,
            },
            (declared, None) => {
                let example = match declared {
                    Some(Ty::Scalar(t)) => format!("{keyword} {}: {t} = 0;", name.name),
                    _ => format!("{keyword} {} = 0;", name.name),
                };
                self.error_help(
                    s.span,
                    format!("`{keyword} {}` needs an initial value", name.name),
                    format!("write `{example}`"),
                );
                declared.unwrap_or(Ty::Error)
            }
        };
        self.declare(id, name, ty, if mutable { LocalKind::Var } else { LocalKind::Let });
    }

    /// `[T; N]` with a constant `N`.
    fn array_type(&mut self, t: &TypeExpr, kind: ArrayKind) -> Option<Ty> {
        let TypeExprKind::Array { elem, len } = &t.kind else {
            if !matches!(t.kind, TypeExprKind::Error) {
                let help = match kind {
                    ArrayKind::Shared => "write `shared name: [T; N];`",
                    ArrayKind::Private => "write `var name: [T; N];`",
                };
                self.error_help(t.span, "expected an array type `[T; N]`", help);
            }
            return None;
        };
        let elem = self.elem_type(elem);
        let what = match kind {
            ArrayKind::Shared => "the size of a shared array",
            ArrayKind::Private => "the size of an array",
        };
        let n = self.const_int(len, what)?;
        let elem = elem?;
        if n == 0 {
            self.error(len.span, "an array needs at least one element");
            return None;
        }
        let bytes = n.saturating_mul(elem.bytes().unwrap_or(4) as u64);
        if bytes > MAX_ARRAY_BYTES {
            self.error(
                len.span,
                format!("an array of {n} `{elem}` takes {bytes} bytes, more than the {MAX_ARRAY_BYTES} allowed"),
            );
            return None;
        }
        Some(Ty::Array { elem, len: n as u32, kind })
    }

    /// A constant integer expression (literals and arithmetic on them).
    fn const_int(&mut self, e: &Expr, what: &str) -> Option<u64> {
        let value = match &e.kind {
            ExprKind::Int(text, suffix) if suffix.is_none_or(|t| t.is_int()) => match parse_int(text) {
                Some(v) if v <= u64::MAX as u128 => v as u64,
                _ => {
                    self.error(e.span, format!("{what} is too large"));
                    return None;
                }
            },
            ExprKind::Paren(x) => return self.const_int(x, what),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.const_int(a, what), self.const_int(b, what));
                let (a, b) = (a?, b?);
                let v = match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => a.checked_div(b),
                    BinOp::Rem => a.checked_rem(b),
                    BinOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                    BinOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                    BinOp::And => Some(a & b),
                    BinOp::Or => Some(a | b),
                    BinOp::Xor => Some(a ^ b),
                    _ => {
                        self.error(e.span, format!("{what} must be a constant integer"));
                        return None;
                    }
                };
                match v {
                    Some(v) => v,
                    None => {
                        self.error(e.span, format!("{what} overflows or divides by zero"));
                        return None;
                    }
                }
            }
            ExprKind::Name(n) => {
                self.error_help(
                    e.span,
                    format!("{what} must be a constant, and `{}` is not", n.name),
                    "write the size as a number, such as `256`",
                );
                return None;
            }
            _ => {
                self.error_help(e.span, format!("{what} must be a constant integer"), "write a number, such as `256`");
                return None;
            }
        };
        Some(value)
    }

    fn assign(&mut self, target: &'a Expr, op: Option<BinOp>, value: &Expr) {
        let ty = match &target.kind {
            ExprKind::Name(ident) => {
                let t = self.expr(target, None);
                if let Some(Res::Local(decl)) = self.out.res.get(&target.id).copied() {
                    let kind = self.out.locals[&decl].kind;
                    let why = match kind {
                        LocalKind::Let => Some((
                            format!("cannot assign to `{}`: it is declared with `let`", ident.name),
                            format!("declare it with `var {}` to make it mutable", ident.name),
                        )),
                        LocalKind::Param => Some((
                            format!("cannot assign to parameter `{}`", ident.name),
                            format!("parameters are immutable; copy it first: `var {0}_ = {0};`", ident.name),
                        )),
                        LocalKind::ForVar => Some((
                            format!("cannot assign to the loop variable `{}`", ident.name),
                            "use `while` for a loop whose variable changes in the body".to_string(),
                        )),
                        _ => None,
                    };
                    if let Some((message, help)) = why {
                        self.error_help(target.span, message, help);
                        Ty::Error
                    } else {
                        t
                    }
                } else if matches!(self.out.res.get(&target.id), Some(Res::LaneId | Res::WaveSize)) {
                    self.error(target.span, format!("cannot assign to the built-in value `{}`", ident.name));
                    Ty::Error
                } else {
                    t
                }
            }
            ExprKind::Index(base, index) => {
                let elem = self.index(target, base, index);
                self.out.expr_ty[target.id.0 as usize] = elem.map_or(Ty::Error, Ty::Scalar);
                if let (Some(_), Ty::Buffer { mutable: false, elem }) = (elem, self.out.ty(base)) {
                    self.error_help(
                        target.span,
                        format!(
                            "cannot write to `{}`: `{}` is a read-only buffer `&[{elem}]`",
                            self.snippet(target),
                            self.snippet(base)
                        ),
                        format!("declare the parameter `&mut [{elem}]`"),
                    );
                    Ty::Error
                } else {
                    elem.map_or(Ty::Error, Ty::Scalar)
                }
            }
            ExprKind::Field(..) => {
                self.expr(target, None);
                self.error(target.span, "cannot assign to a built-in value");
                Ty::Error
            }
            _ => {
                self.expr(target, None);
                self.error_help(
                    target.span,
                    "cannot assign to this expression",
                    "assign to a `var` variable or to an element, `buf[i]`",
                );
                Ty::Error
            }
        };
        match (ty, op) {
            (Ty::Scalar(t), Some(op)) if op.is_shift() => {
                self.op_kind(op, t, target.span);
                self.shift_amount(value, t);
            }
            (Ty::Scalar(t), op) => {
                if let Some(op) = op {
                    self.op_kind(op, t, target.span);
                }
                self.expect_ty(value, t, None);
            }
            _ => {
                self.expr(value, None);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Expressions

    /// Checks that `e` has type `want` (literals take it).
    fn expect_ty(&mut self, e: &Expr, want: ScalarTy, context: Option<&str>) {
        let found = self.expr(e, Some(want));
        if found != Ty::Scalar(want) && found != Ty::Error {
            self.mismatch(e, want, found, context);
        }
    }

    /// The scalar type of `e` (checked against `expected`), or `None` after an error.
    fn scalar(&mut self, e: &Expr, expected: Option<ScalarTy>) -> Option<ScalarTy> {
        match self.expr(e, expected) {
            Ty::Scalar(t) => Some(t),
            Ty::Unit => {
                self.error(e.span, format!("`{}` has no value", self.snippet(e)));
                None
            }
            _ => None,
        }
    }

    /// Checks expressions that must have one type, the first one whose type does not come
    /// from its context deciding it (`context` names them in messages).
    fn same_type(&mut self, args: &[&Expr], expected: Option<ScalarTy>, context: &str) -> Option<ScalarTy> {
        let first = args.iter().position(|a| !is_flexible(a)).unwrap_or(0);
        let ty = self.scalar(args[first], expected);
        for (i, arg) in args.iter().enumerate() {
            if i == first {
                continue;
            }
            match ty {
                Some(t) => self.expect_ty(arg, t, Some(context)),
                None => {
                    self.expr(arg, None);
                }
            }
        }
        ty
    }

    /// Records the type of `e` and returns it.
    fn expr(&mut self, e: &Expr, expected: Option<ScalarTy>) -> Ty {
        let ty = self.expr_inner(e, expected);
        if let Some(slot) = self.out.expr_ty.get_mut(e.id.0 as usize) {
            *slot = ty;
        }
        ty
    }

    fn expr_inner(&mut self, e: &Expr, expected: Option<ScalarTy>) -> Ty {
        match &e.kind {
            ExprKind::Int(..) => self.int_literal(e, expected, None),
            ExprKind::Float(text, suffix) => self.float_literal(e, text, *suffix, expected),
            ExprKind::Bool(_) => Ty::Scalar(ScalarTy::Bool),
            ExprKind::Name(ident) => self.name(e, ident),
            ExprKind::Paren(x) => self.expr(x, expected),
            ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Int(..)) => {
                let ty = self.int_literal(x, expected, Some(e.span));
                if let Some(slot) = self.out.expr_ty.get_mut(x.id.0 as usize) {
                    *slot = ty;
                }
                ty
            }
            ExprKind::Unary(op, x) => {
                let Some(t) = self.scalar(x, expected) else { return Ty::Error };
                let ok = match op {
                    UnOp::Neg => t.is_signed() || t.is_float(),
                    UnOp::Not => t.is_int() || t == ScalarTy::Bool,
                };
                if ok {
                    return Ty::Scalar(t);
                }
                let (message, help) = match (op, t) {
                    (UnOp::Neg, ScalarTy::Bool) => {
                        ("cannot negate a `bool`".to_string(), "use `!` for logical not".to_string())
                    }
                    (UnOp::Neg, t) => (
                        format!("cannot negate a value of the unsigned type `{t}`"),
                        format!("subtract it from zero to wrap around: `0 - {}`", self.snippet(x)),
                    ),
                    (UnOp::Not, t) => {
                        (format!("`!` cannot be applied to `{t}`"), "`!` takes a `bool` or an integer".to_string())
                    }
                };
                self.error_help(e.span, message, help);
                Ty::Error
            }
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b, expected),
            ExprKind::Cast(x, t) => self.cast(e, x, t),
            ExprKind::Index(base, index) => self.index(e, base, index).map_or(Ty::Error, Ty::Scalar),
            ExprKind::Field(base, field) => self.field(e, base, field),
            ExprKind::Call(name, args) => self.call(e, name, args, expected),
            ExprKind::AddrOf(x) => {
                self.expr(x, None);
                self.error_help(
                    e.span,
                    "`&` is only allowed on the first argument of an atomic function",
                    "as in `atomic_add(&buf[i], 1u)`",
                );
                Ty::Error
            }
            ExprKind::Error => Ty::Error,
        }
    }

    /// An integer literal; `negated` is the span of `-literal` when the literal is negated
    /// (its range is then checked for the negative value).
    fn int_literal(&mut self, e: &Expr, expected: Option<ScalarTy>, negated: Option<Span>) -> Ty {
        let ExprKind::Int(text, suffix) = &e.kind else { return Ty::Error };
        let span = negated.unwrap_or(e.span);
        let negated = negated.is_some();
        let shown = if negated { format!("-{text}") } else { text.clone() };
        let ty = match (suffix, expected) {
            (Some(t), _) => *t,
            (None, Some(t)) if t.is_int() => t,
            (None, Some(t)) if t.is_float() => {
                let fix = if text.starts_with("0x") || text.starts_with("0b") || text.starts_with("0o") {
                    format!("convert with `as`: `{shown} as {t}`")
                } else {
                    format!("write a float literal: `{shown}.0`")
                };
                self.error_help(
                    span,
                    format!("mismatched types: expected `{t}`, found integer literal `{shown}`"),
                    fix,
                );
                return Ty::Error;
            }
            (None, _) => ScalarTy::I32,
        };
        let value = parse_int(text);
        let (min, max) = ty.int_range();
        let in_range = value.is_some_and(|v| {
            let v = v as i128;
            if negated {
                -v >= min
            } else {
                v <= max
            }
        });
        if !in_range {
            let help = if negated && !ty.is_signed() {
                "an unsigned type has no negative values".to_string()
            } else if suffix.is_none() {
                format!("its type is `{ty}`; give it a wider type with a suffix, as in `{text}u64` or `{text}i64`")
            } else {
                format!("`{ty}` holds {min} to {max}")
            };
            self.error_help(span, format!("integer literal `{shown}` is out of range for `{ty}`"), help);
            return Ty::Error;
        }
        let bits = value.unwrap_or(0) as u64 & ty.ir().mask();
        self.out.consts.insert(e.id, bits);
        Ty::Scalar(ty)
    }

    fn float_literal(&mut self, e: &Expr, text: &str, suffix: Option<ScalarTy>, expected: Option<ScalarTy>) -> Ty {
        let ty = match (suffix, expected) {
            (Some(t), _) => t,
            (None, Some(t)) if t.is_float() => t,
            (None, Some(t)) if t.is_int() => {
                self.error_help(
                    e.span,
                    format!("mismatched types: expected `{t}`, found float literal `{text}`"),
                    format!("convert with `as`: `{text} as {t}`"),
                );
                return Ty::Error;
            }
            (None, _) => ScalarTy::F32,
        };
        let bits = match ty {
            ScalarTy::F32 => text.parse::<f32>().ok().filter(|v| v.is_finite()).map(|v| v.to_bits() as u64),
            ScalarTy::F64 => text.parse::<f64>().ok().filter(|v| v.is_finite()).map(f64::to_bits),
            _ => text
                .parse::<f64>()
                .ok()
                .map(|v| frontend_ir::f16_bits_from_f64(v) as u64)
                .filter(|&b| b & 0x7c00 != 0x7c00),
        };
        match bits {
            Some(bits) => {
                self.out.consts.insert(e.id, bits);
                Ty::Scalar(ty)
            }
            None => {
                self.error(e.span, format!("float literal `{text}` is out of range for `{ty}`"));
                Ty::Error
            }
        }
    }

    fn name(&mut self, e: &Expr, ident: &Ident) -> Ty {
        let name = ident.name.as_str();
        if let Some(decl) = self.lookup(name) {
            self.out.res.insert(e.id, Res::Local(decl));
            let ty = self.out.locals[&decl].ty;
            return match ty {
                Ty::Buffer { .. } | Ty::Array { .. } => {
                    self.error_help(
                        e.span,
                        format!(
                            "`{name}` is {}, not a value",
                            if matches!(ty, Ty::Buffer { .. }) { "a buffer" } else { "an array" }
                        ),
                        format!("index it: `{name}[i]`"),
                    );
                    Ty::Error
                }
                t => t,
            };
        }
        match name {
            "lane_id" => {
                self.out.res.insert(e.id, Res::LaneId);
                return Ty::Scalar(ScalarTy::U32);
            }
            "wave_size" => {
                self.out.res.insert(e.id, Res::WaveSize);
                return Ty::Scalar(ScalarTy::U32);
            }
            _ => {}
        }
        if Geometry::from_name(name).is_some() {
            self.error_help(
                e.span,
                format!("`{name}` has three components"),
                format!("write `{name}.x`, `{name}.y` or `{name}.z`"),
            );
        } else if ordering_from_name(name).is_some() || scope_from_name(name).is_some() {
            let what = if ordering_from_name(name).is_some() { "a memory ordering" } else { "a scope" };
            self.error(
                e.span,
                format!("`{name}` is {what}; it is only allowed as an argument of an atomic function or `fence`"),
            );
        } else if self.fns.contains_key(name) || BuiltinFn::from_name(name).is_some() {
            self.error_help(e.span, format!("`{name}` is a function, not a value"), format!("call it: `{name}(...)`"));
        } else {
            let names = self.visible_names();
            let d = self.error(e.span, format!("unknown name `{name}`"));
            if let Some(s) = suggest(name, names.into_iter()) {
                d.help = Some(format!("did you mean `{s}`?"));
            }
        }
        Ty::Error
    }

    fn field(&mut self, e: &Expr, base: &Expr, field: &Ident) -> Ty {
        let geometry = match &base.kind {
            ExprKind::Name(n) if self.lookup(&n.name).is_none() => Geometry::from_name(&n.name),
            _ => None,
        };
        let Some(geometry) = geometry else {
            if self.expr(base, None) != Ty::Error {
                self.error_help(
                    field.span,
                    format!("`{}` has no field `{}`", self.snippet(base), field.name),
                    "only the geometry values have fields: `local_id.x`, `global_id.y`, ...",
                );
            }
            return Ty::Error;
        };
        let dim = match field.name.as_str() {
            "x" => Dim::X,
            "y" => Dim::Y,
            "z" => Dim::Z,
            other => {
                self.error_help(
                    field.span,
                    format!("no field `{other}` on `{}`", self.snippet(base)),
                    "use `.x`, `.y` or `.z`",
                );
                return Ty::Error;
            }
        };
        self.out.res.insert(e.id, Res::Geometry(geometry, dim));
        Ty::Scalar(ScalarTy::U32)
    }

    /// The element type of `base[index]`, checking the base and the index.
    fn index(&mut self, e: &Expr, base: &Expr, index: &Expr) -> Option<ScalarTy> {
        let container = self.container(base);
        let index_ty = self.scalar(index, None);
        if let Some(t) = index_ty {
            if !t.is_int() {
                self.error_help(
                    index.span,
                    format!("an index must be an integer, found `{t}`"),
                    format!(
                        "indices are `u32`, `i32`, `u64` or `i64`; convert with `as`: `{} as u32`",
                        self.snippet(index)
                    ),
                );
                return None;
            }
        }
        let container = container?;
        if let (Ty::Array { len, .. }, Some(&bits)) = (container, self.out.consts.get(&index.id)) {
            let negative = index_ty.is_some_and(|t| t.is_signed()) && (bits >> (index_ty?.bits() - 1)) & 1 == 1;
            if negative || bits >= len as u64 {
                self.error(
                    e.span,
                    format!("index {} is out of bounds for an array of {len} elements", self.snippet(index)),
                );
                return None;
            }
        }
        index_ty?;
        container.elem()
    }

    /// The buffer or array named by `base` (recording it), or `None` after an error.
    fn container(&mut self, base: &Expr) -> Option<Ty> {
        if let ExprKind::Name(ident) = &base.kind {
            if let Some(decl) = self.lookup(&ident.name) {
                self.out.res.insert(base.id, Res::Local(decl));
                let ty = self.out.locals[&decl].ty;
                self.out.expr_ty[base.id.0 as usize] = ty;
                return match ty {
                    Ty::Buffer { .. } | Ty::Array { .. } => Some(ty),
                    Ty::Error => None,
                    t => {
                        self.error(base.span, format!("cannot index `{}` of type `{t}`", ident.name));
                        None
                    }
                };
            }
        }
        match self.expr(base, None) {
            Ty::Error => None,
            t => {
                self.error_help(
                    base.span,
                    format!("cannot index a value of type `{t}`"),
                    "only buffers and arrays can be indexed",
                );
                None
            }
        }
    }

    fn op_kind(&mut self, op: BinOp, t: ScalarTy, span: Span) -> bool {
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                t.is_numeric()
            }
            BinOp::Rem | BinOp::Shl | BinOp::Shr => t.is_int(),
            BinOp::And | BinOp::Or | BinOp::Xor => t.is_int() || t == ScalarTy::Bool,
            BinOp::Eq | BinOp::Ne => true,
            BinOp::LogicAnd | BinOp::LogicOr => t == ScalarTy::Bool,
        };
        if !ok {
            let help = match op {
                BinOp::Rem if t.is_float() => "compute it as `x - trunc(x / y) * y`",
                BinOp::LogicAnd | BinOp::LogicOr => "`&&` and `||` take `bool` operands; compare integers first",
                _ if t == ScalarTy::Bool => "convert with `as u32` first",
                _ => "use integer operands",
            };
            self.error_help(span, format!("`{}` cannot be applied to `{t}`", op.text()), help);
        }
        ok
    }

    /// A shift amount: any integer type (the shift takes it modulo the width).
    fn shift_amount(&mut self, amount: &Expr, lhs: ScalarTy) {
        let expected = if is_flexible(amount) { Some(lhs) } else { None };
        if let Some(t) = self.scalar(amount, expected) {
            if !t.is_int() {
                self.error_help(
                    amount.span,
                    format!("a shift amount must be an integer, found `{t}`"),
                    "convert with `as u32`",
                );
            }
        }
    }

    fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, expected: Option<ScalarTy>) -> Ty {
        let op_span = self.op_span(e, a, b);
        match op {
            BinOp::LogicAnd | BinOp::LogicOr => {
                self.expect_ty(a, ScalarTy::Bool, None);
                self.expect_ty(b, ScalarTy::Bool, None);
                Ty::Scalar(ScalarTy::Bool)
            }
            BinOp::Shl | BinOp::Shr => {
                let lhs = self.scalar(a, expected);
                let Some(t) = lhs else {
                    self.expr(b, None);
                    return Ty::Error;
                };
                if !self.op_kind(op, t, op_span) {
                    self.expr(b, None);
                    return Ty::Error;
                }
                self.shift_amount(b, t);
                Ty::Scalar(t)
            }
            _ => {
                let context = format!("both operands of `{}`", op.text());
                let operand_expected = if op.is_comparison() { None } else { expected };
                let Some(t) = self.same_type(&[a, b], operand_expected, &context) else { return Ty::Error };
                if !self.op_kind(op, t, op_span) {
                    return Ty::Error;
                }
                Ty::Scalar(if op.is_comparison() { ScalarTy::Bool } else { t })
            }
        }
    }

    /// The span of a binary expression's operator (between its operands).
    fn op_span(&self, e: &Expr, a: &Expr, b: &Expr) -> Span {
        let gap = &self.src.get(a.span.end as usize..b.span.start as usize).unwrap_or("");
        let lead = gap.len() - gap.trim_start().len();
        let trimmed = gap.trim();
        if trimmed.is_empty() || trimmed.contains('(') {
            return e.span;
        }
        let start = a.span.end as usize + lead;
        Span::new(start, start + trimmed.len())
    }

    fn cast(&mut self, e: &Expr, x: &Expr, t: &TypeExpr) -> Ty {
        let target = self.scalar_type(t, "the target of `as`");
        let source = self.scalar(x, None);
        let (Some(to), Some(from)) = (target, source) else { return Ty::Error };
        match (from, to) {
            (f, t) if f == t => {}
            (f, t) if f.is_numeric() && t.is_numeric() => {}
            (ScalarTy::Bool, t) if t.is_int() => {}
            (ScalarTy::Bool, t) => {
                self.error_help(
                    e.span,
                    format!("cannot cast `bool` as `{t}`"),
                    format!("cast to an integer first: `{} as u32 as {t}`", self.snippet(x)),
                );
                return Ty::Error;
            }
            (f, _) => {
                self.error_help(
                    e.span,
                    format!("cannot cast `{f}` as `bool`"),
                    format!("compare instead: `{} != 0`", self.snippet(x)),
                );
                return Ty::Error;
            }
        }
        Ty::Scalar(to)
    }

    // ---------------------------------------------------------------------------------------
    // Calls

    fn arity(&mut self, e: &Expr, name: &str, args: &[Expr], expected: &str, ok: bool) -> bool {
        if !ok {
            for a in args {
                let sync_name = matches!(&a.kind, ExprKind::Name(n)
                    if ordering_from_name(&n.name).is_some() || scope_from_name(&n.name).is_some());
                if !sync_name && !matches!(a.kind, ExprKind::AddrOf(_)) {
                    self.expr(a, None);
                }
            }
            let given = args.len();
            self.error(e.span, format!("`{name}` takes {expected}, {given} given"));
        }
        ok
    }

    fn call(&mut self, e: &Expr, name: &Ident, args: &[Expr], expected: Option<ScalarTy>) -> Ty {
        if let Some(&index) = self.fns.get(name.name.as_str()) {
            self.out.callees.insert(e.id, Callee::Helper(index));
            return self.helper_call(e, index, args);
        }
        let Some(builtin) = BuiltinFn::from_name(&name.name) else {
            for a in args {
                self.expr(a, None);
            }
            let file = self.file;
            let mut candidates: Vec<&str> = file.items.iter().map(|i| i.name.name.as_str()).collect();
            for builtin in BuiltinFn::names() {
                candidates.push(builtin);
            }
            let d = self.error(name.span, format!("unknown function `{}`", name.name));
            if let Some(s) = suggest(&name.name, candidates.into_iter()) {
                d.help = Some(format!("did you mean `{s}`?"));
            }
            return Ty::Error;
        };
        self.out.callees.insert(e.id, Callee::Builtin(builtin));
        let fname = builtin.name();
        match builtin {
            BuiltinFn::Barrier => {
                self.arity(e, fname, args, "no arguments", args.is_empty());
                Ty::Unit
            }
            BuiltinFn::Fence => {
                if self.arity(e, fname, args, "2 arguments (ORDER, SCOPE)", args.len() == 2) {
                    if let Some(sync) = self.sync(fname, &args[0], Some(&args[1])) {
                        if sync.ordering == Ordering::Relaxed {
                            self.error_help(
                                args[0].span,
                                "a `fence` cannot be `relaxed`",
                                "use `acquire`, `release`, `acq_rel` or `seq_cst`",
                            );
                        }
                        self.out.syncs.insert(e.id, sync);
                    }
                }
                Ty::Unit
            }
            BuiltinFn::Atomic(op) => self.atomic(e, op, args),
            BuiltinFn::Math(m) => self.math(e, m, args, expected),
            BuiltinFn::Wave(w) => self.wave(e, w, args, expected),
        }
    }

    fn helper_call(&mut self, e: &Expr, index: usize, args: &[Expr]) -> Ty {
        let file = self.file;
        let callee = &file.items[index];
        let name = &callee.name.name;
        if callee.is_kernel {
            for a in args {
                self.expr(a, None);
            }
            self.error_help(
                e.span,
                format!("`{name}` is a kernel, and kernels cannot be called"),
                "move the shared code into a `fn` that both use",
            );
            return Ty::Error;
        }
        let n = callee.params.len();
        let expected = format!("{n} argument{}", crate::diagnostics::plural(n));
        if !self.arity(e, name, args, &expected, args.len() == n) {
            return Ty::Error;
        }
        self.out.calls.push((self.current, index, e.span));
        for (arg, p) in args.iter().zip(&callee.params) {
            match &p.ty.kind {
                TypeExprKind::Scalar(t) => self.expect_ty(arg, *t, None),
                TypeExprKind::Buffer { mutable, elem } => {
                    let Some(given) = self.container(arg) else { continue };
                    if let TypeExprKind::Scalar(elem) = elem.kind {
                        self.buffer_arg(arg, given, Ty::Buffer { elem, mutable: *mutable }, *mutable, name);
                    }
                }
                _ => {
                    self.expr(arg, None);
                }
            }
        }
        match &callee.ret {
            Some(TypeExpr { kind: TypeExprKind::Scalar(t), .. }) => Ty::Scalar(*t),
            Some(_) => Ty::Error,
            None => Ty::Unit,
        }
    }

    fn buffer_arg(&mut self, arg: &Expr, given: Ty, want: Ty, mutable: bool, callee: &str) {
        match (given, want) {
            (Ty::Buffer { elem: g, mutable: gm }, Ty::Buffer { elem: w, .. }) => {
                if g != w {
                    self.error(
                        arg.span,
                        format!(
                            "mismatched types: `{callee}` expects `{want}`, and `{}` is `{given}`",
                            self.snippet(arg)
                        ),
                    );
                } else if mutable && !gm {
                    self.error_help(
                        arg.span,
                        format!("`{callee}` writes its buffer, and `{}` is read-only `{given}`", self.snippet(arg)),
                        format!("declare the parameter `&mut [{g}]`"),
                    );
                }
            }
            (Ty::Array { .. }, _) => self.error_help(
                arg.span,
                format!("only buffers can be passed to functions, and `{}` is an array", self.snippet(arg)),
                "pass the elements the function needs as values",
            ),
            _ => {}
        }
    }

    /// An ORDER and optional SCOPE argument pair.
    fn sync(&mut self, fname: &str, order: &Expr, scope: Option<&Expr>) -> Option<SyncInfo> {
        let name_of = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => Some(n.name.clone()),
            _ => None,
        };
        let ordering = name_of(order).and_then(|n| ordering_from_name(&n));
        if ordering.is_none() {
            self.error_help(
                order.span,
                format!("expected a memory ordering as this argument of `{fname}`"),
                format!("write {ORDERINGS}"),
            );
        }
        let scope_value = match scope {
            Some(s) => {
                let v = name_of(s).and_then(|n| scope_from_name(&n));
                if v.is_none() {
                    self.error_help(
                        s.span,
                        format!("expected a scope as this argument of `{fname}`"),
                        format!("write {SCOPES}"),
                    );
                }
                v
            }
            None => Some(Scope::Agent),
        };
        Some(SyncInfo { ordering: ordering?, scope: scope_value?, av_none: false })
    }

    fn atomic(&mut self, e: &Expr, op: AtomicOp, args: &[Expr]) -> Ty {
        let fname = BuiltinFn::Atomic(op).name();
        let values = op.value_args();
        let form = match op {
            AtomicOp::Cas => "&place, expected, new",
            AtomicOp::Load => "&place",
            AtomicOp::Store => "&place, value",
            _ => "&place, value",
        };
        let (lo, hi) = (1 + values, 3 + values);
        let expected = format!("{lo} to {hi} arguments (`{form}` and an optional ORDER, SCOPE)");
        if !self.arity(e, fname, args, &expected, (lo..=hi).contains(&args.len())) {
            return Ty::Error;
        }
        let elem = self.atomic_place(fname, op, &args[0]);
        let elem_ok = elem.and_then(|t| {
            let ok = match op {
                AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Cas => t.is_int(),
                _ => t.is_int() || matches!(t, ScalarTy::F32 | ScalarTy::F64),
            };
            if !ok {
                let need = if t.is_float()
                    && op != AtomicOp::Cas
                    && !matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor)
                {
                    "a 32- or 64-bit element type (not `f16`)"
                } else {
                    "an integer element type"
                };
                self.error(args[0].span, format!("`{fname}` needs {need}, and the element type is `{t}`"));
                return None;
            }
            Some(t)
        });
        for v in &args[1..1 + values] {
            match elem_ok {
                Some(t) => self.expect_ty(v, t, None),
                None => {
                    self.expr(v, None);
                }
            }
        }
        let rest = &args[1 + values..];
        if let Some(order) = rest.first() {
            if let Some(sync) = self.sync(fname, order, rest.get(1)) {
                let bad = match op {
                    AtomicOp::Load => matches!(sync.ordering, Ordering::Release | Ordering::AcqRel),
                    AtomicOp::Store => matches!(sync.ordering, Ordering::Acquire | Ordering::AcqRel),
                    _ => false,
                };
                if bad {
                    let allowed = if op == AtomicOp::Load {
                        "`relaxed`, `acquire` or `seq_cst`"
                    } else {
                        "`relaxed`, `release` or `seq_cst`"
                    };
                    self.error_help(
                        order.span,
                        format!("`{fname}` cannot have `{}` ordering", sync.ordering),
                        format!("use {allowed}"),
                    );
                }
                self.out.syncs.insert(e.id, sync);
            }
        } else {
            self.out.syncs.insert(e.id, SyncInfo { ordering: Ordering::Relaxed, scope: Scope::Agent, av_none: false });
        }
        match (op, elem_ok) {
            (AtomicOp::Store, _) => Ty::Unit,
            (_, Some(t)) => Ty::Scalar(t),
            (_, None) => Ty::Error,
        }
    }

    /// The `&base[index]` of an atomic: a writable buffer or a shared array.
    fn atomic_place(&mut self, fname: &str, op: AtomicOp, arg: &Expr) -> Option<ScalarTy> {
        let place = match &arg.kind {
            ExprKind::AddrOf(inner) => match &inner.kind {
                ExprKind::Index(base, index) => Some((inner, base, index)),
                _ => None,
            },
            _ => None,
        };
        let Some((inner, base, index)) = place else {
            self.expr(arg, None);
            self.error_help(
                arg.span,
                format!("the first argument of `{fname}` must be the address of an element"),
                "write `&buf[i]` or `&tile[i]`",
            );
            return None;
        };
        let elem = self.index(inner, base, index);
        if let Some(slot) = self.out.expr_ty.get_mut(inner.id.0 as usize) {
            *slot = elem.map_or(Ty::Error, Ty::Scalar);
        }
        match self.out.ty(base) {
            Ty::Buffer { mutable: false, elem } if op != AtomicOp::Load => {
                self.error_help(
                    arg.span,
                    format!(
                        "`{fname}` writes `{}`, and `{}` is a read-only buffer `&[{elem}]`",
                        self.snippet(inner),
                        self.snippet(base)
                    ),
                    format!("declare the parameter `&mut [{elem}]`"),
                );
                None
            }
            Ty::Array { kind: ArrayKind::Private, .. } => {
                self.error_help(
                    arg.span,
                    format!(
                        "atomics work on buffers and shared arrays, and `{}` is a private array",
                        self.snippet(base)
                    ),
                    "a private array is only seen by its own work-item; use plain reads and writes",
                );
                None
            }
            _ => elem,
        }
    }

    fn math(&mut self, e: &Expr, m: MathFn, args: &[Expr], expected: Option<ScalarTy>) -> Ty {
        let fname = BuiltinFn::Math(m).name();
        let n = m.arity();
        let text = format!("{n} argument{}", crate::diagnostics::plural(n));
        if !self.arity(e, fname, args, &text, args.len() == n) {
            return Ty::Error;
        }
        let counts = matches!(m, MathFn::Popcount | MathFn::Clz | MathFn::Ctz);
        let refs: Vec<&Expr> = args.iter().collect();
        let context = format!("the arguments of `{fname}`");
        let Some(t) = self.same_type(&refs, if counts { None } else { expected }, &context) else { return Ty::Error };
        let (ok, need) = match m.kind() {
            MathKind::Float => (t.is_float(), "a float"),
            MathKind::Int => (t.is_int(), "an integer"),
            MathKind::Numeric => (t.is_numeric(), "a number"),
        };
        if !ok {
            let help = (m.kind() == MathKind::Float && t.is_int())
                .then(|| format!("convert with `as`: `{fname}({} as f32)`", self.snippet(&args[0])));
            self.error(e.span, format!("`{fname}` needs {need} argument, found `{t}`")).help = help;
            return Ty::Error;
        }
        Ty::Scalar(if counts { ScalarTy::U32 } else { t })
    }

    fn wave(&mut self, e: &Expr, w: WaveFn, args: &[Expr], expected: Option<ScalarTy>) -> Ty {
        let fname = BuiltinFn::Wave(w).name();
        let n = if w == WaveFn::Shuffle { 2 } else { 1 };
        let text = format!("{n} argument{}", crate::diagnostics::plural(n));
        if !self.arity(e, fname, args, &text, args.len() == n) {
            return Ty::Error;
        }
        match w {
            WaveFn::Ballot | WaveFn::Any | WaveFn::All => {
                self.expect_ty(&args[0], ScalarTy::Bool, None);
                Ty::Scalar(if w == WaveFn::Ballot { ScalarTy::U64 } else { ScalarTy::Bool })
            }
            WaveFn::ReadFirstLane | WaveFn::Shuffle => {
                let t = self.scalar(&args[0], expected);
                if w == WaveFn::Shuffle {
                    if let Some(lane) =
                        self.scalar(&args[1], if is_flexible(&args[1]) { Some(ScalarTy::U32) } else { None })
                    {
                        if !lane.is_int() {
                            self.error_help(
                                args[1].span,
                                format!("a lane number must be an integer, found `{lane}`"),
                                "convert with `as u32`",
                            );
                        }
                    }
                }
                t.map_or(Ty::Error, Ty::Scalar)
            }
            WaveFn::Sum | WaveFn::Min | WaveFn::Max => {
                let Some(t) = self.scalar(&args[0], expected) else { return Ty::Error };
                if !t.is_numeric() {
                    self.error(e.span, format!("`{fname}` needs a number, found `{t}`"));
                    return Ty::Error;
                }
                Ty::Scalar(t)
            }
        }
    }
}

/// The value of an integer literal's digits (`0x`, `0b` and `0o` prefixes allowed); `None`
/// past `u128`.
pub fn parse_int(text: &str) -> Option<u128> {
    let (digits, radix) = match text.get(..2) {
        Some("0x") => (&text[2..], 16),
        Some("0b") => (&text[2..], 2),
        Some("0o") => (&text[2..], 8),
        _ => (text, 10),
    };
    u128::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_find_typos_only() {
        assert_eq!(suggest("globl_id", VALUE_NAMES.into_iter()), Some("global_id"));
        assert_eq!(suggest("zzz", VALUE_NAMES.into_iter()), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn integers_parse_in_every_base() {
        assert_eq!(parse_int("0xff"), Some(255));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("18446744073709551616"), Some(1 << 64));
    }
}
