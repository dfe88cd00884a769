//! Register allocation on SSA MIR, in the style of Mesa's ACO: no interference graph and no
//! spill-cost search, but liveness on the two CFGs, a register demand that counts tuples with
//! their alignment, and an assignment that gives each value its register at its definition,
//! moving live values with parallel copies when tuples need room or registers are fixed.
//!
//! ```text
//!  MIR from isel (temporaries, phis, fixed registers)
//!      │ liveness::analyze   live-in/out on the logical and linear CFGs, kill flags, demand
//!      │ spill::spill        where a file's demand passes its target: SGPRs into lanes of
//!      │                     linear VGPRs, VGPRs into free AGPRs or scratch (p_spill,
//!      │                     p_reload), new SSA versions and phis
//!      │ assign::assign      registers for every value; copies and renaming phis where values move
//!      │ ssa_elim           phis → parallel copies → moves and swaps (parallel_copy::resolve)
//!      │ validate (debug)    the allocation re-checked symbolically against the spilled input
//!      ▼ spill::lower        p_spill/p_reload → v_writelane/readlane, v_accvgpr_*, scratch
//!  MIR with physical registers only where it matters to the encoder
//! ```
//!
//! The files are the SGPRs, the VGPRs and, on gfx908/gfx90a/gfx942, the AGPRs (accumulation
//! registers), each with its own demand, window and limit; copies between AGPRs and the other
//! files become `v_accvgpr_*` moves. [`allocate`] runs the whole stage; [`demand`] turns
//! waves per SIMD (runtime-abi's occupancy, the unified VGPR+AGPR file of gfx90a/gfx942
//! counted as the hardware does) into register limits, and [`generate`] makes random MIR functions for the tests, the
//! benchmark and fuzzing.
#![deny(missing_docs)]

pub mod assign;
pub mod demand;
pub mod generate;
pub mod liveness;
pub mod parallel_copy;
mod regset;
pub mod spill;
pub mod ssa_elim;
pub mod validate;

use demand::{RegisterDemand, RegisterUse, FILE_TYPES};
use isa::mir::Function;
use isa::opcode::Family;
use isa::processor::Processor;
use isa::reg::{PhysReg, RegType, Temp};
use runtime_abi::occupancy::Occupancy;
use thiserror::Error;
pub use validate::ValidationError;

/// What an allocation used: the descriptor's register counts come from here.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// One past the highest plain SGPR used (VCC and other specials excluded).
    pub sgprs: u16,
    /// One past the highest VGPR used.
    pub vgprs: u16,
    /// One past the highest AGPR used (0 without AGPRs): the `.agpr_count` of the metadata;
    /// on gfx90a/gfx942 ACCUM_OFFSET follows from [`Allocation::vgprs`].
    pub agprs: u16,
    /// Whether VCC is read or written.
    pub uses_vcc: bool,
    /// The most registers the program needs at once (liveness), for comparison.
    pub demand: RegisterDemand,
    /// Registers (dwords) the allocation moved with copies inside blocks.
    pub moved: u32,
    /// What spilling did.
    pub spills: spill::SpillStats,
}

impl Allocation {
    /// The registers `func` uses, read from its operands and results (the kernel's inputs
    /// included, since the hardware writes them), and on gfx90a the VGPR after a 64-bit
    /// shift's amount at the end of an 8-VGPR block (`isa::hazard::shift64_vgprs_needed`).
    pub fn measure(func: &Function) -> Allocation {
        let mut alloc = Allocation::default();
        for inst in func.blocks.iter().flat_map(|b| b.insts.iter()) {
            let regs = inst.defs.iter().filter_map(|d| Some((d.reg?, d.rc.size)));
            let regs = regs.chain(inst.ops.iter().filter_map(|o| Some((o.reg?, o.rc()?.size))));
            for (reg, size) in regs {
                let end = reg.index() + u16::from(size);
                match reg.reg_type() {
                    RegType::Sgpr if reg.is_plain_sgpr() => alloc.sgprs = alloc.sgprs.max(end),
                    RegType::Vgpr => alloc.vgprs = alloc.vgprs.max(end),
                    RegType::Agpr => alloc.agprs = alloc.agprs.max(end),
                    RegType::Sgpr => {}
                }
                alloc.uses_vcc |= reg == PhysReg::VCC || reg == PhysReg::VCC_HI;
            }
            // gfx90a's 64-bit shifts read past an amount at the end of an 8-VGPR block.
            if let Some(needed) = isa::hazard::shift64_vgprs_needed(inst, func.family) {
                alloc.vgprs = alloc.vgprs.max(needed);
            }
        }
        alloc
    }

    /// The registers used, as the kernel descriptor and the metadata take them.
    pub fn register_use(&self, wave_size: u32) -> RegisterUse {
        RegisterUse {
            vgprs: self.vgprs,
            agprs: self.agprs,
            sgprs: self.sgprs,
            uses_vcc: self.uses_vcc,
            xnack_mask: true,
            flat_scratch: false,
            wave_size,
        }
    }

