//! Shared helpers of the emulator's integration tests: compiling OpenCL C with clang-19 and
//! linking with ld.lld-19 (test oracles only), the three targets, and small buffer helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A target the tests compile for.
#[derive(Copy, Clone, Debug)]
pub struct Target {
    /// `-mcpu`.
    pub cpu: &'static str,
    /// `-mwavefrontsize64`.
    pub wave64: bool,
}

impl Target {
    /// A short name for file names and messages.
    pub fn name(&self) -> String {
        format!("{}{}", self.cpu, if self.wave64 { "-w64" } else { "" })
    }
}

/// gfx1100 wave32, gfx1100 wave64 and gfx942 (wave64).
pub const TARGETS: [Target; 3] = [
    Target { cpu: "gfx1100", wave64: false },
    Target { cpu: "gfx1100", wave64: true },
    Target { cpu: "gfx942", wave64: false },
];

/// A compiled kernel source: the relocatable object (clang -c) and the linked one (ld.lld).
pub struct Compiled {
    /// ET_REL bytes.
    pub object: Vec<u8>,
    /// ET_DYN bytes.
    pub shared: Vec<u8>,
}

fn tmp_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("emu-cl");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (scripts/test.sh installs LLVM 19)"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Compiles `emu/tests/cl/NAME.cl` for `target` with clang-19 `-O2 -c` and `flags`, and links
/// it with ld.lld-19 `-shared`.
pub fn compile_cl(name: &str, target: Target, flags: &[&str]) -> Compiled {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cl").join(format!("{name}.cl"));
    let tag: String = flags.iter().map(|f| f.trim_start_matches('-').replace('=', "_")).collect::<Vec<_>>().join("_");
    let stem = tmp_dir().join(format!("{name}{}{tag}.{}", if tag.is_empty() { "" } else { "." }, target.name()));
    let (obj, hsaco) = (stem.with_extension("o"), stem.with_extension("hsaco"));
    let mut clang = Command::new("clang-19");
    clang.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", "-c"]);
    clang.arg(format!("-mcpu={}", target.cpu));
    if target.wave64 {
        clang.arg("-mwavefrontsize64");
    }
    run(clang.args(flags).arg(&src).arg("-o").arg(&obj));
    run(Command::new("ld.lld-19").arg("-shared").arg(&obj).arg("-o").arg(&hsaco));
    Compiled { object: std::fs::read(&obj).unwrap(), shared: std::fs::read(&hsaco).unwrap() }
}

/// Assembles `source` (AMDGPU assembly with its `.amdhsa_kernel` and metadata directives) for
/// `cpu` with clang-19 and links it with ld.lld-19.
pub fn assemble(name: &str, cpu: &str, wave64: bool, source: &str) -> Vec<u8> {
    let stem = tmp_dir().join(format!("{name}.{cpu}{}", if wave64 { "-w64" } else { "" }));
    let (s, obj, hsaco) = (stem.with_extension("s"), stem.with_extension("o"), stem.with_extension("hsaco"));
    std::fs::write(&s, source).unwrap();
    let mut clang = Command::new("clang-19");
    clang.args(["-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-c"]).arg(format!("-mcpu={cpu}"));
    if wave64 {
        clang.arg("-mwavefrontsize64");
    }
    run(clang.arg(&s).arg("-o").arg(&obj));
    run(Command::new("ld.lld-19").arg("-shared").arg(&obj).arg("-o").arg(&hsaco));
    std::fs::read(&hsaco).unwrap()
}

/// Little-endian bytes of `u32` words.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `u32` words of little-endian bytes.
pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A deterministic stream of pseudo-random words (splitmix64).
pub fn random_words(seed: u64, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

/// Pseudo-random floats in [-8, 8), exactly representable.
pub fn random_floats(seed: u64, n: usize) -> Vec<f32> {
    random_words(seed, n).into_iter().map(|w| (w % 4096) as f32 / 256.0 - 8.0).collect()
}
