//! Encoding facts shared by the encoder, the decoder and the printer: opcode numbers per
//! family, the bit layout of every format, and how registers and constants fill operand fields.
//!
//! Everything here is data taken from llvm-mc-19 (`--show-encoding` with `-mcpu=gfx1100` for
//! [`Family::Gfx11`] and `-mcpu=gfx942` for [`Family::Gfx9`]; where gfx942 differs from gfx900,
//! gfx942 wins). The layouts are written once, as [`Bits`] fields, so the encoder puts and the
//! decoder gets the very same fields. `isa/tests/llvm_mc.rs` re-checks every number and layout
//! against llvm-mc-19 on each test run.

use crate::opcode::{Family, Format, Opcode};
use crate::reg::PhysReg;
use crate::table::{table, ConstType, Enc};

/// A bit field of an instruction dword: `width` bits starting at bit `lo`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    /// The lowest bit.
    pub lo: u8,
    /// The number of bits.
    pub width: u8,
}

impl Bits {
    /// A field of `width` bits at bit `lo`.
    pub const fn new(lo: u8, width: u8) -> Bits {
        Bits { lo, width }
    }

    /// The largest value the field holds.
    pub const fn max(self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1 << self.width) - 1
        }
    }

    /// The field's value in `word`.
    pub const fn get(self, word: u32) -> u32 {
        (word >> self.lo) & self.max()
    }

    /// `value` placed in the field (the caller has checked that it fits).
    pub const fn put(self, value: u32) -> u32 {
        debug_assert!(value <= self.max());
        (value & self.max()) << self.lo
    }

    /// The field's value sign-extended.
    pub const fn get_signed(self, word: u32) -> i32 {
        let shift = 32 - self.width as u32;
        ((self.get(word) << shift) as i32) >> shift
    }

    /// Whether a signed value fits in the field.
    pub const fn fits_signed(self, value: i32) -> bool {
        let half = 1i64 << (self.width - 1);
        -half <= value as i64 && (value as i64) < half
    }
}

/// The bits that identify a format: `bits` holds `value`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Prefix {
    /// Where the prefix is.
    pub bits: Bits,
    /// Its value.
    pub value: u32,
}

impl Prefix {
    const fn new(lo: u8, width: u8, value: u32) -> Prefix {
        Prefix { bits: Bits::new(lo, width), value }
    }

    /// Whether `word` carries this prefix.
    pub const fn matches(self, word: u32) -> bool {
        self.bits.get(word) == self.value
    }

    /// The prefix bits, in place.
    pub const fn word(self) -> u32 {
        self.bits.put(self.value)
    }
}

/// SOP2: `| ssrc0 [7:0] | ssrc1 [15:8] | sdst [22:16] | op [29:23] | 0b10 [31:30] |`
pub mod sop2 {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(30, 2, 0b10);
    /// The opcode.
    pub const OP: Bits = Bits::new(23, 7);
    /// The destination SGPR.
    pub const SDST: Bits = Bits::new(16, 7);
    /// The second source.
    pub const SSRC1: Bits = Bits::new(8, 8);
    /// The first source.
    pub const SSRC0: Bits = Bits::new(0, 8);
}

/// SOPK: `| simm16 [15:0] | sdst [22:16] | op [27:23] | 0b1011 [31:28] |`
pub mod sopk {
    use super::{Bits, Prefix};
    /// The format's prefix (SOP1, SOPC and SOPP take its opcodes 29 to 31).
    pub const PREFIX: Prefix = Prefix::new(28, 4, 0b1011);
    /// The opcode.
    pub const OP: Bits = Bits::new(23, 5);
    /// The SGPR (a destination, or a source for `s_waitcnt_vscnt`).
    pub const SDST: Bits = Bits::new(16, 7);
    /// The immediate.
    pub const SIMM16: Bits = Bits::new(0, 16);
}

/// SOP1: `| ssrc0 [7:0] | op [15:8] | sdst [22:16] | 0b1_0111_1101 [31:23] |`
pub mod sop1 {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(23, 9, 0b1_0111_1101);
    /// The destination SGPR.
    pub const SDST: Bits = Bits::new(16, 7);
    /// The opcode.
    pub const OP: Bits = Bits::new(8, 8);
    /// The source.
    pub const SSRC0: Bits = Bits::new(0, 8);
}

/// SOPC: `| ssrc0 [7:0] | ssrc1 [15:8] | op [22:16] | 0b1_0111_1110 [31:23] |`
pub mod sopc {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(23, 9, 0b1_0111_1110);
    /// The opcode.
    pub const OP: Bits = Bits::new(16, 7);
    /// The second source.
    pub const SSRC1: Bits = Bits::new(8, 8);
    /// The first source.
    pub const SSRC0: Bits = Bits::new(0, 8);
}

/// SOPP: `| simm16 [15:0] | op [22:16] | 0b1_0111_1111 [31:23] |`
pub mod sopp {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(23, 9, 0b1_0111_1111);
    /// The opcode.
    pub const OP: Bits = Bits::new(16, 7);
    /// The immediate.
    pub const SIMM16: Bits = Bits::new(0, 16);
}

/// VOP1: `| src0 [8:0] | op [16:9] | vdst [24:17] | 0b011_1111 [31:25] |`
pub mod vop1 {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(25, 7, 0b011_1111);
    /// The destination VGPR (an SGPR for `v_readfirstlane_b32`).
    pub const VDST: Bits = Bits::new(17, 8);
    /// The opcode.
    pub const OP: Bits = Bits::new(9, 8);
    /// The source.
    pub const SRC0: Bits = Bits::new(0, 9);
}

/// VOPC: `| src0 [8:0] | vsrc1 [16:9] | op [24:17] | 0b011_1110 [31:25] |`
pub mod vopc {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(25, 7, 0b011_1110);
    /// The opcode.
    pub const OP: Bits = Bits::new(17, 8);
    /// The second source (a VGPR).
    pub const VSRC1: Bits = Bits::new(9, 8);
    /// The first source.
    pub const SRC0: Bits = Bits::new(0, 9);
}

