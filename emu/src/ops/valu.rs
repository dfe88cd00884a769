//! The vector-ALU operations the emulator executes, one table line each: the variant, its
//! mnemonics without `v_` (GFX11 and GFX9 spellings), the types of its sources and result, and
//! flags for the lane-mask and register plumbing. The per-lane semantics live in
//! [`crate::valu`]; this table is only what the driver needs to fetch operands and store
//! results.

use super::Ty;

/// Writes a carry-out (or VCC-like) lane mask as `defs[1]` (VCC when the encoding implies it).
pub(crate) const CO: u16 = 1;
/// Reads a lane mask after its sources (carry in, or `v_cndmask`'s select; VCC if implicit).
pub(crate) const CI: u16 = 2;
/// `clamp` saturates the integer result.
pub(crate) const ICLAMP: u16 = 4;
/// The last source is the destination (`v_fmac_*`): read from `defs[0]` when not given.
pub(crate) const TIED: u16 = 8;
/// Reads VCC as a per-lane flag (`v_div_fmas_*`).
pub(crate) const VCCIN: u16 = 16;
/// A transcendental operation (its own pipeline: the TRANS hazards apply).
pub(crate) const TRANS: u16 = 32;
/// `neg`/`abs` apply to the sign bit of the integer-typed sources (`v_cndmask_*`), with no
/// float semantics (no denormal flushing).
pub(crate) const BITMODS: u16 = 64;

/// The operand and result layout of an operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Each source's type.
    pub(crate) srcs: &'static [Ty],
    /// The result's type.
    pub(crate) dst: Ty,
    /// [`CO`], [`CI`], [`ICLAMP`], [`TIED`], [`VCCIN`], [`TRANS`], [`BITMODS`].
    pub(crate) flags: u16,
}

