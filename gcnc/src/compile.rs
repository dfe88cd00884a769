//! The compiler as a library call: `compile(&Module, &Target, &Options)` runs every stage in
//! order (verify, select, allocate, wait, assemble, descriptor and metadata) for each kernel
//! of a module, and returns the code object in the form the caller asks for.

use crate::launch::ScalarType;
use frontend_ir::verifier::{verify_function, verify_module, VerifierErrors};
use frontend_ir::{FuncId, FuncKind, Function, InstData, Module, SourceLoc};
use isa::processor::Target;
use runtime_abi::assembly::{write_assembly, AssemblyError, KernelText};
use runtime_abi::descriptor::{set_register_counts, KernelDescriptor, RegisterUse};
use runtime_abi::elf::{CodeObject, KernelCode};
use runtime_abi::initial_state::enable_inputs;
use runtime_abi::kernarg::CodeObjectVersion;
use runtime_abi::metadata;
use runtime_abi::occupancy::descriptor_occupancy;
use std::time::{Duration, Instant};
use thiserror::Error;

/// How to compile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The code-object version to write (V5 by default, as clang-19).
    pub code_object_version: CodeObjectVersion,
    /// Threads to compile a module's kernels on; the output is the same for any count.
    pub threads: usize,
    /// Also produce each kernel's final MIR and assembly text ([`Compiled::mir`] and
    /// [`Compiled::asm`], for `-S` ([`Compiled::assembly`]), `--emit=mir` and tests); off by
    /// default, since printing costs about a tenth of a compile.
    pub text: bool,
    /// The optimization level, 0 to 3 (`-O0` to `-O3`; 2 by default): which IR passes run
    /// ([`opt::pipeline`]).
    pub opt_level: u8,
    /// The stages after which each kernel is printed into [`Compiled::printed`]
    /// (`--print-after`).
    pub print_after: Stages,
    /// Runs the IR verifier after every optimizer pass, and the MIR verifier after every
    /// machine stage before register allocation, also in release builds (`--verify`; debug
    /// builds always do).
    pub verify: bool,
    /// The waves per SIMD a kernel's register demand should leave room for when the kernel
    /// does not say (`-mwaves-per-eu=N`; its `waves_per_simd` attribute wins). See
    /// [`wave_target`].
    pub waves_per_simd: Option<u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            code_object_version: CodeObjectVersion::V5,
            threads: 1,
            text: false,
            opt_level: 2,
            print_after: Stages::NONE,
            verify: false,
            waves_per_simd: None,
        }
    }
}

/// The machine stages after the IR passes, in pipeline order, as `--print-after` names them,
/// each with the lowest `-O` level that runs it (the pipeline asks [`machine_stage_runs`]).
const MACHINE_STAGES: [(&str, u8); 13] = [
    ("isel", 0),
    ("mir_opt", 1),
    ("hoist", 2),
    ("ds_pair", 1),
    ("mem_merge", 1),
    ("schedule", 1),
    ("regalloc", 0),
    ("fmac", 1),
    ("branches", 0),
    ("vopd", 1),
    ("hazards", 0),
    ("waitcnt", 0),
    ("delay_alu", 0),
];

/// Whether machine stage `stage` runs at `-O<level>`.
fn machine_stage_runs(stage: &str, level: u8) -> bool {
    MACHINE_STAGES.iter().any(|&(s, lowest)| s == stage && level >= lowest)
}

/// The stages a kernel goes through at `-O<level>`, for people (`gcnc compile -###` and
/// `-v`): the optimizer's pipeline, its rounds written `(up to N rounds of: ...)`, then the
/// machine stages that run at that level.
pub fn describe_stages(level: u8) -> String {
    let pipeline = opt::pipeline(level);
    let names = |passes: &[opt::Pass]| passes.iter().map(|p| p.name).collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    if !pipeline.round.is_empty() {
        let rounds = match pipeline.rounds {
            1 => "one round of".to_string(),
            n => format!("up to {n} rounds of"),
        };
        out.push_str(&format!("({rounds}: {}) ", names(pipeline.round)));
    }
    if !pipeline.last.is_empty() {
        out.push_str(&names(pipeline.last));
        out.push(' ');
    }
    let machine: Vec<&str> =
        MACHINE_STAGES.iter().filter(|&&(s, _)| machine_stage_runs(s, level)).map(|&(s, _)| s).collect();
    out.push_str(&machine.join(" "));
    out.push_str(" assemble");
    out
}

