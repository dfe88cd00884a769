//! Selection tests: the filetests under `tests/filetests/` (one case per `.mir` file, the
//! expected MIR kept in the file and rewritten with `BLESS=1`), every kernel of the
//! interpreter corpus on every target (selected and verified, or refused with an error), and
//! the MIR verifier's own checks on broken MIR.
//!
//! A filetest is a header of directives and comments, the input, and the expected output:
//!
//! ```text
//! test select                             (or `test divergence`: the uniformity of every
//!                                          value, branch and loop exit, target-independent;
//!                                          or `test mir_opt`: selected, then the machine
//!                                          optimizer `isel::mir_opt` run on the MIR)
//! input ../tests/gir/interp/vadd.gir      (a .gir file relative to the workspace root,
//!                                          or `input inline`: the IR follows the header)
//! targets gfx1100:32 gfx1100:64 gfx942:64   (`gfx1100:32:cumode`: CU wavefront execution mode)
//! ; comments: what the output should look like, so a reader can check the blessed text
//!
//! ==== output (BLESS=1 rewrites what follows)
//! ; target gfx1100 wave32
//! function vadd (wave32):
//! ...
//! ```

use frontend_ir::parser::parse_module;
use frontend_ir::Module;
use isa::processor::{Target, TargetId};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "common/random_cfg.rs"]
mod random_cfg;
use random_cfg::random_kernel;

const OUTPUT_MARKER: &str = "==== output";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("isel sits in the workspace").to_path_buf()
}

/// `gfx1100:32` and the like.
fn target(spec: &str) -> Target {
    let mut parts = spec.split(':');
    let name = parts.next().unwrap_or(spec);
    let mut target = Target::new(TargetId::parse(name).unwrap_or_else(|e| panic!("target {spec}: {e}")));
    for part in parts {
        if part == "cumode" {
            target.cumode = true;
        } else if part == "tgsplit" {
            target.tgsplit = true;
        } else if let Ok(wave) = part.parse() {
            target.wave_size = wave;
        }
    }
    target
}

const ALL_TARGETS: [&str; 3] = ["gfx1100:32", "gfx1100:64", "gfx942:64"];

/// Selects every kernel of `module` for `target` (then runs the machine optimizer when
/// `optimize`), verifies the MIR, and prints it.
fn select_module(module: &Module, target: &Target, optimize: bool) -> Result<String, String> {
    let mut out = String::new();
    for (id, _) in module.kernels() {
        let mut selected = isel::select(module, id, target).map_err(|e| e.to_string())?;
        if optimize {
            isel::mir_opt::optimize(&mut selected.mir);
        }
        isel::mir_verify::verify(&selected.mir).map_err(|e| format!("{e}\n{}", selected.mir))?;
        let mode = match (target.cumode, target.tgsplit) {
            (true, _) => " cumode",
            (_, true) => " tgsplit",
            _ => "",
        };
        writeln!(out, "; target {} wave{}{mode}", target.processor().name, target.wave_size).unwrap();
        let k = &selected.kernarg;
        let i = &selected.inputs;
        let groups: String = i.workgroup_id.iter().zip("xyz".chars()).filter(|(on, _)| **on).map(|(_, d)| d).collect();
        writeln!(
            out,
            "; kernarg offsets {:?} size {} (hidden: {}); inputs: kernarg pointer {}, group ids [{groups}], work-item ids {}; lds {}",
            k.explicit_offsets,
            k.size,
            !k.hidden.is_empty(),
            i.kernarg_segment_ptr,
            i.workitem_id_dims,
            selected.lds_bytes
        )
        .unwrap();
        write!(out, "{}", selected.mir).unwrap();
    }
    Ok(out)
}

