//! Loads, stores and atomics. A uniform load (constant memory at a uniform address, see
//! [`crate::divergence`]) is an SMEM load into SGPRs; every other global or constant access is
//! a `global_*` instruction with the address in a VGPR pair and no scalar base (`off`: the
//! operand is left out, as `isa::operands` says). Shared memory (LDS) is addressed by 32-bit
//! offsets: a shared slot's address is its constant offset in the kernel's static layout
//! ([`super::inputs::slot_offset`]), `dyn_shared_addr` the end of that layout, and an
//! access is a `ds_load`/`ds_store` (gfx942's `ds_read`/`ds_write`) with the offset in a VGPR
//! and a constant base in the instruction's offset field (see [`emit_ds`]).
//! A private slot's address is likewise its constant offset in the lane's private segment, and
//! a private access is a `scratch_load`/`scratch_store` (`_dword` on gfx942) with that offset
//! in a VGPR: both targets have architected flat scratch, so the hardware sets FLAT_SCRATCH up
//! and swizzles the lanes' segments (the descriptor enables the private segment and gives its
//! size, see [`super::inputs::private_bytes`]). Accesses of 2, 4 and 8 bytes, naturally
//! aligned, are selected.
//!
//! A generic (flat) access is a `flat_*` instruction with the 64-bit address in a VGPR pair:
//! the hardware sends it to LDS, the lane's scratch or global memory by the address's aperture.
//! `addrspacecast` between global (or constant) and flat keeps the address; from shared or
//! private it puts the segment offset under the aperture's base (`src_shared_base`,
//! `src_private_base`: GFX9+ have the bases as 64-bit source registers, whose high dword is
//! the aperture, as LLVM reads them on gfx942 and gfx1100), and to shared or private it takes
//! the low dword. The segment's null (0xFFFFFFFF, AMDGPUUsage-new.txt:728-731) and flat's
//! null (0) map to each other both ways ([`addrspace_cast`]).
//!
//! Volatile, nontemporal, store-available and load-visible accesses carry the cache-policy bits
//! (and volatile ones the wait) of [`super::memory_model::plain_cpol`]; a uniform load with
//! any of these flags is the vector load and `v_readfirstlane`, since the tables give them
//! `buffer/global/flat_load` forms only. `atomic_load` and `atomic_store` are the plain access
//! with the cache bits of their scope, `atomic_rmw` a `global_atomic_*`, `flat_atomic_*` or
//! `ds_*` operation (32 or 64 bits, integer or float where the target has it: [`rmw_opcodes`];
//! the rest are compare-and-swap loops built before selection by [`super::atomic_expand`]),
//! `atomic_cas` a `global_atomic_cmpswap`, `flat_atomic_cmpswap` or `ds_cmpstore`/`ds_cmpst`;
//! the returning form (`glc`/`sc0` set, or `ds_*_rtn_*`) only when the old value is used. An
//! atomic through a generic pointer known to come from a private one is refused: scratch has
//! no atomics ([`casts_private`]). Around each the memory model ([`super::memory_model`]) puts
//! the waits and cache operations of its ordering and scope (generic memory: its own rows).

