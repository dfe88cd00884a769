//! The register model: physical registers in one numbering for every generation, register
//! types and classes (a size in dwords, scalar or vector, linear or not), and virtual registers
//! (temporaries) of a class.
//!
//! The numbering follows the hardware's 9-bit source-operand field where it can: SGPRs 0-105,
//! VCC 106-107, M0 124, NULL 125, EXEC 126-127, SCC 253, VGPRs 256-511. AGPRs follow at 512.
//! GFX11 swaps the field values of M0 and NULL (M0 = 125, NULL = 124); the encoder maps them.

use core::fmt;

/// A physical register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhysReg(pub u16);

impl PhysReg {
    /// The low half of VCC.
    pub const VCC: PhysReg = PhysReg(106);
    /// The high half of VCC (wave64).
    pub const VCC_HI: PhysReg = PhysReg(107);
    /// M0.
    pub const M0: PhysReg = PhysReg(124);
    /// The null register (writes are dropped, reads give 0).
    pub const NULL: PhysReg = PhysReg(125);
    /// The low half of EXEC.
    pub const EXEC: PhysReg = PhysReg(126);
    /// The high half of EXEC (wave64).
    pub const EXEC_HI: PhysReg = PhysReg(127);
    /// `src_shared_base`: a read-only source giving the shared (LDS) aperture's base (GFX9+;
    /// its high dword is the aperture, a 32-bit read gives the low dword, zero).
    pub const SRC_SHARED_BASE: PhysReg = PhysReg(235);
    /// `src_shared_limit`: the shared aperture's last address.
    pub const SRC_SHARED_LIMIT: PhysReg = PhysReg(236);
    /// `src_private_base`: the private (scratch) aperture's base, as `src_shared_base`.
    pub const SRC_PRIVATE_BASE: PhysReg = PhysReg(237);
    /// `src_private_limit`: the private aperture's last address.
    pub const SRC_PRIVATE_LIMIT: PhysReg = PhysReg(238);
    /// The scalar condition code.
    pub const SCC: PhysReg = PhysReg(253);
    /// GFX9's FLAT_SCRATCH_LO, the low dword of the scratch base that the prolog of a
    /// processor without architected flat scratch sets (operand field 102, which GFX11 calls
    /// s102; numbered apart so that it is no plain SGPR).
    pub const FLAT_SCRATCH_LO: PhysReg = PhysReg(230);
    /// GFX9's FLAT_SCRATCH_HI (operand field 103).
    pub const FLAT_SCRATCH_HI: PhysReg = PhysReg(231);
    /// The first VGPR.
    pub const VGPR0: u16 = 256;
    /// The first AGPR.
    pub const AGPR0: u16 = 512;

    /// SGPR `n`.
    pub const fn sgpr(n: u16) -> PhysReg {
        PhysReg(n)
    }

    /// VGPR `n`.
    pub const fn vgpr(n: u16) -> PhysReg {
        PhysReg(Self::VGPR0 + n)
    }

    /// AGPR `n`.
    pub const fn agpr(n: u16) -> PhysReg {
        PhysReg(Self::AGPR0 + n)
    }

    /// Which file the register is in.
    pub fn reg_type(self) -> RegType {
        match self.0 {
            n if n >= Self::AGPR0 => RegType::Agpr,
            n if n >= Self::VGPR0 => RegType::Vgpr,
            _ => RegType::Sgpr,
        }
    }

    /// The index within its file (the `n` of `sN`, `vN` or `aN`; the field value of specials).
    pub fn index(self) -> u16 {
        match self.reg_type() {
            RegType::Agpr => self.0 - Self::AGPR0,
            RegType::Vgpr => self.0 - Self::VGPR0,
            RegType::Sgpr => self.0,
        }
    }

    /// The register `n` dwords further on.
    pub fn advance(self, n: u16) -> PhysReg {
        PhysReg(self.0 + n)
    }

    /// Whether this is an ordinary SGPR (s0-s105), not a special register.
    pub fn is_plain_sgpr(self) -> bool {
        self.0 < Self::VCC.0
    }
}

/// The register files.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegType {
    /// Scalar: one value per wave.
    Sgpr,
    /// Vector: one value per lane.
    Vgpr,
    /// Accumulation vector registers (CDNA).
    Agpr,
}

/// A register class: the file, the size in dwords, and whether the value is *linear* (live on
/// the linear CFG, so it survives lanes being switched off, as ACO's linear VGPRs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegClass {
    /// The file.
    pub ty: RegType,
    /// Size in dwords, 1 to 16.
    pub size: u8,
    /// Live on the linear CFG. SGPRs always are; a linear VGPR keeps its value in inactive
    /// lanes across divergent control flow.
    pub linear: bool,
}

