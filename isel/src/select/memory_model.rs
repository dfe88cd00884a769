//! Memory-model lowering: the waits, cache-policy bits and cache maintenance (`buffer_wbl2`,
//! `buffer_inv`, `buffer_gl0_inv`, `buffer_gl1_inv`) that AMDGPUUsage's code-sequence tables
//! put around atomics, fences and barriers, and on volatile, nontemporal and
//! availability-flagged accesses, for GFX90A and GFX942 (with and without threadgroup split,
//! `-mtgsplit`) and GFX10-GFX11 (WGP and CU wavefront execution mode, `-mcumode`). GFX90A's
//! table (AMDGPUUsage-new.txt:6572-8580) has GFX942's waits and shape; it differs in the cache
//! bits (`glc`, no scope bits: [`access_cpol`], [`plain_cpol`]) and the cache maintenance
//! ([`emit_release_writeback`], [`emit_acquire_invalidate`]). Every rule cites the line
//! of /work/shared/seeds/AMDGPUUsage-new.txt it comes from; [`super::memory`] selects the
//! access itself and asks this module what goes before it, on it and after it.
//!
//! General rules (AMDGPUUsage-new.txt:5256-5264): a scope wider than workgroup on LDS is
//! workgroup; acquire on a store and release on a load are relaxed; acq_rel on a load is
//! acquire, on a store release. seq_cst is the acq_rel sequence for RMWs and fences and the
//! release sequence for stores (AMDGPUUsage-new.txt:10724-10738, 12616-12630); a seq_cst load
//! is a leading wait and the acquire sequence (AMDGPUUsage-new.txt:10536-10650, 12308-12520).
//! gcnc follows the HSA model (one happens-before for every address space), so no "If OpenCL,
//! omit" note applies. The cluster scope is agent scope: neither target has clusters.
//! `cmpxchg` has no rows of its own in the tables; like LLVM's SIMemoryLegalizer it takes the
//! atomicrmw rows (an atomic that reads and writes).
//!
//! Availability and visibility (/work/shared/seeds/AMDGPUMemoryModel-av.rst): an atomic or a
//! fence is a MakeAvailable (release) and MakeVisible (acquire) operation on *other* accesses
//! unless marked `av_none` ("amdgcn-av none"). On this hardware MakeAvailable is the L2
//! writeback before a release (`buffer_wbl2`, GFX942 agent and system scope) and MakeVisible
//! the cache invalidates after an acquire; the waits are the ordering itself (happens-before
//! still holds for av_none operations, and a store-available write must have reached its
//! scope's cache before the release is observed). So an `av_none` operation keeps its waits
//! and its own access's cache bits (its store-available/load-visible part, which "the metadata
//! does not affect") and drops the writeback and invalidates. A non-atomic store-available or
//! load-visible access at scope S is written or read through to the cache level of S: it takes
//! the cache bits a relaxed atomic store or load at S has, the cheapest access the tables make
//! coherent at S, and no wait.

use super::Ctx;
use crate::error::IselError;
use frontend_ir::{MemFlags, Ordering, Scope, SyncInfo};
use isa::mir::{self, CachePolicy, Operand};
use isa::opcode::{Family, Format, Opcode};
use isa::reg::{PhysReg, RegClass};

/// Where an atomic operates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Space {
    /// Global memory (`global_*` instructions).
    Global,
    /// Shared memory, LDS (`ds_*` instructions).
    Lds,
    /// Generic memory (`flat_*` instructions), which may be global memory or LDS (or private
    /// memory, which no other thread sees). The tables give it the global rows' cache bits and
    /// release waits, and add the LDS wait (`lgkmcnt(0)`) to the acquire waits.
    Flat,
}

/// What an atomic does with memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Access {
    /// `atomic_load`.
    Load,
    /// `atomic_store`.
    Store,
    /// `atomic_rmw` and `atomic_cas`; `returns` when the old value is read.
    Rmw {
        /// Whether the returning form is selected.
        returns: bool,
    },
}

/// How far a synchronization reaches, as the tables' rows group the scopes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// singlethread and wavefront: the plain instruction, nothing added.
    Wave,
    /// workgroup.
    Group,
    /// cluster and agent.
    Agent,
    /// system.
    System,
}

