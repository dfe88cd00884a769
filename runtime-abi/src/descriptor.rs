//! The 64-byte kernel descriptor (`NAME.kd`, AMDGPUUsage NEW:4083) and its packed words
//! COMPUTE_PGM_RSRC1/2/3 and kernel_code_properties, as typed structs with one field per bit
//! field, encoded and decoded per generation (GFX9 including gfx90a/gfx942, GFX10/GFX11, GFX12).
//! [`set_register_counts`] fills the granulated register counts by each generation's rule, as
//! clang-19 computes them from `.amdhsa_next_free_vgpr/sgpr` and `.amdhsa_accum_offset`.
//!
//! Each packed word is declared once by `bit_fields!`: a field's position and the generations
//! that have it give both its encoder and its decoder, and the bits no field covers are the
//! reserved mask that [`KernelDescriptor::decode`] checks.

use isa::processor::{Feature, FeatureSetting, FlatScratch, Generation, Processor, Target, TargetId};

use crate::AbiError;

/// Round to nearest even / +inf / -inf / zero (NEW:4808).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatRoundMode {
    /// Round to nearest, ties to even (0).
    #[default]
    NearEven,
    /// Round towards +infinity (1).
    PlusInfinity,
    /// Round towards -infinity (2).
    MinusInfinity,
    /// Round towards zero (3).
    Zero,
}

/// Which denormals are flushed (NEW:4832); flushing keeps the sign.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatDenormMode {
    /// Flush source and destination denormals (0).
    #[default]
    FlushSrcDst,
    /// Flush output denormals (1).
    FlushDst,
    /// Flush source denormals (2).
    FlushSrc,
    /// Flush none: full IEEE denormals (3), what clang-19 writes for OpenCL C by default.
    FlushNone,
}

/// A value that lives in a bit field: converted to and from the field's bits.
trait FieldValue: Copy {
    fn to_bits(self) -> u32;
    fn from_bits(bits: u32) -> Self;
}

impl FieldValue for bool {
    fn to_bits(self) -> u32 {
        self as u32
    }
    fn from_bits(bits: u32) -> Self {
        bits != 0
    }
}

impl FieldValue for u8 {
    fn to_bits(self) -> u32 {
        self.into()
    }
    fn from_bits(bits: u32) -> Self {
        bits as u8
    }
}

impl FieldValue for u16 {
    fn to_bits(self) -> u32 {
        self.into()
    }
    fn from_bits(bits: u32) -> Self {
        bits as u16
    }
}

impl FieldValue for FloatRoundMode {
    fn to_bits(self) -> u32 {
        self as u32
    }
    fn from_bits(bits: u32) -> Self {
        [Self::NearEven, Self::PlusInfinity, Self::MinusInfinity, Self::Zero][(bits & 3) as usize]
    }
}

impl FieldValue for FloatDenormMode {
    fn to_bits(self) -> u32 {
        self as u32
    }
    fn from_bits(bits: u32) -> Self {
        [Self::FlushSrcDst, Self::FlushDst, Self::FlushSrc, Self::FlushNone][(bits & 3) as usize]
    }
}

const fn field_mask(width: u32) -> u32 {
    ((1u64 << width) - 1) as u32
}

// Generations that have a field.
fn all(_: Generation) -> bool {
    true
}
fn gfx9(g: Generation) -> bool {
    g == Generation::Gfx9
}
fn gfx9_to_11(g: Generation) -> bool {
    g <= Generation::Gfx11
}
fn gfx10_11(g: Generation) -> bool {
    matches!(g, Generation::Gfx10 | Generation::Gfx11)
}
fn gfx10_plus(g: Generation) -> bool {
    g >= Generation::Gfx10
}
fn gfx11(g: Generation) -> bool {
    g == Generation::Gfx11
}
fn gfx11_plus(g: Generation) -> bool {
    g >= Generation::Gfx11
}
fn gfx12(g: Generation) -> bool {
    g == Generation::Gfx12
}

/// Declares a packed word: a struct with one public field per bit field, and private `pack`
/// and `unpack` plus a public `reserved_mask`, all driven by the same `[low bit, width] if
/// generations` of each field (a field whose place differs by generation lists each place).
macro_rules! bit_fields {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $( [$lo:literal, $width:literal] if $has:ident )|+, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl $name {
            /// Packs the fields `gen` has; values wider than their field are truncated.
            fn pack(&self, gen: Generation) -> u32 {
                let mut word = 0u32;
                $($( if $has(gen) { word |= (self.$field.to_bits() & field_mask($width)) << $lo; } )+)*
                word
            }

            /// Unpacks the fields `gen` has; the others stay at their default.
            fn unpack(word: u32, gen: Generation) -> Self {
                let mut value = Self::default();
                $($( if $has(gen) {
                    value.$field = <$ty as FieldValue>::from_bits((word >> $lo) & field_mask($width));
                } )+)*
                value
            }

            /// The bits that no field of `gen` covers: they must be 0.
            pub fn reserved_mask(gen: Generation) -> u32 {
                let mut used = 0u32;
                $($( if $has(gen) { used |= field_mask($width) << $lo; } )+)*
                !used
            }
        }
    };
}

