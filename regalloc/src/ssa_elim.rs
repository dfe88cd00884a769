//! SSA elimination after register assignment: each phi becomes a parallel copy at the end of
//! its predecessors (logical phis before the predecessor's `p_logical_end`, while its lanes
//! are still active; linear phis before its final branch), and every parallel copy becomes
//! moves, ordered and with cycles broken by [`crate::parallel_copy::resolve`].

use crate::parallel_copy::{resolve, Source, Step};
use crate::trivial::Allocation;
use crate::AllocError;
use isa::mir::{Def, Function, Inst, Operand, OperandKind};
use isa::opcode::Opcode;
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType};

/// Whether an instruction is one of the branches or program ends that close a block.
fn is_block_end(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::PBranch
            | Opcode::PCbranchExecz
            | Opcode::PCbranchScc0
            | Opcode::SBranch
            | Opcode::SCbranchScc0
            | Opcode::SCbranchScc1
            | Opcode::SCbranchVccz
            | Opcode::SCbranchVccnz
            | Opcode::SCbranchExecz
            | Opcode::SCbranchExecnz
            | Opcode::SEndpgm
    )
}

/// Replaces every phi by parallel copies in its predecessors.
pub fn eliminate_phis(func: &mut Function) {
    for b in 0..func.blocks.len() {
        let phis: Vec<Inst> = func.blocks[b]
            .insts
            .iter()
            .filter(|i| matches!(i.opcode, Opcode::PPhi | Opcode::PLinearPhi))
            .cloned()
            .collect();
        if phis.is_empty() {
            continue;
        }
        func.blocks[b].insts.retain(|i| !matches!(i.opcode, Opcode::PPhi | Opcode::PLinearPhi));
        for linear in [false, true] {
            let preds =
                if linear { func.blocks[b].linear_preds.clone() } else { func.blocks[b].logical_preds.clone() };
            for (k, &pred) in preds.iter().enumerate() {
                let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
                for phi in phis.iter().filter(|p| (p.opcode == Opcode::PLinearPhi) == linear) {
                    copy.defs.push(phi.defs[0]);
                    copy.ops.push(phi.ops[k]);
                }
                if copy.defs.is_empty() {
                    continue;
                }
                let insts = &mut func.blocks[pred as usize].insts;
                let at = if linear {
                    insts.iter().rposition(|i| !is_block_end(i.opcode)).map_or(0, |p| p + 1)
                } else {
                    insts
                        .iter()
                        .position(|i| i.opcode == Opcode::PLogicalEnd)
                        .unwrap_or_else(|| insts.iter().rposition(|i| !is_block_end(i.opcode)).map_or(0, |p| p + 1))
                };
                insts.insert(at, copy);
            }
        }
    }
}

/// Rewrites `p_split_vector` and `p_create_vector` as parallel copies between the tuple's
/// registers and its parts' (after assignment, when the registers are known).
pub fn lower_vectors(func: &mut Function) -> Result<(), AllocError> {
    for block in &mut func.blocks {
        for inst in block.insts.iter_mut() {
            let (split, tuple) = match inst.opcode {
                Opcode::PSplitVector => (true, inst.ops.first().copied()),
                Opcode::PCreateVector => (false, None),
                _ => continue,
            };
            let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
            let mut offset = 0u16;
            if split {
                let tuple = tuple.ok_or(AllocError::Unassigned)?;
                let base = tuple.reg.ok_or(AllocError::Unassigned)?;
                for d in &inst.defs {
                    copy.defs.push(*d);
                    copy.ops.push(Operand::phys(base.advance(offset), d.rc));
                    offset += d.rc.size as u16;
                }
            } else {
                let whole = inst.defs[0];
                let base = whole.reg.ok_or(AllocError::Unassigned)?;
                for op in &inst.ops {
                    let size = op.rc().map_or(1, |rc| rc.size);
                    let rc = RegClass { size, ..whole.rc };
                    copy.defs.push(Def::phys(base.advance(offset), rc));
                    copy.ops.push(*op);
                    offset += size as u16;
                }
            }
            *inst = copy;
        }
    }
    Ok(())
}

