//! The conformance suite: kernel files in the kernel language with their launches
//! ([`gcnc::kernel_file`]) and the results the reference interpreter gives for them, run
//! compiled on each target and compared. This is the `gcnc conformance` command's own module:
//! the suite and its runner are not part of the library.
//!
//! The suite lives in the workspace's `tests/conformance/` and is embedded in the program by
//! `build.rs` (`Suite::embedded`), so `gcnc conformance` needs no files at run time:
//!
//! - `NAME.gk`: a kernel file whose kernel is named `NAME`, with its `// launch:` lines and,
//!   for kernels with approximate math, a `// tolerance:` line.
//! - `expected/NAME.txt`: every `&mut` buffer after the run on the reference interpreter, the
//!   same at wave sizes 32 and 64; or `expected/NAME.w32.txt` and `expected/NAME.w64.txt`
//!   when the results depend on the wave size. They are fixed data, so a run on a GPU
//!   compares against them as a run on the emulator does. They are written by the interpreter
//!   (the tests' `bless` module; [`BLESS_COMMAND`]).
//! - `known-failures.txt`: the one list of failures that are known, each with its reason; they
//!   are shown as such and do not fail a run.
//!
//! [`run_case`] compiles a kernel for a [`Config`] (a target at one wave size), runs it on the
//! emulator or a GPU ([`Device`]) and compares; [`report`] renders the results as a table, as
//! markdown and as JUnit XML.

#[cfg(test)]
mod bless;
pub mod report;

use std::fmt;
use std::time::{Duration, Instant};

use gcnc::kernel_file::{compare, run_compiled, Buffer, Device, KernelFile, KernelFileError, RunError};
use gcnc::launch::{ArgSpec, LaunchError, ScalarType};
use gcnc::{CompileError, Options, Target, TargetId};
use thiserror::Error;

include!(concat!(env!("OUT_DIR"), "/conformance_suite.rs"));

/// The command that regenerates the expectations, quoted in their files and in messages.
pub const BLESS_COMMAND: &str = "GCNC_BLESS=1 cargo test -p gcnc --bin gcnc expectations";

/// The processors `gcnc conformance` runs on when no `-mcpu` is given.
pub const DEFAULT_TARGETS: [&str; 2] = ["gfx1100", "gfx942"];

/// An error in the suite's files.
#[derive(Debug, Error)]
pub enum SuiteError {
    /// A kernel file is malformed.
    #[error(transparent)]
    File(#[from] KernelFileError),
    /// An expectation file is malformed or does not belong to a kernel.
    #[error("expected/{file}.txt:{line}: {reason}")]
    Expectation {
        /// The file's name without `.txt`.
        file: String,
        /// The line (1-based; 0 for the whole file).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A line of `known-failures.txt` is malformed.
    #[error("known-failures.txt:{line}: {reason}")]
    KnownFailure {
        /// The line (1-based).
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// What a kernel must leave in its `&mut` buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// No expectation file yet.
    Missing,
    /// The same at every wave size.
    Same(Vec<Buffer>),
    /// Different at wave size 32 and 64.
    PerWave {
        /// At wave size 32.
        w32: Vec<Buffer>,
        /// At wave size 64.
        w64: Vec<Buffer>,
    },
}

impl Expected {
    /// The buffers expected at `wave_size`, if known.
    pub fn at(&self, wave_size: u32) -> Option<&[Buffer]> {
        match self {
            Expected::Missing => None,
            Expected::Same(b) => Some(b),
            Expected::PerWave { w32, w64 } => Some(if wave_size == 32 { w32 } else { w64 }),
        }
    }
}

/// A kernel of the suite with its expectation.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel file.
    pub file: KernelFile,
    /// What the run must produce.
    pub expected: Expected,
}

/// A failure the suite knows about: the kernel, the configurations (labels, `*` for any run
/// of characters) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownFailure {
    /// The kernel.
    pub kernel: String,
    /// Configuration patterns, e.g. `gfx942-w64` or `gfx1100-*` or `*`.
    pub configs: Vec<String>,
    /// Why it fails.
    pub reason: String,
}

/// The whole suite.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The kernels, by name.
    pub cases: Vec<Case>,
    /// The known failures.
    pub known_failures: Vec<KnownFailure>,
}

