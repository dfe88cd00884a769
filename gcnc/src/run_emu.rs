//! `gcnc run --device emu` and `--device gpu`: a `.gir` or `.gk` input is compiled for the
//! command line's target first; a code object (`.o` or `.hsaco`, ours or anyone's) is loaded
//! as it is. [`prepare`] turns the launch into parameter bytes once, for either device.
//! Scalars take their type from the `.gk` signature or the IR's, or for a code object from
//! the metadata's `.type_name` (else the argument's `TYPE:`); buffers' element types are
//! checked against the `.gk` signature or the metadata's `.type_name` (`float*`).

use anyhow::{bail, Context, Result};
use gcnc::launch::{ArgSpec, ParamValue, ScalarType};
use runtime_abi::metadata::{Arg, ValueKind};

use crate::cli::{split_lds, RunOpts};

/// What the kernel's explicit arguments are, whichever the input was.
enum Signature<'a> {
    /// From the IR, with the `.gk` source's types when there is one.
    Ir(&'a crate::source::Program, gcnc::ir::FuncId),
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

/// Compiles or loads the input and makes each `--arg` into its parameter's bytes, checked
/// against the kernel's parameters: their count, pointer or not, and their types where the
/// source or the metadata (`.type_name`) gives them; errors name the parameter.
pub fn prepare(opts: &RunOpts) -> Result<Prepared> {
    let path = &opts.input;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    let target = opts.target.target()?;
    let source;
    let (bytes, signature, name) = if ext == "gir" || ext == "gk" {
        source = crate::source::load(path)?;
        let kernel = source.kernel(opts.kernel.as_deref())?;
        let compiled = source.compile(&target, &opts.opt.options())?;
        let name = source.module.functions[kernel].name.clone();
        (compiled.shared(), Signature::Ir(&source, kernel), name)
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
        Signature::Ir(p, k) => p.module.functions[*k].signature.params.len(),
        Signature::Metadata(args) => args.len(),
    };
    if specs.len() != count {
        bail!("{name} takes {count} parameter(s), the launch gives {} --arg", specs.len());
    }
    let mut params = Vec::with_capacity(count);
    for (index, spec) in specs.iter().enumerate() {
        let context = || match &signature {
            Signature::Ir(p, _) => p.describe_param(&name, index),
            Signature::Metadata(a) => match &a[index].name {
                Some(param) => format!("parameter {index} ({param}) of {name}"),
                None => format!("parameter {index} of {name}"),
            },
        };
        let is_pointer = match &signature {
            Signature::Ir(p, k) => p.module.functions[*k].signature.params[index].is_ptr(),
            Signature::Metadata(a) => a[index].value_kind == ValueKind::GlobalBuffer,
        };
        if is_pointer {
            if !spec.is_buffer() {
                bail!("{}: a pointer parameter needs a buffer, TYPE[N]:INIT, not '{spec}'", context());
            }
            match &signature {
                Signature::Ir(p, _) => p.check_buffer(&name, index, spec),
                Signature::Metadata(a) => metadata_buffer(spec, &a[index]),
            }
            .with_context(context)?;
            params.push(ParamValue::Buffer(spec.materialize().with_context(context)?));
            continue;
        }
        let value = match &signature {
            Signature::Ir(p, k) => {
                let ty = p.module.functions[*k].signature.params[index];
                let source = p.scalar_type(&name, index);
                let bits = crate::run_interp::typed_scalar_bits(spec, ty, source).with_context(context)?;
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
pub fn run(opts: &RunOpts) -> Result<(Vec<Vec<u8>>, RunStats)> {
    let mut prepared = prepare(opts)?;
    let name = &prepared.name;
    let defaults = emu::Options::default();
    let step_limit = opts.step_limit.unwrap_or(defaults.step_limit);
    let options = emu::Options { wave_size: Some(prepared.wave_size), step_limit, ..defaults };
    let dispatch = gcnc::launch::emulate(&prepared.program, name, &prepared.launch, &options, &mut prepared.params)
        .with_context(|| format!("running {name} on the emulator"))?;
    let proc = prepared.program.processor();
    let occupancy = prepared
        .program
        .kernel(name)
        .map(|k| runtime_abi::occupancy::descriptor_occupancy(k.descriptor(), proc, prepared.wave_size));
    let stats = RunStats { kernel: name.clone(), dispatch, occupancy };
    Ok((prepared.params.into_iter().map(ParamValue::into_buffer).collect(), stats))
}

/// What `gcnc run --stats` prints of an emulated run.
pub struct RunStats {
    /// The kernel.
    kernel: String,
    /// The emulator's counts.
    dispatch: emu::Stats,
    /// The waves per SIMD the kernel's descriptor allows (its registers; LDS aside).
    occupancy: Option<runtime_abi::occupancy::Occupancy>,
}

impl std::fmt::Display for RunStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.dispatch;
        let per_wave = d.wave_instructions as f64 / d.waves.max(1) as f64;
        write!(
            f,
            "@{}: {} workgroups, {} waves, {} wave-instructions executed ({per_wave:.1} a wave), {} lane-operations of vector ALU instructions",
            self.kernel, d.workgroups, d.waves, d.wave_instructions, d.lane_operations
        )?;
        if let Some(o) = self.occupancy {
            use runtime_abi::occupancy::Limiter;
            let limiter = match o.limiter {
                Limiter::Hardware => "the hardware's most",
                Limiter::Vgprs => "limited by the VGPRs",
                Limiter::Sgprs => "limited by the SGPRs",
            };
            write!(
                f,
                "\noccupancy by registers: {} waves per SIMD of {} ({limiter})",
                o.waves_per_simd, o.max_waves_per_simd
            )?;
        }
        Ok(())
    }
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

/// Checks a buffer argument's element type against the metadata's `.type_name` (`float*`),
/// when it names one.
fn metadata_buffer(spec: &ArgSpec, arg: &Arg) -> Result<()> {
    let declared = arg.type_name.as_deref().and_then(ScalarType::from_c_name);
    match (spec, declared) {
        (ArgSpec::Buffer { ty, .. }, Some((elem, true))) if *ty != elem => bail!(
            "the kernel's parameter is a buffer of {elem} ('{}'), the launch gives '{spec}'",
            arg.type_name.as_deref().unwrap_or_default()
        ),
        _ => Ok(()),
    }
}

/// A by-value argument of a code object: typed by the metadata's `.type_name` when it names a
/// C scalar type (a different written type is an error), else by the spec; its size must match the metadata's, except that
/// a 1- or 2-byte integer argument (`char`, `short`) takes an i32 or u32 value that fits.
fn metadata_scalar(spec: &ArgSpec, arg: &Arg) -> Result<Vec<u8>> {
    let from_metadata =
        arg.type_name.as_deref().and_then(ScalarType::from_c_name).filter(|&(_, pointer)| !pointer).map(|(t, _)| t);
    // The metadata's type, when it gives one, is the parameter's: a different written type is
    // an error (scalar_bits says which).
    let declared = from_metadata.or(match spec {
        ArgSpec::Scalar { ty: Some(t), .. } => Some(*t),
        _ => None,
    });
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
