//! The allocation validator, after regalloc2's checker: it re-checks an allocation
//! symbolically, knowing nothing of how it was made. Given the function before allocation and
//! after it (after assignment, with phis and parallel copies, or after SSA elimination, with
//! moves only), it tracks which values each physical register holds at every point and checks
//! that every instruction of the input reads, in the register the allocation gave each
//! operand, the value that operand's definition wrote.
//!
//! Values are 32-bit pieces: each dword of each temporary, and constants. Copies in the input
//! (`p_parallelcopy`, `p_split_vector`, `p_create_vector`) define their results as the same
//! values as their sources, so it does not matter whether the output still has them or has
//! turned them into moves. A register holds a *set* of values (a move copies the set; an
//! instruction's write replaces it with its result); at a join, a register holds what it
//! holds at the end of every predecessor: VGPRs merge over the logical CFG (lanes that skip a
//! block keep their values there), SGPRs and SCC over the linear CFG, to a fixpoint over
//! loops. A phi's result is in a register at the start of its block if, on every incoming
//! edge, that register held the phi's operand. The output's instructions must be the input's
//! in order (same operations, same temporaries, fixed registers honoured), with only moves
//! added (`p_parallelcopy`, `s_mov_b32`, `v_mov_b32`, `v_readfirstlane_b32`, SCC read with
//! `s_cselect_b32` and written with `s_cmp_lg_u32`, AGPRs written, read and copied with
//! `v_accvgpr_write_b32`, `v_accvgpr_read_b32` and `v_accvgpr_mov_b32`, swaps as three
//! exclusive-ors); tuples must be aligned and inside their file (SGPRs, VGPRs, or the AGPRs
//! the processor has).
//!
//! Spill code is checked as what it means: each spill slot (an SGPR lane of a linear VGPR,
//! or a dword of scratch) is tracked like a register, `p_spill` writes it with what the
//! value's register holds, and `p_reload` must find in it, on every path (lanes merge over
//! the linear CFG, scratch over the logical one), the value it gives back: the value stored
//! in that slot, since spilling gives each spilled value a slot of its own.
//!
//! Rematerialization is checked as what it means too: a value spilling recomputed
//! ([`Remat`]) must be defined by an operation that may be repeated
//! ([`crate::spill::rematerializable`]) and by the same operation as the value it stands for,
//! reading the same values (a reload of a value, or a phi joining versions of one value, is
//! that value); it then is that value.
//!
//! Two live values sharing a register cannot pass: the later write replaces the other value,
//! and its next read fails. One case the dataflow cannot see is kept out structurally: no
//! VGPR or AGPR is written in a block outside the logical CFG (its lanes belong to other paths), and
//! linear VGPRs never share registers with other VGPR values.

