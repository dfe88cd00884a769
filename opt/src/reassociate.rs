//! Reassociation of integer and address arithmetic: constants move outward, to the last
//! operation of a chain, where they meet and fold, and where instruction selection finds them
//! for a memory instruction's offset field; what remains inside is shared by value numbering
//! (the copies of an unrolled loop then compute one base address, not one each).
//!
//! The rewrites, all exact in wrapping arithmetic of one width (as the interpreter computes):
//!
//! ```text
//!  c + x            → x + c                  (commutative operations: constant second)
//!  x - c            → x + (-c)
//!  (x + c1) + c2    → x + (c1 + c2)
//!  (x + c) + y      → (x + y) + c            (y not a constant)
//!  (x + c1) * c2    → x * c2 + c1 * c2
//!  (x + c1) << c2   → (x << c2) + (c1 << c2)
//!  ptradd(p, x + c) → ptradd(ptradd(p, x), c)        (offset as wide as the pointer)
//!  ptradd(ptradd(p, c), x) → ptradd(ptradd(p, x), c)
//!  ptradd(ptradd(p, c1), c2) → ptradd(p, c1 + c2)
//! ```
//!
//! A rewrite that would leave the inner operation alive beside the new one (an inner value
//! with another use) is not made, so no rewrite adds work; `(x + c1) + c2` is rewritten
//! whatever else reads `x + c1`, since it makes no new instruction (and a chain of counter
//! steps becomes steps from one value). Constants are computed by the
//! interpreter's own arithmetic ([`frontend_ir::interp::eval`]).

use crate::rewrite::{constant, is_commutative, make_at, resolve_operands};
use cranelift_entity::SecondaryMap;
use frontend_ir::interp::eval;
use frontend_ir::{BinaryOp, Function, Inst, InstData, Type, Value, ValueDef};

/// Reassociates the integer and address arithmetic of `func`; true if anything changed.
pub fn reassociate(func: &mut Function) -> bool {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::with_capacity(func.dfg.values.len());
    for bi in 0..func.layout.len() {
        for ii in 0..func.dfg.blocks[func.layout[bi]].insts.len() {
            let inst = func.dfg.blocks[func.layout[bi]].insts[ii];
            resolve_operands(&mut func.dfg, inst);
        }
    }
    for (_, inst) in func.insts_in_layout() {
        let data = &func.dfg.insts[inst];
        for &a in data.args() {
            uses[a] += 1;
        }
        for call in data.block_calls() {
            for &a in &call.args {
                uses[a] += 1;
            }
        }
    }
    let mut changed = false;
    for bi in 0..func.layout.len() {
        let block = func.layout[bi];
        let old = std::mem::take(&mut func.dfg.blocks[block].insts);
        let mut insts = Vec::with_capacity(old.len());
        for inst in old {
            let mut r = Rewriter { func: &mut *func, uses: &mut uses, out: &mut insts, at: inst };
            changed |= r.rewrite();
            insts.push(inst);
        }
        func.dfg.blocks[block].insts = insts;
    }
    changed
}

/// Rewrites one instruction, `at`, in place, putting the instructions it needs before it.
struct Rewriter<'a> {
    func: &'a mut Function,
    uses: &'a mut SecondaryMap<Value, u32>,
    /// The block's instructions so far.
    out: &'a mut Vec<Inst>,
    at: Inst,
}

