//! Launch descriptions: how a kernel dispatch is written on the command line (`gcnc run` and
//! `gcnc check`, see `shared/design/cli.md`).
//!
//! - `--grid X[,Y[,Z]]` and `--block X[,Y[,Z]]`: [`parse_dims`]. Missing dimensions are 1.
//! - `--arg SPEC`, once per kernel parameter: [`ArgSpec::parse`]. A spec is a scalar
//!   (`TYPE:VALUE`, or `VALUE` when the kernel's signature gives the type), a buffer
//!   (`TYPE[N]:INIT`) or dynamic shared memory (`lds:BYTES`). [`ArgSpec::materialize`] makes a
//!   buffer's initial bytes.
//! - `--dump I=FILE`: [`DumpSpec::parse`]; `--print I`: [`parse_param_index`], and
//!   [`format_elements`] for the printing.
//!
//! Every value is carried as its little-endian bit pattern: a [`ScalarType`] value is a `u64`
//! whose low [`ScalarType::size`] bytes are the element's bytes and whose other bits are zero.
//!
//! Parsing never touches the file system; only [`ArgSpec::materialize`] reads `file=PATH`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use half::f16;
use thiserror::Error;

/// The largest buffer a launch may have, in bytes (4 GiB). A buffer resource on the GPU
/// addresses at most this much, and the limit keeps a typo such as `f32[10000000000]` from
/// exhausting the host's memory. [`buffer_bytes`] is the one place that checks it.
pub const MAX_BUFFER_BYTES: usize = 1 << 32;

/// The size in bytes of a buffer of `len` elements of `ty`, checked against
/// [`MAX_BUFFER_BYTES`]: every buffer size that comes from input (`TYPE[N]`, `check --len` and
/// its default, the grid's work-item count) passes here before anything is allocated.
pub fn buffer_bytes(ty: ScalarType, len: u64) -> Result<usize, LaunchError> {
    match len.checked_mul(ty.size() as u64) {
        Some(bytes) if bytes <= MAX_BUFFER_BYTES as u64 => Ok(bytes as usize),
        _ => Err(LaunchError::TooLarge { ty, len }),
    }
}