    /// The waves per SIMD this allocation allows on `proc` in waves of `wave_size` (on
    /// gfx90a/gfx942 the VGPRs and AGPRs together, in the unified file).
    pub fn occupancy(&self, proc: &Processor, wave_size: u32) -> Occupancy {
        runtime_abi::occupancy::occupancy(proc, &self.register_use(wave_size))
    }
}

/// Why allocation failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AllocError {
    /// The kernel needs more registers of a file than the processor has after spilling:
    /// AGPR values are not spilled, and registers fixed by the hardware, values forced out of
    /// special registers or the alignment of tuples can leave no room.
    #[error("@{kernel} needs {demand} {file:?}s, more than the {limit} the processor has{}", why_not_spilled(*file))]
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
    /// One instruction (or the phis of a block) alone needs more registers of a file than
    /// there are: spilling cannot help, since its operands and results must all be in
    /// registers at once.
    #[error("@{kernel}, BB{block}: {what} needs {demand} {file:?}s at once, more than the {limit} there are")]
    Unspillable {
        /// The kernel.
        kernel: String,
        /// The block.
        block: u32,
        /// The register file.
        file: RegType,
        /// What needs them.
        what: String,
        /// Registers needed.
        demand: u16,
        /// Registers available.
        limit: u16,
    },
    /// A temporary is required in two different registers by one instruction.
    #[error("{temp} is fixed to both {first:?} and {second:?}")]
    ConflictingFixedRegisters {
        /// The temporary.
        temp: Temp,
        /// The first register.
        first: PhysReg,
        /// The second register.
        second: PhysReg,
    },
    /// A temporary is read where no definition of it reaches.
    #[error("{0} is used but not defined on every path to its use")]
    UndefinedTemp(Temp),
    /// A temporary is defined more than once (the MIR is not SSA).
    #[error("{0} is defined more than once")]
    DefinedTwice(Temp),
    /// VGPRs must spill to scratch, which the kernel cannot reach: its processor has no
    /// architected flat scratch and its entry does not set FLAT_SCRATCH up (`Spilling::scratch`).
    #[error("@{kernel}: VGPRs spill to scratch, which the kernel does not set up")]
    NoScratch {
        /// The kernel.
        kernel: String,
    },
    /// The input asks for something the allocator does not do.
    #[error("@{kernel}, BB{block}: register allocation does not support {what}")]
    Unsupported {
        /// The kernel.
        kernel: String,
        /// The block.
        block: u32,
        /// What.
        what: &'static str,
    },
    /// An inconsistency inside the allocator (a bug).
    #[error("@{kernel}: internal register allocation error: {message}")]
    Internal {
        /// The kernel.
        kernel: String,
        /// What went wrong.
        message: String,
    },
    /// The VGPR spill area ends past what a scratch instruction's immediate offset reaches
    /// (spills are addressed by the offset alone).
    #[error(
        "@{kernel}: the VGPR spill area ends {end} bytes into the lane's scratch, past the {reach} an offset reaches"
    )]
    SpillAreaTooFar {
        /// The kernel.
        kernel: String,
        /// Where the spill area ends (bytes, the private arrays before it included).
        end: u32,
        /// The bytes an instruction's offset reaches.
        reach: u32,
    },
    /// The validator rejected the allocation (a bug).
    #[error("the allocation does not validate: {0}")]
    Invalid(ValidationError),
}

/// Why a file's demand can stay too high after spilling.
fn why_not_spilled(file: RegType) -> &'static str {
    match file {
        RegType::Agpr => " (AGPR values are not spilled)",
        RegType::Sgpr | RegType::Vgpr => {
            " after spilling (registers fixed by the hardware and the alignment of tuples leave no room)"
        }
    }
}

/// Spills where the demand passes a file's size, assigns registers and eliminates SSA: the
/// whole allocation stage of the pipeline. In debug builds the result is validated against
/// the (spilled) input ([`validate::validate`]).
pub fn allocate(func: &mut Function, proc: &Processor) -> Result<Allocation, AllocError> {
    allocate_with(func, proc, &Spilling::new(proc))
}

/// What spilling aims at and where its scratch goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Spilling {
    /// The demand spilling brings each file down to (at most the file's size; a lower target
    /// trades spills for waves).
    pub target: RegisterDemand,
    /// Bytes of each lane's scratch before the VGPR spill area (the private arrays).
    pub scratch_base: u32,
    /// SGPRs at the top of the file kept out of allocation altogether (the emitter's long
    /// branches need a pair above every SGPR the kernel uses).
    pub reserved_sgprs: u16,
    /// Whether VGPRs may spill to scratch: the hardware sets FLAT_SCRATCH up (architected flat
    /// scratch), or the kernel's entry does (isel's `select_with` asked for scratch).
    pub scratch: bool,
}

