//! The processor table: the one home of every per-processor fact (generation, ELF machine
//! value, target features, wave sizes, register files, flat-scratch kind, work-item ID packing),
//! and target IDs (`gfx942:sramecc+:xnack-`) parsed and printed as AMDGPUUsage defines them.
//!
//! Facts come from AMDGPUUsage (shared/seeds/AMDGPUUsage-new.txt: processor table at line 94,
//! EF_AMDGPU_MACH values at 1826, target features at 614, target ID syntax at 666).

use core::fmt;
use thiserror::Error;

/// An instruction-set generation: what decides encodings and most per-generation rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Generation {
    /// GFX9: Vega (gfx900, gfx906) and CDNA (gfx908, gfx90a, gfx942).
    Gfx9,
    /// GFX10: RDNA1 and RDNA2 (gfx1030).
    Gfx10,
    /// GFX11: RDNA3 (gfx1100).
    Gfx11,
    /// GFX12: RDNA4 (gfx1200).
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
    /// The canonical name, e.g. `gfx1100`.
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
    /// Whether `-mtgsplit` means anything (gfx90a, gfx942).
    pub tgsplit: bool,
    /// Addressable SGPRs per wave, VCC excluded.
    pub sgprs: u16,
    /// Addressable VGPRs per wave (ArchVGPRs).
    pub vgprs: u16,
    /// Accumulation VGPRs per wave (0 when the processor has none).
    pub agprs: u16,
    /// Whether ArchVGPRs and AGPRs share one file split by ACCUM_OFFSET (gfx90a, gfx942).
    pub unified_vgpr_file: bool,
    /// How scratch is reached.
    pub flat_scratch: FlatScratch,
    /// Whether the work-item IDs arrive packed in v0 (X 9:0, Y 19:10, Z 29:20).
    pub packed_workitem_ids: bool,
    /// Whether 64-bit VGPR tuples must start at an even register (gfx90a, gfx942).
    pub aligned_vgpr_tuples: bool,
}

const GFX9_FEATURES: &[Feature] = &[Feature::Xnack];
const GFX9_ECC_FEATURES: &[Feature] = &[Feature::Sramecc, Feature::Xnack];

/// Every processor gcnc knows, in the order of the AMDGPUUsage table.
pub static PROCESSORS: &[Processor] = &[
    Processor {
        name: "gfx900",
        generation: Generation::Gfx9,
        mach: 0x02c,
        features: GFX9_FEATURES,
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
    },
    Processor {
        name: "gfx906",
        generation: Generation::Gfx9,
        mach: 0x02f,
        features: GFX9_ECC_FEATURES,
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
    },
    Processor {
        name: "gfx908",
        generation: Generation::Gfx9,
        mach: 0x030,
        features: GFX9_ECC_FEATURES,
        wave32: false,
        cumode: false,
        tgsplit: false,
        sgprs: 102,
        vgprs: 256,
        agprs: 256,
        unified_vgpr_file: false,
        flat_scratch: FlatScratch::Absolute,
        packed_workitem_ids: false,
        aligned_vgpr_tuples: false,
    },
    Processor {
        name: "gfx90a",
        generation: Generation::Gfx9,
        mach: 0x03f,
        features: GFX9_ECC_FEATURES,
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
    },
    Processor {
        name: "gfx942",
        generation: Generation::Gfx9,
        mach: 0x04c,
        features: GFX9_ECC_FEATURES,
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
    },
    Processor {
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
    },
    Processor {
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
    },
    Processor {
        name: "gfx1200",
        generation: Generation::Gfx12,
        mach: 0x048,
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
    },
];

impl Processor {
    /// Looks a processor up by name.
    pub fn find(name: &str) -> Option<&'static Processor> {
        PROCESSORS.iter().find(|p| p.name == name)
    }

    /// The wave size a kernel gets without `-mwavefrontsize64`: 32 on GFX10+, 64 before.
    pub fn default_wave_size(&self) -> u32 {
        if self.wave32 {
            32
        } else {
            64
        }
    }

    /// Whether the processor supports `feature` in its target ID.
    pub fn supports(&self, feature: Feature) -> bool {
        self.features.contains(&feature)
    }

    /// Whether the processor has the user-SGPR initialisation bug of gfx1100 and gfx1102
    /// (LLVM's `FeatureUserSGPRInit16Bug`; not in the seeds): in wave32, a compute kernel must
    /// have at least 16 user plus system SGPRs enabled, so clang-19 pads USER_SGPR_COUNT with
    /// unused user SGPRs (15 with only the kernarg pointer and workgroup ID X). Wave64 is not
    /// affected, nor are gfx1101, gfx1103, gfx115x and GFX12.
    pub fn user_sgpr_init16_bug(&self) -> bool {
        matches!(self.name, "gfx1100" | "gfx1102")
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

    /// The generation.
    pub fn generation(&self) -> Generation {
        self.id.processor.generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn wave_sizes_follow_the_generation() {
        assert_eq!(Target::new(TargetId::parse("gfx1100").unwrap()).wave_size, 32);
        assert_eq!(Target::new(TargetId::parse("gfx942").unwrap()).wave_size, 64);
    }
}
