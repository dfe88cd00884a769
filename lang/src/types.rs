//! The types of the kernel language and how they map to IR types.
//!
//! Scalars ([`ScalarTy`]) are `bool`, the four integer types and the three float types. A
//! kernel parameter may also be a buffer (`&[T]` or `&mut [T]`, a pointer into global memory),
//! and a declaration may make a shared or private array (`[T; N]`). Signedness lives here: the
//! IR's integers carry none, so `u32` and `i32` are both `i32` there and the lowering picks
//! signed or unsigned operations from these types.

use frontend_ir::Type;
use std::fmt;

/// A scalar type of the language.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarTy {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `f16`.
    F16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl ScalarTy {
    /// Every scalar type.
    pub const ALL: [ScalarTy; 8] = [
        ScalarTy::Bool,
        ScalarTy::I32,
        ScalarTy::U32,
        ScalarTy::I64,
        ScalarTy::U64,
        ScalarTy::F16,
        ScalarTy::F32,
        ScalarTy::F64,
    ];

    /// The name as written in source.
    pub fn name(self) -> &'static str {
        match self {
            ScalarTy::Bool => "bool",
            ScalarTy::I32 => "i32",
            ScalarTy::U32 => "u32",
            ScalarTy::I64 => "i64",
            ScalarTy::U64 => "u64",
            ScalarTy::F16 => "f16",
            ScalarTy::F32 => "f32",
            ScalarTy::F64 => "f64",
        }
    }

    /// The type named `name`, if any.
    pub fn from_name(name: &str) -> Option<ScalarTy> {
        ScalarTy::ALL.into_iter().find(|t| t.name() == name)
    }

    /// An integer type (not `bool`).
    pub fn is_int(self) -> bool {
        matches!(self, ScalarTy::I32 | ScalarTy::U32 | ScalarTy::I64 | ScalarTy::U64)
    }

    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, ScalarTy::I32 | ScalarTy::I64)
    }

    /// A float type.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64)
    }

    /// An integer or float type.
    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }

    /// Width in bits (1 for `bool`).
    pub fn bits(self) -> u32 {
        self.ir().bits()
    }

    /// The IR type of a value of this type.
    pub fn ir(self) -> Type {
        match self {
            ScalarTy::Bool => Type::I1,
            ScalarTy::I32 | ScalarTy::U32 => Type::I32,
            ScalarTy::I64 | ScalarTy::U64 => Type::I64,
            ScalarTy::F16 => Type::F16,
            ScalarTy::F32 => Type::F32,
            ScalarTy::F64 => Type::F64,
        }
    }

    /// Size in memory, in bytes; `None` for `bool`, which has no memory representation.
    pub fn bytes(self) -> Option<u32> {
        self.ir().bytes()
    }

    /// The smallest and largest value of an integer type, as `i128`.
    pub fn int_range(self) -> (i128, i128) {
        match self {
            ScalarTy::I32 => (i32::MIN.into(), i32::MAX.into()),
            ScalarTy::U32 => (0, u32::MAX.into()),
            ScalarTy::I64 => (i64::MIN.into(), i64::MAX.into()),
            ScalarTy::U64 => (0, u64::MAX.into()),
            _ => (0, 0),
        }
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an array lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// `shared name: [T; N]`: workgroup-shared memory.
    Shared,
    /// `var name: [T; N]`: per-work-item memory.
    Private,
}

/// The type of a name or an expression.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A scalar value.
    Scalar(ScalarTy),
    /// A buffer in global memory: `&[T]`, or `&mut [T]` when `mutable`.
    Buffer {
        /// The element type.
        elem: ScalarTy,
        /// Whether the kernel may write it.
        mutable: bool,
    },
    /// A shared or private array of `len` elements.
    Array {
        /// The element type.
        elem: ScalarTy,
        /// The number of elements.
        len: u32,
        /// Shared or private.
        kind: ArrayKind,
    },
    /// Nothing: a statement-like call such as `barrier()`.
    Unit,
    /// The type of an expression that already has an error; it matches everything, so one
    /// mistake is reported once.
    Error,
}

impl Ty {
    /// The scalar type, if this is a scalar.
    pub fn scalar(self) -> Option<ScalarTy> {
        match self {
            Ty::Scalar(t) => Some(t),
            _ => None,
        }
    }

    /// The element type of a buffer or an array.
    pub fn elem(self) -> Option<ScalarTy> {
        match self {
            Ty::Buffer { elem, .. } | Ty::Array { elem, .. } => Some(elem),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(t) => write!(f, "{t}"),
            Ty::Buffer { elem, mutable: false } => write!(f, "&[{elem}]"),
            Ty::Buffer { elem, mutable: true } => write!(f, "&mut [{elem}]"),
            Ty::Array { elem, len, kind: ArrayKind::Shared } => write!(f, "shared [{elem}; {len}]"),
            Ty::Array { elem, len, kind: ArrayKind::Private } => write!(f, "[{elem}; {len}]"),
            Ty::Unit => f.write_str("()"),
            Ty::Error => f.write_str("{error}"),
        }
    }
}

/// How a kernel parameter is passed, for embedders that set up arguments (the `gcnc run`
/// command line takes a scalar's type from here).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A scalar passed by value.
    Scalar(ScalarTy),
    /// A buffer passed as a global-memory address.
    Buffer {
        /// The element type.
        elem: ScalarTy,
        /// `&mut [T]` rather than `&[T]`.
        mutable: bool,
    },
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ParamType::Scalar(t) => write!(f, "{}", Ty::Scalar(t)),
            ParamType::Buffer { elem, mutable } => write!(f, "{}", Ty::Buffer { elem, mutable }),
        }
    }
}
