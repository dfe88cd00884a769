//! One comparison: a kernel compiled for one target by gcnc and by LLVM 19, every measure of
//! both taken in this run.
//!
//! gcnc: the `gcnc` program compiles the `.gk` to a relocatable object (timed as a process,
//! with its peak memory), and the library compiles it in this process (front end, every
//! stage and the object writer; timed alone). LLVM: `clang-19 -O3 -emit-llvm` makes the
//! twin's IR once, `llc-19 -O3` compiles that IR to an object (the backend alone, timed as a
//! process, with its peak memory, and again with `-time-passes` for the time of its pass
//! pipeline alone), and `clang-19 -O3 -c` compiles the twin end to end (timed).
//! Both objects are then read the same way (`quality`) and run with the same launch
//! (`dynamic`). A step that fails makes its side's cell an error with the reason; the other
//! side is still measured.

use crate::dynamic::{self, Dynamic};
use crate::measure::{median, time_in_process, Measured, Measurer};
use crate::quality::{self, Quality};
use crate::suite::{parse_launch, Kernel, LaunchSpec};
use anyhow::{anyhow, bail, Context, Result};
use gcnc::launch::ScalarType;
use gcnc::{Options, Target, TargetId};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A target of the comparison: a processor at its default wave size.
#[derive(Clone, Debug)]
pub struct TargetSpec {
    /// The processor, as `-mcpu` takes it (the same string for gcnc, clang and llc).
    pub mcpu: String,
}

/// What the comparison runs and where.
#[derive(Clone, Debug)]
pub struct Config {
    /// The `gcnc` program.
    pub gcnc: PathBuf,
    /// `clang-19`.
    pub clang: PathBuf,
    /// `llc-19`.
    pub llc: PathBuf,
    /// Runs and measures the tools.
    pub measurer: Measurer,
    /// Repetitions of each timed compile (the median is reported).
    pub reps: usize,
    /// Where the objects and IR are written.
    pub work_dir: PathBuf,
}

/// gcnc's side of one comparison.
#[derive(Clone, Debug)]
pub struct GcncSide {
    /// The `gcnc compile -c` process.
    pub process: Measured,
    /// The library's compile in this process (source to object bytes), median.
    pub in_process: Duration,
    /// The object's static measures.
    pub quality: Result<Quality, String>,
    /// The object on the emulator.
    pub dynamic: Result<Dynamic, String>,
}

/// LLVM's side of one comparison.
#[derive(Clone, Debug)]
pub struct LlvmSide {
    /// `llc-19 -O3` on clang's `-O3` IR.
    pub llc: Measured,
    /// The wall time of llc's pass pipeline alone (its `-time-passes` total, without process
    /// start and IR parsing), median: the figure to set against gcnc's in-process time.
    pub llc_passes: Duration,
    /// `clang-19 -O3 -c` end to end.
    pub clang: Measured,
    /// The llc object's static measures.
    pub quality: Result<Quality, String>,
    /// The llc object on the emulator.
    pub dynamic: Result<Dynamic, String>,
}

/// Both sides of one kernel on one target.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The kernel.
    pub kernel: String,
    /// gcnc's measures, or why it failed.
    pub gcnc: Result<GcncSide, String>,
    /// LLVM's measures, or why it failed.
    pub llvm: Result<LlvmSide, String>,
}

impl Comparison {
    /// Whether every output buffer came out bitwise equal from both objects (None when either
    /// did not run).
    pub fn outputs_equal(&self) -> Option<bool> {
        let g = self.gcnc.as_ref().ok()?.dynamic.as_ref().ok()?;
        let l = self.llvm.as_ref().ok()?.dynamic.as_ref().ok()?;
        Some(g.buffers == l.buffers)
    }
}

/// The source's kernel: its name, the launch of its header, and each parameter's scalar type
/// (None for buffers).
struct Source {
    text: String,
    name: String,
    launch: LaunchSpec,
    scalars: Vec<Option<ScalarType>>,
}

fn read_source(kernel: &Kernel) -> Result<Source> {
    let text = std::fs::read_to_string(&kernel.gk).with_context(|| format!("cannot read '{}'", kernel.gk.display()))?;
    let launch = parse_launch(&text).with_context(|| format!("'{}'", kernel.gk.display()))?;
    let compiled = lang::compile(&text, &kernel.gk.display().to_string())
        .map_err(|d| anyhow!("{}", first_line(&d.render(&text))))?;
    let sig = compiled
        .kernels
        .iter()
        .find(|k| k.name == kernel.name)
        .or(compiled.kernels.first())
        .ok_or_else(|| anyhow!("'{}' has no kernel", kernel.gk.display()))?;
    let scalars = sig
        .params
        .iter()
        .map(|(_, ty)| match ty {
            lang::ParamType::Scalar(t) => t.name().parse().ok(),
            lang::ParamType::Buffer { .. } => None,
        })
        .collect();
    Ok(Source { name: sig.name.clone(), text, launch, scalars })
}

/// Compares `kernel` on `target`.
pub fn compare(config: &Config, kernel: &Kernel, target: &TargetSpec) -> Comparison {
    let source = read_source(kernel);
    let name = source.as_ref().map_or_else(|_| kernel.name.clone(), |s| s.name.clone());
    let gcnc =
        source.as_ref().map_err(|e| format!("{e:#}")).and_then(|s| guarded(|| gcnc_side(config, kernel, s, target)));
    let llvm = guarded(|| llvm_side(config, kernel, &name, source.as_ref().ok(), target));
    Comparison { kernel: kernel.name.clone(), gcnc, llvm }
}

