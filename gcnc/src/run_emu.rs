//! `gcnc run --device emu` and `--device gpu`: a `.gir` or `.gk` input is compiled for the
//! command line's target first; a code object (`.o` or `.hsaco`, ours or anyone's) is loaded
//! as it is. [`prepare`] turns the launch into parameter bytes once, for either device.
//! Scalars take their type from the IR signature, or for a code object from the `TYPE:` of
//! the argument or the metadata's `.type_name`.

use anyhow::{bail, Context, Result};
use gcnc::compile::{compile, Options};
use gcnc::ir::Module;
use gcnc::launch::{ArgSpec, ParamValue, ScalarType};
use runtime_abi::metadata::{Arg, ValueKind};

use crate::cli::{split_lds, RunOpts};

/// What the kernel's explicit arguments are, whichever the input was.
enum Signature<'a> {
    /// From the IR.
    Ir(&'a Module, gcnc::ir::FuncId),
    /// From the code object's metadata.
    Metadata(Vec<Arg>),
}

/// A launch ready for a device: the code object, decoded too, the kernel, the launch shape,
/// and each parameter's bytes.
pub struct Prepared {
    /// The code object's bytes.
    pub code_object: Vec<u8>,
    /// The code object, decoded.
    pub program: emu::Program,
    /// The kernel's name.
    pub name: String,
    /// Each kernel parameter, in order.
    pub params: Vec<ParamValue>,
    /// Grid, work-group size and dynamic shared memory.
    pub launch: emu::Launch,
    /// The wave size to run with: the descriptor's (the ELF does not record it otherwise).
    pub wave_size: u32,
}

/// Compiles or loads the input and makes each `--arg` into its parameter's bytes.
pub fn prepare(opts: &RunOpts) -> Result<Prepared> {
    let path = &opts.input;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    let target = opts.target.target()?;
    let module;
    let (bytes, signature, name) = if ext == "gir" || ext == "gk" {
        module = crate::source::load_module(path)?;
        let kernel = crate::run_interp::pick_kernel(&module, opts.kernel.as_deref())?;
        let compiled = compile(&module, &target, &Options::default())
            .with_context(|| format!("compiling '{}' for {}", path.display(), target.id))?;
        let name = module.functions[kernel].name.clone();
        (compiled.shared(), Signature::Ir(&module, kernel), name)
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
        let program = emu::load(&bytes).with_context(|| format!("loading '{}'", path.display()))?;
        let names: Vec<&str> = program.kernels().iter().map(|k| k.name()).collect();
        let name = match (opts.kernel.as_deref(), names.as_slice()) {
            (Some(n), _) if names.contains(&n) => n.to_string(),
            (Some(n), _) => bail!("no kernel named {n} in '{}'; it has {}", path.display(), names.join(", ")),
            (None, [only]) => only.to_string(),
            (None, _) => {
                bail!("'{}' has several kernels ({}); choose one with --kernel NAME", path.display(), names.join(", "))
            }
        };
        let args = program.kernel(&name).map(|k| k.explicit_args().into_iter().cloned().collect()).unwrap_or_default();
        (bytes, Signature::Metadata(args), name)
    };
    let program = emu::load(&bytes).with_context(|| format!("loading the code object of '{}'", path.display()))?;
    let (specs, dyn_shared_bytes) = split_lds(&opts.args);
    let count = match &signature {
        Signature::Ir(m, k) => m.functions[*k].signature.params.len(),
        Signature::Metadata(args) => args.len(),
    };
    if specs.len() != count {
        bail!("{name} takes {count} parameter(s), the launch gives {} --arg", specs.len());
    }
    let mut params = Vec::with_capacity(count);
    for (index, spec) in specs.iter().enumerate() {
        let context = || format!("parameter {index} of {name}");
        let is_pointer = match &signature {
            Signature::Ir(m, k) => m.functions[*k].signature.params[index].is_ptr(),
            Signature::Metadata(a) => a[index].value_kind == ValueKind::GlobalBuffer,
        };
        if is_pointer {
            if !spec.is_buffer() {
                bail!("{}: a pointer parameter needs a buffer, TYPE[N]:INIT, not '{spec}'", context());
            }
            params.push(ParamValue::Buffer(spec.materialize().with_context(context)?));
            continue;
        }
        let value = match &signature {
            Signature::Ir(m, k) => {
                let ty = m.functions[*k].signature.params[index];
                let bits = crate::run_interp::scalar_bits(spec, ty).with_context(context)?;
                let size = ty.bytes().unwrap_or(4) as usize;
                bits.to_le_bytes()[..size].to_vec()
            }
            Signature::Metadata(a) => metadata_scalar(spec, &a[index]).with_context(context)?,
        };
        params.push(ParamValue::Value(value));
    }
    let launch = emu::Launch { grid: opts.grid, block: opts.block, dyn_shared_bytes };
    let wave_size = program.kernel(&name).map_or(target.wave_size, |k| k.wave_size());
    Ok(Prepared { code_object: bytes, program, name, params, launch, wave_size })
}

