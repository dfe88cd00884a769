//! Filetests of the optimizer's passes, in the project's one filetest format (as
//! tests/filetests/sched): each file of `tests/filetests` holds a leading comment saying what
//! the output must show, a `; passes:` line naming the passes to run in order, a kernel in
//! `.gir`, and the expected IR after those passes as `; ` lines after `; output:`. Run with
//! `BLESS=1` to rewrite the expected output when a change is intended (then read it).
//!
//! Each file is also a proof on the reference interpreter: the kernel before and after the
//! passes runs on the same inputs (every `ptr<global>` parameter a 4 KiB buffer of
//! pseudo-random bytes, scalars from the `; scalars:` line, edge values otherwise), at wave 32
//! and 64, and the buffers must be equal.

use frontend_ir::interp::{run_kernel, GlobalMemory, Launch, Options};
use frontend_ir::{Function, Module, Type};
use std::path::PathBuf;

const OUTPUT: &str = "; output:\n";

/// The values of the lines `; KEY: ...` of the input.
fn header<'a>(input: &'a str, key: &str) -> Option<&'a str> {
    input.lines().find_map(|l| l.strip_prefix("; ")?.strip_prefix(key)?.strip_prefix(':')).map(str::trim)
}

/// The module and its kernel after the passes of the `; passes:` line.
fn optimize(input: &str) -> (Module, Module) {
    let module = frontend_ir::parser::parse_module(input).unwrap_or_else(|e| panic!("{}", e.render(input, "filetest")));
    let names = header(input, "passes").expect("a `; passes:` line");
    let mut after = module.clone();
    let (id, _) = after.kernels().next().expect("a kernel");
    for name in names.split_whitespace() {
        let pass = opt::PASSES.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no pass {name}"));
        let func: &mut Function = &mut after.functions[id];
        if (pass.run)(func) {
            func.canonicalize();
        }
        frontend_ir::verifier::verify_module(&after).unwrap_or_else(|e| panic!("after {name}: {e}"));
    }
    (module, after)
}

/// The global buffers after running `module`'s kernel on the inputs of the header.
fn interpret(module: &Module, input: &str, wave_size: u32) -> Vec<Vec<u8>> {
    let (id, func) = module.kernels().next().expect("a kernel");
    let mut scalars = header(input, "scalars").unwrap_or("").split_whitespace().map(|s| s.parse::<i64>().unwrap());
    let mut global = GlobalMemory::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut addrs = Vec::new();
    let args: Vec<u64> = func
        .signature
        .params
        .iter()
        .map(|&ty| match ty {
            Type::Ptr(_) => {
                let bytes = (0..4096)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        (state >> 56) as u8
                    })
                    .collect();
                let addr = global.alloc(bytes);
                addrs.push(addr);
                addr
            }
            ty => scalars.next().unwrap_or(-1) as u64 & ty.mask(),
        })
        .collect();
    let launch = Launch::linear(64, 64, wave_size);
    run_kernel(module, id, &launch, &args, &mut global, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    addrs.iter().map(|&a| global.buffer(a).unwrap().to_vec()).collect()
}

#[test]
fn opt_filetests() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("filetests");
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 8, "the optimizer's filetests are missing");
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
        let (before, after) = optimize(&input);
        for wave_size in [32, 64] {
            if interpret(&before, &input, wave_size) != interpret(&after, &input, wave_size) {
                failures.push(format!("{}: the passes changed the results (wave {wave_size})", path.display()));
            }
        }
        let actual = after.to_string();
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
