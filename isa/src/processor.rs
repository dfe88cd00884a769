//! The processor table: the one home of every per-processor fact (generation, ELF machine
//! value, target features, wave sizes, register files, flat-scratch kind, work-item ID packing,
//! kernarg preload, instruction cache, what makes a generic processor), specific and generic
//! processors alike, and target IDs (`gfx942:sramecc+:xnack-`, `gfx9-4-generic:xnack-`) parsed
//! and printed as AMDGPUUsage defines them.
//!
//! Facts come from AMDGPUUsage (shared/seeds/AMDGPUUsage-new.txt: processor table at line 94,
//! generic processors at 488, EF_AMDGPU_MACH values at 1826, target features at 614, target ID
//! syntax at 666); the few it lacks from LLVM 19, checked against clang-19, as each column says.

use core::fmt;
use thiserror::Error;

/// An instruction-set generation: what decides encodings and most per-generation rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// GFX9: Vega (gfx900, gfx906, gfx9-generic) and CDNA (gfx908, gfx90a, gfx942,
    /// gfx9-4-generic).
    Gfx9,
    /// GFX10: RDNA1 (gfx10-1-generic) and RDNA2 (gfx1030, gfx10-3-generic).
    Gfx10,
    /// GFX11: RDNA3 (gfx1100, gfx11-generic).
    Gfx11,
    /// GFX12: RDNA4 (gfx1200, gfx12-generic).
    Gfx12,
}

/// How a kernel reaches its scratch (private) memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlatScratch {
    /// The kernel prolog sets FLAT_SCRATCH from an SGPR pair (NEW:5097-5166).
    Absolute,
    /// The hardware sets FLAT_SCRATCH itself when the private segment is enabled.
    Architected,
}

/// A target feature that may appear in a target ID.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// SRAM ECC.
    Sramecc,
    /// XNACK replay (demand paging).
    Xnack,
}

impl Feature {
    /// The name in a target ID.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Sramecc => "sramecc",
            Feature::Xnack => "xnack",
        }
    }
}

