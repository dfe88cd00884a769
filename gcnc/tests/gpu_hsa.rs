//! `--device gpu` without a GPU: the no-GPU paths of `gcnc run --device gpu` with Debian's
//! real libhsa-runtime64-1 (whose `hsa_init` fails without a GPU driver), with a missing
//! library, and with a library that is not the runtime; and the whole dispatch flow against a
//! stand-in runtime built from `tests/gpu/mock_hsa.c` against `hsa.h` (its packet, kernarg
//! bytes, buffer copies, and the release of everything, on success and on failure).
//! `scripts/test.sh` installs both packages. (The declarations themselves are checked against
//! `hsa.h` by `gpu::ffi`'s unit test; `hsa_agent.rs` runs the flow on gcnc-hsa's software
//! agent.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gcnc_hsa::hsa_h::c_compiler;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcnc-gpu-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `gcnc run examples/saxpy.gk ... --device gpu`, with `GCNC_HSA_LIBRARY` set to `library`
/// when given, `extra` arguments and `env` variables.
fn run_saxpy_on_gpu_with(library: Option<&str>, extra: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gcnc"));
    cmd.args(["run", "examples/saxpy.gk", "--grid", "8", "--block", "8", "--arg", "2.0", "--arg", "f32[8]:iota"])
        .args(["--arg", "f32[8]:fill=1", "--arg", "8", "--print", "2", "--device", "gpu"])
        .args(extra)
        .current_dir(root())
        .env_remove(gcnc::gpu::LIBRARY_ENV);
    if let Some(library) = library {
        cmd.env(gcnc::gpu::LIBRARY_ENV, library);
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().expect("gcnc runs")
}

fn run_saxpy_on_gpu(library: Option<&str>) -> Output {
    run_saxpy_on_gpu_with(library, &[], &[])
}

/// Status 1, nothing on stdout, and one line on stderr that starts with `prefix`; returns the
/// line.
fn assert_no_gpu(out: &Output, prefix: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with(prefix), "{stderr}");
    stderr
}

#[test]
fn real_runtime_without_a_gpu_exits_1() {
    if Path::new("/dev/kfd").exists() {
        eprintln!("skipped: this machine has a GPU driver (/dev/kfd), so hsa_init may succeed");
        return;
    }
    // The default library name, found by the dynamic loader (libhsa-runtime64-1 must be
    // installed; scripts/test.sh does): that hsa_init ran and failed shows it was loaded.
    let line = assert_no_gpu(&run_saxpy_on_gpu(None), "error: no GPU: hsa_init failed: HSA_STATUS_ERROR");
    // The text is the runtime's own hsa_status_string, not a bare number.
    assert!(line.trim_end().len() > "error: no GPU: hsa_init failed: HSA_STATUS_ERROR_X: ".len(), "{line}");
}

