//! Dispatch: the grid is cut into work-groups (the last one of a dimension may be partial) and
//! each group into waves by the flattened local ID within the group's actual size; up to
//! `max_resident_groups` groups are resident at once, later ones start as earlier ones finish.
//!
//! All waves of all resident groups are interleaved: with seed 0, one instruction per wave per
//! turn in a fixed round-robin order; with another seed, each turn visits the waves in a
//! shuffled order and runs each for a short random burst, so that code whose correctness
//! depends on one interleaving can be caught by another. A wave that reaches `s_barrier` waits
//! until every wave of its group still running has reached it (a finished wave no longer
//! counts, as on the hardware). A run that executes more wave-instructions than the step limit
//! is reported as a livelock.
//!
//! A store (or atomic) no wait has completed reaches memory for the other waves after
//! [`Options::store_deadline`] wave-instructions of the dispatch, or when its work-group ends
//! (see [`crate::waitcnt_check`]); `s_endpgm` does not complete them. That is long after any
//! correct wait would have, so a missing wait shows as stale data, yet soon enough that waves
//! passing messages through memory make progress.

use crate::device::Device;
use crate::error::{EmuError, FaultSite, LaunchError};
use crate::exec::{step, ExecCtx, Flow};
use crate::hazard::Rules;
use crate::memory::Memory;
use crate::program::{inst_text, Kernel, Program};
use crate::setup::{dispatch_packet, kernarg_segment, needs_dispatch_packet, WaveSetup};
use crate::wave::{Wave, WaveState};
use crate::FaultKind;
use runtime_abi::occupancy;

/// The shape of a dispatch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Work-items in each dimension (HSA's grid size; need not be a multiple of the work-group
    /// size: the last work-group of a dimension is then partial).
    pub grid: [u32; 3],
    /// The work-group size in each dimension.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (LDS) per work-group, after the kernel's static LDS.
    pub dyn_shared_bytes: u32,
}

impl Launch {
    /// A 1-D launch of `grid` work-items in work-groups of `block`.
    pub fn linear(grid: u32, block: u32) -> Launch {
        Launch { grid: [grid, 1, 1], block: [block, 1, 1], dyn_shared_bytes: 0 }
    }

    /// The number of work-groups in each dimension (the last one may be partial).
    pub fn num_groups(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.block[d].max(1)))
    }
}

/// The bytes of one explicit kernel argument, as the kernarg segment holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgValue {
    /// Little-endian bytes, exactly the argument's `.size`.
    pub bytes: Vec<u8>,
}

impl ArgValue {
    /// A 32-bit integer.
    pub fn u32(v: u32) -> ArgValue {
        ArgValue { bytes: v.to_le_bytes().to_vec() }
    }

    /// A signed 32-bit integer.
    pub fn i32(v: i32) -> ArgValue {
        ArgValue::u32(v as u32)
    }

    /// A 64-bit integer.
    pub fn u64(v: u64) -> ArgValue {
        ArgValue { bytes: v.to_le_bytes().to_vec() }
    }

    /// An f32.
    pub fn f32(v: f32) -> ArgValue {
        ArgValue::u32(v.to_bits())
    }

    /// A device address (from [`Device::alloc`]).
    pub fn ptr(addr: u64) -> ArgValue {
        ArgValue::u64(addr)
    }
}

/// How to run a dispatch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The wave size to run with; None takes the kernel descriptor's (ENABLE_WAVEFRONT_SIZE32),
    /// and any other value must agree with it.
    pub wave_size: Option<u32>,
    /// The most wave-instructions the run may execute before it is reported as a livelock.
    pub step_limit: u64,
    /// 0: fixed round-robin interleaving; otherwise the seed of a varied interleaving. Loads
    /// read memory when they issue with an even seed, when they complete with an odd one: both
    /// are executions the hardware allows, and each exposes different missing waits.
    pub seed: u64,
    /// How many work-groups are resident (interleaved) at once.
    pub max_resident_groups: u32,
    /// Wave-instructions of the dispatch after which a store that no wait has completed
    /// reaches memory for the other waves.
    pub store_deadline: u64,
    /// Record which operations each wait completes ([`Stats::waits`]).
    pub profile_waits: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            wave_size: None,
            step_limit: 100_000_000,
            seed: 0,
            max_resident_groups: 16,
            store_deadline: 20_000,
            profile_waits: false,
        }
    }
}

