//! Instruction selection: one IR kernel into MIR for one target, split by topic as ACO's
//! `instruction_selection/` is: this file holds the driver and the selection context with the
//! helpers every topic shares (temporaries, operands, vectors, and the VALU and SALU builders
//! that legalize operands); [`inputs`] the kernel's inputs (`p_startpgm`, kernarg loads, the
//! geometry values); [`alu`] arithmetic, compares, conversions and pointer arithmetic;
//! [`divide`] integer division and remainder; [`mod@f64`] f64 arithmetic, 64-bit selects and the
//! conversions involving f64 or 64-bit integers;
//! [`memory`] loads, stores, atomics and barriers, with [`memory_model`] their AMDGPUUsage
//! waits and cache operations and [`atomic_expand`] the compare-and-swap loops built before
//! selection for float atomics a target lacks; [`wave`] wave reductions; [`control`] the block structure, phis, branches and switches,
//! and [`loops`] the loops, both with the exec-mask sequences of [`crate::exec_mask`];
//! [`cleanup`] drops the phis and instructions that turned out unneeded.
//!
//! ```text
//!  Module, FuncId, Target
//!     │ divergence, reconverge              every value uniform or divergent; every join
//!     ▼ inputs::prologue                    KernelInputs ─► descriptor ─► InitialState: p_startpgm
//!     │                                     KernargLayout: s_load of the arguments used
//!     ▼ control::function_body              blocks in linear order, both CFGs, phis,
//!     │   ├─ alu / memory                   uniform → SALU/SMEM into SGPRs, divergent → VALU/VMEM
//!     │   ├─ loops                          header, latch, exit; breaks and continues
//!     │   └─ exec_mask                      saveexec / invert / restore, masks of escaping lanes
//!     ▼ cleanup                             trivial phis, dead code; memory-model waits pruned
//!  Selected { mir, inputs, explicit_args, kernarg, lds_bytes, private_bytes }
//! ```
//!
//! Every IR value becomes a [`Val`]: a temporary (an SGPR class when uniform, a VGPR class when
//! divergent; a divergent `i1` is a lane mask), a constant (folded into its users as an inline
//! constant or literal, or moved into a register where the operand cannot take it), or, for a
//! uniform `i1` made by a compare, the scalar compare itself, emitted where its SCC is used so
//! that no boolean has to live in SCC across other instructions. A uniform `i1` that is not a
//! compare lives in an SGPR as 0 or 1.
//!
//! Each instruction's results and operands are those of its shape in `isa::operands` (assembly
//! order; `off` for a global access is the absent `saddr`), followed by the implicit ones the
//! register allocator must see, each fixed to its register: SCC written by SALU operations
//! (a temporary when it is read, as a compare's or a carry's, else a plain `scc` result), SCC
//! read by `s_cselect`/`s_addc`, and EXEC of `s_and_saveexec` and `s_cbranch_execnz` (see
//! [`crate::hw::implicit`]). Carries and the lane masks of `_e32` encodings are explicit, fixed
//! to VCC. [`crate::strip_implicit`] gives the encoder's form.

mod alu;
mod atomic_expand;
mod cleanup;
mod combine;
mod control;
mod divide;
mod f64;
mod inputs;
mod int64;
mod linear_ssa;
mod loops;
mod math;
mod memory;
mod memory_model;
mod wave;

use crate::divergence::Divergence;
use crate::error::IselError;
use crate::exec_mask::Masks;
use crate::hw;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use foldhash::fast::FixedState;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::{DominatorTree, PostDominatorTree};
use frontend_ir::loops::{check_reducible, Loop, LoopAnalysis};
use frontend_ir::reconverge::Joins;
use frontend_ir::write::inst_to_string;
use frontend_ir::{Block, FuncId, Function, Inst, InstData, Module, Type, Value, ValueDef};
use isa::mir::{self, BlockKind, Def, Operand, OperandKind};
use isa::opcode::{Family, Format, Opcode};
use isa::processor::{Processor, Target};
use isa::reg::{PhysReg, RegClass, RegType, Temp};
use isa::table::ConstType;
use runtime_abi::initial_state::KernelInputs;
use runtime_abi::kernarg::{ExplicitArg, KernargLayout};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A selected kernel: its MIR and what the code object needs to know about it.
#[derive(Clone, Debug)]
pub struct Selected {
    /// The MIR, with temporaries; inputs are fixed to their registers in `p_startpgm`.
    pub mir: mir::Function,
    /// The inputs the kernel reads, for `runtime_abi::initial_state::enable_inputs`.
    pub inputs: KernelInputs,
    /// The explicit arguments as the kernarg layout and the metadata describe them.
    pub explicit_args: Vec<ExplicitArg>,
    /// Where the arguments are in the kernarg segment.
    pub kernarg: KernargLayout,
    /// Bytes of statically allocated LDS (the kernel's shared slots, laid out in order at their
    /// alignments; rounded up to 16 when the kernel uses `dyn_shared_addr`, whose area starts
    /// there).
    pub lds_bytes: u32,
    /// Bytes of each lane's private segment (scratch): the kernel's private slots, laid out in
    /// order at their alignments (`private_segment_fixed_size` of the descriptor).
    pub private_bytes: u32,
}