/// VOP2: `| src0 [8:0] | vsrc1 [16:9] | vdst [24:17] | op [30:25] | 0 [31] |`
pub mod vop2 {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(31, 1, 0);
    /// The opcode.
    pub const OP: Bits = Bits::new(25, 6);
    /// The destination VGPR.
    pub const VDST: Bits = Bits::new(17, 8);
    /// The second source (a VGPR).
    pub const VSRC1: Bits = Bits::new(9, 8);
    /// The first source.
    pub const SRC0: Bits = Bits::new(0, 9);
}

/// VOP3 (two dwords; VOP3SD, GFX9's VOP3b, has `sdst` where VOP3 has `op_sel` and `abs`):
///
/// ```text
/// word 0: | vdst [7:0] | abs [10:8] | op_sel [14:11] | clamp [15] | op [25:16] | prefix [31:26] |
///         |            |      sdst [14:8]            |            |           |                |
/// word 1: | src0 [8:0] | src1 [17:9] | src2 [26:18] | omod [28:27] | neg [31:29] |
/// ```
///
/// The prefix is 0b110101 on GFX11 and 0b110100 on GFX9.
pub mod vop3 {
    use super::{Bits, Family, Prefix};
    /// The format's prefix in `family`.
    pub const fn prefix(family: Family) -> Prefix {
        match family {
            Family::Gfx11 => Prefix::new(26, 6, 0b11_0101),
            Family::Gfx9 | Family::Gfx90a => Prefix::new(26, 6, 0b11_0100),
        }
    }
    /// The opcode.
    pub const OP: Bits = Bits::new(16, 10);
    /// Clamp.
    pub const CLAMP: Bits = Bits::new(15, 1);
    /// Operand selection (16-bit operations; VOP3 only).
    pub const OPSEL: Bits = Bits::new(11, 4);
    /// Absolute value, one bit per source (VOP3 only).
    pub const ABS: Bits = Bits::new(8, 3);
    /// The scalar destination (VOP3SD only).
    pub const SDST: Bits = Bits::new(8, 7);
    /// The destination: a VGPR, or an SGPR for compares and `v_readlane_b32`.
    pub const VDST: Bits = Bits::new(0, 8);
    /// Negate, one bit per source (second dword).
    pub const NEG: Bits = Bits::new(29, 3);
    /// Output modifier (second dword).
    pub const OMOD: Bits = Bits::new(27, 2);
    /// The third source (second dword).
    pub const SRC2: Bits = Bits::new(18, 9);
    /// The second source (second dword).
    pub const SRC1: Bits = Bits::new(9, 9);
    /// The first source (second dword).
    pub const SRC0: Bits = Bits::new(0, 9);
}

/// The fields of a scalar memory instruction (two dwords) in one family.
#[derive(Copy, Clone, Debug)]
pub struct SmemLayout {
    /// The format's prefix.
    pub prefix: Prefix,
    /// The opcode.
    pub op: Bits,
    /// The data SGPRs.
    pub sdata: Bits,
    /// The base address SGPR pair, halved.
    pub sbase: Bits,
    /// Cache-policy bits in [`crate::mir::CachePolicy`] order (GLC, SLC, DLC), where present.
    pub cpol: [Option<Bits>; 3],
    /// GFX9: the offset field holds an immediate (else an SGPR number).
    pub imm: Option<Bits>,
    /// GFX9: `soffset` holds an SGPR added to the immediate offset.
    pub soe: Option<Bits>,
    /// The offset SGPR (second dword).
    pub soffset: Bits,
    /// The signed byte offset (second dword).
    pub offset: Bits,
}

/// SMEM on GFX11:
///
/// ```text
/// word 0: | sbase [5:0] | sdata [12:6] | dlc [13] | glc [14] | 0 [17:15] | op [25:18] | 0b111101 [31:26] |
/// word 1: | offset [20:0] (signed) | 0 [24:21] | soffset [31:25] (NULL when unused) |
/// ```
pub const SMEM_GFX11: SmemLayout = SmemLayout {
    prefix: Prefix::new(26, 6, 0b11_1101),
    op: Bits::new(18, 8),
    sdata: Bits::new(6, 7),
    sbase: Bits::new(0, 6),
    cpol: [Some(Bits::new(14, 1)), None, Some(Bits::new(13, 1))],
    imm: None,
    soe: None,
    soffset: Bits::new(25, 7),
    offset: Bits::new(0, 21),
};

/// SMEM on GFX9 (gfx942 as gfx900; the offset is 21-bit signed on both):
///
/// ```text
/// word 0: | sbase [5:0] | sdata [12:6] | 0 [13] | soe [14] | nv [15] | glc [16] | imm [17] | op [25:18] | 0b110000 [31:26] |
/// word 1: | offset [20:0] (signed; with imm = 0, an SGPR number) | 0 [24:21] | soffset [31:25] (with soe) |
/// ```
pub const SMEM_GFX9: SmemLayout = SmemLayout {
    prefix: Prefix::new(26, 6, 0b11_0000),
    op: Bits::new(18, 8),
    sdata: Bits::new(6, 7),
    sbase: Bits::new(0, 6),
    cpol: [Some(Bits::new(16, 1)), None, None],
    imm: Some(Bits::new(17, 1)),
    soe: Some(Bits::new(14, 1)),
    soffset: Bits::new(25, 7),
    offset: Bits::new(0, 21),
};

/// The SMEM layout of `family`.
pub const fn smem(family: Family) -> &'static SmemLayout {
    match family {
        Family::Gfx11 => &SMEM_GFX11,
        Family::Gfx9 | Family::Gfx90a => &SMEM_GFX9,
    }
}