/// For each wait instruction's PC (`s_waitcnt`, its one-counter forms, and `s_endpgm`, which
/// lets every store complete), the PCs of the memory operations it completed.
pub type WaitProfile = std::collections::BTreeMap<u32, std::collections::BTreeSet<u32>>;

/// What a dispatch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Wave-instructions executed (one per instruction per wave, whatever its EXEC).
    pub wave_instructions: u64,
    /// Lane-operations of vector ALU instructions (their active lanes, summed).
    pub lane_operations: u64,
    /// Waves that ran.
    pub waves: u64,
    /// Work-groups that ran.
    pub workgroups: u64,
    /// With [`Options::profile_waits`]: which operations each wait completed.
    pub waits: WaitProfile,
}

/// Largest work-group, in work-items.
pub const MAX_WORKGROUP_SIZE: u32 = 1024;
/// Largest LDS allocation of a work-group, in bytes (64 KiB on gfx942 and gfx1100).
pub const MAX_SHARED_BYTES: u32 = 65536;

struct Group {
    id: [u32; 3],
    waves: Vec<Wave>,
    /// The work-group's LDS (static then dynamic), zero-filled.
    lds: Vec<u8>,
}

/// A small deterministic generator (splitmix64) for the varied interleavings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Runs `kernel` of `program` over the grid of `launch` with `args` (one per explicit
/// argument, in order), reading and writing `device`'s memory in place.
///
/// A kernel compiled from the kernel language relies on Rust's reference rules for its
/// buffers: nothing writes a `&[T]` buffer while it runs, and a `&mut [T]` buffer overlaps no
/// other buffer parameter. Give each buffer its own [`Device::alloc`]; passing one allocation
/// as two buffer arguments, one of them `&mut`, is the caller's error, and the results are
/// then not defined.
pub fn dispatch(
    device: &mut Device,
    program: &Program,
    kernel: &str,
    launch: &Launch,
    args: &[ArgValue],
    options: &Options,
) -> Result<Stats, EmuError> {
    let k = find_kernel(program, kernel)?;
    check_launch(program, k, launch, options)?;
    let kernarg_bytes = kernarg_segment(k, launch, args)?;
    // The segment is 16-byte aligned and allocated in whole 16-byte units, as a runtime's
    // kernarg memory is: code may load the 16 bytes that hold the last arguments (LLVM widens
    // kernarg loads so), reading past the declared size into that unit's padding.
    let mut unit = kernarg_bytes.clone();
    unit.resize(kernarg_bytes.len().next_multiple_of(16), 0);
    let kernarg = device.alloc(unit);
    let packet = needs_dispatch_packet(k, program.processor())
        .then(|| device.alloc(dispatch_packet(launch, k.descriptor(), kernarg)));
    let result = run_waves(device, program, k, launch, options, kernarg, &kernarg_bytes, packet);
    device.free(kernarg);
    if let Some(p) = packet {
        device.free(p);
    }
    result
}

/// Runs `kernel` as a command processor runs an AQL kernel dispatch packet that a runtime
/// has placed in `device`'s memory with its kernarg segment: each wave's kernarg pointer is
/// `kernarg` and its dispatch pointer `packet`, and nothing is allocated. The launch is
/// checked as [`dispatch`] checks it, and the kernel's whole kernarg segment (the larger of
/// the metadata's and the descriptor's size), if it has one, must lie in one buffer.
pub fn dispatch_at(
    device: &mut Device,
    program: &Program,
    kernel: &str,
    launch: &Launch,
    kernarg: u64,
    packet: u64,
    options: &Options,
) -> Result<Stats, EmuError> {
    let k = find_kernel(program, kernel)?;
    check_launch(program, k, launch, options)?;
    let size = k.metadata().map_or(0, |m| m.kernarg_segment_size).max(k.descriptor().kernarg_size);
    // A kernel without arguments may be given no segment at all.
    let kernarg_bytes = if size == 0 { Ok(&[][..]) } else { device.read(kernarg, size) }
        .map_err(|oob| LaunchError::KernargOutOfBounds {
            kernel: kernel.to_string(),
            addr: kernarg,
            size,
            detail: oob.detail,
        })?
        .to_vec();
    let packet = needs_dispatch_packet(k, program.processor()).then_some(packet);
    run_waves(device, program, k, launch, options, kernarg, &kernarg_bytes, packet)
}

