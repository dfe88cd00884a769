//! Program control (SOPP, and `s_setpc_b64`): branches, the end of the program, barriers, waits, messages, and
//! the scheduling hints `s_nop`, `s_delay_alu` and `s_clause`, which change nothing in an
//! emulator but whose fields are checked, so a malformed hint in generated code is reported;
//! an `s_clause` must cover instructions of one clause kind, `s_nop`s aside
//! (`isa::hazard::clause_kind`).
//!
//! `s_waitcnt` and its one-counter forms retire what the wait guarantees (see
//! [`crate::waitcnt_check`]) and write the results into the wave's registers and the completed
//! stores into memory. `s_waitcnt_depctr` matters only to the hazard checks.

use crate::error::FaultKind;
use crate::exec::{ExecCtx, Flow};
use crate::hazard::MSG_DEALLOC_VGPRS;
use crate::ops::{Cond, Op};
use crate::program::Decoded;
use crate::waitcnt_check::Counter;
use crate::wave::Wave;
use isa::asm::waitcnt_decode;
use isa::hazard::{clause_kind, ClauseKind};
use isa::processor::Generation;
use isa::reg::PhysReg;

/// Executes a program-control instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: Op, cx: &mut ExecCtx<'_>) -> Result<Flow, FaultKind> {
    let imm = d.inst.fields.imm;
    let malformed = |detail: String| FaultKind::Malformed { opcode: d.name().to_string(), detail };
    Ok(match op {
        Op::Nop | Op::Depctr | Op::Hint => Flow::Next,
        // The wave's stores and atomics in flight land later (see `crate::dispatch`).
        Op::Endpgm => Flow::End,
        Op::Branch => Flow::Jump(branch_target(d)),
        // Code addresses are offsets from the kernel's entry, as `s_getpc_b64` gives them; an
        // address outside the code is reported by the fetch of the next instruction.
        Op::Setpc => {
            let reg = d.inst.ops.first().and_then(|o| o.reg).ok_or_else(|| malformed("no address operand".into()))?;
            Flow::Jump(wave.read_sregs(reg, 2)? as u32)
        }
        Op::CBranch(cond) => {
            let taken = match cond {
                Cond::Scc0 => !wave.scc(),
                Cond::Scc1 => wave.scc(),
                Cond::Vccz | Cond::Vccnz => {
                    let vcc = wave.read_sregs(PhysReg::VCC, wave.mask_dwords())?;
                    (vcc == 0) == (cond == Cond::Vccz)
                }
                Cond::Execz => wave.exec() == 0,
                Cond::Execnz => wave.exec() != 0,
            };
            if taken {
                Flow::Jump(branch_target(d))
            } else {
                Flow::Next
            }
        }
        Op::Barrier => {
            if cx.tgsplit {
                return Err(FaultKind::BarrierInSplitGroup);
            }
            Flow::Barrier
        }
        Op::Waitcnt => {
            let (vm, exp, lgkm) = waitcnt_decode(cx.family, imm);
            for (counter, n) in [(Counter::Vm, vm), (Counter::Exp, exp), (Counter::Lgkm, lgkm)] {
                if let Some(n) = n {
                    cx.wait(wave, counter, n.into(), Some(d.pc));
                }
            }
            Flow::Next
        }
        Op::WaitcntOne(counter) => {
            let reg = d.inst.ops.first().and_then(|o| o.reg).unwrap_or(PhysReg::NULL);
            if reg != PhysReg::NULL {
                return Err(FaultKind::Unimplemented {
                    opcode: d.name().to_string(),
                    detail: ": a count in a register (only null is supported)".into(),
                });
            }
            cx.wait(wave, counter, imm as u32, Some(d.pc));
            Flow::Next
        }
        Op::DelayAlu => {
            check_delay_alu(imm).map_err(malformed)?;
            Flow::Next
        }
        Op::Clause => {
            // simm16[5:0]: instructions in the clause minus one; [11:8]: the break span.
            if imm & !0x0f3f != 0 {
                return Err(malformed(format!("reserved bits set in {imm:#x}")));
            }
            let len = (imm & 0x3f) as u32 + 1;
            let mut pc = d.pc + d.size;
            let mut first: Option<ClauseKind> = None;
            for _ in 0..len {
                let next =
                    cx.code.at(pc).ok_or_else(|| malformed(format!("the clause of {len} runs past the code")))?;
                let kind = clause_kind(&next.inst, cx.family);
                if kind == ClauseKind::Illegal || first.is_some_and(|f| kind != f && kind != ClauseKind::Internal) {
                    return Err(malformed(format!("`{}` in a clause of {len} starting with {first:?}", next.name())));
                }
                if kind != ClauseKind::Internal {
                    first.get_or_insert(kind);
                }
                pc += next.size;
            }
            Flow::Next
        }
        Op::Sendmsg => {
            if imm == MSG_DEALLOC_VGPRS && cx.proc.generation >= Generation::Gfx11 {
                wave.release_vgprs();
                Flow::Next
            } else {
                return Err(FaultKind::Unimplemented {
                    opcode: d.name().to_string(),
                    detail: format!(": message {imm:#x}"),
                });
            }
        }
        Op::CodeEnd => return Err(malformed("executed the padding after the code".into())),
        _ => unreachable!("not a program-control op: {op:?}"),
    })
}

/// The target of a relative branch: the next instruction plus `simm16` dwords.
pub(crate) fn branch_target(d: &Decoded) -> u32 {
    (d.pc as i64 + 4 + d.inst.fields.imm as i16 as i64 * 4) as u32
}

/// Checks the fields of `s_delay_alu`: instid0 [3:0], instskip [6:4], instid1 [10:7], the
/// rest zero. Dependency kinds 0-11 are defined (none, VALU 1-4, TRANS32 1-3, FMA accumulate,
/// SALU cycles 1-3); skips 0-5 (same, next, skip 1-4).
fn check_delay_alu(imm: u16) -> Result<(), String> {
    let (id0, skip, id1) = (imm & 0xf, imm >> 4 & 7, imm >> 7 & 0xf);
    if imm >> 11 != 0 {
        return Err(format!("reserved bits set in {imm:#x}"));
    }
    if id0 > 11 || id1 > 11 {
        return Err(format!("undefined dependency kind in {imm:#x}"));
    }
    if skip > 5 {
        return Err(format!("undefined instskip {skip}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_alu_fields_are_checked() {
        // instid0(VALU_DEP_2) | instskip(NEXT) | instid1(VALU_DEP_2)
        assert!(check_delay_alu(0x0112).is_ok());
        assert!(check_delay_alu(0x000c).is_err());
        assert!(check_delay_alu(0x0070).is_err());
        assert!(check_delay_alu(0x0800).is_err());
    }
}
