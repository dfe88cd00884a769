//! Signals: a 64-bit value that the host, and the packet processor when a packet completes,
//! change, and that waits watch (`hsa_signal_wait_*` with a condition and a timeout). Every
//! memory-order variant of an operation (`_relaxed`, `_scacquire`, `_screlease`,
//! `_scacq_screl` and their deprecated spellings) is sequentially consistent here.
//!
//! Each change but a silent store bumps a generation count under the signal's mutex and wakes
//! its waiters; a queue's packet processor waits on its doorbell's generation, so each store
//! to a doorbell rings it.

use std::sync::atomic::{AtomicI64, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::abi::*;
use crate::runtime::{with, TIMESTAMP_FREQUENCY};
use crate::{entry, put};

/// A signal.
pub(crate) struct SignalObj {
    value: AtomicI64,
    /// Changes so far.
    generation: Mutex<u64>,
    changed: Condvar,
    /// A queue's doorbell, which only the queue destroys.
    pub(crate) doorbell: bool,
}

impl SignalObj {
    pub(crate) fn new(value: SignalValue, doorbell: bool) -> Arc<SignalObj> {
        Arc::new(SignalObj {
            value: AtomicI64::new(value),
            generation: Mutex::new(0),
            changed: Condvar::new(),
            doorbell,
        })
    }

    pub(crate) fn load(&self) -> SignalValue {
        self.value.load(SeqCst)
    }

    /// Applies `op` to the value, then wakes the waiters; `op`'s result.
    pub(crate) fn update<T>(&self, op: impl FnOnce(&AtomicI64) -> T) -> T {
        let result = op(&self.value);
        *self.generation.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.changed.notify_all();
        result
    }

    /// Waits until the generation differs from `seen`, or `timeout` passes; the generation.
    pub(crate) fn wait_change(&self, seen: u64, timeout: Duration) -> u64 {
        let guard = self.generation.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) =
            self.changed.wait_timeout_while(guard, timeout, |g| *g == seen).unwrap_or_else(PoisonError::into_inner);
        *guard
    }

    /// Waits until `condition` holds of the value against `compare`, or the deadline; the
    /// value last seen.
    pub(crate) fn wait(&self, condition: u32, compare: SignalValue, deadline: Option<Instant>) -> SignalValue {
        let holds = |v: SignalValue| match condition {
            HSA_SIGNAL_CONDITION_EQ => v == compare,
            HSA_SIGNAL_CONDITION_NE => v != compare,
            HSA_SIGNAL_CONDITION_LT => v < compare,
            _ => v >= compare,
        };
        let mut guard = self.generation.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let value = self.load();
            if holds(value) {
                return value;
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => return value,
                },
                // A wake-up now and then costs nothing and covers a silent store.
                None => Duration::from_millis(100),
            };
            guard = self.changed.wait_timeout(guard, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }
}

/// The signal of a handle.
pub(crate) fn lookup(signal: Signal) -> Result<Arc<SignalObj>, Status> {
    with(|rt| rt.signals.get(&signal.handle).cloned().ok_or(HSA_STATUS_ERROR_INVALID_SIGNAL))
}

/// The signal of a handle, if it is one.
fn find(signal: Signal) -> Option<Arc<SignalObj>> {
    lookup(signal).ok()
}

/// Registers a new signal; its handle.
pub(crate) fn register(rt: &mut crate::runtime::Runtime, obj: Arc<SignalObj>) -> Signal {
    let handle = rt.handle();
    rt.signals.insert(handle, obj);
    Signal { handle }
}

