//! Differential checking: a kernel compiled by gcnc runs on the strict emulator and the same
//! IR runs on the reference interpreter, with the same inputs, and every buffer is compared
//! afterwards under the precision rules of kernel-language.md (bit for bit, any NaN equal to
//! any NaN). This is how a compiled kernel is known to be right (`gcnc check`, and the
//! end-to-end suites).

use crate::compile::{compile, CompileError, Options};
use frontend_ir::interp::{self, GlobalMemory, InterpError};
use frontend_ir::{FuncId, Function, InstData, Module, Type, Value};
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
}

/// The first element where the emulator and the interpreter disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The kernel parameter (0-based).
    pub param: usize,
    /// The element index in that buffer.
    pub index: usize,
    /// The interpreter's value, as text.
    pub expected: String,
    /// The emulator's value, as text.
    pub got: String,
}

impl core::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "parameter {} element {}: the interpreter gives {}, the compiled kernel {}",
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

/// Compiles `kernel` for `target`, runs it on the emulator and the IR on the interpreter with
/// `args`, and returns the first difference, if any.
pub fn check(
    module: &Module,
    kernel: FuncId,
    target: &Target,
    launch: &CheckLaunch,
    args: &[CheckArg],
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
    let compiled = compile(module, target, &Options::default())?;
    let program = emu::load(&compiled.shared()).map_err(CheckError::Emu)?;
    // The interpreter.
    let mut memory = GlobalMemory::new();
    let bits: Vec<u64> = args
        .iter()
        .map(|a| match a {
            CheckArg::Buffer { bytes, .. } => memory.alloc(bytes.clone()),
            CheckArg::Scalar(b) => *b,
        })
        .collect();
    let ilaunch = interp::Launch {
        grid: launch.grid,
        block: launch.block,
        wave_size: target.wave_size,
        dyn_shared_bytes: launch.dyn_shared_bytes,
    };
    interp::run_kernel(module, kernel, &ilaunch, &bits, &mut memory, &interp::Options::default())
        .map_err(CheckError::Interp)?;
    // The compiled kernel on the emulator.
    let mut device = emu::Device::new();
    let mut eargs = Vec::with_capacity(args.len());
    let mut eaddrs = Vec::with_capacity(args.len());
    for (a, &ty) in args.iter().zip(&func.signature.params) {
        match a {
            CheckArg::Buffer { bytes, .. } => {
                let addr = device.alloc(bytes.clone());
                eargs.push(emu::ArgValue::ptr(addr));
                eaddrs.push(Some(addr));
            }
            CheckArg::Scalar(b) => {
                let size = ty.bytes().unwrap_or(4) as usize;
                eargs.push(emu::ArgValue { bytes: b.to_le_bytes()[..size].to_vec() });
                eaddrs.push(None);
            }
        }
    }
    let elaunch = emu::Launch { grid: launch.grid, block: launch.block, dyn_shared_bytes: launch.dyn_shared_bytes };
    let options = emu::Options { wave_size: Some(target.wave_size), seed: launch.seed, ..emu::Options::default() };
    emu::dispatch(&mut device, &program, &func.name, &elaunch, &eargs, &options).map_err(CheckError::Emu)?;
    for (param, (a, (&ibits, eaddr))) in args.iter().zip(bits.iter().zip(&eaddrs)).enumerate() {
        let (CheckArg::Buffer { ty, .. }, Some(eaddr)) = (a, eaddr) else { continue };
        let expected = memory.buffer(ibits).unwrap_or_default();
        let got = device.buffer(*eaddr).unwrap_or_default();
        if let Some((index, e, g)) = compare(*ty, expected, got) {
            return Ok(Some(Mismatch { param, index, expected: e, got: g }));
        }
    }
    Ok(None)
}

/// The first element of two buffers of `ty` that differs (floats bit for bit, except that any
/// NaN equals any NaN), with both values as text.
pub fn compare(ty: Type, expected: &[u8], got: &[u8]) -> Option<(usize, String, String)> {
    let size = ty.bytes().unwrap_or(1) as usize;
    let text = |b: u64| match ty {
        Type::F16 => format!("{:?}", half::f16::from_bits(b as u16)),
        Type::F32 => format!("{:?}", f32::from_bits(b as u32)),
        Type::F64 => format!("{:?}", f64::from_bits(b)),
        _ => format!("{b:#x}"),
    };
    let nan = |b: u64| match ty {
        Type::F16 => half::f16::from_bits(b as u16).is_nan(),
        Type::F32 => f32::from_bits(b as u32).is_nan(),
        Type::F64 => f64::from_bits(b).is_nan(),
        _ => false,
    };
    let word = |c: &[u8]| c.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64);
    for (index, (e, g)) in expected.chunks(size).zip(got.chunks(size)).enumerate() {
        let (e, g) = (word(e), word(g));
        if e != g && !(nan(e) && nan(g)) {
            return Some((index, text(e), text(g)));
        }
    }
    (expected.len() != got.len())
        .then(|| (expected.len().min(got.len()) / size, "the buffer's end".into(), "more".into()))
}

/// The element type of each pointer parameter of a kernel, from the first load or store
/// through an address derived from it (by `ptradd` or `addrspacecast`); `None` for scalars and
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
            InstData::Store { args: [p, v], .. } | InstData::AtomicStore { args: [p, v], .. } => {
                if let Some(o) = from(*p, &origin) {
                    types[o].get_or_insert(func.dfg.value_type(*v));
                }
            }
            _ => {}
        }
    }
    types
}
