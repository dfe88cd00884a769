//! A software HSA agent: the part of the HSA runtime API (`libhsa-runtime64.so.1`) that gcnc's
//! `--device gpu` and typical HSA programs use, implemented on gcnc's strict emulator. Built
//! as `libgcnc_hsa.so`, it stands in for the runtime through `GCNC_HSA_LIBRARY` (gcnc) or
//! `LD_LIBRARY_PATH` (any program linked against `libhsa-runtime64.so.1`).
//!
//! ```text
//!  hsa_init ── runtime: one CPU agent, one GPU agent per processor of $GCNC_HSA_AGENTS
//!  agent      agents, ISAs, regions (kernarg, fine- and coarse-grained global, group)
//!  memory     allocations at the same address for host and device (4 GiB windows)
//!  signal     values with waits on conditions and timeouts
//!  loader     code object readers, executables, kernel symbols (runtime-abi, emu::load)
//!  queue      the AQL ring, its write and read indices and doorbell ──► processor
//!  processor  one thread per queue, the command processor: packets in order, header
//!             first, each kernel dispatch run by emu::dispatch_at on a snapshot of memory
//! ```
//!
//! The host and the kernel see the same addresses: every allocation (and each queue's ring)
//! is host memory mapped at the start of a 4 GiB window, which is where the emulator's
//! sandboxed device memory puts a buffer too ([`emu::Device::alloc_at`]); a dispatch copies
//! every allocation into a fresh device, runs, and writes back the bytes the kernel changed.
//! The emulator's strictness carries over: a missing wait, a hazard, an access outside every
//! allocation, a malformed packet (a header still INVALID when the doorbell rings, a kernel
//! object that is not a frozen executable's, a kernarg segment out of bounds) stops the queue
//! and is reported through the queue's error callback with an HSA status, and the emulator's
//! message on stderr; as ROCm's runtime does, a queue error without a callback aborts.
//!
//! Every entry point catches panics (a panic becomes `HSA_STATUS_ERROR_FATAL`, or a neutral
//! value), so none unwinds into C. An entry point this library does not implement is absent,
//! so a program using it fails to link or to load rather than misbehave.
#![deny(missing_docs)]

/// Defines entry points that act on one object (a signal, a queue) and return a value rather
/// than a status: each `fn [NAMES](object, args) -> T { body }` gives every name an
/// `extern "C"` function whose first parameter `$object: $object_ty` is looked up with
/// `$lookup` (an `Option`); an unknown object, or a caught panic, gives `T::default()`.
macro_rules! object_entries {
    ($object:ident: $object_ty:ty => $lookup:path; $(fn [$($name:ident),*] $signature:tt -> $ret:ty $body:block)*) => {
        $($(object_entry!($object: $object_ty => $lookup; $name $signature -> $ret $body);)*)*
    };
}

/// One entry point of [`object_entries`].
macro_rules! object_entry {
    ($object:ident: $object_ty:ty => $lookup:path;
     $name:ident ($s:ident $(, $arg:ident: $ty:ty)*) -> $ret:ty $body:block) => {
        #[doc = concat!("`", stringify!($name), "`.")]
        #[no_mangle]
        pub extern "C" fn $name($object: $object_ty $(, $arg: $ty)*) -> $ret {
            $crate::guard(<$ret>::default(), || match $lookup($object) {
                Some($s) => $body,
                None => <$ret>::default(),
            })
        }
    };
}

pub mod abi;
mod agent;
pub mod hsa_h;
mod loader;
mod memory;
mod processor;
mod queue;
mod runtime;
mod signal;
mod status;
#[cfg(test)]
mod tests;

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use abi::*;

/// The environment variable listing the GPU agents, by target ID (`gfx1100,gfx942`).
pub const AGENTS_ENV: &str = "GCNC_HSA_AGENTS";

/// Runs an entry point's body; a panic gives `on_panic` instead of unwinding into C.
fn guard<T>(on_panic: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(on_panic)
}

/// Runs the body of an entry point that returns `hsa_status_t`: `Ok` is success, `Err` the
/// status returned (an iteration's callback status included); a panic is
/// `HSA_STATUS_ERROR_FATAL`.
fn entry(body: impl FnOnce() -> Result<(), Status>) -> Status {
    guard(HSA_STATUS_ERROR_FATAL, || body().err().unwrap_or(HSA_STATUS_SUCCESS))
}

/// Writes an attribute's value through a caller's `void*` (`HSA_STATUS_ERROR_INVALID_ARGUMENT`
/// when it is null).
///
/// # Safety
/// `out` is null or points to room for a `T`, as the attribute's documentation says.
unsafe fn put<T>(out: *mut c_void, value: T) -> Result<(), Status> {
    if out.is_null() {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: the caller's promise; C gives no alignment guarantee we rely on.
    unsafe { out.cast::<T>().write_unaligned(value) };
    Ok(())
}

/// Writes `text` as a `char[len]` attribute: `len` bytes, NUL-padded (a longer text is cut).
///
/// # Safety
/// As for [`put`], with room for `len` bytes.
unsafe fn put_chars(out: *mut c_void, text: &str, len: usize) -> Result<(), Status> {
    if out.is_null() {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let mut bytes = text.as_bytes().to_vec();
    bytes.resize(len, 0);
    // SAFETY: the caller's promise.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.cast::<u8>(), len) };
    Ok(())
}

/// A C callback's status as the result of an iteration step: stop on anything but success.
fn step(status: Status) -> Result<(), Status> {
    match status {
        HSA_STATUS_SUCCESS => Ok(()),
        other => Err(other),
    }
}