/// Runs the kernel on the emulator and returns each parameter's bytes after the run (empty
/// for scalars).
pub fn run(opts: &RunOpts) -> Result<Vec<Vec<u8>>> {
    let mut prepared = prepare(opts)?;
    let name = &prepared.name;
    let options = emu::Options { wave_size: Some(prepared.wave_size), ..emu::Options::default() };
    gcnc::launch::emulate(&prepared.program, name, &prepared.launch, &options, &mut prepared.params)
        .with_context(|| format!("running {name} on the emulator"))?;
    Ok(prepared.params.into_iter().map(ParamValue::into_buffer).collect())
}

/// Runs the kernel on a GPU through the HSA runtime and returns each parameter's bytes after
/// the run (empty for scalars). With no usable GPU the error says `no GPU: ...`.
pub fn run_gpu(opts: &RunOpts) -> Result<Vec<Vec<u8>>> {
    let mut prepared = prepare(opts)?;
    let launch = gcnc::gpu::GpuLaunch {
        code_object: &prepared.code_object,
        program: &prepared.program,
        kernel: &prepared.name,
        launch: prepared.launch,
    };
    gcnc::gpu::run(&launch, &mut prepared.params)?;
    Ok(prepared.params.into_iter().map(ParamValue::into_buffer).collect())
}

/// A by-value argument of a code object: typed by the spec, or by the metadata's
/// `.type_name` when it names a C scalar type; its size must match the metadata's, except that
/// a 1- or 2-byte integer argument (`char`, `short`) takes an i32 or u32 value that fits.
fn metadata_scalar(spec: &ArgSpec, arg: &Arg) -> Result<Vec<u8>> {
    // OpenCL's char and short arguments (1 and 2 bytes) are written as i32 or u32 values that
    // must fit.
    let from_metadata = match arg.type_name.as_deref().map(|t| t.trim_end_matches('*').trim()) {
        Some("float") => Some(ScalarType::F32),
        Some("double") => Some(ScalarType::F64),
        Some("half") => Some(ScalarType::F16),
        Some("int" | "char" | "short") => Some(ScalarType::I32),
        Some("uint" | "unsigned int" | "uchar" | "unsigned char" | "ushort" | "unsigned short") => {
            Some(ScalarType::U32)
        }
        Some("long") => Some(ScalarType::I64),
        Some("ulong" | "unsigned long") => Some(ScalarType::U64),
        _ => None,
    };
    let declared = match spec {
        ArgSpec::Scalar { ty: Some(t), .. } => Some(*t),
        _ => from_metadata,
    };
    let (ty, bits) = spec.scalar_bits(declared)?;
    let size = arg.size as usize;
    let narrow_int = matches!(ty, ScalarType::I32 | ScalarType::U32) && (size == 1 || size == 2);
    if narrow_int {
        let fits = if ty == ScalarType::I32 {
            let v = bits as u32 as i32 as i64;
            let half = 1i64 << (8 * size - 1);
            (-half..half).contains(&v)
        } else {
            (bits as u32 as u64) < 1u64 << (8 * size)
        };
        if !fits {
            bail!("'{spec}' does not fit the kernel's {size}-byte argument");
        }
        return Ok(bits.to_le_bytes()[..size].to_vec());
    }
    if ty.size() != size {
        bail!("'{spec}' is {} bytes, the kernel's argument is {} bytes", ty.size(), arg.size);
    }
    Ok(bits.to_le_bytes()[..ty.size()].to_vec())
}
