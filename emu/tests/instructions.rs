//! The instruction families beyond the corpus's basics, on small hand-written kernels for
//! gfx1100 (wave32 and wave64) and gfx942: LDS loads, stores, two-address forms and atomics;
//! the cross-lane operations (`ds_bpermute`, `ds_swizzle`, `v_readlane`, `v_writelane`,
//! `v_permlane64`, `v_mbcnt`, DPP16, DPP8, SDWA); global atomics (compare-and-swap with return, f32 add);
//! scratch; FLAT addresses in the shared aperture; packed f16; transcendentals within their
//! documented bound; the buffer cache-control no-ops; and the memory-model cases the checker
//! must get right (an LDS store without a wait before a barrier is not seen by the other waves;
//! a load left in flight across a barrier may see a later store). An opcode without semantics
//! is an error naming it and the PC.

mod common;

use common::asm::{fault, kernel, kernel_with, run, PROLOGUE_GFX11, PROLOGUE_GFX9};
use common::bytes_to_words;
use emu::{dispatch, ArgValue, Device, EmuError, FaultKind, Launch, Options, Program};

/// The three targets as (cpu, wave64, wave size).
const TARGETS: [(&str, bool, u32); 3] = [("gfx1100", false, 32), ("gfx1100", true, 64), ("gfx942", false, 64)];

/// Runs `program` on `items` work-items in one group with `seed` and returns `out`.
fn run_seed(program: &Program, items: u32, out_words: usize, seed: u64) -> Result<Vec<u32>, EmuError> {
    let mut dev = Device::new();
    let input = dev.alloc(common::words_to_bytes(&(0..256).collect::<Vec<u32>>()));
    let out = dev.alloc(vec![0; out_words * 4]);
    let options = Options { step_limit: 100_000, seed, ..Options::default() };
    let args = [ArgValue::ptr(input), ArgValue::ptr(out)];
    dispatch(&mut dev, program, "k", &Launch::linear(items, items), &args, &options)?;
    Ok(bytes_to_words(dev.buffer(out).unwrap()))
}

/// GFX11 and GFX9 spellings of the same body: `{0}` the prologue; the pairs are replaced.
fn spell(body: &str, cpu: &str) -> String {
    let gfx9 = cpu == "gfx942";
    let pairs: &[(&str, &str)] = &[
        ("global_store_b32", "global_store_dword"),
        ("global_load_b32", "global_load_dword"),
        ("ds_store_b32", "ds_write_b32"),
        ("ds_load_b32", "ds_read_b32"),
        ("ds_load_2addr_b32", "ds_read2_b32"),
        ("v_add_nc_u32", "v_add_u32"),
        ("scratch_store_b32", "scratch_store_dword"),
        ("scratch_load_b32", "scratch_load_dword"),
        ("flat_store_b32", "flat_store_dword"),
        ("flat_load_b32", "flat_load_dword"),
        ("global_atomic_cmpswap_b32", "global_atomic_cmpswap"),
        (" glc", " sc0"),
        ("s_waitcnt_vscnt null, 0x0", "s_waitcnt vmcnt(0)"),
    ];
    let mut s = body.replace("{prologue}", if gfx9 { PROLOGUE_GFX9 } else { PROLOGUE_GFX11 });
    if gfx9 {
        for (a, b) in pairs {
            s = s.replace(a, b);
        }
    }
    s
}

