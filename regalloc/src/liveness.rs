//! Liveness on the two CFGs, kill flags, and register demand.
//!
//! A value is live where some path from there reaches a read of it without passing its
//! definition. Which paths count depends on the value's class, as in ACO: VGPR values follow
//! the *logical* CFG (a lane that skips a divergent arm never reads what the arm wrote, and
//! writes in the arm leave the other lanes alone), SGPRs and linear VGPRs the *linear* CFG (the
//! order the wave really runs in). A phi's operands are live out of the matching predecessor
//! of the phi's own CFG, not live into the phi's block.
//!
//! Live-in sets are found by a backward worklist to a fixpoint (loops need a few rounds); a
//! final pass over each block sets [`Operand::kill`](isa::mir::Operand) on last uses, finds
//! definitions nobody reads (phis and copies nobody reads do not count: assignment drops
//! them), and measures the register demand of every instruction: the values
//! live after it plus its own results, packed with their alignment
//! ([`crate::demand::RegisterDemand`]). Operands an instruction reads late (memory
//! instructions, whose results must not overwrite their address) count as well. Values defined
//! in a special register (VCC, SCC, M0, EXEC) do not take ordinary registers and are left out.
//! Sets are sorted vectors of temporary ids, built with dense tables indexed by id.

use crate::demand::{file_limit, DemandCache, Pressure, RegisterDemand};
use crate::AllocError;
use isa::mir::{Function, Inst, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, Temp};
use smallvec::SmallVec;

/// The liveness of a function's temporaries and the register demand it implies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Liveness {
    /// Per block, the temporaries live at its start (after its phis), sorted by id.
    pub live_in: Vec<Vec<u32>>,
    /// Per block, the temporaries live at its end (phi operands of its successors included),
    /// sorted by id.
    pub live_out: Vec<Vec<u32>>,
    /// Per block, per instruction: the registers needed at that instruction (at a phi: at the
    /// block's start).
    pub inst_demand: Vec<Vec<RegisterDemand>>,
    /// Per block, the largest demand in it.
    pub block_demand: Vec<RegisterDemand>,
    /// The largest demand in the function.
    pub max_demand: RegisterDemand,
    /// The most VGPRs the values other than linear VGPRs need at once (at most
    /// `max_demand.vgprs`): the window of ordinary VGPRs, below the linear ones' registers.
    pub max_plain_vgprs: u16,
    /// The class of each temporary, by id (None for ids never defined).
    classes: Vec<Option<RegClass>>,
    /// Temporaries whose value nobody reads.
    dead: Vec<bool>,
    /// Temporaries defined in a register outside the allocatable files.
    special: Vec<bool>,
}

impl Liveness {
    /// The class of temporary `id`, if it is defined.
    pub fn class(&self, id: u32) -> Option<RegClass> {
        self.classes.get(id as usize).copied().flatten()
    }

    /// The temporary with id `id`, if it is defined.
    pub fn temp(&self, id: u32) -> Option<Temp> {
        self.class(id).map(|rc| Temp { id, rc })
    }

    /// One past the largest temporary id.
    pub fn temp_count(&self) -> usize {
        self.classes.len()
    }

