//! Facts about operations that selection and the MIR verifier need beyond `isa`'s operand
//! shapes ([`isa::operands::shape_of`], the explicit results and operands in assembly order),
//! inline constants ([`isa::encoding::inline_field_typed`]) and the constant bus
//! ([`isa::constant_bus`]): which operations commute, and the *implicit* results and operands
//! (SCC, EXEC) that the MIR carries after the explicit ones so that register allocation sees
//! every write of SCC and EXEC. They belong in `isa`'s opcode table; until it has them, this is their one home.

use isa::encoding::inline_field_typed;
use isa::mir::{Def, Operand, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::operands::{shape_of, Loc};
use isa::reg::{PhysReg, RegType};
use isa::table::{self, ConstType, Role};
use smallvec::SmallVec;

/// Whether the constant `value` is inline as source `i` of `op` (else it takes the literal), by
/// the source's constant type in the opcode table (32-bit for pseudo-instructions).
pub(crate) fn is_inline(op: Opcode, family: Family, i: usize, value: u64) -> bool {
    let ctype = table::info(op, family)
        .and_then(|info| info.slots.iter().filter(|s| s.role == Role::Use && !s.optional).nth(i))
        .map_or(ConstType::B32, |s| s.ctype);
    inline_field_typed(value, ctype).is_some()
}

/// The scalar values a VALU instruction of `opcode` with operands `ops` reads on the constant
/// bus ([`isa::constant_bus`]): distinct SGPRs and special registers, and distinct literals
/// (constants that are not inline in their source).
pub(crate) fn scalar_reads(opcode: Opcode, family: Family, ops: &[Operand]) -> (usize, usize) {
    let mut scalars: SmallVec<[(OperandKind, Option<PhysReg>); 4]> = SmallVec::new();
    let mut literals = 0;
    for (i, op) in ops.iter().enumerate() {
        let scalar = match op.kind {
            OperandKind::Const(v) => !is_inline(opcode, family, i, v),
            _ => op.rc().is_some_and(|rc| rc.is_sgpr()),
        };
        let key = (op.kind, if matches!(op.kind, OperandKind::Phys(_)) { op.reg } else { None });
        if scalar && !scalars.contains(&key) {
            literals += usize::from(matches!(op.kind, OperandKind::Const(_)));
            scalars.push(key);
        }
    }
    (scalars.len(), literals)
}

/// Whether a VALU instruction of `opcode` in its VOP3 form (`vop3`) or not may read `ops`: no
/// more scalar values than the constant bus takes, at most one literal, none in a VOP3 form
/// of a generation without VOP3 literals.
pub(crate) fn fits_constant_bus(opcode: Opcode, family: Family, ops: &[Operand], vop3: bool) -> bool {
    let (scalars, literals) = scalar_reads(opcode, family, ops);
    let generation = family.generation();
    scalars <= isa::constant_bus::limit(generation, opcode)
        && literals <= 1
        && (literals == 0 || !vop3 || isa::constant_bus::vop3_literal(generation))
}

/// Whether the constant `value` is inline in a 64-bit source (integer or f64 alike: they have
/// the same inline constants).
pub(crate) fn is_wide_inline(value: u64) -> bool {
    inline_field_typed(value, ConstType::B64).is_some()
}

/// The position of the lane-mask source of a VALU operation (a carry in, a select mask).
pub(crate) fn mask_operand(op: Opcode, family: Family) -> Option<usize> {
    shape_of(op, family)?.ops.iter().position(|s| s.loc == Loc::Mask)
}

/// The position of the lane-mask result of a VALU operation (a compare, a carry out).
pub(crate) fn mask_def(op: Opcode, family: Family) -> Option<usize> {
    shape_of(op, family)?.defs.iter().position(|s| s.loc == Loc::Mask)
}

/// The operation with its first two sources swapped, when there is one.
pub(crate) fn commuted(op: Opcode) -> Option<Opcode> {
    use Opcode::*;
    Some(match op {
        VAddNcU32 | VAddF32 | VMulF32 | VAndB32 | VOrB32 | VXorB32 | VMinU32 | VMaxU32 | VMinI32 | VMaxI32
        | VMulLoU32 | VMulHiU32 | VAddCoU32 | VAddCoCiU32 | VFmaF32 | VCmpEqU32 | VCmpNeU32 | VCmpEqI32 | VCmpNeI32
        | VCmpEqF32 | VCmpLgF32 | VCmpNeqF32 => op,
        VCmpGtU32 => VCmpLtU32,
        VCmpLtU32 => VCmpGtU32,
        VCmpGeU32 => VCmpLeU32,
        VCmpLeU32 => VCmpGeU32,
        VCmpGtI32 => VCmpLtI32,
        VCmpLtI32 => VCmpGtI32,
        VCmpGeI32 => VCmpLeI32,
        VCmpLeI32 => VCmpGeI32,
        VCmpGtF32 => VCmpLtF32,
        VCmpLtF32 => VCmpGtF32,
        VCmpGeF32 => VCmpLeF32,
        VCmpLeF32 => VCmpGeF32,
        _ => return None,
    })
}

/// Whether a VALU instruction must use its VOP3 form: it has no other, or its e32 form would
/// need a VGPR where the second source is scalar, or VCC where a lane mask is elsewhere.
pub(crate) fn needs_vop3(op: Opcode, family: Family, defs: &[Def], ops: &[Operand]) -> bool {
    let vcc = |reg: Option<PhysReg>| reg == Some(PhysReg::VCC);
    match op.format(family) {
        Format::Vop3 | Format::Vop3sd => true,
        Format::Vop2 | Format::Vopc => {
            ops.get(1).is_some_and(|o| o.rc().is_none_or(|rc| rc.ty != RegType::Vgpr))
                || mask_operand(op, family).is_some_and(|i| ops.get(i).is_some_and(|o| !vcc(o.reg)))
                || mask_def(op, family).is_some_and(|i| defs.get(i).is_some_and(|d| !vcc(d.reg)))
        }
        _ => false,
    }
}

/// A register an operation reads or writes without naming it in the assembly.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Implicit {
    /// SCC.
    Scc,
    /// EXEC (a lane mask).
    Exec,
    /// VCC (a lane mask), read by `v_div_fmas_*`.
    Vcc,
}

