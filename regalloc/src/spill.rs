//! Spilling on SSA, after Braun and Hack ("Register spilling and live-range splitting for
//! SSA-form programs", as Mesa's ACO does it): when a file's register demand exceeds its target
//! (by default the file's size, `crate::demand::file_limit`), values leave the registers at
//! the points of highest demand and come back before their next use, so assignment finds a
//! program whose demand fits.
//!
//! One file at a time (SGPRs on the linear CFG, VGPRs on the logical one), the blocks are
//! visited in their (topological) order with the set `W` of values in registers. The
//! distance of each live value to its next use is known at every block's start and end
//! (a backward dataflow over the file's CFG in which leaving a loop costs [`LOOP_EXIT`]), and
//! inside the block from the positions of its uses. Where an instruction needs more registers
//! than the target, the values of `W` it does not read whose next use is farthest leave `W`;
//! an operand outside `W` is reloaded right before the instruction. A block with one
//! predecessor starts with that predecessor's `W`; a join keeps what every predecessor has in
//! registers and adds, nearest use first and while they fit, what some predecessors have; a
//! loop header keeps, nearest use first (values used in the loop come first, since leaving the
//! loop costs), what fits. Where a predecessor lacks a value its successor keeps in
//! registers, a reload goes at the predecessor's end (for loop back edges when the latch is
//! done).
//!
//! A value that ever leaves `W` while live is stored once, right after its definition (after
//! the phis for a phi, in the logical part of the block for a VGPR), so its slot is valid
//! wherever the value is live and no store is ever needed on an edge or inside a loop that
//! the value was defined outside. Every reload defines a new temporary; where several versions
//! of a value meet in registers, a phi joins them (at loop headers one for each value kept in
//! registers, removed again where the loop reloads nothing: Braun et al.'s trivial phis), so
//! assignment still sees SSA.
//!
//! Rematerialization (as ACO's): a value whose definition is cheap and reads nothing but
//! constants and values of its file ([`rematerializable`]: moves, and the adds and shifts of
//! address arithmetic) is not reloaded where its operands are in registers: its definition is
//! repeated there, into a new version, and such a value is never stored. A value is stored
//! only when some reload of it reads its slot. Where values must leave the registers, those
//! that only constants define go first.
//!
//! Spill slots: an SGPR value takes lanes of a linear VGPR (`p_start_linear_vgpr` at the
//! entry; live on the linear CFG, so no EXEC mask disturbs it), written by `v_writelane_b32`
//! and read by `v_readlane_b32`; a VGPR value takes dwords of VGPR slots, which are the AGPRs
//! a gfx90a/gfx942 kernel leaves free (`v_accvgpr_write_b32`/`v_accvgpr_read_b32`) and then
//! the lane's scratch after the private arrays (`scratch_store`/`scratch_load`). The pass writes `p_spill`/`p_reload`
//! pseudo-instructions, which the validator checks as such, and [`lower`] turns them into
//! those instructions once registers are assigned.

use crate::demand::{file_index, file_limit, Pressure, RegisterDemand};
use crate::liveness::{self, is_phi, late_kill, Liveness};
use crate::ssa_elim::{accvgpr_move, block_end};
use crate::AllocError;
use isa::encoding::global;
use isa::mir::{Def, Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Opcode};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// What the next-use distance of a value grows by when the path to its use leaves a loop.
pub const LOOP_EXIT: u32 = 1 << 16;
/// No next use.
const FAR: u32 = u32::MAX;
/// No entry.
const NONE: u32 = u32::MAX;

/// What spilling did: the counts `--stats` shows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    /// SGPR dwords stored in lanes of linear VGPRs.
    pub sgpr_lanes: u32,
    /// Linear VGPRs holding those lanes.
    pub lane_vgprs: u16,
    /// Dwords of VGPR spill slots.
    pub vgpr_slots: u32,
    /// AGPRs holding VGPR spill slots (gfx90a, gfx942: the AGPRs the kernel leaves free).
    pub agprs: u16,
    /// Bytes of each lane's scratch that the other VGPR spill slots use (after the private
    /// arrays).
    pub scratch_bytes: u32,
    /// `p_spill` instructions inserted (one per value spilled).
    pub spills: u32,
    /// `p_reload` instructions inserted.
    pub reloads: u32,
    /// Values recomputed by a copy of their definition instead of a reload.
    pub remats: u32,
}

impl SpillStats {
    /// Whether anything was spilled.
    pub fn any(&self) -> bool {
        self.spills > 0
    }
}

/// A value recomputed by a copy of its definition: the validator checks that `value`'s
/// definition is `original`'s, reading the same values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Remat {
    /// The new version.
    pub value: Temp,
    /// The value it stands for.
    pub original: Temp,
}

/// What spilling gives back besides the spilled function.
pub struct Spilled {
    /// The liveness of the result (the input's when nothing was spilled).
    pub live: Liveness,
    /// The counts.
    pub stats: SpillStats,
    /// The rematerialized versions.
    pub remats: Vec<Remat>,
}

/// Whether `inst` may be repeated wherever its result is live and its operands are in
/// registers, giving the same value: a cheap operation with one result in no fixed register,
/// no effect but that result, no lane exchange, and constants and temporaries as operands
/// (`s_mov`, `s_movk_i32`, `v_mov`, and the adds and shifts that compute addresses).
pub fn rematerializable(inst: &Inst) -> bool {
    matches!(
        inst.opcode,
        Opcode::SMovB32
            | Opcode::SMovB64
            | Opcode::SMovkI32
            | Opcode::VMovB32
            | Opcode::VMovB64
            | Opcode::VAddNcU32
            | Opcode::VLshlrevB32
            | Opcode::VLshlAddU32
            | Opcode::VAdd3U32
            | Opcode::VMulU32U24
    ) && matches!(inst.defs.as_slice(), [d] if d.temp.is_some() && d.reg.is_none())
        && inst.fields.dpp.is_none()
        && inst.fields.sdwa.is_none()
        && inst.fields.vopd_y.is_none()
        && inst.ops.iter().all(|o| matches!(o.kind, OperandKind::Const(_) | OperandKind::Temp(_)) && o.reg.is_none())
}

/// Spills SGPRs, then VGPRs, until the demand of each fits `target` (see the module
/// documentation). `live` is `func`'s liveness. AGPR values are not spilled: their demand is
/// left for assignment to refuse.
pub fn spill(
    func: &mut Function,
    live: Liveness,
    proc: &Processor,
    target: RegisterDemand,
) -> Result<Spilled, AllocError> {
    let mut stats = SpillStats::default();
    let mut remats = Vec::new();
    let mut live = live;
    if live.max_demand.sgprs > target.sgprs {
        let mut pass = Pass::new(func, &live, proc, RegType::Sgpr, target.sgprs);
        pass.run(func)?;
        stats = pass.stats;
        remats = pass.remats;
        live = liveness::analyze(func, proc)?;
    }
    // Linear VGPRs sit above the window assignment opens at the demand (which counts them
    // too): leave room for them twice.
    let lane_vgprs = 2 * stats.lane_vgprs;
    let vgpr_target = target.vgprs.saturating_sub(lane_vgprs);
    if live.max_demand.vgprs > vgpr_target {
        let mut pass = Pass::new(func, &live, proc, RegType::Vgpr, vgpr_target);
        pass.run(func)?;
        stats.vgpr_slots = pass.stats.vgpr_slots;
        stats.spills += pass.stats.spills;
        stats.reloads += pass.stats.reloads;
        stats.remats += pass.stats.remats;
        remats.extend(pass.remats);
        live = liveness::analyze(func, proc)?;
    }
    Ok(Spilled { live, stats, remats })
}

/// The register targets that spilling aims at by default: every file's size.
pub fn file_limits(proc: &Processor) -> RegisterDemand {
    RegisterDemand {
        sgprs: file_limit(proc, RegType::Sgpr),
        vgprs: file_limit(proc, RegType::Vgpr),
        agprs: file_limit(proc, RegType::Agpr),
    }
}

/// The set `W` of values in registers (original ids), with its pressure.
#[derive(Default)]
struct InRegs {
    /// Per original id: its index in `list`, or NONE.
    pos: Vec<u32>,
    list: Vec<u32>,
    pressure: Pressure,
}

impl InRegs {
    fn contains(&self, v: u32) -> bool {
        self.pos[v as usize] != NONE
    }

    fn insert(&mut self, v: u32, rc: RegClass) {
        if !self.contains(v) {
            self.pos[v as usize] = self.list.len() as u32;
            self.list.push(v);
            self.pressure.add(rc);
        }
    }

    fn remove(&mut self, v: u32, rc: RegClass) {
        let at = self.pos[v as usize];
        if at == NONE {
            return;
        }
        self.list.swap_remove(at as usize);
        if let Some(&moved) = self.list.get(at as usize) {
            self.pos[moved as usize] = at;
        }
        self.pos[v as usize] = NONE;
        self.pressure.remove(rc);
    }

