//! Loads and stores. A uniform load (constant memory at a uniform address, see
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
//! size, see [`super::inputs::private_bytes`]).
//! Accesses of 4 and 8 bytes, naturally aligned, without volatile, nontemporal or availability
//! flags are selected so far; flat comes with the memory-model work.
//!
//! `atomic_load` and `atomic_store`, relaxed, are the plain access with the cache-policy bits
//! of their scope (see [`relaxed_cache_policy`]); an acquire load (on global memory) is
//! followed by the waits and cache invalidates of its scope ([`acquire_after_load`]), a
//! release store preceded by its waits and writeback ([`release_before_store`]). `fence`
//! is the table's sequence for its ordering and scope ([`fence`]). `atomic_rmw` on 32-bit integers is a
//! `global_atomic_*` or `ds_*` operation, the returning form (`glc`/`sc0` set, or `ds_*_rtn_*`) only when the old value is used; relaxed orderings
//! only so far, whose memory-model sequence is the plain operation (see [`atomic_rmw`]).
//!
//! `barrier` is `s_barrier` wrapped in the waits (and invalidates) of a workgroup-scope
//! acq_rel fence, see [`barrier`]; once the kernel is selected, [`prune_barrier_waits`] drops
//! the counters of those waits that can have nothing outstanding.

use super::{inputs, Ctx, Val};
use crate::error::IselError;
use frontend_ir::{AddrSpace, InstData, MemFlags, Ordering, RmwOp, Scope, SyncInfo, Type, Value, ValueDef};
use isa::mir::{self, CachePolicy, Def, Operand};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use smallvec::SmallVec;

/// Selects a `load`, `store`, `atomic_load`, `atomic_store`, `slot_addr`, `dyn_shared_addr`, `atomic_rmw` or `barrier`.
pub(super) fn select(ctx: &mut Ctx<'_>, data: &InstData, result: Option<Value>) -> Result<(), IselError> {
    match *data {
        InstData::Load { ty, ptr, flags } => load(ctx, ty, ptr, flags, result.expect("loads have results")),
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
        InstData::Barrier => barrier(ctx),
        InstData::Fence { sync } => fence(ctx, sync),
        InstData::AtomicRmw { op, args: [ptr, value], sync } => {
            atomic_rmw(ctx, op, ptr, value, sync, result.expect("atomic_rmw has a result"))
        }
        InstData::Store { args: [ptr, value], flags } => store(ctx, ptr, value, flags, CachePolicy::default()),
        InstData::AtomicLoad { ty, ptr, sync } => {
            let cpol = relaxed_cache_policy(ctx, ptr, sync, false)?;
            if sync.ordering == Ordering::SeqCst {
                seq_cst_before_load(ctx, sync.scope);
            }
            load_with(
                ctx,
                ty,
                ptr,
                MemFlags::aligned(ty.bytes().unwrap_or(1)),
                cpol,
                result.expect("loads have results"),
            )?;
            if matches!(sync.ordering, Ordering::Acquire | Ordering::SeqCst) {
                acquire_after_load(ctx, sync.scope);
            }
            Ok(())
        }
        InstData::AtomicStore { args: [ptr, value], sync } => {
            let cpol = relaxed_cache_policy(ctx, ptr, sync, true)?;
            // A seq_cst store is the release store (AMDGPUUsage-new.txt:10724, 12616).
            if matches!(sync.ordering, Ordering::Release | Ordering::SeqCst) {
                release_before_store(ctx, sync.scope);
            }
            let bytes = ctx.func.dfg.value_type(value).bytes().unwrap_or(1);
            store(ctx, ptr, value, MemFlags::aligned(bytes), cpol)
        }
        _ => unreachable!("memory::select is called for memory, LDS-address and barrier instructions"),
    }
}

fn load(ctx: &mut Ctx<'_>, ty: Type, ptr: Value, flags: MemFlags, result: Value) -> Result<(), IselError> {
    load_with(ctx, ty, ptr, flags, CachePolicy::default(), result)
}

/// A load whose global form has the cache-policy bits `cpol` (those of an atomic load; an
/// atomic load is divergent, so never the SMEM form, see [`crate::divergence`]).
fn load_with(
    ctx: &mut Ctx<'_>,
    ty: Type,
    ptr: Value,
    flags: MemFlags,
    cpol: CachePolicy,
    result: Value,
) -> Result<(), IselError> {
    let dwords = check_access(ctx, ptr, ty, flags)?;
    if is_shared(ctx, ptr) {
        // LDS loads are divergent sources (see `crate::divergence`): the result is in VGPRs.
        let dst = ctx.temp(RegClass::vgpr(dwords));
        let opcode = if dwords == 1 { Opcode::DsLoadB32 } else { Opcode::DsLoadB64 };
        emit_ds(ctx, opcode, &[Def::temp(dst)], ptr, None)?;
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
    if is_private(ctx, ptr) {
        // Private loads are divergent sources too (see `crate::divergence`).
        let addr = private_address(ctx, ptr)?;
        let dst = ctx.temp(RegClass::vgpr(dwords));
        let opcode = if dwords == 1 { Opcode::ScratchLoadB32 } else { Opcode::ScratchLoadB64 };
        ctx.emit(mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(addr)]));
        ctx.set(result, Val::Temp(dst));
        return Ok(());
    }
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
    let mut inst = mir::Inst::new(opcode, &[Def::temp(dst)], &[Operand::temp(addr)]);
    inst.fields.cpol = cpol;
    ctx.emit(inst);
    ctx.set(result, Val::Temp(dst));
    Ok(())
}

