//! LDS instructions (DS): loads and stores of 1 to 16 bytes, the two-address forms (`2addr`,
//! `read2`/`write2`, with the stride-64 variants), atomics with and without the old value
//! returned, and the cross-lane operations that go through the LDS unit (`ds_bpermute_b32`,
//! `ds_permute_b32`, `ds_swizzle_b32`). Everything counts in lgkmcnt, in order.
//!
//! Addresses are the 32-bit `addr` VGPR plus the instruction's offset (16 bits, or two 8-bit
//! offsets scaled by the element size, times 64 for `stride64`), within the work-group's LDS
//! allocation; anything outside it is an error naming the lane and the address. On GFX9 and
//! GFX11 LDS instructions do not use M0 (only GDS and the `addtid` forms do, which the emulator
//! does not execute).
//!
//! `ds_bpermute_b32`/`ds_permute_b32` address lanes by `addr / 4`: across the wave on gfx942,
//! within each half of a wave64 on GFX11 (the pseudocode's "lane modulo 32"); a source lane
//! that EXEC disables gives 0. `ds_swizzle_b32` has the bitmask (and, or, xor within 32 lanes)
//! and quad-permute modes everywhere and the FFT mode on GFX11; its rotate mode is not
//! implemented.
//!
//! Operands: `defs[0]` the returned data, if any; `ops[0]` the address (a VGPR), `ops[1]` and
//! `ops[2]` the data. `ds_cmpstore_b32` (GFX11) takes the new value first and the compared one
//! second; GFX9's `ds_cmpst_b32` the other way round.

use crate::error::FaultKind;
use crate::exec::ExecCtx;
use crate::memory::{Action, AtomicAction, AtomicTarget, Bytes, Layout, LoadAction, Part, PendingStore, Space};
use crate::ops::mem::Half;
use crate::ops::{AtomicOp, DsOp};
use crate::program::Decoded;
use crate::vmem::{issue, malformed};
use crate::waitcnt_check::{Counter, Issue, Order, PendingWrite};
use crate::wave::{lanes, Wave};
use isa::mir::Inst;
use isa::processor::Generation;
use isa::reg::PhysReg;
use smallvec::SmallVec;

const LGKM: &[Counter] = &[Counter::Lgkm];

/// Executes an LDS instruction.
pub(crate) fn execute(wave: &mut Wave, d: &Decoded, op: DsOp, cx: &mut ExecCtx<'_>) -> Result<(), FaultKind> {
    let inst = &d.inst;
    if inst.fields.gds {
        return Err(FaultKind::Unimplemented { opcode: d.name().to_string(), detail: ": GDS".into() });
    }
    let (dests, action) = match op {
        DsOp::Nop => (Vec::new(), Action::Done(Vec::new())),
        DsOp::Load { bytes, signed, half } => {
            let dst = vdst(inst)?;
            wave.check_load_vdef(dst, (bytes as u16).div_ceil(4))?;
            if half != Half::Full {
                wave.check_vuse(dst, 1)?;
            }
            load(wave, inst, cx, &[offset16(inst)], bytes as u32, dst, bytes, signed, half)?
        }
        DsOp::Load2 { dwords, st64 } => {
            let dst = vdst(inst)?;
            wave.check_load_vdef(dst, 2 * dwords as u16)?;
            let offsets = two_offsets(inst, dwords, st64);
            load(wave, inst, cx, &offsets, 4 * dwords as u32, dst, 8 * dwords, false, Half::Full)?
        }
        DsOp::Store { bytes, hi } => (Vec::new(), store(wave, inst, cx, &[offset16(inst)], bytes as u32, hi)?),
        DsOp::Store2 { dwords, st64 } => {
            (Vec::new(), store(wave, inst, cx, &two_offsets(inst, dwords, st64), 4 * dwords as u32, false)?)
        }
        DsOp::Atomic { op, wide, ret, cmp_first, .. } => atomic_op(wave, inst, cx, op, wide, ret, cmp_first)?,
        DsOp::Bpermute | DsOp::Permute => done(permute(wave, inst, cx, op == DsOp::Bpermute)?),
        DsOp::Swizzle => done(swizzle(wave, inst, cx)?),
    };
    let step = cx.step;
    issue(wave, cx, Issue { counters: LGKM, order: Order::Ordered, pc: d.pc, dests, action, step })
}

/// A register-only result (the cross-lane operations): its destinations and writes.
fn done(writes: Vec<PendingWrite>) -> (Vec<isa::reg::PhysReg>, Action) {
    let dests = writes
        .iter()
        .map(|w| match w {
            PendingWrite::Scalar { reg, .. } | PendingWrite::Vector { reg, .. } => *reg,
        })
        .collect();
    (dests, Action::Done(writes))
}

fn vdst(inst: &Inst) -> Result<PhysReg, FaultKind> {
    inst.defs.first().and_then(|d| d.reg).ok_or_else(|| malformed(inst, "the destination is missing"))
}

