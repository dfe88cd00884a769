//! The MIR verifier: checks what selection promises every later stage, and reports every
//! violation it finds (not just the first), each with its block, position and instruction.
//!
//! - **CFG.** Successor and predecessor lists mirror each other on both CFGs; every block ends
//!   with exactly one branch or `s_endpgm`; a branch's target is its first linear successor and
//!   a conditional branch falls through to the next block; blocks with logical edges have a
//!   logical part (`p_logical_start` .. `p_logical_end`), linear-only blocks have none, and
//!   vector instructions only appear inside a logical part.
//! - **SSA.** Every temporary is defined once, with one register class everywhere, and before
//!   each use in the linear block order; a phi has one operand per predecessor of its CFG
//!   (logical for `p_phi`, linear for `p_linear_phi`), of its own class (VGPRs for `p_phi`:
//!   lane masks are merged per lane by selection, never by a logical phi), and phis come first.
//! - **Register classes and operand kinds.** Each opcode's results and operands have the file
//!   and size it needs: SMEM and SALU results are SGPRs, VALU sources are VGPRs, SGPRs or
//!   constants, lane masks (compare results, carries, saved EXEC) are sized by the wave, SCC is
//!   one SGPR; registers fixed to SCC, VCC or EXEC have the classes those registers have. A
//!   GLOBAL/FLAT atomic has its returned value (a VGPR tuple the size of its data) exactly when
//!   bit 0 of its cache policy (glc, sc0) is set.
//! - **VALU encoding limits.** The scalar values one VALU instruction reads fit the constant
//!   bus of the generation, GFX9's VOP3 has no literal, and a VOP2 or VOPC instruction not
//!   marked `vop3` has a VGPR second source and uses VCC for its implicit lane mask.

use crate::hw;
use isa::mir::{Function, Inst, Operand, OperandKind};
use isa::opcode::{Format, Opcode};
use isa::operands::{shape_of, Loc};
use isa::reg::{PhysReg, RegClass, RegType};
use std::collections::HashMap;
use std::fmt;

/// One violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MirError {
    /// The block.
    pub block: u32,
    /// The instruction's position in the block, if the error is about one.
    pub inst: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Every violation found in a function, with the function's text for context.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} MIR error(s) in {name}:\n{}", errors.len(), render(errors))]
pub struct MirErrors {
    /// The function's name.
    pub name: String,
    /// The violations, in block order.
    pub errors: Vec<MirError>,
}

fn render(errors: &[MirError]) -> String {
    errors
        .iter()
        .map(|e| match e.inst {
            Some(i) => format!("  BB{} #{}: {}\n", e.block, i, e.message),
            None => format!("  BB{}: {}\n", e.block, e.message),
        })
        .collect()
}

/// Checks `func`; returns every violation found.
pub fn verify(func: &Function) -> Result<(), MirErrors> {
    let mut v = Verifier { func, errors: Vec::new(), lane_mask: RegClass::lane_mask(func.wave_size) };
    v.cfg();
    v.blocks();
    v.ssa();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(MirErrors { name: func.name.clone(), errors: v.errors })
    }
}

/// Whether `op` ends a block.
fn is_terminator(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::PBranch
            | Opcode::PCbranchExecz
            | Opcode::PCbranchScc0
            | Opcode::SEndpgm
            | Opcode::SBranch
            | Opcode::SCbranchScc0
            | Opcode::SCbranchScc1
            | Opcode::SCbranchVccz
            | Opcode::SCbranchVccnz
            | Opcode::SCbranchExecz
            | Opcode::SCbranchExecnz
    )
}

/// Whether an instruction of `format` runs per lane (and so belongs in a logical part).
fn is_vector(format: Format) -> bool {
    matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Global)
}

struct Verifier<'a> {
    func: &'a Function,
    errors: Vec<MirError>,
    lane_mask: RegClass,
}

