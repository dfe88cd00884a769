//! Waitcnt insertion: `s_waitcnt` (and `s_waitcnt_vscnt` on GFX10+) computed from per-counter
//! scoreboards, so a wave waits for a memory result only when it is about to read (or
//! overwrite) a register that result will write, and only as far as needed.
//!
//! For each counter the state keeps, per 32-bit register, how many events of that counter were
//! issued after the one that will write the register (its *distance*), or nothing when no
//! result is pending. Waiting `vmcnt(n)` completes every event at distance `n` or more, since
//! at most `n` may still be outstanding. Events that return in order (vector memory) need only
//! their distance, counted in in-order events only; scalar memory (and FLAT on GFX9) returns
//! out of order, so a register pending on one needs its counter at zero (see `events_of`). A
//! counter cannot hold more events than its field's maximum (the hardware stalls the issue
//! instead), so an event that far back is complete. States merge at
//! control-flow joins by keeping the nearest distance of each register, which is finite, so the
//! iteration over loops reaches a fixpoint.

use isa::asm::waitcnt_encode;
use isa::mir::{Function, Inst, Operand};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegClass};

/// The wait counters gcnc tracks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Counter {
    /// Vector memory loads (and stores before GFX10).
    Vm,
    /// Scalar memory, LDS, GDS and messages.
    Lgkm,
    /// Vector memory stores (GFX10+).
    Vs,
}

const COUNTERS: [Counter; 3] = [Counter::Vm, Counter::Lgkm, Counter::Vs];
/// Registers tracked: SGPRs and specials (0-255) and VGPRs (256-511).
const TRACKED: usize = 512;
/// "Nothing pending" in the distance table.
const NONE: u8 = u8::MAX;

/// The largest count each counter's field can hold (isa's s_waitcnt layout; vscnt has the
/// 6-bit field of s_waitcnt_vscnt's immediate use on GFX10+).
fn counter_max(family: Family, c: Counter) -> u8 {
    let (vm, _exp, lgkm) = isa::asm::waitcnt_max(family);
    match c {
        Counter::Vm => vm,
        Counter::Lgkm => lgkm,
        Counter::Vs => 63,
    }
}

/// The scoreboard at one program point.
struct State {
    /// Distance per counter per register, or NONE.
    dist: [Vec<u8>; 3],
    /// Per counter per register, whether its pending result may come out of order (SMEM, FLAT).
    unordered: [Vec<bool>; 3],
    /// Per counter, the registers with a distance (each once), so that aging and waiting cost
    /// what is pending rather than the whole table.
    pending: [Vec<u16>; 3],
}

/// A state kept at a block's entry: only the pending registers, per counter, sorted by
/// register (the dense tables of [`State`] would cost 3 KiB a block).
#[derive(Clone, Default)]
struct Entry {
    pending: [Vec<(u16, u8, bool)>; 3],
}

impl State {
    fn new() -> State {
        State {
            dist: [vec![NONE; TRACKED], vec![NONE; TRACKED], vec![NONE; TRACKED]],
            unordered: [vec![false; TRACKED], vec![false; TRACKED], vec![false; TRACKED]],
            pending: [Vec::new(), Vec::new(), Vec::new()],
        }
    }

    /// Becomes the state `entry` describes (clearing only what was pending).
    fn load(&mut self, entry: &Entry) {
        for c in 0..3 {
            for &r in &self.pending[c] {
                self.dist[c][usize::from(r)] = NONE;
                self.unordered[c][usize::from(r)] = false;
            }
            self.pending[c].clear();
            for &(r, d, u) in &entry.pending[c] {
                self.pending[c].push(r);
                self.dist[c][usize::from(r)] = d;
                self.unordered[c][usize::from(r)] = u;
            }
        }
    }

    /// Merges this state into `entry`, keeping for every register the nearest pending
    /// distance of either (out of order if either is); true if `entry` changed. A register
    /// with nothing pending here has distance NONE, above every other, and is in order.
    fn merge_into(&self, entry: &mut Entry, scratch: &mut Vec<(u16, u8, bool)>) -> bool {
        let mut changed = false;
        for c in 0..3 {
            let (dist, unordered) = (&self.dist[c], &self.unordered[c]);
            let old = &entry.pending[c];
            scratch.clear();
            scratch
                .extend(old.iter().map(|&(r, d, u)| (r, d.min(dist[usize::from(r)]), u | unordered[usize::from(r)])));
            let fresh = self.pending[c].iter().filter(|&&r| old.binary_search_by_key(&r, |e| e.0).is_err());
            scratch.extend(fresh.map(|&r| (r, dist[usize::from(r)], unordered[usize::from(r)])));
            scratch.sort_unstable();
            if *scratch != entry.pending[c] {
                std::mem::swap(scratch, &mut entry.pending[c]);
                changed = true;
            }
        }
        changed
    }