use crate::demand::{alignment, file_limit};
use crate::liveness::is_phi;
use crate::spill::{rematerializable, Remat};
use crate::ssa_elim::{vgpr_swap, xor_swap};
use isa::mir::{DisplayInst, Function, Inst, OperandKind};
use isa::opcode::Opcode;
use isa::processor::Processor;
use isa::reg::{reg_name, PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;
use std::collections::HashMap;
use thiserror::Error;

/// An allocation the validator rejects: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("@{kernel}, BB{block}, instruction {index} `{inst}`: {problem}")]
pub struct ValidationError {
    /// The kernel.
    pub kernel: String,
    /// The block.
    pub block: u32,
    /// The instruction's index in the block of the allocated function.
    pub index: usize,
    /// The instruction, printed.
    pub inst: String,
    /// What is wrong.
    pub problem: String,
}

/// A spill slot: an SGPR lane (the linear VGPR's temporary id, the lane) or a dword of
/// scratch (`SCRATCH`, the byte offset).
type SlotKey = (u32, u32);

/// The first of [`SlotKey`] for scratch.
const SCRATCH: u32 = u32::MAX;

/// For `p_spill` and `p_reload`: the value stored or loaded (its temporary, and for a
/// `p_spill` the operand) and the slot key of each of its dwords.
fn spill_slots(inst: &Inst) -> Option<(Temp, SmallVec<[SlotKey; 4]>)> {
    let (value, slot) = match inst.opcode {
        Opcode::PSpill => (inst.ops.first()?.temp_of()?, inst.ops.get(1..)?),
        Opcode::PReload => (inst.defs.first()?.temp?, &inst.ops[..]),
        _ => return None,
    };
    let keys = (0..u32::from(value.rc.size))
        .map(|d| match slot {
            [lv, lane] => Some((lv.temp_of()?.id, u32::try_from(lane.constant_value()?).ok()? + d)),
            [offset] => Some((SCRATCH, u32::try_from(offset.constant_value()?).ok()? + 4 * d)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    Some((value, keys))
}

/// The registers a function names, numbered densely (states are vectors over them).
struct Slots {
    /// Per register number (the [`PhysReg`] numbering, 0..768): its slot, or u32::MAX.
    index: Vec<u32>,
    /// Per slot: whether it is a VGPR (or a scratch spill slot: both follow the logical CFG).
    vgpr: Vec<bool>,
    /// The slots of the spill slots, after the registers'.
    spill: HashMap<SlotKey, usize>,
}

impl Slots {
    const REGS: usize = 768;

    fn new(after: &Function) -> Slots {
        let mut used = vec![false; Self::REGS];
        let mut mark = |reg: Option<PhysReg>, size: u8| {
            if let Some(r) = reg {
                for x in r.0..r.0 + u16::from(size) {
                    if let Some(u) = used.get_mut(usize::from(x)) {
                        *u = true;
                    }
                }
            }
        };
        for inst in after.blocks.iter().flat_map(|b| b.insts.iter()) {
            inst.defs.iter().for_each(|d| mark(d.reg, d.rc.size));
            inst.ops.iter().for_each(|o| mark(o.reg, o.rc().map_or(1, |rc| rc.size)));
        }
        let mut index = vec![u32::MAX; Self::REGS];
        let mut vgpr = Vec::new();
        for (r, _) in used.iter().enumerate().filter(|(_, &u)| u) {
            index[r] = vgpr.len() as u32;
            vgpr.push(PhysReg(r as u16).reg_type() != RegType::Sgpr);
        }
        let mut spill = HashMap::new();
        for inst in after.blocks.iter().flat_map(|b| b.insts.iter()) {
            for key in spill_slots(inst).into_iter().flat_map(|(_, keys)| keys) {
                spill.entry(key).or_insert_with(|| {
                    vgpr.push(key.0 == SCRATCH);
                    vgpr.len() - 1
                });
            }
        }
        Slots { index, vgpr, spill }
    }

    fn count(&self) -> usize {
        self.vgpr.len()
    }

    /// The slot of a register, if the function names it.
    fn of(&self, reg: u16) -> Option<usize> {
        self.index.get(usize::from(reg)).filter(|&&i| i != u32::MAX).map(|&i| i as usize)
    }
}

/// The values a register holds.
type Set = SmallVec<[u32; 2]>;

/// How an instruction of the output relates to the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// Instruction `j` of the input's block.
    Original(usize),
    /// A move, copy or SCC transfer the allocation added.
    Move,
    /// The first of three exclusive-ors swapping two registers.
    Swap(u16, u16),
    /// The other two of a swap.
    Skip,
    /// A phi (handled at the block's start).
    Phi,
}

/// Value numbering: union-find over the dwords of the input's temporaries and constants.
struct Values {
    base: Vec<u32>,
    names: Vec<(Temp, u8)>,
    parent: Vec<u32>,
    consts: HashMap<u32, u32>,
    const_of: HashMap<u32, u32>,
    /// The value each spill slot holds: every `p_spill` to a slot and every `p_reload` from
    /// it are one value (the pass gives each spilled value a slot of its own).
    spilled: HashMap<SlotKey, u32>,
    undef: u32,
}

impl Values {
    fn new(before: &Function) -> Values {
        let mut base = Vec::new();
        let mut names = Vec::new();
        for t in before.blocks.iter().flat_map(|b| b.insts.iter()).flat_map(|i| i.defs.iter()).filter_map(|d| d.temp) {
            let id = t.id as usize;
            if base.len() <= id {
                base.resize(id + 1, u32::MAX);
            }
            base[id] = names.len() as u32;
            names.extend((0..t.rc.size).map(|i| (t, i)));
        }
        let undef = names.len() as u32;
        let parent = (0..=undef).collect();
        let mut values = Values {
            base,
            names,
            parent,
            consts: HashMap::new(),
            const_of: HashMap::new(),
            spilled: HashMap::new(),
            undef,
        };
        // Copies define their results as their sources.
        for inst in before.blocks.iter().flat_map(|b| b.insts.iter()) {
            let mut pairs: SmallVec<[(u32, u32); 8]> = SmallVec::new();
            match inst.opcode {
                Opcode::PParallelCopy => {
                    for (d, o) in inst.defs.iter().zip(&inst.ops) {
                        let Some(t) = d.temp else { continue };
                        for i in 0..t.rc.size {
                            if let (Some(a), Some(b)) = (values.slot_of(t, i), values.operand(o, i)) {
                                pairs.push((a, b));
                            }
                        }
                    }
                }
                Opcode::PSplitVector => {
                    let Some(src) = inst.ops.first() else { continue };
                    let mut offset = 0;
                    for t in inst.defs.iter().filter_map(|d| d.temp) {
                        for i in 0..t.rc.size {
                            if let (Some(a), Some(b)) = (values.slot_of(t, i), values.operand(src, offset + i)) {
                                pairs.push((a, b));
                            }
                        }
                        offset += t.rc.size;
                    }
                }
                Opcode::PCreateVector => {
                    let Some(t) = inst.defs.first().and_then(|d| d.temp) else { continue };
                    let mut offset = 0;
                    for o in &inst.ops {
                        let size = o.rc().map_or(1, |rc| rc.size);
                        for i in 0..size {
                            if let (Some(a), Some(b)) = (values.slot_of(t, offset + i), values.operand(o, i)) {
                                pairs.push((a, b));
                            }
                        }
                        offset += size;
                    }
                }
                Opcode::PSpill | Opcode::PReload => {
                    let Some((t, keys)) = spill_slots(inst) else { continue };
                    for (d, key) in keys.into_iter().enumerate() {
                        let next = values.parent.len() as u32;
                        let slot = *values.spilled.entry(key).or_insert(next);
                        if slot == next {
                            values.parent.push(next);
                        }
                        if let Some(a) = values.slot_of(t, d as u8) {
                            pairs.push((a, slot));
                        }
                    }
                }
                _ => {}
            }
            for (a, b) in pairs {
                values.union(a, b);
            }
        }
        values
    }

    fn slot_of(&self, t: Temp, i: u8) -> Option<u32> {
        let base = *self.base.get(t.id as usize)?;
        (base != u32::MAX && i < t.rc.size).then(|| base + u32::from(i))
    }

    /// The node of a constant.
    fn constant(&mut self, c: u32) -> u32 {
        if let Some(&n) = self.consts.get(&c) {
            return n;
        }
        let n = self.parent.len() as u32;
        self.parent.push(n);
        self.consts.insert(c, n);
        self.const_of.insert(n, c);
        n
    }

    /// The node of dword `i` of what an operand reads (None for a physical register).
    fn operand(&mut self, o: &isa::mir::Operand, i: u8) -> Option<u32> {
        match o.kind {
            OperandKind::Temp(t) => self.slot_of(t, i),
            OperandKind::Const(_) => Some(self.constant(o.constant_dword(i.into())?)),
            OperandKind::Undef(_) => Some(self.undef),
            OperandKind::Phys(_) => None,
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // Undefined wins: a copy of undef is anything.
            let (child, root) = if ra == self.undef { (rb, ra) } else { (ra, rb) };
            self.parent[child as usize] = root;
        }
    }

    /// The value of dword `i` of an operand (None for a physical register or an unknown
    /// temporary).
    fn value(&mut self, o: &isa::mir::Operand, i: u8) -> Option<u32> {
        let n = self.operand(o, i)?;
        Some(self.find(n))
    }

    /// Phis whose operands are all one value (or phis of that value, optimistically around
    /// loops) become that value, and each rematerialized value the value it stands for when
    /// its definition repeats the original's, until nothing changes. Gives the rematerialized
    /// values whose definitions do not, with the block and index of the definition.
    fn join_versions(&mut self, before: &Function, remats: &[Remat]) -> Vec<(Remat, usize, usize)> {
        let mut def_at: HashMap<u32, (usize, usize)> = HashMap::new();
        let mut phis: Vec<&Inst> = Vec::new();
        for (b, block) in before.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(t) = inst.defs.first().and_then(|d| d.temp) {
                    def_at.insert(t.id, (b, i));
                }
                if is_phi(inst.opcode) && inst.defs.first().is_some_and(|d| d.temp.is_some()) {
                    phis.push(inst);
                }
            }
        }
        let mut open: Vec<Remat> = remats.to_vec();
        loop {
            let mut changed = self.join_phis(&phis);
            let mut still = Vec::new();
            for r in open {
                let found = def_at.get(&r.value.id).zip(def_at.get(&r.original.id));
                let same = found.is_some_and(|(&(vb, vi), &(ob, oi))| {
                    self.repeats(&before.blocks[vb].insts[vi], &before.blocks[ob].insts[oi])
                });
                if same {
                    for d in 0..r.value.rc.size {
                        if let (Some(a), Some(b)) = (self.slot_of(r.value, d), self.slot_of(r.original, d)) {
                            self.union(a, b);
                        }
                    }
                    changed = true;
                } else {
                    still.push(r);
                }
            }
            open = still;
            if !changed || open.is_empty() {
                break;
            }
        }
        open.into_iter()
            .map(|r| {
                let (b, i) = def_at.get(&r.value.id).copied().unwrap_or((0, 0));
                (r, b, i)
            })
            .collect()
    }

    /// Whether `again` repeats `original`: an operation that may be repeated, the same but for
    /// its result, reading the same values.
    fn repeats(&mut self, again: &Inst, original: &Inst) -> bool {
        rematerializable(again)
            && again.opcode == original.opcode
            && again.vop3 == original.vop3
            && again.fields == original.fields
            && again.defs.len() == original.defs.len()
            && again.defs.iter().zip(&original.defs).all(|(x, y)| x.rc == y.rc)
            && again.ops.len() == original.ops.len()
            && again.ops.iter().zip(&original.ops).all(|(x, y)| {
                let size = x.rc().map_or(1, |rc| rc.size);
                x.rc() == y.rc()
                    && (0..size).all(|d| {
                        let (a, b) = (self.value(x, d), self.value(y, d));
                        a.is_some() && a == b
                    })
            })
    }

    /// One round of [`Values::join_versions`] over the phis: optimistic (a phi whose
    /// operands are one value, or phis not yet known otherwise, is that value). Gives whether
    /// any phi joined a value.
    fn join_phis(&mut self, phis: &[&Inst]) -> bool {
        const TOP: u32 = u32::MAX;
        const BOTTOM: u32 = u32::MAX - 1;
        // Per dword of each phi: its phi and dword, and the class (a root of the union-find)
        // it belongs to. A phi's result may already share its class with other names (a tuple
        // built of it and spilled, say): what is assumed is the class's, met over all its phis.
        let mut nodes: Vec<(usize, u8, u32)> = Vec::new();
        for (p, phi) in phis.iter().enumerate() {
            let t = phi.defs[0].temp.expect("phis define temporaries");
            for d in 0..t.rc.size {
                if let Some(n) = self.slot_of(t, d) {
                    nodes.push((p, d, self.find(n)));
                }
            }
        }
        let mut index: HashMap<u32, usize> = HashMap::new();
        for &(_, _, root) in &nodes {
            let next = index.len();
            index.entry(root).or_insert(next);
        }
        let mut assumed = vec![TOP; index.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for &(p, d, root) in &nodes {
                let class = index[&root];
                let mut meet = TOP;
                for op in &phis[p].ops {
                    let v = match self.value(op, d) {
                        Some(r) if r == self.undef => BOTTOM,
                        Some(r) if r == root => continue,
                        Some(r) => index.get(&r).map_or(r, |&q| assumed[q]),
                        None => BOTTOM,
                    };
                    if v == TOP || v == root {
                        continue;
                    }
                    meet = if meet == TOP || meet == v { v } else { BOTTOM };
                }
                if meet == TOP || meet == assumed[class] || assumed[class] == BOTTOM {
                    continue;
                }
                assumed[class] = if assumed[class] == TOP { meet } else { BOTTOM };
                changed = true;
            }
        }
        let mut joined = false;
        for (&root, &class) in &index {
            if assumed[class] != TOP && assumed[class] != BOTTOM {
                self.union(root, assumed[class]);
                joined = true;
            }
        }
        joined
    }

    fn describe(&self, v: u32) -> String {
        if v == self.undef {
            "undef".into()
        } else if let Some(c) = self.const_of.get(&v) {
            format!("{c:#x}")
        } else if let Some(&(t, i)) = self.names.get(v as usize) {
            if t.rc.size > 1 {
                format!("{t}[{i}]")
            } else {
                t.to_string()
            }
        } else {
            format!("value {v}")
        }
    }

    fn describe_set(&self, set: &Set) -> String {
        if set.is_empty() {
            "nothing known".into()
        } else {
            set.iter().map(|&v| self.describe(v)).collect::<Vec<_>>().join(" = ")
        }
    }
}

/// Whether two instructions are the same but for registers and kill flags.
fn same(b: &Inst, a: &Inst) -> bool {
    b.opcode == a.opcode
        && b.vop3 == a.vop3
        && b.fields == a.fields
        && b.defs.len() == a.defs.len()
        && b.ops.len() == a.ops.len()
        && b.defs.iter().zip(&a.defs).all(|(x, y)| x.temp == y.temp && x.rc == y.rc)
        && b.ops.iter().zip(&a.ops).all(|(x, y)| match (x.kind, y.kind) {
            (OperandKind::Phys(_), OperandKind::Phys(_)) => x.kind == y.kind && x.reg == y.reg,
            _ => x.kind == y.kind,
        })
}

/// Copies of the input, whose results are their sources' values.
fn copy_like(op: Opcode) -> bool {
    matches!(op, Opcode::PParallelCopy | Opcode::PSplitVector | Opcode::PCreateVector)
}

/// Whether an output instruction the input does not have is a move the allocation may add.
fn move_like(inst: &Inst) -> bool {
    let no_temps = inst.defs.iter().all(|d| d.temp.is_none()) && inst.ops.iter().all(|o| o.temp_of().is_none());
    match inst.opcode {
        Opcode::PParallelCopy => true,
        Opcode::SMovB32
        | Opcode::VMovB32
        | Opcode::VReadfirstlaneB32
        | Opcode::SCselectB32
        | Opcode::SCmpLgU32
        | Opcode::VAccvgprReadB32
        | Opcode::VAccvgprWriteB32
        | Opcode::VAccvgprMovB32 => no_temps && !inst.defs.is_empty() && !inst.ops.is_empty(),
        Opcode::SXorB32 => no_temps && inst.ops.len() == 2 && !inst.defs.is_empty(),
        Opcode::VSwapB32 => no_temps && inst.ops.len() == 2 && inst.defs.len() == 2,
        _ => false,
    }
}

struct Checker<'a> {
    before: &'a Function,
    after: &'a Function,
    proc: &'a Processor,
    values: Values,
    kinds: Vec<Vec<Kind>>,
    slots: Slots,
    /// VGPR slots written by linear VGPRs.
    linear_vgpr: Vec<bool>,
    exits: Vec<Option<Vec<Set>>>,
}

