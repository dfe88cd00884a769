//! Register demand and occupancy: how many registers of each file a set of live values needs
//! at once, counting tuples by size *and alignment* (two live 3-register VGPR tuples on gfx942,
//! where tuples start at even registers, need 7), and how many waves per SIMD a register count
//! lets the hardware run.
//!
//! The demand of a set of values is the end of their first-fit packing in a fixed order:
//! largest alignment first, tuples whose size is a multiple of their alignment before the
//! others, larger before smaller, each at the lowest aligned free interval. The assignment's
//! compaction packs in the same order, so whenever nothing is pinned it reaches the demand.
//!
//! AGPRs (gfx908, gfx90a, gfx942) are a file of their own for the demand and the assignment.
//! Occupancy itself, the waves per SIMD a register count allows, is `runtime_abi::occupancy`'s
//! (which the emulator's launch check reads too); this module turns it into register limits
//! for a wave target and room for the scheduler.

use crate::regset::RegSet;
use isa::processor::Processor;
use isa::reg::{RegClass, RegType};
pub use runtime_abi::descriptor::RegisterUse;
use runtime_abi::occupancy::{occupancy, Occupancy};

/// Registers needed at once, per file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegisterDemand {
    /// SGPRs (ordinary ones; values living in VCC, SCC, M0 or EXEC are not counted).
    pub sgprs: u16,
    /// VGPRs (ArchVGPRs).
    pub vgprs: u16,
    /// AGPRs (accumulation registers; 0 where the processor has none).
    pub agprs: u16,
}

impl RegisterDemand {
    /// The larger of two demands, file by file.
    pub fn max(self, other: RegisterDemand) -> RegisterDemand {
        RegisterDemand {
            sgprs: self.sgprs.max(other.sgprs),
            vgprs: self.vgprs.max(other.vgprs),
            agprs: self.agprs.max(other.agprs),
        }
    }

    /// The smaller of two demands, file by file.
    pub fn min(self, other: RegisterDemand) -> RegisterDemand {
        RegisterDemand {
            sgprs: self.sgprs.min(other.sgprs),
            vgprs: self.vgprs.min(other.vgprs),
            agprs: self.agprs.min(other.agprs),
        }
    }

    /// The same demand with file `file` (by [`file_index`]) at `value`.
    pub(crate) fn with(mut self, file: usize, value: u16) -> RegisterDemand {
        *[&mut self.sgprs, &mut self.vgprs, &mut self.agprs][file] = value;
        self
    }

    /// The demand of one file, by [`file_index`].
    pub(crate) fn of(&self, file: usize) -> u16 {
        [self.sgprs, self.vgprs, self.agprs][file]
    }

    /// The waves per SIMD a kernel needing exactly this many registers could reach (VCC
    /// assumed used, as nearly every kernel does, and XNACK_MASK and, without architected flat
    /// scratch, FLAT_SCRATCH reserved, which spills to scratch would set up).
    pub fn occupancy(&self, proc: &Processor, wave_size: u32) -> Occupancy {
        let regs = RegisterUse {
            vgprs: self.vgprs,
            agprs: self.agprs,
            sgprs: self.sgprs,
            uses_vcc: true,
            xnack_mask: true,
            flat_scratch: proc.flat_scratch == isa::processor::FlatScratch::Absolute,
            wave_size,
        };
        occupancy(proc, &regs)
    }
}

/// The most registers of each file a kernel may use and still run `waves` waves per SIMD on
/// `proc` (a wave target): VGPRs first (without AGPRs), then the AGPRs that fit beside them,
/// then SGPRs. A target above what the processor holds gives what its maximum allows.
pub fn limits_for_occupancy(proc: &Processor, wave_size: u32, waves: u16) -> RegisterDemand {
    let waves = waves.min(proc.max_waves_per_simd);
    let mut d = RegisterDemand { sgprs: 0, vgprs: 0, agprs: 0 };
    for (file, ty) in [(1, RegType::Vgpr), (2, RegType::Agpr), (0, RegType::Sgpr)] {
        d = d.with(file, most_in_file(d, file, file_limit(proc, ty), proc, wave_size, waves));
    }
    d
}

