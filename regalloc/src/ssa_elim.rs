//! SSA elimination after register assignment: each phi (renaming phis included) becomes part
//! of one parallel copy at the end of each predecessor (logical phis before the
//! predecessor's `p_logical_end`, while its lanes are still active; linear phis before its
//! final branch), `p_split_vector` and `p_create_vector` become parallel copies between the
//! tuple's registers and its parts', and every parallel copy becomes moves, ordered and with
//! cycles broken by [`crate::parallel_copy::resolve`].
//!
//! Moves are `s_mov_b32`, `v_mov_b32` and `v_readfirstlane_b32`; SCC is read with
//! `s_cselect_b32 d, 1, 0` and written with `s_cmp_lg_u32 s, 0`. A cycle of VGPRs is broken
//! with three `v_xor_b32` (isa has no `v_swap_b32` yet); a cycle of SGPRs through a scratch
//! SGPR that nothing reads afterwards (found by a liveness of the scalar registers after
//! assignment), else with three `s_xor_b32` where SCC is free, else through one SGPR past the
//! ones the function uses.

use crate::parallel_copy::{resolve, Source, Step};
use crate::{AllocError, Allocation};
use isa::mir::{Def, Function, Inst, Operand, OperandKind};
use isa::opcode::Opcode;
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType};

/// Lowers phis, vector pseudo-instructions and parallel copies of an assigned function.
pub fn eliminate(func: &mut Function, proc: &Processor) -> Result<(), AllocError> {
    eliminate_phis(func);
    lower_vectors(func)?;
    lower_parallel_copies(func, proc)
}

/// Replaces every phi by parallel copies at the end of its predecessors: one copy per
/// predecessor and CFG, holding every phi of the block that moves something.
pub fn eliminate_phis(func: &mut Function) {
    for b in 0..func.blocks.len() {
        let count =
            func.blocks[b].insts.iter().take_while(|i| matches!(i.opcode, Opcode::PPhi | Opcode::PLinearPhi)).count();
        if count == 0 {
            continue;
        }
        let phis: Vec<Inst> = func.blocks[b].insts.drain(..count).collect();
        for linear in [false, true] {
            let block = &func.blocks[b];
            let preds = if linear { block.linear_preds.clone() } else { block.logical_preds.clone() };
            let kind = if linear { Opcode::PLinearPhi } else { Opcode::PPhi };
            for (k, &pred) in preds.iter().enumerate() {
                let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
                for phi in phis.iter().filter(|p| p.opcode == kind) {
                    let (def, op) = (phi.defs[0], phi.ops[k]);
                    let moves = match op.kind {
                        OperandKind::Undef(_) => false,
                        OperandKind::Temp(_) | OperandKind::Phys(_) => op.reg != def.reg,
                        OperandKind::Const(_) => true,
                    };
                    if moves {
                        copy.defs.push(def);
                        copy.ops.push(op);
                    }
                }
                if copy.defs.is_empty() {
                    continue;
                }
                let insts = &mut func.blocks[pred as usize].insts;
                let before_branch = || insts.iter().rposition(|i| !i.opcode.ends_block()).map_or(0, |p| p + 1);
                let at = if linear {
                    before_branch()
                } else {
                    insts.iter().position(|i| i.opcode == Opcode::PLogicalEnd).unwrap_or_else(before_branch)
                };
                insts.insert(at, copy);
            }
        }
    }
}

