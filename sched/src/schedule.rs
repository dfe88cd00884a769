//! The pre-RA list scheduler: reorders the instructions of each stretch of a block's logical
//! part that only computes (ALU operations, loads, and the splits and concatenations of
//! tuples), so loads issue early and hide their latency, a result is not read by the very next
//! instruction when something independent could go between (which saves gfx11 the
//! `s_delay_alu` and both generations a stall), and no tuple is taken apart while it is still
//! needed whole (which would cost register copies).
//!
//! A region is a maximal run of schedulable instructions between `p_logical_start` and
//! `p_logical_end`; anything else (stores, atomics, barriers, waits, EXEC writes, instructions
//! with a fixed register other than SCC, loads with a cache policy) ends it and stays where it
//! is. Inside a region no instruction writes memory or EXEC, so loads commute with each other
//! and with the arithmetic, and every operation sees the lanes it saw before. Dependencies are
//! the temporaries read and written, and SCC: no instruction that writes SCC issues between a
//! value in SCC (a carry, a compare) and its readers; a writer of a value that is read issues
//! only when its readers need nothing else, and the region's last writer stays last among the
//! writers (its value may be read after the region). Writers whose SCC result nothing reads
//! move freely.
//!
//! The schedule is built top-down: among the instructions whose operands are computed, the
//! choice prefers, in order, one that keeps the region's register demand within what the
//! original order needed at its peak or what keeps the occupancy the function's peak demand
//! allows (so scheduling costs no waves), anything but a load while `LOADS_AHEAD` loads
//! have issued that no reader has followed yet, a load or an operation that keeps the VGPR
//! demand within the original order's peak (so filling a stall costs no registers; loads may
//! raise it to hide their latency), one whose operands are
//! ready by the current cycle (latencies of [`isa::latency`]), a load, a split or
//! concatenation only when it does not grow the demand, the longest latency-weighted path to
//! the region's end, and the original order. Demand counts the dwords of each register file,
//! from the liveness the allocator computes: a value dies at its last use in the region when
//! its last use in the block is in the region and it is not live out. Regions are cut into pieces of at most `WINDOW` instructions, so the pass stays
//! linear in the size of the function; it is deterministic.

use isa::constant_bus::implicit_read;
use isa::latency::{latency, Unit};
use isa::mir::{CachePolicy, Function, Inst, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegType};
use regalloc::demand::{room_at_occupancy, RegisterDemand};
use regalloc::liveness::analyze;
use smallvec::SmallVec;

/// The most instructions scheduled together.
const WINDOW: usize = 128;
/// The most loads the schedule issues ahead of every reader of their results: enough to keep
/// the memory busy (the other waves of the SIMD hide latency too), without holding the results
/// of a whole unrolled loop's loads in registers at once.
const LOADS_AHEAD: u32 = 8;

/// How an instruction takes part in scheduling.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    /// An ALU operation.
    Alu,
    /// A load from memory.
    Load,
    /// `p_split_vector` or `p_create_vector`: no code when its registers line up.
    Free,
}

