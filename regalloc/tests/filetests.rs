//! Allocation filetests: each `tests/filetests/*.mir` names its input (a `.gir` file of the
//! workspace, `inline` IR after the header, or `inline-mir`: one MIR function after the
//! header, allocated as it is, for what isel does not select yet, such as AGPRs) and the
//! targets, and keeps the expected result after an output marker: per target and kernel, the
//! demand, the registers used (AGPRs where there are any) and the waves per SIMD they allow,
//! then the allocated MIR (with what was spilled, if anything). `spill-target S V` makes
//! spilling aim at `S` SGPRs and `V` VGPRs, so that a small function shows its spill code.
//! `BLESS=1 cargo test -p regalloc --test filetests` rewrites the expected part when a change
//! is intended.
//!
//! ```text
//! test allocate
//! input tests/gir/interp/vadd.gir
//! targets gfx1100:32 gfx942:64
//! ; what to look for in the output
//!
//! ==== output (BLESS=1 rewrites what follows)
//! ; gfx1100 wave32 @vadd: demand 11 SGPRs, 7 VGPRs; uses 16 SGPRs, 7 VGPRs, VCC; 16 waves per SIMD
//! function vadd (wave32):
//! ...
//! ```

use frontend_ir::parser::parse_module;
use isa::mir::Function;
use isa::mir_parse::parse_function;
use isa::opcode::Family;
use isa::processor::{Target, TargetId};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const MARKER: &str = "==== output";

/// A filetest's header: the input's source and the targets.
struct Case {
    head: String,
    expected: String,
    source: String,
    /// The source is one MIR function rather than IR.
    mir: bool,
    targets: Vec<Target>,
    /// The SGPRs and VGPRs spilling aims at (`spill-target S V`), below the files' sizes.
    spill_target: Option<(u16, u16)>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("regalloc sits in the workspace").to_path_buf()
}

