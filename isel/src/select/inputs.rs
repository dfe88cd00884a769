//! The kernel's inputs: which ones it reads, where the hardware puts them, and the code at the
//! entry that makes them values.
//!
//! The inputs used decide [`KernelInputs`]; runtime-abi's `enable_inputs` turns them into a
//! descriptor and `InitialState::from_descriptor` reads the registers back, so selection and
//! the emulator agree on the layout by construction. `p_startpgm` defines one temporary per
//! enabled input, fixed to its register: the kernarg pointer (an SGPR pair), the work-group
//! IDs (system SGPRs) and the work-item IDs (VGPRs); and, for a kernel with a private
//! segment on a processor without architected flat scratch (gfx90a), Flat Scratch Init and
//! the Scratch Wavefront Offset, whose sum the code at the entry moves into FLAT_SCRATCH
//! ([`flat_scratch_init`]). The arguments the kernel reads are
//! loaded with SMEM from the kernarg segment at their [`KernargLayout`] offsets, nearby ones
//! merged into one load of up to 16 dwords (a piece never straddles two loads); the hidden
//! arguments too (`group_size.x` is the u16 at the hidden GroupSizeX slot: its dword is loaded
//! and masked with `s_and_b32 0xffff`, as clang does).

use super::{Ctx, Val};
use crate::error::IselError;
use frontend_ir::{AddrSpace, Dim, Function, InstData, Special, Type, Value};
use isa::mir::{self, Def, Operand};
use isa::opcode::Opcode;
use isa::processor::FlatScratch;
use isa::reg::{PhysReg, RegClass, Temp};
use runtime_abi::descriptor::KernelDescriptor;
use runtime_abi::initial_state::{enable_inputs, InitialState, KernelInputs, WorkItemIds};
use runtime_abi::kernarg::{ArgKind, CodeObjectVersion, ExplicitArg, HiddenArg, KernargLayout};
use runtime_abi::metadata::AddressSpace;

/// The code-object version whose kernarg layout selection uses (the default one).
const CODE_OBJECT_VERSION: CodeObjectVersion = CodeObjectVersion::V5;

/// A run of kernarg dwords that one value is loaded from.
#[derive(Copy, Clone, Debug)]
struct Piece {
    /// The first dword (byte offset / 4).
    dword: u32,
    /// How many dwords.
    size: u32,
    /// The temporary that receives them.
    temp: Temp,
}