/// Rewrites `p_split_vector` and `p_create_vector` as parallel copies between the tuple's
/// registers and its parts' (after assignment, when the registers are known).
pub fn lower_vectors(func: &mut Function) -> Result<(), AllocError> {
    let unassigned =
        || AllocError::Internal { kernel: func.name.clone(), message: "a vector operand has no register".into() };
    let mut lowered = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
            let mut offset = 0u16;
            match inst.opcode {
                Opcode::PSplitVector => {
                    let base = inst.ops.first().and_then(|o| o.reg).ok_or_else(unassigned)?;
                    for d in &inst.defs {
                        copy.defs.push(*d);
                        copy.ops.push(Operand::phys(base.advance(offset), d.rc));
                        offset += u16::from(d.rc.size);
                    }
                }
                Opcode::PCreateVector => {
                    let whole = inst.defs[0];
                    let base = whole.reg.ok_or_else(unassigned)?;
                    for op in &inst.ops {
                        let size = op.rc().map_or(1, |rc| rc.size);
                        copy.defs.push(Def::phys(base.advance(offset), RegClass { size, ..whole.rc }));
                        copy.ops.push(*op);
                        offset += u16::from(size);
                    }
                }
                _ => continue,
            }
            lowered.push((b, i, copy));
        }
    }
    for (b, i, copy) in lowered {
        func.blocks[b].insts[i] = copy;
    }
    Ok(())
}

/// The 32-bit pieces of a copy: destination register and source (none for undefined
/// sources; None if a register is missing).
fn dword_copies(def: &Def, op: &Operand) -> Option<Vec<(u16, Source)>> {
    let dst = def.reg?;
    let mut out = Vec::with_capacity(usize::from(def.rc.size));
    for i in 0..u16::from(def.rc.size) {
        let src = match op.kind {
            // A 64-bit constant operand is the sign-extended 32-bit value.
            OperandKind::Const(c) => Source::Const(if i == 0 {
                c
            } else if (c as i32) < 0 {
                u32::MAX
            } else {
                0
            }),
            OperandKind::Undef(_) => continue,
            _ => Source::Loc(op.reg?.advance(i).0),
        };
        out.push((dst.advance(i).0, src));
    }
    Some(out)
}

/// The scalar registers live at a point: SGPRs 0-127 (VCC, M0 and EXEC among them) and SCC.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct ScalarRegs {
    sgprs: u128,
    scc: bool,
}

impl ScalarRegs {
    fn set(&mut self, reg: PhysReg, size: u8, live: bool) {
        for x in reg.0..reg.0 + u16::from(size) {
            if x < 128 {
                if live {
                    self.sgprs |= 1 << x;
                } else {
                    self.sgprs &= !(1 << x);
                }
            } else if x == PhysReg::SCC.0 {
                self.scc = live;
            }
        }
    }

    fn contains(&self, x: u16) -> bool {
        if x < 128 {
            self.sgprs >> x & 1 == 1
        } else {
            x == PhysReg::SCC.0 && self.scc
        }
    }

    /// Steps backward over `inst`: what it writes is dead before it, what it reads live.
    fn step_back(&mut self, inst: &Inst) {
        for d in &inst.defs {
            if let Some(r) = d.reg {
                self.set(r, d.rc.size, false);
            }
        }
        for o in &inst.ops {
            if let (Some(r), Some(rc)) = (o.reg, o.rc()) {
                self.set(r, rc.size, true);
            }
        }
    }
}

/// The scalar registers live at the end of each block (linear CFG, a backward worklist to a
/// fixpoint).
fn scalar_live_out(func: &Function) -> Vec<ScalarRegs> {
    let n = func.blocks.len();
    let mut live_in = vec![ScalarRegs::default(); n];
    let mut live_out = vec![ScalarRegs::default(); n];
    let mut queued = vec![true; n];
    let mut stack: Vec<usize> = (0..n).collect();
    while let Some(b) = stack.pop() {
        queued[b] = false;
        let block = &func.blocks[b];
        let mut live = ScalarRegs::default();
        for &s in &block.linear_succs {
            let s = live_in[s as usize];
            live.sgprs |= s.sgprs;
            live.scc |= s.scc;
        }
        live_out[b] = live;
        block.insts.iter().rev().for_each(|i| live.step_back(i));
        if live != live_in[b] {
            live_in[b] = live;
            for &p in &block.linear_preds {
                if !std::mem::replace(&mut queued[p as usize], true) {
                    stack.push(p as usize);
                }
            }
        }
    }
    live_out
}