/// A store of `value` to `ptr`; its global form has the cache-policy bits `cpol`.
fn store(ctx: &mut Ctx<'_>, ptr: Value, value: Value, flags: MemFlags, cpol: CachePolicy) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(value);
    let dwords = check_access(ctx, ptr, ty, flags)?;
    if is_shared(ctx, ptr) {
        let data = ctx.val(value)?;
        let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
        let opcode = if dwords == 1 { Opcode::DsStoreB32 } else { Opcode::DsStoreB64 };
        return emit_ds(ctx, opcode, &[], ptr, Some(data));
    }
    if is_private(ctx, ptr) {
        let addr = private_address(ctx, ptr)?;
        let data = ctx.val(value)?;
        let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
        let opcode = if dwords == 1 { Opcode::ScratchStoreB32 } else { Opcode::ScratchStoreB64 };
        ctx.emit(mir::Inst::new(opcode, &[], &[Operand::temp(addr), Operand::temp(data)]));
        return Ok(());
    }
    let addr = address(ctx, ptr)?;
    let data = ctx.val(value)?;
    let data = ctx.as_class(data, RegClass::vgpr(dwords))?;
    let opcode = if dwords == 1 { Opcode::GlobalStoreB32 } else { Opcode::GlobalStoreB64 };
    let mut inst = mir::Inst::new(opcode, &[], &[Operand::temp(addr), Operand::temp(data)]);
    inst.fields.cpol = cpol;
    ctx.emit(inst);
    Ok(())
}

/// The cache-policy bits of a relaxed (monotonic) atomic load or store, whose memory-model
/// sequence is the plain access with these bits (an LDS access has none):
/// - GFX10-GFX11 (AMDGPUUsage-new.txt:10927-10944): "load atomic monotonic - workgroup -
///   global 1. buffer/global/flat_load glc=1 - If CU wavefront execution mode, omit glc=1",
///   "load atomic monotonic - agent - system - global ... glc=1 dlc=1 - If GFX11, omit
///   dlc=1"; a store is the plain `global_store` at every scope.
/// - GFX942 (AMDGPUUsage-new.txt:8764-8786): loads and stores alike, singlethread and
///   wavefront plain, "workgroup ... sc0=1", "agent ... sc1=1", "system ... sc0=1 sc1=1"; in
///   tgsplit mode the local address space cannot be used.
///
/// The acquire load and release store rows of global memory give their access the same bits
/// (AMDGPUUsage-new.txt:10960, 11032-11034, 8803, 8867-8868, 8887-8888, 9372-9374,
/// 9429-9431), with the waits and invalidates of [`acquire_after_load`] and
/// [`release_before_store`] around it; LDS and seq_cst forms are not selected yet.
fn relaxed_cache_policy(ctx: &Ctx<'_>, ptr: Value, sync: SyncInfo, is_store: bool) -> Result<CachePolicy, IselError> {
    let what = if is_store { "atomic_store" } else { "atomic_load" };
    let ordered = if is_store { Ordering::Release } else { Ordering::Acquire };
    if !matches!(sync.ordering, Ordering::Relaxed | Ordering::SeqCst) && sync.ordering != ordered {
        return Err(ctx.unsupported(format!("an {} {what}", sync.ordering.name())));
    }
    if sync.ordering != Ordering::Relaxed && ctx.family == Family::Gfx9 && ctx.target.tgsplit {
        return Err(ctx.unsupported(format!("a {} {what} in tgsplit mode", sync.ordering.name())));
    }
    if sync.av_none {
        return Err(ctx.unsupported(format!("an {what} with av_none")));
    }
    if is_shared(ctx, ptr) {
        if ctx.family == Family::Gfx9 && ctx.target.tgsplit {
            return Err(ctx.unsupported(format!("an LDS {what} in tgsplit mode")));
        }
        if sync.ordering != Ordering::Relaxed {
            return Err(ctx.unsupported(format!("a {} LDS {what} (only relaxed so far)", sync.ordering.name())));
        }
        return Ok(CachePolicy::default());
    }
    let space = ctx.func.dfg.value_type(ptr).addr_space();
    if space != Some(AddrSpace::Global) {
        let name = space.map_or("?", AddrSpace::name);
        return Err(ctx.unsupported(format!("an {what} on {name} memory (global and shared only so far)")));
    }
    let wide = matches!(sync.scope, Scope::Cluster | Scope::Agent | Scope::System);
    Ok(CachePolicy(if ctx.family == Family::Gfx9 {
        // SC0 bit 0, SC1 bit 2.
        match sync.scope {
            Scope::Singlethread | Scope::Wavefront => 0,
            Scope::Workgroup => 1,
            Scope::Cluster | Scope::Agent => 4,
            Scope::System => 5,
        }
    } else {
        // GLC bit 0: loads at workgroup scope in WGP mode, and at agent and system scope.
        let workgroup_glc = sync.scope == Scope::Workgroup && !ctx.target.cumode;
        u8::from(!is_store && (wide || workgroup_glc))
    }))
}