/// Checks that `after` is a correct register allocation of `before` on `proc`: see the
/// module documentation for what that means.
pub fn validate(before: &Function, after: &Function, proc: &Processor) -> Result<(), ValidationError> {
    validate_spilled(before, after, proc, &[])
}

/// [`validate`] for a `before` that spilling rematerialized `remats` in.
pub fn validate_spilled(
    before: &Function,
    after: &Function,
    proc: &Processor,
    remats: &[Remat],
) -> Result<(), ValidationError> {
    let mut c = Checker {
        before,
        after,
        proc,
        values: Values::new(before),
        kinds: Vec::new(),
        linear_vgpr: Vec::new(),
        slots: Slots::new(after),
        exits: vec![None; after.blocks.len()],
    };
    c.linear_vgpr = vec![false; c.slots.count()];
    c.structure()?;
    if !remats.is_empty() {
        if let Some(&(r, b, j)) = c.values.join_versions(before, remats).first() {
            let i = c.kinds[b].iter().position(|&k| k == Kind::Original(j)).unwrap_or(0);
            let problem = format!("recomputes {} as {}, but not as its definition", r.original, r.value);
            return Err(c.error(b, i, problem));
        }
    }
    // The dataflow to a fixpoint (a worklist in linear order: acyclic code is done in one
    // pass), then once more with the checks.
    let n = after.blocks.len();
    let mut queued = vec![true; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n).collect();
    while let Some(b) = queue.pop_front() {
        queued[b] = false;
        let Some(mut state) = c.entry_state(b, false)? else { continue };
        for i in 0..after.blocks[b].insts.len() {
            c.step(b, i, &mut state, false)?;
        }
        if c.exits[b].as_ref() != Some(&state) {
            c.exits[b] = Some(state);
            let block = &after.blocks[b];
            for &s in block.logical_succs.iter().chain(&block.linear_succs) {
                if !std::mem::replace(&mut queued[s as usize], true) {
                    queue.push_back(s as usize);
                }
            }
        }
    }
    for b in 0..after.blocks.len() {
        let Some(mut state) = c.entry_state(b, true)? else { continue };
        for i in 0..after.blocks[b].insts.len() {
            c.step(b, i, &mut state, true)?;
        }
    }
    Ok(())
}