fn level(scope: Scope, space: Space) -> Level {
    let level = match scope {
        Scope::Singlethread | Scope::Wavefront => Level::Wave,
        Scope::Workgroup => Level::Group,
        Scope::Cluster | Scope::Agent => Level::Agent,
        Scope::System => Level::System,
    };
    // "A memory synchronization scope wider than work-group is not meaningful for the group
    // (LDS) address space and is treated as work-group" (AMDGPUUsage-new.txt:5256-5257).
    if space == Space::Lds {
        level.min(Level::Group)
    } else {
        level
    }
}

/// GFX942's scope bits of an access or a cache operation: workgroup `sc0=1`, agent `sc1=1`,
/// system `sc0=1 sc1=1` (AMDGPUUsage-new.txt:8764-8786, 9379, 9432; SC0 bit 0, SC1 bit 2).
fn sc_bits(level: Level) -> u8 {
    match level {
        Level::Wave => 0,
        Level::Group => 1,
        Level::Agent => 4,
        Level::System => 5,
    }
}

/// The release and acquire halves of an ordering on an access (AMDGPUUsage-new.txt:5258-5264:
/// acquire on a store and release on a load are relaxed).
fn halves(access: Access, ordering: Ordering) -> (bool, bool) {
    match access {
        Access::Load => (false, ordering.is_acquire()),
        Access::Store => (ordering.is_release(), false),
        Access::Rmw { .. } => (ordering.is_release(), ordering.is_acquire()),
    }
}

/// Waits, each to zero: `s_waitcnt vmcnt(0)`, `lgkmcnt(0)` and `s_waitcnt_vscnt null, 0`.
#[derive(Copy, Clone, Debug, Default)]
struct Waits {
    vm: bool,
    lgkm: bool,
    vs: bool,
}

fn emit_waits(ctx: &mut Ctx<'_>, w: Waits) {
    if w.vm || w.lgkm {
        let mut wait = mir::Inst::new(Opcode::SWaitcnt, &[], &[]);
        wait.fields.imm = isa::asm::waitcnt_encode(ctx.family, w.vm.then_some(0), None, w.lgkm.then_some(0));
        ctx.emit(wait);
    }
    if w.vs {
        let mut vs = mir::Inst::new(Opcode::SWaitcntVscnt, &[], &[Operand::phys(PhysReg::NULL, RegClass::S1)]);
        vs.fields.imm = 0;
        ctx.emit(vs);
    }
}

/// Emits a GFX942 cache operation (`buffer_wbl2`, `buffer_inv`) with the scope bits of `level`.
fn emit_cache_op(ctx: &mut Ctx<'_>, opcode: Opcode, level: Level) {
    let mut inst = mir::Inst::new(opcode, &[], &[]);
    inst.fields.cpol = CachePolicy(sc_bits(level));
    ctx.emit(inst);
}

/// The L2 writeback a release at `level` (agent or system) starts with on GFX9:
/// - GFX942: "buffer_wbl2 sc1=1" at agent, "sc0=1 sc1=1" at system (AMDGPUUsage-new.txt:9379,
///   9432).
/// - GFX90A: nothing at agent ("s_waitcnt lgkmcnt(0) & vmcnt(0)" is the row's first step,
///   AMDGPUUsage-new.txt:7269, 7405, 7544), "buffer_wbl2" at system
///   (AMDGPUUsage-new.txt:7311, 7445, 7599, 7864, 8274).
fn emit_release_writeback(ctx: &mut Ctx<'_>, level: Level) {
    match ctx.family {
        Family::Gfx90a if level == Level::System => ctx.marker(Opcode::BufferWbl2),
        Family::Gfx90a => {}
        _ => emit_cache_op(ctx, Opcode::BufferWbl2, level),
    }
}

/// The invalidate an acquire at `level` ends with on GFX9 (workgroup only in tgsplit mode):
/// - GFX942: "buffer_inv" with the scope bits (AMDGPUUsage-new.txt:8803-8812, 8867-8897).
/// - GFX90A: "buffer_wbinvl1_vol" at workgroup and agent (AMDGPUUsage-new.txt:6680, 6750,
///   7075, 7141), "buffer_invl2; buffer_wbinvl1_vol" at system (AMDGPUUsage-new.txt:6770-6771,
///   6945-6946, 7210-7211).
fn emit_acquire_invalidate(ctx: &mut Ctx<'_>, level: Level) {
    if ctx.family != Family::Gfx90a {
        emit_cache_op(ctx, Opcode::BufferInv, level);
        return;
    }
    if level == Level::System {
        ctx.marker(Opcode::BufferInvl2);
    }
    ctx.marker(Opcode::BufferWbinvl1Vol);
}

