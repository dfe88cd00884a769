//! The checker, one rule at a time, on small hand-written kernels (assembled by clang-19 and
//! linked by ld.lld-19): each missing wait, write-after-write, hazard (gfx942's wait states,
//! gfx1100's `s_waitcnt_depctr` cases), bad access and bad program is reported with where and
//! what, and each thing the hardware guarantees is not.
//!
//! Every kernel gets the kernarg pointer in s[0:1] and two buffer arguments, `in` at kernarg 0
//! and `out` at kernarg 8; bodies usually start by loading both into s[4:7].

mod common;

use common::asm::{fault, kernel, kernel_shaped, run, Shape, PROLOGUE_GFX11, PROLOGUE_GFX9};
use common::bytes_to_words;
use emu::{dispatch, ArgValue, Counter, Device, EmuError, FaultKind, Launch, Options, Program};

#[test]
fn reading_a_register_of_a_load_in_flight_names_the_pc_register_and_counter() {
    let p = kernel(
        "gfx1100",
        false,
        &format!("{PROLOGUE_GFX11}\n  global_load_b32 v2, v1, s[4:5]\n  v_add_nc_u32 v3, v2, 1"),
    );
    let (kind, pc, inst) = fault(run(&p, 32, 32));
    assert_eq!(inst, "v_add_nc_u32_e64 v3, v2, 1");
    assert_eq!(pc, 0x18);
    assert_eq!(kind, FaultKind::InFlightRead { reg: "v2".into(), counter: Counter::Vm, issued_pc: 0x10 });
    let msg = EmuError::Fault {
        site: Box::new(emu::FaultSite { kernel: "k".into(), pc, inst, group: [0; 3], wave: 0 }),
        kind,
    }
    .to_string();
    assert!(msg.contains("pc 0x18") && msg.contains("v2") && msg.contains("vmcnt"), "{msg}");
}

#[test]
fn overwriting_the_destination_of_a_load_in_flight_is_reported() {
    let p = kernel("gfx1100", false, &format!("{PROLOGUE_GFX11}\n  global_load_b32 v2, v1, s[4:5]\n  v_mov_b32 v2, 0"));
    let (kind, ..) = fault(run(&p, 32, 32));
    assert!(matches!(kind, FaultKind::InFlightWrite { ref reg, counter: Counter::Vm, .. } if reg == "v2"), "{kind:?}");
}

#[test]
fn scalar_loads_may_return_out_of_order() {
    let body = "
  s_load_b32 s8, s[0:1], 0x0
  s_load_b32 s9, s[0:1], 0x4
  s_waitcnt lgkmcnt(1)
  s_mov_b32 s10, s8";
    let (kind, ..) = fault(run(&kernel("gfx1100", false, body), 32, 32));
    assert!(matches!(kind, FaultKind::InFlightRead { ref reg, counter: Counter::Lgkm, .. } if reg == "s8"), "{kind:?}");
    let body = body.replace("lgkmcnt(1)", "lgkmcnt(0)");
    run(&kernel("gfx1100", false, &body), 32, 32).unwrap();
}

#[test]
fn vector_loads_return_in_order() {
    for (cpu, prologue, load, store) in [
        ("gfx1100", PROLOGUE_GFX11, "global_load_b32", "global_store_b32"),
        ("gfx942", PROLOGUE_GFX9, "global_load_dword", "global_store_dword"),
    ] {
        let body = format!(
            "{prologue}
  {load} v2, v1, s[4:5]
  {load} v3, v1, s[4:5] offset:4
  s_waitcnt vmcnt(1)
  v_add_nc_u32 v4, 100, v2
  {store} v1, v4, s[6:7]"
        )
        .replace("v_add_nc_u32", if cpu == "gfx942" { "v_add_u32" } else { "v_add_nc_u32" });
        let wave = if cpu == "gfx942" { 64 } else { 32 };
        let out = run(&kernel(cpu, false, &body), wave, wave as usize).unwrap();
        assert_eq!(out, (100..100 + wave).collect::<Vec<_>>(), "{cpu}");
        let body = body.replace("100, v2", "100, v3");
        let (kind, ..) = fault(run(&kernel(cpu, false, &body), wave, wave as usize));
        assert!(
            matches!(kind, FaultKind::InFlightRead { ref reg, counter: Counter::Vm, .. } if reg == "v3"),
            "{kind:?}"
        );
    }
}

