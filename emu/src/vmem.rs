//! Memory instructions outside LDS: scalar loads (SMEM), FLAT, GLOBAL and SCRATCH loads,
//! stores and atomics, and the buffer cache-control operations (legal no-ops: the emulator's
//! memory is coherent). Addresses are computed and bounds-checked when the instruction issues;
//! a load's result goes to the in-flight tracker and reaches its registers only when a wait
//! retires it; a store's bytes travel with it (see [`crate::memory`]).
//!
//! Counters: SMEM counts in lgkmcnt and may complete out of order. GLOBAL and SCRATCH loads
//! (and returning atomics) count in vmcnt, in order; stores and non-returning atomics in
//! vscnt on GFX10+ and vmcnt before. FLAT counts in lgkmcnt too, in order on GFX10+ and out of
//! order on GFX9. Store data is read at issue; on GFX9 a wide store opens the store-data
//! hazard ([`crate::hazard`]).
//!
//! Operands (isa's table order): SMEM `defs[0]` the destination, `ops[0]` the base pair, then
//! an optional offset register, plus `fields.offset`. FLAT/GLOBAL/SCRATCH: `defs[0]` the
//! loaded or returned data (an atomic returns only when it has one), then among `ops` the
//! vector address (FLAT: 64-bit; GLOBAL: 64-bit, or a 32-bit offset when an SGPR-pair `saddr`
//! is given; SCRATCH: an optional 32-bit offset), the vector data, and the scalar `saddr`.

use crate::error::FaultKind;
use crate::exec::ExecCtx;
use crate::memory::{
    read_private, resolve_flat, write_private, Action, AtomicAction, AtomicTarget, Bytes, Layout, LoadAction, Part,
    PendingStore, Space,
};
use crate::ops::mem::Half;
use crate::ops::{mnemonic, AtomicOp, MemKind, Op, Segment, VmemOp};
use crate::program::Decoded;
use crate::waitcnt_check::{Counter, Issue, Order};
use crate::wave::{lanes, Src, Wave};
use isa::asm::waitcnt_max;
use isa::mir::{Inst, Operand, OperandKind};
use isa::processor::Generation;
use isa::reg::{PhysReg, RegType};
use smallvec::SmallVec;

/// Executes a scalar or vector memory instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: Op, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    match op {
        Op::SLoad { dwords } => scalar_load(wave, d, dwords, cx),
        Op::Vmem(m) => vector(wave, d, m, cx),
        Op::CacheControl => Ok(()),
        _ => unreachable!("not a memory op: {op:?}"),
    }
}

pub(crate) fn malformed(inst: &Inst, detail: &str) -> FaultKind {
    FaultKind::Malformed { opcode: mnemonic(inst.opcode).to_string(), detail: detail.to_string() }
}

/// The most operations `counter` holds: its `s_waitcnt` field's maximum (vscnt: 6 bits).
pub(crate) fn counter_limit(cx: &ExecCtx<'_>, counter: Counter) -> u32 {
    let (vm, exp, lgkm) = waitcnt_max(cx.family);
    match counter {
        Counter::Vm => vm.into(),
        Counter::Exp => exp.into(),
        Counter::Lgkm => lgkm.into(),
        Counter::Vs => 63,
    }
}

/// Puts a memory operation in flight. With a counter full, the hardware stalls the issue until
/// one of its operations completes: the oldest ones are completed first.
pub(crate) fn issue(wave: &mut Wave, cx: &mut ExecCtx<'_>, issue: Issue) -> Result<(), FaultKind> {
    for &c in issue.counters {
        let limit = counter_limit(cx, c).max(1);
        if wave.mem.count(c) >= limit {
            cx.wait(wave, c, limit - 1, None);
        }
    }
    let read_now = cx.read_at_issue;
    let mut mem = cx.memory();
    wave.mem.issue(issue, read_now, &mut mem)
}

