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

/// A bit field of an instruction dword: `width` bits starting at bit `lo`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    /// The lowest bit.
    pub lo: u8,
    /// The number of bits.
    pub width: u8,
}

impl Bits {
    const fn new(lo: u8, width: u8) -> Bits {
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
            Family::Gfx9 => Prefix::new(26, 6, 0b11_0100),
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
        Family::Gfx9 => &SMEM_GFX9,
    }
}

/// The fields of a FLAT-format (global segment) instruction, two dwords, in one family.
#[derive(Copy, Clone, Debug)]
pub struct GlobalLayout {
    /// The format's prefix.
    pub prefix: Prefix,
    /// The opcode.
    pub op: Bits,
    /// The segment: 2 is global.
    pub seg: Bits,
    /// Cache-policy bits in [`crate::mir::CachePolicy`] order (GLC/SC0, SLC/NT, DLC/SC1).
    pub cpol: [Option<Bits>; 3],
    /// GFX9: the LDS-DMA bit (must be 0 here).
    pub lds: Option<Bits>,
    /// The signed byte offset.
    pub offset: Bits,
    /// The destination VGPR (second dword).
    pub vdst: Bits,
    /// The scalar base (second dword); [`GlobalLayout::saddr_off`] means none.
    pub saddr: Bits,
    /// The data VGPR (second dword).
    pub data: Bits,
    /// The address VGPR (second dword).
    pub addr: Bits,
    /// The `saddr` value that means `off`.
    pub saddr_off: u32,
}

/// The FLAT segment field's value for global.
pub const SEG_GLOBAL: u32 = 2;

/// GLOBAL on GFX11 (`off` is NULL, 0x7c):
///
/// ```text
/// word 0: | offset [12:0] (signed) | dlc [13] | glc [14] | slc [15] | seg [17:16] | op [24:18] | 0 [25] | 0b110111 [31:26] |
/// word 1: | addr [7:0] | data [15:8] | saddr [22:16] | 0 [23] | vdst [31:24] |
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
};

/// GLOBAL on GFX9 (gfx942's SC0/NT/SC1 in GFX9's GLC/SLC bits and bit 25; `off` is 0x7f):
///
/// ```text
/// word 0: | offset [12:0] (signed) | lds [13] | seg [15:14] | sc0 [16] | nt [17] | op [24:18] | sc1 [25] | 0b110111 [31:26] |
/// word 1: | addr [7:0] | data [15:8] | saddr [22:16] | nv [23] | vdst [31:24] |
/// ```
pub const GLOBAL_GFX9: GlobalLayout = GlobalLayout {
    prefix: Prefix::new(26, 6, 0b11_0111),
    op: Bits::new(18, 7),
    seg: Bits::new(14, 2),
    cpol: [Some(Bits::new(16, 1)), Some(Bits::new(17, 1)), Some(Bits::new(25, 1))],
    lds: Some(Bits::new(13, 1)),
    offset: Bits::new(0, 13),
    vdst: Bits::new(24, 8),
    saddr: Bits::new(16, 7),
    data: Bits::new(8, 8),
    addr: Bits::new(0, 8),
    saddr_off: 0x7f,
};

/// The GLOBAL layout of `family`.
pub const fn global(family: Family) -> &'static GlobalLayout {
    match family {
        Family::Gfx11 => &GLOBAL_GFX11,
        Family::Gfx9 => &GLOBAL_GFX9,
    }
}

/// The operand-field value that says "a 32-bit literal follows the instruction".
pub const LITERAL: u32 = 255;

/// The first VGPR in a 9-bit source field.
pub const SRC_VGPR0: u32 = 256;

/// The field value of a scalar register (SGPRs, VCC, M0, NULL, EXEC) in `family`, as the 7-,
/// 8- and 9-bit operand fields hold it. GFX11 swaps M0 and NULL (M0 = 125, NULL = 124);
/// GFX9 has M0 at 124 and no NULL register.
pub fn sreg_field(reg: PhysReg, family: Family) -> Option<u32> {
    match reg {
        r if r.is_plain_sgpr() => Some(r.0 as u32),
        PhysReg::VCC | PhysReg::VCC_HI | PhysReg::EXEC | PhysReg::EXEC_HI => Some(reg.0 as u32),
        PhysReg::M0 => Some(match family {
            Family::Gfx11 => 125,
            Family::Gfx9 => 124,
        }),
        PhysReg::NULL => match family {
            Family::Gfx11 => Some(124),
            Family::Gfx9 => None,
        },
        _ => None,
    }
}