fn tgsplit(ctx: &Ctx<'_>) -> bool {
    ctx.family.is_gfx9() && ctx.target.tgsplit
}

fn wgp(ctx: &Ctx<'_>) -> bool {
    !ctx.target.cumode
}

/// Refuses what GFX942's threadgroup split mode forbids, `what` (shared memory, a barrier):
/// the waves of a workgroup "can be launched in different CUs. The waves cannot use S_BARRIER
/// or LDS" (AMDGPUUsage-new.txt:4709-4713); "no LDS is allocated as wavefronts of the same
/// work-group can be in different CUs" (AMDGPUUsage-new.txt:6462-6464), and every local row
/// of the memory-model tables says "If TgSplit execution mode, local address space cannot be
/// used" (AMDGPUUsage-new.txt:6639-6641). So no address in LDS is ever formed, and the LDS
/// waits of the tgsplit sequences below are left out as the tables leave them out.
pub(super) fn check_split(ctx: &Ctx<'_>, what: &'static str) -> Result<(), IselError> {
    if tgsplit(ctx) {
        return Err(ctx.split_workgroup(what));
    }
    Ok(())
}

/// The cache-policy bits of a global atomic access at `scope`, whatever its ordering (the
/// acquire, release and seq_cst rows give the access the monotonic row's bits):
/// - GFX942 loads and stores (AMDGPUUsage-new.txt:8764-8786): workgroup `sc0=1`, agent
///   `sc1=1`, system `sc0=1 sc1=1`; RMWs plain up to agent, `sc1=1` at system
///   (AMDGPUUsage-new.txt:8788-8793), and `sc0=1` when returning (sc0 is GLC, "return the
///   pre-op value", AMDGPUUsage-new.txt:8622-8625).
/// - GFX10-GFX11 loads (AMDGPUUsage-new.txt:10929-10938): `glc=1` at workgroup ("If CU
///   wavefront execution mode, omit glc=1"), agent and system ("glc=1 dlc=1 - If GFX11, omit
///   dlc=1"); stores and RMWs plain at every scope (AMDGPUUsage-new.txt:10939-10951), RMWs
///   with `glc=1` when returning.
///
/// - GFX90A loads (AMDGPUUsage-new.txt:6633-6646): `glc=1` at agent and system, and at
///   workgroup in tgsplit mode ("If not TgSplit execution mode, omit glc=1"); stores and RMWs
///   plain at every scope (AMDGPUUsage-new.txt:6647-6662), RMWs with `glc=1` when returning.
///
/// AMDGPUUsage-new.txt:9522 and 9575 put `sc0=1` on GFX942's release RMW at workgroup and
/// system scope even without a return; llvm-mc-19 rejects sc0 on a no-return atomic ("invalid
/// operand for instruction"), so we follow LLVM and leave it off.
pub(super) fn access_cpol(ctx: &Ctx<'_>, access: Access, scope: Scope) -> CachePolicy {
    let level = level(scope, Space::Global);
    let bits = match (ctx.family, access) {
        (Family::Gfx90a, Access::Load) => u8::from(level > Level::Group || (level == Level::Group && tgsplit(ctx))),
        (Family::Gfx90a, Access::Store) => 0,
        (Family::Gfx90a, Access::Rmw { returns }) => u8::from(returns),
        (Family::Gfx9, Access::Load | Access::Store) => sc_bits(level),
        (Family::Gfx9, Access::Rmw { returns }) => u8::from(returns) | if level == Level::System { 4 } else { 0 },
        (_, Access::Load) => u8::from(level > Level::Group || (level == Level::Group && wgp(ctx))),
        (_, Access::Store) => 0,
        (_, Access::Rmw { returns }) => u8::from(returns),
    };
    CachePolicy(bits)
}