    fn clear(&mut self) {
        for v in self.list.drain(..) {
            self.pos[v as usize] = NONE;
        }
        self.pressure = Pressure::default();
    }
}

/// A phi the pass added to join versions of one value.
struct NewPhi {
    block: usize,
    phi: Inst,
}

/// One file's spilling.
struct Pass<'a> {
    kernel: String,
    proc: &'a Processor,
    live: &'a Liveness,
    ty: RegType,
    /// Values follow the linear CFG (SGPRs) or the logical one (VGPRs).
    linear: bool,
    limit: u16,
    /// Temporaries below this id are the input's; the others are versions made by reloads.
    originals: u32,
    w: InRegs,
    /// Per original: the temporary holding it while it is in `W`.
    cur: Vec<Temp>,
    /// Per original: some reload reads its slot, so it is stored after its definition.
    spilled: Vec<bool>,
    /// Per original: the index in `defs` of its definition if it is rematerializable, or NONE.
    remat: Vec<u32>,
    /// The definitions of rematerializable values.
    defs: Vec<Inst>,
    /// The versions made by rematerialization.
    remats: Vec<Remat>,
    /// Per original: its slot (first lane, or byte offset into the spill area), or NONE.
    slot: Vec<u32>,
    /// Slots handed out so far (lanes, or dwords of scratch).
    slots_used: u32,
    /// The linear VGPRs holding SGPR lanes.
    lane_vgprs: Vec<Temp>,
    /// Per block: the values in registers at its end, with the temporary of each, by id.
    exit: Vec<Vec<(u32, Temp)>>,
    /// Per block: the live-in values (not its phis) in registers at its start, by id.
    entry: Vec<Vec<u32>>,
    /// Per block: next-use distances of live values at its start and end, by id.
    dist_start: Vec<Vec<(u32, u32)>>,
    dist_end: Vec<Vec<(u32, u32)>>,
    /// Per loop header: its last latch (the loop is the blocks from the header to it).
    loop_end: Vec<Option<usize>>,
    /// Phis added at the start of blocks (loop headers' back-edge operands filled later).
    phis: Vec<NewPhi>,
    /// Per block: indices into `phis` of the block's phis, for the back edges.
    block_phis: Vec<Vec<usize>>,
    /// Scratch tables: per original, a distance.
    dist: Vec<u32>,
    stats: SpillStats,
}

