//! Functions and modules: the data-flow graph (values, instructions, blocks), the block
//! layout, signatures, kernel attributes and memory slots.
//!
//! A function is a CFG of blocks in a layout order whose first block is the entry. The entry
//! block's parameters are the function's parameters. Values are numbered in layout order once a
//! function is finished ([`Function::canonicalize`]), so the printed text and the entity numbers
//! agree, and printing a parsed function gives back its text.

use crate::entities::{Block, FuncId, Inst, Slot, Value};
use crate::instructions::InstData;
use crate::srcloc::SourceLoc;
use crate::types::{AddrSpace, Type};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// Where a value comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The `index`-th parameter of a block.
    Param(Block, u32),
    /// The result of an instruction.
    Result(Inst),
    /// Another name for a value (left by SSA construction; removed by canonicalization).
    Alias(Value),
    /// Declared but not yet defined (during parsing or building).
    Pending,
}

/// A value's type and definition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// The type.
    pub ty: Type,
    /// The definition.
    pub def: ValueDef,
}

/// A block's parameters and instructions, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockData {
    /// The block parameters (SSA phis).
    pub params: Vec<Value>,
    /// The instructions; the last one is the terminator.
    pub insts: Vec<Inst>,
}

/// The values, instructions and blocks of a function.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    /// Every value.
    pub values: PrimaryMap<Value, ValueData>,
    /// Every instruction.
    pub insts: PrimaryMap<Inst, InstData>,
    /// The result of each instruction that has one.
    pub results: SecondaryMap<Inst, PackedOption<Value>>,
    /// Every block.
    pub blocks: PrimaryMap<Block, BlockData>,
}

impl DataFlowGraph {
    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// Follows aliases to the value that is really defined.
    pub fn resolve_aliases(&self, mut v: Value) -> Value {
        while let ValueDef::Alias(target) = self.values[v].def {
            v = target;
        }
        v
    }

    /// A new block with no parameters or instructions (not yet in the layout).
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let index = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::Param(block, index) });
        self.blocks[block].params.push(v);
        v
    }

    /// A new value of type `ty` with no definition yet.
    pub fn make_pending_value(&mut self, ty: Type) -> Value {
        self.values.push(ValueData { ty, def: ValueDef::Pending })
    }

    /// Adds an instruction (not yet placed in a block) and its result of type `result`.
    pub fn make_inst(&mut self, data: InstData, result: Option<Type>) -> Inst {
        let inst = self.insts.push(data);
        if let Some(ty) = result {
            let v = self.values.push(ValueData { ty, def: ValueDef::Result(inst) });
            self.results[inst] = v.into();
        }
        inst
    }

    /// The result of an instruction, if it has one.
    pub fn inst_result(&self, inst: Inst) -> Option<Value> {
        self.results[inst].expand()
    }

    /// The terminator of a block: its last instruction, when that is a terminator.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = *self.blocks[block].insts.last()?;
        self.insts[last].is_terminator().then_some(last)
    }

    /// The result type an instruction implies, from its operands' types and, for calls, from
    /// `callee_ret` (the callee's return type). `None` for instructions without a result; an
    /// ill-typed instruction gets the type its opcode implies and is left to the verifier.
    pub fn result_type(&self, data: &InstData, callee_ret: impl Fn(FuncId) -> Option<Type>) -> Option<Type> {
        let arg_ty = |i: usize| self.value_type(data.args()[i]);
        Some(match data {
            InstData::IntConst { ty, .. }
            | InstData::FloatConst { ty, .. }
            | InstData::Convert { ty, .. }
            | InstData::AddrSpaceCast { ty, .. }
            | InstData::Load { ty, .. }
            | InstData::AtomicLoad { ty, .. } => *ty,
            InstData::Unary { .. } | InstData::Binary { .. } | InstData::Fma { .. } | InstData::PtrAdd { .. } => {
                arg_ty(0)
            }
            InstData::Select { .. } => arg_ty(1),
            InstData::Icmp { .. } | InstData::Fcmp { .. } => Type::I1,
            // The slot's address space lives in the function's slot table: see Function::result_type.
            InstData::SlotAddr { .. } => return None,
            InstData::DynSharedAddr => Type::Ptr(AddrSpace::Shared),
            InstData::Special { .. } => Type::I32,
            InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } => arg_ty(1),
            InstData::Ballot { .. } => Type::I64,
            InstData::ReadFirstLane { .. } | InstData::Shuffle { .. } | InstData::Reduce { .. } => arg_ty(0),
            InstData::Call { func, .. } => return callee_ret(*func),
            InstData::Store { .. }
            | InstData::AtomicStore { .. }
            | InstData::Fence { .. }
            | InstData::Barrier
            | InstData::Jump { .. }
            | InstData::Brif { .. }
            | InstData::Switch { .. }
            | InstData::Return { .. }
            | InstData::Unreachable => return None,
        })
    }
}