/// What goes before an atomic access: the release half (stores and RMWs with release,
/// acq_rel or seq_cst) or a seq_cst load's leading wait.
///
/// Release, GFX942:
/// - LDS: nothing, the plain `ds_store`/`ds_atomic` (AMDGPUUsage-new.txt:9375-9378,
///   9523-9526, 9869-9872).
/// - global workgroup: "s_waitcnt lgkm/vmcnt(0) - Use lgkmcnt(0) if not TgSplit execution
///   mode and vmcnt(0) if TgSplit execution mode" (AMDGPUUsage-new.txt:9342-9345,
///   9491-9495, 9813-9817).
/// - global agent and system: "buffer_wbl2 sc1=1" (system "sc0=1 sc1=1"), then "s_waitcnt
///   lgkmcnt(0) & vmcnt(0) - If TgSplit execution mode, omit lgkmcnt(0)"
///   (AMDGPUUsage-new.txt:9379-9391, 9432, 9527, 9576, 9945, 10012).
///
/// Release, GFX10-GFX11:
/// - LDS workgroup: "s_waitcnt vmcnt(0) & vscnt(0) - If CU wavefront execution mode, omit"
///   (AMDGPUUsage-new.txt:11420-11422, 11550-11552, 11830-11832).
/// - global workgroup: "s_waitcnt lgkmcnt(0) & vmcnt(0) & vscnt(0) - If CU wavefront
///   execution mode, omit vmcnt(0) and vscnt(0)" (AMDGPUUsage-new.txt:11373-11376, 11504,
///   11755); agent and system all three (AMDGPUUsage-new.txt:11455-11456, 11585, 11952).
///
/// seq_cst load lead:
/// - GFX942: LDS nothing ("Same as corresponding load atomic acquire",
///   AMDGPUUsage-new.txt:10625-10632); global workgroup lgkm/vmcnt(0) as above
///   (AMDGPUUsage-new.txt:10541-10545); agent and system "s_waitcnt lgkmcnt(0) & vmcnt(0) -
///   If TgSplit execution mode, omit lgkmcnt(0)" (AMDGPUUsage-new.txt:10633-10636).
/// - GFX10-GFX11: LDS "s_waitcnt vmcnt(0) & vscnt(0) - If CU wavefront execution mode, omit"
///   (AMDGPUUsage-new.txt:12421-12424); global workgroup lgkmcnt, vmcnt and vscnt, CU mode
///   omitting the last two (AMDGPUUsage-new.txt:12313-12317); agent and system all three
///   (AMDGPUUsage-new.txt:12511-12512).
///
/// Generic (flat) accesses take these global rows, which name both address spaces
/// ("- global - generic": AMDGPUUsage-new.txt:9342-9343, 9379-9380, 9491-9492, 9527-9528,
/// 10541-10542, 10633-10634 on GFX942; 11373-11374, 11455-11456, 11504-11505, 11585-11586,
/// 12313-12314, 12511-12512 on GFX10-GFX11), and so do the generic acq_rel rows' release
/// steps (AMDGPUUsage-new.txt:9887, 10083, 10155, 11884, 12018).
///
/// `av_none` drops the writeback (see the module documentation).
pub(super) fn before_access(ctx: &mut Ctx<'_>, space: Space, access: Access, sync: SyncInfo) {
    let level = level(sync.scope, space);
    let (release, _) = halves(access, sync.ordering);
    let seq_cst_load = access == Access::Load && sync.ordering == Ordering::SeqCst;
    if level == Level::Wave || !(release || seq_cst_load) {
        return;
    }
    let tg = tgsplit(ctx);
    if ctx.family.is_gfx9() {
        match (space, level) {
            (Space::Lds, _) => {}
            (_, Level::Group) => emit_waits(ctx, Waits { vm: tg, lgkm: !tg, vs: false }),
            (_, _) => {
                if release && !sync.av_none {
                    emit_release_writeback(ctx, level);
                }
                emit_waits(ctx, Waits { vm: true, lgkm: !tg, vs: false });
            }
        }
        return;
    }
    let vector = level > Level::Group || wgp(ctx);
    let lgkm = space != Space::Lds;
    emit_waits(ctx, Waits { vm: vector, lgkm, vs: vector });
}

