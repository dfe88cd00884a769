//! Agents, their ISAs and their memory regions: `hsa_iterate_agents`, `hsa_agent_get_info`,
//! `hsa_agent_iterate_isas`, `hsa_isa_get_info_alt`, `hsa_isa_from_name`,
//! `hsa_agent_iterate_regions`, `hsa_region_get_info`.
//!
//! Agent `i` (0 is the CPU) has handle `AGENT_BASE + i`; a GPU agent's ISA `ISA_BASE + i`;
//! region `k` of agent `i` is `REGION_BASE + 8 i + k`.

use std::ffi::{c_char, c_void, CStr};

use isa::processor::TargetId;

use crate::abi::*;
use crate::runtime::with;
use crate::{entry, put, put_chars, step};

const AGENT_BASE: u64 = 0x100;
const ISA_BASE: u64 = 0x200;
const REGION_BASE: u64 = 0x1000;

/// Packets a queue holds, at least and at most.
pub(crate) const QUEUE_MIN_SIZE: u32 = 64;
pub(crate) const QUEUE_MAX_SIZE: u32 = 4096;
/// Queues an agent may have.
const QUEUES_MAX: u32 = 64;
/// The size reported for global regions (what a program may allocate in all).
const GLOBAL_REGION_SIZE: usize = 64 << 30;

/// An agent.
pub(crate) enum AgentKind {
    /// The host.
    Cpu,
    /// An emulated GPU.
    Gpu(GpuAgent),
}

/// An emulated GPU.
pub(crate) struct GpuAgent {
    /// Its processor with every feature set.
    pub(crate) target: TargetId,
    /// Its ISA's name, `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
    pub(crate) isa_name: String,
}

/// A kind of memory region; every agent has the same list (the host's memory serves all).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegionKind {
    /// Global, kernarg and fine-grained.
    Kernarg,
    /// Global, fine-grained.
    Fine,
    /// Global, coarse-grained.
    Coarse,
    /// The group segment (LDS): not allocatable.
    Group,
}

const REGIONS: [RegionKind; 4] = [RegionKind::Kernarg, RegionKind::Fine, RegionKind::Coarse, RegionKind::Group];

impl RegionKind {
    /// Bytes an allocation is rounded up to: a kernarg segment to 16 (code may load the last
    /// 16 bytes that hold arguments, as the emulator's own dispatch allows), global memory to
    /// nothing, so that the device sees each buffer's exact end.
    pub(crate) fn granule(self) -> usize {
        match self {
            RegionKind::Kernarg => 16,
            _ => 1,
        }
    }
}

/// The GPU agent of a handle, by index.
pub(crate) fn agent_index(agents: &[AgentKind], agent: Agent) -> Result<usize, Status> {
    let index = agent.handle.checked_sub(AGENT_BASE).ok_or(HSA_STATUS_ERROR_INVALID_AGENT)? as usize;
    if index < agents.len() {
        Ok(index)
    } else {
        Err(HSA_STATUS_ERROR_INVALID_AGENT)
    }
}

/// The handle of agent `index`.
pub(crate) fn agent_handle(index: usize) -> Agent {
    Agent { handle: AGENT_BASE + index as u64 }
}

fn region_of(agents: &[AgentKind], region: Region) -> Result<(usize, RegionKind), Status> {
    let offset = region.handle.checked_sub(REGION_BASE).ok_or(HSA_STATUS_ERROR_INVALID_REGION)?;
    let (agent, kind) = ((offset / 8) as usize, (offset % 8) as usize);
    match REGIONS.get(kind) {
        Some(&kind) if agent < agents.len() => Ok((agent, kind)),
        _ => Err(HSA_STATUS_ERROR_INVALID_REGION),
    }
}

/// The region kind of a handle (for allocation).
pub(crate) fn region_kind(agents: &[AgentKind], region: Region) -> Result<RegionKind, Status> {
    region_of(agents, region).map(|(_, kind)| kind)
}