/// Emits `s_waitcnt` with the given counters (each waited to 0) and, with `vscnt`,
/// `s_waitcnt_vscnt null, 0`.
fn emit_waits(ctx: &mut Ctx<'_>, vmcnt: bool, lgkmcnt: bool, vscnt: bool) {
    if vmcnt || lgkmcnt {
        let mut wait = mir::Inst::new(Opcode::SWaitcnt, &[], &[]);
        wait.fields.imm = isa::asm::waitcnt_encode(ctx.family, vmcnt.then_some(0), None, lgkmcnt.then_some(0));
        ctx.emit(wait);
    }
    if vscnt {
        let mut vs = mir::Inst::new(Opcode::SWaitcntVscnt, &[], &[Operand::phys(PhysReg::NULL, RegClass::S1)]);
        vs.fields.imm = 0;
        ctx.emit(vs);
    }
}

/// Emits a gfx942 cache maintenance instruction (`buffer_wbl2`, `buffer_inv`) with the sc bits
/// in `cpol` (SC0 bit 0, SC1 bit 2).
fn emit_cache_op(ctx: &mut Ctx<'_>, opcode: Opcode, cpol: u8) {
    let mut inst = mir::Inst::new(opcode, &[], &[]);
    inst.fields.cpol = CachePolicy(cpol);
    ctx.emit(inst);
}

/// What follows a global `load atomic acquire` (the load carries the relaxed cache bits of
/// its scope, which the acquire rows share, see [`relaxed_cache_policy`]):
/// - GFX10-GFX11 workgroup (AMDGPUUsage-new.txt:10960-10979): "2. s_waitcnt vmcnt(0) - If CU
///   wavefront execution mode, omit", "3. buffer_gl0_inv - If CU wavefront execution mode,
///   omit".
/// - GFX10-GFX11 agent and system (AMDGPUUsage-new.txt:11032-11053): "2. s_waitcnt
///   vmcnt(0)", "3. buffer_gl1_inv; buffer_gl0_inv".
/// - GFX942 workgroup (AMDGPUUsage-new.txt:8803-8821): the wait and `buffer_inv sc0=1` are
///   for tgsplit mode only ("If not TgSplit execution mode, omit").
/// - GFX942 agent (AMDGPUUsage-new.txt:8867-8886): "2. s_waitcnt vmcnt(0)", "3. buffer_inv
///   sc1=1"; system (AMDGPUUsage-new.txt:8887-8900): "3. buffer_inv sc0=1 sc1=1".
///
/// Singlethread and wavefront scope need nothing (AMDGPUUsage-new.txt:10957, 8800).
fn acquire_after_load(ctx: &mut Ctx<'_>, scope: Scope) {
    let wide = matches!(scope, Scope::Cluster | Scope::Agent | Scope::System);
    if ctx.family == Family::Gfx9 {
        if wide {
            emit_waits(ctx, true, false, false); // AMDGPUUsage-new.txt:8869 / 8889
            let sc = if scope == Scope::System { 5 } else { 4 };
            emit_cache_op(ctx, Opcode::BufferInv, sc); // AMDGPUUsage-new.txt:8877 / 8897
        }
        return;
    }
    if wide {
        emit_waits(ctx, true, false, false); // AMDGPUUsage-new.txt:11035
        ctx.marker(Opcode::BufferGl1Inv); // AMDGPUUsage-new.txt:11043
        ctx.marker(Opcode::BufferGl0Inv); // AMDGPUUsage-new.txt:11044
    } else if scope == Scope::Workgroup && !ctx.target.cumode {
        emit_waits(ctx, true, false, false); // AMDGPUUsage-new.txt:10963
        ctx.marker(Opcode::BufferGl0Inv); // AMDGPUUsage-new.txt:10973
    }
}

/// What precedes a global `load atomic seq_cst`, whose following instructions are the acquire
/// load's ("2. *Following instructions same as corresponding load atomic acquire*",
/// AMDGPUUsage-new.txt:12414, 12609, 10616-10650):
/// - GFX10-GFX11 workgroup (AMDGPUUsage-new.txt:12313-12317): "1. s_waitcnt lgkmcnt(0) &
///   vmcnt(0) & vscnt(0) - If CU wavefront execution mode, omit vmcnt(0) and vscnt(0)";
///   agent and system (AMDGPUUsage-new.txt:12511-12512) the three waits.
/// - GFX942 workgroup (AMDGPUUsage-new.txt:10541-10545): "s_waitcnt lgkm/vmcnt(0) - Use
///   lgkmcnt(0) if not TgSplit execution mode"; agent and system
///   (AMDGPUUsage-new.txt:10633-10634): "s_waitcnt lgkmcnt(0) & vmcnt(0)" (no writeback).
fn seq_cst_before_load(ctx: &mut Ctx<'_>, scope: Scope) {
    let wide = matches!(scope, Scope::Cluster | Scope::Agent | Scope::System);
    if !wide && scope != Scope::Workgroup {
        return;
    }
    if ctx.family == Family::Gfx9 {
        emit_waits(ctx, wide, true, false); // AMDGPUUsage-new.txt:10541 / 10633-10634
    } else {
        let vector = wide || !ctx.target.cumode;
        emit_waits(ctx, vector, true, vector); // AMDGPUUsage-new.txt:12313-12317 / 12511-12512
    }
}

