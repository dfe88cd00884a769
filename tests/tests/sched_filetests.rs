//! Filetests of the hazard and waitcnt passes: each file of tests/filetests/sched holds a
//! target line, a kernel in `.gir`, and the expected MIR after `sched::hazards` and
//! `sched::waitcnt` and `sched::delay_alu` (selected by isel and allocated by regalloc first), as `; ` lines after
//! `; output:`. Run with `BLESS=1` to rewrite the expected output when a change is intended;
//! each file's leading comment says what the output must show, so a blessed result is checked
//! by a reader, not just accepted.

use gcnc::{Target, TargetId};

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
        let hazards = sched::hazards::resolve_hazards(&mut mir, &target);
        isel::strip_implicit(&mut mir);
        let waits = sched::waitcnt::insert_waits(&mut mir);
        let clause_nops = sched::hazards::break_smem_clauses(&mut mir, &target);
        let delays = sched::delay_alu::insert_delay_alu(&mut mir);
        out.push_str(&format!(
            "{line}: {} waits, {} nops, {} depctrs, {} delays ({} folded)\n",
            waits.waits,
            hazards.nops + clause_nops,
            hazards.depctrs,
            delays.delays,
            delays.folded
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
    gcnc_tests::filetest::check_dir("sched", 4, |input| Ok(run(input)));
}
