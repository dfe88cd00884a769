//! User-mode queues: `hsa_queue_create` gives the program an `hsa_queue_t` whose ring of AQL
//! packets lives in shared memory (every header INVALID at first, as the specification
//! requires), a doorbell signal, and a write index the program bumps with the
//! `hsa_queue_*_write_index_*` family; the queue's packet processor (`processor.rs`), a
//! thread of its own, owns the read index. `hsa_queue_destroy` and `hsa_queue_inactivate`
//! stop it.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::abi::*;
use crate::agent::{agent_index, AgentKind, QUEUE_MAX_SIZE, QUEUE_MIN_SIZE};
use crate::runtime::with;
use crate::signal::{register, SignalObj};
use crate::{entry, put};

/// The queue's error callback.
pub(crate) type ErrorCallback = unsafe extern "C" fn(Status, *mut Queue, *mut c_void);

/// What the program and the packet processor share.
pub(crate) struct QueueState {
    /// The queue's ID.
    pub(crate) id: u64,
    /// The agent's index.
    pub(crate) agent: usize,
    /// `HSA_QUEUE_TYPE_SINGLE` or `_MULTI`.
    pub(crate) kind: u32,
    /// The ring's address.
    pub(crate) ring: u64,
    /// Packets in the ring.
    pub(crate) size: u32,
    pub(crate) write_index: AtomicU64,
    pub(crate) read_index: AtomicU64,
    pub(crate) doorbell: Arc<SignalObj>,
    /// Set to stop the processor.
    pub(crate) stop: AtomicBool,
    /// The program's `hsa_queue_t`, for the callback (an address: the state crosses threads).
    pub(crate) public: usize,
    pub(crate) callback: Option<ErrorCallback>,
    /// The callback's data (an address).
    pub(crate) data: usize,
}

/// The program's `hsa_queue_t`, boxed so its address is fixed.
struct PublicQueue {
    _queue: Box<Queue>,
}

// SAFETY: the raw pointer in `Queue` is the ring's address, which the runtime owns; the box
// is only read by the program and freed under the runtime's lock.
unsafe impl Send for PublicQueue {}

/// A live queue.
pub(crate) struct QueueEntry {
    state: Arc<QueueState>,
    _public: PublicQueue,
    processor: Option<JoinHandle<()>>,
}

