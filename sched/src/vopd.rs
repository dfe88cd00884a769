//! GFX11 dual issue on allocated MIR: two independent VALU operations that have VOPD
//! components ([`isa::vopd`]) become one VOPD instruction (`v_dual_mul_f32 v0, v1, v2 ::
//! v_dual_add_nc_u32 v3, v4, v5`), one instruction word pair issued as one, in wave32 (the
//! only wave size with VOPD).
//!
//! For each VALU operation `I` with a component, in order, the pass looks at most `WINDOW`
//! instructions ahead for a partner `J` with one: both in their `_e32` form without modifiers,
//! one of them allowed in the X slot, `J` not reading what `I` writes (a pair reads all its
//! sources before it writes: `I` reading what `J` writes is fine), their registers within
//! [`isa::vopd::register_rule`] and their scalar values within [`isa::vopd::MAX_SCALARS`], at
//! most one literal value. `J` then moves up to `I`'s place, which needs every instruction
//! between to commute with it: none of them writes a register `J` reads (EXEC and VCC
//! included) or reads or writes the one `J` writes, and none is a pseudo-instruction, a
//! program-control instruction (SOPP: branches, waits, barriers, messages) or a VOPD pair
//! already formed. LLVM forms pairs only of instructions its scheduler put side by side
//! (`GCNCreateVOPD`); the window here finds them across independent instructions too.
//!
//! The pass runs after register allocation (the rules are about registers) and the branch
//! cleanup, before the hazard, wait and `s_delay_alu` passes, which then see the pairs; each
//! instruction looks at a bounded window and each block is rebuilt once, so the pass is linear
//! in the function.

use isa::mir::{Def, Fields, Function, Inst, Operand, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegType};
use isa::table;
use isa::vopd::{component, register_rule, scalar_values, Component, Half, MAX_SCALARS};
use smallvec::SmallVec;

/// How many instructions after an operation its partner may be.
const WINDOW: usize = 8;

/// One half of a possible pair.
struct Candidate {
    component: Component,
    /// The result.
    def: Def,
    /// The sources the component takes (without `v_cndmask_b32`'s VCC, which its component
    /// reads implicitly).
    ops: SmallVec<[Operand; 2]>,
}

/// Pairs the VALU operations of `func` (wave32 on GFX11 only); returns how many pairs it made.
pub fn pair_vopd(func: &mut Function) -> usize {
    if func.family != Family::Gfx11 || func.wave_size != 32 {
        return 0;
    }
    let family = func.family;
    let mut pairs = 0;
    // The instructions of the block that moved into a pair (buffer reused across blocks).
    let mut taken: Vec<bool> = Vec::new();
    for block in &mut func.blocks {
        taken.clear();
        taken.resize(block.insts.len(), false);
        let mut out = Vec::with_capacity(block.insts.len());
        for i in 0..block.insts.len() {
            if taken[i] {
                continue;
            }
            let paired = candidate(&block.insts[i], family).and_then(|x| partner(&block.insts, &taken, i, &x, family));
            match paired {
                Some((j, inst)) => {
                    taken[j] = true;
                    out.push(inst);
                    pairs += 1;
                }
                None => out.push(std::mem::replace(&mut block.insts[i], Inst::new(Opcode::SNop, &[], &[]))),
            }
        }
        block.insts = out;
    }
    pairs
}

/// `inst` as a half of a pair, if it can be one.
fn candidate(inst: &Inst, family: Family) -> Option<Candidate> {
    if inst.vop3 || inst.fields != Fields::default() || inst.defs.len() != 1 {
        return None;
    }
    let component = component(inst.opcode, family)?;
    let def = inst.defs[0];
    def.reg.filter(|r| r.reg_type() == RegType::Vgpr && def.rc.size == 1)?;
    let sources = table::info(component.opcode, family)?.uses().count();
    let mut ops: SmallVec<[Operand; 2]> = SmallVec::new();
    for (k, op) in inst.ops.iter().enumerate() {
        if k < sources {
            // Every source is one dword: a register with its number, or a constant.
            if !matches!(op.kind, OperandKind::Const(_)) && op.rc().is_none_or(|rc| rc.size != 1 || op.reg.is_none()) {
                return None;
            }
            ops.push(*op);
        } else if !(inst.opcode == Opcode::VCndmaskB32 && op.reg == Some(PhysReg::VCC)) {
            return None;
        }
    }
    (ops.len() == sources).then_some(Candidate { component, def, ops })
}