/// An error in a launch description. Each message quotes the text it is about.
#[derive(Debug, Error)]
pub enum LaunchError {
    /// A `--grid` or `--block` value is malformed.
    #[error("invalid dimensions '{input}': {reason}")]
    Dims {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A value does not parse as, or does not fit in, its type.
    #[error("invalid {ty} value '{input}': {reason}")]
    Value {
        /// The type the value was parsed as.
        ty: ScalarType,
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A type name is not one of the scalar types.
    #[error("unknown type '{input}' (expected one of i32 u32 i64 u64 f16 f32 f64)")]
    Type {
        /// The text as given.
        input: String,
    },
    /// An `--arg` spec is malformed (its value, if that is the problem, is [`LaunchError::Value`]).
    #[error("invalid argument '{input}': {reason}")]
    Arg {
        /// The whole spec as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--dump` or `--print` value is malformed.
    #[error("invalid parameter reference '{input}': {reason}")]
    ParamRef {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `file=PATH` buffer's file cannot be read.
    #[error("cannot read '{}': {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        #[source]
        source: std::io::Error,
    },
    /// A buffer is larger than [`MAX_BUFFER_BYTES`].
    #[error("{ty}[{len}] is larger than the 4 GiB limit")]
    TooLarge {
        /// The element type.
        ty: ScalarType,
        /// The number of elements.
        len: u64,
    },
    /// A `file=PATH` buffer's file is longer than the buffer (it may be endless, as
    /// `/dev/zero`: reading stops one byte past the buffer's size).
    #[error("'{}' has more than {expected} bytes, but {ty}[{len}] needs {expected} bytes", path.display())]
    FileTooLong {
        /// The file.
        path: PathBuf,
        /// The buffer's element type.
        ty: ScalarType,
        /// The buffer's length in elements.
        len: usize,
        /// The buffer's size in bytes.
        expected: u64,
    },
    /// A `file=PATH` buffer's file does not have the buffer's size.
    #[error("'{}' has {actual} bytes, but {ty}[{len}] needs {expected} bytes", path.display())]
    FileSize {
        /// The file.
        path: PathBuf,
        /// The buffer's element type.
        ty: ScalarType,
        /// The buffer's length in elements.
        len: usize,
        /// The buffer's size in bytes.
        expected: u64,
        /// The file's size in bytes.
        actual: u64,
    },
    /// [`ArgSpec::materialize`] was called on something that is not a buffer.
    #[error("argument '{spec}' is not a buffer")]
    NotABuffer {
        /// The argument, as written by [`ArgSpec`]'s `Display`.
        spec: String,
    },
    /// A scalar's type is neither written in its spec nor known from elsewhere.
    #[error("the type of scalar argument '{text}' is not known; write it as TYPE:VALUE, e.g. u32:{text}")]
    UntypedScalar {
        /// The value as given.
        text: String,
    },
    /// A scalar's written type differs from the type the kernel declares.
    #[error("argument '{spec}' has type {written}, but the kernel's parameter has type {declared}")]
    TypeMismatch {
        /// The argument, as written by [`ArgSpec`]'s `Display`.
        spec: String,
        /// The type in the spec.
        written: ScalarType,
        /// The type the kernel declares.
        declared: ScalarType,
    },
}

/// The element and scalar types a launch description can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit signed integer.
    I64,
    /// 64-bit unsigned integer.
    U64,
    /// IEEE binary16.
    F16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl ScalarType {
    /// All types, in the order the documentation lists them.
    pub const ALL: [ScalarType; 7] = [
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I64,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// The name used in specs and messages: `i32`, `f16`, ...
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F16 => "f16",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    /// The OpenCL C name of the type, as clang writes it in a kernel argument's `.type_name`
    /// metadata (`float`, `uint`, ...; a buffer's is this name followed by `*`).
    pub fn c_name(self) -> &'static str {
        match self {
            ScalarType::I32 => "int",
            ScalarType::U32 => "uint",
            ScalarType::I64 => "long",
            ScalarType::U64 => "ulong",
            ScalarType::F16 => "half",
            ScalarType::F32 => "float",
            ScalarType::F64 => "double",
        }
    }

    /// The type of a `.type_name` (the inverse of [`ScalarType::c_name`], with C's long
    /// spellings `unsigned int` and `unsigned long`), and whether it names a pointer (`float*`).
    /// OpenCL's `char` and `short` (1 and 2 bytes) read as `int`, their unsigned forms as
    /// `uint`: a launch gives them as 32-bit values that must fit.
    pub fn from_c_name(name: &str) -> Option<(ScalarType, bool)> {
        let (name, pointer) = match name.trim().strip_suffix('*') {
            Some(pointee) => (pointee.trim(), true),
            None => (name.trim(), false),
        };
        let name = name.strip_prefix("const ").unwrap_or(name);
        let ty = match name {
            "char" | "short" => ScalarType::I32,
            "uchar" | "unsigned char" | "ushort" | "unsigned short" | "unsigned int" => ScalarType::U32,
            "unsigned long" => ScalarType::U64,
            _ => *ScalarType::ALL.iter().find(|t| t.c_name() == name)?,
        };
        Some((ty, pointer))
    }

    /// The size of one value in bytes.
    pub fn size(self) -> usize {
        match self {
            ScalarType::F16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// The IR type of a value of this type (integers carry no sign in the IR).
    pub fn ir_type(self) -> frontend_ir::Type {
        use frontend_ir::Type;
        match self {
            ScalarType::I32 | ScalarType::U32 => Type::I32,
            ScalarType::I64 | ScalarType::U64 => Type::I64,
            ScalarType::F16 => Type::F16,
            ScalarType::F32 => Type::F32,
            ScalarType::F64 => Type::F64,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
    }

    /// Whether this is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }

    /// The bits of this type within a `u64`: `u64::MAX` shifted down to [`ScalarType::size`]
    /// bytes.
    fn mask(self) -> u64 {
        u64::MAX >> (64 - 8 * self.size())
    }

    /// Parses a value of this type into its bit pattern (low [`ScalarType::size`] bytes, the
    /// rest zero).
    ///
    /// - Integers: decimal or `0x`-hexadecimal digits, with an optional sign (`-` only for the
    ///   signed types); the value must lie in the type's range (so `i32:0xffffffff` is an error:
    ///   write `i32:-1`).
    /// - Floats: anything Rust's `f64::from_str` accepts (`1`, `-2.5e3`, `inf`, `NaN`), rounded
    ///   to nearest-even into the type. `f32` and `f64` parse directly; `f16` goes through `f64`
    ///   (this double rounding can differ from direct rounding only for a decimal within 2^-53
    ///   relative of the midpoint between two f16 values).
    pub fn parse_value(self, text: &str) -> Result<u64, LaunchError> {
        let err = |reason: &str| LaunchError::Value { ty: self, input: text.to_string(), reason: reason.to_string() };
        match self {
            ScalarType::F16 => {
                text.parse::<f64>().map(|v| u64::from(f16::from_f64(v).to_bits())).map_err(|_| err("not a number"))
            }
            ScalarType::F32 => text.parse::<f32>().map(|v| u64::from(v.to_bits())).map_err(|_| err("not a number")),
            ScalarType::F64 => text.parse::<f64>().map(f64::to_bits).map_err(|_| err("not a number")),
            _ => {
                let (negative, rest) = match text.as_bytes().first() {
                    Some(b'-') => (true, &text[1..]),
                    Some(b'+') => (false, &text[1..]),
                    _ => (false, text),
                };
                let (radix, digits) = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
                    Some(hex) => (16, hex),
                    None => (10, rest),
                };
                if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                    return Err(err(if radix == 16 {
                        "expected hexadecimal digits after 0x"
                    } else {
                        "expected a decimal or 0x-hexadecimal integer"
                    }));
                }
                if negative && !self.is_signed_int() {
                    return Err(err("negative value for an unsigned type"));
                }
                // At most 32 hex digits fit in u128; more is out of range for every type anyway.
                let magnitude = u128::from_str_radix(digits, radix).map_err(|_| err("out of range"))?;
                let bits = 8 * self.size() as u32;
                let value: i128 = if negative {
                    let limit = 1u128 << (bits - 1);
                    if magnitude > limit {
                        return Err(err("out of range"));
                    }
                    -(magnitude as i128)
                } else {
                    let limit = if self.is_signed_int() { (1u128 << (bits - 1)) - 1 } else { (1u128 << bits) - 1 };
                    if magnitude > limit {
                        return Err(err("out of range"));
                    }
                    magnitude as i128
                };
                Ok(value as u64 & self.mask())
            }
        }
    }

    /// The bit pattern of integer `i` converted to this type: wrapping for the integer types,
    /// rounded to nearest-even for the float types.
    fn index_bits(self, i: u64) -> u64 {
        let bits = match self {
            ScalarType::F16 => u64::from(f16::from_f64(i as f64).to_bits()),
            ScalarType::F32 => u64::from((i as f32).to_bits()),
            ScalarType::F64 => (i as f64).to_bits(),
            _ => i,
        };
        bits & self.mask()
    }

    /// A value that is an edge case of this type half of the time, drawn from the splitmix64
    /// generator whose state is `state` (the `edge=SEED` initialiser and `gcnc check`'s default
    /// inputs). The generator's next output `z` decides: its low 4 bits `c` pick the class, its
    /// other bits give the sign and the value where the class needs them.
    ///
    /// - Integers of `w` bits: `c` = 0: 0; 1: 1; 2: all ones (-1, or the unsigned maximum);
    ///   3: `1 << (w-1)` (the signed minimum); 4: `(1 << (w-1)) - 1` (the signed maximum);
    ///   5: 2; 6 to 9: `(z >> 4) % 1001`; 10 to 15: the low `w` bits of the generator's
    ///   following output (any value).
    /// - Floats: `c` = 0: +0; 1: -0; 2: 1; 3: -1; 4: the quiet NaN; 5: +inf; 6: -inf; 7: the
    ///   smallest denormal; 8: the largest denormal; 9: the smallest normal; 10: the largest
    ///   finite value (7 to 10 negative when bit 4 of `z` is set); 11 to 13: the `rand=`
    ///   grid in [-1, 1) from the top bits of `z`; 14 and 15: the low bits of the generator's
    ///   following output (any bit pattern: other NaNs, denormals, huge and tiny values).
    ///
    /// The result is a bit pattern, as [`ScalarType::parse_value`] gives.
    pub fn edge_value(self, state: &mut u64) -> u64 {
        let z = splitmix64(state);
        let w = 8 * self.size() as u32;
        let top = 1u64 << (w - 1);
        let class = z & 15;
        if !self.is_float() {
            return match class {
                0 => 0,
                1 => 1,
                2 => self.mask(),
                3 => top,
                4 => top - 1,
                5 => 2,
                6..=9 => (z >> 4) % 1001,
                _ => splitmix64(state) & self.mask(),
            };
        }
        let (exponent_bits, precision) = match self {
            ScalarType::F16 => (5, 11),
            ScalarType::F32 => (8, 24),
            _ => (11, 53),
        };
        let mantissa = (1u64 << (precision - 1)) - 1;
        let exponent_max = (1u64 << exponent_bits) - 1;
        let infinity = exponent_max << (precision - 1);
        let one = (exponent_max >> 1) << (precision - 1);
        let sign = if z >> 4 & 1 == 1 { top } else { 0 };
        match class {
            0 => 0,
            1 => top,
            2 => one,
            3 => top | one,
            4 => infinity | (1 << (precision - 2)),
            5 => infinity,
            6 => top | infinity,
            7 => sign | 1,
            8 => sign | mantissa,
            9 => sign | (mantissa + 1),
            10 => sign | (infinity - 1),
            11..=13 => {
                let grid = unit_grid(z, precision);
                match self {
                    ScalarType::F16 => u64::from(f16::from_f64(grid).to_bits()),
                    ScalarType::F32 => u64::from((grid as f32).to_bits()),
                    _ => grid.to_bits(),
                }
            }
            _ => splitmix64(state) & self.mask(),
        }
    }

    /// Formats a bit pattern of this type: integers in decimal (signed for the signed types),
    /// floats with Rust's `{:?}` (`1.0`, `-0.5`, `NaN`, `inf`).
    pub fn format_bits(self, bits: u64) -> String {
        match self {
            ScalarType::I32 => format!("{}", bits as u32 as i32),
            ScalarType::U32 => format!("{}", bits as u32),
            ScalarType::I64 => format!("{}", bits as i64),
            ScalarType::U64 => format!("{bits}"),
            ScalarType::F16 => format!("{:?}", f16::from_bits(bits as u16)),
            ScalarType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            ScalarType::F64 => format!("{:?}", f64::from_bits(bits)),
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ScalarType {
    type Err = LaunchError;

    fn from_str(s: &str) -> Result<Self, LaunchError> {
        ScalarType::ALL.into_iter().find(|t| t.name() == s).ok_or_else(|| LaunchError::Type { input: s.to_string() })
    }
}

/// Parses `X[,Y[,Z]]` (a `--grid` or `--block` value): one to three comma-separated decimal
/// integers, each at least 1 and at most `u32::MAX`. Missing dimensions are 1.
///
/// ```
/// assert_eq!(gcnc::launch::parse_dims("1000").unwrap(), [1000, 1, 1]);
/// assert_eq!(gcnc::launch::parse_dims("16,8").unwrap(), [16, 8, 1]);
/// ```
pub fn parse_dims(text: &str) -> Result<[u32; 3], LaunchError> {
    let err = |reason: String| LaunchError::Dims { input: text.to_string(), reason };
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(err(format!("expected at most 3 dimensions, found {}", parts.len())));
    }
    let mut dims = [1u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(format!("'{part}' is not a decimal integer")));
        }
        *dim = part.parse().map_err(|_| err(format!("'{part}' does not fit in 32 bits")))?;
        if *dim == 0 {
            return Err(err("every dimension must be at least 1".to_string()));
        }
    }
    Ok(dims)
}

/// How a buffer argument's contents are initialised (the `INIT` of `TYPE[N]:INIT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferInit {
    /// `zeros`: every byte 0.
    Zeros,
    /// `iota`: element `i` is `i` converted to the element type (as Rust's `as` converts: exact,
    /// or rounded to nearest-even for floats, so large `f16` indices become `inf`).
    Iota,
    /// `fill=V`: every element `V`; holds `V`'s bit pattern (see [`ScalarType::parse_value`]).
    Fill(u64),
    /// `rand=SEED` (decimal or 0x-hex `u64`): deterministic pseudo-random elements.
    ///
    /// The generator is splitmix64 with its state starting at `SEED`; element `i` takes the
    /// generator's output number `i` (counting from 0), `z`. Integer types get `z % 1001`, so
    /// the values lie in 0..=1000. Float types get `k * 2^(1-p) - 1`, where `p` is the type's
    /// precision (11 for f16, 24 for f32, 53 for f64) and `k` the top `p` bits of `z`: uniform
    /// on a grid in [-1, 1), and exact in the type.
    Rand(u64),
    /// `edge=SEED` (decimal or 0x-hex `u64`): deterministic elements that are edge cases half
    /// of the time: element `i` is [`ScalarType::edge_value`] of the splitmix64 generator
    /// started at `SEED`, which takes one or two of its outputs per element.
    Edge(u64),
    /// `file=PATH`: the file's bytes, raw little-endian. Its size must equal the buffer's.
    File(PathBuf),
}

/// One kernel argument, as given by `--arg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgSpec {
    /// `TYPE:VALUE`, or `VALUE` alone when the kernel's signature gives the type. An explicit
    /// type's value has already been checked; an untyped value is checked by
    /// [`ArgSpec::scalar_bits`] once the type is known.
    Scalar {
        /// The written type, if any.
        ty: Option<ScalarType>,
        /// The value as written.
        text: String,
    },
    /// `TYPE[N]:INIT`: a global-memory buffer of `len` elements of `ty`.
    Buffer {
        /// The element type.
        ty: ScalarType,
        /// The number of elements.
        len: usize,
        /// The initial contents.
        init: BufferInit,
    },
    /// `lds:BYTES`: this many bytes of dynamic workgroup-shared memory.
    Lds {
        /// The size in bytes.
        bytes: u32,
    },
}

impl ArgSpec {
    /// Parses a `--arg` spec (see the [module documentation](self)).
    ///
    /// ```
    /// use gcnc::launch::{ArgSpec, BufferInit, ScalarType};
    /// assert_eq!(
    ///     ArgSpec::parse("f32[1000]:iota").unwrap(),
    ///     ArgSpec::Buffer { ty: ScalarType::F32, len: 1000, init: BufferInit::Iota }
    /// );
    /// assert_eq!(ArgSpec::parse("lds:4096").unwrap(), ArgSpec::Lds { bytes: 4096 });
    /// ```
    pub fn parse(text: &str) -> Result<ArgSpec, LaunchError> {
        let err = |reason: String| LaunchError::Arg { input: text.to_string(), reason };
        let Some((head, tail)) = text.split_once(':') else {
            // An untyped scalar: its type comes from the kernel later, but it must be a number.
            let is_number =
                [ScalarType::U64, ScalarType::I64, ScalarType::F64].iter().any(|t| t.parse_value(text).is_ok());
            if !is_number {
                return Err(err("expected TYPE:VALUE, VALUE (a number), TYPE[N]:INIT or lds:BYTES".to_string()));
            }
            return Ok(ArgSpec::Scalar { ty: None, text: text.to_string() });
        };
        if head == "lds" {
            if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(format!("the size of lds:BYTES must be a decimal integer, not '{tail}'")));
            }
            let bytes = tail.parse().map_err(|_| err(format!("lds size '{tail}' does not fit in 32 bits")))?;
            return Ok(ArgSpec::Lds { bytes });
        }
        if let Some((ty, len)) = head.split_once('[') {
            let ty: ScalarType = ty.parse()?;
            let Some(len) = len.strip_suffix(']') else {
                return Err(err("expected ']' before ':' in TYPE[N]:INIT".to_string()));
            };
            if len.is_empty() || !len.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(format!("the length in TYPE[N] must be a decimal integer, not '{len}'")));
            }
            let len: usize = len.parse().map_err(|_| err(format!("buffer length '{len}' is too large")))?;
            buffer_bytes(ty, len as u64).map_err(|e| err(e.to_string()))?;
            let init = match tail.split_once('=') {
                None if tail == "zeros" => BufferInit::Zeros,
                None if tail == "iota" => BufferInit::Iota,
                Some(("fill", value)) => BufferInit::Fill(ty.parse_value(value)?),
                Some((kind @ ("rand" | "edge"), seed)) => {
                    let seed = ScalarType::U64.parse_value(seed).map_err(|_| {
                        err(format!("the seed of {kind}=SEED must be a decimal or 0x-hex u64, not '{seed}'"))
                    })?;
                    if kind == "rand" {
                        BufferInit::Rand(seed)
                    } else {
                        BufferInit::Edge(seed)
                    }
                }
                Some(("file", path)) if !path.is_empty() => BufferInit::File(PathBuf::from(path)),
                _ => {
                    return Err(err(format!(
                        "unknown buffer initialiser '{tail}' (expected zeros, iota, fill=V, rand=SEED, edge=SEED or file=PATH)"
                    )))
                }
            };
            return Ok(ArgSpec::Buffer { ty, len, init });
        }
        let ty: ScalarType = head.parse()?;
        ty.parse_value(tail)?;
        Ok(ArgSpec::Scalar { ty: Some(ty), text: tail.to_string() })
    }

    /// Whether this is a buffer (`TYPE[N]:INIT`).
    pub fn is_buffer(&self) -> bool {
        matches!(self, ArgSpec::Buffer { .. })
    }

    /// A scalar's type and bit pattern, given the type the kernel declares for the parameter
    /// (if known). A written type must equal the declared one; an unwritten type is taken from
    /// it. Errors for a buffer or lds spec ([`LaunchError::Arg`]), a scalar whose type is
    /// nowhere known, or a value that does not parse as the type.
    pub fn scalar_bits(&self, declared: Option<ScalarType>) -> Result<(ScalarType, u64), LaunchError> {
        let ArgSpec::Scalar { ty, text } = self else {
            return Err(LaunchError::Arg {
                input: self.to_string(),
                reason: "the kernel's parameter is a scalar".to_string(),
            });
        };
        let ty = match (*ty, declared) {
            (Some(written), Some(declared)) if written != declared => {
                return Err(LaunchError::TypeMismatch { spec: self.to_string(), written, declared })
            }
            (Some(ty), _) | (None, Some(ty)) => ty,
            (None, None) => return Err(LaunchError::UntypedScalar { text: text.clone() }),
        };
        Ok((ty, ty.parse_value(text)?))
    }

    /// A buffer's initial contents: `len * ty.size()` bytes, little-endian. Reads the file of a
    /// `file=PATH` buffer. Errors if this is not a buffer, or the file cannot be read or has
    /// the wrong size.
    pub fn materialize(&self) -> Result<Vec<u8>, LaunchError> {
        let ArgSpec::Buffer { ty, len, init } = self else {
            return Err(LaunchError::NotABuffer { spec: self.to_string() });
        };
        let (ty, len) = (*ty, *len);
        let expected = buffer_bytes(ty, len as u64)?;
        if let BufferInit::File(path) = init {
            use std::io::Read;
            let io = |source| LaunchError::Io { path: path.clone(), source };
            // At most one byte more than the buffer: a longer file (or an endless one, as
            // /dev/zero) is an error without being read whole.
            let mut bytes = Vec::new();
            std::fs::File::open(path).and_then(|f| f.take(expected as u64 + 1).read_to_end(&mut bytes)).map_err(io)?;
            if bytes.len() > expected {
                return Err(LaunchError::FileTooLong { path: path.clone(), ty, len, expected: expected as u64 });
            }
            if bytes.len() != expected {
                return Err(LaunchError::FileSize {
                    path: path.clone(),
                    ty,
                    len,
                    expected: expected as u64,
                    actual: bytes.len() as u64,
                });
            }
            return Ok(bytes);
        }
        let mut out = Vec::with_capacity(expected);
        let size = ty.size();
        let mut push = |bits: u64| out.extend_from_slice(&bits.to_le_bytes()[..size]);
        match init {
            BufferInit::Zeros => (0..len).for_each(|_| push(0)),
            BufferInit::Iota => (0..len as u64).for_each(|i| push(ty.index_bits(i))),
            BufferInit::Fill(bits) => (0..len).for_each(|_| push(*bits)),
            BufferInit::Rand(seed) => {
                let mut state = *seed;
                for _ in 0..len {
                    let z = splitmix64(&mut state);
                    push(match ty {
                        ScalarType::F16 => u64::from(f16::from_f64(unit_grid(z, 11)).to_bits()),
                        ScalarType::F32 => u64::from((unit_grid(z, 24) as f32).to_bits()),
                        ScalarType::F64 => unit_grid(z, 53).to_bits(),
                        _ => z % 1001,
                    });
                }
            }
            BufferInit::Edge(seed) => {
                let mut state = *seed;
                (0..len).for_each(|_| push(ty.edge_value(&mut state)));
            }
            BufferInit::File(_) => unreachable!("handled above"),
        }
        Ok(out)
    }
}