fn find_kernel<'p>(program: &'p Program, kernel: &str) -> Result<&'p Kernel, LaunchError> {
    program.kernel(kernel).ok_or_else(|| LaunchError::NoSuchKernel {
        name: kernel.to_string(),
        known: program.kernels().iter().map(|k| k.name()).collect::<Vec<_>>().join(", "),
    })
}

/// The waves of a checked launch whose kernarg segment (and packet, when the kernel reads
/// it) are in `device` at `kernarg` (and `packet`).
#[allow(clippy::too_many_arguments)]
fn run_waves(
    device: &mut Device,
    program: &Program,
    k: &Kernel,
    launch: &Launch,
    options: &Options,
    kernarg: u64,
    kernarg_bytes: &[u8],
    packet: Option<u64>,
) -> Result<Stats, EmuError> {
    let setup = WaveSetup::new(k, program.processor(), kernarg, kernarg_bytes, packet)?;
    Machine::new(program, k, launch, options, &setup).run(device)
}

/// Checks a launch's shape against what the kernel's metadata requires, as any device must:
/// no zero dimension, the `.reqd_workgroup_size` if it has one, at most
/// `.max_flat_workgroup_size` work-items per group (and at most [`MAX_WORKGROUP_SIZE`]).
pub fn check_workgroup(k: &Kernel, launch: &Launch) -> Result<(), LaunchError> {
    for (what, dims) in [("grid", launch.grid), ("workgroup", launch.block)] {
        if dims.contains(&0) {
            return Err(LaunchError::ZeroSize { what, dims });
        }
    }
    if let Some(required) = k.metadata().and_then(|m| m.reqd_workgroup_size.as_deref()) {
        let required = [0, 1, 2].map(|d| required.get(d).copied().unwrap_or(1));
        if required != launch.block {
            return Err(LaunchError::WorkgroupSizeMismatch {
                kernel: k.name().to_string(),
                required,
                block: launch.block,
            });
        }
    }
    let size = launch.block.iter().map(|&d| d as u64).product::<u64>();
    let limit = k.metadata().map_or(MAX_WORKGROUP_SIZE, |m| m.max_flat_workgroup_size).min(MAX_WORKGROUP_SIZE);
    if size > limit as u64 {
        return Err(LaunchError::WorkgroupTooLarge { size, limit });
    }
    Ok(())
}

/// Refuses a launch whose workgroup cannot be resident on one CU (or WGP, in WGP mode): its
/// waves per SIMD, from the descriptor's register blocks (`runtime_abi::occupancy`, the
/// compiler's arithmetic too), must be at most what a SIMD holds of the kernel.
fn check_resident(program: &Program, k: &Kernel, launch: &Launch) -> Result<(), LaunchError> {
    let (desc, proc) = (k.descriptor(), program.processor());
    // At most MAX_WORKGROUP_SIZE once `check_workgroup` has passed.
    let lanes = launch.block.iter().product::<u32>();
    let occupancy = occupancy::descriptor_occupancy(desc, proc, k.wave_size());
    let target = occupancy::descriptor_target(desc, proc, k.wave_size());
    occupancy::check_resident(&target, occupancy, lanes)
        .map_err(|reason| LaunchError::NotResident { kernel: k.name().to_string(), reason })
}

