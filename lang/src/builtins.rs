//! The built-in values and functions of the language, by name: the work-item geometry, the
//! synchronization and atomic functions, math, and wave operations. The checker looks names up
//! here and checks the arguments; the lowering turns each into IR.

use frontend_ir::{Ordering, Scope};

/// A geometry value with `.x .y .z` fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// `local_id`: the work-item's id within its workgroup.
    LocalId,
    /// `group_id`: the workgroup's id within the grid.
    GroupId,
    /// `group_size`: the nominal workgroup size.
    GroupSize,
    /// `global_id` = `group_id * group_size + local_id`.
    GlobalId,
    /// `num_groups`: workgroups in the grid.
    NumGroups,
}

impl Geometry {
    /// Looks a geometry value up by name.
    pub fn from_name(name: &str) -> Option<Geometry> {
        Some(match name {
            "local_id" => Geometry::LocalId,
            "group_id" => Geometry::GroupId,
            "group_size" => Geometry::GroupSize,
            "global_id" => Geometry::GlobalId,
            "num_groups" => Geometry::NumGroups,
            _ => return None,
        })
    }
}

/// The atomic operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Xchg,
    Cas,
    Load,
    Store,
}

impl AtomicOp {
    /// How many value arguments follow the address (`atomic_cas` has two, `atomic_load` none).
    pub fn value_args(self) -> usize {
        match self {
            AtomicOp::Cas => 2,
            AtomicOp::Load => 0,
            _ => 1,
        }
    }
}

/// The math functions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Exp2,
    Log2,
    Sin,
    Cos,
    Floor,
    Ceil,
    Trunc,
    Round,
    Fma,
    Min,
    Max,
    Abs,
    Clamp,
    Popcount,
    Clz,
    Ctz,
    MulHi,
}

/// What kinds of arguments a math function takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MathKind {
    /// Floats only.
    Float,
    /// Integers only.
    Int,
    /// Integers or floats.
    Numeric,
}

impl MathFn {
    /// The number of arguments, all of one type.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Fma | MathFn::Clamp => 3,
            MathFn::Min | MathFn::Max | MathFn::MulHi => 2,
            _ => 1,
        }
    }

    /// The kinds of arguments it takes.
    pub fn kind(self) -> MathKind {
        match self {
            MathFn::Min | MathFn::Max | MathFn::Abs | MathFn::Clamp => MathKind::Numeric,
            MathFn::Popcount | MathFn::Clz | MathFn::Ctz | MathFn::MulHi => MathKind::Int,
            _ => MathKind::Float,
        }
    }
}

/// The wave operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum WaveFn {
    Ballot,
    ReadFirstLane,
    Shuffle,
    Sum,
    Min,
    Max,
    Any,
    All,
}

/// A built-in function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinFn {
    /// `barrier()`.
    Barrier,
    /// `fence(ORDER, SCOPE)`.
    Fence,
    /// `atomic_*(&place, ...)`.
    Atomic(AtomicOp),
    /// A math function.
    Math(MathFn),
    /// A wave operation.
    Wave(WaveFn),
}

/// Every built-in function with its name.
const FUNCTIONS: [(&str, BuiltinFn); 40] = [
    ("barrier", BuiltinFn::Barrier),
    ("fence", BuiltinFn::Fence),
    ("atomic_add", BuiltinFn::Atomic(AtomicOp::Add)),
    ("atomic_sub", BuiltinFn::Atomic(AtomicOp::Sub)),
    ("atomic_min", BuiltinFn::Atomic(AtomicOp::Min)),
    ("atomic_max", BuiltinFn::Atomic(AtomicOp::Max)),
    ("atomic_and", BuiltinFn::Atomic(AtomicOp::And)),
    ("atomic_or", BuiltinFn::Atomic(AtomicOp::Or)),
    ("atomic_xor", BuiltinFn::Atomic(AtomicOp::Xor)),
    ("atomic_xchg", BuiltinFn::Atomic(AtomicOp::Xchg)),
    ("atomic_cas", BuiltinFn::Atomic(AtomicOp::Cas)),
    ("atomic_load", BuiltinFn::Atomic(AtomicOp::Load)),
    ("atomic_store", BuiltinFn::Atomic(AtomicOp::Store)),
    ("sqrt", BuiltinFn::Math(MathFn::Sqrt)),
    ("rsqrt", BuiltinFn::Math(MathFn::Rsqrt)),
    ("exp2", BuiltinFn::Math(MathFn::Exp2)),
    ("log2", BuiltinFn::Math(MathFn::Log2)),
    ("sin", BuiltinFn::Math(MathFn::Sin)),
    ("cos", BuiltinFn::Math(MathFn::Cos)),
    ("floor", BuiltinFn::Math(MathFn::Floor)),
    ("ceil", BuiltinFn::Math(MathFn::Ceil)),
    ("trunc", BuiltinFn::Math(MathFn::Trunc)),
    ("round", BuiltinFn::Math(MathFn::Round)),
    ("fma", BuiltinFn::Math(MathFn::Fma)),
    ("min", BuiltinFn::Math(MathFn::Min)),
    ("max", BuiltinFn::Math(MathFn::Max)),
    ("abs", BuiltinFn::Math(MathFn::Abs)),
    ("clamp", BuiltinFn::Math(MathFn::Clamp)),
    ("popcount", BuiltinFn::Math(MathFn::Popcount)),
    ("clz", BuiltinFn::Math(MathFn::Clz)),
    ("ctz", BuiltinFn::Math(MathFn::Ctz)),
    ("mul_hi", BuiltinFn::Math(MathFn::MulHi)),
    ("ballot", BuiltinFn::Wave(WaveFn::Ballot)),
    ("readfirstlane", BuiltinFn::Wave(WaveFn::ReadFirstLane)),
    ("shuffle", BuiltinFn::Wave(WaveFn::Shuffle)),
    ("wave_sum", BuiltinFn::Wave(WaveFn::Sum)),
    ("wave_min", BuiltinFn::Wave(WaveFn::Min)),
    ("wave_max", BuiltinFn::Wave(WaveFn::Max)),
    ("any", BuiltinFn::Wave(WaveFn::Any)),
    ("all", BuiltinFn::Wave(WaveFn::All)),
];

impl BuiltinFn {
    /// Looks a built-in function up by name.
    pub fn from_name(name: &str) -> Option<BuiltinFn> {
        FUNCTIONS.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
    }

    /// The names of all built-in functions.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FUNCTIONS.iter().map(|(n, _)| *n)
    }

    /// The function's name.
    pub fn name(self) -> &'static str {
        FUNCTIONS.iter().find(|(_, f)| *f == self).map_or("?", |(n, _)| n)
    }
}

/// A memory ordering by its source name (`relaxed`, `acquire`, `release`, `acq_rel`,
/// `seq_cst`).
pub fn ordering_from_name(name: &str) -> Option<Ordering> {
    Ordering::from_name(name)
}

/// A synchronization scope by its source name (`wavefront`, `workgroup`, `cluster`, `agent`,
/// `system`).
pub fn scope_from_name(name: &str) -> Option<Scope> {
    Scope::from_name(name).filter(|s| *s != Scope::Singlethread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (name, f) in FUNCTIONS {
            assert_eq!(BuiltinFn::from_name(name), Some(f));
            assert_eq!(f.name(), name);
        }
        assert_eq!(scope_from_name("singlethread"), None);
        assert_eq!(ordering_from_name("acq_rel"), Some(Ordering::AcqRel));
    }
}