impl RegClass {
    /// One SGPR.
    pub const S1: RegClass = RegClass::sgpr(1);
    /// An SGPR pair.
    pub const S2: RegClass = RegClass::sgpr(2);
    /// Four SGPRs.
    pub const S4: RegClass = RegClass::sgpr(4);
    /// One VGPR.
    pub const V1: RegClass = RegClass::vgpr(1);
    /// A VGPR pair.
    pub const V2: RegClass = RegClass::vgpr(2);

    /// `size` SGPRs.
    pub const fn sgpr(size: u8) -> RegClass {
        RegClass { ty: RegType::Sgpr, size, linear: true }
    }

    /// `size` VGPRs.
    pub const fn vgpr(size: u8) -> RegClass {
        RegClass { ty: RegType::Vgpr, size, linear: false }
    }

    /// `size` AGPRs.
    pub const fn agpr(size: u8) -> RegClass {
        RegClass { ty: RegType::Agpr, size, linear: false }
    }

    /// `size` linear VGPRs.
    pub const fn linear_vgpr(size: u8) -> RegClass {
        RegClass { ty: RegType::Vgpr, size, linear: true }
    }

    /// The class of a lane mask: one SGPR per 32 lanes.
    pub const fn lane_mask(wave_size: u32) -> RegClass {
        RegClass::sgpr(if wave_size == 64 { 2 } else { 1 })
    }

    /// Whether the class is in the scalar file.
    pub fn is_sgpr(self) -> bool {
        self.ty == RegType::Sgpr
    }
}

impl fmt::Display for RegClass {
    /// `s1`, `v2`, `lv1` (linear VGPR), `a4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match (self.ty, self.linear) {
            (RegType::Sgpr, _) => "s",
            (RegType::Vgpr, true) => "lv",
            (RegType::Vgpr, false) => "v",
            (RegType::Agpr, _) => "a",
        };
        write!(f, "{prefix}{}", self.size)
    }
}

/// A virtual register: an id unique in its function, and a class. Printed `%N:class`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Temp {
    /// The id.
    pub id: u32,
    /// The class.
    pub rc: RegClass,
}

impl fmt::Display for Temp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}:{}", self.id, self.rc)
    }
}

/// A register or register tuple of `size` dwords in LLVM's assembly syntax: `s5`, `s[4:7]`,
/// `v[2:3]`, `vcc_lo` or `vcc` (a wave64 lane mask is 2 dwords), `exec_lo`/`exec`, `m0`, `null`,
/// `scc`.
pub fn reg_name(reg: PhysReg, size: u8) -> String {
    let special = match (reg, size) {
        (PhysReg::VCC, 2) => Some("vcc"),
        (PhysReg::VCC, _) => Some("vcc_lo"),
        (PhysReg::VCC_HI, _) => Some("vcc_hi"),
        (PhysReg::EXEC, 2) => Some("exec"),
        (PhysReg::EXEC, _) => Some("exec_lo"),
        (PhysReg::EXEC_HI, _) => Some("exec_hi"),
        (PhysReg::M0, _) => Some("m0"),
        (PhysReg::NULL, _) => Some("null"),
        (PhysReg::SCC, _) => Some("scc"),
        (PhysReg::SRC_SHARED_BASE, _) => Some("src_shared_base"),
        (PhysReg::SRC_SHARED_LIMIT, _) => Some("src_shared_limit"),
        (PhysReg::SRC_PRIVATE_BASE, _) => Some("src_private_base"),
        (PhysReg::SRC_PRIVATE_LIMIT, _) => Some("src_private_limit"),
        (PhysReg::FLAT_SCRATCH_LO, 2) => Some("flat_scratch"),
        (PhysReg::FLAT_SCRATCH_LO, _) => Some("flat_scratch_lo"),
        (PhysReg::FLAT_SCRATCH_HI, _) => Some("flat_scratch_hi"),
        _ => None,
    };
    if let Some(name) = special {
        return name.to_string();
    }
    let prefix = match reg.reg_type() {
        RegType::Sgpr => "s",
        RegType::Vgpr => "v",
        RegType::Agpr => "a",
    };
    let n = reg.index();
    if size <= 1 {
        format!("{prefix}{n}")
    } else {
        format!("{prefix}[{n}:{}]", n + size as u16 - 1)
    }
}
