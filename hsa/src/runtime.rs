//! The runtime's state between `hsa_init` and the matching `hsa_shut_down`: the agents (from
//! `$GCNC_HSA_AGENTS`), and every object a program creates, by handle. One lock guards it;
//! nothing waits or calls back into the program while holding it.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use isa::processor::{FeatureSetting, Processor, TargetId, PROCESSORS};

use crate::abi::*;
use crate::agent::{AgentKind, GpuAgent};
use crate::loader::{ExecutableRecord, KernelSymbol};
use crate::memory::Memory;
use crate::queue::QueueEntry;
use crate::signal::SignalObj;
use crate::{entry, put, AGENTS_ENV};

/// Handles of runtime objects (signals, queues' doorbells, readers, executables, symbols,
/// kernel objects) count up from here; agents, ISAs and regions have their own small ranges
/// below, so a handle of one kind is never valid as another.
const FIRST_OBJECT_HANDLE: u64 = 0x1_0000_0000;

/// Everything the runtime holds.
pub(crate) struct Runtime {
    /// `hsa_init` calls not yet matched by `hsa_shut_down`.
    refs: u32,
    /// The agents: the CPU first, then one per GPU.
    pub(crate) agents: Vec<AgentKind>,
    /// The next object handle.
    next_handle: u64,
    /// When `hsa_init` ran: the origin of `HSA_SYSTEM_INFO_TIMESTAMP`.
    pub(crate) started: Instant,
    /// Live signals (doorbells included).
    pub(crate) signals: HashMap<u64, Arc<SignalObj>>,
    /// Host-and-device memory.
    pub(crate) memory: Memory,
    /// Live queues, by the address of their `hsa_queue_t`.
    pub(crate) queues: HashMap<usize, QueueEntry>,
    /// Code object readers' bytes.
    pub(crate) readers: HashMap<u64, Arc<[u8]>>,
    /// Executables.
    pub(crate) executables: HashMap<u64, ExecutableRecord>,
    /// Kernel symbols, by symbol handle.
    pub(crate) symbols: HashMap<u64, KernelSymbol>,
    /// Kernel objects (what a dispatch packet names) to their symbol handles.
    pub(crate) kernel_objects: HashMap<u64, u64>,
    /// The queues' next ID.
    pub(crate) next_queue_id: u64,
}

impl Runtime {
    /// A fresh handle for a runtime object.
    pub(crate) fn handle(&mut self) -> u64 {
        self.next_handle += 1;
        self.next_handle
    }
}

