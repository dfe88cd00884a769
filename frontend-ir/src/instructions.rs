//! The instruction set of the IR: what each instruction computes, its operands, and the
//! memory-model annotations of memory operations.
//!
//! Every instruction has at most one result. Its operands are SSA values; branch targets carry
//! their arguments in [`BlockCall`]s. Opcode names here are the ones the text format uses, so the
//! printer and the parser share one table.

use crate::entities::{Block, FuncId, Slot, Value};
use crate::types::Type;
use smallvec::SmallVec;

/// Declares a fieldless enum with a text name per variant, and `ALL`, `name` and `from_name`.
macro_rules! named_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name used in the text format.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// Looks a variant up by its text-format name.
            pub fn from_name(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// A one-operand operation whose result has the operand's type.
    pub enum UnaryOp {
        /// Two's-complement negation.
        Neg = "neg",
        /// Bitwise not (logical not on `i1`).
        Not = "not",
        /// Integer absolute value (`MIN` stays `MIN`).
        Iabs = "iabs",
        /// Number of set bits.
        Popcount = "popcount",
        /// Number of leading zero bits (the bit width for zero).
        Clz = "clz",
        /// Number of trailing zero bits (the bit width for zero).
        Ctz = "ctz",
        /// Float negation (flips the sign bit, also of NaN).
        Fneg = "fneg",
        /// Float absolute value (clears the sign bit).
        Fabs = "fabs",
        /// Correctly rounded square root.
        Sqrt = "sqrt",
        /// Reciprocal square root (approximate; see the precision rules).
        Rsqrt = "rsqrt",
        /// Base-2 exponential (approximate).
        Exp2 = "exp2",
        /// Base-2 logarithm (approximate).
        Log2 = "log2",
        /// Sine of radians (approximate).
        Sin = "sin",
        /// Cosine of radians (approximate).
        Cos = "cos",
        /// Round toward negative infinity.
        Floor = "floor",
        /// Round toward positive infinity.
        Ceil = "ceil",
        /// Round toward zero.
        Ftrunc = "ftrunc",
        /// Round to nearest, ties away from zero (Rust's and OpenCL's `round`).
        Round = "round",
    }
}

impl UnaryOp {
    /// Whether the operation takes a float operand (otherwise an integer one).
    pub fn is_float(self) -> bool {
        !matches!(self, UnaryOp::Neg | UnaryOp::Not | UnaryOp::Iabs | UnaryOp::Popcount | UnaryOp::Clz | UnaryOp::Ctz)
    }
}

named_enum! {
    /// A two-operand operation on operands of one type, with a result of that type.
    pub enum BinaryOp {
        /// Wrapping addition.
        Add = "add",
        /// Wrapping subtraction.
        Sub = "sub",
        /// Wrapping multiplication.
        Mul = "mul",
        /// High half of the unsigned double-width product.
        UmulHi = "umulhi",
        /// High half of the signed double-width product.
        SmulHi = "smulhi",
        /// Unsigned division; `x / 0` is all ones.
        Udiv = "udiv",
        /// Signed division; `x / 0` is -1 and `MIN / -1` is `MIN`.
        Sdiv = "sdiv",
        /// Unsigned remainder; `x % 0` is `x`.
        Urem = "urem",
        /// Signed remainder (sign of the dividend); `x % 0` is `x`, `MIN % -1` is 0.
        Srem = "srem",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise exclusive or.
        Xor = "xor",
        /// Shift left; the amount is taken modulo the bit width.
        Shl = "shl",
        /// Logical shift right; the amount is taken modulo the bit width.
        Lshr = "lshr",
        /// Arithmetic shift right; the amount is taken modulo the bit width.
        Ashr = "ashr",
        /// Signed minimum.
        Smin = "smin",
        /// Signed maximum.
        Smax = "smax",
        /// Unsigned minimum.
        Umin = "umin",
        /// Unsigned maximum.
        Umax = "umax",
        /// Float addition.
        Fadd = "fadd",
        /// Float subtraction.
        Fsub = "fsub",
        /// Float multiplication.
        Fmul = "fmul",
        /// Correctly rounded float division.
        Fdiv = "fdiv",
        /// IEEE minNum: a NaN operand yields the other operand; -0 is below +0.
        Fmin = "fmin",
        /// IEEE maxNum: a NaN operand yields the other operand; +0 is above -0.
        Fmax = "fmax",
    }
}

impl BinaryOp {
    /// Whether the operation takes float operands (otherwise integer ones).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::Fadd | BinaryOp::Fsub | BinaryOp::Fmul | BinaryOp::Fdiv | BinaryOp::Fmin | BinaryOp::Fmax
        )
    }
}