/// Which kind of location a register is, for moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Loc {
    Sgpr,
    Scc,
    Vgpr,
}

fn loc_kind(reg: u16) -> Loc {
    match PhysReg(reg) {
        PhysReg::SCC => Loc::Scc,
        r if r.reg_type() == RegType::Sgpr => Loc::Sgpr,
        _ => Loc::Vgpr,
    }
}

fn reg_op(reg: u16) -> Operand {
    let rc = if loc_kind(reg) == Loc::Vgpr { RegClass::V1 } else { RegClass::S1 };
    Operand::phys(PhysReg(reg), rc)
}

/// The instruction for `dst = src`, or None for a move the hardware cannot make.
fn move_inst(dst: u16, src: Source) -> Option<Inst> {
    let scc = Def::phys(PhysReg::SCC, RegClass::S1);
    let d = PhysReg(dst);
    let from_scc = src == Source::Loc(PhysReg::SCC.0);
    Some(match (loc_kind(dst), src) {
        (Loc::Scc, Source::Loc(l)) if loc_kind(l) == Loc::Sgpr => {
            Inst::new(Opcode::SCmpLgU32, &[scc], &[reg_op(l), Operand::constant(0)])
        }
        (Loc::Scc, Source::Const(c)) => {
            Inst::new(Opcode::SCmpLgU32, &[scc], &[Operand::constant(c), Operand::constant(0)])
        }
        (Loc::Sgpr, _) if from_scc => Inst::new(
            Opcode::SCselectB32,
            &[Def::phys(d, RegClass::S1)],
            &[Operand::constant(1), Operand::constant(0), Operand::phys(PhysReg::SCC, RegClass::S1)],
        ),
        (Loc::Scc, _) | (Loc::Vgpr, _) if from_scc || loc_kind(dst) == Loc::Scc => return None,
        (Loc::Sgpr, Source::Loc(l)) if loc_kind(l) == Loc::Vgpr => {
            Inst::new(Opcode::VReadfirstlaneB32, &[Def::phys(d, RegClass::S1)], &[reg_op(l)])
        }
        (Loc::Sgpr, Source::Loc(l)) => Inst::new(Opcode::SMovB32, &[Def::phys(d, RegClass::S1)], &[reg_op(l)]),
        (Loc::Sgpr, Source::Const(c)) => {
            Inst::new(Opcode::SMovB32, &[Def::phys(d, RegClass::S1)], &[Operand::constant(c)])
        }
        (_, Source::Loc(l)) => Inst::new(Opcode::VMovB32, &[Def::phys(d, RegClass::V1)], &[reg_op(l)]),
        (_, Source::Const(c)) => Inst::new(Opcode::VMovB32, &[Def::phys(d, RegClass::V1)], &[Operand::constant(c)]),
    })
}

/// `a, b = b, a` with three exclusive-ors (`a ^= b; b = a ^ b; a ^= b`), as the validator
/// expects them.
pub(crate) fn xor_swap(a: u16, b: u16) -> [Inst; 3] {
    let (op, rc, extra): (Opcode, RegClass, &[Def]) = if loc_kind(a) == Loc::Vgpr {
        (Opcode::VXorB32, RegClass::V1, &[])
    } else {
        (Opcode::SXorB32, RegClass::S1, &[Def::phys(PhysReg::SCC, RegClass::S1)])
    };
    let xor = |dst: u16| {
        let mut defs = vec![Def::phys(PhysReg(dst), rc)];
        defs.extend_from_slice(extra);
        Inst::new(op, &defs, &[Operand::phys(PhysReg(a), rc), Operand::phys(PhysReg(b), rc)])
    };
    [xor(a), xor(b), xor(a)]
}

