//! The reference interpreter: the semantic oracle that every compiled kernel is checked against.
//!
//! It runs a kernel over a 3-D grid exactly as kernel-language.md ("Waves and divergence")
//! defines it. Work-items are packed into waves of 32 or 64 lanes by their flattened local id
//! within the (possibly partial) workgroup. A wave runs its lanes in lockstep: at a divergent
//! branch the lanes split into groups that run one after another, and they rejoin at the
//! branch's join ([`crate::reconverge`], the definition instruction selection compiles too).
//! Lanes that continue a loop wait at its header until no lane is left in the iteration, and
//! all start the next one together; lanes that leave a loop wait at its exit until no lane is
//! left in the loop, then go on to the blocks their breaks named. A reconvergence stack per
//! call frame tracks this. Wave operations see the lanes active at that point.
//!
//! All waves of all resident workgroups advance one instruction at a time in a fixed
//! round-robin order, so one workgroup can wait for another's message through an atomic; a step
//! limit turns a livelock into an error. Memory is sequentially consistent, which is one of the
//! executions every ordering and scope allows. The run is deterministic.
//!
//! Errors are faults of the program, reported with the kernel, block, instruction (and its
//! source location, for whoever holds the source), workgroup, wave and lane: an out-of-bounds or misaligned access, a read of uninitialized shared memory,
//! a barrier not reached by every work-item of the group, reaching `unreachable`, the step limit.

pub mod eval;
mod memory;

pub use memory::{GlobalMemory, MemError, PRIVATE_APERTURE, SHARED_APERTURE};

use crate::cfg::ControlFlowGraph;
use crate::dominator_tree::DominatorTree;
use crate::entities::{Block, FuncId, Inst, Slot, Value};
use crate::function::{Function, Module};
use crate::instructions::{InstData, Special};
use crate::loops::{check_reducible, Irreducible, Loop, LoopAnalysis};
use crate::reconverge::Joins;
use crate::srcloc::SourceLoc;
use crate::types::AddrSpace;
use crate::verifier::{verify_module, VerifierErrors};
use crate::write::inst_to_string;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use memory::{PrivateMemory, SharedMemory};
use thiserror::Error;

/// The shape of a dispatch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The number of work-items in each dimension (HSA's grid size; need not be a multiple of
    /// the workgroup size: the last workgroup of a dimension is then partial).
    pub grid: [u32; 3],
    /// The workgroup size in each dimension.
    pub block: [u32; 3],
    /// Lanes per wave: 32 or 64.
    pub wave_size: u32,
    /// Bytes of dynamic shared memory per workgroup.
    pub dyn_shared_bytes: u32,
}

impl Launch {
    /// A 1-D launch of `grid` work-items in workgroups of `block`.
    pub fn linear(grid: u32, block: u32, wave_size: u32) -> Launch {
        Launch { grid: [grid, 1, 1], block: [block, 1, 1], wave_size, dyn_shared_bytes: 0 }
    }

    /// The number of workgroups in each dimension (the last one may be partial).
    pub fn num_groups(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.grid[d].div_ceil(self.block[d].max(1)))
    }
}

/// Limits of a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The most wave-instructions the run may execute before it is reported as a livelock.
    pub step_limit: u64,
    /// How many workgroups are resident (interleaved) at once; later groups start as earlier
    /// ones finish, as on a GPU that cannot hold the whole grid.
    pub max_resident_groups: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { step_limit: 200_000_000, max_resident_groups: 16 }
    }
}

/// What a run did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Wave-instructions executed (one per instruction per wave, whatever its active lanes).
    pub wave_instructions: u64,
    /// Waves that ran.
    pub waves: u64,
}

/// Largest shared memory a workgroup may use, in bytes (64 KiB, as on gfx9 to gfx11).
pub const MAX_SHARED_BYTES: u32 = 65536;
/// Largest workgroup, in work-items.
pub const MAX_WORKGROUP_SIZE: u32 = 1024;

/// Why a dispatch could not start.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LaunchError {
    /// The grid has more waves than the step limit lets run, so the run cannot finish.
    #[error(
        "the grid {grid:?} is at least {waves} waves of at least {per_wave} instructions each, \
         more than the step limit of {step_limit} wave-instructions lets finish"
    )]
    GridTooLarge {
        /// The grid.
        grid: [u32; 3],
        /// Waves the grid needs at least.
        waves: u128,
        /// The instructions of the kernel's entry block, which every wave runs.
        per_wave: u64,
        /// The limit.
        step_limit: u64,
    },
    /// The module fails verification.
    #[error("the module is not valid IR:\n{0}")]
    Verify(VerifierErrors),
    /// The named function is not a kernel.
    #[error("@{0} is a helper function, not a kernel")]
    NotAKernel(String),
    /// Wrong number of kernel arguments.
    #[error("@{kernel} takes {expected} arguments, {got} given")]
    ArgCount {
        /// The kernel.
        kernel: String,
        /// Its parameter count.
        expected: usize,
        /// The arguments given.
        got: usize,
    },
    /// A function's control flow is irreducible: where its lanes would rejoin is not defined.
    #[error("@{func}: {error}")]
    Irreducible {
        /// The function.
        func: String,
        /// The offending edge.
        error: Irreducible,
    },
    /// A wave size other than 32 or 64.
    #[error("wave size {0} is not supported (32 or 64)")]
    WaveSize(u32),
    /// A zero grid or workgroup dimension.
    #[error("the {what} size {dims:?} has a zero dimension")]
    ZeroSize {
        /// `grid` or `workgroup`.
        what: &'static str,
        /// The dimensions.
        dims: [u32; 3],
    },
    /// The workgroup is larger than the kernel or the hardware allows.
    #[error("workgroup of {size} work-items exceeds the limit of {limit}")]
    WorkgroupTooLarge {
        /// Work-items per workgroup.
        size: u64,
        /// The limit (the kernel's `max_workgroup_size`, or 1024).
        limit: u32,
    },
    /// The workgroup size differs from the kernel's required one.
    #[error("@{kernel} requires workgroup size {required:?}, the launch uses {given:?}")]
    WrongWorkgroupSize {
        /// The kernel.
        kernel: String,
        /// Its `reqd_workgroup_size`.
        required: [u32; 3],
        /// The launch's workgroup size.
        given: [u32; 3],
    },
    /// The kernel's shared memory does not fit.
    #[error("@{kernel} needs {bytes} bytes of shared memory, more than {MAX_SHARED_BYTES}")]
    SharedTooLarge {
        /// The kernel.
        kernel: String,
        /// Static plus dynamic bytes.
        bytes: u64,
    },
}