named_enum! {
    /// An integer (or pointer) comparison.
    pub enum IntCC {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed less than.
        Slt = "slt",
        /// Signed less than or equal.
        Sle = "sle",
        /// Signed greater than.
        Sgt = "sgt",
        /// Signed greater than or equal.
        Sge = "sge",
        /// Unsigned less than.
        Ult = "ult",
        /// Unsigned less than or equal.
        Ule = "ule",
        /// Unsigned greater than.
        Ugt = "ugt",
        /// Unsigned greater than or equal.
        Uge = "uge",
    }
}

named_enum! {
    /// A float comparison: ordered (false on NaN) or unordered (true on NaN), as in LLVM.
    pub enum FloatCC {
        /// Ordered and equal.
        Oeq = "oeq",
        /// Ordered and not equal.
        One = "one",
        /// Ordered and less than.
        Olt = "olt",
        /// Ordered and less than or equal.
        Ole = "ole",
        /// Ordered and greater than.
        Ogt = "ogt",
        /// Ordered and greater than or equal.
        Oge = "oge",
        /// Neither operand is NaN.
        Ord = "ord",
        /// Either operand is NaN.
        Uno = "uno",
        /// Unordered or equal.
        Ueq = "ueq",
        /// Unordered or not equal.
        Une = "une",
        /// Unordered or less than.
        Ult = "ult",
        /// Unordered or less than or equal.
        Ule = "ule",
        /// Unordered or greater than.
        Ugt = "ugt",
        /// Unordered or greater than or equal.
        Uge = "uge",
    }
}

named_enum! {
    /// A conversion to the instruction's result type.
    pub enum ConvOp {
        /// Sign-extend to a wider integer.
        Sext = "sext",
        /// Zero-extend to a wider integer (`i1` becomes 0 or 1).
        Zext = "zext",
        /// Truncate to a narrower integer.
        Itrunc = "itrunc",
        /// Widen a float exactly.
        Fpext = "fpext",
        /// Narrow a float, rounding to nearest even.
        Fptrunc = "fptrunc",
        /// Signed integer to float, rounding to nearest even.
        Sitofp = "sitofp",
        /// Unsigned integer to float, rounding to nearest even.
        Uitofp = "uitofp",
        /// Float to signed integer, toward zero, saturating; NaN gives 0 (Rust's `as`).
        Fptosi = "fptosi",
        /// Float to unsigned integer, toward zero, saturating; NaN gives 0 (Rust's `as`).
        Fptoui = "fptoui",
        /// Reinterpret the bits as a type of the same width (integer, float or pointer).
        Bitcast = "bitcast",
    }
}

named_enum! {
    /// The operation of an atomic read-modify-write.
    pub enum RmwOp {
        /// Integer addition.
        Add = "add",
        /// Integer subtraction.
        Sub = "sub",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise exclusive or.
        Xor = "xor",
        /// Exchange.
        Xchg = "xchg",
        /// Signed minimum.
        Smin = "smin",
        /// Signed maximum.
        Smax = "smax",
        /// Unsigned minimum.
        Umin = "umin",
        /// Unsigned maximum.
        Umax = "umax",
        /// Float addition.
        Fadd = "fadd",
        /// Float subtraction.
        Fsub = "fsub",
        /// Float minimum (as [`BinaryOp::Fmin`], except that a signalling NaN operand, in
        /// memory or not, gives that NaN quieted: IEEE 754-2008's minNum, what the hardware's
        /// memory atomics compute).
        Fmin = "fmin",
        /// Float maximum (as [`RmwOp::Fmin`]).
        Fmax = "fmax",
    }
}

impl RmwOp {
    /// Whether the operation works on floats (otherwise on integers; `xchg` on any type).
    pub fn is_float(self) -> bool {
        matches!(self, RmwOp::Fadd | RmwOp::Fsub | RmwOp::Fmin | RmwOp::Fmax)
    }
}

named_enum! {
    /// The combining operation of a wave reduction over the active lanes.
    pub enum ReduceOp {
        /// Wrapping integer sum.
        Add = "add",
        /// Signed minimum.
        Smin = "smin",
        /// Signed maximum.
        Smax = "smax",
        /// Unsigned minimum.
        Umin = "umin",
        /// Unsigned maximum.
        Umax = "umax",
        /// Float sum, added in increasing lane order.
        Fadd = "fadd",
        /// Float minimum.
        Fmin = "fmin",
        /// Float maximum.
        Fmax = "fmax",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise exclusive or.
        Xor = "xor",
    }
}

