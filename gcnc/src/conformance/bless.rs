//! The suite's expectation files as the tests keep them: read from the workspace's
//! `tests/conformance/` (rather than the copy embedded in the program), checked against what
//! the reference interpreter computes now, and rewritten from it with `GCNC_BLESS=1`
//! ([`BLESS_COMMAND`]). Test-only: the program reads the embedded suite and writes nothing.

use gcnc::kernel_file::{run_interp, Buffer, KernelFile, RunError};
use gcnc::launch::le_bits;

use super::{Expected, Suite, BLESS_COMMAND};

/// The suite's directory in the workspace.
pub(super) fn suite_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

/// What the reference interpreter gives for `file`: run at wave sizes 32 and 64, one
/// expectation if the results agree, else one per wave size.
pub(super) fn interpreter_expectation(file: &KernelFile) -> Result<Expected, RunError> {
    let w32 = run_interp(file, 32)?;
    let w64 = run_interp(file, 64)?;
    Ok(if w32 == w64 { Expected::Same(w32) } else { Expected::PerWave { w32, w64 } })
}

/// The expectation files of `expected` for kernel `name`: (file name, text).
pub(super) fn files(expected: &Expected, name: &str) -> Vec<(String, String)> {
    match expected {
        Expected::Missing => Vec::new(),
        Expected::Same(b) => vec![(format!("{name}.txt"), format_buffers(name, "32 and 64", b))],
        Expected::PerWave { w32, w64 } => vec![
            (format!("{name}.w32.txt"), format_buffers(name, "32", w32)),
            (format!("{name}.w64.txt"), format_buffers(name, "64", w64)),
        ],
    }
}

/// Writes buffers in the expectation format: a comment, then per buffer a line
/// `buffer PARAM TYPE LEN` and the elements' bit patterns in hexadecimal, eight to a line.
fn format_buffers(name: &str, waves: &str, buffers: &[Buffer]) -> String {
    let mut text = format!(
        "# {name}: the &mut buffers after the run on the reference interpreter at wave size {waves}.\n\
         # Regenerate with: {BLESS_COMMAND}\n"
    );
    for b in buffers {
        let size = b.ty.size();
        text.push_str(&format!("buffer {} {} {}\n", b.param, b.ty, b.bytes.len() / size));
        for line in b.bytes.chunks(8 * size) {
            let words: Vec<String> =
                line.chunks(size).map(|e| format!("{:0width$x}", le_bits(e), width = 2 * size)).collect();
            text.push_str(&words.join(" "));
            text.push('\n');
        }
    }
    text
}

/// The suite in directory `dir` (as `tests/conformance`).
pub(super) fn suite_from_dir(dir: &std::path::Path) -> Suite {
    let read_dir = |d: &std::path::Path, suffix: &str| -> Vec<(String, String)> {
        let entries = std::fs::read_dir(d).unwrap_or_else(|e| panic!("cannot read '{}': {e}", d.display()));
        let mut out: Vec<(String, String)> = entries
            .map(|entry| entry.unwrap_or_else(|e| panic!("cannot read '{}': {e}", d.display())).path())
            .filter_map(|path| {
                let name = path.file_name()?.to_str()?.strip_suffix(suffix)?.to_string();
                let text =
                    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
                Some((name, text))
            })
            .collect();
        out.sort();
        out
    };
    let sources = read_dir(dir, ".gk");
    let expected = if dir.join("expected").is_dir() { read_dir(&dir.join("expected"), ".txt") } else { Vec::new() };
    let known = std::fs::read_to_string(dir.join("known-failures.txt")).unwrap_or_default();
    Suite::from_texts(
        sources.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        expected.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        &known,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Each kernel's expectation is what the interpreter computes now, at wave sizes 32 and 64;
/// with `GCNC_BLESS=1` the files are rewritten instead.
#[test]
fn expectations_are_the_interpreters_results() {
    let dir = suite_dir();
    let suite = suite_from_dir(&dir);
    assert!(suite.cases.len() >= 30, "the suite has {} kernels", suite.cases.len());
    let bless = std::env::var_os("GCNC_BLESS").is_some_and(|v| v == "1");
    let mut per_wave = 0;
    for case in &suite.cases {
        let name = &case.file.name;
        let computed = interpreter_expectation(&case.file).unwrap_or_else(|e| panic!("{name}: {e}"));
        per_wave += matches!(computed, Expected::PerWave { .. }) as usize;
        if bless {
            for stale in [format!("{name}.txt"), format!("{name}.w32.txt"), format!("{name}.w64.txt")] {
                let _ = std::fs::remove_file(dir.join("expected").join(stale));
            }
            for (file, contents) in files(&computed, name) {
                std::fs::write(dir.join("expected").join(file), contents).unwrap();
            }
        } else {
            assert!(
                case.expected == computed,
                "{name}: the interpreter no longer gives the stored expectation (if the change is intended: \
                 {BLESS_COMMAND})"
            );
        }
    }
    // The wave operations make some results depend on the wave size.
    assert!(per_wave >= 4, "only {per_wave} kernels have per-wave expectations");
}

/// The program embeds the files as they are on disk (build.rs reruns when they change).
#[test]
fn the_embedded_suite_is_the_one_on_disk() {
    let disk = suite_from_dir(&suite_dir());
    let embedded = Suite::embedded().unwrap();
    let names = |s: &Suite| s.cases.iter().map(|c| (c.file.name.clone(), c.file.source.clone())).collect::<Vec<_>>();
    assert_eq!(names(&embedded), names(&disk));
    for (e, d) in embedded.cases.iter().zip(&disk.cases) {
        assert!(e.expected == d.expected, "{}: the embedded expectation differs from the file", e.file.name);
    }
    assert_eq!(embedded.known_failures, disk.known_failures);
}
