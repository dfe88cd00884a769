//! The interpreter's wave semantics (ballot, readfirstlane, reductions and shuffles inside
//! divergent control flow, for wave sizes 32 and 64), message passing between workgroups, and
//! the faults it must report.

use frontend_ir::interp::{run_kernel, FaultKind, GlobalMemory, InterpError, Launch, MemError, Options};
use frontend_ir::parser::parse_module;
use gcnc_tests::{load_gir, run, words32};

/// Expected outputs of wave_ops.gir for one work-item, computed from the rules of
/// kernel-language.md: only odd lanes are active inside the branch.
fn wave_ops_expectation(id: u32, block: u32, ws: u32) -> ([u32; 5], u32) {
    let wave = id / ws;
    let start = wave * ws;
    let n = (block - start).min(ws);
    let lane = id - start;
    let ids = start..start + n;
    let all = if n == 32 || n == 64 { u32::MAX } else { (1u32 << n) - 1 };
    if id.is_multiple_of(2) {
        return ([0; 5], all);
    }
    let odd: Vec<u32> = ids.filter(|i| i % 2 == 1).collect();
    let ballot = odd.iter().filter(|&&i| i % 4 == 1).fold(0u64, |m, &i| m | 1 << (i - start)) as u32;
    let first = odd[0];
    let sum = odd.iter().sum::<u32>();
    let max = *odd.iter().max().unwrap();
    let shuffle = if lane + 2 < n { id + 2 } else { 0 };
    ([ballot, first, sum, max, shuffle], all)
}

#[test]
fn wave_operations_in_divergent_control_flow() {
    let m = load_gir("interp", "wave_ops");
    // 80 work-items: the last wave is partial for both wave sizes.
    for (ws, block) in [(32u32, 96u32), (32, 80), (64, 128), (64, 80)] {
        let mut mem = GlobalMemory::new();
        let outs = mem.alloc(vec![0; 20 * block as usize]);
        let all = mem.alloc(vec![0; 4 * block as usize]);
        run(&m, "wave_ops", &Launch::linear(block, block, ws), &[outs, all], &mut mem).unwrap();
        let got = words32(mem.buffer(outs).unwrap());
        let got_all = words32(mem.buffer(all).unwrap());
        for id in 0..block {
            let (want, want_all) = wave_ops_expectation(id, block, ws);
            assert_eq!(got[5 * id as usize..5 * id as usize + 5], want, "wave{ws} block {block} id {id}");
            assert_eq!(got_all[id as usize], want_all, "wave{ws} block {block} id {id}");
        }
    }
}

#[test]
fn message_passing_between_workgroups_finishes() {
    let m = load_gir("interp", "message_passing");
    for ws in [32, 64] {
        let mut mem = GlobalMemory::new();
        let payload = mem.alloc(vec![0; 4]);
        let flag = mem.alloc(vec![0; 4]);
        let out = mem.alloc(vec![0; 4]);
        let stats = run(&m, "message_passing", &Launch::linear(128, 64, ws), &[payload, flag, out], &mut mem).unwrap();
        assert_eq!(words32(mem.buffer(out).unwrap()), vec![42]);
        assert!(stats.wave_instructions > 0);
    }
}

/// Runs the single kernel of `src` on `grid` work-items (wave32) with a 16-word buffer and
/// returns the error it must report.
fn fault_of(src: &str, grid: u32, block: u32, options: &Options) -> InterpError {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test")));
    let (kernel, _) = m.kernels().next().unwrap();
    let mut mem = GlobalMemory::new();
    let buf = mem.alloc(vec![0; 64]);
    run_kernel(&m, kernel, &Launch::linear(grid, block, 32), &[buf], &mut mem, options).unwrap_err()
}

fn kind(err: InterpError) -> FaultKind {
    match err {
        InterpError::Fault { kind, .. } => kind,
        other => panic!("expected a fault, got {other}"),
    }
}

