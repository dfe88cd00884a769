//! The entry points called as a C program calls them, for what the C sample
//! (`gcnc/tests/hsa/vector_copy.c`) does not reach: signal conditions, timeouts and
//! read-modify-writes, queue and memory arguments that must be refused, the agents' answers.
//! Each test holds the runtime between its own `hsa_init` and `hsa_shut_down` (the runtime
//! counts them, so tests running at once share it).

use std::ffi::c_void;
use std::ptr;
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::agent::*;
use crate::memory::*;
use crate::queue::*;
use crate::runtime::*;
use crate::signal::*;

/// Runs `body` between `hsa_init` and `hsa_shut_down`.
fn session(body: impl FnOnce()) {
    assert_eq!(hsa_init(), HSA_STATUS_SUCCESS);
    body();
    assert_eq!(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

fn signal(value: SignalValue) -> Signal {
    let mut s = Signal::default();
    // SAFETY: a valid out-pointer, no consumers.
    assert_eq!(unsafe { hsa_signal_create(value, 0, ptr::null(), &mut s) }, HSA_STATUS_SUCCESS);
    s
}

fn agents() -> Vec<Agent> {
    unsafe extern "C" fn push(agent: Agent, data: *mut c_void) -> Status {
        // SAFETY: `data` is the Vec below.
        unsafe { (*data.cast::<Vec<Agent>>()).push(agent) };
        HSA_STATUS_SUCCESS
    }
    let mut all = Vec::new();
    // SAFETY: the callback matches `data`.
    assert_eq!(unsafe { hsa_iterate_agents(Some(push), ptr::from_mut(&mut all).cast()) }, HSA_STATUS_SUCCESS);
    all
}

fn info<T: Default>(agent: Agent, attribute: u32) -> T {
    let mut value = T::default();
    // SAFETY: `T` is the attribute's type.
    assert_eq!(unsafe { hsa_agent_get_info(agent, attribute, ptr::from_mut(&mut value).cast()) }, HSA_STATUS_SUCCESS);
    value
}

#[test]
fn waits_honor_their_condition_and_timeout() {
    session(|| {
        let s = signal(1);
        let frequency = {
            let mut f = 0u64;
            // SAFETY: a uint64_t attribute.
            unsafe { hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, ptr::from_mut(&mut f).cast()) };
            f
        };
        // Conditions that hold return at once with the value.
        for (condition, compare) in [
            (HSA_SIGNAL_CONDITION_EQ, 1),
            (HSA_SIGNAL_CONDITION_NE, 0),
            (HSA_SIGNAL_CONDITION_LT, 2),
            (HSA_SIGNAL_CONDITION_GTE, 1),
        ] {
            assert_eq!(hsa_signal_wait_scacquire(s, condition, compare, u64::MAX, 0), 1);
        }
        // One that does not hold times out after the hint (20 ms), with the value it saw.
        let start = Instant::now();
        assert_eq!(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_LT, 1, frequency / 50, 0), 1);
        assert!(start.elapsed() >= Duration::from_millis(20), "{:?}", start.elapsed());
        // A store from another thread ends an unbounded wait.
        let storer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            hsa_signal_store_screlease(s, -4);
        });
        assert_eq!(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 0, u64::MAX, 0), -4);
        storer.join().unwrap();
        assert_eq!(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
    });
}

#[test]
fn read_modify_writes_return_what_they_saw() {
    session(|| {
        let s = signal(10);
        hsa_signal_add_relaxed(s, 5);
        hsa_signal_subtract_scacq_screl(s, 20);
        assert_eq!(hsa_signal_load_relaxed(s), -5);
        assert_eq!(hsa_signal_exchange_scacquire(s, 0b1100), -5);
        hsa_signal_and_release(s, 0b1010);
        hsa_signal_or_acquire(s, 0b0001);
        hsa_signal_xor_acq_rel(s, 0b1111);
        assert_eq!(hsa_signal_load_scacquire(s), 0b0110);
        // A compare-and-swap that fails changes nothing and returns the value it found.
        assert_eq!(hsa_signal_cas_screlease(s, 7, 99), 0b0110);
        assert_eq!(hsa_signal_cas_relaxed(s, 0b0110, 99), 0b0110);
        assert_eq!(hsa_signal_load_acquire(s), 99);
        assert_eq!(hsa_signal_destroy(s), HSA_STATUS_SUCCESS);
        // A destroyed signal is no signal.
        assert_eq!(hsa_signal_destroy(s), HSA_STATUS_ERROR_INVALID_SIGNAL);
        assert_eq!(hsa_signal_load_relaxed(s), 0);
    });
}