/// The fields of a FLAT-format instruction (flat, global and scratch segments), two dwords, in
/// one family.
#[derive(Copy, Clone, Debug)]
pub struct GlobalLayout {
    /// The format's prefix.
    pub prefix: Prefix,
    /// The opcode.
    pub op: Bits,
    /// The segment: 0 flat, 1 scratch, 2 global.
    pub seg: Bits,
    /// Cache-policy bits in [`crate::mir::CachePolicy`] order (GLC/SC0, SLC/NT, DLC/SC1).
    pub cpol: [Option<Bits>; 3],
    /// Unused (GFX9's LDS-DMA bit is gfx940's `sve`, see [`GlobalLayout::sve`]).
    pub lds: Option<Bits>,
    /// The byte offset (signed for global and scratch, unsigned 12-bit for flat).
    pub offset: Bits,
    /// The destination VGPR (second dword).
    pub vdst: Bits,
    /// The scalar base (second dword); [`GlobalLayout::saddr_off`] means none.
    pub saddr: Bits,
    /// The data VGPR (second dword).
    pub data: Bits,
    /// The address VGPR (second dword).
    pub addr: Bits,
    /// The `saddr` value that means `off` (global and scratch).
    pub saddr_off: u32,
    /// The `saddr` value of the flat segment, which has none.
    pub flat_saddr: u32,
    /// Scratch: the VGPR address is used (dword index and bits); None where the address is in
    /// a VGPR exactly when `saddr` is `off` (gfx90a: no SVS or ST mode).
    pub sve: Option<(usize, Bits)>,
    /// gfx90a+: `vdst` and `data` are AGPRs (second dword).
    pub acc: Option<Bits>,
}

/// The FLAT segment field's value for flat.
pub const SEG_FLAT: u32 = 0;
/// The FLAT segment field's value for scratch.
pub const SEG_SCRATCH: u32 = 1;
/// The FLAT segment field's value for global.
pub const SEG_GLOBAL: u32 = 2;

/// FLAT on GFX11 (`off` is NULL, 0x7c; flat has no `saddr` and holds NULL there):
///
/// ```text
/// word 0: | offset [12:0] | dlc [13] | glc [14] | slc [15] | seg [17:16] | op [24:18] | 0 [25] | 0b110111 [31:26] |
/// word 1: | addr [7:0] | data [15:8] | saddr [22:16] | sve [23] | vdst [31:24] |
/// ```
pub const GLOBAL_GFX11: GlobalLayout = GlobalLayout {
    prefix: Prefix::new(26, 6, 0b11_0111),
    op: Bits::new(18, 7),
    seg: Bits::new(16, 2),
    cpol: [Some(Bits::new(14, 1)), Some(Bits::new(15, 1)), Some(Bits::new(13, 1))],
    lds: None,
    offset: Bits::new(0, 13),
    vdst: Bits::new(24, 8),
    saddr: Bits::new(16, 7),
    data: Bits::new(8, 8),
    addr: Bits::new(0, 8),
    saddr_off: 0x7c,
    flat_saddr: 0x7c,
    sve: Some((1, Bits::new(23, 1))),
    acc: None,
};

/// FLAT on gfx940 (SC0/NT/SC1 in GFX9's GLC/SLC bits and bit 25; `off` is 0x7f, flat's
/// `saddr` is 0; bit 13, GFX9's LDS-DMA bit, is scratch's `sve`):
///
/// ```text
/// word 0: | offset [12:0] | sve [13] | seg [15:14] | sc0 [16] | nt [17] | op [24:18] | sc1 [25] | 0b110111 [31:26] |
/// word 1: | addr [7:0] | data [15:8] | saddr [22:16] | acc [23] | vdst [31:24] |
/// ```
pub const GLOBAL_GFX9: GlobalLayout = GlobalLayout {
    prefix: Prefix::new(26, 6, 0b11_0111),
    op: Bits::new(18, 7),
    seg: Bits::new(14, 2),
    cpol: [Some(Bits::new(16, 1)), Some(Bits::new(17, 1)), Some(Bits::new(25, 1))],
    lds: None,
    offset: Bits::new(0, 13),
    vdst: Bits::new(24, 8),
    saddr: Bits::new(16, 7),
    data: Bits::new(8, 8),
    addr: Bits::new(0, 8),
    saddr_off: 0x7f,
    flat_saddr: 0,
    sve: Some((0, Bits::new(13, 1))),
    acc: Some(Bits::new(23, 1)),
};

/// FLAT on gfx90a: gfx940's layout (bits 16, 17 and 25 are GLC, SLC and SCC, gfx940's SC0, NT
/// and SC1), but a scratch access has no `sve` bit: its VGPR address is used when `saddr` is
/// `off` (0x7f), ignored otherwise.
pub const GLOBAL_GFX90A: GlobalLayout = GlobalLayout { sve: None, ..GLOBAL_GFX9 };

/// The cache-policy bits a FLAT, GLOBAL or SCRATCH operation of layout `l` takes: the
/// layout's, without SCC for gfx90a's float atomics (`noscc`: llvm-mc-19 takes `scc` there but
/// encodes nothing, and its disassembler refuses the bit).
pub fn flat_cpol_fields(l: &GlobalLayout, info: &crate::table::OpInfo) -> [Option<Bits>; 3] {
    let [sc0, nt, sc1] = l.cpol;
    [sc0, nt, sc1.filter(|_| !info.flags.noscc)]
}

/// The FLAT layout of `family`.
pub const fn global(family: Family) -> &'static GlobalLayout {
    match family {
        Family::Gfx11 => &GLOBAL_GFX11,
        Family::Gfx9 => &GLOBAL_GFX9,
        Family::Gfx90a => &GLOBAL_GFX90A,
    }
}

/// VOP3P (two dwords; the prefix is 0b11001100 in bits 31:24 on GFX11 and 0b110100111 in
/// bits 31:23 on GFX9, where VOP3P is the top of the VOP3 opcode space):
///
/// ```text
/// word 0: | vdst [7:0] | neg_hi [10:8] | op_sel [13:11] | op_sel_hi[2] [14] | clamp [15] | op [22:16] | prefix |
/// word 1: | src0 [8:0] | src1 [17:9] | src2 [26:18] | op_sel_hi[1:0] [28:27] | neg_lo [31:29] |
/// ```
pub mod vop3p {
    use super::{Bits, Family, Prefix};
    /// The format's prefix in `family`.
    pub const fn prefix(family: Family) -> Prefix {
        match family {
            Family::Gfx11 => Prefix::new(24, 8, 0b1100_1100),
            Family::Gfx9 | Family::Gfx90a => Prefix::new(23, 9, 0b1_1010_0111),
        }
    }
    /// The opcode.
    pub const OP: Bits = Bits::new(16, 7);
    /// Clamp.
    pub const CLAMP: Bits = Bits::new(15, 1);
    /// The third source's op_sel_hi bit.
    pub const OPSEL_HI2: Bits = Bits::new(14, 1);
    /// Operand selection.
    pub const OPSEL: Bits = Bits::new(11, 3);
    /// Negate the high halves.
    pub const NEG_HI: Bits = Bits::new(8, 3);
    /// The destination.
    pub const VDST: Bits = Bits::new(0, 8);
    /// Negate the low halves (second dword).
    pub const NEG_LO: Bits = Bits::new(29, 3);
    /// The first two sources' op_sel_hi bits (second dword).
    pub const OPSEL_HI: Bits = Bits::new(27, 2);
}