/// The scalar register a field value below 128 names in `family` (trap temporaries and
/// reserved values give `None`).
pub fn field_sreg(value: u32, family: Family) -> Option<PhysReg> {
    match (value, family) {
        (0..=105, _) => Some(PhysReg::sgpr(value as u16)),
        (106 | 107 | 126 | 127, _) => Some(PhysReg(value as u16)),
        (124, Family::Gfx11) => Some(PhysReg::NULL),
        (125, Family::Gfx11) | (124, Family::Gfx9) => Some(PhysReg::M0),
        _ => None,
    }
}

/// The float inline constants: field value and f32 bit pattern (0.5, -0.5, 1.0, -1.0, 2.0,
/// -2.0, 4.0, -4.0, 1/(2π)).
pub const INLINE_FLOATS: [(u32, u32); 9] = [
    (240, 0x3f00_0000),
    (241, 0xbf00_0000),
    (242, 0x3f80_0000),
    (243, 0xbf80_0000),
    (244, 0x4000_0000),
    (245, 0xc000_0000),
    (246, 0x4080_0000),
    (247, 0xc080_0000),
    (248, 0x3e22_f983),
];

/// The inline-constant field value for the 32-bit constant `value` in an operand of `size`
/// dwords, if it has one: integers -16..=64 always, the float constants only for 32-bit
/// operands (on 64-bit operands they would mean the f64 values).
pub fn inline_field(value: u32, size: u8) -> Option<u32> {
    let int = value as i32;
    match int {
        0..=64 => Some(128 + int as u32),
        -16..=-1 => Some((192 - int) as u32),
        _ if size <= 1 => INLINE_FLOATS.iter().find(|&&(_, bits)| bits == value).map(|&(field, _)| field),
        _ => None,
    }
}

/// What an inline-constant field value means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    /// An integer, sign-extended to the operand's size.
    Int(i32),
    /// A float constant, given as its f32 bit pattern.
    Float(u32),
}

/// The inline constant of a field value, if it is one.
pub fn inline_value(field: u32) -> Option<Inline> {
    match field {
        128..=192 => Some(Inline::Int(field as i32 - 128)),
        193..=208 => Some(Inline::Int(192 - field as i32)),
        _ => INLINE_FLOATS.iter().find(|&&(f, _)| f == field).map(|&(_, bits)| Inline::Float(bits)),
    }
}

const NO: u16 = u16::MAX;