/// One step of splitmix64 (Steele, Lea and Flood; the constants of Vigna's reference code):
/// advances `state` and returns the next output.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `k * 2^(1-p) - 1` for `k` the top `p` bits of `z`: a value in [-1, 1) that a type of
/// precision `p` represents exactly.
fn unit_grid(z: u64, p: u32) -> f64 {
    let k = z >> (64 - p);
    k as f64 * 2f64.powi(1 - p as i32) - 1.0
}

impl fmt::Display for ArgSpec {
    /// Writes the spec back in the syntax [`ArgSpec::parse`] reads; a `fill` value is written
    /// as [`ScalarType::format_bits`] formats it, which parses back to the same bits (NaN
    /// payloads aside).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSpec::Scalar { ty: Some(ty), text } => write!(f, "{ty}:{text}"),
            ArgSpec::Scalar { ty: None, text } => f.write_str(text),
            ArgSpec::Lds { bytes } => write!(f, "lds:{bytes}"),
            ArgSpec::Buffer { ty, len, init } => {
                write!(f, "{ty}[{len}]:")?;
                match init {
                    BufferInit::Zeros => f.write_str("zeros"),
                    BufferInit::Iota => f.write_str("iota"),
                    BufferInit::Fill(bits) => write!(f, "fill={}", ty.format_bits(*bits)),
                    BufferInit::Rand(seed) => write!(f, "rand={seed}"),
                    BufferInit::Edge(seed) => write!(f, "edge={seed}"),
                    BufferInit::File(path) => write!(f, "file={}", path.display()),
                }
            }
        }
    }
}