/// One processor's facts.
#[derive(Debug, PartialEq, Eq)]
pub struct Processor {
    /// The canonical name, e.g. `gfx1100` or `gfx11-generic`.
    pub name: &'static str,
    /// The generation.
    pub generation: Generation,
    /// `EF_AMDGPU_MACH` in the ELF header.
    pub mach: u32,
    /// The target-ID features the processor supports.
    pub features: &'static [Feature],
    /// Whether wave32 is supported (GFX10+); wave64 always is.
    pub wave32: bool,
    /// Whether `-mcumode` means anything (GFX10+ WGP processors).
    pub cumode: bool,
    /// Whether `-mtgsplit` means anything (gfx90a, gfx942, gfx9-4-generic).
    pub tgsplit: bool,
    /// Addressable SGPRs per wave, VCC excluded.
    pub sgprs: u16,
    /// Addressable VGPRs per wave (ArchVGPRs).
    pub vgprs: u16,
    /// Accumulation VGPRs per wave (0 when the processor has none).
    pub agprs: u16,
    /// Whether ArchVGPRs and AGPRs share one file split by ACCUM_OFFSET (gfx90a, gfx942,
    /// gfx9-4-generic).
    pub unified_vgpr_file: bool,
    /// How scratch is reached.
    pub flat_scratch: FlatScratch,
    /// Whether the work-item IDs arrive packed in v0 (X 9:0, Y 19:10, Z 29:20).
    pub packed_workitem_ids: bool,
    /// Whether 64-bit VGPR tuples must start at an even register (gfx90a, gfx942,
    /// gfx9-4-generic).
    pub aligned_vgpr_tuples: bool,
    /// Waves a SIMD can hold at most (LLVM `AMDGPUBaseInfo`: 10 on GFX9, 8 on gfx90a/gfx942,
    /// 16 on GFX10+).
    pub max_waves_per_simd: u16,
    /// VGPRs per lane in a SIMD's file for wave64, shared by its waves (ArchVGPRs and AGPRs
    /// together on gfx90a/gfx942); wave32 has twice as many on GFX10+.
    pub simd_vgprs_wave64: u16,
    /// VGPRs are given to a wave64 in blocks of this many; wave32 blocks are twice as large.
    pub vgpr_alloc_granule_wave64: u16,
    /// Whether kernel arguments can be preloaded into user SGPRs (the "kernarg preload"
    /// feature of NEW:94 and NEW:488: gfx90a, gfx942, gfx9-4-generic; LLVM's
    /// `FeatureKernargPreload`, whose `.amdhsa_user_sgpr_kernarg_preload_*` directives
    /// `clang -S` writes only there).
    pub kernarg_preload: bool,
    /// Whether the processor has the instructions gfx90a added to GFX9 (LLVM's
    /// `FeatureGFX90AInsts`, not in the seeds: gfx90a, gfx942, gfx9-4-generic). LLVM pads the
    /// end of the code for instruction prefetch on these and on GFX10+.
    pub gfx90a_insts: bool,
    /// Whether the processor has the instructions and hazards gfx940 added (LLVM's
    /// `FeatureGFX940Insts`, not in the seeds: gfx942, gfx9-4-generic), which change some
    /// hazards' wait states (see [`crate::hazard`]).
    pub gfx940_insts: bool,
    /// The instruction cache line in bytes: 64 through GFX10, 128 from GFX11 (not in the
    /// seeds; LLVM's `EmitCodeEnd`, checked against the prefetch padding of clang-19's
    /// objects for every processor of the table).
    pub icache_line_bytes: u32,
    /// Whether the processor has the user-SGPR initialisation bug of gfx1100 and gfx1102
    /// (LLVM's `FeatureUserSGPRInit16Bug`; not in the seeds), and so gfx11-generic, whose code
    /// runs there: in wave32, a compute kernel must have at least 16 user plus system SGPRs
    /// enabled, so clang-19 pads USER_SGPR_COUNT with unused user SGPRs (15 with only the
    /// kernarg pointer and workgroup ID X). Wave64 is not affected, nor are gfx1101, gfx1103,
    /// gfx115x and GFX12.
    pub user_sgpr_init16_bug: bool,
    /// Whether gcnc's code for the processor is verified end to end: its encodings checked
    /// against llvm-mc-19 for that `-mcpu`, its code run by the emulator and fuzzed. Only these
    /// processors compile (isel refuses the others) and run on the emulator; the rest of the
    /// table serves reading, writing and describing code objects.
    pub verified: bool,
    /// For a generic processor (NEW:488, V6 code objects only), the processors its code runs
    /// on and the version its code objects carry; None for a specific processor.
    pub generic: Option<GenericInfo>,
}

/// What makes a processor generic (NEW:488-580): one code object runs on every processor it
/// lists. Its other facts are those the generic processor table gives, and for the rest those
/// of the first processor it supports.
#[derive(Debug, PartialEq, Eq)]
pub struct GenericInfo {
    /// `EF_AMDGPU_GENERIC_VERSION` of the code gcnc writes for it (NEW:570, 1 to 255): what
    /// LLVM 19 writes, 1 for every generic processor it knows (checked against clang-19);
    /// gfx9-4-generic, newer than LLVM 19, starts at 1 like the others.
    pub version: u8,
    /// The processors the code runs on ("Supported Processors" of NEW:488), by name: most are
    /// not rows of [`PROCESSORS`].
    pub supported: &'static [&'static str],
}

const XNACK: &[Feature] = &[Feature::Xnack];
const SRAMECC_XNACK: &[Feature] = &[Feature::Sramecc, Feature::Xnack];