impl<'a> Pass<'a> {
    fn new(func: &Function, live: &'a Liveness, proc: &'a Processor, ty: RegType, limit: u16) -> Pass<'a> {
        let originals = (live.temp_count() as u32).max(func.temps);
        let n = func.blocks.len();
        let count = originals as usize;
        Pass {
            kernel: func.name.clone(),
            proc,
            live,
            ty,
            linear: ty == RegType::Sgpr,
            limit,
            originals,
            w: InRegs { pos: vec![NONE; count], ..InRegs::default() },
            cur: (0..originals).map(|id| Temp { id, rc: live.class(id).unwrap_or(RegClass::S1) }).collect(),
            spilled: vec![false; count],
            remat: vec![NONE; count],
            defs: Vec::new(),
            remats: Vec::new(),
            slot: vec![NONE; count],
            slots_used: 0,
            lane_vgprs: Vec::new(),
            exit: vec![Vec::new(); n],
            entry: vec![Vec::new(); n],
            dist_start: vec![Vec::new(); n],
            dist_end: vec![Vec::new(); n],
            loop_end: vec![None; n],
            phis: Vec::new(),
            block_phis: vec![Vec::new(); n],
            dist: vec![FAR; count],
            stats: SpillStats::default(),
        }
    }

    /// Whether original `id` is a value this pass places: of its file, not in a special
    /// register, not a linear VGPR (those keep registers of their own).
    fn member(&self, id: u32) -> bool {
        id < self.originals
            && !self.live.in_special(id)
            && self.live.class(id).is_some_and(|rc| rc.ty == self.ty && (rc.ty == RegType::Sgpr || !rc.linear))
    }

    fn class(&self, id: u32) -> RegClass {
        self.cur[id as usize].rc
    }

    /// The predecessors of block `b` on this pass's CFG.
    fn preds(&self, func: &Function, b: usize) -> SmallVec<[u32; 2]> {
        let block = &func.blocks[b];
        if self.linear { &block.linear_preds } else { &block.logical_preds }.clone()
    }

    /// The successors of block `b` on this pass's CFG.
    fn succs(&self, func: &Function, b: usize) -> SmallVec<[u32; 2]> {
        let block = &func.blocks[b];
        if self.linear { &block.linear_succs } else { &block.logical_succs }.clone()
    }

    /// The phi opcode of this pass's CFG.
    fn phi_opcode(&self) -> Opcode {
        if self.linear {
            Opcode::PLinearPhi
        } else {
            Opcode::PPhi
        }
    }

    /// Whether block `b` is on this pass's CFG.
    fn on_cfg(&self, func: &Function, b: usize) -> bool {
        b == 0 || !self.preds(func, b).is_empty()
    }

    fn too_high(&self, block: usize, what: String, demand: u16) -> AllocError {
        AllocError::Unspillable {
            kernel: self.kernel.clone(),
            block: block as u32,
            file: self.ty,
            what,
            demand,
            limit: self.limit,
        }
    }

    fn run(&mut self, func: &mut Function) -> Result<(), AllocError> {
        self.find_remats(func);
        self.next_uses(func);
        for b in 0..func.blocks.len() {
            if self.on_cfg(func, b) {
                self.block(func, b)?;
            }
        }
        self.finish_phis(func);
        self.store_after_definitions(func);
        self.stats.lane_vgprs = self.lane_vgprs.len() as u16;
        if !self.lane_vgprs.is_empty() {
            let at = usize::from(func.blocks[0].insts.first().is_some_and(|i| i.opcode == Opcode::PStartPgm));
            let defs: Vec<Inst> =
                self.lane_vgprs.iter().map(|&t| Inst::new(Opcode::PStartLinearVgpr, &[Def::temp(t)], &[])).collect();
            func.blocks[0].insts.splice(at..at, defs);
        }
        Ok(())
    }

    /// Next-use distances at the start and end of every block: a backward dataflow to a
    /// fixpoint (loops take a few rounds; distances only shrink).
    fn next_uses(&mut self, func: &Function) {
        let n = func.blocks.len();
        // The first use of each value in each block (phis excluded: their operands are read
        // at the predecessors' ends).
        let mut first: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (b, block) in func.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate().filter(|(_, i)| !is_phi(i.opcode)) {
                for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                    if self.member(t.id) && self.dist[t.id as usize] == FAR {
                        self.dist[t.id as usize] = i as u32;
                        first[b].push((t.id, i as u32));
                    }
                }
            }
            for &(v, _) in &first[b] {
                self.dist[v as usize] = FAR;
            }
            first[b].sort_unstable();
        }
        let phi = self.phi_opcode();
        let mut touched: Vec<u32> = Vec::new();
        let depth = self.loop_depths(func);
        loop {
            let mut changed = false;
            for b in (0..n).rev() {
                for s in self.succs(func, b) {
                    let succ = &func.blocks[s as usize];
                    let penalty = LOOP_EXIT.saturating_mul(depth[b].saturating_sub(depth[s as usize]));
                    for &(v, d) in &self.dist_start[s as usize] {
                        let slot = &mut self.dist[v as usize];
                        if *slot == FAR {
                            touched.push(v);
                        }
                        *slot = (*slot).min(d.saturating_add(penalty));
                    }
                    let k = self.preds(func, s as usize).iter().position(|&p| p as usize == b);
                    let phis = succ.insts.iter().take_while(|i| is_phi(i.opcode)).filter(|i| i.opcode == phi);
                    for op in phis.filter_map(|i| k.and_then(|k| i.ops.get(k))) {
                        if let Some(t) = op.temp_of().filter(|t| self.member(t.id)) {
                            if self.dist[t.id as usize] == FAR {
                                touched.push(t.id);
                            }
                            self.dist[t.id as usize] = 0;
                        }
                    }
                }
                touched.sort_unstable();
                let end: Vec<(u32, u32)> = touched.iter().map(|&v| (v, self.dist[v as usize])).collect();
                for v in touched.drain(..) {
                    self.dist[v as usize] = FAR;
                }
                let len = func.blocks[b].insts.len() as u32;
                let mut start: Vec<(u32, u32)> = Vec::new();
                for &v in self.live.live_in[b].iter().filter(|&&v| self.member(v)) {
                    let d = match first[b].binary_search_by_key(&v, |&(x, _)| x) {
                        Ok(k) => first[b][k].1,
                        Err(_) => match end.binary_search_by_key(&v, |&(x, _)| x) {
                            Ok(k) => len.saturating_add(end[k].1),
                            Err(_) => FAR,
                        },
                    };
                    start.push((v, d));
                }
                if start != self.dist_start[b] {
                    self.dist_start[b] = start;
                    changed = true;
                }
                self.dist_end[b] = end;
            }
            if !changed {
                break;
            }
        }
    }

    /// The loop nesting depth of every block on this pass's CFG: how many loops contain it,
    /// a loop being the blocks from its header to its last latch in block order (a latch
    /// branches back to a header not after it).
    fn loop_depths(&mut self, func: &Function) -> Vec<u32> {
        let n = func.blocks.len();
        // Each header's last latch, then one count over each loop's blocks.
        let mut last: Vec<Option<usize>> = vec![None; n];
        for b in 0..n {
            for h in self.succs(func, b).into_iter().map(|h| h as usize).filter(|&h| h <= b) {
                last[h] = Some(last[h].map_or(b, |l| l.max(b)));
            }
        }
        self.loop_end = last.clone();
        let mut delta = vec![0i64; n + 1];
        for (h, l) in last.iter().enumerate() {
            if let Some(l) = *l {
                delta[h] += 1;
                delta[l + 1] -= 1;
            }
        }
        let mut depth = 0i64;
        delta[..n]
            .iter()
            .map(|d| {
                depth += d;
                depth.max(0) as u32
            })
            .collect()
    }

    /// The next-use distance of `v` at the start of block `b`.
    fn start_distance(&self, b: usize, v: u32) -> u32 {
        let d = &self.dist_start[b];
        d.binary_search_by_key(&v, |&(x, _)| x).map_or(FAR, |k| d[k].1)
    }

    /// Where code at the end of block `b` goes on this pass's CFG.
    fn end_point(&self, func: &Function, b: usize) -> usize {
        block_end(&func.blocks[b].insts, self.linear)
    }

    /// The slot of original `v`, handed out on first use.
    fn slot_of(&mut self, func: &mut Function, v: u32) -> u32 {
        if self.slot[v as usize] != NONE {
            return self.slot[v as usize];
        }
        let size = u32::from(self.class(v).size);
        let at = if self.ty == RegType::Sgpr {
            let wave = func.wave_size;
            let mut at = self.slots_used;
            if at % wave + size > wave {
                at = at.next_multiple_of(wave);
            }
            while self.lane_vgprs.len() as u32 <= (at + size - 1) / wave {
                let lv = func.new_temp(RegClass::linear_vgpr(1));
                self.lane_vgprs.push(lv);
            }
            self.stats.sgpr_lanes += size;
            at
        } else {
            self.stats.vgpr_slots += size;
            self.slots_used
        };
        self.slots_used = at + size;
        self.slot[v as usize] = at;
        at
    }

    /// The operands naming the slot of original `v` (after the value, in `p_spill`).
    fn slot_operands(&mut self, func: &mut Function, v: u32) -> SmallVec<[Operand; 2]> {
        let at = self.slot_of(func, v);
        if self.ty == RegType::Sgpr {
            let wave = func.wave_size;
            let lv = self.lane_vgprs[(at / wave) as usize];
            SmallVec::from_slice(&[Operand::temp(lv), Operand::constant(at % wave)])
        } else {
            SmallVec::from_slice(&[Operand::constant(4 * at)])
        }
    }

    /// Notes the values of this file whose definitions may be repeated.
    fn find_remats(&mut self, func: &Function) {
        for inst in func.blocks.iter().flat_map(|b| b.insts.iter()).filter(|i| rematerializable(i)) {
            let t = inst.defs[0].temp.expect("a rematerializable definition defines a temporary");
            let reads_other_files = inst.ops.iter().any(|o| o.temp_of().is_some_and(|x| !self.member(x.id)));
            if self.member(t.id) && !reads_other_files {
                self.remat[t.id as usize] = self.defs.len() as u32;
                self.defs.push(inst.clone());
            }
        }
    }

    /// Whether original `v` is defined from constants alone (always rematerialized).
    fn constant_remat(&self, v: u32) -> bool {
        let k = self.remat[v as usize];
        k != NONE && self.defs[k as usize].ops.iter().all(|o| o.temp_of().is_none())
    }

    /// The definition of original `v` repeated, if it is rematerializable and `in_regs` gives
    /// the temporary of each of its operands (its result still to be named).
    fn remat_of(&self, v: u32, in_regs: &dyn Fn(u32) -> Option<Temp>) -> Option<Inst> {
        let k = self.remat[v as usize];
        if k == NONE {
            return None;
        }
        let mut inst = self.defs[k as usize].clone();
        for op in inst.ops.iter_mut() {
            if let Some(x) = op.temp_of() {
                op.kind = OperandKind::Temp(in_regs(x.id)?);
            }
            op.kill = false;
        }
        Some(inst)
    }

    /// Original `v` back in a new temporary, which becomes its current one: `again` (from
    /// [`Pass::remat_of`]) defining it, or else a reload from its slot (which it is then
    /// stored to).
    fn reload(&mut self, func: &mut Function, v: u32, again: Option<Inst>) -> Inst {
        let rc = self.class(v);
        if let Some(mut inst) = again {
            let t = func.new_temp(rc);
            self.cur[v as usize] = t;
            inst.defs[0] = Def::temp(t);
            self.stats.remats += 1;
            self.remats.push(Remat { value: t, original: Temp { id: v, rc } });
            return inst;
        }
        let ops = self.slot_operands(func, v);
        let t = func.new_temp(rc);
        self.cur[v as usize] = t;
        self.stats.reloads += 1;
        self.spilled[v as usize] = true;
        Inst::new(Opcode::PReload, &[Def::temp(t)], &ops)
    }

    /// Ensures that the end of predecessor `p` has each of `wanted` (sorted) in registers
    /// (reloading what is missing) and gives the temporary of each. With `evict`, values in
    /// registers there that are not wanted make room first where the file would overflow.
    fn couple(&mut self, func: &mut Function, p: usize, wanted: &[u32], evict: bool) -> Vec<Temp> {
        let mut exit = std::mem::take(&mut self.exit[p]);
        let missing: Vec<u32> =
            wanted.iter().copied().filter(|&v| exit.binary_search_by_key(&v, |&(x, _)| x).is_err()).collect();
        if evict && !missing.is_empty() {
            let mut pressure = Pressure::default();
            exit.iter().for_each(|&(_, t)| pressure.add(t.rc));
            missing.iter().for_each(|&v| pressure.add(self.class(v)));
            // Drop the unwanted values farthest from their next use first.
            let mut unwanted: Vec<(u32, u32)> = exit
                .iter()
                .filter(|(v, _)| wanted.binary_search(v).is_err())
                .map(|&(v, _)| {
                    let d = &self.dist_end[p];
                    (d.binary_search_by_key(&v, |&(x, _)| x).map_or(FAR, |k| d[k].1), v)
                })
                .collect();
            unwanted.sort_unstable();
            while pressure.demand(self.proc).of(file_index(self.ty)) > self.limit {
                let Some((_, v)) = unwanted.pop() else { break };
                pressure.remove(self.class(v));
                exit.retain(|&(x, _)| x != v);
            }
        }
        let mut reloads = Vec::new();
        for &v in &missing {
            let held = |x: u32| exit.binary_search_by_key(&x, |&(y, _)| y).ok().map(|k| exit[k].1);
            let again = self.remat_of(v, &held);
            reloads.push(self.reload(func, v, again));
            let t = self.cur[v as usize];
            let k = exit.binary_search_by_key(&v, |&(x, _)| x).unwrap_or_else(|k| k);
            exit.insert(k, (v, t));
        }
        if !reloads.is_empty() {
            let at = self.end_point(func, p);
            func.blocks[p].insts.splice(at..at, reloads);
        }
        let temps =
            wanted.iter().map(|&v| exit[exit.binary_search_by_key(&v, |&(x, _)| x).expect("coupled")].1).collect();
        self.exit[p] = exit;
        temps
    }

    /// The values block `b` starts with in registers, out of its live-in values: see the
    /// module documentation. Returns them sorted by id.
    fn entry_set(&mut self, func: &Function, b: usize, forward: &[u32], header: bool, phis: &Pressure) -> Vec<u32> {
        let live_in: Vec<u32> = self.live.live_in[b].iter().copied().filter(|&v| self.member(v)).collect();
        if forward.len() == 1 && !header {
            let exit = &self.exit[forward[0] as usize];
            return live_in.into_iter().filter(|v| exit.binary_search_by_key(v, |&(x, _)| x).is_ok()).collect();
        }
        // Candidates: (kept by every forward predecessor, distance, id), best first.
        // At a loop header, a value the loop does not read stays in registers only if it
        // already is (reloading it would only carry it through the loop).
        // Behind a critical edge (a predecessor with other successors) nothing can be reloaded
        // or copied: code at the predecessor's end runs on every way out. A value stays in
        // registers at such a join only if every predecessor has the same version of it there
        // (no phi, so no copy).
        let version = |p: u32, v: u32| {
            let exit = &self.exit[p as usize];
            exit.binary_search_by_key(&v, |&(x, _)| x).ok().map(|k| exit[k].1)
        };
        let critical = forward.iter().any(|&p| self.succs(func, p as usize).len() > 1);
        // Values the loop does not read that are in registers before it stay there while the
        // loop has room for them (as ACO decides): the loop's peak demand, less what is
        // already out of registers, says how many registers' worth must leave, farthest next
        // use first; keeping them would only mean reloads at the latches.
        let file = file_index(self.ty);
        let mut dropped: Vec<u32> = Vec::new();
        if let (true, Some(l)) = (header, self.loop_end[b]) {
            let peak = self.live.block_demand[b..=l].iter().map(|d| d.of(file)).max().unwrap_or(0);
            let mut through: Vec<(u32, u32)> = Vec::new();
            let mut excess = i64::from(peak) - i64::from(self.limit);
            for &v in &live_in {
                let d = self.start_distance(b, v);
                if d < LOOP_EXIT {
                    continue;
                }
                if forward.iter().all(|&p| version(p, v).is_some()) {
                    through.push((d, v));
                } else {
                    excess -= i64::from(self.class(v).size);
                }
            }
            through.sort_unstable();
            while excess > 0 {
                let Some((_, v)) = through.pop() else { break };
                excess -= i64::from(self.class(v).size);
                dropped.push(v);
            }
            dropped.sort_unstable();
        }
        let mut ranked: Vec<(bool, u32, u32)> = live_in
            .iter()
            .filter_map(|&v| {
                let first = version(forward[0], v);
                let everywhere = forward.iter().all(|&p| version(p, v).is_some());
                let same = first.is_some() && forward.iter().all(|&p| version(p, v) == first);
                let d = self.start_distance(b, v);
                let loop_ok = !header || d < LOOP_EXIT || (everywhere && dropped.binary_search(&v).is_err());
                (loop_ok && (!critical || same)).then_some((!everywhere && !header, d, v))
            })
            .collect();
        ranked.sort_unstable();
        let mut pressure = phis.clone();
        let mut chosen = Vec::new();
        for (_, d, v) in ranked {
            if d == FAR {
                continue;
            }
            pressure.add(self.class(v));
            if pressure.demand(self.proc).of(file_index(self.ty)) > self.limit {
                pressure.remove(self.class(v));
                continue;
            }
            chosen.push(v);
        }
        chosen.sort_unstable();
        chosen
    }

    /// Spills around block `b`.
    fn block(&mut self, func: &mut Function, b: usize) -> Result<(), AllocError> {
        self.w.clear();
        let preds = self.preds(func, b);
        let forward: SmallVec<[u32; 2]> = preds.iter().copied().filter(|&p| (p as usize) < b).collect();
        let header = forward.len() < preds.len();
        let phi_kind = self.phi_opcode();
        // The block's own phis of this file (those read; assignment drops the others).
        let phi_count = func.blocks[b].insts.iter().take_while(|i| is_phi(i.opcode)).count();
        let mut phi_pressure = Pressure::default();
        let mut phi_defs: Vec<u32> = Vec::new();
        for inst in &func.blocks[b].insts[..phi_count] {
            if let Some(t) = inst.defs.first().and_then(|d| d.temp) {
                if inst.opcode == phi_kind && self.member(t.id) && !self.live.is_dead(t.id) {
                    phi_pressure.add(t.rc);
                    phi_defs.push(t.id);
                }
            }
        }
        if phi_pressure.demand(self.proc).of(file_index(self.ty)) > self.limit {
            let demand = phi_pressure.demand(self.proc).of(file_index(self.ty));
            return Err(self.too_high(b, "the block's phis".into(), demand));
        }
        let entry =
            if forward.is_empty() { Vec::new() } else { self.entry_set(func, b, &forward, header, &phi_pressure) };
        // The temporaries of the entry values, from the predecessors (reloading where one
        // lacks a value), and of the phis' operands.
        if forward.len() == 1 && !header {
            let exit = &self.exit[forward[0] as usize];
            for &v in &entry {
                let k = exit.binary_search_by_key(&v, |&(x, _)| x).expect("entry values come from the predecessor");
                self.cur[v as usize] = exit[k].1;
            }
            self.edge(func, forward[0] as usize, b, &[], false);
        } else if !forward.is_empty() {
            let mut temps: Vec<Vec<Temp>> = Vec::new();
            for &p in &forward {
                let evict = self.later_successors(func, p as usize, b, b);
                temps.push(self.edge(func, p as usize, b, &entry, evict));
            }
            for (i, &v) in entry.iter().enumerate() {
                let first = temps[0][i];
                if !header && temps.iter().all(|t| t[i] == first) {
                    self.cur[v as usize] = first;
                    continue;
                }
                // A phi joins the versions (at a loop header, back-edge operands come later).
                let rc = self.class(v);
                let t = func.new_temp(rc);
                let mut ops: SmallVec<[Operand; 4]> = SmallVec::new();
                let mut k = 0;
                for &p in &preds {
                    if (p as usize) < b {
                        ops.push(Operand::temp(temps[k][i]));
                        k += 1;
                    } else {
                        ops.push(Operand { kind: OperandKind::Undef(rc), reg: None, kill: false });
                    }
                }
                let mut phi = Inst::new(phi_kind, &[Def::temp(t)], &[]);
                phi.ops = ops;
                self.block_phis[b].push(self.phis.len());
                self.phis.push(NewPhi { block: b, phi });
                self.cur[v as usize] = t;
            }
        }
        for &v in &entry {
            let rc = self.class(v);
            self.w.insert(v, rc);
        }
        for &v in &phi_defs {
            let rc = self.class(v);
            self.w.insert(v, rc);
            self.cur[v as usize] = Temp { id: v, rc };
        }
        self.entry[b] = entry;
        self.walk(func, b, phi_count)?;
        let mut exit: Vec<(u32, Temp)> = self.w.list.iter().map(|&v| (v, self.cur[v as usize])).collect();
        exit.sort_unstable_by_key(|&(v, _)| v);
        self.exit[b] = exit;
        // Back edges: the header's entry values and phi operands in registers at this end.
        for h in self.succs(func, b) {
            let h = h as usize;
            if h > b {
                continue;
            }
            let wanted = self.entry[h].clone();
            let evict = self.later_successors(func, b, h, b);
            let temps = self.edge(func, b, h, &wanted, evict);
            // A header has a phi for each of its entry values, in their order.
            for (k, _) in self.preds(func, h).iter().enumerate().filter(|&(_, &p)| p as usize == b) {
                for (i, &phi) in self.block_phis[h].iter().enumerate() {
                    self.phis[phi].phi.ops[k] = Operand::temp(temps[i]);
                }
            }
        }
        Ok(())
    }

    /// The edge from `p` to `b`: the end of `p` gets `entry` (the values `b` starts with in
    /// registers) and the operands `b`'s phis of this file take from `p` in registers, and
    /// those operands are renamed to their temporaries there. Gives the temporaries of
    /// `entry`. `evict` allows values not wanted to leave the registers at `p`'s end (only
    /// when no successor of `p` has started from them yet).
    fn edge(&mut self, func: &mut Function, p: usize, b: usize, entry: &[u32], evict: bool) -> Vec<Temp> {
        let phi_kind = self.phi_opcode();
        // The operand positions of `p` (a block may reach `b` by two edges).
        let ks: SmallVec<[usize; 2]> =
            self.preds(func, b).iter().enumerate().filter(|&(_, &x)| x as usize == p).map(|(k, _)| k).collect();
        let mut wanted: Vec<u32> = entry.to_vec();
        for inst in func.blocks[b].insts.iter().take_while(|i| is_phi(i.opcode)).filter(|i| i.opcode == phi_kind) {
            for &k in &ks {
                if let Some(t) = inst.ops.get(k).and_then(|o| o.temp_of()).filter(|t| self.member(t.id)) {
                    wanted.push(t.id);
                }
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        let temps = self.couple(func, p, &wanted, evict);
        let temp_of = |v: u32| temps[wanted.binary_search(&v).expect("wanted")];
        for inst in func.blocks[b].insts.iter_mut().take_while(|i| is_phi(i.opcode)).filter(|i| i.opcode == phi_kind) {
            for &k in &ks {
                if let Some(op) = inst.ops.get_mut(k) {
                    if let Some(t) =
                        op.temp_of().filter(|t| t.id < self.originals && wanted.binary_search(&t.id).is_ok())
                    {
                        op.kind = OperandKind::Temp(temp_of(t.id));
                    }
                }
            }
        }
        entry.iter().map(|&v| temp_of(v)).collect()
    }

    /// Whether values may leave the registers at the end of `p` for its edge to `b`: `p` has
    /// other successors (with one, what `b` does not want is dead there anyway), and each is
    /// still to be visited (after `now`).
    fn later_successors(&self, func: &Function, p: usize, b: usize, now: usize) -> bool {
        let succs = self.succs(func, p);
        succs.len() > 1 && succs.iter().all(|&s| s as usize == b || s as usize > now)
    }

    /// The instructions of block `b` after its phis: reloads before reads of values not in
    /// registers, values out of registers where the demand would pass the limit.
    fn walk(&mut self, func: &mut Function, b: usize, phi_count: usize) -> Result<(), AllocError> {
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let len = insts.len() as u32;
        // Uses of each value in the block, in order: (id, position), grouped by id.
        let mut uses: Vec<(u32, u32)> = Vec::new();
        for (i, inst) in insts.iter().enumerate().skip(phi_count) {
            for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                if self.member(t.id) {
                    uses.push((t.id, i as u32));
                }
            }
        }
        uses.sort_unstable();
        uses.dedup();
        // Whole-wave sections: a VGPR written in one writes the lanes EXEC left out too, where
        // values of other paths may sit in its register (only linear VGPRs are written there),
        // so no reload or recomputation may go inside. The VGPR values a section reads are
        // brought into registers before it starts and stay there until it ends.
        let sections = if self.ty == RegType::Vgpr { whole_wave_sections(&insts, phi_count) } else { Vec::new() };
        let mut pinned: SmallVec<[u32; 4]> = SmallVec::new();
        let mut pinned_until = 0;
        let mut section = sections.iter().peekable();
        // Per value: the index into `uses` of its next use (the cursor), kept in `dist`.
        let mut cursors: Vec<u32> = Vec::new();
        for (k, &(v, _)) in uses.iter().enumerate() {
            if k == 0 || uses[k - 1].0 != v {
                self.dist[v as usize] = k as u32;
                cursors.push(v);
            }
        }
        let end = std::mem::take(&mut self.dist_end[b]);
        let next_use = |dist: &[u32], v: u32, at: u32| -> u32 {
            let c = dist[v as usize];
            if c != FAR && (c as usize) < uses.len() && uses[c as usize].0 == v {
                return uses[c as usize].1 - at;
            }
            let tail = end.binary_search_by_key(&v, |&(x, _)| x).map_or(FAR, |k| end[k].1);
            (len - at).saturating_add(tail)
        };
        let mut out = Vec::with_capacity(insts.len() + 8);
        let family = func.family;
        let mut insts = insts.into_iter();
        out.extend(insts.by_ref().take(phi_count));
        for (i, mut inst) in insts.enumerate() {
            let at = (i + phi_count) as u32;
            let mut reads: SmallVec<[u32; 4]> = SmallVec::new();
            for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                if self.member(t.id) && !reads.contains(&t.id) {
                    reads.push(t.id);
                }
            }
            if section.peek().is_some_and(|s| s.start == at) {
                let s = section.next().expect("peeked");
                pinned = s.reads.iter().copied().filter(|&v| self.member(v)).collect();
                pinned_until = s.end;
                for &v in &pinned {
                    if !reads.contains(&v) {
                        reads.push(v);
                    }
                }
            } else if at >= pinned_until {
                pinned.clear();
            }
            for &v in &reads {
                if !self.w.contains(v) {
                    let again = self.remat_of(v, &|x| self.w.contains(x).then(|| self.cur[x as usize]));
                    out.push(self.reload(func, v, again));
                    let rc = self.class(v);
                    self.w.insert(v, rc);
                }
                // Past this use: the cursor moves to the next one.
                let c = &mut self.dist[v as usize];
                while (*c as usize) < uses.len() && uses[*c as usize].0 == v && uses[*c as usize].1 <= at {
                    *c += 1;
                }
            }
            // The demand before the instruction (W) and at it (what stays live, its results,
            // and the operands it reads late).
            let late = late_kill(&inst, family);
            let results: SmallVec<[RegClass; 4]> =
                inst.defs.iter().filter_map(|d| d.temp).filter(|t| self.member(t.id)).map(|t| t.rc).collect();
            let killed: SmallVec<[u32; 4]> = reads
                .iter()
                .copied()
                .filter(|&v| inst.ops.iter().any(|o| o.kill && o.temp_of().is_some_and(|t| t.id == v)))
                .collect();
            loop {
                let before = self.w.pressure.demand(self.proc).of(file_index(self.ty));
                let mut during = self.w.pressure.clone();
                if !late {
                    killed.iter().for_each(|&v| during.remove(self.class(v)));
                }
                results.iter().for_each(|&rc| during.add(rc));
                let during = during.demand(self.proc).of(file_index(self.ty));
                if before.max(during) <= self.limit {
                    break;
                }
                let victim = self
                    .w
                    .list
                    .iter()
                    .copied()
                    .filter(|v| !reads.contains(v) && !pinned.contains(v))
                    .max_by_key(|&v| (self.constant_remat(v), next_use(&self.dist, v, at), v));
                let Some(victim) = victim else {
                    let what = format!("`{}` with its operands and results", inst.opcode.name(family));
                    return Err(self.too_high(b, what, before.max(during)));
                };
                let rc = self.class(victim);
                self.w.remove(victim, rc);
            }
            for op in inst.ops.iter_mut() {
                if let OperandKind::Temp(t) = op.kind {
                    if self.member(t.id) {
                        op.kind = OperandKind::Temp(self.cur[t.id as usize]);
                    }
                }
            }
            for &v in &killed {
                let rc = self.class(v);
                self.w.remove(v, rc);
            }
            for t in inst.defs.iter().filter_map(|d| d.temp) {
                if self.member(t.id) && !self.live.is_dead(t.id) {
                    self.w.insert(t.id, t.rc);
                    self.cur[t.id as usize] = t;
                }
            }
            out.push(inst);
        }
        for v in cursors {
            self.dist[v as usize] = FAR;
        }
        self.dist_end[b] = end;
        func.blocks[b].insts = out;
        Ok(())
    }

    /// Puts the added phis in their blocks, without those that join one version with itself
    /// (their uses take that version).
    fn finish_phis(&mut self, func: &mut Function) {
        let phis = std::mem::take(&mut self.phis);
        // Per temporary: the temporary it stands for (trivial phis removed), or itself.
        let mut alias: Vec<u32> = (0..func.temps).collect();
        fn find(alias: &[u32], mut x: u32) -> u32 {
            while alias[x as usize] != x {
                x = alias[x as usize];
            }
            x
        }
        let mut removed = vec![false; phis.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (i, p) in phis.iter().enumerate() {
                if removed[i] {
                    continue;
                }
                let me = p.phi.defs[0].temp.expect("added phis define a temporary").id;
                let mut unique = None;
                let mut trivial = true;
                for op in &p.phi.ops {
                    let Some(t) = op.temp_of() else { continue };
                    let x = find(&alias, t.id);
                    if x == me || unique == Some(x) {
                        continue;
                    }
                    if unique.is_some() {
                        trivial = false;
                        break;
                    }
                    unique = Some(x);
                }
                if let (true, Some(x)) = (trivial, unique) {
                    alias[me as usize] = x;
                    removed[i] = true;
                    changed = true;
                }
            }
        }
        let classes: Vec<Option<RegClass>> = {
            let mut c = vec![None; func.temps as usize];
            for d in func.blocks.iter().flat_map(|b| b.insts.iter()).flat_map(|i| i.defs.iter()) {
                if let Some(t) = d.temp {
                    c[t.id as usize] = Some(t.rc);
                }
            }
            for p in &phis {
                if let Some(t) = p.phi.defs[0].temp {
                    c[t.id as usize] = Some(t.rc);
                }
            }
            c
        };
        let mut kept: Vec<Vec<Inst>> = vec![Vec::new(); func.blocks.len()];
        for (p, gone) in phis.into_iter().zip(removed) {
            if !gone {
                kept[p.block].push(p.phi);
            }
        }
        for (b, phis) in kept.into_iter().enumerate() {
            if !phis.is_empty() {
                func.blocks[b].insts.splice(0..0, phis);
            }
        }
        if alias.iter().enumerate().all(|(i, &a)| a == i as u32) {
            return;
        }
        for inst in func.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
            for op in inst.ops.iter_mut() {
                if let OperandKind::Temp(t) = op.kind {
                    let x = find(&alias, t.id);
                    if x != t.id {
                        let rc = classes[x as usize].unwrap_or(t.rc);
                        op.kind = OperandKind::Temp(Temp { id: x, rc });
                    }
                }
            }
        }
    }

    /// Stores every spilled value right after its definition.
    fn store_after_definitions(&mut self, func: &mut Function) {
        for b in 0..func.blocks.len() {
            let mut stores: Vec<(usize, Inst)> = Vec::new();
            let insts = &func.blocks[b].insts;
            let phis = insts.iter().take_while(|i| is_phi(i.opcode)).count();
            let logical_start = insts.iter().position(|i| i.opcode == Opcode::PLogicalStart);
            let mut found: Vec<(usize, u32)> = Vec::new();
            for (i, inst) in insts.iter().enumerate() {
                for t in inst.defs.iter().filter_map(|d| d.temp) {
                    if t.id < self.originals && self.spilled[t.id as usize] && self.member(t.id) {
                        let mut at = if i < phis { phis } else { i + 1 };
                        if self.ty != RegType::Sgpr {
                            // VGPRs are stored with the block's logical EXEC.
                            at = at.max(logical_start.map_or(0, |s| s + 1));
                        }
                        found.push((at, t.id));
                    }
                }
            }
            for (at, v) in found {
                let mut ops = self.slot_operands(func, v);
                ops.insert(0, Operand::temp(Temp { id: v, rc: self.class(v) }));
                self.stats.spills += 1;
                stores.push((at, Inst::new(Opcode::PSpill, &[], &ops)));
            }
            if stores.is_empty() {
                continue;
            }
            stores.sort_by_key(|&(at, _)| at);
            let old = std::mem::take(&mut func.blocks[b].insts);
            let mut out = Vec::with_capacity(old.len() + stores.len());
            let mut stores = stores.into_iter().peekable();
            for (i, inst) in old.into_iter().enumerate() {
                while let Some((_, s)) = stores.next_if(|&(at, _)| at == i) {
                    out.push(s);
                }
                out.push(inst);
            }
            out.extend(stores.map(|(_, s)| s));
            func.blocks[b].insts = out;
        }
    }
}

