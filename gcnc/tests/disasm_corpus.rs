//! `gcnc disasm` against llvm-objdump-19 on the OpenCL corpus (`tests/cl/*.cl`): each kernel is
//! built by clang-19 for gfx1100, gfx1100 with `-mwavefrontsize64`, and gfx942, as the
//! ET_REL object and as the ET_DYN ld.lld-19 links from it; every instruction line gcnc prints
//! must be llvm-objdump's (`--mattr=+wavefrontsize64` for the wave64 objects), whitespace and
//! comments aside, in the same order. Skipped, with a message, when the LLVM 19 tools are not
//! on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One build configuration: clang's flags and llvm-objdump's.
struct Config {
    name: &'static str,
    clang: &'static [&'static str],
    objdump: &'static [&'static str],
}

const CONFIGS: [Config; 3] = [
    Config { name: "gfx1100", clang: &["-mcpu=gfx1100"], objdump: &[] },
    Config {
        name: "gfx1100-w64",
        clang: &["-mcpu=gfx1100", "-mwavefrontsize64"],
        objdump: &["--mattr=+wavefrontsize64"],
    },
    Config { name: "gfx942", clang: &["-mcpu=gfx942"], objdump: &[] },
];

fn tool_works(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The instruction lines of a listing: tab-indented, without the comment, trimmed.
fn instructions(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(|l| l.split("//").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Builds `cl` for `cfg` into `dir`: the ET_REL object and the ET_DYN linked from it.
fn build(cl: &Path, cfg: &Config, dir: &Path) -> [PathBuf; 2] {
    let stem = cl.file_stem().unwrap().to_string_lossy();
    let obj = dir.join(format!("{stem}.{}.o", cfg.name));
    let so = dir.join(format!("{stem}.{}.hsaco", cfg.name));
    run(Command::new("clang-19")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", "-c"])
        .args(cfg.clang)
        .arg(cl)
        .arg("-o")
        .arg(&obj));
    run(Command::new("ld.lld-19").arg("-shared").arg(&obj).arg("-o").arg(&so));
    [obj, so]
}

#[test]
fn disasm_prints_what_llvm_objdump_prints() {
    if !["clang-19", "ld.lld-19", "llvm-objdump-19"].iter().all(|t| tool_works(t)) {
        println!("SKIPPED: clang-19, ld.lld-19 or llvm-objdump-19 is not on PATH; nothing was compared");
        return;
    }
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cl");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("tests/cl exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 15, "the corpus has {} kernels, the issue asks for 15", sources.len());
    let dir = std::env::temp_dir().join(format!("gcnc-disasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two threads: the machine has two cores and clang is the slow part.
    let jobs: Vec<(&PathBuf, &Config)> = sources.iter().flat_map(|s| CONFIGS.iter().map(move |c| (s, c))).collect();
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let chunks: Vec<&[(&PathBuf, &Config)]> = jobs.chunks(jobs.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(|| chunk.iter().map(|&(cl, cfg)| compare(cl, cfg, &dir)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let checked: usize = results.iter().map(|(n, _)| n).sum();
    let failures: Vec<&String> = results.iter().flat_map(|(_, f)| f).collect();
    println!(
        "{} kernels x {} configurations x ET_REL and ET_DYN: {checked} instructions printed as llvm-objdump-19 prints them",
        sources.len(),
        CONFIGS.len()
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.iter().take(40).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// Compares gcnc's listing of `cl` built for `cfg` with llvm-objdump's: the number of
/// instructions compared and the differences.
fn compare(cl: &Path, cfg: &Config, dir: &Path) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in build(cl, cfg, dir) {
        let theirs = instructions(&run(Command::new("llvm-objdump-19").arg("-d").args(cfg.objdump).arg(&file)));
        let out = Command::new(env!("CARGO_BIN_EXE_gcnc")).arg("disasm").arg(&file).output().unwrap();
        if !out.status.success() {
            failures.push(format!("{}: gcnc disasm failed: {}", file.display(), String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        let ours = instructions(&String::from_utf8_lossy(&out.stdout));
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if ours.len() != theirs.len() {
            failures.push(format!("{name}: {} instructions, llvm-objdump-19 lists {}", ours.len(), theirs.len()));
        }
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a != b {
                failures.push(format!("{name} #{i}: gcnc `{a}`, llvm-objdump-19 `{b}`"));
            }
        }
        checked += ours.len().min(theirs.len());
    }
    (checked, failures)
}