fn scalar_load(wave: &mut Wave, d: &Decoded, dwords: u16, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let dst = inst.defs.first().and_then(|d| d.reg).ok_or_else(|| malformed(inst, "the destination is missing"))?;
    let base = wave.scalar_operand(inst.ops.first().ok_or_else(|| malformed(inst, "the base is missing"))?, 2)?;
    let mut offset = inst.fields.offset as i64;
    for op in inst.ops.iter().skip(1) {
        offset += match (op.kind, op.reg) {
            (OperandKind::Const(v), _) => v as i64,
            (_, Some(PhysReg::NULL)) => 0,
            (_, Some(reg)) => wave.read_sreg(reg)? as i64,
            _ => 0,
        };
    }
    if dst.reg_type() != RegType::Sgpr || dst.0 + dwords > PhysReg::VCC.0 + 2 {
        return Err(malformed(inst, "the destination is not an SGPR tuple"));
    }
    wave.check_sdef(dst, dwords)?;
    // The hardware ignores the two low address bits of scalar loads.
    let addr = (base as i64).wrapping_add(offset) as u64 & !3;
    let len = dwords as u32 * 4;
    cx.memory().check(wave, Space::Global, 0, addr, len)?;
    let layout = Layout::Scalar { dst };
    let dests = layout.dests(len);
    let action = Action::Load(LoadAction {
        lanes: vec![(0, smallvec::smallvec![Part::Read(Space::Global, addr, len)])],
        layout,
    });
    let step = cx.step;
    issue(wave, cx, Issue { counters: &[Counter::Lgkm], order: Order::Unordered, pc: d.pc, dests, action, step })
}

/// Whether an operand is a register of the scalar file other than NULL (`saddr`).
fn is_scalar(op: &Operand) -> bool {
    matches!((op.kind, op.reg), (OperandKind::Phys(_) | OperandKind::Temp(_), Some(reg))
        if reg != PhysReg::NULL && reg.reg_type() == RegType::Sgpr)
}

/// Whether an operand is a vector register.
fn is_vector(op: &Operand) -> bool {
    op.constant_value().is_none() && op.reg.is_some_and(|r| r.reg_type() != RegType::Sgpr)
}

/// The per-lane addresses of a FLAT-family access.
struct Addressing {
    seg: Segment,
    vaddr: Option<(Src, u16)>,
    saddr: Option<u64>,
    offset: i64,
}

impl Addressing {
    /// Finds the address operands of `inst` (`has_data`: a store or atomic, whose vector data
    /// is the last vector operand).
    fn new(wave: &Wave, inst: &Inst, seg: Segment, has_data: bool) -> Result<(Addressing, Option<Operand>), FaultKind> {
        let vectors: SmallVec<[&Operand; 2]> = inst.ops.iter().filter(|o| is_vector(o)).collect();
        let saddr_op = inst.ops.iter().find(|o| is_scalar(o));
        let (addr_op, data_op) = match (has_data, vectors.len()) {
            (false, 1) => (Some(vectors[0]), None),
            (false, 0) => (None, None),
            (true, 2) => (Some(vectors[0]), Some(*vectors[1])),
            (true, 1) => (None, Some(*vectors[0])),
            _ => return Err(malformed(inst, "unexpected vector operands")),
        };
        if addr_op.is_none() && seg != Segment::Scratch {
            return Err(malformed(inst, "the address is missing"));
        }
        let saddr_dwords = if seg == Segment::Scratch { 1 } else { 2 };
        let saddr = match saddr_op {
            Some(op) if seg != Segment::Flat => Some(wave.scalar_operand(op, saddr_dwords)?),
            _ => None,
        };
        let vaddr_dwords = match seg {
            Segment::Flat => 2,
            Segment::Global if saddr.is_none() => 2,
            _ => 1,
        };
        let vaddr = match addr_op {
            Some(op) => Some((wave.vector_operand(op, vaddr_dwords)?, vaddr_dwords)),
            None => None,
        };
        Ok((Addressing { seg, vaddr, saddr, offset: inst.fields.offset as i64 }, data_op))
    }

