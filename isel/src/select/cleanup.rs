//! The last step of selection: removes the phis and instructions that selection made but the
//! program does not need. Control-flow selection gives a loop header a phi for every lane mask
//! that might change in the loop, and copies EXEC at every loop entry, before it knows what the
//! loop body does; most of them turn out to be trivial or unused.
//!
//! - **Trivial phis.** A phi whose operands are all itself or one other value `v` is `v`
//!   (Braun et al.'s rule); its uses are rewritten, and the phis that used it are checked
//!   again, with a worklist.
//! - **Dead code.** An instruction without side effects (a phi, a copy, a vector pseudo, a
//!   SALU or VALU operation that writes no EXEC) whose temporaries are all unused goes, and
//!   the instructions that defined its operands are checked again. A phi's use of itself does
//!   not count. Memory instructions stay.
//!
//! Both are linear in the size of the function (plus the worklists' re-checks).

use isa::mir::{Function, OperandKind};
use isa::opcode::{Format, Opcode};
use isa::reg::{PhysReg, Temp};

/// Where an instruction is: (block, index).
type At = (usize, usize);

/// Removes trivial phis and dead instructions from `func`.
pub(super) fn run(func: &mut Function) {
    remove_trivial_phis(func);
    remove_dead_code(func);
}

fn is_phi(op: Opcode) -> bool {
    matches!(op, Opcode::PPhi | Opcode::PLinearPhi)
}

/// Follows the replacements made so far.
fn resolve(map: &[Option<OperandKind>], mut k: OperandKind) -> OperandKind {
    while let OperandKind::Temp(t) = k {
        match map[t.id as usize] {
            Some(next) => k = next,
            None => break,
        }
    }
    k
}

fn remove_trivial_phis(func: &mut Function) {
    let n = func.temps as usize;
    let mut map: Vec<Option<OperandKind>> = vec![None; n];
    // The phis reading each temporary.
    let mut phi_users: Vec<Vec<At>> = vec![Vec::new(); n];
    let mut worklist: Vec<At> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate().filter(|(_, i)| is_phi(i.opcode)) {
            worklist.push((b, i));
            for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                phi_users[t.id as usize].push((b, i));
            }
        }
    }
    let mut removed = vec![false; n];
    while let Some((b, i)) = worklist.pop() {
        let inst = &func.blocks[b].insts[i];
        let Some(def) = inst.defs[0].temp else { continue };
        if removed[def.id as usize] {
            continue;
        }
        let me = OperandKind::Temp(def);
        let mut only: Option<OperandKind> = None;
        let mut trivial = true;
        for op in &inst.ops {
            let k = resolve(&map, op.kind);
            if k == me || Some(k) == only {
                continue;
            }
            if only.is_some() || matches!(k, OperandKind::Undef(_)) {
                trivial = false;
                break;
            }
            only = Some(k);
        }
        let (true, Some(value)) = (trivial, only) else { continue };
        map[def.id as usize] = Some(value);
        removed[def.id as usize] = true;
        worklist.extend(phi_users[def.id as usize].iter().copied());
    }
    if !removed.contains(&true) {
        return;
    }
    for block in &mut func.blocks {
        block.insts.retain(|inst| !(is_phi(inst.opcode) && inst.defs[0].temp.is_some_and(|t| removed[t.id as usize])));
        for op in block.insts.iter_mut().flat_map(|i| i.ops.iter_mut()) {
            if let OperandKind::Temp(_) = op.kind {
                op.kind = resolve(&map, op.kind);
            }
        }
    }
}

/// Whether removing the instruction (its results unused) changes nothing else.
fn is_pure(inst: &isa::mir::Inst, func: &Function) -> bool {
    let pure_op = match inst.opcode {
        Opcode::PPhi | Opcode::PLinearPhi | Opcode::PParallelCopy | Opcode::PCreateVector | Opcode::PSplitVector => {
            true
        }
        op if op.is_pseudo() => false,
        op => matches!(
            op.format(func.family),
            Format::Sop1
                | Format::Sop2
                | Format::Sopc
                | Format::Sopk
                | Format::Vop1
                | Format::Vop2
                | Format::Vop3
                | Format::Vop3sd
                | Format::Vopc
        ),
    };
    let effect =
        |d: &isa::mir::Def| matches!(d.reg, Some(PhysReg::EXEC | PhysReg::FLAT_SCRATCH_LO | PhysReg::FLAT_SCRATCH_HI));
    pure_op && !inst.defs.is_empty() && !inst.defs.iter().any(effect)
}

fn remove_dead_code(func: &mut Function) {
    let n = func.temps as usize;
    let mut uses = vec![0u32; n];
    let mut def_at: Vec<Option<At>> = vec![None; n];
    let self_use = |inst: &isa::mir::Inst, t: Temp| is_phi(inst.opcode) && inst.defs[0].temp == Some(t);
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
                if !self_use(inst, t) {
                    uses[t.id as usize] += 1;
                }
            }
            for t in inst.defs.iter().filter_map(|d| d.temp) {
                def_at[t.id as usize] = Some((b, i));
            }
        }
    }
    let dead = |inst: &isa::mir::Inst, uses: &[u32]| {
        is_pure(inst, func) && inst.defs.iter().filter_map(|d| d.temp).all(|t| uses[t.id as usize] == 0)
    };
    let mut gone = vec![Vec::<bool>::new(); func.blocks.len()];
    for (b, block) in func.blocks.iter().enumerate() {
        gone[b] = vec![false; block.insts.len()];
    }
    let mut worklist: Vec<At> = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if dead(inst, &uses) {
                worklist.push((b, i));
            }
        }
    }
    while let Some((b, i)) = worklist.pop() {
        if gone[b][i] {
            continue;
        }
        let inst = &func.blocks[b].insts[i];
        if !dead(inst, &uses) {
            continue;
        }
        gone[b][i] = true;
        for t in inst.ops.iter().filter_map(|o| o.temp_of()) {
            if self_use(inst, t) {
                continue;
            }
            uses[t.id as usize] -= 1;
            if uses[t.id as usize] == 0 {
                if let Some(at) = def_at[t.id as usize] {
                    worklist.push(at);
                }
            }
        }
    }
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let mut k = 0;
        block.insts.retain(|_| {
            k += 1;
            !gone[b][k - 1]
        });
    }
}