/// What went wrong while running.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// A memory access failed.
    #[error(transparent)]
    Memory(#[from] MemError),
    /// An access at an address that is not a multiple of its declared alignment.
    #[error("address {addr:#x} is not aligned to {align} bytes as the access declares")]
    Misaligned {
        /// The address.
        addr: u64,
        /// The declared alignment.
        align: u32,
    },
    /// `unreachable` was executed.
    #[error("executed `unreachable`")]
    Unreachable,
    /// A barrier executed while some work-items of the wave were elsewhere.
    #[error("barrier reached by only some work-items of the wave (active lanes {active:#x} of {launched:#x})")]
    BarrierDivergent {
        /// The lanes that reached the barrier.
        active: u64,
        /// The lanes of the wave.
        launched: u64,
    },
    /// A wave waits at a barrier that a finished wave of its group never reached.
    #[error("barrier not reached by all work-items of the workgroup: wave {finished} has finished")]
    BarrierMissed {
        /// The wave that finished without reaching the barrier.
        finished: u32,
    },
    /// The step limit was reached.
    #[error("step limit of {0} wave-instructions reached (a livelock, or a run longer than the limit)")]
    StepLimit(u64),
}

/// Where a fault happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSite {
    /// The function executing (the kernel or a helper).
    pub function: String,
    /// The block.
    pub block: Block,
    /// The instruction's text.
    pub inst: String,
    /// The workgroup id.
    pub group: [u32; 3],
    /// The wave's index within its workgroup.
    pub wave: u32,
    /// The lane and its local id, when one lane is at fault.
    pub lane: Option<(u32, [u32; 3])>,
    /// Where the instruction is written in the source the function came from (see
    /// [`crate::srcloc`]; [`SourceLoc::NONE`] when unknown).
    pub loc: SourceLoc,
}

impl core::fmt::Display for FaultSite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "@{}, {}, `{}`, workgroup {:?}, wave {}",
            self.function, self.block, self.inst, self.group, self.wave
        )?;
        if let Some((lane, local)) = self.lane {
            write!(f, ", lane {lane} (local id {local:?})")?;
        }
        Ok(())
    }
}

/// Why a run failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InterpError {
    /// The dispatch could not start.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The program faulted.
    #[error("{site}: {kind}")]
    Fault {
        /// Where.
        site: Box<FaultSite>,
        /// What.
        kind: FaultKind,
    },
}

impl InterpError {
    /// Where in the source the faulting instruction is written, when its function says.
    pub fn loc(&self) -> Option<SourceLoc> {
        match self {
            InterpError::Fault { site, .. } => Some(site.loc).filter(|l| !l.is_none()),
            InterpError::Launch(_) => None,
        }
    }
}

/// Runs `kernel` of `module` over the grid of `launch`, with one argument per kernel
/// parameter given as bits (integers zero-extended, floats as IEEE bits, pointers as device
/// addresses from [`GlobalMemory::alloc`]). Global memory is read and written in place.
pub fn run_kernel(
    module: &Module,
    kernel: FuncId,
    launch: &Launch,
    args: &[u64],
    global: &mut GlobalMemory,
    options: &Options,
) -> Result<RunStats, InterpError> {
    verify_module(module).map_err(LaunchError::Verify)?;
    let infos = module.functions.iter().map(|(_, f)| FuncInfo::new(f)).collect::<Result<Vec<_>, _>>()?;
    let infos: PrimaryMap<FuncId, FuncInfo> = PrimaryMap::from_iter(infos);
    let func = &module.functions[kernel];
    check_launch(func, &infos[kernel], launch, args)?;
    check_grid(func, launch, options)?;
    let mut machine = Machine {
        ctx: Ctx { module, infos: &infos, kernel, launch, args, global, options, steps: 0 },
        groups: Vec::new(),
        stats: RunStats::default(),
    };
    machine.run()?;
    Ok(machine.stats)
}

fn check_launch(func: &Function, info: &FuncInfo, launch: &Launch, args: &[u64]) -> Result<(), LaunchError> {
    let attrs = func.kernel_attrs().ok_or_else(|| LaunchError::NotAKernel(func.name.clone()))?;
    if args.len() != func.signature.params.len() {
        return Err(LaunchError::ArgCount {
            kernel: func.name.clone(),
            expected: func.signature.params.len(),
            got: args.len(),
        });
    }
    if launch.wave_size != 32 && launch.wave_size != 64 {
        return Err(LaunchError::WaveSize(launch.wave_size));
    }
    for (what, dims) in [("grid", launch.grid), ("workgroup", launch.block)] {
        if dims.contains(&0) {
            return Err(LaunchError::ZeroSize { what, dims });
        }
    }
    let size = launch.block.iter().map(|&d| d as u64).product::<u64>();
    let limit = attrs.max_workgroup_size.unwrap_or(MAX_WORKGROUP_SIZE).min(MAX_WORKGROUP_SIZE);
    if size > limit as u64 {
        return Err(LaunchError::WorkgroupTooLarge { size, limit });
    }
    if let Some(required) = attrs.reqd_workgroup_size {
        if required != launch.block {
            return Err(LaunchError::WrongWorkgroupSize { kernel: func.name.clone(), required, given: launch.block });
        }
    }
    let bytes = info.dyn_shared_offset as u64 + launch.dyn_shared_bytes as u64;
    if bytes > MAX_SHARED_BYTES as u64 {
        return Err(LaunchError::SharedTooLarge { kernel: func.name.clone(), bytes });
    }
    Ok(())
}