/// The 16-bit offset of a one-address operation.
fn offset16(inst: &Inst) -> u32 {
    inst.fields.offset as u32 & 0xffff
}

/// The two byte offsets of a two-address operation.
fn two_offsets(inst: &Inst, dwords: u8, st64: bool) -> [u32; 2] {
    let o = inst.fields.offset as u32;
    let scale = 4 * dwords as u32 * if st64 { 64 } else { 1 };
    [(o & 0xff) * scale, (o >> 8 & 0xff) * scale]
}

/// The address VGPR of each active lane, checked for reading.
fn addresses(wave: &Wave, inst: &Inst) -> Result<Vec<(u32, u32)>, FaultKind> {
    let op = inst.ops.first().ok_or_else(|| malformed(inst, "the address is missing"))?;
    let src = wave.vector_operand(op, 1)?;
    Ok(lanes(wave.exec()).map(|lane| (lane, wave.src(src, lane, 1) as u32)).collect())
}

/// The first VGPR of data operand `i` (1 or 2) of `dwords` dwords, checked for reading.
fn data(wave: &Wave, inst: &Inst, i: usize, dwords: u16) -> Result<u16, FaultKind> {
    let reg = inst.ops.get(i).and_then(|o| o.reg).ok_or_else(|| malformed(inst, "the data is missing"))?;
    wave.check_vuse(reg, dwords)
}

/// A load of `len` bytes at each offset from each active lane's address, concatenated per
/// lane into `bytes` bytes from `dst`.
#[allow(clippy::too_many_arguments)]
fn load(
    wave: &Wave,
    inst: &Inst,
    cx: &mut ExecCtx<'_>,
    offsets: &[u32],
    len: u32,
    dst: PhysReg,
    bytes: u8,
    signed: bool,
    half: Half,
) -> Result<(Vec<PhysReg>, Action), FaultKind> {
    let addrs = addresses(wave, inst)?;
    let mem = cx.memory();
    let mut lanes_parts = Vec::with_capacity(addrs.len());
    for (lane, addr) in addrs {
        let mut parts = SmallVec::new();
        for &o in offsets {
            let a = addr.wrapping_add(o) as u64;
            mem.check(wave, Space::Shared, lane, a, len)?;
            parts.push(Part::Read(Space::Shared, a, len));
        }
        lanes_parts.push((lane, parts));
    }
    let kept =
        if half == Half::Full { Vec::new() } else { (0..wave.wave_size).map(|l| wave.vgpr(dst.index(), l)).collect() };
    let layout = Layout::Vector { dst, exec: wave.exec(), wave_size: wave.wave_size, bytes, signed, half, kept };
    let dests = layout.dests(bytes as u32);
    Ok((dests, Action::Load(LoadAction { lanes: lanes_parts, layout })))
}

/// A store of `len` bytes of data operand 1 (and 2, for two offsets) at each offset.
fn store(
    wave: &Wave,
    inst: &Inst,
    cx: &mut ExecCtx<'_>,
    offsets: &[u32],
    len: u32,
    hi: bool,
) -> Result<Action, FaultKind> {
    let dwords = len.div_ceil(4) as u16;
    let addrs = addresses(wave, inst)?;
    let datas: Vec<u16> = (0..offsets.len()).map(|k| data(wave, inst, 1 + k, dwords)).collect::<Result<_, _>>()?;
    let mut pending = PendingStore::new();
    let mem = cx.memory();
    for &(lane, addr) in &addrs {
        for (k, &o) in offsets.iter().enumerate() {
            let a = addr.wrapping_add(o) as u64;
            mem.check(wave, Space::Shared, lane, a, len)?;
            let mut buf = Bytes::new();
            for i in 0..dwords {
                let mut v = wave.vgpr(datas[k] + i, lane);
                if hi {
                    v >>= 16;
                }
                buf.extend_from_slice(&v.to_le_bytes());
            }
            buf.truncate(len as usize);
            pending.push(Space::Shared, a, buf);
        }
    }
    Ok(if pending.is_empty() { Action::Done(Vec::new()) } else { Action::Store(pending) })
}

