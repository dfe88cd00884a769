//! The system's `hsa.h` (Debian's libhsa-runtime-dev) as an oracle for tests: C expressions
//! evaluated by a small program compiled against it. gcnc's HSA declarations (`gcnc::gpu`'s,
//! and this crate's [`crate::abi`]) are checked this way, and the tests that build C programs
//! against the runtime find their compiler here.

use std::path::PathBuf;
use std::process::Command;

/// Where Debian puts the header.
pub const HSA_H: &str = "/usr/include/hsa/hsa.h";

/// The C compiler: `$CC`, else `cc`, else `clang-19` (which `scripts/test.sh` installs).
pub fn c_compiler() -> String {
    std::env::var("CC").ok().filter(|cc| !cc.is_empty()).unwrap_or_else(|| {
        let has_cc = Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success());
        if has_cc { "cc" } else { "clang-19" }.to_string()
    })
}

/// The value of each C expression (as `unsigned long long`) in a program that includes
/// `hsa.h` and `hsa_ext_amd.h`, compiled with `-Wall -Werror`; or why it could not be had.
pub fn evaluate(exprs: &[String]) -> Result<Vec<u64>, String> {
    if !std::path::Path::new(HSA_H).exists() {
        return Err(format!("{HSA_H} is missing: install libhsa-runtime-dev (scripts/test.sh does)"));
    }
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n\nint main(void) {\n",
    );
    for expr in exprs {
        c.push_str(&format!("    printf(\"%llu\\n\", (unsigned long long)({expr}));\n"));
    }
    c.push_str("    return 0;\n}\n");
    let dir = scratch_dir();
    let (source, program) = (dir.join("facts.c"), dir.join("facts"));
    let result = (|| {
        std::fs::write(&source, &c).map_err(|e| e.to_string())?;
        let cc = c_compiler();
        let built = Command::new(&cc)
            .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
            .arg(&program)
            .arg(&source)
            .output()
            .map_err(|e| format!("cannot run {cc}: {e}"))?;
        if !built.status.success() {
            return Err(format!("{cc} rejects the program:\n{}\n{c}", String::from_utf8_lossy(&built.stderr)));
        }
        let out = Command::new(&program).output().map_err(|e| e.to_string())?;
        let values: Vec<u64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.parse().map_err(|_| l.to_string()))
            .collect::<Result<_, _>>()?;
        if values.len() != exprs.len() {
            return Err(format!("{} values for {} expressions", values.len(), exprs.len()));
        }
        Ok(values)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn scratch_dir() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("gcnc-hsa-h-{}-{n}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_match_hsa_h() {
        let facts = crate::abi::facts();
        // Negative control: a wrong value must be told apart.
        let exprs: Vec<String> = facts.iter().map(|(e, _)| e.clone()).chain(["HSA_STATUS_ERROR + 1".into()]).collect();
        let values = evaluate(&exprs).unwrap_or_else(|e| panic!("{e}"));
        let wrong: Vec<String> = facts
            .iter()
            .zip(&values)
            .filter(|((_, rust), c)| rust != *c)
            .map(|((expr, rust), c)| format!("{expr}: Rust says {rust}, hsa.h says {c}"))
            .collect();
        assert!(wrong.is_empty(), "declarations that differ from hsa.h:\n{}", wrong.join("\n"));
        assert_ne!(values[facts.len()], u64::from(crate::abi::HSA_STATUS_ERROR));
        for kind in ["sizeof(", "offsetof(", "HSA_STATUS_", "HSA_AGENT_INFO_"] {
            assert!(facts.iter().any(|(e, _)| e.starts_with(kind)), "no {kind} fact");
        }
    }
}
