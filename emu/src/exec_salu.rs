//! The scalar ALU (SOP1, SOP2, SOPK, SOPC): integer and bitwise operations on 32- or 64-bit
//! values in SGPRs, with SCC as carry or "result is not zero", the `*_saveexec` family that
//! opens divergent regions, scalar compares and `s_getpc_b64`. Semantics follow AMD's ISA
//! pseudocode (and the ACO errata: `s_bfe_*` does write SCC).
//!
//! Operands: `defs[0]` is the destination; `ops[0]` and `ops[1]` the sources (SOPK: the
//! 16-bit immediate in `fields.imm`, and for `s_cmpk_*` the register in `ops[0]`).

use crate::error::FaultKind;
use crate::ops::{Op, SAlu, Ty};
use crate::program::Decoded;
use crate::wave::Wave;
use isa::mir::Inst;
use isa::reg::PhysReg;

/// Executes a scalar ALU instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: Op) -> Result<(), FaultKind> {
    let inst = &d.inst;
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
        Op::SCmpk(cmp, ty) => {
            let a = wave.scalar_operand(operand(inst, 0)?, 1)?;
            let imm = inst.fields.imm;
            let b = if ty == Ty::I32 { imm as i16 as i32 as u32 as u64 } else { imm as u64 };
            wave.set_scc(cmp.eval(ty, a, b));
            Ok(())
        }
        Op::SBitcmp { one, dwords } => {
            let a = wave.scalar_operand(operand(inst, 0)?, dwords)?;
            let bit = wave.scalar_operand(operand(inst, 1)?, 1)? & (32 * dwords as u64 - 1);
            wave.set_scc((a >> bit & 1 != 0) == one);
            Ok(())
        }
        Op::Getpc => {
            // The byte offset of the next instruction from the kernel's entry: code addresses
            // are offsets in the emulator (there is no code in device memory).
            wave.write_sregs(dest(inst)?, 2, (d.pc + d.size) as u64)
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
        SAlu::Movk | SAlu::Cmovk => 0,
        SAlu::Mov
        | SAlu::Cmov
        | SAlu::Not
        | SAlu::Abs
        | SAlu::Sext8
        | SAlu::Sext16
        | SAlu::Bcnt0
        | SAlu::Bcnt1
        | SAlu::Brev
        | SAlu::Ctz
        | SAlu::Clz
        | SAlu::Cls
        | SAlu::Bitset0
        | SAlu::Bitset1 => 1,
        SAlu::Addk | SAlu::Mulk => 0,
        _ => 2,
    };
    // Shift amounts, bit indices and bitfield specifications are 32-bit even in 64-bit
    // operations; bit-set operations read their (64-bit) destination.
    let width0 = match op {
        SAlu::Bitset0 | SAlu::Bitset1 | SAlu::Bfm => 1,
        _ => dwords,
    };
    let width1 = match op {
        SAlu::Lshl | SAlu::Lshr | SAlu::Ashr | SAlu::BfeU | SAlu::BfeI | SAlu::Bfm => 1,
        _ => dwords,
    };
    let a = if sources >= 1 { wave.scalar_operand(operand(inst, 0)?, width0)? } else { 0 };
    let b = if sources >= 2 { wave.scalar_operand(operand(inst, 1)?, width1)? } else { 0 };
    let dst = dest(inst)?;
    let old = match op {
        SAlu::Addk | SAlu::Mulk | SAlu::Cmov | SAlu::Cmovk | SAlu::Bitset0 | SAlu::Bitset1 => {
            wave.read_sregs(dst, dwords)?
        }
        _ => 0,
    };
    let imm = inst.fields.imm as i16 as i32 as u32 as u64;
    let scc_in = wave.scc() as u64;
    let shift = b & (bits as u64 - 1);
    let sext = |v: u64| if dwords == 2 { v as i64 } else { v as u32 as i32 as i64 };
    let nonzero = |v: u64| Some(v & mask != 0);
    // Operations whose result is one dword whatever their source width.
    let mut out_dwords = dwords;
    let (value, scc): (u64, Option<bool>) = match op {
        SAlu::Mov => (a, None),
        SAlu::Cmov => (if wave.scc() { a } else { old }, None),
        SAlu::Movk => (imm, None),
        SAlu::Cmovk => (if wave.scc() { imm } else { old }, None),
        SAlu::Addk => {
            let (v, overflow) = (old as u32 as i32).overflowing_add(imm as u32 as i32);
            (v as u32 as u64, Some(overflow))
        }
        SAlu::Mulk => ((old as u32).wrapping_mul(imm as u32) as u64, None),
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
        SAlu::MulHiI32 => ((((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) >> 32) as u64, None),
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
        SAlu::Bfm => {
            let (w, o) = (a & (bits as u64 - 1), b & (bits as u64 - 1));
            let ones = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            ((ones << o) & mask, None)
        }
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
        SAlu::AbsDiff => {
            let v = (a as u32 as i32).wrapping_sub(b as u32 as i32).wrapping_abs() as u32 as u64;
            (v, nonzero(v))
        }
        SAlu::Sext8 => (a as u8 as i8 as i32 as u32 as u64, None),
        SAlu::Sext16 => (a as u16 as i16 as i32 as u32 as u64, None),
        SAlu::Bcnt0 | SAlu::Bcnt1 => {
            out_dwords = 1;
            let ones = (a & mask).count_ones() as u64;
            let v = if op == SAlu::Bcnt1 { ones } else { bits as u64 - ones };
            (v, Some(v != 0))
        }
        SAlu::Brev => {
            let v = if dwords == 2 { a.reverse_bits() } else { (a as u32).reverse_bits() as u64 };
            (v, None)
        }
        SAlu::Ctz => {
            out_dwords = 1;
            let v = a & mask;
            ((if v == 0 { u32::MAX } else { v.trailing_zeros() }) as u64, None)
        }
        SAlu::Clz => {
            out_dwords = 1;
            let v = a & mask;
            ((if v == 0 { u32::MAX } else { v.leading_zeros() - (64 - bits) }) as u64, None)
        }
        SAlu::Cls => {
            out_dwords = 1;
            let v = sext(a);
            let same = if v < 0 { (!v as u64).leading_zeros() } else { (v as u64).leading_zeros() };
            let n = same - (64 - bits);
            ((if n >= bits { u32::MAX } else { n }) as u64, None)
        }
        SAlu::Bitset0 => (old & !(1u64 << (a & (bits as u64 - 1))), None),
        SAlu::Bitset1 => (old | (1u64 << (a & (bits as u64 - 1))), None),
        SAlu::PackLl => ((a & 0xffff) | (b & 0xffff) << 16, None),
        SAlu::PackLh => ((a & 0xffff) | (b & 0xffff_0000), None),
        SAlu::PackHh => ((a >> 16 & 0xffff) | (b & 0xffff_0000), None),
    };
    let out_mask = if out_dwords == 2 { u64::MAX } else { 0xffff_ffff };
    wave.write_sregs(dst, out_dwords, value & out_mask)?;
    if let Some(scc) = scc {
        wave.set_scc(scc);
    }
    Ok(())
}
