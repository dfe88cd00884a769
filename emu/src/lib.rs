//! The built-in emulator: loads a code object, dispatches a grid as the command processor does,
//! executes waves, and reports a missing wait, a hazard or a bad access as an error.
//!
//! ```text
//!  load(bytes) ── runtime_abi::read ──► Program { Kernel { descriptor, metadata, Code } }
//!                    isa::decode (every instruction, up front) ──┘
//!  dispatch(&mut Device, &Program, kernel, &Launch, args, &Options)
//!     setup      kernarg segment, dispatch packet, each wave's initial registers
//!     dispatch   work-groups → waves, interleaved (round-robin or by seed), barriers, step limit
//!     exec       one instruction of one wave ─► exec_control | exec_salu | exec_valu | exec_mem
//!     wave       registers, through the checks of ─► waitcnt_check (loads in flight)
//!                                                  └► hazard (wait states)
//! ```
//!
//! It is strict where the hardware is loose: every memory result stays in flight until a wait
//! on its counter guarantees it (loads in order for vmcnt, SMEM in any order, stores in vscnt on
//! GFX10+), so a missing `s_waitcnt` is an error naming the PC, the register and the counter,
//! not luck. It models what the hardware guarantees and no more: a wave's later load sees its
//! own earlier store, store data is read at issue, and on gfx942 a VALU write to the data of a
//! wide store needs two wait states. Memory is sandboxed: buffers come from [`Device::alloc`],
//! and an access outside them is an error naming the PC, wave, lane and address.
//!
//! Targets: gfx1100 (wave32 and wave64) and gfx942 (wave64). An opcode the decoder knows but
//! the emulator does not execute is an error naming it and the PC, never a silent skip.
#![deny(missing_docs)]

mod device;
mod dispatch;
mod error;
mod exec;
mod exec_control;
mod exec_mem;
mod exec_salu;
mod exec_valu;
mod hazard;
mod ops;
mod program;
mod setup;
mod waitcnt_check;
mod wave;

pub use device::Device;
pub use dispatch::{dispatch, ArgValue, Launch, Options, Stats, MAX_SHARED_BYTES, MAX_WORKGROUP_SIZE};
pub use error::{EmuError, FaultKind, FaultSite, LaunchError, LoadError};
pub use program::{Kernel, Program};
pub use waitcnt_check::Counter;

/// Loads a code object (ET_DYN or ET_REL, ours or anyone's) and decodes every instruction of
/// every kernel.
pub fn load(bytes: &[u8]) -> Result<Program, EmuError> {
    program::load(bytes).map_err(EmuError::Load)
}
