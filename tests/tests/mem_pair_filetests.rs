//! Filetests of `sched::ds_pair` and `sched::mem_merge`: each file of tests/filetests/mem_pairs
//! holds target lines, a kernel in `.gir`, and the MIR after instruction selection, LDS pairing
//! and the merging of global and scalar accesses (before register allocation), with the number
//! of pairs formed and of accesses merged, as `; ` lines after `; output:`. What they compute
//! is checked on the emulator against the interpreter by the regression kernels
//! `tests/regress/lds_pairs.gir` and `tests/regress/merged_accesses.gk`.
//! Run with `BLESS=1` to rewrite the expected output when a change is intended; each file's
//! leading comment says what the output must show.

use gcnc::{Target, TargetId};

/// The MIR after selection, pairing and merging, for each `; target gfxN:W` line.
fn run(input: &str) -> Result<String, String> {
    let module = frontend_ir::parser::parse_module(input).map_err(|e| e.render(input, "filetest"))?;
    let (kernel, _) = module.kernels().next().ok_or("no kernel")?;
    let mut out = String::new();
    for line in input.lines().filter_map(|l| l.strip_prefix("; target ")) {
        let (id, wave) = line.split_once(':').ok_or("; target ID:WAVE")?;
        let mut target = Target::new(TargetId::parse(id).map_err(|e| e.to_string())?);
        target.wave_size = wave.trim().parse().map_err(|_| "a wave size")?;
        let mut mir = isel::select(&module, kernel, &target).map_err(|e| e.to_string())?.mir;
        let pairs = sched::ds_pair::pair_lds(&mut mir);
        let merged = sched::mem_merge::merge_accesses(&mut mir);
        out.push_str(&format!("{line}: {pairs} pairs, {merged} merged\n{mir}"));
    }
    Ok(out)
}

#[test]
fn mem_pair_filetests() {
    gcnc_tests::filetest::check_dir("mem_pairs", 3, run);
}
