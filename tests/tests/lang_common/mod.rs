//! Helpers shared by the kernel-language suites (`lang_*.rs`): finding and compiling `.gk`
//! files, and setting up and reading the buffers of an interpreter run. Every run is also a
//! compiled run: [`Args::run`] compiles the kernel with gcnc for the targets of its wave size
//! (gfx1100 wave32; gfx1100 wave64 and gfx942) and checks, on the strict emulator, that the
//! compiled kernel leaves exactly what the interpreter leaves with the same inputs. The suites
//! then compare the interpreter's results with plain Rust, so both halves meet the reference.
#![allow(dead_code)] // each suite uses its own subset

use frontend_ir::interp::{run_kernel, GlobalMemory, Launch, Options};
use frontend_ir::Module;
use gcnc::check::{check_except, element_types, CheckArg, CheckLaunch};
use gcnc::{Target, TargetId};
use gcnc_tests::{to_bytes, words32, words64, Le};
use std::path::PathBuf;

/// Both wave sizes; every kernel is run at each.
pub const WAVES: [u32; 2] = [32, 64];

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tests/gk/<name>.gk` or `examples/<name>.gk`: (path, text).
pub fn source(dir: &str, name: &str) -> (PathBuf, String) {
    let path = match dir {
        "examples" => root().join("examples").join(format!("{name}.gk")),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gk").join(format!("{name}.gk")),
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    (path, text)
}

/// Every `.gk` file of `tests/gk` and `examples`, as (path, text).
pub fn all_sources() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in [PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gk"), root().join("examples")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "gk"))
            .collect();
        files.sort();
        for p in files {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            out.push((p, text));
        }
    }
    out
}

/// Compiles a `.gk` source, panicking with the rendered diagnostics.
pub fn compile_text(text: &str, name: &str) -> Module {
    lang::compile_source(text, name).unwrap_or_else(|d| panic!("{}", d.render(text)))
}

/// Compiles `tests/gk/<name>.gk` (`dir` "gk") or `examples/<name>.gk` (`dir` "examples").
pub fn compile(dir: &str, name: &str) -> Module {
    let (path, text) = source(dir, name);
    compile_text(&text, &path.display().to_string())
}

/// The arguments and memory of one run, built parameter by parameter.
#[derive(Default)]
pub struct Args {
    /// The device memory.
    pub mem: GlobalMemory,
    /// One value per kernel parameter.
    pub values: Vec<u64>,
    /// The initial contents of each buffer parameter (None for scalars).
    initial: Vec<Option<Vec<u8>>>,
    /// Elements (parameter, index) whose final value depends on the order work-items ran in:
    /// the compiled run's may differ from the interpreter's (the suite checks an invariant).
    unordered: Vec<(usize, usize)>,
}

impl Args {
    /// No arguments yet.
    pub fn new() -> Args {
        Args { mem: GlobalMemory::new(), values: Vec::new(), initial: Vec::new(), unordered: Vec::new() }
    }

    /// Appends a buffer holding `data`; returns its address.
    pub fn buf<T: Copy + Into<Le>>(&mut self, data: &[T]) -> u64 {
        self.bytes(to_bytes(data))
    }

    /// Appends a buffer of raw bytes; returns its address.
    pub fn bytes(&mut self, data: Vec<u8>) -> u64 {
        self.initial.push(Some(data.clone()));
        let addr = self.mem.alloc(data);
        self.values.push(addr);
        addr
    }

    /// Appends a zeroed buffer of `n` 32-bit elements.
    pub fn zeros32(&mut self, n: usize) -> u64 {
        self.bytes(vec![0; 4 * n])
    }

    /// Appends a zeroed buffer of `n` 64-bit elements.
    pub fn zeros64(&mut self, n: usize) -> u64 {
        self.bytes(vec![0; 8 * n])
    }

    /// Marks elements of the buffer at `addr` as order-dependent (see [`Args::unordered`]).
    pub fn unordered(&mut self, addr: u64, elements: &[usize]) {
        let param = self.values.iter().position(|&v| v == addr).expect("a buffer of these arguments");
        self.unordered.extend(elements.iter().map(|&e| (param, e)));
    }

    /// Appends a scalar given by its bits.
    pub fn scalar(&mut self, bits: u64) {
        self.initial.push(None);
        self.values.push(bits);
    }

    /// Runs kernel `name` of `module` on the interpreter, panicking with its error; and checks
    /// that gcnc's compiled kernel gives the same on the emulator (see the module comment).
    pub fn run(&mut self, module: &Module, name: &str, launch: &Launch) {
        let kernel = module.find(name).unwrap_or_else(|| panic!("no kernel @{name}"));
        if let Err(e) = run_kernel(module, kernel, launch, &self.values, &mut self.mem, &Options::default()) {
            panic!("running @{name} (wave{}): {e}\n{module}", launch.wave_size);
        }
        self.check_compiled(module, kernel, name, launch);
    }

    /// The compiled half of [`Args::run`].
    fn check_compiled(&self, module: &Module, kernel: frontend_ir::FuncId, name: &str, launch: &Launch) {
        let types = element_types(&module.functions[kernel]);
        let args: Vec<CheckArg> = self
            .initial
            .iter()
            .zip(&self.values)
            .zip(&types)
            .map(|((init, &bits), ty)| match init {
                Some(bytes) => CheckArg::Buffer { ty: ty.unwrap_or(frontend_ir::Type::I8), bytes: bytes.clone() },
                None => CheckArg::Scalar(bits),
            })
            .collect();
        let targets: &[&str] = if launch.wave_size == 32 { &["gfx1100"] } else { &["gfx1100", "gfx942"] };
        for id in targets {
            let mut target = Target::new(TargetId::parse(id).expect("a target ID"));
            target.wave_size = launch.wave_size;
            let check_launch = CheckLaunch {
                grid: launch.grid,
                block: launch.block,
                dyn_shared_bytes: launch.dyn_shared_bytes,
                seed: 1,
                step_limit: None,
            };
            let unordered = |param: usize, index: usize| self.unordered.contains(&(param, index));
            match check_except(module, kernel, &target, &check_launch, &args, &unordered) {
                Ok(None) => {}
                Ok(Some(m)) => panic!("@{name} compiled for {id} wave{}: {m}", launch.wave_size),
                Err(e) => panic!("@{name} compiled for {id} wave{}: {e}", launch.wave_size),
            }
        }
    }

    /// A buffer's bytes.
    pub fn read(&self, addr: u64) -> &[u8] {
        self.mem.buffer(addr).expect("a buffer")
    }

    /// A buffer as u32 values.
    pub fn u32s(&self, addr: u64) -> Vec<u32> {
        words32(self.read(addr))
    }

    /// A buffer as i32 values.
    pub fn i32s(&self, addr: u64) -> Vec<i32> {
        self.u32s(addr).into_iter().map(|w| w as i32).collect()
    }

    /// A buffer as f32 values.
    pub fn f32s(&self, addr: u64) -> Vec<f32> {
        self.u32s(addr).into_iter().map(f32::from_bits).collect()
    }

    /// A buffer as u64 values.
    pub fn u64s(&self, addr: u64) -> Vec<u64> {
        words64(self.read(addr))
    }

    /// A buffer as f64 values.
    pub fn f64s(&self, addr: u64) -> Vec<f64> {
        self.u64s(addr).into_iter().map(f64::from_bits).collect()
    }
}

/// A 1-D launch of `grid` work-items in groups of `block`.
pub fn linear(grid: u32, block: u32, wave: u32) -> Launch {
    Launch::linear(grid, block, wave)
}

/// A 2-D launch.
pub fn grid2(grid: [u32; 2], block: [u32; 2], wave: u32) -> Launch {
    Launch { grid: [grid[0], grid[1], 1], block: [block[0], block[1], 1], wave_size: wave, dyn_shared_bytes: 0 }
}
