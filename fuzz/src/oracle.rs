//! The oracle: a kernel file (source with its `// launch:` header, the format of
//! `tests/regress/`) is read as the conformance suite reads its cases, compiled for a
//! configuration and run on the emulator against the reference interpreter
//! ([`gcnc::check::check_with`]), and what happened is classified: a pass, or a [`Failure`]
//! with its [`Class`] and message. A panic anywhere is caught and is a failure too.

use gcnc::check::{check_with, CheckError, CheckLaunch, CheckOptions};
use gcnc::kernel_file::KernelFile;
use gcnc::{Options, Target, TargetId};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One target configuration a program is checked on.
#[derive(Clone, Debug)]
pub struct Config {
    /// A short label: `gfx1100-w32-O2`, `gfx1100-w32-cumode-O0`, ...
    pub label: String,
    /// The target.
    pub target: Target,
    /// The `-O` level the program is compiled at.
    pub opt_level: u8,
}

impl Config {
    /// The flags of `gcnc check` that select this configuration.
    pub fn flags(&self) -> String {
        format!("{} -O{}", self.target.flags(), self.opt_level)
    }

    /// The same target at `-O<level>`.
    pub fn at(&self, opt_level: u8) -> Config {
        let base = self.label.rsplit_once("-O").map_or(self.label.as_str(), |(b, _)| b);
        Config { label: format!("{base}-O{opt_level}"), target: self.target, opt_level }
    }
}

/// The processors checked when none is named.
pub const DEFAULT_MCPUS: [&str; 3] = ["gfx1100", "gfx942", "gfx90a"];

/// The configurations of each processor of `mcpus`: its default wave size, the other one
/// where it has both, and CU mode and threadgroup split where they mean something; all at
/// `-O2` (see [`Config::at`]).
pub fn configs(mcpus: &[String]) -> Result<Vec<Config>, isa::processor::TargetIdError> {
    let mut out = Vec::new();
    for mcpu in mcpus {
        let base = Target::new(TargetId::parse(mcpu)?);
        let name = base.id.to_string();
        let mut push = |target: Target, mode: &str| {
            out.push(Config { label: format!("{name}-w{}{mode}-O2", target.wave_size), target, opt_level: 2 })
        };
        push(base, "");
        if base.processor().wave32 {
            push(Target { wave_size: if base.wave_size == 32 { 64 } else { 32 }, ..base }, "");
        }
        if base.processor().cumode {
            push(Target { cumode: true, ..base }, "-cumode");
        }
        if base.processor().tgsplit {
            push(Target { tgsplit: true, ..base }, "-tgsplit");
        }
    }
    Ok(out)
}

/// The four main configurations: gfx1100 wave32 and wave64, gfx942 and gfx90a (wave64).
pub fn main_configs() -> Vec<Config> {
    let all = configs(&DEFAULT_MCPUS.map(String::from)).expect("known processors");
    all.into_iter().filter(|c| !c.target.cumode && !c.target.tgsplit).collect()
}

/// What kind of failure.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// The front end rejected the program: a generator bug.
    FrontEnd,
    /// The compiler returned an error.
    Compile,
    /// Something panicked.
    Panic,
    /// The compiled kernel faulted on the emulator (a missing wait, a hazard, a bad access).
    EmuFault,
    /// The reference interpreter faulted: a generator bug unless the interpreter is wrong.
    InterpFault,
    /// The emulator's results differ from the interpreter's.
    Mismatch,
    /// The IR the optimizer leaves gives other results than the source on the interpreter,
    /// or faults where the source does not.
    Optimizer,
    /// A run reached its step limit.
    Timeout,
}

impl Class {
    /// Every class, in table order.
    pub const ALL: [Class; 8] = [
        Class::FrontEnd,
        Class::Compile,
        Class::Panic,
        Class::EmuFault,
        Class::InterpFault,
        Class::Mismatch,
        Class::Optimizer,
        Class::Timeout,
    ];

    /// The name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Class::FrontEnd => "front-end rejection (generator bug)",
            Class::Compile => "compile error",
            Class::Panic => "panic",
            Class::EmuFault => "emulator fault",
            Class::InterpFault => "interpreter fault",
            Class::Mismatch => "mismatch",
            Class::Optimizer => "optimizer (its IR on the interpreter)",
            Class::Timeout => "timeout",
        }
    }
}

/// A failed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Its class.
    pub class: Class,
    /// What went wrong, in full.
    pub message: String,
    /// The message reduced to its shape (see [`shape`]).
    pub shape: String,
}

impl Failure {
    fn new(class: Class, message: String, detail: &str) -> Failure {
        Failure { class, shape: shape(detail), message }
    }