#[test]
fn a_wave_sees_its_own_store_and_may_reuse_store_data_at_once_on_gfx11() {
    let body = format!(
        "{PROLOGUE_GFX11}
  v_mov_b32 v2, 42
  global_store_b32 v1, v2, s[6:7]
  v_mov_b32 v2, 7
  global_load_b32 v3, v1, s[6:7]
  s_waitcnt vmcnt(0)
  v_add_nc_u32 v3, v3, v2
  global_store_b32 v1, v3, s[6:7] offset:128"
    );
    let out = run(&kernel("gfx1100", false, &body), 32, 64).unwrap();
    assert_eq!(out[..32], [42; 32]);
    assert_eq!(out[32..], [49; 32]);
}

/// A gfx942 kernel that stores 4 dwords per lane from v[2:5], then writes v3 after `between`.
fn wide_store_gfx942(between: &str, store: &str) -> Program {
    let body = format!(
        "{PROLOGUE_GFX9}
  v_lshlrev_b32 v1, 4, v0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 2
  v_mov_b32 v4, 3
  v_mov_b32 v5, 4
  {store}
  {between}
  v_mov_b32 v3, 0"
    );
    kernel("gfx942", false, &body)
}

#[test]
fn gfx942_valu_writing_wide_store_data_needs_two_wait_states() {
    let x4 = "global_store_dwordx4 v1, v[2:5], s[6:7]";
    let (kind, pc, inst) = fault(run(&wide_store_gfx942("", x4), 64, 256));
    assert_eq!(inst, "v_mov_b32_e32 v3, 0");
    assert!(
        matches!(kind, FaultKind::Hazard { ref what } if what.contains("v3") && what.contains("2 are needed")),
        "{kind:?} at {pc:#x}"
    );
    fault(run(&wide_store_gfx942("s_nop 0", x4), 64, 256));
    let out = run(&wide_store_gfx942("s_nop 1", x4), 64, 256).unwrap();
    assert_eq!(out[..8], [1, 2, 3, 4, 1, 2, 3, 4]);
    run(&wide_store_gfx942("", "global_store_dwordx2 v1, v[2:3], s[6:7]"), 64, 256).unwrap();
}

#[test]
fn gfx11_has_no_store_data_hazard() {
    let body = format!(
        "{PROLOGUE_GFX11}
  v_lshlrev_b32 v1, 4, v0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 2
  v_mov_b32 v4, 3
  v_mov_b32 v5, 4
  global_store_b128 v1, v[2:5], s[6:7]
  v_mov_b32 v3, 0"
    );
    let out = run(&kernel("gfx1100", true, &body), 64, 256).unwrap();
    assert_eq!(out[..4], [1, 2, 3, 4]);
}

#[test]
fn out_of_bounds_access_names_the_lane_and_address() {
    let body = format!("{PROLOGUE_GFX11}\n  v_mov_b32 v2, 1\n  global_store_b32 v1, v2, s[6:7]");
    let mut dev = Device::new();
    let input = dev.alloc(vec![0; 4]);
    let out = dev.alloc(vec![0; 16]);
    let p = kernel("gfx1100", false, &body);
    let err = dispatch(
        &mut dev,
        &p,
        "k",
        &Launch::linear(32, 32),
        &[ArgValue::ptr(input), ArgValue::ptr(out)],
        &Options::default(),
    )
    .unwrap_err();
    let EmuError::Fault { kind: FaultKind::OutOfBounds { lane, addr, len, .. }, site } = err else { panic!("{err}") };
    assert_eq!((lane, addr, len, site.wave), (4, out + 16, 4, 0));
    assert_eq!(dev.buffer(out).unwrap(), [0; 16], "a faulting store writes no lane");
}

#[test]
fn a_livelock_hits_the_step_limit() {
    let (kind, ..) = match run(&kernel("gfx1100", false, ".Lloop:\n  s_branch .Lloop"), 32, 1) {
        Err(EmuError::StepLimit { limit, detail }) => (limit, 0, detail),
        other => panic!("{other:?}"),
    };
    assert_eq!(kind, 10_000);
}

