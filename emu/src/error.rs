//! Errors: why a code object could not be loaded, why a dispatch could not start, and the
//! faults a running kernel can commit, each reported with where it happened (kernel, PC,
//! instruction text, workgroup, wave) and what (the register, counter, lane and address).
//!
//! The shape follows the reference interpreter's: [`EmuError`] is either a load error, a launch
//! error, or a [`FaultKind`] at a [`FaultSite`].

use crate::waitcnt_check::Counter;
use core::fmt;
use thiserror::Error;

/// Why a code object could not be loaded.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// runtime-abi's reader rejected the object.
    #[error("cannot read the code object: {0}")]
    Read(String),
    /// The object's processor is one the emulator does not execute.
    #[error("processor {0} is not supported by the emulator (the verified processors are: {1})")]
    Processor(String, String),
    /// An instruction of a kernel could not be decoded.
    #[error("kernel {kernel}: cannot decode the instruction at offset {offset:#x}: {detail}")]
    Decode {
        /// The kernel.
        kernel: String,
        /// Byte offset of the instruction from the kernel's entry.
        offset: u32,
        /// The decoder's message.
        detail: String,
    },
    /// A kernel's code does not end with an instruction boundary.
    #[error("kernel {kernel}: the instruction at offset {offset:#x} runs past the end of the code")]
    Truncated {
        /// The kernel.
        kernel: String,
        /// Byte offset of the instruction.
        offset: u32,
    },
}

/// Why a dispatch could not start.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// No kernel of that name in the program.
    #[error("no kernel named '{name}' (kernels: {known})")]
    NoSuchKernel {
        /// The name asked for.
        name: String,
        /// The kernels present.
        known: String,
    },
    /// The wave size asked for differs from the kernel descriptor's.
    #[error("kernel {kernel} is compiled for wave{compiled}, the launch asks for wave{asked}")]
    WaveSize {
        /// The kernel.
        kernel: String,
        /// The descriptor's wave size.
        compiled: u32,
        /// The option's wave size.
        asked: u32,
    },
    /// A zero grid or workgroup dimension.
    #[error("the {what} size {dims:?} has a zero dimension")]
    ZeroSize {
        /// `grid` or `workgroup`.
        what: &'static str,
        /// The dimensions.
        dims: [u32; 3],
    },
    /// The workgroup is larger than the kernel or the hardware allows.
    #[error("workgroup of {size} work-items exceeds the limit of {limit}")]
    WorkgroupTooLarge {
        /// Work-items per workgroup.
        size: u64,
        /// The limit.
        limit: u32,
    },
    /// Wrong number of explicit kernel arguments.
    #[error("kernel {kernel} takes {expected} arguments, {got} given")]
    ArgCount {
        /// The kernel.
        kernel: String,
        /// Its explicit argument count.
        expected: usize,
        /// The arguments given.
        got: usize,
    },
    /// An argument's bytes do not match its size in the metadata.
    #[error("kernel {kernel}: argument {index} is {expected} bytes, {got} given")]
    ArgSize {
        /// The kernel.
        kernel: String,
        /// The argument's index among the explicit arguments.
        index: usize,
        /// Its size in the metadata.
        expected: u32,
        /// The bytes given.
        got: usize,
    },
    /// A workgroup of the launch's size cannot be resident on one CU (or WGP): its waves need
    /// more per SIMD than the kernel's registers, as its descriptor gives them, allow.
    #[error("kernel {kernel} cannot run: {reason}")]
    NotResident {
        /// The kernel.
        kernel: String,
        /// Why, with the counts.
        reason: runtime_abi::occupancy::NotResident,
    },
    /// Shared memory (static plus dynamic) does not fit.
    #[error("kernel {kernel} needs {bytes} bytes of shared memory, more than {limit}")]
    SharedTooLarge {
        /// The kernel.
        kernel: String,
        /// Static plus dynamic bytes.
        bytes: u64,
        /// The limit.
        limit: u32,
    },
    /// The private segment (scratch) a wave would need is more than the processor has.
    #[error(
        "kernel {kernel} asks for {per_lane} bytes of private memory per work-item, {wave_bytes} per wave, \
         more than the {limit} bytes a wave can have"
    )]
    PrivateTooLarge {
        /// The kernel.
        kernel: String,
        /// The descriptor's `private_segment_fixed_size`.
        per_lane: u32,
        /// Times the wave size.
        wave_bytes: u64,
        /// The processor's largest scratch per wave.
        limit: u64,
    },
    /// The grid has more waves than the step limit lets run, so the run cannot finish.
    #[error(
        "the grid {grid:?} is at least {waves} waves of at least {per_wave} instructions each, \
         more than the step limit of {step_limit} wave-instructions lets finish"
    )]
    GridTooLarge {
        /// The grid.
        grid: [u32; 3],
        /// Waves the grid needs at least.
        waves: u128,
        /// The fewest instructions a wave of the kernel runs.
        per_wave: u64,
        /// The limit.
        step_limit: u64,
    },
    /// The workgroup size differs from the one the kernel requires (its metadata's
    /// `.reqd_workgroup_size`).
    #[error("kernel {kernel} requires workgroups of {required:?}, the launch gives {block:?}")]
    WorkgroupSizeMismatch {
        /// The kernel.
        kernel: String,
        /// The required size.
        required: [u32; 3],
        /// The launch's size.
        block: [u32; 3],
    },
    /// The kernarg segment a caller placed in device memory ([`crate::dispatch_at`]) is not
    /// there whole.
    #[error("kernel {kernel}: the kernarg segment at {addr:#x} ({size} bytes) is out of bounds{detail}")]
    KernargOutOfBounds {
        /// The kernel.
        kernel: String,
        /// The segment's address.
        addr: u64,
        /// The kernel's kernarg segment size.
        size: u32,
        /// What the address was checked against.
        detail: String,
    },
    /// The kernel asks for a part of the dispatch state the emulator does not provide.
    #[error("kernel {kernel}: {what} is not supported by the emulator")]
    Unsupported {
        /// The kernel.
        kernel: String,
        /// What it asks for.
        what: String,
    },
}