    /// Mismatch `m` in `what` ("f32 buffer", ...: mismatches are told apart by the element
    /// type), the optimizer's or the code generator's.
    fn mismatch(m: &gcnc::check::Mismatch, what: &str) -> Failure {
        let class = if m.optimized { Class::Optimizer } else { Class::Mismatch };
        Failure { class, message: m.to_string(), shape: format!("in a {what}") }
    }

    /// Class and shape: what the reducer keeps while it shrinks a program.
    pub fn signature(&self) -> String {
        format!("{}: {}", self.class.name(), self.shape)
    }
}

/// A message's shape: its first line's last `: `-separated part outside parentheses and
/// backquotes (the reason, without the location and instruction before it), with every
/// number written `N`.
pub fn shape(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    let mut depth = 0i32;
    let mut quoted = false;
    let mut reason_start = 0;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' if !quoted => depth += 1,
            b')' | b']' if !quoted => depth -= 1,
            b'`' => quoted = !quoted,
            b':' if depth == 0
                && !quoted
                && bytes.get(i + 1) == Some(&b' ')
                && line[i + 2..].chars().any(char::is_alphabetic) =>
            {
                reason_start = i + 2
            }
            _ => {}
        }
    }
    let reason = &line[reason_start..];
    let mut out = String::new();
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            if c == '0' && chars.peek() == Some(&'x') {
                chars.next();
                while chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    chars.next();
                }
            }
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out
}

/// How programs are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Also run the emulator with interleaving seed 1.
    pub second_interleaving: bool,
    /// The step limit of the interpreter and the emulator.
    pub step_limit: u64,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { second_interleaving: true, step_limit: 100_000_000 }
    }
}

thread_local! {
    /// The last panic's message on this thread, recorded by [`quiet_panics`]'s hook.
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Replaces the panic hook with one that records the message (for [`run`]'s report) instead
/// of printing it, so that caught panics of many threads do not flood the terminal.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string();
        LAST_PANIC.with(|p| *p.borrow_mut() = text);
    }));
}

/// Checks kernel file `text`, whose kernel is named `name`, on `config`.
pub fn run(text: &str, name: &str, config: &Config, options: &RunOptions) -> Result<(), Failure> {
    guarded(|| run_unguarded(text, name, config, options))
}

/// Checks an IR kernel of [`crate::gen_ir`] on `config`: a reducible one as [`run`] does, an
/// irreducible one must be refused with an error that says it is irreducible.
pub fn run_ir(p: &crate::gen_ir::IrProgram, config: &Config, options: &RunOptions) -> Result<(), Failure> {
    guarded(|| {
        let (kernel, _) = p.module.kernels().next().expect("one kernel");
        let launch = CheckLaunch {
            grid: [p.grid, 1, 1],
            block: [p.block, 1, 1],
            dyn_shared_bytes: 0,
            seed: 0,
            step_limit: Some(options.step_limit),
        };
        let args = [
            gcnc::check::CheckArg::Buffer { ty: gcnc::ir::Type::I32, bytes: vec![0; 4 * p.grid as usize] },
            gcnc::check::CheckArg::Scalar(u64::from(p.n)),
        ];
        let result =
            check_with(&p.module, kernel, &config.target, &launch, &args, &check_options(config, options), &|_, _| {
                false
            });
        match (p.irreducible, result) {
            (true, Err(CheckError::Compile(e))) if e.to_string().contains("irreducible") => Ok(()),
            (true, other) => {
                let got = match other {
                    Ok(_) => "it compiled and ran".to_string(),
                    Err(e) => e.to_string(),
                };
                let message = format!("irreducible control flow was not refused as irreducible: {got}");
                Err(Failure::new(Class::Compile, message, "irreducible control flow was not refused as irreducible"))
            }
            (false, Ok(None)) => Ok(()),
            (false, Ok(Some(m))) => Err(Failure::mismatch(&m, "i32 buffer")),
            (false, Err(e)) => Err(classify(e)),
        }
    })
}

fn check_options(config: &Config, options: &RunOptions) -> CheckOptions {
    CheckOptions {
        compile: Options { opt_level: config.opt_level, verify: true, ..Options::default() },
        extra_seeds: if options.second_interleaving { vec![1] } else { Vec::new() },
    }
}

/// `f()`, a panic caught and reported as a [`Class::Panic`] failure.
fn guarded(f: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let recorded = LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
            let message = if recorded.is_empty() {
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".to_string())
            } else {
                recorded
            };
            // The shape of a panic is its message without the location line.
            let detail = message.lines().last().unwrap_or("").to_string();
            Err(Failure::new(Class::Panic, message, &detail))
        }
    }
}

