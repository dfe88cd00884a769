//! Three-source VALU combining (ACO's `combine_three_valu_op`): a 32-bit vector add, or or
//! xor whose operand is the only use of another such operation, of a left shift or (under an
//! or) of an and in the same block becomes one instruction, and the inner one goes:
//! `v_add3_u32`, `v_lshl_add_u32`, `v_or3_b32`, `v_lshl_or_b32`, `v_and_or_b32`, and on GFX10+
//! `v_xor3_b32`. The result is the same in every lane: the fused forms compute the same
//! wrapping sums and bitwise results, and take the shift amount modulo 32 as the shift does.
//!
//! A sum of uniform and divergent values is regrouped into three-source vector adds where
//! that takes fewer instructions ([`Sum`]).
//!
//! A combination happens only where the three-source form can encode its operands: no more
//! scalar values (distinct SGPRs and the literal) than the constant bus takes
//! ([`isa::constant_bus`]), a literal only where VOP3 carries one, and no modifier on either
//! instruction. Linear VGPRs (live in inactive lanes) are left alone. One walk over each block,
//! with use counts and definitions in dense tables: linear in the function.

use crate::hw;
use crate::mir_opt::{use_counts, BlockDefs};
use isa::mir::{Def, Fields, Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Opcode};
use isa::processor::Generation;
use isa::reg::{RegType, Temp};
use smallvec::SmallVec;

/// Combines the adds, ors and xors of `func` with the operation that feeds them, and
/// regroups sums of uniform and divergent values into three-source adds.
pub(super) fn run(func: &mut Function) {
    let family = func.family;
    let uses = use_counts(func);
    let mut defs = BlockDefs::new(func.temps as usize);
    let mut next_temp = func.temps;
    let mut summed = vec![false; func.temps as usize];
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let b = b as u32;
        let n = block.insts.len();
        let mut gone = vec![false; n];
        // Instructions a regrouped sum puts before instruction i, and whether instruction i
        // is the end of such a sum (which a later sum takes as a leaf).
        let mut before: Vec<(usize, Inst)> = Vec::new();
        let mut regrouped = vec![false; n];
        // The temporaries a vector add of the block reads: a sum ending there takes them in.
        for inst in block.insts.iter().filter(|inst| is_vector_add(inst)) {
            for t in inst.ops.iter().filter_map(Operand::temp_of) {
                summed[t.id as usize] = true;
            }
        }
        for i in 0..n {
            let sum = Sum { insts: &block.insts, uses: &uses, defs: &defs, block: b, regrouped: &regrouped };
            // A sum that a later vector add of the block goes on is regrouped there, whole.
            let inner = block.insts[i]
                .defs
                .first()
                .and_then(|d| d.temp)
                .is_some_and(|t| summed[t.id as usize] && uses[t.id as usize] == 1);
            let regrouping = if inner { None } else { sum.regroup(i, family, &mut next_temp) };
            if let Some((absorbed, mut chain)) = regrouping {
                for j in absorbed {
                    gone[j] = true;
                }
                block.insts[i] = chain.pop().expect("a regrouped sum has an instruction");
                before.extend(chain.into_iter().map(|inst| (i, inst)));
                regrouped[i] = true;
            } else if let Some((j, fused)) = fuse(&block.insts, i, &uses, &defs, b, family) {
                block.insts[i] = fused;
                gone[j] = true;
            }
            defs.record(&block.insts[i], i, b);
        }
        let old = std::mem::take(&mut block.insts);
        let mut extra = before.into_iter().peekable();
        for (i, inst) in old.into_iter().enumerate() {
            while let Some((_, e)) = extra.next_if(|(at, _)| *at == i) {
                block.insts.push(e);
            }
            if !gone[i] {
                block.insts.push(inst);
            }
        }
    }
    func.temps = next_temp;
}

/// The most values a regrouped sum adds.
const MAX_LEAVES: usize = 8;

