//! SSA register assignment over the physical files, in the style of ACO: blocks are visited in
//! linear order and every value gets its register where it is defined, so the register file
//! at each point holds exactly the live values and a value keeps its register until something
//! needs it elsewhere.
//!
//! At each instruction: operands fixed to a register (VCC, SCC, M0, ...) are moved there;
//! values in registers the instruction overwrites at fixed places (an implicit SCC or VCC
//! write, a result fixed by the hardware) move out of the way (back where they came from,
//! without a copy, when that register still holds them); values in SCC read as ordinary
//! operands move to an SGPR. Then the results are placed: fixed ones where they must go; the
//! others first where an affinity suggests (the operand a copy reads, the part of a vector
//! being split, the slot of the vector a value will be built into, the register of its phi
//! affinity class), else in the free aligned interval that fits best, else where the fewest
//! live values must move, else after compacting the whole file. Results may take the
//! registers of operands read for the last time, except where the instruction reads late
//! ([`crate::liveness`]). Values that move go through one `p_parallelcopy` inserted before
//! the instruction. Copies nobody reads are dropped.
//!
//! A phi and the operands it can share a register with form an affinity class (as in ACO):
//! the first of them placed sets the register the others prefer, so loop-carried values and
//! the arms of an if meet at the join without copies.
//!
//! The allocatable window of each file starts at the function's register demand (raised to
//! cover fixed registers), so a value only goes past it when fixed registers, values forced
//! out of special registers, or fragmentation leave no way around; compaction packs like the
//! demand counts, so that is rare.
//!
//! At block boundaries, a block's live-in values take the registers they had at the end of a
//! predecessor already visited: the one with several successors if there is one (a critical
//! edge cannot take copies), else the first. Where another predecessor left a value
//! elsewhere, the block gets a *renaming phi* of that value (`%5@v3 = p_phi %5@v7, %5@v3`),
//! which SSA elimination turns into copies at the end of the predecessors like any phi. Loop
//! headers see their back edges only later: when a latch is done, its values are compared
//! with the header's and renaming phis are added there. Phis get registers with affinity to
//! where their operands are (live-in values move to make room if they must); phis nobody
//! reads are dropped. Linear VGPRs (live on the linear CFG) get registers of their own above
//! the window and never move, so no logical value can share them; linear VGPRs that are
//! never live at once share them (`linear_vgpr_registers`); a vector built or split there
//! takes the registers of the parts it reads for the last time, and they its, where free.

use crate::demand::{alignment, file_index, first_fit, room_at_occupancy, Item, RegisterDemand, FILES, FILE_TYPES};
use crate::liveness::{is_phi, late_kill, Liveness};
use crate::regset::RegSet;
use crate::AllocError;
use isa::mir::{Block, Def, Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Opcode};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegType, Temp};
use smallvec::SmallVec;

/// No value in the register.
const FREE: u32 = u32::MAX;
/// A register kept for linear VGPRs, which ordinary values never take.
const RESERVED: u32 = u32::MAX - 1;
/// No register.
const NO_REG: u16 = u16::MAX;
/// Registers tracked: SGPRs and specials, VGPRs, AGPRs (the [`PhysReg`] numbering).
const REGS: usize = 768;
/// How many of the cheapest windows to try when making room by moving values.
const ROOM_TRIES: usize = 8;

/// What an assignment did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AssignStats {
    /// Registers (dwords) moved by the copies the assignment inserted in blocks; the copies
    /// of phis and renaming phis come later, in SSA elimination.
    pub moved: u32,
    /// The allocatable SGPR window the assignment ended with.
    pub sgpr_window: u16,
    /// The allocatable VGPR window the assignment ended with.
    pub vgpr_window: u16,
    /// The allocatable AGPR window the assignment ended with.
    pub agpr_window: u16,
}

/// The first register of a file (by [`file_index`]).
fn file_base(file: usize) -> u16 {
    [0, PhysReg::VGPR0, PhysReg::AGPR0][file]
}

/// The file index of a register, for the allocatable SGPR, VGPR and AGPR files.
fn file_of_reg(reg: u16) -> usize {
    file_index(PhysReg(reg).reg_type())
}

/// A value moved by the copy being built for the current instruction.
#[derive(Copy, Clone, Debug)]
struct Move {
    temp: Temp,
    from: u16,
    to: u16,
}

/// A `p_create_vector` and the slots of its parts, for placing the parts where the vector
/// will be.
#[derive(Clone, Debug)]
struct Vector {
    parts: SmallVec<[(u32, u16); 4]>,
    size: u16,
    align: u16,
}

struct Assigner<'a> {
    proc: &'a Processor,
    live: &'a Liveness,
    family: Family,
    kernel: String,
    /// The value (temporary id) in each register, or FREE/RESERVED.
    occ: Vec<u32>,
    /// The first register of each placed value, or NO_REG.
    loc: Vec<u16>,
    /// Values placed since the block started (some may have left).
    placed: Vec<u32>,
    /// Allocatable registers per file: `file_base..file_base + bound`.
    bound: [u16; FILES],
    /// The most each file has.
    limit: [u16; FILES],
    /// Per file, how far the window may grow for a result that finds no free registers in it,
    /// instead of moving live values out of the way: registers that cost no occupancy cost
    /// nothing, while a move costs an instruction.
    room: [u16; FILES],
    /// Registers of linear VGPRs, kept for them: `lin_region.0..lin_region.1` (absolute).
    lin_region: (u16, u16),
    /// The register given to each linear VGPR, by id.
    lin_reg: Vec<u16>,
    /// The instruction (stamp) each register is pinned for.
    pin: Vec<u32>,
    /// The instruction (stamp) that reads each value for the last time.
    killed: Vec<u32>,
    /// The instruction (stamp) that reads each value in a fixed register.
    fixed_here: Vec<u32>,
    stamp: u32,
    /// The block being assigned.
    block: usize,
    /// The copy being built before the current instruction.
    moves: Vec<Move>,
    /// Per value: (stamp, index into `moves`) of its pending move.
    move_at: Vec<(u32, u32)>,
    /// Per block: live-in values and their registers at the start, sorted by id.
    entry: Vec<Vec<(u32, u16)>>,
    /// Per block: live-out values and their registers at the end, sorted by id.
    exit: Vec<Vec<(u32, u16)>>,
    /// Per block: renaming phis to add after its phis.
    renames: Vec<Vec<Inst>>,
    /// A logical clock of register writes, and the time each register was last written.
    clock: u32,
    written: Vec<u32>,
    /// The clock when the current block started.
    block_start: u32,
    /// Per value: the register it last moved away from and when, while that register still
    /// holds it (not written since), in the current block.
    shadow: Vec<(u16, u32)>,
    /// Affinity classes: a phi and the operands it could share a register with (those not
    /// live through the phi), as the representative of each value's class.
    affinity: Vec<u32>,
    /// The register the first placed value of each class (by representative) got.
    class_reg: Vec<u16>,
    /// Per value: the vector it is a part of (index into `vectors`), or u32::MAX.
    vector_of: Vec<u32>,
    vectors: Vec<Vector>,
    stats: AssignStats,
}

/// Assigns a register to every temporary of `func` (kill flags and `live` from
/// [`crate::liveness::analyze`]), inserting parallel copies where values move and renaming
/// phis where they arrive at a block in different registers. Phis keep their place, now with
/// registers; [`crate::ssa_elim`] lowers them. No file goes beyond `limits`.
pub fn assign(
    func: &mut Function,
    live: &Liveness,
    proc: &Processor,
    limits: RegisterDemand,
) -> Result<AssignStats, AllocError> {
    let mut a = Assigner::new(func, live, proc, limits)?;
    for b in 0..func.blocks.len() {
        a.enter_block(func, b)?;
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len() + 4);
        for mut inst in insts {
            if !is_phi(inst.opcode) {
                if !a.prune(&mut inst) {
                    continue;
                }
                if let Some(copy) = a.instruction(&mut inst)? {
                    out.push(copy);
                }
            }
            out.push(inst);
        }
        func.blocks[b].insts = out;
        a.leave_block(func, b)?;
    }
    for (block, phis) in func.blocks.iter_mut().zip(std::mem::take(&mut a.renames)) {
        if !phis.is_empty() {
            let at = block.insts.iter().take_while(|i| is_phi(i.opcode)).count();
            block.insts.splice(at..at, phis);
        }
    }
    a.stats.sgpr_window = a.bound[0];
    a.stats.vgpr_window = a.bound[1];
    a.stats.agpr_window = a.bound[2];
    Ok(a.stats)
}