fn run_unguarded(text: &str, name: &str, config: &Config, options: &RunOptions) -> Result<(), Failure> {
    let case = KernelFile::parse(name, text).map_err(|e| {
        let message = e.to_string();
        Failure::new(Class::FrontEnd, message.clone(), &message)
    })?;
    let args = case.check_args().map_err(|e| Failure::new(Class::FrontEnd, e.to_string(), &e.to_string()))?;
    let launch = CheckLaunch {
        grid: case.launch.grid,
        block: case.launch.block,
        dyn_shared_bytes: 0,
        seed: 0,
        step_limit: Some(options.step_limit),
    };
    match check_with(
        &case.module,
        case.kernel,
        &config.target,
        &launch,
        &args,
        &check_options(config, options),
        &|_, _| false,
    ) {
        Ok(None) => Ok(()),
        Ok(Some(m)) => {
            let elem = match case.params.get(m.param) {
                Some(gcnc::kernel_file::Param::Buffer { elem, .. }) => elem.name(),
                _ => "?",
            };
            // An approximate function's result that reaches an integer or a branch is
            // compared exactly (the check's bounds are for float elements): such mismatches are
            // kept apart from the others.
            let elem = if m.approximate {
                format!("{elem} buffer, from an approximate function")
            } else {
                format!("{elem} buffer")
            };
            Err(Failure::mismatch(&m, &elem))
        }
        Err(e) => Err(classify(e)),
    }
}

fn classify(e: CheckError) -> Failure {
    let message = e.to_string();
    match &e {
        CheckError::Compile(_) => Failure::new(Class::Compile, message.clone(), &message),
        CheckError::Emu(gcnc::emu::EmuError::StepLimit { .. }) => {
            Failure::new(Class::Timeout, message, "the emulator's step limit")
        }
        CheckError::Emu(err) => {
            let detail = err.fault().map_or_else(|| message.clone(), ToString::to_string);
            Failure::new(Class::EmuFault, message, &detail)
        }
        CheckError::Interp(gcnc::ir::interp::InterpError::Fault { kind, .. }) => {
            let class = if matches!(kind, gcnc::ir::interp::FaultKind::StepLimit(_)) {
                Class::Timeout
            } else {
                Class::InterpFault
            };
            Failure::new(class, message, &kind.to_string())
        }
        CheckError::Optimized(e) => {
            let detail = match e {
                gcnc::ir::interp::InterpError::Fault { kind, .. } => kind.to_string(),
                other => other.to_string(),
            };
            Failure::new(Class::Optimizer, message, &detail)
        }
        CheckError::Interp(_) | CheckError::ArgCount { .. } => {
            Failure::new(Class::InterpFault, message.clone(), &message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape keeps the reason and drops the location, the instruction and the numbers.
    #[test]
    fn shapes_keep_the_reason() {
        assert_eq!(
            shape("@f5: %1847:v1 is used but not defined on every path to its use"),
            "%N:vN is used but not defined on every path to its use"
        );
        assert_eq!(
            shape("@f0: in @f0: `%95 = atomic_rmw.add %94, %5 relaxed agent`: an LDS atomic_rmw in tgsplit mode (AMDGPUUsage: the local address space cannot be used) is not supported yet\nmore"),
            "an LDS atomic_rmw in tgsplit mode (AMDGPUUsage: the local address space cannot be used) is not supported yet"
        );
        assert_eq!(
            shape("hazard: VALU writes v3 of v[2:3] after 1 wait states; 2 are needed"),
            "VALU writes vN of v[N:N] after N wait states; N are needed"
        );
        assert_eq!(shape("at offset 0x1f0 (4 bytes)"), "at offset N (N bytes)");
    }

    /// The default configurations: each processor at its wave sizes and modes.
    #[test]
    fn configurations_follow_the_processor_table() {
        let labels: Vec<String> =
            configs(&DEFAULT_MCPUS.map(String::from)).unwrap().into_iter().map(|c| c.label).collect();
        let expected = [
            "gfx1100-w32",
            "gfx1100-w64",
            "gfx1100-w32-cumode",
            "gfx942-w64",
            "gfx942-w64-tgsplit",
            "gfx90a-w64",
            "gfx90a-w64-tgsplit",
        ];
        assert_eq!(labels, expected.map(|l| format!("{l}-O2")));
        let flags: Vec<String> = main_configs().iter().map(|c| c.at(0).flags()).collect();
        assert_eq!(
            flags,
            ["-mcpu=gfx1100 -O0", "-mcpu=gfx1100 -mwavefrontsize64 -O0", "-mcpu=gfx942 -O0", "-mcpu=gfx90a -O0"]
        );
        assert_eq!(main_configs()[1].at(0).at(3).label, "gfx1100-w64-O3");
    }
}