#[test]
fn lds_loads_stores_two_address_forms_and_atomics() {
    let body = "{prologue}
  v_mul_u32_u24 v2, 3, v0
  ds_store_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_load_2addr_b32 v[4:5], v1 offset1:1
  v_mov_b32 v6, 1
  v_mov_b32 v8, 0x200
  ds_add_rtn_u32 v7, v8, v6
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_load_b32 v9, v8
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v4, s[6:7]
  global_store_b32 v1, v5, s[6:7] offset:256
  global_store_b32 v1, v7, s[6:7] offset:512
  global_store_b32 v1, v9, s[6:7] offset:768";
    for (cpu, wave64, _) in TARGETS {
        let p = kernel_with(cpu, wave64, &spell(body, cpu), 1024, 0);
        for seed in 0..3 {
            let out = run_seed(&p, 64, 256, seed).unwrap_or_else(|e| panic!("{cpu}: {e}"));
            for l in 0..64u32 {
                assert_eq!(out[l as usize], 3 * l, "{cpu} buf[l]");
                assert_eq!(out[64 + l as usize], if l < 63 { 3 * (l + 1) } else { 0 }, "{cpu} buf[l+1]");
                assert_eq!(out[192 + l as usize], 64, "{cpu}: the counter after every add");
            }
            let mut olds = out[128..192].to_vec();
            olds.sort_unstable();
            assert_eq!(olds, (0..64).collect::<Vec<u32>>(), "{cpu}: each add returned a distinct old value");
        }
    }
}

#[test]
fn cross_lane_operations() {
    // v2 = 10 * lane; bpermute from lane+1 within 32; swizzle swaps neighbours; readlane 5;
    // writelane into lane 3; mbcnt counts the lanes below.
    let body = "{prologue}
  v_mul_u32_u24 v2, 10, v0
  v_add_nc_u32 v4, 1, v0
  v_and_b32 v4, 31, v4
  v_and_b32 v10, 32, v0
  v_or_b32 v4, v4, v10
  v_lshlrev_b32 v4, 2, v4
  ds_bpermute_b32 v3, v4, v2
  ds_swizzle_b32 v5, v2 offset:swizzle(SWAP,1)
  v_readlane_b32 s8, v2, 5
  v_mov_b32 v6, 0
  s_nop 4
  v_writelane_b32 v6, s8, 3
  v_mbcnt_lo_u32_b32 v7, -1, 0
  MBCNT_HI
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v5, s[6:7] offset:256
  global_store_b32 v1, v6, s[6:7] offset:512
  global_store_b32 v1, v7, s[6:7] offset:768";
    for (cpu, wave64, wave) in TARGETS {
        let hi = if wave == 64 { "v_mbcnt_hi_u32_b32 v7, -1, v7" } else { "" };
        let p = kernel(cpu, wave64, &spell(body, cpu).replace("MBCNT_HI", hi));
        let out = run(&p, 64, 256).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        for l in 0..64usize {
            let src = (l & 32) | ((l + 1) & 31);
            assert_eq!(out[l], 10 * src as u32, "{cpu} bpermute lane {l}");
            assert_eq!(out[64 + l], 10 * (l ^ 1) as u32, "{cpu} swizzle lane {l}");
            let wave_base = l / wave as usize * wave as usize;
            let expected = if l % wave as usize == 3 { 10 * (wave_base + 5) as u32 } else { 0 };
            assert_eq!(out[128 + l], expected, "{cpu} readlane/writelane lane {l}");
            assert_eq!(out[192 + l], (l % wave as usize) as u32, "{cpu} mbcnt lane {l}");
        }
    }
}

