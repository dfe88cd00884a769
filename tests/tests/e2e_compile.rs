//! End to end: the kernels of tests/gir/e2e compile for gfx1100 (wave32 and wave64) and gfx942,
//! run on the strict emulator, and give exactly what the reference interpreter gives on the
//! same inputs, under several interleaving seeds; every object passes LLVM 19's structural
//! oracles; compiling is deterministic; and every wait gcnc inserted is needed (deleting it
//! makes the emulator report an error).

use frontend_ir::{FuncId, Module, Type};
use gcnc::check::{check, element_types, CheckArg, CheckLaunch};
use gcnc::{compile, Options, Target, TargetId};
use gcnc_tests::{gir_files, Rng};
use std::process::Command;

/// The targets every kernel is compiled for: (target ID, wave size).
const TARGETS: [(&str, u32); 3] = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];

fn target(id: &str, wave: u32) -> Target {
    let mut t = Target::new(TargetId::parse(id).unwrap());
    t.wave_size = wave;
    t
}

/// A kernel file of the suite with its launch (`; launch: grid=X[,Y] block=X[,Y] scalars=...`).
struct Case {
    name: String,
    module: Module,
    kernel: FuncId,
    grid: [u32; 3],
    block: [u32; 3],
    scalars: Vec<String>,
}

fn dims(text: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, part) in text.split(',').enumerate() {
        d[i] = part.parse().unwrap();
    }
    d
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for path in gir_files("e2e") {
        let src = std::fs::read_to_string(&path).unwrap();
        let module = frontend_ir::parser::parse_module(&src).unwrap();
        let (kernel, _) = module.kernels().next().unwrap();
        let launch = src.lines().find_map(|l| l.strip_prefix("; launch: ")).expect("a launch line");
        let (mut grid, mut block, mut scalars) = ([1; 3], [1; 3], Vec::new());
        for item in launch.split_whitespace() {
            let (key, value) = item.split_once('=').unwrap();
            match key {
                "grid" => grid = dims(value),
                "block" => block = dims(value),
                "scalars" => scalars = value.split(',').map(str::to_string).collect(),
                _ => panic!("unknown launch key {key}"),
            }
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        cases.push(Case { name, module, kernel, grid, block, scalars });
    }
    assert!(cases.len() >= 8, "the e2e suite has {} kernels", cases.len());
    cases
}

/// Random inputs: buffers of the element type the kernel accesses (i32 if it never says),
/// eight elements per work-item (some kernels write several); scalars from the launch line.
fn inputs(case: &Case, rng: &mut Rng) -> Vec<CheckArg> {
    let func = &case.module.functions[case.kernel];
    let items = case.grid.iter().product::<u32>() as usize * 8;
    let types = element_types(func);
    let mut scalars = case.scalars.iter();
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
                let text = scalars.next().expect("a scalar in the launch line");
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
    let mut checked = 0;
    for case in cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            for seed in [0u64, 1, 7] {
                let mut rng = Rng::new(seed + 100);
                let args = inputs(&case, &mut rng);
                let launch = CheckLaunch { grid: case.grid, block: case.block, dyn_shared_bytes: 0, seed };
                match check(&case.module, case.kernel, &t, &launch, &args) {
                    Ok(None) => checked += 1,
                    Ok(Some(m)) => panic!("{} on {id} wave{wave} seed {seed}: {m}", case.name),
                    Err(e) => panic!("{} on {id} wave{wave} seed {seed}: {e}", case.name),
                }
            }
        }
    }
    println!("{checked} (kernel, target, seed) runs matched the interpreter");
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
    for case in cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            let compiled = compile(&case.module, &t, &Options::default()).unwrap();
            let tag = format!("{}-{id}-w{wave}", case.name);
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
            // The -S text reassembles to the same .text bytes.
            let asm: String = compiled.asm.iter().map(|(_, a)| a.as_str()).collect();
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
    for case in cases() {
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

/// Deletes, one at a time, each wait gcnc inserted (rewriting it to `s_nop 0`) and shows the
/// emulator then reports an error for some seed: no wait is there by accident.
#[test]
fn every_inserted_wait_is_needed() {
    let (mut total, mut caught) = (0, 0);
    for case in cases() {
        for (id, wave) in TARGETS {
            let t = target(id, wave);
            let family = isa::opcode::Family::of(t.generation()).unwrap();
            let compiled = compile(&case.module, &t, &Options::default()).unwrap();
            let object = compiled.shared();
            let read = runtime_abi::read::read(&object).unwrap();
            let kernel = &read.kernels[0];
            let mut at = 0usize;
            while at < kernel.code.len() {
                let (inst, len) = isa::decode::decode(&kernel.code[at..], family, wave).unwrap();
                if matches!(inst.opcode, isa::opcode::Opcode::SWaitcnt | isa::opcode::Opcode::SWaitcntVscnt) {
                    total += 1;
                    let mut mutant = object.clone();
                    let pos = kernel.code_offset as usize + at;
                    mutant[pos..pos + 4].copy_from_slice(&0xbf80_0000u32.to_le_bytes());
                    let reported = [0u64, 1, 7, 13].iter().any(|&seed| run_mutant(&case, &t, &mutant, seed).is_err());
                    assert!(
                        reported,
                        "{} on {id} wave{wave}: deleting `{}` at {at:#x} goes unreported",
                        case.name,
                        isa::asm::print_inst(&inst, family, wave)
                    );
                    caught += 1;
                }
                at += len;
            }
        }
    }
    println!("{caught}/{total} deleted waits reported by the emulator");
    assert!(total > 0);
}

fn run_mutant(case: &Case, t: &Target, object: &[u8], seed: u64) -> Result<(), emu::EmuError> {
    let program = emu::load(object)?;
    let mut device = emu::Device::new();
    let mut rng = Rng::new(seed + 100);
    let args: Vec<emu::ArgValue> = inputs(case, &mut rng)
        .into_iter()
        .zip(&case.module.functions[case.kernel].signature.params)
        .map(|(a, ty)| match a {
            CheckArg::Buffer { bytes, .. } => emu::ArgValue::ptr(device.alloc(bytes)),
            CheckArg::Scalar(b) => emu::ArgValue { bytes: b.to_le_bytes()[..ty.bytes().unwrap() as usize].to_vec() },
        })
        .collect();
    let launch = emu::Launch { grid: case.grid, block: case.block, dyn_shared_bytes: 0 };
    let options = emu::Options { wave_size: Some(t.wave_size), seed, ..emu::Options::default() };
    let name = &case.module.functions[case.kernel].name;
    emu::dispatch(&mut device, &program, name, &launch, &args, &options).map(|_| ())
}