#[test]
fn missing_runtime_exits_1() {
    let dir = scratch_dir("missing");
    let missing = dir.join("libhsa-runtime64.so.1");
    let line = assert_no_gpu(
        &run_saxpy_on_gpu(Some(missing.to_str().unwrap())),
        &format!("error: no GPU: cannot load the HSA runtime '{}': ", missing.display()),
    );
    assert!(line.contains("No such file or directory"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn library_that_is_not_the_runtime_exits_1() {
    assert_no_gpu(
        &run_saxpy_on_gpu(Some("libc.so.6")),
        "error: no GPU: 'libc.so.6' is not an HSA runtime: it has no hsa_status_string",
    );
}

/// Builds the stand-in runtime into `dir` and returns its path.
fn build_mock(dir: &Path) -> PathBuf {
    let library = dir.join("libmockhsa.so");
    let cc = c_compiler();
    let built = Command::new(&cc)
        .args(["-std=gnu11", "-Wall", "-Werror", "-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/mock_hsa.c"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    library
}

/// The value of `key=` in a log line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key).and_then(|w| w.strip_prefix('=')))
        .unwrap_or_else(|| panic!("{key} in {line}"))
}

/// Every resource the log shows created is released after the last use, and `shut_down`
/// comes last.
fn assert_everything_released(log: &[&str]) {
    assert_eq!(log.first(), Some(&"init"), "{log:#?}");
    assert_eq!(log.last(), Some(&"shut_down"), "{log:#?}");
    let count = |prefix: &str| log.iter().filter(|l| l.starts_with(prefix)).count();
    for (create, destroy) in [
        ("allocate ", "free "),
        ("queue_create", "queue_destroy"),
        ("signal_create", "signal_destroy"),
        ("reader_create", "reader_destroy"),
        ("executable_create", "executable_destroy"),
    ] {
        assert_eq!(count(create), count(destroy), "{create} / {destroy}: {log:#?}");
    }
}

#[test]
fn dispatch_flow_against_a_stand_in_runtime() {
    let dir = scratch_dir("mock");
    let library = build_mock(&dir);
    let (log_path, x_path, y_path) = (dir.join("calls.log"), dir.join("x.bin"), dir.join("y.bin"));
    let dumps = [format!("1={}", x_path.display()), format!("2={}", y_path.display())];
    let out = run_saxpy_on_gpu_with(
        Some(library.to_str().unwrap()),
        &["--dump", &dumps[0], "--dump", &dumps[1]],
        &[("MOCK_HSA_LOG", &log_path)],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // The stand-in's kernel adds 1 to every 32-bit word of each buffer; the inputs were
    // x = 0, 1, 2, ... and y = 1.
    let words = |bytes: Vec<u8>| -> Vec<u32> {
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    };
    let x: Vec<u32> = (0..8).map(|i| (i as f32).to_bits() + 1).collect();
    assert_eq!(words(std::fs::read(&x_path).unwrap()), x);
    assert_eq!(words(std::fs::read(&y_path).unwrap()), vec![1f32.to_bits() + 1; 8]);

    let text = std::fs::read_to_string(&log_path).unwrap();
    let log: Vec<&str> = text.lines().collect();
    assert_everything_released(&log);
    let position = |prefix: &str| log.iter().position(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}"));
    let dispatch = log[position("dispatch ")];
    assert!(position("freeze") < position("dispatch "));
    assert!(log.iter().rposition(|l| l.starts_with("copy ")).unwrap() > position("dispatch "), "buffers copied back");
    assert!(position("free ") > position("dispatch ") && position("queue_destroy") > position("free "));
    assert_eq!(log[position("get_symbol")], "get_symbol saxpy.kd");
    let queue_create = log[position("queue_create")];
    assert_eq!(field(queue_create, "type"), field(queue_create, "single"));

    // The packet: a kernel dispatch with system-scope fences, 1-D (as the stand-in computes
    // them from hsa.h), the launch's sizes, the symbol's kernel object.
    assert_eq!(field(dispatch, "header"), field(dispatch, "system_header"));
    assert_eq!(field(dispatch, "setup"), field(dispatch, "setup_1d"));
    assert_eq!((field(dispatch, "workgroup"), field(dispatch, "grid")), ("8,1,1", "8,1,1"));
    assert_eq!((field(dispatch, "reserved"), field(dispatch, "kernel_object")), ("0,0", "0x1234"));

    // The kernarg segment: the explicit arguments where the code object's metadata puts them.
    let hsaco = dir.join("saxpy.hsaco");
    let compiled = Command::new(env!("CARGO_BIN_EXE_gcnc"))
        .args(["compile", "examples/saxpy.gk", "-o"])
        .arg(&hsaco)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    let program = gcnc::emu::load(&std::fs::read(&hsaco).unwrap()).unwrap();
    let kernel = program.kernel("saxpy").unwrap();
    let offsets: Vec<usize> = kernel.explicit_args().iter().map(|a| a.offset as usize).collect();
    let hex = field(dispatch, "kernarg");
    let kernarg: Vec<u8> =
        (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
    assert_eq!(kernarg.len(), kernel.metadata().unwrap().kernarg_segment_size as usize);
    let word = |at: usize| u32::from_le_bytes(kernarg[at..at + 4].try_into().unwrap());
    let pointer = |at: usize| u64::from_le_bytes(kernarg[at..at + 8].try_into().unwrap());
    assert_eq!(word(offsets[0]), 2f32.to_bits());
    assert!(pointer(offsets[1]) != 0 && pointer(offsets[2]) != 0 && pointer(offsets[1]) != pointer(offsets[2]));
    assert_eq!(word(offsets[3]), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failures_on_a_gpu_release_everything() {
    let dir = scratch_dir("mock-fail");
    let library = build_mock(&dir);
    let log_path = dir.join("calls.log");
    let fail = PathBuf::from("hsa_executable_freeze");
    let out = run_saxpy_on_gpu_with(
        Some(library.to_str().unwrap()),
        &[],
        &[("MOCK_HSA_LOG", &log_path), ("MOCK_HSA_FAIL", &fail)],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, "error: hsa_executable_freeze failed: MOCK_INVALID_ARGUMENT: bad argument\n");
    let text = std::fs::read_to_string(&log_path).unwrap();
    let log: Vec<&str> = text.lines().collect();
    assert_everything_released(&log);
    assert!(!log.iter().any(|l| l.starts_with("dispatch")), "{log:#?}");

    // A code object for another processor finds no GPU to run on.
    std::fs::remove_file(&log_path).unwrap();
    let out = run_saxpy_on_gpu_with(Some(library.to_str().unwrap()), &["-mcpu=gfx942"], &[("MOCK_HSA_LOG", &log_path)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the code object is for gfx942, but the GPUs here are amdgcn-amd-amdhsa--gfx1100\n"
    );
    assert_eq!(std::fs::read_to_string(&log_path).unwrap(), "init\nshut_down\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
