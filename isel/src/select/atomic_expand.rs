//! Compare-and-swap loops for the float atomics a target has no instruction for (gfx942: f32
//! global min/max; gfx1100: f64 global add, min and max, and LDS f64 add; everywhere: `fsub`),
//! built in the IR before selection so the rest of the pipeline (divergence, the loop's exec
//! masks, register allocation) sees an ordinary loop, and so the new value is computed by the
//! IR's own float operation, exactly as the reference interpreter computes it.
//!
//! `%r = atomic_rmw.OP %p, %v sync` in block B becomes
//!
//! ```text
//! B:      ...                                  (what came before the atomic)
//!         %init = atomic_load.iN %p relaxed S   (S: the atomic's scope)
//!         jump loop(%init)
//! loop(%old: iN):
//!         %oldf = bitcast.fN %old
//!         %newf = OP %oldf, %v                (fmin/fmax: a NaN if either is signalling)
//!         %new  = bitcast.iN %newf
//!         %cur  = atomic_cas %p, %old, %new sync
//!         %ok   = icmp eq %cur, %old
//!         %r    = bitcast.fN %cur               (the old value, as the atomic gave it)
//!         brif %ok, rest, loop(%cur)
//! rest:   ...                                  (what came after it, the terminator included)
//! ```
//!
//! Every instruction of the loop takes the source location of the atomic it replaces, so an
//! error about any of them names the atomic's line.
//!
//! The compare is on the bits, so a NaN or a negative zero in memory does not loop forever.
//! The atomic's ordering and scope go on the compare-and-swap, as LLVM's AtomicExpand does;
//! the first load is relaxed at the same scope (its cache bits read the value at that scope).

use frontend_ir::{
    BinaryOp, BlockCall, ConvOp, FloatCC, FuncId, InstData, IntCC, Module, Ordering, RmwOp, SyncInfo, Type, Value,
    ValueDef,
};
use isa::opcode::Family;

/// The module with `kernel`'s unsupported float atomics expanded, or `None` when it has none.
pub(crate) fn expand(module: &Module, kernel: FuncId, family: Family) -> Option<Module> {
    let func = &module.functions[kernel];
    let needs = |data: &InstData| match *data {
        InstData::AtomicRmw { op, args: [ptr, value], .. } if op.is_float() => {
            let shared = func.dfg.value_type(ptr).addr_space() == Some(frontend_ir::AddrSpace::Shared);
            !super::memory::native_rmw(family, op, func.dfg.value_type(value), shared)
        }
        _ => false,
    };
    if !func.insts_in_layout().any(|(_, i)| needs(&func.dfg.insts[i])) {
        return None;
    }
    let mut module = module.clone();
    let func = &mut module.functions[kernel];
    let mut at = 0;
    while at < func.layout.len() {
        let block = func.layout[at];
        let found = func.dfg.blocks[block].insts.iter().position(|&i| needs(&func.dfg.insts[i]));
        if let Some(index) = found {
            split_at(func, at, index);
        }
        at += 1;
    }
    Some(module)
}

