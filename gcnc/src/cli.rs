//! The command line's shape (clap derive) and each subcommand's entry point. The contract is
//! `shared/design/cli.md`; the launch syntax (`--grid`, `--arg`, ...) is parsed by the library's
//! [`gcnc::launch`], so it can be tested and reused without the program.
//!
//! Exit status (set by `main`): 0 on success; 1 on a user error, whose message `main` prints
//! as `error: ...`; 2 on a usage error, which clap reports and exits with itself.

use std::ffi::OsString;
use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use gcnc::launch::{format_elements, parse_dims, parse_param_index, ArgSpec, DumpSpec};

use crate::term::ColorWhen;

/// The processor `-mcpu` defaults to.
pub const DEFAULT_MCPU: &str = "gfx1100";

const CLANG_SPELLINGS: &str = "Clang's spellings are accepted: -target amdgcn-amd-amdhsa, -mcpu=gfx942:sramecc+, \
-m[no-]wavefrontsize64, -mcumode, -mno-cumode, -mtgsplit, -mcode-object-version=5, -mwaves-per-eu=N, -O0 to -O3.";

/// The one target triple gcnc writes code objects for.
const TRIPLE: &str = "amdgcn-amd-amdhsa";

/// The version `-V` prints: the package's and the commit it was built from.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("GCNC_COMMIT"), ")");

/// What `--version` prints: [`VERSION`], the target triple and the processors gcnc compiles
/// for (isa's table), each with its wave sizes.
fn long_version() -> String {
    let processors: Vec<String> = isa::processor::PROCESSORS
        .iter()
        .filter(|p| p.verified)
        .map(|p| format!("{} ({})", p.name, if p.wave32 { "wave32, wave64" } else { "wave64" }))
        .collect();
    format!("{VERSION}\ntarget: {TRIPLE}\ncompiles for: {}", processors.join(", "))
}

/// gcnc: a compiler backend for AMD GPUs.
#[derive(Debug, Parser)]
#[command(name = "gcnc", version = VERSION, after_help = CLANG_SPELLINGS)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Color diagnostics: auto (when stderr is a terminal and NO_COLOR is unset), always, never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile a kernel (.gk) or textual IR (.gir) into a code object, assembly or IR.
    #[command(after_help = CLANG_SPELLINGS)]
    Compile(CompileOpts),
    /// Run a kernel on the emulator, the reference interpreter, or a GPU.
    #[command(after_help = CLANG_SPELLINGS)]
    Run(RunOpts),
    /// Run a kernel on the emulator and on the reference interpreter, and compare the results.
    #[command(after_help = CLANG_SPELLINGS)]
    Check(CheckOpts),
    /// Disassemble a code object (ours or anyone's).
    Disasm(DisasmOpts),
    /// Show a code object's header, target and kernels (descriptors and metadata).
    Inspect(InspectOpts),
    /// Run the conformance suite on one or more targets.
    #[command(after_help = CLANG_SPELLINGS)]
    Conformance(ConformanceOpts),
    /// List the processors gcnc knows: which it compiles for and emulates, and their wave sizes.
    Targets,
    /// Print a completion script for SHELL (e.g. `gcnc completions bash > ~/.local/share/bash-completion/completions/gcnc`)
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; e.g. `gcnc man > gcnc.1; man ./gcnc.1`), or a subcommand's
    Man {
        /// The subcommand whose page to print (its page is gcnc-SUBCOMMAND(1))
        #[arg(value_name = "SUBCOMMAND")]
        subcommand: Option<String>,
    },
}

/// The target flags shared by `compile`, `run` and `check`.
#[derive(Debug, Args)]
pub struct TargetOpts {
    /// The target triple, as clang takes it (-target or --target=): amdgcn-amd-amdhsa, the only
    /// one gcnc writes; the processor comes from -mcpu
    #[arg(long = "target", value_name = "TRIPLE", value_parser = parse_triple)]
    pub triple: Option<String>,
    /// Target ID as in AMDGPUUsage, e.g. gfx1100 or gfx942:sramecc+:xnack- [default: gfx1100]
    /// (written -mcpu=... as in clang)
    #[arg(long = "mcpu", value_name = "TARGET_ID", value_parser = parse_target_id)]
    pub mcpu: Option<String>,
    /// Use wave64 on a processor that also has wave32 (-mwavefrontsize64)
    #[arg(long = "mwavefrontsize64", overrides_with = "no_wavefrontsize64")]
    pub wavefrontsize64: bool,
    /// The processor's default wave size, wave32 on GFX10+ (-mno-wavefrontsize64; the last of
    /// the two given wins, as in clang)
    #[arg(long = "mno-wavefrontsize64", overrides_with = "wavefrontsize64")]
    pub no_wavefrontsize64: bool,
    /// CU mode rather than WGP mode on gfx10+ (-mcumode)
    #[arg(long = "mcumode", overrides_with = "no_cumode")]
    pub cumode: bool,
    /// WGP mode (-mno-cumode)
    #[arg(long = "mno-cumode", overrides_with = "cumode")]
    pub no_cumode: bool,
    /// Workgroups may be split across CUs on gfx90a/gfx942 (-mtgsplit)
    #[arg(long = "mtgsplit")]
    pub tgsplit: bool,
}

