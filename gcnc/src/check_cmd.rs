//! `gcnc check`: compiles a kernel, runs it on the emulator and on the reference interpreter
//! with the same inputs, and compares every buffer. Inputs are the `--arg`s when given, else
//! random: buffers of `--len` elements (the number of work-items by default) of the type the
//! kernel accesses them with, from `edge=SEED+i` ([`ScalarType::edge_value`]: edge cases
//! such as 0, ±1, MIN, MAX, NaN, ±inf and denormals half of the time, random values
//! otherwise); float scalars from the same distribution, and integer scalars, which are most
//! often sizes and indices, from the edge cases of `0..=len` (0, 1, len-1 and len each an
//! eighth of the time, else uniform); the scalars are drawn in parameter order from one
//! splitmix64 stream started at SEED.

use anyhow::{bail, Context, Result};
use gcnc::check::{check_with, element_types, CheckArg, CheckError, CheckLaunch, CheckOptions};
use gcnc::ir::Type;
use gcnc::launch::{splitmix64, ArgSpec, BufferInit, ScalarType};

use crate::cli::{split_lds, CheckOpts};

/// The command-line element type for an IR type.
fn scalar_type(ty: Type) -> Result<ScalarType> {
    Ok(match ty {
        Type::I32 => ScalarType::I32,
        Type::I64 => ScalarType::I64,
        Type::F16 => ScalarType::F16,
        Type::F32 => ScalarType::F32,
        Type::F64 => ScalarType::F64,
        _ => bail!("buffers of {ty} cannot be generated yet; give them with --arg"),
    })
}

/// Runs `gcnc check`; an error (exit status 1) when the results differ.
pub fn run(opts: &CheckOpts) -> Result<()> {
    let program = crate::source::load(&opts.input)?;
    let module = &program.module;
    let kernel = program.kernel(opts.kernel.as_deref())?;
    let func = &module.functions[kernel];
    let target = opts.target.target()?;
    // Saturating: a length too large for memory is refused by `materialize` (the one check of
    // buffer sizes), not allocated.
    let items = opts.grid.iter().fold(1usize, |n, &d| n.saturating_mul(d as usize));
    let len = opts.len.unwrap_or(items);
    let seed = opts.seed.unwrap_or(0);
    let (specs, dyn_shared_bytes) = split_lds(&opts.args);
    let params = &func.signature.params;
    let args: Vec<CheckArg> = if specs.is_empty() {
        let elems = element_types(func);
        let mut state = seed;
        params
            .iter()
            .zip(elems)
            .enumerate()
            .map(|(i, (&ty, elem))| -> Result<CheckArg> {
                if ty.is_ptr() {
                    let elem = elem.unwrap_or(Type::I32);
                    let spec = ArgSpec::Buffer {
                        ty: scalar_type(elem)?,
                        len,
                        init: BufferInit::Edge(seed.wrapping_add(i as u64)),
                    };
                    let length = if opts.len.is_some() {
                        "--len elements"
                    } else {
                        "the grid's work-items; --len N sets its length"
                    };
                    let context = || format!("parameter {i} of @{} (a random buffer of {length})", func.name);
                    let bytes = spec.materialize().with_context(context)?;
                    Ok(CheckArg::Buffer { ty: elem, bytes })
                } else {
                    // Integer scalars are most often sizes and indices of the buffers: their
                    // edge cases are those of 0..=len. Floats take the whole range.
                    let bits = match scalar_type(ty) {
                        Ok(t) if t.is_float() => t.edge_value(&mut state),
                        _ => {
                            let z = splitmix64(&mut state);
                            let len = len as u64;
                            let v = match z & 7 {
                                0 => 0,
                                1 => 1,
                                2 => len.saturating_sub(1),
                                3 => len,
                                _ => (z >> 3) % (len + 1),
                            };
                            v & ty.mask()
                        }
                    };
                    Ok(CheckArg::Scalar(bits))
                }
            })
            .collect::<Result<_>>()?
    } else {
        if specs.len() != params.len() {
            bail!("@{} takes {} parameter(s), the check gives {} --arg", func.name, params.len(), specs.len());
        }
        specs
            .iter()
            .zip(params)
            .enumerate()
            .map(|(i, (spec, &ty))| -> Result<CheckArg> {
                let context = || format!("parameter {i} of @{} ({ty})", func.name);
                match spec {
                    ArgSpec::Buffer { ty: elem, .. } if ty.is_ptr() => {
                        Ok(CheckArg::Buffer { ty: elem.ir_type(), bytes: spec.materialize().with_context(context)? })
                    }
                    _ if ty.is_ptr() => bail!("{}: a pointer parameter needs a buffer, not '{spec}'", context()),
                    _ => Ok(CheckArg::Scalar(crate::run_interp::scalar_bits(spec, ty).with_context(context)?)),
                }
            })
            .collect::<Result<_>>()?
    };
    let launch =
        CheckLaunch { grid: opts.grid, block: opts.block, dyn_shared_bytes, seed, step_limit: opts.step_limit };
    let options = CheckOptions { compile: opts.opt.options(), ..CheckOptions::default() };
    let result = match check_with(module, kernel, &target, &launch, &args, &options, &|_, _| false) {
        Err(CheckError::Compile(e)) => Err(program.compile_error(&target, &e)),
        Err(e) if e.loc().is_some() => Err(program.located(e.to_string(), None, e.loc())),
        result => Ok(result?),
    };
    match result? {
        None => {
            crate::cli::write_stdout("PASS\n")?;
            Ok(())
        }
        Some(m) => bail!("FAIL: {m}"),
    }
}