/// `hsa_signal_create`: `num_consumers` and `consumers` are checked and otherwise ignored
/// (every agent may wait on every signal).
///
/// # Safety
/// `consumers` holds `num_consumers` agents; `signal` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_signal_create(
    initial_value: SignalValue,
    num_consumers: u32,
    consumers: *const Agent,
    signal: *mut Signal,
) -> Status {
    entry(|| {
        if signal.is_null() || (num_consumers > 0 && consumers.is_null()) {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        let handle = with(|rt| {
            for i in 0..num_consumers as usize {
                // SAFETY: the caller's promise.
                crate::agent::agent_index(&rt.agents, unsafe { consumers.add(i).read() })?;
            }
            Ok(register(rt, SignalObj::new(initial_value, false)))
        })?;
        // SAFETY: the caller's promise.
        unsafe { put(signal.cast(), handle) }
    })
}

/// `hsa_signal_destroy`: not a queue's doorbell.
#[no_mangle]
pub extern "C" fn hsa_signal_destroy(signal: Signal) -> Status {
    entry(|| {
        if signal.handle == 0 {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        with(|rt| match rt.signals.get(&signal.handle) {
            Some(s) if !s.doorbell => {
                rt.signals.remove(&signal.handle);
                Ok(())
            }
            _ => Err(HSA_STATUS_ERROR_INVALID_SIGNAL),
        })
    })
}

object_entries! {
    signal: Signal => find;
    fn [hsa_signal_load_scacquire, hsa_signal_load_relaxed, hsa_signal_load_acquire](s) -> SignalValue {
        s.load()
    }
    fn [hsa_signal_store_relaxed, hsa_signal_store_screlease, hsa_signal_store_release](s, value: SignalValue) -> () {
        s.update(|v| v.store(value, SeqCst))
    }
    fn [hsa_signal_silent_store_relaxed, hsa_signal_silent_store_screlease](s, value: SignalValue) -> () {
        s.value.store(value, SeqCst)
    }
    fn [
        hsa_signal_exchange_scacq_screl, hsa_signal_exchange_scacquire, hsa_signal_exchange_screlease,
        hsa_signal_exchange_relaxed, hsa_signal_exchange_acq_rel, hsa_signal_exchange_acquire,
        hsa_signal_exchange_release
    ](s, value: SignalValue) -> SignalValue {
        s.update(|v| v.swap(value, SeqCst))
    }
    fn [
        hsa_signal_cas_scacq_screl, hsa_signal_cas_scacquire, hsa_signal_cas_screlease, hsa_signal_cas_relaxed,
        hsa_signal_cas_acq_rel, hsa_signal_cas_acquire, hsa_signal_cas_release
    ](s, expected: SignalValue, value: SignalValue) -> SignalValue {
        s.update(|v| v.compare_exchange(expected, value, SeqCst, SeqCst).unwrap_or_else(|seen| seen))
    }
    fn [
        hsa_signal_add_scacq_screl, hsa_signal_add_scacquire, hsa_signal_add_screlease, hsa_signal_add_relaxed,
        hsa_signal_add_acq_rel, hsa_signal_add_acquire, hsa_signal_add_release
    ](s, value: SignalValue) -> () {
        s.update(|v| v.fetch_add(value, SeqCst));
    }
    fn [
        hsa_signal_subtract_scacq_screl, hsa_signal_subtract_scacquire, hsa_signal_subtract_screlease,
        hsa_signal_subtract_relaxed, hsa_signal_subtract_acq_rel, hsa_signal_subtract_acquire,
        hsa_signal_subtract_release
    ](s, value: SignalValue) -> () {
        s.update(|v| v.fetch_sub(value, SeqCst));
    }
    fn [
        hsa_signal_and_scacq_screl, hsa_signal_and_scacquire, hsa_signal_and_screlease, hsa_signal_and_relaxed,
        hsa_signal_and_acq_rel, hsa_signal_and_acquire, hsa_signal_and_release
    ](s, value: SignalValue) -> () {
        s.update(|v| v.fetch_and(value, SeqCst));
    }
    fn [
        hsa_signal_or_scacq_screl, hsa_signal_or_scacquire, hsa_signal_or_screlease, hsa_signal_or_relaxed,
        hsa_signal_or_acq_rel, hsa_signal_or_acquire, hsa_signal_or_release
    ](s, value: SignalValue) -> () {
        s.update(|v| v.fetch_or(value, SeqCst));
    }
    fn [
        hsa_signal_xor_scacq_screl, hsa_signal_xor_scacquire, hsa_signal_xor_screlease, hsa_signal_xor_relaxed,
        hsa_signal_xor_acq_rel, hsa_signal_xor_acquire, hsa_signal_xor_release
    ](s, value: SignalValue) -> () {
        s.update(|v| v.fetch_xor(value, SeqCst));
    }
    fn [hsa_signal_wait_scacquire, hsa_signal_wait_relaxed, hsa_signal_wait_acquire](
        s, condition: u32, compare_value: SignalValue, timeout_hint: u64, _wait_state_hint: u32
    ) -> SignalValue {
        // Ticks are nanoseconds; UINT64_MAX (or any timeout past the clock's range) waits
        // until the condition holds.
        let timeout = Duration::from_nanos(timeout_hint / (TIMESTAMP_FREQUENCY / 1_000_000_000));
        let deadline = (timeout_hint != u64::MAX).then(|| Instant::now().checked_add(timeout)).flatten();
        s.wait(condition, compare_value, deadline)
    }
}
