//! The packet processor of a queue: what the GPU's command processor does, on a thread per
//! queue. Each store to the doorbell rings it; it then processes, in order, every packet
//! from the read index up to the packet ID the doorbell holds, each to completion before the
//! next starts (so a packet's barrier bit always holds), and advances the read index after
//! each.
//!
//! A packet's header is read first (acquire), then the rest. On a single-producer queue the
//! producer rang the doorbell after writing the packet, so a header still INVALID is its
//! error (the header must be written last, and before the doorbell); on a multi-producer
//! queue another producer may still be writing it, and the processor waits for it, as the
//! hardware does. A kernel dispatch is checked as the hardware and ROCm's runtime would fail
//! it (dimensions, reserved fields, a kernel object of a frozen executable loaded for the
//! queue's agent, segment sizes at least the kernel's, a 16-byte aligned kernarg segment
//! inside an allocation), then run by [`emu::dispatch_at`] on a snapshot of memory; the
//! completion signal is decremented once the results are written back. Barrier-AND and
//! barrier-OR packets wait for their signals.
//!
//! Any failure stops the queue: the emulator's message goes to stderr, and the status to the
//! queue's callback, on this thread; without a callback the process aborts (ROCm's runtime
//! does the same).

use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Duration;

use crate::abi::*;
use crate::queue::QueueState;
use crate::runtime::with;
use crate::signal::lookup;

/// How often a waiting processor looks at its stop flag.
const POLL: Duration = Duration::from_millis(20);

/// Why a packet failed: the status for the callback, and the message for stderr.
struct Failure {
    status: Status,
    detail: String,
}

fn invalid(detail: String) -> Failure {
    Failure { status: HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, detail }
}

/// The processor's thread.
pub(crate) fn run(queue: &QueueState) {
    // The doorbell is new: no ring has been seen, whether or not one came before this
    // thread started.
    let mut seen = 0;
    while !stopped(queue) {
        seen = queue.doorbell.wait_change(seen, POLL);
        let rung = queue.doorbell.load();
        loop {
            let next = queue.read_index.load(Ordering::SeqCst);
            if stopped(queue) || rung < 0 || next > rung as u64 {
                break;
            }
            let result = if rung as u64 >= queue.write_index.load(Ordering::SeqCst) {
                Err(invalid(format!(
                    "the doorbell holds packet ID {rung}, but the write index is {}: no such packet was reserved",
                    queue.write_index.load(Ordering::SeqCst)
                )))
            } else {
                process(queue, next)
            };
            match result {
                // A processor stopped while it waited leaves the packet unprocessed.
                Ok(()) if stopped(queue) => return,
                Ok(()) => queue.read_index.store(next + 1, Ordering::SeqCst),
                Err(failure) => return report(queue, next, &failure),
            }
        }
    }
}

fn stopped(queue: &QueueState) -> bool {
    queue.stop.load(Ordering::SeqCst)
}

/// Reports a failure and leaves the queue stopped.
fn report(queue: &QueueState, packet: u64, failure: &Failure) {
    queue.stop.store(true, Ordering::SeqCst);
    eprintln!("gcnc-hsa: queue {}: packet {packet}: {}", queue.id, failure.detail);
    match queue.callback {
        // SAFETY: the program gave the callback and its data with the queue, which exists
        // until the processor has stopped.
        Some(callback) => unsafe { callback(failure.status, queue.public as *mut Queue, queue.data as *mut _) },
        None => std::process::abort(),
    }
}

/// Processes the packet with ID `id`.
fn process(queue: &QueueState, id: u64) -> Result<(), Failure> {
    let slot = queue.ring + 64 * (id % u64::from(queue.size));
    // SAFETY: the slot is within the ring, 64-byte aligned; the producer writes the header
    // with an atomic store.
    let header_word = unsafe { AtomicU16::from_ptr(slot as *mut u16) };
    let mut header = header_word.load(Ordering::Acquire);
    while packet_type(header) == HSA_PACKET_TYPE_INVALID {
        if queue.kind == HSA_QUEUE_TYPE_SINGLE {
            return Err(invalid(format!(
                "the doorbell was rung for packet {id}, whose header is still INVALID: write the packet, then its \
                 header (last, with release order), then ring the doorbell"
            )));
        }
        if stopped(queue) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(1));
        header = header_word.load(Ordering::Acquire);
    }
    for (what, shift) in
        [("acquire", HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE), ("release", HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE)]
    {
        let scope = (u32::from(header) >> shift) & ((1 << HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE) - 1);
        if scope > HSA_FENCE_SCOPE_SYSTEM {
            return Err(invalid(format!("packet {id}'s {what} fence scope is {scope}, which names no scope")));
        }
    }
    match packet_type(header) {
        HSA_PACKET_TYPE_KERNEL_DISPATCH => {
            // SAFETY: a whole packet, read after its header.
            let packet = unsafe { (slot as *const KernelDispatchPacket).read_volatile() };
            dispatch(queue, slot, &packet)
        }
        t @ (HSA_PACKET_TYPE_BARRIER_AND | HSA_PACKET_TYPE_BARRIER_OR) => {
            // SAFETY: as above.
            let packet = unsafe { (slot as *const BarrierPacket).read_volatile() };
            barrier(queue, &packet, t == HSA_PACKET_TYPE_BARRIER_AND)
        }
        t => Err(invalid(format!("packet {id} has type {t}, which gcnc's software agent does not process"))),
    }
}