/// VOP3P-MAI, GFX9's matrix instructions (same prefix and opcode space as VOP3P):
///
/// ```text
/// word 0: | vdst [7:0] | cbsz [10:8] | abid [14:11] | acc_cd [15] | op [22:16] | prefix |
/// word 1: | src0 [8:0] | src1 [17:9] | src2 [26:18] | acc [28:27] (src0, src1 AGPRs) | blgp [31:29] |
/// ```
pub mod mai {
    use super::Bits;
    /// The destination and `src2` are AGPRs.
    pub const ACC_CD: Bits = Bits::new(15, 1);
    /// Which block of A is broadcast.
    pub const ABID: Bits = Bits::new(11, 4);
    /// The broadcast size of A.
    pub const CBSZ: Bits = Bits::new(8, 3);
    /// The lane pattern of B (second dword).
    pub const BLGP: Bits = Bits::new(29, 3);
    /// `src0` and `src1` are AGPRs, bit per source (second dword).
    pub const ACC: Bits = Bits::new(27, 2);
}

/// VOPD, GFX11's dual issue (two dwords, a literal shared by both halves):
///
/// ```text
/// word 0: | src0x [8:0] | vsrc1x [16:9] | opy [21:17] | opx [25:22] | 0b110010 [31:26] |
/// word 1: | src0y [8:0] | vsrc1y [16:9] | vdsty >> 1 [23:17] | vdstx [31:24] |
/// ```
///
/// `vdsty`'s lowest bit is the opposite of `vdstx`'s: the two results sit in different banks.
pub mod vopd {
    use super::{Bits, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(26, 6, 0b11_0010);
    /// The X opcode.
    pub const OPX: Bits = Bits::new(22, 4);
    /// The Y opcode.
    pub const OPY: Bits = Bits::new(17, 5);
    /// X's second source (a VGPR).
    pub const VSRC1X: Bits = Bits::new(9, 8);
    /// X's first source.
    pub const SRC0X: Bits = Bits::new(0, 9);
    /// X's destination (second dword).
    pub const VDSTX: Bits = Bits::new(24, 8);
    /// Y's destination, halved (second dword).
    pub const VDSTY: Bits = Bits::new(17, 7);
    /// Y's second source (second dword).
    pub const VSRC1Y: Bits = Bits::new(9, 8);
    /// Y's first source (second dword).
    pub const SRC0Y: Bits = Bits::new(0, 9);
}

/// The fields of a DS instruction (two dwords) in one family.
#[derive(Copy, Clone, Debug)]
pub struct DsLayout {
    /// The format's prefix.
    pub prefix: Prefix,
    /// The opcode.
    pub op: Bits,
    /// GDS instead of LDS.
    pub gds: Bits,
    /// gfx90a+: `vdst` and the data are AGPRs.
    pub acc: Option<Bits>,
    /// The 16-bit offset (or `offset1:offset0`).
    pub offset: Bits,
    /// The address VGPR (second dword).
    pub addr: Bits,
    /// The first data VGPR (second dword).
    pub data0: Bits,
    /// The second data VGPR (second dword).
    pub data1: Bits,
    /// The destination VGPR (second dword).
    pub vdst: Bits,
}

/// DS on GFX11:
///
/// ```text
/// word 0: | offset0 [7:0] | offset1 [15:8] | 0 [16] | gds [17] | op [25:18] | 0b110110 [31:26] |
/// word 1: | addr [7:0] | data0 [15:8] | data1 [23:16] | vdst [31:24] |
/// ```
pub const DS_GFX11: DsLayout = DsLayout {
    prefix: Prefix::new(26, 6, 0b11_0110),
    op: Bits::new(18, 8),
    gds: Bits::new(17, 1),
    acc: None,
    offset: Bits::new(0, 16),
    addr: Bits::new(0, 8),
    data0: Bits::new(8, 8),
    data1: Bits::new(16, 8),
    vdst: Bits::new(24, 8),
};

/// DS on GFX9 (gfx940: the AGPR bit 25):
///
/// ```text
/// word 0: | offset0 [7:0] | offset1 [15:8] | gds [16] | op [24:17] | acc [25] | 0b110110 [31:26] |
/// word 1: | addr [7:0] | data0 [15:8] | data1 [23:16] | vdst [31:24] |
/// ```
pub const DS_GFX9: DsLayout = DsLayout {
    prefix: Prefix::new(26, 6, 0b11_0110),
    op: Bits::new(17, 8),
    gds: Bits::new(16, 1),
    acc: Some(Bits::new(25, 1)),
    offset: Bits::new(0, 16),
    addr: Bits::new(0, 8),
    data0: Bits::new(8, 8),
    data1: Bits::new(16, 8),
    vdst: Bits::new(24, 8),
};

/// The DS layout of `family`.
pub const fn ds(family: Family) -> &'static DsLayout {
    match family {
        Family::Gfx11 => &DS_GFX11,
        Family::Gfx9 | Family::Gfx90a => &DS_GFX9,
    }
}

/// The offset fields of a two-address DS access (`ds_load_2addr_b32`, gfx942's `ds_read2_b32`,
/// and the like): see [`ds_pair_offsets`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DsPairOffsets {
    /// The instruction's offset field, `offset0 | offset1 << 8`.
    pub field: i32,
    /// The offsets count 64 elements (the `stride64` forms, gfx942's `st64`).
    pub stride64: bool,
}

