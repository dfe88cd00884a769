//! Random control flow, compiled and run: the kernels of isel's random-CFG generator
//! (isel/tests/common/random_cfg.rs: divergent and uniform branches, switches, loops with
//! divergent exits carrying uniform values, early returns) are compiled for gfx1100 (wave32
//! and wave64) and gfx942 and run on the strict emulator against the reference interpreter.
//! Every lane writes its own slot, so any difference is the compiler's. Irreducible flow,
//! which gcnc refuses, is skipped (and counted).

#[path = "../../isel/tests/common/random_cfg.rs"]
mod random_cfg;

use gcnc::check::{check, CheckArg, CheckError, CheckLaunch};
use gcnc::{CompileError, Target, TargetId};
use random_cfg::random_kernel;

#[test]
fn random_control_flow_matches_the_interpreter() {
    let targets = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];
    let (mut checked, mut irreducible) = (0, 0);
    for seed in 0..240u64 {
        let src = random_kernel(seed, 2 + seed as usize % 9);
        let module = frontend_ir::parser::parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, "random")));
        let kernel = module.functions.keys().next().unwrap();
        for (id, wave) in targets {
            let mut target = Target::new(TargetId::parse(id).unwrap());
            target.wave_size = wave;
            // A partial last group, so some waves are partial too.
            let launch =
                CheckLaunch { grid: [100, 1, 1], block: [64, 1, 1], dyn_shared_bytes: 0, seed, step_limit: None };
            let args = [
                CheckArg::Buffer { ty: frontend_ir::Type::I32, bytes: vec![0xa5; 4 * 100] },
                CheckArg::Scalar(seed % 23),
            ];
            match check(&module, kernel, &target, &launch, &args) {
                Ok(None) => checked += 1,
                Ok(Some(m)) => panic!("seed {seed} on {id} wave{wave}: {m}\n{src}"),
                Err(CheckError::Compile(CompileError::Select {
                    reason: isel::IselError::Irreducible { .. }, ..
                })) => irreducible += 1,
                Err(e) => panic!("seed {seed} on {id} wave{wave}: {e}\n{src}"),
            }
        }
    }
    println!("{checked} runs checked, {irreducible} irreducible");
    assert!(checked > 450 && irreducible > 20, "{checked} checked, {irreducible} irreducible");
}
