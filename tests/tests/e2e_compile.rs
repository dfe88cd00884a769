//! End to end: the kernels of tests/gir/e2e, the interpreter kernels of the foundation issue
//! (tests/gir/interp) and the OpenCL corpus rewritten as IR (tests/gir/cl) compile for gfx1100
//! (wave32 and wave64) and gfx942, run on the strict emulator, and give exactly what the
//! reference interpreter gives on the same inputs, under several interleaving seeds and for
//! every launch a file names (full and partial workgroups, full and partial waves); every
//! object passes LLVM 19's structural oracles; compiling is deterministic; and every wait gcnc
//! inserted is needed: deleting it makes the emulator report an error or compute other results
//! for some launch and seed, except the waits [`UNOBSERVABLE_WAITS`] explains.
//!
//! Each file says how to launch it in comment lines `; launch: grid=X[,Y[,Z]] block=X[,Y[,Z]]
//! [scalars=A,B,...]` (the scalars in parameter order). A kernel that needs a feature not
//! selected yet is listed in [`KNOWN_FAILURES`] with the reason: it still runs, its failure is
//! printed, and once it passes the list must lose it (the suite fails on a stale entry).

use frontend_ir::interp;
use frontend_ir::{FuncId, Module, Type};
use gcnc::check::{check, compare, element_types, CheckArg, CheckLaunch};
use gcnc::launch::parse_dims;
use gcnc::{compile, Options, Target, TargetId};
use gcnc_tests::{gir_files, Rng};
use std::process::Command;

/// The targets every kernel is compiled for: (target ID, wave size).
const TARGETS: [(&str, u32); 3] = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];

/// The folders of tests/gir whose kernels the suite runs.
const DIRS: [&str; 3] = ["e2e", "interp", "cl"];

/// Kernels (`folder/name`) that fail for now because a feature is missing, with the reason.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// The interleaving seeds of a kernel's first launch; its other launches run the first two.
const SEEDS: [u64; 3] = [0, 1, 7];

/// Kernels (`folder/name`) on targets (`gfx1100 wave64` and the like) whose inserted waits may
/// include some no launch can show needed, with the reason. Every other deleted wait must make
/// the emulator fail.
const UNOBSERVABLE_WAITS: &[(&str, &str, &str)] = &[
    ("interp/block_sum", "gfx1100 wave64", SINGLE_WAVE),
    ("interp/block_sum", "gfx942 wave64", SINGLE_WAVE),
    ("interp/block_sum", "gfx1100 wave32", "after the first level only wave 0 reads and writes LDS"),
    ("interp/prefix_scan", "gfx1100 wave64", SINGLE_WAVE),
    ("e2e/shared_reduce", "gfx1100 wave32", UNROLLED_LEVELS),
    ("e2e/shared_reduce", "gfx1100 wave64", UNROLLED_LEVELS),
    ("e2e/shared_reduce", "gfx942 wave64", UNROLLED_LEVELS),
    ("interp/prefix_scan", "gfx942 wave64", SINGLE_WAVE),
    ("interp/transpose", "gfx1100 wave64", SINGLE_WAVE),
    ("interp/transpose", "gfx942 wave64", SINGLE_WAVE),
    ("cl/tile", "gfx1100 wave64", SINGLE_WAVE),
    ("cl/tile", "gfx942 wave64", SINGLE_WAVE),
    ("cl/lds_reverse", "gfx1100 wave32", OWN_SLOT),
    ("cl/lds_reverse", "gfx1100 wave64", OWN_SLOT),
    ("cl/lds_reverse", "gfx942 wave64", OWN_SLOT),
    ("interp/message_passing", "gfx1100 wave32", IN_ORDER_STORES),
    ("interp/message_passing", "gfx1100 wave64", IN_ORDER_STORES),
    ("interp/message_passing", "gfx942 wave64", IN_ORDER_STORES),
    ("e2e/cas", "gfx1100 wave32", MEMORY_MODEL),
    ("e2e/cas", "gfx1100 wave64", MEMORY_MODEL),
    ("e2e/cas", "gfx942 wave64", MEMORY_MODEL),
    ("e2e/shared_ordered", "gfx1100 wave32", MEMORY_MODEL),
    ("e2e/shared_ordered", "gfx1100 wave64", MEMORY_MODEL),
    ("e2e/shared_ordered", "gfx942 wave64", MEMORY_MODEL),
    ("e2e/float_atomics", "gfx1100 wave32", IN_ORDER_LDS),
    ("e2e/float_atomics", "gfx1100 wave64", IN_ORDER_LDS),
    ("e2e/float_atomics", "gfx942 wave64", IN_ORDER_LDS),
    ("e2e/flat", "gfx1100 wave64", ONE_WAVE_BRANCHES),
    ("e2e/flat", "gfx942 wave64", ONE_WAVE_BRANCHES),
    ("e2e/flat_atomics", "gfx1100 wave32", MEMORY_MODEL),
    ("e2e/flat_atomics", "gfx1100 wave64", MEMORY_MODEL),
    ("e2e/flat_atomics", "gfx942 wave64", MEMORY_MODEL),
    ("interp/prefix_scan", "gfx1100 wave32", ELSE_ARM_RUNS),
    ("cl/scan", "gfx1100 wave32", ELSE_ARM_RUNS),
    ("cl/scan", "gfx1100 wave64", ELSE_ARM_RUNS),
    ("cl/scan", "gfx942 wave64", ELSE_ARM_RUNS),
];

