//! Regression kernels: each `tests/regress/NAME.gk` or `NAME.gir` is a program that once
//! compiled to wrong code, was rejected, or crashed (most were found by the differential
//! fuzzer, minimized, and kept with the fix). Its header gives the dispatch in the command
//! line's syntax: `// launch:` lines in a `.gk` (as in the conformance suite; the kernel is
//! named after the file), `; launch:` lines in a `.gir` (every `--arg` typed, since the IR
//! does not know signed from unsigned). It must pass a differential check, the compiled kernel
//! on the emulator against the reference interpreter, on every configuration of [`CONFIGS`].
//!
//! The register-pressure suite, `tests/pressure/NAME.gk` in the same format, holds kernels
//! that need more registers than a file has (uniform values past the SGPRs, lane masks of deep
//! loop nests in wave64, values live across loops and divergent branches): they must compile
//! with spills and pass the same check on gfx1100 wave32 and wave64 and on gfx942
//! ([`PRESSURE_CONFIGS`]).

use std::path::Path;

use gcnc::check::{check, CheckArg, CheckLaunch};
use gcnc::ir::{AddrSpace, FuncId, InstData, Module};
use gcnc::kernel_file::{parse_launch_words, KernelFile};
use gcnc::launch::ArgSpec;
use gcnc::{Target, TargetId};

/// The configurations every regression kernel is checked on: each verified target at each
/// wave size, and the modes the memory-model sequences depend on.
const CONFIGS: [(&str, u32, bool, bool); 7] = [
    ("gfx1100", 32, false, false),
    ("gfx1100", 64, false, false),
    ("gfx1100", 32, true, false),
    ("gfx942", 64, false, false),
    ("gfx942", 64, false, true),
    ("gfx90a", 64, false, false),
    ("gfx90a", 64, false, true),
];

/// The configurations of the register-pressure suite.
const PRESSURE_CONFIGS: [(&str, u32, bool, bool); 4] = [
    ("gfx1100", 32, false, false),
    ("gfx1100", 64, false, false),
    ("gfx942", 64, false, false),
    ("gfx90a", 64, false, false),
];

fn label(&(mcpu, wave, cumode, tgsplit): &(&str, u32, bool, bool)) -> String {
    let mode = if cumode {
        " -mcumode"
    } else if tgsplit {
        " -mtgsplit"
    } else {
        ""
    };
    format!("{mcpu} wave{wave}{mode}")
}

/// A regression kernel ready to check.
struct Regression {
    module: Module,
    kernel: FuncId,
    launch: CheckLaunch,
    args: Vec<CheckArg>,
    /// Whether it uses workgroup-shared memory or barriers, which threadgroup split mode has
    /// not (AMDGPUUsage): such kernels are not checked with `-mtgsplit`.
    shared: bool,
}

/// Whether `kernel` has shared slots, barriers or dynamic shared memory.
fn uses_workgroup_memory(module: &Module, kernel: FuncId) -> bool {
    let func = &module.functions[kernel];
    func.slots.values().any(|slot| slot.space == AddrSpace::Shared)
        || func.insts_in_layout().any(|(_, i)| matches!(func.dfg.insts[i], InstData::Barrier | InstData::DynSharedAddr))
}

/// Reads `NAME.gk` through the conformance suite's case parser.
fn from_gk(name: &str, text: &str) -> Result<Regression, String> {
    let case = KernelFile::parse(name, text).map_err(|e| e.to_string())?;
    let args = case.check_args().map_err(|e| e.to_string())?;
    let launch = CheckLaunch {
        grid: case.launch.grid,
        block: case.launch.block,
        dyn_shared_bytes: case.launch.dyn_shared_bytes,
        seed: 0,
        step_limit: None,
    };
    let shared = uses_workgroup_memory(&case.module, case.kernel);
    Ok(Regression { module: case.module, kernel: case.kernel, launch, args, shared })
}