/// Selects `kernel` of `module` for `target`.
pub fn select(module: &Module, kernel: FuncId, target: &Target) -> Result<Selected, IselError> {
    select_with(module, kernel, target, false)
}

/// [`select`], with the private segment enabled even for a kernel without private slots when
/// `scratch` is set: register allocation found that VGPRs spill to scratch, which a processor
/// without architected flat scratch (gfx90a) reaches only once the entry sets FLAT_SCRATCH up.
pub fn select_with(module: &Module, kernel: FuncId, target: &Target, scratch: bool) -> Result<Selected, IselError> {
    let family_of = Family::of(target.processor());
    let expanded = family_of.and_then(|family| atomic_expand::expand(module, kernel, family));
    let module = expanded.as_ref().unwrap_or(module);
    let func = &module.functions[kernel];
    if !func.is_kernel() {
        return Err(IselError::NotAKernel { func: func.name.clone() });
    }
    let target_error =
        |reason| IselError::Target { target: target.processor().name.to_string(), wave_size: target.wave_size, reason };
    if !target.processor().verified {
        return Err(IselError::Unverified {
            target: target.processor().name.to_string(),
            verified: Processor::verified_names(),
        });
    }
    let family = Family::of(target.processor()).ok_or_else(|| target_error("the generation has no encodings yet"))?;
    match target.wave_size {
        64 => {}
        32 if target.processor().wave32 => {}
        _ => return Err(target_error("the processor does not run waves of this size")),
    }
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    check_reducible(func, &cfg, &domtree).map_err(|source| {
        let branch = func.dfg.terminator(source.from).map(|t| func.srclocs[t]);
        let loc = branch.filter(|l| !l.is_none()).unwrap_or_else(|| func.block_srcloc(source.from));
        IselError::Irreducible { func: func.name.clone(), source, loc }
    })?;
    let postdom = PostDominatorTree::new(func, &cfg);
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    let div = Divergence::compute(func, &cfg, &postdom, &loops);
    let joins = Joins::new(&cfg, &domtree, &loops);
    // A loop nest takes two regions a level: refuse one that is too deep before selecting it.
    if let Some(deep) = func.layout.iter().find(|&&b| loops.block_depth(b) > MAX_NESTING / 2) {
        return Err(too_deep(func, *deep));
    }
    let budget = 16 * func.layout.len() as u32 + 256;
    let mut ctx = Ctx {
        module,
        func,
        target,
        family,
        wave: target.wave_size,
        div,
        domtree,
        loops,
        joins,
        mir: mir::Function::new(func.name.clone(), family, target.wave_size),
        vals: SecondaryMap::new(),
        cur: 0,
        masks: Masks::default(),
        divergent_depth: 0,
        frames: Vec::new(),
        ir_block: None,
        budget,
        nesting: 0,
        splits: HashMap::default(),
        cur_inst: None,
        specials: Vec::new(),
        value_uses: None,
        reductions: Vec::new(),
        scratch,
    };
    let (inputs, explicit_args, kernarg) = inputs::prologue(&mut ctx)?;
    control::function_body(&mut ctx)?;
    let mut mir = ctx.mir;
    linear_ssa::run(&mut mir);
    cleanup::run(&mut mir);
    combine::run(&mut mir);
    memory_model::prune_waits(&mut mir);
    let lds_bytes = inputs::lds_bytes(func);
    let private_bytes = inputs::private_bytes(func);
    Ok(Selected { mir, inputs, explicit_args, kernarg, lds_bytes, private_bytes })
}

/// Where an IR value is defined (for an instruction result) and the blocks whose
/// instructions read it.
#[derive(Clone, Debug, Default)]
struct ValueUses {
    def: PackedOption<Block>,
    blocks: SmallVec<[Block; 2]>,
}

/// What an IR value is in MIR.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Val {
    /// Not selected yet.
    #[default]
    None,
    /// A temporary.
    Temp(Temp),
    /// A constant: the bits of an integer, pointer or float, zero-extended.
    Const(u64),
    /// A uniform boolean given by a scalar compare (`op args`) not emitted yet.
    Cmp {
        /// The `s_cmp_*` opcode.
        op: Opcode,
        /// Its operands.
        args: [Operand; 2],
    },
}