impl ReduceOp {
    /// Whether the reduction works on floats (otherwise on integers).
    pub fn is_float(self) -> bool {
        matches!(self, ReduceOp::Fadd | ReduceOp::Fmin | ReduceOp::Fmax)
    }
}

named_enum! {
    /// The ordering of an atomic operation or fence (LLVM's orderings, `unordered` and
    /// `monotonic` written `relaxed`).
    pub enum Ordering {
        /// No ordering beyond the atomicity of the access.
        Relaxed = "relaxed",
        /// Later accesses stay after it.
        Acquire = "acquire",
        /// Earlier accesses stay before it.
        Release = "release",
        /// Both acquire and release.
        AcqRel = "acq_rel",
        /// Acquire-release and one total order over all sequentially consistent operations.
        SeqCst = "seq_cst",
    }
}

impl Ordering {
    /// Whether the ordering includes acquire semantics.
    pub fn is_acquire(self) -> bool {
        matches!(self, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
    }

    /// Whether the ordering includes release semantics.
    pub fn is_release(self) -> bool {
        matches!(self, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
    }
}

named_enum! {
    /// A synchronization scope, from the smallest to the largest.
    pub enum Scope {
        /// The work-item itself.
        Singlethread = "singlethread",
        /// The work-items of one wave.
        Wavefront = "wavefront",
        /// The work-items of one workgroup.
        Workgroup = "workgroup",
        /// The workgroups of one cluster (agent scope on targets without clusters).
        Cluster = "cluster",
        /// The whole device.
        Agent = "agent",
        /// The device, the host and other devices.
        System = "system",
    }
}

/// The memory-model annotation of an atomic operation or a fence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncInfo {
    /// The ordering.
    pub ordering: Ordering,
    /// The scope.
    pub scope: Scope,
    /// `amdgcn-av none`: the operation orders, but is not a MakeAvailable or MakeVisible
    /// operation on other accesses (AMDGPUMemoryModel-av.rst, "MakeAvailable and MakeVisible").
    pub av_none: bool,
}

/// Flags of a non-atomic load or store.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemFlags {
    /// Alignment in bytes, a power of two (1 when unknown).
    pub align: u32,
    /// The access must happen exactly as written (never merged, split or removed).
    pub volatile: bool,
    /// The data is not expected to be reused soon (streaming cache policy).
    pub nontemporal: bool,
    /// With a scope, a store is *store-available* and a load is *load-visible* at that scope
    /// (AMDGPUMemoryModel-av.rst). Only allowed on global and flat pointers.
    pub av: Option<Scope>,
}

impl MemFlags {
    /// Plain flags for an access naturally aligned to `align` bytes.
    pub fn aligned(align: u32) -> MemFlags {
        MemFlags { align, volatile: false, nontemporal: false, av: None }
    }
}

named_enum! {
    /// A dimension of the work-item geometry.
    pub enum Dim {
        /// The first dimension.
        X = "x",
        /// The second dimension.
        Y = "y",
        /// The third dimension.
        Z = "z",
    }
}

impl Dim {
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A value of the dispatch geometry. All are `i32`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// The work-item's id within its workgroup.
    LocalId(Dim),
    /// The workgroup's id within the grid.
    GroupId(Dim),
    /// The nominal workgroup size of the dispatch (also in a partial last group).
    GroupSize(Dim),
    /// The number of workgroups in the grid (rounded up for a partial last group).
    NumGroups(Dim),
    /// The work-item's lane within its wave.
    LaneId,
    /// The number of lanes in a wave (32 or 64).
    WaveSize,
}

impl Special {
    /// The text-format name without the dimension (`local_id`, `lane_id`, ...).
    pub fn base_name(self) -> &'static str {
        match self {
            Special::LocalId(_) => "local_id",
            Special::GroupId(_) => "group_id",
            Special::GroupSize(_) => "group_size",
            Special::NumGroups(_) => "num_groups",
            Special::LaneId => "lane_id",
            Special::WaveSize => "wave_size",
        }
    }

    /// The dimension, for the geometry values that have one.
    pub fn dim(self) -> Option<Dim> {
        match self {
            Special::LocalId(d) | Special::GroupId(d) | Special::GroupSize(d) | Special::NumGroups(d) => Some(d),
            Special::LaneId | Special::WaveSize => None,
        }
    }

    /// Builds the value from its base name and dimension; `None` when they do not fit together.
    pub fn from_parts(base: &str, dim: Option<Dim>) -> Option<Special> {
        Some(match (base, dim) {
            ("local_id", Some(d)) => Special::LocalId(d),
            ("group_id", Some(d)) => Special::GroupId(d),
            ("group_size", Some(d)) => Special::GroupSize(d),
            ("num_groups", Some(d)) => Special::NumGroups(d),
            ("lane_id", None) => Special::LaneId,
            ("wave_size", None) => Special::WaveSize,
            _ => return None,
        })
    }
}

