//! The reducer: delta debugging on the program tree. It tries smaller variants of a failing
//! program and keeps each one that still fails with the same signature (class and message
//! shape, [`Failure::signature`]) on the same configuration, until no variant is kept or the
//! budget of checks runs out. The variants, in order of how much they remove: deleting runs of
//! statements (halves, quarters, ... single statements) from every statement list; replacing
//! an `if` by one of its branches and a loop by its body, and shrinking loop bounds, bulk
//! blocks and shared atomics; replacing an expression by the constant 0 or 1 of its type or
//! by one of its operands of the same type; dropping helpers, the workgroup-size attribute,
//! and shrinking the grid to one workgroup or half its size. Since the program's shape keeps
//! it well-defined (see [`crate::ast`]), every variant is a valid program or one that the
//! front end rejects, which changes the signature.

use crate::ast::{children_mut, visit_exprs_mut, visit_lists_mut, Expr, ExprKind, Program, Stmt};
use crate::oracle::{run, Config, Failure, RunOptions};
use crate::print::kernel_file;
use std::time::{Duration, Instant};

/// Limits of one reduction.
#[derive(Copy, Clone, Debug)]
pub struct Budget {
    /// Checks at most.
    pub checks: usize,
    /// Time at most.
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { checks: 3000, time: Duration::from_secs(120) }
    }
}

/// The smallest variant of `program` found that fails as `failure` does on `config`.
pub fn reduce(program: &Program, config: &Config, options: &RunOptions, failure: &Failure, budget: Budget) -> Program {
    let signature = failure.signature();
    let start = Instant::now();
    let checks = std::cell::Cell::new(0usize);
    let spent = || checks.get() >= budget.checks || start.elapsed() > budget.time;
    let mut best = program.clone();
    let mut interesting = |p: &Program| -> bool {
        if spent() {
            return false;
        }
        checks.set(checks.get() + 1);
        let text = kernel_file(p, &[]);
        run(&text, &p.name, config, options).is_err_and(|f| f.signature() == signature)
    };
    loop {
        let mut changed = false;
        changed |= pass(&mut best, &mut interesting, delete_runs);
        changed |= pass(&mut best, &mut interesting, simplify_stmts);
        changed |= pass(&mut best, &mut interesting, simplify_exprs);
        changed |= pass(&mut best, &mut interesting, simplify_program);
        if !changed || spent() {
            return best;
        }
    }
}

/// Tries the variants `make(p, i)` for i = 0, 1, ... until it gives none, keeping each that
/// is interesting (and then trying the same i again on the smaller program).
fn pass(
    best: &mut Program,
    interesting: &mut dyn FnMut(&Program) -> bool,
    make: fn(&Program, usize) -> Option<Option<Program>>,
) -> bool {
    let mut changed = false;
    let mut i = 0;
    // `make` gives Some(None) for a site with no variant, None past the last site.
    while let Some(variant) = make(best, i) {
        match variant {
            Some(p) if p != *best && interesting(&p) => {
                *best = p;
                changed = true;
            }
            _ => i += 1,
        }
    }
    changed
}

/// The statement lists of a program: the kernel's body, then each helper's.
fn for_lists(p: &mut Program, f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    visit_lists_mut(&mut p.body, f);
    for h in &mut p.helpers {
        visit_lists_mut(&mut h.body, f);
    }
}

/// Variant `i` of deleting runs: over every list (in preorder), every run length from the
/// list's length halving down to 1, every aligned run.
fn delete_runs(p: &Program, i: usize) -> Option<Option<Program>> {
    let mut sites = Vec::new();
    let mut q = p.clone();
    let mut list = 0;
    for_lists(&mut q, &mut |l| {
        let mut run = l.len();
        while run > 0 {
            for start in (0..l.len()).step_by(run) {
                sites.push((list, start, run));
            }
            run /= 2;
        }
        list += 1;
    });
    let &(target, start, run) = sites.get(i)?;
    let mut list = 0;
    for_lists(&mut q, &mut |l| {
        if list == target {
            let end = (start + run).min(l.len());
            l.drain(start..end);
        }
        list += 1;
    });
    Some(Some(q))
}

/// How many ways [`simplify_stmt`] has to change one statement.
const STMT_VARIANTS: usize = 4;

/// Variant `i` of simplifying statements: statement `i / STMT_VARIANTS` in preorder, way
/// `i % STMT_VARIANTS`.
fn simplify_stmts(p: &Program, i: usize) -> Option<Option<Program>> {
    let (target, way) = (i / STMT_VARIANTS, i % STMT_VARIANTS);
    let mut q = p.clone();
    let mut n = 0;
    let mut applied = None;
    for_lists(&mut q, &mut |l| {
        let mut j = 0;
        while j < l.len() {
            if n == target {
                applied = Some(simplify_stmt(l, j, way));
            }
            n += 1;
            j += 1;
        }
    });
    match applied {
        None => None,
        Some(true) => Some(Some(q)),
        Some(false) => Some(None),
    }
}

