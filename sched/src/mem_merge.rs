//! Merging of adjacent memory accesses, before register allocation: global loads of one block
//! that read the same address registers at adjacent constant offsets become one wider load (up
//! to 128 bits) and a split of its result, global stores likewise one wider store of a
//! concatenation of their data, and scalar loads from one base one `s_load` of two, four or
//! eight dwords, as LLVM's `SILoadStoreOptimizer` merges them. A third access adjacent to a
//! merged pair joins it while the width allows (`b32 + b32 + b32` is one `b96`).
//!
//! The hardware takes these wider accesses at dword alignment: global memory under the
//! unaligned access mode the HSA runtime's queues use (`SH_MEM_CONFIG.alignment_mode`, set by
//! the kernel driver for GFX9 and later), and scalar loads, which ignore the low two bits of
//! the address, so the merged access needs no more alignment than its parts had.
//!
//! A merged load issues where its first part was, a merged store where its last part was, so
//! nothing between may make the move visible: for loads no write of memory (stores and atomics
//! of global, flat or buffer memory), for stores no access of it at all, and for both nothing
//! that orders memory, changes EXEC or is not plain code (barriers, waits, cache operations,
//! pseudo-instructions other than copies, tuple splits and concatenations). Scalar loads read memory
//! that nothing writes while the kernel runs (`&[T]`), so only opaque instructions end their
//! groups. Each access is matched against the open group of its kind and address registers
//! (epoch counters, so ending a chain costs nothing): one pass over each block, linear in the
//! function.

use foldhash::fast::FixedState;
use isa::mir::{CachePolicy, Def, Function, Inst, Operand};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;
use std::collections::HashMap;

/// The kinds of access merged.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Kind {
    GlobalLoad,
    GlobalStore,
    ScalarLoad,
}

impl Kind {
    /// The access of `dwords` dwords of this kind, if there is one.
    fn opcode(self, dwords: u8) -> Option<Opcode> {
        use Opcode::*;
        Some(match (self, dwords) {
            (Kind::GlobalLoad, 1) => GlobalLoadB32,
            (Kind::GlobalLoad, 2) => GlobalLoadB64,
            (Kind::GlobalLoad, 3) => GlobalLoadB96,
            (Kind::GlobalLoad, 4) => GlobalLoadB128,
            (Kind::GlobalStore, 1) => GlobalStoreB32,
            (Kind::GlobalStore, 2) => GlobalStoreB64,
            (Kind::GlobalStore, 3) => GlobalStoreB96,
            (Kind::GlobalStore, 4) => GlobalStoreB128,
            (Kind::ScalarLoad, 1) => SLoadB32,
            (Kind::ScalarLoad, 2) => SLoadB64,
            (Kind::ScalarLoad, 4) => SLoadB128,
            (Kind::ScalarLoad, 8) => SLoadB256,
            _ => return None,
        })
    }

    /// The kind and width of `op`.
    fn of(op: Opcode) -> Option<(Kind, u8)> {
        [Kind::GlobalLoad, Kind::GlobalStore, Kind::ScalarLoad]
            .into_iter()
            .flat_map(|k| (1..=8).map(move |d| (k, d)))
            .find(|&(k, d)| k.opcode(d) == Some(op))
    }

    fn store(self) -> bool {
        self == Kind::GlobalStore
    }
}

/// One access of a group: its offset, width and result (loads) or data (stores).
#[derive(Copy, Clone)]
struct Part {
    offset: i32,
    dwords: u8,
    def: Option<Def>,
    data: Option<Operand>,
}

/// Accesses merged into one: the instruction at `at` stands for them all.
struct Group {
    kind: Kind,
    at: usize,
    /// The address operands (VGPR address or offset, then `saddr`; or the SMEM base).
    address: SmallVec<[Operand; 2]>,
    /// The parts, by offset.
    parts: SmallVec<[Part; 4]>,
    /// The epoch of the chain it belongs to.
    epoch: u64,
}

impl Group {
    fn dwords(&self) -> u8 {
        self.parts.iter().map(|p| p.dwords).sum()
    }

    fn offset(&self) -> i32 {
        self.parts[0].offset
    }
}

/// What an instruction of the block becomes.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Fate {
    Keep,
    Drop,
    /// The place of group `g`.
    Group(usize),
}