    /// The space and address of `lane`'s access.
    fn lane(&self, wave: &Wave, lane: u32) -> (Space, u64) {
        let v = self.vaddr.map_or(0, |(src, dwords)| wave.src(src, lane, dwords));
        match self.seg {
            Segment::Flat => resolve_flat(v.wrapping_add(self.offset as u64)),
            Segment::Global => {
                let a = match self.saddr {
                    Some(base) => base.wrapping_add(v & 0xffff_ffff),
                    None => v,
                };
                (Space::Global, a.wrapping_add(self.offset as u64))
            }
            Segment::Scratch => {
                let a = (v & 0xffff_ffff) as i64 + self.saddr.map_or(0, |s| s as u32 as i64) + self.offset;
                // A negative private address is out of bounds (as a huge one).
                (Space::Private, a as u64)
            }
        }
    }
}

/// The counters a FLAT-family operation counts in and its order.
fn counters(cx: &ExecCtx<'_>, seg: Segment, returns_data: bool) -> (&'static [Counter], Order) {
    let gfx10 = cx.proc.generation >= Generation::Gfx10;
    let main = if returns_data || !gfx10 { Counter::Vm } else { Counter::Vs };
    match (seg, main) {
        (Segment::Flat, Counter::Vm) => {
            (&[Counter::Vm, Counter::Lgkm], if gfx10 { Order::Ordered } else { Order::Unordered })
        }
        (Segment::Flat, _) => (&[Counter::Vs, Counter::Lgkm], Order::Ordered),
        (_, Counter::Vm) => (&[Counter::Vm], Order::Ordered),
        _ => (&[Counter::Vs], Order::Ordered),
    }
}

fn vector(wave: &mut Wave, d: &Decoded, m: VmemOp, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    match m.kind {
        MemKind::Load { bytes, signed, half } => load(wave, d, m.seg, bytes, signed, half, cx),
        MemKind::Store { bytes, hi } => store(wave, d, m.seg, bytes, hi, cx),
        MemKind::Atomic { op, wide, .. } => atomic_op(wave, d, m.seg, op, wide, cx),
    }
}

fn load(
    wave: &mut Wave,
    d: &Decoded,
    seg: Segment,
    bytes: u8,
    signed: bool,
    half: Half,
    cx: &mut ExecCtx<'_>,
) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let (addressing, _) = Addressing::new(wave, inst, seg, false)?;
    let dst = inst.defs.first().and_then(|d| d.reg).ok_or_else(|| malformed(inst, "the destination is missing"))?;
    let dwords = (bytes as u16).div_ceil(4);
    wave.check_load_vdef(dst, dwords)?;
    if half != Half::Full {
        // The kept half is read now: it must not be in flight.
        wave.check_vuse(dst, 1)?;
    }
    let exec = wave.exec();
    let mut parts = Vec::with_capacity(exec.count_ones() as usize);
    {
        let mem = cx.memory();
        for lane in lanes(exec) {
            let (space, addr) = addressing.lane(wave, lane);
            let part = if space == Space::Private {
                Part::Fixed(read_private(wave, lane, addr, bytes as u32)?)
            } else {
                mem.check(wave, space, lane, addr, bytes as u32)?;
                Part::Read(space, addr, bytes as u32)
            };
            parts.push((lane, smallvec::smallvec![part]));
        }
    }
    let kept = if half == Half::Full {
        Vec::new()
    } else {
        (0..wave.wave_size).map(|lane| wave.vgpr(dst.index(), lane)).collect()
    };
    let layout = Layout::Vector { dst, exec, wave_size: wave.wave_size, bytes, signed, half, kept };
    let dests = layout.dests(bytes as u32);
    let (counters, order) = counters(cx, seg, true);
    let step = cx.step;
    let action = Action::Load(LoadAction { lanes: parts, layout });
    issue(wave, cx, Issue { counters, order, pc: d.pc, dests, action, step })
}

/// The first VGPR of the data of a store or atomic (`dwords` dwords), checked for reading.
fn data_vgpr(wave: &Wave, inst: &Inst, data: Option<Operand>, dwords: u16) -> Result<u16, FaultKind> {
    let op = data.ok_or_else(|| malformed(inst, "the data is missing"))?;
    let reg = op.reg.ok_or_else(|| malformed(inst, "the data is not in VGPRs"))?;
    wave.check_vuse(reg, dwords)
}

