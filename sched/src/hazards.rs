//! Hazard resolution: the wait states and dependency waits that gfx942 and gfx11 leave to
//! software, inserted as `s_nop` and `s_waitcnt_depctr` (LLVM's GCNHazardRecognizer list; the
//! emulator checks the same rules as the waves run).
//!
//! gfx942 (GFX9 with the gfx940 instructions) needs wait states between a VALU write and some
//! later reads: of an SGPR by a VALU (2), of a VGPR by `v_readlane`/`v_readfirstlane` (1), of a
//! transcendental result by another VALU (1), of EXEC by the lane-access instructions (4), of a
//! lane select (4), of VCC by `v_div_fmas` (4), of an SGPR by a vector memory instruction
//! (5, `isa::hazard::VMEM_SGPR_WAIT_STATES`), of a VGPR or (by a VALU) EXEC by a DPP
//! operation (2 and 5, `isa::hazard::DPP_VGPR_WAIT_STATES` and `DPP_EXEC_WAIT_STATES`), and a VALU write to the data of a pending store
//! or atomic wider than 64 bits (the rule and its wait states are `isa::hazard`'s, which the
//! emulator reads too); and with XNACK possibly on, a run of SMEM instructions must not write
//! a register the run reads (`isa::hazard::smem_clauses_replay`), so [`break_smem_clauses`]
//! puts an `s_nop` before the load that would, after the waits are in, since an `s_waitcnt`
//! ends a run too (the run is tracked across blocks as the union of the paths in, and
//! assumed to write and read everything where a loop's back edge enters). The pass counts
//! wait states back through the block and through each path into it (the largest need over
//! the paths decides); a loop header first assumes the worst of its back edge, then takes what
//! the loop's end leaves, recomputed until it no longer changes (at most a few rounds, else the
//! worst case stays); a block entered from more than a few paths assumes the worst. Before
//! that, each block's own hazards are filled where they can be with independent ALU operations
//! that come later in the block, moved up in front of the instruction that needs the wait
//! states (`fill_wait_states`): `s_nop` pads only what they do not cover.
//!
//! gfx11 resolves its hazards with `s_waitcnt_depctr`: after a transcendental VALU (its result
//! must not be read early), after an SALU write to EXEC in wave64 (partial forwarding), and
//! after an SALU write to an SGPR that a VALU reads as a lane mask (wave64). These are placed
//! conservatively, right after the writing instruction; `s_delay_alu` (a performance hint) is
//! not emitted yet.
//!
//! The pass runs after register allocation and before the implicit operands (EXEC, SCC) are
//! stripped, so it sees every register an instruction writes.

use isa::hazard;
use isa::mir::{Function, Inst};
use isa::opcode::{Family, Format, Opcode};
use isa::operands::{shape_of, Loc};
use isa::processor::Target;
use isa::reg::{PhysReg, RegType};
use smallvec::SmallVec;

/// The most wait states any gfx942 rule needs.
const MAX_WAIT_STATES: u32 = hazard::DPP_EXEC_WAIT_STATES;
/// `s_waitcnt_depctr depctr_va_vdst(0)`: wait for every outstanding VALU write of a VGPR.
const DEPCTR_VA_VDST0: u16 = 0x0f9f;
/// `s_waitcnt_depctr depctr_sa_sdst(0)`: wait for every outstanding SALU write of an SGPR.
const DEPCTR_SA_SDST0: u16 = 0xff9e;

/// A run of registers, `start..start + n` in `PhysReg` numbering.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Run {
    start: u16,
    n: u16,
}

impl Run {
    fn overlaps(self, other: Run) -> bool {
        self.start < other.start + other.n && other.start < self.start + self.n
    }

    fn is(self, ty: RegType) -> bool {
        PhysReg(self.start).reg_type() == ty
    }
}

/// Register runs of one instruction: a few, kept inline (a history copies them per path).
type Runs = SmallVec<[Run; 4]>;