    /// Whether the value of temporary `id` is never read.
    pub fn is_dead(&self, id: u32) -> bool {
        self.dead.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether temporary `id` is defined in a special register (VCC, SCC, M0, EXEC), outside
    /// the files the demand counts.
    pub fn in_special(&self, id: u32) -> bool {
        self.special.get(id as usize).copied().unwrap_or(false)
    }
}

/// Whether `op` is a phi (logical or linear).
pub(crate) fn is_phi(op: Opcode) -> bool {
    matches!(op, Opcode::PPhi | Opcode::PLinearPhi)
}

/// Whether an instruction's results must not take the registers of the operands it reads for
/// the last time: memory instructions (with XNACK replay the address is read again after the
/// results may have been written; LLVM makes SMEM and VMEM results early-clobber there),
/// `v_mad_u64_u32` on GFX11 (LLVM's `MADIntraFwdBug`: the result must not overlap a source),
/// and matrix (MAI) instructions, whose result may not partly overlap the accumulator they
/// read (LLVM makes the wider ones early-clobber; here none of them overlaps, the simpler
/// and safe side of that rule).
pub(crate) fn late_kill(inst: &Inst, family: Family) -> bool {
    matches!(inst.opcode.format(family), Format::Smem | Format::Global)
        || (family == Family::Gfx11 && inst.opcode == Opcode::VMadU64U32)
        || isa::table::info(inst.opcode, family).is_some_and(|i| i.enc == isa::table::Enc::Mai)
}

/// Whether `reg..reg + rc.size` lies in the registers allocation hands out for `rc`'s file.
pub(crate) fn allocatable(reg: PhysReg, rc: RegClass, proc: &Processor) -> bool {
    reg.reg_type() == rc.ty && reg.index() + u16::from(rc.size) <= file_limit(proc, rc.ty)
}

/// Classes of all temporaries and whether each is defined in a special register; checks that
/// each is defined once and every read one is defined.
fn collect_defs(func: &Function, proc: &Processor) -> Result<(Vec<Option<RegClass>>, Vec<bool>), AllocError> {
    let insts = || func.blocks.iter().flat_map(|b| b.insts.iter());
    let max_id = insts()
        .flat_map(|i| i.defs.iter().filter_map(|d| d.temp).chain(i.ops.iter().filter_map(|o| o.temp_of())))
        .map(|t| t.id as usize + 1)
        .max()
        .unwrap_or(0);
    let count = max_id.max(func.temps as usize);
    let mut classes = vec![None; count];
    let mut special = vec![false; count];
    for inst in insts() {
        for d in &inst.defs {
            let Some(t) = d.temp else { continue };
            if classes[t.id as usize].replace(t.rc).is_some() {
                return Err(AllocError::DefinedTwice(t));
            }
            special[t.id as usize] = d.reg.is_some_and(|r| !allocatable(r, t.rc, proc));
        }
    }
    for inst in insts() {
        if let Some(t) = inst.ops.iter().filter_map(|o| o.temp_of()).find(|t| classes[t.id as usize].is_none()) {
            return Err(AllocError::UndefinedTemp(t));
        }
    }
    Ok((classes, special))
}

/// A set of temporaries under construction: a dense membership table stamped with the round
/// that added each member, and the members in insertion order (removals are lazy).
struct WorkSet {
    stamp: Vec<u32>,
    round: u32,
    members: Vec<u32>,
}

impl WorkSet {
    fn new(count: usize) -> WorkSet {
        WorkSet { stamp: vec![0; count], round: 0, members: Vec::new() }
    }

    fn clear(&mut self) {
        self.round += 1;
        self.members.clear();
    }

    fn contains(&self, id: u32) -> bool {
        self.stamp[id as usize] == self.round
    }

    /// Adds `id`; true if it was not in the set.
    fn insert(&mut self, id: u32) -> bool {
        if self.contains(id) {
            return false;
        }
        self.stamp[id as usize] = self.round;
        self.members.push(id);
        true
    }

    /// Removes `id`; true if it was in the set.
    fn remove(&mut self, id: u32) -> bool {
        let was = self.contains(id);
        self.stamp[id as usize] = 0;
        was
    }