/// What goes after an atomic access with acquire semantics (loads and RMWs with acquire,
/// acq_rel or seq_cst).
///
/// GFX942:
/// - LDS: "s_waitcnt lgkmcnt(0)" (AMDGPUUsage-new.txt:8822-8826, 8989-8994, 9869-9874).
/// - global workgroup: "s_waitcnt vmcnt(0)", "buffer_inv sc0=1", both "If not TgSplit
///   execution mode, omit" (AMDGPUUsage-new.txt:8803-8812, 8967-8979, 9860-9868).
/// - global agent: "s_waitcnt vmcnt(0)", "buffer_inv sc1=1"; system "buffer_inv sc0=1
///   sc1=1" (AMDGPUUsage-new.txt:8867-8877, 8887-8897, 9035-9045, 9055-9066, 9993-10002,
///   10061-10070).
/// - generic workgroup, acquire load and RMW: "s_waitcnt lgkm/vmcnt(0) - Use lgkmcnt(0) if
///   not TgSplit execution mode and vmcnt(0) if TgSplit execution mode", then "buffer_inv
///   sc0=1 - If not TgSplit execution mode, omit" (AMDGPUUsage-new.txt:8840-8861,
///   9007-9030); acq_rel (and seq_cst) RMW: "s_waitcnt lgkmcnt(0) & vmcnt(0) - If not TgSplit
///   execution mode, omit vmcnt(0)", then the same `buffer_inv` (AMDGPUUsage-new.txt:
///   9929-9944).
/// - generic agent and system: "s_waitcnt vmcnt(0) & lgkmcnt(0) - If TgSplit execution mode,
///   omit lgkmcnt(0)", then the global rows' `buffer_inv` (AMDGPUUsage-new.txt:8910-8957,
///   9079-9127, 10130-10150, 10202-10222).
///
/// GFX10-GFX11:
/// - LDS load: "s_waitcnt lgkmcnt(0)", "buffer_gl0_inv - If CU wavefront execution mode,
///   omit" (AMDGPUUsage-new.txt:10980-10998); LDS acq_rel (and seq_cst) RMW the same
///   (AMDGPUUsage-new.txt:11866-11883). The LDS acquire RMW row prints `buffer_gl0_inv` with
///   no CU-mode omission (AMDGPUUsage-new.txt:11103-11117): the table decides, so an acquire
///   LDS RMW invalidates GL0 in CU mode too, where LLVM omits it.
/// - global workgroup: "s_waitcnt vmcnt(0)" (loads) or "vm/vscnt(0) - Use vmcnt(0) if atomic
///   with return and vscnt(0) if atomic with no-return", then "buffer_gl0_inv", each "If CU
///   wavefront execution mode, omit" (AMDGPUUsage-new.txt:10960-10979, 11082-11098).
/// - global agent and system: the wait, "buffer_gl1_inv; buffer_gl0_inv"
///   (AMDGPUUsage-new.txt:11032-11053, 11146-11160, 11994-12008).
/// - generic: the global rows' waits and invalidates with `lgkmcnt(0)` added and kept in CU
///   mode ("s_waitcnt lgkmcnt(0) & vmcnt(0) - If CU wavefront execution mode, omit vmcnt(0)",
///   AMDGPUUsage-new.txt:11003-11031, 11054-11078, 11121-11145, 11170-11196, 12060-12080),
///   except the workgroup acq_rel (and seq_cst) RMW, whose row waits for all three counters
///   whether the atomic returns or not: "s_waitcnt lgkmcnt(0) & vmcnt(0) & vscnt(0) - If CU
///   wavefront execution mode, omit vmcnt(0) and vscnt(0)" (AMDGPUUsage-new.txt:11930-11947).
///
/// `av_none` drops the invalidates (see the module documentation).
pub(super) fn after_access(ctx: &mut Ctx<'_>, space: Space, access: Access, sync: SyncInfo) {
    let level = level(sync.scope, space);
    let (release, acquire) = halves(access, sync.ordering);
    if level == Level::Wave || !acquire {
        return;
    }
    let inv = !sync.av_none;
    if ctx.family.is_gfx9() {
        let tg = tgsplit(ctx);
        match (space, level) {
            (Space::Lds, _) => emit_waits(ctx, Waits { lgkm: true, ..Waits::default() }),
            (Space::Global, Level::Group) if !tg => {}
            (Space::Flat, Level::Group) => {
                emit_waits(ctx, Waits { vm: tg, lgkm: release || !tg, vs: false });
                if tg && inv {
                    emit_acquire_invalidate(ctx, level);
                }
            }
            (_, _) => {
                emit_waits(ctx, Waits { vm: true, lgkm: space == Space::Flat && !tg, vs: false });
                if inv {
                    emit_acquire_invalidate(ctx, level);
                }
            }
        }
        return;
    }
    if space == Space::Lds {
        emit_waits(ctx, Waits { lgkm: true, ..Waits::default() });
        let printed_without_cu_omit = sync.ordering == Ordering::Acquire && matches!(access, Access::Rmw { .. });
        if inv && (wgp(ctx) || printed_without_cu_omit) {
            ctx.marker(Opcode::BufferGl0Inv);
        }
        return;
    }
    let vector = level > Level::Group || wgp(ctx);
    let flat = space == Space::Flat;
    if !vector && !flat {
        return;
    }
    let (vm, vs) = match access {
        Access::Rmw { .. } if flat && release && level == Level::Group => (vector, vector),
        Access::Rmw { returns } => (vector && returns, vector && !returns),
        Access::Load | Access::Store => (vector, false),
    };
    emit_waits(ctx, Waits { vm, lgkm: flat, vs });
    if inv {
        if level > Level::Group {
            ctx.marker(Opcode::BufferGl1Inv);
        }
        if vector {
            ctx.marker(Opcode::BufferGl0Inv);
        }
    }
}