/// What the hazard rules need to know of one instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Foot {
    valu: bool,
    salu: bool,
    /// A scalar memory instruction.
    smem: bool,
    /// A vector memory instruction (FLAT, GLOBAL, SCRATCH).
    vmem: bool,
    trans: bool,
    defs: Runs,
    uses: Runs,
    /// The VGPR `v_readlane`/`v_readfirstlane` read.
    lane_source: Option<Run>,
    /// `v_readlane`, `v_readfirstlane` or `v_writelane`.
    lane_access: bool,
    /// The SGPR lane select of `v_readlane`/`v_writelane`.
    lane_select: Option<Run>,
    /// SGPRs a VALU reads as a lane mask.
    masks: Runs,
    /// `v_div_fmas_*` (reads VCC).
    div_fmas: bool,
    /// A DPP operation.
    dpp: bool,
    /// The data registers of a store wider than 64 bits.
    wide_store_data: Option<Run>,
    /// Wait states this instruction provides.
    wait_states: u32,
}

fn run_of(reg: Option<PhysReg>, size: u8) -> Option<Run> {
    reg.map(|r| Run { start: r.0, n: size.max(1) as u16 })
}

fn footprint(inst: &Inst, family: Family) -> Foot {
    let format = inst.opcode.format(family);
    let valu = matches!(
        format,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Vop3p | Format::Vopd
    );
    let salu = matches!(format, Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc);
    let name = inst.opcode.name(family);
    let mut f = Foot {
        valu,
        salu,
        smem: format == Format::Smem,
        vmem: matches!(format, Format::Global | Format::Flat | Format::Scratch),
        trans: valu && inst.opcode.is_transcendental(family),
        defs: inst.defs.iter().filter_map(|d| run_of(d.reg, d.rc.size)).collect(),
        uses: inst
            .ops
            .iter()
            .map(|o| (o.reg, o.rc().map_or(1, |rc| rc.size)))
            .chain(inst.defs.iter().filter(|_| isa::operands::reads_result(inst.opcode)).map(|d| (d.reg, d.rc.size)))
            .filter_map(|(reg, size)| run_of(reg, size))
            .collect(),
        div_fmas: name.starts_with("v_div_fmas"),
        dpp: valu && inst.fields.dpp.is_some(),
        wait_states: if inst.opcode == Opcode::SNop { (inst.fields.imm as u32 & 0xf) + 1 } else { 1 },
        ..Foot::default()
    };
    let lane_op = matches!(inst.opcode, Opcode::VReadlaneB32 | Opcode::VReadfirstlaneB32 | Opcode::VWritelaneB32);
    if lane_op {
        f.lane_access = true;
        if inst.opcode != Opcode::VWritelaneB32 {
            f.lane_source = inst.ops.first().and_then(|o| run_of(o.reg, 1));
        }
        if inst.opcode != Opcode::VReadfirstlaneB32 {
            f.lane_select = inst.ops.get(1).and_then(|o| run_of(o.reg, 1)).filter(|r| r.is(RegType::Sgpr));
        }
    }
    if let Some(shape) = shape_of(inst.opcode, family) {
        if valu {
            for (slot, op) in shape.ops.iter().zip(&inst.ops) {
                if slot.loc == Loc::Mask {
                    f.masks.extend(run_of(op.reg, op.rc().map_or(1, |rc| rc.size)));
                }
            }
        }
    }
    f.wide_store_data = hazard::wide_store_data(inst, family).map(|(reg, n)| Run { start: reg.0, n: n.into() });
    f
}

