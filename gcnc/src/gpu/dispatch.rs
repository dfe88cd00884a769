//! The dispatch flow of `--device gpu`, call by call as the HSA runtime specification gives it
//! (see the [module above](super)). Every resource the flow creates is recorded as it is
//! created and released in reverse order, on success and on failure alike; on success a
//! failing release is an error too.

use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::offset_of;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

use isa::processor::{isa_runs_target, TargetId};

use super::ffi::*;
use super::{library_name, GpuError};
use crate::launch::ParamValue;

/// How long one wait on the completion signal may block before the queue's error flag is
/// looked at again, in ticks of `HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY` (a hint; the runtime
/// may return earlier).
const WAIT_TIMEOUT_HINT: u64 = 100_000_000;

/// A kernel dispatch for [`run`].
pub struct GpuLaunch<'a> {
    /// The code object (ET_DYN) as the runtime loads it.
    pub code_object: &'a [u8],
    /// The same code object decoded: its metadata lays out the kernarg segment.
    pub program: &'a emu::Program,
    /// The kernel's name; its descriptor's symbol is `NAME.kd`.
    pub kernel: &'a str,
    /// Grid, work-group size and dynamic shared memory.
    pub launch: emu::Launch,
}

/// Runs the kernel on the first GPU agent whose ISA runs the code object's target, with
/// `params` as its explicit arguments in order. Each [`ParamValue::Buffer`] is copied to GPU
/// memory before the run and its contents are replaced by the GPU's after it.
pub fn run(launch: &GpuLaunch, params: &mut [ParamValue]) -> Result<(), GpuError> {
    // The launch must fit the kernel's metadata (e.g. its required workgroup size) whether or
    // not a GPU is there to run it.
    let launch_error = |reason: String| GpuError::Launch { kernel: launch.kernel.to_string(), reason };
    let kernel = launch.program.kernel(launch.kernel).ok_or_else(|| launch_error("no such kernel".into()))?;
    emu::check_workgroup(kernel, &launch.launch).map_err(|e| launch_error(e.to_string()))?;
    let object = runtime_abi::read(launch.code_object).map_err(|e| GpuError::CodeObject { reason: e.to_string() })?;
    let target = object.target.ok_or_else(|| GpuError::CodeObject {
        reason: format!("its e_flags {:#x} name no known target", object.e_flags),
    })?;
    let api = Api::load(&library_name())?;
    // SAFETY: no precondition.
    let status = unsafe { (api.hsa_init)() };
    if status != HSA_STATUS_SUCCESS {
        // hsa_shut_down must not follow a failed hsa_init.
        return Err(GpuError::Init { message: status_text(&api, status) });
    }
    let mut session =
        Session { api: &api, owned: Vec::new(), queue_error: Box::new(AtomicU32::new(HSA_STATUS_SUCCESS)) };
    let result = session.dispatch(launch, &target, params);
    let released = session.release();
    drop(session);
    // SAFETY: hsa_init succeeded, and every resource is released.
    let shut_down = check(&api, "hsa_shut_down", unsafe { (api.hsa_shut_down)() });
    result.and(released).and(shut_down)
}

/// `hsa_status_string`'s text for `status`.
fn status_text(api: &Api, status: Status) -> String {
    let mut text: *const c_char = ptr::null();
    // SAFETY: `text` is a valid out-pointer; on success the runtime points it at a
    // NUL-terminated string it owns.
    let ok = unsafe { (api.hsa_status_string)(status, &mut text) } == HSA_STATUS_SUCCESS;
    if ok && !text.is_null() {
        // SAFETY: see above.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    } else {
        format!("status {status:#x} (hsa_status_string gives no text)")
    }
}

/// Ok for success (and for an iteration a callback stopped), otherwise the error for `call`.
fn check(api: &Api, call: &'static str, status: Status) -> Result<(), GpuError> {
    match status {
        HSA_STATUS_SUCCESS | HSA_STATUS_INFO_BREAK => Ok(()),
        _ => Err(GpuError::Hsa { call, status, message: status_text(api, status) }),
    }
}