impl<'a> Checker<'a> {
    fn error(&self, b: usize, i: usize, problem: String) -> ValidationError {
        let inst = self.after.blocks.get(b).and_then(|blk| blk.insts.get(i));
        ValidationError {
            kernel: self.after.name.clone(),
            block: b as u32,
            index: i,
            inst: inst.map_or_else(String::new, |inst| DisplayInst(inst, self.after.family).to_string()),
            problem,
        }
    }

    /// Same blocks and edges; the output's instructions are the input's plus moves; fixed
    /// registers kept; linear VGPRs apart.
    fn structure(&mut self) -> Result<(), ValidationError> {
        let (before, after): (&'a Function, &'a Function) = (self.before, self.after);
        if before.blocks.len() != after.blocks.len() {
            return Err(self.error(
                0,
                0,
                format!("{} blocks, the input has {}", after.blocks.len(), before.blocks.len()),
            ));
        }
        for (b, (x, y)) in before.blocks.iter().zip(&after.blocks).enumerate() {
            if x.logical_preds != y.logical_preds
                || x.linear_preds != y.linear_preds
                || x.logical_succs != y.logical_succs
                || x.linear_succs != y.linear_succs
            {
                return Err(self.error(b, 0, "the block's edges differ from the input's".into()));
            }
            let kinds = self.match_block(b)?;
            self.kinds.push(kinds);
        }
        // Linear VGPRs keep registers of their own.
        let mut logical_vgpr = vec![false; self.slots.count()];
        for (b, block) in after.blocks.iter().enumerate() {
            let linear_only = b != 0 && block.logical_preds.is_empty() && block.logical_succs.is_empty();
            for (i, inst) in block.insts.iter().enumerate() {
                for d in &inst.defs {
                    let (Some(r), true) = (d.reg, d.rc.ty != RegType::Sgpr) else { continue };
                    let linear = d.temp.is_some_and(|t| t.rc.linear);
                    if linear_only && !linear && self.kinds[b][i] != Kind::Phi {
                        let what = if d.rc.ty == RegType::Agpr { "an AGPR" } else { "a VGPR" };
                        return Err(self.error(b, i, format!("writes {what} in a block outside the logical CFG")));
                    }
                    for s in (r.0..r.0 + u16::from(d.rc.size)).filter_map(|x| self.slots.of(x)) {
                        if linear {
                            self.linear_vgpr[s] = true;
                        } else if d.temp.is_some() {
                            logical_vgpr[s] = true;
                        }
                    }
                }
            }
        }
        if (0..self.slots.count()).any(|s| self.linear_vgpr[s] && logical_vgpr[s]) {
            return Err(self.error(0, 0, "a VGPR holds both linear and other VGPR values".into()));
        }
        Ok(())
    }