impl Spilling {
    /// Every file's size as the target, and scratch from its start.
    pub fn new(proc: &Processor) -> Spilling {
        let scratch = proc.flat_scratch == isa::processor::FlatScratch::Architected;
        Spilling { target: spill::file_limits(proc), scratch_base: 0, reserved_sgprs: 0, scratch }
    }
}

/// How many times allocation spills again, with a lower target, when assignment finds no
/// room within the file after spilling to its size (fixed registers and alignment).
const SPILL_ROUNDS: u32 = 4;

impl Spilling {
    /// What to aim at in round `round` (1, 2, ...) after an attempt on a function of `family`
    /// that failed with `error`: lower in the file that had no room by what was missing and a
    /// little more, or `None` when `error` is not one that spilling more can mend or the rounds
    /// are spent. Rounds start over from the same input: [`allocate_with`] keeps a copy for
    /// them, and a caller that can rebuild the input (the compiler, whose earlier stages are
    /// deterministic) calls [`allocate_once`] and spares the copy.
    pub fn retry(&self, proc: &Processor, family: Family, error: &AllocError, round: u32) -> Option<Spilling> {
        match *error {
            AllocError::DemandTooHigh { file, demand, limit, .. } if round <= SPILL_ROUNDS && file != RegType::Agpr => {
                let (_, target) = self.bounds(proc, family);
                let fi = demand::file_index(file);
                let lower = target.of(fi).saturating_sub(demand.saturating_sub(limit).max(1) + 2 * round as u16);
                let target = target.with(fi, lower);
                // Kept as `bounds` reads it: with the SGPR of the spill base, which it leaves out.
                let base = u16::from(spill::needs_spill_base(family, self));
                Some(Spilling { target: target.with(0, target.sgprs + base), ..*self })
            }
            _ => None,
        }
    }

    /// The registers allocation may use on `proc` for a function of `family` (each file's
    /// size; the reserved SGPRs and, on gfx90a, one SGPR for the address of scratch spills
    /// left out), and the demand it spills down to within them.
    fn bounds(&self, proc: &Processor, family: Family) -> (RegisterDemand, RegisterDemand) {
        let files = spill::file_limits(proc);
        let base = u16::from(spill::needs_spill_base(family, self));
        let limits = files.with(0, files.sgprs.saturating_sub(self.reserved_sgprs + base));
        (limits, self.target.with(0, self.target.sgprs.saturating_sub(base)).min(limits))
    }
}

/// [`allocate`] with the spilling of `spilling`.
pub fn allocate_with(func: &mut Function, proc: &Processor, spilling: &Spilling) -> Result<Allocation, AllocError> {
    let input = func.clone();
    let mut spilling = *spilling;
    let mut round = 0;
    loop {
        match allocate_once(func, proc, &spilling) {
            Err(e) => {
                round += 1;
                spilling = spilling.retry(proc, func.family, &e, round).ok_or(e)?;
                *func = input.clone();
            }
            result => return result,
        }
    }
}

/// One attempt of [`allocate_with`], without the copy of `func` its rounds start from: on an
/// error, `func` is left half allocated, and [`Spilling::retry`] says whether another attempt,
/// from the same input, may succeed.
pub fn allocate_once(func: &mut Function, proc: &Processor, spilling: &Spilling) -> Result<Allocation, AllocError> {
    let (limits, target) = spilling.bounds(proc, func.family);
    attempt(func, proc, limits, target, spilling)
}

/// One attempt within the register `limits`, spilling down to `target`.
fn attempt(
    func: &mut Function,
    proc: &Processor,
    limits: RegisterDemand,
    target: RegisterDemand,
    spilling: &Spilling,
) -> Result<Allocation, AllocError> {
    let live = liveness::analyze(func, proc)?;
    let spill::Spilled { live, stats: spilled, remats } = spill::spill(func, live, proc, target)?;
    let before = cfg!(debug_assertions).then(|| func.clone());
    let stats = assign::assign(func, &live, proc, limits)?;
    ssa_elim::eliminate(func, proc)?;
    if let Some(before) = before {
        validate::validate_spilled(&before, func, proc, &remats).map_err(AllocError::Invalid)?;
    }
    let free_agpr = Allocation::measure(func).agprs;
    let spilled = spill::lower(func, proc, free_agpr, target.agprs, spilling, &spilled)?;
    let mut alloc = Allocation::measure(func);
    alloc.demand = live.max_demand;
    alloc.moved = stats.moved;
    alloc.spills = spilled;
    // The SGPR that addresses scratch spills (gfx90a) sits just above the allocated ones.
    let base = spill::needs_spill_base(func.family, spilling);
    for (file, used) in FILE_TYPES.into_iter().zip([alloc.sgprs, alloc.vgprs, alloc.agprs]) {
        let limit = limits.of(demand::file_index(file)) + u16::from(base && file == RegType::Sgpr);
        if used > limit {
            return Err(AllocError::DemandTooHigh { kernel: func.name.clone(), file, demand: used, limit });
        }
    }
    Ok(alloc)
}
