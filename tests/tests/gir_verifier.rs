//! The verifier's file-driven suite.
//!
//! Each `tests/gir/verifier/*.gir` is a small module that parses but breaks one verifier rule.
//! Its first line is `; error: <text>`, and verifying it must fail with exactly one error whose
//! message (`@func, block, `inst`: message`) contains `<text>`. One error, not just a matching
//! one: the verifier must not cascade from one broken rule into unrelated reports.
//!
//! The interpreter corpus (`tests/gir/interp`) is the positive side: every kernel there is
//! valid and must verify.

use frontend_ir::parser::{parse_module, parse_module_located, Locations};
use frontend_ir::verifier::verify_module;
use gcnc_tests::gir_files;

/// The expected message text of a negative file: its first line, `; error: <text>`.
fn expected_error(src: &str) -> Option<&str> {
    src.lines().next()?.strip_prefix("; error:").map(str::trim).filter(|s| !s.is_empty())
}

#[test]
fn negative_files_fail_with_the_expected_error() {
    let files = gir_files("verifier");
    assert!(files.len() >= 30, "only {} files in tests/gir/verifier", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {name}: {e}"));
        let Some(expected) = expected_error(&src) else {
            failures.push(format!("{name}: the first line must be `; error: <expected message text>`"));
            continue;
        };
        let module = match parse_module(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: does not parse:\n{}", e.render(&src, &name)));
                continue;
            }
        };
        match verify_module(&module) {
            Ok(()) => failures.push(format!("{name}: verifies, but should fail with `{expected}`")),
            Err(errors) if errors.0.len() != 1 => {
                failures.push(format!("{name}: expected one error (`{expected}`), got {}:\n{errors}", errors.0.len()))
            }
            Err(errors) if !errors.to_string().contains(expected) => {
                failures.push(format!("{name}: expected an error containing `{expected}`, got:\n{errors}"))
            }
            Err(errors) => {
                let (_, locations) = parse_module_located(&src).expect("parsed above");
                if let Some(problem) = misplaced(&src, &module, &locations, &errors.0[0]) {
                    failures.push(format!("{name}: {problem}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} files failed:\n\n{}", failures.len(), files.len(), failures.join("\n\n"));
}

/// Why the location of `error` is wrong, if it is: the text there must start with the
/// instruction's result or opcode, the block's label, or the function's `@name`.
fn misplaced(
    src: &str,
    module: &frontend_ir::Module,
    locations: &Locations,
    error: &frontend_ir::verifier::VerifierError,
) -> Option<String> {
    let Some((line, column)) = locations.of_error(module, error).and_then(|loc| loc.line_col(src)) else {
        return Some(format!("`{error}` has no location"));
    };
    let text: String = src.lines().nth(line as usize - 1)?.chars().skip(column as usize - 1).collect();
    let expected = match (&error.inst_text, error.block) {
        // `%1 = fadd %0, %0` is written with the file's own value names: compare the opcode.
        (Some(inst), _) => inst.split(" = ").last().unwrap_or(inst).split(' ').next().unwrap_or(inst).to_string(),
        (None, Some(block)) => format!("block{}", block.as_u32()),
        (None, None) => format!("@{}", error.func),
    };
    let found = match &error.inst_text {
        Some(_) => text.split(" = ").last().unwrap_or(&text).to_string(),
        None => text.clone(),
    };
    (!found.starts_with(&expected)).then(|| format!("`{error}` is located at {line}:{column}, `{text}`"))
}

#[test]
fn interpreter_corpus_verifies() {
    for path in gir_files("interp") {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {name}: {e}"));
        let module = parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, &name)));
        if let Err(errors) = verify_module(&module) {
            panic!("{name} does not verify:\n{errors}");
        }
    }
}
