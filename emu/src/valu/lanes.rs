//! Where a lane's first source comes from under DPP, and the SDWA selects of GFX9: the lane
//! arithmetic of the data-parallel primitives, separate from what the operations compute.
//!
//! DPP16 (`dpp_ctrl`): `quad_perm`, `row_shl`/`row_shr` (lane `i` reads `i + n` / `i - n`
//! within its row of 16), `row_ror`, `row_mirror`, `row_half_mirror`; GFX9 adds the whole-wave
//! shifts and rotates and `row_bcast15`/`row_bcast31`; GFX10+ adds `row_share` and
//! `row_xmask`. A lane whose source is outside its row (or wave), or inactive without `fi`,
//! reads 0 with `bound_ctrl`, and is not written without it; `row_mask` and `bank_mask` keep
//! rows and banks (groups of 4 lanes of each row) from being written. DPP8 selects a lane of
//! each group of 8.

use isa::mir::{Dpp, Sdwa};

/// Where lane `lane`'s first source comes from: `Some(lane)` or `None` for an invalid lane.
pub(crate) fn dpp16_source(ctrl: u16, lane: u32, wave_size: u32, gfx9: bool) -> Option<u32> {
    let row = lane & !15;
    let i = lane & 15;
    let n = (ctrl & 15) as u32;
    match ctrl {
        0x000..=0x0ff => Some((lane & !3) | ((ctrl as u32 >> (2 * (lane & 3))) & 3)),
        0x101..=0x10f => (i + n < 16).then_some(lane + n),
        0x111..=0x11f => (i >= n).then(|| lane - n),
        0x121..=0x12f => Some(row | ((i + 16 - n) & 15)),
        0x130 if gfx9 => (lane + 1 < wave_size).then_some(lane + 1),
        0x134 if gfx9 => Some((lane + 1) % wave_size),
        0x138 if gfx9 => lane.checked_sub(1),
        0x13c if gfx9 => Some((lane + wave_size - 1) % wave_size),
        0x140 => Some(row | (15 - i)),
        0x141 => Some((lane & !7) | (7 - (lane & 7))),
        0x142 if gfx9 => (row > 0).then(|| row - 1),
        0x143 if gfx9 => (lane >= 32).then_some(31),
        0x150..=0x15f if !gfx9 => Some(row | n),
        0x160..=0x16f if !gfx9 => Some(row | (i ^ n)),
        _ => None,
    }
}

/// Whether `ctrl` is a DPP16 control the processor defines.
pub(crate) fn dpp16_defined(ctrl: u16, gfx9: bool) -> bool {
    match ctrl {
        0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141 => true,
        0x130 | 0x134 | 0x138 | 0x13c | 0x142 | 0x143 => gfx9,
        0x150..=0x16f => !gfx9,
        _ => false,
    }
}

/// How lane `lane` gets its first source under `dpp`: from lane `Some(src)`, as 0 (`Zero`), or
/// not at all (the lane is not written).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fetch {
    /// From this lane.
    Lane(u32),
    /// The value 0.
    Zero,
    /// The lane is not written.
    Skip,
}

/// The fetch of lane `lane` with `exec` and the DPP controls.
pub(crate) fn dpp_fetch(dpp: &Dpp, lane: u32, exec: u64, wave_size: u32, gfx9: bool) -> Fetch {
    match *dpp {
        Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
            if row_mask >> (lane / 16) & 1 == 0 || bank_mask >> ((lane & 15) / 4) & 1 == 0 {
                return Fetch::Skip;
            }
            match dpp16_source(ctrl, lane, wave_size, gfx9) {
                Some(src) if src < wave_size && (fi || exec >> src & 1 != 0) => Fetch::Lane(src),
                _ if bound_ctrl => Fetch::Zero,
                _ => Fetch::Skip,
            }
        }
        Dpp::Dpp8 { sel, fi } => {
            let src = (lane & !7) | (sel >> (3 * (lane & 7)) & 7);
            if fi || exec >> src & 1 != 0 {
                Fetch::Lane(src)
            } else {
                Fetch::Zero
            }
        }
    }
}