/// The divergence analysis of every kernel of `module`, as the IR with each value, branch and
/// loop annotated: `U` uniform, `D` divergent.
fn divergence_module(module: &Module) -> String {
    use frontend_ir::cfg::ControlFlowGraph;
    use frontend_ir::dominator_tree::DominatorTree;
    use frontend_ir::loops::LoopAnalysis;
    use frontend_ir::write::inst_to_string;
    use frontend_ir::InstData;
    let mut out = String::new();
    for (_, func) in module.kernels() {
        let div = isel::divergence::Divergence::of_function(func);
        let mark = |v| if div.is_divergent(v) { "D" } else { "U" };
        writeln!(out, "; divergence of @{}", func.name).unwrap();
        for &block in &func.layout {
            let params: Vec<String> =
                func.dfg.blocks[block].params.iter().map(|&p| format!("{p}: {}", mark(p))).collect();
            writeln!(out, "{block}({}):", params.join(", ")).unwrap();
            for &inst in &func.dfg.blocks[block].insts {
                let text = inst_to_string(module, func, inst);
                let note = match (func.dfg.inst_result(inst), &func.dfg.insts[inst]) {
                    (Some(r), _) => format!("  ; {}", mark(r)),
                    (None, InstData::Brif { .. } | InstData::Switch { .. }) => {
                        let d = div.is_branch_divergent(block);
                        format!("  ; {} branch", if d { "divergent" } else { "uniform" })
                    }
                    _ => String::new(),
                };
                writeln!(out, "    {text}{note}").unwrap();
            }
        }
        let cfg = ControlFlowGraph::new(func);
        let domtree = DominatorTree::new(func, &cfg);
        let loops = LoopAnalysis::new(func, &cfg, &domtree);
        for lp in loops.loops() {
            let exits = if div.loop_exit_divergent(lp) { "in different iterations" } else { "together" };
            writeln!(out, "; the loop at {}: lanes leave it {exits}", loops.header(lp)).unwrap();
        }
    }
    out
}

/// A line diff of `expected` and `actual` (longest common subsequence; the files are small).
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out += &format!("  {}\n", a[i]);
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out += &format!("+ {}\n", b[j]);
            j += 1;
        } else {
            out += &format!("- {}\n", a[i]);
            i += 1;
        }
    }
    out
}

/// Runs one filetest; `Err` describes the failure.
fn run_filetest(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (head, expected) = match text.find(OUTPUT_MARKER) {
        Some(at) => {
            let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
            (&text[..line_end], &text[line_end..])
        }
        None => (text.as_str(), ""),
    };
    let mut input = None;
    let mut divergence = false;
    let mut optimize = false;
    let mut targets: Vec<String> = ALL_TARGETS.iter().map(|t| t.to_string()).collect();
    let mut inline = String::new();
    let mut in_header = true;
    for line in head.lines() {
        if line.starts_with(OUTPUT_MARKER) {
            break;
        }
        if in_header {
            if let Some(rest) = line.strip_prefix("input ") {
                input = Some(rest.trim().to_string());
                continue;
            }
            if let Some(rest) = line.strip_prefix("targets ") {
                targets = rest.split_whitespace().map(str::to_string).collect();
                continue;
            }
            if line == "test divergence" {
                divergence = true;
                continue;
            }
            if line == "test mir_opt" {
                optimize = true;
                continue;
            }
            if line.starts_with("test ") || line.starts_with(';') || line.trim().is_empty() {
                continue;
            }
            in_header = false;
        }
        inline += line;
        inline.push('\n');
    }
    let source = match input.as_deref() {
        Some("inline") | None => inline,
        Some(file) => std::fs::read_to_string(workspace().join(file)).map_err(|e| format!("{file}: {e}"))?,
    };
    let module = parse_module(&source).map_err(|e| e.render(&source, "input"))?;
    let mut actual = String::new();
    if divergence {
        actual = divergence_module(&module);
    } else {
        for t in &targets {
            actual += &select_module(&module, &target(t), optimize)?;
            actual.push('\n');
        }
    }
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        let head = if head.contains(OUTPUT_MARKER) {
            head.to_string()
        } else {
            format!("{head}\n{OUTPUT_MARKER} (BLESS=1 rewrites what follows)\n")
        };
        std::fs::write(path, head + &actual).map_err(|e| e.to_string())?;
        return Ok(());
    }
    if actual != expected {
        return Err(format!("output differs (- expected, + actual; BLESS=1 to accept):\n{}", diff(expected, &actual)));
    }
    Ok(())
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/filetests exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mir"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no filetests found");
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| run_filetest(p).err().map(|e| format!("{}: {e}", p.file_name().unwrap().to_string_lossy())))
        .collect();
    assert!(failures.is_empty(), "{} of {} filetests failed:\n{}", failures.len(), paths.len(), failures.join("\n"));
}

