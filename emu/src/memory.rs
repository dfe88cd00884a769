//! The memory a wave reaches: global memory (the [`Device`]'s buffers), its work-group's LDS,
//! and each lane's private segment (scratch); FLAT addresses select one of them by aperture.
//!
//! Apertures (GFX9 and GFX11 alike, as `src_shared_base` and `src_private_base` report them):
//! a 64-bit FLAT address whose high dword is [`SHARED_APERTURE_HI`] is an LDS address, one
//! whose high dword is [`PRIVATE_APERTURE_HI`] a private (scratch) address of the lane, and any
//! other a global address. Scratch is per lane and unswizzled, as FLAT scratch addresses are
//! seen by the program; the private segment of a lane is the kernel's
//! `private_segment_fixed_size` bytes.
//!
//! Every access is bounds-checked when the instruction issues, so a faulting instruction
//! changes nothing. What a memory operation does to global memory and LDS is an [`Action`]
//! performed when the operation completes (see [`crate::waitcnt_check`]): a load's reads, a
//! store's writes ([`PendingStore`]), an atomic's read-modify-writes. Scratch is the wave's
//! alone, so scratch accesses are performed at issue.

use crate::device::Device;
use crate::error::FaultKind;
use crate::ops::mem::Half;
use crate::ops::AtomicOp;
use crate::waitcnt_check::PendingWrite;
use crate::wave::Wave;
use isa::reg::PhysReg;
use smallvec::SmallVec;

/// The high dword of the shared (LDS) aperture of FLAT addresses.
pub(crate) const SHARED_APERTURE_HI: u32 = 0x0001_0000;
/// The high dword of the private (scratch) aperture of FLAT addresses.
pub(crate) const PRIVATE_APERTURE_HI: u32 = 0x0002_0000;

/// Bytes of one access of one lane (at most 16 for VMEM, 8 for two LDS dwords pairs).
pub(crate) type Bytes = SmallVec<[u8; 16]>;

/// An address space.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// Global memory.
    Global,
    /// The work-group's LDS.
    Shared,
    /// The lane's private segment.
    Private,
}

impl Space {
    /// The space's name in error messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Private => "private",
        }
    }
}

/// The space and address within it of a FLAT address.
pub(crate) fn resolve_flat(addr: u64) -> (Space, u64) {
    match (addr >> 32) as u32 {
        SHARED_APERTURE_HI => (Space::Shared, addr & 0xffff_ffff),
        PRIVATE_APERTURE_HI => (Space::Private, addr & 0xffff_ffff),
        _ => (Space::Global, addr),
    }
}

/// A store in flight: what each lane writes where (global memory or LDS; a FLAT store may
/// reach both).
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingStore {
    /// The lowest and one past the highest byte written, to skip unrelated reads fast.
    lo: u64,
    hi: u64,
    /// Each access: space, address and bytes.
    accesses: Vec<(Space, u64, Bytes)>,
}

impl PendingStore {
    /// An empty store.
    pub(crate) fn new() -> PendingStore {
        PendingStore { lo: u64::MAX, hi: 0, accesses: Vec::new() }
    }

    /// Adds one access.
    pub(crate) fn push(&mut self, space: Space, addr: u64, bytes: Bytes) {
        self.lo = self.lo.min(addr);
        self.hi = self.hi.max(addr + bytes.len() as u64);
        self.accesses.push((space, addr, bytes));
    }

    /// Whether it writes nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.accesses.is_empty()
    }

    /// Copies the bytes it writes within `[addr, addr + out.len())` into `out`.
    pub(crate) fn overlay(&self, space: Space, addr: u64, out: &mut [u8]) {
        let end = addr + out.len() as u64;
        if end <= self.lo || addr >= self.hi {
            return;
        }
        for (_, a, bytes) in self.accesses.iter().filter(|(s, ..)| *s == space) {
            let (start, stop) = ((*a).max(addr), (a + bytes.len() as u64).min(end));
            for p in start..stop {
                out[(p - addr) as usize] = bytes[(p - a) as usize];
            }
        }
    }
}

/// Each lane's private segment of a wave.
#[derive(Clone, Debug, Default)]
pub(crate) struct Private {
    per_lane: u32,
    data: Vec<u8>,
    /// Without architected flat scratch, the wave's scratch base that FLAT_SCRATCH must hold
    /// for a private access (Flat Scratch Init plus the wave's Scratch Wavefront Offset).
    pub(crate) base: Option<u64>,
}