/// Changes statement `j` of `list` the `way`th way; false when it has no such way.
fn simplify_stmt(list: &mut Vec<Stmt>, j: usize, way: usize) -> bool {
    let splice = |list: &mut Vec<Stmt>, body: Vec<Stmt>| {
        list.splice(j..=j, body);
    };
    match (&mut list[j], way) {
        (Stmt::If { then, .. }, 0) => {
            let body = std::mem::take(then);
            splice(list, body);
        }
        (Stmt::If { els, .. }, 1) => {
            let body = std::mem::take(els);
            splice(list, body);
        }
        (Stmt::If { els, .. }, 2) if !els.is_empty() => els.clear(),
        (Stmt::While { body, .. } | Stmt::For { body, .. } | Stmt::Loop { body, .. }, 0) => {
            let body = std::mem::take(body);
            splice(list, body);
        }
        (Stmt::While { bound, .. } | Stmt::For { bound, .. } | Stmt::Loop { bound, .. }, 1) if *bound > 1 => {
            *bound -= 1
        }
        (Stmt::While { bound, .. } | Stmt::For { bound, .. } | Stmt::Loop { bound, .. }, 2) if *bound > 1 => *bound = 1,
        (Stmt::Bulk { count, .. }, 0) if *count > 1 => *count /= 2,
        (Stmt::SharedAtomics { ops, .. }, w) if w < ops.len() && ops.len() > 1 => {
            ops.remove(w);
        }
        (Stmt::GlobalAtomic { keep, .. } | Stmt::OwnAtomic { keep, .. }, 0) if keep.is_some() => *keep = None,
        (Stmt::GlobalAtomic { order, .. }, 1) if order.is_some() => *order = None,
        (Stmt::Let { mutable, .. }, 0) if *mutable => *mutable = false,
        (Stmt::Array { len, .. }, 0) if *len > 1 => *len /= 2,
        _ => return false,
    }
    true
}

/// Variant `i` of simplifying expressions: expression `i / 8` in preorder (the kernel's, then
/// each helper's), replaced by 0, by 1, or by its operand `k` for `i % 8` = 2 + k.
fn simplify_exprs(p: &Program, i: usize) -> Option<Option<Program>> {
    let (target, way) = (i / 8, i % 8);
    let mut q = p.clone();
    let mut n = 0;
    let mut applied = None;
    let mut visit = |e: &mut Expr| {
        if n == target {
            applied = Some(simplify_expr(e, way));
        }
        n += 1;
    };
    visit_exprs_mut(&mut q.body, &mut visit);
    for h in &mut q.helpers {
        visit_exprs_mut(&mut h.body, &mut visit);
    }
    match applied {
        None => None,
        Some(true) => Some(Some(q)),
        Some(false) => Some(None),
    }
}

fn simplify_expr(e: &mut Expr, way: usize) -> bool {
    match way {
        0 | 1 => {
            let lit = ExprKind::Lit(way as u64 * one_bits(e.ty));
            if e.kind == lit {
                return false;
            }
            e.kind = lit;
            true
        }
        _ => {
            let ty = e.ty;
            let Some(child) = children_mut(e).into_iter().filter(|c| c.ty == ty).nth(way - 2) else {
                return false;
            };
            let child = child.clone();
            *e = child;
            true
        }
    }
}

/// The bits of 1 in `ty`.
fn one_bits(ty: crate::ast::Ty) -> u64 {
    use crate::ast::Ty;
    match ty {
        Ty::F16 => u64::from(half::f16::ONE.to_bits()),
        Ty::F32 => u64::from(1f32.to_bits()),
        Ty::F64 => 1f64.to_bits(),
        _ => 1,
    }
}

/// Variant `i` of the program-wide changes: drop a helper, a shared array, a parameter (with
/// its input), then drop the attribute, keep one workgroup, halve the grid in a dimension.
fn simplify_program(p: &Program, i: usize) -> Option<Option<Program>> {
    let mut q = p.clone();
    let (helpers, shared, params) = (q.helpers.len(), q.shared.len(), q.params.len());
    if i < helpers {
        q.helpers.remove(i);
        return Some(Some(q));
    }
    if i < helpers + shared {
        q.shared.remove(i - helpers);
        return Some(Some(q));
    }
    if i < helpers + shared + params {
        q.params.remove(i - helpers - shared);
        q.inputs.remove(i - helpers - shared);
        return Some(Some(q));
    }
    match i - helpers - shared - params {
        0 => q.workgroup_size_attr = false,
        1 => q.grid = q.block,
        d @ 2..=4 => {
            let d = d - 2;
            q.grid[d] = q.grid[d].div_ceil(2);
        }
        _ => return None,
    }
    Some(Some(q))
}
