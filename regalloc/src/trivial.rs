//! The trivial register assignment of the thin end-to-end path: every temporary gets a
//! register of its own (aligned as its tuple requires), after the registers the kernel inputs
//! and other fixed operands occupy. It is correct for any SSA program and wasteful for all but
//! the smallest ones; the SSA allocator of the regalloc issue (demand-driven, with parallel
//! copies to make room for tuples) replaces it.

use crate::AllocError;
use isa::mir::{Function, OperandKind};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType};

/// What an allocation used: the descriptor's register counts come from here.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// One past the highest plain SGPR used (VCC and other specials excluded).
    pub sgprs: u16,
    /// One past the highest VGPR used.
    pub vgprs: u16,
    /// Whether VCC is read or written.
    pub uses_vcc: bool,
}

/// Aligns a register index for a tuple of `rc`: SGPR pairs at even registers and larger
/// SGPR tuples at multiples of 4; VGPR tuples at even registers where the processor requires.
fn align_for(rc: RegClass, next: u16, proc: &Processor) -> u16 {
    let align = match (rc.ty, rc.size) {
        (RegType::Sgpr, 2) => 2,
        (RegType::Sgpr, s) if s >= 4 => 4,
        (RegType::Vgpr | RegType::Agpr, s) if s >= 2 && proc.aligned_vgpr_tuples => 2,
        _ => 1,
    };
    next.next_multiple_of(align)
}

/// Assigns a physical register to every temporary of `func`, writing it into each definition
/// and operand.
pub fn assign(func: &mut Function, proc: &Processor) -> Result<Allocation, AllocError> {
    let mut reg_of: Vec<Option<PhysReg>> = vec![None; func.temps as usize];
    // Registers fixed by definitions or operands come first; the rest start after them.
    let (mut next_sgpr, mut next_vgpr) = (0u16, 0u16);
    let mut fix = |temp: isa::reg::Temp, reg: PhysReg, reg_of: &mut Vec<Option<PhysReg>>| -> Result<(), AllocError> {
        match reg_of[temp.id as usize] {
            Some(r) if r != reg => return Err(AllocError::ConflictingFixedRegisters { temp, first: r, second: reg }),
            _ => reg_of[temp.id as usize] = Some(reg),
        }
        let end = reg.index() + temp.rc.size as u16;
        match reg.reg_type() {
            RegType::Sgpr if reg.is_plain_sgpr() => next_sgpr = next_sgpr.max(end),
            RegType::Vgpr => next_vgpr = next_vgpr.max(end),
            _ => {}
        }
        Ok(())
    };
    for block in &func.blocks {
        for inst in &block.insts {
            for d in &inst.defs {
                if let (Some(t), Some(r)) = (d.temp, d.reg) {
                    fix(t, r, &mut reg_of)?;
                }
            }
            for op in &inst.ops {
                if let (OperandKind::Temp(t), Some(r)) = (op.kind, op.reg) {
                    fix(t, r, &mut reg_of)?;
                }
            }
        }
    }
    for block in &func.blocks {
        for inst in &block.insts {
            for d in &inst.defs {
                let Some(t) = d.temp else { continue };
                if reg_of[t.id as usize].is_some() {
                    continue;
                }
                let (next, limit) = match t.rc.ty {
                    RegType::Sgpr => (&mut next_sgpr, proc.sgprs),
                    RegType::Vgpr => (&mut next_vgpr, proc.vgprs),
                    RegType::Agpr => return Err(AllocError::Unsupported("AGPR temporaries")),
                };
                let start = align_for(t.rc, *next, proc);
                let end = start + t.rc.size as u16;
                if end > limit {
                    return Err(AllocError::DemandTooHigh {
                        kernel: func.name.clone(),
                        file: t.rc.ty,
                        demand: end,
                        limit,
                    });
                }
                *next = end;
                reg_of[t.id as usize] =
                    Some(if t.rc.ty == RegType::Sgpr { PhysReg::sgpr(start) } else { PhysReg::vgpr(start) });
            }
        }
    }
    let mut uses_vcc = false;
    for block in &mut func.blocks {
        for inst in &mut block.insts {
            for d in inst.defs.iter_mut() {
                if let Some(t) = d.temp {
                    d.reg = reg_of[t.id as usize];
                }
                uses_vcc |= d.reg == Some(PhysReg::VCC);
            }
            for op in inst.ops.iter_mut() {
                if let OperandKind::Temp(t) = op.kind {
                    op.reg = Some(reg_of[t.id as usize].ok_or(AllocError::UndefinedTemp(t))?);
                }
                uses_vcc |= op.reg == Some(PhysReg::VCC);
            }
        }
    }
    Ok(Allocation { sgprs: next_sgpr, vgprs: next_vgpr, uses_vcc })
}