/// The largest byte offset a scratch instruction's immediate reaches in `family` (the spill
/// area is addressed by the offset alone, with neither address register).
pub fn scratch_reach(family: Family) -> u32 {
    // The offset field is signed.
    global(family).offset.max() / 2
}

/// Where each spill slot lives once registers are known: turns `p_start_linear_vgpr`,
/// `p_spill` and `p_reload` into hardware instructions. SGPR slots become `v_writelane_b32`
/// and `v_readlane_b32` (one per dword) on their linear VGPR. VGPR slots (dwords, in the
/// order the pass handed them out) first take the AGPRs from `free_agpr` up to `agpr_limit`
/// (the target's: a wave target leaves fewer in the unified file) that the processor has
/// (gfx90a, gfx942: `v_accvgpr_write_b32`/`v_accvgpr_read_b32`, no memory access; they count
/// in the unified file, as scratch does not), then dwords of the lane's scratch, `scratch_base` bytes in (after the private
/// arrays), stored and loaded with `scratch_store`/`scratch_load` of up to four dwords at
/// their immediate offset. Gives `stats` with the AGPRs and scratch bytes used.
pub fn lower(
    func: &mut Function,
    proc: &Processor,
    free_agpr: u16,
    agpr_limit: u16,
    spilling: &crate::Spilling,
    stats: &SpillStats,
) -> Result<SpillStats, AllocError> {
    let scratch_base = spilling.scratch_base;
    let kernel = func.name.clone();
    let internal = |message: &str| AllocError::Internal { kernel: kernel.clone(), message: message.into() };
    let family = func.family;
    // Only where gfx908's wait states between `v_accvgpr_write` and `v_accvgpr_read` are gone
    // (gfx90a on): the hazard pass has no rules for those moves.
    let agprs = if proc.gfx90a_insts { proc.agprs.min(agpr_limit) } else { 0 };
    let in_agprs = stats.vgpr_slots.min(u32::from(agprs.saturating_sub(free_agpr)));
    let mut stats = *stats;
    stats.agprs = in_agprs as u16;
    stats.scratch_bytes = 4 * (stats.vgpr_slots - in_agprs);
    if stats.scratch_bytes > 0 {
        if !spilling.scratch {
            // The kernel would have to set FLAT_SCRATCH up from its inputs first.
            return Err(AllocError::NoScratch { kernel });
        }
        let end = scratch_base.saturating_add(stats.scratch_bytes);
        if end > scratch_reach(family) + 1 {
            return Err(AllocError::SpillAreaTooFar { kernel, end, reach: scratch_reach(family) + 1 });
        }
    }
    let used_sgprs = crate::Allocation::measure(func).sgprs;
    let base = (needs_spill_base(family, spilling) && stats.scratch_bytes > 0).then(|| PhysReg::sgpr(used_sgprs));
    if let (Some(base), Some(entry)) = (base, func.blocks.first_mut()) {
        // Zeroed first thing, after the inputs' definition: nothing else writes it.
        let at = usize::from(entry.insts.first().is_some_and(|i| i.opcode == Opcode::PStartPgm));
        let zero = Inst::new(Opcode::SMovB32, &[Def::phys(base, RegClass::S1)], &[Operand::constant(0)]);
        entry.insts.insert(at, zero);
    }
    for block in &mut func.blocks {
        if !block.insts.iter().any(|i| matches!(i.opcode, Opcode::PStartLinearVgpr | Opcode::PSpill | Opcode::PReload))
        {
            continue;
        }
        let old = std::mem::take(&mut block.insts);
        let mut out = Vec::with_capacity(old.len() + 8);
        for inst in old {
            if inst.opcode == Opcode::PStartLinearVgpr {
                continue;
            }
            if !matches!(inst.opcode, Opcode::PSpill | Opcode::PReload) {
                out.push(inst);
                continue;
            }
            let spill = inst.opcode == Opcode::PSpill;
            let (value_reg, rc) = if spill {
                let op = inst.ops.first().ok_or_else(|| internal("p_spill without a value"))?;
                (op.reg, op.rc())
            } else {
                let d = inst.defs.first().ok_or_else(|| internal("p_reload without a result"))?;
                (d.reg, Some(d.rc))
            };
            let (Some(reg), Some(rc)) = (value_reg, rc) else {
                return Err(internal("a spilled value has no register"));
            };
            match (rc.ty, &inst.ops[usize::from(spill)..]) {
                (RegType::Sgpr, [lv, lane]) => {
                    let (Some(lv), Some(lane)) = (lv.reg, lane.constant_value().and_then(|c| u32::try_from(c).ok()))
                    else {
                        return Err(internal("an SGPR slot without its linear VGPR"));
                    };
                    for d in 0..u16::from(rc.size) {
                        let lane = Operand::constant(lane + u32::from(d));
                        let (s, v) = (reg.advance(d), (lv, RegClass::V1));
                        out.push(if spill {
                            Inst::new(
                                Opcode::VWritelaneB32,
                                &[Def::phys(v.0, v.1)],
                                &[Operand::phys(s, RegClass::S1), lane],
                            )
                        } else {
                            Inst::new(
                                Opcode::VReadlaneB32,
                                &[Def::phys(s, RegClass::S1)],
                                &[Operand::phys(v.0, v.1), lane],
                            )
                        });
                    }
                }
                (RegType::Vgpr, [offset]) => {
                    let offset = offset
                        .constant_value()
                        .and_then(|c| u32::try_from(c).ok())
                        .ok_or_else(|| internal("a scratch slot without its offset"))?;
                    // Dwords `slot..` of the slots: the first `in_agprs` are AGPRs.
                    let slot = offset / 4;
                    let agpr_dwords = in_agprs.saturating_sub(slot).min(u32::from(rc.size)) as u8;
                    for d in 0..agpr_dwords {
                        let v = (reg.advance(u16::from(d)), RegClass::V1);
                        let a = (PhysReg::agpr(free_agpr + (slot + u32::from(d)) as u16), RegClass::agpr(1));
                        out.push(if spill {
                            accvgpr_move(Opcode::VAccvgprWriteB32, Def::phys(a.0, a.1), Operand::phys(v.0, v.1))
                        } else {
                            accvgpr_move(Opcode::VAccvgprReadB32, Def::phys(v.0, v.1), Operand::phys(a.0, a.1))
                        });
                    }
                    // The rest in scratch, after the AGPRs' share of the slots.
                    let offset = 4 * (slot + u32::from(agpr_dwords) - in_agprs.min(slot + u32::from(agpr_dwords)));
                    for first in (agpr_dwords..rc.size).step_by(4) {
                        let n = (rc.size - first).min(4);
                        let part = (reg.advance(u16::from(first)), RegClass::vgpr(n));
                        let opcode = scratch_opcode(spill, n);
                        let mut access = if spill {
                            Inst::new(opcode, &[], &[Operand::phys(part.0, part.1)])
                        } else {
                            Inst::new(opcode, &[Def::phys(part.0, part.1)], &[])
                        };
                        if let Some(base) = base {
                            access.ops.push(Operand::phys(base, RegClass::S1));
                        }
                        access.fields.offset = (scratch_base + offset + 4 * u32::from(first - agpr_dwords)) as i32;
                        out.push(access);
                    }
                }
                _ => return Err(internal("a spill slot of an unknown kind")),
            }
        }
        block.insts = out;
    }
    Ok(stats)
}