#[test]
fn dpp_moves_lanes() {
    let gfx11 = "{prologue}
  v_mul_u32_u24 v2, 10, v0
  v_mov_b32 v3, 7
  v_mov_b32 v4, 7
  s_nop 1
  v_mov_b32_dpp v3, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v4, v2 dpp8:[7,6,5,4,3,2,1,0]
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v4, s[6:7] offset:256";
    for wave64 in [false, true] {
        let out = run(&kernel("gfx1100", wave64, &spell(gfx11, "gfx1100")), 64, 128).unwrap();
        for l in 0..64usize {
            assert_eq!(out[l], if l % 16 == 0 { 0 } else { 10 * (l - 1) as u32 }, "row_shr lane {l}");
            assert_eq!(out[64 + l], 10 * ((l & !7) | (7 - (l & 7))) as u32, "dpp8 lane {l}");
        }
    }
    let gfx9 = "{prologue}
  v_mov_b32 v3, 7
  v_mov_b32 v4, 7
  v_mul_u32_u24 v2, 10, v0
  s_nop 1
  v_mov_b32_dpp v3, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
  v_mov_b32_dpp v4, v2 wave_shr:1 row_mask:0xf bank_mask:0xf
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v4, s[6:7] offset:256";
    let out = run(&kernel("gfx942", false, &spell(gfx9, "gfx942")), 64, 128).unwrap();
    for l in 0..64usize {
        assert_eq!(out[l], if l % 16 == 0 { 0 } else { 10 * (l - 1) as u32 }, "gfx942 row_shr lane {l}");
        assert_eq!(out[64 + l], if l == 0 { 7 } else { 10 * (l - 1) as u32 }, "gfx942 wave_shr lane {l}");
    }
    // A DPP read of a VGPR a VALU just wrote needs two wait states on gfx942.
    let hazard = gfx9.replace("  s_nop 1\n", "");
    let (kind, ..) = fault(run(&kernel("gfx942", false, &spell(&hazard, "gfx942")), 64, 128));
    assert!(matches!(kind, FaultKind::Hazard { ref what } if what.contains("DPP")), "{kind:?}");
}

#[test]
fn sdwa_selects_bytes_and_words_on_gfx942() {
    let body = "{prologue}
  v_mov_b32 v2, 0x1234ff80
  v_mov_b32 v3, 0xaaaa5555
  v_add_u32_sdwa v3, v2, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:DWORD
  global_store_b32 v1, v3, s[6:7]";
    let out = run(&kernel("gfx942", false, &spell(body, "gfx942")), 64, 64).unwrap();
    for l in 0..64u32 {
        assert_eq!(out[l as usize], ((0x80 + l) << 16) | 0x5555, "lane {l}");
    }
}

#[test]
fn global_atomics_compare_and_swap_and_float_add() {
    // out[0] gets 1.0 from every lane; out[1 + lane] is swapped from 0 to lane + 7 (returning 0,
    // stored at out[128 + lane]); a second swap expecting 0 fails and returns lane + 7.
    let body = "{prologue}
  v_mov_b32 v2, 1.0
  v_mov_b32 v9, 0
  global_atomic_add_f32 v9, v2, s[6:7]
  v_add_nc_u32 v10, 4, v1
  v_add_nc_u32 v4, 7, v0
  v_mov_b32 v5, 0
  global_atomic_cmpswap_b32 v3, v10, v[4:5], s[6:7] glc
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v3, s[6:7] offset:512
  global_atomic_cmpswap_b32 v6, v10, v[4:5], s[6:7] glc
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v6, s[6:7] offset:768";
    for (cpu, wave64, _) in TARGETS {
        let p = kernel(cpu, wave64, &spell(body, cpu));
        let out = run(&p, 64, 256).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        assert_eq!(f32::from_bits(out[0]), 64.0, "{cpu}");
        for l in 0..64usize {
            assert_eq!(out[1 + l], l as u32 + 7, "{cpu} swapped lane {l}");
            assert_eq!(out[128 + l], 0, "{cpu} first swap's old value, lane {l}");
            assert_eq!(out[192 + l], l as u32 + 7, "{cpu} failed swap's old value, lane {l}");
        }
    }
}

#[test]
fn scratch_is_private_per_lane_and_bounded() {
    let body = "{prologue}
  v_mov_b32 v8, 8
  v_mul_u32_u24 v2, 5, v0
  scratch_store_b32 v8, v2, off
  s_mov_b32 s8, 4
  scratch_store_b32 off, v0, s8 offset:8
  scratch_load_b32 v3, v8, off
  scratch_load_b32 v4, off, s8 offset:8
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v4, s[6:7] offset:256";
    for (cpu, wave64, _) in TARGETS {
        let p = kernel_with(cpu, wave64, &spell(body, cpu), 0, 16);
        let out = run(&p, 64, 128).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        for l in 0..64usize {
            assert_eq!(out[l], 5 * l as u32, "{cpu} lane {l}");
            assert_eq!(out[64 + l], l as u32, "{cpu} lane {l}");
        }
        // 16 bytes per lane: offset 16 is outside.
        let oob = spell(body, cpu).replace("v_mov_b32 v8, 8", "v_mov_b32 v8, 16");
        let (kind, ..) = fault(run(&kernel_with(cpu, wave64, &oob, 0, 16), 64, 128));
        assert!(matches!(kind, FaultKind::OutOfBounds { space: "private", addr: 16, .. }), "{cpu}: {kind:?}");
    }
}

