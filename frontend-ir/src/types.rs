//! Value types: a boolean, integers, floats, and pointers tagged with an address space.
//!
//! Integers carry no sign: operations that care (division, comparison, widening, conversion
//! to float) come in signed and unsigned forms, as in LLVM and Cranelift.

use core::fmt;

/// Where a pointer points. The numbering follows AMDGPU's address spaces in spirit, not in value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddrSpace {
    /// Device memory visible to all work-items (64-bit addresses).
    Global,
    /// Workgroup-shared memory, LDS (32-bit offsets into the group's allocation).
    Shared,
    /// Read-only device memory (64-bit addresses); stores to it are rejected.
    Constant,
    /// Per-work-item memory, scratch (32-bit offsets into the work-item's allocation).
    Private,
    /// The generic address space: global, shared or private, told apart by address range.
    Flat,
}

impl AddrSpace {
    /// All address spaces, in printing order.
    pub const ALL: [AddrSpace; 5] =
        [AddrSpace::Global, AddrSpace::Shared, AddrSpace::Constant, AddrSpace::Private, AddrSpace::Flat];

    /// The name used in the text format: `ptr<global>` and so on.
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
            AddrSpace::Constant => "constant",
            AddrSpace::Private => "private",
            AddrSpace::Flat => "flat",
        }
    }

    /// Parses the text-format name of an address space.
    pub fn from_name(name: &str) -> Option<AddrSpace> {
        AddrSpace::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Width of a pointer into this space, in bits.
    pub fn pointer_bits(self) -> u32 {
        match self {
            AddrSpace::Shared | AddrSpace::Private => 32,
            AddrSpace::Global | AddrSpace::Constant | AddrSpace::Flat => 64,
        }
    }
}

/// The type of an SSA value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A boolean, printed `i1`. It has no memory representation.
    I1,
    /// An 8-bit integer.
    I8,
    /// A 16-bit integer.
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// An IEEE binary16 float.
    F16,
    /// An IEEE binary32 float.
    F32,
    /// An IEEE binary64 float.
    F64,
    /// A pointer into the given address space.
    Ptr(AddrSpace),
}

impl Type {
    /// Every non-pointer type, in printing order.
    pub const SCALARS: [Type; 8] =
        [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64, Type::F16, Type::F32, Type::F64];

    /// Width in bits (1 for `i1`).
    pub fn bits(self) -> u32 {
        match self {
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 | Type::F16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 => 64,
            Type::Ptr(space) => space.pointer_bits(),
        }
    }

    /// Size in memory, in bytes; `None` for `i1`, which cannot be loaded or stored.
    pub fn bytes(self) -> Option<u32> {
        match self {
            Type::I1 => None,
            t => Some(t.bits() / 8),
        }
    }

    /// An integer type (including `i1`).
    pub fn is_int(self) -> bool {
        matches!(self, Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64)
    }

    /// A float type.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F16 | Type::F32 | Type::F64)
    }

    /// A pointer type.
    pub fn is_ptr(self) -> bool {
        matches!(self, Type::Ptr(_))
    }

    /// The address space of a pointer type.
    pub fn addr_space(self) -> Option<AddrSpace> {
        match self {
            Type::Ptr(space) => Some(space),
            _ => None,
        }
    }

    /// The mask of the significant bits of a value of this type held in a `u64`.
    pub fn mask(self) -> u64 {
        match self.bits() {
            64 => u64::MAX,
            b => (1u64 << b) - 1,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::I1 => f.write_str("i1"),
            Type::I8 => f.write_str("i8"),
            Type::I16 => f.write_str("i16"),
            Type::I32 => f.write_str("i32"),
            Type::I64 => f.write_str("i64"),
            Type::F16 => f.write_str("f16"),
            Type::F32 => f.write_str("f32"),
            Type::F64 => f.write_str("f64"),
            Type::Ptr(space) => write!(f, "ptr<{}>", space.name()),
        }
    }
}

/// The bits of the f16 nearest to `x` (ties to even), rounded once. `half::f16::from_f64`
/// cannot be used where results must not depend on the host: with F16C it rounds to f32
/// first, a double rounding that breaks near-ties wrongly. Rounding to odd in f32 first is
/// innocuous, as f32 has more than two bits beyond f16's precision.
pub fn f16_bits_from_f64(x: f64) -> u16 {
    let r = x as f32;
    let mut bits = r.to_bits();
    if r.is_finite() && r as f64 != x && bits & 1 == 0 {
        // Round to odd: move one ulp toward x (sign-magnitude bits).
        if (r as f64).abs() < x.abs() {
            bits += 1;
        } else {
            bits -= 1;
        }
    }
    half::f16::from_f32(f32::from_bits(bits)).to_bits()
}
