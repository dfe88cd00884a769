//! SSA elimination after register assignment: each phi (renaming phis included) becomes part
//! of one parallel copy at the end of each predecessor (logical phis before the
//! predecessor's `p_logical_end`, while its lanes are still active; linear phis before its
//! final branch), `p_split_vector` and `p_create_vector` become parallel copies between the
//! tuple's registers and its parts', and every parallel copy becomes moves, ordered and with
//! cycles broken by [`crate::parallel_copy::resolve`].
//!
//! Moves are `s_mov_b32`, `v_mov_b32` and `v_readfirstlane_b32`; SCC is read with
//! `s_cselect_b32 d, 1, 0` and written with `s_cmp_lg_u32 s, 0`. AGPRs are written from a
//! VGPR, an SGPR or an inline constant with `v_accvgpr_write_b32`, read into a VGPR with
//! `v_accvgpr_read_b32`, and copied with `v_accvgpr_mov_b32` (gfx90a+; gfx908 lacks it, and
//! nothing moves an AGPR into an SGPR or SCC, nor a literal into an AGPR, in one
//! instruction: those copies are refused). A cycle of VGPRs is broken with `v_swap_b32`
//! (`vgpr_swap`; GFX9 and later have it, so every generation gcnc encodes); a cycle of SGPRs through a scratch SGPR that
//! nothing reads afterwards (found by a liveness of the scalar registers after assignment),
//! else with three `s_xor_b32` where SCC is free, else through one SGPR past the ones the
//! function uses; a cycle of AGPRs (which have no exclusive-or) through an AGPR that nothing
//! reads afterwards (a liveness of the AGPRs on the logical CFG), else through one AGPR past
//! the ones the function uses.

use crate::parallel_copy::{resolve, Source, Step};
use crate::{AllocError, Allocation};
use isa::encoding::inline_field_typed;
use isa::mir::{Def, Function, Inst, Operand, OperandKind};
use isa::opcode::Opcode;
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType};
use isa::table::ConstType;

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
                let at = block_end(insts, linear);
                insts.insert(at, copy);
            }
        }
    }
}

/// Where code at the end of a block goes: before its branches on the linear CFG, before its
/// `p_logical_end` (with the block's logical EXEC) on the logical one.
pub(crate) fn block_end(insts: &[Inst], linear: bool) -> usize {
    let before_branch = || insts.iter().rposition(|i| !i.opcode.ends_block()).map_or(0, |p| p + 1);
    if linear {
        before_branch()
    } else {
        insts.iter().position(|i| i.opcode == Opcode::PLogicalEnd).unwrap_or_else(before_branch)
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
            OperandKind::Const(_) => Source::Const(op.constant_dword(i)?),
            OperandKind::Undef(_) => continue,
            _ => Source::Loc(op.reg?.advance(i).0),
        };
        out.push((dst.advance(i).0, src));
    }
    Some(out)
}

/// The registers SSA elimination may borrow as scratch, with whether each is live at a point:
/// SGPRs 0-127 (VCC, M0 and EXEC among them) and SCC, live over the linear CFG, and AGPRs,
/// live over the logical CFG (writes under EXEC leave the lanes of other paths alone, as in
/// the assignment).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct LiveRegs {
    sgprs: u128,
    scc: bool,
    agprs: [u128; 2],
}

impl LiveRegs {
    fn set(&mut self, reg: PhysReg, size: u8, live: bool) {
        let put = |bits: &mut u128, i: u16| {
            if live {
                *bits |= 1 << i;
            } else {
                *bits &= !(1 << i);
            }
        };
        for x in reg.0..reg.0 + u16::from(size) {
            match PhysReg(x) {
                PhysReg::SCC => self.scc = live,
                r if x < 128 => put(&mut self.sgprs, r.0),
                r if r.reg_type() == RegType::Agpr && r.index() < 256 => {
                    put(&mut self.agprs[usize::from(r.index() / 128)], r.index() % 128)
                }
                _ => {}
            }
        }
    }

