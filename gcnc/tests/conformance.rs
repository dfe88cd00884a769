//! `gcnc conformance` as a user runs it: it passes on gfx1100 (wave32 and wave64) and gfx942
//! from any directory, with a table on stdout and valid JUnit XML that agree with each other,
//! its options behave, and `--list` gives each kernel's launch. (The suite's files and its
//! runner are tested in the program's own unit tests, `src/conformance`.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn gcnc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnc")).args(args).current_dir(dir).output().expect("gcnc runs")
}

/// The suite's kernel files.
fn kernel_files() -> Vec<PathBuf> {
    let entries = std::fs::read_dir(suite_dir()).unwrap();
    entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "gk")).collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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
    let kernels = kernel_files().len();
    let rows: Vec<&str> = stdout.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), kernels);
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
            assert_eq!(text(&check.stdout).trim(), format!("testsuites 3 {}", 3 * kernels));
        }
    }
    let suites: Vec<&str> = xml.lines().filter(|l| l.trim_start().starts_with("<testsuite ")).collect();
    let labels: Vec<&str> = suites.iter().map(|s| attr(s, "name")).collect();
    assert_eq!(labels, ["gfx1100-w32", "gfx1100-w64", "gfx942-w64"]);
    for s in &suites {
        assert_eq!(attr(s, "tests"), kernels.to_string());
        assert_eq!(attr(s, "failures"), "0");
    }
    let top = xml.lines().find(|l| l.starts_with("<testsuites ")).unwrap();
    assert_eq!(attr(top, "skipped"), count("known").to_string(), "known failures are skipped test cases");
    assert_eq!(xml.matches("<testcase ").count(), 3 * kernels);
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
    // -mtgsplit: gfx942 in threadgroup split mode; a kernel with a barrier is not applicable.
    let out = gcnc(&["conformance", "-mcpu=gfx942", "-mtgsplit", "--filter", "block_sum"], &here);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["kernel", "gfx942-w64-tgsplit"]);
    assert!(lines[1].starts_with("block_sum ") && lines[1].contains("n/a"), "{stdout}");
    // -O as for compile: the configurations compile at that level and say so.
    let out = gcnc(&["conformance", "-mcpu=gfx942", "-O0", "--filter", "vadd"], &here);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(stdout.lines().next().unwrap().split_whitespace().collect::<Vec<_>>(), ["kernel", "gfx942-w64-O0"]);
}

/// `--list` names each kernel of the suite with the launch of its file's `// launch:` lines.
#[test]
fn the_list_gives_each_kernels_launch() {
    let listed = text(&gcnc(&["conformance", "--list"], &suite_dir()).stdout);
    let files = kernel_files();
    assert_eq!(listed.lines().count(), files.len());
    let vadd = listed.lines().find(|l| l.starts_with("vadd: ")).expect("vadd is listed");
    let source = std::fs::read_to_string(suite_dir().join("vadd.gk")).unwrap();
    let header: Vec<&str> = source.lines().filter_map(|l| l.strip_prefix("// launch:")).collect();
    assert_eq!(
        vadd.strip_prefix("vadd: ").unwrap().split_whitespace().collect::<Vec<_>>(),
        header.join(" ").split_whitespace().collect::<Vec<_>>()
    );
}
