//! `--device gpu` and HSA programs end to end on gcnc-hsa's software agent
//! (`libgcnc_hsa.so`, built beside this test since gcnc-hsa is a dev-dependency): `gcnc run`
//! and `gcnc conformance` through `GCNC_HSA_LIBRARY` and through `LD_LIBRARY_PATH`, against
//! the emulator's own results and the suite's expectations; the agents `GCNC_HSA_AGENTS`
//! asks for; a faulting kernel as a queue error; and the C program `tests/hsa/vector_copy.c`,
//! written only against Debian's `hsa.h` in the style of the classic HSA vector-copy sample,
//! running a clang-19 kernel and a gcnc kernel, and reporting deliberately wrong packets as
//! queue errors with the output left alone. An entry point the agent lacks fails to link.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gcnc_hsa::hsa_h::c_compiler;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcnc-hsa-agent-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The agent library cargo built for this test (beside it, in `deps/`).
fn agent_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let library = exe.parent().unwrap().join("libgcnc_hsa.so");
    assert!(library.is_file(), "{} is missing: gcnc-hsa's cdylib is built with gcnc's tests", library.display());
    library
}

/// A directory where the agent is `libhsa-runtime64.so.1`, for `LD_LIBRARY_PATH`.
fn runtime_dir(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    let link = dir.join("libhsa-runtime64.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(agent_library(), &link).unwrap();
    dir
}

/// `gcnc ARGS` in the repository with `env` set (and no stray agent settings).
fn gcnc(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gcnc"));
    cmd.args(args).current_dir(root()).env_remove(gcnc::gpu::LIBRARY_ENV).env_remove(gcnc_hsa::AGENTS_ENV);
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().expect("gcnc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ok(out: &Output) -> String {
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn run_on_the_agent_prints_what_the_emulator_prints() {
    let library = agent_library();
    let dir = runtime_dir("run");
    for example in ["examples/saxpy.gk", "examples/block_sum.gk"] {
        for cpu in ["-mcpu=gfx1100", "-mcpu=gfx942"] {
            let emulated = assert_ok(&gcnc(&["run", example, cpu, "--print", "1"], &[]));
            assert!(emulated.lines().count() > 4, "{emulated}");
            let args = ["run", example, cpu, "--print", "1", "--device", "gpu"];
            let through_env = assert_ok(&gcnc(&args, &[(gcnc::gpu::LIBRARY_ENV, &library)]));
            assert_eq!(through_env, emulated, "{example} {cpu} through {}", gcnc::gpu::LIBRARY_ENV);
            let through_loader = assert_ok(&gcnc(&args, &[("LD_LIBRARY_PATH", &dir)]));
            assert_eq!(through_loader, emulated, "{example} {cpu} through LD_LIBRARY_PATH");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn conformance_passes_on_the_agent() {
    let kernels = assert_ok(&gcnc(&["conformance", "--list"], &[])).lines().count();
    assert!(kernels >= 30, "{kernels} kernels");
    let args = ["conformance", "--device", "gpu", "-mcpu=gfx1100", "-mcpu=gfx942"];
    let out = assert_ok(&gcnc(&args, &[(gcnc::gpu::LIBRARY_ENV, &agent_library())]));
    let summary = out.lines().last().unwrap_or_default();
    let runs = 3 * kernels;
    let expected = format!(
        "{runs} passed, 0 failed, 0 known failures, of {runs} runs ({kernels} kernels on 3 configurations) in "
    );
    assert!(summary.starts_with(&expected), "{summary}\n{out}");
}

#[test]
fn a_faulting_kernel_is_a_queue_error() {
    // saxpy over 16 work-items with buffers of 8: the emulator reports the access, and so
    // does the agent, through the queue's error callback, instead of a result.
    let args = ["run", "examples/saxpy.gk", "--grid", "16", "--block", "8", "--arg", "2.0", "--arg", "f32[8]:iota"];
    let args = [&args[..], &["--arg", "f32[8]:fill=1", "--arg", "16", "--print", "2"]].concat();
    let emulated = gcnc(&args, &[]);
    assert_eq!(emulated.status.code(), Some(1));
    assert!(text(&emulated.stderr).contains("out of bounds"), "{}", text(&emulated.stderr));
    let on_agent = gcnc(&[&args[..], &["--device", "gpu"]].concat(), &[(gcnc::gpu::LIBRARY_ENV, &agent_library())]);
    let stderr = text(&on_agent.stderr);
    assert_eq!(on_agent.status.code(), Some(1), "{stderr}");
    assert!(on_agent.stdout.is_empty(), "{}", text(&on_agent.stdout));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("gcnc-hsa: queue 0: packet 0: kernel saxpy") && lines[0].contains("out of bounds"));
    assert_eq!(
        lines[1],
        "error: running saxpy on the GPU: the queue reported HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The kernel \
         accessed memory outside every allocation."
    );
}

#[test]
fn agents_come_from_the_environment() {
    let library = agent_library();
    let saxpy = |cpu: &str, agents: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gcnc"));
        cmd.args(["run", "examples/saxpy.gk", cpu, "--device", "gpu"])
            .current_dir(root())
            .env(gcnc::gpu::LIBRARY_ENV, &library)
            .env(gcnc_hsa::AGENTS_ENV, agents);
        cmd.output().unwrap()
    };
    let refused = |out: Output| {
        assert_eq!(out.status.code(), Some(1));
        text(&out.stderr)
    };
    assert_ok(&saxpy("-mcpu=gfx942", "gfx1100,gfx942"));
    assert_eq!(
        refused(saxpy("-mcpu=gfx942", "gfx1100")),
        "error: the code object is for gfx942, but the GPUs here are amdgcn-amd-amdhsa--gfx1100\n"
    );
    // A feature the entry leaves open takes the hardware's default; one it sets is kept.
    assert_ok(&saxpy("-mcpu=gfx942:xnack-", "gfx942"));
    assert_eq!(
        refused(saxpy("-mcpu=gfx942:xnack-", "gfx942:xnack+")),
        "error: the code object is for gfx942:xnack-, but the GPUs here are amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+\n"
    );
    // A processor the emulator does not run yet (gfx1030, RDNA2) is no agent.
    let stderr = refused(saxpy("-mcpu=gfx942", "gfx1030"));
    assert!(stderr.starts_with("gcnc-hsa: GCNC_HSA_AGENTS: the emulator does not run gfx1030"), "{stderr}");
    assert!(stderr.ends_with("error: no GPU: hsa_init failed: HSA_STATUS_ERROR: A generic error has occurred.\n"));
}

/// Runs a command that must succeed.
fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?}: {}{}", text(&out.stdout), text(&out.stderr));
}

/// Builds the C sample in `dir`, linked against the agent (whose SONAME is
/// `libhsa-runtime64.so.1`), every symbol bound at load time.
fn build_sample(dir: &Path) -> PathBuf {
    let program = dir.join("vector_copy");
    let deps = agent_library().parent().unwrap().to_path_buf();
    run_ok(
        Command::new(c_compiler())
            .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
            .arg(&program)
            .arg(root().join("gcnc/tests/hsa/vector_copy.c"))
            .arg(format!("-L{}", deps.display()))
            .args(["-lgcnc_hsa", "-Wl,-z,now"]),
    );
    program
}

/// The sample's kernel for `cpu`, compiled by clang-19 and by gcnc.
fn sample_kernels(dir: &Path, cpu: &str) -> [PathBuf; 2] {
    let (clang, ours) = (dir.join(format!("clang-{cpu}.hsaco")), dir.join(format!("gcnc-{cpu}.hsaco")));
    run_ok(
        Command::new("clang-19")
            .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2"])
            .arg(format!("-mcpu={cpu}"))
            .arg(root().join("gcnc/tests/hsa/vector_copy.cl"))
            .arg("-o")
            .arg(&clang),
    );
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_gcnc"))
            .args(["compile", "gcnc/tests/hsa/vector_copy.gk", &format!("-mcpu={cpu}"), "-o"])
            .arg(&ours)
            .current_dir(root()),
    );
    [clang, ours]
}

#[test]
fn the_c_sample_runs_clang_and_gcnc_kernels() {
    let dir = runtime_dir("sample");
    let program = build_sample(&dir);
    let sample = |cpu: &str, object: &Path, mode: &str| {
        let out = Command::new(&program)
            .arg(object)
            .arg(mode)
            .env("LD_LIBRARY_PATH", &dir)
            .env(gcnc_hsa::AGENTS_ENV, cpu)
            .output()
            .unwrap();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let (gfx1100, gfx942) = (sample_kernels(&dir, "gfx1100"), sample_kernels(&dir, "gfx942"));
    for (cpu, objects) in [("gfx1100", &gfx1100), ("gfx942", &gfx942)] {
        for object in objects {
            for mode in ["file", "memory"] {
                let (status, stdout, stderr) = sample(cpu, object, mode);
                let expected =
                    format!("{mode} on {cpu}: 1000 of 1000 elements copied; completion signal 0; queue error 0\n");
                assert_eq!((status, stdout.as_str(), stderr.as_str()), (Some(0), expected.as_str(), ""), "{object:?}");
            }
        }
    }
    // A barrier-AND packet holds the dispatch behind it until the host sets its signal to 0.
    for object in &gfx942 {
        let (status, stdout, stderr) = sample("gfx942", object, "barrier");
        let expected = "barrier on gfx942: held until its signal was 0, then barrier completion 0; 1000 of 1000 \
                        elements copied; completion signal 0; queue error 0\n";
        assert_eq!((status, stdout.as_str(), stderr.as_str()), (Some(0), expected, ""), "{object:?}");
    }
    // Wrong packets and a faulting kernel: reported through the queue's callback (the
    // emulator's message on stderr), the completion signal left at 1, the output untouched.
    for object in &gfx1100 {
        for (mode, status, message) in [
            ("no-header", "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", "whose header is still INVALID"),
            ("kernarg-oob", "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", "the kernarg segment at"),
            ("buffer-oob", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "is out of bounds"),
        ] {
            let (code, stdout, stderr) = sample("gfx1100", object, mode);
            assert_eq!(code, Some(0), "{mode} {object:?}: {stdout}{stderr}");
            assert!(stdout.starts_with(&format!("{mode} on gfx1100: the queue reported {status}: ")), "{stdout}");
            assert!(stdout.ends_with("; completion signal 1; output untouched\n"), "{stdout}");
            assert!(stderr.starts_with("gcnc-hsa: queue 0: packet 0: ") && stderr.contains(message), "{stderr}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unimplemented_entry_points_are_absent() {
    let dir = scratch_dir("absent");
    let source = dir.join("pools.c");
    std::fs::write(
        &source,
        "#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n\nint main(void) {\n    void *p;\n    \
         hsa_amd_memory_pool_t pool = {0};\n    return hsa_init() || hsa_amd_memory_pool_allocate(pool, 64, 0, &p);\n}\n",
    )
    .unwrap();
    let link = |library: &[&str]| {
        Command::new(c_compiler())
            .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
            .arg(dir.join("pools"))
            .arg(&source)
            .args(library)
            .output()
            .unwrap()
    };
    // The program is fine: ROCm's runtime has the entry point.
    let real = link(&["-lhsa-runtime64"]);
    assert!(real.status.success(), "{}", text(&real.stderr));
    let deps = format!("-L{}", agent_library().parent().unwrap().display());
    let ours = link(&[&deps, "-lgcnc_hsa"]);
    assert!(!ours.status.success());
    assert!(
        text(&ours.stderr).contains("undefined reference to `hsa_amd_memory_pool_allocate'"),
        "{}",
        text(&ours.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