/// One kernel parameter made ready for a device from its [`ArgSpec`]: a buffer's initial
/// contents (which a run replaces with the contents after it), or a by-value argument's
/// little-endian bytes, exactly the parameter's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamValue {
    /// A global-memory buffer.
    Buffer(Vec<u8>),
    /// A value passed in the kernarg segment.
    Value(Vec<u8>),
}

impl ParamValue {
    /// A buffer's bytes (after a run, its contents then); nothing for a value.
    pub fn into_buffer(self) -> Vec<u8> {
        match self {
            ParamValue::Buffer(bytes) => bytes,
            ParamValue::Value(_) => Vec::new(),
        }
    }

    /// A buffer holding `elements` (a `&[T]` or `&mut [T]` parameter of the kernel language).
    pub fn buffer<T: Element>(elements: &[T]) -> ParamValue {
        ParamValue::Buffer(elements.iter().flat_map(|e| e.le_bytes()).collect())
    }

    /// A by-value argument (a scalar parameter).
    pub fn scalar<T: Element>(value: T) -> ParamValue {
        ParamValue::Value(value.le_bytes().collect())
    }

    /// A buffer's elements as `T` (after a run, its contents then); None for a value or for
    /// bytes that are not a whole number of `T`s.
    pub fn elements<T: Element>(&self) -> Option<Vec<T>> {
        let ParamValue::Buffer(bytes) = self else { return None };
        let size = T::TYPE.size();
        bytes.len().is_multiple_of(size).then(|| bytes.chunks_exact(size).map(T::from_le_bytes).collect())
    }
}

/// The Rust types of the kernel language's scalars, for typed buffers and arguments
/// ([`ParamValue::buffer`], [`ParamValue::scalar`], [`ParamValue::elements`]).
pub trait Element: Copy {
    /// The element's type.
    const TYPE: ScalarType;
    /// Its little-endian bytes.
    fn le_bytes(self) -> impl Iterator<Item = u8>;
    /// The element of `bytes`, [`ScalarType::size`] of them, little-endian (zero when there
    /// are fewer).
    fn from_le_bytes(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($($t:ty => $ty:ident),*) => {$(
        impl Element for $t {
            const TYPE: ScalarType = ScalarType::$ty;
            fn le_bytes(self) -> impl Iterator<Item = u8> {
                self.to_le_bytes().into_iter()
            }
            fn from_le_bytes(bytes: &[u8]) -> Self {
                const N: usize = std::mem::size_of::<$t>();
                let raw: [u8; N] = bytes.get(..N).and_then(|b| b.try_into().ok()).unwrap_or([0; N]);
                <$t>::from_le_bytes(raw)
            }
        }
    )*};
}
element!(i32 => I32, u32 => U32, i64 => I64, u64 => U64, half::f16 => F16, f32 => F32, f64 => F64);

/// Runs kernel `kernel` of `compiled` on the emulator with `params` (each buffer replaced by
/// its contents after the run; a code object that cannot load, or a run that faults, is an
/// [`emu::EmuError`]) and returns what the run did ([`emu::Stats`]: wave-instructions
/// executed, waves, workgroups): [`emulate`] for what [`crate::compile()`] returns, at the wave
/// size it was compiled for and the emulator's default options otherwise.
pub fn emulate_compiled(
    compiled: &crate::Compiled,
    kernel: &str,
    launch: &emu::Launch,
    params: &mut [ParamValue],
) -> Result<emu::Stats, emu::EmuError> {
    let program = emu::load(&compiled.shared())?;
    let wave_size = program.kernel(kernel).map(emu::Kernel::wave_size);
    let options = emu::Options { wave_size, ..emu::Options::default() };
    emulate(&program, kernel, launch, &options, params)
}

/// Runs `kernel` of `program` on a fresh emulated device with `params`; each buffer of
/// `params` is then replaced by its contents after the run. The emulator's counterpart of
/// [`crate::gpu::run`], shared by `gcnc run`, `gcnc check` and the conformance suite.
pub fn emulate(
    program: &emu::Program,
    kernel: &str,
    launch: &emu::Launch,
    options: &emu::Options,
    params: &mut [ParamValue],
) -> Result<emu::Stats, emu::EmuError> {
    let mut device = emu::Device::new();
    let mut addrs = Vec::with_capacity(params.len());
    let args: Vec<emu::ArgValue> = params
        .iter()
        .map(|p| match p {
            ParamValue::Buffer(bytes) => {
                let addr = device.alloc(bytes.clone());
                addrs.push(Some(addr));
                emu::ArgValue::ptr(addr)
            }
            ParamValue::Value(bytes) => {
                addrs.push(None);
                emu::ArgValue { bytes: bytes.clone() }
            }
        })
        .collect();
    let stats = emu::dispatch(&mut device, program, kernel, launch, &args, options)?;
    for (param, addr) in params.iter_mut().zip(addrs) {
        if let (ParamValue::Buffer(bytes), Some(addr)) = (param, addr) {
            *bytes = device.buffer(addr).unwrap_or_default().to_vec();
        }
    }
    Ok(stats)
}

/// Runs `kernel` of `module` on the reference interpreter with `params` (each buffer in fresh
/// memory, each value as its little-endian bits) and `options`: the memory afterwards and each
/// parameter's bits (a buffer's address in that memory).
pub fn interpret(
    module: &frontend_ir::Module,
    kernel: frontend_ir::FuncId,
    launch: &frontend_ir::interp::Launch,
    options: &frontend_ir::interp::Options,
    params: Vec<ParamValue>,
) -> Result<(frontend_ir::interp::GlobalMemory, Vec<u64>), frontend_ir::interp::InterpError> {
    use frontend_ir::interp::{run_kernel, GlobalMemory};
    let mut memory = GlobalMemory::new();
    let bits: Vec<u64> = params
        .into_iter()
        .map(|p| match p {
            ParamValue::Buffer(bytes) => memory.alloc(bytes),
            ParamValue::Value(bytes) => le_bits(&bytes),
        })
        .collect();
    run_kernel(module, kernel, launch, &bits, &mut memory, options)?;
    Ok((memory, bits))
}

/// The little-endian value of up to 8 bytes.
pub fn le_bits(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// A `--dump I=FILE`: write kernel parameter `index` (0-based over all parameters; it must be a
/// buffer) to `path` after the run, as raw little-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpSpec {
    /// The parameter's 0-based index.
    pub index: usize,
    /// The file to write.
    pub path: PathBuf,
}

impl DumpSpec {
    /// Parses `I=FILE`.
    pub fn parse(text: &str) -> Result<DumpSpec, LaunchError> {
        let err = |reason: &str| LaunchError::ParamRef { input: text.to_string(), reason: reason.to_string() };
        let (index, path) = text.split_once('=').ok_or_else(|| err("expected I=FILE"))?;
        if path.is_empty() {
            return Err(err("expected a file name after '='"));
        }
        Ok(DumpSpec {
            index: parse_param_index(index).map_err(|_| err("I must be a parameter index (0, 1, ...)"))?,
            path: PathBuf::from(path),
        })
    }
}

/// Parses a parameter index (the `I` of `--print I` and `--dump I=FILE`): a decimal integer,
/// 0-based over all the kernel's parameters.
pub fn parse_param_index(text: &str) -> Result<usize, LaunchError> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(index) = text.parse() {
            return Ok(index);
        }
    }
    Err(LaunchError::ParamRef { input: text.to_string(), reason: "expected a parameter index (0, 1, ...)".to_string() })
}