/// The offset fields of a two-address DS access whose elements of `elem_bytes` (4 or 8) lie
/// at byte offsets `first` and `second` from its address: each field is 8 bits (`offset0`,
/// `offset1`) counted in elements, or in units of 64 elements in the stride-64 forms (both
/// families, as the ISA manuals' `ADDR + OFFSET0 * 4` and `* 256` for `_b32`). None when the
/// offsets are equal, not multiples of the element, or beyond both forms.
pub fn ds_pair_offsets(first: u32, second: u32, elem_bytes: u32) -> Option<DsPairOffsets> {
    let max = u32::from(u8::MAX);
    if first == second || !first.is_multiple_of(elem_bytes) || !second.is_multiple_of(elem_bytes) {
        return None;
    }
    let [a, b] = [first / elem_bytes, second / elem_bytes];
    let fields = |a: u32, b: u32| (a <= max && b <= max).then_some((a | b << 8) as i32);
    if let Some(field) = fields(a, b) {
        return Some(DsPairOffsets { field, stride64: false });
    }
    if !a.is_multiple_of(64) || !b.is_multiple_of(64) {
        return None;
    }
    fields(a / 64, b / 64).map(|field| DsPairOffsets { field, stride64: true })
}

/// MUBUF, only its cache-control instructions (no operands; two dwords, the second 0):
/// `| 0 [13:0] | sc0 [14] | sc1 [15] (gfx940) | op [24:18] (GFX11 [25:18]) | 0b111000 [31:26] |`
pub mod mubuf {
    use super::{Bits, Family, Prefix};
    /// The format's prefix.
    pub const PREFIX: Prefix = Prefix::new(26, 6, 0b11_1000);
    /// The opcode in `family`.
    pub const fn op(family: Family) -> Bits {
        match family {
            Family::Gfx11 => Bits::new(18, 8),
            Family::Gfx9 | Family::Gfx90a => Bits::new(18, 7),
        }
    }
    /// gfx940 cache-policy bits in [`crate::mir::CachePolicy`] order (SC0, NT, SC1). llvm-mc-19
    /// accepts `nt` on `buffer_wbl2` and `buffer_inv` but encodes nothing for it: gcnc refuses it.
    pub const CPOL_GFX9: [Option<Bits>; 3] = [Some(Bits::new(14, 1)), None, Some(Bits::new(15, 1))];
}

/// The DPP16 dword that follows a VOP1, VOP2 or VOPC word whose `src0` is [`SRC_DPP16`] (and a
/// GFX11 VOP3's second word):
///
/// ```text
/// | src0 [7:0] | dpp_ctrl [16:8] | 0 [17] | fi [18] | bound_ctrl [19] | src0_neg [20] | src0_abs [21] |
/// | src1_neg [22] | src1_abs [23] | bank_mask [27:24] | row_mask [31:28] |
/// ```
pub mod dpp16 {
    use super::Bits;
    /// The source VGPR.
    pub const SRC0: Bits = Bits::new(0, 8);
    /// The lane control.
    pub const CTRL: Bits = Bits::new(8, 9);
    /// Fetch inactive lanes.
    pub const FI: Bits = Bits::new(18, 1);
    /// Read 0 from invalid lanes.
    pub const BOUND_CTRL: Bits = Bits::new(19, 1);
    /// Negate, bit per source (bits 20 and 22).
    pub const NEG: [Bits; 2] = [Bits::new(20, 1), Bits::new(22, 1)];
    /// Absolute value, bit per source (bits 21 and 23).
    pub const ABS: [Bits; 2] = [Bits::new(21, 1), Bits::new(23, 1)];
    /// Banks written.
    pub const BANK_MASK: Bits = Bits::new(24, 4);
    /// Rows written.
    pub const ROW_MASK: Bits = Bits::new(28, 4);
}

/// The DPP8 dword (GFX10+): `| src0 [7:0] | lane selects, 3 bits each [31:8] |`; `src0` of the
/// instruction word is [`SRC_DPP8`] or, with `fi`, [`SRC_DPP8_FI`].
pub mod dpp8 {
    use super::Bits;
    /// The source VGPR.
    pub const SRC0: Bits = Bits::new(0, 8);
    /// The lane selects.
    pub const SEL: Bits = Bits::new(8, 24);
}

/// The SDWA dword (GFX9) that follows a VOP1, VOP2 or VOPC word whose `src0` is [`SRC_SDWA`]:
///
/// ```text
/// | src0 [7:0] | dst_sel [10:8] | dst_unused [12:11] | clamp [13] | omod [15:14] |     (VOPC: sdst [14:8], sd [15])
/// | src0_sel [18:16] | src0_sext [19] | src0_neg [20] | src0_abs [21] | 0 [22] | src0 is scalar [23] |
/// | src1_sel [26:24] | src1_sext [27] | src1_neg [28] | src1_abs [29] | 0 [30] | src1 is scalar [31] |
/// ```
pub mod sdwa {
    use super::Bits;
    /// The first source (a VGPR, or a scalar field value with `S0`).
    pub const SRC0: Bits = Bits::new(0, 8);
    /// The result's select.
    pub const DST_SEL: Bits = Bits::new(8, 3);
    /// What becomes of the unselected result bits.
    pub const DST_UNUSED: Bits = Bits::new(11, 2);
    /// Clamp.
    pub const CLAMP: Bits = Bits::new(13, 1);
    /// Output modifier.
    pub const OMOD: Bits = Bits::new(14, 2);
    /// VOPC: the scalar destination.
    pub const SDST: Bits = Bits::new(8, 7);
    /// VOPC: `sdst` is used (else VCC).
    pub const SD: Bits = Bits::new(15, 1);
    /// Source selects.
    pub const SEL: [Bits; 2] = [Bits::new(16, 3), Bits::new(24, 3)];
    /// Source sign extension.
    pub const SEXT: [Bits; 2] = [Bits::new(19, 1), Bits::new(27, 1)];
    /// Source negation.
    pub const NEG: [Bits; 2] = [Bits::new(20, 1), Bits::new(28, 1)];
    /// Source absolute value.
    pub const ABS: [Bits; 2] = [Bits::new(21, 1), Bits::new(29, 1)];
    /// The source is an SGPR or a constant, not a VGPR.
    pub const SCALAR: [Bits; 2] = [Bits::new(23, 1), Bits::new(31, 1)];
}

