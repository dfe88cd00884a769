//! The committed opcode tables are what `isa/scripts/gen_tables.py` generates from llvm-mc-19
//! today: the test runs the generator into a temporary directory and compares the files.
//! Skipped, with a message, when python3 or llvm-mc-19 is not on PATH.

use std::path::Path;
use std::process::Command;

fn works(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn the_generator_reproduces_the_committed_tables() {
    if !works("python3") || !works("llvm-mc-19") {
        println!("SKIPPED: python3 or llvm-mc-19 is not on PATH; the tables were not regenerated");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("isa-tables-{}", std::process::id()));
    let run = Command::new("python3")
        .arg(root.join("scripts/gen_tables.py"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("python3 runs");
    assert!(run.status.success(), "the generator failed:\n{}", String::from_utf8_lossy(&run.stderr));
    for file in ["gfx1100.txt", "gfx942.txt", "gfx90a.txt", "opcodes.rs"] {
        let fresh = std::fs::read_to_string(out.join(file)).expect("the generator wrote it");
        let committed = std::fs::read_to_string(root.join("src/tables").join(file)).expect("committed");
        assert!(fresh == committed, "src/tables/{file} differs from the generator's output in {}", out.display());
    }
    let _ = std::fs::remove_dir_all(&out);
}
