//! Loop-invariant code motion on MIR, before register allocation: an ALU instruction inside a
//! loop whose operands are all defined before the loop moves to the loop's preheader, so it
//! runs once instead of in every iteration.
//!
//! The IR optimizer hoists what the IR shows; this pass takes what instruction selection
//! expands: the reciprocal of a loop-invariant divisor that a 32-bit division or remainder
//! computes in VALU instructions (eight of them), address and constant set-up, conversions.
//!
//! What moves is exactly what cannot tell where it runs: SALU and VALU operations with
//! temporaries for results (a VALU operation writing VGPRs only: a lane mask written by a
//! VALU compare or carry has zero bits for the lanes inactive there, and a lane read
//! (`v_readfirstlane_b32`) depends on which lanes are active), no fixed register among its
//! operands or results but SCC written by an SALU operation, no DPP, SDWA or other modifier
//! field, and no cross-lane operation (`v_permlane*`); and not a constant's materialization
//! (an operation without a temporary among its operands), which is cheaper to repeat than to
//! keep in a register across the loop. Such an operation computes, in the
//! preheader, for every lane entering the loop (a superset of the lanes that run any
//! iteration) the value each iteration would; nothing it does traps. The preheader is the
//! linear predecessor before the header in the layout, whose only successor is the header;
//! the instructions go before its `p_logical_end`, where EXEC still holds the entering lanes.
//!
//! Loops are visited inner first (headers in reverse layout order), so what leaves an inner
//! loop can leave the outer one too. Each loop's blocks are scanned once.

use isa::mir::{Fields, Function, Inst, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegType};

/// Moves the loop-invariant ALU instructions of `func` to their loops' preheaders; returns how
/// many moved.
pub fn hoist_invariants(func: &mut Function) -> usize {
    // The block defining each temporary (updated as instructions move).
    let mut def_block = vec![u32::MAX; func.temps as usize];
    for (b, block) in func.blocks.iter().enumerate() {
        for inst in &block.insts {
            for t in inst.defs.iter().filter_map(|d| d.temp) {
                def_block[t.id as usize] = b as u32;
            }
        }
    }
    let family = func.family;
    let mut moved = 0;
    for h in (0..func.blocks.len()).rev() {
        if !func.blocks[h].kind.loop_header {
            continue;
        }
        let header = &func.blocks[h];
        let Some(&last) = header.linear_preds.iter().filter(|&&p| p as usize >= h).max() else { continue };
        let mut outside = header.linear_preds.iter().filter(|&&p| (p as usize) < h);
        let (Some(&pre), None) = (outside.next(), outside.next()) else { continue };
        if func.blocks[pre as usize].linear_succs.as_slice() != [h as u32] {
            continue;
        }
        let Some(at) = func.blocks[pre as usize].insts.iter().rposition(|i| i.opcode == Opcode::PLogicalEnd) else {
            continue;
        };
        let in_loop = |b: u32| (h as u32..=last).contains(&b);
        let mut hoisted = Vec::new();
        for b in h..=last as usize {
            let insts = std::mem::take(&mut func.blocks[b].insts);
            let mut kept = Vec::with_capacity(insts.len());
            for inst in insts {
                let invariant = inst.ops.iter().all(|op| match op.kind {
                    OperandKind::Temp(t) => !in_loop(def_block[t.id as usize]),
                    _ => true,
                });
                if invariant && movable(&inst, family) {
                    for t in inst.defs.iter().filter_map(|d| d.temp) {
                        def_block[t.id as usize] = pre;
                    }
                    hoisted.push(inst);
                } else {
                    kept.push(inst);
                }
            }
            func.blocks[b].insts = kept;
        }
        moved += hoisted.len();
        func.blocks[pre as usize].insts.splice(at..at, hoisted);
    }
    moved
}