    /// Pairs the output's instructions of block `b` with the input's.
    fn match_block(&self, b: usize) -> Result<Vec<Kind>, ValidationError> {
        let (before, after): (&'a Function, &'a Function) = (self.before, self.after);
        let input = &before.blocks[b].insts;
        let output = &after.blocks[b].insts;
        let mut kinds = Vec::with_capacity(output.len());
        let mut j = 0;
        let mut i = 0;
        while i < output.len() {
            let inst = &output[i];
            if is_phi(inst.opcode) {
                kinds.push(Kind::Phi);
                i += 1;
                continue;
            }
            loop {
                while j < input.len() && is_phi(input[j].opcode) {
                    j += 1;
                }
                if j < input.len() && same(&input[j], inst) {
                    self.check_fixed(b, i, &input[j], inst)?;
                    kinds.push(Kind::Original(j));
                    j += 1;
                    break;
                }
                if move_like(inst) {
                    if inst.opcode == Opcode::VSwapB32 {
                        let (Some(a), Some(x)) = (inst.defs[0].reg, inst.defs[1].reg) else {
                            return Err(self.error(b, i, "a swap without registers".into()));
                        };
                        if output[i] != vgpr_swap(a.0, x.0) {
                            return Err(self.error(b, i, "a swap that does not exchange its registers".into()));
                        }
                        kinds.push(Kind::Swap(a.0, x.0));
                    } else if inst.opcode == Opcode::SXorB32 {
                        let (a, x) = (inst.defs[0].reg, inst.ops[1].reg);
                        let (Some(a), Some(x)) = (a, x) else {
                            return Err(self.error(b, i, "an exclusive-or without registers".into()));
                        };
                        let want = xor_swap(a.0, x.0);
                        if output.get(i..i + 3) != Some(&want[..]) {
                            return Err(self.error(b, i, "an exclusive-or that is not part of a swap".into()));
                        }
                        kinds.extend([Kind::Swap(a.0, x.0), Kind::Skip, Kind::Skip]);
                        i += 2;
                    } else {
                        kinds.push(Kind::Move);
                    }
                    break;
                }
                if j < input.len() && copy_like(input[j].opcode) {
                    j += 1;
                    continue;
                }
                let expected = input
                    .get(j)
                    .map_or("the end of the block".into(), |x| format!("`{}`", DisplayInst(x, self.before.family)));
                return Err(self.error(b, i, format!("is not in the input here (expected {expected})")));
            }
            i += 1;
        }
        if let Some(rest) = input[j..].iter().find(|x| !is_phi(x.opcode) && !copy_like(x.opcode)) {
            let text = DisplayInst(rest, self.before.family).to_string();
            return Err(self.error(b, output.len(), format!("the input's `{text}` is missing")));
        }
        Ok(kinds)
    }

