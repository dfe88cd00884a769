//! The IR verifier: checks that a module is well formed before anything else looks at it.
//!
//! Everything downstream (the reference interpreter, instruction selection, the analyses) may
//! assume a verified module and is allowed to panic on one that is not, so every invariant those
//! passes rely on is checked here, and reported with the function, block and printed
//! instruction where it is broken. [`verify_module`] checks a whole module, [`verify_function`]
//! one function of it. Both collect every error of a function rather than stopping at the first,
//! but an error that makes further checks meaningless suppresses them (an instruction with an
//! operand that does not exist is not type-checked; a function whose blocks are malformed gets
//! no dominance check; an instruction that already has an error gets no result-type check).
//!
//! What is checked, rule by rule (each rule is a [`VerifierErrorKind`]):
//!
//! - **Module**: function names are unique; the call graph has no cycle (recursion is rejected,
//!   because kernels cannot keep a call stack cheaply; the error is reported at the call that
//!   closes a cycle in a depth-first walk of the call graph in module order).
//! - **Function**: at least one block; kernels declare no return type; kernel attributes are
//!   consistent; slots are shared or private, of non-zero size, aligned to a power of two, and
//!   shared slots only exist in kernels (a workgroup allocation belongs to the dispatch).
//! - **Structure**: every block of the layout exists, appears once, is non-empty and ends with
//!   exactly one terminator; every instruction exists and appears in at most one block; branch
//!   targets are blocks of the layout and never the entry block (so the entry block's
//!   parameters are exactly the function's parameters, which must match the signature).
//! - **Values**: every operand exists, is defined (a block parameter or an instruction result,
//!   not an alias or a pending value), and is defined in the layout; block parameters and
//!   results point back to their block or instruction; every use is dominated by its
//!   definition. Uses in blocks unreachable from the entry are exempt from dominance, not from
//!   typing.
//! - **Types**: each opcode's operand types (see the rules at each [`VerifierErrorKind`]),
//!   branch and call arguments against the parameters they feed, `ret` against the signature,
//!   and the result type against [`Function::result_type`].
//! - **Memory**: the address operand is a pointer; the accessed type has a memory size; the
//!   alignment is a power of two; nothing writes through `ptr<constant>`; the `visible` and
//!   `available` flags (store-available / load-visible of AMDGPUMemoryModel-av.rst) only on
//!   global and flat pointers, since only those go through the caches the scope refers to;
//!   atomics only on global, shared or flat memory (an atomic load may read constant memory),
//!   on the types the hardware has atomics for, with orderings that make sense for the
//!   operation (no release load, no acquire store, no relaxed fence).
//! - **Kernels only**: `barrier` and `dyn_shared_addr` (which also needs the `dynamic_shared`
//!   attribute), and shared slots. Geometry values (`local_id.x`, `lane_id`, ...) are allowed in
//!   helpers too: helpers only ever run inside a kernel's dispatch.

use crate::cfg::ControlFlowGraph;
use crate::dominator_tree::DominatorTree;
use crate::entities::{Block, FuncId, Inst, Slot, Value};
use crate::function::{Function, Module, ValueDef};
use crate::instructions::{BinaryOp, ConvOp, InstData, MemFlags, Ordering, ReduceOp, RmwOp, SyncInfo, UnaryOp};
use crate::types::{AddrSpace, Type};
use crate::write::inst_to_string;
use cranelift_entity::SecondaryMap;
use foldhash::fast::FixedState;
use std::collections::{HashMap, HashSet};
use std::fmt;
use thiserror::Error;

/// Every error found in a module or function, in order (function, then block and instruction
/// in layout order). Displays one error per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}

/// One broken rule, with where it is broken.
///
/// Displays as `@func, blockN, `instruction text`: message`, leaving out the block and the
/// instruction when the error is about the function or the block as a whole.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct VerifierError {
    /// The name of the function (without the `@`).
    pub func: String,
    /// The block, when the error is in one.
    pub block: Option<Block>,
    /// The instruction, when the error is about one.
    pub inst: Option<Inst>,
    /// The instruction as the printer writes it (`inst_to_string`), when there is one. An
    /// instruction too broken to print (an operand that does not exist) is shown in debug form.
    pub inst_text: Option<String>,
    /// What is wrong.
    pub kind: VerifierErrorKind,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.func)?;
        if let Some(block) = self.block {
            write!(f, ", {block}")?;
        }
        if let Some(text) = &self.inst_text {
            write!(f, ", `{text}`")?;
        }
        write!(f, ": {}", self.kind)
    }
}

/// A type list as `(i32, f32)`.
fn type_list(types: &[Type]) -> String {
    let items: Vec<String> = types.iter().map(Type::to_string).collect();
    format!("({})", items.join(", "))
}

/// An optional type, `nothing` when absent.
fn opt_type(ty: &Option<Type>) -> String {
    match ty {
        Some(t) => t.to_string(),
        None => "nothing".to_string(),
    }
}

/// The rule a [`VerifierError`] breaks. Each message says what is wrong and names the types,
/// values, blocks or functions involved.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum VerifierErrorKind {
    // ---- Module and function ----
    /// Two functions of the module have the same name.
    #[error("another function ({first}) already has this name")]
    DuplicateFunctionName {
        /// The first function with the name.
        first: FuncId,
    },
    /// The function has no blocks.
    #[error("function has no blocks")]
    NoBlocks,
    /// A kernel's signature declares a return type.
    #[error("kernels return nothing, but the signature declares a return type {ty}")]
    KernelReturnType {
        /// The declared return type.
        ty: Type,
    },
    /// A kernel's attributes are inconsistent.
    #[error("invalid kernel attributes: {reason}")]
    BadKernelAttrs {
        /// What is inconsistent.
        reason: String,
    },
    /// A slot is in an address space other than shared or private.
    #[error("{slot} is in {} memory, but slots are shared or private", .space.name())]
    SlotSpace {
        /// The slot.
        slot: Slot,
        /// Its address space.
        space: AddrSpace,
    },
    /// A helper function has a shared slot.
    #[error("{slot} is a shared slot, but only kernels may have shared slots")]
    SharedSlotInHelper {
        /// The slot.
        slot: Slot,
    },
    /// A slot has size 0.
    #[error("{slot} has size 0")]
    SlotSize {
        /// The slot.
        slot: Slot,
    },
    /// A slot's alignment is not a power of two.
    #[error("{slot} has alignment {align}, which is not a power of two")]
    SlotAlign {
        /// The slot.
        slot: Slot,
        /// Its alignment.
        align: u32,
    },

    // ---- Structure ----
    /// A block in the layout does not exist in the function's block table.
    #[error("block is in the layout but does not exist")]
    UnknownBlock,
    /// A block appears more than once in the layout.
    #[error("block appears more than once in the layout")]
    DuplicateBlock,
    /// A block has no instructions.
    #[error("block has no instructions (it needs at least a terminator)")]
    EmptyBlock,
    /// A block's last instruction is not a terminator.
    #[error("block does not end with a terminator")]
    MissingTerminator,
    /// A terminator is followed by more instructions of its block.
    #[error("terminator before the end of the block")]
    TerminatorNotLast,
    /// A block lists an instruction that does not exist.
    #[error("instruction does not exist")]
    UnknownInst,
    /// An instruction appears twice in the layout.
    #[error("instruction already appears in {other}")]
    DuplicateInst {
        /// The block where it appears first.
        other: Block,
    },
    /// The entry block's parameters differ from the signature's parameters.
    #[error(
        "entry block parameters {} do not match the function's parameters {}",
        type_list(.found),
        type_list(.expected)
    )]
    EntryParams {
        /// The signature's parameter types.
        expected: Vec<Type>,
        /// The entry block's parameter types.
        found: Vec<Type>,
    },
    /// A block parameter's definition does not point back to its block and position.
    #[error("block parameter {value} is not defined as parameter {index} of this block")]
    BlockParamDef {
        /// The parameter.
        value: Value,
        /// Its position in the block's parameter list.
        index: usize,
    },

    // ---- Values ----
    /// A value (operand, result or block parameter) does not exist in the value table.
    #[error("{value} does not exist")]
    UnknownValue {
        /// The value.
        value: Value,
    },
    /// An operand is an alias or a pending value, not a block parameter or a result.
    #[error("{value} has no definition")]
    UndefinedValue {
        /// The operand.
        value: Value,
    },
    /// An operand is defined in a block or by an instruction outside the layout.
    #[error("{value} is defined outside the function's layout")]
    DefNotInLayout {
        /// The operand.
        value: Value,
    },
    /// An instruction's result value is not defined as that instruction's result.
    #[error("result {value} is not defined by this instruction")]
    ResultDef {
        /// The result value.
        value: Value,
    },
    /// A use is not dominated by the definition of the value.
    #[error("{value} is used where its definition does not dominate the use")]
    NotDominated {
        /// The operand.
        value: Value,
    },

    // ---- Control flow ----
    /// A branch targets a block that is not in the layout.
    #[error("branch target {target} is not a block of the function")]
    BranchTargetNotInLayout {
        /// The target.
        target: Block,
    },
    /// A branch targets the entry block.
    #[error("branch to the entry block {target}: the entry block cannot be a branch target")]
    BranchToEntry {
        /// The entry block.
        target: Block,
    },
    /// A branch passes the wrong number of arguments to its target.
    #[error("{target} takes {expected} arguments, but the branch passes {found}")]
    BlockArgCount {
        /// The target.
        target: Block,
        /// The target's parameter count.
        expected: usize,
        /// The number of arguments passed.
        found: usize,
    },
    /// A branch argument's type differs from its parameter's type.
    #[error("argument {index} to {target} has type {found}, but the parameter has type {expected}")]
    BlockArgType {
        /// The target.
        target: Block,
        /// The argument's position.
        index: usize,
        /// The parameter's type.
        expected: Type,
        /// The argument's type.
        found: Type,
    },
    /// A `brif` condition is not `i1`.
    #[error("brif condition must be i1, not {ty}")]
    BrifCondType {
        /// The condition's type.
        ty: Type,
    },
    /// A `switch` operand is not an integer.
    #[error("switch needs an integer operand, not {ty}")]
    SwitchType {
        /// The operand's type.
        ty: Type,
    },
    /// A `switch` does not have exactly one destination per case plus the default.
    #[error("switch has {cases} cases and {dests} destinations, but needs one destination per case plus the default")]
    SwitchShape {
        /// The number of cases.
        cases: usize,
        /// The number of destinations.
        dests: usize,
    },
    /// A `switch` case value has bits outside the operand type.
    #[error("switch case {case:#x} does not fit in {ty}")]
    SwitchCaseRange {
        /// The case value (as stored, zero-extended).
        case: u64,
        /// The operand type.
        ty: Type,
    },
    /// Two cases of a `switch` have the same value.
    #[error("switch case {case:#x} appears more than once")]
    DuplicateSwitchCase {
        /// The case value.
        case: u64,
    },
    /// A `ret` does not return what the function's signature says.
    #[error("function returns {}, but ret gives {}", opt_type(.expected), opt_type(.found))]
    ReturnType {
        /// What the function returns (nothing for kernels).
        expected: Option<Type>,
        /// What the `ret` gives.
        found: Option<Type>,
    },

    // ---- Constants and arithmetic ----
    /// `iconst` of a type that is neither an integer nor a pointer.
    #[error("iconst needs an integer or pointer type, not {ty}")]
    IntConstType {
        /// The constant's type.
        ty: Type,
    },
    /// `fconst` of a type that is not a float.
    #[error("fconst needs a float type, not {ty}")]
    FloatConstType {
        /// The constant's type.
        ty: Type,
    },
    /// A constant has bits set above its type's width (constants are held zero-extended, so an
    /// `i1` constant is 0 or 1).
    #[error("constant bits {bits:#x} do not fit in {ty} (constants are held zero-extended)")]
    ConstRange {
        /// The constant's type.
        ty: Type,
        /// The stored bits.
        bits: u64,
    },
    /// A unary operation on an operand of the wrong type.
    #[error("{op} needs {expected}, got {ty}")]
    UnaryType {
        /// The operation.
        op: UnaryOp,
        /// The operand types it accepts.
        expected: &'static str,
        /// The operand's type.
        ty: Type,
    },
    /// A binary operation on operands of two different types.
    #[error("operands of {op} have different types {lhs} and {rhs}")]
    BinaryMismatch {
        /// The operation.
        op: BinaryOp,
        /// The first operand's type.
        lhs: Type,
        /// The second operand's type.
        rhs: Type,
    },
    /// A binary operation on operands of the wrong type.
    #[error("{op} needs {expected}, got {ty}")]
    BinaryType {
        /// The operation.
        op: BinaryOp,
        /// The operand types it accepts.
        expected: &'static str,
        /// The operands' type.
        ty: Type,
    },
    /// `fma` whose operands are not all of one float type.
    #[error("fma needs three operands of one float type, got {}", type_list(.types))]
    FmaType {
        /// The operand types.
        types: Vec<Type>,
    },
    /// A `select` condition that is not `i1`.
    #[error("select condition must be i1, not {ty}")]
    SelectCondType {
        /// The condition's type.
        ty: Type,
    },
    /// A `select` whose arms have different types.
    #[error("arms of select have different types {lhs} and {rhs}")]
    SelectMismatch {
        /// The type of the value if true.
        lhs: Type,
        /// The type of the value if false.
        rhs: Type,
    },
    /// `icmp` whose operands are not of one integer or pointer type.
    #[error("icmp needs two operands of one integer or pointer type, got {lhs} and {rhs}")]
    IcmpType {
        /// The first operand's type.
        lhs: Type,
        /// The second operand's type.
        rhs: Type,
    },
    /// `fcmp` whose operands are not of one float type.
    #[error("fcmp needs two operands of one float type, got {lhs} and {rhs}")]
    FcmpType {
        /// The first operand's type.
        lhs: Type,
        /// The second operand's type.
        rhs: Type,
    },
    /// A conversion between types it does not convert.
    #[error("{op} cannot convert {from} to {to}: {rule}")]
    ConvertType {
        /// The conversion.
        op: ConvOp,
        /// The operand's type.
        from: Type,
        /// The result type.
        to: Type,
        /// What the conversion needs.
        rule: &'static str,
    },
    /// `ptradd` not of a pointer and an `i32` or `i64` offset.
    #[error("ptradd needs a pointer and an i32 or i64 offset, got {ptr} and {offset}")]
    PtrAddType {
        /// The first operand's type.
        ptr: Type,
        /// The offset's type.
        offset: Type,
    },
    /// `addrspacecast` that is not between a pointer and a flat pointer.
    #[error("addrspacecast converts a pointer to or from ptr<flat> (exactly one side flat), not {from} to {to}")]
    AddrSpaceCastType {
        /// The operand's type.
        from: Type,
        /// The result type.
        to: Type,
    },

    // ---- Slots, geometry, kernels ----
    /// `slot_addr` of a slot that does not exist.
    #[error("{slot} does not exist")]
    UnknownSlot {
        /// The slot.
        slot: Slot,
    },
    /// `dyn_shared_addr` outside a kernel with the `dynamic_shared` attribute.
    #[error("dyn_shared_addr needs a kernel with the dynamic_shared attribute")]
    DynSharedWithoutAttr,
    /// `barrier` in a helper function.
    #[error("barrier is only allowed in kernels, not in helper functions")]
    BarrierInHelper,

    // ---- Memory ----
    /// A memory access whose address operand is not a pointer.
    #[error("the address operand of {what} must be a pointer, not {ty}")]
    NotAPointer {
        /// The opcode.
        what: &'static str,
        /// The operand's type.
        ty: Type,
    },
    /// A load or store of a type without a memory representation (`i1`).
    #[error("{ty} has no memory representation and cannot be loaded or stored")]
    NoMemoryType {
        /// The accessed type.
        ty: Type,
    },
    /// An alignment that is not a power of two.
    #[error("alignment {align} is not a power of two")]
    BadAlign {
        /// The alignment.
        align: u32,
    },
    /// A store or an atomic write through a `ptr<constant>`.
    #[error("{what} writes through a ptr<constant>, which is read-only")]
    WriteToConstant {
        /// The opcode.
        what: &'static str,
    },
    /// `visible(..)` or `available(..)` on a pointer that is not global or flat.
    #[error("{flag}(..) is only allowed on global or flat pointers, not ptr<{}>", .space.name())]
    AvSpace {
        /// `visible` (loads) or `available` (stores).
        flag: &'static str,
        /// The pointer's address space.
        space: AddrSpace,
    },
    /// An atomic on memory without atomics (private, or constant for a write).
    #[error("{what} cannot access ptr<{}>: atomics need global, shared or flat memory", .space.name())]
    AtomicSpace {
        /// The opcode.
        what: &'static str,
        /// The pointer's address space.
        space: AddrSpace,
    },
    /// An atomic read-modify-write on a type its operation does not support.
    #[error("atomic_rmw.{op} needs {expected}, got {ty}")]
    AtomicRmwType {
        /// The operation.
        op: RmwOp,
        /// The types it accepts.
        expected: &'static str,
        /// The value's type.
        ty: Type,
    },
    /// `atomic_cas` whose expected and new values are not of one type `i32` or `i64`.
    #[error("atomic_cas needs expected and new values of one type, i32 or i64, got {expected} and {new}")]
    CasType {
        /// The expected value's type.
        expected: Type,
        /// The new value's type.
        new: Type,
    },
    /// `atomic_load` or `atomic_store` of a type that is not 32 or 64 bits wide.
    #[error("{what} needs a 32- or 64-bit type (integer, float or pointer), got {ty}")]
    AtomicAccessType {
        /// The opcode.
        what: &'static str,
        /// The accessed type.
        ty: Type,
    },
    /// An ordering that the operation cannot have.
    #[error("{what} cannot have {ordering} ordering")]
    BadOrdering {
        /// The opcode.
        what: &'static str,
        /// The ordering.
        ordering: Ordering,
    },

    // ---- Wave operations ----
    /// `ballot` of a value that is not `i1`.
    #[error("ballot needs an i1 operand, not {ty}")]
    BallotType {
        /// The operand's type.
        ty: Type,
    },
    /// `readfirstlane` or `shuffle` of an `i1` value.
    #[error("{what} cannot operate on i1 values")]
    WaveValueType {
        /// The opcode.
        what: &'static str,
    },
    /// A `shuffle` lane that is not `i32`.
    #[error("shuffle lane must be i32, not {ty}")]
    ShuffleLaneType {
        /// The lane operand's type.
        ty: Type,
    },
    /// A reduction on a type its operation does not support.
    #[error("reduce.{op} needs {expected}, got {ty}")]
    ReduceType {
        /// The operation.
        op: ReduceOp,
        /// The types it accepts.
        expected: &'static str,
        /// The operand's type.
        ty: Type,
    },

    // ---- Calls ----
    /// A call of a function that does not exist.
    #[error("callee {callee} does not exist")]
    UnknownCallee {
        /// The callee.
        callee: FuncId,
    },
    /// A call of a kernel.
    #[error("call of kernel @{callee}: only helper functions can be called")]
    CallToKernel {
        /// The kernel's name.
        callee: String,
    },
    /// A call with the wrong number of arguments.
    #[error("@{callee} takes {expected} arguments, but the call passes {found}")]
    CallArgCount {
        /// The callee's name.
        callee: String,
        /// The callee's parameter count.
        expected: usize,
        /// The number of arguments passed.
        found: usize,
    },
    /// A call argument whose type differs from the callee's parameter.
    #[error("argument {index} of the call of @{callee} has type {found}, but the parameter has type {expected}")]
    CallArgType {
        /// The callee's name.
        callee: String,
        /// The argument's position.
        index: usize,
        /// The parameter's type.
        expected: Type,
        /// The argument's type.
        found: Type,
    },
    /// A call that closes a cycle in the call graph.
    #[error("call closes a cycle in the call graph ({cycle}): recursion is not supported")]
    Recursion {
        /// The cycle, as `@f -> @g -> @f`.
        cycle: String,
    },

    // ---- Results ----
    /// The result's type (or its presence) differs from what the instruction computes.
    #[error("the result is {}, but the instruction computes {}", opt_type(.found), opt_type(.expected))]
    ResultType {
        /// What the instruction computes ([`Function::result_type`]).
        expected: Option<Type>,
        /// The result value's type.
        found: Option<Type>,
    },
}