/// Finds the inputs the kernel uses, emits `p_startpgm` and the kernarg loads into the entry
/// block (block 0), binds the entry parameters, and records the geometry values in
/// `ctx.specials`.
pub(super) fn prologue(ctx: &mut Ctx<'_>) -> Result<(KernelInputs, Vec<ExplicitArg>, KernargLayout), IselError> {
    let func = ctx.func;
    let used = used_values(func);
    let entry = func.entry().ok_or_else(|| ctx.unsupported("a kernel without blocks"))?;
    let params = func.dfg.blocks[entry].params.clone();
    let specials = used_specials(func);

    let explicit: Vec<ExplicitArg> = params.iter().map(|&p| explicit_arg(func.dfg.value_type(p))).collect();
    let hidden: Vec<HiddenArg> = specials.iter().flat_map(|&s| hidden_args(s)).collect();
    let kernarg = if hidden.is_empty() {
        KernargLayout::with_hidden(&explicit, CODE_OBJECT_VERSION, &[])
    } else {
        KernargLayout::new(&explicit, CODE_OBJECT_VERSION)
    };

    let mut inputs = KernelInputs {
        kernarg_segment_ptr: !hidden.is_empty() || params.iter().any(|&p| used[p]),
        dispatch_ptr: false,
        queue_ptr: false,
        dispatch_id: false,
        // Scratch for the private slots: on architected flat scratch (gfx11, gfx942) the
        // hardware sets FLAT_SCRATCH up, and ENABLE_PRIVATE_SEGMENT asks for it; otherwise
        // the entry does (flat_scratch_init).
        private_segment: private_bytes(func) > 0 || ctx.scratch,
        workgroup_id: [false; 3],
        workgroup_info: false,
        workitem_id_dims: 1,
    };
    for &s in &specials {
        match s {
            Special::GroupId(d) => inputs.workgroup_id[d.index()] = true,
            Special::LocalId(d) => inputs.workitem_id_dims = inputs.workitem_id_dims.max(d.index() as u8 + 1),
            _ => {}
        }
    }
    let proc = ctx.target.processor();
    let mut desc = KernelDescriptor::new(proc);
    enable_inputs(&mut desc, proc, &inputs, ctx.wave);
    let state = InitialState::from_descriptor(&desc, proc);

    // p_startpgm: every enabled input, fixed to its register.
    ctx.cur = ctx.new_block();
    let mut defs = Vec::new();
    let mut fixed = |ctx: &mut Ctx<'_>, reg: Option<PhysReg>, rc: RegClass| {
        reg.map(|reg| {
            let t = ctx.temp(rc);
            defs.push(Def::fixed(t, reg));
            t
        })
    };
    let kernarg_ptr =
        if inputs.kernarg_segment_ptr { fixed(ctx, state.kernarg_segment_ptr, RegClass::S2) } else { None };
    let group_ids: Vec<Option<Temp>> = (0..3)
        .map(|d| if inputs.workgroup_id[d] { fixed(ctx, state.workgroup_id[d], RegClass::S1) } else { None })
        .collect();
    let (packed, item_ids): (bool, Vec<Option<Temp>>) = match state.workitem_ids {
        WorkItemIds::Packed { reg, .. } => (true, vec![fixed(ctx, Some(reg), RegClass::V1)]),
        WorkItemIds::Unpacked(regs) => (false, regs.iter().map(|&r| fixed(ctx, r, RegClass::V1)).collect()),
    };
    let scratch = if inputs.private_segment && proc.flat_scratch == FlatScratch::Absolute {
        let init = fixed(ctx, state.flat_scratch_init, RegClass::S2);
        let offset = fixed(ctx, state.private_segment_wave_offset, RegClass::S1);
        init.zip(offset)
    } else {
        None
    };
    ctx.emit(mir::Inst::new(Opcode::PStartPgm, &defs, &[]));
    ctx.marker(Opcode::PLogicalStart);
    if let Some((init, offset)) = scratch {
        flat_scratch_init(ctx, init, offset);
    }

    // The kernarg pieces: used explicit arguments, then the hidden dwords.
    let mut pieces: Vec<Piece> = Vec::new();
    // The 1- and 2-byte arguments (i8, i16, f16): the dword holding each, the byte it starts
    // at, and its size.
    let mut narrow: Vec<(Value, u32, u32, u32)> = Vec::new();
    for (i, &p) in params.iter().enumerate() {
        if !used[p] {
            continue;
        }
        let ty = func.dfg.value_type(p);
        let offset = kernarg.explicit_offsets[i];
        let size = ty.bytes().unwrap_or(1);
        if size < 4 && offset % size == 0 {
            narrow.push((p, offset / 4, offset % 4, size));
            continue;
        }
        if size < 4 || offset % 4 != 0 {
            return Err(IselError::Parameter {
                func: func.name.clone(),
                param: format!("{p}: {ty}"),
                what: "an argument narrower than a dword".into(),
            });
        }
        let temp = ctx.temp(RegClass::sgpr((size / 4) as u8));
        pieces.push(Piece { dword: offset / 4, size: size / 4, temp });
        ctx.set(p, Val::Temp(temp));
    }
    let hidden_dword = |ctx: &mut Ctx<'_>, pieces: &mut Vec<Piece>, arg: HiddenArg| -> Result<(Temp, u32), IselError> {
        let offset =
            kernarg.hidden_offset(arg).ok_or_else(|| ctx.unsupported(format!("the hidden argument {arg:?}")))?;
        Ok((dword_piece(ctx, pieces, offset / 4), offset % 4))
    };
    let narrow: Vec<(Value, Temp, u32, u32)> = narrow
        .into_iter()
        .map(|(p, dword, byte, size)| (p, dword_piece(ctx, &mut pieces, dword), byte, size))
        .collect();
    // Each u16 hidden value: its dword and the byte it starts at, extracted after the loads.
    let mut halves: Vec<(Special, HiddenArg, Temp, u32)> = Vec::new();
    for &s in &specials {
        for arg in hidden_args(s) {
            let (temp, byte) = hidden_dword(ctx, &mut pieces, arg)?;
            halves.push((s, arg, temp, byte));
        }
    }
    if let Some(ptr) = kernarg_ptr {
        load_pieces(ctx, ptr, &mut pieces, kernarg.size / 4);
    }
    // A narrow argument is its bytes of the dword, zero-extended in an SGPR.
    for (p, dword, byte, size) in narrow {
        let field = bytes_of(ctx, dword, byte, size);
        ctx.set(p, Val::Temp(field));
    }

    // The geometry values.
    for &s in &specials {
        let val = match s {
            Special::GroupId(d) => Val::Temp(group_ids[d.index()].expect("enabled above")),
            Special::LocalId(d) => local_id(ctx, d, packed, &item_ids, inputs.workitem_id_dims),
            Special::GroupSize(_) => {
                let &(_, _, dword, byte) = halves.iter().find(|h| h.0 == s).expect("loaded above");
                Val::Temp(u16_of(ctx, dword, byte))
            }
            Special::NumGroups(_) => {
                // Whole groups plus one for a partial last group: count + (remainder != 0).
                let find = |arg: fn(Dim) -> HiddenArg| {
                    let d = s.dim().expect("num_groups has a dimension");
                    *halves.iter().find(|h| h.0 == s && h.1 == arg(d)).expect("loaded above")
                };
                let (_, _, count, _) = find(block_count);
                let (_, _, rem_dword, byte) = find(remainder);
                let rem = u16_of(ctx, rem_dword, byte);
                let scc = ctx.temp(RegClass::S1);
                ctx.salu(
                    Opcode::SCmpLgU32,
                    &[Def::fixed(scc, PhysReg::SCC)],
                    &[Operand::temp(rem), Operand::constant(0)],
                );
                let n = ctx.temp(RegClass::S1);
                ctx.salu(
                    Opcode::SAddcU32,
                    &[Def::temp(n), Ctx::scc_clobber()],
                    &[Operand::temp(count), Operand::constant(0), Operand::fixed(scc, PhysReg::SCC)],
                );
                Val::Temp(n)
            }
            Special::WaveSize => Val::Const(ctx.wave.into()),
            Special::LaneId => Val::None,
        };
        ctx.specials.push((s, val));
    }
    Ok((inputs, explicit, kernarg))
}

