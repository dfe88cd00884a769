//! Alias analysis for the passes that reuse or move loads of writable memory: which memory an
//! access may touch, as a *class* among at most [`MAX_CLASSES`], so that a pass can say in one
//! machine word which memory an instruction may change.
//!
//! The base of a pointer is found by walking `ptradd` and `addrspacecast` back to a kernel's
//! `ptr<global>` parameter (a `&mut [T]` buffer; `lang` lowers `&[T]` to `ptr<constant>`), a
//! `slot_addr`, `dyn_shared_addr`, or anything else (an unknown base), with the sum of the
//! offsets when all are constants. Two accesses may overlap unless:
//!
//! - their bases are two different `&mut` buffers: a `&mut [T]` parameter overlaps no other
//!   buffer parameter (`kernel-language.md`, "Kernel parameters"; `&[T]` buffers may overlap
//!   each other, but nothing writes them, and their loads are not tracked here: they are
//!   invariant, `rewrite::is_invariant_load`);
//! - their bases are two different slots, or a slot and the dynamic shared memory;
//! - they lie in memories that cannot overlap: global, shared and private memory are
//!   disjoint, but a flat pointer of unknown base may point into any of them;
//! - they have the same base and constant offsets whose byte ranges are disjoint.
//!
//! Offsets that are not constants are never compared, even when they differ by a constant
//! from the same value: the addresses of other lanes would then matter. Each base's accesses
//! at constant offsets are grouped into classes of overlapping byte ranges; a base with an
//! access at an unknown offset is one class. Each memory (global, shared, private, flat) has
//! one more class for the accesses through unknown bases; a write through an unknown base
//! changes every class of its memory (and flat's), a write through a known base its own class
//! and the unknown ones its memory reaches. Bases beyond the limit are treated as unknown.
//!
//! Other work-items: two accesses of one location by different work-items, at least one of
//! them a plain (non-atomic) write, that no barrier, fence or atomic orders, are a data race,
//! and a racy program has no defined result (the reference interpreter's interleaving is one
//! execution, a GPU's another; the lanes of one store to one address are written in no stated
//! order). So between two accesses of a work-item, memory changes only by that work-item's
//! own writes, or by other work-items' across synchronization: a `barrier`, any fence and any
//! atomic (whatever its ordering, conservatively), a load or store with an
//! availability/visibility scope, and a call change every class of global, shared and flat
//! memory. Private memory is the work-item's own, so only its own writes change it.

use crate::rewrite::constant;
use cranelift_entity::SecondaryMap;
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{AddrSpace, Block, DataFlowGraph, Function, Inst, InstData, Slot, Type, Value, ValueDef};

/// The most classes of a function: a set of them is one `u64`.
pub(crate) const MAX_CLASSES: usize = 64;

/// A set of classes, bit `k` for class `k`.
pub(crate) type ClassSet = u64;

/// The memories that cannot overlap, and flat, which may be any of them; also the class of
/// the accesses of unknown base in that memory (classes 0 to 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Memory {
    Global = 0,
    Shared = 1,
    Private = 2,
    Flat = 3,
}

impl Memory {
    /// The memory a pointer of `space` points into (constant memory is global memory).
    fn of(space: AddrSpace) -> Memory {
        match space {
            AddrSpace::Global | AddrSpace::Constant => Memory::Global,
            AddrSpace::Shared => Memory::Shared,
            AddrSpace::Private => Memory::Private,
            AddrSpace::Flat => Memory::Flat,
        }
    }
}

/// What a pointer is based on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Base {
    /// The kernel's `ptr<global>` parameter of this index: a `&mut [T]` buffer.
    Buffer(u32),
    /// A shared or private slot.
    Slot(Slot),
    /// The dynamic shared memory.
    DynShared,
    /// Anything else, in this memory.
    Unknown(Memory),
}

/// Where a pointer points: its base, and its byte offset from it when that is a constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Location {
    base: Base,
    offset: Option<i64>,
}

/// Offsets beyond this size are not compared (a 32-bit pointer wraps around).
const OFFSET_LIMIT: i64 = 1 << 31;

/// The locations of the pointers of a function, each found once.
struct Locator<'a> {
    func: &'a Function,
    memo: SecondaryMap<Value, Option<Location>>,
}

