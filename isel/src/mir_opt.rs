//! The SSA machine-level optimizer (ACO's `aco_optimizer`), run on selected MIR before
//! scheduling and register allocation: one walk over each block with use counts and
//! definitions in dense tables, linear in the function.
//!
//! It folds the sign-bit operations selection emits for `fneg` and `fabs` (an exclusive-or
//! with the sign bit, an and with its complement, on the VALU or the SALU) into the operand
//! modifiers of the VALU operations that read them, where the opcode table gives the source
//! `neg`/`abs` bits. Those modifiers are the same bit operations on the source as it is read
//! (the sign bit of its type flipped or cleared, whatever the value, NaNs included), so the
//! result is the same in every lane. A 64-bit float's sign operation is one on its high dword
//! joined again with the low one (`p_create_vector` of the two dwords split from the pair): the
//! reader then reads the pair with the modifier. Modifiers need the VOP3 form, so a fold
//! happens only where that form can encode the operands: no more scalar values than the
//! generation's constant bus takes and a literal only where VOP3 carries one
//! (`hw::fits_constant_bus`, from [`isa::constant_bus`]). Folds look through a chain
//! of such operations (`-|x|`, `--x`); a sign-bit operation whose every reader took its source
//! goes. The source and its reader must be in the same block, so no value's liveness reaches
//! past where it was already live on either CFG.
//!
//! A `p_create_vector` of the same operands as an earlier one in its block is that one.
//!
//! The output modifiers stay unused. `omod` does nothing while the kernel runs in IEEE mode
//! (as gcnc's kernels do) or keeps denormals (the hardware ignores it then; LLVM's
//! `SIFoldOperands` folds it under neither). `clamp` would replace `min(max(x, 0.0), 1.0)`,
//! but the kernel language orders -0.0 below +0.0, so `max(-0.0, 0.0)` is +0.0, while the
//! clamp bit keeps -0.0 (as the emulator does, and as llc-19 folds `fmed3(-0.0, 0.0, 1.0)` to
//! -0.0): the fold would change the sign of a zero.
//!
//! It also folds constants: a 32-bit source of a VALU operation that a `v_mov_b32` or
//! `s_mov_b32` of a constant defines reads the constant itself, inline or as the literal,
//! where the source takes constants and the encoding stays within the constant bus and the
//! literal rules; a commutative operation puts the constant first rather than take its VOP3
//! form, which a fold takes only when the move goes with it (the same bytes, one instruction
//! fewer). A 64-bit source that an `s_mov_b64` (or gfx942's `v_mov_b64`) of a constant
//! defines reads it when it is inline for the source's type (a 64-bit literal is one dword,
//! which each generation widens its own way). A part of a `p_create_vector` that such a move
//! defines becomes the constant, which
//! the tuple's copy then writes into its place. A constant has no liveness, so these folds
//! reach across blocks; a move nothing reads any more goes.

use crate::hw;
use foldhash::fast::FixedState;
use isa::mir::{Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{RegType, Temp};
use isa::table::{self, ConstType, Kind, Role};
use smallvec::SmallVec;
use std::collections::HashMap;

/// The longest chain of sign-bit operations one operand looks through.
const CHAIN: usize = 4;

/// A sign-bit operation: what it does to the sign of its source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Sign {
    /// Flipped (`fneg`).
    Neg,
    /// Cleared (`fabs`).
    Abs,
}