bit_fields! {
    /// COMPUTE_PGM_RSRC1 (NEW:4250), at descriptor byte 48.
    pub struct Rsrc1 {
        /// 5:0 GRANULATED_WORKITEM_VGPR_COUNT: VGPR blocks minus one (see [`set_register_counts`]).
        granulated_workitem_vgpr_count: u8 = [0, 6] if all,
        /// 9:6 GRANULATED_WAVEFRONT_SGPR_COUNT: SGPR blocks minus one on GFX9. Reserved on GFX10+,
        /// where [`Rsrc1::encode`] writes 0; [`Rsrc1::decode`] still reads it, because clang-19
        /// writes a non-zero value there (anchors.md, "Known traps").
        granulated_wavefront_sgpr_count: u8 = [6, 4] if all,
        /// 11:10 PRIORITY, must be 0.
        priority: u8 = [10, 2] if all,
        /// 13:12 FLOAT_ROUND_MODE_32.
        float_round_mode_32: FloatRoundMode = [12, 2] if all,
        /// 15:14 FLOAT_ROUND_MODE_16_64.
        float_round_mode_16_64: FloatRoundMode = [14, 2] if all,
        /// 17:16 FLOAT_DENORM_MODE_32.
        float_denorm_mode_32: FloatDenormMode = [16, 2] if all,
        /// 19:18 FLOAT_DENORM_MODE_16_64.
        float_denorm_mode_16_64: FloatDenormMode = [18, 2] if all,
        /// 20 PRIV, must be 0.
        privileged: bool = [20, 1] if all,
        /// 21 ENABLE_DX10_CLAMP (GFX9-GFX11).
        dx10_clamp: bool = [21, 1] if gfx9_to_11,
        /// 21 WG_RR_EN (GFX12): round-robin wave scheduling in the work-group.
        wg_rr_en: bool = [21, 1] if gfx12,
        /// 22 DEBUG_MODE, must be 0.
        debug_mode: bool = [22, 1] if all,
        /// 23 ENABLE_IEEE_MODE (GFX9-GFX11).
        ieee_mode: bool = [23, 1] if gfx9_to_11,
        /// 23 DISABLE_PERF (GFX12), must be 0.
        disable_perf: bool = [23, 1] if gfx12,
        /// 24 BULKY, must be 0.
        bulky: bool = [24, 1] if all,
        /// 25 CDBG_USER, must be 0.
        cdbg_user: bool = [25, 1] if all,
        /// 26 FP16_OVFL: clamp fp16 overflow to the largest finite value (GFX9+).
        fp16_overflow: bool = [26, 1] if all,
        /// 29 WGP_MODE (GFX10+): 1 = work-group processor mode, 0 = CU mode.
        wgp_mode: bool = [29, 1] if gfx10_plus,
        /// 30 MEM_ORDERED (GFX10+): memory operations complete in issue order per type.
        mem_ordered: bool = [30, 1] if gfx10_plus,
        /// 31 FWD_PROGRESS (GFX10+).
        fwd_progress: bool = [31, 1] if gfx10_plus,
    }
}