/// Sets FLAT_SCRATCH to Flat Scratch Init (`init`) plus the wave's Scratch Wavefront Offset
/// (`offset`), as a processor with "Absolute flat scratch" requires of a kernel that reaches
/// scratch with flat instructions (AMDGPUUsage-new.txt:5150-5160): `s_add_u32
/// flat_scratch_lo`, `s_addc_u32 flat_scratch_hi`, as clang-19 writes it with
/// `+enable-flat-scratch`. The writes name fixed registers, so no pass moves or drops them.
fn flat_scratch_init(ctx: &mut Ctx<'_>, init: Temp, offset: Temp) {
    let (lo, hi) = (ctx.temp(RegClass::S1), ctx.temp(RegClass::S1));
    ctx.emit(mir::Inst::new(Opcode::PSplitVector, &[Def::temp(lo), Def::temp(hi)], &[Operand::temp(init)]));
    let carry = ctx.temp(RegClass::S1);
    ctx.salu(
        Opcode::SAddU32,
        &[Def::phys(PhysReg::FLAT_SCRATCH_LO, RegClass::S1), Def::fixed(carry, PhysReg::SCC)],
        &[Operand::temp(lo), Operand::temp(offset)],
    );
    ctx.salu(
        Opcode::SAddcU32,
        &[Def::phys(PhysReg::FLAT_SCRATCH_HI, RegClass::S1), Ctx::scc_clobber()],
        &[Operand::temp(hi), Operand::constant(0), Operand::fixed(carry, PhysReg::SCC)],
    );
}

/// Binds the result of a geometry instruction.
pub(super) fn special(ctx: &mut Ctx<'_>, s: Special, result: Value) -> Result<(), IselError> {
    if s == Special::LaneId {
        // The lane's index: the count of the lanes below it in an all-ones mask,
        // v_mbcnt_lo(~0, 0) for lanes 0-31, then v_mbcnt_hi(~0, lo) adding 32-63 on wave64.
        // It does not depend on EXEC, so it is computed where it is used.
        let lo = ctx.temp(RegClass::V1);
        let all = Operand::constant(u32::MAX);
        ctx.valu(Opcode::VMbcntLoU32B32, &[Def::temp(lo)], &[all, Operand::constant(0)]);
        let id = if ctx.wave == 64 {
            let hi = ctx.temp(RegClass::V1);
            ctx.valu(Opcode::VMbcntHiU32B32, &[Def::temp(hi)], &[all, Operand::temp(lo)]);
            hi
        } else {
            lo
        };
        ctx.set(result, Val::Temp(id));
        return Ok(());
    }
    match ctx.specials.iter().find(|(k, _)| *k == s) {
        Some(&(_, val)) if val != Val::None => {
            ctx.set(result, val);
            Ok(())
        }
        _ => Err(ctx.unsupported("this geometry value")),
    }
}

