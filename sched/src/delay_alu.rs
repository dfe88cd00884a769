//! `s_delay_alu` insertion for gfx11: a hint that tells the wave's instruction issue to hold a
//! dependent ALU instruction until the VALU, TRANS or SALU result it reads is ready, instead of
//! letting the hardware's dependency check stall the pipeline at a worse moment. Correctness
//! never depends on it (the hardware interlocks), so the pass may be conservative; its value is
//! code quality, and LLVM emits it on every gfx11 kernel.
//!
//! The pass keeps, for each 32-bit register written recently by an ALU instruction, how many
//! VALU (or TRANS) instructions have issued since, and how many cycles are left until the
//! result is ready (the latencies of [`isa::latency`], LLVM's GFX11 scheduling model). An ALU
//! instruction that reads such a register gets an `s_delay_alu` naming the most recent producer
//! of each kind (`instid0(VALU_DEP_n)`, `TRANS32_DEP_n`, `SALU_CYCLE_n`). When only one
//! dependency is needed and an earlier `s_delay_alu` in the block has room, it is folded into
//! that one's second slot with `instskip`, as LLVM does. Vector memory and LDS instructions
//! wait for every outstanding VALU write on their own (`va_vdst` 0), as does
//! `s_waitcnt_depctr va_vdst(0)`, and SALU/SMEM instructions wait for VALU writes of SGPRs, so
//! those clear the state.
//!
//! Control flow: the state at a block's entry is the union of its linear predecessors' exit
//! states (the worst delay of each kind per register), iterated to a fixed point over loops.
//! The pass runs last, after waits and hazards, so the counts see the final instruction stream.

use isa::latency::{latency, Unit};
use isa::mir::{Function, Inst};
use isa::opcode::{Family, Format, Opcode};

/// The most VALU instructions an `s_delay_alu` can count back (`VALU_DEP_1`..`VALU_DEP_4`).
const VALU_MAX: u8 = 5;
/// The most TRANS instructions it can count back (`TRANS32_DEP_1`..`TRANS32_DEP_3`).
const TRANS_MAX: u8 = 4;
/// The most SALU cycles it can wait (`SALU_CYCLE_1`..`SALU_CYCLE_3`).
const SALU_CYCLES_MAX: u8 = 4;
/// `instid` of `TRANS32_DEP_1`, minus one.
const TRANS_BASE: u16 = 4;
/// `instid` of `SALU_CYCLE_1`, minus one.
const SALU_BASE: u16 = 8;
/// The `instid1` and `instskip` fields of the immediate.
const SECOND_SLOT: u16 = 0x780;
/// `instskip` can say SAME, NEXT and SKIP_1..SKIP_4.
const MAX_SKIP: u16 = 6;

/// What kind of result an instruction produces, for the delay model.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Valu,
    Trans,
    Salu,
    Other,
}

/// The outstanding producers of one register: the worst case over the paths reaching a point.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Delay {
    /// Cycles until the (non-TRANS) VALU result is ready, 0 if none is outstanding.
    valu_cycles: u8,
    /// Non-TRANS VALU instructions issued since that VALU write (VALU_MAX: none).
    valu_num: u8,
    /// Cycles until the TRANS result is ready.
    trans_cycles: u8,
    /// TRANS instructions issued since that TRANS write (TRANS_MAX: none).
    trans_num: u8,
    /// Non-TRANS VALU instructions issued since that TRANS write.
    trans_num_valu: u8,
    /// Cycles until the SALU result is ready.
    salu_cycles: u8,
}

impl Default for Delay {
    fn default() -> Delay {
        Delay {
            valu_cycles: 0,
            valu_num: VALU_MAX,
            trans_cycles: 0,
            trans_num: TRANS_MAX,
            trans_num_valu: VALU_MAX,
            salu_cycles: 0,
        }
    }
}

impl Delay {
    /// A fresh write by an instruction of `kind` whose result is ready after `latency` cycles.
    fn written(kind: Kind, latency: u8) -> Delay {
        let mut d = Delay::default();
        match kind {
            Kind::Valu => {
                d.valu_cycles = latency;
                d.valu_num = 0;
            }
            Kind::Trans => {
                d.trans_cycles = latency;
                d.trans_num = 0;
                d.trans_num_valu = 0;
            }
            Kind::Salu => d.salu_cycles = latency.min(SALU_CYCLES_MAX),
            Kind::Other => {}
        }
        d
    }

