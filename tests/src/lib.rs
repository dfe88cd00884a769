//! Shared helpers of gcnc's integration suites (in `tests/tests/`): locating and parsing the
//! `.gir` corpus, a small deterministic random generator, and typed views of interpreter
//! buffers.

use frontend_ir::interp::{run_kernel, GlobalMemory, InterpError, Launch, Options, RunStats};
use frontend_ir::parser::parse_module;
use frontend_ir::Module;
use std::path::PathBuf;

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
