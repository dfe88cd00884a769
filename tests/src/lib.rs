//! Shared helpers of gcnc's integration suites (in `tests/tests/`): the filetest format,
//! locating and parsing the `.gir` corpus, a small deterministic random generator, and typed views of interpreter
//! buffers.

use frontend_ir::interp::{run_kernel, GlobalMemory, InterpError, Launch, Options, RunStats};
use frontend_ir::parser::parse_module;
use frontend_ir::Module;
use std::path::PathBuf;

pub mod filetest;
pub mod programs;

/// The folder `tests/gir/<sub>` of the repository.
pub fn gir_dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gir").join(sub)
}

/// The `.gir` files of `tests/gir/<sub>`, sorted by name.
pub fn gir_files(sub: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(gir_dir(sub))
        .unwrap_or_else(|e| panic!("reading {}: {e}", gir_dir(sub).display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gir"))
        .collect();
    files.sort();
    files
}

/// The `.gir` files of `tests/gir/<sub>` as (file name, text), sorted by name; never empty.
pub fn gir_sources(sub: &str) -> Vec<(String, String)> {
    let files: Vec<(String, String)> = gir_files(sub)
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (name, text)
        })
        .collect();
    assert!(!files.is_empty(), "no .gir files in {}", gir_dir(sub).display());
    files
}

/// Parses `tests/gir/<sub>/<name>.gir`, panicking with the rendered diagnostic on failure.
pub fn load_gir(sub: &str, name: &str) -> Module {
    let path = gir_dir(sub).join(format!("{name}.gir"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &path.display().to_string())))
}

/// A xorshift64* generator: deterministic inputs without a dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

/// Little-endian bytes of a slice of plain numbers.
pub fn to_bytes<T: Copy + Into<Le>>(values: &[T]) -> Vec<u8> {
    values.iter().flat_map(|&v| v.into().0).collect()
}

/// The little-endian bytes of one number (a helper type for [`to_bytes`]).
pub struct Le(Vec<u8>);

macro_rules! le_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Le {
            fn from(v: $t) -> Le {
                Le(v.to_le_bytes().to_vec())
            }
        }
    )*};
}
le_from!(i32, u32, i64, u64, f32, f64);

/// Reads a buffer as little-endian 32-bit words.
pub fn words32(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect()
}

/// Reads a buffer as little-endian 64-bit words.
pub fn words64(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

/// Runs kernel `name` of `module`; returns the statistics or the interpreter's error.
pub fn run(
    module: &Module,
    name: &str,
    launch: &Launch,
    args: &[u64],
    memory: &mut GlobalMemory,
) -> Result<RunStats, InterpError> {
    let kernel = module.find(name).unwrap_or_else(|| panic!("no kernel @{name}"));
    run_kernel(module, kernel, launch, args, memory, &Options::default())
}

/// Builds the OpenCL C corpus kernel `tests/cl/<kernel>.cl` with clang-19 (builtins only:
/// `-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O2 -c`) for processor `cpu`
/// (with `-mwavefrontsize64` when `wave64` is set on gfx10+) and code object `version`
/// (4, 5 or 6), into a temporary folder of this process; returns the path of the ET_REL object.
/// Each (kernel, target, version) is compiled once per process (later calls return the same
/// file). `Err` says why: clang-19 missing, or its diagnostics. Link with `ld.lld-19 -shared`
/// for an ET_DYN.
pub fn build_cl(kernel: &str, cpu: &str, wave64: bool, version: u8) -> Result<PathBuf, String> {
    use std::process::Command;
    use std::sync::atomic::{AtomicU64, Ordering};
    static UNIQUE: AtomicU64 = AtomicU64::new(0);
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cl").join(format!("{kernel}.cl"));
    if !source.is_file() {
        return Err(format!("no corpus kernel {}", source.display()));
    }
    let dir = std::env::temp_dir().join(format!("gcnc-cl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let wave64 = wave64 && cpu.starts_with("gfx1");
    let wave = if wave64 { "-w64" } else { "" };
    let object = dir.join(format!("{kernel}-{cpu}{wave}-v{version}.o"));
    if object.is_file() {
        return Ok(object);
    }
    // Written under a unique name, then renamed: concurrent tests never see half a file.
    let partial = dir.join(format!("{kernel}.{}.partial.o", UNIQUE.fetch_add(1, Ordering::Relaxed)));
    let mut cmd = Command::new("clang-19");
    cmd.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", "-c"])
        .arg(format!("-mcpu={cpu}"))
        .arg(format!("-mcode-object-version={version}"));
    if wave64 {
        cmd.arg("-mwavefrontsize64");
    }
    let out = cmd.arg(&source).arg("-o").arg(&partial).output().map_err(|e| format!("running clang-19: {e}"))?;
    if !out.status.success() {
        return Err(format!("clang-19 {}: {}", source.display(), String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::rename(&partial, &object).map_err(|e| format!("renaming {}: {e}", partial.display()))?;
    Ok(object)
}

/// The kernels of the OpenCL C corpus `tests/cl` (file stems, sorted), for [`build_cl`].
pub fn cl_kernels() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cl");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}