#[test]
fn barriers_hold_every_wave_of_the_group() {
    // Wave 0 stores, every wave passes the barrier, then every lane reads what wave 0 stored
    // (a wave's own store is visible; another wave's is after the barrier and vscnt(0)).
    let body = format!(
        "{PROLOGUE_GFX11}
  v_cmp_gt_u32 vcc_lo, 32, v0
  s_and_saveexec_b32 s8, vcc_lo
  v_mov_b32 v2, 5
  global_store_b32 v1, v2, s[6:7]
  s_or_b32 exec_lo, exec_lo, s8
  s_waitcnt_vscnt null, 0x0
  s_barrier
  v_and_b32 v3, 31, v0
  v_lshlrev_b32 v3, 2, v3
  global_load_b32 v4, v3, s[6:7]
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v4, s[6:7] offset:512"
    );
    let p = kernel("gfx1100", false, &body);
    for seed in 0..4 {
        let mut dev = Device::new();
        let input = dev.alloc(vec![0; 4]);
        let out = dev.alloc(vec![0; 1024]);
        let options = Options { seed, ..Options::default() };
        let launch = Launch::linear(128, 128);
        dispatch(&mut dev, &p, "k", &launch, &[ArgValue::ptr(input), ArgValue::ptr(out)], &options).unwrap();
        let words = bytes_to_words(dev.buffer(out).unwrap());
        assert_eq!(words[128..256], [5; 128], "seed {seed}");
    }
}

#[test]
fn vgprs_are_gone_after_dealloc_and_registers_outside_the_allocation_fault() {
    let body = "  s_nop 0\n  s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)\n  v_mov_b32 v1, 0";
    let (kind, ..) = fault(run(&kernel("gfx1100", false, body), 32, 1));
    assert!(matches!(kind, FaultKind::VgprsReleased { .. }), "{kind:?}");
    // The hardware needs the s_nop before the message.
    let body = "  s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)";
    let (kind, ..) = fault(run(&kernel("gfx1100", false, body), 32, 1));
    assert!(matches!(kind, FaultKind::Hazard { ref what } if what.contains("s_nop")), "{kind:?}");
    let (kind, ..) = fault(run(&kernel("gfx1100", false, "  v_mov_b32 v40, 0"), 32, 1));
    assert!(matches!(kind, FaultKind::RegisterOutOfRange { limit: 16, .. }), "{kind:?}");
}

#[test]
fn malformed_hints_are_reported() {
    // s_delay_alu with an undefined dependency kind (12), written as raw bits.
    let (kind, ..) = fault(run(&kernel("gfx1100", false, "  .long 0xbf87000c"), 32, 1));
    assert!(matches!(kind, FaultKind::Malformed { .. }), "{kind:?}");
}

#[test]
fn clauses_hold_one_kind() {
    // Two global loads with an s_nop between them: one clause; the loads run.
    let body = format!(
        "{PROLOGUE_GFX11}
  s_clause 0x2
  global_load_b32 v2, v1, s[6:7]
  s_nop 0
  global_load_b32 v3, v1, s[6:7] offset:128
  s_waitcnt vmcnt(0)
  global_store_b32 v1, v2, s[6:7] offset:256"
    );
    run(&kernel("gfx1100", false, &body), 32, 128).unwrap();
    // A load and a store, a load and a VALU operation, a global and a scalar load: malformed.
    for second in ["global_store_b32 v1, v0, s[6:7]", "v_mov_b32 v3, 0", "s_load_b32 s9, s[6:7], 0x0"] {
        let body = format!("{PROLOGUE_GFX11}\n  s_clause 0x1\n  global_load_b32 v2, v1, s[6:7]\n  {second}");
        let (kind, ..) = fault(run(&kernel("gfx1100", false, &body), 32, 128));
        assert!(matches!(kind, FaultKind::Malformed { .. }), "{second}: {kind:?}");
    }
}

#[test]
fn wave_size_option_must_match_the_descriptor() {
    let p = kernel("gfx1100", true, "");
    assert_eq!(p.kernel("k").unwrap().wave_size(), 64);
    let mut dev = Device::new();
    let args = [ArgValue::ptr(dev.alloc(vec![0; 4])), ArgValue::ptr(dev.alloc(vec![0; 4]))];
    let options = Options { wave_size: Some(32), ..Options::default() };
    let err = dispatch(&mut dev, &p, "k", &Launch::linear(64, 64), &args, &options).unwrap_err();
    assert!(matches!(err, EmuError::Launch(emu::LaunchError::WaveSize { compiled: 64, asked: 32, .. })), "{err}");
    let err = dispatch(&mut dev, &p, "k", &Launch::linear(64, 64), &args[..1], &Options::default()).unwrap_err();
    assert!(matches!(err, EmuError::Launch(emu::LaunchError::ArgCount { expected: 2, got: 1, .. })), "{err}");
}

