//! `gcnc compile -S` against `-c`, with llvm-mc-19 as the oracle (issue 22): every conformance
//! kernel (`tests/conformance/*.gk`), compiled for gfx1100 wave32, gfx1100 wave64, gfx942 and gfx90a as
//! the command line compiles it for `-S` (with text) and for `-c` (without), gives an assembly
//! file that `llvm-mc-19 -filetype=obj` assembles into an object with the `-c` object's
//! e_flags and ABI version, kernels, code at the same place in `.text`, 64 descriptor bytes and
//! metadata (as decoded msgpack values, key order aside). One llvm-mc-19 run per kernel file
//! and target; then one file of every kernel per target, whose block labels must not clash.
//! Skipped, with a message, when llvm-mc-19 is not on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

use gcnc::compile::{compile, Compiled, Options};
use gcnc::ir::Module;
use gcnc::{Target, TargetId};
use runtime_abi::inspect::{msgpack, Doc};
use runtime_abi::read::{read, ReadObject};

/// (the `-mcpu` of gcnc and llvm-mc-19, wave size, llvm-mc-19's `-mattr`).
const TARGETS: [(&str, u32, &str); 4] =
    [("gfx1100", 32, ""), ("gfx1100", 64, "+wavefrontsize64"), ("gfx942", 64, ""), ("gfx90a", 64, "")];

/// A kernel file of the suite, compiled to IR.
struct Source {
    name: String,
    module: Module,
    signatures: Vec<lang::KernelSignature>,
}

fn sources() -> Vec<Source> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gk"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(path).unwrap();
            let compiled = lang::compile(&text, &file).unwrap_or_else(|d| panic!("{}", d.render(&text)));
            Source { name: file, module: compiled.module, signatures: compiled.kernels }
        })
        .collect()
}

fn target(cpu: &str, wave_size: u32) -> Target {
    Target { wave_size, ..Target::new(TargetId::parse(cpu).unwrap()) }
}

/// Compiles `module` as `gcnc compile` does: with the text for `-S`, without for `-c`, the
/// arguments described from the source either way.
fn compile_as_cli(module: &Module, signatures: &[lang::KernelSignature], target: &Target, text: bool) -> Compiled {
    let mut compiled = compile(module, target, &Options { text, ..Options::default() }).unwrap();
    compiled.describe_params(signatures);
    compiled
}

/// Whether llvm-mc-19 runs; says that the test is skipped if not.
fn llvm_mc_works() -> bool {
    let works = Command::new("llvm-mc-19").arg("--version").output().is_ok_and(|o| o.status.success());
    if !works {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); no -S output was assembled");
    }
    works
}

/// llvm-mc-19's object of the assembly `text`, written to `dir/tag.s`.
fn llvm_mc(text: &str, cpu: &str, mattr: &str, dir: &Path, tag: &str) -> Vec<u8> {
    let (source, object) = (dir.join(format!("{tag}.s")), dir.join(format!("{tag}.o")));
    std::fs::write(&source, text).unwrap();
    let mut cmd = Command::new("llvm-mc-19");
    cmd.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-filetype=obj"]);
    if !mattr.is_empty() {
        cmd.arg(format!("-mattr={mattr}"));
    }
    let out = cmd.arg(&source).arg("-o").arg(&object).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{tag}: llvm-mc-19 says:\n{stderr}");
    std::fs::read(&object).unwrap()
}

fn metadata(object: &ReadObject, tag: &str) -> Doc {
    let bytes = object.metadata_msgpack.as_ref().unwrap_or_else(|| panic!("{tag}: no metadata note"));
    msgpack::decode(bytes, 0).unwrap_or_else(|e| panic!("{tag}: {e}")).sorted()
}

/// The 64 descriptor bytes of each kernel, as stored in the file.
fn descriptors(bytes: &[u8], object: &ReadObject) -> Vec<Vec<u8>> {
    object.kernels.iter().map(|k| bytes[k.descriptor_offset as usize..][..64].to_vec()).collect()
}