/// What precedes a global `store atomic release` (the store itself carries the relaxed cache
/// bits of its scope, see [`relaxed_cache_policy`]):
/// - GFX10-GFX11 workgroup (AMDGPUUsage-new.txt:11373-11419): "1. s_waitcnt lgkmcnt(0) &
///   vmcnt(0) & vscnt(0) - If CU wavefront execution mode, omit vmcnt(0) and vscnt(0)".
/// - GFX10-GFX11 agent and system (AMDGPUUsage-new.txt:11455-11500): "1. s_waitcnt
///   lgkmcnt(0) & vmcnt(0) & vscnt(0)".
/// - GFX942 workgroup (AMDGPUUsage-new.txt:9342-9374): "1. s_waitcnt lgkm/vmcnt(0) - Use
///   lgkmcnt(0) if not TgSplit execution mode", then the store with sc0=1.
/// - GFX942 agent (AMDGPUUsage-new.txt:9379-9431): "1. buffer_wbl2 sc1=1", "2. s_waitcnt
///   lgkmcnt(0) & vmcnt(0)", the store with sc1=1; system (AMDGPUUsage-new.txt:9432-): "1.
///   buffer_wbl2 sc0=1 sc1=1", the same waits, the store with sc0=1 sc1=1.
///
/// Singlethread and wavefront scope need nothing (AMDGPUUsage-new.txt:11370, 9336). The waits
/// go through [`prune_barrier_waits`] like a barrier's, which drops counters with nothing
/// outstanding.
fn release_before_store(ctx: &mut Ctx<'_>, scope: Scope) {
    let wide = matches!(scope, Scope::Cluster | Scope::Agent | Scope::System);
    if ctx.family == Family::Gfx9 {
        if wide {
            let sc = if scope == Scope::System { 5 } else { 4 };
            emit_cache_op(ctx, Opcode::BufferWbl2, sc); // AMDGPUUsage-new.txt:9379 / 9432
            emit_waits(ctx, true, true, false); // AMDGPUUsage-new.txt:9388-9389
        } else if scope == Scope::Workgroup {
            emit_waits(ctx, false, true, false); // AMDGPUUsage-new.txt:9342-9345
        }
        return;
    }
    if wide {
        emit_waits(ctx, true, true, true); // AMDGPUUsage-new.txt:11455-11456
    } else if scope == Scope::Workgroup {
        let wgp = !ctx.target.cumode;
        emit_waits(ctx, wgp, true, wgp); // AMDGPUUsage-new.txt:11373-11376
    }
}