const GFX900: Processor = Processor {
    name: "gfx900",
    generation: Generation::Gfx9,
    mach: 0x02c,
    features: XNACK,
    wave32: false,
    cumode: false,
    tgsplit: false,
    sgprs: 102,
    vgprs: 256,
    agprs: 0,
    unified_vgpr_file: false,
    flat_scratch: FlatScratch::Absolute,
    packed_workitem_ids: false,
    aligned_vgpr_tuples: false,
    kernarg_preload: false,
    gfx90a_insts: false,
    gfx940_insts: false,
    icache_line_bytes: 64,
    user_sgpr_init16_bug: false,
    max_waves_per_simd: 10,
    simd_vgprs_wave64: 256,
    vgpr_alloc_granule_wave64: 4,
    verified: false,
    generic: None,
};

const GFX906: Processor = Processor { name: "gfx906", mach: 0x02f, features: SRAMECC_XNACK, ..GFX900 };

/// gfx908 adds the AGPR file (separate from the VGPRs, unlike gfx90a's).
const GFX908: Processor = Processor { name: "gfx908", mach: 0x030, agprs: 256, ..GFX906 };

const GFX90A: Processor = Processor {
    name: "gfx90a",
    generation: Generation::Gfx9,
    mach: 0x03f,
    features: SRAMECC_XNACK,
    wave32: false,
    cumode: false,
    tgsplit: true,
    sgprs: 102,
    vgprs: 256,
    agprs: 256,
    unified_vgpr_file: true,
    flat_scratch: FlatScratch::Absolute,
    packed_workitem_ids: true,
    aligned_vgpr_tuples: true,
    kernarg_preload: true,
    gfx90a_insts: true,
    gfx940_insts: false,
    icache_line_bytes: 64,
    user_sgpr_init16_bug: false,
    max_waves_per_simd: 8,
    simd_vgprs_wave64: 512,
    vgpr_alloc_granule_wave64: 8,
    verified: true,
    generic: None,
};

const GFX942: Processor = Processor {
    name: "gfx942",
    generation: Generation::Gfx9,
    mach: 0x04c,
    features: SRAMECC_XNACK,
    wave32: false,
    cumode: false,
    tgsplit: true,
    sgprs: 102,
    vgprs: 256,
    agprs: 256,
    unified_vgpr_file: true,
    flat_scratch: FlatScratch::Architected,
    packed_workitem_ids: true,
    aligned_vgpr_tuples: true,
    kernarg_preload: true,
    gfx90a_insts: true,
    gfx940_insts: true,
    icache_line_bytes: 64,
    user_sgpr_init16_bug: false,
    max_waves_per_simd: 8,
    simd_vgprs_wave64: 512,
    vgpr_alloc_granule_wave64: 8,
    verified: true,
    generic: None,
};

const GFX1030: Processor = Processor {
    name: "gfx1030",
    generation: Generation::Gfx10,
    mach: 0x036,
    features: &[],
    wave32: true,
    cumode: true,
    tgsplit: false,
    sgprs: 106,
    vgprs: 256,
    agprs: 0,
    unified_vgpr_file: false,
    flat_scratch: FlatScratch::Absolute,
    packed_workitem_ids: false,
    aligned_vgpr_tuples: false,
    kernarg_preload: false,
    gfx90a_insts: false,
    gfx940_insts: false,
    icache_line_bytes: 64,
    user_sgpr_init16_bug: false,
    max_waves_per_simd: 16,
    simd_vgprs_wave64: 512,
    vgpr_alloc_granule_wave64: 8,
    verified: false,
    generic: None,
};

const GFX1100: Processor = Processor {
    name: "gfx1100",
    generation: Generation::Gfx11,
    mach: 0x041,
    features: &[],
    wave32: true,
    cumode: true,
    tgsplit: false,
    sgprs: 106,
    vgprs: 256,
    agprs: 0,
    unified_vgpr_file: false,
    flat_scratch: FlatScratch::Architected,
    packed_workitem_ids: true,
    aligned_vgpr_tuples: false,
    kernarg_preload: false,
    gfx90a_insts: false,
    gfx940_insts: false,
    icache_line_bytes: 128,
    user_sgpr_init16_bug: true,
    max_waves_per_simd: 16,
    simd_vgprs_wave64: 768,
    vgpr_alloc_granule_wave64: 12,
    verified: true,
    generic: None,
};