fn packet_type(header: u16) -> u32 {
    u32::from(header) & ((1 << HSA_PACKET_HEADER_WIDTH_TYPE) - 1)
}

/// Decrements a completion signal (handle 0: none).
fn complete(signal: Signal) -> Result<(), Failure> {
    if signal.handle == 0 {
        return Ok(());
    }
    let signal = lookup(signal).map_err(|status| Failure {
        status,
        detail: format!("the completion signal {:#x} is not a signal", signal.handle),
    })?;
    signal.update(|v| v.fetch_sub(1, Ordering::SeqCst));
    Ok(())
}

fn dispatch(queue: &QueueState, slot: u64, p: &KernelDispatchPacket) -> Result<(), Failure> {
    let dims = u32::from(p.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS)
        & ((1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) - 1);
    if dims == 0 {
        return Err(invalid("the packet's setup gives 0 dimensions (1 to 3 are valid)".into()));
    }
    if p.reserved0 != 0 || p.reserved2 != 0 {
        return Err(invalid("the packet's reserved fields are not 0".into()));
    }
    let block = [p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z].map(u32::from);
    let grid = [p.grid_size_x, p.grid_size_y, p.grid_size_z];
    for d in dims as usize..3 {
        if block[d] != 1 || grid[d] != 1 {
            return Err(invalid(format!(
                "the packet has {dims} dimensions, but its work-group size {block:?} or grid size {grid:?} is not 1 \
                 beyond them"
            )));
        }
    }
    if !p.kernarg_address.is_multiple_of(16) {
        return Err(invalid(format!("the kernarg segment at {:#x} is not 16-byte aligned", p.kernarg_address)));
    }
    let (program, kernel) = with(|rt| Ok(crate::loader::dispatchable(rt, p.kernel_object, queue.agent)))
        .map_err(|status| Failure { status, detail: "the runtime was shut down".into() })?
        .map_err(invalid)?;
    let k = program.kernel(&kernel).expect("a loaded kernel symbol names a kernel of its program");
    let desc = k.descriptor();
    if p.group_segment_size < desc.group_segment_fixed_size {
        return Err(invalid(format!(
            "the packet's group segment size {} is less than kernel {kernel}'s {}",
            p.group_segment_size, desc.group_segment_fixed_size
        )));
    }
    if p.private_segment_size < desc.private_segment_fixed_size {
        return Err(invalid(format!(
            "the packet's private segment size {} is less than kernel {kernel}'s {}",
            p.private_segment_size, desc.private_segment_fixed_size
        )));
    }
    if p.completion_signal.handle != 0 {
        lookup(p.completion_signal).map_err(|status| Failure {
            status,
            detail: format!("the completion signal {:#x} is not a signal", p.completion_signal.handle),
        })?;
    }
    let launch = emu::Launch { grid, block, dyn_shared_bytes: p.group_segment_size - desc.group_segment_fixed_size };
    let mut snapshot = with(|rt| Ok(rt.memory.snapshot()))
        .map_err(|status| Failure { status, detail: "the runtime was shut down".into() })?;
    let options = emu::Options::default();
    emu::dispatch_at(&mut snapshot.device, &program, &kernel, &launch, p.kernarg_address, slot, &options)
        .map_err(|e| Failure { status: status_of(&e), detail: e.to_string() })?;
    with(|rt| {
        rt.memory.write_back(&snapshot);
        Ok(())
    })
    .map_err(|status| Failure { status, detail: "the runtime was shut down".into() })?;
    complete(p.completion_signal)
}

/// The status a queue reports for an emulator error, as ROCm's runtime reports the hardware's.
fn status_of(error: &emu::EmuError) -> Status {
    use emu::FaultKind::*;
    match error {
        emu::EmuError::Launch(_) | emu::EmuError::Load(_) => HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
        emu::EmuError::Fault { kind: OutOfBounds { .. }, .. } => HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION,
        emu::EmuError::Fault { kind: Unimplemented { .. } | Malformed { .. } | BadPc { .. }, .. } => {
            HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION
        }
        _ => HSA_STATUS_ERROR_EXCEPTION,
    }
}

/// A barrier-AND (every signal 0) or barrier-OR (any signal 0) packet.
fn barrier(queue: &QueueState, p: &BarrierPacket, all: bool) -> Result<(), Failure> {
    if p.reserved0 != 0 || p.reserved1 != 0 || p.reserved2 != 0 {
        return Err(invalid("the barrier packet's reserved fields are not 0".into()));
    }
    let signals = p
        .dep_signal
        .iter()
        .filter(|s| s.handle != 0)
        .map(|&s| {
            lookup(s).map_err(|status| Failure {
                status,
                detail: format!("the dependency signal {:#x} is not a signal", s.handle),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    loop {
        let zero = signals.iter().filter(|s| s.load() == 0).count();
        let passed = if all { zero == signals.len() } else { zero > 0 || signals.is_empty() };
        if passed {
            return complete(p.completion_signal);
        }
        if stopped(queue) {
            return Ok(());
        }
        // Wait on one that is not 0 yet (for AND, any; for OR, the first), a while at most.
        if let Some(s) = signals.iter().find(|s| s.load() != 0) {
            let deadline = std::time::Instant::now() + POLL;
            s.wait(HSA_SIGNAL_CONDITION_EQ, 0, Some(deadline));
        }
    }
}
