//! Dead-code elimination: an instruction whose result nothing live uses and that has no
//! effect (no store, atomic, fence, barrier, call, volatile access or branch) is removed, and
//! so is a block parameter nothing live uses, with the arguments every branch passes it.
//!
//! Liveness starts at the instructions with effects and flows backwards through operands,
//! and from a live block parameter to the arguments of the branches into its block (a
//! worklist over values, each visited once: linear in the function). A load that nothing uses
//! is removed like any other value, as every compiler does; wave operations without a use
//! too.

use crate::rewrite::resolve_operands;
use cranelift_entity::SecondaryMap;
use frontend_ir::{Block, Function, Inst, Value, ValueDef};

/// Removes the dead instructions and block parameters of `func`; true if any.
pub fn dce(func: &mut Function) -> bool {
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(func.dfg.values.len());
    let mut work: Vec<Value> = Vec::new();
    // The branches into each block, as (block, the instruction) in one list sorted by block.
    let mut calls: Vec<(Block, Inst)> = Vec::new();
    for i in 0..func.layout.len() {
        let block = func.layout[i];
        for j in 0..func.dfg.blocks[block].insts.len() {
            let inst = func.dfg.blocks[block].insts[j];
            resolve_operands(&mut func.dfg, inst);
            let data = &func.dfg.insts[inst];
            calls.extend(data.block_calls().iter().map(|call| (call.block, inst)));
            if data.has_side_effects() {
                work.extend_from_slice(data.args());
            }
        }
    }
    calls.sort_unstable_by_key(|&(b, i)| (b, i));
    calls.dedup();
    let dfg = &func.dfg;
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut live[v], true) {
            continue;
        }
        match dfg.values[v].def {
            ValueDef::Result(inst) => work.extend(dfg.insts[inst].args().iter().filter(|&&a| !live[a])),
            ValueDef::Param(block, index) => {
                let first = calls.partition_point(|&(b, _)| b < block);
                for &(_, inst) in calls[first..].iter().take_while(|&&(b, _)| b == block) {
                    for call in dfg.insts[inst].block_calls().iter().filter(|c| c.block == block) {
                        work.push(call.args[index as usize]);
                    }
                }
            }
            ValueDef::Alias(_) | ValueDef::Pending => {}
        }
    }

    let mut changed = false;
    let entry = func.entry();
    for &block in &func.layout {
        let dfg = &mut func.dfg;
        let before = dfg.blocks[block].insts.len();
        let mut insts = std::mem::take(&mut dfg.blocks[block].insts);
        insts.retain(|&inst| dfg.insts[inst].has_side_effects() || dfg.inst_result(inst).is_some_and(|r| live[r]));
        changed |= insts.len() != before;
        dfg.blocks[block].insts = insts;
        if Some(block) == entry || dfg.blocks[block].params.iter().all(|&p| live[p]) {
            continue;
        }
        // Drop the dead parameters and their arguments; the others are renumbered.
        let keep: Vec<bool> = dfg.blocks[block].params.iter().map(|&p| live[p]).collect();
        let first = calls.partition_point(|&(b, _)| b < block);
        for &(_, inst) in calls[first..].iter().take_while(|&&(b, _)| b == block) {
            for call in dfg.insts[inst].block_calls_mut().iter_mut().filter(|c| c.block == block) {
                let mut k = keep.iter();
                call.args.retain(|_| *k.next().unwrap_or(&true));
            }
        }
        let mut params = std::mem::take(&mut dfg.blocks[block].params);
        params.retain(|&p| live[p]);
        for (index, &p) in params.iter().enumerate() {
            dfg.values[p].def = ValueDef::Param(block, index as u32);
        }
        dfg.blocks[block].params = params;
        changed = true;
    }
    changed
}
