//! Constant folding and algebraic simplification, with exactly the reference interpreter's
//! semantics: an instruction whose operands are all constants becomes the constant the
//! interpreter's own arithmetic ([`frontend_ir::interp::eval`]) computes, and an instruction
//! that an exact identity makes equal to one of its operands is replaced by it.
//!
//! The identities are integer ones (`x + 0`, `x * 1`, `x * 0`, `x & x`, `x ^ x`, shifts by a
//! multiple of the width, division by 1, ...), `select` with a constant or twice the same
//! operand, and comparisons of a value with itself. No float identity is used: `x * 1.0`
//! quiets a signalling NaN and `x + 0.0` turns `-0` into `+0`, so none is exact. The
//! approximate functions (`rsqrt exp2 log2 sin cos`) are not folded, so every level computes
//! them alike. A block parameter that every predecessor passes the same value (or itself) is
//! replaced by that value; dead-code elimination removes it. A kernel with a required
//! workgroup size has its `group_size` as constants.

use crate::rewrite::{constant, replace, resolve_operands};
use cranelift_entity::SecondaryMap;
use frontend_ir::interp::eval;
use frontend_ir::{BinaryOp, DataFlowGraph, Function, InstData, IntCC, Special, Type, UnaryOp, Value, ValueDef};

/// What an instruction simplifies to.
enum Folded {
    /// A constant of the result's type, as bits.
    Constant(u64),
    /// One of the values it already has.
    Value(Value),
}

/// Folds and simplifies every instruction and block parameter of `func`; true if any changed.
pub fn fold(func: &mut Function) -> bool {
    let mut changed = fold_params(func);
    let required = func.kernel_attrs().and_then(|a| a.reqd_workgroup_size);
    for &block in &func.layout {
        let mut insts = std::mem::take(&mut func.dfg.blocks[block].insts);
        insts.retain(|&inst| {
            resolve_operands(&mut func.dfg, inst);
            let Some(result) = func.dfg.inst_result(inst) else { return true };
            let ty = func.dfg.value_type(result);
            let folded = dispatch_constant(&required, &func.dfg.insts[inst])
                .map(Folded::Constant)
                .or_else(|| simplify(&func.dfg, &func.dfg.insts[inst], ty));
            match folded {
                None => true,
                Some(Folded::Constant(bits)) => {
                    func.dfg.insts[inst] = if ty.is_float() {
                        InstData::FloatConst { ty, bits }
                    } else {
                        InstData::IntConst { ty, imm: bits & ty.mask() }
                    };
                    changed = true;
                    true
                }
                Some(Folded::Value(v)) => {
                    replace(&mut func.dfg, result, v);
                    func.dfg.results[inst] = None.into();
                    changed = true;
                    false
                }
            }
        });
        func.dfg.blocks[block].insts = insts;
    }
    changed
}