/// Registers as (first register, count) runs.
type Runs<const N: usize> = SmallVec<[(u16, u16); N]>;

/// The registers an instruction reads and writes.
fn footprint(inst: &Inst) -> (Runs<6>, Runs<3>) {
    let run = |reg: Option<PhysReg>, size: u8| reg.map(|r| (r.0, u16::from(size.max(1))));
    let mut reads: Runs<6> = inst.ops.iter().filter_map(|o| run(o.reg, o.rc().map_or(1, |rc| rc.size))).collect();
    if isa::operands::reads_result(inst.opcode) {
        reads.extend(inst.defs.iter().filter_map(|d| run(d.reg, d.rc.size)));
    }
    let writes = inst.defs.iter().filter_map(|d| run(d.reg, d.rc.size)).collect();
    // Every vector operation reads EXEC (`v_cndmask_b32_e32` names the VCC it reads).
    reads.push((PhysReg::EXEC.0, 2));
    (reads, writes)
}

fn overlap(a: &[(u16, u16)], b: &[(u16, u16)]) -> bool {
    a.iter().any(|&(x, n)| b.iter().any(|&(y, m)| x < y + m && y < x + n))
}

/// Whether an instruction may stand between a pair's halves' old places (see the module
/// comment for the register conditions, checked by the caller).
fn may_cross(inst: &Inst, family: Family) -> bool {
    !inst.opcode.is_pseudo() && !matches!(inst.opcode.format(family), Format::Sopp | Format::Vopd)
}

/// The partner of `x` (the instruction at `i`) within the window, with the pair they make; the
/// instructions `taken` already moved into earlier pairs are no longer between.
fn partner(insts: &[Inst], taken: &[bool], i: usize, x: &Candidate, family: Family) -> Option<(usize, Inst)> {
    let (_, x_writes) = footprint(&insts[i]);
    // What the instructions between write and read, as the window grows.
    let mut written: SmallVec<[(u16, u16); 16]> = SmallVec::new();
    let mut read: SmallVec<[(u16, u16); 16]> = SmallVec::new();
    for j in (i + 1..insts.len()).filter(|&j| !taken[j]).take(WINDOW) {
        let inst = &insts[j];
        let (reads, writes) = footprint(inst);
        if let Some(y) = candidate(inst, family) {
            let independent = !overlap(&reads, &x_writes) && !overlap(&writes, &x_writes);
            let movable = !overlap(&reads, &written) && !overlap(&writes, &written) && !overlap(&writes, &read);
            if independent && movable {
                if let Some(pair) = pair(x, &y, family) {
                    return Some((j, pair));
                }
            }
        }
        if !may_cross(inst, family) {
            return None;
        }
        written.extend(writes);
        read.extend(reads);
    }
    None
}