/// One 32-bit piece of a copy: destination register and source.
fn dword_copies(def: &Def, op: &Operand) -> Result<Vec<(PhysReg, Source)>, AllocError> {
    let dst = def.reg.ok_or(AllocError::Unassigned)?;
    (0..def.rc.size as u16)
        .map(|i| {
            let src = match op.kind {
                OperandKind::Const(c) => {
                    // A 64-bit constant operand is the sign-extended 32-bit value.
                    let hi = if (c as i32) < 0 { u32::MAX } else { 0 };
                    Source::Const(if i == 0 { c } else { hi })
                }
                OperandKind::Undef(_) => return Ok(None),
                _ => Source::Loc(op.reg.ok_or(AllocError::Unassigned)?.advance(i).0),
            };
            Ok(Some((dst.advance(i), src)))
        })
        .filter_map(Result::transpose)
        .collect()
}

/// The move instruction for one resolved step into or between registers of one file.
fn move_inst(step: Step) -> Vec<Inst> {
    let reg_op = |l: u16| {
        let reg = PhysReg(l);
        let rc = if reg.reg_type() == RegType::Sgpr { RegClass::S1 } else { RegClass::V1 };
        Operand::phys(reg, rc)
    };
    let mov = |dst: u16, src: Operand| {
        let d = PhysReg(dst);
        match (d.reg_type(), src.reg.map(PhysReg::reg_type)) {
            (RegType::Sgpr, Some(RegType::Vgpr)) => {
                Inst::new(Opcode::VReadfirstlaneB32, &[Def::phys(d, RegClass::S1)], &[src])
            }
            (RegType::Sgpr, _) => Inst::new(Opcode::SMovB32, &[Def::phys(d, RegClass::S1)], &[src]),
            _ => Inst::new(Opcode::VMovB32, &[Def::phys(d, RegClass::V1)], &[src]),
        }
    };
    match step {
        Step::Move { dst, src: Source::Loc(l) } => vec![mov(dst, reg_op(l))],
        Step::Move { dst, src: Source::Const(c) } => vec![mov(dst, Operand::constant(c))],
        // The resolver is asked for swaps only where it may use them; none are requested yet.
        Step::Swap { .. } => unreachable!("swaps are not requested"),
    }
}

/// Lowers every `p_parallelcopy` to moves. A cycle is broken through the first register past
/// the allocation's use of its file, which the allocation then counts.
pub fn lower_parallel_copies(func: &mut Function, alloc: &mut Allocation, proc: &Processor) -> Result<(), AllocError> {
    for block in &mut func.blocks {
        let mut out = Vec::with_capacity(block.insts.len());
        for inst in block.insts.drain(..) {
            if inst.opcode != Opcode::PParallelCopy {
                out.push(inst);
                continue;
            }
            let mut copies = Vec::new();
            for (def, op) in inst.defs.iter().zip(&inst.ops) {
                copies.extend(dword_copies(def, op)?);
            }
            // SGPR destinations first (they may read VGPRs through v_readfirstlane), then VGPRs;
            // the two files are resolved separately since no copy moves between their
            // destinations.
            for file in [RegType::Sgpr, RegType::Vgpr] {
                let group: Vec<(u16, Source)> =
                    copies.iter().filter(|(d, _)| d.reg_type() == file).map(|&(d, s)| (d.0, s)).collect();
                if group.is_empty() {
                    continue;
                }
                let scratch = match file {
                    RegType::Sgpr => PhysReg::sgpr(alloc.sgprs),
                    _ => PhysReg::vgpr(alloc.vgprs),
                };
                let steps = resolve(&group, false, Some(scratch.0)).ok_or(AllocError::Unassigned)?;
                if steps.iter().any(|s| matches!(s, Step::Move { dst, .. } if *dst == scratch.0)) {
                    let limit = if file == RegType::Sgpr { proc.sgprs } else { proc.vgprs };
                    let count = if file == RegType::Sgpr { &mut alloc.sgprs } else { &mut alloc.vgprs };
                    *count += 1;
                    if *count > limit {
                        return Err(AllocError::DemandTooHigh {
                            kernel: func.name.clone(),
                            file,
                            demand: *count,
                            limit,
                        });
                    }
                }
                out.extend(steps.into_iter().flat_map(move_inst));
            }
        }
        block.insts = out;
    }
    Ok(())
}