/// Whether the MIR after machine stage `stage` is in SSA form (the stage comes before register
/// allocation in [`MACHINE_STAGES`]), which [`isel::mir_verify`] checks.
fn before_allocation(stage: &str) -> bool {
    MACHINE_STAGES.iter().take_while(|&&(s, _)| s != "regalloc").any(|&(s, _)| s == stage)
}

/// A set of pipeline stages (the optimizer's passes, [`opt::PASSES`], then the machine
/// stages), as `--print-after` selects them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stages(u32);

impl Stages {
    /// No stage.
    pub const NONE: Stages = Stages(0);
    /// Every stage.
    pub const ALL: Stages = Stages(u32::MAX);

    /// Every stage's name, in pipeline order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        opt::PASSES.iter().map(|p| p.name).chain(MACHINE_STAGES.iter().map(|&(s, _)| s))
    }

    /// The set with `name` added; `None` when no stage has that name.
    pub fn with(self, name: &str) -> Option<Stages> {
        let index = Stages::names().position(|n| n == name)?;
        Some(Stages(self.0 | 1 << index))
    }

    /// Whether the set holds the stage `name`.
    pub fn contains(self, name: &str) -> bool {
        Stages::names().position(|n| n == name).is_some_and(|i| self.0 & 1 << i != 0)
    }
}

/// A kernel as printed after a stage (`--print-after`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageDump {
    /// The kernel.
    pub kernel: String,
    /// The stage.
    pub stage: &'static str,
    /// The kernel after it: IR text after an optimizer pass, MIR text after a machine stage.
    pub text: String,
}

impl CompileError {
    /// The kernel the error is about, when it is about one.
    pub fn kernel(&self) -> Option<&str> {
        match self {
            CompileError::Select { kernel, .. }
            | CompileError::Allocate { kernel, .. }
            | CompileError::Optimize { kernel, .. }
            | CompileError::Emit { kernel, .. } => Some(kernel),
            CompileError::AfterPrinting { error, .. } => error.kernel(),
            _ => None,
        }
    }

    /// What the stages `--print-after` named printed before the error (empty when none ran).
    pub fn printed(&self) -> &[StageDump] {
        match self {
            CompileError::AfterPrinting { printed, .. } => printed,
            _ => &[],
        }
    }

    /// Where in the module's source the error is, when it is about an instruction (or a block)
    /// whose function records its location ([`frontend_ir::Function::srclocs`]): an
    /// instruction selection refuses. `None` for errors about a kernel as a whole, which
    /// [`CompileError::kernel`] names.
    pub fn loc(&self) -> Option<SourceLoc> {
        match self {
            CompileError::Select { reason, .. } => reason.loc(),
            CompileError::AfterPrinting { error, .. } => error.loc(),
            _ => None,
        }
    }
}

/// Why compilation failed.
#[derive(Debug, Error)]
pub enum CompileError {
    /// The module is not valid IR.
    #[error("the module is not valid IR:\n{0}")]
    Verify(VerifierErrors),
    /// The module has no kernel.
    #[error("the module has no kernel")]
    NoKernel,
    /// A generic processor's code needs code object V6 or later (AMDGPUUsage, generic
    /// processors).
    #[error("the generic processor {processor} needs code object version 6 (-mcode-object-version=6)")]
    GenericNeedsV6 {
        /// The processor.
        processor: &'static str,
    },
    /// Instruction selection failed.
    #[error("@{kernel}: {reason}")]
    Select {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: isel::IselError,
    },
    /// Register allocation failed.
    #[error("@{kernel}: {reason}")]
    Allocate {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: regalloc::AllocError,
    },
    /// An optimizer pass left IR that does not verify (a bug in the pass).
    #[error("@{kernel}: internal error: the IR after the optimizer pass `{pass}` does not verify:\n{errors}")]
    Optimize {
        /// The kernel.
        kernel: String,
        /// The pass.
        pass: &'static str,
        /// What the verifier found.
        errors: VerifierErrors,
    },
    /// A machine stage left MIR that does not verify (a bug in the stage).
    #[error("@{kernel}: internal error: the MIR after `{stage}` does not verify:\n{errors}")]
    MirVerify {
        /// The kernel.
        kernel: String,
        /// The stage.
        stage: &'static str,
        /// What the verifier found.
        errors: isel::mir_verify::MirErrors,
    },
    /// Assembly failed (an internal error of an earlier stage).
    #[error("@{kernel}: {reason}")]
    Emit {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: emit::EmitError,
    },
    /// A kernel failed after some of the stages `--print-after` asked for had run: the
    /// error, and what those stages printed ([`CompileError::printed`]), which is what shows
    /// how the failing stage's input looked.
    #[error("{error}")]
    AfterPrinting {
        /// The error.
        error: Box<CompileError>,
        /// The kernel as printed after each stage that ran, in pipeline order.
        printed: Vec<StageDump>,
    },
}