/// Runs the optimizer on `func`.
pub fn optimize(func: &mut Function) {
    let family = func.family;
    let temps = func.temps as usize;
    let mut uses = use_counts(func);
    let mut defs = BlockDefs::new(temps);
    forward_vectors(func, &mut uses);
    // The constant each temporary holds, when a plain move of a constant defines it.
    let mut konst: Vec<Option<u64>> = vec![None; temps];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        if let Some((t, c)) = constant_move(inst) {
            konst[t.id as usize] = Some(c);
        }
    }
    let mut folded = Vec::new();
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let b = b as u32;
        folded.clear();
        for i in 0..block.insts.len() {
            fold_constants(&mut block.insts[i], family, &mut uses, &konst);
            fold_modifiers(&mut block.insts, i, family, &mut uses, &defs, b, &mut folded);
            defs.record(&block.insts[i], i, b);
        }
        if folded.is_empty() {
            continue;
        }
        // The sign-bit operations nothing reads any more, last first, so a chain goes whole.
        folded.sort_unstable();
        folded.dedup();
        let mut gone = vec![false; block.insts.len()];
        for &j in folded.iter().rev() {
            let inst = &block.insts[j as usize];
            if inst.defs.iter().filter_map(|d| d.temp).all(|t| uses[t.id as usize] == 0) {
                gone[j as usize] = true;
                for t in inst.ops.iter().filter_map(Operand::temp_of) {
                    uses[t.id as usize] -= 1;
                }
            }
        }
        let mut k = 0;
        block.insts.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    }
    // Moves of constants nothing reads any more.
    for block in &mut func.blocks {
        block.insts.retain(|inst| constant_move(inst).is_none_or(|(t, _)| uses[t.id as usize] > 0));
    }
}

/// Replaces each `p_create_vector` of the same operands as an earlier one in its block by
/// that one: its readers read the earlier tuple, and the vector goes.
fn forward_vectors(func: &mut Function, uses: &mut [u32]) {
    let mut replace: Vec<Option<Temp>> = vec![None; func.temps as usize];
    let mut any = false;
    // The vectors built so far in the block, by their operands.
    let mut built: HashMap<SmallVec<[Operand; 4]>, Temp, FixedState> = HashMap::default();
    for block in &func.blocks {
        built.clear();
        for inst in block.insts.iter().filter(|i| i.opcode == Opcode::PCreateVector) {
            let Some(v) = inst.defs.first().and_then(|d| d.temp.filter(|_| d.reg.is_none())) else { continue };
            if inst.ops.iter().any(|o| o.reg.is_some()) {
                continue;
            }
            match built.get(&inst.ops) {
                Some(&earlier) if earlier.rc == v.rc => {
                    replace[v.id as usize] = Some(earlier);
                    any = true;
                }
                _ => {
                    built.insert(inst.ops.clone(), v);
                }
            }
        }
    }
    if !any {
        return;
    }
    for block in &mut func.blocks {
        block.insts.retain(|inst| {
            let gone = inst.opcode == Opcode::PCreateVector
                && inst.defs.first().and_then(|d| d.temp).is_some_and(|v| replace[v.id as usize].is_some());
            if gone {
                inst.ops.iter().filter_map(Operand::temp_of).for_each(|t| uses[t.id as usize] -= 1);
            }
            !gone
        });
        for op in block.insts.iter_mut().flat_map(|i| i.ops.iter_mut()) {
            if let Some((v, x)) = op.temp_of().and_then(|v| Some((v, replace[v.id as usize]?))) {
                op.kind = OperandKind::Temp(x);
                uses[v.id as usize] -= 1;
                uses[x.id as usize] += 1;
            }
        }
    }
}

/// The temporary a plain `v_mov_b32` or `s_mov_b32` of a constant defines, and the constant.
fn constant_move(inst: &Inst) -> Option<(Temp, u64)> {
    let size = match inst.opcode {
        Opcode::VMovB32 | Opcode::SMovB32 => 1,
        Opcode::VMovB64 | Opcode::SMovB64 => 2,
        _ => return None,
    };
    if inst.fields != Default::default() {
        return None;
    }
    let (&[def], &[op]) = (inst.defs.as_slice(), inst.ops.as_slice()) else { return None };
    let t = def.temp.filter(|&t| def.reg.is_none() && t.rc.size == size && !linear_vgpr(t))?;
    Some((t, op.constant_value()?))
}