#[test]
fn vop3_modifiers_apply() {
    let body = format!(
        "{PROLOGUE_GFX11}
  v_cvt_f32_u32 v2, v0
  v_mov_b32 v4, -4.0
  v_sub_f32_e64 v3, |v4|, v2 clamp
  v_add_f32_e64 v5, v2, 1.0 mul:2
  v_fma_f32 v6, -v2, 2.0, 1.0
  v_sub_nc_u32_e64 v7, v0, 3 clamp
  global_store_b32 v1, v3, s[6:7]
  global_store_b32 v1, v5, s[6:7] offset:128
  global_store_b32 v1, v6, s[6:7] offset:256
  global_store_b32 v1, v7, s[6:7] offset:384"
    );
    let out = run(&kernel("gfx1100", false, &body), 32, 128).unwrap();
    let f = |i: usize| f32::from_bits(out[i]);
    for lane in 0..32usize {
        let x = lane as f32;
        assert_eq!(f(lane), (4.0 - x).clamp(0.0, 1.0), "clamp, lane {lane}");
        assert_eq!(f(32 + lane), 2.0 * (x + 1.0), "mul:2, lane {lane}");
        assert_eq!(f(64 + lane), 1.0 - 2.0 * x, "neg, lane {lane}");
        assert_eq!(out[96 + lane], (lane as u32).saturating_sub(3), "integer clamp, lane {lane}");
    }
}

/// The hazard the checker reports for `body`, or None when the run is clean.
fn hazard_of(cpu: &str, wave64: bool, body: &str) -> Option<String> {
    let items = if cpu == "gfx1100" && !wave64 { 32 } else { 64 };
    match run(&kernel(cpu, wave64, body), items, 64) {
        Ok(_) => None,
        Err(EmuError::Fault { kind: FaultKind::Hazard { what }, .. }) => Some(what),
        Err(e) => panic!("{cpu}: {e}\n{body}"),
    }
}

#[test]
fn gfx11_transcendental_results_need_va_vdst_before_use() {
    let body = "  v_cvt_f32_u32 v1, v0\n  v_rcp_f32 v2, v1\n  MIT\n  v_add_f32 v3, v2, v2";
    for wave64 in [false, true] {
        let what = hazard_of("gfx1100", wave64, &body.replace("MIT", "")).expect("a hazard");
        assert!(what.contains("transcendental") && what.contains("v2"), "{what}");
        assert!(hazard_of("gfx1100", wave64, &body.replace("MIT", "s_waitcnt_depctr 0xfff")).is_none());
        // s_nop does not help on GFX11; six other VALUs do.
        assert!(hazard_of("gfx1100", wave64, &body.replace("MIT", "s_nop 7")).is_some());
        let valus = "v_mov_b32 v4, 0\n".repeat(6);
        assert!(hazard_of("gfx1100", wave64, &body.replace("MIT", &valus)).is_none());
    }
}

#[test]
fn gfx11_wave64_sgpr_mask_rewritten_after_a_valu_read_needs_sa_sdst() {
    let body = "  s_mov_b64 s[8:9], -1\n  v_cndmask_b32_e64 v2, 0, 1, s[8:9]\n  s_mov_b64 s[8:9], 0\n  MIT\n  v_mov_b32 v3, s8";
    let what = hazard_of("gfx1100", true, &body.replace("MIT", "")).expect("a hazard in wave64");
    assert!(what.contains("lane mask") && what.contains("s8"), "{what}");
    assert!(hazard_of("gfx1100", true, &body.replace("MIT", "s_waitcnt_depctr 0xfffe")).is_none());
    let wave32 = body.replace("s[8:9]", "s8").replace("s_mov_b64", "s_mov_b32");
    assert!(hazard_of("gfx1100", false, &wave32.replace("MIT", "")).is_none(), "wave32 has no such hazard");
}

#[test]
fn gfx11_wave64_partial_forwarding_across_an_exec_write() {
    let body = "  v_mov_b32 v2, 1\n  s_mov_b64 exec, -1\n  v_mov_b32 v3, 2\n  MIT\n  v_add_nc_u32 v4, v2, v3";
    let what = hazard_of("gfx1100", true, &body.replace("MIT", "")).expect("a hazard in wave64");
    assert!(what.contains("partial forwarding"), "{what}");
    assert!(hazard_of("gfx1100", true, &body.replace("MIT", "s_waitcnt_depctr 0xfff")).is_none());
    let wave32 = body.replace("s_mov_b64 exec, -1", "s_mov_b32 exec_lo, -1");
    assert!(hazard_of("gfx1100", false, &wave32.replace("MIT", "")).is_none(), "wave32 has no such hazard");
}