/// Whether VGPR spills to scratch in `family` need an SGPR that holds 0 as their address: its
/// scratch instructions take no immediate-only address (gfx90a, which has no ST mode: the
/// address is a VGPR or an SGPR). Allocation then keeps one SGPR free, the first above those
/// the kernel uses takes the 0, at the kernel's entry. Not where spills reach scratch with
/// `off, off` (gfx942, GFX11) or not at all.
pub(crate) fn needs_spill_base(family: Family, spilling: &crate::Spilling) -> bool {
    spilling.scratch && isa::table::info(Opcode::ScratchStoreB32, family).is_some_and(|i| i.flags.oneaddr)
}

/// The scratch store (`spill`) or load of `dwords` dwords.
fn scratch_opcode(spill: bool, dwords: u8) -> Opcode {
    const STORES: [Opcode; 4] =
        [Opcode::ScratchStoreB32, Opcode::ScratchStoreB64, Opcode::ScratchStoreB96, Opcode::ScratchStoreB128];
    const LOADS: [Opcode; 4] =
        [Opcode::ScratchLoadB32, Opcode::ScratchLoadB64, Opcode::ScratchLoadB96, Opcode::ScratchLoadB128];
    (if spill { STORES } else { LOADS })[usize::from(dwords.clamp(1, 4) - 1)]
}