impl TargetOpts {
    /// The target these flags describe: the target ID of `-mcpu` (processor facts from isa's
    /// table), wave64 for `-mwavefrontsize64` or a processor without wave32, CU mode and
    /// threadgroup split as given.
    pub fn target(&self) -> Result<gcnc::Target> {
        let id = gcnc::TargetId::parse(self.mcpu()).with_context(|| format!("-mcpu={}", self.mcpu()))?;
        let mut target = gcnc::Target::new(id);
        if self.wavefrontsize64 {
            target.wave_size = 64;
        }
        target.cumode = self.cumode().unwrap_or(false);
        target.tgsplit = self.tgsplit;
        Ok(target)
    }

    /// The target ID, or [`DEFAULT_MCPU`].
    pub fn mcpu(&self) -> &str {
        self.mcpu.as_deref().unwrap_or(DEFAULT_MCPU)
    }

    /// Some(true) for `-mcumode`, Some(false) for `-mno-cumode` (the last one given wins, as in
    /// clang), None for the processor's default.
    pub fn cumode(&self) -> Option<bool> {
        match (self.cumode, self.no_cumode) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// What `compile` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// A linked, loadable code object (ET_DYN), the default.
    Hsaco,
    /// A relocatable object (ET_REL), as -c.
    Obj,
    /// An assembly file, as -S: the target ID, each kernel's code and `.amdhsa_kernel`
    /// descriptor directives, and the metadata, which llvm-mc-19 assembles into the -c object.
    Asm,
    /// Textual IR after lowering.
    Ir,
    /// Machine IR after the last pass.
    Mir,
}

/// `gcnc compile`.
/// The optimization level of whatever compiles (`compile`, `run`, `check`, `conformance`).
#[derive(Debug, Args)]
pub struct OptOpts {
    /// Optimization level (written -O0 to -O3)
    #[arg(long = "opt-level", value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// The waves per SIMD each kernel's register demand leaves room for, unless the kernel
    /// asks otherwise with `waves_per_simd` (written -mwaves-per-eu=N); the compiler spills
    /// rather than need more registers
    #[arg(long = "mwaves-per-eu", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=20))]
    pub waves_per_eu: Option<u32>,
}

impl OptOpts {
    /// The compile options these flags choose, the others at their defaults.
    pub fn options(&self) -> gcnc::Options {
        gcnc::Options { opt_level: self.opt_level, waves_per_simd: self.waves_per_eu, ..gcnc::Options::default() }
    }
}

#[allow(dead_code)] // read by the compiler driver that later issues add
#[derive(Debug, Args)]
pub struct CompileOpts {
    /// The input: a kernel-language file (.gk) or textual IR (.gir)
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    #[command(flatten)]
    pub target: TargetOpts,
    #[command(flatten)]
    pub opt: OptOpts,
    /// Write a relocatable object (.o)
    #[arg(short = 'c', conflicts_with_all = ["asm", "emit"])]
    pub obj: bool,
    /// Write an assembly file (.s): `.amdgcn_target`, each kernel's instructions and
    /// `.amdhsa_kernel` block (every descriptor field), and `.amdgpu_metadata`;
    /// `llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=PROC -filetype=obj` (with -mattr for the
    /// target ID's features and +wavefrontsize64 for GFX10+ wave64) makes it the -c object
    #[arg(short = 'S', conflicts_with = "emit")]
    pub asm: bool,
    /// What to write [default: hsaco]
    #[arg(long, value_enum, value_name = "KIND")]
    pub emit: Option<EmitKind>,
    /// Code object version (written -mcode-object-version=N)
    #[arg(long = "mcode-object-version", value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u8).range(4..=6))]
    pub code_object_version: u8,
    /// The output file [default: IN with .hsaco, .o or .s for its extension]
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Compile the module's kernels on N threads (the output never depends on N)
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
    /// Print each kernel after this stage to stderr (repeatable): an optimizer pass (IR) or a
    /// machine stage (MIR)
    #[arg(long = "print-after", value_name = "STAGE",
          value_parser = clap::builder::PossibleValuesParser::new(gcnc::compile::Stages::names()))]
    pub print_after: Vec<String>,
    /// Print each kernel after every stage to stderr
    #[arg(long = "print-after-all")]
    pub print_after_all: bool,
    /// Verify the IR after every optimizer pass (debug builds always do)
    #[arg(long)]
    pub verify: bool,
    /// Print per-kernel statistics: instructions, bytes, registers, spills, occupancy, waits
    #[arg(long)]
    pub stats: bool,
    /// Print the version, the target, the stages each kernel goes through and the output to
    /// stderr, compile, then print the stages each kernel went through (-v, as in clang)
    #[arg(short = 'v')]
    pub verbose: bool,
    /// Print what would be done, as -v does, and do nothing (written -###, as in clang)
    #[arg(long = "###")]
    pub dry_run: bool,
}

impl CompileOpts {
    /// What to write, from `-c`, `-S` and `--emit` (clap has already rejected combinations).
    pub fn emit_kind(&self) -> EmitKind {
        match (self.obj, self.asm, self.emit) {
            (true, _, _) => EmitKind::Obj,
            (_, true, _) => EmitKind::Asm,
            (_, _, Some(kind)) => kind,
            _ => EmitKind::Hsaco,
        }
    }
}

/// Where `run` runs a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Device {
    /// The built-in emulator, strict about waits, hazards and bounds.
    Emu,
    /// The reference interpreter (for .gk and .gir input; no compilation).
    Interp,
    /// A real GPU through the HSA runtime.
    Gpu,
}