impl Private {
    /// `per_lane` bytes for each of `lanes` lanes, zero-filled.
    pub(crate) fn new(per_lane: u32, lanes: u32) -> Private {
        Private { per_lane, data: vec![0; per_lane as usize * lanes as usize], base: None }
    }

    fn range(&self, lane: u32, addr: u64, len: u32) -> Result<std::ops::Range<usize>, String> {
        if addr + len as u64 > self.per_lane as u64 {
            return Err(format!(": the private segment has {} bytes per lane", self.per_lane));
        }
        let start = lane as usize * self.per_lane as usize + addr as usize;
        Ok(start..start + len as usize)
    }
}

/// The memory an instruction of a wave reaches besides the wave's own private segment.
pub(crate) struct Memory<'a> {
    /// Global memory.
    pub(crate) device: &'a mut Device,
    /// The work-group's LDS.
    pub(crate) lds: &'a mut [u8],
}

fn oob(space: Space, lane: u32, addr: u64, len: u32, detail: String) -> FaultKind {
    FaultKind::OutOfBounds { lane, space: space.name(), addr, len, detail }
}

impl Memory<'_> {
    /// Checks that `len` bytes at `addr` of `space` exist for `lane` of `wave`.
    pub(crate) fn check(&self, wave: &Wave, space: Space, lane: u32, addr: u64, len: u32) -> Result<(), FaultKind> {
        match space {
            Space::Global => self.device.read(addr, len).map(|_| ()).map_err(|e| oob(space, lane, addr, len, e.detail)),
            Space::Shared => {
                if addr + len as u64 > self.lds.len() as u64 {
                    let detail = format!(": the work-group has {} bytes of LDS", self.lds.len());
                    return Err(oob(space, lane, addr, len, detail));
                }
                Ok(())
            }
            Space::Private => {
                if let Some(expected) = wave.private.base.filter(|&b| b != wave.flat_scratch()) {
                    return Err(FaultKind::FlatScratch { found: wave.flat_scratch(), expected });
                }
                wave.private.range(lane, addr, len).map(|_| ()).map_err(|d| oob(space, lane, addr, len, d))
            }
        }
    }

    /// Reads `len` bytes at `addr` of global memory or LDS as they are now (checked when the
    /// operation issued).
    pub(crate) fn read_now(&self, space: Space, addr: u64, len: u32) -> Bytes {
        match space {
            Space::Global => SmallVec::from_slice(self.device.read(addr, len).expect("checked when the access issued")),
            Space::Shared => SmallVec::from_slice(&self.lds[addr as usize..addr as usize + len as usize]),
            Space::Private => unreachable!("private reads are performed by the wave"),
        }
    }

    /// Writes `bytes` at `addr` of `space` now (already checked; for stores that complete and
    /// for atomics).
    pub(crate) fn write_now(&mut self, space: Space, addr: u64, bytes: &[u8]) {
        match space {
            Space::Global => self.device.write(addr, bytes).expect("checked when the store issued"),
            Space::Shared => self.lds[addr as usize..addr as usize + bytes.len()].copy_from_slice(bytes),
            Space::Private => unreachable!("private stores are written by the wave"),
        }
    }

    /// Applies a store that has completed.
    pub(crate) fn apply(&mut self, store: &PendingStore) {
        for (space, addr, bytes) in &store.accesses {
            self.write_now(*space, *addr, bytes);
        }
    }
}

/// Reads `len` bytes of the private segment of `lane` (checked).
pub(crate) fn read_private(wave: &Wave, lane: u32, addr: u64, len: u32) -> Result<Bytes, FaultKind> {
    let r = wave.private.range(lane, addr, len).map_err(|d| oob(Space::Private, lane, addr, len, d))?;
    Ok(SmallVec::from_slice(&wave.private.data[r]))
}

/// Writes `bytes` to the private segment of `lane` (already checked).
pub(crate) fn write_private(wave: &mut Wave, lane: u32, addr: u64, bytes: &[u8]) {
    let r = wave.private.range(lane, addr, bytes.len() as u32).expect("checked before writing");
    wave.private.data[r].copy_from_slice(bytes);
}