/// Checks a launch against the kernel and the machine before anything is allocated: the
/// workgroup ([`check_workgroup`]) and its residency ([`check_resident`]), the wave size, shared and private memory within the
/// processor's, and a grid that can finish within the step limit (each wave runs at least
/// the kernel's straight-line start).
fn check_launch(program: &Program, k: &Kernel, launch: &Launch, options: &Options) -> Result<(), LaunchError> {
    if let Some(asked) = options.wave_size {
        if asked != k.wave_size() {
            return Err(LaunchError::WaveSize { kernel: k.name().to_string(), compiled: k.wave_size(), asked });
        }
    }
    check_workgroup(k, launch)?;
    check_resident(program, k, launch)?;
    let bytes = k.descriptor().group_segment_fixed_size as u64 + launch.dyn_shared_bytes as u64;
    if bytes > MAX_SHARED_BYTES as u64 {
        return Err(LaunchError::SharedTooLarge { kernel: k.name().to_string(), bytes, limit: MAX_SHARED_BYTES });
    }
    let per_lane = k.descriptor().private_segment_fixed_size;
    let wave_bytes = u64::from(per_lane) * u64::from(k.wave_size());
    let limit = program.processor().max_wave_scratch_bytes();
    if wave_bytes > limit {
        return Err(LaunchError::PrivateTooLarge { kernel: k.name().to_string(), per_lane, wave_bytes, limit });
    }
    // At least one wave per wave-size work-items, each running the straight-line start.
    let items = launch.grid.iter().map(|&d| u128::from(d)).product::<u128>();
    let waves = items.div_ceil(u128::from(k.wave_size()));
    let per_wave = k.code.straight_prefix(program.family);
    if waves.saturating_mul(u128::from(per_wave)) > u128::from(options.step_limit) {
        return Err(LaunchError::GridTooLarge { grid: launch.grid, waves, per_wave, step_limit: options.step_limit });
    }
    Ok(())
}

struct Machine<'a> {
    program: &'a Program,
    kernel: &'a Kernel,
    launch: &'a Launch,
    options: &'a Options,
    setup: &'a WaveSetup,
    tgsplit: bool,
    rules: Rules,
    groups: Vec<Group>,
    stats: Stats,
    rng: Rng,
}