/// The waits (and GFX942's writeback) a fence of `ordering` puts first, and the invalidates
/// it puts last: [`fence`] emits both in a row, [`barrier`] puts `s_barrier` between.
///
/// GFX942:
/// - workgroup: "s_waitcnt lgkm/vmcnt(0) - Use lgkmcnt(0) if not TgSplit execution mode and
///   vmcnt(0) if TgSplit execution mode" (AMDGPUUsage-new.txt:9134-9136, 9629-9631,
///   10232-10234); an acquire adds "buffer_inv sc0=1" in tgsplit mode
///   (AMDGPUUsage-new.txt:9189, 10331).
/// - agent and system: a release starts with "buffer_wbl2 sc1=1" (system "sc0=1 sc1=1",
///   AMDGPUUsage-new.txt:9676, 9742, 10338, 10436); then "s_waitcnt lgkmcnt(0) & vmcnt(0) -
///   If TgSplit execution mode, omit lgkmcnt(0)" (AMDGPUUsage-new.txt:9196-9199,
///   9687-9690); an acquire ends with "buffer_inv sc1=1" (system "sc0=1 sc1=1",
///   AMDGPUUsage-new.txt:9255, 9324, 10422, 10520).
///
/// GFX10-GFX11:
/// - workgroup: "s_waitcnt lgkmcnt(0) & vmcnt(0) & vscnt(0) - If CU wavefront execution mode,
///   omit vmcnt(0) and vscnt(0)", an acquire ending with "buffer_gl0_inv - If CU wavefront
///   execution mode, omit" (AMDGPUUsage-new.txt:11199-11203, 11276-11278, 11630-11634,
///   12089, 12203-12204).
/// - agent and system: the three waits, an acquire ending with "buffer_gl1_inv;
///   buffer_gl0_inv" (AMDGPUUsage-new.txt:11283-11284, 11357-11358, 11692-11693, 12210,
///   12291-12292).
///
/// Singlethread and wavefront fences are nothing (AMDGPUUsage-new.txt:9132, 9627, 10230,
/// 11197, 11628, 12087). `av_none` drops the writeback and the invalidates ("fence
/// !{!"amdgcn-av", !"none"}": no MakeAvailable, no MakeVisible; AMDGPUMemoryModel-av.rst,
/// "The Vulkan Memory Model").
struct FenceParts {
    level: Level,
    release: bool,
    acquire: bool,
    av: bool,
}

impl FenceParts {
    fn new(sync: SyncInfo) -> FenceParts {
        FenceParts {
            level: level(sync.scope, Space::Global),
            release: sync.ordering.is_release(),
            acquire: sync.ordering.is_acquire(),
            av: !sync.av_none,
        }
    }

