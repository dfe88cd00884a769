//! The conformance suite: kernels in the kernel language with their launches and the results
//! the reference interpreter gives for them, run compiled on each target and compared.
//!
//! The suite lives in the workspace's `tests/conformance/` and is embedded in this library by
//! `build.rs` (`Suite::embedded`), so `gcnc conformance` needs no files at run time:
//!
//! - `NAME.gk`: a kernel named `NAME`. Its header comments give the launch in the command
//!   line's syntax ([`crate::launch`]), on one or more `// launch:` lines
//!   (`// launch: --grid 1000 --block 128 --arg f32[1000]:rand=1 --arg 1000`), and for kernels
//!   with approximate math an optional `// tolerance: ulp=N abs=X` (a float element passes when
//!   it is within N ulp of the expected value or within X of it; otherwise comparison is bit
//!   for bit, any NaN equal to any NaN).
//! - `expected/NAME.txt`: every `&mut` buffer after the run on the reference interpreter, the
//!   same at wave sizes 32 and 64; or `expected/NAME.w32.txt` and `expected/NAME.w64.txt`
//!   when the results depend on the wave size. They are fixed data, so a run on a GPU
//!   compares against them as a run on the emulator does. They are written by the interpreter
//!   ([`interpreter_expectation`]; `GCNC_BLESS=1 cargo test -p gcnc --test conformance`).
//! - `known-failures.txt`: the one list of failures that are known, each with its reason; they
//!   are shown as such and do not fail a run.
//!
//! [`run_case`] compiles a kernel for a [`Config`] (a target at one wave size), runs it on the
//! emulator or a GPU ([`Device`]) and compares; [`report`] renders the results as a table and as JUnit XML.

pub mod report;

use std::fmt;
use std::time::{Duration, Instant};

use frontend_ir::interp;
use frontend_ir::{FuncId, Module};
use isa::processor::{Target, TargetId};
use thiserror::Error;

use crate::check::CheckArg;
use crate::compile::{compile, Options};
use crate::launch::{emulate, interpret, le_bits, parse_dims, ArgSpec, BufferInit, ParamValue, ScalarType};

include!(concat!(env!("OUT_DIR"), "/conformance_suite.rs"));

/// The command that regenerates the expectations, quoted in their files and in messages.
pub const BLESS_COMMAND: &str = "GCNC_BLESS=1 cargo test -p gcnc --test conformance";

/// The processors `gcnc conformance` runs on when no `-mcpu` is given.
pub const DEFAULT_TARGETS: [&str; 2] = ["gfx1100", "gfx942"];

/// An error in the suite's files.
#[derive(Debug, Error)]
pub enum SuiteError {
    /// A header line of a kernel file is malformed.
    #[error("{file}:{line}: {reason}")]
    Header {
        /// The file, e.g. `vadd.gk`.
        file: String,
        /// The line (1-based).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A kernel file does not compile (the diagnostics, rendered).
    #[error("{file} does not compile:\n{diagnostics}")]
    Source {
        /// The file.
        file: String,
        /// The rendered diagnostics.
        diagnostics: String,
    },
    /// The launch does not fit the kernel's signature.
    #[error("{file}: {reason}")]
    Launch {
        /// The file.
        file: String,
        /// What does not fit.
        reason: String,
    },
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
    /// A suite directory cannot be read.
    #[error("cannot read '{path}': {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// How close a float result must be to its expectation (`// tolerance: ulp=N abs=X`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    /// Units in the last place of the expected value.
    pub ulp: f64,
    /// An absolute difference that is always accepted.
    pub abs: f64,
}

/// A kernel's dispatch: its geometry and one argument per kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Work-items in each dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// One spec per kernel parameter, in order.
    pub args: Vec<ArgSpec>,
    /// Dynamic shared memory per workgroup (the `lds:BYTES` specs).
    pub dyn_shared_bytes: u32,
}

/// How a kernel parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A scalar of this type.
    Scalar(ScalarType),
    /// A buffer of this element type; `mutable` ones are results.
    Buffer {
        /// The element type.
        elem: ScalarType,
        /// `&mut [T]`.
        mutable: bool,
    },
}