/// The opcode numbers in the native formats, `[gfx11, gfx9]` (`NO`: not in the family).
fn numbers(op: Opcode) -> [u16; 2] {
    use Opcode::*;
    match op {
        SLoadB32 => [0x000, 0x000],
        SLoadB64 => [0x001, 0x001],
        SLoadB128 => [0x002, 0x002],
        SLoadB256 => [0x003, 0x003],
        SMovB32 => [0x000, 0x000],
        SMovB64 => [0x001, 0x001],
        SNotB32 => [0x01e, 0x004],
        SAndSaveexecB32 => [0x020, NO],
        SAndSaveexecB64 => [0x021, 0x020],
        SOrSaveexecB32 => [0x022, NO],
        SOrSaveexecB64 => [0x023, 0x021],
        SAddU32 => [0x000, 0x000],
        SAddcU32 => [0x004, 0x004],
        SAddI32 => [0x002, 0x002],
        SSubU32 => [0x001, 0x001],
        SSubbU32 => [0x005, 0x005],
        SSubI32 => [0x003, 0x003],
        SMulI32 => [0x02c, 0x024],
        SMinU32 => [0x013, 0x007],
        SMaxU32 => [0x015, 0x009],
        SAndB32 => [0x016, 0x00c],
        SAndB64 => [0x017, 0x00d],
        SOrB32 => [0x018, 0x00e],
        SOrB64 => [0x019, 0x00f],
        SXorB32 => [0x01a, 0x010],
        SXorB64 => [0x01b, 0x011],
        SAndn2B32 => [0x022, 0x012],
        SAndn2B64 => [0x023, 0x013],
        SLshlB32 => [0x008, 0x01c],
        SLshlB64 => [0x009, 0x01d],
        SLshrB32 => [0x00a, 0x01e],
        SAshrI32 => [0x00c, 0x020],
        SCselectB32 => [0x030, 0x00a],
        SCselectB64 => [0x031, 0x00b],
        SCmpEqU32 => [0x006, 0x006],
        SCmpLgU32 => [0x007, 0x007],
        SCmpLtU32 => [0x00a, 0x00a],
        SCmpLeU32 => [0x00b, 0x00b],
        SCmpGtU32 => [0x008, 0x008],
        SCmpGeU32 => [0x009, 0x009],
        SCmpLtI32 => [0x004, 0x004],
        SCmpLeI32 => [0x005, 0x005],
        SCmpGtI32 => [0x002, 0x002],
        SCmpGeI32 => [0x003, 0x003],
        SCmpEqU64 => [0x010, 0x012],
        SCmpLgU64 => [0x011, 0x013],
        SMovkI32 => [0x000, 0x000],
        SWaitcntVscnt => [0x018, NO],
        SNop => [0x000, 0x000],
        SEndpgm => [0x030, 0x001],
        SBranch => [0x020, 0x002],
        SCbranchScc0 => [0x021, 0x004],
        SCbranchScc1 => [0x022, 0x005],
        SCbranchVccz => [0x023, 0x006],
        SCbranchVccnz => [0x024, 0x007],
        SCbranchExecz => [0x025, 0x008],
        SCbranchExecnz => [0x026, 0x009],
        SBarrier => [0x03d, 0x00a],
        SWaitcnt => [0x009, 0x00c],
        SDelayAlu => [0x007, NO],
        SSendmsg => [0x036, 0x010],
        SClause => [0x005, NO],
        SCodeEnd => [0x01f, NO],
        VMovB32 => [0x001, 0x001],
        VReadfirstlaneB32 => [0x002, 0x002],
        VNotB32 => [0x037, 0x02b],
        VCvtF32U32 => [0x006, 0x006],
        VCvtF32I32 => [0x005, 0x005],
        VCvtU32F32 => [0x007, 0x007],
        VCvtI32F32 => [0x008, 0x008],
        VRcpF32 => [0x02a, 0x022],
        VSqrtF32 => [0x033, 0x027],
        VAddNcU32 => [0x025, 0x034],
        VSubNcU32 => [0x026, 0x035],
        VAddF32 => [0x003, 0x001],
        VSubF32 => [0x004, 0x002],
        VMulF32 => [0x008, 0x005],
        VMaxF32 => [0x010, 0x00b],
        VMinF32 => [0x00f, 0x00a],
        VMaxU32 => [0x014, 0x00f],
        VMinU32 => [0x013, 0x00e],
        VMaxI32 => [0x012, 0x00d],
        VMinI32 => [0x011, 0x00c],
        VMulU32U24 => [0x00b, 0x008],
        VLshlrevB32 => [0x018, 0x012],
        VLshrrevB32 => [0x019, 0x010],
        VAshrrevI32 => [0x01a, 0x011],
        VAndB32 => [0x01b, 0x013],
        VOrB32 => [0x01c, 0x014],
        VXorB32 => [0x01d, 0x015],
        VCndmaskB32 => [0x001, 0x000],
        VAddCoCiU32 => [0x020, 0x01c],
        VSubCoCiU32 => [0x021, 0x01d],
        VAddCoU32 => [0x300, 0x019],
        VSubCoU32 => [0x301, 0x01a],
        VMadU64U32 => [0x2fe, 0x1e8],
        VLshlrevB64 => [0x33c, 0x28f],
        VFmaF32 => [0x213, 0x1cb],
        VMulLoU32 => [0x32c, 0x285],
        VMulHiU32 => [0x32d, 0x286],
        VBfeU32 => [0x210, 0x1c8],
        VLshlAddU32 => [0x246, 0x1fd],
        VAdd3U32 => [0x255, 0x1ff],
        VReadlaneB32 => [0x360, 0x289],
        VWritelaneB32 => [0x361, 0x28a],
        VCmpLtU32 => [0x049, 0x0c9],
        VCmpLeU32 => [0x04b, 0x0cb],
        VCmpGtU32 => [0x04c, 0x0cc],
        VCmpGeU32 => [0x04e, 0x0ce],
        VCmpEqU32 => [0x04a, 0x0ca],
        VCmpNeU32 => [0x04d, 0x0cd],
        VCmpLtI32 => [0x041, 0x0c1],
        VCmpLeI32 => [0x043, 0x0c3],
        VCmpGtI32 => [0x044, 0x0c4],
        VCmpGeI32 => [0x046, 0x0c6],
        VCmpEqI32 => [0x042, 0x0c2],
        VCmpNeI32 => [0x045, 0x0c5],
        VCmpLtF32 => [0x011, 0x041],
        VCmpLeF32 => [0x013, 0x043],
        VCmpGtF32 => [0x014, 0x044],
        VCmpGeF32 => [0x016, 0x046],
        VCmpEqF32 => [0x012, 0x042],
        VCmpLgF32 => [0x015, 0x045],
        VCmpNeqF32 => [0x01d, 0x04d],
        VCmpxLtU32 => [0x0c9, 0x0d9],
        VCmpxGtU32 => [0x0cc, 0x0dc],
        VCmpxEqU32 => [0x0ca, 0x0da],
        VCmpxNeU32 => [0x0cd, 0x0dd],
        GlobalLoadB32 => [0x014, 0x014],
        GlobalLoadB64 => [0x015, 0x015],
        GlobalLoadB128 => [0x017, 0x017],
        GlobalStoreB32 => [0x01a, 0x01c],
        GlobalStoreB64 => [0x01b, 0x01d],
        GlobalStoreB128 => [0x01d, 0x01f],
        VLshlAddU64 => [NO, 0x208],
        PStartPgm | PParallelCopy | PPhi | PLinearPhi | PSplitVector | PCreateVector | PLogicalStart | PLogicalEnd
        | PBranch | PCbranchExecz | PCbranchScc0 => [NO, NO],
    }
}