/// Every kernel of the interpreter corpus, on every target: selected and verified, or refused
/// with an error (never a panic, never MIR the verifier rejects). The ones that must select
/// are listed.
#[test]
fn interp_corpus_selects_or_reports() {
    let dir = workspace().join("tests/gir/interp");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let must_select = ["vadd.gir", "saxpy.gir", "stencil2d.gir", "loop_break_continue.gir"];
    let mut report = String::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(path).unwrap();
        let module = parse_module(&source).unwrap_or_else(|e| panic!("{}", e.render(&source, &name)));
        for t in ALL_TARGETS {
            for (id, _) in module.kernels() {
                match isel::select(&module, id, &target(t)) {
                    Ok(selected) => {
                        if let Err(e) = isel::mir_verify::verify(&selected.mir) {
                            panic!("{name} on {t}: the verifier rejects the selected MIR: {e}\n{}", selected.mir);
                        }
                    }
                    Err(e) => {
                        assert!(!must_select.contains(&name.as_str()), "{name} on {t}: {e}");
                        writeln!(report, "{name} {t}: {e}").unwrap();
                    }
                }
            }
        }
    }
    // What is not selected yet, for the record (`cargo test -- --nocapture`).
    println!("{report}");
}

/// Random reducible control flow (see [`random_kernel`]) selects on every target, and the
/// verifier accepts the MIR; irreducible flow is refused as such. (tests/tests/random_control_flow.rs
/// runs the same kernels compiled against the interpreter.)
#[test]
fn random_control_flow_selects_and_verifies() {
    let (mut selected, mut irreducible) = (0, 0);
    for seed in 0..300 {
        let src = random_kernel(seed, 2 + seed as usize % 7);
        let module = parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, "random")));
        let id = module.functions.keys().next().unwrap();
        for t in ALL_TARGETS {
            match isel::select(&module, id, &target(t)) {
                Ok(sel) => {
                    if let Err(e) = isel::mir_verify::verify(&sel.mir) {
                        panic!("seed {seed} on {t}: {e}\n{src}\n{}", sel.mir);
                    }
                    selected += 1;
                }
                Err(isel::IselError::Irreducible { .. }) => irreducible += 1,
                Err(e) => panic!("seed {seed} on {t}: {e}\n{src}"),
            }
        }
    }
    println!("{selected} selected, {irreducible} irreducible");
    assert!(selected > 400 && irreducible > 30, "{selected} selected, {irreducible} irreducible");
}

