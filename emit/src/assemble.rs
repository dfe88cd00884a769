//! Program assembly: lowers the last pseudo-instructions (branches become `s_branch` and
//! `s_cbranch_*` with word offsets, or vanish when they fall through; markers vanish), lays the
//! blocks out in linear order, relaxes the branches whose target is out of reach, encodes
//! every instruction, and prints the same program as assembly text that llvm-mc reassembles
//! to the same bytes.
//!
//! Branch relaxation: `s_branch` and `s_cbranch_*` take a signed 16-bit word offset (±32k
//! words, 128 KiB). A branch whose target is farther becomes a long jump, as LLVM's branch
//! relaxation writes it (`SIInstrInfo::insertIndirectBranch`): `s_getpc_b64 s[k:k+1]` (the
//! address of the next instruction), `s_add_u32 sk, sk, lo` and `s_addc_u32 sk+1, sk+1, hi`
//! of the byte offset from there to the target, and `s_setpc_b64 s[k:k+1]`; a conditional
//! branch first branches on the inverted condition over that sequence, so its condition (SCC
//! included) is read before `s_add_u32` clobbers SCC. SCC is dead at every block's entry in
//! gcnc's MIR (isel reads it in the block that sets it), so clobbering it on the way to the
//! target is harmless. The pair `s[k:k+1]` is the first aligned pair above every SGPR the
//! kernel uses, so it is free everywhere; [`Assembled::next_free_sgpr`] reports it for the
//! descriptor's SGPR count. Offsets are found by iterating the layout: all branches start
//! short, and each pass lengthens only the branches that do not reach, until none is added.

use crate::EmitError;
use isa::asm::print_inst;
use isa::encode::encode;
use isa::mir::{Def, Function, Inst, Operand};
use isa::opcode::Opcode;
use isa::reg::{PhysReg, RegClass, RegType};
use std::fmt::Write;

/// A kernel's machine code and its assembly text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// The encoded instructions.
    pub code: Vec<u8>,
    /// Assembly text (instructions and block labels, no directives); empty unless asked for.
    pub asm: String,
    /// The number of instructions.
    pub inst_count: usize,
    /// The SGPR after the pair that long branches use, 0 when no branch needed one: the
    /// kernel's SGPR count must reach it.
    pub next_free_sgpr: u16,
}

/// An instruction ready to encode, with the block a branch goes to.
struct Placed {
    inst: Inst,
    target: Option<usize>,
}

/// The branch that replaces a pseudo branch, and its target block; `None` to drop the
/// instruction (markers, and branches to the next block).
fn lower(func: &Function, b: usize, inst: &Inst) -> Result<Option<Placed>, EmitError> {
    let block = &func.blocks[b];
    // The explicit target, or the linear successor that is not the fall-through block.
    let target = || -> Result<usize, EmitError> {
        if let Some(t) = inst.fields.target {
            return Ok(t as usize);
        }
        let succs = &block.linear_succs;
        succs
            .iter()
            .map(|&s| s as usize)
            .find(|&s| s != b + 1 || succs.len() == 1)
            .ok_or(EmitError::BadBranch { block: b, what: "no linear successor to branch to" })
    };
    let real = match inst.opcode {
        op if op.is_marker() => return Ok(None),
        Opcode::PBranch => {
            let t = target()?;
            if t == b + 1 {
                return Ok(None);
            }
            Opcode::SBranch
        }
        Opcode::PCbranchExecz => Opcode::SCbranchExecz,
        Opcode::PCbranchScc0 => Opcode::SCbranchScc0,
        op if op.is_pseudo() => return Err(EmitError::PseudoLeft { name: op.name(func.family) }),
        _ => {
            let target = if inst.opcode.is_branch() { Some(target()?) } else { None };
            return Ok(Some(Placed { inst: inst.clone(), target }));
        }
    };
    let mut branch = Inst::new(real, &[], &[]);
    branch.fields.target = inst.fields.target;
    Ok(Some(Placed { inst: branch, target: Some(target()?) }))
}