fn isa_of(agents: &[AgentKind], isa: Isa) -> Result<&GpuAgent, Status> {
    let index = isa.handle.checked_sub(ISA_BASE).ok_or(HSA_STATUS_ERROR_INVALID_ISA)? as usize;
    match agents.get(index) {
        Some(AgentKind::Gpu(gpu)) => Ok(gpu),
        _ => Err(HSA_STATUS_ERROR_INVALID_ISA),
    }
}

/// `hsa_iterate_agents`.
///
/// # Safety
/// `callback` is a valid function, called with `data`.
#[no_mangle]
pub unsafe extern "C" fn hsa_iterate_agents(
    callback: Option<unsafe extern "C" fn(Agent, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    entry(|| {
        let count = with(|rt| Ok(rt.agents.len()))?;
        let callback = callback.ok_or(HSA_STATUS_ERROR_INVALID_ARGUMENT)?;
        // SAFETY: the caller's promise; the lock is not held.
        (0..count).try_for_each(|i| step(unsafe { callback(agent_handle(i), data) }))
    })
}

/// `hsa_agent_get_info`.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_agent_get_info(agent: Agent, attribute: u32, value: *mut c_void) -> Status {
    entry(|| {
        with(|rt| {
            let index = agent_index(&rt.agents, agent)?;
            // SAFETY: the caller's promise, for each attribute's type.
            unsafe {
                match &rt.agents[index] {
                    AgentKind::Gpu(gpu) => gpu_info(gpu, index, attribute, value),
                    AgentKind::Cpu => cpu_info(attribute, value),
                }
            }
        })
    })
}

/// # Safety
/// As for `hsa_agent_get_info`.
unsafe fn gpu_info(gpu: &GpuAgent, index: usize, attribute: u32, value: *mut c_void) -> Result<(), Status> {
    let processor = gpu.target.processor;
    // SAFETY: the caller's promise.
    unsafe {
        match attribute {
            HSA_AGENT_INFO_NAME => put_chars(value, processor.name, 64),
            HSA_AGENT_INFO_VENDOR_NAME => put_chars(value, "gcnc", 64),
            HSA_AGENT_INFO_FEATURE => put(value, HSA_AGENT_FEATURE_KERNEL_DISPATCH),
            HSA_AGENT_INFO_WAVEFRONT_SIZE => put(value, processor.default_wave_size()),
            HSA_AGENT_INFO_QUEUES_MAX => put(value, QUEUES_MAX),
            HSA_AGENT_INFO_QUEUE_MIN_SIZE => put(value, QUEUE_MIN_SIZE),
            HSA_AGENT_INFO_QUEUE_MAX_SIZE => put(value, QUEUE_MAX_SIZE),
            HSA_AGENT_INFO_QUEUE_TYPE => put(value, HSA_QUEUE_TYPE_MULTI),
            HSA_AGENT_INFO_DEVICE => put(value, HSA_DEVICE_TYPE_GPU),
            HSA_AGENT_INFO_ISA => put(value, Isa { handle: ISA_BASE + index as u64 }),
            _ => common_info(index, attribute, value),
        }
    }
}

/// # Safety
/// As for `hsa_agent_get_info`.
unsafe fn cpu_info(attribute: u32, value: *mut c_void) -> Result<(), Status> {
    // SAFETY: the caller's promise.
    unsafe {
        match attribute {
            HSA_AGENT_INFO_NAME => put_chars(value, "host", 64),
            HSA_AGENT_INFO_VENDOR_NAME => put_chars(value, "gcnc", 64),
            HSA_AGENT_INFO_FEATURE => put(value, HSA_AGENT_FEATURE_AGENT_DISPATCH),
            HSA_AGENT_INFO_WAVEFRONT_SIZE => put(value, 0u32),
            HSA_AGENT_INFO_QUEUES_MAX | HSA_AGENT_INFO_QUEUE_MIN_SIZE | HSA_AGENT_INFO_QUEUE_MAX_SIZE => {
                put(value, 0u32)
            }
            HSA_AGENT_INFO_QUEUE_TYPE => put(value, HSA_QUEUE_TYPE_MULTI),
            HSA_AGENT_INFO_DEVICE => put(value, HSA_DEVICE_TYPE_CPU),
            HSA_AGENT_INFO_ISA => put(value, Isa { handle: 0 }),
            _ => common_info(0, attribute, value),
        }
    }
}