/// Each kernel's name, code, and code offset from the first kernel's.
fn code(object: &ReadObject) -> Vec<(String, Vec<u8>, u64)> {
    let first = object.kernels.first().map_or(0, |k| k.code_offset);
    object.kernels.iter().map(|k| (k.name.clone(), k.code.clone(), k.code_offset - first)).collect()
}

/// llvm-mc-19's object of `asm` has `ours`'s e_flags, ABI version, kernels, code, descriptor
/// bytes and metadata; returns the number of kernels compared.
fn assert_same_object(theirs_bytes: &[u8], ours_bytes: &[u8], tag: &str) -> usize {
    let theirs = read(theirs_bytes).unwrap_or_else(|e| panic!("{tag}: llvm-mc-19's object: {e}"));
    let ours = read(ours_bytes).unwrap();
    assert_eq!((theirs.e_flags, theirs.abi_version), (ours.e_flags, ours.abi_version), "{tag}: e_flags, ABI");
    assert!(!ours.kernels.is_empty(), "{tag}");
    assert_eq!(code(&theirs), code(&ours), "{tag}: kernels, code and its place in .text");
    assert_eq!(descriptors(theirs_bytes, &theirs), descriptors(ours_bytes, &ours), "{tag}: descriptor bytes");
    assert_eq!(metadata(&theirs, tag), metadata(&ours, tag), "{tag}: metadata");
    ours.kernels.len()
}

/// Every kernel file on every target: `-S`, through llvm-mc-19, is `-c`.
#[test]
fn every_conformance_kernel_reassembles_to_its_object() {
    if !llvm_mc_works() {
        return;
    }
    let sources = sources();
    assert!(sources.len() >= 30, "the suite has {} kernel files", sources.len());
    let dir = std::env::temp_dir().join(format!("gcnc-assembly-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jobs: Vec<(&Source, (&str, u32, &str))> =
        sources.iter().flat_map(|s| TARGETS.into_iter().map(move |t| (s, t))).collect();
    // Two threads: the machine has two cores.
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let (jobs, dir) = (&jobs, &dir);
                scope.spawn(move || {
                    jobs.iter()
                        .skip(w)
                        .step_by(2)
                        .map(|&(source, (cpu, wave, mattr))| {
                            let tag = format!("{}-{cpu}-w{wave}", source.name.trim_end_matches(".gk"));
                            let t = target(cpu, wave);
                            let asm = compile_as_cli(&source.module, &source.signatures, &t, true)
                                .assembly()
                                .unwrap_or_else(|e| panic!("{tag}: {e}"));
                            let obj = compile_as_cli(&source.module, &source.signatures, &t, false).relocatable();
                            assert_same_object(&llvm_mc(&asm, cpu, mattr, dir, &tag), &obj, &tag)
                        })
                        .sum::<usize>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    println!(
        "{} kernels in {} files on {} targets: -S reassembles to -c",
        counts.iter().sum::<usize>(),
        sources.len(),
        TARGETS.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// One file of every conformance kernel per target: the kernels' block labels differ, and the
/// code between and after them is padded as in the `-c` object.
#[test]
fn a_file_of_every_kernel_reassembles_to_its_object() {
    if !llvm_mc_works() {
        return;
    }
    let sources = sources();
    let mut module = Module::default();
    let mut signatures = Vec::new();
    for source in &sources {
        for (_, kernel) in source.module.kernels() {
            module.push(kernel.clone());
        }
        signatures.extend(source.signatures.iter().cloned());
    }
    let dir = std::env::temp_dir().join(format!("gcnc-assembly-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cpu, wave, mattr) in TARGETS {
        let tag = format!("all-{cpu}-w{wave}");
        let compiled = compile_as_cli(&module, &signatures, &target(cpu, wave), true);
        let asm = compiled.assembly().unwrap_or_else(|e| panic!("{tag}: {e}"));
        let labels = asm.lines().filter(|l| l.starts_with(".LBB")).count();
        let kernels = assert_same_object(&llvm_mc(&asm, cpu, mattr, &dir, &tag), &compiled.relocatable(), &tag);
        assert_eq!(kernels, sources.len(), "{tag}: one kernel per file");
        assert!(labels > 2 * kernels, "{tag}: only {labels} block labels");
    }
    std::fs::remove_dir_all(&dir).ok();
}