/// The wait states `next` needs after the instructions of `history` (oldest first).
fn needed_gfx942(history: &[Foot], next: &Foot, store_data_wait_states: u32) -> u32 {
    let mut need = 0;
    let mut ws = 0;
    for h in history.iter().rev() {
        if ws >= MAX_WAIT_STATES {
            break;
        }
        let mut require = |n: u32| need = need.max(n.saturating_sub(ws));
        if h.valu {
            let writes = |r: Run| h.defs.iter().any(|d| d.overlaps(r));
            if next.valu && next.uses.iter().any(|&u| u.is(RegType::Sgpr) && writes(u)) {
                require(2);
            }
            if next.lane_source.is_some_and(writes) {
                require(1);
            }
            if h.trans && next.valu && !next.trans && next.uses.iter().any(|&u| u.is(RegType::Vgpr) && writes(u)) {
                require(1);
            }
            if next.lane_access && writes(Run { start: PhysReg::EXEC.0, n: 2 }) {
                require(4);
            }
            if next.lane_select.is_some_and(writes) {
                require(4);
            }
            if next.div_fmas && writes(Run { start: PhysReg::VCC.0, n: 2 }) {
                require(4);
            }
            if next.vmem && next.uses.iter().any(|&u| u.is(RegType::Sgpr) && writes(u)) {
                require(hazard::VMEM_SGPR_WAIT_STATES);
            }
        }
        if next.dpp {
            let writes = |r: Run| h.defs.iter().any(|d| d.overlaps(r));
            if next.uses.iter().any(|&u| u.is(RegType::Vgpr) && writes(u)) {
                require(hazard::DPP_VGPR_WAIT_STATES);
            }
            if h.valu && writes(Run { start: PhysReg::EXEC.0, n: 2 }) {
                require(hazard::DPP_EXEC_WAIT_STATES);
            }
        }
        if let Some(data) = h.wide_store_data {
            if next.valu && next.defs.iter().any(|d| d.overlaps(data)) {
                require(store_data_wait_states);
            }
        }
        ws += h.wait_states;
    }
    need
}

fn nop(wait_states: u32) -> Inst {
    let mut inst = Inst::new(Opcode::SNop, &[], &[]);
    inst.fields.imm = (wait_states - 1) as u16;
    inst
}

fn depctr(imm: u16) -> Inst {
    let mut inst = Inst::new(Opcode::SWaitcntDepctr, &[], &[]);
    inst.fields.imm = imm;
    inst
}

/// Counts of what the pass inserted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HazardStats {
    /// `s_nop` instructions inserted.
    pub nops: u32,
    /// `s_waitcnt_depctr` instructions inserted.
    pub depctrs: u32,
}

/// Inserts what the hazards of `func`'s generation need on `target`. Blocks are in linear
/// order.
pub fn resolve_hazards(func: &mut Function, target: &Target) -> HazardStats {
    let processor = target.processor();
    match func.family {
        Family::Gfx9 | Family::Gfx90a => resolve_gfx942(func, hazard::store_data_wait_states(processor)),
        Family::Gfx11 => resolve_gfx11(func),
    }
}

/// The open run of SMEM instructions (a soft clause) on the paths into the current point:
/// the registers its instructions write and read (both empty when no run is open).
#[derive(Clone, Debug, Default)]
struct Clause {
    defs: Vec<Run>,
    uses: Vec<Run>,
    /// The run is not known (a loop's back edge enters): it may have written and read
    /// anything.
    unknown: bool,
}

impl Clause {
    /// Whether the SMEM instruction `next`, joining the run, would write a register the run
    /// reads (its own operands included), once the run has written something: the rule as
    /// the emulator checks it.
    fn conflicts(&self, next: &Foot) -> bool {
        if self.unknown {
            return !next.defs.is_empty();
        }
        !self.defs.is_empty() && next.defs.iter().any(|d| self.uses.iter().chain(&next.uses).any(|u| d.overlaps(*u)))
    }

    fn extend(&mut self, other: &Clause) {
        self.defs.extend_from_slice(&other.defs);
        self.uses.extend_from_slice(&other.uses);
        self.unknown |= other.unknown;
    }
}

