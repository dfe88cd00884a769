//! Shared helpers of the emulator's integration tests and benchmark: compiling OpenCL C with
//! clang-19 and linking with ld.lld-19 (test oracles only; each object is built once and kept
//! in the target's temporary folder until its source changes), the three targets, the corpus
//! cases with their CPU references ([`cases`]), and small buffer helpers.
#![allow(dead_code)]

pub mod asm;
pub mod cases;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A target the tests compile for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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

    /// Lanes per wave.
    pub fn wave_size(&self) -> u32 {
        if self.cpu.starts_with("gfx11") && !self.wave64 {
            32
        } else {
            64
        }
    }
}

/// gfx1100 wave32, gfx1100 wave64, gfx942 and gfx90a (wave64).
pub const TARGETS: [Target; 4] = [
    Target { cpu: "gfx1100", wave64: false },
    Target { cpu: "gfx1100", wave64: true },
    Target { cpu: "gfx942", wave64: false },
    Target { cpu: "gfx90a", wave64: false },
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

/// The folder of the shared OpenCL corpus (`tests/cl` at the repository's root).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cl")
}

/// The folder of the emulator's own OpenCL kernels (`emu/tests/cl`).
pub fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cl")
}

/// Whether `out` exists and is newer than `src`.
fn fresh(out: &Path, src: &Path) -> bool {
    let time = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((time(out), time(src)), (Some(o), Some(s)) if o >= s)
}

/// Compiles `DIR/NAME.cl` for `target` with clang-19 `-O2 -c` and `flags`, and links it with
/// ld.lld-19 `-shared`; reuses the objects of an earlier run when the source has not changed.
pub fn compile_in(dir: &Path, name: &str, target: Target, flags: &[&str]) -> Compiled {
    let src = dir.join(format!("{name}.cl"));
    // gfx90a reaches scratch through FLAT_SCRATCH, as gcnc does there: clang-19's default on
    // gfx90a is MUBUF through the private segment buffer, which the emulator does not run.
    let flat_scratch: &[&str] =
        if target.cpu == "gfx90a" { &["-Xclang", "-target-feature", "-Xclang", "+enable-flat-scratch"] } else { &[] };
    let flags: Vec<&str> = flat_scratch.iter().chain(flags).copied().collect();
    let tag: String = flags.iter().map(|f| f.trim_start_matches('-').replace('=', "_")).collect::<Vec<_>>().join("_");
    let stem = format!("{name}{}{tag}.{}", if tag.is_empty() { "" } else { "." }, target.name());
    let file = |ext: &str| tmp_dir().join(format!("{stem}.{ext}"));
    let (obj, hsaco) = (file("o"), file("hsaco"));
    if !(fresh(&obj, &src) && fresh(&hsaco, &obj)) {
        // Built under unique names, then renamed: concurrent tests never see half a file.
        let unique = format!("{}.{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], "");
        let (tmp_obj, tmp_hsaco) = (file(&format!("{unique}.o")), file(&format!("{unique}.hsaco")));
        let mut clang = Command::new("clang-19");
        clang.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", "-c"]);
        clang.arg(format!("-mcpu={}", target.cpu));
        if target.wave64 {
            clang.arg("-mwavefrontsize64");
        }
        run(clang.args(&flags).arg(&src).arg("-o").arg(&tmp_obj));
        run(Command::new("ld.lld-19").arg("-shared").arg(&tmp_obj).arg("-o").arg(&tmp_hsaco));
        std::fs::rename(&tmp_obj, &obj).unwrap();
        std::fs::rename(&tmp_hsaco, &hsaco).unwrap();
    }
    Compiled { object: std::fs::read(&obj).unwrap(), shared: std::fs::read(&hsaco).unwrap() }
}

/// Assembles `source` (AMDGPU assembly with its `.amdhsa_kernel` and metadata directives) for
/// `cpu` with clang-19 and links it with ld.lld-19.
pub fn assemble(name: &str, cpu: &str, wave64: bool, source: &str) -> Vec<u8> {
    let stem = format!("{name}.{cpu}{}", if wave64 { "-w64" } else { "" });
    let file = |ext: &str| tmp_dir().join(format!("{stem}.{ext}"));
    let (s, obj, hsaco) = (file("s"), file("o"), file("hsaco"));
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
    random_u64s(seed, n).into_iter().map(|x| x as u32).collect()
}

/// A deterministic stream of pseudo-random 64-bit values (splitmix64).
pub fn random_u64s(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// Pseudo-random floats in [-8, 8), exactly representable.
pub fn random_floats(seed: u64, n: usize) -> Vec<f32> {
    random_words(seed, n).into_iter().map(|w| (w % 4096) as f32 / 256.0 - 8.0).collect()
}
