//! The scalar ALU (SOP1, SOP2, SOPK, SOPC): integer and bitwise operations on 32- or 64-bit
//! values in SGPRs, with SCC as carry or "result is not zero", the `*_saveexec` family that
//! opens divergent regions, and scalar compares. Semantics follow AMD's ISA pseudocode.
//!
//! Operands: `defs[0]` is the destination; `ops[0]` and `ops[1]` the sources (SOPK: the
//! 16-bit immediate in `fields.imm`).

use crate::error::FaultKind;
use crate::ops::{Op, SAlu};
use crate::wave::Wave;
use isa::mir::Inst;
use isa::reg::PhysReg;

/// Executes a scalar ALU instruction.
pub(crate) fn execute(wave: &mut Wave, inst: &Inst, op: Op) -> Result<(), FaultKind> {
    match op {
        Op::SAlu { op, dwords } => salu(wave, inst, op, dwords),
        Op::Saveexec(bit) => {
            let n = wave.mask_dwords();
            let src = wave.scalar_operand(operand(inst, 0)?, n)?;
            let dst = dest(inst)?;
            let old = wave.exec();
            wave.check_sdef(dst, n)?;
            let exec = bit.eval(src, old);
            wave.write_sregs(dst, n, old)?;
            wave.set_exec(exec);
            wave.set_scc(wave.exec() != 0);
            Ok(())
        }
        Op::SCmp(cmp, ty) => {
            let a = wave.scalar_operand(operand(inst, 0)?, ty.dwords())?;
            let b = wave.scalar_operand(operand(inst, 1)?, ty.dwords())?;
            wave.set_scc(cmp.eval(ty, a, b));
            Ok(())
        }
        _ => unreachable!("not a scalar ALU op: {op:?}"),
    }
}

fn operand(inst: &Inst, i: usize) -> Result<&isa::mir::Operand, FaultKind> {
    inst.ops.get(i).ok_or_else(|| FaultKind::Malformed {
        opcode: crate::ops::mnemonic(inst.opcode).to_string(),
        detail: format!("operand {i} is missing"),
    })
}

fn dest(inst: &Inst) -> Result<PhysReg, FaultKind> {
    inst.defs.first().and_then(|d| d.reg).ok_or_else(|| FaultKind::Malformed {
        opcode: crate::ops::mnemonic(inst.opcode).to_string(),
        detail: "the destination is missing".into(),
    })
}

fn salu(wave: &mut Wave, inst: &Inst, op: SAlu, dwords: u16) -> Result<(), FaultKind> {
    let bits = 32 * dwords as u32;
    let mask = if dwords == 2 { u64::MAX } else { 0xffff_ffff };
    let sources = match op {
        SAlu::Movk => 0,
        SAlu::Mov | SAlu::Not | SAlu::Abs | SAlu::Sext8 | SAlu::Sext16 => 1,
        _ => 2,
    };
    // Shift amounts and bitfield specifications are 32-bit even in 64-bit operations.
    let width1 = match op {
        SAlu::Lshl | SAlu::Lshr | SAlu::Ashr | SAlu::BfeU | SAlu::BfeI => 1,
        _ => dwords,
    };
    let a = if sources >= 1 { wave.scalar_operand(operand(inst, 0)?, dwords)? } else { 0 };
    let b = if sources >= 2 { wave.scalar_operand(operand(inst, 1)?, width1)? } else { 0 };
    let scc_in = wave.scc() as u64;
    let shift = b & (bits as u64 - 1);
    let sext = |v: u64| if dwords == 2 { v as i64 } else { v as u32 as i32 as i64 };
    let nonzero = |v: u64| Some(v & mask != 0);
    let (value, scc): (u64, Option<bool>) = match op {
        SAlu::Mov => (a, None),
        SAlu::Movk => (inst.fields.imm as i16 as i32 as u32 as u64, None),
        SAlu::Not => (!a, nonzero(!a)),
        SAlu::Bit(bit) => {
            let v = bit.eval(a, b);
            (v, nonzero(v))
        }
        SAlu::AddU32 | SAlu::AddcU32 => {
            let t = a + b + if op == SAlu::AddcU32 { scc_in } else { 0 };
            (t, Some(t >> 32 != 0))
        }
        SAlu::SubU32 | SAlu::SubbU32 => {
            let borrow = if op == SAlu::SubbU32 { scc_in } else { 0 };
            (a.wrapping_sub(b).wrapping_sub(borrow), Some(b + borrow > a))
        }
        SAlu::AddI32 | SAlu::SubI32 => {
            let (x, y) = (a as u32 as i32, b as u32 as i32);
            let (v, overflow) = if op == SAlu::AddI32 { x.overflowing_add(y) } else { x.overflowing_sub(y) };
            (v as u32 as u64, Some(overflow))
        }
        SAlu::MulI32 => ((a as u32).wrapping_mul(b as u32) as u64, None),
        SAlu::MulHiU32 => ((a * b) >> 32, None),
        SAlu::Lshl => {
            let v = a << shift;
            (v, nonzero(v))
        }
        SAlu::Lshr => {
            let v = (a & mask) >> shift;
            (v, nonzero(v))
        }
        SAlu::Ashr => {
            let v = (sext(a) >> shift) as u64;
            (v, nonzero(v))
        }
        SAlu::LshlAdd(n) => {
            let t = (a << n) + b;
            (t, Some(t >> 32 != 0))
        }
        SAlu::BfeU | SAlu::BfeI => {
            let offset = b & (bits as u64 - 1);
            let width = (b >> 16 & 0x7f).min(bits as u64);
            let field = if width == 0 { 0 } else { ((a & mask) >> offset) & (u64::MAX >> (64 - width)) };
            let v = if op == SAlu::BfeI && width > 0 && width < 64 {
                ((field << (64 - width)) as i64 >> (64 - width)) as u64
            } else {
                field
            };
            (v, nonzero(v))
        }
        SAlu::Bfm => ((((1u64 << (a & 31)) - 1) << (b & 31)) & 0xffff_ffff, None),
        SAlu::MinU | SAlu::MaxU | SAlu::MinI | SAlu::MaxI => {
            let pick_a = match op {
                SAlu::MinU => (a as u32) < (b as u32),
                SAlu::MaxU => (a as u32) >= (b as u32),
                SAlu::MinI => (a as u32 as i32) < (b as u32 as i32),
                _ => (a as u32 as i32) >= (b as u32 as i32),
            };
            (if pick_a { a } else { b }, Some(pick_a))
        }
        SAlu::Cselect => (if wave.scc() { a } else { b }, None),
        SAlu::Abs => {
            let v = (a as u32 as i32).wrapping_abs() as u32 as u64;
            (v, nonzero(v))
        }
        SAlu::Sext8 => (a as u8 as i8 as i32 as u32 as u64, None),
        SAlu::Sext16 => (a as u16 as i16 as i32 as u32 as u64, None),
    };
    let dst = dest(inst)?;
    wave.write_sregs(dst, dwords, value & mask)?;
    if let Some(scc) = scc {
        wave.set_scc(scc);
    }
    Ok(())
}