/// What the CPU and the GPUs answer alike (the dispatch limits are the emulator's).
///
/// # Safety
/// As for `hsa_agent_get_info`.
unsafe fn common_info(index: usize, attribute: u32, value: *mut c_void) -> Result<(), Status> {
    let max = emu::MAX_WORKGROUP_SIZE;
    // SAFETY: the caller's promise.
    unsafe {
        match attribute {
            HSA_AGENT_INFO_MACHINE_MODEL => put(value, HSA_MACHINE_MODEL_LARGE),
            HSA_AGENT_INFO_PROFILE => put(value, HSA_PROFILE_BASE),
            HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE => put(value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR),
            HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES => {
                put(value, HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO | HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
            }
            HSA_AGENT_INFO_FAST_F16_OPERATION => put(value, true),
            HSA_AGENT_INFO_WORKGROUP_MAX_DIM => put(value, [max as u16; 3]),
            HSA_AGENT_INFO_WORKGROUP_MAX_SIZE => put(value, max),
            HSA_AGENT_INFO_GRID_MAX_DIM => put(value, [u32::MAX; 3]),
            HSA_AGENT_INFO_GRID_MAX_SIZE => put(value, u32::MAX),
            HSA_AGENT_INFO_FBARRIER_MAX_SIZE => put(value, 32u32),
            HSA_AGENT_INFO_NODE => put(value, index as u32),
            // No cache information (0 for each level, as the specification allows).
            HSA_AGENT_INFO_CACHE_SIZE => put(value, [0u32; 4]),
            HSA_AGENT_INFO_EXTENSIONS => put(value, [0u8; 128]),
            HSA_AGENT_INFO_VERSION_MAJOR => put(value, 1u16),
            HSA_AGENT_INFO_VERSION_MINOR => put(value, 1u16),
            _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
        }
    }
}

/// `hsa_agent_iterate_isas`: a GPU agent's one ISA; the CPU has none.
///
/// # Safety
/// `callback` is a valid function, called with `data`.
#[no_mangle]
pub unsafe extern "C" fn hsa_agent_iterate_isas(
    agent: Agent,
    callback: Option<unsafe extern "C" fn(Isa, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    entry(|| {
        let (index, gpu) = with(|rt| {
            let index = agent_index(&rt.agents, agent)?;
            Ok((index, matches!(rt.agents[index], AgentKind::Gpu(_))))
        })?;
        let callback = callback.ok_or(HSA_STATUS_ERROR_INVALID_ARGUMENT)?;
        if !gpu {
            return Ok(());
        }
        // SAFETY: the caller's promise; the lock is not held.
        step(unsafe { callback(Isa { handle: ISA_BASE + index as u64 }, data) })
    })
}

/// `hsa_isa_get_info_alt`.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_isa_get_info_alt(isa: Isa, attribute: u32, value: *mut c_void) -> Status {
    entry(|| {
        with(|rt| {
            let gpu = isa_of(&rt.agents, isa)?;
            let max = emu::MAX_WORKGROUP_SIZE;
            // SAFETY: the caller's promise, for each attribute's type.
            unsafe {
                match attribute {
                    HSA_ISA_INFO_NAME_LENGTH => put(value, gpu.isa_name.len() as u32),
                    HSA_ISA_INFO_NAME => put_chars(value, &gpu.isa_name, gpu.isa_name.len()),
                    // Indexed by hsa_machine_model_t, hsa_profile_t, and the rounding mode.
                    HSA_ISA_INFO_MACHINE_MODELS => put(value, [false, true]),
                    HSA_ISA_INFO_PROFILES => put(value, [true, false]),
                    HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES => put(value, [false, false, true]),
                    HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES => put(value, [false, false, true]),
                    HSA_ISA_INFO_FAST_F16_OPERATION => put(value, true),
                    HSA_ISA_INFO_WORKGROUP_MAX_DIM => put(value, [max as u16; 3]),
                    HSA_ISA_INFO_WORKGROUP_MAX_SIZE => put(value, max),
                    HSA_ISA_INFO_GRID_MAX_DIM => put(value, [u32::MAX; 3]),
                    HSA_ISA_INFO_GRID_MAX_SIZE => put(value, u64::from(u32::MAX)),
                    HSA_ISA_INFO_FBARRIER_MAX_SIZE => put(value, 32u32),
                    _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
                }
            }
        })
    })
}

/// `hsa_isa_from_name`: the ISA of an agent whose ISA name is `name` exactly.
///
/// # Safety
/// `name` is a NUL-terminated string; `isa` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_isa_from_name(name: *const c_char, isa: *mut Isa) -> Status {
    entry(|| {
        if name.is_null() {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's promise.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        let found = with(|rt| Ok(rt.agents.iter().position(|a| matches!(a, AgentKind::Gpu(g) if g.isa_name == name))))?;
        let index = found.ok_or(HSA_STATUS_ERROR_INVALID_ISA_NAME)?;
        // SAFETY: the caller's promise.
        unsafe { put(isa.cast(), Isa { handle: ISA_BASE + index as u64 }) }
    })
}

/// `hsa_agent_iterate_regions`: kernarg, fine-grained and coarse-grained global memory, and
/// the group segment.
///
/// # Safety
/// `callback` is a valid function, called with `data`.
#[no_mangle]
pub unsafe extern "C" fn hsa_agent_iterate_regions(
    agent: Agent,
    callback: Option<unsafe extern "C" fn(Region, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    entry(|| {
        let index = with(|rt| agent_index(&rt.agents, agent))?;
        let callback = callback.ok_or(HSA_STATUS_ERROR_INVALID_ARGUMENT)?;
        (0..REGIONS.len()).try_for_each(|k| {
            let region = Region { handle: REGION_BASE + 8 * index as u64 + k as u64 };
            // SAFETY: the caller's promise; the lock is not held.
            step(unsafe { callback(region, data) })
        })
    })
}

/// `hsa_region_get_info`.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_region_get_info(region: Region, attribute: u32, value: *mut c_void) -> Status {
    entry(|| {
        let (_, kind) = with(|rt| region_of(&rt.agents, region))?;
        let global = kind != RegionKind::Group;
        let flags = match kind {
            RegionKind::Kernarg => HSA_REGION_GLOBAL_FLAG_KERNARG | HSA_REGION_GLOBAL_FLAG_FINE_GRAINED,
            RegionKind::Fine => HSA_REGION_GLOBAL_FLAG_FINE_GRAINED,
            RegionKind::Coarse => HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED,
            RegionKind::Group => 0,
        };
        let size = if global { GLOBAL_REGION_SIZE } else { emu::MAX_SHARED_BYTES as usize };
        // SAFETY: the caller's promise, for each attribute's type.
        unsafe {
            match attribute {
                HSA_REGION_INFO_SEGMENT => {
                    put(value, if global { HSA_REGION_SEGMENT_GLOBAL } else { HSA_REGION_SEGMENT_GROUP })
                }
                HSA_REGION_INFO_GLOBAL_FLAGS if global => put(value, flags),
                HSA_REGION_INFO_SIZE => put(value, size),
                HSA_REGION_INFO_ALLOC_MAX_SIZE => put(value, if global { crate::memory::MAX_ALLOCATION } else { size }),
                HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED => put(value, global),
                HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE if global => put(value, kind.granule()),
                HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT if global => put(value, crate::memory::ALIGNMENT),
                _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
            }
        }
    })
}
