//! The fuzzer's own syntax tree of a `.gk` kernel, which the generator builds, the printer
//! writes as source and the reducer shrinks. Whatever makes a program well-defined is part of
//! the tree's shape rather than of its expressions, so that no reduction can lose it: every
//! index is masked to its array's length when printed, every loop carries its counter and
//! bound, outputs are written to the work-item's own slots, shared memory is written and read
//! only in [`Stmt::SharedRound`] and [`Stmt::SharedAtomics`], which hold their barriers, and
//! a private array is filled where it is declared.

/// A scalar type of the kernel language: the front end's own.
pub use lang::ScalarTy as Ty;

/// The numeric types (all but `bool`).
pub const NUMERIC: [Ty; 7] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::F16, Ty::F32, Ty::F64];
/// The integer types.
pub const INTS: [Ty; 4] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64];

/// The launch syntax's type of `ty` (None for `bool`, which no parameter has).
pub fn scalar_type(ty: Ty) -> Option<gcnc::launch::ScalarType> {
    ty.name().parse().ok()
}

/// An expression with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// Its type.
    pub ty: Ty,
    /// What it is.
    pub kind: ExprKind,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant, as the bits of its type (`bool`: 0 or 1).
    Lit(u64),
    /// A variable or scalar parameter.
    Var(String),
    /// A built-in `u32` value: `global_id.x`, `lane_id`, `wave_size`, ...
    Special(&'static str),
    /// `op x` (`-` or `!`).
    Unary(&'static str, Box<Expr>),
    /// `a op b`: arithmetic, bitwise, shifts (any integer amount), comparisons, `&&`, `||`.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `x as T`, `T` the expression's type.
    Cast(Box<Expr>),
    /// `base[(index) & (len - 1)]`: an element of a buffer or a private array whose length
    /// `len` is a power of two.
    Index {
        /// The buffer or array.
        base: String,
        /// Its length.
        len: u32,
        /// The index (any integer type).
        index: Box<Expr>,
    },
    /// An element of a shared array written before the last barrier by a work-item that
    /// exists (see [`SharedSlot`]).
    Shared {
        /// The shared array.
        base: String,
        /// Which element.
        slot: SharedSlot,
    },
    /// `buf[ob + slot]`: an output slot of the work-item's own, read back (what it holds
    /// before the work-item writes it is the buffer's initial content).
    Own {
        /// The output buffer.
        buf: String,
        /// Which of the work-item's slots.
        slot: u32,
    },
    /// A call of a built-in function or a helper.
    Call(String, Vec<Expr>),
}

/// An element of a workgroup's shared array that a work-item of the group wrote: each
/// work-item writes the element of its flattened local id, and a partial group lacks only
/// work-items of high coordinates, so an element whose x coordinate is at most the reader's
/// always exists.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SharedSlot {
    /// The reader's own element.
    Own,
    /// Element 0 (work-item 0 exists in every group).
    Zero,
    /// The reader's row, at x coordinate `local_id.x & mask`.
    Masked(u32),
    /// The reader's row, at x coordinate `local_id.x >> 1`.
    Half,
}

/// An order-independent atomic read-modify-write operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add`
    Add,
    /// `atomic_sub`
    Sub,
    /// `atomic_and`
    And,
    /// `atomic_or`
    Or,
    /// `atomic_xor`
    Xor,
    /// `atomic_min`
    Min,
    /// `atomic_max`
    Max,
}

impl AtomicOp {
    /// Every operation, in region order of the atomics buffer.
    pub const ALL: [AtomicOp; 7] =
        [AtomicOp::Add, AtomicOp::Sub, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Min, AtomicOp::Max];

    /// The built-in's name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
        }
    }
}