/// `fence ordering scope`, AMDGPUUsage's "fence" rows; a seq_cst fence is the acq_rel one
/// (AMDGPUUsage-new.txt:10734-10738 and 12626-12630, "Same as corresponding fence acq_rel").
/// Singlethread and wavefront scope need nothing (AMDGPUUsage-new.txt:9132, 9627, 10230,
/// 11197, 11628, 12087). gfx942 (not tgsplit, whose forms are refused):
/// - acquire: workgroup "s_waitcnt lgkm/vmcnt(0) - Use lgkmcnt(0) if not TgSplit"
///   (AMDGPUUsage-new.txt:9134-9136); agent "s_waitcnt lgkmcnt(0) & vmcnt(0)", "buffer_inv
///   sc1=1" (AMDGPUUsage-new.txt:9196-9197, 9255); system the same with "buffer_inv sc0=1
///   sc1=1" (AMDGPUUsage-new.txt:9265-9266, 9324).
/// - release: workgroup lgkmcnt(0) (AMDGPUUsage-new.txt:9629-9631); agent "buffer_wbl2
///   sc1=1", "s_waitcnt lgkmcnt(0) & vmcnt(0)" (AMDGPUUsage-new.txt:9676, 9687-9688); system
///   "buffer_wbl2 sc0=1 sc1=1" and the waits (AMDGPUUsage-new.txt:9742, 9750-9751).
/// - acq_rel: workgroup lgkmcnt(0) (AMDGPUUsage-new.txt:10232-10234); agent `buffer_wbl2
///   sc1=1`, the waits, `buffer_inv sc1=1` (AMDGPUUsage-new.txt:10338, 10349-10350, 10422);
///   system with sc0=1 sc1=1 (AMDGPUUsage-new.txt:10436, 10447-10448, 10520).
///
/// GFX10-GFX11 (gcnc's fences order every address space, so no "If OpenCL" omission applies):
/// - acquire: workgroup "s_waitcnt lgkmcnt(0) & vmcnt(0) & vscnt(0) - If CU wavefront
///   execution mode, omit vmcnt(0) and vscnt(0)", "3. buffer_gl0_inv - If CU wavefront
///   execution mode, omit" (AMDGPUUsage-new.txt:11199-11203, 11276-11278); agent and system
///   the three waits, "buffer_gl1_inv; buffer_gl0_inv" (AMDGPUUsage-new.txt:11283-11284,
///   11357-11358).
/// - release: workgroup the waits, vmcnt and vscnt omitted in CU mode
///   (AMDGPUUsage-new.txt:11630-11634); agent and system the three waits
///   (AMDGPUUsage-new.txt:11692-11693).
/// - acq_rel: workgroup the release waits and `buffer_gl0_inv`, CU mode omitting vmcnt,
///   vscnt and the invalidate (AMDGPUUsage-new.txt:12089, 12203-12204); agent and system the
///   three waits, `buffer_gl1_inv; buffer_gl0_inv` (AMDGPUUsage-new.txt:12210, 12291-12292).
///
/// The waits go through [`prune_barrier_waits`], which drops counters with nothing
/// outstanding.
fn fence(ctx: &mut Ctx<'_>, sync: SyncInfo) -> Result<(), IselError> {
    if sync.av_none {
        return Err(ctx.unsupported("a fence with av_none"));
    }
    let (release, acquire) = match sync.ordering {
        Ordering::Acquire => (false, true),
        Ordering::Release => (true, false),
        Ordering::AcqRel | Ordering::SeqCst => (true, true),
        _ => return Err(ctx.unsupported(format!("a {} fence", sync.ordering.name()))),
    };
    let wide = matches!(sync.scope, Scope::Cluster | Scope::Agent | Scope::System);
    if !wide && sync.scope != Scope::Workgroup {
        return Ok(());
    }
    if ctx.family == Family::Gfx9 {
        if ctx.target.tgsplit {
            return Err(ctx.unsupported("a fence in tgsplit mode"));
        }
        let sc = if sync.scope == Scope::System { 5 } else { 4 };
        if release && wide {
            emit_cache_op(ctx, Opcode::BufferWbl2, sc);
        }
        emit_waits(ctx, wide, true, false);
        if acquire && wide {
            emit_cache_op(ctx, Opcode::BufferInv, sc);
        }
        return Ok(());
    }
    let wgp = !ctx.target.cumode;
    emit_waits(ctx, wide || wgp, true, wide || wgp);
    if acquire && wide {
        ctx.marker(Opcode::BufferGl1Inv);
    }
    if acquire && (wide || wgp) {
        ctx.marker(Opcode::BufferGl0Inv);
    }
    Ok(())
}