    /// The worst of both.
    fn merge(&mut self, other: &Delay) {
        self.valu_cycles = self.valu_cycles.max(other.valu_cycles);
        self.valu_num = self.valu_num.min(other.valu_num);
        self.trans_cycles = self.trans_cycles.max(other.trans_cycles);
        self.trans_num = self.trans_num.min(other.trans_num);
        self.trans_num_valu = self.trans_num_valu.min(other.trans_num_valu);
        self.salu_cycles = self.salu_cycles.max(other.salu_cycles);
    }

    /// The state after an instruction of `kind` issued in `cycles`; false when nothing is
    /// outstanding any more.
    fn advance(&mut self, kind: Kind, cycles: u8) -> bool {
        let mut live = false;
        self.valu_num = self.valu_num.saturating_add((kind == Kind::Valu) as u8);
        if self.valu_num >= VALU_MAX || self.valu_cycles <= cycles {
            self.valu_num = VALU_MAX;
            self.valu_cycles = 0;
        } else {
            self.valu_cycles -= cycles;
            live = true;
        }
        self.trans_num = self.trans_num.saturating_add((kind == Kind::Trans) as u8);
        self.trans_num_valu = self.trans_num_valu.saturating_add((kind == Kind::Valu) as u8);
        if self.trans_num >= TRANS_MAX || self.trans_cycles <= cycles {
            self.trans_num = TRANS_MAX;
            self.trans_num_valu = VALU_MAX;
            self.trans_cycles = 0;
        } else {
            self.trans_cycles -= cycles;
            live = true;
        }
        if self.salu_cycles <= cycles {
            self.salu_cycles = 0;
        } else {
            self.salu_cycles -= cycles;
            live = true;
        }
        live
    }

    /// The `s_delay_alu` immediate that waits for these producers (0: nothing to wait for).
    /// The TRANS wait goes first; a VALU wait is added when that VALU is more recent than the
    /// TRANS (an older one is covered by waiting for the TRANS); an SALU wait takes the
    /// remaining slot if there is one.
    fn immediate(&self) -> u16 {
        let mut slots: [u16; 2] = [0; 2];
        let mut used = 0;
        if self.trans_num < TRANS_MAX {
            slots[used] = TRANS_BASE + self.trans_num as u16;
            used += 1;
        }
        if self.valu_num < VALU_MAX && self.valu_num <= self.trans_num_valu {
            slots[used] = self.valu_num as u16;
            used += 1;
        }
        if self.salu_cycles > 0 && used < 2 {
            slots[used] = SALU_BASE + self.salu_cycles as u16;
        }
        // A second dependency applies to the same instruction: `instskip(SAME)` is 0.
        slots[0] | slots[1] << 7
    }
}

/// The outstanding producers at a point, sparse: only recently written registers appear.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    /// `(register, delay)`, sorted by register.
    regs: Vec<(u16, Delay)>,
}

impl State {
    fn find(&self, reg: u16) -> Result<usize, usize> {
        self.regs.binary_search_by_key(&reg, |&(r, _)| r)
    }

    fn set(&mut self, reg: u16, delay: Delay) {
        match self.find(reg) {
            Ok(i) => self.regs[i].1 = delay,
            Err(i) => self.regs.insert(i, (reg, delay)),
        }
    }

    /// Removes and returns the delay of `reg`.
    fn take(&mut self, reg: u16) -> Option<Delay> {
        self.find(reg).ok().map(|i| self.regs.remove(i).1)
    }

    fn merge(&mut self, other: &State) {
        for &(reg, ref delay) in &other.regs {
            match self.find(reg) {
                Ok(i) => self.regs[i].1.merge(delay),
                Err(i) => self.regs.insert(i, (reg, *delay)),
            }
        }
    }

    fn advance(&mut self, kind: Kind, cycles: u8) {
        self.regs.retain_mut(|(_, d)| d.advance(kind, cycles));
    }
}

/// How an instruction takes part in the delay model.
struct Role {
    kind: Kind,
    /// Cycles until its results are ready.
    latency: u8,
    /// It waits for every outstanding VALU result before it issues.
    waits_for_valu: bool,
    /// It waits for outstanding VALU writes of SGPRs before it issues.
    waits_for_sgpr_writes: bool,
}

