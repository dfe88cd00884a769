//! Dynamic instruction counts: a code object run on the emulator (crate `emu`) with a
//! conformance kernel's launch.
//!
//! Instructions per work-item are defined as the emulator's wave-instructions (one per
//! instruction a wave issues, whatever its EXEC mask) times the wave size, divided by the
//! work-items launched: the issue slots a work-item costs, so a wave64 instruction weighs
//! twice a wave32 one and idle lanes of divergent code are paid for. The same launch (the
//! same buffers from the same `rand=SEED` streams, the same scalars) drives gcnc's object and
//! LLVM's, and the output buffers are kept so the two can be compared.

use crate::suite::LaunchSpec;
use anyhow::{anyhow, bail, Context, Result};
use gcnc::emu;
use gcnc::launch::{emulate, ParamValue, ScalarType};

/// What one emulated run counted.
#[derive(Clone, Debug)]
pub struct Dynamic {
    /// Wave-instructions executed.
    pub wave_instructions: u64,
    /// The kernel's wave size.
    pub wave_size: u32,
    /// Work-items launched.
    pub work_items: u64,
    /// Every buffer parameter's bytes after the run, in parameter order (empty for scalars).
    pub buffers: Vec<Vec<u8>>,
    /// Seconds the emulator took to run it (the dispatch alone).
    pub seconds: f64,
}

impl Dynamic {
    /// Wave-instructions × wave size ÷ work-items.
    pub fn per_work_item(&self) -> f64 {
        self.wave_instructions as f64 * f64::from(self.wave_size) / self.work_items.max(1) as f64
    }

    /// Lane-instructions: wave-instructions × wave size, the lanes the emulator ran
    /// instructions for (idle lanes of divergent code included, as on the hardware).
    pub fn lane_instructions(&self) -> f64 {
        self.wave_instructions as f64 * f64::from(self.wave_size)
    }
}

/// Runs kernel `name` of the code object `bytes` with `launch`; `scalars[i]` is the source
/// type of parameter `i` when it is a scalar (None for a buffer).
pub fn run(bytes: &[u8], name: &str, launch: &LaunchSpec, scalars: &[Option<ScalarType>]) -> Result<Dynamic> {
    let program = emu::load(bytes).context("loading the code object")?;
    let kernel = program.kernel(name).ok_or_else(|| anyhow!("no kernel named {name}"))?;
    let wave_size = kernel.wave_size();
    let declared = kernel.explicit_args().len();
    if declared != launch.args.len() || scalars.len() != launch.args.len() {
        bail!(
            "{name} takes {declared} argument(s) in its metadata and {} in its source; the launch gives {}",
            scalars.len(),
            launch.args.len()
        );
    }
    let mut params = Vec::with_capacity(launch.args.len());
    for (index, (spec, scalar)) in launch.args.iter().zip(scalars).enumerate() {
        params.push(match scalar {
            None => ParamValue::Buffer(spec.materialize().with_context(|| format!("argument {index}"))?),
            Some(ty) => {
                let (ty, bits) = spec.scalar_bits(Some(*ty)).with_context(|| format!("argument {index}"))?;
                ParamValue::Value(bits.to_le_bytes()[..ty.size()].to_vec())
            }
        });
    }
    let emu_launch = emu::Launch { grid: launch.grid, block: launch.block, dyn_shared_bytes: 0 };
    let options = emu::Options { wave_size: Some(wave_size), ..emu::Options::default() };
    let start = std::time::Instant::now();
    let stats = emulate(&program, name, &emu_launch, &options, &mut params)
        .map_err(|e| anyhow!("{e}"))
        .context("on the emulator")?;
    let seconds = start.elapsed().as_secs_f64();
    let buffers = params.into_iter().map(ParamValue::into_buffer).collect();
    Ok(Dynamic {
        wave_instructions: stats.wave_instructions,
        wave_size,
        work_items: launch.work_items(),
        buffers,
        seconds,
    })
}