/// gfx1200 has gfx1100's facts but its generation and without the user-SGPR bug.
const GFX1200: Processor = Processor {
    name: "gfx1200",
    generation: Generation::Gfx12,
    mach: 0x048,
    user_sgpr_init16_bug: false,
    verified: false,
    ..GFX1100
};

/// The row of a generic processor (NEW:488) called `name`, with its `EF_AMDGPU_MACH`
/// (NEW:1899-1908), target features and supported processors, and every other fact from
/// `like`, the first processor it supports (or a processor of the table with the same facts).
const fn generic(
    like: Processor,
    name: &'static str,
    mach: u32,
    features: &'static [Feature],
    supported: &'static [&'static str],
) -> Processor {
    Processor { name, mach, features, verified: false, generic: Some(GenericInfo { version: 1, supported }), ..like }
}

/// Every processor gcnc knows: the specific ones in the order of the AMDGPUUsage table
/// (NEW:94), then the generic ones in the order of NEW:488.
pub static PROCESSORS: &[Processor] = &[
    GFX900,
    GFX906,
    GFX908,
    GFX90A,
    GFX942,
    GFX1030,
    GFX1100,
    GFX1200,
    generic(GFX900, "gfx9-generic", 0x051, XNACK, &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"]),
    generic(GFX942, "gfx9-4-generic", 0x05f, SRAMECC_XNACK, &["gfx942", "gfx950"]),
    // gfx1010 is not in the table; gfx1030 has its facts but for xnack.
    generic(GFX1030, "gfx10-1-generic", 0x052, XNACK, &["gfx1010", "gfx1011", "gfx1012", "gfx1013"]),
    generic(
        GFX1030,
        "gfx10-3-generic",
        0x053,
        &[],
        &["gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"],
    ),
    generic(
        // gfx1102/gfx1103 have the smaller GFX11 VGPR file, so the generic code may not assume
        // gfx1100's (LLVM's gfx11-generic lacks FeatureGFX11FullVGPRs).
        Processor { simd_vgprs_wave64: 512, vgpr_alloc_granule_wave64: 8, ..GFX1100 },
        "gfx11-generic",
        0x054,
        &[],
        &["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"],
    ),
    generic(GFX1200, "gfx12-generic", 0x059, &[], &["gfx1200", "gfx1201"]),
];

impl Processor {
    /// Looks a processor up by name.
    pub fn find(name: &str) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.name == name)
    }

    /// The names of the processors gcnc compiles for ([`Processor::verified`]), comma-separated.
    pub fn verified_names() -> String {
        let names: Vec<&str> = PROCESSORS.iter().filter(|p| p.verified).map(|p| p.name).collect();
        names.join(", ")
    }

    /// The wave size a kernel gets without `-mwavefrontsize64`: 32 on GFX10+, 64 before.
    pub fn default_wave_size(&self) -> u32 {
        if self.wave32 {
            32
        } else {
            64
        }
    }

    /// VGPRs per lane in a SIMD's file for waves of `wave_size`.
    pub fn simd_vgprs(&self, wave_size: u32) -> u16 {
        if wave_size == 32 && self.wave32 {
            2 * self.simd_vgprs_wave64
        } else {
            self.simd_vgprs_wave64
        }
    }

    /// The block size in which a wave of `wave_size` is given VGPRs.
    pub fn vgpr_alloc_granule(&self, wave_size: u32) -> u16 {
        if wave_size == 32 && self.wave32 {
            2 * self.vgpr_alloc_granule_wave64
        } else {
            self.vgpr_alloc_granule_wave64
        }
    }

    /// The granule of the kernel descriptor's GRANULATED_WORKITEM_VGPR_COUNT (NEW:4250): 8 on
    /// gfx90a/gfx942 (the unified file) and on GFX10+ wave32, 4 otherwise.
    pub fn vgpr_encoding_granule(&self, wave_size: u32) -> u16 {
        if self.unified_vgpr_file || (self.generation >= Generation::Gfx10 && wave_size == 32) {
            8
        } else {
            4
        }
    }

    /// The most scratch (private segment) bytes one wave can have: the largest value of
    /// COMPUTE_TMPRING_SIZE.WAVESIZE, a 13-bit count of 1 KiB units through GFX10, 15 bits of
    /// 256-byte units on GFX11 and 18 bits of 256-byte units on GFX12 (LLVM's
    /// `getMaxWaveScratchSize`). A kernel's `private_segment_fixed_size` times its wave size
    /// must fit.
    pub fn max_wave_scratch_bytes(&self) -> u64 {
        match self.generation {
            Generation::Gfx9 | Generation::Gfx10 => 1024 * ((1 << 13) - 1),
            Generation::Gfx11 => 256 * ((1 << 15) - 1),
            Generation::Gfx12 => 256 * ((1 << 18) - 1),
        }
    }

    /// Whether SGPR use bounds occupancy (GFX9; GFX10+ gives every wave its SGPRs).
    pub fn sgprs_limit_occupancy(&self) -> bool {
        self.generation == Generation::Gfx9
    }

    /// Whether the processor supports `feature` in its target ID.
    pub fn supports(&self, feature: Feature) -> bool {
        self.features.contains(&feature)
    }
}