static STATE: Mutex<Option<Runtime>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<Runtime>> {
    // A panic caught at an entry point leaves the state as the last completed change left it.
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` on the runtime, or fails with `HSA_STATUS_ERROR_NOT_INITIALIZED`.
pub(crate) fn with<T>(f: impl FnOnce(&mut Runtime) -> Result<T, Status>) -> Result<T, Status> {
    match lock().as_mut() {
        Some(runtime) => f(runtime),
        None => Err(HSA_STATUS_ERROR_NOT_INITIALIZED),
    }
}

/// The GPU agents `$GCNC_HSA_AGENTS` asks for (comma-separated target IDs), or one per
/// processor the emulator runs when it is unset or empty. A feature the entry leaves as
/// "any" takes the setting of the hardware's default (SRAMECC on, XNACK off), since a real
/// agent's ISA names each feature it has.
fn gpu_agents() -> Result<Vec<GpuAgent>, String> {
    let list = std::env::var(AGENTS_ENV).unwrap_or_default();
    let names: Vec<String> = if list.trim().is_empty() {
        PROCESSORS.iter().filter(|p| p.verified).map(|p| p.name.to_string()).collect()
    } else {
        list.split(',').map(|s| s.trim().to_string()).collect()
    };
    let mut agents = Vec::new();
    for name in names {
        let mut id = TargetId::parse(&name).map_err(|e| format!("{AGENTS_ENV}: {e}"))?;
        if !id.processor.verified {
            return Err(format!(
                "{AGENTS_ENV}: the emulator does not run {} (it runs {})",
                id.processor.name,
                Processor::verified_names()
            ));
        }
        let concrete = |setting: FeatureSetting, feature, default| match setting {
            FeatureSetting::Any if id.processor.supports(feature) => default,
            other => other,
        };
        id.sramecc = concrete(id.sramecc, isa::processor::Feature::Sramecc, FeatureSetting::On);
        id.xnack = concrete(id.xnack, isa::processor::Feature::Xnack, FeatureSetting::Off);
        agents.push(GpuAgent { isa_name: runtime_abi::metadata::target_string(&id), target: id });
    }
    Ok(agents)
}

/// `hsa_init`: the first call reads `$GCNC_HSA_AGENTS` (an unknown or unemulated processor
/// makes it fail with `HSA_STATUS_ERROR`, the reason on stderr); later calls count.
#[no_mangle]
pub extern "C" fn hsa_init() -> Status {
    entry(|| {
        let mut state = lock();
        if let Some(runtime) = state.as_mut() {
            runtime.refs = runtime.refs.checked_add(1).ok_or(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW)?;
            return Ok(());
        }
        let gpus = gpu_agents().map_err(|reason| {
            eprintln!("gcnc-hsa: {reason}");
            HSA_STATUS_ERROR
        })?;
        let agents = std::iter::once(AgentKind::Cpu).chain(gpus.into_iter().map(AgentKind::Gpu)).collect();
        *state = Some(Runtime {
            refs: 1,
            agents,
            next_handle: FIRST_OBJECT_HANDLE,
            started: Instant::now(),
            signals: HashMap::new(),
            memory: Memory::default(),
            queues: HashMap::new(),
            readers: HashMap::new(),
            executables: HashMap::new(),
            symbols: HashMap::new(),
            kernel_objects: HashMap::new(),
            next_queue_id: 0,
        });
        Ok(())
    })
}

/// `hsa_shut_down`: the last call destroys every queue (stopping its packet processor), then
/// releases all memory and objects.
#[no_mangle]
pub extern "C" fn hsa_shut_down() -> Status {
    entry(|| {
        let queues = {
            let mut state = lock();
            let runtime = state.as_mut().ok_or(HSA_STATUS_ERROR_NOT_INITIALIZED)?;
            runtime.refs -= 1;
            if runtime.refs > 0 {
                return Ok(());
            }
            runtime.queues.drain().map(|(_, q)| q).collect::<Vec<_>>()
        };
        // The processors may need the lock to finish their packet; stop them without it.
        for queue in queues {
            queue.stop();
        }
        let mut state = lock();
        if let Some(mut runtime) = state.take() {
            runtime.memory.release_all();
        }
        Ok(())
    })
}

/// Ticks of `HSA_SYSTEM_INFO_TIMESTAMP` per second: nanoseconds.
pub(crate) const TIMESTAMP_FREQUENCY: u64 = 1_000_000_000;

/// `hsa_system_get_info`.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_system_get_info(attribute: u32, value: *mut c_void) -> Status {
    entry(|| {
        let started = with(|rt| Ok(rt.started))?;
        // SAFETY: the caller's promise, for each attribute's type.
        unsafe {
            match attribute {
                HSA_SYSTEM_INFO_VERSION_MAJOR => put(value, 1u16),
                HSA_SYSTEM_INFO_VERSION_MINOR => put(value, 1u16),
                HSA_SYSTEM_INFO_TIMESTAMP => put(value, started.elapsed().as_nanos() as u64),
                HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY => put(value, TIMESTAMP_FREQUENCY),
                HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT => put(value, u64::MAX),
                HSA_SYSTEM_INFO_ENDIANNESS => put(value, HSA_ENDIANNESS_LITTLE),
                HSA_SYSTEM_INFO_MACHINE_MODEL => put(value, HSA_MACHINE_MODEL_LARGE),
                HSA_SYSTEM_INFO_EXTENSIONS => put(value, [0u8; 128]),
                _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
            }
        }
    })
}

/// `hsa_system_extension_supported`: no extension is.
///
/// # Safety
/// `result` points to a `bool`.
#[no_mangle]
pub unsafe extern "C" fn hsa_system_extension_supported(
    _extension: u16,
    _version_major: u16,
    _version_minor: u16,
    result: *mut bool,
) -> Status {
    entry(|| {
        with(|_| Ok(()))?;
        // SAFETY: the caller's promise.
        unsafe { put(result.cast(), false) }
    })
}