/// The long form of the branch `op` through the SGPR pair `pair`, `offset` bytes from the
/// address after `s_getpc_b64` to the target (see the module comment).
fn long_jump(op: Opcode, pair: PhysReg, offset: i64) -> Result<Vec<Inst>, EmitError> {
    let lo = PhysReg(pair.0);
    let hi = PhysReg(pair.0 + 1);
    let s1 = |r: PhysReg| Operand::phys(r, RegClass::S1);
    let mut out = Vec::with_capacity(5);
    if op != Opcode::SBranch {
        let skip = op.inverted_branch().ok_or(EmitError::NoLongForm { name: op.name(isa::opcode::Family::Gfx11) })?;
        out.push(Inst::new(skip, &[], &[]));
    }
    out.push(Inst::new(Opcode::SGetpcB64, &[Def::phys(pair, RegClass::S2)], &[]));
    out.push(Inst::new(Opcode::SAddU32, &[Def::phys(lo, RegClass::S1)], &[s1(lo), Operand::constant(offset as u32)]));
    let high = (offset >> 32) as u32;
    out.push(Inst::new(Opcode::SAddcU32, &[Def::phys(hi, RegClass::S1)], &[s1(hi), Operand::constant(high)]));
    out.push(Inst::new(Opcode::SSetpcB64, &[], &[Operand::phys(pair, RegClass::S2)]));
    Ok(out)
}

/// The first aligned SGPR pair above every SGPR `func` names (its inputs included), below
/// `sgpr_limit` (the processor's addressable SGPRs).
fn free_pair(func: &Function, sgpr_limit: u16) -> Result<PhysReg, EmitError> {
    let regs = func.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| {
        let defs = i.defs.iter().map(|d| (d.reg, d.rc.size));
        let ops = i.ops.iter().map(|o| (o.reg, o.rc().map_or(1, |rc| rc.size)));
        defs.chain(ops).collect::<Vec<_>>()
    });
    let used = regs
        .filter_map(|(reg, size)| reg.map(|r| (r, size)))
        .filter(|(r, _)| r.reg_type() == RegType::Sgpr && r.index() < sgpr_limit)
        .map(|(r, size)| r.index() + u16::from(size))
        .max()
        .unwrap_or(0);
    let k = used.next_multiple_of(2);
    if k + 2 > sgpr_limit {
        return Err(EmitError::NoLongBranchPair { used });
    }
    Ok(PhysReg::sgpr(k))
}

/// The encoded size of `inst`.
fn size_of(inst: &Inst, family: isa::opcode::Family, scratch: &mut Vec<u8>) -> Result<usize, EmitError> {
    scratch.clear();
    encode(inst, family, scratch)
        .map_err(|source| EmitError::Encode { inst: isa::mir::DisplayInst(inst, family).to_string(), source })?;
    Ok(scratch.len())
}

/// A far offset for sizing a long jump before its real offset is known: every relaxed
/// branch's offset needs a literal in `s_add_u32` and an inline high dword, as this one does.
const FAR: i64 = 1 << 20;