/// Affinity classes of phis: each phi with its operands of the same class that are not live
/// into the phi's block (those live through the phi and cannot share its register). Returns
/// each temporary's class representative.
fn phi_affinities(func: &Function, live: &Liveness) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..live.temp_count() as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for (b, block) in func.blocks.iter().enumerate() {
        for phi in block.insts.iter().take_while(|i| is_phi(i.opcode)) {
            let Some(t) = phi.defs.first().and_then(|d| d.temp) else { continue };
            for s in phi.ops.iter().filter_map(|o| o.temp_of()) {
                if s.rc == t.rc && live.live_in[b].binary_search(&s.id).is_err() {
                    let (a, c) = (find(&mut parent, t.id), find(&mut parent, s.id));
                    parent[a as usize] = c;
                }
            }
        }
    }
    (0..parent.len() as u32).map(|x| find(&mut parent, x)).collect()
}

/// Whether the pairs of a copy carry values from some file into another and, directly or
/// through the third file, back: only then can the moves of the copy form a cycle across
/// files (which no swap resolves), once results take their killed operands' registers.
fn files_copy_in_a_cycle(copy: &Inst) -> bool {
    let mut reach = [[false; FILES]; FILES];
    for (d, o) in copy.defs.iter().zip(&copy.ops) {
        if let Some(rc) = o.rc() {
            let (from, to) = (file_index(rc.ty), file_index(d.rc.ty));
            reach[from][to] |= from != to;
        }
    }
    // The transitive closure of three nodes.
    for k in 0..FILES {
        for i in 0..FILES {
            for j in 0..FILES {
                reach[i][j] |= reach[i][k] && reach[k][j];
            }
        }
    }
    (0..FILES).any(|f| reach[f][f])
}

/// The number of successors of `block` on one CFG.
fn succ_count(block: &Block, linear: bool) -> usize {
    if linear {
        block.linear_succs.len()
    } else {
        block.logical_succs.len()
    }
}

/// The predecessors of `block` on one CFG.
fn preds_of(block: &Block, linear: bool) -> SmallVec<[u32; 2]> {
    if linear {
        block.linear_preds.clone()
    } else {
        block.logical_preds.clone()
    }
}

/// Registers for the linear VGPRs (per temporary id, NO_REG for the others) from `start` (in
/// the VGPR file) up, and where they end: two linear VGPRs interfere when one is live where
/// the other is defined (on the linear CFG, as liveness follows them) or both are read or
/// written by one instruction; each takes, in id order, the lowest aligned registers that no
/// interfering one already holds.
fn linear_vgpr_registers(func: &Function, live: &Liveness, proc: &Processor, start: u16) -> (Vec<u16>, u16) {
    let temps = live.temp_count();
    let is_lin = |id: u32| live.class(id).is_some_and(|rc| rc.ty == RegType::Vgpr && rc.linear);
    let mut reg = vec![NO_REG; temps];
    let ids: Vec<u32> = (0..temps as u32).filter(|&id| is_lin(id)).collect();
    if ids.is_empty() {
        return (reg, start);
    }
    // Interference, as adjacency lists by id.
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); temps];
    // Vectors built and split: which values would share registers, at which offsets.
    let mut hints: Vec<SmallVec<[(u32, i16); 2]>> = vec![SmallVec::new(); temps];
    let mut at: Vec<u32> = vec![u32::MAX; temps];
    let mut set: Vec<u32> = Vec::new();
    let add = |set: &mut Vec<u32>, at: &mut Vec<u32>, id: u32| {
        if at[id as usize] == u32::MAX {
            at[id as usize] = set.len() as u32;
            set.push(id);
        }
    };
    let remove = |set: &mut Vec<u32>, at: &mut Vec<u32>, id: u32| {
        let k = std::mem::replace(&mut at[id as usize], u32::MAX);
        if k != u32::MAX {
            set.swap_remove(k as usize);
            if let Some(&moved) = set.get(k as usize) {
                at[moved as usize] = k;
            }
        }
    };
    for (b, block) in func.blocks.iter().enumerate() {
        for &id in live.live_out[b].iter().filter(|&&id| is_lin(id)) {
            add(&mut set, &mut at, id);
        }
        let phis = block.insts.iter().take_while(|i| is_phi(i.opcode)).count();
        for (k, inst) in block.insts.iter().enumerate().rev() {
            let defs: SmallVec<[u32; 2]> =
                inst.defs.iter().filter_map(|d| d.temp).map(|t| t.id).filter(|&id| is_lin(id)).collect();
            let mut here: SmallVec<[u32; 4]> = defs.iter().copied().collect();
            if k >= phis {
                here.extend(inst.ops.iter().filter_map(|o| o.temp_of()).map(|t| t.id).filter(|&id| is_lin(id)));
            }
            // A vector built or split is a parallel copy: its results may take the registers
            // of the operands it reads for the last time (those still live after it are in
            // `set`), which the hints below ask for.
            let copy = matches!(inst.opcode, Opcode::PCreateVector | Opcode::PSplitVector);
            if copy && k >= phis {
                note_vector(inst, &is_lin, &mut hints);
            }
            let read = if copy { defs.len() } else { here.len() };
            // Both ways: each definition with what is live after it and what the instruction
            // reads or writes.
            for &d in &defs {
                for &x in set.iter().chain(&here[..read]).filter(|&&x| x != d) {
                    adj[d as usize].push(x);
                    adj[x as usize].push(d);
                }
            }
            if k >= phis {
                for &d in &defs {
                    remove(&mut set, &mut at, d);
                }
                for &x in &here[defs.len()..] {
                    add(&mut set, &mut at, x);
                }
            }
        }
        // The phis' results interfere with each other and with what is live into the block.
        let phi_defs: SmallVec<[u32; 4]> = block.insts[..phis]
            .iter()
            .filter_map(|i| i.defs.first().and_then(|d| d.temp))
            .map(|t| t.id)
            .filter(|&id| is_lin(id))
            .collect();
        for &d in &phi_defs {
            remove(&mut set, &mut at, d);
        }
        for &d in &phi_defs {
            adj[d as usize].extend(set.iter().copied().chain(phi_defs.iter().copied()).filter(|&x| x != d));
            for &x in &set {
                adj[x as usize].push(d);
            }
        }
        for id in set.drain(..) {
            at[id as usize] = u32::MAX;
        }
    }
    let mut end = start;
    for &id in &ids {
        let rc = live.class(id).expect("linear VGPRs are defined");
        let (size, align) = (u16::from(rc.size), alignment(rc, proc));
        let mut taken: Vec<(u16, u16)> = adj[id as usize]
            .iter()
            .filter(|&&x| reg[x as usize] != NO_REG)
            .map(|&x| {
                let r = reg[x as usize] - PhysReg::VGPR0;
                (r, r + u16::from(live.class(x).map_or(1, |c| c.size)))
            })
            .collect();
        taken.sort_unstable();
        // First where a vector it is built into or split from, or a part of one, already is,
        // if that is free; else the lowest free registers.
        let fits =
            |p: u16| p >= start && p.is_multiple_of(align) && taken.iter().all(|&(lo, hi)| p + size <= lo || hi <= p);
        let hinted = hints[id as usize].iter().find_map(|&(other, delta)| {
            let at = reg[other as usize];
            let p = (at != NO_REG).then(|| i32::from(at - PhysReg::VGPR0) + i32::from(delta))?;
            u16::try_from(p).ok().filter(|&p| fits(p))
        });
        if let Some(p) = hinted {
            reg[id as usize] = PhysReg::VGPR0 + p;
            end = end.max(p + size);
            continue;
        }
        let mut place = start.next_multiple_of(align);
        for &(lo, hi) in &taken {
            if place + size <= lo {
                break;
            }
            if hi > place {
                place = hi.next_multiple_of(align);
            }
        }
        reg[id as usize] = PhysReg::VGPR0 + place;
        end = end.max(place + size);
    }
    (reg, end)
}

