//! The memory operations: scalar loads, FLAT/GLOBAL/SCRATCH loads, stores and atomics, and LDS
//! (DS) operations, parsed from their mnemonics in both spellings (GFX11's `global_load_b32`,
//! `ds_store_2addr_b32`; GFX9's `global_load_dword`, `ds_write2_b32`).

use super::Op;

/// The address space a FLAT-family instruction addresses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// `flat_*`: a 64-bit address in any aperture (global, shared or private).
    Flat,
    /// `global_*`: a global address (64-bit VGPRs, or an SGPR base and a 32-bit VGPR offset).
    Global,
    /// `scratch_*`: an offset in the lane's private segment.
    Scratch,
}

/// Which half of a VGPR a 16-bit load or store uses (`_d16`, `_d16_hi`), or the whole.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    /// The whole register (or registers).
    Full,
    /// The low 16 bits; the high ones are kept.
    Lo,
    /// The high 16 bits; the low ones are kept.
    Hi,
}

/// A read-modify-write operation, for global and LDS atomics alike.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    /// Exchange.
    Swap,
    /// Compare and swap (data: the new value, then the compared one; GFX9's LDS order is
    /// swapped in [`DsOp`]).
    CmpSwap,
    /// `m + d`.
    Add,
    /// `m - d`.
    Sub,
    /// `d - m` (LDS).
    Rsub,
    /// `m - d`, clamped at 0.
    Csub,
    /// Signed minimum.
    SMin,
    /// Unsigned minimum.
    UMin,
    /// Signed maximum.
    SMax,
    /// Unsigned maximum.
    UMax,
    /// `m & d`.
    And,
    /// `m | d`.
    Or,
    /// `m ^ d`.
    Xor,
    /// `m >= d ? 0 : m + 1`.
    Inc,
    /// `m == 0 || m > d ? d : m - 1`.
    Dec,
    /// `(m & !d0) | d1` (LDS).
    MskOr,
    /// Float add.
    FAdd,
    /// Float minimum.
    FMin,
    /// Float maximum.
    FMax,
}

/// What a FLAT, GLOBAL or SCRATCH instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemKind {
    /// A load of `bytes` per lane.
    Load {
        /// Bytes per lane (1, 2, 4, 8, 12, 16).
        bytes: u8,
        /// Sign-extend a sub-dword value.
        signed: bool,
        /// Which half of the destination a 16-bit load writes.
        half: Half,
    },
    /// A store of `bytes` per lane.
    Store {
        /// Bytes per lane.
        bytes: u8,
        /// Store the high 16 bits of the data (`_d16_hi`).
        hi: bool,
    },
    /// An atomic read-modify-write.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// 64-bit values.
        wide: bool,
        /// Float values (`add_f32`, `add_f64`...).
        float: bool,
    },
}

/// A FLAT, GLOBAL or SCRATCH operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct VmemOp {
    /// The address space.
    pub(crate) seg: Segment,
    /// What it does.
    pub(crate) kind: MemKind,
}

/// What an LDS instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum DsOp {
    /// A load of `bytes` at `addr + offset`.
    Load {
        /// Bytes per lane.
        bytes: u8,
        /// Sign-extend a sub-dword value.
        signed: bool,
        /// Which half of the destination a 16-bit load writes.
        half: Half,
    },
    /// Two loads of `dwords` each at `addr + offset0 * scale` and `addr + offset1 * scale`.
    Load2 {
        /// Dwords per element (1 or 2).
        dwords: u8,
        /// Offsets in units of 64 elements.
        st64: bool,
    },
    /// A store of `bytes` from `data0`.
    Store {
        /// Bytes per lane.
        bytes: u8,
        /// Store the high 16 bits.
        hi: bool,
    },
    /// Two stores of `data0` and `data1`.
    Store2 {
        /// Dwords per element.
        dwords: u8,
        /// Offsets in units of 64 elements.
        st64: bool,
    },
    /// An atomic read-modify-write (with or without the old value returned).
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// 64-bit values.
        wide: bool,
        /// Float values.
        float: bool,
        /// Returns the old value.
        ret: bool,
        /// GFX9's compare order (`ds_cmpst`: data0 is the compared value, data1 the new one).
        cmp_first: bool,
    },
    /// `ds_bpermute_b32`: each lane reads `data0` of the lane its address names.
    Bpermute,
    /// `ds_permute_b32`: each lane writes its `data0` to the lane its address names.
    Permute,
    /// `ds_swizzle_b32`: lanes exchange `addr`'s values by the pattern in the offset.
    Swizzle,
    /// `ds_nop`.
    Nop,
}

