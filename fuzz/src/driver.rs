//! Runs many programs: seeds `seed .. seed + count`, each a `.gk` kernel (and, for one seed in
//! [`Settings::ir_one_in`], also an IR kernel of [`crate::gen_ir`]), checked on every
//! configuration, on `jobs` threads. Results are gathered by seed, so the table, the
//! signatures and the reproducers are the same for any number of threads. The first program
//! of each failure signature is reduced and written, with its configuration and the `gcnc
//! check` command that reproduces it, as a kernel file.

use crate::ast::Program;
use crate::gen_ir::IrProgram;
use crate::oracle::{run, run_ir, Class, Config, Failure, RunOptions};
use crate::print::{kernel_file, launch_args};
use crate::reduce::{reduce, Budget};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The first seed.
    pub seed: u64,
    /// How many `.gk` programs.
    pub count: u64,
    /// Threads.
    pub jobs: usize,
    /// The configurations.
    pub configs: Vec<Config>,
    /// How each program runs.
    pub run: RunOptions,
    /// One seed in this many also gets an IR kernel (0: none).
    pub ir_one_in: u64,
    /// One seed in this many is a high-pressure program ([`crate::gen_gk::generate_pressure`];
    /// 0: none, 1: every one).
    pub pressure_one_in: u64,
    /// Reduce the first failing program of each signature.
    pub reduce: bool,
    /// The reducer's limits.
    pub budget: Budget,
}

/// A generated kernel of either generator.
#[derive(Clone, Debug)]
pub enum Kernel {
    /// A `.gk` program.
    Gk(Program),
    /// An IR kernel.
    Ir(IrProgram),
}

/// The first program that failed with a signature, and its reproducer.
#[derive(Clone, Debug)]
pub struct Found {
    /// The failure's signature.
    pub signature: String,
    /// How many runs (program × configuration) failed with it.
    pub count: u64,
    /// The seed of the first.
    pub seed: u64,
    /// The configuration it failed on first.
    pub config: Config,
    /// The failure.
    pub failure: Failure,
    /// The file name of the reproducer (`NAME.gk` or `NAME.gir`).
    pub file: String,
    /// The reproducer: the minimized kernel file.
    pub text: String,
    /// The `gcnc check` command that reproduces it.
    pub command: String,
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Configuration labels, the table's columns.
    pub configs: Vec<String>,
    /// Runs per (class, configuration); `None` is a pass.
    pub table: BTreeMap<(Option<Class>, usize), u64>,
    /// Programs per configuration that do not apply to it (not run).
    pub skipped: Vec<u64>,
    /// `.gk` programs and IR kernels checked.
    pub programs: (u64, u64),
    /// IR kernels that were irreducible (and refused, unless they are failures).
    pub irreducible: u64,
    /// Time spent checking on each configuration, summed over threads.
    pub time: Vec<Duration>,
    /// Wall time of the checks.
    pub wall: Duration,
    /// The failure signatures, each with its first program, in seed order.
    pub found: Vec<Found>,
}

struct Checked {
    seed: u64,
    kernel: Kernel,
    /// Per configuration; `None` where the program does not apply ([`applies`]).
    results: Vec<Option<Result<(), Failure>>>,
    times: Vec<Duration>,
}

/// Whether `kernel` means something on `config`: threadgroup split mode has no LDS and no
/// `s_barrier` (AMDGPUUsage), so programs with shared memory are refused there by design and
/// are not run.
fn applies(kernel: &Kernel, config: &Config) -> bool {
    !(config.target.tgsplit && matches!(kernel, Kernel::Gk(p) if !p.shared.is_empty()))
}

/// The kernel name of seed `seed`'s `.gk` program.
pub fn name_of(seed: u64) -> String {
    format!("f{seed}")
}

/// The `.gk` program of `seed`: a high-pressure one for one seed in `pressure_one_in`.
fn generate(seed: u64, name: &str, pressure_one_in: u64) -> Program {
    if pressure_one_in != 0 && seed.is_multiple_of(pressure_one_in) {
        crate::gen_gk::generate_pressure(seed, name)
    } else {
        crate::gen_gk::generate(seed, name)
    }
}