/// Lowers every `p_parallelcopy` of an assigned function to moves.
pub fn lower_parallel_copies(func: &mut Function, proc: &Processor) -> Result<(), AllocError> {
    let live_out = scalar_live_out(func);
    let mut sgpr_count = Allocation::measure(func).sgprs;
    let mut extra: Option<u16> = None;
    let kernel = func.name.clone();
    for (b, block) in func.blocks.iter_mut().enumerate() {
        if !block.insts.iter().any(|i| i.opcode == Opcode::PParallelCopy) {
            continue;
        }
        let unsupported = |what| AllocError::Unsupported { kernel: kernel.clone(), block: b as u32, what };
        let insts = std::mem::take(&mut block.insts);
        let mut after = vec![ScalarRegs::default(); insts.len()];
        let mut live = live_out[b];
        for (i, inst) in insts.iter().enumerate().rev() {
            after[i] = live;
            live.step_back(inst);
        }
        let mut out = Vec::with_capacity(insts.len());
        for (i, inst) in insts.into_iter().enumerate() {
            if inst.opcode != Opcode::PParallelCopy {
                out.push(inst);
                continue;
            }
            let mut copies = Vec::new();
            for (def, op) in inst.defs.iter().zip(&inst.ops) {
                copies.extend(dword_copies(def, op).ok_or_else(|| unsupported("a copy without registers"))?);
            }
            let steps = resolve(&copies, true, None).ok_or_else(|| unsupported("an unresolvable parallel copy"))?;
            let touches_scc = copies.iter().any(|&(d, s)| d == PhysReg::SCC.0 || s == Source::Loc(PhysReg::SCC.0));
            let mut busy = after[i];
            for &(d, s) in &copies {
                busy.set(PhysReg(d), 1, true);
                if let Source::Loc(l) = s {
                    busy.set(PhysReg(l), 1, true);
                }
            }
            for step in steps {
                match step {
                    Step::Move { dst, src } => {
                        out.push(move_inst(dst, src).ok_or_else(|| unsupported("a move between SCC and a VGPR"))?)
                    }
                    Step::Swap { a, b } => match (loc_kind(a), loc_kind(b)) {
                        (Loc::Vgpr, Loc::Vgpr) => out.extend(xor_swap(a, b)),
                        (Loc::Sgpr, Loc::Sgpr) => {
                            let free = (0..sgpr_count.min(proc.sgprs)).find(|&r| !busy.contains(r));
                            if free.is_none() && !touches_scc && !after[i].scc {
                                out.extend(xor_swap(a, b));
                                continue;
                            }
                            let scratch = match free.or(extra) {
                                Some(r) => r,
                                None => {
                                    if sgpr_count >= proc.sgprs {
                                        return Err(AllocError::DemandTooHigh {
                                            kernel,
                                            file: RegType::Sgpr,
                                            demand: sgpr_count + 1,
                                            limit: proc.sgprs,
                                        });
                                    }
                                    sgpr_count += 1;
                                    *extra.insert(sgpr_count - 1)
                                }
                            };
                            for (dst, src) in [(scratch, a), (a, b), (b, scratch)] {
                                out.push(move_inst(dst, Source::Loc(src)).expect("SGPR moves exist"));
                            }
                        }
                        _ => return Err(unsupported("a swap across register files or through SCC")),
                    },
                }
            }
        }
        block.insts = out;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the lowered moves of one parallel copy on numbered registers.
    fn run(insts: &[Inst], regs: &mut [u32]) {
        let read = |regs: &[u32], o: &Operand| match o.kind {
            OperandKind::Const(c) => c,
            _ => regs[usize::from(o.reg.unwrap().0)],
        };
        for inst in insts {
            let d = usize::from(inst.defs[0].reg.unwrap().0);
            let v = match inst.opcode {
                Opcode::SMovB32 | Opcode::VMovB32 | Opcode::VReadfirstlaneB32 => read(regs, &inst.ops[0]),
                Opcode::SXorB32 | Opcode::VXorB32 => read(regs, &inst.ops[0]) ^ read(regs, &inst.ops[1]),
                Opcode::SCselectB32 => u32::from(regs[usize::from(PhysReg::SCC.0)] != 0),
                Opcode::SCmpLgU32 => u32::from(read(regs, &inst.ops[0]) != 0),
                other => panic!("unexpected {other:?}"),
            };
            regs[d] = v;
            if inst.defs.len() > 1 && inst.defs[1].reg == Some(PhysReg::SCC) && inst.opcode != Opcode::SCmpLgU32 {
                regs[usize::from(PhysReg::SCC.0)] = 0xdead;
            }
        }
    }

    fn lowered(copies: &[(PhysReg, PhysReg)], sgprs_in_use: u16, scc_live: bool) -> Vec<Inst> {
        let mut f = Function::new("k", isa::opcode::Family::Gfx11, 32);
        f.blocks.push(Default::default());
        let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
        for &(d, s) in copies {
            let rc = if d.reg_type() == RegType::Vgpr { RegClass::V1 } else { RegClass::S1 };
            copy.defs.push(Def::phys(d, rc));
            copy.ops.push(Operand::phys(s, if s.reg_type() == RegType::Vgpr { RegClass::V1 } else { RegClass::S1 }));
        }
        // Keep the SGPRs below `sgprs_in_use` (and SCC) live after the copy.
        let keep: Vec<Operand> = (0..sgprs_in_use)
            .map(|r| Operand::phys(PhysReg::sgpr(r), RegClass::S1))
            .chain(scc_live.then(|| Operand::phys(PhysReg::SCC, RegClass::S1)))
            .collect();
        f.blocks[0].insts = vec![copy, Inst::new(Opcode::SEndpgm, &[], &keep)];
        lower_parallel_copies(&mut f, isa::processor::Processor::find("gfx1100").unwrap()).unwrap();
        f.blocks[0].insts.pop();
        f.blocks[0].insts.clone()
    }

    #[test]
    fn cycles_break_with_xor_or_a_free_scratch() {
        let (s, v) = (PhysReg::sgpr, PhysReg::vgpr);
        // VGPR swap: three v_xor_b32.
        let insts = lowered(&[(v(0), v(1)), (v(1), v(0))], 4, false);
        assert_eq!(insts.len(), 3);
        assert!(insts.iter().all(|i| i.opcode == Opcode::VXorB32));
        let mut regs = vec![0u32; 512];
        regs[256] = 7;
        regs[257] = 9;
        run(&insts, &mut regs);
        assert_eq!((regs[256], regs[257]), (9, 7));
        // An SGPR cycle where every SGPR in use stays live and SCC is dead: three s_xor_b32.
        let insts = lowered(&[(s(0), s(1)), (s(1), s(3)), (s(3), s(0))], 4, false);
        assert!(insts.iter().any(|i| i.opcode == Opcode::SXorB32));
        let mut regs = vec![0u32; 512];
        regs[..4].copy_from_slice(&[10, 11, 12, 13]);
        run(&insts, &mut regs);
        assert_eq!(&regs[..4], &[11, 13, 12, 10]);
        // With SCC live, the cycle goes through one more SGPR (s4, past the four in use).
        let insts = lowered(&[(s(0), s(1)), (s(1), s(0))], 4, true);
        assert!(insts.iter().all(|i| i.opcode == Opcode::SMovB32));
        assert!(insts.iter().any(|i| i.defs[0].reg == Some(s(4))));
        // A value into SCC and one out of it: s_cselect reads SCC before s_cmp writes it.
        let insts = lowered(&[(PhysReg::SCC, s(5)), (s(6), PhysReg::SCC)], 8, false);
        let mut regs = vec![0u32; 512];
        regs[5] = 3;
        regs[usize::from(PhysReg::SCC.0)] = 1;
        run(&insts, &mut regs);
        assert_eq!((regs[6], regs[usize::from(PhysReg::SCC.0)]), (1, 1));
    }
}
