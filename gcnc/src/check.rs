//! Differential checking: a kernel compiled by gcnc runs on the strict emulator and the same
//! IR runs on the reference interpreter, with the same inputs, and every buffer is compared
//! afterwards under the precision rules of kernel-language.md (bit for bit, any NaN equal to
//! any NaN; the elements computed from an approximate function within a stated bound). This is how a compiled kernel is known to be right (`gcnc check`, and the
//! end-to-end suites).

use crate::compile::{compile, optimized, CompileError, Options};
use crate::launch::{emulate, ParamValue};
use frontend_ir::interp::{self, GlobalMemory, InterpError};
use frontend_ir::{FuncId, Function, InstData, Module, Type, UnaryOp, Value};
use isa::processor::Target;
use thiserror::Error;

/// One kernel argument of a check.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckArg {
    /// A buffer of elements of `ty`, with its initial bytes.
    Buffer {
        /// The element type (for comparing and printing).
        ty: Type,
        /// Initial contents, little-endian.
        bytes: Vec<u8>,
    },
    /// A scalar, as bits (zero-extended).
    Scalar(u64),
}

/// The shape of the dispatch, and the emulator's interleaving seed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CheckLaunch {
    /// Work-items per dimension.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Dynamic shared memory per workgroup.
    pub dyn_shared_bytes: u32,
    /// 0 for the emulator's round-robin order, else a seed that varies it.
    pub seed: u64,
    /// The step limit of both runs (None: each one's default).
    pub step_limit: Option<u64>,
}

/// The first element where the emulator and the interpreter disagree, or where the
/// interpreter disagrees with itself on the optimized IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The kernel parameter (0-based).
    pub param: usize,
    /// The element index in that buffer.
    pub index: usize,
    /// The interpreter's value, as text.
    pub expected: String,
    /// The emulator's value (the optimized IR's on the interpreter when [`Mismatch::optimized`]),
    /// as text.
    pub got: String,
    /// Whether the difference is the optimizer's: the interpreter gives `got` on the IR the
    /// optimizer leaves, `expected` on the source IR (before the compiled kernel ran).
    pub optimized: bool,
    /// Whether the element is computed from an approximate function (compared within its
    /// bound when it is a float, exactly otherwise: through a conversion to an integer or a
    /// branch, the bound says nothing).
    pub approximate: bool,
}

impl core::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let other = if self.optimized { "the optimized IR on the interpreter" } else { "the compiled kernel" };
        write!(
            f,
            "parameter {} element {}: the interpreter gives {}, {other} {}",
            self.param, self.index, self.expected, self.got
        )
    }
}

/// Why a check could not compare.
#[derive(Debug, Error)]
pub enum CheckError {
    /// The kernel did not compile.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The reference interpreter faulted (the program itself is wrong).
    #[error("on the reference interpreter: {0}")]
    Interp(InterpError),
    /// The IR the optimizer leaves faulted on the reference interpreter, where the source IR
    /// ran (an optimizer bug: it made a well-defined program fault).
    #[error("the optimized IR on the reference interpreter: {0}")]
    Optimized(InterpError),
    /// The compiled kernel faulted on the emulator (a missing wait, a hazard, a bad access).
    #[error("on the emulator: {0}")]
    Emu(emu::EmuError),
    /// Wrong number of arguments.
    #[error("@{kernel} takes {expected} arguments, {got} given")]
    ArgCount {
        /// The kernel.
        kernel: String,
        /// Its parameter count.
        expected: usize,
        /// Given.
        got: usize,
    },
}

impl CheckError {
    /// Where in the module's source the error is: the instruction the backend refused
    /// ([`CompileError::loc`]) or the one the interpreter faulted at.
    pub fn loc(&self) -> Option<frontend_ir::SourceLoc> {
        match self {
            CheckError::Compile(e) => e.loc(),
            CheckError::Interp(e) => e.loc(),
            CheckError::Optimized(_) | CheckError::Emu(_) | CheckError::ArgCount { .. } => None,
        }
    }
}

/// Compiles `kernel` for `target`, runs it on the emulator and the IR on the interpreter with
/// `args`, and returns the first difference, if any.
pub fn check(
    module: &Module,
    kernel: FuncId,
    target: &Target,
    launch: &CheckLaunch,
    args: &[CheckArg],
) -> Result<Option<Mismatch>, CheckError> {
    check_except(module, kernel, target, launch, args, &|_, _| false)
}

/// How a check compiles and runs the kernel, beyond its launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// The compiler's options.
    pub compile: Options,
    /// Interleaving seeds the emulator also runs with, after [`CheckLaunch::seed`], each run
    /// compared in turn (the conformance suite's `EMU_SEEDS` are `[0, 1]`).
    pub extra_seeds: Vec<u64>,
}