/// An SDWA source select applied to a 32-bit value: the byte or word, zero- or sign-extended.
pub(crate) fn sdwa_select(value: u32, sel: u8, sext: bool) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 => (0, 16),
        5 => (16, 16),
        _ => return value,
    };
    let field = (value >> shift) & ((1u32 << bits) - 1);
    if sext {
        (((field << (32 - bits)) as i32) >> (32 - bits)) as u32
    } else {
        field
    }
}

/// An SDWA result written into `old`: the selected byte or word of `old` gets the low bits of
/// `result`; the other bits are zeroed, sign-extended or kept (`dst_unused` 0, 1, 2).
pub(crate) fn sdwa_write(old: u32, result: u32, sdwa: &Sdwa) -> u32 {
    let (shift, bits) = match sdwa.dst_sel {
        0..=3 => (8 * sdwa.dst_sel as u32, 8),
        4 => (0, 16),
        5 => (16, 16),
        _ => return result,
    };
    let field_mask = ((1u32 << bits) - 1) << shift;
    let placed = (result << shift) & field_mask;
    match sdwa.dst_unused {
        2 => (old & !field_mask) | placed,
        1 => {
            let top = shift + bits;
            let signed = (((placed << (32 - top)) as i32) >> (32 - top)) as u32;
            if top == 32 {
                placed
            } else {
                signed & !((1u32 << shift) - 1)
            }
        }
        _ => placed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpp_controls_name_the_source_lane() {
        // quad_perm:[1,0,3,2]
        assert_eq!(dpp16_source(0b10_11_00_01, 5, 32, false), Some(4));
        // row_shr:1: lane 17 reads 16; lane 16 has no source.
        assert_eq!(dpp16_source(0x111, 17, 32, false), Some(16));
        assert_eq!(dpp16_source(0x111, 16, 32, false), None);
        // row_shl:2
        assert_eq!(dpp16_source(0x102, 13, 32, false), Some(15));
        assert_eq!(dpp16_source(0x102, 14, 32, false), None);
        // row_ror:1
        assert_eq!(dpp16_source(0x121, 16, 32, false), Some(31));
        assert_eq!(dpp16_source(0x140, 1, 32, false), Some(14));
        assert_eq!(dpp16_source(0x143, 40, 64, true), Some(31));
        assert_eq!(dpp16_source(0x143, 40, 64, false), None);
        assert_eq!(dpp16_source(0x163, 18, 32, false), Some(17));
        let dpp = Dpp::Dpp16 { ctrl: 0x111, row_mask: 0xf, bank_mask: 0xf, bound_ctrl: true, fi: false };
        assert_eq!(dpp_fetch(&dpp, 16, u64::MAX, 32, false), Fetch::Zero);
        assert_eq!(dpp_fetch(&dpp, 17, 0x10000, 32, false), Fetch::Lane(16));
        assert_eq!(dpp_fetch(&dpp, 17, 0x20000, 32, false), Fetch::Zero);
        let dpp8 = Dpp::Dpp8 { sel: 0o01234567, fi: false };
        assert_eq!(dpp_fetch(&dpp8, 8, u64::MAX, 32, false), Fetch::Lane(15));
    }

    #[test]
    fn sdwa_selects_and_writes() {
        assert_eq!(sdwa_select(0x1234_80ff, 1, true), 0xffff_ff80);
        assert_eq!(sdwa_select(0x1234_80ff, 5, false), 0x1234);
        let sdwa = Sdwa { dst_sel: 5, dst_unused: 2, src0_sel: 6, src1_sel: 6, sext: 0 };
        assert_eq!(sdwa_write(0xaaaa_bbbb, 0x1234, &sdwa), 0x1234_bbbb);
        let sdwa = Sdwa { dst_unused: 0, dst_sel: 1, ..sdwa };
        assert_eq!(sdwa_write(0xffff_ffff, 0x80, &sdwa), 0x8000);
        let sdwa = Sdwa { dst_unused: 1, dst_sel: 1, ..sdwa };
        assert_eq!(sdwa_write(0, 0x80, &sdwa), 0xffff_8000);
    }
}