use super::memory_model::{self as mm, Access, Space};
use super::{alu, inputs, Ctx, Val};
use crate::error::IselError;
use frontend_ir::{AddrSpace, InstData, MemFlags, RmwOp, SyncInfo, Type, Value, ValueDef};
use isa::mir::{self, CachePolicy, Def, Operand};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// Selects a memory instruction: `load`, `store`, the atomics, `fence`, `barrier`,
/// `slot_addr`, `dyn_shared_addr` and `addrspacecast`.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, result: Option<Value>) -> Result<(), IselError> {
    match *data {
        InstData::Load { ty, ptr, flags } => {
            let result = result.expect("loads have results");
            let cpol = mm::plain_cpol(ctx, flags, false);
            let uniform_ok = cpol == CachePolicy::default() && !flags.volatile;
            load(ctx, ty, ptr, flags, cpol, uniform_ok, result)?;
            if !is_shared(ctx, ptr) {
                mm::after_plain(ctx, flags, false);
            }
            Ok(())
        }
        InstData::Store { args: [ptr, value], flags } => {
            let cpol = mm::plain_cpol(ctx, flags, true);
            store(ctx, ptr, value, flags, cpol)?;
            if !is_shared(ctx, ptr) {
                mm::after_plain(ctx, flags, true);
            }
            Ok(())
        }
        InstData::SlotAddr { slot } => {
            if !matches!(ctx.func.slots[slot].space, AddrSpace::Shared | AddrSpace::Private) {
                return Err(ctx.unsupported("the address of a slot of this address space"));
            }
            let offset = inputs::slot_offset(ctx.func, slot);
            ctx.set(result.expect("slot_addr has a result"), Val::Const(offset as u64));
            Ok(())
        }
        InstData::DynSharedAddr => {
            let offset = inputs::dyn_shared_offset(ctx.func);
            ctx.set(result.expect("dyn_shared_addr has a result"), Val::Const(offset as u64));
            Ok(())
        }
        InstData::Barrier => mm::barrier(ctx),
        InstData::Fence { sync } => mm::fence(ctx, sync),
        InstData::AtomicLoad { ty, ptr, sync: _ }
            if ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Constant) =>
        {
            // Nothing writes constant memory while the kernel runs, so an atomic load there
            // reads no store and synchronizes with none: it is a plain load.
            let flags = MemFlags::aligned(ty.bytes().unwrap_or(1));
            load(ctx, ty, ptr, flags, CachePolicy::default(), true, result.expect("loads have results"))
        }
        InstData::AtomicLoad { ty, ptr, sync } => {
            let space = atomic_space(ctx, ptr, "atomic_load")?;
            let cpol = global_cpol(ctx, space, Access::Load, sync);
            mm::before_access(ctx, space, Access::Load, sync);
            let flags = MemFlags::aligned(ty.bytes().unwrap_or(1));
            load(ctx, ty, ptr, flags, cpol, false, result.expect("loads have results"))?;
            mm::after_access(ctx, space, Access::Load, sync);
            Ok(())
        }
        InstData::AtomicStore { args: [ptr, value], sync } => {
            let space = atomic_space(ctx, ptr, "atomic_store")?;
            let cpol = global_cpol(ctx, space, Access::Store, sync);
            mm::before_access(ctx, space, Access::Store, sync);
            let bytes = ctx.func.dfg.value_type(value).bytes().unwrap_or(1);
            store(ctx, ptr, value, MemFlags::aligned(bytes), cpol)?;
            mm::after_access(ctx, space, Access::Store, sync);
            Ok(())
        }
        InstData::AtomicRmw { op, args: [ptr, value], sync } => {
            atomic_rmw(ctx, op, ptr, value, sync, result.expect("atomic_rmw has a result"))
        }
        InstData::AtomicCas { args: [ptr, expected, new], sync } => {
            atomic_cas(ctx, ptr, expected, new, sync, result.expect("atomic_cas has a result"))
        }
        InstData::AddrSpaceCast { ty, arg } => addrspace_cast(ctx, ty, arg, result.expect("a cast has a result")),
        _ => unreachable!("memory::select is called for memory, LDS-address and barrier instructions"),
    }
}

/// The space of an atomic's pointer: global, shared or generic; refused elsewhere.
fn atomic_space(ctx: &Ctx<'_>, ptr: Value, what: &str) -> Result<Space, IselError> {
    let space = match ctx.func.dfg.value_type(ptr).addr_space() {
        Some(AddrSpace::Global) => Space::Global,
        Some(AddrSpace::Shared) => Space::Lds,
        Some(AddrSpace::Flat) if casts_private(ctx, ptr) => {
            return Err(ctx.unsupported(format!(
                "an {what} through a generic pointer to private memory (scratch has no atomics)"
            )));
        }
        Some(AddrSpace::Flat) => Space::Flat,
        other => {
            let name = other.map_or("?", AddrSpace::name);
            return Err(ctx.unsupported(format!("an {what} on {name} memory (global, shared and flat only)")));
        }
    };
    Ok(space)
}

/// Whether the generic pointer `ptr` is, through `ptradd`s, a private pointer cast to flat:
/// the hardware has no atomics on scratch (a flat atomic there is not performed atomically),
/// so such an atomic is refused. A generic pointer of unknown origin is taken to reach global
/// memory or LDS.
fn casts_private(ctx: &Ctx<'_>, mut ptr: Value) -> bool {
    let dfg = &ctx.func.dfg;
    loop {
        let ValueDef::Result(inst) = dfg.values[ptr].def else { return false };
        match dfg.insts[inst] {
            InstData::PtrAdd { args: [base, _] } => ptr = base,
            InstData::AddrSpaceCast { arg, .. } => return dfg.value_type(arg).addr_space() == Some(AddrSpace::Private),
            _ => return false,
        }
    }
}

/// The cache-policy bits of a global or generic atomic access (an LDS access has none).
fn global_cpol(ctx: &Ctx<'_>, space: Space, access: Access, sync: SyncInfo) -> CachePolicy {
    match space {
        Space::Global | Space::Flat => mm::access_cpol(ctx, access, sync.scope),
        Space::Lds => CachePolicy::default(),
    }
}