/// Verifies every function of `module`, and the module-wide rules (unique names, no recursion).
pub fn verify_module(module: &Module) -> Result<(), VerifierErrors> {
    let cycles = call_cycles(module);
    let mut errors = Vec::new();
    for id in module.functions.keys() {
        FuncVerifier::new(module, id, &cycles, &mut errors).run();
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(errors))
    }
}

/// Verifies one function of `module` (which provides the callees' signatures and names). A
/// recursion is reported here only when the call closing the cycle (see [`verify_module`]) is
/// in this function.
///
/// # Panics
///
/// If `func` is not a function of `module`.
pub fn verify_function(module: &Module, func: FuncId) -> Result<(), VerifierErrors> {
    let cycles = call_cycles(module);
    let mut errors = Vec::new();
    FuncVerifier::new(module, func, &cycles, &mut errors).run();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(errors))
    }
}

/// The calls that close a cycle of the call graph, with the cycle as text.
///
/// A depth-first walk over the functions in module order, following each function's calls of
/// existing helpers in layout order; a call whose callee is on the walk's stack closes a cycle.
/// Every cycle contains at least one such call. The walk is iterative, so a deep call chain
/// cannot overflow the stack.
fn call_cycles(module: &Module) -> HashMap<(FuncId, Inst), String, FixedState> {
    let n = module.functions.len();
    let mut edges: Vec<Vec<(Inst, FuncId)>> = vec![Vec::new(); n];
    for (id, func) in module.functions.iter() {
        let mut seen: HashSet<_, FixedState> = HashSet::default();
        for &block in &func.layout {
            let Some(data) = func.dfg.blocks.get(block) else { continue };
            for &inst in &data.insts {
                if let Some(InstData::Call { func: callee, .. }) = func.dfg.insts.get(inst) {
                    let helper = module.functions.get(*callee).is_some_and(|c| !c.is_kernel());
                    if helper && seen.insert(inst) {
                        edges[id.as_u32() as usize].push((inst, *callee));
                    }
                }
            }
        }
    }

    #[derive(Copy, Clone, PartialEq)]
    enum State {
        New,
        Active,
        Done,
    }
    let mut state = vec![State::New; n];
    let mut cycles = HashMap::default();
    for root in module.functions.keys() {
        if state[root.as_u32() as usize] != State::New {
            continue;
        }
        state[root.as_u32() as usize] = State::Active;
        let mut stack: Vec<(FuncId, usize)> = vec![(root, 0)];
        while let Some((caller, next)) = stack.last_mut() {
            let caller = *caller;
            match edges[caller.as_u32() as usize].get(*next) {
                Some(&(inst, callee)) => {
                    *next += 1;
                    match state[callee.as_u32() as usize] {
                        State::New => {
                            state[callee.as_u32() as usize] = State::Active;
                            stack.push((callee, 0));
                        }
                        State::Active => {
                            let start = stack.iter().position(|&(f, _)| f == callee).unwrap_or(0);
                            let mut names: Vec<String> =
                                stack[start..].iter().map(|&(f, _)| format!("@{}", module.functions[f].name)).collect();
                            names.push(format!("@{}", module.functions[callee].name));
                            cycles.insert((caller, inst), names.join(" -> "));
                        }
                        State::Done => {}
                    }
                }
                None => {
                    state[caller.as_u32() as usize] = State::Done;
                    stack.pop();
                }
            }
        }
    }
    cycles
}

/// The checks of one function, collecting errors.
struct FuncVerifier<'a> {
    module: &'a Module,
    id: FuncId,
    func: &'a Function,
    cycles: &'a HashMap<(FuncId, Inst), String, FixedState>,
    errors: &'a mut Vec<VerifierError>,
    /// Blocks of the layout (existing ones, first occurrence).
    in_layout: SecondaryMap<Block, bool>,
    /// The block and position of each instruction placed in the layout (first occurrence).
    inst_pos: SecondaryMap<Inst, Option<(Block, u32)>>,
    /// The instruction whose operands last named each value (its number plus one), so that
    /// each operand of an instruction is checked once without a set per instruction.
    seen_by: SecondaryMap<Value, u32>,
}

impl<'a> FuncVerifier<'a> {
    fn new(
        module: &'a Module,
        id: FuncId,
        cycles: &'a HashMap<(FuncId, Inst), String, FixedState>,
        errors: &'a mut Vec<VerifierError>,
    ) -> Self {
        FuncVerifier {
            module,
            id,
            func: &module.functions[id],
            cycles,
            errors,
            in_layout: SecondaryMap::new(),
            inst_pos: SecondaryMap::new(),
            seen_by: SecondaryMap::with_capacity(module.functions[id].dfg.values.len()),
        }
    }

    /// Records an error at `block` / `inst`.
    fn report(&mut self, block: Option<Block>, inst: Option<Inst>, kind: VerifierErrorKind) {
        let inst_text = inst.map(|i| self.inst_text(i));
        self.errors.push(VerifierError { func: self.func.name.clone(), block, inst, inst_text, kind });
    }

    /// The printed instruction, or a debug form when printing it would look up values that do
    /// not exist.
    fn inst_text(&self, inst: Inst) -> String {
        let dfg = &self.func.dfg;
        let Some(data) = dfg.insts.get(inst) else { return inst.to_string() };
        let printable = data.args().iter().all(|&v| dfg.values.is_valid(v))
            && !matches!(data, InstData::Switch { dests, .. } if dests.is_empty());
        if printable {
            inst_to_string(self.module, self.func, inst)
        } else {
            format!("{inst}: {data:?}")
        }
    }

    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    fn run(&mut self) {
        self.check_function();
        let blocks = self.check_layout();
        let mut structure_ok = blocks.len() == self.func.layout.len() && !blocks.is_empty();
        let mut placed = Vec::new();
        for &block in &blocks {
            structure_ok &= self.check_block_insts(block, &mut placed);
        }
        for &block in &blocks {
            self.check_block_params(block);
        }
        self.check_entry_params();

        // Dominance needs a CFG, which needs well-formed blocks and targets.
        let targets_ok = placed
            .iter()
            .all(|&(_, _, inst)| self.func.dfg.insts[inst].block_calls().iter().all(|call| self.in_layout[call.block]));
        let domtree = (structure_ok && targets_ok).then(|| {
            let cfg = ControlFlowGraph::new(self.func);
            DominatorTree::new(self.func, &cfg)
        });

        for &(block, pos, inst) in &placed {
            self.check_inst(block, pos, inst, domtree.as_ref());
        }
    }