/// A whole-wave section of a block: from the instruction that turns every lane on
/// (`s_or_saveexec` of all ones, as isel enters whole-wave mode) to the next that writes EXEC.
struct Section {
    /// The position of the instruction that starts it.
    start: u32,
    /// The position of the instruction that ends it (the block's length if none does).
    end: u32,
    /// The temporaries its instructions read.
    reads: SmallVec<[u32; 4]>,
}

/// The whole-wave sections of `insts` after the first `skip`.
fn whole_wave_sections(insts: &[Inst], skip: usize) -> Vec<Section> {
    let writes_exec = |inst: &Inst| inst.defs.iter().any(|d| d.reg == Some(PhysReg::EXEC));
    let mut sections: Vec<Section> = Vec::new();
    let mut open: Option<Section> = None;
    for (i, inst) in insts.iter().enumerate().skip(skip) {
        if let Some(s) = open.as_mut() {
            if writes_exec(inst) {
                s.end = i as u32;
                sections.extend(open.take());
            } else {
                for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                    if !s.reads.contains(&t.id) {
                        s.reads.push(t.id);
                    }
                }
                continue;
            }
        }
        let all_lanes = matches!(inst.opcode, Opcode::SOrSaveexecB32 | Opcode::SOrSaveexecB64)
            && inst.ops.first().is_some_and(|o| matches!(o.kind, OperandKind::Const(c) if c as u32 == u32::MAX));
        if all_lanes {
            open = Some(Section { start: i as u32, end: insts.len() as u32, reads: SmallVec::new() });
        }
    }
    sections.extend(open);
    sections
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir_parse::parse_function;

    fn proc() -> &'static Processor {
        Processor::find("gfx1100").unwrap()
    }

    /// The instructions of block `b` as text.
    fn lines(func: &Function, b: usize) -> Vec<String> {
        func.blocks[b].insts.iter().map(|i| isa::mir::DisplayInst(i, func.family).to_string()).collect()
    }

    /// A loop (BB1, latch BB2) with a value used only after it (%1) and one used in it (%0).
    const LOOP: &str = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s1@s0, %1:s1@s1 = p_startpgm
  p_branch target:BB1