/// `gcnc run`.
#[allow(dead_code)] // read by the runners as later issues add them
#[derive(Debug, Args)]
pub struct RunOpts {
    /// The input: .gk, .gir, or a code object (.o, .hsaco)
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The kernel to run (needed when the input has several)
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Work-items in each dimension (HSA's grid size) [default: the input's `// launch:` lines]
    #[arg(long = "grid", value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub grid_flag: Option<[u32; 3]>,
    /// Workgroup size [default: the input's `// launch:` lines]
    #[arg(long = "block", value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub block_flag: Option<[u32; 3]>,
    /// The grid: `--grid`'s, else the launch lines' ([`resolve_launch`]).
    #[arg(skip)]
    pub grid: [u32; 3],
    /// The workgroup size: `--block`'s, else the launch lines'.
    #[arg(skip)]
    pub block: [u32; 3],
    /// One per kernel parameter, in order: TYPE:VALUE or VALUE (scalar), TYPE[N]:INIT with INIT
    /// one of zeros, iota, fill=V, rand=SEED, edge=SEED, file=PATH (buffer), or lds:BYTES
    /// [default: the input's `// launch:` lines]
    #[arg(long = "arg", value_name = "SPEC", value_parser = ArgSpec::parse, allow_hyphen_values = true)]
    pub args: Vec<ArgSpec>,
    /// After the run, write buffer parameter I (0-based) to FILE as raw little-endian bytes
    #[arg(long, value_name = "I=FILE", value_parser = DumpSpec::parse)]
    pub dump: Vec<DumpSpec>,
    /// After the run, print buffer parameter I (0-based), one element per line
    #[arg(long, value_name = "I", value_parser = parse_param_index)]
    pub print: Vec<usize>,
    /// The most wave-instructions the run may execute before it is reported as a livelock
    /// [default: 100000000 on the emulator, 200000000 on the interpreter]
    #[arg(long = "step-limit", value_name = "N")]
    pub step_limit: Option<u64>,
    #[command(flatten)]
    pub target: TargetOpts,
    #[command(flatten)]
    pub opt: OptOpts,
    /// Where to run
    #[arg(long, value_enum, default_value_t = Device::Emu)]
    pub device: Device,
    /// Print the run's statistics to stderr: its time, and on the emulator the workgroups,
    /// waves, instructions executed and the occupancy the kernel's registers allow
    #[arg(long)]
    pub stats: bool,
}

impl RunOpts {
    /// Sets the grid, the workgroup size and, when no `--arg` is given, the arguments, from
    /// the flags and the input's launch lines ([`resolve_launch`]).
    pub fn resolve_launch(&mut self) -> Result<()> {
        (self.grid, self.block) = resolve_launch(&self.input, self.grid_flag, self.block_flag, Some(&mut self.args))?;
        Ok(())
    }
}

/// `gcnc check`.
#[derive(Debug, Args)]
pub struct CheckOpts {
    /// The input: .gk or .gir
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The kernel to check (needed when the input has several)
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Work-items in each dimension [default: the input's `// launch:` lines]
    #[arg(long = "grid", value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub grid_flag: Option<[u32; 3]>,
    /// Workgroup size [default: the input's `// launch:` lines]
    #[arg(long = "block", value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    pub block_flag: Option<[u32; 3]>,
    /// The grid: `--grid`'s, else the launch lines' ([`resolve_launch`]).
    #[arg(skip)]
    pub grid: [u32; 3],
    /// The workgroup size: `--block`'s, else the launch lines'.
    #[arg(skip)]
    pub block: [u32; 3],
    /// Elements in each random buffer [default: the number of work-items]
    #[arg(long, value_name = "N")]
    pub len: Option<usize>,
    /// Seed of the random inputs (default 0) and of the emulator's interleaving: buffer I is
    /// edge=S+I (half edge cases: 0, ±1, MIN, MAX, NaN, ±inf, denormals, the largest and
    /// smallest values; half random values), float scalars likewise, integer scalars (sizes
    /// and indices, mostly) 0, 1, len-1, len or random in 0..=len
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Give the arguments instead of random ones: once per parameter, in order, as for run
    /// [default: the input's launch lines' arguments when no launch flag is given, else random]
    #[arg(long = "arg", value_name = "SPEC", value_parser = ArgSpec::parse, allow_hyphen_values = true)]
    pub args: Vec<ArgSpec>,
    /// The most wave-instructions a run may execute before it is reported as a livelock
    /// [default: 100000000 on the emulator, 200000000 on the interpreter]
    #[arg(long = "step-limit", value_name = "N")]
    pub step_limit: Option<u64>,
    #[command(flatten)]
    pub target: TargetOpts,
    #[command(flatten)]
    pub opt: OptOpts,
}

impl CheckOpts {
    /// Sets the grid and the workgroup size from the flags and the input's launch lines
    /// ([`resolve_launch`]). `gcnc check FILE` with none of `--grid`, `--block`, `--len` and
    /// `--arg` runs the file's launch whole, arguments included (they say which inputs are
    /// valid for it: sizes that match its buffers); with any of them, the arguments are the
    /// command line's, else random, as they are for a file without launch arguments.
    pub fn resolve_launch(&mut self) -> Result<()> {
        let whole = self.grid_flag.is_none() && self.block_flag.is_none() && self.len.is_none() && self.args.is_empty();
        let args = whole.then_some(&mut self.args);
        (self.grid, self.block) = resolve_launch(&self.input, self.grid_flag, self.block_flag, args)?;
        Ok(())
    }
}

/// `gcnc disasm`.
#[derive(Debug, Args)]
pub struct DisasmOpts {
    /// A code object (.o or .hsaco)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `gcnc inspect`.
#[derive(Debug, Args)]
pub struct InspectOpts {
    /// A code object (.o or .hsaco)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print JSON instead of YAML
    #[arg(long)]
    pub json: bool,
}

/// Where `conformance` runs the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConformanceDevice {
    /// The built-in emulator.
    Emu,
    /// A real GPU through the HSA runtime.
    Gpu,
}

/// How `conformance` prints its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// A table for the terminal.
    Text,
    /// A Markdown table and lists (for a pull request or an issue).
    Markdown,
}