fn store(
    wave: &mut Wave,
    d: &Decoded,
    seg: Segment,
    bytes: u8,
    hi: bool,
    cx: &mut ExecCtx<'_>,
) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let (addressing, data_op) = Addressing::new(wave, inst, seg, true)?;
    let dwords = (bytes as u16).div_ceil(4);
    let data = data_vgpr(wave, inst, data_op, dwords)?;
    let exec = wave.exec();
    // Check every lane before writing any, so a faulting store changes nothing.
    let mut accesses: Vec<(u32, Space, u64, Bytes)> = Vec::with_capacity(exec.count_ones() as usize);
    {
        let mem = cx.memory();
        for lane in lanes(exec) {
            let (space, addr) = addressing.lane(wave, lane);
            mem.check(wave, space, lane, addr, bytes as u32)?;
            let mut buf = Bytes::new();
            for i in 0..dwords {
                let mut v = wave.vgpr(data + i, lane);
                if hi {
                    v >>= 16;
                }
                buf.extend_from_slice(&v.to_le_bytes());
            }
            buf.truncate(bytes as usize);
            accesses.push((lane, space, addr, buf));
        }
    }
    let mut pending = PendingStore::new();
    for (lane, space, addr, buf) in accesses {
        match space {
            Space::Private => write_private(wave, lane, addr, &buf),
            _ => pending.push(space, addr, buf),
        }
    }
    let (counters, order) = counters(cx, seg, false);
    let step = cx.step;
    let action = if pending.is_empty() { Action::Done(Vec::new()) } else { Action::Store(pending) };
    issue(wave, cx, Issue { counters, order, pc: d.pc, dests: Vec::new(), action, step })
}

fn atomic_op(
    wave: &mut Wave,
    d: &Decoded,
    seg: Segment,
    op: AtomicOp,
    wide: bool,
    cx: &mut ExecCtx<'_>,
) -> Result<(), FaultKind> {
    let inst = &d.inst;
    let (addressing, data_op) = Addressing::new(wave, inst, seg, true)?;
    let value_dwords: u16 = if wide { 2 } else { 1 };
    let data_dwords = if op == AtomicOp::CmpSwap { 2 * value_dwords } else { value_dwords };
    let data = data_vgpr(wave, inst, data_op, data_dwords)?;
    let ret = inst.defs.first().and_then(|d| d.reg).filter(|r| *r != PhysReg::NULL);
    if let Some(r) = ret {
        wave.check_load_vdef(r, value_dwords)?;
    }
    let exec = wave.exec();
    let bytes = 4 * value_dwords as u32;
    let word = |lane: u32, first: u16| wave.vgpr_wide(data + first, lane, value_dwords);
    let mut targets = Vec::with_capacity(exec.count_ones() as usize);
    {
        let mem = cx.memory();
        for lane in lanes(exec) {
            let (space, addr) = addressing.lane(wave, lane);
            if space == Space::Private {
                return Err(FaultKind::Unimplemented {
                    opcode: d.name().to_string(),
                    detail: format!(": an atomic on a private address (lane {lane}, {addr:#x})"),
                });
            }
            mem.check(wave, space, lane, addr, bytes)?;
            if !addr.is_multiple_of(bytes as u64) {
                return Err(malformed(inst, &format!("lane {lane}: the atomic's address {addr:#x} is misaligned")));
            }
            let src = word(lane, 0);
            let cmp = if op == AtomicOp::CmpSwap { word(lane, value_dwords) } else { 0 };
            targets.push(AtomicTarget { lane, space, addr, src, cmp });
        }
    }
    let ret = ret.map(|dst| Layout::whole(wave, dst, bytes as u8));
    let dests = ret.as_ref().map_or_else(Vec::new, |l| l.dests(bytes));
    let (counters, order) = counters(cx, seg, ret.is_some());
    let step = cx.step;
    let action = Action::Atomic(AtomicAction { op, wide, targets, ret });
    issue(wave, cx, Issue { counters, order, pc: d.pc, dests, action, step })
}