/// A load whose global or scratch form has the cache-policy bits `cpol`. A uniform result
/// (constant memory at a uniform address) comes through the scalar cache when `uniform_ok`,
/// else from the vector load and `v_readfirstlane`.
fn load(
    ctx: &mut Ctx<'_>,
    ty: Type,
    ptr: Value,
    flags: MemFlags,
    cpol: CachePolicy,
    uniform_ok: bool,
    result: Value,
) -> Result<(), IselError> {
    let dwords = check_access(ctx, ptr, ty, flags)?;
    if is_shared(ctx, ptr) {
        // LDS loads are divergent sources (see `crate::divergence`): the result is in VGPRs.
        let dst = ctx.temp(RegClass::vgpr(dwords));
        let opcode = sized(if dwords == 1 { Opcode::DsLoadB32 } else { Opcode::DsLoadB64 }, ty);
        emit_ds(ctx, opcode, &[Def::temp(dst)], ptr, &[])?;
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
    if is_private(ctx, ptr) {
        // Private loads are divergent sources too (see `crate::divergence`).
        let addr = private_address(ctx, ptr)?;
        let dst = ctx.temp(RegClass::vgpr(dwords));
        let opcode = sized(if dwords == 1 { Opcode::ScratchLoadB32 } else { Opcode::ScratchLoadB64 }, ty);
        let mut inst = mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(addr)]);
        inst.fields.cpol = cpol;
        ctx.emit(inst);
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
    let flat = is_flat(ctx, ptr);
    let uniform = !ctx.div.is_divergent(result);
    if uniform && uniform_ok && !flat && ty.bytes() != Some(2) {
        // Constant memory at a uniform address: through the scalar cache (which has no 2-byte
        // loads before GFX12: an f16 takes the vector load and `v_readfirstlane`), with the
        // constant part of the address in the instruction's offset.
        let (ptr, offset) = smem_offset(ctx, ptr);
        let base = match ctx.val(ptr)? {
            Val::Temp(t) if t.rc == RegClass::S2 => t,
            Val::Const(c) => ctx.wide_const(c, RegType::Sgpr),
            _ => return Err(ctx.unsupported("a uniform load from this address")),
        };
        let dst = ctx.temp(RegClass::sgpr(dwords));
        let opcode = if dwords == 1 { Opcode::SLoadB32 } else { Opcode::SLoadB64 };
        let fields = mir::Fields { offset, ..Default::default() };
        ctx.emit(mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(base)]).with_fields(fields));
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
    let addr = global_address(ctx, ptr, flat)?;
    let dst = ctx.temp(RegClass::vgpr(dwords));
    let opcode = match (flat, dwords) {
        (false, 1) => Opcode::GlobalLoadB32,
        (false, _) => Opcode::GlobalLoadB64,
        (true, 1) => Opcode::FlatLoadB32,
        (true, _) => Opcode::FlatLoadB64,
    };
    let opcode = sized(opcode, ty);
    let mut inst = mir::Inst::new(opcode, &[Def::temp(dst)], &addr.operands(&[]));
    inst.fields.cpol = cpol;
    inst.fields.offset = addr.offset;
    ctx.emit(inst);
    let val = if uniform { ctx.readfirstlane(dst) } else { dst };
    ctx.set(result, Val::Temp(val));
    Ok(())
}

/// `ptr` as a base pointer and a byte offset that SMEM's immediate offset takes: the constant
/// offsets of the `ptradd`s that lead to `ptr` ([`constant_offset`]), non-negative, as a
/// negative SMEM offset is not needed and GFX9 limits it.
fn smem_offset(ctx: &Ctx<'_>, ptr: Value) -> (Value, i32) {
    let field = isa::encoding::smem(ctx.family).offset;
    let (ptr, offset) = constant_offset(ctx, ptr, |o| o >= 0 && i32::try_from(o).is_ok_and(|o| field.fits_signed(o)));
    (ptr, offset as i32)
}

/// `ptr` as a base and the sum of the constant offsets of the `ptradd`s that lead to it (as
/// their offsets' types sign-extend them), taken from the outside in while `fits` accepts the
/// sum. The optimizer's reassociation puts an address's constants outermost.
fn constant_offset(ctx: &Ctx<'_>, mut ptr: Value, fits: impl Fn(i64) -> bool) -> (Value, i64) {
    let dfg = &ctx.func.dfg;
    let mut offset = 0i64;
    while let ValueDef::Result(inst) = dfg.values[ptr].def {
        let InstData::PtrAdd { args: [base, delta] } = dfg.insts[inst] else { break };
        let Val::Const(k) = ctx.vals[delta] else { break };
        let sum = offset + frontend_ir::interp::eval::sext(dfg.value_type(delta), k);
        if !fits(sum) || !ctx.readable_here(base) {
            break;
        }
        (ptr, offset) = (base, sum);
    }
    (ptr, offset)
}

/// A store of `value` to `ptr`; its global or scratch form has the cache-policy bits `cpol`.
fn store(ctx: &mut Ctx<'_>, ptr: Value, value: Value, flags: MemFlags, cpol: CachePolicy) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(value);
    let dwords = check_access(ctx, ptr, ty, flags)?;
    if is_shared(ctx, ptr) {
        let data = ctx.val(value)?;
        let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
        let opcode = sized(if dwords == 1 { Opcode::DsStoreB32 } else { Opcode::DsStoreB64 }, ty);
        return emit_ds(ctx, opcode, &[], ptr, &[data]);
    }
    let (opcode, addr) = if is_private(ctx, ptr) {
        let opcode = sized(if dwords == 1 { Opcode::ScratchStoreB32 } else { Opcode::ScratchStoreB64 }, ty);
        (opcode, Address { vaddr: private_address(ctx, ptr)?, saddr: None, offset: 0 })
    } else {
        let flat = is_flat(ctx, ptr);
        let opcode = match (flat, dwords) {
            (false, 1) => Opcode::GlobalStoreB32,
            (false, _) => Opcode::GlobalStoreB64,
            (true, 1) => Opcode::FlatStoreB32,
            (true, _) => Opcode::FlatStoreB64,
        };
        (sized(opcode, ty), global_address(ctx, ptr, flat)?)
    };
    let data = ctx.val(value)?;
    let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
    let mut inst = mir::Inst::new(opcode, &[], &addr.operands(&[data]));
    inst.fields.cpol = cpol;
    inst.fields.offset = addr.offset;
    ctx.emit(inst);
    Ok(())
}