    /// Every temporary has a register, aligned and inside its file, and fixed ones stay.
    fn check_fixed(&self, b: usize, i: usize, input: &Inst, output: &Inst) -> Result<(), ValidationError> {
        let regs = input.defs.iter().zip(&output.defs).map(|(x, y)| (x.temp, x.reg, y.reg));
        let regs = regs.chain(input.ops.iter().zip(&output.ops).map(|(x, y)| (x.temp_of(), x.reg, y.reg)));
        for (temp, fixed, reg) in regs {
            let Some(t) = temp else { continue };
            let Some(reg) = reg else { return Err(self.error(b, i, format!("{t} has no register"))) };
            if fixed.is_some_and(|f| f != reg) {
                return Err(self.error(
                    b,
                    i,
                    format!("{t} must be in {} but is in {}", name(fixed.unwrap(), t.rc), name(reg, t.rc)),
                ));
            }
            if fixed.is_none() {
                self.check_register(t.rc, reg)
                    .map_err(|p| self.error(b, i, format!("{t} in {}: {p}", name(reg, t.rc))))?;
            }
        }
        Ok(())
    }

    /// Whether a value of class `rc` may live in `reg`: an aligned tuple inside its file, or a
    /// special register that can hold it.
    fn check_register(&self, rc: RegClass, reg: PhysReg) -> Result<(), String> {
        let size = u16::from(rc.size);
        let (index, limit) = match rc.ty {
            RegType::Sgpr if reg.reg_type() == RegType::Sgpr && reg.0 >= self.proc.sgprs || reg == PhysReg::SCC => {
                let fits = match reg {
                    PhysReg::VCC | PhysReg::EXEC => size <= 2,
                    PhysReg::VCC_HI | PhysReg::EXEC_HI | PhysReg::M0 | PhysReg::SCC => size == 1,
                    _ => false,
                };
                return if fits { Ok(()) } else { Err("not a register that can hold it".into()) };
            }
            ty if reg.reg_type() == ty => (reg.index(), file_limit(self.proc, ty)),
            _ => return Err("the wrong register file".into()),
        };
        if index % alignment(rc, self.proc) != 0 {
            return Err(format!("not aligned to {}", alignment(rc, self.proc)));
        }
        if index + size > limit {
            return Err(format!("past the file's {limit} registers"));
        }
        Ok(())
    }

    /// The registers' values at the start of block `b`, or None if no predecessor has been
    /// visited yet.
    fn entry_state(&mut self, b: usize, check: bool) -> Result<Option<Vec<Set>>, ValidationError> {
        let after: &'a Function = self.after;
        let block = &after.blocks[b];
        if b == 0 {
            return Ok(Some(vec![Set::new(); self.slots.count()]));
        }
        let meet = |exits: &[Option<Vec<Set>>], preds: &[u32]| -> Option<Vec<Set>> {
            let mut acc: Option<Vec<Set>> = None;
            for p in preds.iter().filter_map(|&p| exits[p as usize].as_ref()) {
                match &mut acc {
                    None => acc = Some(p.clone()),
                    Some(a) => a.iter_mut().zip(p).for_each(|(x, y)| x.retain(|v| y.contains(v))),
                }
            }
            acc
        };
        let logical = meet(&self.exits, &block.logical_preds);
        let linear = meet(&self.exits, &block.linear_preds);
        if logical.is_none() && linear.is_none() {
            return Ok(None);
        }
        let mut state = vec![Set::new(); self.slots.count()];
        for (s, v) in state.iter_mut().enumerate() {
            let from = if self.slots.vgpr[s] && !self.linear_vgpr[s] { &logical } else { &linear };
            if let Some(from) = from {
                *v = from[s].clone();
            }
        }
        let after_phis = block.insts.iter().take_while(|i| is_phi(i.opcode)).count();
        if after_phis > 0 {
            self.phis_with_registers(b, after_phis, &mut state, check)?;
        } else {
            self.infer_phis(b, &mut state);
        }
        Ok(Some(state))
    }

