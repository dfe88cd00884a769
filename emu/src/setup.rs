//! What the command processor prepares before a wave runs: the kernarg segment (the caller's
//! explicit arguments and the hidden arguments the metadata lists, each at the offset the
//! metadata gives), the AQL dispatch packet when the kernel asks for its pointer, and each
//! wave's initial registers as runtime-abi's [`InitialState`] lays them out — user SGPRs from
//! s0, system SGPRs (work-group IDs, work-group info) from USER_SGPR_COUNT, work-item IDs in
//! VGPRs packed or not, EXEC = the lanes that hold work-items — its FP mode from
//! COMPUTE_PGM_RSRC1, and its private segment (architected flat scratch on gfx942 and GFX11:
//! the hardware, not the kernel, sets up the scratch base, so each lane simply gets
//! `private_segment_fixed_size` bytes that `scratch_*` and private FLAT addresses reach).
//! Without architected flat scratch (gfx90a) the wave gets Flat Scratch Init
//! ([`FLAT_SCRATCH_INIT`]) and a Scratch Wavefront Offset of its own ([`scratch_wave_offset`]),
//! and its private accesses require FLAT_SCRATCH to hold their sum, as the kernel's prolog
//! must set it (AMDGPUUsage-new.txt:5150-5160).

use crate::dispatch::{ArgValue, Launch};
use crate::error::LaunchError;
use crate::memory::Private;
use crate::program::{is_hidden, Kernel};
use crate::wave::{FpMode, Wave};
use isa::processor::{FlatScratch, Generation, Processor};
use isa::reg::PhysReg;
use runtime_abi::descriptor::{FloatDenormMode, FloatRoundMode, KernelDescriptor};
use runtime_abi::initial_state::{InitialState, WorkItemIds};
use runtime_abi::metadata::ValueKind;

/// The number of dimensions of a launch: the highest one with more than one work-item (the
/// AQL packet's `setup` dimensions and the hidden grid-dims argument).
pub fn grid_dims(launch: &Launch) -> u16 {
    (0..3).rev().find(|&d| launch.grid[d] > 1 || launch.block[d] > 1).map_or(1, |d| d as u16 + 1)
}

/// The kernarg segment of a dispatch: each explicit argument and each hidden argument the
/// metadata lists, at the metadata's offsets. Hidden pointers (printf, hostcall, heap, queues)
/// are null. Shared with gcnc's GPU backend, which fills real kernarg memory the same way.
pub fn kernarg_segment(kernel: &Kernel, launch: &Launch, args: &[ArgValue]) -> Result<Vec<u8>, LaunchError> {
    let name = kernel.name().to_string();
    let meta = kernel.metadata().ok_or_else(|| LaunchError::Unsupported {
        kernel: name.clone(),
        what: "a kernel without metadata (its arguments are unknown)".into(),
    })?;
    let size = meta.kernarg_segment_size.max(kernel.descriptor().kernarg_size);
    let mut seg = vec![0u8; size as usize];
    let all = meta.args.as_deref().unwrap_or_default();
    let explicit = kernel.explicit_args();
    if explicit.len() != args.len() {
        return Err(LaunchError::ArgCount { kernel: name, expected: explicit.len(), got: args.len() });
    }
    let mut put = |offset: u32, bytes: &[u8]| -> Result<(), LaunchError> {
        let end = offset as usize + bytes.len();
        let dst = seg.get_mut(offset as usize..end).ok_or_else(|| LaunchError::Unsupported {
            kernel: name.clone(),
            what: format!("an argument at {offset}+{} past the kernarg segment of {size} bytes", bytes.len()),
        })?;
        dst.copy_from_slice(bytes);
        Ok(())
    };
    for (index, (arg, value)) in explicit.iter().zip(args).enumerate() {
        if value.bytes.len() != arg.size as usize {
            return Err(LaunchError::ArgSize {
                kernel: kernel.name().to_string(),
                index,
                expected: arg.size,
                got: value.bytes.len(),
            });
        }
        put(arg.offset, &value.bytes)?;
    }
    for arg in all.iter().filter(|a| is_hidden(&a.value_kind)) {
        let value = hidden_value(&arg.value_kind, launch).ok_or_else(|| LaunchError::Unsupported {
            kernel: kernel.name().to_string(),
            what: format!("the hidden argument {}", arg.value_kind),
        })?;
        let bytes = value.to_le_bytes();
        put(arg.offset, &bytes[..(arg.size as usize).min(8)])?;
    }
    Ok(seg)
}