impl Suite {
    /// The suite embedded in the program at build time.
    pub fn embedded() -> Result<Suite, SuiteError> {
        Suite::from_texts(SOURCES.iter().copied(), EXPECTED.iter().copied(), KNOWN_FAILURES)
    }

    /// The suite from its files' texts: kernels by name, expectations by file name without
    /// `.txt`, and the known-failure list.
    pub fn from_texts<'a>(
        sources: impl IntoIterator<Item = (&'a str, &'a str)>,
        expected: impl IntoIterator<Item = (&'a str, &'a str)>,
        known_failures: &str,
    ) -> Result<Suite, SuiteError> {
        let mut cases = sources
            .into_iter()
            .map(|(name, text)| Ok(Case { file: KernelFile::parse(name, text)?, expected: Expected::Missing }))
            .collect::<Result<Vec<_>, SuiteError>>()?;
        cases.sort_by(|a, b| a.file.name.cmp(&b.file.name));
        let mut per_wave: Vec<[Option<Vec<Buffer>>; 2]> = vec![[None, None]; cases.len()];
        for (file, text) in expected {
            let (stem, slot) = match file.rsplit_once('.') {
                Some((stem, "w32")) => (stem, Some(0)),
                Some((stem, "w64")) => (stem, Some(1)),
                _ => (file, None),
            };
            let Ok(index) = cases.binary_search_by(|c| c.file.name.as_str().cmp(stem)) else {
                return Err(expectation_error(file, 0, format!("there is no kernel {stem}.gk")));
            };
            let buffers = parse_buffers(file, text, &cases[index].file)?;
            let slots = &mut per_wave[index];
            let duplicate = matches!(cases[index].expected, Expected::Same(_))
                || match slot {
                    None => slots.iter().any(Option::is_some),
                    Some(i) => slots[i].is_some(),
                };
            if duplicate {
                return Err(expectation_error(file, 0, format!("{stem} has both {stem}.txt and per-wave files")));
            }
            match slot {
                None => cases[index].expected = Expected::Same(buffers),
                Some(i) => slots[i] = Some(buffers),
            }
        }
        for (case, slots) in cases.iter_mut().zip(per_wave) {
            match slots {
                [Some(w32), Some(w64)] => case.expected = Expected::PerWave { w32, w64 },
                [None, None] => {}
                _ => {
                    let name = &case.file.name;
                    return Err(expectation_error(
                        name,
                        0,
                        format!("{name} needs both {name}.w32.txt and {name}.w64.txt"),
                    ));
                }
            }
        }
        let known_failures = parse_known_failures(known_failures, &cases)?;
        Ok(Suite { cases, known_failures })
    }

    /// Why `kernel` is known to fail on the configuration labelled `config`, if it is.
    pub fn known_failure(&self, kernel: &str, config: &str) -> Option<&str> {
        self.known_failures
            .iter()
            .find(|k| k.kernel == kernel && k.configs.iter().any(|p| glob(p, config)))
            .map(|k| k.reason.as_str())
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else { return false };
            (0..=tail.len()).filter(|&i| tail.is_char_boundary(i)).any(|i| glob(rest, &tail[i..]))
        }
    }
}

fn expectation_error(file: &str, line: usize, reason: String) -> SuiteError {
    SuiteError::Expectation { file: file.to_string(), line, reason }
}