/// What compiling one kernel produced, besides its code.
#[derive(Clone, Debug)]
pub struct KernelStats {
    /// The kernel's name.
    pub name: String,
    /// Instructions in the final code.
    pub instructions: usize,
    /// Bytes of code.
    pub bytes: usize,
    /// SGPRs the kernel uses (VCC and other extras excluded).
    pub sgprs: u16,
    /// VGPRs the kernel uses.
    pub vgprs: u16,
    /// Waves per SIMD the register use allows.
    pub waves_per_simd: u16,
    /// The wave target ([`wave_target`]): spilling kept the register demand within what these
    /// waves leave; the assignment may need a little more (aligned tuples, fixed registers),
    /// which [`KernelStats::waves_per_simd`] then shows.
    pub wave_target: u16,
    /// What register allocation spilled (SGPR lanes, AGPRs, scratch bytes, spill and reload
    /// counts).
    pub spills: regalloc::spill::SpillStats,
    /// `s_waitcnt` instructions inserted.
    pub waits: u32,
    /// `s_nop` and `s_waitcnt_depctr` instructions inserted for hazards.
    pub nops: u32,
    /// `s_delay_alu` instructions inserted (gfx11).
    pub delays: u32,
    /// Time spent in each stage, in pipeline order.
    pub pass_times: Vec<(&'static str, Duration)>,
}

/// A kernel's assembly: its instructions, and what the directives of `-S` say beyond the code
/// object ([`Compiled::assembly`]).
#[derive(Clone, Debug)]
pub struct KernelAsm {
    /// The kernel's name.
    pub name: String,
    /// Its instructions and block labels, as llvm-mc reads them; block `b` of the module's
    /// `k`-th kernel is `.LBB<k>_<b>`, so the labels of a file differ (empty unless
    /// [`Options::text`]).
    pub text: String,
    /// The registers its descriptor's counts were computed from, which `.amdhsa_next_free_*`
    /// and `.amdhsa_reserve_*` say.
    pub registers: RegisterUse,
}

/// The result of compiling a module.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The code object, ready for `runtime_abi`'s writers.
    pub object: CodeObject,
    /// Assembly of each kernel, in order (empty text unless [`Options::text`]).
    pub asm: Vec<KernelAsm>,
    /// The final MIR of each kernel, as text (empty unless [`Options::text`]).
    pub mir: Vec<(String, String)>,
    /// Per-kernel statistics.
    pub stats: Vec<KernelStats>,
    /// The kernels after the stages [`Options::print_after`] asked for, kernel by kernel in
    /// module order and each in pipeline order.
    pub printed: Vec<StageDump>,
}

impl Compiled {
    /// A relocatable object (ET_REL, `.o`).
    pub fn relocatable(&self) -> Vec<u8> {
        runtime_abi::elf::write_relocatable(&self.object)
    }

