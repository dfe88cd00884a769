//! The execution modes the memory model depends on, against clang-19: CU mode (`-mcumode`,
//! gfx1100) and threadgroup split mode (`-mtgsplit`, gfx942). The same kernel compiled by gcnc
//! and by clang-19 in each mode has the same WGP_MODE and TG_SPLIT descriptor bits (read from
//! both code objects by `runtime_abi::read`), and in tgsplit mode the same waits and cache
//! instructions between a store and the load after a workgroup acq_rel fence. In tgsplit mode, which has no LDS and no
//! `s_barrier` (AMDGPUUsage-new.txt:4709-4713), a kernel with a shared-memory access or a
//! barrier is refused with an error naming the mode. Skipped, with a message, without clang-19.

use gcnc::compile::{compile, Options};
use gcnc::{Target, TargetId};
use std::process::Command;

/// The OpenCL kernel (builtins only, so no device library is needed).
const CL: &str = r#"
__kernel void k(__global int *o) {
    int l = __builtin_amdgcn_workitem_id_x();
    int g = __builtin_amdgcn_workgroup_id_x() * 64 + l;
    o[g] = l;
    __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "workgroup");
    o[g + 64] = o[g ^ 1];
}
"#;

/// The same kernel in `.gir`.
const GIR: &str = "kernel @k(ptr<global>) {
entry(%p: ptr<global>):
    %l = local_id.x
    %wg = group_id.x
    %c64 = iconst.i32 64
    %base = mul %wg, %c64
    %g = add %base, %l
    %g64 = zext.i64 %g
    %four = iconst.i64 4
    %off = mul %g64, %four
    %q = ptradd %p, %off
    store %q, %l
    fence acq_rel workgroup
    %one = iconst.i32 1
    %h = xor %g, %one
    %h64 = zext.i64 %h
    %hoff = mul %h64, %four
    %r = ptradd %p, %hoff
    %x = load.i32 %r
    %k256 = iconst.i64 256
    %s = ptradd %q, %k256
    store %s, %x
    ret
}
";

/// (processor, clang's mode flag, gcnc's target).
fn modes() -> Vec<(&'static str, &'static str, Target)> {
    let target = |cpu: &str, cumode: bool, tgsplit: bool| Target {
        cumode,
        tgsplit,
        ..Target::new(TargetId::parse(cpu).unwrap())
    };
    vec![
        ("gfx1100", "-mno-cumode", target("gfx1100", false, false)),
        ("gfx1100", "-mcumode", target("gfx1100", true, false)),
        ("gfx942", "-mno-tgsplit", target("gfx942", false, false)),
        ("gfx942", "-mtgsplit", target("gfx942", false, true)),
    ]
}

/// clang-19's object or assembly (`-c` or `-S`) of [`CL`] for `cpu` in `mode`.
fn clang(cpu: &str, mode: &str, what: &str) -> Option<Vec<u8>> {
    let dir = std::env::temp_dir().join(format!("gcnc-modes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("k.cl");
    std::fs::write(&source, CL).unwrap();
    let out = dir.join(format!("k-{cpu}{mode}{what}"));
    let status = Command::new("clang-19")
        .args(["-x", "cl", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", what])
        .arg(format!("-mcpu={cpu}"))
        .arg(mode)
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .status()
        .ok()?;
    assert!(status.success(), "clang-19 {cpu} {mode} {what}");
    Some(std::fs::read(out).unwrap())
}

/// The waits and cache instructions after the first global store up to the next global load.
fn between_store_and_load(asm: &str) -> Vec<String> {
    let insts: Vec<&str> = asm
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(['.', ';']) && !l.ends_with(':'))
        .collect();
    let start = insts.iter().position(|l| l.starts_with("global_store")).expect("a store") + 1;
    let end = start + insts[start..].iter().position(|l| l.starts_with("global_load")).expect("a load");
    insts[start..end]
        .iter()
        .filter(|l| l.starts_with("s_waitcnt") || l.starts_with("buffer_") || l.starts_with("s_barrier"))
        .map(|l| l.split(" ;").next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn descriptor_bits_and_fences_match_clang_in_each_mode() {
    if Command::new("clang-19").arg("--version").output().is_err() {
        println!("SKIPPED: clang-19 is not on PATH; no mode was compared");
        return;
    }
    let module = frontend_ir::parser::parse_module(GIR).unwrap();
    let text = Options { text: true, ..Options::default() };
    for (cpu, mode, target) in modes() {
        let ours = compile(&module, &target, &text).unwrap_or_else(|e| panic!("{cpu} {mode}: {e}"));
        let ours_read = runtime_abi::read::read(&ours.relocatable()).unwrap();
        let theirs_read = runtime_abi::read::read(&clang(cpu, mode, "-c").unwrap()).unwrap();
        let bits = |r: &runtime_abi::read::ReadObject| {
            let d = &r.kernels[0].descriptor;
            (d.rsrc1.wgp_mode, d.rsrc3.tg_split)
        };
        assert_eq!(bits(&ours_read), bits(&theirs_read), "{cpu} {mode}: (WGP_MODE, TG_SPLIT)");
        if target.tgsplit {
            let theirs = String::from_utf8(clang(cpu, mode, "-S").unwrap()).unwrap();
            let ours_asm = &ours.asm[0].text;
            assert_eq!(between_store_and_load(ours_asm), between_store_and_load(&theirs), "{cpu} {mode}: the fence");
        }
    }
}

#[test]
fn shared_memory_and_barriers_are_refused_in_tgsplit_mode() {
    let shared = "kernel @k(ptr<global>) {\n    slot0 = shared 256 align 4\nentry(%p: ptr<global>):\n    \
                  %a = slot_addr slot0\n    %x = load.i32 %p\n    store %a, %x\n    ret\n}\n";
    let barrier = "kernel @k(ptr<global>) {\nentry(%p: ptr<global>):\n    barrier\n    ret\n}\n";
    for (what, src) in [("shared memory", shared), ("a barrier", barrier)] {
        let module = frontend_ir::parser::parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, what)));
        let split = modes().into_iter().find(|m| m.2.tgsplit).unwrap().2;
        let err = compile(&module, &split, &Options::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(what) && err.contains("threadgroup split mode"), "{what}: {err}");
        let whole = Target { tgsplit: false, ..split };
        assert!(compile(&module, &whole, &Options::default()).is_ok(), "{what} without tgsplit");
    }
}
