//! The filetest format of `tests/filetests/<pass>/`: a file is its input (a leading comment
//! saying what the output must show, directive lines, a kernel in `.gir`) and, after the line
//! `; output:`, the expected output as `; ` lines. [`check_dir`] runs every file of a folder;
//! `BLESS=1` rewrites the expected part when a change is intended (then read it: the leading
//! comment says what to look for).

use std::path::PathBuf;

const OUTPUT: &str = "; output:\n";

/// The folder `tests/filetests/<sub>` of the repository.
pub fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("filetests").join(sub)
}

/// The value of the directive line `; KEY: VALUE` of a filetest's input.
pub fn directive<'a>(input: &'a str, key: &str) -> Option<&'a str> {
    input.lines().find_map(|l| l.strip_prefix("; ")?.strip_prefix(key)?.strip_prefix(':')).map(str::trim)
}

/// Runs `run` on the input of every file of `tests/filetests/<sub>` (at least `min` files) and
/// compares its output with the expected one, or rewrites it under `BLESS=1`. `run` returns
/// the output, or a failure of its own (which no blessing hides).
pub fn check_dir(sub: &str, min: usize, run: impl Fn(&str) -> Result<String, String>) {
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir(sub)).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= min, "the filetests of {sub} are missing");
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let (input, expected) = match text.split_once(OUTPUT) {
            Some((i, e)) => (
                i.to_string(),
                e.lines().map(|l| l.strip_prefix("; ").unwrap_or(l)).collect::<Vec<_>>().join("\n") + "\n",
            ),
            None => (text.clone(), String::new()),
        };
        let actual = match run(&input) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        if bless {
            let body: String = actual.lines().map(|l| format!("; {l}\n")).collect();
            std::fs::write(&path, format!("{input}{OUTPUT}{body}")).unwrap();
        } else if actual != expected {
            let first = actual.lines().zip(expected.lines()).position(|(a, e)| a != e).unwrap_or(0);
            failures.push(format!(
                "{}: output differs at line {}:\n  expected: {:?}\n  actual:   {:?}\n(BLESS=1 rewrites it if the change is intended)",
                path.display(),
                first + 1,
                expected.lines().nth(first),
                actual.lines().nth(first)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