/// Checks that the access is one selected so far; gives its size in dwords.
fn check_access(ctx: &Ctx<'_>, ptr: Value, ty: Type, flags: MemFlags) -> Result<u8, IselError> {
    let space = ctx.func.dfg.value_type(ptr).addr_space();
    if space.is_none() {
        return Err(ctx.unsupported("a memory access through a value that is not a pointer"));
    }
    let bytes = ty.bytes().unwrap_or(0);
    if !matches!(bytes, 2 | 4 | 8) {
        return Err(ctx.unsupported(format!("a {ty} access (only 2-, 4- and 8-byte accesses so far)")));
    }
    if flags.align < bytes {
        return Err(ctx.unsupported("an under-aligned access"));
    }
    Ok((bytes / 4).max(1) as u8)
}

/// The 2-byte form of a one-dword access when `ty` is 2 bytes wide (an f16, in the low half of
/// a VGPR; the load zero-extends it, `_u16`), else `op` itself.
fn sized(op: Opcode, ty: Type) -> Opcode {
    use Opcode::*;
    match (op, ty.bytes()) {
        (GlobalLoadB32, Some(2)) => GlobalLoadU16,
        (GlobalStoreB32, Some(2)) => GlobalStoreB16,
        (DsLoadB32, Some(2)) => DsLoadU16,
        (DsStoreB32, Some(2)) => DsStoreB16,
        (ScratchLoadB32, Some(2)) => ScratchLoadU16,
        (ScratchStoreB32, Some(2)) => ScratchStoreB16,
        (FlatLoadB32, Some(2)) => FlatLoadU16,
        (FlatStoreB32, Some(2)) => FlatStoreB16,
        _ => op,
    }
}

/// A target's instruction for one atomic: the global or flat one (returning or not by its
/// cache bits), or the LDS ones without return (LDS has no exchange without return) and with
/// return.
#[derive(Copy, Clone)]
enum AtomicOpcodes {
    Vector(Opcode),
    Lds { plain: Option<Opcode>, rtn: Opcode },
}

/// The native operations of `atomic_rmw.op` on `ty` (integers of 32 and 64 bits, floats of
/// 32 and 64 bits, exchange on any of them by its bits): the global, flat, LDS and returning
/// LDS forms, `None` when there is none anywhere. A form missing on the target (gfx942 has no f32 global min/max,
/// gfx1100 no f64 add) is `None` in [`native_rmw`], which sends it to a compare-and-swap loop;
/// `fsub` has no native form anywhere.
fn rmw_opcodes(op: RmwOp, ty: Type) -> Option<[Option<Opcode>; 4]> {
    use Opcode::*;
    let ops = match (op, ty.bits() == 64) {
        (RmwOp::Add, false) => (GlobalAtomicAddU32, FlatAtomicAddU32, Some(DsAddU32), DsAddRtnU32),
        (RmwOp::Sub, false) => (GlobalAtomicSubU32, FlatAtomicSubU32, Some(DsSubU32), DsSubRtnU32),
        (RmwOp::And, false) => (GlobalAtomicAndB32, FlatAtomicAndB32, Some(DsAndB32), DsAndRtnB32),
        (RmwOp::Or, false) => (GlobalAtomicOrB32, FlatAtomicOrB32, Some(DsOrB32), DsOrRtnB32),
        (RmwOp::Xor, false) => (GlobalAtomicXorB32, FlatAtomicXorB32, Some(DsXorB32), DsXorRtnB32),
        (RmwOp::Xchg, false) => (GlobalAtomicSwapB32, FlatAtomicSwapB32, None, DsStorexchgRtnB32),
        (RmwOp::Smin, false) => (GlobalAtomicMinI32, FlatAtomicMinI32, Some(DsMinI32), DsMinRtnI32),
        (RmwOp::Smax, false) => (GlobalAtomicMaxI32, FlatAtomicMaxI32, Some(DsMaxI32), DsMaxRtnI32),
        (RmwOp::Umin, false) => (GlobalAtomicMinU32, FlatAtomicMinU32, Some(DsMinU32), DsMinRtnU32),
        (RmwOp::Umax, false) => (GlobalAtomicMaxU32, FlatAtomicMaxU32, Some(DsMaxU32), DsMaxRtnU32),
        (RmwOp::Add, true) => (GlobalAtomicAddU64, FlatAtomicAddU64, Some(DsAddU64), DsAddRtnU64),
        (RmwOp::Sub, true) => (GlobalAtomicSubU64, FlatAtomicSubU64, Some(DsSubU64), DsSubRtnU64),
        (RmwOp::And, true) => (GlobalAtomicAndB64, FlatAtomicAndB64, Some(DsAndB64), DsAndRtnB64),
        (RmwOp::Or, true) => (GlobalAtomicOrB64, FlatAtomicOrB64, Some(DsOrB64), DsOrRtnB64),
        (RmwOp::Xor, true) => (GlobalAtomicXorB64, FlatAtomicXorB64, Some(DsXorB64), DsXorRtnB64),
        (RmwOp::Xchg, true) => (GlobalAtomicSwapB64, FlatAtomicSwapB64, None, DsStorexchgRtnB64),
        (RmwOp::Smin, true) => (GlobalAtomicMinI64, FlatAtomicMinI64, Some(DsMinI64), DsMinRtnI64),
        (RmwOp::Smax, true) => (GlobalAtomicMaxI64, FlatAtomicMaxI64, Some(DsMaxI64), DsMaxRtnI64),
        (RmwOp::Umin, true) => (GlobalAtomicMinU64, FlatAtomicMinU64, Some(DsMinU64), DsMinRtnU64),
        (RmwOp::Umax, true) => (GlobalAtomicMaxU64, FlatAtomicMaxU64, Some(DsMaxU64), DsMaxRtnU64),
        (RmwOp::Fadd, false) => (GlobalAtomicAddF32, FlatAtomicAddF32, Some(DsAddF32), DsAddRtnF32),
        (RmwOp::Fmin, false) => (GlobalAtomicMinF32, FlatAtomicMinF32, Some(DsMinF32), DsMinRtnF32),
        (RmwOp::Fmax, false) => (GlobalAtomicMaxF32, FlatAtomicMaxF32, Some(DsMaxF32), DsMaxRtnF32),
        (RmwOp::Fadd, true) => (GlobalAtomicAddF64, FlatAtomicAddF64, Some(DsAddF64), DsAddRtnF64),
        (RmwOp::Fmin, true) => (GlobalAtomicMinF64, FlatAtomicMinF64, Some(DsMinF64), DsMinRtnF64),
        (RmwOp::Fmax, true) => (GlobalAtomicMaxF64, FlatAtomicMaxF64, Some(DsMaxF64), DsMaxRtnF64),
        (RmwOp::Fsub, _) => return None,
    };
    Some([Some(ops.0), Some(ops.1), ops.2, Some(ops.3)])
}