/// Reads an expectation file of `case`, checking that its buffers are the kernel's `&mut`
/// buffers with their launch lengths.
fn parse_buffers(file: &str, text: &str, case: &KernelFile) -> Result<Vec<Buffer>, SuiteError> {
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut want = 0usize; // elements still to read for the last buffer
    for (i, line) in text.lines().enumerate() {
        let err = |reason: String| expectation_error(file, i + 1, reason);
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("buffer ") {
            if want > 0 {
                return Err(err(format!("{want} more element(s) expected before a new buffer")));
            }
            let parts: Vec<&str> = rest.split_whitespace().collect();
            let [param, ty, len] = parts[..] else { return Err(err("expected `buffer PARAM TYPE LEN`".into())) };
            let param: usize = param.parse().map_err(|_| err(format!("'{param}' is not a parameter index")))?;
            let ty: ScalarType = ty.parse().map_err(|e: LaunchError| err(e.to_string()))?;
            let len: usize = len.parse().map_err(|_| err(format!("'{len}' is not a length")))?;
            buffers.push(Buffer { param, ty, bytes: Vec::with_capacity(len * ty.size()) });
            want = len;
            continue;
        }
        let Some(b) = buffers.last_mut() else { return Err(err("elements before any `buffer` line".into())) };
        for word in line.split_whitespace() {
            if want == 0 {
                return Err(err(format!("more elements than buffer {} has", b.param)));
            }
            let bits = u64::from_str_radix(word, 16)
                .ok()
                .filter(|v| b.ty.size() == 8 || *v >> (8 * b.ty.size()) == 0)
                .ok_or_else(|| err(format!("'{word}' is not a {} bit pattern in hexadecimal", b.ty)))?;
            b.bytes.extend_from_slice(&bits.to_le_bytes()[..b.ty.size()]);
            want -= 1;
        }
    }
    if want > 0 {
        return Err(expectation_error(file, 0, format!("{want} element(s) missing at the end")));
    }
    let wanted: Vec<(usize, ScalarType, usize)> = case
        .results()
        .map(|(i, ty)| {
            let len = match &case.launch.args[i] {
                ArgSpec::Buffer { len, .. } => *len,
                _ => 0,
            };
            (i, ty, len)
        })
        .collect();
    let have: Vec<(usize, ScalarType, usize)> =
        buffers.iter().map(|b| (b.param, b.ty, b.bytes.len() / b.ty.size())).collect();
    if have != wanted {
        return Err(expectation_error(
            file,
            0,
            format!("the file holds buffers {have:?} (param, type, length), the kernel's launch has {wanted:?}; {BLESS_COMMAND}"),
        ));
    }
    Ok(buffers)
}

fn parse_known_failures(text: &str, cases: &[Case]) -> Result<Vec<KnownFailure>, SuiteError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |reason: String| SuiteError::KnownFailure { line: i + 1, reason };
        let word = |text: &'_ str| -> (String, String) {
            let text = text.trim_start();
            let end = text.find(char::is_whitespace).unwrap_or(text.len());
            (text[..end].to_string(), text[end..].trim().to_string())
        };
        let (kernel, rest) = word(line);
        let (configs, reason) = word(&rest);
        if configs.is_empty() {
            return Err(err("expected `KERNEL CONFIG[,CONFIG...] REASON`".into()));
        }
        if reason.is_empty() {
            return Err(err("a known failure needs its reason".into()));
        }
        if !cases.iter().any(|c| c.file.name == kernel) {
            return Err(err(format!("there is no kernel {kernel}.gk")));
        }
        let configs = configs.split(',').map(str::to_string).collect();
        out.push(KnownFailure { kernel, configs, reason });
    }
    Ok(out)
}

/// A target at one wave size, and its label in reports (`gfx1100-w32`).
#[derive(Clone, Debug)]
pub struct Config {
    /// The target.
    pub target: Target,
    /// How kernels compile (the defaults unless said: `-O2`).
    pub options: Options,
    /// `TARGET-ID-wWAVE`, with `-O<N>` after it at an optimization level other than 2.
    pub label: String,
}

impl Config {
    /// This configuration compiling with `options`.
    pub fn with(self, options: Options) -> Config {
        let base = self.label.split("-O").next().unwrap_or_default().to_string();
        let label = match options.opt_level {
            2 => base,
            level => format!("{base}-O{level}"),
        };
        Config { options, label, ..self }
    }
}

/// The configurations for the `-mcpu` values (the [`DEFAULT_TARGETS`] when empty): each target
/// at its default wave size and, where the processor has both, at the other one; with
/// `tgsplit`, in threadgroup split mode where the processor has it (`-tgsplit` in the label).
pub fn configs(mcpus: &[String], tgsplit: bool) -> Result<Vec<Config>, isa::processor::TargetIdError> {
    let defaults: Vec<String> = DEFAULT_TARGETS.iter().map(|s| s.to_string()).collect();
    let mcpus = if mcpus.is_empty() { &defaults[..] } else { mcpus };
    let mut out = Vec::new();
    for mcpu in mcpus {
        let target = Target::new(TargetId::parse(mcpu)?);
        let mut waves = vec![target.wave_size];
        if target.processor().wave32 {
            waves.push(if target.wave_size == 32 { 64 } else { 32 });
        }
        let tgsplit = tgsplit && target.processor().tgsplit;
        for wave_size in waves {
            let target = Target { wave_size, tgsplit, ..target };
            let split = if tgsplit { "-tgsplit" } else { "" };
            out.push(Config {
                label: format!("{}-w{wave_size}{split}", target.id),
                target,
                options: Options::default(),
            });
        }
    }
    Ok(out)
}