/// Formats a buffer's elements one per line, each as `[i] value` and ending in a newline (see
/// [`ScalarType::format_bits`] for the values). A trailing partial element is not printed.
///
/// ```
/// use gcnc::launch::{format_elements, ScalarType};
/// let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
/// assert_eq!(format_elements(ScalarType::F32, &bytes), "[0] 1.5\n[1] -2.0\n");
/// ```
pub fn format_elements(ty: ScalarType, bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes.chunks_exact(ty.size()).enumerate() {
        out.push_str(&format!("[{i}] {}\n", ty.format_bits(le_bits(chunk))));
    }
    out
}

#[cfg(test)]
mod tests {
    /// Typed buffers and scalars are the little-endian bytes of their elements, read back as
    /// they went in at every type, NaN and infinities and the extremes included.
    #[test]
    fn typed_buffers_round_trip() {
        let floats = [0.0f32, -0.0, f32::NAN, f32::INFINITY, f32::MIN_POSITIVE / 2.0, f32::MAX];
        let back: Vec<f32> = ParamValue::buffer(&floats).elements().unwrap();
        assert_eq!(back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), floats.map(f32::to_bits));
        let ints = [i64::MIN, -1, 0, 1, i64::MAX];
        assert_eq!(ParamValue::buffer(&ints).elements::<i64>().unwrap(), ints);
        let halves = [half::f16::MIN, half::f16::NEG_INFINITY, half::f16::from_f32(0.5)];
        assert_eq!(ParamValue::buffer(&halves).elements::<half::f16>().unwrap(), halves);
        assert_eq!(ParamValue::scalar(0x0102_0304u32), ParamValue::Value(vec![4, 3, 2, 1]));
        assert_eq!(ParamValue::scalar(-2.0f64), ParamValue::Value((-2.0f64).to_le_bytes().to_vec()));
        // Not a whole number of elements, or not a buffer: no elements.
        assert_eq!(ParamValue::Buffer(vec![0; 6]).elements::<u32>(), None);
        assert_eq!(ParamValue::scalar(1u32).elements::<u32>(), None);
        assert_eq!(<u32 as Element>::TYPE.size(), 4);
    }

    use super::*;
    use ScalarType::*;

    fn msg<T: fmt::Debug>(r: Result<T, LaunchError>) -> String {
        r.expect_err("expected an error").to_string()
    }

    #[test]
    fn dims() {
        assert_eq!(parse_dims("1000").unwrap(), [1000, 1, 1]);
        assert_eq!(parse_dims("16,8").unwrap(), [16, 8, 1]);
        assert_eq!(parse_dims("4,3,2").unwrap(), [4, 3, 2]);
        assert_eq!(parse_dims("4294967295").unwrap(), [u32::MAX, 1, 1]);
        assert_eq!(msg(parse_dims("0")), "invalid dimensions '0': every dimension must be at least 1");
        assert_eq!(msg(parse_dims("4,0")), "invalid dimensions '4,0': every dimension must be at least 1");
        assert_eq!(
            msg(parse_dims("4294967296")),
            "invalid dimensions '4294967296': '4294967296' does not fit in 32 bits"
        );
        assert_eq!(msg(parse_dims("1,2,3,4")), "invalid dimensions '1,2,3,4': expected at most 3 dimensions, found 4");
        assert_eq!(msg(parse_dims("")), "invalid dimensions '': '' is not a decimal integer");
        assert_eq!(msg(parse_dims("8,,2")), "invalid dimensions '8,,2': '' is not a decimal integer");
        assert_eq!(msg(parse_dims("x")), "invalid dimensions 'x': 'x' is not a decimal integer");
        assert_eq!(msg(parse_dims("-1")), "invalid dimensions '-1': '-1' is not a decimal integer");
        assert_eq!(msg(parse_dims(" 8")), "invalid dimensions ' 8': ' 8' is not a decimal integer");
        assert_eq!(msg(parse_dims("8,")), "invalid dimensions '8,': '' is not a decimal integer");
    }

    #[test]
    fn scalar_types() {
        for ty in ScalarType::ALL {
            assert_eq!(ty.name().parse::<ScalarType>().unwrap(), ty);
            assert_eq!(ty.to_string(), ty.name());
        }
        assert_eq!([I32, U32, I64, U64, F16, F32, F64].map(ScalarType::size), [4, 4, 8, 8, 2, 4, 8]);
        assert_eq!(msg("i8".parse::<ScalarType>()), "unknown type 'i8' (expected one of i32 u32 i64 u64 f16 f32 f64)");
    }

    #[test]
    fn c_names_read_back() {
        for ty in ScalarType::ALL {
            assert_eq!(ScalarType::from_c_name(ty.c_name()), Some((ty, false)));
            assert_eq!(ScalarType::from_c_name(&format!("{}*", ty.c_name())), Some((ty, true)));
        }
        assert_eq!(ScalarType::from_c_name("unsigned int"), Some((U32, false)));
        assert_eq!(ScalarType::from_c_name("const float *"), Some((F32, true)));
        assert_eq!(ScalarType::from_c_name("short"), Some((I32, false)));
        assert_eq!(ScalarType::from_c_name("float4"), None);
        assert_eq!(ScalarType::from_c_name("image2d_t"), None);
    }

    #[test]
    fn integer_values() {
        assert_eq!(I32.parse_value("0").unwrap(), 0);
        assert_eq!(I32.parse_value("-1").unwrap(), 0xffff_ffff);
        assert_eq!(I32.parse_value("+7").unwrap(), 7);
        assert_eq!(I32.parse_value("2147483647").unwrap(), 0x7fff_ffff);
        assert_eq!(I32.parse_value("-2147483648").unwrap(), 0x8000_0000);
        assert_eq!(I32.parse_value("-0x80000000").unwrap(), 0x8000_0000);
        assert_eq!(U32.parse_value("0xFFFFffff").unwrap(), 0xffff_ffff);
        assert_eq!(U32.parse_value("0X10").unwrap(), 16);
        assert_eq!(I64.parse_value("-9223372036854775808").unwrap(), 0x8000_0000_0000_0000);
        assert_eq!(I64.parse_value("-2").unwrap(), 0xffff_ffff_ffff_fffe);
        assert_eq!(U64.parse_value("18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(
            U64.parse_value("-0x0").map_err(|e| e.to_string()),
            Err("invalid u64 value '-0x0': negative value for an unsigned type".to_string())
        );

        assert_eq!(msg(I32.parse_value("2147483648")), "invalid i32 value '2147483648': out of range");
        assert_eq!(msg(I32.parse_value("-2147483649")), "invalid i32 value '-2147483649': out of range");
        assert_eq!(msg(I32.parse_value("0xffffffff")), "invalid i32 value '0xffffffff': out of range");
        assert_eq!(msg(U32.parse_value("4294967296")), "invalid u32 value '4294967296': out of range");
        assert_eq!(msg(U32.parse_value("-1")), "invalid u32 value '-1': negative value for an unsigned type");
        assert_eq!(
            msg(U64.parse_value("18446744073709551616")),
            "invalid u64 value '18446744073709551616': out of range"
        );
        assert_eq!(
            msg(U64.parse_value(&"9".repeat(60))),
            format!("invalid u64 value '{}': out of range", "9".repeat(60))
        );
        assert_eq!(
            msg(I32.parse_value("1.5")),
            "invalid i32 value '1.5': expected a decimal or 0x-hexadecimal integer"
        );
        assert_eq!(msg(I32.parse_value("")), "invalid i32 value '': expected a decimal or 0x-hexadecimal integer");
        assert_eq!(msg(I32.parse_value("-")), "invalid i32 value '-': expected a decimal or 0x-hexadecimal integer");
        assert_eq!(
            msg(I32.parse_value("--1")),
            "invalid i32 value '--1': expected a decimal or 0x-hexadecimal integer"
        );
        assert_eq!(
            msg(I32.parse_value("-+1")),
            "invalid i32 value '-+1': expected a decimal or 0x-hexadecimal integer"
        );
        assert_eq!(msg(U32.parse_value("0x")), "invalid u32 value '0x': expected hexadecimal digits after 0x");
        assert_eq!(msg(U32.parse_value("0xg")), "invalid u32 value '0xg': expected hexadecimal digits after 0x");
        assert_eq!(msg(U32.parse_value("0x+1")), "invalid u32 value '0x+1': expected hexadecimal digits after 0x");
    }

    #[test]
    fn float_values() {
        assert_eq!(F32.parse_value("1").unwrap(), 0x3f80_0000);
        assert_eq!(F32.parse_value("-2.5").unwrap(), u64::from((-2.5f32).to_bits()));
        assert_eq!(F32.parse_value("0.1").unwrap(), u64::from(0.1f32.to_bits()));
        assert_eq!(F32.parse_value("-0").unwrap(), 0x8000_0000);
        assert_eq!(F32.parse_value("inf").unwrap(), 0x7f80_0000);
        assert_eq!(F32.parse_value("1e39").unwrap(), 0x7f80_0000);
        assert_eq!(F64.parse_value("0.1").unwrap(), 0.1f64.to_bits());
        assert_eq!(F64.parse_value("-1e300").unwrap(), (-1e300f64).to_bits());
        assert_eq!(F16.parse_value("1").unwrap(), 0x3c00);
        assert_eq!(F16.parse_value("-2").unwrap(), 0xc000);
        assert_eq!(F16.parse_value("65504").unwrap(), 0x7bff);
        assert_eq!(F16.parse_value("65520").unwrap(), 0x7c00); // rounds up to inf
        assert_eq!(F16.parse_value("0.1").unwrap(), 0x2e66);
        assert!(f32::from_bits(F32.parse_value("NaN").unwrap() as u32).is_nan());
        assert_eq!(msg(F32.parse_value("one")), "invalid f32 value 'one': not a number");
        assert_eq!(msg(F16.parse_value("")), "invalid f16 value '': not a number");
        assert_eq!(msg(F64.parse_value("0x10")), "invalid f64 value '0x10': not a number");
    }

    #[test]
    fn arg_specs() {
        let p = |s| ArgSpec::parse(s).unwrap();
        assert_eq!(p("1000"), ArgSpec::Scalar { ty: None, text: "1000".into() });
        assert_eq!(p("u32:1000"), ArgSpec::Scalar { ty: Some(U32), text: "1000".into() });
        assert_eq!(p("f16:-0.5"), ArgSpec::Scalar { ty: Some(F16), text: "-0.5".into() });
        assert_eq!(p("lds:4096"), ArgSpec::Lds { bytes: 4096 });
        assert_eq!(p("f32[1000]:iota"), ArgSpec::Buffer { ty: F32, len: 1000, init: BufferInit::Iota });
        assert_eq!(p("i64[3]:zeros"), ArgSpec::Buffer { ty: I64, len: 3, init: BufferInit::Zeros });
        assert_eq!(p("f32[1000]:fill=2"), ArgSpec::Buffer { ty: F32, len: 1000, init: BufferInit::Fill(0x4000_0000) });
        assert_eq!(p("i32[2]:fill=-1"), ArgSpec::Buffer { ty: I32, len: 2, init: BufferInit::Fill(0xffff_ffff) });
        assert_eq!(p("u64[8]:rand=0x2a"), ArgSpec::Buffer { ty: U64, len: 8, init: BufferInit::Rand(42) });
        assert_eq!(p("u32[0]:zeros"), ArgSpec::Buffer { ty: U32, len: 0, init: BufferInit::Zeros });
        assert_eq!(
            p("f64[2]:file=a=b.bin"),
            ArgSpec::Buffer { ty: F64, len: 2, init: BufferInit::File("a=b.bin".into()) }
        );
        assert!(p("f32[2]:iota").is_buffer() && !p("lds:1").is_buffer() && !p("1").is_buffer());

        assert_eq!(p("-0x10"), ArgSpec::Scalar { ty: None, text: "-0x10".into() });
        assert_eq!(p("2.5e3"), ArgSpec::Scalar { ty: None, text: "2.5e3".into() });
        let what = "expected TYPE:VALUE, VALUE (a number), TYPE[N]:INIT or lds:BYTES";
        assert_eq!(msg(ArgSpec::parse("")), format!("invalid argument '': {what}"));
        assert_eq!(msg(ArgSpec::parse("f32[4]")), format!("invalid argument 'f32[4]': {what}"));
        assert_eq!(msg(ArgSpec::parse("zeros")), format!("invalid argument 'zeros': {what}"));
        assert_eq!(msg(ArgSpec::parse("i8:1")), "unknown type 'i8' (expected one of i32 u32 i64 u64 f16 f32 f64)");
        assert_eq!(
            msg(ArgSpec::parse("i32:1.5")),
            "invalid i32 value '1.5': expected a decimal or 0x-hexadecimal integer"
        );
        assert_eq!(msg(ArgSpec::parse("u32:")), "invalid u32 value '': expected a decimal or 0x-hexadecimal integer");
        assert_eq!(
            msg(ArgSpec::parse("lds:")),
            "invalid argument 'lds:': the size of lds:BYTES must be a decimal integer, not ''"
        );
        assert_eq!(
            msg(ArgSpec::parse("lds:1k")),
            "invalid argument 'lds:1k': the size of lds:BYTES must be a decimal integer, not '1k'"
        );
        assert_eq!(
            msg(ArgSpec::parse("lds:4294967296")),
            "invalid argument 'lds:4294967296': lds size '4294967296' does not fit in 32 bits"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[10:zeros")),
            "invalid argument 'f32[10:zeros': expected ']' before ':' in TYPE[N]:INIT"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[]:zeros")),
            "invalid argument 'f32[]:zeros': the length in TYPE[N] must be a decimal integer, not ''"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[-1]:zeros")),
            "invalid argument 'f32[-1]:zeros': the length in TYPE[N] must be a decimal integer, not '-1'"
        );
        assert_eq!(msg(ArgSpec::parse("q[1]:zeros")), "unknown type 'q' (expected one of i32 u32 i64 u64 f16 f32 f64)");
        assert_eq!(
            msg(ArgSpec::parse("f32[1073741825]:zeros")),
            "invalid argument 'f32[1073741825]:zeros': f32[1073741825] is larger than the 4 GiB limit"
        );
        assert_eq!(
            msg(ArgSpec::parse("u32[99999999999999999999999]:zeros")),
            "invalid argument 'u32[99999999999999999999999]:zeros': buffer length '99999999999999999999999' is too large"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[4]:ones")),
            "invalid argument 'f32[4]:ones': unknown buffer initialiser 'ones' (expected zeros, iota, fill=V, rand=SEED, edge=SEED or file=PATH)"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[4]:file=")),
            "invalid argument 'f32[4]:file=': unknown buffer initialiser 'file=' (expected zeros, iota, fill=V, rand=SEED, edge=SEED or file=PATH)"
        );
        assert_eq!(msg(ArgSpec::parse("f32[4]:fill=x")), "invalid f32 value 'x': not a number");
        assert_eq!(
            msg(ArgSpec::parse("u32[4]:fill=-3")),
            "invalid u32 value '-3': negative value for an unsigned type"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[4]:rand=-1")),
            "invalid argument 'f32[4]:rand=-1': the seed of rand=SEED must be a decimal or 0x-hex u64, not '-1'"
        );
    }

    /// Buffers built in code (as `check` builds its random ones) meet the same limit as parsed
    /// ones, before anything is allocated.
    #[test]
    fn buffer_sizes_are_checked_in_one_place() {
        assert_eq!(buffer_bytes(F64, 1 << 29).unwrap(), MAX_BUFFER_BYTES);
        assert_eq!(msg(buffer_bytes(F64, (1 << 29) + 1)), "f64[536870913] is larger than the 4 GiB limit");
        assert_eq!(msg(buffer_bytes(F16, u64::MAX)), "f16[18446744073709551615] is larger than the 4 GiB limit");
        for len in [10_000_000_000usize, 4_611_686_018_427_387_904, usize::MAX] {
            let spec = ArgSpec::Buffer { ty: F32, len, init: BufferInit::Rand(0) };
            assert_eq!(msg(spec.materialize()), format!("f32[{len}] is larger than the 4 GiB limit"));
        }
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "1000",
            "u32:7",
            "lds:64",
            "f32[3]:zeros",
            "i32[3]:iota",
            "i32[3]:fill=-4",
            "f32[3]:fill=2.5",
            "u64[1]:rand=9",
            "f16[2]:file=x.bin",
        ] {
            let spec = ArgSpec::parse(s).unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(ArgSpec::parse(&spec.to_string()).unwrap(), spec);
        }
    }

    #[test]
    fn scalar_bits() {
        assert_eq!(ArgSpec::parse("1000").unwrap().scalar_bits(Some(U32)).unwrap(), (U32, 1000));
        assert_eq!(ArgSpec::parse("-1").unwrap().scalar_bits(Some(I64)).unwrap(), (I64, u64::MAX));
        assert_eq!(ArgSpec::parse("f32:1").unwrap().scalar_bits(None).unwrap(), (F32, 0x3f80_0000));
        assert_eq!(ArgSpec::parse("f32:1").unwrap().scalar_bits(Some(F32)).unwrap(), (F32, 0x3f80_0000));
        assert_eq!(
            msg(ArgSpec::parse("1000").unwrap().scalar_bits(None)),
            "the type of scalar argument '1000' is not known; write it as TYPE:VALUE, e.g. u32:1000"
        );
        assert_eq!(
            msg(ArgSpec::parse("-1").unwrap().scalar_bits(Some(U32))),
            "invalid u32 value '-1': negative value for an unsigned type"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32:1").unwrap().scalar_bits(Some(F64))),
            "argument 'f32:1' has type f32, but the kernel's parameter has type f64"
        );
        assert_eq!(
            msg(ArgSpec::parse("f32[2]:zeros").unwrap().scalar_bits(Some(F32))),
            "invalid argument 'f32[2]:zeros': the kernel's parameter is a scalar"
        );
    }

    fn elements(ty: ScalarType, bytes: &[u8]) -> Vec<u64> {
        bytes.chunks_exact(ty.size()).map(le_bits).collect()
    }

    #[test]
    fn materialize_generated() {
        let m = |s| ArgSpec::parse(s).unwrap().materialize().unwrap();
        assert_eq!(m("u32[3]:zeros"), vec![0; 12]);
        assert_eq!(m("f16[0]:iota"), Vec::<u8>::new());
        assert_eq!(m("i32[3]:iota"), [0i32, 1, 2].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(m("f32[3]:iota"), [0f32, 1.0, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(m("f64[2]:iota"), [0f64, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(m("f16[3]:iota"), vec![0x00, 0x00, 0x00, 0x3c, 0x00, 0x40]);
        assert_eq!(m("i64[2]:fill=-2"), [-2i64, -2].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(m("f32[2]:fill=2"), [2f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(m("f16[1]:fill=1"), vec![0x00, 0x3c]);
        // f16 iota saturates to inf past 65504 (65519 rounds down to 65504, 65520 up to inf).
        let big = elements(F16, &m("f16[65521]:iota"));
        assert_eq!((big[65504], big[65519], big[65520]), (0x7bff, 0x7bff, 0x7c00));
    }

    /// `edge=` reaches every edge case of each type (checked against the standard library's
    /// constants), keeps values in the type, and follows the documented classes.
    #[test]
    fn materialize_edge() {
        let m = |s: &str| ArgSpec::parse(s).unwrap().materialize().unwrap();
        assert_eq!(ArgSpec::parse("f32[4]:edge=0x2a").unwrap().to_string(), "f32[4]:edge=42");
        let f32s: Vec<f32> = elements(F32, &m("f32[4096]:edge=7")).iter().map(|&b| f32::from_bits(b as u32)).collect();
        let specials = [
            0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
        ];
        for v in specials {
            assert!(f32s.iter().any(|&x| x.to_bits() == v.to_bits()), "{v:e} missing");
        }
        assert!(f32s.iter().any(|x| x.to_bits() == (-0.0f32).to_bits()));
        assert!(f32s.iter().any(|x| x.is_nan()));
        assert!(f32s.iter().any(|&x| x.abs() > 1.0 && x.is_finite() && x != f32::MAX && x != f32::MIN));
        let f64s: Vec<f64> = elements(F64, &m("f64[4096]:edge=7")).iter().map(|&b| f64::from_bits(b)).collect();
        for v in [f64::MAX, f64::MIN_POSITIVE, f64::from_bits(1), f64::from_bits((1 << 52) - 1), f64::NEG_INFINITY] {
            assert!(f64s.iter().any(|&x| x.to_bits() == v.to_bits()), "{v:e} missing");
        }
        let f16s: Vec<f16> = elements(F16, &m("f16[4096]:edge=7")).iter().map(|&b| f16::from_bits(b as u16)).collect();
        for v in [f16::MAX, f16::MIN, f16::MIN_POSITIVE, f16::from_bits(1), f16::from_bits(0x3ff), f16::ONE] {
            assert!(f16s.iter().any(|&x| x.to_bits() == v.to_bits()), "{v} missing");
        }
        let i32s: Vec<i32> = elements(I32, &m("i32[4096]:edge=7")).iter().map(|&b| b as u32 as i32).collect();
        for v in [0, 1, -1, 2, i32::MIN, i32::MAX] {
            assert!(i32s.contains(&v), "{v} missing");
        }
        assert!(i32s.iter().any(|&v| v > 1000 && v != i32::MAX) && i32s.iter().any(|&v| (3..=1000).contains(&v)));
        let u64s = elements(U64, &m("u64[4096]:edge=7"));
        for v in [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1] {
            assert!(u64s.contains(&v), "{v} missing");
        }
        // Element 0 from the generator's first output: class 4 of an f32 is the quiet NaN, and
        // so on; check the class decoding on the first output of seed 0.
        let z = splitmix64(&mut 0);
        let first = elements(U32, &m("u32[1]:edge=0"))[0];
        let expected = match z & 15 {
            0 => 0,
            1 => 1,
            2 => u64::from(u32::MAX),
            3 => 1 << 31,
            4 => (1 << 31) - 1,
            5 => 2,
            6..=9 => (z >> 4) % 1001,
            _ => {
                let mut state = 0;
                splitmix64(&mut state);
                splitmix64(&mut state) & 0xffff_ffff
            }
        };
        assert_eq!(first, expected);
    }

    #[test]
    fn materialize_rand() {
        // The generator's first outputs from seed 0, from Vigna's splitmix64.c.
        let mut state = 0;
        assert_eq!(splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
        assert_eq!(splitmix64(&mut state), 0x6e78_9e6a_a1b9_65f4);
        let m = |s| ArgSpec::parse(s).unwrap().materialize().unwrap();
        assert_eq!(
            elements(U64, &m("u64[2]:rand=0")),
            vec![0xe220_a839_7b1d_cdaf % 1001, 0x6e78_9e6a_a1b9_65f4 % 1001]
        );
        assert_ne!(m("u32[100]:rand=5"), m("u32[100]:rand=6"));
        for v in elements(I32, &m("i32[1000]:rand=1")) {
            assert!(v <= 1000);
        }
        let f32s: Vec<f32> = elements(F32, &m("f32[4096]:rand=3")).iter().map(|&b| f32::from_bits(b as u32)).collect();
        assert!(f32s.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(f32s.iter().any(|&v| v < -0.9) && f32s.iter().any(|&v| v > 0.9));
        // The first f32 is built from the top 24 bits of the first output.
        assert_eq!(f32s[0], (splitmix64(&mut 3) >> 40) as f32 * 2f32.powi(-23) - 1.0);
        let f64s: Vec<f64> = elements(F64, &m("f64[4096]:rand=3")).iter().map(|&b| f64::from_bits(b)).collect();
        assert!(f64s.iter().all(|v| (-1.0..1.0).contains(v)));
        let f16s: Vec<f32> =
            elements(F16, &m("f16[4096]:rand=3")).iter().map(|&b| f16::from_bits(b as u16).to_f32()).collect();
        assert!(f16s.iter().all(|v| (-1.0..1.0).contains(v)));
        // Extremes of the grid stay inside [-1, 1) and are exact.
        assert_eq!(unit_grid(0, 24), -1.0);
        assert_eq!(unit_grid(u64::MAX, 24) as f32, 1.0 - 2f32.powi(-23));
        assert_eq!(f16::from_f64(unit_grid(u64::MAX, 11)).to_f64(), 1.0 - 2f64.powi(-10));
        assert_eq!(unit_grid(u64::MAX, 53), 1.0 - 2f64.powi(-52));
    }

    #[test]
    fn materialize_file() {
        let dir = std::env::temp_dir().join(format!("gcnc-launch-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.bin");
        std::fs::write(&path, [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let spec = |s: &str| ArgSpec::parse(&format!("{s}:file={}", path.display())).unwrap();
        assert_eq!(spec("u32[2]").materialize().unwrap(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            msg(spec("u32[3]").materialize()),
            format!("'{}' has 8 bytes, but u32[3] needs 12 bytes", path.display())
        );
        assert_eq!(
            msg(spec("u32[1]").materialize()),
            format!("'{}' has more than 4 bytes, but u32[1] needs 4 bytes", path.display())
        );
        #[cfg(unix)]
        assert_eq!(
            msg(ArgSpec::parse("u32[2]:file=/dev/zero").unwrap().materialize()),
            "'/dev/zero' has more than 8 bytes, but u32[2] needs 8 bytes"
        );
        let missing = dir.join("missing.bin");
        let e = msg(ArgSpec::parse(&format!("f32[1]:file={}", missing.display())).unwrap().materialize());
        assert!(e.starts_with(&format!("cannot read '{}': ", missing.display())), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();

        assert_eq!(msg(ArgSpec::parse("lds:16").unwrap().materialize()), "argument 'lds:16' is not a buffer");
        assert_eq!(msg(ArgSpec::parse("u32:1").unwrap().materialize()), "argument 'u32:1' is not a buffer");
    }

    #[test]
    fn dump_and_print() {
        assert_eq!(DumpSpec::parse("2=out.bin").unwrap(), DumpSpec { index: 2, path: "out.bin".into() });
        assert_eq!(DumpSpec::parse("0=a=b").unwrap(), DumpSpec { index: 0, path: "a=b".into() });
        assert_eq!(msg(DumpSpec::parse("2")), "invalid parameter reference '2': expected I=FILE");
        assert_eq!(msg(DumpSpec::parse("2=")), "invalid parameter reference '2=': expected a file name after '='");
        assert_eq!(
            msg(DumpSpec::parse("x=f")),
            "invalid parameter reference 'x=f': I must be a parameter index (0, 1, ...)"
        );
        assert_eq!(parse_param_index("0").unwrap(), 0);
        assert_eq!(parse_param_index("12").unwrap(), 12);
        assert_eq!(
            msg(parse_param_index("-1")),
            "invalid parameter reference '-1': expected a parameter index (0, 1, ...)"
        );
        assert_eq!(
            msg(parse_param_index("")),
            "invalid parameter reference '': expected a parameter index (0, 1, ...)"
        );
        assert_eq!(
            msg(parse_param_index("99999999999999999999999")),
            "invalid parameter reference '99999999999999999999999': expected a parameter index (0, 1, ...)"
        );
    }

    #[test]
    fn format() {
        let f32s: Vec<u8> = [1.0f32, -0.5, f32::INFINITY, 0.1].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(format_elements(F32, &f32s), "[0] 1.0\n[1] -0.5\n[2] inf\n[3] 0.1\n");
        assert_eq!(format_elements(F16, &[0x00, 0x3c, 0x00, 0xc0, 0x66, 0x2e]), "[0] 1.0\n[1] -2.0\n[2] 0.099975586\n");
        assert_eq!(format_elements(F64, &1e300f64.to_le_bytes()), "[0] 1e300\n");
        assert_eq!(format_elements(I32, &[0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0]), "[0] -1\n[1] 7\n");
        assert_eq!(format_elements(U32, &[0xff, 0xff, 0xff, 0xff]), "[0] 4294967295\n");
        assert_eq!(format_elements(I64, &(-5i64).to_le_bytes()), "[0] -5\n");
        assert_eq!(format_elements(U64, &u64::MAX.to_le_bytes()), "[0] 18446744073709551615\n");
        assert_eq!(format_elements(U32, &[1, 0, 0, 0, 9]), "[0] 1\n"); // the partial element is dropped
        assert_eq!(format_elements(U32, &[]), "");
    }
}
