//! Measuring a tool run as a separate process: its wall time and its peak memory (maximum
//! resident set size), for gcnc, llc-19 and clang-19 alike.
//!
//! Peak memory comes from `wait4`'s `ru_maxrss`. Linux carries a process's high-water mark
//! across `exec` (the kernel records the old address space's peak when `exec` replaces it), so
//! a child forked from the large benchmark process would report the benchmark's own memory.
//! Hence a small relay: the benchmark starts a fresh copy of its own executable in relay mode
//! ([`relay_main`], `compare --measure-child PROG ARGS...`), which forks while it is still
//! tiny, execs the tool in the fork, waits for it with `wait4`, and prints one line
//! `wall_ns maxrss_kib exit_status`. The wall time is taken in the relay around fork and wait,
//! so it excludes the relay's own start. The tool's standard output goes to the relay's
//! standard error, which the benchmark keeps for error messages.

use anyhow::{anyhow, bail, Context, Result};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The first argument that puts the benchmark executable in relay mode.
pub const RELAY_FLAG: &str = "--measure-child";

/// Seconds a measured tool may run before the relay's alarm stops it (SIGALRM), so one
/// compiler that hangs cannot stall the benchmark.
pub const TIMEOUT_SECS: u32 = 300;

/// One measured run of a tool.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// Wall time from fork to the end of the wait.
    pub wall: Duration,
    /// Maximum resident set size, in KiB.
    pub max_rss_kib: u64,
}

/// The summary of repeated runs: the median wall time and the largest peak memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Measured {
    /// Median wall time over the repetitions.
    pub wall: Duration,
    /// Largest maximum resident set size over the repetitions, in KiB.
    pub max_rss_kib: u64,
}

/// Runs processes through the relay executable.
#[derive(Clone, Debug)]
pub struct Measurer {
    /// An executable that runs [`relay_main`] when its first argument is [`RELAY_FLAG`].
    pub relay: PathBuf,
}

impl Measurer {
    /// Runs `program args` once through the relay; an error when it cannot start or exits
    /// with a non-zero status (with what it printed).
    pub fn run_once(&self, program: &Path, args: &[String]) -> Result<Run> {
        let out = Command::new(&self.relay)
            .arg(RELAY_FLAG)
            .arg(program)
            .args(args)
            .output()
            .with_context(|| format!("starting the relay '{}'", self.relay.display()))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            bail!("the relay failed for '{}': {}", program.display(), stderr.trim());
        }
        let line = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<u64> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow!("the relay printed '{}' for '{}': {e}", line.trim(), program.display()))?;
        let [wall_ns, max_rss_kib, status] = fields[..] else {
            bail!("the relay printed '{}' for '{}'", line.trim(), program.display());
        };
        if status == 128 + libc::SIGALRM as u64 {
            bail!("{} timed out after {TIMEOUT_SECS} s", program.display());
        }
        if status != 0 {
            let name = program.file_name().map_or(program.display().to_string(), |n| n.to_string_lossy().into());
            bail!("{name} failed (status {status}): {}", first_lines(&stderr, 6));
        }
        Ok(Run { wall: Duration::from_nanos(wall_ns), max_rss_kib })
    }

    /// Runs `program args` `reps` times (at least once): the median wall time and the largest
    /// peak memory.
    pub fn run(&self, program: &Path, args: &[String], reps: usize) -> Result<Measured> {
        let mut runs = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            runs.push(self.run_once(program, args)?);
        }
        let max_rss_kib = runs.iter().map(|r| r.max_rss_kib).max().unwrap_or(0);
        Ok(Measured { wall: median(runs.iter().map(|r| r.wall).collect()), max_rss_kib })
    }
}

/// The median of `times` (the lower middle one for an even count; zero for none).
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times.get(times.len().saturating_sub(1) / 2).copied().unwrap_or_default()
}

/// Times `f` `reps` times (at least once) in this process: the median, and `f`'s last result.
pub fn time_in_process<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(reps.max(1));
    let mut last = None;
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        let value = f();
        times.push(start.elapsed());
        last = Some(value);
    }
    (median(times), last.expect("at least one repetition"))
}

/// The first `n` non-empty lines of `text`, joined by " | ".
fn first_lines(text: &str, n: usize) -> String {
    text.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join(" | ")
}

/// The relay's body (`compare --measure-child PROG ARGS...`): fork, exec `PROG` in the
/// child with its standard output sent to standard error, `wait4`, and print
/// `wall_ns maxrss_kib exit_status` on standard output (status 128+N for a signal N).
pub fn relay_main(argv: &[String]) -> Result<()> {
    if argv.is_empty() {
        bail!("{RELAY_FLAG} needs a program to run");
    }
    // Everything the child needs is prepared before the fork: after it, the child only calls
    // async-signal-safe functions (dup2, execvp, write, _exit).
    let c_args: Vec<CString> =
        argv.iter().map(|a| CString::new(a.as_bytes())).collect::<Result<_, _>>().context("an argument holds NUL")?;
    let mut ptrs: Vec<*const libc::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let failed = b"relay: exec failed\n";
    let start = Instant::now();
    // SAFETY: fork in a single-threaded process (the relay starts no threads); the child
    // calls only async-signal-safe functions on memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        bail!("fork failed: {}", std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see above; `ptrs` is a NUL-terminated array of valid C strings.
        unsafe {
            libc::dup2(2, 1);
            // The alarm survives exec and ends a tool that runs too long.
            libc::alarm(TIMEOUT_SECS);
            libc::execvp(ptrs[0], ptrs.as_ptr());
            libc::write(2, failed.as_ptr().cast(), failed.len());
            libc::_exit(127);
        }
    }
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to locals; `pid` is our child.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if waited != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    // ru_maxrss is in KiB on Linux.
    println!("{} {} {}", wall.as_nanos(), usage.ru_maxrss, code);
    Ok(())
}
