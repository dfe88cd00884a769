//! The accumulating form of fused multiply-add, on allocated MIR: `v_fma_f32 vD, a, b, vD`
//! (the result in the register of the addend) becomes `v_fmac_f32 vD, a, b`, a VOP2 of one
//! word instead of two (a literal source then takes the second), and a VOPD component on gfx11.
//! It computes the same, `a * b + vD` rounded once; the form has no modifiers, so only an
//! `v_fma_f32` without neg, abs, clamp or omod changes, and its second source must be a VGPR
//! (the sources swap when only the first is one, the product being the same). The allocator
//! often gives an accumulation its addend's register, since the addend dies there. The
//! accumulator read stays visible to the later passes through
//! [`isa::operands::reads_result`]. One pass over the instructions.

use isa::mir::{Fields, Function, OperandKind};
use isa::opcode::Opcode;
use isa::reg::RegType;

/// Rewrites the `v_fma_f32` of `func` whose result register is their addend's; returns how
/// many it rewrote.
pub fn use_fmac(func: &mut Function) -> usize {
    let mut rewritten = 0;
    for inst in func.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        if inst.opcode != Opcode::VFmaF32 || inst.fields != Fields::default() || inst.ops.len() != 3 {
            continue;
        }
        let [def] = inst.defs.as_slice() else { continue };
        let vgpr = |op: &isa::mir::Operand| {
            !matches!(op.kind, OperandKind::Const(_))
                && op.reg.is_some_and(|r| r.reg_type() == RegType::Vgpr)
                && op.rc().is_some_and(|rc| rc.size == 1)
        };
        if def.reg.is_none() || inst.ops[2].reg != def.reg || !vgpr(&inst.ops[2]) {
            continue;
        }
        if !vgpr(&inst.ops[1]) {
            if !vgpr(&inst.ops[0]) {
                continue;
            }
            inst.ops.swap(0, 1);
        }
        inst.opcode = Opcode::VFmacF32;
        inst.vop3 = false;
        inst.ops.truncate(2);
        rewritten += 1;
    }
    rewritten
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir_parse::parse_function;
    use isa::opcode::Family;

    fn rewritten(body: &str, family: Family) -> (usize, String) {
        let text =
            format!("function t (wave32):\nBB0: /* logical preds:  / linear preds:  / uniform */\n{body}  s_endpgm\n");
        let mut f = parse_function(&text, family).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let n = use_fmac(&mut f);
        (n, isa::mir::DisplayInst(&f.blocks[0].insts[0], family).to_string())
    }

    #[test]
    fn accumulations_take_the_two_source_form() {
        for family in [Family::Gfx11, Family::Gfx9] {
            assert_eq!(rewritten("  v0 = v_fma_f32 v1, v2, v0\n", family), (1, "v0 = v_fmac_f32 v1, v2".into()));
            // The second source must be a VGPR: the sources swap.
            assert_eq!(rewritten("  v0 = v_fma_f32 v1, s2, v0\n", family), (1, "v0 = v_fmac_f32 s2, v1".into()));
            // Another result register, a modifier, or no VGPR among the factors: unchanged.
            for body in [
                "  v3 = v_fma_f32 v1, v2, v0\n",
                "  v0 = v_fma_f32 v1, v2, v0 neg:1\n",
                "  v0 = v_fma_f32 s1, s2, v0\n",
            ] {
                assert_eq!(rewritten(body, family).0, 0, "{body}");
            }
        }
    }
}