/// The target's opcodes for `atomic_rmw.op` on `ty` in `space` (global, flat: the one
/// operation; LDS: without return, with return), `None` when the target lacks the returning
/// form.
fn native_opcodes(family: Family, op: RmwOp, ty: Type, space: Space) -> Option<AtomicOpcodes> {
    let [global, flat, lds, lds_rtn] = rmw_opcodes(op, ty)?;
    let have = |o: Option<Opcode>| o.filter(|o| o.exists_in(family));
    match space {
        Space::Global => Some(AtomicOpcodes::Vector(have(global)?)),
        Space::Flat => Some(AtomicOpcodes::Vector(have(flat)?)),
        Space::Lds => Some(AtomicOpcodes::Lds { plain: have(lds), rtn: have(lds_rtn)? }),
    }
}

/// Whether `family` has an atomic instruction for `atomic_rmw.op` on `ty` in `space` (global
/// when not `shared`); [`super::atomic_expand`] turns the others into compare-and-swap loops.
/// A flat pointer is asked about as global: both targets have a flat twin of every global
/// atomic (and a flat one reaching LDS does there what the DS one would).
pub(super) fn native_rmw(family: Family, op: RmwOp, ty: Type, shared: bool) -> bool {
    native_opcodes(family, op, ty, if shared { Space::Lds } else { Space::Global }).is_some()
}

/// Whether any instruction of the function reads `v`.
fn is_used(ctx: &Ctx<'_>, v: Value) -> bool {
    let func = ctx.func;
    func.insts_in_layout().any(|(_, i)| {
        let data = &func.dfg.insts[i];
        data.args().contains(&v) || data.block_calls().iter().any(|c| c.args.contains(&v))
    })
}

/// `atomic_rmw.op ptr, value sync`: the native operation ([`native_opcodes`]) inside the
/// memory model's sequence for an atomicrmw of its ordering and scope
/// ([`mm::before_access`], [`mm::access_cpol`], [`mm::after_access`]).
fn atomic_rmw(
    ctx: &mut Ctx<'_>,
    op: RmwOp,
    ptr: Value,
    value: Value,
    sync: SyncInfo,
    result: Value,
) -> Result<(), IselError> {
    let space = atomic_space(ctx, ptr, "atomic_rmw")?;
    let ty = ctx.func.dfg.value_type(value);
    let Some(ops) = native_opcodes(ctx.family, op, ty, space) else {
        return Err(ctx.unsupported(format!("atomic_rmw.{} on {ty} (no instruction on this target)", op.name())));
    };
    let dwords = if ty.bits() == 64 { 2 } else { 1 };
    let returns = is_used(ctx, result);
    // The release waits go first, so the data's own waits (which the waitcnt pass adds) merge
    // into them.
    mm::before_access(ctx, space, Access::Rmw { returns }, sync);
    let data = ctx.val(value)?;
    let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
    emit_atomic(ctx, space, ops, ptr, &[data], dwords, sync, result)
}