/// A branch target with the arguments passed to its block parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockCall {
    /// The target block.
    pub block: Block,
    /// One argument per parameter of `block`.
    pub args: SmallVec<[Value; 4]>,
}

impl BlockCall {
    /// A call of `block` with `args`.
    pub fn new(block: Block, args: &[Value]) -> BlockCall {
        BlockCall { block, args: SmallVec::from_slice(args) }
    }
}

/// An instruction: its opcode and operands. The result type is implied (see
/// [`crate::DataFlowGraph::result_type`]), except where the instruction names it (`ty`).
/// Atomic accesses are naturally aligned (to their type's size); they have no align flag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant's syntax line names its fields
pub enum InstData {
    /// `iconst.T imm`: an integer (or null pointer) constant, held zero-extended to 64 bits.
    IntConst { ty: Type, imm: u64 },
    /// `fconst.T value`: a float constant given by its bits.
    FloatConst { ty: Type, bits: u64 },
    /// `op %a`.
    Unary { op: UnaryOp, arg: Value },
    /// `op %a, %b`.
    Binary { op: BinaryOp, args: [Value; 2] },
    /// `fma %a, %b, %c`: `a * b + c` with one rounding.
    Fma { args: [Value; 3] },
    /// `select %cond, %if_true, %if_false`.
    Select { args: [Value; 3] },
    /// `icmp cc %a, %b`, giving `i1`.
    Icmp { cc: IntCC, args: [Value; 2] },
    /// `fcmp cc %a, %b`, giving `i1`.
    Fcmp { cc: FloatCC, args: [Value; 2] },
    /// `op.T %a`: a conversion to `ty`.
    Convert { op: ConvOp, ty: Type, arg: Value },
    /// `ptradd %p, %offset`: the pointer plus a signed byte offset (`i32` or `i64`).
    PtrAdd { args: [Value; 2] },
    /// `addrspacecast.T %p`: a pointer converted to or from the flat address space.
    AddrSpaceCast { ty: Type, arg: Value },
    /// `slot_addr slotN`: the address of a shared or private slot of the function.
    SlotAddr { slot: Slot },
    /// `dyn_shared_addr`: the start of the dynamic shared memory, after the static slots.
    DynSharedAddr,
    /// A value of the dispatch geometry, `local_id.x` and so on.
    Special { value: Special },
    /// `load.T %p flags`.
    Load { ty: Type, ptr: Value, flags: MemFlags },
    /// `store %p, %v flags`.
    Store { args: [Value; 2], flags: MemFlags },
    /// `atomic_rmw.op %p, %v ordering scope [av_none]`, giving the old value.
    AtomicRmw { op: RmwOp, args: [Value; 2], sync: SyncInfo },
    /// `atomic_cas %p, %expected, %new ordering scope [av_none]`, giving the old value; it
    /// stores `new` only when the old value equals `expected` (bitwise).
    AtomicCas { args: [Value; 3], sync: SyncInfo },
    /// `atomic_load.T %p ordering scope [av_none]`.
    AtomicLoad { ty: Type, ptr: Value, sync: SyncInfo },
    /// `atomic_store %p, %v ordering scope [av_none]`.
    AtomicStore { args: [Value; 2], sync: SyncInfo },
    /// `fence ordering scope [av_none]`.
    Fence { sync: SyncInfo },
    /// `barrier`: the workgroup execution barrier, acquire-release at workgroup scope.
    Barrier,
    /// `ballot %c`: an `i64` with bit i set for each active lane i where `c` holds.
    Ballot { arg: Value },
    /// `readfirstlane %v`: the value of the lowest active lane.
    ReadFirstLane { arg: Value },
    /// `shuffle %v, %lane`: `v` of lane `lane` (0 if that lane is inactive or out of range).
    Shuffle { args: [Value; 2] },
    /// `reduce.op %v`: the reduction of `v` over the active lanes.
    Reduce { op: ReduceOp, arg: Value },
    /// `call @f(%args...)`: a call of a helper function.
    Call { func: FuncId, args: SmallVec<[Value; 4]> },
    /// `jump blockN(args)`.
    Jump { dest: BlockCall },
    /// `brif %c, blockT(args), blockF(args)`.
    Brif { cond: Value, dests: Box<[BlockCall; 2]> },
    /// `switch %v, blockD(args), [k: blockK(args), ...]`: `dests[0]` is the default and
    /// `dests[i + 1]` the target of `cases[i]`.
    Switch { arg: Value, cases: Box<[u64]>, dests: Box<[BlockCall]> },
    /// `ret` or `ret %v`.
    Return { arg: Option<Value> },
    /// `unreachable`: reaching it is an error.
    Unreachable,
}