    fn contains(&self, x: u16) -> bool {
        match PhysReg(x) {
            PhysReg::SCC => self.scc,
            r if x < 128 => self.sgprs >> r.0 & 1 == 1,
            r if r.reg_type() == RegType::Agpr && r.index() < 256 => {
                self.agprs[usize::from(r.index() / 128)] >> (r.index() % 128) & 1 == 1
            }
            _ => false,
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

/// The registers live at the end of each block (a backward worklist to a fixpoint): the
/// scalar ones from the linear successors, the AGPRs from the logical ones.
fn live_out(func: &Function) -> Vec<LiveRegs> {
    let n = func.blocks.len();
    let mut live_in = vec![LiveRegs::default(); n];
    let mut live_out = vec![LiveRegs::default(); n];
    let mut queued = vec![true; n];
    let mut stack: Vec<usize> = (0..n).collect();
    while let Some(b) = stack.pop() {
        queued[b] = false;
        let block = &func.blocks[b];
        let mut live = LiveRegs::default();
        for &s in &block.linear_succs {
            let s = live_in[s as usize];
            live.sgprs |= s.sgprs;
            live.scc |= s.scc;
        }
        for &s in &block.logical_succs {
            let s = live_in[s as usize];
            live.agprs[0] |= s.agprs[0];
            live.agprs[1] |= s.agprs[1];
        }
        live_out[b] = live;
        block.insts.iter().rev().for_each(|i| live.step_back(i));
        if live != live_in[b] {
            live_in[b] = live;
            for &p in block.linear_preds.iter().chain(&block.logical_preds) {
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
    Agpr,
}

fn loc_kind(reg: u16) -> Loc {
    match PhysReg(reg) {
        PhysReg::SCC => Loc::Scc,
        r => match r.reg_type() {
            RegType::Sgpr => Loc::Sgpr,
            RegType::Vgpr => Loc::Vgpr,
            RegType::Agpr => Loc::Agpr,
        },
    }
}

/// The class of one register of `kind`.
fn loc_class(kind: Loc) -> RegClass {
    match kind {
        Loc::Vgpr => RegClass::V1,
        Loc::Agpr => RegClass::agpr(1),
        Loc::Sgpr | Loc::Scc => RegClass::S1,
    }
}

fn reg_op(reg: u16) -> Operand {
    Operand::phys(PhysReg(reg), loc_class(loc_kind(reg)))
}

/// A `v_accvgpr_*` move `def = src`; the VOP3P ones (`_read`, `_write`) with the `op_sel_hi`
/// bit their one source takes by default (AGPRs exist in the GFX9 family only).
pub(crate) fn accvgpr_move(opcode: Opcode, def: Def, src: Operand) -> Inst {
    let family = isa::opcode::Family::Gfx9;
    let mut inst = Inst::new(opcode, &[def], &[src]);
    if opcode.format(family) == isa::opcode::Format::Vop3p {
        inst.fields.opsel_hi = isa::encoding::default_opsel_hi(opcode, family) & 1;
    }
    inst
}

/// The instruction for `dst = src`, or what the hardware cannot do in one instruction.
fn move_inst(dst: u16, src: Source, proc: &Processor) -> Result<Inst, &'static str> {
    let d = PhysReg(dst);
    let src_kind = match src {
        Source::Loc(l) => Some(loc_kind(l)),
        Source::Const(_) => None,
    };
    if loc_kind(dst) == Loc::Agpr || src_kind == Some(Loc::Agpr) {
        let def = Def::phys(d, loc_class(loc_kind(dst)));
        return Ok(match (loc_kind(dst), src) {
            (Loc::Agpr, Source::Loc(l)) if loc_kind(l) == Loc::Agpr => {
                if !proc.gfx90a_insts {
                    return Err("a copy between AGPRs before gfx90a");
                }
                accvgpr_move(Opcode::VAccvgprMovB32, def, reg_op(l))
            }
            (Loc::Agpr, Source::Loc(l)) if loc_kind(l) != Loc::Scc => {
                accvgpr_move(Opcode::VAccvgprWriteB32, def, reg_op(l))
            }
            (Loc::Agpr, Source::Const(c)) if inline_field_typed(c.into(), ConstType::B32).is_some() => {
                accvgpr_move(Opcode::VAccvgprWriteB32, def, Operand::constant(c))
            }
            (Loc::Agpr, Source::Const(_)) => return Err("a literal constant into an AGPR"),
            (Loc::Vgpr, Source::Loc(l)) => accvgpr_move(Opcode::VAccvgprReadB32, def, reg_op(l)),
            _ => return Err("a move between an AGPR and an SGPR or SCC"),
        });
    }
    let scc = Def::phys(PhysReg::SCC, RegClass::S1);
    let from_scc = src == Source::Loc(PhysReg::SCC.0);
    Ok(match (loc_kind(dst), src) {
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
        (Loc::Scc, _) | (Loc::Vgpr, _) if from_scc || loc_kind(dst) == Loc::Scc => {
            return Err("a move between SCC and a VGPR")
        }
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

/// `a, b = b, a` for two SGPRs with three exclusive-ors (`a ^= b; b = a ^ b; a ^= b`, SCC
/// clobbered), as the validator expects them.
pub(crate) fn xor_swap(a: u16, b: u16) -> [Inst; 3] {
    let rc = RegClass::S1;
    let xor = |dst: u16| {
        Inst::new(
            Opcode::SXorB32,
            &[Def::phys(PhysReg(dst), rc), Def::phys(PhysReg::SCC, rc)],
            &[Operand::phys(PhysReg(a), rc), Operand::phys(PhysReg(b), rc)],
        )
    };
    [xor(a), xor(b), xor(a)]
}

/// `a, b = b, a` for two VGPRs: `v_swap_b32 a, b`, which the MIR writes with both registers
/// as results and as operands (`v_swap_b32 a, b, b, a`; the second of each is implicit, and
/// `isel::strip_implicit` drops it before encoding), so the passes after allocation (the
/// validator, the hazards) see both writes.
pub(crate) fn vgpr_swap(a: u16, b: u16) -> Inst {
    let (pa, pb, rc) = (PhysReg(a), PhysReg(b), RegClass::V1);
    Inst::new(
        Opcode::VSwapB32,
        &[Def::phys(pa, rc), Def::phys(pb, rc)],
        &[Operand::phys(pb, rc), Operand::phys(pa, rc)],
    )
}

/// Lowers every `p_parallelcopy` of an assigned function to moves.
pub fn lower_parallel_copies(func: &mut Function, proc: &Processor) -> Result<(), AllocError> {
    let live_out = live_out(func);
    let used = Allocation::measure(func);
    let mut sgpr_count = used.sgprs;
    let mut extra: Option<u16> = None;
    // The scratch AGPR of AGPR cycles, one past the AGPRs in use, taken when first needed.
    let mut agpr_scratch: Option<u16> = None;
    let kernel = func.name.clone();
    for (b, block) in func.blocks.iter_mut().enumerate() {
        if !block.insts.iter().any(|i| i.opcode == Opcode::PParallelCopy) {
            continue;
        }
        let unsupported = |what| AllocError::Unsupported { kernel: kernel.clone(), block: b as u32, what };
        let insts = std::mem::take(&mut block.insts);
        let mut after = vec![LiveRegs::default(); insts.len()];
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
            for (k, &step) in steps.iter().enumerate() {
                match step {
                    Step::Move { dst, src } => out.push(move_inst(dst, src, proc).map_err(unsupported)?),
                    Step::Swap { a, b } => match (loc_kind(a), loc_kind(b)) {
                        (Loc::Vgpr, Loc::Vgpr) => out.push(vgpr_swap(a, b)),
                        (Loc::Agpr, Loc::Agpr) => {
                            // Free here: not live after the copy, no destination of it, and
                            // not read by this or a later step (sources already read are).
                            let mut taken = after[i];
                            for &(d, _) in &copies {
                                taken.set(PhysReg(d), 1, true);
                            }
                            for later in &steps[k..] {
                                let read = match *later {
                                    Step::Move { src: Source::Loc(l), .. } => [Some(l), None],
                                    Step::Move { .. } => [None, None],
                                    Step::Swap { a, b } => [Some(a), Some(b)],
                                };
                                read.into_iter().flatten().for_each(|r| taken.set(PhysReg(r), 1, true));
                            }
                            let free = (0..used.agprs).map(|r| PhysReg::agpr(r).0).find(|&r| !taken.contains(r));
                            let scratch = match free.or(agpr_scratch) {
                                Some(r) => r,
                                None if used.agprs < proc.agprs => *agpr_scratch.insert(PhysReg::agpr(used.agprs).0),
                                None => {
                                    return Err(AllocError::DemandTooHigh {
                                        kernel,
                                        file: RegType::Agpr,
                                        demand: used.agprs + 1,
                                        limit: proc.agprs,
                                    })
                                }
                            };
                            for (dst, src) in [(scratch, a), (a, b), (b, scratch)] {
                                out.push(move_inst(dst, Source::Loc(src), proc).map_err(unsupported)?);
                            }
                        }
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
                                out.push(move_inst(dst, Source::Loc(src), proc).map_err(unsupported)?);
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
        let read = |regs: &[u32], o: &Operand| match o.constant_dword(0) {
            Some(c) => c,
            None => regs[usize::from(o.reg.unwrap().0)],
        };
        for inst in insts {
            let d = usize::from(inst.defs[0].reg.unwrap().0);
            if inst.opcode == Opcode::VSwapB32 {
                regs.swap(d, usize::from(inst.defs[1].reg.unwrap().0));
                continue;
            }
            let v = match inst.opcode {
                Opcode::SMovB32
                | Opcode::VMovB32
                | Opcode::VReadfirstlaneB32
                | Opcode::VAccvgprReadB32
                | Opcode::VAccvgprWriteB32
                | Opcode::VAccvgprMovB32 => read(regs, &inst.ops[0]),
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
        lowered_on("gfx1100", copies, &[], sgprs_in_use, scc_live).unwrap()
    }

    /// The moves of one parallel copy on processor `name`, with `live` registers read after it.
    fn lowered_on(
        name: &str,
        copies: &[(PhysReg, PhysReg)],
        live: &[PhysReg],
        sgprs_in_use: u16,
        scc_live: bool,
    ) -> Result<Vec<Inst>, AllocError> {
        let proc = Processor::find(name).unwrap();
        // gfx908 has no encoding family of its own yet: its copies are lowered with gfx942's.
        let family = isa::opcode::Family::of(proc).unwrap_or(isa::opcode::Family::Gfx9);
        let mut f = Function::new("k", family, 32);
        f.blocks.push(Default::default());
        let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
        let class = |r: PhysReg| loc_class(loc_kind(r.0));
        for &(d, s) in copies {
            copy.defs.push(Def::phys(d, class(d)));
            copy.ops.push(Operand::phys(s, class(s)));
        }
        // Keep the SGPRs below `sgprs_in_use` (and SCC) live after the copy.
        let keep: Vec<Operand> = (0..sgprs_in_use)
            .map(|r| Operand::phys(PhysReg::sgpr(r), RegClass::S1))
            .chain(scc_live.then(|| Operand::phys(PhysReg::SCC, RegClass::S1)))
            .chain(live.iter().map(|&r| Operand::phys(r, class(r))))
            .collect();
        f.blocks[0].insts = vec![copy, Inst::new(Opcode::SEndpgm, &[], &keep)];
        lower_parallel_copies(&mut f, proc)?;
        f.blocks[0].insts.pop();
        Ok(f.blocks[0].insts.clone())
    }

    #[test]
    fn agprs_move_through_accvgpr_instructions_and_cycle_through_a_free_agpr() {
        let (a, v, s) = (PhysReg::agpr, PhysReg::vgpr, PhysReg::sgpr);
        let slot = |r: PhysReg| usize::from(r.0);
        // Across files and within the AGPRs: one instruction each.
        let insts = lowered_on("gfx942", &[(a(0), v(1)), (v(2), a(3)), (a(4), s(5)), (a(6), a(7))], &[], 8, false);
        let ops: Vec<Opcode> = insts.unwrap().iter().map(|i| i.opcode).collect();
        assert_eq!(ops.len(), 4);
        for op in [Opcode::VAccvgprWriteB32, Opcode::VAccvgprReadB32, Opcode::VAccvgprMovB32] {
            assert!(ops.contains(&op), "{ops:?}");
        }
        // A cycle of three AGPRs with a4 and a5 live after it: the scratch is a3, the lowest
        // AGPR neither copied nor live (a6 is in use, so the function's AGPRs are a0-a6).
        let cycle = [(a(0), a(1)), (a(1), a(2)), (a(2), a(0))];
        let insts = lowered_on("gfx942", &cycle, &[a(4), a(5), a(6)], 0, false).unwrap();
        let mut regs = vec![0u32; 768];
        for (i, r) in regs.iter_mut().enumerate().skip(512) {
            *r = i as u32;
        }
        run(&insts, &mut regs);
        assert_eq!(&regs[slot(a(0))..slot(a(3))], &[513, 514, 512]);
        assert_eq!(&regs[slot(a(4))..slot(a(7))], &[516, 517, 518]);
        let written: Vec<PhysReg> = insts.iter().filter_map(|i| i.defs[0].reg).collect();
        assert!(written.contains(&a(3)) && written.iter().all(|r| r.index() <= 3), "{written:?}");
        // With every AGPR below the highest in use live, one more AGPR is taken.
        let insts = lowered_on("gfx942", &[(a(0), a(1)), (a(1), a(0))], &[a(2)], 0, false).unwrap();
        assert!(insts.iter().any(|i| i.defs[0].reg == Some(a(3))));
        // What no instruction does: an AGPR into an SGPR, a literal into an AGPR, AGPR
        // copies on gfx908.
        let refused = |name: &str, copies: &[(PhysReg, PhysReg)]| match lowered_on(name, copies, &[], 8, false) {
            Err(AllocError::Unsupported { what, .. }) => what,
            other => panic!("{copies:?} on {name}: {other:?}"),
        };
        assert_eq!(refused("gfx942", &[(s(0), a(0))]), "a move between an AGPR and an SGPR or SCC");
        assert_eq!(refused("gfx908", &[(a(0), a(1))]), "a copy between AGPRs before gfx90a");
        let mut f = Function::new("k", isa::opcode::Family::Gfx9, 64);
        f.blocks.push(Default::default());
        let copy = Inst::new(
            Opcode::PParallelCopy,
            &[Def::phys(a(0), RegClass::agpr(1)), Def::phys(a(1), RegClass::agpr(1))],
            &[Operand::constant(64), Operand::constant(65)],
        );
        f.blocks[0].insts = vec![copy, Inst::new(Opcode::SEndpgm, &[], &[])];
        let err = lower_parallel_copies(&mut f, Processor::find("gfx942").unwrap()).unwrap_err();
        assert!(err.to_string().contains("a literal constant into an AGPR"), "{err}");
    }

    #[test]
    fn cycles_break_with_a_swap_or_a_free_scratch() {
        let (s, v) = (PhysReg::sgpr, PhysReg::vgpr);
        // VGPR swap: one v_swap_b32.
        let insts = lowered(&[(v(0), v(1)), (v(1), v(0))], 4, false);
        assert_eq!(insts.len(), 1);
        assert_eq!(insts[0].opcode, Opcode::VSwapB32);
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