impl Rewriter<'_> {
    /// Applies the first rewrite that matches, repeatedly; true if any did.
    fn rewrite(&mut self) -> bool {
        let mut changed = false;
        // Each rewrite moves a constant outward or merges two, so this ends; the bound is a
        // guard, not a limit reached in practice.
        for _ in 0..8 {
            if !self.step() {
                break;
            }
            changed = true;
        }
        changed
    }

    /// One rewrite of the instruction, if one applies.
    fn step(&mut self) -> bool {
        let c = |r: &Self, v: Value| constant(&r.func.dfg, v);
        let ty_of = |r: &Self, v: Value| r.func.dfg.value_type(v);
        match self.func.dfg.insts[self.at] {
            InstData::Binary { op, args: [a, b] } if ty_of(self, a).is_int() => {
                let ty = ty_of(self, a);
                match (c(self, a), c(self, b)) {
                    (Some(_), None) if is_commutative(op) => {
                        self.set(InstData::Binary { op, args: [b, a] });
                        return true;
                    }
                    (Some(_), _) => return false,
                    _ => {}
                }
                let Some(k) = c(self, b) else {
                    // (x + c) + y → (x + y) + c.
                    if op == BinaryOp::Add {
                        for (inner, other) in [(a, b), (b, a)] {
                            if let Some((x, k)) = self.plus_constant(inner) {
                                let sum = self.emit(InstData::Binary { op, args: [x, other] }, ty);
                                let k = self.int_const(ty, k);
                                self.set(InstData::Binary { op, args: [sum, k] });
                                return true;
                            }
                        }
                    }
                    return false;
                };
                if op == BinaryOp::Sub {
                    let neg = self.int_const(ty, eval::binary(BinaryOp::Sub, ty, 0, k));
                    self.set(InstData::Binary { op: BinaryOp::Add, args: [a, neg] });
                    return true;
                }
                if op == BinaryOp::Add {
                    // Reads `x` in place of `x + c1` without a new instruction, so whatever
                    // else reads `x + c1` (the counters of an unrolled loop's copies do).
                    let Some((x, k1)) = self.sum_with_constant(a) else { return false };
                    let k = self.int_const(ty, eval::binary(op, ty, k1, k));
                    self.set(InstData::Binary { op, args: [x, k] });
                    return true;
                }
                let Some((x, k1)) = self.plus_constant(a) else { return false };
                match op {
                    BinaryOp::Mul | BinaryOp::Shl => {
                        let scaled = self.emit(InstData::Binary { op, args: [x, b] }, ty);
                        let k = self.int_const(ty, eval::binary(op, ty, k1, k));
                        self.set(InstData::Binary { op: BinaryOp::Add, args: [scaled, k] });
                        true
                    }
                    _ => false,
                }
            }
            InstData::PtrAdd { args: [p, offset] } if ty_of(self, offset).bits() == ty_of(self, p).bits() => {
                let ty = ty_of(self, p);
                let offset_ty = ty_of(self, offset);
                if let Some((x, k)) = self.plus_constant(offset) {
                    let base = self.emit(InstData::PtrAdd { args: [p, x] }, ty);
                    let k = self.int_const(offset_ty, k);
                    self.set(InstData::PtrAdd { args: [base, k] });
                    return true;
                }
                let ValueDef::Result(inner) = self.func.dfg.values[p].def else { return false };
                let InstData::PtrAdd { args: [q, k1] } = self.func.dfg.insts[inner] else { return false };
                let (Some(k1), true) = (c(self, k1), self.uses[p] == 1 && ty_of(self, k1) == offset_ty) else {
                    return false;
                };
                match c(self, offset) {
                    Some(k2) => {
                        let k = self.int_const(offset_ty, eval::binary(BinaryOp::Add, offset_ty, k1, k2));
                        self.set(InstData::PtrAdd { args: [q, k] });
                    }
                    None => {
                        let base = self.emit(InstData::PtrAdd { args: [q, offset] }, ty);
                        let k = self.int_const(offset_ty, k1);
                        self.set(InstData::PtrAdd { args: [base, k] });
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// When `v` is `x + c` used only here: `x` and `c`.
    fn plus_constant(&self, v: Value) -> Option<(Value, u64)> {
        self.sum_with_constant(v).filter(|_| self.uses[v] == 1)
    }

    /// When `v` is `x + c`, `x` not a constant: `x` and `c`.
    fn sum_with_constant(&self, v: Value) -> Option<(Value, u64)> {
        let dfg = &self.func.dfg;
        let ValueDef::Result(inst) = dfg.values[v].def else { return None };
        let InstData::Binary { op: BinaryOp::Add, args: [x, k] } = dfg.insts[inst] else { return None };
        let k = constant(dfg, k)?;
        constant(dfg, x).is_none().then_some((x, k))
    }

    /// Replaces the instruction's operation (its result stays).
    fn set(&mut self, data: InstData) {
        for &a in self.func.dfg.insts[self.at].args() {
            self.uses[a] -= 1;
        }
        for &a in data.args() {
            self.uses[a] += 1;
        }
        self.func.dfg.insts[self.at] = data;
    }

    /// A new instruction of result type `ty` before the one rewritten, at its source location.
    fn emit(&mut self, data: InstData, ty: Type) -> Value {
        for &a in data.args() {
            self.uses[a] += 1;
        }
        let (inst, result) = make_at(self.func, data, ty, self.at);
        self.out.push(inst);
        result
    }

    /// A new integer constant of type `ty`.
    fn int_const(&mut self, ty: Type, imm: u64) -> Value {
        self.emit(InstData::IntConst { ty, imm: imm & ty.mask() }, ty)
    }
}