/// Replaces the atomic at `index` in the block at layout position `at` with the loop; the
/// block's remaining instructions move to a new block after the loop (visited next by
/// [`expand`], so later atomics of the same block are expanded too).
fn split_at(func: &mut frontend_ir::Function, at: usize, index: usize) {
    let block = func.layout[at];
    let atomic = func.dfg.blocks[block].insts[index];
    let InstData::AtomicRmw { op, args: [ptr, value], sync } = func.dfg.insts[atomic] else {
        unreachable!("split_at is called on an atomic_rmw");
    };
    let result = func.dfg.inst_result(atomic).expect("atomic_rmw has a result");
    let fty = func.dfg.value_type(value);
    let ity = if fty.bits() == 64 { Type::I64 } else { Type::I32 };
    let dfg = &mut func.dfg;
    let rest_insts = dfg.blocks[block].insts.split_off(index + 1);
    dfg.blocks[block].insts.pop();
    dfg.results[atomic] = None.into();

    let lp = dfg.make_block();
    let rest = dfg.make_block();
    dfg.blocks[rest].insts = rest_insts;

    let relaxed = SyncInfo { ordering: Ordering::Relaxed, scope: sync.scope, av_none: false };
    let init = dfg.make_inst(InstData::AtomicLoad { ty: ity, ptr, sync: relaxed }, Some(ity));
    let init_v = dfg.inst_result(init).expect("a load has a result");
    let jump =
        dfg.make_inst(InstData::Jump { dest: BlockCall { block: lp, args: [init_v].into_iter().collect() } }, None);
    dfg.blocks[block].insts.extend([init, jump]);

    let old = dfg.append_block_param(lp, ity);
    let mut body = Vec::new();
    let mut push = |dfg: &mut frontend_ir::DataFlowGraph, data: InstData, ty: Option<Type>| -> Value {
        let inst = dfg.make_inst(data, ty);
        body.push(inst);
        dfg.inst_result(inst).expect("each instruction of the loop body has a result")
    };
    let oldf = push(dfg, InstData::Convert { op: ConvOp::Bitcast, ty: fty, arg: old }, Some(fty));
    let binop = match op {
        RmwOp::Fadd => BinaryOp::Fadd,
        RmwOp::Fsub => BinaryOp::Fsub,
        RmwOp::Fmin => BinaryOp::Fmin,
        _ => BinaryOp::Fmax,
    };
    let mut newf = push(dfg, InstData::Binary { op: binop, args: [oldf, value] }, Some(fty));
    if matches!(op, RmwOp::Fmin | RmwOp::Fmax) {
        // minNum/maxNum of IEEE 754-2008 (what `RmwOp::Fmin` means): a signalling NaN
        // operand gives a quiet NaN, which the sum of the operands is.
        let quiet_bit = if fty.bits() == 64 { 1 << 51 } else { 1 << 22 };
        let qbit = push(dfg, InstData::IntConst { ty: ity, imm: quiet_bit }, Some(ity));
        let zero = push(dfg, InstData::IntConst { ty: ity, imm: 0 }, Some(ity));
        let vbits = push(dfg, InstData::Convert { op: ConvOp::Bitcast, ty: ity, arg: value }, Some(ity));
        let mut signalling = [vbits; 2];
        for (flag, (f, bits)) in signalling.iter_mut().zip([(oldf, old), (value, vbits)]) {
            let nan = push(dfg, InstData::Fcmp { cc: FloatCC::Uno, args: [f, f] }, Some(Type::I1));
            let q = push(dfg, InstData::Binary { op: BinaryOp::And, args: [bits, qbit] }, Some(ity));
            let clear = push(dfg, InstData::Icmp { cc: IntCC::Eq, args: [q, zero] }, Some(Type::I1));
            *flag = push(dfg, InstData::Binary { op: BinaryOp::And, args: [nan, clear] }, Some(Type::I1));
        }
        let either = push(dfg, InstData::Binary { op: BinaryOp::Or, args: signalling }, Some(Type::I1));
        let nan = push(dfg, InstData::Binary { op: BinaryOp::Fadd, args: [oldf, value] }, Some(fty));
        newf = push(dfg, InstData::Select { args: [either, nan, newf] }, Some(fty));
    }
    let new = push(dfg, InstData::Convert { op: ConvOp::Bitcast, ty: ity, arg: newf }, Some(ity));
    let cur = push(dfg, InstData::AtomicCas { args: [ptr, old, new], sync }, Some(ity));
    let ok = push(dfg, InstData::Icmp { cc: IntCC::Eq, args: [cur, old] }, Some(Type::I1));
    // The atomic's result becomes the loop's last bitcast, so its uses stay as they are.
    let back = dfg.make_inst(InstData::Convert { op: ConvOp::Bitcast, ty: fty, arg: cur }, None);
    dfg.results[back] = result.into();
    dfg.values[result].def = ValueDef::Result(back);
    body.push(back);
    let dests = Box::new([
        BlockCall { block: rest, args: Default::default() },
        BlockCall { block: lp, args: [cur].into_iter().collect() },
    ]);
    body.push(dfg.make_inst(InstData::Brif { cond: ok, dests }, None));
    dfg.blocks[lp].insts = body;
    func.layout.splice(at + 1..at + 1, [lp, rest]);
    let loc = func.srclocs[atomic];
    if !loc.is_none() {
        for &inst in [init, jump].iter().chain(&func.dfg.blocks[lp].insts) {
            func.srclocs[inst] = loc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend_ir::parser::parse_module;

    /// The loop's instructions are all at the atomic's text; the others keep their own.
    #[test]
    fn the_loop_keeps_the_location_of_the_atomic() {
        let src = "kernel @k(ptr<global>, f32) {\nblock0(%p: ptr<global>, %v: f32):\n    \
                   %r = atomic_rmw.fsub %p, %v relaxed agent\n    store %p, %r\n    ret\n}\n";
        let module = parse_module(src).unwrap();
        let kernel = module.kernels().next().unwrap().0;
        let expanded = expand(&module, kernel, Family::Gfx11).expect("fsub is expanded everywhere");
        let func = &expanded.functions[kernel];
        assert_eq!(func.layout.len(), 3);
        let text = |i| func.srclocs[i].range().map(|r| &src[r]);
        let atomic = Some("%r = atomic_rmw.fsub %p, %v relaxed agent");
        let (entry, lp, rest) = (func.layout[0], func.layout[1], func.layout[2]);
        let entry_tail = &func.dfg.blocks[entry].insts[..];
        assert!(entry_tail.iter().all(|&i| text(i) == atomic), "the first load and the jump");
        assert_eq!(func.dfg.blocks[lp].insts.len(), 7);
        assert!(func.dfg.blocks[lp].insts.iter().all(|&i| text(i) == atomic), "the loop");
        let after: Vec<Option<&str>> = func.dfg.blocks[rest].insts.iter().map(|&i| text(i)).collect();
        assert_eq!(after, [Some("store %p, %r"), Some("ret")]);
    }
}