/// Reads a filetest: directives (`input`, `targets`), comments, inline IR, expected output.
fn read_case(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (head, expected) = match text.find(MARKER) {
        Some(at) => {
            let end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
            (text[..end].to_string(), text[end..].to_string())
        }
        None => (format!("{text}\n{MARKER} (BLESS=1 rewrites what follows)\n"), String::new()),
    };
    let mut input = "inline".to_string();
    let mut targets = Vec::new();
    let mut inline = String::new();
    let mut spill_target = None;
    for line in head.lines().take_while(|l| !l.starts_with(MARKER)) {
        if let Some(rest) = line.strip_prefix("spill-target ") {
            let n: Vec<u16> = rest.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            let &[sgprs, vgprs] = &n[..] else { return Err(format!("`{line}`: two register counts expected")) };
            spill_target = Some((sgprs, vgprs));
        } else if let Some(rest) = line.strip_prefix("input ") {
            input = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("targets ") {
            for spec in rest.split_whitespace() {
                let (name, wave) = spec.split_once(':').ok_or_else(|| format!("target `{spec}` lacks :wave"))?;
                let mut t = Target::new(TargetId::parse(name).map_err(|e| e.to_string())?);
                t.wave_size = wave.parse().map_err(|_| format!("bad wave size in `{spec}`"))?;
                targets.push(t);
            }
        } else if !(line.starts_with("test ") || line.starts_with(';')) {
            inline.push_str(line);
            inline.push('\n');
        }
    }
    let source = if input == "inline" || input == "inline-mir" {
        inline
    } else {
        std::fs::read_to_string(workspace().join(&input)).map_err(|e| format!("{input}: {e}"))?
    };
    if targets.is_empty() {
        return Err("no `targets` line".into());
    }
    Ok(Case { head, expected, source, mir: input == "inline-mir", targets, spill_target })
}

/// Allocates `mir` (validating it) and prints the result for `target`.
fn allocate_one(out: &mut String, target: &Target, mut mir: Function, case: &Case) -> Result<(), String> {
    let proc = target.processor();
    let before = mir.clone();
    let mut spilling = regalloc::Spilling::new(proc);
    if let Some((sgprs, vgprs)) = case.spill_target {
        (spilling.target.sgprs, spilling.target.vgprs) = (sgprs, vgprs);
    }
    let alloc = regalloc::allocate_with(&mut mir, proc, &spilling).map_err(|e| e.to_string())?;
    // With spills the output answers to the spilled input, which `allocate_with` validates
    // against in debug builds.
    if !alloc.spills.any() {
        regalloc::validate::validate(&before, &mir, proc).map_err(|e| e.to_string())?;
    }
    let vcc = if alloc.uses_vcc { ", VCC" } else { "" };
    let agprs = |n: u16| if alloc.demand.agprs > 0 || alloc.agprs > 0 { format!(", {n} AGPRs") } else { String::new() };
    writeln!(
        out,
        "; {} wave{} @{}: demand {} SGPRs, {} VGPRs{}; uses {} SGPRs, {} VGPRs{}{vcc}; {} waves per SIMD",
        proc.name,
        target.wave_size,
        mir.name,
        alloc.demand.sgprs,
        alloc.demand.vgprs,
        agprs(alloc.demand.agprs),
        alloc.sgprs,
        alloc.vgprs,
        agprs(alloc.agprs),
        alloc.occupancy(proc, target.wave_size).waves_per_simd
    )
    .unwrap();
    let s = alloc.spills;
    if s.any() {
        writeln!(
            out,
            "; spilled: {} values ({} SGPR lanes, {} AGPRs, {} scratch bytes), {} reloads",
            s.spills, s.sgpr_lanes, s.agprs, s.scratch_bytes, s.reloads
        )
        .unwrap();
    }
    writeln!(out, "{mir}").unwrap();
    Ok(())
}

/// Selects (or parses) and allocates every kernel for every target and prints the results.
fn allocate_all(case: &Case) -> Result<String, String> {
    let mut out = String::new();
    if case.mir {
        for target in &case.targets {
            let family = Family::of(target.processor()).ok_or("no encoding family for the target")?;
            let mir = parse_function(&case.source, family).map_err(|e| e.to_string())?;
            if mir.wave_size != target.wave_size {
                return Err(format!("the function is wave{}, the target wave{}", mir.wave_size, target.wave_size));
            }
            allocate_one(&mut out, target, mir, case)?;
        }
        return Ok(out);
    }
    let module = parse_module(&case.source).map_err(|e| e.render(&case.source, "input"))?;
    for target in &case.targets {
        for (id, _) in module.kernels() {
            let selected = isel::select(&module, id, target).map_err(|e| e.to_string())?;
            allocate_one(&mut out, target, selected.mir, case)?;
        }
    }
    Ok(out)
}

/// Where two texts first differ, with a few lines of context.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
    let show = |lines: &[&str]| {
        lines.iter().skip(at.saturating_sub(2)).take(6).map(|l| format!("    {l}\n")).collect::<String>()
    };
    format!("first difference at output line {}:\n  expected:\n{}  actual:\n{}", at + 1, show(&e), show(&a))
}

fn run(path: &Path) -> Result<(), String> {
    let case = read_case(path)?;
    let actual = allocate_all(&case)?;
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        return std::fs::write(path, format!("{}{actual}", case.head)).map_err(|e| e.to_string());
    }
    if actual != case.expected {
        return Err(format!("output differs (BLESS=1 to accept): {}", first_difference(&case.expected, &actual)));
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
    assert!(!paths.is_empty(), "no filetests in {}", dir.display());
    let failures: Vec<String> =
        paths.iter().filter_map(|p| run(p).err().map(|e| format!("{}: {e}", p.display()))).collect();
    assert!(failures.is_empty(), "{} of {} filetests failed:\n{}", failures.len(), paths.len(), failures.join("\n"));
}