/// The iteration callback that collects every handle into the `Vec` `data` points to.
unsafe extern "C" fn push_handle<H>(handle: H, data: *mut c_void) -> Status {
    // SAFETY: `Session::collect` passes a `&mut Vec<H>` as `data`.
    unsafe { (*data.cast::<Vec<H>>()).push(handle) };
    HSA_STATUS_SUCCESS
}

/// The queue's error callback: records the first error status in the `AtomicU32` `data`
/// points to.
unsafe extern "C" fn record_queue_error(status: Status, _queue: *mut Queue, data: *mut c_void) {
    // SAFETY: `Session::create_queue` passes the session's boxed `AtomicU32`, which outlives
    // the queue.
    let flag = unsafe { &*data.cast::<AtomicU32>() };
    let _ = flag.compare_exchange(HSA_STATUS_SUCCESS, status, Ordering::AcqRel, Ordering::Acquire);
}

/// A resource to release.
enum Owned {
    Memory(*mut c_void),
    Signal(Signal),
    Queue(*mut Queue),
    Executable(Executable),
    Reader(CodeObjectReader),
}

/// The resources of one dispatch, between `hsa_init` and `hsa_shut_down`.
struct Session<'a> {
    api: &'a Api,
    /// What to release, in creation order.
    owned: Vec<Owned>,
    /// The queue's first error status (0: none); boxed so its address stays fixed.
    queue_error: Box<AtomicU32>,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // On the success path `run` has released everything and checked the statuses; this
        // is the error path, where the first error is the one reported.
        let _ = self.release();
    }
}