/// The `src0` value that says "a DPP16 dword follows".
pub const SRC_DPP16: u32 = 0xfa;
/// The `src0` value that says "a DPP8 dword follows" (GFX10+).
pub const SRC_DPP8: u32 = 0xe9;
/// The `src0` value of DPP8 with `fi` (GFX10+).
pub const SRC_DPP8_FI: u32 = 0xea;
/// The `src0` value that says "an SDWA dword follows" (GFX9).
pub const SRC_SDWA: u32 = 0xf9;

/// The operand-field value that says "a 32-bit literal follows the instruction".
pub const LITERAL: u32 = 255;

/// The first VGPR in a 9-bit source field.
pub const SRC_VGPR0: u32 = 256;

/// The field value of a scalar register (SGPRs, VCC, M0, NULL, EXEC) in `family`, as the 7-,
/// 8- and 9-bit operand fields hold it. GFX11 swaps M0 and NULL (M0 = 125, NULL = 124);
/// GFX9 has M0 at 124 and no NULL register, and its SGPRs end at s101.
pub fn sreg_field(reg: PhysReg, family: Family) -> Option<u32> {
    match reg {
        // GFX9's fields 104-105 are XNACK_MASK, which gcnc does not name; 102-103 are
        // FLAT_SCRATCH (GFX11's s102-s103).
        r if r.is_plain_sgpr() && family.is_gfx9() && r.0 > 101 => None,
        r if r.is_plain_sgpr() => Some(r.0 as u32),
        PhysReg::FLAT_SCRATCH_LO if family.is_gfx9() => Some(102),
        PhysReg::FLAT_SCRATCH_HI if family.is_gfx9() => Some(103),
        PhysReg::VCC | PhysReg::VCC_HI | PhysReg::EXEC | PhysReg::EXEC_HI => Some(reg.0 as u32),
        PhysReg::M0 => Some(match family {
            Family::Gfx11 => 125,
            Family::Gfx9 | Family::Gfx90a => 124,
        }),
        PhysReg::NULL => match family {
            Family::Gfx11 => Some(124),
            Family::Gfx9 | Family::Gfx90a => None,
        },
        _ => None,
    }
}

/// The source-field value of an aperture register (`src_shared_base` 235 to
/// `src_private_limit` 238, GFX9 and later), which only a source field can name.
pub fn aperture_field(reg: PhysReg) -> Option<u32> {
    (PhysReg::SRC_SHARED_BASE.0..=PhysReg::SRC_PRIVATE_LIMIT.0).contains(&reg.0).then_some(u32::from(reg.0))
}

/// The scalar register a field value below 128 names in `family` (trap temporaries and
/// reserved values give `None`).
pub fn field_sreg(value: u32, family: Family) -> Option<PhysReg> {
    match (value, family) {
        (0..=101, _) | (102..=105, Family::Gfx11) => Some(PhysReg::sgpr(value as u16)),
        (102, Family::Gfx9 | Family::Gfx90a) => Some(PhysReg::FLAT_SCRATCH_LO),
        (103, Family::Gfx9 | Family::Gfx90a) => Some(PhysReg::FLAT_SCRATCH_HI),
        (106 | 107 | 126 | 127, _) => Some(PhysReg(value as u16)),
        (124, Family::Gfx11) => Some(PhysReg::NULL),
        (125, Family::Gfx11) | (124, Family::Gfx9 | Family::Gfx90a) => Some(PhysReg::M0),
        _ => None,
    }
}

/// The float inline constants (fields 240..=248: 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0,
/// 1/(2π)) as f32 bit patterns.
const F32_FLOATS: [u64; 9] = [
    0x3f00_0000,
    0xbf00_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0xc000_0000,
    0x4080_0000,
    0xc080_0000,
    0x3e22_f983,
];

/// The same as f16 bit patterns.
const F16_FLOATS: [u64; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];

/// The same as bf16 bit patterns.
const BF16_FLOATS: [u64; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];

/// The same as f64 bit patterns (1/(2π) is 0.15915494309189532, all 64 bits of it).
const F64_FLOATS: [u64; 9] = [
    0x3fe0_0000_0000_0000,
    0xbfe0_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xc000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xc010_0000_0000_0000,
    0x3fc4_5f30_6dc9_c882,
];

/// The opcode number of `op` in its native format in `family` (`None` for pseudo-instructions
/// and operations the family lacks).
pub fn opcode_number(op: Opcode, family: Family) -> Option<u16> {
    table(family).get(op).map(|i| i.number)
}

/// Where the VOP3 opcode space puts the `_e64` forms of the smaller formats: VOPC at 0, VOP2
/// at 0x100, VOP1 at 0x180 on GFX11 and 0x140 on GFX9; native VOP3 opcodes come after.
const fn vop3_base(format: Format, family: Family) -> Option<u16> {
    match (format, family) {
        (Format::Vopc, _) => Some(0),
        (Format::Vop2, _) => Some(0x100),
        (Format::Vop1, Family::Gfx11) => Some(0x180),
        (Format::Vop1, Family::Gfx9 | Family::Gfx90a) => Some(0x140),
        (Format::Vop3 | Format::Vop3sd, _) => Some(0),
        _ => None,
    }
}

/// The VOP3 opcode number of `op` in `family`: its `_e64` form for VOP1, VOP2 and VOPC
/// operations that have one, its own number for VOP3 ones.
pub fn vop3_number(op: Opcode, family: Family) -> Option<u16> {
    let info = table(family).get(op)?;
    let format = info.enc.format();
    if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc) && !info.flags.e64 {
        return None;
    }
    Some(vop3_base(format, family)? + info.number)
}

