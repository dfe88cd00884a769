//! Filetests of the passes after register allocation: each file of tests/filetests/sched
//! holds target lines, a kernel in `.gir`, and the expected MIR after `sched::fmac`,
//! `sched::branches`, `sched::vopd`, `sched::hazards`, `sched::waitcnt`, `sched::clause` and `sched::delay_alu` (selected by isel and allocated
//! by regalloc first), as `; ` lines after `; output:`. Run with `BLESS=1` to rewrite the expected output when a change is intended;
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
        sched::fmac::use_fmac(&mut mir);
        let branches = sched::branches::simplify_branches(&mut mir);
        let pairs = sched::vopd::pair_vopd(&mut mir);
        let hazards = sched::hazards::resolve_hazards(&mut mir, &target);
        isel::strip_implicit(&mut mir);
        let waits = sched::waitcnt::insert_waits(&mut mir);
        let clause_nops = sched::hazards::break_smem_clauses(&mut mir, &target);
        let clauses = sched::clause::insert_clauses(&mut mir, target.processor());
        let delays = sched::delay_alu::insert_delay_alu(&mut mir);
        out.push_str(&format!(
            "{line}: {} jumps, {} flips, {} skips removed, {} inverted; {pairs} pairs; {} waits, {} nops, {} depctrs, {clauses} clauses, {} delays ({} folded)\n",
            branches.jumps,
            branches.flips,
            branches.skips,
            branches.inversions,
            waits.waits,
            hazards.nops + clause_nops,
            hazards.depctrs,
            delays.delays,
            delays.folded
        ));

        // Only the instructions the passes care about, so the expectation reads at a glance.
        check_linear_cfg(&mir);
        for (b, block) in mir.blocks.iter().enumerate() {
            let succs: Vec<String> = block.linear_succs.iter().map(|s| format!(" BB{s}")).collect();
            out.push_str(&format!("BB{b}:{}{}\n", if succs.is_empty() { "" } else { " ->" }, succs.join(",")));
            for inst in &block.insts {
                // The inserted instructions read best in assembly syntax (`s_waitcnt vmcnt(1)`).
                use isa::opcode::Opcode::{SClause, SDelayAlu, SNop, SWaitcnt, SWaitcntDepctr, SWaitcntVscnt};
                let text =
                    if matches!(inst.opcode, SClause | SDelayAlu | SNop | SWaitcnt | SWaitcntDepctr | SWaitcntVscnt) {
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

/// The linear CFG is the wave's: its edges mirror each other, a block that ends without a
/// branch falls through to the next one only, and a conditional branch goes to its target or
/// the next block.
fn check_linear_cfg(mir: &isa::mir::Function) {
    for (b, block) in mir.blocks.iter().enumerate() {
        for &s in &block.linear_succs {
            assert!(mir.blocks[s as usize].linear_preds.contains(&(b as u32)), "BB{b} -> BB{s} is not mirrored");
        }
        for &p in &block.linear_preds {
            assert!(mir.blocks[p as usize].linear_succs.contains(&(b as u32)), "BB{p} -> BB{b} is not mirrored");
        }
        let next = b as u32 + 1;
        let expected: Vec<u32> = match block.insts.last().filter(|i| i.opcode.ends_block()) {
            None => vec![next],
            Some(i) if i.opcode == isa::opcode::Opcode::SEndpgm => vec![],
            Some(i) if i.opcode == isa::opcode::Opcode::PBranch => i.fields.target.into_iter().collect(),
            Some(i) => i.fields.target.into_iter().chain([next]).collect(),
        };
        assert_eq!(block.linear_succs.to_vec(), expected, "the linear successors of BB{b}");
    }
}

#[test]
fn sched_filetests() {
    gcnc_tests::filetest::check_dir("sched", 4, |input| Ok(run(input)));
}