/// With XNACK possibly on, gfx942 replays a soft clause of SMEM instructions after a fault, so
/// a run must not write a register it reads (`isa::hazard::smem_clauses_replay`): an `s_nop`
/// ends the run before an SMEM instruction that would. Any other instruction ends a run,
/// `s_waitcnt` included, so this runs on MIR whose waits are in (after
/// [`crate::waitcnt::insert_waits`]); an `s_nop` changes no wait. Returns the `s_nop`s added.
pub fn break_smem_clauses(func: &mut Function, target: &Target) -> u32 {
    if !func.family.is_gfx9() || !hazard::smem_clauses_replay(target.processor(), target.id.xnack) {
        return 0;
    }
    let family = func.family;
    let mut nops = 0;
    // The run open at the end of each block (the union over the paths into it).
    let mut clauses: Vec<Clause> = vec![Clause::default(); func.blocks.len()];
    for b in 0..func.blocks.len() {
        let preds = &func.blocks[b].linear_preds;
        let forward = preds.iter().all(|&p| (p as usize) < b);
        let mut clause = Clause { unknown: !forward, ..Clause::default() };
        if forward {
            for &p in preds {
                clause.extend(&clauses[p as usize]);
            }
        }
        let block = &mut func.blocks[b];
        let mut out = Vec::with_capacity(block.insts.len());
        for inst in block.insts.drain(..) {
            if !inst.opcode.is_pseudo() {
                let foot = footprint(&inst, family);
                if !foot.smem {
                    clause = Clause::default();
                } else if clause.conflicts(&foot) {
                    out.push(nop(1));
                    nops += 1;
                    clause = Clause::default();
                }
                if foot.smem {
                    clause.defs.extend_from_slice(&foot.defs);
                    clause.uses.extend_from_slice(&foot.uses);
                }
            }
            out.push(inst);
        }
        block.insts = out;
        clauses[b] = clause;
    }
    nops
}

/// At most this many predecessor histories are followed into a block; with more, the block
/// starts from the worst case.
const MAX_HISTORIES: usize = 4;

/// How many times the histories at the loop headers are recomputed from their back edges
/// before the pass gives up on them and assumes the worst there.
const MAX_ROUNDS: usize = 4;

/// The histories (one per path, each the last few instructions) at the end of each block.
type Tails = Vec<Vec<Vec<Foot>>>;

fn resolve_gfx942(func: &mut Function, store_data_wait_states: u32) -> HazardStats {
    let family = func.family;
    for block in &mut func.blocks {
        fill_wait_states(&mut block.insts, family, store_data_wait_states);
    }
    let foots: Vec<Vec<Foot>> =
        func.blocks.iter().map(|b| b.insts.iter().map(|i| footprint(i, family)).collect()).collect();
    let pseudo: Vec<Vec<bool>> =
        func.blocks.iter().map(|b| b.insts.iter().map(|i| i.opcode.is_pseudo()).collect()).collect();
    // The tails with back edges taken as the worst case, then recomputed from the tails the
    // previous round found at the loops' ends until nothing changes (a loop's own hazards
    // are then resolved from what its end really leaves, as across forward edges). Each
    // round records what it found each instruction needs: the round that reaches the fixpoint
    // is the walk from it, so its needs stand. A function without back edges is done in one
    // walk, which consults no tails of later blocks.
    let mut needs: Vec<Vec<u32>> = func.blocks.iter().map(|b| vec![0; b.insts.len()]).collect();
    let loops = func.has_linear_back_edges();
    let mut known: Option<Tails> = None;
    let mut converged = !loops;
    let mut record = |b: usize, i: usize, need: u32| needs[b][i] = need;
    for _ in 0..if loops { MAX_ROUNDS } else { 1 } {
        let tails = walk(func, &foots, &pseudo, known.as_ref(), store_data_wait_states, &mut record);
        if known.as_ref() == Some(&tails) {
            converged = true;
            break;
        }
        known = Some(tails);
    }
    // Without a fixpoint, the loop headers start from the worst case.
    if !converged {
        walk(func, &foots, &pseudo, None, store_data_wait_states, &mut record);
    }
    let mut stats = HazardStats::default();
    for (block, needs) in func.blocks.iter_mut().zip(needs) {
        let mut out = Vec::with_capacity(block.insts.len());
        for (inst, need) in block.insts.drain(..).zip(needs) {
            if need > 0 {
                out.push(nop(need));
                stats.nops += 1;
            }
            out.push(inst);
        }
        block.insts = out;
    }
    stats
}