/// `gcnc conformance`.
#[derive(Debug, Args)]
pub struct ConformanceOpts {
    /// A target to run on, at its default wave size and the other one where it has both
    /// (repeatable; written -mcpu=... as in clang)
    #[arg(long = "mcpu", value_name = "TARGET_ID", value_parser = parse_target_id)]
    pub mcpu: Vec<String>,
    /// Where to run
    #[arg(long, value_enum, default_value_t = ConformanceDevice::Emu)]
    pub device: ConformanceDevice,
    /// Run only the kernels whose name contains PATTERN
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Also write the results as JUnit XML to FILE
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// How to print the results
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// List the suite's kernels (those --filter selects) with their launches, and run nothing
    #[arg(long)]
    pub list: bool,
    /// Split workgroups across CUs on the targets that can (gfx90a, gfx942; -mtgsplit): kernels
    /// that use shared memory or barriers are not applicable there
    #[arg(long = "mtgsplit")]
    pub tgsplit: bool,
    #[command(flatten)]
    pub opt: OptOpts,
}

/// The single-dash long options clang uses, which this program accepts as written.
const SINGLE_DASH_LONG: [&str; 9] = [
    "target",
    "mcpu",
    "mwavefrontsize64",
    "mno-wavefrontsize64",
    "mcumode",
    "mno-cumode",
    "mtgsplit",
    "mcode-object-version",
    "mwaves-per-eu",
];

/// `--target`'s value: [`TRIPLE`] only (a usage error names it otherwise).
fn parse_triple(text: &str) -> Result<String, String> {
    if text == TRIPLE {
        Ok(text.to_string())
    } else {
        Err(format!("gcnc writes code objects for {TRIPLE} only (the processor is -mcpu's)"))
    }
}

/// `-mcpu`'s value: a target ID of a processor in isa's table, with features it has (a usage
/// error otherwise, as for every bad flag value; a processor gcnc does not compile for yet is
/// refused when it would be compiled for, with status 1).
fn parse_target_id(text: &str) -> Result<String, String> {
    gcnc::TargetId::parse(text).map(|_| text.to_string()).map_err(|e| e.to_string())
}

/// Parses the program's command line: clang's spellings are rewritten ([`normalize_args`]),
/// then clap parses, and a usage error speaks of the options as the user wrote them: an
/// unknown option is "unknown argument: '-save-temps'" as clang says it (clap alone would
/// name the first letter of a single-dash word and suggest a double-dash option), and the
/// options gcnc takes in clang's single-dash spelling are named that way.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Cli, clap::Error> {
    let original: Vec<OsString> = args.into_iter().collect();
    // One description of the command line serves the rewriting and the parse: building it
    // is a third of what the program does before compiling a small kernel.
    let mut command = Cli::command().long_version(long_version());
    let normalized = normalize_args(&command, original.iter().cloned());
    let parsed = command.try_get_matches_from_mut(&normalized).and_then(|matches| Cli::from_arg_matches(&matches));
    let error = match parsed {
        Ok(cli) => return Ok(cli),
        // Help and version (and help for a bare `gcnc`) go out as clap writes them.
        Err(e) if !e.use_stderr() || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return Err(e)
        }
        Err(e) => e,
    };
    // Built, so that a subcommand's usage names the program ("gcnc compile").
    command.build();
    // The subcommand whose usage the message ends with.
    let sub = normalized.get(1).and_then(|a| a.to_str());
    let usage = match sub.and_then(|name| command.find_subcommand_mut(name)) {
        Some(sub) => sub.render_usage(),
        None => command.render_usage(),
    }
    .to_string();
    let text = match error.kind() {
        clap::error::ErrorKind::UnknownArgument => {
            let reported = match error.get(clap::error::ContextKind::InvalidArg) {
                Some(clap::error::ContextValue::String(arg)) => arg.clone(),
                _ => return Err(error),
            };
            // clap names `-s` for `-save-temps`: the word the user wrote is the first one that
            // starts with what clap names.
            let word = original
                .iter()
                .skip(1)
                .filter_map(|a| a.to_str())
                .find(|a| a.starts_with(reported.as_str()))
                .unwrap_or(&reported);
            format!("error: unknown argument: '{word}'\n\n{usage}\n\nFor more information, try '--help'.\n")
        }
        _ => in_clang_spelling(&error.render().to_string()),
    };
    Err(clap::Error::raw(error.kind(), text.strip_prefix("error: ").unwrap_or(&text).to_string()))
}

/// `message` with the double-dash forms of clang's single-dash options written as clang
/// spells them (`--mcpu` as `-mcpu`, `--opt-level <N>` as `-O<N>`).
fn in_clang_spelling(message: &str) -> String {
    let mut out = message.replace("--opt-level <N>", "-O<N>").replace("--opt-level", "-O");
    for long in SINGLE_DASH_LONG {
        out = out.replace(&format!("'--{long}"), &format!("'-{long}"));
    }
    out
}