/// A feature's setting in a target ID: absent means "any" (the code runs either way).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum FeatureSetting {
    /// Not named: the code must work with the feature on or off.
    #[default]
    Any,
    /// `feature+`.
    On,
    /// `feature-`.
    Off,
}

/// A processor with its target-ID feature settings, e.g. `gfx942:sramecc+:xnack-`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TargetId {
    /// The processor.
    pub processor: &'static Processor,
    /// `sramecc` (Any when unsupported).
    pub sramecc: FeatureSetting,
    /// `xnack` (Any when unsupported).
    pub xnack: FeatureSetting,
}

/// Why a target ID was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TargetIdError {
    /// The processor is not in the table.
    #[error("unknown processor '{name}' (known: {known})")]
    UnknownProcessor {
        /// The name given.
        name: String,
        /// The known processors.
        known: String,
    },
    /// The feature is neither `sramecc` nor `xnack`, or lacks its `+`/`-`.
    #[error("'{text}' is not a target-ID feature (expected sramecc+, sramecc-, xnack+ or xnack-)")]
    BadFeature {
        /// The text given.
        text: String,
    },
    /// The processor does not have the feature.
    #[error("{processor} does not support {feature}")]
    Unsupported {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: &'static str,
    },
    /// A feature was named twice.
    #[error("{feature} is given more than once")]
    Repeated {
        /// The feature.
        feature: &'static str,
    },
}

impl TargetId {
    /// Parses `PROCESSOR(:FEATURE(+|-))*`.
    pub fn parse(text: &str) -> Result<TargetId, TargetIdError> {
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or_default();
        let processor = Processor::find(name).ok_or_else(|| TargetIdError::UnknownProcessor {
            name: name.to_string(),
            known: PROCESSORS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        })?;
        let mut id = TargetId { processor, sramecc: FeatureSetting::Any, xnack: FeatureSetting::Any };
        let (mut seen_sramecc, mut seen_xnack) = (false, false);
        for part in parts {
            let bad = || TargetIdError::BadFeature { text: part.to_string() };
            let (feature, setting) = match part.as_bytes().last() {
                Some(b'+') => (&part[..part.len() - 1], FeatureSetting::On),
                Some(b'-') => (&part[..part.len() - 1], FeatureSetting::Off),
                _ => return Err(bad()),
            };
            let (feature, slot, seen) = match feature {
                "sramecc" => (Feature::Sramecc, &mut id.sramecc, &mut seen_sramecc),
                "xnack" => (Feature::Xnack, &mut id.xnack, &mut seen_xnack),
                _ => return Err(bad()),
            };
            if !processor.supports(feature) {
                return Err(TargetIdError::Unsupported { processor: processor.name, feature: feature.name() });
            }
            if std::mem::replace(seen, true) {
                return Err(TargetIdError::Repeated { feature: feature.name() });
            }
            *slot = setting;
        }
        Ok(id)
    }
}