/// The opcode number of `op` in its native format in `family` (`None` for pseudo-instructions
/// and operations the family lacks).
pub fn opcode_number(op: Opcode, family: Family) -> Option<u16> {
    let n = numbers(op)[match family {
        Family::Gfx11 => 0,
        Family::Gfx9 => 1,
    }];
    (n != NO).then_some(n)
}

/// Where the VOP3 opcode space puts the `_e64` forms of the smaller formats: VOPC at 0, VOP2
/// at 0x100, VOP1 at 0x180 on GFX11 and 0x140 on GFX9; native VOP3 opcodes come after.
const fn vop3_base(format: Format, family: Family) -> Option<u16> {
    match (format, family) {
        (Format::Vopc, _) => Some(0),
        (Format::Vop2, _) => Some(0x100),
        (Format::Vop1, Family::Gfx11) => Some(0x180),
        (Format::Vop1, Family::Gfx9) => Some(0x140),
        (Format::Vop3 | Format::Vop3sd, _) => Some(0),
        _ => None,
    }
}

/// The VOP3 opcode number of `op` in `family`: its `_e64` form for VOP1, VOP2 and VOPC
/// operations, its own number for VOP3 ones.
pub fn vop3_number(op: Opcode, family: Family) -> Option<u16> {
    Some(vop3_base(op.format(family), family)? + opcode_number(op, family)?)
}

/// The operation with opcode `number` in format `format` of `family`. For [`Format::Vop3`],
/// `number` is a VOP3 opcode number, which also names the `_e64` forms of VOP1, VOP2 and
/// VOPC operations and the VOP3SD operations.
pub fn opcode_at(family: Family, format: Format, number: u16) -> Option<Opcode> {
    Opcode::ALL.iter().copied().find(|&op| match format {
        Format::Vop3 => vop3_number(op, family) == Some(number),
        _ => op.format(family) == format && opcode_number(op, family) == Some(number),
    })
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
        for v in (-16..=64).map(|i: i32| i as u32).chain(INLINE_FLOATS.iter().map(|&(_, b)| b)) {
            let field = inline_field(v, 1).unwrap();
            let back = match inline_value(field).unwrap() {
                Inline::Int(i) => i as u32,
                Inline::Float(b) => b,
            };
            assert_eq!(back, v);
        }
        assert_eq!(inline_field(0x3f80_0000, 2), None);
        assert_eq!(inline_field(65, 1), None);
        assert_eq!(inline_field(-17i32 as u32, 1), None);
    }

    #[test]
    fn bits_sign_extend() {
        let b = Bits::new(0, 13);
        assert_eq!(b.get_signed(0x1fff), -1);
        assert_eq!(b.get_signed(0x0fff), 4095);
        assert!(b.fits_signed(-4096) && !b.fits_signed(4096));
    }
}