/// [`check`], passing over the elements for which `unordered(parameter, element)` holds: those
/// whose final value depends on the order in which work-items ran (the last of several
/// exchanges, say), which the emulator and the interpreter may legitimately choose apart.
pub fn check_except(
    module: &Module,
    kernel: FuncId,
    target: &Target,
    launch: &CheckLaunch,
    args: &[CheckArg],
    unordered: &dyn Fn(usize, usize) -> bool,
) -> Result<Option<Mismatch>, CheckError> {
    check_with(module, kernel, target, launch, args, &CheckOptions::default(), unordered)
}

/// [`check_except`] with the compiler's options, the emulator's step limit and further
/// interleavings of `options`.
pub fn check_with(
    module: &Module,
    kernel: FuncId,
    target: &Target,
    launch: &CheckLaunch,
    args: &[CheckArg],
    options: &CheckOptions,
    unordered: &dyn Fn(usize, usize) -> bool,
) -> Result<Option<Mismatch>, CheckError> {
    let func = &module.functions[kernel];
    if args.len() != func.signature.params.len() {
        return Err(CheckError::ArgCount {
            kernel: func.name.clone(),
            expected: func.signature.params.len(),
            got: args.len(),
        });
    }
    // Compile first: a kernel the backend cannot compile is the first thing to report.
    let compiled = compile(module, target, &options.compile)?;
    let program = emu::load(&compiled.shared()).map_err(CheckError::Emu)?;
    // The interpreter.
    let ilaunch = interp::Launch {
        grid: launch.grid,
        block: launch.block,
        wave_size: target.wave_size,
        dyn_shared_bytes: launch.dyn_shared_bytes,
    };
    let mut ioptions = interp::Options::default();
    ioptions.step_limit = launch.step_limit.unwrap_or(ioptions.step_limit);
    let params = params_of(func, args);
    let (memory, bits) =
        crate::launch::interpret(module, kernel, &ilaunch, &ioptions, params).map_err(CheckError::Interp)?;
    let approx = approximate_elements(module, kernel, &ilaunch, args, &memory, &bits);
    let expected: Vec<&[u8]> = bits.iter().map(|&b| memory.buffer(b).unwrap_or_default()).collect();
    // The IR the optimizer leaves, on the interpreter against the source's run: a difference
    // there is the optimizer's, and is reported as such rather than as the code generator's.
    if let Some(single) = optimized(module, kernel, &options.compile)? {
        let (okernel, _) = single.kernels().next().expect("the optimizer keeps the kernel");
        let (omemory, obits) = crate::launch::interpret(&single, okernel, &ilaunch, &ioptions, params_of(func, args))
            .map_err(CheckError::Optimized)?;
        let got: Vec<Option<&[u8]>> = obits.iter().map(|&b| omemory.buffer(b)).collect();
        if let Some(m) = first_difference(args, &expected, &got, &approx, unordered, true) {
            return Ok(Some(m));
        }
    }
    // The compiled kernel on the emulator, once per interleaving.
    let elaunch = emu::Launch { grid: launch.grid, block: launch.block, dyn_shared_bytes: launch.dyn_shared_bytes };
    for &seed in std::iter::once(&launch.seed).chain(&options.extra_seeds) {
        let mut params = params_of(func, args);
        let eoptions = emu::Options {
            wave_size: Some(target.wave_size),
            seed,
            step_limit: launch.step_limit.unwrap_or(emu::Options::default().step_limit),
            ..emu::Options::default()
        };
        emulate(&program, &func.name, &elaunch, &eoptions, &mut params).map_err(CheckError::Emu)?;
        let got: Vec<Option<&[u8]>> = params
            .iter()
            .map(|p| match p {
                ParamValue::Buffer(b) => Some(b.as_slice()),
                _ => None,
            })
            .collect();
        if let Some(m) = first_difference(args, &expected, &got, &approx, unordered, false) {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// The first element, in parameter order, where a buffer of `got` differs from the one of
/// `expected` (the source IR's run on the interpreter), passing over the elements `unordered`
/// names; `optimized` says whose run `got` is, for the report.
fn first_difference(
    args: &[CheckArg],
    expected: &[&[u8]],
    got: &[Option<&[u8]>],
    approx: &[Vec<bool>],
    unordered: &dyn Fn(usize, usize) -> bool,
    optimized: bool,
) -> Option<Mismatch> {
    for (param, (a, (expected, got))) in args.iter().zip(expected.iter().zip(got)).enumerate() {
        let (CheckArg::Buffer { ty, .. }, Some(got)) = (a, got) else { continue };
        let marks = approx.get(param).map_or(&[][..], Vec::as_slice);
        let size = ty.bytes().unwrap_or(1) as usize;
        let mut start = 0;
        while let Some((i, e, g)) = compare(
            *ty,
            expected.get(start * size..).unwrap_or_default(),
            got.get(start * size..).unwrap_or_default(),
            marks.get(start..).unwrap_or_default(),
        ) {
            let index = start + i;
            if !unordered(param, index) {
                let approximate = marks.get(index).copied().unwrap_or(false);
                return Some(Mismatch { param, index, expected: e, got: g, approximate, optimized });
            }
            start = index + 1;
        }
    }
    None
}

/// Runs `kernel` on the reference interpreter with `args`: the memory afterwards and the
/// arguments' bits (buffer addresses in that memory).
pub fn interpret(
    module: &Module,
    kernel: FuncId,
    launch: &interp::Launch,
    args: &[CheckArg],
) -> Result<(GlobalMemory, Vec<u64>), InterpError> {
    let params = params_of(&module.functions[kernel], args);
    crate::launch::interpret(module, kernel, launch, &interp::Options::default(), params)
}

/// The arguments as device parameters: a buffer's bytes, a scalar's low bytes (its
/// parameter's size).
fn params_of(func: &Function, args: &[CheckArg]) -> Vec<ParamValue> {
    args.iter()
        .zip(&func.signature.params)
        .map(|(a, ty)| match a {
            CheckArg::Buffer { bytes, .. } => ParamValue::Buffer(bytes.clone()),
            CheckArg::Scalar(b) => ParamValue::Value(b.to_le_bytes()[..ty.bytes().unwrap_or(4) as usize].to_vec()),
        })
        .collect()
}

/// The bound within which an element computed from an approximate function (`rsqrt exp2 log2
/// sin cos`, kernel-language.md's "Precision") must match the interpreter's correctly rounded
/// value: `|got - expected| <= bound * max(|expected|, 1)`, relative above 1 and absolute below
/// (near a zero of sin or cos only an absolute error is meaningful). gcnc's f32 functions are
/// the transcendental unit's (about 1 ulp; sin and cos also carry the rounding of the angle
/// in revolutions, up to |x| * 2^-24, so for them the bound holds for |x| <= 8); f16 ones are
/// the f32 functions rounded once.
fn approx_bound(ty: Type) -> f64 {
    match ty {
        Type::F16 => 2f64.powi(-9),
        Type::F32 => 2f64.powi(-20),
        _ => 2f64.powi(-40),
    }
}

/// Which elements of each buffer parameter are computed from an approximate function: those
/// that change when the interpreter runs the kernel again with every approximate result
/// negated (any value but a NaN changes, -0 and +0 included). Empty when the kernel has no
/// approximate function; every element of every buffer when the changed run faults (the
/// negation reached an address or a branch).
fn approximate_elements(
    module: &Module,
    kernel: FuncId,
    launch: &interp::Launch,
    args: &[CheckArg],
    memory: &GlobalMemory,
    bits: &[u64],
) -> Vec<Vec<bool>> {
    let approximate =
        |op: UnaryOp| matches!(op, UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos);
    let mut changed = module.clone();
    let mut any = false;
    for func in changed.functions.values_mut() {
        for data in func.dfg.insts.values_mut() {
            if let InstData::Unary { op, .. } = data {
                if approximate(*op) {
                    *op = UnaryOp::Fneg;
                    any = true;
                }
            }
        }
    }
    if !any {
        return Vec::new();
    }
    let types = element_types(&module.functions[kernel]);
    let other = interpret(&changed, kernel, launch, args).ok();
    args.iter()
        .zip(bits)
        .zip(types)
        .map(|((a, &addr), ty)| {
            let (CheckArg::Buffer { bytes, .. }, Some(ty)) = (a, ty) else { return Vec::new() };
            let size = ty.bytes().unwrap_or(1) as usize;
            let Some((other, _)) = &other else { return vec![true; bytes.len() / size] };
            let first = memory.buffer(addr).unwrap_or_default();
            let second = other.buffer(addr).unwrap_or_default();
            first.chunks(size).zip(second.chunks(size)).map(|(x, y)| differs(ty, x, y)).collect()
        })
        .collect()
}

/// An element's bits (little-endian).
fn word(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64)
}

/// Whether a float's bits are a NaN.
fn is_nan(ty: Type, b: u64) -> bool {
    match ty {
        Type::F16 => half::f16::from_bits(b as u16).is_nan(),
        Type::F32 => f32::from_bits(b as u32).is_nan(),
        Type::F64 => f64::from_bits(b).is_nan(),
        _ => false,
    }
}

/// Whether two elements differ (bit for bit, any NaN equal to any NaN).
fn differs(ty: Type, x: &[u8], y: &[u8]) -> bool {
    let (x, y) = (word(x), word(y));
    x != y && !(is_nan(ty, x) && is_nan(ty, y))
}

/// A float's value as f64.
fn value(ty: Type, b: u64) -> f64 {
    match ty {
        Type::F16 => half::f16::from_bits(b as u16).to_f64(),
        Type::F32 => f32::from_bits(b as u32) as f64,
        _ => f64::from_bits(b),
    }
}

/// The first element of two buffers of `ty` that differs (floats bit for bit, except that any
/// NaN equals any NaN; the elements marked in `approx` within `approx_bound`), with both
/// values as text.
pub fn compare(ty: Type, expected: &[u8], got: &[u8], approx: &[bool]) -> Option<(usize, String, String)> {
    let size = ty.bytes().unwrap_or(1) as usize;
    let text = |b: u64| match ty {
        Type::F16 => format!("{:?}", half::f16::from_bits(b as u16)),
        Type::F32 => format!("{:?}", f32::from_bits(b as u32)),
        Type::F64 => format!("{:?}", f64::from_bits(b)),
        _ => format!("{b:#x}"),
    };
    for (index, (e, g)) in expected.chunks(size).zip(got.chunks(size)).enumerate() {
        if !differs(ty, e, g) {
            continue;
        }
        let (e, g) = (word(e), word(g));
        let close = approx.get(index).copied().unwrap_or(false) && ty.is_float() && {
            let (ev, gv) = (value(ty, e), value(ty, g));
            (gv - ev).abs() <= approx_bound(ty) * ev.abs().max(1.0)
        };
        if !close {
            return Some((index, text(e), text(g)));
        }
    }
    (expected.len() != got.len())
        .then(|| (expected.len().min(got.len()) / size, "the buffer's end".into(), "more".into()))
}

/// The element type of each pointer parameter of a kernel, from the first load, store or
/// atomic through an address derived from it (by `ptradd` or `addrspacecast`); `None` for scalars and
/// for pointers the kernel never accesses.
pub fn element_types(func: &Function) -> Vec<Option<Type>> {
    let Some(entry) = func.entry() else { return Vec::new() };
    let params = &func.dfg.blocks[entry].params;
    // The parameter each derived pointer comes from, by value index.
    let mut origin: Vec<Option<usize>> = vec![None; func.dfg.values.len()];
    for (i, &p) in params.iter().enumerate() {
        if func.dfg.value_type(p).is_ptr() {
            origin[p.as_u32() as usize] = Some(i);
        }
    }
    let mut types = vec![None; params.len()];
    let from = |v: Value, origin: &Vec<Option<usize>>| origin.get(v.as_u32() as usize).copied().flatten();
    // Layout order visits definitions before uses in the straight-line code that derives
    // addresses, which is all this needs.
    for (_, inst) in func.insts_in_layout() {
        let data = &func.dfg.insts[inst];
        match data {
            InstData::PtrAdd { args: [p, _] } | InstData::AddrSpaceCast { arg: p, .. } => {
                if let (Some(o), Some(r)) = (from(*p, &origin), func.dfg.inst_result(inst)) {
                    origin[r.as_u32() as usize] = Some(o);
                }
            }
            InstData::Load { ty, ptr, .. } | InstData::AtomicLoad { ty, ptr, .. } => {
                if let Some(o) = from(*ptr, &origin) {
                    types[o].get_or_insert(*ty);
                }
            }
            InstData::Store { args: [p, v], .. }
            | InstData::AtomicStore { args: [p, v], .. }
            | InstData::AtomicRmw { args: [p, v], .. }
            | InstData::AtomicCas { args: [p, _, v], .. } => {
                if let Some(o) = from(*p, &origin) {
                    types[o].get_or_insert(func.dfg.value_type(*v));
                }
            }
            _ => {}
        }
    }
    types
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// An element marked approximate may differ within the bound, relative above 1 and
    /// absolute below; an unmarked one must match bit for bit.
    #[test]
    fn approximate_elements_compare_within_the_bound() {
        let expected = f32s(&[0.5, 1000.0, 1e-9, f32::NAN]);
        let near = f32s(&[0.5 + 5e-7, 1000.0 * (1.0 + 5e-7), 5e-7, -f32::NAN]);
        assert_eq!(compare(Type::F32, &expected, &near, &[true; 4]), None);
        assert_eq!(compare(Type::F32, &expected, &near, &[]).map(|m| m.0), Some(0));
        assert_eq!(compare(Type::F32, &expected, &near, &[false, true, true, true]).map(|m| m.0), Some(0));
        let far = f32s(&[0.5, 1000.0 * (1.0 + 4e-6), 1e-9, f32::NAN]);
        assert_eq!(compare(Type::F32, &expected, &far, &[true; 4]).map(|m| m.0), Some(1));
    }

    /// The first difference skips unordered elements and scalar parameters, and says whose
    /// run differs.
    #[test]
    fn first_difference_names_the_optimizer() {
        let args = [CheckArg::Scalar(7), CheckArg::Buffer { ty: Type::F32, bytes: f32s(&[0.0; 3]) }];
        let expected = f32s(&[1.0, 2.0, 3.0]);
        let got = f32s(&[1.0, -2.0, 4.0]);
        let find = |unordered: &dyn Fn(usize, usize) -> bool, optimized| {
            first_difference(&args, &[&[], &expected], &[Some(&[9]), Some(&got)], &[], unordered, optimized)
        };
        let m = find(&|_, i| i == 1, true).expect("element 2 differs");
        assert_eq!((m.param, m.index, m.optimized), (1, 2, true));
        assert_eq!(
            m.to_string(),
            "parameter 1 element 2: the interpreter gives 3.0, the optimized IR on the interpreter 4.0"
        );
        let m = find(&|_, _| false, false).expect("element 1 differs");
        assert_eq!(m.to_string(), "parameter 1 element 1: the interpreter gives 2.0, the compiled kernel -2.0");
        assert_eq!(find(&|_, i| i > 0, false), None);
    }

    /// The emulator's step limit of [`CheckOptions`] ends a long run with an error, and the
    /// further interleavings run and compare too.
    #[test]
    fn check_with_limits_steps_and_runs_each_interleaving() {
        let src = "kernel @k(ptr<global>, i32) {
entry(%out: ptr<global>, %n: i32):
    %zero = iconst.i32 0
    %one = iconst.i32 1
    jump head(%zero)
head(%i: i32):
    %more = icmp ult %i, %n
    brif %more, body, done
body:
    %j = add %i, %one
    jump head(%j)
done:
    store %out, %i
    ret
}
";
        let module = frontend_ir::parser::parse_module(src).unwrap();
        let (kernel, _) = module.kernels().next().unwrap();
        let target = Target::new(isa::processor::TargetId::parse("gfx1100").unwrap());
        let launch = CheckLaunch { grid: [1, 1, 1], block: [1, 1, 1], dyn_shared_bytes: 0, seed: 0, step_limit: None };
        let args = [CheckArg::Buffer { ty: Type::I32, bytes: vec![0; 4] }, CheckArg::Scalar(10_000)];
        let limited = CheckLaunch { step_limit: Some(1_000), ..launch };
        let result = check_with(&module, kernel, &target, &limited, &args, &CheckOptions::default(), &|_, _| false);
        // The interpreter runs first, under the same limit.
        assert!(result.as_ref().is_err_and(|e| e.to_string().contains("step limit")), "{result:?}");
        let both = CheckOptions { extra_seeds: vec![1, 2], ..CheckOptions::default() };
        let result = check_with(&module, kernel, &target, &launch, &args, &both, &|_, _| false);
        assert!(matches!(result, Ok(None)), "{result:?}");
    }

    /// The elements that depend on an approximate function are found by negating it.
    #[test]
    fn approximate_elements_are_the_ones_an_approximate_function_reaches() {
        let src = "kernel @k(ptr<global>, f32) {
entry(%out: ptr<global>, %x: f32):
    %s = sin %x
    %y = fadd %x, %x
    %z = fmul %s, %y
    store %out, %y
    %four = iconst.i64 4
    %p = ptradd %out, %four
    store %p, %z
    ret
}
";
        let module = frontend_ir::parser::parse_module(src).unwrap();
        let (kernel, _) = module.kernels().next().unwrap();
        let launch = interp::Launch { grid: [1, 1, 1], block: [1, 1, 1], wave_size: 32, dyn_shared_bytes: 0 };
        let args = [CheckArg::Buffer { ty: Type::F32, bytes: vec![0; 8] }, CheckArg::Scalar(0.75f32.to_bits() as u64)];
        let (memory, bits) = interpret(&module, kernel, &launch, &args).unwrap();
        let marks = approximate_elements(&module, kernel, &launch, &args, &memory, &bits);
        assert_eq!(marks[0], vec![false, true]);
        assert!(marks[1].is_empty());
    }
}