fn atomic_op(
    wave: &mut Wave,
    inst: &Inst,
    cx: &mut ExecCtx<'_>,
    op: AtomicOp,
    wide: bool,
    ret: bool,
    cmp_first: bool,
) -> Result<(Vec<PhysReg>, Action), FaultKind> {
    let dwords: u16 = if wide { 2 } else { 1 };
    let bytes = 4 * dwords as u32;
    let two = matches!(op, AtomicOp::CmpSwap | AtomicOp::MskOr);
    let d0 = data(wave, inst, 1, dwords)?;
    let d1 = if two { Some(data(wave, inst, 2, dwords)?) } else { None };
    let dst = if ret { Some(vdst(inst)?) } else { None };
    if let Some(r) = dst {
        wave.check_load_vdef(r, dwords)?;
    }
    let addrs = addresses(wave, inst)?;
    let offset = offset16(inst);
    let word = |lane: u32, first: u16| wave.vgpr_wide(first, lane, dwords);
    let mut targets = Vec::with_capacity(addrs.len());
    for (lane, addr) in addrs {
        let a = addr.wrapping_add(offset) as u64;
        cx.memory().check(wave, Space::Shared, lane, a, bytes)?;
        if !a.is_multiple_of(bytes as u64) {
            return Err(malformed(inst, &format!("lane {lane}: the atomic's address {a:#x} is misaligned")));
        }
        let (x, y) = (word(lane, d0), d1.map_or(0, |r| word(lane, r)));
        // The data of a compare-and-swap: the new value and the compared one. One opcode is
        // GFX11's DS_CMPSTORE (new value first) and GFX9's DS_CMPST (compared value first), and
        // the operation is classified by its GFX11 name: the family decides.
        let cmp_first = cmp_first || cx.family.is_gfx9();
        let (src, cmp) = if op == AtomicOp::CmpSwap && cmp_first { (y, x) } else { (x, y) };
        targets.push(AtomicTarget { lane, space: Space::Shared, addr: a, src, cmp });
    }
    let ret = dst.map(|dst| Layout::whole(wave, dst, bytes as u8));
    let dests = ret.as_ref().map_or_else(Vec::new, |l| l.dests(bytes));
    Ok((dests, Action::Atomic(AtomicAction { op, wide, targets, ret })))
}

/// The lane `addr` names for `ds_bpermute`/`ds_permute` from lane `lane`.
fn permute_lane(cx: &ExecCtx<'_>, wave_size: u32, lane: u32, addr: u32) -> u32 {
    let n = addr / 4;
    if cx.proc.generation >= Generation::Gfx10 {
        (lane & !31) | (n & 31)
    } else {
        n & (wave_size - 1)
    }
}

fn permute(wave: &mut Wave, inst: &Inst, cx: &mut ExecCtx<'_>, backward: bool) -> Result<Vec<PendingWrite>, FaultKind> {
    let dst = vdst(inst)?;
    wave.check_load_vdef(dst, 1)?;
    let d0 = data(wave, inst, 1, 1)?;
    let exec = wave.exec();
    let offset = offset16(inst);
    let addrs = addresses(wave, inst)?;
    let mut values = vec![0u32; wave.wave_size as usize];
    if backward {
        for (lane, addr) in addrs {
            let src = permute_lane(cx, wave.wave_size, lane, addr.wrapping_add(offset));
            values[lane as usize] = if exec >> src & 1 != 0 { wave.vgpr(d0, src) } else { 0 };
        }
    } else {
        let mut tmp = vec![0u32; wave.wave_size as usize];
        for (lane, addr) in addrs {
            let to = permute_lane(cx, wave.wave_size, lane, addr.wrapping_add(offset));
            tmp[to as usize] = wave.vgpr(d0, lane);
        }
        for lane in lanes(exec) {
            values[lane as usize] = tmp[lane as usize];
        }
    }
    Ok(vec![PendingWrite::Vector { reg: dst, lanes: exec, values }])
}

fn swizzle(wave: &mut Wave, inst: &Inst, cx: &mut ExecCtx<'_>) -> Result<Vec<PendingWrite>, FaultKind> {
    let dst = vdst(inst)?;
    wave.check_load_vdef(dst, 1)?;
    let src = inst.ops.first().ok_or_else(|| malformed(inst, "the source is missing"))?;
    let src = wave.vector_operand(src, 1)?;
    let exec = wave.exec();
    let offset = offset16(inst);
    let gfx10 = cx.proc.generation >= Generation::Gfx10;
    let source_of = |i: u32| -> Result<u32, FaultKind> {
        Ok(if gfx10 && offset >= 0xe000 {
            // FFT decomposition.
            let mask = offset & 0x1f;
            let mut j = ((i & 0x1f).reverse_bits() >> 27) >> mask.count_ones();
            j |= i & mask;
            j | (i & 0x20)
        } else if gfx10 && offset >= 0xc000 {
            return Err(FaultKind::Unimplemented {
                opcode: "ds_swizzle_b32".into(),
                detail: format!(": the rotate mode (offset {offset:#x})"),
            });
        } else if offset & 0x8000 != 0 {
            (i & !3) | (offset >> (2 * (i & 3)) & 3)
        } else {
            let (and, or, xor) = (offset & 0x1f, offset >> 5 & 0x1f, offset >> 10 & 0x1f);
            ((((i & 0x1f) & and) | or) ^ xor) | (i & !0x1f)
        })
    };
    let mut values = vec![0u32; wave.wave_size as usize];
    for lane in lanes(exec) {
        let j = source_of(lane)?;
        values[lane as usize] = if j < wave.wave_size && exec >> j & 1 != 0 { wave.src(src, j, 1) as u32 } else { 0 };
    }
    Ok(vec![PendingWrite::Vector { reg: dst, lanes: exec, values }])
}