/// Reads `NAME.gir`: its one kernel, and the launch of its `; launch:` lines.
fn from_gir(text: &str) -> Result<Regression, String> {
    let module = gcnc::ir::parser::parse_module(text).map_err(|e| e.render(text, "regression"))?;
    let kernel = module.kernels().next().ok_or("no kernel")?.0;
    let words = text.lines().enumerate().filter_map(|(i, l)| Some((i + 1, l.trim_start().strip_prefix("; launch:")?)));
    let words = words.flat_map(|(i, rest)| rest.split_whitespace().map(move |w| (i, w)));
    let (grid, block, specs) = parse_launch_words(words).map_err(|(line, reason)| format!("line {line}: {reason}"))?;
    let args = specs
        .into_iter()
        .map(|spec| match spec {
            ArgSpec::Buffer { ty, .. } => {
                Ok(CheckArg::Buffer { ty: ty.ir_type(), bytes: spec.materialize().map_err(|e| e.to_string())? })
            }
            spec => Ok(CheckArg::Scalar(spec.scalar_bits(None).map_err(|e| e.to_string())?.1)),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let shared = uses_workgroup_memory(&module, kernel);
    Ok(Regression {
        module,
        kernel,
        launch: CheckLaunch { grid, block, dyn_shared_bytes: 0, seed: 0, step_limit: None },
        args,
        shared,
    })
}

/// Checks every kernel of `tests/DIR` on `configs`; gives the number of kernels.
fn check_suite(dir: &str, configs: &[(&str, u32, bool, bool)]) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gk" || e == "gir"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no kernels in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = if path.extension().is_some_and(|e| e == "gk") { from_gk(name, &text) } else { from_gir(&text) };
        let r = match parsed {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        for config in configs.iter().filter(|c| !(c.3 && r.shared)) {
            let (mcpu, wave_size, cumode, tgsplit) = *config;
            let target = Target { wave_size, cumode, tgsplit, ..Target::new(TargetId::parse(mcpu).unwrap()) };
            match check(&r.module, r.kernel, &target, &r.launch, &r.args) {
                Ok(None) => {}
                Ok(Some(m)) => failures.push(format!("{name} on {}: {m}", label(config))),
                Err(e) => failures.push(format!("{name} on {}: {e}", label(config))),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures in {} kernels:\n{}", failures.len(), files.len(), failures.join("\n"));
    files.len()
}

#[test]
fn regression_kernels_pass_on_every_configuration() {
    check_suite("regress", &CONFIGS);
}

#[test]
fn register_pressure_kernels_spill_and_pass() {
    assert!(check_suite("pressure", &PRESSURE_CONFIGS) >= 2);
}

/// Occupancy is decided once (`runtime_abi::occupancy`): every register-pressure kernel,
/// compiled for each configuration and for gfx1100 in CU mode, reaches its wave target by the
/// descriptor's register blocks (what the emulator and the hardware take), its statistics say
/// so, and the largest workgroup its metadata allows is resident by the emulator's check.
#[test]
fn pressure_kernels_reach_their_wave_target_by_their_descriptors() {
    use runtime_abi::occupancy::{check_resident, descriptor_occupancy, descriptor_target};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("pressure");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let configs = PRESSURE_CONFIGS.iter().chain(&[("gfx1100", 32, true, false)]);
    for (path, config) in files.iter().flat_map(|p| configs.clone().map(move |c| (p, c))) {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let r = from_gk(name, &std::fs::read_to_string(path).unwrap()).unwrap();
        let (mcpu, wave_size, cumode, _) = *config;
        let target = Target { wave_size, cumode, ..Target::new(TargetId::parse(mcpu).unwrap()) };
        let compiled = gcnc::compile::compile(&r.module, &target, &Default::default()).unwrap();
        let (code, stats) = (&compiled.object.kernels[0], &compiled.stats[0]);
        let proc = target.processor();
        let occupancy = descriptor_occupancy(&code.descriptor, proc, wave_size);
        let what = format!("{name} on {}", label(config));
        assert_eq!(occupancy.waves_per_simd, stats.waves_per_simd, "{what}");
        assert!(occupancy.waves_per_simd >= stats.wave_target, "{what}: {occupancy:?}, target {}", stats.wave_target);
        assert_eq!(descriptor_target(&code.descriptor, proc, wave_size), target, "{what}");
        check_resident(&target, occupancy, code.metadata.max_flat_workgroup_size)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// Values spilling can recompute are not stored: in `remat_offsets`, 150 offsets `g + k` live
/// beside 150 loaded values come back as their adds where they are read (`g` stays in
/// registers), so nothing goes to scratch or AGPRs, on every configuration of the suite (the
/// suite's check above runs them).
#[test]
fn rematerialized_offsets_are_neither_stored_nor_reloaded() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("pressure/remat_offsets.gk");
    let r = from_gk("remat_offsets", &std::fs::read_to_string(path).unwrap()).unwrap();
    for config in &PRESSURE_CONFIGS {
        let (mcpu, wave_size, ..) = *config;
        let target = Target { wave_size, ..Target::new(TargetId::parse(mcpu).unwrap()) };
        let options = gcnc::compile::Options { ..Default::default() };
        let compiled = gcnc::compile::compile(&r.module, &target, &options).unwrap();
        let s = &compiled.stats[0];
        assert!(s.vgprs > 200, "{}: {} VGPRs, the kernel is meant to press", label(config), s.vgprs);
        assert_eq!((s.spills.spills, s.spills.reloads), (0, 0), "{}: {:?}", label(config), s.spills);
        assert!(s.spills.remats >= 30, "{}: {:?}", label(config), s.spills);
    }
}