/// How far ahead of an instruction that needs wait states the pass looks for ones to fill them.
const FILL_WINDOW: usize = 8;

/// Fills the wait states the instructions of a block need on gfx942 with independent ALU
/// operations that come later in the block, moved up in front of them, as a scheduler does
/// before falling back to `s_nop` (LLVM's post-RA scheduler with its hazard recognizer). The
/// needs are counted from the block's own instructions (what earlier blocks leave is the walk's,
/// which still pads what remains). An operation moves up when it reads nothing the ones it
/// passes write (EXEC included for a vector one), writes nothing they read or write and not
/// EXEC or M0 (which instructions read without naming them), is itself a scalar or vector ALU
/// operation that needs no wait states where it lands, and nothing it passes is a
/// pseudo-instruction or program control. Each instruction looks at a bounded
/// window, so the pass stays linear.
fn fill_wait_states(insts: &mut Vec<Inst>, family: Family, store_data_wait_states: u32) {
    let foots: Vec<Foot> = insts.iter().map(|i| footprint(i, family)).collect();
    let fixed = |i: usize| {
        let inst = &insts[i];
        inst.opcode.is_pseudo() || matches!(inst.opcode.format(family), Format::Sopp)
    };
    let exec = Run { start: PhysReg::EXEC.0, n: 2 };
    let m0 = Run { start: PhysReg::M0.0, n: 1 };
    // What other instructions read without naming it (EXEC, M0) it must not write.
    let filler = |i: usize| {
        let f = &foots[i];
        (f.valu || f.salu)
            && !fixed(i)
            && !f.lane_access
            && !f.defs.iter().any(|d| d.overlaps(exec) || d.overlaps(m0))
            && !insts[i].opcode.name(family).contains("movrel")
    };
    let mut moved = vec![false; insts.len()];
    let mut order: Vec<usize> = Vec::with_capacity(insts.len());
    let mut history: Vec<Foot> = Vec::new();
    let push = |history: &mut Vec<Foot>, f: &Foot| {
        history.push(f.clone());
        if history.len() > MAX_WAIT_STATES as usize {
            history.remove(0);
        }
    };
    for i in 0..insts.len() {
        if moved[i] {
            continue;
        }
        if !fixed(i) {
            let mut need = needed_gfx942(&history, &foots[i], store_data_wait_states);
            while need > 0 {
                // The first later operation that can fill a wait state here.
                let mut passed: SmallVec<[usize; FILL_WINDOW]> = SmallVec::new();
                let mut found = None;
                for j in i..insts.len() {
                    if moved[j] {
                        continue;
                    }
                    if j > i && filler(j) {
                        let c = &foots[j];
                        // `passed` holds `i` and the instructions up to `j` still in place.
                        let independent = passed.iter().all(|&k| {
                            let k = &foots[k];
                            let reads_written = c.uses.iter().any(|u| k.defs.iter().any(|d| d.overlaps(*u)));
                            let writes_used =
                                c.defs.iter().any(|d| k.uses.iter().chain(&k.defs).any(|u| d.overlaps(*u)));
                            let exec_changes = c.valu && k.defs.iter().any(|d| d.overlaps(exec));
                            !(reads_written || writes_used || exec_changes)
                        });
                        if independent && needed_gfx942(&history, c, store_data_wait_states) == 0 {
                            found = Some(j);
                            break;
                        }
                    }
                    if fixed(j) || passed.len() == FILL_WINDOW {
                        break;
                    }
                    passed.push(j);
                }
                let Some(j) = found else { break };
                moved[j] = true;
                order.push(j);
                push(&mut history, &foots[j]);
                need = needed_gfx942(&history, &foots[i], store_data_wait_states);
            }
        }
        order.push(i);
        push(&mut history, &foots[i]);
    }
    if order.iter().enumerate().all(|(k, &i)| k == i) {
        return;
    }
    let mut taken: Vec<Option<Inst>> = insts.drain(..).map(Some).collect();
    insts.extend(order.into_iter().map(|i| taken[i].take().expect("each instruction placed once")));
}