/// Replaces each block parameter whose incoming values are all one value (the parameter
/// itself aside) by that value; the entry block's parameters are the function's and stay.
fn fold_params(func: &mut Function) -> bool {
    /// Per parameter: the one value seen so far, or a conflict.
    #[derive(Copy, Clone, Default, PartialEq)]
    enum Incoming {
        #[default]
        None,
        One(Value),
        Many,
    }
    let dfg = &func.dfg;
    let mut incoming: SecondaryMap<Value, Incoming> = SecondaryMap::with_capacity(dfg.values.len());
    for (_, inst) in func.insts_in_layout() {
        for call in dfg.insts[inst].block_calls() {
            for (&param, &arg) in dfg.blocks[call.block].params.iter().zip(&call.args) {
                let arg = dfg.resolve_aliases(arg);
                incoming[param] = match incoming[param] {
                    _ if arg == param => incoming[param],
                    Incoming::None => Incoming::One(arg),
                    Incoming::One(v) if v == arg => Incoming::One(v),
                    _ => Incoming::Many,
                };
            }
        }
    }
    let entry = func.entry();
    let mut changed = false;
    for &block in func.layout.iter().filter(|&&b| Some(b) != entry) {
        for i in 0..func.dfg.blocks[block].params.len() {
            let param = func.dfg.blocks[block].params[i];
            if let Incoming::One(v) = incoming[param] {
                if func.dfg.resolve_aliases(param) == param {
                    replace(&mut func.dfg, param, v);
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The value of a dispatch's geometry that a kernel's required workgroup size (`required`)
/// decides: its size in each dimension, and a local id of 0 in a dimension of size 1 (a
/// launch of another size is refused before the kernel runs, by the interpreter and the
/// emulator alike).
fn dispatch_constant(required: &Option<[u32; 3]>, data: &InstData) -> Option<u64> {
    let required = (*required)?;
    match *data {
        InstData::Special { value: Special::GroupSize(d) } => Some(u64::from(required[d.index()])),
        InstData::Special { value: Special::LocalId(d) } if required[d.index()] == 1 => Some(0),
        _ => None,
    }
}

/// What `data`, whose result has type `ty`, simplifies to, if anything.
fn simplify(dfg: &DataFlowGraph, data: &InstData, ty: Type) -> Option<Folded> {
    let c = |v: Value| constant(dfg, v);
    if matches!(data, InstData::IntConst { .. } | InstData::FloatConst { .. }) {
        return None;
    }
    if let Some(bits) = evaluate(dfg, data, ty, c) {
        return Some(Folded::Constant(bits));
    }
    match *data {
        InstData::Unary { op, arg } if matches!(op, UnaryOp::Neg | UnaryOp::Not | UnaryOp::Fneg) => {
            // -(-x), !!x, fneg(fneg x): the same bits.
            let ValueDef::Result(inner) = dfg.values[arg].def else { return None };
            match dfg.insts[inner] {
                InstData::Unary { op: inner_op, arg: x } if inner_op == op => Some(Folded::Value(x)),
                _ => None,
            }
        }
        InstData::Binary { op, args: [a, b] } if dfg.value_type(a).is_int() => {
            integer_identity(op, dfg.value_type(a), a, b, c(a), c(b))
        }
        InstData::Select { args: [cond, t, f] } => match c(cond) {
            Some(x) => Some(Folded::Value(if x & 1 == 1 { t } else { f })),
            None if t == f => Some(Folded::Value(t)),
            None => None,
        },
        InstData::Icmp { cc, args: [a, b] } if a == b => {
            let holds = matches!(cc, IntCC::Eq | IntCC::Ule | IntCC::Uge | IntCC::Sle | IntCC::Sge);
            Some(Folded::Constant(u64::from(holds)))
        }
        _ => None,
    }
}

/// The constant that `data` (whose result has type `ty`) computes when the operands it needs
/// are constants, as `c` gives them, with the interpreter's arithmetic; `None` for anything
/// else, and for the approximate functions, which every level computes alike at run time.
/// Unrolling evaluates loop control with it too (`crate::unroll`).
pub(crate) fn evaluate(
    dfg: &DataFlowGraph,
    data: &InstData,
    ty: Type,
    c: impl Fn(Value) -> Option<u64>,
) -> Option<u64> {
    let arg_ty = |v: Value| dfg.value_type(v);
    match *data {
        InstData::IntConst { imm, .. } => Some(imm),
        InstData::FloatConst { bits, .. } => Some(bits),
        InstData::Unary { op, arg } => {
            let approximate =
                matches!(op, UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos);
            (!approximate).then(|| Some(eval::unary(op, ty, c(arg)?)))?
        }
        InstData::Binary { op, args: [a, b] } => Some(eval::binary(op, arg_ty(a), c(a)?, c(b)?)),
        InstData::Fma { args: [a, b, d] } => Some(eval::fma(ty, c(a)?, c(b)?, c(d)?)),
        InstData::Select { args: [cond, t, f] } => c(if c(cond)? & 1 == 1 { t } else { f }),
        InstData::Icmp { cc, args: [a, b] } => Some(u64::from(eval::icmp(cc, arg_ty(a), c(a)?, c(b)?))),
        InstData::Fcmp { cc, args: [a, b] } => Some(u64::from(eval::fcmp(cc, arg_ty(a), c(a)?, c(b)?))),
        InstData::Convert { op, ty: to, arg } => {
            let from = arg_ty(arg);
            (!from.is_ptr() && !to.is_ptr()).then(|| Some(eval::convert(op, from, to, c(arg)?)))?
        }
        _ => None,
    }
}

/// The exact integer identities of `a op b` (of type `t`), given which operands are constant.
fn integer_identity(op: BinaryOp, t: Type, a: Value, b: Value, ca: Option<u64>, cb: Option<u64>) -> Option<Folded> {
    let m = t.mask();
    let is = |c: Option<u64>, k: u64| c.is_some_and(|x| x & m == k & m);
    let shift_by_width = |c: Option<u64>| c.is_some_and(|x| (x & m).is_multiple_of(u64::from(t.bits())));
    let same = a == b;
    use BinaryOp::*;
    let value = |v| Some(Folded::Value(v));
    let zero = Some(Folded::Constant(0));
    match op {
        Add if is(cb, 0) => value(a),
        Add if is(ca, 0) => value(b),
        Sub if is(cb, 0) => value(a),
        Sub | Xor if same => zero,
        Mul if is(cb, 1) => value(a),
        Mul if is(ca, 1) => value(b),
        Mul | And if is(ca, 0) || is(cb, 0) => zero,
        And if is(cb, m) || same => value(a),
        And if is(ca, m) => value(b),
        Or | Xor if is(cb, 0) => value(a),
        Or | Xor if is(ca, 0) => value(b),
        Or if is(ca, m) || is(cb, m) => Some(Folded::Constant(m)),
        Or | Smin | Smax | Umin | Umax if same => value(a),
        Shl | Lshr | Ashr if shift_by_width(cb) => value(a),
        Udiv | Sdiv if is(cb, 1) => value(a),
        Urem | Srem if is(cb, 1) => zero,
        _ => None,
    }
}