#[test]
fn agents_answer_for_their_processors() {
    session(|| {
        let all = agents();
        assert!(all.len() >= 2, "a CPU and at least one GPU");
        assert_eq!(info::<u32>(all[0], HSA_AGENT_INFO_DEVICE), HSA_DEVICE_TYPE_CPU);
        for &gpu in &all[1..] {
            assert_eq!(info::<u32>(gpu, HSA_AGENT_INFO_DEVICE), HSA_DEVICE_TYPE_GPU);
            let name: [u8; 64] = {
                let mut n = [0u8; 64];
                // SAFETY: a char[64] attribute.
                unsafe { hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, n.as_mut_ptr().cast()) };
                n
            };
            let name = std::str::from_utf8(&name[..name.iter().position(|&b| b == 0).unwrap()]).unwrap().to_string();
            let processor = isa::processor::Processor::find(&name).expect("the agent names a processor");
            assert!(processor.verified, "{name}");
            assert_eq!(info::<u32>(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE), processor.default_wave_size());
            assert_eq!(info::<u32>(gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE), QUEUE_MIN_SIZE);
        }
        let mut nothing = 0u32;
        // SAFETY: as above.
        let status = unsafe { hsa_agent_get_info(all[1], 0xdead, ptr::from_mut(&mut nothing).cast()) };
        assert_eq!(status, HSA_STATUS_ERROR_INVALID_ARGUMENT);
        let status = unsafe {
            hsa_agent_get_info(Agent { handle: 7 }, HSA_AGENT_INFO_DEVICE, ptr::from_mut(&mut nothing).cast())
        };
        assert_eq!(status, HSA_STATUS_ERROR_INVALID_AGENT);
    });
}