/// One pass over the blocks in linear order: the wait states each instruction needs (reported
/// to `need`, with its block and index) and the histories at each block's end. A block starts
/// from its predecessors' histories: those earlier in the order from this pass, those later (a
/// loop's back edge) from `back` if given, else (or with too many paths) the worst case.
fn walk(
    func: &Function,
    foots: &[Vec<Foot>],
    pseudo: &[Vec<bool>],
    back: Option<&Tails>,
    store_data_wait_states: u32,
    need: &mut dyn FnMut(usize, usize, u32),
) -> Tails {
    let mut tails: Tails = vec![Vec::new(); func.blocks.len()];
    for b in 0..func.blocks.len() {
        let preds = &func.blocks[b].linear_preds;
        let tail_of = |p: u32| if (p as usize) < b { Some(&tails[p as usize]) } else { back.map(|t| &t[p as usize]) };
        let count: Option<usize> = preds.iter().map(|&p| tail_of(p).map(Vec::len)).sum();
        let mut histories: Vec<Vec<Foot>> = match count {
            _ if preds.is_empty() => vec![Vec::new()],
            Some(n) if n <= MAX_HISTORIES => {
                let mut h: Vec<Vec<Foot>> = Vec::with_capacity(n);
                for &p in preds {
                    for t in tail_of(p).into_iter().flatten() {
                        if !h.contains(t) {
                            h.push(t.clone());
                        }
                    }
                }
                h
            }
            // Entered from later code not known yet, or from too many paths: assume the worst.
            _ => vec![vec![Foot { valu: true, salu: false, wait_states: 1, ..worst_case() }]],
        };
        for (i, foot) in foots[b].iter().enumerate() {
            if pseudo[b][i] {
                continue;
            }
            let n = histories.iter().map(|h| needed_gfx942(h, foot, store_data_wait_states)).max().unwrap_or(0);
            need(b, i, n);
            for history in &mut histories {
                if n > 0 {
                    history.push(Foot { wait_states: n, ..Foot::default() });
                }
                history.push(foot.clone());
                // Only the last few wait states matter.
                let mut ws = 0;
                let keep = history
                    .iter()
                    .rev()
                    .take_while(|h| {
                        let more = ws < MAX_WAIT_STATES;
                        ws += h.wait_states;
                        more
                    })
                    .count();
                history.drain(..history.len() - keep);
            }
        }
        tails[b] = histories;
    }
    tails
}

/// A history entry that conflicts with every rule: a VALU that wrote every register.
fn worst_case() -> Foot {
    let all = Run { start: 0, n: PhysReg::AGPR0 + 256 };
    Foot { valu: true, trans: true, defs: smallvec::smallvec![all], wide_store_data: Some(all), ..Foot::default() }
}