/// Why the waits of ordered atomics and fences are unobservable on the emulator.
const MEMORY_MODEL: &str = "AMDGPUUsage's acquire/release waits order the wave's accesses for other \
     waves' and agents' caches, which the emulator does not model; a later wait covers each in the wave \
     (isel/tests/memory_model_table.rs checks them)";
/// Why a barrier's wait for LDS atomics is unobservable on the emulator.
const IN_ORDER_LDS: &str =
    "the emulator applies every wave's LDS stores and atomics in issue order, so a barrier's lgkmcnt wait \
     with only those outstanding orders nothing another wave sees";

/// Why some waits are unobservable in a kernel whose workgroup is one wave and whose divergent
/// branches run both sides in every wave.
const ONE_WAVE_BRANCHES: &str = "its workgroup is one wave: a barrier's waits order nothing another wave sees, \
     and every wave runs both sides of its divergent branches, so the waits one side needs are covered by the \
     other side's";
/// Why a barrier's waits are unobservable in a workgroup of one wave.
const SINGLE_WAVE: &str =
    "its workgroup size (required, or the one the kernel is written for) is one wave: a barrier's release \
     waits order nothing another wave sees";
/// Why a barrier's wait is unobservable after an else arm that runs on every path.
const ELSE_ARM_RUNS: &str = "the else arm's s_cbranch_execz went (sched::branches: its one move runs as well with no \
     lane active), so its wait for the then arm's LDS load, before the move overwrites that register, runs on \
     every path, and the barrier's lgkmcnt wait after the join finds nothing outstanding";
/// Why the barrier waits of a tree reduction's later levels are unobservable once unrolled.
const UNROLLED_LEVELS: &str = "the tree's loop is unrolled (opt::unroll), so each level has its own barrier \
     waits; from the level where only the first wave's lanes add (s <= wave size), only that wave reads and writes \
     LDS, and those levels' waits order nothing another wave sees (the first levels' waits stay observable)";
/// Why a barrier's waits are unobservable when each work-item reads back only its own slot.
const OWN_SLOT: &str = "each work-item reads back only the LDS slot it wrote";
/// Why a release's wait before a store is unobservable on the emulator.
const IN_ORDER_STORES: &str =
    "the emulator completes a wave's stores in order, so a release store never overtakes older ones";

/// The seeds under which a kernel with a deleted wait must fail (even ones read memory when a
/// load issues, odd ones when it completes).
const MUTANT_SEEDS: [u64; 4] = [0, 1, 7, 13];