/// Reorders the computing stretches of every block of `func`, never past `limits` (the wave
/// target's registers) where the original order stayed within them; returns how many
/// instructions changed places.
pub fn schedule(func: &mut Function, proc: &Processor, limits: RegisterDemand) -> usize {
    let family = func.family;
    // The demand the function reaches somewhere decides its occupancy; a region may use
    // what keeps that occupancy without costing anything, within the wave target's `limits`.
    let Ok(liveness) = analyze(func, proc) else { return 0 };
    let room = room_at_occupancy(liveness.max_demand, proc, func.wave_size).min(limits);
    let peak = [room.sgprs, room.vgprs].map(i64::from);
    let dead: Vec<bool> = (0..func.temps).map(|id| liveness.is_dead(id)).collect();
    let mut scratch = Scratch::new(func.temps as usize, dead);
    let mut moved = 0;
    // Each instruction's class, for the block at hand (the buffer serves every block).
    let mut classes: Vec<Option<Class>> = Vec::new();
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let Some(start) = block.insts.iter().position(|i| i.opcode == Opcode::PLogicalStart) else { continue };
        let Some(end) = block.insts.iter().rposition(|i| i.opcode == Opcode::PLogicalEnd) else { continue };
        classes.clear();
        classes.extend(block.insts[..end].iter().map(|inst| class(inst, family)));
        let mut i = start + 1;
        while i < end {
            if classes[i].is_none() {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < end && j - i < WINDOW && classes[j].is_some() {
                j += 1;
            }
            // The demand where the region starts: at the instruction before it, which the
            // region's values are not yet part of.
            let d = liveness.inst_demand[b][i - 1];
            let entry = [d.sgprs, d.vgprs].map(i64::from);
            let room = [peak[0] - entry[0], peak[1] - entry[1]];
            moved += scratch.schedule_region(&mut block.insts[i..j], &classes[i..j], family, room);
            i = j;
        }
    }
    moved
}

/// What `inst` is to the scheduler, or None when it must stay in place.
fn class(inst: &Inst, family: Family) -> Option<Class> {
    let fixed_other = |reg: Option<PhysReg>| reg.is_some_and(|r| r != PhysReg::SCC);
    if inst.ops.iter().any(|op| fixed_other(op.reg))
        || inst.defs.iter().any(|d| fixed_other(d.reg) || (d.temp.is_none() && d.reg != Some(PhysReg::SCC)))
        || implicit_read(inst.opcode).is_some()
    {
        return None;
    }
    let name = inst.opcode.name(family);
    let plain_memory = inst.fields.cpol == CachePolicy::default() && !inst.defs.is_empty();
    match inst.opcode.format(family) {
        Format::Pseudo => matches!(inst.opcode, Opcode::PSplitVector | Opcode::PCreateVector).then_some(Class::Free),
        Format::Sop1 | Format::Sop2 | Format::Sopc => {
            // Scalar operations that act beyond their operands: program control, messages,
            // relative register addressing, VSKIP.
            const CONTROL: [&str; 9] = [
                "s_getpc",
                "s_setpc",
                "s_swappc",
                "s_rfe",
                "s_movrel",
                "s_set_gpr_idx",
                "s_cbranch",
                "s_sendmsg",
                "s_setvskip",
            ];
            (!CONTROL.iter().any(|p| name.starts_with(p))).then_some(Class::Alu)
        }
        Format::Sopk => {
            ["s_movk", "s_addk", "s_mulk", "s_cmpk"].iter().any(|p| name.starts_with(p)).then_some(Class::Alu)
        }
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Vop3p => {
            (!inst.defs.is_empty() && !name.starts_with("v_movrel")).then_some(Class::Alu)
        }
        Format::Smem => {
            (plain_memory && (name.starts_with("s_load") || name.starts_with("s_buffer_load"))).then_some(Class::Load)
        }
        Format::Ds => {
            (plain_memory && (name.starts_with("ds_read") || name.starts_with("ds_load"))).then_some(Class::Load)
        }
        Format::Global | Format::Flat | Format::Scratch | Format::Mubuf => {
            (plain_memory && name.contains("_load") && !name.contains("atomic") && !name.contains("lds"))
                .then_some(Class::Load)
        }
        Format::Sopp | Format::Vopd => None,
    }
}