/// Generates and checks program `seed` (a `.gk` one, or with `ir` the IR one) on every
/// configuration.
fn check_one(seed: u64, ir: bool, settings: &Settings) -> Checked {
    let mut results = Vec::new();
    let mut times = Vec::new();
    let kernel = if ir {
        Kernel::Ir(crate::gen_ir::generate(seed, &format!("{}_ir", name_of(seed))))
    } else {
        Kernel::Gk(generate(seed, &name_of(seed), settings.pressure_one_in))
    };
    let text = match &kernel {
        Kernel::Gk(p) => kernel_file(p, &[]),
        Kernel::Ir(_) => String::new(),
    };
    for config in &settings.configs {
        let start = Instant::now();
        results.push(applies(&kernel, config).then(|| match &kernel {
            Kernel::Gk(p) => run(&text, &p.name, config, &settings.run),
            Kernel::Ir(p) => run_ir(p, config, &settings.run),
        }));
        times.push(start.elapsed());
    }
    Checked { seed, kernel, results, times }
}

/// Runs `settings`; `progress` is called after each program with the number done.
pub fn fuzz(settings: &Settings, progress: &(dyn Fn(usize, usize) + Sync)) -> Summary {
    let ir_seeds: Vec<u64> = if settings.ir_one_in == 0 {
        Vec::new()
    } else {
        (settings.seed..settings.seed + settings.count).filter(|s| s % settings.ir_one_in == 0).collect()
    };
    let work: Vec<(u64, bool)> = (settings.seed..settings.seed + settings.count)
        .map(|s| (s, false))
        .chain(ir_seeds.iter().map(|&s| (s, true)))
        .collect();
    let start = Instant::now();
    let checked = parallel(&work, settings.jobs, progress, |&(seed, ir)| check_one(seed, ir, settings));
    let wall = start.elapsed();
    let mut table = BTreeMap::new();
    let mut time = vec![Duration::ZERO; settings.configs.len()];
    let mut skipped = vec![0; settings.configs.len()];
    let mut firsts: Vec<(String, u64, usize, Failure, Kernel)> = Vec::new();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut irreducible = 0;
    for c in &checked {
        if let Kernel::Ir(p) = &c.kernel {
            irreducible += u64::from(p.irreducible);
        }
        for (i, (result, t)) in c.results.iter().zip(&c.times).enumerate() {
            time[i] += *t;
            let Some(result) = result else {
                skipped[i] += 1;
                continue;
            };
            let class = result.as_ref().err().map(|f| f.class);
            *table.entry((class, i)).or_insert(0) += 1;
            if let Err(f) = result {
                let signature = f.signature();
                let n = counts.entry(signature.clone()).or_insert(0);
                if *n == 0 {
                    firsts.push((signature, c.seed, i, f.clone(), c.kernel.clone()));
                }
                *n += 1;
            }
        }
    }
    let found = parallel(&firsts, settings.jobs, &|_, _| {}, |(signature, seed, config, failure, kernel)| {
        let config = &settings.configs[*config];
        let mut f = reproducer(kernel, *seed, config, failure, settings);
        f.signature = signature.clone();
        f.count = counts[signature];
        f
    });
    Summary {
        configs: settings.configs.iter().map(|c| c.label.clone()).collect(),
        table,
        skipped,
        programs: (settings.count, ir_seeds.len() as u64),
        irreducible,
        time,
        wall,
        found,
    }
}

/// `f` over `items` on `jobs` threads, the results in the items' order.
fn parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, items.len());
            });
        }
    });
    slots.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
}

