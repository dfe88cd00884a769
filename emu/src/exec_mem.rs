//! Memory instructions: scalar loads (SMEM) and global loads and stores (FLAT, global
//! segment). Addresses are computed and memory is accessed when the instruction issues; a load's
//! result goes to the in-flight tracker and reaches its registers only when a wait retires it.
//!
//! Counters: SMEM counts in lgkmcnt and may complete out of order; global loads count in vmcnt,
//! in order; global stores count in vscnt on GFX10+ and in vmcnt before, in order. Store data is
//! read at issue; on GFX9 a wide store opens the store-data hazard window
//! ([`crate::hazard`]).
//!
//! Operands: SMEM `defs[0]` the destination, `ops[0]` the base pair, then an optional offset
//! register, plus `fields.offset`. Global loads: `defs[0]` the data, `ops[0]` the address (a
//! VGPR pair, or a 32-bit VGPR offset when `ops[1]` is an SGPR-pair base `saddr`). Global
//! stores: `ops[0]` the address, `ops[1]` the data, `ops[2]` the optional `saddr`.

use crate::device::Oob;
use crate::error::FaultKind;
use crate::exec::ExecCtx;
use crate::ops::{mnemonic, Op};
use crate::program::Decoded;
use crate::waitcnt_check::{Counter, Order, PendingWrite};
use crate::wave::{lanes, Src, Wave};
use isa::asm::waitcnt_max;
use isa::mir::{Inst, Operand, OperandKind};
use isa::processor::Generation;
use isa::reg::{PhysReg, RegType};

/// Executes a memory instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: Op, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    match op {
        Op::SLoad { dwords } => scalar_load(wave, d, dwords, cx),
        Op::GlobalLoad { bytes, signed } => global_load(wave, d, bytes, signed, cx),
        Op::GlobalStore { bytes } => global_store(wave, d, bytes, cx),
        _ => unreachable!("not a memory op: {op:?}"),
    }
}

fn malformed(inst: &Inst, detail: &str) -> FaultKind {
    FaultKind::Malformed { opcode: mnemonic(inst.opcode).to_string(), detail: detail.to_string() }
}

fn oob(lane: u32, addr: u64, len: u32, e: Oob) -> FaultKind {
    FaultKind::OutOfBounds { lane, space: "global", addr, len, detail: e.detail }
}

/// The most operations `counter` holds: its `s_waitcnt` field's maximum (vscnt: 6 bits).
fn counter_limit(cx: &ExecCtx<'_>, counter: Counter) -> u32 {
    let (vm, exp, lgkm) = waitcnt_max(cx.family);
    match counter {
        Counter::Vm => vm.into(),
        Counter::Exp => exp.into(),
        Counter::Lgkm => lgkm.into(),
        Counter::Vs => 63,
    }
}

/// Puts a memory operation in flight, completing the oldest ones of a full counter first.
fn issue(
    wave: &mut Wave,
    cx: &ExecCtx<'_>,
    counter: Counter,
    order: Order,
    pc: u32,
    writes: Vec<PendingWrite>,
) -> Result<(), FaultKind> {
    let done = wave.mem.issue(counter, order, pc, writes, counter_limit(cx, counter))?;
    wave.complete(done);
    Ok(())
}

fn scalar_load(wave: &mut Wave, d: &Decoded, dwords: u16, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let dst = inst.defs.first().and_then(|d| d.reg).ok_or_else(|| malformed(inst, "the destination is missing"))?;
    let base = wave.scalar_operand(inst.ops.first().ok_or_else(|| malformed(inst, "the base is missing"))?, 2)?;
    let mut offset = inst.fields.offset as i64;
    for op in inst.ops.iter().skip(1) {
        offset += match (op.kind, op.reg) {
            (OperandKind::Const(v), _) => v as i64,
            (_, Some(reg)) => wave.read_sreg(reg)? as i64,
            _ => 0,
        };
    }
    if dst.reg_type() != RegType::Sgpr || dst.0 + dwords > PhysReg::VCC.0 + 2 {
        return Err(malformed(inst, "the destination is not an SGPR tuple"));
    }
    // The hardware ignores the two low address bits of scalar loads.
    let addr = (base as i64).wrapping_add(offset) as u64 & !3;
    let len = dwords as u32 * 4;
    let data = cx.device.read(addr, len).map_err(|e| oob(0, addr, len, e))?;
    let writes = (0..dwords)
        .map(|i| PendingWrite::Scalar {
            reg: dst.advance(i),
            value: u32::from_le_bytes(data[4 * i as usize..4 * i as usize + 4].try_into().expect("4 bytes")),
        })
        .collect();
    issue(wave, cx, Counter::Lgkm, Order::Unordered, d.pc, writes)
}