/// Replaces the sources of `inst` that hold a known constant (`konst`) by the constant, where
/// the encoding allows (see the module's paragraph).
fn fold_constants(inst: &mut Inst, family: Family, uses: &mut [u32], konst: &[Option<u64>]) {
    let known = |op: &Operand| op.temp_of().filter(|_| op.reg.is_none()).and_then(|t| Some((t, konst[t.id as usize]?)));
    if inst.opcode == Opcode::PCreateVector {
        // Parts of one dword: a tuple's copy writes a 32-bit constant into its place.
        for op in inst.ops.iter_mut() {
            if let Some((t, c)) = known(op).filter(|(t, _)| t.rc.size == 1) {
                *op = Operand::constant64(c);
                uses[t.id as usize] -= 1;
            }
        }
        return;
    }
    if !matches!(inst.opcode.format(family), Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd)
        || !inst.ops.iter().any(|op| known(op).is_some())
    {
        return;
    }
    let Some(info) = table::info(inst.opcode, family) else { return };
    let f = &inst.fields;
    if f.dpp.is_some() || f.sdwa.is_some() || f.opsel != 0 || f.vopd_y.is_some() {
        return;
    }
    let srcs: Vec<&table::SlotInfo> = info.slots.iter().filter(|s| s.role == Role::Use && !s.optional).collect();
    for k in 0..inst.ops.len().min(srcs.len()) {
        let Some((t, c)) = known(&inst.ops[k]) else { continue };
        let slot = srcs[k];
        let inline = hw::is_inline(inst.opcode, family, k, c);
        let takes = match slot.kind {
            Kind::Vs | Kind::Ss => true,
            Kind::Vi => inline,
            _ => false,
        };
        // A 64-bit source takes an inline constant only (a literal there is one dword, which
        // each generation widens its own way).
        let fits = match (slot.size, slot.ctype) {
            (1, ConstType::B32) => t.rc.size == 1,
            (2, ConstType::F64 | ConstType::B64) => t.rc.size == 2 && inline,
            _ => false,
        };
        if !takes || !fits {
            continue;
        }
        let mut ops = inst.ops.clone();
        ops[k] = Operand::constant64(c);
        let mut opcode = inst.opcode;
        // A short form takes a constant first only: a commutative operation swaps its sources.
        let long = |opcode, ops: &[Operand]| {
            inst.vop3 || f.neg | f.abs != 0 || f.clamp || f.omod != 0 || hw::needs_vop3(opcode, family, &inst.defs, ops)
        };
        if !inst.vop3 && long(opcode, &ops) && k == 1 {
            if let Some(swapped) = hw::commuted(opcode).filter(|_| f.neg | f.abs == 0) {
                ops.swap(0, 1);
                opcode = swapped;
            }
        }
        // The long form is as long as the short one and the move it reads, when that goes.
        let vop3 = long(opcode, &ops);
        if vop3 && !inst.vop3 && uses[t.id as usize] > 1 || !hw::fits_constant_bus(opcode, family, &ops, vop3) {
            continue;
        }
        inst.opcode = opcode;
        inst.ops = ops;
        inst.vop3 = vop3;
        uses[t.id as usize] -= 1;
    }
}

/// How many operands read each temporary of `func`.
pub(crate) fn use_counts(func: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; func.temps as usize];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        for t in inst.ops.iter().filter_map(Operand::temp_of) {
            uses[t.id as usize] += 1;
        }
    }
    uses
}

/// Where each temporary is defined among the instructions of the blocks walked so far, for
/// the combines that look at the instruction defining an operand in the same block.
pub(crate) struct BlockDefs {
    /// The index of the defining instruction in its block.
    at: Vec<u32>,
    /// The block (`u32::MAX`: not defined yet).
    block: Vec<u32>,
}

impl BlockDefs {
    /// No definition seen, for `temps` temporaries.
    pub(crate) fn new(temps: usize) -> BlockDefs {
        BlockDefs { at: vec![0; temps], block: vec![u32::MAX; temps] }
    }