/// The operand slice of an instruction, shared by [`InstData::args`] and [`InstData::args_mut`]:
/// `$one` makes a slice of one value, `$opt` one of an `Option`, and `mut` picks the borrow.
macro_rules! operand_slice {
    ($data:expr, $one:path, $opt:ident $(, $m:tt)?) => {
        match $data {
            InstData::IntConst { .. }
            | InstData::FloatConst { .. }
            | InstData::SlotAddr { .. }
            | InstData::DynSharedAddr
            | InstData::Special { .. }
            | InstData::Fence { .. }
            | InstData::Barrier
            | InstData::Jump { .. }
            | InstData::Unreachable => &$($m)? [],
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::AddrSpaceCast { arg, .. }
            | InstData::Ballot { arg }
            | InstData::ReadFirstLane { arg }
            | InstData::Reduce { arg, .. }
            | InstData::Brif { cond: arg, .. }
            | InstData::Switch { arg, .. }
            | InstData::Load { ptr: arg, .. }
            | InstData::AtomicLoad { ptr: arg, .. } => $one(arg),
            InstData::Binary { args, .. }
            | InstData::Icmp { args, .. }
            | InstData::Fcmp { args, .. }
            | InstData::PtrAdd { args }
            | InstData::Store { args, .. }
            | InstData::AtomicRmw { args, .. }
            | InstData::AtomicStore { args, .. }
            | InstData::Shuffle { args } => &$($m)? args[..],
            InstData::Fma { args } | InstData::Select { args } | InstData::AtomicCas { args, .. } => &$($m)? args[..],
            InstData::Call { args, .. } => &$($m)? args[..],
            InstData::Return { arg } => arg.$opt(),
        }
    };
}

impl InstData {
    /// The value operands, branch arguments excluded.
    pub fn args(&self) -> &[Value] {
        operand_slice!(self, core::slice::from_ref, as_slice)
    }

    /// The value operands, mutably, branch arguments excluded.
    pub fn args_mut(&mut self) -> &mut [Value] {
        operand_slice!(self, core::slice::from_mut, as_mut_slice, mut)
    }

    /// The branch targets of a terminator (empty for other instructions).
    pub fn block_calls(&self) -> &[BlockCall] {
        match self {
            InstData::Jump { dest } => core::slice::from_ref(dest),
            InstData::Brif { dests, .. } => &dests[..],
            InstData::Switch { dests, .. } => dests,
            _ => &[],
        }
    }

    /// The branch targets of a terminator, mutably.
    pub fn block_calls_mut(&mut self) -> &mut [BlockCall] {
        match self {
            InstData::Jump { dest } => core::slice::from_mut(dest),
            InstData::Brif { dests, .. } => &mut dests[..],
            InstData::Switch { dests, .. } => dests,
            _ => &mut [],
        }
    }

    /// Whether the instruction ends a block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstData::Jump { .. }
                | InstData::Brif { .. }
                | InstData::Switch { .. }
                | InstData::Return { .. }
                | InstData::Unreachable
        )
    }

    /// Whether the instruction reads or writes memory, or synchronizes.
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            InstData::Store { .. }
                | InstData::AtomicRmw { .. }
                | InstData::AtomicCas { .. }
                | InstData::AtomicLoad { .. }
                | InstData::AtomicStore { .. }
                | InstData::Fence { .. }
                | InstData::Barrier
                | InstData::Call { .. }
        ) || self.is_terminator()
            || matches!(self, InstData::Load { flags, .. } if flags.volatile)
    }

    /// The pointer operand of a memory access, with the access's memory type source.
    pub fn mem_ptr(&self) -> Option<Value> {
        match self {
            InstData::Load { ptr, .. } | InstData::AtomicLoad { ptr, .. } => Some(*ptr),
            InstData::Store { args, .. } | InstData::AtomicRmw { args, .. } | InstData::AtomicStore { args, .. } => {
                Some(args[0])
            }
            InstData::AtomicCas { args, .. } => Some(args[0]),
            _ => None,
        }
    }
}