bit_fields! {
    /// COMPUTE_PGM_RSRC2 (NEW:4527), at descriptor byte 52.
    pub struct Rsrc2 {
        /// 0 ENABLE_PRIVATE_SEGMENT: scratch. Without architected flat scratch it also
        /// enables the private-segment wave-offset system SGPR.
        enable_private_segment: bool = [0, 1] if all,
        /// 5:1 USER_SGPR_COUNT: where the system SGPRs start (at least the enabled user SGPRs).
        user_sgpr_count: u8 = [1, 5] if all,
        /// 6 ENABLE_TRAP_HANDLER (GFX9-GFX11), must be 0: CP sets it.
        enable_trap_handler: bool = [6, 1] if gfx9_to_11,
        /// 6 ENABLE_DYNAMIC_VGPR (GFX12).
        enable_dynamic_vgpr: bool = [6, 1] if gfx12,
        /// 7 ENABLE_SGPR_WORKGROUP_ID_X.
        enable_sgpr_workgroup_id_x: bool = [7, 1] if all,
        /// 8 ENABLE_SGPR_WORKGROUP_ID_Y.
        enable_sgpr_workgroup_id_y: bool = [8, 1] if all,
        /// 9 ENABLE_SGPR_WORKGROUP_ID_Z.
        enable_sgpr_workgroup_id_z: bool = [9, 1] if all,
        /// 10 ENABLE_SGPR_WORKGROUP_INFO.
        enable_sgpr_workgroup_info: bool = [10, 1] if all,
        /// 12:11 ENABLE_VGPR_WORKITEM_ID: 0 = X, 1 = X and Y, 2 = X, Y and Z (3 is undefined).
        enable_vgpr_workitem_id: u8 = [11, 2] if all,
        /// 13 ENABLE_EXCEPTION_ADDRESS_WATCH, must be 0.
        enable_exception_address_watch: bool = [13, 1] if all,
        /// 14 ENABLE_EXCEPTION_MEMORY, must be 0.
        enable_exception_memory: bool = [14, 1] if all,
        /// 23:15 GRANULATED_LDS_SIZE, must be 0 (CP uses the dispatch packet).
        granulated_lds_size: u16 = [15, 9] if all,
        /// 24 ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION.
        exception_fp_ieee_invalid_op: bool = [24, 1] if all,
        /// 25 ENABLE_EXCEPTION_FP_DENORMAL_SOURCE.
        exception_fp_denorm_src: bool = [25, 1] if all,
        /// 26 ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO.
        exception_fp_ieee_div_zero: bool = [26, 1] if all,
        /// 27 ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW.
        exception_fp_ieee_overflow: bool = [27, 1] if all,
        /// 28 ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW.
        exception_fp_ieee_underflow: bool = [28, 1] if all,
        /// 29 ENABLE_EXCEPTION_IEEE_754_FP_INEXACT.
        exception_fp_ieee_inexact: bool = [29, 1] if all,
        /// 30 ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO.
        exception_int_div_zero: bool = [30, 1] if all,
    }
}

bit_fields! {
    /// COMPUTE_PGM_RSRC3 (NEW:4700-4800), at descriptor byte 44: 0 on GFX9 before gfx90a,
    /// ACCUM_OFFSET/TG_SPLIT on gfx90a/gfx942, and different fields on GFX10-11 and GFX12.
    pub struct Rsrc3 {
        /// 5:0 ACCUM_OFFSET (gfx90a, gfx942): first AGPR of the unified file, as
        /// `offset / 4 - 1` (see [`Rsrc3::accum_offset_vgprs`]).
        accum_offset: u8 = [0, 6] if gfx9,
        /// 16 TG_SPLIT (gfx90a, gfx942): waves may go to different CUs (no LDS, no barrier).
        tg_split: bool = [16, 1] if gfx9,
        /// 3:0 SHARED_VGPR_COUNT (GFX10-GFX11, wave64 only, granule 8).
        shared_vgpr_count: u8 = [0, 4] if gfx10_11,
        /// INST_PREF_SIZE, instruction bytes to prefetch in 128-byte units: 9:4 on GFX11,
        /// 11:4 on GFX12.
        inst_pref_size: u8 = [4, 6] if gfx11 | [4, 8] if gfx12,
        /// 10 TRAP_ON_START (GFX11), must be 0: CP fills it.
        trap_on_start: bool = [10, 1] if gfx11,
        /// 11 TRAP_ON_END (GFX11), must be 0: CP fills it.
        trap_on_end: bool = [11, 1] if gfx11,
        /// 13 GLG_EN (GFX12): group launch guarantee.
        glg_en: bool = [13, 1] if gfx12,
        /// 31 IMAGE_OP (GFX11+): the kernel executes image instructions.
        image_op: bool = [31, 1] if gfx11_plus,
    }
}

bit_fields! {
    /// kernel_code_properties (descriptor bits 463:448, NEW:4140-4240): which user SGPRs
    /// the command processor initialises, the wave size and the dynamic-stack flag.
    pub struct KernelCodeProperties {
        /// 0 ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 SGPRs; 0 with architected flat scratch).
        enable_sgpr_private_segment_buffer: bool = [0, 1] if all,
        /// 1 ENABLE_SGPR_DISPATCH_PTR (2 SGPRs).
        enable_sgpr_dispatch_ptr: bool = [1, 1] if all,
        /// 2 ENABLE_SGPR_QUEUE_PTR (2 SGPRs).
        enable_sgpr_queue_ptr: bool = [2, 1] if all,
        /// 3 ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 SGPRs).
        enable_sgpr_kernarg_segment_ptr: bool = [3, 1] if all,
        /// 4 ENABLE_SGPR_DISPATCH_ID (2 SGPRs).
        enable_sgpr_dispatch_id: bool = [4, 1] if all,
        /// 5 ENABLE_SGPR_FLAT_SCRATCH_INIT (2 SGPRs; 0 with architected flat scratch).
        enable_sgpr_flat_scratch_init: bool = [5, 1] if all,
        /// 6 ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 SGPR).
        enable_sgpr_private_segment_size: bool = [6, 1] if all,
        /// 10 ENABLE_WAVEFRONT_SIZE32 (GFX10+).
        enable_wavefront_size32: bool = [10, 1] if gfx10_plus,
        /// 11 USES_DYNAMIC_STACK (code object V5+).
        uses_dynamic_stack: bool = [11, 1] if all,
    }
}

