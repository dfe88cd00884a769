//! How long an instruction's results take: the unit that executes it and the cycles until what
//! it writes can be read. The ALU figures are LLVM's GFX11 scheduling model (`GFX11SpeedModel`:
//! WriteSALU 2, WriteTrans32 10, WriteTrans64 40, WriteDouble 38, WriteIntMul and
//! WriteQuarterRate32 8, Write64Bit 6, other VALU 5), which `s_delay_alu` encodes; the memory
//! figures are typical hit latencies (scalar cache, LDS, vector L0), used only to order
//! instructions. gfx942 issues a wave64 VALU instruction over four cycles, which hides most of
//! these latencies, but the order that suits gfx11 suits it as well, so one table serves both.

use crate::opcode::{Family, Format, Opcode};

/// The unit an instruction issues to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Vector ALU (not transcendental).
    Valu,
    /// gfx11's and gfx940's transcendental unit (`v_rcp`, `v_sqrt`, `v_exp`, ...).
    Trans,
    /// Scalar ALU.
    Salu,
    /// Scalar memory.
    Smem,
    /// Vector memory: global, flat, scratch and buffer.
    Vmem,
    /// The LDS.
    Lds,
    /// Program control and pseudo-instructions: no result to wait for.
    Other,
}

/// The unit of `op` and the cycles until its results can be read.
pub fn latency(op: Opcode, family: Family) -> (Unit, u16) {
    let name = op.name(family);
    match op.format(family) {
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd | Format::Vop3p | Format::Vopd => {
            if op.is_transcendental(family) {
                (Unit::Trans, if name.ends_with("_f64") { 40 } else { 10 })
            } else if name.ends_with("_f64") {
                (Unit::Valu, 38)
            } else if name.starts_with("v_mul_lo_u32")
                || name.starts_with("v_mul_hi_")
                || name.starts_with("v_mad_u64_u32")
                || name.starts_with("v_mad_i64_i32")
            {
                (Unit::Valu, 8)
            } else if name.ends_with("_b64") || name.ends_with("_u64") || name.ends_with("_i64") {
                (Unit::Valu, 6)
            } else {
                (Unit::Valu, 5)
            }
        }
        Format::Sop1 | Format::Sop2 | Format::Sopk | Format::Sopc => (Unit::Salu, 2),
        Format::Smem => (Unit::Smem, 20),
        Format::Ds => (Unit::Lds, 40),
        Format::Global | Format::Flat | Format::Scratch | Format::Mubuf => (Unit::Vmem, 300),
        Format::Sopp | Format::Pseudo => (Unit::Other, 0),
    }
}