impl fmt::Display for TargetId {
    /// The canonical form: features in alphabetical order, only those not "any".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.processor.name)?;
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            match setting {
                FeatureSetting::Any => {}
                FeatureSetting::On => write!(f, ":{name}+")?,
                FeatureSetting::Off => write!(f, ":{name}-")?,
            }
        }
        Ok(())
    }
}

/// Whether a GPU agent whose ISA is named `isa_name` (as HSA's `hsa_isa_get_info_alt` gives
/// it, e.g. `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`) runs code for `target`: the processor
/// is the target's, or one its generic processor supports; and each feature the target sets
/// (`+` or `-`) is set the same way in the ISA name (a feature the target leaves as "any"
/// runs either way). gcnc's GPU backend picks its agent by it, and gcnc-hsa's loader checks
/// code objects against its agents by it.
pub fn isa_runs_target(isa_name: &str, target: &TargetId) -> bool {
    let id = isa_name.rsplit_once("--").map_or(isa_name, |(_, id)| id);
    let mut parts = id.split(':');
    let processor = parts.next().unwrap_or_default();
    let features: Vec<&str> = parts.collect();
    let code = target.processor;
    let processor_fits =
        code.name == processor || code.generic.as_ref().is_some_and(|g| g.supported.contains(&processor));
    let fits = |setting: FeatureSetting, name: &str| {
        let agent = features.iter().find_map(|f| f.strip_prefix(name));
        match setting {
            FeatureSetting::Any => true,
            FeatureSetting::On => agent == Some("+"),
            FeatureSetting::Off => agent == Some("-"),
        }
    };
    processor_fits && fits(target.sramecc, "sramecc") && fits(target.xnack, "xnack")
}

/// Everything code generation needs to know about where the code will run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The processor and its feature settings.
    pub id: TargetId,
    /// Lanes per wave: 32 or 64.
    pub wave_size: u32,
    /// CU mode rather than WGP mode (GFX10+).
    pub cumode: bool,
    /// Workgroups may be split across CUs (gfx90a, gfx942).
    pub tgsplit: bool,
}

impl Target {
    /// The target for a processor with its defaults (wave size, WGP mode, no tgsplit).
    pub fn new(id: TargetId) -> Target {
        Target { id, wave_size: id.processor.default_wave_size(), cumode: false, tgsplit: false }
    }

