//! Division and remainder pairs: where `x / y` and `x % y` (both signed or both unsigned, of
//! the same operands) are computed and one of them dominates the other, the remainder becomes
//! `x - (x / y) * y`, so the expansion of the division into a reciprocal and corrections, some
//! ten instructions at 32 bits and fifty at 64, is made once instead of twice (LLVM's
//! DivRemPairs does the same for the targets without a remainder instruction).
//!
//! The identity is exact for every input under the interpreter's rules, wrapping arithmetic
//! and RISC-V's division: `x / 0` is all ones and `x % 0` is `x` (`x - (-1) * 0`), and
//! `MIN / -1` is `MIN` with `MIN % -1` zero (`MIN - MIN * -1` wraps to 0). Division has no
//! effect, so when the remainder comes first the division moves up to just before it, where
//! its operands are defined since the remainder reads them too.
//!
//! One walk over the dominator tree with a scoped table of the first division or remainder of
//! each (signedness, operands), then one pass over the blocks to place what moved: linear in
//! the function.

use crate::rewrite::{make_at, walk_dominator_tree, ScopedTable};
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::DominatorTree;
use frontend_ir::{BinaryOp, Function, Inst, InstData, Value, ValueDef};
use smallvec::SmallVec;

/// A division or remainder's operation class: signedness and operands.
type Key = (bool, Value, Value);

/// A remainder to rewrite with its division.
struct Pair {
    div: Inst,
    rem: Inst,
    /// The division moves to just before the remainder.
    moves: bool,
}

/// Rewrites the remainders of `func` that have a division of the same operands next to them;
/// true if there were any.
pub fn div_rem(func: &mut Function) -> bool {
    let Some(entry) = func.entry() else { return false };
    // Most functions have no remainder: then nothing to pair, and no dominator tree to build.
    let rem = |i: &frontend_ir::Inst| {
        matches!(func.dfg.insts[*i], InstData::Binary { op: BinaryOp::Srem | BinaryOp::Urem, .. })
    };
    if !func.layout.iter().any(|&b| func.dfg.blocks[b].insts.iter().any(rem)) {
        return false;
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let mut pairs: Vec<Pair> = Vec::new();
    walk_dominator_tree(func, &domtree, entry, |func: &mut Function, block, table: &mut ScopedTable<Key>, added| {
        let dfg = &func.dfg;
        for &inst in &dfg.blocks[block].insts {
            let InstData::Binary { op, args } = dfg.insts[inst] else { continue };
            let (signed, is_div) = match op {
                BinaryOp::Sdiv => (true, true),
                BinaryOp::Udiv => (false, true),
                BinaryOp::Srem => (true, false),
                BinaryOp::Urem => (false, false),
                _ => continue,
            };
            let Some(result) = dfg.inst_result(inst) else { continue };
            let key = (signed, dfg.resolve_aliases(args[0]), dfg.resolve_aliases(args[1]));
            let Some(&first) = table.get(&key) else {
                table.insert(key, result);
                added.push(key);
                continue;
            };
            let ValueDef::Result(earlier) = dfg.values[first].def else { continue };
            let earlier_is_div =
                matches!(dfg.insts[earlier], InstData::Binary { op: BinaryOp::Sdiv | BinaryOp::Udiv, .. });
            match (earlier_is_div, is_div) {
                (true, false) => pairs.push(Pair { div: earlier, rem: inst, moves: false }),
                (false, true) => {
                    pairs.push(Pair { div: inst, rem: earlier, moves: true });
                    // The division now stands where the remainder was, in the same scope.
                    table.insert(key, result);
                }
                // Two divisions or two remainders: value numbering's.
                _ => {}
            }
        }
        false
    });
    if pairs.is_empty() {
        return false;
    }
    // What goes before each rewritten remainder, and the divisions that leave their place.
    let mut before: SecondaryMap<Inst, SmallVec<[Inst; 2]>> = SecondaryMap::with_capacity(func.dfg.insts.len());
    let mut moved: SecondaryMap<Inst, bool> = SecondaryMap::with_capacity(func.dfg.insts.len());
    for pair in &pairs {
        let InstData::Binary { args: [x, y], .. } = func.dfg.insts[pair.rem] else { unreachable!("a remainder") };
        let quotient = func.dfg.inst_result(pair.div).expect("a division has a result");
        let ty = func.dfg.value_type(quotient);
        let (mul, product) = make_at(func, InstData::Binary { op: BinaryOp::Mul, args: [quotient, y] }, ty, pair.rem);
        func.dfg.insts[pair.rem] = InstData::Binary { op: BinaryOp::Sub, args: [x, product] };
        if pair.moves {
            moved[pair.div] = true;
            before[pair.rem].push(pair.div);
        }
        before[pair.rem].push(mul);
    }
    for &block in &func.layout {
        let insts = &func.dfg.blocks[block].insts;
        if !insts.iter().any(|&i| moved[i] || !before[i].is_empty()) {
            continue;
        }
        let mut placed = Vec::with_capacity(insts.len() + 2);
        for &i in insts {
            placed.extend_from_slice(&before[i]);
            if !moved[i] {
                placed.push(i);
            }
        }
        func.dfg.blocks[block].insts = placed;
    }
    true
}

#[cfg(test)]
mod tests {
    use frontend_ir::interp::eval::binary;
    use frontend_ir::{BinaryOp, Type};

    /// The identity the pass rests on, `x % y == x - (x / y) * y`, holds in the interpreter's
    /// arithmetic for every pair of edge values, signed and unsigned, at 32 and 64 bits.
    #[test]
    fn remainder_is_dividend_less_quotient_times_divisor() {
        for (ty, bits) in [(Type::I32, 32), (Type::I64, 64)] {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let min = 1u64 << (bits - 1);
            let edges = [0, 1, 2, 3, 7, mask, mask - 1, min, min - 1, min + 1, 0x5555_5555, 1 << 20];
            for &x in &edges {
                for &y in &edges {
                    for (div, rem) in [(BinaryOp::Sdiv, BinaryOp::Srem), (BinaryOp::Udiv, BinaryOp::Urem)] {
                        let q = binary(div, ty, x, y);
                        let product = binary(BinaryOp::Mul, ty, q, y);
                        let rebuilt = binary(BinaryOp::Sub, ty, x, product);
                        assert_eq!(binary(rem, ty, x, y), rebuilt, "{rem:?} {x:#x} {y:#x} at {bits} bits");
                    }
                }
            }
        }
    }
}