/// One atomic operation of [`Stmt::SharedAtomics`], done by the work-items where `cond` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedAtomic {
    /// Which work-items.
    pub cond: Expr,
    /// The element (masked to the array).
    pub index: Expr,
    /// The operand.
    pub value: Expr,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let name: ty = init;` or `var ...`.
    Let {
        /// The name.
        name: String,
        /// The type.
        ty: Ty,
        /// `var` rather than `let`.
        mutable: bool,
        /// The value.
        init: Expr,
    },
    /// `name op value;` with `op` one of `=`, `+=`, `<<=`, ...
    Assign {
        /// A `var`.
        name: String,
        /// The operator.
        op: &'static str,
        /// The value (any integer type for a shift).
        value: Expr,
    },
    /// `var name: [elem; len];` and a loop that fills it with `init`.
    Array {
        /// The name.
        name: String,
        /// Element type.
        elem: Ty,
        /// Length, a power of two.
        len: u32,
        /// Every element's first value.
        init: Expr,
    },
    /// `name[(index) & (len - 1)] = value;`
    ArrayStore {
        /// The private array.
        name: String,
        /// Its length.
        len: u32,
        /// The index.
        index: Expr,
        /// The value.
        value: Expr,
    },
    /// `buf[ob + slot] = value;`: the work-item's own output element.
    Out {
        /// The output buffer.
        buf: String,
        /// Which of the work-item's slots.
        slot: u32,
        /// The value, of the buffer's element type.
        value: Expr,
    },
    /// `if cond { then } else { els }` (an `else` holding one `if` prints as `else if`).
    If {
        /// The condition.
        cond: Expr,
        /// Then.
        then: Vec<Stmt>,
        /// Else (empty: none).
        els: Vec<Stmt>,
    },
    /// `var counter: ty = 0; while counter < bound && cond { counter += 1; body }`.
    While {
        /// The counter's name.
        counter: String,
        /// The counter's type (an integer).
        ty: Ty,
        /// At most this many iterations.
        bound: u32,
        /// The further condition.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `for var in (start & 3)..bound { body }`, `var` of `start`'s type.
    For {
        /// The loop variable.
        var: String,
        /// Where it starts, before the mask.
        start: Expr,
        /// Where it ends.
        bound: u32,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `var counter: u32 = 0; loop { counter += 1; if counter > bound { break; } body }`.
    Loop {
        /// The counter's name.
        counter: String,
        /// At most this many iterations.
        bound: u32,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` or, in a helper, `return value;`.
    Return(Option<Expr>),
    /// `tile[lid] = value; barrier(); acc = acc + tile[slot]; barrier();`, in uniform control
    /// flow only.
    SharedRound {
        /// The shared array (as long as the workgroup).
        tile: String,
        /// What this work-item writes.
        value: Expr,
        /// The `var` that accumulates what it reads.
        acc: String,
        /// What it reads.
        slot: SharedSlot,
    },
    /// Work-item 0 fills shared array `arr` with `init`; barrier; each [`SharedAtomic`];
    /// barrier; `acc = acc ^ arr[lid & (len - 1)]`. In uniform control flow only.
    SharedAtomics {
        /// The shared array.
        arr: String,
        /// Its element type (an integer).
        elem: Ty,
        /// Its length, a power of two.
        len: u32,
        /// The one operation all its atomics do, so that the final values do not depend on
        /// their order.
        op: AtomicOp,
        /// The first value of every element (bits of the element type).
        init: u64,
        /// The atomics.
        ops: Vec<SharedAtomic>,
        /// The `var` that accumulates what it reads.
        acc: String,
    },
    /// `op(&buf[region * 8 + ((index) & 7)], value);` on the atomics buffer; each operation
    /// has its own region, so the final values do not depend on the order. With `keep`, the
    /// old value is bound (and not used: it depends on the order).
    GlobalAtomic {
        /// The atomics buffer.
        buf: String,
        /// The operation.
        op: AtomicOp,
        /// The element.
        index: Expr,
        /// The operand.
        value: Expr,
        /// An explicit `ORDER, SCOPE`.
        order: Option<(&'static str, &'static str)>,
        /// The name the old value is bound to.
        keep: Option<String>,
    },
    /// `let keep = op(&buf[ob + slot], args);` on the work-item's own output element, which no
    /// other work-item touches, so the old value it returns is defined: any atomic, `xchg`
    /// and `cas` included.
    OwnAtomic {
        /// The output buffer.
        buf: String,
        /// Which of the work-item's slots.
        slot: u32,
        /// The built-in: `atomic_add`, ..., `atomic_xchg`, `atomic_cas`.
        op: &'static str,
        /// Its operands after the address (two for `atomic_cas`).
        args: Vec<Expr>,
        /// The name the old value is bound to.
        keep: Option<String>,
    },
    /// Straight-line code big enough that a branch around it needs more than the 16-bit
    /// offset of `s_cbranch_*`: `count` statements `acc = fma(acc, x, k) / y;` in f64.
    Bulk {
        /// The f64 `var`.
        acc: String,
        /// How many statements.
        count: u32,
    },
}