/// Runs one side, turning its error, or a panic of the libraries it calls in process (the
/// front end, the compiler, the emulator), into the text of a failed cell, so one kernel
/// cannot stop the run.
fn guarded<T>(side: impl FnOnce() -> Result<T>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(side)) {
        Ok(result) => result.map_err(|e| format!("{e:#}")),
        Err(panic) => {
            let text =
                panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            Err(format!("panicked: {}", text.unwrap_or_else(|| "(no message)".to_string())))
        }
    }
}

fn gcnc_side(config: &Config, kernel: &Kernel, source: &Source, target: &TargetSpec) -> Result<GcncSide> {
    let object = config.work_dir.join(format!("{}.{}.gcnc.o", kernel.name, target.mcpu));
    let args = vec![
        "compile".to_string(),
        kernel.gk.display().to_string(),
        format!("-mcpu={}", target.mcpu),
        "-c".to_string(),
        "-o".to_string(),
        object.display().to_string(),
    ];
    let process = config.measurer.run(&config.gcnc, &args, config.reps)?;
    let id = TargetId::parse(&target.mcpu).map_err(|e| anyhow!("{}: {e}", target.mcpu))?;
    let tgt = Target::new(id);
    let file_name = kernel.gk.display().to_string();
    let (in_process, result) = time_in_process(config.reps, || -> Result<Vec<u8>> {
        let compiled = lang::compile(&source.text, &file_name).map_err(|_| anyhow!("the front end failed"))?;
        let mut object = gcnc::compile(&compiled.module, &tgt, &Options::default())?;
        // As the program does: the arguments' source names and types in the metadata.
        object.describe_params(&compiled.kernels);
        Ok(object.relocatable())
    });
    let in_memory = result.context("the gcnc library")?;
    let bytes = std::fs::read(&object).with_context(|| format!("cannot read '{}'", object.display()))?;
    if bytes != in_memory {
        bail!("the gcnc program and library wrote different objects for {}", kernel.name);
    }
    Ok(GcncSide {
        process,
        in_process,
        quality: guarded(|| quality::measure(&bytes, &source.name)),
        dynamic: guarded(|| dynamic::run(&bytes, &source.name, &source.launch, &source.scalars)),
    })
}

fn llvm_side(
    config: &Config,
    kernel: &Kernel,
    name: &str,
    source: Option<&Source>,
    target: &TargetSpec,
) -> Result<LlvmSide> {
    let stem = config.work_dir.join(format!("{}.{}", kernel.name, target.mcpu));
    let path = |ext: &str| PathBuf::from(format!("{}.{ext}", stem.display()));
    let (ir, llc_obj, clang_obj) = (path("ll"), path("llc.o"), path("clang.o"));
    let cl = kernel.cl.display().to_string();
    let clang_args = |extra: &[&str], out: &Path| -> Vec<String> {
        let mut v: Vec<String> =
            ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa"].iter().map(|s| s.to_string()).collect();
        v.push(format!("-mcpu={}", target.mcpu));
        // Correctly rounded f32 division and sqrt, as the kernel language defines them (OpenCL's
        // default allows 2.5 and 3 ulp).
        v.extend(["-nogpulib", "-O3", "-cl-fp32-correctly-rounded-divide-sqrt"].iter().map(|s| s.to_string()));
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend([cl.clone(), "-o".to_string(), out.display().to_string()]);
        v
    };
    config.measurer.run_once(&config.clang, &clang_args(&["-emit-llvm", "-S"], &ir))?;
    let llc_args = vec![
        "-O3".to_string(),
        "-mtriple=amdgcn-amd-amdhsa".to_string(),
        format!("-mcpu={}", target.mcpu),
        "-filetype=obj".to_string(),
        ir.display().to_string(),
        "-o".to_string(),
        llc_obj.display().to_string(),
    ];
    let llc = config.measurer.run(&config.llc, &llc_args, config.reps)?;
    let mut pass_times = Vec::with_capacity(config.reps);
    let mut timed_args = llc_args.clone();
    timed_args.push("-time-passes".to_string());
    for _ in 0..config.reps.max(1) {
        let out = Command::new(&config.llc).args(&timed_args).output().context("running llc-19 -time-passes")?;
        let report = String::from_utf8_lossy(&out.stderr);
        pass_times.push(passes_wall(&report).ok_or_else(|| anyhow!("llc-19 -time-passes printed no total"))?);
    }
    let llc_passes = median(pass_times);
    let clang = config.measurer.run(&config.clang, &clang_args(&["-c"], &clang_obj), config.reps)?;
    let bytes = std::fs::read(&llc_obj).with_context(|| format!("cannot read '{}'", llc_obj.display()))?;
    let dynamic = match source {
        Some(s) => guarded(|| dynamic::run(&bytes, name, &s.launch, &s.scalars)),
        None => Err("no launch: the conformance source did not read".to_string()),
    };
    Ok(LlvmSide { llc, llc_passes, clang, quality: guarded(|| quality::measure(&bytes, name)), dynamic })
}

/// The wall time of the first timer group of an LLVM `-time-passes` report (the pass
/// execution report: `Total Execution Time: U seconds (W wall clock)`).
fn passes_wall(report: &str) -> Option<Duration> {
    let line = report.lines().find(|l| l.trim_start().starts_with("Total Execution Time:"))?;
    let (_, rest) = line.split_once('(')?;
    let seconds: f64 = rest.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_secs_f64(seconds))
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_pass_execution_total_of_a_time_passes_report() {
        let report = "===---===\n    Pass execution timing report\n===---===\n  Total Execution Time: 0.0151 \
                      seconds (0.0153 wall clock)\n\n  Instruction Selection\n  Total Execution Time: 0.0014 \
                      seconds (0.0014 wall clock)\n";
        assert_eq!(passes_wall(report), Some(Duration::from_secs_f64(0.0153)));
        assert_eq!(passes_wall("no report"), None);
    }
}