/// Rewrites clang's single-dash long options into the double-dash forms clap parses.
///
/// clap reads `-mcpu=gfx1100` as the cluster of short flags `-m -c -p -u ...`, so before clap
/// sees the command line, each argument that is one of clang's spellings is rewritten:
/// `-mcpu=X` and `-mcpu X` become `--mcpu=X` and `--mcpu X`; likewise `-target`, `-m[no-]wavefrontsize64`,
/// `-mcumode`, `-mno-cumode`, `-mtgsplit`, `-mcode-object-version[=N]` and `-mwaves-per-eu=N`
/// gain a dash; and
/// `-O0` to `-O3` become `--opt-level=0` to `--opt-level=3`. An argument that is the value of
/// the option before it (`-o -O2` names an output file `-O2`), and every argument after `--`,
/// stay as they are; which options take a value is read from clap's own description of the
/// command line. Anything else, including arguments that are not UTF-8, passes through.
fn normalize_args(command: &clap::Command, args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut takes_value: Vec<String> = Vec::new();
    for sub in command.get_subcommands() {
        for arg in sub.get_arguments().filter(|a| a.get_action().takes_values() && !a.is_positional()) {
            takes_value.extend(arg.get_long().map(|l| format!("--{l}")));
            takes_value.extend(arg.get_short().map(|s| format!("-{s}")));
        }
    }
    let mut out = Vec::new();
    let mut verbatim = false; // after `--`
    let mut is_value = false; // the previous argument is an option waiting for its value
    for (i, arg) in args.into_iter().enumerate() {
        let Some(text) = arg.to_str().filter(|_| i > 0 && !verbatim && !is_value) else {
            is_value = false;
            out.push(arg);
            continue;
        };
        verbatim = text == "--";
        let text = rewrite_clang_spelling(text).unwrap_or_else(|| text.to_string());
        is_value = takes_value.contains(&text);
        out.push(OsString::from(text));
    }
    out
}

/// The double-dash form of one of clang's spellings, or None if `text` is not one.
fn rewrite_clang_spelling(text: &str) -> Option<String> {
    let name = text.strip_prefix('-').filter(|n| !n.starts_with('-'))?;
    if name == "###" {
        return Some("--###".to_string());
    }
    if let Some(level @ ("0" | "1" | "2" | "3")) = name.strip_prefix('O') {
        return Some(format!("--opt-level={level}"));
    }
    SINGLE_DASH_LONG
        .iter()
        .any(|long| name.strip_prefix(long).is_some_and(|rest| rest.is_empty() || rest.starts_with('=')))
        .then(|| format!("-{text}"))
}

/// Runs a parsed command line.
pub fn execute(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Compile(opts) => crate::compile_cmd::run(&opts),
        Command::Run(mut opts) => {
            opts.resolve_launch()?;
            run(&opts)
        }
        Command::Check(mut opts) => {
            opts.resolve_launch()?;
            crate::check_cmd::run(&opts)
        }
        Command::Disasm(opts) => crate::disasm::run(&opts.file),
        Command::Inspect(opts) => crate::inspect::run(&opts.file, opts.json),
        Command::Conformance(opts) => conformance(&opts),
        Command::Targets => targets(),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "gcnc", &mut script);
            write_stdout(script)
        }
        Command::Man { subcommand } => {
            let mut command = Cli::command().long_version(long_version());
            command.build();
            if let Some(name) = subcommand {
                let Some(sub) = command.find_subcommand(&name) else {
                    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
                    bail!("no subcommand '{name}' (the subcommands: {})", names.join(", "));
                };
                command = sub.clone().name(format!("gcnc-{name}"));
            }
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page).context("cannot render the manual page")?;
            write_stdout(page)
        }
    }
}

/// The grid and workgroup size of `run` or `check`: `--grid`'s and `--block`'s, and where one
/// is not given, the launch lines' of the input (`// launch:` in a `.gk` file, `; launch:` in
/// a `.gir` file; the conformance suite's syntax, as the examples carry them). `args`, when given and empty,
/// becomes the lines' `--arg`s too. A flag given on the command line always wins.
pub fn resolve_launch(
    input: &Path,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    args: Option<&mut Vec<ArgSpec>>,
) -> Result<([u32; 3], [u32; 3])> {
    let wants_args = args.as_ref().is_some_and(|a| a.is_empty());
    if let (Some(grid), Some(block), false) = (grid, block, wants_args) {
        return Ok((grid, block));
    }
    // Each language's line comment.
    let prefix = match input.extension().and_then(|e| e.to_str()) {
        Some("gk") => Some("// launch:"),
        Some("gir") => Some("; launch:"),
        _ => None,
    };
    let text = prefix.and_then(|_| std::fs::read_to_string(input).ok()).unwrap_or_default();
    let words: Vec<(usize, &str)> = gcnc::kernel_file::launch_words(&text, prefix.unwrap_or_default()).collect();
    if words.is_empty() {
        return match (grid, block) {
            (Some(grid), Some(block)) => Ok((grid, block)),
            _ => bail!("--grid and --block are needed: '{}' has no launch lines", input.display()),
        };
    }
    let (lines_grid, lines_block, specs) = gcnc::kernel_file::parse_launch_words(words)
        .map_err(|(line, reason)| anyhow::anyhow!("{}:{line}: in its `// launch:` lines: {reason}", input.display()))?;
    if let Some(args) = args.filter(|a| a.is_empty()) {
        args.extend(specs);
    }
    Ok((grid.unwrap_or(lines_grid), block.unwrap_or(lines_block)))
}