    /// Names, kernel rules and slots.
    fn check_function(&mut self) {
        let func = self.func;
        if let Some(first) = self.module.functions.iter().find(|(_, f)| f.name == func.name).map(|(id, _)| id) {
            if first != self.id {
                self.report(None, None, VerifierErrorKind::DuplicateFunctionName { first });
            }
        }
        if let Some(attrs) = func.kernel_attrs() {
            if let Some(ty) = func.signature.ret {
                self.report(None, None, VerifierErrorKind::KernelReturnType { ty });
            }
            let mut reasons = Vec::new();
            if let Some(size) = attrs.reqd_workgroup_size {
                if size.contains(&0) {
                    reasons.push(format!(
                        "reqd_workgroup_size({}, {}, {}) has a zero dimension",
                        size[0], size[1], size[2]
                    ));
                } else if let Some(max) = attrs.max_workgroup_size {
                    let total = size.iter().map(|&d| d as u64).product::<u64>();
                    if total > max as u64 {
                        reasons.push(format!(
                            "reqd_workgroup_size({}, {}, {}) has {total} work-items, more than max_workgroup_size({max})",
                            size[0], size[1], size[2]
                        ));
                    }
                }
            }
            if attrs.max_workgroup_size == Some(0) {
                reasons.push("max_workgroup_size(0) allows no work-item".to_string());
            }
            if attrs.waves_per_simd == Some(0) {
                reasons.push("waves_per_simd(0) asks for no wave".to_string());
            }
            for reason in reasons {
                self.report(None, None, VerifierErrorKind::BadKernelAttrs { reason });
            }
        }
        for (slot, data) in func.slots.iter() {
            match data.space {
                AddrSpace::Shared if !func.is_kernel() => {
                    self.report(None, None, VerifierErrorKind::SharedSlotInHelper { slot })
                }
                AddrSpace::Shared | AddrSpace::Private => {}
                space => self.report(None, None, VerifierErrorKind::SlotSpace { slot, space }),
            }
            if data.size == 0 {
                self.report(None, None, VerifierErrorKind::SlotSize { slot });
            }
            if !data.align.is_power_of_two() {
                self.report(None, None, VerifierErrorKind::SlotAlign { slot, align: data.align });
            }
        }
        if func.layout.is_empty() {
            self.report(None, None, VerifierErrorKind::NoBlocks);
        }
    }

    /// The existing, distinct blocks of the layout, in order.
    fn check_layout(&mut self) -> Vec<Block> {
        let mut blocks = Vec::new();
        for &block in &self.func.layout {
            if !self.func.dfg.blocks.is_valid(block) {
                self.report(Some(block), None, VerifierErrorKind::UnknownBlock);
            } else if self.in_layout[block] {
                self.report(Some(block), None, VerifierErrorKind::DuplicateBlock);
            } else {
                self.in_layout[block] = true;
                blocks.push(block);
            }
        }
        blocks
    }

    /// Instruction existence, uniqueness and terminator placement; appends the placed
    /// instructions to `placed`. Returns whether the block is well formed.
    fn check_block_insts(&mut self, block: Block, placed: &mut Vec<(Block, u32, Inst)>) -> bool {
        let insts = &self.func.dfg.blocks[block].insts;
        if insts.is_empty() {
            self.report(Some(block), None, VerifierErrorKind::EmptyBlock);
            return false;
        }
        let mut ok = true;
        let last = insts.len() - 1;
        for (pos, &inst) in insts.iter().enumerate() {
            let Some(data) = self.func.dfg.insts.get(inst) else {
                self.report(Some(block), Some(inst), VerifierErrorKind::UnknownInst);
                ok = false;
                continue;
            };
            if let Some((other, _)) = self.inst_pos[inst] {
                self.report(Some(block), Some(inst), VerifierErrorKind::DuplicateInst { other });
                ok = false;
                continue;
            }
            self.inst_pos[inst] = Some((block, pos as u32));
            placed.push((block, pos as u32, inst));
            if data.is_terminator() && pos != last {
                self.report(Some(block), Some(inst), VerifierErrorKind::TerminatorNotLast);
                ok = false;
            } else if !data.is_terminator() && pos == last {
                self.report(Some(block), Some(inst), VerifierErrorKind::MissingTerminator);
                ok = false;
            }
        }
        ok
    }

    /// Each block parameter exists and is defined as that parameter.
    fn check_block_params(&mut self, block: Block) {
        for (index, &value) in self.func.dfg.blocks[block].params.iter().enumerate() {
            match self.func.dfg.values.get(value) {
                None => self.report(Some(block), None, VerifierErrorKind::UnknownValue { value }),
                Some(data) if data.def != ValueDef::Param(block, index as u32) => {
                    self.report(Some(block), None, VerifierErrorKind::BlockParamDef { value, index })
                }
                Some(_) => {}
            }
        }
    }

    /// The entry block's parameters are the function's parameters.
    fn check_entry_params(&mut self) {
        let Some(entry) = self.func.entry() else { return };
        let Some(data) = self.func.dfg.blocks.get(entry) else { return };
        let Some(found) =
            data.params.iter().map(|&p| self.func.dfg.values.get(p).map(|d| d.ty)).collect::<Option<Vec<_>>>()
        else {
            return;
        };
        if found != self.func.signature.params {
            let expected = self.func.signature.params.clone();
            self.report(Some(entry), None, VerifierErrorKind::EntryParams { expected, found });
        }
    }

    /// Checks a use of `value` by the instruction at `pos` of `block`. Returns whether the value
    /// exists (so that its type can be read).
    fn check_use(&mut self, block: Block, pos: u32, inst: Inst, value: Value, domtree: Option<&DominatorTree>) -> bool {
        let dfg = &self.func.dfg;
        let Some(data) = dfg.values.get(value) else {
            self.report(Some(block), Some(inst), VerifierErrorKind::UnknownValue { value });
            return false;
        };
        // Where the definition is, if it is in the layout: its block and the position after
        // which the value is available (params: before every instruction).
        let def = match data.def {
            ValueDef::Alias(_) | ValueDef::Pending => {
                self.report(Some(block), Some(inst), VerifierErrorKind::UndefinedValue { value });
                return true;
            }
            ValueDef::Param(b, i) => {
                let placed = self.in_layout[b] && dfg.blocks[b].params.get(i as usize) == Some(&value);
                placed.then_some((b, None))
            }
            ValueDef::Result(def_inst) => match self.inst_pos[def_inst] {
                Some((b, p)) if dfg.inst_result(def_inst) == Some(value) => Some((b, Some(p))),
                _ => None,
            },
        };
        let Some((def_block, def_pos)) = def else {
            self.report(Some(block), Some(inst), VerifierErrorKind::DefNotInLayout { value });
            return true;
        };
        if let Some(dt) = domtree {
            if dt.is_reachable(block) {
                let dominated =
                    if def_block == block { def_pos.is_none_or(|p| p < pos) } else { dt.dominates(def_block, block) };
                if !dominated {
                    self.report(Some(block), Some(inst), VerifierErrorKind::NotDominated { value });
                }
            }
        }
        true
    }

    fn check_inst(&mut self, block: Block, pos: u32, inst: Inst, domtree: Option<&DominatorTree>) {
        let func = self.func;
        let data = &func.dfg.insts[inst];
        let errors_before = self.errors.len();

        // Operands, each reported once.
        let mut args_exist = true;
        let uses = data.args().iter().chain(data.block_calls().iter().flat_map(|c| c.args.iter()));
        let mark = inst.as_u32() + 1;
        // Values that do not exist cannot index a table (nor grow one to their number).
        let mut unknown: Vec<Value> = Vec::new();
        for &value in uses {
            let first = if func.dfg.values.is_valid(value) {
                std::mem::replace(&mut self.seen_by[value], mark) != mark
            } else if unknown.contains(&value) {
                false
            } else {
                unknown.push(value);
                true
            };
            if first {
                args_exist &= self.check_use(block, pos, inst, value, domtree);
            } else {
                args_exist &= func.dfg.values.is_valid(value);
            }
        }

        // The result points back here.
        let mut result_ty = None;
        if let Some(value) = func.dfg.inst_result(inst) {
            match func.dfg.values.get(value) {
                None => self.report(Some(block), Some(inst), VerifierErrorKind::UnknownValue { value }),
                Some(v) => {
                    result_ty = Some(v.ty);
                    if v.def != ValueDef::Result(inst) {
                        self.report(Some(block), Some(inst), VerifierErrorKind::ResultDef { value });
                    }
                }
            }
        }

        if !args_exist {
            return;
        }
        self.check_types(block, inst, data);

        if self.errors.len() == errors_before {
            let module = self.module;
            let expected = func.result_type(data, |f| module.functions.get(f).and_then(|f| f.signature.ret));
            let has_result = func.dfg.inst_result(inst).is_some();
            // An unknown result value was reported above; any other mismatch is reported here.
            if has_result == result_ty.is_some() && expected != result_ty {
                self.report(Some(block), Some(inst), VerifierErrorKind::ResultType { expected, found: result_ty });
            }
        }
    }