/// A function's parameter and return types.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    /// Parameter types, in order.
    pub params: Vec<Type>,
    /// The return type; kernels return nothing.
    pub ret: Option<Type>,
}

/// Attributes of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelAttrs {
    /// The workgroup size every dispatch must use (`reqd_workgroup_size(x, y, z)`).
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// The largest flattened workgroup size a dispatch may use (`max_workgroup_size(n)`).
    pub max_workgroup_size: Option<u32>,
    /// The kernel uses dynamic shared memory, sized at dispatch (`dynamic_shared`).
    pub dynamic_shared: bool,
    /// The waves per SIMD the kernel's register demand should leave room for
    /// (`waves_per_simd(n)`): the compiler spills rather than need more registers than that
    /// occupancy leaves.
    pub waves_per_simd: Option<u32>,
}

impl KernelAttrs {
    /// The most work-items a dispatch's workgroup may have: the required size's product, else
    /// 1024 (LLVM's default flat maximum), bounded by `max_workgroup_size`.
    pub fn max_flat_workgroup_size(&self) -> u64 {
        let size = self.reqd_workgroup_size.map_or(1024, |s| s.iter().fold(1u64, |n, &d| n.saturating_mul(d.into())));
        size.min(self.max_workgroup_size.map_or(u64::MAX, u64::from))
    }
}

/// Whether a function is a kernel (an entry point) or a helper called by kernels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FuncKind {
    /// A kernel, with its attributes.
    Kernel(KernelAttrs),
    /// A helper function.
    Helper,
}

/// A shared or private memory allocation of a function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SlotData {
    /// [`AddrSpace::Shared`] (per workgroup) or [`AddrSpace::Private`] (per work-item).
    pub space: AddrSpace,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes, a power of two.
    pub align: u32,
}

/// A kernel or helper function.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name, without the `@`.
    pub name: String,
    /// Kernel or helper.
    pub kind: FuncKind,
    /// Parameter and return types.
    pub signature: Signature,
    /// Shared and private allocations.
    pub slots: PrimaryMap<Slot, SlotData>,
    /// Values, instructions and blocks.
    pub dfg: DataFlowGraph,
    /// The blocks in order; the first is the entry block.
    pub layout: Vec<Block>,
    /// Where each instruction is written in the source the function came from
    /// ([`SourceLoc::NONE`] where unknown; see [`crate::srcloc`]). Empty until one is set.
    pub srclocs: SecondaryMap<Inst, SourceLoc>,
}

impl Function {
    /// An empty function with the given name, kind and signature.
    pub fn new(name: impl Into<String>, kind: FuncKind, signature: Signature) -> Function {
        Function {
            name: name.into(),
            kind,
            signature,
            slots: PrimaryMap::new(),
            dfg: DataFlowGraph::default(),
            layout: Vec::new(),
            srclocs: SecondaryMap::new(),
        }
    }

    /// Whether this function is a kernel.
    pub fn is_kernel(&self) -> bool {
        matches!(self.kind, FuncKind::Kernel(_))
    }

    /// The kernel attributes, for a kernel.
    pub fn kernel_attrs(&self) -> Option<&KernelAttrs> {
        match &self.kind {
            FuncKind::Kernel(attrs) => Some(attrs),
            FuncKind::Helper => None,
        }
    }

    /// The entry block, if the function has any block.
    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    /// The result type of `data` in this function (see [`DataFlowGraph::result_type`]).
    pub fn result_type(&self, data: &InstData, callee_ret: impl Fn(FuncId) -> Option<Type>) -> Option<Type> {
        match data {
            InstData::SlotAddr { slot } => Some(Type::Ptr(self.slots.get(*slot)?.space)),
            _ => self.dfg.result_type(data, callee_ret),
        }
    }

    /// The instructions of the function in layout order, with their blocks.
    pub fn insts_in_layout(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout.iter().flat_map(move |&b| self.dfg.blocks[b].insts.iter().map(move |&i| (b, i)))
    }

    /// Sets the source location of `inst`; setting no location where none is keeps the
    /// table empty, so a function built without locations costs nothing.
    pub fn set_srcloc(&mut self, inst: Inst, loc: SourceLoc) {
        if !loc.is_none() || self.srclocs.get(inst).is_some_and(|l| !l.is_none()) {
            self.srclocs[inst] = loc;
        }
    }