/// One result buffer: a kernel parameter and its bytes after the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The parameter (0-based).
    pub param: usize,
    /// The element type.
    pub ty: ScalarType,
    /// The contents, little-endian.
    pub bytes: Vec<u8>,
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

    /// The expectation files for kernel `name`: (file name, text).
    pub fn files(&self, name: &str) -> Vec<(String, String)> {
        match self {
            Expected::Missing => Vec::new(),
            Expected::Same(b) => vec![(format!("{name}.txt"), format_buffers(name, "32 and 64", b))],
            Expected::PerWave { w32, w64 } => vec![
                (format!("{name}.w32.txt"), format_buffers(name, "32", w32)),
                (format!("{name}.w64.txt"), format_buffers(name, "64", w64)),
            ],
        }
    }
}

/// A kernel of the suite, compiled to IR, with its launch and expectation.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel's name, also its file's stem.
    pub name: String,
    /// The source text.
    pub source: String,
    /// The IR.
    pub module: Module,
    /// The kernel in `module`.
    pub kernel: FuncId,
    /// Each parameter, from the source signature.
    pub params: Vec<Param>,
    /// The dispatch.
    pub launch: Launch,
    /// The float tolerance, when the kernel uses approximate math.
    pub tolerance: Option<Tolerance>,
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
    /// The suite embedded in this library at build time.
    pub fn embedded() -> Result<Suite, SuiteError> {
        Suite::from_texts(SOURCES.iter().copied(), EXPECTED.iter().copied(), KNOWN_FAILURES)
    }

    /// The suite in directory `dir` (as `tests/conformance`): for the tests that check and
    /// regenerate the files themselves.
    pub fn from_dir(dir: &std::path::Path) -> Result<Suite, SuiteError> {
        let read_dir = |d: &std::path::Path, suffix: &str| -> Result<Vec<(String, String)>, SuiteError> {
            let io = |source| SuiteError::Io { path: d.display().to_string(), source };
            let mut out = Vec::new();
            for entry in std::fs::read_dir(d).map_err(io)? {
                let path = entry.map_err(io)?.path();
                let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(suffix)) else {
                    continue;
                };
                let text = std::fs::read_to_string(&path)
                    .map_err(|source| SuiteError::Io { path: path.display().to_string(), source })?;
                out.push((name.to_string(), text));
            }
            out.sort();
            Ok(out)
        };
        let sources = read_dir(dir, ".gk")?;
        let expected =
            if dir.join("expected").is_dir() { read_dir(&dir.join("expected"), ".txt")? } else { Vec::new() };
        let known = std::fs::read_to_string(dir.join("known-failures.txt")).unwrap_or_default();
        Suite::from_texts(
            sources.iter().map(|(n, t)| (n.as_str(), t.as_str())),
            expected.iter().map(|(n, t)| (n.as_str(), t.as_str())),
            &known,
        )
    }

    /// The suite from its files' texts: kernels by name, expectations by file name without
    /// `.txt`, and the known-failure list.
    pub fn from_texts<'a>(
        sources: impl IntoIterator<Item = (&'a str, &'a str)>,
        expected: impl IntoIterator<Item = (&'a str, &'a str)>,
        known_failures: &str,
    ) -> Result<Suite, SuiteError> {
        let mut cases =
            sources.into_iter().map(|(name, text)| Case::parse(name, text)).collect::<Result<Vec<_>, _>>()?;
        cases.sort_by(|a, b| a.name.cmp(&b.name));
        let mut per_wave: Vec<[Option<Vec<Buffer>>; 2]> = vec![[None, None]; cases.len()];
        for (file, text) in expected {
            let (stem, slot) = match file.rsplit_once('.') {
                Some((stem, "w32")) => (stem, Some(0)),
                Some((stem, "w64")) => (stem, Some(1)),
                _ => (file, None),
            };
            let Ok(index) = cases.binary_search_by(|c| c.name.as_str().cmp(stem)) else {
                return Err(expectation_error(file, 0, format!("there is no kernel {stem}.gk")));
            };
            let buffers = parse_buffers(file, text, &cases[index])?;
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
                    let name = &case.name;
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

impl Case {
    /// Parses and compiles kernel file `NAME.gk` (`name` without `.gk`).
    pub fn parse(name: &str, text: &str) -> Result<Case, SuiteError> {
        let file = format!("{name}.gk");
        let header = |line: usize, reason: String| SuiteError::Header { file: file.clone(), line, reason };
        let mut tolerance = None;
        for (i, line) in text.lines().enumerate() {
            if let Some(rest) = line.trim_start().strip_prefix("// tolerance:") {
                tolerance = Some(parse_tolerance(rest).map_err(|r| header(i + 1, r))?);
            }
        }
        let words = launch_words(text, "// launch:");
        let (grid, block, specs) = parse_launch_words(words).map_err(|(line, reason)| header(line, reason))?;
        let compiled = lang::compile(text, &file)
            .map_err(|d| SuiteError::Source { file: file.clone(), diagnostics: d.render(text) })?;
        let launch_error = |reason: String| SuiteError::Launch { file: file.clone(), reason };
        let Some((kernel, _)) = compiled.module.kernels().find(|(_, f)| f.name == name) else {
            return Err(launch_error(format!("the file has no kernel named {name}")));
        };
        let signature = compiled.signature(name).ok_or_else(|| launch_error(format!("no signature for {name}")))?;
        let scalar = |t: lang::ScalarTy| t.name().parse::<ScalarType>().map_err(|e| launch_error(e.to_string()));
        let params = signature
            .params
            .iter()
            .map(|(_, ty)| match *ty {
                lang::ParamType::Scalar(t) => Ok(Param::Scalar(scalar(t)?)),
                lang::ParamType::Buffer { elem, mutable } => Ok(Param::Buffer { elem: scalar(elem)?, mutable }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut dyn_shared_bytes = 0u32;
        let mut args = Vec::new();
        for spec in specs {
            match spec {
                ArgSpec::Lds { bytes } => dyn_shared_bytes = dyn_shared_bytes.saturating_add(bytes),
                spec => args.push(spec),
            }
        }
        if args.len() != params.len() {
            return Err(launch_error(format!(
                "{name} takes {} parameter(s), the launch gives {} --arg",
                params.len(),
                args.len()
            )));
        }
        for (i, (spec, param)) in args.iter().zip(&params).enumerate() {
            let bad = |why: String| launch_error(format!("parameter {i} ('{spec}'): {why}"));
            match (spec, param) {
                (ArgSpec::Buffer { init: BufferInit::File(_), .. }, _) => {
                    return Err(bad("the suite is embedded in the program, so file= buffers cannot be used".into()))
                }
                (ArgSpec::Buffer { ty, .. }, Param::Buffer { elem, .. }) if ty != elem => {
                    return Err(bad(format!("the kernel's buffer holds {elem}")))
                }
                (ArgSpec::Buffer { .. }, Param::Buffer { .. }) => {}
                (_, Param::Scalar(ty)) => {
                    spec.scalar_bits(Some(*ty)).map_err(|e| bad(e.to_string()))?;
                }
                (_, Param::Buffer { .. }) => return Err(bad("the parameter is a buffer".into())),
            }
        }
        Ok(Case {
            name: name.to_string(),
            source: text.to_string(),
            module: compiled.module,
            kernel,
            params,
            launch: Launch { grid, block, args, dyn_shared_bytes },
            tolerance,
            expected: Expected::Missing,
        })
    }

    /// Each parameter's value: a buffer's initial contents, or a scalar's bytes.
    /// `e` as the outcome's message: a compile error about an instruction starts with its
    /// place in the kernel's file, `NAME.gk:line:col: `.
    pub fn describe(&self, e: &RunError) -> String {
        let at = match e {
            RunError::Compile(c) => c.loc().and_then(|loc| loc.line_col(&self.source)),
            _ => None,
        };
        match at {
            Some((line, col)) => format!("{}.gk:{line}:{col}: {e}", self.name),
            None => e.to_string(),
        }
    }

    fn inputs(&self) -> Result<Vec<ParamValue>, RunError> {
        let input = |e: crate::launch::LaunchError| RunError::Input(e.to_string());
        self.launch
            .args
            .iter()
            .zip(&self.params)
            .map(|(spec, param)| match param {
                Param::Scalar(ty) => {
                    let bits = spec.scalar_bits(Some(*ty)).map_err(input)?.1;
                    Ok(ParamValue::Value(bits.to_le_bytes()[..ty.size()].to_vec()))
                }
                Param::Buffer { .. } => Ok(ParamValue::Buffer(spec.materialize().map_err(input)?)),
            })
            .collect()
    }

    /// The arguments of a differential check ([`crate::check::check`]) of this case: each
    /// buffer's element type and initial bytes, each scalar's bits.
    pub fn check_args(&self) -> Result<Vec<CheckArg>, RunError> {
        Ok(self
            .inputs()?
            .into_iter()
            .zip(&self.params)
            .map(|(value, param)| match (value, param) {
                (ParamValue::Buffer(bytes), Param::Buffer { elem, .. }) => {
                    CheckArg::Buffer { ty: elem.ir_type(), bytes }
                }
                (ParamValue::Value(bytes), _) | (ParamValue::Buffer(bytes), _) => CheckArg::Scalar(le_bits(&bytes)),
            })
            .collect())
    }

    /// The `&mut` buffer parameters: (index, element type).
    fn results(&self) -> impl Iterator<Item = (usize, ScalarType)> + '_ {
        self.params.iter().enumerate().filter_map(|(i, p)| match *p {
            Param::Buffer { elem, mutable: true } => Some((i, elem)),
            _ => None,
        })
    }
}

fn parse_tolerance(text: &str) -> Result<Tolerance, String> {
    let mut tolerance = Tolerance::default();
    for word in text.split_whitespace() {
        let value = |v: &str| v.parse::<f64>().ok().filter(|x| *x >= 0.0).ok_or(format!("'{word}': not a number >= 0"));
        match word.split_once('=') {
            Some(("ulp", v)) => tolerance.ulp = value(v)?,
            Some(("abs", v)) => tolerance.abs = value(v)?,
            _ => return Err(format!("'{word}': expected ulp=N or abs=X")),
        }
    }
    Ok(tolerance)
}

/// Writes buffers in the expectation format: a comment, then per buffer a line
/// `buffer PARAM TYPE LEN` and the elements' bit patterns in hexadecimal, eight to a line.
fn format_buffers(name: &str, waves: &str, buffers: &[Buffer]) -> String {
    let mut text = format!(
        "# {name}: the &mut buffers after the run on the reference interpreter at wave size {waves}.\n\
         # Regenerate with: {BLESS_COMMAND}\n"
    );
    for b in buffers {
        let size = b.ty.size();
        text.push_str(&format!("buffer {} {} {}\n", b.param, b.ty, b.bytes.len() / size));
        for line in b.bytes.chunks(8 * size) {
            let words: Vec<String> =
                line.chunks(size).map(|e| format!("{:0width$x}", le_bits(e), width = 2 * size)).collect();
            text.push_str(&words.join(" "));
            text.push('\n');
        }
    }
    text
}

/// Reads an expectation file of `case`, checking that its buffers are the kernel's `&mut`
/// buffers with their launch lengths.
fn parse_buffers(file: &str, text: &str, case: &Case) -> Result<Vec<Buffer>, SuiteError> {
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
            let ty: ScalarType = ty.parse().map_err(|e: crate::launch::LaunchError| err(e.to_string()))?;
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
        if !cases.iter().any(|c| c.name == kernel) {
            return Err(err(format!("there is no kernel {kernel}.gk")));
        }
        let configs = configs.split(',').map(str::to_string).collect();
        out.push(KnownFailure { kernel, configs, reason });
    }
    Ok(out)
}

/// Why a kernel could not run.
#[derive(Debug, Error)]
pub enum RunError {
    /// An input could not be made.
    #[error("bad input: {0}")]
    Input(String),
    /// The kernel did not compile for the target.
    #[error("compile: {0}")]
    Compile(#[from] crate::compile::CompileError),
    /// The reference interpreter faulted.
    #[error("on the reference interpreter: {0}")]
    Interp(#[from] interp::InterpError),
    /// The compiled kernel faulted on the emulator.
    #[error("on the emulator: {0}")]
    Emu(#[from] emu::EmuError),
    /// The kernel did not run on a GPU, or there is none (the message says which).
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

impl RunError {
    /// Whether this says there is no usable GPU at all (which ends a whole run).
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, RunError::Gpu(e) if e.is_no_gpu())
    }
}

/// The `&mut` buffers of `case` after a run on the reference interpreter at `wave_size`.
pub fn run_interp(case: &Case, wave_size: u32) -> Result<Vec<Buffer>, RunError> {
    let launch = interp::Launch {
        grid: case.launch.grid,
        block: case.launch.block,
        wave_size,
        dyn_shared_bytes: case.launch.dyn_shared_bytes,
    };
    let (memory, bits) = interpret(&case.module, case.kernel, &launch, &interp::Options::default(), case.inputs()?)?;
    Ok(case
        .results()
        .map(|(param, ty)| Buffer { param, ty, bytes: memory.buffer(bits[param]).unwrap_or_default().to_vec() })
        .collect())
}

/// What the reference interpreter gives for `case`: run at wave sizes 32 and 64, one
/// expectation if the results agree, else one per wave size.
pub fn interpreter_expectation(case: &Case) -> Result<Expected, RunError> {
    let w32 = run_interp(case, 32)?;
    let w64 = run_interp(case, 64)?;
    Ok(if w32 == w64 { Expected::Same(w32) } else { Expected::PerWave { w32, w64 } })
}

/// Where compiled kernels run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The built-in emulator.
    Emu,
    /// A GPU through the HSA runtime ([`crate::gpu`]).
    Gpu,
}

/// The interleaving seeds each kernel runs with on the emulator ([`emu::Options::seed`]): the
/// fixed round-robin order, where loads read memory when they issue, and a varied order, where
/// they read it when they complete. Both are executions the hardware allows.
pub const EMU_SEEDS: [u64; 2] = [0, 1];

/// Compiles `case` for `target` and runs it on `device`: on the emulator once per seed of
/// [`EMU_SEEDS`], on a GPU once. Returns the `&mut` buffers of each run, with its seed (0 on a
/// GPU).
pub fn run_compiled(
    case: &Case,
    target: &Target,
    options: &Options,
    device: Device,
) -> Result<Vec<(u64, Vec<Buffer>)>, RunError> {
    let compiled = compile(&case.module, target, options)?;
    let code_object = compiled.shared();
    let program = emu::load(&code_object)?;
    let launch = emu::Launch {
        grid: case.launch.grid,
        block: case.launch.block,
        dyn_shared_bytes: case.launch.dyn_shared_bytes,
    };
    let kernel = &case.module.functions[case.kernel].name;
    let seeds: &[u64] = if device == Device::Emu { &EMU_SEEDS } else { &[0] };
    let mut runs = Vec::with_capacity(seeds.len());
    for &seed in seeds {
        let mut params = case.inputs()?;
        match device {
            Device::Emu => {
                let options = emu::Options { wave_size: Some(target.wave_size), seed, ..emu::Options::default() };
                emulate(&program, kernel, &launch, &options, &mut params)?;
            }
            Device::Gpu => {
                let gpu_launch = crate::gpu::GpuLaunch { code_object: &code_object, program: &program, kernel, launch };
                crate::gpu::run(&gpu_launch, &mut params)?
            }
        }
        let buffers = case
            .results()
            .map(|(param, ty)| Buffer { param, ty, bytes: params[param].clone().into_buffer() })
            .collect();
        runs.push((seed, buffers));
    }
    Ok(runs)
}

/// The first difference between expected and actual buffers, as a message; floats under
/// `tolerance` (bit for bit without one; any NaN equals any NaN).
pub fn compare(expected: &[Buffer], got: &[Buffer], tolerance: Option<Tolerance>) -> Result<(), String> {
    for (e, g) in expected.iter().zip(got) {
        let size = e.ty.size();
        if e.bytes.len() != g.bytes.len() {
            return Err(format!("parameter {}: {} bytes, expected {}", e.param, g.bytes.len(), e.bytes.len()));
        }
        for (index, (eb, gb)) in e.bytes.chunks(size).zip(g.bytes.chunks(size)).enumerate() {
            let (eb, gb) = (le_bits(eb), le_bits(gb));
            if !element_matches(e.ty, eb, gb, tolerance) {
                return Err(format!(
                    "parameter {} element {index}: expected {}, got {}",
                    e.param,
                    e.ty.format_bits(eb),
                    e.ty.format_bits(gb)
                ));
            }
        }
    }
    Ok(())
}

/// Whether element bits `got` match `expected` of type `ty`.
fn element_matches(ty: ScalarType, expected: u64, got: u64, tolerance: Option<Tolerance>) -> bool {
    if expected == got {
        return true;
    }
    let value = |bits: u64| match ty {
        ScalarType::F16 => Some((half::f16::from_bits(bits as u16).to_f64(), 11)),
        ScalarType::F32 => Some((f64::from(f32::from_bits(bits as u32)), 24)),
        ScalarType::F64 => Some((f64::from_bits(bits), 53)),
        _ => None,
    };
    let (Some((e, precision)), Some((g, _))) = (value(expected), value(got)) else { return false };
    if e.is_nan() || g.is_nan() {
        return e.is_nan() && g.is_nan();
    }
    let Some(tol) = tolerance else { return false };
    if e.is_infinite() || g.is_infinite() {
        return e == g;
    }
    // One ulp of the expected value: 2^(exponent - precision + 1), at least the smallest
    // subnormal's spacing.
    let min_exponent = match precision {
        11 => -14,
        24 => -126,
        _ => -1022,
    };
    let exponent = if e == 0.0 { min_exponent } else { (e.abs().log2().floor() as i32).max(min_exponent) };
    let ulp = 2f64.powi(exponent - precision + 1);
    let diff = (e - g).abs();
    diff <= tol.abs || diff <= tol.ulp * ulp
}

/// A launch header's grid, workgroup size and arguments.
pub type LaunchWords = ([u32; 3], [u32; 3], Vec<ArgSpec>);

/// The words of `text`'s launch lines (those starting, after indentation, with `prefix`:
/// `// launch:` in `.gk`, `; launch:` in `.gir`) with their 1-based line numbers, for
/// [`parse_launch_words`].
pub fn launch_words<'a>(text: &'a str, prefix: &'a str) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    text.lines()
        .enumerate()
        .filter_map(move |(i, line)| Some((i + 1, line.trim_start().strip_prefix(prefix)?)))
        .flat_map(|(line, rest)| rest.split_whitespace().map(move |w| (line, w)))
}

/// The dispatch of a kernel file's launch header: its words as (line, word) pairs, in the
/// command line's syntax (`--grid X[,Y[,Z]] --block X[,Y[,Z]] --arg SPEC ...`). Shared by the
/// conformance suite and the regression suite's `.gir` kernels. An error gives its line.
pub fn parse_launch_words<'a>(
    words: impl IntoIterator<Item = (usize, &'a str)>,
) -> Result<LaunchWords, (usize, String)> {
    let (mut grid, mut block) = (None, None);
    let mut specs = Vec::new();
    let mut it = words.into_iter();
    while let Some((line, flag)) = it.next() {
        let Some((_, value)) = it.next() else { return Err((line, format!("{flag} needs a value"))) };
        match flag {
            "--grid" => grid = Some(parse_dims(value).map_err(|e| (line, e.to_string()))?),
            "--block" => block = Some(parse_dims(value).map_err(|e| (line, e.to_string()))?),
            "--arg" => specs.push(ArgSpec::parse(value).map_err(|e| (line, e.to_string()))?),
            _ => return Err((line, format!("unknown launch flag '{flag}' (expected --grid, --block or --arg)"))),
        }
    }
    match (grid, block) {
        (Some(grid), Some(block)) => Ok((grid, block, specs)),
        _ => Err((1, "a launch header with --grid and --block is needed".to_string())),
    }
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
/// at its default wave size and, where the processor has both, at the other one.
pub fn configs(mcpus: &[String]) -> Result<Vec<Config>, isa::processor::TargetIdError> {
    let defaults: Vec<String> = DEFAULT_TARGETS.iter().map(|s| s.to_string()).collect();
    let mcpus = if mcpus.is_empty() { &defaults[..] } else { mcpus };
    let mut out = Vec::new();
    for mcpu in mcpus {
        let target = Target::new(TargetId::parse(mcpu)?);
        let mut waves = vec![target.wave_size];
        if target.processor().wave32 {
            waves.push(if target.wave_size == 32 { 64 } else { 32 });
        }
        for wave_size in waves {
            let target = Target { wave_size, ..target };
            out.push(Config { label: format!("{}-w{wave_size}", target.id), target, options: Options::default() });
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
}

impl Outcome {
    /// Whether this outcome fails a run.
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "FAIL",
            Outcome::KnownFailure { .. } => "known",
            Outcome::UnexpectedPass { .. } => "xpass",
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
    let result = match case.expected.at(config.target.wave_size) {
        None => Err(format!("no expectation file for {} (write it with: {BLESS_COMMAND})", case.name)),
        Some(expected) => match run_compiled(case, &config.target, &config.options, device) {
            Err(e) if e.is_no_gpu() => return Err(e),
            Err(e) => Err(case.describe(&e)),
            Ok(runs) => runs.iter().try_for_each(|(seed, got)| {
                compare(expected, got, case.tolerance).map_err(|m| match seed {
                    0 => m,
                    _ => format!("with emulator interleaving seed {seed}: {m}"),
                })
            }),
        },
    };
    let time = start.elapsed();
    let outcome = match (result, suite.known_failure(&case.name, &config.label)) {
        (Ok(()), None) => Outcome::Pass,
        (Ok(()), Some(reason)) => Outcome::UnexpectedPass { reason: reason.to_string() },
        (Err(message), None) => Outcome::Fail(message),
        (Err(message), Some(reason)) => Outcome::KnownFailure { reason: reason.to_string(), message },
    };
    let level = match config.options.opt_level {
        2 => String::new(),
        n => format!(" -O{n}"),
    };
    let reproduce = format!("gcnc check tests/conformance/{}.gk {}{level}", case.name, config.target.flags());
    Ok(CaseResult { kernel: case.name.clone(), config: config.label.clone(), outcome, time, reproduce })
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
    let cases: Vec<&Case> = suite.cases.iter().filter(|c| filter.is_none_or(|f| c.name.contains(f))).collect();
    let total = cases.len() * configs.len();
    let mut results = Vec::with_capacity(total);
    for config in configs {
        for case in &cases {
            progress(results.len(), total, &format!("{} on {}", case.name, config.label));
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

    const VADD: &str = "// launch: --grid 5 --block 4\n// launch: --arg u32[5]:iota --arg u32[5]:zeros --arg 5\n\
        kernel twice(a: &[u32], out: &mut [u32], n: u32) {\n    let i = global_id.x;\n    if i < n { out[i] = a[i] * 2u; }\n}\n";

    #[test]
    fn globs() {
        assert!(glob("*", "gfx942-w64") && glob("gfx1100-*", "gfx1100-w32") && glob("gfx942-w64", "gfx942-w64"));
        assert!(glob("*-w64", "gfx1100-w64") && !glob("*-w64", "gfx1100-w32") && !glob("gfx942", "gfx942-w64"));
    }

    #[test]
    fn headers_and_expectations() {
        let case = Case::parse("twice", VADD).unwrap();
        assert_eq!((case.launch.grid, case.launch.block, case.launch.args.len()), ([5, 1, 1], [4, 1, 1], 3));
        // The interpreter's results round-trip through the file format.
        let expected = interpreter_expectation(&case).unwrap();
        let Expected::Same(buffers) = &expected else { panic!("twice does not depend on the wave size") };
        let words: Vec<u32> = buffers[0].bytes.chunks(4).map(|c| le_bits(c) as u32).collect();
        assert_eq!(words, [0, 2, 4, 6, 8]);
        let files = expected.files("twice");
        assert_eq!(files[0].0, "twice.txt");
        let suite = Suite::from_texts([("twice", VADD)], [("twice", files[0].1.as_str())], "").unwrap();
        assert_eq!(suite.cases[0].expected, expected);
        // Errors name the file and line.
        let bad = VADD.replace("--block 4", "--block 4 --bogus 1");
        assert_eq!(
            Case::parse("twice", &bad).unwrap_err().to_string(),
            "twice.gk:1: unknown launch flag '--bogus' (expected --grid, --block or --arg)"
        );
        let short = VADD.replace(" --arg 5", "");
        assert_eq!(
            Case::parse("twice", &short).unwrap_err().to_string(),
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
        let mut case = Case::parse("twice", VADD).unwrap();
        let Expected::Same(mut buffers) = interpreter_expectation(&case).unwrap() else { panic!("one expectation") };
        let config = &configs(&["gfx942".to_string()]).unwrap()[0];
        let mut suite = Suite { cases: vec![case.clone()], known_failures: Vec::new() };
        case.expected = Expected::Same(buffers.clone());
        assert_eq!(run_case(&suite, &case, config, Device::Emu).unwrap().outcome, Outcome::Pass);
        buffers[0].bytes[8] ^= 1; // element 2: 4 becomes 5
        case.expected = Expected::Same(buffers);
        let failed = run_case(&suite, &case, config, Device::Emu).unwrap().outcome;
        assert_eq!(failed, Outcome::Fail("parameter 1 element 2: expected 5, got 4".to_string()));
        suite.known_failures =
            vec![KnownFailure { kernel: "twice".into(), configs: vec!["gfx9*".into()], reason: "r".into() }];
        let known = run_case(&suite, &case, config, Device::Emu).unwrap().outcome;
        assert!(matches!(known, Outcome::KnownFailure { .. }) && !known.is_failure());
        case.expected = Expected::Missing;
        let Outcome::KnownFailure { message, .. } = run_case(&suite, &case, config, Device::Emu).unwrap().outcome
        else {
            panic!("a missing expectation fails")
        };
        assert!(message.starts_with("no expectation file for twice"), "{message}");
    }

    /// A kernel the backend refuses fails with the line and column of the refused instruction.
    #[test]
    fn compile_errors_name_the_kernel_files_line() {
        let src = VADD.replace("    if i < n", "    barrier();\n    if i < n");
        let mut case = Case::parse("twice", &src).unwrap();
        case.expected = Expected::Same(Vec::new());
        let suite = Suite { cases: vec![case.clone()], known_failures: Vec::new() };
        let gfx942 = configs(&["gfx942".to_string()]).unwrap().remove(0);
        let split = Config { target: Target { tgsplit: true, ..gfx942.target }, ..gfx942 };
        let Outcome::Fail(message) = run_case(&suite, &case, &split, Device::Emu).unwrap().outcome else {
            panic!("a barrier under tgsplit does not compile")
        };
        let line = src.lines().position(|l| l.contains("barrier();")).unwrap() + 1;
        assert!(message.starts_with(&format!("twice.gk:{line}:5: compile: @twice: ")), "{message}");
        assert!(message.contains("threadgroup split mode"), "{message}");
    }

    #[test]
    fn tolerances() {
        let t = Some(Tolerance { ulp: 2.0, abs: 0.0 });
        let f = |x: f32| u64::from(x.to_bits());
        assert!(element_matches(ScalarType::F32, f(1.0), f(1.0 + f32::EPSILON * 2.0), t));
        assert!(!element_matches(ScalarType::F32, f(1.0), f(1.0 + f32::EPSILON * 3.0), t));
        assert!(!element_matches(ScalarType::F32, f(1.0), f(1.0 + f32::EPSILON), None));
        assert!(element_matches(ScalarType::F32, f(f32::NAN), f(-f32::NAN), None));
        assert!(element_matches(ScalarType::F32, f(0.0), f(1e-7), Some(Tolerance { ulp: 0.0, abs: 1e-6 })));
        assert!(!element_matches(ScalarType::U32, 1, 2, t));
    }

    #[test]
    fn configurations() {
        let labels: Vec<String> = configs(&[]).unwrap().into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["gfx1100-w32", "gfx1100-w64", "gfx942-w64"]);
        assert!(configs(&["gfx9999".to_string()]).is_err());
    }
}