/// `gcnc targets`: a line per processor of isa's table, in its order: the name, the
/// generation, the wave sizes, and whether gcnc compiles for it (`verified`: its code is
/// checked end to end) or not yet.
fn targets() -> Result<()> {
    let mut out = std::io::stdout().lock();
    for p in isa::processor::PROCESSORS {
        let waves = if p.wave32 { "wave32 wave64" } else { "wave64" };
        let status = if p.verified { "compiled for and emulated" } else { "not compiled for yet" };
        let generic = if p.generic.is_some() { " (generic)" } else { "" };
        let line = format!("{:<16} {:<6} {:<14} {status}{generic}", p.name, format!("{:?}", p.generation), waves);
        if writeln!(out, "{}", line.trim_end()).is_err() {
            // A closed pipe (`| head`) ends the listing, not the program.
            return Ok(());
        }
    }
    Ok(())
}

/// `gcnc conformance`: runs the embedded suite on each configuration with a progress bar,
/// prints the table, writes `--junit`; fails (status 1) when any run failed that is not a
/// known failure.
fn conformance(opts: &ConformanceOpts) -> Result<()> {
    use crate::conformance::{self, report};
    use gcnc::kernel_file::Device;
    let device = match opts.device {
        ConformanceDevice::Emu => Device::Emu,
        ConformanceDevice::Gpu => Device::Gpu,
    };
    let configs: Vec<conformance::Config> = conformance::configs(&opts.mcpu, opts.tgsplit)
        .context("-mcpu")?
        .into_iter()
        .map(|c| c.with(opts.opt.options()))
        .collect();
    let suite = conformance::Suite::embedded().context("the embedded conformance suite")?;
    if opts.list {
        // As launch lines write them: trailing dimensions of 1 left out.
        let dims = |d: [u32; 3]| {
            let used = d.iter().rposition(|&x| x != 1).map_or(1, |i| i + 1);
            d[..used].iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        };
        let mut text = String::new();
        for case in suite.cases.iter().filter(|c| opts.filter.as_deref().is_none_or(|f| c.file.name.contains(f))) {
            let l = &case.file.launch;
            let args: Vec<String> = l.args.iter().map(|a| format!("--arg {a}")).collect();
            let lds = if l.dyn_shared_bytes > 0 { format!(" --arg lds:{}", l.dyn_shared_bytes) } else { String::new() };
            text.push_str(&format!(
                "{}: --grid {} --block {} {}{lds}\n",
                case.file.name,
                dims(l.grid),
                dims(l.block),
                args.join(" ")
            ));
        }
        if text.is_empty() {
            bail!("no kernel of the suite matches --filter {}", opts.filter.as_deref().unwrap_or_default());
        }
        return write_stdout(text);
    }
    // indicatif draws on a terminal only, and clears the bar at the end.
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("[{bar:30}] {pos}/{len} {msg}")
            .map(|style| style.progress_chars("#>-"))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let results = conformance::run_suite(&suite, &configs, opts.filter.as_deref(), device, |done, total, what| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_string());
    });
    bar.finish_and_clear();
    let results = results?;
    if results.is_empty() {
        bail!("no kernel of the suite matches --filter {}", opts.filter.as_deref().unwrap_or_default());
    }
    write_stdout(match opts.format {
        ReportFormat::Text => report::table(&results),
        ReportFormat::Markdown => report::markdown(&results),
    })?;
    if let Some(path) = &opts.junit {
        write_file(path, report::junit(&results).as_bytes())?;
    }
    let failed = report::counts(&results).failed;
    if failed > 0 {
        bail!("{failed} conformance run(s) failed");
    }
    Ok(())
}

/// `gcnc run`: checks what the launch description can say without the kernel, then runs it on
/// the chosen device.
fn run(opts: &RunOpts) -> Result<()> {
    let refs = opts.dump.iter().map(|d| (d.index, format!("--dump {}={}", d.index, d.path.display())));
    let (params, _) = split_lds(&opts.args);
    for (index, flag) in refs.chain(opts.print.iter().map(|&i| (i, format!("--print {i}")))) {
        match params.get(index) {
            None => bail!("{flag}: there is no parameter {index}; the launch gives {} parameter(s)", params.len()),
            Some(spec) if !spec.is_buffer() => bail!("{flag}: parameter {index} ('{spec}') is not a buffer"),
            Some(_) => {}
        }
    }
    let start = std::time::Instant::now();
    let params = match opts.device {
        Device::Interp => crate::run_interp::run(opts)?,
        Device::Emu => {
            let (params, stats) = crate::run_emu::run(opts)?;
            if opts.stats {
                eprintln!("{stats}");
            }
            params
        }
        Device::Gpu => crate::run_emu::run_gpu(opts)?,
    };
    if opts.stats {
        eprintln!("time: {:.3} ms", start.elapsed().as_secs_f64() * 1e3);
    }
    write_outputs(opts, &params)
}

/// An error whose diagnostic has already been printed (with its source line and caret), so
/// `main` only sets the exit status.
#[derive(Debug, thiserror::Error)]
#[error("(reported above)")]
pub struct Reported;

/// The kernel parameters' specs (every `--arg` but `lds:BYTES`) and the dynamic shared memory
/// the `lds:` specs ask for. `--dump` and `--print` indices count kernel parameters only.
pub fn split_lds(args: &[ArgSpec]) -> (Vec<&ArgSpec>, u32) {
    let mut bytes = 0u32;
    let params = args
        .iter()
        .filter(|spec| match spec {
            ArgSpec::Lds { bytes: b } => {
                bytes = bytes.saturating_add(*b);
                false
            }
            _ => true,
        })
        .collect();
    (params, bytes)
}