/// Refuses a grid that cannot finish within the step limit: every wave runs at least the
/// kernel's entry block, and the grid has at least one wave per wave-size work-items.
fn check_grid(func: &Function, launch: &Launch, options: &Options) -> Result<(), LaunchError> {
    let items = launch.grid.iter().map(|&d| u128::from(d)).product::<u128>();
    let waves = items.div_ceil(u128::from(launch.wave_size));
    let per_wave = func.entry().map_or(1, |b| func.dfg.blocks[b].insts.len().max(1)) as u64;
    if waves.saturating_mul(u128::from(per_wave)) > u128::from(options.step_limit) {
        return Err(LaunchError::GridTooLarge { grid: launch.grid, waves, per_wave, step_limit: options.step_limit });
    }
    Ok(())
}

/// Per-function facts computed once per run.
struct FuncInfo {
    /// Where lanes that diverge at the end of each block rejoin, and the loops' exits.
    joins: Joins,
    /// The function's loops.
    loops: LoopAnalysis,
    /// Offset of each slot: in the group's shared memory, or in the frame's private memory.
    slot_offset: SecondaryMap<Slot, u32>,
    /// Private bytes per frame.
    private_size: u32,
    /// The largest alignment of a private slot: a frame starts at a multiple of it.
    private_align: u32,
    /// Offset of the dynamic shared memory (the aligned end of the static slots).
    dyn_shared_offset: u32,
}

impl FuncInfo {
    fn new(func: &Function) -> Result<FuncInfo, LaunchError> {
        let cfg = ControlFlowGraph::new(func);
        let domtree = DominatorTree::new(func, &cfg);
        check_reducible(func, &cfg, &domtree)
            .map_err(|error| LaunchError::Irreducible { func: func.name.clone(), error })?;
        let loops = LoopAnalysis::new(func, &cfg, &domtree);
        let joins = Joins::new(&cfg, &domtree, &loops);
        let mut slot_offset = SecondaryMap::new();
        let (mut shared, mut private, mut private_align) = (0u32, 0u32, 1u32);
        for (slot, data) in func.slots.iter() {
            if data.space != AddrSpace::Shared {
                private_align = private_align.max(data.align);
            }
            let end = if data.space == AddrSpace::Shared { &mut shared } else { &mut private };
            let offset = end.next_multiple_of(data.align.max(1));
            slot_offset[slot] = offset;
            *end = offset.saturating_add(data.size);
        }
        Ok(FuncInfo {
            joins,
            loops,
            slot_offset,
            private_size: private,
            private_align,
            dyn_shared_offset: shared.next_multiple_of(16),
        })
    }
}

/// A reconvergence-stack entry: lanes `mask` run from `block`'s `inst`-th instruction until
/// they reach `reconv`, where the entry below waits for them (`None`: until they leave the
/// iteration of their loop, or return).
#[derive(Copy, Clone, Debug)]
struct Entry {
    block: Option<Block>,
    inst: u32,
    mask: u64,
    reconv: Option<Block>,
    kind: EntryKind,
}

/// What an entry of the reconvergence stack holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum EntryKind {
    /// Lanes running, or waiting at a join.
    Run,
    /// The lanes that continued this loop in the current iteration: when no lane is left in
    /// the iteration, they start the next one at the header.
    Latch(Loop),
    /// The lanes that left this loop: when no lane is left in it, they go on to the blocks
    /// their breaks named ([`Frame::break_target`]).
    Exit(Loop),
}

impl Entry {
    /// Lanes `mask` running from the start of `block` until `reconv`.
    fn run(block: Option<Block>, mask: u64, reconv: Option<Block>) -> Entry {
        Entry { block, inst: 0, mask, reconv, kind: EntryKind::Run }
    }
}

/// A call frame: a function's registers (one row of lanes per value) and reconvergence stack.
struct Frame {
    func: FuncId,
    regs: Vec<u64>,
    stack: Vec<Entry>,
    /// Lanes that have not yet returned from this frame.
    alive: u64,
    /// Start of this frame's private memory in each lane's private memory.
    private_base: u32,
    /// Each lane's return value.
    ret: Vec<u64>,
    /// Where each lane waiting at a loop's exit goes once the loop is done.
    break_target: Vec<Block>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum WaveState {
    Running,
    AtBarrier,
    Done,
}

struct Wave {
    index: u32,
    frames: Vec<Frame>,
    launched: u64,
    local: Vec<[u32; 3]>,
    private: Vec<PrivateMemory>,
    state: WaveState,
}

struct Group {
    id: [u32; 3],
    shared: SharedMemory,
    waves: Vec<Wave>,
}

/// What the waves share: the program, the dispatch, global memory and the step count.
struct Ctx<'a> {
    module: &'a Module,
    infos: &'a PrimaryMap<FuncId, FuncInfo>,
    kernel: FuncId,
    launch: &'a Launch,
    args: &'a [u64],
    global: &'a mut GlobalMemory,
    options: &'a Options,
    steps: u64,
}

struct Machine<'a> {
    ctx: Ctx<'a>,
    groups: Vec<Group>,
    stats: RunStats,
}