/// Assembles `func` into machine code, and into assembly text when `text` is `Some(f)`
/// (printing costs a good part of the time, so a compile that writes only an object skips
/// it): `f` is the function's place in its file, and block `b` is labelled `.LBB<f>_<b>`, as
/// clang labels its blocks, so that the labels of a file's kernels differ. `sgpr_limit` is
/// the processor's count of addressable SGPRs, below which a long branch finds its pair.
pub fn assemble(func: &Function, sgpr_limit: u16, text: Option<usize>) -> Result<Assembled, EmitError> {
    let family = func.family;
    let mut blocks: Vec<Vec<Placed>> = Vec::with_capacity(func.blocks.len());
    for (b, block) in func.blocks.iter().enumerate() {
        let mut placed = Vec::with_capacity(block.insts.len());
        for inst in &block.insts {
            if let Some(p) = lower(func, b, inst)? {
                placed.push(p);
            }
        }
        blocks.push(placed);
    }
    // The size of each instruction; a branch is one word until it is relaxed. What is not a
    // branch is encoded once, here, and its words are copied into the code below.
    let mut scratch = Vec::new();
    let mut encoded: Vec<u8> = Vec::new();
    let mut sizes: Vec<Vec<usize>> = Vec::with_capacity(blocks.len());
    for placed in &blocks {
        let mut row = Vec::with_capacity(placed.len());
        for p in placed {
            let size = size_of(&p.inst, family, &mut scratch)?;
            if p.target.is_none() {
                encoded.extend_from_slice(&scratch);
            }
            row.push(size);
        }
        sizes.push(row);
    }
    let mut encoded_at = 0usize;
    let mut long: Vec<Vec<bool>> = blocks.iter().map(|p| vec![false; p.len()]).collect();
    let mut pair = None;
    let starts = loop {
        let mut starts = Vec::with_capacity(blocks.len() + 1);
        let mut addr = 0usize;
        for row in &sizes {
            starts.push(addr);
            addr += row.iter().sum::<usize>();
        }
        starts.push(addr);
        let mut grew = false;
        for (b, placed) in blocks.iter().enumerate() {
            let mut here = starts[b];
            for (k, p) in placed.iter().enumerate() {
                if let (Some(t), false) = (p.target, long[b][k]) {
                    let offset = (starts[t] as i64 - (here as i64 + 4)) / 4;
                    if i16::try_from(offset).is_err() {
                        let pair = *pair.get_or_insert(free_pair(func, sgpr_limit)?);
                        let mut size = 0;
                        for inst in long_jump(p.inst.opcode, pair, FAR)? {
                            size += size_of(&inst, family, &mut scratch)?;
                        }
                        long[b][k] = true;
                        sizes[b][k] = size;
                        grew = true;
                    }
                }
                here += sizes[b][k];
            }
        }
        if !grew {
            break starts;
        }
    };
    let mut code = Vec::with_capacity(*starts.last().unwrap_or(&0));
    let mut asm = String::new();
    let mut inst_count = 0;
    for (b, placed) in blocks.iter_mut().enumerate() {
        if let Some(f) = text {
            let _ = writeln!(asm, ".LBB{f}_{b}:");
        }
        for (k, p) in placed.iter_mut().enumerate() {
            match (p.target, pair.filter(|_| long[b][k])) {
                (Some(t), Some(pair)) => {
                    let start = code.len();
                    let getpc_end = start + 4 * usize::from(p.inst.opcode != Opcode::SBranch) + 4;
                    let mut seq = long_jump(p.inst.opcode, pair, starts[t] as i64 - getpc_end as i64)?;
                    if seq.len() == 5 {
                        seq[0].fields.imm = ((sizes[b][k] - 4) / 4) as u16;
                    }
                    for (i, inst) in seq.iter().enumerate() {
                        encode(inst, family, &mut code).map_err(|source| EmitError::Encode {
                            inst: isa::mir::DisplayInst(inst, family).to_string(),
                            source,
                        })?;
                        inst_count += 1;
                        if let Some(f) = text {
                            let note = if i + 1 == seq.len() {
                                format!(" ; long branch to .LBB{f}_{t}")
                            } else {
                                String::new()
                            };
                            let _ = writeln!(asm, "\t{}{note}", print_inst(inst, family, func.wave_size));
                        }
                    }
                    if code.len() - start != sizes[b][k] {
                        return Err(EmitError::BadBranch { block: b, what: "a long branch changed size" });
                    }
                    continue;
                }
                (Some(t), None) => {
                    let here = code.len() as i64;
                    let offset = (starts[t] as i64 - (here + 4)) / 4;
                    let offset = i16::try_from(offset).map_err(|_| EmitError::BranchTooFar { block: b, offset })?;
                    p.inst.fields.imm = offset as u16;
                }
                (None, _) => {
                    let size = sizes[b][k];
                    code.extend_from_slice(&encoded[encoded_at..encoded_at + size]);
                    encoded_at += size;
                }
            }
            if p.target.is_some() {
                encode(&p.inst, family, &mut code).map_err(|source| EmitError::Encode {
                    inst: isa::mir::DisplayInst(&p.inst, family).to_string(),
                    source,
                })?;
            }
            inst_count += 1;
            let Some(f) = text else { continue };
            match p.target {
                Some(t) => {
                    let _ = writeln!(asm, "\t{} .LBB{f}_{t}", p.inst.opcode.name(family));
                }
                None => {
                    let _ = writeln!(asm, "\t{}", print_inst(&p.inst, family, func.wave_size));
                }
            }
        }
    }
    let next_free_sgpr = pair.map_or(0, |p| p.index() + 2);
    Ok(Assembled { code, asm, inst_count, next_free_sgpr })
}