impl Shape {
    /// Whether a flag is set.
    pub(crate) fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

macro_rules! valu_ops {
    ($($(#[$doc:meta])* $v:ident [$($name:literal),+] ($($src:ident),*) -> $dst:ident $(| $flag:ident)* ;)*) => {
        /// Vector ALU operations with a computed result (VOP1, VOP2, VOP3, VOP3SD), apart
        /// from compares and the cross-lane and packed operations.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub(crate) enum VAlu {
            $($(#[$doc])* $v,)*
        }

        impl VAlu {
            /// The operation of a mnemonic without its `v_` prefix.
            pub(crate) fn parse(name: &str) -> Option<VAlu> {
                match name {
                    $($($name)|+ => Some(VAlu::$v),)*
                    _ => None,
                }
            }

            /// The operation's layout.
            pub(crate) fn shape(self) -> Shape {
                match self {
                    $(VAlu::$v => Shape { srcs: &[$(Ty::$src),*], dst: Ty::$dst, flags: 0 $(| $flag)* },)*
                }
            }
        }
    };
}

valu_ops! {
    /// `d = a`.
    Mov ["mov_b32"] (U32) -> U32;
    /// 64-bit move.
    MovB64 ["mov_b64"] (U64) -> U64;
    /// `!a`.
    Not ["not_b32"] (U32) -> U32;
    /// Bit reverse.
    Bfrev ["bfrev_b32"] (U32) -> U32;
    /// Leading zeros (-1 for 0).
    Clz ["clz_i32_u32", "ffbh_u32"] (U32) -> U32;
    /// Trailing zeros (-1 for 0).
    Ctz ["ctz_i32_b32", "ffbl_b32"] (U32) -> U32;
    /// Leading bits equal to the sign bit, less one (-1 for 0 and -1).
    Cls ["cls_i32", "ffbh_i32"] (U32) -> U32;
    /// `a & b`.
    And ["and_b32"] (U32, U32) -> U32;
    /// `a | b`.
    Or ["or_b32"] (U32, U32) -> U32;
    /// `a ^ b`.
    Xor ["xor_b32"] (U32, U32) -> U32;
    /// `!(a ^ b)`.
    Xnor ["xnor_b32"] (U32, U32) -> U32;
    /// `a | b | c`.
    Or3 ["or3_b32"] (U32, U32, U32) -> U32;
    /// `a ^ b ^ c`.
    Xor3 ["xor3_b32"] (U32, U32, U32) -> U32;
    /// `(a & b) | c`.
    AndOr ["and_or_b32"] (U32, U32, U32) -> U32;
    /// `(a << b) | c`.
    LshlOr ["lshl_or_b32"] (U32, U32, U32) -> U32;
    /// `a + b` (clamp saturates).
    AddU32 ["add_nc_u32", "add_u32"] (U32, U32) -> U32 | ICLAMP;
    /// `a - b`.
    SubU32 ["sub_nc_u32", "sub_u32"] (U32, U32) -> U32 | ICLAMP;
    /// `b - a`.
    SubrevU32 ["subrev_nc_u32", "subrev_u32"] (U32, U32) -> U32 | ICLAMP;
    /// Signed `a + b` (clamp saturates signed).
    AddI32 ["add_nc_i32", "add_i32"] (U32, U32) -> U32 | ICLAMP;
    /// Signed `a - b`.
    SubI32 ["sub_nc_i32", "sub_i32"] (U32, U32) -> U32 | ICLAMP;
    /// `a + b + c`.
    Add3U32 ["add3_u32"] (U32, U32, U32) -> U32;
    /// `(a << b) + c`.
    LshlAddU32 ["lshl_add_u32"] (U32, U32, U32) -> U32;
    /// `(a + b) << c`.
    AddLshlU32 ["add_lshl_u32"] (U32, U32, U32) -> U32;
    /// `(a ^ b) + c`.
    XadU32 ["xad_u32"] (U32, U32, U32) -> U32;
    /// `a + b`, carry out.
    AddCoU32 ["add_co_u32"] (U32, U32) -> U32 | CO | ICLAMP;
    /// `a - b`, borrow out.
    SubCoU32 ["sub_co_u32"] (U32, U32) -> U32 | CO | ICLAMP;
    /// `b - a`, borrow out.
    SubrevCoU32 ["subrev_co_u32"] (U32, U32) -> U32 | CO | ICLAMP;
    /// `a + b + carry`, carry out.
    AddCoCiU32 ["add_co_ci_u32", "addc_co_u32"] (U32, U32) -> U32 | CI | CO | ICLAMP;
    /// `a - b - borrow`, borrow out.
    SubCoCiU32 ["sub_co_ci_u32", "subb_co_u32"] (U32, U32) -> U32 | CI | CO | ICLAMP;
    /// `b - a - borrow`, borrow out.
    SubrevCoCiU32 ["subrev_co_ci_u32", "subbrev_co_u32"] (U32, U32) -> U32 | CI | CO | ICLAMP;
    /// Low 32 bits of `a * b`.
    MulLoU32 ["mul_lo_u32"] (U32, U32) -> U32;
    /// High 32 bits of the unsigned product.
    MulHiU32 ["mul_hi_u32"] (U32, U32) -> U32;
    /// High 32 bits of the signed product.
    MulHiI32 ["mul_hi_i32"] (U32, U32) -> U32;
    /// 24-bit unsigned multiply, low 32 bits.
    MulU24 ["mul_u32_u24"] (U32, U32) -> U32;
    /// 24-bit signed multiply, low 32 bits.
    MulI24 ["mul_i32_i24"] (U32, U32) -> U32;
    /// 24-bit unsigned multiply, high 16 bits.
    MulHiU24 ["mul_hi_u32_u24"] (U32, U32) -> U32;
    /// 24-bit signed multiply, high 16 bits.
    MulHiI24 ["mul_hi_i32_i24"] (U32, U32) -> U32;
    /// 64-bit `a * b + c` (unsigned), carry out.
    MadU64U32 ["mad_u64_u32"] (U32, U32, U64) -> U64 | CO | ICLAMP;
    /// 64-bit `a * b + c` (signed), overflow out.
    MadI64I32 ["mad_i64_i32"] (U32, U32, U64) -> U64 | CO | ICLAMP;
    /// 24-bit `a * b + c`.
    MadU32U24 ["mad_u32_u24"] (U32, U32, U32) -> U32 | ICLAMP;
    /// Signed 24-bit `a * b + c`.
    MadI32I24 ["mad_i32_i24"] (U32, U32, U32) -> U32 | ICLAMP;
    /// 16-bit unsigned `a * b + c` into 32 bits.
    MadU32U16 ["mad_u32_u16"] (U16, U16, U32) -> U32 | ICLAMP;
    /// 16-bit signed `a * b + c` into 32 bits.
    MadI32I16 ["mad_i32_i16"] (I16, I16, U32) -> U32 | ICLAMP;
    /// `b << a`.
    LshlrevB32 ["lshlrev_b32"] (U32, U32) -> U32;
    /// `b >> a` (logical).
    LshrrevB32 ["lshrrev_b32"] (U32, U32) -> U32;
    /// `b >> a` (arithmetic).
    AshrrevI32 ["ashrrev_i32"] (U32, U32) -> U32;
    /// 64-bit `b << a`.
    LshlrevB64 ["lshlrev_b64"] (U32, U64) -> U64;
    /// 64-bit logical `b >> a`.
    LshrrevB64 ["lshrrev_b64"] (U32, U64) -> U64;
    /// 64-bit arithmetic `b >> a`.
    AshrrevI64 ["ashrrev_i64"] (U32, U64) -> U64;
    /// `(a << b[2:0]) + c`, 64-bit (gfx942).
    LshlAddU64 ["lshl_add_u64"] (U64, U32, U64) -> U64;
    /// Unsigned bitfield extract.
    BfeU32 ["bfe_u32"] (U32, U32, U32) -> U32;
    /// Signed bitfield extract.
    BfeI32 ["bfe_i32"] (U32, U32, U32) -> U32;
    /// Bitfield insert: `(a & b) | (!a & c)`.
    BfiB32 ["bfi_b32"] (U32, U32, U32) -> U32;
    /// Bitfield mask: `((1 << a) - 1) << b`.
    BfmB32 ["bfm_b32"] (U32, U32) -> U32;
    /// `({a, b} >> c[4:0])[31:0]`.
    AlignbitB32 ["alignbit_b32"] (U32, U32, U32) -> U32;
    /// `({a, b} >> 8 * c[1:0])[31:0]`.
    AlignbyteB32 ["alignbyte_b32"] (U32, U32, U32) -> U32;
    /// Byte permute of `{a, b}` by the selectors in `c`.
    PermB32 ["perm_b32"] (U32, U32, U32) -> U32;
    /// Bits set in `a`, plus `b`.
    BcntU32 ["bcnt_u32_b32"] (U32, U32) -> U32;
    /// Unsigned minimum.
    MinU32 ["min_u32"] (U32, U32) -> U32;
    /// Unsigned maximum.
    MaxU32 ["max_u32"] (U32, U32) -> U32;
    /// Signed minimum.
    MinI32 ["min_i32"] (U32, U32) -> U32;
    /// Signed maximum.
    MaxI32 ["max_i32"] (U32, U32) -> U32;
    /// Unsigned minimum of three.
    Min3U32 ["min3_u32"] (U32, U32, U32) -> U32;
    /// Unsigned maximum of three.
    Max3U32 ["max3_u32"] (U32, U32, U32) -> U32;
    /// Unsigned median of three.
    Med3U32 ["med3_u32"] (U32, U32, U32) -> U32;
    /// Signed minimum of three.
    Min3I32 ["min3_i32"] (U32, U32, U32) -> U32;
    /// Signed maximum of three.
    Max3I32 ["max3_i32"] (U32, U32, U32) -> U32;
    /// Signed median of three.
    Med3I32 ["med3_i32"] (U32, U32, U32) -> U32;
    /// `min(max(a, b), c)` unsigned.
    MaxminU32 ["maxmin_u32"] (U32, U32, U32) -> U32;
    /// `max(min(a, b), c)` unsigned.
    MinmaxU32 ["minmax_u32"] (U32, U32, U32) -> U32;
    /// `min(max(a, b), c)` signed.
    MaxminI32 ["maxmin_i32"] (U32, U32, U32) -> U32;
    /// `max(min(a, b), c)` signed.
    MinmaxI32 ["minmax_i32"] (U32, U32, U32) -> U32;
    /// Unsigned distance plus `c` (the GCN3 definition; see the ACO errata).
    SadU32 ["sad_u32"] (U32, U32, U32) -> U32 | ICLAMP;
    /// `mask[lane] ? b : a`.
    CndmaskB32 ["cndmask_b32"] (U32, U32) -> U32 | CI | BITMODS;
    /// 16-bit `mask[lane] ? b : a`.
    CndmaskB16 ["cndmask_b16"] (U16, U16) -> U16 | CI | BITMODS;
    /// 16-bit `a + b`.
    AddU16 ["add_nc_u16", "add_u16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit `a - b`.
    SubU16 ["sub_nc_u16", "sub_u16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit `b - a`.
    SubrevU16 ["subrev_u16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit signed `a + b`.
    AddI16 ["add_nc_i16", "add_i16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit signed `a - b`.
    SubI16 ["sub_nc_i16", "sub_i16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit `a * b`.
    MulLoU16 ["mul_lo_u16"] (U16, U16) -> U16 | ICLAMP;
    /// 16-bit `a * b + c`.
    MadU16 ["mad_u16"] (U16, U16, U16) -> U16 | ICLAMP;
    /// 16-bit signed `a * b + c`.
    MadI16 ["mad_i16"] (U16, U16, U16) -> U16 | ICLAMP;
    /// 16-bit `b << a`.
    LshlrevB16 ["lshlrev_b16"] (U16, U16) -> U16;
    /// 16-bit logical `b >> a`.
    LshrrevB16 ["lshrrev_b16"] (U16, U16) -> U16;
    /// 16-bit arithmetic `b >> a`.
    AshrrevI16 ["ashrrev_i16"] (U16, U16) -> U16;
    /// 16-bit unsigned maximum.
    MaxU16 ["max_u16"] (U16, U16) -> U16;
    /// 16-bit signed maximum.
    MaxI16 ["max_i16"] (U16, U16) -> U16;
    /// 16-bit unsigned minimum.
    MinU16 ["min_u16"] (U16, U16) -> U16;
    /// 16-bit signed minimum.
    MinI16 ["min_i16"] (U16, U16) -> U16;
    /// 16-bit move.
    MovB16 ["mov_b16"] (U16) -> U16;
    /// 16-bit `!a`.
    NotB16 ["not_b16"] (U16) -> U16;
    /// 16-bit `a & b`.
    AndB16 ["and_b16"] (U16, U16) -> U16;
    /// 16-bit `a | b`.
    OrB16 ["or_b16"] (U16, U16) -> U16;
    /// 16-bit `a ^ b`.
    XorB16 ["xor_b16"] (U16, U16) -> U16;
    /// Sign-extends 16 bits to 32.
    CvtI32I16 ["cvt_i32_i16"] (I16) -> U32;
    /// Zero-extends 16 bits to 32.
    CvtU32U16 ["cvt_u32_u16"] (U16) -> U32;
    /// f32 `a + b`.
    AddF32 ["add_f32"] (F32, F32) -> F32;
    /// f32 `a - b`.
    SubF32 ["sub_f32"] (F32, F32) -> F32;
    /// f32 `b - a`.
    SubrevF32 ["subrev_f32"] (F32, F32) -> F32;
    /// f32 `a * b`.
    MulF32 ["mul_f32"] (F32, F32) -> F32;
    /// f32 `a * b` with `0 * anything = 0` (DX9 rules).
    MulLegacyF32 ["mul_legacy_f32", "mul_dx9_zero_f32"] (F32, F32) -> F32;
    /// Unfused f32 `a * b + c` with denormals flushed whatever the mode (gfx90a's `v_mad_f32`,
    /// and `madmk`/`madak`, whose literal is one of the sources; LLVM: "v_mad_f32/v_mac_f32 do
    /// not support denormals").
    MadF32 ["mad_f32", "madmk_f32", "madak_f32"] (F32, F32, F32) -> F32;
    /// Unfused f32 `a * b + d`, denormals flushed.
    MacF32 ["mac_f32"] (F32, F32, F32) -> F32 | TIED;
    /// Unfused f32 multiply-add with DX9 zero rules, denormals flushed.
    MadLegacyF32 ["mad_legacy_f32"] (F32, F32, F32) -> F32;
    /// Fused f32 `a * b + c` (also `fmamk`/`fmaak`, whose literal is one of the sources).
    FmaF32 ["fma_f32", "fmamk_f32", "fmaak_f32"] (F32, F32, F32) -> F32;
    /// Fused f32 `a * b + d`.
    FmacF32 ["fmac_f32"] (F32, F32, F32) -> F32 | TIED;
    /// Fused f32 multiply-add with DX9 zero rules.
    FmaLegacyF32 ["fma_dx9_zero_f32", "fma_legacy_f32"] (F32, F32, F32) -> F32;
    /// Fused f32 `a * b + d` with DX9 zero rules.
    FmacLegacyF32 ["fmac_dx9_zero_f32", "fmac_legacy_f32"] (F32, F32, F32) -> F32 | TIED;
    /// f32 minimum.
    MinF32 ["min_f32"] (F32, F32) -> F32;
    /// f32 maximum.
    MaxF32 ["max_f32"] (F32, F32) -> F32;
    /// f32 minimum of three.
    Min3F32 ["min3_f32"] (F32, F32, F32) -> F32;
    /// f32 maximum of three.
    Max3F32 ["max3_f32"] (F32, F32, F32) -> F32;
    /// f32 median of three.
    Med3F32 ["med3_f32"] (F32, F32, F32) -> F32;
    /// `min(max(a, b), c)`.
    MaxminF32 ["maxmin_f32"] (F32, F32, F32) -> F32;
    /// `max(min(a, b), c)`.
    MinmaxF32 ["minmax_f32"] (F32, F32, F32) -> F32;
    /// `a * 2^b`.
    LdexpF32 ["ldexp_f32"] (F32, I32) -> F32;
    /// The mantissa of `a` in [0.5, 1).
    FrexpMantF32 ["frexp_mant_f32"] (F32) -> F32;
    /// The exponent of `a` such that `a = mant * 2^exp`.
    FrexpExpF32 ["frexp_exp_i32_f32"] (F32) -> I32;
    /// Rounds toward zero.
    TruncF32 ["trunc_f32"] (F32) -> F32;
    /// Rounds up.
    CeilF32 ["ceil_f32"] (F32) -> F32;
    /// Rounds down.
    FloorF32 ["floor_f32"] (F32) -> F32;
    /// Rounds to nearest even.
    RndneF32 ["rndne_f32"] (F32) -> F32;
    /// `a - floor(a)`.
    FractF32 ["fract_f32"] (F32) -> F32;
    /// `1 / a`.
    RcpF32 ["rcp_f32"] (F32) -> F32 | TRANS;
    /// `1 / a` for integer division (no IEEE exceptions).
    RcpIflagF32 ["rcp_iflag_f32"] (F32) -> F32 | TRANS;
    /// `1 / sqrt(a)`.
    RsqF32 ["rsq_f32"] (F32) -> F32 | TRANS;
    /// `sqrt(a)`.
    SqrtF32 ["sqrt_f32"] (F32) -> F32 | TRANS;
    /// `2^a`.
    ExpF32 ["exp_f32"] (F32) -> F32 | TRANS;
    /// `log2(a)`.
    LogF32 ["log_f32"] (F32) -> F32 | TRANS;
    /// `2^a`, GFX9's legacy version.
    ExpLegacyF32 ["exp_legacy_f32"] (F32) -> F32 | TRANS;
    /// `log2(a)`, GFX9's legacy version.
    LogLegacyF32 ["log_legacy_f32"] (F32) -> F32 | TRANS;
    /// `sin(2 pi a)`.
    SinF32 ["sin_f32"] (F32) -> F32 | TRANS;
    /// `cos(2 pi a)`.
    CosF32 ["cos_f32"] (F32) -> F32 | TRANS;
    /// The division prologue: scales the denominator or numerator, VCC out.
    DivScaleF32 ["div_scale_f32"] (F32, F32, F32) -> F32 | CO;
    /// `fma(a, b, c)`, scaled by 2^64 (or 2^-64 for f32 sizes) where VCC is set.
    DivFmasF32 ["div_fmas_f32"] (F32, F32, F32) -> F32 | VCCIN;
    /// The division epilogue: special cases and the final quotient.
    DivFixupF32 ["div_fixup_f32"] (F32, F32, F32) -> F32;
    /// u32 to f32.
    CvtF32U32 ["cvt_f32_u32"] (U32) -> F32;
    /// i32 to f32.
    CvtF32I32 ["cvt_f32_i32"] (I32) -> F32;
    /// f32 to u32 (saturating, NaN to 0).
    CvtU32F32 ["cvt_u32_f32"] (F32) -> U32;
    /// f32 to i32 (saturating, NaN to 0).
    CvtI32F32 ["cvt_i32_f32"] (F32) -> I32;
    /// f32 to i32, rounding to nearest (half up).
    CvtNearestI32F32 ["cvt_nearest_i32_f32", "cvt_rpi_i32_f32"] (F32) -> I32;
    /// f32 to i32, rounding down.
    CvtFloorI32F32 ["cvt_floor_i32_f32", "cvt_flr_i32_f32"] (F32) -> I32;
    /// Byte 0 to f32.
    CvtF32Ubyte0 ["cvt_f32_ubyte0"] (U32) -> F32;
    /// Byte 1 to f32.
    CvtF32Ubyte1 ["cvt_f32_ubyte1"] (U32) -> F32;
    /// Byte 2 to f32.
    CvtF32Ubyte2 ["cvt_f32_ubyte2"] (U32) -> F32;
    /// Byte 3 to f32.
    CvtF32Ubyte3 ["cvt_f32_ubyte3"] (U32) -> F32;
    /// f64 to f32.
    CvtF32F64 ["cvt_f32_f64"] (F64) -> F32;
    /// f32 to f64.
    CvtF64F32 ["cvt_f64_f32"] (F32) -> F64;
    /// f64 to i32.
    CvtI32F64 ["cvt_i32_f64"] (F64) -> I32;
    /// f64 to u32.
    CvtU32F64 ["cvt_u32_f64"] (F64) -> U32;
    /// i32 to f64.
    CvtF64I32 ["cvt_f64_i32"] (I32) -> F64;
    /// u32 to f64.
    CvtF64U32 ["cvt_f64_u32"] (U32) -> F64;
    /// f32 to f16.
    CvtF16F32 ["cvt_f16_f32"] (F32) -> F16;
    /// f16 to f32.
    CvtF32F16 ["cvt_f32_f16"] (F16) -> F32;
    /// u16 to f16.
    CvtF16U16 ["cvt_f16_u16"] (U16) -> F16;
    /// i16 to f16.
    CvtF16I16 ["cvt_f16_i16"] (I16) -> F16;
    /// f16 to u16.
    CvtU16F16 ["cvt_u16_f16"] (F16) -> U16;
    /// f16 to i16.
    CvtI16F16 ["cvt_i16_f16"] (F16) -> I16;
    /// Two f32 to two f16, rounding toward zero.
    CvtPkRtzF16F32 ["cvt_pk_rtz_f16_f32", "cvt_pkrtz_f16_f32"] (F32, F32) -> U32;
    /// Two f16 into one dword.
    PackB32F16 ["pack_b32_f16"] (F16, F16) -> U32;
    /// f64 `a + b`.
    AddF64 ["add_f64"] (F64, F64) -> F64;
    /// f64 `a * b`.
    MulF64 ["mul_f64"] (F64, F64) -> F64;
    /// Fused f64 `a * b + c`.
    FmaF64 ["fma_f64"] (F64, F64, F64) -> F64;
    /// Fused f64 `a * b + d`.
    FmacF64 ["fmac_f64"] (F64, F64, F64) -> F64 | TIED;
    /// f64 minimum.
    MinF64 ["min_f64"] (F64, F64) -> F64;
    /// f64 maximum.
    MaxF64 ["max_f64"] (F64, F64) -> F64;
    /// `a * 2^b`.
    LdexpF64 ["ldexp_f64"] (F64, I32) -> F64;
    /// The mantissa of `a` in [0.5, 1).
    FrexpMantF64 ["frexp_mant_f64"] (F64) -> F64;
    /// The exponent of `a`.
    FrexpExpF64 ["frexp_exp_i32_f64"] (F64) -> I32;
    /// Segment `b` of 2/π for the range reduction of `a` (Payne–Hanek).
    TrigPreopF64 ["trig_preop_f64"] (F64, I32) -> F64;
    /// Rounds toward zero.
    TruncF64 ["trunc_f64"] (F64) -> F64;
    /// Rounds up.
    CeilF64 ["ceil_f64"] (F64) -> F64;
    /// Rounds down.
    FloorF64 ["floor_f64"] (F64) -> F64;
    /// Rounds to nearest even.
    RndneF64 ["rndne_f64"] (F64) -> F64;
    /// `a - floor(a)`.
    FractF64 ["fract_f64"] (F64) -> F64;
    /// `1 / a`.
    RcpF64 ["rcp_f64"] (F64) -> F64 | TRANS;
    /// `1 / sqrt(a)`.
    RsqF64 ["rsq_f64"] (F64) -> F64 | TRANS;
    /// `sqrt(a)`.
    SqrtF64 ["sqrt_f64"] (F64) -> F64 | TRANS;
    /// The f64 division prologue, VCC out.
    DivScaleF64 ["div_scale_f64"] (F64, F64, F64) -> F64 | CO;
    /// `fma(a, b, c)`, scaled by 2^128 (or 2^-128) where VCC is set.
    DivFmasF64 ["div_fmas_f64"] (F64, F64, F64) -> F64 | VCCIN;
    /// The f64 division epilogue.
    DivFixupF64 ["div_fixup_f64"] (F64, F64, F64) -> F64;
    /// f16 `a + b`.
    AddF16 ["add_f16"] (F16, F16) -> F16;
    /// f16 `a - b`.
    SubF16 ["sub_f16"] (F16, F16) -> F16;
    /// f16 `b - a`.
    SubrevF16 ["subrev_f16"] (F16, F16) -> F16;
    /// f16 `a * b`.
    MulF16 ["mul_f16"] (F16, F16) -> F16;
    /// Fused f16 `a * b + c` (also `fmamk`/`fmaak`).
    FmaF16 ["fma_f16", "fmamk_f16", "fmaak_f16"] (F16, F16, F16) -> F16;
    /// Fused f16 `a * b + d`.
    FmacF16 ["fmac_f16"] (F16, F16, F16) -> F16 | TIED;
    /// f16 minimum.
    MinF16 ["min_f16"] (F16, F16) -> F16;
    /// f16 maximum.
    MaxF16 ["max_f16"] (F16, F16) -> F16;
    /// f16 minimum of three.
    Min3F16 ["min3_f16"] (F16, F16, F16) -> F16;
    /// f16 maximum of three.
    Max3F16 ["max3_f16"] (F16, F16, F16) -> F16;
    /// f16 median of three.
    Med3F16 ["med3_f16"] (F16, F16, F16) -> F16;
    /// `a * 2^b` (b a signed 16-bit integer).
    LdexpF16 ["ldexp_f16"] (F16, I16) -> F16;
    /// The mantissa of `a`.
    FrexpMantF16 ["frexp_mant_f16"] (F16) -> F16;
    /// The exponent of `a`.
    FrexpExpF16 ["frexp_exp_i16_f16"] (F16) -> I16;
    /// Rounds toward zero.
    TruncF16 ["trunc_f16"] (F16) -> F16;
    /// Rounds up.
    CeilF16 ["ceil_f16"] (F16) -> F16;
    /// Rounds down.
    FloorF16 ["floor_f16"] (F16) -> F16;
    /// Rounds to nearest even.
    RndneF16 ["rndne_f16"] (F16) -> F16;
    /// `a - floor(a)`.
    FractF16 ["fract_f16"] (F16) -> F16;
    /// `1 / a`.
    RcpF16 ["rcp_f16"] (F16) -> F16 | TRANS;
    /// `1 / sqrt(a)`.
    RsqF16 ["rsq_f16"] (F16) -> F16 | TRANS;
    /// `sqrt(a)`.
    SqrtF16 ["sqrt_f16"] (F16) -> F16 | TRANS;
    /// `2^a`.
    ExpF16 ["exp_f16"] (F16) -> F16 | TRANS;
    /// `log2(a)`.
    LogF16 ["log_f16"] (F16) -> F16 | TRANS;
    /// `sin(2 pi a)`.
    SinF16 ["sin_f16"] (F16) -> F16 | TRANS;
    /// `cos(2 pi a)`.
    CosF16 ["cos_f16"] (F16) -> F16 | TRANS;
    /// The f16 division epilogue.
    DivFixupF16 ["div_fixup_f16"] (F16, F16, F16) -> F16;
}

/// Packed operations (VOP3P): each lane works on two halves, the sources' halves chosen by
/// `op_sel` (low result) and `op_sel_hi` (high result), negated by `neg_lo`/`neg_hi`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PkOp {
    /// Two f16 additions.
    AddF16,
    /// Two f16 multiplications.
    MulF16,
    /// Two fused f16 multiply-adds.
    FmaF16,
    /// Two fused f16 multiply-adds into the destination (VOP2 on GFX11, no selects).
    FmacF16,
    /// Two f16 minimums.
    MinF16,
    /// Two f16 maximums.
    MaxF16,
    /// Two 16-bit additions (clamp saturates unsigned).
    AddU16,
    /// Two 16-bit subtractions.
    SubU16,
    /// Two signed 16-bit additions.
    AddI16,
    /// Two signed 16-bit subtractions.
    SubI16,
    /// Two 16-bit multiplications (low half).
    MulLoU16,
    /// Two 16-bit `a * b + c`.
    MadU16,
    /// Two signed 16-bit `a * b + c`.
    MadI16,
    /// Two 16-bit `b << a`.
    LshlrevB16,
    /// Two 16-bit logical `b >> a`.
    LshrrevB16,
    /// Two 16-bit arithmetic `b >> a`.
    AshrrevI16,
    /// Two unsigned 16-bit maximums.
    MaxU16,
    /// Two unsigned 16-bit minimums.
    MinU16,
    /// Two signed 16-bit maximums.
    MaxI16,
    /// Two signed 16-bit minimums.
    MinI16,
    /// Two fused f32 multiply-adds on 64-bit operands (gfx942).
    FmaF32,
    /// Two f32 multiplications on 64-bit operands (gfx942).
    MulF32,
    /// Two f32 additions on 64-bit operands (gfx942).
    AddF32,
    /// Two dword moves on 64-bit operands (gfx942).
    MovB32,
    /// Mixed precision fused multiply-add into f32 (sources f16 or f32 by `op_sel_hi`).
    FmaMixF32,
    /// Mixed precision fused multiply-add into the low f16 half.
    FmaMixloF16,
    /// Mixed precision fused multiply-add into the high f16 half.
    FmaMixhiF16,
}

impl PkOp {
    /// The packed operation of a mnemonic without its `v_` prefix.
    pub(crate) fn parse(name: &str) -> Option<PkOp> {
        use PkOp::*;
        Some(match name {
            "pk_add_f16" => AddF16,
            "pk_mul_f16" => MulF16,
            "pk_fma_f16" => FmaF16,
            "pk_fmac_f16" => FmacF16,
            "pk_min_f16" => MinF16,
            "pk_max_f16" => MaxF16,
            "pk_add_u16" => AddU16,
            "pk_sub_u16" => SubU16,
            "pk_add_i16" => AddI16,
            "pk_sub_i16" => SubI16,
            "pk_mul_lo_u16" => MulLoU16,
            "pk_mad_u16" => MadU16,
            "pk_mad_i16" => MadI16,
            "pk_lshlrev_b16" => LshlrevB16,
            "pk_lshrrev_b16" => LshrrevB16,
            "pk_ashrrev_i16" => AshrrevI16,
            "pk_max_u16" => MaxU16,
            "pk_min_u16" => MinU16,
            "pk_max_i16" => MaxI16,
            "pk_min_i16" => MinI16,
            "pk_fma_f32" => FmaF32,
            "pk_mul_f32" => MulF32,
            "pk_add_f32" => AddF32,
            "pk_mov_b32" => MovB32,
            "fma_mix_f32" | "mad_mix_f32" => FmaMixF32,
            "fma_mixlo_f16" | "mad_mixlo_f16" => FmaMixloF16,
            "fma_mixhi_f16" | "mad_mixhi_f16" => FmaMixhiF16,
            _ => return None,
        })
    }

    /// The number of sources.
    pub(crate) fn sources(self) -> usize {
        use PkOp::*;
        match self {
            FmaF16 | MadU16 | MadI16 | FmaF32 | FmaMixF32 | FmaMixloF16 | FmaMixhiF16 => 3,
            FmacF16 => 2,
            _ => 2,
        }
    }

    /// Whether the operands are 64-bit pairs of f32 (gfx942's packed f32 operations).
    pub(crate) fn is_f32_pair(self) -> bool {
        matches!(self, PkOp::FmaF32 | PkOp::MulF32 | PkOp::AddF32 | PkOp::MovB32)
    }

    /// Whether the operation is a mixed-precision one (`v_fma_mix*`).
    pub(crate) fn is_mix(self) -> bool {
        matches!(self, PkOp::FmaMixF32 | PkOp::FmaMixloF16 | PkOp::FmaMixhiF16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_both_families_name_one_operation() {
        assert_eq!(VAlu::parse("add_co_ci_u32"), Some(VAlu::AddCoCiU32));
        assert_eq!(VAlu::parse("addc_co_u32"), Some(VAlu::AddCoCiU32));
        assert_eq!(VAlu::parse("ffbh_u32"), VAlu::parse("clz_i32_u32"));
        let fmac = VAlu::FmacF32.shape();
        assert!(fmac.has(TIED) && !fmac.has(CO));
        assert_eq!(VAlu::MadU64U32.shape().srcs, &[Ty::U32, Ty::U32, Ty::U64]);
        assert_eq!(PkOp::parse("pk_fma_f16"), Some(PkOp::FmaF16));
    }
}