/// The largest demand, file by file, with which a kernel keeps the occupancy `demand`
/// reaches: what a scheduler may use without costing waves (ACO's `max_reg_demand` for its
/// target). Each file grows alone, up to what a wave may address.
pub fn room_at_occupancy(demand: RegisterDemand, proc: &Processor, wave_size: u32) -> RegisterDemand {
    let waves = demand.occupancy(proc, wave_size).waves_per_simd;
    let mut room = demand;
    for (file, ty) in [(0, RegType::Sgpr), (1, RegType::Vgpr)] {
        let most = most_in_file(demand, file, file_limit(proc, ty), proc, wave_size, waves);
        room = room.with(file, most.max(demand.of(file)));
    }
    room
}

/// The most registers of file `file`, at most `limit`, with which a kernel whose other files
/// are as in `base` still reaches `waves` waves per SIMD (occupancy falls as registers grow).
fn most_in_file(base: RegisterDemand, file: usize, limit: u16, proc: &Processor, wave_size: u32, waves: u16) -> u16 {
    let reaches = |n: u16| base.with(file, n).occupancy(proc, wave_size).waves_per_simd >= waves;
    // A binary search for the last count that reaches: `reaches` holds up to some count and
    // not above.
    let (mut lo, mut hi) = (0u16, limit);
    if reaches(hi) {
        return hi;
    }
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if reaches(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The alignment, in registers, of a tuple of class `rc` on `proc`: SGPR pairs at even
/// registers and wider SGPR tuples at multiples of 4; VGPR tuples at even registers where the
/// processor requires it (gfx90a, gfx942), anywhere otherwise.
pub fn alignment(rc: RegClass, proc: &Processor) -> u16 {
    match (rc.ty, rc.size) {
        (RegType::Sgpr, 2) => 2,
        (RegType::Sgpr, s) if s >= 3 => 4,
        (RegType::Vgpr | RegType::Agpr, s) if s >= 2 && proc.aligned_vgpr_tuples => 2,
        _ => 1,
    }
}

/// The register files allocation hands out: SGPRs, VGPRs, AGPRs.
pub(crate) const FILES: usize = 3;

/// The register type of each file, by [`file_index`].
pub(crate) const FILE_TYPES: [RegType; FILES] = [RegType::Sgpr, RegType::Vgpr, RegType::Agpr];

/// Index of a file in per-file tables: SGPRs 0, VGPRs 1, AGPRs 2.
pub(crate) fn file_index(ty: RegType) -> usize {
    match ty {
        RegType::Sgpr => 0,
        RegType::Vgpr => 1,
        RegType::Agpr => 2,
    }
}

/// How many registers of file `ty` a wave may address on `proc` (AGPRs: 0 without the file).
pub(crate) fn file_limit(proc: &Processor, ty: RegType) -> u16 {
    match ty {
        RegType::Sgpr => proc.sgprs,
        RegType::Vgpr => proc.vgprs,
        RegType::Agpr => proc.agprs,
    }
}

/// Live values counted by file and size, with the demand they make.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pressure {
    counts: [[u32; 17]; FILES],
    /// The linear VGPRs among the VGPRs counted, by size.
    linear: [u32; 17],
    /// How many linear VGPRs are counted.
    linear_count: u32,
}

impl Pressure {
    /// Counts one more value of class `rc`.
    pub(crate) fn add(&mut self, rc: RegClass) {
        let size = usize::from(rc.size.min(16));
        self.counts[file_index(rc.ty)][size] += 1;
        if rc.linear && rc.ty == RegType::Vgpr {
            self.linear[size] += 1;
            self.linear_count += 1;
        }
    }

    /// Counts one value of class `rc` less.
    pub(crate) fn remove(&mut self, rc: RegClass) {
        let size = usize::from(rc.size.min(16));
        let c = &mut self.counts[file_index(rc.ty)][size];
        *c = c.saturating_sub(1);
        if rc.linear && rc.ty == RegType::Vgpr && self.linear[size] > 0 {
            self.linear[size] -= 1;
            self.linear_count -= 1;
        }
    }

    /// The VGPRs the counted values other than linear VGPRs need on `proc`, given the VGPRs
    /// all of them need (`vgprs`, from [`Pressure::demand`]). The allocator keeps linear VGPRs
    /// in registers of their own above the others.
    pub(crate) fn plain_vgprs(&self, proc: &Processor, vgprs: u16) -> u16 {
        if self.linear_count == 0 {
            return vgprs;
        }
        let mut plain = self.counts[file_index(RegType::Vgpr)];
        for (c, l) in plain.iter_mut().zip(&self.linear) {
            *c -= l;
        }
        file_demand(&plain, RegType::Vgpr, proc)
    }

    /// The registers the counted values need on `proc`.
    pub(crate) fn demand(&self, proc: &Processor) -> RegisterDemand {
        let size = |file: RegType| file_demand(&self.counts[file_index(file)], file, proc);
        RegisterDemand { sgprs: size(RegType::Sgpr), vgprs: size(RegType::Vgpr), agprs: size(RegType::Agpr) }
    }
}

/// The registers of file `ty` that values counted by size in `counts` need on `proc`.
fn file_demand(counts: &[u32; 17], ty: RegType, proc: &Processor) -> u16 {
    registers(packed_size(counts, |s| alignment(RegClass { ty, size: s, linear: false }, proc)))
}

/// A packed size as a register count (saturated: no file has 65,535 registers).
fn registers(packed: u32) -> u16 {
    packed.min(u32::from(u16::MAX)) as u16
}

/// [`Pressure::demand`] with the last result of each file kept with the counts it came from:
/// consecutive instructions mostly change one file, and the others need no packing again.
/// The packing order of each file is computed once, when the cache is made.
pub(crate) struct DemandCache {
    last: [Option<([u32; 17], u16)>; FILES],
    order: [PackOrder; FILES],
}

impl DemandCache {
    /// A cache for the register files of `proc`.
    pub(crate) fn new(proc: &Processor) -> DemandCache {
        let order = FILE_TYPES.map(|ty| pack_order(|size| alignment(RegClass { ty, size, linear: false }, proc)));
        DemandCache { last: [None; FILES], order }
    }

    /// The registers the values `pressure` counts need (on the processor of [`DemandCache::new`]).
    pub(crate) fn demand(&mut self, pressure: &Pressure) -> RegisterDemand {
        let mut d = RegisterDemand::default();
        for file in 0..FILES {
            let counts = &pressure.counts[file];
            let value = match &self.last[file] {
                Some((seen, value)) if seen == counts => *value,
                _ => {
                    let value = registers(packed_size_in(counts, &self.order[file]));
                    self.last[file] = Some((*counts, value));
                    value
                }
            };
            d = d.with(file, value);
        }
        d
    }
}

/// Splits the free registers `from..to` (relative to an aligned origin) into aligned pairs
/// and single registers: `(singles, pairs)`.
fn holes(from: u32, to: u32) -> (u32, u32) {
    let (mut singles, mut pairs, mut x) = (0, 0, from);
    while x < to {
        if x % 2 == 0 && x + 2 <= to {
            pairs += 1;
            x += 2;
        } else {
            singles += 1;
            x += 1;
        }
    }
    (singles, pairs)
}

/// The order in which values are packed: by alignment (largest first), sizes that are a
/// multiple of their alignment first, then by size (largest first). Smaller keys go first.
pub(crate) fn pack_key(size: u16, align: u16) -> (u16, bool, u16) {
    (u16::MAX - align, !size.is_multiple_of(align), u16::MAX - size)
}

/// The end of the first-fit packing (in the order of [`pack_key`]) of `counts[s]` tuples of
/// `s` registers for each `s` in `1..=16`, each aligned to `align(s)` (1, 2 or 4). Computed
/// from the counts alone: holes left by alignment padding are counted as free single registers
/// and free aligned pairs, which later pairs and single registers fill first, as first-fit
/// does.
pub(crate) fn packed_size(counts: &[u32; 17], align: impl Fn(u8) -> u16) -> u32 {
    // Only the sizes present, in packing order (the spiller asks at every instruction).
    let mut sizes = [(0u16, 0u16); 16];
    let mut n = 0;
    for s in (1..=16u16).filter(|&s| counts[usize::from(s)] > 0) {
        sizes[n] = (s, align(s as u8).max(1));
        n += 1;
    }
    sizes[..n].sort_unstable_by_key(|&(s, a)| pack_key(s, a));
    packed_size_in(counts, &sizes[..n])
}

/// Every tuple size (1 to 16) with its alignment, in the packing order of [`pack_key`].
pub(crate) type PackOrder = [(u16, u16); 16];

/// The sizes 1 to 16 with their alignments under `align`, in packing order.
pub(crate) fn pack_order(align: impl Fn(u8) -> u16) -> PackOrder {
    let mut order = [(0u16, 0u16); 16];
    for (k, slot) in order.iter_mut().enumerate() {
        let s = k as u16 + 1;
        *slot = (s, align(s as u8).max(1));
    }
    order.sort_by_key(|&(s, a)| pack_key(s, a));
    order
}

/// [`packed_size`] over sizes already in packing order (all of them, as [`pack_order`] gives,
/// or those present): it neither allocates nor sorts.
pub(crate) fn packed_size_in(counts: &[u32; 17], order: &[(u16, u16)]) -> u32 {
    // Without alignment, nothing is padded: the common case (single registers, gfx11's VGPR
    // tuples) needs no packing.
    if order.iter().all(|&(s, a)| a == 1 || counts[usize::from(s)] == 0) {
        return (1..=16).map(|s| s as u32 * counts[s]).sum();
    }
    let (mut end, mut singles, mut pairs) = (0u32, 0u32, 0u32);
    for &(size, a) in order {
        let (size, a) = (u32::from(size), u32::from(a));
        let mut n = counts[size as usize];
        if size == 2 {
            let t = n.min(pairs);
            pairs -= t;
            n -= t;
        }
        if size == 1 {
            let t = n.min(singles);
            singles -= t;
            n -= t;
            let t = n.min(2 * pairs);
            pairs -= t.div_ceil(2);
            singles += t % 2;
            n -= t;
        }
        if n == 0 {
            continue;
        }
        let aligned = end.next_multiple_of(a);
        let (s, p) = holes(end, aligned);
        let rounded = size.next_multiple_of(a);
        let (ts, tp) = holes(size, rounded);
        singles += s + (n - 1) * ts;
        pairs += p + (n - 1) * tp;
        end = aligned + (n - 1) * rounded + size;
    }
    end
}

/// One tuple to pack with [`first_fit`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// Registers.
    pub(crate) size: u16,
    /// Alignment in registers.
    pub(crate) align: u16,
    /// Whether the tuple must also avoid the `kept` registers.
    pub(crate) avoid_kept: bool,
}