/// The VOPD instruction of `a` and `b` (in either slot order), if their registers and scalar
/// operands allow one.
fn pair(a: &Candidate, b: &Candidate, family: Family) -> Option<Inst> {
    let (x, y) = match (a.component.x, b.component.x) {
        (true, _) => (a, b),
        (false, true) => (b, a),
        (false, false) => return None,
    };
    let half = |c: &Candidate| Half {
        dst: c.def.reg.map_or(0, PhysReg::index),
        src0: c.ops.first().and_then(|o| o.reg).filter(|r| r.reg_type() == RegType::Vgpr).map(PhysReg::index),
        src1: c.ops.get(1).and_then(|o| o.reg).map(PhysReg::index),
    };
    register_rule(half(x), half(y)).ok()?;
    // The constants in the first sources: inline ones cost nothing, the others are the one
    // literal both halves may share.
    let mut literal = None;
    for c in [x, y] {
        let Some(OperandKind::Const(value)) = c.ops.first().map(|o| o.kind) else { continue };
        let ctype = table::info(c.component.opcode, family)?.uses().next()?.ctype;
        if isa::encoding::inline_field_typed(value, ctype).is_none() {
            if literal.is_some_and(|l| l != value) {
                return None;
            }
            literal = Some(value);
        }
    }
    let sgprs = x.ops.iter().chain(&y.ops).filter_map(|o| o.reg.filter(|r| r.reg_type() == RegType::Sgpr));
    let cndmask = [x, y].iter().any(|c| c.component.opcode == Opcode::VDualCndmaskB32);
    if scalar_values(sgprs.chain(cndmask.then_some(PhysReg::VCC)), literal.is_some()) > MAX_SCALARS {
        return None;
    }
    let ops: SmallVec<[Operand; 4]> = x.ops.iter().chain(&y.ops).copied().collect();
    let fields = Fields { vopd_y: Some(y.component.opcode), ..Fields::default() };
    Some(Inst::new(x.component.opcode, &[x.def, y.def], &ops).with_fields(fields))
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir_parse::parse_function;

    /// The block of `body` (allocated MIR lines) after pairing, printed, with the pair count.
    fn paired(body: &str, wave: u32) -> (usize, String) {
        let text = format!(
            "function t (wave{wave}):\nBB0: /* logical preds:  / linear preds:  / uniform */\n{body}  s_endpgm\n"
        );
        let mut f = parse_function(&text, Family::Gfx11).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let n = pair_vopd(&mut f);
        let insts: Vec<String> =
            f.blocks[0].insts.iter().map(|i| isa::mir::DisplayInst(i, f.family).to_string()).collect();
        (n, insts.join("\n"))
    }

    #[test]
    fn independent_operations_pair_across_others() {
        // The add moves up past the scalar operation and the load, which it does not touch.
        let (n, out) =
            paired("  v0 = v_mul_f32 v1, v2\n  s4 = s_mov_b32 s5\n  v9 = global_load_b32 v[10:11]\n  v3 = v_add_nc_u32 v4, v7\n", 32);
        assert_eq!(n, 1, "{out}");
        assert!(out.starts_with("v0, v3 = v_dual_mul_f32 v1, v2, v4, v7 vopd_y:v_dual_add_nc_u32"), "{out}");
        // An accumulation pairs too (its accumulator is its result register).
        let (n, out) = paired("  v0 = v_fmac_f32 v1, v2\n  v3 = v_mul_f32 v4, v7\n", 32);
        assert_eq!(n, 1, "{out}");
        assert!(out.starts_with("v0, v3 = v_dual_fmac_f32 v1, v2, v4, v7 vopd_y:v_dual_mul_f32"), "{out}");
        // The integer add only goes in Y, even when it comes first.
        let (n, out) = paired("  v3 = v_add_nc_u32 v4, v7\n  v0 = v_mul_f32 v1, v2\n", 32);
        assert_eq!(n, 1, "{out}");
        assert!(out.starts_with("v0, v3 = v_dual_mul_f32 v1, v2, v4, v7 vopd_y:v_dual_add_nc_u32"), "{out}");
    }

    #[test]
    fn dependent_or_conflicting_operations_stay() {
        let cases = [
            // The second reads the first's result.
            "  v0 = v_mul_f32 v1, v2\n  v3 = v_add_f32 v0, v6\n",
            // Both results even.
            "  v0 = v_mul_f32 v1, v2\n  v4 = v_add_f32 v5, v7\n",
            // The first sources in one bank (v1, v5), the same register (v1, v1).
            "  v0 = v_mul_f32 v1, v2\n  v3 = v_add_f32 v5, v7\n",
            "  v0 = v_mul_f32 v1, v2\n  v3 = v_add_f32 v1, v7\n",
            // Two literals; three scalar values.
            "  v0 = v_mul_f32 0x12345, v2\n  v3 = v_add_f32 0x54321, v7\n",
            "  v0 = v_mul_f32 0x12345, v2\n  v3 = v_cndmask_b32 s0, v7, vcc\n",
            // Something between writes the partner's source, or reads its result.
            "  v0 = v_mul_f32 v1, v2\n  v6 = v_mov_b32 0x0\n  v3 = v_add_f32 v5, v6\n",
            "  v0 = v_mul_f32 v1, v2\n  v9 = v_xor_b32 v3, v1\n  v3 = v_add_f32 v5, v7\n",
            // EXEC changes between them.
            "  v0 = v_mul_f32 v1, v2\n  exec_lo = s_mov_b32 s0\n  v3 = v_add_f32 v5, v7\n",
            // A modifier (the VOP3 form).
            "  v0 = v_mul_f32 v1, v2\n  v3 = v_add_f32 v5, v7 neg:1\n",
        ];
        for body in cases {
            let (n, out) = paired(body, 32);
            assert_eq!(n, 0, "{body}=>\n{out}");
        }
        // One literal shared by both halves is allowed; wave64 has no VOPD.
        let shared = "  v0 = v_mul_f32 0x12345, v2\n  v3 = v_add_f32 0x12345, v7\n";
        assert_eq!(paired(shared, 32).0, 1);
        assert_eq!(paired(shared, 64).0, 0);
    }
}