/// Merges the adjacent global and scalar accesses of every block of `func`; returns how many
/// accesses it merged into others.
pub fn merge_accesses(func: &mut Function) -> usize {
    let family = func.family;
    let mut merged = 0;
    let mut open: HashMap<(Kind, SmallVec<[u32; 2]>), usize, FixedState> = HashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut fate: Vec<Fate> = Vec::new();
    // Epochs of the chains: loads (ended by memory writes and opaque instructions), stores
    // (ended by any memory access and opaque instructions), scalar loads (opaque only).
    let mut epochs = [0u64; 3];
    // Temporaries that hold zero: the VGPR offsets of accesses through `saddr`, one per access,
    // which are the same offset.
    let mut zero = vec![false; func.temps as usize];
    for b in 0..func.blocks.len() {
        open.clear();
        groups.clear();
        fate.clear();
        fate.resize(func.blocks[b].insts.len(), Fate::Keep);
        epochs = epochs.map(|e| e + 1);
        for (i, inst) in func.blocks[b].insts.iter().enumerate() {
            if inst.opcode == Opcode::VMovB32 && inst.ops.first().is_some_and(|o| o.constant_value() == Some(0)) {
                if let Some(t) = inst.defs.first().and_then(|d| d.temp) {
                    zero[t.id as usize] = true;
                }
            }
            let Some((kind, address, part)) = access(inst) else {
                match effect(inst, family) {
                    Effect::None => {}
                    Effect::Reads => epochs[1] += 1,
                    Effect::Writes => epochs[..2].iter_mut().for_each(|e| *e += 1),
                    Effect::Opaque => epochs = epochs.map(|e| e + 1),
                }
                continue;
            };
            let chain = match kind {
                Kind::GlobalLoad => 0,
                Kind::GlobalStore => 1,
                Kind::ScalarLoad => 2,
            };
            // A global load ends the store chain; a store ends the load chain too.
            match kind {
                Kind::GlobalLoad => epochs[1] += 1,
                Kind::GlobalStore => epochs[0] += 1,
                Kind::ScalarLoad => {}
            }
            let id = |t: Temp| if address.len() == 2 && zero[t.id as usize] { u32::MAX } else { t.id };
            let key = (kind, address.iter().filter_map(|o| o.temp_of()).map(id).collect());
            let joined = open.get(&key).copied().filter(|&g| groups[g].epoch == epochs[chain]).is_some_and(|g| {
                let group = &mut groups[g];
                let total = group.dwords() + part.dwords;
                let after = part.offset == group.offset() + 4 * i32::from(group.dwords());
                let before = part.offset + 4 * i32::from(part.dwords) == group.offset();
                if !(after || before) || kind.opcode(total).is_none() {
                    return false;
                }
                if after {
                    group.parts.push(part);
                } else {
                    group.parts.insert(0, part);
                }
                if kind.store() {
                    // A store group issues at its last part.
                    fate[group.at] = Fate::Drop;
                    group.at = i;
                    fate[i] = Fate::Group(g);
                } else {
                    fate[i] = Fate::Drop;
                }
                true
            });
            if joined {
                merged += 1;
                if kind.store() {
                    epochs[1] += 1;
                    let g = open[&key];
                    groups[g].epoch = epochs[1];
                }
                continue;
            }
            if kind.store() {
                epochs[1] += 1;
            }
            open.insert(key, groups.len());
            fate[i] = Fate::Group(groups.len());
            let parts = smallvec::smallvec![part];
            groups.push(Group { kind, at: i, address, parts, epoch: epochs[chain] });
        }
        if merged == 0 || groups.iter().all(|g| g.parts.len() == 1) {
            continue;
        }
        let old = std::mem::take(&mut func.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len() + groups.len());
        for (inst, fate) in old.into_iter().zip(&fate) {
            match *fate {
                Fate::Keep => insts.push(inst),
                Fate::Drop => {}
                Fate::Group(g) if groups[g].parts.len() == 1 => insts.push(inst),
                Fate::Group(g) => emit(func, &groups[g], inst, &mut insts),
            }
        }
        func.blocks[b].insts = insts;
    }
    merged
}