/// The offset of `slot` in its segment's static layout (LDS for a shared slot, the lane's
/// private segment for a private one): the slots of that address space in order, each at its
/// alignment, as the reference interpreter lays them out.
pub(super) fn slot_offset(func: &Function, slot: frontend_ir::Slot) -> u32 {
    let space = func.slots[slot].space;
    let mut end = 0u32;
    for (s, data) in func.slots.iter().filter(|(_, d)| d.space == space) {
        let offset = end.next_multiple_of(data.align.max(1));
        if s == slot {
            return offset;
        }
        end = offset + data.size;
    }
    end
}

/// Where the dynamic shared memory starts: after the static slots, at 16 bytes.
pub(super) fn dyn_shared_offset(func: &Function) -> u32 {
    static_lds_end(func).next_multiple_of(16)
}

fn static_lds_end(func: &Function) -> u32 {
    segment_end(func, AddrSpace::Shared)
}

/// Where the static slots of `space` end.
fn segment_end(func: &Function, space: AddrSpace) -> u32 {
    func.slots.values().filter(|s| s.space == space).fold(0, |end, s| end.next_multiple_of(s.align.max(1)) + s.size)
}

/// Bytes of each lane's private segment (`private_segment_fixed_size`): the private slots,
/// laid out as [`slot_offset`] does, rounded up to a dword.
pub(super) fn private_bytes(func: &Function) -> u32 {
    segment_end(func, AddrSpace::Private).next_multiple_of(4)
}

/// Bytes of static LDS: the shared slots, each at its alignment; padded to where the dynamic
/// shared memory starts when the kernel uses it, so the runtime allocates it after the pad.
pub(super) fn lds_bytes(func: &Function) -> u32 {
    let uses_dyn = func.insts_in_layout().any(|(_, i)| matches!(func.dfg.insts[i], InstData::DynSharedAddr));
    if uses_dyn {
        dyn_shared_offset(func)
    } else {
        static_lds_end(func)
    }
}

/// Loads every piece: pieces are merged into runs, each read by one load of 1, 2, 4, 8 or 16
/// dwords from the run's first dword, as long as the load stays inside the segment of
/// `segment_dwords` (the dwords between and after the pieces are read and not used: a few
/// SGPRs for a moment at the entry, where nearly nothing else is live, against an instruction
/// and its wait; the allocator places a 16-SGPR tuple above the work-group IDs the hardware
/// puts in s12-s15 of small kernels, since SGPRs cost no occupancy there). A load of several
/// pieces is split into them.
fn load_pieces(ctx: &mut Ctx<'_>, ptr: Temp, pieces: &mut [Piece], segment_dwords: u32) {
    pieces.sort_by_key(|p| p.dword);
    let mut i = 0;
    while i < pieces.len() {
        // The most pieces from i that one load reaches.
        let start = pieces[i].dword;
        let load_size = |end: usize| {
            let span = pieces[end - 1].dword + pieces[end - 1].size - start;
            span.next_power_of_two()
        };
        let mut end = i + 1;
        while end < pieces.len() && load_size(end + 1) <= 16 && start + load_size(end + 1) <= segment_dwords {
            end += 1;
        }
        let total = load_size(end);
        let opcode = match total {
            1 => Opcode::SLoadB32,
            2 => Opcode::SLoadB64,
            4 => Opcode::SLoadB128,
            8 => Opcode::SLoadB256,
            _ => Opcode::SLoadB512,
        };
        let fields = mir::Fields { offset: (start * 4) as i32, ..Default::default() };
        if end == i + 1 && total == pieces[i].size {
            ctx.emit(mir::Inst::new(opcode, &[Def::temp(pieces[i].temp)], &[Operand::temp(ptr)]).with_fields(fields));
        } else {
            let whole = ctx.temp(RegClass::sgpr(total as u8));
            ctx.emit(mir::Inst::new(opcode, &[Def::temp(whole)], &[Operand::temp(ptr)]).with_fields(fields));
            // The pieces, and one-dword temporaries for the dwords no piece takes.
            let mut defs: Vec<Def> = Vec::new();
            let mut at = start;
            for p in &pieces[i..end] {
                for _ in at..p.dword {
                    defs.push(Def::temp(ctx.temp(RegClass::S1)));
                }
                defs.push(Def::temp(p.temp));
                at = p.dword + p.size;
            }
            for _ in at..start + total {
                defs.push(Def::temp(ctx.temp(RegClass::S1)));
            }
            ctx.emit(mir::Inst::new(Opcode::PSplitVector, &defs, &[Operand::temp(whole)]));
        }
        i = end;
    }
}

