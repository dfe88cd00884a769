//! Every kernel of the interpreter corpus that isel selects, on gfx1100 (wave32 and wave64)
//! and gfx942 (vadd, saxpy and stencil2d must select): allocated and validated against the
//! selected MIR. `--nocapture` lists each allocation with its demand.

use frontend_ir::parser::parse_module;
use isa::processor::{Target, TargetId};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("regalloc sits in the workspace").to_path_buf()
}

fn target(name: &str, wave: u32) -> Target {
    let mut t = Target::new(TargetId::parse(name).unwrap());
    t.wave_size = wave;
    t
}

const TARGETS: [(&str, u32); 3] = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];

#[test]
fn corpus_kernels_allocate_and_validate() {
    let dir = workspace().join("tests/gir/interp");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let must = ["vadd.gir", "saxpy.gir", "stencil2d.gir"];
    let mut allocated = 0;
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(path).unwrap();
        let module = parse_module(&source).unwrap();
        for (proc_name, wave) in TARGETS {
            let t = target(proc_name, wave);
            for (id, _) in module.kernels() {
                let Ok(selected) = isel::select(&module, id, &t) else {
                    assert!(!must.contains(&name.as_str()), "{name} must select on {proc_name}");
                    continue;
                };
                let before = selected.mir.clone();
                let mut mir = selected.mir;
                let alloc = regalloc::allocate(&mut mir, t.processor())
                    .unwrap_or_else(|e| panic!("{name} on {proc_name} wave{wave}: {e}\n{before}"));
                regalloc::validate::validate(&before, &mir, t.processor())
                    .unwrap_or_else(|e| panic!("{name} on {proc_name} wave{wave}: {e}\n{mir}"));
                println!("{name} {proc_name} wave{wave}: {alloc:?}");
                allocated += 1;
            }
        }
    }
    assert!(allocated >= 9, "only {allocated} kernels allocated");
}