/// Records, for the linear VGPRs a `p_create_vector` or `p_split_vector` reads and writes,
/// where each would sit relative to the others if they shared registers: `hints[a]` lists
/// `(b, delta)` for "at `b`'s register plus `delta`".
fn note_vector(inst: &Inst, is_lin: &impl Fn(u32) -> bool, hints: &mut [SmallVec<[(u32, i16); 2]>]) {
    let (whole, parts): (&[Def], &[Operand]) = (&inst.defs, &inst.ops);
    // The vector and its parts, each with its offset in registers.
    let mut members: SmallVec<[(u32, i16); 4]> = SmallVec::new();
    let mut offset = 0i16;
    let split = inst.opcode == Opcode::PSplitVector;
    let pieces: SmallVec<[(Option<Temp>, u8); 4]> = if split {
        whole.iter().map(|d| (d.temp, d.rc.size)).collect()
    } else {
        parts.iter().map(|o| (o.temp_of(), o.rc().map_or(1, |rc| rc.size))).collect()
    };
    for (t, size) in pieces {
        if let Some(t) = t.filter(|t| is_lin(t.id)) {
            members.push((t.id, offset));
        }
        offset += i16::from(size);
    }
    let vector = if split { parts.first().and_then(|o| o.temp_of()) } else { whole.first().and_then(|d| d.temp) };
    if let Some(v) = vector.filter(|v| is_lin(v.id)) {
        members.push((v.id, 0));
    }
    for &(a, at) in &members {
        for &(b, bt) in members.iter().filter(|&&(b, _)| b != a) {
            hints[a as usize].push((b, at - bt));
        }
    }
}