/// How deep the regions of ifs and loops (the arms and bodies selection enters, about two per
/// level of a loop nest) may nest inside one another in a kernel. Selection recurses on the
/// nesting, on a stack that grows on the heap where the thread's runs short (so any thread an
/// embedding program compiles on will do); the bound keeps the time sensible, since each
/// level revisits the loops around it. Deeper code is refused with an error (the front end
/// limits nesting as written to 200 levels).
pub(crate) const MAX_NESTING: u32 = 400;

/// The state of selecting one kernel.
pub(crate) struct Ctx<'a> {
    /// Whether the kernel reaches scratch even without private slots (spills).
    pub scratch: bool,
    pub module: &'a Module,
    pub func: &'a Function,
    pub target: &'a Target,
    pub family: Family,
    pub wave: u32,
    pub div: Divergence,
    pub domtree: DominatorTree,
    pub loops: LoopAnalysis,
    /// Where the lanes of each branch meet again.
    pub joins: Joins,
    pub mir: mir::Function,
    pub vals: SecondaryMap<Value, Val>,
    /// The MIR block being filled.
    pub cur: u32,
    /// The divergent ifs and loops being selected and the lane masks they carry.
    pub masks: Masks,
    /// How many divergent ifs and loops (whose lanes may leave in different iterations)
    /// enclose the code being selected, a join-less if's else arm included.
    pub divergent_depth: u32,
    /// The loops being selected, innermost last.
    frames: Vec<loops::LoopFrame>,
    /// The IR block being selected.
    pub ir_block: Option<Block>,
    /// How many more IR blocks may be selected (blocks reached along several paths are
    /// selected once on each; this bounds the copies).
    budget: u32,
    /// How many regions (arms of branches, loop bodies) are being selected inside one another:
    /// selection recurses on it, so it is bounded by [`MAX_NESTING`].
    pub nesting: u32,
    /// Where the values are defined and read, once a loop needs it (see [`Ctx::live_out`]).
    value_uses: Option<SecondaryMap<Value, ValueUses>>,
    /// The dwords of a temporary, split in a block: reused there instead of splitting again.
    splits: HashMap<(Temp, u32), SmallVec<[Temp; 4]>, FixedState>,
    /// The IR instruction being selected, for error messages.
    pub cur_inst: Option<Inst>,
    /// The values of the geometry, computed in the entry block.
    pub specials: Vec<(frontend_ir::Special, Val)>,
    /// DPP reductions selected but not emitted yet: consecutive ones share one whole-wave
    /// section ([`wave::flush_reductions`]).
    reductions: Vec<wave::PendingReduction>,
}

/// The error of control flow nested past [`MAX_NESTING`] at `block`.
pub(crate) fn too_deep(func: &Function, block: Block) -> IselError {
    let loc = func.block_srcloc(block);
    IselError::TooDeep { func: func.name.clone(), block: block.to_string(), limit: MAX_NESTING, loc }
}