/// The operation with opcode `number` in format `format` of `family`. For [`Format::Vop3`],
/// `number` is a VOP3 opcode number, which also names the `_e64` forms of VOP1, VOP2 and
/// VOPC operations and the VOP3SD operations. For [`Format::Vop3p`] on GFX9 it is the VOP3P
/// number (the VOP3 number less 0x380); matrix operations are found too.
pub fn opcode_at(family: Family, format: Format, number: u16) -> Option<Opcode> {
    let t = table(family);
    let enc = |e: Enc| t.at(e, number).map(|i| i.opcode);
    match format {
        Format::Vop3 => {
            let e64 = |e: Enc, f: Format| {
                let base = vop3_base(f, family)?;
                let i = t.at(e, number.checked_sub(base)?)?;
                i.flags.e64.then_some(i.opcode)
            };
            enc(Enc::Vop3)
                .or_else(|| enc(Enc::Vop3sd))
                .or_else(|| if number < 0x100 { e64(Enc::Vopc, Format::Vopc) } else { None })
                .or_else(|| if (0x100..0x140).contains(&number) { e64(Enc::Vop2, Format::Vop2) } else { None })
                .or_else(|| if number >= 0x140 { e64(Enc::Vop1, Format::Vop1) } else { None })
        }
        Format::Vop3p => enc(Enc::Vop3p).or_else(|| enc(Enc::Mai)),
        _ => t.ops.iter().find(|i| i.enc.format() == format && i.number == number).map(|i| i.opcode),
    }
}

/// The default `op_sel_hi` bits of a VOP3P operation (what the assembly leaves out): all set,
/// except for the mixed-precision `v_fma_mix*` operations, where they are 0.
pub fn default_opsel_hi(op: Opcode, family: Family) -> u8 {
    crate::table::opsel_hi_default(op.name(family))
}

/// The values the float inline-constant fields (240..=248) stand for in a source of `ctype`,
/// in field order, as the encoder writes them: the f32 patterns for 32-bit and packed-f32
/// sources, f16 for f16 and packed f16, bf16 for bf16, and the f64 patterns for every 64-bit
/// source, integer ones included (llvm-mc-19 writes `0.5` on `v_mov_b64` and `s_mov_b64` as
/// field 240, and its disassembler reads a 64-bit source's float constant as the double). 16-bit
/// integer sources have none: llvm-mc-19 encodes `0x3c00` there as a literal, and its
/// disassembler prints the inline constant 1.0 of such a source as `0x3c00` (see
/// [`decoded_inline_floats`]); matrix accumulators (`Ic`) have none either.
pub fn inline_floats(ctype: ConstType) -> Option<[u64; 9]> {
    match ctype {
        ConstType::I16 => None,
        _ => decoded_inline_floats(ctype),
    }
}

/// The values the float inline-constant fields stand for in a source of `ctype` when
/// decoding: [`inline_floats`], and for 16-bit integers the f16 patterns.
pub fn decoded_inline_floats(ctype: ConstType) -> Option<[u64; 9]> {
    Some(match ctype {
        ConstType::B32 | ConstType::Pf32 => F32_FLOATS,
        ConstType::F16 | ConstType::I16 | ConstType::Pf16 => F16_FLOATS,
        ConstType::Bf16 => BF16_FLOATS,
        ConstType::F64 | ConstType::B64 => F64_FLOATS,
        ConstType::Ic => return None,
    })
}

/// Whether a literal of `ctype` is 16 bits wide (the value must fit).
pub fn literal_is_16_bit(ctype: ConstType) -> bool {
    matches!(ctype, ConstType::F16 | ConstType::I16 | ConstType::Bf16)
}

/// The integer an integer inline constant could stand for as `value` in a source of `ctype`:
/// the value at the source's width, read as signed (16-bit types also take 16-bit values,
/// `0xffff` for -1). `None` when the value is wider than the source.
fn as_inline_int(value: u64, ctype: ConstType) -> Option<i64> {
    if ctype.is_64_bit() {
        Some(value as i64)
    } else if literal_is_16_bit(ctype) && value <= 0xffff {
        Some(i64::from(value as u16 as i16))
    } else {
        u32::try_from(value).ok().map(|v| i64::from(v as i32))
    }
}

/// The inline-constant field value for the constant `value` in a source of type `ctype`, if it
/// has one: the integers -16..=64 at the source's width (`u64::MAX` is -1 in a 64-bit source,
/// `0xffff_ffff` in a 32-bit one) and the float constants of the type ([`inline_floats`]).
pub fn inline_field_typed(value: u64, ctype: ConstType) -> Option<u32> {
    match as_inline_int(value, ctype)? {
        int @ 0..=64 => return Some(128 + int as u32),
        int @ -16..=-1 => return Some((192 - int) as u32),
        _ => {}
    }
    inline_floats(ctype)?.iter().position(|&bits| bits == value).map(|i| 240 + i as u32)
}

/// The constant an inline-constant field value stands for in a source of type `ctype`, if it
/// is one the type has: integers sign-extended to the source's width (32 bits for 16-bit
/// types, which read the low half), floats as [`decoded_inline_floats`] says.
pub fn inline_value_typed(field: u32, ctype: ConstType) -> Option<u64> {
    match (inline_integer(field), field) {
        (Some(i), _) if ctype.is_64_bit() => Some(i as i64 as u64),
        (Some(i), _) => Some(u64::from(i as u32)),
        (None, 240..=248) => decoded_inline_floats(ctype).map(|f| f[(field - 240) as usize]),
        _ => None,
    }
}

/// The integer of an integer inline-constant field value (128..=208: 0..=64, then -1..=-16).
pub fn inline_integer(field: u32) -> Option<i32> {
    match field {
        128..=192 => Some(field as i32 - 128),
        193..=208 => Some(192 - field as i32),
        _ => None,
    }
}