/// The shared aperture's high dword as the emulator's `src_shared_base` reports it (isa's
/// decoder does not take `src_shared_base` as an operand yet, so the test writes the value).
#[test]
fn flat_addresses_reach_lds_through_the_shared_aperture() {
    let body = "{prologue}
  s_mov_b32 s9, 0x10000
  v_mov_b32 v11, s9
  v_mov_b32 v10, v1
  v_add_nc_u32 v2, 100, v0
  flat_store_b32 v[10:11], v2
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_waitcnt_vscnt null, 0x0
  ds_load_b32 v3, v1
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v3, s[6:7]";
    for (cpu, wave64, _) in TARGETS {
        let p = kernel_with(cpu, wave64, &spell(body, cpu), 512, 0);
        let out = run(&p, 64, 64).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        assert_eq!(out, (100..164).collect::<Vec<u32>>(), "{cpu}");
    }
}

#[test]
fn packed_f16_and_cache_controls() {
    // v2 = {2.0, 1.0} (hi, lo), v3 = {0.5, 3.0}: op_sel picks v2's high half for the low
    // result (2 + 3 = 5), op_sel_hi the low half of v2 and the high half of v3 (1 + 0.5).
    let body = "{prologue}
  v_mov_b32 v2, 0x40003c00
  v_mov_b32 v3, 0x38004200
  v_pk_add_f16 v5, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
  CACHE
  global_store_b32 v1, v5, s[6:7]";
    for (cpu, wave64, _) in TARGETS {
        let cache =
            if cpu == "gfx942" { "buffer_wbl2 sc1\n  buffer_inv sc1" } else { "buffer_gl0_inv\n  buffer_gl1_inv" };
        let p = kernel(cpu, wave64, &spell(body, cpu).replace("CACHE", cache));
        let out = run(&p, 64, 64).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        assert_eq!(out[0], 0x3e00_4500, "{cpu}: {{1.5, 5.0}}");
    }
}

/// In IEEE mode (gcnc's and clang's kernels) a float operation quiets a signalling NaN
/// operand, the rounding operations too, whose software versions in Rust would return it as it
/// is (fuzz seed 9126003: `atomic_min(&o, floor(x))` with x a signalling NaN).
#[test]
fn rounding_operations_quiet_a_signalling_nan() {
    let body = "{prologue}
  v_mov_b32 v2, 0x7f800001
  v_floor_f32 v3, v2
  v_ceil_f32 v4, v2
  v_trunc_f32 v5, v2
  v_rndne_f32 v6, v2
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v4, s[6:7] offset:256
  global_store_b32 v1, v5, s[6:7] offset:512
  global_store_b32 v1, v6, s[6:7] offset:768";
    for (cpu, wave64, _) in TARGETS {
        let p = kernel(cpu, wave64, &spell(body, cpu));
        let out = run(&p, 64, 256).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        for k in 0..4 {
            assert_eq!(out[k * 64], 0x7fc0_0001, "{cpu}: operation {k}");
        }
    }
}

