//! The built-in emulator: loads a code object, dispatches a grid as the command processor does,
//! executes waves, and reports a missing wait, a hazard or a bad access as an error.
//!
//! ```text
//!  load(bytes) ── runtime_abi::read ──► Program { Kernel { descriptor, metadata, Code } }
//!                    isa::decode (every instruction, up front) ──┘   ops: what each opcode does
//!                                                                    hazard::Footprint
//!  dispatch(&mut Device, &Program, kernel, &Launch, args, &Options)
//!     setup      kernarg segment, dispatch packet, each wave's initial registers, scratch
//!     dispatch   work-groups → waves, interleaved (round-robin or by seed), barriers, LDS,
//!                the store deadline, the step limit
//!     exec       one instruction of one wave: hazard checks, then
//!                 ├► exec_control (SOPP)   ├► exec_salu        ├► valu (int, fp, packed, DPP)
//!                 └► vmem (SMEM, FLAT, GLOBAL, SCRATCH)        └► ds (LDS, permutes)
//!     wave       registers, through the checks of ─► waitcnt_check (operations in flight)
//!     memory     global memory, LDS, scratch; each operation's memory action, performed
//!                when it completes
//! ```
//!
//! It is strict where the hardware is loose: every memory result stays in flight until a wait
//! on its counter guarantees it (loads in order for vmcnt, SMEM in any order, stores in vscnt on
//! GFX10+, FLAT in both vmcnt and lgkmcnt), so a missing `s_waitcnt` is an error naming the PC,
//! the register and the counter, not luck. Memory is touched at the moments the hardware allows
//! that expose missing waits: stores and atomics reach other waves only once they complete,
//! loads read when they issue or when they complete (by seed). It models what the hardware
//! guarantees and no more: a wave's later load sees its own earlier store, store data is read
//! at issue, and the hazards each generation leaves to software (see [`Counter`] and the
//! `hazard` module) are checked like waits. Memory is sandboxed: buffers come from
//! [`Device::alloc`], and an access outside them is an error naming the PC, wave, lane and
//! address.
//!
//! Targets: gfx1100 (wave32 and wave64) and gfx942 (wave64). An opcode the decoder knows but
//! the emulator does not execute is an error naming it and the PC, never a silent skip.
#![deny(missing_docs)]

mod atomic;
mod device;
mod dispatch;
mod div_steps;
mod ds;
mod error;
mod exec;
mod exec_control;
mod exec_salu;
mod float;
mod hazard;
mod memory;
mod ops;
mod program;
mod setup;
mod valu;
mod vmem;
mod waitcnt_check;
mod wave;

pub use device::{Device, PlaceError};
pub use dispatch::{
    check_workgroup, dispatch, dispatch_at, ArgValue, Launch, Options, Stats, WaitProfile, MAX_SHARED_BYTES,
    MAX_WORKGROUP_SIZE,
};
pub use error::{EmuError, FaultKind, FaultSite, LaunchError, LoadError};
pub use program::{Kernel, Program};
pub use setup::{grid_dims, kernarg_segment};
pub use waitcnt_check::Counter;

/// Loads a code object (ET_DYN or ET_REL, ours or anyone's) and decodes every instruction of
/// every kernel.
pub fn load(bytes: &[u8]) -> Result<Program, EmuError> {
    program::load(bytes).map_err(EmuError::Load)
}