#[test]
fn gfx942_valu_written_vcc_and_sgprs_need_wait_states() {
    // v_div_fmas after a VALU wrote VCC: 4 wait states.
    let fmas = "  v_cmp_gt_u32 vcc, 5, v0\n  MIT\n  v_div_fmas_f32 v3, v1, v2, v1";
    let what = hazard_of("gfx942", false, &fmas.replace("MIT", "s_nop 1")).expect("a hazard");
    assert!(what.contains("v_div_fmas") && what.contains("4 are needed"), "{what}");
    assert!(hazard_of("gfx942", false, &fmas.replace("MIT", "s_nop 3")).is_none());
    // A VALU reading an SGPR (VCC) a VALU wrote: 2 wait states (not on gfx1100).
    let mask = "  v_cmp_gt_u32 vcc, 5, v0\n  MIT\n  v_cndmask_b32 v2, 0, v1, vcc";
    let what = hazard_of("gfx942", false, &mask.replace("MIT", "")).expect("a hazard");
    assert!(what.contains("vcc") && what.contains("2 are needed"), "{what}");
    assert!(hazard_of("gfx942", false, &mask.replace("MIT", "s_nop 1")).is_none());
    assert!(hazard_of("gfx1100", true, &mask.replace("MIT", "")).is_none());
}

#[test]
fn gfx942_scalar_load_clause_must_not_overwrite_what_it_reads() {
    let body = "  s_load_dword s8, s[0:1], 0x0\n  MIT\n  s_load_dwordx2 s[0:1], s[0:1], 0x8\n  s_waitcnt lgkmcnt(0)";
    let what = hazard_of("gfx942", false, &body.replace("MIT", "")).expect("a hazard under XNACK");
    assert!(what.contains("clause") && what.contains("s[0:1]"), "{what}");
    assert!(hazard_of("gfx942", false, &body.replace("MIT", "s_nop 0")).is_none());
}

/// A workgroup that cannot be resident is refused, from the descriptor alone: 256 VGPRs in
/// wave32 on gfx1100 leave 5 waves per SIMD, so in WGP mode (4 SIMDs) 640 work-items run and
/// 641 are refused, and in CU mode (2 SIMDs) 320 run and 321 are refused; on gfx942 a
/// unified file of 256 registers leaves 2 waves per SIMD: 512 work-items in wave64, not 576.
#[test]
fn a_workgroup_that_cannot_be_resident_is_refused() {
    let cases = [("gfx1100", false, true, 640), ("gfx1100", false, false, 320), ("gfx942", true, true, 512)];
    for (cpu, wave64, wgp_mode, fits) in cases {
        let shape = Shape { vgprs: 256, max_workgroup: 1024, wgp_mode, ..Shape::default() };
        let p = kernel_shaped(cpu, wave64, "", shape);
        let wave = p.kernel("k").unwrap().wave_size();
        for (lanes, ok) in [(fits, true), (fits + 1, false), (1024, false)] {
            let mut dev = Device::new();
            let args = [ArgValue::ptr(dev.alloc(vec![0; 4])), ArgValue::ptr(dev.alloc(vec![0; 4]))];
            let result = dispatch(&mut dev, &p, "k", &Launch::linear(lanes, lanes), &args, &Options::default());
            let what = format!("{cpu} wave{wave} wgp_mode {wgp_mode}, {lanes} work-items");
            match result {
                Ok(_) => assert!(ok, "{what}: ran"),
                Err(EmuError::Launch(emu::LaunchError::NotResident { reason, .. })) => {
                    assert!(!ok, "{what}: {reason}");
                    assert_eq!(reason.needed, lanes.div_ceil(wave).div_ceil(reason.simds), "{what}");
                    assert_eq!(reason.held, (fits / wave / reason.simds) as u16, "{what}");
                }
                Err(e) => panic!("{what}: {e}"),
            }
        }
    }
    // The same kernel with 16 VGPRs runs a workgroup of 1024 work-items.
    let p = kernel_shaped("gfx1100", false, "", Shape { max_workgroup: 1024, ..Shape::default() });
    let mut dev = Device::new();
    let args = [ArgValue::ptr(dev.alloc(vec![0; 4])), ArgValue::ptr(dev.alloc(vec![0; 4]))];
    dispatch(&mut dev, &p, "k", &Launch::linear(1024, 1024), &args, &Options::default()).unwrap();
}