impl Rsrc1 {
    /// The word for `gen`. On GFX10+ GRANULATED_WAVEFRONT_SGPR_COUNT is reserved and written
    /// as 0 whatever the field holds. Here we follow the seed (NEW:4250, "Reserved, must be
    /// 0") and llvm-objdump-19, not clang-19, which writes its SGPR block count there.
    pub fn encode(&self, gen: Generation) -> u32 {
        let word = self.pack(gen);
        if gen >= Generation::Gfx10 {
            word & !(field_mask(4) << 6)
        } else {
            word
        }
    }

    /// The fields of `word` for `gen` (reserved bits are ignored; see
    /// [`Rsrc1::reserved_mask`]).
    pub fn decode(word: u32, gen: Generation) -> Rsrc1 {
        Rsrc1::unpack(word, gen)
    }
}

impl Rsrc2 {
    /// The word for `gen`.
    pub fn encode(&self, gen: Generation) -> u32 {
        self.pack(gen)
    }

    /// The fields of `word` for `gen` (reserved bits are ignored).
    pub fn decode(word: u32, gen: Generation) -> Rsrc2 {
        Rsrc2::unpack(word, gen)
    }
}

impl Rsrc3 {
    /// The word for `gen`. On GFX9 processors other than gfx90a/gfx942 both fields must be 0.
    pub fn encode(&self, gen: Generation) -> u32 {
        self.pack(gen)
    }

    /// The fields of `word` for `gen` (reserved bits are ignored).
    pub fn decode(word: u32, gen: Generation) -> Rsrc3 {
        Rsrc3::unpack(word, gen)
    }

    /// The first AGPR's index in the unified register file (`.amdhsa_accum_offset`).
    pub fn accum_offset_vgprs(&self) -> u16 {
        (u16::from(self.accum_offset) + 1) * 4
    }
}

impl KernelCodeProperties {
    /// The 16-bit field at descriptor byte 56.
    pub fn encode(&self, gen: Generation) -> u16 {
        self.pack(gen) as u16
    }

    /// The fields of `bits` for `gen` (reserved bits are ignored).
    pub fn decode(bits: u16, gen: Generation) -> KernelCodeProperties {
        KernelCodeProperties::unpack(bits.into(), gen)
    }
}

/// A kernel descriptor (NEW:4083), 64 bytes, 64-byte aligned, at symbol `NAME.kd`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelDescriptor {
    /// Byte 0: static LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// Byte 4: scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Byte 8: the kernarg segment size (0 = unspecified).
    pub kernarg_size: u32,
    /// Byte 16: the code entry's address minus the descriptor's. 0 in a relocatable object,
    /// where an `R_AMDGPU_REL64` relocation supplies it.
    pub kernel_code_entry_byte_offset: i64,
    /// Byte 48.
    pub rsrc1: Rsrc1,
    /// Byte 52.
    pub rsrc2: Rsrc2,
    /// Byte 44.
    pub rsrc3: Rsrc3,
    /// Byte 56.
    pub props: KernelCodeProperties,
    /// Byte 58 (gfx90a/gfx942): KERNARG_PRELOAD_SPEC_LENGTH in bits 6:0 (dwords preloaded
    /// into user SGPRs) and KERNARG_PRELOAD_SPEC_OFFSET in bits 15:7 (first dword).
    pub kernarg_preload: u16,
}

/// Byte ranges of the descriptor that are reserved and must be 0.
const RESERVED_BYTES: [(usize, usize); 3] = [(12, 16), (24, 44), (60, 64)];

impl KernelDescriptor {
    /// A descriptor with clang-19's defaults for an OpenCL C kernel on `proc`: IEEE denormals
    /// (FLUSH_NONE for 32 and 16/64 bit), DX10 clamp and IEEE mode on (GFX9-GFX11), and on
    /// GFX10+ WGP mode and MEM_ORDERED. Everything else is 0: call
    /// [`enable_inputs`](crate::initial_state::enable_inputs) and [`set_register_counts`] next.
    pub fn new(proc: &Processor) -> KernelDescriptor {
        let gen = proc.generation;
        let mut desc = KernelDescriptor::default();
        desc.rsrc1.float_denorm_mode_32 = FloatDenormMode::FlushNone;
        desc.rsrc1.float_denorm_mode_16_64 = FloatDenormMode::FlushNone;
        desc.rsrc1.dx10_clamp = gfx9_to_11(gen);
        desc.rsrc1.ieee_mode = gfx9_to_11(gen);
        desc.rsrc1.wgp_mode = gfx10_plus(gen);
        desc.rsrc1.mem_ordered = gfx10_plus(gen);
        desc
    }