impl Ctx<'_> {
    // ---- Errors ----

    /// The instruction being selected, as text, and where it is written.
    fn cur_inst_site(&self) -> (String, frontend_ir::SourceLoc) {
        match self.cur_inst {
            Some(i) => (inst_to_string(self.module, self.func, i), self.func.srclocs[i]),
            None => (String::new(), frontend_ir::SourceLoc::NONE),
        }
    }

    /// An error about the instruction being selected.
    pub fn unsupported(&self, what: impl Into<String>) -> IselError {
        let (inst, loc) = self.cur_inst_site();
        IselError::Unsupported { func: self.func.name.clone(), inst, what: what.into(), loc }
    }

    /// The error of an instruction that uses `what`, which threadgroup split mode forbids.
    pub fn split_workgroup(&self, what: &'static str) -> IselError {
        let (inst, loc) = self.cur_inst_site();
        IselError::SplitWorkgroup { func: self.func.name.clone(), inst, what, loc }
    }

    /// An error about a control-flow construct starting at `block`.
    pub fn control_flow(&self, block: Block, what: impl Into<String>) -> IselError {
        let loc = self.func.block_srcloc(block);
        IselError::ControlFlow { func: self.func.name.clone(), block: block.to_string(), what: what.into(), loc }
    }

    // ---- Blocks, instructions, temporaries ----

    /// A new empty MIR block after the others, uniform when no divergent if, and no loop whose
    /// lanes may leave in different iterations, encloses it.
    pub fn new_block(&mut self) -> u32 {
        self.mir.blocks.push(mir::Block {
            kind: BlockKind { loop_header: false, uniform: self.divergent_depth == 0 },
            loop_depth: self.masks.loop_depth(),
            ..mir::Block::default()
        });
        (self.mir.blocks.len() - 1) as u32
    }

    /// Counts one more IR block selected; too many copies is an error naming `block`.
    pub fn spend(&mut self, block: Block) -> Result<(), IselError> {
        match self.budget.checked_sub(1) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.control_flow(block, "control flow whose paths meet too late to select each once")),
        }
    }

    /// The values defined in `lp` and read by an instruction outside it (as an operand or a
    /// branch argument): the divergent booleans (lane masks) and the others.
    pub fn live_out(&mut self, lp: Loop) -> (Vec<Value>, Vec<Value>) {
        let func = self.func;
        let uses = self.value_uses.get_or_insert_with(|| {
            // Where each value is defined and read, found once, in layout order (so a block
            // is recorded once per value by comparing with the last one).
            let mut uses: SecondaryMap<Value, ValueUses> = SecondaryMap::new();
            for (b, inst) in func.insts_in_layout() {
                if let Some(r) = func.dfg.inst_result(inst) {
                    uses[r].def = b.into();
                }
                let data = &func.dfg.insts[inst];
                let branch_args = data.block_calls().iter().flat_map(|call| call.args.iter());
                for &v in data.args().iter().chain(branch_args) {
                    if uses[v].blocks.last() != Some(&b) {
                        uses[v].blocks.push(b);
                    }
                }
            }
            uses
        });
        let (mut masks, mut others) = (Vec::new(), Vec::new());
        for &b in self.loops.blocks(lp) {
            let data = &func.dfg.blocks[b];
            let defs = data.params.iter().copied().chain(data.insts.iter().filter_map(|&i| func.dfg.inst_result(i)));
            for v in defs {
                if uses[v].blocks.iter().any(|&u| !self.loops.contains(lp, u)) {
                    let mask = self.div.is_divergent(v) && func.dfg.value_type(v) == Type::I1;
                    if mask {
                        masks.push(v)
                    } else {
                        others.push(v)
                    }
                }
            }
        }
        (masks, others)
    }

    /// Whether `v` is defined in a block that dominates `block` (for an instruction result,
    /// known once [`Ctx::live_out`] has run).
    pub fn defined_above(&self, v: Value, block: Block) -> bool {
        let def = match self.func.dfg.values[v].def {
            ValueDef::Param(d, _) => Some(d),
            _ => self.value_uses.as_ref().and_then(|m| m[v].def.expand()),
        };
        def.is_some_and(|d| self.domtree.dominates(d, block))
    }

    /// Whether the current block may read `v`'s temporary directly, as a pattern that looks
    /// through the instructions using `v` would: not when `v` is defined in a loop the current
    /// block is outside of. A value leaving a loop is read after it through the phis its exit
    /// gives the values [`Ctx::live_out`] finds there, and `v` itself may not be one of them.
    pub fn readable_here(&self, v: Value) -> bool {
        let def = match self.func.dfg.values[v].def {
            ValueDef::Param(d, _) => Some(d),
            _ => self.value_uses.as_ref().and_then(|m| m[v].def.expand()),
        };
        let (Some(def), Some(here)) = (def, self.ir_block) else { return true };
        self.loops.loop_of(def).is_none_or(|lp| self.loops.contains(lp, here))
    }

    /// Appends `inst` to the current block.
    pub fn emit(&mut self, inst: mir::Inst) {
        self.mir.blocks[self.cur as usize].insts.push(inst);
    }

    /// Appends a pseudo-instruction without results or operands.
    pub fn marker(&mut self, opcode: Opcode) {
        self.emit(mir::Inst::new(opcode, &[], &[]));
    }

    /// A new temporary.
    pub fn temp(&mut self, rc: RegClass) -> Temp {
        self.mir.new_temp(rc)
    }

    /// The class of a lane mask.
    pub fn lm(&self) -> RegClass {
        RegClass::lane_mask(self.wave)
    }

    /// EXEC as an operand.
    pub fn exec(&self) -> Operand {
        Operand::phys(PhysReg::EXEC, self.lm())
    }

    /// EXEC as a result.
    pub fn exec_def(&self) -> Def {
        Def::phys(PhysReg::EXEC, self.lm())
    }

    /// SCC written and not read (an instruction's side effect).
    pub fn scc_clobber() -> Def {
        Def::phys(PhysReg::SCC, RegClass::S1)
    }

    // ---- Values ----

    /// The selected form of `v`.
    pub fn val(&self, v: Value) -> Result<Val, IselError> {
        match self.vals[v] {
            Val::None => Err(self.unsupported(format!("{v} used before it is selected"))),
            val => Ok(val),
        }
    }

    /// Binds `v`.
    pub fn set(&mut self, v: Value, val: Val) {
        self.vals[v] = val;
    }

    /// A 32-bit (or narrower, or boolean) value as an operand: its temporary, its constant, or
    /// a uniform compare made into 0 or 1.
    pub fn operand(&mut self, v: Value) -> Result<Operand, IselError> {
        match self.val(v)? {
            Val::Temp(t) => Ok(Operand::temp(t)),
            Val::Const(c) => Ok(Operand::constant(c as u32)),
            cmp @ Val::Cmp { .. } => self.bool_of(cmp),
            Val::None => unreachable!("val() rejects None"),
        }
    }

    /// The two dwords of a 64-bit value, low first.
    pub fn halves(&mut self, v: Value) -> Result<[Operand; 2], IselError> {
        match self.val(v)? {
            Val::Const(c) => Ok([Operand::constant(c as u32), Operand::constant((c >> 32) as u32)]),
            Val::Temp(t) if t.rc.size == 2 => {
                let parts = self.split(t);
                Ok([Operand::temp(parts[0]), Operand::temp(parts[1])])
            }
            _ => Err(self.unsupported(format!("{v} as a 64-bit value"))),
        }
    }

    /// The dwords of `t`: split in the current block, once.
    pub fn split(&mut self, t: Temp) -> SmallVec<[Temp; 4]> {
        if let Some(parts) = self.splits.get(&(t, self.cur)) {
            return parts.clone();
        }
        let parts = self.split_anew(t);
        self.splits.insert((t, self.cur), parts.clone());
        parts
    }

    /// The dwords of `t` from a new `p_split_vector`, even where `t` was built from parts in
    /// this block ([`Ctx::split`] gives those back): readers of the pieces then end the parts
    /// at the tuple, which the allocator builds in their registers, and the split reads it in
    /// place, where keeping the parts alive beside the tuple would cost copies.
    pub fn split_anew(&mut self, t: Temp) -> SmallVec<[Temp; 4]> {
        let rc = RegClass { size: 1, ..t.rc };
        let parts: SmallVec<[Temp; 4]> = (0..t.rc.size).map(|_| self.temp(rc)).collect();
        let defs: SmallVec<[Def; 4]> = parts.iter().map(|&p| Def::temp(p)).collect();
        self.emit(mir::Inst::new(Opcode::PSplitVector, &defs, &[Operand::temp(t)]));
        parts
    }

    /// A tuple of class `rc` built from `parts` (remembered as its split in this block).
    pub fn create_vector(&mut self, rc: RegClass, parts: &[Operand]) -> Temp {
        let t = self.temp(rc);
        self.emit(mir::Inst::new(Opcode::PCreateVector, &[Def::temp(t)], parts));
        let dwords: SmallVec<[Temp; 4]> = parts.iter().filter_map(|p| p.temp_of().filter(|t| t.rc.size == 1)).collect();
        if dwords.len() == rc.size as usize && dwords.iter().all(|d| d.rc.ty == rc.ty) {
            self.splits.insert((t, self.cur), dwords);
        }
        t
    }

    /// `op` in VGPRs of `size` dwords: itself if it is there, else a copy.
    pub fn in_vgpr(&mut self, op: Operand, size: u8) -> Result<Temp, IselError> {
        match op.kind {
            OperandKind::Temp(t) if t.rc.ty == RegType::Vgpr => Ok(t),
            OperandKind::Temp(t) => {
                let v = self.temp(RegClass::vgpr(t.rc.size));
                self.emit(mir::Inst::new(Opcode::PParallelCopy, &[Def::temp(v)], &[op]));
                Ok(v)
            }
            OperandKind::Const(_) if size == 1 => {
                let v = self.temp(RegClass::V1);
                self.emit(mir::Inst::new(Opcode::VMovB32, &[Def::temp(v)], &[op]));
                Ok(v)
            }
            _ => Err(self.unsupported("this operand in VGPRs")),
        }
    }

    /// A 64-bit constant in VGPRs or SGPRs.
    pub fn wide_const(&mut self, c: u64, ty: RegType) -> Temp {
        // One `s_mov_b64` holds an inline constant of a 64-bit integer (-16..=64 sign-extended,
        // the f64 float constants) or a 32-bit literal, zero-extended.
        let one_move = hw::is_wide_inline(c) || isa::encoding::literal_for(c, ConstType::B64).is_ok();
        if ty == RegType::Sgpr && one_move {
            let t = self.temp(RegClass::S2);
            self.emit(mir::Inst::new(Opcode::SMovB64, &[Def::temp(t)], &[Operand::constant64(c)]));
            return t;
        }
        let (mov, rc) =
            if ty == RegType::Sgpr { (Opcode::SMovB32, RegClass::S1) } else { (Opcode::VMovB32, RegClass::V1) };
        let parts: SmallVec<[Operand; 2]> = [c as u32, (c >> 32) as u32]
            .into_iter()
            .map(|half| {
                let t = self.temp(rc);
                self.emit(mir::Inst::new(mov, &[Def::temp(t)], &[Operand::constant(half)]));
                Operand::temp(t)
            })
            .collect();
        self.create_vector(RegClass { size: 2, ..rc }, &parts)
    }

    /// A value as a temporary of class `rc` (a phi operand, a store's data): converted,
    /// copied or materialized in the current block as needed.
    pub fn as_class(&mut self, val: Val, rc: RegClass) -> Result<Temp, IselError> {
        match val {
            Val::Temp(t) if t.rc == rc => Ok(t),
            Val::Temp(t) if t.rc.size == rc.size && rc.ty == RegType::Vgpr => self.in_vgpr(Operand::temp(t), rc.size),
            Val::Const(c) if rc.size == 2 => Ok(self.wide_const(c, rc.ty)),
            Val::Const(c) if rc.ty == RegType::Vgpr => self.in_vgpr(Operand::constant(c as u32), 1),
            Val::Const(c) => {
                let t = self.temp(rc);
                self.emit(mir::Inst::new(Opcode::SMovB32, &[Def::temp(t)], &[Operand::constant(c as u32)]));
                Ok(t)
            }
            cmp @ Val::Cmp { .. } if rc == RegClass::S1 => {
                let b = self.bool_of(cmp)?;
                self.as_class(Val::Temp(b.temp_of().expect("bool_of gives a temporary for a compare")), rc)
            }
            _ => Err(self.unsupported(format!("a value of {val:?} where class {rc} is needed"))),
        }
    }

    // ---- Booleans ----

    /// A uniform boolean as SCC: the compare emitted here, or `b != 0` for one in an SGPR.
    pub fn scc_of(&mut self, v: Value) -> Result<Temp, IselError> {
        let val = self.val(v)?;
        self.scc_of_val(val)
    }

    /// A uniform boolean value as SCC (see [`Ctx::scc_of`]).
    pub fn scc_of_val(&mut self, val: Val) -> Result<Temp, IselError> {
        let (op, args) = match val {
            Val::Cmp { op, args } => (op, args),
            Val::Temp(t) if t.rc == RegClass::S1 => (Opcode::SCmpLgU32, [Operand::temp(t), Operand::constant(0)]),
            Val::Const(c) => (Opcode::SCmpLgU32, [Operand::constant(c as u32), Operand::constant(0)]),
            _ => return Err(self.unsupported(format!("{val:?} as a scalar condition"))),
        };
        let scc = self.temp(RegClass::S1);
        self.salu(op, &[Def::fixed(scc, PhysReg::SCC)], &args);
        Ok(scc)
    }

    /// A uniform compare as 0 or 1 in an SGPR.
    fn bool_of(&mut self, cmp: Val) -> Result<Operand, IselError> {
        let Val::Cmp { op, args } = cmp else { unreachable!("only compares are deferred") };
        let scc = self.temp(RegClass::S1);
        self.salu(op, &[Def::fixed(scc, PhysReg::SCC)], &args);
        let b = self.temp(RegClass::S1);
        self.emit(mir::Inst::new(
            Opcode::SCselectB32,
            &[Def::temp(b)],
            &[Operand::constant(1), Operand::constant(0), Operand::fixed(scc, PhysReg::SCC)],
        ));
        Ok(Operand::temp(b))
    }

    /// A boolean as a lane mask: a divergent one is one already; a uniform one becomes all
    /// lanes or none.
    pub fn lane_mask_of(&mut self, v: Value) -> Result<Temp, IselError> {
        if let Val::Temp(t) = self.val(v)? {
            if self.div.is_divergent(v) && t.rc == self.lm() {
                return Ok(t);
            }
        }
        let val = self.val(v)?;
        self.mask_of_val(val)
    }

    /// A uniform boolean value as a lane mask of all lanes or none.
    pub fn mask_of_val(&mut self, val: Val) -> Result<Temp, IselError> {
        let wide = self.wave == 64;
        if let Val::Const(c) = val {
            let m = self.temp(self.lm());
            let mov = if wide { Opcode::SMovB64 } else { Opcode::SMovB32 };
            let bits = if c != 0 { self.all_lanes() } else { Operand::constant(0) };
            self.emit(mir::Inst::new(mov, &[Def::temp(m)], &[bits]));
            return Ok(m);
        }
        let scc = self.scc_of_val(val)?;
        let (opcode, m) = if wide {
            (Opcode::SCselectB64, self.temp(RegClass::S2))
        } else {
            (Opcode::SCselectB32, self.temp(RegClass::S1))
        };
        self.emit(mir::Inst::new(
            opcode,
            &[Def::temp(m)],
            &[self.all_lanes(), Operand::constant(0), Operand::fixed(scc, PhysReg::SCC)],
        ));
        Ok(m)
    }

    /// The lane mask of every lane of the wave, as a constant (-1 at the mask's width).
    pub fn all_lanes(&self) -> Operand {
        if self.wave == 64 {
            Operand::constant64(u64::MAX)
        } else {
            Operand::constant(u32::MAX)
        }
    }

    // ---- Builders ----

    /// Emits a VALU instruction, legalizing its sources: a VGPR goes into the second source of
    /// a VOP2/VOPC (commuting the operation if it can, else using VOP3); scalar sources beyond
    /// the constant bus, and literals in GFX9's VOP3, are moved into VGPRs first. The VOP3
    /// form is chosen only where the e32 form cannot express the instruction.
    pub fn valu(&mut self, opcode: Opcode, defs: &[Def], srcs: &[Operand]) {
        let family = self.family;
        let mut opcode = opcode;
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::from_slice(srcs);
        let format = opcode.format(family);
        if ops.len() >= 2 && !is_vgpr(&ops[1]) && is_vgpr(&ops[0]) {
            if let Some(c) = hw::commuted(opcode) {
                ops.swap(0, 1);
                opcode = c;
            }
        }
        loop {
            let vop3 = hw::needs_vop3(opcode, family, defs, &ops);
            let mut scalars: SmallVec<[OperandKind; 4]> = SmallVec::new();
            let mut literal = None;
            let mut literals: SmallVec<[OperandKind; 3]> = SmallVec::new();
            for (i, op) in ops.iter().enumerate() {
                if is_scalar(op, opcode, family, i) && !scalars.contains(&op.kind) {
                    scalars.push(op.kind);
                }
                if matches!(op.kind, OperandKind::Const(_)) && is_scalar(op, opcode, family, i) {
                    literal = literal.or(Some(i));
                    if !literals.contains(&op.kind) {
                        literals.push(op.kind);
                    }
                }
            }
            // One literal per instruction (two distinct ones: the first goes to a VGPR).
            let literal_illegal = (vop3 && literal.is_some() && !isa::constant_bus::vop3_literal(family.generation()))
                || literals.len() > 1;
            if scalars.len() <= isa::constant_bus::limit(family.generation(), opcode) && !literal_illegal {
                let mut inst = mir::Inst::new(opcode, defs, &ops);
                inst.vop3 = vop3 && matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc);
                self.emit(inst);
                return;
            }
            // Move one scalar source (never the lane mask) into a VGPR: the literal first.
            let mask = hw::mask_operand(opcode, family);
            let pick = literal
                .filter(|_| literal_illegal)
                .or_else(|| (0..ops.len()).rev().find(|&i| Some(i) != mask && is_scalar(&ops[i], opcode, family, i)));
            let copied = pick.and_then(|i| {
                let size = ops[i].rc().map_or(1, |rc| rc.size);
                self.in_vgpr(ops[i], size).ok().map(|t| (i, t))
            });
            let Some((i, t)) = copied else {
                // Nothing movable: emit as is, for the verifier to report.
                self.emit(mir::Inst::new(opcode, defs, &ops));
                return;
            };
            ops[i] = Operand::temp(t);
        }
    }

    /// Emits a SALU instruction, moving all but one distinct literal into SGPRs.
    pub fn salu(&mut self, opcode: Opcode, defs: &[Def], srcs: &[Operand]) {
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::from_slice(srcs);
        let mut literal: Option<u64> = None;
        for i in 0..ops.len() {
            if let OperandKind::Const(v) = ops[i].kind {
                if hw::is_inline(opcode, self.family, i, v) || literal == Some(v) {
                    continue;
                }
                if literal.is_none() {
                    literal = Some(v);
                    continue;
                }
                let t = self.temp(RegClass::S1);
                self.emit(mir::Inst::new(Opcode::SMovB32, &[Def::temp(t)], &[ops[i]]));
                ops[i] = Operand::temp(t);
            }
        }
        self.emit(mir::Inst::new(opcode, defs, &ops));
    }

    /// A VALU result that is uniform, back in an SGPR (one `v_readfirstlane_b32` per dword).
    pub fn readfirstlane(&mut self, v: Temp) -> Temp {
        let s = self.temp(RegClass::sgpr(v.rc.size));
        if v.rc.size == 1 {
            self.emit(mir::Inst::new(Opcode::VReadfirstlaneB32, &[Def::temp(s)], &[Operand::temp(v)]));
            return s;
        }
        let parts = self.split(v);
        let scalars: SmallVec<[Operand; 4]> = parts.iter().map(|&p| Operand::temp(self.readfirstlane(p))).collect();
        self.create_vector(s.rc, &scalars)
    }

    // ---- Instructions ----

    /// Selects the non-terminator instructions of `block` into the current MIR block.
    pub fn select_body(&mut self, block: Block) -> Result<(), IselError> {
        let func = self.func;
        for &inst in &func.dfg.blocks[block].insts {
            let data = &func.dfg.insts[inst];
            if data.is_terminator() {
                break;
            }
            self.cur_inst = Some(inst);
            if !matches!(data, InstData::Reduce { .. }) {
                wave::flush_reductions(self);
            }
            let result = func.dfg.inst_result(inst);
            match data {
                InstData::IntConst { ty, imm } => {
                    self.set(result.expect("constants have results"), Val::Const(imm & ty.mask()))
                }
                InstData::FloatConst { bits, .. } => {
                    self.set(result.expect("constants have results"), Val::Const(*bits))
                }
                InstData::Special { value } => {
                    inputs::special(self, *value, result.expect("geometry values have results"))?
                }
                InstData::Load { .. }
                | InstData::Store { .. }
                | InstData::SlotAddr { .. }
                | InstData::DynSharedAddr
                | InstData::Barrier
                | InstData::AtomicRmw { .. }
                | InstData::AtomicCas { .. }
                | InstData::AtomicLoad { .. }
                | InstData::AtomicStore { .. }
                | InstData::AddrSpaceCast { .. }
                | InstData::Fence { .. } => memory::select(self, data, result)?,
                InstData::Reduce { op, arg } => wave::reduce(self, *op, *arg, result.expect("reduce has a result"))?,
                InstData::Ballot { arg } => wave::ballot(self, *arg, result.expect("ballot has a result"))?,
                InstData::Shuffle { args: [v, lane] } => {
                    wave::shuffle(self, *v, *lane, result.expect("shuffle has a result"))?
                }
                InstData::ReadFirstLane { arg } => {
                    wave::readfirstlane(self, *arg, result.expect("readfirstlane has a result"))?
                }
                InstData::Unary { .. }
                | InstData::Binary { .. }
                | InstData::Fma { .. }
                | InstData::Select { .. }
                | InstData::Icmp { .. }
                | InstData::Fcmp { .. }
                | InstData::Convert { .. }
                | InstData::PtrAdd { .. } => alu::select(self, data, result.expect("arithmetic has results"))?,
                _ => {
                    let text = inst_to_string(self.module, func, inst);
                    let name = text.split(" = ").last().and_then(|t| t.split([' ', '.']).next()).unwrap_or("");
                    return Err(self.unsupported(format!("`{name}` (no selection yet)")));
                }
            }
            if let Some(r) = result {
                self.keep_per_lane(r)?;
            }
        }
        wave::flush_reductions(self);
        self.cur_inst = None;
        Ok(())
    }

    /// A value that is the same for every lane when it is computed (a wave reduction,
    /// `readfirstlane`, a ballot: selected into SGPRs) but divergent for the analysis, because
    /// lanes leave the loop computing it in different iterations and each must keep its own
    /// (temporal divergence, [`crate::divergence`]): it is copied into VGPRs where it is
    /// defined, under EXEC, so a lane that left keeps the value of its last iteration.
    fn keep_per_lane(&mut self, r: Value) -> Result<(), IselError> {
        if !self.div.is_divergent(r) || self.func.dfg.value_type(r) == Type::I1 {
            return Ok(());
        }
        if let Val::Temp(t) = self.vals[r] {
            if t.rc.is_sgpr() {
                let v = self.as_class(Val::Temp(t), RegClass::vgpr(t.rc.size))?;
                self.set(r, Val::Temp(v));
            }
        }
        Ok(())
    }
}

/// The register class of a value of type `ty`: SGPRs when uniform, VGPRs when divergent, and a
/// lane mask for a divergent boolean. `None` for the types not selected yet.
pub(crate) fn class_for(ty: Type, divergent: bool, wave: u32) -> Option<RegClass> {
    let size = match ty {
        Type::I1 if divergent => return Some(RegClass::lane_mask(wave)),
        Type::I1 => 1,
        _ => match ty.bits() {
            // An f16 lives in the low half of a 32-bit register (see `alu`).
            16 | 32 => 1,
            64 => 2,
            _ => return None,
        },
    };
    Some(if divergent { RegClass::vgpr(size) } else { RegClass::sgpr(size) })
}

fn is_vgpr(op: &Operand) -> bool {
    op.rc().is_some_and(|rc| rc.ty == RegType::Vgpr)
}

/// Whether source `i` of `opcode` takes a constant-bus slot: an SGPR or a literal.
fn is_scalar(op: &Operand, opcode: Opcode, family: Family, i: usize) -> bool {
    match op.kind {
        OperandKind::Const(v) => !hw::is_inline(opcode, family, i, v),
        _ => op.rc().is_some_and(|rc| rc.is_sgpr()),
    }
}
