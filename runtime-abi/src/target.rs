//! Target IDs and the ELF header's e_flags, both ways, for code object V4, V5 and V6
//! (NEW:1771-1830): `EF_AMDGPU_MACH` names the processor, two 2-bit fields give the xnack and
//! sramecc settings (0 where the processor lacks the feature), and from V6 the top byte holds
//! the version of a generic processor's code (NEW:570, 0 for every other processor).
//!
//! Processors, specific and generic (NEW:488, `gfx11-generic` and the like, V6 only), and
//! each generic processor's version ([`Processor::generic`]) come from `isa`'s processor
//! table, their one home.

use std::fmt;

use isa::processor::{Feature, FeatureSetting, Processor, TargetId, PROCESSORS};

use crate::kernarg::CodeObjectVersion;
use crate::AbiError;

/// The processor (`EF_AMDGPU_MACH_*`) bits of e_flags.
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// The xnack bits of e_flags (V4+): 0 unsupported, 0x100 any, 0x200 off, 0x300 on.
pub const EF_AMDGPU_FEATURE_XNACK: u32 = 0x300;
/// The sramecc bits of e_flags (V4+): 0 unsupported, 0x400 any, 0x800 off, 0xc00 on.
pub const EF_AMDGPU_FEATURE_SRAMECC: u32 = 0xc00;
/// The generic-processor version of e_flags (V6, generic processors only).
pub const EF_AMDGPU_GENERIC_VERSION: u32 = 0xff00_0000;
/// The e_flags bits no V4-V6 field covers: they must be 0.
pub const EF_AMDGPU_RESERVED: u32 =
    !(EF_AMDGPU_MACH | EF_AMDGPU_FEATURE_XNACK | EF_AMDGPU_FEATURE_SRAMECC | EF_AMDGPU_GENERIC_VERSION);
/// The file offset of e_flags in an ELF64 header.
pub const E_FLAGS_OFFSET: u64 = 48;

/// The processor of `isa`'s table whose `EF_AMDGPU_MACH` is `mach`, specific or generic.
pub fn processor_for_mach(mach: u32) -> Option<&'static Processor> {
    PROCESSORS.iter().find(|p| p.mach == mach)
}

/// A target feature's field in e_flags.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FeatureFlag {
    /// 0: the processor does not have the feature.
    Unsupported,
    /// 1: the code runs with the feature on or off.
    Any,
    /// 2: the code needs the feature off.
    Off,
    /// 3: the code needs the feature on.
    On,
}

impl FeatureFlag {
    fn from_bits(bits: u32) -> FeatureFlag {
        [FeatureFlag::Unsupported, FeatureFlag::Any, FeatureFlag::Off, FeatureFlag::On][(bits & 3) as usize]
    }

    /// The field for a target-ID setting of a feature the processor does or does not have.
    fn of(supported: bool, setting: FeatureSetting) -> FeatureFlag {
        match (supported, setting) {
            (false, _) => FeatureFlag::Unsupported,
            (true, FeatureSetting::Any) => FeatureFlag::Any,
            (true, FeatureSetting::Off) => FeatureFlag::Off,
            (true, FeatureSetting::On) => FeatureFlag::On,
        }
    }

    /// The target-ID setting, or None for [`FeatureFlag::Unsupported`].
    fn setting(self) -> Option<FeatureSetting> {
        match self {
            FeatureFlag::Unsupported => None,
            FeatureFlag::Any => Some(FeatureSetting::Any),
            FeatureFlag::Off => Some(FeatureSetting::Off),
            FeatureFlag::On => Some(FeatureSetting::On),
        }
    }

    /// The name AMDGPUUsage gives the value (`EF_AMDGPU_FEATURE_XNACK_ANY_V4`: "any").
    pub fn name(self) -> &'static str {
        match self {
            FeatureFlag::Unsupported => "unsupported",
            FeatureFlag::Any => "any",
            FeatureFlag::Off => "off",
            FeatureFlag::On => "on",
        }
    }
}