    /// The members, sorted.
    fn sorted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.members.iter().copied().filter(|&t| self.contains(t)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Fills `set` with what is live at the end of block `b`: the live-ins of its logical
/// successors that are logical values, those of its linear successors that are linear
/// values, and the operands its successors' phis take from it.
fn live_out_into(func: &Function, b: usize, live_in: &[Vec<u32>], classes: &[Option<RegClass>], set: &mut WorkSet) {
    let block = &func.blocks[b];
    let is_linear = |t: u32| classes[t as usize].is_none_or(|rc| rc.linear);
    for linear in [false, true] {
        let succs = if linear { &block.linear_succs } else { &block.logical_succs };
        for &s in succs {
            live_in[s as usize].iter().filter(|&&t| is_linear(t) == linear).for_each(|&t| {
                set.insert(t);
            });
            let succ = &func.blocks[s as usize];
            let preds = if linear { &succ.linear_preds } else { &succ.logical_preds };
            let Some(k) = preds.iter().position(|&p| p as usize == b) else { continue };
            let phi = if linear { Opcode::PLinearPhi } else { Opcode::PPhi };
            for inst in succ.insts.iter().take_while(|i| is_phi(i.opcode)).filter(|i| i.opcode == phi) {
                if let Some(t) = inst.ops.get(k).and_then(|o| o.temp_of()) {
                    set.insert(t.id);
                }
            }
        }
    }
}

/// Computes liveness on both CFGs, sets the kill flags of `func`'s operands, and measures the
/// register demand on `proc`.
pub fn analyze(func: &mut Function, proc: &Processor) -> Result<Liveness, AllocError> {
    let (classes, special) = collect_defs(func, proc)?;
    let n = func.blocks.len();
    let mut live_in: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut set = WorkSet::new(classes.len());
    // Backward worklist: blocks popped in reverse order first, predecessors re-queued when a
    // live-in set grows.
    let mut queued = vec![true; n];
    let mut stack: Vec<usize> = (0..n).collect();
    while let Some(b) = stack.pop() {
        queued[b] = false;
        set.clear();
        live_out_into(func, b, &live_in, &classes, &mut set);
        for inst in func.blocks[b].insts.iter().rev() {
            if is_phi(inst.opcode) {
                continue;
            }
            inst.defs.iter().filter_map(|d| d.temp).for_each(|t| {
                set.remove(t.id);
            });
            inst.ops.iter().filter_map(|o| o.temp_of()).for_each(|t| {
                set.insert(t.id);
            });
        }
        for inst in func.blocks[b].insts.iter().take_while(|i| is_phi(i.opcode)) {
            inst.defs.iter().filter_map(|d| d.temp).for_each(|t| {
                set.remove(t.id);
            });
        }
        let new = set.sorted();
        if new != live_in[b] {
            live_in[b] = new;
            let block = &func.blocks[b];
            for &p in block.logical_preds.iter().chain(&block.linear_preds) {
                if !std::mem::replace(&mut queued[p as usize], true) {
                    stack.push(p as usize);
                }
            }
        }
    }
    if let Some(&t) = live_in.first().and_then(|l| l.first()) {
        return Err(AllocError::UndefinedTemp(Temp { id: t, rc: classes[t as usize].unwrap_or(RegClass::S1) }));
    }

    let mut live = Liveness {
        live_in,
        live_out: vec![Vec::new(); n],
        inst_demand: vec![Vec::new(); n],
        block_demand: vec![RegisterDemand::default(); n],
        max_demand: RegisterDemand::default(),
        max_plain_vgprs: 0,
        dead: vec![false; classes.len()],
        classes,
        special,
    };
    let family = func.family;
    let mut cache = DemandCache::new(proc);
    for b in 0..n {
        set.clear();
        live_out_into(func, b, &live.live_in, &live.classes, &mut set);
        live.live_out[b] = set.sorted();
        let counted = |t: Temp| !live.special[t.id as usize];
        let mut pressure = Pressure::default();
        for &t in &live.live_out[b] {
            if !live.special[t as usize] {
                pressure.add(live.classes[t as usize].expect("live temporaries are defined"));
            }
        }
        let insts = &mut func.blocks[b].insts;
        let mut demands = vec![RegisterDemand::default(); insts.len()];
        let phis = insts.iter().take_while(|i| is_phi(i.opcode)).count();
        for i in (phis..insts.len()).rev() {
            let inst = &mut insts[i];
            // Results occupy registers at the instruction even when nobody reads them; so do
            // operands read late.
            let mut extra: SmallVec<[RegClass; 4]> = SmallVec::new();
            // Copies drop what nobody reads (see the assignment's pruning).
            let copies_nothing = match inst.opcode {
                Opcode::PParallelCopy => true,
                Opcode::PCreateVector | Opcode::PSplitVector => {
                    inst.defs.iter().filter_map(|d| d.temp).all(|t| !set.contains(t.id))
                }
                _ => false,
            };
            for t in inst.defs.iter().filter_map(|d| d.temp) {
                if !set.contains(t.id) {
                    live.dead[t.id as usize] = true;
                    if counted(t) && !copies_nothing {
                        extra.push(t.rc);
                    }
                }
            }
            if late_kill(inst, family) {
                let mut seen: SmallVec<[u32; 4]> = SmallVec::new();
                for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                    if !set.contains(t.id) && counted(t) && !seen.contains(&t.id) {
                        seen.push(t.id);
                        extra.push(t.rc);
                    }
                }
            }
            extra.iter().for_each(|&rc| pressure.add(rc));
            demands[i] = cache.demand(&pressure);
            live.max_plain_vgprs = live.max_plain_vgprs.max(pressure.plain_vgprs(proc, demands[i].vgprs));
            extra.iter().for_each(|&rc| pressure.remove(rc));
            for op in inst.ops.iter_mut() {
                if let OperandKind::Temp(t) = op.kind {
                    op.kill = !set.contains(t.id);
                }
            }
            for t in inst.defs.iter().filter_map(|d| d.temp) {
                if set.remove(t.id) && counted(t) {
                    pressure.remove(t.rc);
                }
            }
            for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                if set.insert(t.id) && counted(t) {
                    pressure.add(t.rc);
                }
            }
        }
        // The block's start: its live-ins and the results of its phis that are read (the
        // assignment drops the others).
        for t in insts[..phis].iter().filter_map(|i| i.defs.first().and_then(|d| d.temp)) {
            if !set.contains(t.id) {
                live.dead[t.id as usize] = true;
            }
        }
        let entry = cache.demand(&pressure);
        live.max_plain_vgprs = live.max_plain_vgprs.max(pressure.plain_vgprs(proc, entry.vgprs));
        demands[..phis].fill(entry);
        let block_max = demands.iter().fold(entry, |m, &d| m.max(d));
        live.block_demand[b] = block_max;
        live.max_demand = live.max_demand.max(block_max);
        live.inst_demand[b] = demands;
    }
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir::{Block, Def, Operand};

