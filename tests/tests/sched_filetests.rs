//! Filetests of the hazard and waitcnt passes: each file of tests/filetests/sched holds a
//! target line, a kernel in `.gir`, and the expected MIR after `sched::hazards` and
//! `sched::waitcnt` and `sched::delay_alu` (selected by isel and allocated by regalloc first), as `; ` lines after
//! `; output:`. Run with `BLESS=1` to rewrite the expected output when a change is intended;
//! each file's leading comment says what the output must show, so a blessed result is checked
//! by a reader, not just accepted.

use gcnc::{Target, TargetId};
use std::path::PathBuf;

const OUTPUT: &str = "; output:\n";

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("filetests").join("sched")
}

/// The MIR after allocation, hazards and waits, for each `; target gfxN:W` line.
fn run(input: &str) -> String {
    let module = frontend_ir::parser::parse_module(input).unwrap_or_else(|e| panic!("{}", e.render(input, "filetest")));
    let (kernel, _) = module.kernels().next().expect("a kernel");
    let mut out = String::new();
    for line in input.lines().filter_map(|l| l.strip_prefix("; target ")) {
        let (id, wave) = line.split_once(':').expect("; target ID:WAVE");
        let mut target = Target::new(TargetId::parse(id).unwrap());
        target.wave_size = wave.trim().parse().unwrap();
        let mut mir = isel::select(&module, kernel, &target).unwrap().mir;
        regalloc::allocate(&mut mir, target.processor()).unwrap();
        let hazards = sched::hazards::resolve_hazards(&mut mir, target.processor());
        isel::strip_implicit(&mut mir);
        let waits = sched::waitcnt::insert_waits(&mut mir);
        let delays = sched::delay_alu::insert_delay_alu(&mut mir);
        out.push_str(&format!(
            "{line}: {} waits, {} nops, {} depctrs, {} delays ({} folded)\n",
            waits.waits, hazards.nops, hazards.depctrs, delays.delays, delays.folded
        ));
        // Only the instructions the passes care about, so the expectation reads at a glance.
        for (b, block) in mir.blocks.iter().enumerate() {
            out.push_str(&format!("BB{b}:\n"));
            for inst in &block.insts {
                // The inserted instructions read best in assembly syntax (`s_waitcnt vmcnt(1)`).
                use isa::opcode::Opcode::{SDelayAlu, SNop, SWaitcnt, SWaitcntDepctr, SWaitcntVscnt};
                let text = if matches!(inst.opcode, SDelayAlu | SNop | SWaitcnt | SWaitcntDepctr | SWaitcntVscnt) {
                    isa::asm::print_inst(inst, mir.family, mir.wave_size)
                } else {
                    isa::mir::DisplayInst(inst, mir.family).to_string()
                };
                out.push_str(&format!("  {text}\n"));
            }
        }
    }
    out
}

#[test]
fn sched_filetests() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 4, "the sched filetests are missing");
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
        let actual = run(&input);
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