/// One node of a region's dependence graph.
#[derive(Clone, Debug, Default)]
struct Node {
    /// A load.
    load: bool,
    /// A split or concatenation of a tuple.
    free: bool,
    /// Cycles until its results can be read.
    latency: u16,
    /// The longest latency-weighted path from it to the region's end.
    height: u32,
    /// Predecessors not scheduled yet.
    waiting: u32,
    /// The earliest cycle its operands are all ready.
    ready_at: u32,
    /// Dwords of SGPRs and VGPRs its results take (those that something reads).
    defs: [u32; 2],
    /// The temporaries it reads in registers other than SCC, each once: the id, how many of
    /// its operands read it, the file (0 SGPR, 1 VGPR), the dwords, and whether the value dies
    /// in the region (its last use in the block is here and it is not live out).
    reads: SmallVec<[Read; 4]>,
    /// Successors and the cycles each must wait after this one issues.
    succs: SmallVec<[(u32, u16); 4]>,
    /// It reads SCC.
    reads_scc: bool,
    /// It writes SCC.
    writes_scc: bool,
    /// The nodes that read the value it writes to SCC.
    scc_readers: SmallVec<[u32; 2]>,
    /// The loads whose results it reads (through splits and concatenations).
    loads_read: SmallVec<[u32; 2]>,
    /// A load: a reader of its results has issued.
    read: bool,
}

/// A temporary an instruction reads (see [`Node::reads`]).
#[derive(Copy, Clone, Debug)]
struct Read {
    temp: u32,
    count: u32,
    file: usize,
    size: u32,
    dies: bool,
}

/// Buffers reused across regions, indexed by temporary.
struct Scratch {
    /// Whether nothing reads each temporary.
    dead: Vec<bool>,
    /// The region in which each temporary's last use in its block lies (`stamp`), from the
    /// kill flags liveness set.
    killed: Vec<u32>,
    /// Uses of each temporary in the current region not scheduled yet.
    left: Vec<u32>,
    /// The region a temporary was last defined or read in (`stamp`), which makes `def_node`
    /// and `left` valid.
    seen: Vec<u32>,
    /// The node defining each temporary in the current region.
    def_node: Vec<u32>,
    /// The current region's number.
    stamp: u32,
    nodes: Vec<Node>,
    /// Readers of the SCC value the region starts with.
    scc_inflow: u32,
}

impl Scratch {
    fn new(temps: usize, dead: Vec<bool>) -> Scratch {
        Scratch {
            dead,
            killed: vec![0; temps],
            left: vec![0; temps],
            seen: vec![0; temps],
            def_node: vec![u32::MAX; temps],
            stamp: 0,
            nodes: Vec::new(),
            scc_inflow: 0,
        }
    }

    /// Schedules one region in place; returns how many instructions changed places.
    /// `classes` holds each instruction's [`class`], all of them schedulable.
    fn schedule_region(
        &mut self,
        insts: &mut [Inst],
        classes: &[Option<Class>],
        family: Family,
        room: [i64; 2],
    ) -> usize {
        if insts.len() < 2 {
            return 0;
        }
        self.stamp += 1;
        self.build(insts, classes, family);
        let order = self.pick_order(room);
        let moved = order.iter().enumerate().filter(|&(k, &n)| k != n as usize).count();
        if moved > 0 {
            let placeholder = || Inst::new(Opcode::PLogicalStart, &[], &[]);
            let mut taken: Vec<Option<Inst>> =
                insts.iter_mut().map(|i| Some(std::mem::replace(i, placeholder()))).collect();
            for (slot, &n) in insts.iter_mut().zip(&order) {
                *slot = taken[n as usize].take().expect("each node is scheduled once");
            }
        }
        moved
    }

