//! The conformance suite (`tests/conformance`): its expectations are what the reference
//! interpreter gives today at both wave sizes (`GCNC_BLESS=1` rewrites them), the program embeds
//! the current files, and `gcnc conformance` passes on gfx1100 (wave32 and wave64) and gfx942
//! from any directory, with a table on stdout and valid JUnit XML that agree with each other.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gcnc::conformance::{interpreter_expectation, Expected, Suite};

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn gcnc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnc")).args(args).current_dir(dir).output().expect("gcnc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each kernel's expectation is what the interpreter computes now, at wave sizes 32 and 64;
/// with `GCNC_BLESS=1` the files are rewritten instead.
#[test]
fn expectations_are_the_interpreters_results() {
    let dir = suite_dir();
    let suite = Suite::from_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(suite.cases.len() >= 30, "the suite has {} kernels", suite.cases.len());
    let bless = std::env::var_os("GCNC_BLESS").is_some_and(|v| v == "1");
    let mut per_wave = 0;
    for case in &suite.cases {
        let computed = interpreter_expectation(case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        per_wave += matches!(computed, Expected::PerWave { .. }) as usize;
        if bless {
            for stale in
                [format!("{}.txt", case.name), format!("{}.w32.txt", case.name), format!("{}.w64.txt", case.name)]
            {
                let _ = std::fs::remove_file(dir.join("expected").join(stale));
            }
            for (file, contents) in computed.files(&case.name) {
                std::fs::write(dir.join("expected").join(file), contents).unwrap();
            }
        } else {
            assert!(
                case.expected == computed,
                "{}: the interpreter no longer gives the stored expectation (if the change is intended: {})",
                case.name,
                gcnc::conformance::BLESS_COMMAND
            );
        }
    }
    // The wave operations make some results depend on the wave size.
    assert!(per_wave >= 4, "only {per_wave} kernels have per-wave expectations");
}

/// The program embeds the files as they are on disk (build.rs reruns when they change).
#[test]
fn the_embedded_suite_is_the_one_on_disk() {
    let disk = Suite::from_dir(&suite_dir()).unwrap();
    let embedded = Suite::embedded().unwrap();
    let names = |s: &Suite| s.cases.iter().map(|c| (c.name.clone(), c.source.clone())).collect::<Vec<_>>();
    assert_eq!(names(&embedded), names(&disk));
    for (e, d) in embedded.cases.iter().zip(&disk.cases) {
        assert!(e.expected == d.expected, "{}: the embedded expectation differs from the file", e.name);
    }
    assert_eq!(embedded.known_failures, disk.known_failures);
}

/// The attribute `name="VALUE"` of an XML element's opening tag.
fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let start = tag.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("no {name} in {tag}")) + name.len() + 3;
    &tag[start..start + tag[start..].find('"').unwrap()]
}