BB1: /* logical preds: BB0, BB2 / linear preds: BB0, BB2 / loop header */
  %2:s1 = p_linear_phi %0:s1, %5:s1
  %3:s1@scc = s_cmp_lt_u32 %2:s1, %0:s1
  p_cbranch_scc0 %3:s1@scc target:BB3
BB2: /* logical preds: BB1 / linear preds: BB1 */
  %5:s1, scc = s_add_u32 %2:s1, 0x1
  p_branch target:BB1
BB3: /* logical preds: BB1 / linear preds: BB1 */
  %6:s1, scc = s_add_u32 %1:s1, %2:s1
  s_endpgm
";

    fn parse(text: &str) -> Function {
        parse_function(text, Family::Gfx11).unwrap()
    }

    fn parse_loop() -> Function {
        parse(LOOP)
    }

    #[test]
    fn next_uses_count_instructions_and_the_way_out_of_loops() {
        let mut f = parse_loop();
        let live = liveness::analyze(&mut f, proc()).unwrap();
        let mut pass = Pass::new(&f, &live, proc(), RegType::Sgpr, 106);
        pass.next_uses(&f);
        // In BB3, %1 is read by its first instruction; at the header, %0 by the compare (the
        // second instruction) and %1 only after leaving the loop: the header's 3
        // instructions, then the way out.
        assert_eq!(pass.dist_start[3], vec![(1, 0), (2, 0)]);
        assert_eq!(pass.dist_start[1], vec![(0, 1), (1, 3 + LOOP_EXIT)]);
        // At the latch's end: the header's distances, and the phi operand right away.
        assert_eq!(pass.dist_end[2], vec![(0, 1), (1, 3 + LOOP_EXIT), (5, 0)]);
        // Before the loop: into the header (no penalty entering it), the phi reads %0 there.
        assert_eq!(pass.dist_end[0], vec![(0, 0), (1, 3 + LOOP_EXIT)]);
    }

    #[test]
    fn the_value_used_after_the_loop_is_spilled_outside_it() {
        let mut f = parse_loop();
        let live = liveness::analyze(&mut f, proc()).unwrap();
        // Two SGPRs: in the loop %0 and the counter fit, %1 waits in a lane.
        let target = RegisterDemand { sgprs: 2, vgprs: 256, agprs: 0 };
        let Spilled { live, stats, .. } = spill(&mut f, live, proc(), target).unwrap();
        assert!(live.max_demand.sgprs <= 2, "{f}");
        assert_eq!((stats.spills, stats.reloads, stats.sgpr_lanes, stats.lane_vgprs), (1, 1, 1, 1));
        // Stored right after the entry defines it, outside the loop; nothing in the loop.
        // (%7 was the header's phi for %0, which the loop does not reload: removed again.)
        let entry =
            ["%0:s1@s0, %1:s1@s1 = p_startpgm", "%8:lv1 = p_start_linear_vgpr", "p_spill %1:s1(kill), %8:lv1, 0x0"];
        assert_eq!(lines(&f, 0)[..3], entry);
        assert!(!f.to_string().contains("%7"), "{f}");
        assert!(
            lines(&f, 1).iter().chain(&lines(&f, 2)).all(|l| !l.contains("p_spill") && !l.contains("p_reload")),
            "{f}"
        );
        // Reloaded after the loop, right before its use, which reads the reload.
        assert_eq!(
            lines(&f, 3)[..2],
            ["%9:s1 = p_reload %8:lv1(kill), 0x0", "%6:s1, scc = s_add_u32 %9:s1(kill), %2:s1(kill)"]
        );
    }

    /// Straight-line code: at a target of 2 SGPRs, the value read last (%1) leaves the
    /// registers when the third is defined.
    const STRAIGHT: &str = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s1@s0, %1:s1@s1 = p_startpgm
  %2:s1 = s_mov_b32 0x7
  %3:s1, scc = s_add_u32 %0:s1, %2:s1
  %4:s1, scc = s_add_u32 %3:s1, %2:s1
  %5:s1, scc = s_add_u32 %4:s1, %1:s1
  %6:v1 = v_mov_b32 %5:s1
  s_endpgm