/// `atomic_cas ptr, expected, new sync`: `global_atomic_cmpswap` or `flat_atomic_cmpswap`
/// (data: the new value, then
/// the compared one) or LDS's compare-store (gfx1100 `ds_cmpstore`: new value first; gfx942
/// `ds_cmpst`: compared value first), in an atomicrmw's memory-model sequence (the tables
/// have no cmpxchg rows; see [`super::memory_model`]).
fn atomic_cas(
    ctx: &mut Ctx<'_>,
    ptr: Value,
    expected: Value,
    new: Value,
    sync: SyncInfo,
    result: Value,
) -> Result<(), IselError> {
    let space = atomic_space(ctx, ptr, "atomic_cas")?;
    let wide = ctx.func.dfg.value_type(new).bits() == 64;
    let dwords = if wide { 2 } else { 1 };
    let returns = is_used(ctx, result);
    mm::before_access(ctx, space, Access::Rmw { returns }, sync);
    let ops = match (space, wide) {
        (Space::Global, false) => AtomicOpcodes::Vector(Opcode::GlobalAtomicCmpswapB32),
        (Space::Global, true) => AtomicOpcodes::Vector(Opcode::GlobalAtomicCmpswapB64),
        (Space::Flat, false) => AtomicOpcodes::Vector(Opcode::FlatAtomicCmpswapB32),
        (Space::Flat, true) => AtomicOpcodes::Vector(Opcode::FlatAtomicCmpswapB64),
        (Space::Lds, false) => AtomicOpcodes::Lds { plain: Some(Opcode::DsCmpstoreB32), rtn: Opcode::DsCmpstoreRtnB32 },
        (Space::Lds, true) => AtomicOpcodes::Lds { plain: Some(Opcode::DsCmpstoreB64), rtn: Opcode::DsCmpstoreRtnB64 },
    };
    let new = ctx.val(new)?;
    let new = ctx.as_class(new, RegClass::vgpr(dwords))?;
    let expected = ctx.val(expected)?;
    let expected = ctx.as_class(expected, RegClass::vgpr(dwords))?;
    let data = match space {
        Space::Global | Space::Flat => {
            let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
            for t in [new, expected] {
                if wide {
                    parts.extend(ctx.split(t).into_iter().map(Operand::temp));
                } else {
                    parts.push(Operand::temp(t));
                }
            }
            let pair = ctx.create_vector(RegClass::vgpr(2 * dwords), &parts);
            SmallVec::from_slice(&[pair])
        }
        Space::Lds if ctx.family.is_gfx9() => SmallVec::<[Temp; 2]>::from_slice(&[expected, new]),
        Space::Lds => SmallVec::from_slice(&[new, expected]),
    };
    emit_atomic(ctx, space, ops, ptr, &data, dwords, sync, result)
}

/// Emits an atomic with `data` and the rest of its memory-model sequence (the caller emitted
/// [`mm::before_access`] before materializing the data); the old value, `dwords` wide, is
/// `result` (read only when used: otherwise the non-returning form, where there is one).
#[allow(clippy::too_many_arguments)]
fn emit_atomic(
    ctx: &mut Ctx<'_>,
    space: Space,
    ops: AtomicOpcodes,
    ptr: Value,
    data: &[Temp],
    dwords: u8,
    sync: SyncInfo,
    result: Value,
) -> Result<(), IselError> {
    let returns = is_used(ctx, result);
    let access = Access::Rmw { returns };
    let dst = ctx.temp(RegClass::vgpr(dwords));
    match ops {
        AtomicOpcodes::Lds { plain, rtn } => match plain.filter(|_| !returns) {
            Some(opcode) => emit_ds(ctx, opcode, &[], ptr, data)?,
            None => emit_ds(ctx, rtn, &[Def::temp(dst)], ptr, data)?,
        },
        AtomicOpcodes::Vector(opcode) => {
            let addr = global_address(ctx, ptr, space == Space::Flat)?;
            let defs: &[Def] = if returns { &[Def::temp(dst)] } else { &[] };
            let mut inst = mir::Inst::new(opcode, defs, &addr.operands(data));
            inst.fields.offset = addr.offset;
            inst.fields.cpol = mm::access_cpol(ctx, access, sync.scope);
            ctx.emit(inst);
        }
    }
    mm::after_access(ctx, space, access, sync);
    // The old value is divergent (see `crate::divergence`); unused, it is never read.
    ctx.set(result, Val::Temp(dst));
    Ok(())
}

/// The address operands of a GLOBAL or FLAT access: a 64-bit address in a VGPR pair, or for a
/// GLOBAL access at a uniform address, that address in an SGPR pair (`saddr`) and a zero
/// 32-bit VGPR offset, which takes one VGPR instead of two and no copy of the address.
struct Address {
    vaddr: Temp,
    saddr: Option<Temp>,
    /// The constant part of the address, in the instruction's offset field.
    offset: i32,
}