/// Checks that the access is one selected so far; gives its size in dwords.
fn check_access(ctx: &Ctx<'_>, ptr: Value, ty: Type, flags: MemFlags) -> Result<u8, IselError> {
    let space = ctx.func.dfg.value_type(ptr).addr_space();
    if !matches!(space, Some(AddrSpace::Global | AddrSpace::Constant | AddrSpace::Shared | AddrSpace::Private)) {
        let name = space.map_or("?", AddrSpace::name);
        return Err(
            ctx.unsupported(format!("{name} memory access (only global, constant, shared and private memory so far)"))
        );
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

/// Whether `ptr` points into the lane's private segment (scratch).
fn is_private(ctx: &Ctx<'_>, ptr: Value) -> bool {
    ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Private)
}

/// A private address (an offset in the lane's segment) in a VGPR.
fn private_address(ctx: &mut Ctx<'_>, ptr: Value) -> Result<Temp, IselError> {
    let val = ctx.val(ptr)?;
    ctx.as_class(val, RegClass::V1)
}

/// Whether `ptr` points into shared memory (LDS).
fn is_shared(ctx: &Ctx<'_>, ptr: Value) -> bool {
    ctx.func.dfg.value_type(ptr).addr_space() == Some(AddrSpace::Shared)
}

/// Emits the DS operation `opcode` on the LDS address `ptr` (with `data` when it takes one).
/// An address that is a constant plus an offset, a shared slot's address and an index, uses
/// the instruction's 16-bit unsigned offset field for the constant and the offset as the
/// VGPR address (DS adds them); any other address is the VGPR address itself.
fn emit_ds(ctx: &mut Ctx<'_>, opcode: Opcode, defs: &[Def], ptr: Value, data: Option<Temp>) -> Result<(), IselError> {
    let def = match ctx.func.dfg.values[ptr].def {
        ValueDef::Result(i) => Some(&ctx.func.dfg.insts[i]),
        _ => None,
    };
    let folded = match def {
        Some(&InstData::PtrAdd { args: [base, offset] }) => match ctx.vals[base] {
            Val::Const(c) if c <= u64::from(u16::MAX) && ctx.vals[offset] != Val::None => Some((offset, c as i32)),
            _ => None,
        },
        _ => None,
    };
    let (addr, imm) = match folded {
        Some((offset, imm)) => (offset, imm),
        None => (ptr, 0),
    };
    let op = ctx.operand(addr)?;
    let addr = ctx.in_vgpr(op, 1)?;
    let mut ops: SmallVec<[Operand; 2]> = SmallVec::new();
    ops.push(Operand::temp(addr));
    ops.extend(data.map(Operand::temp));
    let mut inst = mir::Inst::new(opcode, defs, &ops);
    inst.fields.offset = imm;
    ctx.emit(inst);
    Ok(())
}

/// `barrier`: the execution barrier is acquire-release at workgroup scope, so `s_barrier` is
/// wrapped in a workgroup-scope acq_rel fence's sequence (AMDGPUUsage, "fence acq_rel
/// workgroup"):
/// - GFX10-GFX11 (AMDGPUUsage-new.txt:12089-12208 — "s_waitcnt lgkmcnt(0) & vmcnt(0) &
///   vscnt(0)", "If CU wavefront execution mode, omit vmcnt(0) and vscnt(0)", then
///   "buffer_gl0_inv. If CU wavefront execution mode, omit."): all three waits before the
///   barrier and the GL0 invalidate after it in WGP mode; only `lgkmcnt(0)` in CU mode.
/// - GFX942 (AMDGPUUsage-new.txt:10232-10236 — "s_waitcnt lgkm/vmcnt(0)", "Use lgkmcnt(0)
///   if not TgSplit execution mode and vmcnt(0) if TgSplit execution mode"): `lgkmcnt(0)`; the tgsplit form (vmcnt and
///   `buffer_inv sc0`) is not selected.
///
/// The waits are explicit here: the waitcnt pass waits only for registers being read, and
/// stores (LDS stores on lgkmcnt, global stores on vscnt) write none.
fn barrier(ctx: &mut Ctx<'_>) -> Result<(), IselError> {
    let wgp = ctx.family != Family::Gfx9 && !ctx.target.cumode;
    if ctx.family == Family::Gfx9 && ctx.target.tgsplit {
        return Err(ctx.unsupported("a barrier in tgsplit mode"));
    }
    let mut wait = mir::Inst::new(Opcode::SWaitcnt, &[], &[]);
    wait.fields.imm = isa::asm::waitcnt_encode(ctx.family, wgp.then_some(0), None, Some(0));
    ctx.emit(wait);
    if wgp {
        let mut vs = mir::Inst::new(Opcode::SWaitcntVscnt, &[], &[Operand::phys(PhysReg::NULL, RegClass::S1)]);
        vs.fields.imm = 0;
        ctx.emit(vs);
    }
    ctx.marker(Opcode::SBarrier);
    if wgp {
        ctx.marker(Opcode::BufferGl0Inv);
    }
    Ok(())
}

/// Counters a memory operation may leave outstanding, as bits.
const VM: u8 = 1;
const LGKM: u8 = 2;
const VS: u8 = 4;

/// The counters whose outstanding operations a barrier must wait for that `inst` increments.
/// SMEM is left out: gcnc's scalar loads read constant memory, which no wave writes during the
/// dispatch, so they need no ordering with other waves' accesses.
fn barrier_events(inst: &mir::Inst, family: Family) -> u8 {
    let split_stores = family != Family::Gfx9;
    let vector = if inst.defs.is_empty() && split_stores { VS } else { VM };
    match inst.opcode.format(family) {
        Format::Ds => LGKM,
        Format::Global | Format::Scratch => vector,
        Format::Flat => vector | LGKM,
        // gfx942's `buffer_wbl2` and `buffer_inv` count on vmcnt.
        Format::Mubuf if family == Family::Gfx9 => VM,
        _ => 0,
    }
}

/// Drops the parts of the barriers' fence waits ([`barrier`]) that can have nothing to wait
/// for: a counter no operation may have incremented since the function entry or the last wait
/// on it, along any path of the linear CFG (a forward may-analysis to a fixpoint over loops).
/// A wait with nothing outstanding does nothing; leaving it out keeps every wait one the
/// program needs.
pub(super) fn prune_barrier_waits(mir: &mut mir::Function) {
    let family = mir.family;
    let n = mir.blocks.len();
    let mut out = vec![0u8; n];
    let entry_state = |out: &[u8], b: usize, blocks: &[mir::Block]| -> u8 {
        blocks[b].linear_preds.iter().fold(0, |s, &p| s | out[p as usize])
    };
    // The state after each instruction, with `rewrite` applying the pruning as it goes.
    let run = |block: &mut mir::Block, mut state: u8, rewrite: bool| -> u8 {
        let mut i = 0;
        while i < block.insts.len() {
            // Every wait isel emits is a memory-model wait (a barrier's or an atomic's).
            let before_barrier = true;
            let inst = &mut block.insts[i];
            match inst.opcode {
                Opcode::SWaitcnt => {
                    let (vm, _, lgkm) = isa::asm::waitcnt_decode(family, inst.fields.imm);
                    let vm = vm.filter(|_| !before_barrier || state & VM != 0);
                    let lgkm = lgkm.filter(|_| !before_barrier || state & LGKM != 0);
                    if vm == Some(0) {
                        state &= !VM;
                    }
                    if lgkm == Some(0) {
                        state &= !LGKM;
                    }
                    if rewrite && before_barrier {
                        if vm.is_none() && lgkm.is_none() {
                            block.insts.remove(i);
                            continue;
                        }
                        inst.fields.imm = isa::asm::waitcnt_encode(family, vm, None, lgkm);
                    }
                }
                Opcode::SWaitcntVscnt => {
                    let keep = !before_barrier || state & VS != 0;
                    if inst.fields.imm == 0 {
                        state &= !VS;
                    }
                    if rewrite && !keep {
                        block.insts.remove(i);
                        continue;
                    }
                }
                _ => state |= barrier_events(inst, family),
            }
            i += 1;
        }
        state
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            let start = entry_state(&out, b, &mir.blocks);
            let mut copy = mir.blocks[b].clone();
            let end = run(&mut copy, start, false);
            if end != out[b] {
                out[b] = end;
                changed = true;
            }
        }
    }
    for b in 0..n {
        let start = entry_state(&out, b, &mir.blocks);
        run(&mut mir.blocks[b], start, true);
    }
}