/// The instructions of a group of several parts (`first` is one of its accesses, for the
/// cache policy and fields).
fn emit(func: &mut Function, group: &Group, first: Inst, out: &mut Vec<Inst>) {
    let dwords = group.dwords();
    let opcode = group.kind.opcode(dwords).expect("groups keep widths that exist");
    let class = |n: u8| if group.kind == Kind::ScalarLoad { RegClass::sgpr(n) } else { RegClass::vgpr(n) };
    let whole = Temp { id: func.temps, rc: class(dwords) };
    func.temps += 1;
    let fields = isa::mir::Fields { offset: group.offset(), ..first.fields };
    if group.kind.store() {
        let data: SmallVec<[Operand; 4]> = group.parts.iter().filter_map(|p| p.data).collect();
        out.push(Inst::new(Opcode::PCreateVector, &[Def::temp(whole)], &data));
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::new();
        ops.push(group.address[0]);
        ops.push(Operand::temp(whole));
        ops.extend(group.address[1..].iter().copied());
        out.push(Inst::new(opcode, &[], &ops).with_fields(fields));
    } else {
        out.push(Inst::new(opcode, &[Def::temp(whole)], &group.address).with_fields(fields));
        let parts: SmallVec<[Def; 4]> = group.parts.iter().filter_map(|p| p.def).collect();
        out.push(Inst::new(Opcode::PSplitVector, &parts, &[Operand::temp(whole)]));
    }
}

/// An access that may merge: its kind, address operands and part. A plain global load or
/// store of 1 to 4 dwords, or scalar load, without cache bits, whose registers are temporaries
/// of no fixed register.
fn access(inst: &Inst) -> Option<(Kind, SmallVec<[Operand; 2]>, Part)> {
    let (kind, dwords) = Kind::of(inst.opcode)?;
    // (SGPRs are linear values; a linear VGPR is a whole-wave one, left alone.)
    let plain = |t: Temp| !(t.rc.linear && t.rc.ty == RegType::Vgpr);
    let free = inst.ops.iter().all(|o| o.reg.is_none() && o.temp_of().is_some_and(plain))
        && inst.defs.iter().all(|d| d.reg.is_none() && d.temp.is_some());
    if !free || inst.fields.cpol != CachePolicy::default() {
        return None;
    }
    let offset = inst.fields.offset;
    match kind {
        Kind::GlobalLoad | Kind::ScalarLoad => {
            // An SMEM load with an `soffset` register is left alone.
            if kind == Kind::ScalarLoad && inst.ops.len() != 1 {
                return None;
            }
            let part = Part { offset, dwords, def: Some(*inst.defs.first()?), data: None };
            Some((kind, inst.ops.iter().copied().collect(), part))
        }
        Kind::GlobalStore => {
            let data = *inst.ops.get(1)?;
            if data.rc().is_none_or(|rc| rc.size != dwords || rc.ty != RegType::Vgpr) {
                return None;
            }
            let address = std::iter::once(inst.ops[0]).chain(inst.ops.get(2).copied()).collect();
            Some((kind, address, Part { offset, dwords, def: None, data: Some(data) }))
        }
    }
}

/// What an instruction that is not a mergeable access does to the chains.
enum Effect {
    /// Nothing: ALU code that does not write EXEC, copies, splits and concatenations, LDS and
    /// scratch accesses (other memory), scalar loads.
    None,
    /// Reads global memory: ends the store chain.
    Reads,
    /// Writes global memory: ends the load and store chains.
    Writes,
    /// Anything else: ends every chain.
    Opaque,
}

fn effect(inst: &Inst, family: Family) -> Effect {
    let exec = |r: Option<PhysReg>| matches!(r, Some(PhysReg::EXEC | PhysReg::EXEC_HI));
    if inst.defs.iter().any(|d| exec(d.reg)) {
        return Effect::Opaque;
    }
    let name = inst.opcode.name(family);
    let plain = inst.fields.cpol == CachePolicy::default();
    match inst.opcode.format(family) {
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => Effect::None,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Vop3p | Format::Vopd => {
            if name.starts_with("v_cmpx") {
                Effect::Opaque
            } else {
                Effect::None
            }
        }
        Format::Ds | Format::Scratch if plain && !name.contains("lds") => Effect::None,
        Format::Smem if plain && name.starts_with("s_load") => Effect::None,
        Format::Global | Format::Flat if plain && !name.contains("atomic") && !name.contains("lds") => {
            if name.contains("_load") {
                Effect::Reads
            } else {
                Effect::Writes
            }
        }
        Format::Pseudo
            if matches!(inst.opcode, Opcode::PSplitVector | Opcode::PCreateVector | Opcode::PParallelCopy) =>
        {
            Effect::None
        }
        _ => Effect::Opaque,
    }
}
