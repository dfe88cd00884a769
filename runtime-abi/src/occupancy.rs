//! Occupancy, the one home of its arithmetic: how many waves of a kernel a SIMD holds at once,
//! from the registers the kernel uses or from what its descriptor asks the hardware for, and
//! whether one workgroup of it can be resident on a CU (or a WGP) at all. The compiler's wave
//! target and statistics (`regalloc::demand`) and the emulator's launch check read it here, so
//! that they agree.
//!
//! A wave's VGPR total (on gfx90a/gfx942 the ArchVGPRs and AGPRs of the unified file,
//! [`crate::descriptor::total_vgprs`]) is allocated in the SIMD's granules (not the
//! descriptor's encoding granule, of which it is a multiple), and the SIMD's file
//! ([`Processor::simd_vgprs`]) holds so many of them; on GFX9 the SGPRs, with the extras the
//! hardware adds ([`crate::descriptor::extra_sgprs`]), limit too (LLVM's
//! `getOccupancyWithNumSGPRs`, on the count in the descriptor's blocks of 8 that the wave is
//! given, so that the descriptor alone tells the same). A workgroup's waves spread over the SIMDs of its CU, or of
//! its WGP in WGP mode ([`isa::processor::Target::waves_per_simd_for`]): it can run only if
//! each SIMD holds that many waves.

use crate::descriptor::{extra_sgprs, total_vgprs, KernelDescriptor, RegisterUse, SGPR_GRANULE};
use isa::processor::{Feature, FeatureSetting, Generation, Processor, Target, TargetId};
use thiserror::Error;

/// What limits the waves a SIMD can run of a kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Limiter {
    /// Nothing the kernel uses: the hardware's maximum.
    Hardware,
    /// The VGPR file (ArchVGPRs and AGPRs).
    Vgprs,
    /// The SGPR file (GFX9 only; GFX10+ gives every wave its SGPRs).
    Sgprs,
}

/// The waves per SIMD a kernel's register use allows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Occupancy {
    /// Waves per SIMD.
    pub waves_per_simd: u16,
    /// The hardware's maximum waves per SIMD.
    pub max_waves_per_simd: u16,
    /// What limits it.
    pub limiter: Limiter,
}

/// Waves per SIMD with `total_sgprs` SGPRs (the extras included) on GFX9 (LLVM's
/// `getOccupancyWithNumSGPRs` for GFX8-GFX9: 800 SGPRs per SIMD).
fn sgpr_waves(total_sgprs: u16) -> u16 {
    match total_sgprs {
        0..=80 => 10,
        81..=88 => 9,
        89..=100 => 8,
        _ => 7,
    }
}

/// The waves per SIMD a kernel using `regs` (next free register of each file, VCC excluded)
/// can reach on `proc` in waves of `regs.wave_size` (see the module documentation).
pub fn occupancy(proc: &Processor, regs: &RegisterUse) -> Occupancy {
    let xnack_mask = regs.xnack_mask && proc.supports(Feature::Xnack);
    let extra = extra_sgprs(proc, regs.uses_vcc, regs.flat_scratch, xnack_mask);
    of_totals(proc, regs.wave_size, total_vgprs(proc, regs), (regs.sgprs + extra).next_multiple_of(SGPR_GRANULE))
}

/// The waves per SIMD the hardware gives a kernel whose descriptor is `desc`, in waves of
/// `wave_size`: the VGPR total of GRANULATED_WORKITEM_VGPR_COUNT, and on GFX9 the SGPRs of
/// GRANULATED_WAVEFRONT_SGPR_COUNT (the extras included), each field's blocks in full.
pub fn descriptor_occupancy(desc: &KernelDescriptor, proc: &Processor, wave_size: u32) -> Occupancy {
    let blocks = |field: u8| u16::from(field) + 1;
    let vgprs = blocks(desc.rsrc1.granulated_workitem_vgpr_count) * proc.vgpr_encoding_granule(wave_size);
    let sgprs = blocks(desc.rsrc1.granulated_wavefront_sgpr_count) * SGPR_GRANULE;
    of_totals(proc, wave_size, vgprs, sgprs)
}

/// Occupancy with `vgprs` VGPRs in all and `sgprs` SGPRs given (extras and blocks included).
fn of_totals(proc: &Processor, wave_size: u32, vgprs: u16, sgprs: u16) -> Occupancy {
    let max_waves = proc.max_waves_per_simd;
    let granule = proc.vgpr_alloc_granule(wave_size);
    let by_vgprs = if vgprs < granule {
        max_waves
    } else {
        (proc.simd_vgprs(wave_size) / vgprs.next_multiple_of(granule)).clamp(1, max_waves)
    };
    let by_sgprs = if proc.sgprs_limit_occupancy() { sgpr_waves(sgprs).min(max_waves) } else { max_waves };
    let waves = by_vgprs.min(by_sgprs);
    let limiter = if waves == max_waves {
        Limiter::Hardware
    } else if by_vgprs <= by_sgprs {
        Limiter::Vgprs
    } else {
        Limiter::Sgprs
    };
    Occupancy { waves_per_simd: waves, max_waves_per_simd: max_waves, limiter }
}

