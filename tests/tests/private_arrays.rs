//! Private arrays in registers: `tests/regress/private_array_in_registers.gk` (`var p: [f32;
//! 8]` read and written at constant and dynamic indices, in loops and branches, and read
//! before anything is written) passes the differential check at every `-O` level on gfx1100
//! wave32 and wave64 and on gfx942 and gfx90a (whose entry sets FLAT_SCRATCH up); at `-O0` its array is in scratch, and from `-O1` on,
//! where scalar replacement runs, the code has no scratch access and no private segment.

use gcnc::check::{check_with, CheckLaunch, CheckOptions};
use gcnc::compile::{compile, Options};
use gcnc::kernel_file::KernelFile;
use gcnc::{Target, TargetId};

const KERNEL: &str = include_str!("../regress/private_array_in_registers.gk");

#[test]
fn private_array_lives_in_registers_from_o1() {
    let case = KernelFile::parse("private_array_in_registers", KERNEL).unwrap();
    let args = case.check_args().unwrap();
    let launch = CheckLaunch {
        grid: case.launch.grid,
        block: case.launch.block,
        dyn_shared_bytes: 0,
        seed: 0,
        step_limit: None,
    };
    for (mcpu, wave_size) in [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64), ("gfx90a", 64)] {
        let target = Target { wave_size, ..Target::new(TargetId::parse(mcpu).unwrap()) };
        for opt_level in 0..=3 {
            let tag = format!("{mcpu} wave{wave_size} -O{opt_level}");
            let compile_options = Options { opt_level, text: true, ..Options::default() };
            let options = CheckOptions { compile: compile_options, extra_seeds: vec![] };
            let outcome = check_with(&case.module, case.kernel, &target, &launch, &args, &options, &|_, _| false);
            assert!(matches!(outcome, Ok(None)), "{tag}: {outcome:?}");
            let compiled = compile(&case.module, &target, &compile_options).unwrap();
            let asm = &compiled.asm[0].text;
            let scratch = compiled.object.kernels[0].descriptor.private_segment_fixed_size;
            if opt_level == 0 {
                assert!(asm.contains("scratch_") && scratch > 0, "{tag}: the array is not in scratch");
            } else {
                assert!(!asm.contains("scratch_"), "{tag}: scratch accesses:\n{asm}");
                assert_eq!(scratch, 0, "{tag}: a private segment");
            }
        }
    }
}