/// The value of a hidden argument (the caller writes its low `.size` bytes). Pointers the
/// emulator does not provide (printf, hostcall, heap, queues) are null.
fn hidden_value(kind: &ValueKind, launch: &Launch) -> Option<u64> {
    use ValueKind::*;
    let (g, b) = (launch.grid, launch.block);
    Some(match kind {
        HiddenBlockCountX => (g[0] / b[0]) as u64,
        HiddenBlockCountY => (g[1] / b[1]) as u64,
        HiddenBlockCountZ => (g[2] / b[2]) as u64,
        HiddenGroupSizeX => b[0] as u64,
        HiddenGroupSizeY => b[1] as u64,
        HiddenGroupSizeZ => b[2] as u64,
        HiddenRemainderX => (g[0] % b[0]) as u64,
        HiddenRemainderY => (g[1] % b[1]) as u64,
        HiddenRemainderZ => (g[2] % b[2]) as u64,
        HiddenGridDims => grid_dims(launch) as u64,
        HiddenDynamicLdsSize => launch.dyn_shared_bytes as u64,
        HiddenGlobalOffsetX
        | HiddenGlobalOffsetY
        | HiddenGlobalOffsetZ
        | HiddenNone
        | HiddenPrintfBuffer
        | HiddenHostcallBuffer
        | HiddenDefaultQueue
        | HiddenCompletionAction
        | HiddenMultigridSyncArg
        | HiddenHeapV1
        | HiddenPrivateBase
        | HiddenSharedBase
        | HiddenQueuePtr => 0,
        _ => return None,
    })
}

/// Whether the kernel reads the dispatch packet's pointer.
pub(crate) fn needs_dispatch_packet(kernel: &Kernel, proc: &Processor) -> bool {
    InitialState::from_descriptor(kernel.descriptor(), proc).dispatch_ptr.is_some()
}

/// The 64-byte AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t).
pub(crate) fn dispatch_packet(launch: &Launch, desc: &KernelDescriptor, kernarg: u64) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[2..4].copy_from_slice(&grid_dims(launch).to_le_bytes());
    for d in 0..3 {
        p[4 + 2 * d..6 + 2 * d].copy_from_slice(&(launch.block[d] as u16).to_le_bytes());
        p[12 + 4 * d..16 + 4 * d].copy_from_slice(&launch.grid[d].to_le_bytes());
    }
    p[24..28].copy_from_slice(&desc.private_segment_fixed_size.to_le_bytes());
    p[28..32].copy_from_slice(&(desc.group_segment_fixed_size + launch.dyn_shared_bytes).to_le_bytes());
    p[40..48].copy_from_slice(&kernarg.to_le_bytes());
    p
}

/// The VGPRs a wave of the kernel is given: the descriptor's granulated count (granule 8 on
/// gfx90a/gfx942 and in GFX10+ wave32, 4 otherwise, as runtime-abi's `set_register_counts`
/// encodes it), and on the unified-file processors only the ArchVGPRs below ACCUM_OFFSET.
fn allocated_vgprs(desc: &KernelDescriptor, proc: &Processor, wave_size: u32) -> u32 {
    let granule =
        if proc.unified_vgpr_file || (proc.generation >= Generation::Gfx10 && wave_size == 32) { 8 } else { 4 };
    let allocated = (desc.rsrc1.granulated_workitem_vgpr_count as u32 + 1) * granule;
    let arch = if proc.unified_vgpr_file { desc.rsrc3.accum_offset_vgprs() as u32 } else { allocated };
    allocated.min(arch).min(proc.vgprs as u32)
}

/// The AGPRs a wave of the kernel is given: on the unified-file processors, the allocated
/// registers from ACCUM_OFFSET up; none elsewhere.
fn allocated_agprs(desc: &KernelDescriptor, proc: &Processor) -> u32 {
    if !proc.unified_vgpr_file {
        return 0;
    }
    let allocated = (desc.rsrc1.granulated_workitem_vgpr_count as u32 + 1) * 8;
    allocated.saturating_sub(desc.rsrc3.accum_offset_vgprs() as u32).min(proc.agprs as u32)
}

/// Everything a wave of one dispatch starts from.
/// Flat Scratch Init of the emulated queue: the scratch backing memory's base, whose low dword
/// is so near its top that every wave offset carries into FLAT_SCRATCH_HI, so a prolog that
/// drops the carry is caught.
pub(crate) const FLAT_SCRATCH_INIT: u64 = 0x0000_7e00_ffff_fc00;

/// The Scratch Wavefront Offset of wave `index` of work-group `group`: distinct per wave slot,
/// never 0, and a multiple of 1 KiB as the hardware's are.
pub(crate) fn scratch_wave_offset(group: [u32; 3], index: u32) -> u32 {
    let slot = (group[0] ^ group[1] << 6 ^ group[2] << 12) & 0xfff;
    (slot * 64 + index % 64 + 1) << 10
}

pub(crate) struct WaveSetup {
    state: InitialState,
    /// Whether the kernel must set FLAT_SCRATCH up itself (no architected flat scratch).
    absolute_scratch: bool,
    kernarg: u64,
    packet: Option<u64>,
    /// Dwords preloaded from the kernarg segment into user SGPRs.
    preload: Vec<u32>,
    private_segment_size: u32,
    vgprs: u32,
    agprs: u32,
    mode: FpMode,
}