impl Locator<'_> {
    /// The location `ptr` points to: the chain of `ptradd`s and casts is walked back to its
    /// root once, and every pointer on it remembered, so all calls take linear time in all.
    fn locate(&mut self, ptr: Value) -> Location {
        let dfg = &self.func.dfg;
        let mut chain = Vec::new();
        let mut v = dfg.resolve_aliases(ptr);
        let mut loc = loop {
            if let Some(loc) = self.memo[v] {
                break loc;
            }
            match dfg.values[v].def {
                ValueDef::Result(inst) => match dfg.insts[inst] {
                    InstData::PtrAdd { args: [p, _] } | InstData::AddrSpaceCast { arg: p, .. } => {
                        chain.push(v);
                        v = dfg.resolve_aliases(p);
                        continue;
                    }
                    InstData::SlotAddr { slot } => break Location { base: Base::Slot(slot), offset: Some(0) },
                    InstData::DynSharedAddr => break Location { base: Base::DynShared, offset: Some(0) },
                    _ => {}
                },
                ValueDef::Param(block, index)
                    if Some(block) == self.func.entry()
                        && self.func.is_kernel()
                        && dfg.value_type(v) == Type::Ptr(AddrSpace::Global) =>
                {
                    break Location { base: Base::Buffer(index), offset: Some(0) };
                }
                _ => {}
            }
            break unknown(dfg, v);
        };
        self.memo[v] = Some(loc);
        for &p in chain.iter().rev() {
            loc = step(dfg, loc, p);
            self.memo[p] = Some(loc);
        }
        loc
    }
}

/// A location of unknown base for the pointer `v`.
fn unknown(dfg: &DataFlowGraph, v: Value) -> Location {
    let space = dfg.value_type(v).addr_space().unwrap_or(AddrSpace::Flat);
    Location { base: Base::Unknown(Memory::of(space)), offset: None }
}

/// The location of `p`, a `ptradd` or `addrspacecast` of a pointer at `loc`.
fn step(dfg: &DataFlowGraph, loc: Location, p: Value) -> Location {
    let ValueDef::Result(inst) = dfg.values[p].def else { return loc };
    match dfg.insts[inst] {
        InstData::PtrAdd { args: [_, off] } => {
            let bits = dfg.value_type(off).bits();
            let add = constant(dfg, off).map(|c| ((c << (64 - bits)) as i64) >> (64 - bits));
            let offset = loc.offset.zip(add).and_then(|(a, b)| a.checked_add(b)).filter(|o| o.abs() < OFFSET_LIMIT);
            Location { offset, ..loc }
        }
        // A cast of an unknown flat pointer to a specific space narrows its memory.
        InstData::AddrSpaceCast { ty: Type::Ptr(space), .. } if loc.base == Base::Unknown(Memory::Flat) => {
            Location { base: Base::Unknown(Memory::of(space)), ..loc }
        }
        _ => loc,
    }
}

/// An access's class, and whether its base is unknown (it may then touch any class of its
/// memory).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Access {
    class: u8,
    wide: bool,
}

/// The memory classes of a function and the class of each of its memory accesses.
pub(crate) struct MemoryClasses {
    access: SecondaryMap<Inst, Option<Access>>,
    /// The memory of each class.
    memory: Vec<Memory>,
    /// The classes of each memory (flat's: its unknown class only).
    members: [ClassSet; 4],
}

