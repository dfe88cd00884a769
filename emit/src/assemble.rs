//! Program assembly: lowers the last pseudo-instructions (branches become `s_branch` and
//! `s_cbranch_*` with word offsets, or vanish when they fall through; markers vanish), lays the
//! blocks out in linear order, encodes every instruction, and prints the same program as
//! assembly text that llvm-mc reassembles to the same bytes.

use crate::EmitError;
use isa::asm::print_inst;
use isa::encode::encode;
use isa::mir::{Function, Inst};
use isa::opcode::Opcode;
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
        Opcode::PStartPgm | Opcode::PLogicalStart | Opcode::PLogicalEnd => return Ok(None),
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

/// Assembles `func` into machine code, and into assembly text when `text` (printing costs a
/// good part of the time, so a compile that writes only an object skips it).
pub fn assemble(func: &Function, text: bool) -> Result<Assembled, EmitError> {
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
    // Sizes do not depend on branch offsets (SOPP is always one word), so one sizing pass
    // gives every block's address.
    let mut scratch = Vec::new();
    let mut starts = Vec::with_capacity(blocks.len() + 1);
    let mut addr = 0usize;
    for placed in &blocks {
        starts.push(addr);
        for p in placed {
            scratch.clear();
            encode(&p.inst, family, &mut scratch).map_err(|source| EmitError::Encode {
                inst: isa::mir::DisplayInst(&p.inst, family).to_string(),
                source,
            })?;
            addr += scratch.len();
        }
    }
    starts.push(addr);
    let mut code = Vec::with_capacity(addr);
    let mut asm = String::new();
    let mut inst_count = 0;
    for (b, placed) in blocks.iter_mut().enumerate() {
        if text {
            let _ = writeln!(asm, ".LBB{b}:");
        }
        for p in placed.iter_mut() {
            if let Some(t) = p.target {
                let here = code.len() as i64;
                let offset = (starts[t] as i64 - (here + 4)) / 4;
                let offset = i16::try_from(offset).map_err(|_| EmitError::BranchTooFar { block: b, offset })?;
                p.inst.fields.imm = offset as u16;
            }
            encode(&p.inst, family, &mut code).map_err(|source| EmitError::Encode {
                inst: isa::mir::DisplayInst(&p.inst, family).to_string(),
                source,
            })?;
            inst_count += 1;
            if !text {
                continue;
            }
            match p.target {
                Some(t) => {
                    let _ = writeln!(asm, "\t{} .LBB{t}", p.inst.opcode.name(family));
                }
                None => {
                    let _ = writeln!(asm, "\t{}", print_inst(&p.inst, family, func.wave_size));
                }
            }
        }
    }
    Ok(Assembled { code, asm, inst_count })
}