impl QueueEntry {
    /// Stops the processor and waits for it (without the runtime's lock, which it may need),
    /// unless this is the processor itself (an error callback destroying its queue), which
    /// then ends once the callback returns.
    pub(crate) fn stop(mut self) {
        self.state.stop.store(true, SeqCst);
        self.state.doorbell.update(|_| ());
        if let Some(thread) = self.processor.take() {
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

/// `hsa_queue_create`: a queue of `size` packets on a GPU agent (`private_segment_size` and
/// `group_segment_size` are hints, ignored).
///
/// # Safety
/// `callback` is null or a valid function; `queue` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_queue_create(
    agent: Agent,
    size: u32,
    queue_type: u32,
    callback: Option<ErrorCallback>,
    data: *mut c_void,
    _private_segment_size: u32,
    _group_segment_size: u32,
    queue: *mut *mut Queue,
) -> Status {
    entry(|| {
        if queue.is_null() || !size.is_power_of_two() || !(QUEUE_MIN_SIZE..=QUEUE_MAX_SIZE).contains(&size) {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        if queue_type != HSA_QUEUE_TYPE_SINGLE && queue_type != HSA_QUEUE_TYPE_MULTI {
            return Err(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
        }
        let public = with(|rt| {
            let index = agent_index(&rt.agents, agent)?;
            if !matches!(rt.agents[index], AgentKind::Gpu(_)) {
                return Err(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
            }
            let ring = rt.memory.allocate(size as usize * 64, 64, false)?;
            for slot in 0..size as u64 {
                // SAFETY: the ring holds `size` 64-byte packets, and is fresh.
                unsafe { ((ring + 64 * slot) as *mut u16).write(HSA_PACKET_TYPE_INVALID as u16) };
            }
            let doorbell = SignalObj::new(0, true);
            let doorbell_signal = register(rt, doorbell.clone());
            let id = rt.next_queue_id;
            rt.next_queue_id += 1;
            let mut public = Box::new(Queue {
                r#type: queue_type,
                features: HSA_QUEUE_FEATURE_KERNEL_DISPATCH,
                base_address: ring as *mut c_void,
                doorbell_signal,
                size,
                reserved1: 0,
                id,
            });
            let address = ptr_of(&mut public);
            let state = Arc::new(QueueState {
                id,
                agent: index,
                kind: queue_type,
                ring,
                size,
                write_index: AtomicU64::new(0),
                read_index: AtomicU64::new(0),
                doorbell,
                stop: AtomicBool::new(false),
                public: address,
                callback,
                data: data as usize,
            });
            let processor = {
                let state = state.clone();
                std::thread::Builder::new()
                    .name(format!("gcnc-hsa queue {id}"))
                    .spawn(move || crate::processor::run(&state))
                    .map_err(|_| HSA_STATUS_ERROR_OUT_OF_RESOURCES)?
            };
            rt.queues.insert(
                address,
                QueueEntry { state, _public: PublicQueue { _queue: public }, processor: Some(processor) },
            );
            Ok(address)
        })?;
        // SAFETY: the caller's promise.
        unsafe { put(queue.cast(), public as *mut Queue) }
    })
}

fn ptr_of(queue: &mut Box<Queue>) -> usize {
    std::ptr::from_mut::<Queue>(queue) as usize
}

/// Removes a queue: its processor stopped, its ring and doorbell released.
fn remove(queue: *mut Queue) -> Result<(), Status> {
    if queue.is_null() {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let entry = with(|rt| rt.queues.remove(&(queue as usize)).ok_or(HSA_STATUS_ERROR_INVALID_QUEUE))?;
    let (ring, doorbell) = (entry.state.ring, entry.state.doorbell.clone());
    entry.stop();
    with(|rt| {
        rt.signals.retain(|_, s| !Arc::ptr_eq(s, &doorbell));
        rt.memory.free(ring, false)
    })
}

/// `hsa_queue_destroy`.
#[no_mangle]
pub extern "C" fn hsa_queue_destroy(queue: *mut Queue) -> Status {
    entry(|| remove(queue))
}

/// `hsa_queue_inactivate`: the processor stops; packets not yet processed never are.
#[no_mangle]
pub extern "C" fn hsa_queue_inactivate(queue: *mut Queue) -> Status {
    entry(|| {
        if queue.is_null() {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        with(|rt| {
            let entry = rt.queues.get(&(queue as usize)).ok_or(HSA_STATUS_ERROR_INVALID_QUEUE)?;
            entry.state.stop.store(true, SeqCst);
            entry.state.doorbell.update(|_| ());
            Ok(())
        })
    })
}

/// The state of a program's queue pointer.
fn state(queue: *const Queue) -> Option<Arc<QueueState>> {
    with(|rt| Ok(rt.queues.get(&(queue as usize)).map(|e| e.state.clone()))).ok().flatten()
}

object_entries! {
    queue: *const Queue => state;
    fn [hsa_queue_load_read_index_scacquire, hsa_queue_load_read_index_relaxed, hsa_queue_load_read_index_acquire](q) -> u64 {
        q.read_index.load(SeqCst)
    }
    fn [hsa_queue_load_write_index_scacquire, hsa_queue_load_write_index_relaxed, hsa_queue_load_write_index_acquire](q) -> u64 {
        q.write_index.load(SeqCst)
    }
    fn [hsa_queue_store_write_index_relaxed, hsa_queue_store_write_index_screlease, hsa_queue_store_write_index_release](q, value: u64) -> () {
        q.write_index.store(value, SeqCst)
    }
    fn [
        hsa_queue_cas_write_index_scacq_screl, hsa_queue_cas_write_index_scacquire, hsa_queue_cas_write_index_screlease,
        hsa_queue_cas_write_index_relaxed, hsa_queue_cas_write_index_acq_rel, hsa_queue_cas_write_index_acquire,
        hsa_queue_cas_write_index_release
    ](q, expected: u64, value: u64) -> u64 {
        q.write_index.compare_exchange(expected, value, SeqCst, SeqCst).unwrap_or_else(|seen| seen)
    }
    fn [
        hsa_queue_add_write_index_scacq_screl, hsa_queue_add_write_index_scacquire, hsa_queue_add_write_index_screlease,
        hsa_queue_add_write_index_relaxed, hsa_queue_add_write_index_acq_rel, hsa_queue_add_write_index_acquire,
        hsa_queue_add_write_index_release
    ](q, value: u64) -> u64 {
        q.write_index.fetch_add(value, SeqCst)
    }
}