/// The per-lane addresses of a global access: `vaddr` is the address operand, `saddr` the
/// optional SGPR-pair base.
struct Addressing {
    vaddr: Src,
    vaddr_dwords: u16,
    base: Option<u64>,
    offset: i64,
}

impl Addressing {
    fn new(wave: &Wave, inst: &Inst, vaddr: usize, saddr: usize) -> Result<Addressing, FaultKind> {
        let base = match inst.ops.get(saddr) {
            Some(op) if is_sgpr_base(op) => Some(wave.scalar_operand(op, 2)?),
            _ => None,
        };
        let vaddr_dwords = if base.is_some() { 1 } else { 2 };
        let op = inst.ops.get(vaddr).ok_or_else(|| malformed(inst, "the address is missing"))?;
        let vaddr = wave.vector_operand(op, vaddr_dwords)?;
        Ok(Addressing { vaddr, vaddr_dwords, base, offset: inst.fields.offset as i64 })
    }

    fn lane(&self, wave: &Wave, lane: u32) -> u64 {
        let v = wave.src(self.vaddr, lane, self.vaddr_dwords);
        let a = match self.base {
            Some(base) => base.wrapping_add(v & 0xffff_ffff),
            None => v,
        };
        a.wrapping_add(self.offset as u64)
    }
}

/// Whether a global instruction's `saddr` operand is present (a register other than NULL).
fn is_sgpr_base(op: &Operand) -> bool {
    matches!((op.kind, op.reg), (OperandKind::Phys(_) | OperandKind::Temp(_), Some(reg))
        if reg != PhysReg::NULL && reg.reg_type() == RegType::Sgpr)
}

fn global_load(wave: &mut Wave, d: &Decoded, bytes: u8, signed: bool, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let addressing = Addressing::new(wave, inst, 0, 1)?;
    let dst = inst.defs.first().and_then(|d| d.reg).ok_or_else(|| malformed(inst, "the destination is missing"))?;
    let dwords = (bytes as u16).div_ceil(4);
    wave.check_load_vdef(dst, dwords)?;
    let exec = wave.exec();
    let mut values = vec![vec![0u32; wave.wave_size as usize]; dwords as usize];
    for lane in lanes(exec) {
        let addr = addressing.lane(wave, lane);
        let data = cx.device.read(addr, bytes as u32).map_err(|e| oob(lane, addr, bytes as u32, e))?;
        for (i, chunk) in data.chunks(4).enumerate() {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            let mut v = u32::from_le_bytes(word);
            if signed && bytes < 4 {
                let shift = 32 - 8 * bytes as u32;
                v = (((v << shift) as i32) >> shift) as u32;
            }
            values[i][lane as usize] = v;
        }
    }
    let writes = values
        .into_iter()
        .enumerate()
        .map(|(i, values)| PendingWrite::Vector { reg: dst.advance(i as u16), lanes: exec, values })
        .collect();
    issue(wave, cx, Counter::Vm, Order::Ordered, d.pc, writes)
}

fn global_store(wave: &mut Wave, d: &Decoded, bytes: u8, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let addressing = Addressing::new(wave, inst, 0, 2)?;
    let data_op = inst.ops.get(1).ok_or_else(|| malformed(inst, "the data is missing"))?;
    let data_reg = data_op.reg.ok_or_else(|| malformed(inst, "the data is not in VGPRs"))?;
    let dwords = (bytes as u16).div_ceil(4);
    let data = wave.check_vuse(data_reg, dwords)?;
    let exec = wave.exec();
    // Check every lane before writing any, so a faulting store changes nothing.
    let mut accesses = Vec::with_capacity(exec.count_ones() as usize);
    for lane in lanes(exec) {
        let addr = addressing.lane(wave, lane);
        cx.device.read(addr, bytes as u32).map_err(|e| oob(lane, addr, bytes as u32, e))?;
        let mut buf = Vec::with_capacity(4 * dwords as usize);
        for i in 0..dwords {
            buf.extend_from_slice(&wave.vgpr(data + i, lane).to_le_bytes());
        }
        buf.truncate(bytes as usize);
        accesses.push((addr, buf));
    }
    for (addr, buf) in accesses {
        cx.device.write(addr, &buf).expect("checked above");
    }
    let counter = if cx.proc.generation >= Generation::Gfx10 { Counter::Vs } else { Counter::Vm };
    issue(wave, cx, counter, Order::Ordered, d.pc, Vec::new())?;
    wave.hazards.vmem_store(cx.proc, d.pc, data_reg, dwords);
    Ok(())
}