/// The value a source of type `ctype` reads from the literal dword `literal`: an f64 source
/// reads it as its high dword (the low dword zero), a 64-bit integer source zero-extended,
/// any other source as it is.
///
/// The sources disagree on 64-bit integers; gcnc sides with zero extension. LLVM's code
/// generator writes a 64-bit immediate as a 32-bit literal only when it fits unsigned
/// (`isUInt<32>` in SIInstrInfo's expansion of `S_MOV_B64_IMM_PSEUDO` and `V_MOV_B64`), and
/// its disassembler prints the literal 0x80000000 of `s_mov_b64` as `0x80000000`; but llvm-mc-19
/// also takes `0xffffffff80000000` there and writes that same literal, as if the hardware
/// sign-extended it (llvm-project pull request 68740: "a 64-bit literal can be used as a
/// 32-bit zero or sign extended operand").
pub fn literal_value(literal: u32, ctype: ConstType) -> u64 {
    match ctype {
        ConstType::F64 => u64::from(literal) << 32,
        _ => u64::from(literal),
    }
}

/// The literal dword a source of type `ctype` reads as `value` ([`literal_value`]), or why
/// there is none.
pub fn literal_for(value: u64, ctype: ConstType) -> Result<u32, &'static str> {
    match ctype {
        ConstType::F64 if value as u32 != 0 => Err("an f64 literal is the high dword: the low one must be 0"),
        ConstType::F64 => Ok((value >> 32) as u32),
        _ if literal_is_16_bit(ctype) && value > 0xffff => Err("a 16-bit operand's literal has 16 bits"),
        ConstType::B64 => u32::try_from(value).map_err(|_| "a 64-bit integer's literal is 32 bits, zero-extended"),
        _ => u32::try_from(value).map_err(|_| "the constant is wider than the operand"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_numbers_are_unique_per_format() {
        for family in [Family::Gfx9, Family::Gfx11] {
            for &op in Opcode::ALL {
                if let Some(n) = opcode_number(op, family) {
                    assert_eq!(opcode_at(family, op.format(family), n), Some(op), "{op:?} {family:?}");
                    if let Some(v) = vop3_number(op, family) {
                        assert_eq!(opcode_at(family, Format::Vop3, v), Some(op), "{op:?} {family:?} e64");
                    }
                }
                assert_eq!(opcode_number(op, family).is_some(), op.exists_in(family) && !op.is_pseudo());
            }
        }
    }

    #[test]
    fn inline_constants_round_trip() {
        use ConstType::*;
        for ctype in [B32, F16, I16, Bf16, F64, B64, Pf16, Pf32, Ic] {
            for field in (128..=208).chain(240..=248) {
                let Some(v) = inline_value_typed(field, ctype) else {
                    assert!(field >= 240 && matches!(ctype, Ic), "{field} {ctype:?}");
                    continue;
                };
                // A 16-bit integer source reads 1.0 from field 242, but 0x3c00 is its literal.
                let expected = if ctype == I16 && field >= 240 { None } else { Some(field) };
                assert_eq!(inline_field_typed(v, ctype), expected, "{field} {ctype:?}");
            }
        }
        assert_eq!(inline_value_typed(193, B32), Some(0xffff_ffff));
        assert_eq!(inline_value_typed(193, B64), Some(u64::MAX));
        assert_eq!(inline_value_typed(243, B64), Some((-1.0f64).to_bits()));
        assert_eq!(inline_value_typed(248, F64), Some(0.15915494309189532f64.to_bits()));
        assert_eq!(inline_value_typed(243, Pf32), Some(u64::from((-1.0f32).to_bits())));
        assert_eq!(inline_field_typed(65, B32), None);
        assert_eq!(inline_field_typed(-17i32 as u32 as u64, B32), None);
        assert_eq!(inline_field_typed(u64::MAX, B32), None, "wider than the source");
    }

    /// A literal in a 64-bit source: zero-extended for an integer, the high dword of an f64;
    /// the inline constant -1 and the literal 0xffffffff are different values.
    #[test]
    fn literals_of_64_bit_sources() {
        assert_eq!(literal_value(0xffff_ffff, ConstType::B64), 0xffff_ffff);
        assert_eq!(inline_field_typed(0xffff_ffff, ConstType::B64), None);
        assert_eq!(literal_for(0xffff_ffff, ConstType::B64), Ok(0xffff_ffff));
        assert_eq!(inline_field_typed(0xffff_ffff, ConstType::B32), Some(193));
        assert_eq!(literal_value(0x4008_0000, ConstType::F64), 3.0f64.to_bits());
        assert_eq!(literal_for(3.0f64.to_bits(), ConstType::F64), Ok(0x4008_0000));
        assert!(literal_for(0.1f64.to_bits(), ConstType::F64).is_err());
        assert!(literal_for(1 << 32, ConstType::B64).is_err());
        assert!(literal_for(0x1_0000, ConstType::F16).is_err());
        // An f32 pattern is a plain literal in a 64-bit integer source.
        assert_eq!(inline_field_typed(0x3f80_0000, ConstType::B64), None);
        assert_eq!(inline_field_typed(0x3f80_0000, ConstType::Pf32), Some(242));
    }

    #[test]
    fn bits_sign_extend() {
        let b = Bits::new(0, 13);
        assert_eq!(b.get_signed(0x1fff), -1);
        assert_eq!(b.get_signed(0x0fff), 4095);
        assert!(b.fits_signed(-4096) && !b.fits_signed(4096));
    }

    /// The two-address DS offsets: in elements up to 255, else in 64 elements (stride-64),
    /// else none; equal and misaligned offsets never pair.
    #[test]
    fn ds_pair_offset_fields() {
        let f = |a, b, e| ds_pair_offsets(a, b, e).map(|o| (o.field, o.stride64));
        assert_eq!(f(0, 4, 4), Some((1 << 8, false)));
        assert_eq!(f(1020, 8, 4), Some((255 | 2 << 8, false)));
        assert_eq!(f(0, 2040, 8), Some((255 << 8, false)));
        assert_eq!(f(0, 1024, 4), Some((4 << 8, true)));
        assert_eq!(f(4096, 0, 8), Some((8, true)));
        assert_eq!(f(255 * 256, 0, 4), Some((255, true)));
        assert_eq!(f(256 * 256, 0, 4), None);
        assert_eq!(f(0, 1028, 4), None);
        assert_eq!(f(0, 6, 4), None);
        assert_eq!(f(4, 12, 8), None);
        assert_eq!(f(8, 8, 4), None);
    }
}