impl Session<'_> {
    fn check(&self, call: &'static str, status: Status) -> Result<(), GpuError> {
        check(self.api, call, status)
    }

    /// Releases every resource, newest first; the first failure is the result.
    fn release(&mut self) -> Result<(), GpuError> {
        let mut result = Ok(());
        while let Some(resource) = self.owned.pop() {
            let api = self.api;
            // SAFETY: each resource was created by the runtime and is released once.
            let (call, status) = unsafe {
                match resource {
                    Owned::Memory(p) => ("hsa_memory_free", (api.hsa_memory_free)(p)),
                    Owned::Signal(s) => ("hsa_signal_destroy", (api.hsa_signal_destroy)(s)),
                    Owned::Queue(q) => ("hsa_queue_destroy", (api.hsa_queue_destroy)(q)),
                    Owned::Executable(e) => ("hsa_executable_destroy", (api.hsa_executable_destroy)(e)),
                    Owned::Reader(r) => ("hsa_code_object_reader_destroy", (api.hsa_code_object_reader_destroy)(r)),
                }
            };
            result = result.and(self.check(call, status));
        }
        result
    }

    /// Every handle an iteration call (`hsa_iterate_agents` and the like) hands its callback.
    fn collect<H>(
        &self,
        call: &'static str,
        iterate: impl FnOnce(unsafe extern "C" fn(H, *mut c_void) -> Status, *mut c_void) -> Status,
    ) -> Result<Vec<H>, GpuError> {
        let mut handles: Vec<H> = Vec::new();
        let status = iterate(push_handle::<H>, ptr::from_mut(&mut handles).cast());
        self.check(call, status)?;
        Ok(handles)
    }

    /// An attribute `get_info` writes into a `T` (starting from `initial`).
    fn info<T>(
        &self,
        call: &'static str,
        initial: T,
        get_info: impl FnOnce(*mut c_void) -> Status,
    ) -> Result<T, GpuError> {
        let mut value = initial;
        self.check(call, get_info(ptr::from_mut(&mut value).cast()))?;
        Ok(value)
    }

    fn agent_info<T>(&self, agent: Agent, attribute: AgentInfo, initial: T) -> Result<T, GpuError> {
        // SAFETY: `T` is the attribute's C type, as documented on each constant.
        self.info("hsa_agent_get_info", initial, |p| unsafe { (self.api.hsa_agent_get_info)(agent, attribute, p) })
    }

    fn region_info<T>(&self, region: Region, attribute: RegionInfo, initial: T) -> Result<T, GpuError> {
        // SAFETY: as for `agent_info`.
        self.info("hsa_region_get_info", initial, |p| unsafe { (self.api.hsa_region_get_info)(region, attribute, p) })
    }

    fn symbol_info<T>(&self, symbol: ExecutableSymbol, attribute: SymbolInfo, initial: T) -> Result<T, GpuError> {
        // SAFETY: as for `agent_info`.
        self.info("hsa_executable_symbol_get_info", initial, |p| unsafe {
            (self.api.hsa_executable_symbol_get_info)(symbol, attribute, p)
        })
    }

    /// The ISA's name, e.g. `amdgcn-amd-amdhsa--gfx1100`.
    fn isa_name(&self, isa: Isa) -> Result<String, GpuError> {
        let call = "hsa_isa_get_info_alt";
        // SAFETY: HSA_ISA_INFO_NAME_LENGTH is a uint32_t.
        let len =
            self.info(call, 0u32, |p| unsafe { (self.api.hsa_isa_get_info_alt)(isa, HSA_ISA_INFO_NAME_LENGTH, p) })?;
        let mut name = vec![0u8; len as usize + 1];
        // SAFETY: the name fits in NAME_LENGTH bytes; one more keeps it NUL-terminated.
        self.check(call, unsafe { (self.api.hsa_isa_get_info_alt)(isa, HSA_ISA_INFO_NAME, name.as_mut_ptr().cast()) })?;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        Ok(String::from_utf8_lossy(&name[..end]).into_owned())
    }

    /// The first GPU agent with an ISA that runs `target`, and that ISA's name.
    fn find_agent(&self, target: &TargetId) -> Result<(Agent, String), GpuError> {
        // SAFETY: `collect` passes its callback and a matching data pointer.
        let agents =
            self.collect("hsa_iterate_agents", |cb, data| unsafe { (self.api.hsa_iterate_agents)(Some(cb), data) })?;
        let mut seen = Vec::new();
        let mut gpus = 0;
        for agent in agents {
            if self.agent_info(agent, HSA_AGENT_INFO_DEVICE, u32::MAX)? != HSA_DEVICE_TYPE_GPU {
                continue;
            }
            gpus += 1;
            // SAFETY: as above.
            let isas = self.collect("hsa_agent_iterate_isas", |cb, data| unsafe {
                (self.api.hsa_agent_iterate_isas)(agent, Some(cb), data)
            })?;
            for isa in isas {
                let name = self.isa_name(isa)?;
                if isa_runs_target(&name, target) {
                    return Ok((agent, name));
                }
                seen.push(name);
            }
        }
        if gpus == 0 {
            return Err(GpuError::NoAgent);
        }
        Err(GpuError::IsaMismatch { target: target.to_string(), available: seen.join(", ") })
    }

    /// The agent's kernarg region, and the region for buffers: a fine-grained one if there is
    /// one (the host and the GPU see each other's writes), else a coarse-grained one.
    fn find_regions(&self, agent: Agent, isa: &str) -> Result<(Region, Region), GpuError> {
        // SAFETY: `collect` passes its callback and a matching data pointer.
        let regions = self.collect("hsa_agent_iterate_regions", |cb, data| unsafe {
            (self.api.hsa_agent_iterate_regions)(agent, Some(cb), data)
        })?;
        let (mut kernarg, mut fine, mut coarse) = (None, None, None);
        for region in regions {
            if self.region_info(region, HSA_REGION_INFO_SEGMENT, u32::MAX)? != HSA_REGION_SEGMENT_GLOBAL {
                continue;
            }
            // A C `bool`, read as a byte.
            if self.region_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, 0u8)? == 0 {
                continue;
            }
            let flags = self.region_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, 0u32)?;
            if flags & HSA_REGION_GLOBAL_FLAG_KERNARG != 0 {
                kernarg.get_or_insert(region);
            } else if flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED != 0 {
                fine.get_or_insert(region);
            } else if flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED != 0 {
                coarse.get_or_insert(region);
            }
        }
        let missing = |what| GpuError::NoRegion { isa: isa.to_string(), what };
        Ok((kernarg.ok_or_else(|| missing("kernarg"))?, fine.or(coarse).ok_or_else(|| missing("global"))?))
    }

    /// `size` bytes (at least 1) in `region`, released with the session.
    fn allocate(&mut self, region: Region, size: usize) -> Result<*mut c_void, GpuError> {
        let mut memory = ptr::null_mut();
        // SAFETY: `memory` is a valid out-pointer.
        self.check("hsa_memory_allocate", unsafe { (self.api.hsa_memory_allocate)(region, size.max(1), &mut memory) })?;
        self.owned.push(Owned::Memory(memory));
        Ok(memory)
    }

    /// Copies `size` bytes with `hsa_memory_copy` (nothing for 0 bytes).
    fn copy(&self, dst: *mut c_void, src: *const c_void, size: usize) -> Result<(), GpuError> {
        if size == 0 {
            return Ok(());
        }
        // SAFETY: the caller passes `size` valid bytes at each end.
        self.check("hsa_memory_copy", unsafe { (self.api.hsa_memory_copy)(dst, src, size) })
    }

    fn dispatch(&mut self, l: &GpuLaunch, target: &TargetId, params: &mut [ParamValue]) -> Result<(), GpuError> {
        let launch_error = |reason: String| GpuError::Launch { kernel: l.kernel.to_string(), reason };
        let kernel =
            l.program.kernel(l.kernel).ok_or_else(|| launch_error("the code object has no such kernel".into()))?;
        let [Ok(bx), Ok(by), Ok(bz)] = l.launch.block.map(u16::try_from) else {
            return Err(launch_error(format!("the work-group size {:?} does not fit 16 bits", l.launch.block)));
        };
        let (agent, isa) = self.find_agent(target)?;
        let (kernarg_region, buffer_region) = self.find_regions(agent, &isa)?;
        let queue = self.create_queue(agent)?;
        let symbol = self.load_kernel(agent, l)?;

        // Buffers in, and the explicit arguments.
        let mut args = Vec::with_capacity(params.len());
        let mut buffers = Vec::new();
        for (index, param) in params.iter().enumerate() {
            match param {
                ParamValue::Buffer(bytes) => {
                    let memory = self.allocate(buffer_region, bytes.len())?;
                    self.copy(memory, bytes.as_ptr().cast(), bytes.len())?;
                    args.push(emu::ArgValue::ptr(memory as u64));
                    buffers.push((index, memory));
                }
                ParamValue::Value(bytes) => args.push(emu::ArgValue { bytes: bytes.clone() }),
            }
        }

        // The kernarg segment, laid out by the metadata, in kernarg memory (host-writable).
        let segment = emu::kernarg_segment(kernel, &l.launch, &args).map_err(|e| launch_error(e.to_string()))?;
        let kernarg_bytes = segment.len().max(symbol.kernarg_size as usize);
        let kernarg = self.allocate(kernarg_region, kernarg_bytes)?;
        // SAFETY: `kernarg` holds `kernarg_bytes` host-accessible bytes.
        unsafe {
            ptr::write_bytes(kernarg.cast::<u8>(), 0, kernarg_bytes);
            ptr::copy_nonoverlapping(segment.as_ptr(), kernarg.cast::<u8>(), segment.len());
        }

        let mut completion = Signal { handle: 0 };
        // SAFETY: no consumers listed (any agent may wait); a valid out-pointer.
        self.check("hsa_signal_create", unsafe { (self.api.hsa_signal_create)(1, 0, ptr::null(), &mut completion) })?;
        self.owned.push(Owned::Signal(completion));

        let group_size = symbol
            .group_size
            .checked_add(l.launch.dyn_shared_bytes)
            .ok_or_else(|| launch_error("the shared memory size overflows 32 bits".into()))?;
        let [gx, gy, gz] = l.launch.grid;
        let packet = KernelDispatchPacket {
            header: 0, // `submit` stores it, last
            setup: 0,
            workgroup_size_x: bx,
            workgroup_size_y: by,
            workgroup_size_z: bz,
            reserved0: 0,
            grid_size_x: gx,
            grid_size_y: gy,
            grid_size_z: gz,
            private_segment_size: symbol.private_size,
            group_segment_size: group_size,
            kernel_object: symbol.object,
            kernarg_address: kernarg,
            reserved2: 0,
            completion_signal: completion,
        };
        let setup = emu::grid_dims(&l.launch) << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
        self.submit(queue, &packet, setup);
        self.wait(completion, l.kernel)?;

        // Buffers out.
        for (index, memory) in buffers {
            if let ParamValue::Buffer(bytes) = &mut params[index] {
                self.copy(bytes.as_mut_ptr().cast(), memory, bytes.len())?;
            }
        }
        Ok(())
    }

    /// A single-producer queue on `agent`, of the smallest size it takes (plenty for one
    /// packet), whose errors land in `queue_error`.
    fn create_queue(&mut self, agent: Agent) -> Result<*mut Queue, GpuError> {
        let size = self.agent_info(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, 0u32)?;
        let mut queue: *mut Queue = ptr::null_mut();
        let error_flag = ptr::from_ref::<AtomicU32>(&self.queue_error).cast_mut().cast();
        // SAFETY: the callback matches hsa.h; `error_flag` outlives the queue (the session
        // owns both, and releases the queue first). UINT32_MAX: no segment-size hints.
        self.check("hsa_queue_create", unsafe {
            (self.api.hsa_queue_create)(
                agent,
                size,
                HSA_QUEUE_TYPE_SINGLE,
                Some(record_queue_error),
                error_flag,
                u32::MAX,
                u32::MAX,
                &mut queue,
            )
        })?;
        self.owned.push(Owned::Queue(queue));
        Ok(queue)
    }

    /// Loads the code object into a frozen executable for `agent` and looks up the kernel's
    /// `NAME.kd` symbol.
    fn load_kernel(&mut self, agent: Agent, l: &GpuLaunch) -> Result<KernelSymbol, GpuError> {
        let api = self.api;
        let mut reader = CodeObjectReader { handle: 0 };
        // SAFETY: the bytes outlive the reader (destroyed with the session).
        self.check("hsa_code_object_reader_create_from_memory", unsafe {
            (api.hsa_code_object_reader_create_from_memory)(
                l.code_object.as_ptr().cast(),
                l.code_object.len(),
                &mut reader,
            )
        })?;
        self.owned.push(Owned::Reader(reader));
        let profile = self.agent_info(agent, HSA_AGENT_INFO_PROFILE, 0u32)?;
        let mut executable = Executable { handle: 0 };
        // SAFETY: null options are allowed; `executable` is a valid out-pointer.
        self.check("hsa_executable_create_alt", unsafe {
            (api.hsa_executable_create_alt)(
                profile,
                HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                ptr::null(),
                &mut executable,
            )
        })?;
        self.owned.push(Owned::Executable(executable));
        // SAFETY: a null loaded-code-object pointer is allowed.
        self.check("hsa_executable_load_agent_code_object", unsafe {
            (api.hsa_executable_load_agent_code_object)(executable, agent, reader, ptr::null(), ptr::null_mut())
        })?;
        // SAFETY: null options are allowed.
        self.check("hsa_executable_freeze", unsafe { (api.hsa_executable_freeze)(executable, ptr::null()) })?;
        let name = CString::new(format!("{}.kd", l.kernel)).map_err(|_| GpuError::Launch {
            kernel: l.kernel.to_string(),
            reason: "its name holds a NUL byte".into(),
        })?;
        let mut symbol = ExecutableSymbol { handle: 0 };
        // SAFETY: a NUL-terminated name and valid pointers.
        self.check("hsa_executable_get_symbol_by_name", unsafe {
            (api.hsa_executable_get_symbol_by_name)(executable, name.as_ptr(), &agent, &mut symbol)
        })?;
        Ok(KernelSymbol {
            object: self.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, 0u64)?,
            kernarg_size: self.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, 0u32)?,
            group_size: self.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, 0u32)?,
            private_size: self.symbol_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, 0u32)?,
        })
    }

    /// Publishes `packet` (whose `header` and `setup` are ignored) on `queue` with `setup`,
    /// and rings the doorbell.
    fn submit(&self, queue: *mut Queue, packet: &KernelDispatchPacket, setup: u16) {
        let api = self.api;
        // SAFETY: the queue is valid until released; `hsa_queue_t` is read-only to us.
        let (ring, ring_size, doorbell) = unsafe { ((*queue).base_address, (*queue).size, (*queue).doorbell_signal) };
        // SAFETY: a valid queue.
        let index = unsafe { (api.hsa_queue_add_write_index_scacq_screl)(queue, 1) };
        // SAFETY: a valid queue. Wait for the slot to be free (a new queue's always is).
        while index.wrapping_sub(unsafe { (api.hsa_queue_load_read_index_scacquire)(queue) }) >= u64::from(ring_size) {
            std::hint::spin_loop();
        }
        // SAFETY: the slot is within the ring, which holds `ring_size` 64-byte packets, and is
        // ours to write until its header says otherwise.
        let slot = unsafe { ring.cast::<KernelDispatchPacket>().add((index % u64::from(ring_size)) as usize) };
        let body = offset_of!(KernelDispatchPacket, workgroup_size_x);
        let header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE)
            | (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE)
            | (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
        // SAFETY: everything after `header` and `setup` first; then those two 16-bit fields as
        // one aligned 32-bit atomic store with release order, so the packet processor, which
        // reads the header first, sees a complete packet (packets are 64-byte aligned).
        unsafe {
            ptr::copy_nonoverlapping(
                ptr::from_ref(packet).cast::<u8>().add(body),
                slot.cast::<u8>().add(body),
                size_of::<KernelDispatchPacket>() - body,
            );
            AtomicU32::from_ptr(slot.cast::<u32>()).store(header | (u32::from(setup) << 16), Ordering::Release);
            (api.hsa_signal_store_screlease)(doorbell, index as SignalValue);
        }
    }

    /// Waits until the packet processor decrements `completion` to 0, watching the queue's
    /// error flag: a faulting kernel never completes.
    fn wait(&self, completion: Signal, kernel: &str) -> Result<(), GpuError> {
        loop {
            // SAFETY: a valid signal.
            let value = unsafe {
                (self.api.hsa_signal_wait_scacquire)(
                    completion,
                    HSA_SIGNAL_CONDITION_LT,
                    1,
                    WAIT_TIMEOUT_HINT,
                    HSA_WAIT_STATE_BLOCKED,
                )
            };
            let error = self.queue_error.load(Ordering::Acquire);
            if error != HSA_STATUS_SUCCESS {
                return Err(GpuError::Queue { kernel: kernel.to_string(), message: status_text(self.api, error) });
            }
            if value < 1 {
                return Ok(());
            }
        }
    }
}

/// What a dispatch packet needs of the kernel's symbol.
struct KernelSymbol {
    /// `HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT`.
    object: u64,
    /// The kernarg segment's size.
    kernarg_size: u32,
    /// Static group (LDS) bytes.
    group_size: u32,
    /// Private bytes per work-item.
    private_size: u32,
}