    /// The output's phis (with registers): each writes its register with what its operand's
    /// register held at the end of every visited predecessor, all at once.
    fn phis_with_registers(
        &mut self,
        b: usize,
        count: usize,
        state: &mut [Set],
        check: bool,
    ) -> Result<(), ValidationError> {
        let after: &'a Function = self.after;
        let block = &after.blocks[b];
        let mut writes: Vec<(usize, Set)> = Vec::new();
        for (i, phi) in block.insts[..count].iter().enumerate() {
            let preds = if phi.opcode == Opcode::PLinearPhi { &block.linear_preds } else { &block.logical_preds };
            let def = phi.defs[0];
            let (Some(t), Some(reg)) = (def.temp, def.reg) else {
                return Err(self.error(b, i, "a phi without a register".into()));
            };
            if check {
                self.check_register(t.rc, reg)
                    .map_err(|p| self.error(b, i, format!("{t} in {}: {p}", name(reg, t.rc))))?;
            }
            for d in 0..t.rc.size {
                let Some(want) = self.values.slot_of(t, d).map(|n| self.values.find(n)) else {
                    return Err(self.error(b, i, format!("{t} is not in the input")));
                };
                let mut acc: Option<Set> = None;
                let mut all = true;
                let mut visited = false;
                for (k, &p) in preds.iter().enumerate() {
                    let Some(exit) = self.exits[p as usize].as_ref() else { continue };
                    visited = true;
                    let op = phi.ops[k];
                    let Some(v) = self.values.value(&op, d) else { continue };
                    if v == self.values.undef {
                        continue;
                    }
                    let held: Set = match op.kind {
                        OperandKind::Const(_) => SmallVec::from_slice(&[v]),
                        _ => match op.reg.and_then(|r| self.slots.of(r.0 + u16::from(d))) {
                            Some(s) => exit[s].clone(),
                            None => return Err(self.error(b, i, format!("operand {k} has no register"))),
                        },
                    };
                    if !held.contains(&v) {
                        all = false;
                        if check {
                            let held = self.values.describe_set(&held);
                            let what = self.values.describe(v);
                            return Err(self.error(
                                b,
                                i,
                                format!("from BB{p} it reads {what} but the register holds {held}"),
                            ));
                        }
                    }
                    acc = Some(match acc {
                        None => held,
                        Some(mut a) => {
                            a.retain(|x| held.contains(x));
                            a
                        }
                    });
                }
                let mut set = acc.unwrap_or_default();
                if all && visited && !set.contains(&want) {
                    set.push(want);
                }
                match self.slots.of(reg.0 + u16::from(d)) {
                    Some(s) => writes.push((s, set)),
                    None => return Err(self.error(b, i, "a phi in an untracked register".into())),
                }
            }
        }
        for (s, set) in writes {
            state[s] = set;
        }
        Ok(())
    }

    /// The input's phis, when the output has turned them into copies: a phi's value is in
    /// every register of its file that held its operand at the end of every visited
    /// predecessor.
    fn infer_phis(&mut self, b: usize, state: &mut [Set]) {
        let before: &'a Function = self.before;
        let block = &before.blocks[b];
        for phi in block.insts.iter().take_while(|i| is_phi(i.opcode)) {
            let preds = if phi.opcode == Opcode::PLinearPhi { &block.linear_preds } else { &block.logical_preds };
            let Some(t) = phi.defs.first().and_then(|d| d.temp) else { continue };
            let vgpr = t.rc.ty != RegType::Sgpr;
            for d in 0..t.rc.size {
                let Some(want) = self.values.slot_of(t, d).map(|n| self.values.find(n)) else { continue };
                let mut wanted: SmallVec<[(usize, u32); 2]> = SmallVec::new();
                for (k, &p) in preds.iter().enumerate() {
                    if self.exits[p as usize].is_some() {
                        if let Some(v) = phi.ops.get(k).and_then(|o| self.values.value(o, d)) {
                            wanted.push((p as usize, v));
                        }
                    }
                }
                if wanted.is_empty() {
                    continue;
                }
                for s in (0..self.slots.count()).filter(|&s| self.slots.vgpr[s] == vgpr) {
                    let holds = wanted.iter().all(|&(p, v)| {
                        v == self.values.undef || self.exits[p].as_ref().is_some_and(|e| e[s].contains(&v))
                    });
                    if holds && !state[s].contains(&want) {
                        state[s].push(want);
                    }
                }
            }
        }
    }