/// A sum of 32-bit values ending at a vector add, looked at through the adds feeding it:
/// vector adds (`v_add_nc_u32`, `v_add3_u32`) and scalar ones (`s_add_u32`/`s_add_i32` whose
/// carry nothing reads) that only it uses, in its block. Uniform and divergent terms mixed in
/// one sum cost a scalar add per uniform term and a vector add per two others; regrouped into
/// three-source vector adds over all terms, they cost one per two terms, where the constant
/// bus allows (`v_add3_u32 v, s0, s1, v` on GFX10+). The sums wrap as both forms do, and the
/// scalar terms are the same in every lane, so the lanes the vector adds run in get the same
/// value.
struct Sum<'a> {
    insts: &'a [Inst],
    uses: &'a [u32],
    defs: &'a BlockDefs,
    block: u32,
    regrouped: &'a [bool],
}

impl Sum<'_> {
    /// The instructions the sum ending at `insts[i]` takes in, and the adds computing it
    /// instead (the last one defines what `insts[i]` did), if that is fewer instructions.
    fn regroup(&self, i: usize, family: Family, next_temp: &mut u32) -> Option<(Vec<usize>, Vec<Inst>)> {
        let root = &self.insts[i];
        if !is_vector_add(root) {
            return None;
        }
        let mut leaves: SmallVec<[Operand; MAX_LEAVES]> = SmallVec::new();
        let mut absorbed = Vec::new();
        // Each operand with whether a scalar add reads it; what the vector adds read as they
        // are (their terms, and the scalar sums), and the scalar adds.
        let mut stack: SmallVec<[(Operand, bool); MAX_LEAVES]> = root.ops.iter().rev().map(|&op| (op, false)).collect();
        let (mut vector_terms, mut scalar_adds) = (0, 0);
        while let Some((op, in_scalar)) = stack.pop() {
            match self.inner_add(op) {
                Some(j) if leaves.len() + stack.len() + self.insts[j].ops.len() < MAX_LEAVES => {
                    absorbed.push(j);
                    let scalar = matches!(self.insts[j].opcode, Opcode::SAddU32 | Opcode::SAddI32);
                    scalar_adds += usize::from(scalar);
                    vector_terms += usize::from(scalar && !in_scalar);
                    stack.extend(self.insts[j].ops.iter().rev().map(|&o| (o, scalar)));
                }
                _ => {
                    vector_terms += usize::from(!in_scalar);
                    leaves.push(op);
                }
            }
        }
        // As it is, once the vector adds are three-source ones; and regrouped.
        let now = scalar_adds + (vector_terms - 1).div_ceil(2);
        let adds = (leaves.len() - 1).div_ceil(2);
        if scalar_adds == 0 || adds >= now {
            return None;
        }
        // The leaves into groups: the first add takes three, each next one two and the sum so
        // far; the scalar ones spread over the adds, so that each reads as few as can be.
        let (scalar, vector): (SmallVec<[Operand; MAX_LEAVES]>, SmallVec<[Operand; MAX_LEAVES]>) =
            leaves.into_iter().partition(|op| op.temp_of().is_none_or(|t| t.rc.ty != RegType::Vgpr));
        let mut groups: Vec<SmallVec<[Operand; 3]>> = vec![SmallVec::new(); adds];
        let room = |k: usize| if k == 0 { 3 } else { 2 };
        let mut k = 0;
        for op in scalar.into_iter().chain(vector) {
            // The next group with room, round-robin.
            while groups[k % adds].len() == room(k % adds) {
                k += 1;
            }
            groups[k % adds].push(op);
            k += 1;
        }
        let mut chain = Vec::with_capacity(adds);
        let mut sum: Option<Operand> = None;
        for (k, mut group) in groups.into_iter().enumerate() {
            group.extend(sum);
            let opcode = if group.len() == 3 { Opcode::VAdd3U32 } else { Opcode::VAddNcU32 };
            if !hw::fits_constant_bus(opcode, family, &group, true) {
                return None;
            }
            let def = if k + 1 == adds {
                root.defs[0]
            } else {
                let t = Temp { id: *next_temp, rc: root.defs[0].rc };
                *next_temp += 1;
                sum = Some(Operand::temp(t));
                Def::temp(t)
            };
            let mut add = Inst::new(opcode, &[def], &group);
            add.vop3 = true;
            chain.push(add);
        }
        Some((absorbed, chain))
    }

    /// The instruction of the block defining `op`, when it is an add the sum can take in.
    fn inner_add(&self, op: Operand) -> Option<usize> {
        let t = op.temp_of().filter(|_| op.reg.is_none())?;
        if self.uses[t.id as usize] != 1 {
            return None;
        }
        let j = self.defs.in_block(t, self.block)?;
        let inner = &self.insts[j];
        if self.regrouped[j] || inner.fields != Fields::default() || inner.defs[0].temp != Some(t) {
            return None;
        }
        let takes = match inner.opcode {
            Opcode::VAddNcU32 | Opcode::VAdd3U32 => is_vector_add(inner),
            Opcode::SAddU32 | Opcode::SAddI32 => {
                // The carry (SCC) written, nothing reading it.
                let [_, carry] = inner.defs.as_slice() else { return None };
                let dead = carry.temp.is_none_or(|c| self.uses[c.id as usize] == 0);
                dead && inner
                    .ops
                    .iter()
                    .all(|o| o.reg.is_none() && matches!(o.kind, OperandKind::Temp(_) | OperandKind::Const(_)))
            }
            _ => false,
        };
        takes.then_some(j)
    }
}