/// First-fit packing of explicit tuples in the order of [`pack_key`] below `limit`, around
/// the registers in `busy` (and, for items that ask, those in `kept`): each item's first
/// register, in input order. What [`packed_size`] computes from counts when nothing is busy,
/// and what compaction does around pinned registers.
pub(crate) fn first_fit(items: &[Item], mut busy: RegSet, kept: RegSet, limit: u16) -> Option<Vec<u16>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| pack_key(items[i].size, items[i].align));
    let mut at = vec![0u16; items.len()];
    for i in order {
        let item = items[i];
        let taken = if item.avoid_kept { busy.union(&kept) } else { busy };
        let p = taken.lowest_fit(item.size, item.align, limit)?;
        busy.insert_range(p, item.size);
        at[i] = p;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(name: &str) -> &'static Processor {
        Processor::find(name).unwrap()
    }

    fn demand_of(classes: &[RegClass], name: &str) -> RegisterDemand {
        let mut p = Pressure::default();
        classes.iter().for_each(|&rc| p.add(rc));
        p.demand(proc(name))
    }

    /// The registers a wave target leaves, against the SIMD files of AMD's documents:
    /// gfx1100 has 1536 VGPRs per lane for wave32 (768 for wave64) in granules of 16 (8),
    /// gfx942 512 unified VGPRs and AGPRs per lane in granules of 8, and 800 SGPRs per SIMD.
    #[test]
    fn limits_for_a_wave_target() {
        let l = |name: &str, wave: u32, waves: u16| {
            let d = limits_for_occupancy(proc(name), wave, waves);
            (d.vgprs, d.agprs)
        };
        assert_eq!(l("gfx1100", 32, 16), (96, 0));
        assert_eq!(l("gfx1100", 32, 8), (192, 0));
        assert_eq!(l("gfx1100", 64, 8), (96, 0));
        assert_eq!(l("gfx1100", 32, 1), (256, 0));
        assert_eq!(l("gfx942", 64, 4), (128, 0));
        assert_eq!(l("gfx942", 64, 2), (256, 0));
        assert_eq!(l("gfx942", 64, 1), (256, 256));
        // More waves than the processor holds: what its maximum allows.
        assert_eq!(l("gfx942", 64, 20), l("gfx942", 64, 8));
        for (name, wave, waves) in [("gfx1100", 32, 12), ("gfx942", 64, 3), ("gfx942", 64, 5)] {
            let d = limits_for_occupancy(proc(name), wave, waves);
            assert!(d.occupancy(proc(name), wave).waves_per_simd >= waves, "{name} {waves}: {d:?}");
            // One more VGPR costs the target.
            let over = d.with(1, d.vgprs + 1);
            if d.vgprs < proc(name).vgprs {
                assert!(over.occupancy(proc(name), wave).waves_per_simd < waves, "{name} {waves}: {d:?}");
            }
        }
    }

    #[test]
    fn tuples_count_with_their_alignment() {
        let v3 = RegClass::vgpr(3);
        assert_eq!(demand_of(&[v3, v3], "gfx942").vgprs, 7);
        assert_eq!(demand_of(&[v3, v3], "gfx1100").vgprs, 6);
        assert_eq!(demand_of(&[v3, v3, RegClass::V1], "gfx942").vgprs, 7);
        assert_eq!(demand_of(&[v3, RegClass::V2], "gfx942").vgprs, 5);
        assert_eq!(demand_of(&[RegClass::S1, RegClass::S4, RegClass::S2], "gfx1100").sgprs, 7);
        assert_eq!(demand_of(&[RegClass::sgpr(3), RegClass::S4, RegClass::S2], "gfx1100").sgprs, 10);
        assert_eq!(demand_of(&[RegClass::sgpr(3), RegClass::S1], "gfx1100").sgprs, 4);
        assert_eq!(demand_of(&[], "gfx942"), RegisterDemand::default());
    }

    /// The count-based packing and an explicit first fit agree on generated sets.
    #[test]
    fn packed_size_is_first_fit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for case in 0..5000 {
            let sizes: &[u8] = if case % 2 == 0 { &[1, 2, 3, 4, 8] } else { &[1, 2, 3, 4, 5, 6, 7, 8, 16] };
            let mut counts = [0u32; 17];
            let mut items = Vec::new();
            for _ in 0..next(24) {
                let s = sizes[next(sizes.len() as u64) as usize];
                counts[usize::from(s)] += 1;
            }
            for (ty, name) in [(RegType::Sgpr, "gfx1100"), (RegType::Vgpr, "gfx942"), (RegType::Vgpr, "gfx1100")] {
                let align = |s: u8| alignment(RegClass { ty, size: s, linear: false }, proc(name));
                items.clear();
                for s in 1..=16u8 {
                    let item = Item { size: u16::from(s), align: align(s), avoid_kept: false };
                    items.extend((0..counts[usize::from(s)]).map(|_| item));
                }
                let at = first_fit(&items, RegSet::default(), RegSet::default(), RegSet::CAPACITY).unwrap();
                let end = items.iter().zip(&at).map(|(item, &p)| p + item.size).max().unwrap_or(0);
                assert_eq!(packed_size(&counts, align), u32::from(end), "{ty:?} on {name}: {items:?}");
            }
        }
    }

    /// The demand's own occupancy counts its AGPRs as the processor files them (see
    /// `runtime_abi::occupancy`).
    #[test]
    fn the_demand_counts_agprs_in_its_occupancy() {
        let demand = RegisterDemand { sgprs: 16, vgprs: 30, agprs: 34 };
        assert_eq!(demand.occupancy(proc("gfx942"), 64).waves_per_simd, 7);
    }

    #[test]
    fn agprs_are_a_file_of_their_own_in_the_demand() {
        let (a1, a4, a3) = (RegClass::agpr(1), RegClass::agpr(4), RegClass::agpr(3));
        let d = demand_of(&[a4, a1, RegClass::V1, RegClass::vgpr(2)], "gfx942");
        assert_eq!((d.vgprs, d.agprs), (3, 5));
        // AGPR tuples are aligned like VGPR tuples: two a3 need 7 on gfx942.
        assert_eq!(demand_of(&[a3, a3], "gfx942").agprs, 7);
        assert_eq!(demand_of(&[a3, a3], "gfx908").agprs, 6);
    }
}