    /// Records the results of `inst`, instruction `i` of block `b`.
    pub(crate) fn record(&mut self, inst: &Inst, i: usize, b: u32) {
        for t in inst.defs.iter().filter_map(|d| d.temp) {
            self.at[t.id as usize] = i as u32;
            self.block[t.id as usize] = b;
        }
    }

    /// The index of the instruction of block `b` defining `t`, if `b` defines it.
    pub(crate) fn in_block(&self, t: Temp, b: u32) -> Option<usize> {
        (self.block[t.id as usize] == b).then_some(self.at[t.id as usize] as usize)
    }
}

/// Folds the sign-bit operations feeding the sources of `insts[i]` into its modifiers,
/// recording in `folded` the index of each operation looked through.
fn fold_modifiers(
    insts: &mut [Inst],
    i: usize,
    family: Family,
    uses: &mut [u32],
    defs: &BlockDefs,
    block: u32,
    folded: &mut Vec<u32>,
) {
    let inst = &insts[i];
    let Some(info) = table::info(inst.opcode, family) else { return };
    let f = &inst.fields;
    if info.flags.neg == 0
        // Their masks name sources that are not floats: a select's, an exponent.
        || matches!(inst.opcode, Opcode::VCndmaskB32 | Opcode::VLdexpF16)
        || f.dpp.is_some()
        || f.sdwa.is_some()
        || f.opsel != 0
        || f.vopd_y.is_some()
        || inst.defs.iter().any(|d| d.temp.is_some_and(linear_vgpr))
    {
        return;
    }
    let vop3 = inst.vop3;
    let srcs: Vec<ConstType> =
        info.slots.iter().filter(|s| s.role == Role::Use && !s.optional).map(|s| s.ctype).collect();
    for k in 0..inst.ops.len().min(srcs.len()).min(8) {
        // A 64-bit float's sign is the top bit of its high dword.
        let (sign_bit, wide) = match srcs[k] {
            ConstType::B32 => (0x8000_0000u64, false),
            ConstType::F16 => (0x8000, false),
            ConstType::F64 => (0x8000_0000, true),
            _ => continue,
        };
        for _ in 0..CHAIN {
            let inst = &insts[i];
            let bit = 1u8 << k;
            if info.flags.neg & bit == 0 || info.flags.abs & bit == 0 {
                break;
            }
            let Some(t) = inst.ops[k].temp_of().filter(|_| inst.ops[k].reg.is_none()) else { break };
            if t.rc.size != if wide { 2 } else { 1 } || linear_vgpr(t) {
                break;
            }
            let Some(j) = defs.in_block(t, block) else { break };
            let (signs, x, high) = if wide {
                let Some((signs, x, high)) = wide_sign_op(insts, j, defs, block) else { break };
                (signs, x, high)
            } else {
                let Some((sign, x)) = sign_op(&insts[j], sign_bit) else { break };
                (Signs::from_slice(&[sign]), x, Signs::new())
            };
            let mut ops = inst.ops.clone();
            ops[k] = Operand::temp(x);
            // The source must suit its slot (an SGPR pair where only VGPRs go would not) and
            // the constant bus.
            if table::bind_uses(info.slots, &ops).is_none() || !hw::fits_constant_bus(inst.opcode, family, &ops, true) {
                break;
            }
            let inst = &mut insts[i];
            inst.ops = ops;
            // The reader computes neg?(abs?(t)) of t = -x or |x| (each sign of a chain in turn,
            // outermost first).
            for sign in signs {
                match sign {
                    Sign::Neg if inst.fields.abs & bit == 0 => inst.fields.neg ^= bit,
                    Sign::Neg => {}
                    Sign::Abs => inst.fields.abs |= bit,
                }
            }
            // Modifiers need the VOP3 form; `--x` may leave none.
            inst.vop3 = vop3
                || inst.fields.neg | inst.fields.abs != 0
                || hw::needs_vop3(inst.opcode, family, &inst.defs, &inst.ops);
            uses[t.id as usize] -= 1;
            uses[x.id as usize] += 1;
            folded.push(j as u32);
            folded.extend(high);
        }
    }
}