/// After a run: writes each `--dump` file and prints each `--print` buffer to stdout (each
/// under a `parameter I (TYPE[N]):` line). `params[i]` holds parameter `i`'s bytes after the
/// run (anything, e.g. empty, for a parameter that is not a buffer); `run` has checked that
/// every index names a buffer.
fn write_outputs(opts: &RunOpts, params: &[Vec<u8>]) -> Result<()> {
    let param = |index: usize| params.get(index).with_context(|| format!("internal error: no parameter {index}"));
    for dump in &opts.dump {
        write_file(&dump.path, param(dump.index)?)?;
    }
    let mut text = String::new();
    for &index in &opts.print {
        if let Some(ArgSpec::Buffer { ty, len, .. }) = split_lds(&opts.args).0.get(index) {
            text.push_str(&format!("parameter {index} ({ty}[{len}]):\n"));
            text.push_str(&format_elements(*ty, param(index)?));
        }
    }
    // A run that shows nothing says how to see its results, rather than leave a new user
    // wondering whether anything ran.
    if opts.print.is_empty() && opts.dump.is_empty() && !opts.stats {
        let buffers: Vec<String> = split_lds(&opts.args)
            .0
            .iter()
            .enumerate()
            .filter(|(_, spec)| spec.is_buffer())
            .map(|(i, _)| i.to_string())
            .collect();
        if !buffers.is_empty() {
            eprintln!(
                "note: the run finished; --print I shows buffer parameter I ({} here), --dump I=FILE writes it, --stats counts what ran",
                buffers.join(", ")
            );
        }
    }
    write_stdout(&text)
}

/// Writes `bytes` to `path`. A regular file (or a new one) is written whole or not at all: into
/// a temporary file beside it, then renamed over it. Anything else that exists (a device such
/// as `/dev/null` or `/dev/full`, a FIFO) is written through, as clang does, and left in place;
/// a write error, e.g. ENOSPC from `/dev/full`, is an error.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let context = || format!("cannot write '{}'", path.display());
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut file = std::fs::OpenOptions::new().write(true).open(path).with_context(context)?;
        return file.write_all(bytes).and_then(|()| file.flush()).with_context(context);
    }
    let Some(name) = path.file_name().filter(|_| !path.as_os_str().to_string_lossy().ends_with('/')) else {
        bail!("cannot write '{}': not a file name", path.display());
    };
    let mut tmp_name = OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(context)
}

