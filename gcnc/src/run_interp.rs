//! `gcnc run --device interp`: runs a `.gir` kernel on the reference interpreter, with the
//! launch described on the command line, and hands the buffers back for `--dump`/`--print`.

use anyhow::{bail, Context, Result};
use gcnc::ir::interp::{run_kernel, GlobalMemory, Launch, Options};
use gcnc::ir::{FuncId, Module, Type};
use gcnc::launch::{ArgSpec, ScalarType};

use crate::cli::RunOpts;

/// Runs the kernel and returns each kernel parameter's bytes after the run (empty for scalars).
pub fn run(opts: &RunOpts) -> Result<Vec<Vec<u8>>> {
    let program = crate::source::load(&opts.input)?;
    let module = &program.module;
    let kernel = program.kernel(opts.kernel.as_deref())?;
    let func = &module.functions[kernel];
    let (specs, dyn_shared_bytes) = crate::cli::split_lds(&opts.args);
    if specs.len() != func.signature.params.len() {
        bail!(
            "@{} takes {} parameter(s) ({}), the launch gives {} --arg",
            func.name,
            func.signature.params.len(),
            func.signature.params.iter().map(Type::to_string).collect::<Vec<_>>().join(", "),
            specs.len()
        );
    }
    let mut memory = GlobalMemory::new();
    let mut args = Vec::with_capacity(specs.len());
    let mut buffers = Vec::with_capacity(specs.len());
    for (index, (spec, &ty)) in specs.iter().zip(&func.signature.params).enumerate() {
        let source = program.scalar_type(&func.name, index);
        let context = || program.describe_param(&func.name, index);
        if ty.is_ptr() {
            if !spec.is_buffer() {
                bail!("{}: a pointer parameter needs a buffer, TYPE[N]:INIT, not '{spec}'", context());
            }
            program.check_buffer(&func.name, index, spec).with_context(context)?;
            let addr = memory.alloc(spec.materialize().with_context(context)?);
            args.push(addr);
            buffers.push(Some(addr));
        } else {
            args.push(typed_scalar_bits(spec, ty, source).with_context(context)?);
            buffers.push(None);
        }
    }
    let wave_size = opts.target.target()?.wave_size;
    let launch = Launch { grid: opts.grid, block: opts.block, wave_size, dyn_shared_bytes };
    let defaults = Options::default();
    let options = Options { step_limit: opts.step_limit.unwrap_or(defaults.step_limit), ..defaults };
    run_kernel(module, kernel, &launch, &args, &mut memory, &options).map_err(|e| {
        let message = format!("running @{} on the reference interpreter: {e}", func.name);
        match e.loc() {
            // A fault: at the instruction's line.
            Some(loc) => program.located(message, None, Some(loc)),
            None => anyhow::anyhow!(message),
        }
    })?;
    Ok(buffers
        .into_iter()
        .map(|b| b.and_then(|addr| memory.buffer(addr)).map(<[u8]>::to_vec).unwrap_or_default())
        .collect())
}

/// The kernel named by `--kernel`, or the module's only kernel.
pub fn pick_kernel(module: &Module, name: Option<&str>) -> Result<FuncId> {
    let kernels: Vec<(FuncId, &str)> = module.kernels().map(|(id, f)| (id, f.name.as_str())).collect();
    let names = || kernels.iter().map(|(_, n)| format!("@{n}")).collect::<Vec<_>>().join(", ");
    match name {
        Some(name) => match kernels.iter().find(|(_, n)| *n == name.trim_start_matches('@')) {
            Some(&(id, _)) => Ok(id),
            None => bail!("no kernel named @{} in the input; it has {}", name.trim_start_matches('@'), names()),
        },
        None => match kernels[..] {
            [(id, _)] => Ok(id),
            [] => bail!("the input has no kernel"),
            _ => bail!("the input has several kernels ({}); choose one with --kernel NAME", names()),
        },
    }
}

/// A scalar argument's bits for a parameter of IR type `ty`. IR integers carry no sign, so an
/// `i32` parameter takes `i32` or `u32` values (an untyped value may be either).
pub fn scalar_bits(spec: &ArgSpec, ty: Type) -> Result<u64> {
    typed_scalar_bits(spec, ty, None)
}

/// [`scalar_bits`], knowing the parameter's source type when the kernel came from a `.gk` file:
/// then an untyped value is read as that type (`-1` is no `u32`), and a written type must be it.
pub fn typed_scalar_bits(spec: &ArgSpec, ty: Type, source: Option<ScalarType>) -> Result<u64> {
    if let Some(source) = source {
        return Ok(spec.scalar_bits(Some(source))?.1);
    }
    let candidates: &[ScalarType] = match ty {
        Type::I32 => &[ScalarType::I32, ScalarType::U32],
        Type::I64 => &[ScalarType::I64, ScalarType::U64],
        Type::F16 => &[ScalarType::F16],
        Type::F32 => &[ScalarType::F32],
        Type::F64 => &[ScalarType::F64],
        _ => bail!("a {ty} parameter cannot be given on the command line"),
    };
    if let ArgSpec::Scalar { ty: Some(written), .. } = spec {
        if !candidates.contains(written) {
            bail!("'{spec}' is a {written}, the parameter is {ty}");
        }
        return Ok(spec.scalar_bits(Some(*written))?.1);
    }
    let mut first_error = None;
    for &candidate in candidates {
        match spec.scalar_bits(Some(candidate)) {
            Ok((_, bits)) => return Ok(bits),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.map(Into::into).unwrap_or_else(|| anyhow::anyhow!("'{spec}' is not a scalar")))
}