/// Whether `inst` computes the same in any block its operands reach (see the module comment).
fn movable(inst: &Inst, family: Family) -> bool {
    let valu = match inst.opcode.format(family) {
        Format::Sop1 | Format::Sop2 | Format::Sopk => false,
        Format::Vop1 | Format::Vop2 | Format::Vop3 | Format::Vop3p => true,
        _ => return false,
    };
    let name = inst.opcode.name(family);
    if inst.defs.is_empty()
        || name.starts_with("v_permlane")
        || name == "s_getpc_b64"
        || inst.fields != Fields::default()
    {
        return false;
    }
    let defs_ok = inst.defs.iter().all(|d| match (d.temp, d.reg) {
        (Some(t), None) => (t.rc.ty == RegType::Vgpr) == valu,
        (None, Some(r)) => !valu && r == PhysReg::SCC,
        _ => false,
    });
    // A constant's materialization (no temporary among the operands) stays: one instruction
    // per iteration costs less than a register held across the whole loop.
    let reads_a_temp = inst.ops.iter().any(|op| matches!(op.kind, OperandKind::Temp(_)));
    defs_ok && reads_a_temp && inst.ops.iter().all(|op| op.reg.is_none() && !matches!(op.kind, OperandKind::Phys(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir::DisplayInst;
    use isa::mir_parse::parse_function;

    /// Two nested loops (BB2 inside BB1): the names of each block's instructions after the pass.
    fn hoisted(family: Family) -> Vec<Vec<String>> {
        let text = "function k (wave64):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:s2@s[0:1], %1:s1@s2, %2:v1@v0 = p_startpgm
  p_logical_start
  %5:s1 = s_load_dword %0:s2 offset:16
  p_logical_end
  p_branch target:BB1
BB1: /* logical preds: BB0, BB3 / linear preds: BB0, BB3 / loop header */
  %10:v1 = p_phi %2:v1, %30:v1
  p_logical_start
  %11:s1 = v_readfirstlane_b32 %2:v1
  %12:v1 = v_cvt_f32_u32 %5:s1
  %13:v1 = v_rcp_f32 %12:v1
  %14:s2 = v_cmp_le_u32 %5:s1, %2:v1 vop3
  %15:v1 = v_add_u32 %13:v1, %10:v1
  p_logical_end
  p_branch target:BB2
BB2: /* logical preds: BB1, BB2 / linear preds: BB1, BB2 / loop header */
  %20:v1 = p_phi %15:v1, %23:v1
  p_logical_start
  %21:s1, scc = s_add_u32 %5:s1, %1:s1
  %22:v1 = v_mul_lo_u32 %21:s1, %13:v1
  %23:v1 = v_add_u32 %22:v1, %20:v1
  %24:v1 = v_cndmask_b32 %23:v1, %22:v1, %14:s2 vop3
  p_logical_end
  p_cbranch_execz exec target:BB3
BB3: /* logical preds: BB2 / linear preds: BB2 */
  p_logical_start
  %30:v1 = v_add_u32 %24:v1, %11:s1
  p_logical_end
  p_branch target:BB1
BB4: /* logical preds: BB3 / linear preds: BB3 */
  s_endpgm
";
        let mut func = parse_function(text, family).expect("the test MIR parses");
        hoist_invariants(&mut func);
        let name = |i: &Inst| DisplayInst(i, family).to_string().split(" = ").last().unwrap_or("").to_string();
        func.blocks
            .iter()
            .map(|b| b.insts.iter().map(name).map(|n| n.split(' ').next().unwrap().to_string()).collect())
            .collect()
    }

    /// The reciprocal of the invariant `%5` leaves both loops; the SALU sum leaves the inner
    /// loop and then the outer one, and the product that reads it follows; the lane read, the
    /// compare's lane mask and everything that reads a phi stay.
    #[test]
    fn invariant_alu_leaves_its_loops() {
        let blocks = hoisted(Family::Gfx9);
        assert_eq!(
            blocks[0],
            [
                "p_startpgm",
                "p_logical_start",
                "s_load_dword",
                "v_cvt_f32_u32",
                "v_rcp_f32",
                "s_add_u32",
                "v_mul_lo_u32",
                "p_logical_end",
                "p_branch"
            ]
        );
        assert_eq!(
            blocks[1],
            [
                "p_phi",
                "p_logical_start",
                "v_readfirstlane_b32",
                "v_cmp_le_u32",
                "v_add_u32",
                "p_logical_end",
                "p_branch"
            ]
        );
        assert_eq!(
            blocks[2],
            ["p_phi", "p_logical_start", "v_add_u32", "v_cndmask_b32", "p_logical_end", "p_cbranch_execz"]
        );
    }
}