impl fmt::Display for FeatureFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// e_flags split into its V4-V6 fields, whatever they hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EFlags {
    /// `EF_AMDGPU_MACH`.
    pub mach: u32,
    /// `EF_AMDGPU_FEATURE_XNACK_V4`.
    pub xnack: FeatureFlag,
    /// `EF_AMDGPU_FEATURE_SRAMECC_V4`.
    pub sramecc: FeatureFlag,
    /// `EF_AMDGPU_GENERIC_VERSION_V` (V6; 0 for specific processors).
    pub generic_version: u8,
    /// The bits no field covers (must be 0).
    pub reserved: u32,
}

impl EFlags {
    /// The fields of `flags`.
    pub fn decode(flags: u32) -> EFlags {
        EFlags {
            mach: flags & EF_AMDGPU_MACH,
            xnack: FeatureFlag::from_bits(flags >> 8),
            sramecc: FeatureFlag::from_bits(flags >> 10),
            generic_version: (flags >> 24) as u8,
            reserved: flags & EF_AMDGPU_RESERVED,
        }
    }

    /// The e_flags value.
    pub fn encode(&self) -> u32 {
        self.mach
            | (self.xnack as u32) << 8
            | (self.sramecc as u32) << 10
            | u32::from(self.generic_version) << 24
            | self.reserved
    }

    /// The processor `EF_AMDGPU_MACH` names, specific or generic.
    pub fn processor(&self) -> Option<&'static Processor> {
        processor_for_mach(self.mach)
    }
}

/// e_flags for `target` in a code object of `version`: the processor's `EF_AMDGPU_MACH`, the
/// xnack and sramecc settings ("unsupported" when the processor lacks the feature), and for a
/// generic processor its version, which exists only from V6 on.
pub fn e_flags(target: &TargetId, version: CodeObjectVersion) -> Result<u32, AbiError> {
    let proc = target.processor;
    let generic_version = match &proc.generic {
        Some(_) if version < CodeObjectVersion::V6 => {
            return Err(AbiError::InvalidCodeObject {
                reason: format!("the generic processor {} needs code object V6, not {version:?}", proc.name),
            })
        }
        Some(generic) => generic.version,
        None => 0,
    };
    let flags = EFlags {
        mach: proc.mach,
        xnack: FeatureFlag::of(proc.supports(Feature::Xnack), target.xnack),
        sramecc: FeatureFlag::of(proc.supports(Feature::Sramecc), target.sramecc),
        generic_version,
        reserved: 0,
    };
    Ok(flags.encode())
}

