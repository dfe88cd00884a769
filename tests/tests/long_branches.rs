//! Branch relaxation (`emit::assemble`): a kernel whose code is larger than a branch reaches
//! (±32k words, 128 KiB) — a uniform branch over a long block, then a loop around a divergent
//! branch over another — compiles for gfx1100 (wave32 and wave64) and gfx942 with its far
//! branches as long jumps (`s_getpc_b64`/`s_add_u32`/`s_addc_u32`/`s_setpc_b64`: a forward
//! conditional one on SCC, a forward conditional one on EXEC and the loop's backward one), runs
//! on the emulator as the reference interpreter runs it (for both values of the uniform
//! condition), and its assembly text is reassembled by llvm-mc-19 to the same bytes.

use frontend_ir::parser::parse_module;
use frontend_ir::Type;
use gcnc::check::{check, CheckArg, CheckLaunch};
use gcnc::{compile, Options, Target, TargetId};
use std::fmt::Write as _;
use std::process::Command;

/// Operations in each long block: 8-byte VALU instructions (a literal each), so each block is
/// about 144 KiB, past a branch's reach.
const OPS: usize = 18_000;

/// A chain of `OPS` operations on `x` with distinct literal constants, named `{tag}N`; returns
/// the last value.
fn chain(src: &mut String, tag: &str, x: &str) -> String {
    let mut prev = x.to_string();
    for k in 0..OPS {
        let op = ["add", "xor", "mul"][k % 3];
        let value = 0x1_0000 + (k as u64 * 7919) % 0x7fff_0000;
        let _ = writeln!(src, "    %{tag}k{k} = iconst.i32 {value}\n    %{tag}{k} = {op} {prev}, %{tag}k{k}");
        prev = format!("%{tag}{k}");
    }
    prev
}

/// The kernel, with `uniforms` uniform values computed first and added to the result last, so
/// that they are live across all of it (110 of them need every SGPR).
fn kernel(uniforms: usize) -> String {
    let mut src = String::from(
        "kernel @far(ptr<global>, i32) {\nentry(%p: ptr<global>, %u: i32):\n    %l = local_id.x\n    \
         %one = iconst.i32 1\n    %zero = iconst.i32 0\n    %odd = and %l, %one\n    %c = icmp ne %odd, %zero\n",
    );
    for k in 0..uniforms {
        let _ = writeln!(src, "    %sk{k} = iconst.i32 {}\n    %s{k} = mul %u, %sk{k}", 2 * k + 3);
    }
    src.push_str("    %uc = icmp ne %u, %zero\n    brif %uc, pre, head(%zero, %l)\npre:\n");
    let pre = chain(&mut src, "a", "%l");
    let _ = write!(src, "    jump head(%zero, {pre})\nhead(%i: i32, %x: i32):\n    brif %c, body, join(%x)\nbody:\n");
    let body = chain(&mut src, "b", "%x");
    let _ = write!(
        src,
        "    jump join({body})\njoin(%r: i32):\n    %i2 = add %i, %one\n    %two = iconst.i32 2\n    \
         %done = icmp uge %i2, %two\n    brif %done, exit, head(%i2, %r)\nexit:\n"
    );
    let mut sum = "%r".to_string();
    for k in 0..uniforms {
        let _ = writeln!(src, "    %t{k} = add {sum}, %s{k}");
        sum = format!("%t{k}");
    }
    let _ = write!(
        src,
        "    %l64 = zext.i64 %l\n    %four = iconst.i64 4\n    %off = mul %l64, %four\n    %q = ptradd %p, %off\n    \
         store %q, {sum}\n    ret\n}}\n"
    );
    src
}

/// Runs the kernel on 64 work-items with the uniform `u`, on the emulator and the interpreter,
/// and panics (naming `tag`) unless their buffers agree.
fn run_as_interpreter(module: &frontend_ir::Module, id: frontend_ir::FuncId, target: &Target, u: u64, tag: &str) {
    let args = [CheckArg::Buffer { ty: Type::I32, bytes: vec![0; 4 * 64] }, CheckArg::Scalar(u)];
    let launch = CheckLaunch { grid: [64, 1, 1], block: [64, 1, 1], dyn_shared_bytes: 0, seed: 0, step_limit: None };
    match check(module, id, target, &launch, &args) {
        Ok(None) => {}
        Ok(Some(m)) => panic!("{tag}: {m}"),
        Err(e) => panic!("{tag}: {e}"),
    }
}