fn target(id: &str, wave: u32) -> Target {
    let mut t = Target::new(TargetId::parse(id).unwrap());
    t.wave_size = wave;
    t
}

/// One launch of a kernel: its grid and block, and its scalar arguments as text.
struct Launch {
    grid: [u32; 3],
    block: [u32; 3],
    scalars: Vec<String>,
}

/// A kernel file of the suite with its launches.
struct Case {
    /// `folder/name`.
    name: String,
    module: Module,
    kernel: FuncId,
    launches: Vec<Launch>,
    /// Why it is expected to fail, if it is.
    known_failure: Option<&'static str>,
}

fn parse_launch(text: &str) -> Launch {
    let mut launch = Launch { grid: [1; 3], block: [1; 3], scalars: Vec::new() };
    for item in text.split_whitespace() {
        let (key, value) = item.split_once('=').unwrap_or_else(|| panic!("launch item {item} has no `=`"));
        match key {
            "grid" => launch.grid = parse_dims(value).unwrap(),
            "block" => launch.block = parse_dims(value).unwrap(),
            "scalars" => launch.scalars = value.split(',').map(str::to_string).collect(),
            _ => panic!("unknown launch key {key}"),
        }
    }
    launch
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for dir in DIRS {
        for path in gir_files(dir) {
            let src = std::fs::read_to_string(&path).unwrap();
            let name = format!("{dir}/{}", path.file_stem().unwrap().to_string_lossy());
            let module = frontend_ir::parser::parse_module(&src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let (kernel, _) = module.kernels().next().unwrap();
            let launches: Vec<Launch> =
                src.lines().filter_map(|l| l.strip_prefix("; launch: ")).map(parse_launch).collect();
            assert!(!launches.is_empty(), "{name} has no `; launch:` line");
            let known_failure = KNOWN_FAILURES.iter().find(|(n, _)| *n == name).map(|&(_, why)| why);
            cases.push(Case { name, module, kernel, launches, known_failure });
        }
    }
    for (name, _) in KNOWN_FAILURES {
        assert!(cases.iter().any(|c| c.name == *name), "KNOWN_FAILURES names {name}, which is not in the suite");
    }
    assert!(cases.len() >= 40, "the e2e suite has {} kernels", cases.len());
    cases
}

/// The cases expected to work: every test but the interpreter comparison skips known failures.
fn working_cases() -> impl Iterator<Item = Case> {
    cases().into_iter().filter(|c| c.known_failure.is_none())
}

/// Random inputs: buffers of the element type the kernel accesses (i32 if it never says),
/// eight elements per work-item (some kernels write several): integers below 2000 (also as the
/// raw bits of an f64, and as four bytes per f16), f32 multiples of 1/8 within ±125; scalars
/// from the launch line.
fn inputs(case: &Case, launch: &Launch, rng: &mut Rng) -> Vec<CheckArg> {
    let func = &case.module.functions[case.kernel];
    let items = launch.grid.iter().product::<u32>() as usize * 8;
    let types = element_types(func);
    let mut scalars = launch.scalars.iter();
    func.signature
        .params
        .iter()
        .zip(types)
        .map(|(&ty, elem)| {
            if ty.is_ptr() {
                let elem = elem.unwrap_or(Type::I32);
                let bytes = (0..items)
                    .flat_map(|_| {
                        let v = rng.below(2000);
                        match elem {
                            Type::F32 => ((v as f32 - 1000.0) / 8.0).to_bits().to_le_bytes().to_vec(),
                            Type::I64 | Type::F64 => v.to_le_bytes().to_vec(),
                            _ => (v as u32).to_le_bytes().to_vec(),
                        }
                    })
                    .collect();
                CheckArg::Buffer { ty: elem, bytes }
            } else {
                let text = scalars.next().unwrap_or_else(|| panic!("{}: a scalar missing in a launch line", case.name));
                CheckArg::Scalar(match ty {
                    Type::F32 => text.parse::<f32>().unwrap().to_bits() as u64,
                    _ => text.parse::<i64>().unwrap() as u64 & ty.mask(),
                })
            }
        })
        .collect()
}

#[test]
fn compiled_kernels_match_the_interpreter() {
    let (mut checked, mut failures, mut known) = (0, Vec::new(), Vec::new());
    for case in cases() {
        let mut failed = None;
        for (i, launch) in case.launches.iter().enumerate() {
            for (id, wave) in TARGETS {
                let t = target(id, wave);
                for &seed in if i == 0 { &SEEDS[..] } else { &SEEDS[..2] } {
                    let mut rng = Rng::new(seed + 100);
                    let args = inputs(&case, launch, &mut rng);
                    let check_launch = CheckLaunch {
                        grid: launch.grid,
                        block: launch.block,
                        dyn_shared_bytes: 0,
                        seed,
                        step_limit: None,
                    };
                    let what = format!(
                        "{} on {id} wave{wave}, grid {:?} block {:?}, seed {seed}",
                        case.name, launch.grid, launch.block
                    );
                    match check(&case.module, case.kernel, &t, &check_launch, &args) {
                        Ok(None) => checked += 1,
                        Ok(Some(m)) => failed = failed.or(Some(format!("{what}: {m}"))),
                        Err(e) => failed = failed.or(Some(format!("{what}: {e}"))),
                    }
                    if failed.is_some() && case.known_failure.is_some() {
                        break;
                    }
                }
            }
        }
        match (failed, case.known_failure) {
            (None, None) => {}
            (Some(f), None) => failures.push(f),
            (Some(f), Some(why)) => known.push(format!("{} ({why}): {f}", case.name)),
            (None, Some(_)) => failures.push(format!("{} passes now: remove it from KNOWN_FAILURES", case.name)),
        }
    }
    println!("{checked} (kernel, target, launch, seed) runs matched the interpreter");
    for k in &known {
        println!("KNOWN FAILURE {k}");
    }
    assert!(failures.is_empty(), "{} kernels fail:\n{}", failures.len(), failures.join("\n"));
}

fn tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run_tool(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !stderr.contains("warning"), "{cmd:?} failed: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn objects_pass_llvm_structural_oracles() {
    if !(tool("llvm-objdump-19") && tool("llvm-mc-19") && tool("ld.lld-19") && tool("llvm-readobj-19")) {
        println!("SKIPPED: the LLVM 19 tools are not installed (scripts/test.sh installs them)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("gcnc-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for case in working_cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            let compiled = compile(&case.module, &t, &Options { text: true, ..Options::default() }).unwrap();
            let tag = format!("{}-{id}-w{wave}", case.name.replace('/', "-"));
            let (obj, so) = (dir.join(format!("{tag}.o")), dir.join(format!("{tag}.hsaco")));
            std::fs::write(&obj, compiled.relocatable()).unwrap();
            std::fs::write(&so, compiled.shared()).unwrap();
            let mattr = if id == "gfx1100" && wave == 64 { vec!["--mattr=+wavefrontsize64"] } else { vec![] };
            let text = run_tool(Command::new("llvm-objdump-19").arg("-d").args(&mattr).arg(&obj));
            // Instructions of the kernel, which starts .text; the writer's padding follows it.
            let code_len = compiled.object.kernels[0].code.len() as u64;
            let listed = text
                .lines()
                .filter_map(|l| l.split("// ").nth(1)?.split(':').next().and_then(|a| u64::from_str_radix(a, 16).ok()))
                .filter(|&addr| addr < code_len)
                .count();
            assert!(!text.contains("<unknown>"), "{tag}: objdump cannot decode:\n{text}");
            assert_eq!(listed, compiled.stats[0].instructions, "{tag}: objdump lists another count:\n{text}");
            let rodata = run_tool(Command::new("llvm-objdump-19").args(["-D", "-j", ".rodata"]).arg(&obj));
            assert!(rodata.contains(".amdhsa_kernel"), "{tag}: descriptor not decoded:\n{rodata}");
            let notes = run_tool(Command::new("llvm-readobj-19").arg("--notes").arg(&so));
            assert!(notes.contains("amdhsa.kernels"), "{tag}: no metadata:\n{notes}");
            run_tool(Command::new("ld.lld-19").arg("-shared").arg(&obj).arg("-o").arg(dir.join(format!("{tag}.lld"))));
            // The kernel's assembly text (the code of -S's file) reassembles to the same .text bytes.
            let asm: String = compiled.asm.iter().map(|a| a.text.as_str()).collect();
            let asm_path = dir.join(format!("{tag}.s"));
            std::fs::write(&asm_path, &asm).unwrap();
            let (mc_obj, mc_text) = (dir.join(format!("{tag}.mc.o")), dir.join(format!("{tag}.text")));
            let mut mc = Command::new("llvm-mc-19");
            mc.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={id}"), "-filetype=obj"]);
            if wave == 64 && id == "gfx1100" {
                mc.arg("-mattr=+wavefrontsize64");
            }
            run_tool(mc.arg(&asm_path).arg("-o").arg(&mc_obj));
            run_tool(
                Command::new("llvm-objcopy-19")
                    .args(["-O", "binary", "--only-section=.text"])
                    .arg(&mc_obj)
                    .arg(&mc_text),
            );
            let bytes = std::fs::read(&mc_text).unwrap();
            assert_eq!(bytes, compiled.object.kernels[0].code, "{tag}: llvm-mc reassembles other bytes");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compiling_is_deterministic() {
    for case in working_cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            let a = compile(&case.module, &t, &Options::default()).unwrap().shared();
            let b = compile(&case.module, &t, &Options::default()).unwrap().shared();
            assert_eq!(a, b, "{} on {id} wave{wave}", case.name);
        }
    }
}

/// A module with every e2e kernel compiles to the same bytes on 1, 2 and 4 threads.
#[test]
fn output_does_not_depend_on_the_thread_count() {
    let text: String = gir_files("e2e").iter().map(|p| std::fs::read_to_string(p).unwrap() + "\n").collect();
    let module = frontend_ir::parser::parse_module(&text).unwrap();
    assert!(module.kernels().count() >= 8);
    for (id, wave) in TARGETS {
        let t = target(id, wave);
        let bytes = |threads| compile(&module, &t, &Options { threads, ..Options::default() }).unwrap().shared();
        let one = bytes(1);
        assert_eq!(bytes(2), one, "{id} wave{wave}: 2 threads");
        assert_eq!(bytes(4), one, "{id} wave{wave}: 4 threads");
    }
}

/// Deletes, one at a time, each wait gcnc inserted (rewriting it to `s_nop 0`) and shows that
/// for some launch of the kernel and some seed the emulator then reports an error or computes
/// other results than the interpreter: no wait is there by accident.
#[test]
fn every_inserted_wait_is_needed() {
    let (mut total, mut caught, mut exempted, mut unreported) = (0, 0, 0, Vec::new());
    for case in working_cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            let family = isa::opcode::Family::of(t.processor()).unwrap();
            let compiled = compile(&case.module, &t, &Options::default()).unwrap();
            let object = compiled.shared();
            let read = runtime_abi::read::read(&object).unwrap();
            let kernel = &read.kernels[0];
            let expected: Vec<Vec<_>> = case
                .launches
                .iter()
                .map(|l| MUTANT_SEEDS.iter().map(|&seed| interpreted(&case, l, wave, seed)).collect())
                .collect();
            let mut at = 0usize;
            while at < kernel.code.len() {
                let (inst, len) = isa::decode::decode(&kernel.code[at..], family, wave).unwrap();
                if matches!(inst.opcode, isa::opcode::Opcode::SWaitcnt | isa::opcode::Opcode::SWaitcntVscnt) {
                    total += 1;
                    let mut mutant = object.clone();
                    let pos = kernel.code_offset as usize + at;
                    mutant[pos..pos + 4].copy_from_slice(&0xbf80_0000u32.to_le_bytes());
                    let reported = case.launches.iter().zip(&expected).any(|(launch, e)| {
                        MUTANT_SEEDS.iter().zip(e).any(|(&seed, e)| mutant_fails(&case, launch, &t, &mutant, seed, e))
                    });
                    let wait = isa::asm::print_inst(&inst, family, wave);
                    let tag = format!("{id} wave{wave}");
                    let exempt = UNOBSERVABLE_WAITS.iter().any(|(k, t, _)| *k == case.name && *t == tag);
                    if reported {
                        caught += 1;
                    } else if exempt {
                        exempted += 1;
                    } else {
                        unreported.push(format!("{} on {id} wave{wave}: deleting `{wait}` at {at:#x}", case.name));
                    }
                }
                at += len;
            }
        }
    }
    println!(
        "{caught}/{total} deleted waits reported by the emulator ({exempted} unobservable, see UNOBSERVABLE_WAITS)"
    );
    assert!(unreported.is_empty(), "deleted waits that go unreported:\n{}", unreported.join("\n"));
    assert!(total > 0);
}