impl Address {
    /// The instruction's operands: the VGPR address or offset, `data`, then `saddr`.
    fn operands(&self, data: &[Temp]) -> SmallVec<[Operand; 4]> {
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::new();
        ops.push(Operand::temp(self.vaddr));
        ops.extend(data.iter().map(|&t| Operand::temp(t)));
        ops.extend(self.saddr.map(Operand::temp));
        ops
    }
}

/// The address of a GLOBAL (or, with `flat`, FLAT) access to `ptr` (see [`Address`]). A
/// GLOBAL access takes the constant offsets of the `ptradd`s that lead to `ptr`
/// ([`constant_offset`]) in its offset field, non-negative and within the field, so that
/// accesses of one base at different constants share its registers (and `sched::mem_merge`
/// finds neighbours).
fn global_address(ctx: &mut Ctx<'_>, ptr: Value, flat: bool) -> Result<Address, IselError> {
    let (ptr, offset) = if flat {
        (ptr, 0)
    } else {
        let field = isa::encoding::global(ctx.family).offset;
        constant_offset(ctx, ptr, |o| o >= 0 && i32::try_from(o).is_ok_and(|o| field.fits_signed(o)))
    };
    let offset = offset as i32;
    let val = ctx.val(ptr)?;
    if !flat && !ctx.div.is_divergent(ptr) {
        let saddr = match val {
            Val::Temp(t) if t.rc == RegClass::S2 => Some(t),
            Val::Const(c) => Some(ctx.wide_const(c, RegType::Sgpr)),
            _ => None,
        };
        if let Some(saddr) = saddr {
            let vaddr = ctx.as_class(Val::Const(0), RegClass::V1)?;
            return Ok(Address { vaddr, saddr: Some(saddr), offset });
        }
    }
    Ok(Address { vaddr: ctx.as_class(val, RegClass::V2)?, saddr: None, offset })
}

/// Whether `ptr` points into the lane's private segment (scratch).
fn is_private(ctx: &Ctx<'_>, ptr: Value) -> bool {
    ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Private)
}

/// A private address (an offset in the lane's segment) in a VGPR.
fn private_address(ctx: &mut Ctx<'_>, ptr: Value) -> Result<Temp, IselError> {
    let val = ctx.val(ptr)?;
    ctx.as_class(val, RegClass::V1)
}

/// Whether `ptr` is a generic (flat) pointer.
fn is_flat(ctx: &Ctx<'_>, ptr: Value) -> bool {
    ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Flat)
}

/// The null of the shared and private segments (AMDGPUUsage-new.txt:728-731); flat's is 0.
const SEGMENT_NULL: u32 = u32::MAX;

/// `addrspacecast.T %p` (exactly one side flat, as the verifier checks). Global and constant
/// addresses are flat addresses (AMDGPUUsage-new.txt:761-762). A shared or private offset `o`
/// becomes the aperture's base with `o` as its low dword, and a flat address becomes its low
/// dword (the apertures are 2^32 bytes, 2^32-aligned: AMDGPUUsage-new.txt:753-760); each
/// null becomes the other side's null. A uniform pointer stays in SGPRs (`s_cmp`,
/// `s_cselect`), a divergent one is selected per lane (`v_cmp`, `v_cndmask`).
fn addrspace_cast(ctx: &mut Ctx<'_>, ty: Type, arg: Value, result: Value) -> Result<(), IselError> {
    let val = ctx.val(arg)?;
    let aperture = match (ctx.func.dfg.value_type(arg).addr_space(), ty.addr_space()) {
        (Some(AddrSpace::Shared), _) => {
            mm::check_split(ctx, "a generic pointer to shared memory")?;
            PhysReg::SRC_SHARED_BASE
        }
        (Some(AddrSpace::Private), _) => PhysReg::SRC_PRIVATE_BASE,
        (_, Some(AddrSpace::Shared | AddrSpace::Private)) => {
            let segment = to_segment(ctx, arg, val, ctx.div.is_divergent(result))?;
            ctx.set(result, segment);
            return Ok(());
        }
        _ => {
            ctx.set(result, val);
            return Ok(());
        }
    };
    if val == Val::Const(u64::from(SEGMENT_NULL)) {
        ctx.set(result, Val::Const(0));
        return Ok(());
    }
    // The aperture's base, read as 64 bits: a 32-bit read of these registers gives the low
    // dword, zero (LLVM reads them the same way).
    let base = ctx.temp(RegClass::S2);
    ctx.emit(mir::Inst::new(Opcode::SMovB64, &[Def::temp(base)], &[Operand::phys(aperture, RegClass::S2)]));
    let hi = Operand::temp(ctx.split(base)[1]);
    let flat = match val {
        Val::Const(c) => {
            // A known offset (a slot's address) that is not the null needs no compare.
            let lo = ctx.as_class(Val::Const(c & 0xffff_ffff), RegClass::S1)?;
            ctx.create_vector(RegClass::S2, &[Operand::temp(lo), hi])
        }
        _ if ctx.div.is_divergent(result) => {
            let src = ctx.operand(arg)?;
            let m = ctx.temp(ctx.lm());
            ctx.valu(Opcode::VCmpNeU32, &[Def::temp(m)], &[Operand::constant(SEGMENT_NULL), src]);
            let lo = alu::v32(ctx, Opcode::VCndmaskB32, &[Operand::constant(0), src, Operand::temp(m)]);
            let hi = alu::v32(ctx, Opcode::VCndmaskB32, &[Operand::constant(0), hi, Operand::temp(m)]);
            ctx.create_vector(RegClass::V2, &[lo, hi])
        }
        _ => {
            let src = ctx.operand(arg)?;
            let pair = ctx.create_vector(RegClass::S2, &[src, hi]);
            let scc = ctx.temp(RegClass::S1);
            let not_null = [src, Operand::constant(SEGMENT_NULL)];
            ctx.salu(Opcode::SCmpLgU32, &[Def::fixed(scc, PhysReg::SCC)], &not_null);
            let r = ctx.temp(RegClass::S2);
            let args = [Operand::temp(pair), Operand::constant(0), Operand::fixed(scc, PhysReg::SCC)];
            ctx.salu(Opcode::SCselectB64, &[Def::temp(r)], &args);
            r
        }
    };
    ctx.set(result, Val::Temp(flat));
    Ok(())
}