impl MemoryClasses {
    /// Classifies the memory accesses of `func`.
    pub(crate) fn new(func: &Function) -> MemoryClasses {
        let mut locator = Locator { func, memo: SecondaryMap::with_capacity(func.dfg.values.len()) };
        // (base, offset, end, access) of every tracked access, sorted to group each base's.
        let mut found: Vec<(Base, Option<i64>, i64, Inst)> = Vec::new();
        for (_, inst) in func.insts_in_layout() {
            let data = &func.dfg.insts[inst];
            let Some(ptr) = data.mem_ptr() else { continue };
            if matches!(data, InstData::Load { .. })
                && func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Constant)
            {
                continue;
            }
            let loc = locator.locate(ptr);
            let size = access_type(&func.dfg, data).and_then(Type::bytes).unwrap_or(1);
            let start = loc.offset.unwrap_or(0);
            found.push((loc.base, loc.offset, start + i64::from(size), inst));
        }
        found.sort_unstable_by_key(|&(base, offset, _, _)| (base, offset.is_some(), offset));
        let mut classes = MemoryClasses {
            access: SecondaryMap::with_capacity(func.dfg.insts.len()),
            memory: vec![Memory::Global, Memory::Shared, Memory::Private, Memory::Flat],
            members: [1 << 0, 1 << 1, 1 << 2, 1 << 3],
        };
        // The class of the current group of overlapping ranges, with its base and end.
        let mut open: Option<(Base, Option<i64>, u8)> = None;
        for (base, offset, end, inst) in found {
            let memory = match base {
                Base::Buffer(_) => Memory::Global,
                Base::Slot(slot) => Memory::of(func.slots[slot].space),
                Base::DynShared => Memory::Shared,
                Base::Unknown(m) => {
                    classes.access[inst] = Some(Access { class: m as u8, wide: true });
                    continue;
                }
            };
            let joins = match open {
                // Sorted with unknown offsets first: a base with one is a single class.
                Some((b, e, _)) if b == base => e.is_none() || offset.is_some_and(|o| Some(o) < e),
                _ => false,
            };
            let class = match open {
                Some((_, e, class)) if joins => {
                    open = Some((base, e.map(|e| e.max(end)).filter(|_| offset.is_some()), class));
                    Some(class)
                }
                _ if classes.memory.len() < MAX_CLASSES => {
                    let class = classes.memory.len() as u8;
                    classes.memory.push(memory);
                    classes.members[memory as usize] |= 1 << class;
                    open = Some((base, offset.map(|_| end), class));
                    Some(class)
                }
                _ => None,
            };
            classes.access[inst] = Some(match class {
                Some(class) => Access { class, wide: false },
                None => Access { class: memory as u8, wide: true },
            });
        }
        classes
    }

    /// How many classes there are.
    pub(crate) fn len(&self) -> usize {
        self.memory.len()
    }

    /// The class of `inst` when it is a plain load whose result only the memory of that class
    /// decides (not volatile, no visibility scope, not of constant memory).
    pub(crate) fn load_class(&self, dfg: &DataFlowGraph, inst: Inst) -> Option<usize> {
        match &dfg.insts[inst] {
            InstData::Load { flags, .. } if !flags.volatile && flags.av.is_none() => {
                self.access[inst].map(|a| usize::from(a.class))
            }
            _ => None,
        }
    }

    /// The class of `inst` when it is a plain store, after which a load of the same address
    /// and type reads the stored value until the class changes.
    pub(crate) fn store_class(&self, dfg: &DataFlowGraph, inst: Inst) -> Option<usize> {
        match &dfg.insts[inst] {
            InstData::Store { flags, .. } if !flags.volatile && flags.av.is_none() => {
                self.access[inst].map(|a| usize::from(a.class))
            }
            _ => None,
        }
    }

    /// The classes whose memory may have changed after `inst` runs: what it writes, and
    /// global, shared and flat memory after it synchronizes with other work-items.
    pub(crate) fn clobbers(&self, dfg: &DataFlowGraph, inst: Inst) -> ClassSet {
        let all = self.members.iter().fold(0, |s, m| s | m);
        let synced = all & !self.members[Memory::Private as usize];
        let write = |access: Option<Access>| match access {
            None => all,
            Some(Access { class, wide: false }) => {
                let memory = self.memory[usize::from(class)];
                1 << class | 1 << memory as u8 | 1 << Memory::Flat as u8
            }
            Some(Access { class, .. }) if class == Memory::Flat as u8 => all,
            Some(Access { class, .. }) => self.members[usize::from(class)] | 1 << Memory::Flat as u8,
        };
        match &dfg.insts[inst] {
            InstData::Load { flags, .. } if flags.av.is_some() => synced,
            InstData::Store { flags, .. } => write(self.access[inst]) | if flags.av.is_some() { synced } else { 0 },
            InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::AtomicStore { .. } => {
                write(self.access[inst]) | synced
            }
            InstData::AtomicLoad { .. } | InstData::Fence { .. } | InstData::Barrier => synced,
            InstData::Call { .. } => all,
            _ => 0,
        }
    }

    /// The classes each loop may change in one iteration (its nested loops included).
    pub(crate) fn loop_clobbers(&self, func: &Function, loops: &LoopAnalysis) -> SecondaryMap<Loop, ClassSet> {
        let mut sets: SecondaryMap<Loop, ClassSet> = SecondaryMap::new();
        for &block in &func.layout {
            if let Some(lp) = loops.loop_of(block) {
                sets[lp] |= self.block_clobbers(&func.dfg, block);
            }
        }
        // Inner loops come after their parents.
        for lp in loops.loops().rev() {
            if let Some(parent) = loops.parent(lp) {
                sets[parent] |= sets[lp];
            }
        }
        sets
    }

    /// The classes `block` may change.
    fn block_clobbers(&self, dfg: &DataFlowGraph, block: Block) -> ClassSet {
        dfg.blocks[block].insts.iter().fold(0, |s, &i| s | self.clobbers(dfg, i))
    }
}

/// The type `data` reads or writes in memory.
fn access_type(dfg: &DataFlowGraph, data: &InstData) -> Option<Type> {
    match data {
        InstData::Load { ty, .. } | InstData::AtomicLoad { ty, .. } => Some(*ty),
        InstData::Store { args, .. } | InstData::AtomicRmw { args, .. } | InstData::AtomicStore { args, .. } => {
            Some(dfg.value_type(args[1]))
        }
        InstData::AtomicCas { args, .. } => Some(dfg.value_type(args[1])),
        _ => None,
    }
}