/// The set lanes of a mask, in increasing order.
fn lanes(mask: u64) -> impl Iterator<Item = usize> {
    let mut m = mask;
    core::iter::from_fn(move || {
        (m != 0).then(|| {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            lane
        })
    })
}

impl<'a> Machine<'a> {
    fn run(&mut self) -> Result<(), InterpError> {
        let counts = self.ctx.launch.num_groups();
        let total = counts.iter().map(|&c| c as u64).product::<u64>();
        let mut next = 0u64;
        loop {
            while self.groups.len() < self.ctx.options.max_resident_groups.max(1) as usize && next < total {
                let id = [
                    (next % counts[0] as u64) as u32,
                    (next / counts[0] as u64 % counts[1] as u64) as u32,
                    (next / (counts[0] as u64 * counts[1] as u64)) as u32,
                ];
                let group = self.start_group(id);
                self.stats.waves += group.waves.len() as u64;
                self.groups.push(group);
                next += 1;
            }
            if self.groups.is_empty() {
                return Ok(());
            }
            for g in 0..self.groups.len() {
                let group = &mut self.groups[g];
                for w in 0..group.waves.len() {
                    if group.waves[w].state == WaveState::Running {
                        self.ctx.step(group, w)?;
                        self.stats.wave_instructions += 1;
                    }
                }
            }
            self.groups.retain(|g| g.waves.iter().any(|w| w.state != WaveState::Done));
        }
    }

    /// Creates a workgroup's waves: work-items of the (possibly partial) group packed densely
    /// by flattened local id, as the hardware does.
    fn start_group(&self, id: [u32; 3]) -> Group {
        let launch = self.ctx.launch;
        let ws = launch.wave_size as usize;
        let actual = [0, 1, 2].map(|d| launch.block[d].min(launch.grid[d] - id[d] * launch.block[d]));
        let count = (actual[0] * actual[1] * actual[2]) as usize;
        let kernel = &self.ctx.module.functions[self.ctx.kernel];
        let info = &self.ctx.infos[self.ctx.kernel];
        let entry = kernel.entry().expect("a verified kernel has an entry block");
        let nvalues = kernel.dfg.values.len();
        let mut waves = Vec::new();
        for (index, start) in (0..count).step_by(ws).enumerate() {
            let n = (count - start).min(ws);
            let launched = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            let local = (start..start + n)
                .map(|l| {
                    let l = l as u32;
                    [l % actual[0], l / actual[0] % actual[1], l / (actual[0] * actual[1])]
                })
                .collect();
            let mut regs = vec![0u64; nvalues * ws];
            for (&param, &arg) in kernel.dfg.blocks[entry].params.iter().zip(self.ctx.args) {
                regs[param.index() * ws..(param.index() + 1) * ws].fill(arg & kernel.dfg.value_type(param).mask());
            }
            let frame = Frame {
                func: self.ctx.kernel,
                regs,
                stack: vec![Entry::run(Some(entry), launched, None)],
                alive: launched,
                private_base: 0,
                ret: vec![0; ws],
                break_target: vec![entry; ws],
            };
            let private = (0..ws).map(|_| PrivateMemory { data: vec![0; info.private_size as usize] }).collect();
            waves.push(Wave {
                index: index as u32,
                frames: vec![frame],
                launched,
                local,
                private,
                state: WaveState::Running,
            });
        }
        let shared = SharedMemory::new(info.dyn_shared_offset + launch.dyn_shared_bytes);
        Group { id, shared, waves }
    }
}

/// How an instruction left the wave.
enum Flow {
    /// Go on with the next instruction of the block.
    Next,
    /// The instruction changed the stack or frames itself.
    Done,
}

