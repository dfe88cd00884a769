//! Filetests of the optimizer's passes (`tests/filetests/opt`, the format of
//! [`gcnc_tests::filetest`]): a `; passes:` line names the passes to run in order, and the
//! output is the kernel's IR after them (the IR verifier runs after each).
//!
//! Each file is also a proof on the reference interpreter: the kernel before and after the
//! passes runs on the same inputs (every pointer parameter a 4 KiB buffer of pseudo-random
//! bytes, scalars from the `; scalars:` line, -1 otherwise), 64 work-items at wave 32 and 64,
//! and the buffers must be equal.

use frontend_ir::interp::{run_kernel, GlobalMemory, Launch, Options};
use frontend_ir::{Module, Type};
use gcnc_tests::filetest::{check_dir, directive};
use gcnc_tests::Rng;

/// The module before and after the passes of the `; passes:` line.
fn optimize(input: &str) -> Result<(Module, Module), String> {
    let module = frontend_ir::parser::parse_module(input).map_err(|e| e.render(input, "filetest"))?;
    let names = directive(input, "passes").ok_or("no `; passes:` line")?;
    let mut after = module.clone();
    let (id, _) = after.kernels().next().ok_or("no kernel")?;
    for name in names.split_whitespace() {
        let pass = opt::PASSES.iter().find(|p| p.name == name).ok_or(format!("no pass {name}"))?;
        let func = &mut after.functions[id];
        if (pass.run)(func) {
            func.canonicalize();
        }
        frontend_ir::verifier::verify_module(&after).map_err(|e| format!("after {name}: {e}"))?;
    }
    Ok((module, after))
}

/// The global buffers after running `module`'s kernel on the inputs of the header.
fn interpret(module: &Module, input: &str, wave_size: u32) -> Result<Vec<Vec<u8>>, String> {
    let (id, func) = module.kernels().next().ok_or("no kernel")?;
    let scalars = directive(input, "scalars").unwrap_or("");
    let mut scalars = scalars.split_whitespace().map(|s| s.parse::<i64>().map_err(|e| e.to_string()));
    let mut global = GlobalMemory::new();
    let mut rng = Rng::new(0x9e37_79b9);
    let mut buffers = Vec::new();
    let mut args = Vec::new();
    for &ty in &func.signature.params {
        args.push(match ty {
            Type::Ptr(_) => {
                let addr = global.alloc((0..4096).map(|_| rng.next_u64() as u8).collect());
                buffers.push(addr);
                addr
            }
            ty => scalars.next().transpose()?.unwrap_or(-1) as u64 & ty.mask(),
        });
    }
    run_kernel(module, id, &Launch::linear(64, 64, wave_size), &args, &mut global, &Options::default())
        .map_err(|e| e.to_string())?;
    Ok(buffers.iter().map(|&a| global.buffer(a).expect("allocated").to_vec()).collect())
}

#[test]
fn opt_filetests() {
    check_dir("opt", 8, |input| {
        let (before, after) = optimize(input)?;
        for wave_size in [32, 64] {
            if interpret(&before, input, wave_size)? != interpret(&after, input, wave_size)? {
                return Err(format!("the passes changed the results (wave {wave_size})"));
            }
        }
        Ok(after.to_string())
    });
}
