//! Instruction selection: from a kernel of the IR to MIR for one target.
//!
//! ```text
//!  frontend_ir::Module ─► divergence ─► select ─────────────────► Selected { mir, inputs, kernarg, .. }
//!                         (uniform or    (SALU/SMEM for uniform     │
//!                          divergent)     values, VALU/VMEM for      ▼ mir_verify (in tests, and by
//!                                         divergent ones; exec_mask    any stage that wants it)
//!                         reconverge      around divergent ifs,
//!                         (joins)         switches and loops)
//! ```
//!
//! [`divergence`] decides for every value whether it is uniform across a wave's lanes, and
//! [`frontend_ir::reconverge`] (shared with the reference interpreter, so both agree on it)
//! where the lanes of each branch meet again; [`select()`] turns the kernel into
//! MIR over SGPR and VGPR register classes, with the two CFGs of the design (logical and
//! linear), the kernel's inputs found through runtime-abi, and the EXEC sequences of divergent
//! control flow (`exec_mask`: ifs, switches, loops with breaks and continues, early returns,
//! for any reducible CFG; an irreducible one is an [`IselError::Irreducible`]); [`mir_verify`]
//! checks the result. The memory-model lowering of atomics and fences and the wider
//! instruction set come next (the isel issue); what is not selected yet is an [`IselError`]
//! naming it, never wrong code.
#![deny(missing_docs)]

pub mod divergence;
mod error;
mod exec_mask;
mod hw;
pub mod mir_opt;
pub mod mir_verify;
mod select;

pub use error::IselError;
pub use hw::strip_implicit;
pub use select::{select, select_with, Selected};