/// The global and LDS operations of an `atomic_rmw` on 32 bits: (global, LDS without return,
/// LDS with return). LDS has no exchange without return. `None` for the floating-point
/// operations, not selected yet.
fn rmw_opcodes(op: RmwOp) -> Option<(Opcode, Option<Opcode>, Opcode)> {
    use Opcode::*;
    Some(match op {
        RmwOp::Add => (GlobalAtomicAddU32, Some(DsAddU32), DsAddRtnU32),
        RmwOp::Sub => (GlobalAtomicSubU32, Some(DsSubU32), DsSubRtnU32),
        RmwOp::And => (GlobalAtomicAndB32, Some(DsAndB32), DsAndRtnB32),
        RmwOp::Or => (GlobalAtomicOrB32, Some(DsOrB32), DsOrRtnB32),
        RmwOp::Xor => (GlobalAtomicXorB32, Some(DsXorB32), DsXorRtnB32),
        RmwOp::Xchg => (GlobalAtomicSwapB32, None, DsStorexchgRtnB32),
        RmwOp::Smin => (GlobalAtomicMinI32, Some(DsMinI32), DsMinRtnI32),
        RmwOp::Smax => (GlobalAtomicMaxI32, Some(DsMaxI32), DsMaxRtnI32),
        RmwOp::Umin => (GlobalAtomicMinU32, Some(DsMinU32), DsMinRtnU32),
        RmwOp::Umax => (GlobalAtomicMaxU32, Some(DsMaxU32), DsMaxRtnU32),
        RmwOp::Fadd | RmwOp::Fsub | RmwOp::Fmin | RmwOp::Fmax => return None,
    })
}

/// What follows a global `atomicrmw` with acquire semantics (acquire, acq_rel, seq_cst; a
/// seq_cst RMW is the acq_rel one, AMDGPUUsage-new.txt:12621-12625):
/// - GFX10-GFX11 workgroup (AMDGPUUsage-new.txt:11082-11098, 11807-11825): "s_waitcnt
///   vm/vscnt(0) - If CU wavefront execution mode, omit - Use vmcnt(0) if atomic with return
///   and vscnt(0) if atomic with no-return", then "buffer_gl0_inv - If CU wavefront execution
///   mode, omit"; agent and system (AMDGPUUsage-new.txt:11146-11160, 11994-12008): the wait,
///   then "buffer_gl1_inv; buffer_gl0_inv".
/// - GFX942 workgroup: the wait and `buffer_inv sc0=1` are tgsplit only
///   (AMDGPUUsage-new.txt:8968-8979, 9850-9864); agent "s_waitcnt vmcnt(0)", "buffer_inv
///   sc1=1" (AMDGPUUsage-new.txt:9036, 9045, 9993, 10002); system with "buffer_inv sc0=1
///   sc1=1" (AMDGPUUsage-new.txt:9057, 9066, 10061, 10070).
///
/// The release part before the atomic is the release store's ([`release_before_store`]:
/// AMDGPUUsage-new.txt:11504, 11585, 11755, 11952 on GFX10-GFX11; 9491, 9527, 9813, 9945,
/// 10012 on GFX942).
fn acquire_after_rmw(ctx: &mut Ctx<'_>, scope: Scope, returns: bool) {
    let wide = matches!(scope, Scope::Cluster | Scope::Agent | Scope::System);
    if ctx.family == Family::Gfx9 {
        if wide {
            emit_waits(ctx, true, false, false); // AMDGPUUsage-new.txt:9036 / 9057
            let sc = if scope == Scope::System { 5 } else { 4 };
            emit_cache_op(ctx, Opcode::BufferInv, sc); // AMDGPUUsage-new.txt:9045 / 9066
        }
        return;
    }
    if wide || !ctx.target.cumode {
        emit_waits(ctx, returns, false, !returns); // AMDGPUUsage-new.txt:11083-11087 / 11147-11148
        if wide {
            ctx.marker(Opcode::BufferGl1Inv); // AMDGPUUsage-new.txt:11159
        }
        ctx.marker(Opcode::BufferGl0Inv); // AMDGPUUsage-new.txt:11096 / 11160
    }
}