    fn proc(name: &str) -> &'static Processor {
        Processor::find(name).unwrap()
    }

    /// A divergent if without an else arm, as isel builds it: BB0 -> BB1 (then) -> BB3 and
    /// BB0 -> BB3 on the logical CFG; BB0 -> BB1, BB2 (skip) -> BB3 on the linear one.
    fn diamond(wave_size: u32) -> (Function, [Temp; 6]) {
        let mut f = Function::new("k", Family::Gfx11, wave_size);
        for _ in 0..4 {
            f.blocks.push(Block::default());
        }
        f.add_logical_edge(0, 1);
        f.add_logical_edge(0, 3);
        f.add_logical_edge(1, 3);
        f.add_linear_edge(0, 1);
        f.add_linear_edge(0, 2);
        f.add_linear_edge(1, 3);
        f.add_linear_edge(2, 3);
        let lm = RegClass::lane_mask(wave_size);
        let (ptr, x, y, m, saved, z) = (
            f.new_temp(RegClass::S2),
            f.new_temp(RegClass::V1),
            f.new_temp(RegClass::vgpr(3)),
            f.new_temp(lm),
            f.new_temp(lm),
            f.new_temp(RegClass::V1),
        );
        let exec = Operand::phys(PhysReg::EXEC, lm);
        f.blocks[0].insts = vec![
            Inst::new(Opcode::PStartPgm, &[Def::fixed(ptr, PhysReg::sgpr(0)), Def::fixed(x, PhysReg::vgpr(0))], &[]),
            Inst::new(Opcode::PLogicalStart, &[], &[]),
            Inst::new(Opcode::GlobalLoadB128, &[Def::temp(y)], &[Operand::temp(ptr)]),
            Inst::new(Opcode::VCmpGtU32, &[Def::temp(m)], &[Operand::temp(x), Operand::constant(4)]),
            Inst::new(Opcode::PLogicalEnd, &[], &[]),
            Inst::new(
                Opcode::SAndSaveexecB32,
                &[Def::temp(saved), Def::phys(PhysReg::EXEC, lm), Def::phys(PhysReg::SCC, RegClass::S1)],
                &[Operand::temp(m), exec],
            ),
            Inst::new(Opcode::PCbranchExecz, &[], &[exec]),
        ];
        f.blocks[1].insts = vec![
            Inst::new(Opcode::PLogicalStart, &[], &[]),
            Inst::new(Opcode::VAddNcU32, &[Def::temp(z)], &[Operand::temp(x), Operand::temp(y)]),
            Inst::new(Opcode::GlobalStoreB32, &[], &[Operand::temp(ptr), Operand::temp(z)]),
            Inst::new(Opcode::PLogicalEnd, &[], &[]),
            Inst::new(Opcode::PBranch, &[], &[]),
        ];
        f.blocks[2].insts = vec![Inst::new(Opcode::PBranch, &[], &[])];
        f.blocks[3].insts = vec![
            Inst::new(Opcode::SOrB32, &[Def::phys(PhysReg::EXEC, lm)], &[exec, Operand::temp(saved)]),
            Inst::new(Opcode::PLogicalStart, &[], &[]),
            Inst::new(Opcode::GlobalStoreB32, &[], &[Operand::temp(ptr), Operand::temp(x)]),
            Inst::new(Opcode::PLogicalEnd, &[], &[]),
            Inst::new(Opcode::SEndpgm, &[], &[]),
        ];
        (f, [ptr, x, y, m, saved, z])
    }