/// `gcnc conformance` with no -mcpu runs gfx1100 wave32 and wave64 and gfx942; it passes
/// (known failures aside), and its table and JUnit XML agree.
#[test]
fn conformance_passes_on_the_default_targets() {
    let tmp = std::env::temp_dir().join(format!("gcnc-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let junit = tmp.join("results.xml");
    // From a directory without the suite: it is embedded in the program.
    let out = gcnc(&["conformance", "--junit", junit.to_str().unwrap()], &tmp);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "gcnc conformance failed:\n{stdout}{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "no progress bar when stderr is not a terminal");
    let header = stdout.lines().next().unwrap();
    assert_eq!(header.split_whitespace().collect::<Vec<_>>(), ["kernel", "gfx1100-w32", "gfx1100-w64", "gfx942-w64"]);
    let suite = Suite::embedded().unwrap();
    let rows: Vec<&str> = stdout.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), suite.cases.len());
    let count = |word: &str| rows.iter().map(|r| r.split_whitespace().filter(|w| *w == word).count()).sum::<usize>();
    assert_eq!(count("FAIL"), 0);

    let xml = std::fs::read_to_string(&junit).unwrap();
    // Well-formed for a real XML parser, when one is at hand.
    if let Ok(check) = Command::new("python3")
        .args(["-c", "import sys, xml.etree.ElementTree as t; r = t.parse(sys.argv[1]).getroot(); print(r.tag, len(r), sum(len(s) for s in r))"])
        .arg(&junit)
        .output()
    {
        if check.status.success() {
            assert_eq!(text(&check.stdout).trim(), format!("testsuites 3 {}", 3 * suite.cases.len()));
        }
    }
    let suites: Vec<&str> = xml.lines().filter(|l| l.trim_start().starts_with("<testsuite ")).collect();
    let labels: Vec<&str> = suites.iter().map(|s| attr(s, "name")).collect();
    assert_eq!(labels, ["gfx1100-w32", "gfx1100-w64", "gfx942-w64"]);
    for s in &suites {
        assert_eq!(attr(s, "tests"), suite.cases.len().to_string());
        assert_eq!(attr(s, "failures"), "0");
    }
    let top = xml.lines().find(|l| l.starts_with("<testsuites ")).unwrap();
    assert_eq!(attr(top, "skipped"), count("known").to_string(), "known failures are skipped test cases");
    assert_eq!(xml.matches("<testcase ").count(), 3 * suite.cases.len());
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A filter that matches nothing and a missing GPU are errors with status 1, an unknown
/// processor a usage error (2); a filter runs only its kernels, -mcpu=gfx942 runs only wave64,
/// and -O0 compiles at that level.
#[test]
fn conformance_options() {
    let here = suite_dir();
    let out = gcnc(&["conformance", "--filter", "no_such_kernel"], &here);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "error: no kernel of the suite matches --filter no_such_kernel\n");
    // An unknown processor is a bad flag value: a usage error, as for every flag (issue 22).
    let out = gcnc(&["conformance", "-mcpu=gfx9999"], &here);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: invalid value 'gfx9999' for '-mcpu <TARGET_ID>': unknown processor"),
        "{}",
        text(&out.stderr)
    );
    // Without an HSA runtime (a library that does not exist stands for one), the whole run
    // stops at once with one clear message.
    let out = Command::new(env!("CARGO_BIN_EXE_gcnc"))
        .args(["conformance", "--device", "gpu", "--junit", "never.xml"])
        .env("GCNC_HSA_LIBRARY", "/nonexistent/libhsa-runtime64.so.1")
        .current_dir(&here)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: no GPU: cannot load the HSA runtime"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(out.stdout.is_empty() && !here.join("never.xml").exists());
    let out = gcnc(&["conformance", "-mcpu=gfx942", "--filter", "vadd"], &here);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["kernel", "gfx942-w64"]);
    assert!(lines[1].starts_with("vadd ") && lines[1].contains("pass"), "{stdout}");
    assert_eq!(lines[2], "");
    // -O as for compile: the configurations compile at that level and say so.
    let out = gcnc(&["conformance", "-mcpu=gfx942", "-O0", "--filter", "vadd"], &here);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.lines().next().unwrap().split_whitespace().collect::<Vec<_>>(), ["kernel", "gfx942-w64-O0"]);
}

/// The command a result gives to reproduce it runs that kernel alone with the configuration's
/// flags (`gcnc check` of its file, from the repository's root) and agrees with the suite's
/// outcome; `--list` names each kernel with its launch.
#[test]
fn reproduce_commands_and_the_list_run_as_written() {
    use gcnc::conformance::{configs, run_case, Device, Outcome};
    let suite = Suite::from_dir(&suite_dir()).unwrap_or_else(|e| panic!("{e}"));
    let root = suite_dir().join("../..");
    let case = suite.cases.iter().find(|c| c.name == "vadd").expect("vadd is in the suite");
    let mcpus = ["gfx1100".to_string(), "gfx942".to_string()];
    for config in configs(&mcpus).unwrap() {
        for config in [config.clone(), config.with(gcnc::Options { opt_level: 0, ..gcnc::Options::default() })] {
            let result = run_case(&suite, case, &config, Device::Emu).unwrap();
            assert_eq!(result.outcome, Outcome::Pass, "{}", config.label);
            let words: Vec<&str> = result.reproduce.split_whitespace().collect();
            assert_eq!(words[..2], ["gcnc", "check"], "{}", result.reproduce);
            assert_eq!(words.contains(&"-O0"), config.options.opt_level == 0, "{}", result.reproduce);
            assert_eq!(
                words.contains(&"-mwavefrontsize64"),
                config.label.contains("gfx1100-w64"),
                "{}",
                result.reproduce
            );
            let out = gcnc(&words[1..], &root);
            assert!(out.status.success(), "{}: {}", result.reproduce, text(&out.stderr));
            assert_eq!(text(&out.stdout), "PASS\n", "{}", result.reproduce);
        }
    }
    let listed = text(&gcnc(&["conformance", "--list"], &root).stdout);
    assert_eq!(listed.lines().count(), suite.cases.len());
    let vadd = listed.lines().find(|l| l.starts_with("vadd: ")).expect("vadd is listed");
    let header: Vec<String> =
        case.source.lines().filter_map(|l| l.strip_prefix("// launch:")).map(str::trim).map(String::from).collect();
    assert_eq!(
        vadd.strip_prefix("vadd: ").unwrap().split_whitespace().collect::<Vec<_>>(),
        header.join(" ").split_whitespace().collect::<Vec<_>>()
    );
}