    /// Sets the distance of register `r` on counter `c` to 0: an event was just issued.
    fn issue(&mut self, c: usize, r: usize, unordered: bool) {
        if self.dist[c][r] == NONE {
            self.pending[c].push(r as u16);
        }
        self.dist[c][r] = 0;
        self.unordered[c][r] = unordered;
    }

    /// Applies `f` to the distance of every pending register of counter `c`; a register whose
    /// distance it turns to NONE leaves the pending list (and its out-of-order mark goes).
    fn update(&mut self, c: usize, mut f: impl FnMut(u8, bool) -> u8) {
        let (dist, unordered) = (&mut self.dist[c], &mut self.unordered[c]);
        self.pending[c].retain(|&r| {
            let r = usize::from(r);
            dist[r] = f(dist[r], unordered[r]);
            if dist[r] == NONE {
                unordered[r] = false;
            }
            dist[r] != NONE
        });
    }

    /// Completes every in-order event at distance `n` or more on counter `c`, and when `n` is
    /// zero every out-of-order one too (only an empty counter says those are done).
    fn wait(&mut self, c: usize, n: u8) {
        self.update(c, |d, unordered| if d >= n && (n == 0 || !unordered) { NONE } else { d });
    }
}

/// The counters an instruction's completion is tracked on, if it is a memory instruction, each
/// with whether the instruction may complete out of order with that counter's other events.
/// LDS (DS) operations count on lgkmcnt and return in order among themselves; SMEM counts there
/// too but out of order. Global and scratch accesses count on vmcnt (stores on vscnt on
/// GFX10+). A FLAT access may reach LDS as well as memory, so it counts on lgkmcnt and on
/// vmcnt (GFX10+: a store or a non-returning atomic on vscnt instead). On GFX9 it may complete
/// out of order with respect to either (AMDGPUUsage-new.txt, GFX6-GFX9 memory model: "flat ops
/// can complete out of order with respect to both the LDS and VMEM counters"), so its result
/// needs both counters at zero; GFX10+ count FLAT in order on both (LLVM 19's
/// `hasFlatLgkmVMemCountInOrder`, and the emulator's model).
fn events_of(inst: &Inst, family: Family) -> &'static [(Counter, bool)] {
    let split_store = inst.defs.is_empty() && !family.is_gfx9();
    match (inst.opcode.format(family), split_store) {
        (Format::Smem, _) => &[(Counter::Lgkm, true)],
        (Format::Ds, _) => &[(Counter::Lgkm, false)],
        (Format::Flat, _) if family.is_gfx9() => &[(Counter::Vm, true), (Counter::Lgkm, true)],
        (Format::Flat, false) => &[(Counter::Vm, false), (Counter::Lgkm, false)],
        (Format::Flat, true) => &[(Counter::Vs, false), (Counter::Lgkm, false)],
        (Format::Global | Format::Scratch, false) => &[(Counter::Vm, false)],
        (Format::Global | Format::Scratch, true) => &[(Counter::Vs, false)],
        _ => &[],
    }
}

/// The tracked 32-bit registers an operand or definition covers.
fn regs(reg: Option<PhysReg>, rc: Option<RegClass>) -> impl Iterator<Item = usize> {
    let (start, size) = match (reg, rc) {
        (Some(r), Some(rc)) if (r.0 as usize) < TRACKED => (r.0 as usize, rc.size as usize),
        _ => (0, 0),
    };
    (start..start + size).filter(|&r| r < TRACKED)
}

/// Counts of what the pass inserted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitStats {
    /// `s_waitcnt` and `s_waitcnt_vscnt` instructions inserted.
    pub waits: u32,
}

/// The waits an instruction needs before it issues, per counter (None: no wait).
fn needed(state: &State, inst: &Inst) -> [Option<u8>; 3] {
    let mut need = [None::<u8>; 3];
    let touched = inst
        .ops
        .iter()
        .flat_map(|op: &Operand| regs(op.reg, op.rc()))
        .chain(inst.defs.iter().flat_map(|d| regs(d.reg, Some(d.rc))));
    for r in touched {
        for (c, slot) in need.iter_mut().enumerate() {
            let d = state.dist[c][r];
            if d == NONE {
                continue;
            }
            let n = if state.unordered[c][r] { 0 } else { d };
            *slot = Some(slot.map_or(n, |m: u8| m.min(n)));
        }
    }
    need
}