/// The memory operation of a mnemonic, if it is one.
pub(crate) fn classify(name: &str) -> Option<Op> {
    if let Some(rest) = name.strip_prefix("s_load_").or_else(|| name.strip_prefix("s_buffer_load_")) {
        if name.starts_with("s_buffer") {
            return None;
        }
        return Some(Op::SLoad { dwords: bytes_of(rest)? as u16 / 4 });
    }
    if let Some(rest) = name.strip_prefix("ds_") {
        return ds(rest).map(Op::Ds);
    }
    let (seg, rest) = if let Some(rest) = name.strip_prefix("global_") {
        (Segment::Global, rest)
    } else if let Some(rest) = name.strip_prefix("flat_") {
        (Segment::Flat, rest)
    } else if let Some(rest) = name.strip_prefix("scratch_") {
        (Segment::Scratch, rest)
    } else {
        return None;
    };
    let kind = if let Some(t) = rest.strip_prefix("load_") {
        load(t)?
    } else if let Some(t) = rest.strip_prefix("store_") {
        store(t)?
    } else if let Some(t) = rest.strip_prefix("atomic_") {
        if seg == Segment::Scratch {
            return None;
        }
        let (op, wide, float) = atomic(t)?;
        MemKind::Atomic { op, wide, float }
    } else {
        return None;
    };
    Some(Op::Vmem(VmemOp { seg, kind }))
}

/// Bytes of a whole-register type suffix (`b32`, `dword`, `dwordx4`...).
fn bytes_of(t: &str) -> Option<u8> {
    Some(match t {
        "b32" | "dword" => 4,
        "b64" | "dwordx2" => 8,
        "b96" | "dwordx3" => 12,
        "b128" | "dwordx4" => 16,
        "b256" | "dwordx8" => 32,
        "b512" | "dwordx16" => 64,
        _ => return None,
    })
}

/// A load type: `u8`/`ubyte`, `i8`/`sbyte`, `u16`/`ushort`, `i16`/`sshort`, the whole-register
/// ones, and the 16-bit half loads (`d16_u8`/`ubyte_d16`, `d16_hi_b16`/`short_d16_hi`...).
fn load(t: &str) -> Option<MemKind> {
    let (bytes, signed, half) = match t {
        "u8" | "ubyte" => (1, false, Half::Full),
        "i8" | "sbyte" => (1, true, Half::Full),
        "u16" | "ushort" => (2, false, Half::Full),
        "i16" | "sshort" => (2, true, Half::Full),
        "d16_u8" | "ubyte_d16" => (1, false, Half::Lo),
        "d16_i8" | "sbyte_d16" => (1, true, Half::Lo),
        "d16_b16" | "short_d16" => (2, false, Half::Lo),
        "d16_hi_u8" | "ubyte_d16_hi" => (1, false, Half::Hi),
        "d16_hi_i8" | "sbyte_d16_hi" => (1, true, Half::Hi),
        "d16_hi_b16" | "short_d16_hi" => (2, false, Half::Hi),
        _ => (bytes_of(t).filter(|&b| b <= 16)?, false, Half::Full),
    };
    Some(MemKind::Load { bytes, signed, half })
}

fn store(t: &str) -> Option<MemKind> {
    let (bytes, hi) = match t {
        "b8" | "byte" => (1, false),
        "b16" | "short" => (2, false),
        "d16_hi_b8" | "byte_d16_hi" => (1, true),
        "d16_hi_b16" | "short_d16_hi" => (2, true),
        _ => (bytes_of(t).filter(|&b| b <= 16)?, false),
    };
    Some(MemKind::Store { bytes, hi })
}