/// With a stand-in allocation (every temporary in some aligned register, fixed ones where they
/// are fixed), every machine instruction of the selected filetest kernels, its implicit SCC and
/// EXEC operands stripped, is accepted by isa's encoder: the shapes, `vop3` choices, constants
/// and constant-bus use that selection makes are ones the hardware has.
#[test]
fn selected_mir_encodes() {
    use isa::reg::{PhysReg, RegType};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut failures = Vec::new();
    let mut encoded = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let source = match text.lines().find_map(|l| l.strip_prefix("input ")) {
            Some("inline") => text[..text.find(OUTPUT_MARKER).unwrap_or(text.len())]
                .lines()
                .skip_while(|l| !l.starts_with("kernel") && !l.starts_with("func"))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(file) => std::fs::read_to_string(workspace().join(file.trim())).unwrap(),
            None => continue,
        };
        let module = parse_module(&source).unwrap();
        for t in ALL_TARGETS {
            for (id, _) in module.kernels() {
                let Ok(selected) = isel::select(&module, id, &target(t)) else { continue };
                let mut mir = selected.mir;
                isel::strip_implicit(&mut mir);
                let place = |id: u32, rc: isa::reg::RegClass| -> PhysReg {
                    let align = u32::from(rc.size.min(4)).next_power_of_two();
                    match rc.ty {
                        RegType::Sgpr => PhysReg::sgpr(((20 + id * 4 % 64) / align * align) as u16),
                        _ => PhysReg::vgpr(((4 + id * 2 % 200) / align * align) as u16),
                    }
                };
                for block in &mir.blocks {
                    for inst in block.insts.iter().filter(|i| !i.opcode.is_pseudo()) {
                        let mut inst = inst.clone();
                        for d in inst.defs.iter_mut() {
                            if let (None, Some(t)) = (d.reg, d.temp) {
                                d.reg = Some(place(t.id, t.rc));
                            }
                        }
                        for o in inst.ops.iter_mut() {
                            if let (None, Some(t)) = (o.reg, o.temp_of()) {
                                o.reg = Some(place(t.id, t.rc));
                            }
                        }
                        let mut bytes = Vec::new();
                        match isa::encode::encode(&inst, mir.family, &mut bytes) {
                            Ok(()) => encoded += 1,
                            Err(e) => failures.push(format!(
                                "{} {t}: {}: {e}",
                                path.file_name().unwrap().to_string_lossy(),
                                isa::mir::DisplayInst(&inst, mir.family)
                            )),
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} instructions refused:\n{}", failures.len(), failures.join("\n"));
    assert!(encoded > 100, "only {encoded} instructions encoded");
}

mod verifier {
    use super::*;
    use isa::mir::{Def, Inst, Operand};
    use isa::opcode::Opcode;
    use isa::reg::{PhysReg, RegClass};

    fn vadd(t: &str) -> isa::mir::Function {
        let source = std::fs::read_to_string(workspace().join("tests/gir/interp/vadd.gir")).unwrap();
        let module = parse_module(&source).unwrap();
        let id = module.find("vadd").unwrap();
        isel::select(&module, id, &target(t)).unwrap().mir
    }

    fn messages(mir: &isa::mir::Function) -> String {
        isel::mir_verify::verify(mir).expect_err("the verifier must reject this").to_string()
    }

    #[test]
    fn accepts_selected_vadd() {
        for t in ALL_TARGETS {
            isel::mir_verify::verify(&vadd(t)).unwrap();
        }
    }

    #[test]
    fn rejects_a_one_sided_edge() {
        let mut mir = vadd("gfx1100:32");
        mir.blocks[1].linear_preds.clear();
        assert!(messages(&mir).contains("does not list BB0 back"), "{}", messages(&mir));
    }

    #[test]
    fn rejects_a_second_definition_and_a_use_before_definition() {
        let mut mir = vadd("gfx1100:32");
        let first = mir.blocks[0].insts[0].defs[0];
        let t = first.temp.unwrap();
        mir.blocks[1].insts.insert(1, Inst::new(Opcode::SMovB32, &[Def::temp(t)], &[Operand::constant(0)]));
        let late = mir.new_temp(RegClass::S1);
        let reader = mir.new_temp(RegClass::S1);
        mir.blocks[0].insts.insert(2, Inst::new(Opcode::SMovB32, &[Def::temp(reader)], &[Operand::temp(late)]));
        let text = messages(&mir);
        assert!(text.contains("defined a second time"), "{text}");
        assert!(text.contains("never defined"), "{text}");
    }

    #[test]
    fn rejects_wrong_classes_and_constant_bus_overuse() {
        let mut mir = vadd("gfx942:64");
        let s = mir.new_temp(RegClass::S1);
        let s2 = mir.new_temp(RegClass::S1);
        let v = mir.new_temp(RegClass::V1);
        let lane_mask32 = mir.new_temp(RegClass::S1);
        let insts = [
            Inst::new(Opcode::SMovB32, &[Def::temp(s)], &[Operand::constant(1)]),
            Inst::new(Opcode::SMovB32, &[Def::temp(s2)], &[Operand::constant(2)]),
            // Two SGPRs in one VALU instruction on GFX9.
            Inst::new(Opcode::VAddF32, &[Def::temp(v)], &[Operand::temp(s), Operand::temp(s2)]),
            // A wave32 lane mask in a wave64 function.
            Inst::new(Opcode::VCmpEqU32, &[Def::temp(lane_mask32)], &[Operand::temp(v), Operand::temp(v)]),
        ];
        // Before the entry block's p_logical_end, s_and_saveexec and p_cbranch_execz.
        let at = mir.blocks[0].insts.len() - 3;
        for (k, inst) in insts.into_iter().enumerate() {
            mir.blocks[0].insts.insert(at + k, inst);
        }
        let text = messages(&mir);
        assert!(text.contains("constant bus"), "{text}");
        assert!(text.contains("result 0 of class s1 does not fit"), "{text}");
        assert!(text.contains("e32 encoding"), "{text}");
        assert!(!text.contains("logical part"), "{text}");
    }

    #[test]
    fn rejects_vector_code_outside_the_logical_part_and_a_missing_terminator() {
        let mut mir = vadd("gfx1100:32");
        let v = mir.new_temp(RegClass::V1);
        mir.blocks[0].insts.push(Inst::new(Opcode::VMovB32, &[Def::temp(v)], &[Operand::constant(0)]));
        let text = messages(&mir);
        assert!(text.contains("outside the block's logical part"), "{text}");
        assert!(text.contains("does not end with a branch"), "{text}");
    }

    #[test]
    fn rejects_fixed_registers_of_the_wrong_class() {
        let mut mir = vadd("gfx1100:64");
        let t = mir.new_temp(RegClass::S2);
        mir.blocks[0]
            .insts
            .insert(1, Inst::new(Opcode::SMovB64, &[Def::fixed(t, PhysReg::SCC)], &[Operand::constant(0)]));
        let text = messages(&mir);
        assert!(text.contains("cannot live in scc"), "{text}");
    }
}

mod errors {
    use super::*;
    use isel::IselError;

    fn select_err(src: &str, t: &str) -> IselError {
        let module = parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test")));
        let id = module.functions.keys().next().unwrap();
        isel::select(&module, id, &target(t)).expect_err("selection must refuse this")
    }

    #[test]
    fn irreducible_control_flow_is_refused_by_name() {
        // The cycle a <-> b is entered at both blocks.
        let e = select_err(
            "kernel @k(i32) {
            entry(%n: i32):
                %zero = iconst.i32 0
                %c = icmp eq %n, %zero
                brif %c, a, b
            a:
                brif %c, b, done
            b:
                jump a
            done:
                ret
            }",
            "gfx1100:32",
        );
        assert!(matches!(e, IselError::Irreducible { .. }), "{e}");
        assert!(e.to_string().contains("in @k: irreducible control flow: the edge from"), "{e}");
    }

    /// Paths that meet only at the end are selected once each; a chain of early returns that
    /// doubles them at every step is refused before it grows out of bounds.
    #[test]
    fn paths_that_never_meet_are_bounded() {
        // Each r_i either leaves through the shared block `xr` or goes on: the paths meet only
        // at the end, so selecting each once per path would double the code twelve times.
        let e = select_err(&early_exits(true), "gfx1100:32");
        assert!(e.to_string().contains("meet too late"), "{e}");
    }

    #[test]
    fn returns_of_their_own_hold_no_lane_back_and_select_each_block_once() {
        // The same chain with a `ret` of its own in each x_i: those arms do not count
        // (frontend_ir::reconverge), every branch joins at the next b_i, and nothing is
        // selected twice.
        let module = parse_module(&early_exits(false)).unwrap();
        let id = module.functions.keys().next().unwrap();
        let sel = isel::select(&module, id, &target("gfx1100:32")).expect("selects");
        let blocks = sel.mir.blocks.len();
        assert!(blocks < 12 * 12, "{blocks} MIR blocks for 12 links of 4 IR blocks");
    }

    /// A chain of 12 links, each a divergent branch to a block that may leave the kernel:
    /// through one shared `ret` block (`shared`), or a `ret` of its own.
    fn early_exits(shared: bool) -> String {
        let mut src = String::from(
            "kernel @k(ptr<global>) {\nentry(%p: ptr<global>):\n    %lid = local_id.x\n    %one = iconst.i32 1\n    jump b0\n",
        );
        let leave = if shared { "jump xr" } else { "ret" };
        for i in 0..12 {
            src += &format!(
                "b{i}:\n    %s{i} = shl %one, %one\n    %c{i} = icmp ult %lid, %s{i}\n    brif %c{i}, r{i}, n{i}\nr{i}:\n    brif %c{i}, x{i}, n{i}\nx{i}:\n    {leave}\nn{i}:\n    store %p, %lid\n    jump b{}\n",
                i + 1
            );
        }
        src += "b12:\n    ret\n";
        if shared {
            src += "xr:\n    ret\n";
        }
        src + "}\n"
    }

    #[test]
    fn unsupported_instructions_are_named() {
        let e = select_err(
            "kernel @k(ptr<global>, f32) {
            entry(%p: ptr<global>, %n: f32):
                %q = call @twice(%n)
                store %p, %q
                ret
            }
            func @twice(f32) -> f32 {
            entry(%x: f32):
                %y = fadd %x, %x
                ret %y
            }",
            "gfx1100:32",
        );
        let text = e.to_string();
        assert!(text.contains("in @k") && text.contains("call"), "{text}");
    }

    #[test]
    fn helpers_and_unknown_generations_are_refused() {
        let e = select_err("func @f(i32) -> i32 {\nentry(%x: i32):\n    ret %x\n}\n", "gfx1100:32");
        assert!(matches!(e, IselError::NotAKernel { .. }), "{e}");
        let vadd = std::fs::read_to_string(workspace().join("tests/gir/interp/vadd.gir")).unwrap();
        assert!(matches!(select_err(&vadd, "gfx1030:32"), IselError::Unverified { .. }));
        assert!(matches!(select_err(&vadd, "gfx942:32"), IselError::Target { .. }));
    }
}