/// What `insts[j]` does to the sign of a 64-bit float, if it is a `p_create_vector` of the low
/// dword of a pair and a chain of [`sign_op`]s of its high dword (how selection negates a
/// 64-bit float or takes its absolute value), both dwords split from that pair in block
/// `block`: the sign operations, outermost first, the pair, and the indices of the high
/// dword's operations.
fn wide_sign_op(insts: &[Inst], j: usize, defs: &BlockDefs, block: u32) -> Option<(Signs, Temp, Signs<u32>)> {
    let vector = &insts[j];
    if vector.opcode != Opcode::PCreateVector || vector.ops.len() != 2 || vector.ops.iter().any(|o| o.reg.is_some()) {
        return None;
    }
    let (lo, mut hi) = (vector.ops[0].temp_of()?, vector.ops[1].temp_of()?);
    let (mut signs, mut through) = (Signs::new(), Signs::new());
    while let Some((sign, inner)) = defs.in_block(hi, block).filter(|_| signs.len() < CHAIN).and_then(|jh| {
        through.push(jh as u32);
        sign_op(&insts[jh], 0x8000_0000)
    }) {
        signs.push(sign);
        hi = inner;
    }
    through.truncate(signs.len());
    let split = &insts[defs.in_block(lo, block)?];
    let pair = split.ops.first().and_then(|o| o.temp_of().filter(|_| o.reg.is_none()))?;
    let halves: SmallVec<[Option<Temp>; 2]> = split.defs.iter().map(|d| d.temp).collect();
    (!signs.is_empty()
        && split.opcode == Opcode::PSplitVector
        && halves.as_slice() == [Some(lo), Some(hi)]
        && pair.rc.size == 2
        && !linear_vgpr(pair))
    .then_some((signs, pair, through))
}

/// A chain of sign operations, or of their indices.
type Signs<T = Sign> = SmallVec<[T; CHAIN]>;

/// What `inst` does to the sign of a 32-bit temporary, if it is a plain exclusive-or with the
/// sign bit `sign_bit` (of the reader's source type) or an and with its complement, and that
/// temporary.
fn sign_op(inst: &Inst, sign_bit: u64) -> Option<(Sign, Temp)> {
    if !matches!(inst.opcode, Opcode::VXorB32 | Opcode::VAndB32 | Opcode::SXorB32 | Opcode::SAndB32)
        || inst.fields != Default::default()
        || inst.defs.iter().any(|d| d.reg.is_some_and(|r| d.temp.is_some() || r != isa::reg::PhysReg::SCC))
    {
        return None;
    }
    let (k, x) = match inst.ops.as_slice() {
        [a, b] => match (a.kind, b.kind) {
            (OperandKind::Const(k), OperandKind::Temp(x)) if b.reg.is_none() => (k, x),
            (OperandKind::Temp(x), OperandKind::Const(k)) if a.reg.is_none() => (k, x),
            _ => return None,
        },
        _ => return None,
    };
    if x.rc.size != 1 || linear_vgpr(x) || !matches!(x.rc.ty, RegType::Vgpr | RegType::Sgpr) {
        return None;
    }
    let mask = (sign_bit << 1) - 1;
    match inst.opcode {
        Opcode::VXorB32 | Opcode::SXorB32 if k == sign_bit => Some((Sign::Neg, x)),
        Opcode::VAndB32 | Opcode::SAndB32 if k == mask >> 1 => Some((Sign::Abs, x)),
        _ => None,
    }
}

/// Whether `t` is a linear VGPR (live in inactive lanes), which the optimizer leaves alone.
fn linear_vgpr(t: Temp) -> bool {
    t.rc.ty == RegType::Vgpr && t.rc.linear
}