/// An atomic's operation, width and floatness: GFX11 `add_u32`, `cmpswap_b64`, `add_f32`;
/// GFX9 `add`, `cmpswap_x2`, `add_f32`, `add_f64`.
fn atomic(t: &str) -> Option<(AtomicOp, bool, bool)> {
    let (base, suffix) = match t.strip_suffix("_x2") {
        Some(base) => (base, "x2"),
        None => match t.rsplit_once('_') {
            Some((base, suffix @ ("u32" | "i32" | "b32" | "u64" | "i64" | "b64" | "f32" | "f64"))) => (base, suffix),
            _ => (t, ""),
        },
    };
    let wide = matches!(suffix, "x2" | "u64" | "i64" | "b64" | "f64");
    let float = matches!(suffix, "f32" | "f64");
    let op = match (base, float) {
        ("swap", false) => AtomicOp::Swap,
        ("cmpswap", _) => AtomicOp::CmpSwap,
        ("add", false) => AtomicOp::Add,
        ("sub", false) => AtomicOp::Sub,
        ("csub", false) => AtomicOp::Csub,
        ("smin", false) => AtomicOp::SMin,
        ("umin", false) => AtomicOp::UMin,
        ("smax", false) => AtomicOp::SMax,
        ("umax", false) => AtomicOp::UMax,
        // GFX11 spells the integer minimum and maximum by their type: `min_i32`, `max_u64`.
        ("min", false) if suffix.starts_with('i') => AtomicOp::SMin,
        ("min", false) if suffix.starts_with('u') => AtomicOp::UMin,
        ("max", false) if suffix.starts_with('i') => AtomicOp::SMax,
        ("max", false) if suffix.starts_with('u') => AtomicOp::UMax,
        ("and", false) => AtomicOp::And,
        ("or", false) => AtomicOp::Or,
        ("xor", false) => AtomicOp::Xor,
        ("inc", false) => AtomicOp::Inc,
        ("dec", false) => AtomicOp::Dec,
        ("add", true) => AtomicOp::FAdd,
        ("min", true) => AtomicOp::FMin,
        ("max", true) => AtomicOp::FMax,
        _ => return None,
    };
    Some((op, wide, float))
}

/// `ds_*` without the prefix, in both spellings.
fn ds(rest: &str) -> Option<DsOp> {
    Some(match rest {
        "nop" => DsOp::Nop,
        "bpermute_b32" => DsOp::Bpermute,
        "permute_b32" => DsOp::Permute,
        "swizzle_b32" => DsOp::Swizzle,
        "load_2addr_b32" | "read2_b32" => DsOp::Load2 { dwords: 1, st64: false },
        "load_2addr_b64" | "read2_b64" => DsOp::Load2 { dwords: 2, st64: false },
        "load_2addr_stride64_b32" | "read2st64_b32" => DsOp::Load2 { dwords: 1, st64: true },
        "load_2addr_stride64_b64" | "read2st64_b64" => DsOp::Load2 { dwords: 2, st64: true },
        "store_2addr_b32" | "write2_b32" => DsOp::Store2 { dwords: 1, st64: false },
        "store_2addr_b64" | "write2_b64" => DsOp::Store2 { dwords: 2, st64: false },
        "store_2addr_stride64_b32" | "write2st64_b32" => DsOp::Store2 { dwords: 1, st64: true },
        "store_2addr_stride64_b64" | "write2st64_b64" => DsOp::Store2 { dwords: 2, st64: true },
        _ => {
            if let Some(t) = rest.strip_prefix("load_").or_else(|| rest.strip_prefix("read_")) {
                let t = t.replace("u8_d16", "d16_u8").replace("i8_d16", "d16_i8").replace("u16_d16", "d16_b16");
                let t = t.replace("d16_u8_hi", "d16_hi_u8").replace("d16_i8_hi", "d16_hi_i8");
                let t = t.replace("d16_b16_hi", "d16_hi_b16");
                let MemKind::Load { bytes, signed, half } = load(&t)? else { return None };
                return Some(DsOp::Load { bytes, signed, half });
            }
            if let Some(t) = rest.strip_prefix("store_").or_else(|| rest.strip_prefix("write_")) {
                let MemKind::Store { bytes, hi } = store(t)? else { return None };
                return Some(DsOp::Store { bytes, hi });
            }
            return ds_atomic(rest);
        }
    })
}