/// The one-dword piece of the kernarg segment at `dword`: the one already planned, or a new one.
fn dword_piece(ctx: &mut Ctx<'_>, pieces: &mut Vec<Piece>, dword: u32) -> Temp {
    if let Some(p) = pieces.iter().find(|p| p.dword == dword && p.size == 1) {
        return p.temp;
    }
    let temp = ctx.temp(RegClass::S1);
    pieces.push(Piece { dword, size: 1, temp });
    temp
}

/// The u16 at byte `byte` (0 or 2) of `dword`.
fn u16_of(ctx: &mut Ctx<'_>, dword: Temp, byte: u32) -> Temp {
    bytes_of(ctx, dword, byte, 2)
}

/// The `size` bytes of `dword` from `byte` on, zero-extended: a mask for the low ones, a shift
/// for the high ones, else `s_bfe_u32` (its operand is the bit offset, and the width << 16).
fn bytes_of(ctx: &mut Ctx<'_>, dword: Temp, byte: u32, size: u32) -> Temp {
    let t = ctx.temp(RegClass::S1);
    let (op, imm) = match (byte, byte + size) {
        (0, _) => (Opcode::SAndB32, (1u32 << (8 * size)) - 1),
        (_, 4) => (Opcode::SLshrB32, 8 * byte),
        _ => (Opcode::SBfeU32, (8 * byte) | ((8 * size) << 16)),
    };
    ctx.salu(op, &[Def::temp(t), Ctx::scc_clobber()], &[Operand::temp(dword), Operand::constant(imm)]);
    t
}

/// `local_id.d`: its own VGPR, or its 10-bit field of v0 when the IDs are packed (the bits of
/// dimensions not enabled read 0, so X alone needs no mask).
fn local_id(ctx: &mut Ctx<'_>, d: Dim, packed: bool, ids: &[Option<Temp>], dims: u8) -> Val {
    if !packed {
        return ids[d.index()].map_or(Val::None, Val::Temp);
    }
    let v0 = ids[0].expect("packed IDs are in v0");
    if d == Dim::X && dims == 1 {
        return Val::Temp(v0);
    }
    let id = ctx.temp(RegClass::V1);
    let bits = [Operand::temp(v0), Operand::constant(10 * d.index() as u32), Operand::constant(10)];
    ctx.valu(Opcode::VBfeU32, &[Def::temp(id)], &bits);
    Val::Temp(id)
}

fn block_count(d: Dim) -> HiddenArg {
    [HiddenArg::BlockCountX, HiddenArg::BlockCountY, HiddenArg::BlockCountZ][d.index()]
}

fn remainder(d: Dim) -> HiddenArg {
    [HiddenArg::RemainderX, HiddenArg::RemainderY, HiddenArg::RemainderZ][d.index()]
}

/// The hidden arguments a geometry value is computed from.
fn hidden_args(s: Special) -> Vec<HiddenArg> {
    match s {
        Special::GroupSize(d) => vec![[HiddenArg::GroupSizeX, HiddenArg::GroupSizeY, HiddenArg::GroupSizeZ][d.index()]],
        Special::NumGroups(d) => vec![block_count(d), remainder(d)],
        _ => Vec::new(),
    }
}

/// The metadata description of a kernel parameter of type `ty`.
fn explicit_arg(ty: Type) -> ExplicitArg {
    let size = ty.bytes().unwrap_or(1);
    let kind = match ty {
        Type::Ptr(AddrSpace::Global) => ArgKind::GlobalBuffer { address_space: AddressSpace::Global },
        Type::Ptr(AddrSpace::Constant) => ArgKind::GlobalBuffer { address_space: AddressSpace::Constant },
        Type::Ptr(AddrSpace::Flat) => ArgKind::GlobalBuffer { address_space: AddressSpace::Generic },
        _ => ArgKind::ByValue,
    };
    ExplicitArg { size, align: size, kind, name: None, type_name: None }
}

/// Which values are read anywhere (by an instruction or as a branch argument).
fn used_values(func: &Function) -> cranelift_entity::SecondaryMap<Value, bool> {
    let mut used = cranelift_entity::SecondaryMap::new();
    for (_, inst) in func.insts_in_layout() {
        let data = &func.dfg.insts[inst];
        for &a in data.args() {
            used[a] = true;
        }
        for call in data.block_calls() {
            for &a in &call.args {
                used[a] = true;
            }
        }
    }
    used
}

/// The geometry values the kernel reads, each once, in order of first appearance.
fn used_specials(func: &Function) -> Vec<Special> {
    let mut specials = Vec::new();
    for (_, inst) in func.insts_in_layout() {
        if let InstData::Special { value } = func.dfg.insts[inst] {
            if !specials.contains(&value) {
                specials.push(value);
            }
        }
    }
    specials
}