    /// The dependence graph of the region.
    fn build(&mut self, insts: &[Inst], classes: &[Option<Class>], family: Family) {
        let stamp = self.stamp;
        self.nodes.clear();
        self.nodes.resize_with(insts.len(), Node::default);
        // SCC: the writer whose value the next reader reads (None: the value the region
        // starts with), and every writer so far.
        let mut scc_value: Option<u32> = None;
        let mut scc_writers: Vec<u32> = Vec::new();
        self.scc_inflow = 0;
        // Predecessors of the current node: the node and whether the edge carries data.
        let mut preds: SmallVec<[(u32, bool); 8]> = SmallVec::new();
        for (k, inst) in insts.iter().enumerate() {
            let k32 = k as u32;
            let class = classes[k].expect("a region holds schedulable instructions");
            let (unit, cycles) = latency(inst.opcode, family);
            preds.clear();
            for op in &inst.ops {
                let OperandKind::Temp(t) = op.kind else { continue };
                let id = t.id as usize;
                if self.seen[id] != stamp {
                    self.seen[id] = stamp;
                    self.left[id] = 0;
                    self.def_node[id] = u32::MAX;
                }
                if self.def_node[id] != u32::MAX {
                    preds.push((self.def_node[id], true));
                }
                if op.reg == Some(PhysReg::SCC) {
                    continue;
                }
                if op.kill {
                    self.killed[id] = stamp;
                }
                self.left[id] += 1;
                let reads = &mut self.nodes[k].reads;
                match reads.iter_mut().find(|r| r.temp == t.id) {
                    Some(r) => r.count += 1,
                    None => reads.push(Read {
                        temp: t.id,
                        count: 1,
                        file: usize::from(t.rc.ty != RegType::Sgpr),
                        size: u32::from(t.rc.size),
                        dies: false,
                    }),
                }
            }
            let (reads, writes) = (reads_scc(inst), writes_scc(inst));
            if reads {
                match scc_value {
                    Some(v) => {
                        preds.push((v, true));
                        self.nodes[v as usize].scc_readers.push(k32);
                    }
                    None => self.scc_inflow += 1,
                }
            }
            if writes {
                scc_value = Some(k32);
                scc_writers.push(k32);
            }
            // One edge per predecessor, carrying data if any of its edges does.
            preds.sort_unstable_by_key(|&(p, data)| (p, !data));
            preds.dedup_by_key(|p| p.0);
            let node = &mut self.nodes[k];
            (node.reads_scc, node.writes_scc) = (reads, writes);
            node.load = class == Class::Load;
            node.free = class == Class::Free;
            node.latency = if node.free { 0 } else { cycles.max(u16::from(unit != Unit::Other)) };
            for d in &inst.defs {
                let Some(t) = d.temp else { continue };
                let id = t.id as usize;
                self.seen[id] = stamp;
                self.left[id] = 0;
                self.def_node[id] = k32;
                if d.reg != Some(PhysReg::SCC) && !self.dead[id] {
                    node.defs[usize::from(t.rc.ty != RegType::Sgpr)] += u32::from(t.rc.size);
                }
            }
            node.waiting = preds.len() as u32;
            for &(p, data) in &preds {
                // A split or concatenation passes a load's result on to its readers.
                if data && self.nodes[p as usize].load {
                    self.nodes[k].loads_read.push(p);
                } else if data && self.nodes[p as usize].free {
                    let through = self.nodes[p as usize].loads_read.clone();
                    self.nodes[k].loads_read.extend(through);
                }
                let producer = &mut self.nodes[p as usize];
                let wait = if data { producer.latency } else { 0 };
                producer.succs.push((k32, wait));
            }
        }
        // The last writer's value may be read after the region: every other writer goes first.
        if let Some((&last, others)) = scc_writers.split_last() {
            for &w in others {
                // One edge per pair: `may_write_scc` counts a reader's remaining edges.
                if self.nodes[w as usize].succs.iter().any(|&(s, _)| s == last) {
                    continue;
                }
                self.nodes[w as usize].succs.push((last, 0));
                self.nodes[last as usize].waiting += 1;
            }
        }
        for k in (0..self.nodes.len()).rev() {
            let below = self.nodes[k].succs.iter().map(|&(s, _)| self.nodes[s as usize].height).max().unwrap_or(0);
            self.nodes[k].height = below + u32::from(self.nodes[k].latency);
            for r in &mut self.nodes[k].reads {
                r.dies = self.killed[r.temp as usize] == stamp;
            }
        }
    }

    /// The register demand (dwords of SGPRs and VGPRs, relative to the region's entry) after
    /// node `n` issues when the demand before it is `cur`.
    fn after(&self, n: usize, cur: [i64; 2]) -> [i64; 2] {
        let node = &self.nodes[n];
        let mut after = [cur[0] + i64::from(node.defs[0]), cur[1] + i64::from(node.defs[1])];
        for r in node.reads.iter().filter(|r| r.dies && self.left[r.temp as usize] == r.count) {
            after[r.file] -= i64::from(r.size);
        }
        after
    }

