//! Loads and stores. A uniform load (constant memory at a uniform address, see
//! [`crate::divergence`]) is an SMEM load into SGPRs; every other global or constant access is
//! a `global_*` instruction with the address in a VGPR pair and no scalar base (`off`: the
//! operand is left out, as `isa::operands` says). Accesses of 4 and 8 bytes, naturally aligned, without
//! volatile, nontemporal or availability flags are selected so far; LDS, scratch, flat and the
//! memory-model lowering of atomics come with the memory-model work.

use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{AddrSpace, InstData, MemFlags, Type, Value};
use isa::mir::{self, Def, Operand};
use isa::opcode::Opcode;
use isa::reg::{RegClass, RegType, Temp};

/// Selects a `load` or `store`.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, result: Option<Value>) -> Result<(), IselError> {
    match *data {
        InstData::Load { ty, ptr, flags } => load(ctx, ty, ptr, flags, result.expect("loads have results")),
        InstData::Store { args: [ptr, value], flags } => {
            let ty = ctx.func.dfg.value_type(value);
            let dwords = check_access(ctx, ptr, ty, flags)?;
            let addr = address(ctx, ptr)?;
            let data = ctx.val(value)?;
            let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
            let opcode = if dwords == 1 { Opcode::GlobalStoreB32 } else { Opcode::GlobalStoreB64 };
            ctx.emit(mir::Inst::new(opcode, &[], &[Operand::temp(addr), Operand::temp(data)]));
            Ok(())
        }
        _ => unreachable!("memory::select is called for loads and stores"),
    }
}

fn load(ctx: &mut Ctx<'_>, ty: Type, ptr: Value, flags: MemFlags, result: Value) -> Result<(), IselError> {
    let dwords = check_access(ctx, ptr, ty, flags)?;
    if !ctx.div.is_divergent(result) {
        // Constant memory at a uniform address: through the scalar cache.
        let base = match ctx.val(ptr)? {
            Val::Temp(t) if t.rc == RegClass::S2 => t,
            Val::Const(c) => ctx.wide_const(c, RegType::Sgpr),
            _ => return Err(ctx.unsupported("a uniform load from this address")),
        };
        let dst = ctx.temp(RegClass::sgpr(dwords));
        let opcode = if dwords == 1 { Opcode::SLoadB32 } else { Opcode::SLoadB64 };
        ctx.emit(mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(base)]));
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
    let addr = address(ctx, ptr)?;
    let dst = ctx.temp(RegClass::vgpr(dwords));
    let opcode = if dwords == 1 { Opcode::GlobalLoadB32 } else { Opcode::GlobalLoadB64 };
    ctx.emit(mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(addr)]));
    ctx.set(result, Val::Temp(dst));
    Ok(())
}

/// Checks that the access is one selected so far; gives its size in dwords.
fn check_access(ctx: &Ctx<'_>, ptr: Value, ty: Type, flags: MemFlags) -> Result<u8, IselError> {
    let space = ctx.func.dfg.value_type(ptr).addr_space();
    if !matches!(space, Some(AddrSpace::Global | AddrSpace::Constant)) {
        let name = space.map_or("?", AddrSpace::name);
        return Err(ctx.unsupported(format!("{name} memory access (only global and constant memory so far)")));
    }
    if flags.volatile || flags.nontemporal || flags.av.is_some() {
        return Err(ctx.unsupported("volatile, nontemporal and availability flags (memory-model lowering)"));
    }
    let bytes = ty.bytes().unwrap_or(0);
    if !matches!(bytes, 4 | 8) {
        return Err(ctx.unsupported(format!("a {ty} access (only 4- and 8-byte accesses so far)")));
    }
    if flags.align < bytes {
        return Err(ctx.unsupported("an under-aligned access"));
    }
    Ok((bytes / 4) as u8)
}

/// The address in a VGPR pair.
fn address(ctx: &mut Ctx<'_>, ptr: Value) -> Result<Temp, IselError> {
    let val = ctx.val(ptr)?;
    ctx.as_class(val, RegClass::V2)
}
