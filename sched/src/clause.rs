//! Hard clauses on GFX10+ (LLVM's `SIInsertHardClauses`): an `s_clause` before each run of two
//! or more scalar loads, or of two or more global and scratch loads, that follow each other in
//! a block, so the wave issues them back to back and keeps its cache lines. The rules are
//! `isa::hazard`'s, which the emulator checks too: at most [`MAX_HARD_CLAUSE`] instructions,
//! one [`ClauseKind`], `s_nop` allowed between them (counted, but not at the clause's end);
//! anything else ends the run, `s_waitcnt` included, so this runs after the waits are in
//! ([`crate::waitcnt::insert_waits`]) and before `s_delay_alu`, which counts instructions and
//! never goes between two loads. Unlike LLVM, which clauses only accesses of one base pointer
//! (a heuristic of its scheduler's clustering), any run of loads of a kind is a clause here:
//! the rule the hardware states is only the kind. Stores, atomics and LDS accesses are left
//! out, as LLVM leaves LDS out. One pass over each block.

use isa::hazard::{clause_kind, has_hard_clauses, ClauseKind, MAX_HARD_CLAUSE};
use isa::mir::{Function, Inst};
use isa::opcode::Opcode;
use isa::processor::Processor;

/// The run being gathered: its instructions, kind, length up to its last load, `s_nop`s
/// after that, and loads.
struct Run {
    insts: Vec<Inst>,
    kind: ClauseKind,
    length: usize,
    trailing: usize,
    loads: usize,
}

impl Run {
    /// Moves the run to `out`, after an `s_clause` when it holds two loads or more; gives
    /// whether it put one.
    fn flush(&mut self, out: &mut Vec<Inst>) -> bool {
        let clause = self.loads >= 2;
        if clause {
            let mut inst = Inst::new(Opcode::SClause, &[], &[]);
            inst.fields.imm = (self.length - 1) as u16;
            out.push(inst);
        }
        out.append(&mut self.insts);
        *self = Run { insts: std::mem::take(&mut self.insts), ..Run::EMPTY };
        clause
    }

    const EMPTY: Run = Run { insts: Vec::new(), kind: ClauseKind::Illegal, length: 0, trailing: 0, loads: 0 };
}

/// Puts an `s_clause` before each run of scalar or vector loads of `func` when `proc` has hard
/// clauses; returns how many it put.
pub fn insert_clauses(func: &mut Function, proc: &Processor) -> u32 {
    if !has_hard_clauses(proc) {
        return 0;
    }
    let family = func.family;
    let mut clauses = 0;
    let mut run = Run::EMPTY;
    for block in &mut func.blocks {
        let mut out = Vec::with_capacity(block.insts.len() + 4);
        for inst in block.insts.drain(..) {
            if inst.opcode.is_marker() {
                if run.length > 0 {
                    run.insts.push(inst);
                } else {
                    out.push(inst);
                }
                continue;
            }
            let kind = clause_kind(&inst, family);
            if run.length > 0 {
                if kind == ClauseKind::Internal && run.length + run.trailing < MAX_HARD_CLAUSE {
                    run.trailing += 1;
                    run.insts.push(inst);
                    continue;
                }
                if kind == run.kind && run.length + run.trailing < MAX_HARD_CLAUSE {
                    run.length += run.trailing + 1;
                    run.trailing = 0;
                    run.loads += 1;
                    run.insts.push(inst);
                    continue;
                }
                clauses += u32::from(run.flush(&mut out));
            }
            if matches!(kind, ClauseKind::Smem | ClauseKind::VmemLoad) {
                run.kind = kind;
                run.length = 1;
                run.loads = 1;
                run.insts.push(inst);
            } else {
                out.push(inst);
            }
        }
        clauses += u32::from(run.flush(&mut out));
        block.insts = out;
    }
    clauses
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir::Block;
    use isa::opcode::Family;

    /// The clause lengths (`s_clause` immediates plus one) and what follows each, as the
    /// block reads: `S` a scalar load, `G` a global load, `N` an `s_nop`, `V` a VALU operation.
    fn clauses(code: &str, proc: &str) -> String {
        let mut func = Function::new("k", Family::Gfx11, 32);
        let op = |c| match c {
            'S' => Opcode::SLoadB32,
            'G' => Opcode::GlobalLoadB32,
            'N' => Opcode::SNop,
            _ => Opcode::VMovB32,
        };
        let insts = code.chars().map(|c| Inst::new(op(c), &[], &[])).collect();
        func.blocks.push(Block { insts, ..Block::default() });
        insert_clauses(&mut func, Processor::find(proc).unwrap());
        let name = |i: &Inst| match i.opcode {
            Opcode::SClause => format!("[{}]", i.fields.imm + 1),
            Opcode::SLoadB32 => "S".into(),
            Opcode::GlobalLoadB32 => "G".into(),
            Opcode::SNop => "N".into(),
            _ => "V".into(),
        };
        func.blocks[0].insts.iter().map(name).collect()
    }

    /// Runs of one kind only, the `s_nop`s between counted and those after left out, none of
    /// one load, and at most 63 instructions each; no clause before GFX10.
    #[test]
    fn runs_of_one_kind_within_the_limit() {
        assert_eq!(clauses("SSGGVG", "gfx1100"), "[2]SS[2]GGVG");
        assert_eq!(clauses("GNGNNVSNS", "gfx1100"), "[3]GNGNNV[3]SNS");
        assert_eq!(clauses("SSGGVG", "gfx942"), "SSGGVG");
        let long = "S".repeat(70);
        assert_eq!(clauses(&long, "gfx1100"), format!("[63]{}[7]{}", &long[..63], &long[63..]));
    }
}