impl WaveSetup {
    /// Checks that the emulator provides what `kernel` asks for, and gathers the setup.
    pub(crate) fn new(
        kernel: &Kernel,
        proc: &Processor,
        kernarg: u64,
        kernarg_bytes: &[u8],
        packet: Option<u64>,
    ) -> Result<WaveSetup, LaunchError> {
        let desc = kernel.descriptor();
        let state = InitialState::from_descriptor(desc, proc);
        let unsupported =
            |what: &str| LaunchError::Unsupported { kernel: kernel.name().to_string(), what: what.into() };
        if state.queue_ptr.is_some() {
            return Err(unsupported("the queue pointer (amd_queue_t)"));
        }
        let r1 = &desc.rsrc1;
        if r1.float_round_mode_32 != FloatRoundMode::NearEven || r1.float_round_mode_16_64 != FloatRoundMode::NearEven {
            return Err(unsupported("a rounding mode other than round-to-nearest-even"));
        }
        let denorm = |m: FloatDenormMode| match m {
            FloatDenormMode::FlushSrcDst => 0,
            FloatDenormMode::FlushDst => 1,
            FloatDenormMode::FlushSrc => 2,
            FloatDenormMode::FlushNone => 3,
        };
        let preload = match state.kernarg_preload {
            Some((_, n)) => {
                let first = desc.kernarg_preload_offset() as usize * 4;
                (0..n as usize)
                    .map(|i| {
                        let at = first + 4 * i;
                        kernarg_bytes.get(at..at + 4).map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(WaveSetup {
            state,
            absolute_scratch: proc.flat_scratch == FlatScratch::Absolute,
            kernarg,
            packet,
            preload,
            private_segment_size: desc.private_segment_fixed_size,
            vgprs: allocated_vgprs(desc, proc, state.wave_size),
            agprs: allocated_agprs(desc, proc),
            mode: FpMode {
                denorm32: denorm(r1.float_denorm_mode_32),
                denorm16_64: denorm(r1.float_denorm_mode_16_64),
                dx10_clamp: r1.dx10_clamp,
                ieee: r1.ieee_mode,
            },
        })
    }

    /// Lanes per wave.
    pub(crate) fn wave_size(&self) -> u32 {
        self.state.wave_size
    }

    /// Wave `index` of `waves` in work-group `group`, whose lanes hold the work-items with
    /// the local IDs `local` (one per launched lane).
    pub(crate) fn wave(&self, group: [u32; 3], index: u32, waves: u32, local: &[[u32; 3]]) -> Wave {
        let st = &self.state;
        let launched = if local.len() >= 64 { u64::MAX } else { (1u64 << local.len()) - 1 };
        let mut w = Wave::new(st.wave_size, launched, self.vgprs, self.mode);
        w.give_agprs(self.agprs);
        w.private = Private::new(self.private_segment_size, st.wave_size);
        let put64 = |w: &mut Wave, reg: Option<PhysReg>, value: u64| {
            if let Some(reg) = reg {
                w.write_sreg(reg, value as u32);
                w.write_sreg(reg.advance(1), (value >> 32) as u32);
            }
        };
        put64(&mut w, st.dispatch_ptr, self.packet.unwrap_or(0));
        put64(&mut w, st.kernarg_segment_ptr, self.kernarg);
        put64(&mut w, st.dispatch_id, 0);
        put64(&mut w, st.flat_scratch_init, FLAT_SCRATCH_INIT);
        if let Some(reg) = st.private_segment_wave_offset {
            let offset = scratch_wave_offset(group, index);
            w.write_sreg(reg, offset);
            w.private.base = self.absolute_scratch.then_some(FLAT_SCRATCH_INIT + u64::from(offset));
        }
        if let Some(reg) = st.private_segment_buffer {
            for i in 0..4 {
                w.write_sreg(reg.advance(i), 0);
            }
        }
        if let Some(reg) = st.private_segment_size {
            w.write_sreg(reg, self.private_segment_size);
        }
        if let Some((reg, _)) = st.kernarg_preload {
            for (i, &dword) in self.preload.iter().enumerate() {
                w.write_sreg(reg.advance(i as u16), dword);
            }
        }
        for (reg, id) in st.workgroup_id.iter().zip(group) {
            if let Some(reg) = reg {
                w.write_sreg(*reg, id);
            }
        }
        if let Some(reg) = st.workgroup_info {
            // {first_wavefront, 14'b0, ordered_append_term[10:0], threadgroup_size_in_wavefronts[5:0]}
            w.write_sreg(reg, (((index == 0) as u32) << 31) | (waves & 0x3f));
        }
        for (lane, id) in local.iter().enumerate() {
            let lane = lane as u32;
            match st.workitem_ids {
                WorkItemIds::Packed { reg, dims } => {
                    let y = if dims > 1 { id[1] } else { 0 };
                    let z = if dims > 2 { id[2] } else { 0 };
                    w.set_vgpr(reg.index(), lane, id[0] | y << 10 | z << 20);
                }
                WorkItemIds::Unpacked(regs) => {
                    for (d, reg) in regs.iter().enumerate() {
                        if let Some(reg) = reg {
                            w.set_vgpr(reg.index(), lane, id[d]);
                        }
                    }
                }
            }
        }
        w
    }
}