impl<'a> Ctx<'a> {
    /// Executes one instruction of wave `w` of `group`.
    fn step(&mut self, group: &mut Group, w: usize) -> Result<(), InterpError> {
        self.steps += 1;
        // Find the instruction to run: the top entry of the innermost frame with live lanes.
        let (func_id, block, inst_index, mask) = loop {
            let wave = &mut group.waves[w];
            let frame = wave.frames.last_mut().expect("a running wave has a frame");
            match frame.stack.last().copied() {
                None => {
                    if self.finish_frame(group, w)? {
                        return Ok(());
                    }
                }
                Some(e) => {
                    let mask = e.mask & frame.alive;
                    match (e.kind, e.block) {
                        (EntryKind::Run, Some(b)) if mask != 0 => break (frame.func, b, e.inst, mask),
                        (EntryKind::Latch(lp), _) if mask != 0 => {
                            // The next iteration, for the lanes that continued.
                            let header = self.infos[frame.func].loops.header(lp);
                            frame.stack.last_mut().expect("the latch").mask = 0;
                            frame.stack.push(Entry::run(Some(header), mask, None));
                        }
                        (EntryKind::Exit(lp), _) => {
                            frame.stack.pop();
                            if mask != 0 {
                                leave_loop(&self.infos[frame.func], frame, lp, mask, e.reconv);
                            }
                        }
                        _ => {
                            frame.stack.pop();
                        }
                    }
                }
            }
        };
        let func = &self.module.functions[func_id];
        let inst = func.dfg.blocks[block].insts[inst_index as usize];
        if self.steps > self.options.step_limit {
            return Err(self.fault(
                group,
                w,
                func_id,
                block,
                inst,
                None,
                FaultKind::StepLimit(self.options.step_limit),
            ));
        }
        match self.exec(group, w, func_id, block, inst, mask) {
            Ok(Flow::Next) => {
                let frame = group.waves[w].frames.last_mut().expect("frame");
                frame.stack.last_mut().expect("entry").inst += 1;
                Ok(())
            }
            Ok(Flow::Done) => Ok(()),
            Err((lane, kind)) => Err(self.fault(group, w, func_id, block, inst, lane, kind)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn fault(
        &self,
        group: &Group,
        w: usize,
        func: FuncId,
        block: Block,
        inst: Inst,
        lane: Option<usize>,
        kind: FaultKind,
    ) -> InterpError {
        let wave = &group.waves[w];
        InterpError::Fault {
            site: Box::new(FaultSite {
                function: self.module.functions[func].name.clone(),
                block,
                inst: inst_to_string(self.module, &self.module.functions[func], inst),
                group: group.id,
                wave: wave.index,
                lane: lane.map(|l| (l as u32, wave.local.get(l).copied().unwrap_or_default())),
                loc: self.module.functions[func].srclocs[inst],
            }),
            kind,
        }
    }

    /// Ends the innermost frame, whose lanes have all returned. Returns whether the wave is
    /// now finished (the kernel frame ended).
    fn finish_frame(&mut self, group: &mut Group, w: usize) -> Result<bool, InterpError> {
        let wave = &mut group.waves[w];
        let done = wave.frames.pop().expect("frame");
        let ws = self.launch.wave_size as usize;
        let Some(caller) = wave.frames.last_mut() else {
            wave.state = WaveState::Done;
            if let Some(waiting) = group.waves.iter().find(|o| o.state == WaveState::AtBarrier) {
                let waiting = waiting.index as usize;
                let frame = group.waves[waiting].frames.last().expect("frame");
                let e = frame.stack.last().expect("entry");
                let (func, block) = (frame.func, e.block.expect("block"));
                let inst = self.module.functions[func].dfg.blocks[block].insts[e.inst as usize];
                let kind = FaultKind::BarrierMissed { finished: group.waves[w].index };
                return Err(self.fault(group, waiting, func, block, inst, None, kind));
            }
            return Ok(true);
        };
        let entry = caller.stack.last_mut().expect("the caller waits at its call");
        let caller_func = &self.module.functions[caller.func];
        let call = caller_func.dfg.blocks[entry.block.expect("block")].insts[entry.inst as usize];
        if let Some(result) = caller_func.dfg.inst_result(call) {
            for lane in lanes(entry.mask & caller.alive) {
                caller.regs[result.index() * ws + lane] = done.ret[lane];
            }
        }
        entry.inst += 1;
        Ok(false)
    }

    /// Executes `inst` for the lanes of `mask`.
    fn exec(
        &mut self,
        group: &mut Group,
        w: usize,
        func_id: FuncId,
        block: Block,
        inst: Inst,
        mask: u64,
    ) -> Result<Flow, (Option<usize>, FaultKind)> {
        let module = self.module;
        let func = &module.functions[func_id];
        let ws = self.launch.wave_size as usize;
        let data = &func.dfg.insts[inst];
        let result = func.dfg.inst_result(inst);
        let ty_of = |v: Value| func.dfg.value_type(v);
        let wave = &mut group.waves[w];
        let frame = wave.frames.last_mut().expect("frame");
        let at = |v: Value, lane: usize| v.index() * ws + lane;
        // Writes `f(lane)` into the result for every active lane.
        macro_rules! per_lane {
            (|$lane:ident| $e:expr) => {{
                let r = result.expect("this instruction has a result");
                for $lane in lanes(mask) {
                    let value = $e;
                    frame.regs[at(r, $lane)] = value & ty_of(r).mask();
                }
                Ok(Flow::Next)
            }};
        }
        let arg = |frame: &Frame, i: usize, lane: usize| frame.regs[at(data.args()[i], lane)];
        match data {
            InstData::IntConst { imm, .. } => per_lane!(|_l| *imm),
            InstData::FloatConst { bits, .. } => per_lane!(|_l| *bits),
            InstData::Unary { op, arg: a } => per_lane!(|l| eval::unary(*op, ty_of(*a), frame.regs[at(*a, l)])),
            InstData::Binary { op, args: [a, _] } => {
                per_lane!(|l| eval::binary(*op, ty_of(*a), arg(frame, 0, l), arg(frame, 1, l)))
            }
            InstData::Fma { args: [a, ..] } => {
                per_lane!(|l| eval::fma(ty_of(*a), arg(frame, 0, l), arg(frame, 1, l), arg(frame, 2, l)))
            }
            InstData::Select { .. } => {
                per_lane!(|l| if arg(frame, 0, l) & 1 != 0 { arg(frame, 1, l) } else { arg(frame, 2, l) })
            }
            InstData::Icmp { cc, args: [a, _] } => {
                per_lane!(|l| eval::icmp(*cc, ty_of(*a), arg(frame, 0, l), arg(frame, 1, l)) as u64)
            }
            InstData::Fcmp { cc, args: [a, _] } => {
                per_lane!(|l| eval::fcmp(*cc, ty_of(*a), arg(frame, 0, l), arg(frame, 1, l)) as u64)
            }
            InstData::Convert { op, ty, arg: a } => {
                per_lane!(|l| eval::convert(*op, ty_of(*a), *ty, frame.regs[at(*a, l)]))
            }
            InstData::PtrAdd { args: [_, off] } => {
                let off_ty = ty_of(*off);
                per_lane!(|l| arg(frame, 0, l).wrapping_add(eval::sext(off_ty, arg(frame, 1, l)) as u64))
            }
            InstData::AddrSpaceCast { ty, arg: a } => {
                let from = ty_of(*a).addr_space().expect("verified: a pointer");
                let to = ty.addr_space().expect("verified: a pointer");
                per_lane!(|l| cast_pointer(from, to, frame.regs[at(*a, l)]))
            }
            InstData::SlotAddr { slot } => {
                let info = &self.infos[func_id];
                let offset = info.slot_offset[*slot] as u64;
                let base = if func.slots[*slot].space == AddrSpace::Private { frame.private_base as u64 } else { 0 };
                per_lane!(|_l| base + offset)
            }
            InstData::DynSharedAddr => {
                let offset = self.infos[self.kernel].dyn_shared_offset as u64;
                per_lane!(|_l| offset)
            }
            InstData::Special { value } => {
                let launch = self.launch;
                let counts = launch.num_groups();
                let gid = group.id;
                let local = &wave.local;
                per_lane!(|l| match value {
                    Special::LocalId(d) => local[l][d.index()] as u64,
                    Special::GroupId(d) => gid[d.index()] as u64,
                    Special::GroupSize(d) => launch.block[d.index()] as u64,
                    Special::NumGroups(d) => counts[d.index()] as u64,
                    Special::LaneId => l as u64,
                    Special::WaveSize => ws as u64,
                })
            }
            InstData::Load { ty, ptr, .. } | InstData::AtomicLoad { ty, ptr, .. } => {
                let len = ty.bytes().expect("verified: a memory type");
                let align = match data {
                    InstData::Load { flags, .. } => flags.align.max(1),
                    _ => len,
                };
                let space = ty_of(*ptr).addr_space().expect("verified: a pointer");
                let r = result.expect("load result");
                for lane in lanes(mask) {
                    let addr = frame.regs[at(*ptr, lane)];
                    let mut mem = MemView {
                        global: &mut *self.global,
                        shared: &mut group.shared,
                        private: &mut wave.private[lane],
                    };
                    let value = mem.read(space, addr, len, align).map_err(|k| (Some(lane), k))?;
                    frame.regs[at(r, lane)] = value;
                }
                Ok(Flow::Next)
            }
            InstData::Store { args: [ptr, v], .. } | InstData::AtomicStore { args: [ptr, v], .. } => {
                let len = ty_of(*v).bytes().expect("verified: a memory type");
                let align = match data {
                    InstData::Store { flags, .. } => flags.align.max(1),
                    _ => len,
                };
                let space = ty_of(*ptr).addr_space().expect("verified: a pointer");
                for lane in lanes(mask) {
                    let (addr, value) = (frame.regs[at(*ptr, lane)], frame.regs[at(*v, lane)]);
                    let mut mem = MemView {
                        global: &mut *self.global,
                        shared: &mut group.shared,
                        private: &mut wave.private[lane],
                    };
                    mem.write(space, addr, len, align, value).map_err(|k| (Some(lane), k))?;
                }
                Ok(Flow::Next)
            }
            InstData::AtomicRmw { op, args: [ptr, v], .. } => {
                let ty = ty_of(*v);
                let len = ty.bytes().expect("verified: a memory type");
                let space = ty_of(*ptr).addr_space().expect("verified: a pointer");
                let r = result.expect("atomic result");
                for lane in lanes(mask) {
                    let (addr, operand) = (frame.regs[at(*ptr, lane)], frame.regs[at(*v, lane)]);
                    let mut mem = MemView {
                        global: &mut *self.global,
                        shared: &mut group.shared,
                        private: &mut wave.private[lane],
                    };
                    let old = mem.read(space, addr, len, len).map_err(|k| (Some(lane), k))?;
                    mem.write(space, addr, len, len, eval::rmw(*op, ty, old, operand)).map_err(|k| (Some(lane), k))?;
                    frame.regs[at(r, lane)] = old;
                }
                Ok(Flow::Next)
            }
            InstData::AtomicCas { args: [ptr, expected, new], .. } => {
                let ty = ty_of(*expected);
                let len = ty.bytes().expect("verified: a memory type");
                let space = ty_of(*ptr).addr_space().expect("verified: a pointer");
                let r = result.expect("atomic result");
                for lane in lanes(mask) {
                    let addr = frame.regs[at(*ptr, lane)];
                    let mut mem = MemView {
                        global: &mut *self.global,
                        shared: &mut group.shared,
                        private: &mut wave.private[lane],
                    };
                    let old = mem.read(space, addr, len, len).map_err(|k| (Some(lane), k))?;
                    if old == frame.regs[at(*expected, lane)] {
                        mem.write(space, addr, len, len, frame.regs[at(*new, lane)]).map_err(|k| (Some(lane), k))?;
                    }
                    frame.regs[at(r, lane)] = old;
                }
                Ok(Flow::Next)
            }
            // Memory is sequentially consistent: a fence has nothing left to order.
            InstData::Fence { .. } => Ok(Flow::Next),
            InstData::Barrier => {
                if mask != wave.launched {
                    return Err((None, FaultKind::BarrierDivergent { active: mask, launched: wave.launched }));
                }
                frame.stack.last_mut().expect("entry").inst += 1;
                wave.state = WaveState::AtBarrier;
                let waves = &mut group.waves;
                if let Some(done) = waves.iter().find(|o| o.state == WaveState::Done) {
                    return Err((None, FaultKind::BarrierMissed { finished: done.index }));
                }
                if waves.iter().all(|o| o.state == WaveState::AtBarrier) {
                    waves.iter_mut().for_each(|o| o.state = WaveState::Running);
                }
                Ok(Flow::Done)
            }
            InstData::Ballot { arg: c } => {
                let bits = lanes(mask).filter(|&l| frame.regs[at(*c, l)] & 1 != 0).fold(0u64, |m, l| m | 1 << l);
                per_lane!(|_l| bits)
            }
            InstData::ReadFirstLane { arg: v } => {
                let first = frame.regs[at(*v, mask.trailing_zeros() as usize)];
                per_lane!(|_l| first)
            }
            InstData::Shuffle { args: [v, lane_v] } => {
                let source: Vec<u64> = (0..ws).map(|l| frame.regs[at(*v, l)]).collect();
                per_lane!(|l| {
                    let src = frame.regs[at(*lane_v, l)];
                    if src < ws as u64 && mask >> src & 1 != 0 {
                        source[src as usize]
                    } else {
                        0
                    }
                })
            }
            InstData::Reduce { op, arg: v } => {
                let ty = ty_of(*v);
                let mut it = lanes(mask).map(|l| frame.regs[at(*v, l)]);
                let first = eval::reduce_start(*op, ty, it.next().expect("an active lane"));
                let total = it.fold(first, |acc, x| eval::reduce_step(*op, ty, acc, x));
                per_lane!(|_l| total)
            }
            InstData::Call { func: callee, args } => {
                let callee_fn = &module.functions[*callee];
                let callee_entry = callee_fn.entry().expect("verified: a helper has an entry block");
                let mut regs = vec![0u64; callee_fn.dfg.values.len() * ws];
                for (&param, &a) in callee_fn.dfg.blocks[callee_entry].params.iter().zip(args.iter()) {
                    for lane in lanes(mask) {
                        regs[param.index() * ws + lane] = frame.regs[at(a, lane)];
                    }
                }
                let caller_end = frame.private_base + self.infos[func_id].private_size;
                let private_base = caller_end.next_multiple_of(self.infos[*callee].private_align);
                let size = private_base + self.infos[*callee].private_size;
                for lane in lanes(mask) {
                    let data = &mut wave.private[lane].data;
                    if data.len() < size as usize {
                        data.resize(size as usize, 0);
                    }
                }
                wave.frames.push(Frame {
                    func: *callee,
                    regs,
                    stack: vec![Entry::run(Some(callee_entry), mask, None)],
                    alive: mask,
                    private_base,
                    ret: vec![0; ws],
                    break_target: vec![callee_entry; ws],
                });
                Ok(Flow::Done)
            }
            InstData::Return { arg: value } => {
                if let Some(v) = value {
                    for lane in lanes(mask) {
                        frame.ret[lane] = frame.regs[at(*v, lane)];
                    }
                }
                frame.alive &= !mask;
                frame.stack.pop();
                Ok(Flow::Done)
            }
            InstData::Unreachable => Err((None, FaultKind::Unreachable)),
            InstData::Jump { .. } | InstData::Brif { .. } | InstData::Switch { .. } => {
                let info = &self.infos[func_id];
                branch(func, info, frame, ws, block, data, mask);
                Ok(Flow::Done)
            }
        }
    }
}

/// Converts a pointer between the flat address space and a specific one. The null of the
/// shared and private segments is 0xFFFFFFFF and flat's is 0 (AMDGPUUsage's address-space
/// table); each converts to the other.
fn cast_pointer(from: AddrSpace, to: AddrSpace, p: u64) -> u64 {
    const SEGMENT_NULL: u64 = 0xffff_ffff;
    match (from, to) {
        (AddrSpace::Shared | AddrSpace::Private, AddrSpace::Flat) if p & SEGMENT_NULL == SEGMENT_NULL => 0,
        (AddrSpace::Shared, AddrSpace::Flat) => SHARED_APERTURE << 32 | (p & 0xffff_ffff),
        (AddrSpace::Private, AddrSpace::Flat) => PRIVATE_APERTURE << 32 | (p & 0xffff_ffff),
        (AddrSpace::Flat, AddrSpace::Shared | AddrSpace::Private) if p == 0 => SEGMENT_NULL,
        (AddrSpace::Flat, AddrSpace::Shared | AddrSpace::Private) => p & 0xffff_ffff,
        _ => p,
    }
}

/// One lane's view of memory.
struct MemView<'m> {
    global: &'m mut GlobalMemory,
    shared: &'m mut SharedMemory,
    private: &'m mut PrivateMemory,
}

impl MemView<'_> {
    /// Resolves a pointer of `space` to the memory it addresses (flat through its apertures).
    fn resolve(space: AddrSpace, addr: u64) -> (AddrSpace, u64) {
        match space {
            AddrSpace::Flat => match addr >> 32 {
                SHARED_APERTURE => (AddrSpace::Shared, addr & 0xffff_ffff),
                PRIVATE_APERTURE => (AddrSpace::Private, addr & 0xffff_ffff),
                _ => (AddrSpace::Global, addr),
            },
            AddrSpace::Constant => (AddrSpace::Global, addr),
            s => (s, addr),
        }
    }

    fn read(&mut self, space: AddrSpace, addr: u64, len: u32, align: u32) -> Result<u64, FaultKind> {
        if !addr.is_multiple_of(align as u64) {
            return Err(FaultKind::Misaligned { addr, align });
        }
        Ok(match MemView::resolve(space, addr) {
            (AddrSpace::Shared, a) => self.shared.read(a, len)?,
            (AddrSpace::Private, a) => self.private.read(a, len)?,
            (_, a) => self.global.read(a, len)?,
        })
    }

    fn write(&mut self, space: AddrSpace, addr: u64, len: u32, align: u32, value: u64) -> Result<(), FaultKind> {
        if !addr.is_multiple_of(align as u64) {
            return Err(FaultKind::Misaligned { addr, align });
        }
        match MemView::resolve(space, addr) {
            (AddrSpace::Shared, a) => self.shared.write(a, len, value)?,
            (AddrSpace::Private, a) => self.private.write(a, len, value)?,
            (_, a) => self.global.write(a, len, value)?,
        }
        Ok(())
    }
}

/// Executes a branch: each lane picks its target and passes its arguments; lanes that go the
/// same way stay together, lanes that continue or leave a loop wait for the rest of it, and
/// divergent groups run one after another until they reach the branch's join, where they
/// rejoin.
fn branch(func: &Function, info: &FuncInfo, frame: &mut Frame, ws: usize, block: Block, data: &InstData, mask: u64) {
    let calls = data.block_calls();
    // Each lane's target, as an index into `calls`.
    let mut target_mask = vec![0u64; calls.len()];
    for lane in lanes(mask) {
        let t = match data {
            InstData::Jump { .. } => 0,
            InstData::Brif { cond, .. } => usize::from(frame.regs[cond.index() * ws + lane] & 1 == 0),
            InstData::Switch { arg, cases, .. } => {
                let ty = func.dfg.value_type(*arg);
                let v = frame.regs[arg.index() * ws + lane];
                cases.iter().position(|&c| c & ty.mask() == v).map_or(0, |i| i + 1)
            }
            _ => unreachable!("branch() is only called for branches"),
        };
        target_mask[t] |= 1 << lane;
    }
    // Block arguments: read every source before writing any parameter (a parallel copy).
    let mut writes = Vec::new();
    for (call, &m) in calls.iter().zip(&target_mask) {
        let params = &func.dfg.blocks[call.block].params;
        for lane in lanes(m) {
            for (&p, &a) in params.iter().zip(call.args.iter()) {
                writes.push((p.index() * ws + lane, frame.regs[a.index() * ws + lane]));
            }
        }
    }
    for (slot, value) in writes {
        frame.regs[slot] = value;
    }
    // Merge targets that name the same block (a brif or switch with repeated targets).
    let mut groups: Vec<(Block, u64)> = Vec::new();
    for (call, &m) in calls.iter().zip(&target_mask) {
        if m == 0 {
            continue;
        }
        match groups.iter_mut().find(|(b, _)| *b == call.block) {
            Some((_, gm)) => *gm |= m,
            None => groups.push((call.block, m)),
        }
    }
    let top = frame.stack.pop().expect("the executing entry");
    let join = || info.joins.join(block, &info.loops);
    go_on(info, frame, info.loops.loop_of(block), groups, top.reconv, join);
}

/// Lanes `mask` leave loop `lp` together, no lane being left in it: each goes on to the
/// block its break named, the groups rejoining after the loop ([`Joins::join_after`]).
fn leave_loop(info: &FuncInfo, frame: &mut Frame, lp: Loop, mask: u64, reconv: Option<Block>) {
    let groups: Vec<(Block, u64)> = info
        .joins
        .exits(lp)
        .iter()
        .map(|&t| (t, lanes(mask).filter(|&l| frame.break_target[l] == t).fold(0u64, |m, l| m | 1 << l)))
        .filter(|&(_, m)| m != 0)
        .collect();
    go_on(info, frame, info.loops.parent(lp), groups, reconv, || info.joins.join_after(lp, &info.loops));
}

/// Sends each of `groups` (a target block and its lanes), leaving a block of loop `lp` (if
/// any) whose entry ran until `reconv`, on its way: lanes that continue or leave `lp` wait for
/// the rest of it; one remaining group goes on alone; several run one after another until
/// they rejoin at `join()`.
fn go_on(
    info: &FuncInfo,
    frame: &mut Frame,
    lp: Option<Loop>,
    groups: Vec<(Block, u64)>,
    reconv: Option<Block>,
    join: impl FnOnce() -> Option<Block>,
) {
    let runs: Vec<(Block, u64)> = groups.into_iter().filter(|&(t, m)| !park(info, frame, lp, t, m)).collect();
    match runs[..] {
        [] => {}
        [(target, m)] => {
            if Some(target) != reconv {
                enter(info, frame, target, m, reconv);
            }
        }
        _ => {
            let join = join();
            if let Some(j) = join.filter(|&j| Some(j) != reconv) {
                // The lanes wait at the join for the groups pushed above them (entering the
                // loop there, if it is a loop's header).
                let waiting = runs.iter().fold(0, |acc, &(_, m)| acc | m);
                enter(info, frame, j, waiting, reconv);
            }
            // Push in reverse so the first target runs first.
            for &(target, m) in runs.iter().rev() {
                if Some(target) != join {
                    enter(info, frame, target, m, join);
                }
            }
        }
    }
}

/// If the edge to `target` from a block of loop `lp` continues or leaves it, parks lanes
/// `mask` in the loop's latch or exit entry (they no longer take part in the iteration's
/// joins) and returns true.
fn park(info: &FuncInfo, frame: &mut Frame, lp: Option<Loop>, target: Block, mask: u64) -> bool {
    let Some(lp) = lp else { return false };
    let kind = if target == info.loops.header(lp) {
        EntryKind::Latch(lp)
    } else if !info.loops.contains(lp, target) {
        for lane in lanes(mask) {
            frame.break_target[lane] = target;
        }
        EntryKind::Exit(lp)
    } else {
        return false;
    };
    let at = frame.stack.iter().rposition(|e| e.kind == kind).expect("a loop being run has its entries");
    frame.stack[at].mask |= mask;
    for e in &mut frame.stack[at + 1..] {
        e.mask &= !mask;
    }
    true
}

/// Lanes `mask` go on at `target` until `reconv`; entering a loop, they start its first
/// iteration.
fn enter(info: &FuncInfo, frame: &mut Frame, target: Block, mask: u64, reconv: Option<Block>) {
    if let Some(lp) = info.loops.loop_of(target).filter(|_| info.loops.is_loop_header(target)) {
        let exit = Entry { block: None, inst: 0, mask: 0, reconv, kind: EntryKind::Exit(lp) };
        let latch = Entry { block: None, inst: 0, mask: 0, reconv: None, kind: EntryKind::Latch(lp) };
        frame.stack.extend([exit, latch, Entry::run(Some(target), mask, None)]);
    } else {
        frame.stack.push(Entry::run(Some(target), mask, reconv));
    }
}