    /// [`KernelDescriptor::new`] for `target`'s processor, with the execution modes the
    /// target asks for:
    /// - WGP_MODE (GFX10+, AMDGPUUsage-new.txt:4482-4491): "If 0 execute work-groups in CU
    ///   wavefront execution mode", so 0 with `-mcumode`.
    /// - TG_SPLIT (gfx90a/gfx942, AMDGPUUsage-new.txt:4709-4713): "If 1 the waves of a
    ///   work-group can be launched in different CUs", so 1 with `-mtgsplit` (the code then
    ///   uses no LDS and no `s_barrier`, as that line requires and isel enforces).
    pub fn for_target(target: &Target) -> KernelDescriptor {
        let proc = target.processor();
        let mut desc = KernelDescriptor::new(proc);
        desc.rsrc1.wgp_mode &= !(proc.cumode && target.cumode);
        desc.rsrc3.tg_split = proc.tgsplit && target.tgsplit;
        desc
    }

    /// KERNARG_PRELOAD_SPEC_LENGTH: dwords of kernarg preloaded into user SGPRs.
    pub fn kernarg_preload_length(&self) -> u16 {
        self.kernarg_preload & 0x7f
    }

    /// KERNARG_PRELOAD_SPEC_OFFSET: the first preloaded kernarg dword.
    pub fn kernarg_preload_offset(&self) -> u16 {
        self.kernarg_preload >> 7
    }

    /// The 64 bytes for `proc`.
    pub fn encode(&self, proc: &Processor) -> [u8; 64] {
        let gen = proc.generation;
        let mut bytes = [0u8; 64];
        bytes[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        bytes[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        bytes[44..48].copy_from_slice(&self.rsrc3.encode(gen).to_le_bytes());
        bytes[48..52].copy_from_slice(&self.rsrc1.encode(gen).to_le_bytes());
        bytes[52..56].copy_from_slice(&self.rsrc2.encode(gen).to_le_bytes());
        bytes[56..58].copy_from_slice(&self.props.encode(gen).to_le_bytes());
        bytes[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        bytes
    }

    /// Decodes 64 bytes for `proc`. Fails if a reserved byte or a bit that `proc`'s layout
    /// reserves is set; GRANULATED_WAVEFRONT_SGPR_COUNT on GFX10+ is accepted (clang-19 sets it).
    pub fn decode(bytes: &[u8; 64], proc: &Processor) -> Result<KernelDescriptor, AbiError> {
        let gen = proc.generation;
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().expect("2 bytes"));
        let reserved = |field: &'static str, byte: usize, bits: u64| AbiError::ReservedDescriptorBits {
            field,
            byte,
            bits,
            processor: proc.name,
        };
        for (start, end) in RESERVED_BYTES {
            if let Some(at) = (start..end).find(|&at| bytes[at] != 0) {
                return Err(reserved("reserved", at, bytes[at].into()));
            }
        }
        let words: [(&'static str, usize, u32); 4] = [
            ("COMPUTE_PGM_RSRC3", 44, Rsrc3::reserved_mask(gen)),
            ("COMPUTE_PGM_RSRC1", 48, Rsrc1::reserved_mask(gen)),
            ("COMPUTE_PGM_RSRC2", 52, Rsrc2::reserved_mask(gen)),
            ("kernel_code_properties", 56, KernelCodeProperties::reserved_mask(gen) & 0xffff),
        ];
        for (field, at, mask) in words {
            let word = if at == 56 { u32::from(u16_at(at)) } else { u32_at(at) };
            if word & mask != 0 {
                return Err(reserved(field, at, (word & mask).into()));
            }
        }
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")),
            rsrc1: Rsrc1::decode(u32_at(48), gen),
            rsrc2: Rsrc2::decode(u32_at(52), gen),
            rsrc3: Rsrc3::decode(u32_at(44), gen),
            props: KernelCodeProperties::decode(u16_at(56), gen),
            kernarg_preload: u16_at(58),
        })
    }
}

/// The block of GRANULATED_WAVEFRONT_SGPR_COUNT (GFX9), in SGPRs: what a wave is given.
pub const SGPR_GRANULE: u16 = 8;