/// Writes `text` to stdout. A closed pipe (as in `gcnc run ... | head`) is not an error.
pub(crate) fn write_stdout(text: impl AsRef<[u8]>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_ref()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("cannot write to standard output"),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Vec<String> {
        normalize_args(&Cli::command(), args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        super::parse(args.iter().map(OsString::from))
    }

    #[test]
    fn clap_description_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn clang_spellings_are_rewritten() {
        assert_eq!(
            norm(&["gcnc", "compile", "a.gk", "-mcpu=gfx942:sramecc+", "-mwavefrontsize64", "-mcumode", "-O3"]),
            ["gcnc", "compile", "a.gk", "--mcpu=gfx942:sramecc+", "--mwavefrontsize64", "--mcumode", "--opt-level=3"]
        );
        assert_eq!(
            norm(&["gcnc", "compile", "-mcpu", "gfx1100", "-mno-cumode", "-mtgsplit", "-mcode-object-version=4", "x"]),
            ["gcnc", "compile", "--mcpu", "gfx1100", "--mno-cumode", "--mtgsplit", "--mcode-object-version=4", "x"]
        );
        // Values of options, arguments after `--`, and look-alikes stay as written.
        assert_eq!(
            norm(&["gcnc", "compile", "-o", "-O2", "-O4", "-mcpux", "--mcpu", "-mcumode", "--", "-O1"]),
            ["gcnc", "compile", "-o", "-O2", "-O4", "-mcpux", "--mcpu", "-mcumode", "--", "-O1"]
        );
        assert_eq!(norm(&["-O2", "run"]), ["-O2", "run"]); // the program name is never touched
    }

    #[test]
    fn compile_flags() {
        let Command::Compile(c) = parse(&["gcnc", "compile", "k.gk"]).unwrap().command else { panic!() };
        assert_eq!(
            (c.target.mcpu(), c.opt.opt_level, c.code_object_version, c.emit_kind()),
            ("gfx1100", 2, 5, EmitKind::Hsaco)
        );
        assert_eq!(c.target.cumode(), None);
        let Command::Compile(c) = parse(&[
            "gcnc",
            "compile",
            "k.gk",
            "-mcpu=gfx942:sramecc+",
            "-O0",
            "-c",
            "-mcode-object-version=6",
            "-o",
            "out.o",
            "-j",
            "4",
            "--print-after=isel",
            "--stats",
            "-mcumode",
            "-mno-cumode",
        ])
        .unwrap()
        .command
        else {
            panic!()
        };
        assert_eq!(c.target.mcpu(), "gfx942:sramecc+");
        assert_eq!((c.opt.opt_level, c.code_object_version, c.emit_kind()), (0, 6, EmitKind::Obj));
        assert_eq!((c.output, c.jobs.map(NonZeroUsize::get)), (Some(PathBuf::from("out.o")), Some(4)));
        assert_eq!((c.print_after, c.stats, c.target.cumode()), (vec!["isel".to_string()], true, Some(false)));
        let Command::Compile(c) = parse(&["gcnc", "compile", "k.gir", "-S"]).unwrap().command else { panic!() };
        assert_eq!(c.emit_kind(), EmitKind::Asm);
        let Command::Compile(c) = parse(&["gcnc", "compile", "k.gir", "--emit=mir"]).unwrap().command else { panic!() };
        assert_eq!(c.emit_kind(), EmitKind::Mir);
    }

    #[test]
    fn usage_errors_exit_2() {
        for args in [
            &["gcnc", "bogus"][..],
            &["gcnc"],
            &["gcnc", "compile", "k.gk", "-c", "-S"],
            &["gcnc", "compile", "k.gk", "-O4"],
            &["gcnc", "compile", "k.gk", "-mcode-object-version=3"],
            &["gcnc", "compile", "k.gk", "-mcpu=gfx1101"],
            &["gcnc", "compile", "k.gk", "-mcpu=gfx1100:sramecc+"],
            &["gcnc", "conformance", "-mcpu=gfx11"],
            &["gcnc", "compile", "k.gk", "-save-temps"],
            &["gcnc", "compile", "k.gk", "-j", "0"],
            &["gcnc", "run", "k.gir", "--grid", "0", "--block", "1"],
            &["gcnc", "run", "k.gir", "--grid", "1", "--block", "1", "--arg", "f32[4]:ones"],
            &["gcnc", "run", "k.gir", "--grid", "1", "--block", "1", "--device", "cpu"],
            &["gcnc", "conformance", "--device", "interp"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?} should not parse"));
            assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        }
    }

    #[test]
    fn run_flags() {
        let Command::Run(r) = parse(&[
            "gcnc",
            "run",
            "examples/vadd.gir",
            "--device",
            "interp",
            "--grid",
            "1000",
            "--block",
            "256,1",
            "--arg",
            "f32[1000]:iota",
            "--arg",
            "1000",
            "--dump",
            "0=out.bin",
            "--print",
            "0",
            "-mcpu",
            "gfx942",
        ])
        .unwrap()
        .command
        else {
            panic!()
        };
        assert_eq!((r.grid_flag, r.block_flag, r.device), (Some([1000, 1, 1]), Some([256, 1, 1]), Device::Interp));
        assert_eq!(r.args, [ArgSpec::parse("f32[1000]:iota").unwrap(), ArgSpec::parse("1000").unwrap()]);
        assert_eq!((r.dump[0].index, r.print.as_slice(), r.target.mcpu()), (0, &[0][..], "gfx942"));
    }

    #[test]
    fn run_checks_parameter_references() {
        let run_with = |extra: &[&str]| {
            let mut args = vec!["gcnc", "run", "k.gir", "--device", "gpu", "--grid", "1", "--block", "1"];
            args.extend_from_slice(extra);
            execute(parse(&args).unwrap()).unwrap_err().to_string()
        };
        // Without bad references the run itself begins: the input is read.
        assert_eq!(run_with(&[]), "cannot read 'k.gir'");
        assert_eq!(
            run_with(&["--arg", "u32[4]:zeros", "--print", "1"]),
            "--print 1: there is no parameter 1; the launch gives 1 parameter(s)"
        );
        assert_eq!(
            run_with(&["--arg", "u32[4]:zeros", "--arg", "u32:1", "--dump", "1=o.bin"]),
            "--dump 1=o.bin: parameter 1 ('u32:1') is not a buffer"
        );
    }

    #[test]
    fn outputs() {
        let dir = std::env::temp_dir().join(format!("gcnc-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.bin");
        write_file(&path, &[1, 2, 3]).unwrap();
        write_file(&path, &[4, 5]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), [4, 5]);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left behind");
        let e = write_file(&dir.join("no/such/dir/x.bin"), &[1]).unwrap_err();
        assert!(format!("{e:#}").starts_with(&format!("cannot write '{}': ", dir.join("no/such/dir/x.bin").display())));
        assert_eq!(
            write_file(Path::new("somedir/"), &[1]).unwrap_err().to_string(),
            "cannot write 'somedir/': not a file name"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A FIFO is written through and stays a FIFO; a full device is an error and stays a
    /// device.
    #[test]
    #[cfg(unix)]
    fn devices_and_fifos_are_written_through() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("gcnc-cli-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::read(fifo).unwrap()
        });
        write_file(&fifo, &[1, 2, 3]).unwrap();
        assert_eq!(reader.join().unwrap(), [1, 2, 3]);
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        std::fs::remove_dir_all(&dir).unwrap();
        // Only where /dev/full is the device (another program may have replaced it).
        if std::fs::metadata("/dev/full").is_ok_and(|m| m.file_type().is_char_device()) {
            let e = format!("{:#}", write_file(Path::new("/dev/full"), &[1]).unwrap_err());
            assert!(e.starts_with("cannot write '/dev/full': No space left on device"), "{e}");
            assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
        }
    }

    #[test]
    fn non_utf8_arguments_pass_through() {
        #[cfg(unix)]
        {
            use std::ffi::OsStr;
            use std::os::unix::ffi::OsStrExt;
            let odd = OsStr::from_bytes(b"-O\xff").to_os_string();
            let out = normalize_args(&Cli::command(), [OsString::from("gcnc"), odd.clone()]);
            assert_eq!(out, [OsString::from("gcnc"), odd]);
        }
    }
}
