//! The parser: tokens to a syntax tree, by recursive descent, with precedence climbing (Pratt)
//! for expressions.
//!
//! It never stops at the first error. A statement that does not parse is reported and skipped
//! up to its `;`, the `}` that closes its block, or the next token that starts a statement; an
//! item that does not parse is skipped up to the next `kernel`, `fn` or `#`. So one file gets
//! one diagnostic per broken statement. Nesting as written (blocks, parentheses, operands of
//! unary operators, arguments) is bounded by [`MAX_DEPTH`]; the syntax tree's depth, which
//! chains such as `a + b + c` and `else if` arms add to one level per link, by [`MAX_CHAIN`].
//! Deeper input is an error, never a stack overflow in this or a later phase (which walk the
//! tree recursively). Each item records its size and depth ([`FnDecl::nodes`],
//! [`FnDecl::depth`]) for the inlining budget.
//!
//! Operator precedence, loosest first, as in Rust: `||`, `&&`, comparisons (not chainable),
//! `|`, `^`, `&`, `<< >>`, `+ -`, `* / %`, `as`, unary `- ! &`, then indexing, fields and calls.

use crate::ast::*;
use crate::diagnostics::{Diagnostic, Span};
use crate::lexer::{Kw, Tok, Token, P};
use crate::types::ScalarTy;

/// The deepest nesting of expressions, and separately of blocks, that the parser accepts.
pub const MAX_DEPTH: u32 = 200;

/// The deepest syntax tree of an expression, and the longest chain of `else if` arms, that
/// the parser accepts: a chain of binary operators or `else if`s nests the tree one level per
/// link without nesting the text.
pub const MAX_CHAIN: u32 = 2000;

/// Parses a token list (from [`crate::lexer::lex`]) into a file and the errors found.
pub fn parse(tokens: Vec<Token>) -> (SourceFile, Vec<Diagnostic>) {
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        next_id: 0,
        errors: Vec::new(),
        block_depth: 0,
        else_ifs: 0,
        nest: 0,
        deepest: 0,
        too_deep: false,
    };
    let items = p.file();
    (SourceFile { items, node_count: p.next_id }, p.errors)
}

/// A parse failure already reported; the caller recovers.
struct Reported;

type PResult<T> = Result<T, Reported>;

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    next_id: u32,
    errors: Vec<Diagnostic>,
    block_depth: u32,
    /// How many `else if` arms the current statement is in.
    else_ifs: u32,
    /// How deep the parser is in expressions and types (recursive calls).
    nest: u32,
    /// The deepest syntax tree of the current item so far: statements (blocks and `else if`
    /// arms) plus the depth of an expression in them.
    deepest: u32,
    /// A nesting error was reported: report no more of them (one is enough per file).
    too_deep: bool,
}

/// Binding powers of `as` and of the unary operators.
const AS_BP: u8 = 21;
const UNARY_BP: u8 = 23;

/// The binary operator of a token, with its left and right binding powers.
fn binop(tok: &Tok) -> Option<(BinOp, u8, u8)> {
    let Tok::P(p) = tok else { return None };
    Some(match p {
        P::PipePipe => (BinOp::LogicOr, 1, 2),
        P::AmpAmp => (BinOp::LogicAnd, 3, 4),
        P::EqEq => (BinOp::Eq, 5, 6),
        P::Ne => (BinOp::Ne, 5, 6),
        P::Lt => (BinOp::Lt, 5, 6),
        P::Le => (BinOp::Le, 5, 6),
        P::Gt => (BinOp::Gt, 5, 6),
        P::Ge => (BinOp::Ge, 5, 6),
        P::Pipe => (BinOp::Or, 7, 8),
        P::Caret => (BinOp::Xor, 9, 10),
        P::Amp => (BinOp::And, 11, 12),
        P::Shl => (BinOp::Shl, 13, 14),
        P::Shr => (BinOp::Shr, 13, 14),
        P::Plus => (BinOp::Add, 15, 16),
        P::Minus => (BinOp::Sub, 15, 16),
        P::Star => (BinOp::Mul, 17, 18),
        P::Slash => (BinOp::Div, 17, 18),
        P::Percent => (BinOp::Rem, 17, 18),
        _ => return None,
    })
}

