//! The `gcnc` program end to end: README's main command, and the exit status and diagnostic of
//! each kind of failure (cli.md: 1 for bad input or a faulting kernel, 2 for a usage error).

use std::path::PathBuf;
use std::process::{Command, Output};

fn gcnc(args: &[&str]) -> Output {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new(env!("CARGO_BIN_EXE_gcnc")).args(args).current_dir(root).output().expect("gcnc runs")
}

/// A fresh directory named after `name` and this process, holding `file` with `source`.
fn temp_source(name: &str, file: &str, source: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("gcnc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(file);
    std::fs::write(&src, source).unwrap();
    (dir, src)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const VADD: &[&str] = &["run", "examples/vadd.gir", "--device", "interp", "--grid", "1000", "--block", "256"];

/// README's main command, word for word: compile saxpy.gk for gfx1100 and run it on the emulator.
#[test]
fn readme_main_command_runs_on_the_emulator() {
    let readme = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let line = readme.lines().find(|l| l.starts_with("cargo run -p gcnc -- run")).expect("the main command");
    // Split like a shell would: the quoted words hold no spaces.
    let words: Vec<String> = line.split_whitespace().skip(5).map(|w| w.trim_matches('\'').to_string()).collect();
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    let out = gcnc(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "parameter 2 (f32[8]):");
    // y[i] = 2 * i + 1, computed here.
    for (i, line) in lines[1..].iter().enumerate() {
        assert_eq!(*line, format!("[{i}] {:?}", 2.0f32.mul_add(i as f32, 1.0)));
    }
    assert_eq!(lines.len(), 9);
}

#[test]
fn interpreter_vadd_prints_sums() {
    let mut args = VADD.to_vec();
    args.extend(["--arg", "f32[1000]:iota", "--arg", "f32[1000]:fill=2", "--arg", "f32[1000]:zeros", "--arg", "1000"]);
    args.extend(["--print", "2"]);
    let out = gcnc(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "parameter 2 (f32[1000]):");
    assert_eq!(lines.len(), 1001);
    // c[i] = i + 2, computed here rather than copied from a run.
    for (i, line) in lines[1..].iter().enumerate() {
        assert_eq!(*line, format!("[{i}] {:?}", i as f32 + 2.0));
    }
}

#[test]
fn out_of_bounds_kernel_exits_1_with_the_site() {
    let mut args = VADD.to_vec();
    args.extend(["--arg", "f32[10]:iota", "--arg", "f32[1000]:fill=2", "--arg", "f32[1000]:zeros", "--arg", "1000"]);
    let out = gcnc(&args);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: running @vadd"), "{stderr}");
    assert!(stderr.contains("lane 10") && stderr.contains("out of bounds"), "{stderr}");
}

#[test]
fn parse_error_is_rendered_with_a_caret_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("gcnc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.gir");
    std::fs::write(&bad, "kernel @k() {\nblock0:\n    %1 = iconst.i33 4\n    ret\n}\n").unwrap();
    let out = gcnc(&["run", bad.to_str().unwrap(), "--device", "interp", "--grid", "1", "--block", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: expected a type, found `i33`"), "{stderr}");
    assert!(
        stderr.contains("bad.gir:3:17") && stderr.contains("    %1 = iconst.i33 4\n  |                 ^^^"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wrong_argument_count_exits_1_and_usage_errors_exit_2() {
    let mut args = VADD.to_vec();
    args.extend(["--arg", "f32[10]:iota"]);
    let out = gcnc(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("@vadd takes 4 parameter(s)"), "{}", text(&out.stderr));
    assert_eq!(gcnc(&["run", "examples/vadd.gir", "--grid", "0", "--block", "1"]).status.code(), Some(2));
    assert_eq!(gcnc(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn compile_then_run_on_the_emulator_for_each_target() {
    let dir = std::env::temp_dir().join(format!("gcnc-cli-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for flags in [&["-mcpu=gfx1100"][..], &["-mcpu=gfx1100", "-mwavefrontsize64"], &["-mcpu=gfx942"], &["-mcpu=gfx90a"]]
    {
        let so = dir.join("vadd.hsaco");
        let mut args = vec!["compile", "examples/vadd.gir", "-o", so.to_str().unwrap()];
        args.extend_from_slice(flags);
        let out = gcnc(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        // The code object runs on the emulator (the default device) and computes a[i] + b[i].
        let mut run = vec!["run", so.to_str().unwrap(), "--grid", "100", "--block", "64"];
        run.extend([
            "--arg",
            "f32[100]:iota",
            "--arg",
            "f32[100]:fill=0.5",
            "--arg",
            "f32[100]:zeros",
            "--arg",
            "u32:100",
        ]);
        run.extend(["--print", "2"]);
        let out = gcnc(&run);
        assert!(out.status.success(), "{flags:?}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        for (i, line) in stdout.lines().skip(1).enumerate() {
            assert_eq!(line, format!("[{i}] {:?}", i as f32 + 0.5), "{flags:?}");
        }
        // And the same from the IR, compiled on the fly.
        let mut run = vec!["run", "examples/vadd.gir", "--grid", "100", "--block", "64"];
        run.extend(flags);
        run.extend(["--arg", "f32[100]:iota", "--arg", "f32[100]:fill=0.5", "--arg", "f32[100]:zeros", "--arg", "100"]);
        run.extend(["--print", "2"]);
        let out = gcnc(&run);
        assert!(out.status.success(), "{flags:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), stdout, "{flags:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every processor of the table that gcnc does not verify end to end (isa's `verified` column)
/// is refused with status 1 and the list of those it does, instead of getting another
/// processor's code (gfx90a once got gfx942's `buffer_wbl2 sc1`, which gfx90a lacks).
#[test]
fn unverified_processors_are_refused() {
    let verified: Vec<&str> = isa::processor::PROCESSORS.iter().filter(|p| p.verified).map(|p| p.name).collect();
    assert!(verified.contains(&"gfx1100") && verified.contains(&"gfx942") && verified.contains(&"gfx90a"));
    for proc in isa::processor::PROCESSORS.iter().filter(|p| !p.verified) {
        let cpu = format!("-mcpu={}", proc.name);
        let out = gcnc(&["compile", "examples/saxpy.gk", &cpu, "-mcode-object-version=6", "-o", "/dev/null"]);
        assert_eq!(out.status.code(), Some(1), "{}: {}", proc.name, text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("does not compile for {}", proc.name)), "{stderr}");
        assert!(stderr.contains(&verified.join(", ")), "{stderr}");
    }
}

/// clang's target triple is accepted in its spellings (`-target T`, `--target=T`) and gives
/// the same object as none; any other triple is a usage error (status 2) naming the one. The
/// wave-size flags pair as clang's do.
#[test]
fn clang_target_flags_are_accepted_as_clang_spells_them() {
    let dir = std::env::temp_dir().join(format!("gcnc-cli-triple-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let compile = |extra: &[&str], name: &str| {
        let out_path = dir.join(name);
        let mut args = vec!["compile", "examples/saxpy.gk", "-o", out_path.to_str().unwrap()];
        args.extend_from_slice(extra);
        (gcnc(&args), out_path)
    };
    let (plain, plain_path) = compile(&[], "plain.hsaco");
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    let reference = std::fs::read(plain_path).unwrap();
    for (k, extra) in [&["-target", "amdgcn-amd-amdhsa"][..], &["--target=amdgcn-amd-amdhsa"]].iter().enumerate() {
        let (out, path) = compile(extra, &format!("t{k}.hsaco"));
        assert!(out.status.success(), "{extra:?}: {}", text(&out.stderr));
        assert_eq!(std::fs::read(path).unwrap(), reference, "{extra:?}");
    }
    // -mno-wavefrontsize64 undoes -mwavefrontsize64 when it comes last, as in clang.
    let (undone, path) = compile(&["-mwavefrontsize64", "-mno-wavefrontsize64"], "w32.hsaco");
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert_eq!(std::fs::read(path).unwrap(), reference);
    let (wave64, path) = compile(&["-mno-wavefrontsize64", "-mwavefrontsize64"], "w64.hsaco");
    assert!(wave64.status.success(), "{}", text(&wave64.stderr));
    assert_ne!(std::fs::read(path).unwrap(), reference, "wave64 code differs from wave32's");
    let (wrong, _) = compile(&["--target=x86_64-unknown-linux-gnu"], "wrong.hsaco");
    assert_eq!(wrong.status.code(), Some(2));
    assert!(text(&wrong.stderr).contains("amdgcn-amd-amdhsa only"), "{}", text(&wrong.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A usage error names the option as the user wrote it, in clang's words: an unknown one
/// whole (clap alone names `-s` of `-save-temps` and suggests `-- -s`), and an option gcnc
/// takes in clang's single-dash spelling in that spelling, never as the double-dash form it is
/// rewritten to. A bad flag value is a usage error (status 2) like the others.
#[test]
fn usage_errors_speak_as_clang() {
    for (args, message) in [
        (&["compile", "examples/saxpy.gk", "-save-temps"][..], "error: unknown argument: '-save-temps'"),
        (&["compile", "examples/saxpy.gk", "--bogus"], "error: unknown argument: '--bogus'"),
        (&["run", "examples/saxpy.gk", "-O5", "--grid", "1", "--block", "1"], "error: unknown argument: '-O5'"),
        (&["compile", "examples/saxpy.gk", "-mcpu=gfx1101"], "invalid value 'gfx1101' for '-mcpu <TARGET_ID>'"),
        (&["compile", "examples/saxpy.gk", "-mcpu"], "a value is required for '-mcpu <TARGET_ID>'"),
        (&["compile", "examples/saxpy.gk", "-mcode-object-version=3"], "for '-mcode-object-version <N>'"),
    ] {
        let out = gcnc(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("tip:") && !stderr.contains("'--mcpu") && !stderr.contains("'-s'"), "{stderr}");
        if message.contains("unknown argument") {
            assert!(stderr.contains(&format!("Usage: gcnc {}", args[0])), "{args:?}: {stderr}");
        }
    }
}

/// `--version` names the commit and the processors gcnc compiles for, the ones `gcnc targets`
/// lists as compiled for; `-V` the version and commit alone.
#[test]
fn version_names_the_commit_and_the_targets() {
    let long = text(&gcnc(&["--version"]).stdout);
    let short = text(&gcnc(&["-V"]).stdout);
    assert!(short.starts_with(&format!("gcnc {} (commit ", env!("CARGO_PKG_VERSION"))), "{short}");
    assert!(long.starts_with(short.trim_end()), "{long}");
    let compiled_for: Vec<String> = text(&gcnc(&["targets"]).stdout)
        .lines()
        .filter(|l| l.contains("compiled for and emulated"))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    let line = long.lines().find_map(|l| l.strip_prefix("compiles for: ")).expect("a 'compiles for' line");
    let named: Vec<&str> =
        line.split(", ").filter_map(|p| p.split(' ').next()).filter(|p| p.starts_with("gfx")).collect();
    assert_eq!(named, compiled_for, "{long}");
}

/// `-###` prints the plan (version, target, stages at the level, output) and writes nothing;
/// `-v` prints the same plan, compiles, and names the stages each kernel went through, which
/// are the plan's machine stages at every level (the plan and the pipeline agree).
#[test]
fn dry_run_and_verbose_print_the_stages() {
    let (dir, src) = temp_source("cli-plan", "k.gk", "kernel k(x: &mut [u32]) { x[global_id.x] = 1u; }\n");
    let out_path = dir.join("k.o");
    let out = out_path.to_str().unwrap();
    let dry = gcnc(&["compile", "-###", src.to_str().unwrap(), "-c", "-o", out]);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert!(!out_path.exists(), "-### wrote the output");
    let plan = text(&dry.stderr);
    assert!(plan.contains("amdgcn-amd-amdhsa--gfx1100 (wave32)") && plan.contains("(a relocatable object)"), "{plan}");
    for level in ["-O0", "-O1", "-O2", "-O3"] {
        let verbose = gcnc(&["compile", "-v", level, src.to_str().unwrap(), "-c", "-o", out]);
        let stderr = text(&verbose.stderr);
        assert!(verbose.status.success() && out_path.exists(), "{stderr}");
        let planned = stderr.lines().find_map(|l| l.strip_prefix(&format!("stages at {level}: "))).expect("a plan");
        let machine = &planned[planned.find("isel").expect("isel is planned")..];
        let ran = stderr.lines().find_map(|l| l.strip_prefix("@k: ")).expect("the stages that ran");
        let ran_machine = &ran[ran.find("isel").expect("isel ran")..];
        assert_eq!(ran_machine, machine, "{level}: {stderr}");
        assert_eq!(ran.starts_with("opt "), level != "-O0", "{level}: {stderr}");
        std::fs::remove_file(&out_path).unwrap();
    }
    let o0 = text(&gcnc(&["compile", "-###", "-O0", src.to_str().unwrap()]).stderr);
    let o2 = text(&gcnc(&["compile", "-###", "-O2", src.to_str().unwrap()]).stderr);
    assert!(!o0.contains("mir_opt") && o2.contains(" mir_opt ") && o2.contains("rounds of: fold"), "{o0}\n{o2}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gcnc completions SHELL` writes a script the shell parses that offers every subcommand
/// and clang's options; `gcnc man` a roff page naming every subcommand, and `gcnc man
/// compile` the subcommand's own page with its options.
#[test]
fn completions_and_manual_pages_cover_the_command_line() {
    let subcommands = ["compile", "run", "check", "disasm", "inspect", "conformance", "targets"];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = gcnc(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for word in subcommands.iter().chain(&["mcpu", "opt-level", "print-after"]) {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
        if shell == "bash" && Command::new("bash").arg("--version").output().is_ok() {
            let dir = std::env::temp_dir().join(format!("gcnc-completions-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("gcnc.bash");
            std::fs::write(&path, &script).unwrap();
            let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
            assert!(check.status.success(), "bash -n: {}", text(&check.stderr));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    let page = text(&gcnc(&["man"]).stdout);
    assert!(page.starts_with(".ie") && page.contains(".TH gcnc 1"), "{page}");
    for sub in subcommands {
        assert!(page.contains(sub), "the page lacks {sub}");
    }
    let compile = text(&gcnc(&["man", "compile"]).stdout);
    assert!(compile.contains(".TH gcnc-compile 1") && compile.contains("print\\-after"), "{compile}");
    let out = gcnc(&["man", "bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no subcommand 'bogus'"), "{}", text(&out.stderr));
}

/// Diagnostics are colored with `--color=always` and plain when piped (as here, by default)
/// or with `--color=never`; the text is the same.
#[test]
fn color_is_asked_for_or_follows_the_terminal() {
    let (dir, src) = temp_source("color", "bad.gk", "kernel k(x: &mut [u32]) {\n    x[0] = y;\n}\n");
    let src = src.to_str().unwrap();
    let plain = text(&gcnc(&["compile", src, "-o", "/dev/null"]).stderr);
    let never = text(&gcnc(&["compile", src, "--color=never", "-o", "/dev/null"]).stderr);
    let always = gcnc(&["compile", src, "--color=always", "-o", "/dev/null"]);
    assert_eq!(always.status.code(), Some(1));
    let always = text(&always.stderr);
    assert!(!plain.contains('\x1b') && plain.contains("error: unknown name `y`"), "{plain}");
    assert_eq!(plain, never);
    assert!(always.contains("\x1b[31m"), "{always:?}");
    let stripped: String = always
        .split('\x1b')
        .enumerate()
        .map(|(i, part)| if i == 0 { part } else { part.split_once('m').map_or(part, |(_, rest)| rest) })
        .collect();
    assert_eq!(stripped, plain);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run --stats` prints the emulator's counts of the run and the occupancy the descriptor
/// allows: the waves are the workgroups' waves, and the instruction count grows with the
/// loop's trip count.
#[test]
fn run_stats_count_what_ran() {
    let (dir, src) = temp_source(
        "run-stats",
        "k.gk",
        "kernel k(x: &mut [u32], n: u32) {\n    var s = 0u;\n    for j in 0u..n { s = s + j; }\n    x[global_id.x] = s;\n}\n",
    );
    let stats = |n: &str| {
        let out = gcnc(&[
            "run",
            src.to_str().unwrap(),
            "--stats",
            "--grid",
            "256",
            "--block",
            "64",
            "--arg",
            "u32[256]:zeros",
            "--arg",
            n,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let (short, long) = (stats("1"), stats("100"));
    let count = |s: &str, what: &str| -> u64 {
        let at = s.find(what).unwrap_or_else(|| panic!("no '{what}' in {s}"));
        s[..at].split_whitespace().last().unwrap().parse().unwrap()
    };
    assert_eq!(count(&short, " workgroups"), 4, "{short}");
    assert_eq!(count(&short, " waves,"), 8, "{short}"); // 4 workgroups of 2 wave32 waves
    assert!(count(&long, " wave-instructions") > count(&short, " wave-instructions") + 8 * 99, "{short}{long}");
    assert!(short.contains("occupancy by registers: ") && short.contains(" waves per SIMD of 16"), "{short}");
    assert!(short.lines().any(|l| l.starts_with("time: ")), "{short}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every example carries launch lines, so `gcnc run FILE` and `gcnc check FILE` need no
/// `--grid`, `--block` or `--arg`; checked on each target and wave size, the emulator agrees
/// with the interpreter on those inputs. Flags given on the command line win over the lines.
#[test]
fn examples_run_from_their_launch_lines() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".gk") || n.ends_with(".gir"))
        .collect();
    files.sort();
    assert!(files.len() >= 9, "{files:?}");
    for name in &files {
        let path = format!("examples/{name}");
        let source = std::fs::read_to_string(root.join(name)).unwrap();
        let prefix = if name.ends_with(".gk") { "// launch:" } else { "; launch:" };
        assert!(source.lines().filter(|l| l.starts_with(prefix)).count() >= 2, "{name} has no launch lines");
        for flags in [&["-mcpu=gfx1100"][..], &["-mcpu=gfx1100", "-mwavefrontsize64"], &["-mcpu=gfx942"]] {
            let mut args = vec!["check", path.as_str()];
            args.extend_from_slice(flags);
            let out = gcnc(&args);
            assert!(out.status.success(), "{name} {flags:?}: {}{}", text(&out.stdout), text(&out.stderr));
            assert_eq!(text(&out.stdout).trim(), "PASS", "{name} {flags:?}");
        }
    }
    // The first value saxpy's lines give is a = 2.0 with x = iota and y = 1: y[3] = 7.
    let out = gcnc(&["run", "examples/saxpy.gk", "--print", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().nth(4), Some("[3] 7.0"), "{}", text(&out.stdout));
    let out = gcnc(&[
        "run",
        "examples/saxpy.gk",
        "--grid",
        "8",
        "--block",
        "8",
        "--arg",
        "3.0",
        "--arg",
        "f32[8]:iota",
        "--arg",
        "f32[8]:zeros",
        "--arg",
        "8",
        "--print",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 9, "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout).lines().nth(4), Some("[3] 9.0"), "{}", text(&out.stdout));
    let (dir, src) = temp_source("no-launch", "k.gk", "kernel k(x: &mut [u32]) { x[0] = 1u; }\n");
    let out = gcnc(&["run", src.to_str().unwrap(), "--arg", "u32[1]:zeros"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--grid and --block are needed"), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `compile -S` writes an assembly file that llvm-mc-19, given the target ID's features (and
/// the wave size) as `-mattr`, assembles into the object `compile -c` writes, as `gcnc inspect`
/// shows both (ELF header, target ID, every descriptor field, the metadata; file offsets
/// aside): for target IDs with feature suffixes, wave64, and each code-object version. `-o -`
/// writes the same text to stdout, and without `-o` the file is the input's name with `.s`.
#[test]
fn assembly_output_reassembles_to_the_object() {
    if !Command::new("llvm-mc-19").arg("--version").output().is_ok_and(|o| o.status.success()) {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); no -S output was assembled");
        return;
    }
    let matmul = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/matmul.gk"));
    let (dir, src) = temp_source("cli-asm", "matmul.gk", &matmul.unwrap());
    let src = src.to_str().unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let inspect = |object: &str| {
        let out = gcnc(&["inspect", object]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        let offsets = ["descriptor_offset:", "code_offset:"];
        shown.lines().filter(|l| !offsets.iter().any(|o| l.trim_start().starts_with(o))).collect::<Vec<_>>().join("\n")
    };
    let configs = [
        ("gfx942:sramecc+:xnack-", vec!["-mcode-object-version=4"], "+sramecc,-xnack"),
        ("gfx942:xnack+", vec!["-mcode-object-version=6"], "+xnack"),
        ("gfx90a:xnack-", vec!["-mcode-object-version=5"], "-xnack"),
        ("gfx90a:sramecc+:xnack+", vec![], "+sramecc,+xnack"),
        ("gfx1100", vec!["-mwavefrontsize64"], "+wavefrontsize64"),
    ];
    for (mcpu, flags, mattr) in configs {
        let mcpu_flag = format!("-mcpu={mcpu}");
        let compile = |kind: &str, out: &str| {
            let mut args = vec!["compile", src, mcpu_flag.as_str(), kind, "-o", out];
            args.extend(flags.iter().copied());
            let output = gcnc(&args);
            assert!(output.status.success(), "{mcpu} {kind}: {}", text(&output.stderr));
            output.stdout
        };
        let (asm, obj, reassembled) = (path("k.s"), path("k.o"), path("k.mc.o"));
        compile("-S", &asm);
        compile("-c", &obj);
        let stdout = compile("-S", "-");
        assert_eq!(stdout, std::fs::read(&asm).unwrap(), "{mcpu}: -o - writes the file's text");
        let processor = mcpu.split(':').next().unwrap();
        let mc = Command::new("llvm-mc-19")
            .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={processor}"), &format!("-mattr={mattr}")])
            .args(["-filetype=obj", &asm, "-o", &reassembled])
            .output()
            .unwrap();
        assert!(mc.status.success(), "{mcpu}: llvm-mc-19: {}", text(&mc.stderr));
        assert_eq!(inspect(&reassembled), inspect(&obj), "{mcpu} {flags:?}");
    }
    let out = gcnc(&["compile", src, "-S"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&std::fs::read(path("matmul.s")).unwrap()).contains(".amdhsa_kernel matmul"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `gcnc targets` lists every processor of the table, in order, and says which it compiles for.
#[test]
fn targets_lists_the_processor_table() {
    let out = gcnc(&["targets"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), isa::processor::PROCESSORS.len());
    for (line, p) in lines.iter().zip(isa::processor::PROCESSORS) {
        assert_eq!(line.split_whitespace().next(), Some(p.name), "{line}");
        assert_eq!(line.contains("compiled for and emulated"), p.verified, "{line}");
        assert_eq!(line.contains("wave32"), p.wave32, "{line}");
    }
}

#[test]
fn check_compares_emulator_and_interpreter() {
    for flags in [&["-mcpu=gfx1100"][..], &["-mcpu=gfx942"], &["-mcpu=gfx90a"]] {
        let mut args = vec!["check", "examples/vadd.gir", "--grid", "300", "--block", "128", "--seed", "9"];
        args.extend_from_slice(flags);
        let out = gcnc(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "PASS\n");
    }
    // A kernel the backend cannot compile yet (calls to helpers are not selected; the
    // kernel language inlines them) is an error with the reason, status 1.
    let out = gcnc(&["check", "tests/gir/roundtrip/helper_chain.gir", "--grid", "64", "--block", "64"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("`call`"), "{}", text(&out.stderr));
}

/// Output cut short by the reader (`gcnc disasm k.hsaco | head -1`) is not an error: no
/// panic, status 0, for every command that prints much.
#[test]
fn a_closed_pipe_is_not_an_error() {
    let dir = std::env::temp_dir().join(format!("gcnc-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let object = dir.join("matmul.hsaco");
    let out = gcnc(&["compile", "examples/matmul.gk", "-o", object.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let object = object.to_str().unwrap();
    let run = [VADD, &["--arg", "f32[1000]:iota", "--arg", "f32[1000]:fill=2", "--arg", "f32[1000]:zeros"]].concat();
    let run = [run, vec!["--arg", "1000", "--print", "2"]].concat();
    for args in
        [vec!["disasm", object], vec!["inspect", object], vec!["compile", "examples/matmul.gk", "-S", "-o", "-"], run]
    {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gcnc"))
            .args(&args)
            .current_dir(&root)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end before gcnc writes: every write then fails with a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"), "{args:?}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-O0` runs no optimizer pass and `-O2` does, so they give different code for a kernel with
/// constants to fold; `--print-after` prints the kernel after the stages it names (IR after an
/// optimizer pass, MIR after a machine stage) and an unknown stage is a usage error.
#[test]
fn opt_levels_differ_and_print_after_names_the_stages() {
    let (dir, src) = temp_source(
        "opt",
        "k.gk",
        "kernel k(o: &mut [u32], n: u32) {\n    let i = global_id.x;\n    o[i] = n * (3u * 4u) + (i - i);\n}\n",
    );
    let src = src.to_str().unwrap();
    let asm = |level: &str| {
        let out = gcnc(&["compile", src, level, "-S", "-o", "-"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let (o0, o2) = (asm("-O0"), asm("-O2"));
    assert_ne!(o0, o2);
    assert!(o0.lines().count() > o2.lines().count(), "-O2 is not shorter:\n{o0}\n{o2}");

    let out = gcnc(&[
        "compile",
        src,
        "-o",
        "/dev/null",
        "--print-after=fold",
        "--print-after=mir_opt",
        "--print-after=regalloc",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let headers: Vec<&str> = err.lines().filter(|l| l.starts_with("; @k after")).collect();
    let expected = ["; @k after fold", "; @k after fold", "; @k after mir_opt", "; @k after regalloc"];
    assert_eq!(headers, expected, "{err}");
    // After folding, 3 * 4 is the constant 12 and i - i is gone.
    assert!(err.contains("iconst.i32 12"), "{err}");
    assert!(!err.contains("sub "), "{err}");

    let out = gcnc(&["compile", src, "-o", "/dev/null", "--print-after=nonesuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("simplify_cfg"), "the usage error lists the stages");
    std::fs::remove_dir_all(&dir).ok();
}

/// The example of the optimizer's issue: at -O2 on gfx1100 both uniform loads of `a` are
/// scalar loads, no constant is computed at run time (the offset of `a[3]` is the load's
/// immediate), the five-term sum is two `v_add3_u32` (its uniform terms ride in them in
/// pairs, with no scalar add), and the whole kernel, every instruction and hint counted, is
/// within the issue's 20 instructions (33 when the issue was filed; 19 measured since the
/// sums are regrouped).
#[test]
fn the_optimizer_issues_example_is_short() {
    let (dir, src) = temp_source(
        "example",
        "k.gk",
        "kernel u(a: &[u32], out: &mut [u32], n: u32) {\n    let i = global_id.x;\n    let u0 = a[3u] * 5u + n;\n    let u1 = a[n] + 7u;\n    out[i] = u0 + u1 + i;\n}\n",
    );
    let out = gcnc(&["compile", src.to_str().unwrap(), "-mcpu=gfx1100", "-O2", "-S", "-o", "-"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let asm = text(&out.stdout);
    // The kernel's lines: from its label to the end label `.size` reads, without the
    // directives and the metadata around them.
    let insts: Vec<&str> = asm
        .lines()
        .skip_while(|l| *l != "u:")
        .take_while(|l| !l.starts_with(".Lfunc_end"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with('.') && !l.ends_with(':'))
        .collect();
    assert!(insts.len() <= 20, "{} instructions:\n{asm}", insts.len());
    assert!(
        insts.iter().any(|i| i.starts_with("s_load_b32") && i.ends_with("0xc")),
        "a[3] is an SMEM load at offset 12:\n{asm}"
    );
    assert!(!insts.iter().any(|i| i.starts_with("global_load")), "a uniform load went through VGPRs:\n{asm}");
    assert!(
        !insts.iter().any(|i| i.starts_with("s_lshl_b32") && i.contains(", 3, ")),
        "a constant computed at run time:\n{asm}"
    );
    assert_eq!(insts.iter().filter(|i| i.starts_with("v_add3_u32")).count(), 2, "{asm}");
    // Every scalar add left is the low half of `&a[n]`'s 64-bit address.
    let count = |op: &str| insts.iter().filter(|i| i.starts_with(op)).count();
    assert_eq!(count("s_add_u32 "), count("s_addc_u32 "), "{asm}");
    std::fs::remove_dir_all(&dir).ok();
}

/// When a stage fails, what `--print-after` printed before it still comes out (the input of
/// the failing stage is what one wants to see), then the located error, with status 1.
#[test]
fn print_after_prints_before_a_failing_stage() {
    // Selection refuses 1-byte accesses (an unsupported construct, not a bug).
    let (dir, src) = temp_source(
        "print-fail",
        "k.gir",
        "kernel @k(ptr<global>) {\nblock0(%p: ptr<global>):\n    %x = load.i8 %p\n    store %p, %x\n    ret\n}\n",
    );
    let out = gcnc(&["compile", src.to_str().unwrap(), "-o", "/dev/null", "--print-after=fold", "--print-after=isel"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let headers: Vec<&str> = err.lines().filter(|l| l.starts_with("; @k after")).collect();
    // One round, which changes nothing; after the rounds folding is not run again (it found
    // nothing to do in a function nothing changed since).
    assert_eq!(headers, ["; @k after fold"], "{err}");
    let (dump, error) = (err.find("; @k after fold").unwrap(), err.find("error:").expect("an error"));
    assert!(dump < error, "the dump comes before the error:\n{err}");
    assert!(err.contains("k.gir:3:5"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A kernel's `#[waves_per_simd(N)]` caps its registers at what N waves leave, and `--stats`
/// shows the target and the occupancy reached; `-mwaves-per-eu=N` asks the same of a kernel that
/// does not say, and the workgroup's own need (1024 work-items by default) is a floor.
#[test]
fn the_wave_target_caps_the_registers() {
    let stats = |args: &[&str]| {
        let mut all = vec!["compile", "-o", "/dev/null", "--stats"];
        all.extend_from_slice(args);
        let out = gcnc(&all);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        let line = err.lines().next().unwrap_or_default().to_string();
        let number = |after: &str| -> u32 {
            let rest = &line[line.find(after).unwrap_or_else(|| panic!("no `{after}` in {line}")) + after.len()..];
            rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
        };
        let vgprs_at = line.find(" VGPRs").expect("a VGPR count");
        let vgprs: u32 = line[..vgprs_at].rsplit(' ').next().unwrap().parse().unwrap();
        (vgprs, number("VGPRs, "), number("(target "))
    };
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/pressure/");
    let request = format!("{suite}waves_per_simd_request.gk");
    let pressure = format!("{suite}f32_spills_in_divergent_loop.gk");
    // The attribute: 12 waves on gfx1100 wave32, so at most 128 VGPRs.
    let (vgprs, waves, target) = stats(&[&request, "-mcpu=gfx1100"]);
    assert_eq!(target, 12);
    assert!(waves >= 12 && vgprs <= 128, "{vgprs} VGPRs, {waves} waves");
    // No attribute: the default 1024-lane workgroup needs 16 waves of 32 on a CU's 2 SIMDs.
    let (vgprs, waves, target) = stats(&[&pressure, "-mcpu=gfx1100", "-mcumode"]);
    assert_eq!(target, 16);
    assert!(waves >= 16 && vgprs <= 96, "{vgprs} VGPRs, {waves} waves");
    // The command line raises a kernel's target above its workgroup's need.
    let (vgprs, waves, target) = stats(&[&pressure, "-mcpu=gfx1100", "-mwaves-per-eu=12"]);
    assert_eq!(target, 12);
    assert!(waves >= 12 && vgprs <= 128, "{vgprs} VGPRs, {waves} waves");
}