#[test]
fn transcendentals_are_within_one_ulp() {
    // x = lane / 8 + 0.25
    let body = "{prologue}
  v_cvt_f32_u32 v2, v0
  v_mov_b32 v9, 0x3e000000
  v_fma_f32 v2, v2, v9, 0.5
  v_mul_f32 v2, 0.5, v2
  v_sqrt_f32 v3, v2
  v_exp_f32 v4, v2
  v_log_f32 v5, v2
  v_sin_f32 v6, v2
  v_rsq_f32 v7, v2
  s_nop 2
  DEPCTR
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v4, s[6:7] offset:256
  global_store_b32 v1, v5, s[6:7] offset:512
  global_store_b32 v1, v6, s[6:7] offset:768
  global_store_b32 v1, v7, s[6:7] offset:1024";
    for (cpu, wave64, _) in TARGETS {
        let depctr = if cpu == "gfx942" { "" } else { "s_waitcnt_depctr 0xfff" };
        let out = run(&kernel(cpu, wave64, &spell(body, cpu).replace("DEPCTR", depctr)), 64, 320).unwrap();
        for l in 0..64usize {
            let x = (l as f32 * 0.125 + 0.5) * 0.5;
            let x = x as f64;
            let sin = if (2.0 * x).fract() == 0.0 { 0.0 } else { (x * std::f64::consts::TAU).sin() };
            let refs = [x.sqrt(), x.exp2(), x.log2(), sin, 1.0 / x.sqrt()];
            for (k, r) in refs.iter().enumerate() {
                let got = f32::from_bits(out[64 * k + l]);
                let err = common::cases::ulp_error(got, *r);
                assert!(err <= 1.0, "{cpu}: operation {k} of {x}: {got} is {err} ulp from {r}");
            }
        }
    }
}

#[test]
fn an_lds_store_not_waited_for_before_a_barrier_is_not_seen_by_other_waves() {
    // Wave 0 stores, every wave passes the barrier and reads wave 0's value.
    let body = "{prologue}
  v_mov_b32 v2, 5
  v_cmp_gt_u32 vcc_lo, 32, v0
  s_and_saveexec_b32 s8, vcc_lo
  ds_store_b32 v1, v2
  s_or_b32 exec_lo, exec_lo, s8
  WAIT
  s_barrier
  v_and_b32 v3, 31, v0
  v_lshlrev_b32 v3, 2, v3
  ds_load_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v4, s[6:7]";
    let with_wait =
        kernel_with("gfx1100", false, &spell(&body.replace("WAIT", "s_waitcnt lgkmcnt(0)"), "gfx1100"), 512, 0);
    let without = kernel_with("gfx1100", false, &spell(&body.replace("WAIT", ""), "gfx1100"), 512, 0);
    let mut saw_stale = false;
    for seed in 0..4 {
        let out = run_seed(&with_wait, 128, 128, seed).unwrap();
        assert!(out.iter().all(|&v| v == 5), "seed {seed}: {out:?}");
        saw_stale |= run_seed(&without, 128, 128, seed).unwrap()[32..].contains(&0);
    }
    assert!(saw_stale, "every interleaving let the other waves see a store no wait completed");
}

#[test]
fn a_load_left_in_flight_across_a_barrier_may_see_a_later_store() {
    // Every wave reads buf[0] (0), then wave 1 writes 7 there after the barrier; a wave that
    // waits for its load only after the barrier may see 7.
    let body = "{prologue}
  v_mov_b32 v5, 0
  ds_load_b32 v4, v5
  WAIT
  s_barrier
  v_cmp_eq_u32 vcc_lo, 32, v0
  s_and_saveexec_b32 s8, vcc_lo
  v_mov_b32 v6, 7
  ds_store_b32 v5, v6
  s_or_b32 exec_lo, exec_lo, s8
  s_waitcnt lgkmcnt(0)
  global_store_b32 v1, v4, s[6:7]";
    let with_wait =
        kernel_with("gfx1100", false, &spell(&body.replace("WAIT", "s_waitcnt lgkmcnt(0)"), "gfx1100"), 64, 0);
    let without = kernel_with("gfx1100", false, &spell(&body.replace("WAIT", ""), "gfx1100"), 64, 0);
    let mut saw_late = false;
    for seed in 0..8 {
        assert!(run_seed(&with_wait, 128, 128, seed).unwrap().iter().all(|&v| v == 0), "seed {seed}");
        saw_late |= run_seed(&without, 128, 128, seed).unwrap().contains(&7);
    }
    assert!(saw_late, "no interleaving let a load in flight see the store after the barrier");
}

