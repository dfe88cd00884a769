//! What can go wrong in instruction selection: the input is not a kernel, the target or
//! control flow is not supported, or an IR instruction has no selection yet. Every error names
//! the function and the IR instruction (in its text form) or block it is about, and, when the
//! IR came with source locations ([`frontend_ir::srcloc`]), where that instruction (or the
//! block's first one, or the branch of an irreducible edge) is written: a byte range, which
//! whoever holds the source turns into `file:line:col` ([`IselError::loc`]). The location, not
//! the [`Inst`](frontend_ir::Inst): selection may work on a copy of the kernel with new
//! instructions (the compare-and-swap loops of `atomic_expand`), which the caller's module
//! does not have.

use frontend_ir::loops::Irreducible;
use frontend_ir::SourceLoc;

/// Why a kernel could not be selected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IselError {
    /// The function asked for is a helper, not a kernel.
    #[error("@{func} is not a kernel: only kernels are selected (helpers are inlined first)")]
    NotAKernel {
        /// The function's name.
        func: String,
    },
    /// The processor's generation or the wave size is not one gcnc selects for.
    #[error("cannot select for {target} wave{wave_size}: {reason}")]
    Target {
        /// The processor name.
        target: String,
        /// The requested wave size.
        wave_size: u32,
        /// Why not.
        reason: &'static str,
    },
    /// The processor is not one whose code gcnc verifies end to end
    /// ([`isa::processor::Processor::verified`]): its code would go unchecked, so it is refused.
    #[error(
        "gcnc does not compile for {target} yet: its code is not verified end to end (encodings checked \
         against llvm-mc-19, run on the emulator, fuzzed); the processors it compiles for are {verified}"
    )]
    Unverified {
        /// The processor name.
        target: String,
        /// The verified processors' names, comma-separated.
        verified: String,
    },
    /// The control flow is irreducible.
    #[error("in @{func}: {source}")]
    Irreducible {
        /// The function's name.
        func: String,
        /// The offending edge.
        source: Irreducible,
        /// Where the edge's branch is written.
        loc: SourceLoc,
    },
    /// Ifs and loops nested deeper than selection goes.
    #[error(
        "in @{func}, at {block}: control flow nested more than {limit} regions deep (the arms of ifs and the \
         bodies of loops inside one another; a loop nest takes about two per level)"
    )]
    TooDeep {
        /// The function's name.
        func: String,
        /// The block where the limit was reached.
        block: String,
        /// The limit.
        limit: u32,
        /// Where the block's first instruction is written.
        loc: SourceLoc,
    },
    /// An instruction whose selection is not written yet (or cannot exist for the target).
    #[error("in @{func}: `{inst}`: {what} is not supported yet")]
    Unsupported {
        /// The function's name.
        func: String,
        /// The instruction, as the `.gir` printer writes it.
        inst: String,
        /// What exactly is missing.
        what: String,
        /// Where the instruction is written.
        loc: SourceLoc,
    },
    /// What threadgroup split mode (`-mtgsplit` on gfx90a/gfx942) forbids: the waves of a
    /// workgroup may run on different CUs, so no LDS is allocated and `s_barrier` cannot be
    /// used (AMDGPUUsage-new.txt:4709-4713, 6462-6464).
    #[error(
        "in @{func}: `{inst}`: {what} cannot be used in threadgroup split mode (-mtgsplit): the waves of a \
         workgroup may run on different CUs, with no LDS allocated and no s_barrier"
    )]
    SplitWorkgroup {
        /// The function's name.
        func: String,
        /// The instruction, as the `.gir` printer writes it.
        inst: String,
        /// What the instruction uses (shared memory, a barrier).
        what: &'static str,
        /// Where the instruction is written.
        loc: SourceLoc,
    },
    /// A kernel parameter that selection does not handle yet.
    #[error("in @{func}: parameter {param}: {what} is not supported yet")]
    Parameter {
        /// The function's name.
        func: String,
        /// The parameter, with its type (`%2: i16`).
        param: String,
        /// What exactly is missing.
        what: String,
    },
    /// Control flow that selection does not handle (yet).
    #[error("in @{func}, at {block}: {what} is not supported yet")]
    ControlFlow {
        /// The function's name.
        func: String,
        /// The IR block where the construct starts.
        block: String,
        /// The construct.
        what: String,
        /// Where the block's first instruction is written.
        loc: SourceLoc,
    },
}

impl IselError {
    /// Where in the source the error is, when the IR says: the instruction's location, or for
    /// an error about a block its first located instruction's. `None` for errors about the
    /// kernel as a whole (its kind, the target, a parameter) and for IR without locations.
    pub fn loc(&self) -> Option<SourceLoc> {
        match self {
            IselError::Irreducible { loc, .. }
            | IselError::TooDeep { loc, .. }
            | IselError::Unsupported { loc, .. }
            | IselError::SplitWorkgroup { loc, .. }
            | IselError::ControlFlow { loc, .. } => Some(*loc).filter(|l| !l.is_none()),
            IselError::NotAKernel { .. }
            | IselError::Target { .. }
            | IselError::Unverified { .. }
            | IselError::Parameter { .. } => None,
        }
    }
}