impl<'a> Assigner<'a> {
    fn new(
        func: &Function,
        live: &'a Liveness,
        proc: &'a Processor,
        limits: RegisterDemand,
    ) -> Result<Assigner<'a>, AllocError> {
        let n = func.blocks.len();
        let temps = live.temp_count();
        // The windows start at the demand and cover every register fixed in a plain file.
        // Linear VGPRs are counted in the demand but take registers of their own (below).
        let mut bound: [u16; FILES] = std::array::from_fn(|file| live.max_demand.of(file));
        bound[1] = live.max_plain_vgprs;
        for inst in func.blocks.iter().flat_map(|b| b.insts.iter()) {
            let fixed = inst.defs.iter().filter_map(|d| d.reg.map(|r| (r, d.rc.size)));
            let fixed = fixed.chain(inst.ops.iter().filter_map(|o| Some((o.reg?, o.rc()?.size))));
            for (r, size) in fixed {
                let end = r.index() + u16::from(size);
                match r.reg_type() {
                    RegType::Sgpr if r.0 < proc.sgprs => bound[0] = bound[0].max(end),
                    RegType::Vgpr => bound[1] = bound[1].max(end),
                    RegType::Agpr => bound[2] = bound[2].max(end),
                    RegType::Sgpr => {}
                }
            }
        }
        // Linear VGPRs: registers of their own above the VGPR window, shared only by linear
        // VGPRs that are never live at once.
        if (0..temps as u32).any(|id| live.class(id).is_some_and(|rc| rc.ty == RegType::Agpr && rc.linear)) {
            return Err(AllocError::Unsupported { kernel: func.name.clone(), block: 0, what: "linear AGPRs" });
        }
        let lin_start = bound[1];
        let (lin_reg, lin_end) = linear_vgpr_registers(func, live, proc, lin_start);
        bound[1] = lin_end;
        let limit: [u16; FILES] = std::array::from_fn(|file| limits.of(file));
        for (file, ty) in FILE_TYPES.into_iter().enumerate() {
            if bound[file] > limit[file] {
                return Err(AllocError::DemandTooHigh {
                    kernel: func.name.clone(),
                    file: ty,
                    demand: bound[file],
                    limit: limit[file],
                });
            }
        }
        let lin_region = (PhysReg::VGPR0 + lin_start, PhysReg::VGPR0 + bound[1]);
        let window = RegisterDemand { sgprs: bound[0], vgprs: bound[1], agprs: bound[2] };
        let free = room_at_occupancy(window, proc, func.wave_size);
        // SGPRs as far as the occupancy allows; VGPRs only to the end of the allocation granule
        // the window already takes (the registers the hardware gives the wave anyway: growing
        // further would move a move's cost into the register count other kernels and the
        // benchmark see), and not beside AGPRs, which share their granules on gfx942.
        let granule_end = bound[1].next_multiple_of(proc.vgpr_alloc_granule(func.wave_size).max(1));
        let room: [u16; FILES] = std::array::from_fn(|file| match file {
            0 => free.of(0).min(limit[0]).max(bound[0]),
            1 if bound[2] == 0 => free.of(1).min(granule_end).min(limit[1]).max(bound[1]),
            _ => bound[file],
        });
        let mut occ = vec![FREE; REGS];
        occ[usize::from(lin_region.0)..usize::from(lin_region.1)].fill(RESERVED);
        // Vectors built by p_create_vector, for the affinity of their parts.
        let mut vector_of = vec![u32::MAX; temps];
        let mut vectors = Vec::new();
        for inst in func.blocks.iter().flat_map(|b| b.insts.iter()).filter(|i| i.opcode == Opcode::PCreateVector) {
            let Some(def) = inst.defs.first() else { continue };
            let mut parts = SmallVec::new();
            let mut offset = 0u16;
            for op in &inst.ops {
                if let Some(t) = op.temp_of() {
                    parts.push((t.id, offset));
                    if vector_of[t.id as usize] == u32::MAX {
                        vector_of[t.id as usize] = vectors.len() as u32;
                    }
                }
                offset += u16::from(op.rc().map_or(1, |rc| rc.size));
            }
            vectors.push(Vector { parts, size: u16::from(def.rc.size), align: alignment(def.rc, proc) });
        }
        Ok(Assigner {
            proc,
            live,
            family: func.family,
            kernel: func.name.clone(),
            occ,
            loc: vec![NO_REG; temps],
            placed: Vec::new(),
            bound,
            limit,
            room,
            lin_region,
            lin_reg,
            pin: vec![0; REGS],
            killed: vec![0; temps],
            fixed_here: vec![0; temps],
            stamp: 0,
            block: 0,
            moves: Vec::new(),
            move_at: vec![(0, 0); temps],
            entry: vec![Vec::new(); n],
            exit: vec![Vec::new(); n],
            renames: vec![Vec::new(); n],
            clock: 1,
            written: vec![0; REGS],
            block_start: 0,
            shadow: vec![(NO_REG, 0); temps],
            affinity: phi_affinities(func, live),
            class_reg: vec![NO_REG; temps],
            vector_of,
            vectors,
            stats: AssignStats::default(),
        })
    }

    fn temp(&self, id: u32) -> Temp {
        self.live.temp(id).expect("every temporary the assignment sees is defined")
    }

    fn unsupported(&self, block: usize, what: &'static str) -> AllocError {
        AllocError::Unsupported { kernel: self.kernel.clone(), block: block as u32, what }
    }

    fn internal(&self, message: String) -> AllocError {
        AllocError::Internal { kernel: self.kernel.clone(), message }
    }

    /// What a register holds when no value is in it.
    fn vacant(&self, reg: u16) -> u32 {
        if (self.lin_region.0..self.lin_region.1).contains(&reg) {
            RESERVED
        } else {
            FREE
        }
    }

    /// Whether `reg..reg + size` is inside the allocatable window of `file`.
    fn in_window(&self, file: usize, reg: u16, size: u16) -> bool {
        let base = file_base(file);
        reg >= base && reg + size <= base + self.bound[file]
    }

    fn place(&mut self, t: Temp, reg: u16) {
        self.clock += 1;
        for x in reg..reg + u16::from(t.rc.size) {
            self.occ[usize::from(x)] = t.id;
            self.written[usize::from(x)] = self.clock;
        }
        let class = &mut self.class_reg[self.affinity[t.id as usize] as usize];
        if *class == NO_REG {
            *class = reg;
        }
        if self.loc[t.id as usize] == NO_REG {
            self.placed.push(t.id);
        }
        self.loc[t.id as usize] = reg;
    }

    /// Takes `t` out of the register file (its registers that still hold it become vacant).
    fn unplace(&mut self, t: Temp) {
        let reg = std::mem::replace(&mut self.loc[t.id as usize], NO_REG);
        if reg == NO_REG {
            return;
        }
        for x in reg..reg + u16::from(t.rc.size) {
            if self.occ[usize::from(x)] == t.id {
                self.occ[usize::from(x)] = self.vacant(x);
            }
        }
    }

    fn clear(&mut self) {
        for id in std::mem::take(&mut self.placed) {
            if self.loc[id as usize] != NO_REG {
                let t = self.temp(id);
                self.unplace(t);
            }
        }
    }

    fn pin_range(&mut self, reg: u16, size: u8) {
        for x in reg..reg + u16::from(size) {
            if let Some(p) = self.pin.get_mut(usize::from(x)) {
                *p = self.stamp;
            }
        }
    }

    fn pinned(&self, reg: u16) -> bool {
        self.pin[usize::from(reg)] == self.stamp
    }

    fn killed_here(&self, id: u32) -> bool {
        self.killed[id as usize] == self.stamp
    }

    /// Records that `t` moves from `from` to `to` in the copy before the instruction.
    fn record_move(&mut self, t: Temp, from: u16, to: u16) {
        let (stamp, i) = self.move_at[t.id as usize];
        if stamp == self.stamp {
            self.moves[i as usize].to = to;
        } else {
            self.move_at[t.id as usize] = (self.stamp, self.moves.len() as u32);
            self.moves.push(Move { temp: t, from, to });
        }
    }

    /// Moves `t` to `to` (through the copy before the instruction).
    fn move_temp(&mut self, t: Temp, to: u16) {
        let from = self.loc[t.id as usize];
        self.shadow[t.id as usize] = (from, self.clock);
        self.unplace(t);
        self.place(t, to);
        self.record_move(t, from, to);
    }

    /// The copy before the current instruction, if anything moved.
    fn take_copy(&mut self) -> Option<Inst> {
        let mut copy = Inst::new(Opcode::PParallelCopy, &[], &[]);
        for m in self.moves.drain(..).filter(|m| m.from != m.to) {
            copy.defs.push(Def::fixed(m.temp, PhysReg(m.to)));
            copy.ops.push(Operand::fixed(m.temp, PhysReg(m.from)));
            self.stats.moved += u32::from(m.temp.rc.size);
        }
        (!copy.defs.is_empty()).then_some(copy)
    }

    /// The registers of the window of `file` (relative to the file) for which `taken` holds.
    fn taken_set(&self, file: usize, taken: impl Fn(u16) -> bool) -> RegSet {
        self.taken_upto(file, self.bound[file], taken)
    }

    /// The registers of `file` below `end` (relative to the file) for which `taken` holds.
    fn taken_upto(&self, file: usize, end: u16, taken: impl Fn(u16) -> bool) -> RegSet {
        let base = file_base(file);
        let mut set = RegSet::default();
        for rel in 0..end {
            if taken(base + rel) {
                set.insert_range(rel, 1);
            }
        }
        set
    }

    /// Raises the window of `file` by `by` registers, or fails when the file has no more.
    fn grow(&mut self, file: usize, by: u16) -> Result<(), AllocError> {
        let want = self.bound[file] + by.max(1);
        if want > self.limit[file] {
            return Err(AllocError::DemandTooHigh {
                kernel: self.kernel.clone(),
                file: FILE_TYPES[file],
                demand: want,
                limit: self.limit[file],
            });
        }
        self.bound[file] = want;
        Ok(())
    }

    /// Whether value `id` may be moved to make room (not a linear VGPR, not in a special
    /// register, not read in a fixed register by the current instruction).
    fn movable(&self, id: u32) -> bool {
        let reg = self.loc[id as usize];
        reg != NO_REG
            && self.lin_reg[id as usize] == NO_REG
            && self.fixed_here[id as usize] != self.stamp
            && self.in_window(file_of_reg(reg), reg, u16::from(self.temp(id).rc.size))
    }

    /// Moves value `id` out of its registers into free ones of its file (for a fixed operand
    /// or a fixed write that needs them), raising the window if the file is full.
    fn relocate(&mut self, id: u32) -> Result<(), AllocError> {
        let t = self.temp(id);
        if self.lin_reg[id as usize] != NO_REG {
            return Err(self.internal(format!("{t} (a linear VGPR) would have to move")));
        }
        let file = file_index(t.rc.ty);
        let (size, align) = (u16::from(t.rc.size), alignment(t.rc, self.proc));
        // Back where it came from, if that register still holds it: no copy needed.
        let (back, since) = self.shadow[id as usize];
        if back != NO_REG
            && since >= self.block_start
            && self.in_window(file, back, size)
            && (back - file_base(file)).is_multiple_of(align)
            && (back..back + size).all(|x| {
                let x = usize::from(x);
                self.occ[x] == FREE && self.written[x] <= since && self.pin[x] != self.stamp
            })
        {
            let from = self.loc[id as usize];
            self.unplace(t);
            self.place(t, back);
            if self.move_at[id as usize].0 == self.stamp {
                self.record_move(t, from, back);
            }
            return Ok(());
        }
        loop {
            let taken = self.taken_set(file, |x| self.occ[usize::from(x)] != FREE || self.pinned(x));
            if let Some(p) = taken.best_fit(size, align, self.bound[file]) {
                self.move_temp(t, file_base(file) + p);
                return Ok(());
            }
            self.grow(file, size)?;
        }
    }

    /// Empties `reg..reg + size` for a fixed operand or result, moving the values there
    /// (except `keep`) elsewhere.
    fn evacuate(&mut self, reg: u16, size: u8, keep: Option<u32>) -> Result<(), AllocError> {
        for x in reg..reg + u16::from(size) {
            let u = self.occ[usize::from(x)];
            if u == FREE || u == RESERVED || Some(u) == keep {
                continue;
            }
            self.relocate(u)?;
        }
        Ok(())
    }

    /// Whether a result may take register `x` at the current instruction: inside the window,
    /// not pinned, and free or held by a value read here for the last time (when `reuse`), or
    /// by `own` (the operand a copy's result copies).
    fn free_for_def(&self, x: u16, reuse: bool, own: Option<u32>) -> bool {
        if self.pinned(x) || self.vacant(x) == RESERVED {
            return false;
        }
        match self.occ[usize::from(x)] {
            FREE => true,
            RESERVED => false,
            u => (reuse && self.killed_here(u)) || (Some(u) == own && self.killed_here(u)),
        }
    }

    /// Registers where result `idx` of `inst` would like to go, each with the operand it may
    /// overwrite.
    fn candidates(&self, inst: &Inst, idx: usize, t: Temp) -> SmallVec<[(u16, Option<u32>); 4]> {
        let mut out = SmallVec::new();
        let loc = |s: Temp| self.loc[s.id as usize];
        let same_file = |s: Temp| file_index(s.rc.ty) == file_index(t.rc.ty);
        match inst.opcode {
            Opcode::PParallelCopy => {
                if let Some(s) = inst.ops.get(idx).and_then(|o| o.temp_of()) {
                    if same_file(s) && loc(s) != NO_REG {
                        out.push((loc(s), Some(s.id)));
                    }
                }
            }
            Opcode::PSplitVector => {
                if let Some(s) = inst.ops.first().and_then(|o| o.temp_of()).filter(|&s| loc(s) != NO_REG) {
                    let offset: u16 = inst.defs[..idx].iter().map(|d| u16::from(d.rc.size)).sum();
                    if same_file(s) {
                        out.push((loc(s) + offset, None));
                    }
                }
            }
            Opcode::PCreateVector => {
                let mut offset = 0u16;
                for op in &inst.ops {
                    if let Some(s) = op.temp_of().filter(|&s| same_file(s) && loc(s) != NO_REG) {
                        if let Some(base) = loc(s).checked_sub(offset) {
                            out.push((base, None));
                        }
                    }
                    offset += u16::from(op.rc().map_or(1, |rc| rc.size));
                }
            }
            _ => {}
        }
        let class = self.class_reg[self.affinity[t.id as usize] as usize];
        if class != NO_REG {
            out.push((class, None));
        }
        if let Some(v) = self.vectors.get(self.vector_of[t.id as usize] as usize) {
            let mine = v.parts.iter().find(|p| p.0 == t.id).map_or(0, |p| p.1);
            let file = file_index(t.rc.ty);
            // The first part placed looks for room for the whole vector.
            if v.parts.iter().all(|&(s, _)| self.loc[s as usize] == NO_REG || s == t.id) {
                let taken = self.taken_set(file, |x| !self.free_for_def(x, false, None));
                if let Some(p) = taken.best_fit(v.size, v.align, self.bound[file]) {
                    out.push((file_base(file) + p + mine, None));
                }
            }
            for &(s, off) in &v.parts {
                let at = self.loc[s as usize];
                if s == t.id || at == NO_REG || file_of_reg(at) != file_index(t.rc.ty) {
                    continue;
                }
                let Some(rel) = at.checked_sub(off + file_base(file_index(t.rc.ty))) else { continue };
                if rel % v.align == 0 {
                    out.push((at - off + mine, None));
                }
            }
        }
        out
    }

    /// Finds registers for result `t` of `inst` without compaction: an affinity, the best
    /// free fit, a free fit in the window grown as far as it grows for free, or the window
    /// where the fewest live values must move (moving them).
    fn find_def(&mut self, inst: &Inst, idx: usize, t: Temp, reuse: bool) -> Option<u16> {
        let file = file_index(t.rc.ty);
        let (size, align) = (u16::from(t.rc.size), alignment(t.rc, self.proc));
        let base = file_base(file);
        for (cand, own) in self.candidates(inst, idx, t) {
            if self.in_window(file, cand, size)
                && (cand - base).is_multiple_of(align)
                && (cand..cand + size).all(|x| self.free_for_def(x, reuse, own))
            {
                return Some(cand);
            }
        }
        let taken = self.taken_set(file, |x| !self.free_for_def(x, reuse, None));
        if let Some(p) = taken.best_fit(size, align, self.bound[file]) {
            return Some(base + p);
        }
        let room = self.room[file];
        if room > self.bound[file] {
            let taken = self.taken_upto(file, room, |x| !self.free_for_def(x, reuse, None));
            if let Some(p) = taken.best_fit(size, align, room) {
                self.bound[file] = self.bound[file].max(p + size);
                return Some(base + p);
            }
        }
        self.make_room(file, size, align, reuse)
    }

    /// Frees an aligned window of `size` registers for a result by moving the live values
    /// in it to free registers elsewhere: the windows that displace the fewest registers are
    /// tried first. Returns the window's first register.
    fn make_room(&mut self, file: usize, size: u16, align: u16, reuse: bool) -> Option<u16> {
        let base = file_base(file);
        let end = base + self.bound[file];
        // The cost of a window: the registers of the live values to move out of it, or None
        // when something there cannot move.
        let cost = |p: u16| -> Option<u32> {
            let (mut cost, mut last) = (0u32, FREE);
            for x in p..p + size {
                if self.pinned(x) || self.vacant(x) == RESERVED {
                    return None;
                }
                match self.occ[usize::from(x)] {
                    FREE => {}
                    u if u != RESERVED && reuse && self.killed_here(u) => {}
                    u if u != RESERVED && !self.killed_here(u) && self.movable(u) => {
                        if u != last {
                            cost += u32::from(self.temp(u).rc.size);
                            last = u;
                        }
                    }
                    _ => return None,
                }
            }
            Some(cost)
        };
        let mut windows: Vec<(u32, u16)> = (base..end.saturating_sub(size - 1))
            .step_by(usize::from(align))
            .filter_map(|p| Some((cost(p)?, p)))
            .collect();
        windows.sort_unstable();
        for &(_, p) in windows.iter().take(ROOM_TRIES) {
            let mut victims: SmallVec<[Temp; 8]> = SmallVec::new();
            for x in p..p + size {
                let u = self.occ[usize::from(x)];
                if u != FREE && !self.killed_here(u) && !victims.iter().any(|v| v.id == u) {
                    victims.push(self.temp(u));
                }
            }
            victims.sort_by_key(|v| std::cmp::Reverse(v.rc.size));
            let mut taken = self.taken_set(file, |x| self.occ[usize::from(x)] != FREE || self.pinned(x));
            taken.insert_range(p - base, size);
            let mut plan: SmallVec<[(Temp, u16); 8]> = SmallVec::new();
            for &v in &victims {
                let (vs, va) = (u16::from(v.rc.size), alignment(v.rc, self.proc));
                let Some(q) = taken.best_fit(vs, va, self.bound[file]) else { break };
                taken.insert_range(q, vs);
                plan.push((v, base + q));
            }
            if plan.len() == victims.len() {
                for (v, q) in plan {
                    self.move_temp(v, q);
                }
                return Some(p);
            }
        }
        None
    }

    /// Places the results `defs` of one file by compacting the file: every movable live value
    /// and the results are packed first fit (as the demand counts them) around what is
    /// pinned. Operands read here for the last time stay where they are if the packing fits
    /// around them (results may overlap them when `reuse`), else move too, clear of the live
    /// values (and of the results unless `reuse`). The window grows until a packing fits.
    fn compact(&mut self, file: usize, defs: &[Temp], reuse: bool) -> Result<SmallVec<[u16; 4]>, AllocError> {
        let base = file_base(file);
        let item = |t: &Temp, avoid_kept: bool| Item {
            size: u16::from(t.rc.size),
            align: alignment(t.rc, self.proc),
            avoid_kept,
        };
        loop {
            let hi = self.bound[file];
            // busy: pinned or immovable; kept: operands read for the last time here; stuck:
            // those of them that cannot move (part of them is pinned).
            let (mut busy, mut kept, mut stuck) = (RegSet::default(), RegSet::default(), RegSet::default());
            let (mut movers, mut killed): (Vec<Temp>, Vec<Temp>) = (Vec::new(), Vec::new());
            for rel in 0..hi {
                let x = base + rel;
                let u = self.occ[usize::from(x)];
                if u == FREE {
                    if self.pinned(x) {
                        busy.insert_range(rel, 1);
                    }
                } else if u == RESERVED {
                    busy.insert_range(rel, 1);
                } else if self.killed_here(u) && !self.pinned(x) && self.vacant(x) != RESERVED {
                    kept.insert_range(rel, 1);
                    let t = self.temp(u);
                    let at = self.loc[u as usize];
                    let whole = self.movable(u)
                        && (at..at + u16::from(t.rc.size)).all(|y| !self.pinned(y) && self.occ[usize::from(y)] == u);
                    if !whole {
                        stuck.insert_range(rel, 1);
                    } else if at == x {
                        killed.push(t);
                    }
                } else if self.vacant(x) == RESERVED || self.pinned(x) || !self.movable(u) || self.killed_here(u) {
                    busy.insert_range(rel, 1);
                } else if self.loc[u as usize] == x {
                    movers.push(self.temp(u));
                }
            }
            // The operands read for the last time stay.
            let items: Vec<Item> =
                movers.iter().map(|t| item(t, true)).chain(defs.iter().map(|t| item(t, !reuse))).collect();
            if let Some(at) = first_fit(&items, busy, kept, hi) {
                self.relocate_all(file, &movers, &at);
                return Ok(at[movers.len()..].iter().map(|&p| base + p).collect());
            }
            // They move too: live values and results first, then the killed operands clear of
            // the live values (and of the results unless they may overlap).
            let items: Vec<Item> =
                movers.iter().map(|t| item(t, true)).chain(defs.iter().map(|t| item(t, !reuse))).collect();
            if let Some(at) = first_fit(&items, busy, stuck, hi) {
                let mut around = busy;
                let placed = if reuse { movers.len() } else { items.len() };
                for (it, &p) in items.iter().zip(&at).take(placed) {
                    around.insert_range(p, it.size);
                }
                let k_items: Vec<Item> = killed.iter().map(|t| item(t, false)).collect();
                if let Some(k_at) = first_fit(&k_items, around, RegSet::default(), hi) {
                    let all: Vec<Temp> = movers.iter().chain(&killed).copied().collect();
                    let to: Vec<u16> = at[..movers.len()].iter().chain(&k_at).copied().collect();
                    self.relocate_all(file, &all, &to);
                    return Ok(at[movers.len()..].iter().map(|&p| base + p).collect());
                }
            }
            self.grow(file, 1)?;
        }
    }

    /// Moves `temps` of `file` to the file-relative registers `to` at once.
    fn relocate_all(&mut self, file: usize, temps: &[Temp], to: &[u16]) {
        let base = file_base(file);
        let froms: Vec<u16> = temps.iter().map(|t| self.loc[t.id as usize]).collect();
        for &t in temps {
            self.unplace(t);
        }
        for ((&t, &p), &from) in temps.iter().zip(to).zip(&froms) {
            self.place(t, base + p);
            self.record_move(t, from, base + p);
        }
    }

    /// Drops what copies compute for nobody: the pairs of a `p_parallelcopy` whose result is
    /// never read, a `p_create_vector` or `p_split_vector` none of whose results is. Operands
    /// read for the last time by what goes leave the file. False if nothing is left.
    fn prune(&mut self, inst: &mut Inst) -> bool {
        let dead = |d: &Def| d.temp.is_some_and(|t| self.live.is_dead(t.id));
        let gone: SmallVec<[Operand; 4]> = match inst.opcode {
            Opcode::PParallelCopy if inst.defs.iter().any(dead) => {
                let (mut defs, mut ops, mut gone) = (SmallVec::new(), SmallVec::new(), SmallVec::new());
                for (d, o) in inst.defs.iter().zip(&inst.ops) {
                    if dead(d) {
                        gone.push(*o);
                    } else {
                        defs.push(*d);
                        ops.push(*o);
                    }
                }
                inst.defs = defs;
                inst.ops = ops;
                gone
            }
            Opcode::PCreateVector | Opcode::PSplitVector if inst.defs.iter().all(dead) => std::mem::take(&mut inst.ops),
            _ => return true,
        };
        for o in gone {
            if let (OperandKind::Temp(t), true) = (o.kind, o.kill) {
                if !inst.ops.iter().any(|k| k.temp_of() == Some(t)) {
                    self.unplace(t);
                }
            }
        }
        // What is left: a parallel copy with live pairs; nothing of a vector nobody reads.
        inst.opcode == Opcode::PParallelCopy && !inst.defs.is_empty()
    }

    /// Where result `i` of a `p_split_vector` can stay without a copy when nobody reads it:
    /// its part of the vector, if the vector still holds those registers (aligned for it).
    fn unread_part(&self, inst: &Inst, i: usize) -> Option<u16> {
        let t = inst.defs[i].temp?;
        if inst.opcode != Opcode::PSplitVector || !self.live.is_dead(t.id) {
            return None;
        }
        let src = inst.ops.first()?.temp_of()?;
        let offset: u16 = inst.defs[..i].iter().map(|d| u16::from(d.rc.size)).sum();
        let at = self.loc[src.id as usize].checked_add(offset).filter(|_| self.loc[src.id as usize] != NO_REG)?;
        let aligned = (at - file_base(file_index(t.rc.ty))).is_multiple_of(alignment(t.rc, self.proc));
        (aligned && (at..at + u16::from(t.rc.size)).all(|x| self.occ[usize::from(x)] == src.id)).then_some(at)
    }

    /// Assigns the registers of one instruction (not a phi) and returns the copy to insert
    /// before it, if values move.
    fn instruction(&mut self, inst: &mut Inst) -> Result<Option<Inst>, AllocError> {
        self.stamp += 1;
        let stamp = self.stamp;
        let late = late_kill(inst, self.family);
        for op in &inst.ops {
            let OperandKind::Temp(t) = op.kind else { continue };
            if self.loc[t.id as usize] == NO_REG {
                return Err(self.internal(format!("{t} is read in BB{} but is in no register", self.block)));
            }
            if op.kill {
                self.killed[t.id as usize] = stamp;
            }
            if op.reg.is_some() {
                self.fixed_here[t.id as usize] = stamp;
            }
        }
        // What the instruction reads or writes at fixed places stays put.
        let mut fixed: SmallVec<[(Temp, u16); 4]> = SmallVec::new();
        for op in &inst.ops {
            if let (OperandKind::Temp(t), Some(r)) = (op.kind, op.reg) {
                if let Some(&(_, other)) = fixed.iter().find(|(u, _)| *u == t) {
                    if other != r.0 {
                        return Err(AllocError::ConflictingFixedRegisters {
                            temp: t,
                            first: PhysReg(other),
                            second: r,
                        });
                    }
                    continue;
                }
                let overlaps =
                    |&(u, at): &(Temp, u16)| at < r.0 + u16::from(t.rc.size) && r.0 < at + u16::from(u.rc.size);
                if fixed.iter().any(overlaps) {
                    return Err(self.unsupported(self.block, "two operands fixed to overlapping registers"));
                }
                fixed.push((t, r.0));
                self.pin_range(r.0, t.rc.size);
            }
        }
        for d in &inst.defs {
            if let Some(r) = d.reg {
                self.pin_range(r.0, d.rc.size);
            }
        }
        // 1. Operands fixed to a register go there.
        for &(t, r) in &fixed {
            if self.loc[t.id as usize] != r {
                self.evacuate(r, t.rc.size, Some(t.id))?;
                self.move_temp(t, r);
            }
        }
        // SCC holds values only for fixed reads: any other read takes the value from an SGPR.
        for op in &inst.ops {
            if let (OperandKind::Temp(t), None) = (op.kind, op.reg) {
                if self.loc[t.id as usize] == PhysReg::SCC.0 && self.fixed_here[t.id as usize] != stamp {
                    self.relocate(t.id)?;
                }
            }
        }
        // 2. Values in registers the instruction writes at fixed places, and still needed
        // after it, move out.
        for d in &inst.defs {
            let Some(r) = d.reg else { continue };
            for x in r.0..r.0 + u16::from(d.rc.size) {
                let u = self.occ[usize::from(x)];
                if u == FREE || u == RESERVED || self.killed_here(u) {
                    continue;
                }
                if self.fixed_here[u as usize] == stamp {
                    return Err(self.unsupported(
                        self.block,
                        "a value read in a fixed register must outlive the instruction that overwrites that register",
                    ));
                }
                self.relocate(u)?;
            }
        }
        // Registers written without a value of their own (SCC, VCC, EXEC clobbers).
        for d in inst.defs.iter().filter(|d| d.temp.is_none()) {
            if let Some(r) = d.reg {
                self.clock += 1;
                for x in r.0..r.0 + u16::from(d.rc.size) {
                    if let Some(w) = self.written.get_mut(usize::from(x)) {
                        *w = self.clock;
                    }
                }
            }
        }
        // 3. Fixed results, and linear VGPRs in their own registers.
        let mut regs: SmallVec<[u16; 4]> = inst.defs.iter().map(|d| d.reg.map_or(NO_REG, |r| r.0)).collect();
        for (i, d) in inst.defs.iter().enumerate() {
            let Some(t) = d.temp else { continue };
            if regs[i] == NO_REG && self.lin_reg[t.id as usize] != NO_REG {
                regs[i] = self.lin_reg[t.id as usize];
                self.pin_range(regs[i], t.rc.size);
            }
            if regs[i] != NO_REG {
                self.place(t, regs[i]);
            }
        }
        // 4. The other results, largest first.
        let reuse = !late && inst.opcode != Opcode::PParallelCopy;
        // Results nobody reads go last: a part of a split vector nobody reads can then stay
        // where it is in the vector, if the vector is still there (its copy is a no-op).
        let dead = |i: usize| inst.defs[i].temp.is_some_and(|t| self.live.is_dead(t.id));
        let mut order: SmallVec<[usize; 4]> =
            (0..inst.defs.len()).filter(|&i| regs[i] == NO_REG && inst.defs[i].temp.is_some()).collect();
        order.sort_by_key(|&i| (dead(i), std::cmp::Reverse(inst.defs[i].rc.size)));
        for k in 0..order.len() {
            let i = order[k];
            if regs[i] != NO_REG {
                continue;
            }
            let t = inst.defs[i].temp.expect("filtered above");
            if let Some(r) = self.unread_part(inst, i) {
                regs[i] = r;
                continue;
            }
            if let Some(r) = self.find_def(inst, i, t, reuse) {
                regs[i] = r;
                self.place(t, r);
                self.pin_range(r, t.rc.size);
                continue;
            }
            // No way around it: compact the file for this result and the others of its file.
            let file = file_index(t.rc.ty);
            let rest: SmallVec<[usize; 4]> = order[k..]
                .iter()
                .copied()
                .filter(|&j| regs[j] == NO_REG && file_index(inst.defs[j].rc.ty) == file)
                .collect();
            let temps: SmallVec<[Temp; 4]> = rest.iter().filter_map(|&j| inst.defs[j].temp).collect();
            // A copy's results may take any of its killed operands' registers here when no
            // two files copy into each other: the moves then form cycles within a file at
            // worst, which swaps resolve.
            let reuse = reuse || (inst.opcode == Opcode::PParallelCopy && !late && !files_copy_in_a_cycle(inst));
            let at = self.compact(file, &temps, reuse)?;
            for (n, &j) in rest.iter().enumerate() {
                regs[j] = at[n];
                self.place(temps[n], at[n]);
                self.pin_range(at[n], temps[n].rc.size);
            }
        }
        for (d, &r) in inst.defs.iter_mut().zip(&regs) {
            if d.temp.is_some() {
                d.reg = Some(PhysReg(r));
            }
        }
        // 5. Operands are read where their values are now.
        for op in inst.ops.iter_mut() {
            if let OperandKind::Temp(t) = op.kind {
                op.reg = Some(PhysReg(self.loc[t.id as usize]));
            }
        }
        // 6. Values read for the last time and results nobody reads leave the file.
        for op in &inst.ops {
            if let (OperandKind::Temp(t), true) = (op.kind, op.kill) {
                self.unplace(t);
            }
        }
        for t in inst.defs.iter().filter_map(|d| d.temp) {
            if self.live.is_dead(t.id) {
                self.unplace(t);
            }
        }
        Ok(self.take_copy())
    }

    /// The register value `id` had at the end of block `p`.
    fn exit_loc(&self, p: usize, id: u32) -> Result<u16, AllocError> {
        let exit = &self.exit[p];
        match exit.binary_search_by_key(&id, |e| e.0) {
            Ok(i) => Ok(exit[i].1),
            Err(_) => Err(self.internal(format!("%{id} is not live out of BB{p}"))),
        }
    }

    /// Whether a value live out of block `p` overlaps `reg..reg + size`.
    fn exit_overlaps(&self, p: usize, reg: u16, size: u16) -> bool {
        self.exit[p].iter().any(|&(id, r)| r < reg + size && reg < r + u16::from(self.temp(id).rc.size))
    }

    /// The visited predecessor on one CFG whose registers a block's live-in values keep: one
    /// with several successors if there is one (its end cannot take copies), else the first.
    fn reference(&self, func: &Function, b: usize, linear: bool) -> Option<usize> {
        let block = &func.blocks[b];
        let preds = if linear { &block.linear_preds } else { &block.logical_preds };
        let visited = || preds.iter().map(|&p| p as usize).filter(|&p| p < b);
        visited().find(|&p| succ_count(&func.blocks[p], linear) > 1).or_else(|| visited().next())
    }

    /// Sets up the register file at the start of block `b`: live-in values, phis, and
    /// renaming phis where predecessors disagree.
    fn enter_block(&mut self, func: &mut Function, b: usize) -> Result<(), AllocError> {
        self.clear();
        self.block = b;
        self.stamp += 1;
        let refs = [self.reference(func, b, false), self.reference(func, b, true)];
        let live: &'a Liveness = self.live;
        for &id in &live.live_in[b] {
            let t = self.temp(id);
            let Some(p) = refs[usize::from(t.rc.linear)] else {
                return Err(self.unsupported(b, "a value lives into a block that no earlier block reaches"));
            };
            let r = self.exit_loc(p, id)?;
            if (r..r + u16::from(t.rc.size)).any(|x| !matches!(self.occ[usize::from(x)], FREE | RESERVED)) {
                return Err(self.internal(format!("{t} arrives at BB{b} in a register another value holds")));
            }
            self.place(t, r);
        }
        // Phis nobody reads go; the others get registers.
        let phis = func.blocks[b].insts.iter().take_while(|i| is_phi(i.opcode)).count();
        let dead = |i: &Inst| i.defs.first().and_then(|d| d.temp).is_none_or(|t| live.is_dead(t.id));
        let kept: Vec<Inst> = func.blocks[b].insts.drain(..phis).filter(|i| !dead(i)).collect();
        let phis = kept.len();
        func.blocks[b].insts.splice(0..0, kept);
        // Phis that can take the register one of their operands arrives in go first, so that
        // a phi with no such choice does not take the register another phi's operand frees.
        let mut later: SmallVec<[usize; 8]> = SmallVec::new();
        for i in 0..phis {
            if !self.place_phi(func, b, i, true)? {
                later.push(i);
            }
        }
        for i in later {
            self.place_phi(func, b, i, false)?;
        }
        for &id in &live.live_in[b] {
            let t = self.temp(id);
            let r = self.loc[id as usize];
            let mut ops: SmallVec<[Operand; 2]> = SmallVec::new();
            let mut differs = false;
            for p in preds_of(&func.blocks[b], t.rc.linear) {
                let p = p as usize;
                let at = if p < b { self.exit_loc(p, id)? } else { r };
                if at != r {
                    differs = true;
                    if succ_count(&func.blocks[p], t.rc.linear) > 1 {
                        return Err(self.unsupported(b, "a value arrives in different registers over a critical edge"));
                    }
                }
                ops.push(Operand::fixed(t, PhysReg(at)));
            }
            if differs {
                let opcode = if t.rc.linear { Opcode::PLinearPhi } else { Opcode::PPhi };
                self.renames[b].push(Inst::new(opcode, &[Def::fixed(t, PhysReg(r))], &ops));
            }
        }
        self.entry[b] = live.live_in[b].iter().map(|&id| (id, self.loc[id as usize])).collect();
        // Values moved to make room here arrive in their new registers through renaming phis,
        // and their old registers do not hold them on every incoming path: no shadows.
        self.moves.clear();
        self.clock += 1;
        self.block_start = self.clock;
        Ok(())
    }

    /// Gives phi `i` of block `b` a register, preferring one its operands are in, and sets
    /// the registers its operands have at the ends of the visited predecessors. With
    /// `only_operands`, a phi none of whose operands' registers is free is left for later:
    /// returns whether the phi is placed.
    fn place_phi(&mut self, func: &mut Function, b: usize, i: usize, only_operands: bool) -> Result<bool, AllocError> {
        let phi = &func.blocks[b].insts[i];
        let linear = phi.opcode == Opcode::PLinearPhi;
        let Some(t) = phi.defs.first().and_then(|d| d.temp) else { return Ok(true) };
        let fixed = phi.defs[0].reg;
        let preds = preds_of(&func.blocks[b], linear);
        let multi: SmallVec<[bool; 2]> =
            preds.iter().map(|&p| succ_count(&func.blocks[p as usize], linear) > 1).collect();
        let mut at: SmallVec<[u16; 2]> = SmallVec::new();
        for (k, op) in phi.ops.iter().enumerate() {
            let p = preds.get(k).map_or(usize::MAX, |&p| p as usize);
            at.push(match op.temp_of() {
                Some(s) if p < b => self.exit_loc(p, s.id)?,
                _ => NO_REG,
            });
        }
        let file = file_index(t.rc.ty);
        let (size, align, base) = (u16::from(t.rc.size), alignment(t.rc, self.proc), file_base(file));
        let free = |a: &Self, r: u16| (r..r + size).all(|x| a.occ[usize::from(x)] == FREE);
        let reg = if let Some(r) = fixed {
            if !free(self, r.0) {
                return Err(self.unsupported(b, "a phi fixed to a register a live value holds"));
            }
            r.0
        } else if self.lin_reg[t.id as usize] != NO_REG {
            self.lin_reg[t.id as usize]
        } else {
            let hint = self.class_reg[self.affinity[t.id as usize] as usize];
            let wanted =
                at.iter().copied().chain((hint != NO_REG).then_some(hint)).find(|&r| {
                    r != NO_REG && self.in_window(file, r, size) && (r - base) % align == 0 && free(self, r)
                });
            let own = at.iter().any(|&r| Some(r) == wanted);
            if only_operands && !own {
                return Ok(false);
            }
            let taken = self.taken_set(file, |x| self.occ[usize::from(x)] != FREE);
            match wanted.or_else(|| taken.best_fit(size, align, self.bound[file]).map(|p| base + p)) {
                Some(r) => r,
                None => match self.entry_room(func, b, file, size, align) {
                    Some(r) => r,
                    None => loop {
                        self.grow(file, size)?;
                        let taken = self.taken_set(file, |x| self.occ[usize::from(x)] != FREE);
                        if let Some(p) = taken.best_fit(size, align, self.bound[file]) {
                            break base + p;
                        }
                    },
                },
            }
        };
        self.place(t, reg);
        self.pin_range(reg, t.rc.size);
        for (k, &p) in preds.iter().enumerate() {
            let p = p as usize;
            let Some(op) = func.blocks[b].insts[i].ops.get(k).copied() else { continue };
            let copies = match op.kind {
                OperandKind::Temp(_) => at[k] != reg,
                OperandKind::Const(_) => true,
                _ => false,
            };
            if p < b && copies && multi[k] && self.exit_overlaps(p, reg, size) {
                return Err(self.unsupported(b, "a phi's copy on a critical edge would overwrite a live value"));
            }
        }
        let phi = &mut func.blocks[b].insts[i];
        phi.defs[0].reg = Some(PhysReg(reg));
        for (op, &r) in phi.ops.iter_mut().zip(&at) {
            if r != NO_REG {
                op.reg = Some(PhysReg(r));
            }
        }
        Ok(true)
    }

    /// Makes room for a phi at the start of block `b` by giving live-in values of `file`
    /// other registers there (renaming phis then move them at the ends of the predecessors),
    /// if every visited predecessor can take copies at its end.
    fn entry_room(&mut self, func: &Function, b: usize, file: usize, size: u16, align: u16) -> Option<u16> {
        let linear = file == 0;
        let preds = preds_of(&func.blocks[b], linear);
        if preds.iter().any(|&p| (p as usize) < b && succ_count(&func.blocks[p as usize], linear) > 1) {
            return None;
        }
        self.make_room(file, size, align, false)
    }

    /// Records where block `b` leaves its values, and, on its back edges, what the loop
    /// header it returns to needs: renaming phis for values now elsewhere, and the registers
    /// of the header's phi operands.
    fn leave_block(&mut self, func: &mut Function, b: usize) -> Result<(), AllocError> {
        let live: &'a Liveness = self.live;
        let mut exit = Vec::with_capacity(live.live_out[b].len());
        for &id in &live.live_out[b] {
            let r = self.loc[id as usize];
            if r == NO_REG {
                return Err(self.internal(format!("%{id} is live out of BB{b} but in no register")));
            }
            exit.push((id, r));
        }
        self.exit[b] = exit;
        for linear in [false, true] {
            let block = &func.blocks[b];
            let succs = if linear { block.linear_succs.clone() } else { block.logical_succs.clone() };
            let multi = succs.len() > 1;
            for h in succs.iter().map(|&h| h as usize).filter(|&h| h <= b) {
                let preds = preds_of(&func.blocks[h], linear);
                let Some(k) = preds.iter().position(|&p| p as usize == b) else { continue };
                for e in 0..self.entry[h].len() {
                    let (id, r) = self.entry[h][e];
                    let t = self.temp(id);
                    if t.rc.linear != linear {
                        continue;
                    }
                    let here = self.exit_loc(b, id)?;
                    if here != r {
                        if multi {
                            return Err(self.unsupported(
                                b,
                                "a value returns to a loop header in another register over a critical edge",
                            ));
                        }
                        self.rename_operand(h, t, k, here, r, preds.len());
                    }
                }
                let kind = if linear { Opcode::PLinearPhi } else { Opcode::PPhi };
                let phis = func.blocks[h].insts.iter().take_while(|i| is_phi(i.opcode)).count();
                for i in 0..phis {
                    let phi = &func.blocks[h].insts[i];
                    if phi.opcode != kind {
                        continue;
                    }
                    let (def, op) = (phi.defs[0], phi.ops.get(k).copied());
                    let Some(op) = op else { continue };
                    let def_reg = def.reg.map_or(NO_REG, |r| r.0);
                    let here = match op.temp_of() {
                        Some(s) => Some(self.exit_loc(b, s.id)?),
                        None => None,
                    };
                    let copies = match op.kind {
                        OperandKind::Temp(_) => here != Some(def_reg),
                        OperandKind::Const(_) => true,
                        _ => false,
                    };
                    if copies && multi && self.exit_overlaps(b, def_reg, u16::from(def.rc.size)) {
                        return Err(self.unsupported(b, "a phi's copy on a critical edge would overwrite a live value"));
                    }
                    if let Some(r) = here {
                        func.blocks[h].insts[i].ops[k].reg = Some(PhysReg(r));
                    }
                }
            }
        }
        Ok(())
    }

    /// Sets operand `k` of header `h`'s renaming phi for `t` to `here`, creating the phi (its
    /// other operands at the header's register `entry`) if there is none yet.
    fn rename_operand(&mut self, h: usize, t: Temp, k: usize, here: u16, entry: u16, preds: usize) {
        if let Some(phi) = self.renames[h].iter_mut().find(|p| p.defs[0].temp == Some(t)) {
            phi.ops[k] = Operand::fixed(t, PhysReg(here));
            return;
        }
        let mut ops: SmallVec<[Operand; 2]> = (0..preds).map(|_| Operand::fixed(t, PhysReg(entry))).collect();
        ops[k] = Operand::fixed(t, PhysReg(here));
        let opcode = if t.rc.linear { Opcode::PLinearPhi } else { Opcode::PPhi };
        self.renames[h].push(Inst::new(opcode, &[Def::fixed(t, PhysReg(entry))], &ops));
    }
}