/// LDS atomics: `add_u32`, `add_rtn_u32`, `cmpstore_b32` (GFX11), `cmpst_b32` (GFX9),
/// `storexchg_rtn_b32` / `wrxchg_rtn_b32`, `add_f32`, 64-bit `_u64`/`_b64`/`_i64`/`_f64`.
fn ds_atomic(rest: &str) -> Option<DsOp> {
    let (base, ty) = rest.rsplit_once('_')?;
    let (base, ret) = match base.strip_suffix("_rtn") {
        Some(b) => (b, true),
        None => (base, false),
    };
    let wide = matches!(ty, "u64" | "i64" | "b64" | "f64");
    let float = matches!(ty, "f32" | "f64");
    if !matches!(ty, "u32" | "i32" | "b32" | "f32" | "u64" | "i64" | "b64" | "f64") {
        return None;
    }
    let (op, cmp_first) = match (base, ty) {
        ("add", _) if float => (AtomicOp::FAdd, false),
        ("min", _) if float => (AtomicOp::FMin, false),
        ("max", _) if float => (AtomicOp::FMax, false),
        ("cmpstore", _) => (AtomicOp::CmpSwap, false),
        ("cmpst", _) => (AtomicOp::CmpSwap, true),
        _ if float => return None,
        ("add", _) => (AtomicOp::Add, false),
        ("sub", _) => (AtomicOp::Sub, false),
        ("rsub", _) => (AtomicOp::Rsub, false),
        ("inc", _) => (AtomicOp::Inc, false),
        ("dec", _) => (AtomicOp::Dec, false),
        ("min", "i32" | "i64") => (AtomicOp::SMin, false),
        ("max", "i32" | "i64") => (AtomicOp::SMax, false),
        ("min", _) => (AtomicOp::UMin, false),
        ("max", _) => (AtomicOp::UMax, false),
        ("and", _) => (AtomicOp::And, false),
        ("or", _) => (AtomicOp::Or, false),
        ("xor", _) => (AtomicOp::Xor, false),
        ("mskor", _) => (AtomicOp::MskOr, false),
        ("storexchg" | "wrxchg", _) => (AtomicOp::Swap, false),
        _ => return None,
    };
    Some(DsOp::Atomic { op, wide, float, ret, cmp_first })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_parse() {
        let g = |name| classify(name).unwrap();
        assert_eq!(g("global_load_b32"), g("global_load_dword"));
        assert_eq!(g("scratch_store_b128"), g("scratch_store_dwordx4"));
        assert_eq!(g("ds_store_2addr_b32"), g("ds_write2_b32"));
        assert_eq!(g("ds_load_b32"), g("ds_read_b32"));
        assert_eq!(g("global_atomic_cmpswap_b32"), g("global_atomic_cmpswap"));
        assert_eq!(g("global_atomic_add_u64"), g("global_atomic_add_x2"));
        assert_eq!(g("global_atomic_smax_i32"), g("global_atomic_smax"));
        assert_eq!(g("global_load_d16_hi_b16"), g("global_load_short_d16_hi"));
        assert_eq!(g("ds_load_u16_d16_hi"), g("ds_read_u16_d16_hi"));
        assert_eq!(
            g("global_atomic_add_f32"),
            Op::Vmem(VmemOp {
                seg: Segment::Global,
                kind: MemKind::Atomic { op: AtomicOp::FAdd, wide: false, float: true }
            })
        );
        assert_eq!(
            g("ds_cmpst_rtn_b32"),
            Op::Ds(DsOp::Atomic { op: AtomicOp::CmpSwap, wide: false, float: false, ret: true, cmp_first: true })
        );
        assert_eq!(
            g("ds_max_rtn_i32"),
            Op::Ds(DsOp::Atomic { op: AtomicOp::SMax, wide: false, float: false, ret: true, cmp_first: false })
        );
        assert_eq!(g("s_load_dwordx8"), Op::SLoad { dwords: 8 });
        assert!(classify("scratch_atomic_add").is_none());
    }
}