fn resolve_gfx11(func: &mut Function) -> HazardStats {
    let family = func.family;
    let wave64 = func.wave_size == 64;
    let mut stats = HazardStats::default();
    // Every SGPR some VALU reads as a lane mask (only wave64's SALU writes to them matter).
    let masks: Vec<Run> = match wave64 {
        true => func.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| footprint(i, family).masks).collect(),
        false => Vec::new(),
    };
    // The `s_waitcnt_depctr` immediate an instruction needs after it, if any.
    let after = |inst: &Inst| {
        let foot = footprint(inst, family);
        let mut imm = 0xffffu16;
        if foot.trans {
            imm &= DEPCTR_VA_VDST0;
        }
        if wave64 && foot.salu {
            if foot.defs.iter().any(|d| d.overlaps(Run { start: PhysReg::EXEC.0, n: 2 })) {
                imm &= DEPCTR_VA_VDST0;
            }
            if foot.defs.iter().any(|d| masks.iter().any(|m| m.overlaps(*d))) {
                imm &= DEPCTR_SA_SDST0;
            }
        }
        (imm != 0xffff).then_some(imm)
    };
    for block in &mut func.blocks {
        // The block is rebuilt only when something in it needs a wait.
        let needs: Vec<(usize, u16)> =
            block.insts.iter().enumerate().filter_map(|(i, inst)| Some((i, after(inst)?))).collect();
        if needs.is_empty() {
            continue;
        }
        let mut out = Vec::with_capacity(block.insts.len() + needs.len());
        let mut needs = needs.into_iter().peekable();
        for (i, inst) in block.insts.drain(..).enumerate() {
            out.push(inst);
            if let Some((_, imm)) = needs.next_if(|&(at, _)| at == i) {
                out.push(depctr(imm));
                stats.depctrs += 1;
            }
        }
        block.insts = out;
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir_parse::parse_function;
    use isa::processor::TargetId;

    /// The gfx942 hazard pass on one block of `body` for target `id`: the instructions after it.
    fn resolved(id: &str, body: &str) -> Vec<String> {
        let text =
            format!("function k (wave64):\nBB0: /* logical preds:  / linear preds:  / uniform */\n{body}  s_endpgm\n");
        let mut func = parse_function(&text, Family::Gfx9).expect("the test MIR parses");
        let target = Target::new(TargetId::parse(id).unwrap());
        resolve_hazards(&mut func, &target);
        crate::waitcnt::insert_waits(&mut func);
        break_smem_clauses(&mut func, &target);
        func.blocks[0].insts.iter().map(|i| i.opcode.name(Family::Gfx9).to_string()).collect()
    }

    /// A VALU write of the data of a returning 64-bit compare-and-swap (128 bits) right after
    /// it needs gfx942's 2 wait states (issue 14, reproducer 5); an independent operation after
    /// it fills one of them, and the `s_nop` the rest.
    #[test]
    fn wide_store_data_is_not_overwritten_early() {
        let cas = "  v[2:3] = global_atomic_cmpswap_x2 v[4:5], v[6:9] cpol:1\n  v6 = v_mov_b32 0x0\n";
        assert_eq!(resolved("gfx942", cas), ["global_atomic_cmpswap_x2", "s_nop", "v_mov_b32", "s_endpgm"]);
        let filled = format!("{cas}  v10 = v_mov_b32 0x1\n");
        let expected = ["global_atomic_cmpswap_x2", "v_mov_b32", "s_nop", "v_mov_b32", "s_endpgm"];
        assert_eq!(resolved("gfx942", &filled), expected);
    }

    /// A global access reading an SGPR a VALU wrote (`saddr` from `v_readfirstlane`) needs 5
    /// wait states on GFX9 (LLVM's `checkVMEMHazards`); an `s_nop 4` gives them, and an SGPR
    /// from an SALU needs none.
    #[test]
    fn vector_memory_waits_for_a_valu_written_sgpr() {
        let body = "  s4 = v_readfirstlane_b32 v1
  s5 = s_mov_b32 0x0
  global_store_dword v0, v2, s[4:5]
";
        let nop = |f: &[String]| f.iter().filter(|n| *n == "s_nop").count();
        let got = resolved("gfx942", body);
        assert_eq!((nop(&got), got.last().map(String::as_str)), (1, Some("s_endpgm")), "{got:?}");
        let salu = "  s4 = s_mov_b32 0x10
  s5 = s_mov_b32 0x0
  global_store_dword v0, v2, s[4:5]
";
        assert_eq!(resolved("gfx942", salu), ["s_mov_b32", "s_mov_b32", "global_store_dword", "s_endpgm"]);
    }

    /// Independent operations later in the block fill the wait states of a hazard: here the
    /// SGPR mask a compare writes, which a select reads (2 wait states), gets the two
    /// operations after the select in between, and no `s_nop`; an operation that reads what
    /// the select writes, or that the select reads, stays after it.
    #[test]
    fn later_operations_fill_wait_states() {
        let body = "  s[0:1] = v_cmp_eq_u32 0x0, v0 vop3\n  v1 = v_cndmask_b32 v2, v3, s[0:1] vop3\n              v4 = v_mov_b32 0x1\n  v5 = v_mov_b32 0x2\n";
        let order = ["v_cmp_eq_u32", "v_mov_b32", "v_mov_b32", "v_cndmask_b32", "s_endpgm"];
        assert_eq!(resolved("gfx942", body), order);
        let dependent = "  s[0:1] = v_cmp_eq_u32 0x0, v0 vop3\n  v1 = v_cndmask_b32 v2, v3, s[0:1] vop3\n              v4 = v_mov_b32 v1\n  v2 = v_mov_b32 0x2\n";
        let order = ["v_cmp_eq_u32", "s_nop", "v_cndmask_b32", "v_mov_b32", "v_mov_b32", "s_endpgm"];
        assert_eq!(resolved("gfx942", dependent), order);
    }

    /// With XNACK possibly on, the second load of the run writes s4, which the first one read:
    /// an `s_nop` ends the run before it. A load that reads the run's result gets a wait, which
    /// ends the run, and `xnack-` has no replay. Waits end runs where the wait pass puts them:
    /// before a load that overwrites a pending result too (fuzz seed 8400111, where the run
    /// that a wait started went on into a load of s0, read by the run).
    #[test]
    fn smem_runs_do_not_write_what_they_read() {
        let war = "  s6 = s_load_dword s[4:5]\n  s4 = s_load_dword s[8:9]\n";
        assert_eq!(resolved("gfx942", war), ["s_load_dword", "s_nop", "s_load_dword", "s_endpgm"]);
        assert_eq!(resolved("gfx942:xnack-", war), ["s_load_dword", "s_load_dword", "s_endpgm"]);
        let own_base = "  s6 = s_load_dword s[4:5]\n  s8 = s_load_dword s[8:9]\n";
        assert_eq!(resolved("gfx942", own_base), ["s_load_dword", "s_nop", "s_load_dword", "s_endpgm"]);
        let raw = "  s6 = s_load_dword s[4:5]\n  s7 = s_load_dword s[6:7]\n";
        assert_eq!(resolved("gfx942", raw), ["s_load_dword", "s_waitcnt", "s_load_dword", "s_endpgm"]);
        let apart = "  s6 = s_load_dword s[4:5]\n  s10 = s_load_dword s[8:9]\n";
        assert_eq!(resolved("gfx942", apart), ["s_load_dword", "s_load_dword", "s_endpgm"]);
        let after_wait = "  s[2:3] = s_load_dwordx2 s[0:1]\n  s[4:5] = s_load_dwordx2 s[0:1] offset:16\n  \
            s4 = s_load_dword s[0:1] offset:36\n  s0 = s_load_dword s[2:3] offset:4\n";
        assert_eq!(
            resolved("gfx942", after_wait),
            ["s_load_dwordx2", "s_load_dwordx2", "s_waitcnt", "s_load_dword", "s_nop", "s_load_dword", "s_endpgm"]
        );
    }
}
