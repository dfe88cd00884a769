//! Embeds the conformance suite (`tests/conformance` of the workspace, linked here as
//! `conformance` so that a packaged crate carries it) in the library, so that `gcnc
//! conformance` runs from any directory: writes `$OUT_DIR/conformance_suite.rs` with one
//! `include_str!` per kernel (`NAME.gk`), per expectation (`expected/*.txt`) and the list of
//! known failures (`known-failures.txt`), in file-name order so the build is reproducible.
//! Also records the git commit the program is built from, for `gcnc --version` (`unknown`
//! outside a git checkout or without git: a crate built from crates.io, say), and links the
//! program position-dependent where that shortens its start-up.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files of `dir` whose names end with `suffix`, sorted by name.
fn files(dir: &Path, suffix: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let path = entry.path();
            (name.ends_with(suffix) && path.is_file()).then_some((name, path))
        })
        .collect();
    out.sort();
    out
}

/// `&[("name", include_str!("path")), ...]` for `entries`, names without `strip`.
fn table(entries: &[(String, PathBuf)], strip: &str) -> String {
    let mut text = String::from("&[\n");
    for (name, path) in entries {
        let path = path.canonicalize().unwrap_or_else(|_| path.clone());
        let _ =
            writeln!(text, "    ({:?}, include_str!({:?})),", name.trim_end_matches(strip), path.display().to_string());
    }
    text.push(']');
    text
}

/// `git ARGS` in this crate's directory, its output trimmed, if it ran and succeeded.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Sets `GCNC_COMMIT` for the program's version, and has cargo run this script again when
/// HEAD moves: HEAD itself (a checkout) and the branch it names (a commit), where they are
/// files (a missing file would make cargo run the script every time).
fn record_commit() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GCNC_COMMIT={commit}");
    let head = git(&["rev-parse", "--git-path", "HEAD"]);
    let branch = git(&["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r]));
    for path in [head, branch].into_iter().flatten().filter(|p| Path::new(p).is_file()) {
        println!("cargo:rerun-if-changed={path}");
    }
}

/// Links the `gcnc` program as a position-dependent executable on Linux with glibc. A
/// position-independent one starts by applying some 50,000 relative relocations (every pointer
/// in static data: the opcode tables, string and panic-location tables, vtables), which wrote
/// to about a hundred pages and took most of the dynamic loader's 990,000 cycles before
/// `main`; fixed addresses leave 3. The program is invoked once per file, so this is its
/// start-up; what it gives up is address randomization of its own image (libraries keep it).
fn link_position_dependent() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bin=gcnc=-no-pie");
    }
}

fn main() {
    record_commit();
    link_position_dependent();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    println!("cargo:rerun-if-changed={}", suite.display());
    println!("cargo:rerun-if-changed={}", suite.join("expected").display());
    let sources = files(&suite, ".gk");
    let expected = files(&suite.join("expected"), ".txt");
    let known = suite.join("known-failures.txt");
    for (_, path) in sources.iter().chain(&expected).chain([(String::new(), known.clone())].iter()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let known = if known.is_file() {
        format!("include_str!({:?})", known.canonicalize().unwrap_or(known).display().to_string())
    } else {
        "\"\"".to_string()
    };
    let code = format!(
        "/// Each kernel of the suite: its name (the file's stem) and source.\n\
         pub(crate) static SOURCES: &[(&str, &str)] = {};\n\
         /// Each expectation file: its name (without `.txt`) and text.\n\
         pub(crate) static EXPECTED: &[(&str, &str)] = {};\n\
         /// The list of known failures.\n\
         pub(crate) static KNOWN_FAILURES: &str = {known};\n",
        table(&sources, ".gk"),
        table(&expected, ".txt"),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("conformance_suite.rs");
    std::fs::write(&out, code).expect("cannot write the embedded conformance suite");
}