    fn first(&self, ctx: &mut Ctx<'_>) {
        if self.level == Level::Wave {
            return;
        }
        if ctx.family.is_gfx9() {
            let tg = tgsplit(ctx);
            if self.level == Level::Group {
                emit_waits(ctx, Waits { vm: tg, lgkm: !tg, vs: false });
                return;
            }
            if self.release && self.av {
                emit_release_writeback(ctx, self.level);
            }
            emit_waits(ctx, Waits { vm: true, lgkm: !tg, vs: false });
            return;
        }
        let vector = self.level > Level::Group || wgp(ctx);
        emit_waits(ctx, Waits { vm: vector, lgkm: true, vs: vector });
    }

    fn last(&self, ctx: &mut Ctx<'_>) {
        if self.level == Level::Wave || !self.acquire || !self.av {
            return;
        }
        if ctx.family.is_gfx9() {
            if self.level > Level::Group || tgsplit(ctx) {
                emit_acquire_invalidate(ctx, self.level);
            }
            return;
        }
        if self.level > Level::Group {
            ctx.marker(Opcode::BufferGl1Inv);
        }
        if self.level > Level::Group || wgp(ctx) {
            ctx.marker(Opcode::BufferGl0Inv);
        }
    }
}

/// `fence ordering scope [av_none]` (see [`FenceParts`]).
pub(super) fn fence(ctx: &mut Ctx<'_>, sync: SyncInfo) -> Result<(), IselError> {
    if sync.ordering == Ordering::Relaxed {
        return Err(ctx.unsupported("a relaxed fence"));
    }
    let parts = FenceParts::new(sync);
    parts.first(ctx);
    parts.last(ctx);
    Ok(())
}

/// `barrier`: the execution barrier is acquire-release at workgroup scope, so `s_barrier` sits
/// inside a workgroup acq_rel fence ([`FenceParts`]): its waits (and on GFX942 in tgsplit
/// mode, vmcnt instead of lgkmcnt) before, its invalidate (GFX10-GFX11 WGP mode
/// `buffer_gl0_inv`, GFX942 tgsplit `buffer_inv sc0=1`) after. The waits are explicit here:
/// the waitcnt pass waits only for registers being read, and stores write none.
pub(super) fn barrier(ctx: &mut Ctx<'_>) -> Result<(), IselError> {
    check_split(ctx, "a barrier")?;
    let parts = FenceParts::new(SyncInfo { ordering: Ordering::AcqRel, scope: Scope::Workgroup, av_none: false });
    parts.first(ctx);
    ctx.marker(Opcode::SBarrier);
    parts.last(ctx);
    Ok(())
}

/// The cache-policy bits of a non-atomic global or private access with `flags`:
/// - GFX942 (AMDGPUUsage-new.txt:8708-8744): nontemporal "nt=1"; volatile "sc0=1 sc1=1".
/// - GFX90A (AMDGPUUsage-new.txt:6581-6624): nontemporal "glc=1 slc=1"; volatile load
///   "glc=1", volatile store plain.
/// - GFX10-GFX11 (AMDGPUUsage-new.txt:10869-10905): nontemporal load "slc=1 dlc=1",
///   nontemporal store "glc=1 slc=1 dlc=1" (GFX11 keeps dlc); volatile load "glc=1 dlc=1",
///   volatile store "dlc=1".
///
/// A volatile nontemporal access is volatile (the rows are "!volatile & nontemporal" and
/// "volatile"). A store-available or load-visible access (`available(S)`, `visible(S)`) adds
/// the bits of a relaxed atomic store or load at S ([`access_cpol`]; see the module
/// documentation).
pub(super) fn plain_cpol(ctx: &Ctx<'_>, flags: MemFlags, is_store: bool) -> CachePolicy {
    let mut bits = match (ctx.family, flags.volatile, flags.nontemporal, is_store) {
        (_, false, false, _) => 0,
        (Family::Gfx90a, true, _, false) => 1,
        (Family::Gfx90a, true, _, true) => 0,
        (Family::Gfx90a, false, true, _) => 1 | 2,
        (Family::Gfx9, true, _, _) => 5,
        (Family::Gfx9, false, true, _) => 2,
        (_, true, _, false) => 1 | 4,
        (_, true, _, true) => 4,
        (_, false, true, false) => 2 | 4,
        (_, false, true, true) => 1 | 2 | 4,
    };
    if let Some(scope) = flags.av {
        bits |= access_cpol(ctx, if is_store { Access::Store } else { Access::Load }, scope).0;
    }
    CachePolicy(bits)
}