/// Whether any instruction of the function reads `v`.
fn is_used(ctx: &Ctx<'_>, v: Value) -> bool {
    let func = ctx.func;
    func.insts_in_layout().any(|(_, i)| {
        let data = &func.dfg.insts[i];
        data.args().contains(&v) || data.block_calls().iter().any(|c| c.args.contains(&v))
    })
}

/// `atomic_rmw.op ptr, value`: relaxed (monotonic) at any scope. For monotonic RMW the
/// memory-model tables give the plain atomic at every scope on GFX10-GFX11
/// (AMDGPUUsage-new.txt, GFX10-GFX11 table: "atomicrmw monotonic - singlethread - wavefront -
/// workgroup - agent - system - global - generic: 1. buffer/global/flat_atomic"), and on
/// GFX942 up to agent scope, system scope adding `sc1=1` (AMDGPUUsage-new.txt:8788-8793); an
/// LDS atomic is the plain `ds_*` operation. On global memory, release, acquire, acq_rel and
/// seq_cst at workgroup scope and wider wrap the atomic in the release waits
/// ([`release_before_store`]) and the acquire waits and invalidates ([`acquire_after_rmw`]);
/// the ordered LDS forms and gfx942's tgsplit forms are not selected yet.
fn atomic_rmw(
    ctx: &mut Ctx<'_>,
    op: RmwOp,
    ptr: Value,
    value: Value,
    sync: SyncInfo,
    result: Value,
) -> Result<(), IselError> {
    let ty = ctx.func.dfg.value_type(value);
    let opcodes = rmw_opcodes(op).filter(|_| ty.bits() == 32 && !ty.is_float());
    let Some((global, lds, lds_rtn)) = opcodes else {
        return Err(
            ctx.unsupported(format!("atomic_rmw.{} on {ty} (only integer operations on 32 bits so far)", op.name()))
        );
    };
    let shared = is_shared(ctx, ptr);
    let (release, acquire) = match sync.ordering {
        Ordering::Relaxed => (false, false),
        Ordering::Acquire => (false, true),
        Ordering::Release => (true, false),
        Ordering::AcqRel | Ordering::SeqCst => (true, true),
    };
    let ordered = (release || acquire) && !matches!(sync.scope, Scope::Singlethread | Scope::Wavefront);
    if shared && ordered {
        return Err(ctx.unsupported(format!("a {} LDS atomic_rmw (only relaxed so far)", sync.ordering.name())));
    }
    if ordered && ctx.family == Family::Gfx9 && ctx.target.tgsplit {
        return Err(ctx.unsupported(format!("a {} atomic_rmw in tgsplit mode", sync.ordering.name())));
    }
    if sync.av_none && ordered {
        return Err(ctx.unsupported("an atomic_rmw with av_none"));
    }
    let space = ctx.func.dfg.value_type(ptr).addr_space();
    if !shared && space != Some(AddrSpace::Global) {
        let name = space.map_or("?", AddrSpace::name);
        return Err(ctx.unsupported(format!("an atomic_rmw on {name} memory (global and shared only so far)")));
    }
    let returns = is_used(ctx, result);
    // AMDGPUUsage-new.txt:9522 gives gfx942's release workgroup atomic sc0=1 even without a
    // return, but on an atomic sc0 asks for the old value and llvm-mc-19 rejects it on the
    // no-return form ("invalid operand for instruction"): we follow LLVM and encode the
    // no-return atomic without sc0 (the returning form has sc0 anyway).
    if ordered && release {
        release_before_store(ctx, sync.scope);
    }
    let data = ctx.val(value)?;
    let data = ctx.as_class(data, RegClass::V1)?;
    let dst = ctx.temp(RegClass::V1);
    if shared {
        match lds.filter(|_| !returns) {
            Some(opcode) => emit_ds(ctx, opcode, &[], ptr, Some(data))?,
            None => emit_ds(ctx, lds_rtn, &[Def::temp(dst)], ptr, Some(data))?,
        }
    } else {
        let addr = address(ctx, ptr)?;
        let ops = [Operand::temp(addr), Operand::temp(data)];
        // gfx942 system scope: "buffer/global/flat_atomic sc1=1" (AMDGPUUsage-new.txt:8792,
        // 9055-9056, 10059-10060).
        let sc1 = if ctx.family == Family::Gfx9 && sync.scope == Scope::System { 4 } else { 0 };
        if returns {
            let mut inst = mir::Inst::new(global, &[Def::temp(dst)], &ops);
            // glc (gfx11) or sc0 (gfx942): return the old value.
            inst.fields.cpol = CachePolicy(1 | sc1);
            ctx.emit(inst);
        } else {
            let mut inst = mir::Inst::new(global, &[], &ops);
            inst.fields.cpol = CachePolicy(sc1);
            ctx.emit(inst);
        }
        if ordered && acquire {
            acquire_after_rmw(ctx, sync.scope, returns);
        }
    }
    // The old value is divergent (see `crate::divergence`); unused, it is never read.
    ctx.set(result, Val::Temp(dst));
    Ok(())
}