/// The registers a kernel uses, as register allocation reports them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegisterUse {
    /// The next free VGPR: the highest ArchVGPR used plus one (`.amdhsa_next_free_vgpr` on
    /// processors without a unified file).
    pub vgprs: u16,
    /// The highest AGPR used plus one (0 without AGPRs).
    pub agprs: u16,
    /// The next free SGPR: the highest SGPR used plus one, without VCC, FLAT_SCRATCH and
    /// XNACK_MASK (`.amdhsa_next_free_sgpr`).
    pub sgprs: u16,
    /// Whether VCC is used (`.amdhsa_reserve_vcc`).
    pub uses_vcc: bool,
    /// Whether XNACK_MASK is reserved where the processor has it (`.amdhsa_reserve_xnack_mask`):
    /// unless the target ID says `xnack-` ([`reserves_xnack_mask`]); true is the conservative
    /// choice when the target is not known.
    pub xnack_mask: bool,
    /// Whether the kernel sets FLAT_SCRATCH up (a private segment without architected flat
    /// scratch: FLAT_SCRATCH_INIT enabled), so that it counts among the extra SGPRs.
    pub flat_scratch: bool,
    /// Lanes per wave, 32 or 64.
    pub wave_size: u32,
}

/// Whether code for `target` reserves XNACK_MASK: on a processor with xnack, unless the target
/// ID says `xnack-` (as clang-19 does: gfx90a's vadd counts 12 SGPRs, 9 with `xnack-`).
pub fn reserves_xnack_mask(target: &TargetId) -> bool {
    target.processor.supports(Feature::Xnack) && target.xnack != FeatureSetting::Off
}

fn align_up(value: u32, align: u32) -> u32 {
    value.div_ceil(align) * align
}

/// `max(0, ceil(count / granule) - 1)`, clamped to the field's width.
fn granulated(count: u32, granule: u32, width: u32) -> u8 {
    (count.max(1).div_ceil(granule) - 1).min(field_mask(width)) as u8
}

/// The extra SGPRs the hardware allocates after the kernel's own (LLVM's `getNumExtraSGPRs`,
/// not in the seeds beyond "VCC, FLAT_SCRATCH (GFX7+) and XNACK_MASK (GFX8+)"): VCC takes 2
/// everywhere; on GFX9 XNACK_MASK raises that to 4 and FLAT_SCRATCH (or architected flat
/// scratch) to 6. GFX10+ adds nothing but VCC.
pub fn extra_sgprs(proc: &Processor, uses_vcc: bool, uses_flat_scratch: bool, uses_xnack_mask: bool) -> u16 {
    let vcc = if uses_vcc { 2 } else { 0 };
    if proc.generation >= Generation::Gfx10 {
        vcc
    } else if uses_flat_scratch || proc.flat_scratch == FlatScratch::Architected {
        6
    } else if uses_xnack_mask {
        4
    } else {
        vcc
    }
}

/// The SGPR count of the metadata's `.sgpr_count` and of the GFX9 granule: the kernel's SGPRs
/// plus [`extra_sgprs`], conservatively: FLAT_SCRATCH counts whenever the descriptor enables
/// FLAT_SCRATCH_INIT (the code might address scratch through it; see
/// [`set_register_counts_with_extra`] when it is known not to).
/// XNACK_MASK counts where the processor supports xnack and [`RegisterUse::xnack_mask`] says
/// it is reserved (not with `xnack-`, as clang-19).
pub fn total_sgprs(desc: &KernelDescriptor, proc: &Processor, regs: &RegisterUse) -> u16 {
    let flat_scratch = desc.props.enable_sgpr_flat_scratch_init;
    regs.sgprs + extra_sgprs(proc, regs.uses_vcc, flat_scratch, regs.xnack_mask && proc.supports(Feature::Xnack))
}

/// The VGPR count of the metadata's `.vgpr_count` (LLVM's `getTotalNumVGPRs`): on
/// gfx90a/gfx942 with AGPRs, the ArchVGPRs rounded up to 4 plus the AGPRs; otherwise the
/// larger of the two files.
pub fn total_vgprs(proc: &Processor, regs: &RegisterUse) -> u16 {
    if proc.unified_vgpr_file && regs.agprs > 0 {
        regs.vgprs.div_ceil(4) * 4 + regs.agprs
    } else {
        regs.vgprs.max(regs.agprs)
    }
}