/// A flat address's segment offset: its low dword, or the segment's null for flat's null.
fn to_segment(ctx: &mut Ctx<'_>, arg: Value, val: Val, divergent: bool) -> Result<Val, IselError> {
    if let Val::Const(c) = val {
        return Ok(Val::Const(if c == 0 { u64::from(SEGMENT_NULL) } else { c & 0xffff_ffff }));
    }
    let [lo, _] = ctx.halves(arg)?;
    let wide = alu::wide_scalar(ctx, arg)?;
    if divergent {
        let m = ctx.temp(ctx.lm());
        ctx.valu(Opcode::VCmpNeU64, &[Def::temp(m)], &[Operand::constant(0), wide]);
        let v = alu::v32(ctx, Opcode::VCndmaskB32, &[Operand::constant(SEGMENT_NULL), lo, Operand::temp(m)]);
        return Ok(Val::Temp(v.temp_of().expect("v32 gives a temporary")));
    }
    let scc = ctx.temp(RegClass::S1);
    ctx.salu(Opcode::SCmpLgU64, &[Def::fixed(scc, PhysReg::SCC)], &[wide, Operand::constant(0)]);
    let s = ctx.temp(RegClass::S1);
    let args = [lo, Operand::constant(SEGMENT_NULL), Operand::fixed(scc, PhysReg::SCC)];
    ctx.salu(Opcode::SCselectB32, &[Def::temp(s)], &args);
    Ok(Val::Temp(s))
}

/// Whether `ptr` points into shared memory (LDS).
fn is_shared(ctx: &Ctx<'_>, ptr: Value) -> bool {
    ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Shared)
}

/// Emits the DS operation `opcode` on the LDS address `ptr` with the data operands `data`.
/// The constant part of the address goes into the instruction's 16-bit unsigned offset field:
/// the constant offsets that lead to `ptr` ([`constant_offset`]) and, under them, a constant
/// base (a shared slot's address) plus an index; the rest is the VGPR address (DS adds the
/// two in 32 bits, as the IR's shared pointers wrap: LLVM folds any base on GFX7 and later,
/// `hasUsableDSOffset`). Refused in threadgroup split mode, which allocates no LDS
/// ([`mm::check_split`]).
fn emit_ds(ctx: &mut Ctx<'_>, opcode: Opcode, defs: &[Def], ptr: Value, data: &[Temp]) -> Result<(), IselError> {
    mm::check_split(ctx, "shared memory")?;
    let in_field = |o: i64| (0..=i64::from(u16::MAX)).contains(&o);
    let (base, offset) = constant_offset(ctx, ptr, in_field);
    let def = match ctx.func.dfg.values[base].def {
        ValueDef::Result(i) => Some(&ctx.func.dfg.insts[i]),
        _ => None,
    };
    let folded = match def {
        Some(&InstData::PtrAdd { args: [slot, index] }) => match ctx.vals[slot] {
            Val::Const(c)
                if in_field(offset + c as i64) && ctx.vals[index] != Val::None && ctx.readable_here(index) =>
            {
                Some((index, offset + c as i64))
            }
            _ => None,
        },
        _ => None,
    };
    let (addr, imm) = folded.unwrap_or((base, offset));
    let op = ctx.operand(addr)?;
    let addr = ctx.in_vgpr(op, 1)?;
    let mut ops: SmallVec<[Operand; 3]> = SmallVec::new();
    ops.push(Operand::temp(addr));
    ops.extend(data.iter().map(|&t| Operand::temp(t)));
    let mut inst = mir::Inst::new(opcode, defs, &ops);
    inst.fields.offset = imm as i32;
    ctx.emit(inst);
    Ok(())
}