/// The three-source instruction replacing `insts[i]`, and the index of the instruction it
/// absorbs, if `insts[i]` is an add, or or xor one of whose operands qualifies.
fn fuse(insts: &[Inst], i: usize, uses: &[u32], defs: &BlockDefs, block: u32, family: Family) -> Option<(usize, Inst)> {
    let outer = &insts[i];
    if !matches!(outer.opcode, Opcode::VAddNcU32 | Opcode::VOrB32 | Opcode::VXorB32)
        || outer.fields != Fields::default()
        || !plain(outer)
    {
        return None;
    }
    (0..2).find_map(|side| {
        let t = outer.ops[side].temp_of()?;
        if uses[t.id as usize] != 1 {
            return None;
        }
        let j = defs.in_block(t, block)?;
        let inner = &insts[j];
        if inner.fields != Fields::default() || !plain(inner) || inner.defs.len() != 1 {
            return None;
        }
        let other = outer.ops[1 - side];
        let &[a, b] = inner.ops.as_slice() else { return None };
        let (opcode, ops): (Opcode, SmallVec<[Operand; 4]>) = match (outer.opcode, inner.opcode) {
            (Opcode::VAddNcU32, Opcode::VAddNcU32) => (Opcode::VAdd3U32, [a, b, other].into_iter().collect()),
            // v_lshlrev_b32 takes the shift first.
            (Opcode::VAddNcU32, Opcode::VLshlrevB32) => (Opcode::VLshlAddU32, [b, a, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VOrB32) => (Opcode::VOr3B32, [a, b, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VLshlrevB32) => (Opcode::VLshlOrB32, [b, a, other].into_iter().collect()),
            (Opcode::VOrB32, Opcode::VAndB32) => (Opcode::VAndOrB32, [a, b, other].into_iter().collect()),
            (Opcode::VXorB32, Opcode::VXorB32) if family.generation() >= Generation::Gfx10 => {
                (Opcode::VXor3B32, [a, b, other].into_iter().collect())
            }
            _ => return None,
        };
        if !hw::fits_constant_bus(opcode, family, &ops, true) {
            return None;
        }
        let mut fused = Inst::new(opcode, &outer.defs, &ops);
        fused.vop3 = true;
        Some((j, fused))
    })
}

/// Whether `inst` is a plain `v_add_nc_u32` or `v_add3_u32`, which a sum takes in.
fn is_vector_add(inst: &Inst) -> bool {
    matches!(inst.opcode, Opcode::VAddNcU32 | Opcode::VAdd3U32)
        && inst.fields == Fields::default()
        && plain(inst)
        && inst.defs.len() == 1
}

/// Whether `inst` reads and writes only temporaries and constants, none of them a linear VGPR.
fn plain(inst: &Inst) -> bool {
    inst.ops.iter().all(|op| match op.kind {
        OperandKind::Temp(t) => op.reg.is_none() && !(t.rc.ty == RegType::Vgpr && t.rc.linear),
        OperandKind::Const(_) => true,
        _ => false,
    }) && inst.defs.iter().all(|d| d.reg.is_none() && d.temp.is_some_and(|t| !t.rc.linear))
}