/// Fills GRANULATED_WORKITEM_VGPR_COUNT, GRANULATED_WAVEFRONT_SGPR_COUNT (0 on GFX10+) and,
/// on gfx90a/gfx942, ACCUM_OFFSET, by each generation's granule rule:
///
/// - VGPRs (NEW:4250): granule 4 on GFX9 and GFX10+ wave64, 8 on GFX10+ wave32 and on
///   gfx90a/gfx942, where the count is [`total_vgprs`] and ACCUM_OFFSET is the ArchVGPR count
///   rounded up to 4 (at least 4), encoded `/4 - 1`.
/// - SGPRs on GFX9: [`total_sgprs`] in blocks of 8, `ceil(n / 8) - 1`. The seed (NEW:4305)
///   says `2 * (ceil(n / 16) - 1)`; clang-19 writes `ceil(n / 8) - 1` (gfx942 vadd: 14 SGPRs,
///   field 1 where the seed gives 0), and clang wins for what the hardware is given.
pub fn set_register_counts(desc: &mut KernelDescriptor, proc: &Processor, regs: &RegisterUse) {
    let extra = total_sgprs(desc, proc, regs) - regs.sgprs;
    set_register_counts_with_extra(desc, proc, regs, extra);
}

/// [`set_register_counts`] with the extra SGPRs after the kernel's own given, rather than
/// [`total_sgprs`]'s conservative count: [`extra_sgprs`] of what the code really uses (what
/// clang-19's `.amdhsa_reserve_vcc/flat_scratch/xnack_mask` say; clang reserves no
/// FLAT_SCRATCH for a kernel that reaches scratch through buffer instructions only, although
/// FLAT_SCRATCH_INIT is enabled).
pub fn set_register_counts_with_extra(desc: &mut KernelDescriptor, proc: &Processor, regs: &RegisterUse, extra: u16) {
    let gen = proc.generation;
    let vgpr_granule = u32::from(proc.vgpr_encoding_granule(regs.wave_size));
    desc.rsrc1.granulated_workitem_vgpr_count = granulated(total_vgprs(proc, regs).into(), vgpr_granule, 6);
    desc.rsrc1.granulated_wavefront_sgpr_count =
        if gen >= Generation::Gfx10 { 0 } else { granulated((regs.sgprs + extra).into(), SGPR_GRANULE.into(), 4) };
    if proc.unified_vgpr_file {
        desc.rsrc3.accum_offset = granulated(align_up(u32::from(regs.vgprs).max(1), 4), 4, 6);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(name: &str) -> &'static Processor {
        Processor::find(name).unwrap()
    }

    #[test]
    fn rsrc_words_round_trip_per_generation() {
        for p in isa::processor::PROCESSORS {
            let gen = p.generation;
            for word in [0u32, 0x60af_0080, 0x00af_0000, 0xffff_ffff, 0x1234_5678] {
                let r1 = Rsrc1::decode(word, gen);
                let expect1 = word & !Rsrc1::reserved_mask(gen);
                let expect1 = if gen >= Generation::Gfx10 { expect1 & !0x3c0 } else { expect1 };
                assert_eq!(r1.encode(gen), expect1, "{} rsrc1 {word:#x}", p.name);
                let r2 = Rsrc2::decode(word, gen);
                assert_eq!(r2.encode(gen), word & !Rsrc2::reserved_mask(gen));
                let r3 = Rsrc3::decode(word, gen);
                assert_eq!(r3.encode(gen), word & !Rsrc3::reserved_mask(gen));
            }
        }
    }

    #[test]
    fn gfx1100_vadd_descriptor_from_lld() {
        // The .rodata of ld.lld-19's vadd.hsaco for gfx1100 wave32 (code object V5).
        let mut bytes = [0u8; 64];
        bytes[8..12].copy_from_slice(&288u32.to_le_bytes());
        bytes[16..24].copy_from_slice(&0x10c0i64.to_le_bytes());
        bytes[48..52].copy_from_slice(&0x60af_0080u32.to_le_bytes());
        bytes[52..56].copy_from_slice(&0x9eu32.to_le_bytes());
        bytes[56..58].copy_from_slice(&0x0408u16.to_le_bytes());
        let desc = KernelDescriptor::decode(&bytes, proc("gfx1100")).unwrap();
        assert_eq!(desc.rsrc2.user_sgpr_count, 15);
        assert!(desc.rsrc2.enable_sgpr_workgroup_id_x && desc.props.enable_wavefront_size32);
        assert!(desc.props.enable_sgpr_kernarg_segment_ptr && desc.rsrc1.wgp_mode && desc.rsrc1.mem_ordered);
        assert_eq!(desc.rsrc1.granulated_wavefront_sgpr_count, 2, "clang's value in the reserved field");
        let again = desc.encode(proc("gfx1100"));
        assert_eq!(again[48..52], 0x60af_0000u32.to_le_bytes(), "we write the reserved field as 0");
        let mut expected = bytes;
        expected[48..52].copy_from_slice(&0x60af_0000u32.to_le_bytes());
        assert_eq!(again, expected);
    }

    #[test]
    fn reserved_bytes_and_bits_are_rejected() {
        let mut bytes = KernelDescriptor::new(proc("gfx942")).encode(proc("gfx942"));
        bytes[30] = 1;
        assert!(matches!(
            KernelDescriptor::decode(&bytes, proc("gfx942")),
            Err(AbiError::ReservedDescriptorBits { byte: 30, .. })
        ));
        let mut bytes = KernelDescriptor::new(proc("gfx942")).encode(proc("gfx942"));
        bytes[51] |= 0x20; // RSRC1 bit 29: WGP_MODE, reserved on GFX9
        assert!(matches!(
            KernelDescriptor::decode(&bytes, proc("gfx942")),
            Err(AbiError::ReservedDescriptorBits { field: "COMPUTE_PGM_RSRC1", byte: 48, bits: 0x2000_0000, .. })
        ));
    }

    #[test]
    fn register_granules_match_clang() {
        // (processor, wave, next_free_vgpr, next_free_sgpr, vcc) -> (vgpr field, sgpr field,
        // accum_offset field), read from clang-19's descriptors of tests/cl kernels.
        let cases = [
            ("gfx1100", 32, 6, 16, true, 0, 0, 0),
            ("gfx1100", 32, 36, 8, false, 4, 0, 0),
            ("gfx1100", 64, 36, 8, false, 8, 0, 0),
            ("gfx942", 64, 8, 8, true, 0, 1, 1),
            ("gfx942", 64, 38, 8, false, 4, 1, 9),
        ];
        for (name, wave, vgprs, sgprs, uses_vcc, vf, sf, acc) in cases {
            let p = proc(name);
            let mut desc = KernelDescriptor::new(p);
            let regs = RegisterUse {
                vgprs,
                agprs: 0,
                sgprs,
                uses_vcc,
                xnack_mask: true,
                flat_scratch: false,
                wave_size: wave,
            };
            set_register_counts(&mut desc, p, &regs);
            assert_eq!(desc.rsrc1.granulated_workitem_vgpr_count, vf, "{name} w{wave} v{vgprs}");
            assert_eq!(desc.rsrc1.granulated_wavefront_sgpr_count, sf, "{name} s{sgprs}");
            assert_eq!(desc.rsrc3.accum_offset, acc, "{name} accum");
        }
        let gfx942 = proc("gfx942");
        let regs = RegisterUse {
            vgprs: 8,
            agprs: 0,
            sgprs: 8,
            uses_vcc: true,
            xnack_mask: true,
            flat_scratch: false,
            wave_size: 64,
        };
        assert_eq!(total_sgprs(&KernelDescriptor::new(gfx942), gfx942, &regs), 14);
        let regs = RegisterUse {
            vgprs: 5,
            agprs: 3,
            sgprs: 8,
            uses_vcc: true,
            xnack_mask: true,
            flat_scratch: false,
            wave_size: 64,
        };
        assert_eq!(total_vgprs(gfx942, &regs), 11);
    }

    /// XNACK_MASK is reserved on gfx90a unless the target says `xnack-`, as clang-19 counts
    /// the SGPRs of the corpus's vadd: 8 plus VCC and XNACK_MASK is 12 for `gfx90a` and
    /// `gfx90a:xnack+`, 7 plus VCC is 9 for `gfx90a:xnack-`; gfx942's architected flat scratch
    /// reserves 6 whatever xnack says.
    #[test]
    fn xnack_mask_is_reserved_unless_xnack_is_off() {
        let id = |s: &str| TargetId::parse(s).unwrap();
        assert!(reserves_xnack_mask(&id("gfx90a")) && reserves_xnack_mask(&id("gfx90a:xnack+")));
        assert!(!reserves_xnack_mask(&id("gfx90a:xnack-")) && !reserves_xnack_mask(&id("gfx1100")));
        let gfx90a = proc("gfx90a");
        let desc = KernelDescriptor::new(gfx90a);
        let uses = |sgprs: u16, target: &str| RegisterUse {
            vgprs: 4,
            agprs: 0,
            sgprs,
            uses_vcc: true,
            xnack_mask: reserves_xnack_mask(&id(target)),
            flat_scratch: false,
            wave_size: 64,
        };
        assert_eq!(total_sgprs(&desc, gfx90a, &uses(8, "gfx90a")), 12);
        assert_eq!(total_sgprs(&desc, gfx90a, &uses(8, "gfx90a:xnack+")), 12);
        assert_eq!(total_sgprs(&desc, gfx90a, &uses(7, "gfx90a:xnack-")), 9);
        let gfx942 = proc("gfx942");
        let regs = RegisterUse { xnack_mask: false, ..uses(8, "gfx942:xnack-") };
        assert_eq!(total_sgprs(&KernelDescriptor::new(gfx942), gfx942, &regs), 14);
    }
}