";

    #[test]
    fn the_farthest_next_use_leaves_first() {
        let mut f = parse(STRAIGHT);
        let live = liveness::analyze(&mut f, proc()).unwrap();
        let target = RegisterDemand { sgprs: 2, vgprs: 256, agprs: 0 };
        let stats = spill(&mut f, live, proc(), target).unwrap().stats;
        assert_eq!((stats.spills, stats.reloads), (1, 1), "{f}");
        let text = lines(&f, 0);
        assert_eq!(text[2], "p_spill %1:s1(kill), %7:lv1, 0x0");
        assert_eq!(
            text[6..8],
            ["%8:s1 = p_reload %7:lv1(kill), 0x0", "%5:s1, scc = s_add_u32 %4:s1(kill), %8:s1(kill)"]
        );
        // Through assignment, the validator and the lowering: a lane written and read back.
        let mut f = parse(STRAIGHT);
        let alloc = crate::allocate_with(
            &mut f,
            proc(),
            &crate::Spilling { target, scratch_base: 0, ..crate::Spilling::new(proc()) },
        )
        .unwrap();
        assert_eq!(alloc.spills.sgpr_lanes, 1);
        let out = f.to_string();
        assert!(out.contains("v_writelane_b32") && out.contains("v_readlane_b32"), "{out}");
    }

    /// A VGPR spilled in logical code: stored after `p_logical_start` (where the block's
    /// EXEC is the logical one), not next to `p_startpgm`; through allocation to scratch.
    #[test]
    fn vgprs_are_stored_in_the_logical_part_and_go_to_scratch() {
        let text = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s2@s[0:1], %1:v1@v0 = p_startpgm
  p_logical_start
  %2:v1 = v_not_b32 0x7
  %3:v1 = v_not_b32 0x9
  %4:v1 = v_add_nc_u32 %2:v1, %3:v1
  %5:v1 = v_add_nc_u32 %4:v1, %1:v1
  %6:s1 = v_readfirstlane_b32 %5:v1
  p_logical_end
  s_endpgm
";
        let target = RegisterDemand { sgprs: 106, vgprs: 2, agprs: 0 };
        let mut f = parse(text);
        let live = liveness::analyze(&mut f, proc()).unwrap();
        let stats = spill(&mut f, live, proc(), target).unwrap().stats;
        assert_eq!((stats.spills, stats.reloads, stats.vgpr_slots), (1, 1, 1), "{f}");
        let text_after = lines(&f, 0);
        assert_eq!(text_after[1..3], ["p_logical_start", "p_spill %1:v1(kill), 0x0"]);
        assert_eq!(text_after[6..8], ["%7:v1 = p_reload 0x0", "%5:v1 = v_add_nc_u32 %4:v1(kill), %7:v1(kill)"]);
        let mut f = parse(text);
        let alloc = crate::allocate_with(
            &mut f,
            proc(),
            &crate::Spilling { target, scratch_base: 16, ..crate::Spilling::new(proc()) },
        )
        .unwrap();
        assert_eq!((alloc.spills.scratch_bytes, alloc.vgprs), (4, 2));
        let out = f.to_string();
        assert!(
            out.contains("scratch_store_b32 v0 offset:16") && out.contains("= scratch_load_b32 offset:16"),
            "{out}"
        );
    }

    /// Constants and values computed from what is in registers are recomputed, not stored
    /// and reloaded: at a target of 3 VGPRs, `%2` (a constant) and `%4` (the input, still in
    /// registers, plus a constant) leave the registers and come back as copies of their
    /// definitions; nothing is stored.
    const REMAT: &str = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s2@s[0:1], %1:v1@v0 = p_startpgm
  p_logical_start
  %2:v1 = v_mov_b32 0x7
  %3:v1 = v_not_b32 %1:v1
  %4:v1 = v_add_nc_u32 0x10, %1:v1
  %5:v1 = v_add_nc_u32 %2:v1, %3:v1
  %6:v1 = v_xor_b32 %5:v1, %1:v1
  %7:v1 = v_add_nc_u32 %6:v1, %4:v1
  %8:v1 = v_add3_u32 %7:v1, %2:v1, %1:v1
  %9:s1 = v_readfirstlane_b32 %8:v1
  p_logical_end
  s_endpgm
";

    #[test]
    fn cheap_values_are_recomputed_instead_of_reloaded() {
        let target = RegisterDemand { sgprs: 106, vgprs: 3, agprs: 0 };
        let mut f = parse(REMAT);
        let live = liveness::analyze(&mut f, proc()).unwrap();
        let Spilled { stats, remats, .. } = spill(&mut f, live, proc(), target).unwrap();
        let text = lines(&f, 0);
        // Nothing is stored but what a reload reads; each recomputation is its definition.
        let stores = text.iter().filter(|l| l.starts_with("p_spill")).count() as u32;
        let reloads = text.iter().filter(|l| l.contains("p_reload")).count() as u32;
        assert_eq!((stores, reloads), (stats.spills, stats.reloads), "{f}");
        assert_eq!((stats.spills, stats.reloads, stats.remats), (0, 0, 3), "{f}");
        assert_eq!(remats.len() as u32, stats.remats);
        for r in &remats {
            let def = f.blocks[0].insts.iter().find(|i| i.defs.first().and_then(|d| d.temp) == Some(r.value)).unwrap();
            let orig = f.blocks[0].insts.iter().find(|i| i.defs.first().and_then(|d| d.temp) == Some(r.original));
            assert_eq!(def.opcode, orig.unwrap().opcode, "{f}");
            assert!(text.iter().all(|l| !l.starts_with(&format!("p_spill {}", r.original))), "{f}");
        }
        // Through assignment and the validator, which checks the recomputations.
        let mut f = parse(REMAT);
        let alloc = crate::allocate_with(
            &mut f,
            proc(),
            &crate::Spilling { target, scratch_base: 0, ..crate::Spilling::new(proc()) },
        )
        .unwrap();
        assert!(alloc.vgprs <= 3 && alloc.spills.remats >= 1, "{alloc:?}");
    }

    /// The validator checks a recomputation: one that reads another value, or is another
    /// operation, than the definition it repeats is caught.
    #[test]
    fn the_validator_checks_recomputations() {
        let target = RegisterDemand { sgprs: 106, vgprs: 3, agprs: 0 };
        for corrupt in [None, Some(0x11), Some(0x7)] {
            let mut f = parse(REMAT);
            let live = liveness::analyze(&mut f, proc()).unwrap();
            let Spilled { live, remats, .. } = spill(&mut f, live, proc(), target).unwrap();
            if let Some(c) = corrupt {
                // The recomputation of `%4` (its constant), or of `%2` (as the other's).
                let want = if c == 0x11 { 4 } else { 2 };
                let r = remats.iter().find(|r| r.original.id == want).expect("recomputed");
                let inst = f.blocks[0].insts.iter_mut().find(|i| i.defs.first().and_then(|d| d.temp) == Some(r.value));
                let inst = inst.unwrap();
                if c == 0x11 {
                    inst.ops[0] = Operand::constant(c);
                } else {
                    inst.opcode = Opcode::VNotB32;
                }
            }
            let before = f.clone();
            crate::assign::assign(&mut f, &live, proc(), file_limits(proc())).unwrap();
            crate::ssa_elim::eliminate(&mut f, proc()).unwrap();
            let result = crate::validate::validate_spilled(&before, &f, proc(), &remats);
            match corrupt {
                None => result.unwrap(),
                Some(_) => {
                    let err = result.unwrap_err();
                    assert!(err.problem.contains("but not as its definition"), "{err}");
                }
            }
        }
    }

    /// The validator follows the slots: a reload from a lane no spill wrote is caught.
    #[test]
    fn the_validator_checks_that_a_reload_finds_its_value() {
        let target = RegisterDemand { sgprs: 2, vgprs: 256, agprs: 0 };
        for corrupt in [false, true] {
            let mut f = parse(STRAIGHT);
            let live = liveness::analyze(&mut f, proc()).unwrap();
            let live = spill(&mut f, live, proc(), target).unwrap().live;
            if corrupt {
                let reload = f.blocks[0].insts.iter_mut().find(|i| i.opcode == Opcode::PReload).unwrap();
                reload.ops[1] = Operand::constant(1);
            }
            let before = f.clone();
            crate::assign::assign(&mut f, &live, proc(), file_limits(proc())).unwrap();
            crate::ssa_elim::eliminate(&mut f, proc()).unwrap();
            let result = crate::validate::validate(&before, &f, proc());
            if corrupt {
                let err = result.unwrap_err();
                assert!(err.problem.contains("from a spill slot that holds nothing known"), "{err}");
            } else {
                result.unwrap();
            }
        }
    }

    /// A whole-wave section writes the lanes EXEC leaves out too, so no VGPR is reloaded or
    /// recomputed inside one: the values it reads come back before it starts and stay until
    /// it ends (fuzz seed 41100644: a recomputed `v_lshlrev_b32` inside a reduction's
    /// whole-wave section clobbered another path's value in the inactive lanes of its register).
    #[test]
    fn no_reload_inside_a_whole_wave_section() {
        let text = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s2@s[0:1], %1:v1@v0 = p_startpgm
  p_logical_start
  %2:v1 = v_mov_b32 0x7
  %3:v1 = v_not_b32 %1:v1
  %4:v1 = v_xor_b32 %3:v1, %1:v1
  %5:v1 = v_add_nc_u32 %4:v1, %3:v1
  %6:s1, exec_lo, scc = s_or_saveexec_b32 0xffffffff, exec_lo
  %7:lv1 = v_mov_b32 %2:v1
  exec_lo = s_mov_b32 %6:s1
  %8:v1 = v_add3_u32 %5:v1, %7:lv1, %1:v1
  %9:s1 = v_readfirstlane_b32 %8:v1
  p_logical_end
  s_endpgm
";
        let target = RegisterDemand { sgprs: 106, vgprs: 3, agprs: 0 };
        let mut f = parse(text);
        let live = liveness::analyze(&mut f, proc()).unwrap();
        spill(&mut f, live, proc(), target).unwrap();
        let text = lines(&f, 0);
        let start = text.iter().position(|l| l.contains("s_or_saveexec")).unwrap();
        let end = text.iter().position(|l| l.starts_with("exec_lo = s_mov_b32")).unwrap();
        // %2 is read in the section: it is in a register (a reload or its recomputation)
        // before the section, and nothing but the section's own instruction is inside.
        assert_eq!(end - start, 2, "{f}");
        assert!(text[start + 1].starts_with("%7:lv1 = v_mov_b32"), "{f}");
    }
}