/// What a memory operation does to global memory and LDS, performed when it completes.
#[derive(Debug)]
pub(crate) enum Action {
    /// Performed (or nothing to do): the register writes it makes.
    Done(Vec<PendingWrite>),
    /// Reads, and the registers they fill.
    Load(LoadAction),
    /// Writes.
    Store(PendingStore),
    /// Read-modify-writes, and the registers the old values fill.
    Atomic(AtomicAction),
}

impl Action {
    /// Performs a store or an atomic (a load needs its overlay: [`LoadAction::perform`]).
    pub(crate) fn perform(self, mem: &mut Memory) -> Vec<PendingWrite> {
        match self {
            Action::Done(writes) => writes,
            Action::Load(load) => load.perform(mem, |_, _, _| {}),
            Action::Store(store) => {
                mem.apply(&store);
                Vec::new()
            }
            Action::Atomic(atomic) => atomic.perform(mem),
        }
    }
}

/// One read of a lane: bytes read at issue (private memory), or global or LDS bytes to read
/// when the load completes.
#[derive(Debug)]
pub(crate) enum Part {
    /// Already read.
    Fixed(Bytes),
    /// To read: space, address, length.
    Read(Space, u64, u32),
}

/// How loaded bytes fill registers.
#[derive(Clone, Debug)]
pub(crate) enum Layout {
    /// Consecutive SGPRs from `dst`.
    Scalar {
        /// The first SGPR.
        dst: PhysReg,
    },
    /// Consecutive VGPRs from `dst`, in the lanes of `exec`.
    Vector {
        /// The first VGPR.
        dst: PhysReg,
        /// The lanes written.
        exec: u64,
        /// Lanes per wave.
        wave_size: u32,
        /// Bytes per lane (sub-dword values are extended).
        bytes: u8,
        /// Sign-extend a sub-dword value.
        signed: bool,
        /// Which half a 16-bit load writes.
        half: Half,
        /// For a half load, each lane's kept register value (read at issue).
        kept: Vec<u32>,
    },
}

impl Layout {
    /// Whole dwords from `dst` in the active lanes of `wave` (`bytes` per lane).
    pub(crate) fn whole(wave: &Wave, dst: PhysReg, bytes: u8) -> Layout {
        Layout::Vector {
            dst,
            exec: wave.exec(),
            wave_size: wave.wave_size,
            bytes,
            signed: false,
            half: Half::Full,
            kept: Vec::new(),
        }
    }

    /// The registers it writes.
    pub(crate) fn dests(&self, bytes_per_lane: u32) -> Vec<PhysReg> {
        let (dst, dwords) = match self {
            Layout::Scalar { dst } => (*dst, bytes_per_lane.div_ceil(4)),
            Layout::Vector { dst, bytes, .. } => (*dst, (*bytes as u32).div_ceil(4).max(1)),
        };
        (0..dwords as u16).map(|i| dst.advance(i)).collect()
    }

    /// The register writes of `per_lane` loaded bytes (for a scalar load, lane 0's).
    pub(crate) fn writes(&self, per_lane: &[(u32, Bytes)]) -> Vec<PendingWrite> {
        match self {
            Layout::Scalar { dst } => {
                let data = per_lane.first().map(|(_, b)| b.as_slice()).unwrap_or_default();
                data.chunks(4)
                    .enumerate()
                    .map(|(i, c)| PendingWrite::Scalar {
                        reg: dst.advance(i as u16),
                        value: u32::from_le_bytes(c.try_into().expect("whole dwords")),
                    })
                    .collect()
            }
            Layout::Vector { dst, exec, wave_size, bytes, signed, half, kept } => {
                let dwords = (*bytes as u16).div_ceil(4).max(1);
                let mut values = vec![vec![0u32; *wave_size as usize]; dwords as usize];
                for (lane, data) in per_lane {
                    for (i, chunk) in data.chunks(4).enumerate() {
                        let mut word = [0u8; 4];
                        word[..chunk.len()].copy_from_slice(chunk);
                        let mut v = u32::from_le_bytes(word);
                        if *signed && *bytes < 4 {
                            let shift = 32 - 8 * *bytes as u32;
                            v = (((v << shift) as i32) >> shift) as u32;
                        }
                        if *half != Half::Full {
                            let v16 = v & 0xffff;
                            let old = kept.get(*lane as usize).copied().unwrap_or(0);
                            v = if *half == Half::Hi { (old & 0xffff) | v16 << 16 } else { (old & 0xffff_0000) | v16 };
                        }
                        values[i][*lane as usize] = v;
                    }
                }
                values
                    .into_iter()
                    .enumerate()
                    .map(|(i, values)| PendingWrite::Vector { reg: dst.advance(i as u16), lanes: *exec, values })
                    .collect()
            }
        }
    }
}

