//! Register allocation on SSA MIR.
//!
//! Today this crate holds the thin end-to-end path's allocation: [`trivial::assign`] gives
//! every temporary its own register, [`ssa_elim`] turns phis and parallel copies into moves, and
//! [`parallel_copy::resolve`] orders simultaneous moves and breaks their cycles. The regalloc
//! issue replaces the trivial assignment with liveness, register demand, an SSA allocator that
//! places aligned tuples, and a validator that re-checks every allocation.
#![deny(missing_docs)]

pub mod parallel_copy;
pub mod ssa_elim;
pub mod trivial;

use isa::mir::Function;
use isa::processor::Processor;
use isa::reg::{PhysReg, RegType, Temp};
use thiserror::Error;
pub use trivial::Allocation;

/// Why allocation failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AllocError {
    /// The kernel needs more registers of a file than the processor has (no spilling yet).
    #[error("@{kernel} needs {demand} {file:?}s, more than the {limit} the processor has (spilling is not implemented)")]
    DemandTooHigh {
        /// The kernel.
        kernel: String,
        /// The register file.
        file: RegType,
        /// Registers needed.
        demand: u16,
        /// Registers available.
        limit: u16,
    },
    /// A temporary is required in two different registers.
    #[error("{temp} is fixed to both {first:?} and {second:?}")]
    ConflictingFixedRegisters {
        /// The temporary.
        temp: Temp,
        /// The first register.
        first: PhysReg,
        /// The second register.
        second: PhysReg,
    },
    /// A temporary is used but never defined.
    #[error("{0} is used but never defined")]
    UndefinedTemp(Temp),
    /// A copy operand has no register after assignment (an internal error).
    #[error("a copy operand has no register after assignment")]
    Unassigned,
    /// Something the thin allocator does not handle yet.
    #[error("register allocation does not support {0} yet")]
    Unsupported(&'static str),
}

/// Assigns registers and eliminates SSA: the whole allocation stage of the pipeline.
pub fn allocate(func: &mut Function, proc: &Processor) -> Result<Allocation, AllocError> {
    let mut alloc = trivial::assign(func, proc)?;
    ssa_elim::eliminate_phis(func);
    ssa_elim::lower_vectors(func)?;
    ssa_elim::lower_parallel_copies(func, &mut alloc, proc)?;
    Ok(alloc)
}