/// The target ID that `flags` name in a code object of `version` (None when EI_ABIVERSION
/// names no V4-V6 version: then only the fields common to V4-V6 are checked). Fails, saying
/// why, when the processor is unknown, a reserved bit is set, a feature field contradicts
/// the processor, or the generic version does not fit the processor and version.
pub fn target_from_e_flags(flags: u32, version: Option<CodeObjectVersion>) -> Result<TargetId, AbiError> {
    let bad = |reason: String| AbiError::BadEFlags { flags, reason };
    let fields = EFlags::decode(flags);
    if fields.reserved != 0 {
        return Err(bad(format!("reserved bits {:#x} are set", fields.reserved)));
    }
    let proc =
        fields.processor().ok_or_else(|| bad(format!("EF_AMDGPU_MACH {:#x} is no known processor", fields.mach)))?;
    let setting = |flag: FeatureFlag, feature: Feature| match (flag.setting(), proc.supports(feature)) {
        (None, false) => Ok(FeatureSetting::Any),
        (Some(setting), true) => Ok(setting),
        (None, true) => Err(bad(format!("{} supports {}, but its field says unsupported", proc.name, feature.name()))),
        (Some(_), false) => {
            Err(bad(format!("{} does not support {}, but its field is {flag}", proc.name, feature.name())))
        }
    };
    let xnack = setting(fields.xnack, Feature::Xnack)?;
    let sramecc = setting(fields.sramecc, Feature::Sramecc)?;
    match (&proc.generic, fields.generic_version) {
        (None, 0) => {}
        (None, v) => return Err(bad(format!("{} is not generic, but the generic version is {v}", proc.name))),
        (Some(_), 0) => return Err(bad(format!("the generic processor {} has generic version 0", proc.name))),
        (Some(_), _) if version.is_some_and(|v| v < CodeObjectVersion::V6) => {
            return Err(bad(format!("the generic processor {} needs code object V6", proc.name)))
        }
        (Some(_), _) => {}
    }
    Ok(TargetId { processor: proc, xnack, sramecc })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(text: &str, version: CodeObjectVersion) -> u32 {
        e_flags(&TargetId::parse(text).unwrap(), version).unwrap()
    }

    #[test]
    fn specific_processors_match_the_digest_and_clang() {
        for version in [CodeObjectVersion::V4, CodeObjectVersion::V5, CodeObjectVersion::V6] {
            assert_eq!(flags("gfx90a:sramecc+:xnack-", version), 0xe3f);
            assert_eq!(flags("gfx942", version), 0x54c);
            assert_eq!(flags("gfx942:sramecc+:xnack-", version), 0xe4c);
            assert_eq!(flags("gfx1030", version), 0x036);
            assert_eq!(flags("gfx900", version), 0x12c);
            assert_eq!(flags("gfx1100", version), 0x041);
            for text in ["gfx942:sramecc+:xnack-", "gfx942", "gfx1100", "gfx900:xnack+", "gfx906:sramecc-"] {
                let back = target_from_e_flags(flags(text, version), Some(version)).unwrap();
                assert_eq!(back.to_string(), text);
            }
        }
    }

    #[test]
    fn generic_processors_need_v6_and_carry_their_version() {
        // clang-19 -mcpu=gfx11-generic -mcode-object-version=6: 0x1000054; gfx9-generic:
        // 0x1000151 (xnack any); gfx10-1-generic 0x1000152; gfx10-3-generic 0x1000053;
        // gfx12-generic 0x1000059. gfx9-4-generic (not in LLVM 19): MACH 0x05f.
        let v6 = CodeObjectVersion::V6;
        let expected = [
            ("gfx9-generic", 0x100_0151),
            ("gfx9-4-generic", 0x100_055f),
            ("gfx10-1-generic", 0x100_0152),
            ("gfx10-3-generic", 0x100_0053),
            ("gfx11-generic", 0x100_0054),
            ("gfx12-generic", 0x100_0059),
        ];
        for (name, value) in expected {
            assert_eq!(flags(name, v6), value, "{name}");
            let back = target_from_e_flags(value, Some(v6)).unwrap();
            assert_eq!(back.to_string(), name);
            assert!(back.processor.generic.is_some());
            for version in [CodeObjectVersion::V4, CodeObjectVersion::V5] {
                let target = TargetId::parse(name).unwrap();
                assert!(matches!(e_flags(&target, version), Err(AbiError::InvalidCodeObject { .. })), "{name}");
                assert!(target_from_e_flags(value, Some(version)).is_err(), "{name} {version:?}");
            }
            // Version 0 is not a generic version.
            assert!(target_from_e_flags(value & !EF_AMDGPU_GENERIC_VERSION, Some(v6)).is_err());
        }
        assert_eq!(flags("gfx9-4-generic:sramecc+:xnack-", v6), 0x100_0e5f);
    }

    #[test]
    fn contradictory_flags_are_refused() {
        let err = |flags: u32| target_from_e_flags(flags, Some(CodeObjectVersion::V5)).unwrap_err().to_string();
        assert!(err(0x0ff).contains("EF_AMDGPU_MACH 0xff is no known processor"), "{}", err(0x0ff));
        assert!(err(0x141).contains("gfx1100 does not support xnack"));
        assert!(err(0x02c).contains("gfx900 supports xnack, but its field says unsupported"));
        assert!(err(0x1041).contains("reserved bits 0x1000"));
        assert!(err(0x100_0041).contains("gfx1100 is not generic"));
        assert_eq!(EFlags::decode(0x100_0e5f).encode(), 0x100_0e5f);
    }
}