/// The operator of a compound assignment token (`+=` gives `+`).
fn assign_op(tok: &Tok) -> Option<Option<BinOp>> {
    let Tok::P(p) = tok else { return None };
    Some(Some(match p {
        P::Eq => return Some(None),
        P::PlusEq => BinOp::Add,
        P::MinusEq => BinOp::Sub,
        P::StarEq => BinOp::Mul,
        P::SlashEq => BinOp::Div,
        P::PercentEq => BinOp::Rem,
        P::AmpEq => BinOp::And,
        P::PipeEq => BinOp::Or,
        P::CaretEq => BinOp::Xor,
        P::ShlEq => BinOp::Shl,
        P::ShrEq => BinOp::Shr,
        _ => return None,
    }))
}

/// Whether a token starts a statement (where recovery may stop).
fn starts_statement(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Kw(
            Kw::Let
                | Kw::Var
                | Kw::Shared
                | Kw::If
                | Kw::While
                | Kw::For
                | Kw::Loop
                | Kw::Break
                | Kw::Continue
                | Kw::Return
                | Kw::Kernel
                | Kw::Fn
        )
    )
}

impl Parser {
    // ---------------------------------------------------------------------------------------
    // Tokens

    fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    /// The end of the previous token (where a missing `;` belongs).
    fn prev_end(&self) -> Span {
        let end = if self.pos == 0 { 0 } else { self.toks[self.pos - 1].span.end };
        Span { start: end, end }
    }

    fn bump(&mut self) -> Span {
        let span = self.span();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        span
    }

    fn at(&self, p: P) -> bool {
        *self.tok() == Tok::P(p)
    }

    fn at_kw(&self, k: Kw) -> bool {
        *self.tok() == Tok::Kw(k)
    }

    fn eat(&mut self, p: P) -> bool {
        let found = self.at(p);
        if found {
            self.bump();
        }
        found
    }

    fn error(&mut self, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.errors.push(Diagnostic::new(span, message));
        self.errors.last_mut().expect("just pushed")
    }

    /// Reports "expected WHAT, found TOKEN" at the current token.
    fn expected(&mut self, what: &str) -> Reported {
        let found = self.tok().describe();
        let span = self.span();
        self.error(span, format!("expected {what}, found {found}"));
        Reported
    }

    fn expect(&mut self, p: P) -> PResult<Span> {
        if self.at(p) {
            Ok(self.bump())
        } else {
            Err(self.expected(&format!("`{}`", p.text())))
        }
    }