/// How one kernel fared on one configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It matched its expectation.
    Pass,
    /// It did not, and that is not known: the message says how.
    Fail(String),
    /// It did not, as `known-failures.txt` says.
    KnownFailure {
        /// The listed reason.
        reason: String,
        /// What happened.
        message: String,
    },
    /// It matched although `known-failures.txt` lists it (the entry should go).
    UnexpectedPass {
        /// The listed reason.
        reason: String,
    },
    /// The kernel cannot run on the configuration, which the message says why: it uses shared
    /// memory or a barrier, and the workgroups of a threadgroup-split target (`-mtgsplit`) may
    /// run on different CUs, with no LDS and no `s_barrier`.
    NotApplicable(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "FAIL",
            Outcome::KnownFailure { .. } => "known",
            Outcome::UnexpectedPass { .. } => "xpass",
            Outcome::NotApplicable(_) => "n/a",
        })
    }
}

/// One kernel on one configuration.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The kernel.
    pub kernel: String,
    /// The configuration's label.
    pub config: String,
    /// How it fared.
    pub outcome: Outcome,
    /// Compiling, running and comparing.
    pub time: Duration,
    /// The command that runs this kernel alone on this configuration from the repository's
    /// root: `gcnc check` of its file, which compiles it with the configuration's flags and
    /// compares the emulator's results with the interpreter's (whose results the expectation
    /// files hold) on the file's launch.
    pub reproduce: String,
}

/// Compiles `case` for `config`, runs it on `device`, and compares with its expectation. The
/// error is for no usable GPU, which no single kernel can pass; every other problem is the
/// case's outcome.
pub fn run_case(suite: &Suite, case: &Case, config: &Config, device: Device) -> Result<CaseResult, RunError> {
    let start = Instant::now();
    // A run that does not pass: whether the kernel is not applicable to the configuration
    // (shared memory or a barrier under tgsplit), and the message.
    let result = match case.expected.at(config.target.wave_size) {
        None => Err((false, format!("no expectation file for {} (write it with: {BLESS_COMMAND})", case.file.name))),
        Some(expected) => match run_compiled(&case.file, &config.target, &config.options, device) {
            Err(e) if e.is_no_gpu() => return Err(e),
            Err(e) => Err((split_workgroup(&e), case.file.describe(&e))),
            Ok(runs) => runs.iter().try_for_each(|(seed, got)| {
                compare(expected, got, case.file.tolerance).map_err(|m| match seed {
                    0 => (false, m),
                    _ => (false, format!("with emulator interleaving seed {seed}: {m}")),
                })
            }),
        },
    };
    let time = start.elapsed();
    let outcome = match (result, suite.known_failure(&case.file.name, &config.label)) {
        (Err((true, message)), _) => Outcome::NotApplicable(message),
        (Ok(()), None) => Outcome::Pass,
        (Ok(()), Some(reason)) => Outcome::UnexpectedPass { reason: reason.to_string() },
        (Err((false, message)), None) => Outcome::Fail(message),
        (Err((false, message)), Some(reason)) => Outcome::KnownFailure { reason: reason.to_string(), message },
    };
    let reproduce = reproduce(case, config);
    Ok(CaseResult { kernel: case.file.name.clone(), config: config.label.clone(), outcome, time, reproduce })
}

/// Whether `e` is the refusal of shared memory or a barrier in threadgroup split mode.
fn split_workgroup(e: &RunError) -> bool {
    matches!(e, RunError::Compile(c) if matches!(**c, CompileError::Select { reason: isel::IselError::SplitWorkgroup { .. }, .. }))
}

/// The command that runs `case` alone on `config` from the repository's root.
fn reproduce(case: &Case, config: &Config) -> String {
    let level = match config.options.opt_level {
        2 => String::new(),
        n => format!(" -O{n}"),
    };
    format!("gcnc check tests/conformance/{}.gk {}{level}", case.file.name, config.target.flags())
}