    /// Issues node `n`: its uses are no longer left.
    fn consume(&mut self, n: usize) {
        for r in &self.nodes[n].reads {
            self.left[r.temp as usize] -= r.count;
        }
    }

    /// Whether node `c` may issue while `pending` readers of the value in SCC have not: an
    /// instruction that does not write SCC may; a writer only once the value is read (by it
    /// last, if it reads it), and if its own value is read, only when its readers wait for
    /// nothing else, so no other writer is needed before they can go.
    fn may_write_scc(&self, c: usize, pending: u32) -> bool {
        let node = &self.nodes[c];
        !node.writes_scc
            || ((pending == 0 || (node.reads_scc && pending == 1))
                && node.scc_readers.iter().all(|&r| self.nodes[r as usize].waiting == 1))
    }

    /// The order of the nodes: the top-down list schedule described in the module comment.
    fn pick_order(&mut self, room: [i64; 2]) -> Vec<u32> {
        let n = self.nodes.len();
        // The bound the schedule keeps: the demand's peak in the original order, or the room
        // the function's peak leaves, whichever is larger.
        let mut cur = [0i64; 2];
        let mut peak = [0i64; 2];
        for k in 0..n {
            cur = self.after(k, cur);
            self.consume(k);
            peak = [peak[0].max(cur[0]), peak[1].max(cur[1])];
        }
        // The original order's VGPR peak: an ALU operation that would take the demand above it
        // waits while something else can go (loads may, to hide their latency).
        let original = peak[1];
        peak = [peak[0].max(room[0]), peak[1].max(room[1])];
        for k in 0..n {
            for r in &self.nodes[k].reads {
                self.left[r.temp as usize] += r.count;
            }
        }
        let mut ready: Vec<u32> = (0..n as u32).filter(|&k| self.nodes[k as usize].waiting == 0).collect();
        let mut order = Vec::with_capacity(n);
        let mut cycle = 0u32;
        cur = [0, 0];
        // Readers of the value in SCC not scheduled yet.
        let mut scc_pending = self.scc_inflow;
        // Loads issued that no reader has followed yet.
        let mut ahead = 0u32;
        while !ready.is_empty() {
            let Some((at, _)) = ready
                .iter()
                .enumerate()
                .filter(|&(_, &c)| self.may_write_scc(c as usize, scc_pending))
                .map(|(at, &c)| {
                    let node = &self.nodes[c as usize];
                    let after = self.after(c as usize, cur);
                    let excess = (after[0] - peak[0]).max(0) + (after[1] - peak[1]).max(0);
                    let grows = after[0] + after[1] > cur[0] + cur[1];
                    let key = (
                        std::cmp::Reverse(excess),
                        !(node.load && ahead >= LOADS_AHEAD),
                        node.load || after[1] <= original.max(cur[1]),
                        node.ready_at <= cycle,
                        node.load,
                        !(node.free && grows),
                        node.height,
                        std::cmp::Reverse(c),
                    );
                    (at, key)
                })
                .max_by_key(|&(_, key)| key)
            else {
                // Every ready instruction would overwrite SCC while it holds a value still to
                // be read, and the readers wait for one of them: keep the original order.
                return (0..n as u32).collect();
            };
            let c = ready.swap_remove(at) as usize;
            if self.nodes[c].reads_scc {
                scc_pending -= 1;
            }
            if self.nodes[c].writes_scc {
                scc_pending = self.nodes[c].scc_readers.len() as u32;
            }
            cur = self.after(c, cur);
            self.consume(c);
            ahead += u32::from(self.nodes[c].load);
            for k in 0..if self.nodes[c].free { 0 } else { self.nodes[c].loads_read.len() } {
                let load = self.nodes[c].loads_read[k] as usize;
                if !std::mem::replace(&mut self.nodes[load].read, true) {
                    ahead -= 1;
                }
            }
            let issue = cycle.max(self.nodes[c].ready_at);
            cycle = issue + u32::from(!self.nodes[c].free);
            for k in 0..self.nodes[c].succs.len() {
                let (s, wait) = self.nodes[c].succs[k];
                let succ = &mut self.nodes[s as usize];
                succ.ready_at = succ.ready_at.max(issue + u32::from(wait));
                succ.waiting -= 1;
                if succ.waiting == 0 {
                    ready.push(s);
                }
            }
            order.push(c as u32);
        }
        if order.len() < n {
            // A cycle would be a bug of the graph; the original order is always valid.
            debug_assert!(false, "the dependence graph of a region has a cycle");
            return (0..n as u32).collect();
        }
        order
    }
}

