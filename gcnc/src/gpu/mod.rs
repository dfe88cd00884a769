//! `--device gpu`: runs a kernel on a real GPU through the HSA runtime. The runtime,
//! `libhsa-runtime64.so.1`, is opened at run time (the private module `ffi` declares and
//! loads its entry points), so gcnc builds and runs without it; the environment variable
//! `GCNC_HSA_LIBRARY` names another file, such as gcnc-hsa's software agent
//! (`libgcnc_hsa.so`), which runs the same flow on the emulator.
//!
//! The flow ([`run`], in `dispatch.rs`) is the HSA API's own: `hsa_init`; find a GPU agent
//! whose ISA runs the code object's target; its kernarg region and a region for buffers
//! (fine-grained if it has one, else coarse-grained); a queue; the code object loaded into an
//! executable and frozen, and the kernel's `NAME.kd` symbol; buffers allocated and copied in;
//! the kernarg segment filled as the code object's metadata lays it out (the emulator's
//! [`emu::kernarg_segment`], so both devices see the same bytes); an AQL kernel dispatch
//! packet whose header is stored last, atomically with release order; the doorbell; a wait
//! on the completion signal; buffers copied back; everything released; `hsa_shut_down`.
//!
//! Every status is checked, and a failure is a [`GpuError`] carrying `hsa_status_string`'s
//! text. When there is no runtime, no working `hsa_init` (as on a machine without a GPU
//! driver) or no GPU agent, the error says `no GPU: ...` ([`GpuError::is_no_gpu`]).

mod dispatch;
mod ffi;

use std::ffi::OsString;

use thiserror::Error;

pub use dispatch::{run, GpuLaunch};
/// Whether an agent's ISA runs a target (its home is `isa`, where gcnc-hsa's loader reads it
/// too).
pub use isa::processor::isa_runs_target;

/// The library opened when `GCNC_HSA_LIBRARY` is not set.
pub const DEFAULT_LIBRARY: &str = "libhsa-runtime64.so.1";

/// The environment variable naming the HSA runtime library to open instead of
/// [`DEFAULT_LIBRARY`].
pub const LIBRARY_ENV: &str = "GCNC_HSA_LIBRARY";

/// The library to open: `$GCNC_HSA_LIBRARY`, or [`DEFAULT_LIBRARY`].
pub fn library_name() -> OsString {
    std::env::var_os(LIBRARY_ENV).filter(|v| !v.is_empty()).unwrap_or_else(|| DEFAULT_LIBRARY.into())
}

/// Why a kernel did not run on a GPU.
#[derive(Debug, Error)]
pub enum GpuError {
    /// The runtime library cannot be opened.
    #[error("no GPU: cannot load the HSA runtime '{library}': {reason}")]
    NoRuntime {
        /// The library's name.
        library: String,
        /// The loader's message.
        reason: String,
    },
    /// The library lacks an entry point.
    #[error("no GPU: '{library}' is not an HSA runtime: it has no {symbol} ({reason})")]
    MissingSymbol {
        /// The library's name.
        library: String,
        /// The entry point.
        symbol: &'static str,
        /// The loader's message.
        reason: String,
    },
    /// `hsa_init` failed (without a GPU and its driver it does).
    #[error("no GPU: hsa_init failed: {message}")]
    Init {
        /// `hsa_status_string`'s text.
        message: String,
    },
    /// The runtime knows no GPU agent.
    #[error("no GPU: the HSA runtime found no GPU agent")]
    NoAgent,
    /// A runtime call failed.
    #[error("{call} failed: {message}")]
    Hsa {
        /// The entry point.
        call: &'static str,
        /// The status it returned.
        status: u32,
        /// `hsa_status_string`'s text.
        message: String,
    },
    /// The code object cannot be read, or names no known target.
    #[error("the code object cannot run on a GPU: {reason}")]
    CodeObject {
        /// Why.
        reason: String,
    },
    /// No GPU agent's ISA runs the code object.
    #[error("the code object is for {target}, but the GPUs here are {available}")]
    IsaMismatch {
        /// The code object's target ID.
        target: String,
        /// The GPU agents' ISA names.
        available: String,
    },
    /// The GPU has no memory region of a kind the dispatch needs.
    #[error("the GPU ({isa}) has no {what} memory region the runtime can allocate from")]
    NoRegion {
        /// The agent's ISA name.
        isa: String,
        /// `kernarg` or `global`.
        what: &'static str,
    },
    /// The launch does not fit the dispatch packet or the kernel.
    #[error("cannot launch {kernel} on the GPU: {reason}")]
    Launch {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: String,
    },
    /// The queue reported an error (e.g. a memory fault) while the kernel ran.
    #[error("running {kernel} on the GPU: the queue reported {message}")]
    Queue {
        /// The kernel.
        kernel: String,
        /// `hsa_status_string`'s text.
        message: String,
    },
}

impl GpuError {
    /// Whether this says there is no usable GPU (no runtime, a failing `hsa_init`, no GPU
    /// agent), as opposed to a failure on a GPU that is there.
    pub fn is_no_gpu(&self) -> bool {
        matches!(
            self,
            GpuError::NoRuntime { .. } | GpuError::MissingSymbol { .. } | GpuError::Init { .. } | GpuError::NoAgent
        )
    }
}