/// Runs every case whose name contains `filter` on every configuration, config by config, on
/// `device`, calling `progress(done, total, what)` before each run. Stops at the first run
/// that finds no usable GPU.
pub fn run_suite(
    suite: &Suite,
    configs: &[Config],
    filter: Option<&str>,
    device: Device,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<Vec<CaseResult>, RunError> {
    let cases: Vec<&Case> = suite.cases.iter().filter(|c| filter.is_none_or(|f| c.file.name.contains(f))).collect();
    let total = cases.len() * configs.len();
    let mut results = Vec::with_capacity(total);
    for config in configs {
        for case in &cases {
            progress(results.len(), total, &format!("{} on {}", case.file.name, config.label));
            match run_case(suite, case, config, device) {
                Ok(result) => results.push(result),
                Err(e) => {
                    progress(total, total, "");
                    return Err(e);
                }
            }
        }
    }
    progress(total, total, "done");
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcnc::launch::le_bits;

    const VADD: &str = "// launch: --grid 5 --block 4\n// launch: --arg u32[5]:iota --arg u32[5]:zeros --arg 5\n\
        kernel twice(a: &[u32], out: &mut [u32], n: u32) {\n    let i = global_id.x;\n    if i < n { out[i] = a[i] * 2u; }\n}\n";

    #[test]
    fn globs() {
        assert!(glob("*", "gfx942-w64") && glob("gfx1100-*", "gfx1100-w32") && glob("gfx942-w64", "gfx942-w64"));
        assert!(glob("*-w64", "gfx1100-w64") && !glob("*-w64", "gfx1100-w32") && !glob("gfx942", "gfx942-w64"));
    }

    #[test]
    fn headers_and_expectations() {
        let file = KernelFile::parse("twice", VADD).unwrap();
        assert_eq!((file.launch.grid, file.launch.block, file.launch.args.len()), ([5, 1, 1], [4, 1, 1], 3));
        // The interpreter's results round-trip through the file format.
        let expected = bless::interpreter_expectation(&file).unwrap();
        let Expected::Same(buffers) = &expected else { panic!("twice does not depend on the wave size") };
        let words: Vec<u32> = buffers[0].bytes.chunks(4).map(|c| le_bits(c) as u32).collect();
        assert_eq!(words, [0, 2, 4, 6, 8]);
        let files = bless::files(&expected, "twice");
        assert_eq!(files[0].0, "twice.txt");
        let suite = Suite::from_texts([("twice", VADD)], [("twice", files[0].1.as_str())], "").unwrap();
        assert_eq!(suite.cases[0].expected, expected);
        // Errors name the file and line.
        let bad = VADD.replace("--block 4", "--block 4 --bogus 1");
        assert_eq!(
            KernelFile::parse("twice", &bad).unwrap_err().to_string(),
            "twice.gk:1: unknown launch flag '--bogus' (expected --grid, --block or --arg)"
        );
        let short = VADD.replace(" --arg 5", "");
        assert_eq!(
            KernelFile::parse("twice", &short).unwrap_err().to_string(),
            "twice.gk: twice takes 3 parameter(s), the launch gives 2 --arg"
        );
        let wrong = files[0].1.replace("buffer 1 u32 5", "buffer 1 u32 4");
        assert!(Suite::from_texts([("twice", VADD)], [("twice", wrong.as_str())], "").is_err());
        let known = Suite::from_texts([("twice", VADD)], [], "twice   gfx942-*,gfx1100-w64  not yet\n").unwrap();
        assert_eq!(known.known_failure("twice", "gfx942-w64"), Some("not yet"));
        assert_eq!(known.known_failure("twice", "gfx1100-w32"), None);
        assert!(Suite::from_texts([("twice", VADD)], [], "other * reason\n").is_err());
        assert!(Suite::from_texts([("twice", VADD)], [], "twice *\n").is_err());
    }

    #[test]
    fn runs_compare_with_the_expectation() {
        let file = KernelFile::parse("twice", VADD).unwrap();
        let Expected::Same(mut buffers) = bless::interpreter_expectation(&file).unwrap() else {
            panic!("one expectation")
        };
        let config = &configs(&["gfx942".to_string()], false).unwrap()[0];
        let mut case = Case { file, expected: Expected::Same(buffers.clone()) };
        let mut suite = Suite { cases: vec![case.clone()], known_failures: Vec::new() };
        assert_eq!(run_case(&suite, &case, config, Device::Emu).unwrap().outcome, Outcome::Pass);
        buffers[0].bytes[8] ^= 1; // element 2: 4 becomes 5
        case.expected = Expected::Same(buffers);
        let failed = run_case(&suite, &case, config, Device::Emu).unwrap().outcome;
        assert_eq!(failed, Outcome::Fail("parameter 1 element 2: expected 5, got 4".to_string()));
        suite.known_failures =
            vec![KnownFailure { kernel: "twice".into(), configs: vec!["gfx9*".into()], reason: "r".into() }];
        let known = run_case(&suite, &case, config, Device::Emu).unwrap().outcome;
        assert!(matches!(known, Outcome::KnownFailure { .. }));
        case.expected = Expected::Missing;
        let Outcome::KnownFailure { message, .. } = run_case(&suite, &case, config, Device::Emu).unwrap().outcome
        else {
            panic!("a missing expectation fails")
        };
        assert!(message.starts_with("no expectation file for twice"), "{message}");
    }

    /// A kernel that uses a barrier is not applicable in threadgroup split mode (`-mtgsplit`
    /// gives the configurations that mode), and says where: the line and column of the refused
    /// instruction. Without the mode it runs.
    #[test]
    fn barriers_are_not_applicable_under_tgsplit() {
        let src = VADD.replace("    if i < n", "    barrier();\n    if i < n");
        // No buffer is compared: the question is whether it runs.
        let case = Case { file: KernelFile::parse("twice", &src).unwrap(), expected: Expected::Same(Vec::new()) };
        let suite = Suite { cases: vec![case.clone()], known_failures: Vec::new() };
        let split = configs(&["gfx942".to_string(), "gfx1100".to_string()], true).unwrap();
        let labels: Vec<&str> = split.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["gfx942-w64-tgsplit", "gfx1100-w32", "gfx1100-w64"]);
        let result = run_case(&suite, &case, &split[0], Device::Emu).unwrap();
        assert!(result.reproduce.ends_with("-mcpu=gfx942 -mtgsplit"), "{}", result.reproduce);
        let Outcome::NotApplicable(message) = result.outcome else {
            panic!("a barrier under tgsplit is not applicable: {:?}", result.outcome)
        };
        // Without the mode, the kernel compiles and runs.
        let plain = configs(&["gfx942".to_string()], false).unwrap().remove(0);
        assert_eq!(run_case(&suite, &case, &plain, Device::Emu).unwrap().outcome, Outcome::Pass);
        let line = src.lines().position(|l| l.contains("barrier();")).unwrap() + 1;
        assert!(message.starts_with(&format!("twice.gk:{line}:5: compile: @twice: ")), "{message}");
        assert!(message.contains("threadgroup split mode"), "{message}");
    }

    #[test]
    fn configurations() {
        let labels: Vec<String> = configs(&[], false).unwrap().into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["gfx1100-w32", "gfx1100-w64", "gfx942-w64"]);
        assert!(configs(&["gfx9999".to_string()], false).is_err());
    }

    /// The command a result gives to reproduce it is a `gcnc check` of the kernel's file with
    /// the configuration's flags, which the command line accepts and which passes as the suite's
    /// run does (its path leads from the repository's root to the file).
    #[test]
    fn reproduce_commands_run_as_written() {
        let suite = Suite::embedded().unwrap();
        let case = suite.cases.iter().find(|c| c.file.name == "vadd").expect("vadd is in the suite");
        let root = bless::suite_dir().join("../..");
        for config in configs(&["gfx1100".to_string(), "gfx942".to_string()], false).unwrap() {
            for config in [config.clone(), config.with(Options { opt_level: 0, ..Options::default() })] {
                let result = run_case(&suite, case, &config, Device::Emu).unwrap();
                assert_eq!(result.outcome, Outcome::Pass, "{}", config.label);
                let mut words: Vec<String> = result.reproduce.split_whitespace().map(String::from).collect();
                assert_eq!(words[..2], ["gcnc", "check"], "{}", result.reproduce);
                assert_eq!(words.iter().any(|w| w == "-O0"), config.options.opt_level == 0, "{}", result.reproduce);
                let w64 = config.label.contains("gfx1100-w64");
                assert_eq!(words.iter().any(|w| w == "-mwavefrontsize64"), w64, "{}", result.reproduce);
                words[2] = root.join(&words[2]).to_str().expect("a UTF-8 path").to_string();
                let cli = crate::cli::parse(words.into_iter().map(std::ffi::OsString::from))
                    .unwrap_or_else(|e| panic!("{}: {e}", result.reproduce));
                crate::cli::execute(cli).unwrap_or_else(|e| panic!("{}: {e:#}", result.reproduce));
            }
        }
    }
}