/// Whether `inst` reads SCC.
fn reads_scc(inst: &Inst) -> bool {
    inst.ops.iter().any(|op| op.reg == Some(PhysReg::SCC))
}

/// Whether `inst` writes SCC.
fn writes_scc(inst: &Inst) -> bool {
    inst.defs.iter().any(|d| d.reg == Some(PhysReg::SCC))
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir::DisplayInst;
    use isa::mir_parse::parse_function;

    /// The instructions of block 0 after scheduling `body` (wrapped in a wave32 kernel for
    /// gfx1100), as the part of their text after ` = ` (or all of it).
    fn scheduled(body: &str) -> Vec<String> {
        let text = format!(
            "function k (wave32):\nBB0: /* logical preds:  / linear preds:  / uniform */\n  %0:s2@s[0:1], %1:s1@s15, %2:v1@v0 = p_startpgm\n  p_logical_start\n{body}  p_logical_end\n  s_endpgm\n"
        );
        let proc = Processor::find("gfx1100").expect("gfx1100 is in the table");
        let mut func = parse_function(&text, Family::Gfx11).expect("the test MIR parses");
        schedule(&mut func, proc, regalloc::demand::limits_for_occupancy(proc, 32, 1));
        func.blocks[0]
            .insts
            .iter()
            .map(|i| {
                let s = DisplayInst(i, Family::Gfx11).to_string();
                s.split(" = ").last().unwrap_or("").to_string()
            })
            .collect()
    }

    /// The position of the first instruction starting with `prefix`.
    fn at(insts: &[String], prefix: &str) -> usize {
        insts.iter().position(|i| i.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix} in {insts:?}"))
    }

    /// The second load does not depend on the arithmetic before it: it issues before it, and
    /// the arithmetic fills the load's latency.
    #[test]
    fn loads_issue_before_independent_arithmetic() {
        let insts = scheduled(
            "  %3:s1 = s_load_b32 %0:s2\n  %4:s1, scc = s_mul_i32 %3:s1, 0x5\n  %5:v1 = v_add_nc_u32 %4:s1, %2:v1\n  %6:s1 = s_load_b32 %0:s2 offset:8\n  %7:v1 = v_add_nc_u32 %6:s1, %5:v1\n  global_store_b32 %0:s2, %7:v1\n",
        );
        assert!(at(&insts, "s_load_b32 %0:s2 offset:8") < at(&insts, "s_mul_i32"), "{insts:?}");
        assert!(at(&insts, "global_store") > at(&insts, "v_add_nc_u32 %6"), "{insts:?}");
    }

    /// A carry in SCC: nothing that writes SCC goes between `s_add_u32` and the `s_addc_u32`
    /// reading its carry, though the shift before them is independent of both.
    #[test]
    fn no_scc_writer_between_a_carry_and_its_reader() {
        let insts = scheduled(
            "  %3:s1 = s_load_b32 %0:s2\n  %4:s1, scc = s_lshl_b32 %1:s1, 0x2\n  %5:s1, %6:s1@scc = s_add_u32 %4:s1, %1:s1\n  %7:s1, scc = s_addc_u32 %1:s1, 0x0, %6:s1@scc\n  %8:s1, scc = s_lshr_b32 %3:s1, 0x3\n  %9:s2 = p_create_vector %5:s1, %7:s1\n  %10:s1 = s_load_b32 %9:s2\n  %11:v1 = v_add_nc_u32 %10:s1, %8:s1\n  global_store_b32 %0:s2, %11:v1\n",
        );
        let (add, addc) = (at(&insts, "s_add_u32"), at(&insts, "s_addc_u32"));
        assert!(add < addc, "{insts:?}");
        for (k, i) in insts.iter().enumerate() {
            if k > add && k < addc {
                assert!(!i.contains("scc"), "{i} writes SCC between the carry and its reader: {insts:?}");
            }
        }
    }

    /// A region whose last SCC writer reads another's carry (a 64-bit add) is scheduled too:
    /// the load after the add moves above it.
    #[test]
    fn a_carry_chain_at_the_end_does_not_stop_scheduling() {
        let insts = scheduled(
            "  %3:s1, scc = s_lshl_b32 %1:s1, 0x2\n  %4:s1, %5:s1@scc = s_add_u32 %3:s1, %1:s1\n  %6:s1, scc = s_addc_u32 %1:s1, 0x0, %5:s1@scc\n  %7:s1 = s_load_b32 %0:s2 offset:8\n  %8:s1 = s_add_u32 %7:s1, %6:s1\n  %9:v1 = v_add_nc_u32 %8:s1, %4:s1\n  global_store_b32 %0:s2, %9:v1\n",
        );
        assert!(at(&insts, "s_load_b32") < at(&insts, "s_lshl_b32"), "{insts:?}");
        assert!(at(&insts, "s_add_u32 %3") < at(&insts, "s_addc_u32"), "{insts:?}");
    }

    /// Of twelve independent loads, each with a reader, at most [`LOADS_AHEAD`] issue before
    /// the first reader does.
    #[test]
    fn loads_ahead_of_their_readers_are_bounded() {
        let mut body = String::from("  %3:v1 = v_mov_b32 0x0\n");
        for k in 0..12 {
            body += &format!("  %{}:v1 = global_load_b32 %3:v1, %0:s2 offset:{}\n", 10 + k, 4 * k);
            body += &format!("  %{}:v1 = v_add_nc_u32 %{}:v1, %2:v1\n", 30 + k, 10 + k);
            body += &format!("  global_store_b32 %3:v1, %{}:v1, %0:s2 offset:{}\n", 30 + k, 256 + 4 * k);
        }
        // The stores end regions: put them all at the end instead.
        let (loads, stores): (Vec<&str>, Vec<&str>) = body.lines().partition(|l| !l.contains("global_store"));
        let body = loads.into_iter().chain(stores).map(|l| format!("{l}\n")).collect::<String>();
        let insts = scheduled(&body);
        let first_reader = at(&insts, "v_add_nc_u32");
        let loads_before = insts[..first_reader].iter().filter(|i| i.starts_with("global_load")).count();
        assert!(loads_before <= LOADS_AHEAD as usize, "{loads_before} loads before a reader: {insts:?}");
    }

    /// A tuple is split after its other use, so both can live in the same registers.
    #[test]
    fn split_after_the_tuples_other_use() {
        let insts = scheduled(
            "  %3:s4 = s_load_b128 %0:s2\n  %4:s2, %5:s2 = p_split_vector %3:s4\n  %6:s1, %7:s1 = p_split_vector %4:s2\n  %8:s1 = s_load_b32 %4:s2 offset:12\n  %9:s1, scc = s_add_u32 %6:s1, %8:s1\n  %10:v1 = v_add_nc_u32 %9:s1, %7:s1\n  global_store_b32 %5:s2, %10:v1\n",
        );
        assert!(at(&insts, "s_load_b32 %4:s2") < at(&insts, "p_split_vector %4:s2"), "{insts:?}");
    }
}