    /// Expects the `;` that ends a statement. A missing one is reported just after the
    /// previous token, as rustc does, and parsing goes on as if it were there: the statement
    /// itself was complete.
    fn expect_semi(&mut self) -> PResult<()> {
        if !self.eat(P::Semi) {
            let found = self.tok().describe();
            let span = self.prev_end();
            self.error(span, format!("expected `;`, found {found}")).help =
                Some("end the statement with `;`".to_string());
        }
        Ok(())
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.tok().clone() {
            Tok::Ident(name) => {
                let span = self.bump();
                Ok(Ident { name, span })
            }
            Tok::Kw(k) if !matches!(k, Kw::True | Kw::False) => {
                let span = self.span();
                self.error(span, format!("expected {what}, found keyword `{}`", k.text())).help =
                    Some(format!("`{}` is a keyword; choose another name", k.text()));
                Err(Reported)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn id(&mut self) -> NodeId {
        self.next_id += 1;
        NodeId(self.next_id - 1)
    }

    /// Reports the nesting limit once per file.
    fn too_deep(&mut self, span: Span) -> Reported {
        self.too_deep_because(span, format!("the program nests deeper than {MAX_DEPTH} levels"))
    }

    /// Reports a nesting limit once per file, with `message`.
    fn too_deep_because(&mut self, span: Span, message: String) -> Reported {
        if !self.too_deep {
            self.too_deep = true;
            self.error(span, message).help = Some("split the expression or the block into smaller pieces".to_string());
        }
        Reported
    }

    fn expr_node(&mut self, kind: ExprKind, span: Span, depth: u32) -> PResult<Expr> {
        if depth > MAX_CHAIN {
            let message =
                format!("the expression is more than {MAX_CHAIN} levels deep (each operator of a chain is one)");
            return Err(self.too_deep_because(span, message));
        }
        self.deepest = self.deepest.max(self.block_depth + self.else_ifs + depth);
        Ok(Expr { id: self.id(), kind, span, depth })
    }

    // ---------------------------------------------------------------------------------------
    // Items

    fn file(&mut self) -> Vec<FnDecl> {
        let mut items = Vec::new();
        while *self.tok() != Tok::Eof {
            let start = self.pos;
            match self.item() {
                Ok(item) => items.push(item),
                Err(Reported) => self.recover_item(start),
            }
        }
        items
    }

    /// Skips to the next token that may start an item, at brace depth 0, consuming at least
    /// one token.
    fn recover_item(&mut self, start: usize) {
        if self.pos == start {
            self.bump();
        }
        let mut depth = 0u32;
        loop {
            match self.tok() {
                Tok::Eof => return,
                Tok::P(P::LBrace) => depth += 1,
                Tok::P(P::RBrace) => depth = depth.saturating_sub(1),
                Tok::Kw(Kw::Kernel | Kw::Fn) | Tok::P(P::Hash) if depth == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    fn item(&mut self) -> PResult<FnDecl> {
        let mut attrs = Vec::new();
        while self.at(P::Hash) {
            attrs.push(self.attr()?);
        }
        let head_start = self.span();
        let is_kernel = match self.tok() {
            Tok::Kw(Kw::Kernel) => true,
            Tok::Kw(Kw::Fn) => false,
            _ => {
                let e = self.expected("`kernel` or `fn`");
                if let Some(d) = self.errors.last_mut() {
                    d.help = Some(
                        "a file holds kernels (`kernel name(...) { }`) and helper functions (`fn name(...) -> T { }`)"
                            .into(),
                    );
                }
                return Err(e);
            }
        };
        self.bump();
        let name = self.ident("a name")?;
        self.expect(P::LParen)?;
        let mut params = Vec::new();
        while !self.at(P::RParen) {
            let name = self.ident("a parameter name")?;
            self.expect(P::Colon)?;
            let ty = self.ty()?;
            params.push(Param { id: self.id(), name, ty });
            if !self.eat(P::Comma) {
                break;
            }
        }
        let close = self.expect(P::RParen)?;
        let ret = if self.eat(P::Arrow) { Some(self.ty()?) } else { None };
        let head_span = head_start.to(ret.as_ref().map_or(close, |t| t.span));
        let first_id = self.next_id;
        self.deepest = 0;
        let body = self.block()?;
        let (nodes, depth) = (self.next_id - first_id, self.deepest);
        Ok(FnDecl { is_kernel, attrs, name, params, ret, body, head_span, nodes, depth })
    }

    fn attr(&mut self) -> PResult<Attr> {
        let start = self.bump(); // #
        self.expect(P::LBracket)?;
        let name = self.ident("an attribute name")?;
        let mut args = Vec::new();
        if self.eat(P::LParen) {
            while !self.at(P::RParen) {
                args.push(self.expr()?);
                if !self.eat(P::Comma) {
                    break;
                }
            }
            self.expect(P::RParen)?;
        }
        let end = self.expect(P::RBracket)?;
        Ok(Attr { name, args, span: start.to(end) })
    }

    fn ty(&mut self) -> PResult<TypeExpr> {
        self.nested(Parser::ty_inner)
    }

    fn ty_inner(&mut self) -> PResult<TypeExpr> {
        let start = self.span();
        match self.tok().clone() {
            Tok::P(P::Amp) => {
                self.bump();
                let mutable = *self.tok() == Tok::Ident("mut".into());
                if mutable {
                    self.bump();
                }
                if !self.at(P::LBracket) {
                    let e = self.expected("`[` (a buffer type is `&[T]` or `&mut [T]`)");
                    return Err(e);
                }
                self.bump();
                let elem = self.ty()?;
                let end = self.expect(P::RBracket)?;
                Ok(TypeExpr { kind: TypeExprKind::Buffer { elem: Box::new(elem), mutable }, span: start.to(end) })
            }
            Tok::P(P::LBracket) => {
                self.bump();
                let elem = self.ty()?;
                if !self.eat(P::Semi) {
                    let e = self.expected("`;` (an array type is `[T; N]`)");
                    return Err(e);
                }
                let len = self.expr()?;
                let end = self.expect(P::RBracket)?;
                Ok(TypeExpr {
                    kind: TypeExprKind::Array { elem: Box::new(elem), len: Box::new(len) },
                    span: start.to(end),
                })
            }
            Tok::Ident(name) => {
                self.bump();
                let kind = match ScalarTy::from_name(&name) {
                    Some(t) => TypeExprKind::Scalar(t),
                    None => {
                        self.error(start, format!("unknown type `{name}`")).help = Some(
                            "the types are bool, i32, u32, i64, u64, f16, f32, f64, &[T], &mut [T] and [T; N]".into(),
                        );
                        TypeExprKind::Error
                    }
                };
                Ok(TypeExpr { kind, span: start })
            }
            _ => Err(self.expected("a type")),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Statements

    fn block(&mut self) -> PResult<Block> {
        let open = self.expect(P::LBrace)?;
        if self.block_depth >= MAX_DEPTH {
            return Err(self.too_deep(open));
        }
        self.block_depth += 1;
        self.deepest = self.deepest.max(self.block_depth + self.else_ifs);
        let mut stmts = Vec::new();
        loop {
            match self.tok() {
                Tok::P(P::RBrace) => break,
                Tok::Eof => {
                    self.block_depth -= 1;
                    let span = self.span();
                    self.error(span, "expected `}`, found the end of the file").help =
                        Some("close the block opened here with `}`".to_string());
                    return Err(Reported);
                }
                Tok::Kw(Kw::Kernel | Kw::Fn) => {
                    // Most likely a missing `}`: let the item parser take it from here.
                    self.block_depth -= 1;
                    let found = self.tok().describe();
                    let span = self.span();
                    self.error(span, format!("expected `}}`, found {found}")).help =
                        Some("a block is missing its closing `}`".to_string());
                    return Ok(Block { stmts, span: open.to(self.prev_end()) });
                }
                Tok::P(P::Semi) => {
                    self.bump();
                }
                _ => {
                    let start = self.pos;
                    match self.stmt() {
                        Ok(s) => stmts.push(s),
                        Err(Reported) => {
                            let span = self.toks[start].span.to(self.prev_end());
                            stmts.push(Stmt { kind: StmtKind::Error, span });
                            self.recover_stmt(start);
                        }
                    }
                }
            }
        }
        self.block_depth -= 1;
        let close = self.bump();
        Ok(Block { stmts, span: open.to(close) })
    }

    /// Skips past the broken statement: to just after its `;`, or to the `}` closing the
    /// block, or to the next token that starts a statement, consuming at least one token.
    fn recover_stmt(&mut self, start: usize) {
        let mut depth = 0u32;
        let mut first = self.pos == start;
        loop {
            let tok = self.tok().clone();
            match tok {
                Tok::Eof => return,
                Tok::P(P::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::P(P::RBrace) if depth == 0 => {
                    if first {
                        self.bump();
                    }
                    return;
                }
                Tok::P(P::LBrace) => depth += 1,
                Tok::P(P::RBrace) => depth -= 1,
                ref t if depth == 0 && !first && starts_statement(t) => return,
                _ => {}
            }
            first = false;
            self.bump();
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.tok() {
            Tok::Kw(kw @ (Kw::Let | Kw::Var)) => {
                let mutable = *kw == Kw::Var;
                self.bump();
                let name = self.ident("a variable name")?;
                let ty = if self.eat(P::Colon) { Some(self.ty()?) } else { None };
                let init = if self.eat(P::Eq) { Some(self.expr()?) } else { None };
                self.expect_semi()?;
                StmtKind::Let { id: self.id(), mutable, name, ty, init }
            }
            Tok::Kw(Kw::Shared) => {
                self.bump();
                let name = self.ident("a name")?;
                if !self.eat(P::Colon) {
                    let e = self.expected("`:` (a shared array is declared `shared name: [T; N];`)");
                    return Err(e);
                }
                let ty = self.ty()?;
                self.expect_semi()?;
                StmtKind::Shared { id: self.id(), name, ty }
            }
            Tok::Kw(Kw::If) => return self.if_stmt(),
            Tok::Kw(Kw::While) => {
                self.bump();
                let cond = self.expr()?;
                let body = self.block()?;
                StmtKind::While { cond, body }
            }
            Tok::Kw(Kw::For) => {
                self.bump();
                let var = self.ident("a loop variable")?;
                if !self.at_kw(Kw::In) {
                    return Err(self.expected("`in`"));
                }
                self.bump();
                let start_e = self.expr()?;
                if !self.eat(P::DotDot) {
                    let e = self.expected("`..` (a loop runs over a range `a..b`)");
                    return Err(e);
                }
                let end = self.expr()?;
                let body = self.block()?;
                StmtKind::For { id: self.id(), var, start: start_e, end, body }
            }
            Tok::Kw(Kw::Loop) => {
                self.bump();
                StmtKind::Loop { body: self.block()? }
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                self.expect_semi()?;
                StmtKind::Break
            }
            Tok::Kw(Kw::Continue) => {
                self.bump();
                self.expect_semi()?;
                StmtKind::Continue
            }
            Tok::Kw(Kw::Return) => {
                self.bump();
                let value = if self.at(P::Semi) || self.at(P::RBrace) { None } else { Some(self.expr()?) };
                self.expect_semi()?;
                StmtKind::Return(value)
            }
            Tok::P(P::LBrace) => StmtKind::Block(self.block()?),
            Tok::Kw(Kw::Else) => {
                let span = self.span();
                self.error(span, "`else` without a preceding `if`");
                return Err(Reported);
            }
            _ => {
                let target = self.expr()?;
                if let Some(op) = assign_op(self.tok()) {
                    self.bump();
                    let value = self.expr()?;
                    self.expect_semi()?;
                    StmtKind::Assign { target, op, value }
                } else if self.eat(P::Semi) {
                    StmtKind::Expr { expr: target, semi: true }
                } else if self.at(P::RBrace) {
                    StmtKind::Expr { expr: target, semi: false }
                } else {
                    self.expect_semi()?;
                    StmtKind::Expr { expr: target, semi: true }
                }
            }
        };
        Ok(Stmt { kind, span: start.to(self.prev_end()) })
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump(); // if
        let cond = self.expr()?;
        let then = self.block()?;
        let els = if self.at_kw(Kw::Else) {
            self.bump();
            if self.at_kw(Kw::If) {
                if self.else_ifs >= MAX_CHAIN {
                    let span = self.span();
                    return Err(self.too_deep_because(span, format!("more than {MAX_CHAIN} `else if` arms in a row")));
                }
                self.else_ifs += 1;
                let inner = self.if_stmt();
                self.else_ifs -= 1;
                let inner = inner?;
                Some(Block { span: inner.span, stmts: vec![inner] })
            } else {
                Some(self.block()?)
            }
        } else {
            None
        };
        Ok(Stmt { kind: StmtKind::If { cond, then, els }, span: start.to(self.prev_end()) })
    }

    // ---------------------------------------------------------------------------------------
    // Expressions

    fn expr(&mut self) -> PResult<Expr> {
        self.expr_bp(0)
    }

    /// Runs `f` one level deeper in expressions or types, failing past [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        if self.nest >= MAX_DEPTH {
            let span = self.span();
            return Err(self.too_deep(span));
        }
        self.nest += 1;
        let result = f(self);
        self.nest -= 1;
        result
    }

    fn expr_bp(&mut self, min_bp: u8) -> PResult<Expr> {
        self.nested(|p| p.expr_bp_inner(min_bp))
    }

    fn expr_bp_inner(&mut self, min_bp: u8) -> PResult<Expr> {
        let mut lhs = self.prefix()?;
        let mut last_comparison: Option<Span> = None;
        loop {
            if self.at_kw(Kw::As) {
                if AS_BP < min_bp {
                    break;
                }
                self.bump();
                let ty = self.ty()?;
                let span = lhs.span.to(ty.span);
                let depth = lhs.depth + 1;
                lhs = self.expr_node(ExprKind::Cast(Box::new(lhs), ty), span, depth)?;
                continue;
            }
            let Some((op, lbp, rbp)) = binop(self.tok()) else { break };
            if lbp < min_bp {
                break;
            }
            let op_span = self.bump();
            if op.is_comparison() {
                if let Some(first) = last_comparison {
                    self.error(op_span, "comparison operators cannot be chained").help = Some(format!(
                        "split the comparison with `&&`, as in `a < b && b < c` (the first comparison is at byte {})",
                        first.start
                    ));
                    return Err(Reported);
                }
                last_comparison = Some(op_span);
            }
            let rhs = self.expr_bp(rbp)?;
            let span = lhs.span.to(rhs.span);
            let depth = lhs.depth.max(rhs.depth) + 1;
            lhs = self.expr_node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span, depth)?;
        }
        Ok(lhs)
    }

    fn prefix(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.tok() {
            Tok::P(P::Minus) => Some(UnOp::Neg),
            Tok::P(P::Bang) => Some(UnOp::Not),
            Tok::P(P::Amp) => None,
            _ => return self.postfix(),
        };
        self.bump();
        let operand = self.expr_bp(UNARY_BP)?;
        let span = start.to(operand.span);
        let depth = operand.depth + 1;
        let kind = match op {
            Some(op) => ExprKind::Unary(op, Box::new(operand)),
            None => ExprKind::AddrOf(Box::new(operand)),
        };
        self.expr_node(kind, span, depth)
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.at(P::LBracket) {
                self.bump();
                let index = self.expr()?;
                let end = self.expect(P::RBracket)?;
                let span = e.span.to(end);
                let depth = e.depth.max(index.depth) + 1;
                e = self.expr_node(ExprKind::Index(Box::new(e), Box::new(index)), span, depth)?;
            } else if self.at(P::Dot) {
                self.bump();
                let field = self.ident("a field name (`x`, `y` or `z`)")?;
                let span = e.span.to(field.span);
                let depth = e.depth + 1;
                e = self.expr_node(ExprKind::Field(Box::new(e), field), span, depth)?;
            } else if self.at(P::LParen) {
                let span = self.span();
                self.error(span, "only functions can be called, by name").help =
                    Some("write `name(arguments)`".to_string());
                return Err(Reported);
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let span = self.span();
        let tok = self.tok().clone();
        match tok {
            Tok::Int(text, suffix) => {
                self.bump();
                self.expr_node(ExprKind::Int(text, suffix), span, 1)
            }
            Tok::Float(text, suffix) => {
                self.bump();
                self.expr_node(ExprKind::Float(text, suffix), span, 1)
            }
            Tok::Kw(Kw::True) | Tok::Kw(Kw::False) => {
                self.bump();
                self.expr_node(ExprKind::Bool(tok == Tok::Kw(Kw::True)), span, 1)
            }
            Tok::Ident(name) => {
                self.bump();
                let ident = Ident { name, span };
                if !self.at(P::LParen) {
                    return self.expr_node(ExprKind::Name(ident), span, 1);
                }
                self.bump();
                let mut args = Vec::new();
                let mut depth = 1;
                while !self.at(P::RParen) {
                    let arg = self.expr()?;
                    depth = depth.max(arg.depth + 1);
                    args.push(arg);
                    if !self.eat(P::Comma) {
                        break;
                    }
                }
                let end = self.expect(P::RParen)?;
                self.expr_node(ExprKind::Call(ident, args), span.to(end), depth)
            }
            Tok::P(P::LParen) => {
                self.bump();
                let inner = self.expr()?;
                let end = self.expect(P::RParen)?;
                let depth = inner.depth + 1;
                self.expr_node(ExprKind::Paren(Box::new(inner)), span.to(end), depth)
            }
            _ => Err(self.expected("an expression")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn parse_src(src: &str) -> (SourceFile, Vec<String>) {
        let (toks, lex_errors) = lex(src);
        assert!(lex_errors.is_empty());
        let (file, errors) = parse(toks);
        (file, errors.iter().map(|e| e.short(src)).collect())
    }

    /// The expression of `let x = EXPR;` in a kernel, printed with full parentheses.
    fn shape(expr: &str) -> String {
        let (file, errors) = parse_src(&format!("kernel k() {{ let x = {expr}; }}"));
        assert!(errors.is_empty(), "{errors:?}");
        let StmtKind::Let { init: Some(e), .. } = &file.items[0].body.stmts[0].kind else { panic!() };
        fn show(e: &Expr) -> String {
            match &e.kind {
                ExprKind::Int(t, _) | ExprKind::Float(t, _) => t.clone(),
                ExprKind::Bool(b) => b.to_string(),
                ExprKind::Name(n) => n.name.clone(),
                ExprKind::Unary(UnOp::Neg, x) => format!("(-{})", show(x)),
                ExprKind::Unary(UnOp::Not, x) => format!("(!{})", show(x)),
                ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.text(), show(b)),
                ExprKind::Cast(x, _) => format!("({} as T)", show(x)),
                ExprKind::Index(a, i) => format!("{}[{}]", show(a), show(i)),
                ExprKind::Field(a, f) => format!("{}.{}", show(a), f.name),
                ExprKind::Call(f, args) => {
                    format!("{}({})", f.name, args.iter().map(show).collect::<Vec<_>>().join(", "))
                }
                ExprKind::AddrOf(x) => format!("(&{})", show(x)),
                ExprKind::Paren(x) => show(x),
                ExprKind::Error => "?".into(),
            }
        }
        show(e)
    }

    #[test]
    fn precedence_follows_rust() {
        assert_eq!(shape("a + b * c - d"), "((a + (b * c)) - d)");
        assert_eq!(shape("a || b && c == d"), "(a || (b && (c == d)))");
        assert_eq!(shape("a | b ^ c & d << 1 + 2"), "(a | (b ^ (c & (d << (1 + 2)))))");
        assert_eq!(shape("-x as u32 * 2"), "(((-x) as T) * 2)");
        assert_eq!(shape("!a[i].x"), "(!a[i].x)");
        assert_eq!(shape("atomic_add(&buf[i], 1u)"), "atomic_add((&buf[i]), 1)");
        assert_eq!(shape("(a + b) * c"), "((a + b) * c)");
    }

    #[test]
    fn several_errors_are_reported_per_file() {
        let src = "kernel k(a: &[f32]) {\n    let x = ;\n    let y = 1\n    y = 2 +;\n}\nfn f( {\n}\nkernel ok() { }\n";
        let (file, errors) = parse_src(src);
        assert_eq!(
            errors,
            [
                "2:13: expected an expression, found `;`",
                "3:14: expected `;`, found `y`",
                "4:12: expected an expression, found `;`",
                "6:7: expected a parameter name, found `{`",
            ]
        );
        assert_eq!(file.items.iter().map(|i| i.name.name.as_str()).collect::<Vec<_>>(), ["k", "ok"]);
    }

    /// The nesting limit counts nesting, not the length of a chain: a chain of operators or of
    /// `else if` arms runs to [`MAX_CHAIN`] links, which every later phase walks, in a thread
    /// with a quarter of the main thread's stack.
    #[test]
    fn chains_are_not_nesting() {
        let n = MAX_CHAIN as usize - 2;
        let sum = format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = n{}; }}", " + n".repeat(n));
        let all = format!("kernel k(x: &mut [u32], n: u32) {{ if n > 0{} {{ x[0] = 1; }} }}", " && n > 1".repeat(n));
        let arms: String = (0..n).map(|i| format!(" else if n == {i} {{ x[0] = {i}; }}")).collect();
        let arms = format!("kernel k(x: &mut [u32], n: u32) {{ if n == 0 {{ x[0] = 0; }}{arms} }}");
        for src in [sum, all, arms] {
            let compiled = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || crate::compile(&src, "chain.gk").map(|c| c.module.functions.len()))
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(compiled.map_err(|d| d.list[0].message.clone()), Ok(1));
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("kernel k() {{ let x = {}1{}; }}", "(".repeat(5000), ")".repeat(5000));
        let (_, errors) = parse_src(&deep);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("nests deeper than"), "{errors:?}");
        let long = format!("kernel k() {{ let x = 1{}; }}", " + 1".repeat(5000));
        let (_, errors) = parse_src(&long);
        assert_eq!(errors, ["1:22: the expression is more than 2000 levels deep (each operator of a chain is one)"]);
        let arms = format!("kernel k() {{ if true {{ }}{} }}", " else if true { }".repeat(MAX_CHAIN as usize + 1));
        let (_, errors) = parse_src(&arms);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("more than 2000 `else if` arms in a row"), "{errors:?}");
        let blocks = format!("kernel k() {}{}", "{".repeat(5000), "}".repeat(5000));
        let (_, errors) = parse_src(&blocks);
        assert!(errors[0].contains("nests deeper than"), "{errors:?}");
    }
}