    /// The per-opcode typing rules. All operands exist.
    fn check_types(&mut self, block: Block, inst: Inst, data: &InstData) {
        use VerifierErrorKind as K;
        let mut errs: Vec<VerifierErrorKind> = Vec::new();
        let func = self.func;
        match data {
            InstData::IntConst { ty, imm } => {
                if !(ty.is_int() || ty.is_ptr()) {
                    errs.push(K::IntConstType { ty: *ty });
                } else if imm & !ty.mask() != 0 {
                    errs.push(K::ConstRange { ty: *ty, bits: *imm });
                }
            }
            InstData::FloatConst { ty, bits } => {
                if !ty.is_float() {
                    errs.push(K::FloatConstType { ty: *ty });
                } else if bits & !ty.mask() != 0 {
                    errs.push(K::ConstRange { ty: *ty, bits: *bits });
                }
            }
            InstData::Unary { op, arg } => {
                let ty = self.ty(*arg);
                let (ok, expected) = if op.is_float() {
                    (ty.is_float(), "a float operand")
                } else if *op == UnaryOp::Not {
                    (ty.is_int(), "an integer operand")
                } else {
                    (ty.is_int() && ty != Type::I1, "an integer operand other than i1")
                };
                if !ok {
                    errs.push(K::UnaryType { op: *op, expected, ty });
                }
            }
            InstData::Binary { op, args: [a, b] } => {
                let (lhs, rhs) = (self.ty(*a), self.ty(*b));
                if lhs != rhs {
                    errs.push(K::BinaryMismatch { op: *op, lhs, rhs });
                } else {
                    let (ok, expected) = if op.is_float() {
                        (lhs.is_float(), "float operands")
                    } else if matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor) {
                        (lhs.is_int(), "integer operands")
                    } else {
                        (lhs.is_int() && lhs != Type::I1, "integer operands other than i1")
                    };
                    if !ok {
                        errs.push(K::BinaryType { op: *op, expected, ty: lhs });
                    }
                }
            }
            InstData::Fma { args } => {
                let types: Vec<Type> = args.iter().map(|&v| self.ty(v)).collect();
                if !(types[0].is_float() && types.iter().all(|&t| t == types[0])) {
                    errs.push(K::FmaType { types });
                }
            }
            InstData::Select { args: [c, a, b] } => {
                let cond = self.ty(*c);
                if cond != Type::I1 {
                    errs.push(K::SelectCondType { ty: cond });
                }
                let (lhs, rhs) = (self.ty(*a), self.ty(*b));
                if lhs != rhs {
                    errs.push(K::SelectMismatch { lhs, rhs });
                }
            }
            InstData::Icmp { args: [a, b], .. } => {
                let (lhs, rhs) = (self.ty(*a), self.ty(*b));
                if lhs != rhs || !(lhs.is_int() || lhs.is_ptr()) {
                    errs.push(K::IcmpType { lhs, rhs });
                }
            }
            InstData::Fcmp { args: [a, b], .. } => {
                let (lhs, rhs) = (self.ty(*a), self.ty(*b));
                if lhs != rhs || !lhs.is_float() {
                    errs.push(K::FcmpType { lhs, rhs });
                }
            }
            InstData::Convert { op, ty, arg } => {
                let (from, to) = (self.ty(*arg), *ty);
                if let Err(rule) = convert_rule(*op, from, to) {
                    errs.push(K::ConvertType { op: *op, from, to, rule });
                }
            }
            InstData::PtrAdd { args: [p, o] } => {
                let (ptr, offset) = (self.ty(*p), self.ty(*o));
                if !ptr.is_ptr() || !matches!(offset, Type::I32 | Type::I64) {
                    errs.push(K::PtrAddType { ptr, offset });
                }
            }
            InstData::AddrSpaceCast { ty, arg } => {
                let from = self.ty(*arg);
                let ok = match (from.addr_space(), ty.addr_space()) {
                    (Some(a), Some(b)) => (a == AddrSpace::Flat) != (b == AddrSpace::Flat),
                    _ => false,
                };
                if !ok {
                    errs.push(K::AddrSpaceCastType { from, to: *ty });
                }
            }
            InstData::SlotAddr { slot } => {
                if !func.slots.is_valid(*slot) {
                    errs.push(K::UnknownSlot { slot: *slot });
                }
            }
            InstData::DynSharedAddr => {
                if !func.kernel_attrs().is_some_and(|a| a.dynamic_shared) {
                    errs.push(K::DynSharedWithoutAttr);
                }
            }
            InstData::Special { .. } => {}
            InstData::Load { ty, ptr, flags } => {
                if let Some(space) = self.pointer("load", *ptr, &mut errs) {
                    mem_flags_rules(flags, space, "visible", &mut errs);
                }
                if ty.bytes().is_none() {
                    errs.push(K::NoMemoryType { ty: *ty });
                }
            }
            InstData::Store { args: [p, v], flags } => {
                if let Some(space) = self.pointer("store", *p, &mut errs) {
                    if space == AddrSpace::Constant {
                        errs.push(K::WriteToConstant { what: "store" });
                    }
                    mem_flags_rules(flags, space, "available", &mut errs);
                }
                let ty = self.ty(*v);
                if ty.bytes().is_none() {
                    errs.push(K::NoMemoryType { ty });
                }
            }
            InstData::AtomicRmw { op, args: [p, v], sync } => {
                self.atomic_pointer("atomic_rmw", *p, true, &mut errs);
                let ty = self.ty(*v);
                let (ok, expected) = if *op == RmwOp::Xchg {
                    (matches!(ty, Type::I32 | Type::I64 | Type::F32 | Type::F64), "i32, i64, f32 or f64")
                } else if op.is_float() {
                    (matches!(ty, Type::F32 | Type::F64), "f32 or f64")
                } else {
                    (matches!(ty, Type::I32 | Type::I64), "i32 or i64")
                };
                if !ok {
                    errs.push(K::AtomicRmwType { op: *op, expected, ty });
                }
                ordering_rules("atomic_rmw", sync, &mut errs);
            }
            InstData::AtomicCas { args: [p, e, n], sync } => {
                self.atomic_pointer("atomic_cas", *p, true, &mut errs);
                let (expected, new) = (self.ty(*e), self.ty(*n));
                if expected != new || !matches!(expected, Type::I32 | Type::I64) {
                    errs.push(K::CasType { expected, new });
                }
                ordering_rules("atomic_cas", sync, &mut errs);
            }
            InstData::AtomicLoad { ty, ptr, sync } => {
                self.atomic_pointer("atomic_load", *ptr, false, &mut errs);
                if !matches!(ty.bytes(), Some(4 | 8)) {
                    errs.push(K::AtomicAccessType { what: "atomic_load", ty: *ty });
                }
                ordering_rules("atomic_load", sync, &mut errs);
            }
            InstData::AtomicStore { args: [p, v], sync } => {
                self.atomic_pointer("atomic_store", *p, true, &mut errs);
                let ty = self.ty(*v);
                if !matches!(ty.bytes(), Some(4 | 8)) {
                    errs.push(K::AtomicAccessType { what: "atomic_store", ty });
                }
                ordering_rules("atomic_store", sync, &mut errs);
            }
            InstData::Fence { sync } => ordering_rules("fence", sync, &mut errs),
            InstData::Barrier => {
                if !func.is_kernel() {
                    errs.push(K::BarrierInHelper);
                }
            }
            InstData::Ballot { arg } => {
                let ty = self.ty(*arg);
                if ty != Type::I1 {
                    errs.push(K::BallotType { ty });
                }
            }
            InstData::ReadFirstLane { arg } => {
                if self.ty(*arg) == Type::I1 {
                    errs.push(K::WaveValueType { what: "readfirstlane" });
                }
            }
            InstData::Shuffle { args: [v, lane] } => {
                if self.ty(*v) == Type::I1 {
                    errs.push(K::WaveValueType { what: "shuffle" });
                }
                let ty = self.ty(*lane);
                if ty != Type::I32 {
                    errs.push(K::ShuffleLaneType { ty });
                }
            }
            InstData::Reduce { op, arg } => {
                let ty = self.ty(*arg);
                let (ok, expected) = if op.is_float() {
                    (ty.is_float(), "f16, f32 or f64")
                } else {
                    (matches!(ty, Type::I32 | Type::I64), "i32 or i64")
                };
                if !ok {
                    errs.push(K::ReduceType { op: *op, expected, ty });
                }
            }
            InstData::Call { func: callee, args } => self.call_rules(inst, *callee, args, &mut errs),
            InstData::Jump { .. } => {}
            InstData::Brif { cond, .. } => {
                let ty = self.ty(*cond);
                if ty != Type::I1 {
                    errs.push(K::BrifCondType { ty });
                }
            }
            InstData::Switch { arg, cases, dests } => {
                let ty = self.ty(*arg);
                if !ty.is_int() {
                    errs.push(K::SwitchType { ty });
                } else {
                    let mut seen: HashSet<_, FixedState> = HashSet::default();
                    for &case in cases.iter() {
                        if case & !ty.mask() != 0 {
                            errs.push(K::SwitchCaseRange { case, ty });
                        } else if !seen.insert(case) {
                            errs.push(K::DuplicateSwitchCase { case });
                        }
                    }
                }
                if dests.len() != cases.len() + 1 {
                    errs.push(K::SwitchShape { cases: cases.len(), dests: dests.len() });
                }
            }
            InstData::Return { arg } => {
                let expected = if func.is_kernel() { None } else { func.signature.ret };
                let found = arg.map(|v| self.ty(v));
                if expected != found {
                    errs.push(K::ReturnType { expected, found });
                }
            }
            InstData::Unreachable => {}
        }
        for call in data.block_calls() {
            self.block_call_rules(call.block, &call.args, &mut errs);
        }
        for kind in errs {
            self.report(Some(block), Some(inst), kind);
        }
    }

    /// The address space of the pointer operand of a memory access, or an error.
    fn pointer(&self, what: &'static str, ptr: Value, errs: &mut Vec<VerifierErrorKind>) -> Option<AddrSpace> {
        let ty = self.ty(ptr);
        let space = ty.addr_space();
        if space.is_none() {
            errs.push(VerifierErrorKind::NotAPointer { what, ty });
        }
        space
    }

    /// The pointer operand of an atomic: global, shared or flat (or constant for a read).
    fn atomic_pointer(&self, what: &'static str, ptr: Value, writes: bool, errs: &mut Vec<VerifierErrorKind>) {
        match self.pointer(what, ptr, errs) {
            Some(AddrSpace::Constant) if writes => errs.push(VerifierErrorKind::WriteToConstant { what }),
            Some(space @ AddrSpace::Private) => errs.push(VerifierErrorKind::AtomicSpace { what, space }),
            _ => {}
        }
    }

    fn call_rules(&self, inst: Inst, callee: FuncId, args: &[Value], errs: &mut Vec<VerifierErrorKind>) {
        let Some(f) = self.module.functions.get(callee) else {
            errs.push(VerifierErrorKind::UnknownCallee { callee });
            return;
        };
        if f.is_kernel() {
            errs.push(VerifierErrorKind::CallToKernel { callee: f.name.clone() });
            return;
        }
        let params = &f.signature.params;
        if params.len() != args.len() {
            errs.push(VerifierErrorKind::CallArgCount {
                callee: f.name.clone(),
                expected: params.len(),
                found: args.len(),
            });
        } else {
            for (index, (&expected, &arg)) in params.iter().zip(args).enumerate() {
                let found = self.ty(arg);
                if found != expected {
                    errs.push(VerifierErrorKind::CallArgType { callee: f.name.clone(), index, expected, found });
                }
            }
        }
        if let Some(cycle) = self.cycles.get(&(self.id, inst)) {
            errs.push(VerifierErrorKind::Recursion { cycle: cycle.clone() });
        }
    }

    fn block_call_rules(&self, target: Block, args: &[Value], errs: &mut Vec<VerifierErrorKind>) {
        if !self.in_layout[target] {
            errs.push(VerifierErrorKind::BranchTargetNotInLayout { target });
            return;
        }
        if self.func.entry() == Some(target) {
            errs.push(VerifierErrorKind::BranchToEntry { target });
        }
        let params = &self.func.dfg.blocks[target].params;
        if params.len() != args.len() {
            errs.push(VerifierErrorKind::BlockArgCount { target, expected: params.len(), found: args.len() });
            return;
        }
        for (index, (&param, &arg)) in params.iter().zip(args).enumerate() {
            // A parameter that does not exist is reported at its block.
            let Some(expected) = self.func.dfg.values.get(param).map(|d| d.ty) else { continue };
            let found = self.ty(arg);
            if found != expected {
                errs.push(VerifierErrorKind::BlockArgType { target, index, expected, found });
            }
        }
    }
}

/// The alignment and `visible` / `available` rules of a load or store.
fn mem_flags_rules(flags: &MemFlags, space: AddrSpace, flag: &'static str, errs: &mut Vec<VerifierErrorKind>) {
    if !flags.align.is_power_of_two() {
        errs.push(VerifierErrorKind::BadAlign { align: flags.align });
    }
    if flags.av.is_some() && !matches!(space, AddrSpace::Global | AddrSpace::Flat) {
        errs.push(VerifierErrorKind::AvSpace { flag, space });
    }
}

/// The orderings each synchronizing operation may have.
fn ordering_rules(what: &'static str, sync: &SyncInfo, errs: &mut Vec<VerifierErrorKind>) {
    let ordering = sync.ordering;
    let bad = match what {
        "atomic_load" => matches!(ordering, Ordering::Release | Ordering::AcqRel),
        "atomic_store" => matches!(ordering, Ordering::Acquire | Ordering::AcqRel),
        "fence" => ordering == Ordering::Relaxed,
        _ => false,
    };
    if bad {
        errs.push(VerifierErrorKind::BadOrdering { what, ordering });
    }
}