    /// Gives each kernel's explicit arguments the names and types of its source signature, as
    /// clang writes OpenCL C's with `-cl-kernel-arg-info`: `.name`, `.type_name` (`float`,
    /// `uint`, `float*` for a buffer, `bool`) and `.is_const` for a read-only buffer. A code
    /// object then says what its kernels take, and `gcnc run` checks a launch against it.
    pub fn describe_params(&mut self, signatures: &[lang::KernelSignature]) {
        for kernel in &mut self.object.kernels {
            let Some(sig) = signatures.iter().find(|s| s.name == kernel.name) else { continue };
            let args = kernel.metadata.args.iter_mut().flatten();
            let explicit = args.filter(|a| !a.value_kind.is_hidden());
            for (arg, (name, ty)) in explicit.zip(&sig.params) {
                let (elem, pointer, is_const) = match ty {
                    lang::ParamType::Scalar(t) => (*t, false, false),
                    lang::ParamType::Buffer { elem, mutable } => (*elem, true, !mutable),
                };
                let c_name = elem.name().parse::<ScalarType>().map_or("bool", ScalarType::c_name);
                arg.name = Some(name.clone());
                arg.type_name = Some(if pointer { format!("{c_name}*") } else { c_name.to_string() });
                arg.is_const = is_const.then_some(true);
            }
        }
    }

    /// A linked, loadable code object (ET_DYN, `.hsaco`).
    pub fn shared(&self) -> Vec<u8> {
        runtime_abi::elf::write_shared(&self.object)
    }

    /// The assembly file (`-S`): the target, each kernel's code and `.amdhsa_kernel` block,
    /// and the metadata, which `llvm-mc-19 -filetype=obj` assembles into
    /// [`Compiled::relocatable`]'s code, descriptors and metadata
    /// ([`runtime_abi::assembly::write_assembly`]). Needs the text of [`Options::text`].
    pub fn assembly(&self) -> Result<String, AssemblyError> {
        let texts: Vec<KernelText> =
            self.asm.iter().map(|k| KernelText { body: &k.text, registers: k.registers }).collect();
        write_assembly(&self.object, &texts)
    }
}