/// A workgroup whose waves cannot all be resident at once on one CU (or WGP).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "a workgroup of {lanes} work-items is {waves} waves over {simds} SIMDs, {needed} per SIMD, \
     but the kernel's registers let a SIMD hold {held} (limited by {limiter:?})"
)]
pub struct NotResident {
    /// Work-items per workgroup.
    pub lanes: u32,
    /// Its waves.
    pub waves: u32,
    /// The SIMDs they share.
    pub simds: u32,
    /// Waves each SIMD must hold.
    pub needed: u32,
    /// Waves a SIMD holds of the kernel.
    pub held: u16,
    /// What limits those.
    pub limiter: Limiter,
}

/// Whether a workgroup of `lanes` work-items of a kernel with `occupancy` can be resident on
/// `target` (its wave size, and CU or WGP mode). In threadgroup split mode a workgroup's waves
/// may go to several CUs, so one wave that fits is enough.
pub fn check_resident(target: &Target, occupancy: Occupancy, lanes: u32) -> Result<(), NotResident> {
    let needed = if target.tgsplit { 1 } else { target.waves_per_simd_for(lanes) };
    if u32::from(occupancy.waves_per_simd) >= needed {
        return Ok(());
    }
    Err(NotResident {
        lanes,
        waves: lanes.div_ceil(target.wave_size),
        simds: target.simds_per_workgroup(),
        needed,
        held: occupancy.waves_per_simd,
        limiter: occupancy.limiter,
    })
}