/// Applies an instruction's effect on the scoreboard (after any wait before it).
fn apply(state: &mut State, inst: &Inst, family: Family) {
    if inst.opcode == Opcode::SWaitcnt {
        let (vm, _exp, lgkm) = isa::asm::waitcnt_decode(family, inst.fields.imm);
        if let Some(vm) = vm {
            state.wait(0, vm);
        }
        if let Some(lgkm) = lgkm {
            state.wait(1, lgkm);
        }
        return;
    }
    if inst.opcode == Opcode::SWaitcntVscnt {
        state.wait(2, inst.fields.imm.min(u8::MAX as u16) as u8);
        return;
    }
    for &(counter, unordered) in events_of(inst, family) {
        let c = COUNTERS.iter().position(|&k| k == counter).expect("a tracked counter");
        // An in-order event's wait counts only the in-order events issued after it: one that
        // may complete out of order can leave the counter below any bound before it. So only
        // in-order events age the others.
        if !unordered {
            let max = counter_max(family, counter);
            // An event further back than the counter can count is complete.
            state.update(c, |d, _| if d >= max { NONE } else { d + 1 });
        }
        for def in &inst.defs {
            for r in regs(def.reg, Some(def.rc)) {
                state.issue(c, r, unordered);
            }
        }
    }
}

/// The wait instructions for `need`.
fn wait_insts(need: [Option<u8>; 3], family: Family) -> Vec<Inst> {
    let mut out = Vec::new();
    if need[0].is_some() || need[1].is_some() {
        let imm = waitcnt_encode(family, need[0], None, need[1]);
        let mut inst = Inst::new(Opcode::SWaitcnt, &[], &[]);
        inst.fields.imm = imm;
        out.push(inst);
    }
    if let Some(n) = need[2] {
        let mut inst = Inst::new(Opcode::SWaitcntVscnt, &[], &[Operand::phys(PhysReg::NULL, RegClass::S1)]);
        inst.fields.imm = n as u16;
        out.push(inst);
    }
    out
}

/// Inserts the waits `func` needs. Blocks are in linear order; their linear predecessors give
/// the joins. Sweeps the blocks in order until the entry states of the loop headers stop
/// changing (a forward edge's target is reached later in the same sweep, so only a back edge
/// asks for another), recording the waits each sweep finds: the last sweep's are the
/// fixpoint's, and each block with some is rebuilt once.
pub fn insert_waits(func: &mut Function) -> WaitStats {
    let family = func.family;
    let n = func.blocks.len();
    let mut entry: Vec<Option<Entry>> = vec![None; n];
    if n == 0 {
        return WaitStats::default();
    }
    entry[0] = Some(Entry::default());
    // For each block, the instructions that need waits and the counts they wait for.
    let mut waits: Vec<Vec<(usize, [Option<u8>; 3])>> = vec![Vec::new(); n];
    let mut changed = true;
    let mut state = State::new();
    let mut scratch = Vec::new();
    while changed {
        changed = false;
        for b in 0..n {
            waits[b].clear();
            let Some(start) = &entry[b] else { continue };
            state.load(start);
            for (i, inst) in func.blocks[b].insts.iter().enumerate() {
                let need = needed(&state, inst);
                for (c, n) in need.iter().enumerate() {
                    if let Some(n) = *n {
                        state.wait(c, n);
                    }
                }
                if need.iter().any(Option::is_some) {
                    waits[b].push((i, need));
                }
                apply(&mut state, inst, family);
            }
            for &s in &func.blocks[b].linear_succs {
                let slot = &mut entry[s as usize];
                let grew = slot.is_none();
                let merged = state.merge_into(slot.get_or_insert_with(Entry::default), &mut scratch);
                changed |= s as usize <= b && (grew || merged);
            }
        }
    }
    let mut stats = WaitStats::default();
    for (block, waits) in func.blocks.iter_mut().zip(waits) {
        if waits.is_empty() {
            continue;
        }
        let waits: Vec<(usize, Vec<Inst>)> = waits.into_iter().map(|(i, need)| (i, wait_insts(need, family))).collect();
        let added: usize = waits.iter().map(|(_, w)| w.len()).sum();
        stats.waits += added as u32;
        let mut out = Vec::with_capacity(block.insts.len() + added);
        let mut waits = waits.into_iter().peekable();
        for (i, inst) in block.insts.drain(..).enumerate() {
            if let Some((_, here)) = waits.next_if(|(at, _)| *at == i) {
                out.extend(here);
            }
            out.push(inst);
        }
        block.insts = out;
    }
    stats
}