#[test]
fn an_opcode_without_semantics_names_itself_and_the_pc() {
    let body = "  v_permlane16_b32 v1, v2, s0, s1";
    match run(&kernel("gfx1100", false, body), 32, 1) {
        Err(EmuError::Fault { site, kind: FaultKind::Unimplemented { opcode, .. } }) => {
            assert_eq!((opcode.as_str(), site.pc), ("v_permlane16_b32", 0));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn permlane64_swaps_the_halves_of_a_wave64() {
    // With only the low half active, lanes 0-31 read lanes 32-63 (inactive: read whatever EXEC);
    // the high half keeps its value. In wave32 the instruction does nothing.
    let body = "{prologue}
  v_mul_u32_u24 v2, 10, v0
  v_mov_b32 v3, 7
  HALF_OFF
  v_permlane64_b32 v3, v2
  HALF_ON
  global_store_b32 v1, v3, s[6:7]";
    for wave64 in [false, true] {
        let (off, on) = if wave64 { ("s_mov_b32 exec_hi, 0", "s_mov_b32 exec_hi, -1") } else { ("", "") };
        let text = spell(body, "gfx1100").replace("HALF_OFF", off).replace("HALF_ON", on);
        let out = run(&kernel("gfx1100", wave64, &text), 64, 64).unwrap_or_else(|e| panic!("wave64 {wave64}: {e}"));
        for (l, &got) in out.iter().enumerate().take(64) {
            let expected = if wave64 && l < 32 { 10 * (l + 32) as u32 } else { 7 };
            assert_eq!(got, expected, "wave64 {wave64} lane {l}");
        }
    }
}

#[test]
fn permlanex16_reads_the_other_row() {
    // With the identity select, lane l reads lane l ^ 16 (the same place in the other row of
    // its 32 lanes); with select 0, every lane reads the first lane of the other row.
    let body = "{prologue}
  v_mul_u32_u24 v2, 10, v0
  s_mov_b32 s20, SEL_LO
  s_mov_b32 s21, SEL_HI
  v_permlanex16_b32 v3, v2, s20, s21
  global_store_b32 v1, v3, s[6:7]";
    for wave64 in [false, true] {
        for (lo, hi, identity) in [("0x76543210", "0xfedcba98", true), ("0", "0", false)] {
            let text = spell(body, "gfx1100").replace("SEL_LO", lo).replace("SEL_HI", hi);
            let lanes: u32 = if wave64 { 64 } else { 32 };
            let out = run(&kernel("gfx1100", wave64, &text), lanes, lanes as usize).unwrap_or_else(|e| panic!("{e}"));
            for (l, &got) in out.iter().enumerate().take(lanes as usize) {
                let from = if identity { l ^ 16 } else { (l & !31) | ((l & 16) ^ 16) };
                assert_eq!(got, 10 * from as u32, "wave64 {wave64} identity {identity} lane {l}");
            }
        }
    }
}

/// The constants of 64-bit operands read what the hardware reads: a 64-bit integer's literal
/// zero-extended (0xffffffff is 2^32 - 1, not the inline -1, which is all ones), a float inline
/// constant as the double (also in an integer operand: `v_mov_b64 v[4:5], -1.0` is
/// 0xbff0000000000000), an f64's literal as its high dword.
#[test]
fn constants_of_64_bit_operands_read_as_the_hardware_does() {
    let gfx942 = "{prologue}
  v_mov_b32 v1, 0
  v_mov_b64 v[2:3], 0xffffffff
  v_mov_b64 v[4:5], -1.0
  v_mov_b64 v[6:7], -1
  v_mov_b64 v[8:9], 0.15915494309189532
  s_mov_b64 s[8:9], 0xffffffff
  s_mov_b64 s[10:11], -1.0
  v_cmp_eq_u64 vcc, 0xffffffff, v[2:3]
  s_nop 1
  v_cndmask_b32 v10, 0, 1, vcc
  v_mov_b64 v[12:13], s[8:9]
  v_mov_b64 v[14:15], s[10:11]
  global_store_dwordx2 v1, v[2:3], s[6:7]
  global_store_dwordx2 v1, v[4:5], s[6:7] offset:8
  global_store_dwordx2 v1, v[6:7], s[6:7] offset:16
  global_store_dwordx2 v1, v[8:9], s[6:7] offset:24
  global_store_dwordx2 v1, v[12:13], s[6:7] offset:32
  global_store_dwordx2 v1, v[14:15], s[6:7] offset:40
  global_store_dword v1, v10, s[6:7] offset:48";
    let gfx1100 = "{prologue}
  v_mov_b32 v1, 0
  s_mov_b64 s[8:9], 0xffffffff
  s_mov_b64 s[10:11], -1.0
  s_mov_b64 s[12:13], -1
  v_mov_b32 v2, s8
  v_mov_b32 v3, s9
  v_mov_b32 v4, s10
  v_mov_b32 v5, s11
  v_mov_b32 v6, s12
  v_mov_b32 v7, s13
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_add_f64 v[8:9], 0x40080000, v[10:11]
  v_cmp_eq_u64 vcc_lo, 0xffffffff, v[2:3]
  v_cndmask_b32 v12, 0, 1, vcc_lo
  global_store_b64 v1, v[2:3], s[6:7]
  global_store_b64 v1, v[4:5], s[6:7] offset:8
  global_store_b64 v1, v[6:7], s[6:7] offset:16
  global_store_b64 v1, v[8:9], s[6:7] offset:24
  global_store_b32 v1, v12, s[6:7] offset:32";
    let dwords = |v: u64| [v as u32, (v >> 32) as u32];
    let minus_one = (-1.0f64).to_bits();
    let inv_2pi = 0.15915494309189532f64.to_bits();
    let expected942: Vec<u32> = [0xffff_ffff, minus_one, u64::MAX, inv_2pi, 0xffff_ffff, minus_one]
        .into_iter()
        .flat_map(dwords)
        .chain([1])
        .collect();
    let expected1100: Vec<u32> =
        [0xffff_ffff, minus_one, u64::MAX, 3.0f64.to_bits()].into_iter().flat_map(dwords).chain([1]).collect();
    for (cpu, wave64, body, expected) in
        [("gfx942", false, gfx942, &expected942), ("gfx1100", false, gfx1100, &expected1100)]
    {
        let p = kernel(cpu, wave64, &spell(body, cpu));
        let out = run(&p, 1, expected.len()).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        assert_eq!(&out, expected, "{cpu}");
    }
}

#[test]
fn swap_exchanges_two_vgprs_in_the_active_lanes() {
    // ISA (`v_swap_b32`): tmp = D; D = S0; S0 = tmp, in the active lanes only. With the even
    // lanes active, they exchange v2 = lane and v3 = 100 + lane; the odd lanes keep both.
    let body = "{prologue}
  v_mov_b32 v2, v0
  v_add_nc_u32 v3, 100, v0
  EVEN_ONLY
  v_swap_b32 v2, v3
  ALL_ON
  global_store_b32 v1, v2, s[6:7]
  global_store_b32 v1, v3, s[6:7] offset:256";
    for (cpu, wave64, wave) in TARGETS {
        let set = |v: &str| match wave {
            64 => format!("s_mov_b32 exec_lo, {v}\n  s_mov_b32 exec_hi, {v}"),
            _ => format!("s_mov_b32 exec_lo, {v}"),
        };
        let text = spell(body, cpu).replace("EVEN_ONLY", &set("0x55555555")).replace("ALL_ON", &set("-1"));
        let out = run(&kernel(cpu, wave64, &text), 64, 128).unwrap_or_else(|e| panic!("{cpu}: {e}"));
        for l in 0..64usize {
            let (a, b) = (l as u32, 100 + l as u32);
            let expected = if l % 2 == 0 { (b, a) } else { (a, b) };
            assert_eq!((out[l], out[64 + l]), expected, "{cpu} wave{wave} lane {l}");
        }
    }
}