#[test]
fn queues_and_memory_refuse_what_the_specification_forbids() {
    session(|| {
        let all = agents();
        let (cpu, gpu) = (all[0], all[1]);
        let mut queue: *mut Queue = ptr::null_mut();
        let create = |agent, size, kind, queue: &mut *mut Queue| {
            // SAFETY: a valid out-pointer; no callback.
            unsafe { hsa_queue_create(agent, size, kind, None, ptr::null_mut(), u32::MAX, u32::MAX, queue) }
        };
        assert_eq!(create(gpu, 100, HSA_QUEUE_TYPE_SINGLE, &mut queue), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(
            create(gpu, 2 * QUEUE_MAX_SIZE, HSA_QUEUE_TYPE_SINGLE, &mut queue),
            HSA_STATUS_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            create(cpu, QUEUE_MIN_SIZE, HSA_QUEUE_TYPE_SINGLE, &mut queue),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION
        );
        assert_eq!(create(gpu, QUEUE_MIN_SIZE, HSA_QUEUE_TYPE_MULTI, &mut queue), HSA_STATUS_SUCCESS);
        // The write index is the program's; the read index the processor's.
        assert_eq!(hsa_queue_add_write_index_relaxed(queue, 3), 0);
        assert_eq!(hsa_queue_cas_write_index_scacq_screl(queue, 1, 9), 3);
        assert_eq!(hsa_queue_cas_write_index_relaxed(queue, 3, 1), 3);
        assert_eq!(hsa_queue_load_write_index_scacquire(queue), 1);
        assert_eq!(hsa_queue_load_read_index_relaxed(queue), 0);
        // Every packet of a new ring is INVALID.
        // SAFETY: the ring holds QUEUE_MIN_SIZE packets.
        let headers: Vec<u16> =
            (0..QUEUE_MIN_SIZE as usize).map(|i| unsafe { *(*queue).base_address.cast::<u16>().add(32 * i) }).collect();
        assert!(headers.iter().all(|&h| u32::from(h) == HSA_PACKET_TYPE_INVALID), "{headers:?}");
        // The ring is the runtime's, not the program's to free.
        // SAFETY: reading the program's view of the queue.
        let ring = unsafe { (*queue).base_address };
        assert_eq!(hsa_memory_free(ring), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(hsa_queue_destroy(queue), HSA_STATUS_SUCCESS);
        assert_eq!(hsa_queue_destroy(queue), HSA_STATUS_ERROR_INVALID_QUEUE);

        // A copy that runs past an allocation is refused; one within it is done.
        unsafe extern "C" fn push(region: Region, data: *mut c_void) -> Status {
            // SAFETY: `data` is the Vec below.
            unsafe { (*data.cast::<Vec<Region>>()).push(region) };
            HSA_STATUS_SUCCESS
        }
        let mut regions: Vec<Region> = Vec::new();
        // SAFETY: the callback matches `data`.
        unsafe { hsa_agent_iterate_regions(gpu, Some(push), ptr::from_mut(&mut regions).cast()) };
        let flags = |region: Region| {
            let mut flags = 0u32;
            // SAFETY: a uint32_t attribute (refused for the group region, which keeps 0).
            unsafe { hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, ptr::from_mut(&mut flags).cast()) };
            flags
        };
        let region = *regions.iter().find(|&&r| flags(r) == HSA_REGION_GLOBAL_FLAG_FINE_GRAINED).unwrap();
        let mut memory: *mut c_void = ptr::null_mut();
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { hsa_memory_allocate(region, 0, &mut memory) }, HSA_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(unsafe { hsa_memory_allocate(region, 100, &mut memory) }, HSA_STATUS_SUCCESS);
        assert_eq!(memory as u64 % (1 << 32), 0, "allocations start a 4 GiB window");
        let source = [7u8; 200];
        // SAFETY: `source` has 200 bytes; `memory` 100 (the runtime must refuse the overrun).
        assert_eq!(unsafe { hsa_memory_copy(memory, source.as_ptr().cast(), 200) }, HSA_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(unsafe { hsa_memory_copy(memory, source.as_ptr().cast(), 100) }, HSA_STATUS_SUCCESS);
        // SAFETY: 100 bytes were copied in.
        assert_eq!(unsafe { std::slice::from_raw_parts(memory.cast::<u8>(), 100) }, &source[..100]);
        assert_eq!(hsa_memory_free(memory), HSA_STATUS_SUCCESS);
        assert_eq!(hsa_memory_free(memory), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        assert_eq!(hsa_memory_free(ptr::null_mut()), HSA_STATUS_SUCCESS);
    });
}

/// The C sample's OpenCL kernel compiled by clang-19 for `cpu` (`-c`: relocatable).
fn clang_object(cpu: &str, relocatable: bool) -> Vec<u8> {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gcnc/tests/hsa/vector_copy.cl");
    let out = std::env::temp_dir().join(format!("gcnc-hsa-loader-{cpu}-{relocatable}-{}.o", std::process::id()));
    let mut clang = std::process::Command::new("clang-19");
    clang.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2"]);
    clang.arg(format!("-mcpu={cpu}")).arg(&source).arg("-o").arg(&out);
    if relocatable {
        clang.arg("-c");
    }
    let status = clang.output().expect("clang-19 runs (scripts/test.sh installs it)");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    bytes
}

fn reader(bytes: &[u8]) -> CodeObjectReader {
    let mut reader = CodeObjectReader::default();
    // SAFETY: the bytes and a valid out-pointer.
    let status = unsafe {
        crate::loader::hsa_code_object_reader_create_from_memory(bytes.as_ptr().cast(), bytes.len(), &mut reader)
    };
    assert_eq!(status, HSA_STATUS_SUCCESS);
    reader
}

fn executable() -> Executable {
    let mut exec = Executable::default();
    // SAFETY: a valid out-pointer.
    let status = unsafe {
        crate::loader::hsa_executable_create_alt(
            HSA_PROFILE_BASE,
            HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
            ptr::null(),
            &mut exec,
        )
    };
    assert_eq!(status, HSA_STATUS_SUCCESS);
    exec
}

/// The GPU agent whose `HSA_AGENT_INFO_NAME` is `name`.
fn gpu_named(name: &str) -> Agent {
    agents()
        .into_iter()
        .find(|&a| {
            let mut n = [0u8; 64];
            // SAFETY: a char[64] attribute.
            unsafe { hsa_agent_get_info(a, HSA_AGENT_INFO_NAME, n.as_mut_ptr().cast()) };
            n.starts_with(name.as_bytes()) && n[name.len()] == 0
        })
        .unwrap_or_else(|| panic!("no {name} agent (GCNC_HSA_AGENTS leaves it out?)"))
}

#[test]
fn the_loader_takes_what_rocm_takes() {
    use crate::loader::*;
    session(|| {
        let (gfx1100, gfx942) = (gpu_named("gfx1100"), gpu_named("gfx942"));
        let object = clang_object("gfx1100", false);
        let load = |exec, agent, bytes: &[u8]| {
            let r = reader(bytes);
            // SAFETY: a null loaded-code-object pointer is allowed.
            let status = unsafe { hsa_executable_load_agent_code_object(exec, agent, r, ptr::null(), ptr::null_mut()) };
            assert_eq!(hsa_code_object_reader_destroy(r), HSA_STATUS_SUCCESS);
            status
        };
        let exec = executable();
        // Another processor's code, and a relocatable object, are refused.
        assert_eq!(load(exec, gfx942, &object), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
        assert_eq!(load(exec, gfx1100, &clang_object("gfx1100", true)), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
        assert_eq!(load(exec, gfx1100, b"not an ELF file"), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
        assert_eq!(load(exec, gfx1100, &object), HSA_STATUS_SUCCESS);
        assert_eq!(load(exec, gfx1100, &object), HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
        assert_eq!(hsa_executable_freeze(exec, ptr::null()), HSA_STATUS_SUCCESS);
        assert_eq!(hsa_executable_freeze(exec, ptr::null()), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
        assert_eq!(load(exec, gfx1100, &object), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);

        // Kernel symbols are `NAME.kd`, for the agent they were loaded for.
        let find = |name: &std::ffi::CStr, agent: Option<&Agent>| {
            let mut symbol = ExecutableSymbol::default();
            let agent = agent.map_or(ptr::null(), ptr::from_ref);
            // SAFETY: a NUL-terminated name, a valid out-pointer.
            let status = unsafe { hsa_executable_get_symbol_by_name(exec, name.as_ptr(), agent, &mut symbol) };
            (status, symbol)
        };
        assert_eq!(find(c"vector_copy", Some(&gfx1100)).0, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
        assert_eq!(find(c"vector_copy.kd", None).0, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
        assert_eq!(find(c"vector_copy.kd", Some(&gfx942)).0, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
        let (status, symbol) = find(c"vector_copy.kd", Some(&gfx1100));
        assert_eq!(status, HSA_STATUS_SUCCESS);

        // Its sizes are the code object's, as runtime-abi reads them.
        let read = runtime_abi::read(&object).unwrap();
        let kernel = &read.kernels[0];
        let meta = read.metadata.as_ref().unwrap().kernels.iter().find(|k| k.name == "vector_copy").unwrap();
        let symbol_info = |attribute| {
            let mut value = 0u32;
            // SAFETY: a uint32_t attribute.
            let status = unsafe { hsa_executable_symbol_get_info(symbol, attribute, ptr::from_mut(&mut value).cast()) };
            assert_eq!(status, HSA_STATUS_SUCCESS);
            value
        };
        assert_eq!(symbol_info(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE), meta.kernarg_segment_size);
        assert_eq!(
            symbol_info(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
            kernel.descriptor.group_segment_fixed_size
        );
        assert_eq!(
            symbol_info(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE),
            kernel.descriptor.private_segment_fixed_size
        );
        assert_eq!(symbol_info(HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH), "vector_copy.kd".len() as u32);
        assert_eq!(symbol_info(HSA_EXECUTABLE_SYMBOL_INFO_TYPE), HSA_SYMBOL_KIND_KERNEL);
        assert_eq!(hsa_executable_destroy(exec), HSA_STATUS_SUCCESS);
        assert_eq!(hsa_executable_destroy(exec), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
        assert_eq!(symbol_info_status(symbol), HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    });
}

fn symbol_info_status(symbol: ExecutableSymbol) -> Status {
    let mut value = 0u32;
    // SAFETY: a uint32_t attribute.
    unsafe {
        crate::loader::hsa_executable_symbol_get_info(
            symbol,
            HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
            ptr::from_mut(&mut value).cast(),
        )
    }
}