#[test]
fn out_of_bounds_access_names_the_lane() {
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    %1 = local_id.x\n    %2 = zext.i64 %1\n    %3 = iconst.i64 4\n    %4 = mul %2, %3\n    %5 = ptradd %0, %4\n    %6 = load.i32 %5\n    ret\n}\n",
        32,
        32,
        &Options::default(),
    );
    let text = err.to_string();
    // Lane 16 is the first whose 4-byte load passes the 64-byte buffer.
    assert!(text.contains("lane 16"), "{text}");
    assert!(text.contains("load.i32"), "{text}");
    assert!(matches!(kind(err), FaultKind::Memory(MemError::OutOfBounds { len: 4, .. })));
}

#[test]
fn uninitialized_shared_memory_read_is_an_error() {
    let err = fault_of(
        "kernel @k(ptr<global>) {\n    slot0 = shared 64 align 4\nblock0(%0: ptr<global>):\n    %1 = slot_addr slot0\n    %2 = load.i32 %1\n    store %0, %2\n    ret\n}\n",
        32,
        32,
        &Options::default(),
    );
    assert!(matches!(kind(err), FaultKind::Memory(MemError::UninitShared { offset: 0, len: 4 })));
}

#[test]
fn barrier_in_divergent_code_is_an_error() {
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    %1 = local_id.x\n    %2 = iconst.i32 3\n    %3 = icmp ult %1, %2\n    brif %3, block1, block2\nblock1:\n    barrier\n    jump block2\nblock2:\n    ret\n}\n",
        32,
        32,
        &Options::default(),
    );
    assert_eq!(kind(err), FaultKind::BarrierDivergent { active: 0b111, launched: 0xffff_ffff });
}

#[test]
fn barrier_missed_by_a_finished_wave_is_an_error() {
    // Waves 0 and 1 of a 64-item group: wave 1 returns early, wave 0 waits at the barrier.
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    %1 = local_id.x\n    %2 = iconst.i32 32\n    %3 = icmp ult %1, %2\n    brif %3, block1, block2\nblock1:\n    barrier\n    jump block2\nblock2:\n    ret\n}\n",
        64,
        64,
        &Options::default(),
    );
    assert_eq!(kind(err), FaultKind::BarrierMissed { finished: 1 });
}

#[test]
fn livelock_hits_the_step_limit() {
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    jump block1\nblock1:\n    %1 = atomic_load.i32 %0 acquire agent\n    %2 = iconst.i32 1\n    %3 = icmp eq %1, %2\n    brif %3, block2, block1\nblock2:\n    ret\n}\n",
        32,
        32,
        &Options { step_limit: 10_000, ..Options::default() },
    );
    assert_eq!(kind(err), FaultKind::StepLimit(10_000));
}

#[test]
fn unreachable_and_misalignment_are_errors() {
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    unreachable\n}\n",
        32,
        32,
        &Options::default(),
    );
    assert_eq!(kind(err), FaultKind::Unreachable);
    let err = fault_of(
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    %1 = iconst.i64 2\n    %2 = ptradd %0, %1\n    %3 = load.i32 %2\n    ret\n}\n",
        32,
        32,
        &Options::default(),
    );
    assert!(matches!(kind(err), FaultKind::Misaligned { align: 4, .. }));
}

#[test]
fn runs_are_deterministic() {
    let m = load_gir("interp", "histogram");
    let data: Vec<u8> = (0..4000u32).flat_map(|i| (i * 7919 % 1000).to_le_bytes()).collect();
    let mut results = Vec::new();
    for _ in 0..2 {
        let mut mem = GlobalMemory::new();
        let pd = mem.alloc(data.clone());
        let pb = mem.alloc(vec![0; 64]);
        let stats = run(&m, "histogram", &Launch::linear(1024, 256, 32), &[pd, pb, 1000], &mut mem).unwrap();
        results.push((stats, mem.buffer(pb).unwrap().to_vec()));
    }
    assert_eq!(results[0], results[1]);
}