    /// Applies instruction `i` of block `b` to `state`, checking its reads if `check`.
    fn step(&mut self, b: usize, i: usize, state: &mut [Set], check: bool) -> Result<(), ValidationError> {
        let after: &'a Function = self.after;
        let inst = &after.blocks[b].insts[i];
        let slots = &self.slots;
        let slot_of = |reg: Option<PhysReg>, d: u8| reg.and_then(|r| slots.of(r.0 + u16::from(d)));
        match self.kinds[b][i] {
            Kind::Phi | Kind::Skip => {}
            Kind::Swap(a, x) => {
                let (Some(a), Some(x)) = (self.slots.of(a), self.slots.of(x)) else {
                    return Err(self.error(b, i, "an untracked register".into()));
                };
                state.swap(a, x);
                if let (Opcode::SXorB32, Some(scc)) = (inst.opcode, self.slots.of(PhysReg::SCC.0)) {
                    state[scc].clear();
                }
            }
            Kind::Original(_) | Kind::Move => {
                let original = matches!(self.kinds[b][i], Kind::Original(_));
                if check || !original {
                    for (k, op) in inst.ops.iter().enumerate() {
                        let Some(t) = op.temp_of() else { continue };
                        for d in 0..t.rc.size {
                            let Some(v) = self.values.value(op, d) else {
                                return Err(self.error(b, i, format!("{t} is not in the input")));
                            };
                            let Some(s) = slot_of(op.reg, d) else {
                                return Err(self.error(b, i, format!("operand {k} ({t}) is in no tracked register")));
                            };
                            if check && v != self.values.undef && !state[s].contains(&v) {
                                let held = self.values.describe_set(&state[s]);
                                let r = name(op.reg.expect("checked").advance(u16::from(d)), RegClass::S1);
                                return Err(self.error(
                                    b,
                                    i,
                                    format!("reads {} from {r}, which holds {held}", self.values.describe(v)),
                                ));
                            }
                        }
                    }
                }
                // Copies write their sources' sets; other instructions their own values.
                let copies = if original { copy_like(inst.opcode) } else { true };
                let mut writes: SmallVec<[(usize, Set); 8]> = SmallVec::new();
                // A spill writes its slot with what the value's register holds; a reload must
                // find the value it gives back in the slot.
                if let (true, Some((t, keys))) = (original, spill_slots(inst)) {
                    for (d, key) in keys.into_iter().enumerate() {
                        let slot = self.slots.spill[&key];
                        if inst.opcode == Opcode::PSpill {
                            let set = slot_of(inst.ops[0].reg, d as u8).map_or_else(Set::new, |s| state[s].clone());
                            writes.push((slot, set));
                        } else if check {
                            let v = self.values.slot_of(t, d as u8).map(|n| self.values.find(n));
                            if v.is_none_or(|v| !state[slot].contains(&v)) {
                                let held = self.values.describe_set(&state[slot]);
                                let what = v.map_or_else(|| t.to_string(), |v| self.values.describe(v));
                                return Err(self.error(
                                    b,
                                    i,
                                    format!("reloads {what} from a spill slot that holds {held}"),
                                ));
                            }
                        }
                    }
                }
                if copies {
                    for (d, src) in self.copy_sources(inst) {
                        let Some(ds) = self.slots.of(d) else {
                            return Err(self.error(b, i, "a copy into an untracked register".into()));
                        };
                        let set = match src {
                            Src::Reg(r) => match self.slots.of(r) {
                                Some(s) => state[s].clone(),
                                None => Set::new(),
                            },
                            Src::Const(c) => SmallVec::from_slice(&[self.values.find_const(c)]),
                            Src::Nothing => Set::new(),
                        };
                        writes.push((ds, set));
                    }
                } else {
                    for def in &inst.defs {
                        for d in 0..def.rc.size {
                            let Some(s) = slot_of(def.reg, d) else { continue };
                            let set = match def.temp.and_then(|t| self.values.slot_of(t, d)) {
                                Some(n) => SmallVec::from_slice(&[self.values.find(n)]),
                                None => Set::new(),
                            };
                            writes.push((s, set));
                        }
                    }
                }
                for (s, set) in writes {
                    state[s] = set;
                }
            }
        }
        Ok(())
    }

    /// What each destination dword of a copy-like instruction receives.
    fn copy_sources(&self, inst: &Inst) -> SmallVec<[(u16, Src); 8]> {
        let mut out = SmallVec::new();
        let from_op = |o: &isa::mir::Operand, d: u8| match o.kind {
            OperandKind::Const(_) => o.constant_dword(d.into()).map_or(Src::Nothing, Src::Const),
            OperandKind::Undef(_) => Src::Nothing,
            _ => o.reg.map_or(Src::Nothing, |r| Src::Reg(r.0 + u16::from(d))),
        };
        let dst = |def: &isa::mir::Def, d: u8| def.reg.map(|r| r.0 + u16::from(d));
        match inst.opcode {
            Opcode::PSplitVector => {
                let mut offset = 0;
                for def in &inst.defs {
                    for d in 0..def.rc.size {
                        if let (Some(x), Some(src)) = (dst(def, d), inst.ops.first()) {
                            out.push((x, from_op(src, offset + d)));
                        }
                    }
                    offset += def.rc.size;
                }
            }
            Opcode::PCreateVector => {
                let mut offset = 0;
                for op in &inst.ops {
                    let size = op.rc().map_or(1, |rc| rc.size);
                    for d in 0..size {
                        if let Some(x) = inst.defs.first().and_then(|def| dst(def, offset + d)) {
                            out.push((x, from_op(op, d)));
                        }
                    }
                    offset += size;
                }
            }
            Opcode::SCselectB32 => {
                if let Some(x) = inst.defs.first().and_then(|def| dst(def, 0)) {
                    out.push((x, Src::Reg(PhysReg::SCC.0)));
                }
            }
            _ => {
                // Parallel copies pair results with operands; moves and s_cmp have one each.
                // Results past the operands are scratch registers, clobbered.
                for (k, def) in inst.defs.iter().enumerate() {
                    for d in 0..def.rc.size {
                        let Some(x) = dst(def, d) else { continue };
                        out.push((x, inst.ops.get(k).map_or(Src::Nothing, |o| from_op(o, d))));
                    }
                }
            }
        }
        out
    }
}

/// Where a copied dword comes from.
#[derive(Copy, Clone, Debug)]
enum Src {
    Reg(u16),
    Const(u32),
    Nothing,
}

impl Values {
    fn find_const(&mut self, c: u32) -> u32 {
        let n = self.constant(c);
        self.find(n)
    }
}

fn name(reg: PhysReg, rc: RegClass) -> String {
    reg_name(reg, rc.size)
}
