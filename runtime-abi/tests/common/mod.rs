//! Shared by the oracle tests: compiling the OpenCL kernels of `tests/cl` with clang-19 for
//! every target configuration, running the LLVM tools, and parsing what they print.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use runtime_abi::{CodeObject, KernelCode, ReadObject};

/// The kernels of `tests/cl`.
pub const KERNELS: [&str; 3] = ["vadd", "tile", "priv"];

/// A target configuration: processor and wave size.
#[derive(Copy, Clone, Debug)]
pub struct Config {
    pub cpu: &'static str,
    pub wave64: bool,
}

/// gfx1100 wave32 and wave64, gfx942.
pub const CONFIGS: [Config; 3] = [
    Config { cpu: "gfx1100", wave64: false },
    Config { cpu: "gfx1100", wave64: true },
    Config { cpu: "gfx942", wave64: true },
];

/// One clang-19 compilation.
#[derive(Debug)]
pub struct Sample {
    pub kernel: &'static str,
    pub config: Config,
    pub version: u8,
    /// The ET_REL clang wrote.
    pub object: PathBuf,
    /// `clang -S` output, for the `.amdhsa_*` directives.
    pub asm: String,
}

impl Sample {
    pub fn label(&self) -> String {
        let wave = if self.config.wave64 { "w64" } else { "w32" };
        format!("{}-{}-{wave}-v{}", self.kernel, self.config.cpu, self.version)
    }

    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.object).unwrap()
    }

    /// A path for a derived file.
    pub fn derived(&self, suffix: &str) -> PathBuf {
        self.object.with_file_name(format!("{}.{suffix}", self.label()))
    }

    /// `llvm-objdump-19 -d` of `path` (with `--mattr=+wavefrontsize64` for gfx10+ wave64,
    /// which the ELF does not record): the instructions of this sample's kernel in its first
    /// `len` bytes, as (address, text).
    pub fn disassemble(&self, path: &Path, len: u64) -> Vec<(u64, String)> {
        let mut args = vec!["-d"];
        if self.config.wave64 && self.config.cpu.starts_with("gfx1") {
            args.push("--mattr=+wavefrontsize64");
        }
        instructions(&run_clean("llvm-objdump-19", &args, path), self.kernel, len)
    }
}

/// Whether the LLVM 19 tools are installed; prints why a test is skipped if not.
pub fn have_llvm() -> bool {
    let ok = ["clang-19", "ld.lld-19", "llvm-readobj-19", "llvm-readelf-19", "llvm-objdump-19"]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok_and(|out| out.status.success()));
    if !ok {
        println!("skipped: the LLVM 19 tools (clang-19, ld.lld-19, llvm-readobj-19, ...) are not installed");
    }
    ok
}

fn cl_source(kernel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cl").join(format!("{kernel}.cl"))
}

/// A directory for this test process's files.
pub fn work_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("runtime-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `kernel` with clang-19 and `extra` flags (`-c` or `-S` among them) to `output`.
pub fn clang(kernel: &str, config: Config, version: u8, output: &Path, extra: &[&str]) {
    let mut cmd = Command::new("clang-19");
    cmd.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib"]);
    if !extra.iter().any(|flag| flag.starts_with("-O")) {
        cmd.arg("-O2");
    }
    cmd.arg(format!("-mcpu={}", config.cpu))
        .arg(format!("-mcode-object-version={version}"))
        .args(extra)
        .arg(cl_source(kernel))
        .arg("-o")
        .arg(output);
    if config.wave64 && config.cpu.starts_with("gfx1") {
        cmd.arg("-mwavefrontsize64");
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "clang-19 failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// Every kernel for every configuration and code-object version 4, 5 and 6, compiled once
/// per test binary.
pub fn samples() -> &'static [Sample] {
    static SAMPLES: OnceLock<Vec<Sample>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let dir = work_dir();
        let mut samples = Vec::new();
        for kernel in KERNELS {
            for config in CONFIGS {
                for version in [4u8, 5, 6] {
                    let mut sample = Sample { kernel, config, version, object: PathBuf::new(), asm: String::new() };
                    sample.object = dir.join(format!("{}.o", sample.label()));
                    let asm = dir.join(format!("{}.s", sample.label()));
                    clang(kernel, config, version, &sample.object, &["-c"]);
                    clang(kernel, config, version, &asm, &["-S"]);
                    sample.asm = std::fs::read_to_string(&asm).unwrap();
                    samples.push(sample);
                }
            }
        }
        samples
    })
}

/// Runs a tool; panics unless it succeeds without printing to stderr (LLVM tools warn there).
pub fn run_clean(tool: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(tool).args(args).arg(path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{tool} {args:?} {}: {stderr}", path.display());
    String::from_utf8(out.stdout).unwrap()
}

/// ld.lld-19 -shared.
pub fn lld_shared(input: &Path, output: &Path) {
    let out = Command::new("ld.lld-19").arg("-shared").arg(input).arg("-o").arg(output).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "ld.lld-19 {}: {stderr}", input.display());
}

/// The `.amdhsa_*` directives of kernel `name` in `clang -S` output, without the prefix.
pub fn directives(asm: &str, name: &str) -> BTreeMap<String, i64> {
    let start = format!(".amdhsa_kernel {name}");
    let mut inside = false;
    let mut found = BTreeMap::new();
    for line in asm.lines().map(str::trim) {
        if line == start {
            inside = true;
        } else if line == ".end_amdhsa_kernel" {
            inside = false;
        } else if inside {
            let (key, value) = line.split_once(' ').unwrap();
            let key = key.strip_prefix(".amdhsa_").unwrap();
            found.insert(key.to_string(), value.trim().parse().unwrap());
        }
    }
    assert!(!found.is_empty(), "no .amdhsa_kernel {name}");
    found
}

/// The `.key: value` lines of `llvm-readobj-19 --notes`, in order, with YAML quotes removed
/// (scalars only: list items without a key are left out).
pub fn readobj_note_fields(text: &str) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for line in text.lines() {
        let line = line.trim_start().trim_start_matches("- ");
        let Some((key, value)) = line.split_once(':') else { continue };
        let (key, value) = (key.trim(), value.trim().trim_matches('\''));
        if (key.starts_with('.') || key.starts_with("amdhsa.")) && !value.is_empty() {
            fields.push((key.to_string(), value.to_string()));
        }
    }
    fields
}

/// The instructions of `llvm-objdump-19 -d` output, as (address, text) pairs, in the first
/// `len` bytes of the function `name`.
pub fn instructions(dump: &str, name: &str, len: u64) -> Vec<(u64, String)> {
    let header = format!("<{name}>:");
    let mut inside = false;
    let mut found = Vec::new();
    for line in dump.lines() {
        if line.ends_with(&header) {
            inside = true;
            continue;
        }
        if inside && line.trim().is_empty() {
            break;
        }
        if let (true, Some((text, comment))) = (inside, line.split_once("//")) {
            let address = comment.trim().split(':').next().unwrap();
            let address = u64::from_str_radix(address, 16).unwrap();
            if address < len {
                found.push((address, text.trim().to_string()));
            }
        }
    }
    found
}

/// The code object of what `read` found: what gcnc would hand the writers for the same kernels.
pub fn code_object(object: &ReadObject) -> CodeObject {
    CodeObject {
        target: object.target.unwrap(),
        version: object.version.unwrap(),
        kernels: object
            .kernels
            .iter()
            .map(|k| KernelCode {
                name: k.name.clone(),
                code: k.code.clone(),
                descriptor: k.descriptor,
                metadata: k.metadata.clone().unwrap(),
            })
            .collect(),
    }
}