/// `s_waitcnt_depctr`'s `va_vdst` field (bits 15:12): 0 waits for every VALU write of a VGPR.
fn depctr_waits_for_valu(imm: u16) -> bool {
    imm >> 12 == 0
}

fn role(inst: &Inst, family: Family) -> Role {
    let format = inst.opcode.format(family);
    let salu = matches!(format, Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc);
    let (kind, latency) = match latency(inst.opcode, family) {
        (Unit::Valu, cycles) => (Kind::Valu, cycles as u8),
        (Unit::Trans, cycles) => (Kind::Trans, cycles as u8),
        (Unit::Salu, cycles) => (Kind::Salu, cycles as u8),
        _ => (Kind::Other, 0),
    };
    let waits_for_valu = matches!(format, Format::Ds | Format::Flat | Format::Global | Format::Scratch | Format::Mubuf)
        || (inst.opcode == Opcode::SWaitcntDepctr && depctr_waits_for_valu(inst.fields.imm));
    Role { kind, latency, waits_for_valu, waits_for_sgpr_writes: salu || format == Format::Smem }
}

/// Cycles an instruction takes to issue: `s_nop N` waits N + 1, others 1.
fn issue_cycles(inst: &Inst) -> u8 {
    if inst.opcode == Opcode::SNop {
        (inst.fields.imm & 0xf) as u8 + 1
    } else {
        1
    }
}

/// The 32-bit registers an operand or result of `size` registers starting at `reg` covers.
fn units(reg: u16, size: u8) -> impl Iterator<Item = u16> {
    reg..reg + size.max(1) as u16
}

/// What the pass inserted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DelayStats {
    /// `s_delay_alu` instructions inserted.
    pub delays: u32,
    /// Dependencies folded into an earlier `s_delay_alu`'s second slot.
    pub folded: u32,
}

/// An `s_delay_alu` to insert: before instruction `before` of the block, after `real` real
/// (non-pseudo) instructions of the block, with its immediate.
struct Insert {
    before: usize,
    real: usize,
    imm: u16,
}

/// Runs one block from `state`, leaving the exit state in `state`; when `emit`, inserts the
/// delays into `insts` and counts them into `stats`.
fn run_block(insts: &mut Vec<Inst>, family: Family, state: &mut State, emit: bool, stats: &mut DelayStats) {
    let mut inserts: Vec<Insert> = Vec::new();
    // Whether the last insert still has a free second slot.
    let mut open = false;
    // Real instructions so far, for `instskip`.
    let mut real: usize = 0;
    // The last SGPR a VALU wrote: an SALU/SMEM instruction waits for it, hence for every VALU
    // at least as old.
    let mut last_sgpr_from_valu: Option<u16> = None;
    for (index, inst) in insts.iter().enumerate() {
        if inst.opcode.is_pseudo() {
            continue;
        }
        let role = role(inst, family);
        if role.waits_for_sgpr_writes {
            if let Some(reg) = last_sgpr_from_valu.take() {
                if let Ok(i) = state.find(reg) {
                    let num = state.regs[i].1.valu_num;
                    state.regs.retain(|(_, d)| !(d.valu_num >= num && d.valu_cycles > 0));
                }
            }
        }
        if role.waits_for_valu {
            *state = State::default();
        } else if role.kind != Kind::Other {
            let mut delay = Delay::default();
            let tied = |reg: u16| {
                inst.opcode == Opcode::VWritelaneB32 && inst.defs.iter().any(|d| d.reg.map(|r| r.0) == Some(reg))
            };
            let ops = inst.ops.iter().map(|op| (op.reg, op.rc().map_or(1, |rc| rc.size)));
            let accumulator =
                isa::operands::reads_result(inst.opcode).then(|| inst.defs.iter().map(|d| (d.reg, d.rc.size)));
            for (reg, size) in ops.chain(accumulator.into_iter().flatten()) {
                let Some(reg) = reg else { continue };
                if tied(reg.0) {
                    continue;
                }
                for unit in units(reg.0, size) {
                    if let Some(d) = state.take(unit) {
                        delay.merge(&d);
                    }
                }
            }
            if role.kind == Kind::Valu || role.kind == Kind::Trans {
                if let Some(reg) = inst
                    .defs
                    .iter()
                    .filter_map(|d| d.reg)
                    .find(|r| r.is_plain_sgpr() || r.0 == isa::reg::PhysReg::VCC.0)
                {
                    last_sgpr_from_valu = Some(reg.0);
                }
            }
            let imm = delay.immediate();
            if emit && imm != 0 {
                open = place(&mut inserts, open, Insert { before: index, real, imm }, stats);
            }
        }
        if role.kind != Kind::Other {
            // `v_swap_b32` writes its source too (after `strip_implicit`, only its result
            // names the other register).
            let swapped = inst.ops.first().filter(|_| inst.opcode == Opcode::VSwapB32);
            let writes = inst.defs.iter().map(|d| (d.reg, d.rc.size)).chain(swapped.map(|o| (o.reg, 1)));
            for (reg, size) in writes {
                let Some(reg) = reg else { continue };
                for unit in units(reg.0, size) {
                    state.set(unit, Delay::written(role.kind, role.latency));
                }
            }
        }
        state.advance(role.kind, issue_cycles(inst));
        real += 1;
    }
    if inserts.is_empty() {
        return;
    }
    let old = std::mem::take(insts);
    insts.reserve(old.len() + inserts.len());
    let mut next = inserts.iter().peekable();
    for (index, inst) in old.into_iter().enumerate() {
        while let Some(ins) = next.next_if(|ins| ins.before == index) {
            let mut delay = Inst::new(Opcode::SDelayAlu, &[], &[]);
            delay.fields.imm = ins.imm;
            insts.push(delay);
        }
        insts.push(inst);
    }
}

