//! The syntax tree the parser builds and the checker and the lowering read.
//!
//! Every expression and every declaration has a [`NodeId`], unique in its file, so that the
//! checker can record facts about it (its type, what a name refers to, what a call calls) in
//! side tables instead of rewriting the tree; the lowering reads those tables. A construct the
//! parser could not read becomes an `Error` node, which the checker skips silently.

use crate::diagnostics::Span;
use crate::types::ScalarTy;

/// A node's identity: an index unique within one parsed file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// A whole file: kernels and helper functions.
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    /// The items, in order.
    pub items: Vec<FnDecl>,
    /// How many node ids the parser handed out (ids are `0..node_count`).
    pub node_count: u32,
}

/// A kernel or a helper function.
#[derive(Clone, Debug)]
pub struct FnDecl {
    /// `kernel` or `fn`.
    pub is_kernel: bool,
    /// The attributes written before it.
    pub attrs: Vec<Attr>,
    /// The name.
    pub name: Ident,
    /// The parameters.
    pub params: Vec<Param>,
    /// The declared return type (`-> T`).
    pub ret: Option<TypeExpr>,
    /// The body.
    pub body: Block,
    /// From the keyword to the end of the parameter list (where errors about the whole
    /// function point).
    pub head_span: Span,
    /// Syntax nodes in the body: the item's size, before inlining.
    pub nodes: u32,
    /// The depth of the body's syntax tree: nested blocks and `else if` arms plus the depth of
    /// an expression in them, before inlining.
    pub depth: u32,
}

/// `#[name(args)]`.
#[derive(Clone, Debug)]
pub struct Attr {
    /// The attribute's name.
    pub name: Ident,
    /// Its arguments.
    pub args: Vec<Expr>,
    /// The whole attribute.
    pub span: Span,
}

/// A parameter `name: type`.
#[derive(Clone, Debug)]
pub struct Param {
    /// The declaration's id.
    pub id: NodeId,
    /// The name.
    pub name: Ident,
    /// The type.
    pub ty: TypeExpr,
}

/// A type as written.
#[derive(Clone, Debug)]
pub struct TypeExpr {
    /// What kind of type.
    pub kind: TypeExprKind,
    /// Where.
    pub span: Span,
}

/// The kinds of written types.
#[derive(Clone, Debug)]
pub enum TypeExprKind {
    /// A scalar type name.
    Scalar(ScalarTy),
    /// `&[T]` or `&mut [T]`.
    Buffer {
        /// The element type.
        elem: Box<TypeExpr>,
        /// `&mut`.
        mutable: bool,
    },
    /// `[T; N]`.
    Array {
        /// The element type.
        elem: Box<TypeExpr>,
        /// The length expression (it must be a constant).
        len: Box<Expr>,
    },
    /// A type that did not parse.
    Error,
}

/// `{ statements }`.
#[derive(Clone, Debug)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What kind.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
}

/// The kinds of statements.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `let name: T = init;` or `var name: T = init;` (also `var a: [T; N];`).
    Let {
        /// The declaration's id.
        id: NodeId,
        /// `var` rather than `let`.
        mutable: bool,
        /// The name.
        name: Ident,
        /// The written type.
        ty: Option<TypeExpr>,
        /// The initializer.
        init: Option<Expr>,
    },
    /// `shared name: [T; N];`.
    Shared {
        /// The declaration's id.
        id: NodeId,
        /// The name.
        name: Ident,
        /// The written type.
        ty: TypeExpr,
    },
    /// `place = value;` or `place op= value;`.
    Assign {
        /// The place assigned.
        target: Expr,
        /// The operator of a compound assignment.
        op: Option<BinOp>,
        /// The value.
        value: Expr,
    },
    /// An expression evaluated for its effect; `semi` tells whether a `;` followed it.
    Expr {
        /// The expression.
        expr: Expr,
        /// Whether it ended with `;`.
        semi: bool,
    },
    /// `if cond { } else ...`.
    If {
        /// The condition.
        cond: Expr,
        /// The block run when it holds.
        then: Block,
        /// `else { }` or `else if ...` (as a block holding one `if`).
        els: Option<Block>,
    },
    /// `while cond { }`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Block,
    },
    /// `for var in start..end { }`.
    For {
        /// The loop variable's id.
        id: NodeId,
        /// The loop variable.
        var: Ident,
        /// The first value.
        start: Expr,
        /// One past the last value.
        end: Expr,
        /// The body.
        body: Block,
    },
    /// `loop { }`.
    Loop {
        /// The body.
        body: Block,
    },
    /// `break;`.
    Break,
    /// `continue;`.
    Continue,
    /// `return;` or `return value;`.
    Return(Option<Expr>),
    /// `{ }`.
    Block(Block),
    /// A statement that did not parse.
    Error,
}

/// Binary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicAnd,
    LogicOr,
}

impl BinOp {
    /// The operator's text.
    pub fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogicAnd => "&&",
            BinOp::LogicOr => "||",
        }
    }

    /// A comparison, giving `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }

    /// `<<` or `>>`.
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
}

/// Unary operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`.
    Neg,
    /// `!x`.
    Not,
}

/// An expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// Its id.
    pub id: NodeId,
    /// What kind.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
    /// The height of the expression's tree (1 for a leaf). The parser bounds it, so that every
    /// recursive walk of the tree stays within the stack.
    pub depth: u32,
}

/// The kinds of expressions.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// An integer literal: digits (with a `0x`/`0b`/`0o` prefix if written) and suffix.
    Int(String, Option<ScalarTy>),
    /// A float literal: text and suffix.
    Float(String, Option<ScalarTy>),
    /// `true` or `false`.
    Bool(bool),
    /// A name: a variable, a parameter, an array, or a built-in value.
    Name(Ident),
    /// `-x` or `!x`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `x as T`.
    Cast(Box<Expr>, TypeExpr),
    /// `base[index]`.
    Index(Box<Expr>, Box<Expr>),
    /// `base.field` (only the geometry values have fields: `.x .y .z`).
    Field(Box<Expr>, Ident),
    /// `name(args)`.
    Call(Ident, Vec<Expr>),
    /// `&place`, only as the first argument of an atomic.
    AddrOf(Box<Expr>),
    /// `(x)`.
    Paren(Box<Expr>),
    /// An expression that did not parse.
    Error,
}