    /// Where `block` is written: the location of its first instruction that has one
    /// ([`SourceLoc::NONE`] if none has), for errors about a block.
    pub fn block_srcloc(&self, block: Block) -> SourceLoc {
        let insts = self.dfg.blocks.get(block).map_or(&[][..], |b| &b.insts[..]);
        insts.iter().map(|&i| self.srclocs[i]).find(|l| !l.is_none()).unwrap_or_default()
    }

    /// Renumbers blocks, values and instructions in layout order, resolves aliases, and drops
    /// everything outside the layout, so that entity numbers match the printed text. Source
    /// locations follow their instructions.
    pub fn canonicalize(&mut self) {
        let mut old = std::mem::take(&mut self.dfg);
        let old_srclocs = std::mem::take(&mut self.srclocs);
        // Every table sized up front: the new function is at most as large as the old one.
        let mut block_map: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
        block_map.resize(old.blocks.len());
        for (k, &b) in self.layout.iter().enumerate() {
            block_map[b] = Block::from_u32(k as u32).into();
        }
        let mut value_map: SecondaryMap<Value, PackedOption<Value>> = SecondaryMap::new();
        value_map.resize(old.values.len());
        let mut new = DataFlowGraph::default();
        new.values.reserve(old.values.len());
        // First define every value in layout order, so forward references can be mapped: the
        // instructions are numbered in the same order below, so each result's instruction is
        // known here.
        let mut insts = 0u32;
        for &b in &self.layout {
            let nb = block_map[b].unwrap();
            for (index, &p) in old.blocks[b].params.iter().enumerate() {
                let def = ValueDef::Param(nb, index as u32);
                value_map[p] = new.values.push(ValueData { ty: old.values[p].ty, def }).into();
            }
            for &i in &old.blocks[b].insts {
                if let Some(r) = old.inst_result(i) {
                    let def = ValueDef::Result(Inst::from_u32(insts));
                    value_map[r] = new.values.push(ValueData { ty: old.values[r].ty, def }).into();
                }
                insts += 1;
            }
        }
        new.insts.reserve(insts as usize);
        new.results.resize(insts as usize);
        new.blocks.reserve(self.layout.len());
        let mut srclocs = SecondaryMap::new();
        if !old_srclocs.is_empty() {
            srclocs.resize(insts as usize);
        }
        // Then move each block's lists and instructions over, renumbered: nothing is copied,
        // and the blocks keep their vectors.
        for &b in &self.layout {
            let mut data = std::mem::take(&mut old.blocks[b]);
            for p in &mut data.params {
                *p = value_map[*p].unwrap();
            }
            for i in &mut data.insts {
                let mut inst = std::mem::replace(&mut old.insts[*i], InstData::Unreachable);
                for a in inst.args_mut() {
                    *a = map_value(*a, &old, &mut value_map, &mut new);
                }
                for call in inst.block_calls_mut() {
                    call.block = block_map[call.block].expand().unwrap_or(call.block);
                    for a in call.args.iter_mut() {
                        *a = map_value(*a, &old, &mut value_map, &mut new);
                    }
                }
                let ni = new.insts.push(inst);
                if !old_srclocs[*i].is_none() {
                    srclocs[ni] = old_srclocs[*i];
                }
                new.results[ni] = old.inst_result(*i).and_then(|r| value_map[r].expand()).into();
                *i = ni;
            }
            new.blocks.push(data);
        }
        for b in &mut self.layout {
            *b = block_map[*b].unwrap();
        }
        self.dfg = new;
        self.srclocs = srclocs;
    }
}

/// The new number of `v` (after aliases); a value with no definition in the layout becomes a
/// new pending value, which the verifier reports.
fn map_value(
    v: Value,
    old: &DataFlowGraph,
    value_map: &mut SecondaryMap<Value, PackedOption<Value>>,
    new: &mut DataFlowGraph,
) -> Value {
    let v = old.resolve_aliases(v);
    if let Some(n) = value_map[v].expand() {
        return n;
    }
    let n = new.make_pending_value(old.values[v].ty);
    value_map[v] = n.into();
    n
}

/// A module: kernels and the helper functions they call.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Every function, in the order of the text.
    pub functions: PrimaryMap<FuncId, Function>,
}

impl Module {
    /// Adds a function.
    pub fn push(&mut self, func: Function) -> FuncId {
        self.functions.push(func)
    }

    /// Finds a function by name.
    pub fn find(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().find(|(_, f)| f.name == name).map(|(id, _)| id)
    }

    /// The kernels of the module, in order.
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions.iter().filter(|(_, f)| f.is_kernel())
    }
}
