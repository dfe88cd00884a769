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