/// A helper function (inlined by the front end).
#[derive(Clone, Debug, PartialEq)]
pub struct Helper {
    /// The name.
    pub name: String,
    /// The parameters.
    pub params: Vec<(String, Ty)>,
    /// The result type.
    pub ret: Ty,
    /// The body, ending in a `return`.
    pub body: Vec<Stmt>,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// A scalar.
    Scalar(Ty),
    /// A buffer of `len` elements (a power of two for inputs, indexed with a mask).
    Buffer {
        /// Element type.
        elem: Ty,
        /// Written (`&mut`).
        mutable: bool,
        /// Elements.
        len: u32,
    },
}

/// A whole kernel and its launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The helpers, before the kernel.
    pub helpers: Vec<Helper>,
    /// The kernel's name.
    pub name: String,
    /// `#[workgroup_size(...)]`, which equals [`Program::block`] when present.
    pub workgroup_size_attr: bool,
    /// The parameters, named and typed.
    pub params: Vec<(String, Param)>,
    /// Each parameter's launch value: a scalar's bits, or a buffer's `edge=` seed.
    pub inputs: Vec<u64>,
    /// Output slots per work-item (the `K` of `ob = gid * K`).
    pub slots: u32,
    /// The shared arrays: name, element type, length.
    pub shared: Vec<(String, Ty, u32)>,
    /// The kernel's body, after the fixed preamble that defines `gid`, `lid` and `ob`.
    pub body: Vec<Stmt>,
    /// Work-items in each dimension.
    pub grid: [u32; 3],
    /// The workgroup size.
    pub block: [u32; 3],
}

impl Program {
    /// Work-items the output buffers are sized for: every work-item of the whole groups
    /// (the flattened `gid` of the preamble ranges over them).
    pub fn padded_items(&self) -> u32 {
        (0..3).map(|d| self.grid[d].div_ceil(self.block[d]) * self.block[d]).product()
    }
}

/// Calls `f` on `stmts` and then on each statement list nested in it, in preorder. (Recursive:
/// generated programs nest a bounded few levels deep.)
pub fn visit_lists_mut(stmts: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    f(stmts);
    for s in stmts.iter_mut() {
        match s {
            Stmt::If { then, els, .. } => {
                visit_lists_mut(then, f);
                visit_lists_mut(els, f);
            }
            Stmt::While { body, .. } | Stmt::For { body, .. } | Stmt::Loop { body, .. } => visit_lists_mut(body, f),
            _ => {}
        }
    }
}

/// Calls `f` on every expression of `stmts`, each before its operands, in statement order.
pub fn visit_exprs_mut(stmts: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Expr)) {
    fn expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
        f(e);
        for c in children_mut(e) {
            expr(c, f);
        }
    }
    visit_lists_mut(stmts, &mut |list| {
        for s in list.iter_mut() {
            for e in stmt_exprs_mut(s) {
                expr(e, f);
            }
        }
    });
}

/// The expressions directly inside a statement (not those of nested statements).
pub fn stmt_exprs_mut(s: &mut Stmt) -> Vec<&mut Expr> {
    match s {
        Stmt::Let { init, .. } | Stmt::Array { init, .. } => vec![init],
        Stmt::Assign { value, .. } | Stmt::Out { value, .. } | Stmt::SharedRound { value, .. } => vec![value],
        Stmt::ArrayStore { index, value, .. } | Stmt::GlobalAtomic { index, value, .. } => vec![index, value],
        Stmt::If { cond, .. } | Stmt::While { cond, .. } => vec![cond],
        Stmt::For { start, .. } => vec![start],
        Stmt::Return(Some(e)) => vec![e],
        Stmt::OwnAtomic { args, .. } => args.iter_mut().collect(),
        Stmt::SharedAtomics { ops, .. } => {
            ops.iter_mut().flat_map(|o| [&mut o.cond, &mut o.index, &mut o.value]).collect()
        }
        Stmt::Loop { .. } | Stmt::Break | Stmt::Continue | Stmt::Return(None) | Stmt::Bulk { .. } => Vec::new(),
    }
}

/// An expression's direct operands.
pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Special(_) | ExprKind::Shared { .. } | ExprKind::Own { .. } => {
            Vec::new()
        }
        ExprKind::Unary(_, x) | ExprKind::Cast(x) | ExprKind::Index { index: x, .. } => vec![&mut **x],
        ExprKind::Binary(_, a, b) => vec![&mut **a, &mut **b],
        ExprKind::Call(_, args) => args.iter_mut().collect(),
    }
}
