//! Issue 20's eleven reproducers against the `gcnc` program: each run is limited to 2 GiB of
//! address space (`ulimit -v`) and 30 seconds, and must exit with status 1 and a located
//! message (or 0 where the input is valid), never 101 (panic), 134 (abort) or 137 (killed).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// Shared with the library suites and the scaling benchmark, which use generators this suite
// does not.
#[path = "../../tests/src/programs.rs"]
#[allow(dead_code)]
mod programs;

/// The address space each run may use.
const MEMORY_KIB: u64 = 2 << 20;
/// The time each run may take.
const TIME_LIMIT: Duration = Duration::from_secs(30);

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `gcnc args` in the repository under the memory and time limits; panics past them.
fn gcnc_limited(args: &[&str], memory_kib: u64) -> Run {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {memory_kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_gcnc"))
        .args(args)
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gcnc starts");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            panic!("gcnc {args:?} ran longer than {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let run = Run { code: status.code().unwrap_or(-1), stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
    assert!(matches!(run.code, 0 | 1), "gcnc {args:?} exited with {status}:\n{}", run.stderr);
    run
}

fn gcnc(args: &[&str]) -> Run {
    gcnc_limited(args, MEMORY_KIB)
}

/// Expects status 1 and `needle` in the diagnostic.
fn fails_with(args: &[&str], needle: &str) -> Run {
    let run = gcnc(args);
    assert_eq!(run.code, 1, "gcnc {args:?} should fail:\n{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(needle), "gcnc {args:?}: expected `{needle}` in:\n{}", run.stderr);
    run
}

fn succeeds(args: &[&str]) -> Run {
    let run = gcnc(args);
    assert_eq!(run.code, 0, "gcnc {args:?} should succeed:\n{}", run.stderr);
    run
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcnc-robust-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

const SAXPY: &str = "examples/saxpy.gk";

#[test]
fn case_01_sizes_from_the_command_line_are_checked_before_allocating() {
    let limit = "is larger than the 4 GiB limit";
    fails_with(&["check", SAXPY, "--grid", "4294967295,4294967295", "--block", "1"], limit);
    fails_with(&["check", SAXPY, "--grid", "64", "--block", "64", "--len", "10000000000"], limit);
    fails_with(&["check", SAXPY, "--grid", "64", "--block", "64", "--len", "4611686018427387904"], limit);
    // On the command line the size is checked as the argument is parsed: a usage error.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_gcnc"))
        .args(["run", SAXPY, "--grid", "8", "--block", "8", "--arg", "f32[2000000000]:zeros"])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(limit));
    let run = succeeds(&["check", SAXPY, "--grid", "100", "--block", "64", "--len", "100"]);
    assert_eq!(run.stdout, "PASS\n");
}

#[test]
fn case_02_a_descriptor_asking_for_huge_scratch_is_refused() {
    let target = gcnc::Target::new(gcnc::TargetId::parse("gfx1100").unwrap());
    let src = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/saxpy.gk")).unwrap();
    let module = lang::compile_source(&src, "saxpy.gk").unwrap();
    let mut compiled = gcnc::compile(&module, &target, &gcnc::Options::default()).unwrap();
    compiled.object.kernels[0].descriptor.private_segment_fixed_size = 0xaabe_55a9;
    let dir = scratch("scratch");
    let object = write(&dir, "huge.hsaco", compiled.shared());
    let args = ["run", &object, "--grid", "8", "--block", "8", "--arg", "f32:2", "--arg", "f32[8]:iota"];
    let run = fails_with(
        &[&args[..], &["--arg", "f32[8]:zeros", "--arg", "u32:8"]].concat(),
        "asks for 2864600489 bytes of private memory per work-item, 91667215648 per wave",
    );
    assert!(run.stderr.contains("more than the 8388352 bytes a wave can have"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_03_deep_programs_reach_the_backend_or_are_refused() {
    let dir = scratch("deep");
    // 5,000 nested loops: parsed and verified (the rest up to isel: tests/deep_programs.rs).
    let gir = programs::nested_loops(5000);
    let loops = write(&dir, "loops.gir", gir);
    let ir = dir.join("loops.ir.gir");
    succeeds(&["compile", &loops, "--emit=ir", "-o", ir.to_str().unwrap()]);
    // Helpers inlined 3,000 levels deep lower; 38,000 levels are refused with the chain.
    let helpers = programs::deep_helpers;
    let deep = write(&dir, "deep.gk", helpers(20, 150));
    succeeds(&["compile", &deep, "--emit=ir", "-o", ir.to_str().unwrap()]);
    let deeper = write(&dir, "deeper.gk", helpers(200, 190));
    let run = fails_with(&["compile", &deeper], "levels deep after inlining its helper functions");
    assert!(run.stderr.contains("deeper.gk:1:42") && run.stderr.contains("k → f199 → f198"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_04_exponential_inlining_is_refused_with_the_call_chain() {
    let dir = scratch("expo");
    let src = programs::doubling_helpers(30);
    let file = write(&dir, "expo.gk", src);
    let run = fails_with(&["compile", &file], "syntax nodes after inlining its helper functions");
    assert!(run.stderr.contains("expo.gk:1:42") && run.stderr.contains("k → f29 → f28"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_05_fifty_thousand_statements_in_loop_nests_under_one_gigabyte() {
    let dir = scratch("big");
    let src = programs::loop_nest_statements(1000, 25);
    let file = write(&dir, "big.gk", src);
    let ir = dir.join("big.ir.gir");
    let start = Instant::now();
    let run = gcnc_limited(&["compile", &file, "--emit=ir", "-o", ir.to_str().unwrap()], 1 << 20);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(unix)]
fn case_06_devices_and_fifos_are_written_through() {
    use std::os::unix::fs::FileTypeExt;
    let is_device = |p: &str| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device());
    if is_device("/dev/full") {
        fails_with(&["compile", SAXPY, "-o", "/dev/full"], "cannot write '/dev/full': No space left on device");
        assert!(is_device("/dev/full"));
    }
    let dir = scratch("fifo");
    let fifo = dir.join("out");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::read(fifo).unwrap()
    });
    succeeds(&["compile", SAXPY, "--emit=ir", "-o", fifo.to_str().unwrap()]);
    let text = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(text.starts_with("kernel @saxpy("), "{text}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_07_every_error_has_a_location() {
    let dir = scratch("located");
    let utf8 = write(&dir, "utf8.gk", b"kernel k(x: &mut [u32]) {\n  x[0] = 1; // \xff\n}\n");
    fails_with(&["compile", &utf8], "utf8.gk:2:16: the file is not UTF-8 (byte 0xff at offset 41)");
    let bad = write(&dir, "bad.gir", "kernel @k(i32) {\nblock0(%0: i32):\n    %1 = fadd %0, %0\n    ret\n}\n");
    let run = fails_with(&["compile", &bad], "error: @k, block0, `%1 = fadd %0, %0`: fadd needs float operands");
    assert!(run.stderr.contains("bad.gir:3:5\n  |\n3 |     %1 = fadd %0, %0\n  |     ^"), "{}", run.stderr);
    let none = write(&dir, "none.gir", "func @f() {\nblock0:\n    ret\n}\n");
    fails_with(&["compile", &none], "none.gir: compiling for gfx1100: the module has no kernel");
    fails_with(&["run", &none, "--grid", "1", "--block", "1"], "none.gir': the input has no kernel");
    // A valid program the backend rejects (a 1-byte access): at the instruction.
    let byte =
        "kernel @k(ptr<global>) {\nblock0(%0: ptr<global>):\n    %1 = load.i8 %0\n    store %0, %1\n    ret\n}\n";
    let byte = write(&dir, "byte.gir", byte);
    let run = fails_with(&["compile", &byte], "a i8 access (only 2-, 4- and 8-byte accesses so far)");
    assert!(run.stderr.contains("--> ") && run.stderr.contains("byte.gir:3:5"), "{}", run.stderr);
    // 151 live loop counters, more than the SGPRs, compile with spills.
    let wide = write(&dir, "wide.gir", programs::nested_loops(150));
    succeeds(&["compile", &wide, "-o", dir.join("wide.hsaco").to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `file:line:col` of the first `needle` in `src`, the column counted in characters.
fn place(file: &str, src: &str, needle: &str) -> String {
    let start = src.find(needle).unwrap_or_else(|| panic!("`{needle}` is not in the source"));
    let line = src[..start].matches('\n').count() + 1;
    let col = src[..start].rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{file}:{line}:{col}")
}

/// Backend errors about an instruction point at its line in the source, through lowering,
/// inlining and the `.gir` parser alike, with the line and a caret, from `compile`, `check`
/// and `run`.
#[test]
fn case_07_backend_errors_name_the_source_line_of_the_instruction() {
    let dir = scratch("backend-located");
    let split = "cannot be used in threadgroup split mode";
    let tgsplit = ["-mcpu=gfx942", "-mtgsplit"];
    // A barrier in an inlined helper: the helper's line, as clang gives it.
    let src = "fn publish(x: &mut [u32], i: u32) {\n    x[i] = i;\n    barrier();\n}\n\n\
               kernel k(x: &mut [u32]) {\n    let i = global_id.x;\n    publish(x, i);\n}\n";
    let gk = write(&dir, "barrier.gk", src);
    let at = place(&gk, src, "barrier()");
    let launch = ["--grid", "64", "--block", "64"];
    for args in [vec!["compile", &gk], [&["check", &gk][..], &launch].concat(), {
        [&["run", &gk][..], &launch, &["--arg", "u32[64]:zeros"]].concat()
    }] {
        let run = fails_with(&[&args[..], &tgsplit].concat(), split);
        assert!(run.stderr.contains(&format!("--> {at}\n")), "{args:?}: not at {at}:\n{}", run.stderr);
        assert!(run.stderr.contains("|     barrier();\n  |     ^^^^^^^^^\n"), "{}", run.stderr);
    }
    // Shared memory: the store into it.
    let src = "kernel k(x: &mut [u32]) {\n    shared tile: [u32; 64];\n    let i = local_id.x;\n    \
               tile[i] = i;\n    x[i] = tile[63u - i];\n}\n";
    let gk = write(&dir, "shared.gk", src);
    let run = fails_with(&["compile", &gk, "-mcpu=gfx942", "-mtgsplit"], "shared memory cannot be used");
    assert!(run.stderr.contains(&place(&gk, src, "tile[i] = i;")), "{}", run.stderr);
    // The same refusal of a `.gir` barrier, at its line.
    let src = "kernel @k() {\nblock0:\n    fence acq_rel workgroup\n    barrier\n    ret\n}\n";
    let gir = write(&dir, "barrier.gir", src);
    let run = fails_with(&["compile", &gir, "-mcpu=gfx942", "-mtgsplit"], split);
    assert!(run.stderr.contains(&format!("--> {}\n", place(&gir, src, "barrier\n"))), "{}", run.stderr);
    // Control flow nested past selection's 400 regions, in three inlined helpers of 150 ifs
    // each: the kernel's body is the first region and each `if` adds one, so the 400th `if`'s
    // arm is refused, at its first instruction: the condition of the 401st.
    let mut src = String::from("kernel k(x: &mut [u32], n: u32) { x[0] = f3(n); }\nfn f0(n: u32) -> u32 { n }\n");
    for f in 1..4 {
        src.push_str(&format!("fn f{f}(n: u32) -> u32 {{\n    var v = 0u32;\n"));
        for level in 0..150 {
            src.push_str(&format!("if n > {} {{\n", 1000 * f + level));
        }
        src.push_str(&format!("v = f{}(n);\n{}    v\n}}\n", f - 1, "}\n".repeat(150)));
    }
    // The kernel inlines f3, f2, then f1: the 401st `if` is f1's 101st.
    let gk = write(&dir, "deep.gk", &src);
    let run = fails_with(&["compile", &gk], "control flow nested more than 400 regions deep");
    assert!(run.stderr.contains(&format!("--> {}\n", place(&gk, &src, "1100 {"))), "{}", run.stderr);
    // 300 nested loops in `.gir`: refused before selection at the first block 201 loops deep,
    // the header of loop `h200`, at its compare.
    let src = programs::nested_loops(300);
    let gir = write(&dir, "loops.gir", &src);
    let run = fails_with(&["compile", &gir], "control flow nested more than 400 regions deep");
    assert!(run.stderr.contains(&format!("--> {}\n", place(&gir, &src, "%c200 = icmp"))), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fault of the reference interpreter (`run --device interp`, `check`) is at the line of
/// the instruction that faulted, in `.gk` and `.gir` alike.
#[test]
fn case_07_interpreter_faults_name_the_source_line_of_the_instruction() {
    let dir = scratch("fault-located");
    let oob = "is out of bounds";
    let src = "kernel k(x: &mut [u32], n: u32) {\n    let i = global_id.x;\n    if i < n {\n        \
               x[i + 100u] = i;\n    }\n}\n";
    let gk = write(&dir, "oob.gk", src);
    let at = format!("--> {}\n", place(&gk, src, "x[i + 100u] = i;"));
    let launch = ["--grid", "4", "--block", "4"];
    let run = fails_with(&[&["check", &gk][..], &launch].concat(), oob);
    assert!(run.stderr.contains(&at), "not at {at}:\n{}", run.stderr);
    let args = ["run", &gk, "--device", "interp", "--arg", "u32[4]:zeros", "--arg", "4"];
    let run = fails_with(&[&args[..], &launch].concat(), oob);
    assert!(run.stderr.contains(&at), "not at {at}:\n{}", run.stderr);
    let src = "kernel @k(ptr<global>) {\nblock0(%p: ptr<global>):\n    %v = load.i32 %p\n    ret\n}\n";
    let gir = write(&dir, "oob.gir", src);
    let args = ["run", &gir, "--device", "interp", "--arg", "i32[0]:zeros"];
    let run = fails_with(&[&args[..], &launch].concat(), oob);
    assert!(run.stderr.contains(&format!("--> {}\n", place(&gir, src, "%v = load"))), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_08_the_nesting_limit_counts_nesting_not_chains() {
    let dir = scratch("chains");
    let sum = format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = n{}; }}\n", " + n".repeat(200));
    let all = format!("kernel k(x: &mut [u32], n: u32) {{ if n > 0{} {{ x[0] = 1; }} }}\n", " && n > 1".repeat(199));
    let arms: String = (1..200).map(|i| format!(" else if n == {i} {{ x[0] = {i}; }}")).collect();
    let arms = format!("kernel k(x: &mut [u32], n: u32) {{ if n == 0 {{ x[0] = 0; }}{arms} }}\n");
    for (name, src) in [("sum.gk", sum), ("and.gk", all), ("arms.gk", arms)] {
        let file = write(&dir, name, src);
        let object = dir.join(format!("{name}.hsaco"));
        succeeds(&["compile", &file, "-o", object.to_str().unwrap()]);
    }
    // The sum of 201 n's, run: 201 * 3.
    let sum = dir.join("sum.gk");
    let args = ["run", sum.to_str().unwrap(), "--grid", "1", "--block", "1", "--arg", "u32[1]:zeros", "--arg", "3"];
    assert_eq!(
        succeeds(&[&args[..], &["--print", "0"]].concat()).stdout,
        format!("parameter 0 (u32[1]):\n[0] {}\n", 201 * 3)
    );
    let paren = write(
        &dir,
        "paren.gk",
        format!("kernel k(x: &mut [u32]) {{ x[0] = {}1{}; }}\n", "(".repeat(250), ")".repeat(250)),
    );
    fails_with(&["compile", &paren], "the program nests deeper than 200 levels");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_09_the_workgroup_size_attribute_reaches_the_metadata_and_every_device() {
    let dir = scratch("wg");
    let src =
        "#[workgroup_size(64)]\nkernel k(x: &mut [u32], n: u32) { let i = global_id.x; if i < n { x[i] = i; } }\n";
    let file = write(&dir, "wg.gk", src);
    let object = dir.join("wg.hsaco");
    succeeds(&["compile", &file, "-o", object.to_str().unwrap()]);
    let object = object.to_str().unwrap();
    let meta = succeeds(&["inspect", object]).stdout;
    assert!(meta.contains(".max_flat_workgroup_size: 64"), "{meta}");
    assert!(meta.contains(".reqd_workgroup_size:\n        - 64\n        - 1\n        - 1"), "{meta}");
    let launch = |input: &str, block: &str, device: &str| {
        let args = ["run", input, "--grid", "128", "--block", block, "--device", device];
        [&args[..], &["--arg", "u32[128]:zeros", "--arg", "128"]]
            .concat()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let refused = "requires workgroups of [64, 1, 1], the launch gives [128, 1, 1]";
    for (input, device) in [(object, "emu"), (file.as_str(), "emu"), (object, "gpu"), (file.as_str(), "interp")] {
        let args = launch(input, "128", device);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let needle = if device == "interp" { "requires" } else { refused };
        fails_with(&args, needle);
    }
    let args = launch(object, "64", "emu");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = succeeds(&[&args[..], &["--print", "0"]].concat());
    assert_eq!(run.stdout.lines().nth(128), Some("[127] 127"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_10_launches_are_checked_against_the_kernel() {
    let dir = scratch("args");
    let object = dir.join("saxpy.hsaco");
    succeeds(&["compile", SAXPY, "-o", object.to_str().unwrap()]);
    let object = object.to_str().unwrap();
    let meta = succeeds(&["inspect", object]).stdout;
    for key in [".name: x", ".type_name: 'float*'", ".is_const: true", ".type_name: uint"] {
        assert!(meta.contains(key), "{key} in {meta}");
    }
    for input in [SAXPY, object] {
        let base = ["run", input, "--grid", "8", "--block", "8"];
        fn with<'a>(base: &[&'a str], rest: &[&'a str]) -> Vec<&'a str> {
            [base, rest].concat()
        }
        let run = |rest: &[&'static str]| with(&base, rest);
        fails_with(
            &run(&["--arg", "2", "--arg", "i32[1000]:iota", "--arg", "f32[8]:zeros", "--arg", "8"]),
            "parameter 1 (x) of saxpy: the kernel's parameter is a buffer of f32",
        );
        fails_with(
            &run(&["--arg", "2", "--arg", "f32[8]:iota", "--arg", "f32[8]:zeros", "--arg", "i32:64"]),
            "parameter 3 (n) of saxpy: argument 'i32:64' has type i32, but the kernel's parameter has type u32",
        );
        fails_with(
            &run(&["--arg", "2", "--arg", "f32[8]:file=/dev/zero", "--arg", "f32[8]:zeros", "--arg", "8"]),
            "'/dev/zero' has more than 32 bytes, but f32[8] needs 32 bytes",
        );
        // Negative values as cli.md writes them; no TYPE: needed, even for a code object.
        let out = succeeds(&run(&[
            "--arg",
            "-0.5",
            "--arg",
            "f32[8]:iota",
            "--arg",
            "f32[8]:fill=1",
            "--arg",
            "8",
            "--print",
            "2",
        ]));
        let expected: String = (0..8).map(|i| format!("[{i}] {:?}\n", (-0.5f32).mul_add(i as f32, 1.0))).collect();
        assert_eq!(out.stdout, format!("parameter 2 (f32[8]):\n{expected}"));
    }
    let dir_gk = write(&dir, "neg.gk", "kernel k(x: &mut [i32], d: i32) { x[0] = d * 2; }\n");
    let out = succeeds(&[
        "run",
        &dir_gk,
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "i32[1]:zeros",
        "--arg",
        "-1",
        "--print",
        "0",
    ]);
    assert_eq!(out.stdout, "parameter 0 (i32[1]):\n[0] -2\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn case_11_a_grid_too_large_to_finish_is_refused_and_the_step_limit_is_a_flag() {
    let args = ["run", SAXPY, "--grid", "4294967295,4294967295", "--block", "1", "--arg", "2", "--arg", "f32[8]:iota"];
    let rest = ["--arg", "f32[8]:zeros", "--arg", "8"];
    for device in ["emu", "interp"] {
        let run = fails_with(&[&args[..], &rest, &["--device", device]].concat(), "more than the step limit of");
        assert!(run.stderr.contains("the grid [4294967295, 4294967295, 1] is at least"), "{}", run.stderr);
    }
    let dir = scratch("steps");
    let spin = write(
        &dir,
        "spin.gk",
        "kernel k(x: &mut [u32], n: u32) { var s = 0u32; for i in 0..n { s += i; } x[0] = s; }\n",
    );
    let spin_args = ["run", &spin, "--grid", "1", "--block", "1", "--arg", "u32[1]:zeros", "--arg", "4000000000"];
    for device in ["emu", "interp"] {
        fails_with(&[&spin_args[..], &["--step-limit", "1000", "--device", device]].concat(), "step limit of 1000");
    }
    let small = ["run", &spin, "--grid", "1", "--block", "1", "--arg", "u32[1]:zeros", "--arg", "10", "--print", "0"];
    assert_eq!(succeeds(&small).stdout, "parameter 0 (u32[1]):\n[0] 45\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