impl<'a> Machine<'a> {
    fn new(
        program: &'a Program,
        kernel: &'a Kernel,
        launch: &'a Launch,
        options: &'a Options,
        setup: &'a WaveSetup,
    ) -> Machine<'a> {
        Machine {
            program,
            kernel,
            launch,
            options,
            setup,
            tgsplit: kernel.descriptor().rsrc3.tg_split,
            rules: Rules::new(program.processor(), setup.wave_size(), program.xnack),
            groups: Vec::new(),
            stats: Stats::default(),
            rng: Rng(options.seed),
        }
    }

    fn start_group(&self, id: [u32; 3]) -> Group {
        let (grid, block) = (self.launch.grid, self.launch.block);
        let size: [u32; 3] = [0, 1, 2].map(|d| block[d].min(grid[d] - id[d] * block[d]));
        let count = size.iter().product::<u32>();
        let ws = self.setup.wave_size();
        let waves = count.div_ceil(ws);
        let local = |flat: u32| [flat % size[0], flat / size[0] % size[1], flat / (size[0] * size[1])];
        let waves = (0..waves)
            .map(|w| {
                let ids: Vec<[u32; 3]> = (w * ws..((w + 1) * ws).min(count)).map(local).collect();
                self.setup.wave(id, w, waves, &ids)
            })
            .collect();
        let lds = self.kernel.descriptor().group_segment_fixed_size + self.launch.dyn_shared_bytes;
        Group { id, waves, lds: vec![0; lds as usize] }
    }

    fn run(mut self, device: &mut Device) -> Result<Stats, EmuError> {
        let counts = self.launch.num_groups();
        let total = counts.iter().map(|&c| c as u64).product::<u64>();
        let mut next = 0u64;
        let mut order = Vec::new();
        loop {
            while self.groups.len() < self.options.max_resident_groups.max(1) as usize && next < total {
                let id = [
                    (next % counts[0] as u64) as u32,
                    (next / counts[0] as u64 % counts[1] as u64) as u32,
                    (next / (counts[0] as u64 * counts[1] as u64)) as u32,
                ];
                let group = self.start_group(id);
                self.stats.waves += group.waves.len() as u64;
                self.stats.workgroups += 1;
                self.groups.push(group);
                next += 1;
            }
            if self.groups.is_empty() {
                return Ok(self.stats);
            }
            order.clear();
            for (g, group) in self.groups.iter().enumerate() {
                order.extend((0..group.waves.len()).map(|w| (g, w)));
            }
            if self.options.seed != 0 {
                for i in (1..order.len()).rev() {
                    let j = self.rng.below(i + 1);
                    order.swap(i, j);
                }
            }
            for &(g, w) in &order {
                // Varied interleavings: some waves sit a turn out, the others run a burst.
                let burst = if self.options.seed == 0 {
                    1
                } else if self.rng.below(4) == 0 {
                    0
                } else {
                    1 + self.rng.below(8)
                };
                for _ in 0..burst {
                    if self.groups[g].waves[w].state != WaveState::Running {
                        break;
                    }
                    self.step_wave(device, g, w)?;
                }
            }
            let now = self.stats.wave_instructions;
            if now >= self.options.store_deadline {
                let due = now - self.options.store_deadline;
                for group in &mut self.groups {
                    for w in &mut group.waves {
                        w.mem.perform_issued_by(due, &mut Memory { device, lds: &mut group.lds });
                    }
                }
            }
            for group in &mut self.groups {
                let live = group.waves.iter().filter(|w| w.state != WaveState::Done);
                let mut live = live.peekable();
                if live.peek().is_some() && live.all(|w| w.state == WaveState::AtBarrier) {
                    for w in &mut group.waves {
                        if w.state == WaveState::AtBarrier {
                            w.state = WaveState::Running;
                        }
                    }
                }
            }
            // A finished group's waves may have left stores and atomics in flight: they land now.
            for group in &mut self.groups {
                if group.waves.iter().all(|w| w.state == WaveState::Done) {
                    for w in &mut group.waves {
                        let done = w.mem.drain(&mut Memory { device, lds: &mut group.lds });
                        if self.options.profile_waits && !done.pcs.is_empty() {
                            self.stats.waits.entry(w.pc).or_default().extend(done.pcs);
                        }
                    }
                }
            }
            self.groups.retain(|g| g.waves.iter().any(|w| w.state != WaveState::Done));
        }
    }

    fn step_wave(&mut self, device: &mut Device, g: usize, w: usize) -> Result<(), EmuError> {
        if self.stats.wave_instructions >= self.options.step_limit {
            return Err(EmuError::StepLimit { limit: self.options.step_limit, detail: self.describe() });
        }
        let now = self.stats.wave_instructions;
        self.stats.wave_instructions += 1;
        let (kernel, program) = (self.kernel, self.program);
        let group = &mut self.groups[g];
        let group_id = group.id;
        let wave = &mut group.waves[w];
        let code = &kernel.code;
        let pc = wave.pc;
        let fault = |kind: FaultKind, inst: String| EmuError::Fault {
            site: Box::new(FaultSite { kernel: kernel.name().to_string(), pc, inst, group: group_id, wave: w as u32 }),
            kind,
        };
        let index = code.index_at(pc).ok_or_else(|| fault(FaultKind::BadPc { pc }, String::from("?")))?;
        let d = &code.insts()[index as usize];
        let mut cx = ExecCtx {
            proc: program.processor(),
            family: program.family,
            code,
            device,
            lds: &mut group.lds,
            tgsplit: self.tgsplit,
            rules: &self.rules,
            step: now,
            lane_ops: &mut self.stats.lane_operations,
            profile: if self.options.profile_waits { Some(&mut self.stats.waits) } else { None },
            read_at_issue: self.options.seed.is_multiple_of(2),
        };
        match step(wave, index, d, &mut cx) {
            Ok(Flow::Next | Flow::Jump(_)) => {}
            Ok(Flow::Barrier) => wave.state = WaveState::AtBarrier,
            Ok(Flow::End) => wave.state = WaveState::Done,
            Err(kind) => return Err(fault(kind, inst_text(&d.inst, program.family, kernel.wave_size()))),
        }
        Ok(())
    }

    /// What the waves are doing, for the step-limit report.
    fn describe(&self) -> String {
        let waves = self.groups.iter().flat_map(|g| &g.waves);
        let at_barrier = waves.clone().filter(|w| w.state == WaveState::AtBarrier).count();
        let running: Vec<String> =
            waves.filter(|w| w.state == WaveState::Running).take(4).map(|w| format!("{:#x}", w.pc)).collect();
        format!(
            "{} groups resident, {at_barrier} waves at a barrier, running at pc {}",
            self.groups.len(),
            running.join(", ")
        )
    }
}