/// The implicit results and operands of `op`, in the order the MIR lists them after the
/// explicit ones.
pub(crate) fn implicit(op: Opcode) -> (&'static [Implicit], &'static [Implicit]) {
    use Implicit::*;
    use Opcode::*;
    match op {
        SAndSaveexecB32 | SAndSaveexecB64 | SOrSaveexecB32 | SOrSaveexecB64 => (&[Exec, Scc], &[Exec]),
        SAddcU32 | SSubbU32 => (&[Scc], &[Scc]),
        SCselectB32 | SCselectB64 | SCbranchScc0 | SCbranchScc1 => (&[], &[Scc]),
        SCbranchExecz | SCbranchExecnz => (&[], &[Exec]),
        VDivFmasF32 | VDivFmasF64 => (&[], &[Vcc]),
        SAddU32 | SAddI32 | SSubU32 | SSubI32 | SMinU32 | SMaxU32 | SAndB32 | SAndB64 | SOrB32 | SOrB64 | SXorB32
        | SXorB64 | SAndn2B32 | SAndn2B64 | SLshlB32 | SLshlB64 | SLshrB32 | SLshrB64 | SAshrI32 | SAshrI64
        | SNotB32 | SCmpEqU32 | SCmpLgU32 | SCmpLtU32 | SCmpLeU32 | SCmpGtU32 | SCmpGeU32 | SCmpLtI32 | SCmpLeI32
        | SCmpGtI32 | SCmpGeI32 | SCmpEqU64 | SCmpLgU64 | SMinI32 | SMaxI32 | SBitcmp1B32 | SBitcmp1B64
        | SBcnt1I32B32 | SBcnt1I32B64 => (&[Scc], &[]),
        _ => (&[], &[]),
    }
}

/// Removes the implicit results and operands from every instruction of `func` (SCC, EXEC;
/// see `implicit`; and the second register of a `v_swap_b32`, which register allocation's
/// copies write as `v_swap_b32 a, b, b, a`), leaving those of the assembly syntax: what
/// `isa`'s encoder takes, once the passes after allocation no longer need them.
pub fn strip_implicit(func: &mut isa::mir::Function) {
    let family = func.family;
    for inst in func.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        let (defs, ops) = implicit(inst.opcode);
        let swap = inst.opcode == Opcode::VSwapB32;
        if let Some(shape) = shape_of(inst.opcode, family) {
            if !defs.is_empty() || swap {
                inst.defs.truncate(shape.defs.len());
            }
            if !ops.is_empty() || swap {
                inst.ops.truncate(shape.ops.len());
            }
        }
    }
}