/// The wait after a volatile global or private access: GFX942 and GFX90A "s_waitcnt vmcnt(0)"
/// after loads and stores (AMDGPUUsage-new.txt:8720, 8744, 6591, 6613); GFX10-GFX11 "s_waitcnt vmcnt(0)" after a
/// load, "s_waitcnt vscnt(0)" after a store (AMDGPUUsage-new.txt:10882, 10907).
pub(super) fn after_plain(ctx: &mut Ctx<'_>, flags: MemFlags, is_store: bool) {
    if !flags.volatile {
        return;
    }
    let split = !ctx.family.is_gfx9();
    emit_waits(ctx, Waits { vm: !(split && is_store), lgkm: false, vs: split && is_store });
}

/// Counters a memory operation may leave outstanding, as bits.
const VM: u8 = 1;
const LGKM: u8 = 2;
const VS: u8 = 4;

/// The counters that `inst` increments, among those the memory-model waits wait for. SMEM is
/// left out: gcnc's scalar loads read constant memory, which no wave writes during the
/// dispatch, so they need no ordering with other waves' accesses.
fn events(inst: &mir::Inst, family: Family) -> u8 {
    let split_stores = !family.is_gfx9();
    let vector = if inst.defs.is_empty() && split_stores { VS } else { VM };
    match inst.opcode.format(family) {
        Format::Ds => LGKM,
        Format::Global | Format::Scratch => vector,
        Format::Flat => vector | LGKM,
        // GFX9's `buffer_wbl2`, `buffer_inv`, `buffer_invl2` and `buffer_wbinvl1_vol` count on
        // vmcnt.
        Format::Mubuf if family.is_gfx9() => VM,
        _ => 0,
    }
}

/// Drops the parts of the memory-model waits (every wait isel emits is one: a barrier's, a
/// fence's, an atomic's or a volatile access's) that can have nothing to wait for: a counter
/// no operation may have incremented since the function entry or the last wait on it, along
/// any path of the linear CFG (a forward may-analysis to a fixpoint over loops). A wait with
/// nothing outstanding does nothing; leaving it out keeps every wait one the program needs.
pub(super) fn prune_waits(mir: &mut mir::Function) {
    let family = mir.family;
    let n = mir.blocks.len();
    let mut out = vec![0u8; n];
    let entry_state = |out: &[u8], b: usize, blocks: &[mir::Block]| -> u8 {
        blocks[b].linear_preds.iter().fold(0, |s, &p| s | out[p as usize])
    };
    // What a wait keeps of itself given the counters that may be outstanding (`state`, which
    // the instruction then updates): None to drop it, or its new immediate.
    let step = |inst: &mir::Inst, state: &mut u8| -> Option<u16> {
        match inst.opcode {
            Opcode::SWaitcnt => {
                let (vm, _, lgkm) = isa::asm::waitcnt_decode(family, inst.fields.imm);
                let vm = vm.filter(|_| *state & VM != 0);
                let lgkm = lgkm.filter(|_| *state & LGKM != 0);
                if vm == Some(0) {
                    *state &= !VM;
                }
                if lgkm == Some(0) {
                    *state &= !LGKM;
                }
                (vm.is_some() || lgkm.is_some()).then(|| isa::asm::waitcnt_encode(family, vm, None, lgkm))
            }
            Opcode::SWaitcntVscnt => {
                let keep = *state & VS != 0;
                if inst.fields.imm == 0 {
                    *state &= !VS;
                }
                keep.then_some(inst.fields.imm)
            }
            _ => {
                *state |= events(inst, family);
                Some(inst.fields.imm)
            }
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            let mut state = entry_state(&out, b, &mir.blocks);
            for inst in &mir.blocks[b].insts {
                step(inst, &mut state);
            }
            if state != out[b] {
                out[b] = state;
                changed = true;
            }
        }
    }
    for b in 0..n {
        let mut state = entry_state(&out, b, &mir.blocks);
        mir.blocks[b].insts.retain_mut(|inst| match step(inst, &mut state) {
            Some(imm) => {
                inst.fields.imm = imm;
                true
            }
            None => false,
        });
    }
}