/// Adds the wait `new`: into the open `s_delay_alu`'s second slot when it is a single
/// dependency and close enough, else as a new instruction. Returns whether the last
/// `s_delay_alu` still has a free slot.
fn place(inserts: &mut Vec<Insert>, open: bool, new: Insert, stats: &mut DelayStats) -> bool {
    if new.imm & SECOND_SLOT == 0 && open {
        let last = inserts.last_mut().expect("an open s_delay_alu");
        // Real instructions between the open s_delay_alu and the new one's.
        let skip = new.real - last.real;
        if skip < usize::from(MAX_SKIP) {
            last.imm |= new.imm << 7 | (skip as u16) << 4;
            stats.folded += 1;
            return false;
        }
    }
    let free = new.imm & SECOND_SLOT == 0;
    inserts.push(new);
    stats.delays += 1;
    free
}

/// Inserts `s_delay_alu` where gfx11 code would stall on an ALU dependency. Other generations
/// have no such instruction and are left alone. Blocks are in linear order.
pub fn insert_delay_alu(func: &mut Function) -> DelayStats {
    let mut stats = DelayStats::default();
    if func.family != Family::Gfx11 {
        return stats;
    }
    let family = func.family;
    let n = func.blocks.len();
    // Exit states to a fixed point: blocks in linear order, revisited while a loop's back edge
    // changes a header's entry state. States only grow toward the worst case and shrink with
    // distance, so this settles in a few rounds. Without back edges, each block's entry is
    // final when its turn comes, and the pass that inserts the delays is the only one (what a
    // block leaves does not depend on whether its delays are being placed).
    let loops = func.has_linear_back_edges();
    let mut exits: Vec<State> = vec![State::default(); n];
    let mut scratch = DelayStats::default();
    let entry_state = |exits: &[State], b: usize, blocks: &[isa::mir::Block]| {
        let mut s = State::default();
        for &p in &blocks[b].linear_preds {
            s.merge(&exits[p as usize]);
        }
        s
    };
    // A block is run again only when a predecessor's exit state changed.
    let mut dirty = vec![true; n];
    let mut changed = loops;
    while changed {
        changed = false;
        for b in 0..n {
            if !std::mem::replace(&mut dirty[b], false) {
                continue;
            }
            let mut state = entry_state(&exits, b, &func.blocks);
            let mut insts = std::mem::take(&mut func.blocks[b].insts);
            run_block(&mut insts, family, &mut state, false, &mut scratch);
            func.blocks[b].insts = insts;
            if state != exits[b] {
                exits[b] = state;
                changed = true;
                for &s in &func.blocks[b].linear_succs {
                    dirty[s as usize] = true;
                }
            }
        }
    }
    for b in 0..n {
        let mut state = entry_state(&exits, b, &func.blocks);
        let mut insts = std::mem::take(&mut func.blocks[b].insts);
        run_block(&mut insts, family, &mut state, true, &mut stats);
        func.blocks[b].insts = insts;
        if !loops {
            exits[b] = state;
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::asm::print_inst;
    use isa::mir::{Def, Operand};
    use isa::reg::{PhysReg, RegClass};

    fn v(n: u16) -> PhysReg {
        PhysReg::vgpr(n)
    }

    fn valu(op: Opcode, d: PhysReg, a: PhysReg, b: PhysReg) -> Inst {
        Inst::new(op, &[Def::phys(d, RegClass::V1)], &[Operand::phys(a, RegClass::V1), Operand::phys(b, RegClass::V1)])
    }

    fn run(insts: Vec<Inst>) -> (Vec<String>, DelayStats) {
        let mut f = Function::new("k", Family::Gfx11, 32);
        f.blocks.push(isa::mir::Block { insts, ..Default::default() });
        let stats = insert_delay_alu(&mut f);
        (f.blocks[0].insts.iter().map(|i| print_inst(i, Family::Gfx11, 32)).collect(), stats)
    }

    #[test]
    fn dependent_valu_waits_for_its_producer() {
        let (text, stats) = run(vec![valu(Opcode::VAddF32, v(0), v(1), v(2)), valu(Opcode::VMulF32, v(3), v(0), v(0))]);
        assert_eq!(stats.delays, 1);
        assert!(text[1].starts_with("s_delay_alu instid0(VALU_DEP_1)"), "{text:?}");
    }

    #[test]
    fn independent_valu_needs_no_delay_and_distance_counts() {
        let (text, stats) = run(vec![
            valu(Opcode::VAddF32, v(0), v(1), v(2)),
            valu(Opcode::VAddF32, v(4), v(1), v(2)),
            valu(Opcode::VAddF32, v(5), v(1), v(2)),
            valu(Opcode::VMulF32, v(3), v(0), v(0)),
        ]);
        assert_eq!(stats.delays, 1);
        assert!(text[3].starts_with("s_delay_alu instid0(VALU_DEP_3)"), "{text:?}");
    }

    #[test]
    fn far_producer_is_ready() {
        let mut insts = vec![valu(Opcode::VAddF32, v(0), v(1), v(2))];
        for i in 0..5 {
            insts.push(valu(Opcode::VAddF32, v(10 + i), v(1), v(2)));
        }
        insts.push(valu(Opcode::VMulF32, v(3), v(0), v(0)));
        let (_, stats) = run(insts);
        assert_eq!(stats.delays, 0);
    }

    #[test]
    fn transcendental_and_second_slot() {
        let (text, stats) = run(vec![
            Inst::new(Opcode::VRcpF32, &[Def::phys(v(0), RegClass::V1)], &[Operand::phys(v(1), RegClass::V1)]),
            valu(Opcode::VAddF32, v(2), v(3), v(3)),
            valu(Opcode::VMulF32, v(4), v(0), v(2)),
        ]);
        assert_eq!(stats.delays, 1);
        assert!(text[2].starts_with("s_delay_alu instid0(TRANS32_DEP_1) | instid1(VALU_DEP_1)"), "{text:?}");
    }

    #[test]
    fn a_single_dependency_folds_into_the_open_delay() {
        let (text, stats) = run(vec![
            valu(Opcode::VAddF32, v(0), v(1), v(2)),
            valu(Opcode::VAddF32, v(3), v(0), v(0)),
            valu(Opcode::VMulF32, v(4), v(3), v(3)),
        ]);
        assert_eq!((stats.delays, stats.folded), (1, 1));
        assert_eq!(text[1], "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)");
        assert_eq!(text.len(), 4);
    }

    #[test]
    fn memory_instruction_clears_the_state() {
        let mut load =
            Inst::new(Opcode::GlobalLoadB32, &[Def::phys(v(9), RegClass::V1)], &[Operand::phys(v(4), RegClass::V2)]);
        load.fields.imm = 0;
        let (_, stats) =
            run(vec![valu(Opcode::VAddF32, v(0), v(1), v(2)), load, valu(Opcode::VMulF32, v(3), v(0), v(0))]);
        assert_eq!(stats.delays, 0);
    }
}