fn tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn far_branches_become_long_jumps_that_run_and_reassemble() {
    let module = parse_module(&kernel(0)).unwrap();
    let (id, _) = module.kernels().next().unwrap();
    let dir = std::env::temp_dir().join(format!("gcnc-long-branches-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cpu, wave) in [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64), ("gfx90a", 64)] {
        let target = Target { wave_size: wave, ..Target::new(TargetId::parse(cpu).unwrap()) };
        let compiled = compile(&module, &target, &Options { text: true, ..Options::default() }).unwrap();
        let code = &compiled.object.kernels[0].code;
        let asm = &compiled.asm[0].text;
        let tag = format!("{cpu} wave{wave}");
        assert!(code.len() > 2 * 4 * 32_768, "{tag}: the code ({} bytes) is not larger than two reaches", code.len());
        // The SCC branch over `pre`, the EXEC branch over `body`, and the loop's back edge.
        let long = asm.lines().filter(|l| l.contains("long branch to")).count();
        assert!(long >= 3, "{tag}: {long} long branches");
        for skip in ["s_cbranch_scc", "s_cbranch_exec"] {
            let relaxed = asm
                .lines()
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| w[0].trim_start().starts_with(skip) && w[1].trim_start().starts_with("s_getpc_b64"));
            assert!(relaxed, "{tag}: no relaxed {skip}*");
        }
        for u in [0, 1] {
            run_as_interpreter(&module, id, &target, u, &format!("{tag}, u = {u}"));
        }
        if !tool("llvm-mc-19") || !tool("llvm-objcopy-19") {
            println!("SKIPPED: llvm-mc-19 or llvm-objcopy-19 is missing; {tag}'s text was not reassembled");
            continue;
        }
        let (s, o, text) = (dir.join("far.s"), dir.join("far.o"), dir.join("far.text"));
        std::fs::write(&s, asm).unwrap();
        let mut mc = Command::new("llvm-mc-19");
        mc.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-filetype=obj"]);
        if wave == 64 && cpu == "gfx1100" {
            mc.arg("-mattr=+wavefrontsize64");
        }
        let out = mc.arg(&s).arg("-o").arg(&o).output().unwrap();
        assert!(out.status.success(), "{tag}: llvm-mc-19: {}", String::from_utf8_lossy(&out.stderr));
        let out = Command::new("llvm-objcopy-19")
            .args(["-O", "binary", "--only-section=.text"])
            .arg(&o)
            .arg(&text)
            .output()
            .unwrap();
        assert!(out.status.success(), "{tag}: llvm-objcopy-19: {}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::read(&text).unwrap() == *code, "{tag}: llvm-mc-19 reassembles other bytes");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A long jump needs an SGPR pair above the kernel's: when a kernel with far branches uses every
/// SGPR (110 uniform values live across it), compilation allocates again with a pair kept free
/// (spilling more SGPRs into VGPR lanes), and the kernel still runs as the interpreter does.
#[test]
fn far_branches_in_a_kernel_that_uses_every_sgpr() {
    let module = parse_module(&kernel(110)).unwrap();
    let (id, _) = module.kernels().next().unwrap();
    for (cpu, wave) in [("gfx1100", 32), ("gfx942", 64)] {
        let target = Target { wave_size: wave, ..Target::new(TargetId::parse(cpu).unwrap()) };
        let compiled = compile(&module, &target, &Options { text: true, ..Options::default() })
            .unwrap_or_else(|e| panic!("{cpu}: {e}"));
        let stats = &compiled.stats[0];
        assert!(stats.spills.sgpr_lanes > 0, "{cpu}: the uniform values fit the SGPRs: {stats:?}");
        assert!(compiled.asm[0].text.contains("s_getpc_b64"), "{cpu}: no long jump");
        run_as_interpreter(&module, id, &target, 3, cpu);
    }
}