impl Verifier<'_> {
    fn error(&mut self, block: usize, inst: Option<usize>, message: String) {
        let message = match inst {
            Some(i) => format!(
                "{message}\n      in: {}",
                isa::mir::DisplayInst(&self.func.blocks[block].insts[i], self.func.family)
            ),
            None => message,
        };
        self.errors.push(MirError { block: block as u32, inst, message });
    }

    /// The edges of both CFGs mirror each other and stay inside the function.
    fn cfg(&mut self) {
        let n = self.func.blocks.len();
        for (i, b) in self.func.blocks.iter().enumerate() {
            let lists: [(&str, &[u32], bool); 4] = [
                ("logical successor", &b.logical_succs, true),
                ("linear successor", &b.linear_succs, false),
                ("logical predecessor", &b.logical_preds, true),
                ("linear predecessor", &b.linear_preds, false),
            ];
            for (what, list, logical) in lists {
                let is_succ = what.ends_with("successor");
                for (k, &other) in list.iter().enumerate() {
                    if other as usize >= n {
                        self.error(i, None, format!("{what} BB{other} does not exist"));
                        continue;
                    }
                    if list[..k].contains(&other) {
                        self.error(i, None, format!("{what} BB{other} is listed twice"));
                    }
                    let o = &self.func.blocks[other as usize];
                    let back: &[u32] = match (is_succ, logical) {
                        (true, true) => &o.logical_preds,
                        (true, false) => &o.linear_preds,
                        (false, true) => &o.logical_succs,
                        (false, false) => &o.linear_succs,
                    };
                    if !back.contains(&(i as u32)) {
                        self.error(i, None, format!("{what} BB{other} does not list BB{i} back"));
                    }
                }
            }
        }
        if let Some(entry) = self.func.blocks.first() {
            if !entry.logical_preds.is_empty() || !entry.linear_preds.is_empty() {
                self.error(0, None, "the entry block has predecessors".into());
            }
        } else {
            self.errors.push(MirError { block: 0, inst: None, message: "the function has no blocks".into() });
        }
    }

    /// Terminators, branch targets, logical parts, phi placement and each instruction's shape.
    fn blocks(&mut self) {
        for (i, b) in self.func.blocks.iter().enumerate() {
            let Some(last) = b.insts.last() else {
                self.error(i, None, "the block is empty".into());
                continue;
            };
            if !is_terminator(last.opcode) {
                self.error(i, Some(b.insts.len() - 1), "the block does not end with a branch or s_endpgm".into());
            }
            let succs = &b.linear_succs;
            let next = i as u32 + 1;
            let target = last.fields.target;
            let problem = match last.opcode {
                Opcode::PBranch | Opcode::SBranch => (succs.len() != 1 || target != Some(succs[0]))
                    .then(|| format!("the branch target must be the one linear successor (successors {succs:?})")),
                Opcode::SEndpgm => (!succs.is_empty() || !b.logical_succs.is_empty())
                    .then(|| "a block ending the program has successors".to_string()),
                op if is_terminator(op) => (succs.len() != 2 || target != Some(succs[0]) || succs[1] != next).then(|| {
                    format!("a conditional branch needs the linear successors [target, next block BB{next}] (has {succs:?})")
                }),
                _ => None,
            };
            if let Some(problem) = problem {
                self.error(i, Some(b.insts.len() - 1), problem);
            }
            let mut logical_start = None;
            let mut logical_end = None;
            let mut phis_done = false;
            for (k, inst) in b.insts.iter().enumerate() {
                if k + 1 < b.insts.len() && is_terminator(inst.opcode) {
                    self.error(i, Some(k), "a branch in the middle of a block".into());
                }
                match inst.opcode {
                    Opcode::PPhi | Opcode::PLinearPhi if phis_done => {
                        self.error(i, Some(k), "a phi after other instructions".into())
                    }
                    Opcode::PPhi | Opcode::PLinearPhi => {}
                    _ => phis_done = true,
                }
                if inst.opcode == Opcode::PStartPgm && (i != 0 || k != 0) {
                    self.error(i, Some(k), "p_startpgm must be the first instruction of the entry block".into());
                }
                match inst.opcode {
                    Opcode::PLogicalStart if logical_start.is_some() => {
                        self.error(i, Some(k), "a second p_logical_start".into())
                    }
                    Opcode::PLogicalStart => logical_start = Some(k),
                    Opcode::PLogicalEnd if logical_end.is_some() || logical_start.is_none() => {
                        self.error(i, Some(k), "p_logical_end without a p_logical_start before it, or twice".into())
                    }
                    Opcode::PLogicalEnd => logical_end = Some(k),
                    op if is_vector(op.format(self.func.family)) => {
                        let inside = logical_start.is_some_and(|s| s < k) && logical_end.is_none();
                        if !inside {
                            self.error(i, Some(k), "a vector instruction outside the block's logical part".into());
                        }
                    }
                    _ => {}
                }
                self.shape(i, k, inst);
            }
            let has_logical_edges = !b.logical_preds.is_empty() || !b.logical_succs.is_empty();
            if logical_start.is_some() != logical_end.is_some() {
                self.error(i, None, "p_logical_start and p_logical_end must come in pairs".into());
            } else if has_logical_edges && logical_start.is_none() {
                self.error(i, None, "a block on the logical CFG has no logical part".into());
            } else if i != 0 && !has_logical_edges && logical_start.is_some() {
                self.error(i, None, "a linear-only block has a logical part".into());
            }
        }
    }

    /// Checks one instruction's results and operands against its opcode.
    fn shape(&mut self, b: usize, k: usize, inst: &Inst) {
        let family = self.func.family;
        if !inst.opcode.exists_in(family) {
            self.error(b, Some(k), format!("{:?} does not exist on {family:?}", inst.opcode));
            return;
        }
        for d in &inst.defs {
            if let Some(t) = d.temp {
                if t.rc != d.rc {
                    self.error(b, Some(k), format!("result {t} has class {} in its definition", d.rc));
                }
            }
            if let Some(reg) = d.reg {
                self.fixed(b, k, reg, d.rc);
            } else if d.temp.is_none() {
                self.error(b, Some(k), "a result with neither a temporary nor a register".into());
            }
        }
        for op in &inst.ops {
            if let (Some(reg), Some(rc)) = (op.reg, op.rc()) {
                self.fixed(b, k, reg, rc);
            }
        }
        if inst.opcode.is_pseudo() {
            self.pseudo(b, k, inst);
            return;
        }
        let Some(shape) = shape_of(inst.opcode, family) else {
            self.error(b, Some(k), format!("{:?} has no operand shape in isa", inst.opcode));
            return;
        };
        let (implicit_defs, implicit_ops) = hw::implicit(inst.opcode);
        // GLOBAL takes an optional trailing `saddr`, SMEM an optional `soffset`. SCRATCH's
        // addresses are both optional in isa's shape; the selector always gives the VGPR one,
        // first (`lead`), and never `saddr`.
        let optional = usize::from(matches!(inst.opcode.format(family), Format::Global | Format::Smem));
        let lead = usize::from(inst.opcode.format(family) == Format::Scratch);
        let explicit_ops = inst.ops.len().saturating_sub(implicit_ops.len());
        // A GLOBAL/FLAT atomic returns the old value (one result more, the size of its data)
        // exactly when glc (GFX11) or sc0 (gfx942), bit 0 of the cache policy, is set.
        let name = inst.opcode.name(family);
        let returns = matches!(inst.opcode.format(family), Format::Global | Format::Flat)
            && (name.starts_with("global_atomic") || name.starts_with("flat_atomic"))
            && inst.fields.cpol.0 & 1 != 0;
        let returned = usize::from(returns);
        if returns {
            let data = shape.ops.get(1).map_or(1, |s| s.size);
            // A compare-and-swap's data is the new value and the compared one: it returns half.
            let data = if name.contains("cmpswap") { data / 2 } else { data };
            if inst.defs.first().is_none_or(|d| d.rc != RegClass::vgpr(data)) {
                self.error(b, Some(k), format!("a returning atomic's result must be a v{data}"));
                return;
            }
        }
        if inst.defs.len() != shape.defs.len() + implicit_defs.len() + returned
            || !(shape.ops.len() + lead..=shape.ops.len() + lead + optional).contains(&explicit_ops)
        {
            self.error(
                b,
                Some(k),
                format!(
                    "expected {} result(s) and {} operand(s) ({} and {} of them implicit), found {} and {}",
                    shape.defs.len() + implicit_defs.len(),
                    shape.ops.len() + lead + implicit_ops.len(),
                    implicit_defs.len(),
                    implicit_ops.len(),
                    inst.defs.len(),
                    inst.ops.len()
                ),
            );
            return;
        }
        for (i, d) in inst.defs.iter().enumerate().skip(returned) {
            let ok = match shape.defs.get(i) {
                Some(slot) => match slot.loc {
                    Loc::Vgpr => d.rc.ty == RegType::Vgpr && d.rc.size == slot.size,
                    Loc::Mask => d.rc == self.lane_mask,
                    _ => d.rc.is_sgpr() && d.rc.size == slot.size,
                },
                None => self.implicit_fits(implicit_defs[i - shape.defs.len()], d.reg, d.rc),
            };
            if !ok {
                self.error(b, Some(k), format!("result {i} of class {} does not fit the operation", d.rc));
            }
        }
        // With `saddr`, GLOBAL's address operand is a 32-bit VGPR offset.
        let saddr = inst.opcode.format(family) == Format::Global && explicit_ops == shape.ops.len() + 1;
        for (i, op) in inst.ops.iter().enumerate() {
            let ok = if i < lead || (saddr && i == 0) {
                self.operand_fits(isa::operands::Slot { loc: Loc::Vgpr, size: 1 }, op)
            } else if i < explicit_ops {
                let slot = shape.ops.get(i - lead).copied().unwrap_or(isa::operands::Slot { loc: Loc::Sgpr, size: 2 });
                self.operand_fits(slot, op)
            } else {
                op.rc().is_some_and(|rc| self.implicit_fits(implicit_ops[i - explicit_ops], op.reg, rc))
            };
            if !ok {
                self.error(b, Some(k), format!("operand {i} ({:?}) does not fit the operation", op.kind));
            }
        }
        if inst.opcode == Opcode::SAndSaveexecB32 && self.func.wave_size != 32
            || inst.opcode == Opcode::SAndSaveexecB64 && self.func.wave_size != 64
        {
            self.error(b, Some(k), "the saveexec width does not match the wave".into());
        }
        let format = inst.opcode.format(family);
        if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd) {
            self.valu_limits(b, k, inst, format);
        }
    }

    /// Whether an implicit result or operand is SCC (s1), or EXEC or VCC (a lane mask).
    fn implicit_fits(&self, which: hw::Implicit, reg: Option<PhysReg>, rc: RegClass) -> bool {
        match which {
            hw::Implicit::Scc => reg == Some(PhysReg::SCC) && rc == RegClass::S1,
            hw::Implicit::Exec => reg == Some(PhysReg::EXEC) && rc == self.lane_mask,
            hw::Implicit::Vcc => reg == Some(PhysReg::VCC) && rc == self.lane_mask,
        }
    }

    /// Whether `op` fits an explicit operand slot of isa's shape.
    fn operand_fits(&self, slot: isa::operands::Slot, op: &Operand) -> bool {
        let rc = op.rc();
        let constant = matches!(op.kind, OperandKind::Const(_));
        let is = |ty: RegType| rc.is_some_and(|rc| rc.ty == ty && rc.size == slot.size);
        match slot.loc {
            Loc::Vgpr => is(RegType::Vgpr),
            Loc::Sgpr => is(RegType::Sgpr),
            Loc::Ssrc => constant || is(RegType::Sgpr),
            Loc::Vsrc => constant || is(RegType::Vgpr) || is(RegType::Sgpr),
            Loc::Mask => rc == Some(self.lane_mask),
            Loc::Lane => constant || rc.is_some_and(|rc| rc.is_sgpr() && rc.size == 1),
        }
    }

    /// The constant bus, GFX9's literal-free VOP3, and the e32 encodings' constraints.
    fn valu_limits(&mut self, b: usize, k: usize, inst: &Inst, format: Format) {
        let family = self.func.family;
        let vop3 = inst.vop3 || matches!(format, Format::Vop3 | Format::Vop3sd);
        let (scalars, literals) = hw::scalar_reads(inst.opcode, family, &inst.ops);
        let limit = isa::constant_bus::limit(family.generation(), inst.opcode);
        if scalars > limit {
            self.error(b, Some(k), format!("{scalars} scalar operands exceed the constant bus ({limit})"));
        }
        if vop3 && literals > 0 && !isa::constant_bus::vop3_literal(family.generation()) {
            self.error(b, Some(k), "a literal in a VOP3 instruction on GFX9".into());
        }
        if !vop3 && hw::needs_vop3(inst.opcode, family, &inst.defs, &inst.ops) {
            self.error(
                b,
                Some(k),
                "the e32 encoding needs a VGPR second source and its lane mask in VCC (mark it vop3)".into(),
            );
        }
    }

    /// The shapes of the pseudo-instructions.
    fn pseudo(&mut self, b: usize, k: usize, inst: &Inst) {
        let size = |rc: Option<RegClass>| rc.map_or(1, |rc| rc.size);
        let block = &self.func.blocks[b];
        match inst.opcode {
            Opcode::PStartPgm => {
                if !inst.ops.is_empty() || inst.defs.iter().any(|d| d.reg.is_none() || d.temp.is_none()) {
                    self.error(
                        b,
                        Some(k),
                        "p_startpgm defines temporaries fixed to registers, and reads nothing".into(),
                    );
                }
            }
            Opcode::PParallelCopy => {
                if inst.defs.len() != inst.ops.len() {
                    self.error(b, Some(k), "a parallel copy needs one operand per result".into());
                }
                for (d, op) in inst.defs.iter().zip(&inst.ops) {
                    if size(op.rc()) != d.rc.size && op.rc().is_some() {
                        self.error(b, Some(k), "a copy between different sizes".into());
                    }
                    if d.rc.is_sgpr() && op.rc().is_some_and(|rc| rc.ty == RegType::Vgpr) {
                        self.error(b, Some(k), "a copy from a VGPR into an SGPR (needs v_readfirstlane)".into());
                    }
                }
            }
            Opcode::PPhi | Opcode::PLinearPhi => {
                let preds =
                    if inst.opcode == Opcode::PPhi { block.logical_preds.len() } else { block.linear_preds.len() };
                if inst.defs.len() != 1 || inst.ops.len() != preds {
                    self.error(b, Some(k), format!("a phi needs one result and one operand per predecessor ({preds})"));
                    return;
                }
                let rc = inst.defs[0].rc;
                // A lane mask merged per lane is an accumulation, not a phi: a `p_phi` of SGPRs
                // would be copied whole from whichever predecessor ran last.
                if inst.opcode == Opcode::PPhi && rc.is_sgpr() || inst.opcode == Opcode::PLinearPhi && !rc.linear {
                    self.error(b, Some(k), format!("a {} of class {rc}", inst.opcode.name(self.func.family)));
                }
                if inst.ops.iter().any(|op| op.rc() != Some(rc)) {
                    self.error(b, Some(k), "a phi operand of another class than the phi".into());
                }
            }
            Opcode::PSplitVector | Opcode::PCreateVector => {
                let (whole, parts): (Option<RegClass>, Vec<Option<RegClass>>) = if inst.opcode == Opcode::PSplitVector {
                    (inst.ops.first().and_then(Operand::rc), inst.defs.iter().map(|d| Some(d.rc)).collect())
                } else {
                    (inst.defs.first().map(|d| d.rc), inst.ops.iter().map(Operand::rc).collect())
                };
                let shape_ok = inst.defs.len().min(inst.ops.len()) == 1 && inst.defs.len().max(inst.ops.len()) >= 1;
                let Some(whole) = whole.filter(|_| shape_ok) else {
                    self.error(b, Some(k), "a vector pseudo needs one whole and its parts".into());
                    return;
                };
                let total: u8 = parts.iter().map(|&p| size(p)).sum();
                if total != whole.size {
                    self.error(b, Some(k), format!("parts of {total} dwords for a whole of {}", whole.size));
                }
                let mixed = parts.iter().flatten().any(|p| p.ty != whole.ty);
                let allowed = inst.opcode == Opcode::PCreateVector && whole.ty == RegType::Vgpr;
                if mixed && !allowed || parts.iter().flatten().any(|p| whole.is_sgpr() && p.ty == RegType::Vgpr) {
                    self.error(b, Some(k), "a vector and its parts in different register files".into());
                }
            }
            Opcode::PLogicalStart | Opcode::PLogicalEnd | Opcode::PBranch => {
                if !inst.defs.is_empty() || !inst.ops.is_empty() {
                    self.error(b, Some(k), "this pseudo takes no operands".into());
                }
            }
            Opcode::PCbranchExecz => {
                if !(inst.ops.len() == 1
                    && inst.ops[0].rc().is_some_and(|rc| self.implicit_fits(hw::Implicit::Exec, inst.ops[0].reg, rc)))
                {
                    self.error(b, Some(k), "p_cbranch_execz reads EXEC".into());
                }
            }
            Opcode::PCbranchScc0 => {
                if !(inst.ops.len() == 1
                    && inst.ops[0].rc().is_some_and(|rc| self.implicit_fits(hw::Implicit::Scc, inst.ops[0].reg, rc)))
                {
                    self.error(b, Some(k), "p_cbranch_scc0 reads SCC".into());
                }
            }
            _ => self.error(b, Some(k), format!("the verifier does not know {:?}", inst.opcode)),
        }
    }

    /// A register fixed for a result or operand has a class that register can hold.
    fn fixed(&mut self, b: usize, k: usize, reg: PhysReg, rc: RegClass) {
        let ok = match reg {
            PhysReg::SCC => rc == RegClass::S1,
            PhysReg::VCC | PhysReg::EXEC => rc == self.lane_mask,
            PhysReg::NULL => rc.is_sgpr(),
            r => r.reg_type() == rc.ty,
        };
        if !ok {
            self.error(b, Some(k), format!("class {rc} cannot live in {}", isa::reg::reg_name(reg, rc.size)));
        }
    }

    /// Single definitions, one class per temporary, definitions before uses in linear order.
    fn ssa(&mut self) {
        // Where each temporary is defined: (block, position), and its class.
        let mut defs: HashMap<u32, (usize, usize, RegClass)> = HashMap::new();
        for (b, block) in self.func.blocks.iter().enumerate() {
            for (k, inst) in block.insts.iter().enumerate() {
                for t in inst.defs.iter().filter_map(|d| d.temp) {
                    if t.id >= self.func.temps {
                        self.error(b, Some(k), format!("{t} is beyond the function's {} temporaries", self.func.temps));
                    }
                    if let Some(&(db, dk, _)) = defs.get(&t.id) {
                        self.error(b, Some(k), format!("{t} is defined a second time (first in BB{db} #{dk})"));
                    } else {
                        defs.insert(t.id, (b, k, t.rc));
                    }
                }
            }
        }
        for (b, block) in self.func.blocks.iter().enumerate() {
            for (k, inst) in block.insts.iter().enumerate() {
                let phi = matches!(inst.opcode, Opcode::PPhi | Opcode::PLinearPhi);
                let preds = if inst.opcode == Opcode::PPhi { &block.logical_preds } else { &block.linear_preds };
                for (n, t) in inst.ops.iter().enumerate().filter_map(|(n, op)| op.temp_of().map(|t| (n, t))) {
                    let Some(&(db, dk, rc)) = defs.get(&t.id) else {
                        self.error(b, Some(k), format!("{t} is never defined"));
                        continue;
                    };
                    if rc != t.rc {
                        self.error(b, Some(k), format!("{t} is used with class {} but defined with class {rc}", t.rc));
                    }
                    let before = if phi {
                        // Read at the end of the predecessor.
                        preds.get(n).is_some_and(|&p| db <= p as usize)
                    } else {
                        db < b || db == b && dk < k
                    };
                    if !before {
                        self.error(b, Some(k), format!("{t} is used before its definition in BB{db} #{dk}"));
                    }
                }
            }
        }
    }
}

impl fmt::Display for MirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(std::slice::from_ref(self)))
    }
}