/// What went wrong while a wave ran.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// The opcode decodes but the emulator does not execute it (or this form of it).
    #[error("{opcode} is not implemented by the emulator{detail}")]
    Unimplemented {
        /// The mnemonic.
        opcode: String,
        /// What about it is unsupported, if only a form is (starts with ": ").
        detail: String,
    },
    /// A memory access outside every buffer, or past the end of one.
    #[error("lane {lane}: {space} address {addr:#x} (+{len} bytes) is out of bounds{detail}")]
    OutOfBounds {
        /// The lane (0 for scalar accesses).
        lane: u32,
        /// `global`, `kernarg`, `shared`...
        space: &'static str,
        /// The address.
        addr: u64,
        /// The access size in bytes.
        len: u32,
        /// What the address was checked against.
        detail: String,
    },
    /// A register is read while a memory operation that writes it is still in flight: a
    /// missing `s_waitcnt`.
    #[error("reads {reg} while the load issued at {issued_pc:#x} is in flight ({counter} not waited for)")]
    InFlightRead {
        /// The register, in assembly syntax.
        reg: String,
        /// The counter that must be waited for.
        counter: Counter,
        /// The PC of the load.
        issued_pc: u32,
    },
    /// A register is written while a memory operation that writes it is still in flight (the
    /// load's late result would overwrite the new value).
    #[error("writes {reg} while the load issued at {issued_pc:#x} will still write it ({counter} not waited for)")]
    InFlightWrite {
        /// The register, in assembly syntax.
        reg: String,
        /// The counter that must be waited for.
        counter: Counter,
        /// The PC of the load.
        issued_pc: u32,
    },
    /// A private (scratch) access before the kernel set FLAT_SCRATCH up, on a processor
    /// without architected flat scratch (AMDGPUUsage-new.txt:5150-5160: the prolog adds the
    /// wave's Scratch Wavefront Offset to Flat Scratch Init).
    #[error("a private access with FLAT_SCRATCH = {found:#x}; the prolog must set it to Flat Scratch Init plus the wave's scratch offset, {expected:#x}")]
    FlatScratch {
        /// The value FLAT_SCRATCH holds.
        found: u64,
        /// The wave's scratch base.
        expected: u64,
    },
    /// A hazard the generation leaves to software was not resolved.
    #[error("hazard: {what}")]
    Hazard {
        /// What hazard, with the registers and the wait states missing.
        what: String,
    },
    /// A VGPR or SGPR outside the wave's allocation.
    #[error("{reg} is outside the wave's allocation of {limit} {file}")]
    RegisterOutOfRange {
        /// The register, in assembly syntax.
        reg: String,
        /// The size of the allocation.
        limit: u32,
        /// `VGPRs` or `SGPRs`.
        file: &'static str,
    },
    /// A VGPR is used after the wave released its VGPRs (`s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)`).
    #[error("uses {reg} after the wave released its VGPRs")]
    VgprsReleased {
        /// The register, in assembly syntax.
        reg: String,
    },
    /// An instruction field with a value the hardware does not define.
    #[error("malformed {opcode}: {detail}")]
    Malformed {
        /// The mnemonic.
        opcode: String,
        /// What is wrong.
        detail: String,
    },
    /// The PC left the kernel's code, or points inside an instruction.
    #[error("the PC {pc:#x} is not the start of an instruction of the kernel")]
    BadPc {
        /// The PC.
        pc: u32,
    },
    /// A barrier executed by a wave of a workgroup that is split across CUs (tgsplit), where
    /// barriers do not exist.
    #[error("s_barrier in a kernel that may run with its workgroup split across CUs")]
    BarrierInSplitGroup,
}

/// Where a fault happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSite {
    /// The kernel.
    pub kernel: String,
    /// The byte offset of the instruction from the kernel's entry.
    pub pc: u32,
    /// The instruction's text.
    pub inst: String,
    /// The workgroup id.
    pub group: [u32; 3],
    /// The wave's index within its workgroup.
    pub wave: u32,
}

impl fmt::Display for FaultSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel {}, pc {:#x} `{}`, workgroup {:?}, wave {}",
            self.kernel, self.pc, self.inst, self.group, self.wave
        )
    }
}

/// Why loading or running failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EmuError {
    /// The code object could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The dispatch could not start.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A wave faulted.
    #[error("{site}: {kind}")]
    Fault {
        /// Where.
        site: Box<FaultSite>,
        /// What.
        kind: FaultKind,
    },
    /// The run executed more wave-instructions than the step limit allows: a livelock, or a
    /// barrier that can never be released.
    #[error("step limit of {limit} wave-instructions reached ({detail})")]
    StepLimit {
        /// The limit.
        limit: u64,
        /// What the waves were doing.
        detail: String,
    },
}

impl EmuError {
    /// The fault, when the error is one.
    pub fn fault(&self) -> Option<&FaultKind> {
        match self {
            EmuError::Fault { kind, .. } => Some(kind),
            _ => None,
        }
    }
}
