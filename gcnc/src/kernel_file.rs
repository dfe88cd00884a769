//! Kernel files with their launch: kernel-language source whose header comments say how to
//! run it, as the conformance suite, the regression suite, the documentation's examples and
//! `gcnc run`/`gcnc check` without launch flags use them, and what running one gives.
//!
//! A kernel file's header comments give the dispatch in the command line's syntax
//! ([`crate::launch`]) on one or more `// launch:` lines
//! (`// launch: --grid 1000 --block 128 --arg f32[1000]:rand=1 --arg 1000`; `; launch:` in
//! `.gir`, read with [`launch_words`] and [`parse_launch_words`]), and for kernels with
//! approximate math an optional `// tolerance: ulp=N abs=X` (a float element passes when it is
//! within N ulp of the expected value or within X of it; otherwise comparison is bit for bit,
//! any NaN equal to any NaN).
//!
//! [`KernelFile::parse`] reads and compiles one to IR and checks its launch against the
//! kernel's signature; [`run_interp`] runs it on the reference interpreter and
//! [`run_compiled`] compiled on the emulator or a GPU ([`Device`]), each giving the `&mut`
//! buffers after the run, which [`compare`] holds against each other.
//!
//! ```
//! use gcnc::kernel_file::{compare, run_compiled, run_interp, Device, KernelFile};
//! let text = "// launch: --grid 8 --block 8 --arg u32[8]:zeros\n\
//!             kernel fill(x: &mut [u32]) { x[global_id.x] = global_id.x * 3u; }\n";
//! let file = KernelFile::parse("fill", text).unwrap();
//! let expected = run_interp(&file, 32).unwrap();
//! let target = gcnc::Target::new(gcnc::TargetId::parse("gfx1100").unwrap());
//! for (_seed, got) in run_compiled(&file, &target, &gcnc::Options::default(), Device::Emu).unwrap() {
//!     compare(&expected, &got, file.tolerance).unwrap();
//! }
//! ```

use frontend_ir::interp;
use frontend_ir::{FuncId, Module};
use isa::processor::Target;
use thiserror::Error;

use crate::check::CheckArg;
use crate::compile::{compile, Options};
use crate::launch::{emulate, interpret, le_bits, parse_dims, ArgSpec, BufferInit, ParamValue, ScalarType};

/// An error in a kernel file.
#[derive(Debug, Error)]
pub enum KernelFileError {
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

/// A kernel file, compiled to IR, with its launch.
#[derive(Clone, Debug)]
pub struct KernelFile {
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
}

impl KernelFile {
    /// Parses and compiles kernel file `NAME.gk` (`name` without `.gk`).
    pub fn parse(name: &str, text: &str) -> Result<KernelFile, KernelFileError> {
        let file = format!("{name}.gk");
        let header = |line: usize, reason: String| KernelFileError::Header { file: file.clone(), line, reason };
        let mut tolerance = None;
        for (i, line) in text.lines().enumerate() {
            if let Some(rest) = line.trim_start().strip_prefix("// tolerance:") {
                tolerance = Some(parse_tolerance(rest).map_err(|r| header(i + 1, r))?);
            }
        }
        let words = launch_words(text, "// launch:");
        let (grid, block, specs) = parse_launch_words(words).map_err(|(line, reason)| header(line, reason))?;
        let compiled = lang::compile(text, &file)
            .map_err(|d| KernelFileError::Source { file: file.clone(), diagnostics: d.render(text) })?;
        let launch_error = |reason: String| KernelFileError::Launch { file: file.clone(), reason };
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
                    return Err(bad(
                        "a kernel file's launch is self-contained: its buffers cannot be read from files (file=)"
                            .into(),
                    ))
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
        Ok(KernelFile {
            name: name.to_string(),
            source: text.to_string(),
            module: compiled.module,
            kernel,
            params,
            launch: Launch { grid, block, args, dyn_shared_bytes },
            tolerance,
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

    /// The arguments of a differential check ([`crate::check::check`]) of this file: each
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
    pub fn results(&self) -> impl Iterator<Item = (usize, ScalarType)> + '_ {
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

/// Why a kernel could not run.
#[derive(Debug, Error)]
pub enum RunError {
    /// An input could not be made.
    #[error("bad input: {0}")]
    Input(String),
    /// The kernel did not compile for the target.
    #[error("compile: {0}")]
    Compile(Box<crate::compile::CompileError>),
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

impl From<crate::compile::CompileError> for RunError {
    fn from(e: crate::compile::CompileError) -> RunError {
        RunError::Compile(Box::new(e))
    }
}

impl RunError {
    /// Whether this says there is no usable GPU at all (which ends a whole run).
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, RunError::Gpu(e) if e.is_no_gpu())
    }
}

/// The `&mut` buffers of `file` after a run on the reference interpreter at `wave_size`.
pub fn run_interp(file: &KernelFile, wave_size: u32) -> Result<Vec<Buffer>, RunError> {
    let launch = interp::Launch {
        grid: file.launch.grid,
        block: file.launch.block,
        wave_size,
        dyn_shared_bytes: file.launch.dyn_shared_bytes,
    };
    let (memory, bits) = interpret(&file.module, file.kernel, &launch, &interp::Options::default(), file.inputs()?)?;
    Ok(file
        .results()
        .map(|(param, ty)| Buffer { param, ty, bytes: memory.buffer(bits[param]).unwrap_or_default().to_vec() })
        .collect())
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

/// Compiles `file` for `target` and runs it on `device`: on the emulator once per seed of
/// [`EMU_SEEDS`], on a GPU once. Returns the `&mut` buffers of each run, with its seed (0 on a
/// GPU).
pub fn run_compiled(
    file: &KernelFile,
    target: &Target,
    options: &Options,
    device: Device,
) -> Result<Vec<(u64, Vec<Buffer>)>, RunError> {
    let compiled = compile(&file.module, target, options)?;
    let code_object = compiled.shared();
    let program = emu::load(&code_object)?;
    let launch = emu::Launch {
        grid: file.launch.grid,
        block: file.launch.block,
        dyn_shared_bytes: file.launch.dyn_shared_bytes,
    };
    let kernel = &file.module.functions[file.kernel].name;
    let seeds: &[u64] = if device == Device::Emu { &EMU_SEEDS } else { &[0] };
    let mut runs = Vec::with_capacity(seeds.len());
    for &seed in seeds {
        let mut params = file.inputs()?;
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
        let buffers = file
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