/// Whether `op` converts `from` to `to`; otherwise what it needs.
fn convert_rule(op: ConvOp, from: Type, to: Type) -> Result<(), &'static str> {
    let ok = match op {
        ConvOp::Sext | ConvOp::Zext => from.is_int() && to.is_int() && to.bits() > from.bits(),
        ConvOp::Itrunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
        ConvOp::Fpext => from.is_float() && to.is_float() && to.bits() > from.bits(),
        ConvOp::Fptrunc => from.is_float() && to.is_float() && to.bits() < from.bits(),
        ConvOp::Sitofp | ConvOp::Uitofp => from.is_int() && from != Type::I1 && to.is_float(),
        ConvOp::Fptosi | ConvOp::Fptoui => from.is_float() && to.is_int() && to != Type::I1,
        ConvOp::Bitcast => {
            from != Type::I1
                && to != Type::I1
                && from.bits() == to.bits()
                && (!from.is_ptr() || to.is_int())
                && (!to.is_ptr() || from.is_int())
        }
    };
    if ok {
        return Ok(());
    }
    Err(match op {
        ConvOp::Sext | ConvOp::Zext => "it needs an integer result wider than the integer operand",
        ConvOp::Itrunc => "it needs an integer result narrower than the integer operand",
        ConvOp::Fpext => "it needs a float result wider than the float operand",
        ConvOp::Fptrunc => "it needs a float result narrower than the float operand",
        ConvOp::Sitofp | ConvOp::Uitofp => "it needs an integer operand other than i1 and a float result",
        ConvOp::Fptosi | ConvOp::Fptoui => "it needs a float operand and an integer result other than i1",
        ConvOp::Bitcast => {
            "it needs two types of the same width, neither i1, and converts a pointer only to or from an integer"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{FuncKind, KernelAttrs, Signature, SlotData};
    use crate::instructions::{BlockCall, Dim, FloatCC, IntCC, Scope, Special};
    use InstData as I;
    use Type::*;
    use VerifierErrorKind as K;

    const GLOBAL: Type = Ptr(AddrSpace::Global);
    const SHARED: Type = Ptr(AddrSpace::Shared);
    const CONSTANT: Type = Ptr(AddrSpace::Constant);
    const PRIVATE: Type = Ptr(AddrSpace::Private);
    const FLAT: Type = Ptr(AddrSpace::Flat);

    /// A small function builder: blocks go into the layout as they are made, instructions into
    /// the current block.
    struct Fb {
        func: Function,
        cur: Option<Block>,
    }

    impl Fb {
        fn new(name: &str, kind: FuncKind, params: &[Type], ret: Option<Type>) -> Fb {
            let sig = Signature { params: params.to_vec(), ret };
            Fb { func: Function::new(name, kind, sig), cur: None }
        }

        fn kernel(params: &[Type]) -> Fb {
            Fb::new("k", FuncKind::Kernel(KernelAttrs::default()), params, None)
        }

        fn helper(name: &str, params: &[Type], ret: Option<Type>) -> Fb {
            Fb::new(name, FuncKind::Helper, params, ret)
        }

        /// A new block in the layout (made current) and its parameters.
        fn block(&mut self, params: &[Type]) -> (Block, Vec<Value>) {
            let b = self.func.dfg.make_block();
            let values = params.iter().map(|&t| self.func.dfg.append_block_param(b, t)).collect();
            self.func.layout.push(b);
            self.cur = Some(b);
            (b, values)
        }

        /// The entry block, with the signature's parameters.
        fn entry(&mut self) -> Vec<Value> {
            let params = self.func.signature.params.clone();
            self.block(&params).1
        }

        fn at(&mut self, b: Block) {
            self.cur = Some(b);
        }

        /// Adds an instruction with an explicit result type.
        fn ins_ty(&mut self, data: InstData, result: Option<Type>) -> (Inst, Option<Value>) {
            let inst = self.func.dfg.make_inst(data, result);
            self.func.dfg.blocks[self.cur.unwrap()].insts.push(inst);
            (inst, self.func.dfg.inst_result(inst))
        }

        /// Adds an instruction with the result type it computes (calls: none).
        fn ins(&mut self, data: InstData) -> Value {
            let ty = self.func.result_type(&data, |_| None);
            self.ins_ty(data, ty).1.expect("instruction without a result")
        }

        fn ins0(&mut self, data: InstData) -> Inst {
            self.ins_ty(data, None).0
        }

        fn iconst(&mut self, ty: Type, imm: u64) -> Value {
            self.ins(I::IntConst { ty, imm })
        }

        fn ret(&mut self) {
            self.ins0(I::Return { arg: None });
        }

        fn jump(&mut self, b: Block, args: &[Value]) {
            self.ins0(I::Jump { dest: BlockCall::new(b, args) });
        }

        fn brif(&mut self, c: Value, t: Block, f: Block) {
            self.ins0(I::Brif { cond: c, dests: Box::new([BlockCall::new(t, &[]), BlockCall::new(f, &[])]) });
        }

        fn slot(&mut self, space: AddrSpace, size: u32, align: u32) -> Slot {
            self.func.slots.push(SlotData { space, size, align })
        }

        fn done(self) -> Function {
            self.func
        }
    }

    fn module(funcs: Vec<Function>) -> Module {
        let mut m = Module::default();
        for f in funcs {
            m.push(f);
        }
        m
    }

    /// A kernel `@k(params)` whose entry block runs `body` and then returns.
    fn kernel(params: &[Type], body: impl FnOnce(&mut Fb, &[Value])) -> Module {
        let mut fb = Fb::kernel(params);
        let p = fb.entry();
        body(&mut fb, &p);
        fb.ret();
        module(vec![fb.done()])
    }

    /// A helper `@h(params)` with no return value, alone in a module.
    fn helper(params: &[Type], body: impl FnOnce(&mut Fb, &[Value])) -> Module {
        let mut fb = Fb::helper("h", params, None);
        let p = fb.entry();
        body(&mut fb, &p);
        fb.ret();
        module(vec![fb.done()])
    }

    fn errors(m: &Module) -> Vec<VerifierError> {
        match verify_module(m) {
            Ok(()) => Vec::new(),
            Err(e) => e.0,
        }
    }

    fn sync(ordering: Ordering) -> SyncInfo {
        SyncInfo { ordering, scope: Scope::Agent, av_none: false }
    }

    fn aligned(n: u32) -> MemFlags {
        MemFlags::aligned(n)
    }

    /// Asserts that the module has exactly one error, of the given kind, whose message contains
    /// each of the words.
    macro_rules! assert_error {
        ($m:expr, $pat:pat, [$($word:expr),* $(,)?]) => {{
            let errs = errors(&$m);
            assert_eq!(errs.len(), 1, "expected exactly one error, got:\n{}", VerifierErrors(errs.clone()));
            let e = &errs[0];
            assert!(matches!(e.kind, $pat), "unexpected kind {:?}: {e}", e.kind);
            let text = e.to_string();
            $(assert!(text.contains($word), "message `{text}` does not contain `{}`", $word);)*
        }};
    }

    fn assert_ok(m: &Module) {
        if let Err(e) = verify_module(m) {
            panic!("unexpected errors:\n{e}\nin:\n{m}");
        }
    }

    // ---------------------------------------------------------------- positive

    /// A helper and a kernel using most of the instruction set correctly: loops with block
    /// parameters, memory, atomics, wave operations, a switch and a helper call.
    fn valid_module() -> Module {
        let mut h = Fb::helper("twice", &[I32], Some(I32));
        let p = h.entry();
        let lane = h.ins(I::Special { value: Special::LaneId }); // allowed in helpers
        let s = h.ins(I::Binary { op: BinaryOp::Add, args: [p[0], p[0]] });
        let s = h.ins(I::Binary { op: BinaryOp::Xor, args: [s, lane] });
        let slot = h.slot(AddrSpace::Private, 16, 4);
        let a = h.ins(I::SlotAddr { slot });
        h.ins0(I::Store { args: [a, s], flags: aligned(4) });
        h.ins0(I::Return { arg: Some(s) });
        let helper = h.done();

        let attrs = KernelAttrs {
            reqd_workgroup_size: Some([64, 1, 1]),
            max_workgroup_size: Some(64),
            dynamic_shared: true,
            waves_per_simd: None,
        };
        let mut k = Fb::new("main", FuncKind::Kernel(attrs), &[GLOBAL, I32, F32], None);
        let p = k.entry();
        let (buf, n, x) = (p[0], p[1], p[2]);
        let tile = k.slot(AddrSpace::Shared, 256, 16);
        let entry = k.cur.unwrap();
        let (header, hp) = k.block(&[I32, F32]);
        let (body, _) = k.block(&[]);
        let (exit, ep) = k.block(&[F32]);
        let (sw_a, _) = k.block(&[]);
        let (sw_b, _) = k.block(&[]);
        let (done, _) = k.block(&[]);
        k.at(entry);
        let zero = k.iconst(I32, 0);
        k.jump(header, &[zero, x]);
        k.at(header);
        let c = k.ins(I::Icmp { cc: IntCC::Slt, args: [hp[0], n] });
        k.ins0(I::Brif { cond: c, dests: Box::new([BlockCall::new(body, &[]), BlockCall::new(exit, &[hp[1]])]) });
        k.at(body);
        let i64v = k.ins(I::Convert { op: ConvOp::Sext, ty: I64, arg: hp[0] });
        let four = k.iconst(I64, 4);
        let off = k.ins(I::Binary { op: BinaryOp::Mul, args: [i64v, four] });
        let addr = k.ins(I::PtrAdd { args: [buf, off] });
        let flags = MemFlags { align: 4, volatile: false, nontemporal: true, av: Some(Scope::Agent) };
        let v = k.ins(I::Load { ty: F32, ptr: addr, flags });
        let acc = k.ins(I::Fma { args: [v, v, hp[1]] });
        let ta = k.ins(I::SlotAddr { slot: tile });
        k.ins0(I::Store { args: [ta, acc], flags: aligned(4) });
        let flat = k.ins(I::AddrSpaceCast { ty: FLAT, arg: ta });
        let one = k.iconst(I32, 1);
        k.ins(I::AtomicRmw { op: RmwOp::Add, args: [flat, one], sync: sync(Ordering::Relaxed) });
        k.ins(I::AtomicRmw { op: RmwOp::Fadd, args: [addr, acc], sync: sync(Ordering::AcqRel) });
        k.ins(I::AtomicRmw { op: RmwOp::Xchg, args: [ta, acc], sync: sync(Ordering::SeqCst) });
        k.ins(I::AtomicCas { args: [addr, one, one], sync: sync(Ordering::Acquire) });
        k.ins(I::AtomicLoad { ty: I64, ptr: addr, sync: sync(Ordering::Acquire) });
        let cptr = k.ins(I::IntConst { ty: CONSTANT, imm: 0 });
        k.ins(I::AtomicLoad { ty: I32, ptr: cptr, sync: sync(Ordering::Relaxed) });
        k.ins0(I::AtomicStore {
            args: [addr, one],
            sync: SyncInfo { ordering: Ordering::Release, scope: Scope::Singlethread, av_none: true },
        });
        k.ins0(I::Fence { sync: sync(Ordering::SeqCst) });
        k.ins0(I::Barrier);
        let t = k.ins(I::Icmp { cc: IntCC::Eq, args: [one, one] });
        let nt = k.ins(I::Unary { op: UnaryOp::Not, arg: t });
        let b = k.ins(I::Binary { op: BinaryOp::And, args: [t, nt] });
        k.ins(I::Ballot { arg: b });
        k.ins(I::ReadFirstLane { arg: addr });
        k.ins(I::Shuffle { args: [acc, one] });
        k.ins(I::Reduce { op: ReduceOp::Fadd, arg: acc });
        k.ins(I::Reduce { op: ReduceOp::Umax, arg: one });
        k.ins(I::Special { value: Special::LocalId(Dim::X) });
        k.ins(I::DynSharedAddr);
        let pi = k.ins(I::Convert { op: ConvOp::Bitcast, ty: I64, arg: buf });
        k.ins(I::Convert { op: ConvOp::Bitcast, ty: F64, arg: pi });
        k.ins(I::Convert { op: ConvOp::Zext, ty: I32, arg: t });
        k.ins(I::Fcmp { cc: FloatCC::Uno, args: [acc, acc] });
        k.ins(I::Select { args: [t, acc, v] });
        k.ins(I::FloatConst { ty: F16, bits: 0x3c00 });
        k.ins(I::IntConst { ty: I1, imm: 1 });
        k.ins(I::IntConst { ty: I8, imm: 0xff });
        let (_, r) = k.ins_ty(I::Call { func: FuncId::from_u32(0), args: [hp[0]].into_iter().collect() }, Some(I32));
        let next = k.ins(I::Binary { op: BinaryOp::Add, args: [r.unwrap(), one] });
        k.jump(header, &[next, acc]);
        k.at(exit);
        let bits = k.ins(I::Convert { op: ConvOp::Bitcast, ty: I32, arg: ep[0] });
        k.ins0(I::Switch {
            arg: bits,
            cases: vec![0, 0xffff_ffff].into_boxed_slice(),
            dests: vec![BlockCall::new(done, &[]), BlockCall::new(sw_a, &[]), BlockCall::new(sw_b, &[])]
                .into_boxed_slice(),
        });
        k.at(sw_a);
        k.jump(done, &[]);
        k.at(sw_b);
        k.ins0(I::Unreachable);
        k.at(done);
        k.ret();
        module(vec![helper, k.done()])
    }

    #[test]
    fn valid() {
        let m = valid_module();
        assert_ok(&m);
        assert_eq!(verify_function(&m, FuncId::from_u32(0)), Ok(()));
        assert_eq!(verify_function(&m, FuncId::from_u32(1)), Ok(()));
    }

    /// Random corruptions of a valid module (operands, targets, types, definitions, layout,
    /// results, callees, slots) never make the verifier panic, and each one it reports prints.
    #[test]
    fn corrupted_modules_do_not_panic() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: usize| -> usize {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n.max(1) as u64) as usize
        };
        let types = [I1, I8, I16, I32, I64, F16, F32, F64, GLOBAL, SHARED, CONSTANT, PRIVATE, FLAT];
        let base = valid_module();
        let mut reported = 0;
        for _ in 0..3000 {
            let mut m = base.clone();
            for _ in 0..1 + rand(3) {
                let id = FuncId::from_u32(rand(2) as u32);
                let f = &mut m.functions[id];
                let (nv, ni, nb) = (f.dfg.values.len(), f.dfg.insts.len(), f.dfg.blocks.len());
                let inst = Inst::from_u32(rand(ni) as u32);
                let value = Value::from_u32(rand(nv + 3) as u32);
                let block = Block::from_u32(rand(nb + 2) as u32);
                match rand(10) {
                    0 => {
                        let args = f.dfg.insts[inst].args_mut();
                        if !args.is_empty() {
                            let i = rand(args.len());
                            args[i] = value;
                        }
                    }
                    1 => {
                        let calls = f.dfg.insts[inst].block_calls_mut();
                        if !calls.is_empty() {
                            let i = rand(calls.len());
                            if rand(2) == 0 {
                                calls[i].block = block;
                            } else {
                                calls[i].args.push(value);
                            }
                        }
                    }
                    2 => {
                        let v = Value::from_u32(rand(nv) as u32);
                        f.dfg.values[v].ty = types[rand(types.len())];
                    }
                    3 => {
                        let v = Value::from_u32(rand(nv) as u32);
                        f.dfg.values[v].def = match rand(4) {
                            0 => ValueDef::Param(block, rand(3) as u32),
                            1 => ValueDef::Result(Inst::from_u32(rand(ni + 2) as u32)),
                            2 => ValueDef::Alias(value),
                            _ => ValueDef::Pending,
                        };
                    }
                    4 => match rand(3) {
                        0 if !f.layout.is_empty() => {
                            let i = rand(f.layout.len());
                            f.layout.remove(i);
                        }
                        1 => f.layout.push(block),
                        _ if !f.layout.is_empty() => {
                            let len = f.layout.len();
                            f.layout.swap(rand(len), rand(len));
                        }
                        _ => {}
                    },
                    5 => {
                        if f.dfg.blocks.is_valid(block) {
                            let insts = &mut f.dfg.blocks[block].insts;
                            if rand(2) == 0 && !insts.is_empty() {
                                let i = rand(insts.len());
                                insts.remove(i);
                            } else {
                                let i = rand(insts.len() + 1);
                                insts.insert(i, Inst::from_u32(rand(ni + 2) as u32));
                            }
                        }
                    }
                    6 => f.dfg.results[inst] = value.into(),
                    7 => match &mut f.dfg.insts[inst] {
                        I::Call { func, .. } => *func = FuncId::from_u32(rand(4) as u32),
                        I::Switch { cases, dests, .. } => {
                            if rand(2) == 0 {
                                *dests = Box::new([]);
                            } else {
                                *cases = vec![rand(300) as u64; rand(4)].into_boxed_slice();
                            }
                        }
                        I::Load { flags, .. } | I::Store { flags, .. } => flags.align = rand(9) as u32,
                        data => *data = I::Unreachable,
                    },
                    8 => {
                        if let Some(slot) = f.slots.values_mut().next() {
                            slot.space = AddrSpace::ALL[rand(5)];
                            slot.size = rand(3) as u32;
                        }
                    }
                    _ => {
                        if f.dfg.blocks.is_valid(block) {
                            f.dfg.blocks[block].params.push(value);
                        }
                    }
                }
            }
            if let Err(errs) = verify_module(&m) {
                reported += 1;
                let _ = errs.to_string();
            }
        }
        assert!(reported > 2000, "only {reported} of 3000 corruptions were reported");
    }

    #[test]
    fn unreachable_blocks_are_exempt_from_dominance_but_not_typing() {
        // block1 is unreachable and uses a value defined later in it: fine.
        let mut fb = Fb::kernel(&[]);
        fb.entry();
        fb.ret();
        let (b1, _) = fb.block(&[]);
        let later = fb.func.dfg.make_inst(I::IntConst { ty: I32, imm: 1 }, Some(I32));
        let v = fb.func.dfg.inst_result(later).unwrap();
        fb.ins(I::Binary { op: BinaryOp::Add, args: [v, v] });
        fb.func.dfg.blocks[b1].insts.push(later);
        fb.ret();
        let m = module(vec![fb.done()]);
        assert_ok(&m);

        // But a type error there is still reported.
        let mut m = m;
        let f = &mut m.functions[FuncId::from_u32(0)];
        let b1 = f.layout[1];
        let add = f.dfg.blocks[b1].insts[0];
        let c = f.dfg.make_inst(I::FloatConst { ty: F32, bits: 0 }, Some(F32));
        f.dfg.blocks[b1].insts.insert(0, c);
        let cv = f.dfg.inst_result(c).unwrap();
        if let I::Binary { args, .. } = &mut f.dfg.insts[add] {
            args[1] = cv;
        }
        assert_error!(m, K::BinaryMismatch { .. }, ["i32 and f32"]);
    }

    #[test]
    fn display_format() {
        let m = kernel(&[I32, I64], |b, p| {
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], p[1]] });
        });
        let errs = verify_module(&m).unwrap_err();
        assert_eq!(errs.to_string(), "@k, block0, `%2 = add %0, %1`: operands of add have different types i32 and i64");
        let e = &errs.0[0];
        assert_eq!((e.func.as_str(), e.block, e.inst), ("k", Some(Block::from_u32(0)), Some(Inst::from_u32(0))));
        assert_eq!(e.inst_text.as_deref(), Some("%2 = add %0, %1"));
    }

    #[test]
    fn collects_all_errors_one_per_line() {
        let m = kernel(&[I32, F32], |b, p| {
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], p[1]] });
            b.ins(I::Unary { op: UnaryOp::Fneg, arg: p[0] });
            b.ins0(I::Barrier);
        });
        let errs = verify_module(&m).unwrap_err();
        assert_eq!(errs.0.len(), 2, "{errs}");
        assert!(matches!(errs.0[0].kind, K::BinaryMismatch { .. }));
        assert!(matches!(errs.0[1].kind, K::UnaryType { .. }));
        assert_eq!(errs.to_string().lines().count(), 2);
    }

    #[test]
    fn allowed_edge_cases() {
        assert_ok(&kernel(&[I1, I32, F64], |b, p| {
            b.ins(I::Unary { op: UnaryOp::Not, arg: p[0] });
            b.ins(I::Binary { op: BinaryOp::Or, args: [p[0], p[0]] });
            b.ins(I::Convert { op: ConvOp::Sext, ty: I8, arg: p[0] });
            b.ins(I::Convert { op: ConvOp::Itrunc, ty: I1, arg: p[1] });
            b.ins(I::Icmp { cc: IntCC::Ne, args: [p[0], p[0]] });
            b.ins(I::IntConst { ty: GLOBAL, imm: 0 });
            b.ins(I::Special { value: Special::WaveSize });
            let a = b.ins(I::IntConst { ty: SHARED, imm: 0 });
            b.ins(I::AtomicRmw { op: RmwOp::Fmin, args: [a, p[2]], sync: sync(Ordering::Relaxed) });
        }));
    }

    #[test]
    fn special_values_allowed_in_helpers() {
        assert_ok(&helper(&[], |b, _| {
            b.ins(I::Special { value: Special::GroupId(Dim::Y) });
        }));
    }

    // ---------------------------------------------------------------- module and function

    #[test]
    fn duplicate_function_name() {
        let mut a = Fb::kernel(&[]);
        a.entry();
        a.ret();
        let mut b = Fb::kernel(&[]);
        b.entry();
        b.ret();
        let m = module(vec![a.done(), b.done()]);
        assert_error!(m, K::DuplicateFunctionName { .. }, ["@k: ", "fn0", "already has this name"]);
    }

    #[test]
    fn no_blocks() {
        let m = module(vec![Fb::kernel(&[]).done()]);
        assert_error!(m, K::NoBlocks, ["@k: function has no blocks"]);
    }

    #[test]
    fn kernel_return_type() {
        let mut k = Fb::new("k", FuncKind::Kernel(KernelAttrs::default()), &[], Some(I32));
        k.entry();
        k.ret();
        assert_error!(module(vec![k.done()]), K::KernelReturnType { ty: I32 }, ["return nothing", "i32"]);
    }

    #[test]
    fn bad_kernel_attrs() {
        for (attrs, word) in [
            (KernelAttrs { reqd_workgroup_size: Some([64, 0, 1]), ..Default::default() }, "zero dimension"),
            (KernelAttrs { max_workgroup_size: Some(0), ..Default::default() }, "max_workgroup_size(0)"),
            (KernelAttrs { waves_per_simd: Some(0), ..Default::default() }, "waves_per_simd(0)"),
            (
                KernelAttrs {
                    reqd_workgroup_size: Some([16, 16, 1]),
                    max_workgroup_size: Some(128),
                    ..Default::default()
                },
                "256 work-items, more than max_workgroup_size(128)",
            ),
        ] {
            let mut k = Fb::new("k", FuncKind::Kernel(attrs), &[], None);
            k.entry();
            k.ret();
            assert_error!(module(vec![k.done()]), K::BadKernelAttrs { .. }, [word]);
        }
    }

    #[test]
    fn slot_rules() {
        let with_slot = |kind: FuncKind, space, size, align| {
            let mut f = Fb::new("f", kind, &[], None);
            f.slot(space, size, align);
            f.entry();
            f.ret();
            module(vec![f.done()])
        };
        let kernel = || FuncKind::Kernel(KernelAttrs::default());
        assert_error!(
            with_slot(kernel(), AddrSpace::Global, 4, 4),
            K::SlotSpace { space: AddrSpace::Global, .. },
            ["slot0 is in global memory"]
        );
        assert_error!(
            with_slot(FuncKind::Helper, AddrSpace::Shared, 4, 4),
            K::SharedSlotInHelper { .. },
            ["slot0 is a shared slot", "only kernels"]
        );
        assert_error!(with_slot(kernel(), AddrSpace::Private, 0, 4), K::SlotSize { .. }, ["slot0 has size 0"]);
        assert_error!(
            with_slot(kernel(), AddrSpace::Shared, 4, 3),
            K::SlotAlign { align: 3, .. },
            ["alignment 3", "power of two"]
        );
        assert_ok(&with_slot(FuncKind::Helper, AddrSpace::Private, 4, 1));
    }

    // ---------------------------------------------------------------- structure

    #[test]
    fn unknown_block() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.ret();
        k.func.layout.push(Block::from_u32(7));
        assert_error!(module(vec![k.done()]), K::UnknownBlock, ["@k, block7: ", "does not exist"]);
    }

    #[test]
    fn duplicate_block() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.ret();
        let entry = k.func.layout[0];
        k.func.layout.push(entry);
        assert_error!(module(vec![k.done()]), K::DuplicateBlock, ["block0", "more than once"]);
    }

    #[test]
    fn empty_block() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.ret();
        k.block(&[]);
        assert_error!(module(vec![k.done()]), K::EmptyBlock, ["@k, block1: ", "no instructions"]);
    }

    #[test]
    fn missing_terminator() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.iconst(I32, 1);
        assert_error!(module(vec![k.done()]), K::MissingTerminator, ["`%0 = iconst.i32 1`", "terminator"]);
    }

    #[test]
    fn terminator_not_last() {
        let m = kernel(&[], |b, _| b.ret());
        assert_error!(m, K::TerminatorNotLast, ["`ret`", "terminator before the end"]);
    }

    #[test]
    fn unknown_inst() {
        let m = kernel(&[], |b, _| {
            let cur = b.cur.unwrap();
            b.func.dfg.blocks[cur].insts.push(Inst::from_u32(99));
        });
        assert_error!(m, K::UnknownInst, ["`inst99`", "does not exist"]);
    }

    #[test]
    fn duplicate_inst() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        let (b1, _) = k.block(&[]);
        k.at(k.func.layout[0]);
        let (c, _) = k.ins_ty(I::IntConst { ty: I32, imm: 5 }, Some(I32));
        k.jump(b1, &[]);
        k.at(b1);
        k.func.dfg.blocks[b1].insts.push(c);
        k.ret();
        assert_error!(module(vec![k.done()]), K::DuplicateInst { .. }, ["block1", "already appears in block0"]);
    }

    #[test]
    fn entry_params() {
        let mut k = Fb::kernel(&[I32]);
        k.block(&[I64]);
        k.ret();
        assert_error!(module(vec![k.done()]), K::EntryParams { .. }, ["block0", "(i64)", "(i32)"]);
    }

    #[test]
    fn block_param_def() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        let (b1, _) = k.block(&[]);
        // A parameter of block1 that claims to be parameter 3.
        let p = k.func.dfg.values.push(crate::ValueData { ty: I32, def: ValueDef::Param(b1, 3) });
        k.func.dfg.blocks[b1].params.push(p);
        k.ret();
        k.at(k.func.layout[0]);
        let c = k.iconst(I32, 0);
        k.jump(b1, &[c]);
        assert_error!(module(vec![k.done()]), K::BlockParamDef { index: 0, .. }, ["block1", "parameter 0"]);
    }

    // ---------------------------------------------------------------- values

    #[test]
    fn unknown_value() {
        let m = kernel(&[I32], |b, p| {
            b.ins_ty(I::Binary { op: BinaryOp::Add, args: [p[0], Value::from_u32(99)] }, Some(I32));
        });
        assert_error!(m, K::UnknownValue { .. }, ["%99 does not exist"]);
    }

    #[test]
    fn undefined_value() {
        let m = kernel(&[I32], |b, p| {
            let pending = b.func.dfg.make_pending_value(I32);
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], pending] });
        });
        assert_error!(m, K::UndefinedValue { .. }, ["%1 has no definition"]);

        let m = kernel(&[I32], |b, p| {
            let alias = b.func.dfg.values.push(crate::ValueData { ty: I32, def: ValueDef::Alias(p[0]) });
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], alias] });
        });
        assert_error!(m, K::UndefinedValue { .. }, ["%1 has no definition"]);
    }

    #[test]
    fn def_not_in_layout() {
        let m = kernel(&[I32], |b, p| {
            let floating = b.func.dfg.make_inst(I::IntConst { ty: I32, imm: 1 }, Some(I32));
            let v = b.func.dfg.inst_result(floating).unwrap();
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], v] });
        });
        assert_error!(m, K::DefNotInLayout { .. }, ["%1 is defined outside the function's layout"]);

        // A parameter of a block that is not in the layout.
        let m = kernel(&[I32], |b, p| {
            let other = b.func.dfg.make_block();
            let v = b.func.dfg.append_block_param(other, I32);
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], v] });
        });
        assert_error!(m, K::DefNotInLayout { .. }, ["%1 is defined outside"]);
    }

    #[test]
    fn result_def() {
        let m = kernel(&[], |b, _| {
            let (inst, _) = b.ins_ty(I::IntConst { ty: I32, imm: 1 }, None);
            let v = b.func.dfg.make_pending_value(I32);
            b.func.dfg.results[inst] = v.into();
        });
        assert_error!(m, K::ResultDef { .. }, ["result %0 is not defined by this instruction"]);
    }

    #[test]
    fn not_dominated_same_block() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        let later = k.func.dfg.make_inst(I::IntConst { ty: I32, imm: 1 }, Some(I32));
        let v = k.func.dfg.inst_result(later).unwrap();
        k.ins(I::Binary { op: BinaryOp::Add, args: [v, v] });
        let entry = k.func.layout[0];
        k.func.dfg.blocks[entry].insts.push(later);
        k.ret();
        assert_error!(module(vec![k.done()]), K::NotDominated { .. }, ["`%1 = add %0, %0`", "%0 is used where"]);

        // An instruction using its own result.
        let m = kernel(&[], |b, _| {
            let (inst, r) = b.ins_ty(I::Binary { op: BinaryOp::Add, args: [Value::from_u32(0); 2] }, Some(I32));
            b.func.dfg.insts[inst] = I::Binary { op: BinaryOp::Add, args: [r.unwrap(); 2] };
        });
        assert_error!(m, K::NotDominated { .. }, ["does not dominate"]);
    }

    #[test]
    fn not_dominated_across_blocks() {
        // block0: brif -> block1 | block2; block1 defines %v and jumps to block3; block2 jumps to
        // block3; block3 uses %v.
        let mut k = Fb::kernel(&[I1]);
        let p = k.entry();
        let (b1, _) = k.block(&[]);
        let v = k.iconst(I32, 1);
        let (b2, _) = k.block(&[]);
        let (b3, _) = k.block(&[]);
        k.at(b1);
        k.jump(b3, &[]);
        k.at(b2);
        k.jump(b3, &[]);
        k.at(b3);
        k.ins(I::Binary { op: BinaryOp::Add, args: [v, v] });
        k.ret();
        k.at(k.func.layout[0]);
        k.brif(p[0], b1, b2);
        assert_error!(module(vec![k.done()]), K::NotDominated { .. }, ["block3", "%1 is used where"]);

        // Block parameters dominate only their block's dominance region; a branch argument is a
        // use at the end of the branching block.
        let mut k = Fb::kernel(&[I1]);
        let p = k.entry();
        let (b1, bp) = k.block(&[I32]);
        let (b2, _) = k.block(&[]);
        let (b3, _) = k.block(&[I32]);
        k.at(b1);
        k.jump(b3, &[bp[0]]);
        k.at(b2);
        k.jump(b3, &[bp[0]]);
        k.at(b3);
        k.ret();
        k.at(k.func.layout[0]);
        let c = k.iconst(I32, 0);
        k.ins0(I::Brif { cond: p[0], dests: Box::new([BlockCall::new(b1, &[c]), BlockCall::new(b2, &[])]) });
        assert_error!(module(vec![k.done()]), K::NotDominated { .. }, ["block2", "`jump block3(%1)`"]);
    }

    // ---------------------------------------------------------------- control flow

    #[test]
    fn branch_target_not_in_layout() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        let outside = k.func.dfg.make_block();
        k.jump(outside, &[]);
        assert_error!(module(vec![k.done()]), K::BranchTargetNotInLayout { .. }, ["block1 is not a block"]);
    }

    #[test]
    fn branch_to_entry() {
        let mut k = Fb::kernel(&[]);
        k.entry();
        let (b1, _) = k.block(&[]);
        let entry = k.func.layout[0];
        k.jump(entry, &[]);
        k.at(entry);
        k.jump(b1, &[]);
        assert_error!(module(vec![k.done()]), K::BranchToEntry { .. }, ["`jump block0`", "entry block"]);
    }

    #[test]
    fn block_arg_count_and_type() {
        let build = |args: &dyn Fn(&mut Fb) -> Vec<Value>| {
            let mut k = Fb::kernel(&[]);
            k.entry();
            let (b1, _) = k.block(&[I32]);
            k.ret();
            k.at(k.func.layout[0]);
            let a = args(&mut k);
            k.jump(b1, &a);
            module(vec![k.done()])
        };
        assert_error!(
            build(&|_| vec![]),
            K::BlockArgCount { expected: 1, found: 0, .. },
            ["block1 takes 1 arguments, but the branch passes 0"]
        );
        assert_error!(
            build(&|k| vec![k.iconst(I64, 1)]),
            K::BlockArgType { index: 0, expected: I32, found: I64, .. },
            ["argument 0 to block1 has type i64", "parameter has type i32"]
        );
    }

    #[test]
    fn brif_cond_type() {
        let mut k = Fb::kernel(&[I32]);
        let p = k.entry();
        let (b1, _) = k.block(&[]);
        k.ret();
        k.at(k.func.layout[0]);
        k.brif(p[0], b1, b1);
        assert_error!(module(vec![k.done()]), K::BrifCondType { ty: I32 }, ["brif condition must be i1, not i32"]);
    }

    fn switch_module(ty: Type, cases: Vec<u64>, ndests: usize) -> Module {
        let mut k = Fb::kernel(&[ty]);
        let p = k.entry();
        let (b1, _) = k.block(&[]);
        k.ret();
        k.at(k.func.layout[0]);
        let dests: Vec<BlockCall> = (0..ndests).map(|_| BlockCall::new(b1, &[])).collect();
        k.ins0(I::Switch { arg: p[0], cases: cases.into_boxed_slice(), dests: dests.into_boxed_slice() });
        module(vec![k.done()])
    }

    #[test]
    fn switch_rules() {
        assert_ok(&switch_module(I8, vec![0, 0xff], 3));
        assert_error!(switch_module(F32, vec![1], 2), K::SwitchType { ty: F32 }, ["integer operand, not f32"]);
        assert_error!(
            switch_module(I32, vec![1, 2], 2),
            K::SwitchShape { cases: 2, dests: 2 },
            ["2 cases and 2 destinations"]
        );
        assert_error!(switch_module(I32, vec![], 0), K::SwitchShape { cases: 0, dests: 0 }, ["0 destinations"]);
        assert_error!(
            switch_module(I8, vec![0x100], 2),
            K::SwitchCaseRange { case: 0x100, ty: I8 },
            ["case 0x100 does not fit in i8"]
        );
        assert_error!(
            switch_module(I32, vec![7, 7], 3),
            K::DuplicateSwitchCase { case: 7 },
            ["0x7 appears more than once"]
        );
    }

    #[test]
    fn return_type() {
        let mut h = Fb::helper("h", &[], Some(I32));
        h.entry();
        h.ret();
        assert_error!(
            module(vec![h.done()]),
            K::ReturnType { expected: Some(I32), found: None },
            ["function returns i32, but ret gives nothing"]
        );

        let mut k = Fb::kernel(&[I32]);
        let p = k.entry();
        k.ins0(I::Return { arg: Some(p[0]) });
        assert_error!(module(vec![k.done()]), K::ReturnType { expected: None, found: Some(I32) }, ["returns nothing"]);

        let mut h = Fb::helper("h", &[F32], Some(I32));
        let p = h.entry();
        h.ins0(I::Return { arg: Some(p[0]) });
        assert_error!(module(vec![h.done()]), K::ReturnType { .. }, ["returns i32, but ret gives f32"]);
    }

    // ---------------------------------------------------------------- constants and arithmetic

    #[test]
    fn constants() {
        assert_error!(
            kernel(&[], |b, _| {
                b.ins(I::IntConst { ty: F32, imm: 0 });
            }),
            K::IntConstType { ty: F32 },
            ["iconst needs an integer or pointer type, not f32"]
        );
        assert_error!(
            kernel(&[], |b, _| {
                b.ins(I::FloatConst { ty: I32, bits: 0 });
            }),
            K::FloatConstType { ty: I32 },
            ["fconst needs a float type, not i32"]
        );
        for (data, word) in [
            (I::IntConst { ty: I1, imm: 2 }, "0x2 do not fit in i1"),
            (I::IntConst { ty: I32, imm: u64::MAX }, "do not fit in i32"),
            (I::FloatConst { ty: F32, bits: 1 << 40 }, "do not fit in f32"),
        ] {
            assert_error!(
                kernel(&[], |b, _| {
                    b.ins(data);
                }),
                K::ConstRange { .. },
                [word]
            );
        }
    }

    #[test]
    fn unary_types() {
        for (op, ty, word) in [
            (UnaryOp::Neg, I1, "neg needs an integer operand other than i1, got i1"),
            (UnaryOp::Iabs, F32, "iabs needs an integer operand other than i1, got f32"),
            (UnaryOp::Popcount, I1, "popcount needs"),
            (UnaryOp::Not, F64, "not needs an integer operand, got f64"),
            (UnaryOp::Fneg, I32, "fneg needs a float operand, got i32"),
            (UnaryOp::Sqrt, GLOBAL, "got ptr<global>"),
        ] {
            let m = kernel(&[ty], |b, p| {
                b.ins(I::Unary { op, arg: p[0] });
            });
            assert_error!(m, K::UnaryType { .. }, [word]);
        }
    }

    #[test]
    fn binary_types() {
        let m = kernel(&[I32, I64], |b, p| {
            b.ins(I::Binary { op: BinaryOp::Add, args: [p[0], p[1]] });
        });
        assert_error!(
            m,
            K::BinaryMismatch { op: BinaryOp::Add, lhs: I32, rhs: I64 },
            ["operands of add have different types i32 and i64"]
        );
        for (op, ty, word) in [
            (BinaryOp::Add, I1, "add needs integer operands other than i1, got i1"),
            (BinaryOp::Shl, F32, "shl needs integer operands other than i1, got f32"),
            (BinaryOp::Xor, F32, "xor needs integer operands, got f32"),
            (BinaryOp::Fadd, I32, "fadd needs float operands, got i32"),
            (BinaryOp::Add, GLOBAL, "got ptr<global>"),
        ] {
            let m = kernel(&[ty], |b, p| {
                b.ins(I::Binary { op, args: [p[0], p[0]] });
            });
            assert_error!(m, K::BinaryType { .. }, [word]);
        }
    }

    #[test]
    fn fma_select_compare_types() {
        let m = kernel(&[F32, F64], |b, p| {
            b.ins(I::Fma { args: [p[0], p[0], p[1]] });
        });
        assert_error!(m, K::FmaType { .. }, ["fma needs three operands of one float type, got (f32, f32, f64)"]);
        let m = kernel(&[I32], |b, p| {
            b.ins(I::Fma { args: [p[0], p[0], p[0]] });
        });
        assert_error!(m, K::FmaType { .. }, ["(i32, i32, i32)"]);

        let m = kernel(&[I32], |b, p| {
            b.ins(I::Select { args: [p[0], p[0], p[0]] });
        });
        assert_error!(m, K::SelectCondType { ty: I32 }, ["select condition must be i1, not i32"]);
        let m = kernel(&[I1, I32, F32], |b, p| {
            b.ins(I::Select { args: [p[0], p[1], p[2]] });
        });
        assert_error!(m, K::SelectMismatch { lhs: I32, rhs: F32 }, ["arms of select have different types i32 and f32"]);

        let m = kernel(&[F32], |b, p| {
            b.ins(I::Icmp { cc: IntCC::Eq, args: [p[0], p[0]] });
        });
        assert_error!(
            m,
            K::IcmpType { .. },
            ["icmp needs two operands of one integer or pointer type, got f32 and f32"]
        );
        let m = kernel(&[GLOBAL, FLAT], |b, p| {
            b.ins(I::Icmp { cc: IntCC::Eq, args: [p[0], p[1]] });
        });
        assert_error!(m, K::IcmpType { .. }, ["ptr<global> and ptr<flat>"]);
        let m = kernel(&[F32, F64], |b, p| {
            b.ins(I::Fcmp { cc: FloatCC::Oeq, args: [p[0], p[1]] });
        });
        assert_error!(m, K::FcmpType { .. }, ["fcmp needs two operands of one float type, got f32 and f64"]);
    }

    #[test]
    fn convert_types() {
        let ok = [
            (ConvOp::Zext, I1, I32),
            (ConvOp::Sext, I16, I64),
            (ConvOp::Itrunc, I64, I8),
            (ConvOp::Fpext, F16, F64),
            (ConvOp::Fptrunc, F64, F32),
            (ConvOp::Uitofp, I8, F16),
            (ConvOp::Fptoui, F32, I64),
            (ConvOp::Bitcast, F32, I32),
            (ConvOp::Bitcast, SHARED, I32),
            (ConvOp::Bitcast, I64, FLAT),
        ];
        for (op, from, to) in ok {
            assert_ok(&kernel(&[from], |b, p| {
                b.ins(I::Convert { op, ty: to, arg: p[0] });
            }));
        }
        let bad = [
            (ConvOp::Sext, I32, I32, "sext cannot convert i32 to i32: it needs an integer result wider"),
            (ConvOp::Zext, F32, F64, "zext cannot convert f32 to f64"),
            (ConvOp::Itrunc, I32, I64, "narrower"),
            (ConvOp::Fpext, F64, F32, "float result wider"),
            (ConvOp::Fptrunc, F32, F32, "float result narrower"),
            (ConvOp::Sitofp, I1, F32, "integer operand other than i1"),
            (ConvOp::Uitofp, F32, F32, "integer operand other than i1"),
            (ConvOp::Fptosi, F32, I1, "integer result other than i1"),
            (ConvOp::Fptoui, I32, I32, "float operand"),
            (ConvOp::Bitcast, I32, F64, "same width"),
            (ConvOp::Bitcast, GLOBAL, F64, "bitcast cannot convert ptr<global> to f64"),
            (ConvOp::Bitcast, GLOBAL, FLAT, "only to or from an integer"),
            (ConvOp::Bitcast, I1, I1, "neither i1"),
        ];
        for (op, from, to, word) in bad {
            let m = kernel(&[from], |b, p| {
                b.ins(I::Convert { op, ty: to, arg: p[0] });
            });
            assert_error!(m, K::ConvertType { .. }, [word]);
        }
    }

    #[test]
    fn ptradd_and_addrspacecast_types() {
        let m = kernel(&[I64, I32], |b, p| {
            b.ins(I::PtrAdd { args: [p[0], p[1]] });
        });
        assert_error!(m, K::PtrAddType { .. }, ["ptradd needs a pointer and an i32 or i64 offset, got i64 and i32"]);
        let m = kernel(&[GLOBAL, I16], |b, p| {
            b.ins(I::PtrAdd { args: [p[0], p[1]] });
        });
        assert_error!(m, K::PtrAddType { .. }, ["got ptr<global> and i16"]);

        for (from, to) in [(GLOBAL, SHARED), (FLAT, FLAT), (I64, FLAT)] {
            let m = kernel(&[from], |b, p| {
                b.ins(I::AddrSpaceCast { ty: to, arg: p[0] });
            });
            assert_error!(m, K::AddrSpaceCastType { .. }, ["exactly one side flat", &format!("not {from} to {to}")]);
        }
        assert_ok(&kernel(&[FLAT], |b, p| {
            b.ins(I::AddrSpaceCast { ty: PRIVATE, arg: p[0] });
        }));
    }

    // ---------------------------------------------------------------- slots, geometry, kernels

    #[test]
    fn unknown_slot() {
        let m = kernel(&[], |b, _| {
            b.ins_ty(I::SlotAddr { slot: Slot::from_u32(2) }, Some(PRIVATE));
        });
        assert_error!(m, K::UnknownSlot { .. }, ["`%0 = slot_addr slot2`", "slot2 does not exist"]);
    }

    #[test]
    fn dyn_shared_without_attr() {
        let m = kernel(&[], |b, _| {
            b.ins(I::DynSharedAddr);
        });
        assert_error!(m, K::DynSharedWithoutAttr, ["dynamic_shared attribute"]);
        let m = helper(&[], |b, _| {
            b.ins(I::DynSharedAddr);
        });
        assert_error!(m, K::DynSharedWithoutAttr, ["@h, block0"]);
    }

    #[test]
    fn barrier_in_helper() {
        let m = helper(&[], |b, _| {
            b.ins0(I::Barrier);
        });
        assert_error!(m, K::BarrierInHelper, ["`barrier`", "only allowed in kernels"]);
    }

    // ---------------------------------------------------------------- memory

    #[test]
    fn not_a_pointer() {
        let m = kernel(&[I64], |b, p| {
            b.ins(I::Load { ty: I32, ptr: p[0], flags: aligned(4) });
        });
        assert_error!(
            m,
            K::NotAPointer { what: "load", ty: I64 },
            ["address operand of load must be a pointer, not i64"]
        );
        let m = kernel(&[I32], |b, p| {
            b.ins(I::AtomicRmw { op: RmwOp::Add, args: [p[0], p[0]], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(m, K::NotAPointer { what: "atomic_rmw", .. }, ["atomic_rmw must be a pointer"]);
    }

    #[test]
    fn no_memory_type() {
        let m = kernel(&[GLOBAL], |b, p| {
            b.ins(I::Load { ty: I1, ptr: p[0], flags: aligned(1) });
        });
        assert_error!(m, K::NoMemoryType { ty: I1 }, ["i1 has no memory representation"]);
        let m = kernel(&[GLOBAL, I1], |b, p| {
            b.ins0(I::Store { args: [p[0], p[1]], flags: aligned(1) });
        });
        assert_error!(m, K::NoMemoryType { ty: I1 }, ["cannot be loaded or stored"]);
    }

    #[test]
    fn bad_align() {
        for align in [0, 3, 12] {
            let m = kernel(&[GLOBAL], |b, p| {
                b.ins(I::Load { ty: I32, ptr: p[0], flags: aligned(align) });
            });
            assert_error!(m, K::BadAlign { .. }, [&format!("alignment {align} is not a power of two")]);
        }
        let m = kernel(&[SHARED, F64], |b, p| {
            b.ins0(I::Store { args: [p[0], p[1]], flags: aligned(6) });
        });
        assert_error!(m, K::BadAlign { align: 6 }, ["`store %0, %1 align 6`"]);
    }

    #[test]
    fn write_to_constant() {
        let m = kernel(&[CONSTANT, I32], |b, p| {
            b.ins0(I::Store { args: [p[0], p[1]], flags: aligned(4) });
        });
        assert_error!(m, K::WriteToConstant { what: "store" }, ["store writes through a ptr<constant>"]);
        let m = kernel(&[CONSTANT, I32], |b, p| {
            b.ins(I::AtomicRmw { op: RmwOp::Add, args: [p[0], p[1]], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(m, K::WriteToConstant { what: "atomic_rmw" }, ["read-only"]);
        let m = kernel(&[CONSTANT, I32], |b, p| {
            b.ins0(I::AtomicStore { args: [p[0], p[1]], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(m, K::WriteToConstant { what: "atomic_store" }, ["atomic_store writes"]);
        // Reading constant memory is fine, also atomically.
        assert_ok(&kernel(&[CONSTANT], |b, p| {
            b.ins(I::Load { ty: I32, ptr: p[0], flags: aligned(4) });
            b.ins(I::AtomicLoad { ty: I32, ptr: p[0], sync: sync(Ordering::Acquire) });
        }));
    }

    #[test]
    fn av_space() {
        let flags = MemFlags { av: Some(Scope::Workgroup), ..aligned(4) };
        let m = kernel(&[SHARED], |b, p| {
            b.ins(I::Load { ty: I32, ptr: p[0], flags });
        });
        assert_error!(
            m,
            K::AvSpace { flag: "visible", space: AddrSpace::Shared },
            ["visible(..) is only allowed on global or flat pointers, not ptr<shared>"]
        );
        let m = kernel(&[PRIVATE, I32], |b, p| {
            b.ins0(I::Store { args: [p[0], p[1]], flags });
        });
        assert_error!(m, K::AvSpace { flag: "available", .. }, ["available(..)", "ptr<private>"]);
        let m = kernel(&[CONSTANT], |b, p| {
            b.ins(I::Load { ty: I32, ptr: p[0], flags });
        });
        assert_error!(m, K::AvSpace { .. }, ["ptr<constant>"]);
        assert_ok(&kernel(&[GLOBAL, FLAT, I32], |b, p| {
            b.ins(I::Load { ty: I32, ptr: p[0], flags });
            b.ins0(I::Store { args: [p[1], p[2]], flags });
        }));
    }

    #[test]
    fn atomic_space() {
        let m = kernel(&[PRIVATE, I32], |b, p| {
            b.ins(I::AtomicRmw { op: RmwOp::Add, args: [p[0], p[1]], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(
            m,
            K::AtomicSpace { what: "atomic_rmw", space: AddrSpace::Private },
            ["atomic_rmw cannot access ptr<private>", "global, shared or flat"]
        );
        let m = kernel(&[PRIVATE], |b, p| {
            b.ins(I::AtomicLoad { ty: I32, ptr: p[0], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(m, K::AtomicSpace { what: "atomic_load", .. }, ["atomic_load cannot access"]);
    }

    #[test]
    fn atomic_rmw_types() {
        for (op, ty, word) in [
            (RmwOp::Add, F32, "atomic_rmw.add needs i32 or i64, got f32"),
            (RmwOp::Umax, I16, "got i16"),
            (RmwOp::Fadd, I32, "atomic_rmw.fadd needs f32 or f64, got i32"),
            (RmwOp::Fmax, F16, "got f16"),
            (RmwOp::Xchg, I8, "atomic_rmw.xchg needs i32, i64, f32 or f64, got i8"),
            (RmwOp::Xchg, GLOBAL, "got ptr<global>"),
        ] {
            let m = kernel(&[GLOBAL, ty], |b, p| {
                b.ins(I::AtomicRmw { op, args: [p[0], p[1]], sync: sync(Ordering::Relaxed) });
            });
            assert_error!(m, K::AtomicRmwType { .. }, [word]);
        }
    }

    #[test]
    fn cas_type() {
        for (e, n, word) in [(I32, I64, "got i32 and i64"), (F32, F32, "got f32 and f32"), (I16, I16, "i16")] {
            let m = kernel(&[GLOBAL, e, n], |b, p| {
                b.ins(I::AtomicCas { args: [p[0], p[1], p[2]], sync: sync(Ordering::Relaxed) });
            });
            assert_error!(
                m,
                K::CasType { .. },
                ["atomic_cas needs expected and new values of one type, i32 or i64", word]
            );
        }
    }

    #[test]
    fn atomic_access_type() {
        let m = kernel(&[GLOBAL], |b, p| {
            b.ins(I::AtomicLoad { ty: I8, ptr: p[0], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(
            m,
            K::AtomicAccessType { what: "atomic_load", ty: I8 },
            ["atomic_load needs a 32- or 64-bit type", "got i8"]
        );
        let m = kernel(&[SHARED, I1], |b, p| {
            b.ins0(I::AtomicStore { args: [p[0], p[1]], sync: sync(Ordering::Relaxed) });
        });
        assert_error!(m, K::AtomicAccessType { what: "atomic_store", ty: I1 }, ["got i1"]);
    }

    #[test]
    fn bad_ordering() {
        for o in [Ordering::Release, Ordering::AcqRel] {
            let m = kernel(&[GLOBAL], |b, p| {
                b.ins(I::AtomicLoad { ty: I32, ptr: p[0], sync: sync(o) });
            });
            assert_error!(
                m,
                K::BadOrdering { what: "atomic_load", .. },
                [&format!("atomic_load cannot have {o} ordering")]
            );
        }
        for o in [Ordering::Acquire, Ordering::AcqRel] {
            let m = kernel(&[GLOBAL, I32], |b, p| {
                b.ins0(I::AtomicStore { args: [p[0], p[1]], sync: sync(o) });
            });
            assert_error!(m, K::BadOrdering { what: "atomic_store", .. }, [&format!("atomic_store cannot have {o}")]);
        }
        let m = kernel(&[], |b, _| {
            b.ins0(I::Fence { sync: sync(Ordering::Relaxed) });
        });
        assert_error!(
            m,
            K::BadOrdering { what: "fence", ordering: Ordering::Relaxed },
            ["fence cannot have relaxed ordering"]
        );
        // Narrow scopes are fine on atomics and fences.
        assert_ok(&kernel(&[GLOBAL], |b, p| {
            let s = SyncInfo { ordering: Ordering::SeqCst, scope: Scope::Wavefront, av_none: true };
            b.ins(I::AtomicLoad { ty: I32, ptr: p[0], sync: s });
            b.ins0(I::Fence { sync: SyncInfo { scope: Scope::Singlethread, ..s } });
        }));
    }

    // ---------------------------------------------------------------- wave operations

    #[test]
    fn wave_op_types() {
        let m = kernel(&[I32], |b, p| {
            b.ins(I::Ballot { arg: p[0] });
        });
        assert_error!(m, K::BallotType { ty: I32 }, ["ballot needs an i1 operand, not i32"]);
        let m = kernel(&[I1], |b, p| {
            b.ins(I::ReadFirstLane { arg: p[0] });
        });
        assert_error!(m, K::WaveValueType { what: "readfirstlane" }, ["readfirstlane cannot operate on i1"]);
        let m = kernel(&[I1, I32], |b, p| {
            b.ins(I::Shuffle { args: [p[0], p[1]] });
        });
        assert_error!(m, K::WaveValueType { what: "shuffle" }, ["shuffle cannot operate on i1"]);
        let m = kernel(&[F32, I64], |b, p| {
            b.ins(I::Shuffle { args: [p[0], p[1]] });
        });
        assert_error!(m, K::ShuffleLaneType { ty: I64 }, ["shuffle lane must be i32, not i64"]);
        for (op, ty, word) in [
            (ReduceOp::Add, F32, "reduce.add needs i32 or i64, got f32"),
            (ReduceOp::Xor, I16, "got i16"),
            (ReduceOp::Fmin, I32, "reduce.fmin needs f16, f32 or f64, got i32"),
        ] {
            let m = kernel(&[ty], |b, p| {
                b.ins(I::Reduce { op, arg: p[0] });
            });
            assert_error!(m, K::ReduceType { .. }, [word]);
        }
        assert_ok(&kernel(&[F16], |b, p| {
            b.ins(I::Reduce { op: ReduceOp::Fmax, arg: p[0] });
        }));
    }

    // ---------------------------------------------------------------- calls

    /// A module with helper `@h(params) -> ret` (returning a fresh value or nothing) and a kernel
    /// `@k` whose entry block runs `body`.
    fn with_helper(params: &[Type], ret: Option<Type>, body: impl FnOnce(&mut Fb)) -> Module {
        let mut h = Fb::helper("h", params, ret);
        h.entry();
        let arg = ret.map(|t| h.ins(I::IntConst { ty: t, imm: 0 }));
        h.ins0(I::Return { arg });
        let mut k = Fb::kernel(&[I32, F32]);
        k.entry();
        body(&mut k);
        k.ret();
        module(vec![h.done(), k.done()])
    }

    fn call(callee: u32, args: &[Value]) -> InstData {
        I::Call { func: FuncId::from_u32(callee), args: args.iter().copied().collect() }
    }

    #[test]
    fn call_rules() {
        assert_ok(&with_helper(&[I32], Some(I64), |k| {
            let p = k.func.dfg.blocks[k.func.layout[0]].params.clone();
            k.ins_ty(call(0, &[p[0]]), Some(I64));
        }));
        let m = with_helper(&[], None, |k| {
            k.ins0(call(7, &[]));
        });
        assert_error!(m, K::UnknownCallee { .. }, ["callee fn7 does not exist"]);
        let m = with_helper(&[], None, |k| {
            k.ins0(call(1, &[]));
        });
        assert_error!(m, K::CallToKernel { .. }, ["call of kernel @k", "only helper functions"]);
        let m = with_helper(&[I32, I32], None, |k| {
            let p = k.func.dfg.blocks[k.func.layout[0]].params.clone();
            k.ins0(call(0, &[p[0]]));
        });
        assert_error!(
            m,
            K::CallArgCount { expected: 2, found: 1, .. },
            ["@h takes 2 arguments, but the call passes 1"]
        );
        let m = with_helper(&[I32, I32], None, |k| {
            let p = k.func.dfg.blocks[k.func.layout[0]].params.clone();
            k.ins0(call(0, &[p[0], p[1]]));
        });
        assert_error!(
            m,
            K::CallArgType { index: 1, expected: I32, found: F32, .. },
            ["argument 1 of the call of @h has type f32, but the parameter has type i32"]
        );
    }

    #[test]
    fn recursion() {
        // @f calls itself.
        let mut f = Fb::helper("f", &[], None);
        f.entry();
        f.ins0(call(0, &[]));
        f.ret();
        assert_error!(module(vec![f.done()]), K::Recursion { .. }, ["`call @f()`", "(@f -> @f)", "recursion"]);

        // @k -> @a -> @b -> @a: reported once, at @b's call of @a.
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.ins0(call(1, &[]));
        k.ret();
        let mut a = Fb::helper("a", &[], None);
        a.entry();
        a.ins0(call(2, &[]));
        a.ret();
        let mut b = Fb::helper("b", &[], None);
        b.entry();
        b.ins0(call(1, &[]));
        b.ret();
        let m = module(vec![k.done(), a.done(), b.done()]);
        assert_error!(m, K::Recursion { .. }, ["@b, block0", "(@a -> @b -> @a)"]);
        assert_eq!(verify_function(&m, FuncId::from_u32(1)), Ok(()));
        let errs = verify_function(&m, FuncId::from_u32(2)).unwrap_err();
        assert!(matches!(errs.0[..], [VerifierError { kind: K::Recursion { .. }, .. }]), "{errs}");

        // Calling one helper twice is no cycle.
        let mut h = Fb::helper("h", &[], None);
        h.entry();
        h.ret();
        let mut k = Fb::kernel(&[]);
        k.entry();
        k.ins0(call(0, &[]));
        k.ins0(call(0, &[]));
        k.ret();
        assert_ok(&module(vec![h.done(), k.done()]));
    }

    // ---------------------------------------------------------------- results

    #[test]
    fn result_type() {
        let m = kernel(&[I32], |b, p| {
            b.ins_ty(I::Binary { op: BinaryOp::Add, args: [p[0], p[0]] }, Some(I64));
        });
        assert_error!(
            m,
            K::ResultType { expected: Some(I32), found: Some(I64) },
            ["the result is i64, but the instruction computes i32"]
        );
        let m = kernel(&[GLOBAL, I32], |b, p| {
            b.ins_ty(I::Store { args: [p[0], p[1]], flags: aligned(4) }, Some(I32));
        });
        assert_error!(
            m,
            K::ResultType { expected: None, found: Some(I32) },
            ["the result is i32, but the instruction computes nothing"]
        );
        let m = kernel(&[], |b, _| {
            b.ins_ty(I::IntConst { ty: I32, imm: 1 }, None);
        });
        assert_error!(m, K::ResultType { expected: Some(I32), found: None }, ["the result is nothing"]);
        let m = kernel(&[GLOBAL, I64], |b, p| {
            b.ins_ty(I::PtrAdd { args: [p[0], p[1]] }, Some(FLAT));
        });
        assert_error!(m, K::ResultType { .. }, ["ptr<flat>", "computes ptr<global>"]);
        let m = kernel(&[], |b, _| {
            b.ins_ty(I::Special { value: Special::LaneId }, Some(I64));
        });
        assert_error!(m, K::ResultType { .. }, ["computes i32"]);
        let m = with_helper(&[], Some(I32), |k| {
            k.ins0(call(0, &[]));
        });
        assert_error!(m, K::ResultType { expected: Some(I32), found: None }, ["`call @h()`"]);
        let m = with_helper(&[], None, |k| {
            k.ins_ty(call(0, &[]), Some(I32));
        });
        assert_error!(m, K::ResultType { expected: None, found: Some(I32) }, ["computes nothing"]);
    }
}