/// The target a descriptor describes on `proc` for waves of `wave_size`: CU mode where the
/// generation has WGPs and WGP_MODE is clear, threadgroup split mode where TG_SPLIT is set
/// (the features of its target ID are not the descriptor's).
pub fn descriptor_target(desc: &KernelDescriptor, proc: &'static Processor, wave_size: u32) -> Target {
    let id = TargetId { processor: proc, sramecc: FeatureSetting::Any, xnack: FeatureSetting::Any };
    let cumode = proc.generation >= Generation::Gfx10 && !desc.rsrc1.wgp_mode;
    Target { id, wave_size, cumode, tgsplit: desc.rsrc3.tg_split }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptor::set_register_counts;

    fn proc(name: &str) -> &'static Processor {
        Processor::find(name).unwrap()
    }

    /// The registers a kernel uses, VCC included.
    fn uses(wave_size: u32, sgprs: u16, vgprs: u16, agprs: u16) -> RegisterUse {
        RegisterUse { vgprs, agprs, sgprs, uses_vcc: true, xnack_mask: true, flat_scratch: false, wave_size }
    }

    #[test]
    fn occupancy_follows_the_simd_files() {
        let gfx1100 = proc("gfx1100");
        let o = occupancy(gfx1100, &uses(32, 20, 24, 0));
        assert_eq!((o.waves_per_simd, o.limiter), (16, Limiter::Hardware));
        assert_eq!(occupancy(gfx1100, &uses(32, 20, 97, 0)).waves_per_simd, 12);
        assert_eq!(occupancy(gfx1100, &uses(64, 20, 97, 0)).waves_per_simd, 7);
        let gfx942 = proc("gfx942");
        assert_eq!(occupancy(gfx942, &uses(64, 20, 64, 0)).waves_per_simd, 8);
        let o = occupancy(gfx942, &uses(64, 20, 65, 0));
        assert_eq!((o.waves_per_simd, o.limiter), (7, Limiter::Vgprs));
        // 90 SGPRs plus 6 extras on gfx942: 96, which gives 8 waves (the maximum there).
        assert_eq!(occupancy(gfx942, &uses(64, 90, 8, 0)).waves_per_simd, 8);
        let gfx900 = proc("gfx900");
        let o = occupancy(gfx900, &uses(64, 90, 8, 0));
        assert_eq!((o.waves_per_simd, o.limiter), (8, Limiter::Sgprs));
        assert_eq!(occupancy(gfx900, &uses(64, 8, 256, 0)).waves_per_simd, 1);
    }

    /// With AGPRs, gfx90a and gfx942 count the unified file (ArchVGPRs rounded up to 4, then
    /// the AGPRs), gfx908 the larger of its two files. The cases are kernels whose inline
    /// assembly clobbers the last VGPR and AGPR named (`"v61", "a1"`), compiled by `clang-19
    /// -S -O2 -mcpu=...`: `; NumVgprs`, `; NumAgprs` and `; Occupancy` of its output.
    #[test]
    fn occupancy_counts_agprs_as_the_processor_files_them() {
        let cases = [
            // (NumVgprs, NumAgprs, Occupancy on gfx942 and gfx90a, on gfx908)
            (62, 2, 7, 4),
            (30, 34, 7, 7),
            (128, 128, 2, 2),
            (3, 256, 1, 1),
            (64, 0, 8, 4),
            (5, 61, 7, 4),
        ];
        for (vgprs, agprs, unified, separate) in cases {
            for (name, want) in [("gfx942", unified), ("gfx90a", unified), ("gfx908", separate)] {
                let o = occupancy(proc(name), &uses(64, 16, vgprs, agprs));
                assert_eq!(o.waves_per_simd, want, "{name}: {vgprs} VGPRs, {agprs} AGPRs");
            }
        }
    }

    /// A descriptor with the register counts of `regs`.
    fn descriptor(p: &Processor, regs: &RegisterUse) -> KernelDescriptor {
        let mut desc = KernelDescriptor::new(p);
        set_register_counts(&mut desc, p, regs);
        desc
    }

    /// The descriptor's fields give the hardware the occupancy the register use has: for
    /// every processor, wave size and register count, what [`descriptor_occupancy`] reads
    /// back from the fields [`set_register_counts`] writes is [`occupancy`].
    #[test]
    fn the_descriptor_gives_the_occupancy_of_the_register_use() {
        for p in isa::processor::PROCESSORS {
            for wave_size in [32, 64].into_iter().filter(|&w| w == 64 || p.wave32) {
                for vgprs in (1..=p.vgprs).step_by(3) {
                    for (sgprs, agprs) in [(8, 0), (37, 0), (81, 5), (90, 0), (95, 64), (p.sgprs, 0)] {
                        let agprs = agprs.min(p.agprs);
                        let regs = RegisterUse {
                            vgprs,
                            agprs,
                            sgprs,
                            uses_vcc: true,
                            xnack_mask: true,
                            flat_scratch: false,
                            wave_size,
                        };
                        let from_desc = descriptor_occupancy(&descriptor(p, &regs), p, wave_size);
                        let want = occupancy(p, &regs);
                        assert_eq!(
                            from_desc.waves_per_simd, want.waves_per_simd,
                            "{} wave{wave_size}: {regs:?}",
                            p.name
                        );
                    }
                }
            }
        }
    }

    /// A workgroup fits when its waves per SIMD (over 4 SIMDs, or 2 in CU mode) are at most
    /// what the registers allow: 256 VGPRs in wave32 on gfx1100 (blocks of 24 of the SIMD's
    /// 1536) leave 5 waves per SIMD, so 640 work-items fit a WGP and 641 do not, and in CU
    /// mode 320 fit and 321 do not.
    #[test]
    fn a_workgroup_fits_when_each_simd_holds_its_share() {
        let gfx1100 = proc("gfx1100");
        let mut desc = descriptor(gfx1100, &uses(32, 20, 256, 0));
        let o = descriptor_occupancy(&desc, gfx1100, 32);
        assert_eq!((o.waves_per_simd, o.limiter), (5, Limiter::Vgprs));
        desc.rsrc1.wgp_mode = true;
        let wgp = descriptor_target(&desc, gfx1100, 32);
        assert!(!wgp.cumode);
        assert!(check_resident(&wgp, o, 640).is_ok());
        assert!(check_resident(&wgp, o, 641).is_err());
        let err = check_resident(&wgp, o, 1024).unwrap_err();
        assert_eq!((err.waves, err.simds, err.needed, err.held), (32, 4, 8, 5));
        desc.rsrc1.wgp_mode = false;
        let cu = descriptor_target(&desc, gfx1100, 32);
        assert!(check_resident(&cu, o, 320).is_ok());
        assert_eq!(check_resident(&cu, o, 321).unwrap_err().needed, 6);
        // gfx942: 256 VGPRs and 256 AGPRs leave one wave per SIMD: a workgroup of 4 waves,
        // one per SIMD, and no more, unless the workgroup may be split over CUs.
        let gfx942 = proc("gfx942");
        let mut desc = descriptor(gfx942, &uses(64, 20, 256, 256));
        let o = descriptor_occupancy(&desc, gfx942, 64);
        assert_eq!(o.waves_per_simd, 1);
        assert!(check_resident(&descriptor_target(&desc, gfx942, 64), o, 256).is_ok());
        assert!(check_resident(&descriptor_target(&desc, gfx942, 64), o, 257).is_err());
        desc.rsrc3.tg_split = true;
        assert!(check_resident(&descriptor_target(&desc, gfx942, 64), o, 1024).is_ok());
    }
}