    #[test]
    fn values_follow_their_own_cfg() {
        let (mut f, [ptr, x, y, _m, saved, z]) = diamond(32);
        let live = analyze(&mut f, proc("gfx1100")).unwrap();
        // The VGPR x skips the linear-only block; the SGPRs pass through it.
        assert_eq!(live.live_in[1], vec![ptr.id, x.id, y.id, saved.id]);
        assert_eq!(live.live_in[2], vec![ptr.id, saved.id]);
        assert_eq!(live.live_in[3], vec![ptr.id, x.id, saved.id]);
        assert_eq!(live.live_out[1], vec![ptr.id, x.id, saved.id]);
        assert_eq!(live.live_out[0], vec![ptr.id, x.id, y.id, saved.id]);
        // Kill flags: y dies in BB1, z right away, saved at the join, ptr and x at the end.
        let kills: Vec<(u32, bool)> = f.blocks[1].insts[1..3]
            .iter()
            .flat_map(|i| i.ops.iter().filter_map(|o| o.temp_of().map(|t| (t.id, o.kill))))
            .collect();
        assert_eq!(kills, vec![(x.id, false), (y.id, true), (ptr.id, false), (z.id, true)]);
        assert!(f.blocks[3].insts[0].ops[1].kill && f.blocks[3].insts[2].ops.iter().all(|o| o.kill));
        assert!(!live.is_dead(z.id));
    }

    #[test]
    fn demand_counts_tuples_late_operands_and_not_specials() {
        for (name, vgprs) in [("gfx1100", 4), ("gfx942", 4)] {
            let (mut f, _) = diamond(64);
            let live = analyze(&mut f, proc(name)).unwrap();
            // At the load: ptr (s2, read late, still live) and the v3 result with x (v1).
            assert_eq!(live.inst_demand[0][2], RegisterDemand { sgprs: 2, vgprs, agprs: 0 }, "{name}");
            // At the saveexec: the lane mask m is read for the last time and saved is written.
            assert_eq!(live.inst_demand[0][5].sgprs, 4, "{name}");
        }
        // Two live 3-register tuples need 7 VGPRs on gfx942, 6 on gfx1100.
        let mut f = Function::new("k", Family::Gfx9, 64);
        f.blocks.push(Block::default());
        let (a, b) = (f.new_temp(RegClass::vgpr(3)), f.new_temp(RegClass::vgpr(3)));
        f.blocks[0].insts = vec![
            Inst::new(Opcode::PStartPgm, &[], &[]),
            Inst::new(Opcode::GlobalLoadB128, &[Def::temp(a)], &[Operand::constant(0)]),
            Inst::new(Opcode::GlobalLoadB128, &[Def::temp(b)], &[Operand::constant(0)]),
            Inst::new(Opcode::GlobalStoreB128, &[], &[Operand::temp(a), Operand::temp(b)]),
            Inst::new(Opcode::SEndpgm, &[], &[]),
        ];
        assert_eq!(analyze(&mut f.clone(), proc("gfx942")).unwrap().max_demand.vgprs, 7);
        assert_eq!(analyze(&mut f, proc("gfx1100")).unwrap().max_demand.vgprs, 6);
    }

    #[test]
    fn malformed_functions_are_refused() {
        let (mut f, [ptr, ..]) = diamond(32);
        f.blocks[1].insts.insert(1, Inst::new(Opcode::SMovB64, &[Def::temp(ptr)], &[Operand::constant(0)]));
        assert_eq!(analyze(&mut f, proc("gfx1100")), Err(AllocError::DefinedTwice(ptr)));
        let (mut f, _) = diamond(32);
        let ghost = Temp { id: 99, rc: RegClass::V1 };
        f.blocks[3].insts.insert(2, Inst::new(Opcode::VMovB32, &[], &[Operand::temp(ghost)]));
        assert_eq!(analyze(&mut f, proc("gfx1100")), Err(AllocError::UndefinedTemp(ghost)));
        // A value defined in one arm and read after the join is not defined on every path.
        let (mut f, [_, x, ..]) = diamond(32);
        let late = f.new_temp(RegClass::V1);
        f.blocks[1].insts.insert(1, Inst::new(Opcode::VMovB32, &[Def::temp(late)], &[Operand::temp(x)]));
        f.blocks[3].insts.insert(2, Inst::new(Opcode::VMovB32, &[], &[Operand::temp(late)]));
        assert_eq!(analyze(&mut f, proc("gfx1100")), Err(AllocError::UndefinedTemp(late)));
    }
}