    /// The processor.
    pub fn processor(&self) -> &'static Processor {
        self.id.processor
    }

    /// The target as clang's flags say it: `-mcpu=ID`, then `-mwavefrontsize64` for wave64 on a
    /// processor that also has wave32, `-mcumode` and `-mtgsplit` where set (what a reproduce
    /// command writes).
    pub fn flags(&self) -> String {
        let mut flags = format!("-mcpu={}", self.id);
        if self.wave_size == 64 && self.processor().wave32 {
            flags += " -mwavefrontsize64";
        }
        if self.cumode {
            flags += " -mcumode";
        }
        if self.tgsplit {
            flags += " -mtgsplit";
        }
        flags
    }

    /// The generation.
    pub fn generation(&self) -> Generation {
        self.id.processor.generation
    }

    /// The SIMDs the waves of one workgroup share (LLVM's `getEUsPerCU`): a GFX10+ CU in CU
    /// mode has 2; a GFX9 CU, and a GFX10+ WGP in WGP mode, have 4.
    pub fn simds_per_workgroup(&self) -> u32 {
        if self.generation() >= Generation::Gfx10 && self.cumode {
            2
        } else {
            4
        }
    }

    /// The waves per SIMD a workgroup of `lanes` work-items needs at once (LLVM's
    /// `getWavesPerEUForWorkGroup`): its waves spread over [`Target::simds_per_workgroup`].
    pub fn waves_per_simd_for(&self, lanes: u32) -> u32 {
        lanes.div_ceil(self.wave_size).div_ceil(self.simds_per_workgroup())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(isa: &str, target: &str) -> bool {
        isa_runs_target(isa, &TargetId::parse(target).unwrap())
    }

    #[test]
    fn isa_names_match_target_ids() {
        assert!(runs("amdgcn-amd-amdhsa--gfx1100", "gfx1100"));
        assert!(!runs("amdgcn-amd-amdhsa--gfx1101", "gfx1100"));
        assert!(!runs("amdgcn-amd-amdhsa--gfx11000", "gfx1100"));
        // "Any" runs on either setting; a set feature needs the same setting.
        assert!(runs("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a"));
        assert!(runs("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a:xnack-"));
        assert!(!runs("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a:xnack+"));
        assert!(!runs("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a:sramecc-"));
        assert!(!runs("amdgcn-amd-amdhsa--gfx90a", "gfx90a:sramecc+"));
    }

    #[test]
    fn generic_targets_run_on_the_processors_they_list() {
        let generic = PROCESSORS.iter().find_map(|p| p.generic.as_ref().map(|g| (p.name, g)));
        let (name, info) = generic.expect("the processor table has a generic processor");
        let member = info.supported[0];
        assert!(runs(&format!("amdgcn-amd-amdhsa--{member}"), name));
        assert!(!runs("amdgcn-amd-amdhsa--gfx600", name));
    }

    #[test]
    fn target_ids_parse_and_print_canonically() {
        let id = TargetId::parse("gfx942:xnack-:sramecc+").unwrap();
        assert_eq!(id.to_string(), "gfx942:sramecc+:xnack-");
        assert_eq!(TargetId::parse("gfx1100").unwrap().to_string(), "gfx1100");
        assert_eq!(TargetId::parse("gfx90a:xnack+").unwrap().xnack, FeatureSetting::On);
    }

    #[test]
    fn bad_target_ids_are_rejected() {
        assert!(matches!(TargetId::parse("gfx1234"), Err(TargetIdError::UnknownProcessor { .. })));
        assert_eq!(
            TargetId::parse("gfx1100:xnack+").unwrap_err(),
            TargetIdError::Unsupported { processor: "gfx1100", feature: "xnack" }
        );
        assert!(matches!(TargetId::parse("gfx942:xnack"), Err(TargetIdError::BadFeature { .. })));
        assert!(matches!(TargetId::parse("gfx942:cumode+"), Err(TargetIdError::BadFeature { .. })));
        assert_eq!(TargetId::parse("gfx942:xnack+:xnack-").unwrap_err(), TargetIdError::Repeated { feature: "xnack" });
    }

    #[test]
    fn generic_processors_parse_and_print() {
        let id = TargetId::parse("gfx11-generic").unwrap();
        assert_eq!(id.to_string(), "gfx11-generic");
        assert_eq!((id.sramecc, id.xnack), (FeatureSetting::Any, FeatureSetting::Any));
        let id = TargetId::parse("gfx9-4-generic:xnack-:sramecc+").unwrap();
        assert_eq!(id.to_string(), "gfx9-4-generic:sramecc+:xnack-");
        assert_eq!(TargetId::parse("gfx9-generic:xnack+").unwrap().to_string(), "gfx9-generic:xnack+");
        assert_eq!(TargetId::parse("gfx10-1-generic:xnack-").unwrap().xnack, FeatureSetting::Off);
        assert_eq!(Target::new(TargetId::parse("gfx11-generic").unwrap()).wave_size, 32);
        assert_eq!(Target::new(TargetId::parse("gfx9-4-generic").unwrap()).wave_size, 64);
    }

    #[test]
    fn generic_processors_refuse_features_they_lack() {
        let unsupported = |text: &str| TargetId::parse(text).unwrap_err();
        for (text, processor, feature) in [
            ("gfx9-generic:sramecc+", "gfx9-generic", "sramecc"),
            ("gfx10-1-generic:sramecc-", "gfx10-1-generic", "sramecc"),
            ("gfx10-3-generic:xnack+", "gfx10-3-generic", "xnack"),
            ("gfx11-generic:xnack+", "gfx11-generic", "xnack"),
            ("gfx12-generic:sramecc+", "gfx12-generic", "sramecc"),
        ] {
            assert_eq!(unsupported(text), TargetIdError::Unsupported { processor, feature }, "{text}");
        }
        assert!(matches!(unsupported("gfx13-generic"), TargetIdError::UnknownProcessor { .. }));
    }

    #[test]
    fn generic_rows_follow_the_generic_table() {
        let generic = |name: &str| Processor::find(name).unwrap();
        let names: Vec<&str> = PROCESSORS.iter().filter(|p| p.generic.is_some()).map(|p| p.name).collect();
        assert_eq!(
            names,
            ["gfx9-generic", "gfx9-4-generic", "gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx12-generic"]
        );
        for p in PROCESSORS {
            // One row per name and per EF_AMDGPU_MACH; every generic code object is version 1.
            assert_eq!(PROCESSORS.iter().filter(|q| q.name == p.name || q.mach == p.mach).count(), 1, "{}", p.name);
            if let Some(info) = &p.generic {
                assert_eq!(info.version, 1, "{}", p.name);
                // The first supported processor, where it is a row, has the same facts but for
                // the name, EF_AMDGPU_MACH, being generic and verified (no generic processor
                // is yet) — and for gfx11-generic the VGPR file, which must fit
                // gfx1102/gfx1103's smaller one.
                assert!(!p.verified, "{}", p.name);
                if let Some(first) = Processor::find(info.supported[0]) {
                    let renamed = Processor {
                        name: p.name,
                        mach: p.mach,
                        generic: None,
                        verified: false,
                        simd_vgprs_wave64: p.simd_vgprs_wave64,
                        vgpr_alloc_granule_wave64: p.vgpr_alloc_granule_wave64,
                        ..*first
                    };
                    assert_eq!(Processor { generic: None, ..*p }, renamed, "{}", p.name);
                }
            }
        }
        assert_eq!(generic("gfx9-4-generic").mach, 0x05f);
        assert_eq!(
            (generic("gfx11-generic").simd_vgprs(32), generic("gfx11-generic").vgpr_alloc_granule(32)),
            (1024, 16)
        );
        let gfx1100 = Processor::find("gfx1100").unwrap();
        assert_eq!(
            (gfx1100.simd_vgprs(32), gfx1100.vgpr_alloc_granule(64), gfx1100.max_waves_per_simd),
            (1536, 12, 16)
        );
        assert!(generic("gfx9-4-generic").kernarg_preload && generic("gfx9-4-generic").gfx90a_insts);
        assert!(!generic("gfx9-generic").kernarg_preload);
        assert_eq!(generic("gfx10-1-generic").features, [Feature::Xnack]);
        assert_eq!(generic("gfx10-1-generic").icache_line_bytes, 64);
        assert!(generic("gfx11-generic").user_sgpr_init16_bug && !generic("gfx12-generic").user_sgpr_init16_bug);
        assert_eq!(generic("gfx11-generic").generic.as_ref().unwrap().supported.len(), 8);
        assert!(Processor::find("gfx1100").unwrap().generic.is_none());
    }

    #[test]
    fn wave_sizes_follow_the_generation() {
        assert_eq!(Target::new(TargetId::parse("gfx1100").unwrap()).wave_size, 32);
        assert_eq!(Target::new(TargetId::parse("gfx942").unwrap()).wave_size, 64);
    }
}