/// The reproducer of a failing kernel: reduced (a `.gk` one, when asked), renamed after its
/// file, with its header and command.
fn reproducer(kernel: &Kernel, seed: u64, config: &Config, failure: &Failure, settings: &Settings) -> Found {
    let label = config.label.replace('-', "_");
    let what = |failure: &Failure| {
        let first_line: String = failure.message.lines().next().unwrap_or("").chars().take(300).collect();
        format!("fuzz seed {seed} on {}: {}: {first_line}", config.label, failure.class.name())
    };
    let (file, text, command) = match kernel {
        Kernel::Gk(p) => {
            let mut p = p.clone();
            p.name = format!("f{seed}_{label}");
            if settings.reduce {
                p = reduce(&p, config, &settings.run, failure, settings.budget);
            }
            // The reduced program's own message; a failure that needs the second interleaving
            // says so in its command.
            let source = kernel_file(&p, &[]);
            let last = run(&source, &p.name, config, &settings.run).err().unwrap_or_else(|| failure.clone());
            let single = RunOptions { second_interleaving: false, ..settings.run.clone() };
            let interleaving = if run(&source, &p.name, config, &single).is_err() { "" } else { " --seed 1" };
            let file = format!("{}.gk", p.name);
            let command = format!("gcnc check {file} {} {}{interleaving}", config.flags(), launch_args(&p));
            let text = kernel_file(&p, &[what(&last), format!("reproduce: {command}")]);
            (file, text, command)
        }
        Kernel::Ir(p) => {
            let file = format!("f{seed}_ir_{label}.gir");
            let command = format!(
                "gcnc check {file} {} --grid {} --block {} --arg i32[{}]:zeros --arg i32:{}",
                config.flags(),
                p.grid,
                p.block,
                p.grid,
                p.n
            );
            let mut text = String::new();
            writeln!(text, "; {}", what(failure)).unwrap();
            writeln!(text, "; reproduce: {command}").unwrap();
            text += &p.module.to_string();
            (file, text, command)
        }
    };
    Found {
        signature: String::new(),
        count: 0,
        seed,
        config: config.clone(),
        failure: failure.clone(),
        file,
        text,
        command,
    }
}

impl Summary {
    /// Whether every run passed.
    pub fn passed(&self) -> bool {
        self.found.is_empty()
    }

    /// The table (outcome class × configuration), the throughput, and each failure
    /// signature with its count and first seed.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let width = self.configs.iter().map(String::len).max().unwrap_or(8).max(8);
        write!(out, "{:<38}", "outcome").unwrap();
        for c in &self.configs {
            write!(out, " {c:>width$}").unwrap();
        }
        out.push('\n');
        for class in std::iter::once(None).chain(Class::ALL.iter().map(|&c| Some(c))) {
            let name = class.map_or("pass", Class::name);
            write!(out, "{name:<38}").unwrap();
            for i in 0..self.configs.len() {
                let n = self.table.get(&(class, i)).copied().unwrap_or(0);
                write!(out, " {n:>width$}").unwrap();
            }
            out.push('\n');
        }
        write!(out, "{:<38}", "not applicable (LDS under -mtgsplit)").unwrap();
        for n in &self.skipped {
            write!(out, " {n:>width$}").unwrap();
        }
        out.push('\n');
        let (gk, ir) = self.programs;
        writeln!(
            out,
            "\n{gk} .gk programs and {ir} IR kernels ({} irreducible) per configuration, {:.1} s wall",
            self.irreducible,
            self.wall.as_secs_f64()
        )
        .unwrap();
        write!(out, "one thread's throughput (programs/s):").unwrap();
        for (c, t) in self.configs.iter().zip(&self.time) {
            write!(out, " {c} {:.1}", (gk + ir) as f64 / t.as_secs_f64().max(1e-9)).unwrap();
        }
        out.push('\n');
        if !self.found.is_empty() {
            writeln!(out, "\nfailure signatures (runs, first seed, configuration, reproducer):").unwrap();
            for f in &self.found {
                writeln!(
                    out,
                    "  {:>5}  seed {:<8} {:<18} {}\n         {}",
                    f.count, f.seed, f.config.label, f.file, f.signature
                )
                .unwrap();
            }
        }
        out
    }
}