/// `dispatch_at` runs a kernel whose kernarg segment a runtime placed in device memory, at
/// addresses the runtime chose (`Device::alloc_at`), as `dispatch` runs it from arguments; a
/// segment outside every buffer is refused before anything runs.
#[test]
fn dispatch_at_takes_a_placed_kernarg_segment() {
    let body = format!(
        "{PROLOGUE_GFX11}\n  global_load_b32 v2, v1, s[4:5]\n  s_waitcnt vmcnt(0)\n  v_add_nc_u32 v2, v2, 1\n  \
         global_store_b32 v1, v2, s[6:7]"
    );
    let p = kernel("gfx1100", false, &body);
    let launch = Launch::linear(32, 32);
    let options = Options { step_limit: 10_000, ..Options::default() };
    let (input, out, kernarg) = (3u64 << 32, 9u64 << 32, 5u64 << 32);
    let mut dev = Device::new();
    dev.alloc_at(input, (0..32u32).flat_map(|i| (i * 7).to_le_bytes()).collect()).unwrap();
    dev.alloc_at(out, vec![0; 128]).unwrap();
    let args = [ArgValue::ptr(input), ArgValue::ptr(out)];
    let segment = emu::kernarg_segment(p.kernel("k").unwrap(), &launch, &args).unwrap();
    dev.alloc_at(kernarg, segment.clone()).unwrap();
    emu::dispatch_at(&mut dev, &p, "k", &launch, kernarg, 0, &options).unwrap();
    let placed = bytes_to_words(dev.buffer(out).unwrap());
    assert_eq!(placed, (0..32u32).map(|i| i * 7 + 1).collect::<Vec<_>>());
    // The same kernel from its arguments gives the same.
    let mut fresh = Device::new();
    let (i2, o2) = (fresh.alloc((0..32u32).flat_map(|i| (i * 7).to_le_bytes()).collect()), fresh.alloc(vec![0; 128]));
    dispatch(&mut fresh, &p, "k", &launch, &[ArgValue::ptr(i2), ArgValue::ptr(o2)], &options).unwrap();
    assert_eq!(bytes_to_words(fresh.buffer(o2).unwrap()), placed);
    // A segment that runs past its buffer, or lies in none.
    for at in [kernarg + 8, 7u64 << 32] {
        let err = emu::dispatch_at(&mut dev, &p, "k", &launch, at, 0, &options).unwrap_err();
        assert!(
            matches!(&err, EmuError::Launch(emu::LaunchError::KernargOutOfBounds { addr, size, .. })
                if *addr == at && *size as usize == segment.len()),
            "{err:?}"
        );
    }
}

/// GFX9's VMEM hazard (gfx942 and gfx90a): a global access reading an SGPR (`saddr`) that a
/// VALU wrote needs 5 wait states; GFX11 interlocks.
#[test]
fn gfx9_vector_memory_reading_a_valu_written_sgpr_needs_five_wait_states() {
    let body = format!(
        "{PROLOGUE_GFX9}\n  v_mov_b32 v3, s6\n  s_nop 0\n  v_readfirstlane_b32 s6, v3\n  MIT\n  global_store_dword v1, v0, s[6:7]"
    );
    for cpu in ["gfx942", "gfx90a"] {
        let what = hazard_of(cpu, false, &body.replace("MIT", "s_nop 3")).expect("a hazard");
        assert!(what.contains("vector memory reads s[6:7]") && what.contains("5 are needed"), "{cpu}: {what}");
        assert!(hazard_of(cpu, false, &body.replace("MIT", "s_nop 4")).is_none(), "{cpu}");
    }
}

/// gfx90a's 64-bit shift bug: an amount in v15, the last VGPR of its block of 8, needs v16,
/// which a wave of 16 VGPRs lacks; an amount in v7 has v8, and gfx942 has no such rule.
#[test]
fn gfx90a_shift64_amount_at_a_block_end_needs_the_next_vgpr() {
    let body = |amount: &str| {
        format!(
            "  v_mov_b32 {amount}, 1\n  v_mov_b32 v4, 2\n  v_mov_b32 v5, 0\n  v_lshlrev_b64 v[2:3], {amount}, v[4:5]"
        )
    };
    let hazard = |cpu: &str, amount: &str| hazard_of(cpu, false, &body(amount));
    let what = hazard("gfx90a", "v15").expect("a hazard");
    assert!(what.contains("v15") && what.contains("v16 is not allocated"), "{what}");
    assert_eq!(hazard("gfx90a", "v7"), None);
    assert_eq!(hazard("gfx942", "v15"), None);
}