/// Compiles every kernel of `module` for `target`.
pub fn compile(module: &Module, target: &Target, options: &Options) -> Result<Compiled, CompileError> {
    verify_module(module).map_err(CompileError::Verify)?;
    let proc = target.processor();
    if proc.generic.is_some() && options.code_object_version < CodeObjectVersion::V6 {
        return Err(CompileError::GenericNeedsV6 { processor: proc.name });
    }
    let kernels: Vec<FuncId> = module.kernels().map(|(id, _)| id).collect();
    if kernels.is_empty() {
        return Err(CompileError::NoKernel);
    }
    // Kernels compile independently; each thread takes every `threads`-th kernel, and the
    // results are put back in module order, so the output never depends on the thread count.
    let threads = options.threads.clamp(1, kernels.len());
    let mut results: Vec<Option<Result<KernelOutput, CompileError>>> = (0..kernels.len()).map(|_| None).collect();
    if threads == 1 {
        for (index, (slot, &id)) in results.iter_mut().zip(&kernels).enumerate() {
            *slot = Some(compile_kernel(module, id, index, target, options));
        }
    } else {
        let done: Vec<Vec<(usize, Result<KernelOutput, CompileError>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let kernels = &kernels;
                    scope.spawn(move || {
                        (t..kernels.len())
                            .step_by(threads)
                            .map(|i| (i, compile_kernel(module, kernels[i], i, target, options)))
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a compile thread panicked")).collect()
        });
        for (i, result) in done.into_iter().flatten() {
            results[i] = Some(result);
        }
    }
    let mut compiled = Compiled {
        object: CodeObject { target: target.id, version: options.code_object_version, kernels: Vec::new() },
        asm: Vec::new(),
        mir: Vec::new(),
        stats: Vec::new(),
        printed: Vec::new(),
    };
    for result in results {
        let mut out = result.expect("every kernel was compiled")?;
        compiled.printed.append(&mut out.printed);
        compiled.mir.push((out.code.name.clone(), out.mir));
        compiled.asm.push(out.asm);
        compiled.stats.push(out.stats);
        compiled.object.kernels.push(out.code);
    }
    Ok(compiled)
}

/// What one kernel compiles to.
struct KernelOutput {
    code: KernelCode,
    mir: String,
    asm: KernelAsm,
    stats: KernelStats,
    printed: Vec<StageDump>,
}

/// Kernel `id` of `module` as the optimizer leaves it at `options.opt_level`, as a module of
/// that one kernel, or `None` where no pass runs (`-O0`, a kernel with calls): what selection
/// receives. [`crate::check`] runs it on the interpreter beside the source, so that the
/// optimizer is checked apart from the code generator.
pub fn optimized(module: &Module, id: FuncId, options: &Options) -> Result<Option<Module>, CompileError> {
    optimize(module, id, options, &mut Vec::new())
}

/// `module` with kernel `id` optimized at `options.opt_level`, as a module of that one kernel
/// (helpers are inlined before selection, so the kernel is all isel needs), or `None` at
/// `-O0`. The IR is verified after each pass in debug builds and with [`Options::verify`].
fn optimize(
    module: &Module,
    id: FuncId,
    options: &Options,
    printed: &mut Vec<StageDump>,
) -> Result<Option<Module>, CompileError> {
    let calls = |f: &Function| f.insts_in_layout().any(|(_, i)| matches!(f.dfg.insts[i], InstData::Call { .. }));
    // A kernel with calls (from IR: the front ends inline helpers) is selected as written, so
    // selection reports the calls rather than the optimizer seeing a kernel without its callees.
    if opt::pipeline(options.opt_level).is_empty() || calls(&module.functions[id]) {
        return Ok(None);
    }
    let mut func = module.functions[id].clone();
    let verify = cfg!(debug_assertions) || options.verify;
    let mut broken: Option<(&'static str, VerifierErrors)> = None;
    let mut after = |pass: &'static str, f: &Function| {
        if options.print_after.contains(pass) {
            let mut text = String::new();
            // Writing into a String cannot fail.
            let _ = frontend_ir::write::write_function(&mut text, module, f);
            printed.push(StageDump { kernel: f.name.clone(), stage: pass, text });
        }
        if verify && broken.is_none() {
            let mut alone = Module::default();
            let k = alone.push(f.clone());
            if let Err(errors) = verify_function(&alone, k) {
                broken = Some((pass, errors));
            }
        }
    };
    opt::optimize(&mut func, options.opt_level, &mut after);
    if let Some((pass, errors)) = broken {
        return Err(CompileError::Optimize { kernel: func.name, pass, errors });
    }
    let mut single = Module::default();
    single.push(func);
    Ok(Some(single))
}

/// The waves per SIMD `func`'s register demand aims to leave room for on `target` (its wave
/// target, which spilling aims under): what the
/// kernel asks (`waves_per_simd`, else [`Options::waves_per_simd`]), and at least what its
/// largest workgroup needs resident at once (`reqd_workgroup_size`, else `max_workgroup_size`,
/// else the 1024 work-items the metadata's `.max_flat_workgroup_size` promises), at most what
/// the processor holds.
pub fn wave_target(func: &Function, target: &Target, options: &Options) -> u16 {
    let FuncKind::Kernel(attrs) = &func.kind else { return 1 };
    let lanes = attrs.max_flat_workgroup_size().min(1024) as u32;
    let asked = attrs.waves_per_simd.or(options.waves_per_simd).unwrap_or(1);
    let max = u32::from(target.processor().max_waves_per_simd);
    asked.max(target.waves_per_simd_for(lanes)).min(max) as u16
}

/// Runs the pipeline for one kernel, the module's `index`-th (which names its block labels);
/// an error after some stage was printed carries what was ([`CompileError::AfterPrinting`]).
fn compile_kernel(
    module: &Module,
    id: FuncId,
    index: usize,
    target: &Target,
    options: &Options,
) -> Result<KernelOutput, CompileError> {
    let mut printed = Vec::new();
    run_pipeline(module, id, index, target, options, &mut printed).map_err(|error| match printed.is_empty() {
        true => error,
        false => CompileError::AfterPrinting { error: Box::new(error), printed },
    })
}

/// The pipeline of [`compile_kernel`], printing into `printed`.
fn run_pipeline(
    module: &Module,
    id: FuncId,
    index: usize,
    target: &Target,
    options: &Options,
    printed: &mut Vec<StageDump>,
) -> Result<KernelOutput, CompileError> {
    let proc = target.processor();
    let kernel = module.functions[id].name.clone();
    let waves = wave_target(&module.functions[id], target, options);
    let limits = regalloc::demand::limits_for_occupancy(proc, target.wave_size, waves);
    let mut times = Vec::new();
    let mut timed = |name: &'static str, start: Instant| times.push((name, start.elapsed()));
    let t = Instant::now();
    let optimized = optimize(module, id, options, printed)?;
    if optimized.is_some() {
        timed("opt", t);
    }
    let (module, id) = match &optimized {
        Some(m) => (m, FuncId::from_u32(0)),
        None => (module, id),
    };
    let dumps = printed.len();
    let verify = cfg!(debug_assertions) || options.verify;
    // A long branch needs an SGPR pair above the kernel's; when a kernel that needs one uses
    // every SGPR, the machine stages run again with a pair (then two) kept out of allocation.
    let mut reserve = 0u16;
    // When allocation finds no room in a file after spilling to its size, the machine stages
    // run again and spill more (`Spilling::retry`, with the round it is in): rebuilding the
    // input spares every kernel a copy of its function kept for the rare retry.
    let mut respill: Option<(regalloc::Spilling, u32)> = None;
    // Without architected flat scratch, VGPR spills to scratch need the entry to set
    // FLAT_SCRATCH up: when allocation finds them, the machine stages run again with it.
    let mut scratch = false;
    let (sel, mir, alloc, hazards, clause_nops, waits, delays, assembled) = loop {
        // Prints after `stage` if asked, and checks the MIR in SSA form (up to allocation)
        // with the verifier in debug builds and with `--verify`.
        let mut after = |stage: &'static str, mir: &isa::mir::Function| -> Result<(), CompileError> {
            if options.print_after.contains(stage) {
                printed.push(StageDump { kernel: kernel.clone(), stage, text: mir.to_string() });
            }
            if verify && before_allocation(stage) {
                isel::mir_verify::verify(mir).map_err(|errors| CompileError::MirVerify {
                    kernel: kernel.clone(),
                    stage,
                    errors,
                })?;
            }
            Ok(())
        };
        let t = Instant::now();
        let mut sel = isel::select_with(module, id, target, scratch)
            .map_err(|reason| CompileError::Select { kernel: kernel.clone(), reason })?;
        timed("isel", t);
        let empty = isa::mir::Function::new("", sel.mir.family, sel.mir.wave_size);
        let mut mir = std::mem::replace(&mut sel.mir, empty);
        after("isel", &mir)?;
        let runs = |stage: &str| machine_stage_runs(stage, options.opt_level);
        if runs("mir_opt") {
            let t = Instant::now();
            isel::mir_opt::optimize(&mut mir);
            timed("mir_opt", t);
            after("mir_opt", &mir)?;
        }
        if runs("hoist") {
            let t = Instant::now();
            sched::hoist::hoist_invariants(&mut mir);
            timed("hoist", t);
            after("hoist", &mir)?;
        }
        if runs("ds_pair") {
            let t = Instant::now();
            sched::ds_pair::pair_lds(&mut mir);
            timed("ds_pair", t);
            after("ds_pair", &mir)?;
        }
        if runs("mem_merge") {
            let t = Instant::now();
            sched::mem_merge::merge_accesses(&mut mir);
            timed("mem_merge", t);
            after("mem_merge", &mir)?;
        }
        if runs("schedule") {
            let t = Instant::now();
            sched::schedule::schedule(&mut mir, proc, limits);
            timed("schedule", t);
            after("schedule", &mir)?;
        }
        let t = Instant::now();
        // VGPR spills go to scratch after the private arrays.
        let mut spilling = regalloc::Spilling { scratch_base: sel.private_bytes, ..regalloc::Spilling::new(proc) };
        spilling.target = spilling.target.min(limits);
        spilling.reserved_sgprs = reserve;
        spilling.scratch |= scratch;
        let spilling = respill.map_or(spilling, |(again, _)| again);
        let alloc = match regalloc::allocate_once(&mut mir, proc, &spilling) {
            Ok(alloc) => alloc,
            // VGPRs spill to scratch, which this kernel's entry must set up (gfx90a): select
            // again with the private segment (and spill from the first round again).
            Err(regalloc::AllocError::NoScratch { .. }) if !scratch => {
                printed.truncate(dumps);
                scratch = true;
                respill = None;
                continue;
            }
            Err(reason) => {
                let round = respill.map_or(0, |(_, round)| round) + 1;
                match spilling.retry(proc, mir.family, &reason, round) {
                    Some(again) => {
                        printed.truncate(dumps);
                        respill = Some((again, round));
                        continue;
                    }
                    None => return Err(CompileError::Allocate { kernel: kernel.clone(), reason }),
                }
            }
        };
        isa::encode::widen_to_vop3(&mut mir);
        timed("regalloc", t);
        after("regalloc", &mir)?;
        if runs("fmac") {
            let t = Instant::now();
            sched::fmac::use_fmac(&mut mir);
            timed("fmac", t);
            after("fmac", &mir)?;
        }
        // Before the hazards and waits, which then count on the final instruction stream and paths.
        let t = Instant::now();
        sched::branches::simplify_branches(&mut mir);
        timed("branches", t);
        after("branches", &mir)?;
        if runs("vopd") {
            let t = Instant::now();
            sched::vopd::pair_vopd(&mut mir);
            timed("vopd", t);
            after("vopd", &mir)?;
        }
        let t = Instant::now();
        let hazards = sched::hazards::resolve_hazards(&mut mir, target);
        isel::strip_implicit(&mut mir);
        timed("hazards", t);
        after("hazards", &mir)?;
        let t = Instant::now();
        let waits = sched::waitcnt::insert_waits(&mut mir);
        let clause_nops = sched::hazards::break_smem_clauses(&mut mir, target);
        if options.opt_level >= 1 {
            sched::clause::insert_clauses(&mut mir, proc);
        }
        timed("waitcnt", t);
        after("waitcnt", &mir)?;
        let t = Instant::now();
        let delays = sched::delay_alu::insert_delay_alu(&mut mir);
        timed("delay_alu", t);
        after("delay_alu", &mir)?;
        let t = Instant::now();
        match emit::assemble::assemble(&mir, proc.sgprs, options.text.then_some(index)) {
            Ok(assembled) => {
                timed("assemble", t);
                break (sel, mir, alloc, hazards, clause_nops, waits, delays, assembled);
            }
            Err(emit::EmitError::NoLongBranchPair { .. }) if reserve < 4 => {
                printed.truncate(dumps);
                reserve += 2;
                respill = None;
            }
            Err(reason) => return Err(CompileError::Emit { kernel: kernel.clone(), reason }),
        }
    };

    let mut descriptor = KernelDescriptor::for_target(target);
    let scratch_bytes = sel.private_bytes + alloc.spills.scratch_bytes;
    let inputs = runtime_abi::initial_state::KernelInputs {
        private_segment: sel.inputs.private_segment || scratch_bytes > 0,
        ..sel.inputs
    };
    enable_inputs(&mut descriptor, proc, &inputs, target.wave_size);
    // With the AGPRs, so ACCUM_OFFSET, the unified VGPR count and `.agpr_count` follow them.
    let mut regs: RegisterUse = alloc.register_use(target.wave_size);
    regs.xnack_mask = runtime_abi::descriptor::reserves_xnack_mask(&target.id);
    regs.flat_scratch = descriptor.props.enable_sgpr_flat_scratch_init;
    // The SGPR pair of long branches, above the allocated ones.
    regs.sgprs = regs.sgprs.max(assembled.next_free_sgpr);
    set_register_counts(&mut descriptor, proc, &regs);
    descriptor.group_segment_fixed_size = sel.lds_bytes;
    descriptor.private_segment_fixed_size = scratch_bytes;
    descriptor.kernarg_size = sel.kernarg.size;
    let mut meta = metadata::Kernel::new(
        &kernel,
        options.code_object_version,
        proc,
        &descriptor,
        &sel.explicit_args,
        &sel.kernarg,
        &regs,
    );
    // The workgroup-size attributes, as clang writes reqd_work_group_size: the required size,
    // and its product (or the IR's bound) as the flat maximum.
    if let Some(attrs) = module.functions[id].kernel_attrs() {
        meta.reqd_workgroup_size = attrs.reqd_workgroup_size.map(|size| size.to_vec());
        meta.max_flat_workgroup_size = attrs.max_flat_workgroup_size().min(u64::from(u32::MAX)) as u32;
    }
    let stats = KernelStats {
        name: kernel.clone(),
        instructions: assembled.inst_count,
        bytes: assembled.code.len(),
        sgprs: alloc.sgprs,
        vgprs: alloc.vgprs,
        // What the hardware (and the emulator) will take from the descriptor.
        waves_per_simd: descriptor_occupancy(&descriptor, proc, target.wave_size).waves_per_simd,
        wave_target: waves,
        spills: alloc.spills,
        waits: waits.waits,
        nops: hazards.nops + hazards.depctrs + clause_nops,
        delays: delays.delays,
        pass_times: times,
    };
    Ok(KernelOutput {
        mir: if options.text { mir.to_string() } else { String::new() },
        asm: KernelAsm { name: kernel.clone(), text: assembled.asm, registers: regs },
        code: KernelCode { name: kernel, code: assembled.code, descriptor, metadata: meta },
        stats,
        printed: std::mem::take(printed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::processor::TargetId;

    /// The wave target of a kernel with the attributes `attrs` on `mcpu` (`wave` lanes, CU mode
    /// or not), with `-mwaves-per-eu` at `cli`.
    fn target_of(attrs: &str, mcpu: &str, wave: u32, cumode: bool, cli: Option<u32>) -> u16 {
        let module = frontend_ir::parser::parse_module(&format!("kernel @k() {attrs} {{\nblock0:\n    ret\n}}\n"))
            .expect("the kernel parses");
        let mut target = Target::new(TargetId::parse(mcpu).expect("a known processor"));
        (target.wave_size, target.cumode) = (wave, cumode);
        let options = Options { waves_per_simd: cli, ..Options::default() };
        wave_target(&module.functions[FuncId::from_u32(0)], &target, &options)
    }

    /// The MIR verifier runs after the SSA stages, from selection to scheduling, and not once
    /// registers are allocated (the MIR is no longer in SSA form).
    #[test]
    fn the_mir_verifier_runs_up_to_allocation() {
        let verified: Vec<&str> = MACHINE_STAGES.iter().map(|&(s, _)| s).filter(|s| before_allocation(s)).collect();
        assert_eq!(verified, ["isel", "mir_opt", "hoist", "ds_pair", "mem_merge", "schedule"]);
        assert!(!before_allocation("nonesuch"));
    }

    /// A workgroup's waves must fit on the SIMDs it shares (LLVM's `getWavesPerEUForWorkGroup`):
    /// 1024 work-items by default, as the metadata promises; the kernel's or the command line's
    /// request raises the target, up to what the processor holds.
    #[test]
    fn the_wave_target_fits_the_workgroup_and_the_request() {
        assert_eq!(target_of("", "gfx1100", 32, false, None), 8);
        assert_eq!(target_of("", "gfx1100", 32, true, None), 16);
        assert_eq!(target_of("", "gfx1100", 64, false, None), 4);
        assert_eq!(target_of("", "gfx942", 64, false, None), 4);
        assert_eq!(target_of("reqd_workgroup_size(64, 1, 1)", "gfx942", 64, false, None), 1);
        assert_eq!(target_of("max_workgroup_size(256)", "gfx1100", 32, false, None), 2);
        assert_eq!(target_of("reqd_workgroup_size(64, 1, 1) waves_per_simd(6)", "gfx942", 64, false, None), 6);
        assert_eq!(target_of("reqd_workgroup_size(64, 1, 1)", "gfx942", 64, false, Some(3)), 3);
        assert_eq!(target_of("reqd_workgroup_size(64, 1, 1) waves_per_simd(2)", "gfx942", 64, false, Some(5)), 2);
        assert_eq!(target_of("waves_per_simd(20)", "gfx942", 64, false, None), 8);
        assert_eq!(target_of("waves_per_simd(2)", "gfx1100", 32, true, None), 16);
    }
}
