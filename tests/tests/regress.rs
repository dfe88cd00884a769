//! Regression kernels: each `tests/regress/NAME.gk` is a program that once compiled to wrong
//! code, was rejected, or crashed (most were found by the differential fuzzer, minimized, and
//! kept with the fix). Its `// launch:` header gives the dispatch in the command line's syntax
//! (as in the conformance suite; the kernel is named after the file), and it must pass a
//! differential check, the compiled kernel on the emulator against the reference interpreter,
//! on every configuration of [`CONFIGS`].

use std::path::Path;

use gcnc::check::{check, CheckLaunch};
use gcnc::conformance::Case;
use gcnc::{Target, TargetId};

/// The configurations every regression kernel is checked on: each verified target at each
/// wave size, and the modes the memory-model sequences depend on.
const CONFIGS: [(&str, u32, bool, bool); 5] = [
    ("gfx1100", 32, false, false),
    ("gfx1100", 64, false, false),
    ("gfx1100", 32, true, false),
    ("gfx942", 64, false, false),
    ("gfx942", 64, false, true),
];

fn label(&(mcpu, wave, cumode, tgsplit): &(&str, u32, bool, bool)) -> String {
    let mode = if cumode {
        " -mcumode"
    } else if tgsplit {
        " -mtgsplit"
    } else {
        ""
    };
    format!("{mcpu} wave{wave}{mode}")
}

#[test]
fn regression_kernels_pass_on_every_configuration() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regress");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gk"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression kernels in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let case = match Case::parse(name, &text) {
            Ok(case) => case,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let args = case.check_args().unwrap();
        for config in &CONFIGS {
            let (mcpu, wave_size, cumode, tgsplit) = *config;
            let target = Target { wave_size, cumode, tgsplit, ..Target::new(TargetId::parse(mcpu).unwrap()) };
            let launch = CheckLaunch {
                grid: case.launch.grid,
                block: case.launch.block,
                dyn_shared_bytes: case.launch.dyn_shared_bytes,
                seed: 0,
                step_limit: None,
            };
            match check(&case.module, case.kernel, &target, &launch, &args) {
                Ok(None) => {}
                Ok(Some(m)) => failures.push(format!("{name} on {}: {m}", label(config))),
                Err(e) => failures.push(format!("{name} on {}: {e}", label(config))),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} regression kernels fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