/// A load's reads: each lane's parts, concatenated, fill the registers as `layout` says.
#[derive(Debug)]
pub(crate) struct LoadAction {
    /// Each lane and its parts.
    pub(crate) lanes: Vec<(u32, SmallVec<[Part; 2]>)>,
    /// Where the bytes go.
    pub(crate) layout: Layout,
}

impl LoadAction {
    /// Reads memory now, through the wave's older stores still in flight (`overlay`), and
    /// returns the register writes.
    pub(crate) fn perform(self, mem: &Memory, overlay: impl Fn(Space, u64, &mut [u8])) -> Vec<PendingWrite> {
        let per_lane: Vec<(u32, Bytes)> = self
            .lanes
            .into_iter()
            .map(|(lane, parts)| {
                let mut bytes = Bytes::new();
                for part in parts {
                    match part {
                        Part::Fixed(b) => bytes.extend_from_slice(&b),
                        Part::Read(space, addr, len) => {
                            let mut b = mem.read_now(space, addr, len);
                            overlay(space, addr, &mut b);
                            bytes.extend_from_slice(&b);
                        }
                    }
                }
                (lane, bytes)
            })
            .collect();
        self.layout.writes(&per_lane)
    }
}

/// One lane's read-modify-write.
#[derive(Debug)]
pub(crate) struct AtomicTarget {
    /// The lane.
    pub(crate) lane: u32,
    /// Global memory or LDS.
    pub(crate) space: Space,
    /// The address.
    pub(crate) addr: u64,
    /// The data.
    pub(crate) src: u64,
    /// The compared value (compare-and-swap) or second operand (`mskor`).
    pub(crate) cmp: u64,
}

/// An atomic's read-modify-writes, lane by lane, and where the old values go.
#[derive(Debug)]
pub(crate) struct AtomicAction {
    /// The operation.
    pub(crate) op: AtomicOp,
    /// 64-bit values.
    pub(crate) wide: bool,
    /// Each lane's access, in lane order.
    pub(crate) targets: Vec<AtomicTarget>,
    /// Where the old values go, when the atomic returns them.
    pub(crate) ret: Option<Layout>,
}

impl AtomicAction {
    /// Performs the read-modify-writes and returns the old values' register writes.
    pub(crate) fn perform(self, mem: &mut Memory) -> Vec<PendingWrite> {
        let bytes = if self.wide { 8 } else { 4 };
        let mut olds = Vec::with_capacity(self.targets.len());
        for t in &self.targets {
            let old_bytes = mem.read_now(t.space, t.addr, bytes);
            let mut old = [0u8; 8];
            old[..bytes as usize].copy_from_slice(&old_bytes);
            let new = crate::atomic::apply(self.op, self.wide, u64::from_le_bytes(old), t.src, t.cmp);
            mem.write_now(t.space, t.addr, &new.to_le_bytes()[..bytes as usize]);
            olds.push((t.lane, old_bytes));
        }
        self.ret.map_or_else(Vec::new, |layout| layout.writes(&olds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_addresses_select_an_aperture() {
        assert_eq!(resolve_flat(0x0001_0000_0000_0010), (Space::Shared, 0x10));
        assert_eq!(resolve_flat(0x0002_0000_0000_0020), (Space::Private, 0x20));
        assert_eq!(resolve_flat(0x0000_0003_0000_0020), (Space::Global, 0x3_0000_0020));
    }

    #[test]
    fn a_pending_store_overlays_only_what_it_writes() {
        let mut s = PendingStore::new();
        s.push(Space::Shared, 8, SmallVec::from_slice(&[1, 2, 3, 4]));
        let mut out = [0u8; 8];
        s.overlay(Space::Shared, 6, &mut out);
        assert_eq!(out, [0, 0, 1, 2, 3, 4, 0, 0]);
        let mut out = [9u8; 4];
        s.overlay(Space::Global, 8, &mut out);
        assert_eq!(out, [9; 4]);
    }
}