/// The interpreter's buffers (element type and bytes; `None` for a scalar) after running `case`
/// with the inputs of `launch` and `seed` in waves of `wave` lanes.
fn interpreted(case: &Case, launch: &Launch, wave: u32, seed: u64) -> Vec<Option<(Type, Vec<u8>)>> {
    let mut rng = Rng::new(seed + 100);
    let args = inputs(case, launch, &mut rng);
    let ilaunch = interp::Launch { grid: launch.grid, block: launch.block, wave_size: wave, dyn_shared_bytes: 0 };
    let (memory, bits) = gcnc::check::interpret(&case.module, case.kernel, &ilaunch, &args)
        .unwrap_or_else(|e| panic!("{} on the interpreter: {e:?}", case.name));
    args.iter()
        .zip(&bits)
        .map(|(a, &b)| match a {
            CheckArg::Buffer { ty, .. } => Some((*ty, memory.buffer(b).unwrap_or_default().to_vec())),
            CheckArg::Scalar(_) => None,
        })
        .collect()
}

/// Whether the mutant `object` fails for `launch` and `seed`: the emulator reports an error, or
/// a buffer differs from the interpreter's (`expected`).
fn mutant_fails(
    case: &Case,
    launch: &Launch,
    t: &Target,
    object: &[u8],
    seed: u64,
    expected: &[Option<(Type, Vec<u8>)>],
) -> bool {
    let Ok(program) = emu::load(object) else { return true };
    let mut device = emu::Device::new();
    let mut rng = Rng::new(seed + 100);
    let mut addrs = Vec::new();
    let args: Vec<emu::ArgValue> = inputs(case, launch, &mut rng)
        .into_iter()
        .zip(&case.module.functions[case.kernel].signature.params)
        .map(|(a, ty)| match a {
            CheckArg::Buffer { bytes, .. } => {
                let addr = device.alloc(bytes);
                addrs.push(Some(addr));
                emu::ArgValue::ptr(addr)
            }
            CheckArg::Scalar(b) => {
                addrs.push(None);
                emu::ArgValue { bytes: b.to_le_bytes()[..ty.bytes().unwrap() as usize].to_vec() }
            }
        })
        .collect();
    let elaunch = emu::Launch { grid: launch.grid, block: launch.block, dyn_shared_bytes: 0 };
    let options = emu::Options { wave_size: Some(t.wave_size), seed, ..emu::Options::default() };
    let name = &case.module.functions[case.kernel].name;
    if emu::dispatch(&mut device, &program, name, &elaunch, &args, &options).is_err() {
        return true;
    }
    addrs.iter().zip(expected).any(|(addr, e)| match (addr, e) {
        (Some(addr), Some((ty, bytes))) => compare(*ty, bytes, device.buffer(*addr).unwrap_or_default(), &[]).is_some(),
        _ => false,
    })
}
